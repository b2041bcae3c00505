//! Lazy lane masks (decisions D082 point 7, D101): a mask held in each lane as that lane's own bit.
//!
//! A VOPC result, a carry-out, EXEC or an SGPR computed from masks by bitwise SALU ops is a wave-wide
//! value; in the lane mapping making it whole costs an exchange (a barrier). Most masks are only ever read
//! one bit per lane (v_cndmask, a carry-in, EXEC's "active" bit) or combined bitwise with other masks
//! (s_and_saveexec, s_andn2, s_or ... exec). Those need only the lane's own bit, which every lane can
//! compute alone: bit `lane` of `a & b` is `own(a) && own(b)`, of a ballot `cond && active`.
//!
//! * **Own form.** A *tracked* mask unit (wave32: one SGPR; wave64: an even-aligned pair) has a private
//!   bool variable holding the lane's own bit, kept valid at every point: every write of the unit updates
//!   it (from the full value, or from the written node's own bit). The unit's full value (its SGPR
//!   variables) may be *stale*: a write of a value known only as own bits leaves it stale.
//! * **Nodes.** Ballot, bitwise And/Or/Xor/Not, Select on a uniform condition, Trunc/ZExt (wave32) and
//!   reads of a stale unit are computed as own bits only (no exchange). A consumer that reads the whole
//!   value (s_cbranch_execz/vccz, SCC of a live bitwise op, s_bcnt1, compares, arithmetic, stores, v_mov of
//!   an SGPR...) materialises it at that point: one exchange of the own bits (a ballot), and for a stale
//!   register read the full value is written back, so it is exchanged once.
//! * **Across blocks.** Which words are stale at each block's entry is a forward dataflow over the CFG
//!   (a join is stale if any predecessor leaves it stale); own bits need no join (always valid).
//! * **Dead SCC.** SCC writes not read before being overwritten (a backward liveness over the CFG) are
//!   dropped with the nodes only they use, so a bitwise op on own bits does not materialise for its SCC.
//! * **Vote-free s_cbranch_execz** ([`Cx::lane_fallthrough`], D102): a forward skip whose region, run with
//!   EXEC = 0, leaves the same state at the target as skipping it is not taken in the lane mapping. Its
//!   region may hold scalar loads that read inside the kernarg segment or dispatch packet (D132), lane-local
//!   loops (D131), and write words live at the target that hold the same value on both ways or are
//!   overwritten before any read on every path the state at the target permits (D140, `masks/sym.rs`).
//!
//! Several waves: own-bit and write-back stores are predicated by `on` like every other state write, so a
//! wave that runs a block "off" keeps its state.

use crate::hash::{HashMap, HashSet};

use rdna2spv_ir::{Handle, IntCmp, IntOp, Node, Terminator, Ty, UnOp, EXEC_LO, VCC_LO};
use spirv::Word;

use super::super::{operands, Cx, Kind, R};

mod exits;
mod sym;

use sym::{same, State, Val};

/// A set of SGPR words (bit r = s[r]).
type Words = u128;

/// L42: how a block ends, compared between two blocks (targets with jump-only blocks passed).
#[derive(PartialEq, Eq)]
enum TailExit {
    Jump(usize),
    /// An EXEC branch: (the way with EXEC = 0, the way with EXEC != 0).
    Exec(usize, usize),
    /// Another conditional branch: its mnemonic, taken, not taken.
    Cond(String, usize, usize),
}

/// L42: a block's instructions but a final `s_branch` / `s_cbranch_*` (compared through [`TailExit`]).
fn tail_body(b: &rdna2spv_ir::Block) -> &[rdna2spv_ir::Inst] {
    match b.insts.split_last() {
        Some((last, rest))
            if last.text.starts_with("s_branch") || last.text.starts_with("s_cbranch") =>
        {
            rest
        }
        _ => &b.insts,
    }
}

/// How a node of the current block is computed.
#[derive(Default, Clone)]
pub(crate) struct BlockPlan {
    /// Nodes computed as own bits only (their full value is not formed unless in `mat`).
    pub(crate) own: HashSet<usize>,
    /// Own nodes whose full value is formed by an exchange where they are computed.
    pub(crate) mat: HashSet<usize>,
    /// First node of an instruction → units whose full value is materialised (and written back) first.
    pub(crate) pre: HashMap<usize, Words>,
    /// L41: mask ORs equal to one operand (the other is a subset of it: `s_or_b32 exec_lo, exec_lo, s3`
    /// restoring the mask `s3` saved before EXEC was narrowed) → that operand.
    pub(crate) alias: HashMap<usize, usize>,
    /// L50: first node of an instruction whose `pre` exchange also forms later ballots' full values →
    /// those ballots (their own bits computed there, [`Future`]).
    pub(crate) fut: HashMap<usize, Vec<Future>>,
    /// L50: the mask values (the written node) whose full value an earlier exchange formed.
    pub(crate) fut_vals: HashSet<usize>,
}

/// L50: a ballot whose full value an earlier exchange of its block forms: the mask value a later
/// instruction writes (`value`: the ballot or its truncation), the ballot's condition and the
/// reads of that condition replaced by the values written to their registers since the exchange.
#[derive(Clone, Debug)]
pub(crate) struct Future {
    pub(crate) value: usize,
    pub(crate) cond: usize,
    pub(crate) subst: Vec<(usize, usize)>,
}

/// The lazy-mask state of the lowering.
#[derive(Default)]
pub(crate) struct MaskPlan {
    ready: bool,
    /// Units (by first word) whose own bit is kept.
    tracked: Words,
    own_var: HashMap<u32, Word>,
    /// Stale words at each block's entry.
    entry: Vec<Words>,
    /// Nodes not emitted (dead SCC writes and the pure uniform nodes only they use).
    dead: HashSet<usize>,
    /// Blocks whose EXEC branch is vote-free → the block they always go to (the way with EXEC != 0):
    /// the s_cbranch_execz fall-through of L11–L14 or L42's block.
    fall: HashMap<usize, usize>,
    /// L42: of those, the blocks whose way with EXEC = 0 is repeated by the block they go to → that way.
    tails: HashMap<usize, usize>,
    /// By block: reached from the entry once the vote-free branches go their one way (L43: a block
    /// never reached is not emitted).
    reached: Vec<bool>,
    /// Blocks whose loop back-edge `s_cbranch_execnz` is decided by the lane's own EXEC bit (D130).
    exits: HashSet<usize>,
    /// L41: blocks inside a structured loop (no alias there: lane-local loops rely on stale units).
    in_loop: Vec<bool>,
    block: BlockPlan,
    /// The lane's own bit (bool) of the current instruction's own nodes.
    pub(crate) bits: HashMap<usize, Word>,
    /// The latest materialisation of EXEC and of VCC in the current block, by unit: the first node of
    /// its instruction and the word index of wave 0's ballot words of its exchange (D136, D234).
    pub(crate) branch_words: Vec<(u32, usize, Word)>,
    /// By block: [`Cx::mask_sim`]'s result for the entry it was last run with under the current `dead`,
    /// `tracked` and `fall` (set by the dataflow, which clears it when it recomputes those): the plan
    /// reuses it instead of simulating each block again (issue 31, D204).
    sims: Vec<Option<Sim>>,
    /// L50: the variable (u64) holding a future ballot's full value, by the mask value it writes.
    fut_var: HashMap<usize, Word>,
}

/// L41: facts "unit a's mask is a subset of unit b's" between tracked units (by first word).
#[derive(Clone, Default)]
struct Subsets {
    /// a → every b with a ⊆ b (never a itself).
    sup: HashMap<u32, Words>,
}

impl Subsets {
    fn add(&mut self, a: u32, bs: Words) {
        let bs = bs & !(1u128 << a);
        if bs != 0 {
            *self.sup.entry(a).or_default() |= bs;
        }
    }
    fn supersets(&self, a: u32) -> Words {
        self.sup.get(&a).copied().unwrap_or(0)
    }
    fn subsets(&self, b: u32) -> Words {
        self.sup
            .iter()
            .filter(|&(_, &s)| s & (1u128 << b) != 0)
            .fold(0, |w, (&a, _)| w | 1u128 << a)
    }
}

/// L41: per mask node of one instruction, (units it is a subset of, units that are subsets of it), and
/// the ORs equal to an operand.
#[derive(Default)]
struct Bounds {
    of: HashMap<usize, (Words, Words)>,
    alias: HashMap<usize, usize>,
}

/// L50: the registers written since an open mask exchange of a block, by instruction index.
#[derive(Default)]
struct Window {
    /// VGPR → its writes (instruction, write node), in order; a 64-bit write is listed at both.
    vgpr: HashMap<u16, Vec<(usize, usize)>>,
    /// SGPR word → the first instruction that writes it.
    sgpr_first: HashMap<u32, usize>,
    /// SGPR word → its last write (instruction, write node).
    sgpr_last: HashMap<u32, (usize, usize)>,
}

/// L50: the walk of a future ballot's condition: the mask units' words (not readable as values), the
/// nodes visited, and the VGPR reads replaced by the value written (read node, value node).
struct FutureWalk {
    tracked: Words,
    seen: HashSet<usize>,
    subst: Vec<(usize, usize)>,
}

/// One block's simulation: the stale words at its entry, at its end, and its plan.
struct Sim {
    entry: Words,
    out: Words,
    plan: BlockPlan,
}

/// The SGPR words (bits 0..128) a read or write of `ty` at `reg` covers.
pub(crate) fn span(reg: u16, ty: Ty) -> Words {
    let n = if ty == Ty::B64 { 2 } else { 1 };
    let mut w = 0;
    for r in reg as u32..reg as u32 + n {
        if r < 128 {
            w |= 1u128 << r;
        }
    }
    w
}

const EXEC_WORDS: Words = 0b11 << EXEC_LO;

impl Cx<'_> {
    fn node(&self, i: usize) -> &Node {
        &self.p.nodes[Handle::from_index(i)]
    }

    /// The mask type of the wave (B32 for wave32, B64 for wave64).
    fn mask_ty(&self) -> Ty {
        if self.ws == 32 {
            Ty::B32
        } else {
            Ty::B64
        }
    }

    /// The unit (first word) holding lane masks of word `r`.
    fn unit_of(&self, r: u32) -> u32 {
        if self.ws == 32 {
            r
        } else {
            r & !1
        }
    }

    fn unit_words(&self, u: u32) -> Words {
        if self.ws == 32 {
            1u128 << u
        } else {
            0b11u128 << u
        }
    }

    /// Whether a whole-mask value may be written to `reg` in own form (a unit's first word: SGPRs, VCC,
    /// EXEC; not M0 or other special registers).
    fn ownable_reg(&self, reg: u16, ty: Ty) -> bool {
        ty == self.mask_ty()
            && (reg <= VCC_LO || reg == EXEC_LO)
            && (self.ws == 32 || reg.is_multiple_of(2))
    }

    /// Nodes that may propagate own bits from operand `o` (given `own(o)` for the operand test).
    fn propagates(&self, i: usize, own: &dyn Fn(usize) -> bool) -> bool {
        let mt = self.mask_ty();
        // A per-lane value (a VALU operation reading a mask as a scalar operand, `v_and_b32 v11, vcc,
        // v2`) reads the mask whole: its bits are not a mask's (D157).
        if self.is_lane(Handle::from_index(i)) {
            return false;
        }
        match *self.node(i) {
            Node::Unary {
                op: UnOp::Trunc,
                ty: Ty::B32,
                a,
            } => self.ws == 32 && own(a.index()),
            Node::Unary {
                op: UnOp::ZExt,
                ty: Ty::B64,
                a,
            } => self.ws == 32 && self.ty(a.index()) == Ty::B32 && own(a.index()),
            Node::Unary {
                op: UnOp::Not,
                ty,
                a,
            } => ty == mt && own(a.index()),
            Node::Int {
                op: IntOp::And | IntOp::Or | IntOp::Xor,
                ty,
                a,
                b,
            } => ty == mt && (own(a.index()) || own(b.index())),
            Node::Select { cond, a, b } => {
                !self.is_lane(cond)
                    && !own(cond.index())
                    && self.ty(a.index()) == mt
                    && (own(a.index()) || own(b.index()))
            }
            _ => false,
        }
    }

    /// Uniform nodes without effects (may be left out when nothing live uses them).
    fn pure_uniform(&self, i: usize) -> bool {
        self.kind(i) == Kind::Uniform
            && matches!(
                self.node(i),
                Node::Const { .. }
                    | Node::ReadSgpr { .. }
                    | Node::ReadScc
                    | Node::Int { .. }
                    | Node::IntCmp { .. }
                    | Node::Unary { .. }
                    | Node::Select { .. }
                    | Node::Concat { .. }
                    | Node::Extract { .. }
                    | Node::Ballot { .. }
            )
    }

    // ---- whole-program analysis ------------------------------------------------------------------

    /// SCC liveness per block (live-in), with the dead nodes of each instruction.
    fn mask_scc_liveness(&self) -> (Vec<bool>, HashSet<usize>) {
        let nb = self.p.blocks.len();
        let mut live_in = vec![false; nb];
        let mut dead = HashSet::default();
        // The liveness of one instruction's nodes, reused from instruction to instruction.
        let mut live: Vec<bool> = Vec::new();
        loop {
            let mut changed = false;
            dead.clear();
            for bi in (0..nb).rev() {
                let blk = &self.p.blocks[Handle::from_index(bi)];
                let mut scc = blk.terminator.successors().iter().any(|&s| live_in[s]);
                let cond = match blk.terminator {
                    Terminator::Branch { cond, .. }
                        if !self.lm.as_ref().is_some_and(|l| {
                            l.masks.fall.contains_key(&bi) || l.masks.exits.contains(&bi)
                        }) =>
                    {
                        Some(cond.index())
                    }
                    _ => None,
                };
                for (k, inst) in blk.insts.iter().enumerate().rev() {
                    let (s, e) = (inst.nodes.start as usize, inst.nodes.end as usize);
                    live.clear();
                    live.resize(e - s, false);
                    let mut reads = false;
                    for i in (s..e).rev() {
                        let l = match self.node(i) {
                            Node::WriteScc { .. } => scc,
                            _ if self.pure_uniform(i) => {
                                live[i - s] || (k + 1 == blk.insts.len() && cond == Some(i))
                            }
                            _ => true,
                        };
                        if !l {
                            dead.insert(i);
                            continue;
                        }
                        live[i - s] = true;
                        if matches!(self.node(i), Node::ReadScc) {
                            reads = true;
                        }
                        for o in operands(self.node(i)) {
                            live[o.index() - s] = true;
                        }
                    }
                    let writes = (s..e).any(|i| matches!(self.node(i), Node::WriteScc { .. }));
                    scc = (scc && !writes) || reads;
                }
                if scc != live_in[bi] {
                    live_in[bi] = scc;
                    changed = true;
                }
            }
            if !changed {
                return (live_in, dead);
            }
        }
    }

    /// SGPR words live at each block's entry (syntactic: every ReadSgpr reads; EXEC always live).
    fn mask_sgpr_liveness(&self) -> Vec<Words> {
        let nb = self.p.blocks.len();
        let mut live_in = vec![0 as Words; nb];
        loop {
            let mut changed = false;
            for bi in (0..nb).rev() {
                let blk = &self.p.blocks[Handle::from_index(bi)];
                let mut live = blk
                    .terminator
                    .successors()
                    .iter()
                    .fold(EXEC_WORDS, |a, &s| a | live_in[s]);
                for inst in blk.insts.iter().rev() {
                    let (mut rd, mut wr) = (0, 0);
                    for i in inst.nodes.clone() {
                        let i = i as usize;
                        match *self.node(i) {
                            Node::ReadSgpr { reg, ty } => rd |= span(reg, ty),
                            Node::WriteSgpr { reg, value } => {
                                wr |= span(reg, self.ty(value.index()))
                            }
                            _ => {}
                        }
                    }
                    live = (live & !wr) | rd | EXEC_WORDS;
                }
                if live != live_in[bi] {
                    live_in[bi] = live;
                    changed = true;
                }
            }
            if !changed {
                return live_in;
            }
        }
    }

    /// The two ways of block `bi`'s lifted `s_cbranch_execz` / `s_cbranch_execnz`: (the block taken
    /// when EXEC is 0, the block taken when it is not).
    fn exec_branch(&self, bi: usize) -> Option<(usize, usize)> {
        let Terminator::Branch {
            cond,
            taken,
            not_taken,
        } = self.p.blocks[Handle::from_index(bi)].terminator
        else {
            return None;
        };
        let Node::IntCmp { op, a, b, .. } = *self.node(cond.index()) else {
            return None;
        };
        if !(matches!(*self.node(a.index()), Node::ReadSgpr { reg, .. } if reg == EXEC_LO)
            && matches!(*self.node(b.index()), Node::Const { bits: 0, .. }))
        {
            return None;
        }
        let (t, n) = (taken.index(), not_taken.index());
        match op {
            IntCmp::Eq => Some((t, n)),
            IntCmp::Ne => Some((n, t)),
            _ => None,
        }
    }

    /// D102: the s_cbranch_execz of block `bi` may fall through (run its region with EXEC = 0) when the
    /// region (the blocks reachable from the fall-through block without passing the target) is acyclic,
    /// cannot end the program, has no s_barrier and no uniform memory access other than the scalar loads
    /// inside a launch segment in `seg_loads` (D132, [`Cx::launch_segment_loads`]), writes no SCC that is
    /// live at the target, and every SGPR word it writes that is live at the target holds there the value it
    /// holds where the branch is taken (symbolically, from the constants `consts` at the block entries), or
    /// is overwritten before any read on every path from the target the shared state permits (D140; EXEC
    /// must be equal).
    fn mask_fall_ok(
        &self,
        bi: usize,
        sgpr_live: &[Words],
        scc_live: &[bool],
        exits: &HashSet<usize>,
        seg_loads: &HashSet<usize>,
        consts: &[Option<State>],
    ) -> Option<(usize, Option<usize>)> {
        if exits.contains(&bi) {
            return None;
        }
        // `t`: where the hardware goes with EXEC = 0; `n`: where the lane mapping always goes.
        let (t, n) = self.exec_branch(bi)?;
        if self.mask_tail_same(bi, t, n, sgpr_live, scc_live, exits, seg_loads) {
            return Some((n, Some(t)));
        }
        let mut region = HashSet::default();
        let mut stack = vec![n];
        while let Some(b) = stack.pop() {
            if b == t || !region.insert(b) {
                continue;
            }
            stack.extend(self.p.blocks[Handle::from_index(b)].terminator.successors());
        }
        if region.contains(&bi) {
            return None;
        }
        let (mut wr, mut scc) = (0 as Words, false);
        for &b in &region {
            let blk = &self.p.blocks[Handle::from_index(b)];
            if blk.terminator == Terminator::End {
                return None;
            }
            let (w, c) = self.scalar_effects(&blk.insts, seg_loads)?;
            wr |= w;
            scc |= c;
        }
        // Acyclic once the back edges of lane-local loop exits (D130) are left out: a depth-first
        // search inside the region finds no other back edge (D131: with EXEC zero at such an exit,
        // checked below, every lane leaves that loop after one pass).
        let mut state: HashMap<usize, u8> = HashMap::default();
        fn cyclic(
            cx: &Cx<'_>,
            b: usize,
            r: &HashSet<usize>,
            ex: &HashSet<usize>,
            st: &mut HashMap<usize, u8>,
        ) -> bool {
            match st.get(&b) {
                Some(1) => return true,
                Some(_) => return false,
                None => {}
            }
            st.insert(b, 1);
            for s in cx.dag_successors(b, ex) {
                if r.contains(&s) && cyclic(cx, s, r, ex, st) {
                    return true;
                }
            }
            st.insert(b, 2);
            false
        }
        if region.contains(&n) && cyclic(self, n, &region, exits, &mut state) {
            return None;
        }
        // A word written in the region and live at T must hold the same value at T as at the end of the
        // branch's block, where the hardware skips (D140: constants and bitwise functions of the words
        // at the block's entry; EXEC is 0 at both), or be overwritten before any read on every path from
        // T the shared state permits. EXEC must be 0 at every lane-local exit of the region (D131).
        if scc && scc_live[t] {
            return None;
        }
        let start = self.sym_at_branch(bi, consts);
        let at_t = if region.contains(&n) {
            let mut order = Vec::new();
            self.region_postorder(n, &region, exits, &mut HashSet::default(), &mut order);
            order.reverse();
            self.sym_region(
                &order,
                start.clone(),
                t,
                &|b| self.dag_successors(b, exits),
                &|b| region.contains(&b),
                &|b| exits.contains(&b),
            )?
        } else {
            start.clone()
        };
        let mut equal: Words = 0;
        for r in 0..128 {
            if same(at_t[r], start[r]) {
                equal |= 1u128 << r;
            }
        }
        let differ = wr & sgpr_live[t] & !equal;
        // EXEC is read by every lane operation without a ReadSgpr: it must be equal (0) at T.
        if differ & EXEC_WORDS != 0 {
            return None;
        }
        if differ != 0 {
            let mut shared = at_t;
            for (r, v) in shared.iter_mut().enumerate() {
                if wr & !equal & (1u128 << r) != 0 {
                    *v = Val::U;
                }
            }
            if !self.sym_dead_after(t, shared, differ) {
                return None;
            }
        }
        Some((n, None))
    }

    /// L42: block `n`, run with EXEC = 0, does what block `t` does: its instructions are a prefix `P`
    /// followed by `t`'s instructions (the same text, so the same operation: no pc-relative one) and
    /// both end the same way (a jump to, or an EXEC branch between, the same blocks once blocks that
    /// only jump are passed), and `P` with no lane active changes nothing the rest can see: no barrier,
    /// no uniform memory access but launch-segment loads (D132), no EXEC write, no SGPR word or SCC
    /// write live at `t` (its per-lane writes and accesses are guarded off). clang's tail-duplicated
    /// `if`s: `s_and_saveexec_b32 s2, vcc_lo; s_cbranch_execnz F` with `F` = the guarded load followed
    /// by a copy of the fall-through block's `s_or_b32 exec_lo, exec_lo, s2; s_and_saveexec_b32 ...`.
    #[allow(clippy::too_many_arguments)]
    fn mask_tail_same(
        &self,
        bi: usize,
        t: usize,
        n: usize,
        sgpr_live: &[Words],
        scc_live: &[bool],
        exits: &HashSet<usize>,
        seg_loads: &HashSet<usize>,
    ) -> bool {
        if t == n || t == bi || n == bi || exits.contains(&t) || exits.contains(&n) {
            return false;
        }
        let (bt, bn) = (
            &self.p.blocks[Handle::from_index(t)],
            &self.p.blocks[Handle::from_index(n)],
        );
        let (Some(et), Some(en)) = (self.tail_exit(t), self.tail_exit(n)) else {
            return false;
        };
        if et != en {
            return false;
        }
        let (st, sn) = (tail_body(bt), tail_body(bn));
        if sn.len() < st.len() {
            return false;
        }
        let (pre, rest) = sn.split_at(sn.len() - st.len());
        let pc_relative = |text: &str| {
            [
                "s_getpc",
                "s_setpc",
                "s_swappc",
                "s_call",
                "s_cbranch",
                "s_branch",
            ]
            .iter()
            .any(|m| text.starts_with(m))
        };
        if rest.iter().zip(st).any(|(a, b)| {
            a.text != b.text || pc_relative(&a.text) || a.nodes.len() != b.nodes.len()
        }) {
            return false;
        }
        if pre.iter().any(|i| pc_relative(&i.text)) {
            return false;
        }
        let Some((wr, scc)) = self.scalar_effects(pre, seg_loads) else {
            return false;
        };
        wr & (EXEC_WORDS | sgpr_live[t]) == 0 && !(scc && scc_live[t])
    }

    /// What `insts` do that lanes with no EXEC bit still see, for a vote-free branch (L11–L14, L42):
    /// `None` for an `s_barrier` or a uniform memory access other than a scalar load inside a launch
    /// segment in `seg_loads` (it reads allocated memory and has no effect besides the SGPRs it writes,
    /// D132); else the SGPR words and whether SCC are written.
    fn scalar_effects(
        &self,
        insts: &[rdna2spv_ir::Inst],
        seg_loads: &HashSet<usize>,
    ) -> Option<(Words, bool)> {
        let (mut wr, mut scc) = (0 as Words, false);
        for i in insts.iter().flat_map(|inst| inst.nodes.clone()) {
            let i = i as usize;
            match *self.node(i) {
                Node::Barrier => return None,
                Node::Load { .. } if seg_loads.contains(&i) => {}
                Node::Load { .. } | Node::Store { .. } | Node::Atomic { .. }
                    if self.kind(i) == Kind::Uniform =>
                {
                    return None
                }
                Node::WriteSgpr { reg, value } => wr |= span(reg, self.ty(value.index())),
                Node::WriteScc { .. } => scc = true,
                _ => {}
            }
        }
        Some((wr, scc))
    }

    /// L42: how block `b` ends, with blocks that only jump passed: `None` for the program's end or a
    /// lane-local loop exit's own way of leaving.
    fn tail_exit(&self, b: usize) -> Option<TailExit> {
        let blk = &self.p.blocks[Handle::from_index(b)];
        match blk.terminator {
            Terminator::Jump(to) => Some(TailExit::Jump(self.pass_jumps(to.index()))),
            Terminator::Branch {
                taken, not_taken, ..
            } => {
                if let Some((z, nz)) = self.exec_branch(b) {
                    return Some(TailExit::Exec(self.pass_jumps(z), self.pass_jumps(nz)));
                }
                let last = blk.insts.last()?;
                let op = last.text.split_whitespace().next()?.to_string();
                Some(TailExit::Cond(
                    op,
                    self.pass_jumps(taken.index()),
                    self.pass_jumps(not_taken.index()),
                ))
            }
            Terminator::End => None,
        }
    }

    /// The block a jump to `b` arrives at once blocks with no node that only jump on are passed.
    fn pass_jumps(&self, mut b: usize) -> usize {
        for _ in 0..8 {
            let blk = &self.p.blocks[Handle::from_index(b)];
            match blk.terminator {
                Terminator::Jump(to) if blk.insts.iter().all(|i| i.nodes.is_empty()) => {
                    b = to.index()
                }
                _ => break,
            }
        }
        b
    }

    /// Postorder of the `region` from block `b` over [`Cx::dag_successors`].
    fn region_postorder(
        &self,
        b: usize,
        r: &HashSet<usize>,
        ex: &HashSet<usize>,
        seen: &mut HashSet<usize>,
        out: &mut Vec<usize>,
    ) {
        if !seen.insert(b) {
            return;
        }
        for s in self.dag_successors(b, ex) {
            if r.contains(&s) {
                self.region_postorder(s, r, ex, seen, out);
            }
        }
        out.push(b);
    }

    /// The successors of block `b` in a region run with EXEC = 0: a lane-local loop exit (D130) only
    /// leaves (its own EXEC bit is 0 there, checked by [`Cx::mask_exec_zero_at`]).
    fn dag_successors(&self, b: usize, exits: &HashSet<usize>) -> Vec<usize> {
        match self.p.blocks[Handle::from_index(b)].terminator {
            Terminator::Branch { .. } if exits.contains(&b) => match self.exit_pattern(b) {
                Some((_, x)) => vec![x],
                None => self.p.blocks[Handle::from_index(b)].terminator.successors(),
            },
            t => t.successors(),
        }
    }

    /// Classifies the nodes of block `bi` from the stale words at its entry; returns the stale words at
    /// its end and the plan.
    fn mask_sim(&self, bi: usize, stale: Words, m: &MaskPlan) -> (Words, BlockPlan) {
        let first = self.mask_sim_with(bi, stale, m, &HashMap::default(), &HashMap::default());
        let (early, fut) = self.mask_early(bi, &first.1.pre, m);
        if early.is_empty() && fut.is_empty() {
            return first;
        }
        self.mask_sim_with(bi, stale, m, &early, &fut)
    }

    /// L38: the units a later instruction of block `bi` materialises (its `pre`) that may be made whole
    /// on an earlier instruction's materialising exchange instead, by instruction index: the latest
    /// earlier instruction that keeps an exchange of its own, when no instruction from it up to the
    /// later one writes the unit (or exchanges a value D278 zeroes: its bpermute no longer makes EXEC
    /// whole, but it still exchanges). The unit's own bits are the same at both points (nothing writes it in
    /// between), so the full value the earlier exchange forms is the one the later would form, and it is
    /// written back where the later instruction reads it. EXEC stays where it is: D136 takes the labels
    /// from the ballot words of the exchange at the branch's own instruction.
    ///
    /// L50: a unit written in between by a ballot ([`Cx::mask_future`]) whose own bit can be computed at
    /// the earlier exchange joins it too, as a [`Future`] of that instruction (second result).
    /// `RDNA2SPV_FUTURE_BALLOTS=0` (a measurement switch) takes none.
    fn mask_early(
        &self,
        bi: usize,
        pre: &HashMap<usize, Words>,
        m: &MaskPlan,
    ) -> (HashMap<usize, Words>, HashMap<usize, Vec<Future>>) {
        let blk = &self.p.blocks[Handle::from_index(bi)];
        let exec_unit = 1u128 << EXEC_LO;
        let mut early: HashMap<usize, Words> = HashMap::default();
        let mut fut: HashMap<usize, Vec<Future>> = HashMap::default();
        let futures = !self.future_disabled
            && std::env::var_os("RDNA2SPV_FUTURE_BALLOTS").is_none_or(|v| v != "0");
        // The open exchange (instruction index) and the units written since it was emitted.
        let mut open: Option<(usize, Words)> = None;
        // L50: the registers written since the open exchange, when it makes units whole (a D278
        // exchange takes no future: its ballots ride on the bpermute's own exchange).
        let mut win: Option<Window> = None;
        for (k, inst) in blk.insts.iter().enumerate() {
            let s = inst.nodes.start as usize;
            if let Some(&units) = pre.get(&s) {
                let movable = match open {
                    Some((k0, written)) => {
                        let mv = units & !exec_unit & !written;
                        if mv != 0 {
                            *early.entry(k0).or_default() |= mv;
                        }
                        let mut later = 0;
                        if let (true, Some(w)) = (futures, win.as_ref()) {
                            let mut rest = units & !exec_unit & written;
                            while rest != 0 {
                                let u = rest.trailing_zeros();
                                rest &= rest - 1;
                                if let Some(f) = self.mask_future(u, k, w, m) {
                                    fut.entry(k0).or_default().push(f);
                                    later |= 1u128 << u;
                                }
                            }
                        }
                        mv | later
                    }
                    None => 0,
                };
                if units & !movable != 0 {
                    open = Some((k, 0));
                    win = Some(Window::default());
                }
            } else if self.zero_exchange(inst.nodes.clone()) {
                // D278: a bpermute whose zeroed exchange no longer makes EXEC whole still exchanges.
                open = Some((k, 0));
                win = None;
            }
            if let Some((_, written)) = open.as_mut() {
                for i in inst.nodes.clone() {
                    let i = i as usize;
                    if let Node::WriteSgpr { reg, value } = *self.node(i) {
                        if !m.dead.contains(&i) {
                            *written |= self.units_of(span(reg, self.ty(value.index())));
                        }
                    }
                }
            }
            if let Some(w) = win.as_mut() {
                for i in inst.nodes.clone() {
                    let i = i as usize;
                    match *self.node(i) {
                        Node::WriteVgpr { reg, value } => {
                            let n = if self.ty(value.index()) == Ty::B64 {
                                2
                            } else {
                                1
                            };
                            for r in reg..reg + n {
                                w.vgpr.entry(r).or_default().push((k, i));
                            }
                        }
                        Node::WriteSgpr { reg, value } if !m.dead.contains(&i) => {
                            let mut ws = span(reg, self.ty(value.index()));
                            while ws != 0 {
                                let r = ws.trailing_zeros();
                                ws &= ws - 1;
                                w.sgpr_first.entry(r).or_insert(k);
                                w.sgpr_last.insert(r, (k, i));
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        (early, fut)
    }

    /// L50: unit `u`, read whole at instruction `k` of the current block and last written since the open
    /// exchange (its register writes in `w`) by a ballot at instruction `kw` (the write covers the unit), as a
    /// [`Future`] of that exchange: when EXEC is not written before `kw` and the ballot's condition is a
    /// small pure computation whose register reads see, at the exchange, the values they see at their
    /// own instruction: an unwritten register is read there, a VGPR written since is replaced by the value
    /// written (recursively); SGPRs must be unwritten and not mask units (a stale unit's words are not its
    /// value). The ballot's own bit at the exchange is then the one `kw` computes, so the exchange forms
    /// its full value, written with the ballot's own bits at `kw` (the unit is whole from there).
    fn mask_future(&self, u: u32, k: usize, w: &Window, m: &MaskPlan) -> Option<Future> {
        let words = self.pre_words(1u128 << u);
        let &(kw, wn) = w.sgpr_last.get(&u)?;
        if kw >= k || m.dead.contains(&wn) {
            return None;
        }
        let Node::WriteSgpr { reg, value } = *self.node(wn) else {
            return None;
        };
        if reg as u32 != u || span(reg, self.ty(value.index())) != words {
            return None;
        }
        let mut ws = words;
        while ws != 0 {
            let r = ws.trailing_zeros();
            ws &= ws - 1;
            if w.sgpr_last.get(&r) != Some(&(kw, wn)) {
                return None;
            }
        }
        if [EXEC_LO as u32, EXEC_LO as u32 + 1]
            .iter()
            .any(|r| w.sgpr_first.get(r).is_some_and(|&f| f < kw))
        {
            return None;
        }
        let mut b = value.index();
        if let Node::Unary {
            op: UnOp::Trunc, a, ..
        } = *self.node(b)
        {
            b = a.index();
        }
        let Node::Ballot { cond } = *self.node(b) else {
            return None;
        };
        let mut fw = FutureWalk {
            tracked: self.pre_words(m.tracked),
            seen: HashSet::default(),
            subst: Vec::new(),
        };
        if !self.future_dag(cond.index(), kw, w, &mut fw) {
            return None;
        }
        Some(Future {
            value: value.index(),
            cond: cond.index(),
            subst: fw.subst,
        })
    }

    /// L50: whether node `n` (of instruction `j`) can be computed at the open exchange (see
    /// [`Cx::mask_future`]); records the replaced VGPR reads in `fw`.
    fn future_dag(&self, n: usize, j: usize, w: &Window, fw: &mut FutureWalk) -> bool {
        const MOST_NODES: usize = 48;
        if !fw.seen.insert(n) {
            return true;
        }
        if fw.seen.len() > MOST_NODES {
            return false;
        }
        match *self.node(n) {
            Node::Const { .. } | Node::LaneId | Node::WaveId => true,
            Node::ReadVgpr { reg, ty } => {
                let last = |r: u16| {
                    w.vgpr
                        .get(&r)
                        .and_then(|v| v.iter().rev().find(|&&(i, _)| i < j).copied())
                };
                let lo = last(reg);
                let hi = if ty == Ty::B64 { last(reg + 1) } else { None };
                match (lo, hi) {
                    (None, None) => true,
                    (Some((i, x)), h) if ty != Ty::B64 || h == Some((i, x)) => {
                        let Node::WriteVgpr { reg: r, value } = *self.node(x) else {
                            return false;
                        };
                        if r != reg || self.ty(value.index()) != ty {
                            return false;
                        }
                        fw.subst.push((n, value.index()));
                        self.future_dag(value.index(), i, w, fw)
                    }
                    _ => false,
                }
            }
            Node::ReadSgpr { reg, ty } => {
                let mut ws = span(reg, ty);
                if reg as u32 >= 128 || ws & fw.tracked != 0 {
                    return false;
                }
                while ws != 0 {
                    let r = ws.trailing_zeros();
                    ws &= ws - 1;
                    if w.sgpr_first.get(&r).is_some_and(|&f| f < j) {
                        return false;
                    }
                }
                true
            }
            Node::Int { a, b, .. } | Node::IntCmp { a, b, .. } | Node::Concat { lo: a, hi: b } => {
                self.future_dag(a.index(), j, w, fw) && self.future_dag(b.index(), j, w, fw)
            }
            // Integer operations only (no float conversion: its modes stay where they are).
            Node::Unary {
                op: UnOp::Not | UnOp::ZExt | UnOp::SExt | UnOp::Trunc | UnOp::Popcount,
                a,
                ..
            }
            | Node::Extract { a, .. } => self.future_dag(a.index(), j, w, fw),
            Node::Select { cond, a, b } => {
                self.future_dag(cond.index(), j, w, fw)
                    && self.future_dag(a.index(), j, w, fw)
                    && self.future_dag(b.index(), j, w, fw)
            }
            _ => false,
        }
    }

    /// D278: whether the instruction of `nodes` exchanges a value only bpermute picks read (its exchange
    /// stores zero outside EXEC; a later unit may be made whole on it, L38).
    fn zero_exchange(&self, nodes: std::ops::Range<u32>) -> bool {
        nodes.into_iter().any(|i| {
            matches!(*self.node(i as usize), Node::ReadLane { a, .. }
                if self.sub.zero.vals.contains(&a.index()))
        })
    }

    /// [`Self::mask_sim`] with the units `early` (by instruction index) made whole before their
    /// instruction in addition to those it reads whole, and the ballots `fut` (L50) formed whole on
    /// the exchange of their instruction (when it keeps one).
    fn mask_sim_with(
        &self,
        bi: usize,
        mut stale: Words,
        m: &MaskPlan,
        early: &HashMap<usize, Words>,
        fut: &HashMap<usize, Vec<Future>>,
    ) -> (Words, BlockPlan) {
        let mut plan = BlockPlan::default();
        let blk = &self.p.blocks[Handle::from_index(bi)];
        let n_insts = blk.insts.len();
        let mt = self.mask_ty();
        // Own and materialised nodes of one instruction, by node index from its first: one pair of
        // vectors for the block (issue 31, D204).
        let mut own = NodeFlags::default();
        let mut need = NodeFlags::default();
        // L41: the subset facts between tracked units known in the block so far (none at its entry).
        let aliasing = !m.in_loop.get(bi).copied().unwrap_or(true);
        let mut sub = Subsets::default();
        for (k, inst) in blk.insts.iter().enumerate() {
            let (s, e) = (inst.nodes.start as usize, inst.nodes.end as usize);
            let live = |i: usize| !m.dead.contains(&i);
            let bounds = if aliasing {
                self.mask_bounds(s, e, &sub, m)
            } else {
                Bounds::default()
            };
            let mut pre: Words = early.get(&k).copied().unwrap_or(0) & self.units_of(stale);
            loop {
                let st = stale & !self.pre_words(pre);
                // Own nodes under the state `st`.
                own.start(s, e);
                for i in s..e {
                    if !live(i) {
                        continue;
                    }
                    if let Some(&y) = bounds.alias.get(&i) {
                        if own.contains(y) {
                            own.insert(i);
                        }
                        continue;
                    }
                    let o = match *self.node(i) {
                        Node::ReadSgpr { reg, ty } => {
                            span(reg, ty) & st != 0
                                && ty == mt
                                && (self.ws == 32 || reg.is_multiple_of(2))
                                && m.tracked & (1u128 << reg) != 0
                        }
                        Node::Ballot { cond } => self.is_lane(cond) || st & EXEC_WORDS != 0,
                        _ => self.propagates(i, &|o| own.contains(o)),
                    };
                    if o {
                        own.insert(i);
                    }
                }
                // Whole reads of own nodes and of stale words.
                let mut new_pre: Words = 0;
                need.start(s, e);
                for i in s..e {
                    if !live(i) {
                        continue;
                    }
                    let node = self.node(i);
                    match *node {
                        Node::ReadSgpr { reg, ty }
                            if !own.contains(i) && span(reg, ty) & st != 0 =>
                        {
                            new_pre |= self.units_of(span(reg, ty) & st);
                        }
                        Node::ReadFirstLane { a } if self.is_lane(a) && st & EXEC_WORDS != 0 => {
                            new_pre |= self.units_of(EXEC_WORDS & st);
                        }
                        _ => {}
                    }
                    if bounds.alias.contains_key(&i) {
                        // L41: the operand it equals is own exactly when it is; the other is not read.
                        continue;
                    }
                    let accepts = match *node {
                        Node::LaneBit { .. } => true,
                        // L44: a test of the mask's bit at a lane of the reader's subgroup block is
                        // the source lane's own bit, shuffled.
                        Node::Int {
                            op: IntOp::LShr, ..
                        } if self.sub.test_inner.contains_key(&i) => true,
                        // D278: a bpermute's test of its source lane's EXEC bit, read from the
                        // exchange's zeroed slot instead.
                        Node::Int {
                            op: IntOp::LShr, ..
                        } if self.sub.zero.tests.contains(&i) => true,
                        Node::WriteSgpr { reg, value } => {
                            self.ownable_reg(reg, self.ty(value.index()))
                        }
                        _ => own.contains(i),
                    };
                    if accepts {
                        continue;
                    }
                    for o in operands(node) {
                        if own.contains(o.index()) {
                            need.insert(o.index());
                        }
                    }
                }
                if k + 1 == n_insts {
                    if let Terminator::Branch { cond, .. } = blk.terminator {
                        if !m.fall.contains_key(&bi) && own.contains(cond.index()) {
                            need.insert(cond.index());
                        }
                    }
                }
                // A stale register read whole is materialised (and written back) before the instruction;
                // so is a stale EXEC under a uniform ballot read whole (ds_bpermute's source mask): once
                // written back, later instructions of the block read it without an exchange.
                for o in need.iter() {
                    // A register copy (ZExt/Trunc of a read) counts as the read.
                    let mut o = o;
                    while let Node::Unary {
                        op: UnOp::ZExt | UnOp::Trunc,
                        a,
                        ..
                    } = *self.node(o)
                    {
                        o = a.index();
                    }
                    match *self.node(o) {
                        Node::ReadSgpr { reg, ty } => new_pre |= self.units_of(span(reg, ty) & st),
                        Node::Ballot { cond } if !self.is_lane(cond) => {
                            new_pre |= self.units_of(EXEC_WORDS & st)
                        }
                        _ => {}
                    }
                }
                if new_pre & !pre == 0 {
                    break;
                }
                pre |= new_pre;
            }
            stale &= !self.pre_words(pre);
            if pre != 0 {
                plan.pre.insert(s, pre);
                if let Some(fs) = fut.get(&k) {
                    plan.fut_vals.extend(fs.iter().map(|f| f.value));
                    plan.fut.insert(s, fs.clone());
                }
            }
            // Writes at the instruction's end.
            for i in s..e {
                match *self.node(i) {
                    Node::WriteSgpr { reg, value } if live(i) => {
                        let w = span(reg, self.ty(value.index()));
                        if own.contains(value.index())
                            && !need.contains(value.index())
                            && !plan.fut_vals.contains(&value.index())
                        {
                            stale |= w;
                        } else {
                            stale &= !w;
                        }
                    }
                    _ => {}
                }
            }
            plan.own.extend(own.iter());
            plan.mat.extend(need.iter());
            if aliasing {
                sub = self.mask_subsets_after(s, e, &sub, &bounds, m);
                plan.alias.extend(bounds.alias);
            }
        }
        (stale, plan)
    }

    /// L41: the subset bounds of the mask nodes of the instruction `s..e` under the facts `sub`, and the
    /// ORs equal to one of their operands.
    fn mask_bounds(&self, s: usize, e: usize, sub: &Subsets, m: &MaskPlan) -> Bounds {
        let mt = self.mask_ty();
        let mut b = Bounds::default();
        for i in s..e {
            if m.dead.contains(&i) {
                continue;
            }
            let get = |b: &Bounds, x: Handle<Node>| b.of.get(&x.index()).copied();
            let v = match *self.node(i) {
                Node::ReadSgpr { reg, ty } if ty == mt && self.subset_unit(reg as u32, m) => {
                    let u = 1u128 << reg;
                    Some((u | sub.supersets(reg as u32), u | sub.subsets(reg as u32)))
                }
                // Only active lanes' bits: a subset of EXEC.
                Node::Ballot { .. } if self.subset_unit(EXEC_LO as u32, m) => {
                    let u = 1u128 << EXEC_LO;
                    Some((u | sub.supersets(EXEC_LO as u32), 0))
                }
                Node::Unary {
                    op: UnOp::Trunc | UnOp::ZExt,
                    a,
                    ..
                } if self.ws == 32 => get(&b, a),
                Node::Int {
                    op: IntOp::And,
                    ty,
                    a,
                    b: c,
                } if ty == mt => match (get(&b, a), get(&b, c)) {
                    (Some((ua, la)), Some((uc, lc))) => Some((ua | uc, la & lc)),
                    (Some((ua, _)), None) | (None, Some((ua, _))) => Some((ua, 0)),
                    (None, None) => None,
                },
                Node::Int {
                    op: IntOp::Or,
                    ty,
                    a,
                    b: c,
                } if ty == mt => {
                    let (x, y) = (get(&b, a), get(&b, c));
                    // a ⊆ U ⊆ c for some unit U: a | c = c (and the other way round).
                    match (x, y) {
                        (Some((ua, _)), Some((_, lc))) if ua & lc != 0 => {
                            b.alias.insert(i, c.index());
                        }
                        (Some((_, la)), Some((uc, _))) if uc & la != 0 => {
                            b.alias.insert(i, a.index());
                        }
                        _ => {}
                    }
                    match (x, y) {
                        (Some((ua, la)), Some((uc, lc))) => Some((ua & uc, la | lc)),
                        (Some((_, la)), None) | (None, Some((_, la))) => Some((0, la)),
                        (None, None) => None,
                    }
                }
                _ => None,
            };
            if let Some(v) = v {
                b.of.insert(i, v);
            }
        }
        b
    }

    /// L41: whether unit `u` (its first word) takes part in subset facts: a tracked mask unit.
    fn subset_unit(&self, u: u32, m: &MaskPlan) -> bool {
        u < 128 && (self.ws == 32 || u.is_multiple_of(2)) && m.tracked & (1u128 << u) != 0
    }

    /// L41: the subset facts after the instruction `s..e` (its reads saw `sub`, `bounds`): a unit that
    /// now holds an old unit's value (unwritten, or a copy) inherits its facts; a written unit gets the
    /// bounds of its value; any other write forgets the unit.
    fn mask_subsets_after(
        &self,
        s: usize,
        e: usize,
        sub: &Subsets,
        bounds: &Bounds,
        m: &MaskPlan,
    ) -> Subsets {
        let mt = self.mask_ty();
        // Written units: Some(value node) for a whole write of a tracked unit, None otherwise.
        let mut written: Vec<(u32, Option<usize>)> = Vec::new();
        let mut written_words: Words = 0;
        for i in s..e {
            if m.dead.contains(&i) {
                continue;
            }
            if let Node::WriteSgpr { reg, value } = *self.node(i) {
                let ty = self.ty(value.index());
                let w = span(reg, ty);
                written_words |= w;
                let whole = ty == mt && self.subset_unit(reg as u32, m);
                let mut us = self.units_of(w);
                while us != 0 {
                    let u = us.trailing_zeros();
                    us &= us - 1;
                    let v = (whole && u == reg as u32).then_some(value.index());
                    written.retain(|&(x, _)| x != u);
                    written.push((u, v));
                }
            }
        }
        if written.is_empty() {
            return sub.clone();
        }
        let written_units = self.units_of(written_words);
        // holders(y): the units whose new value is y's old value.
        let copy_of = |v: usize| -> Option<u32> {
            let mut o = v;
            while let (
                32,
                Node::Unary {
                    op: UnOp::Trunc | UnOp::ZExt,
                    a,
                    ..
                },
            ) = (self.ws, self.node(o))
            {
                o = a.index();
            }
            match *self.node(o) {
                Node::ReadSgpr { reg, ty } if ty == mt && self.subset_unit(reg as u32, m) => {
                    Some(reg as u32)
                }
                _ => None,
            }
        };
        let holders = |y: u32| -> Words {
            let mut h = if written_units & (1u128 << y) == 0 {
                1u128 << y
            } else {
                0
            };
            for &(u, v) in &written {
                if v.and_then(copy_of) == Some(y) {
                    h |= 1u128 << u;
                }
            }
            h
        };
        let holders_of = |mut ys: Words| -> Words {
            let mut h = 0;
            while ys != 0 {
                let y = ys.trailing_zeros();
                ys &= ys - 1;
                h |= holders(y);
            }
            h
        };
        let mut out = Subsets::default();
        for (&a, &sups) in &sub.sup {
            let hb = holders_of(sups);
            let mut ha = holders(a);
            while ha != 0 {
                let x = ha.trailing_zeros();
                ha &= ha - 1;
                out.add(x, hb);
            }
        }
        for &(w, v) in &written {
            let Some((ub, lb)) = v.and_then(|v| bounds.of.get(&v).copied()) else {
                continue;
            };
            out.add(w, holders_of(ub));
            let mut hl = holders_of(lb);
            while hl != 0 {
                let x = hl.trailing_zeros();
                hl &= hl - 1;
                out.add(x, 1u128 << w);
            }
        }
        out
    }

    /// The units (first words) that hold any of `w`.
    fn units_of(&self, mut w: Words) -> Words {
        let mut u = 0;
        while w != 0 {
            let r = w.trailing_zeros();
            w &= w - 1;
            u |= 1u128 << self.unit_of(r);
        }
        u
    }

    /// The words of the units `u`.
    fn pre_words(&self, mut u: Words) -> Words {
        let mut w = 0;
        while u != 0 {
            let r = u.trailing_zeros();
            u &= u - 1;
            w |= self.unit_words(r);
        }
        w
    }

    /// The SGPR words of the mask units `u` (bit r = the unit whose first word is s[r]).
    pub(crate) fn lane_unit_words(&self, u: Words) -> Words {
        self.pre_words(u)
    }

    /// L36: whether node `i` (of kind `kind`) reads any of the SGPR words `words`: a read of them, or,
    /// with EXEC among them, a uniform ballot (a ballot reads EXEC).
    pub(in crate::lower) fn lane_reads_words(&self, i: usize, kind: Kind, words: Words) -> bool {
        match *self.node(i) {
            Node::ReadSgpr { reg, ty } => span(reg, ty) & words != 0,
            Node::Ballot { .. } => kind == Kind::Uniform && words & EXEC_WORDS != 0,
            _ => false,
        }
    }

    /// Units that may hold an own-only value (a fixpoint over ownable writes of may-own nodes).
    fn mask_tracked(&self, dead: &HashSet<usize>) -> Words {
        let mut tracked: Words = 0;
        loop {
            let mut t2 = tracked;
            for (_, blk) in self.p.blocks.iter() {
                for inst in &blk.insts {
                    let mut may: HashSet<usize> = HashSet::default();
                    for i in inst.nodes.clone() {
                        let i = i as usize;
                        if dead.contains(&i) {
                            continue;
                        }
                        let o = match *self.node(i) {
                            Node::ReadSgpr { reg, ty } => {
                                ty == self.mask_ty()
                                    && (self.ws == 32 || reg.is_multiple_of(2))
                                    && tracked & (1u128 << reg) != 0
                            }
                            Node::Ballot { .. } => true,
                            Node::WriteSgpr { reg, value } => {
                                if may.contains(&value.index())
                                    && self.ownable_reg(reg, self.ty(value.index()))
                                {
                                    t2 |= 1u128 << reg;
                                }
                                false
                            }
                            _ => self.propagates(i, &|o| may.contains(&o)),
                        };
                        if o {
                            may.insert(i);
                        }
                    }
                }
            }
            if t2 == tracked {
                return tracked;
            }
            tracked = t2;
        }
    }

    /// The mask plan's whole-program analysis (L9–L15) into the analysis state (the lane plan, D177).
    pub(crate) fn lane_plan_masks_compute(&mut self) {
        let (scc_live, _) = self.mask_scc_liveness();
        let sgpr_live = self.mask_sgpr_liveness();
        let nb = self.p.blocks.len();
        // L41: the blocks inside a structured loop (all of them when the structure is unknown).
        let in_loop = match self.structure.as_ref() {
            Some(st) => {
                let mut loops = Vec::new();
                super::plan::collect_loops(&st.items, &mut |lo, hi| loops.push((lo, hi)));
                (0..nb)
                    .map(|b| {
                        let n = st.number[b];
                        loops.iter().any(|&(lo, hi)| (lo..hi).contains(&n))
                    })
                    .collect()
            }
            None => vec![true; nb],
        };
        let mut m = MaskPlan {
            in_loop,
            ..Default::default()
        };
        // Lane-local loop exits (D130): candidates, then kept only where the plan below emits no
        // exchange in their loop and leaves the units they rely on stale at the exit. Vote-free
        // s_cbranch_execz (D102) may hold such loops in their region (D131): recomputed with the exits.
        let seg_loads = self.launch_segment_loads();
        let consts = self.sym_entry_consts();
        let mut exits: HashMap<usize, Words> = HashMap::default();
        for bi in 0..nb {
            if let Some(keep) = self.exit_candidate(bi, &sgpr_live, &scc_live) {
                exits.insert(bi, keep);
            }
        }
        loop {
            let ex: HashSet<usize> = exits.keys().copied().collect();
            m.fall.clear();
            m.tails.clear();
            for bi in 0..nb {
                if let Some((n, same)) =
                    self.mask_fall_ok(bi, &sgpr_live, &scc_live, &ex, &seg_loads, &consts)
                {
                    m.fall.insert(bi, n);
                    if let Some(t) = same {
                        m.tails.insert(bi, t);
                    }
                }
            }
            self.mask_plan_flow(&mut m, &exits);
            let bad: Vec<usize> = exits
                .iter()
                .filter(|&(&b, &keep)| !self.exit_verified(b, keep, &m))
                .map(|(&b, _)| b)
                .collect();
            if bad.is_empty() {
                break;
            }
            for b in bad {
                exits.remove(&b);
            }
        }
        m.ready = true;
        self.lm.as_mut().expect("lane mapping").masks = m;
    }

    /// Block `bi`'s own-bit and materialised nodes (L9, L10) under the finished mask plan.
    pub(crate) fn lane_block_plan(&self, bi: usize) -> BlockPlan {
        let m = &self.lm.as_ref().expect("lane mapping").masks;
        self.mask_sim_at(bi, m).1.into_owned()
    }

    /// [`Self::mask_sim`] of block `bi` from its entry in `m` (the dataflow's run when it kept one).
    pub(super) fn mask_sim_at<'m>(
        &self,
        bi: usize,
        m: &'m MaskPlan,
    ) -> (Words, std::borrow::Cow<'m, BlockPlan>) {
        let entry = m.entry.get(bi).copied().unwrap_or(0);
        match m.sims.get(bi) {
            Some(Some(s)) if s.entry == entry => (s.out, std::borrow::Cow::Borrowed(&s.plan)),
            _ => {
                let (out, plan) = self.mask_sim(bi, entry, m);
                (out, std::borrow::Cow::Owned(plan))
            }
        }
    }

    /// Installs the plan's mask plan, convergence facts and LDS history (D177), creates the own-bit
    /// variables of the tracked units and sets them from the initial SGPRs (called once the initial
    /// SGPRs and EXEC are stored).
    pub(crate) fn lane_masks_init(&mut self) -> R<()> {
        let plan = self.lane_plan_mut();
        let mut m = std::mem::take(&mut plan.masks);
        let conv = std::mem::take(&mut plan.conv);
        let flow = plan.lds_flow.take();
        // Own-bit variables, set from the initial full values.
        let t = self.t;
        for u in 0..128u32 {
            if m.tracked & (1u128 << u) == 0 {
                continue;
            }
            let f = self.cfalse();
            let var = self.fn_var(t.bool, Some(f));
            m.own_var.insert(u, var);
        }
        {
            let lm = self.lm.as_mut().expect("lane mapping");
            lm.masks = m;
            lm.conv = conv;
            lm.lds_flow = flow;
        }
        let units: Vec<u32> = (0..128u32)
            .filter(|u| self.masks().tracked & (1u128 << u) != 0)
            .collect();
        for u in units {
            let words = if self.ws == 32 {
                vec![u]
            } else {
                vec![u, u + 1]
            };
            let mut bit = None;
            for w in words {
                let v = self.read_sgpr32(w)?;
                let b = self.own_of_word(w, v)?;
                bit = Some(match bit {
                    None => b,
                    Some(x) => self.b.logical_or(t.bool, None, x, b)?,
                });
            }
            let var = self.masks().own_var[&u];
            self.store(var, bit.expect("a word"))?;
        }
        Ok(())
    }

    /// Dead nodes, tracked units and the stale words at each block's entry, given the fall-throughs
    /// (D102) and the lane-local exits (D130) whose branch conditions are not computed.
    fn mask_plan_flow(&mut self, m: &mut MaskPlan, exits: &HashMap<usize, Words>) {
        let nb = self.p.blocks.len();
        m.exits = exits.keys().copied().collect();
        {
            let lm = &mut self.lm.as_mut().expect("lane mapping").masks;
            lm.fall = m.fall.clone();
            lm.exits = m.exits.clone();
        }
        let (_, dead) = self.mask_scc_liveness();
        m.dead = dead;
        m.tracked = self.mask_tracked(&m.dead);
        m.sims = (0..nb).map(|_| None).collect();
        // Stale words at each block's entry: forward dataflow from "nothing stale". A block whose entry
        // did not change since its last run is not run again (the run is a function of the entry).
        m.entry = vec![0; nb];
        let mut seen = vec![false; nb];
        if nb > 0 {
            seen[0] = true;
        }
        loop {
            let mut changed = false;
            for bi in 0..nb {
                if !seen[bi] {
                    continue;
                }
                let entry = m.entry[bi];
                let out = match &m.sims[bi] {
                    Some(s) if s.entry == entry => s.out,
                    _ => {
                        let (out, plan) = self.mask_sim(bi, entry, m);
                        m.sims[bi] = Some(Sim { entry, out, plan });
                        out
                    }
                };
                let blk = &self.p.blocks[Handle::from_index(bi)];
                let mut next = blk.terminator.successors();
                if let Some(&n) = m.fall.get(&bi) {
                    next = vec![n];
                }
                for s in next {
                    if !seen[s] || m.entry[s] | out != m.entry[s] {
                        seen[s] = true;
                        m.entry[s] |= out;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        m.reached = seen;
    }

    pub(super) fn masks(&self) -> &MaskPlan {
        &self.lm.as_ref().expect("lane mapping").masks
    }

    fn masks_mut(&mut self) -> &mut MaskPlan {
        &mut self.lm.as_mut().expect("lane mapping").masks
    }

    /// This lane's bit of word `w` (u32 value `v`) when the lane's bit lies in that word, else false.
    fn own_of_word(&mut self, w: u32, v: Word) -> R<Word> {
        let t = self.t;
        let lane = self.lm.as_ref().expect("lane mapping").lane_id;
        let c31 = self.c32(31);
        let sh = self.b.bitwise_and(t.u32, None, lane, c31)?;
        let x = self.b.shift_right_logical(t.u32, None, v, sh)?;
        let one = self.c32(1);
        let x = self.b.bitwise_and(t.u32, None, x, one)?;
        let bit = self.b.i_equal(t.bool, None, x, one)?;
        if self.ws == 32 {
            return Ok(bit);
        }
        let c5 = self.c32(5);
        let half = self.b.shift_right_logical(t.u32, None, lane, c5)?;
        let hc = self.c32(w & 1);
        let here = self.b.i_equal(t.bool, None, half, hc)?;
        Ok(self.b.logical_and(t.bool, None, here, bit)?)
    }

    /// This lane's bit of a full mask value of node `i` (B32 or B64).
    fn own_of_full(&mut self, i: usize) -> R<Word> {
        let t = self.t;
        let x = self.get(Handle::from_index(i))?;
        let lane = self.lm.as_ref().expect("lane mapping").lane_id;
        let (ty, one, l) = if self.ty(i) == Ty::B64 {
            let l = self.b.u_convert(t.u64, None, lane)?;
            (t.u64, self.c64(1), l)
        } else {
            (t.u32, self.c32(1), lane)
        };
        let s = self.b.shift_right_logical(ty, None, x, l)?;
        let s = self.b.bitwise_and(ty, None, s, one)?;
        Ok(self.b.i_equal(t.bool, None, s, one)?)
    }

    /// The own bit of operand `o` (an own node's, or from its full value).
    pub(crate) fn own_bit(&mut self, o: usize) -> R<Word> {
        if let Some(&b) = self.masks().bits.get(&o) {
            return Ok(b);
        }
        self.own_of_full(o)
    }

    // ---- per block and per instruction -----------------------------------------------------------

    /// Plans block `bi` (lane mapping), at its start.
    pub(crate) fn lane_plan_masks(&mut self, bi: usize) {
        let Some(lm) = self.lm.as_ref() else {
            return;
        };
        if !lm.masks.ready {
            return;
        }
        let plan = self.lane_plan().blocks[bi].clone();
        let m = self.masks_mut();
        m.block = plan;
        m.bits.clear();
        m.branch_words.clear();
    }

    /// Before an instruction (first node `start`): materialises the stale units it reads whole, unless
    /// they ride on the instruction's own exchange (L36, [`Self::lane_merged_units`]).
    pub(crate) fn lane_masks_inst_start(&mut self, start: usize) -> R<()> {
        let Some(&pre) = self.masks().block.pre.get(&start) else {
            return Ok(());
        };
        if self.lane_plan().merged.contains_key(&start) {
            return Ok(());
        }
        // L38: the units in one exchange (as many ballots as the plan sized the words for); L50: the
        // later ballots formed whole here after them.
        let futs = self.block_futures(start);
        let items: Vec<Result<u32, &Future>> = (0..128u32)
            .filter(|&u| pre & (1u128 << u) != 0)
            .map(Ok)
            .chain(futs.iter().map(Err))
            .collect();
        let per = self.lm().ballots.max(1) as usize;
        for group in items.chunks(per) {
            let mut bits = Vec::with_capacity(group.len());
            for item in group {
                bits.push(match *item {
                    Ok(u) => {
                        let var = self.masks().own_var[&u];
                        self.load_bool(var)?
                    }
                    Err(f) => self.mask_future_bit(f)?,
                });
            }
            let (_, fulls) = self.lane_exchange(&[], &bits)?;
            for (j, (item, full)) in group.iter().zip(fulls).enumerate() {
                match *item {
                    Ok(u) => {
                        let words = self.lane_ballot_words(j as u32)?;
                        self.mask_write_back(start, u, full, words)?;
                    }
                    Err(f) => self.lane_future_fulls(std::slice::from_ref(f), &[full])?,
                }
            }
        }
        Ok(())
    }

    /// L50: the later ballots formed whole on the exchange of the instruction at `start`.
    fn block_futures(&self, start: usize) -> Vec<Future> {
        self.masks()
            .block
            .fut
            .get(&start)
            .cloned()
            .unwrap_or_default()
    }

    /// L50: the future ballots of the instruction at `start` when its units ride on its own exchange
    /// (L36): their own bits appended to `bools`.
    pub(crate) fn lane_merged_futures(
        &mut self,
        start: usize,
        bools: &mut Vec<Word>,
    ) -> R<Vec<Future>> {
        if !self.lane_plan().merged.contains_key(&start) {
            return Ok(Vec::new());
        }
        let futs = self.block_futures(start);
        for f in &futs {
            bools.push(self.mask_future_bit(f)?);
        }
        Ok(futs)
    }

    /// L50: each future ballot's full value (u64, from the exchange) kept for the instruction that
    /// writes it.
    pub(crate) fn lane_future_fulls(&mut self, futs: &[Future], fulls: &[Word]) -> R<()> {
        for (f, &full) in futs.iter().zip(fulls) {
            let var = self.fn_var(self.t.u64, None);
            self.store(var, full)?;
            self.masks_mut().fut_var.insert(f.value, var);
        }
        Ok(())
    }

    /// L50: the lane's own bit of future ballot `f` computed at the exchange (`cond && EXEC`): its
    /// condition's nodes emitted here, each replaced VGPR read by the value written to it.
    fn mask_future_bit(&mut self, f: &Future) -> R<Word> {
        let lane = self.lm().lane_id;
        let saved = self.lane.replace(lane);
        let subst: HashMap<usize, usize> = f.subst.iter().copied().collect();
        let mut made = Vec::new();
        let c = self.future_value(f.cond, &subst, &mut made);
        for i in made {
            self.lane_vals.remove(&i);
        }
        self.lane = saved;
        let c = c?;
        let a = self.lane_exec_bit(c)?;
        Ok(self.b.logical_and(self.t.bool, None, c, a)?)
    }

    /// L50: node `n` of a future ballot's condition, emitted at the exchange (kept in `lane_vals` while
    /// the condition is emitted; `made` lists them).
    fn future_value(
        &mut self,
        n: usize,
        subst: &HashMap<usize, usize>,
        made: &mut Vec<usize>,
    ) -> R<Word> {
        if let Some(&v) = self.lane_vals.get(&n) {
            return Ok(v);
        }
        let v = if let Some(&x) = subst.get(&n) {
            self.future_value(x, subst, made)?
        } else {
            let node = self.node(n).clone();
            for o in operands(&node) {
                self.future_value(o.index(), subst, made)?;
            }
            self.pure(n, &node)?
        };
        self.lane_vals.insert(n, v);
        made.push(n);
        Ok(v)
    }

    /// L36: the stale units of the instruction at `start` made whole on its own exchange (ascending),
    /// each with its lane's own bit (the ballot it adds to that exchange).
    pub(crate) fn lane_merged_units(&mut self, start: usize) -> R<Vec<(u32, Word)>> {
        let Some(&(units, _)) = self.lane_plan().merged.get(&start) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for u in 0..128u32 {
            if units & (1u128 << u) != 0 {
                let var = self.masks().own_var[&u];
                out.push((u, self.load_bool(var)?));
            }
        }
        Ok(out)
    }

    /// Unit `u`'s full value `full` (u64, from an exchange whose wave-0 ballot words start at word
    /// `base0`) written back to its SGPR words (under `on`); EXEC's and VCC's ballot words are
    /// remembered (D136, D234).
    pub(crate) fn mask_write_back(
        &mut self,
        start: usize,
        u: u32,
        full: Word,
        base0: Option<Word>,
    ) -> R<()> {
        if u == EXEC_LO as u32 || u == VCC_LO as u32 {
            // Every wave's EXEC (VCC) at this instruction, in the exchange's ballot words (D136, D234).
            let bw = &mut self.masks_mut().branch_words;
            bw.retain(|&(v, _, _)| v != u);
            bw.extend(base0.map(|b| (u, start, b)));
        }
        let t = self.t;
        let words = if self.ws == 32 {
            vec![u]
        } else {
            vec![u, u + 1]
        };
        for w in words {
            let v = if w & 1 == 1 && self.ws == 64 {
                let c = self.c64(32);
                self.b.shift_right_logical(t.u64, None, full, c)?
            } else {
                full
            };
            let v = self.b.u_convert(t.u32, None, v)?;
            if w < 128 {
                let p = self.sgpr_ptr(w)?;
                self.lane_store_on(p, t.u32, v)?;
            }
        }
        Ok(())
    }

    /// The wave's mask (u64, bits beyond the wave 0) from every lane's own bit: one exchange.
    fn mask_exchange(&mut self, own: Word) -> R<Word> {
        let (_, masks) = self.lane_exchange(&[], &[own])?;
        Ok(masks[0])
    }

    /// The lane's EXEC bit (`act` before `on`) when EXEC is tracked: its own-bit variable.
    pub(crate) fn lane_exec_bit(&mut self, act: Word) -> R<Word> {
        let var = match self.lm.as_ref() {
            Some(lm) if lm.masks.ready => lm.masks.own_var.get(&(EXEC_LO as u32)).copied(),
            _ => None,
        };
        match var {
            Some(v) => self.load_bool(v),
            None => Ok(act),
        }
    }

    /// A uniform node in the lane mapping: true when handled here (dead, or computed as own bits).
    pub(crate) fn lane_mask_uniform(&mut self, i: usize) -> R<bool> {
        let Some(lm) = self.lm.as_ref() else {
            return Ok(false);
        };
        if lm.masks.dead.contains(&i) {
            return Ok(true);
        }
        if !lm.masks.block.own.contains(&i) {
            if let Some(&y) = lm.masks.block.alias.get(&i) {
                // L41: the OR is its operand `y` (the other is a subset of it).
                let v = self.get(Handle::from_index(y))?;
                self.uni.insert(i, v);
                return Ok(true);
            }
            return Ok(false);
        }
        let t = self.t;
        let bit = match *self.node(i) {
            Node::ReadSgpr { reg, .. } => {
                let var = self.masks().own_var[&(reg as u32)];
                self.load_bool(var)?
            }
            Node::Ballot { cond } => {
                let c = self.get(cond)?;
                let a = self.lane_exec_bit(c)?;
                self.b.logical_and(t.bool, None, c, a)?
            }
            Node::Unary {
                op: UnOp::Trunc | UnOp::ZExt,
                a,
                ..
            } => self.own_bit(a.index())?,
            Node::Unary {
                op: UnOp::Not, a, ..
            } => {
                let x = self.own_bit(a.index())?;
                self.b.logical_not(t.bool, None, x)?
            }
            Node::Int { op, a, b, .. } => {
                let x = self.own_bit(a.index())?;
                let y = self.own_bit(b.index())?;
                match op {
                    IntOp::And => self.b.logical_and(t.bool, None, x, y)?,
                    IntOp::Or => self.b.logical_or(t.bool, None, x, y)?,
                    _ => self.b.logical_not_equal(t.bool, None, x, y)?,
                }
            }
            Node::Select { cond, a, b } => {
                let c = self.get(cond)?;
                let x = self.own_bit(a.index())?;
                let y = self.own_bit(b.index())?;
                self.b.select(t.bool, None, c, x, y)?
            }
            _ => return Err(self.unsupported("own-bit node of an unexpected kind")),
        };
        self.masks_mut().bits.insert(i, bit);
        self.mask_materialise(i, bit)?;
        Ok(true)
    }

    /// An own node read whole somewhere: its full value by one exchange.
    fn mask_materialise(&mut self, i: usize, bit: Word) -> R<()> {
        if self.mask_future_full(i)? {
            return Ok(());
        }
        if !self.masks().block.mat.contains(&i) {
            return Ok(());
        }
        let full = self.mask_exchange(bit)?;
        let v = if self.ty(i) == Ty::B64 {
            full
        } else {
            self.b.u_convert(self.t.u32, None, full)?
        };
        self.uni.insert(i, v);
        Ok(())
    }

    /// L50: the full value of mask value `i` when an earlier exchange of the block formed it (its own
    /// bit is computed as usual); false when none did.
    fn mask_future_full(&mut self, i: usize) -> R<bool> {
        if !self.masks().block.fut_vals.contains(&i) {
            return Ok(false);
        }
        let var = self.masks().fut_var[&i];
        let full = self.b.load(self.t.u64, None, var, None, [])?;
        let v = if self.ty(i) == Ty::B64 {
            full
        } else {
            self.b.u_convert(self.t.u32, None, full)?
        };
        self.uni.insert(i, v);
        Ok(true)
    }

    /// Whether node `i` of the current block is known only as each lane's own bit (no full value).
    pub(crate) fn lane_own_only(&self, i: usize) -> bool {
        self.lm.as_ref().is_some_and(|m| {
            m.masks.block.own.contains(&i)
                && !m.masks.block.mat.contains(&i)
                && !m.masks.block.fut_vals.contains(&i)
        })
    }

    /// Whether Ballot node `i` (of a lane condition) is computed as own bits only.
    pub(crate) fn lane_elided(&self, i: usize) -> bool {
        self.lm.as_ref().is_some_and(|m| {
            m.masks.dead.contains(&i)
                || (m.masks.block.own.contains(&i) && !m.masks.block.mat.contains(&i))
        })
    }

    /// A deferred write in the lane mapping: true when handled here (a dead SCC write, an own-only
    /// mask written as own bits); a full write to a tracked unit also updates its own bit.
    pub(crate) fn lane_dropped_write(&mut self, w: usize) -> R<bool> {
        let Some(lm) = self.lm.as_ref() else {
            return Ok(false);
        };
        if !lm.masks.ready {
            return Ok(false);
        }
        if lm.masks.dead.contains(&w) {
            return Ok(true);
        }
        let Node::WriteSgpr { reg, value } = *self.node(w) else {
            return Ok(false);
        };
        let t = self.t;
        let vi = value.index();
        let own_only = lm.masks.block.own.contains(&vi) && !self.uni.contains_key(&vi);
        if own_only {
            let bit = self.masks().bits[&vi];
            let var = self.masks().own_var[&(reg as u32)];
            self.lane_store_on(var, t.bool, bit)?;
            return Ok(true);
        }
        // A full write: the own bits of the tracked units it touches follow.
        let words = span(reg, self.ty(vi));
        for r in 0..128u32 {
            if words & (1u128 << r) == 0 {
                continue;
            }
            let u = self.unit_of(r);
            let Some(var) = self.masks().own_var.get(&u).copied() else {
                continue;
            };
            let bit = if self.masks().bits.contains_key(&vi)
                && r == reg as u32
                && self.ownable_reg(reg, self.ty(vi))
            {
                self.masks().bits[&vi]
            } else {
                let x = self.get(value)?;
                let x = if self.ty(vi) == Ty::B64 {
                    let x = if r == reg as u32 {
                        x
                    } else {
                        let c = self.c64(32);
                        self.b.shift_right_logical(t.u64, None, x, c)?
                    };
                    self.b.u_convert(t.u32, None, x)?
                } else if self.ty(vi) == Ty::B1 {
                    let one = self.c32(1);
                    let z = self.c32(0);
                    self.b.select(t.u32, None, x, one, z)?
                } else {
                    x
                };
                let b = self.own_of_word(r, x)?;
                if self.ws == 64 {
                    // The other half's lanes keep their bit.
                    let lane = self.lm.as_ref().expect("lane mapping").lane_id;
                    let c5 = self.c32(5);
                    let half = self.b.shift_right_logical(t.u32, None, lane, c5)?;
                    let hc = self.c32(r & 1);
                    let here = self.b.i_equal(t.bool, None, half, hc)?;
                    let old = self.load_bool(var)?;
                    self.b.select(t.bool, None, here, b, old)?
                } else {
                    b
                }
            };
            self.lane_store_on(var, t.bool, bit)?;
        }
        Ok(false)
    }

    /// The nodes of block `bi` whose value is not read from the scalar state alone (D141): the mask
    /// plan's own-bit nodes, and every read of a unit that the plan materialises from own bits at that
    /// instruction (one exchange, written back under `on`).
    pub(crate) fn lane_mask_own_nodes(&self, bi: usize) -> HashSet<usize> {
        let Some(lm) = self.lm.as_ref().filter(|m| m.masks.ready) else {
            return HashSet::default();
        };
        let (_, plan) = self.mask_sim_at(bi, &lm.masks);
        let mut out = plan.own.clone();
        for inst in &self.p.blocks[Handle::from_index(bi)].insts {
            let Some(&units) = plan.pre.get(&(inst.nodes.start as usize)) else {
                continue;
            };
            let words = self.pre_words(units);
            for i in inst.nodes.clone() {
                let i = i as usize;
                if let Node::ReadSgpr { reg, ty } = *self.node(i) {
                    if span(reg, ty) & words != 0 {
                        out.insert(i);
                    }
                }
            }
        }
        out
    }

    /// Records the lane's own bit of ballot `i` (a bool).
    pub(crate) fn lane_set_bit(&mut self, i: usize, bit: Word) {
        if let Some(m) = self.lm.as_mut() {
            m.masks.bits.insert(i, bit);
        }
    }

    /// LaneBit of `mask` when the mask (or its ZExt) is an own node: the lane's own bit.
    pub(crate) fn lane_forwarded_bit(&self, mask: Handle<Node>) -> Option<Word> {
        let m = self.lm.as_ref()?;
        if let Some(&b) = m.masks.bits.get(&mask.index()) {
            return Some(b);
        }
        if let Node::Unary {
            op: UnOp::ZExt, a, ..
        } = *self.node(mask.index())
        {
            return m.masks.bits.get(&a.index()).copied();
        }
        None
    }

    /// Emits ballot `i`'s own bit without an exchange (`cond && active`).
    pub(crate) fn lane_own_ballot(&mut self, i: usize) -> R<()> {
        let Node::Ballot { cond } = *self.node(i) else {
            return Err(self.unsupported("not a ballot"));
        };
        let c = self.get(cond)?;
        let act = self.active.expect("lane body emitted");
        let bit = self.b.logical_and(self.t.bool, None, c, act)?;
        self.lane_set_bit(i, bit);
        // L50: a wave64 ballot written as it is (no truncation) may have its full value already.
        self.mask_future_full(i)?;
        Ok(())
    }

    /// The block an s_cbranch_execz of block `bi` always falls through to in the lane mapping (D102).
    pub(crate) fn lane_fallthrough(&self, bi: usize) -> Option<usize> {
        self.lm.as_ref()?.masks.fall.get(&bi).copied()
    }
}

impl MaskPlan {
    /// The tracked units (L9), by first word.
    pub(crate) fn tracked_units(&self) -> Words {
        self.tracked
    }

    /// The nodes not emitted (L9: dead SCC writes and what only they use).
    pub(crate) fn dead_nodes(&self) -> impl Iterator<Item = usize> + '_ {
        self.dead.iter().copied()
    }

    /// Whether node `i` is not emitted (L9).
    pub(crate) fn is_dead(&self, i: usize) -> bool {
        self.dead.contains(&i)
    }

    /// The block `bi`'s vote-free s_cbranch_execz always falls through to (L11–L14).
    pub(crate) fn fall_target(&self, bi: usize) -> Option<usize> {
        self.fall.get(&bi).copied()
    }

    /// L42: the block whose code block `bi`'s vote-free EXEC branch goes to repeats (the way with
    /// EXEC = 0 it replaces).
    pub(crate) fn tail_same(&self, bi: usize) -> Option<usize> {
        self.tails.get(&bi).copied()
    }

    /// L43: whether block `bi` is reached from the entry in the lane mapping (every vote-free EXEC
    /// branch going its one way); a block that is not is never emitted.
    pub(crate) fn reached(&self, bi: usize) -> bool {
        self.reached.get(bi).copied().unwrap_or(true)
    }

    /// L43: `items` without the blocks the lane mapping never reaches (outside irreducible regions,
    /// which dispatch on the label), and without loops left empty.
    pub(crate) fn prune_unreached(&self, items: &mut Vec<rdna2spv_ir::cfg::Item>) {
        use rdna2spv_ir::cfg::{Item, LoopKind};
        items.retain_mut(|it| match it {
            Item::Block(b) => self.reached(*b),
            Item::Loop(lp) => {
                if matches!(lp.kind, LoopKind::Natural { .. }) {
                    self.prune_unreached(&mut lp.items);
                }
                !lp.items.is_empty()
            }
        });
    }

    /// Whether block `bi` ends with a lane-local loop exit (L15).
    pub(crate) fn is_exit(&self, bi: usize) -> bool {
        self.exits.contains(&bi)
    }

    /// The words stale at block `bi`'s entry (L9).
    pub(crate) fn stale_at(&self, bi: usize) -> Option<Words> {
        self.entry.get(bi).copied()
    }

    /// Whether block `bi`'s s_cbranch_execz always falls through (D102).
    pub(crate) fn falls_through(&self, bi: usize) -> bool {
        self.fall.contains_key(&bi)
    }

    /// The blocks whose loop exit is decided by the lane's own EXEC bit (D130).
    pub(crate) fn exit_blocks(&self) -> impl Iterator<Item = usize> + '_ {
        self.exits.iter().copied()
    }
}

/// A set of the nodes of one instruction (`first..end`): a flag per node, reused from instruction to
/// instruction; a node outside the range is never in it.
#[derive(Default)]
struct NodeFlags {
    first: usize,
    on: Vec<bool>,
}

impl NodeFlags {
    fn start(&mut self, first: usize, end: usize) {
        self.first = first;
        self.on.clear();
        self.on.resize(end - first, false);
    }

    fn insert(&mut self, i: usize) {
        if let Some(f) = i.checked_sub(self.first).and_then(|k| self.on.get_mut(k)) {
            *f = true;
        }
    }

    fn contains(&self, i: usize) -> bool {
        i.checked_sub(self.first)
            .and_then(|k| self.on.get(k))
            .is_some_and(|&f| f)
    }

    /// The nodes in the set, in order.
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.on
            .iter()
            .enumerate()
            .filter(|(_, &f)| f)
            .map(|(k, _)| self.first + k)
    }
}
