//! DPP16 and DPP8 source modifiers of VOP1/VOP2 instructions, as a generic transform of src0 (the lane it is
//! read from) and of the destination write (lanes DPP disables keep their old value). Composed from the
//! cross-lane pick of lift/crosslane.rs (decision D020), so the host and every lowering compute it exactly.
//!
//! Semantics (AMD RDNA 2 ISA guide, "Data Parallel Processing"; LLVM AMDGPUUsage DPP syntax), lane l, row
//! base b = l & ~15, r = l & 15:
//! - quad_perm:[a,b,c,d] (ctrl 0x00..0xff): source (l & ~3) | ctrl[2(l&3)+1 : 2(l&3)];
//! - row_shl:n (0x101..): b + r + n, out of bounds when r + n > 15; row_shr:n (0x111..): b + r − n, out of
//!   bounds when r < n; row_ror:n (0x121..): b + ((r − n) mod 16);
//! - row_mirror (0x140): b + 15 − r; row_half_mirror (0x141): (l & ~7) + 7 − (l & 7);
//! - row_share:n (0x150..): b + n; row_xmask:n (0x160..): b + (r ^ n);
//! - fi (fetch inactive) 0: a source lane that is not active in EXEC is out of bounds too;
//! - an out-of-bounds source reads 0 when bound_ctrl is set; otherwise the lane is not written;
//! - row_mask bit (l >> 4) and bank_mask bit ((l >> 2) & 3) clear: the lane is not written.
//! - DPP8 (src0 0xe9 fi:0, 0xea fi:1): source (l & ~7) | sel[l & 7]; with fi:0 an inactive source reads 0.
//!
//! Refused (clear errors): DPP on VOPC and on the carry-writing VOP2 forms (the carry mask of a disabled lane
//! is not modelled), and DPP neg/abs bits (float source modifiers: with cov-vfloat's float work).

use super::{LiftError, Lifter};
use crate::{Handle, IntCmp, IntOp, Node, Ty};
use rdna2spv_isa::{Format, Opcode, Variant};

impl Lifter<'_> {
    /// Whether this instruction carries DPP, after checking it is a form this module lifts.
    pub(super) fn dpp_check(&self) -> Result<(), LiftError> {
        use Opcode::*;
        match self.ins.variant {
            Variant::Dpp16 | Variant::Dpp8 => {}
            Variant::Sdwa => return self.sdwa_check(),
            Variant::Plain => return Ok(()),
        }
        if !matches!(self.ins.format(), Format::VOP1 | Format::VOP2) {
            return self.unsupported("DPP on VOPC is not lifted yet");
        }
        // Carry-out (VOP3b in its VOP3 form, VCC in its VOP2 form) from the table (D179).
        if self.ins.opcode().writes_carry() || self.ins.opcode() == V_READFIRSTLANE_B32 {
            return self
                .unsupported("DPP on a carry-writing or scalar-writing form is not lifted yet");
        }
        if self.ins.encoding.has_64bit_operand() {
            return self.unsupported("DPP on a 64-bit form is not lifted yet");
        }
        if self.ins.variant == Variant::Dpp16 {
            if self.w(1) >> 20 & 0xf != 0 {
                return self.unsupported("DPP neg/abs source modifiers are not lifted yet");
            }
            if self.dpp16_source().is_none() {
                return self.unsupported("DPP control not available on this target");
            }
        }
        Ok(())
    }

    /// The DPP16 control's source lane rule: (kind, n).
    fn dpp16_source(&self) -> Option<(u32, u32)> {
        let ctrl = (self.w(1) >> 8) & 0x1ff;
        Some(match ctrl {
            0x000..=0x0ff => (0, ctrl),
            0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f => (ctrl & 0x1f0, ctrl & 0xf),
            0x140 | 0x141 => (ctrl, 0),
            0x150..=0x16f => (ctrl & 0x1f0, ctrl & 0xf),
            _ => return None,
        })
    }

    /// Per lane: (source lane, in bounds) of the DPP control, before the EXEC rule.
    fn dpp_lane(&mut self) -> (Handle<Node>, Handle<Node>) {
        let lane = self.n(Node::LaneId);
        let k = |s: &mut Self, v: u32| s.c(Ty::B32, v as u64);
        let t = self.c(Ty::B1, 1);
        if self.ins.variant == Variant::Dpp8 {
            // The eight 3-bit selectors as a 24-bit constant, indexed by 3 * (l & 7).
            let sels = self.w(1) >> 8;
            let seven = k(self, 7);
            let l7 = self.int(IntOp::And, Ty::B32, lane, seven);
            let three = k(self, 3);
            let sh = self.int(IntOp::Mul, Ty::B32, l7, three);
            let sc = k(self, sels);
            let s = self.int(IntOp::LShr, Ty::B32, sc, sh);
            let s = self.int(IntOp::And, Ty::B32, s, seven);
            let n7 = k(self, !7);
            let base = self.int(IntOp::And, Ty::B32, lane, n7);
            return (self.int(IntOp::Or, Ty::B32, base, s), t);
        }
        let (kind, n) = self.dpp16_source().expect("checked by dpp_check");
        let f15 = k(self, 15);
        let r = self.int(IntOp::And, Ty::B32, lane, f15);
        let nf = k(self, !15);
        let base = self.int(IntOp::And, Ty::B32, lane, nf);
        let nn = k(self, n);
        let within = |s: &mut Self, x: Handle<Node>| {
            let x = s.int(IntOp::And, Ty::B32, x, f15);
            s.int(IntOp::Or, Ty::B32, base, x)
        };
        match kind {
            0 => {
                let three = k(self, 3);
                let q = self.int(IntOp::And, Ty::B32, lane, three);
                let one = k(self, 1);
                let q2 = self.int(IntOp::Shl, Ty::B32, q, one);
                let ctrl = k(self, n);
                let sel = self.int(IntOp::LShr, Ty::B32, ctrl, q2);
                let sel = self.int(IntOp::And, Ty::B32, sel, three);
                let nq = k(self, !3);
                let b4 = self.int(IntOp::And, Ty::B32, lane, nq);
                (self.int(IntOp::Or, Ty::B32, b4, sel), t)
            }
            0x100 => {
                let x = self.int(IntOp::Add, Ty::B32, r, nn);
                let ok = self.icmp(IntCmp::LeU, Ty::B32, x, f15);
                (within(self, x), ok)
            }
            0x110 => {
                let x = self.int(IntOp::Sub, Ty::B32, r, nn);
                let ok = self.icmp(IntCmp::GeU, Ty::B32, r, nn);
                (within(self, x), ok)
            }
            0x120 => {
                let x = self.int(IntOp::Sub, Ty::B32, r, nn);
                (within(self, x), t)
            }
            0x140 => {
                let x = self.int(IntOp::Sub, Ty::B32, f15, r);
                (within(self, x), t)
            }
            0x141 => {
                let seven = k(self, 7);
                let h = self.int(IntOp::And, Ty::B32, lane, seven);
                let x = self.int(IntOp::Sub, Ty::B32, seven, h);
                let n7 = k(self, !7);
                let b8 = self.int(IntOp::And, Ty::B32, lane, n7);
                (self.int(IntOp::Or, Ty::B32, b8, x), t)
            }
            0x150 => (within(self, nn), t),
            _ => {
                let x = self.int(IntOp::Xor, Ty::B32, r, nn);
                (within(self, x), t)
            }
        }
    }

    /// Per lane: (source lane mod wave size, valid: in bounds and, with fi:0, active).
    fn dpp_valid(&mut self) -> (Handle<Node>, Handle<Node>) {
        let (src, ok) = self.dpp_lane();
        let wm = self.c(Ty::B32, (self.ws - 1) as u64);
        let src = self.int(IntOp::And, Ty::B32, src, wm);
        let fi = match self.ins.variant {
            Variant::Dpp8 => self.w(0) & 0x1ff == 0xea,
            _ => self.w(1) >> 18 & 1 != 0,
        };
        let ok = if fi {
            ok
        } else {
            let act = self.lane_active(src);
            self.int(IntOp::And, Ty::B1, ok, act)
        };
        (src, ok)
    }

    /// src0 of a DPP instruction: the VGPR of the DPP word read from the DPP source lane; 0 where the
    /// source is invalid (bound_ctrl, DPP8 fi:0; lanes DPP16 disables are masked at the write).
    pub(super) fn dpp_src(&mut self) -> Handle<Node> {
        let reg = (self.w(1) & 0xff) as u16;
        let a = self.n(Node::ReadVgpr { reg, ty: Ty::B32 });
        if self.ins.variant == Variant::Dpp16 && (self.w(1) >> 8) & 0x1ff == 0xe4 {
            // quad_perm:[0,1,2,3]: every lane reads itself (in bounds; active wherever the result is
            // written), as ACO's row-masked moves do.
            return a;
        }
        let (src, ok) = self.dpp_valid();
        let lanes = self.all_lanes(a);
        let v = self.pick(&lanes, src);
        let z = self.c(Ty::B32, 0);
        self.n(Node::Select {
            cond: ok,
            a: v,
            b: z,
        })
    }

    /// A DPP16 destination write: lanes disabled by row_mask/bank_mask, or with an invalid source and
    /// bound_ctrl clear, keep the register's old value.
    pub(super) fn dpp_write(&mut self, reg: u16, value: Handle<Node>) -> Handle<Node> {
        if self.ins.variant != Variant::Dpp16 {
            return value;
        }
        let w1 = self.w(1);
        let (bank, row, bc) = ((w1 >> 24) & 0xf, w1 >> 28, w1 >> 19 & 1 != 0);
        if bank == 0xf && row == 0xf && bc {
            return value;
        }
        let lane = self.n(Node::LaneId);
        // Enabled-lane mask of the row and bank masks, as a 64-bit constant.
        let mut m = 0u64;
        for l in 0..64u32 {
            if row >> (l >> 4) & 1 != 0 && bank >> ((l >> 2) & 3) & 1 != 0 {
                m |= 1 << l;
            }
        }
        let mc = self.c(Ty::B64, m);
        let l64 = self.un(crate::UnOp::ZExt, Ty::B64, lane);
        let sh = self.int(IntOp::LShr, Ty::B64, mc, l64);
        let one = self.c(Ty::B64, 1);
        let bit = self.int(IntOp::And, Ty::B64, sh, one);
        let mut en = self.nonzero(Ty::B64, bit);
        if !bc {
            let (_, ok) = self.dpp_valid();
            en = self.int(IntOp::And, Ty::B1, en, ok);
        }
        let old = self.read_old(reg, Ty::B32);
        // Disabled lanes do not write (a shared VGPR's slot keeps its owner: lift/shared.rs).
        self.sv.write_en = Some(en);
        self.n(Node::Select {
            cond: en,
            a: value,
            b: old,
        })
    }
}
