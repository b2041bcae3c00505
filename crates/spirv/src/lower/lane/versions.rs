//! EXEC versions: which lanes a claim about a VGPR holds in (shared by L8, `ldsaddr.rs`, and L44,
//! `sublane.rs`; decisions D217, D218).
//!
//! Both analyses claim facts about VGPR values that hold in *some* lanes: those that wrote the value.
//! A write under a narrowed EXEC changes only the active lanes, so a claim is tied to the EXEC it was
//! made under, and used only where the current EXEC lies inside it:
//!
//! * EXEC is one *version* (an id) with the set of versions known to contain it. Entry: the launch EXEC
//!   ([`ENTRY`]). A compare into EXEC (`v_cmpx`, `s_and_saveexec`) makes a new version inside the
//!   current one; `s_or_b32 exec_lo, exec_lo, s4` where EXEC is inside the mask saved in `s4` makes EXEC
//!   that mask's version again (the OR of a subset is the superset); any other EXEC write makes a
//!   version with only the supersets its value has. Where two paths meet with different EXEC versions,
//!   the block starts with a version of its own inside both paths' common supersets.
//! * A VGPR write under version h gives the claim (new value, h); each older claim (v, w) becomes
//!   (v ⊓ new, w): the lanes of w outside h kept v, those inside took the new value.
//! * A mask may also carry a range `lo..=hi` of the work-item id X that its lanes have (L8: a ballot of
//!   `X < s`), kept through AND (the intersection), OR and XOR (the hull).

use std::collections::{BTreeMap, BTreeSet};

use rdna2spv_ir::{Node, Sreg, Ty, Vreg, EXEC_LO};

/// The launch EXEC's version.
pub(crate) const ENTRY: u32 = u32::MAX;
/// Version ids of block starts where paths with different EXEC versions meet: `JOIN - block`.
const JOIN: u32 = u32::MAX - 1;

/// What an analysis claims about a VGPR's value in the lanes of a version.
pub(crate) trait Claim: Clone + PartialEq {
    /// What is still true where some lanes hold `self` and the others `other` (None: nothing).
    fn meet(&self, other: &Self) -> Option<Self>;
    /// Two claims true of the same lanes, as one.
    fn refine(&self, other: &Self) -> Self;
}

/// An analysis' abstract value of a node, as far as the registers it is written to keep it.
pub(crate) trait Value<V> {
    /// What a one-word VGPR holding it is claimed to be.
    fn claim(&self) -> Option<V>;
    /// What an SGPR holding it keeps.
    fn held(&self) -> Option<Sgpr>;
}

/// A lane mask: equal to version `eq` (when known), inside every version of `sup`, and (when known)
/// holding only lanes whose work-item id X is in `range`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Mask {
    pub(crate) eq: Option<u32>,
    pub(crate) sup: BTreeSet<u32>,
    pub(crate) range: Option<(i64, i64)>,
}

fn hull(a: Option<(i64, i64)>, b: Option<(i64, i64)>) -> Option<(i64, i64)> {
    match (a, b) {
        (Some((l0, h0)), Some((l1, h1))) => Some((l0.min(l1), h0.max(h1))),
        _ => None,
    }
}

fn inter(a: Option<(i64, i64)>, b: Option<(i64, i64)>) -> Option<(i64, i64)> {
    match (a, b) {
        (Some((l0, h0)), Some((l1, h1))) => Some((l0.max(l1), h0.min(h1))),
        (x, None) | (None, x) => x,
    }
}

impl Mask {
    /// Some lanes of `self`: inside its versions, in its range.
    pub(crate) fn part(&self) -> Mask {
        Mask {
            eq: None,
            sup: self.sup.clone(),
            range: self.range,
        }
    }

    pub(crate) fn and(&self, y: &Mask) -> Mask {
        if self.eq.is_some() && self.eq == y.eq {
            return Mask {
                range: inter(self.range, y.range),
                ..self.clone()
            };
        }
        Mask {
            eq: None,
            sup: self.sup.union(&y.sup).copied().collect(),
            range: inter(self.range, y.range),
        }
    }

    pub(crate) fn or(&self, y: &Mask) -> Mask {
        match (self.eq, y.eq) {
            (Some(e), _) if y.sup.contains(&e) => self.clone(),
            (_, Some(e)) if self.sup.contains(&e) => y.clone(),
            _ => self.xor(y),
        }
    }

    /// Some lanes of `self` or `y` (an XOR: never a version, `x ^ x` is empty).
    pub(crate) fn xor(&self, y: &Mask) -> Mask {
        Mask {
            eq: None,
            sup: self.sup.intersection(&y.sup).copied().collect(),
            range: hull(self.range, y.range),
        }
    }

    /// `self` or `y`, either one (a select between them, a join of paths).
    pub(crate) fn either(&self, y: &Mask) -> Mask {
        if self == y {
            return self.clone();
        }
        self.xor(y)
    }

    /// A ballot: the lanes of the EXEC it reads (the instruction's, `inst`, or the current one: both
    /// are allowed for) where a condition holds that implies `cond` (a range of X), when known.
    pub(crate) fn ballot(inst: &Mask, cur: &Mask, cond: Option<(i64, i64)>) -> Mask {
        Mask {
            eq: None,
            sup: inst.sup.intersection(&cur.sup).copied().collect(),
            range: inter(hull(inst.range, cur.range), cond),
        }
    }

    /// The same lanes seen through a narrower or wider word: `keep_eq` when every lane's bit stays.
    pub(crate) fn resized(&self, keep_eq: bool) -> Mask {
        if keep_eq {
            self.clone()
        } else {
            self.part()
        }
    }

    fn join(&self, b: &Mask, fresh: u32) -> Mask {
        if self == b {
            return self.clone();
        }
        let mut sup: BTreeSet<u32> = self.sup.intersection(&b.sup).copied().collect();
        let eq = if self.eq == b.eq {
            self.eq
        } else {
            sup.insert(fresh);
            Some(fresh)
        };
        Mask {
            eq,
            sup,
            range: hull(self.range, b.range),
        }
    }
}

/// What an SGPR holds: a mask, or a known value (the same in every lane).
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Sgpr {
    Mask(Mask),
    Const(u64),
}

/// EXEC, the claims about VGPRs, and the masks and constants held in SGPRs.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct State<V> {
    /// EXEC: always a version (`eq` set).
    pub(crate) exec: Mask,
    /// Claims per VGPR: by version, the value every lane of that version holds; only versions EXEC may
    /// still be inside ([`State::live`]) are kept.
    pub(crate) vgpr: BTreeMap<Vreg, BTreeMap<u32, V>>,
    /// Masks and constants held in SGPRs (first word, type).
    pub(crate) sgpr: BTreeMap<Sreg, (Ty, Sgpr)>,
    /// Lanes per wave.
    ws: u32,
}

impl<V: Claim> State<V> {
    /// The launch state: EXEC is [`ENTRY`], whose lanes have X in `range` when given.
    pub(crate) fn entry(ws: u32, range: Option<(i64, i64)>) -> Self {
        State {
            exec: Mask {
                eq: Some(ENTRY),
                sup: BTreeSet::from([ENTRY]),
                range,
            },
            vgpr: BTreeMap::new(),
            sgpr: BTreeMap::new(),
            ws,
        }
    }

    fn exec_ty(&self) -> Ty {
        if self.ws == 64 {
            Ty::B64
        } else {
            Ty::B32
        }
    }

    /// What an SGPR read gives: EXEC (or its low word: some of its lanes), or what is held there.
    pub(crate) fn read_sgpr(&self, reg: Sreg, ty: Ty) -> Option<Sgpr> {
        if reg == EXEC_LO {
            if ty == self.exec_ty() {
                return Some(Sgpr::Mask(self.exec.clone()));
            }
            if ty == Ty::B32 {
                return Some(Sgpr::Mask(self.exec.part()));
            }
        }
        match self.sgpr.get(&reg) {
            Some((t, v)) if *t == ty => Some(v.clone()),
            _ => None,
        }
    }

    /// An SGPR write (None: nothing known); `node` names a new EXEC version.
    fn write_sgpr(&mut self, reg: Sreg, ty: Ty, v: Option<Sgpr>, node: usize) {
        let fresh = |range| Mask {
            eq: Some(node as u32),
            sup: BTreeSet::from([node as u32]),
            range,
        };
        if reg == EXEC_LO && ty == self.exec_ty() {
            self.exec = match v {
                Some(Sgpr::Mask(m)) if m.eq.is_some() => m,
                Some(Sgpr::Mask(m)) => {
                    let mut sup = m.sup;
                    sup.insert(node as u32);
                    Mask {
                        eq: Some(node as u32),
                        sup,
                        range: m.range,
                    }
                }
                _ => fresh(None),
            };
            // Masks saved as "EXEC's version" stay what they were.
            return;
        }
        let words = if ty == Ty::B64 { 2 } else { 1 };
        let hit: Vec<Sreg> = self
            .sgpr
            .range(reg.saturating_sub(1)..reg + words)
            .filter(|(&r, (t, _))| r + if *t == Ty::B64 { 2 } else { 1 } > reg)
            .map(|(&r, _)| r)
            .collect();
        for r in hit {
            self.sgpr.remove(&r);
        }
        let exec_words = if self.ws == 64 { 2 } else { 1 };
        if reg < EXEC_LO + exec_words && reg + words > EXEC_LO {
            // A partial write of EXEC: a version with no known superset.
            self.exec = fresh(None);
            return;
        }
        if let (Some(v), Ty::B32 | Ty::B64) = (v, ty) {
            self.sgpr.insert(reg, (ty, v));
        }
    }

    /// Node `n` (index `node`) under EXEC `exec` (the instruction's): a register write of a value of
    /// type `ty` abstracted as `val` changes the state (applied in order: a later read in the same
    /// instruction sees it); any other node changes nothing.
    pub(crate) fn apply<A: Value<V>>(
        &mut self,
        n: &Node,
        ty: Ty,
        val: &A,
        node: usize,
        exec: &Mask,
    ) {
        match *n {
            Node::WriteVgpr { reg, .. } => {
                let words = if ty == Ty::B64 { 2 } else { 1 };
                let claim = if ty == Ty::B32 { val.claim() } else { None };
                self.write_vgpr(reg, words, claim, exec);
            }
            Node::WriteSgpr { reg, .. } => self.write_sgpr(reg, ty, val.held(), node),
            _ => {}
        }
    }

    /// A VGPR write under EXEC `exec` (the instruction's) of `words` words whose value is claimed to be
    /// `new` (None: nothing claimed; only one-word values are claimed).
    fn write_vgpr(&mut self, reg: Vreg, words: Vreg, new: Option<V>, exec: &Mask) {
        let (1, Some(new)) = (words, new) else {
            for r in reg..reg.saturating_add(words) {
                self.vgpr.remove(&r);
            }
            return;
        };
        let h = exec.eq.expect("EXEC is a version");
        let live = self.live();
        let old = self.vgpr.remove(&reg).unwrap_or_default();
        // The lanes of h take the new value; every other lane of an older claim's version keeps its.
        let mut claims: BTreeMap<u32, V> = old
            .into_iter()
            .filter(|(w, _)| *w != h && live.contains(w))
            .filter_map(|(w, v)| Some((w, v.meet(&new)?)))
            .collect();
        claims.insert(h, new);
        self.vgpr.insert(reg, claims);
    }

    /// What the claims about `reg` say of the lanes active under `exec` (every claim whose version
    /// contains it is true there).
    pub(crate) fn usable(&self, reg: Vreg, exec: &Mask) -> Option<V> {
        usable(self.vgpr.get(&reg)?, exec)
    }

    /// The versions EXEC may be inside from here on: its own supersets, and those of the masks held in
    /// SGPRs (EXEC restored from one of them).
    fn live(&self) -> BTreeSet<u32> {
        let mut out = self.exec.sup.clone();
        for (_, v) in self.sgpr.values() {
            if let Sgpr::Mask(m) = v {
                out.extend(m.sup.iter().copied());
            }
        }
        out
    }

    /// The state where `a` and `b` meet at the start of `block`.
    pub(crate) fn join(a: &Self, b: &Self, block: usize) -> Self {
        let fresh = JOIN - block as u32;
        let exec = a.exec.join(&b.exec, fresh);
        let mut vgpr = BTreeMap::new();
        let eq = exec.eq.expect("a version");
        for (r, ca) in &a.vgpr {
            let Some(cb) = b.vgpr.get(r) else {
                continue;
            };
            let mut claims: BTreeMap<u32, V> = BTreeMap::new();
            // Claims of one version on both sides.
            for (w, va) in ca {
                if let Some(m) = cb.get(w).and_then(|vb| va.meet(vb)) {
                    claims.insert(*w, m);
                }
            }
            // The value each side's active lanes hold, for the joined EXEC.
            if let (Some(va), Some(vb)) = (usable(ca, &a.exec), usable(cb, &b.exec)) {
                if let Some(m) = va.meet(&vb) {
                    let m = match claims.get(&eq) {
                        Some(old) => old.refine(&m),
                        None => m,
                    };
                    claims.insert(eq, m);
                }
            }
            if !claims.is_empty() {
                vgpr.insert(*r, claims);
            }
        }
        let mut sgpr = BTreeMap::new();
        for (r, (t, va)) in &a.sgpr {
            let j = match (va, b.sgpr.get(r)) {
                (Sgpr::Mask(ma), Some((t2, Sgpr::Mask(mb)))) if t == t2 => {
                    Sgpr::Mask(ma.either(mb))
                }
                (_, Some((t2, vb))) if t == t2 && va == vb => va.clone(),
                _ => continue,
            };
            sgpr.insert(*r, (*t, j));
        }
        let mut st = State {
            exec,
            vgpr,
            sgpr,
            ws: a.ws,
        };
        let live = st.live();
        for cs in st.vgpr.values_mut() {
            cs.retain(|w, _| live.contains(w));
        }
        st.vgpr.retain(|_, cs| !cs.is_empty());
        st
    }
}

fn usable<V: Claim>(cs: &BTreeMap<u32, V>, exec: &Mask) -> Option<V> {
    let mut out: Option<V> = None;
    for (w, v) in cs {
        if exec.sup.contains(w) {
            out = Some(match out {
                None => v.clone(),
                Some(o) => o.refine(v),
            });
        }
    }
    out
}
