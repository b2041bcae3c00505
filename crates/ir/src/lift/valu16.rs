//! 16-bit integer vector ALU instructions (VOP3 forms with op_sel), VOP3 integer clamp (saturating add and
//! subtract), and more integer VOP3 instructions (v_mad_i64_i32, v_add/sub_nc_i32, v_xnor_b32, …), composed
//! from existing IR primitives. Definitions from the AMD RDNA 2 ISA guide's VALU chapter; decision D063.
//!
//! - A 16-bit source is the low half of its operand, or the high half when its VOP3 op_sel bit is set;
//!   float inline constants give their f16 encodings (LLVM's i16 operand rule).
//! - A 16-bit result writes the low half of the destination (op_sel bit 3: the high half) and **keeps the
//!   other half**: gfx10 preserves the unused half of every 16-bit VALU result (LLVM's
//!   `GCNSubtarget::zeroesHigh16BitsOfDest` is false on gfx10 for exactly this reason).
//! - VOP3 clamp on integer add/subtract saturates to the result type's range (unsigned: [0, max]; signed:
//!   [min, max]) instead of wrapping. Clamp on the other integer ops is refused: its effect is not defined
//!   for them in the ISA guide.
//! - v_mad_i64_i32 / v_mad_u64_u32 write bit 64 of the exact 65-bit result to SDST (the ISA's
//!   `{D1, D0} = 65-bit S0 * S1 + S2`): for the unsigned form the carry out, for the signed form the sign of
//!   the exact sum.

use super::{LiftError, Lifter, Src};
use crate::{Handle, IntCmp, IntOp, Node, Ty, UnOp};
use rdna2spv_isa::{Format, Opcode};

/// The ops of this module whose VOP3 clamp and op_sel bits `valu` passes on (checked against the row's
/// op_sel mask there); this module refuses the combinations it does not model.
pub(super) fn takes_int_mods(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        V_ADD_NC_U16
            | V_SUB_NC_U16
            | V_ADD_NC_I16
            | V_SUB_NC_I16
            | V_MAX_U16
            | V_MAX_I16
            | V_MIN_U16
            | V_MIN_I16
            | V_MAD_U16
            | V_MAD_I16
            | V_MIN3_I16
            | V_MIN3_U16
            | V_MAX3_I16
            | V_MAX3_U16
            | V_MED3_I16
            | V_MED3_U16
            | V_MAD_U32_U16
            | V_MAD_I32_I16
            | V_ADD_NC_U32
            | V_SUB_NC_U32
            | V_SUBREV_NC_U32
            | V_ADD_NC_I32
            | V_SUB_NC_I32
    )
}

impl Lifter<'_> {
    /// Source `i` (encoding `enc`) of a 16-bit operation: the half op_sel picks, zero- or sign-extended
    /// to 32 bits.
    fn src16(
        &mut self,
        enc: u32,
        i: u32,
        opsel: u32,
        signed: bool,
    ) -> Result<Handle<Node>, LiftError> {
        let v = self.src(enc, Src::F16)?;
        let hi = opsel >> i & 1 != 0;
        Ok(self.ext16(v, hi, signed))
    }

    /// The low (or high) half of a B32, zero- or sign-extended to B32.
    pub(super) fn ext16(&mut self, v: Handle<Node>, hi: bool, signed: bool) -> Handle<Node> {
        let v = if hi {
            v
        } else {
            let k = self.k32(16);
            self.int(IntOp::Shl, Ty::B32, v, k)
        };
        let k = self.k32(16);
        let op = if signed { IntOp::AShr } else { IntOp::LShr };
        self.int(op, Ty::B32, v, k)
    }

    /// Writes the low 16 bits of `r` (B32) into the low half of `vdst` (op_sel bit 3: the high half),
    /// keeping the other half.
    fn write16(&mut self, vdst: u16, r: Handle<Node>, opsel: u32) {
        let old = self.n(Node::ReadVgpr {
            reg: vdst,
            ty: Ty::B32,
        });
        let w = self.insert_half(old, r, opsel & 8 != 0);
        self.write_v(vdst, w);
    }

    /// `x` (B32, an exact signed result) limited to [lo, hi] (as i32).
    fn clamp_i(&mut self, x: Handle<Node>, lo: i32, hi: i32) -> Handle<Node> {
        let l = self.k32(lo as u32);
        let h = self.k32(hi as u32);
        let t = self.int(IntOp::MaxI, Ty::B32, x, l);
        self.int(IntOp::MinI, Ty::B32, t, h)
    }

    /// Integer VALU instructions of this module; Ok(false) for any other opcode (or an unclamped 32-bit
    /// add/subtract, which `valu` lifts itself).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn valu16(
        &mut self,
        f: Format,
        s0: u32,
        s1: u32,
        s2: u32,
        vdst: u16,
        opsel: u32,
        clamp: bool,
    ) -> Result<bool, LiftError> {
        use Opcode::*;
        let op = self.ins.opcode();
        let clamps = matches!(
            op,
            V_ADD_NC_U16
                | V_SUB_NC_U16
                | V_ADD_NC_I16
                | V_SUB_NC_I16
                | V_ADD_NC_U32
                | V_SUB_NC_U32
                | V_SUBREV_NC_U32
                | V_ADD_NC_I32
                | V_SUB_NC_I32
        );
        if clamp && !clamps && takes_int_mods(op) {
            return self.unsupported("VOP3 clamp on this integer instruction is not modelled");
        }
        match op {
            V_ADD_NC_U16 | V_SUB_NC_U16 | V_ADD_NC_I16 | V_SUB_NC_I16 | V_MUL_LO_U16
            | V_MAX_U16 | V_MAX_I16 | V_MIN_U16 | V_MIN_I16 => {
                let signed = matches!(op, V_ADD_NC_I16 | V_SUB_NC_I16 | V_MAX_I16 | V_MIN_I16);
                let a = self.src16(s0, 0, opsel, signed)?;
                let b = self.src16(s1, 1, opsel, signed)?;
                let iop = match op {
                    V_ADD_NC_U16 | V_ADD_NC_I16 => IntOp::Add,
                    V_SUB_NC_U16 | V_SUB_NC_I16 => IntOp::Sub,
                    V_MUL_LO_U16 => IntOp::Mul,
                    V_MAX_U16 => IntOp::MaxU,
                    V_MIN_U16 => IntOp::MinU,
                    V_MAX_I16 => IntOp::MaxI,
                    _ => IntOp::MinI,
                };
                // Exact in 32 bits (sums of two 16-bit values, their low product bits).
                let r = self.int(iop, Ty::B32, a, b);
                let r = match (clamp, signed) {
                    (false, _) => r,
                    (true, false) => self.clamp_i(r, 0, 0xffff),
                    (true, true) => self.clamp_i(r, -0x8000, 0x7fff),
                };
                self.write16(vdst, r, opsel);
            }
            V_LSHLREV_B16 | V_LSHRREV_B16 | V_ASHRREV_I16 => {
                // D = S1 shifted by S0[3:0].
                let a = self.src16(s0, 0, opsel, false)?;
                let b = self.src16(s1, 1, opsel, op == V_ASHRREV_I16)?;
                let n = self.and32(a, 15);
                let iop = match op {
                    V_LSHLREV_B16 => IntOp::Shl,
                    V_LSHRREV_B16 => IntOp::LShr,
                    _ => IntOp::AShr,
                };
                let r = self.int(iop, Ty::B32, b, n);
                self.write16(vdst, r, opsel);
            }
            V_MAD_U16 | V_MAD_I16 => {
                // D.16 = S0 * S1 + S2, the low 16 bits.
                let signed = op == V_MAD_I16;
                let a = self.src16(s0, 0, opsel, signed)?;
                let b = self.src16(s1, 1, opsel, signed)?;
                let c = self.src16(s2, 2, opsel, signed)?;
                let p = self.int(IntOp::Mul, Ty::B32, a, b);
                let r = self.int(IntOp::Add, Ty::B32, p, c);
                self.write16(vdst, r, opsel);
            }
            V_MIN3_I16 | V_MIN3_U16 | V_MAX3_I16 | V_MAX3_U16 | V_MED3_I16 | V_MED3_U16 => {
                let signed = matches!(op, V_MIN3_I16 | V_MAX3_I16 | V_MED3_I16);
                let a = self.src16(s0, 0, opsel, signed)?;
                let b = self.src16(s1, 1, opsel, signed)?;
                let c = self.src16(s2, 2, opsel, signed)?;
                let (mn, mx) = if signed {
                    (IntOp::MinI, IntOp::MaxI)
                } else {
                    (IntOp::MinU, IntOp::MaxU)
                };
                let r = match op {
                    V_MIN3_I16 | V_MIN3_U16 => {
                        let t = self.int(mn, Ty::B32, a, b);
                        self.int(mn, Ty::B32, t, c)
                    }
                    V_MAX3_I16 | V_MAX3_U16 => {
                        let t = self.int(mx, Ty::B32, a, b);
                        self.int(mx, Ty::B32, t, c)
                    }
                    _ => {
                        // med3 = max(min(a, b), min(max(a, b), c)).
                        let lo = self.int(mn, Ty::B32, a, b);
                        let hi = self.int(mx, Ty::B32, a, b);
                        let t = self.int(mn, Ty::B32, hi, c);
                        self.int(mx, Ty::B32, lo, t)
                    }
                };
                self.write16(vdst, r, opsel);
            }
            V_MAD_U32_U16 | V_MAD_I32_I16 => {
                // D.32 = S0.16 * S1.16 + S2.32 (zero- or sign-extended halves).
                if opsel & 0xc != 0 {
                    return self
                        .unsupported("op_sel on a 32-bit operand or result is not modelled");
                }
                let signed = op == V_MAD_I32_I16;
                let a = self.src16(s0, 0, opsel, signed)?;
                let b = self.src16(s1, 1, opsel, signed)?;
                let c = self.src(s2, Src::B32)?;
                let p = self.int(IntOp::Mul, Ty::B32, a, b);
                let r = self.int(IntOp::Add, Ty::B32, p, c);
                self.write_v(vdst, r);
            }
            V_ADD_NC_U32 | V_SUB_NC_U32 | V_SUBREV_NC_U32 | V_ADD_NC_I32 | V_SUB_NC_I32 => {
                if !clamp && matches!(op, V_ADD_NC_U32 | V_SUB_NC_U32 | V_SUBREV_NC_U32) {
                    return Ok(false);
                }
                let (mut a, mut b) = (self.src(s0, Src::B32)?, self.src(s1, Src::B32)?);
                if op == V_SUBREV_NC_U32 {
                    std::mem::swap(&mut a, &mut b);
                }
                let sub = op != V_ADD_NC_U32 && op != V_ADD_NC_I32;
                let signed = matches!(op, V_ADD_NC_I32 | V_SUB_NC_I32);
                let iop = if sub { IntOp::Sub } else { IntOp::Add };
                let r = if clamp {
                    // The exact result in 64 bits, limited to the 32-bit range.
                    let ext = if signed { UnOp::SExt } else { UnOp::ZExt };
                    let a64 = self.un(ext, Ty::B64, a);
                    let b64 = self.un(ext, Ty::B64, b);
                    let x = self.int(iop, Ty::B64, a64, b64);
                    let (lo, hi) = if signed {
                        (i32::MIN as i64 as u64, i32::MAX as u64)
                    } else {
                        (0, u32::MAX as u64)
                    };
                    let lo = self.c(Ty::B64, lo);
                    let hi = self.c(Ty::B64, hi);
                    let t = self.int(IntOp::MaxI, Ty::B64, x, lo);
                    let t = self.int(IntOp::MinI, Ty::B64, t, hi);
                    self.n(Node::Extract {
                        ty: Ty::B32,
                        a: t,
                        shift: 0,
                    })
                } else {
                    self.int(iop, Ty::B32, a, b)
                };
                self.write_v(vdst, r);
            }
            V_MAD_I64_I32 => {
                // {SDST bit, D.64} = 65-bit sext(S0.i32) * sext(S1.i32) + sext(S2.i64).
                let sdst = ((self.w(0) >> 8) & 0x7f) as u16;
                let (a, b) = (self.src(s0, Src::B32)?, self.src(s1, Src::B32)?);
                let c = self.src(s2, Src::I64)?;
                let a64 = self.un(UnOp::SExt, Ty::B64, a);
                let b64 = self.un(UnOp::SExt, Ty::B64, b);
                let p = self.int(IntOp::Mul, Ty::B64, a64, b64);
                let sum = self.int(IntOp::Add, Ty::B64, p, c);
                // Bit 64 of the 65-bit sum: sign(p) ^ sign(c) ^ carry out of the 64-bit add.
                let carry = self.icmp(IntCmp::LtU, Ty::B64, sum, c);
                let t = self.int(IntOp::Xor, Ty::B64, p, c);
                let sp = self.n(Node::Extract {
                    ty: Ty::B1,
                    a: t,
                    shift: 63,
                });
                let bit = self.int(IntOp::Xor, Ty::B1, sp, carry);
                let mask = self.ballot(bit);
                self.write_v(vdst, sum);
                self.write_s(sdst, mask);
            }
            V_XNOR_B32 => {
                let (a, b) = (self.src(s0, Src::B32)?, self.src(s1, Src::B32)?);
                let x = self.int(IntOp::Xor, Ty::B32, a, b);
                let r = self.un(UnOp::Not, Ty::B32, x);
                self.write_v(vdst, r);
            }
            V_DOT4C_I32_I8 => {
                // VOP2: D = D + the dot product of the four signed bytes of S0 and S1.
                let (a, b) = (self.src(s0, Src::B32)?, self.src(s1, Src::B32)?);
                let d = self.n(Node::ReadVgpr {
                    reg: vdst,
                    ty: Ty::B32,
                });
                let acc = self.dot_sum(a, b, 4, true);
                let r = self.int(IntOp::Add, Ty::B32, acc, d);
                self.write_v(vdst, r);
            }
            V_SAT_PK_U8_I16 => {
                // D = {16'0, sat_u8(S0[31:16].i16), sat_u8(S0[15:0].i16)}.
                let a = self.src(s0, Src::B32)?;
                let lo = self.ext16(a, false, true);
                let hi = self.ext16(a, true, true);
                let lo = self.clamp_i(lo, 0, 255);
                let hi = self.clamp_i(hi, 0, 255);
                let k8 = self.k32(8);
                let hi = self.int(IntOp::Shl, Ty::B32, hi, k8);
                let r = self.int(IntOp::Or, Ty::B32, lo, hi);
                self.write_v(vdst, r);
            }
            V_CVT_PK_U16_U32 | V_CVT_PK_I16_I32 => {
                // D = {sat16(S1), sat16(S0)}: each source saturated to the 16-bit range (unsigned, or
                // signed for i16). The ISA guide gives no more than the name; the saturation is Mesa NIR's
                // pack_uint_2x16 / pack_sint_2x16 ("clamp is applied"), which ACO emits as these.
                let (a, b) = (self.src(s0, Src::B32)?, self.src(s1, Src::B32)?);
                let mut h = [a, b];
                for x in h.iter_mut() {
                    *x = if op == V_CVT_PK_U16_U32 {
                        let m = self.k32(0xffff);
                        self.int(IntOp::MinU, Ty::B32, *x, m)
                    } else {
                        self.clamp_i(*x, -0x8000, 0x7fff)
                    };
                }
                let r = self.insert_half(h[0], h[1], true);
                self.write_v(vdst, r);
            }
            V_MSAD_U8 => {
                // Masked SAD: S2 + the sum over bytes i with S0.byte[i] != 0 of |S0.byte[i] - S1.byte[i]|
                // (the reference S0 masks; Mesa NIR's msad_4x8, "equivalent to AMD's v_msad_u8").
                let (a, b, c) = (
                    self.src(s0, Src::B32)?,
                    self.src(s1, Src::B32)?,
                    self.src(s2, Src::B32)?,
                );
                let mut acc = c;
                for i in 0..4 {
                    let sh = self.k32(8 * i);
                    let ai = self.int(IntOp::LShr, Ty::B32, a, sh);
                    let ai = self.and32(ai, 0xff);
                    let bi = self.int(IntOp::LShr, Ty::B32, b, sh);
                    let bi = self.and32(bi, 0xff);
                    let hi = self.int(IntOp::MaxU, Ty::B32, ai, bi);
                    let lo = self.int(IntOp::MinU, Ty::B32, ai, bi);
                    let d = self.int(IntOp::Sub, Ty::B32, hi, lo);
                    let z = self.k32(0);
                    let on = self.icmp(IntCmp::Ne, Ty::B32, ai, z);
                    let d = self.sel(on, d, z);
                    acc = self.int(IntOp::Add, Ty::B32, acc, d);
                }
                self.write_v(vdst, acc);
            }
            V_MUL_LO_I32 => {
                // The low 32 bits of the product are the same for signed and unsigned operands.
                let (a, b) = (self.src(s0, Src::B32)?, self.src(s1, Src::B32)?);
                let r = self.int(IntOp::Mul, Ty::B32, a, b);
                self.write_v(vdst, r);
            }
            V_NOP | V_PIPEFLUSH | V_CLREXCP => {
                // No architectural effect in the model: v_nop does nothing; v_pipeflush orders the
                // pipeline (the IR executes in order); v_clrexcp clears exception flags (not modelled:
                // no instruction reads them).
            }
            V_SWAP_B32 => {
                // VOP1: D and S0 (both VGPRs) exchange values; both reads happen before the writes.
                if f != Format::VOP1 && f != Format::VOP3 {
                    return Ok(false);
                }
                if !(256..512).contains(&s0) {
                    return self.unsupported("v_swap_b32 source must be a VGPR");
                }
                let d = self.n(Node::ReadVgpr {
                    reg: vdst,
                    ty: Ty::B32,
                });
                let s = self.n(Node::ReadVgpr {
                    reg: (s0 - 256) as u16,
                    ty: Ty::B32,
                });
                self.write_v(vdst, s);
                self.write_v((s0 - 256) as u16, d);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A lane-mask operand (v_cndmask_b32_e64, the e64 carry-in forms): an SGPR (pair), VCC, EXEC or a
    /// constant. A VGPR there is not a lane mask (LLVM prints it as an invalid register): refused.
    pub(super) fn mask_src(&mut self, enc: u32) -> Result<Handle<Node>, LiftError> {
        if (256..512).contains(&enc) {
            return self
                .unsupported("the lane-mask operand must be a scalar register or a constant");
        }
        let class = if self.ws == 64 { Src::I64 } else { Src::B32 };
        self.src(enc, class)
    }

    /// VOP3P packed 16-bit integer ops and the integer dot products; Ok(false) for any other opcode.
    /// Lane 0 (low half) of each source is the half op_sel picks, lane 1 the half op_sel_hi picks. Clamp
    /// saturates the packed add/subtract; integer neg bits, other clamps and dot-product op_sel are refused.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn valu_packed_int(
        &mut self,
        op: Opcode,
        srcs: [u32; 3],
        vdst: u16,
        op_sel: u32,
        op_sel_hi: u32,
        neg: [u32; 2],
        clamp: bool,
    ) -> Result<bool, LiftError> {
        use Opcode::*;
        let nsrc = match op {
            V_PK_MAD_I16 | V_PK_MAD_U16 => 3,
            V_PK_MUL_LO_U16 | V_PK_ADD_I16 | V_PK_SUB_I16 | V_PK_LSHLREV_B16 | V_PK_LSHRREV_B16
            | V_PK_ASHRREV_I16 | V_PK_MAX_I16 | V_PK_MIN_I16 | V_PK_ADD_U16 | V_PK_SUB_U16
            | V_PK_MAX_U16 | V_PK_MIN_U16 => 2,
            V_DOT2_I32_I16 | V_DOT2_U32_U16 | V_DOT4_I32_I8 | V_DOT4_U32_U8 | V_DOT8_I32_I4
            | V_DOT8_U32_U4 => return self.dot_int(op, srcs, vdst, op_sel, op_sel_hi, neg, clamp),
            _ => return Ok(false),
        };
        if neg != [0, 0] {
            return self
                .unsupported("neg modifiers on a packed integer instruction are not modelled");
        }
        let sat = matches!(
            op,
            V_PK_ADD_I16 | V_PK_SUB_I16 | V_PK_ADD_U16 | V_PK_SUB_U16
        );
        if clamp && !sat {
            return self.unsupported("VOP3P clamp on this integer instruction is not modelled");
        }
        let signed = matches!(
            op,
            V_PK_MAD_I16
                | V_PK_ADD_I16
                | V_PK_SUB_I16
                | V_PK_ASHRREV_I16
                | V_PK_MAX_I16
                | V_PK_MIN_I16
        );
        let mut x = Vec::new();
        for &e in &srcs[..nsrc] {
            x.push(self.src(e, Src::F16)?);
        }
        let mut out = Vec::new();
        for sel in [op_sel, op_sel_hi] {
            let mut v = Vec::new();
            for (i, &xi) in x.iter().enumerate() {
                // Shift amounts (src0 of the shifts) are unsigned.
                let sg = signed && !(op == V_PK_ASHRREV_I16 && i == 0);
                v.push(self.ext16(xi, sel >> i & 1 != 0, sg));
            }
            let r = match op {
                V_PK_MAD_I16 | V_PK_MAD_U16 => {
                    let p = self.int(IntOp::Mul, Ty::B32, v[0], v[1]);
                    self.int(IntOp::Add, Ty::B32, p, v[2])
                }
                V_PK_LSHLREV_B16 | V_PK_LSHRREV_B16 | V_PK_ASHRREV_I16 => {
                    let n = self.and32(v[0], 15);
                    let iop = match op {
                        V_PK_LSHLREV_B16 => IntOp::Shl,
                        V_PK_LSHRREV_B16 => IntOp::LShr,
                        _ => IntOp::AShr,
                    };
                    self.int(iop, Ty::B32, v[1], n)
                }
                _ => {
                    let iop = match op {
                        V_PK_MUL_LO_U16 => IntOp::Mul,
                        V_PK_ADD_I16 | V_PK_ADD_U16 => IntOp::Add,
                        V_PK_SUB_I16 | V_PK_SUB_U16 => IntOp::Sub,
                        V_PK_MAX_I16 => IntOp::MaxI,
                        V_PK_MIN_I16 => IntOp::MinI,
                        V_PK_MAX_U16 => IntOp::MaxU,
                        _ => IntOp::MinU,
                    };
                    let r = self.int(iop, Ty::B32, v[0], v[1]);
                    match (clamp, signed) {
                        (false, _) => r,
                        (true, false) => self.clamp_i(r, 0, 0xffff),
                        (true, true) => self.clamp_i(r, -0x8000, 0x7fff),
                    }
                }
            };
            out.push(r);
        }
        let r = self.insert_half(out[0], out[1], true);
        self.write_v(vdst, r);
        Ok(true)
    }

    /// v_dot2/4/8 integer dot products: D = sum of the products of the 16/8/4-bit elements of S0 and S1
    /// (sign- or zero-extended) + S2, modulo 2^32. Only the default op_sel (0) / op_sel_hi (all set), no
    /// neg and no clamp are lifted.
    #[allow(clippy::too_many_arguments)]
    fn dot_int(
        &mut self,
        op: Opcode,
        srcs: [u32; 3],
        vdst: u16,
        op_sel: u32,
        op_sel_hi: u32,
        neg: [u32; 2],
        clamp: bool,
    ) -> Result<bool, LiftError> {
        use Opcode::*;
        if op_sel != 0 || op_sel_hi != 7 || neg != [0, 0] {
            return self.unsupported("op_sel/neg on an integer dot product are not modelled");
        }
        if clamp {
            return self.unsupported("clamp on an integer dot product is not modelled");
        }
        let (n, signed) = match op {
            V_DOT2_I32_I16 => (2u32, true),
            V_DOT2_U32_U16 => (2, false),
            V_DOT4_I32_I8 => (4, true),
            V_DOT4_U32_U8 => (4, false),
            V_DOT8_I32_I4 => (8, true),
            _ => (8, false),
        };
        let a = self.src(srcs[0], Src::B32)?;
        let b = self.src(srcs[1], Src::B32)?;
        let c = self.src(srcs[2], Src::B32)?;
        let acc = self.dot_sum(a, b, n, signed);
        let r = self.int(IntOp::Add, Ty::B32, acc, c);
        self.write_v(vdst, r);
        Ok(true)
    }

    /// Sum (mod 2^32) of the products of the `n` equal-width elements of `a` and `b`.
    fn dot_sum(&mut self, a: Handle<Node>, b: Handle<Node>, n: u32, signed: bool) -> Handle<Node> {
        let w = 32 / n;
        let mut acc = self.k32(0);
        for i in 0..n {
            let mut e = [a, b];
            for x in e.iter_mut() {
                // Element i moved to the top, then shifted down with sign or zero extension.
                let up = self.k32(32 - w * (i + 1));
                let t = self.int(IntOp::Shl, Ty::B32, *x, up);
                let down = self.k32(32 - w);
                let sh = if signed { IntOp::AShr } else { IntOp::LShr };
                *x = self.int(sh, Ty::B32, t, down);
            }
            let p = self.int(IntOp::Mul, Ty::B32, e[0], e[1]);
            acc = self.int(IntOp::Add, Ty::B32, acc, p);
        }
        acc
    }
}
