//! Straight-line chains of blocks emitted as one block item (decision D137).
//!
//! In the lane mapping a block item is `if (vote(label == n)) { on = label == n; block; label update;
//! label-copy update }` (D082 point 4). On lavapipe a selection construct never branches around its
//! body (gallivm only narrows the execution mask, D134), so every item costs its vote, its `on`
//! computation, its label store and its copy update in every pass, whatever the vote says.
//!
//! A block `a` *continues into* `c` ([`Cx::lane_chain_link`]) when, in the lane mapping, control can
//! reach `c` only from `a`, straight after `a`:
//!
//! * `a` leaves only to `c`: a jump to `c`, or a vote-free `s_cbranch_execz` whose fall-through is `c`
//!   (D102/D131/D132: the branch is never taken in the lane mapping); `a` does not end with `s_barrier`
//!   (that pauses the wave) nor with `s_endpgm`, and is not a lane-local loop exit (D130);
//! * every other edge into `c` is dead in the lane mapping: the taken edge of a vote-free
//!   `s_cbranch_execz` whose fall-through is another block; `c` is not the entry (a pass may start
//!   there). So `c` is never a pass's resume point (those are targets of `s_barrier` blocks, D108), never
//!   the place a D134 meeting resumes a wave, and never the exit of a D133 lane-local loop (that exit's
//!   edge comes from a conditional branch);
//! * `c` is the item right after `a` in the same item list (the same loop body, no item between).
//!
//! A chain `b1 -> b2 -> ... -> bk` of such links is one item: the vote and `on` of `b1`, the blocks'
//! code one after the other, and the label update, the copy update (or the publication, or D136's
//! labels from the ballot words) and the D134 meeting of `bk` only, with `b1`'s number as the copies'
//! "was here" value.
//!
//! Why exact: a wave's label is `n(b_i)` (i > 1) at `b_i`'s item only if it ran `b_{i-1}` in this pass
//! (every other way in is dead, and a pass never starts at `b_i`), and every wave that ran `b_{i-1}` "on"
//! goes to `b_i`. So the vote of `b_i`'s item equals the vote of `b1`'s, `on` is the same for every block
//! of the chain, the label and copies after the chain are the ones the items would have left one by one,
//! and nothing reads the label or the copies inside a chain (no item boundary, no publication, no
//! meeting: those happen only at a chain's end). Exchanges and LDS fences inside a chain stay in
//! workgroup-uniform control flow (the chain's vote is the `go` of `b1`). The LDS history (D106) of each
//! block is still taken from its CFG predecessors, which over-approximates what the chain emits before it.
//! A wave cut short by lavapipe's loop cap (its label left inside a loop, the next pass starting there)
//! is reported by its flag as before; only its (already failed) run may stop at a different place.

use rdna2spv_ir::cfg::ends_with_barrier;
use rdna2spv_ir::{Handle, Terminator};

use super::super::Cx;

impl Cx<'_> {
    /// Whether block `a` continues into block `c` in one chain item (lane mapping, D137), given that
    /// `c`'s item comes right after `a`'s in the same item list.
    pub(crate) fn lane_chain_link(&self, a: usize, c: usize) -> bool {
        self.lm.is_some() && self.lane_plan().chain_next[a] == Some(c)
    }

    /// The block each block continues into (L24), if any, by block index: the lane plan's entry (D177).
    /// The CFG's edges are listed once (into each block, its predecessors), so the cost is linear in
    /// the blocks (issue 31, D204); block by block, the edge check looked at every block.
    pub(crate) fn lane_chains(&self) -> Vec<Option<usize>> {
        let p = self.p;
        let nb = p.blocks.len();
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nb];
        for (h, q) in p.blocks.iter() {
            for s in q.terminator.successors() {
                if preds[s].last() != Some(&h.index()) {
                    preds[s].push(h.index());
                }
            }
        }
        (0..nb)
            .map(|a| {
                let c = match p.blocks[Handle::from_index(a)].terminator {
                    Terminator::Jump(to) => to.index(),
                    Terminator::Branch { .. } => self.lane_fallthrough(a)?,
                    Terminator::End => return None,
                };
                self.chain_link_of(a, c, &preds[c]).then_some(c)
            })
            .collect()
    }

    /// `preds`: the blocks with an edge into `c`.
    fn chain_link_of(&self, a: usize, c: usize, preds: &[usize]) -> bool {
        let p = self.p;
        if self.lm.is_none() || c == p.entry().index() || self.lane_exit(a) {
            return false;
        }
        if ends_with_barrier(p, a) {
            return false;
        }
        let blk = &p.blocks[Handle::from_index(a)];
        let only_c = match blk.terminator {
            Terminator::Jump(to) => to.index() == c,
            Terminator::Branch { .. } => self.lane_fallthrough(a) == Some(c),
            Terminator::End => false,
        };
        // Every other edge into c is the dead taken edge of a vote-free s_cbranch_execz.
        only_c
            && preds
                .iter()
                .all(|&qi| qi == a || self.lane_fallthrough(qi).is_some_and(|f| f != c))
    }
}
