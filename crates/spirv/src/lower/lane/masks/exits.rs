//! Lane-local exits of divergent loops (decision D130).
//!
//! A loop that ends `s_andn2_b32 exec, exec, sN; s_cbranch_execnz header` needs EXEC whole at its back
//! edge: one exchange (a barrier) per iteration, only to decide whether the wave loops again. A lane
//! whose own EXEC bit is 0 at that branch leaves the loop at once, provided the iterations the hardware
//! would still run with that bit 0 cannot change any of its state that is live at the exit:
//!
//! * the branch is the loop's only way out (one exit edge, no `s_endpgm` inside), it leaves exactly one
//!   structured loop, and the loop has no s_barrier, no LDS access, no uniform store or atomic and no
//!   readlane/readfirstlane/DPP exchange (no barrier may be emitted inside it: lanes now leave it at
//!   different iterations);
//! * a simulation of the masked iterations ([`Masked`]), entered with the lane's EXEC bit 0 and every
//!   other unit's own bit as it was at the exit, keeps EXEC's bit 0 after every instruction, and ends with
//!   every unit written in the loop and live at the exit equal to its value at the exit (own bits under
//!   bitwise ops with a 0 operand, `s_or_b32 s4, vcc, s4` with vcc's bit 0), and SCC dead at the exit
//!   when the loop writes it;
//! * after planning, the loop's blocks materialise nothing (no exchange), and EXEC and those units are
//!   stale (own form) at the branch, so the exit reads them whole only through a later exchange of every
//!   lane's own bit, after the loop, when every lane has left.
//!
//! With several waves per Vulkan workgroup (D133) such a loop runs on each invocation's own label, with
//! no vote or publication inside, and the label copies advance to its exit after it (`lane/local.rs`).

use crate::hash::{HashMap, HashSet};
use std::collections::BTreeMap;

use rdna2spv_ir::cfg::{Item, Loop, LoopKind};
use rdna2spv_ir::{Handle, IntCmp, IntOp, Node, Space, Terminator, Ty, UnOp, EXEC_LO, VCC_LO};
use spirv::Word;

use super::super::super::{Cx, Kind, LowerError, R};
use super::{span, MaskPlan, Words};

/// A lane's own bit of a mask unit during the iterations run with its EXEC bit 0.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bit {
    Known(bool),
    /// The unit's own bit at the lane's exit.
    AtExit(u32),
    Unknown,
}

/// The state of the masked iterations at a point: every unit's bit (absent: `AtExit` of itself), the
/// SGPR words written so far and whether SCC was written.
#[derive(Clone, PartialEq, Eq, Default)]
struct Masked {
    units: BTreeMap<u32, Bit>,
    written: Words,
    scc: bool,
}

impl Masked {
    fn get(&self, u: u32) -> Bit {
        self.units.get(&u).copied().unwrap_or(Bit::AtExit(u))
    }

    /// The join of two incoming states (a bit known only if equal on both).
    fn join(&self, o: &Masked) -> Masked {
        let mut units = BTreeMap::new();
        for &u in self.units.keys().chain(o.units.keys()) {
            let (a, b) = (self.get(u), o.get(u));
            units.insert(u, if a == b { a } else { Bit::Unknown });
        }
        Masked {
            units,
            written: self.written | o.written,
            scc: self.scc || o.scc,
        }
    }
}

fn and(a: Bit, b: Bit) -> Bit {
    match (a, b) {
        (Bit::Known(false), _) | (_, Bit::Known(false)) => Bit::Known(false),
        (Bit::Known(true), x) | (x, Bit::Known(true)) => x,
        (x, y) if x == y => x,
        _ => Bit::Unknown,
    }
}

fn or(a: Bit, b: Bit) -> Bit {
    match (a, b) {
        (Bit::Known(true), _) | (_, Bit::Known(true)) => Bit::Known(true),
        (Bit::Known(false), x) | (x, Bit::Known(false)) => x,
        (x, y) if x == y => x,
        _ => Bit::Unknown,
    }
}

fn xor(a: Bit, b: Bit) -> Bit {
    match (a, b) {
        (Bit::Known(x), Bit::Known(y)) => Bit::Known(x != y),
        (Bit::Known(false), x) | (x, Bit::Known(false)) => x,
        _ => Bit::Unknown,
    }
}

/// The structured loop whose natural header is `h`, with the ranges of the loops around it.
fn find_loop<'s>(items: &'s [Item], h: usize, outer: &mut Vec<(u32, u32)>) -> Option<&'s Loop> {
    for it in items {
        if let Item::Loop(lp) = it {
            if lp.kind == (LoopKind::Natural { header: h }) {
                return Some(lp);
            }
            outer.push((lp.lo, lp.hi));
            if let Some(l) = find_loop(&lp.items, h, outer) {
                return Some(l);
            }
            outer.pop();
        }
    }
    None
}

impl Cx<'_> {
    /// The (stay, leave) targets of block `bi` when it ends with the lifted `s_cbranch_execnz` (`EXEC !=
    /// 0`: stay = taken) or `s_cbranch_execz` (`EXEC == 0`: stay = not taken), as block indices.
    pub(in super::super) fn exit_pattern(&self, bi: usize) -> Option<(usize, usize)> {
        self.mask_branch(bi)
            .filter(|&(reg, _, _)| reg == EXEC_LO)
            .map(|(_, stay, leave)| (stay, leave))
    }

    /// The mask register (`EXEC_LO` or `VCC_LO`) and the (stay, leave) targets of block `bi` when it ends
    /// with the lifted `s_cbranch_execnz/vccnz` (`mask != 0`: stay = taken) or `s_cbranch_execz/vccz`
    /// (`mask == 0`: stay = not taken).
    pub(in super::super) fn mask_branch(&self, bi: usize) -> Option<(u16, usize, usize)> {
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
        let Node::ReadSgpr { reg, .. } = *self.node(a.index()) else {
            return None;
        };
        if !(reg == EXEC_LO || reg == VCC_LO)
            || !matches!(*self.node(b.index()), Node::Const { bits: 0, .. })
        {
            return None;
        }
        match op {
            IntCmp::Ne => Some((reg, taken.index(), not_taken.index())),
            IntCmp::Eq => Some((reg, not_taken.index(), taken.index())),
            _ => None,
        }
    }

    /// D130: the units (first words) that must be stale at block `bi`'s end for its `s_cbranch_execnz`
    /// back edge to be decided by each lane's own EXEC bit, or None when the rule does not apply.
    pub(super) fn exit_candidate(
        &self,
        bi: usize,
        sgpr_live: &[Words],
        scc_live: &[bool],
    ) -> Option<Words> {
        // The lane stays at h (the loop's header) when its EXEC bit is set, else leaves to x.
        let (h, x) = self.exit_pattern(bi)?;
        let s = self.structure.as_ref()?;
        let mut outer = Vec::new();
        let lp = find_loop(&s.items, h, &mut outer)?;
        let inside = |b: usize| (lp.lo..lp.hi).contains(&s.number[b]);
        // The branch leaves this loop and no other.
        if !inside(bi) || inside(x) {
            return None;
        }
        if let Some(&(lo, hi)) = outer.last() {
            if !(lo..hi).contains(&s.number[x]) {
                return None;
            }
        }
        let set: HashSet<usize> = (0..self.p.blocks.len()).filter(|&b| inside(b)).collect();
        for &b in &set {
            let blk = &self.p.blocks[Handle::from_index(b)];
            if blk.terminator == Terminator::End {
                return None;
            }
            if blk
                .terminator
                .successors()
                .iter()
                .any(|&t| !set.contains(&t) && (b, t) != (bi, x))
            {
                return None;
            }
            for inst in &blk.insts {
                for i in inst.nodes.clone() {
                    let i = i as usize;
                    let bad = self.needs_the_workgroup(i)
                        || match *self.node(i) {
                            // L44's shuffles read other lanes as much as exchanges do.
                            Node::ReadLane { .. } | Node::ReadFirstLane { .. } => {
                                self.kind(i) == Kind::Capture || self.sub.inner.contains(&i)
                            }
                            _ => false,
                        };
                    if bad {
                        return None;
                    }
                }
            }
        }
        let out = self.masked_iterations(bi, h, &set)?;
        let exec = self.unit_of(EXEC_LO as u32);
        let mut keep: Words = 1u128 << exec;
        for r in 0..128u32 {
            if out.written & sgpr_live[x] & (1u128 << r) == 0 {
                continue;
            }
            let u = self.unit_of(r);
            if u != exec && out.get(u) != Bit::AtExit(u) {
                return None;
            }
            keep |= 1u128 << u;
        }
        if out.scc && scc_live[x] {
            return None;
        }
        Some(keep)
    }

    /// Whether node `i` needs every invocation of the workgroup wherever it runs, whatever the mask plan
    /// decides: an `s_barrier`, an LDS access (the LDS fences between lanes are barriers) or a uniform
    /// store or atomic (one lane's, D082). Loops left lane by lane (D130) and loops run on each
    /// invocation's own label (L45, D238) hold none.
    pub(in super::super) fn needs_the_workgroup(&self, i: usize) -> bool {
        match *self.node(i) {
            Node::Barrier => true,
            Node::Load { space, .. }
            | Node::LoadIf { space, .. }
            | Node::StoreIf { space, .. }
            | Node::AtomicIf { space, .. } => space == Space::Lds,
            Node::Store { space, .. } | Node::Atomic { space, .. } => {
                space == Space::Lds || self.kind(i) == Kind::Uniform
            }
            _ => false,
        }
    }

    /// The state at block `bi`'s end after any number of masked iterations of the loop `set` (entered at
    /// `h`), or None when EXEC's bit may be 1 at some point of them.
    fn masked_iterations(&self, bi: usize, h: usize, set: &HashSet<usize>) -> Option<Masked> {
        let exec = self.unit_of(EXEC_LO as u32);
        let mut start = Masked::default();
        start.units.insert(exec, Bit::Known(false));
        let mut entry: HashMap<usize, Masked> = HashMap::from_iter([(h, start)]);
        let mut work = vec![h];
        while let Some(b) = work.pop() {
            let out = self.masked_block(b, entry[&b].clone())?;
            for t in self.p.blocks[Handle::from_index(b)].terminator.successors() {
                if !set.contains(&t) {
                    continue;
                }
                let next = match entry.get(&t) {
                    Some(e) => e.join(&out),
                    None => out.clone(),
                };
                if entry.get(&t) != Some(&next) {
                    entry.insert(t, next);
                    work.push(t);
                }
            }
        }
        let e = entry.get(&bi)?.clone();
        self.masked_block(bi, e)
    }

    /// One block run with the lane's EXEC bit 0 (None when the bit may become 1).
    fn masked_block(&self, b: usize, mut st: Masked) -> Option<Masked> {
        let exec = self.unit_of(EXEC_LO as u32);
        let mt = self.mask_ty();
        let lanes: u64 = if self.ws == 32 {
            u32::MAX as u64
        } else {
            u64::MAX
        };
        for inst in &self.p.blocks[Handle::from_index(b)].insts {
            let mut bits: HashMap<usize, Bit> = HashMap::default();
            let mut writes = Vec::new();
            for i in inst.nodes.clone() {
                let i = i as usize;
                let v = |o: Handle<Node>| bits.get(&o.index()).copied().unwrap_or(Bit::Unknown);
                let bit = match *self.node(i) {
                    Node::Const { ty, bits } if ty == mt => {
                        if bits == 0 {
                            Bit::Known(false)
                        } else if bits & lanes == lanes {
                            Bit::Known(true)
                        } else {
                            Bit::Unknown
                        }
                    }
                    Node::ReadSgpr { reg, ty }
                        if ty == mt && reg < 128 && (self.ws == 32 || reg.is_multiple_of(2)) =>
                    {
                        st.get(reg as u32)
                    }
                    // `cond && active`: 0 while the lane's EXEC bit is 0.
                    Node::Ballot { .. } if st.get(exec) == Bit::Known(false) => Bit::Known(false),
                    Node::Int { op, ty, a, b } if ty == mt => match op {
                        IntOp::And => and(v(a), v(b)),
                        IntOp::Or => or(v(a), v(b)),
                        IntOp::Xor => xor(v(a), v(b)),
                        _ => Bit::Unknown,
                    },
                    Node::Unary {
                        op: UnOp::Not,
                        ty,
                        a,
                    } if ty == mt => match v(a) {
                        Bit::Known(x) => Bit::Known(!x),
                        _ => Bit::Unknown,
                    },
                    Node::Unary {
                        op: UnOp::Trunc,
                        ty: Ty::B32,
                        a,
                    } if self.ws == 32 => v(a),
                    Node::Unary {
                        op: UnOp::ZExt,
                        ty: Ty::B64,
                        a,
                    } if self.ws == 32 && self.ty(a.index()) == Ty::B32 => v(a),
                    Node::Select { a, b, .. } if v(a) == v(b) => v(a),
                    Node::WriteSgpr { reg, value } => {
                        writes.push((reg, value));
                        Bit::Unknown
                    }
                    Node::WriteScc { .. } => {
                        st.scc = true;
                        Bit::Unknown
                    }
                    _ => Bit::Unknown,
                };
                bits.insert(i, bit);
            }
            for (reg, value) in writes {
                let ty = self.ty(value.index());
                let w = span(reg, ty);
                st.written |= w;
                if self.ownable_reg(reg, ty) {
                    let x = bits.get(&value.index()).copied().unwrap_or(Bit::Unknown);
                    st.units.insert(reg as u32, x);
                } else {
                    for r in 0..128u32 {
                        if w & (1u128 << r) != 0 {
                            st.units.insert(self.unit_of(r), Bit::Unknown);
                        }
                    }
                }
            }
            if st.get(exec) != Bit::Known(false) {
                return None;
            }
        }
        Some(st)
    }

    /// D130, after planning: the loop of exit block `b` emits no exchange (every block's plan materialises
    /// nothing and every lane ballot is an own bit), EXEC is tracked, and the units `keep` are stale at
    /// `b`'s end.
    pub(super) fn exit_verified(&self, b: usize, keep: Words, m: &MaskPlan) -> bool {
        let Some((taken, _)) = self.exit_pattern(b) else {
            return false;
        };
        let Some(s) = self.structure.as_ref() else {
            return false;
        };
        let Some(lp) = find_loop(&s.items, taken, &mut Vec::new()) else {
            return false;
        };
        if m.tracked & keep != keep {
            return false;
        }
        for bi in 0..self.p.blocks.len() {
            if !(lp.lo..lp.hi).contains(&s.number[bi]) {
                continue;
            }
            let (out, plan) = self.mask_sim_at(bi, m);
            if !plan.pre.is_empty() || !plan.mat.is_empty() {
                return false;
            }
            for inst in &self.p.blocks[Handle::from_index(bi)].insts {
                for i in inst.nodes.clone() {
                    let i = i as usize;
                    if (self.kind(i) == Kind::Capture || self.sub.inner.contains(&i))
                        && !m.dead.contains(&i)
                        && !plan.own.contains(&i)
                    {
                        return false;
                    }
                }
            }
            if bi == b && out & self.pre_words(keep) != self.pre_words(keep) {
                return false;
            }
        }
        true
    }

    /// Whether block `bi`'s `s_cbranch_execnz`/`s_cbranch_execz` is decided by the lane's own EXEC bit
    /// (D130).
    pub(crate) fn lane_exit(&self, bi: usize) -> bool {
        self.lm
            .as_ref()
            .is_some_and(|l| l.masks.ready && l.masks.exits.contains(&bi))
    }

    /// The lane's own EXEC bit (bool), for a lane-local exit.
    pub(crate) fn lane_exec_own(&mut self) -> R<Word> {
        let var = self
            .masks()
            .own_var
            .get(&(EXEC_LO as u32))
            .copied()
            .ok_or_else(|| LowerError::Build("lane-local exit without EXEC's own bit".into()))?;
        self.load_bool(var)
    }

    /// Whether the structured loop `[lo, hi)` is left lane by lane (it holds a lane-local exit whose
    /// target lies outside it): no barrier may be emitted inside it.
    pub(crate) fn lane_exit_loop(&self, number: &[u32], lo: u32, hi: u32) -> bool {
        let Some(l) = self.lm.as_ref() else {
            return false;
        };
        l.masks.exits.iter().any(|&b| {
            let Some((_, x)) = self.exit_pattern(b) else {
                return false;
            };
            (lo..hi).contains(&number[b]) && !(lo..hi).contains(&number[x])
        })
    }
}

impl Cx<'_> {
    /// The (stay, leave) targets of the lane-local exit of block `bi` (D130).
    pub(crate) fn lane_exit_targets(&self, bi: usize) -> R<(usize, usize)> {
        self.exit_pattern(bi)
            .ok_or_else(|| LowerError::Build("lane-local exit without its branch".into()))
    }
}
