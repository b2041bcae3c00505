//! Cross-lane VALU instructions ACO's subgroup reductions use besides DPP: v_readlane_b32,
//! v_writelane_b32, v_permlane16_b32 and v_permlanex16_b32 (built on the `crosslane` helpers).

use super::{LiftError, Lifter, Src};
use crate::{Handle, IntCmp, IntOp, Node, Ty};
use rdna2spv_isa::{Format, Opcode};

impl Lifter<'_> {
    /// Lifts the instruction if it is one of this module's; `Ok(false)` otherwise.
    pub(super) fn permlane(&mut self) -> Result<bool, LiftError> {
        use Opcode::*;
        let op = self.ins.opcode();
        if self.ins.format() != Format::VOP3
            || !matches!(
                op,
                V_READLANE_B32 | V_WRITELANE_B32 | V_PERMLANE16_B32 | V_PERMLANEX16_B32
            )
        {
            return Ok(false);
        }
        let (w0, w1) = (self.w(0), self.w(1));
        let vdst = (w0 & 0xff) as u16;
        let (s0, s1, s2) = (w1 & 0x1ff, (w1 >> 9) & 0x1ff, (w1 >> 18) & 0x1ff);
        if w1 >> 29 != 0 || (w0 >> 8) & 7 != 0 || w0 >> 15 & 1 != 0 {
            return self.unsupported("neg/abs/clamp on a cross-lane instruction");
        }
        let ws_mask = (self.ws - 1) as u64;
        match op {
            V_READLANE_B32 => {
                // SGPR D = S0 of lane S1 (mod the wave size), whatever EXEC says.
                if s1 >= 256 {
                    return self.unsupported(
                        "the lane select of v_readlane_b32 must be an SGPR or a constant",
                    );
                }
                let a = self.src(s0, Src::B32)?;
                let l = self.src(s1, Src::B32)?;
                let m = self.c(Ty::B32, ws_mask);
                let lane = self.int(IntOp::And, Ty::B32, l, m);
                let r = self.n(Node::ReadLane { a, lane });
                self.write_s(vdst, r);
            }
            V_WRITELANE_B32 => {
                // VGPR D of lane S1 (mod the wave size) = S0; the other lanes keep their value. The
                // hardware writes that lane even when EXEC disables it; the IR's VGPR writes follow EXEC,
                // so that case is not modelled (ACO writes with EXEC = all lanes).
                let v = self.src(s0, Src::B32)?;
                let l = self.src(s1, Src::B32)?;
                let m = self.c(Ty::B32, ws_mask);
                let lane = self.int(IntOp::And, Ty::B32, l, m);
                let me = self.n(Node::LaneId);
                let hit = self.icmp(IntCmp::Eq, Ty::B32, me, lane);
                let old = self.read_old(vdst, Ty::B32);
                let r = self.n(Node::Select {
                    cond: hit,
                    a: v,
                    b: old,
                });
                // Only lane S1 writes (a shared VGPR's other slots keep their owner: lift/shared.rs).
                self.sv.write_en = Some(hit);
                self.write_v(vdst, r);
            }
            _ => {
                // Lane l reads S0 of lane (row of l, or its partner row for X16) * 16 + sel, where sel is
                // the nibble l % 16 of {S2, S1}. op_sel[0] = FI (read inactive lanes), op_sel[1] =
                // BOUND_CTRL (an inactive source gives 0 instead of keeping D).
                let fi = w0 >> 11 & 1 != 0;
                let bound_ctrl = w0 >> 12 & 1 != 0;
                let a = self.src(s0, Src::B32)?;
                let lo = self.src(s1, Src::B32)?;
                let hi = self.src(s2, Src::B32)?;
                let me = self.n(Node::LaneId);
                let i = self.and32(me, 15);
                let eight = self.k32(8);
                let low_half = self.icmp(IntCmp::LtU, Ty::B32, i, eight);
                let word = self.n(Node::Select {
                    cond: low_half,
                    a: lo,
                    b: hi,
                });
                let i7 = self.and32(i, 7);
                let two = self.k32(2);
                let sh = self.int(IntOp::Shl, Ty::B32, i7, two);
                let nib = self.int(IntOp::LShr, Ty::B32, word, sh);
                let sel = self.and32(nib, 15);
                let row = self.and32(me, !15);
                let row = if op == V_PERMLANEX16_B32 {
                    let k = self.k32(16);
                    self.int(IntOp::Xor, Ty::B32, row, k)
                } else {
                    row
                };
                let idx = self.int(IntOp::Or, Ty::B32, row, sel);
                let lanes = self.all_lanes(a);
                let v = self.pick(&lanes, idx);
                let r: Handle<Node> = if fi {
                    v
                } else {
                    let act = self.lane_active(idx);
                    let other = if bound_ctrl {
                        self.k32(0)
                    } else {
                        // Lanes whose source is inactive keep D: they do not write.
                        self.sv.write_en = Some(act);
                        self.read_old(vdst, Ty::B32)
                    };
                    self.n(Node::Select {
                        cond: act,
                        a: v,
                        b: other,
                    })
                };
                self.write_v(vdst, r);
            }
        }
        Ok(true)
    }
}
