//! Module size proportionate to the code (decision D162): three value-level rewrites of the finished lane
//! function, run after [`super::fuse_guards`].
//!
//! The lane lowering emits every machine instruction the same way: each register it reads is an
//! `OpAccessChain` + `OpLoad` of the SGPR or VGPR array, each register it writes an `OpStore` through
//! another access chain, and each instruction computes its lane's EXEC bit whether or not an effect uses
//! it. A 792-instruction kernel thus carries thousands of access chains, loads of a value stored two
//! instructions before, and dead arithmetic. The rewrites, all exact by SPIR-V's own semantics (no fact
//! about waves, lanes or the ISA is used):
//!
//! 1. **Scalar replacement** ([`split_arrays`]): a Function-storage array variable whose every use is an
//!    `OpAccessChain` with one constant, in-bounds index becomes one Function variable per index used (its
//!    initializer the array initializer's element: `OpConstantNull` of the element type, or the
//!    composite's constituent). Each access chain's result is replaced by its element's variable. Exact:
//!    no two distinct indices alias, and each access chain denoted exactly that element.
//! 2. **Store-to-load forwarding** ([`forward`]) over *private scalars*: Function variables used only as
//!    the pointer of `OpLoad` (not volatile) and `OpStore` (so no pointer escapes and nothing else writes
//!    them). Blocks are visited in layout order (SPIR-V lays out a block after its dominators); a block's
//!    entry knowledge is the intersection of its predecessors' exit knowledge when every predecessor was
//!    already visited (else nothing: loop headers start empty). A load of a variable with a known value is
//!    replaced by that value (which dominates the load: it was known at the end of every predecessor);
//!    an unknown load becomes the known value. Then a store overwritten in the same block before any load
//!    of it, and every store to a variable no load reads any more, is deleted (no one can observe it).
//! 3. **Dead code** ([`dead_code`]): an instruction without effect (arithmetic, conversions, selects, phis,
//!    access chains, non-volatile loads, `GLSL.std.450` functions, Function variables) whose result no
//!    instruction uses is deleted, transitively. Decorations and names of deleted ids go with them.
//!
//! Measured in docs/performance.md ("Lane module size"); the ablation table is in D162.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{Function, Instruction, Module, Operand};
use spirv::{Op, StorageClass, Word};

/// What each rewrite removed (instructions), for the ablation.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ShrinkStats {
    pub arrays_split: usize,
    pub loads_forwarded: usize,
    pub stores_removed: usize,
    pub dead: usize,
    pub common: usize,
    pub flattened: usize,
}

/// Which rewrites run (all, by default; `RDNA2SPV_SHRINK` = a subset of `s`, `i`, `f`, `c`, `d` for the ablation of
/// D162, read by [`Passes::from_env`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Passes {
    pub split: bool,
    pub forward: bool,
    pub dead: bool,
    pub common: bool,
    pub flat: bool,
}

impl Passes {
    pub(crate) const ALL: Passes = Passes {
        split: true,
        forward: true,
        dead: true,
        common: true,
        flat: true,
    };

    /// The passes named by `RDNA2SPV_SHRINK` (letters `s`, `i`, `f`, `c`, `d`; `-` or empty: none), else all.
    pub(crate) fn from_env() -> Passes {
        match std::env::var("RDNA2SPV_SHRINK") {
            Ok(s) => Passes {
                split: s.contains('s'),
                forward: s.contains('f'),
                dead: s.contains('d'),
                common: s.contains('c'),
                flat: s.contains('i'),
            },
            Err(_) => Passes::ALL,
        }
    }
}

/// Runs the chosen rewrites over every function of `m` (see the module docs).
pub(crate) fn shrink(m: &mut Module, p: Passes) -> ShrinkStats {
    let mut st = ShrinkStats::default();
    let mut bound = m.header.as_ref().map(|h| h.bound).unwrap_or(0);
    let mut gone: HashSet<Word> = HashSet::new();
    let mut funcs = std::mem::take(&mut m.functions);
    for f in &mut funcs {
        if p.split {
            st.arrays_split += split_arrays(m, f, &mut bound, &mut gone);
        }
        if p.flat {
            st.flattened += flatten(f, &mut bound, &mut gone);
        }
        if p.forward {
            let (l, s) = forward(f, &mut gone);
            st.loads_forwarded += l;
            st.stores_removed += s;
        }
        if p.common {
            st.common += common(m, f, &mut gone);
        }
        if p.dead {
            st.dead += dead_code(m, f, &mut gone);
        }
    }
    m.functions = funcs;
    if let Some(h) = m.header.as_mut() {
        h.bound = bound;
    }
    if !gone.is_empty() {
        let keep = |i: &Instruction| match i.operands.first() {
            Some(Operand::IdRef(t)) => !gone.contains(t),
            _ => true,
        };
        m.annotations.retain(keep);
        m.debug_names.retain(keep);
    }
    st
}

fn id(o: &Operand) -> Option<Word> {
    match o {
        Operand::IdRef(x) => Some(*x),
        _ => None,
    }
}

fn label(b: &rspirv::dr::Block) -> Word {
    b.label.as_ref().and_then(|l| l.result_id).unwrap_or(0)
}

/// The value of an integer `OpConstant`.
fn constants(m: &Module) -> HashMap<Word, u64> {
    m.types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter_map(|i| {
            let v = match i.operands.first()? {
                Operand::LiteralBit32(x) => *x as u64,
                Operand::LiteralBit64(x) => *x,
                _ => return None,
            };
            Some((i.result_id?, v))
        })
        .collect()
}

fn is_function_var(i: &Instruction) -> bool {
    i.class.opcode == Op::Variable
        && matches!(
            i.operands.first(),
            Some(Operand::StorageClass(StorageClass::Function))
        )
}

/// Rewrite 1: scalar replacement of constant-indexed Function arrays; returns the arrays split.
fn split_arrays(
    m: &mut Module,
    f: &mut Function,
    bound: &mut Word,
    gone: &mut HashSet<Word>,
) -> usize {
    let Some(entry) = f.blocks.first() else {
        return 0;
    };
    let consts = constants(m);
    let globals: HashMap<Word, &Instruction> = m
        .types_global_values
        .iter()
        .filter_map(|i| Some((i.result_id?, i)))
        .collect();
    // Candidates: Function array variables, with element type, length and initializer elements.
    struct Cand {
        elem_ptr: Option<Word>,
        elem: Word,
        len: u64,
        init: Option<Init>,
        ok: bool,
        fresh: HashMap<u64, Word>,
    }
    #[derive(Clone)]
    enum Init {
        Null,
        Parts(Vec<Word>),
    }
    let mut cands: HashMap<Word, Cand> = HashMap::new();
    for i in entry.instructions.iter().filter(|i| is_function_var(i)) {
        let (Some(r), Some(pt)) = (i.result_id, i.result_type) else {
            continue;
        };
        let Some(ptr) = globals.get(&pt) else {
            continue;
        };
        let Some(arr) = ptr
            .operands
            .get(1)
            .and_then(id)
            .and_then(|a| globals.get(&a))
        else {
            continue;
        };
        if arr.class.opcode != Op::TypeArray {
            continue;
        }
        let (Some(elem), Some(len)) = (
            arr.operands.first().and_then(id),
            arr.operands
                .get(1)
                .and_then(id)
                .and_then(|l| consts.get(&l)),
        ) else {
            continue;
        };
        let init = match i.operands.get(1).and_then(id) {
            None => None,
            Some(c) => match globals.get(&c).map(|g| g.class.opcode) {
                Some(Op::ConstantNull) => Some(Init::Null),
                Some(Op::ConstantComposite) => Some(Init::Parts(
                    globals[&c].operands.iter().filter_map(id).collect(),
                )),
                _ => continue,
            },
        };
        cands.insert(
            r,
            Cand {
                elem_ptr: None,
                elem,
                len: *len,
                init,
                ok: true,
                fresh: HashMap::new(),
            },
        );
    }
    if cands.is_empty() {
        return 0;
    }
    // Every use must be the base of a one-index access chain with a constant in-bounds index.
    for b in &f.blocks {
        for i in &b.instructions {
            let chain = matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
            for (k, o) in i.operands.iter().enumerate() {
                let Some(x) = id(o) else { continue };
                let Some(c) = cands.get_mut(&x) else { continue };
                let good = chain
                    && k == 0
                    && i.operands.len() == 2
                    && i.operands
                        .get(1)
                        .and_then(id)
                        .and_then(|n| consts.get(&n))
                        .is_some_and(|&n| n < c.len)
                    && c.elem_ptr.is_none_or(|p| Some(p) == i.result_type);
                if good {
                    c.elem_ptr = i.result_type;
                } else {
                    c.ok = false;
                }
            }
        }
    }
    cands.retain(|_, c| c.ok && c.elem_ptr.is_some());
    if cands.is_empty() {
        return 0;
    }
    // One null constant per element type a null-initialised array needs.
    let mut nulls: HashMap<Word, Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::ConstantNull)
        .filter_map(|i| Some((i.result_type?, i.result_id?)))
        .collect();
    // Access chain results -> the element variable; new variables in index order per array.
    let mut repl: HashMap<Word, Word> = HashMap::new();
    let mut new_vars: Vec<Instruction> = Vec::new();
    for b in &f.blocks {
        for i in &b.instructions {
            if !matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                continue;
            }
            let Some(base) = i.operands.first().and_then(id) else {
                continue;
            };
            let Some(c) = cands.get_mut(&base) else {
                continue;
            };
            let n = consts[&id(&i.operands[1]).unwrap_or(0)];
            let v = *c.fresh.entry(n).or_insert_with(|| {
                let v = *bound;
                *bound += 1;
                let init = match &c.init {
                    None => None,
                    Some(Init::Null) => Some(*nulls.entry(c.elem).or_insert_with(|| {
                        let z = *bound;
                        *bound += 1;
                        m.types_global_values.push(Instruction::new(
                            Op::ConstantNull,
                            Some(c.elem),
                            Some(z),
                            vec![],
                        ));
                        z
                    })),
                    Some(Init::Parts(p)) => p.get(n as usize).copied(),
                };
                let mut ops = vec![Operand::StorageClass(StorageClass::Function)];
                ops.extend(init.map(Operand::IdRef));
                new_vars.push(Instruction::new(Op::Variable, c.elem_ptr, Some(v), ops));
                v
            });
            repl.insert(i.result_id.unwrap_or(0), v);
        }
    }
    let n = cands.len();
    for b in &mut f.blocks {
        b.instructions.retain(|i| {
            let drop = match i.result_id {
                Some(r) => repl.contains_key(&r) || cands.contains_key(&r),
                None => false,
            };
            if drop {
                gone.insert(i.result_id.unwrap_or(0));
            }
            !drop
        });
        for i in &mut b.instructions {
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    if let Some(v) = repl.get(x) {
                        *x = *v;
                    }
                }
            }
        }
    }
    let at = f.blocks[0]
        .instructions
        .iter()
        .take_while(|i| i.class.opcode == Op::Variable)
        .count();
    f.blocks[0].instructions.splice(at..at, new_vars);
    n
}

/// Whether a load's memory operands (after the pointer) allow removing or forwarding it.
fn plain_load(i: &Instruction) -> bool {
    match i.operands.get(1) {
        Some(Operand::MemoryAccess(a)) => !a.contains(spirv::MemoryAccess::VOLATILE),
        _ => true,
    }
}

/// The labels a block's terminator may branch to.
fn successors(b: &rspirv::dr::Block, labels: &HashSet<Word>) -> Vec<Word> {
    match b.instructions.last() {
        Some(t) => t
            .operands
            .iter()
            .filter_map(id)
            .filter(|x| labels.contains(x))
            .collect(),
        None => vec![],
    }
}

/// Rewrite 2: store-to-load forwarding over private scalars, then dead stores; returns (loads
/// forwarded, stores removed).
fn forward(f: &mut Function, gone: &mut HashSet<Word>) -> (usize, usize) {
    let scalars = private_scalars(f);
    if scalars.is_empty() {
        return (0, 0);
    }
    let labels: HashSet<Word> = f.blocks.iter().map(label).collect();
    let mut preds: HashMap<Word, Vec<Word>> = HashMap::new();
    for b in &f.blocks {
        for s in successors(b, &labels) {
            let p = preds.entry(s).or_default();
            if !p.contains(&label(b)) {
                p.push(label(b));
            }
        }
    }
    let resolve = |repl: &HashMap<Word, Word>, mut x: Word| {
        while let Some(&y) = repl.get(&x) {
            x = y;
        }
        x
    };
    let mut exit: HashMap<Word, HashMap<Word, Word>> = HashMap::new();
    let mut repl: HashMap<Word, Word> = HashMap::new();
    let mut dead_stores: HashSet<(usize, usize)> = HashSet::new();
    let mut forwarded: HashSet<(usize, usize)> = HashSet::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        let l = label(b);
        let mut known: HashMap<Word, Word> = if bi == 0 {
            scalars
                .iter()
                .filter_map(|(v, init)| Some((*v, (*init)?)))
                .collect()
        } else {
            match preds.get(&l) {
                Some(ps) if ps.iter().all(|p| exit.contains_key(p)) => {
                    let mut it = ps.iter();
                    let mut k = exit[it.next().unwrap_or(&0)].clone();
                    for p in it {
                        let e = &exit[p];
                        k.retain(|v, x| e.get(v) == Some(x));
                    }
                    k
                }
                _ => HashMap::new(),
            }
        };
        let mut pending: HashMap<Word, usize> = HashMap::new();
        for (ii, i) in b.instructions.iter().enumerate() {
            let Some(p) = i.operands.first().and_then(id) else {
                continue;
            };
            if !scalars.contains_key(&p) {
                continue;
            }
            match i.class.opcode {
                Op::Store => {
                    let Some(v) = i.operands.get(1).and_then(id) else {
                        continue;
                    };
                    if let Some(old) = pending.insert(p, ii) {
                        dead_stores.insert((bi, old));
                    }
                    known.insert(p, resolve(&repl, v));
                }
                Op::Load => {
                    let r = i.result_id.unwrap_or(0);
                    if let Some(&v) = known.get(&p) {
                        repl.insert(r, v);
                        forwarded.insert((bi, ii));
                    } else {
                        pending.remove(&p);
                        known.insert(p, r);
                    }
                }
                _ => {}
            }
        }
        exit.insert(l, known);
    }
    let nf = forwarded.len();
    // Apply: drop forwarded loads and overwritten stores, rewrite uses.
    let mut loaded: HashSet<Word> = HashSet::new();
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        let mut ii = 0;
        b.instructions.retain(|i| {
            let k = ii;
            ii += 1;
            if forwarded.contains(&(bi, k)) {
                gone.insert(i.result_id.unwrap_or(0));
                return false;
            }
            !dead_stores.contains(&(bi, k))
        });
        for i in &mut b.instructions {
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    *x = resolve(&repl, *x);
                }
            }
            if i.class.opcode == Op::Load {
                if let Some(p) = i.operands.first().and_then(id) {
                    loaded.insert(p);
                }
            }
        }
    }
    // Stores to private scalars nothing loads any more.
    let mut ns = dead_stores.len();
    for b in &mut f.blocks {
        b.instructions.retain(|i| {
            let unread = i.class.opcode == Op::Store
                && i.operands
                    .first()
                    .and_then(id)
                    .is_some_and(|p| scalars.contains_key(&p) && !loaded.contains(&p));
            ns += unread as usize;
            !unread
        });
    }
    (nf, ns)
}

/// Operations without an effect: removable when their result is unused.
fn effect_free(i: &Instruction, glsl: Option<Word>) -> bool {
    use Op::*;
    match i.class.opcode {
        Load => plain_load(i),
        Variable => is_function_var(i),
        ExtInst => glsl.is_some() && i.operands.first().and_then(id) == glsl,
        IAdd
        | ISub
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
        | FRem
        | FMod
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
        | Any
        | All
        | UConvert
        | SConvert
        | FConvert
        | ConvertFToU
        | ConvertFToS
        | ConvertUToF
        | ConvertSToF
        | ConvertUToPtr
        | ConvertPtrToU
        | Bitcast
        | CompositeExtract
        | CompositeConstruct
        | CompositeInsert
        | VectorShuffle
        | CopyObject
        | BitFieldInsert
        | BitFieldSExtract
        | BitFieldUExtract
        | BitReverse
        | BitCount
        | IAddCarry
        | ISubBorrow
        | UMulExtended
        | SMulExtended
        | Phi
        | AccessChain
        | InBoundsAccessChain
        | PtrAccessChain
        | Undef => true,
        _ => false,
    }
}

/// Rewrite 3: transitive removal of unused effect-free instructions; returns how many went.
fn dead_code(m: &Module, f: &mut Function, gone: &mut HashSet<Word>) -> usize {
    let glsl = m
        .ext_inst_imports
        .iter()
        .find(|i| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450"))
        .and_then(|i| i.result_id);
    let mut uses: HashMap<Word, usize> = HashMap::new();
    let mut def: HashMap<Word, (usize, usize)> = HashMap::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (ii, i) in b.instructions.iter().enumerate() {
            if let Some(r) = i.result_id {
                def.insert(r, (bi, ii));
            }
            for x in i.operands.iter().filter_map(id) {
                *uses.entry(x).or_default() += 1;
            }
        }
    }
    let mut dead: HashSet<(usize, usize)> = HashSet::new();
    let mut work: Vec<Word> = def
        .keys()
        .copied()
        .filter(|r| !uses.contains_key(r))
        .collect();
    while let Some(r) = work.pop() {
        let (bi, ii) = def[&r];
        let i = &f.blocks[bi].instructions[ii];
        if dead.contains(&(bi, ii))
            || uses.get(&r).copied().unwrap_or(0) > 0
            || !effect_free(i, glsl)
        {
            continue;
        }
        dead.insert((bi, ii));
        gone.insert(r);
        for x in i.operands.iter().filter_map(id) {
            if let Some(u) = uses.get_mut(&x) {
                *u -= 1;
                if *u == 0 && def.contains_key(&x) {
                    work.push(x);
                }
            }
        }
    }
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        let mut ii = 0;
        b.instructions.retain(|_| {
            let k = ii;
            ii += 1;
            !dead.contains(&(bi, k))
        });
    }
    dead.len()
}

/// Immediate dominators of the blocks reachable from the entry (by block index), Cooper, Harvey and
/// Kennedy's iteration over reverse postorder; unreachable blocks get none.
fn dominators(f: &Function) -> Vec<Option<usize>> {
    let n = f.blocks.len();
    let labels: HashSet<Word> = f.blocks.iter().map(label).collect();
    let at: HashMap<Word, usize> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(k, b)| (label(b), k))
        .collect();
    let succ: Vec<Vec<usize>> = f
        .blocks
        .iter()
        .map(|b| successors(b, &labels).iter().map(|l| at[l]).collect())
        .collect();
    // Iterative depth-first postorder from the entry.
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(0usize, 0usize)];
    if n > 0 {
        seen[0] = true;
    }
    while let Some((b, k)) = stack.pop() {
        if k < succ[b].len() {
            stack.push((b, k + 1));
            let s = succ[b][k];
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    let mut order = vec![usize::MAX; n];
    for (k, &b) in post.iter().enumerate() {
        order[b] = k;
    }
    let mut preds: Vec<Vec<usize>> = vec![vec![]; n];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if n == 0 {
        return idom;
    }
    idom[0] = Some(0);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in post.iter().rev().filter(|&&b| b != 0) {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut a) => {
                        let mut c = p;
                        while a != c {
                            while order[a] < order[c] {
                                a = idom[a].unwrap_or(0);
                            }
                            while order[c] < order[a] {
                                c = idom[c].unwrap_or(0);
                            }
                        }
                        a
                    }
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom[0] = None;
    idom
}

/// Operations [`common`] may merge: effect-free and independent of memory and of the block they are in.
fn mergeable(i: &Instruction, glsl: Option<Word>) -> bool {
    !matches!(
        i.class.opcode,
        Op::Load | Op::Variable | Op::Phi | Op::Undef
    ) && effect_free(i, glsl)
}

/// Rewrite 4: an effect-free operation equal (opcode, type, operands) to one in a dominating position is
/// replaced by it; ids that carry a decoration (`NoContraction`, ...) are never merged. Returns how many went.
fn common(m: &Module, f: &mut Function, gone: &mut HashSet<Word>) -> usize {
    let glsl = m
        .ext_inst_imports
        .iter()
        .find(|i| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450"))
        .and_then(|i| i.result_id);
    let decorated: HashSet<Word> = m
        .annotations
        .iter()
        .filter_map(|i| i.operands.first().and_then(id))
        .collect();
    let idom = dominators(f);
    let n = f.blocks.len();
    let mut kids: Vec<Vec<usize>> = vec![vec![]; n];
    for (b, d) in idom.iter().enumerate() {
        if let Some(d) = d {
            kids[*d].push(b);
        }
    }
    type Key = (Op, Option<Word>, Vec<Operand>);
    let mut table: HashMap<Key, Word> = HashMap::new();
    let mut repl: HashMap<Word, Word> = HashMap::new();
    let resolve = |repl: &HashMap<Word, Word>, mut x: Word| {
        while let Some(&y) = repl.get(&x) {
            x = y;
        }
        x
    };
    // Depth-first over the dominator tree; each block's entries leave the table when its subtree is done.
    enum Step {
        Enter(usize),
        Leave(Vec<Key>),
    }
    let mut stack = vec![Step::Enter(0)];
    while let Some(s) = stack.pop() {
        match s {
            Step::Leave(keys) => {
                for k in keys {
                    table.remove(&k);
                }
            }
            Step::Enter(b) if b < n => {
                let mut added = vec![];
                for i in &mut f.blocks[b].instructions {
                    for o in &mut i.operands {
                        if let Operand::IdRef(x) = o {
                            *x = resolve(&repl, *x);
                        }
                    }
                    let Some(r) = i.result_id else { continue };
                    if !mergeable(i, glsl) || decorated.contains(&r) {
                        continue;
                    }
                    let key = (i.class.opcode, i.result_type, i.operands.clone());
                    match table.get(&key) {
                        Some(&e) => {
                            repl.insert(r, e);
                        }
                        None => {
                            table.insert(key.clone(), r);
                            added.push(key);
                        }
                    }
                }
                stack.push(Step::Leave(added));
                for &k in kids[b].iter().rev() {
                    stack.push(Step::Enter(k));
                }
            }
            Step::Enter(_) => {}
        }
    }
    let merged = repl.len();
    for b in &mut f.blocks {
        b.instructions.retain(|i| {
            let drop = i.result_id.is_some_and(|r| repl.contains_key(&r));
            if drop {
                gone.insert(i.result_id.unwrap_or(0));
            }
            !drop
        });
        for i in &mut b.instructions {
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    *x = resolve(&repl, *x);
                }
            }
        }
    }
    merged
}

/// Private scalars: Function variables used only as the pointer of a plain load or of a store, with
/// their initializer.
fn private_scalars(f: &Function) -> HashMap<Word, Option<Word>> {
    let Some(entry) = f.blocks.first() else {
        return HashMap::new();
    };
    let mut scalars: HashMap<Word, Option<Word>> = entry
        .instructions
        .iter()
        .filter(|i| is_function_var(i))
        .filter_map(|i| Some((i.result_id?, i.operands.get(1).and_then(id))))
        .collect();
    for b in &f.blocks {
        for i in &b.instructions {
            for (k, o) in i.operands.iter().enumerate() {
                let Some(x) = id(o) else { continue };
                if !scalars.contains_key(&x) {
                    continue;
                }
                let ok = k == 0
                    && ((i.class.opcode == Op::Load && plain_load(i))
                        || i.class.opcode == Op::Store);
                if !ok {
                    scalars.remove(&x);
                }
            }
        }
    }
    scalars
}

/// Operations a flattened selection may run whatever its condition: effect-free, no memory, and
/// defined for every operand (integer division and remainder by zero are undefined behaviour in SPIR-V;
/// shifts past the width and out-of-range conversions only give an undefined value, which the select
/// then discards).
fn speculable(i: &Instruction, glsl: Option<Word>) -> bool {
    use Op::*;
    mergeable(i, glsl)
        && !matches!(
            i.class.opcode,
            UDiv | SDiv
                | UMod
                | SRem
                | SMod
                | AccessChain
                | InBoundsAccessChain
                | PtrAccessChain
                | ConvertUToPtr
                | ExtInst
        )
}

/// Rewrite 0: if-conversion of guarded register writes. A selection `H: if (c) { T } M:` whose body `T`
/// is one block of speculable operations, loads of private scalars and stores to them, becomes straight
/// code in `H`: each `store p, v` of `T` becomes `store p, select(c, v, load p)`, each phi of `M`
/// `(v, T), (z, H)` becomes `select(c, v, z)`, and `M` joins `H` when `H` is its only predecessor and no
/// construct names it. Exact: when `c` holds the stores store `v` as before; when it does not, each
/// private scalar is stored its own value, which no one else can write or read in between, and the
/// values `T` computed are used only in `T` (it dominates no other block) and in those selects, which
/// discard them. Returns the selections removed.
fn flatten(f: &mut Function, bound: &mut Word, gone: &mut HashSet<Word>) -> usize {
    let scalars = private_scalars(f);
    // The value type of each private scalar, from its loads (one with no load is never read: its
    // stores in a flattened body are dropped).
    let mut ty: HashMap<Word, Word> = HashMap::new();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        if i.class.opcode == Op::Load {
            if let (Some(p), Some(t)) = (i.operands.first().and_then(id), i.result_type) {
                ty.insert(p, t);
            }
        }
    }
    let mut fresh = *bound;
    let at: HashMap<Word, usize> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(k, b)| (label(b), k))
        .collect();
    let labels: HashSet<Word> = at.keys().copied().collect();
    let mut preds: HashMap<Word, usize> = HashMap::new();
    let mut named: HashSet<Word> = HashSet::new();
    for b in &f.blocks {
        for s in successors(b, &labels) {
            *preds.entry(s).or_default() += 1;
        }
        for i in &b.instructions {
            if matches!(i.class.opcode, Op::SelectionMerge | Op::LoopMerge) {
                named.extend(i.operands.iter().filter_map(id));
            }
        }
    }
    // Blocks joined into another: phis naming them as predecessors name the other.
    let mut joined: HashMap<Word, Word> = HashMap::new();
    let mut done = 0;
    let mut hi = 0;
    while hi < f.blocks.len() {
        let h = &f.blocks[hi];
        let k = h.instructions.len();
        if h.label.is_none()
            || k < 2
            || h.instructions[k - 2].class.opcode != Op::SelectionMerge
            || h.instructions[k - 1].class.opcode != Op::BranchConditional
        {
            hi += 1;
            continue;
        }
        let merge = id(&h.instructions[k - 2].operands[0]).unwrap_or(0);
        let br = &h.instructions[k - 1];
        let (c, t, e) = (
            id(&br.operands[0]).unwrap_or(0),
            id(&br.operands[1]).unwrap_or(0),
            id(&br.operands[2]).unwrap_or(0),
        );
        let Some(&ti) = at.get(&t) else {
            hi += 1;
            continue;
        };
        let tb = &f.blocks[ti];
        let tl = tb.instructions.len();
        let body_ok = e == merge
            && t != merge
            && preds.get(&t) == Some(&1)
            && !named.contains(&t)
            && tl >= 1
            && tb.instructions[tl - 1].class.opcode == Op::Branch
            && id(&tb.instructions[tl - 1].operands[0]) == Some(merge)
            && tb.instructions[..tl - 1]
                .iter()
                .all(|i| match i.class.opcode {
                    Op::Load | Op::Store => i
                        .operands
                        .first()
                        .and_then(id)
                        .is_some_and(|p| scalars.contains_key(&p)),
                    _ => speculable(i, None),
                });
        let Some(&mi) = at.get(&merge) else {
            hi += 1;
            continue;
        };
        // Phis of M must come from exactly H and T.
        let phis_ok = f.blocks[mi]
            .instructions
            .iter()
            .filter(|i| i.class.opcode == Op::Phi)
            .all(|i| {
                i.operands.len() == 4
                    && i.operands
                        .iter()
                        .skip(1)
                        .step_by(2)
                        .filter_map(id)
                        .all(|l| l == t || l == label(h))
            });
        if !body_ok || !phis_ok || preds.get(&merge) != Some(&2) {
            hi += 1;
            continue;
        }
        let hl = label(h);
        // Build the straight code.
        let body: Vec<Instruction> = f.blocks[ti].instructions[..tl - 1].to_vec();
        let mut code = Vec::with_capacity(body.len() * 2);
        for i in body {
            if i.class.opcode == Op::Store {
                let p = id(&i.operands[0]).unwrap_or(0);
                let v = id(&i.operands[1]).unwrap_or(0);
                let Some(&vt) = ty.get(&p) else { continue };
                let (old, sel) = (fresh, fresh + 1);
                fresh += 2;
                code.push(Instruction::new(
                    Op::Load,
                    Some(vt),
                    Some(old),
                    vec![Operand::IdRef(p)],
                ));
                code.push(Instruction::new(
                    Op::Select,
                    Some(vt),
                    Some(sel),
                    vec![Operand::IdRef(c), Operand::IdRef(v), Operand::IdRef(old)],
                ));
                code.push(Instruction::new(
                    Op::Store,
                    None,
                    None,
                    vec![Operand::IdRef(p), Operand::IdRef(sel)],
                ));
            } else {
                code.push(i);
            }
        }
        let h = &mut f.blocks[hi];
        h.instructions.truncate(k - 2);
        h.instructions.extend(code);
        // Phis of M become selects at the end of H.
        let mut phis = vec![];
        f.blocks[mi].instructions.retain(|i| {
            if i.class.opcode == Op::Phi {
                phis.push(i.clone());
                false
            } else {
                true
            }
        });
        for p in phis {
            let mut v_t = 0;
            let mut v_h = 0;
            for pair in p.operands.chunks(2) {
                let (v, l) = (id(&pair[0]).unwrap_or(0), id(&pair[1]).unwrap_or(0));
                if l == t {
                    v_t = v;
                } else {
                    v_h = v;
                }
            }
            f.blocks[hi].instructions.push(Instruction::new(
                Op::Select,
                p.result_type,
                p.result_id,
                vec![Operand::IdRef(c), Operand::IdRef(v_t), Operand::IdRef(v_h)],
            ));
        }
        gone.insert(t);
        // M joins H when nothing else reaches or names it (H's own merge is gone now).
        named.remove(&merge);
        if !named.contains(&merge) {
            let m_code = std::mem::take(&mut f.blocks[mi].instructions);
            f.blocks[hi].instructions.extend(m_code);
            joined.insert(merge, hl);
            gone.insert(merge);
            f.blocks[mi].label = None;
        } else {
            f.blocks[hi].instructions.push(Instruction::new(
                Op::Branch,
                None,
                None,
                vec![Operand::IdRef(merge)],
            ));
        }
        f.blocks[ti].label = None;
        done += 1;
        // Stay on H: its new end may be another selection to flatten. Indices stay valid: blocks
        // are only marked here and removed below.
    }
    f.blocks.retain(|b| b.label.is_some());
    let resolve = |mut x: Word| {
        while let Some(&y) = joined.get(&x) {
            x = y;
        }
        x
    };
    for i in f
        .blocks
        .iter_mut()
        .flat_map(|b| &mut b.instructions)
        .filter(|i| i.class.opcode == Op::Phi)
    {
        for (k, o) in i.operands.iter_mut().enumerate() {
            if let (1, Operand::IdRef(x)) = (k % 2, &mut *o) {
                *x = resolve(*x);
            }
        }
    }
    *bound = fresh;
    done
}
