//! The MODE register and the other hardware registers of s_getreg/s_setreg (decision D072, extends D026).
//!
//! MODE (hwreg 1; RDNA 2 ISA guide, "MODE register"): bits 1:0 FP_ROUND f32, 3:2 FP_ROUND f16/f64 (0 nearest
//! even, 1 +inf, 2 −inf, 3 zero), 5:4 FP_DENORM f32, 7:6 FP_DENORM f16/f64 (0 flush inputs and outputs,
//! 1 allow input denormals, 2 allow output denormals, 3 allow both), 8 DX10_CLAMP, 9 IEEE, 10 LOD_CLAMPED,
//! 18:12 the exception enables (traps), 23 FP16_OVFL, and others that do not change a compute result or
//! that trap. The float semantics the lifter emits implement one mode, [`MODELLED_MODE`] (nearest even,
//! denormals preserved, DX10 clamp and IEEE on, no traps) — the mode clang/hipcc kernels start in (D026).
//!
//! FP_DENORM f32 other than 3 is modelled (decision D166): each f32 instruction has a rule ([`f32_denorm_rule`])
//! saying whether the field governs its f32 inputs and its f32 result; where the mode flushes, the lifter
//! wraps those operands in `UnOp::Flush` (an exact integer step on every backend). An f32 instruction with no
//! rule is refused by name under a flushing mode. FP_DENORM f16/f64 is modelled the same way (decision D185,
//! [`f16_64_denorm_rule`]): f16 and f64 operands and results flush under bits 7:6 as f32 ones do under 5:4.
//! FP_ROUND other than nearest even, DX10_CLAMP or IEEE off and the exception enables are still refused
//! (D167).
//!
//! The lifter knows MODE statically: a forward data-flow pass over the decoded instructions ([`mode_map`])
//! carries its value bit by bit from the kernel's start through `s_setreg_imm32_b32` / `s_round_mode` /
//! `s_denorm_mode` (constant writes) along every CFG edge; a bit is unknown where paths disagree on it or
//! after an `s_setreg_b32` of it from an SGPR. `s_getreg_b32` of MODE reads the known value as a
//! constant. A float instruction (a VALU mnemonic naming _f16/_f32/_f64) where MODE is unknown or differs
//! from the modelled mode in a field that changes float results is refused, naming the field — so a
//! kernel may switch modes around integer-only code and switch back before its float code.
//!
//! Other hardware registers: FLAT_SCR_LO/HI (20/21) may be written (clang's flat-scratch set-up); the
//! translator places scratch itself (D010) and no lifted instruction reads them, so the write has no
//! effect; reading them back is refused. Every other hwreg is refused by name: STATUS, TRAPSTS, IB_STS hold
//! run-time state (SCC, EXECZ, trap status); HW_ID/HW_ID1/HW_ID2 name the hardware slot a wave landed on;
//! GPR_ALLOC/LDS_ALLOC depend on the hardware's allocation granularity; SHADER_CYCLES is a clock; none is
//! deterministic on a translated device.

use super::{LiftError, Lifter};
use crate::{Handle, Node, Ty, UnOp};
use rdna2spv_isa::{Instruction, Opcode};
use std::collections::BTreeMap;

/// MODE as the lifter's float semantics model it: FP_ROUND 0 (nearest even), FP_DENORM 0xf (denormals
/// allowed in and out for f32 and f16/f64), DX10_CLAMP and IEEE on, everything else 0.
pub const MODELLED_MODE: u32 = 0xf0 | 1 << 8 | 1 << 9;

/// MODE bits that change a float result or trap: FP_ROUND, FP_DENORM, DX10_CLAMP, IEEE, the exception
/// enables, FP16_OVFL. Bits outside (LOD_CLAMPED, debug/disable bits) may hold anything.
const RESULT_BITS: u32 = 0x3ff | 0x7f << 12 | 1 << 23;

const HW_REG_MODE: u32 = 1;
const HW_REG_FLAT_SCR_LO: u32 = 20;
const HW_REG_FLAT_SCR_HI: u32 = 21;

/// (id, offset, size) of a SOPK hwreg operand: simm16 = id[5:0] | offset[10:6] | (size − 1)[15:11].
fn hwreg(simm: u32) -> (u32, u32, u32) {
    (simm & 0x3f, simm >> 6 & 0x1f, (simm >> 11 & 0x1f) + 1)
}

fn field_mask(offset: u32, size: u32) -> u32 {
    let m = if size >= 32 {
        u32::MAX
    } else {
        (1 << size) - 1
    };
    m.checked_shl(offset).unwrap_or(0)
}

fn hwreg_name(id: u32) -> String {
    let name = match id {
        1 => "MODE",
        2 => "STATUS",
        3 => "TRAPSTS",
        4 => "HW_ID",
        5 => "GPR_ALLOC",
        6 => "LDS_ALLOC",
        7 => "IB_STS",
        15 => "SH_MEM_BASES",
        20 => "FLAT_SCR_LO",
        21 => "FLAT_SCR_HI",
        22 => "XNACK_MASK",
        23 => "HW_ID1",
        24 => "HW_ID2",
        25 => "POPS_PACKER",
        29 => "SHADER_CYCLES",
        _ => return format!("hwreg {id} (no register this translator knows)"),
    };
    name.to_string()
}

/// What the lifter knows of MODE at a point: the bits in `known` have the values in `value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Mode {
    pub value: u32,
    pub known: u32,
}

impl Mode {
    pub fn constant(value: u32) -> Mode {
        Mode {
            value,
            known: u32::MAX,
        }
    }
    /// The bits known on both paths with equal values.
    fn join(self, o: Mode) -> Mode {
        let known = self.known & o.known & !(self.value ^ o.value);
        Mode {
            value: self.value & known,
            known,
        }
    }
    fn set(self, mask: u32, bits: u32) -> Mode {
        Mode {
            value: self.value & !mask | bits & mask,
            known: self.known | mask,
        }
    }
    fn forget(self, mask: u32) -> Mode {
        Mode {
            value: self.value & !mask,
            known: self.known & !mask,
        }
    }
}

/// MODE after `ins` given MODE before it.
pub(super) fn mode_after(ins: &Instruction, before: Mode) -> Mode {
    let simm = ins.word(0) & 0xffff;
    match ins.opcode() {
        Opcode::S_SETREG_IMM32_B32 | Opcode::S_SETREG_B32 => {
            let (id, offset, size) = hwreg(simm);
            if id != HW_REG_MODE {
                return before;
            }
            let m = field_mask(offset, size);
            if ins.opcode() == Opcode::S_SETREG_B32 {
                return before.forget(m);
            }
            before.set(m, ins.word(1).checked_shl(offset).unwrap_or(0))
        }
        Opcode::S_ROUND_MODE => before.set(0xf, simm),
        Opcode::S_DENORM_MODE => before.set(0xf0, simm << 4),
        _ => before,
    }
}

/// MODE before every instruction of `insts`, from `initial` at `entry` along the edges `succ` gives.
/// The key is a program location (a byte offset, or an offset in an inlined call's context: lift/calls.rs).
pub(super) fn mode_map<K: Ord + Copy>(
    insts: &BTreeMap<K, Instruction>,
    entry: K,
    initial: u32,
    succ: impl Fn(K, &Instruction) -> Vec<K>,
) -> BTreeMap<K, Mode> {
    let mut at: BTreeMap<K, Mode> = BTreeMap::new();
    let mut work = vec![(entry, Mode::constant(initial))];
    while let Some((pc, m)) = work.pop() {
        let Some(ins) = insts.get(&pc) else { continue };
        let merged = match at.get(&pc) {
            None => m,
            Some(&old) => {
                let j = old.join(m);
                if j == old {
                    continue;
                }
                j
            }
        };
        at.insert(pc, merged);
        let out = mode_after(ins, merged);
        for s in succ(pc, ins) {
            work.push((s, out));
        }
    }
    at
}

/// MODE from the float fields of a kernel descriptor's COMPUTE_PGM_RSRC1 (LLVM AMDGPUUsage: FLOAT_ROUND_MODE_32,
/// _16_64, FLOAT_DENORM_MODE_32, _16_64, ENABLE_DX10_CLAMP, ENABLE_IEEE_MODE — the MODE fields the hardware loads
/// them into, same encodings).
pub fn mode_of_rsrc1(
    round32: u32,
    round16_64: u32,
    denorm32: u32,
    denorm16_64: u32,
    dx10_clamp: bool,
    ieee: bool,
) -> u32 {
    (round32 & 3)
        | (round16_64 & 3) << 2
        | (denorm32 & 3) << 4
        | (denorm16_64 & 3) << 6
        | u32::from(dx10_clamp) << 8
        | u32::from(ieee) << 9
}

/// Whether MODE.FP_DENORM f32 governs an f32 instruction's f32 inputs and its f32 result (D166), as
/// (inputs, output); `None`: an instruction that reads or writes f32 values whose flush rule is not modelled
/// (refused under a flushing mode). Sources: the RDNA 2 ISA guide's MODE description (the field controls
/// input and output denormals of float VALU operations) and LLVM's list of operations whose result is
/// already flushed ("canonicalized": add/sub/mul/fma, rcp/rsq/sqrt/log/exp/sin/cos, fract, ldexp,
/// frexp_mant, the conversions; and min/max/med3 on gfx9 and later, `supportsMinMaxDenormModes`).
/// Modelled choices, not measured on hardware (no GPU here; docs/numerics.md):
/// * comparisons flush their inputs (a denormal compares equal to 0), the class tests do not (they classify
///   the bits as given);
/// * float→int conversions flush their input (matters for v_cvt_flr_i32_f32 of −denormal: 0, not −1);
/// * the unfused legacy multiply-adds (V_MAD/MAC_LEGACY_F32, V_MAD/MAC/MADAK/MADMK_F32) flush in every mode
///   (legacy_multiply_add, D993): the mode changes nothing for them;
/// * conversions whose f32 side cannot be denormal (from i32/u32/ubyte/f16) need no flush;
/// * v_cubeid/sc/tc/ma_f32 flush their inputs like any float VALU operation (a denormal coordinate selects
///   and compares as 0) and their result (which, from flushed inputs, is never denormal: a face number, a
///   selected input or twice one) — D196; RADV's compute shaders run them flushed before cube sampling.
pub(super) fn f32_denorm_rule(op: Opcode) -> Option<(bool, bool)> {
    use Opcode::*;
    Some(match op {
        V_ADD_F32 | V_SUB_F32 | V_SUBREV_F32 | V_MUL_F32 | V_MUL_LEGACY_F32 | V_FMA_F32
        | V_FMAC_F32 | V_FMAAK_F32 | V_FMAMK_F32 | V_FMA_LEGACY_F32 | V_FMAC_LEGACY_F32
        | V_MIN_F32 | V_MAX_F32 | V_MIN3_F32 | V_MAX3_F32 | V_MED3_F32 | V_RCP_F32
        | V_RCP_IFLAG_F32 | V_SQRT_F32 | V_RSQ_F32 | V_EXP_F32 | V_LOG_F32 | V_SIN_F32
        | V_COS_F32 | V_FRACT_F32 | V_TRUNC_F32 | V_CEIL_F32 | V_FLOOR_F32 | V_RNDNE_F32
        | V_LDEXP_F32 | V_FREXP_MANT_F32 | V_CUBEID_F32 | V_CUBESC_F32 | V_CUBETC_F32
        | V_CUBEMA_F32 => (true, true),
        V_CVT_I32_F32 | V_CVT_U32_F32 | V_CVT_FLR_I32_F32 | V_CVT_RPI_I32_F32
        | V_FREXP_EXP_I32_F32 | V_CVT_F16_F32 | V_CVT_F64_F32 | V_CVT_PKRTZ_F16_F32 => {
            (true, false)
        }
        V_CVT_F32_F64 => (false, true),
        V_CVT_F32_I32 | V_CVT_F32_U32 | V_CVT_F32_UBYTE0 | V_CVT_F32_UBYTE1 | V_CVT_F32_UBYTE2
        | V_CVT_F32_UBYTE3 | V_CVT_F32_F16 | V_CMP_CLASS_F32 | V_CMPX_CLASS_F32 | V_MAD_F32
        | V_MAC_F32 | V_MADAK_F32 | V_MADMK_F32 | V_MAD_LEGACY_F32 | V_MAC_LEGACY_F32 => {
            (false, false)
        }
        _ => {
            let cmp = op
                .compare()
                .is_some_and(|c| c.ty == rdna2spv_isa::CmpType::F32);
            return cmp.then_some((true, false));
        }
    })
}

/// Which f16/f64 result MODE.FP_DENORM f16/f64 flushes (D185): none, an f64 (the whole 64-bit value written),
/// an f16 in one half of the destination (the half the instruction writes; the other half is kept), or two
/// f16 in the two halves of a 32-bit result (packed math, v_cvt_pkrtz_f16_f32).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Out16_64 {
    #[default]
    None,
    F64,
    F16,
    Packed16,
}

/// Whether MODE.FP_DENORM f16/f64 governs an instruction's f16/f64 inputs, and which result it flushes (D185);
/// `None`: an instruction that reads or writes f16/f64 values whose rule is not modelled (refused under a
/// flushing f16/f64 mode). The same sources and modelled choices as [`f32_denorm_rule`], for the other field
/// (the ISA guide: FP_DENORM bits 7:6 govern double and half precision): arithmetic, min/max/med3, ldexp,
/// frexp, rounding to an integer, square root and reciprocals flush inputs and result; comparisons and
/// float→int conversions flush their inputs; class tests flush nothing; conversions whose f16/f64 side cannot
/// be denormal (from f32 to f64, from 16/32-bit integers) need no flush; v_pack_b32_f16 moves its halves'
/// bits unchanged (LLVM selects it to pack any two halves; a modelled choice, not measured on hardware). Not
/// modelled (refused): the division helpers (v_div_scale/fmas/fixup), v_trig_preop_f64, the unfused
/// v_mad_f16, the mixed-precision v_fma_mix*/v_dot2*, the norm conversions and interpolation.
pub(super) fn f16_64_denorm_rule(op: Opcode) -> Option<(bool, Out16_64)> {
    use Opcode::*;
    use Out16_64 as O;
    Some(match op {
        V_ADD_F64 | V_MUL_F64 | V_FMA_F64 | V_MIN_F64 | V_MAX_F64 | V_LDEXP_F64 | V_FRACT_F64
        | V_TRUNC_F64 | V_CEIL_F64 | V_FLOOR_F64 | V_RNDNE_F64 | V_FREXP_MANT_F64 | V_SQRT_F64
        | V_RCP_F64 | V_RSQ_F64 => (true, O::F64),
        V_ADD_F16 | V_SUB_F16 | V_SUBREV_F16 | V_MUL_F16 | V_FMA_F16 | V_FMAC_F16 | V_FMAAK_F16
        | V_FMAMK_F16 | V_MIN_F16 | V_MAX_F16 | V_MIN3_F16 | V_MAX3_F16 | V_MED3_F16
        | V_LDEXP_F16 | V_FRACT_F16 | V_TRUNC_F16 | V_CEIL_F16 | V_FLOOR_F16 | V_RNDNE_F16
        | V_FREXP_MANT_F16 | V_SQRT_F16 | V_RCP_F16 | V_RSQ_F16 | V_EXP_F16 | V_LOG_F16
        | V_SIN_F16 | V_COS_F16 => (true, O::F16),
        V_PK_ADD_F16 | V_PK_MUL_F16 | V_PK_FMA_F16 | V_PK_FMAC_F16 | V_PK_MIN_F16
        | V_PK_MAX_F16 => (true, O::Packed16),
        V_CVT_F32_F64 | V_CVT_I32_F64 | V_CVT_U32_F64 | V_FREXP_EXP_I32_F64 | V_CVT_F32_F16
        | V_CVT_I16_F16 | V_CVT_U16_F16 | V_FREXP_EXP_I16_F16 => (true, O::None),
        V_CVT_F16_F32 => (false, O::F16),
        V_CVT_PKRTZ_F16_F32 => (false, O::Packed16),
        V_CVT_F64_F32 | V_CVT_F64_I32 | V_CVT_F64_U32 | V_CVT_F16_I16 | V_CVT_F16_U16
        | V_CMP_CLASS_F64 | V_CMPX_CLASS_F64 | V_CMP_CLASS_F16 | V_CMPX_CLASS_F16
        | V_PACK_B32_F16 => (false, O::None),
        _ => {
            let cmp = op.compare().is_some_and(|c| {
                matches!(
                    c.ty,
                    rdna2spv_isa::CmpType::F16 | rdna2spv_isa::CmpType::F64
                )
            });
            return cmp.then_some((true, O::None));
        }
    })
}

/// How MODE.FP_ROUND other than nearest even bears on an instruction (D186): `Some(true)` its one rounding is
/// directed by the field (f32 add/sub/mul/fma — the field FP_ROUND f32 — and v_cvt_f16_f32 — FP_ROUND f16/f64),
/// `Some(false)` its result is exact (comparisons, class tests, min/max/med3, rounding to an integer, fract,
/// frexp, float→int truncations, widening conversions, v_cvt_pkrtz_f16_f32's fixed rounding, v_pack_b32_f16),
/// so no field changes it; `None` the field would direct a rounding this translator does not model
/// (refused by name under a directed mode: the other f32/f16/f64 arithmetic, ldexp, int→float, narrowing
/// f64→f32, the square roots, reciprocals and transcendentals, the legacy multiply-adds, the division helpers,
/// the mixed-precision and packed f16 math). `f16_64` asks about the f16/f64 field, else the f32 field.
pub(super) fn round_rule(op: Opcode, f16_64: bool) -> Option<bool> {
    use Opcode::*;
    let exact = matches!(
        op,
        V_MIN_F32
            | V_MAX_F32
            | V_MIN3_F32
            | V_MAX3_F32
            | V_MED3_F32
            | V_MIN_F64
            | V_MAX_F64
            | V_MIN_F16
            | V_MAX_F16
            | V_MIN3_F16
            | V_MAX3_F16
            | V_MED3_F16
            | V_CVT_I32_F32
            | V_CVT_U32_F32
            | V_CVT_FLR_I32_F32
            | V_CVT_I32_F64
            | V_CVT_U32_F64
            | V_CVT_I16_F16
            | V_CVT_U16_F16
            | V_FRACT_F32
            | V_TRUNC_F32
            | V_CEIL_F32
            | V_FLOOR_F32
            | V_RNDNE_F32
            | V_FRACT_F64
            | V_TRUNC_F64
            | V_CEIL_F64
            | V_FLOOR_F64
            | V_RNDNE_F64
            | V_FRACT_F16
            | V_TRUNC_F16
            | V_CEIL_F16
            | V_FLOOR_F16
            | V_RNDNE_F16
            | V_FREXP_MANT_F32
            | V_FREXP_EXP_I32_F32
            | V_FREXP_MANT_F64
            | V_FREXP_EXP_I32_F64
            | V_FREXP_MANT_F16
            | V_FREXP_EXP_I16_F16
            | V_CVT_F64_F32
            | V_CVT_F32_F16
            | V_CVT_F64_I32
            | V_CVT_F64_U32
            | V_CVT_F32_UBYTE0
            | V_CVT_F32_UBYTE1
            | V_CVT_F32_UBYTE2
            | V_CVT_F32_UBYTE3
            | V_CVT_PKRTZ_F16_F32
            | V_PACK_B32_F16
    ) || op.compare().is_some_and(|c| {
        matches!(
            c.ty,
            rdna2spv_isa::CmpType::F16 | rdna2spv_isa::CmpType::F32 | rdna2spv_isa::CmpType::F64
        )
    });
    if exact {
        return Some(false);
    }
    let directed = if f16_64 {
        matches!(op, V_CVT_F16_F32)
    } else {
        matches!(
            op,
            V_ADD_F32
                | V_SUB_F32
                | V_SUBREV_F32
                | V_MUL_F32
                | V_FMA_F32
                | V_FMAC_F32
                | V_FMAAK_F32
                | V_FMAMK_F32
        )
    };
    // v_cvt_f16_f32's f32 side is exact; its rounding is the f16/f64 field's.
    if directed || (!f16_64 && op == V_CVT_F16_F32) {
        return Some(directed);
    }
    None
}

/// Whether an instruction reads or writes f16 or f64 values (and so FP_DENORM f16/f64 may change its result).
fn touches_f16_64(op: Opcode) -> bool {
    let name = op.name();
    name.starts_with("v_")
        && (name.contains("_f16")
            || name.contains("_f64")
            || name.contains("mix")
            || name.contains("dot")
            || name.contains("interp"))
}

/// Whether an instruction reads or writes f32 values (and so FP_DENORM f32 may change its result).
fn touches_f32(op: Opcode) -> bool {
    let name = op.name();
    name.starts_with("v_")
        && (name.contains("_f32") || name.contains("mix") || name.contains("dot"))
}

/// What one instruction flushes under MODE.FP_DENORM (D166, D185): its f32 inputs (every f32 source after
/// its abs/neg modifiers) and its f32 result (before DPP/SDWA write rules); its f16/f64 inputs (after their
/// modifiers) and which f16/f64 result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Flush {
    pub inputs: bool,
    pub output: bool,
    pub inputs16_64: bool,
    pub output16_64: Out16_64,
    /// FP_ROUND f32 for this instruction's one rounding where the field directs it (D186), else 0.
    pub round32: u32,
    /// FP_ROUND f16/f64 likewise (v_cvt_f16_f32's rounding to half).
    pub round16_64: u32,
}

/// The differences of `mode` from the modelled mode that change float results, as text; FP_DENORM and FP_ROUND
/// are left out (modelled per instruction: [`f32_denorm_rule`], [`f16_64_denorm_rule`], [`round_rule`]).
fn departures(mode: u32) -> Vec<String> {
    let diff = (mode ^ MODELLED_MODE) & RESULT_BITS & !0xff;
    let mut out = Vec::new();
    if diff & 1 << 8 != 0 {
        out.push("DX10_CLAMP = 0".into());
    }
    if diff & 1 << 9 != 0 {
        out.push("IEEE = 0".into());
    }
    if diff & 0x7f << 12 != 0 {
        out.push(format!(
            "exception enables = {:#x} (traps)",
            mode >> 12 & 0x7f
        ));
    }
    if diff & 1 << 23 != 0 {
        out.push("FP16_OVFL = 1".into());
    }
    out
}

impl Lifter<'_> {
    /// s_getreg_b32 / s_setreg_b32 / s_setreg_imm32_b32 / s_round_mode / s_denorm_mode; Ok(false) for any
    /// other opcode.
    pub(super) fn mode_op(&mut self) -> Result<bool, LiftError> {
        use Opcode::*;
        let op = self.ins.opcode();
        let simm = self.ins.word(0) & 0xffff;
        let (id, offset, size) = hwreg(simm);
        match op {
            S_GETREG_B32 => {
                if id != HW_REG_MODE {
                    return self.unsupported(&format!(
                        "s_getreg_b32 of {} is refused: only MODE reads deterministically on a translated \
                         device (D072)",
                        hwreg_name(id)
                    ));
                }
                let m = field_mask(offset, size);
                if self.mode.known & m != m {
                    return self.unsupported(
                        "this MODE field is not a constant here (set from an SGPR, or different on the \
                         paths that reach this instruction) (D072)",
                    );
                }
                let v = (self.mode.value & m) >> offset;
                let r = self.c(Ty::B32, v as u64);
                let sdst = (self.ins.word(0) >> 16 & 0x7f) as u16;
                self.write_s(sdst, r);
                Ok(true)
            }
            S_SETREG_B32 | S_SETREG_IMM32_B32 => match id {
                HW_REG_MODE if op == S_SETREG_IMM32_B32 => Ok(true),
                // Tracked by mode_map: MODE is unknown afterwards, refused at the next float instruction
                // or s_getreg of MODE.
                HW_REG_MODE => Ok(true),
                HW_REG_FLAT_SCR_LO | HW_REG_FLAT_SCR_HI => Ok(true),
                _ => self.unsupported(&format!(
                    "s_setreg of {} is refused: only MODE and FLAT_SCR_LO/HI are modelled (D072)",
                    hwreg_name(id)
                )),
            },
            // Tracked by mode_map.
            S_ROUND_MODE | S_DENORM_MODE => Ok(true),
            _ => Ok(false),
        }
    }

    /// Precise refusals for the scalar control instructions not lifted yet (calls whose target the decoder
    /// did not follow, sub-vector loops); Ok(()) for any other opcode.
    pub(super) fn refuse_scalar_control(&self) -> Result<(), LiftError> {
        use Opcode::*;
        match self.ins.opcode() {
            S_GETPC_B64 | S_SETPC_B64 | S_SWAPPC_B64 | S_CALL_B64 => self.unsupported(
                "function calls and indirect jumps (s_getpc/s_setpc/s_swappc/s_call) are not lifted: the \
                 target is a run-time address, and a callee outside the kernel's code range is not loaded",
            ),
            S_SUBVECTOR_LOOP_BEGIN | S_SUBVECTOR_LOOP_END => self.unsupported(
                "sub-vector loops (a wave64 run as two wave32 halves under hardware control) are not \
                 modelled",
            ),
            _ => Ok(()),
        }
    }

    /// Refuses a float instruction where MODE is not modelled (or not known); otherwise sets what the
    /// instruction flushes under FP_DENORM ([`Flush`], D166, D185).
    pub(super) fn check_float_mode(&mut self) -> Result<(), LiftError> {
        self.flush = Flush::default();
        let m = self.text.split_whitespace().next().unwrap_or("");
        let float = m.starts_with("v_") && ["_f16", "_f32", "_f64"].iter().any(|t| m.contains(t));
        if !float {
            return Ok(());
        }
        let Mode { value: mode, known } = self.mode;
        if known & RESULT_BITS != RESULT_BITS {
            return self.unsupported(
                "the float mode (MODE) is not a constant here: it was set from an SGPR or differs between \
                 the paths that reach this instruction (D072)",
            );
        }
        let bad = departures(mode);
        if !bad.is_empty() {
            return self.unsupported(&format!(
                "runs with MODE {mode:#x}, which this translator does not model ({}); modelled: every FP_ROUND \
                 and FP_DENORM value per instruction (D166, D185, D186), DX10_CLAMP and IEEE on (D072, D026, \
                 D167)",
                bad.join(", ")
            ));
        }
        let op = self.ins.opcode();
        let denorm = mode >> 4 & 3;
        if denorm != 3 && touches_f32(op) {
            let Some((inputs, output)) = f32_denorm_rule(op) else {
                return self.unsupported(&format!(
                    "runs with MODE.FP_DENORM f32 = {denorm} (f32 denormals flushed), and this instruction's \
                     flush rule is not modelled (D166: docs/numerics.md lists the instructions that are)"
                ));
            };
            self.flush.inputs = inputs && denorm & 1 == 0;
            self.flush.output = output && denorm & 2 == 0;
        }
        let round = ["nearest even", "toward +inf", "toward -inf", "toward zero"];
        for (f16_64, field, name) in [(false, mode & 3, "f32"), (true, mode >> 2 & 3, "f16/f64")] {
            let touches = if f16_64 {
                touches_f16_64(op)
            } else {
                touches_f32(op)
            };
            if field == 0 || !touches {
                continue;
            }
            match round_rule(op, f16_64) {
                None => {
                    return self.unsupported(&format!(
                        "runs with MODE.FP_ROUND {name} = {field} ({}), and this instruction's directed \
                         rounding is not modelled (D186: docs/numerics.md lists the instructions that are)",
                        round[field as usize]
                    ))
                }
                Some(true) if f16_64 => self.flush.round16_64 = field,
                Some(true) => self.flush.round32 = field,
                Some(false) => {}
            }
        }
        let denorm = mode >> 6 & 3;
        if denorm != 3 && touches_f16_64(op) {
            let Some((inputs, output)) = f16_64_denorm_rule(op) else {
                return self.unsupported(&format!(
                    "runs with MODE.FP_DENORM f16/f64 = {denorm} (f16/f64 denormals flushed), and this \
                     instruction's flush rule is not modelled (D185: docs/numerics.md lists the instructions \
                     that are)"
                ));
            };
            self.flush.inputs16_64 = inputs && denorm & 1 == 0;
            if denorm & 2 == 0 {
                self.flush.output16_64 = output;
            }
        }
        Ok(())
    }

    /// `v` (an f32 source after its modifiers) flushed when the instruction's mode says so (D166).
    pub(super) fn flush_in32(&mut self, v: Handle<Node>) -> Handle<Node> {
        if self.flush.inputs {
            self.un(UnOp::Flush, Ty::B32, v)
        } else {
            v
        }
    }

    /// `v` (an f16 source as a B16, or an f64 source as a B64, after its modifiers) flushed when the
    /// instruction's mode says so (D185).
    pub(super) fn flush_in16_64(&mut self, v: Handle<Node>, ty: Ty) -> Handle<Node> {
        if self.flush.inputs16_64 && matches!(ty, Ty::B16 | Ty::B64) {
            self.un(UnOp::Flush, ty, v)
        } else {
            v
        }
    }

    /// `v` (the instruction's 32- or 64-bit result as written to its VGPRs) with the result flushes of its
    /// mode: the f32 result (D166), an f64 result or the two halves of a packed f16 result (D185). A single
    /// f16 result is flushed before it is placed in its half ([`Lifter::flush_out16`]).
    pub(super) fn flush_out(&mut self, v: Handle<Node>) -> Handle<Node> {
        let v = if self.flush.output {
            self.un(UnOp::Flush, Ty::B32, v)
        } else {
            v
        };
        match self.flush.output16_64 {
            Out16_64::F64 => self.un(UnOp::Flush, Ty::B64, v),
            Out16_64::Packed16 => {
                let lo = self.n(Node::Extract {
                    ty: Ty::B16,
                    a: v,
                    shift: 0,
                });
                let hi = self.n(Node::Extract {
                    ty: Ty::B16,
                    a: v,
                    shift: 16,
                });
                let lo = self.un(UnOp::Flush, Ty::B16, lo);
                let hi = self.un(UnOp::Flush, Ty::B16, hi);
                let lo = self.un(UnOp::ZExt, Ty::B32, lo);
                let hi = self.un(UnOp::ZExt, Ty::B32, hi);
                self.insert_half(lo, hi, true)
            }
            _ => v,
        }
    }

    /// `r` (an f16 result in the low 16 bits of a B32) flushed when the instruction's mode flushes its f16
    /// result (D185); the high half of the value returned is zero.
    pub(super) fn flush_out16(&mut self, r: Handle<Node>) -> Handle<Node> {
        if self.flush.output16_64 != Out16_64::F16 {
            return r;
        }
        let h = self.n(Node::Extract {
            ty: Ty::B16,
            a: r,
            shift: 0,
        });
        let h = self.un(UnOp::Flush, Ty::B16, h);
        self.un(UnOp::ZExt, Ty::B32, h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hwreg_fields() {
        // hwreg(HW_REG_FLAT_SCR_LO) as clang writes it: id 20, offset 0, size 32 (simm16 0xf814).
        assert_eq!(hwreg(0xf814), (20, 0, 32));
        // hwreg(HW_REG_MODE, 4, 4): the two FP_DENORM fields.
        assert_eq!(hwreg(1 | 4 << 6 | 3 << 11), (1, 4, 4));
        assert_eq!(field_mask(4, 4), 0xf0);
        assert_eq!(field_mask(0, 32), u32::MAX);
    }

    #[test]
    fn departures_name_fields() {
        assert!(departures(MODELLED_MODE).is_empty());
        // LOD_CLAMPED (bit 10) does not change a compute result.
        assert!(departures(MODELLED_MODE | 1 << 10).is_empty());
        let d = departures(MODELLED_MODE & !0xc0 | 1 | 1 << 23 | 1 << 12);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].contains("exception enables") && d[1].contains("FP16_OVFL"));
        // FP_ROUND is modelled per instruction (D186), not a departure.
        assert!(departures(MODELLED_MODE | 0xf).is_empty());
        // FP_DENORM is modelled per instruction (f32: D166, f16/f64: D185), not a departure.
        assert!(departures(MODELLED_MODE & !0x30).is_empty());
        assert!(departures(MODELLED_MODE & !0xf0).is_empty());
    }
}
