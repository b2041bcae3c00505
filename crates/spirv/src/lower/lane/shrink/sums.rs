//! Rewrite `a`'s 64-bit sums and shifts on words put together again (decision D274).
//!
//! The lifting computes `v_add_co_u32` + `v_add_co_ci_u32` on words (the carry between them, D220) and a
//! 64-bit shift by a constant on the halves (D229); the rewrites make the add `OpIAddCarry` and its two
//! members (D182). Where the two words are then put together as a u64 again (an address for
//! `OpConvertUToPtr`, D205's pairs), the module carries per 64-bit address about 55 words (the shifted
//! halves' four operations, the carry add, its two members, the high word's two adds, the pair and its
//! bitcast) for what one u64 shift and one u64 add of the two register pairs say in about 32.
//! [`wide_sums`] recognizes such a pair as a tree of u64 sums and shifts of word pairs and computes it
//! so.

use crate::hash::HashMap;

use rspirv::dr::{Function, Instruction, Module, Operand};
use spirv::{Op, Word};

use super::{constants, decorated_ids, dominators, id, uint_type};

/// How deep [`Sums::tree`] looks through sums and shifts.
const DEPTH: u32 = 6;

/// A u64 value made of word pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tree {
    /// The pair `(lo, hi)` as it is: `bitcast64((lo, hi))`.
    Leaf(Word, Word),
    /// The wrapping sum of two, and the ids of the word operations that made it.
    Add(Box<Tree>, Box<Tree>, Vec<Word>),
    /// Shifted left by a constant in `1..32`, and the ids of the word operations that made it.
    Shl(Box<Tree>, u32, Vec<Word>),
}

impl Tree {
    /// Sums and shifts in it (a leaf has none).
    fn ops(&self) -> usize {
        match self {
            Tree::Leaf(..) => 0,
            Tree::Add(a, b, _) => 1 + a.ops() + b.ops(),
            Tree::Shl(a, _, _) => 1 + a.ops(),
        }
    }

    /// The ids of the word operations of its sums and shifts.
    fn parts(&self, out: &mut Vec<Word>) {
        match self {
            Tree::Leaf(..) => {}
            Tree::Add(a, b, p) => {
                out.extend(p);
                a.parts(out);
                b.parts(out);
            }
            Tree::Shl(a, _, p) => {
                out.extend(p);
                a.parts(out);
            }
        }
    }
}

/// One definition: opcode, result type, id operands, the literal of a one-index `OpCompositeExtract`.
struct Def {
    op: Op,
    ty: Word,
    ops: Vec<Word>,
    index: Option<u32>,
    /// Its words.
    words: usize,
}

/// What [`Sums::tree`] reads.
struct Sums<'a> {
    defs: &'a HashMap<Word, Def>,
    consts: &'a HashMap<Word, u64>,
    u32_: Word,
    u64_: Word,
    /// The module's u32 constant 0, if it has one (the high word of a zero-extended addend).
    zero: Option<Word>,
}

/// How a leaf `(lo, hi)` becomes a u64.
enum LeafForm {
    /// Both words constants: the u64 constant.
    Const(u64),
    /// `hi` is 0: `uconvert64(lo)`.
    Zext,
    /// The words of one 64-bit value `x` (`repack` makes `bitcast64((lo, hi))` `x`).
    Words,
    /// `bitcast64((lo, hi))`.
    Pair,
}

impl Sums<'_> {
    fn def(&self, x: Word) -> Option<&Def> {
        self.defs.get(&x)
    }

    /// `x` is member `k` of `OpIAddCarry`: the add.
    fn member(&self, x: Word, k: u32) -> Option<Word> {
        let d = self.def(x)?;
        let c = self.def(*d.ops.first()?)?;
        (d.op == Op::CompositeExtract && d.index == Some(k) && c.op == Op::IAddCarry)
            .then_some(d.ops[0])
    }

    /// The addends of a 32-bit `OpIAdd` tree two levels deep (an operand that is no `OpIAdd` is one),
    /// and the adds passed through.
    fn addends(&self, x: Word, depth: u32, out: &mut Vec<Word>, adds: &mut Vec<Word>) {
        match self.def(x) {
            Some(d) if depth > 0 && d.op == Op::IAdd && d.ty == self.u32_ => {
                adds.push(x);
                for &o in &d.ops {
                    self.addends(o, depth - 1, out, adds);
                }
            }
            _ => out.push(x),
        }
    }

    /// The 64-bit value `w` is word `k` of: `uconvert32(x)` (0), `uconvert32(x >> 32)` (1), component `k`
    /// of a bitcast of a 64-bit `x` to two words.
    fn word_of(&self, w: Word) -> Option<(Word, u32)> {
        let d = self.def(w)?;
        match d.op {
            Op::UConvert => match self.def(d.ops[0]) {
                Some(s)
                    if s.op == Op::ShiftRightLogical && self.consts.get(&s.ops[1]) == Some(&32) =>
                {
                    Some((s.ops[0], 1))
                }
                Some(s) if s.ty == self.u64_ => Some((d.ops[0], 0)),
                _ => None,
            },
            Op::CompositeExtract => {
                let b = self.def(d.ops[0])?;
                let x = self.def(b.ops[0])?;
                (b.op == Op::Bitcast && x.ty == self.u64_ && b.ops.len() == 1)
                    .then_some((b.ops[0], d.index?))
            }
            _ => None,
        }
    }

    fn leaf_form(&self, lo: Word, hi: Word) -> LeafForm {
        match (self.consts.get(&lo), self.consts.get(&hi)) {
            (Some(&l), Some(&h)) if self.def(lo).is_none() && self.def(hi).is_none() => {
                return LeafForm::Const((h << 32) | (l & 0xffff_ffff))
            }
            (_, Some(0)) => return LeafForm::Zext,
            _ => {}
        }
        match (self.word_of(lo), self.word_of(hi)) {
            (Some((a, 0)), Some((b, 1))) if a == b => LeafForm::Words,
            _ => LeafForm::Pair,
        }
    }

    /// The words the u64 of `t` costs: a pair's vector and bitcast 9 (none where `avail` says its u64
    /// is already computed there), a zero extension 4, a constant or the words of one value 0; each sum
    /// and shift 5.
    fn cost(&self, t: &Tree, avail: &dyn Fn(Word, Word) -> bool) -> usize {
        match t {
            Tree::Leaf(lo, hi) => match self.leaf_form(*lo, *hi) {
                LeafForm::Const(_) | LeafForm::Words => 0,
                LeafForm::Zext => 4,
                LeafForm::Pair if avail(*lo, *hi) => 0,
                LeafForm::Pair => 9,
            },
            Tree::Add(a, b, _) => 5 + self.cost(a, avail) + self.cost(b, avail),
            Tree::Shl(a, _, _) => 5 + self.cost(a, avail),
        }
    }

    /// The pairs of `t`'s leaves computed as `bitcast64((lo, hi))`.
    fn pair_leaves(&self, t: &Tree, out: &mut Vec<(Word, Word)>) {
        match t {
            Tree::Leaf(lo, hi) => {
                if matches!(self.leaf_form(*lo, *hi), LeafForm::Pair) {
                    out.push((*lo, *hi));
                }
            }
            Tree::Add(a, b, _) => {
                self.pair_leaves(a, out);
                self.pair_leaves(b, out);
            }
            Tree::Shl(a, _, _) => self.pair_leaves(a, out),
        }
    }

    /// The u64 value of the pair `(lo, hi)` as sums and shifts of pairs, as deep as `depth`:
    /// - `lo = iaddcarry(x0, y0).0` and `hi` a 32-bit sum of `iaddcarry(x0, y0).1` and one or two other
    ///   addends `a`, `b` (`b` 0 when there is one): `(x0, a) + (y0, b)`, or `(x0, b) + (y0, a)` when only
    ///   that pairing finds sums or shifts below;
    /// - `lo = a0 << k`, `hi = (a1 << k) | (a0 >> (32 − k))` with `0 < k < 32` constants: `(a0, a1) << k`;
    ///   `hi = a0 >> (32 − k)` alone (a zero high word, as `simplify` leaves it): `(a0, 0) << k`;
    /// - any other pair: itself.
    fn tree(&self, lo: Word, hi: Word, depth: u32) -> Tree {
        let leaf = Tree::Leaf(lo, hi);
        if depth == 0 {
            return leaf;
        }
        if let Some(ac) = self.member(lo, 0) {
            let carry = self.def(ac).map(|d| (d.ops[0], d.ops[1]));
            let (mut terms, mut adds) = (Vec::new(), Vec::new());
            self.addends(hi, 2, &mut terms, &mut adds);
            let k: Vec<Word> = terms
                .iter()
                .copied()
                .filter(|&t| self.member(t, 1) == Some(ac))
                .collect();
            if let (Some((x0, y0)), 1, 2..=3) = (carry, k.len(), terms.len()) {
                terms.retain(|&t| self.member(t, 1) != Some(ac));
                // The zero word of a zero-extended addend (`v_add_co_ci_u32 v, vcc, 0, v, vcc`).
                let (a, b) = (terms[0], terms.get(1).copied().or(self.zero));
                if let Some(b) = b {
                    let mut parts = vec![lo, ac, k[0]];
                    parts.extend(adds);
                    let pick = |p: Word, q: Word| {
                        let (l, r) = (self.tree(x0, p, depth - 1), self.tree(y0, q, depth - 1));
                        let n = l.ops() + r.ops();
                        (n, (l, r))
                    };
                    // The positional pairing (the lifting's order of the two adds' operands) unless
                    // only the other finds sums or shifts below.
                    let (n1, t1) = pick(a, b);
                    let (l, r) = if n1 > 0 {
                        t1
                    } else {
                        let (n2, t2) = pick(b, a);
                        if n2 > n1 {
                            t2
                        } else {
                            t1
                        }
                    };
                    return Tree::Add(Box::new(l), Box::new(r), parts);
                }
            }
        }
        if let Some(t) = self.shl(lo, hi, depth) {
            return t;
        }
        leaf
    }

    /// `(a0 << k, (a1 << k) | (a0 >> (32 − k)))`: `(a0, a1) << k`; `(a0 << k, a0 >> (32 − k))`:
    /// `(a0, 0) << k`.
    fn shl(&self, lo: Word, hi: Word, depth: u32) -> Option<Tree> {
        let l = self.def(lo)?;
        let h = self.def(hi)?;
        if l.op != Op::ShiftLeftLogical || l.ty != self.u32_ {
            return None;
        }
        let k = *self.consts.get(&l.ops[1])?;
        if !(1..32).contains(&k) {
            return None;
        }
        let a0 = l.ops[0];
        if h.op == Op::ShiftRightLogical
            && h.ops[0] == a0
            && self.consts.get(&h.ops[1]) == Some(&(32 - k))
        {
            // A zero high word shifted: `(a0 << k, a0 >> (32 − k))` is `(a0, 0) << k`.
            let z = self.zero?;
            return Some(Tree::Shl(
                Box::new(Tree::Leaf(a0, z)),
                k as u32,
                vec![lo, hi],
            ));
        }
        if h.op != Op::BitwiseOr {
            return None;
        }
        let parts = |p: Word, q: Word| -> Option<Word> {
            let (pd, qd) = (self.def(p)?, self.def(q)?);
            let ok = pd.op == Op::ShiftLeftLogical
                && self.consts.get(&pd.ops[1]) == Some(&k)
                && qd.op == Op::ShiftRightLogical
                && qd.ops[0] == a0
                && self.consts.get(&qd.ops[1]) == Some(&(32 - k));
            ok.then_some(pd.ops[0])
        };
        let (a1, p, q) = match parts(h.ops[0], h.ops[1]) {
            Some(a1) => (a1, h.ops[0], h.ops[1]),
            None => (parts(h.ops[1], h.ops[0])?, h.ops[1], h.ops[0]),
        };
        let inner = self.tree(a0, a1, depth - 1);
        Some(Tree::Shl(Box::new(inner), k as u32, vec![lo, hi, p, q]))
    }
}

/// A root [`wide_sums`] rewrites: the position in its block to emit its value before, the bitcast's id,
/// the pair's two words, the tree.
type Root = (usize, Word, Word, Word, Tree);

/// New ids, u64 constants and instructions for [`wide_sums`].
struct Emitter {
    bound: Word,
    u64_: Word,
    v2: Word,
    c64s: HashMap<u64, Word>,
    new_consts: Vec<Instruction>,
}

impl Emitter {
    fn fresh(&mut self) -> Word {
        let x = self.bound;
        self.bound += 1;
        x
    }

    /// The module's u64 constant `v`, declared when it has none.
    fn c64(&mut self, v: u64) -> Word {
        if let Some(&c) = self.c64s.get(&v) {
            return c;
        }
        let c = self.fresh();
        self.new_consts.push(Instruction::new(
            Op::Constant,
            Some(self.u64_),
            Some(c),
            vec![Operand::LiteralBit64(v)],
        ));
        self.c64s.insert(v, c);
        c
    }

    /// Emits `t` as u64 instructions into `out`; the last one's id is `result` when given (a sum or a
    /// shift). Returns the value's id.
    fn emit(
        &mut self,
        sums: &Sums,
        t: &Tree,
        out: &mut Vec<Instruction>,
        result: Option<Word>,
    ) -> Word {
        let (u64_, v2) = (self.u64_, self.v2);
        let (op, ops) = match t {
            Tree::Leaf(lo, hi) => match sums.leaf_form(*lo, *hi) {
                LeafForm::Const(v) => return self.c64(v),
                LeafForm::Zext => (Op::UConvert, vec![*lo]),
                LeafForm::Words | LeafForm::Pair => {
                    let c = self.fresh();
                    out.push(Instruction::new(
                        Op::CompositeConstruct,
                        Some(v2),
                        Some(c),
                        vec![Operand::IdRef(*lo), Operand::IdRef(*hi)],
                    ));
                    (Op::Bitcast, vec![c])
                }
            },
            Tree::Add(a, b, _) => {
                let x = self.emit(sums, a, out, None);
                let y = self.emit(sums, b, out, None);
                (Op::IAdd, vec![x, y])
            }
            Tree::Shl(a, k, _) => {
                let x = self.emit(sums, a, out, None);
                (Op::ShiftLeftLogical, vec![x, self.c64(u64::from(*k))])
            }
        };
        let r = result.unwrap_or_else(|| self.fresh());
        out.push(Instruction::new(
            op,
            Some(u64_),
            Some(r),
            ops.into_iter().map(Operand::IdRef).collect(),
        ));
        r
    }
}

/// Whether rewriting root `r` (`bitcast64(c)`, `c = (lo, hi)`) as `t` saves words: those of the bitcast
/// and of the word operations nothing reads any more against the tree's u64 operations (its leaves'
/// pairs where `avail` does not say they are computed already) and the words `lo` and `hi` read
/// elsewhere (`uconvert32(v)`, 4 words; `uconvert32(v >> 32)`, 9). An operation of the tree goes when
/// every reader goes with it; `lo` and `hi` always go (their other readers read the new words), `c`
/// when the root alone reads it.
#[allow(clippy::too_many_arguments)]
fn pays(
    sums: &Sums,
    users: &HashMap<Word, Vec<Option<Word>>>,
    t: &Tree,
    r: Word,
    c: Word,
    lo: Word,
    hi: Word,
    avail: &dyn Fn(Word, Word) -> bool,
) -> bool {
    let mut parts = Vec::new();
    t.parts(&mut parts);
    parts.push(c);
    let inside: crate::hash::HashSet<Word> = parts.iter().copied().collect();
    let readers = |x: Word| users.get(&x).map(Vec::as_slice).unwrap_or(&[]);
    let outside = |x: Word| {
        readers(x)
            .iter()
            .any(|u| u.is_none_or(|u| !inside.contains(&u) && u != c))
    };
    let mut dead: crate::hash::HashSet<Word> = [lo, hi].into_iter().collect();
    if readers(c).iter().all(|&u| u == Some(r)) {
        dead.insert(c);
    }
    loop {
        let before = dead.len();
        for &x in &parts {
            if !dead.contains(&x)
                && readers(x)
                    .iter()
                    .all(|u| u.is_some_and(|u| dead.contains(&u)))
            {
                dead.insert(x);
            }
        }
        if dead.len() == before {
            break;
        }
    }
    let freed: usize = dead
        .iter()
        .filter_map(|x| sums.def(*x))
        .map(|d| d.words)
        .sum::<usize>()
        + 4;
    let added =
        sums.cost(t, avail) + if outside(lo) { 4 } else { 0 } + if outside(hi) { 9 } else { 0 };
    added < freed
}

/// Rewrite `a` (decision D274): `bitcast64((lo, hi))` of a two-word vector whose words are a 64-bit sum
/// or shift done on words ([`Sums::tree`]) becomes that tree of u64 `OpIAdd` and `OpShiftLeftLogical` of
/// leaf pairs, computed right after the later of `lo` and `hi` (where every leaf is defined), where
/// [`pays`] says it saves words; the bitcast goes and its reads read the new value `v`. A read of `lo`
/// or `hi` that `v` dominates reads `uconvert32(v)` or `uconvert32(v >> 32)` instead, so the word
/// operations go where nothing else reads them (`d`); reads it does not dominate keep the words.
///
/// Exact by modular arithmetic: for words `x0, x1, y0, y1`, `(x1·2^32 + x0) + (y1·2^32 + y0)` modulo 2^64
/// has the low word `x0 + y0` modulo 2^32 (`OpIAddCarry`'s member 0) and the high word `x1 + y1 + c`
/// modulo 2^32, `c` the carry out of the low words (member 1); the high word is the same whichever of its
/// addends is paired with `x0` (only the sum of all of them counts), and an addend the high word lacks
/// is the zero word. For `0 < k < 32`, `(a1·2^32 + a0) << k` modulo 2^64 has the low word `a0 << k` and
/// the high word `(a1 << k) | (a0 >> (32 − k))`. `OpBitcast` of `(lo, hi)` to u64 is `hi·2^32 + lo`
/// (component 0 the low-order bits); `uconvert32` keeps the low word. Returns the values rewritten.
pub(super) fn wide_sums(m: &mut Module, f: &mut Function, bound: &mut Word) -> usize {
    let (Some(u32_), Some(u64_)) = (uint_type(m, 32), uint_type(m, 64)) else {
        return 0;
    };
    let Some(v2) = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::TypeVector
                && i.operands == [Operand::IdRef(u32_), Operand::LiteralBit32(2)]
        })
        .and_then(|i| i.result_id)
    else {
        return 0;
    };
    let consts = constants(m);
    let decorated = decorated_ids(m);
    let zero = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::Constant
                && i.result_type == Some(u32_)
                && i.operands == [Operand::LiteralBit32(0)]
        })
        .and_then(|i| i.result_id);
    let mut defs: HashMap<Word, Def> = HashMap::default();
    // Who reads each id: the reading instruction's result, None for one without.
    let mut users: HashMap<Word, Vec<Option<Word>>> = HashMap::default();
    for b in &f.blocks {
        for i in &b.instructions {
            let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
                continue;
            };
            let index = match (i.class.opcode, i.operands.get(1)) {
                (Op::CompositeExtract, Some(Operand::LiteralBit32(k))) if i.operands.len() == 2 => {
                    Some(*k)
                }
                _ => None,
            };
            defs.insert(
                r,
                Def {
                    op: i.class.opcode,
                    ty: t,
                    ops: i.operands.iter().filter_map(id).collect(),
                    index,
                    words: super::inst_words(i),
                },
            );
            for x in i.operands.iter().filter_map(id) {
                users.entry(x).or_default().push(Some(r));
            }
        }
    }
    // Instructions without a result read too (stores, branches): a read no rewrite removes.
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        if i.result_id.is_none() {
            for x in i.operands.iter().filter_map(id) {
                users.entry(x).or_default().push(None);
            }
        }
    }
    let sums = Sums {
        defs: &defs,
        consts: &consts,
        u32_,
        u64_,
        zero,
    };
    // The roots by block: (position of the bitcast, its id, the pair's words, the tree).
    // Where each result is: (block, position).
    let mut at: HashMap<Word, (usize, usize)> = HashMap::default();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, i) in b.instructions.iter().enumerate() {
            if let Some(r) = i.result_id {
                at.insert(r, (bi, k));
            }
        }
    }
    let idom = dominators(f);
    let dominated = |b: usize, a: usize| {
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match idom[x] {
                Some(p) if p != x => x = p,
                _ => return false,
            }
        }
    };
    // The roots by the block where their value is computed: right after the later of the pair's two
    // words (both dominate the root, so one dominates the other), where every leaf is defined. Each:
    // (position to emit before, the root's id, the pair's words, the tree).
    let mut roots: Vec<Vec<Root>> = vec![Vec::new(); f.blocks.len()];
    let mut n = 0;
    // Where the u64 of a pair is computed: the function's `bitcast64((lo, hi))`s and the leaves of the
    // roots taken so far (blocks in layout order, a dominator before what it dominates).
    let mut computed: HashMap<(Word, Word), Vec<(usize, usize)>> = HashMap::default();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (k, i) in b.instructions.iter().enumerate() {
            if i.class.opcode != Op::Bitcast || i.result_type != Some(u64_) {
                continue;
            }
            let c = i.operands.first().and_then(id).and_then(|c| defs.get(&c));
            if let Some(c) = c.filter(|c| c.op == Op::CompositeConstruct && c.ty == v2) {
                if let [lo, hi] = c.ops[..] {
                    computed.entry((lo, hi)).or_default().push((bi, k));
                }
            }
        }
    }
    for b in &f.blocks {
        for i in &b.instructions {
            let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
                continue;
            };
            if i.class.opcode != Op::Bitcast || t != u64_ || decorated.contains(&r) {
                continue;
            }
            let Some(cid) = i.operands.first().and_then(id) else {
                continue;
            };
            let Some(c) = defs.get(&cid) else {
                continue;
            };
            if c.op != Op::CompositeConstruct || c.ty != v2 || c.ops.len() != 2 {
                continue;
            }
            let (lo, hi) = (c.ops[0], c.ops[1]);
            let (Some(&(bl, pl)), Some(&(bh, ph))) = (at.get(&lo), at.get(&hi)) else {
                continue;
            };
            let (eb, ep) = if bl == bh {
                (bl, pl.max(ph) + 1)
            } else if dominated(bh, bl) {
                (bh, ph + 1)
            } else {
                (bl, pl + 1)
            };
            let tree = sums.tree(lo, hi, DEPTH);
            if tree.ops() == 0 {
                continue;
            }
            // A pair computed before the emission point, in a block that dominates it.
            let avail = |l: Word, h: Word| {
                computed.get(&(l, h)).is_some_and(|v| {
                    v.iter()
                        .any(|&(b, p)| if b == eb { p < ep } else { dominated(eb, b) })
                })
            };
            if pays(&sums, &users, &tree, r, cid, lo, hi, &avail) {
                let mut leaves = Vec::new();
                sums.pair_leaves(&tree, &mut leaves);
                for l in leaves {
                    computed.entry(l).or_default().push((eb, ep));
                }
                roots[eb].push((ep, r, lo, hi, tree));
                n += 1;
            }
        }
    }
    if n == 0 {
        return 0;
    }
    let mut em = Emitter {
        bound: *bound,
        u64_,
        v2,
        c64s: m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Constant && i.result_type == Some(u64_))
            .filter_map(|i| Some((*consts.get(&i.result_id?)?, i.result_id?)))
            .collect(),
        new_consts: Vec::new(),
    };
    // The words' and the roots' reads after the new values: (old id, new id, block, position of the
    // new id).
    let mut later: Vec<(Word, Word, usize, usize)> = Vec::new();
    let roots_of: crate::hash::HashSet<Word> = roots.iter().flatten().map(|r| r.1).collect();
    for (bi, mut rs) in roots.into_iter().enumerate() {
        let old = std::mem::take(&mut f.blocks[bi].instructions);
        if rs.is_empty() {
            // Only the roots' bitcasts go (their values are computed where they are emitted).
            f.blocks[bi].instructions = old
                .into_iter()
                .filter(|i| !i.result_id.is_some_and(|r| roots_of.contains(&r)))
                .collect();
            continue;
        }
        rs.sort_by_key(|r| r.0);
        let mut out = Vec::with_capacity(old.len() + 12 * rs.len());
        let mut rs = rs.into_iter().peekable();
        for (k, i) in old.into_iter().enumerate() {
            while let Some((_, r, lo, hi, tree)) = rs.next_if(|r| r.0 == k) {
                let v = em.emit(&sums, &tree, &mut out, None);
                let (lo2, sh, hi2) = (em.fresh(), em.fresh(), em.fresh());
                let c32 = em.c64(32);
                out.push(Instruction::new(
                    Op::UConvert,
                    Some(u32_),
                    Some(lo2),
                    vec![Operand::IdRef(v)],
                ));
                out.push(Instruction::new(
                    Op::ShiftRightLogical,
                    Some(u64_),
                    Some(sh),
                    vec![Operand::IdRef(v), Operand::IdRef(c32)],
                ));
                out.push(Instruction::new(
                    Op::UConvert,
                    Some(u32_),
                    Some(hi2),
                    vec![Operand::IdRef(sh)],
                ));
                later.push((lo, lo2, bi, out.len()));
                later.push((hi, hi2, bi, out.len()));
                later.push((r, v, bi, out.len()));
            }
            if !i.result_id.is_some_and(|r| roots_of.contains(&r)) {
                out.push(i);
            }
        }
        f.blocks[bi].instructions = out;
    }
    *bound = em.bound;
    m.types_global_values.extend(em.new_consts);
    // Reads the new values dominate read them (the first that does, in root order). A root's own reads
    // all are (its value dominates the bitcast it replaces); a word read before the new value keeps
    // the word.
    let labels: HashMap<Word, usize> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(k, b)| (super::label(b), k))
        .collect();
    let mut by_old: HashMap<Word, Vec<(Word, usize, usize)>> = HashMap::default();
    for (old, new, b, p) in later {
        by_old.entry(old).or_default().push((new, b, p));
    }
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        for (k, i) in b.instructions.iter_mut().enumerate() {
            let phi = i.class.opcode == Op::Phi;
            for j in 0..i.operands.len() {
                let Operand::IdRef(x) = i.operands[j] else {
                    continue;
                };
                let Some(cands) = by_old.get(&x) else {
                    continue;
                };
                // A phi reads its value at the end of the predecessor named after it.
                let site = if phi {
                    match i.operands.get(j + 1) {
                        Some(Operand::IdRef(p)) if j % 2 == 0 => {
                            labels.get(p).map(|&pb| (pb, usize::MAX))
                        }
                        _ => None,
                    }
                } else {
                    Some((bi, k))
                };
                let Some((sb, sp)) = site else { continue };
                let new = cands.iter().find(|&&(_, rb, rp)| {
                    if sb == rb {
                        sp >= rp
                    } else {
                        dominated(sb, rb)
                    }
                });
                if let Some(&(new, _, _)) = new {
                    i.operands[j] = Operand::IdRef(new);
                }
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::super::tests::{begun, def_of, finish, insts, Tys};
    use super::super::{common, dead_code, repack};
    use super::*;
    use crate::hash::HashSet;
    use spirv::StorageClass;

    /// D274: `x + (a << 3)` of word pairs, made as the lifting and the rewrites make it (the shift on the
    /// halves, `OpIAddCarry` and the high word's two adds), read as `bitcast64((s0, s1))` and its low word
    /// read again after it, becomes `bitcast64((x0, x1)) + (bitcast64((a0, a1)) << 3)`: no word operation
    /// is left, the stored u64 is the sum, the later read of `s0` reads the sum's low word. A "shift" by
    /// 3 and 28 is no 64-bit shift: `x + y'` of its words as a pair (`x`'s u64 already made above). Kept:
    /// a sum of two plain pairs whose words are both stored too (their u64s cost more than the words
    /// they free). The identity itself is checked on a few values with u64 arithmetic.
    #[test]
    fn wide_sums_compute_word_sums_read_as_u64_as_u64_sums() {
        let (
            mut b,
            Tys {
                u32t, u64t, pu, pw, ..
            },
        ) = begun();
        let v2 = b.type_vector(u32t, 2);
        // c0: the module's u32 zero, the high word the rewrite gives a zero-extended pair.
        let [_c0, c2, c3, c28, c29, c30, c7] =
            [0, 2, 3, 28, 29, 30, 7].map(|k| b.constant_bit32(u32t, k));
        b.begin_block(None).unwrap();
        let vars: Vec<Word> = (0..8)
            .map(|_| b.variable(pu, None, StorageClass::Function, None))
            .collect();
        let outs: Vec<Word> = (0..4)
            .map(|_| b.variable(pw, None, StorageClass::Function, None))
            .collect();
        let o32: Vec<Word> = (0..3)
            .map(|_| b.variable(pu, None, StorageClass::Function, None))
            .collect();
        let [x0, x1, a0, a1, y0, y1, z0, z1] =
            [0, 1, 2, 3, 4, 5, 6, 7].map(|k| b.load(u32t, None, vars[k], None, []).unwrap());
        let carry_t = b.type_struct([u32t, u32t]);
        // s = x + (a << k): the halves shifted, the low words added with their carry.
        // (`a`'s high word None: a zero one, its shift `a0 >> r` alone, as `simplify` leaves it.)
        let sum = |b: &mut rspirv::dr::Builder,
                   x: (Word, Word),
                   a: (Word, Option<Word>),
                   k: Word,
                   r: Word| {
            let lo = b.shift_left_logical(u32t, None, a.0, k).unwrap();
            let u = b.shift_right_logical(u32t, None, a.0, r).unwrap();
            let hi = match a.1 {
                Some(a1) => {
                    let t = b.shift_left_logical(u32t, None, a1, k).unwrap();
                    b.bitwise_or(u32t, None, t, u).unwrap()
                }
                None => u,
            };
            let ac = b.i_add_carry(carry_t, None, x.0, lo).unwrap();
            let s0 = b.composite_extract(u32t, None, ac, [0]).unwrap();
            let c = b.composite_extract(u32t, None, ac, [1]).unwrap();
            let h = b.i_add(u32t, None, x.1, hi).unwrap();
            let s1 = b.i_add(u32t, None, h, c).unwrap();
            let v = b.composite_construct(v2, None, [s0, s1]).unwrap();
            (b.bitcast(u64t, None, v).unwrap(), s0, s1)
        };
        let (v, s0, _) = sum(&mut b, (x0, x1), (a0, Some(a1)), c3, c29);
        b.store(outs[0], v, None, []).unwrap();
        let o = b.bitwise_or(u32t, None, s0, c7).unwrap();
        b.store(o32[0], o, None, []).unwrap();
        // 3 and 28 is no 64-bit shift.
        let (w, _, _) = sum(&mut b, (x0, x1), (y0, Some(y1)), c3, c28);
        b.store(outs[1], w, None, []).unwrap();
        // x + (z0, 0) << 2: the zero high word shifted (`a0 >> 30` alone).
        let (v4, _, _) = sum(&mut b, (x0, x1), (z0, None), c2, c30);
        b.store(outs[3], v4, None, []).unwrap();
        // Kept: z + (y1, y0) of plain pairs, both words stored as well.
        let ac = b.i_add_carry(carry_t, None, z0, y1).unwrap();
        let p0 = b.composite_extract(u32t, None, ac, [0]).unwrap();
        let c = b.composite_extract(u32t, None, ac, [1]).unwrap();
        let h = b.i_add(u32t, None, z1, y0).unwrap();
        let p1 = b.i_add(u32t, None, h, c).unwrap();
        let pv = b.composite_construct(v2, None, [p0, p1]).unwrap();
        let pz = b.bitcast(u64t, None, pv).unwrap();
        b.store(outs[2], pz, None, []).unwrap();
        b.store(o32[1], p0, None, []).unwrap();
        b.store(o32[2], p1, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(wide_sums(&mut m, &mut f, &mut bound), 3);
        let mut gone = HashSet::default();
        repack(&m, &mut f, &mut gone);
        common(&m, &mut f, &mut gone);
        dead_code(&m, &mut f, &mut gone);
        let stored = |p: Word| {
            insts(&f)
                .find(|i| i.class.opcode == Op::Store && i.operands[0] == Operand::IdRef(p))
                .and_then(|i| id(&i.operands[1]))
                .unwrap()
        };
        let op = |x: Word| def_of(&f, x).class.opcode;
        let args =
            |x: Word| -> Vec<Word> { def_of(&f, x).operands.iter().filter_map(id).collect() };
        // The pair of two words as a u64: `bitcast64((lo, hi))`.
        let pair_of = |x: Word| -> Vec<Word> {
            assert_eq!(op(x), Op::Bitcast);
            let c = args(x)[0];
            assert_eq!(op(c), Op::CompositeConstruct);
            args(c)
        };
        let s = stored(outs[0]);
        assert_eq!((op(s), def_of(&f, s).result_type), (Op::IAdd, Some(u64t)));
        let [l, r] = args(s)[..] else { panic!() };
        assert_eq!(pair_of(l), [x0, x1]);
        assert_eq!(
            (op(r), def_of(&f, r).result_type),
            (Op::ShiftLeftLogical, Some(u64t))
        );
        let [a, k] = args(r)[..] else { panic!() };
        assert_eq!(pair_of(a), [a0, a1]);
        assert_eq!(
            super::super::tests::global_def(&m, k).operands,
            [Operand::LiteralBit64(3)]
        );
        // The later read of the low word reads the sum's.
        let o = stored(o32[0]);
        let lo = args(o)[0];
        assert_eq!((op(lo), args(lo)), (Op::UConvert, vec![s]));
        // x + (the 3-and-28 words as they are), `x`'s u64 the one above.
        let w = stored(outs[1]);
        assert_eq!(op(w), Op::IAdd);
        let [wl, wr] = args(w)[..] else { panic!() };
        assert_eq!(wl, l, "x's u64 made once (after the CSE)");
        let [q0, q1] = pair_of(wr)[..] else { panic!() };
        assert_eq!((op(q0), op(q1)), (Op::ShiftLeftLogical, Op::BitwiseOr));
        // x + (uconvert64(z0) << 2).
        let v4 = stored(outs[3]);
        assert_eq!(op(v4), Op::IAdd);
        let [v4l, v4r] = args(v4)[..] else { panic!() };
        assert_eq!(v4l, l);
        assert_eq!(op(v4r), Op::ShiftLeftLogical);
        let zx = args(v4r)[0];
        assert_eq!((op(zx), args(zx)), (Op::UConvert, vec![z0]));
        // The kept one keeps its words.
        let x = stored(outs[2]);
        assert_eq!(pair_of(x), [p0, p1]);
        assert_eq!(
            insts(&f)
                .filter(|i| i.class.opcode == Op::IAddCarry)
                .count(),
            1
        );
        // The identity on values: the words' formulas against u64 arithmetic.
        for (x, a) in [
            (0xffff_ffffu64, 0x2000_0000u64),
            (0x1_ffff_fff8, 0x1fff_ffff),
            (u64::MAX, u64::MAX),
            (0x8000_0000_0000_0000, 0xe000_0000_0000_0001),
        ] {
            let (x0, x1, a0, a1) = (x as u32, (x >> 32) as u32, a as u32, (a >> 32) as u32);
            let (lo, hi) = (a0 << 3, (a1 << 3) | (a0 >> 29));
            let (s0, c) = x0.overflowing_add(lo);
            let s1 = x1.wrapping_add(hi).wrapping_add(u32::from(c));
            let s = x.wrapping_add(a << 3);
            assert_eq!((s0, s1), (s as u32, (s >> 32) as u32));
        }
    }
}
