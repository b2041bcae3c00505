//! The vector ALU (VOP1, VOP2, VOPC, VOP3 incl. VOP3b; VOP3P goes on to lift/vop3p.rs): operand fields
//! normalised across encodings, VOP3 and SDWA modifiers, then one arm per operation or a hand-off to the
//! family files (valu16.rs, valu_int.rs, valu_misc.rs, vfloat.rs, f64div.rs). Whether a VOP3 row is VOP3b
//! (carry-out SGPR in bits 8..14) and whether a compare is a cmpx (writes EXEC only) are table facts
//! (`Encoding::is_vop3b`, `Opcode::is_cmpx`; D179). Also the source-modifier, clamp and compare-result
//! helpers the family files share.

use super::{madd_family, valu16, vfloat, LiftError, Lifter, Src};
use crate::{FloatOp, Handle, IntCmp, IntOp, Node, Ty, UnOp, EXEC_LO, VCC_LO};
use rdna2spv_isa::{CmpRel, Format, Opcode, Variant};

impl Lifter<'_> {
    /// VALU: VOP1, VOP2, VOPC, VOP3 (incl. VOP3b), VOP3P.
    pub(super) fn valu(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let f = self.ins.format();
        let (w0, w1) = (self.w(0), self.w(1));
        let op = self.ins.opcode();
        // Operand fields, normalised across encodings.
        let (s0, s1, s2, vdst, sdst) = match f {
            Format::VOP1 => (w0 & 0x1ff, 0, 0, ((w0 >> 17) & 0xff) as u16, VCC_LO),
            Format::VOP2 => (
                w0 & 0x1ff,
                256 + ((w0 >> 9) & 0xff),
                0,
                ((w0 >> 17) & 0xff) as u16,
                VCC_LO,
            ),
            Format::VOPC => (w0 & 0x1ff, 256 + ((w0 >> 9) & 0xff), 0, 0, VCC_LO),
            _ => (
                w1 & 0x1ff,
                (w1 >> 9) & 0x1ff,
                (w1 >> 18) & 0x1ff,
                (w0 & 0xff) as u16,
                ((w0 >> 8) & 0x7f) as u16,
            ),
        };
        // VOP3 source modifiers: abs then neg, on the f32 sources the row says take them (the table's
        // `+abs`/`+neg` masks, probed from LLVM); bits LLVM ignores (`+ignore`) are ignored here too.
        let mods = self.ins.encoding.mods;
        let (mut abs, mut neg) = (0u32, 0u32);
        let (mut vop3_clamp, mut vop3_opsel) = (false, 0u32);
        if f == Format::VOP3 {
            // VOP3b rows (the table's `sdst2` field, D179).
            let vop3b = self.ins.encoding.is_vop3b();
            let (ig0, ig1) = (mods.ignore[0], mods.ignore[1]);
            let clamp = w0 >> 15 & 1 & !(ig0 >> 15);
            // VOP3b forms hold the carry-out SGPR in bits 8..14 instead of abs/op_sel.
            let opsel = if vop3b { 0 } else { ((w0 & !ig0) >> 11) & 0xf };
            if !vop3b {
                abs = (w0 & !ig0) >> 8 & 7;
            }
            neg = (w1 & !ig1) >> 29;
            let omod = ((w1 & !ig1) >> 27) & 3;
            if madd_family(op) || vfloat::takes_clamp(op) || valu16::takes_int_mods(op) {
                // Multiply-add family (decision D013): clamp, op_sel (16-bit forms) are applied below;
                // omod is ignored, as the hardware ignores it when output denormals are enabled or the
                // IEEE mode bit is set — both on in the compute mode this project models.
                if opsel & !(mods.opsel as u32) != 0 {
                    return self.unsupported("op_sel bits this instruction does not have");
                }
                vop3_clamp = clamp != 0;
                vop3_opsel = opsel;
            } else if clamp != 0 || opsel != 0 || omod != 0 {
                return self.unsupported("VOP3 clamp/omod/op_sel modifiers are not lifted yet");
            }
            // Only float sources (those with an abs bit) take abs/neg as float modifiers.
            if (abs | neg) & !(mods.abs as u32) != 0 {
                return self.unsupported("integer neg modifiers are not lifted yet");
            }
        }
        if f == Format::VOP3P {
            return self.valu_packed();
        }
        // SDWA: selected sources, float abs/neg, clamp (lift/sdwa.rs; omod is refused in sdwa_check).
        let (s0, s1) = if self.ins.variant == Variant::Sdwa {
            let (a, b, sabs, sneg, sclamp) = self.sdwa_operands(f);
            (abs, neg) = (sabs, sneg);
            if sclamp {
                let int_clamp = matches!(op, V_ADD_NC_U32 | V_SUB_NC_U32 | V_SUBREV_NC_U32);
                if !(madd_family(op) || vfloat::takes_clamp(op) || int_clamp) {
                    return self.unsupported("SDWA clamp on this instruction is not lifted");
                }
                vop3_clamp = true;
            }
            (a, b)
        } else {
            (s0, s1)
        };
        let vcc = if f == Format::VOP3 { sdst } else { VCC_LO };
        let mt = self.mask_ty();
        let b32 = Src::B32;
        // `s!(encoding, position)`: a 32-bit source with its VOP3 modifiers (position 3: the literal K).
        macro_rules! s {
            ($e:expr, $i:expr) => {{
                let v = self.src($e, b32)?;
                self.modify(v, $i, abs, neg)
            }};
        }
        // 16-bit integer ops, integer clamp and more integer VOP3: lift/valu16.rs.
        if abs == 0 && neg == 0 && self.valu16(f, s0, s1, s2, vdst, vop3_opsel, vop3_clamp)? {
            return Ok(());
        }
        match op {
            V_MOV_B32 => {
                let a = s!(s0, 0);
                self.write_v(vdst, a);
            }
            V_READFIRSTLANE_B32 => {
                let a = s!(s0, 0);
                let r = self.n(Node::ReadFirstLane { a });
                // VOP1 form: the destination field names an SGPR.
                self.write_s(vdst, r);
            }
            V_ADD_NC_U32 | V_SUB_NC_U32 | V_SUBREV_NC_U32 | V_AND_B32 | V_OR_B32 | V_XOR_B32
            | V_MUL_LO_U32 | V_MUL_HI_U32 | V_MUL_HI_I32 | V_MIN_U32 | V_MAX_U32 | V_MIN_I32
            | V_MAX_I32 => {
                let (mut a, mut b) = (s!(s0, 0), s!(s1, 1));
                if op == V_SUBREV_NC_U32 {
                    std::mem::swap(&mut a, &mut b);
                }
                let iop = match op {
                    V_ADD_NC_U32 => IntOp::Add,
                    V_SUB_NC_U32 | V_SUBREV_NC_U32 => IntOp::Sub,
                    V_AND_B32 => IntOp::And,
                    V_OR_B32 => IntOp::Or,
                    V_XOR_B32 => IntOp::Xor,
                    V_MUL_LO_U32 => IntOp::Mul,
                    V_MUL_HI_U32 => IntOp::MulHiU,
                    V_MUL_HI_I32 => IntOp::MulHiI,
                    V_MIN_U32 => IntOp::MinU,
                    V_MAX_U32 => IntOp::MaxU,
                    V_MIN_I32 => IntOp::MinI,
                    _ => IntOp::MaxI,
                };
                let r = self.int(iop, Ty::B32, a, b);
                self.write_v(vdst, r);
            }
            V_MUL_U32_U24 | V_MUL_HI_U32_U24 | V_MUL_I32_I24 | V_MUL_HI_I32_I24 => {
                // The 24-bit multiplies: the low 24 bits of each source, zero- (U24) or sign-extended
                // (I24), multiplied; the low or high 32 bits of the 48-bit product.
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let signed = matches!(op, V_MUL_I32_I24 | V_MUL_HI_I32_I24);
                let mut ext = |x| {
                    if signed {
                        let k8 = self.k32(8);
                        let t = self.int(IntOp::Shl, Ty::B32, x, k8);
                        self.int(IntOp::AShr, Ty::B32, t, k8)
                    } else {
                        self.and32(x, 0xff_ffff)
                    }
                };
                let (a, b) = (ext(a), ext(b));
                let iop = match op {
                    V_MUL_U32_U24 | V_MUL_I32_I24 => IntOp::Mul,
                    V_MUL_HI_U32_U24 => IntOp::MulHiU,
                    _ => IntOp::MulHiI,
                };
                let r = self.int(iop, Ty::B32, a, b);
                self.write_v(vdst, r);
            }
            V_LSHLREV_B32 | V_LSHRREV_B32 | V_ASHRREV_I32 => {
                // D = S1 shifted by S0[4:0].
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let iop = match op {
                    V_LSHLREV_B32 => IntOp::Shl,
                    V_LSHRREV_B32 => IntOp::LShr,
                    _ => IntOp::AShr,
                };
                let r = self.int(iop, Ty::B32, b, a);
                self.write_v(vdst, r);
            }
            V_LSHLREV_B64 | V_LSHRREV_B64 | V_ASHRREV_I64
                if abs == 0 && neg == 0 && self.shift64_by_constant(op, s0, s1, vdst) => {}
            V_LSHRREV_B64 | V_ASHRREV_I64 => {
                // D = S1 (64 bits) shifted right by S0[5:0].
                let a = s!(s0, 0);
                let b = self.src(s1, Src::I64)?;
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let iop = if op == V_LSHRREV_B64 {
                    IntOp::LShr
                } else {
                    IntOp::AShr
                };
                let r = self.int(iop, Ty::B64, b, a64);
                self.write_v(vdst, r);
            }
            V_BFE_U32 | V_BFE_I32 => {
                // t = S0 >> S1[4:0] (logical); D = the low S2[4:0] bits of t, zero- (U32) or
                // sign-extended (I32); a width of 0 gives 0.
                let (a, b, c) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let off = self.and32(b, 31);
                let width = self.and32(c, 31);
                let t = self.int(IntOp::LShr, Ty::B32, a, off);
                let r = if op == V_BFE_U32 {
                    let one = self.k32(1);
                    let bit = self.int(IntOp::Shl, Ty::B32, one, width);
                    let mask = self.int(IntOp::Sub, Ty::B32, bit, one);
                    self.int(IntOp::And, Ty::B32, t, mask)
                } else {
                    let k32 = self.k32(32);
                    let up = self.int(IntOp::Sub, Ty::B32, k32, width);
                    let hi = self.int(IntOp::Shl, Ty::B32, t, up);
                    self.int(IntOp::AShr, Ty::B32, hi, up)
                };
                let z = self.k32(0);
                let wz = self.icmp(IntCmp::Eq, Ty::B32, width, z);
                let r = self.sel(wz, z, r);
                self.write_v(vdst, r);
            }
            V_BFREV_B32 => {
                // Bit reverse: swap halves, bytes, nibbles, pairs and bits.
                let mut x = s!(s0, 0);
                for (sh, m) in [
                    (16u32, 0x0000_ffffu32),
                    (8, 0x00ff_00ff),
                    (4, 0x0f0f_0f0f),
                    (2, 0x3333_3333),
                    (1, 0x5555_5555),
                ] {
                    let k = self.k32(sh);
                    let lo = self.and32(x, m);
                    let lo = self.int(IntOp::Shl, Ty::B32, lo, k);
                    let hi = self.int(IntOp::LShr, Ty::B32, x, k);
                    let hi = self.and32(hi, m);
                    x = self.int(IntOp::Or, Ty::B32, lo, hi);
                }
                self.write_v(vdst, x);
            }
            V_BFI_B32 => {
                // D = (S0 & S1) | (~S0 & S2).
                let (a, b, c) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let x = self.int(IntOp::And, Ty::B32, a, b);
                let na = self.un(UnOp::Not, Ty::B32, a);
                let y = self.int(IntOp::And, Ty::B32, na, c);
                let r = self.int(IntOp::Or, Ty::B32, x, y);
                self.write_v(vdst, r);
            }
            V_BCNT_U32_B32 => {
                // D = popcount(S0) + S1.
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let p = self.un(UnOp::Popcount, Ty::B32, a);
                let r = self.int(IntOp::Add, Ty::B32, p, b);
                self.write_v(vdst, r);
            }
            V_FFBH_U32 => {
                // The number of leading zeros; 0xffffffff for 0. Binary search over 16, 8, 4, 2, 1.
                let mut x = s!(s0, 0);
                let mut n = self.k32(0);
                for k in [16u32, 8, 4, 2, 1] {
                    let top = self.and32(x, !(u32::MAX >> k));
                    let z = self.k32(0);
                    let none = self.icmp(IntCmp::Eq, Ty::B32, top, z);
                    let kk = self.k32(k);
                    let n2 = self.int(IntOp::Add, Ty::B32, n, kk);
                    n = self.sel(none, n2, n);
                    let x2 = self.int(IntOp::Shl, Ty::B32, x, kk);
                    x = self.sel(none, x2, x);
                }
                let orig = s!(s0, 0);
                let z = self.k32(0);
                let zero = self.icmp(IntCmp::Eq, Ty::B32, orig, z);
                let all = self.k32(u32::MAX);
                let r = self.sel(zero, all, n);
                self.write_v(vdst, r);
            }
            V_LSHLREV_B64 => {
                let a = s!(s0, 0);
                let b = self.src(s1, Src::I64)?;
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let r = self.int(IntOp::Shl, Ty::B64, b, a64);
                self.write_v(vdst, r);
            }
            V_LSHL_OR_B32 | V_LSHL_ADD_U32 | V_ADD3_U32 | V_AND_OR_B32 | V_OR3_B32 | V_XOR3_B32
            | V_ADD_LSHL_U32 => {
                // D = (S0 f S1) g S2.
                let (a, b, c) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let (f, g) = match op {
                    V_LSHL_OR_B32 => (IntOp::Shl, IntOp::Or),
                    V_LSHL_ADD_U32 => (IntOp::Shl, IntOp::Add),
                    V_ADD_LSHL_U32 => (IntOp::Add, IntOp::Shl),
                    V_ADD3_U32 => (IntOp::Add, IntOp::Add),
                    V_AND_OR_B32 => (IntOp::And, IntOp::Or),
                    V_OR3_B32 => (IntOp::Or, IntOp::Or),
                    _ => (IntOp::Xor, IntOp::Xor),
                };
                let t = self.int(f, Ty::B32, a, b);
                let r = self.int(g, Ty::B32, t, c);
                self.write_v(vdst, r);
            }
            V_ADD_CO_U32 | V_SUB_CO_U32 | V_SUBREV_CO_U32 | V_ADD_CO_CI_U32 | V_SUB_CO_CI_U32
            | V_SUBREV_CO_CI_U32 => {
                let (mut a, mut b) = (s!(s0, 0), s!(s1, 1));
                if matches!(op, V_SUBREV_CO_U32 | V_SUBREV_CO_CI_U32) {
                    std::mem::swap(&mut a, &mut b);
                }
                let sub = !matches!(op, V_ADD_CO_U32 | V_ADD_CO_CI_U32);
                let iop = if sub { IntOp::Sub } else { IntOp::Add };
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let b64 = self.un(UnOp::ZExt, Ty::B64, b);
                let mut r = self.int(iop, Ty::B64, a64, b64);
                if matches!(op, V_ADD_CO_CI_U32 | V_SUB_CO_CI_U32 | V_SUBREV_CO_CI_U32) {
                    // Carry-in: VCC for the e32 form, the mask in src2 for e64.
                    let cin = if f == Format::VOP3 {
                        self.mask_src(s2)?
                    } else {
                        self.read_s(VCC_LO, mt)
                    };
                    let bit = self.lane_bit(cin);
                    let c64 = self.un(UnOp::ZExt, Ty::B64, bit);
                    r = self.int(iop, Ty::B64, r, c64);
                }
                let lo = self.n(Node::Extract {
                    ty: Ty::B32,
                    a: r,
                    shift: 0,
                });
                let carry = self.n(Node::Extract {
                    ty: Ty::B1,
                    a: r,
                    shift: 32,
                });
                let mask = self.ballot(carry);
                self.write_v(vdst, lo);
                self.write_s(vcc, mask);
            }
            V_MAD_U64_U32 => {
                // D (64) = S0 (u32) * S1 (u32) + S2 (u64); SDST = carry out of the 64-bit sum, per lane.
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let c = self.src(s2, Src::I64)?;
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let b64 = self.un(UnOp::ZExt, Ty::B64, b);
                let prod = self.int(IntOp::Mul, Ty::B64, a64, b64);
                let sum = self.int(IntOp::Add, Ty::B64, prod, c);
                let carry = self.icmp(IntCmp::LtU, Ty::B64, sum, c);
                let mask = self.ballot(carry);
                self.write_v(vdst, sum);
                self.write_s(sdst, mask);
            }
            V_CNDMASK_B32 => {
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let m = if f == Format::VOP3 {
                    self.mask_src(s2)?
                } else {
                    self.read_s(VCC_LO, mt)
                };
                let bit = self.lane_bit(m);
                let r = self.n(Node::Select {
                    cond: bit,
                    a: b,
                    b: a,
                });
                self.write_v(vdst, r);
            }
            V_MBCNT_LO_U32_B32 | V_MBCNT_HI_U32_B32 => {
                // D = popcount(S0 & lanes below this one, in the low or high 32 lanes) + S1.
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let lane = self.n(Node::LaneId);
                let one = self.c(Ty::B64, 1);
                let l64 = self.un(UnOp::ZExt, Ty::B64, lane);
                let bit = self.int(IntOp::Shl, Ty::B64, one, l64);
                let below = self.int(IntOp::Sub, Ty::B64, bit, one);
                let half = if op == V_MBCNT_LO_U32_B32 {
                    self.n(Node::Extract {
                        ty: Ty::B32,
                        a: below,
                        shift: 0,
                    })
                } else {
                    self.n(Node::Extract {
                        ty: Ty::B32,
                        a: below,
                        shift: 32,
                    })
                };
                // Lane 63's "below" mask is computed modulo 2^64 (1 << 63 - 1), which is right.
                let m = self.int(IntOp::And, Ty::B32, a, half);
                let cnt = self.un(UnOp::Popcount, Ty::B32, m);
                let r = self.int(IntOp::Add, Ty::B32, cnt, b);
                self.write_v(vdst, r);
            }
            V_CVT_F32_U32 | V_CVT_F32_I32 | V_CVT_U32_F32 | V_CVT_I32_F32 => {
                let a = s!(s0, 0);
                let u = match op {
                    V_CVT_F32_U32 => UnOp::U32ToF32,
                    V_CVT_F32_I32 => UnOp::I32ToF32,
                    V_CVT_U32_F32 => UnOp::F32ToU32,
                    _ => UnOp::F32ToI32,
                };
                let r = self.un(u, Ty::B32, a);
                self.write_v(vdst, r);
            }
            // V_MIN_F32/V_MAX_F32: lift/vfloat.rs (IEEE-mode signalling-NaN rule, D025).
            V_ADD_F32 | V_SUB_F32 | V_SUBREV_F32 | V_MUL_F32 => {
                let (mut a, mut b) = (s!(s0, 0), s!(s1, 1));
                if op == V_SUBREV_F32 {
                    std::mem::swap(&mut a, &mut b);
                }
                let fop = match op {
                    V_ADD_F32 => FloatOp::F32Add,
                    V_SUB_F32 | V_SUBREV_F32 => FloatOp::F32Sub,
                    _ => FloatOp::F32Mul,
                };
                let r = self.f32_arith(fop, a, b, a);
                self.write_v(vdst, r);
            }
            // Fused single precision: one rounding (Model::f32_fma, D993). Unfused (gfx1010/gfx1013):
            // product and sum each round, denormals flushed (legacy_multiply_add). The legacy forms add the
            // DX9 rule that 0 times anything (inf and NaN included) is +0 (decision D014).
            V_FMA_F32 | V_FMAC_F32 | V_FMAAK_F32 | V_FMAMK_F32 | V_MAD_F32 | V_MAC_F32
            | V_MADAK_F32 | V_MADMK_F32 | V_FMA_LEGACY_F32 | V_FMAC_LEGACY_F32
            | V_MAD_LEGACY_F32 | V_MAC_LEGACY_F32 => {
                let (a, b, c) = match op {
                    V_FMAC_F32 | V_MAC_F32 | V_FMAC_LEGACY_F32 | V_MAC_LEGACY_F32 => {
                        let d = self.n(Node::ReadVgpr {
                            reg: vdst,
                            ty: Ty::B32,
                        });
                        let d = self.flush_in32(d);
                        (s!(s0, 0), s!(s1, 1), d)
                    }
                    V_FMAAK_F32 | V_MADAK_F32 => (s!(s0, 0), s!(s1, 1), s!(255, 3)),
                    V_FMAMK_F32 | V_MADMK_F32 => (s!(s0, 0), s!(255, 3), s!(s1, 1)),
                    _ => (s!(s0, 0), s!(s1, 1), s!(s2, 2)),
                };
                let unfused = matches!(
                    op,
                    V_MAD_F32
                        | V_MAC_F32
                        | V_MADAK_F32
                        | V_MADMK_F32
                        | V_MAD_LEGACY_F32
                        | V_MAC_LEGACY_F32
                );
                let (a, b) = if matches!(
                    op,
                    V_FMA_LEGACY_F32 | V_FMAC_LEGACY_F32 | V_MAD_LEGACY_F32 | V_MAC_LEGACY_F32
                ) {
                    self.legacy_zero(a, b, unfused)
                } else {
                    (a, b)
                };
                let r = if unfused {
                    self.float(FloatOp::F32LegacyMad, a, b, c)
                } else {
                    self.f32_arith(FloatOp::F32Fma, a, b, c)
                };
                let r = self.clamp_if(vop3_clamp, Ty::B32, r);
                self.write_v(vdst, r);
            }
            V_MUL_LEGACY_F32 => {
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let (a, b) = self.legacy_zero(a, b, false);
                let r = self.float(FloatOp::F32Mul, a, b, a);
                let r = self.clamp_if(vop3_clamp, Ty::B32, r);
                self.write_v(vdst, r);
            }
            V_FMA_F64 => {
                let mut v = [self.c(Ty::B64, 0); 3];
                for (i, e) in [s0, s1, s2].into_iter().enumerate() {
                    let x = self.src(e, Src::F64)?;
                    v[i] = self.modify_ty(x, i as u32, abs, neg, Ty::B64);
                }
                let r = self.float(FloatOp::F64Fma, v[0], v[1], v[2]);
                let r = self.clamp_if(vop3_clamp, Ty::B64, r);
                self.write_v(vdst, r);
            }
            // Half add and multiply: one rounding to half (`FloatOp::F16Add`).
            V_ADD_F16 | V_MUL_F16 => {
                let h = Src::F16;
                let (a, b) = (self.src(s0, h)?, self.src(s1, h)?);
                let (a, b) = (self.lo16(a), self.lo16(b));
                // VOP3 / SDWA abs and neg (they were dropped here before).
                let a = self.modify_ty(a, 0, abs, neg, Ty::B16);
                let b = self.modify_ty(b, 1, abs, neg, Ty::B16);
                let fop = if op == V_ADD_F16 {
                    FloatOp::F16Add
                } else {
                    FloatOp::F16Mul
                };
                let r = self.float(fop, a, b, a);
                // The low half is written and the high half kept (gfx10, D096).
                let r32 = self.un(UnOp::ZExt, Ty::B32, r);
                self.write_half(vdst, r32);
            }
            // Fused half precision: one rounding to half (fused_to_half, D993). VOP3 op_sel bit i takes the
            // high half of source i; bit 3 writes the high half of the destination and keeps the low half.
            V_FMA_F16 | V_FMAC_F16 | V_FMAAK_F16 | V_FMAMK_F16 => {
                let h = Src::F16;
                let (ea, eb) = (self.src(s0, h)?, self.src(s1, h)?);
                let (ea, eb, ec) = match op {
                    V_FMAC_F16 => {
                        let d = self.n(Node::ReadVgpr {
                            reg: vdst,
                            ty: Ty::B32,
                        });
                        (ea, eb, d)
                    }
                    V_FMAAK_F16 => (ea, eb, self.src(255, h)?),
                    V_FMAMK_F16 => {
                        let k = self.src(255, h)?;
                        (ea, k, eb)
                    }
                    _ => (ea, eb, self.src(s2, h)?),
                };
                let mut v = [ea, eb, ec];
                for (i, x) in v.iter_mut().enumerate() {
                    let shift = if vop3_opsel >> i & 1 != 0 { 16 } else { 0 };
                    let half = self.n(Node::Extract {
                        ty: Ty::B16,
                        a: *x,
                        shift,
                    });
                    *x = self.modify_ty(half, i as u32, abs, neg, Ty::B16);
                }
                let r = self.float(FloatOp::F16FmaToHalf, v[0], v[1], v[2]);
                let r = self.clamp_if(vop3_clamp, Ty::B16, r);
                let r32 = self.un(UnOp::ZExt, Ty::B32, r);
                if vop3_opsel & 8 != 0 {
                    let old = self.n(Node::ReadVgpr {
                        reg: vdst,
                        ty: Ty::B32,
                    });
                    let r32 = self.flush_out16(r32);
                    let w = self.insert_half(old, r32, true);
                    self.write_v(vdst, w);
                } else {
                    // A 16-bit VALU result writes the low half and (gfx10) keeps the high half (D096).
                    self.write_half(vdst, r32);
                }
            }
            // V_PK_FMAC_F16 (VOP2): each 16-bit lane D.x = fma(S0.x, S1.x, D.x), rounded once to half.
            V_PK_FMAC_F16 => {
                let a = self.src(s0, Src::F16)?;
                let b = self.src(s1, Src::F16)?;
                let d = self.n(Node::ReadVgpr {
                    reg: vdst,
                    ty: Ty::B32,
                });
                let mut out = [a; 2];
                for (k, hi) in [false, true].into_iter().enumerate() {
                    let shift = if hi { 16 } else { 0 };
                    let mut v = [a, b, d];
                    for x in v.iter_mut() {
                        let h = self.n(Node::Extract {
                            ty: Ty::B16,
                            a: *x,
                            shift,
                        });
                        *x = self.flush_in16_64(h, Ty::B16);
                    }
                    let r = self.float(FloatOp::F16FmaToHalf, v[0], v[1], v[2]);
                    out[k] = self.un(UnOp::ZExt, Ty::B32, r);
                }
                let w = self.insert_half(out[0], out[1], true);
                self.write_v(vdst, w);
            }
            V_CMP_EQ_U32 | V_CMP_NE_U32 | V_CMP_GT_U32 | V_CMP_GE_U32 | V_CMP_LT_U32
            | V_CMP_LE_U32 | V_CMP_EQ_I32 | V_CMP_NE_I32 | V_CMP_GT_I32 | V_CMP_GE_I32
            | V_CMP_LT_I32 | V_CMP_LE_I32 | V_CMPX_EQ_U32 | V_CMPX_NE_U32 | V_CMPX_GT_U32
            | V_CMPX_GE_U32 | V_CMPX_LT_U32 | V_CMPX_LE_U32 | V_CMPX_EQ_I32 | V_CMPX_NE_I32
            | V_CMPX_GT_I32 | V_CMPX_GE_I32 | V_CMPX_LT_I32 | V_CMPX_LE_I32 => {
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                // Relation and signedness: the table's compare facts (D179).
                let Some(cmp) = op.compare().and_then(|c| int_cmp(c.rel, c.ty.is_signed())) else {
                    return self.unsupported("integer compare without a relation");
                };
                let c = self.icmp(cmp, Ty::B32, a, b);
                self.write_compare(c, op.is_cmpx(), f, vdst);
            }
            V_CMP_LT_F32 | V_CMP_EQ_F32 | V_CMP_LE_F32 | V_CMP_GT_F32 | V_CMP_LG_F32
            | V_CMP_GE_F32 | V_CMP_O_F32 | V_CMP_U_F32 | V_CMP_NGE_F32 | V_CMP_NLG_F32
            | V_CMP_NGT_F32 | V_CMP_NLE_F32 | V_CMP_NEQ_F32 | V_CMP_NLT_F32 | V_CMPX_LT_F32
            | V_CMPX_EQ_F32 | V_CMPX_LE_F32 | V_CMPX_GT_F32 | V_CMPX_LG_F32 | V_CMPX_GE_F32
            | V_CMPX_O_F32 | V_CMPX_U_F32 | V_CMPX_NGE_F32 | V_CMPX_NLG_F32 | V_CMPX_NGT_F32
            | V_CMPX_NLE_F32 | V_CMPX_NEQ_F32 | V_CMPX_NLT_F32 => {
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let Some(cmp) = op.compare().and_then(|c| vfloat::float_cmp(c.rel)) else {
                    return self.unsupported("float compare without a relation");
                };
                let c = self.n(Node::FloatCmp {
                    op: cmp,
                    ty: Ty::B32,
                    a,
                    b,
                });
                self.write_compare(c, op.is_cmpx(), f, vdst);
            }
            // Approximate hardware ops, modelled as the correctly rounded result (decision D012).
            V_RCP_F32 => {
                let a = s!(s0, 0);
                let one = self.c(Ty::B32, 0x3f80_0000);
                let r = self.float(FloatOp::F32Div, one, a, a);
                self.write_v(vdst, r);
            }
            V_SQRT_F32 => {
                let a = s!(s0, 0);
                let r = self.float(FloatOp::F32Sqrt, a, a, a);
                self.write_v(vdst, r);
            }
            // Transcendental approximations: deterministic compositions of exact primitives (decision
            // D017), identical on the host and every device; accuracy measured in tests/transcendental.rs.
            V_RCP_IFLAG_F32 => {
                // The same quotient as V_RCP_F32; "iflag" only changes which exception flag is raised.
                let a = s!(s0, 0);
                let one = self.c(Ty::B32, 0x3f80_0000);
                let r = self.float(FloatOp::F32Div, one, a, a);
                self.write_v(vdst, r);
            }
            V_RSQ_F32 | V_EXP_F32 | V_LOG_F32 | V_SIN_F32 | V_COS_F32 => {
                let a = s!(s0, 0);
                let r = self.transcendental_f32(op, a);
                self.write_v(vdst, r);
            }
            V_RCP_F16 | V_SQRT_F16 | V_RSQ_F16 | V_EXP_F16 | V_LOG_F16 | V_SIN_F16 | V_COS_F16 => {
                // Evaluated in f32 from the exact widening, then one rounding to half.
                let a = self.src(s0, Src::F16)?;
                let a = self.lo16(a);
                let a = self.modify_ty(a, 0, abs, neg, Ty::B16);
                let x = self.un(UnOp::F16ToF32, Ty::B32, a);
                let r = match op {
                    V_RCP_F16 => {
                        let one = self.c(Ty::B32, 0x3f80_0000);
                        self.float(FloatOp::F32Div, one, x, x)
                    }
                    V_SQRT_F16 => self.float(FloatOp::F32Sqrt, x, x, x),
                    V_RSQ_F16 => self.transcendental_f32(V_RSQ_F32, x),
                    V_EXP_F16 => self.transcendental_f32(V_EXP_F32, x),
                    V_LOG_F16 => self.transcendental_f32(V_LOG_F32, x),
                    V_SIN_F16 => self.transcendental_f32(V_SIN_F32, x),
                    _ => self.transcendental_f32(V_COS_F32, x),
                };
                let h = self.un(UnOp::F32ToF16, Ty::B16, r);
                let r32 = self.un(UnOp::ZExt, Ty::B32, h);
                self.write_half(vdst, r32);
            }
            V_DIV_SCALE_F32 => {
                let (x, den, num) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let (d, flag) = self.div_scale_f32(x, den, num);
                let mask = self.ballot(flag);
                self.write_v(vdst, d);
                self.write_s(vcc, mask);
            }
            V_DIV_FMAS_F32 => {
                let (a, b, c) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let m = self.read_s(VCC_LO, mt);
                let bit = self.lane_bit(m);
                let r = self.div_fmas_f32(bit, a, b, c);
                self.write_v(vdst, r);
            }
            V_DIV_FIXUP_F32 => {
                let (q, den, num) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let r = self.div_fixup_f32(q, den, num);
                self.write_v(vdst, r);
            }
            // Double-precision division family (lift/f64div.rs, decisions D066–D068).
            V_RCP_F64 | V_SQRT_F64 | V_RSQ_F64 => {
                let x = self.src(s0, Src::F64)?;
                let x = self.modify_ty(x, 0, abs, neg, Ty::B64);
                let r = match op {
                    V_RCP_F64 => self.rcp_f64(x),
                    V_SQRT_F64 => self.sqrt_f64(x),
                    _ => self.rsq_f64(x),
                };
                self.write_v(vdst, r);
            }
            V_DIV_SCALE_F64 | V_DIV_FMAS_F64 | V_DIV_FIXUP_F64 => {
                let mut v = [self.c(Ty::B64, 0); 3];
                for (i, e) in [s0, s1, s2].into_iter().enumerate() {
                    let x = self.src(e, Src::F64)?;
                    v[i] = self.modify_ty(x, i as u32, abs, neg, Ty::B64);
                }
                match op {
                    V_DIV_SCALE_F64 => {
                        let (d, flag) = self.div_scale_f64(v[0], v[1], v[2]);
                        let mask = self.ballot(flag);
                        self.write_v(vdst, d);
                        self.write_s(vcc, mask);
                    }
                    V_DIV_FMAS_F64 => {
                        let m = self.read_s(VCC_LO, mt);
                        let bit = self.lane_bit(m);
                        let r = self.div_fmas_f64(bit, v[0], v[1], v[2]);
                        self.write_v(vdst, r);
                    }
                    _ => {
                        let r = self.div_fixup_w(Ty::B64, v[0], v[1], v[2]);
                        self.write_v(vdst, r);
                    }
                }
            }
            V_DIV_FIXUP_F16 => {
                let mut v = [self.c(Ty::B16, 0); 3];
                for (i, e) in [s0, s1, s2].into_iter().enumerate() {
                    let x = self.src(e, Src::F16)?;
                    let x = self.lo16(x);
                    v[i] = self.modify_ty(x, i as u32, abs, neg, Ty::B16);
                }
                let r = self.div_fixup_w(Ty::B16, v[0], v[1], v[2]);
                // As the other f16 results without op_sel: the low half written, the high half kept (D096).
                let r32 = self.un(UnOp::ZExt, Ty::B32, r);
                self.write_half(vdst, r32);
            }
            V_CMP_CLASS_F32 | V_CMPX_CLASS_F32 => {
                let (x, m) = (s!(s0, 0), s!(s1, 1));
                let c = self.class_f32(x, m);
                self.write_compare(c, op == V_CMPX_CLASS_F32, f, vdst);
            }
            _ => {
                // More integer VALU: lift/valu_int.rs (integer forms take no VOP3 modifiers).
                if abs == 0 && neg == 0 && self.valu_int(f, s0, s1, s2, vdst)? {
                    return Ok(());
                }
                let o = vfloat::Ops {
                    f,
                    s0,
                    s1,
                    s2,
                    vdst,
                    opsel: vop3_opsel,
                    abs,
                    neg,
                    clamp: vop3_clamp,
                };
                // The remaining VOP1/VOP3 rows of issue 5: lift/valu_misc.rs (D094).
                if self.valu_misc(op, &o)? {
                    return Ok(());
                }
                if !self.valu_float(op, &o)? {
                    return self.unsupported("vector ALU instruction not lifted yet");
                }
            }
        }
        Ok(())
    }

    /// D229: a 64-bit shift (`V_LSHLREV_B64`, `V_LSHRREV_B64`, `V_ASHRREV_I64`) by a constant (inline or
    /// literal, low 6 bits) of a VGPR or SGPR pair, lifted as 32-bit operations on the two halves: the
    /// same bits, without packing the pair into a 64-bit value and splitting it again. Returns false
    /// (having emitted nothing) for any other operand shape, which the 64-bit lifting handles.
    fn shift64_by_constant(&mut self, op: Opcode, s0: u32, s1: u32, vdst: u16) -> bool {
        use Opcode::*;
        let k = match s0 {
            128..=192 => s0 - 128,
            255 => match self.ins.literal {
                Some(l) => l,
                None => return false,
            },
            _ => return false,
        } & 63;
        let (lo, hi) = match s1 {
            256..=511 => {
                let r = (s1 - 256) as u16;
                (
                    self.n(Node::ReadVgpr {
                        reg: r,
                        ty: Ty::B32,
                    }),
                    self.n(Node::ReadVgpr {
                        reg: r + 1,
                        ty: Ty::B32,
                    }),
                )
            }
            0..=104 if s1.is_multiple_of(2) => (
                self.read_s(s1 as u16, Ty::B32),
                self.read_s(s1 as u16 + 1, Ty::B32),
            ),
            _ => return false,
        };
        let sh = |l: &mut Self, op: IntOp, x: Handle<Node>, by: u32| {
            let c = l.k32(by);
            l.int(op, Ty::B32, x, c)
        };
        let (rlo, rhi) = match (op, k) {
            (_, 0) => (lo, hi),
            (V_LSHLREV_B64, 1..=31) => {
                let rlo = sh(self, IntOp::Shl, lo, k);
                let up = sh(self, IntOp::Shl, hi, k);
                let carried = sh(self, IntOp::LShr, lo, 32 - k);
                (rlo, self.int(IntOp::Or, Ty::B32, up, carried))
            }
            (V_LSHLREV_B64, _) => (self.k32(0), sh(self, IntOp::Shl, lo, k - 32)),
            (_, 1..=31) => {
                let down = sh(self, IntOp::LShr, lo, k);
                let carried = sh(self, IntOp::Shl, hi, 32 - k);
                let rlo = self.int(IntOp::Or, Ty::B32, down, carried);
                let hop = if op == V_LSHRREV_B64 {
                    IntOp::LShr
                } else {
                    IntOp::AShr
                };
                (rlo, sh(self, hop, hi, k))
            }
            (V_LSHRREV_B64, _) => (sh(self, IntOp::LShr, hi, k - 32), self.k32(0)),
            _ => (
                sh(self, IntOp::AShr, hi, k - 32),
                sh(self, IntOp::AShr, hi, 31),
            ),
        };
        self.write_v(vdst, rlo);
        self.write_v(vdst + 1, rhi);
        true
    }

    /// Applies VOP3 abs (first) and neg to a 32-bit float source at position `i` (0..=2; 3: the literal K,
    /// no modifiers), then the input flush of MODE.FP_DENORM f32 where the instruction has one (D166).
    pub(super) fn modify(&mut self, v: Handle<Node>, i: u32, abs: u32, neg: u32) -> Handle<Node> {
        let v = self.modify_unflushed(v, i, abs, neg);
        self.flush_in32(v)
    }

    pub(super) fn modify_unflushed(
        &mut self,
        v: Handle<Node>,
        i: u32,
        abs: u32,
        neg: u32,
    ) -> Handle<Node> {
        if i > 2 {
            return v;
        }
        let v = if abs >> i & 1 != 0 {
            self.un(UnOp::FAbs, Ty::B32, v)
        } else {
            v
        };
        if neg >> i & 1 != 0 {
            self.un(UnOp::FNeg, Ty::B32, v)
        } else {
            v
        }
    }

    /// Applies abs (first) then neg to a float source of type `ty` at position `i` (0..=2; 3: none), then
    /// for an f16 (B16) or f64 (B64) source the input flush of MODE.FP_DENORM f16/f64 where the instruction
    /// has one (D185).
    pub(super) fn modify_ty(
        &mut self,
        v: Handle<Node>,
        i: u32,
        abs: u32,
        neg: u32,
        ty: Ty,
    ) -> Handle<Node> {
        let v = if i <= 2 && abs >> i & 1 != 0 {
            self.un(UnOp::FAbs, ty, v)
        } else {
            v
        };
        let v = if i <= 2 && neg >> i & 1 != 0 {
            self.un(UnOp::FNeg, ty, v)
        } else {
            v
        };
        self.flush_in16_64(v, ty)
    }

    /// The DX9 legacy rule of V_MUL/FMA/MAD_LEGACY_F32: when either factor is zero, the product is +0 even
    /// if the other is an infinity or NaN. Returns the factors to multiply: both +0 in that case. With
    /// `flushed` (the unfused forms, which flush denormal inputs) a denormal factor counts as zero.
    pub(super) fn legacy_zero(
        &mut self,
        a: Handle<Node>,
        b: Handle<Node>,
        flushed: bool,
    ) -> (Handle<Node>, Handle<Node>) {
        let m = if flushed { 0x7f80_0000 } else { 0x7fff_ffff };
        let ma = self.and32(a, m);
        let za = self.eq32(ma, 0);
        let mb = self.and32(b, m);
        let zb = self.eq32(mb, 0);
        let z = self.or1(za, zb);
        let zero = self.k32(0);
        let a = self.sel(z, zero, a);
        let b = self.sel(z, zero, b);
        (a, b)
    }

    /// VOP3/VOP3P clamp (when `on`): the float result of type `ty` limited to [0, 1], NaN → +0 (the
    /// DX10_CLAMP mode of compute kernels), every negative value and −0 → +0. Integer logic only.
    pub(super) fn clamp_if(&mut self, on: bool, ty: Ty, x: Handle<Node>) -> Handle<Node> {
        if !on {
            return x;
        }
        if ty == Ty::B16 {
            // Half results: the same logic on the zero-extended bits.
            let w = self.un(UnOp::ZExt, Ty::B32, x);
            let c = self.clamp_bits(Ty::B32, w, 0x8000, 0x7c00, 0x3c00);
            return self.lo16(c);
        }
        let (sign, inf, one) = match ty {
            Ty::B16 => (0x8000u64, 0x7c00u64, 0x3c00u64),
            Ty::B64 => (1u64 << 63, 0x7ff0_0000_0000_0000, 0x3ff0_0000_0000_0000),
            _ => (0x8000_0000, 0x7f80_0000, 0x3f80_0000),
        };
        self.clamp_bits(ty, x, sign, inf, one)
    }

    pub(super) fn clamp_bits(
        &mut self,
        ty: Ty,
        x: Handle<Node>,
        sign: u64,
        inf: u64,
        one: u64,
    ) -> Handle<Node> {
        let k_abs = self.c(ty, sign - 1);
        let a = self.int(IntOp::And, ty, x, k_abs);
        let k_inf = self.c(ty, inf);
        let nan = self.icmp(IntCmp::GtU, ty, a, k_inf);
        let k_sign = self.c(ty, sign);
        let s = self.int(IntOp::And, ty, x, k_sign);
        let negative = self.nonzero(ty, s);
        let k_one = self.c(ty, one);
        let big = self.icmp(IntCmp::GeU, ty, x, k_one);
        let zero = self.c(ty, 0);
        let r = self.sel(big, k_one, x);
        let r = self.sel(negative, zero, r);
        self.sel(nan, zero, r)
    }

    /// `word` (B32) with its high (`hi`) or low half replaced by the low 16 bits of `half` (B32).
    pub(super) fn insert_half(
        &mut self,
        word: Handle<Node>,
        half: Handle<Node>,
        hi: bool,
    ) -> Handle<Node> {
        let k16 = self.k32(16);
        if hi {
            let keep = self.and32(word, 0xffff);
            let h = self.and32(half, 0xffff);
            let h = self.int(IntOp::Shl, Ty::B32, h, k16);
            self.int(IntOp::Or, Ty::B32, keep, h)
        } else {
            let keep = self.and32(word, 0xffff_0000);
            let h = self.and32(half, 0xffff);
            self.int(IntOp::Or, Ty::B32, keep, h)
        }
    }

    pub(super) fn lo16(&mut self, a: Handle<Node>) -> Handle<Node> {
        self.n(Node::Extract {
            ty: Ty::B16,
            a,
            shift: 0,
        })
    }

    /// VOPC results: v_cmp writes VCC (e32) or SDST (e64); v_cmpx writes EXEC only (gfx10).
    pub(super) fn write_compare(&mut self, c: Handle<Node>, cmpx: bool, f: Format, vdst: u16) {
        let m = self.ballot(c);
        if cmpx {
            self.write_s(EXEC_LO, m);
        } else if f == Format::VOP3 {
            self.write_s(vdst, m);
        } else if let Some(sdst) = self.sdwa_sdst() {
            self.write_s(sdst, m);
        } else {
            self.write_s(VCC_LO, m);
        }
    }
}

/// The integer compare of a VOPC relation (`None`: not an integer relation, or a constant one).
pub(super) fn int_cmp(rel: CmpRel, signed: bool) -> Option<IntCmp> {
    Some(match (rel, signed) {
        (CmpRel::Eq, _) => IntCmp::Eq,
        (CmpRel::Ne, _) => IntCmp::Ne,
        (CmpRel::Lt, false) => IntCmp::LtU,
        (CmpRel::Le, false) => IntCmp::LeU,
        (CmpRel::Gt, false) => IntCmp::GtU,
        (CmpRel::Ge, false) => IntCmp::GeU,
        (CmpRel::Lt, true) => IntCmp::LtI,
        (CmpRel::Le, true) => IntCmp::LeI,
        (CmpRel::Gt, true) => IntCmp::GtI,
        (CmpRel::Ge, true) => IntCmp::GeI,
        _ => return None,
    })
}
