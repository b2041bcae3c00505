//! Cross-lane data movement, composed from existing primitives (decision D020): a value of another lane is
//! `ReadLane(a, k)` for a constant lane k (a uniform value), and "the value of lane idx(l)" per lane is a
//! multiplexer tree over the wave's lanes, selected by the bits of the lane index. The host evaluator and
//! every lowering therefore compute these with the primitives they already compute exactly; no new IR node.
//!
//! Semantics (AMD RDNA 2 ISA guide, LDS chapter "DS_PERMUTE/BPERMUTE", "DS_SWIZZLE"; LLVM AMDGPUUsage):
//! - ds_bpermute_b32: dst[l] = data[j] with j = ((addr[l] + offset) >> 2) mod 32 in l's own group of 32
//!   lanes (j = (l & 32) | (((addr[l] + offset) >> 2) & 31)); 0 if lane j is not active in EXEC. Only
//!   active lanes are written. In wave64 on gfx10 the permutes work within each half-wave: Mesa ACO
//!   (aco_lower_to_hw_instr.cpp, `emit_bpermute_shared_vgpr`: "on GFX10 the bpermute instruction only
//!   works on half waves (you can think of it as having a cluster size of 32)") swaps the halves' data
//!   through shared VGPRs around it (lift/shared.rs, D153). In wave32 this is the mod-wave-size rule.
//! - ds_permute_b32: for every active source lane l, dst[(l & 32) | (((addr[l] + offset) >> 2) & 31)] =
//!   data[l] (the same half-wave rule); when several lanes write one lane the highest source lane wins; a
//!   lane nobody writes gets 0. Only active lanes are written.
//! - Wave64, ds_bpermute_b32 whose destination is a shared VGPR that is also its data or address: the two
//!   half-wave passes run low then high, the high pass reading the shared VGPR as the low pass left it
//!   (the model of D153; ACO issues this form with one half enabled, where the order does not matter).
//! - ds_swizzle_b32 (data in the ADDR VGPR), offset bit 15 set: quad-permute mode, lane l reads lane
//!   (l & ~3) | offset[2(l&3)+1 : 2(l&3)]; bit 15 clear: bit-mask mode within groups of 32 lanes,
//!   j = (((l & and) | or) ^ xor) with and = offset[4:0], or = offset[9:5], xor = offset[14:10]. A source
//!   lane that is not active reads 0 (as for the permutes).

use super::{LiftError, Lifter};
use crate::{Handle, IntCmp, IntOp, Node, Ty, UnOp, EXEC_LO};
use rdna2spv_isa::Opcode;

impl Lifter<'_> {
    /// The wave's lanes of `a` as uniform values.
    pub(super) fn all_lanes(&mut self, a: Handle<Node>) -> Vec<Handle<Node>> {
        (0..self.ws)
            .map(|k| {
                let lane = self.c(Ty::B32, k as u64);
                self.n(Node::ReadLane { a, lane })
            })
            .collect()
    }

    /// Per lane, `lanes[idx mod len]` (idx: Lane B32), as a multiplexer tree on the bits of idx.
    pub(super) fn pick(&mut self, lanes: &[Handle<Node>], idx: Handle<Node>) -> Handle<Node> {
        let mut level: Vec<Handle<Node>> = lanes.to_vec();
        let mut bit = 0u64;
        while level.len() > 1 {
            let sh = self.c(Ty::B32, bit);
            let one = self.c(Ty::B32, 1);
            let shifted = self.int(IntOp::LShr, Ty::B32, idx, sh);
            let b = self.int(IntOp::And, Ty::B32, shifted, one);
            let set = self.nonzero(Ty::B32, b);
            level = level
                .chunks(2)
                .map(|p| {
                    self.n(Node::Select {
                        cond: set,
                        a: p[1],
                        b: p[0],
                    })
                })
                .collect();
            bit += 1;
        }
        level[0]
    }

    /// Per lane, whether lane `idx` (Lane B32, < wave size) is active in EXEC.
    pub(super) fn lane_active(&mut self, idx: Handle<Node>) -> Handle<Node> {
        let exec = self.read_s(EXEC_LO, self.mask_ty());
        let exec = if self.ws == 32 {
            self.un(UnOp::ZExt, Ty::B64, exec)
        } else {
            exec
        };
        let i64_ = self.un(UnOp::ZExt, Ty::B64, idx);
        let sh = self.int(IntOp::LShr, Ty::B64, exec, i64_);
        let one = self.c(Ty::B64, 1);
        let bit = self.int(IntOp::And, Ty::B64, sh, one);
        self.nonzero(Ty::B64, bit)
    }

    /// `a` of lane `idx` per lane, or 0 where that lane is not active.
    pub(super) fn shuffle_active(&mut self, a: Handle<Node>, idx: Handle<Node>) -> Handle<Node> {
        let lanes = self.all_lanes(a);
        let v = self.pick(&lanes, idx);
        let act = self.lane_active(idx);
        let z = self.c(Ty::B32, 0);
        self.n(Node::Select {
            cond: act,
            a: v,
            b: z,
        })
    }

    /// The lane a permute addresses from lane `lane`: ((addr + offset) >> 2) mod 32 within the lane's own
    /// group of 32 (wave32: the whole wave).
    fn permute_lane(
        &mut self,
        addr: Handle<Node>,
        offset: u32,
        lane: Handle<Node>,
    ) -> Handle<Node> {
        let off = self.c(Ty::B32, offset as u64);
        let a = self.int(IntOp::Add, Ty::B32, addr, off);
        let two = self.c(Ty::B32, 2);
        let a = self.int(IntOp::LShr, Ty::B32, a, two);
        let a = self.and32(a, 31);
        let half = self.and32(lane, 32 & (self.ws - 1));
        self.int(IntOp::Or, Ty::B32, half, a)
    }

    /// ds_permute_b32 / ds_bpermute_b32 / ds_swizzle_b32; Ok(false) for any other opcode.
    pub(super) fn ds_crosslane(&mut self) -> Result<bool, LiftError> {
        let op = self.ins.opcode();
        if !matches!(
            op,
            Opcode::DS_PERMUTE_B32 | Opcode::DS_BPERMUTE_B32 | Opcode::DS_SWIZZLE_B32
        ) {
            return Ok(false);
        }
        let (w0, w1) = (self.w(0), self.w(1));
        if w0 >> 17 & 1 != 0 {
            return self.unsupported("GDS is not modelled");
        }
        let offset = w0 & 0xffff;
        let addr_r = (w1 & 0xff) as u16;
        let d0 = ((w1 >> 8) & 0xff) as u16;
        let vdst = ((w1 >> 24) & 0xff) as u16;
        let addr = self.n(Node::ReadVgpr {
            reg: addr_r,
            ty: Ty::B32,
        });
        let lane = self.n(Node::LaneId);
        let wmask = self.c(Ty::B32, (self.ws - 1) as u64);
        let r = match op {
            Opcode::DS_BPERMUTE_B32 | Opcode::DS_PERMUTE_B32 => {
                let data = self.n(Node::ReadVgpr {
                    reg: d0,
                    ty: Ty::B32,
                });
                let idx = self.permute_lane(addr, offset, lane);
                if op == Opcode::DS_BPERMUTE_B32 {
                    let r = self.shuffle_active(data, idx);
                    let again = |r: u16| r == vdst;
                    if self.ws == 64 && self.is_shared(vdst) && (again(d0) || again(addr_r)) {
                        // Two passes: the high half reads the shared VGPR as the low half left it.
                        self.sv.two_pass = true;
                        let slots = self
                            .sv
                            .cache
                            .iter()
                            .find(|c| c.1 == data)
                            .map(|c| c.2.clone());
                        if let (Some(slots), false) = (slots, addr_r == vdst) {
                            // The data is the destination: high lane 32 + j reads slot j, which the low
                            // pass rewrote where lane j is active.
                            let exec = self.read_s(EXEC_LO, Ty::B64);
                            let after: Vec<_> = (0..32u64)
                                .map(|j| {
                                    let k = self.c(Ty::B32, j);
                                    let v = self.n(Node::ReadLane { a: r, lane: k });
                                    let bit = self.n(Node::Extract {
                                        ty: Ty::B1,
                                        a: exec,
                                        shift: j as u8,
                                    });
                                    self.n(Node::Select {
                                        cond: bit,
                                        a: v,
                                        b: slots[j as usize],
                                    })
                                })
                                .collect();
                            let v = self.pick(&after, idx);
                            let act = self.lane_active(idx);
                            let z = self.c(Ty::B32, 0);
                            let r2 = self.n(Node::Select {
                                cond: act,
                                a: v,
                                b: z,
                            });
                            let k32 = self.c(Ty::B32, 32);
                            let hi = self.icmp(IntCmp::GeU, Ty::B32, lane, k32);
                            let r = self.n(Node::Select {
                                cond: hi,
                                a: r2,
                                b: r,
                            });
                            self.write_v(vdst, r);
                            return Ok(true);
                        }
                        let lo_lanes = self.all_lanes(r);
                        let after = self.pick(&lo_lanes[..32], lane);
                        let l31 = self.and32(lane, 31);
                        let wrote = self.lane_active(l31);
                        let k32 = self.c(Ty::B32, 32);
                        let hi = self.icmp(IntCmp::GeU, Ty::B32, lane, k32);
                        let moved = self.int(IntOp::And, Ty::B1, hi, wrote);
                        let data2 = if d0 == vdst {
                            self.n(Node::Select {
                                cond: moved,
                                a: after,
                                b: data,
                            })
                        } else {
                            data
                        };
                        let addr2 = if addr_r == vdst {
                            self.n(Node::Select {
                                cond: moved,
                                a: after,
                                b: addr,
                            })
                        } else {
                            addr
                        };
                        let idx2 = self.permute_lane(addr2, offset, lane);
                        let r2 = self.shuffle_active(data2, idx2);
                        self.n(Node::Select {
                            cond: hi,
                            a: r2,
                            b: r,
                        })
                    } else {
                        r
                    }
                } else {
                    // Forward: scan the source lanes upward, so the highest writer wins.
                    let idxs = self.all_lanes(idx);
                    let datas = self.all_lanes(data);
                    let exec = self.read_s(EXEC_LO, self.mask_ty());
                    let mut acc = self.c(Ty::B32, 0);
                    for k in 0..self.ws as usize {
                        let bit = self.n(Node::Extract {
                            ty: Ty::B1,
                            a: exec,
                            shift: k as u8,
                        });
                        let hit = self.icmp(IntCmp::Eq, Ty::B32, idxs[k], lane);
                        let both = self.int(IntOp::And, Ty::B1, hit, bit);
                        acc = self.n(Node::Select {
                            cond: both,
                            a: datas[k],
                            b: acc,
                        });
                    }
                    acc
                }
            }
            _ => {
                // ds_swizzle_b32: the data is the ADDR VGPR.
                let idx = if offset & 0x8000 != 0 {
                    // Quad permute: the selector of lane l is offset bits [2(l&3)+1 : 2(l&3)].
                    let three = self.c(Ty::B32, 3);
                    let q = self.int(IntOp::And, Ty::B32, lane, three);
                    let one = self.c(Ty::B32, 1);
                    let q2 = self.int(IntOp::Shl, Ty::B32, q, one);
                    let k = self.c(Ty::B32, (offset & 0xff) as u64);
                    let sel = self.int(IntOp::LShr, Ty::B32, k, q2);
                    let sel = self.int(IntOp::And, Ty::B32, sel, three);
                    let nq = self.c(Ty::B32, !3u32 as u64);
                    let base = self.int(IntOp::And, Ty::B32, lane, nq);
                    self.int(IntOp::Or, Ty::B32, base, sel)
                } else {
                    let and = self.c(Ty::B32, (offset & 0x1f | !0x1f) as u64 & 0xffff_ffff);
                    let or = self.c(Ty::B32, ((offset >> 5) & 0x1f) as u64);
                    let xor = self.c(Ty::B32, ((offset >> 10) & 0x1f) as u64);
                    let t = self.int(IntOp::And, Ty::B32, lane, and);
                    let t = self.int(IntOp::Or, Ty::B32, t, or);
                    self.int(IntOp::Xor, Ty::B32, t, xor)
                };
                let idx = self.int(IntOp::And, Ty::B32, idx, wmask);
                self.shuffle_active(addr, idx)
            }
        };
        self.write_v(vdst, r);
        Ok(true)
    }
}
