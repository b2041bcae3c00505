//! Control-flow analysis of a lifted [`Program`] and its structured form (decision D035).
//!
//! * [`Cfg`]: successors and predecessors of each block (from `Terminator::{Jump, Branch}`; the lifter has
//!   already turned fall-through, `s_branch`, `s_cbranch_*` and known `s_setpc`/`s_swappc` targets into
//!   those), reverse postorder, immediate dominators (Cooper–Harvey–Kennedy), back edges and reducibility.
//! * [`Structure`]: the loop nesting forest built from strongly connected components (Havlak/Ramalingam
//!   style: an SCC with one entry is a natural loop, its back edges to the header are removed and the body is
//!   analysed again; an SCC with several entries is an irreducible region). Inside each region the items
//!   (blocks and inner loops) are listed in a topological order of the region's acyclic graph.
//!
//! The structured program this describes (emitted by the SPIR-V lowering, walked by [`Structure::walk`]):
//! a label variable `cur` names the next block; a *pass* over a region runs its items in order, a block item
//! runs when `cur` is its block, a loop item runs while `cur` lies inside the loop (one pass per iteration,
//! the test at the top of the loop: lavapipe miscompiles loops left from their body). Because every forward
//! edge of a region points to a later item, one pass follows a whole acyclic path; a back edge sets `cur` to
//! the header and the next iteration starts; an exit sets `cur` outside the loop, so the loop ends and the
//! enclosing pass continues at the target. Blocks are numbered so that each loop's blocks are one interval,
//! which makes "inside the loop" one unsigned comparison. An irreducible region runs the same way (a loop
//! over its blocks in reverse postorder, re-dispatched on `cur`): it is the only place a dispatcher remains,
//! and [`Structure::dispatch_regions`] names it.

use std::collections::{BTreeSet, HashMap};

use crate::{Node, Program, Terminator};

/// The control-flow graph of a program (block indices as in `Program::blocks`).
#[derive(Debug, Clone)]
pub struct Cfg {
    pub entry: usize,
    /// Distinct successors of each block, in terminator order (taken before not-taken).
    pub succs: Vec<Vec<usize>>,
    /// Distinct predecessors of each block.
    pub preds: Vec<Vec<usize>>,
    /// Blocks reachable from the entry, in reverse postorder.
    pub rpo: Vec<usize>,
    /// Position of each block in `rpo` (`usize::MAX`: unreachable).
    pub rpo_index: Vec<usize>,
    /// Immediate dominator of each reachable block (the entry's is itself); `None`: unreachable.
    pub idom: Vec<Option<usize>>,
}

impl Cfg {
    /// The graph of `p`'s blocks.
    pub fn new(p: &Program) -> Cfg {
        let succs = p
            .blocks
            .iter()
            .map(|(_, b)| b.terminator.successors())
            .collect();
        Cfg::from_succs(0, succs)
    }

    /// A graph given by its successor lists (hand-built graphs in tests).
    pub fn from_succs(entry: usize, succs: Vec<Vec<usize>>) -> Cfg {
        let n = succs.len();
        let succs: Vec<Vec<usize>> = succs
            .into_iter()
            .map(|s| {
                let mut out: Vec<usize> = Vec::with_capacity(s.len());
                for x in s {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
                out
            })
            .collect();
        let mut preds = vec![Vec::new(); n];
        for (u, ss) in succs.iter().enumerate() {
            for &v in ss {
                preds[v].push(u);
            }
        }
        // Postorder by an iterative depth-first search.
        let mut post = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        if entry < n {
            let mut stack = vec![(entry, 0usize)];
            seen[entry] = true;
            while let Some(&mut (u, ref mut i)) = stack.last_mut() {
                if let Some(&v) = succs[u].get(*i) {
                    *i += 1;
                    if !seen[v] {
                        seen[v] = true;
                        stack.push((v, 0));
                    }
                } else {
                    post.push(u);
                    stack.pop();
                }
            }
        }
        let rpo: Vec<usize> = post.into_iter().rev().collect();
        let mut rpo_index = vec![usize::MAX; n];
        for (i, &b) in rpo.iter().enumerate() {
            rpo_index[b] = i;
        }
        // Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm".
        let mut idom: Vec<Option<usize>> = vec![None; n];
        if entry < n {
            idom[entry] = Some(entry);
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new: Option<usize> = None;
                for &p in &preds[b] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(q) => {
                            let (mut x, mut y) = (p, q);
                            while x != y {
                                while rpo_index[x] > rpo_index[y] {
                                    x = idom[x].expect("processed");
                                }
                                while rpo_index[y] > rpo_index[x] {
                                    y = idom[y].expect("processed");
                                }
                            }
                            x
                        }
                    });
                }
                if new.is_some() && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        Cfg {
            entry,
            succs,
            preds,
            rpo,
            rpo_index,
            idom,
        }
    }

    pub fn len(&self) -> usize {
        self.succs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }
    pub fn reachable(&self, b: usize) -> bool {
        self.rpo_index[b] != usize::MAX
    }

    /// Whether `a` dominates `b` (both reachable).
    pub fn dominates(&self, a: usize, mut b: usize) -> bool {
        if !self.reachable(a) || !self.reachable(b) {
            return false;
        }
        loop {
            if a == b {
                return true;
            }
            let d = self.idom[b].expect("reachable");
            if d == b {
                return false;
            }
            b = d;
        }
    }

    /// Edges `u → v` between reachable blocks with `rpo(v) <= rpo(u)` (retreating edges of the DFS).
    pub fn retreating_edges(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for &u in &self.rpo {
            for &v in &self.succs[u] {
                if self.rpo_index[v] <= self.rpo_index[u] {
                    out.push((u, v));
                }
            }
        }
        out
    }

    /// Back edges: retreating edges whose target dominates their source.
    pub fn back_edges(&self) -> Vec<(usize, usize)> {
        self.retreating_edges()
            .into_iter()
            .filter(|&(u, v)| self.dominates(v, u))
            .collect()
    }

    /// A graph is reducible when every retreating edge is a back edge.
    pub fn is_reducible(&self) -> bool {
        self.retreating_edges()
            .into_iter()
            .all(|(u, v)| self.dominates(v, u))
    }

    /// The natural loop of header `h`: `h` and every block that reaches a back edge into `h` without
    /// passing through `h`, sorted.
    pub fn natural_loop(&self, h: usize) -> Vec<usize> {
        let mut body = BTreeSet::from([h]);
        let mut work: Vec<usize> = self
            .back_edges()
            .into_iter()
            .filter(|&(_, v)| v == h)
            .map(|(u, _)| u)
            .collect();
        while let Some(u) = work.pop() {
            if body.insert(u) {
                work.extend(self.preds[u].iter().copied().filter(|&p| self.reachable(p)));
            }
        }
        body.into_iter().collect()
    }
}

/// One item of a structured region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A basic block (its `Program::blocks` index).
    Block(usize),
    Loop(Loop),
}

/// How a loop region is entered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopKind {
    /// A natural loop: one header, entered only there.
    Natural { header: usize },
    /// An irreducible region: entered at several blocks; it runs as a dispatcher over its blocks.
    Irreducible { entries: Vec<usize> },
}

/// A loop region: its items run as one pass per iteration while `cur` lies in `[lo, hi)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    pub kind: LoopKind,
    pub items: Vec<Item>,
    /// The interval of structured numbers of the loop's blocks.
    pub lo: u32,
    pub hi: u32,
}

/// An irreducible region that needed a dispatcher loop, for the translation's notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchRegion {
    /// Its blocks, sorted.
    pub blocks: Vec<usize>,
    /// The blocks entered from outside it.
    pub entries: Vec<usize>,
}

/// The structured form of a program's control flow.
#[derive(Debug, Clone)]
pub struct Structure {
    /// The top-level pass.
    pub items: Vec<Item>,
    /// The structured number of each block (`u32::MAX`: unreachable, never emitted).
    pub number: Vec<u32>,
    /// Irreducible regions (each runs as a dispatcher loop).
    pub dispatch_regions: Vec<DispatchRegion>,
    /// Natural loops.
    pub loops: usize,
}

/// What the walker's caller decides at the end of each block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Continue at this block.
    Block(usize),
    /// Continue at this block after a workgroup barrier (the pass ends and is resumed there).
    Barrier(usize),
    /// The wave ends.
    End,
}

/// Why a walk stopped without reaching the end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WalkError {
    #[error("the structured pass ended with control at block {0}, which no item ran")]
    Stuck(usize),
    #[error("more than {0} blocks executed")]
    TooLong(usize),
}

impl Structure {
    /// The structure of `cfg` (every reachable block appears exactly once).
    pub fn new(cfg: &Cfg) -> Structure {
        let mut s = Structure {
            items: Vec::new(),
            number: vec![u32::MAX; cfg.len()],
            dispatch_regions: Vec::new(),
            loops: 0,
        };
        let mut next = 0u32;
        let nodes = cfg.rpo.clone();
        s.items = s.region(cfg, &nodes, None, &mut next);
        s
    }

    /// The structure of a program's blocks.
    pub fn of(p: &Program) -> Structure {
        Structure::new(&Cfg::new(p))
    }

    /// Items of the region made of `nodes` (in reverse postorder), without the edges into `header`.
    fn region(
        &mut self,
        cfg: &Cfg,
        nodes: &[usize],
        header: Option<usize>,
        next: &mut u32,
    ) -> Vec<Item> {
        let local: HashMap<usize, usize> = nodes.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let edges = |u: usize| -> Vec<usize> {
            cfg.succs[u]
                .iter()
                .copied()
                .filter(|v| Some(*v) != header)
                .filter_map(|v| local.get(&v).copied())
                .collect()
        };
        let adj: Vec<Vec<usize>> = nodes.iter().map(|&u| edges(u)).collect();
        let sccs = tarjan(&adj);
        let mut items = Vec::new();
        // Tarjan yields SCCs in reverse topological order of the condensation.
        for comp in sccs.into_iter().rev() {
            let cyclic = comp.len() > 1 || adj[comp[0]].contains(&comp[0]);
            if !cyclic {
                let b = nodes[comp[0]];
                self.number[b] = *next;
                *next += 1;
                items.push(Item::Block(b));
                continue;
            }
            let mut blocks: Vec<usize> = comp.iter().map(|&i| nodes[i]).collect();
            blocks.sort_by_key(|&b| cfg.rpo_index[b]);
            let set: BTreeSet<usize> = blocks.iter().copied().collect();
            let mut entries: Vec<usize> = blocks
                .iter()
                .copied()
                .filter(|&b| {
                    b == cfg.entry
                        || cfg.preds[b]
                            .iter()
                            .any(|p| cfg.reachable(*p) && !set.contains(p))
                })
                .collect();
            entries.sort_by_key(|&b| cfg.rpo_index[b]);
            let lo = *next;
            if entries.len() == 1 {
                self.loops += 1;
                let h = entries[0];
                let inner = self.region(cfg, &blocks, Some(h), next);
                items.push(Item::Loop(Loop {
                    kind: LoopKind::Natural { header: h },
                    items: inner,
                    lo,
                    hi: *next,
                }));
            } else {
                let mut inner = Vec::new();
                for &b in &blocks {
                    self.number[b] = *next;
                    *next += 1;
                    inner.push(Item::Block(b));
                }
                let mut sorted = blocks.clone();
                sorted.sort();
                self.dispatch_regions.push(DispatchRegion {
                    blocks: sorted,
                    entries: entries.clone(),
                });
                items.push(Item::Loop(Loop {
                    kind: LoopKind::Irreducible { entries },
                    items: inner,
                    lo,
                    hi: *next,
                }));
            }
        }
        items
    }

    /// Whether no dispatcher loop is needed.
    pub fn fully_structured(&self) -> bool {
        self.dispatch_regions.is_empty()
    }

    /// Runs the structured program the way the emitted code runs it, from the entry block `entry`: `step`
    /// is called for each block the structured form executes and says where control goes next. Returns
    /// the blocks executed, in order. This is the verification pass: the caller's `step` follows the
    /// machine program (e.g. the evaluator's trace), and the result must equal that trace.
    pub fn walk(
        &self,
        entry: usize,
        max_blocks: usize,
        mut step: impl FnMut(usize) -> Next,
    ) -> Result<Vec<usize>, WalkError> {
        const END: u32 = u32::MAX;
        const PAUSE: u32 = u32::MAX - 1;
        struct W<'a, F> {
            s: &'a Structure,
            cur: u32,
            resume: u32,
            out: Vec<usize>,
            max: usize,
            step: F,
            by_number: HashMap<u32, usize>,
        }
        impl<F: FnMut(usize) -> Next> W<'_, F> {
            fn pass(&mut self, items: &[Item]) -> Result<(), WalkError> {
                for it in items {
                    match it {
                        Item::Block(b) => {
                            if self.cur == self.s.number[*b] {
                                if self.out.len() >= self.max {
                                    return Err(WalkError::TooLong(self.max));
                                }
                                self.out.push(*b);
                                match (self.step)(*b) {
                                    Next::Block(t) => self.cur = self.s.number[t],
                                    Next::Barrier(t) => {
                                        self.resume = self.s.number[t];
                                        self.cur = PAUSE;
                                    }
                                    Next::End => self.cur = END,
                                }
                            }
                        }
                        Item::Loop(l) => {
                            let inside = |c: u32| c.wrapping_sub(l.lo) < l.hi - l.lo;
                            while inside(self.cur) {
                                let before = self.out.len();
                                self.pass(&l.items)?;
                                if self.out.len() == before {
                                    let b = self.by_number.get(&self.cur).copied();
                                    return Err(WalkError::Stuck(b.unwrap_or(usize::MAX)));
                                }
                            }
                        }
                    }
                }
                Ok(())
            }
        }
        let mut w = W {
            s: self,
            cur: 0,
            resume: self.number[entry],
            out: Vec::new(),
            max: max_blocks,
            step: &mut step,
            by_number: HashMap::new(),
        };
        for (b, &n) in self.number.iter().enumerate() {
            w.by_number.insert(n, b);
        }
        loop {
            w.cur = w.resume;
            w.pass(&self.items)?;
            match w.cur {
                END => return Ok(w.out),
                PAUSE => continue,
                c => {
                    return Err(WalkError::Stuck(
                        w.by_number.get(&c).copied().unwrap_or(usize::MAX),
                    ))
                }
            }
        }
    }
}

/// Tarjan's strongly connected components (iterative), in reverse topological order.
fn tarjan(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call = vec![(root, 0usize)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (u, ref mut i)) = call.last_mut() {
            if let Some(&v) = adj[u].get(*i) {
                *i += 1;
                if index[v] == usize::MAX {
                    index[v] = counter;
                    low[v] = counter;
                    counter += 1;
                    stack.push(v);
                    on[v] = true;
                    call.push((v, 0));
                } else if on[v] {
                    low[u] = low[u].min(index[v]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p] = low[p].min(low[u]);
                }
                if low[u] == index[u] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().expect("on stack");
                        on[w] = false;
                        comp.push(w);
                        if w == u {
                            break;
                        }
                    }
                    comp.sort();
                    out.push(comp);
                }
            }
        }
    }
    out
}

/// Whether block `b`'s last instruction is an `s_barrier` (the lifter ends a block after it).
pub fn ends_with_barrier(p: &Program, b: usize) -> bool {
    let block = &p.blocks[crate::Handle::from_index(b)];
    block.insts.last().is_some_and(|inst| {
        p.inst_nodes(inst)
            .any(|(_, nd)| matches!(nd, Node::Barrier))
    })
}

/// The verification pass: walks `s` taking, at each block, the branch the machine program took at the same
/// point of `trace` (the blocks one wave entered, from the evaluator), and checks that the structured form
/// enters exactly the blocks of the trace, in order. A `Jump` follows the graph whatever the trace says, and a
/// `Branch` takes the successor the trace shows next (a trace that shows neither successor is reported).
pub fn check_trace(p: &Program, s: &Structure, trace: &[u32]) -> Result<(), String> {
    let mut k = 0usize;
    let mut bad: Option<String> = None;
    let walked = s.walk(p.entry().index(), trace.len() + 1, |b| {
        let next_in_trace = trace.get(k + 1).map(|&x| x as usize);
        k += 1;
        let t = match p.blocks[crate::Handle::from_index(b)].terminator {
            Terminator::End => return Next::End,
            Terminator::Jump(t) => t.index(),
            Terminator::Branch {
                taken, not_taken, ..
            } => {
                if next_in_trace == Some(taken.index()) {
                    taken.index()
                } else {
                    if next_in_trace != Some(not_taken.index()) && bad.is_none() {
                        bad = Some(format!(
                            "visit {k}: block {b} branches to {} or {}, the trace shows {next_in_trace:?}",
                            taken.index(),
                            not_taken.index()
                        ));
                    }
                    not_taken.index()
                }
            }
        };
        if ends_with_barrier(p, b) {
            Next::Barrier(t)
        } else {
            Next::Block(t)
        }
    });
    if let Some(e) = bad {
        return Err(e);
    }
    let walked = walked.map_err(|e| e.to_string())?;
    let want: Vec<usize> = trace.iter().map(|&b| b as usize).collect();
    if walked != want {
        let i = walked
            .iter()
            .zip(&want)
            .position(|(a, b)| a != b)
            .unwrap_or(walked.len().min(want.len()));
        return Err(format!(
            "the structured form enters {} blocks, the trace {}; first difference at visit {i}: {:?} vs {:?}",
            walked.len(),
            want.len(),
            walked.get(i),
            want.get(i)
        ));
    }
    Ok(())
}

/// A barrier that the waves of a workgroup may pass different numbers of times: it lies in a loop (or
/// irreducible region) whose continue-or-leave decision branches on a value that can differ between waves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DivergentBarrier {
    /// The block the `s_barrier` ends, and its pc.
    pub block: usize,
    pub pc: u32,
    /// The blocks of the loop or region (sorted).
    pub region: Vec<usize>,
    /// A block of it whose branch condition can differ between waves, and that block's pc.
    pub branch: usize,
    pub branch_pc: u32,
}

/// The value operands of a node.
fn node_operands(n: &Node) -> Vec<crate::Handle<Node>> {
    match *n {
        Node::Const { .. }
        | Node::ReadSgpr { .. }
        | Node::ReadVgpr { .. }
        | Node::ReadScc
        | Node::LaneId
        | Node::WaveId
        | Node::CodeBase
        | Node::Barrier => vec![],
        Node::Refuse { cond, .. } => vec![cond],
        Node::Int { a, b, .. } | Node::IntCmp { a, b, .. } | Node::FloatCmp { a, b, .. } => {
            vec![a, b]
        }
        Node::Float { op, args } => args[..op.arity()].to_vec(),
        Node::Unary { a, .. } | Node::Extract { a, .. } | Node::ReadFirstLane { a } => vec![a],
        Node::Select { cond, a, b } => vec![cond, a, b],
        Node::Concat { lo, hi } => vec![lo, hi],
        Node::Ballot { cond } => vec![cond],
        Node::LaneBit { mask } => vec![mask],
        Node::ReadLane { a, lane } => vec![a, lane],
        Node::Load { addr, .. } => vec![addr],
        Node::WriteSgpr { value, .. }
        | Node::WriteVgpr { value, .. }
        | Node::WriteScc { value } => {
            vec![value]
        }
        Node::Store { addr, value, .. } => vec![addr, value],
        Node::Atomic {
            addr, value, data1, ..
        } => [addr, value].into_iter().chain(data1).collect(),
        Node::LoadIf { addr, enable, .. } => vec![addr, enable],
        Node::StoreIf {
            addr,
            value,
            enable,
            ..
        } => vec![addr, value, enable],
        Node::AtomicIf {
            addr,
            value,
            data1,
            enable,
            ..
        } => [addr, value, enable].into_iter().chain(data1).collect(),
    }
}

/// Barriers inside loops whose branches can differ between the waves of a workgroup (see
/// [`DivergentBarrier`]). A forward dataflow over the scalar registers and SCC marks a value *wave-varying*
/// when it comes from lane data (ballots, lane reads, VGPRs), from EXEC (the last wave of a partial workgroup
/// starts with fewer lanes), or from a varying value; initial SGPRs (kernel arguments, workgroup ids) and
/// loads at uniform addresses are the same for every wave. Values merely written under a varying branch are
/// not marked (control dependence is not tracked), so this finds the common case — a trip count read from
/// lane data — and can miss contrived ones. Programs that do not verify give no report.
pub fn divergent_barriers(p: &Program) -> Vec<DivergentBarrier> {
    let Ok(types) = crate::verify(p) else {
        return Vec::new();
    };
    let cfg = Cfg::new(p);
    let n = cfg.len();
    // State: 128 SGPR bits and SCC (bit 128).
    type St = [bool; 129];
    let mut init: St = [false; 129];
    init[crate::EXEC_LO as usize] = true;
    init[crate::EXEC_LO as usize + 1] = true;
    let mut out_state: Vec<Option<St>> = vec![None; n];
    let mut cond_varying = vec![false; n];
    let mut varying = vec![false; p.nodes.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &cfg.rpo {
            let mut st: St = if b == cfg.entry { init } else { [false; 129] };
            for &q in &cfg.preds[b] {
                if let Some(o) = &out_state[q] {
                    for (x, y) in st.iter_mut().zip(o) {
                        *x |= *y;
                    }
                }
            }
            let block = &p.blocks[crate::Handle::from_index(b)];
            for inst in &block.insts {
                let mut writes: Vec<(usize, bool)> = Vec::new();
                for (h, node) in p.inst_nodes(inst) {
                    let i = h.index();
                    let lane = types[i].is_some_and(|t| t.1 == crate::Shape::Lane);
                    let ops = node_operands(node).iter().any(|o| varying[o.index()]);
                    let v = lane
                        || ops
                        || match *node {
                            Node::ReadSgpr { reg, ty } => {
                                st.get(reg as usize).copied().unwrap_or(false)
                                    || (ty == crate::Ty::B64
                                        && st.get(reg as usize + 1).copied().unwrap_or(false))
                            }
                            Node::ReadScc => st[128],
                            // Differ between the waves: the wave's index, and what a once-per-wave
                            // atomic returns (D092).
                            Node::WaveId | Node::Atomic { .. } => true,
                            _ => false,
                        };
                    varying[i] = v;
                    match *node {
                        Node::WriteSgpr { reg, value } => {
                            let vv = varying[value.index()];
                            writes.push((reg as usize, vv));
                            if types[value.index()].is_some_and(|t| t.0 == crate::Ty::B64) {
                                writes.push((reg as usize + 1, vv));
                            }
                        }
                        Node::WriteScc { value } => writes.push((128, varying[value.index()])),
                        _ => {}
                    }
                }
                for (r, v) in writes {
                    if r < 129 {
                        st[r] = v;
                    }
                }
            }
            if let Terminator::Branch { cond, .. } = block.terminator {
                cond_varying[b] = varying[cond.index()];
            }
            if out_state[b] != Some(st) {
                out_state[b] = Some(st);
                changed = true;
            }
        }
    }
    // Loops and irreducible regions (inner ones first) with their entries.
    let s = Structure::new(&cfg);
    let mut regions: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    fn collect(items: &[Item], regions: &mut Vec<(Vec<usize>, Vec<usize>)>) -> Vec<usize> {
        let mut all = Vec::new();
        for it in items {
            match it {
                Item::Block(b) => all.push(*b),
                Item::Loop(l) => {
                    let mut inner = collect(&l.items, regions);
                    inner.sort();
                    all.extend(&inner);
                    let entries = match &l.kind {
                        LoopKind::Natural { header } => vec![*header],
                        LoopKind::Irreducible { entries } => entries.clone(),
                    };
                    regions.push((inner, entries));
                }
            }
        }
        all
    }
    collect(&s.items, &mut regions);
    let last_pc = |b: usize| {
        let block = &p.blocks[crate::Handle::from_index(b)];
        block.insts.last().map_or(block.start_pc, |i| i.pc)
    };
    let mut out: Vec<DivergentBarrier> = Vec::new();
    for (r, entries) in &regions {
        // A varying branch that decides whether the loop goes round again or is left.
        let deciding = r.iter().copied().find(|&b| {
            cond_varying[b]
                && cfg.succs[b]
                    .iter()
                    .any(|t| entries.contains(t) || r.binary_search(t).is_err())
        });
        let Some(br) = deciding else {
            continue;
        };
        for &b in r {
            if ends_with_barrier(p, b) && !out.iter().any(|d| d.block == b) {
                out.push(DivergentBarrier {
                    block: b,
                    pc: last_pc(b),
                    region: r.clone(),
                    branch: br,
                    branch_pc: last_pc(br),
                });
            }
        }
    }
    out.sort_by_key(|d| d.block);
    out
}
