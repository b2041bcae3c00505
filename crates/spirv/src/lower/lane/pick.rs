//! Lane picks as one slot read (D188).
//!
//! The lifter composes a per-lane read of another lane (DPP, permlane, swizzle: D020) as the wave's
//! lanes read one by one (`ReadLane { a, lane: k }` for every constant k) and a multiplexer tree of
//! selects on the bits of the per-lane index. The lane mapping exchanges `a` through workgroup memory
//! either way; read leaf by leaf, each such instruction loads every slot of the wave (64 loads and 63
//! selects in wave64), and lavapipe turns each load into a loop over its SIMD lanes, which makes the
//! coroutine frame of a kernel with barriers slow to build (issue 31). Here the tree's root reads the
//! one slot its index names, `slot[base + (idx & (wave size - 1))]`:
//! the value the tree selects, by construction, and the leaves and inner selects are not emitted.

use crate::hash::{HashMap, HashSet};

use rdna2spv_ir::{Handle, IntCmp, IntOp, Node, Program, Terminator, Ty, UnOp, EXEC_LO};
use spirv::Word;

use super::super::{operands, Cx, R};

/// The program's pick trees whose inner nodes are used only inside their tree.
#[derive(Debug, Default)]
pub(crate) struct Picks {
    /// Root select -> (the value read across lanes, the per-lane index).
    pub(crate) roots: HashMap<usize, (Handle<Node>, Handle<Node>)>,
    /// The leaves (ReadLane) and inner selects of those trees: not emitted.
    pub(crate) inner: HashSet<usize>,
    /// The same nodes by the root of their tree.
    pub(crate) members: HashMap<usize, Vec<usize>>,
    /// The values read by the leaves, the slot of the latest exchange that carried each.
    pub(crate) bases: HashMap<usize, super::Slot>,
    /// Uses of each node (operands and branch conditions; empty when the wave size has no trees).
    pub(crate) uses: Vec<u32>,
}

impl Picks {
    pub(crate) fn of(p: &Program) -> Picks {
        let ws = p.wave_size;
        if !ws.is_power_of_two() || ws < 2 {
            return Picks::default();
        }
        let levels = ws.trailing_zeros();
        let mut uses = vec![0u32; p.nodes.len()];
        for (_, n) in p.nodes.iter() {
            for o in operands(n) {
                uses[o.index()] += 1;
            }
        }
        for (_, b) in p.blocks.iter() {
            if let Terminator::Branch { cond, .. } = b.terminator {
                uses[cond.index()] += 1;
            }
        }
        let mut picks = Picks::default();
        // Roots before their subtrees (a root is created after its tree).
        let nodes: Vec<Handle<Node>> = p.nodes.iter().map(|(h, _)| h).collect();
        for &h in nodes.iter().rev() {
            if picks.inner.contains(&h.index()) {
                continue;
            }
            let mut inner = Vec::new();
            let Some((a, idx)) = tree(p, h, levels, 0, &mut inner) else {
                continue;
            };
            // Every inner node is used once (by its parent in the tree), and no node of the tree is
            // already inside another tree.
            if inner
                .iter()
                .all(|&i| uses[i] == 1 && !picks.inner.contains(&i))
            {
                picks.inner.extend(inner.iter().copied());
                picks.members.insert(h.index(), inner);
                picks.roots.insert(h.index(), (a, idx));
            }
        }
        picks.uses = uses;
        picks
    }
}

/// The parts of the lifter's bit test `((a >> b) & 1) != 0`.
struct BitOf {
    /// The compared type.
    ty: Ty,
    a: Handle<Node>,
    shift: Handle<Node>,
    and: Handle<Node>,
    b: Handle<Node>,
}

/// `c` as `((a >> b) & 1) != 0`, the lifter's bit test.
fn bit_of(p: &Program, c: Handle<Node>) -> Option<BitOf> {
    let konst =
        |h: Handle<Node>, v: u64| matches!(p.nodes[h], Node::Const { bits, .. } if bits == v);
    let Node::IntCmp {
        op: IntCmp::Ne,
        ty,
        a: and,
        b: z,
    } = p.nodes[c]
    else {
        return None;
    };
    let Node::Int {
        op: IntOp::And,
        a: sh,
        b: one,
        ..
    } = p.nodes[and]
    else {
        return None;
    };
    let Node::Int {
        op: IntOp::LShr,
        a,
        b,
        ..
    } = p.nodes[sh]
    else {
        return None;
    };
    (konst(z, 0) && konst(one, 1)).then_some(BitOf {
        ty,
        a,
        shift: sh,
        and,
        b,
    })
}

/// Whether `c` is `((idx >> bit) & 1) != 0` in 32 bits (a pick tree's select on bit `bit` of its
/// index), giving idx.
fn bit_test(p: &Program, c: Handle<Node>, bit: u32) -> Option<Handle<Node>> {
    let t = bit_of(p, c)?;
    (t.ty == Ty::B32 && matches!(p.nodes[t.b], Node::Const { bits, .. } if bits == bit as u64))
        .then_some(t.a)
}

/// `c` as `((x >> idx) & 1) != 0`, the lifter's test of bit `idx` of a mask `x` (D020: a bpermute's
/// source lane in EXEC): `x` B32 or B64, `idx` a B32 value (zero-extended for a B64 test). Gives [x, the
/// shift, the AND, idx]. L44 (`sublane.rs`) and L48 ([`ZeroPicks`]) add their own conditions.
pub(crate) fn mask_bit_test(
    p: &Program,
    types: &rdna2spv_ir::verify::Types,
    c: Handle<Node>,
) -> Option<[Handle<Node>; 4]> {
    let BitOf {
        ty,
        a: x,
        shift: sh,
        and,
        b: amt,
    } = bit_of(p, c)?;
    let idx = match (ty, &p.nodes[amt]) {
        (Ty::B32, _) => amt,
        (
            Ty::B64,
            &Node::Unary {
                op: UnOp::ZExt, a, ..
            },
        ) if types[a.index()].is_some_and(|t| t.0 == Ty::B32) => a,
        _ => return None,
    };
    Some([x, sh, and, idx])
}

/// Whether `h` selects, by bits `height-1 .. 0` of one index, among `ReadLane { a, lane: first + j }`
/// for j in `0 .. 2^height` (the leaf j where the bits read j); collects the tree's nodes below the
/// root into `inner`. Gives (a, idx).
fn tree(
    p: &Program,
    h: Handle<Node>,
    height: u32,
    first: u64,
    inner: &mut Vec<usize>,
) -> Option<(Handle<Node>, Handle<Node>)> {
    let Node::Select { cond, a: hi, b: lo } = p.nodes[h] else {
        return None;
    };
    let idx = bit_test(p, cond, height - 1)?;
    let half = 1u64 << (height - 1);
    let sides = [(lo, first), (hi, first + half)];
    let mut read = None;
    for (side, start) in sides {
        let got = if height == 1 {
            match p.nodes[side] {
                Node::ReadLane { a, lane } if matches!(p.nodes[lane], Node::Const { ty: Ty::B32, bits } if bits == start) => {
                    (a, idx)
                }
                _ => return None,
            }
        } else {
            tree(p, side, height - 1, start, inner)?
        };
        if got.1 != idx || read.is_some_and(|r| r != got.0) {
            return None;
        }
        read = Some(got.0);
        inner.push(side.index());
    }
    Some((read?, idx))
}

impl Cx<'_> {
    /// Whether node `i` is a leaf or inner select of a pick tree (lane mapping only).
    pub(crate) fn lane_pick_inner(&self, i: usize) -> bool {
        if self.sub.zero.tests.contains(&i) {
            return true; // D278: the select reads the zeroed slot
        }
        if let Some(&c) = self.sub.test_inner.get(&i) {
            // L44: the shift and AND of a bit test whose mask is own bits only: the compare shuffles.
            if self.lane_own_only(self.sub.tests[&c].0.index()) {
                return true;
            }
        }
        self.lm.as_ref().is_some_and(|m| m.picks.inner.contains(&i))
    }

    /// The value of pick root `i` (None: `i` is no pick root): the slot its index names in the latest
    /// exchange, which carried the value its leaves read.
    pub(crate) fn lane_pick(&mut self, i: usize) -> R<Option<Word>> {
        if let Some(&r) = self.sub.zero.sels.get(&i) {
            // D278: the root's slot holds 0 for the lanes outside EXEC.
            return Ok(Some(self.get(Handle::from_index(r))?));
        }
        if let Some(&(x, idx)) = self.sub.tests.get(&i) {
            if !self.lane_own_only(x.index()) {
                return Ok(None);
            }
            // L44: bit idx of an own-bits mask is that lane's own bit (shuffled as 0 or 1).
            let t = self.t;
            let bit = self.own_bit(x.index())?;
            let (one, zero) = (self.c32(1), self.c32(0));
            let w = self.b.select(t.u32, None, bit, one, zero)?;
            let got = self.lane_shuffle_word(t.u32, w, idx)?;
            return Ok(Some(self.b.i_not_equal(t.bool, None, got, zero)?));
        }
        let Some(&(a, idx)) = self.lm.as_ref().and_then(|m| m.picks.roots.get(&i)) else {
            return Ok(None);
        };
        if self.sub.roots.contains(&i) {
            return self.lane_shuffle(a, idx).map(Some);
        }
        let Some(&base) = self.lm().picks.bases.get(&a.index()) else {
            // No exchange carried `a` (a uniform value's ReadLanes are uniform nodes, not captures):
            // the tree as it is, from its leaves' values.
            return Ok(Some(self.lane_pick_tree(Handle::from_index(i))?));
        };
        let l = self.get(idx)?;
        let m = self.c32(self.ws - 1);
        let l = self.b.bitwise_and(self.t.u32, None, l, m)?;
        let w = self.lane_slot(base, l)?;
        Ok(Some(self.lane_unslot(a, w)?))
    }

    /// L44 (D217): the value of `a` in the lane `idx` names, read from the reader's own block of
    /// `sub.size` lanes by `OpGroupNonUniformShuffle` (the subgroup's local id of a lane is its index in
    /// the block: the profile measured the layout, and the Vulkan workgroup is whole waves).
    fn lane_shuffle(&mut self, a: Handle<Node>, idx: Handle<Node>) -> R<Word> {
        let x = self.get(a)?;
        let ty = self.spv_ty(self.ty(a.index()));
        self.lane_shuffle_word(ty, x, idx)
    }

    /// `x` (of SPIR-V type `ty`) of the lane of this invocation's block that `idx` names.
    fn lane_shuffle_word(&mut self, ty: Word, x: Word, idx: Handle<Node>) -> R<Word> {
        self.lane_shuffle_caps();
        let l = self.get(idx)?;
        let m = self.c32(self.sub.size - 1);
        let l = self.b.bitwise_and(self.t.u32, None, l, m)?;
        let scope = self.c32(spirv::Scope::Subgroup as u32);
        let v = self.b.group_non_uniform_shuffle(ty, None, scope, x, l)?;
        self.lm_mut().shuffles += 1;
        Ok(v)
    }

    /// A pick tree's selects emitted as they stand (the lowering without D188).
    fn lane_pick_tree(&mut self, h: Handle<Node>) -> R<Word> {
        let i = h.index();
        let is_tree = self.lm().picks.roots.contains_key(&i) || self.lm().picks.inner.contains(&i);
        match self.p.nodes[h] {
            Node::Select { cond, a, b } if is_tree => {
                let c = self.get(cond)?;
                let x = self.lane_pick_tree(a)?;
                let y = self.lane_pick_tree(b)?;
                let ty = self.spv_ty(self.ty(i));
                Ok(self.b.select(ty, None, c, x, y)?)
            }
            _ => self.get(h),
        }
    }
}

/// D278: `ds_bpermute_b32`'s picks whose exchange stores zero for the lanes outside EXEC.
///
/// The lifter writes a bpermute as `select(((EXEC >> idx) & 1) != 0, pick(a, idx), 0)`: the source
/// lane's value, or 0 where the source lane is not active. Reading the source lane's EXEC bit needs EXEC
/// whole in every lane, which the lane mapping forms by an exchange of the lanes' own bits (a ballot,
/// lane/masks.rs), and then costs a shift, an AND, a compare and a select per pick. When the exchange
/// that carries `a` stores `active ? a : 0` instead (the lane's own EXEC bit at that instruction), the
/// slot the pick reads is already the select's value: no whole EXEC, no test.
///
/// A pick qualifies when its root is read by that select alone, the test reads EXEC of the pick's own
/// instruction at the pick's own index, the shift, AND and compare are read by the test alone, `a` is a
/// 32-bit lane value, every `ReadLane` of `a` in the program is a leaf of such a pick and no
/// `ReadFirstLane` reads it (so every slot of `a` any exchange stores is read only through such selects). The exchange must run under the
/// pick's EXEC: at the pick's own instruction, or (L35) at an earlier one with no EXEC write between
/// them (the plan does not carry these values past one).
#[derive(Debug, Default)]
pub(crate) struct ZeroPicks {
    /// The values whose exchanges store zero outside EXEC.
    pub(crate) vals: HashSet<usize>,
    /// The selects that are their pick's slot read → the pick root.
    pub(crate) sels: HashMap<usize, usize>,
    /// The tests' shifts, ANDs and compares: not emitted, and (lane/masks.rs) no whole read of EXEC.
    pub(crate) tests: HashSet<usize>,
}

impl ZeroPicks {
    /// The qualifying picks of `p` among `picks` (`shuffled`: roots read by a subgroup shuffle, L44,
    /// which exchange nothing; `off`: values the plan found carried past an EXEC write).
    pub(crate) fn of(
        p: &Program,
        types: &rdna2spv_ir::verify::Types,
        picks: &Picks,
        shuffled: &HashSet<usize>,
        off: &HashSet<usize>,
    ) -> ZeroPicks {
        let mut out = ZeroPicks::default();
        if picks.roots.is_empty() {
            return out;
        }
        let konst =
            |h: Handle<Node>, v: u64| matches!(p.nodes[h], Node::Const { bits, .. } if bits == v);
        let lane32 =
            |h: Handle<Node>| types[h.index()] == Some((Ty::B32, rdna2spv_ir::Shape::Lane));
        let uses = &picks.uses;
        // The instruction of every node (its first node).
        let mut inst_of = vec![usize::MAX; p.nodes.len()];
        for (_, b) in p.blocks.iter() {
            for inst in &b.insts {
                for i in inst.nodes.clone() {
                    inst_of[i as usize] = inst.nodes.start as usize;
                }
            }
        }
        let mask_ty = if p.wave_size == 32 { Ty::B32 } else { Ty::B64 };
        // The user of each pick root read once.
        let mut user = HashMap::default();
        for (h, n) in p.nodes.iter() {
            for o in operands(n) {
                if picks.roots.contains_key(&o.index()) && uses[o.index()] == 1 {
                    user.insert(o.index(), h.index());
                }
            }
        }
        // The test `((x >> idx) & 1) != 0` of EXEC read in instruction `at`, its three nodes.
        let test = |c: Handle<Node>, idx: Handle<Node>, at: usize| -> Option<[usize; 3]> {
            let [x, sh, and, i] = mask_bit_test(p, types, c)?;
            let x = match p.nodes[x] {
                Node::Unary {
                    op: UnOp::ZExt, a, ..
                } if types[x.index()].is_some_and(|t| t.0 == Ty::B64) => a,
                _ => x,
            };
            let exec = matches!(p.nodes[x], Node::ReadSgpr { reg, ty: t } if reg == EXEC_LO && t == mask_ty)
                && inst_of[x.index()] == at;
            (i == idx && exec && [c, and, sh].iter().all(|h| uses[h.index()] == 1)).then_some([
                c.index(),
                and.index(),
                sh.index(),
            ])
        };
        let mut cands: HashMap<usize, (usize, [usize; 3])> = HashMap::default();
        for (&r, &(a, idx)) in &picks.roots {
            if shuffled.contains(&r) || !lane32(a) || off.contains(&a.index()) {
                continue;
            }
            let Some(&s) = user.get(&r) else { continue };
            let Node::Select { cond, a: x, b: z } = p.nodes[Handle::from_index(s)] else {
                continue;
            };
            if x.index() != r || !konst(z, 0) || inst_of[s] != inst_of[r] {
                continue;
            }
            if let Some(t) = test(cond, idx, inst_of[s]) {
                cands.insert(r, (s, t));
            }
        }
        // Every ReadLane of a qualifying value is a leaf of a candidate.
        let mut leaves: HashSet<usize> = HashSet::default();
        for r in cands.keys() {
            leaves.extend(picks.members[r].iter().copied());
        }
        let mut bad: HashSet<usize> = HashSet::default();
        for (h, n) in p.nodes.iter() {
            match *n {
                Node::ReadLane { a, .. } if !leaves.contains(&h.index()) => {
                    bad.insert(a.index());
                }
                // It reads the same slots (lane 0's when EXEC is 0, which may be outside EXEC).
                Node::ReadFirstLane { a } => {
                    bad.insert(a.index());
                }
                _ => {}
            }
        }
        for (r, (s, t)) in cands {
            let a = picks.roots[&r].0.index();
            if bad.contains(&a) {
                continue;
            }
            out.vals.insert(a);
            out.sels.insert(s, r);
            out.tests.extend(t);
        }
        out
    }
}
