//! SDWA (sub-dword addressing) forms of the moves ACO emits to assemble 16-bit values (decision D051):
//! `v_mov_b32_sdwa` with any source and destination selection. Other SDWA and all DPP forms are refused.

use super::{LiftError, Lifter};
use crate::{IntOp, Node, Ty};
use rdna2spv_isa::{Format, Opcode, Variant};

impl Lifter<'_> {
    /// Lifts an instruction with an SDWA word if it is one this module handles; `Ok(false)` otherwise.
    pub(super) fn sdwa(&mut self) -> Result<bool, LiftError> {
        let w0 = self.w(0);
        if self.ins.variant != Variant::Sdwa
            || self.ins.format() != Format::VOP1
            || self.ins.opcode() != Opcode::V_MOV_B32
        {
            return Ok(false);
        }
        let w1 = self.w(1);
        let vdst = ((w0 >> 17) & 0xff) as u16;
        let src0 = (w1 & 0xff) as u16;
        let dst_sel = (w1 >> 8) & 7;
        let dst_unused = (w1 >> 11) & 3;
        let clamp = w1 >> 13 & 1 != 0;
        let omod = (w1 >> 14) & 3;
        let src0_sel = (w1 >> 16) & 7;
        let src0_sext = w1 >> 19 & 1 != 0;
        let neg_abs = (w1 >> 20) & 3;
        let s0_sgpr = w1 >> 23 & 1 != 0;
        if clamp || omod != 0 || neg_abs != 0 {
            return self.unsupported("SDWA clamp, omod, neg and abs are not lifted");
        }
        if dst_sel > 6 || src0_sel > 6 || dst_unused > 2 {
            return self.unsupported("reserved SDWA selection");
        }
        let v = if s0_sgpr {
            if src0 > 105 && src0 != 106 && src0 != 107 && src0 != 126 && src0 != 127 {
                return self.unsupported("SDWA source operand that is not an SGPR, VCC or EXEC");
            }
            self.read_s(src0, Ty::B32)
        } else {
            self.n(Node::ReadVgpr {
                reg: src0,
                ty: Ty::B32,
            })
        };
        let (sh, bits) = sel_field(src0_sel);
        // The selected field, zero- or sign-extended to 32 bits.
        let x = if bits == 32 {
            v
        } else {
            let up = self.k32(32 - sh - bits);
            let t = self.int(IntOp::Shl, Ty::B32, v, up);
            let down = self.k32(32 - bits);
            let op = if src0_sext { IntOp::AShr } else { IntOp::LShr };
            self.int(op, Ty::B32, t, down)
        };
        let (dsh, dbits) = sel_field(dst_sel);
        let r = if dbits == 32 {
            x
        } else {
            let field_mask = (u32::MAX >> (32 - dbits)) << dsh;
            let k = self.k32(dsh);
            let placed = self.int(IntOp::Shl, Ty::B32, x, k);
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
                    let old = self.n(Node::ReadVgpr {
                        reg: vdst,
                        ty: Ty::B32,
                    });
                    let keep = self.and32(old, !field_mask);
                    self.int(IntOp::Or, Ty::B32, keep, placed)
                }
            }
        };
        self.write_v(vdst, r);
        Ok(true)
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
