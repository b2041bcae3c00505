//! Checked mode without records (D184, D189): which SGPR pair a global access's address was formed from,
//! so that its bounds test compares against one allocation — the one holding that pair's value, chosen
//! where the pair is written — instead of against every allocation.
//!
//! The analysis is a heuristic and needs no proof: the narrowed test `a - base < bound` of one
//! allocation passes only for an access inside that allocation, whatever allocation was chosen, so it
//! never lets an out-of-bounds access through. It can fail for an access that is inside another
//! allocation (a pointer formed from one buffer's base that reaches into another, or a pair that holds
//! no allocation's address): the run then reports `FLAG_OOB` and the runner re-runs with the module with
//! records, whose test is against every allocation (exact, as before) and whose outcome is what `run`
//! reports (src/device.rs). So a wrong guess costs a second run, never a wrong result.
//!
//! Tags, forward over the CFG to a fixed point: a 32-bit value is `Sg(r)` when it is SGPR `r` plus or
//! minus values formed from no SGPR (lane offsets, constants, the low half of a 64-bit add), a 64-bit
//! value `Pair(r)` when it is SGPR pair `r`, `r + 1` plus such values; VGPRs carry their tags from
//! block to block (so `v[7:8] = s[10:11] + 4j`, stepped by 4 in a loop, keeps `Pair(10)`). clang's
//! 64-bit address adds are two 32-bit adds with a carry (v_add_co_u32 / v_add_co_ci_u32): the low half
//! tags `Sg(r)`, the high half `Sg(r + 1)`, and a 64-bit read of the VGPR pair gives `Pair(r)`.

use std::collections::{BTreeMap, BTreeSet};

use crate::hash::HashMap;

use rdna2spv_ir::{Handle, IntOp, Node, Program, Space, Ty, UnOp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    /// Formed from no SGPR.
    None,
    /// 32-bit: SGPR `r` plus untagged values.
    Sg(u16),
    /// 64-bit: SGPR pair `r`, `r + 1` plus untagged values.
    Pair(u16),
    /// Formed from more than one, or not followed.
    Top,
}

fn join(a: Tag, b: Tag) -> Tag {
    if a == b {
        a
    } else {
        Tag::Top
    }
}

/// The sum of two tagged values.
fn add(a: Tag, b: Tag) -> Tag {
    match (a, b) {
        (Tag::None, x) | (x, Tag::None) => x,
        _ => Tag::Top,
    }
}

/// The VGPR tags at a program point (absent: `Tag::None`).
type State = BTreeMap<u16, Tag>;

fn join_states(a: &State, b: &State) -> State {
    let mut out = State::new();
    for k in a.keys().chain(b.keys()) {
        let x = a.get(k).copied().unwrap_or(Tag::None);
        let y = b.get(k).copied().unwrap_or(Tag::None);
        let j = join(x, y);
        if j != Tag::None {
            out.insert(*k, j);
        }
    }
    out
}

/// The global accesses whose 64-bit address is an SGPR pair plus values formed from no SGPR: access
/// node → the pair's low register. `ty(i)` is node `i`'s type.
pub(super) fn base_pairs(p: &Program, ty: &dyn Fn(usize) -> Ty) -> HashMap<usize, u16> {
    let n = p.blocks.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (h, b) in p.blocks.iter() {
        for s in b.terminator.successors() {
            preds[s].push(h.index());
        }
    }
    let mut entry: Vec<Option<State>> = vec![None; n];
    let mut exit: Vec<Option<State>> = vec![None; n];
    entry[p.entry().index()] = Some(State::new());
    let mut out = HashMap::default();
    // Round-robin to a fixed point: the tags only rise (None/Sg/Pair → Top); a bounded number of rounds
    // guards against anything else.
    for _ in 0..(4 * n + 8) {
        let mut changed = false;
        for bi in 0..n {
            let mut st: Option<State> = if bi == p.entry().index() {
                Some(State::new())
            } else {
                None
            };
            for &q in &preds[bi] {
                if let Some(x) = &exit[q] {
                    st = Some(match st {
                        None => x.clone(),
                        Some(s) => join_states(&s, x),
                    });
                }
            }
            let Some(st) = st else { continue };
            if entry[bi].as_ref() == Some(&st) && exit[bi].is_some() {
                continue;
            }
            entry[bi] = Some(st.clone());
            let mut st = st;
            let block = &p.blocks[Handle::from_index(bi)];
            let mut tags: HashMap<usize, Tag> = HashMap::default();
            for inst in &block.insts {
                for i in inst.nodes.clone() {
                    let i = i as usize;
                    let node = &p.nodes[Handle::from_index(i)];
                    let tag = |h: Handle<rdna2spv_ir::Node>| {
                        tags.get(&h.index()).copied().unwrap_or(Tag::None)
                    };
                    let t = match *node {
                        Node::ReadSgpr { reg, ty: Ty::B32 } => Tag::Sg(reg),
                        Node::ReadSgpr { reg, ty: Ty::B64 } => Tag::Pair(reg),
                        Node::ReadVgpr { reg, ty: Ty::B32 } => {
                            st.get(&reg).copied().unwrap_or(Tag::None)
                        }
                        Node::ReadVgpr { reg, ty: Ty::B64 } => {
                            let lo = st.get(&reg).copied().unwrap_or(Tag::None);
                            let hi = st.get(&(reg + 1)).copied().unwrap_or(Tag::None);
                            match (lo, hi) {
                                (Tag::Sg(a), Tag::Sg(b)) if b == a + 1 => Tag::Pair(a),
                                (Tag::None, Tag::None) => Tag::None,
                                _ => Tag::Top,
                            }
                        }
                        Node::Int { op, a, b, .. } => match op {
                            IntOp::Add => add(tag(a), tag(b)),
                            IntOp::Sub if tag(b) == Tag::None => tag(a),
                            _ if tag(a) == Tag::None && tag(b) == Tag::None => Tag::None,
                            _ => Tag::Top,
                        },
                        Node::Unary {
                            op: UnOp::ZExt | UnOp::SExt | UnOp::Trunc,
                            a,
                            ..
                        } => tag(a),
                        Node::Unary { a, .. } => {
                            if tag(a) == Tag::None {
                                Tag::None
                            } else {
                                Tag::Top
                            }
                        }
                        Node::Extract { a, shift, .. } => match (tag(a), shift) {
                            (x, 0) => match x {
                                Tag::Pair(r) => Tag::Sg(r),
                                x => x,
                            },
                            (Tag::Pair(r), 32) => Tag::Sg(r + 1),
                            (Tag::None, _) => Tag::None,
                            // The carry out of a 32-bit add: not an address.
                            (Tag::Sg(_), _) => Tag::None,
                            _ => Tag::Top,
                        },
                        Node::Concat { lo, hi } => match (tag(lo), tag(hi)) {
                            (Tag::Sg(a), Tag::Sg(b)) if b == a + 1 => Tag::Pair(a),
                            (Tag::None, Tag::None) => Tag::None,
                            _ => Tag::Top,
                        },
                        Node::Select { a, b, .. } => join(tag(a), tag(b)),
                        Node::WriteVgpr { reg, value } => {
                            let v = tag(value);
                            if ty(value.index()) == Ty::B64 {
                                let (lo, hi) = match v {
                                    Tag::Pair(r) => (Tag::Sg(r), Tag::Sg(r + 1)),
                                    Tag::None => (Tag::None, Tag::None),
                                    _ => (Tag::Top, Tag::Top),
                                };
                                set(&mut st, reg, lo);
                                set(&mut st, reg + 1, hi);
                            } else {
                                set(&mut st, reg, v);
                            }
                            Tag::None
                        }
                        Node::Load {
                            space: Space::Global,
                            addr,
                            ..
                        }
                        | Node::Store {
                            space: Space::Global,
                            addr,
                            ..
                        }
                        | Node::LoadIf {
                            space: Space::Global,
                            addr,
                            ..
                        }
                        | Node::StoreIf {
                            space: Space::Global,
                            addr,
                            ..
                        }
                        | Node::Atomic {
                            space: Space::Global,
                            addr,
                            ..
                        }
                        | Node::AtomicIf {
                            space: Space::Global,
                            addr,
                            ..
                        } => {
                            match tag(addr) {
                                Tag::Pair(r) if ty(addr.index()) == Ty::B64 => {
                                    out.insert(i, r);
                                }
                                _ => {
                                    out.remove(&i);
                                }
                            }
                            Tag::None
                        }
                        _ => Tag::None,
                    };
                    if t != Tag::None {
                        tags.insert(i, t);
                    }
                }
            }
            if exit[bi].as_ref() != Some(&st) {
                exit[bi] = Some(st);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    out
}

fn set(st: &mut State, reg: u16, t: Tag) {
    if t == Tag::None {
        st.remove(&reg);
    } else {
        st.insert(reg, t);
    }
}

/// Which blocks are inside a loop: those from a retreating edge's target back to its source (a superset
/// of the loop where the CFG is irreducible).
pub(super) fn loop_blocks(p: &Program) -> Vec<bool> {
    let cfg = rdna2spv_ir::cfg::Cfg::new(p);
    let n = p.blocks.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (h, b) in p.blocks.iter() {
        for s in b.terminator.successors() {
            preds[s].push(h.index());
        }
    }
    let mut in_loop = vec![false; n];
    for (u, v) in cfg.retreating_edges() {
        in_loop[v] = true;
        let mut work = vec![u];
        let mut seen = vec![false; n];
        while let Some(b) = work.pop() {
            if b == v || seen[b] {
                continue;
            }
            seen[b] = true;
            in_loop[b] = true;
            work.extend(preds[b].iter().copied());
        }
    }
    in_loop
}

/// Where narrowing pays (D189): choosing a pair's allocation costs a compare and two selects per
/// allocation at each write of the pair, and saves about as much per access. So only accesses inside a
/// loop are narrowed, and only for pairs that no instruction inside a loop writes; the others keep the
/// test against every allocation. Returns `bases` so filtered.
pub(super) fn worth_narrowing(
    p: &Program,
    ty: &dyn Fn(usize) -> Ty,
    bases: HashMap<usize, u16>,
) -> HashMap<usize, u16> {
    let in_loop = loop_blocks(p);
    let mut looped_nodes = BTreeSet::new();
    let mut written = BTreeSet::new();
    for (h, b) in p.blocks.iter() {
        if !in_loop[h.index()] {
            continue;
        }
        for inst in &b.insts {
            for i in inst.nodes.clone() {
                looped_nodes.insert(i as usize);
                if let Node::WriteSgpr { reg, value } = p.nodes[Handle::from_index(i as usize)] {
                    let last = reg + if ty(value.index()) == Ty::B64 { 1 } else { 0 };
                    written.extend(reg..=last);
                }
            }
        }
    }
    bases
        .into_iter()
        .filter(|&(i, r)| {
            looped_nodes.contains(&i) && !written.contains(&r) && !written.contains(&(r + 1))
        })
        .collect()
}
