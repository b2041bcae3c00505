//! Global data of whole code objects (decision D155): the loader places every PT_LOAD segment at the
//! same address on both backends, applies the dynamic relocations, and `s_getpc_b64` reads an address
//! inside that image; `[[globals]]` initialise and write out globals by name.
//!
//! Kernels: `fixtures/kernels/globals.cl` built by clang-19 twice (as is: one R_AMDGPU_RELATIVE64; with
//! `-fvisibility=default`: every global reached through the GOT's R_AMDGPU_ABS64 relocations) and
//! `fixtures/hip/globals.hip` built by hipcc 5.2.3. Expected values: Rust models written here from those
//! sources (the tables' generating formulas are in the sources' headers), never from a run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rdna2spv(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rdna2spv-globals-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn words(p: &Path) -> Vec<u32> {
    std::fs::read(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs `fixtures/globals/<manifest>` on `backend`; returns the output folder.
fn run(manifest: &str, backend: &str) -> PathBuf {
    let out = tmp(&format!("{manifest}-{backend}"));
    let m = root().join("fixtures/globals").join(manifest);
    let r = rdna2spv(&[
        "run".as_ref(),
        m.as_os_str(),
        "--backend".as_ref(),
        backend.as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{manifest} on {backend}: {err}");
    if backend == "both" {
        assert!(err.contains("agree bit for bit"), "{err}");
    }
    out
}

/// globals.cl's table.
fn table(i: u32) -> u32 {
    i.wrapping_mul(0x9E37_79B1) ^ (i << 7) ^ 0x5BD1_E995
}

/// globals.cl for `n` work-items and the given initial `counter`: (out, hist, marks, counter).
fn model_cl(n: u32, counter: u32) -> (Vec<u32>, Vec<u32>, Vec<u32>, u32) {
    let out = (0..n)
        .map(|i| table((i * 37 + 11) % 1280) ^ counter)
        .collect();
    let mut hist = vec![0u32; 64];
    for i in 0..n {
        hist[(i % 64) as usize] = hist[(i % 64) as usize].wrapping_add(i);
    }
    let mut marks = vec![0u32; 8];
    marks[3] = counter.wrapping_add(1);
    (out, hist, marks, counter)
}

fn check_cl(dir: &Path, n: u32, counter: u32) {
    let (out, hist, marks, c) = model_cl(n, counter);
    assert_eq!(words(&dir.join("out.bin")), out, "out");
    assert_eq!(words(&dir.join("hist.bin")), hist, "hist");
    assert_eq!(words(&dir.join("marks.bin")), marks, "marks");
    assert_eq!(words(&dir.join("counter.bin")), [c], "counter");
}

#[test]
fn opencl_globals_relative_relocation() {
    for backend in ["host", "both"] {
        check_cl(&run("globals.toml", backend), 1280, 7);
    }
}

#[test]
fn opencl_globals_through_the_got() {
    for backend in ["host", "both"] {
        check_cl(&run("globals_vis.toml", backend), 1280, 7);
    }
}

#[test]
fn opencl_global_initialised_from_a_file() {
    let init = words(&root().join("fixtures/globals/counter.in.bin"))[0];
    assert_ne!(init, 7, "the file must change the source's initial value");
    for backend in ["host", "both"] {
        check_cl(&run("globals_init.toml", backend), 1000, init);
    }
}

#[test]
fn hip_globals() {
    let ctab = |i: u32| {
        i.wrapping_mul(0x2545_F491)
            .wrapping_add((i ^ 0xA5A5_A5A5).wrapping_mul(3))
    };
    let dscale = words(&root().join("fixtures/globals/dscale.in.bin"))[0];
    let n = 1100u32;
    let out: Vec<u32> = (0..n)
        .map(|i| ctab((i * 13) % 1100).wrapping_mul(dscale).wrapping_add(i))
        .collect();
    let mut dhist = vec![0u32; 16];
    for i in 0..n {
        dhist[(i % 16) as usize] += i;
    }
    let mut dmarks = vec![0u32; 8];
    dmarks[5] = dscale ^ 0xffff_ffff;
    for backend in ["host", "both"] {
        let d = run("hip_globals.toml", backend);
        assert_eq!(words(&d.join("out.bin")), out, "out ({backend})");
        assert_eq!(words(&d.join("dhist.bin")), dhist, "dhist ({backend})");
        assert_eq!(words(&d.join("dmarks.bin")), dmarks, "dmarks ({backend})");
    }
}

#[test]
fn info_lists_globals_and_relocations() {
    let co = root().join("fixtures/kernels/globals_vis.co");
    let r = rdna2spv(&["info".as_ref(), co.as_os_str()]);
    assert_eq!(r.status.code(), Some(0));
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(text.contains("6 dynamic relocation(s)"), "{text}");
    for (name, size) in [
        ("table", 5120),
        ("counter", 4),
        ("hist", 256),
        ("marks", 32),
    ] {
        assert!(
            text.lines().any(|l| l.contains(&format!(" {size} B "))
                && l.trim_end().ends_with(name)
                || l.contains(&format!(" {size} B ")) && l.contains(&format!(" {name}  ("))),
            "{name} ({size} B) not listed:\n{text}"
        );
    }
    let r = rdna2spv(&["info".as_ref(), "--json".as_ref(), co.as_os_str()]);
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let globals = v["image"]["globals"].as_array().unwrap();
    let hist = globals.iter().find(|g| g["name"] == "hist").unwrap();
    assert_eq!(hist["size"], 256);
    assert_eq!(hist["writable"], true);
    let relocs = v["image"]["relocations"].as_array().unwrap();
    assert!(relocs
        .iter()
        .any(|r| r["kind"] == 3 && r["symbol"] == "marks" && r["addend"] == 12));
}

/// Malformed `[[globals]]`: exit 2, a message naming the problem, nothing written in the output folder.
#[test]
fn bad_globals_are_clear_errors() {
    let d = tmp("bad");
    let co = root().join("fixtures/kernels/globals.co");
    std::fs::write(d.join("short.bin"), [1u8, 2]).unwrap();
    let cases: [(&str, &str); 6] = [
        ("name = \"nope\"\noutput = \"x\"", "no global \"nope\""),
        (
            "name = \"counter\"\nfile = \"short.bin\"",
            "holds 2 bytes; the global has 4",
        ),
        ("name = \"counter\"\nfile = \"missing.bin\"", "missing.bin"),
        ("name = \"counter\"", "give `file`, `output` or both"),
        (
            "name = \"counter\"\noutput = \"../escape\"",
            "plain file name",
        ),
        ("name = \"counter\"\nsize = 4", "unknown field"),
    ];
    for (i, (entry, needle)) in cases.iter().enumerate() {
        let m = d.join(format!("m{i}.toml"));
        std::fs::write(
            &m,
            format!(
                "code_object = {:?}\nkernel = \"globals\"\ngrid = [64, 1, 1]\nworkgroup = [64, 1, 1]\n\
                 [[args]]\nbuffer = {{ size = 256 }}\noutput = \"out\"\n[[args]]\nu32 = 64\n[[globals]]\n{entry}\n",
                co.display().to_string()
            ),
        )
        .unwrap();
        let out = d.join(format!("out{i}"));
        let r = rdna2spv(&[
            "run".as_ref(),
            m.as_os_str(),
            "--backend".as_ref(),
            "host".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "case {i}: {err}");
        assert!(
            err.contains(needle),
            "case {i}: expected {needle:?} in: {err}"
        );
        assert!(!err.contains("panicked"), "case {i}: {err}");
        assert!(!out.exists(), "case {i}: an output folder was written");
    }
    assert!(!d.parent().unwrap().join("escape.bin").exists());
}

/// The loader's relocation arithmetic on the real objects, against values worked out from readelf's
/// listing (fixtures/kernels/globals*.readelf.txt and the relocation tables llvm-readelf-19 -r prints).
#[test]
fn relocations_applied_for_the_placed_address() {
    let base = 0x7654_3210_0000u64;
    let load = |f: &str| {
        let bytes = std::fs::read(root().join("fixtures/kernels").join(f)).unwrap();
        rdna2spv_codeobj::CodeObject::parse(&bytes).unwrap()
    };
    let q = |img: &[u8], at: u64| {
        u64::from_le_bytes(img[at as usize..at as usize + 8].try_into().unwrap())
    };
    // globals.co: `gp` (0x5738) = R_AMDGPU_RELATIVE64 with addend 0x574c (marks + 12): B + A.
    let co = load("globals.co");
    let im = co.image.as_ref().unwrap();
    let placed = im.place(base).unwrap();
    let gp = im.global("gp").unwrap().address;
    let marks = im.global("marks").unwrap().address;
    assert_eq!(gp, 0x5738);
    assert_eq!(marks + 12, 0x574c);
    assert_eq!(q(&placed, gp), base + marks + 12);
    // globals_vis.co: the GOT entries are S + A for table, counter, hist, gp, dres, and gp itself holds
    // marks + 12.
    let co = load("globals_vis.co");
    let im = co.image.as_ref().unwrap();
    let placed = im.place(base).unwrap();
    for (got, sym) in [
        (0x4920, "table"),
        (0x4928, "counter"),
        (0x4930, "hist"),
        (0x4938, "gp"),
        (0x4940, "dres"),
    ] {
        assert_eq!(
            q(&placed, got),
            base + im.global(sym).unwrap().address,
            "{sym}"
        );
    }
    assert_eq!(
        q(&placed, im.global("gp").unwrap().address),
        base + im.global("marks").unwrap().address + 12
    );
    // Unrelocated bytes are the file's; `.bss` is zero.
    let hist = im.global("hist").unwrap();
    assert!(
        placed[hist.address as usize..(hist.address + hist.size) as usize]
            .iter()
            .all(|&b| b == 0)
    );
    let counter = im.global("counter").unwrap().address as usize;
    assert_eq!(&placed[counter..counter + 4], &7u32.to_le_bytes());
}

/// byval_struct.h's struct, read from fixtures/args/byval_struct.bin at the offsets its header documents.
struct ByVal {
    c: i8,
    d: f64,
    s: i16,
    f: f32,
    l: i64,
    n: i32,
    u: u8,
}

fn byval() -> ByVal {
    let b = std::fs::read(root().join("fixtures/args/byval_struct.bin")).unwrap();
    assert_eq!(b.len(), 48);
    let at = |o: usize, n: usize| b[o..o + n].to_vec();
    ByVal {
        c: b[0] as i8,
        d: f64::from_le_bytes(at(8, 8).try_into().unwrap()),
        s: i16::from_le_bytes(at(16, 2).try_into().unwrap()),
        f: f32::from_le_bytes(at(20, 4).try_into().unwrap()),
        l: i64::from_le_bytes(at(24, 8).try_into().unwrap()),
        n: i32::from_le_bytes(at(32, 4).try_into().unwrap()),
        u: b[36],
    }
}

/// byval_struct.h's `byval_l` and `byval_d` (one IEEE rounding per operation: clang builds with
/// -ffp-contract=off, Rust never contracts).
fn byval_l(p: &ByVal, i: u32) -> u64 {
    (p.l as u64)
        .wrapping_mul(i as u64 + 1)
        .wrapping_add((p.s as i64).wrapping_mul(p.n as i64) as u64)
        .wrapping_add(p.u as u64)
}

fn byval_d(p: &ByVal, i: u32) -> f64 {
    p.d * i as f64 + p.f as f64 + p.c as f64
}

/// The same under hipcc's default `-ffp-contract=fast`: `p.d * i + p.f` is one fused multiply-add (its listing:
/// `v_fma_f64` then `v_add_f64`), rounded once (D993).
fn byval_d_contracted(p: &ByVal, i: u32) -> f64 {
    p.d.mul_add(i as f64, p.f as f64) + p.c as f64
}

/// One kernel per compiler reads a >= 4 KiB constant table PC-relatively, writes a global read back as an
/// output and takes the 48-byte struct by value (issue 25).
#[test]
fn table_global_and_struct_in_one_kernel() {
    let p = byval();
    let n = 600u32;
    let dres: Vec<u64> = (0..64).map(|i| byval_d(&p, i).to_bits()).collect();
    let dres_hip: Vec<u64> = (0..64)
        .map(|i| byval_d_contracted(&p, i).to_bits())
        .collect();
    assert_ne!(
        dres, dres_hip,
        "the operands must tell one rounding from two"
    );
    let qwords = |path: &Path| -> Vec<u64> {
        std::fs::read(path)
            .unwrap()
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let cl: Vec<u32> = (0..n)
        .map(|i| table((i * 37).wrapping_add(p.n as u32) % 1280) ^ byval_l(&p, i) as u32)
        .chain(std::iter::repeat_n(0, 40))
        .collect();
    let ctab = |i: u32| {
        i.wrapping_mul(0x2545_F491)
            .wrapping_add((i ^ 0xA5A5_A5A5).wrapping_mul(3))
    };
    let hip: Vec<u32> = (0..n)
        .map(|i| ctab((i * 13).wrapping_add(p.n as u32) % 1100) ^ byval_l(&p, i) as u32)
        .chain(std::iter::repeat_n(0, 40))
        .collect();
    for (manifest, out, dres) in [
        ("globals_struct.toml", &cl, &dres),
        ("hip_globals_struct.toml", &hip, &dres_hip),
    ] {
        for backend in ["host", "both"] {
            let d = run(manifest, backend);
            assert_eq!(
                &words(&d.join("out.bin")),
                out,
                "{manifest} out ({backend})"
            );
            assert_eq!(
                &qwords(&d.join("dres.bin")),
                dres,
                "{manifest} dres ({backend})"
            );
        }
    }
}
