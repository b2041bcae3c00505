//! MODE.FP_ROUND made executable (decision D186): f32 add/sub/mul/fma and v_cvt_f16_f32 under each rounding
//! mode (nearest even, toward +inf, toward −inf, toward zero) set by `s_round_mode`, on the host evaluator and
//! on lavapipe, against Berkeley SoftFloat (`softfloat-sys`) run in the same rounding mode. Operands reach the
//! cases where the direction matters: inexact results of every magnitude, subnormal results, overflow past
//! FLT_MAX and past the f16 range, exact zero sums of opposite operands (−0 toward −inf), and infinities.
//!
//! The raw forms run inside tests/support/frame.rs (eight input dwords per work-item in v[0:7], v[3:6]
//! stored); encodings from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`, written next to each. The
//! compiled kernel is fixtures/kernels/round_modes.ll: strictfp LLVM IR with `llvm.set.rounding`, which
//! clang-19 compiles to `s_round_mode` around the operations. Operand count: `RDNA2SPV_ROUND_N` (default
//! 100,000 per form and mode).

#[path = "support/frame.rs"]
mod frame;

use frame::*;
use rdna2spv_isa::Target;
use rdna2spv_vulkan::{probe, DeviceProfile};
use softfloat_sys as sf;

fn f(v: u32) -> sf::float32_t {
    sf::float32_t { v }
}

/// Runs `k` with SoftFloat's (thread-local) rounding mode set to the ISA's FP_ROUND value `mode`
/// (0 nearest even, 1 toward +inf, 2 toward −inf, 3 toward zero).
fn in_mode<T>(mode: u32, k: impl FnOnce() -> T) -> T {
    // SoftFloat: 0 near_even, 1 minMag, 2 min, 3 max.
    let sfm = [0u8, 3, 2, 1][mode as usize];
    unsafe { sf::softfloat_roundingMode_write_helper(sfm) };
    let r = k();
    unsafe { sf::softfloat_roundingMode_write_helper(0) };
    r
}

/// D005's default NaN for every NaN result.
fn canon32(x: u32) -> u32 {
    if x & 0x7fff_ffff > 0x7f80_0000 {
        0x7fc0_0000
    } else {
        x
    }
}
fn canon16(x: u32) -> u32 {
    if x & 0x7fff > 0x7c00 {
        0x7e00
    } else {
        x
    }
}

fn add(m: u32, a: u32, b: u32) -> u32 {
    canon32(in_mode(m, || unsafe { sf::f32_add(f(a), f(b)) }.v))
}
fn sub(m: u32, a: u32, b: u32) -> u32 {
    canon32(in_mode(m, || unsafe { sf::f32_sub(f(a), f(b)) }.v))
}
fn mul(m: u32, a: u32, b: u32) -> u32 {
    canon32(in_mode(m, || unsafe { sf::f32_mul(f(a), f(b)) }.v))
}
fn fma(m: u32, a: u32, b: u32, c: u32) -> u32 {
    canon32(in_mode(m, || unsafe { sf::f32_mulAdd(f(a), f(b), f(c)) }.v))
}
fn to_f16(m: u32, a: u32) -> u32 {
    canon16(in_mode(m, || unsafe { sf::f32_to_f16(f(a)) }.v as u32))
}
/// IEEE minNum with −0 < +0 on non-NaN operands (exact: no rounding).
fn min(a: u32, b: u32) -> u32 {
    let key = |x: u32| -> i64 {
        if x & 0x8000_0000 != 0 {
            -((x & 0x7fff_ffff) as i64) - 1
        } else {
            x as i64
        }
    };
    if key(a) <= key(b) {
        a
    } else {
        b
    }
}

struct Form {
    name: &'static str,
    /// The words after `s_round_mode` (little-endian bytes).
    bytes: &'static [u8],
    /// The four stored dwords v3..v6 for eight input dwords, under FP_ROUND `mode` (both fields).
    oracle: fn(u32, &[u32; 8]) -> [u32; 4],
}

fn forms() -> Vec<Form> {
    vec![
        Form {
            name: "add, mul, fma, sub",
            // v_add_f32_e32 v3, v0, v1          [0x00,0x03,0x06,0x06]
            // v_mul_f32_e32 v4, v0, v1          [0x00,0x03,0x08,0x10]
            // v_fma_f32 v5, v0, v1, v2          [0x05,0x00,0x4b,0xd5,0x00,0x03,0x0a,0x04]
            // v_sub_f32_e32 v6, v0, v1          [0x00,0x03,0x0c,0x08]
            bytes: &[
                0x00, 0x03, 0x06, 0x06, 0x00, 0x03, 0x08, 0x10, 0x05, 0x00, 0x4b, 0xd5, 0x00, 0x03,
                0x0a, 0x04, 0x00, 0x03, 0x0c, 0x08,
            ],
            oracle: |m, x| {
                [
                    add(m, x[0], x[1]),
                    mul(m, x[0], x[1]),
                    fma(m, x[0], x[1], x[2]),
                    sub(m, x[0], x[1]),
                ]
            },
        },
        Form {
            name: "fmac, cvt_f16_f32, subrev, min",
            // v_fmac_f32_e32 v3, v0, v1         [0x00,0x03,0x06,0x56]
            // v_cvt_f16_f32_e32 v4, v7          [0x07,0x15,0x08,0x7e]
            // v_subrev_f32_e32 v5, v0, v2       [0x00,0x05,0x0a,0x0a]
            // v_min_f32_e32 v6, v0, v1          [0x00,0x03,0x0c,0x1e]
            bytes: &[
                0x00, 0x03, 0x06, 0x56, 0x07, 0x15, 0x08, 0x7e, 0x00, 0x05, 0x0a, 0x0a, 0x00, 0x03,
                0x0c, 0x1e,
            ],
            oracle: |m, x| {
                [
                    fma(m, x[0], x[1], x[3]),
                    // The f16 result keeps the high half of v4 (D096).
                    x[4] & 0xffff_0000 | to_f16(m, x[7]),
                    sub(m, x[2], x[0]),
                    min(x[0], x[1]),
                ]
            },
        },
    ]
}

/// An f32 operand: around 1 (inexact sums and products of every kind), large (overflow past FLT_MAX), small
/// (subnormal products and sums), zeros and infinities.
fn operand(r: &mut Rng) -> u32 {
    let s = r.u32() & 0x8000_0000;
    let man = r.u32() & 0x7f_ffff;
    let e = match r.below(16) {
        0..=5 => 110 + r.below(34),
        6..=7 => 0,
        8..=9 => 1 + r.below(30),
        10..=11 => 190 + r.below(64),
        12 => 60 + r.below(30),
        13 => return s,
        14 => {
            if r.below(4) == 0 {
                return s | 0x7f80_0000;
            }
            127
        }
        _ => 1 + r.below(253),
    };
    s | e << 23 | man
}

/// An f32 whose conversion to f16 is inexact in every range: subnormal and normal halves, past 65504.
fn f16_source(r: &mut Rng) -> u32 {
    let s = r.u32() & 0x8000_0000;
    let e = match r.below(8) {
        0..=1 => 127 - 25 + r.below(12),
        2..=5 => 127 - 14 + r.below(30),
        6 => 127 + 15 + r.below(3),
        _ => {
            return s | if r.below(2) == 0 { 0 } else { 0x7f80_0000 };
        }
    };
    s | e << 23 | r.u32() & 0x7f_ffff
}

fn inputs(n: usize, seed: u64) -> Vec<[u32; 8]> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| {
            let mut x = [0u32; 8];
            for v in x.iter_mut().take(7) {
                *v = operand(&mut r);
            }
            match r.below(8) {
                // Opposite operands: an exact zero sum (−0 toward −inf, +0 otherwise).
                0 => {
                    x[1] = x[0] ^ 0x8000_0000;
                    x[2] = x[0];
                }
                // A product cancelled by the addend: fma's exact zero, and near-cancellation.
                1 => {
                    let p = unsafe { sf::f32_mul(f(x[0]), f(x[1])) }.v;
                    x[2] = p ^ 0x8000_0000 ^ r.below(3).saturating_sub(1);
                    x[3] = x[2];
                }
                _ => {}
            }
            x[7] = f16_source(&mut r);
            x
        })
        .collect()
}

fn n() -> usize {
    std::env::var("RDNA2SPV_ROUND_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

/// `s_round_mode` with both fields (f32 and f16/f64) = `mode`: simm16 = mode | mode << 2.
fn with_mode(mode: u32, body: &[u8]) -> Vec<u8> {
    let mut v = (0xbfa4_0000u32 | mode | mode << 2).to_le_bytes().to_vec();
    v.extend_from_slice(body);
    v
}

fn check(modes: &[u32], prof: &DeviceProfile, n: usize) {
    let ctx = lavapipe();
    let mut failures = Vec::new();
    for (fi, form) in forms().iter().enumerate() {
        let ins = inputs(n, 0xd186_0000 + fi as u64);
        // How many results each mode changes against nearest even: the operands must reach the direction.
        let nearest: Vec<[u32; 4]> = ins.iter().map(|x| (form.oracle)(0, x)).collect();
        for &mode in modes {
            let t = std::time::Instant::now();
            let p = kernel(Target::Gfx1030, &with_mode(mode, form.bytes));
            let (host, dev) = run_both(&ctx, prof, &p, &ins);
            let (mut mh, mut md, mut moved, mut first) = (0usize, 0usize, 0usize, None);
            for (k, x) in ins.iter().enumerate() {
                let want = (form.oracle)(mode, x);
                moved += want.iter().zip(&nearest[k]).filter(|(a, b)| a != b).count();
                let h = &host[4 * k..4 * k + 4];
                let d = &dev[4 * k..4 * k + 4];
                mh += (h != want) as usize;
                md += (d != want) as usize;
                if (h != want || d != want) && first.is_none() {
                    first = Some(format!(
                        "inputs {x:08x?}: softfloat {want:08x?}, host {h:08x?}, device {d:08x?}"
                    ));
                }
            }
            eprintln!(
                "FP_ROUND = {mode} {:34} {n} operands ({moved} results differ from nearest even): host {mh}, \
                 device {md} differ from SoftFloat ({:?})",
                form.name,
                t.elapsed()
            );
            if mode != 0 {
                assert!(
                    moved > n / 10,
                    "{}: mode {mode} moves too few results to test anything ({moved})",
                    form.name
                );
            }
            if mh + md > 0 {
                failures.push(format!("mode {mode} {}: {}", form.name, first.unwrap()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every mode, 100,000 operands per form, on the measured lavapipe profile.
#[test]
fn f32_and_f16_conversion_round_modes_match_softfloat() {
    let prof = probe(&lavapipe()).expect("the device profile is probed");
    check(&[0, 1, 2, 3], &prof, n());
}

/// The directed modes under the simulated flushing device (every f64 emulation of D168 on): the f64
/// arithmetic the directed rounding is built from stays exact.
#[test]
fn round_modes_on_the_simulated_flushing_device_match_softfloat() {
    let p = simulated_flushing(probe(&lavapipe()).expect("the device profile is probed"));
    check(&[1, 2, 3], &p, n() / 4);
}

/// The compiled kernel fixtures/kernels/round_modes.ll (clang-19, strictfp IR with `llvm.set.rounding`:
/// `s_round_mode 0x5`, `0xa`, `0xf`, `0x0` around f32 add/sub/mul/fma and f32→f16 conversions), over
/// 100,000 operand triples on the host and on lavapipe: every output equals SoftFloat in the mode the source
/// sets for it.
#[test]
fn compiled_kernel_follows_llvm_set_rounding() {
    use rdna2spv::device::{open, profile_of, run_vulkan, ProfileChoice};
    use rdna2spv::dispatch::{run_host_at, Plan};
    let n = 100_000usize;
    let ins = inputs(n, 0xd186_c0de);
    let ctx = open(Some(&device_name())).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kernels");
    let dir = std::env::temp_dir().join(format!("rdna2spv-round-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // a = x[0] (also the f16 source: half the items take x[7]'s f16-range values), b = x[1], c = x[2].
    let a: Vec<u32> = ins
        .iter()
        .enumerate()
        .map(|(k, x)| if k % 2 == 0 { x[0] } else { x[7] })
        .collect();
    let cols = [
        a,
        ins.iter().map(|x| x[1]).collect(),
        ins.iter().map(|x| x[2]).collect(),
    ];
    for (name, col) in ["a", "b", "c"].iter().zip(&cols) {
        let b: Vec<u8> = col.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(dir.join(format!("{name}.bin")), b).unwrap();
    }
    let manifest = format!(
        "code_object = {co:?}\nkernel = \"round_modes\"\ngrid = [{g}, 1, 1]\nworkgroup = [256, 1, 1]\n\
         [[args]]\nbuffer = \"a.bin\"\n[[args]]\nbuffer = \"b.bin\"\n[[args]]\nbuffer = \"c.bin\"\n\
         [[args]]\nbuffer = {{ size = {o} }}\noutput = \"out\"\n[[args]]\nbuffer = {{ size = {h} }}\n\
         output = \"hout\"\n[[args]]\nu32 = {n}\n",
        co = root.join("round_modes.co").display().to_string(),
        g = n.div_ceil(256) * 256,
        o = 32 * n,
        h = 8 * n,
    );
    let mpath = dir.join("round_modes.toml");
    std::fs::write(&mpath, manifest).unwrap();
    let m = rdna2spv::manifest::Manifest::load(&mpath).unwrap();
    let mut plan = Plan::new(&m).unwrap();
    let dev = run_vulkan(&ctx, &mut plan, &prof).unwrap();
    let (host, _) = run_host_at(&plan, &dev.addresses).unwrap();
    let get = |bufs: &[rdna2spv::dispatch::Buffer], name: &str| -> Vec<u8> {
        bufs.iter().find(|b| b.name == name).unwrap().data.clone()
    };
    let w32 = |b: Vec<u8>| -> Vec<u32> { frame::le(&b) };
    let w16 = |b: Vec<u8>| -> Vec<u32> {
        b.chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32)
            .collect()
    };
    let (h32, d32) = (w32(get(&host, "out")), w32(get(&dev.buffers, "out")));
    let (h16, d16) = (w16(get(&host, "hout")), w16(get(&dev.buffers, "hout")));
    let (mut mh, mut md, mut first) = (0, 0, None);
    for k in 0..n {
        let (x, y, z) = (cols[0][k], cols[1][k], cols[2][k]);
        // FP_ROUND 1 = +inf (set.rounding 2), 2 = −inf (3), 3 = zero (0), 0 = nearest (1).
        let want32 = [
            add(1, x, y),
            mul(1, x, y),
            fma(1, x, y, z),
            add(2, x, z),
            sub(2, y, z),
            mul(3, y, z),
            fma(3, y, z, x),
            add(0, y, z),
        ];
        let want16 = [to_f16(1, x), to_f16(2, x), to_f16(3, x), to_f16(0, x)];
        let ok_h = h32[8 * k..8 * k + 8] == want32 && h16[4 * k..4 * k + 4] == want16;
        let ok_d = d32[8 * k..8 * k + 8] == want32 && d16[4 * k..4 * k + 4] == want16;
        mh += !ok_h as usize;
        md += !ok_d as usize;
        if (!ok_h || !ok_d) && first.is_none() {
            first = Some(format!(
                "{x:08x} {y:08x} {z:08x}: softfloat {want32:08x?} {want16:04x?}, host {:08x?} {:04x?}, \
                 device {:08x?} {:04x?}",
                &h32[8 * k..8 * k + 8],
                &h16[4 * k..4 * k + 4],
                &d32[8 * k..8 * k + 8],
                &d16[4 * k..4 * k + 4]
            ));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    eprintln!("round_modes.co {n} items: host {mh}, device {md} differ from SoftFloat");
    assert!(mh + md == 0, "{}", first.unwrap());
}
