//! Symbolic SGPR words for vote-free `s_cbranch_execz` (decision D140, extending D102/D131).
//!
//! A skip `s_cbranch_execz T` may be left untaken in the lane mapping when running its region with
//! EXEC = 0 leaves at T what skipping leaves. D131 accepted a word written in the region and live at T
//! only when it was known zero on both ways; this module knows more:
//!
//! * **Values** ([`Val`]): a word is a constant, a bitwise function of at most [`MAX_VARS`] *symbols*
//!   (the words' values at the entry of the branch's block, which are the same on both ways), held as a
//!   truth table (SALU mask algebra is bitwise: bit j of `s_orn2_b32 s9, s9, exec_lo` is a function of bit
//!   j of its operands only), or unknown. A ballot under a zero EXEC is 0. Constants at the branch's block
//!   entry come from a path-insensitive forward analysis of the whole program ([`Cx::sym_entry_consts`]:
//!   every CFG edge, whatever the branch conditions, so it also holds for the executions the lane mapping
//!   runs). A word written in the region and live at T is accepted when its value at T (region run with
//!   EXEC = 0) equals, as a function of the symbols, its value at the end of the branch's block (where the
//!   hardware skips, EXEC = 0 there).
//! * **Path-sensitive liveness** ([`Cx::sym_dead_after`]): for a word that still differs, the state the two
//!   ways share is continued from T through later blocks, branches whose condition is known (EXEC known 0
//!   under `s_cbranch_execz`) follow one edge, others both; the word is accepted when every path overwrites
//!   it before any read or ends the program, within [`WALK_BLOCKS`] blocks. Any read of a differing word
//!   (a branch condition included) refuses.

use crate::hash::HashMap;

use rdna2spv_ir::{Handle, IntCmp, IntOp, Node, Terminator, Ty, UnOp, EXEC_LO};

use super::super::super::Cx;
use super::{span, Words};

/// The most symbols one word's function may depend on (a truth table of 2^6 = 64 bits).
pub(super) const MAX_VARS: usize = 6;

/// The most blocks the path-sensitive walk visits (all paths together) before it gives up.
pub(super) const WALK_BLOCKS: usize = 64;

/// A 32-bit SGPR word's value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Val {
    /// A known constant.
    C(u32),
    /// A bitwise function of the symbols `vars[..n]` (ascending symbol numbers): bit j of the word is bit
    /// `a` of `t`, where bit i of `a` is bit j of symbol `vars[i]`. Canonical: depends on every symbol,
    /// never constant (those are `C(0)` / `C(!0)`).
    F {
        vars: [u16; MAX_VARS],
        n: u8,
        t: u64,
    },
    /// Unknown (never equal to anything, itself included: see [`same`]).
    U,
}

/// Whether `a` and `b` are known to hold the same value.
pub(super) fn same(a: Val, b: Val) -> bool {
    a == b && a != Val::U
}

fn join(a: Val, b: Val) -> Val {
    if same(a, b) {
        a
    } else {
        Val::U
    }
}

fn table_mask(n: usize) -> u64 {
    if n >= 6 {
        u64::MAX
    } else {
        (1u64 << (1u32 << n)) - 1
    }
}

impl Val {
    /// Symbol `w`: a word's value at a fixed point of the analysed executions, the same on both ways.
    fn sym(w: u16) -> Val {
        let mut vars = [0; MAX_VARS];
        vars[0] = w;
        Val::F {
            vars,
            n: 1,
            t: 0b10,
        }
    }

    /// As a function (vars, n, table), when constant-free or 0 / all-ones.
    fn fun(self) -> Option<([u16; MAX_VARS], usize, u64)> {
        match self {
            Val::C(0) => Some(([0; MAX_VARS], 0, 0)),
            Val::C(u32::MAX) => Some(([0; MAX_VARS], 0, 1)),
            Val::F { vars, n, t } => Some((vars, n as usize, t)),
            _ => None,
        }
    }

    /// The canonical value of a function: symbols it does not depend on removed, constants as `C`.
    fn canon(mut vars: [u16; MAX_VARS], mut n: usize, mut t: u64) -> Val {
        let mut i = 0;
        while i < n {
            let bit = 1usize << i;
            let size = 1usize << n;
            let depends = (0..size)
                .filter(|k| k & bit == 0)
                .any(|k| (t >> k) & 1 != (t >> (k | bit)) & 1);
            if depends {
                i += 1;
                continue;
            }
            let mut t2 = 0u64;
            for k2 in 0..size / 2 {
                let low = k2 & (bit - 1);
                let k = low | ((k2 & !(bit - 1)) << 1);
                t2 |= ((t >> k) & 1) << k2;
            }
            t = t2;
            for j in i..n - 1 {
                vars[j] = vars[j + 1];
            }
            n -= 1;
        }
        if n == 0 {
            return Val::C(if t & 1 == 1 { u32::MAX } else { 0 });
        }
        Val::F {
            vars,
            n: n as u8,
            t: t & table_mask(n),
        }
    }

    fn not(self) -> Val {
        match self {
            Val::C(c) => Val::C(!c),
            Val::F { vars, n, t } => Val::F {
                vars,
                n,
                t: !t & table_mask(n as usize),
            },
            Val::U => Val::U,
        }
    }

    /// A bitwise operation (`f` on single bits) of two values.
    fn bitwise(self, o: Val, op: IntOp) -> Val {
        let f = |x: u64, y: u64| match op {
            IntOp::And => x & y,
            IntOp::Or => x | y,
            _ => x ^ y,
        };
        if let (Val::C(a), Val::C(b)) = (self, o) {
            return Val::C(f(a as u64, b as u64) as u32);
        }
        // Absorbing constants decide the result whatever the other operand holds.
        for (x, _) in [(self, o), (o, self)] {
            match (op, x) {
                (IntOp::And, Val::C(0)) => return Val::C(0),
                (IntOp::Or, Val::C(u32::MAX)) => return Val::C(u32::MAX),
                _ => {}
            }
        }
        let (Some((va, na, ta)), Some((vb, nb, tb))) = (self.fun(), o.fun()) else {
            return Val::U;
        };
        let mut vars: Vec<u16> = va[..na].iter().chain(&vb[..nb]).copied().collect();
        vars.sort_unstable();
        vars.dedup();
        if vars.len() > MAX_VARS {
            return Val::U;
        }
        let n = vars.len();
        let expand = |old: &[u16], t: u64| -> u64 {
            let pos: Vec<usize> = old
                .iter()
                .map(|v| vars.iter().position(|x| x == v).expect("merged"))
                .collect();
            let mut r = 0u64;
            for k in 0..1usize << n {
                let j = pos
                    .iter()
                    .enumerate()
                    .fold(0usize, |j, (i, &p)| j | (((k >> p) & 1) << i));
                r |= ((t >> j) & 1) << k;
            }
            r
        };
        let (xa, xb) = (expand(&va[..na], ta), expand(&vb[..nb], tb));
        let mut arr = [0u16; MAX_VARS];
        arr[..n].copy_from_slice(&vars);
        Val::canon(arr, n, f(xa, xb) & table_mask(n))
    }
}

/// A node's value during the symbolic run.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Nv {
    /// B32.
    W(Val),
    /// B64: low and high words.
    D(Val, Val),
    /// B1: known or not.
    B(Option<bool>),
    X,
}

impl Nv {
    fn words(self) -> Option<(Val, Option<Val>)> {
        match self {
            Nv::W(v) => Some((v, None)),
            Nv::D(l, h) => Some((l, Some(h))),
            _ => None,
        }
    }

    /// The value as a u64 constant, when every word is a known constant.
    fn konst(self) -> Option<u64> {
        match self {
            Nv::W(Val::C(c)) => Some(c as u64),
            Nv::D(Val::C(l), Val::C(h)) => Some(l as u64 | (h as u64) << 32),
            Nv::B(Some(b)) => Some(b as u64),
            _ => None,
        }
    }
}

/// A non-bitwise integer operation: computed on known constants; And/Mul with a zero operand and shifts
/// of zero are zero.
fn arith(op: IntOp, ty: Ty, x: Nv, y: Nv) -> Nv {
    let bits = ty.bits();
    if !matches!(ty, Ty::B32 | Ty::B64) {
        return Nv::X;
    }
    let m = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let zero = |v: Nv| v.konst() == Some(0);
    let r = match (x.konst(), y.konst()) {
        // The IR's own definition ([`IntOp::eval`]) of the operations folded here.
        (Some(a), Some(b)) => matches!(
            op,
            IntOp::Add
                | IntOp::Sub
                | IntOp::Mul
                | IntOp::Shl
                | IntOp::LShr
                | IntOp::MinU
                | IntOp::MaxU
        )
        .then(|| op.eval(ty, a, b)),
        _ => match op {
            IntOp::And | IntOp::Mul | IntOp::MulHiU | IntOp::MulHiI if zero(x) || zero(y) => {
                Some(0)
            }
            IntOp::Shl | IntOp::LShr | IntOp::AShr if zero(x) => Some(0),
            _ => None,
        },
    };
    match r {
        Some(r) => of_const(ty, r & m),
        None => Nv::X,
    }
}

fn of_const(ty: Ty, bits: u64) -> Nv {
    match ty {
        Ty::B1 => Nv::B(Some(bits & 1 == 1)),
        Ty::B32 => Nv::W(Val::C(bits as u32)),
        Ty::B64 => Nv::D(Val::C(bits as u32), Val::C((bits >> 32) as u32)),
        Ty::B16 => Nv::X,
    }
}

/// The SGPR words' values (128 words).
pub(super) type State = Vec<Val>;

/// A read of a word that must not be read (path-sensitive walk).
pub(super) struct ReadPending;

impl Cx<'_> {
    /// Runs block `b` on `st` (hardware semantics: writes take effect at the instruction's end). When
    /// `pending` is given, a read of one of its words fails and a write removes the word from it.
    /// Returns the value of the branch condition when the block ends with a branch.
    pub(super) fn sym_block(
        &self,
        b: usize,
        st: &mut State,
        mut pending: Option<&mut Words>,
    ) -> Result<Option<bool>, ReadPending> {
        let blk = &self.p.blocks[Handle::from_index(b)];
        let cond = match blk.terminator {
            Terminator::Branch { cond, .. } => Some(cond.index()),
            _ => None,
        };
        let exec_zero = |st: &State| {
            let w = self.unit_words(EXEC_LO as u32);
            (0..128).all(|r| w & (1u128 << r) == 0 || st[r] == Val::C(0))
        };
        let mut decided = None;
        // The values of the instruction's nodes, by index from its first node (nodes of other
        // instructions read as unknown).
        let mut vals: Vec<Nv> = Vec::new();
        let mut writes: Vec<(u16, Nv, Ty)> = Vec::new();
        for inst in &blk.insts {
            let start = inst.nodes.start as usize;
            vals.clear();
            writes.clear();
            for i in inst.nodes.clone() {
                let i = i as usize;
                let v = |o: Handle<rdna2spv_ir::Node>| {
                    o.index()
                        .checked_sub(start)
                        .and_then(|k| vals.get(k))
                        .copied()
                        .unwrap_or(Nv::X)
                };
                let nv = match *self.node(i) {
                    Node::Const { ty, bits } => of_const(ty, bits),
                    Node::ReadSgpr { reg, ty } => {
                        let w = span(reg, ty);
                        if let Some(p) = pending.as_deref() {
                            if *p & w != 0 {
                                return Err(ReadPending);
                            }
                        }
                        let r = reg as usize;
                        match ty {
                            Ty::B32 if r < 128 => Nv::W(st[r]),
                            Ty::B64 if r + 1 < 128 => Nv::D(st[r], st[r + 1]),
                            _ => Nv::X,
                        }
                    }
                    Node::Int { op, ty, a, b } => match (op, v(a), v(b)) {
                        (IntOp::And | IntOp::Or | IntOp::Xor, Nv::W(x), Nv::W(y)) => {
                            Nv::W(x.bitwise(y, op))
                        }
                        (IntOp::And | IntOp::Or | IntOp::Xor, Nv::D(xl, xh), Nv::D(yl, yh)) => {
                            Nv::D(xl.bitwise(yl, op), xh.bitwise(yh, op))
                        }
                        (IntOp::And | IntOp::Or | IntOp::Xor, Nv::B(x), Nv::B(y)) => {
                            Nv::B(match (op, x, y) {
                                (IntOp::And, Some(false), _) | (IntOp::And, _, Some(false)) => {
                                    Some(false)
                                }
                                (IntOp::Or, Some(true), _) | (IntOp::Or, _, Some(true)) => {
                                    Some(true)
                                }
                                (_, Some(x), Some(y)) => Some(match op {
                                    IntOp::And => x & y,
                                    IntOp::Or => x | y,
                                    _ => x ^ y,
                                }),
                                _ => None,
                            })
                        }
                        (_, x, y) => arith(op, ty, x, y),
                    },
                    Node::IntCmp { op, ty, a, b } => Nv::B(match (v(a).konst(), v(b).konst()) {
                        // The IR's definition ([`IntCmp::eval`]); the signed ones are not folded.
                        (Some(x), Some(y)) => matches!(
                            op,
                            IntCmp::Eq
                                | IntCmp::Ne
                                | IntCmp::LtU
                                | IntCmp::LeU
                                | IntCmp::GtU
                                | IntCmp::GeU
                        )
                        .then(|| op.eval(ty, x, y)),
                        _ => None,
                    }),
                    Node::Unary { op, ty, a } => match (op, ty, v(a)) {
                        (UnOp::Not, _, Nv::W(x)) => Nv::W(x.not()),
                        (UnOp::Not, _, Nv::D(l, h)) => Nv::D(l.not(), h.not()),
                        (UnOp::Not, Ty::B1, Nv::B(x)) => Nv::B(x.map(|x| !x)),
                        (UnOp::ZExt, Ty::B64, Nv::W(x)) => Nv::D(x, Val::C(0)),
                        (UnOp::ZExt, Ty::B32, Nv::B(Some(x))) => Nv::W(Val::C(x as u32)),
                        (UnOp::ZExt | UnOp::Trunc, Ty::B32, Nv::W(x)) => Nv::W(x),
                        (UnOp::Trunc, Ty::B32, Nv::D(l, _)) => Nv::W(l),
                        _ => Nv::X,
                    },
                    Node::Select { cond, a, b } => match (v(cond), v(a), v(b)) {
                        (Nv::B(Some(true)), x, _) => x,
                        (Nv::B(Some(false)), _, y) => y,
                        (_, Nv::W(x), Nv::W(y)) if same(x, y) => Nv::W(x),
                        (_, Nv::D(xl, xh), Nv::D(yl, yh)) if same(xl, yl) && same(xh, yh) => {
                            Nv::D(xl, xh)
                        }
                        _ => Nv::X,
                    },
                    Node::Concat { lo, hi } => match (v(lo), v(hi)) {
                        (Nv::W(l), Nv::W(h)) => Nv::D(l, h),
                        _ => Nv::X,
                    },
                    Node::Extract { ty, a, shift } => match v(a).konst() {
                        Some(x) => {
                            let x = x >> shift;
                            let x = if ty.bits() >= 64 {
                                x
                            } else {
                                x & ((1u64 << ty.bits()) - 1)
                            };
                            of_const(ty, x)
                        }
                        None => Nv::X,
                    },
                    // Lanes outside EXEC give 0: with EXEC 0 the ballot is 0.
                    Node::Ballot { .. } if exec_zero(st) => Nv::D(Val::C(0), Val::C(0)),
                    Node::WriteSgpr { reg, value } => {
                        writes.push((reg, v(value), self.ty(value.index())));
                        Nv::X
                    }
                    _ => Nv::X,
                };
                if cond == Some(i) {
                    decided = match nv {
                        Nv::B(x) => x,
                        _ => None,
                    };
                }
                debug_assert_eq!(vals.len(), i - start);
                vals.push(nv);
            }
            for &(reg, nv, ty) in &writes {
                let w = span(reg, ty);
                if let Some(p) = pending.as_deref_mut() {
                    // Only a whole-word write replaces a differing word (the IR verifier admits no
                    // other SGPR write).
                    if matches!(ty, Ty::B32 | Ty::B64) {
                        *p &= !w;
                    }
                }
                let (lo, hi) = match nv.words() {
                    Some((l, h)) => (l, h.unwrap_or(Val::U)),
                    None => (Val::U, Val::U),
                };
                let r = reg as usize;
                if r < 128 && w & (1u128 << r) != 0 {
                    st[r] = lo;
                }
                if r + 1 < 128 && w & (1u128 << (r + 1)) != 0 {
                    st[r + 1] = hi;
                }
            }
        }
        Ok(decided)
    }

    /// The known constant words at each block's entry (None: unreachable): a forward analysis over every
    /// CFG edge, whatever the branch conditions (so it holds for any execution along the CFG, also the
    /// ones where the lane mapping runs a skipped region with EXEC = 0), entered with nothing known.
    pub(super) fn sym_entry_consts(&self) -> Vec<Option<State>> {
        let nb = self.p.blocks.len();
        let mut entry: Vec<Option<State>> = vec![None; nb];
        if nb == 0 {
            return entry;
        }
        entry[0] = Some(vec![Val::U; 128]);
        // Each block's end state as of its entry's last change: a block runs again only when its entry
        // changed (the run is a function of the entry; issue 31, D204).
        let mut ends: Vec<Option<State>> = vec![None; nb];
        loop {
            let mut changed = false;
            for b in 0..nb {
                let Some(e) = &entry[b] else {
                    continue;
                };
                let st = match ends[b].take() {
                    Some(st) => st,
                    None => {
                        let mut st = e.clone();
                        let _ = self.sym_block(b, &mut st, None);
                        st
                    }
                };
                let mut again = false;
                for s in self.p.blocks[Handle::from_index(b)].terminator.successors() {
                    let next = match &entry[s] {
                        None => st.clone(),
                        Some(e) => e.iter().zip(&st).map(|(&a, &b)| join(a, b)).collect(),
                    };
                    if entry[s].as_ref() != Some(&next) {
                        entry[s] = Some(next);
                        changed = true;
                        ends[s] = None;
                        again |= s == b;
                    }
                }
                if !again {
                    ends[b] = Some(st);
                }
            }
            if !changed {
                return entry;
            }
        }
    }

    /// The state at the end of the branch's block `bi` where the skip is taken: its entry constants, every
    /// other word its own symbol (0..128), the block run, then EXEC = 0 (the branch's condition) and every
    /// word still unknown a symbol of its value there (128 + word).
    pub(super) fn sym_at_branch(&self, bi: usize, consts: &[Option<State>]) -> State {
        let mut st: State = match &consts[bi] {
            Some(c) => c
                .iter()
                .enumerate()
                .map(|(w, &v)| match v {
                    Val::C(_) => v,
                    _ => Val::sym(w as u16),
                })
                .collect(),
            None => (0..128u16).map(Val::sym).collect(),
        };
        let _ = self.sym_block(bi, &mut st, None);
        let exec = self.unit_words(EXEC_LO as u32);
        for (r, v) in st.iter_mut().enumerate() {
            if exec & (1u128 << r) != 0 {
                *v = Val::C(0);
            } else if *v == Val::U {
                // Unknown but the same on both ways: the word's value where the branch decides.
                *v = Val::sym(128 + r as u16);
            }
        }
        st
    }

    /// Whether the words `pending`, which may differ between the two ways at `t` (state `st` otherwise
    /// shared), are overwritten before any read on every path from `t` the shared state permits (or the
    /// path ends the program), within [`WALK_BLOCKS`] blocks.
    pub(super) fn sym_dead_after(&self, t: usize, st: State, pending: Words) -> bool {
        let mut budget = WALK_BLOCKS;
        let mut stack = vec![(t, st, pending)];
        while let Some((b, mut st, mut pend)) = stack.pop() {
            if budget == 0 {
                return false;
            }
            budget -= 1;
            let Ok(cond) = self.sym_block(b, &mut st, Some(&mut pend)) else {
                return false;
            };
            if pend == 0 {
                continue;
            }
            match self.p.blocks[Handle::from_index(b)].terminator {
                Terminator::End => {}
                Terminator::Jump(s) => stack.push((s.index(), st, pend)),
                Terminator::Branch {
                    taken, not_taken, ..
                } => {
                    if cond != Some(false) {
                        stack.push((taken.index(), st.clone(), pend));
                    }
                    if cond != Some(true) {
                        stack.push((not_taken.index(), st, pend));
                    }
                }
            }
        }
        true
    }

    /// The state at `t` after the region (blocks in `order`, a topological order of the region from its
    /// first block; `succ` gives a block's successors there) run from `start`, joined over every path, or
    /// None when EXEC is not known 0 at the end of a block `must_zero` holds.
    pub(super) fn sym_region(
        &self,
        order: &[usize],
        start: State,
        t: usize,
        succ: &dyn Fn(usize) -> Vec<usize>,
        in_region: &dyn Fn(usize) -> bool,
        must_zero: &dyn Fn(usize) -> bool,
    ) -> Option<State> {
        let exec = self.unit_words(EXEC_LO as u32);
        let mut entry: HashMap<usize, State> = HashMap::default();
        if let Some(&n) = order.first() {
            entry.insert(n, start);
        }
        let mut at_t: Option<State> = None;
        let merge = |slot: &mut Option<State>, st: &State| {
            *slot = Some(match slot.take() {
                None => st.clone(),
                Some(e) => e.iter().zip(st).map(|(&a, &b)| join(a, b)).collect(),
            });
        };
        for &b in order {
            let Some(mut st) = entry.remove(&b) else {
                continue;
            };
            let _ = self.sym_block(b, &mut st, None);
            if must_zero(b) && (0..128).any(|r| exec & (1u128 << r) != 0 && st[r] != Val::C(0)) {
                return None;
            }
            for s in succ(b) {
                if s == t {
                    merge(&mut at_t, &st);
                } else if in_region(s) {
                    let mut slot = entry.remove(&s);
                    merge(&mut slot, &st);
                    entry.insert(s, slot.expect("merged"));
                }
            }
        }
        at_t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_tables() {
        let (a, b) = (Val::sym(3), Val::sym(9));
        // a & ~(a | b) == 0
        let x = a.bitwise(a.bitwise(b, IntOp::Or).not(), IntOp::And);
        assert_eq!(x, Val::C(0));
        // 0 | ~0 == all ones; (a | b) & ~b == a & ~b, not a.
        assert_eq!(
            Val::C(0).bitwise(Val::C(0).not(), IntOp::Or),
            Val::C(u32::MAX)
        );
        let y = a.bitwise(b, IntOp::Or).bitwise(b.not(), IntOp::And);
        assert_eq!(y, a.bitwise(b.not(), IntOp::And));
        assert_ne!(y, a);
        // a ^ a == 0; a & all-ones == a; an arbitrary constant mixes to unknown.
        assert_eq!(a.bitwise(a, IntOp::Xor), Val::C(0));
        assert_eq!(a.bitwise(Val::C(u32::MAX), IntOp::And), a);
        assert_eq!(a.bitwise(Val::C(5), IntOp::Or), Val::U);
        assert!(!same(Val::U, Val::U));
        // Seven symbols are too many.
        let mut v = Val::sym(0);
        for s in 1..7 {
            v = v.bitwise(Val::sym(s), IntOp::Xor);
        }
        assert_eq!(v, Val::U);
    }
}
