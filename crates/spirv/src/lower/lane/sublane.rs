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
//! * Each claim holds in the lanes of one EXEC version (`versions.rs`, shared with L8): it is used only
//!   where the current EXEC is inside its version (every active lane has the claimed value).
//! * The fixed point is `ldsaddr::forward`'s; if it does not settle, no pick is local.
//!
//! A pick root is local when the EXEC of its instruction is known (a version) and its index's bits
//! `log2 S .. log2 (wave size)` are the lane's own bits there: every active lane reads a lane of its own
//! block. Inactive lanes may read anywhere: their results are discarded by the guards, as the
//! exchange's would be.

use crate::hash::{HashMap, HashSet};
use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{Handle, IntOp, Node, Program, Ty, UnOp};

use super::ldsaddr::{forward, Vals};
use super::pick::Picks;
use super::versions::{Claim, Mask, Sgpr, Value, ENTRY};

type State = super::versions::State<Val>;

/// Bit codes of [`Val::Bits`]: 0, 1, bit j of the lane index (`LANE + j`), unknown.
const ZERO: u8 = 0;
const ONE: u8 = 1;
const LANE: u8 = 2;
const UNKNOWN: u8 = 0xff;

/// A value in every lane of the wave.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Val {
    /// Exactly, per lane (the low `ty` bits).
    Lanes(Vec<u64>),
    /// A B32 value bit by bit.
    Bits([u8; 32]),
}

#[derive(Clone, PartialEq, Eq, Debug, Default)]
enum Abs {
    #[default]
    Unknown,
    Val(Val),
    Mask(Mask),
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
    /// D278: the bpermute picks whose exchange stores zero outside EXEC (computed for every profile).
    pub(crate) zero: super::pick::ZeroPicks,
}

struct An<'a> {
    p: &'a Program,
    types: &'a Types,
    ws: u32,
    /// Uses of each node (operands and branch conditions; the pick analysis counted them).
    uses: &'a [u32],
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

impl Value<Val> for Abs {
    fn claim(&self) -> Option<Val> {
        match self {
            Abs::Val(v) => Some(v.clone()),
            _ => None,
        }
    }

    /// Masks only (uniform values come from constants and masks here).
    fn held(&self) -> Option<Sgpr> {
        match self {
            Abs::Mask(m) => Some(Sgpr::Mask(m.clone())),
            _ => None,
        }
    }
}

impl Claim for Val {
    /// Equal lanes stay exact, else bit by bit where they agree.
    fn meet(&self, other: &Val) -> Option<Val> {
        if self == other {
            return Some(self.clone());
        }
        let (x, y) = (bits_of(self), bits_of(other));
        let mut out = [UNKNOWN; 32];
        for i in 0..32 {
            if x[i] == y[i] {
                out[i] = x[i];
            }
        }
        out.iter().any(|&c| c != UNKNOWN).then_some(Val::Bits(out))
    }

    /// Exact lanes if either is, else every bit either knows.
    fn refine(&self, other: &Val) -> Val {
        match (self, other) {
            (Val::Lanes(_), _) => self.clone(),
            (_, Val::Lanes(_)) => other.clone(),
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
                IntOp::And => Abs::Mask(x.and(y)),
                IntOp::Or => Abs::Mask(x.or(y)),
                IntOp::Xor => Abs::Mask(x.xor(y)),
                _ => Abs::Unknown,
            };
        }
        if op == IntOp::And {
            // A mask ANDed with anything stays inside the mask's versions.
            if let Some(m) = m_of(a).or_else(|| m_of(b)) {
                return Abs::Mask(m.part());
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
            Node::ReadVgpr { reg, ty: Ty::B32 } => {
                st.usable(reg, exec).map_or(Abs::Unknown, Abs::Val)
            }
            // SGPR constants are not used here (uniform values come from constants and masks).
            Node::ReadSgpr { reg, ty } => match st.read_sgpr(reg, ty) {
                Some(Sgpr::Mask(m)) => Abs::Mask(m),
                _ => Abs::Unknown,
            },
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
                    (UnOp::ZExt | UnOp::Trunc, Abs::Mask(m)) => {
                        Abs::Mask(m.resized(ty.bits() >= self.ws && from.bits() >= self.ws))
                    }
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
                Abs::Mask(m) if shift == 0 && self.ws == 32 => Abs::Mask(m.part()),
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
                        (_, Abs::Val(x), Abs::Val(y)) if ty == Ty::B32 => {
                            x.meet(&y).map_or(Abs::Unknown, Abs::Val)
                        }
                        (_, Abs::Mask(x), Abs::Mask(y)) => Abs::Mask(x.either(&y)),
                        _ => Abs::Unknown,
                    },
                }
            }
            // A ballot is inside the EXEC it reads (the instruction's; both it and the current
            // one are allowed for).
            Node::Ballot { .. } => Abs::Mask(Mask::ballot(exec, &st.exec, None)),
            _ => Abs::Unknown,
        }
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
                if let Node::WriteVgpr { value, .. } | Node::WriteSgpr { value, .. } = *n {
                    let val = vals.get(value.index());
                    st.apply(n, self.ty(value), &val, h.index(), &exec);
                }
                vals.push(v);
            }
        }
        st
    }

    /// Whether `c` is `((x >> idx) & 1) != 0` ([`super::pick::mask_bit_test`]) with `x` a uniform value
    /// and `idx` a lane value: [x, the shift, the AND, idx].
    fn bit_test(&self, c: Handle<Node>) -> Option<[Handle<Node>; 4]> {
        let [x, sh, and, idx] = super::pick::mask_bit_test(self.p, self.types, c)?;
        let uniform = |h: Handle<Node>| {
            self.types[h.index()].is_some_and(|t| t.1 == rdna2spv_ir::Shape::Uniform)
        };
        // The shift and the AND are read by the test alone (they are not emitted when it shuffles).
        let once = |h: Handle<Node>| self.uses[h.index()] == 1;
        (uniform(x) && !uniform(idx) && once(sh) && once(and)).then_some([x, sh, and, idx])
    }

    /// Bits `log2 size .. log2 ws` of an index are the lane's own.
    fn in_block(&self, bits: &[u8; 32], size: u32) -> bool {
        (size.trailing_zeros()..self.ws.trailing_zeros())
            .all(|j| bits[j as usize] == LANE + j as u8)
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
        let an = An {
            p,
            types,
            ws,
            uses: &picks.uses,
        };
        let mut entry = State::entry(ws, None);
        if workgroup[1] == 1 && workgroup[2] == 1 {
            // v0 is the work-item id x: wave w's lane l has w·ws + l.
            let mut bits = [UNKNOWN; 32];
            for j in 0..ws.trailing_zeros() {
                bits[j as usize] = LANE + j as u8;
            }
            entry.vgpr.insert(0, [(ENTRY, Val::Bits(bits))].into());
        }
        let Some(start) = forward(
            p,
            entry,
            |b, s| an.block(b, s, picks, size, None),
            State::join,
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
