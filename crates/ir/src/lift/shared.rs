//! Wave64 shared VGPRs (decision D153), expanded at lift time into existing IR primitives.
//!
//! gfx10 can give a wave64 *shared VGPRs* above its allocation (COMPUTE_PGM_RSRC3.SHARED_VGPR_COUNT, in
//! blocks of 8; LLVM AMDGPUUsage): a register `v` with `alloc <= v < alloc + shared` is one 32-lane
//! register that both halves of the wave see, lane `l` using slot `l mod 32`. A wave64 VALU instruction
//! runs as two half-wave passes, low then high, so where both halves write a slot in one instruction the
//! high half's value stays. Mesa ACO uses two of them to move data between the halves around
//! `ds_bpermute_b32`, which on gfx10 permutes only within each half (aco_lower_to_hw_instr.cpp,
//! `emit_bpermute_shared_vgpr`; lift/crosslane.rs).
//!
//! Storage: the lane-private copies of `v` (the IR's VGPR `v`) plus an *owner mask* per shared register,
//! kept in trap-temporary SGPR `ttmp[k]` (s108 + k, k = v − alloc): bit s set means slot s was last written
//! by lane s + 32, clear by lane s. Every write is an ordinary EXEC-masked `WriteVgpr` of the writing lanes'
//! own copies and an update of the mask (lanes that write move the ownership of their slot; the high half
//! wins); every read builds the 32 slots as uniform values (`ReadLane` of the owner's copy) and picks slot
//! `lane mod 32`. So the host evaluator and both SPIR-V lowerings run these with primitives they already
//! compute exactly; no new node. A kernel that itself touches the TTMPs while it has shared VGPRs is
//! refused. A VGPR above the allocation that is not a shared VGPR is refused, naming the register.
//!
//! One instruction that reads a shared VGPR as an operand and writes the same one would have its high pass
//! read what its low pass wrote: that is modelled for `ds_bpermute_b32` (ACO's use, lift/crosslane.rs)
//! and refused by name elsewhere. Merges with the old destination value (DPP row/bank masks,
//! v_writelane_b32, SDWA/16-bit preserved bits, permlane's kept lanes) are not operand reads: the lanes a
//! DPP mask, v_writelane or permlane leaves alone do not write the slot.

use super::{LiftError, Lifter};
use crate::verify::node_type;
use crate::{Handle, IntOp, Node, Shape, Ty, UnOp, EXEC_LO};

/// First trap-temporary SGPR (ttmp0): the owner masks of the shared VGPRs.
pub const TTMP0: u16 = 108;
/// Shared VGPRs whose owner mask fits in ttmp0..ttmp15.
pub const MAX_MODELLED: u32 = 16;

/// Per-instruction state of the shared-VGPR expansion.
#[derive(Default)]
pub(super) struct SharedState {
    /// Index of the instruction's first node (types of its nodes are tracked from there).
    pub first: usize,
    /// Types of the instruction's nodes (tracked only when shared VGPRs are in play).
    pub types: Vec<Option<(Ty, Shape)>>,
    /// The first refusal met while building nodes (`n` cannot fail): reported after the instruction.
    pub err: Option<String>,
    /// Set around reads of a destination's old value for a merge (not operand reads).
    pub old_read: bool,
    /// The lanes that really write the next VGPR write (DPP masks, v_writelane, permlane), if not all
    /// active lanes.
    pub write_en: Option<Handle<Node>>,
    /// Shared VGPRs read as operands by this instruction.
    pub operand_reads: Vec<u16>,
    /// The instruction's two passes are modelled where it reads and writes one shared VGPR.
    pub two_pass: bool,
    /// Reads of shared VGPRs in this instruction: (register, value, its 32 slots).
    pub cache: Vec<(u16, Handle<Node>, Vec<Handle<Node>>)>,
}

/// Where a VGPR lies.
#[derive(PartialEq, Eq)]
enum Place {
    Private,
    /// Shared, its index above the allocation.
    Shared(u16),
    Above,
}

impl Lifter<'_> {
    /// Whether VGPR accesses are checked and shared VGPRs expanded: the allocation is known.
    pub(super) fn shared_on(&self) -> bool {
        self.ext.vgpr_count.is_some()
    }

    fn place(&self, reg: u16) -> Place {
        let Some(alloc) = self.ext.vgpr_count else {
            return Place::Private;
        };
        let r = reg as u32;
        if r < alloc {
            Place::Private
        } else if self.ws == 64 && r < alloc + self.ext.shared_vgprs {
            Place::Shared((r - alloc) as u16)
        } else {
            Place::Above
        }
    }

    fn refuse(&mut self, why: String) {
        if self.sv.err.is_none() {
            self.sv.err = Some(why);
        }
    }

    fn above_msg(&self, reg: u16) -> String {
        let alloc = self.ext.vgpr_count.unwrap_or(256);
        if self.ext.shared_vgprs > 0 && self.ws == 64 {
            format!(
                "v{reg} is above the wave's {alloc} allocated VGPRs and its {} shared VGPRs \
                 (v{alloc}..v{})",
                self.ext.shared_vgprs,
                alloc + self.ext.shared_vgprs - 1
            )
        } else {
            format!(
                "v{reg} is above the wave's {alloc} allocated VGPRs (v0..v{}) and the kernel has no \
                 shared VGPRs{}",
                alloc.max(1) - 1,
                if self.ws == 32 {
                    " (wave32 has none)"
                } else {
                    ""
                }
            )
        }
    }

    /// Appends a node as is, tracking its type when shared VGPRs are in play.
    pub(super) fn push_raw(&mut self, node: Node) -> Handle<Node> {
        if self.shared_on() {
            let first = self.sv.first;
            let types = &self.sv.types;
            let t = node_type(&node, &|h: Handle<Node>| {
                h.index()
                    .checked_sub(first)
                    .and_then(|i| types.get(i).copied().flatten())
                    .ok_or_else(String::new)
            })
            .ok()
            .flatten();
            self.sv.types.push(t);
        }
        self.p.nodes.push(node)
    }

    fn ty_of(&self, h: Handle<Node>) -> Option<Ty> {
        h.index()
            .checked_sub(self.sv.first)
            .and_then(|i| self.sv.types.get(i).copied().flatten())
            .map(|t| t.0)
    }

    /// `n` with the shared-VGPR expansion: reads and writes of VGPRs at or above the allocation, the
    /// TTMPs the expansion owns, and lane reads of a shared VGPR's value.
    pub(super) fn n_checked(&mut self, node: Node) -> Handle<Node> {
        match node {
            Node::ReadVgpr { reg, ty } => {
                let wide = ty == Ty::B64;
                let p0 = self.place(reg);
                let p1 = if wide {
                    self.place(reg + 1)
                } else {
                    Place::Private
                };
                if p0 == Place::Private && p1 == Place::Private {
                    return self.push_raw(node);
                }
                if !wide {
                    return self.read_one(reg);
                }
                let lo = self.read_one(reg);
                let hi = self.read_one(reg + 1);
                self.push_raw(Node::Concat { lo, hi })
            }
            Node::WriteVgpr { reg, value } => {
                let wide = self.ty_of(value) == Some(Ty::B64);
                let p0 = self.place(reg);
                let p1 = if wide {
                    self.place(reg + 1)
                } else {
                    Place::Private
                };
                if p0 == Place::Private && p1 == Place::Private {
                    self.sv.write_en = None;
                    return self.push_raw(node);
                }
                if !wide {
                    let h = self.write_one(reg, value);
                    self.sv.write_en = None;
                    return h;
                }
                let lo = self.push_raw(Node::Unary {
                    op: UnOp::Trunc,
                    ty: Ty::B32,
                    a: value,
                });
                let k32 = self.c(Ty::B64, 32);
                let sh = self.push_raw(Node::Int {
                    op: IntOp::LShr,
                    ty: Ty::B64,
                    a: value,
                    b: k32,
                });
                let hi = self.push_raw(Node::Unary {
                    op: UnOp::Trunc,
                    ty: Ty::B32,
                    a: sh,
                });
                self.write_one(reg, lo);
                let h = self.write_one(reg + 1, hi);
                self.sv.write_en = None;
                h
            }
            Node::ReadLane { a, lane } => {
                // A constant lane of a shared VGPR's value is its slot.
                if let (Some(slots), Node::Const { bits, .. }) = (
                    self.sv.cache.iter().find(|c| c.1 == a).map(|c| c.2.clone()),
                    &self.p.nodes[lane],
                ) {
                    return slots[(*bits & 31) as usize];
                }
                self.push_raw(node)
            }
            Node::ReadSgpr { reg, ty } if self.ext.shared_vgprs > 0 && self.ws == 64 => {
                self.check_ttmp(reg, ty == Ty::B64);
                self.push_raw(node)
            }
            Node::WriteSgpr { reg, value } if self.ext.shared_vgprs > 0 && self.ws == 64 => {
                let wide = self.ty_of(value) == Some(Ty::B64);
                self.check_ttmp(reg, wide);
                self.push_raw(node)
            }
            _ => self.push_raw(node),
        }
    }

    fn check_ttmp(&mut self, reg: u16, wide: bool) {
        let end = reg + if wide { 2 } else { 1 };
        if reg < TTMP0 + MAX_MODELLED as u16 && end > TTMP0 {
            self.refuse(format!(
                "the kernel uses ttmp{}, where rdna2spv keeps the ownership of the wave64 shared \
                 VGPRs (D153)",
                reg.max(TTMP0) - TTMP0
            ));
        }
    }

    /// The 32 slots of shared VGPR `reg` (index `k` above the allocation), as uniform values.
    fn slots(&mut self, reg: u16, k: u16) -> Vec<Handle<Node>> {
        let c = self.push_raw(Node::ReadVgpr { reg, ty: Ty::B32 });
        let o = self.push_raw(Node::ReadSgpr {
            reg: TTMP0 + k,
            ty: Ty::B32,
        });
        (0..32u64)
            .map(|s| {
                let ls = self.c(Ty::B32, s);
                let lo = self.push_raw(Node::ReadLane { a: c, lane: ls });
                let lh = self.c(Ty::B32, s + 32);
                let hi = self.push_raw(Node::ReadLane { a: c, lane: lh });
                let bit = self.push_raw(Node::Extract {
                    ty: Ty::B1,
                    a: o,
                    shift: s as u8,
                });
                self.push_raw(Node::Select {
                    cond: bit,
                    a: hi,
                    b: lo,
                })
            })
            .collect()
    }

    /// One 32-bit VGPR read: private as is; shared: slot `lane mod 32`.
    fn read_one(&mut self, reg: u16) -> Handle<Node> {
        match self.place(reg) {
            Place::Private => self.push_raw(Node::ReadVgpr { reg, ty: Ty::B32 }),
            Place::Above => {
                let m = self.above_msg(reg);
                self.refuse(m);
                self.push_raw(Node::ReadVgpr { reg, ty: Ty::B32 })
            }
            Place::Shared(k) => {
                if !self.sv.old_read && !self.sv.operand_reads.contains(&reg) {
                    self.sv.operand_reads.push(reg);
                }
                if let Some(c) = self.sv.cache.iter().find(|c| c.0 == reg) {
                    return c.1;
                }
                if k as u32 >= MAX_MODELLED {
                    self.refuse(format!(
                        "shared VGPR v{reg} is number {k} above the allocation; {MAX_MODELLED} are \
                         modelled"
                    ));
                }
                let slots = self.slots(reg, k.min(MAX_MODELLED as u16 - 1));
                let lane = self.push_raw(Node::LaneId);
                let v = self.pick(&slots, lane);
                self.sv.cache.push((reg, v, slots));
                v
            }
        }
    }

    /// One 32-bit VGPR write: private as is; shared: the writing lanes' copies and the owner mask.
    fn write_one(&mut self, reg: u16, x: Handle<Node>) -> Handle<Node> {
        match self.place(reg) {
            Place::Private => self.push_raw(Node::WriteVgpr { reg, value: x }),
            Place::Above => {
                let m = self.above_msg(reg);
                self.refuse(m);
                self.push_raw(Node::WriteVgpr { reg, value: x })
            }
            Place::Shared(k) => {
                if self.sv.operand_reads.contains(&reg) && !self.sv.two_pass {
                    self.refuse(format!(
                        "a wave64 instruction that reads and writes shared VGPR v{reg}: its high \
                         half-pass would read what its low half-pass wrote (modelled for ds_bpermute_b32 \
                         only)"
                    ));
                }
                if k as u32 >= MAX_MODELLED {
                    self.refuse(format!(
                        "shared VGPR v{reg} is number {k} above the allocation; {MAX_MODELLED} are \
                         modelled"
                    ));
                }
                let ttmp = TTMP0 + k.min(MAX_MODELLED as u16 - 1);
                let w = match self.sv.write_en {
                    Some(en) => self.push_raw(Node::Ballot { cond: en }),
                    None => self.push_raw(Node::ReadSgpr {
                        reg: EXEC_LO,
                        ty: Ty::B64,
                    }),
                };
                let o = self.push_raw(Node::ReadSgpr {
                    reg: ttmp,
                    ty: Ty::B32,
                });
                let wlo = self.push_raw(Node::Unary {
                    op: UnOp::Trunc,
                    ty: Ty::B32,
                    a: w,
                });
                let k32 = self.c(Ty::B64, 32);
                let sh = self.push_raw(Node::Int {
                    op: IntOp::LShr,
                    ty: Ty::B64,
                    a: w,
                    b: k32,
                });
                let whi = self.push_raw(Node::Unary {
                    op: UnOp::Trunc,
                    ty: Ty::B32,
                    a: sh,
                });
                // Slots written by either half change owner: to the high lane where it wrote.
                let any = self.int(IntOp::Or, Ty::B32, wlo, whi);
                let ones = self.c(Ty::B32, 0xffff_ffff);
                let none = self.int(IntOp::Xor, Ty::B32, any, ones);
                let keep = self.int(IntOp::And, Ty::B32, o, none);
                let o2 = self.int(IntOp::Or, Ty::B32, keep, whi);
                self.push_raw(Node::WriteVgpr { reg, value: x });
                self.push_raw(Node::WriteSgpr {
                    reg: ttmp,
                    value: o2,
                })
            }
        }
    }

    /// The refusal met while lifting this instruction, if any.
    pub(super) fn shared_error(&mut self) -> Result<(), LiftError> {
        match self.sv.err.take() {
            Some(reason) => Err(LiftError::Register {
                kernel: String::new(),
                offset: self.pc,
                text: self.text.to_string(),
                reason,
            }),
            None => Ok(()),
        }
    }

    /// Reads `reg`'s old value for a merge into the destination (not an operand read).
    pub(super) fn read_old(&mut self, reg: u16, ty: Ty) -> Handle<Node> {
        let was = self.sv.old_read;
        self.sv.old_read = true;
        let h = self.n(Node::ReadVgpr { reg, ty });
        self.sv.old_read = was;
        h
    }

    /// Whether `reg` is a shared VGPR (wave64, above the allocation, within the shared count).
    pub(super) fn is_shared(&self, reg: u16) -> bool {
        matches!(self.place(reg), Place::Shared(_))
    }
}
