//! Several waves per Vulkan workgroup: loops left lane by lane run on each invocation's own label
//! (decision D133, extending D130 and D131 to multi-wave workgroups).
//!
//! With several waves every structured construct is entered by a workgroup vote over the label copies,
//! each block runs with the `on` flag, and every conditional branch publishes the wave labels (one barrier,
//! D082 point 4). A loop with a lane-local exit (D130) needs none of that inside:
//!
//! * its blocks emit no barrier (no s_barrier, no LDS, no uniform store or atomic, no exchange and no mask
//!   materialisation: the D130 conditions, verified after planning), so invocations may be in different
//!   places inside it;
//! * its only exit edge is the lane-local exit `B -> X` (D130 point 1: no other edge leaves it, no block
//!   ends the program), so every invocation that enters it leaves with its label at X, known statically.
//!
//! So the loop item is guarded by the invocation's *own* label (not the vote), its header tests the own
//! label, and inside it no label is published and no copy advanced ([`Cx::lane_vote`], `lane_publish`,
//! `lane_advance` act as with one wave). `on` is set at each block item as before (`label == n`), which is
//! true in every invocation that runs the item: a wave whose label is elsewhere never enters the loop, so
//! its state stays frozen without running it "off". After the loop's selection construct (where every
//! invocation of the workgroup has reconverged) every invocation advances each copy that lies in the
//! loop's range to X: exactly the waves that were inside (the copies are exact at the loop's entry,
//! D121), all of whose lanes are now at X.
//!
//! The LDS history (D106) of a block inside such a loop must not count a publication at its end: the
//! fixed point is recomputed once the loops are known ([`Cx::lane_lds_flow_final`]).
//!
//! L45 (decision D238) runs loops the same way when every lane of a wave leaves them together (an SCC
//! back edge on a wave-dependent trip count): nothing inside needs the workgroup and every way out leads
//! to one block ([`Cx::lane_wave_loops_of`]). Inside either kind `on` is known true
//! ([`Cx::lane_on_known`]).

use rdna2spv_ir::cfg::{Item, Structure};
use rdna2spv_ir::{Handle, Terminator};

use super::super::{Cx, Kind, R};
use super::lds;

impl Cx<'_> {
    /// Several waves: the structured number of the exit target of the loop `[lo, hi)` when it is run on
    /// each invocation's own label (D133): it holds a lane-local exit (D130) that leaves it. None with one
    /// wave (D130 alone) or inside such a loop already (a nested loop is then run the same way).
    pub(crate) fn lane_local_loop(&self, lo: u32, hi: u32) -> Option<u32> {
        let m = self.lm.as_ref()?;
        if m.waves < 2 || m.local {
            return None;
        }
        self.lane_plan().local_loop(lo, hi)
    }

    /// The analysis behind [`Self::lane_local_loop`] (the lane plan's L16 entries, D177).
    pub(crate) fn lane_local_loop_of(&self, number: &[u32], lo: u32, hi: u32) -> Option<u32> {
        let m = self.lm.as_ref()?;
        if m.waves < 2 || m.local {
            return None;
        }
        m.masks.exit_blocks().find_map(|b| {
            let (_, x) = self.exit_pattern(b)?;
            ((lo..hi).contains(&number[b]) && !(lo..hi).contains(&number[x])).then_some(number[x])
        })
    }

    /// Enters (`true`) or leaves a lane-local loop's body (D133).
    pub(crate) fn lane_set_local(&mut self, local: bool) {
        if let Some(m) = self.lm.as_mut() {
            m.local = local;
        }
    }

    /// After a lane-local loop `[lo, hi)` whose exit is the block numbered `x` (D133), in uniform control
    /// flow: every copy in `[lo, hi)` (the waves that were inside) becomes `x`.
    pub(crate) fn lane_local_exit(&mut self, lo: u32, hi: u32, x: u32) -> R<()> {
        let Some((_, _, _, copy)) = self.lm.as_ref().and_then(|m| m.labels) else {
            return Ok(());
        };
        self.lane_update_copies(copy, |cx, l, s| {
            let xc = cx.lanes_const(s, x);
            let inr = cx.lanes_in(s, l, lo, hi)?;
            Ok(cx.b.select(s.u, None, inr, xc, l)?)
        })
    }

    /// Whether block `b` ends with a barrier after its last LDS access because of its branch (several
    /// waves): a conditional branch that is neither a vote-free s_cbranch_execz (D102) nor inside a
    /// lane-local loop (D133) publishes the labels, or (D136) exchanges EXEC in its last instruction.
    fn lane_publishes(&self, b: usize) -> bool {
        let Some(m) = self.lm.as_ref() else {
            return false;
        };
        if m.waves < 2
            || !matches!(
                self.p.blocks[rdna2spv_ir::Handle::from_index(b)].terminator,
                rdna2spv_ir::Terminator::Branch { .. }
            )
            || m.masks.falls_through(b)
            || m.conv.uniform_branch.get(b).copied().unwrap_or(false)
        {
            return false;
        }
        let Some(s) = self.structure.as_ref() else {
            return false; // unknown: no barrier counted (more fences, never fewer)
        };
        // L45: inside a wave-local loop every branch follows the invocation's own label.
        if m.wave_loops
            .iter()
            .any(|&(lo, hi)| (lo..hi).contains(&s.number[b]))
        {
            return false;
        }
        !m.masks.exit_blocks().any(|e| {
            self.exit_pattern(e).is_some_and(|(h, x)| {
                let (lo, hi) = local_range(s, h);
                (lo..hi).contains(&s.number[b]) && !(lo..hi).contains(&s.number[x])
            })
        })
    }

    /// L45 (decision D238), several waves: the outermost loops that run on each invocation's own label
    /// like L16's although no lane leaves them alone, as `(lo, hi, exit)`. A loop qualifies when nothing
    /// in it needs the workgroup (its blocks emit no barrier: no s_barrier, no LDS access, no uniform
    /// store or atomic, no exchange of a lane value, ballot or mask, no L44 shuffle) and every way out
    /// of it leads to one block `X` (of the enclosing loop, when there is one), with no `s_endpgm`
    /// inside. Then invocations may be at different places inside it, every branch in it is decided by
    /// the invocation from its own (wave-uniform) scalar state or own bits, and every wave that enters
    /// leaves with its label at `X`: the copies advance to `X` after it ([`Self::lane_local_exit`]).
    /// Loops L16 already takes are left to it. Needs the mask plan (which instructions make a mask
    /// whole) and the structure.
    pub(crate) fn lane_wave_loops_of(&self, s: &Structure) -> Vec<(u32, u32, u32)> {
        let mut out = Vec::new();
        let Some(m) = self.lm.as_ref() else {
            return out;
        };
        if m.waves < 2 {
            return out;
        }
        self.wave_loops_in(s, &s.items, None, &mut out);
        out
    }

    fn wave_loops_in(
        &self,
        s: &Structure,
        items: &[Item],
        outer: Option<(u32, u32)>,
        out: &mut Vec<(u32, u32, u32)>,
    ) {
        for it in items {
            let Item::Loop(lp) = it else { continue };
            if self.lane_local_loop_of(&s.number, lp.lo, lp.hi).is_none() {
                if let Some(x) = self.wave_loop_exit(s, lp.lo, lp.hi, outer) {
                    out.push((lp.lo, lp.hi, x));
                    continue;
                }
            }
            self.wave_loops_in(s, &lp.items, Some((lp.lo, lp.hi)), out);
        }
    }

    /// The structured number of the one block every way out of the loop `[lo, hi)` leads to, when the
    /// loop qualifies for L45 ([`Self::lane_wave_loops_of`]).
    fn wave_loop_exit(
        &self,
        s: &Structure,
        lo: u32,
        hi: u32,
        outer: Option<(u32, u32)>,
    ) -> Option<u32> {
        let m = self.lm.as_ref()?;
        let inside = |b: usize| s.number[b] != u32::MAX && (lo..hi).contains(&s.number[b]);
        let mut exit: Option<usize> = None;
        for b in (0..self.p.blocks.len()).filter(|&b| inside(b) && m.masks.reached(b)) {
            let blk = &self.p.blocks[Handle::from_index(b)];
            if blk.terminator == Terminator::End {
                return None;
            }
            for t in blk.terminator.successors() {
                if inside(t) {
                    continue;
                }
                match exit {
                    Some(x) if x != t => return None,
                    _ => exit = Some(t),
                }
            }
            let plan = self.lane_block_plan(b);
            if !plan.pre.is_empty() || !plan.mat.is_empty() {
                return None;
            }
            for inst in &blk.insts {
                for i in inst.nodes.clone() {
                    let i = i as usize;
                    // Or a capture or L44 shuffle that is exchanged: not dead, not an own bit kept
                    // as one (as the plan's capture exchanges count them).
                    let exchanged = !m.masks.is_dead(i)
                        && (plan.mat.contains(&i) || !plan.own.contains(&i))
                        && (self.kind(i) == Kind::Capture || self.sub.inner.contains(&i));
                    let bad = self.needs_the_workgroup(i) || exchanged;
                    if bad {
                        return None;
                    }
                }
            }
        }
        let x = s.number[exit?];
        if x == u32::MAX || outer.is_some_and(|(olo, ohi)| !(olo..ohi).contains(&x)) {
            return None;
        }
        Some(x)
    }

    /// The LDS history fixed point (D106) once the lane-local loops and vote-free branches are known:
    /// only blocks that publish (or end with s_barrier) end clean. Returns which blocks publish.
    pub(crate) fn lane_lds_flow_final(&mut self) -> Vec<bool> {
        if self.lm.as_ref().is_none_or(|m| m.waves < 2) {
            return vec![false; self.p.blocks.len()];
        }
        let publishes: Vec<bool> = (0..self.p.blocks.len())
            .map(|b| self.lane_publishes(b))
            .collect();
        let flow = lds::LdsFlow::of(self.p, &publishes);
        self.lm.as_mut().expect("lane mapping").lds_flow = Some(flow);
        publishes
    }
}

/// The structured range of the loop whose natural header is `h` (empty when there is none).
fn local_range(s: &rdna2spv_ir::cfg::Structure, h: usize) -> (u32, u32) {
    fn find(items: &[rdna2spv_ir::cfg::Item], h: usize) -> Option<(u32, u32)> {
        for it in items {
            if let rdna2spv_ir::cfg::Item::Loop(lp) = it {
                if lp.kind == (rdna2spv_ir::cfg::LoopKind::Natural { header: h }) {
                    return Some((lp.lo, lp.hi));
                }
                if let Some(r) = find(&lp.items, h) {
                    return Some(r);
                }
            }
        }
        None
    }
    find(&s.items, h).unwrap_or((0, 0))
}
