//! Several waves per Vulkan workgroup: control flow every running wave takes together needs no vote over
//! every wave's label, no publication and no per-wave copy (decision D141).
//!
//! With several waves each invocation keeps a copy of every wave's structured label (D082 point 4), every
//! item is entered by a vote over all copies, and a conditional branch publishes the labels (one barrier).
//! Much of a kernel runs with every wave at the same block: straight-line code between barriers, jumps,
//! vote-free skips (D102/D131/D132), barriers met in place (D134) and branches whose condition is the same
//! in every wave (a loop counter loaded from the kernel arguments).
//!
//! **The analysis** ([`Cx::lane_convergence`]): a block is *converged* when every wave of the workgroup
//! that is still running is at it whenever one of them is (so at every item boundary of a pass their
//! labels are equal). It is a forward must-analysis over the lifted CFG (greatest fixpoint), joined with a
//! *uniform-word* analysis: an SGPR word (or SCC) is uniform at a point when it holds the same value in
//! every invocation of the workgroup there. The entry is converged with the initial SGPRs uniform (launch
//! words, workgroup ids, the scratch wave offset 0: the same for every wave; EXEC is not). An edge keeps
//! convergence from a converged block when it is a jump, the fall-through of a vote-free skip (its taken
//! edge is dead in the lane mapping), the jump after an `s_barrier` with static resume points (D108: the
//! waves meet in place, D134, or at the pass end, and resume together), the exit of a lane-local loop
//! (D133: every wave that entered leaves to the one exit) when the loop was entered converged, or either
//! edge of a conditional branch whose condition is uniform. A block is converged when every live edge
//! into it keeps convergence; a word is uniform at a block's entry when it is uniform at the end of every
//! live edge into it. Within a block a node is uniform when it is a constant, a read of uniform words, a
//! pure operation (integer, float, compare, select, concat, extract) of uniform nodes, or a scalar load
//! hoisted into the prologue (D118) that reads inside a launch segment (D132): the kernarg segment and the
//! dispatch packet are read-only for the whole dispatch under the HSA ABI, so every wave reads the same
//! bytes. Not uniform: EXEC, the units whose lanes' own bits are tracked (masks.rs), VGPRs, lane and
//! wave ids, ballots, lane-bit reads, readlane/readfirstlane, every other load, atomics. Words written in
//! a lane-local loop are not uniform after it (its lanes leave at different iterations). Irreducible
//! regions (dispatcher loops) are never converged.
//!
//! **Why converged blocks hold every running wave.** Take a wave `w` at a converged block. Every block on
//! its path is converged (a non-converged block makes every successor non-converged), so every branch it
//! took had a uniform condition, computed from the same values in every wave (induction along the path:
//! uniform words are equal in every wave at every point of it). Every other running wave started at the
//! entry with `w` and took the same edges: it is at the same block, or paused with `w` at the same
//! `s_barrier`. A wave that *ended* did so at an `s_endpgm` block on that common path, together with `w`:
//! so while any wave runs a converged block, the only waves that have ended are the *empty* ones of a
//! partial workgroup (done from the start, label END). Wave 0 always has work-items (a workgroup has at
//! least one), so at a converged block wave 0 is running, and "some wave's label is `n`" is "wave 0's
//! label is `n`": the vote is one test of wave 0's copy (D121: the copies are exact and identical in every
//! invocation, so the test is workgroup-uniform; the invocation's own label would not be: an empty wave's
//! is END).
//!
//! **Empty waves compute the uniform words too.** In a converged item the only waves "off" are the empty
//! ones, so the lowering does not predicate the item's SGPR and SCC writes by `on` there: an empty wave's
//! invocations then hold the same uniform words as the running waves, and compute the same decision at a
//! uniform branch. Their state is read by nothing else (their lanes are inactive: VGPR writes, vector and
//! uniform memory, ballot contributions and exchanges stay predicated by `on`; their label, `done` and
//! resume stay END/ended). The running waves run the item "on", so for them nothing changes.
//!
//! **Uses.** (1) A converged item's vote and a loop's vote when all the loop's blocks are converged test
//! wave 0's copy only. (2) After a converged block whose branch is uniform, every copy equal to the
//! item's number becomes the invocation's own decision (identical in every invocation), with no
//! publication; the LDS history (D106) no longer counts a barrier there. (3) When every block is converged
//! (or lies in a lane-local loop entered converged), every copy but wave 0's is END or equal to wave 0's:
//! the copies collapse to wave 0's alone (one word per vote, update, meeting test and pass end), the one
//! label of the one-wave lowering; a publication there is a lowering error.

use crate::hash::HashSet;

use rdna2spv_ir::cfg::{ends_with_barrier, Cfg, Item, LoopKind, Structure};
use rdna2spv_ir::{Handle, Node, Terminator, Ty, EXEC_LO};

use super::super::{Cx, R};
use super::span;

/// SGPR words (bit r = s[r]) and SCC.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct St {
    conv: bool,
    words: u128,
    scc: bool,
}

const TOP: St = St {
    conv: true,
    words: u128::MAX,
    scc: true,
};
const NONE: St = St {
    conv: false,
    words: 0,
    scc: false,
};

impl St {
    fn meet(self, o: St) -> St {
        if !self.conv || !o.conv {
            return NONE;
        }
        St {
            conv: true,
            words: self.words & o.words,
            scc: self.scc && o.scc,
        }
    }
}

/// The result of the convergence analysis (D141).
#[derive(Default, Debug, Clone)]
pub(crate) struct Convergence {
    /// Per structured number: the block is converged.
    by_number: Vec<bool>,
    /// Per block: converged and ending with a conditional branch whose condition is uniform (not a
    /// vote-free skip or a lane-local exit): its copies follow without a publication.
    pub(crate) uniform_branch: Vec<bool>,
    /// Every block converged or inside a lane-local loop entered converged: one label copy suffices.
    pub(crate) all: bool,
    /// `all`, static resume points, and every `s_barrier` resumes ahead of its block: every barrier is
    /// met in place, so the module runs one pass, its entry chain at the top (D143, `meet.rs`).
    pub(crate) one_pass: bool,
}

impl Convergence {
    /// Whether every block numbered in `[lo, hi)` is converged.
    pub(crate) fn range(&self, lo: u32, hi: u32) -> bool {
        lo < hi && (lo..hi).all(|n| self.by_number.get(n as usize).copied().unwrap_or(false))
    }
}

/// What the uniform-word analysis takes from the rest of the lowering.
struct Facts {
    /// SGPR words never uniform (EXEC).
    never: u128,
    /// Nodes computed from lanes' own bits (masks.rs).
    own: HashSet<usize>,
    /// Scalar loads hoisted into the prologue (D118) that read inside a launch segment (D132).
    loads: HashSet<usize>,
}

/// A lane-local loop (D133) as the analysis sees it.
struct LocalLoop {
    lo: u32,
    hi: u32,
    header: usize,
    /// Its exit block's target.
    exit: usize,
    written: u128,
    scc: bool,
}

impl Cx<'_> {
    /// The convergence analysis (D141), run once the mask plan (vote-free skips, lane-local exits) is
    /// known; with one wave per Vulkan workgroup nothing is converged (nothing uses it).
    pub(crate) fn lane_convergence(&self, s: &Structure) -> Convergence {
        let p = self.p;
        let nb = p.blocks.len();
        let Some(m) = self.lm.as_ref() else {
            return Convergence::default();
        };
        if m.waves < 2 || m.labels.is_none() {
            return Convergence::default();
        }
        let static_resume = self.lane_static_resume();
        // Words never uniform: EXEC. Nodes the mask plan computes from own bits are not uniform.
        let never = 0b11u128 << EXEC_LO;
        let own: Vec<HashSet<usize>> = (0..nb).map(|b| self.lane_mask_own_nodes(b)).collect();
        let never_nodes: HashSet<usize> = own.into_iter().flatten().collect();
        let seg = self.launch_segment_loads();
        let uniform = Facts {
            never,
            own: never_nodes,
            loads: self
                .hoistable()
                .iter()
                .map(|h| h.node)
                .filter(|i| seg.contains(i))
                .collect(),
        };
        let number = &s.number;
        let mut block_of = vec![usize::MAX; nb];
        for (b, &n) in number.iter().enumerate() {
            if (n as usize) < nb {
                block_of[n as usize] = b;
            }
        }
        // Lane-local loops (outermost) and irreducible regions.
        let mut locals = Vec::new();
        let mut irreducible = vec![false; nb];
        self.conv_loops(s, &s.items, &block_of, &mut locals, &mut irreducible);
        for r in &s.dispatch_regions {
            for &b in &r.blocks {
                irreducible[b] = true;
            }
        }
        let writes_of = |b: usize| -> (u128, bool) {
            let mut w = 0;
            let mut scc = false;
            for inst in &p.blocks[Handle::from_index(b)].insts {
                for i in inst.nodes.clone() {
                    match p.nodes[Handle::from_index(i as usize)] {
                        Node::WriteSgpr { reg, value } => w |= span(reg, self.ty(value.index())),
                        Node::WriteScc { .. } => scc = true,
                        _ => {}
                    }
                }
            }
            (w, scc)
        };
        for l in locals.iter_mut() {
            for n in l.lo..l.hi {
                let b = block_of[n as usize];
                if b != usize::MAX {
                    let (w, c) = writes_of(b);
                    l.written |= w;
                    l.scc |= c;
                }
            }
        }
        let local_of = |b: usize| -> Option<usize> {
            let n = number[b];
            locals.iter().position(|l| (l.lo..l.hi).contains(&n))
        };
        let forced: Vec<bool> = (0..nb)
            .map(|b| number[b] == u32::MAX || irreducible[b] || local_of(b).is_some())
            .collect();
        let cfg = Cfg::new(p);
        let entry = p.entry().index();
        let mut init = NONE;
        init.conv = true;
        for &(reg, _) in &self.desc.sgprs {
            if reg < 128 {
                init.words |= 1u128 << reg;
            }
        }
        init.words &= !never;
        // Greatest fixpoint: every state starts at TOP and only goes down. `out[b]`: the state at
        // b's end; `cond_uni[b]`: b's branch condition is uniform there.
        let mut out = vec![TOP; nb];
        let mut cond_uni = vec![true; nb];
        let mut loop_in = vec![TOP; locals.len()];
        // The state an edge pb -> b carries (None: the edge is dead in the lane mapping).
        let edge = |pb: usize, b: usize, out: &[St], cond_uni: &[bool], loop_in: &[St]| {
            if let Some(li) = local_of(pb) {
                let l = &locals[li];
                if local_of(b) == Some(li) || b != l.exit {
                    return Some(NONE); // inside the loop (not used), or not its exit
                }
                // Every wave that entered leaves to the exit; what the loop writes is not uniform.
                let mut st = loop_in[li];
                st.words &= !l.written;
                st.scc &= !l.scc;
                return Some(st);
            }
            if forced[pb] {
                return Some(NONE);
            }
            let o = out[pb];
            match p.blocks[Handle::from_index(pb)].terminator {
                Terminator::Jump(_) if ends_with_barrier(p, pb) && !static_resume => Some(NONE),
                Terminator::Jump(_) => Some(o),
                Terminator::Branch { .. } if ends_with_barrier(p, pb) => Some(NONE),
                Terminator::Branch { .. } => match self.lane_fallthrough(pb) {
                    Some(f) if f == b => Some(o),
                    Some(_) => None,
                    None if self.lane_exit(pb) => Some(NONE),
                    None if cond_uni[pb] => Some(o),
                    None => Some(NONE),
                },
                Terminator::End => None,
            }
        };
        let entry_state = |b: usize, out: &[St], cond_uni: &[bool], loop_in: &[St]| {
            let mut st = if b == entry { init } else { TOP };
            for &pb in &cfg.preds[b] {
                if let Some(e) = edge(pb, b, out, cond_uni, loop_in) {
                    st = st.meet(e);
                }
            }
            st
        };
        loop {
            let mut changed = false;
            // The state entering each lane-local loop: the edges into its header from outside.
            for (li, l) in locals.iter().enumerate() {
                let mut st = if l.header == entry { init } else { TOP };
                for &pb in &cfg.preds[l.header] {
                    if local_of(pb) == Some(li) {
                        continue;
                    }
                    if let Some(e) = edge(pb, l.header, &out, &cond_uni, &loop_in) {
                        st = st.meet(e);
                    }
                }
                if st != loop_in[li] {
                    loop_in[li] = st;
                    changed = true;
                }
            }
            for &b in &cfg.rpo {
                let mut st = entry_state(b, &out, &cond_uni, &loop_in);
                if forced[b] {
                    st = NONE;
                }
                let (o, c) = self.conv_transfer(b, st, &uniform);
                if o != out[b] || c != cond_uni[b] {
                    out[b] = o;
                    cond_uni[b] = c;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut conv = vec![false; nb];
        let mut uni_branch = vec![false; nb];
        for &b in &cfg.rpo {
            conv[b] = !forced[b] && entry_state(b, &out, &cond_uni, &loop_in).conv;
            uni_branch[b] = conv[b]
                && cond_uni[b]
                && matches!(
                    p.blocks[Handle::from_index(b)].terminator,
                    Terminator::Branch { .. }
                )
                && !ends_with_barrier(p, b)
                && self.lane_fallthrough(b).is_none()
                && !self.lane_exit(b);
        }
        let mut by_number = vec![false; nb];
        for b in 0..nb {
            if (number[b] as usize) < nb {
                by_number[number[b] as usize] = conv[b];
            }
        }
        let all = static_resume
            && cfg
                .rpo
                .iter()
                .all(|&b| conv[b] || local_of(b).is_some_and(|li| loop_in[li].conv));
        Convergence {
            by_number,
            uniform_branch: uni_branch,
            all,
            one_pass: false,
        }
    }

    /// The lane-local loops (outermost, D133) and the blocks of irreducible regions among `items`.
    fn conv_loops(
        &self,
        s: &Structure,
        items: &[Item],
        block_of: &[usize],
        locals: &mut Vec<LocalLoop>,
        irreducible: &mut [bool],
    ) {
        for it in items {
            let Item::Loop(lp) = it else { continue };
            match (&lp.kind, self.lane_local_loop_of(&s.number, lp.lo, lp.hi)) {
                (LoopKind::Natural { header }, Some(x)) => {
                    let exit = block_of.get(x as usize).copied().unwrap_or(usize::MAX);
                    locals.push(LocalLoop {
                        lo: lp.lo,
                        hi: lp.hi,
                        header: *header,
                        exit,
                        written: 0,
                        scc: false,
                    });
                }
                (LoopKind::Irreducible { .. }, _) => {
                    for n in lp.lo..lp.hi {
                        if let Some(&b) = block_of.get(n as usize) {
                            if b != usize::MAX {
                                irreducible[b] = true;
                            }
                        }
                    }
                }
                _ => self.conv_loops(s, &lp.items, block_of, locals, irreducible),
            }
        }
    }

    /// The state at block `b`'s end from `st` at its entry, and whether its branch condition (if any)
    /// is uniform (D141).
    fn conv_transfer(&self, b: usize, st: St, f: &Facts) -> (St, bool) {
        if !st.conv {
            return (NONE, false);
        }
        let mut st = st;
        let uni = self.conv_walk(b, &mut st, f);
        let c = match self.p.blocks[Handle::from_index(b)].terminator {
            Terminator::Branch { cond, .. } => uni.contains(&cond.index()),
            _ => false,
        };
        (st, c)
    }

    /// Walks block `b` from `st` (updated to its end); returns its uniform nodes. Reads see the state at
    /// their instruction's start; an instruction's SGPR and SCC writes take effect at its end (the
    /// lowering's deferred writes), in node order.
    fn conv_walk(&self, b: usize, st: &mut St, f: &Facts) -> HashSet<usize> {
        let p = self.p;
        let mut uni: HashSet<usize> = HashSet::default();
        for inst in &p.blocks[Handle::from_index(b)].insts {
            let mut writes: Vec<(Option<u128>, bool)> = Vec::new();
            for i in inst.nodes.clone() {
                let i = i as usize;
                let u = |h: Handle<Node>| uni.contains(&h.index());
                // Writes are recorded whatever the mask plan does with their value.
                let is = match p.nodes[Handle::from_index(i)] {
                    Node::Const { .. } => true,
                    Node::ReadSgpr { reg, ty } => {
                        let n = if ty == Ty::B64 { 2 } else { 1 };
                        reg as u32 + n <= 128 && {
                            let w = span(reg, ty);
                            w & !st.words == 0
                        }
                    }
                    Node::ReadScc => st.scc,
                    Node::Int { a, b, .. }
                    | Node::IntCmp { a, b, .. }
                    | Node::FloatCmp { a, b, .. } => u(a) && u(b),
                    Node::Float { args, .. } => args.iter().all(|&x| u(x)),
                    Node::Unary { a, .. } | Node::Extract { a, .. } => u(a),
                    Node::Select { cond, a, b } => u(cond) && u(a) && u(b),
                    Node::Concat { lo, hi } => u(lo) && u(hi),
                    Node::Load { .. } => f.loads.contains(&i),
                    Node::WriteSgpr { reg, value } => {
                        let w = span(reg, self.ty(value.index()));
                        let ok = u(value) && w & f.never == 0;
                        writes.push((Some(w), ok));
                        false
                    }
                    Node::WriteScc { value } => {
                        writes.push((None, u(value)));
                        false
                    }
                    _ => false,
                };
                if is && !f.own.contains(&i) {
                    uni.insert(i);
                }
            }
            for (w, ok) in writes {
                match w {
                    Some(w) if ok => st.words |= w,
                    Some(w) => st.words &= !w,
                    None => st.scc = ok,
                }
            }
        }
        uni
    }
}

impl Cx<'_> {
    /// How many label copies the invocations keep: every wave's, or wave 0's alone when the whole kernel
    /// is converged (D141).
    pub(crate) fn lane_copies(&self) -> u32 {
        self.lm
            .as_ref()
            .map_or(1, |m| if m.conv.all { 1 } else { m.waves })
    }

    /// Marks the item being emitted as converged (`true`, D141) or not.
    pub(crate) fn lane_set_conv(&mut self, conv: bool) {
        if let Some(m) = self.lm.as_mut() {
            m.conv_now = conv;
        }
    }

    /// Whether the item being emitted is converged: its SGPR and SCC writes need no `on` (D141).
    pub(crate) fn lane_conv_now(&self) -> bool {
        self.lm.as_ref().is_some_and(|m| m.conv_now && !m.local)
    }

    /// Whether the block numbered `n` is converged (several waves, D141).
    pub(crate) fn lane_conv_block(&self, n: u32) -> bool {
        self.lm
            .as_ref()
            .is_some_and(|m| m.labels.is_some() && m.conv.range(n, n + 1))
    }

    /// Several waves, after block `bi` (the last of the item numbered `n`) whose conditional branch is
    /// workgroup-uniform (D141): every copy equal to `n` becomes this invocation's own decision, which
    /// is every running wave's (and the empty waves compute it too), with no publication. False (nothing
    /// emitted) when the branch is not of that kind; the caller then publishes.
    pub(crate) fn lane_uniform_labels(&mut self, bi: usize, n: u32, number: &[u32]) -> R<bool> {
        let Some((_, _, _, copy)) = self.lm.as_ref().and_then(|m| m.labels) else {
            return Ok(false);
        };
        let m = self.lm.as_ref().expect("lane mapping");
        if m.local || !m.conv.uniform_branch.get(bi).copied().unwrap_or(false) {
            return Ok(false);
        }
        let Terminator::Branch {
            cond,
            taken,
            not_taken,
        } = self.p.blocks[Handle::from_index(bi)].terminator
        else {
            return Ok(false);
        };
        let c = *self
            .uni
            .get(&cond.index())
            .ok_or_else(|| self.unsupported("branch condition not computed"))?;
        let t = self.t;
        let a = self.c32(number[taken.index()]);
        let b = self.c32(number[not_taken.index()]);
        let to = self.b.select(t.u32, None, c, a, b)?;
        self.lane_update_copies(copy, |cx, l, s| {
            let nc = cx.lanes_const(s, n);
            let to = cx.lanes_splat(s, to)?;
            let was = cx.b.i_equal(s.b, None, l, nc)?;
            Ok(cx.b.select(s.u, None, was, to, l)?)
        })?;
        Ok(true)
    }
}
