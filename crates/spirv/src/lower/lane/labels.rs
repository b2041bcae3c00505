//! Several waves per Vulkan workgroup: the labels of the other waves at the start of a pass without a
//! publication (decision D108).
//!
//! Each invocation keeps a copy of every wave's structured label, updated at the end of every block item
//! either by a publication (after a conditional branch: one barrier) or locally (`lane_advance`: a jump,
//! the end). A pass used to start with a publication too, because a wave that paused at `s_barrier` resumes
//! at its own resume point. When every block that ends with `s_barrier` ends in a jump, that resume point
//! is the jump's target, known to every invocation: the block's local update stores the target tagged as
//! paused (`PAUSED + number`, outside every structured range, so no construct of the rest of the pass runs
//! for that wave), and the next pass starts by untagging the copies, with no barrier. The copies start as
//! the entry's number for every wave with work-items and END for the waves a partial workgroup leaves empty
//! (their `done` is set from the start), exactly the labels the first publication used to gather.

use rdna2spv_ir::{Node, Terminator};
use spirv::Word;

use super::super::{Cx, R};

/// The tag of a paused wave's label copy (its resume number added); structured numbers stay below it.
pub(crate) const PAUSED: u32 = 0x8000_0000;

impl Cx<'_> {
    /// Whether the pass can start without a publication: every block that ends with `s_barrier` ends in
    /// a jump (a static resume target) and the structured numbers stay below [`PAUSED`].
    pub(crate) fn lane_static_resume(&self) -> bool {
        let p = self.p;
        if p.blocks.len() as u64 >= PAUSED as u64 {
            return false;
        }
        p.blocks.iter().all(|(_, b)| {
            let barrier = b
                .insts
                .iter()
                .any(|i| p.inst_nodes(i).any(|(_, n)| matches!(n, Node::Barrier)));
            !barrier || matches!(b.terminator, Terminator::Jump(_) | Terminator::End)
        })
    }

    /// Several waves: every wave's label copy at the start, from the workgroup's work-item count
    /// `threads` (u32): the entry's number for the waves with work-items, `end` for the empty ones.
    pub(crate) fn lane_init_labels(&mut self, threads: Word, entry: u32, end: u32) -> R<()> {
        let Some((_, _, _, copy)) = self.lm.as_ref().and_then(|m| m.labels) else {
            return Ok(());
        };
        let t = self.t;
        let ec = self.c32(entry);
        let endc = self.c32(end);
        for w in 0..self.lm.as_ref().expect("lane mapping").waves {
            let k = self.c32(w);
            let base = self.c32(w * self.ws);
            let has = self.b.u_greater_than(t.bool, None, threads, base)?;
            let l = self.b.select(t.u32, None, has, ec, endc)?;
            let p = self.b.access_chain(t.fn_u32, None, copy, [k])?;
            self.store(p, l)?;
        }
        Ok(())
    }

    /// Several waves, at a pass's start: the paused waves' copies become their resume numbers (with
    /// [`Self::lane_static_resume`]), else a publication of every wave's label.
    pub(crate) fn lane_pass_start(&mut self) -> R<()> {
        let Some((_, _, _, copy)) = self.lm.as_ref().and_then(|m| m.labels) else {
            return Ok(());
        };
        if !self.lane_static_resume() {
            return self.lane_publish();
        }
        self.lane_untag(copy)
    }

    /// The paused waves' label copies (`PAUSED + n`) in the private array `copy` become `n`.
    pub(crate) fn lane_untag(&mut self, copy: Word) -> R<()> {
        let t = self.t;
        let tag = self.c32(PAUSED);
        let low = self.c32(PAUSED - 1);
        let end_lo = self.c32(super::super::structured::PAUSE);
        for w in 0..self.lm.as_ref().expect("lane mapping").waves {
            let k = self.c32(w);
            let p = self.b.access_chain(t.fn_u32, None, copy, [k])?;
            let l = self.load_u32(p)?;
            // PAUSED + n for n < PAUSED - 2 (END and PAUSE themselves are never tagged values).
            let above = self.b.u_greater_than(t.bool, None, l, low)?;
            let below = self.b.u_less_than(t.bool, None, l, end_lo)?;
            let paused = self.b.logical_and(t.bool, None, above, below)?;
            let n = self.b.i_sub(t.u32, None, l, tag)?;
            let x = self.b.select(t.u32, None, paused, n, l)?;
            self.store(p, x)?;
        }
        Ok(())
    }

    /// The end of a pass in the lane mapping (D121): one barrier (the `s_barrier` the waves met, and the
    /// order of everything before it), then `all_done` = every wave has ended. With several waves that is
    /// every wave's label copy being END: a wave's label becomes END exactly when its `done` is set
    /// (`s_endpgm`), the copies follow every label change (publication after a conditional branch, local
    /// update after a jump, the end or a barrier, D108), and a wave that has ended keeps END. With one
    /// wave it is the wave's `done`, which every invocation holds (scalar state).
    pub(crate) fn lane_round(&mut self, done: Word, all_done: Word) -> R<()> {
        self.lane_barrier()?;
        let Some((_, _, _, copy)) = self.lm.as_ref().and_then(|m| m.labels) else {
            return self.store(all_done, done);
        };
        let t = self.t;
        let endc = self.c32(super::super::structured::END);
        let mut all = self.ctrue();
        for w in 0..self.lm.as_ref().expect("lane mapping").waves {
            let k = self.c32(w);
            let p = self.b.access_chain(t.fn_u32, None, copy, [k])?;
            let l = self.load_u32(p)?;
            let e = self.b.i_equal(t.bool, None, l, endc)?;
            all = self.b.logical_and(t.bool, None, all, e)?;
        }
        self.store(all_done, all)
    }
}
