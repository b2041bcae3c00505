//! Lane masks that never need the whole wave (decision D082, point 7).
//!
//! A VOPC compare or a carry-out writes a ballot (a wave-wide mask) to an SGPR; in the lane mapping that
//! costs an exchange (a barrier). Most of those masks are only ever read back one bit per lane (the next
//! instruction's carry-in, v_cndmask's select) and are overwritten before anything reads the whole mask:
//! a 64-bit address add is `v_add_co_u32` + `v_add_co_ci_u32`, both through VCC. Within one block, a
//! ballot whose register is fully overwritten before any whole-register read, and before the block ends,
//! is never exchanged: the lane keeps its own bit (`cond && active`, exactly bit `lane` of the mask) for
//! the `LaneBit` reads in between, and the register write is dropped (nothing can observe it).
//! A block that ends the program (s_endpgm) counts as overwriting every register at its end (D084).
//! A `LaneBit` read of a register last written by a ballot in the same block takes the lane's own bit in
//! every case (it is that bit of the mask), whether or not the ballot was exchanged.

use std::collections::{HashMap, HashSet};

use rdna2spv_ir::{Handle, Node, Sreg, Ty, UnOp, EXEC_LO, M0};
use spirv::Word;

use super::super::{operands, Cx, R};

/// The result of the analysis of one block.
#[derive(Default)]
pub(crate) struct MaskPlan {
    /// Ballot nodes that are not exchanged (and whose register write is dropped).
    pub(crate) elided: HashSet<usize>,
    /// ReadSgpr nodes read only through LaneBit, with the ballot node that last wrote their register.
    pub(crate) forward: HashMap<usize, usize>,
    /// The lane's own bit of each ballot, once emitted.
    pub(crate) bits: HashMap<usize, Word>,
}

impl Cx<'_> {
    /// Consumers of every node (terminator conditions count as whole reads).
    pub(crate) fn lane_uses(&self) -> Vec<Vec<usize>> {
        let mut uses = vec![Vec::new(); self.p.nodes.len()];
        for (h, n) in self.p.nodes.iter() {
            for op in operands(n) {
                uses[op.index()].push(h.index());
            }
        }
        for (_, b) in self.p.blocks.iter() {
            if let rdna2spv_ir::Terminator::Branch { cond, .. } = b.terminator {
                uses[cond.index()].push(usize::MAX);
            }
        }
        uses
    }

    /// `Ballot → (Trunc to B32)? → WriteSgpr`: the write node and its register span, if `w` is a
    /// WriteSgpr of a ballot and nothing else uses the ballot.
    fn ballot_write(&self, uses: &[Vec<usize>], w: usize) -> Option<usize> {
        let Node::WriteSgpr { value, .. } = self.p.nodes[Handle::from_index(w)] else {
            return None;
        };
        let mut v = value.index();
        if let Node::Unary {
            op: UnOp::Trunc,
            ty: Ty::B32,
            a,
        } = self.p.nodes[Handle::from_index(v)]
        {
            if uses[v].len() != 1 {
                return None;
            }
            v = a.index();
        }
        match self.p.nodes[Handle::from_index(v)] {
            Node::Ballot { cond } if self.is_lane(cond) && uses[v].len() == 1 => Some(v),
            _ => None,
        }
    }

    /// Whether a ReadSgpr node is read only as lane bits (`(ZExt)? → LaneBit`).
    fn lanebit_only(&self, uses: &[Vec<usize>], r: usize) -> bool {
        !uses[r].is_empty()
            && uses[r].iter().all(|&u| {
                if u == usize::MAX {
                    return false;
                }
                match self.p.nodes[Handle::from_index(u)] {
                    Node::LaneBit { .. } => true,
                    Node::Unary {
                        op: UnOp::ZExt,
                        ty: Ty::B64,
                        ..
                    } => {
                        !uses[u].is_empty()
                            && uses[u].iter().all(|&x| {
                                x != usize::MAX
                                    && matches!(
                                        self.p.nodes[Handle::from_index(x)],
                                        Node::LaneBit { .. }
                                    )
                            })
                    }
                    _ => false,
                }
            })
    }

    /// Plans block `bi` (lane mapping).
    pub(crate) fn lane_plan_masks(&mut self, bi: usize) {
        let uses = match self.lm.as_mut().and_then(|m| m.uses.take()) {
            Some(u) => u,
            None => self.lane_uses(),
        };
        let mut plan = MaskPlan::default();
        let span = |reg: Sreg, ty: Ty| -> (u32, u32) {
            let n = if ty == Ty::B64 { 2 } else { 1 };
            (reg as u32, reg as u32 + n)
        };
        let overlaps = |a: (u32, u32), b: (u32, u32)| a.0 < b.1 && b.0 < a.1;
        // Live candidates: register span → ballot node.
        let mut live: Vec<((u32, u32), usize)> = Vec::new();
        let block = &self.p.blocks[Handle::from_index(bi)];
        for inst in &block.insts {
            // Reads first (the instruction reads before it writes).
            for i in inst.nodes.clone() {
                let i = i as usize;
                let (reg, ty) = match self.p.nodes[Handle::from_index(i)] {
                    Node::ReadSgpr { reg, ty } => (reg, ty),
                    _ => continue,
                };
                let s = span(reg, if ty == Ty::B64 { Ty::B64 } else { Ty::B32 });
                let only_bits = self.lanebit_only(&uses, i);
                live.retain(|&(cs, b)| {
                    if !overlaps(cs, s) {
                        return true;
                    }
                    if only_bits && cs == s {
                        plan.forward.insert(i, b);
                        true
                    } else {
                        false // read whole: exchanged as usual
                    }
                });
            }
            for i in inst.nodes.clone() {
                let i = i as usize;
                let Node::WriteSgpr { reg, value } = self.p.nodes[Handle::from_index(i)] else {
                    continue;
                };
                let s = span(reg, self.ty(value.index()));
                live.retain(|&(cs, b)| {
                    if !overlaps(cs, s) {
                        return true;
                    }
                    if s.0 <= cs.0 && cs.1 <= s.1 {
                        plan.elided.insert(b); // overwritten whole, never read whole
                    }
                    false
                });
                if let Some(b) = self.ballot_write(&uses, i) {
                    let excluded = [EXEC_LO as u32, EXEC_LO as u32 + 1, M0 as u32];
                    if s.1 <= 106 + 2 && !excluded.iter().any(|&x| s.0 <= x && x < s.1) {
                        live.push((s, b));
                    }
                }
            }
        }
        // A block that ends the program (s_endpgm): nothing reads any register after it, so a ballot still
        // live at its end is dead as if overwritten (D084: one exchange barrier fewer, e.g. the carry-out
        // of a kernel's last 64-bit address add).
        if matches!(block.terminator, rdna2spv_ir::Terminator::End) {
            plan.elided.extend(live.iter().map(|&(_, b)| b));
        }
        if let Some(m) = self.lm.as_mut() {
            m.masks = plan;
            m.uses = Some(uses);
        }
    }

    /// Whether Ballot node `i` is not exchanged.
    pub(crate) fn lane_elided(&self, i: usize) -> bool {
        self.lm
            .as_ref()
            .is_some_and(|m| m.masks.elided.contains(&i))
    }

    /// Whether the WriteSgpr node `w` writes an elided ballot (dropped).
    pub(crate) fn lane_dropped_write(&self, w: usize) -> bool {
        let Some(m) = &self.lm else {
            return false;
        };
        if m.masks.elided.is_empty() {
            return false;
        }
        let Node::WriteSgpr { value, .. } = self.p.nodes[Handle::from_index(w)] else {
            return false;
        };
        let mut v = value.index();
        if let Node::Unary {
            op: UnOp::Trunc, a, ..
        } = self.p.nodes[Handle::from_index(v)]
        {
            v = a.index();
        }
        m.masks.elided.contains(&v)
    }

    /// Records the lane's own bit of ballot `i` (a bool).
    pub(crate) fn lane_set_bit(&mut self, i: usize, bit: Word) {
        if let Some(m) = self.lm.as_mut() {
            m.masks.bits.insert(i, bit);
        }
    }

    /// LaneBit of `mask` when it reads a register last written by a ballot of this block: the lane's own
    /// bit of that ballot.
    pub(crate) fn lane_forwarded_bit(&self, mask: Handle<Node>) -> Option<Word> {
        let m = self.lm.as_ref()?;
        let mut r = mask.index();
        if let Node::Unary {
            op: UnOp::ZExt, a, ..
        } = self.p.nodes[mask]
        {
            r = a.index();
        }
        let b = m.masks.forward.get(&r)?;
        m.masks.bits.get(b).copied()
    }

    /// Emits ballot `i`'s own bit without an exchange (an elided ballot); its uniform value is never
    /// observed (its register write is dropped) and is given as 0.
    pub(crate) fn lane_own_ballot(&mut self, i: usize) -> R<()> {
        let Node::Ballot { cond } = self.p.nodes[Handle::from_index(i)] else {
            return Err(self.unsupported("not a ballot"));
        };
        let c = self.get(cond)?;
        let act = self.active.expect("lane body emitted");
        let bit = self.b.logical_and(self.t.bool, None, c, act)?;
        self.lane_set_bit(i, bit);
        let z = self.c64(0);
        self.uni.insert(i, z);
        Ok(())
    }
}
