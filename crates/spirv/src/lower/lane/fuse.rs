//! One selection per run of guarded effects under the same guard (decision D144).
//!
//! The lane mapping emits each guarded effect of an instruction as its own selection construct
//! (`Cx::guarded`): every lane load (with a phi of its value and zero at the merge), every VGPR write,
//! every store. One LDS tree step of reduce (`ds_read2` + `v_add` + `ds_write`) is six selections under
//! the same condition `own EXEC bit && on`, where the hand-written GLSL has one `if`. On lavapipe each
//! selection costs a mask push and pop and splits the code into more basic blocks (D134: gallivm never
//! branches around a selection), measured in docs/performance.md ("Converged multi-wave body cost").
//!
//! [`fuse_guards`] rewrites the finished function: a selection `H: if (c) { T } M:` followed, in its merge
//! block `M`, only by phis of its value and *movable* instructions `P`, then by a selection
//! `if (c2) { T2 } M2:` whose condition is provably the same value as `c`, becomes
//! `H: if (c) { T; P; T2 } M2:`, repeated while the pattern holds. The conditions:
//! 1. `T` and `T2` are single blocks (no nested construct, no barrier);
//! 2. `P` has no effect: pure operations (GLSL.std.450 functions that write no pointer included), and
//!    loads and access chains of Function variables only (a load from a uniform address inside a
//!    selection would run lane by lane on lavapipe, D118; none is moved);
//! 3. equal guards: `c2` is the same value as `c` by construction (`Site::same_value`): the same id;
//!    two loads of one Function variable (an `OpVariable`, which only `OpStore` to that very id can
//!    write), `c`'s side in `H` and `c2`'s in `M`, with no `OpStore` to it in `H` after the load, in `T`
//!    (every body fused so far) or in `M`; or the same pure operation (same opcode and result type) on
//!    operands that are pairwise the same literal or, recursively, the same value (six levels at most,
//!    D219). In the lane mapping the guards are the lane's own EXEC bit and the wave's `on`, loaded from
//!    their variables or recomputed from the same EXEC value (`(exec >> lane) & 1 == 1`) for each
//!    dword of a wide store: an EXEC write or an `on` change between two effects ends the run;
//! 4. every value `P` defines is used only in `P` and `T2` (it moves into the fused body, which
//!    dominates no block after it);
//! 5. each phi `%p = (v, T), (z, H)` of `M` has `z` defined outside `T`, `M` and `T2`.
//!
//! Why exact: when `c` is false, neither construct ran a body before (`c2 == c`) and the merged one runs
//! none; `P` had no effect and its values were used only in `T2` (4), which did not run either; each phi
//! of `M` gave `z`, and so does the phi re-created at `M2` (`(v, T), (z, H)`). When `c` is true, the
//! code runs in the same order (`T`, `P`, `T2`), each use of a phi of `M` inside the fused body is
//! replaced by `v`, the value the phi had on that path; the phis of `M2` keep their values (edges
//! `T2 -> M2` become `T -> M2`, `M -> M2` become `H -> M2`, a phi of `M` there becoming its `z`). The
//! rewrite is value-level SPIR-V semantics: it needs no fact about waves or convergence and applies to
//! every lane module; the wave mapping is not rewritten.

use crate::hash::{HashMap, HashSet};

use rspirv::dr::{Function, Instruction, Module, Operand};
use spirv::{Op, StorageClass, Word};

/// Fuses runs of selections under the same guard in every function of `m` (see the module docs);
/// returns the number of selections removed.
pub(crate) fn fuse_guards(m: &mut Module) -> usize {
    let fn_ptrs: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypePointer
                && matches!(
                    i.operands.first(),
                    Some(Operand::StorageClass(StorageClass::Function))
                )
        })
        .filter_map(|i| i.result_id)
        .collect();
    let glsl = super::shrink::glsl_import(m);
    let mut n = 0;
    for f in &mut m.functions {
        n += fuse_function(f, &fn_ptrs, glsl);
    }
    n
}

fn label(b: &rspirv::dr::Block) -> Word {
    b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0)
}

fn id(o: &Operand) -> Option<Word> {
    match o {
        Operand::IdRef(x) => Some(*x),
        _ => None,
    }
}

/// Operations with no effect and no memory access that `P` may hold.
fn pure(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        IAdd | ISub
            | IMul
            | UDiv
            | SDiv
            | UMod
            | SRem
            | SMod
            | FAdd
            | FSub
            | FMul
            | FDiv
            | FNegate
            | SNegate
            | ShiftLeftLogical
            | ShiftRightLogical
            | ShiftRightArithmetic
            | BitwiseAnd
            | BitwiseOr
            | BitwiseXor
            | Not
            | LogicalAnd
            | LogicalOr
            | LogicalNot
            | LogicalEqual
            | LogicalNotEqual
            | Select
            | IEqual
            | INotEqual
            | ULessThan
            | ULessThanEqual
            | UGreaterThan
            | UGreaterThanEqual
            | SLessThan
            | SLessThanEqual
            | SGreaterThan
            | SGreaterThanEqual
            | FOrdEqual
            | FOrdNotEqual
            | FOrdLessThan
            | FOrdGreaterThan
            | FOrdLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordEqual
            | FUnordNotEqual
            | FUnordLessThan
            | FUnordGreaterThan
            | FUnordLessThanEqual
            | FUnordGreaterThanEqual
            | IsNan
            | IsInf
            | UConvert
            | SConvert
            | FConvert
            | ConvertFToU
            | ConvertFToS
            | ConvertUToF
            | ConvertSToF
            | Bitcast
            | CompositeExtract
            | CompositeConstruct
            | BitFieldInsert
            | BitFieldSExtract
            | BitFieldUExtract
            | BitReverse
            | BitCount
            | IAddCarry
            | ISubBorrow
            | UMulExtended
            | SMulExtended
            | CopyObject
    )
}

/// Per function: where each id is defined (block label, position) with its result type, and the
/// labels of the blocks that use it.
struct Index {
    def: HashMap<Word, (Word, usize, Option<Word>)>,
    uses: HashMap<Word, Uses>,
    /// Blocks merged into another (label -> the label of the block that now holds its code).
    alias: HashMap<Word, Word>,
}

/// The labels of the blocks that use an id, without repeating the last one (the questions asked are
/// "are all uses in these blocks"): most ids are used in one block only and need no heap vector (one per
/// used id was the guard fusion's main allocation; issue 31, D204).
#[derive(Default)]
struct Uses {
    first: Option<Word>,
    more: Vec<Word>,
}

impl Uses {
    fn push(&mut self, l: Word) {
        match self.first {
            None => self.first = Some(l),
            Some(f) if self.more.last().copied().unwrap_or(f) == l => {}
            Some(_) => self.more.push(l),
        }
    }

    fn iter(&self) -> impl Iterator<Item = Word> + '_ {
        self.first.into_iter().chain(self.more.iter().copied())
    }
}

impl Index {
    fn of(f: &Function) -> Index {
        let mut def = HashMap::default();
        let mut uses: HashMap<Word, Uses> = HashMap::default();
        for b in &f.blocks {
            let l = label(b);
            for (k, i) in b.instructions.iter().enumerate() {
                if let Some(r) = i.result_id {
                    def.insert(r, (l, k, i.result_type));
                }
                for o in &i.operands {
                    if let Some(x) = id(o) {
                        uses.entry(x).or_default().push(l);
                    }
                }
            }
        }
        Index {
            def,
            uses,
            alias: HashMap::default(),
        }
    }

    fn resolve(&self, mut l: Word) -> Word {
        while let Some(&to) = self.alias.get(&l) {
            l = to;
        }
        l
    }
}

fn stores_to(insts: &[Instruction], var: Word) -> bool {
    insts
        .iter()
        .any(|i| i.class.opcode == Op::Store && i.operands.first().and_then(id) == Some(var))
}

/// How deep [`same_value`] compares two guards (the own-EXEC-bit guard
/// `(x >> lane) & 1 == 1 && on` is four levels).
const SAME_DEPTH: u32 = 6;

/// Where [`same_value`] looks: the window of blocks, its index, the function's pointer types and
/// variables, and the blocks `H`, `T`, `M` of the fusion.
struct Site<'a> {
    f: &'a Function,
    ix: &'a Index,
    fn_ptrs: &'a HashSet<Word>,
    vars: &'a HashSet<Word>,
    htm: (usize, usize, usize),
}

impl Site<'_> {
    /// The instruction of the window that defines `x` and its block's position, if `ix` still places
    /// it there (an instruction moved by an earlier fusion is not looked at).
    fn def(&self, x: Word) -> Option<(usize, usize, &Instruction)> {
        let (l, k, _) = *self.ix.def.get(&x)?;
        let bi = self.f.blocks.iter().position(|b| label(b) == l)?;
        let i = self.f.blocks[bi].instructions.get(k)?;
        (i.result_id == Some(x)).then_some((bi, k, i))
    }

    /// Whether `a`, defined in `H` or before, and `b`, defined in `M` or before, are the same value at
    /// `M` by construction (module docs, point 3): the same id; two loads of one Function variable (an
    /// `OpVariable`, which only `OpStore` to that very id writes), `a`'s in `H` and `b`'s in `M`, with no
    /// store to it in `H` after `a`, in `T` or in `M`; or the results of one pure operation (same opcode
    /// and result type, [`pure`]) on operands that are pairwise the same literal or, recursively, the same
    /// value, at most `depth` levels down. In SSA a pure operation's result is a function of its
    /// operands' values alone.
    fn same_value(&self, a: Word, b: Word, depth: u32) -> bool {
        if a == b {
            return true;
        }
        if depth == 0 {
            return false;
        }
        let (Some((ba, ka, ia)), Some((bb, _, ib))) = (self.def(a), self.def(b)) else {
            return false;
        };
        let op = ia.class.opcode;
        if op != ib.class.opcode
            || ia.result_type != ib.result_type
            || ia.operands.len() != ib.operands.len()
        {
            return false;
        }
        let (h, t, m) = self.htm;
        if op == Op::Load {
            let (Some(p), Some(q)) = (
                ia.operands.first().and_then(id),
                ib.operands.first().and_then(id),
            ) else {
                return false;
            };
            let is_var = self.vars.contains(&p)
                && self
                    .ix
                    .def
                    .get(&p)
                    .and_then(|d| d.2)
                    .is_some_and(|t| self.fn_ptrs.contains(&t));
            return p == q
                && is_var
                && ba == h
                && bb == m
                && !stores_to(&self.f.blocks[h].instructions[ka..], p)
                && !stores_to(&self.f.blocks[t].instructions, p)
                && !stores_to(&self.f.blocks[m].instructions, p);
        }
        pure(op)
            && ia
                .operands
                .iter()
                .zip(&ib.operands)
                .all(|(x, y)| match (id(x), id(y)) {
                    (Some(x), Some(y)) => self.same_value(x, y, depth - 1),
                    (None, None) => x == y,
                    _ => false,
                })
    }
}

/// Whether `c2` is the same value as `c` at the second selection (module docs, point 3).
fn same_guard(
    f: &Function,
    ix: &Index,
    (fn_ptrs, vars): (&HashSet<Word>, &HashSet<Word>),
    htm: (usize, usize, usize),
    c: Word,
    c2: Word,
) -> bool {
    Site {
        f,
        ix,
        fn_ptrs,
        vars,
        htm,
    }
    .same_value(c, c2, SAME_DEPTH)
}

/// `OpSelectionMerge M; OpBranchConditional c T M` at the end of block `h`: `(c, T, M)`.
fn selection(f: &Function, h: usize) -> Option<(Word, Word, Word)> {
    let is = &f.blocks.get(h)?.instructions;
    let [.., sm, bc] = is.as_slice() else {
        return None;
    };
    if sm.class.opcode != Op::SelectionMerge
        || bc.class.opcode != Op::BranchConditional
        || bc.operands.len() != 3
    {
        return None;
    }
    let m = id(&sm.operands[0])?;
    let (c, t, e) = (
        id(&bc.operands[0])?,
        id(&bc.operands[1])?,
        id(&bc.operands[2])?,
    );
    (e == m).then_some((c, t, m))
}

/// A then-block `T` at index `t` that is one block ending `OpBranch M`, with no construct or barrier.
fn single(f: &Function, t: usize, tl: Word, ml: Word) -> bool {
    let Some(b) = f.blocks.get(t) else {
        return false;
    };
    let Some(last) = b.instructions.last() else {
        return false;
    };
    label(b) == tl
        && last.class.opcode == Op::Branch
        && id(&last.operands[0]) == Some(ml)
        && b.instructions.iter().all(|i| {
            !matches!(
                i.class.opcode,
                Op::SelectionMerge | Op::LoopMerge | Op::ControlBarrier | Op::Phi
            )
        })
}

fn rename(i: &mut Instruction, map: &HashMap<Word, Word>) {
    for o in &mut i.operands {
        if let Operand::IdRef(x) = o {
            if let Some(&y) = map.get(x) {
                *x = y;
            }
        }
    }
}

/// Tries a fusion at each header in order, and again at the same header after one succeeded. The blocks
/// pass through a window of the five that [`try_fuse`] reads (header `H`, `T`, `M`, `T2`, `M2`): the blocks
/// before the header are final and those after the window wait in reverse order, so that removing the two
/// fused blocks costs nothing (`Vec::drain` in the middle of the function's blocks moved all the later
/// ones at every fusion: quadratic in the module's blocks, D164). The order of the blocks and every
/// decision are as before.
fn fuse_function(f: &mut Function, fn_ptrs: &HashSet<Word>, glsl: Option<Word>) -> usize {
    let mut ix = Index::of(f);
    let vars: HashSet<Word> = f.blocks.first().map_or_else(HashSet::default, |b| {
        b.instructions
            .iter()
            .filter(|v| v.class.opcode == Op::Variable)
            .filter_map(|v| v.result_id)
            .collect()
    });
    let mut todo = std::mem::take(&mut f.blocks);
    todo.reverse();
    let mut done = Vec::with_capacity(todo.len());
    let mut window = Function::new();
    let mut fused = 0;
    loop {
        while window.blocks.len() < 5 {
            match todo.pop() {
                Some(b) => window.blocks.push(b),
                None => break,
            }
        }
        if window.blocks.is_empty() {
            break;
        }
        if try_fuse(&mut window, (fn_ptrs, &vars, glsl), &mut ix, 0) {
            fused += 1;
        } else {
            done.push(window.blocks.remove(0));
        }
    }
    f.blocks = done;
    fused
}

/// One fusion step at header block `h` (module docs); false when the pattern does not hold.
fn try_fuse(
    f: &mut Function,
    (fn_ptrs, vars, glsl): (&HashSet<Word>, &HashSet<Word>, Option<Word>),
    ix: &mut Index,
    h: usize,
) -> bool {
    let (t, m, t2, m2) = (h + 1, h + 2, h + 3, h + 4);
    let Some((c, tl, ml)) = selection(f, h) else {
        return false;
    };
    if !single(f, t, tl, ml) || f.blocks.get(m).map(label) != Some(ml) {
        return false;
    }
    let Some((c2, t2l, m2l)) = selection(f, m) else {
        return false;
    };
    if !single(f, t2, t2l, m2l) || f.blocks.get(m2).map(label) != Some(m2l) {
        return false;
    }
    let hl = label(&f.blocks[h]);
    // M and T2 are reached only through the two constructs (their labels appear nowhere else).
    let only = |ix: &Index, l: Word, ok: &[Word]| {
        ix.uses
            .get(&l)
            .is_none_or(|us| us.iter().all(|u| ok.contains(&ix.resolve(u))))
    };
    if !only(ix, ml, &[hl, tl, m2l]) || !only(ix, t2l, &[ml, m2l]) {
        return false;
    }
    let mb = &f.blocks[m].instructions;
    let body_end = mb.len() - 2;
    let nphi = mb.iter().take_while(|i| i.class.opcode == Op::Phi).count();
    // The phis of M: (result, type, v from T, z from H).
    let mut phis = Vec::new();
    for p in &mb[..nphi] {
        let pairs: Vec<(Word, Word)> = p
            .operands
            .chunks(2)
            .filter_map(|c| Some((id(&c[0])?, id(c.get(1)?)?)))
            .collect();
        let [a, b] = pairs.as_slice() else {
            return false;
        };
        let ((v, _), (z, _)) = match (a.1 == tl, b.1 == tl) {
            (true, false) if b.1 == hl => (*a, *b),
            (false, true) if a.1 == hl => (*b, *a),
            _ => return false,
        };
        // z must be available at H's edge into M2 (point 5).
        let zdef = ix.def.get(&z).map(|d| ix.resolve(d.0));
        if zdef.is_some_and(|d| d == tl || d == ml || d == t2l) {
            return false;
        }
        let (Some(r), Some(ty)) = (p.result_id, p.result_type) else {
            return false;
        };
        phis.push((r, ty, v, z));
    }
    // P: no effect, Function-variable memory only (point 2).
    for i in &mb[nphi..body_end] {
        let ok = match i.class.opcode {
            Op::Load | Op::AccessChain => i
                .operands
                .first()
                .and_then(id)
                .and_then(|p| ix.def.get(&p))
                .and_then(|d| d.2)
                .is_some_and(|ty| fn_ptrs.contains(&ty)),
            // D239: the f64 FMA's `UMax`, a `FindUMsb`.
            Op::ExtInst => super::shrink::glsl_effect_free(i, glsl),
            op => pure(op),
        };
        if !ok {
            return false;
        }
    }
    if !same_guard(f, ix, (fn_ptrs, vars), (h, t, m), c, c2) {
        return false;
    }
    // Point 4: P's values are used only in M (P) and T2, which move into T.
    let inside = |ix: &Index, x: Word| {
        ix.uses.get(&x).is_none_or(|us| {
            us.iter().all(|u| {
                let u = ix.resolve(u);
                u == ml || u == t2l || u == tl
            })
        })
    };
    if mb[nphi..body_end]
        .iter()
        .filter_map(|i| i.result_id)
        .any(|x| !inside(ix, x))
    {
        return false;
    }
    // Rewrite.
    let map: HashMap<Word, Word> = phis.iter().map(|&(r, _, v, _)| (r, v)).collect();
    let zmap: HashMap<Word, Word> = phis.iter().map(|&(r, _, _, z)| (r, z)).collect();
    let mut moved: Vec<Instruction> = f.blocks[m].instructions[nphi..body_end].to_vec();
    let t2b = &f.blocks[t2].instructions;
    moved.extend_from_slice(&t2b[..t2b.len() - 1]);
    for i in &mut moved {
        rename(i, &map);
    }
    let tb = &mut f.blocks[t].instructions;
    let br = tb.pop().expect("ends with OpBranch");
    // T's own instructions keep their positions; the moved ones follow them.
    let kept = tb.len();
    tb.extend(moved);
    let mut br = br;
    br.operands[0] = Operand::IdRef(m2l);
    tb.push(br);
    // H's construct now merges at M2.
    let hb = &mut f.blocks[h].instructions;
    let k = hb.len();
    hb[k - 2].operands[0] = Operand::IdRef(m2l);
    hb[k - 1].operands[2] = Operand::IdRef(m2l);
    // M2's phis: edges T2 -> T (values renamed), M -> H (a phi of M becomes its z).
    let mut new_phis: Vec<Instruction> = phis
        .iter()
        .map(|&(r, ty, v, z)| {
            Instruction::new(
                Op::Phi,
                Some(ty),
                Some(r),
                vec![
                    Operand::IdRef(v),
                    Operand::IdRef(tl),
                    Operand::IdRef(z),
                    Operand::IdRef(hl),
                ],
            )
        })
        .collect();
    for p in f.blocks[m2]
        .instructions
        .iter_mut()
        .take_while(|i| i.class.opcode == Op::Phi)
    {
        for pair in p.operands.chunks_mut(2) {
            let from = id(&pair[1]);
            if from == Some(t2l) {
                if let Operand::IdRef(x) = &mut pair[0] {
                    if let Some(&y) = map.get(x) {
                        *x = y;
                    }
                }
                pair[1] = Operand::IdRef(tl);
            } else if from == Some(ml) {
                if let Operand::IdRef(x) = &mut pair[0] {
                    if let Some(&y) = zmap.get(x) {
                        *x = y;
                    }
                }
                pair[1] = Operand::IdRef(hl);
            }
        }
    }
    new_phis.append(&mut f.blocks[m2].instructions);
    f.blocks[m2].instructions = new_phis;
    // Index upkeep: the new phis use v and z in M2; M's and T2's code now lies in T.
    for &(_, _, v, z) in &phis {
        ix.uses.entry(v).or_default().push(m2l);
        ix.uses.entry(z).or_default().push(m2l);
    }
    for &(r, ..) in &phis {
        if let Some(d) = ix.def.get_mut(&r) {
            d.0 = m2l;
        }
    }
    ix.alias.insert(ml, tl);
    ix.alias.insert(t2l, tl);
    f.blocks.drain(m..=t2);
    // Re-index the definitions that moved into T (those already there kept their positions: re-indexing
    // all of T at every step was quadratic in the length of a run, D164) and those of M2, shifted by its
    // new phis; the blocks after kept their positions.
    for (k, i) in f.blocks[t].instructions.iter().enumerate().skip(kept) {
        if let Some(r) = i.result_id {
            ix.def.insert(r, (tl, k, i.result_type));
        }
    }
    for (k, i) in f.blocks[m2 - 2].instructions.iter().enumerate() {
        if let Some(r) = i.result_id {
            ix.def.insert(r, (m2l, k, i.result_type));
        }
    }
    true
}
