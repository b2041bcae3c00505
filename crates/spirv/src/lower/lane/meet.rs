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

use rdna2spv_ir::cfg::{Item, Structure};

use super::super::structured::PAUSE;
use super::super::{Cx, R};
use super::PAUSED;

impl Cx<'_> {
    /// After the label update of block item `b` that ends with `s_barrier` (and does not end the
    /// program): meet the other waves in place when every wave has ended or paused with a resume number
    /// this pass still reaches (D134).
    pub(crate) fn lane_meet(&mut self, s: &Structure, b: usize) -> R<()> {
        let Some(m) = self.lm.as_ref() else {
            return Ok(());
        };
        let labels = m.labels;
        if labels.is_some() && !self.lane_static_resume() {
            return Ok(());
        }
        // The emission-time LDS history after the item is the one without the (conditional) barrier.
        let (lds, seen) = (m.lds, m.lds_seen.clone());
        let t = self.t;
        match labels {
            None => self.lane_resume_here()?,
            Some((_, _, _, copy)) => {
                let first = ahead(s, &s.items, b, None).expect("b is an item of s");
                // PAUSED + n with n >= first (resumed ahead), or END.
                let low = self.c32(PAUSED + first - 1);
                let mut all = self.ctrue();
                for w in 0..self.lane_copies() {
                    let k = self.c32(w);
                    let p = self.b.access_chain(t.fn_u32, None, copy, [k])?;
                    let l = self.load_u32(p)?;
                    let stopped = self.b.u_greater_than(t.bool, None, l, low)?;
                    all = self.b.logical_and(t.bool, None, all, stopped)?;
                }
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
fn ahead(s: &Structure, items: &[Item], b: usize, outer: Option<u32>) -> Option<u32> {
    items.iter().find_map(|it| match it {
        Item::Block(x) if *x == b => Some(outer.unwrap_or(s.number[b] + 1)),
        Item::Block(_) => None,
        Item::Loop(lp) => ahead(s, &lp.items, b, outer.or(Some(lp.lo))),
    })
}
