//! VOP3P: packed 16-bit math, dot products and mixed-precision multiply-add (op_sel / op_sel_hi / neg_lo /
//! neg_hi select and negate each half).

use super::{LiftError, Lifter, Src};
use crate::{FloatOp, Node, Ty, UnOp};
use rdna2spv_isa::Opcode;

impl Lifter<'_> {
    pub(super) fn valu_packed(&mut self) -> Result<(), LiftError> {
        let (w0, w1) = (self.w(0), self.w(1));
        let vdst = (w0 & 0xff) as u16;
        let (s0, s1, s2) = (w1 & 0x1ff, (w1 >> 9) & 0x1ff, (w1 >> 18) & 0x1ff);
        let neg_hi = (w0 >> 8) & 7;
        let neg_lo = w1 >> 29;
        let clamp = w0 >> 15 & 1 != 0;
        let op_sel = (w0 >> 11) & 7;
        let op_sel_hi = (w1 >> 27) & 3 | ((w0 >> 14) & 1) << 2;
        let srcs = [s0, s1, s2];
        match self.ins.opcode() {
            Opcode::V_PK_FMA_F16 => {
                // Each 16-bit lane of the result: the halves op_sel (low lane) / op_sel_hi (high lane)
                // pick, negated by neg_lo / neg_hi, one rounding to half (fused_to_half, D993).
                let mut x = Vec::new();
                for &e in &srcs {
                    x.push(self.src(e, Src::F16)?);
                }
                let mut out = Vec::new();
                for (sel, negs) in [(op_sel, neg_lo), (op_sel_hi, neg_hi)] {
                    let mut v = Vec::new();
                    for (i, &xi) in x.iter().enumerate() {
                        let shift = if sel >> i & 1 != 0 { 16 } else { 0 };
                        let h = self.n(Node::Extract {
                            ty: Ty::B16,
                            a: xi,
                            shift,
                        });
                        v.push(self.modify_ty(h, i as u32, 0, negs, Ty::B16));
                    }
                    let r = self.float(FloatOp::F16FmaToHalf, v[0], v[1], v[2]);
                    let r = self.clamp_if(clamp, Ty::B16, r);
                    out.push(self.un(UnOp::ZExt, Ty::B32, r));
                }
                let r = self.insert_half(out[0], out[1], true);
                self.write_v(vdst, r);
                Ok(())
            }
            Opcode::V_FMA_MIX_F32 | Opcode::V_FMA_MIXLO_F16 | Opcode::V_FMA_MIXHI_F16 => {
                // Each source is an f32, or (op_sel_hi bit set) an f16 taken from the half op_sel picks;
                // neg_lo negates and neg_hi takes the absolute value (abs first). MIX_F32: one f32
                // rounding (Model::f32_fma). MIXLO/MIXHI: with every source a half, one rounding to half
                // (fused_to_half); otherwise one rounding to f32, then one to half (D993). MIXLO writes the
                // low half and keeps the high half; MIXHI the opposite.
                let op = self.ins.opcode();
                let all_half = op_sel_hi == 7 && op != Opcode::V_FMA_MIX_F32;
                let mut v = Vec::new();
                for (i, &e) in srcs.iter().enumerate() {
                    let is_half = op_sel_hi >> i & 1 != 0;
                    let x = self.src(e, if is_half { Src::F16 } else { Src::B32 })?;
                    v.push(if is_half {
                        let shift = if op_sel >> i & 1 != 0 { 16 } else { 0 };
                        let h = self.n(Node::Extract {
                            ty: Ty::B16,
                            a: x,
                            shift,
                        });
                        let h = self.modify_ty(h, i as u32, neg_hi, neg_lo, Ty::B16);
                        if all_half {
                            h
                        } else {
                            let h32 = self.un(UnOp::ZExt, Ty::B32, h);
                            self.un(UnOp::F16ToF32, Ty::B32, h32)
                        }
                    } else {
                        self.modify_ty(x, i as u32, neg_hi, neg_lo, Ty::B32)
                    });
                }
                if op == Opcode::V_FMA_MIX_F32 {
                    let r = self.float(FloatOp::F32Fma, v[0], v[1], v[2]);
                    let r = self.clamp_if(clamp, Ty::B32, r);
                    self.write_v(vdst, r);
                    return Ok(());
                }
                let h32 = if all_half {
                    let r = self.float(FloatOp::F16FmaToHalf, v[0], v[1], v[2]);
                    let r = self.clamp_if(clamp, Ty::B16, r);
                    self.un(UnOp::ZExt, Ty::B32, r)
                } else {
                    let r = self.float(FloatOp::F32Fma, v[0], v[1], v[2]);
                    let r = self.un(UnOp::F32ToF16, Ty::B32, r);
                    let r = self.lo16(r);
                    let r = self.clamp_if(clamp, Ty::B16, r);
                    self.un(UnOp::ZExt, Ty::B32, r)
                };
                let old = self.n(Node::ReadVgpr {
                    reg: vdst,
                    ty: Ty::B32,
                });
                let w = self.insert_half(old, h32, op == Opcode::V_FMA_MIXHI_F16);
                self.write_v(vdst, w);
                Ok(())
            }
            // Packed 16-bit integer ops and integer dot products: lift/valu16.rs.
            op if self.valu_packed_int(
                op,
                srcs,
                vdst,
                op_sel,
                op_sel_hi,
                [neg_lo, neg_hi],
                clamp,
            )? =>
            {
                Ok(())
            }
            op if self.valu_packed_float(
                op,
                [s0, s1],
                vdst,
                [op_sel, op_sel_hi],
                [neg_lo, neg_hi],
                clamp,
            )? =>
            {
                Ok(())
            }
            _ => {
                if neg_hi != 0 || neg_lo != 0 || clamp {
                    return self.unsupported("VOP3P neg/clamp modifiers are not lifted yet");
                }
                self.unsupported("packed instruction not lifted yet")
            }
        }
    }
}
