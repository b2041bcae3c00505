//! Per-opcode differential tests of the float VALU instructions of issue 5 part B (decision D025):
//! every case runs from real instruction words (tests/vfloat/kernels.rs, assembled by llvm-mc-19) in one
//! kernel per width, on the host evaluator and on lavapipe (probed profile), and every result word is
//! compared with an independent reference: Berkeley SoftFloat (`softfloat-sys`) for the IEEE operations
//! (add, mul, roundToInt in its four modes, conversions, f128 for exact ldexp), Rust's saturating `as`
//! casts for float→int, and, for min/max/med3, frexp, fract's clip and the class test, a reference written
//! here from the ISA guide's text (not from crates/ir). NaN results map to D005's default NaN, as in
//! tests/fused_multiply_add.rs.
//!
//! Operands per kernel: every pair of a boundary set (zeros, subnormal and normal extremes, ±1, ties,
//! integers at the conversion limits, infinities, quiet and signalling NaNs) and random operands up to
//! `RDNA2SPV_VFLOAT_N` items (default 4,096 + the boundary pairs); each case sees every item.
//! Benchmark-size run (10^6 operands per op): `cargo test --release --test vfloat_ops -- --ignored
//! --test-threads 1` (docs/numerics-ops.md records the result). `RDNA2SPV_VFLOAT_ONLY=<name part>` runs
//! the kernels holding matching cases, `RDNA2SPV_VFLOAT_GROUP` sets cases per kernel (default 32, the most the output layout holds),
//! `RDNA2SPV_VFLOAT_TIMES=1` prints device and host times per dispatch.

// coverage: f64_ops_match_softfloat_on_host_and_lavapipe: V_ADD_F64 V_MUL_F64 V_MIN_F64 V_MAX_F64 V_LDEXP_F64 V_FREXP_MANT_F64 V_FREXP_EXP_I32_F64 V_FRACT_F64 V_TRUNC_F64 V_CEIL_F64 V_FLOOR_F64 V_RNDNE_F64 V_CVT_F64_F32 V_CVT_F64_I32 V_CVT_F64_U32 V_CVT_F32_F64 V_CVT_I32_F64 V_CVT_U32_F64 V_CMP_F_F64 V_CMPX_F_F64 V_CMP_LT_F64 V_CMPX_LT_F64 V_CMP_EQ_F64 V_CMPX_EQ_F64 V_CMP_LE_F64 V_CMPX_LE_F64 V_CMP_GT_F64 V_CMPX_GT_F64 V_CMP_LG_F64 V_CMPX_LG_F64 V_CMP_GE_F64 V_CMPX_GE_F64 V_CMP_O_F64 V_CMPX_O_F64 V_CMP_U_F64 V_CMPX_U_F64 V_CMP_NGE_F64 V_CMPX_NGE_F64 V_CMP_NLG_F64 V_CMPX_NLG_F64 V_CMP_NGT_F64 V_CMPX_NGT_F64 V_CMP_NLE_F64 V_CMPX_NLE_F64 V_CMP_NEQ_F64 V_CMPX_NEQ_F64 V_CMP_NLT_F64 V_CMPX_NLT_F64 V_CMP_TRU_F64 V_CMPX_TRU_F64 V_CMP_CLASS_F64 V_CMPX_CLASS_F64
// coverage: f32_ops_match_softfloat_on_host_and_lavapipe: V_TRUNC_F32 V_CEIL_F32 V_FLOOR_F32 V_RNDNE_F32 V_FRACT_F32 V_LDEXP_F32 V_FREXP_MANT_F32 V_FREXP_EXP_I32_F32 V_MIN3_F32 V_MAX3_F32 V_MED3_F32 V_ADD_F32 V_SUB_F32 V_SUBREV_F32 V_MUL_F32 V_MUL_LEGACY_F32 V_CVT_F32_I32 V_CVT_F32_U32 V_CVT_I32_F32 V_CVT_U32_F32 V_RCP_F32 V_SQRT_F32 V_CNDMASK_B32 V_MIN_F32 V_MAX_F32 V_CVT_FLR_I32_F32 V_CVT_RPI_I32_F32 V_CVT_F32_UBYTE0 V_CVT_F32_UBYTE1 V_CVT_F32_UBYTE2 V_CVT_F32_UBYTE3 V_CMP_F_F32 V_CMPX_F_F32 V_CMP_LT_F32 V_CMPX_LT_F32 V_CMP_EQ_F32 V_CMPX_EQ_F32 V_CMP_LE_F32 V_CMPX_LE_F32 V_CMP_GT_F32 V_CMPX_GT_F32 V_CMP_LG_F32 V_CMPX_LG_F32 V_CMP_GE_F32 V_CMPX_GE_F32 V_CMP_O_F32 V_CMPX_O_F32 V_CMP_U_F32 V_CMPX_U_F32 V_CMP_NGE_F32 V_CMPX_NGE_F32 V_CMP_NLG_F32 V_CMPX_NLG_F32 V_CMP_NGT_F32 V_CMPX_NGT_F32 V_CMP_NLE_F32 V_CMPX_NLE_F32 V_CMP_NEQ_F32 V_CMPX_NEQ_F32 V_CMP_NLT_F32 V_CMPX_NLT_F32 V_CMP_TRU_F32 V_CMPX_TRU_F32 V_CMP_CLASS_F32 V_CMPX_CLASS_F32
// coverage: f16_ops_match_softfloat_on_host_and_lavapipe: V_TRUNC_F16 V_CEIL_F16 V_FLOOR_F16 V_RNDNE_F16 V_FRACT_F16 V_FREXP_MANT_F16 V_FREXP_EXP_I16_F16 V_ADD_F16 V_MUL_F16 V_MIN_F16 V_MAX_F16 V_SUB_F16 V_SUBREV_F16 V_LDEXP_F16 V_MIN3_F16 V_MAX3_F16 V_MED3_F16 V_CVT_F32_F16 V_CVT_F16_F32 V_CVT_F16_U16 V_CVT_F16_I16 V_CVT_U16_F16 V_CVT_I16_F16 V_CVT_PKRTZ_F16_F32 V_PACK_B32_F16 V_PK_ADD_F16 V_PK_MUL_F16 V_PK_MIN_F16 V_PK_MAX_F16 V_CMP_F_F16 V_CMPX_F_F16 V_CMP_LT_F16 V_CMPX_LT_F16 V_CMP_EQ_F16 V_CMPX_EQ_F16 V_CMP_LE_F16 V_CMPX_LE_F16 V_CMP_GT_F16 V_CMPX_GT_F16 V_CMP_LG_F16 V_CMPX_LG_F16 V_CMP_GE_F16 V_CMPX_GE_F16 V_CMP_O_F16 V_CMPX_O_F16 V_CMP_U_F16 V_CMPX_U_F16 V_CMP_NGE_F16 V_CMPX_NGE_F16 V_CMP_NLG_F16 V_CMPX_NLG_F16 V_CMP_NGT_F16 V_CMPX_NGT_F16 V_CMP_NLE_F16 V_CMPX_NLE_F16 V_CMP_NEQ_F16 V_CMPX_NEQ_F16 V_CMP_NLT_F16 V_CMPX_NLT_F16 V_CMP_TRU_F16 V_CMPX_TRU_F16 V_CMP_CLASS_F16 V_CMPX_CLASS_F16 V_FMAC_F16

use rdna2spv_eval::{Launch, Memory, SgprInit};
use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_ir::Program;
use rdna2spv_isa::Target;
use rdna2spv_spirv::lower::LowerOptions;
use rdna2spv_vulkan::{probe, run_with_buffers, Context, DeviceProfile, DeviceSelector};
use softfloat_wrapper::{
    Float, RoundingMode, RoundingMode::TiesToEven as RNE, F128, F16, F32, F64,
};

#[path = "vfloat/kernels.rs"]
mod kernels;

/// One instruction (or short sequence) under test and where its result lands.
pub struct Case {
    pub name: &'static str,
    pub opcodes: &'static [&'static str],
    pub asm: &'static [(&'static str, &'static [u32])],
    /// A 64-bit result in v[8:9] (else a 32-bit one in v8).
    pub wide: bool,
    /// The reference's name (see `reference`).
    pub reference: &'static str,
    /// 1: the case negates source 0 and takes |source 1| (and clamps, if its name says so).
    pub mods: u32,
}

// ---------------------------------------------------------------------------------------------------
// The kernel frame (words from llvm-mc-19 -mcpu=gfx1030 -show-encoding):
//   s_lshl_b32 s5, s4, 8 ; v_add_nc_u32_e32 v10, s5, v0 ; v_lshlrev_b32_e32 v11, 5, v10
//   global_load_dwordx4 v[0:3], v11, s[0:1] ; global_load_dwordx4 v[4:7], v11, s[0:1] offset:16
//   s_waitcnt vmcnt(0)
//   v_lshlrev_b32_e32 v12, 8, v10                              ; [0x34181488]
//   for each case j: <the case, result in v8 or v[8:9]>
//                    global_store_dwordx2 v12, v[8:9], s[2:3] offset:8j ; [0xdc748000 | 8j, 0x0002080c]
//   s_endpgm                                                   ; [0xbf810000]
// (Results go through v8 so that the kernel uses 13 VGPRs: the wave-per-invocation lowering keeps the
// VGPR file in a private array, and lavapipe's compile and run time grow steeply with its size.)
const HEAD: [u32; 8] = [
    0x8f05_8804,
    0x4a14_0005,
    0x3416_1485,
    0xdc38_8000,
    0x0000_000b,
    0xdc38_8010,
    0x0400_000b,
    0xbf8c_3f70,
];
const WG: u32 = 256;
/// Output dwords per item (two per case, at most 32 cases per kernel).
const OUT: usize = 64;

fn le(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn kernel(cases: &[Case]) -> Program {
    assert!(cases.len() <= OUT / 2);
    let mut words: Vec<u32> = HEAD.to_vec();
    words.push(0x3418_1488);
    for (j, c) in cases.iter().enumerate() {
        // v_mov_b32 v8, 0: a 16-bit result keeps v8's high half (gfx10, D096), so each case starts from a
        // zero v8 rather than the previous case's result; tests/ops_f16_high_half.rs checks the kept half.
        words.push(0x7e10_0280);
        for (_, w) in c.asm {
            words.extend_from_slice(w);
        }
        words.push(0xdc74_8000 | (8 * j as u32));
        words.push(0x0002_080c);
    }
    words.push(0xbf81_0000);
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    lift(
        "vfloat",
        &code,
        LiftOptions {
            target: Target::Gfx1030,
            wave_size: 32,
            private_segment_buffer: None,
        },
    )
    .unwrap_or_else(|e| panic!("the cases lift: {e}"))
}

fn launch(n: usize, addrs: &[u64]) -> Launch {
    let mut sgprs = Vec::new();
    for (i, &a) in addrs.iter().enumerate() {
        sgprs.push((2 * i as u16, SgprInit::Const(a as u32)));
        sgprs.push((2 * i as u16 + 1, SgprInit::Const((a >> 32) as u32)));
    }
    sgprs.push((4, SgprInit::WorkgroupId(0)));
    Launch {
        wave_size: 32,
        grid: [n as u32, 1, 1],
        workgroup: [WG, 1, 1],
        sgprs,
        workitem_id_vgprs: 1,
        lds_bytes: 0,
        scratch_bytes: 0,
        max_steps_per_wave: 10_000_000,
        code_base: None,
    }
}

/// Lavapipe with a 600 s fence timeout (as tests/opcheck): at the default 60 s, the benchmark-size
/// dispatches (262,144 items × 32 cases) timed out on a loaded machine (load average ~20, 2026-11-30).
fn lavapipe() -> Context {
    Context::new(DeviceSelector::from_env_or_lavapipe())
        .map(|c| c.with_timeout(std::time::Duration::from_secs(600)))
        .unwrap_or_else(|e| {
            panic!(
                "this test needs lavapipe (apt-get install -y --no-install-recommends libvulkan1 \
             mesa-vulkan-drivers): {e}"
            )
        })
}

/// Runs the kernel over `inputs` on the host and on the device: (host, device) outputs, OUT per item.
fn run_both(
    ctx: &Context,
    prof: &DeviceProfile,
    p: &Program,
    inputs: &[[u32; 8]],
) -> (Vec<u32>, Vec<u32>) {
    let n = inputs.len();
    let input: Vec<u8> = inputs
        .iter()
        .flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let init = vec![input, vec![0u8; 4 * OUT * n]];
    let t0 = std::time::Instant::now();
    let run = run_with_buffers(
        ctx,
        p,
        &init,
        |a| launch(n, a),
        prof,
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("device run failed: {e}"));
    let t1 = std::time::Instant::now();
    let mut mem = Memory::default();
    for (i, b) in init.iter().enumerate() {
        mem.add(&format!("buf{i}"), run.addresses[i], b.clone())
            .unwrap();
    }
    rdna2spv_eval::run(p, &run.launch, &mut mem).expect("the evaluator runs");
    if std::env::var_os("RDNA2SPV_VFLOAT_TIMES").is_some() {
        eprintln!(
            "  device {:.2} s, host {:.2} s",
            (t1 - t0).as_secs_f64(),
            t1.elapsed().as_secs_f64()
        );
    }
    let host = le(&mem.allocation("buf1").unwrap().data);
    (host, le(&run.outputs[1]))
}

// ---------------------------------------------------------------------------------------------------
// References.

const Q16: u64 = 0x7e00;
const Q32: u64 = 0x7fc0_0000;
const Q64: u64 = 0x7ff8_0000_0000_0000;

/// A float width, for the references.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum W {
    H,
    S,
    D,
}

impl W {
    fn bits(self) -> u32 {
        match self {
            W::H => 16,
            W::S => 32,
            W::D => 64,
        }
    }
    fn man(self) -> u32 {
        match self {
            W::H => 10,
            W::S => 23,
            W::D => 52,
        }
    }
    fn sign(self) -> u64 {
        1 << (self.bits() - 1)
    }
    fn inf(self) -> u64 {
        match self {
            W::H => 0x7c00,
            W::S => 0x7f80_0000,
            W::D => 0x7ff0_0000_0000_0000,
        }
    }
    fn qnan(self) -> u64 {
        match self {
            W::H => Q16,
            W::S => Q32,
            W::D => Q64,
        }
    }
    fn one(self) -> u64 {
        match self {
            W::H => 0x3c00,
            W::S => 0x3f80_0000,
            W::D => 0x3ff0_0000_0000_0000,
        }
    }
    fn is_nan(self, x: u64) -> bool {
        x & (self.sign() - 1) > self.inf()
    }
    fn is_snan(self, x: u64) -> bool {
        self.is_nan(x) && x & (1 << (self.man() - 1)) == 0
    }
    fn canon(self, x: u64) -> u64 {
        if self.is_nan(x) {
            self.qnan()
        } else {
            x
        }
    }
    /// The exact value (f64 holds every f16/f32 exactly).
    fn val(self, x: u64) -> f64 {
        match self {
            W::H => F16::from_bits(x as u16).to_f64(RNE).to_bits(),
            W::S => F32::from_bits(x as u32).to_f64(RNE).to_bits(),
            W::D => x,
        }
        .pipe(f64::from_bits)
    }
    fn neg(self, x: u64) -> u64 {
        x ^ self.sign()
    }
    fn abs(self, x: u64) -> u64 {
        x & (self.sign() - 1)
    }
}

trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}
impl Pipe for u64 {}

/// ISA guide, VOP3 clamp in DX10_CLAMP mode: result limited to [0, 1], NaN → +0, negatives and −0 → +0.
fn clamp(w: W, x: u64) -> u64 {
    if w.is_nan(x) || x & w.sign() != 0 {
        0
    } else if w.val(x) > 1.0 {
        w.one()
    } else {
        x
    }
}

/// IEEE-mode minNum / maxNum (ISA guide: a signalling NaN operand gives a quiet NaN; one quiet NaN
/// yields the other operand; −0 < +0).
fn minmax(w: W, a: u64, b: u64, max: bool) -> u64 {
    if w.is_snan(a) || w.is_snan(b) || (w.is_nan(a) && w.is_nan(b)) {
        return w.qnan();
    }
    if w.is_nan(a) {
        return b;
    }
    if w.is_nan(b) {
        return a;
    }
    let (x, y) = (w.val(a), w.val(b));
    if x == y {
        // Equal values differ only for ±0.
        let a_neg = a & w.sign() != 0;
        return if a_neg == max { b } else { a };
    }
    if (x < y) != max {
        a
    } else {
        b
    }
}

/// v_med3 pseudo-code (ISA guide).
fn med3(w: W, a: u64, b: u64, c: u64) -> u64 {
    if w.is_nan(a) || w.is_nan(b) || w.is_nan(c) {
        return minmax(w, minmax(w, a, b, false), c, false);
    }
    let m = minmax(w, minmax(w, a, b, true), c, true);
    if w.val(m) == w.val(a) {
        minmax(w, b, c, true)
    } else if w.val(m) == w.val(b) {
        minmax(w, a, c, true)
    } else {
        minmax(w, a, b, true)
    }
}

fn round_int(w: W, x: u64, mode: RoundingMode) -> u64 {
    w.canon(match w {
        W::H => F16::from_bits(x as u16).round_to_integral(mode).to_bits() as u64,
        W::S => F32::from_bits(x as u32).round_to_integral(mode).to_bits() as u64,
        W::D => F64::from_bits(x).round_to_integral(mode).to_bits(),
    })
}

fn add(w: W, a: u64, b: u64) -> u64 {
    w.canon(match w {
        W::H => F16::from_bits(a as u16)
            .add(F16::from_bits(b as u16), RNE)
            .to_bits() as u64,
        W::S => F32::from_bits(a as u32)
            .add(F32::from_bits(b as u32), RNE)
            .to_bits() as u64,
        W::D => F64::from_bits(a).add(F64::from_bits(b), RNE).to_bits(),
    })
}

fn mul(w: W, a: u64, b: u64) -> u64 {
    w.canon(match w {
        W::H => F16::from_bits(a as u16)
            .mul(F16::from_bits(b as u16), RNE)
            .to_bits() as u64,
        W::S => F32::from_bits(a as u32)
            .mul(F32::from_bits(b as u32), RNE)
            .to_bits() as u64,
        W::D => F64::from_bits(a).mul(F64::from_bits(b), RNE).to_bits(),
    })
}

fn sub(w: W, a: u64, b: u64) -> u64 {
    w.canon(match w {
        W::H => F16::from_bits(a as u16)
            .sub(F16::from_bits(b as u16), RNE)
            .to_bits() as u64,
        W::S => F32::from_bits(a as u32)
            .sub(F32::from_bits(b as u32), RNE)
            .to_bits() as u64,
        W::D => F64::from_bits(a).sub(F64::from_bits(b), RNE).to_bits(),
    })
}

/// fract: min(x − floor(x), the largest float below 1) (LLVM's folding of llvm.amdgcn.fract).
fn fract(w: W, x: u64) -> u64 {
    let r = sub(w, x, round_int(w, x, RoundingMode::TowardNegative));
    if !w.is_nan(r) && r > w.one() - 1 {
        w.one() - 1
    } else {
        r
    }
}

/// frexp from its definition: x = m·2^e with 0.5 ≤ |m| < 1; ±0 → (±0, 0); ±inf → (±inf, 0); NaN → (NaN, 0).
fn frexp(w: W, x: u64) -> (u64, i32) {
    if w.is_nan(x) {
        return (w.qnan(), 0);
    }
    if w.abs(x) == 0 || w.abs(x) == w.inf() {
        return (x, 0);
    }
    let mut v = w.val(x).abs();
    let mut e = 0i32;
    while v >= 1.0 {
        v /= 2.0;
        e += 1;
    }
    while v < 0.5 {
        v *= 2.0;
        e -= 1;
    }
    let m = if x & w.sign() != 0 { -v } else { v };
    let bits = match w {
        W::H => F64::from_bits(m.to_bits()).to_f16(RNE).to_bits() as u64,
        W::S => F64::from_bits(m.to_bits()).to_f32(RNE).to_bits() as u64,
        W::D => m.to_bits(),
    };
    (bits, e)
}

/// ldexp through binary128: x·2^k is exact there for |k| ≤ 4096, then one rounding to the width.
fn ldexp(w: W, x: u64, k: i32) -> u64 {
    let k = k.clamp(-4096, 4096);
    let q = match w {
        W::H => F16::from_bits(x as u16).to_f128(RNE),
        W::S => F32::from_bits(x as u32).to_f128(RNE),
        W::D => F64::from_bits(x).to_f128(RNE),
    };
    let p = F128::from_bits(((16383 + k as i64) as u128) << 112);
    let r = q.mul(p, RNE);
    w.canon(match w {
        W::H => r.to_f16(RNE).to_bits() as u64,
        W::S => r.to_f32(RNE).to_bits() as u64,
        W::D => r.to_f64(RNE).to_bits(),
    })
}

/// ISA class numbering: 0 sNaN, 1 qNaN, 2 −inf, 3 −normal, 4 −subnormal, 5 −0, 6 +0, 7 +subnormal,
/// 8 +normal, 9 +inf.
fn class(w: W, x: u64, mask: u32) -> bool {
    let idx = if w.is_snan(x) {
        0
    } else if w.is_nan(x) {
        1
    } else {
        let neg = x & w.sign() != 0;
        let a = w.abs(x);
        let p = if a == 0 {
            6
        } else if a < (1u64 << w.man()) {
            7
        } else if a < w.inf() {
            8
        } else {
            9
        };
        if neg {
            11 - p
        } else {
            p
        }
    };
    mask >> idx & 1 != 0
}

// Spelt out on purpose: with a NaN operand `x < y || x > y` is not `x != y`, and `!(x >= y)` not `x < y`.
#[allow(clippy::neg_cmp_op_on_partial_ord, clippy::double_comparisons)]
fn compare(rel: &str, x: f64, y: f64) -> bool {
    let u = x.is_nan() || y.is_nan();
    match rel {
        "f" => false,
        "lt" => x < y,
        "eq" => x == y,
        "le" => x <= y,
        "gt" => x > y,
        "lg" => x < y || x > y,
        "ge" => x >= y,
        "o" => !u,
        "u" => u,
        "nge" => !(x >= y),
        "nlg" => !(x < y || x > y),
        "ngt" => !(x > y),
        "nle" => !(x <= y),
        "neq" => !(x == y),
        "nlt" => !(x < y),
        "tru" => true,
        _ => unreachable!("{rel}"),
    }
}

/// f32 → f16 rounded toward zero, derived from SoftFloat's nearest-even result: where that rounded
/// away from zero, the next half toward zero (the largest finite half instead of an overflow to inf).
fn rtz16(x: u32) -> u64 {
    let r = F32::from_bits(x).to_f16(RNE).to_bits() as u64;
    if W::S.is_nan(x as u64) {
        return Q16;
    }
    let exact = W::S.val(x as u64);
    if x & 0x7fff_ffff == 0x7f80_0000 {
        return r;
    }
    if W::H.val(r).abs() > exact.abs() {
        r - 1 // one step toward zero in magnitude (also inf → 0x7bff)
    } else {
        r
    }
}

/// VOP3P packed half ops: the low result from the halves op_sel picks, the high one from op_sel_hi's;
/// mods 2 is op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0] neg_hi:[0,1]; clamp per lane if the name says so.
fn packed(op: &str, c: &Case, v: &[u32; 8]) -> u64 {
    let (sel, sel_hi, neg_lo, neg_hi) = if c.mods == 2 {
        ([1, 0], [0, 1], [true, false], [false, true])
    } else {
        ([0, 0], [1, 1], [false, false], [false, false])
    };
    let half = |i: usize, hi: u32| ((v[i] >> (16 * hi)) & 0xffff) as u64;
    let mut out = 0u64;
    for (lane, (s, n)) in [(sel, neg_lo), (sel_hi, neg_hi)].into_iter().enumerate() {
        let mut x = [half(0, s[0]), half(1, s[1])];
        for i in 0..2 {
            if n[i] {
                x[i] = W::H.neg(x[i]);
            }
        }
        let h = |y: u64| F16::from_bits(y as u16);
        let r = match op {
            "add" => W::H.canon(h(x[0]).add(h(x[1]), RNE).to_bits() as u64),
            "mul" => W::H.canon(h(x[0]).mul(h(x[1]), RNE).to_bits() as u64),
            "min" => minmax(W::H, x[0], x[1], false),
            _ => minmax(W::H, x[0], x[1], true),
        };
        let r = if c.name.contains("clamp") {
            clamp(W::H, r)
        } else {
            r
        };
        out |= r << (16 * lane);
    }
    out
}

fn f32b(x: f32) -> u64 {
    x.to_bits() as u64
}

/// The expected result of case `c` on input `v` for a kernel of width `w`.
fn reference(w: W, c: &Case, v: &[u32; 8]) -> u64 {
    let wide = |lo: u32, hi: u32| lo as u64 | (hi as u64) << 32;
    let (mut a, mut b, cc) = match w {
        W::D => (wide(v[0], v[1]), wide(v[2], v[3]), 0),
        W::S => (v[0] as u64, v[1] as u64, v[2] as u64),
        W::H => (
            (v[0] & 0xffff) as u64,
            (v[1] & 0xffff) as u64,
            (v[2] & 0xffff) as u64,
        ),
    };
    let k = match w {
        W::D => v[4],
        _ => v[3],
    };
    let mask = v[5];
    if c.mods == 1 {
        a = w.neg(a);
        b = w.abs(b);
    }
    let r = c.reference;
    if let Some(op) = r.strip_prefix("pk_") {
        return packed(op, c, v);
    }
    if let Some(rel) = r.strip_prefix("cmp_") {
        let t = if rel == "class" {
            class(w, a, mask)
        } else {
            compare(rel, w.val(a), w.val(b))
        };
        return t as u64;
    }
    let res = match r {
        "add" => add(w, a, b),
        "mul" => mul(w, a, b),
        // D014's DX9 rule: a zero factor (either sign) makes the product +0, inf and NaN included.
        "mul_legacy" if W::S.abs(a) == 0 || W::S.abs(b) == 0 => 0,
        "mul_legacy" => mul(w, a, b),
        "cvt_f32_i32" => F32::from_i32(k as i32, RNE).to_bits() as u64,
        "cvt_f32_u32" => F32::from_u32(k, RNE).to_bits() as u64,
        "cvt_i32_f32" => return W::S.val(a) as i32 as u32 as u64,
        "cvt_u32_f32" => return W::S.val(a) as u32 as u64,
        // D012: v_rcp_f32 and v_sqrt_f32 are modelled as the correctly rounded 1/x and sqrt(x).
        "rcp" => F32::from_bits(0x3f80_0000)
            .div(F32::from_bits(a as u32), RNE)
            .to_bits() as u64,
        "sqrt" => F32::from_bits(a as u32).sqrt(RNE).to_bits() as u64,
        // mods 1: D = (c < −a) ? |b| : −a (the compare reads the unmodified a; the select's sources carry
        // the modifiers as bits).
        "cndmask" => {
            let orig_a = v[0] as u64;
            return if W::S.val(cc) < W::S.val(orig_a) {
                b
            } else {
                a
            };
        }
        "min" => minmax(w, a, b, false),
        "max" => minmax(w, a, b, true),
        "min3" => minmax(w, minmax(w, a, b, false), cc, false),
        "max3" => minmax(w, minmax(w, a, b, true), cc, true),
        "med3" => med3(w, a, b, cc),
        "ldexp" if w == W::H => ldexp(w, a, k as u16 as i16 as i32),
        "ldexp" => ldexp(w, a, k as i32),
        "frexp_mant" => frexp(w, a).0,
        "frexp_exp" => {
            let e = frexp(w, a).1 as u32 as u64;
            return if w == W::H { e & 0xffff } else { e };
        }
        "fract" => fract(w, a),
        "trunc" => round_int(w, a, RoundingMode::TowardZero),
        "ceil" => round_int(w, a, RoundingMode::TowardPositive),
        "floor" => round_int(w, a, RoundingMode::TowardNegative),
        "rndne" => round_int(w, a, RoundingMode::TiesToEven),
        "cvt_f64_f32" => F32::from_bits(v[6]).to_f64(RNE).to_bits(),
        "cvt_f64_i32" => F64::from_i32(k as i32, RNE).to_bits(),
        "cvt_f64_u32" => F64::from_u32(k, RNE).to_bits(),
        "cvt_f32_f64" => {
            let r = F64::from_bits(a).to_f32(RNE).to_bits() as u64;
            return W::S.canon(r);
        }
        // Rust's `as` casts truncate, saturate and map NaN to 0: the ISA's conversion rules.
        "cvt_i32_f64" => return f64::from_bits(a) as i32 as u32 as u64,
        "cvt_u32_f64" => return f64::from_bits(a) as u32 as u64,
        "cvt_flr" => {
            let fl = round_int(W::S, a, RoundingMode::TowardNegative);
            return f32::from_bits(fl as u32) as i32 as u32 as u64;
        }
        "cvt_rpi" => {
            let s = F32::from_bits(a as u32)
                .add(F32::from_bits(0x3f00_0000), RNE)
                .to_bits();
            let fl = round_int(W::S, s as u64, RoundingMode::TowardNegative);
            return f32::from_bits(fl as u32) as i32 as u32 as u64;
        }
        // v_fmac into a +0 accumulator (the case zeroes v8 first): fma(a, b, +0), one rounding.
        "fmac_zero" => W::H.canon(
            F16::from_bits(a as u16)
                .fused_mul_add(F16::from_bits(b as u16), F16::from_bits(0), RNE)
                .to_bits() as u64,
        ),
        "sub" => sub(w, a, b),
        "subrev" => sub(w, b, a),
        "cvt_f32_f16" => {
            let r = F16::from_bits(a as u16).to_f32(RNE).to_bits() as u64;
            return W::S.canon(r);
        }
        "cvt_f16_f32" => return W::H.canon(F32::from_bits(v[6]).to_f16(RNE).to_bits() as u64),
        "cvt_f16_u16" => return F16::from_u32(k & 0xffff, RNE).to_bits() as u64,
        "cvt_f16_i16" => return F16::from_i32(k as u16 as i16 as i32, RNE).to_bits() as u64,
        // Rust's saturating casts again (NaN → 0).
        "cvt_u16_f16" => return W::H.val(a) as u16 as u64,
        "cvt_i16_f16" => return W::H.val(a) as i16 as u16 as u64,
        "pkrtz" => return rtz16(v[6]) | rtz16(v[7]) << 16,
        "pack" => return a | b << 16,
        "ubyte0" => return f32b((k & 0xff) as f32),
        "ubyte1" => return f32b((k >> 8 & 0xff) as f32),
        "ubyte2" => return f32b((k >> 16 & 0xff) as f32),
        "ubyte3" => return f32b((k >> 24) as f32),
        other => unreachable!("reference {other}"),
    };
    let out_w = if r == "cvt_f64_f32" || r.starts_with("cvt_f64") {
        W::D
    } else {
        w
    };
    let res = out_w.canon(res);
    if c.name.contains("clamp") {
        clamp(out_w, res)
    } else {
        res
    }
}

// ---------------------------------------------------------------------------------------------------
// Operands.

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Boundary operands of a width (both signs).
fn boundary(w: W) -> Vec<u64> {
    let m = w.man() as u64;
    let bias = (1u64 << (w.bits() as u64 - 2 - m)) - 1; // exponent bias
    let e = |x: u64| x << m;
    let mut pos = vec![
        0,
        1,                          // min subnormal
        (1 << m) - 1,               // max subnormal
        1 << m,                     // min normal
        w.one(),                    // 1
        w.one() + 1,                // 1 + ulp
        w.one() - 1,                // 1 − ulp/2
        e(bias - 1),                // 0.5
        e(bias - 1) + 1,            // just above 0.5
        e(bias - 1) - 1,            // just below 0.5
        e(bias) | 1 << (m - 1),     // 1.5
        e(bias + 1) | 1 << (m - 2), // 2.5
        e(bias + 1) | 1 << (m - 1), // 3
        e(bias + m) - 1,            // largest non-integer
        e(bias + m),                // 2^man
        e(bias + m - 1) | 1,        // 2^(man-1) + 1 ... half-integers around the last fraction bit
        w.inf() - 1,                // max finite
        w.inf(),
        w.qnan(),
        w.inf() | 1, // sNaN
        w.qnan() | 0x15,
    ];
    if w == W::D {
        // Conversion limits: 2^31, 2^31 − 1, 2^32, 2^32 − 1 ± 0.5, f32 max and its rounding neighbours.
        for x in [
            2147483648.0f64,
            2147483647.0,
            2147483647.5,
            4294967296.0,
            4294967295.0,
            4294967295.5,
            3.4028234663852886e38,
            3.4028235677973366e38,
            1.1754942106924411e-38,
            1.401298464324817e-45,
            7.006492321624085e-46,
            7.006492321624087e-46,
        ] {
            pos.push(x.to_bits());
        }
    }
    if w == W::S {
        for x in [
            2147483648.0f32,
            2147483520.0,
            4294967040.0,
            0.49999997,
            8388607.5,
        ] {
            pos.push(x.to_bits() as u64);
        }
    }
    let mut all = pos.clone();
    all.extend(pos.iter().map(|x| x | w.sign()));
    all
}

fn random_float(w: W, r: &mut Rng) -> u64 {
    let m = w.man() as u64;
    let bias = (1u64 << (w.bits() as u64 - 2 - m)) - 1;
    let bits = r.next() & ((w.sign() << 1).wrapping_sub(1));
    match r.below(4) {
        0 => bits,
        // Exponents where rounding to an integer has work to do (|x| in [2^-3, 2^(man+1))).
        1 | 2 => {
            let ex = bias - 3 + r.below(m + 4);
            (bits & (w.sign() | ((1 << m) - 1))) | ex << m
        }
        // Halves and near-halves.
        _ => {
            let ex = bias + r.below(m);
            let fb = m - (ex - bias); // fraction bits, ≥ 1
            let low = (1u64 << fb) - 1;
            let x = (bits & w.sign()) | ex << m | (bits & ((1 << m) - 1) & !low) | 1 << (fb - 1);
            x.wrapping_add(r.below(3)).wrapping_sub(1) & ((w.sign() << 1).wrapping_sub(1))
        }
    }
}

fn random_k(w: W, r: &mut Rng) -> u32 {
    let span = if w == W::D { 2400 } else { 330 };
    match r.below(8) {
        0 => r.next() as u32,
        1 => [
            0,
            1,
            u32::MAX,
            0x7fff_ffff,
            0x8000_0000,
            1074,
            -1074i32 as u32,
            1075,
            -1075i32 as u32,
            149,
            -149i32 as u32,
            150,
            -150i32 as u32,
        ][r.below(13) as usize],
        _ => (r.below(2 * span) as i64 - span as i64) as i32 as u32,
    }
}

fn inputs(w: W, n: usize, seed: u64) -> Vec<[u32; 8]> {
    let mut r = Rng(seed);
    let bnd = boundary(w);
    let mut items = Vec::new();
    let split = |x: u64| [x as u32, (x >> 32) as u32];
    let pack = |w: W, a: u64, b: u64, c: u64, r: &mut Rng| -> [u32; 8] {
        let k = random_k(w, r);
        let m = r.next() as u32 & 0x3ff;
        let f = random_float(W::S, r) as u32;
        match w {
            W::D => {
                let (x, y) = (split(a), split(b));
                [x[0], x[1], y[0], y[1], k, m, f, 0]
            }
            W::S => [a as u32, b as u32, c as u32, k, 0, m, 0, 0],
            W::H => [
                // High halves: the packed ops' second lanes (ignored by the scalar half ops).
                a as u32 | (random_float(W::H, r) as u32) << 16,
                b as u32 | (random_float(W::H, r) as u32) << 16,
                c as u32,
                k,
                0,
                m,
                f,
                random_float(W::S, r) as u32,
            ],
        }
    };
    for &a in &bnd {
        for &b in &bnd {
            let c = bnd[r.below(bnd.len() as u64) as usize];
            items.push(pack(w, a, b, c, &mut r));
        }
    }
    // Every boundary value as the conversion / f32 operand too.
    if w != W::S {
        for (i, &x) in boundary(W::S).iter().enumerate() {
            items[i][6] = x as u32;
            items[i + 7][7] = x as u32;
        }
    }
    while items.len() < n.max(bnd.len() * bnd.len() + 4096) {
        let a = random_float(w, &mut r);
        let b = if r.below(4) == 0 {
            a ^ (r.below(4))
        } else {
            random_float(w, &mut r)
        };
        let c = random_float(w, &mut r);
        items.push(pack(w, a, b, c, &mut r));
    }
    // Multiple of the workgroup.
    while items.len() % WG as usize != 0 {
        let a = random_float(w, &mut r);
        let b = random_float(w, &mut r);
        items.push(pack(w, a, b, a, &mut r));
    }
    items
}

// ---------------------------------------------------------------------------------------------------

fn n_items() -> usize {
    std::env::var("RDNA2SPV_VFLOAT_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4096)
}

fn group_size() -> usize {
    std::env::var("RDNA2SPV_VFLOAT_GROUP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(32)
}

fn check(w: W, cases: &[Case], n: usize, seed: u64) {
    let ctx = lavapipe();
    let prof = probe(&ctx).expect("probe");
    let all = inputs(w, n, seed);
    let mut bad = Vec::new();
    let mut per_case = vec![0usize; cases.len()];
    // A few cases per kernel: lavapipe compiles each module at its first dispatch, and its compile time
    // grows faster than the module.
    let only = std::env::var("RDNA2SPV_VFLOAT_ONLY").unwrap_or_default();
    for (gi, group) in cases.chunks(group_size()).enumerate() {
        if !group.iter().any(|c| c.name.contains(only.as_str())) {
            continue;
        }
        let t0 = std::time::Instant::now();
        let p = kernel(group);
        // Chunks keep each dispatch's buffers moderate at benchmark sizes.
        for chunk in all.chunks(1 << 18) {
            let (host, dev) = run_both(&ctx, &prof, &p, chunk);
            for (i, v) in chunk.iter().enumerate() {
                for (ci, c) in group.iter().enumerate() {
                    let at = i * OUT + 2 * ci;
                    let get = |o: &[u32]| {
                        if c.wide {
                            o[at] as u64 | (o[at + 1] as u64) << 32
                        } else {
                            o[at] as u64
                        }
                    };
                    let want = reference(w, c, v);
                    let (h, d) = (get(&host), get(&dev));
                    if h != want || d != want {
                        per_case[gi * group_size() + ci] += 1;
                        if bad.len() < 20 {
                            bad.push(format!(
                                "{} ({}) input {:08x?}: reference {want:#x}, host {h:#x}, lavapipe {d:#x}",
                                c.name,
                                c.asm.iter().map(|a| a.0).collect::<Vec<_>>().join("; "),
                                v
                            ));
                        }
                    }
                }
            }
        }
        eprintln!(
            "{w:?} group {gi}: {} cases, {:.1} s",
            group.len(),
            t0.elapsed().as_secs_f64()
        );
    }
    let total: usize = per_case.iter().sum();
    let summary: Vec<String> = cases
        .iter()
        .zip(&per_case)
        .filter(|(_, &k)| k > 0)
        .map(|(c, k)| format!("{}: {k}", c.name))
        .collect();
    eprintln!(
        "{w:?}: {} cases × {} operands, {total} mismatching results",
        cases.len(),
        all.len()
    );
    assert!(
        total == 0,
        "{total} mismatches; per case {summary:?}; first:\n{}",
        bad.join("\n")
    );
}

#[test]
fn f64_ops_match_softfloat_on_host_and_lavapipe() {
    check(W::D, kernels::F64_CASES, n_items(), 0x64);
}

#[test]
fn f32_ops_match_softfloat_on_host_and_lavapipe() {
    check(W::S, kernels::F32_CASES, n_items(), 0x32);
}

#[test]
fn f16_ops_match_softfloat_on_host_and_lavapipe() {
    check(W::H, kernels::F16_CASES, n_items(), 0x16);
}

/// Benchmark size: at least 10^6 operands per op, one test per width (commands in the module docs).
#[test]
#[ignore = "benchmark: cargo test --release --test vfloat_ops -- --ignored --test-threads 1"]
fn f64_ops_at_benchmark_size() {
    check(W::D, kernels::F64_CASES, n_items().max(1_000_000), 0x640);
}

#[test]
#[ignore = "benchmark: cargo test --release --test vfloat_ops -- --ignored --test-threads 1"]
fn f32_ops_at_benchmark_size() {
    check(W::S, kernels::F32_CASES, n_items().max(1_000_000), 0x320);
}

#[test]
#[ignore = "benchmark: cargo test --release --test vfloat_ops -- --ignored --test-threads 1"]
fn f16_ops_at_benchmark_size() {
    check(W::H, kernels::F16_CASES, n_items().max(1_000_000), 0x160);
}

/// Hand-worked values (ISA text, arithmetic by hand) through the host evaluator alone.
#[test]
fn hand_worked_values() {
    let ctx_free = |w: W, c: &str, v: [u32; 8]| -> u64 {
        let cases = match w {
            W::D => kernels::F64_CASES,
            W::S => kernels::F32_CASES,
            W::H => kernels::F16_CASES,
        };
        let case = cases.iter().find(|k| k.name == c).unwrap();
        let p = kernel(std::slice::from_ref(case));
        let n = WG as usize;
        let input: Vec<u8> = (0..n)
            .flat_map(|_| v.iter().flat_map(|x| x.to_le_bytes()))
            .collect();
        let mut mem = Memory::default();
        mem.add("in", 0x1_0000_0000, input).unwrap();
        mem.add("out", 0x2_0000_0000, vec![0u8; 4 * OUT * n])
            .unwrap();
        rdna2spv_eval::run(&p, &launch(n, &[0x1_0000_0000, 0x2_0000_0000]), &mut mem).unwrap();
        let o = le(&mem.allocation("out").unwrap().data);
        let at = 0;
        if case.wide {
            o[at] as u64 | (o[at + 1] as u64) << 32
        } else {
            o[at] as u64
        }
    };
    let d = |x: f64| [x.to_bits() as u32, (x.to_bits() >> 32) as u32];
    let d2 = |x: f64, y: f64, k: u32| {
        let (a, b) = (d(x), d(y));
        [a[0], a[1], b[0], b[1], k, 0, 0, 0]
    };
    // floor(−2.5) = −3; rndne(2.5) = 2; rndne(3.5) = 4; ceil(−0.5) = −0; trunc(−1.75) = −1.
    assert_eq!(
        ctx_free(W::D, "floor_f64", d2(-2.5, 0.0, 0)),
        (-3.0f64).to_bits()
    );
    assert_eq!(
        ctx_free(W::D, "rndne_f64", d2(2.5, 0.0, 0)),
        2.0f64.to_bits()
    );
    assert_eq!(
        ctx_free(W::D, "rndne_f64", d2(3.5, 0.0, 0)),
        4.0f64.to_bits()
    );
    assert_eq!(
        ctx_free(W::D, "ceil_f64", d2(-0.5, 0.0, 0)),
        (-0.0f64).to_bits()
    );
    assert_eq!(
        ctx_free(W::D, "trunc_f64", d2(-1.75, 0.0, 0)),
        (-1.0f64).to_bits()
    );
    // fract(−2^-60) = 1 − 2^-60 rounds to 1.0 and is clipped to 0x3fefffffffffffff.
    assert_eq!(
        ctx_free(W::D, "fract_f64", d2(-(2f64.powi(-60)), 0.0, 0)),
        0x3fef_ffff_ffff_ffff
    );
    // fract(5.25) = 0.25.
    assert_eq!(
        ctx_free(W::D, "fract_f64", d2(5.25, 0.0, 0)),
        0.25f64.to_bits()
    );
    // frexp(12) = 0.75·2^4; frexp of the smallest subnormal 2^-1074 = 0.5·2^-1073.
    assert_eq!(
        ctx_free(W::D, "frexp_mant_f64", d2(12.0, 0.0, 0)),
        0.75f64.to_bits()
    );
    assert_eq!(ctx_free(W::D, "frexp_exp_f64", d2(12.0, 0.0, 0)), 4);
    assert_eq!(
        ctx_free(W::D, "frexp_exp_f64", [1, 0, 0, 0, 0, 0, 0, 0]),
        (-1073i32) as u32 as u64
    );
    // ldexp(1.5, −1074) = 1.5·2^-1074, a tie between 2^-1074 and 2^-1073: even → 2^-1073 (bits 2).
    assert_eq!(
        ctx_free(W::D, "ldexp_f64", d2(1.5, 0.0, -1074i32 as u32)),
        2
    );
    // ldexp(1.25, −1074) = 1.25·2^-1074 → 2^-1074 (bits 1); ldexp(1, 1024) = +inf.
    assert_eq!(
        ctx_free(W::D, "ldexp_f64", d2(1.25, 0.0, -1074i32 as u32)),
        1
    );
    assert_eq!(
        ctx_free(W::D, "ldexp_f64", d2(1.0, 0.0, 1024)),
        f64::INFINITY.to_bits()
    );
    // f64 → f32: 1 + 2^-24 is a tie → 1.0; 1 + 2^-24 + 2^-52 → 1 + 2^-23.
    let t = 1.0 + 2f64.powi(-24);
    assert_eq!(ctx_free(W::D, "cvt_f32_f64", d2(t, 0.0, 0)), 0x3f80_0000);
    assert_eq!(
        ctx_free(W::D, "cvt_f32_f64", d2(t + 2f64.powi(-52), 0.0, 0)),
        0x3f80_0001
    );
    // 2^-149·1.5 (f32 subnormal tie) → 2^-148 (bits 2).
    assert_eq!(
        ctx_free(W::D, "cvt_f32_f64", d2(1.5 * 2f64.powi(-149), 0.0, 0)),
        2
    );
    // f64 → i32: −2147483648.9 → INT_MIN (truncates to −2^31), 2^31 → INT_MAX, NaN → 0.
    assert_eq!(
        ctx_free(W::D, "cvt_i32_f64", d2(-2147483648.9, 0.0, 0)),
        0x8000_0000
    );
    assert_eq!(
        ctx_free(W::D, "cvt_i32_f64", d2(2147483648.0, 0.0, 0)),
        0x7fff_ffff
    );
    assert_eq!(ctx_free(W::D, "cvt_i32_f64", d2(f64::NAN, 0.0, 0)), 0);
    // max(−0, +0) = +0; min(sNaN, 1) = the default NaN; min(qNaN, 1) = 1.
    assert_eq!(ctx_free(W::D, "max_f64", d2(-0.0, 0.0, 0)), 0);
    let snan = [1, 0x7ff0_0000, 0, 0x3ff0_0000, 0, 0, 0, 0];
    assert_eq!(ctx_free(W::D, "min_f64", snan), Q64);
    let qnan = [0, 0x7ff8_0000, 0, 0x3ff0_0000, 0, 0, 0, 0];
    assert_eq!(ctx_free(W::D, "min_f64", qnan), 1.0f64.to_bits());
    // f32 med3(1, NaN, 3): a NaN operand gives min3 = min(min(1, NaN), 3) = 1.
    assert_eq!(
        ctx_free(
            W::S,
            "med3_f32",
            [0x3f80_0000, 0x7fc0_0000, 0x4040_0000, 0, 0, 0, 0, 0]
        ),
        0x3f80_0000
    );
    // f32 med3(3, 1, 2) = 2.
    assert_eq!(
        ctx_free(
            W::S,
            "med3_f32",
            [0x4040_0000, 0x3f80_0000, 0x4000_0000, 0, 0, 0, 0, 0]
        ),
        0x4000_0000
    );
    // cvt_rpi(0.49999997): 0.49999997 + 0.5 rounds to 1.0 in f32 → 1.
    assert_eq!(
        ctx_free(W::S, "cvt_rpi_i32_f32", [0x3eff_ffff, 0, 0, 0, 0, 0, 0, 0]),
        1
    );
    // f16 rndne(0.5) = 0, fract(−0.25) = 0.75 (0x3a00).
    assert_eq!(
        ctx_free(W::H, "rndne_f16", [0x3800, 0, 0, 0, 0, 0, 0, 0]),
        0
    );
    assert_eq!(
        ctx_free(W::H, "fract_f16", [0xb400, 0, 0, 0, 0, 0, 0, 0]),
        0x3a00
    );
}
