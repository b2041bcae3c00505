//! LDS barriers across blocks in the lane mapping (decision D106).
//!
//! [`Cx::lane_lds_fence`] puts a barrier before an LDS phase when an access of another lane since the last
//! barrier could conflict with it. Within a block the lowering knows that history exactly (it emitted
//! every barrier); at a block's start it used to assume the worst (an LDS write since the last barrier).
//! Here the history at a block's start is the union (the larger [`LdsState`]) over its predecessors of the
//! history at their ends:
//!
//! * a predecessor already emitted in this module contributes the state its emission ended with (after
//!   the label publication that follows a conditional branch with several waves, itself a barrier);
//! * a predecessor not yet emitted (a loop's back edge) contributes a fixed point computed before
//!   emission that counts only the barriers certain at its end: the `s_barrier` that ends a block (its
//!   successor starts a new pass after the outer loop's barrier round) and, with several waves per Vulkan
//!   workgroup, the label publication after a conditional branch (not after a vote-free s_cbranch_execz,
//!   D102, nor inside a loop run lane by lane, D133: the fixed point is recomputed once those are known,
//!   [`Cx::lane_lds_flow_final`]). Barriers of exchanges inside a block are ignored there, which can only
//!   make the state larger (more barriers, never fewer);
//! * the entry block and every block a pass resumes at follow a barrier (the counter initialisation,
//!   the barrier round): clean.
//!
//! Addresses are not compared: proving two lanes' LDS addresses disjoint needs value ranges of
//! per-lane registers (the tree reduction's `lid < s` comes from EXEC), which is neither simple nor
//! cheap to get exactly right, so every write still orders against every other access.

use rdna2spv_ir::cfg::ends_with_barrier;
use rdna2spv_ir::{Handle, Node, Program, Space};

use super::super::Cx;
use super::LdsState;

/// The pre-computed part of the dataflow.
pub(crate) struct LdsFlow {
    preds: Vec<Vec<usize>>,
    /// Each block's state at its end, counting only the barriers certain there.
    fixed_out: Vec<LdsState>,
    /// Each emitted block's state at its end as emitted.
    emitted: Vec<Option<LdsState>>,
}

/// What a block does to LDS: `Written` when any node writes it, `Read` when nodes only read it.
fn block_access(p: &Program, b: usize) -> LdsState {
    let mut st = LdsState::Clean;
    for inst in &p.blocks[Handle::from_index(b)].insts {
        for (_, n) in p.inst_nodes(inst) {
            match n {
                Node::Load {
                    space: Space::Lds, ..
                }
                | Node::LoadIf {
                    space: Space::Lds, ..
                } => st = st.max(LdsState::Read),
                Node::Store {
                    space: Space::Lds, ..
                }
                | Node::StoreIf {
                    space: Space::Lds, ..
                }
                | Node::Atomic {
                    space: Space::Lds, ..
                }
                | Node::AtomicIf {
                    space: Space::Lds, ..
                } => st = LdsState::Written,
                _ => {}
            }
        }
    }
    st
}

impl LdsFlow {
    /// The fixed point for `p`; `publishes[b]`: block `b` ends with a label publication (several waves
    /// per Vulkan workgroup: a conditional branch that is not vote-free (D102) and not inside a loop run
    /// lane by lane (D133); all false before those are known, which can only add barriers).
    pub(crate) fn of(p: &Program, publishes: &[bool]) -> Self {
        let n = p.blocks.len();
        let mut preds = vec![Vec::new(); n];
        for (h, b) in p.blocks.iter() {
            for s in b.terminator.successors() {
                if !preds[s].contains(&h.index()) {
                    preds[s].push(h.index());
                }
            }
        }
        let acc: Vec<LdsState> = (0..n).map(|b| block_access(p, b)).collect();
        let clean_end: Vec<bool> = (0..n)
            .map(|b| ends_with_barrier(p, b) || publishes.get(b).copied().unwrap_or(false))
            .collect();
        let mut out = vec![LdsState::Clean; n];
        loop {
            let mut changed = false;
            for b in 0..n {
                let inn = preds[b]
                    .iter()
                    .map(|&q| out[q])
                    .max()
                    .unwrap_or(LdsState::Clean);
                let o = if clean_end[b] {
                    LdsState::Clean
                } else {
                    inn.max(acc[b])
                };
                if o != out[b] {
                    out[b] = o;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        LdsFlow {
            preds,
            fixed_out: out,
            emitted: vec![None; n],
        }
    }

    /// The LDS history at the start of block `b` before anything is emitted (the plan's L7 entry: only
    /// the barriers certain at each predecessor's end counted).
    pub(crate) fn fixed_at_start(&self, b: usize) -> LdsState {
        self.preds[b]
            .iter()
            .map(|&q| self.fixed_out[q])
            .max()
            .unwrap_or(LdsState::Clean)
    }

    /// The LDS history at the start of block `b`.
    pub(crate) fn at_start(&self, b: usize) -> LdsState {
        self.preds[b]
            .iter()
            .map(|&q| self.emitted[q].unwrap_or(self.fixed_out[q]))
            .max()
            .unwrap_or(LdsState::Clean)
    }
}

impl Cx<'_> {
    /// After block `b`'s code and its label update (and publication): records its LDS history; a block
    /// that ends with `s_barrier` (`barrier`) is followed by a new pass after the barrier round.
    pub(crate) fn lane_block_end(&mut self, b: usize, barrier: bool) {
        if let Some(m) = self.lm.as_mut() {
            let st = if barrier { LdsState::Clean } else { m.lds };
            if let Some(f) = m.lds_flow.as_mut() {
                f.emitted[b] = Some(st);
            }
        }
    }
}
