//! Lane picks within a subgroup block as subgroup shuffles (L44, decision D217).
//!
//! A pick (`pick.rs`, D188) reads, in every lane, the value another lane of the wave holds: the lifter's
//! `ds_bpermute_b32`, DPP, `ds_swizzle` and permlane. The lane mapping exchanges that value through
//! workgroup memory behind a barrier, because the lanes of a wave are separate invocations that only
//! meet at barriers. Where the device profile measured that subgroups are blocks of S consecutive
//! invocations (`DeviceProfile::aligned_subgroup_size`, lavapipe: 8) and S divides the wave, a pick
//! whose source lane is, for every lane that reads, in the reader's own block of S lanes is one
//! `OpGroupNonUniformShuffle` instead: no store, no barrier, no load. rocPRIM's warp sorts shuffle with
//! `ds_bpermute_b32` at `lane ^ 1`, `lane ^ 2`, `lane ^ 4` (and 8, 16: those stay exchanges on lavapipe).
//!
//! The proof is a forward analysis over the CFG of *claims* about VGPR values, each valid in the lanes
//! of one EXEC version:
//!
//! * A value is known either exactly in every lane of the wave (`Val::Lanes`: a function of the lane
//!   index and constants, evaluated for each lane with the IR's own operation definitions, e.g.
//!   `v_mbcnt_lo_u32_b32 v, -1, 0` is the lane index), or bit by bit (`Val::Bits`: each bit 0, 1, bit j of
//!   the lane index, or unknown). Bitwise operations, shifts by a constant and selects on an unknown
//!   condition (each bit kept where both sides agree) work on bits.
//! * EXEC versions: EXEC is one version (an id) with the set of versions known to contain it. Entry:
//!   the launch EXEC. A compare into EXEC (`v_cmpx`, `s_and_saveexec`) makes a new version inside the
//!   current one; `s_or_b32 exec_lo, exec_lo, s4` where EXEC is inside the mask saved in `s4` makes EXEC
//!   that mask's version again (the OR of a subset is the superset); any other EXEC write makes a version
//!   with only the supersets its value has. Where two paths meet with different EXEC versions, the block
//!   starts with a version of its own inside both paths' common supersets.
//! * A VGPR write under version h gives the claim (new value, h); each older claim (v, w) becomes (v ⊓ new,
//!   w): the lanes of w outside h kept v, those inside took the new value. A claim is used only where
//!   the current EXEC is inside its version (every active lane has the claimed value).
//! * The fixed point is `ldsaddr::forward`'s; if it does not settle, no pick is local.
//!
//! A pick root is local when the EXEC of its instruction is known (a version) and its index's bits
//! `log2 S .. log2 (wave size)` are the lane's own bits there: every active lane reads a lane of its own
//! block. Inactive lanes may read anywhere: their results are discarded by the guards, as the
//! exchange's would be.

use std::collections::{BTreeMap, BTreeSet};

use crate::hash::{HashMap, HashSet};
use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{Handle, IntOp, Node, Program, Sreg, Ty, UnOp, Vreg, EXEC_LO};

use super::super::operands;
use super::ldsaddr::{forward, Vals};
use super::pick::Picks;

/// Bit codes of [`Val::Bits`]: 0, 1, bit j of the lane index (`LANE + j`), unknown.
const ZERO: u8 = 0;
const ONE: u8 = 1;
const LANE: u8 = 2;
const UNKNOWN: u8 = 0xff;

/// The launch EXEC's version.
const ENTRY: u32 = u32::MAX;
/// Version ids of block starts where paths with different EXEC versions meet: `JOIN - block`.
const JOIN: u32 = u32::MAX - 1;

/// A value in every lane of the wave.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Val {
    /// Exactly, per lane (the low `ty` bits).
    Lanes(Vec<u64>),
    /// A B32 value bit by bit.
    Bits([u8; 32]),
}

/// A lane mask: equal to version `eq` (when known), and inside every version of `sup`.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Mask {
    eq: Option<u32>,
    sup: BTreeSet<u32>,
}

#[derive(Clone, PartialEq, Eq, Debug, Default)]
enum Abs {
    #[default]
    Unknown,
    Val(Val),
    Mask(Mask),
}

#[derive(Clone, PartialEq, Eq, Debug)]
struct State {
    /// EXEC: always a version (`eq` set).
    exec: Mask,
    /// Claims per VGPR: by version, the value every lane of that version holds; only versions EXEC may
    /// still be inside ([`State::live`]) are kept.
    vgpr: BTreeMap<Vreg, BTreeMap<u32, Val>>,
    /// Masks held in SGPRs (first word, type).
    sgpr: BTreeMap<Sreg, (Ty, Mask)>,
}

/// The pick roots (node indices) whose source lane stays in the reader's block of `size` lanes, and
/// their trees' leaves and inner selects; the tests of a uniform mask's bit at such a lane.
#[derive(Debug, Default)]
pub(crate) struct SubPicks {
    pub(crate) size: u32,
    pub(crate) roots: HashSet<usize>,
    pub(crate) inner: HashSet<usize>,
    /// `((x >> idx) & 1) != 0` of a uniform mask `x` (ds_bpermute's test of the source lane's EXEC
    /// bit), the compare → (x, idx); where `x` is known only as each lane's own bit (L9) it is the
    /// source lane's own bit, shuffled.
    pub(crate) tests: HashMap<usize, (Handle<Node>, Handle<Node>)>,
    /// The shift and the AND of those tests → their compare.
    pub(crate) test_inner: HashMap<usize, usize>,
}

struct An<'a> {
    p: &'a Program,
    types: &'a Types,
    ws: u32,
    /// Uses of each node (operands and branch conditions).
    uses: Vec<u32>,
}

fn bits_of(v: &Val) -> [u8; 32] {
    match v {
        Val::Bits(b) => *b,
        Val::Lanes(l) => {
            let mut out = [UNKNOWN; 32];
            for (i, o) in out.iter_mut().enumerate() {
                let first = (l[0] >> i) & 1;
                if l.iter().all(|x| (x >> i) & 1 == first) {
                    *o = first as u8;
                    continue;
                }
                if let Some(j) = (0..6u32).find(|&j| {
                    l.iter()
                        .enumerate()
                        .all(|(lane, x)| (x >> i) & 1 == (lane as u64 >> j) & 1)
                }) {
                    *o = LANE + j as u8;
                }
            }
            out
        }
    }
}

/// The claim both values allow: equal lanes stay exact, else bit by bit where they agree.
fn meet(a: &Val, b: &Val) -> Val {
    if a == b {
        return a.clone();
    }
    let (x, y) = (bits_of(a), bits_of(b));
    let mut out = [UNKNOWN; 32];
    for i in 0..32 {
        if x[i] == y[i] {
            out[i] = x[i];
        }
    }
    Val::Bits(out)
}

fn informative(v: &Val) -> bool {
    match v {
        Val::Lanes(_) => true,
        Val::Bits(b) => b.iter().any(|&c| c != UNKNOWN),
    }
}

fn join_mask(a: &Mask, b: &Mask, fresh: u32) -> Mask {
    if a == b {
        return a.clone();
    }
    let mut sup: BTreeSet<u32> = a.sup.intersection(&b.sup).copied().collect();
    let eq = if a.eq == b.eq {
        a.eq
    } else {
        sup.insert(fresh);
        Some(fresh)
    };
    Mask { eq, sup }
}

impl An<'_> {
    fn ty(&self, h: Handle<Node>) -> Ty {
        self.types[h.index()].map_or(Ty::B32, |t| t.0)
    }

    /// A uniform constant: the same value in every lane.
    fn uniform(v: &Abs) -> Option<u64> {
        match v {
            Abs::Val(Val::Lanes(l)) if l.iter().all(|&x| x == l[0]) => Some(l[0]),
            _ => None,
        }
    }

    fn lanes(&self, f: impl Fn(usize) -> u64, ty: Ty) -> Abs {
        Abs::Val(Val::Lanes(
            (0..self.ws as usize).map(|l| f(l) & ty.mask()).collect(),
        ))
    }

    fn int(&self, op: IntOp, ty: Ty, a: &Abs, b: &Abs) -> Abs {
        if let (Abs::Val(Val::Lanes(x)), Abs::Val(Val::Lanes(y))) = (a, b) {
            return self.lanes(|l| op.eval(ty, x[l], y[l]), ty);
        }
        if let (Abs::Mask(x), Abs::Mask(y)) = (a, b) {
            return match op {
                IntOp::And if x.eq.is_some() && x.eq == y.eq => Abs::Mask(x.clone()),
                IntOp::And => Abs::Mask(Mask {
                    eq: None,
                    sup: x.sup.union(&y.sup).copied().collect(),
                }),
                IntOp::Or => match (x.eq, y.eq) {
                    (Some(e), _) if y.sup.contains(&e) => Abs::Mask(x.clone()),
                    (_, Some(e)) if x.sup.contains(&e) => Abs::Mask(y.clone()),
                    _ => Abs::Mask(Mask {
                        eq: None,
                        sup: x.sup.intersection(&y.sup).copied().collect(),
                    }),
                },
                IntOp::Xor => Abs::Mask(Mask {
                    eq: None,
                    sup: x.sup.intersection(&y.sup).copied().collect(),
                }),
                _ => Abs::Unknown,
            };
        }
        if op == IntOp::And {
            // A mask ANDed with anything stays inside the mask's versions.
            if let Some(m) = m_of(a).or_else(|| m_of(b)) {
                return Abs::Mask(Mask {
                    eq: None,
                    sup: m.sup.clone(),
                });
            }
        }
        if ty != Ty::B32 {
            return Abs::Unknown;
        }
        let (Abs::Val(x), Abs::Val(y)) = (a, b) else {
            // Adding or subtracting zero, or shifting by it, keeps the other side.
            return match (op, a, Self::uniform(b)) {
                (IntOp::Add | IntOp::Sub | IntOp::Or | IntOp::Xor, Abs::Val(_), Some(0)) => {
                    a.clone()
                }
                _ => Abs::Unknown,
            };
        };
        let (bx, by) = (bits_of(x), bits_of(y));
        let mut out = [UNKNOWN; 32];
        match op {
            IntOp::And | IntOp::Or | IntOp::Xor => {
                for i in 0..32 {
                    let (p, q) = (bx[i], by[i]);
                    out[i] = match op {
                        IntOp::And if p == ZERO || q == ZERO => ZERO,
                        IntOp::And if p == ONE => q,
                        IntOp::And if q == ONE => p,
                        IntOp::Or if p == ONE || q == ONE => ONE,
                        IntOp::Or if p == ZERO => q,
                        IntOp::Or if q == ZERO => p,
                        IntOp::And | IntOp::Or if p == q => p,
                        IntOp::Xor if p == ZERO => q,
                        IntOp::Xor if q == ZERO => p,
                        IntOp::Xor if p == ONE && q == ONE => ZERO,
                        IntOp::Xor if p == q && p != UNKNOWN => ZERO,
                        _ => UNKNOWN,
                    };
                }
            }
            IntOp::Shl | IntOp::LShr => {
                let Some(k) = Self::uniform(&Abs::Val(y.clone())) else {
                    return Abs::Unknown;
                };
                let k = (k % 32) as usize;
                for (i, o) in out.iter_mut().enumerate() {
                    *o = match op {
                        IntOp::Shl if i >= k => bx[i - k],
                        IntOp::LShr if i + k < 32 => bx[i + k],
                        _ => ZERO,
                    };
                }
            }
            IntOp::Add | IntOp::Sub if Self::uniform(&Abs::Val(y.clone())) == Some(0) => {
                return a.clone();
            }
            _ => return Abs::Unknown,
        }
        Abs::Val(Val::Bits(out))
    }

    /// The abstract value of node `h`; `exec` is EXEC at the instruction's start.
    fn eval(&self, st: &State, vals: &Vals<Abs>, h: Handle<Node>, exec: &Mask) -> Abs {
        let get = |x: Handle<Node>| vals.get(x.index());
        let ty = self.types[h.index()].map_or(Ty::B32, |t| t.0);
        match self.p.nodes[h] {
            Node::Const { bits, ty } => self.lanes(|_| bits, ty),
            Node::LaneId => self.lanes(|l| l as u64, Ty::B32),
            Node::ReadVgpr { reg, ty: Ty::B32 } => st
                .vgpr
                .get(&reg)
                .and_then(|cs| usable(cs, exec))
                .map_or(Abs::Unknown, Abs::Val),
            Node::ReadSgpr { reg, ty } => {
                if reg == EXEC_LO && ty == self.exec_ty() {
                    return Abs::Mask(st.exec.clone());
                }
                match st.sgpr.get(&reg) {
                    Some((t, m)) if *t == ty => Abs::Mask(m.clone()),
                    _ => Abs::Unknown,
                }
            }
            Node::Int { op, ty, a, b } => self.int(op, ty, &get(a), &get(b)),
            Node::IntCmp { op, ty: cty, a, b } => match (get(a), get(b)) {
                (Abs::Val(Val::Lanes(x)), Abs::Val(Val::Lanes(y))) => {
                    self.lanes(|l| u64::from(op.eval(cty, x[l], y[l])), Ty::B1)
                }
                _ => Abs::Unknown,
            },
            Node::Unary { op, ty, a } => {
                let from = self.ty(a);
                match (op, get(a)) {
                    (UnOp::ZExt | UnOp::Trunc, Abs::Mask(m)) => Abs::Mask(Mask {
                        eq: if ty.bits() >= self.ws && from.bits() >= self.ws {
                            m.eq
                        } else {
                            None
                        },
                        sup: m.sup,
                    }),
                    (_, Abs::Val(Val::Lanes(x))) => match op {
                        UnOp::ZExt | UnOp::Trunc => self.lanes(|l| x[l] & from.mask(), ty),
                        UnOp::SExt => self.lanes(
                            |l| {
                                let s = 64 - from.bits();
                                ((((x[l] & from.mask()) << s) as i64) >> s) as u64
                            },
                            ty,
                        ),
                        UnOp::Not => self.lanes(|l| !x[l], ty),
                        UnOp::Popcount => {
                            self.lanes(|l| u64::from((x[l] & from.mask()).count_ones()), ty)
                        }
                        _ => Abs::Unknown,
                    },
                    (UnOp::ZExt | UnOp::Trunc, Abs::Val(v @ Val::Bits(_)))
                        if ty == Ty::B32 && from == Ty::B32 =>
                    {
                        Abs::Val(v)
                    }
                    _ => Abs::Unknown,
                }
            }
            Node::Extract { ty, a, shift } => match get(a) {
                Abs::Val(Val::Lanes(x)) => self.lanes(|l| x[l] >> shift, ty),
                // The low word of a wave32 mask widened: the same lanes.
                Abs::Mask(m) if shift == 0 && self.ws == 32 => Abs::Mask(Mask {
                    eq: None,
                    sup: m.sup,
                }),
                _ => Abs::Unknown,
            },
            Node::Concat { lo, hi } => match (get(lo), get(hi)) {
                (Abs::Val(Val::Lanes(x)), Abs::Val(Val::Lanes(y))) => {
                    self.lanes(|l| (x[l] & 0xffff_ffff) | (y[l] << 32), Ty::B64)
                }
                _ => Abs::Unknown,
            },
            Node::Select { cond, a, b } => {
                let (x, y) = (get(a), get(b));
                match (get(cond), x, y) {
                    (Abs::Val(Val::Lanes(c)), Abs::Val(Val::Lanes(x)), Abs::Val(Val::Lanes(y))) => {
                        self.lanes(|l| if c[l] & 1 == 1 { x[l] } else { y[l] }, ty)
                    }
                    (c, x, y) => match (Self::uniform(&c), x, y) {
                        (Some(1), x, _) => x,
                        (Some(0), _, y) => y,
                        (_, Abs::Val(x), Abs::Val(y)) if ty == Ty::B32 => Abs::Val(meet(&x, &y)),
                        (_, Abs::Mask(x), Abs::Mask(y)) => {
                            if x == y {
                                Abs::Mask(x)
                            } else {
                                Abs::Mask(Mask {
                                    eq: None,
                                    sup: x.sup.intersection(&y.sup).copied().collect(),
                                })
                            }
                        }
                        _ => Abs::Unknown,
                    },
                }
            }
            // A ballot is inside the EXEC it reads (the instruction's; both it and the current
            // one are allowed for).
            Node::Ballot { .. } => Abs::Mask(Mask {
                eq: None,
                sup: exec.sup.intersection(&st.exec.sup).copied().collect(),
            }),
            _ => Abs::Unknown,
        }
    }

    fn exec_ty(&self) -> Ty {
        if self.ws == 64 {
            Ty::B64
        } else {
            Ty::B32
        }
    }

    fn write_sgpr(&self, st: &mut State, reg: Sreg, ty: Ty, v: Abs, node: usize) {
        if reg == EXEC_LO && ty == self.exec_ty() {
            st.exec = match v {
                Abs::Mask(m) if m.eq.is_some() => m,
                Abs::Mask(m) => {
                    let mut sup = m.sup;
                    sup.insert(node as u32);
                    Mask {
                        eq: Some(node as u32),
                        sup,
                    }
                }
                _ => Mask {
                    eq: Some(node as u32),
                    sup: BTreeSet::from([node as u32]),
                },
            };
            // Masks saved as "EXEC's version" stay what they were.
            return;
        }
        let words = if ty == Ty::B64 { 2 } else { 1 };
        let hit: Vec<Sreg> = st
            .sgpr
            .range(reg.saturating_sub(1)..reg + words)
            .filter(|(&r, (t, _))| r + if *t == Ty::B64 { 2 } else { 1 } > reg)
            .map(|(&r, _)| r)
            .collect();
        for r in hit {
            st.sgpr.remove(&r);
        }
        let exec_words = if self.ws == 64 { 2 } else { 1 };
        if reg < EXEC_LO + exec_words && reg + words > EXEC_LO {
            // A partial write of EXEC: a version with no known superset.
            st.exec = Mask {
                eq: Some(node as u32),
                sup: BTreeSet::from([node as u32]),
            };
            return;
        }
        if let Abs::Mask(m) = v {
            st.sgpr.insert(reg, (ty, m));
        }
    }

    fn write_vgpr(&self, st: &mut State, reg: Vreg, ty: Ty, v: Abs, exec: &Mask) {
        // Only B32 claims are kept: a wider write forgets every word it covers.
        let words = if ty == Ty::B64 { 2 } else { 1 };
        let (Ty::B32, Abs::Val(new)) = (ty, v) else {
            for r in reg..reg.saturating_add(words) {
                st.vgpr.remove(&r);
            }
            return;
        };
        let h = exec.eq.expect("EXEC is a version");
        let live = st.live();
        let old = st.vgpr.remove(&reg).unwrap_or_default();
        // The lanes of h take the new value; every other lane of an older claim's version keeps its.
        let mut claims: BTreeMap<u32, Val> = old
            .into_iter()
            .filter(|(w, _)| *w != h && live.contains(w))
            .map(|(w, v)| (w, meet(&v, &new)))
            .filter(|(_, v)| informative(v))
            .collect();
        claims.insert(h, new);
        st.vgpr.insert(reg, claims);
    }

    /// Runs block `b` from `st`; with `out`, records the local pick roots.
    fn block(
        &self,
        b: usize,
        mut st: State,
        picks: &Picks,
        size: u32,
        mut out: Option<&mut SubPicks>,
    ) -> State {
        let blk = &self.p.blocks[Handle::from_index(b)];
        let mut vals = Vals::default();
        for inst in &blk.insts {
            let exec = st.exec.clone();
            vals.start(inst.nodes.start as usize);
            for (h, n) in self.p.inst_nodes(inst) {
                let v = self.eval(&st, &vals, h, &exec);
                if let Some(o) = out.as_deref_mut() {
                    if let Some([x, sh, and, idx]) = self.bit_test(h) {
                        if let Abs::Val(iv) = vals.get(idx.index()) {
                            if self.in_block(&bits_of(&iv), size) {
                                o.tests.insert(h.index(), (x, idx));
                                o.test_inner.insert(sh.index(), h.index());
                                o.test_inner.insert(and.index(), h.index());
                            }
                        }
                    }
                    if let Some(&(_, idx)) = picks.roots.get(&h.index()) {
                        if let Abs::Val(iv) = vals.get(idx.index()) {
                            if self.in_block(&bits_of(&iv), size) {
                                o.roots.insert(h.index());
                            }
                        }
                    }
                }
                match *n {
                    Node::WriteVgpr { reg, value } => {
                        let val = vals.get(value.index());
                        self.write_vgpr(&mut st, reg, self.ty(value), val, &exec);
                    }
                    Node::WriteSgpr { reg, value } => {
                        let val = vals.get(value.index());
                        self.write_sgpr(&mut st, reg, self.ty(value), val, h.index());
                    }
                    _ => {}
                }
                vals.push(v);
            }
        }
        st
    }

    /// Whether `c` is `((x >> idx) & 1) != 0` with `x` a uniform value (B32 or B64) and `idx` a lane
    /// value (B32, zero-extended for a B64 `x`): [x, the shift, the AND, idx].
    fn bit_test(&self, c: Handle<Node>) -> Option<[Handle<Node>; 4]> {
        let konst = |h: Handle<Node>, v: u64| matches!(self.p.nodes[h], Node::Const { bits, .. } if bits == v);
        let Node::IntCmp {
            op: rdna2spv_ir::IntCmp::Ne,
            ty,
            a: and,
            b: z,
        } = self.p.nodes[c]
        else {
            return None;
        };
        let Node::Int {
            op: IntOp::And,
            a: sh,
            b: one,
            ..
        } = self.p.nodes[and]
        else {
            return None;
        };
        let Node::Int {
            op: IntOp::LShr,
            a: x,
            b: amt,
            ..
        } = self.p.nodes[sh]
        else {
            return None;
        };
        let idx = match (ty, &self.p.nodes[amt]) {
            (Ty::B32, _) => amt,
            (
                Ty::B64,
                &Node::Unary {
                    op: UnOp::ZExt, a, ..
                },
            ) if self.ty(a) == Ty::B32 => a,
            _ => return None,
        };
        let uniform = |h: Handle<Node>| {
            self.types[h.index()].is_some_and(|t| t.1 == rdna2spv_ir::Shape::Uniform)
        };
        // The shift and the AND are read by the test alone (they are not emitted when it shuffles).
        let once = |h: Handle<Node>| self.uses[h.index()] == 1;
        (konst(z, 0) && konst(one, 1) && uniform(x) && !uniform(idx) && once(sh) && once(and))
            .then_some([x, sh, and, idx])
    }

    /// Bits `log2 size .. log2 ws` of an index are the lane's own.
    fn in_block(&self, bits: &[u8; 32], size: u32) -> bool {
        (size.trailing_zeros()..self.ws.trailing_zeros())
            .all(|j| bits[j as usize] == LANE + j as u8)
    }

    fn join(&self, a: &State, b: &State, block: usize) -> State {
        let fresh = JOIN - block as u32;
        let exec = join_mask(&a.exec, &b.exec, fresh);
        let mut vgpr = BTreeMap::new();
        let eq = exec.eq.expect("a version");
        for (r, ca) in &a.vgpr {
            let Some(cb) = b.vgpr.get(r) else {
                continue;
            };
            let mut claims: BTreeMap<u32, Val> = BTreeMap::new();
            // Claims of one version on both sides.
            for (w, va) in ca {
                if let Some(vb) = cb.get(w) {
                    claims.insert(*w, meet(va, vb));
                }
            }
            // The value each side's active lanes hold, for the joined EXEC.
            if let (Some(va), Some(vb)) = (usable(ca, &a.exec), usable(cb, &b.exec)) {
                let m = meet(&va, &vb);
                let m = match claims.get(&eq) {
                    Some(old) => refine(old, &m),
                    None => m,
                };
                claims.insert(eq, m);
            }
            claims.retain(|_, v| informative(v));
            if !claims.is_empty() {
                vgpr.insert(*r, claims);
            }
        }
        let mut sgpr = BTreeMap::new();
        for (r, (t, ma)) in &a.sgpr {
            if let Some((t2, mb)) = b.sgpr.get(r) {
                if t == t2 {
                    let m = if ma == mb {
                        ma.clone()
                    } else {
                        Mask {
                            eq: None,
                            sup: ma.sup.intersection(&mb.sup).copied().collect(),
                        }
                    };
                    sgpr.insert(*r, (*t, m));
                }
            }
        }
        let mut st = State { exec, vgpr, sgpr };
        let live = st.live();
        for cs in st.vgpr.values_mut() {
            cs.retain(|w, _| live.contains(w));
        }
        st.vgpr.retain(|_, cs| !cs.is_empty());
        st
    }
}

impl State {
    /// The versions EXEC may be inside from here on: its own supersets, and those of the masks held in
    /// SGPRs (EXEC restored from one of them).
    fn live(&self) -> BTreeSet<u32> {
        let mut out = self.exec.sup.clone();
        for (_, m) in self.sgpr.values() {
            out.extend(m.sup.iter().copied());
        }
        out
    }
}

/// What the claims say about the lanes active under `exec` (every claim whose version contains it is
/// true there).
fn usable(cs: &BTreeMap<u32, Val>, exec: &Mask) -> Option<Val> {
    let mut out: Option<Val> = None;
    for (w, v) in cs {
        if exec.sup.contains(w) {
            out = Some(match out {
                None => v.clone(),
                Some(o) => refine(&o, v),
            });
        }
    }
    out
}

/// Two claims true of the same lanes: exact lanes if either is, else every bit either knows.
fn refine(a: &Val, b: &Val) -> Val {
    match (a, b) {
        (Val::Lanes(_), _) => a.clone(),
        (_, Val::Lanes(_)) => b.clone(),
        (Val::Bits(x), Val::Bits(y)) => {
            let mut out = *x;
            for i in 0..32 {
                if out[i] == UNKNOWN {
                    out[i] = y[i];
                }
            }
            Val::Bits(out)
        }
    }
}

fn m_of(a: &Abs) -> Option<&Mask> {
    match a {
        Abs::Mask(m) => Some(m),
        _ => None,
    }
}

impl SubPicks {
    /// The local picks of `p` for subgroup blocks of `size` lanes (`0`, or a size that does not divide
    /// the wave: none).
    pub(crate) fn of(
        p: &Program,
        types: &Types,
        picks: &Picks,
        workgroup: [u32; 3],
        size: u32,
    ) -> SubPicks {
        let ws = p.wave_size;
        let mut out = SubPicks {
            size,
            ..SubPicks::default()
        };
        if picks.roots.is_empty()
            || size < 2
            || !size.is_power_of_two()
            || !ws.is_power_of_two()
            || size > ws
            || !ws.is_multiple_of(size)
        {
            return out;
        }
        let mut uses = vec![0u32; p.nodes.len()];
        for (_, n) in p.nodes.iter() {
            for o in operands(n) {
                uses[o.index()] += 1;
            }
        }
        for (_, b) in p.blocks.iter() {
            if let rdna2spv_ir::Terminator::Branch { cond, .. } = b.terminator {
                uses[cond.index()] += 1;
            }
        }
        let an = An { p, types, ws, uses };
        let mut entry = State {
            exec: Mask {
                eq: Some(ENTRY),
                sup: BTreeSet::from([ENTRY]),
            },
            vgpr: BTreeMap::new(),
            sgpr: BTreeMap::new(),
        };
        if workgroup[1] == 1 && workgroup[2] == 1 {
            // v0 is the work-item id x: wave w's lane l has w·ws + l.
            let mut bits = [UNKNOWN; 32];
            for j in 0..ws.trailing_zeros() {
                bits[j as usize] = LANE + j as u8;
            }
            entry
                .vgpr
                .insert(0, BTreeMap::from([(ENTRY, Val::Bits(bits))]));
        }
        let Some(start) = forward(
            p,
            entry,
            |b, s| an.block(b, s, picks, size, None),
            |a, b, succ| an.join(a, b, succ),
        ) else {
            return out;
        };
        for (b, s) in start.into_iter().enumerate() {
            if let Some(s) = s {
                an.block(b, s, picks, size, Some(&mut out));
            }
        }
        for r in &out.roots {
            out.inner.extend(picks.members[r].iter().copied());
        }
        out
    }
}
