//! Debian's librocrand1 5.3, unmodified, through rdna2spv's HIP runtime (decision D156): the C program
//! fixtures/hip_programs/rocrand.c opens the library with dlopen; Philox4x32-10's uint32 and uniform float
//! streams equal a model written from the algorithm (itself checked against Random123's known answer) and
//! Sobol32's dimension 1 equals the Gray-code van der Corput sequence; Philox's normals lie within decision
//! D161's bound of a Box–Muller reference computed in long double from the model's words; XORWOW's uint32s,
//! uniform floats and uniform doubles equal the reference of tests/support/rocrand.rs (decision D181:
//! seeding, GF(2) jumps computed there, the host generator's engine layout), every bit; the other uniform
//! doubles and normals are checked for range here; every output is compared bit for bit between the device
//! and the host evaluator by `--backend both`. The library comes from `cargo xtask corpus rocrand` (CI runs
//! it).

#[path = "support/rocm_deb.rs"]
mod rocm_deb;
use rocm_deb::{check, exec, fails_without_our_runtime, Library};
#[path = "support/rocrand.rs"]
mod rocrand;
use rocrand::{uniform_f32, uniform_f64, XorwowGenerator, XORWOW_ENGINES};

/// Philox4x32-10 and Sobol32 on lavapipe and the host evaluator, every launch compared, results against
/// the oracles; and the program without our runtime failing.
#[test]
fn rocrand_philox_and_sobol_run_unmodified() {
    let lib = Library::unpack("rocrand", "librocrand1");
    for g in ["sobol", "philox"] {
        let r = exec(&lib, "both", "rocrand", &[g]);
        check(&r, "rocrand", g);
        // Philox normals within D161's bound of the long double Box–Muller reference (the program fails
        // past it; here the line that reports it must be there).
        if g == "philox" {
            let out = String::from_utf8_lossy(&r.stdout);
            assert!(
                out.contains("rocrand: normal: worst error ") && out.contains(" of the bound"),
                "{out}"
            );
        }
    }
    fails_without_our_runtime(&lib, "rocrand", &["philox"]);
}

/// The seed rocrand.c sets (both halves matter to XORWOW's seeding).
const SEED: u64 = 0x0123_4567_89ab_cdef;

/// `rocrand xorwow COUNT FILE OFFSET` run through `rdna2spv exec --backend BACKEND`: its uint32s, uniform
/// floats and uniform doubles (COUNT each, in that order) against the reference of tests/support/rocrand.rs,
/// every bit. Returns the number of values compared.
fn xorwow_against_the_reference(lib: &Library, backend: &str, count: usize, offset: u64) -> usize {
    let file = std::env::temp_dir().join(format!(
        "rdna2spv-xorwow-{}-{backend}.bin",
        std::process::id()
    ));
    // The reference is computed while the program runs.
    let reference = std::thread::spawn(move || {
        let t = std::time::Instant::now();
        let mut g = XorwowGenerator::new(SEED, offset);
        let u: Vec<u32> = g.generate(count, 1).into_iter().map(|v| v[0]).collect();
        let f: Vec<u32> = g
            .generate(count, 1)
            .into_iter()
            .map(|v| uniform_f32(v[0]).to_bits())
            .collect();
        let d: Vec<u64> = g
            .generate(count, 2)
            .into_iter()
            .map(|v| uniform_f64(v[0], v[1]).to_bits())
            .collect();
        (u, f, d, t.elapsed().as_secs_f64())
    });
    let t0 = std::time::Instant::now();
    let r = exec(
        lib,
        backend,
        "rocrand",
        &[
            "xorwow",
            &count.to_string(),
            file.to_str().unwrap(),
            &offset.to_string(),
        ],
    );
    let secs = t0.elapsed().as_secs_f64();
    check(&r, "rocrand", "xorwow");
    let bytes = std::fs::read(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    assert_eq!(bytes.len(), 16 * count);
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let got_u = words(&bytes[..4 * count]);
    let got_f = words(&bytes[4 * count..8 * count]);
    let got_d: Vec<u64> = bytes[8 * count..]
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let (want_u, want_f, want_d, reference_secs) = reference.join().unwrap();
    let mut bad = Vec::new();
    let mut compare = |what: &str, got: &[u64], want: &[u64]| {
        let differ: Vec<usize> = (0..count).filter(|&i| got[i] != want[i]).collect();
        if let Some(&i) = differ.first() {
            bad.push(format!(
                "{what}: {} of {count} differ, first [{i}]: got {:#x}, want {:#x}",
                differ.len(),
                got[i],
                want[i]
            ));
        }
    };
    let wide = |v: &[u32]| v.iter().map(|&x| u64::from(x)).collect::<Vec<u64>>();
    compare("uint32", &wide(&got_u), &wide(&want_u));
    compare("uniform float", &wide(&got_f), &wide(&want_f));
    compare("uniform double", &got_d, &want_d);
    assert!(
        bad.is_empty(),
        "XORWOW seed {SEED:#x} offset {offset} on {backend}:\n{}",
        bad.join("\n")
    );
    eprintln!(
        "xorwow seed {SEED:#x} offset {offset}: {} values on {backend} equal the reference bit for bit \
         (run {secs:.1} s, reference {reference_secs:.1} s)",
        3 * count
    );
    3 * count
}

/// The offset the tests give `rocrand_set_offset`: engines below 1,000 one number further on than the
/// others (`offset mod 131072`), all 2^33 + 5 numbers on (`offset / 131072`: the Weyl word wraps, the jump
/// uses the offset tables past their first 32 bits).
const XORWOW_OFFSET: u64 = ((1 << 33) + 5) * XORWOW_ENGINES as u64 + 1000;

/// XORWOW from the unmodified library on lavapipe against the reference: 2 · 131,072 + 4 outputs of each
/// kind, so that every engine gives two or more numbers of each call and the calls rotate the engines.
#[test]
fn rocrand_xorwow_equals_the_reference_on_lavapipe() {
    let lib = Library::unpack("rocrand", "librocrand1");
    xorwow_against_the_reference(&lib, "vulkan", 2 * XORWOW_ENGINES + 4, XORWOW_OFFSET);
}

/// XORWOW and MRG32k3a: their engine set-up kernels (skip-ahead for 131,072 engines) take minutes on the host
/// evaluator (XORWOW's run here about 8 min, MRG32k3a's about 2 min in a debug build on 2 shared cores), so
/// not in the default run: `cargo test --test hip_rocrand -- --ignored`. XORWOW's outputs are compared with
/// the reference too.
#[test]
#[ignore = "long (about 10 min on the host evaluator): cargo test --test hip_rocrand -- --ignored"]
fn rocrand_xorwow_and_mrg32k3a_agree_on_the_device_and_the_host() {
    let lib = Library::unpack("rocrand", "librocrand1");
    check(&exec(&lib, "both", "rocrand", &["mrg"]), "rocrand", "mrg");
    xorwow_against_the_reference(&lib, "both", 2 * XORWOW_ENGINES + 4, XORWOW_OFFSET);
}
