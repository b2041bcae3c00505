//! `s_barrier` met where it stands (decision D134): the waves continue in the same pass.
//!
//! A block that ends with `s_barrier` pauses the waves that run it (D035, D108): their label copies
//! become `PAUSED + resume`, and the pass used to end there, every later item voting no. The next pass
//! then started from the first item after the outer loop's barrier. On lavapipe a pass costs the whole
//! structured program whatever its votes say: gallivm runs a selection construct's body under a mask and
//! never branches around it, and a loop's body at least once (measured: docs/performance.md, D134), so a
//! kernel with `k` barriers in straight-line code paid `k + 1` times its whole body.
//!
//! Here, right after the label update of such a block item `b`, the workgroup meets at one
//! `OpControlBarrier` in place when every wave's label copy (identical in every invocation, so the test is
//! workgroup-uniform) says ended, or paused with a resume number the rest of this pass reaches: at least
//! `ahead(b)`, the `lo` of the outermost loop around `b` (that loop iterates while a label lies in its
//! range) or `b`'s own number + 1 outside loops (structured numbers follow the emission order). Then the
//! copies are untagged and each invocation's label becomes its wave's resume number (`label == PAUSE ?
//! resume : label`), exactly the state the next pass would have started from, and the rest of the pass
//! runs what the next pass would have run. Otherwise nothing happens (the old pause).
//!
//! Why the resume numbers must lie ahead: the pass's end releases every paused wave (D121's barrier), which
//! is right only when every wave has paused or ended there. A wave resumed behind the current item would
//! still be at a structured label when the pass ends, and a wave that paused later in this pass would pass
//! its barrier without it (tests/lane_meet.rs, an empty third wave, catches exactly that).
//!
//! With one wave per Vulkan workgroup the wave that ran the block is the only one and has paused; its
//! resume number (the jump's target) lies ahead (a jump to an earlier number is a back edge inside a loop
//! around `b`): the meeting is unconditional.
//!
//! Only with static resume points (every `s_barrier` block ends in a jump, D108); otherwise the copies of a
//! paused wave are not its resume numbers and the pass start publishes them, so the pass ends as before.
//!
//! Workgroup-converged kernels (D143). When the whole kernel is converged (D141 point 5: one label copy,
//! wave 0's) and every `s_barrier` block jumps to a number at least `ahead` of it
//! ([`Cx::lane_meets_always`]), the meeting test is true whenever the item runs: the item runs when
//! wave 0's copy is its number, the label update makes that copy `PAUSED + to` with `to >= ahead`, and
//! every other wave is at the same block or empty (D141 (a), (b)). The barrier is then emitted without
//! the test, and no pass ever ends at a pause: the module runs one pass with no outer loop, the entry
//! chain at its top ([`Cx::lane_one_pass`]).

use rdna2spv_ir::cfg::{ends_with_barrier, Item, Structure};
use rdna2spv_ir::{Handle, Terminator};

use super::super::structured::PAUSE;
use super::super::{Cx, R};
use super::plan::Meet;
use super::PAUSED;

impl Cx<'_> {
    /// After the label update of block item `b` that ends with `s_barrier` (and does not end the
    /// program): meet the other waves in place when every wave has ended or paused with a resume number
    /// this pass still reaches (D134).
    pub(crate) fn lane_meet(&mut self, s: &Structure, b: usize) -> R<()> {
        let Some(m) = self.lm.as_ref() else {
            return Ok(());
        };
        let _ = s;
        let labels = m.labels;
        // The plan's decision (D177): with one wave, or converged (D143), no test.
        let meet = self.lane_plan().meets[b];
        if matches!(meet, None | Some(Meet::PassEnd)) {
            return Ok(());
        }
        // The emission-time LDS history after the item is the one without the (conditional) barrier.
        let (lds, seen) = (m.lds, m.lds_seen.clone());
        match (labels, meet) {
            (None, _) => self.lane_resume_here()?,
            (Some((_, _, _, copy)), Some(Meet::Always)) => {
                self.lane_resume_here()?;
                self.lane_untag(copy)?;
            }
            (Some((_, _, _, copy)), _) => {
                let Some(Meet::Tested { ahead: first }) = meet else {
                    return Err(super::super::LowerError::Build(
                        "a meeting of several waves planned as a lone wave's".into(),
                    ));
                };
                // PAUSED + n with n >= first (resumed ahead), or END.
                let all = self.lane_test_copies(copy, false, |cx, l, s| {
                    let low = cx.lanes_const(s, PAUSED + first - 1);
                    Ok(cx.b.u_greater_than(s.b, None, l, low)?)
                })?;
                self.guarded(all, None, |cx| {
                    cx.lane_resume_here()?;
                    cx.lane_untag(copy)?;
                    Ok(None)
                })?;
            }
        }
        let m = self.lm.as_mut().expect("lane mapping");
        m.lds = lds;
        m.lds_seen = seen;
        Ok(())
    }

    /// Several waves, the whole kernel converged with one label copy (D141 point 5), static resume
    /// points, and every block that ends with `s_barrier` either ends the program or jumps to a block
    /// numbered at least [`ahead`] of it: every barrier is met in place (D143).
    pub(crate) fn lane_meets_always(
        &self,
        s: &Structure,
        conv: &super::converged::Convergence,
    ) -> bool {
        let p = self.p;
        self.lm().labels.is_some()
            && conv.all
            && self.lane_static_resume()
            && p.blocks.iter().all(|(h, b)| {
                let i = h.index();
                !ends_with_barrier(p, i)
                    || match b.terminator {
                        Terminator::End => true,
                        Terminator::Jump(to) => {
                            ahead(s, &s.items, i, None).is_some_and(|a| s.number[to.index()] >= a)
                        }
                        Terminator::Branch { .. } => false,
                    }
            })
    }

    /// The module runs one structured pass with no outer loop, its entry chain at the top: a lone wave
    /// that never pauses (D142), or several converged waves whose every barrier is met in place (D143).
    pub(crate) fn lane_one_pass(&self) -> bool {
        // The plan's convergence facts moved into the emitter's state (`lane_masks_init`).
        self.lane_solo()
            || (self.lane_mode() && self.lane_plan().lone)
            || self.lm.as_ref().is_some_and(|m| m.conv.one_pass)
    }

    /// After a chain run without its label test in a converged multi-wave one-pass module (D143), whose
    /// last block is `b`: the block every wave with work goes to, when the chain's end sends all of them
    /// to one block: a jump (an `s_barrier` block's too: met in place with no test, the label becomes
    /// the resume number) or a vote-free `s_cbranch_execz` fall-through (D102). None otherwise, and in
    /// D142's solo modules (whose gate ends with the entry chain).
    pub(crate) fn lane_certain_next(&self, b: usize) -> Option<usize> {
        if !self.lm.as_ref().is_some_and(|m| m.conv.one_pass) {
            return None;
        }
        match self.p.blocks[Handle::from_index(b)].terminator {
            Terminator::Jump(to) => Some(to.index()),
            Terminator::Branch { .. } => self.lane_fallthrough(b),
            Terminator::End => None,
        }
    }

    /// One barrier, then the label becomes the resume number where the wave paused.
    fn lane_resume_here(&mut self) -> R<()> {
        let t = self.t;
        self.lane_barrier()?;
        let l = self.load_u32(self.label)?;
        let pause = self.c32(PAUSE);
        let paused = self.b.i_equal(t.bool, None, l, pause)?;
        let r = self.load_u32(self.resume)?;
        let x = self.b.select(t.u32, None, paused, r, l)?;
        self.store(self.label, x)
    }
}

/// The smallest structured number the rest of a pass still reaches after block item `b`: the `lo` of the
/// outermost loop around `b` (`outer`), else `b`'s number + 1. `None` when `b` is not in `items`.
pub(super) fn ahead(s: &Structure, items: &[Item], b: usize, outer: Option<u32>) -> Option<u32> {
    items.iter().find_map(|it| match it {
        Item::Block(x) if *x == b => Some(outer.unwrap_or(s.number[b] + 1)),
        Item::Block(_) => None,
        Item::Loop(lp) => ahead(s, &lp.items, b, outer.or(Some(lp.lo))),
    })
}
