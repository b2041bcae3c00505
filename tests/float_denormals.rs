//! MODE.FP_DENORM f32 made executable (decision D166): f32 instructions run after `s_denorm_mode` in each
//! of the four f32 denormal modes (flush in and out, flush out only, flush in only, preserve), over operands
//! and results in the f32 subnormal range, on the host evaluator and on lavapipe, against an oracle built
//! on Berkeley SoftFloat (`softfloat-sys`) with the mode's flushes written out: an input flush before the
//! operation, an output flush of the rounded result (a denormal becomes the zero of its sign).
//!
//! The words run inside tests/support/frame.rs (eight input dwords per work-item in v[0:7], v[3:6] stored);
//! encodings from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`, written next to each. Operands
//! are finite (NaN rules are D005's and tested elsewhere). Operand count per form and mode:
//! `RDNA2SPV_DENORM_N` (default 100,000).

#[path = "support/frame.rs"]
mod frame;

use frame::*;
use rdna2spv_isa::Target;
use rdna2spv_spirv::lower::{LowerOptions, Mapping};
use rdna2spv_vulkan::{probe, DeviceProfile};
use softfloat_sys as sf;

fn f(v: u32) -> sf::float32_t {
    sf::float32_t { v }
}

/// A denormal flushed to the zero of its sign (the oracle's own, written from the IEEE format).
fn ftz32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

fn is_nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

/// D005's default NaN for every NaN result.
fn canon(x: u32) -> u32 {
    if is_nan32(x) {
        0x7fc0_0000
    } else {
        x
    }
}

/// The f32 denormal mode: which directions flush.
#[derive(Clone, Copy, Debug)]
struct Mode {
    inputs: bool,
    outputs: bool,
}

impl Mode {
    /// FP_DENORM f32 (0..=3): bit 0 allows input denormals, bit 1 output denormals.
    fn of(field: u32) -> Mode {
        Mode {
            inputs: field & 1 == 0,
            outputs: field & 2 == 0,
        }
    }
    fn i(self, x: u32) -> u32 {
        if self.inputs {
            ftz32(x)
        } else {
            x
        }
    }
    fn o(self, x: u32) -> u32 {
        let x = canon(x);
        if self.outputs {
            ftz32(x)
        } else {
            x
        }
    }
}

fn sf_add(a: u32, b: u32) -> u32 {
    unsafe { sf::f32_add(f(a), f(b)) }.v
}
fn sf_sub(a: u32, b: u32) -> u32 {
    unsafe { sf::f32_sub(f(a), f(b)) }.v
}
fn sf_mul(a: u32, b: u32) -> u32 {
    unsafe { sf::f32_mul(f(a), f(b)) }.v
}
fn sf_fma(a: u32, b: u32, c: u32) -> u32 {
    unsafe { sf::f32_mulAdd(f(a), f(b), f(c)) }.v
}
fn sf_lt(a: u32, b: u32) -> bool {
    unsafe { sf::f32_lt(f(a), f(b)) }
}
fn sf_sqrt(a: u32) -> u32 {
    unsafe { sf::f32_sqrt(f(a)) }.v
}
fn sf_to_f16(a: u32) -> u32 {
    let h = unsafe { sf::f32_to_f16(f(a)) }.v as u32;
    if h & 0x7fff > 0x7c00 {
        0x7e00
    } else {
        h
    }
}
fn sf_f64_to_f32(a: u64) -> u32 {
    unsafe { sf::f64_to_f32(sf::float64_t { v: a }) }.v
}

/// IEEE-754-2008 minNum/maxNum on non-NaN operands with −0 < +0 (the IEEE-mode rule, D025).
fn minmax(a: u32, b: u32, max: bool) -> u32 {
    let key = |x: u32| {
        let v = f32::from_bits(x) as f64;
        // −0 sorts below +0.
        (v, x >> 31 == 0)
    };
    let (ka, kb) = (key(a), key(b));
    let a_less = ka.0 < kb.0 || (ka.0 == kb.0 && !ka.1 && kb.1);
    match (max, a_less) {
        (false, true) | (true, false) => a,
        _ => b,
    }
}

/// floor to i32, saturating (exact: floor of an f32 is exact in f64).
fn flr_i32(a: u32) -> u32 {
    (f32::from_bits(a) as f64).floor() as i32 as u32
}

/// ldexp with one rounding: x·2^k is exact in f64 for |k| ≤ 300 and an f32 x, then one RNE narrowing.
fn ldexp(a: u32, k: i32) -> u32 {
    let k = k.clamp(-300, 300);
    let x = f32::from_bits(a) as f64 * 2f64.powi(k);
    sf_f64_to_f32(x.to_bits())
}

/// frexp's mantissa: ±[0.5, 1) for finite nonzero x, x itself for ±0 and ±inf.
fn frexp_mant(a: u32) -> u32 {
    let e = a >> 23 & 0xff;
    if a & 0x7fff_ffff == 0 || e == 0xff {
        return a;
    }
    let mut m = f32::from_bits(a) as f64;
    while m.abs() >= 1.0 {
        m /= 2.0;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
    }
    (m as f32).to_bits()
}

struct Form {
    name: &'static str,
    /// The words after `s_denorm_mode` (little-endian bytes).
    bytes: &'static [u8],
    /// The four stored dwords v3..v6 for eight input dwords.
    oracle: fn(Mode, &[u32; 8]) -> [u32; 4],
    /// v1 is a small integer exponent (ldexp) instead of a float.
    int_v1: bool,
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
                let (a, b, c) = (m.i(x[0]), m.i(x[1]), m.i(x[2]));
                [
                    m.o(sf_add(a, b)),
                    m.o(sf_mul(a, b)),
                    m.o(sf_fma(a, b, c)),
                    m.o(sf_sub(a, b)),
                ]
            },
            int_v1: false,
        },
        Form {
            name: "min, max, cmp_lt, cvt_f16_f32",
            // v_min_f32_e32 v3, v0, v1                 [0x00,0x03,0x06,0x1e]
            // v_max_f32_e32 v4, v0, v1                 [0x00,0x03,0x08,0x20]
            // v_cmp_lt_f32_e32 vcc_lo, v0, v1          [0x00,0x03,0x02,0x7c]
            // v_cndmask_b32_e64 v5, 0, 1, vcc_lo       [0x05,0x00,0x01,0xd5,0x80,0x02,0xa9,0x01]
            // v_cvt_f16_f32_e32 v6, v0                 [0x00,0x15,0x0c,0x7e]
            bytes: &[
                0x00, 0x03, 0x06, 0x1e, 0x00, 0x03, 0x08, 0x20, 0x00, 0x03, 0x02, 0x7c, 0x05, 0x00,
                0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01, 0x00, 0x15, 0x0c, 0x7e,
            ],
            oracle: |m, x| {
                let (a, b) = (m.i(x[0]), m.i(x[1]));
                [
                    m.o(minmax(a, b, false)),
                    m.o(minmax(a, b, true)),
                    sf_lt(a, b) as u32,
                    // f16 results follow FP_DENORM f16/f64, preserved here; the high half of v6 is kept
                    // (D096).
                    x[6] & 0xffff_0000 | sf_to_f16(a),
                ]
            },
            int_v1: false,
        },
        Form {
            name: "fmac, cvt_f32_f64, cvt_flr_i32_f32, sqrt",
            // v_fmac_f32_e32 v3, v0, v1                [0x00,0x03,0x06,0x56]
            // v_cvt_f32_f64_e32 v4, v[6:7]             [0x06,0x1f,0x08,0x7e]
            // v_cvt_flr_i32_f32_e32 v5, v0             [0x00,0x1b,0x0a,0x7e]
            // v_sqrt_f32_e32 v6, v0                    [0x00,0x67,0x0c,0x7e]
            bytes: &[
                0x00, 0x03, 0x06, 0x56, 0x06, 0x1f, 0x08, 0x7e, 0x00, 0x1b, 0x0a, 0x7e, 0x00, 0x67,
                0x0c, 0x7e,
            ],
            oracle: |m, x| {
                let (a, b, c) = (m.i(x[0]), m.i(x[1]), m.i(x[3]));
                let d = x[6] as u64 | (x[7] as u64) << 32;
                [
                    m.o(sf_fma(a, b, c)),
                    // The f64 source follows FP_DENORM f16/f64 (preserved); the f32 result flushes.
                    m.o(sf_f64_to_f32(d)),
                    flr_i32(a),
                    m.o(sf_sqrt(a)),
                ]
            },
            int_v1: false,
        },
        Form {
            name: "ldexp, frexp_mant, cvt_f64_f32",
            // v_ldexp_f32 v3, v0, v1                   [0x03,0x00,0x62,0xd7,0x00,0x03,0x02,0x00]
            // v_frexp_mant_f32_e32 v4, v0              [0x00,0x81,0x08,0x7e]
            // v_cvt_f64_f32_e32 v[5:6], v0             [0x00,0x21,0x0a,0x7e]
            bytes: &[
                0x03, 0x00, 0x62, 0xd7, 0x00, 0x03, 0x02, 0x00, 0x00, 0x81, 0x08, 0x7e, 0x00, 0x21,
                0x0a, 0x7e,
            ],
            oracle: |m, x| {
                let a = m.i(x[0]);
                let w = (f32::from_bits(a) as f64).to_bits();
                [
                    m.o(ldexp(a, x[1] as i32)),
                    m.o(frexp_mant(a)),
                    w as u32,
                    (w >> 32) as u32,
                ]
            },
            int_v1: true,
        },
    ]
}

/// An f32 operand biased to the subnormal range: subnormals, the smallest normals, numbers whose products
/// or quotients land below 2^-126, numbers that cancel to subnormals, zeros, a few large values and infinities.
fn operand(r: &mut Rng) -> u32 {
    let s = r.u32() & 0x8000_0000;
    let man = r.u32() & 0x7f_ffff;
    let class = r.u32() % 16;
    let e = match class {
        0..=5 => 0,                    // subnormal
        6..=8 => 1 + r.u32() % 4,      // just above 2^-126
        9..=10 => 30 + r.u32() % 40,   // 2^-97 .. 2^-57: products below 2^-126
        11..=12 => 100 + r.u32() % 54, // around 1
        13 => return s,                // ±0
        14 => 180 + r.u32() % 60,      // large
        _ => {
            if r.u32().is_multiple_of(4) {
                return s | 0x7f80_0000; // ±inf
            }
            1
        }
    };
    s | e << 23 | man
}

fn inputs(n: usize, seed: u64, int_v1: bool) -> Vec<[u32; 8]> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| {
            let mut x = [0u32; 8];
            for v in x.iter_mut().take(4) {
                *v = operand(&mut r);
            }
            if int_v1 {
                x[1] = (r.u32() % 321) as i32 as u32;
                x[1] = (x[1] as i32 - 160) as u32;
            }
            // An f64 in v[6:7] whose f32 narrowing is subnormal or near it.
            let e64 = 1023 - 150 + (r.u64() % 30);
            x[6] = r.u32();
            x[7] = (r.u32() & 0x8000_0000) | (e64 as u32) << 20 | (r.u32() & 0xf_ffff);
            x
        })
        .collect()
}

/// Operands per form and mode: `RDNA2SPV_DENORM_N`, default 100,000 (about 1.5 s each, debug build).
/// lavapipe, or the device `RDNA2SPV_VK_DEVICE` names (`cargo xtask gpu-check`).
fn n(_field: u32) -> usize {
    std::env::var("RDNA2SPV_DENORM_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

/// `s_denorm_mode` with FP_DENORM f32 = `field` and f16/f64 preserved (3): simm16 = field | 3 << 2.
fn with_mode(field: u32, body: &[u8]) -> Vec<u8> {
    let mut v = (0xbfa5_0000u32 | 0xc | field).to_le_bytes().to_vec();
    v.extend_from_slice(body);
    v
}

fn check(fields: &[u32], prof: &DeviceProfile) {
    check_with(fields, prof, &LowerOptions::default(), 1)
}

/// [`check`] with the lowering's options and the operand count divided by `div`.
fn check_with(fields: &[u32], prof: &DeviceProfile, opts: &LowerOptions, div: usize) {
    let ctx = lavapipe();
    let mut failures = Vec::new();
    for (fi, form) in forms().iter().enumerate() {
        for &field in fields {
            let n = n(field) / div;
            let t = std::time::Instant::now();
            let mode = Mode::of(field);
            let p = kernel(Target::Gfx1030, &with_mode(field, form.bytes));
            let ins = inputs(n, 0xde40_0000 + fi as u64, form.int_v1);
            let (host, dev) = run_both_with(&ctx, prof, &p, &ins, opts);
            let (mut mh, mut md, mut sub, mut first) = (0usize, 0usize, 0usize, None);
            for (k, x) in ins.iter().enumerate() {
                let want = (form.oracle)(mode, x);
                sub += want
                    .iter()
                    .filter(|w| *w & 0x7f80_0000 == 0 && *w & 0x7f_ffff != 0)
                    .count();
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
                "FP_DENORM f32 = {field} {:40} {n} operands ({sub} f32-subnormal words expected): host {mh}, \
                 device {md} differ ({:?})",
                form.name,
                t.elapsed()
            );
            if mh + md > 0 {
                failures.push(format!("mode {field} {}: {}", form.name, first.unwrap()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Flushing in both directions (what clang's `-cl-denorms-are-zero`, hipcc's
/// `-fgpu-flush-denormals-to-zero` and RADV set) and preserving (clang's default), on the measured profile.
#[test]
fn f32_flush_and_preserve_match_softfloat() {
    let prof = probe(&lavapipe()).expect("the device profile is probed");
    check(&[0, 3], &prof);
}

/// The measured lavapipe profile with every denormal-related fact declared missing — "flushes f32, f16 and
/// f64 subnormals", "no float-controls execution modes", "Fma not fused" — so the lowering emits every
/// exact emulation (D168: integer widening and narrowing around f64 arithmetic, the integer f64 fma, the
/// integer f16 narrowing), and lavapipe runs them.
fn simulated() -> DeviceProfile {
    simulated_flushing(probe(&lavapipe()).expect("the device profile is probed"))
}

/// Every form in the flushing and the preserving mode under the simulated flushing device: the emulations
/// give SoftFloat's bits on lavapipe.
#[test]
fn simulated_flushing_device_matches_softfloat() {
    check(&[0, 3], &simulated());
}

/// The same in the lane mapping, where the f32 emulations (f64 arithmetic between integer widening and
/// narrowing, the comparisons' widenings) are shared SPIR-V functions called with their inputs as
/// arguments (decisions D163, D197); a quarter of the operands.
#[test]
fn simulated_flushing_device_in_the_lane_mapping_matches_softfloat() {
    let opts = LowerOptions {
        mapping: Mapping::Lane,
        ..LowerOptions::default()
    };
    check_with(&[0, 3], &simulated(), &opts, 4);
}

/// The two one-directional modes (only `s_denorm_mode`/`s_setreg` reach them).
#[test]
fn f32_one_directional_modes_match_softfloat() {
    let prof = probe(&lavapipe()).expect("the device profile is probed");
    check(&[1, 2], &prof);
}

/// The compiled kernels: clang-19 OpenCL and hipcc 5.2.3, each built with denormals preserved and with
/// `-cl-denorms-are-zero` / `-fgpu-flush-denormals-to-zero` (descriptor FLOAT_DENORM_MODE_32 = 0), run over
/// 100,000 subnormal-biased operand triples on the host and on lavapipe, under the measured profile and (two
/// of them) the simulated flushing device: every output word equals SoftFloat under the descriptor's mode
/// (fixtures/kernels/denorm.cl, denorm.hip).
#[test]
fn compiled_kernels_follow_their_descriptor_mode() {
    use rdna2spv::device::{open, profile_of, run_vulkan, ProfileChoice};
    use rdna2spv::dispatch::{run_host_at, Plan};
    let n = 100_000usize;
    let mut r = Rng(0xd0c0_0001);
    let abc: Vec<[u32; 3]> = (0..n)
        .map(|_| [operand(&mut r), operand(&mut r), operand(&mut r)])
        .collect();
    let bytes = |k: usize| -> Vec<u8> { abc.iter().flat_map(|t| t[k].to_le_bytes()).collect() };
    let ctx = open(Some(&device_name())).unwrap();
    let measured = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let simulated = simulated();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kernels");
    let dir = std::env::temp_dir().join(format!("rdna2spv-denorm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        std::fs::write(dir.join(format!("{name}.bin")), bytes(i)).unwrap();
    }
    let mut failures = Vec::new();
    // The measured profile for all four; the simulated flushing device (every emulation on) for one
    // preserving and one flushing build.
    for (stem, ftz, profile, pname) in [
        ("denorm", false, &measured, "measured"),
        ("denorm_ftz", true, &measured, "measured"),
        ("denorm_hip", false, &measured, "measured"),
        ("denorm_hip_ftz", true, &measured, "measured"),
        ("denorm", false, &simulated, "simulated"),
        ("denorm_hip_ftz", true, &simulated, "simulated"),
    ] {
        let manifest = format!(
            "code_object = {co:?}\nkernel = \"denorm\"\ngrid = [{g}, 1, 1]\nworkgroup = [256, 1, 1]\n\
             [[args]]\nbuffer = \"a.bin\"\n[[args]]\nbuffer = \"b.bin\"\n[[args]]\nbuffer = \"c.bin\"\n\
             [[args]]\nbuffer = {{ size = {out} }}\noutput = \"out\"\n[[args]]\nu32 = {n}\n",
            co = root.join(format!("{stem}.co")).display().to_string(),
            g = n.div_ceil(256) * 256,
            out = 24 * n,
        );
        let mpath = dir.join(format!("{stem}.toml"));
        std::fs::write(&mpath, manifest).unwrap();
        let m = rdna2spv::manifest::Manifest::load(&mpath).unwrap();
        let mut plan = Plan::new(&m).unwrap();
        let dev = run_vulkan(&ctx, &mut plan, profile).unwrap();
        let (host, _) = run_host_at(&plan, &dev.addresses).unwrap();
        let words = |b: &[u8]| -> Vec<u32> { frame::le(b) };
        let h = words(&host.iter().find(|b| b.name == "out").unwrap().data);
        let d = words(&dev.buffers.iter().find(|b| b.name == "out").unwrap().data);
        let m = Mode::of(if ftz { 0 } else { 3 });
        let (mut mh, mut md, mut sub, mut first) = (0, 0, 0, None);
        for (k, t) in abc.iter().enumerate() {
            let (x, y, z) = (m.i(t[0]), m.i(t[1]), m.i(t[2]));
            let want = [
                m.o(sf_add(x, y)),
                m.o(sf_mul(x, y)),
                m.o(sf_fma(x, y, z)),
                m.o(minmax(x, y, false)),
                if sf_lt(x, y) { 0x3f80_0000 } else { 0 },
                m.o(sf_sub(x, z)),
            ];
            sub += want
                .iter()
                .filter(|w| *w & 0x7f80_0000 == 0 && *w & 0x7f_ffff != 0)
                .count();
            let (hk, dk) = (&h[6 * k..6 * k + 6], &d[6 * k..6 * k + 6]);
            mh += (hk != want) as usize;
            md += (dk != want) as usize;
            if (hk != want || dk != want) && first.is_none() {
                first = Some(format!(
                    "{t:08x?}: softfloat {want:08x?}, host {hk:08x?}, device {dk:08x?}"
                ));
            }
        }
        eprintln!(
            "{stem:16} {pname:9} {n} operand triples ({sub} subnormal results expected): host {mh}, \
             device {md} differ"
        );
        if ftz {
            assert_eq!(sub, 0, "{stem}: the flushing oracle produced a subnormal");
        } else {
            assert!(
                sub > n / 4,
                "{stem}: too few subnormal results to test anything ({sub})"
            );
        }
        if mh + md > 0 {
            failures.push(format!("{stem} ({pname}): {}", first.unwrap()));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An ACO capture (fixtures/aco/muladd.navi21.w32: RADV's `precise` mul+add, fma() and a contracted a*b+c)
/// run as RADV runs it, f32 denormals flushed (`[abi] f32_denormals = "flush"`, D166), over 100,352
/// subnormal-biased x, y with push constants 2^-100 and −2^-60 (so products land in the subnormal range):
/// host and lavapipe against SoftFloat with each instruction's flushes.
#[test]
fn aco_capture_flushes_like_radv() {
    use rdna2spv::device::{open, profile_of, run_vulkan, ProfileChoice};
    use rdna2spv::dispatch::{run_host_at, Plan};
    let n = 100_352usize; // 1568 workgroups of 64
    let (a, b) = (0x0d80_0000u32, 0xa180_0000u32); // 2^-100, −2^-60
    let mut r = Rng(0xac0_0001);
    let x: Vec<u32> = (0..n).map(|_| operand(&mut r)).collect();
    let y: Vec<u32> = (0..n).map(|_| operand(&mut r)).collect();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/aco");
    let dir = std::env::temp_dir().join(format!("rdna2spv-denorm-aco-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let le_bytes = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|w| w.to_le_bytes()).collect() };
    std::fs::write(dir.join("x.bin"), le_bytes(&x)).unwrap();
    std::fs::write(dir.join("y.bin"), le_bytes(&y)).unwrap();
    let text = std::fs::read_to_string(root.join("muladd.navi21.w32.toml")).unwrap();
    let code = root.join("muladd.navi21.w32.bin");
    let text = text
        .replace(
            "code = \"muladd.navi21.w32.bin\"",
            &format!("code = {:?}", code.display().to_string()),
        )
        .replace("grid = [256, 1, 1]", &format!("grid = [{n}, 1, 1]"))
        .replace(
            "{ reg = 3, f32 = 1.5 }",
            &format!("{{ reg = 3, bits = \"{a:#x}\" }}"),
        )
        .replace(
            "{ reg = 4, f32 = -2.25 }",
            &format!("{{ reg = 4, bits = \"{b:#x}\" }}"),
        )
        .replace("muladd.x.in.bin", "x.bin")
        .replace("muladd.y.in.bin", "y.bin")
        .replace("size = 1024", &format!("size = {}", 4 * n))
        .replace("size = 2048", &format!("size = {}", 8 * n));
    assert!(
        text.contains("f32_denormals = \"flush\""),
        "the capture records RADV's mode"
    );
    let mpath = dir.join("muladd.toml");
    std::fs::write(&mpath, text).unwrap();
    let m = rdna2spv::manifest::Manifest::load(&mpath).unwrap();
    let mut plan = Plan::new(&m).unwrap();
    let ctx = open(Some(&device_name())).unwrap();
    let profile = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let dev = run_vulkan(&ctx, &mut plan, &profile).unwrap();
    let (host, _) = run_host_at(&plan, &dev.addresses).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let get = |bufs: &[rdna2spv::dispatch::Buffer], name: &str| -> Vec<u32> {
        frame::le(&bufs.iter().find(|b| b.name == name).unwrap().data)
    };
    let m = Mode::of(0);
    let (mut bad, mut first, mut flushed) = (0usize, None, 0usize);
    for (name, hz, dz) in [
        ("z", get(&host, "z"), get(&dev.buffers, "z")),
        ("w", get(&host, "w"), get(&dev.buffers, "w")),
    ] {
        for i in 0..n {
            let (xi, yi) = (m.i(x[i]), m.i(y[i]));
            let wants: Vec<(usize, u32)> = if name == "z" {
                let p = m.o(sf_mul(m.i(a), xi));
                vec![(i, m.o(sf_add(p, yi)))]
            } else {
                vec![
                    (2 * i, m.o(sf_fma(m.i(a), xi, yi))),
                    (2 * i + 1, m.o(sf_fma(m.i(b), xi, yi))),
                ]
            };
            for (k, want) in wants {
                // Results the preserving semantics would have left subnormal.
                let unflushed = if name == "z" {
                    sf_add(sf_mul(a, x[i]), y[i])
                } else if k % 2 == 0 {
                    sf_fma(a, x[i], y[i])
                } else {
                    sf_fma(b, x[i], y[i])
                };
                flushed += (unflushed != want && !is_nan32(unflushed)) as usize;
                if hz[k] != want || dz[k] != want {
                    bad += 1;
                    first.get_or_insert(format!(
                        "{name}[{k}] x {:08x} y {:08x}: softfloat {want:08x}, host {:08x}, device {:08x}",
                        x[i], y[i], hz[k], dz[k]
                    ));
                }
            }
        }
    }
    eprintln!("ACO muladd: {} results, {flushed} differ from the preserving semantics, {bad} differ from SoftFloat", 3 * n);
    assert!(
        flushed > n / 10,
        "too few results where flushing matters ({flushed})"
    );
    assert_eq!(bad, 0, "{}", first.unwrap_or_default());
}

/// Under the simulated flushing device no f32 arithmetic, conversion or comparison of a possibly subnormal
/// value reaches the device (each would be flushed there): the module of the add/mul/fma/sub and the
/// min/max/cmp/cvt forms holds no f32-typed OpFAdd, OpFSub, OpFMul, OpFConvert or GLSL Fma, and no
/// comparison of f32 values. On lavapipe, which preserves subnormals anyway, this is what makes switching an
/// emulation off visible (the bit-for-bit tests above would still pass).
#[test]
fn simulated_flushing_device_keeps_f32_arithmetic_off_the_device() {
    use rdna2spv_spirv::lower::lower;
    use rspirv::spirv::Op;
    let prof = simulated();
    for form in &forms()[..2] {
        let p = kernel(Target::Gfx1030, &with_mode(3, form.bytes));
        let layout = rdna2spv_vulkan::kernel_layout(&launch(256, &[0, 0]));
        let words = lower(&p, &layout, &prof).expect("lowers");
        let module = rspirv::dr::load_words(&words).expect("parses");
        let f32_ty: Vec<u32> = module
            .types_global_values
            .iter()
            .filter(|i| {
                i.class.opcode == Op::TypeFloat
                    && matches!(i.operands[0], rspirv::dr::Operand::LiteralBit32(32))
            })
            .filter_map(|i| i.result_id)
            .collect();
        let mut found = Vec::new();
        for i in module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter())
        {
            let is_f32 = |id: Option<u32>| id.is_some_and(|t| f32_ty.contains(&t));
            let arith = matches!(
                i.class.opcode,
                Op::FAdd | Op::FSub | Op::FMul | Op::FConvert | Op::ExtInst
            ) && is_f32(i.result_type);
            let cmp = matches!(
                i.class.opcode,
                Op::FOrdLessThan
                    | Op::FOrdEqual
                    | Op::FOrdGreaterThan
                    | Op::FOrdLessThanEqual
                    | Op::FOrdGreaterThanEqual
                    | Op::FOrdNotEqual
                    | Op::FUnordLessThan
            ) && i.operands.iter().any(|o| match o {
                rspirv::dr::Operand::IdRef(id) => module
                    .functions
                    .iter()
                    .flat_map(|f| f.blocks.iter())
                    .flat_map(|b| b.instructions.iter())
                    .any(|d| d.result_id == Some(*id) && is_f32(d.result_type)),
                _ => false,
            });
            if arith || cmp {
                found.push(format!("{:?}", i.class.opcode));
            }
        }
        assert!(
            found.is_empty(),
            "{}: f32 device operations {found:?}",
            form.name
        );
    }
}
