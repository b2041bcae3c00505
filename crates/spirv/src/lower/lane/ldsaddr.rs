//! Lane-disjoint LDS accesses: when an LDS access needs no barrier after those before it (decision D120).
//!
//! `Cx::lane_lds_fence` orders an LDS write after the other lanes' accesses since the last barrier, and
//! any access after their writes. Both orders matter only between different lanes' accesses to a common
//! dword: a barrier is skipped when the analysis here proves there are none. The tree step of a
//! reduction (`if (lid < s) tile[lid] += tile[lid + s]`) reads `4·lid` and `4·(lid + s)` and
//! writes `4·lid`; for two different lanes `a ≠ b` of the step (both `< s`) the write of `a` never meets a
//! read of `b`, so the only order that matters is each lane's own (program order), and the barrier
//! between the reads and the write can go.
//!
//! The proof is a forward analysis over the CFG of *claims* about the lanes that are active at the
//! kernel's start (E0; every other lane of the Vulkan workgroup has EXEC bit 0 there), in terms of X, the
//! lane's work-item id x (v0 at entry). It applies only to workgroups of shape `[n, 1, 1]`, where X
//! identifies the invocation: two different lanes of the workgroup have different X.
//!
//! * A VGPR claim `v = c·X + k (mod 2^32)` holds in the lanes of one EXEC version (`versions.rs`, shared
//!   with L44; D218): v0 starts as `X` in the launch EXEC's, [`ENTRY`]; a write under version h claims
//!   its value in h and keeps an older claim in a version around h only where the two agree. A claim is
//!   used where EXEC is inside its version. (Before D218 a write under any EXEC but the launch one lost
//!   its claim: rocPRIM computes its exchange addresses inside `s_and_saveexec` regions.)
//! * A mask may carry a range `lo ≤ X ≤ hi` of its lanes: a ballot of a compare of a claimed value with a
//!   constant narrows it (the ballot's bit is the old EXEC bit and the compare), AND keeps the smaller,
//!   OR and XOR the hull; EXEC made from a mask keeps its range. SGPRs hold masks and constants.
//! * At a block's start the claims are those its reached predecessors agree on (`versions.rs`); a fixed
//!   point over the CFG, abandoned (no claims at all) if it does not settle in [`MAX_SWEEPS`].
//!
//! An LDS access then has lanes `X ∈ [lo, hi]` and the byte address `c·X + k + offset`, exact when it
//! stays in `[0, 2^32)` over the range (then the 32-bit wrap-around is the identity). Two accesses
//! conflict when some lanes `a ≠ b` of them touch a common dword (each access widened to the dwords it
//! touches); with one slope `c` this is `c·(a − b)` in an interval, checked for every `a − b ≠ 0` the
//! ranges allow. Accesses that no lane performs, or that one single lane (the same) performs, never
//! conflict, whatever their addresses. Different slopes, an unknown address or an EXEC not inside the
//! launch one (it may hold lanes outside E0) count as a conflict. `lane_lds_fence` applies it only when
//! every access since the last barrier is in the current block (its start is clean, D106, or the barrier
//! is in it), so all of them are known.

use std::collections::{BTreeMap, BTreeSet};

use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{Handle, IntCmp, IntOp, Node, Program, Space, Ty, UnOp};

use super::versions::{Claim, Mask, Sgpr, Value, ENTRY};

/// Sweeps of the fixed point before the analysis gives up.
const MAX_SWEEPS: usize = 64;

/// Floor terms a claim may carry: `⌊X / 2^s⌋` for `s` in `1..FLOORS` (X < 1024 in a workgroup).
const FLOORS: usize = 11;

/// `c·X + k + Σ d[s]·⌊X / 2^s⌋ (mod 2^32)`, as u32 wrapping values (D222: the floor terms describe
/// `X >> s`, `X & (2^s - 1)` and the ORs of disjoint fields that rocPRIM's padded exchange addresses
/// `(X + (X >> 5)) << 3` and rocSPARSE's `((X >> 3) << 6) | ((X & 7) << 3)` are made of); `d[0]` is
/// unused. Without floor terms (`affine`), the claim and everything done with it are D120's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Aff {
    c: u32,
    k: u32,
    d: [u32; FLOORS],
}

fn aff(c: u32, k: u32) -> Aff {
    Aff {
        c,
        k,
        d: [0; FLOORS],
    }
}

impl Aff {
    fn affine(&self) -> bool {
        self.d.iter().all(|&x| x == 0)
    }

    /// A constant (`c = 0`, no floor terms).
    fn konst(&self) -> Option<u32> {
        (self.c == 0 && self.affine()).then_some(self.k)
    }

    /// The value at work-item `x`.
    fn at(&self, x: i64) -> u32 {
        let x = x as u32;
        let mut v = self.k.wrapping_add(self.c.wrapping_mul(x));
        for s in (1..FLOORS).filter(|&s| self.d[s] != 0) {
            v = v.wrapping_add(self.d[s].wrapping_mul(x >> s));
        }
        v
    }

    fn plus(&self, o: &Aff, sign: u32) -> Aff {
        let mut d = self.d;
        for (s, x) in d.iter_mut().enumerate() {
            *x = x.wrapping_add(o.d[s].wrapping_mul(sign));
        }
        Aff {
            c: self.c.wrapping_add(o.c.wrapping_mul(sign)),
            k: self.k.wrapping_add(o.k.wrapping_mul(sign)),
            d,
        }
    }

    fn times(&self, m: u32) -> Aff {
        Aff {
            c: self.c.wrapping_mul(m),
            k: self.k.wrapping_mul(m),
            d: self.d.map(|x| x.wrapping_mul(m)),
        }
    }

    /// `⌊X / 2^s⌋` exactly (this claim is X or `⌊X / 2^t⌋`, shifted right by `s`).
    fn shr(&self, s: u32) -> Option<Aff> {
        let t = if *self == aff(1, 0) {
            0
        } else {
            let mut terms = (1..FLOORS).filter(|&i| self.d[i] != 0);
            match (self.c, self.k, terms.next(), terms.next()) {
                (0, 0, Some(i), None) if self.d[i] == 1 => i,
                _ => return None,
            }
        };
        let u = t + s as usize;
        if u == 0 {
            return Some(aff(1, 0));
        }
        if u >= FLOORS {
            return Some(aff(0, 0));
        }
        let mut d = [0; FLOORS];
        d[u] = 1;
        Some(Aff { c: 0, k: 0, d })
    }
}

impl Claim for Aff {
    /// One affine value is claimed only where both sides agree.
    fn meet(&self, other: &Aff) -> Option<Aff> {
        (self == other).then_some(*self)
    }

    /// Two claims true of the same lanes: either says it all.
    fn refine(&self, _other: &Aff) -> Aff {
        *self
    }
}

/// The abstract value of a node.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
enum Abs {
    #[default]
    Unknown,
    /// A B32 value `c·X + k` in every active lane.
    Lane(Aff),
    /// A B1 condition that implies `lo ≤ X ≤ hi`.
    Cond(i64, i64),
    /// A lane mask (B32 or B64).
    Mask(Mask),
}

impl Value<Aff> for Abs {
    fn claim(&self) -> Option<Aff> {
        match self {
            Abs::Lane(a) => Some(*a),
            _ => None,
        }
    }

    fn held(&self) -> Option<Sgpr> {
        match self {
            Abs::Mask(m) => Some(Sgpr::Mask(m.clone())),
            Abs::Lane(a) if a.konst().is_some() => Some(Sgpr::Const(a.k as u64)),
            _ => None,
        }
    }
}

type State = super::versions::State<Aff>;

/// One LDS access: the lanes that may perform it (`lo ≤ X ≤ hi`) and the dwords it touches,
/// `c·X + w0 ..= c·X + w1`, or (D222, an address with floor terms) each lane's first and last dword,
/// lane `lo` first.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct LdsAcc {
    c: i64,
    w0: i64,
    w1: i64,
    lo: i64,
    hi: i64,
    dw: Option<Vec<(i64, i64)>>,
}

impl LdsAcc {
    /// Lane `x`'s first and last dword.
    fn dwords(&self, x: i64) -> (i64, i64) {
        match &self.dw {
            Some(d) => d[(x - self.lo) as usize],
            None => (self.c * x + self.w0, self.c * x + self.w1),
        }
    }
}

/// The analysis' answer: the LDS accesses it could describe, by node index.
#[derive(Default)]
pub(crate) struct LdsAddrs {
    acc: BTreeMap<usize, LdsAcc>,
    /// The lanes (`lo ≤ X ≤ hi`) of every LDS access whose EXEC is known, address known or not.
    lanes: BTreeMap<usize, (i64, i64)>,
    /// D272: the LDS accesses whose base address (the VGPR, before the instruction's offset) plus the
    /// offset and the access's bytes stays below 2^32 in every lane that performs it: the 32-bit sum
    /// `base + offset` does not wrap.
    fits: BTreeSet<usize>,
}

struct An<'a> {
    p: &'a Program,
    types: &'a Types,
    /// X ranges over `0..=xmax`.
    xmax: i64,
    ws: u32,
}

/// The abstract values of one instruction's nodes so far, by node index (the nodes of an instruction are
/// consecutive); a node of another instruction, or one not evaluated yet, is `T::default()` (unknown). One
/// vector reused for every instruction of a block (issue 31, D204: a map per instruction was most of the
/// analysis). Shared by L8 (here) and L44 (`sublane.rs`).
pub(crate) struct Vals<T> {
    first: usize,
    v: Vec<T>,
}

impl<T> Default for Vals<T> {
    fn default() -> Self {
        Vals {
            first: 0,
            v: Vec::new(),
        }
    }
}

impl<T: Clone + Default> Vals<T> {
    pub(crate) fn start(&mut self, first: usize) {
        self.first = first;
        self.v.clear();
    }

    pub(crate) fn push(&mut self, a: T) {
        self.v.push(a);
    }

    pub(crate) fn get(&self, i: usize) -> T {
        i.checked_sub(self.first)
            .and_then(|k| self.v.get(k))
            .cloned()
            .unwrap_or_default()
    }
}

impl An<'_> {
    fn ty(&self, h: Handle<Node>) -> Ty {
        self.types[h.index()].map_or(Ty::B32, |t| t.0)
    }

    /// The exact value of `a` at X (when `a` stays in `[0, 2^32)` over `lo..=hi` with some
    /// representative of `c` and `k`): the representatives.
    fn exact(&self, a: Aff, lo: i64, hi: i64) -> Option<(i64, i64)> {
        let cs = [a.c as i64, a.c as i32 as i64];
        let ks = [a.k as i64, a.k as i32 as i64];
        for c in cs {
            for k in ks {
                let (v0, v1) = (c * lo + k, c * hi + k);
                if v0.min(v1) >= 0 && v0.max(v1) < 1 << 32 {
                    return Some((c, k));
                }
            }
        }
        None
    }

    /// `x & y` of two claims: two constants fold; `f & m` with `m = 2^n - 1` is `f` when `f` is exact in
    /// `[0, m]` for every X of `0..=xmax` (v_mul_u32_u24's 24-bit operands: `(X & 0xffffff) * 28`).
    fn and_low(&self, x: Aff, y: Aff) -> Abs {
        if let (Some(a), Some(b)) = (x.konst(), y.konst()) {
            return Abs::Lane(aff(0, a & b));
        }
        let (f, m) = match (x.konst(), y.konst()) {
            (_, Some(m)) => (x, m),
            (Some(m), _) => (y, m),
            _ => return Abs::Unknown,
        };
        if m & m.wrapping_add(1) != 0 {
            return Abs::Unknown;
        }
        if f == aff(1, 0) && (m as i64) < self.xmax {
            // D222: X & (2^s - 1) = X - 2^s·⌊X / 2^s⌋.
            let s = m.count_ones();
            return match f.shr(s) {
                Some(q) => Abs::Lane(f.plus(&q.times(1 << s), u32::MAX)),
                None => Abs::Unknown,
            };
        }
        if !f.affine() {
            // D222: a value with floor terms that stays in [0, m] for every X is itself.
            return match (0..=self.xmax).all(|x| f.at(x) <= m) {
                true => Abs::Lane(f),
                false => Abs::Unknown,
            };
        }
        match self.exact(f, 0, self.xmax) {
            Some((c, k)) if (c * self.xmax + k).max(k) <= m as i64 => Abs::Lane(f),
            _ => Abs::Unknown,
        }
    }

    /// `x | y` of two claims: two constants fold; otherwise (D222) the sum, when no X of `0..=xmax` has
    /// a bit set in both.
    fn or_disjoint(&self, x: Aff, y: Aff) -> Abs {
        if let (Some(a), Some(b)) = (x.konst(), y.konst()) {
            return Abs::Lane(aff(0, a | b));
        }
        if (0..=self.xmax).all(|i| x.at(i) & y.at(i) == 0) {
            Abs::Lane(x.plus(&y, 1))
        } else {
            Abs::Unknown
        }
    }

    /// The X range a compare of a claimed value with a constant implies (lanes of E0, X in `0..=xmax`).
    fn cond(&self, op: IntCmp, a: Abs, b: Abs) -> Abs {
        // Normalise to `f(X) op K`.
        let (f, kc, op) = match (a, b) {
            (Abs::Lane(f), Abs::Lane(g)) if g.konst().is_some() => (f, g.k, op),
            (Abs::Lane(g), Abs::Lane(f)) if g.konst().is_some() => {
                let flipped = match op {
                    IntCmp::LtU => IntCmp::GtU,
                    IntCmp::LeU => IntCmp::GeU,
                    IntCmp::GtU => IntCmp::LtU,
                    IntCmp::GeU => IntCmp::LeU,
                    IntCmp::Eq => IntCmp::Eq,
                    _ => return Abs::Unknown,
                };
                (f, g.k, flipped)
            }
            _ => return Abs::Unknown,
        };
        if !f.affine() {
            // D222: the lanes where it holds, when they are one range.
            let holds = |x: i64| {
                let v = f.at(x);
                match op {
                    IntCmp::LtU => v < kc,
                    IntCmp::LeU => v <= kc,
                    IntCmp::GtU => v > kc,
                    IntCmp::GeU => v >= kc,
                    _ => v == kc,
                }
            };
            let Some(lo) = (0..=self.xmax).find(|&x| holds(x)) else {
                return Abs::Cond(1, 0);
            };
            let hi = (lo..=self.xmax)
                .take_while(|&x| holds(x))
                .last()
                .unwrap_or(lo);
            if (hi + 1..=self.xmax).any(holds) {
                return Abs::Unknown;
            }
            return Abs::Cond(lo, hi);
        }
        if f.c == 0 {
            return Abs::Unknown;
        }
        let Some((c, k)) = self.exact(f, 0, self.xmax) else {
            return Abs::Unknown;
        };
        if c <= 0 {
            return Abs::Unknown;
        }
        let kk = kc as i64; // unsigned compares: the constant as u32, f(X) exact in [0, 2^32)
                            // c·X + k op kk  <=>  X op' bound.
        let (lo, hi) = match op {
            IntCmp::LtU => (0, (kk - k - 1).div_euclid(c)),
            IntCmp::LeU => (0, (kk - k).div_euclid(c)),
            IntCmp::GtU => ((kk - k).div_euclid(c) + 1, self.xmax),
            IntCmp::GeU => ((kk - k + c - 1).div_euclid(c), self.xmax),
            IntCmp::Eq => {
                if (kk - k).rem_euclid(c) != 0 {
                    (1, 0)
                } else {
                    let x = (kk - k) / c;
                    (x, x)
                }
            }
            _ => return Abs::Unknown,
        };
        Abs::Cond(lo.max(0), hi.min(self.xmax))
    }

    /// `exec`: EXEC at the instruction's start.
    fn eval(&self, st: &State, vals: &Vals<Abs>, h: Handle<Node>, exec: &Mask) -> Abs {
        let get = |x: Handle<Node>| vals.get(x.index());
        let mask = |op: IntOp, a: Abs, b: Abs| match (op, a, b) {
            (IntOp::And, Abs::Mask(x), Abs::Mask(y)) => Abs::Mask(x.and(&y)),
            // A mask ANDed with anything: some of its lanes.
            (IntOp::And, Abs::Mask(x), _) | (IntOp::And, _, Abs::Mask(x)) => Abs::Mask(x.part()),
            (IntOp::Or, Abs::Mask(x), Abs::Mask(y)) => Abs::Mask(x.or(&y)),
            (IntOp::Xor, Abs::Mask(x), Abs::Mask(y)) => Abs::Mask(x.xor(&y)),
            _ => Abs::Unknown,
        };
        match self.p.nodes[h] {
            Node::Const { ty: Ty::B32, bits } => Abs::Lane(aff(0, bits as u32)),
            Node::ReadVgpr { reg, ty: Ty::B32 } => {
                st.usable(reg, exec).map_or(Abs::Unknown, Abs::Lane)
            }
            Node::ReadSgpr { reg, ty } => match st.read_sgpr(reg, ty) {
                Some(Sgpr::Mask(m)) => Abs::Mask(m),
                Some(Sgpr::Const(k)) if ty == Ty::B32 => Abs::Lane(aff(0, k as u32)),
                _ => Abs::Unknown,
            },
            Node::Int {
                op,
                ty: Ty::B32,
                a,
                b,
            } => match (op, get(a), get(b)) {
                (IntOp::Add, Abs::Lane(x), Abs::Lane(y)) => Abs::Lane(x.plus(&y, 1)),
                (IntOp::Sub, Abs::Lane(x), Abs::Lane(y)) => Abs::Lane(x.plus(&y, u32::MAX)),
                (IntOp::Mul, Abs::Lane(x), Abs::Lane(y))
                    if x.konst().is_some() || y.konst().is_some() =>
                {
                    let (f, m) = match y.konst() {
                        Some(m) => (x, m),
                        None => (y, x.k),
                    };
                    Abs::Lane(f.times(m))
                }
                (IntOp::Shl, Abs::Lane(x), Abs::Lane(y)) if y.konst().is_some() => {
                    Abs::Lane(x.times(1 << (y.k % 32)))
                }
                (IntOp::LShr, Abs::Lane(x), Abs::Lane(y)) if y.konst().is_some() => {
                    // D222: `X >> s` (or a shift of it, or of a constant) is a floor term.
                    let s = y.k % 32;
                    match x.konst() {
                        Some(k) => Abs::Lane(aff(0, k >> s)),
                        None => x.shr(s).map_or(Abs::Unknown, Abs::Lane),
                    }
                }
                (IntOp::Or, Abs::Lane(x), Abs::Lane(y)) => self.or_disjoint(x, y),
                (IntOp::And, Abs::Lane(x), Abs::Lane(y)) => self.and_low(x, y),
                (op, x, y) => mask(op, x, y),
            },
            Node::Int {
                op,
                ty: Ty::B64,
                a,
                b,
            } => mask(op, get(a), get(b)),
            Node::IntCmp {
                op,
                ty: Ty::B32,
                a,
                b,
            } => self.cond(op, get(a), get(b)),
            Node::Ballot { cond } => {
                // Bit = the lane's EXEC bit and `cond`.
                let range = match get(cond) {
                    Abs::Cond(lo, hi) => Some((lo, hi)),
                    _ => None,
                };
                Abs::Mask(Mask::ballot(exec, &st.exec, range))
            }
            Node::Unary {
                op: UnOp::Trunc | UnOp::ZExt,
                ty,
                a,
            } => match get(a) {
                // Bit positions stay; a wave64 mask cut to 32 bits loses lanes 32..63.
                Abs::Mask(m) => {
                    Abs::Mask(m.resized(ty.bits() >= self.ws && self.ty(a).bits() >= self.ws))
                }
                _ => Abs::Unknown,
            },
            _ => Abs::Unknown,
        }
    }

    /// Runs block `b` from `st`; with `out`, records its LDS accesses.
    fn block(&self, b: usize, mut st: State, mut out: Option<&mut LdsAddrs>) -> State {
        let blk = &self.p.blocks[Handle::from_index(b)];
        let mut vals = Vals::default();
        for inst in &blk.insts {
            let exec = st.exec.clone();
            vals.start(inst.nodes.start as usize);
            for (h, n) in self.p.inst_nodes(inst) {
                let v = self.eval(&st, &vals, h, &exec);
                vals.push(v);
                if let Node::WriteVgpr { value, .. } | Node::WriteSgpr { value, .. } = *n {
                    let val = vals.get(value.index());
                    st.apply(n, self.ty(value), &val, h.index(), &exec);
                }
                let Some(o) = out.as_deref_mut() else {
                    continue;
                };
                // Only lanes of E0 have distinct work-item ids.
                let (Some((addr, offset, bytes)), true) =
                    (lds_access(self.p, self.types, h), exec.sup.contains(&ENTRY))
                else {
                    continue;
                };
                let (lo, hi) = exec.range.unwrap_or((0, self.xmax));
                let (lo, hi) = (lo.max(0), hi.min(self.xmax));
                o.lanes.insert(h.index(), (lo, hi));
                if let (true, Abs::Lane(a)) = (lo <= hi, vals.get(addr.index())) {
                    if let Some(acc) = self.access(a, offset, bytes, lo, hi) {
                        o.acc.insert(h.index(), acc);
                    }
                    if offset >= 0
                        && (lo..=hi).all(|x| i64::from(a.at(x)) + offset + bytes <= 1 << 32)
                    {
                        o.fits.insert(h.index());
                    }
                }
            }
        }
        st
    }

    /// The dwords an access at `a + offset` of `bytes` bytes touches, over lanes `lo..=hi`.
    fn access(&self, a: Aff, offset: i64, bytes: i64, lo: i64, hi: i64) -> Option<LdsAcc> {
        let a = Aff {
            k: a.k.wrapping_add(offset as u32),
            ..a
        };
        if !a.affine() {
            // D222: the dwords of every lane, enumerated (the byte address as the lane computes it, mod
            // 2^32; its last byte must not wrap).
            let mut dw = Vec::with_capacity((hi - lo + 1) as usize);
            for x in lo..=hi {
                let b = a.at(x) as i64;
                if b + bytes > 1 << 32 {
                    return None;
                }
                dw.push((b.div_euclid(4), (b + bytes - 1).div_euclid(4)));
            }
            return Some(LdsAcc {
                c: 0,
                w0: 0,
                w1: 0,
                lo,
                hi,
                dw: Some(dw),
            });
        }
        let (c, k) = self.exact(a, lo, hi)?;
        // The last byte must not wrap either.
        if c * lo + k + bytes > 1 << 32 || c * hi + k + bytes > 1 << 32 {
            return None;
        }
        if c.rem_euclid(4) != 0 {
            return None;
        }
        Some(LdsAcc {
            c: c / 4,
            w0: k.div_euclid(4),
            w1: (k + bytes - 1).div_euclid(4),
            lo,
            hi,
            dw: None,
        })
    }
}

/// `(addr, offset, bytes)` of an LDS access node.
fn lds_access(p: &Program, types: &Types, h: Handle<Node>) -> Option<(Handle<Node>, i64, i64)> {
    match p.nodes[h] {
        Node::Load {
            space: Space::Lds,
            access,
            addr,
            offset,
        }
        | Node::LoadIf {
            space: Space::Lds,
            access,
            addr,
            offset,
            ..
        }
        | Node::Store {
            space: Space::Lds,
            access,
            addr,
            offset,
            ..
        }
        | Node::StoreIf {
            space: Space::Lds,
            access,
            addr,
            offset,
            ..
        } => Some((addr, offset, access.bytes() as i64)),
        Node::Atomic {
            space: Space::Lds,
            addr,
            offset,
            value,
            ..
        }
        | Node::AtomicIf {
            space: Space::Lds,
            addr,
            offset,
            value,
            ..
        } => {
            let bytes = match types[value.index()].map(|t| t.0) {
                Some(Ty::B64) => 8,
                _ => 4,
            };
            Some((addr, offset, bytes))
        }
        _ => None,
    }
}

/// A forward analysis over the CFG to its fixed point: the start state of every block reached from
/// block 0 (which starts from `entry`), running each block with `run` from its start state and joining
/// the states that meet at a block with `join`; `None` when it does not settle in [`MAX_SWEEPS`]. A
/// block is run again only when its start changed since (the run is a function of the start; issue 31,
/// D204). `join` also gets the block where the states meet. Shared by L8 (here) and L44 (`sublane.rs`).
pub(crate) fn forward<S: Clone + PartialEq>(
    p: &Program,
    entry: S,
    run: impl Fn(usize, S) -> S,
    join: impl Fn(&S, &S, usize) -> S,
) -> Option<Vec<Option<S>>> {
    let n = p.blocks.len();
    let mut start: Vec<Option<S>> = vec![None; n];
    start[0] = Some(entry.clone());
    let mut ends: Vec<Option<S>> = vec![None; n];
    for _ in 0..MAX_SWEEPS {
        let mut changed = false;
        for b in 0..n {
            let Some(s) = &start[b] else {
                continue;
            };
            let end = match ends[b].take() {
                Some(e) => e,
                None => run(b, s.clone()),
            };
            let mut again = false;
            for succ in p.blocks[Handle::from_index(b)].terminator.successors() {
                let mut new = match &start[succ] {
                    None => end.clone(),
                    Some(old) => join(old, &end, succ),
                };
                if succ == 0 {
                    new = join(&new, &entry, 0);
                }
                if start[succ].as_ref() != Some(&new) {
                    start[succ] = Some(new);
                    changed = true;
                    ends[succ] = None;
                    again |= succ == b;
                }
            }
            if !again {
                ends[b] = Some(end);
            }
        }
        if !changed {
            return Some(start);
        }
    }
    None
}

impl LdsAddrs {
    /// The analysis of `p` for a workgroup of `workgroup` work-items; empty (every access unknown) when
    /// the workgroup is not `[n, 1, 1]` or the fixed point does not settle.
    pub(crate) fn of(p: &Program, types: &Types, workgroup: [u32; 3], wave_size: u32) -> Self {
        let mut out = LdsAddrs::default();
        if workgroup[1] != 1 || workgroup[2] != 1 || workgroup[0] == 0 {
            return out;
        }
        let an = An {
            p,
            types,
            xmax: workgroup[0] as i64 - 1,
            ws: wave_size,
        };
        let mut entry = State::entry(wave_size, Some((0, an.xmax)));
        entry.vgpr.insert(0, [(ENTRY, aff(1, 0))].into());
        let Some(start) = forward(p, entry, |b, s| an.block(b, s, None), State::join) else {
            return out;
        };
        for (b, s) in start.into_iter().enumerate() {
            if let Some(s) = s {
                an.block(b, s, Some(&mut out));
            }
        }
        out
    }

    /// The LDS accesses the analysis describes (the plan's L8 entries), by node, as text: the dwords
    /// each lane `X` touches and the lanes that perform it.
    pub(crate) fn described(&self) -> Vec<(usize, String)> {
        self.acc
            .iter()
            .map(|(&k, a)| {
                let text = match &a.dw {
                    None => format!(
                        "dwords {}*X+{}..={}*X+{} for lanes X in {}..={}",
                        a.c, a.w0, a.c, a.w1, a.lo, a.hi
                    ),
                    Some(_) => {
                        let (f0, f1) = a.dwords(a.lo);
                        let (l0, l1) = a.dwords(a.hi);
                        format!(
                            "dwords enumerated per lane ({f0}..={f1} at X = {}, {l0}..={l1} at X = {}) for lanes X in {}..={}",
                            a.lo, a.hi, a.lo, a.hi
                        )
                    }
                };
                (k, text)
            })
            .collect()
    }

    /// L47 (D248): whether every lane that performs LDS access `node` stays inside the kernel's
    /// `lds_bytes`: no lane performs it (its lanes known, none), or the dwords it touches are described
    /// and lie in `0..lds_bytes / 4`. Checked mode then needs no bounds test for it: the test could not
    /// fail (the evaluator faults an LDS access exactly when its bytes pass `lds_bytes`).
    pub(crate) fn within(&self, node: usize, lds_bytes: u32) -> bool {
        if let Some(&(lo, hi)) = self.lanes.get(&node) {
            if lo > hi {
                return true;
            }
        }
        let Some(a) = self.acc.get(&node) else {
            return false;
        };
        // Dwords `0..words` hold bytes `0..lds_bytes` only (a partial last dword is not inside).
        let words = i64::from(lds_bytes / 4);
        let inside = |(d0, d1): (i64, i64)| d0 >= 0 && d1 < words;
        match &a.dw {
            Some(d) => d.iter().all(|&w| inside(w)),
            // The dwords move with X by a constant slope: the first and last lanes bound them.
            None => inside(a.dwords(a.lo)) && inside(a.dwords(a.hi)),
        }
    }

    /// D272: whether `base + offset` of LDS access `node` cannot wrap around 2^32 in any lane that performs
    /// it (its lanes' base addresses described; none when its lanes are not known).
    pub(crate) fn fits(&self, node: usize) -> bool {
        self.fits.contains(&node)
    }

    /// Whether some lane's access `w` may touch a dword that another lane's access `r` touches (true when
    /// either is not described; false when no lane performs one of them or a single lane, the same,
    /// performs both, whatever the addresses).
    pub(crate) fn conflict(&self, w: usize, r: usize) -> bool {
        if let (Some(&(l0, h0)), Some(&(l1, h1))) = (self.lanes.get(&w), self.lanes.get(&r)) {
            // No lane performs one of them, or both are one and the same lane (program order).
            if l0 > h0 || l1 > h1 || (l0 == h0 && l1 == h1 && l0 == l1) {
                return false;
            }
        }
        let (Some(w), Some(r)) = (self.acc.get(&w), self.acc.get(&r)) else {
            return true;
        };
        conflict(w, r)
    }
}

/// Some `a ≠ b`, `a` in `w`'s lanes, `b` in `r`'s, whose dwords meet.
pub(crate) fn conflict(w: &LdsAcc, r: &LdsAcc) -> bool {
    if w.lo > w.hi || r.lo > r.hi {
        return false;
    }
    if w.dw.is_some() || r.dw.is_some() {
        return conflict_enumerated(w, r);
    }
    if w.c != r.c {
        return true;
    }
    // [c·a + w.w0, c·a + w.w1] meets [c·b + r.w0, c·b + r.w1]  <=>  r.w0 - w.w1 <= c·(a - b) <= r.w1 - w.w0.
    let (lo, hi) = (r.w0 - w.w1, r.w1 - w.w0);
    for m in (w.lo - r.hi)..=(w.hi - r.lo) {
        if m != 0 && (lo..=hi).contains(&(w.c * m)) {
            return true;
        }
    }
    false
}

/// [`conflict`] by enumeration (D222): each dword `w`'s lanes touch, with the lane (or two different
/// lanes), then each of `r`'s lanes against them.
fn conflict_enumerated(w: &LdsAcc, r: &LdsAcc) -> bool {
    // dword -> (a lane, another lane if two different lanes touch it).
    let mut by: crate::hash::HashMap<i64, (i64, Option<i64>)> = Default::default();
    for a in w.lo..=w.hi {
        let (d0, d1) = w.dwords(a);
        for d in d0..=d1 {
            let e = by.entry(d).or_insert((a, None));
            if e.0 != a {
                e.1 = Some(a);
            }
        }
    }
    for b in r.lo..=r.hi {
        let (d0, d1) = r.dwords(b);
        for d in d0..=d1 {
            if let Some(&(a, other)) = by.get(&d) {
                if a != b || other.is_some() {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dwords each lane touches, enumerated: the oracle for [`conflict`].
    fn brute(w: &LdsAcc, r: &LdsAcc) -> bool {
        for a in w.lo..=w.hi {
            for b in r.lo..=r.hi {
                if a == b {
                    continue;
                }
                let (wa, wb) = (w.c * a + w.w0, w.c * a + w.w1);
                let (ra, rb) = (r.c * b + r.w0, r.c * b + r.w1);
                if wa <= rb && ra <= wb {
                    return true;
                }
            }
        }
        false
    }

    /// Every small case of one slope against the enumeration (different slopes always conflict).
    #[test]
    fn conflict_matches_enumeration() {
        let mut n = 0;
        for c in -3..=3i64 {
            for w0 in -6..=6i64 {
                for len in 0..=1i64 {
                    for (lo, hi) in [(0, 0), (0, 3), (2, 9), (5, 4), (0, 15)] {
                        for (rlo, rhi) in [(0, 0), (1, 7), (0, 15), (8, 12)] {
                            let w = LdsAcc {
                                c,
                                w0: 0,
                                w1: len,
                                lo,
                                hi,
                                dw: None,
                            };
                            let r = LdsAcc {
                                c,
                                w0,
                                w1: w0 + len,
                                lo: rlo,
                                hi: rhi,
                                dw: None,
                            };
                            assert_eq!(conflict(&w, &r), brute(&w, &r), "{w:?} {r:?}");
                            n += 1;
                        }
                    }
                }
            }
        }
        assert!(n > 1000);
        let w = LdsAcc {
            c: 1,
            w0: 0,
            w1: 0,
            lo: 0,
            hi: 3,
            dw: None,
        };
        let r = LdsAcc { c: 2, ..w.clone() };
        assert!(conflict(&w, &r), "different slopes are not compared");
    }

    /// The tree step of a reduction: lanes X < s read X and X + s and write X (dwords).
    #[test]
    fn tree_step_is_disjoint_and_a_shift_is_not() {
        for s in [1i64, 2, 16, 64] {
            let w = LdsAcc {
                c: 1,
                w0: 0,
                w1: 0,
                lo: 0,
                hi: s - 1,
                dw: None,
            };
            let far = LdsAcc {
                w0: s,
                w1: s,
                ..w.clone()
            };
            assert!(!conflict(&w, &w), "s = {s}");
            assert!(!conflict(&w, &far), "s = {s}");
            // With lane s writing too, lane 0's read of X + s meets lane s's write.
            let wider = LdsAcc { hi: s, ..w.clone() };
            assert!(conflict(&wider, &far), "s = {s}");
        }
    }

    /// D222: claims with floor terms against the values computed lane by lane, over a 256-lane
    /// workgroup: `X >> 3`, `X & 7`, rocSPARSE's `((X >> 3) << 6) | ((X & 7) << 3)` (which is `8·X`),
    /// rocPRIM's padded `(X + (X >> 5)) << 3`; an OR of overlapping fields and a mask of a value that
    /// exceeds it stay unknown.
    #[test]
    fn floor_terms_follow_shifts_masks_and_disjoint_ors() {
        let p = Program::default();
        let types: Types = Vec::new();
        let an = An {
            p: &p,
            types: &types,
            xmax: 255,
            ws: 32,
        };
        let x = aff(1, 0);
        let lane = |a: &Abs| match a {
            Abs::Lane(f) => *f,
            other => panic!("not a claim: {other:?}"),
        };
        let shr3 = x.shr(3).unwrap();
        let and7 = lane(&an.and_low(x, aff(0, 7)));
        let field = lane(&an.or_disjoint(shr3.times(64), and7.times(8)));
        let padded = x.plus(&x.shr(5).unwrap(), 1).times(8);
        for i in 0..=255i64 {
            let u = i as u32;
            assert_eq!(shr3.at(i), u >> 3);
            assert_eq!(and7.at(i), u & 7);
            assert_eq!(field.at(i), ((u >> 3) << 6) | ((u & 7) << 3));
            assert_eq!(field.at(i), 8 * u);
            assert_eq!(padded.at(i), (u + (u >> 5)) << 3);
            assert_eq!(x.shr(3).unwrap().shr(2).unwrap().at(i), u >> 5);
        }
        assert!(
            matches!(an.or_disjoint(x, x.times(2)), Abs::Unknown),
            "X | 2X share bits"
        );
        assert!(matches!(an.and_low(padded, aff(0, 255)), Abs::Unknown));
        // A compare of a floor-term value: the lanes where it holds, when they are one range.
        assert!(matches!(
            an.cond(IntCmp::LtU, Abs::Lane(shr3), Abs::Lane(aff(0, 4))),
            Abs::Cond(0, 31)
        ));
        assert!(matches!(
            an.cond(IntCmp::LtU, Abs::Lane(and7), Abs::Lane(aff(0, 4))),
            Abs::Unknown
        ));
    }

    /// D222: the enumerated conflict test against the pairwise enumeration, on accesses whose dwords
    /// follow floor terms (one dword or two per lane, lanes in ranges that overlap or not).
    #[test]
    fn enumerated_conflict_matches_pairs_of_lanes() {
        let brute = |w: &LdsAcc, r: &LdsAcc| {
            (w.lo..=w.hi).any(|a| {
                (r.lo..=r.hi).any(|b| {
                    let ((wa, wb), (ra, rb)) = (w.dwords(a), r.dwords(b));
                    a != b && wa <= rb && ra <= wb
                })
            })
        };
        let table = |f: &dyn Fn(i64) -> i64, len: i64, lo: i64, hi: i64| LdsAcc {
            c: 0,
            w0: 0,
            w1: 0,
            lo,
            hi,
            dw: Some((lo..=hi).map(|x| (f(x), f(x) + len)).collect()),
        };
        let shapes: [&dyn Fn(i64) -> i64; 5] = [
            &|x| 2 * x,
            &|x| 2 * (x + (x >> 5)),
            &|x| x >> 1,
            &|x| (x & 7) * 8 + (x >> 3),
            &|x| 100 - x,
        ];
        let mut n = 0;
        for f in shapes {
            for g in shapes {
                for len in 0..=1 {
                    for (lo, hi) in [(0, 0), (0, 63), (3, 40)] {
                        for (rlo, rhi) in [(0, 63), (5, 5), (40, 80)] {
                            let w = table(f, len, lo, hi);
                            let r = table(g, len, rlo, rhi);
                            assert_eq!(conflict(&w, &r), brute(&w, &r));
                            let affine = LdsAcc {
                                c: 2,
                                w0: 0,
                                w1: len,
                                lo: rlo,
                                hi: rhi,
                                dw: None,
                            };
                            assert_eq!(conflict(&w, &affine), brute(&w, &affine));
                            n += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(n, 450);
    }

    /// L47: `within` holds exactly when every lane's dwords lie below `lds_bytes / 4` and none below 0
    /// (the oracle: each lane's dwords from the access's own formula, against the byte bound); no lane
    /// at all is inside; an undescribed address never is.
    #[test]
    fn within_holds_only_when_every_lane_stays_inside() {
        let affine = |c, w0, w1, lo, hi| LdsAcc {
            c,
            w0,
            w1,
            lo,
            hi,
            dw: None,
        };
        let cases = [
            // One dword a lane, lanes 0..=63: dwords 0..=63.
            affine(1, 0, 0, 0, 63),
            // Descending: lane X at 63 - X.
            affine(-1, 63, 63, 0, 63),
            // Two dwords a lane (a b64 at 8X + 4): 2X + 1 ..= 2X + 2.
            affine(2, 1, 2, 0, 31),
            // Below zero for lane 0.
            affine(1, -1, -1, 0, 63),
            // One lane only, high up.
            affine(0, 63, 63, 5, 5),
            // Enumerated: a padded layout whose last lane ends at dword 64.
            LdsAcc {
                c: 0,
                w0: 0,
                w1: 0,
                lo: 0,
                hi: 2,
                dw: Some(vec![(0, 0), (33, 33), (64, 64)]),
            },
        ];
        for (k, acc) in cases.iter().enumerate() {
            for lds_bytes in [252u32, 254, 256, 258, 260, 1024] {
                let mut a = LdsAddrs::default();
                a.lanes.insert(k, (acc.lo, acc.hi));
                a.acc.insert(k, acc.clone());
                let oracle = (acc.lo..=acc.hi).all(|x| {
                    let (d0, d1) = match &acc.dw {
                        Some(d) => d[(x - acc.lo) as usize],
                        None => (acc.c * x + acc.w0, acc.c * x + acc.w1),
                    };
                    d0 >= 0 && 4 * d1 + 4 <= i64::from(lds_bytes)
                });
                assert_eq!(
                    a.within(k, lds_bytes),
                    oracle,
                    "case {k}, {lds_bytes} bytes"
                );
            }
        }
        // Hand-worked: 64 dwords fill 256 bytes; 254 and 252 bytes leave lane 63's dword outside.
        let mut a = LdsAddrs::default();
        a.acc.insert(0, affine(1, 0, 0, 0, 63));
        assert!(a.within(0, 256) && a.within(0, 258) && !a.within(0, 254) && !a.within(0, 252));
        // No lane performs it: inside whatever its address; lanes known but no address: not inside.
        a.lanes.insert(1, (5, 4));
        a.lanes.insert(2, (0, 3));
        assert!(a.within(1, 0) && !a.within(2, 1 << 16) && !a.within(3, 1 << 16));
    }

    /// Accesses of one and the same single lane are in program order whatever their addresses; any
    /// second lane with an unknown address conflicts.
    #[test]
    fn one_lane_alone_never_conflicts() {
        let mut a = LdsAddrs::default();
        a.lanes.insert(1, (0, 0));
        a.lanes.insert(2, (0, 0));
        a.lanes.insert(3, (0, 1));
        a.lanes.insert(4, (5, 4));
        assert!(!a.conflict(1, 2));
        assert!(a.conflict(1, 3));
        assert!(!a.conflict(3, 4), "no lane performs access 4");
        assert!(a.conflict(1, 5), "access 5 is not described");
    }
}
