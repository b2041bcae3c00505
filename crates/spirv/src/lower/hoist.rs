//! Scalar loads of the entry block read at the top of the module (decision D118), and the scalar loads
//! that read inside a launch segment anywhere (decision D132, [`Cx::launch_segment_loads`]).
//!
//! A scalar load (`s_load_*`: a Uniform `Load` from global memory) of the entry block whose address is an
//! initial SGPR pair (a launch word pair: the kernarg or dispatch pointer) plus a constant, masked by a
//! constant (`(base + c) & ~3`), is performed once in the module's prologue and the load node takes that
//! value. On lavapipe a load at the top of the shader, outside any control flow, with a uniform address
//! is one scalar load; inside the structured loops and label tests every global load is a loop over the
//! SIMD lanes with a per-lane insert (docs/performance.md, "Per-invocation overhead").
//!
//! Why the value is the same: the entry block (when no branch leads back to it) runs once per wave,
//! first, and its loads execute
//! unconditionally (a wave with no work-items loads the same addresses as one that has them: the launch
//! words are the same for every wave), so the hoisted load reads an address the program reads anyway.
//! The load qualifies only when, in the entry block before it, nothing writes either SGPR of the pair and
//! nothing stores to global memory (no `Store`, `StoreIf`, `Atomic`, `AtomicIf` in `Space::Global`):
//! then the wave has not changed the address nor the memory since the start. Memory written by another
//! wave of the dispatch between the start and the load would be a race the host evaluator does not order
//! either (and kernarg and the dispatch packet are read-only under the HSA ABI).

use crate::hash::{HashMap, HashSet};

use rdna2spv_ir::cfg::Cfg;
use rdna2spv_ir::{Access, Handle, IntOp, Node, Space, Terminator, Ty};
use spirv::Word;

use super::lane::span;
use super::{Cx, SgprInit, R};

/// Where a hoisted load reads: `((pair + add) & and) + offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hoisted {
    pub(crate) node: usize,
    /// The SGPR pair's low register.
    pub(crate) reg: u32,
    pub(crate) add: u64,
    pub(crate) and: u64,
    pub(crate) offset: i64,
}

impl Cx<'_> {
    /// The entry block's hoistable scalar loads (none with traces, which record every access where it
    /// happens; in checked mode only those proven inside a launch segment, which need no bounds test
    /// and cannot fault wherever they run, D158).
    pub(crate) fn hoistable(&self) -> Vec<Hoisted> {
        if self.opts.trace.is_some() {
            return Vec::new();
        }
        let mut out = self.hoistable_all();
        if self.opts.checked.is_some() {
            out.retain(|h| self.proven.contains(&h.node));
        }
        out
    }

    fn hoistable_all(&self) -> Vec<Hoisted> {
        let init: Vec<u32> = self
            .desc
            .sgprs
            .iter()
            .filter(|(_, v)| matches!(v, SgprInit::Const(_)))
            .map(|&(r, _)| r as u32)
            .collect();
        let entry_h = self.p.entry();
        let reentered = self.p.blocks.iter().any(|(_, b)| match b.terminator {
            Terminator::Jump(t) => t == entry_h,
            Terminator::Branch {
                taken, not_taken, ..
            } => taken == entry_h || not_taken == entry_h,
            Terminator::End => false,
        });
        if reentered {
            return Vec::new();
        }
        let mut clean: Vec<u32> = init.clone();
        let mut stored = false;
        let mut out = Vec::new();
        let entry = &self.p.blocks[self.p.entry()];
        for inst in &entry.insts {
            for i in inst.nodes.clone() {
                let i = i as usize;
                match self.p.nodes[Handle::from_index(i)] {
                    Node::Load {
                        space: Space::Global,
                        access,
                        addr,
                        offset,
                    } if !stored
                        && access == Access::B32
                        && offset % 4 == 0
                        && self.shape(i) == Some(rdna2spv_ir::Shape::Uniform) =>
                    {
                        if let Some((_, reg, add, and)) = self.pair_address(addr) {
                            // Dword-aligned by its mask (s_load's `& ~3`): never a misaligned access.
                            if and & 3 == 0 && clean.contains(&reg) && clean.contains(&(reg + 1)) {
                                out.push(Hoisted {
                                    node: i,
                                    reg,
                                    add,
                                    and,
                                    offset,
                                });
                            }
                        }
                    }
                    Node::WriteSgpr { reg, value } => {
                        let n = if self.ty(value.index()) == Ty::B64 {
                            2
                        } else {
                            1
                        };
                        for r in reg as u32..reg as u32 + n {
                            clean.retain(|&c| c != r);
                        }
                    }
                    Node::Store {
                        space: Space::Global,
                        ..
                    }
                    | Node::StoreIf {
                        space: Space::Global,
                        ..
                    }
                    | Node::Atomic {
                        space: Space::Global,
                        ..
                    }
                    | Node::AtomicIf {
                        space: Space::Global,
                        ..
                    } => stored = true,
                    _ => {}
                }
            }
        }
        out
    }

    /// The scalar loads that read inside a launch segment ([`super::LaunchSegment`], decision D132): a
    /// Uniform B32 `Load` from global memory at `((pair + add) & and) + offset` where `pair` is a
    /// segment's SGPR pair read in the load's own instruction, no path from the program's start to that
    /// instruction writes either word of the pair (a forward "never written" analysis over the CFG: a word
    /// is unwritten at a block's entry only if it is unwritten at the end of every predecessor), so the
    /// read gives the pair's initial value, the segment's address; `and` clears no bit above bit 1
    /// (s_load's `& ~3`; with a dword-aligned base the address is `base + (add & and) + offset`); and
    /// those four bytes lie inside the segment. Such a load reads allocated memory whatever path led to
    /// it and has no effect besides its value: running it where the hardware skips it (a vote-free
    /// `s_cbranch_execz`, D102) can neither fault nor change anything but the SGPRs it writes.
    pub(crate) fn launch_segment_loads(&self) -> HashSet<usize> {
        let segs: Vec<_> = self.opts.segments.iter().flatten().copied().collect();
        let mut found = HashSet::default();
        if segs.is_empty() {
            return found;
        }
        // The SGPR words node `i` writes (none if it is not a WriteSgpr).
        let writes = |i: usize| match self.p.nodes[Handle::from_index(i)] {
            Node::WriteSgpr { reg, value } => span(reg, self.ty(value.index())),
            _ => 0,
        };
        // Words unwritten on every path from the start to each block's end (greatest fixpoint).
        let nb = self.p.blocks.len();
        let preds = Cfg::new(self.p).preds;
        let mut block_wr = vec![0u128; nb];
        for (h, blk) in self.p.blocks.iter() {
            for inst in &blk.insts {
                for i in inst.nodes.clone() {
                    block_wr[h.index()] |= writes(i as usize);
                }
            }
        }
        let entry_in = |b: usize, out: &[u128]| preds[b].iter().fold(u128::MAX, |a, &p| a & out[p]);
        let mut out = vec![u128::MAX; nb];
        loop {
            let mut changed = false;
            for b in 0..nb {
                let o = entry_in(b, &out) & !block_wr[b];
                if o != out[b] {
                    out[b] = o;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for (h, blk) in self.p.blocks.iter() {
            let mut clean = entry_in(h.index(), &out);
            for inst in &blk.insts {
                for i in inst.nodes.clone() {
                    // Node by node: a write earlier in the same instruction counts too.
                    clean &= !writes(i as usize);
                    let Node::Load {
                        space: Space::Global,
                        access: Access::B32,
                        addr,
                        offset,
                    } = self.p.nodes[Handle::from_index(i as usize)]
                    else {
                        continue;
                    };
                    let Some((base, reg, add, and)) = self.pair_address(addr) else {
                        continue;
                    };
                    let own = inst.nodes.contains(&(base.index() as u32));
                    if and | 3 != u64::MAX || !own || clean >> reg & 3 != 3 {
                        continue;
                    }
                    let start = (add & and) as i128 + offset as i128;
                    if segs
                        .iter()
                        .any(|s| s.sgpr as u32 == reg && start >= 0 && start + 4 <= s.bytes as i128)
                    {
                        found.insert(i as usize);
                    }
                }
            }
        }
        found
    }

    /// `addr` as `(pair + add) & and` of a 64-bit SGPR read `base` (`and` all ones when not masked):
    /// `(base, pair's low register, add, and)`.
    fn pair_address(&self, addr: Handle<Node>) -> Option<(Handle<Node>, u32, u64, u64)> {
        let node = |h: Handle<Node>| &self.p.nodes[h];
        let konst = |h: Handle<Node>| match *node(h) {
            Node::Const { ty: Ty::B64, bits } => Some(bits),
            _ => None,
        };
        let (sum, and) = match *node(addr) {
            Node::Int {
                op: IntOp::And,
                ty: Ty::B64,
                a,
                b,
            } => (a, konst(b)?),
            _ => (addr, u64::MAX),
        };
        let (base, add) = match *node(sum) {
            Node::Int {
                op: IntOp::Add,
                ty: Ty::B64,
                a,
                b,
            } => (a, konst(b)?),
            _ => (sum, 0),
        };
        match *node(base) {
            Node::ReadSgpr { reg, ty: Ty::B64 } if (reg as u32) + 1 < 106 => {
                Some((base, reg as u32, add, and))
            }
            _ => None,
        }
    }

    /// Emits the hoisted loads (at the top of the module, after the initial SGPRs; `init` the initial
    /// value of each Const SGPR) and returns each load node's value.
    pub(crate) fn emit_hoisted(
        &mut self,
        loads: &[Hoisted],
        init: &HashMap<u32, Word>,
    ) -> R<HashMap<usize, Word>> {
        let t = self.t;
        let mut out = HashMap::default();
        for h in loads {
            let (lo, hi) = (init[&h.reg], init[&(h.reg + 1)]);
            let base = self.join64(lo, hi)?;
            let add = self.c64(h.add);
            let a = self.b.i_add(t.u64, None, base, add)?;
            let and = self.c64(h.and);
            let a = self.b.bitwise_and(t.u64, None, a, and)?;
            self.skip_check = self.proven.contains(&h.node);
            self.aligned_addr = h.and & 3 == 0 && h.offset % 4 == 0;
            let v = self.mem_load(Space::Global, Access::B32, a, Ty::B64, h.offset);
            self.skip_check = false;
            self.aligned_addr = false;
            let v = v?;
            out.insert(h.node, v);
        }
        Ok(out)
    }
}
