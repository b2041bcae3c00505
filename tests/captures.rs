//! Captured shader binaries (issue 6): Mesa RADV/ACO compute shaders captured with `cargo xtask aco` (raw
//! `code` manifests with an `[abi]` table, fixtures/aco/) run on the host evaluator and on lavapipe at the
//! same device addresses; both must agree bit for bit and equal an expectation computed here, independently,
//! from each GLSL source's definition: Rust integer ops, f32 ops for `precise` multiply-then-add, Berkeley
//! SoftFloat (`softfloat-sys`) for fused forms (`fma()`, contractable `a*b+c` that ACO fuses, f16vec2 fma).
//!
//! RADV's MODE flushes f32 denormals, which this project does not model yet (docs/captures.md): every f32
//! operand and result here is checked to be normal or zero, so the flushing mode cannot change a result.
//!
//! Each test's `// coverage:` line lists opcodes its capture holds (checked by `coverage_markers_match_captures`).

use rdna2spv::device::{open, profile_of, run_vulkan, ProfileChoice};
use rdna2spv::dispatch::{run_host_at, Plan};
use rdna2spv::manifest::Manifest;
use softfloat_wrapper::{Float, RoundingMode::TiesToEven as RNE, F16, F32, F64};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `fixtures/aco/<stem>.toml` on lavapipe and on the host at the device's addresses; asserts they agree
/// bit for bit; returns every buffer (inputs and outputs) by name.
fn run_both(dir: &str, stem: &str) -> BTreeMap<String, Vec<u8>> {
    let path = root().join(dir).join(format!("{stem}.toml"));
    let m = Manifest::load(&path).unwrap();
    let mut plan = Plan::new(&m).unwrap();
    let ctx = open(None).unwrap();
    let profile = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let dev = run_vulkan(&ctx, &mut plan, &profile).unwrap();
    let (host, _) = run_host_at(&plan, &dev.addresses).unwrap();
    let mut out = BTreeMap::new();
    for (h, d) in host.iter().zip(&dev.buffers) {
        assert_eq!(h.name, d.name);
        if h.output.is_some() {
            let bad = words(&h.data)
                .iter()
                .zip(words(&d.data))
                .position(|(a, b)| *a != b);
            assert!(
                bad.is_none(),
                "{stem}: host and lavapipe differ in {} at word {}: host {:#010x}, device {:#010x}",
                h.name,
                bad.unwrap(),
                words(&h.data)[bad.unwrap()],
                words(&d.data)[bad.unwrap()]
            );
        }
        out.insert(h.name.clone(), h.data.clone());
    }
    out
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn halves(b: &[u8]) -> Vec<u16> {
    b.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// Compares `got` with `want` word by word, naming the first difference.
fn expect_words(stem: &str, name: &str, got: &[u32], want: &[u32]) {
    assert_eq!(got.len(), want.len(), "{stem}: {name} length");
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        panic!(
            "{stem}: {name}[{i}] = {:#010x}, expected {:#010x}",
            got[i], want[i]
        );
    }
}

/// An f32 that the flushing mode would change: a denormal.
fn denormal32(b: u32) -> bool {
    b & 0x7f80_0000 == 0 && b & 0x007f_ffff != 0
}

fn assert_no_f32_denormals(stem: &str, name: &str, v: &[u32]) {
    if let Some(i) = v.iter().position(|&b| denormal32(b)) {
        panic!("{stem}: {name}[{i}] = {:#010x} is an f32 denormal; the fixture must avoid them (RADV flushes, the evaluator does not model it)", v[i]);
    }
}

fn f32_fma(a: u32, b: u32, c: u32) -> u32 {
    F32::from_bits(a)
        .fused_mul_add(F32::from_bits(b), F32::from_bits(c), RNE)
        .to_bits()
}

fn f16_fma(a: u16, b: u16, c: u16) -> u16 {
    F16::from_bits(a)
        .fused_mul_add(F16::from_bits(b), F16::from_bits(c), RNE)
        .to_bits()
}

fn f16_mul(a: u16, b: u16) -> u16 {
    F16::from_bits(a).mul(F16::from_bits(b), RNE).to_bits()
}

fn mul_add_unfused(a: u32, b: u32, c: u32) -> u32 {
    (f32::from_bits(a) * f32::from_bits(b) + f32::from_bits(c)).to_bits()
}

/// muladd.comp: z = precise (a·x) + y; w[2i] = fma(a, x, y); w[2i+1] = b·x + y (contractable).
/// `fused_plain`: ACO on navi21 fuses the plain form (v_fma/v_fmac); `fused_fma`: fma() is fused.
fn check_muladd(stem: &str, fused_fma: bool, fused_plain: bool) {
    check_muladd_in("fixtures/aco", stem, fused_fma, fused_plain)
}

fn check_muladd_in(dir: &str, stem: &str, fused_fma: bool, fused_plain: bool) {
    let b = run_both(dir, stem);
    let read = |n: &str| {
        words(&std::fs::read(root().join(format!("fixtures/aco/muladd.{n}.in.bin"))).unwrap())
    };
    let (x, y) = (read("x"), read("y"));
    let pa = 1.5f32.to_bits();
    // The ACO shaders take b = -2.25 as a second push constant; the HIP kernel uses a for both.
    let pb = if dir.ends_with("aco") {
        (-2.25f32).to_bits()
    } else {
        pa
    };
    let z: Vec<u32> = x
        .iter()
        .zip(&y)
        .map(|(&x, &y)| mul_add_unfused(pa, x, y))
        .collect();
    let mut w = Vec::new();
    for (&x, &y) in x.iter().zip(&y) {
        w.push(if fused_fma {
            f32_fma(pa, x, y)
        } else {
            mul_add_unfused(pa, x, y)
        });
        w.push(if fused_plain {
            f32_fma(pb, x, y)
        } else {
            mul_add_unfused(pb, x, y)
        });
    }
    for (n, v) in [("x", &x), ("y", &y), ("z", &z), ("w", &w)] {
        assert_no_f32_denormals(stem, n, v);
    }
    // The fused and unfused expectations differ on these inputs (else the test could not tell them apart).
    let differ = x
        .iter()
        .zip(&y)
        .filter(|(&x, &y)| f32_fma(pb, x, y) != mul_add_unfused(pb, x, y))
        .count();
    assert!(
        differ > 10,
        "{stem}: only {differ} inputs separate fused from unfused"
    );
    expect_words(stem, "z", &words(&b["z"]), &z);
    expect_words(stem, "w", &words(&b["w"]), &w);
}

// coverage: aco_muladd_navi21_w64: V_MUL_F32 V_ADD_F32 V_FMA_F32 V_FMAC_F32 V_MOV_B32 BUFFER_LOAD_DWORD BUFFER_STORE_DWORD BUFFER_STORE_DWORDX2 S_LOAD_DWORDX4 S_MOVK_I32 V_LSHL_ADD_U32 V_LSHLREV_B32
#[test]
fn aco_muladd_navi21_w64() {
    check_muladd("muladd.navi21.w64", true, true);
}

// coverage: aco_muladd_navi21_w32: V_MUL_F32 V_ADD_F32 V_FMA_F32 V_FMAC_F32 BUFFER_LOAD_DWORD BUFFER_STORE_DWORD
#[test]
fn aco_muladd_navi21_w32() {
    check_muladd("muladd.navi21.w32", true, true);
}

/// gfx1010 (navi10): ACO emits the unfused V_MAD_F32 for both the precise pair and fma() (merged, RADV
/// flushes f32 denormals so MAD is allowed) and V_MAC_F32 for the plain form: product and sum each round.
// coverage: aco_muladd_navi10_w64: V_MAD_F32 V_MAC_F32
#[test]
fn aco_muladd_navi10_w64() {
    let asm =
        std::fs::read_to_string(root().join("fixtures/aco/muladd.navi10.w64.aco.txt")).unwrap();
    assert!(
        asm.contains("v_mad_f32 ") && asm.contains("v_mac_f32_e32 "),
        "the capture holds the MAD/MAC forms"
    );
    check_muladd("muladd.navi10.w64", false, false);
}

// coverage: aco_intops_navi21_w64: V_MUL_LO_U32 V_MUL_HI_U32 V_MUL_U32_U24 V_BFE_U32 V_BFI_B32 V_BCNT_U32_B32 V_FFBH_U32 V_MIN_I32 V_MAX_I32 V_ASHRREV_I32 V_XOR_B32 V_ADD3_U32
#[test]
fn aco_intops_navi21_w64() {
    let stem = "intops.navi21.w64";
    let b = run_both("fixtures/aco", stem);
    let (x, y) = (words(&b["x"]), words(&b["y"]));
    let (k, s) = (0x9e37_79b9u32, -3000i32);
    let mut r = Vec::new();
    for (&a, &bb) in x.iter().zip(&y) {
        let p = a as u64 * (bb ^ k) as u64;
        let (lo, hi) = (p as u32, (p >> 32) as u32);
        r.push(
            lo.wrapping_add(hi >> 7)
                .wrapping_add(a.wrapping_shl(bb & 31)),
        );
        let sa = a as i32;
        let m = (sa >> 5)
            .max(s)
            .wrapping_add((bb as i32).min(sa.wrapping_neg()));
        r.push(m as u32 ^ ((a >> 3) & 0x7ff));
        let ins = (bb & !(0xfff << 8)) | ((a & 0xfff) << 8);
        let msb = 31 - (bb | 1).leading_zeros();
        r.push(
            ins.wrapping_add(a.count_ones().wrapping_mul(0x10001))
                .wrapping_add(msb),
        );
    }
    expect_words(stem, "r", &words(&b["r"]), &r);
}

/// shared.comp: tile[l] = x·3; barrier; r = tile[63 − l] − tile[(l + 1) & 63] within each group of 64.
fn check_shared(dir: &str, stem: &str, x_file: &str) {
    let b = run_both(dir, stem);
    let x = words(&std::fs::read(root().join(x_file)).unwrap());
    let three = 3.0f32;
    let mut r = Vec::new();
    for g in x.chunks(64) {
        let tile: Vec<f32> = g.iter().map(|&v| f32::from_bits(v) * three).collect();
        for l in 0..64 {
            r.push((tile[63 - l] - tile[(l + 1) & 63]).to_bits());
        }
    }
    assert_no_f32_denormals(stem, "x", &x);
    assert_no_f32_denormals(stem, "r", &r);
    expect_words(stem, "r", &words(&b["r"]), &r);
}

// coverage: aco_shared_navi21_w32: DS_WRITE_B32 DS_READ_B32 S_BARRIER V_SUB_F32 V_MUL_F32
#[test]
fn aco_shared_navi21_w32() {
    let asm =
        std::fs::read_to_string(root().join("fixtures/aco/shared.navi21.w32.aco.txt")).unwrap();
    assert!(
        asm.contains("s_barrier"),
        "two waves per group: ACO keeps the barrier"
    );
    check_shared(
        "fixtures/aco",
        "shared.navi21.w32",
        "fixtures/aco/shared.x.in.bin",
    );
}

// coverage: aco_shared_navi21_w64: DS_WRITE_B32 DS_READ_B32 V_SUB_F32
#[test]
fn aco_shared_navi21_w64() {
    check_shared(
        "fixtures/aco",
        "shared.navi21.w64",
        "fixtures/aco/shared.x.in.bin",
    );
}

/// f16vec2: r[2i] = fma(a, b, c) per half (one rounding), r[2i+1] = a·c.
fn check_half2(dir: &str, stem: &str) {
    let b = run_both(dir, stem);
    let read = |n: &str| {
        halves(&std::fs::read(root().join(format!("fixtures/aco/half2.{n}.in.bin"))).unwrap())
    };
    let (a, bb, c) = (read("a"), read("b"), read("c"));
    let mut r = Vec::new();
    for i in 0..a.len() / 2 {
        for j in 0..2 {
            r.push(f16_fma(a[2 * i + j], bb[2 * i + j], c[2 * i + j]));
        }
        for j in 0..2 {
            r.push(f16_mul(a[2 * i + j], c[2 * i + j]));
        }
    }
    let got = halves(&b["r"]);
    assert_eq!(got.len(), r.len());
    if let Some(i) = got.iter().zip(&r).position(|(g, w)| g != w) {
        panic!("{stem}: r[{i}] = {:#06x}, expected {:#06x}", got[i], r[i]);
    }
    let sub = r
        .iter()
        .filter(|&&h| h & 0x7c00 == 0 && h & 0x3ff != 0)
        .count();
    assert!(sub > 0, "{stem}: no f16 subnormal results exercised");
}

// coverage: aco_half2_navi21_w64: V_PK_FMA_F16 V_PK_MUL_F16 V_MOV_B32
#[test]
fn aco_half2_navi21_w64() {
    check_half2("fixtures/aco", "half2.navi21.w64");
}

/// control.comp: a per-item loop count with an if/else in the loop.
fn check_control(dir: &str, stem: &str) {
    let b = run_both(dir, stem);
    let x = words(&std::fs::read(root().join("fixtures/aco/control.x.in.bin")).unwrap());
    let r: Vec<u32> = x
        .iter()
        .map(|&v0| {
            let (mut v, n, mut acc) = (v0, v0 & 15, 0u32);
            for k in 0..n {
                if v & 1 != 0 {
                    v = v.wrapping_mul(3).wrapping_add(1);
                } else {
                    v >>= 1;
                    acc = acc.wrapping_add(k);
                }
            }
            v ^ (acc << 16)
        })
        .collect();
    expect_words(stem, "r", &words(&b["r"]), &r);
}

// coverage: aco_control_navi21_w32: S_ANDN2_B32 S_CBRANCH_SCC0 S_BRANCH V_CMPX_GE_U32 V_CNDMASK_B32
#[test]
fn aco_control_navi21_w32() {
    check_control("fixtures/aco", "control.navi21.w32");
}

// coverage: aco_control_navi21_w64: S_ANDN2_B64 S_MOV_B64 V_CMPX_GE_U32
#[test]
fn aco_control_navi21_w64() {
    check_control("fixtures/aco", "control.navi21.w64");
}

/// ballot.comp: per subgroup (= wave), the ballot of (v & 3) == 0, its bit count, the first item's value and
/// ballot.x ^ ballot.y (wave32: the high word is 0).
fn check_ballot(stem: &str, wave: usize) {
    let b = run_both("fixtures/aco", stem);
    let x = words(&b["x"]);
    let mut r = Vec::new();
    for w in x.chunks(wave) {
        let mask: u64 = w
            .iter()
            .enumerate()
            .filter(|(_, &v)| v & 3 == 0)
            .map(|(l, _)| 1u64 << l)
            .sum();
        for _ in w {
            r.push(mask.count_ones());
            r.push(w[0]);
            r.push(mask as u32 ^ (mask >> 32) as u32);
        }
    }
    expect_words(stem, "r", &words(&b["r"]), &r);
}

// coverage: aco_ballot_navi21_w64: S_BCNT1_I32_B64 V_READFIRSTLANE_B32 V_LSHRREV_B64 V_MUL_U32_U24
#[test]
fn aco_ballot_navi21_w64() {
    check_ballot("ballot.navi21.w64", 64);
}

// coverage: aco_ballot_navi21_w32: S_BCNT1_I32_B32 V_READFIRSTLANE_B32
#[test]
fn aco_ballot_navi21_w32() {
    check_ballot("ballot.navi21.w32", 32);
}

/// reduce.comp: per subgroup (= wave), subgroupAdd(x) ^ subgroupExclusiveAdd(x) — ACO's reduction and scan
/// from DPP row operations, v_permlanex16_b32, v_readlane_b32/v_writelane_b32 and EXEC juggling.
fn check_reduce(stem: &str, wave: usize) {
    let b = run_both("fixtures/aco", stem);
    let x = words(&std::fs::read(root().join("fixtures/aco/reduce.x.in.bin")).unwrap());
    let mut r = Vec::new();
    for w in x.chunks(wave) {
        let total = w.iter().fold(0u32, |a, &v| a.wrapping_add(v));
        let mut prefix = 0u32;
        for &v in w {
            r.push(total ^ prefix);
            prefix = prefix.wrapping_add(v);
        }
    }
    expect_words(stem, "r", &words(&b["r"]), &r);
}

// coverage: aco_reduce_navi21_w64: V_ADD_NC_U32 V_MOV_B32 V_PERMLANEX16_B32 V_READLANE_B32 V_WRITELANE_B32 S_OR_SAVEEXEC_B64 S_BFM_B32 S_BFM_B64
/// Long run (lavapipe takes 35–60 s to compile its 64-lane module on a shared 2-core machine, near the 60 s
/// fence timeout): `cargo test --test captures -- --ignored aco_reduce_navi21_w64` (docs/captures.md).
#[test]
#[ignore = "long (lavapipe compiles its wave64 module for 35-60 s): cargo test --test captures -- --ignored aco_reduce_navi21_w64"]
fn aco_reduce_navi21_w64() {
    check_reduce("reduce.navi21.w64", 64);
}

// coverage: aco_reduce_navi21_w32: V_ADD_NC_U32 V_PERMLANEX16_B32 V_READLANE_B32 S_OR_SAVEEXEC_B32
#[test]
fn aco_reduce_navi21_w32() {
    check_reduce("reduce.navi21.w32", 32);
}

// ---- hipcc 5.2.3 code objects (fixtures/hip): COV4, dispatch pointer, blockDim from the AQL packet.

// coverage: hip_muladd: V_MUL_F32 V_ADD_F32 V_FMAC_F32 GLOBAL_LOAD_DWORD GLOBAL_STORE_DWORD S_LOAD_DWORD
#[test]
fn hip_muladd() {
    check_muladd_in("fixtures/hip", "muladd", true, true);
}

/// The same kernel from the clang offload bundle hipcc writes without --no-gpu-bundle-output.
#[test]
fn hip_muladd_bundle() {
    check_muladd_in("fixtures/hip", "muladd_bundle", true, true);
}

// coverage: hip_intops: V_MUL_LO_U32 V_MUL_HI_U32 V_BFREV_B32 V_BCNT_U32_B32 V_FFBH_U32 V_MAX_I32 V_MIN_U32
#[test]
fn hip_intops() {
    let b = run_both("fixtures/hip", "intops");
    let read = |n: &str| {
        words(&std::fs::read(root().join(format!("fixtures/aco/intops.{n}.in.bin"))).unwrap())
    };
    let (x, y) = (read("x"), read("y"));
    let k = 0x9e37_79b9u32;
    let mut r = Vec::new();
    for (&a, &yy) in x.iter().zip(&y) {
        let bb = yy ^ k;
        let hi = ((a as u64 * bb as u64) >> 32) as u32;
        r.push(a.wrapping_mul(bb).wrapping_add(hi));
        r.push(
            (((a as i32) >> 3).max(bb as i32) as u32)
                .wrapping_add(a.min(bb >> 1))
                .wrapping_add(a.wrapping_shl(bb & 31)),
        );
        r.push(
            a.count_ones()
                .wrapping_add(bb.leading_zeros() << 8)
                .wrapping_add(a.reverse_bits() ^ bb),
        );
    }
    expect_words("intops", "r", &words(&b["r"]), &r);
}

// coverage: hip_shared: DS_WRITE_B32 DS_READ_B32 S_BARRIER V_SUB_F32
#[test]
fn hip_shared() {
    check_shared("fixtures/hip", "shared", "fixtures/aco/shared.x.in.bin");
}

// coverage: hip_grid2d: S_MULK_I32
#[test]
fn hip_grid2d() {
    let b = run_both("fixtures/hip", "grid2d");
    let (bx, by) = (16u32, 4u32);
    let mut r = vec![0u32; 64 * 8];
    for gy in 0..8u32 {
        for gx in 0..64u32 {
            r[(gy * 64 + gx) as usize] =
                (gx << 16) ^ (gy << 4) ^ (bx * 1000 + by) ^ ((gy / by) << 24);
        }
    }
    expect_words("grid2d", "r", &words(&b["r"]), &r);
}

// coverage: hip_control: S_CBRANCH_EXECZ S_ANDN2_SAVEEXEC_B32 V_CMPX_NE_U32
#[test]
fn hip_control() {
    check_control("fixtures/hip", "control");
}

// coverage: hip_dfma: V_FMA_F64 V_MUL_F64 V_ADD_F64 GLOBAL_LOAD_DWORDX2 GLOBAL_STORE_DWORDX2
#[test]
fn hip_dfma() {
    let b = run_both("fixtures/hip", "dfma");
    let read = |n: &str| -> Vec<u64> {
        std::fs::read(root().join(format!("fixtures/hip/dfma.{n}.in.bin")))
            .unwrap()
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (x, y) = (read("x"), read("y"));
    let a = 1.5f64;
    let mut r = Vec::new();
    for (&x, &y) in x.iter().zip(&y) {
        r.push(
            F64::from_bits(a.to_bits())
                .fused_mul_add(F64::from_bits(x), F64::from_bits(y), RNE)
                .to_bits(),
        );
        r.push((a * f64::from_bits(x) + f64::from_bits(y)).to_bits());
    }
    let got: Vec<u64> = b["r"]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let differ = (0..r.len() / 2)
        .filter(|&i| r[2 * i] != r[2 * i + 1])
        .count();
    assert!(
        differ > 10,
        "only {differ} inputs separate fused from unfused"
    );
    if let Some(i) = got.iter().zip(&r).position(|(g, w)| g != w) {
        panic!("dfma: r[{i}] = {:#018x}, expected {:#018x}", got[i], r[i]);
    }
}

// coverage: hip_half2: V_PK_FMA_F16 V_PK_MUL_F16
#[test]
fn hip_half2() {
    check_half2("fixtures/hip", "half2");
}

/// Every opcode a `// coverage:` line of this file names occurs in the capture or code object the test runs
/// (by its LLVM mnemonic in rdna2spv's listing), so the markers claim nothing the fixtures do not hold.
#[test]
fn coverage_markers_match_captures() {
    let src = std::fs::read_to_string(root().join("tests/captures.rs")).unwrap();
    for line in src.lines().filter(|l| l.starts_with("// coverage: ")) {
        let rest = &line["// coverage: ".len()..];
        let (test, ops) = rest.split_once(':').unwrap();
        let (listing_args, what): (Vec<String>, String) = if let Some(t) = test.strip_prefix("aco_")
        {
            // aco_muladd_navi21_w64 -> fixtures/aco/muladd.navi21.w64.bin
            let parts: Vec<&str> = t.split('_').collect();
            let file = format!("fixtures/aco/{}.{}.{}.bin", parts[0], parts[1], parts[2]);
            let target = if parts[1] == "navi10" {
                "gfx1010"
            } else {
                "gfx1030"
            };
            (
                vec![
                    "disasm".into(),
                    "--raw".into(),
                    "--target".into(),
                    target.into(),
                    root().join(&file).display().to_string(),
                ],
                file,
            )
        } else if test == "raw_vsharp_and_address" {
            let file = "fixtures/raw/vsharp.bin".to_string();
            (
                vec![
                    "disasm".into(),
                    "--raw".into(),
                    root().join(&file).display().to_string(),
                ],
                file,
            )
        } else {
            let t = test.strip_prefix("hip_").unwrap();
            let file = format!("fixtures/hip/{t}.co");
            (
                vec!["disasm".into(), root().join(&file).display().to_string()],
                file,
            )
        };
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
            .args(&listing_args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let listing = String::from_utf8_lossy(&out.stdout).to_lowercase();
        for op in ops.split_whitespace() {
            let m = op.to_lowercase();
            let found = listing.lines().any(|l| {
                let mnemonic = l.split_whitespace().next().unwrap_or("");
                mnemonic == m || mnemonic.starts_with(&format!("{m}_"))
            });
            assert!(found, "{test}: {op} is not in {what}");
        }
    }
}

/// Raw manifests with a bad `[abi]` are refused with exit 2 and a message naming the problem.
#[test]
fn bad_raw_manifests_are_refused() {
    let dir = std::env::temp_dir().join(format!("rdna2spv-captures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        root().join("fixtures/aco/muladd.navi21.w64.bin"),
        dir.join("k.bin"),
    )
    .unwrap();
    let base = std::fs::read_to_string(root().join("fixtures/aco/muladd.navi21.w64.toml"))
        .unwrap()
        .replace("muladd.navi21.w64.bin", "k.bin")
        .replace("muladd.x.in.bin", "x.bin")
        .replace("muladd.y.in.bin", "x.bin");
    std::fs::write(dir.join("x.bin"), vec![0u8; 1024]).unwrap();
    let cases = [
        (
            base.replace("wave_size = 64", "wave_size = 16"),
            "wave_size 16",
        ),
        (
            base.replace("descriptor_set = [\"x\"", "descriptor_set = [\"nope\""),
            "no buffer named \"nope\"",
        ),
        (
            base.replace("{ reg = 4, f32 = -2.25 }", "{ reg = 2, f32 = -2.25 }"),
            "s2 is given twice",
        ),
        (
            base.replace("address32_hi = 0xffff8000\n", ""),
            "needs address32_hi",
        ),
        (
            base.replace(
                "{ reg = 5, workgroup_id = 0 }",
                "{ reg = 5, workgroup_id = 0, u32 = 1 }",
            ),
            "exactly one of",
        ),
        (
            base.replace("target = \"gfx1030\"", "target = \"gfx9\""),
            "gfx9",
        ),
        (base.replace("[abi]", "[abi]\nbogus = 1"), "bogus"),
        (
            base.replace(
                "{ reg = 6, scratch_wave_offset = true }",
                "{ reg = 65534, vsharp = \"x\" }",
            ),
            "past s105",
        ),
        (
            base.replace(
                "code = \"k.bin\"",
                "code = \"k.bin\"\ncode_object = \"k.co\"",
            ),
            "not both",
        ),
        (
            base.split("[abi]").next().unwrap().to_string(),
            "needs an [abi] table",
        ),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let m = dir.join(format!("bad{i}.toml"));
        std::fs::write(&m, text).unwrap();
        let out_dir = dir.join(format!("out{i}"));
        let r = std::process::Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
            .args(["run", "--backend", "host", "--out"])
            .arg(&out_dir)
            .arg(&m)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "case {i}: {err}");
        assert!(err.contains(want), "case {i}: wanted {want:?} in {err}");
        assert!(!out_dir.exists(), "case {i}: wrote output");
    }
    // Code that is not whole words.
    std::fs::write(dir.join("k.bin"), [0u8; 6]).unwrap();
    std::fs::write(dir.join("odd.toml"), &base).unwrap();
    let r = std::process::Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["run", "--backend", "host"])
        .arg(dir.join("odd.toml"))
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("whole number of instruction words"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A hand-written raw program (fixtures/raw/vsharp.s) for the `[abi]` kinds the ACO captures do not use: a
/// V# in s[0:3] (`vsharp`), a buffer's 64-bit address in s[4:5] (`address`), a constant and the workgroup id.
// coverage: raw_vsharp_and_address: BUFFER_LOAD_DWORD GLOBAL_STORE_DWORD V_MUL_LO_U32 V_ADD3_U32
#[test]
fn raw_vsharp_and_address() {
    let b = run_both("fixtures/raw", "vsharp");
    let x = words(&std::fs::read(root().join("fixtures/raw/vsharp.x.in.bin")).unwrap());
    let y: Vec<u32> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            v.wrapping_mul(3)
                .wrapping_add(0x0102_0304)
                .wrapping_add(i as u32)
        })
        .collect();
    expect_words("vsharp", "y", &words(&b["y"]), &y);
}
