//! SDWA (sub-dword addressing) on every VOP1/VOP2/VOPC instruction that has an SDWA form, as a generic
//! transform of the sources and of the destination write around the instruction's own semantics (decision
//! D064; D051 introduced it for v_mov_b32). The SDWA word (AMD RDNA 2 ISA guide, "SDWA"; LLVM's
//! VOP_SDWA10 encoding):
//!
//! - bits 0..7 src0, 16..18 src0_sel, 19 src0_sext, 20 src0_neg, 21 src0_abs, 23 S0 (src0 is a scalar
//!   operand: SGPR or inline constant); 24..26 src1_sel, 27 src1_sext, 28 src1_neg, 29 src1_abs, 31 S1
//!   (the VOP2/VOPC vsrc1 field names a scalar operand);
//! - VOP1/VOP2: 8..10 dst_sel, 11..12 dst_unused, 13 clamp, 14..15 omod; VOPC: 8..14 sdst, 15 sd (write
//!   sdst instead of VCC).
//!
//! A source is its selected field (BYTE_0..3, WORD_0/1, DWORD) zero-extended, or sign-extended with sext;
//! then the float modifiers abs and neg apply as in VOP3. The instruction computes its 32-bit result from
//! these values; dst_sel places the result's low byte/word in the selected field of the destination, and
//! dst_unused decides the other bits: 0 (UNUSED_PAD), the field's sign bit above it and 0 below
//! (UNUSED_SEXT), or the destination's old bits (UNUSED_PRESERVE). Clamp is the instruction's own VOP3 clamp
//! (float: [0, 1]; integer add/subtract: saturation). omod is refused.

use super::{LiftError, Lifter, Src};
use crate::{Handle, IntOp, Node, Ty};
use rdna2spv_isa::{Format, Opcode, Variant};

/// Source encodings `valu` uses for the SDWA sources 0 and 1 (outside the 9-bit operand range).
pub(super) const SDWA_SRC0: u32 = 0x200;
pub(super) const SDWA_SRC1: u32 = 0x201;

impl Lifter<'_> {
    fn is_sdwa(&self) -> bool {
        self.ins.variant == Variant::Sdwa
    }

    /// Refuses SDWA forms this module does not lift (called before anything is lifted).
    pub(super) fn sdwa_check(&self) -> Result<(), LiftError> {
        let w1 = self.w(1);
        let f = self.ins.format();
        if !matches!(f, Format::VOP1 | Format::VOP2 | Format::VOPC) {
            return self.unsupported("SDWA on this format");
        }
        if (w1 >> 16) & 7 == 7 || (f != Format::VOP1 && (w1 >> 24) & 7 == 7) {
            return self.unsupported("reserved SDWA source selection");
        }
        if f != Format::VOPC {
            if (w1 >> 8) & 7 == 7 || (w1 >> 11) & 3 == 3 {
                return self.unsupported("reserved SDWA destination selection");
            }
            if (w1 >> 14) & 3 != 0 {
                return self.unsupported("SDWA omod is not lifted");
            }
        }
        let op = self.ins.opcode();
        if self.ins.encoding.has_64bit_operand() || op == Opcode::V_READFIRSTLANE_B32 {
            return self.unsupported("SDWA on a 64-bit or scalar-writing form is not lifted");
        }
        Ok(())
    }

    /// The SDWA source operands and modifiers for `valu`: (s0, s1, abs, neg, clamp).
    pub(super) fn sdwa_operands(&self, f: Format) -> (u32, u32, u32, u32, bool) {
        let w1 = self.w(1);
        let abs = (w1 >> 21 & 1) | (w1 >> 29 & 1) << 1;
        let neg = (w1 >> 20 & 1) | (w1 >> 28 & 1) << 1;
        let clamp = f != Format::VOPC && w1 >> 13 & 1 != 0;
        (SDWA_SRC0, SDWA_SRC1, abs, neg, clamp)
    }

    /// SDWA source `i` (0 or 1): the selected field, extended to 32 bits.
    pub(super) fn sdwa_src(&mut self, i: u32, class: Src) -> Result<Handle<Node>, LiftError> {
        if !matches!(class, Src::B32 | Src::F16) {
            return self.unsupported("SDWA on a 64-bit operand");
        }
        let (w0, w1) = (self.w(0), self.w(1));
        let (field, scalar, sel, sext) = if i == 0 {
            (
                w1 & 0xff,
                w1 >> 23 & 1 != 0,
                (w1 >> 16) & 7,
                w1 >> 19 & 1 != 0,
            )
        } else {
            (
                (w0 >> 9) & 0xff,
                w1 >> 31 & 1 != 0,
                (w1 >> 24) & 7,
                w1 >> 27 & 1 != 0,
            )
        };
        let enc = if scalar { field } else { 256 + field };
        let v = self.src(enc, class)?;
        let (sh, bits) = sel_field(sel);
        Ok(if bits == 32 {
            v
        } else {
            let up = self.k32(32 - sh - bits);
            let t = self.int(IntOp::Shl, Ty::B32, v, up);
            let down = self.k32(32 - bits);
            let op = if sext { IntOp::AShr } else { IntOp::LShr };
            self.int(op, Ty::B32, t, down)
        })
    }

    /// The VOPC SDWA destination when sd is set (otherwise VCC).
    pub(super) fn sdwa_sdst(&self) -> Option<u16> {
        let w1 = self.w(1);
        (self.is_sdwa() && self.ins.format() == Format::VOPC && w1 >> 15 & 1 != 0)
            .then_some(((w1 >> 8) & 0x7f) as u16)
    }

    /// The value an SDWA VOP1/VOP2 instruction writes to `vdst`: dst_sel and dst_unused applied to `r`.
    pub(super) fn sdwa_write(&mut self, vdst: u16, r: Handle<Node>) -> Handle<Node> {
        if !self.is_sdwa() || self.ins.format() == Format::VOPC {
            return r;
        }
        let w1 = self.w(1);
        let (dst_sel, dst_unused) = ((w1 >> 8) & 7, (w1 >> 11) & 3);
        let (dsh, dbits) = sel_field(dst_sel);
        if dbits == 32 {
            return r;
        }
        let field_mask = (u32::MAX >> (32 - dbits)) << dsh;
        let k = self.k32(dsh);
        let placed = self.int(IntOp::Shl, Ty::B32, r, k);
        let placed = self.and32(placed, field_mask);
        match dst_unused {
            // UNUSED_PAD: the other bits are 0.
            0 => placed,
            // UNUSED_SEXT: the field's top bit fills the bits above it; bits below are 0.
            1 => {
                let up = self.k32(32 - dsh - dbits);
                let t = self.int(IntOp::Shl, Ty::B32, placed, up);
                let t = self.int(IntOp::AShr, Ty::B32, t, up);
                self.and32(t, !((1u32 << dsh) - 1))
            }
            // UNUSED_PRESERVE: the other bits keep the destination's old value.
            _ => {
                let old = self.read_old(vdst, Ty::B32);
                let keep = self.and32(old, !field_mask);
                self.int(IntOp::Or, Ty::B32, keep, placed)
            }
        }
    }
}

/// (shift, bits) of an SDWA selection: BYTE_0..3, WORD_0..1, DWORD.
fn sel_field(sel: u32) -> (u32, u32) {
    match sel {
        0..=3 => (8 * sel, 8),
        4 | 5 => (16 * (sel - 4), 16),
        _ => (0, 32),
    }
}
