//! Module size proportionate to the code (decisions D162, D182): value-level rewrites of the finished lane
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
//!    instruction with an effect needs is deleted (mark and sweep, so cycles of phis go too). Decorations
//!    and names of deleted ids go with them.
//!
//! The others: if-conversion ([`flatten`]), CSE ([`common`]; once more at the end of each function, after
//! [`simplify`] and [`trivial_phis`], for what the narrowing, pair and join rewrites leave, and there
//! equal operations none of which dominates the others made one in their nearest common dominator,
//! [`hoist`], D263; with access chains into variables, D271), liveness dead stores ([`dead_stores`];
//! again at the end of each function, with dead code, until none is left, D270),
//! outlining of float primitives ([`outline`], D163; then, a second round, of whole machine instructions'
//! computations of one result around the primitives' calls, D235), SSA construction ([`promote`], D182; counting the guarded writes [`regroup`] will group, D258) and integer /
//! boolean identities, constant folding and `OpIAddCarry` ([`simplify`], [`add_carry`], D182; with
//! `OpISubBorrow`, `OpUMulExtended` and constant operands, D255), guard
//! selects nobody observes ([`unguard`], D193; use by use, D257), known low zero bits ([`low_zeros`], [`guarded_uses`],
//! [`trivial_phis`], D199; and ORs of bits no reader observes, [`demanded_ors`], D242), 64-bit
//! arithmetic whose high word nobody reads done in 32 bits ([`narrow`], `n`), shared lane-bit tests
//! ([`bit_tests`], `b`; bits of zero-extended words on the word, [`narrow_bit_of_zext`], D232), stores
//! of the value a variable holds
//! ([`same_stores`], `e`) and word pairs as bitcasts of two-word vectors ([`pairs`], `p`) (D205; with
//! `p`, after every function, the outlined functions' u64 parameters and results as such vectors,
//! [`pair_signatures`], D233); each
//! function's docs give its exactness argument. Order: `o`, the removal of the input copies of float
//! primitives left inline ([`uncopy`], D197, whatever the letters), then per function `s`, `i`, `f`,
//! `m`, `a`, `c`, `k` (then `a`, trivial phis and `c` again), `g`, then (with any of `n`, `b`, `e`, `p`)
//! dead code, `n`, `b`, `e`, `a` and trivial phis again, `p`; then `v`, the loads of several components
//! of one vector element as one vector load ([`vector_loads`], D211), `w`, consecutive global words as
//! one vector load or store ([`wide_words`], D226; scalar loads' dword addresses too, D230; then their
//! masked bases shared, [`masked_offsets`], D242), `l`, `r`,
//! the guarded writes of registers left in memory grouped under one selection per condition
//! ([`regroup`], D221; the kept arm being the value the variable holds, [`held_before_stores`], D259), `j`, one-armed selections on one condition one after the other joined
//! ([`join`], D223; what only the second arm reads moved into it, D268; first a selection on a
//! condition a dominating branch decided made a branch to its arm, [`known_branches`], D269; then `f` and `e` again, and with `a` the mask tests of its runs merged,
//! [`merge_mask_tests`], D227), `d` (first, with `a`, words split from one value and joined again made
//! the value, [`repack`], D262, also after [`pair_signatures`]; after the dead code, with `a`, 64-bit sums
//! and shifts done on words whose words are put together as a u64 again computed as u64 operations where
//! that saves words, [`sums::wide_sums`], D274; then, with `l`, the initializers no load
//! can observe,
//! [`unread_initializers`], D261; with `p`, two registers read as one two-word vector made one `uvec2`
//! variable, [`pair_vars`], D260; with `n`, then `n` once more, and where it narrowed, `a`, `c` and `d`
//! again: D255); after every function, with `d`, the global types, constants and variables nothing
//! reads ([`dead_globals`], D261). `e` knows the value a variable holds across blocks (D261).
//!
//! Measured in docs/performance.md ("Lane module size"); the ablation tables are in D162 and D182.

use crate::hash::{HashMap, HashSet};
use std::collections::BTreeMap;

use rspirv::dr::{Function, Instruction, Module, Operand};
use spirv::{Op, StorageClass, Word};

mod sums;

/// What each rewrite removed (instructions), for the ablation.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ShrinkStats {
    pub arrays_split: usize,
    pub loads_forwarded: usize,
    pub stores_removed: usize,
    pub dead: usize,
    pub common: usize,
    pub flattened: usize,
    pub dead_stores: usize,
    pub outlined: usize,
    pub promoted: usize,
    pub phis: usize,
    pub simplified: usize,
    pub unguarded: usize,
    pub low_zeros: usize,
    pub narrowed: usize,
    pub vector_loads: usize,
    pub regrouped: usize,
    pub joined: usize,
    pub wide_words: usize,
}

/// Which rewrites run (all, by default; `RDNA2SPV_SHRINK` = a subset of `o`, `s`, `i`, `f`, `m`, `k`, `a`, `c`,
/// `g`, `n`, `b`, `e`, `p`, `v`, `w`, `r`, `j`, `l`, `d` for the ablations of D162, D182, D193, D199, D205, D211,
/// D221, D223 and D226, read by [`Passes::from_env`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Passes {
    pub split: bool,
    pub forward: bool,
    pub dead: bool,
    pub common: bool,
    pub flat: bool,
    pub live: bool,
    pub outline: bool,
    pub ssa: bool,
    pub algebra: bool,
    pub unguard: bool,
    pub low_zeros: bool,
    pub narrow: bool,
    pub bits: bool,
    pub pairs: bool,
    pub same: bool,
    pub vectors: bool,
    pub regroup: bool,
    pub join: bool,
    pub wide: bool,
}

impl Passes {
    /// No rewrite (tests switch on the ones they check).
    #[cfg(test)]
    pub(crate) const NONE: Passes = Passes {
        split: false,
        forward: false,
        dead: false,
        common: false,
        flat: false,
        live: false,
        outline: false,
        ssa: false,
        algebra: false,
        unguard: false,
        low_zeros: false,
        narrow: false,
        bits: false,
        pairs: false,
        same: false,
        vectors: false,
        regroup: false,
        join: false,
        wide: false,
    };

    pub(crate) const ALL: Passes = Passes {
        split: true,
        forward: true,
        dead: true,
        common: true,
        flat: true,
        live: true,
        outline: true,
        ssa: true,
        algebra: true,
        unguard: true,
        low_zeros: true,
        narrow: true,
        bits: true,
        pairs: true,
        same: true,
        vectors: true,
        regroup: true,
        join: true,
        wide: true,
    };

    /// The passes named by `RDNA2SPV_SHRINK` (letters `o`, `s`, `i`, `f`, `m`, `k`, `a`, `c`, `g`, `n`, `b`,
    /// `e`, `p`, `v`, `w`, `r`, `j`, `l`, `d`;
    /// `-` or empty: none), else all.
    pub(crate) fn from_env() -> Passes {
        match std::env::var("RDNA2SPV_SHRINK") {
            Ok(s) => Passes {
                split: s.contains('s'),
                forward: s.contains('f'),
                dead: s.contains('d'),
                common: s.contains('c'),
                flat: s.contains('i'),
                live: s.contains('l'),
                outline: s.contains('o'),
                ssa: s.contains('m'),
                algebra: s.contains('a'),
                unguard: s.contains('g'),
                low_zeros: s.contains('k'),
                narrow: s.contains('n'),
                bits: s.contains('b'),
                pairs: s.contains('p'),
                same: s.contains('e'),
                vectors: s.contains('v'),
                regroup: s.contains('r'),
                join: s.contains('j'),
                wide: s.contains('w'),
            },
            Err(_) => Passes::ALL,
        }
    }
}

/// Runs the chosen rewrites over every function of `m` (see the module docs).
pub(crate) fn shrink(
    m: &mut Module,
    p: Passes,
    spans: &[(Word, Word, u32)],
    inst_spans: &[(Word, Word, u32)],
    inst_results: &HashMap<Word, Vec<Word>>,
) -> ShrinkStats {
    let mut st = ShrinkStats::default();
    let mut bound = m.header.as_ref().map(|h| h.bound).unwrap_or(0);
    let mut gone: HashSet<Word> = HashSet::default();
    if p.outline {
        st.outlined = outline(m, spans, &HashMap::default(), &mut bound, &mut gone);
        // D235: then whole instructions' computations, their primitives now calls.
        st.outlined += outline(m, inst_spans, inst_results, &mut bound, &mut gone);
    }
    uncopy(m, spans, &mut gone);
    let mut funcs = std::mem::take(&mut m.functions);
    let pure = pure_functions(&funcs, glsl_import(m));
    let speculable_fns = speculable_functions(&funcs, glsl_import(m));
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
        if p.ssa {
            let (v, phis) = promote(m, f, &mut bound, &mut gone);
            st.promoted += v;
            st.phis += phis;
        }
        if p.algebra {
            st.simplified += simplify(m, f, &mut bound, &mut gone);
            st.simplified += add_carry(m, f, &mut bound, &mut gone);
        }
        if p.common {
            st.common += common(m, f, &mut gone);
        }
        if p.low_zeros {
            st.low_zeros += low_zeros(m, f, &mut bound, &mut gone);
            st.low_zeros += simplify(m, f, &mut bound, &mut gone);
            st.low_zeros += trivial_phis(f, &mut gone);
            st.low_zeros += common(m, f, &mut gone);
        }
        if p.unguard {
            st.unguarded += unguard(m, &speculable_fns, f, &mut gone);
        }
        if p.narrow || p.bits || p.pairs || p.same {
            // Dead readers (a carry nobody uses) would keep a 64-bit operation wide.
            st.dead += dead_code(m, f, &mut gone);
            if p.narrow {
                st.narrowed += narrow(m, f, &mut bound, &mut gone);
            }
            if p.bits {
                st.narrowed += narrow_bit_of_zext(m, f, &mut bound);
                st.narrowed += bit_tests(m, f, &mut bound);
            }
            if p.same {
                st.narrowed += same_stores(f);
            }
            // What `g` and the above left to fold (`g` makes selects of constants their constant).
            st.narrowed += simplify(m, f, &mut bound, &mut gone);
            st.narrowed += trivial_phis(f, &mut gone);
            if p.pairs {
                st.narrowed += pairs(m, f, &mut bound, &mut gone);
            }
        }
        if p.vectors {
            st.vector_loads += vector_loads(m, f, &mut bound);
        }
        if p.wide {
            st.wide_words += wide_words(m, f, &mut bound);
            // After the grouping, which keys scalar loads' words by their `(x + c) & !3` form.
            st.wide_words += masked_offsets(m, f, &mut bound);
        }
        if p.live {
            st.dead_stores += dead_stores(f);
        }
        if p.regroup {
            st.regrouped += regroup(f, &mut bound);
        }
        if p.join {
            // D269: a selection on a condition known where it stands is its arm.
            let known = known_branches(f);
            if known > 0 {
                trivial_phis(f, &mut gone);
            }
            st.joined += known;
            st.joined += join(m, f, &pure);
            if p.forward {
                // The joined arms load and store the misaligned flag again and again in one block.
                let (l, s) = forward(f, &mut gone);
                st.loads_forwarded += l;
                st.stores_removed += s;
                if p.same {
                    st.narrowed += same_stores(f);
                }
            }
            if p.algebra {
                st.simplified += merge_mask_tests(m, f, &mut bound);
            }
        }
        if p.common {
            // The narrowing, pair, vector and join rewrites above leave identities to fold and make equal
            // computations again (two extensions of one word): session 35, −0.30 % words.
            st.common += simplify(m, f, &mut bound, &mut gone);
            st.common += trivial_phis(f, &mut gone);
            st.common += common(m, f, &mut gone);
            // D263: and equal operations none of which dominates the others.
            st.common += hoist(m, f, &mut gone);
        }
        if p.dead {
            if p.algebra {
                // D267: a word pair's XOR with a zero-extended word, on the pair (before `repack`,
                // which folds the bitcasts it leaves).
                st.simplified += pair_xors(m, f, &mut bound);
                // D262: words split and put together again by the rewrites above (D251's wide loads
                // meeting u64 operands, a float result stored as words).
                st.simplified += repack(m, f, &mut gone);
                // D266: after the narrowing, which makes most such sums `OpIAddCarry`.
                st.simplified += carry_compares(m, f, &mut bound);
            }
            st.dead += dead_code(m, f, &mut gone);
            if p.algebra {
                // D274: 64-bit sums and shifts done on words whose words are put together again, as
                // u64 operations (after the dead code, whose readers would keep the words; then
                // `repack` folds the words they are read as, and two sums of one pair share its u64).
                // A sum of a sum rewritten here pays once the inner one's words are its u64's: a
                // second round (a third finds nothing in the bench's sample).
                for _ in 0..2 {
                    let n = sums::wide_sums(m, f, &mut bound);
                    if n == 0 {
                        break;
                    }
                    st.simplified += n + repack(m, f, &mut gone);
                    st.common += common(m, f, &mut gone);
                    st.dead += dead_code(m, f, &mut gone);
                }
            }
            if p.live {
                // D270: the joins' forwarding and the dead code above delete loads; the stores only they
                // read go now, and the computations only those stores read with them, until none is left
                // (the sample needs at most three rounds; the bound keeps a pathological chain linear).
                for _ in 0..16 {
                    // D280: and variables read only to be stored again.
                    let n = dead_stores(f) + unobserved_vars(m, f, &mut gone);
                    if n == 0 {
                        break;
                    }
                    st.dead_stores += n;
                    st.dead += dead_code(m, f, &mut gone);
                }
                st.dead_stores += unread_initializers(f);
            }
            if p.pairs {
                let n = pair_vars(m, f, &mut bound);
                if n > 0 {
                    st.narrowed += n;
                    st.dead += dead_code(m, f, &mut gone);
                }
            }
            if p.narrow {
                let n = narrow(m, f, &mut bound, &mut gone);
                if n > 0 {
                    st.narrowed += n;
                    st.narrowed += simplify(m, f, &mut bound, &mut gone);
                    st.common += common(m, f, &mut gone);
                    st.dead += dead_code(m, f, &mut gone);
                }
            }
        }
    }
    m.functions = funcs;
    if p.pairs {
        // D233: u64 parameters and results of the outlined functions as word pairs; the callers'
        // packing bitcasts then go.
        let n = pair_signatures(m, &mut bound);
        if n > 0 {
            st.narrowed += n;
            let mut funcs = std::mem::take(&mut m.functions);
            for f in &mut funcs {
                if p.algebra {
                    // D262: a call's word-pair result bitcast to u64 and back.
                    st.simplified += repack(m, f, &mut gone);
                }
                st.dead += dead_code(m, f, &mut gone);
            }
            m.functions = funcs;
        }
    }
    if p.dead {
        // Types, constants and variables nothing reads go, whoever made them (the lowering's folded
        // offsets, a split array's type): D261, about 1 % of the words.
        st.dead += dead_globals(m, &mut gone);
    } else {
        // Constants and undefined values the rewrites made and then left unused go.
        let first_new = m.header.as_ref().map(|h| h.bound).unwrap_or(0);
        if bound > first_new {
            let used: HashSet<Word> = m
                .all_inst_iter()
                .flat_map(|i| i.operands.iter().filter_map(id).chain(i.result_type))
                .collect();
            m.types_global_values.retain(|i| {
                let made = i
                    .result_id
                    .is_some_and(|r| r >= first_new && !used.contains(&r));
                !(made
                    && matches!(
                        i.class.opcode,
                        Op::Constant | Op::ConstantTrue | Op::ConstantFalse | Op::Undef
                    ))
            });
        }
    }
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

/// Removes the global types, constants, undefined values and variables no instruction reads, until
/// none is left (an array type gone leaves its length unused); a decoration or name of one goes with it.
/// Returns how many went.
fn dead_globals(m: &mut Module, gone: &mut HashSet<Word>) -> usize {
    let mut removed = 0;
    loop {
        let mut used: HashSet<Word> = HashSet::default();
        let named = m.annotations.iter().chain(&m.debug_names);
        for i in named {
            // A decoration's target is not a reader; an id among its other operands is.
            used.extend(i.operands.iter().skip(1).filter_map(any_id));
        }
        let others = m
            .capabilities
            .iter()
            .chain(&m.extensions)
            .chain(&m.ext_inst_imports)
            .chain(&m.memory_model)
            .chain(&m.entry_points)
            .chain(&m.execution_modes)
            .chain(&m.debug_string_source)
            .chain(&m.debug_module_processed)
            .chain(&m.types_global_values);
        for i in others {
            used.extend(i.operands.iter().filter_map(any_id).chain(i.result_type));
        }
        for f in &m.functions {
            for i in f.all_inst_iter() {
                used.extend(i.operands.iter().filter_map(any_id).chain(i.result_type));
            }
        }
        let before = m.types_global_values.len();
        m.types_global_values.retain(|i| match i.result_id {
            Some(r) if !used.contains(&r) => {
                gone.insert(r);
                false
            }
            _ => true,
        });
        let n = before - m.types_global_values.len();
        if n == 0 {
            let named = |i: &Instruction| match i.operands.first() {
                Some(Operand::IdRef(t)) => !gone.contains(t),
                _ => true,
            };
            m.annotations.retain(named);
            m.debug_names.retain(named);
            return removed;
        }
        removed += n;
    }
}

/// An id operand of any kind: a reference, a scope or memory semantics (constants).
fn any_id(o: &Operand) -> Option<Word> {
    match o {
        Operand::IdRef(x) | Operand::IdScope(x) | Operand::IdMemorySemantics(x) => Some(*x),
        _ => None,
    }
}

fn id(o: &Operand) -> Option<Word> {
    match o {
        Operand::IdRef(x) => Some(*x),
        _ => None,
    }
}

/// The ids a decoration names (`NoContraction` on a float operation, ...): the rewrites leave them alone.
fn decorated_ids(m: &Module) -> HashSet<Word> {
    m.annotations
        .iter()
        .filter_map(|i| i.operands.first().and_then(id))
        .collect()
}

/// The hash of an operation's key (opcode, type, operands), for the tables of [`common`] and [`hoist`].
fn key_hash(op: Op, ty: Option<Word>, operands: &[Operand]) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one((op, ty, operands))
}

/// The id of the module's `GLSL.std.450` import.
/// A GLSL.std.450 function (`glsl`: the module's import of that set) that writes through no pointer
/// operand: all but Modf 35, Frexp 51 and InterpolateAt* 76-78.
pub(super) fn glsl_effect_free(i: &Instruction, glsl: Option<Word>) -> bool {
    glsl.is_some()
        && i.operands.first().and_then(id) == glsl
        && !matches!(
            i.operands.get(1),
            Some(Operand::LiteralExtInstInteger(35 | 51 | 76..=78))
        )
}

pub(super) fn glsl_import(m: &Module) -> Option<Word> {
    m.ext_inst_imports
        .iter()
        .find(|i| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450"))
        .and_then(|i| i.result_id)
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
    let mut cands: HashMap<Word, Cand> = HashMap::default();
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
                fresh: HashMap::default(),
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
    let mut repl: HashMap<Word, Word> = HashMap::default();
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

/// Each block's distinct predecessors, by label.
fn label_preds(f: &Function) -> HashMap<Word, Vec<Word>> {
    let labels: HashSet<Word> = f.blocks.iter().map(label).collect();
    let mut preds: HashMap<Word, Vec<Word>> = HashMap::default();
    for b in &f.blocks {
        for s in successors(b, &labels) {
            let p = preds.entry(s).or_default();
            if !p.contains(&label(b)) {
                p.push(label(b));
            }
        }
    }
    preds
}

/// What [`forward`]'s dataflow knows on entry to block `bi` (label `l`): in the entry block the
/// variables' initializers; elsewhere the facts every predecessor's exit agrees on when all were visited
/// (blocks in layout order: a block after its dominators), else nothing (loop headers).
fn known_on_entry(
    (bi, l): (usize, Word),
    init: impl Iterator<Item = (Word, Word)>,
    preds: &HashMap<Word, Vec<Word>>,
    exit: &HashMap<Word, HashMap<Word, Word>>,
) -> HashMap<Word, Word> {
    if bi == 0 {
        return init.collect();
    }
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
        _ => HashMap::default(),
    }
}

/// The private scalars that have an initializer, with it.
fn scalars_init(scalars: &HashMap<Word, Option<Word>>) -> impl Iterator<Item = (Word, Word)> + '_ {
    scalars.iter().filter_map(|(v, init)| Some((*v, (*init)?)))
}

/// Rewrite 2: store-to-load forwarding over private scalars, then dead stores; returns (loads
/// forwarded, stores removed).
fn forward(f: &mut Function, gone: &mut HashSet<Word>) -> (usize, usize) {
    let scalars = private_scalars(f);
    if scalars.is_empty() {
        return (0, 0);
    }
    let preds = label_preds(f);
    let resolve = |repl: &HashMap<Word, Word>, mut x: Word| {
        while let Some(&y) = repl.get(&x) {
            x = y;
        }
        x
    };
    let mut exit: HashMap<Word, HashMap<Word, Word>> = HashMap::default();
    let mut repl: HashMap<Word, Word> = HashMap::default();
    let mut dead_stores: HashSet<(usize, usize)> = HashSet::default();
    let mut forwarded: HashSet<(usize, usize)> = HashSet::default();
    for (bi, b) in f.blocks.iter().enumerate() {
        let l = label(b);
        let mut known = known_on_entry((bi, l), scalars_init(&scalars), &preds, &exit);
        let mut pending: HashMap<Word, usize> = HashMap::default();
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
    let mut loaded: HashSet<Word> = HashSet::default();
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
        ExtInst => glsl_effect_free(i, glsl),
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

/// Rewrite 3: removal of effect-free instructions whose results no effect needs (mark and sweep from
/// the instructions with an effect, so cycles of phis that only feed each other go too); returns how
/// many went.
fn dead_code(m: &Module, f: &mut Function, gone: &mut HashSet<Word>) -> usize {
    let glsl = glsl_import(m);
    let mut def: HashMap<Word, (usize, usize)> = HashMap::default();
    let mut live: Vec<Vec<bool>> = Vec::with_capacity(f.blocks.len());
    let mut work: Vec<Word> = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        let mut marks = Vec::with_capacity(b.instructions.len());
        for (ii, i) in b.instructions.iter().enumerate() {
            let root = i.result_id.is_none() || !effect_free(i, glsl);
            if let Some(r) = i.result_id {
                def.insert(r, (bi, ii));
            }
            if root {
                work.extend(i.operands.iter().filter_map(id));
            }
            marks.push(root);
        }
        live.push(marks);
    }
    while let Some(x) = work.pop() {
        let Some(&(bi, ii)) = def.get(&x) else {
            continue;
        };
        if !live[bi][ii] {
            live[bi][ii] = true;
            work.extend(f.blocks[bi].instructions[ii].operands.iter().filter_map(id));
        }
    }
    let mut dead = 0;
    for (bi, b) in f.blocks.iter_mut().enumerate() {
        let mut ii = 0;
        b.instructions.retain(|i| {
            let keep = live[bi][ii];
            ii += 1;
            if !keep {
                gone.insert(i.result_id.unwrap_or(0));
                dead += 1;
            }
            keep
        });
    }
    dead
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
    let glsl = glsl_import(m);
    let decorated = decorated_ids(m);
    let idom = dominators(f);
    let n = f.blocks.len();
    let mut kids: Vec<Vec<usize>> = vec![vec![]; n];
    for (b, d) in idom.iter().enumerate() {
        if let Some(d) = d {
            kids[*d].push(b);
        }
    }
    // The table of available operations: per hash of (opcode, type, operands), the newest entry of a
    // chain of entries with that hash (index into `avail`: block, instruction, older entry with the
    // same hash). Entries are compared by the instructions themselves, so no key is copied (the copied
    // operand vectors were most of this pass; issue 31, D204). A block's entries are the newest when
    // its subtree is done and leave newest first.
    const NONE: u32 = u32::MAX;
    let mut table: HashMap<u64, u32> = HashMap::default();
    let mut avail: Vec<(u32, u32, u32, u64)> = Vec::new();
    let mut repl: HashMap<Word, Word> = HashMap::default();
    let resolve = |repl: &HashMap<Word, Word>, mut x: Word| {
        while let Some(&y) = repl.get(&x) {
            x = y;
        }
        x
    };
    let same = |a: &Instruction, b: &Instruction| {
        a.class.opcode == b.class.opcode
            && a.result_type == b.result_type
            && a.operands == b.operands
    };
    // Depth-first over the dominator tree; each block's entries leave the table when its subtree is done.
    enum Step {
        Enter(usize),
        /// Remove the entries from this length of `avail` on.
        Leave(usize),
    }
    let mut stack = vec![Step::Enter(0)];
    while let Some(s) = stack.pop() {
        match s {
            Step::Leave(len) => {
                while avail.len() > len {
                    let (_, _, older, h) = avail.pop().expect("longer than len");
                    if older == NONE {
                        table.remove(&h);
                    } else {
                        table.insert(h, older);
                    }
                }
            }
            Step::Enter(b) if b < n => {
                let len = avail.len();
                // D247: subgroup shuffles of this block (instruction indices), merged only within it.
                let mut shuffles: Vec<usize> = Vec::new();
                for ii in 0..f.blocks[b].instructions.len() {
                    let i = &mut f.blocks[b].instructions[ii];
                    for o in &mut i.operands {
                        if let Operand::IdRef(x) = o {
                            *x = resolve(&repl, *x);
                        }
                    }
                    let i = &f.blocks[b].instructions[ii];
                    let Some(r) = i.result_id else { continue };
                    if i.class.opcode == Op::GroupNonUniformShuffle && !decorated.contains(&r) {
                        // One block runs as a whole for the invocations that enter it, so two
                        // shuffles of the same value and index in it see the same invocations and
                        // return the same value; in another block the invocations may differ.
                        let blk = &f.blocks[b].instructions;
                        match shuffles.iter().find(|&&k| same(&blk[k], i)) {
                            Some(&k) => {
                                repl.insert(r, blk[k].result_id.unwrap_or(0));
                            }
                            None => shuffles.push(ii),
                        }
                        continue;
                    }
                    if !mergeable(i, glsl) || decorated.contains(&r) {
                        continue;
                    }
                    let h = key_hash(i.class.opcode, i.result_type, &i.operands);
                    let newest = table.get(&h).copied().unwrap_or(NONE);
                    let mut e = newest;
                    while e != NONE {
                        let (eb, ei, older, _) = avail[e as usize];
                        let prev = &f.blocks[eb as usize].instructions[ei as usize];
                        if same(prev, i) {
                            break;
                        }
                        e = older;
                    }
                    if e != NONE {
                        let (eb, ei, _, _) = avail[e as usize];
                        let prev = &f.blocks[eb as usize].instructions[ei as usize];
                        repl.insert(r, prev.result_id.unwrap_or(0));
                    } else {
                        table.insert(h, avail.len() as u32);
                        avail.push((b as u32, ii as u32, newest, h));
                    }
                }
                stack.push(Step::Leave(len));
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
        return HashMap::default();
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

/// D261: the initializer of a private scalar that no load can observe (every path from the entry
/// to each of its loads stores it first) goes: `OpVariable` without it is one word shorter, and the
/// variable's contents before its first store are then undefined, which nothing reads. A forward
/// "may still hold the initializer" dataflow over the CFG (union at joins, the entry block starting with
/// every variable, a store ending it), iterated to its fixed point. Returns the initializers removed.
fn unread_initializers(f: &mut Function) -> usize {
    let scalars = private_scalars(f);
    let with_init: Vec<Word> = scalars
        .iter()
        .filter(|(_, init)| init.is_some())
        .map(|(&v, _)| v)
        .collect();
    if with_init.is_empty() {
        return 0;
    }
    let slot: HashMap<Word, usize> = with_init.iter().enumerate().map(|(k, &v)| (v, k)).collect();
    let n = with_init.len();
    let labels: HashSet<Word> = f.blocks.iter().map(label).collect();
    let index: HashMap<Word, usize> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(k, b)| (label(b), k))
        .collect();
    let succ: Vec<Vec<usize>> = f
        .blocks
        .iter()
        .map(|b| successors(b, &labels).iter().map(|l| index[l]).collect())
        .collect();
    // Per block: the state on entry (may still hold the initializer), as a bit vector.
    let mut entry: Vec<Option<Vec<bool>>> = vec![None; f.blocks.len()];
    entry[0] = Some(vec![true; n]);
    let mut observed = vec![false; n];
    let mut work = vec![0usize];
    let mut queued = vec![false; f.blocks.len()];
    queued[0] = true;
    while let Some(bi) = work.pop() {
        queued[bi] = false;
        let mut st = entry[bi].clone().unwrap_or_else(|| vec![false; n]);
        for i in &f.blocks[bi].instructions {
            let Some(k) = i.operands.first().and_then(id).and_then(|v| slot.get(&v)) else {
                continue;
            };
            match i.class.opcode {
                Op::Load => observed[*k] |= st[*k],
                Op::Store => st[*k] = false,
                _ => {}
            }
        }
        for &s in &succ[bi] {
            let grown = match &mut entry[s] {
                None => {
                    entry[s] = Some(st.clone());
                    true
                }
                Some(e) => {
                    let mut g = false;
                    for (x, y) in e.iter_mut().zip(&st) {
                        if *y && !*x {
                            *x = true;
                            g = true;
                        }
                    }
                    g
                }
            };
            if grown && !queued[s] {
                queued[s] = true;
                work.push(s);
            }
        }
    }
    let unread: HashSet<Word> = with_init
        .iter()
        .zip(&observed)
        .filter(|(_, o)| !**o)
        .map(|(&v, _)| v)
        .collect();
    let mut done = 0;
    for i in f.blocks[0].instructions.iter_mut() {
        if i.class.opcode == Op::Variable
            && i.result_id.is_some_and(|r| unread.contains(&r))
            && i.operands.len() == 2
        {
            i.operands.truncate(1);
            done += 1;
        }
    }
    done
}

/// D260: two private u32 scalars read together as one two-word vector (`vec(load a, load b)`: a
/// register pair read as an address, an f64 or a 64-bit integer) become the components of one `uvec2`
/// Function variable. Every other load and store of `a` or `b` goes through a pointer to its component
/// (`OpAccessChain`, made once at the entry); the paired read becomes one vector load (4 words instead
/// of 13) where the later of its two loads was (they lie in one block with no store to either variable
/// between them, each read by the vector only; D277). A pair of stores of the two words of one vector
/// `V`, `store a V.0; store b V.1` with no other access to either variable between them, becomes
/// `store v V` at the second store (the first store's value was not observable before it), counting the
/// word extractions only the stores read (D277); so does a pair of stores of the two words of a u64 `x`
/// (`uconvert32(x)`, `uconvert32(x >> 32)`, as D274 leaves an address's words: D275), storing
/// `bitcast uvec2(x)` (the conversions and the shift that only the stores read go, the bitcast costs 4).
/// A pair of stores of two words of a three- or four-word vector `V` (a `global_load_dwordx4`'s),
/// `store a V.i; store b V.j`, stores `shuffle(V, V, i, j)` (D279: 7 words), only where an extraction that
/// only its store reads goes. Store pairs count whether or not the two registers are read together. Only
/// where the words saved
/// exceed the pointers' 10 (less the variable declaration removed); a register that pairs with several
/// others takes part in the pair that saves most, the pairs ranked by their words (D277; before, in
/// none). Runs after every rewrite that needs private scalars (the pair's variables stop being
/// scalars). Exact: the component pointers address the same words the scalars were; a paired read's
/// vector load comes just before the later of its loads with no store to either variable since the
/// earlier one, so it reads the words the two loads read; `bitcast uvec2(x)` has `x`'s low word as
/// component 0 and its high word as component 1 (SPIR-V's `OpBitcast`), the words the two stores
/// stored; `shuffle(V, V, i, j)` has `V.i` as component 0 and `V.j` as component 1 (the pair's component 0
/// is the register that stored the lower word). Returns the pairs made.
fn pair_vars(m: &mut Module, f: &mut Function, bound: &mut Word) -> usize {
    let Some(u32_) = uint_type(m, 32) else {
        return 0;
    };
    let find = |op: Op, ops: &[Operand]| {
        m.types_global_values
            .iter()
            .find(|i| i.class.opcode == op && i.operands == ops)
            .and_then(|i| i.result_id)
    };
    let (Some(uvec2), Some(pu)) = (
        find(
            Op::TypeVector,
            &[Operand::IdRef(u32_), Operand::LiteralBit32(2)],
        ),
        find(
            Op::TypePointer,
            &[
                Operand::StorageClass(StorageClass::Function),
                Operand::IdRef(u32_),
            ],
        ),
    ) else {
        return 0;
    };
    let scalars = private_scalars(f);
    let var_ty: HashMap<Word, Word> = f.blocks[0]
        .instructions
        .iter()
        .filter(|i| is_function_var(i))
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect();
    let is_u32_scalar = |v: Word| scalars.contains_key(&v) && var_ty.get(&v) == Some(&pu);
    let var_of = |i: &Instruction| -> Option<Word> {
        match i.class.opcode {
            Op::Load | Op::Store => i
                .operands
                .first()
                .and_then(id)
                .filter(|v| is_u32_scalar(*v)),
            _ => None,
        }
    };
    let (uses, defs) = uses_and_defs(f);
    // D279: the u32 vectors of three and four words (a pair of their words is stored through a shuffle).
    let long_tys: Vec<Word> = [3u32, 4]
        .iter()
        .filter_map(|&n| {
            find(
                Op::TypeVector,
                &[Operand::IdRef(u32_), Operand::LiteralBit32(n)],
            )
        })
        .collect();
    let long: HashSet<Word> = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| i.result_type.is_some_and(|t| long_tys.contains(&t)))
        .filter_map(|i| i.result_id)
        .collect();
    // Each word taken out of a two-word vector: result → (vector, component); of a longer one (D279)
    // too.
    let words: HashMap<Word, (Word, u32)> = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == Op::CompositeExtract)
        .filter_map(|i| {
            match (
                i.result_id,
                i.operands.first().and_then(id),
                i.operands.get(1),
            ) {
                (Some(r), Some(v), Some(Operand::LiteralBit32(k)))
                    if i.operands.len() == 2
                        && ((*k < 2 && defs.get(&v).is_some_and(|d| d.1 == Some(uvec2)))
                            || long.contains(&v)) =>
                {
                    Some((r, (v, *k)))
                }
                _ => None,
            }
        })
        .collect();
    // D275: the two words of a u64 `x` as D274 and the lowering take them apart,
    // `uconvert32(x)` and `uconvert32(x >> 32)`: result → (x, component); a pair of stores of them
    // stores `bitcast uvec2(x)`.
    let u64_ = uint_type(m, 64);
    let c32: HashSet<Word> = constants(m)
        .into_iter()
        .filter(|&(_, v)| v == 32)
        .map(|(c, _)| c)
        .collect();
    let mut words = words;
    let mut wide: HashSet<Word> = HashSet::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        let (Some(r), Op::UConvert, Some(x)) =
            (i.result_id, i.class.opcode, i.operands.first().and_then(id))
        else {
            continue;
        };
        if i.result_type != Some(u32_) {
            continue;
        }
        let src = match defs.get(&x) {
            Some((Op::ShiftRightLogical, t, ops)) if *t == u64_ && c32.contains(&ops[1]) => {
                Some((ops[0], 1))
            }
            Some((_, t, _)) if *t == u64_ => Some((x, 0)),
            _ => None,
        };
        if let Some((x, k)) = src {
            words.insert(r, (x, k));
            wide.insert(x);
        }
    }
    // Paired reads (vector result → (a, b)); pairs of stores (block, first, second, a, b, vector).
    let mut reads: HashMap<Word, (Word, Word)> = HashMap::default();
    let mut store_pairs: Vec<(usize, usize, usize, Word, Word, Word)> = Vec::new();
    for (bi, blk) in f.blocks.iter().enumerate() {
        // Each variable's latest access in this block: (index, load result or stored value, load?).
        let mut last: HashMap<Word, (usize, Word, bool)> = HashMap::default();
        // The latest store of a vector's word that is still its variable's latest access:
        // (vector, component) → variable.
        let mut stored: HashMap<(Word, u32), Word> = HashMap::default();
        // D279: the components of a longer vector stored so far in this block, latest last.
        let mut stored_long: HashMap<Word, Vec<u32>> = HashMap::default();
        for (ii, i) in blk.instructions.iter().enumerate() {
            if let Some(v) = var_of(i) {
                let load = i.class.opcode == Op::Load;
                let val = if load {
                    i.result_id.unwrap_or(0)
                } else {
                    i.operands.get(1).and_then(id).unwrap_or(0)
                };
                if !load {
                    if let Some(&(vec, k)) = words.get(&val) {
                        // The other word of the same vector stored to another variable, with neither
                        // variable accessed since (D279: of a longer vector, any other word, the
                        // latest stored first).
                        // (`stored` may name a variable accessed since: its latest access decides.)
                        let others: Vec<u32> = if long.contains(&vec) {
                            stored_long
                                .get(&vec)
                                .map(|c| c.iter().rev().copied().filter(|&j| j != k).collect())
                                .unwrap_or_default()
                        } else {
                            vec![1 - k]
                        };
                        for j in others {
                            let Some(&other) = stored.get(&(vec, j)) else {
                                continue;
                            };
                            if let Some(&(oi, oval, false)) = last.get(&other) {
                                let since = last.get(&v).is_some_and(|&(x, _, _)| x > oi);
                                // A longer vector's pair pays a shuffle: only where an extraction
                                // that only its store reads goes.
                                let pays = !long.contains(&vec)
                                    || uses.get(&oval) == Some(&1)
                                    || uses.get(&val) == Some(&1);
                                if other != v
                                    && !since
                                    && pays
                                    && words.get(&oval) == Some(&(vec, j))
                                {
                                    // The pair's component 0 takes the lower word.
                                    let (a, b) = if k > j { (other, v) } else { (v, other) };
                                    store_pairs.push((bi, oi, ii, a, b, vec));
                                    break;
                                }
                            }
                        }
                        stored.insert((vec, k), v);
                        if long.contains(&vec) {
                            stored_long.entry(vec).or_default().push(k);
                        }
                    }
                }
                last.insert(v, (ii, val, load));
            }
        }
    }
    // Paired reads (D277): `vec(load a, load b)` anywhere, its two loads in one block with no store to
    // either variable between them (so a vector load at the later one reads both words), each load read
    // by the vector only. (block, index of the later load) → the vector.
    let mut loads_at: HashMap<Word, (usize, usize, Word)> = HashMap::default();
    let mut stores_at: HashMap<(usize, Word), Vec<usize>> = HashMap::default();
    for (bi, blk) in f.blocks.iter().enumerate() {
        for (ii, i) in blk.instructions.iter().enumerate() {
            if let Some(v) = var_of(i) {
                if i.class.opcode == Op::Load {
                    if let Some(r) = i.result_id {
                        loads_at.insert(r, (bi, ii, v));
                    }
                } else {
                    stores_at.entry((bi, v)).or_default().push(ii);
                }
            }
        }
    }
    let stored_between = |bi: usize, v: Word, lo: usize, hi: usize| {
        stores_at
            .get(&(bi, v))
            .is_some_and(|s| s.iter().any(|&k| lo < k && k < hi))
    };
    let mut read_at: HashMap<(usize, usize), Word> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        if i.class.opcode != Op::CompositeConstruct || i.result_type != Some(uvec2) {
            continue;
        }
        let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
        let (&[x, y], Some(r)) = (&ops[..], i.result_id) else {
            continue;
        };
        let (Some(&(bx, ix, a)), Some(&(by, iy, b))) = (loads_at.get(&x), loads_at.get(&y)) else {
            continue;
        };
        if bx != by || a == b || uses.get(&x) != Some(&1) || uses.get(&y) != Some(&1) {
            continue;
        }
        let at = ix.max(iy);
        if stored_between(bx, a, ix, at) || stored_between(bx, b, iy, at) {
            continue;
        }
        reads.insert(r, (a, b));
        read_at.insert((bx, at), r);
    }
    // Count the words each pair saves.
    let mut gain: HashMap<(Word, Word), i64> = HashMap::default();
    for &(a, b) in reads.values() {
        *gain.entry((a, b)).or_default() += 9;
    }
    // A pair of stores saves a store; of a u64's words (D275) also the conversions and the shift that
    // only those stores read, less the bitcast (4): counted whether or not the pair is read together.
    for &(bi, oi, ii, a, b, x) in &store_pairs {
        let mut g = 3;
        let val = |k: usize| f.blocks[bi].instructions[k].operands.get(1).and_then(id);
        let once = |w: Option<Word>| w.is_some_and(|w| uses.get(&w) == Some(&1));
        if !wide.contains(&x) {
            // The vector's words that only the stores read go; a longer vector's pair of words is
            // one shuffle (7, D279).
            g += 5 * (i64::from(once(val(oi))) + i64::from(once(val(ii))));
            if long.contains(&x) {
                g -= 7;
            }
        } else {
            let (lo, hi) = (val(oi), val(ii));
            // The bitcast costs 4; the low word's conversion goes where only the store read it.
            g -= 4;
            if once(lo) {
                g += 4;
            }
            if once(hi) {
                // The high word's conversion and, where only it reads it, the shift.
                let sh = hi.and_then(|h| defs.get(&h)).map(|d| d.2[0]);
                g += 4 + if sh.is_some_and(|s| uses.get(&s) == Some(&1)) {
                    5
                } else {
                    0
                };
            }
        }
        *gain.entry((a, b)).or_default() += g;
    }
    // The pointers cost 10 words, the one variable instead of two saves 5. A variable read in
    // several pairs takes part in the one that saves most (the others' reads stay two loads).
    let mut ranked: Vec<((Word, Word), i64)> = gain
        .into_iter()
        .filter(|&((a, b), g)| g > 5 && scalars[&a].is_some() == scalars[&b].is_some())
        .collect();
    ranked.sort_unstable_by_key(|&(k, g)| (std::cmp::Reverse(g), k));
    let mut taken: HashSet<Word> = HashSet::default();
    let mut chosen: Vec<(Word, Word)> = Vec::new();
    for ((a, b), _) in ranked {
        if !taken.contains(&a) && !taken.contains(&b) {
            taken.insert(a);
            taken.insert(b);
            chosen.push((a, b));
        }
    }
    chosen.sort_unstable();
    if chosen.is_empty() {
        return 0;
    }
    let (zero, one) = (const_u32(m, bound, u32_, 0), const_u32(m, bound, u32_, 1));
    let pv = type_decl(
        m,
        bound,
        Op::TypePointer,
        vec![
            Operand::StorageClass(StorageClass::Function),
            Operand::IdRef(uvec2),
        ],
        uvec2,
    );
    // The new variables and component pointers; old variable → its component pointer.
    let mut new_vars: Vec<Instruction> = Vec::new();
    let mut chains: Vec<Instruction> = Vec::new();
    let mut comp_ptr: HashMap<Word, Word> = HashMap::default();
    let mut vec_var: HashMap<(Word, Word), Word> = HashMap::default();
    for &(a, b) in &chosen {
        let init = match (scalars[&a], scalars[&b]) {
            (Some(x), Some(y)) => {
                let ops = vec![Operand::IdRef(x), Operand::IdRef(y)];
                let have = m
                    .types_global_values
                    .iter()
                    .find(|i| {
                        i.class.opcode == Op::ConstantComposite
                            && i.result_type == Some(uvec2)
                            && i.operands == ops
                    })
                    .and_then(|i| i.result_id);
                Some(have.unwrap_or_else(|| {
                    let c = *bound;
                    *bound += 1;
                    m.types_global_values.push(Instruction::new(
                        Op::ConstantComposite,
                        Some(uvec2),
                        Some(c),
                        ops,
                    ));
                    c
                }))
            }
            _ => None,
        };
        let v = *bound;
        *bound += 1;
        let mut ops = vec![Operand::StorageClass(StorageClass::Function)];
        ops.extend(init.map(Operand::IdRef));
        new_vars.push(Instruction::new(Op::Variable, Some(pv), Some(v), ops));
        for (old, k) in [(a, zero), (b, one)] {
            let c = *bound;
            *bound += 1;
            chains.push(Instruction::new(
                Op::AccessChain,
                Some(pu),
                Some(c),
                vec![Operand::IdRef(v), Operand::IdRef(k)],
            ));
            comp_ptr.insert(old, c);
        }
        vec_var.insert((a, b), v);
    }
    // Store pairs: (block, first) removed, (block, second) becomes the vector store.
    let mut drop: HashSet<(usize, usize)> = HashSet::default();
    let mut vstore: HashMap<(usize, usize), (Word, Word)> = HashMap::default();
    // D279: a longer vector's pair of words: the components stored to the pair's words 0 and 1.
    let mut shuffle: HashMap<(usize, usize), (u32, u32)> = HashMap::default();
    for &(bi, oi, ii, a, b, vsrc) in &store_pairs {
        if let Some(&v) = vec_var.get(&(a, b)) {
            if drop.contains(&(bi, oi)) || vstore.contains_key(&(bi, oi)) {
                continue;
            }
            drop.insert((bi, oi));
            vstore.insert((bi, ii), (v, vsrc));
            if long.contains(&vsrc) {
                let comp = |k: usize| {
                    let w = f.blocks[bi].instructions[k].operands.get(1).and_then(id);
                    w.and_then(|w| words.get(&w)).map_or(0, |&(_, c)| c)
                };
                // The first store is to a or to b.
                let first_var = f.blocks[bi].instructions[oi].operands.first().and_then(id);
                let (ca, cb) = if first_var == Some(a) {
                    (comp(oi), comp(ii))
                } else {
                    (comp(ii), comp(oi))
                };
                shuffle.insert((bi, ii), (ca, cb));
            }
        }
    }
    for (bi, blk) in f.blocks.iter_mut().enumerate() {
        let mut out = Vec::with_capacity(blk.instructions.len());
        for (ii, mut i) in std::mem::take(&mut blk.instructions)
            .into_iter()
            .enumerate()
        {
            if drop.contains(&(bi, ii)) {
                continue;
            }
            if let Some(&(v, val)) = vstore.get(&(bi, ii)) {
                let val = if wide.contains(&val) {
                    // D275: the u64's words as the vector (component 0 the low word).
                    let c = *bound;
                    *bound += 1;
                    out.push(Instruction::new(
                        Op::Bitcast,
                        Some(uvec2),
                        Some(c),
                        vec![Operand::IdRef(val)],
                    ));
                    c
                } else if let Some(&(ca, cb)) = shuffle.get(&(bi, ii)) {
                    // D279: the two words of the longer vector, in the pair's order.
                    let c = *bound;
                    *bound += 1;
                    out.push(Instruction::new(
                        Op::VectorShuffle,
                        Some(uvec2),
                        Some(c),
                        vec![
                            Operand::IdRef(val),
                            Operand::IdRef(val),
                            Operand::LiteralBit32(ca),
                            Operand::LiteralBit32(cb),
                        ],
                    ));
                    c
                } else {
                    val
                };
                out.push(Instruction::new(
                    Op::Store,
                    None,
                    None,
                    vec![Operand::IdRef(v), Operand::IdRef(val)],
                ));
                continue;
            }
            // A paired read: the vector load just before the later of its two loads (which, read
            // by the vector only, goes with the dead code), the vector itself gone.
            if let Some(&r) = read_at.get(&(bi, ii)) {
                if let Some(&v) = reads.get(&r).and_then(|ab| vec_var.get(ab)) {
                    out.push(Instruction::new(
                        Op::Load,
                        Some(uvec2),
                        Some(r),
                        vec![Operand::IdRef(v)],
                    ));
                }
            }
            if let Some(ab) = i.result_id.and_then(|r| reads.get(&r)) {
                if vec_var.contains_key(ab) {
                    continue;
                }
            }
            if matches!(i.class.opcode, Op::Load | Op::Store) {
                if let Some(Operand::IdRef(p)) = i.operands.first_mut() {
                    if let Some(&c) = comp_ptr.get(p) {
                        *p = c;
                    }
                }
            }
            out.push(i);
        }
        blk.instructions = out;
    }
    let entry = &mut f.blocks[0].instructions;
    entry.retain(|i| {
        !(is_function_var(i) && i.result_id.is_some_and(|r| comp_ptr.contains_key(&r)))
    });
    let at = entry
        .iter()
        .take_while(|i| i.class.opcode == Op::Variable)
        .count();
    new_vars.extend(chains);
    entry.splice(at..at, new_vars);
    chosen.len()
}

/// What [`held_before_stores`] finds.
struct Held {
    /// By (block index, instruction index) of a store: the value its variable holds just before it.
    before: HashMap<(usize, usize), Word>,
    /// Loads of a known value: that value.
    same: HashMap<Word, Word>,
}

impl Held {
    /// Whether `a` is the value the variable of the store at (block, instruction) holds just before it.
    fn holds(&self, at: (usize, usize), a: Word) -> bool {
        self.before.get(&at) == Some(&self.same.get(&a).copied().unwrap_or(a))
    }
}

/// The value each private scalar holds just before each of its stores, where known (D259): [`forward`]'s
/// dataflow without its rewrites. Blocks in layout order (a block after its dominators); a block's entry
/// knowledge is the intersection of its predecessors' exit knowledge when all were visited, else nothing
/// (loop headers); the entry block starts from the initializers. A store makes its value known; a load of
/// a known value is that value (its result is recorded as the same value), of an unknown one it becomes
/// the known value. Keyed by (block index, instruction index) of the store, the value canonical (a load's
/// result replaced by the value it is known to equal); `same` maps such loads to their value.
fn held_before_stores(f: &Function, scalars: &HashMap<Word, Option<Word>>) -> Held {
    let preds = label_preds(f);
    let mut same: HashMap<Word, Word> = HashMap::default();
    let mut held: HashMap<(usize, usize), Word> = HashMap::default();
    let mut exit: HashMap<Word, HashMap<Word, Word>> = HashMap::default();
    for (bi, b) in f.blocks.iter().enumerate() {
        let l = label(b);
        let mut known = known_on_entry((bi, l), scalars_init(scalars), &preds, &exit);
        for (ii, i) in b.instructions.iter().enumerate() {
            let Some(p) = i.operands.first().and_then(id) else {
                continue;
            };
            if !scalars.contains_key(&p) {
                continue;
            }
            match i.class.opcode {
                Op::Store => {
                    if let Some(&h) = known.get(&p) {
                        held.insert((bi, ii), h);
                    }
                    if let Some(v) = i.operands.get(1).and_then(id) {
                        known.insert(p, same.get(&v).copied().unwrap_or(v));
                    }
                }
                Op::Load => {
                    let r = i.result_id.unwrap_or(0);
                    if let Some(&v) = known.get(&p) {
                        same.insert(r, v);
                    } else {
                        known.insert(p, r);
                    }
                }
                _ => {}
            }
        }
        exit.insert(l, known);
    }
    Held { before: held, same }
}

/// Operations a flattened selection may run whatever its condition: effect-free, no memory, and
/// defined for every operand (integer division and remainder by zero are undefined behaviour in SPIR-V;
/// shifts past the width and out-of-range conversions only give an undefined value, which the select
/// then discards). Of GLSL.std.450, the integer minimum, maximum and clamp (UMin 38, SMin 39, UMax 41,
/// SMax 42, UClamp 44, SClamp 45: an inverted clamp range only gives an undefined value) and the bit
/// searches (FindILsb 73, FindSMsb 74, FindUMsb 75) (D239: the exact f64 FMA's body holds a UMax, and a
/// call of a body that is all speculable is a pure computation to `unguard`).
fn speculable(i: &Instruction, glsl: Option<Word>) -> bool {
    use Op::*;
    mergeable(i, glsl)
        && match i.class.opcode {
            UDiv | SDiv | UMod | SRem | SMod | AccessChain | InBoundsAccessChain
            | PtrAccessChain | ConvertUToPtr => false,
            ExtInst => matches!(
                i.operands.get(1),
                Some(Operand::LiteralExtInstInteger(
                    38 | 39 | 41 | 42 | 44 | 45 | 73..=75
                ))
            ),
            _ => true,
        }
}

/// D271: an `OpAccessChain` into a variable (Workgroup, Function, push constants: never a physical
/// storage buffer pointer, which comes from `OpConvertUToPtr`). Computing it touches no memory and
/// cannot fail, whatever its indices, so [`hoist`] may compute it where the program did not: only the
/// loads, stores and atomics through it access the variable, and they stay where they were.
fn variable_chain(i: &Instruction, variables: &HashSet<Word>) -> bool {
    i.class.opcode == Op::AccessChain
        && i.operands
            .first()
            .and_then(id)
            .is_some_and(|b| variables.contains(&b))
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
    let mut ty: HashMap<Word, Word> = HashMap::default();
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
    let mut preds: HashMap<Word, usize> = HashMap::default();
    let mut named: HashSet<Word> = HashSet::default();
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
    let mut joined: HashMap<Word, Word> = HashMap::default();
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

/// Rewrite 5: stores to private scalars that no load can read (liveness over the control flow graph:
/// a variable is live at a point when some path from it loads the variable before storing it; nothing is
/// live where the function returns). Exact: a dead store's value is never observed. Returns the stores
/// removed.
fn dead_stores(f: &mut Function) -> usize {
    let scalars = private_scalars(f);
    if scalars.is_empty() {
        return 0;
    }
    let index: HashMap<Word, usize> = scalars.keys().enumerate().map(|(k, v)| (*v, k)).collect();
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
    let (_, live_out) = liveness(f, &index, &succ);
    let var_of = |i: &Instruction| -> Option<usize> {
        if !matches!(i.class.opcode, Op::Load | Op::Store) {
            return None;
        }
        index.get(&i.operands.first().and_then(id)?).copied()
    };
    let mut removed = 0;
    for (b, blk) in f.blocks.iter_mut().enumerate() {
        let mut live = live_out[b].clone();
        let mut dead = vec![false; blk.instructions.len()];
        for (k, i) in blk.instructions.iter().enumerate().rev() {
            let Some(v) = var_of(i) else { continue };
            let (w, bit) = (v / 64, 1u64 << (v % 64));
            if i.class.opcode == Op::Load {
                live[w] |= bit;
            } else if live[w] & bit == 0 {
                dead[k] = true;
            } else {
                live[w] &= !bit;
            }
        }
        let mut k = 0;
        blk.instructions.retain(|_| {
            k += 1;
            !dead[k - 1]
        });
        removed += dead.iter().filter(|d| **d).count();
    }
    removed
}

/// D280: private scalars whose values nobody observes go with their loads and stores. A variable's
/// value is observed where a value computed from one of its loads (through effect-free operations and
/// phis) reaches anything else than a store to a private scalar: a branch, a memory access, a call, a
/// store to memory. A store of such a value to another private scalar makes the first observed when the
/// second is. The unobserved set is the greatest fixed point (start from every private scalar, add the
/// variables that reach an observed one); what [`dead_stores`] cannot see is a variable read only to be
/// written again, as the lane mapping's `on` flag: each item stores it, and the one load, in the pass's
/// last item, feeds only a store to it, which the pass loop's back edge keeps live. Exact: nothing but
/// the deleted instructions reads those loads' values or the computations from them (every user is one
/// of them or a deleted store), so no instruction left reads a deleted id, and the deleted stores wrote
/// only variables nothing else observes. Returns the variables removed.
fn unobserved_vars(m: &Module, f: &mut Function, gone: &mut HashSet<Word>) -> usize {
    let scalars = private_scalars(f);
    if scalars.is_empty() {
        return 0;
    }
    let glsl = glsl_import(m);
    let mut users: HashMap<Word, Vec<(usize, usize)>> = HashMap::default();
    let mut loads: HashMap<Word, Vec<Word>> = HashMap::default();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (ii, i) in b.instructions.iter().enumerate() {
            for x in i.operands.iter().filter_map(id) {
                users.entry(x).or_default().push((bi, ii));
            }
            if i.class.opcode == Op::Load {
                if let (Some(v), Some(r)) = (i.operands.first().and_then(id), i.result_id) {
                    if scalars.contains_key(&v) {
                        loads.entry(v).or_default().push(r);
                    }
                }
            }
        }
    }
    // Per variable: the values computed from its loads, the variables they are stored to, and whether
    // one is observed otherwise.
    let mut reach: HashMap<Word, HashSet<Word>> = HashMap::default();
    let mut into: HashMap<Word, HashSet<Word>> = HashMap::default();
    let mut observed: HashSet<Word> = HashSet::default();
    for (&v, rs) in &loads {
        let mut seen: HashSet<Word> = rs.iter().copied().collect();
        let mut work: Vec<Word> = rs.clone();
        let mut to: HashSet<Word> = HashSet::default();
        'walk: while let Some(x) = work.pop() {
            for &(bi, ii) in users.get(&x).map_or(&[][..], |u| &u[..]) {
                let u = &f.blocks[bi].instructions[ii];
                match u.class.opcode {
                    Op::Store
                        if u.operands.get(1).and_then(id) == Some(x)
                            && u.operands
                                .first()
                                .and_then(id)
                                .is_some_and(|w| scalars.contains_key(&w)) =>
                    {
                        to.insert(u.operands.first().and_then(id).unwrap_or(0));
                    }
                    Op::Phi => {
                        if let Some(r) = u.result_id {
                            if seen.insert(r) {
                                work.push(r);
                            }
                        }
                    }
                    _ if mergeable(u, glsl) && u.result_id.is_some() => {
                        let r = u.result_id.unwrap_or(0);
                        if seen.insert(r) {
                            work.push(r);
                        }
                    }
                    _ => {
                        observed.insert(v);
                        break 'walk;
                    }
                }
            }
        }
        reach.insert(v, seen);
        into.insert(v, to);
    }
    // A variable whose values reach an observed variable is observed.
    loop {
        let more: Vec<Word> = into
            .iter()
            .filter(|(v, to)| !observed.contains(*v) && to.iter().any(|w| observed.contains(w)))
            .map(|(&v, _)| v)
            .collect();
        if more.is_empty() {
            break;
        }
        observed.extend(more);
    }
    let dead: HashSet<Word> = scalars
        .keys()
        .copied()
        .filter(|v| !observed.contains(v) && loads.contains_key(v))
        .collect();
    if dead.is_empty() {
        return 0;
    }
    let doomed: HashSet<Word> = dead
        .iter()
        .flat_map(|v| reach[v].iter().copied())
        .chain(dead.iter().copied())
        .collect();
    for b in &mut f.blocks {
        b.instructions.retain(|i| {
            let gone_here = i.result_id.is_some_and(|r| doomed.contains(&r))
                || (i.class.opcode == Op::Store
                    && i.operands
                        .first()
                        .and_then(id)
                        .is_some_and(|p| dead.contains(&p)));
            !gone_here
        });
    }
    gone.extend(doomed.iter().copied());
    dead.len()
}

/// Rewrite 4's second half (decision D263): equal speculable operations (opcode, type, operands) none of
/// which need dominate the others become one, placed in the nearest block that dominates them all: the
/// earliest of them already in that block stays where it is, else one moves to the block's end (before
/// its merge instruction and branch) and the others' uses read it. [`common`] merges only an operation
/// equal to one in a dominating position, so the same address or mask computed in both arms of a
/// selection, or in two blocks after each other's join, stayed twice. Operations are equal when their
/// operands are (value classes found in one walk in block order), so a whole tree of equal computations
/// becomes one. Exact: the operation is pure and defined for every
/// operand ([`speculable`]: no division, no memory, no pointer; D271: or an access chain into a variable,
/// [`variable_chain`], which names an element without touching it), so computing it where the program did
/// not changes nothing another instruction reads, and each use reads the same value as before. Its
/// operands dominate every original position, hence their nearest common dominator (an ancestor of each
/// in the dominator tree). Ids with a decoration never move. Returns the operations merged.
fn hoist(m: &Module, f: &mut Function, gone: &mut HashSet<Word>) -> usize {
    let glsl = glsl_import(m);
    let decorated = decorated_ids(m);
    let variables: HashSet<Word> = m
        .types_global_values
        .iter()
        .chain(f.blocks.first().map(|b| &b.instructions[..]).unwrap_or(&[]))
        .filter(|i| i.class.opcode == Op::Variable)
        .filter_map(|i| i.result_id)
        .collect();
    let idom = dominators(f);
    let n = f.blocks.len();
    // Depth in the dominator tree (blocks the entry does not reach: none).
    let mut depth: Vec<Option<u32>> = vec![None; n];
    depth[0] = Some(0);
    for b in 1..n {
        let mut chain = Vec::new();
        let mut x = b;
        while depth[x].is_none() {
            chain.push(x);
            match idom[x] {
                Some(d) => x = d,
                None => break,
            }
        }
        // None when the walk ended at a block the entry does not reach.
        let mut d = depth[x];
        for &c in chain.iter().rev() {
            d = d.map(|d| d + 1);
            depth[c] = d;
        }
    }
    let lca = |mut a: usize, mut b: usize| {
        while a != b {
            match (depth[a], depth[b]) {
                (Some(da), Some(db)) if da > db => a = idom[a].unwrap_or(0),
                (Some(da), Some(db)) if db > da => b = idom[b].unwrap_or(0),
                _ => {
                    a = idom[a].unwrap_or(0);
                    b = idom[b].unwrap_or(0);
                }
            }
        }
        a
    };
    // Value classes, in block order (a block comes after the blocks that dominate it, SPIR-V's rule, and
    // an operand's definition before its reader): an operation joins the class of an earlier one equal
    // to it once each operand is replaced by its class (the class's first member), so a whole tree of
    // equal computations is found in one walk. Each class keeps its key (opcode, type, operands).
    struct Class {
        op: Op,
        ty: Option<Word>,
        operands: Vec<Operand>,
        members: Vec<(u32, u32, Word)>,
    }
    let mut classes: Vec<Class> = Vec::new();
    let mut by_hash: HashMap<u64, Vec<u32>> = HashMap::default();
    let mut first: HashMap<Word, Word> = HashMap::default();
    let mut key: Vec<Operand> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        if depth[b].is_none() {
            continue;
        }
        for (k, i) in blk.instructions.iter().enumerate() {
            let Some(r) = i.result_id else { continue };
            if decorated.contains(&r) || !(speculable(i, glsl) || variable_chain(i, &variables)) {
                continue;
            }
            key.clear();
            key.extend(i.operands.iter().map(|o| match o {
                Operand::IdRef(x) => Operand::IdRef(first.get(x).copied().unwrap_or(*x)),
                o => o.clone(),
            }));
            let h = key_hash(i.class.opcode, i.result_type, &key);
            let bucket = by_hash.entry(h).or_default();
            let found = bucket.iter().copied().find(|&c| {
                let c = &classes[c as usize];
                c.op == i.class.opcode && c.ty == i.result_type && c.operands == key
            });
            match found {
                Some(c) => {
                    let c = &mut classes[c as usize];
                    first.insert(r, c.members[0].2);
                    c.members.push((b as u32, k as u32, r));
                }
                None => {
                    bucket.push(classes.len() as u32);
                    classes.push(Class {
                        op: i.class.opcode,
                        ty: i.result_type,
                        operands: key.clone(),
                        members: vec![(b as u32, k as u32, r)],
                    });
                }
            }
        }
    }
    // Each class of two or more: its place, the member kept, the moves in class order (an operand's
    // class was made before its readers', so a moved operand lands before a reader moved to the same
    // block).
    let mut repl: HashMap<Word, Word> = HashMap::default();
    let mut moves: Vec<((u32, u32), usize)> = Vec::new();
    for c in classes.iter().filter(|c| c.members.len() >= 2) {
        let to = c
            .members
            .iter()
            .map(|&(b, _, _)| b as usize)
            .reduce(lca)
            .unwrap_or(0);
        let keep = c
            .members
            .iter()
            .find(|&&(b, _, _)| b as usize == to)
            .copied()
            .unwrap_or(c.members[0]);
        for &(_, _, r) in &c.members {
            if r != keep.2 {
                repl.insert(r, keep.2);
            }
        }
        if keep.0 as usize != to {
            moves.push(((keep.0, keep.1), to));
        }
    }
    if repl.is_empty() {
        return 0;
    }
    let from: HashSet<(u32, u32)> = moves.iter().map(|&(at, _)| at).collect();
    let mut taken: HashMap<(u32, u32), Instruction> = HashMap::default();
    for (b, blk) in f.blocks.iter_mut().enumerate() {
        let old = std::mem::take(&mut blk.instructions);
        for (k, i) in old.into_iter().enumerate() {
            let at = (b as u32, k as u32);
            if from.contains(&at) {
                taken.insert(at, i);
            } else if i.result_id.is_some_and(|r| repl.contains_key(&r)) {
                gone.insert(i.result_id.unwrap_or(0));
            } else {
                blk.instructions.push(i);
            }
        }
    }
    let mut moved: Vec<Vec<Instruction>> = vec![Vec::new(); n];
    for (at, to) in moves {
        moved[to].extend(taken.remove(&at));
    }
    for (b, add) in moved.into_iter().enumerate().filter(|(_, a)| !a.is_empty()) {
        let ins = &mut f.blocks[b].instructions;
        // Before the terminator and the merge instruction that precedes it.
        let mut at = ins.len().saturating_sub(1);
        if at > 0 && matches!(ins[at - 1].class.opcode, Op::SelectionMerge | Op::LoopMerge) {
            at -= 1;
        }
        ins.splice(at..at, add);
    }
    let resolve = |mut x: Word| {
        while let Some(&y) = repl.get(&x) {
            x = y;
        }
        x
    };
    for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
        for o in &mut i.operands {
            if let Operand::IdRef(x) = o {
                *x = resolve(*x);
            }
        }
    }
    repl.len()
}

/// Rewrite 7 (decision D182): SSA construction. Every private scalar (a Function variable used only as
/// the pointer of plain loads and of stores) becomes SSA values: Cytron et al.'s placement of `OpPhi` on
/// the iterated dominance frontiers of the blocks that store the variable, pruned to the blocks where the
/// variable is live on entry, then one renaming walk over the dominator tree that replaces each load by
/// the value reaching it (the last store's value in its block, else the phi or the value at the end of
/// the immediate dominator) and deletes the stores and the variable. The value before any store is the
/// variable's initializer, `OpUndef` when it has none (its content is undefined, SPIR-V 2.2.1's
/// "Function" storage without an initializer). Phis sit at the head of their block with one operand per
/// predecessor; a predecessor the entry does not reach gives `OpUndef` (the edge never runs), and so do
/// loads in such blocks. Then trivial phis (every operand the phi itself or one value `w`) become `w`,
/// which dominates them (Braun et al., "Simple and Efficient Construction of SSA Form", 2013, §3.1);
/// phis nothing reads (also in cycles of phis) are left to [`dead_code`].
/// Exact: each load's result is the value the last store on every path to it wrote, which is what the
/// variable held (no one else reads or writes it). Returns (variables promoted, phis left).
/// The guarded writes of private scalars in `blk` (`store p, select(c, x, h)` or the mirror, `h` the value
/// `p` holds there, [`held_before_stores`]) whose condition and arm at least one other such write shares,
/// by the store's place, with the words each saves in memory form once D221's [`regroup`] groups them: its
/// select, its old value's load when that is a load of the block, less its share of the group's selection
/// (13 words over its members). For [`promote`]'s count of a variable's words in memory form (D258, D259).
fn guarded_groups(
    (bi, blk): (usize, &rspirv::dr::Block),
    index: &HashMap<Word, usize>,
    held: &Held,
) -> HashMap<usize, isize> {
    let ins = &blk.instructions;
    let mut at: HashMap<Word, usize> = HashMap::default();
    let mut by_key: HashMap<(Word, bool), Vec<(usize, isize)>> = HashMap::default();
    for (k, i) in ins.iter().enumerate() {
        if let Some(r) = i.result_id {
            at.insert(r, k);
        }
        if i.class.opcode != Op::Store {
            continue;
        }
        let (Some(p), Some(sv)) = (
            i.operands.first().and_then(id),
            i.operands.get(1).and_then(id),
        ) else {
            continue;
        };
        if !index.contains_key(&p) {
            continue;
        }
        // The arm that is the value the variable holds here (as [`regroup`] reads it, D259); the select
        // and, when that arm is a load of this block, the load go.
        let own = |a: Word| held.holds((bi, k), a);
        let saved = |a: Word| {
            6 + if at
                .get(&a)
                .is_some_and(|&ka| ins[ka].class.opcode == Op::Load)
            {
                4
            } else {
                0
            }
        };
        if let Some(sel) = at
            .get(&sv)
            .map(|&ks| &ins[ks])
            .filter(|sel| sel.class.opcode == Op::Select)
        {
            let o: Vec<Word> = sel.operands.iter().filter_map(id).collect();
            if let [c, x, y] = o[..] {
                if own(y) {
                    by_key.entry((c, true)).or_default().push((k, saved(y)));
                } else if own(x) {
                    by_key.entry((c, false)).or_default().push((k, saved(x)));
                }
            }
        }
    }
    let mut out = HashMap::default();
    for ks in by_key.into_values().filter(|ks| ks.len() >= 2) {
        let share = (13 + ks.len() as isize - 1) / ks.len() as isize;
        for (k, saved) in ks {
            out.insert(k, saved - share);
        }
    }
    out
}

fn promote(
    m: &mut Module,
    f: &mut Function,
    bound: &mut Word,
    gone: &mut HashSet<Word>,
) -> (usize, usize) {
    let scalars = private_scalars(f);
    if scalars.is_empty() {
        return (0, 0);
    }
    // The value type of each variable, from its pointer type: numbers, booleans and their vectors only (a
    // phi of pointers would need the VariablePointers capability).
    let plain: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| {
            matches!(
                i.class.opcode,
                Op::TypeInt | Op::TypeFloat | Op::TypeBool | Op::TypeVector
            )
        })
        .filter_map(|i| i.result_id)
        .collect();
    let pointee: HashMap<Word, Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypePointer)
        .filter_map(|i| Some((i.result_id?, i.operands.get(1).and_then(id)?)))
        .filter(|(_, t)| plain.contains(t))
        .collect();
    let var_ty: HashMap<Word, Word> = f.blocks[0]
        .instructions
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
        .filter_map(|i| Some((i.result_id?, *pointee.get(&i.result_type?)?)))
        .collect();
    let mut vars: Vec<Word> = scalars
        .keys()
        .copied()
        .filter(|v| var_ty.contains_key(v))
        .collect();
    vars.sort_unstable();
    if vars.is_empty() {
        return (0, 0);
    }
    let index: HashMap<Word, usize> = vars.iter().enumerate().map(|(k, v)| (*v, k)).collect();
    let nv = vars.len();
    let tys: Vec<Word> = vars.iter().map(|v| var_ty[v]).collect();
    // One OpUndef per type that needs one (reusing the module's).
    let mut undefs: HashMap<Word, Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Undef)
        .filter_map(|i| Some((i.result_type?, i.result_id?)))
        .collect();
    let mut undef = |m: &mut Module, bound: &mut Word, t: Word| -> Word {
        *undefs.entry(t).or_insert_with(|| {
            let u = *bound;
            *bound += 1;
            m.types_global_values
                .push(Instruction::new(Op::Undef, Some(t), Some(u), vec![]));
            u
        })
    };
    // The control flow graph (distinct successors and predecessors) and the dominator tree.
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
        .map(|b| {
            let mut s: Vec<usize> = Vec::new();
            for l in successors(b, &labels) {
                if !s.contains(&at[&l]) {
                    s.push(at[&l]);
                }
            }
            s
        })
        .collect();
    let idom = dominators(f);
    let reachable: Vec<bool> = (0..n).map(|b| b == 0 || idom[b].is_some()).collect();
    let mut preds: Vec<Vec<usize>> = vec![vec![]; n];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut kids: Vec<Vec<usize>> = vec![vec![]; n];
    for (b, d) in idom.iter().enumerate() {
        if let Some(d) = d {
            kids[*d].push(b);
        }
    }
    // Dominance frontiers (Cooper, Harvey and Kennedy's walk up from each predecessor of a join).
    let mut df: Vec<Vec<usize>> = vec![vec![]; n];
    for b in 0..n {
        let rp: Vec<usize> = preds[b].iter().copied().filter(|&p| reachable[p]).collect();
        if !reachable[b] || rp.len() < 2 {
            continue;
        }
        for p in rp {
            let mut r = p;
            while Some(r) != idom[b] {
                if df[r].last() != Some(&b) {
                    df[r].push(b);
                }
                match idom[r] {
                    Some(d) => r = d,
                    None => break,
                }
            }
        }
    }
    // Phi placement, pruned by liveness.
    let (live_in, live_out) = liveness(f, &index, &succ);
    let mut def_blocks: Vec<Vec<usize>> = vec![vec![]; nv];
    for (b, blk) in f.blocks.iter().enumerate().filter(|(b, _)| reachable[*b]) {
        for i in blk
            .instructions
            .iter()
            .filter(|i| i.class.opcode == Op::Store)
        {
            if let Some(&v) = i.operands.first().and_then(id).and_then(|p| index.get(&p)) {
                if def_blocks[v].last() != Some(&b) {
                    def_blocks[v].push(b);
                }
            }
        }
    }
    // Words of each variable in memory form that would stay: its declaration, the loads whose result is
    // used and the stores a later load may read (the others go anyway, by `d` and `l`).
    let mut used: HashSet<Word> = HashSet::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        used.extend(i.operands.iter().filter_map(id));
    }
    let mut mem_words = vec![4isize; nv];
    let held = held_before_stores(f, &scalars);
    for (b, blk) in f.blocks.iter().enumerate() {
        let grouped = guarded_groups((b, blk), &index, &held);
        let mut live = live_out[b].clone();
        for (k, i) in blk.instructions.iter().enumerate().rev() {
            let Some(&v) = i.operands.first().and_then(id).and_then(|p| index.get(&p)) else {
                continue;
            };
            let (w, bit) = (v / 64, 1u64 << (v % 64));
            if i.class.opcode == Op::Load {
                live[w] |= bit;
                if i.result_id.is_some_and(|r| used.contains(&r)) {
                    mem_words[v] += 4;
                }
            } else if live[w] & bit != 0 {
                live[w] &= !bit;
                mem_words[v] += 3;
            }
            // D258: a guarded write that D221 will group with others on its condition loses its select
            // and its load of the old value in memory form; in SSA form the select stays.
            if let Some(&saved) = grouped.get(&k) {
                mem_words[v] -= saved;
            }
        }
    }
    let mut phi_at: Vec<Vec<(usize, Word)>> = vec![vec![]; n];
    let mut placed = vec![usize::MAX; n];
    let mut queued = vec![usize::MAX; n];
    let mut keep = vec![false; nv];
    for v in 0..nv {
        let (w, bit) = (v / 64, 1u64 << (v % 64));
        let mut work: Vec<usize> = def_blocks[v].clone();
        let mut at: Vec<usize> = Vec::new();
        for &b in &work {
            queued[b] = v;
        }
        while let Some(x) = work.pop() {
            for &y in &df[x] {
                if placed[y] == v || live_in[y][w] & bit == 0 {
                    continue;
                }
                placed[y] = v;
                at.push(y);
                if queued[y] != v {
                    queued[y] = v;
                    work.push(y);
                }
            }
        }
        // Promoted only when its phis (3 words + 2 per predecessor) take fewer words than its memory
        // form: a register live across many joins and rarely read stays in memory (the module's size
        // is what this serves).
        let phi_words: usize = at.iter().map(|&y| 3 + 2 * preds[y].len()).sum();
        if (phi_words as isize) < mem_words[v] {
            keep[v] = true;
            for y in at {
                phi_at[y].push((v, *bound));
                *bound += 1;
            }
        }
    }
    let mut index = index;
    index.retain(|_, v| keep[*v]);
    if index.is_empty() {
        return (0, 0);
    }
    let initial: Vec<Word> = (0..nv)
        .map(|k| match scalars[&vars[k]] {
            _ if !keep[k] => 0,
            Some(c) => c,
            None => undef(m, bound, tys[k]),
        })
        .collect();
    // Renaming over the dominator tree.
    let mut stacks: Vec<Vec<Word>> = vec![vec![]; nv];
    let mut repl: HashMap<Word, Word> = HashMap::default();
    let mut phi_ops: HashMap<Word, Vec<Operand>> = HashMap::default();
    let resolve = |repl: &HashMap<Word, Word>, mut x: Word| {
        while let Some(&y) = repl.get(&x) {
            x = y;
        }
        x
    };
    enum Step {
        Enter(usize),
        Leave(Vec<usize>),
    }
    let mut steps = vec![Step::Enter(0)];
    while let Some(step) = steps.pop() {
        let b = match step {
            Step::Leave(pushed) => {
                for v in pushed {
                    stacks[v].pop();
                }
                continue;
            }
            Step::Enter(b) => b,
        };
        let mut pushed: Vec<usize> = Vec::new();
        for &(v, phi) in &phi_at[b] {
            stacks[v].push(phi);
            pushed.push(v);
        }
        let blk = &mut f.blocks[b];
        blk.instructions.retain(|i| {
            let op = i.class.opcode;
            if !matches!(op, Op::Load | Op::Store) {
                return true;
            }
            let Some(&v) = i.operands.first().and_then(id).and_then(|p| index.get(&p)) else {
                return true;
            };
            if op == Op::Load {
                let top = stacks[v].last().copied().unwrap_or(initial[v]);
                let r = i.result_id.unwrap_or(0);
                repl.insert(r, top);
                gone.insert(r);
            } else {
                let x = resolve(&repl, i.operands.get(1).and_then(id).unwrap_or(0));
                stacks[v].push(x);
                pushed.push(v);
            }
            false
        });
        let l = label(&f.blocks[b]);
        for &s in &succ[b] {
            for &(v, phi) in &phi_at[s] {
                let top = stacks[v].last().copied().unwrap_or(initial[v]);
                let ops = phi_ops.entry(phi).or_default();
                ops.push(Operand::IdRef(top));
                ops.push(Operand::IdRef(l));
            }
        }
        steps.push(Step::Leave(pushed));
        for &k in kids[b].iter().rev() {
            steps.push(Step::Enter(k));
        }
    }
    // Blocks the entry does not reach: their loads read undefined values, their stores go, and the
    // phis of their successors take an undefined value from them.
    for b in (0..n).filter(|&b| !reachable[b]) {
        let mut loads: Vec<(Word, usize)> = Vec::new();
        f.blocks[b].instructions.retain(|i| {
            let op = i.class.opcode;
            if !matches!(op, Op::Load | Op::Store) {
                return true;
            }
            let Some(&v) = i.operands.first().and_then(id).and_then(|p| index.get(&p)) else {
                return true;
            };
            if op == Op::Load {
                loads.push((i.result_id.unwrap_or(0), v));
            }
            false
        });
        for (r, v) in loads {
            repl.insert(r, undef(m, bound, tys[v]));
            gone.insert(r);
        }
        let l = label(&f.blocks[b]);
        for &s in &succ[b] {
            for &(v, phi) in &phi_at[s] {
                let u = undef(m, bound, tys[v]);
                let ops = phi_ops.entry(phi).or_default();
                ops.push(Operand::IdRef(u));
                ops.push(Operand::IdRef(l));
            }
        }
    }
    // Trivial phis: every operand is the phi itself or one value.
    let mut phis_left = 0;
    let mut trivial: HashMap<Word, Word> = HashMap::default();
    let mut changed = true;
    let order: Vec<Word> = phi_at.iter().flatten().map(|&(_, phi)| phi).collect();
    while changed {
        changed = false;
        for phi in &order {
            let Some(ops) = phi_ops.get(phi) else {
                continue;
            };
            if trivial.contains_key(phi) {
                continue;
            }
            let mut same: Option<Word> = None;
            let mut ok = true;
            for o in ops.iter().step_by(2) {
                let x = resolve(&trivial, id(o).unwrap_or(0));
                if x == *phi || Some(x) == same {
                    continue;
                }
                if same.is_some() {
                    ok = false;
                    break;
                }
                same = Some(x);
            }
            if let (true, Some(w)) = (ok, same) {
                trivial.insert(*phi, w);
                changed = true;
            }
        }
    }
    for (k, blk) in f.blocks.iter_mut().enumerate() {
        let head: Vec<Instruction> = phi_at[k]
            .iter()
            .filter(|(_, phi)| !trivial.contains_key(phi))
            .map(|&(v, phi)| {
                let ops = phi_ops.remove(&phi).unwrap_or_default();
                Instruction::new(Op::Phi, Some(tys[v]), Some(phi), ops)
            })
            .collect();
        phis_left += head.len();
        if !head.is_empty() {
            blk.instructions.splice(0..0, head);
        }
    }
    for (r, x) in trivial {
        repl.insert(r, x);
    }
    for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
        for o in &mut i.operands {
            if let Operand::IdRef(x) = o {
                *x = resolve(&repl, *x);
            }
        }
    }
    f.blocks[0].instructions.retain(|i| {
        let drop = i.result_id.is_some_and(|r| index.contains_key(&r));
        if drop {
            gone.insert(i.result_id.unwrap_or(0));
        }
        !drop
    });
    (index.len(), phis_left)
}

/// Whether `x` is `op(y, b)` or `op(b, y)` by its definition in `defs`: then `op(x, b)` is `x` for an
/// idempotent, commutative and associative `op` (`(y | b) | b = y | b`).
fn absorbs(defs: &HashMap<Word, (Op, Vec<Word>)>, op: Op, x: Word, b: Word) -> bool {
    defs.get(&x)
        .is_some_and(|(o, ops)| *o == op && ops.len() == 2 && ops.contains(&b))
}

/// Rewrite `a`, part (decision D266): the carry out of a sum of zero-extended words tested through its
/// bit 32. `v_add_co_ci_u32` is `x = zext64(a) + zext64(b) + zext64(carry)` with its carry out
/// `(uconvert32(x >> 32) & 1) == 1` (or `!= 0`, or without the mask); `add_carry` makes two-word sums
/// `OpIAddCarry`, but a third word costs as many words that way (session 48). Where the sum is provably
/// below 2^33 its bit 32 is set exactly when `x > 0xffffffff`: one compare instead of a shift, a
/// conversion, a mask and a compare (the dead ones go with `dead_code`). Bounds: a constant its value,
/// the zero extension of a 32-bit word 2^32 − 1 (of one known 0 or 1, as a carry word, `x & 1` or
/// `select(c, 1, 0)`, 1), a sum the sum of its operands' (no wrap: checked). Exact by those bounds; only
/// values defined before their use in block order are tracked, and decorated ids are left alone. Returns
/// the compares rewritten.
fn carry_compares(m: &mut Module, f: &mut Function, bound: &mut Word) -> usize {
    let Some(u64_) = uint_type(m, 64) else {
        return 0;
    };
    let u32_ = uint_type(m, 32);
    let decorated = decorated_ids(m);
    let val: HashMap<Word, u64> = m
        .types_global_values
        .iter()
        .filter_map(
            |i| match (i.class.opcode, i.result_id, i.operands.first()) {
                (Op::Constant, Some(r), Some(Operand::LiteralBit32(x))) => Some((r, *x as u64)),
                (Op::Constant, Some(r), Some(Operand::LiteralBit64(x))) => Some((r, *x)),
                (Op::ConstantNull, Some(r), _) => Some((r, 0)),
                _ => None,
            },
        )
        .collect();
    let c = |x: Word| val.get(&x).copied();
    let mut defs: HashMap<Word, (Op, Vec<Word>)> = HashMap::default();
    let mut ty_of: HashMap<Word, Word> = HashMap::default();
    // 0 or 1 (32-bit words and u64 values).
    let mut bit01: HashSet<Word> = HashSet::default();
    // Upper bounds of u64 values.
    let mut below: HashMap<Word, u64> = HashMap::default();
    let mut todo: Vec<(usize, usize, Word)> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        for (k, i) in blk.instructions.iter().enumerate() {
            let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
                continue;
            };
            ty_of.insert(r, t);
            let op = i.class.opcode;
            let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
            if decorated.contains(&r) {
                continue;
            }
            match (op, ops.as_slice()) {
                (Op::CompositeExtract, &[s])
                    if i.operands.get(1) == Some(&Operand::LiteralBit32(1))
                        && defs
                            .get(&s)
                            .is_some_and(|(o, _)| matches!(o, Op::IAddCarry | Op::ISubBorrow)) =>
                {
                    bit01.insert(r);
                }
                (Op::BitwiseAnd, &[a, b]) if c(a) == Some(1) || c(b) == Some(1) => {
                    bit01.insert(r);
                }
                (Op::Select, &[_, a, b]) if c(a) == Some(1) && c(b) == Some(0) => {
                    bit01.insert(r);
                }
                _ => {}
            }
            if t == u64_ {
                let bnd = |x: &Word| {
                    c(*x)
                        .or_else(|| below.get(x).copied())
                        .or_else(|| bit01.contains(x).then_some(1))
                };
                let v = match (op, ops.as_slice()) {
                    (Op::UConvert, &[a]) if bit01.contains(&a) => Some(1),
                    (Op::UConvert, &[a]) if u32_.is_some() && ty_of.get(&a) == u32_.as_ref() => {
                        Some(0xffff_ffff)
                    }
                    (Op::IAdd, &[a, b]) => bnd(&a).zip(bnd(&b)).and_then(|(x, y)| x.checked_add(y)),
                    _ => None,
                };
                if let Some(v) = v {
                    below.insert(r, v);
                }
            }
            if matches!(
                (op, ops.as_slice()),
                (Op::IEqual, &[_, z]) if c(z) == Some(1)
            ) || matches!((op, ops.as_slice()), (Op::INotEqual, &[_, z]) if c(z) == Some(0))
            {
                if let Some(x) = carry_bit(&defs, &below, &val, ops[0]) {
                    todo.push((b, k, x));
                }
            }
            defs.insert(r, (op, ops));
        }
    }
    if todo.is_empty() {
        return 0;
    }
    let k32 = const_lit(m, bound, u64_, Operand::LiteralBit64(0xffff_ffff));
    for &(b, k, x) in &todo {
        let i = &mut f.blocks[b].instructions[k];
        *i = Instruction::new(
            Op::UGreaterThan,
            i.result_type,
            i.result_id,
            vec![Operand::IdRef(x), Operand::IdRef(k32)],
        );
    }
    todo.len()
}

/// Rewrite `a`, part (decision D267): `bitcast64(v) ^ uconvert64(w)` for a word pair `v` (a `uvec2`
/// read nowhere else as u64) and a word `w` is `bitcast64(v ^ (w, 0))`: the XOR of each word, the high
/// one with 0. The lowering hides every float operand from the driver's constant folding with an XOR by
/// a zero that arrives at run time (`quirks`, `opaque64`); an f64 operand read from a register pair was
/// `bitcast64(v) ^ zero64` then a bitcast to f64, and becomes one vector XOR and one bitcast (`repack`
/// folds the two bitcasts): 13 words become 9, plus one `(w, 0)` per function and word, placed right
/// after `w` (after the entry block's variables for a parameter or a global). Exact: bitwise identities
/// only; the XOR still reads `w`, so the operand stays as opaque as before. Decorated ids are left alone.
/// Returns the XORs rewritten.
fn pair_xors(m: &mut Module, f: &mut Function, bound: &mut Word) -> usize {
    let (Some(u32_), Some(u64_)) = (uint_type(m, 32), uint_type(m, 64)) else {
        return 0;
    };
    let uvec2 = [Operand::IdRef(u32_), Operand::LiteralBit32(2)];
    let Some(v2) = find_decl(m, Op::TypeVector, None, &uvec2) else {
        return 0;
    };
    let decorated = decorated_ids(m);
    let mut def: HashMap<Word, (usize, usize)> = HashMap::default();
    let mut ty_of: HashMap<Word, Word> = HashMap::default();
    let mut uses: HashMap<Word, usize> = HashMap::default();
    for (b, blk) in f.blocks.iter().enumerate() {
        for (k, i) in blk.instructions.iter().enumerate() {
            if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                def.insert(r, (b, k));
                ty_of.insert(r, t);
            }
            for x in i.operands.iter().filter_map(id) {
                *uses.entry(x).or_default() += 1;
            }
        }
    }
    for p in &f.parameters {
        if let (Some(r), Some(t)) = (p.result_id, p.result_type) {
            ty_of.insert(r, t);
        }
    }
    let inst = |x: Word| def.get(&x).map(|&(b, k)| &f.blocks[b].instructions[k]);
    let op_of = |x: Word, op: Op| inst(x).filter(|i| i.class.opcode == op);
    // (block, index of the XOR, the pair, the word).
    let mut todo: Vec<(usize, usize, Word, Word)> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        for (k, i) in blk.instructions.iter().enumerate() {
            let (Op::BitwiseXor, Some(r), Some(t)) = (i.class.opcode, i.result_id, i.result_type)
            else {
                continue;
            };
            if t != u64_ || decorated.contains(&r) {
                continue;
            }
            let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
            let [x, y] = ops[..] else { continue };
            let pick = |a: Word, w: Word| {
                let pair = op_of(a, Op::Bitcast)
                    .filter(|_| uses.get(&a) == Some(&1) && !decorated.contains(&a))
                    .and_then(|i| i.operands.first().and_then(id))
                    .filter(|v| ty_of.get(v) == Some(&v2))?;
                let word = op_of(w, Op::UConvert)
                    .and_then(|i| i.operands.first().and_then(id))
                    .filter(|v| ty_of.get(v) == Some(&u32_))?;
                Some((pair, word))
            };
            if let Some((pair, word)) = pick(x, y).or_else(|| pick(y, x)) {
                todo.push((b, k, pair, word));
            }
        }
    }
    if todo.is_empty() {
        return 0;
    }
    let zero = const_u32(m, bound, u32_, 0);
    // One `(w, 0)` per word, where it is defined.
    let mut joined: HashMap<Word, Word> = HashMap::default();
    // Instructions to insert: before (block, index), in order.
    let mut before: BTreeMap<(usize, usize), Vec<Instruction>> = BTreeMap::new();
    let first_free = f.blocks[0]
        .instructions
        .iter()
        .take_while(|i| i.class.opcode == Op::Variable)
        .count();
    for &(b, k, pair, word) in &todo {
        let cw = *joined.entry(word).or_insert_with(|| {
            let c = *bound;
            *bound += 1;
            // After the word's definition (after the block's phis for a phi).
            let at = def.get(&word).map_or((0, first_free), |&(db, dk)| {
                let phis = f.blocks[db]
                    .instructions
                    .iter()
                    .take_while(|i| i.class.opcode == Op::Phi)
                    .count();
                (db, (dk + 1).max(phis))
            });
            before.entry(at).or_default().push(Instruction::new(
                Op::CompositeConstruct,
                Some(v2),
                Some(c),
                vec![Operand::IdRef(word), Operand::IdRef(zero)],
            ));
            c
        });
        let x2 = *bound;
        *bound += 1;
        before.entry((b, k)).or_default().push(Instruction::new(
            Op::BitwiseXor,
            Some(v2),
            Some(x2),
            vec![Operand::IdRef(pair), Operand::IdRef(cw)],
        ));
        let i = &mut f.blocks[b].instructions[k];
        *i = Instruction::new(
            Op::Bitcast,
            Some(u64_),
            i.result_id,
            vec![Operand::IdRef(x2)],
        );
    }
    // Insert from the back of each block so the indices stay valid.
    for ((b, k), ins) in before.into_iter().rev() {
        let blk = &mut f.blocks[b].instructions;
        for (j, i) in ins.into_iter().enumerate() {
            blk.insert(k + j, i);
        }
    }
    todo.len()
}

/// `x` when `a` is `uconvert32(x >> 32) & 1` (or `uconvert32(x >> 32)`) for an unsigned 64-bit `x` known
/// below 2^33 (`below`): then `a` is bit 32 of `x`, set exactly when `x > 0xffffffff` (D266).
fn carry_bit(
    defs: &HashMap<Word, (Op, Vec<Word>)>,
    below: &HashMap<Word, u64>,
    val: &HashMap<Word, u64>,
    a: Word,
) -> Option<Word> {
    let c = |x: Word| val.get(&x).copied();
    let mut u = a;
    if let Some((Op::BitwiseAnd, o)) = defs.get(&a) {
        u = match o.as_slice() {
            &[x, k] | &[k, x] if c(k) == Some(1) => x,
            _ => return None,
        };
    }
    let Some((Op::UConvert, o)) = defs.get(&u) else {
        return None;
    };
    let Some((Op::ShiftRightLogical, s)) = defs.get(o.first()?) else {
        return None;
    };
    let (&x, &k) = (s.first()?, s.get(1)?);
    (c(k) == Some(32) && below.get(&x).is_some_and(|&b| b < 1 << 33)).then_some(x)
}

/// Rewrite 8 (decision D182): integer and boolean identities and constant folding, by SPIR-V's
/// definitions of the operations on 32- and 64-bit integers (two's complement, wrapping) and booleans:
/// `x + 0`, `x - 0`, `x | 0`, `x ^ 0`, `x << 0`, `x >> 0`, `x & ~0`, `x * 1`, `x & x`, `x | x` are `x`;
/// `x & 0`, `x * 0` are 0; `(x & C) & C` is `x & C`; a zero extension truncated back to its operand's
/// type is the operand; `false || b`, `true && b` are `b`, `true || b` is true, `false && b` false,
/// `(x || b) || b` is `x || b`, `(x && b) && b` is `x && b` and `(x | b) | b` is `x | b` (D219, D242: the
/// misaligned flag ORed with the byte position of each dword of a wide access); `select(true, a, b)` is
/// `a`, `select(false, a, b)` is `b`, `select(c, a, a)` is `a`; `select(c, a, select(c, b, d))` reads `d` and
/// `select(c, select(c, a, b), d)` reads `a` directly; a carry word, `x & 1` and `b ? 1 : 0` are 0 or 1,
/// and for such an `x`, `x & 1`, `x == 1 ? 1 : 0` and `x != 0 ? 1 : 0` are `x` (D220); an operation of
/// constants is the constant it computes (shifts only by less than the width,
/// as larger ones are undefined). Instructions with a decoration are left alone. Returns how many
/// instructions went or were rewritten.
fn simplify(m: &mut Module, f: &mut Function, bound: &mut Word, gone: &mut HashSet<Word>) -> usize {
    let decorated = decorated_ids(m);
    // Scalar integer types (32 and 64 bits: their constants are one literal word each), the unsigned
    // ones (`OpUConvert`'s result type), and booleans.
    let mut width: HashMap<Word, u32> = HashMap::default();
    let mut unsigned: HashSet<Word> = HashSet::default();
    let mut bools: HashSet<Word> = HashSet::default();
    for i in &m.types_global_values {
        match (i.class.opcode, i.result_id, i.operands.first()) {
            (Op::TypeInt, Some(t), Some(Operand::LiteralBit32(w @ (32 | 64)))) => {
                width.insert(t, *w);
                if i.operands.get(1) == Some(&Operand::LiteralBit32(0)) {
                    unsigned.insert(t);
                }
            }
            (Op::TypeBool, Some(t), _) => {
                bools.insert(t);
            }
            _ => {}
        }
    }
    let mask = |w: u32, v: u64| if w == 64 { v } else { v & ((1u64 << w) - 1) };
    // Constants by id and by (type, value).
    let mut val: HashMap<Word, (Word, u64)> = HashMap::default();
    let mut by_val: HashMap<(Word, u64), Word> = HashMap::default();
    for i in &m.types_global_values {
        let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
            continue;
        };
        let v = match (i.class.opcode, i.operands.first()) {
            (Op::Constant, Some(Operand::LiteralBit32(x))) if width.contains_key(&t) => *x as u64,
            (Op::Constant, Some(Operand::LiteralBit64(x))) if width.contains_key(&t) => *x,
            (Op::ConstantNull, _) if width.contains_key(&t) || bools.contains(&t) => 0,
            (Op::ConstantTrue, _) if bools.contains(&t) => 1,
            (Op::ConstantFalse, _) if bools.contains(&t) => 0,
            _ => continue,
        };
        val.insert(r, (t, v));
        by_val.entry((t, v)).or_insert(r);
    }
    let mut constant = |m: &mut Module, bound: &mut Word, t: Word, v: u64| -> Word {
        let v = width.get(&t).map_or(v & 1, |&w| mask(w, v));
        *by_val.entry((t, v)).or_insert_with(|| {
            let c = *bound;
            *bound += 1;
            let i = if bools.contains(&t) {
                let op = if v != 0 {
                    Op::ConstantTrue
                } else {
                    Op::ConstantFalse
                };
                Instruction::new(op, Some(t), Some(c), vec![])
            } else if width[&t] == 64 {
                Instruction::new(
                    Op::Constant,
                    Some(t),
                    Some(c),
                    vec![Operand::LiteralBit64(v)],
                )
            } else {
                Instruction::new(
                    Op::Constant,
                    Some(t),
                    Some(c),
                    vec![Operand::LiteralBit32(v as u32)],
                )
            };
            m.types_global_values.push(i);
            c
        })
    };
    let resolve = |repl: &HashMap<Word, Word>, mut x: Word| {
        while let Some(&y) = repl.get(&x) {
            x = y;
        }
        x
    };
    // Definitions of the operations seen so far (for the nested patterns).
    let mut defs: HashMap<Word, (Op, Vec<Word>)> = HashMap::default();
    // Integer values known to be 0 or 1 (a carry word, `x & 1`, `select(b, 1, 0)`).
    let mut bit01: HashSet<Word> = HashSet::default();
    let mut ty_of: HashMap<Word, Word> = val.iter().map(|(&x, &(t, _))| (x, t)).collect();
    let mut repl: HashMap<Word, Word> = HashMap::default();
    let mut done = 0;
    enum Out {
        Keep,
        Same(Word),
        Const(u64),
        Ops(Vec<Word>),
        /// The zero extension of a narrower value (D256).
        Widen(Word),
    }
    for b in 0..f.blocks.len() {
        let mut k = 0;
        while k < f.blocks[b].instructions.len() {
            let i = &mut f.blocks[b].instructions[k];
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    *x = resolve(&repl, *x);
                }
            }
            let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
                k += 1;
                continue;
            };
            let op = i.class.opcode;
            let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
            ty_of.insert(r, t);
            if decorated.contains(&r) || ops.len() != i.operands.len() {
                // The carry (borrow) word of `OpIAddCarry` (`OpISubBorrow`) is 0 or 1.
                if op == Op::CompositeExtract
                    && i.operands.get(1) == Some(&Operand::LiteralBit32(1))
                    && ops
                        .first()
                        .and_then(|x| defs.get(x))
                        .is_some_and(|(o, _)| matches!(o, Op::IAddCarry | Op::ISubBorrow))
                {
                    bit01.insert(r);
                }
                k += 1;
                continue;
            }
            let c = |x: Word| val.get(&x).map(|&(_, v)| v);
            let w = width.get(&t).copied();
            let int = w.is_some();
            let boolean = bools.contains(&t);
            let ones = w.map_or(0, |w| mask(w, u64::MAX));
            let sext = |w: u32, v: u64| {
                if w == 64 {
                    v
                } else {
                    (((v << (64 - w)) as i64) >> (64 - w)) as u64
                }
            };
            use Op::*;
            let out = match (op, ops.as_slice()) {
                (IAdd | ISub | BitwiseOr | BitwiseXor, &[a, b]) if int && c(b) == Some(0) => {
                    Out::Same(a)
                }
                (IAdd | BitwiseOr | BitwiseXor, &[a, b]) if int && c(a) == Some(0) => Out::Same(b),
                (IMul, &[a, b]) if int && c(b) == Some(1) => Out::Same(a),
                (IMul, &[a, b]) if int && c(a) == Some(1) => Out::Same(b),
                (IMul | BitwiseAnd, &[a, b]) if int && (c(a) == Some(0) || c(b) == Some(0)) => {
                    Out::Const(0)
                }
                (BitwiseAnd, &[a, b]) if int && c(b) == Some(ones) => Out::Same(a),
                (BitwiseAnd, &[a, b]) if int && c(a) == Some(ones) => Out::Same(b),
                (BitwiseAnd | BitwiseOr, &[a, b]) if int && a == b => Out::Same(a),
                // Absorption (D242: the misaligned flag ORed with the byte position of each dword of a
                // wide access): (x | b) | b is x | b.
                (BitwiseOr, &[a, b]) if int && absorbs(&defs, BitwiseOr, a, b) => Out::Same(a),
                (BitwiseOr, &[a, b]) if int && absorbs(&defs, BitwiseOr, b, a) => Out::Same(b),
                (BitwiseAnd, &[a, b]) if int && c(b) == Some(1) && bit01.contains(&a) => {
                    Out::Same(a)
                }
                (BitwiseAnd, &[a, b]) if int && c(a) == Some(1) && bit01.contains(&b) => {
                    Out::Same(b)
                }
                (BitwiseAnd, &[a, b])
                    if int
                        && c(b).is_some()
                        && defs
                            .get(&a)
                            .is_some_and(|(o, x)| *o == BitwiseAnd && x.get(1) == Some(&b)) =>
                {
                    Out::Same(a)
                }
                (ShiftLeftLogical | ShiftRightLogical | ShiftRightArithmetic, &[a, s])
                    if int && c(s) == Some(0) =>
                {
                    Out::Same(a)
                }
                (IAdd | ISub | IMul | BitwiseAnd | BitwiseOr | BitwiseXor, &[a, b]) if int => {
                    match (c(a), c(b)) {
                        (Some(x), Some(y)) => Out::Const(match op {
                            IAdd => x.wrapping_add(y),
                            ISub => x.wrapping_sub(y),
                            IMul => x.wrapping_mul(y),
                            BitwiseAnd => x & y,
                            BitwiseOr => x | y,
                            _ => x ^ y,
                        }),
                        _ => Out::Keep,
                    }
                }
                // D273: the ballot buffers' turn where the turn before is known.
                (UDiv | UMod, &[a, b]) if int => match (c(a), c(b)) {
                    (Some(x), Some(y)) if y != 0 => Out::Const(if op == UDiv { x / y } else { x % y }),
                    _ => Out::Keep,
                },
                (ShiftLeftLogical | ShiftRightLogical | ShiftRightArithmetic, &[a, s]) if int => {
                    let wd = w.unwrap_or(32);
                    match (c(a), c(s)) {
                        (Some(x), Some(y)) if y < wd as u64 => Out::Const(match op {
                            ShiftLeftLogical => x << y,
                            ShiftRightLogical => x >> y,
                            _ => (sext(wd, x) as i64 >> y) as u64,
                        }),
                        _ => Out::Keep,
                    }
                }
                (Not, &[a]) if int => c(a).map_or(Out::Keep, |x| Out::Const(!x)),
                (UConvert, &[a])
                    if int
                        && defs.get(&a).is_some_and(|(o, x)| {
                            *o == UConvert
                                && ty_of.get(&x[0]) == Some(&t)
                                && ty_of.get(&a).and_then(|m| width.get(m)) >= w.as_ref()
                        }) =>
                {
                    Out::Same(defs[&a].1[0])
                }
                (UConvert, &[a]) if int => c(a).map_or(Out::Keep, Out::Const),
                (SConvert, &[a]) if int => match (val.get(&a), c(a)) {
                    (Some(&(st, _)), Some(x)) if width.contains_key(&st) => {
                        Out::Const(sext(width[&st], x))
                    }
                    _ => Out::Keep,
                },
                // `(x & m) << k` compared with 0 unsigned, no bit of `m` shifted out: `x & m` is (the
                // misaligned test of a dword access, `((address & 3) << 3) > 0`).
                (IEqual | INotEqual | UGreaterThan, &[a, b])
                    if boolean
                        && c(b) == Some(0)
                        && defs.get(&a).is_some_and(|(o, x)| {
                            let k = x.get(1).copied().and_then(c);
                            let wd = ty_of.get(&a).and_then(|t| width.get(t)).copied();
                            *o == ShiftLeftLogical
                                && matches!((k, wd), (Some(k), Some(wd)) if k < wd as u64
                                    && defs.get(&x[0]).is_some_and(|(o2, y)| *o2 == BitwiseAnd
                                        && y.iter().any(|&mc| c(mc).is_some_and(|mv| mask(wd, mv << k) >> k == mv))))
                        }) =>
                {
                    Out::Ops(vec![defs[&a].1[0], b])
                }
                (
                    IEqual | INotEqual | ULessThan | ULessThanEqual | UGreaterThan
                    | UGreaterThanEqual,
                    &[a, b],
                ) if boolean => match (c(a), c(b)) {
                    (Some(x), Some(y)) => Out::Const(u64::from(match op {
                        IEqual => x == y,
                        INotEqual => x != y,
                        ULessThan => x < y,
                        ULessThanEqual => x <= y,
                        UGreaterThan => x > y,
                        _ => x >= y,
                    })),
                    _ => Out::Keep,
                },
                (LogicalOr, &[a, b]) if boolean => match (c(a), c(b)) {
                    (Some(0), _) => Out::Same(b),
                    (_, Some(0)) => Out::Same(a),
                    (Some(_), _) | (_, Some(_)) => Out::Const(1),
                    _ if a == b => Out::Same(a),
                    // Absorption: (x | b) | b is x | b.
                    _ if absorbs(&defs, LogicalOr, a, b) => Out::Same(a),
                    _ if absorbs(&defs, LogicalOr, b, a) => Out::Same(b),
                    _ => Out::Keep,
                },
                (LogicalAnd, &[a, b]) if boolean => match (c(a), c(b)) {
                    (Some(1), _) => Out::Same(b),
                    (_, Some(1)) => Out::Same(a),
                    (Some(_), _) | (_, Some(_)) => Out::Const(0),
                    _ if a == b => Out::Same(a),
                    _ if absorbs(&defs, LogicalAnd, a, b) => Out::Same(a),
                    _ if absorbs(&defs, LogicalAnd, b, a) => Out::Same(b),
                    _ => Out::Keep,
                },
                (LogicalNot, &[a]) if boolean => c(a).map_or(Out::Keep, |x| Out::Const(x ^ 1)),
                (Select, &[cond, a, b])
                    if val.get(&cond).is_some_and(|(ct, _)| bools.contains(ct)) =>
                {
                    Out::Same(if c(cond) == Some(1) { a } else { b })
                }
                (Select, &[_, a, b]) if a == b => Out::Same(a),
                // `x == 1 ? 1 : 0` and `x != 0 ? 1 : 0` are `x` for an `x` of the same type known 0 or 1,
                // its zero extension for a narrower integer `x` (D256: a carry word into a 64-bit add).
                (Select, &[cond, a, b]) if int && c(a) == Some(1) && c(b) == Some(0) => {
                    match defs.get(&cond) {
                        Some((cmp @ (IEqual | INotEqual), o)) if o.len() == 2 => {
                            let (x, k) = if c(o[1]).is_some() {
                                (o[0], o[1])
                            } else {
                                (o[1], o[0])
                            };
                            let want = u64::from(*cmp == IEqual);
                            let narrower = ty_of
                                .get(&x)
                                .and_then(|tx| width.get(tx))
                                .is_some_and(|&wx| w.is_some_and(|w| wx < w));
                            if c(k) != Some(want) || !bit01.contains(&x) {
                                Out::Keep
                            } else if ty_of.get(&x) == Some(&t) {
                                Out::Same(x)
                            } else if narrower && unsigned.contains(&t) {
                                Out::Widen(x)
                            } else {
                                Out::Keep
                            }
                        }
                        _ => Out::Keep,
                    }
                }
                (Select, &[cond, a, b]) => {
                    let inner = |x: Word, arm: usize| match defs.get(&x) {
                        Some((Select, o)) if o.first() == Some(&cond) => Some(o[arm]),
                        _ => None,
                    };
                    match (inner(a, 1), inner(b, 2)) {
                        (None, None) => Out::Keep,
                        (a2, b2) => {
                            let (a2, b2) = (a2.unwrap_or(a), b2.unwrap_or(b));
                            if a2 == b2 {
                                Out::Same(a2)
                            } else {
                                Out::Ops(vec![cond, a2, b2])
                            }
                        }
                    }
                }
                _ => Out::Keep,
            };
            match out {
                Out::Keep => {
                    let one = |x: &Word| c(*x) == Some(1);
                    if int
                        && match op {
                            BitwiseAnd => ops.iter().any(one),
                            Select => ops.len() == 3 && one(&ops[1]) && c(ops[2]) == Some(0),
                            _ => false,
                        }
                    {
                        bit01.insert(r);
                    }
                    defs.insert(r, (op, ops));
                    k += 1;
                }
                Out::Ops(new) => {
                    for (o, x) in i.operands.iter_mut().zip(&new) {
                        *o = Operand::IdRef(*x);
                    }
                    defs.insert(r, (op, new));
                    done += 1;
                    k += 1;
                }
                Out::Same(x) => {
                    repl.insert(r, x);
                    gone.insert(r);
                    k += 1;
                    done += 1;
                }
                Out::Widen(x) => {
                    *i = Instruction::new(Op::UConvert, Some(t), Some(r), vec![Operand::IdRef(x)]);
                    defs.insert(r, (UConvert, vec![x]));
                    bit01.insert(r);
                    k += 1;
                    done += 1;
                }
                Out::Const(v) => {
                    let x = constant(m, bound, t, v);
                    val.insert(x, (t, width.get(&t).map_or(v & 1, |&w| mask(w, v))));
                    repl.insert(r, x);
                    gone.insert(r);
                    k += 1;
                    done += 1;
                }
            }
        }
    }
    for blk in &mut f.blocks {
        blk.instructions
            .retain(|i| !i.result_id.is_some_and(|r| repl.contains_key(&r)));
    }
    for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
        for o in &mut i.operands {
            if let Operand::IdRef(x) = o {
                *x = resolve(&repl, *x);
            }
        }
    }
    done
}

/// Rewrite `k` (decision D199): values whose low bits are known zero. A forward analysis over the
/// function's SSA values and private scalars finds, for every integer value, a number of low bits that
/// are zero in every execution (`tz`; the width itself when the value is 0): constants by their value,
/// `a + b`, `a - b`, `a | b`, `a ^ b` the smaller of the operands', `a & b` the larger (or the whole width
/// when one operand is a constant whose set bits all lie in the other's zero bits), `a * b` the sum,
/// shifts by a constant below the width move it, conversions and copies keep it, `select` and phis the
/// smallest of their values, a load of a private scalar the smallest over its initializer and every
/// value stored to it (a variable without an initializer, a parameter, any other instruction: 0).
/// Optimistic (every tracked value starts at its width and only decreases, by a worklist), so loop-carried
/// addresses such as `i = phi(0, i + 4)` keep their zeros. Each tracked instruction whose value is
/// known zero becomes the constant 0 of its type; `simplify` (`a`) then folds what depended on it.
///
/// Where it pays: every LDS or global access computes the byte position of its address in the dword,
/// `(a & 3) << 3`, then a straddle test and the misaligned flag (`Unaligned::Detect`) or a second dword
/// (other modes) from it; an LDS address `v << 2` or `base + 4·i` makes all of that constant.
///
/// Exact by SPIR-V's definitions (wrapping two's-complement arithmetic; shifts at or past the width,
/// whose results are undefined, give no fact): by induction over an execution, every value computed
/// has at least `tz` low zero bits, since each rule is a property of the operation on all operands with
/// that many zeros, and a phi, a select or a load yields one of the values it is given. A value with
/// `tz` equal to its width is 0. Decorated ids are left alone. Returns the instructions replaced.
fn low_zeros(
    m: &mut Module,
    f: &mut Function,
    bound: &mut Word,
    gone: &mut HashSet<Word>,
) -> usize {
    use Op::*;
    let decorated = decorated_ids(m);
    let mut width: HashMap<Word, u32> = HashMap::default();
    for i in &m.types_global_values {
        if let (TypeInt, Some(t), Some(Operand::LiteralBit32(w @ 1..=64))) =
            (i.class.opcode, i.result_id, i.operands.first())
        {
            width.insert(t, *w);
        }
    }
    let consts = constants(m);
    let mut zero_of: HashMap<Word, Word> = HashMap::default();
    let mut tz: HashMap<Word, u32> = HashMap::default();
    let mut ty_of: HashMap<Word, Word> = HashMap::default();
    for i in &m.types_global_values {
        let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
            continue;
        };
        ty_of.insert(r, t);
        let Some(&w) = width.get(&t) else { continue };
        let v = match (i.class.opcode, i.operands.first()) {
            (Constant, Some(Operand::LiteralBit32(x))) => *x as u64,
            (Constant, Some(Operand::LiteralBit64(x))) => *x,
            (ConstantNull, _) => 0,
            _ => continue,
        };
        if v == 0 && i.class.opcode == Constant {
            zero_of.entry(t).or_insert(r);
        }
        tz.insert(r, if v == 0 { w } else { v.trailing_zeros().min(w) });
    }
    let mut done = guarded_uses(f);
    let vars = private_scalars(f);
    let mut vtz: HashMap<Word, u32> = vars
        .iter()
        .map(|(&v, init)| (v, init.map_or(0, |x| tz.get(&x).copied().unwrap_or(0))))
        .collect();
    let tracked = |i: &Instruction| -> bool {
        match i.class.opcode {
            IAdd | ISub | IMul | BitwiseAnd | BitwiseOr | BitwiseXor | ShiftLeftLogical
            | ShiftRightLogical | ShiftRightArithmetic | UConvert | SConvert | Bitcast
            | CopyObject | SNegate | Select | Phi => true,
            Load => {
                plain_load(i)
                    && i.operands
                        .first()
                        .and_then(id)
                        .is_some_and(|p| vars.contains_key(&p))
            }
            _ => false,
        }
    };
    // The nodes: tracked instructions with an integer result, and stores to private scalars.
    let mut nodes: Vec<(usize, usize)> = Vec::new();
    let mut users: HashMap<Word, Vec<usize>> = HashMap::default();
    let mut loads_of: HashMap<Word, Vec<usize>> = HashMap::default();
    for (b, blk) in f.blocks.iter().enumerate() {
        for (k, i) in blk.instructions.iter().enumerate() {
            if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                ty_of.insert(r, t);
            }
            let store = i.class.opcode == Store
                && i.operands
                    .first()
                    .and_then(id)
                    .is_some_and(|p| vars.contains_key(&p));
            let value = match (i.result_id, i.result_type.and_then(|t| width.get(&t))) {
                (Some(r), Some(&w)) if tracked(i) => {
                    tz.insert(r, w);
                    true
                }
                _ => false,
            };
            if !(store || value) {
                continue;
            }
            let n = nodes.len();
            nodes.push((b, k));
            if i.class.opcode == Load {
                loads_of
                    .entry(id(&i.operands[0]).unwrap_or(0))
                    .or_default()
                    .push(n);
                continue;
            }
            for x in i.operands.iter().filter_map(id) {
                users.entry(x).or_default().push(n);
            }
        }
    }
    let mut work: Vec<usize> = (0..nodes.len()).rev().collect();
    let mut queued = vec![true; nodes.len()];
    while let Some(n) = work.pop() {
        queued[n] = false;
        let (b, k) = nodes[n];
        let i = &f.blocks[b].instructions[k];
        let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
        let g = |x: Word| tz.get(&x).copied().unwrap_or(0);
        if i.class.opcode == Store {
            let (Some(&p), Some(&v)) = (ops.first(), ops.get(1)) else {
                continue;
            };
            let e = vtz.entry(p).or_insert(0);
            if g(v) < *e {
                *e = g(v);
                for &u in loads_of.get(&p).into_iter().flatten() {
                    if !queued[u] {
                        queued[u] = true;
                        work.push(u);
                    }
                }
            }
            continue;
        }
        let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
            continue;
        };
        let w = width[&t];
        let c = |x: Word| consts.get(&x).copied();
        let below =
            |mask: Option<u64>, zeros: u32| mask.is_some_and(|v| zeros >= 64 || v >> zeros == 0);
        let new = match (i.class.opcode, ops.as_slice()) {
            (IAdd | ISub | BitwiseOr | BitwiseXor, &[a, b]) => g(a).min(g(b)),
            (BitwiseAnd, &[a, b]) if below(c(b), g(a)) || below(c(a), g(b)) => w,
            (BitwiseAnd, &[a, b]) => g(a).max(g(b)),
            (IMul, &[a, b]) => g(a) + g(b),
            (ShiftLeftLogical, &[a, s]) => match c(s) {
                Some(k) if k < w as u64 => g(a) + k as u32,
                _ => 0,
            },
            (ShiftRightLogical | ShiftRightArithmetic, &[a, s]) => match c(s) {
                Some(k) if k < w as u64 && g(a) >= w => w,
                Some(k) if k < w as u64 => g(a).saturating_sub(k as u32),
                _ => 0,
            },
            (UConvert | SConvert, &[a]) => {
                let from = ty_of.get(&a).and_then(|t| width.get(t)).copied();
                if from.is_some_and(|fw| g(a) >= fw) {
                    w
                } else {
                    g(a)
                }
            }
            (Bitcast, &[a]) if ty_of.get(&a).and_then(|t| width.get(t)) == Some(&w) => g(a),
            (CopyObject | SNegate, &[a]) => g(a),
            (Select, &[_, a, b]) => g(a).min(g(b)),
            (Phi, _) => ops.iter().step_by(2).map(|&x| g(x)).min().unwrap_or(0),
            (Load, &[p]) => vtz.get(&p).copied().unwrap_or(0),
            _ => 0,
        }
        .min(w);
        if new < g(r) {
            tz.insert(r, new);
            for &u in users.get(&r).into_iter().flatten() {
                if !queued[u] {
                    queued[u] = true;
                    work.push(u);
                }
            }
        }
    }
    // D242: an OR whose operand's known zero bits cover every bit its readers observe is its other
    // operand.
    let mut repl = demanded_ors(f, &consts, &width, &tz, &vars, &decorated);
    // Known zeros become the constant 0 of their type.
    for &(b, k) in &nodes {
        let i = &f.blocks[b].instructions[k];
        let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
            continue;
        };
        if decorated.contains(&r) || tz.get(&r) != width.get(&t) {
            continue;
        }
        let z = *zero_of.entry(t).or_insert_with(|| {
            let c = *bound;
            *bound += 1;
            let lit = if width[&t] == 64 {
                Operand::LiteralBit64(0)
            } else {
                Operand::LiteralBit32(0)
            };
            m.types_global_values
                .push(Instruction::new(Constant, Some(t), Some(c), vec![lit]));
            c
        });
        repl.insert(r, z);
    }
    for blk in &mut f.blocks {
        blk.instructions.retain(|i| {
            let drop = i.result_id.is_some_and(|r| repl.contains_key(&r));
            if drop {
                gone.insert(i.result_id.unwrap_or(0));
            }
            !drop
        });
    }
    for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
        for o in &mut i.operands {
            if let Operand::IdRef(x) = o {
                while let Some(&z) = repl.get(x) {
                    *x = z;
                }
            }
        }
    }
    done += repl.len();
    done
}

/// Part of rewrite `k` (decision D242): the bits of each integer value that anything observes
/// (*demanded* bits), by a backward analysis over SSA values and private scalars: a value read by an
/// `OpBitwiseOr`, a `select` or phi (as a value) or stored to a private scalar has the demanded bits of
/// that result or variable, one read by `x & C` (C a constant) those of the AND within C, a private
/// scalar those of its loads; any other reader (a compare, an add, a store to memory, a call, ...)
/// observes every bit. Then `a | b` whose demanded bits all lie in `b`'s known low zero bits (`tz`,
/// [`low_zeros`]) is `a`. The misaligned flag (D242) is such a chain: each access ORs its address's
/// low word in, and the flag is only read as `(flag & 3) != 0`, so an address known to be a multiple of 4
/// adds nothing.
///
/// Exact: by induction over the uses, each observation of a value depends only on its demanded bits
/// (an OR's, select's or phi's result bit j is operand bit j; `x & C` bit j is bit j of x where C has
/// it, else 0; a load returns the value last stored or the initializer). `a | b` and `a` differ only
/// where `b` has ones, which lie above its known zero bits and so outside every demanded bit: every
/// reader observes the same. Optimistic start (nothing demanded) with a worklist to the fixpoint, so
/// loop-carried flags are covered. Returns the replacements (result → operand).
fn demanded_ors(
    f: &Function,
    consts: &HashMap<Word, u64>,
    width: &HashMap<Word, u32>,
    tz: &HashMap<Word, u32>,
    vars: &HashMap<Word, Option<Word>>,
    decorated: &HashSet<Word>,
) -> HashMap<Word, Word> {
    use Op::*;
    const ALL: u64 = u64::MAX;
    let mut dem: HashMap<Word, u64> = HashMap::default();
    // Each id's readers: (block, instruction, operand position among the id operands).
    let mut readers: HashMap<Word, Vec<(usize, usize, usize)>> = HashMap::default();
    // Each private scalar's loads; each result's definition.
    let mut loads: HashMap<Word, Vec<Word>> = HashMap::default();
    let mut def: HashMap<Word, (usize, usize)> = HashMap::default();
    for (b, blk) in f.blocks.iter().enumerate() {
        for (k, i) in blk.instructions.iter().enumerate() {
            if let Some(r) = i.result_id {
                def.insert(r, (b, k));
            }
            for (n, x) in i.operands.iter().filter_map(id).enumerate() {
                readers.entry(x).or_default().push((b, k, n));
            }
            if i.class.opcode == Load && plain_load(i) {
                if let (Some(p), Some(r)) = (i.operands.first().and_then(id), i.result_id) {
                    if vars.contains_key(&p) {
                        loads.entry(p).or_default().push(r);
                    }
                }
            }
        }
    }
    // What the reader at (b, k, n) observes of its operand, from what is known of its result.
    let observed = |dem: &HashMap<Word, u64>, b: usize, k: usize, n: usize| -> u64 {
        let i = &f.blocks[b].instructions[k];
        let op = i.class.opcode;
        if !matches!(op, BitwiseOr | BitwiseAnd | Select | Phi | Store | Load) {
            return ALL;
        }
        let o = |j: usize| i.operands.get(j).and_then(id);
        let of = |x: Option<Word>| x.map_or(ALL, |r| dem.get(&r).copied().unwrap_or(0));
        let private = || o(0).is_some_and(|p| vars.contains_key(&p));
        match (op, i.operands.len(), n) {
            (BitwiseOr, 2, _) => of(i.result_id),
            (BitwiseAnd, 2, _) => match o(1 - n).and_then(|x| consts.get(&x)) {
                Some(&c) => of(i.result_id) & c,
                None => ALL,
            },
            (Select, 3, 1 | 2) => of(i.result_id),
            (Phi, _, n) if n % 2 == 0 => of(i.result_id),
            (Store, _, 1) if private() => o(0).and_then(|p| dem.get(&p)).copied().unwrap_or(0),
            // The pointer operand of a load or store of a private scalar reads no bits.
            (Load | Store, _, 0) if private() => 0,
            _ => ALL,
        }
    };
    // Values (and variables) to visit: every id with readers, every variable with loads.
    let mut work: Vec<Word> = readers
        .keys()
        .copied()
        .chain(vars.keys().copied())
        .collect();
    work.sort_unstable();
    let mut queued: HashSet<Word> = work.iter().copied().collect();
    // Who to revisit when an id's demanded bits grow: its operands (and for a load, its variable; for a
    // variable, the values stored to it).
    while let Some(x) = work.pop() {
        queued.remove(&x);
        let mut d = 0u64;
        if vars.contains_key(&x) {
            for &l in loads.get(&x).into_iter().flatten() {
                d |= dem.get(&l).copied().unwrap_or(0);
            }
        }
        for &(b, k, n) in readers.get(&x).into_iter().flatten() {
            d |= observed(&dem, b, k, n);
            if d == ALL {
                break;
            }
        }
        if d == dem.get(&x).copied().unwrap_or(0) {
            continue;
        }
        dem.insert(x, d);
        // Revisit what x's readers read: the definition of x's operands, the stores' values.
        let mut again: Vec<Word> = Vec::new();
        if let Some(&(b, k)) = def.get(&x) {
            let i = &f.blocks[b].instructions[k];
            again.extend(i.operands.iter().filter_map(id));
            if i.class.opcode == Load {
                again.extend(i.operands.first().and_then(id));
            }
        }
        if vars.contains_key(&x) {
            for &(b, k, n) in readers.get(&x).into_iter().flatten() {
                let i = &f.blocks[b].instructions[k];
                if i.class.opcode == Store && n == 0 {
                    again.extend(i.operands.get(1).and_then(id));
                }
            }
        }
        for y in again {
            if queued.insert(y) {
                work.push(y);
            }
        }
    }
    let mut repl: HashMap<Word, Word> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
            continue;
        };
        if i.class.opcode != BitwiseOr || decorated.contains(&r) || !width.contains_key(&t) {
            continue;
        }
        let d = dem.get(&r).copied().unwrap_or(0);
        let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
        let [a, b] = ops[..] else { continue };
        let none_of = |x: Word| {
            let z = tz.get(&x).copied().unwrap_or(0);
            z >= 64 || d >> z == 0
        };
        if none_of(b) {
            repl.insert(r, a);
        } else if none_of(a) {
            repl.insert(r, b);
        }
    }
    repl
}

/// Part of rewrite `k` (decision D199): inside a block entered only where `c` holds
/// ([`entry_conditions`], and the operands of a `LogicalAnd` known true), an operand
/// `s = select(c, new, old)` reads `new` (a phi's operands excepted: they are used in the predecessor).
/// The lane lowering guards a register write by the lane's EXEC bit and then uses the register under
/// the same guard (an LDS address written and accessed in one guarded run); reading `new` there lets
/// [`low_zeros`] see its zeros. Exact: where `c` holds the select is `new`; `new` dominates the use,
/// since it dominates `s` and `s` the use; and the `c` tested on the way into the block is the latest
/// value of `c` (its definition dominates the branch). Returns the operands rewritten.
fn guarded_uses(f: &mut Function) -> usize {
    let (_, known) = entry_conditions(f);
    let mut sel: HashMap<Word, (Word, Word)> = HashMap::default();
    let mut and: HashMap<Word, (Word, Word)> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
        match (i.class.opcode, i.result_id, ops.as_slice()) {
            (Op::Select, Some(r), &[c, a, b]) if a != b => {
                sel.insert(r, (c, a));
            }
            (Op::LogicalAnd, Some(r), &[a, b]) => {
                and.insert(r, (a, b));
            }
            _ => {}
        }
    }
    let mut done = 0;
    for (b, blk) in f.blocks.iter_mut().enumerate() {
        let Some(k) = known[b].as_ref().filter(|k| !k.is_empty()) else {
            continue;
        };
        // The conditions and what they imply through LogicalAnd (a bounded walk).
        let mut holds: HashSet<Word> = HashSet::default();
        let mut stack: Vec<Word> = k.clone();
        while let Some(c) = stack.pop() {
            if holds.len() < 64 && holds.insert(c) {
                if let Some(&(x, y)) = and.get(&c) {
                    stack.extend([x, y]);
                }
            }
        }
        for i in &mut blk.instructions {
            if i.class.opcode == Op::Phi {
                continue;
            }
            for o in &mut i.operands {
                let Operand::IdRef(x) = o else { continue };
                let mut v = *x;
                while let Some(&(_, new)) = sel.get(&v).filter(|(c, _)| holds.contains(c)) {
                    v = new;
                }
                if v != *x {
                    *x = v;
                    done += 1;
                }
            }
        }
    }
    done
}

/// Part of rewrite `k` (decision D199): after `a` has folded what known zeros made constant, a phi whose
/// values are all one value `x` or the phi itself is `x` (Braun et al. 2013, §3.1, as [`promote`] does
/// while building: `x` dominates every predecessor that does not come through the phi's block, so it
/// dominates the block). Repeated until none is left. Returns the phis removed.
fn trivial_phis(f: &mut Function, gone: &mut HashSet<Word>) -> usize {
    let resolve = |repl: &HashMap<Word, Word>, mut x: Word| {
        while let Some(&y) = repl.get(&x) {
            x = y;
        }
        x
    };
    let mut repl: HashMap<Word, Word> = HashMap::default();
    loop {
        let mut changed = false;
        for i in f.blocks.iter().flat_map(|b| &b.instructions) {
            let Some(r) = i.result_id else { continue };
            if i.class.opcode != Op::Phi || repl.contains_key(&r) {
                continue;
            }
            let mut same = None;
            let mut trivial = true;
            for x in i.operands.iter().step_by(2).filter_map(id) {
                let x = resolve(&repl, x);
                if x == r || same == Some(x) {
                    continue;
                }
                if same.is_some() {
                    trivial = false;
                    break;
                }
                same = Some(x);
            }
            if let (true, Some(x)) = (trivial, same) {
                repl.insert(r, x);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for blk in &mut f.blocks {
        blk.instructions.retain(|i| {
            let drop = i.result_id.is_some_and(|r| repl.contains_key(&r));
            if drop {
                gone.insert(i.result_id.unwrap_or(0));
            }
            !drop
        });
    }
    for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
        for o in &mut i.operands {
            if let Operand::IdRef(x) = o {
                *x = resolve(&repl, *x);
            }
        }
    }
    repl.len()
}

/// The id of the module's unsigned integer type of `w` bits, if it declares one.
fn uint_type(m: &Module, w: u32) -> Option<Word> {
    m.types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::TypeInt
                && i.operands.first() == Some(&Operand::LiteralBit32(w))
                && i.operands.get(1) == Some(&Operand::LiteralBit32(0))
        })
        .and_then(|i| i.result_id)
}

/// Part of rewrite 8 (decision D182): a 32-bit add whose carry the lowering computes through a 64-bit
/// add, `s = zext64(a) + zext64(b)` with only `trunc32(s)` and `trunc32(s >> 32)` reading `s`, becomes
/// `OpIAddCarry a b` and its two members. Exact: the 64-bit sum of two zero-extended 32-bit values is
/// below 2^33, its low word is the wrapped 32-bit sum (member 0) and its high word 1 exactly when that
/// sum overflowed (member 1, the carry).
///
/// D255: the same shape of a subtraction (`v_sub_co_u32`'s borrow) and of a product (`v_mul_hi_u32`,
/// `v_mad_u64_u32` without addend) too. `zext64(a) * zext64(b)` is below 2^64, so its words are
/// `OpUMulExtended a b`'s members (low, high). `zext64(a) − zext64(b)` wraps modulo 2^64: its low word
/// is the wrapped 32-bit difference (`OpISubBorrow`'s member 0) and its high word 0 when `a ≥ b`, else
/// 0xffffffff, the negation of the borrow (member 1, 0 or 1): a high word read only as `hi & 1` is the
/// borrow itself, any other read takes a new `OpSNegate` of it. Returns the operations rewritten.
fn add_carry(
    m: &mut Module,
    f: &mut Function,
    bound: &mut Word,
    gone: &mut HashSet<Word>,
) -> usize {
    let (Some(u32_), Some(u64_)) = (uint_type(m, 32), uint_type(m, 64)) else {
        return 0;
    };
    let c32: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Constant
                && i.result_type == Some(u64_)
                && i.operands.first() == Some(&Operand::LiteralBit64(32))
        })
        .filter_map(|i| i.result_id)
        .collect();
    // Definitions (opcode, type, id operands) of every id in the function, and the ids used by
    // instructions without a result. The users are listed below only for the candidate sums and their
    // shifts, the ids whose users are asked for (a list per id of the function was this rewrite's main
    // allocation; issue 31, D204).
    let mut def: HashMap<Word, (Op, Option<Word>, Vec<Word>)> = HashMap::default();
    let mut anon_use: HashSet<Word> = HashSet::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
        match i.result_id {
            Some(r) => {
                def.insert(r, (i.class.opcode, i.result_type, ops));
            }
            None => anon_use.extend(ops),
        }
    }
    // 64-bit constants below 2^32 (the extension of a 32-bit constant, D255) by id, the 32-bit
    // constants by value, and every 32-bit constant 1 (a difference's `hi & 1`).
    let mut small: HashMap<Word, u32> = HashMap::default();
    let mut k32: HashMap<u32, Word> = HashMap::default();
    let mut one32: HashSet<Word> = HashSet::default();
    for i in &m.types_global_values {
        match (
            i.class.opcode,
            i.result_type,
            i.result_id,
            i.operands.first(),
        ) {
            (Op::Constant, Some(t), Some(r), Some(Operand::LiteralBit64(v)))
                if t == u64_ && *v <= u32::MAX as u64 =>
            {
                small.insert(r, *v as u32);
            }
            (Op::Constant, Some(t), Some(r), Some(Operand::LiteralBit32(v))) if t == u32_ => {
                k32.entry(*v).or_insert(r);
                if *v == 1 {
                    one32.insert(r);
                }
            }
            _ => {}
        }
    }
    // A zero-extended 32-bit operand: the value extended, or the constant's low word.
    #[derive(Clone, Copy)]
    enum Ext {
        Of(Word),
        Const(u32),
    }
    let zext_of = |x: Word| match def.get(&x) {
        Some((Op::UConvert, Some(t), o)) if *t == u64_ => {
            let a = o[0];
            matches!(def.get(&a), Some((_, Some(ta), _)) if *ta == u32_).then_some(Ext::Of(a))
        }
        _ => small.get(&x).map(|&v| Ext::Const(v)),
    };
    let trunc = |x: Word| matches!(def.get(&x), Some((Op::UConvert, Some(t), _)) if *t == u32_);
    // The candidate sums (differences, products): a 64-bit add (subtract, multiply) of two
    // zero-extended 32-bit values (one may be a constant below 2^32), not used by an instruction
    // without a result.
    let sums: HashMap<Word, (Ext, Ext)> = def
        .iter()
        .filter(|&(s, (op, t, _))| {
            matches!(op, Op::IAdd | Op::ISub | Op::IMul)
                && *t == Some(u64_)
                && !anon_use.contains(s)
        })
        .filter_map(|(&s, (_, _, o))| Some((s, (zext_of(o[0])?, zext_of(o[1])?))))
        .filter(|(_, p)| !matches!(p, (Ext::Const(_), Ext::Const(_))))
        .collect();
    if sums.is_empty() {
        return 0;
    }
    // Users (results, in the function's order, once per use) of the ids in `of`.
    let users_of = |of: &dyn Fn(Word) -> bool| {
        let mut users: HashMap<Word, Vec<Word>> = HashMap::default();
        for i in f.blocks.iter().flat_map(|b| &b.instructions) {
            let Some(r) = i.result_id else { continue };
            for x in i.operands.iter().filter_map(id) {
                if of(x) {
                    users.entry(x).or_default().push(r);
                }
            }
        }
        users
    };
    let mut users = users_of(&|x| sums.contains_key(&x));
    // The shifts among the sums' users, and their users.
    let shifts: HashSet<Word> = users
        .values()
        .flatten()
        .copied()
        .filter(|u| matches!(def.get(u), Some((Op::ShiftRightLogical, _, _))))
        .collect();
    if !shifts.is_empty() {
        users.extend(users_of(&|x| shifts.contains(&x)));
    }
    // Sum -> (a, b, low truncations, shifts, high truncations).
    type Hit = (Ext, Ext, Vec<Word>, Vec<Word>, Vec<Word>);
    let mut hits: HashMap<Word, Hit> = HashMap::default();
    for (&s, &(a, b)) in &sums {
        let (mut lo, mut sh, mut hi) = (vec![], vec![], vec![]);
        let mut ok = true;
        for &u in users.get(&s).into_iter().flatten() {
            if trunc(u) {
                lo.push(u);
            } else if matches!(def.get(&u), Some((Op::ShiftRightLogical, _, x)) if x[0] == s && c32.contains(&x[1]))
                && !anon_use.contains(&u)
                && users.get(&u).into_iter().flatten().all(|&v| trunc(v))
            {
                sh.push(u);
                hi.extend(users.get(&u).into_iter().flatten().copied());
            } else {
                ok = false;
            }
        }
        if ok {
            hits.insert(s, (a, b, lo, sh, hi));
        }
    }
    if hits.is_empty() {
        return 0;
    }
    // A difference's high truncations read only as `hi & 1` (the 32-bit constant 1): those ANDs read
    // the borrow; any other read of a high truncation needs the borrow negated.
    let sub_hi: HashSet<Word> = hits
        .iter()
        .filter(|(s, _)| def[s].0 == Op::ISub)
        .flat_map(|(_, h)| h.4.iter().copied())
        .collect();
    let hi_users = if sub_hi.is_empty() {
        HashMap::default()
    } else {
        users_of(&|x| sub_hi.contains(&x))
    };
    let masks_one = |u: Word| {
        !anon_use.contains(&u)
            && hi_users.get(&u).into_iter().flatten().all(|v| {
                matches!(def.get(v), Some((Op::BitwiseAnd, Some(t), x))
                    if *t == u32_ && x.len() == 2 && (x[0] == u && one32.contains(&x[1])
                        || x[1] == u && one32.contains(&x[0])))
            })
    };
    // The struct { u32, u32 } IAddCarry returns.
    let pair = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::TypeStruct
                && i.operands == vec![Operand::IdRef(u32_), Operand::IdRef(u32_)]
        })
        .and_then(|i| i.result_id);
    let pair = match pair {
        Some(p) => p,
        None => {
            let p = *bound;
            *bound += 1;
            m.types_global_values.push(Instruction::new(
                Op::TypeStruct,
                None,
                Some(p),
                vec![Operand::IdRef(u32_), Operand::IdRef(u32_)],
            ));
            p
        }
    };
    let mut repl: HashMap<Word, Word> = HashMap::default();
    let mut drop: HashSet<Word> = HashSet::default();
    for blk in &mut f.blocks {
        let mut out = Vec::with_capacity(blk.instructions.len());
        for i in std::mem::take(&mut blk.instructions) {
            let Some((a, b, lo, sh, hi)) = i.result_id.and_then(|s| hits.get(&s)) else {
                out.push(i);
                continue;
            };
            let op = match i.class.opcode {
                Op::ISub => Op::ISubBorrow,
                Op::IMul => Op::UMulExtended,
                _ => Op::IAddCarry,
            };
            let mut word = |e: Ext| match e {
                Ext::Of(x) => x,
                Ext::Const(v) => *k32.entry(v).or_insert_with(|| {
                    let c = *bound;
                    *bound += 1;
                    m.types_global_values.push(Instruction::new(
                        Op::Constant,
                        Some(u32_),
                        Some(c),
                        vec![Operand::LiteralBit32(v)],
                    ));
                    c
                }),
            };
            let (a, b) = (word(*a), word(*b));
            let (r, l, h) = (*bound, *bound + 1, *bound + 2);
            *bound += 3;
            out.push(Instruction::new(
                op,
                Some(pair),
                Some(r),
                vec![Operand::IdRef(a), Operand::IdRef(b)],
            ));
            for (x, k) in [(l, 0), (h, 1)] {
                out.push(Instruction::new(
                    Op::CompositeExtract,
                    Some(u32_),
                    Some(x),
                    vec![Operand::IdRef(r), Operand::LiteralBit32(k)],
                ));
            }
            for &u in lo {
                repl.insert(u, l);
            }
            if op == Op::ISubBorrow {
                // The borrow where only its low bit is read; its negation (the high word) elsewhere.
                let mut neg = None;
                for &u in hi {
                    if masks_one(u) {
                        for &v in hi_users.get(&u).into_iter().flatten() {
                            repl.insert(v, h);
                        }
                        repl.insert(u, h);
                    } else {
                        let n = *neg.get_or_insert_with(|| {
                            let n = *bound;
                            *bound += 1;
                            out.push(Instruction::new(
                                Op::SNegate,
                                Some(u32_),
                                Some(n),
                                vec![Operand::IdRef(h)],
                            ));
                            n
                        });
                        repl.insert(u, n);
                    }
                }
            } else {
                for &u in hi {
                    repl.insert(u, h);
                }
            }
            drop.extend(sh.iter().copied());
            drop.insert(i.result_id.unwrap_or(0));
        }
        blk.instructions = out;
    }
    drop.extend(repl.keys().copied());
    for blk in &mut f.blocks {
        blk.instructions.retain(|i| {
            let d = i.result_id.is_some_and(|r| drop.contains(&r));
            if d {
                gone.insert(i.result_id.unwrap_or(0));
            }
            !d
        });
        for i in &mut blk.instructions {
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    if let Some(y) = repl.get(x) {
                        *x = *y;
                    }
                }
            }
        }
    }
    hits.len()
}

/// Backward liveness of the private scalars numbered by `index` over the blocks (successors by block
/// index): a variable is live at a point when some path from it loads the variable before storing it;
/// nothing is live where the function returns. Returns (live in, live out) per block, as bit sets.
fn liveness(
    f: &Function,
    index: &HashMap<Word, usize>,
    succ: &[Vec<usize>],
) -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
    let words = index.len().div_ceil(64);
    let n = f.blocks.len();
    let var_of = |i: &Instruction| -> Option<usize> {
        if !matches!(i.class.opcode, Op::Load | Op::Store) {
            return None;
        }
        index.get(&i.operands.first().and_then(id)?).copied()
    };
    // Per block: upward-exposed loads (use) and stores (def).
    let mut uses = vec![vec![0u64; words]; n];
    let mut defs = vec![vec![0u64; words]; n];
    for (b, blk) in f.blocks.iter().enumerate() {
        for i in &blk.instructions {
            let Some(v) = var_of(i) else { continue };
            let (w, bit) = (v / 64, 1u64 << (v % 64));
            if i.class.opcode == Op::Load {
                if defs[b][w] & bit == 0 {
                    uses[b][w] |= bit;
                }
            } else {
                defs[b][w] |= bit;
            }
        }
    }
    let mut live_in = vec![vec![0u64; words]; n];
    let mut live_out = vec![vec![0u64; words]; n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut out = vec![0u64; words];
            for &s in &succ[b] {
                for (o, x) in out.iter_mut().zip(&live_in[s]) {
                    *o |= x;
                }
            }
            let inn: Vec<u64> = (0..words)
                .map(|w| uses[b][w] | (out[w] & !defs[b][w]))
                .collect();
            if inn != live_in[b] || out != live_out[b] {
                live_in[b] = inn;
                live_out[b] = out;
                changed = true;
            }
        }
    }
    (live_in, live_out)
}

/// Decision D197: the input copies (`OpCopyObject`, ids `marker + 1 ..= marker + n`) of the float
/// primitives that were not outlined are removed, their readers reading the copied values again. Exact:
/// a copy has its operand's value.
fn uncopy(m: &mut Module, spans: &[(Word, Word, u32)], gone: &mut HashSet<Word>) {
    let ids: HashSet<Word> = spans
        .iter()
        .flat_map(|&(mark, _, n)| (1..=n).map(move |k| mark + k))
        .collect();
    let Some(f) = m.functions.first_mut() else {
        return;
    };
    if ids.is_empty() {
        return;
    }
    let mut to: HashMap<Word, Word> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        if i.class.opcode != Op::CopyObject {
            continue;
        }
        if let (Some(r), Some(x)) = (i.result_id, i.operands.first().and_then(id)) {
            if ids.contains(&r) {
                to.insert(r, x);
            }
        }
    }
    if to.is_empty() {
        return;
    }
    for b in &mut f.blocks {
        b.instructions
            .retain(|i| !i.result_id.is_some_and(|r| to.contains_key(&r)));
        for o in b.instructions.iter_mut().flat_map(|i| &mut i.operands) {
            if let Operand::IdRef(x) = o {
                while let Some(&y) = to.get(x) {
                    *x = y;
                }
            }
        }
    }
    gone.extend(to.keys().copied());
}

/// An instruction's words in the binary.
fn inst_words(i: &Instruction) -> usize {
    let mut v = Vec::new();
    rspirv::binary::Assemble::assemble_into(i, &mut v);
    v.len()
}

/// Smallest span worth a function (instructions): a call costs 4 + its arguments words.
const OUTLINE_MIN: usize = 24;

/// Rewrite 6 (decision D163): repeated float primitives become one SPIR-V function each. `spans` holds
/// (marker, result) per float primitive the lowering emitted: its code is the instructions of one block
/// whose result ids lie in `(marker, result]`, a pure function of the values it reads from outside
/// (its arguments). A span qualifies when all those ids are contiguous in one block, none but the result
/// is used outside it, and it has at least [`OUTLINE_MIN`] instructions. Spans equal up to renaming
/// (same opcodes, types, constants, decorations; arguments in order of first use) share one function:
/// parameters = the arguments, body = a renamed copy, `OpReturnValue` of the result; each span becomes
/// `%result = OpFunctionCall %fn args`. Exact: a function call computes the same pure instructions on the
/// same values (SPIR-V function calls pass values; NoContraction decorations are copied).
///
/// A span's first `n` instructions (its third number, D197) are `OpCopyObject`s of its inputs, ids
/// `marker + 1 ..= marker + n`: they become the first `n` parameters by position (never merged with one
/// another or with the other arguments, so equal or constant inputs do not change the key), and the
/// function reads its parameters where the span read the copies. A span whose inputs are all constants
/// and which has no decorated (float) instruction stays inline, where [`simplify`] folds it (a
/// comparison's widened constant folds entirely; float arithmetic is never folded).
fn outline(
    m: &mut Module,
    spans: &[(Word, Word, u32)],
    others: &HashMap<Word, Vec<Word>>,
    bound: &mut Word,
    gone: &mut HashSet<Word>,
) -> usize {
    if spans.is_empty() || m.functions.is_empty() {
        return 0;
    }
    // Functions too: a span of D235 calls the primitives outlined before it.
    let globals: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter_map(|i| i.result_id)
        .chain(m.ext_inst_imports.iter().filter_map(|i| i.result_id))
        .chain(
            m.functions[1..]
                .iter()
                .filter_map(|f| f.def.as_ref().and_then(|d| d.result_id)),
        )
        .collect();
    let mut decos: HashMap<Word, Vec<Instruction>> = HashMap::default();
    for a in &m.annotations {
        if let Some(t) = a.operands.first().and_then(id) {
            decos.entry(t).or_default().push(a.clone());
        }
    }
    let f = &m.functions[0];
    let mut pos: HashMap<Word, (usize, usize)> = HashMap::default();
    let mut ty_of: HashMap<Word, Word> = HashMap::default();
    let mut uses: HashMap<Word, usize> = HashMap::default();
    let mut defined: Vec<Word> = Vec::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (ii, i) in b.instructions.iter().enumerate() {
            if let Some(r) = i.result_id {
                pos.insert(r, (bi, ii));
                defined.push(r);
                if let Some(t) = i.result_type {
                    ty_of.insert(r, t);
                }
            }
            for x in i.operands.iter().filter_map(id) {
                *uses.entry(x).or_default() += 1;
            }
        }
    }
    defined.sort_unstable();
    // Qualifying spans: (block, start, end, args, canonical key).
    type Key = Vec<(Op, Option<Word>, Vec<Operand>, Vec<Vec<Operand>>)>;
    struct Span {
        block: usize,
        start: usize,
        end: usize,
        result: Word,
        /// The span's other results (D235), returned before `result` in one struct.
        others: Vec<Word>,
        args: Vec<Word>,
        copies: usize,
        inline_words: usize,
    }
    let mut groups: HashMap<Key, Vec<Span>> = HashMap::default();
    let mut order: Vec<Key> = Vec::new();
    let mut taken: HashSet<(usize, usize)> = HashSet::default();
    for &(mark, r, n) in spans {
        let Some(&(bi, end)) = pos.get(&r) else {
            continue;
        };
        let n = n as usize;
        let ins = &f.blocks[bi].instructions;
        let inside = |i: &Instruction| i.result_id.is_some_and(|x| x > mark && x <= r);
        let mut start = end;
        while start > 0 && inside(&ins[start - 1]) {
            start -= 1;
        }
        let len = end + 1 - start;
        let lo = defined.partition_point(|&x| x <= mark);
        let hi = defined.partition_point(|&x| x <= r);
        if len < OUTLINE_MIN + n
            || hi - lo != len
            || (start..=end).any(|k| taken.contains(&(bi, k)))
        {
            continue;
        }
        let range = &ins[start..=end];
        let copies_ok = range[..n].iter().enumerate().all(|(k, i)| {
            i.class.opcode == Op::CopyObject && i.result_id == Some(mark + 1 + k as Word)
        });
        if !copies_ok {
            continue;
        }
        let own: HashMap<Word, usize> = range
            .iter()
            .enumerate()
            .filter_map(|(k, i)| Some((i.result_id?, k)))
            .collect();
        let mut inner: HashMap<Word, usize> = HashMap::default();
        for x in range.iter().flat_map(|i| i.operands.iter().filter_map(id)) {
            *inner.entry(x).or_default() += 1;
        }
        let more: &[Word] = others.get(&r).map_or(&[], |v| v.as_slice());
        let escapes = own.keys().any(|x| {
            *x != r
                && !more.contains(x)
                && uses.get(x).copied().unwrap_or(0) != inner.get(x).copied().unwrap_or(0)
        });
        if escapes
            || !ty_of.contains_key(&r)
            || more
                .iter()
                .any(|x| !own.contains_key(x) || !ty_of.contains_key(x) || *x == r)
        {
            continue;
        }
        // The copies' inputs are the first `n` arguments, by position.
        let mut args: Vec<Word> = range[..n]
            .iter()
            .filter_map(|i| i.operands.first().and_then(id))
            .collect();
        let mut key: Key = Vec::with_capacity(len);
        // A span of constants only and without a decorated (float) instruction stays inline, where
        // `simplify` folds it (a comparison's widened constant); float arithmetic is never folded.
        let folds = n > 0
            && args.iter().all(|a| globals.contains(a))
            && !range[n..]
                .iter()
                .any(|i| i.result_id.is_some_and(|x| decos.contains_key(&x)));
        let mut ok = args.len() == n && !folds;
        for (k, i) in range.iter().enumerate() {
            if k < n {
                let p = vec![Operand::LiteralBit64(k as u64)];
                key.push((i.class.opcode, i.result_type, p, Vec::new()));
                continue;
            }
            let ops: Vec<Operand> = i
                .operands
                .iter()
                .map(|o| match o {
                    Operand::IdRef(x) if own.contains_key(x) => {
                        Operand::LiteralBit32(own[x] as u32)
                    }
                    Operand::IdRef(x) if globals.contains(x) => o.clone(),
                    Operand::IdRef(x) => {
                        if !ty_of.contains_key(x) {
                            ok = false;
                        }
                        let j = args[n..]
                            .iter()
                            .position(|a| a == x)
                            .map(|j| j + n)
                            .unwrap_or_else(|| {
                                args.push(*x);
                                args.len() - 1
                            });
                        Operand::LiteralBit64(j as u64)
                    }
                    _ => o.clone(),
                })
                .collect();
            let d: Vec<Vec<Operand>> = i
                .result_id
                .and_then(|x| decos.get(&x))
                .map(|v| v.iter().map(|a| a.operands[1..].to_vec()).collect())
                .unwrap_or_default();
            key.push((i.class.opcode, i.result_type, ops, d));
        }
        if !more.is_empty() {
            // Which of the span's values are its other results.
            let at = more
                .iter()
                .map(|x| Operand::LiteralBit32(own[x] as u32))
                .collect();
            key.push((Op::Nop, None, at, Vec::new()));
        }
        if !ok {
            continue;
        }
        for k in start..=end {
            taken.insert((bi, k));
        }
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        // Its words inline, estimated: those of instructions that read a value not known from
        // constants alone (an undecorated operation of constants and of constant inputs counts as
        // folded, as `simplify` and the driver fold it; float arithmetic, decorated, never does).
        let mut known: HashSet<Word> = HashSet::default();
        let mut inline_words = 0;
        for (k, i) in range.iter().enumerate() {
            let konst = |x: &Word| globals.contains(x) || known.contains(x);
            let folds = if k < n {
                args[k..=k].iter().all(konst)
            } else {
                i.class.opcode != Op::FunctionCall
                    && i.result_id.is_some_and(|x| !decos.contains_key(&x))
                    && i.operands.iter().filter_map(id).all(|x| konst(&x))
            };
            match (folds, i.result_id) {
                (true, Some(x)) => {
                    known.insert(x);
                }
                _ if k >= n => inline_words += inst_words(i),
                _ => {}
            }
        }
        groups.entry(key).or_default().push(Span {
            block: bi,
            start,
            end,
            result: r,
            others: more.to_vec(),
            args,
            copies: n,
            inline_words,
        });
    }
    let mut fresh = || {
        let x = *bound;
        *bound += 1;
        x
    };
    let mut new_fns: Vec<Function> = Vec::new();
    // (block, first and last instruction of the span, what replaces it: its call, and with several
    // results the extracts that give them their ids).
    let mut cuts: Vec<(usize, usize, usize, Vec<Instruction>)> = Vec::new();
    let mut outlined = 0;
    for key in order {
        let members = &groups[&key];
        if members.len() < 2 {
            continue;
        }
        let first = &members[0];
        // An input that is the same constant in every span stays a constant in the body (folded there
        // as inline); the others are parameters (D197).
        let bake: Vec<bool> = (0..first.args.len())
            .map(|k| {
                k < first.copies
                    && globals.contains(&first.args[k])
                    && members.iter().all(|s| s.args[k] == first.args[k])
            })
            .collect();
        // Outlined only where it pays (D197): the function (its body, `OpFunction`, parameters, label,
        // return, end, a new function type) and one call per span against the words each span keeps
        // inline after constant folding.
        let f = &m.functions[0];
        let body: usize = f.blocks[first.block].instructions
            [first.start + first.copies..=first.end]
            .iter()
            .map(inst_words)
            .sum();
        let nargs = bake.iter().filter(|b| !**b).count();
        // Several results (D235): a struct type, its construction and one extract per result and call.
        let nres = first.others.len() + 1;
        let multi = if nres > 1 {
            (2 + nres) + (3 + nres) + members.len() * 4 * nres
        } else {
            0
        };
        let cost =
            body + 5 + 3 * nargs + 2 + 2 + 1 + (3 + nargs) + members.len() * (4 + nargs) + multi;
        let inline: usize = members.iter().map(|s| s.inline_words).sum();
        if inline <= cost {
            continue;
        }
        let f = &m.functions[0];
        let res_tys: Vec<Word> = first
            .others
            .iter()
            .chain([&first.result])
            .map(|x| ty_of[x])
            .collect();
        let ret = if nres > 1 {
            let t = fresh();
            m.types_global_values.push(Instruction::new(
                Op::TypeStruct,
                None,
                Some(t),
                res_tys.iter().map(|x| Operand::IdRef(*x)).collect(),
            ));
            t
        } else {
            res_tys[0]
        };
        let range = &f.blocks[first.block].instructions[first.start..=first.end];
        // An input's type is its copy's (a constant input has no entry in `ty_of`).
        let arg_tys: Vec<Word> = first
            .args
            .iter()
            .enumerate()
            .filter(|(k, _)| !bake[*k])
            .map(|(k, a)| match range.get(k) {
                Some(c) if k < first.copies => c.result_type.unwrap_or(0),
                _ => ty_of[a],
            })
            .collect();
        // The function type, reused when the module has it.
        let fty = m
            .types_global_values
            .iter()
            .find(|i| {
                i.class.opcode == Op::TypeFunction
                    && i.operands.first().and_then(id) == Some(ret)
                    && i.operands[1..]
                        .iter()
                        .filter_map(id)
                        .eq(arg_tys.iter().copied())
                    && i.operands.len() == arg_tys.len() + 1
            })
            .and_then(|i| i.result_id);
        let fty = match fty {
            Some(t) => t,
            None => {
                let t = fresh();
                let mut ops = vec![Operand::IdRef(ret)];
                ops.extend(arg_tys.iter().map(|x| Operand::IdRef(*x)));
                m.types_global_values
                    .push(Instruction::new(Op::TypeFunction, None, Some(t), ops));
                t
            }
        };
        let fid = fresh();
        let params: Vec<Word> = arg_tys.iter().map(|_| fresh()).collect();
        // Each argument position's parameter (none for a baked constant).
        let mut next = params.iter().copied();
        let param_of: Vec<Option<Word>> = bake
            .iter()
            .map(|b| if *b { None } else { next.next() })
            .collect();
        // The copies read as their parameters (or baked constants); the other arguments by id.
        let mut rename: HashMap<Word, Word> = first.args[first.copies..]
            .iter()
            .copied()
            .zip(param_of[first.copies..].iter().filter_map(|p| *p))
            .collect();
        for (k, i) in range.iter().enumerate() {
            if let Some(r) = i.result_id {
                let to = if k < first.copies {
                    param_of[k].unwrap_or(first.args[k])
                } else {
                    fresh()
                };
                rename.insert(r, to);
            }
        }
        let mut body: Vec<Instruction> = range[first.copies..]
            .iter()
            .map(|i| {
                let mut c = i.clone();
                c.result_id = c.result_id.map(|r| rename[&r]);
                for o in &mut c.operands {
                    if let Operand::IdRef(x) = o {
                        if let Some(y) = rename.get(x) {
                            *x = *y;
                        }
                    }
                }
                c
            })
            .collect();
        for i in range {
            for a in i
                .result_id
                .and_then(|x| decos.get(&x))
                .into_iter()
                .flatten()
            {
                let mut a = a.clone();
                a.operands[0] = Operand::IdRef(rename[&i.result_id.unwrap_or(0)]);
                m.annotations.push(a);
            }
        }
        let mut value = rename[&first.result];
        if nres > 1 {
            let c = fresh();
            body.push(Instruction::new(
                Op::CompositeConstruct,
                Some(ret),
                Some(c),
                first
                    .others
                    .iter()
                    .chain([&first.result])
                    .map(|x| Operand::IdRef(rename[x]))
                    .collect(),
            ));
            value = c;
        }
        body.push(Instruction::new(
            Op::ReturnValue,
            None,
            None,
            vec![Operand::IdRef(value)],
        ));
        let mut func = Function::new();
        func.def = Some(Instruction::new(
            Op::Function,
            Some(ret),
            Some(fid),
            vec![
                Operand::FunctionControl(spirv::FunctionControl::NONE),
                Operand::IdRef(fty),
            ],
        ));
        func.parameters = arg_tys
            .iter()
            .zip(&params)
            .map(|(t, p)| Instruction::new(Op::FunctionParameter, Some(*t), Some(*p), vec![]))
            .collect();
        let lbl = fresh();
        func.blocks.push(rspirv::dr::Block {
            label: Some(Instruction::new(Op::Label, None, Some(lbl), vec![])),
            instructions: body,
        });
        func.end = Some(Instruction::new(Op::FunctionEnd, None, None, vec![]));
        new_fns.push(func);
        for s in members {
            let mut ops = vec![Operand::IdRef(fid)];
            ops.extend(
                s.args
                    .iter()
                    .zip(&bake)
                    .filter(|(_, b)| !**b)
                    .map(|(a, _)| Operand::IdRef(*a)),
            );
            let mut put = Vec::with_capacity(nres + 1);
            if nres > 1 {
                let call = fresh();
                put.push(Instruction::new(
                    Op::FunctionCall,
                    Some(ret),
                    Some(call),
                    ops,
                ));
                for (k, (x, t)) in s.others.iter().chain([&s.result]).zip(&res_tys).enumerate() {
                    put.push(Instruction::new(
                        Op::CompositeExtract,
                        Some(*t),
                        Some(*x),
                        vec![Operand::IdRef(call), Operand::LiteralBit32(k as u32)],
                    ));
                }
            } else {
                put.push(Instruction::new(
                    Op::FunctionCall,
                    Some(ret),
                    Some(s.result),
                    ops,
                ));
            }
            cuts.push((s.block, s.start, s.end, put));
            outlined += 1;
        }
    }
    // Replace the spans (disjoint: `taken`), each block rebuilt once in one pass: a `drain` and an
    // `insert` per span moved the block's tail at every span, quadratic in a block's spans (issue 31).
    cuts.sort_by_key(|c| (c.0, c.1));
    let f = &mut m.functions[0];
    let mut cuts = cuts.into_iter().peekable();
    while let Some(&(bi, ..)) = cuts.peek() {
        let old = std::mem::take(&mut f.blocks[bi].instructions);
        let mut out = Vec::with_capacity(old.len());
        let mut cut: Option<(usize, usize, usize, Vec<Instruction>)> = None;
        for (k, i) in old.into_iter().enumerate() {
            if cut.is_none() && cuts.peek().is_some_and(|c| c.0 == bi && c.1 == k) {
                cut = cuts.next();
            }
            let Some((_, _, end, put)) = &cut else {
                out.push(i);
                continue;
            };
            if let Some(r) = i.result_id {
                if !put.iter().any(|p| p.result_id == Some(r)) {
                    gone.insert(r);
                }
            }
            if k == *end {
                out.extend(cut.take().into_iter().flat_map(|c| c.3));
            }
        }
        f.blocks[bi].instructions = out;
        // Every span lies inside its block (from `pos`): none of this block is left.
        debug_assert!(cuts.peek().is_none_or(|c| c.0 != bi));
        while cuts.next_if(|c| c.0 == bi).is_some() {}
    }
    // A call's result carries no arithmetic decoration (the function's copy does), nor does a result
    // extracted from a call's struct (D235).
    let mut calls: HashSet<Word> = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == Op::FunctionCall)
        .filter_map(|i| i.result_id)
        .collect();
    let extracted: Vec<Word> = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| {
            i.class.opcode == Op::CompositeExtract
                && i.operands
                    .first()
                    .and_then(id)
                    .is_some_and(|c| calls.contains(&c))
        })
        .filter_map(|i| i.result_id)
        .collect();
    calls.extend(extracted);
    m.annotations.retain(|a| {
        !a.operands
            .first()
            .and_then(id)
            .is_some_and(|t| calls.contains(&t))
    });
    m.functions.extend(new_fns);
    outlined
}

/// For each block, the conditions known true on entry (rule 1 of [`unguard`]): through chains of
/// single-predecessor blocks, each true edge of an `OpBranchConditional` whose false edge goes elsewhere
/// adds its condition (at most 8 per block). Also the block index of each label.
fn entry_conditions(f: &Function) -> (HashMap<Word, usize>, Vec<Option<Vec<Word>>>) {
    let labels: HashSet<Word> = f.blocks.iter().map(label).collect();
    let at: HashMap<Word, usize> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(k, b)| (label(b), k))
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![vec![]; f.blocks.len()];
    for (k, b) in f.blocks.iter().enumerate() {
        for s in successors(b, &labels) {
            if !preds[at[&s]].contains(&k) {
                preds[at[&s]].push(k);
            }
        }
    }
    // The conditions known true on entry to each block (rule 1), through chains of single predecessors.
    let mut known: Vec<Option<Vec<Word>>> = vec![None; f.blocks.len()];
    for b in 0..f.blocks.len() {
        let mut chain = vec![b];
        let mut seen = HashSet::from_iter([b]);
        // Walk up to a block already known or one with other than one predecessor.
        while let Some(&x) = chain.last() {
            if known[x].is_some() || preds[x].len() != 1 || !seen.insert(preds[x][0]) {
                break;
            }
            chain.push(preds[x][0]);
        }
        for &x in chain.iter().rev() {
            if known[x].is_some() {
                continue;
            }
            let mut k = Vec::new();
            if let [p] = preds[x].as_slice() {
                if let Some(pk) = &known[*p] {
                    k.extend(pk.iter().copied());
                }
                let t = f.blocks[*p].instructions.last();
                if let Some(t) = t.filter(|t| t.class.opcode == Op::BranchConditional) {
                    let (g, yes, no) = (id(&t.operands[0]), id(&t.operands[1]), id(&t.operands[2]));
                    if yes == Some(label(&f.blocks[x])) && no != yes {
                        k.extend(g);
                    }
                }
            }
            k.truncate(8);
            known[x] = Some(k);
        }
    }
    (at, known)
}

/// Rewrite `g` (decision D193): a select whose discarded value no one observes. The lane lowering guards
/// every register write by the lane's EXEC bit: after if-conversion and SSA construction a write is
/// `%s = select(c, new, old)`, `c` the own bit (and `on`). When every observation of `%s` happens only
/// where `c` holds, `%s` can be `new`: in the executions where `c` is false its value reaches nothing
/// that matters. That is the case of a register written and read only under one EXEC value (a
/// temporary of a divergent region), and of the own bit of VCC read only ANDed with the same EXEC bit.
///
/// `Q(v, c)`, "v is observed only where c holds", holds when every use of `v` is one of:
/// 1. any instruction in a block entered only where some `g` holds with `g ⇒ c` (a chain of blocks with
///    one predecessor each from the true edge of `OpBranchConditional g`; a phi's use counts in the
///    predecessor block it names);
/// 2. the true operand of `select(g, v, x)` with `g ⇒ c` and `x ≠ v`, or an operand of
///    `LogicalAnd(g, v)` with `g ⇒ c`: where `c` is false, `g` is, and the result ignores `v`;
/// 3. an operand of a speculable pure operation `u` (no memory, no effect, no division: computing it
///    from any operand values is defined) or a call of a pure function (every instruction of its body
///    speculable), with `Q(u, c)`.
///
/// Anything else (a store, a phi outside such a block, a branch or select condition, a capture's slot
/// store, a call argument of a function with effects) observes `v`. `g ⇒ c` is syntactic: `g` is `c`, or
/// `g = LogicalAnd(x, y)` with `x ⇒ c` or `y ⇒ c`, or `c = LogicalAnd(a, b)` with `g ⇒ a` and `g ⇒ b`.
///
/// Why exact (all selects with `Q(s, c)` replaced at once, `Q` computed before): take an execution
/// where some replaced `s` has `c` false, so its value changes from `old` to `new`. Every path of uses
/// from `s` to an instruction that observes a value passes a filter for `c` (2), or ends in a block that
/// runs only where `c` holds (1), which does not run. A filter that was itself a replaced select `t`
/// (condition `g`, `g ⇒ c`, so false here) has `Q(t, g)` and the argument repeats from `t` on its
/// finite path to the observation; the last filter on it is kept, and with its condition false its
/// value does not depend on `s`. Implications never pass through a select (a select is never
/// `LogicalAnd`), and a value used as a condition observes it, so no condition `c` or `g` changes
/// value, and the branches of (1) go as before. `new` dominates `s`'s uses (it is `s`'s operand).
/// D220: a select of two integer constants whose condition is `x && y` (or a bool `select(y, x, old)`)
/// reads `x` where `Q(select, y)`: it is never a filter (no tracked value passes a constant arm) and its
/// integer value is never a condition, so this runs together with the replacements above. D256: step
/// after step, while a step applies (VCC's bit written under `on` and ANDed with the lane's guard,
/// `select(on, carry && c, old)`, read under `c`, is the carry); each step has its own `Q` for the same
/// select and uses, so the composition differs only where the select is not observed.
/// D257: a select that fails `Q` as a whole (a register kept in memory: its store observes it everywhere)
/// has each use that alone meets `Q`'s rule rewritten to read `new`; that is the whole replacement of a
/// private copy of the select read by that use only, so the argument above holds for it, and at a filter
/// the value does not change at all.
/// Returns the selects replaced, the conditions rewritten and the uses rewritten.
/// Functions whose every instruction is speculable: a call computes a value and nothing else ([`unguard`]'s
/// pure calls). Computed over the module's functions before [`shrink`] takes them out of the module to
/// rewrite them one by one (D239: computed inside `unguard` from the module, this set was always empty).
fn speculable_functions(funcs: &[Function], glsl: Option<Word>) -> HashSet<Word> {
    funcs
        .iter()
        .filter(|g| {
            g.blocks.iter().flat_map(|b| &b.instructions).all(|i| {
                speculable(i, glsl)
                    || matches!(
                        i.class.opcode,
                        Op::Phi
                            | Op::Branch
                            | Op::BranchConditional
                            | Op::SelectionMerge
                            | Op::ReturnValue
                    )
            })
        })
        .filter_map(|g| g.def.as_ref().and_then(|d| d.result_id))
        .collect()
}

fn unguard(
    m: &Module,
    pure_fns: &HashSet<Word>,
    f: &mut Function,
    gone: &mut HashSet<Word>,
) -> usize {
    let glsl = glsl_import(m);
    let decorated = decorated_ids(m);
    let (at, known) = entry_conditions(f);
    let mut def: HashMap<Word, (usize, usize)> = HashMap::default();
    let mut uses: HashMap<Word, Vec<(usize, usize, usize)>> = HashMap::default();
    for (bi, b) in f.blocks.iter().enumerate() {
        for (ii, i) in b.instructions.iter().enumerate() {
            if let Some(r) = i.result_id {
                def.insert(r, (bi, ii));
            }
            for (k, o) in i.operands.iter().enumerate() {
                if let Some(x) = id(o) {
                    uses.entry(x).or_default().push((bi, ii, k));
                }
            }
        }
    }
    let idom = dominators(f);
    let mut q = Quiet {
        f,
        idom,
        at,
        def,
        uses,
        known,
        pure_fns,
        glsl,
        memo: HashMap::default(),
    };
    // Integer types and constants (for the selects of two constants, D220).
    let ints: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeInt)
        .filter_map(|i| i.result_id)
        .collect();
    let consts: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| matches!(i.class.opcode, Op::Constant | Op::ConstantNull))
        .filter_map(|i| i.result_id)
        .collect();
    let mut repl: HashMap<Word, Word> = HashMap::default();
    // Selects of two integer constants whose condition `x && y` may read `x` (or `y`).
    let mut conds: HashMap<Word, Word> = HashMap::default();
    // Single uses of a select observed only under its condition, and the new value they read.
    let mut per_use: Vec<((usize, usize, usize), Word)> = Vec::new();
    for b in &q.f.blocks {
        for i in &b.instructions {
            if i.class.opcode != Op::Select {
                continue;
            }
            let (Some(s), Some(c), Some(a), Some(x)) = (
                i.result_id,
                i.operands.first().and_then(id),
                i.operands.get(1).and_then(id),
                i.operands.get(2).and_then(id),
            ) else {
                continue;
            };
            if a == x || decorated.contains(&s) {
                continue;
            }
            if q.quiet(s, c, 64) {
                repl.insert(s, a);
                continue;
            }
            // Some of its uses observe it only where `c` holds (D257): those read `new`.
            let us = q.uses.get(&s).cloned().unwrap_or_default();
            for u in us {
                if q.use_quiet(s, c, u, 64) {
                    per_use.push((u, a));
                }
            }
            if !(consts.contains(&a)
                && consts.contains(&x)
                && i.result_type.is_some_and(|t| ints.contains(&t)))
            {
                continue;
            }
            // Peeled one step after another (D256): a VCC bit written under `on`,
            // `select(on, carry && g, old)`, read where `on` and `g` hold is the carry.
            let mut cur = c;
            for _ in 0..8 {
                let next = if let Some((l, r)) = q.and(cur).filter(|(l, r)| l != r) {
                    if q.quiet(s, r, 64) {
                        Some(l)
                    } else if q.quiet(s, l, 64) {
                        Some(r)
                    } else {
                        None
                    }
                } else if let Some(ci) = q.inst(cur).filter(|ci| ci.class.opcode == Op::Select) {
                    // A guarded bool `select(g, new, old)` (a mask unit's own bit written under the
                    // lane's EXEC bit) read where `g` holds is `new`.
                    let (g, new) = (
                        ci.operands.first().and_then(id),
                        ci.operands.get(1).and_then(id),
                    );
                    match (g, new) {
                        (Some(g), Some(new)) if new != cur && q.quiet(s, g, 64) => Some(new),
                        _ => None,
                    }
                } else {
                    None
                };
                match next {
                    Some(n) => cur = n,
                    None => break,
                }
            }
            if cur != c {
                conds.insert(s, cur);
            }
        }
    }
    if repl.is_empty() && conds.is_empty() && per_use.is_empty() {
        return 0;
    }
    for &((bi, ii, k), a) in &per_use {
        f.blocks[bi].instructions[ii].operands[k] = Operand::IdRef(a);
    }
    for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
        if let Some(&x) = i.result_id.and_then(|s| conds.get(&s)) {
            i.operands[0] = Operand::IdRef(x);
        }
    }
    let resolve = |mut x: Word| {
        while let Some(&y) = repl.get(&x) {
            x = y;
        }
        x
    };
    for b in &mut f.blocks {
        b.instructions.retain(|i| {
            let r = i.result_id.is_some_and(|r| repl.contains_key(&r));
            if r {
                gone.insert(i.result_id.unwrap_or(0));
            }
            !r
        });
        for i in &mut b.instructions {
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    *x = resolve(*x);
                }
            }
        }
    }
    repl.len() + conds.len() + per_use.len()
}

/// The facts and the memo of [`unguard`]'s `Q(v, c)`.
struct Quiet<'a> {
    f: &'a Function,
    /// Immediate dominators ([`dominators`]: the entry and unreachable blocks have none).
    idom: Vec<Option<usize>>,
    at: HashMap<Word, usize>,
    def: HashMap<Word, (usize, usize)>,
    uses: HashMap<Word, Vec<(usize, usize, usize)>>,
    /// The conditions known true on entry to each block.
    known: Vec<Option<Vec<Word>>>,
    pure_fns: &'a HashSet<Word>,
    glsl: Option<Word>,
    /// `None` while being computed.
    memo: HashMap<(Word, Word), Option<bool>>,
}

impl Quiet<'_> {
    fn inst(&self, x: Word) -> Option<&Instruction> {
        self.def
            .get(&x)
            .map(|&(b, i)| &self.f.blocks[b].instructions[i])
    }

    fn and(&self, x: Word) -> Option<(Word, Word)> {
        self.inst(x)
            .filter(|i| i.class.opcode == Op::LogicalAnd)
            .and_then(|i| Some((id(&i.operands[0])?, id(&i.operands[1])?)))
    }

    /// `g ⇒ c` by the structure of `LogicalAnd`s (see [`unguard`]).
    fn implies(&self, g: Word, c: Word, depth: u32) -> bool {
        if g == c {
            return true;
        }
        if depth == 0 {
            return false;
        }
        if let Some((a, b)) = self.and(c) {
            if self.implies(g, a, depth - 1) && self.implies(g, b, depth - 1) {
                return true;
            }
        }
        self.and(g)
            .is_some_and(|(x, y)| self.implies(x, c, depth - 1) || self.implies(y, c, depth - 1))
    }

    fn block_under(&self, bi: usize, c: Word) -> bool {
        self.known[bi]
            .as_ref()
            .is_some_and(|k| k.iter().any(|&g| self.implies(g, c, 6)))
    }

    fn pure(&self, i: &Instruction) -> bool {
        speculable(i, self.glsl)
            || (i.class.opcode == Op::FunctionCall
                && i.operands
                    .first()
                    .and_then(id)
                    .is_some_and(|g| self.pure_fns.contains(&g)))
    }

    /// `Q(v, c)`: every use of `v` observes it only where `c` holds (see [`unguard`]).
    fn quiet(&mut self, v: Word, c: Word, depth: u32) -> bool {
        if let Some(r) = self.memo.get(&(v, c)) {
            return r.unwrap_or(false);
        }
        if depth == 0 {
            return false;
        }
        self.memo.insert((v, c), None);
        let us = self.uses.get(&v).cloned().unwrap_or_default();
        let ok = us.into_iter().all(|u| self.use_quiet(v, c, u, depth));
        self.memo.insert((v, c), Some(ok));
        ok
    }

    /// The use of `v` at (block, instruction, operand) observes it only where `c` holds (one use of
    /// [`Quiet::quiet`]).
    fn use_quiet(
        &mut self,
        v: Word,
        c: Word,
        (bi, ii, k): (usize, usize, usize),
        depth: u32,
    ) -> bool {
        if depth == 0 {
            return false;
        }
        let f = self.f;
        let u = &f.blocks[bi].instructions[ii];
        if u.class.opcode == Op::Phi {
            // The use lies at the end of the predecessor the pair names.
            let from = u.operands.get(k + 1).and_then(id);
            let pb = from.and_then(|l| self.def_block(l));
            if pb.is_some_and(|pb| self.block_under(pb, c)) {
                return true;
            }
            // Or the phi itself is observed only where c holds, c being defined in a block
            // that strictly dominates the phi's (so no path from `v` to a use of the phi
            // defines c anew: it would pass the phi's block again, which redefines the phi).
            let c_dom = self
                .def
                .get(&c)
                .is_none_or(|&(cb, _)| cb != bi && self.dominates(cb, bi));
            if c_dom {
                if let Some(r) = u.result_id {
                    if self.quiet(r, c, depth - 1) {
                        return true;
                    }
                }
            }
            return false;
        }
        if self.block_under(bi, c) {
            return true;
        }
        let op = |j: usize| u.operands.get(j).and_then(id);
        let filter = match u.class.opcode {
            Op::Select => {
                k == 1 && op(2) != Some(v) && op(0).is_some_and(|g| self.implies(g, c, 6))
            }
            Op::LogicalAnd => {
                let other = op(1 - k.min(1));
                other.is_some_and(|g| g != v && self.implies(g, c, 6))
            }
            _ => false,
        };
        if filter {
            return true;
        }
        let Some(r) = u.result_id.filter(|_| self.pure(u)) else {
            return false;
        };
        self.quiet(r, c, depth - 1)
    }

    /// Whether block `a` dominates block `b` (both reachable).
    fn dominates(&self, a: usize, mut b: usize) -> bool {
        if a == 0 {
            return true;
        }
        loop {
            if a == b {
                return true;
            }
            match self.idom[b] {
                Some(p) if p != b => b = p,
                _ => return false,
            }
        }
    }

    /// The block index of a label.
    fn def_block(&self, l: Word) -> Option<usize> {
        self.at.get(&l).copied()
    }
}

/// Rewrite `n` (decision D205): 64-bit integer arithmetic whose high word nobody reads is done in 32
/// bits. The lowering computes a 32-bit add with carry in (`v_add_co_ci_u32`), a multiply-add of words
/// and the low words of address sums as 64-bit operations on zero-extended words, and keeps only the
/// low word (`OpUConvert` to 32 bits). A 64-bit `+ - * & | ^ ~`, negation, `select` (its value operands)
/// or left shift by a constant below 32 is *low-only* when every use of its result is such a
/// truncation or a value operand of another low-only operation (the greatest such set, by removing
/// until nothing changes). Each connected group of low-only operations is computed in 32 bits when that
/// takes fewer words: each operation's type becomes the 32-bit one; its operands that are low-only stay,
/// a constant becomes the 32-bit constant of its low word, a zero or sign extension of a 32-bit value
/// becomes that value, anything else is truncated by a new `OpUConvert` before the operation; each
/// truncation of a group member is replaced by the member.
///
/// Exact by SPIR-V's definitions (wrapping two's-complement arithmetic): the low 32 bits of `a + b`,
/// `a - b`, `a * b`, `a & b`, `a | b`, `a ^ b`, `~a`, `-a` depend only on the low 32 bits of the operands
/// and are the 32-bit operation on them; those of `a << s` for `s < 32` are `lo(a) << s`; those of
/// `select(c, a, b)` are `select(c, lo(a), lo(b))`; the low word of an extension of a 32-bit `x` is `x`.
/// By induction over each group in dominance order, every member computes the low word of its former
/// value, and every reader of a member read only its low word (the truncations) or is a member.
/// Decorated ids are left alone. Returns the operations narrowed.
fn narrow(m: &mut Module, f: &mut Function, bound: &mut Word, gone: &mut HashSet<Word>) -> usize {
    let (Some(u32_), Some(u64_)) = (uint_type(m, 32), uint_type(m, 64)) else {
        return 0;
    };
    let decorated = decorated_ids(m);
    // 64-bit constants by id, 32-bit constants by value.
    let mut c64: HashMap<Word, u64> = HashMap::default();
    let mut c32: HashMap<u32, Word> = HashMap::default();
    for i in &m.types_global_values {
        let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
            continue;
        };
        match (i.class.opcode, i.operands.first()) {
            (Op::Constant, Some(Operand::LiteralBit64(v))) if t == u64_ => {
                c64.insert(r, *v);
            }
            (Op::ConstantNull, _) if t == u64_ => {
                c64.insert(r, 0);
            }
            (Op::Constant, Some(Operand::LiteralBit32(v))) if t == u32_ => {
                c32.entry(*v).or_insert(r);
            }
            _ => {}
        }
    }
    // Definitions (opcode, type, operands, position) and readers (reader, operand position; None for
    // an instruction without a result) of every id of the function.
    struct Def {
        op: Op,
        ty: Option<Word>,
        ops: Vec<Word>,
    }
    let mut def: HashMap<Word, Def> = HashMap::default();
    let mut readers: HashMap<Word, Vec<(Option<Word>, usize)>> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        for (k, o) in i.operands.iter().enumerate() {
            if let Some(x) = id(o) {
                readers.entry(x).or_default().push((i.result_id, k));
            }
        }
        if let Some(r) = i.result_id {
            let all_ids = i.operands.iter().all(|o| id(o).is_some());
            def.insert(
                r,
                Def {
                    op: if all_ids { i.class.opcode } else { Op::Nop },
                    ty: i.result_type,
                    ops: i.operands.iter().filter_map(id).collect(),
                },
            );
        }
    }
    let shift_ok = |d: &Def| c64.get(&d.ops[1]).is_some_and(|&s| s < 32);
    // Value operand positions of a candidate.
    let values = |d: &Def| -> &'static [usize] {
        match d.op {
            Op::Select => &[1, 2],
            Op::ShiftLeftLogical | Op::Not | Op::SNegate => &[0],
            _ => &[0, 1],
        }
    };
    let mut low: HashSet<Word> = def
        .iter()
        .filter(|(r, d)| {
            d.ty == Some(u64_)
                && !decorated.contains(r)
                && match d.op {
                    Op::IAdd
                    | Op::ISub
                    | Op::IMul
                    | Op::BitwiseAnd
                    | Op::BitwiseOr
                    | Op::BitwiseXor
                    | Op::Select => true,
                    Op::Not | Op::SNegate => d.ops.len() == 1,
                    Op::ShiftLeftLogical => shift_ok(d),
                    _ => false,
                }
        })
        .map(|(r, _)| *r)
        .collect();
    let trunc = |u: Word| {
        def.get(&u)
            .is_some_and(|d| d.op == Op::UConvert && d.ty == Some(u32_) && !decorated.contains(&u))
    };
    loop {
        let out: Vec<Word> = low
            .iter()
            .copied()
            .filter(|x| {
                !readers.get(x).into_iter().flatten().all(|&(u, k)| match u {
                    Some(u) if trunc(u) => true,
                    Some(u) if low.contains(&u) => values(&def[&u]).contains(&k),
                    _ => false,
                })
            })
            .collect();
        if out.is_empty() {
            break;
        }
        for x in out {
            low.remove(&x);
        }
    }
    if low.is_empty() {
        return 0;
    }
    // A 32-bit value `x` whose extension `e` is read: `e -> x`.
    let ext_of = |e: Word| {
        def.get(&e).and_then(|d| {
            (matches!(d.op, Op::UConvert | Op::SConvert)
                && d.ty == Some(u64_)
                && def.get(&d.ops[0]).and_then(|s| s.ty) == Some(u32_))
            .then_some(d.ops[0])
        })
    };
    // Groups: connected by operands (union-find over the members).
    let members: Vec<Word> = {
        let mut v: Vec<Word> = low.iter().copied().collect();
        v.sort_unstable();
        v
    };
    let index: HashMap<Word, usize> = members.iter().enumerate().map(|(k, &x)| (x, k)).collect();
    let mut parent: Vec<usize> = (0..members.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for (k, x) in members.iter().enumerate() {
        let d = &def[x];
        for &j in values(d) {
            if let Some(&o) = index.get(&d.ops[j]) {
                let (a, b) = (find(&mut parent, k), find(&mut parent, o));
                parent[a] = b;
            }
        }
    }
    let group: Vec<usize> = (0..members.len()).map(|k| find(&mut parent, k)).collect();
    let in_group = |u: Option<Word>, g: usize| {
        u.and_then(|u| index.get(&u))
            .is_some_and(|&i| group[i] == g)
    };
    // Words saved and added per group: 4 per truncation of a member and per extension read only by
    // the group's members; 4 per new truncation of another operand and per new 32-bit constant.
    let mut saved: HashMap<usize, i64> = HashMap::default();
    let mut exts: HashSet<(usize, Word)> = HashSet::default();
    let mut new_consts: HashSet<u32> = HashSet::default();
    for (k, x) in members.iter().enumerate() {
        let g = group[k];
        let d = &def[x];
        let mut s = 0i64;
        for &(u, _) in readers.get(x).into_iter().flatten() {
            if u.is_some_and(trunc) {
                s += 4;
            }
        }
        for &j in values(d) {
            let o = d.ops[j];
            if low.contains(&o) {
                continue;
            }
            if let Some(&v) = c64.get(&o) {
                if !c32.contains_key(&(v as u32)) && new_consts.insert(v as u32) {
                    s -= 4;
                }
            } else if ext_of(o).is_some() {
                if exts.insert((g, o))
                    && readers
                        .get(&o)
                        .into_iter()
                        .flatten()
                        .all(|&(u, _)| in_group(u, g))
                {
                    s += 4;
                }
            } else {
                s -= 4;
            }
        }
        if d.op == Op::ShiftLeftLogical {
            let v = c64[&d.ops[1]] as u32;
            if !c32.contains_key(&v) && new_consts.insert(v) {
                s -= 4;
            }
        }
        *saved.entry(g).or_default() += s;
    }
    let chosen: HashSet<Word> = members
        .iter()
        .enumerate()
        .filter(|&(k, _)| saved.get(&group[k]).is_some_and(|&s| s > 0))
        .map(|(_, &x)| x)
        .collect();
    if chosen.is_empty() {
        return 0;
    }
    let mut konst = |m: &mut Module, bound: &mut Word, v: u32| {
        *c32.entry(v).or_insert_with(|| {
            let c = *bound;
            *bound += 1;
            m.types_global_values.push(Instruction::new(
                Op::Constant,
                Some(u32_),
                Some(c),
                vec![Operand::LiteralBit32(v)],
            ));
            c
        })
    };
    let mut repl: HashMap<Word, Word> = HashMap::default();
    for blk in &mut f.blocks {
        let mut out = Vec::with_capacity(blk.instructions.len());
        for mut i in std::mem::take(&mut blk.instructions) {
            let Some(r) = i.result_id else {
                out.push(i);
                continue;
            };
            if let Some(&x) = i
                .operands
                .first()
                .and_then(id)
                .as_ref()
                .filter(|x| chosen.contains(x))
            {
                if trunc(r) {
                    repl.insert(r, x);
                    gone.insert(r);
                    continue;
                }
            }
            if !chosen.contains(&r) {
                out.push(i);
                continue;
            }
            let d = &def[&r];
            for &j in values(d) {
                let o = d.ops[j];
                let n = if chosen.contains(&o) {
                    o
                } else if let Some(&v) = c64.get(&o) {
                    konst(m, bound, v as u32)
                } else if let Some(x) = ext_of(o) {
                    x
                } else {
                    let t = *bound;
                    *bound += 1;
                    out.push(Instruction::new(
                        Op::UConvert,
                        Some(u32_),
                        Some(t),
                        vec![Operand::IdRef(o)],
                    ));
                    t
                };
                i.operands[j] = Operand::IdRef(n);
            }
            if d.op == Op::ShiftLeftLogical {
                let s = c64[&d.ops[1]] as u32;
                i.operands[1] = Operand::IdRef(konst(m, bound, s));
            }
            i.result_type = Some(u32_);
            out.push(i);
        }
        blk.instructions = out;
    }
    for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
        for o in &mut i.operands {
            if let Operand::IdRef(x) = o {
                if let Some(y) = repl.get(x) {
                    *x = *y;
                }
            }
        }
    }
    chosen.len()
}

/// Rewrite `r` (decision D221): guarded stores to private scalars left in memory, grouped under one
/// selection. If-conversion ([`flatten`]) makes each guarded register write `store p, select(c, v, load
/// p)`; where [`promote`] then keeps `p` in memory (its phis would cost more words), each such write
/// costs a load and a select (10 words) beyond the store. In a block, the writes under the same
/// condition `c` (the same id, and the same arm kept) whose select nothing else reads move to the last
/// of them and run inside one `if (c) { store p1, v1; ...; store pn, vn }` (13 words: a selection merge,
/// a conditional branch, two labels and a branch) when the loads and selects removed weigh more.
/// Exact: when `c` holds each store writes `v` as before; when it does not, the select stored the value
/// the variable held, so not storing it leaves the same content. A write moves from its place `k` to the
/// group's last place `P` only when no other load or store of its variable lies in `(k, P]` of the
/// original block (so no load reads a different value and stores to one variable keep their order);
/// nothing else can read or write a private scalar. The block is split after `P`: its phis and
/// instructions before stay under its label (a loop's continue target or a construct's merge keeps its
/// label), the rest of it, terminator included, goes to the new merge block, and the phis of its
/// successors name that block as their predecessor. A block with `OpLoopMerge` is left alone (a loop
/// header must branch to its body).
///
/// Two more kinds of member (D225). A write whose select is read again, when nothing in the block
/// reads it before the group's last place: its readers read a load of its variable placed first in the
/// new merge block, which holds the select's value there (the variable's last write before it is the
/// member's, and every later reader is dominated by that block); it weighs 4 words less. And when the
/// block ends in `if (c) T` (the arm entered only from the block, not a loop header), the writes under
/// `c` on that arm whose select only the store reads and whose variable nothing after them in the block
/// touches run as `store p, v` first in `T`, without a selection of their own: the arm runs exactly
/// where `c` holds, before anything else reads or writes `p`. Returns the stores moved.
fn regroup(f: &mut Function, bound: &mut Word) -> usize {
    let scalars = private_scalars(f);
    if scalars.is_empty() {
        return 0;
    }
    let mut uses: HashMap<Word, usize> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        for x in i.operands.iter().filter_map(id) {
            *uses.entry(x).or_default() += 1;
        }
    }
    struct Write {
        at: usize,
        var: Word,
        value: Word,
        words: usize,
        /// The select, its type and the first place in the block that reads it besides the store
        /// (`usize::MAX`: none), when something else reads it.
        reread: Option<(Word, Word, usize)>,
    }
    let mut moved = 0;
    let mut renamed: HashMap<Word, Word> = HashMap::default();
    // A select read again after its group: the load of its variable after the group's selection.
    let mut reloaded: HashMap<Word, Word> = HashMap::default();
    // Stores that run first in the arm of the selection ending their block, by the arm's label.
    let mut prepend: HashMap<Word, Vec<Instruction>> = HashMap::default();
    let labels: HashSet<Word> = f.blocks.iter().map(label).collect();
    let mut npreds: HashMap<Word, usize> = HashMap::default();
    for b in &f.blocks {
        for s in successors(b, &labels) {
            *npreds.entry(s).or_default() += 1;
        }
    }
    let loop_headers: HashSet<Word> = f
        .blocks
        .iter()
        .filter(|b| {
            b.instructions
                .iter()
                .any(|i| i.class.opcode == Op::LoopMerge)
        })
        .map(label)
        .collect();
    // What each variable holds before each store, through blocks (D259), and which ids are loads.
    let held = held_before_stores(f, &scalars);
    let loads: HashSet<Word> = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == Op::Load)
        .filter_map(|i| i.result_id)
        .collect();
    let mut out_blocks: Vec<rspirv::dr::Block> = Vec::with_capacity(f.blocks.len());
    for (bi, blk) in std::mem::take(&mut f.blocks).into_iter().enumerate() {
        if blk
            .instructions
            .iter()
            .any(|i| i.class.opcode == Op::LoopMerge)
        {
            out_blocks.push(blk);
            continue;
        }
        let ins = &blk.instructions;
        let var_of = |i: &Instruction| -> Option<Word> {
            if !matches!(i.class.opcode, Op::Load | Op::Store) {
                return None;
            }
            i.operands
                .first()
                .and_then(id)
                .filter(|v| scalars.contains_key(v))
        };
        // Where each variable is loaded or stored in this block, and each result's place.
        let mut touches: HashMap<Word, Vec<usize>> = HashMap::default();
        let mut at: HashMap<Word, usize> = HashMap::default();
        // The places that read each value, in order.
        let mut read_at: HashMap<Word, Vec<usize>> = HashMap::default();
        for (k, i) in ins.iter().enumerate() {
            if let Some(v) = var_of(i) {
                touches.entry(v).or_default().push(k);
            }
            if let Some(r) = i.result_id {
                at.insert(r, k);
            }
            for x in i.operands.iter().filter_map(id) {
                read_at.entry(x).or_default().push(k);
            }
        }
        // Candidate writes, by (condition, arm stored when the condition holds).
        let mut groups: HashMap<(Word, bool), Vec<Write>> = HashMap::default();
        let mut order: Vec<(Word, bool)> = Vec::new();
        for (k, i) in ins.iter().enumerate() {
            if i.class.opcode != Op::Store || var_of(i).is_none() {
                continue;
            }
            let (Some(p), Some(s)) = (
                i.operands.first().and_then(id),
                i.operands.get(1).and_then(id),
            ) else {
                continue;
            };
            let Some(&ks) = at.get(&s) else { continue };
            let sel = &ins[ks];
            if sel.class.opcode != Op::Select {
                continue;
            }
            let reread = (uses.get(&s) != Some(&1)).then(|| {
                let first = read_at
                    .get(&s)
                    .and_then(|r| r.iter().copied().find(|&j| j != k))
                    .unwrap_or(usize::MAX);
                (s, sel.result_type.unwrap_or(0), first)
            });
            let ops: Vec<Word> = sel.operands.iter().filter_map(id).collect();
            let [c, x, y] = ops[..] else { continue };
            // The arm that is the value the variable holds here (D259: loaded in this block with no
            // store of it since, or known on entry to the block, or its initializer).
            let own = |a: Word| -> bool { held.holds((bi, k), a) };
            let (when, value, load) = if own(y) {
                (true, x, y)
            } else if own(x) {
                (false, y, x)
            } else {
                continue;
            };
            // The select, and the load only it reads, go; a select read again costs a load after the
            // group instead.
            let words = 6 + if loads.contains(&load) && uses.get(&load) == Some(&1) {
                4
            } else {
                0
            } - if reread.is_some() { 4 } else { 0 };
            let key = (c, when);
            if !groups.contains_key(&key) {
                order.push(key);
            }
            groups.entry(key).or_default().push(Write {
                at: k,
                var: p,
                value,
                words,
                reread,
            });
        }
        // Each group's members that may move to its last place, if the group pays for its selection.
        // At a group's last place: its condition, whether it stores where the condition holds, and
        // its (variable, value) stores in order.
        type Group = (Word, bool, Vec<(Word, Word, Option<(Word, Word, usize)>)>);
        let mut sink: HashMap<usize, Group> = HashMap::default();
        let mut skip: HashSet<usize> = HashSet::default();
        // The block ends in `if (c) T` (either arm): the writes under `c` on that arm whose select
        // only the store reads, their variable touched by nothing after them in the block, run
        // first in `T` instead (entered only from here), with no selection of their own.
        let n = ins.len();
        let arm = match (n.checked_sub(2).map(|k| &ins[k]), ins.last()) {
            (Some(sm), Some(br))
                if sm.class.opcode == Op::SelectionMerge
                    && br.class.opcode == Op::BranchConditional =>
            {
                let m = sm.operands.first().and_then(id);
                let o: Vec<Word> = br.operands.iter().filter_map(id).collect();
                match o[..] {
                    [c, t, e] if Some(e) == m && Some(t) != m => Some((c, true, t)),
                    [c, t, e] if Some(t) == m && Some(e) != m => Some((c, false, e)),
                    _ => None,
                }
            }
            _ => None,
        }
        .filter(|&(_, _, t)| npreds.get(&t) == Some(&1) && !loop_headers.contains(&t));
        if let Some((c, when, t)) = arm {
            if let Some(ws) = groups.get_mut(&(c, when)) {
                let (first, rest): (Vec<Write>, Vec<Write>) =
                    std::mem::take(ws).into_iter().partition(|w| {
                        w.reread.is_none() && touches[&w.var].iter().all(|&u| u <= w.at)
                    });
                *ws = rest;
                for w in first {
                    skip.insert(w.at);
                    moved += 1;
                    prepend.entry(t).or_default().push(Instruction::new(
                        Op::Store,
                        None,
                        None,
                        vec![Operand::IdRef(w.var), Operand::IdRef(w.value)],
                    ));
                }
            }
        }
        for key in order {
            let ws = &groups[&key];
            if ws.is_empty() {
                continue;
            }
            let last = ws.last().map_or(0, |w| w.at);
            let members: Vec<&Write> = ws
                .iter()
                .filter(|w| touches[&w.var].iter().all(|&t| t <= w.at || t > last))
                .filter(|w| w.reread.is_none_or(|(_, _, first)| first > last))
                .collect();
            let saved: usize = members.iter().map(|w| w.words).sum();
            if members.len() < 2 || saved <= 13 {
                continue;
            }
            for w in &members {
                skip.insert(w.at);
            }
            moved += members.len();
            sink.insert(
                last,
                (
                    key.0,
                    key.1,
                    members.iter().map(|w| (w.var, w.value, w.reread)).collect(),
                ),
            );
        }
        if sink.is_empty() {
            let mut blk = blk;
            if !skip.is_empty() {
                let mut k = 0;
                blk.instructions.retain(|_| {
                    k += 1;
                    !skip.contains(&(k - 1))
                });
            }
            out_blocks.push(blk);
            continue;
        }
        let first = label(&blk);
        let mut cur = rspirv::dr::Block {
            label: blk.label,
            instructions: Vec::new(),
        };
        for (k, i) in blk.instructions.into_iter().enumerate() {
            if !skip.contains(&k) {
                cur.instructions.push(i);
            }
            let Some((c, when, stores)) = sink.remove(&k) else {
                continue;
            };
            let (t, m) = (*bound, *bound + 1);
            *bound += 2;
            let (yes, no) = if when { (t, m) } else { (m, t) };
            cur.instructions.push(Instruction::new(
                Op::SelectionMerge,
                None,
                None,
                vec![
                    Operand::IdRef(m),
                    Operand::SelectionControl(spirv::SelectionControl::NONE),
                ],
            ));
            cur.instructions.push(Instruction::new(
                Op::BranchConditional,
                None,
                None,
                vec![Operand::IdRef(c), Operand::IdRef(yes), Operand::IdRef(no)],
            ));
            out_blocks.push(std::mem::replace(
                &mut cur,
                rspirv::dr::Block {
                    label: Some(Instruction::new(Op::Label, None, Some(m), vec![])),
                    instructions: Vec::new(),
                },
            ));
            // The variables of the selects read again hold their values right after the selection.
            for &(p, _, r) in &stores {
                if let Some((s, ty, _)) = r {
                    let l = *bound;
                    *bound += 1;
                    cur.instructions.push(Instruction::new(
                        Op::Load,
                        Some(ty),
                        Some(l),
                        vec![Operand::IdRef(p)],
                    ));
                    reloaded.insert(s, l);
                }
            }
            let mut body: Vec<Instruction> = stores
                .into_iter()
                .map(|(p, v, _)| {
                    Instruction::new(
                        Op::Store,
                        None,
                        None,
                        vec![Operand::IdRef(p), Operand::IdRef(v)],
                    )
                })
                .collect();
            body.push(Instruction::new(
                Op::Branch,
                None,
                None,
                vec![Operand::IdRef(m)],
            ));
            out_blocks.push(rspirv::dr::Block {
                label: Some(Instruction::new(Op::Label, None, Some(t), vec![])),
                instructions: body,
            });
        }
        renamed.insert(first, label(&cur));
        out_blocks.push(cur);
    }
    f.blocks = out_blocks;
    for b in &mut f.blocks {
        if let Some(mut st) = prepend.remove(&label(b)) {
            let at = b
                .instructions
                .iter()
                .take_while(|i| i.class.opcode == Op::Phi)
                .count();
            st.extend(b.instructions.drain(at..));
            b.instructions.extend(st);
        }
    }
    if !reloaded.is_empty() {
        for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    if let Some(y) = reloaded.get(x) {
                        *x = *y;
                    }
                }
            }
        }
    }
    if !renamed.is_empty() {
        for i in f
            .blocks
            .iter_mut()
            .flat_map(|b| &mut b.instructions)
            .filter(|i| i.class.opcode == Op::Phi)
        {
            for (k, o) in i.operands.iter_mut().enumerate() {
                if let (1, Operand::IdRef(x)) = (k % 2, &mut *o) {
                    if let Some(y) = renamed.get(x) {
                        *x = *y;
                    }
                }
            }
        }
    }
    moved
}

/// Functions whose body only computes: every instruction effect-free (no load, variable or call) or a
/// return. A call of one reads nothing but its arguments and writes nothing (the outlined float
/// primitives of rewrite `o`, D163).
fn pure_functions(funcs: &[Function], glsl: Option<Word>) -> HashSet<Word> {
    funcs
        .iter()
        .filter(|f| {
            f.blocks.iter().flat_map(|b| &b.instructions).all(|i| {
                matches!(i.class.opcode, Op::Return | Op::ReturnValue)
                    || (effect_free(i, glsl)
                        && !matches!(i.class.opcode, Op::Load | Op::Variable | Op::Phi))
            })
        })
        .filter_map(|f| f.def.as_ref().and_then(|d| d.result_id))
        .collect()
}

/// Rewrite `j` (decision D223): two one-armed selections on the same condition, the second right after
/// the first's merge, become one. The lowering guards each memory access of a lane by its own `if (c)`,
/// so a run of accesses under one EXEC condition is a run of selections, each 13 words of merge,
/// branch, labels (and, for lavapipe, a block more to compile), with the misaligned flag loaded and
/// stored again in each.
///
/// Shape: block `B` ends `OpSelectionMerge M; OpBranchConditional c T M` (or `c M T`); the first arm's
/// blocks lie between `T` and `M` in layout, enter only from `B` and leave only to `M`; `M`'s
/// predecessors are `B` and the arm's last block `E`; `M` ends `OpSelectionMerge M2;
/// OpBranchConditional c T2 M2` (same `c`, same arm) with `T2` right after `M`, entered only from `M`,
/// without phis, and its arm closed the same way up to `M2`. Then `M`'s instructions between its phis
/// and its terminator move to the end of `B` (before its merge), `T2`'s instructions (its arm's first
/// block) are appended to `E` in place of its branch to `M`, `B` now merges at `M2`, and `M`'s phis
/// move to `M2` with `B`'s and the joined arm's values.
///
/// Exact: `c` is one SSA value, so the invocations that ran `T2` are those that ran `T`, and they run
/// the same instructions in the same order except `M`'s, which now run before the first arm instead of
/// after it. They run on both paths either way, and move only when the first arm cannot change what
/// they read or observe what they write: arithmetic and calls of pure functions (never reading a phi
/// of `M`: its value is not known before the arm); loads of private scalars the arm does not store;
/// stores to private scalars the arm neither loads nor stores; other loads when the arm writes no
/// memory but private scalars (no store, atomic, barrier or impure call), other stores when it touches
/// no memory but private scalars. What cannot go before the arm may go to the start of the second arm
/// instead, when only that arm reads it ([`sink_set`], D268). Anything else (barriers, atomics, group
/// operations) keeps the pair apart. In the second arm and on its edge to `M2`, a phi of `M` is the
/// value it took from `E` (only invocations that ran the first arm get there); on `B`'s edge to `M2`,
/// the value from `B`. Repeated while `B`'s new merge is followed by another such selection. Returns the
/// selections joined.
fn join(m: &Module, f: &mut Function, pure: &HashSet<Word>) -> usize {
    let glsl = glsl_import(m);
    let scalars = private_scalars(f);
    let labels: HashSet<Word> = f.blocks.iter().map(label).collect();
    let mut preds: HashMap<Word, Vec<Word>> = HashMap::default();
    for b in &f.blocks {
        for s in successors(b, &labels) {
            preds.entry(s).or_default().push(label(b));
        }
    }
    // Labels a loop names (its merge or continue target) are never removed or renamed.
    let loop_named: HashSet<Word> = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == Op::LoopMerge)
        .flat_map(|i| i.operands.iter().filter_map(id))
        .collect();
    let mut slots: Vec<Option<rspirv::dr::Block>> = std::mem::take(&mut f.blocks)
        .into_iter()
        .map(Some)
        .collect();
    let mut pos: HashMap<Word, usize> = slots
        .iter()
        .enumerate()
        .filter_map(|(k, b)| b.as_ref().map(|b| (label(b), k)))
        .collect();
    // A one-armed selection at the end of `b`: (merge, condition, arm, whether the arm runs when the
    // condition holds).
    let one_armed = |b: &rspirv::dr::Block| -> Option<(Word, Word, Word, bool)> {
        let n = b.instructions.len();
        let (sm, br) = (
            b.instructions.get(n.checked_sub(2)?)?,
            b.instructions.get(n - 1)?,
        );
        if sm.class.opcode != Op::SelectionMerge || br.class.opcode != Op::BranchConditional {
            return None;
        }
        let merge = sm.operands.first().and_then(id)?;
        let ops: Vec<Word> = br.operands.iter().filter_map(id).collect();
        match ops[..] {
            [c, t, e] if e == merge && t != merge => Some((merge, c, t, true)),
            [c, t, e] if t == merge && e != merge => Some((merge, c, e, false)),
            _ => None,
        }
    };
    // The slots of an arm from `first` up to (not including) `merge`, when it is closed: entered only
    // from `entry` (at `first`) or from inside, left only to inside or `merge`; with its last block
    // (the one branching to `merge`). At most 64 blocks are looked at.
    let arm = |slots: &[Option<rspirv::dr::Block>],
               pos: &HashMap<Word, usize>,
               preds: &HashMap<Word, Vec<Word>>,
               first: Word,
               merge: Word,
               entry: Word|
     -> Option<(Vec<usize>, Word)> {
        let (&a, &z) = (pos.get(&first)?, pos.get(&merge)?);
        if a >= z {
            return None;
        }
        let inside: Vec<usize> = (a..z).filter(|&k| slots[k].is_some()).take(65).collect();
        if inside.len() > 64 {
            return None;
        }
        let set: HashSet<Word> = inside
            .iter()
            .filter_map(|&k| slots[k].as_ref().map(label))
            .collect();
        let mut last = None;
        for &k in &inside {
            let b = slots[k].as_ref()?;
            let l = label(b);
            for p in preds.get(&l).map_or(&[][..], |v| v) {
                if !(set.contains(p) || (l == first && *p == entry)) {
                    return None;
                }
            }
            for s in successors(b, &labels) {
                if s == merge {
                    if last.is_some_and(|x| x != l) {
                        return None;
                    }
                    last = Some(l);
                } else if !set.contains(&s) {
                    return None;
                }
            }
        }
        Some((inside, last?))
    };
    // How many operands read each id (D268's test that a value is read only where it moves; kept
    // high, never low, as the joins substitute).
    let mut uses: HashMap<Word, usize> = HashMap::default();
    for i in slots.iter().flatten().flat_map(|b| &b.instructions) {
        for x in i.operands.iter().filter_map(id) {
            *uses.entry(x).or_default() += 1;
        }
    }
    let mut joined = 0;
    for bk in 0..slots.len() {
        while let Some(b) = slots[bk].as_ref() {
            let bl = label(b);
            let Some((mm, c, t, when)) = one_armed(b) else {
                break;
            };
            let Some(&mk) = pos.get(&mm) else { break };
            let Some(mb) = slots[mk].as_ref() else { break };
            let Some((m2, c2, t2, when2)) = one_armed(mb) else {
                break;
            };
            if c2 != c || when2 != when || loop_named.contains(&mm) || loop_named.contains(&t2) {
                break;
            }
            let Some((arm1, e)) = arm(&slots, &pos, &preds, t, mm, bl) else {
                break;
            };
            let mut ps = preds.get(&mm).cloned().unwrap_or_default();
            ps.sort_unstable();
            let mut want = vec![bl, e];
            want.sort_unstable();
            if ps != want || e == bl {
                break;
            }
            if pos.get(&t2) != Some(&(mk + 1)) {
                break;
            }
            let Some((arm2, e2)) = arm(&slots, &pos, &preds, t2, m2, mm) else {
                break;
            };
            let shaped = |k: usize, bad: &[Op]| {
                slots[k]
                    .as_ref()
                    .is_some_and(|x| !x.instructions.iter().any(|i| bad.contains(&i.class.opcode)))
            };
            if !shaped(mk + 1, &[Op::Phi, Op::LoopMerge]) || !shaped(pos[&e], &[Op::LoopMerge]) {
                break;
            }
            // What the first arm does to memory.
            let (mut st, mut ld) = (HashSet::default(), HashSet::default());
            let (mut writes, mut touches) = (false, false);
            for &k in &arm1 {
                for i in slots[k].iter().flat_map(|b| &b.instructions) {
                    let p = i.operands.first().and_then(id);
                    match i.class.opcode {
                        Op::Store if p.is_some_and(|p| scalars.contains_key(&p)) => {
                            st.insert(p.unwrap_or(0));
                        }
                        Op::Load if p.is_some_and(|p| scalars.contains_key(&p)) => {
                            ld.insert(p.unwrap_or(0));
                        }
                        Op::Load if plain_load(i) => touches = true,
                        Op::FunctionCall
                            if i.operands
                                .first()
                                .and_then(id)
                                .is_some_and(|g| pure.contains(&g)) => {}
                        Op::SelectionMerge
                        | Op::LoopMerge
                        | Op::Branch
                        | Op::BranchConditional
                        | Op::Switch => {}
                        Op::Variable => {}
                        _ if effect_free(i, glsl) => {}
                        // Subgroup operations read and write no memory.
                        _ if i.class.opname.starts_with("GroupNonUniform") => {}
                        _ => {
                            writes = true;
                            touches = true;
                        }
                    }
                }
            }
            // M's instructions between its phis and its terminator, when all may move.
            let Some(mb) = slots[mk].as_ref() else { break };
            let n = mb.instructions.len();
            let phis: Vec<&Instruction> = mb
                .instructions
                .iter()
                .take_while(|i| i.class.opcode == Op::Phi)
                .collect();
            let phi_ids: HashSet<Word> = phis.iter().filter_map(|i| i.result_id).collect();
            // (phi, value from E, value from B)
            let mut phi_vals: Vec<(Word, Word, Word)> = Vec::new();
            let mut ok = true;
            for p in &phis {
                let o: Vec<Word> = p.operands.iter().filter_map(id).collect();
                let (mut ve, mut vb) = (None, None);
                for pair in o.chunks(2) {
                    match pair {
                        [v, l] if *l == e => ve = Some(*v),
                        [v, l] if *l == bl => vb = Some(*v),
                        _ => ok = false,
                    }
                }
                match (p.result_id, ve, vb) {
                    (Some(r), Some(x), Some(y)) if o.len() == 4 => phi_vals.push((r, x, y)),
                    _ => ok = false,
                }
            }
            let nphis = phis.len();
            let body = &mb.instructions[nphis..n - 2];
            // Whether each of M's instructions may move before the first arm, and whether after it.
            let mut moves: Vec<(bool, bool)> = Vec::with_capacity(body.len());
            for i in body {
                let reads_phi = i
                    .operands
                    .iter()
                    .filter_map(id)
                    .any(|x| phi_ids.contains(&x));
                let p = i.operands.first().and_then(id);
                let private = p.is_some_and(|p| scalars.contains_key(&p));
                let before = !reads_phi
                    && match i.class.opcode {
                        Op::Load if private => !st.contains(&p.unwrap_or(0)),
                        Op::Store if private => {
                            let p = p.unwrap_or(0);
                            !st.contains(&p) && !ld.contains(&p)
                        }
                        Op::Load => plain_load(i) && !writes,
                        Op::Store => !touches,
                        Op::FunctionCall => p.is_some_and(|g| pure.contains(&g)),
                        Op::Phi | Op::Variable => false,
                        _ => effect_free(i, glsl),
                    };
                // D268: what cannot go before may go after the first arm, into the second, when it
                // only computes or loads.
                let after = match i.class.opcode {
                    Op::FunctionCall => p.is_some_and(|g| pure.contains(&g)),
                    Op::Phi | Op::Variable | Op::Store => false,
                    _ => effect_free(i, glsl),
                };
                moves.push((before, after));
            }
            if !ok {
                break;
            }
            let sunk = if moves.iter().all(|m| m.0) {
                HashSet::default()
            } else {
                match sink_set(body, &moves, &slots, &arm2, &uses) {
                    Some(s) => s,
                    None => break,
                }
            };
            // Join.
            let (Some(mut mblk), Some(mut t2blk)) = (slots[mk].take(), slots[mk + 1].take()) else {
                break;
            };
            let tail = mblk.instructions.split_off(nphis);
            let moved_phis = std::mem::take(&mut mblk.instructions);
            let (sunk_insts, body): (Vec<Instruction>, Vec<Instruction>) = tail[..tail.len() - 2]
                .iter()
                .cloned()
                .partition(|i| i.result_id.is_some_and(|r| sunk.contains(&r)));
            let on_e: HashMap<Word, Word> = phi_vals.iter().map(|&(r, x, _)| (r, x)).collect();
            let on_b: HashMap<Word, Word> = phi_vals.iter().map(|&(r, _, y)| (r, y)).collect();
            // Substitutes `map` in `i`'s operands (counting the new reads: a count may only be high).
            let sub = |i: &mut Instruction,
                       map: &HashMap<Word, Word>,
                       uses: &mut HashMap<Word, usize>| {
                for o in &mut i.operands {
                    if let Operand::IdRef(x) = o {
                        if let Some(y) = map.get(x) {
                            *x = *y;
                            *uses.entry(*y).or_default() += 1;
                        }
                    }
                }
            };
            // B: M's body before its merge; it now merges at M2.
            if let Some(b) = slots[bk].as_mut() {
                let n = b.instructions.len();
                let term = b.instructions.split_off(n - 2);
                b.instructions.extend(body);
                b.instructions.extend(term);
                for i in b.instructions.iter_mut().rev().take(2) {
                    for o in &mut i.operands {
                        if *o == Operand::IdRef(mm) {
                            *o = Operand::IdRef(m2);
                        }
                    }
                }
            }
            // The instructions that could not go before the first arm start the second (D268).
            let mut t2_insts = sunk_insts;
            t2_insts.append(&mut t2blk.instructions);
            t2blk.instructions = t2_insts;
            // The second arm reads M's phis as their values from E.
            for i in t2blk.instructions.iter_mut() {
                sub(i, &on_e, &mut uses);
            }
            for &k in &arm2 {
                if let Some(b) = slots[k].as_mut() {
                    for i in b.instructions.iter_mut() {
                        sub(i, &on_e, &mut uses);
                    }
                }
            }
            // E: the second arm's first block in place of its branch to M.
            let t2_label = label(&t2blk);
            let e_slot = pos[&e];
            if let Some(eb) = slots[e_slot].as_mut() {
                eb.instructions.pop();
                eb.instructions.append(&mut t2blk.instructions);
            }
            let arm_end = if e2 == t2_label { e } else { e2 };
            // T2's successors now come from E.
            let t2_succ: Vec<Word> = slots[e_slot]
                .as_ref()
                .map(|b| successors(b, &labels))
                .unwrap_or_default();
            for s in t2_succ {
                if let Some(ps) = preds.get_mut(&s) {
                    for p in ps.iter_mut() {
                        if *p == t2_label {
                            *p = e;
                        }
                    }
                }
                if let Some(sk) = pos.get(&s).copied() {
                    if let Some(sb) = slots[sk].as_mut() {
                        for i in sb
                            .instructions
                            .iter_mut()
                            .take_while(|i| i.class.opcode == Op::Phi)
                        {
                            for o in i.operands.iter_mut().skip(1).step_by(2) {
                                if *o == Operand::IdRef(t2_label) {
                                    *o = Operand::IdRef(e);
                                }
                            }
                        }
                    }
                }
            }
            // M2: its edge from M is now B's; M's phis join it.
            if let Some(&k2) = pos.get(&m2) {
                if let Some(b2) = slots[k2].as_mut() {
                    for i in b2
                        .instructions
                        .iter_mut()
                        .take_while(|i| i.class.opcode == Op::Phi)
                    {
                        let mut ops = std::mem::take(&mut i.operands);
                        for pair in ops.chunks_mut(2) {
                            if let [Operand::IdRef(v), Operand::IdRef(l)] = pair {
                                if *l == mm {
                                    *l = bl;
                                    if let Some(y) = on_b.get(v) {
                                        *v = *y;
                                        *uses.entry(*y).or_default() += 1;
                                    }
                                } else if *l == arm_end {
                                    if let Some(y) = on_e.get(v) {
                                        *v = *y;
                                        *uses.entry(*y).or_default() += 1;
                                    }
                                }
                            }
                        }
                        i.operands = ops;
                    }
                    let mut moved: Vec<Instruction> = moved_phis
                        .into_iter()
                        .map(|mut p| {
                            let r = p.result_id.unwrap_or(0);
                            p.operands = vec![
                                Operand::IdRef(on_e[&r]),
                                Operand::IdRef(arm_end),
                                Operand::IdRef(on_b[&r]),
                                Operand::IdRef(bl),
                            ];
                            p
                        })
                        .collect();
                    moved.append(&mut b2.instructions);
                    b2.instructions = moved;
                }
            }
            if let Some(ps) = preds.get_mut(&m2) {
                for p in ps.iter_mut() {
                    if *p == mm {
                        *p = bl;
                    }
                }
            }
            pos.remove(&mm);
            pos.remove(&t2_label);
            joined += 1;
        }
    }
    f.blocks = slots.into_iter().flatten().collect();
    joined
}

/// Rewrite `j`, second part (decision D269): a one-armed selection `if (c) T` (or `if (!c) T`) in a block
/// `X` that only runs where an earlier branch on the same `c` took the side that runs `T` is a plain
/// branch to `T`. The lowering leaves such repeated tests where a loop's header tests its first block's
/// label (or votes on it) and the loop's first item tests the same value again (D264).
///
/// `c` is known at `X` when, walking up `X`'s dominator tree (at most 256 steps), an ancestor `A` ends in
/// `OpBranchConditional c t e` (`t != e`) and the step below `A` on the walk is `t` or `e` with `A` its
/// only predecessor: every path to `X` then went through that edge, and `c`, one SSA value, holds the
/// same there. Only a selection whose known side is its arm and whose other side is its merge `M` is
/// rewritten, and only when `M` has exactly one other predecessor (the arm's end still reaches it, so
/// no block becomes unreachable and no break targets a block that is no longer a merge). `M`'s phis
/// lose their value from `X` ([`trivial_phis`] removes the ones left with one). Returns the selections
/// removed.
fn known_branches(f: &mut Function) -> usize {
    let preds = label_preds(f);
    let idom = dominators(f);
    let branch = |b: &rspirv::dr::Block| -> Option<(Word, Word, Word)> {
        let i = b.instructions.last()?;
        if i.class.opcode != Op::BranchConditional {
            return None;
        }
        let ops: Vec<Word> = i.operands.iter().take(3).filter_map(id).collect();
        match ops[..] {
            [c, t, e] if t != e => Some((c, t, e)),
            _ => None,
        }
    };
    let only_from = |l: Word, a: Word| preds.get(&l).is_some_and(|p| p[..] == [a]);
    let mut found: Vec<(usize, Word, Word)> = Vec::new();
    for (x, b) in f.blocks.iter().enumerate() {
        let n = b.instructions.len();
        let Some(sm) = n.checked_sub(2).and_then(|k| b.instructions.get(k)) else {
            continue;
        };
        if sm.class.opcode != Op::SelectionMerge {
            continue;
        }
        let (Some(merge), Some((c, t, e))) = (sm.operands.first().and_then(id), branch(b)) else {
            continue;
        };
        let (mut below, mut at) = (x, idom[x]);
        let mut known = None;
        for _ in 0..256 {
            let Some(a) = at.filter(|&a| a != below) else {
                break;
            };
            let ab = &f.blocks[a];
            if let Some((_, t2, e2)) = branch(ab).filter(|k| k.0 == c) {
                let l = label(&f.blocks[below]);
                if l == t2 && only_from(t2, label(ab)) {
                    known = Some(true);
                } else if l == e2 && only_from(e2, label(ab)) {
                    known = Some(false);
                }
                if known.is_some() {
                    break;
                }
            }
            (below, at) = (a, idom[a]);
        }
        let Some(v) = known else { continue };
        let (arm, other) = if v { (t, e) } else { (e, t) };
        let merge_preds = preds.get(&merge).map_or(0, Vec::len);
        if other == merge && arm != merge && merge_preds == 2 {
            found.push((x, arm, merge));
        }
    }
    for &(x, arm, merge) in &found {
        let xl = label(&f.blocks[x]);
        let b = &mut f.blocks[x];
        let n = b.instructions.len();
        b.instructions.truncate(n - 2);
        b.instructions.push(Instruction::new(
            Op::Branch,
            None,
            None,
            vec![Operand::IdRef(arm)],
        ));
        if let Some(mb) = f.blocks.iter_mut().find(|b| label(b) == merge) {
            for i in mb
                .instructions
                .iter_mut()
                .take_while(|i| i.class.opcode == Op::Phi)
            {
                let ops = std::mem::take(&mut i.operands);
                i.operands = ops
                    .chunks(2)
                    .filter(|p| p.get(1) != Some(&Operand::IdRef(xl)))
                    .flatten()
                    .cloned()
                    .collect();
            }
        }
    }
    found.len()
}

/// Part of rewrite `j` (decision D268): which of M's instructions `body` move after the first arm, to
/// the start of the second, rather than before the first (`moves`: whether each may go before, whether
/// after). Those that may not go before, and every one reading a value of theirs, move; each of them
/// must be allowed after, be read only in the second arm's blocks (`arm2`) or by another that moves
/// (all of its reads, `uses` counting them in the function), and none may be a load when a store goes
/// before the first arm (the load would then read after the store, not before). `None` when that fails.
fn sink_set(
    body: &[Instruction],
    moves: &[(bool, bool)],
    slots: &[Option<rspirv::dr::Block>],
    arm2: &[usize],
    uses: &HashMap<Word, usize>,
) -> Option<HashSet<Word>> {
    let mut sunk: HashSet<Word> = HashSet::default();
    let mut member = vec![false; body.len()];
    for (k, i) in body.iter().enumerate() {
        let reads = i.operands.iter().filter_map(id).any(|x| sunk.contains(&x));
        if !moves[k].0 || reads {
            if !moves[k].1 {
                return None;
            }
            member[k] = true;
            sunk.insert(i.result_id?);
        }
    }
    let moved = |want: bool| body.iter().zip(&member).filter(move |(_, &m)| m == want);
    if moved(true).any(|(i, _)| i.class.opcode == Op::Load)
        && moved(false).any(|(i, _)| i.class.opcode == Op::Store)
    {
        return None;
    }
    let mut local: HashMap<Word, usize> = HashMap::default();
    let arm = arm2.iter().filter_map(|&k| slots[k].as_ref());
    for i in arm
        .flat_map(|b| &b.instructions)
        .chain(moved(true).map(|(i, _)| i))
    {
        for x in i
            .operands
            .iter()
            .filter_map(id)
            .filter(|x| sunk.contains(x))
        {
            *local.entry(x).or_default() += 1;
        }
    }
    sunk.iter()
        .all(|r| local.get(r).copied().unwrap_or(0) >= uses.get(r).copied().unwrap_or(0))
        .then_some(sunk)
}

/// Part of rewrite `n` (decision D205): a store to a private scalar of the value the variable is known
/// to hold at that point changes nothing and is deleted. Such stores are left where `k` and `a` folded a
/// misaligned flag's `flag || false` back to the flag just loaded. The value held is
/// [`held_before_stores`]'s (D261; D205 looked only inside the block): the variable's initializer
/// at the entry (the lowering clears flags it declared false), a value every predecessor left in it.
/// Deleting such a store changes what no variable holds anywhere, so every one found goes. Returns the
/// stores deleted.
fn same_stores(f: &mut Function) -> usize {
    let scalars = private_scalars(f);
    if scalars.is_empty() {
        return 0;
    }
    let held = held_before_stores(f, &scalars);
    let mut done = 0;
    for (bi, blk) in f.blocks.iter_mut().enumerate() {
        let mut ii = 0;
        blk.instructions.retain(|i| {
            let at = (bi, ii);
            ii += 1;
            let same = i.class.opcode == Op::Store
                && i.operands
                    .first()
                    .and_then(id)
                    .is_some_and(|v| scalars.contains_key(&v))
                && i.operands
                    .get(1)
                    .and_then(id)
                    .is_some_and(|x| held.holds(at, x));
            done += usize::from(same);
            !same
        });
    }
    done
}

/// Each id's number of uses in `f`, and each result's opcode, type and id operands.
#[allow(clippy::type_complexity)]
fn uses_and_defs(
    f: &Function,
) -> (
    HashMap<Word, usize>,
    HashMap<Word, (Op, Option<Word>, Vec<Word>)>,
) {
    let mut uses: HashMap<Word, usize> = HashMap::default();
    let mut def: HashMap<Word, (Op, Option<Word>, Vec<Word>)> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        for x in i.operands.iter().filter_map(id) {
            *uses.entry(x).or_default() += 1;
        }
        if let Some(r) = i.result_id {
            def.insert(
                r,
                (
                    i.class.opcode,
                    i.result_type,
                    i.operands.iter().filter_map(id).collect(),
                ),
            );
        }
    }
    (uses, def)
}

/// Part of rewrite `w` (decision D242), after [`wide_words`]: a scalar load's dword address `(x + c) & !3`
/// (u64) with `c` a multiple of 4 and the add read by nothing else is `(x & !3) + c`, so that the loads
/// of one base share its masked address (the final CSE merges the ANDs): one add per load instead of
/// an add and an AND. Exact modulo 2^64: with x = 4q + r (r < 4) and c = 4k, `x + c = 4(q + k) + r`, whose
/// masked value `4(q + k)` is `(x & !3) + c`. The new AND sits where the old one was (x dominates it).
/// Returns the addresses rewritten.
fn masked_offsets(m: &mut Module, f: &mut Function, bound: &mut Word) -> usize {
    const DWORD: u64 = !3;
    let consts = constants(m);
    let Some(u64_) = uint_type(m, 64) else {
        return 0;
    };
    let Some(mask) = find_decl(m, Op::Constant, Some(u64_), &[Operand::LiteralBit64(DWORD)]) else {
        return 0;
    };
    let (uses, defs) = uses_and_defs(f);
    let mut done = 0;
    for blk in &mut f.blocks {
        let mut out: Vec<Instruction> = Vec::with_capacity(blk.instructions.len());
        for i in std::mem::take(&mut blk.instructions) {
            let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
            let hit = match (i.class.opcode, i.result_type, i.result_id, &ops[..]) {
                (Op::BitwiseAnd, Some(t), Some(r), &[a, k]) if t == u64_ && k == mask => {
                    match defs.get(&a) {
                        Some((Op::IAdd, Some(at), o))
                            if *at == u64_ && o.len() == 2 && uses.get(&a) == Some(&1) =>
                        {
                            let xc = match (consts.get(&o[0]), consts.get(&o[1])) {
                                (None, Some(&v)) => Some((o[0], o[1], v)),
                                (Some(&v), None) => Some((o[1], o[0], v)),
                                _ => None,
                            };
                            xc.filter(|&(_, _, v)| v % 4 == 0)
                                .map(|(x, c, _)| (r, x, c))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            let Some((r, x, c)) = hit else {
                out.push(i);
                continue;
            };
            let t = *bound;
            *bound += 1;
            out.push(Instruction::new(
                Op::BitwiseAnd,
                Some(u64_),
                Some(t),
                vec![Operand::IdRef(x), Operand::IdRef(mask)],
            ));
            out.push(Instruction::new(
                Op::IAdd,
                Some(u64_),
                Some(r),
                vec![Operand::IdRef(t), Operand::IdRef(c)],
            ));
            done += 1;
        }
        blk.instructions = out;
    }
    done
}

/// The module's declaration `op` with operands `ops` (and result type `ty` where given), if it has one.
pub(super) fn find_decl(m: &Module, op: Op, ty: Option<Word>, ops: &[Operand]) -> Option<Word> {
    m.types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == op && (ty.is_none() || i.result_type == ty) && i.operands == ops
        })
        .and_then(|i| i.result_id)
}

/// The module's u32 constant `v` (type `u32_`), declared at the end of the globals if it has none.
pub(super) fn const_u32(m: &mut Module, bound: &mut Word, u32_: Word, v: u32) -> Word {
    const_lit(m, bound, u32_, Operand::LiteralBit32(v))
}

/// The module's constant of type `ty` and literal `lit` (a 32- or 64-bit integer), declared at the end of
/// the globals if it has none.
fn const_lit(m: &mut Module, bound: &mut Word, ty: Word, lit: Operand) -> Word {
    if let Some(c) = find_decl(m, Op::Constant, Some(ty), std::slice::from_ref(&lit)) {
        return c;
    }
    let c = *bound;
    *bound += 1;
    m.types_global_values
        .push(Instruction::new(Op::Constant, Some(ty), Some(c), vec![lit]));
    c
}

/// Part of rewrite `b` (decision D232): a test `((zext64(e) >> (zext64(i) & 63)) & 1) != 0` (or `== 0`)
/// of a u32 word `e` at a u32 index `i` provably below 32 (`i = y & k` with a constant `k` ≤ 31, or a
/// constant below 32), whose shift and AND nobody else reads, is the 32-bit `((e >> i) & 1) != 0`
/// (`== 0`). The lane mapping tests ds_bpermute's source lane's EXEC bit this way in wave32 (the mask
/// unit read as 64 bits): 24 words become 15. Exact: for `i` < 32, `zext64(i) & 63` is `i`, bit `i` of
/// `zext64(e)` is bit `i` of `e`, and the 32-bit shift by `i` is defined. Returns the tests rewritten.
fn narrow_bit_of_zext(m: &mut Module, f: &mut Function, bound: &mut Word) -> usize {
    let (Some(u32_), Some(u64_)) = (uint_type(m, 32), uint_type(m, 64)) else {
        return 0;
    };
    let consts = constants(m);
    let const_ty: HashMap<Word, Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect();
    let (uses, def) = uses_and_defs(f);
    let is = |x: Word, v: u64| consts.get(&x) == Some(&v);
    let ty = |x: Word| def.get(&x).and_then(|d| d.1).or(const_ty.get(&x).copied());
    // The other operand of a two-operand definition `op` of `x` whose one operand is the constant `v`.
    let with_const = |x: Word, op: Op, v: u64| -> Option<Word> {
        match def.get(&x) {
            Some((o, _, a)) if *o == op && a.len() == 2 => {
                if is(a[1], v) {
                    Some(a[0])
                } else if is(a[0], v) {
                    Some(a[1])
                } else {
                    None
                }
            }
            _ => None,
        }
    };
    let zext = |x: Word| match def.get(&x) {
        Some((Op::UConvert, Some(t), a))
            if *t == u64_ && a.len() == 1 && ty(a[0]) == Some(u32_) =>
        {
            Some(a[0])
        }
        _ => None,
    };
    let below_32 = |i: Word| match consts.get(&i) {
        Some(&v) => v < 32,
        None => match def.get(&i) {
            Some((Op::BitwiseAnd, Some(t), a)) if *t == u32_ && a.len() == 2 => {
                a.iter().any(|x| consts.get(x).is_some_and(|&k| k <= 31))
            }
            _ => false,
        },
    };
    // Test -> (e, i).
    let mut hits: HashMap<Word, (Word, Word)> = HashMap::default();
    for (&r, (op, _, o)) in &def {
        if !matches!(op, Op::INotEqual | Op::IEqual) || o.len() != 2 {
            continue;
        }
        let b = if is(o[1], 0) && ty(o[0]) == Some(u64_) {
            o[0]
        } else if is(o[0], 0) && ty(o[1]) == Some(u64_) {
            o[1]
        } else {
            continue;
        };
        let Some(sh) = with_const(b, Op::BitwiseAnd, 1) else {
            continue;
        };
        let Some((Op::ShiftRightLogical, Some(t), a)) = def.get(&sh) else {
            continue;
        };
        if *t != u64_ || a.len() != 2 || uses.get(&b) != Some(&1) || uses.get(&sh) != Some(&1) {
            continue;
        }
        let Some(e) = zext(a[0]) else { continue };
        let amount = with_const(a[1], Op::BitwiseAnd, 63).unwrap_or(a[1]);
        let Some(i) = zext(amount) else { continue };
        if below_32(i) {
            hits.insert(r, (e, i));
        }
    }
    if hits.is_empty() {
        return 0;
    }
    let (zero, one) = (const_u32(m, bound, u32_, 0), const_u32(m, bound, u32_, 1));
    let mut done = 0;
    for blk in &mut f.blocks {
        let mut out = Vec::with_capacity(blk.instructions.len());
        for i in std::mem::take(&mut blk.instructions) {
            let Some(&(e, l)) = i.result_id.and_then(|r| hits.get(&r)) else {
                out.push(i);
                continue;
            };
            let (s, a) = (*bound, *bound + 1);
            *bound += 2;
            out.push(Instruction::new(
                Op::ShiftRightLogical,
                Some(u32_),
                Some(s),
                vec![Operand::IdRef(e), Operand::IdRef(l)],
            ));
            out.push(Instruction::new(
                Op::BitwiseAnd,
                Some(u32_),
                Some(a),
                vec![Operand::IdRef(s), Operand::IdRef(one)],
            ));
            out.push(Instruction::new(
                i.class.opcode,
                i.result_type,
                i.result_id,
                vec![Operand::IdRef(a), Operand::IdRef(zero)],
            ));
            done += 1;
        }
        blk.instructions = out;
    }
    done
}

/// Part of rewrite `n` (decision D205): a bit test `((x >> l) & 1) == 1` whose shift and AND nobody
/// else reads becomes `(x & b) != 0` with `b = 1 << l` computed once per `l` (after `l`'s definition).
/// The lane mapping tests its lane's EXEC or VCC bit this way at every guarded instruction, `l` being
/// the lane's index: 15 words become 10, plus 5 once. Exact by SPIR-V's definitions for `l` below the
/// width (bit `l` of `x` set either way); for a larger `l` both forms are undefined values. Returns the
/// tests rewritten.
fn bit_tests(m: &mut Module, f: &mut Function, bound: &mut Word) -> usize {
    let consts = constants(m);
    let (uses, def) = uses_and_defs(f);
    let one = |x: Word| consts.get(&x) == Some(&1);
    // Test -> (x, l, the constant 1 of x's type, x's type).
    let mut hits: HashMap<Word, (Word, Word, Word, Word)> = HashMap::default();
    for (&r, (op, _, o)) in &def {
        if *op != Op::IEqual || o.len() != 2 || !one(o[1]) {
            continue;
        }
        let Some((Op::BitwiseAnd, Some(t), a)) = def.get(&o[0]) else {
            continue;
        };
        if a.len() != 2 || !one(a[1]) || uses.get(&o[0]) != Some(&1) {
            continue;
        }
        let Some((Op::ShiftRightLogical, Some(_), s)) = def.get(&a[0]) else {
            continue;
        };
        if s.len() != 2 || consts.contains_key(&s[1]) || uses.get(&a[0]) != Some(&1) {
            continue;
        }
        hits.insert(r, (s[0], s[1], a[1], *t));
    }
    // Pays only where an amount is shared: 5 words saved per test, 5 spent per (amount, type).
    let mut per: HashMap<(Word, Word), usize> = HashMap::default();
    for &(_, l, _, t) in hits.values() {
        *per.entry((l, t)).or_default() += 1;
    }
    hits.retain(|_, &mut (_, l, _, t)| per[&(l, t)] >= 2);
    if hits.is_empty() {
        return 0;
    }
    // Zero of each type, by value.
    let mut zero: HashMap<Word, Word> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter(|i| {
            matches!(
                i.operands.first(),
                Some(Operand::LiteralBit32(0) | Operand::LiteralBit64(0))
            )
        })
        .filter_map(|i| Some((i.result_type?, i.result_id?)))
        .collect();
    let wide: HashSet<Word> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypeInt && i.operands.first() == Some(&Operand::LiteralBit32(64))
        })
        .filter_map(|i| i.result_id)
        .collect();
    // The bit of each (amount, type), defined after the amount (after the phis of its block, or at
    // the entry's start after its variables when the amount is not defined in the function).
    let mut bit: HashMap<(Word, Word), Word> = HashMap::default();
    let mut after: HashMap<Word, Vec<Instruction>> = HashMap::default();
    let mut at_entry: Vec<Instruction> = Vec::new();
    let mut keys: Vec<(Word, Word)> = per
        .iter()
        .filter(|(_, &n)| n >= 2)
        .map(|(k, _)| *k)
        .collect();
    keys.sort_unstable();
    let one_of: HashMap<Word, Word> = hits.values().map(|&(_, _, c, t)| (t, c)).collect();
    for (l, t) in keys {
        let b = *bound;
        *bound += 1;
        let i = Instruction::new(
            Op::ShiftLeftLogical,
            Some(t),
            Some(b),
            vec![Operand::IdRef(one_of[&t]), Operand::IdRef(l)],
        );
        match def.get(&l) {
            Some(_) => after.entry(l).or_default().push(i),
            None => at_entry.push(i),
        }
        bit.insert((l, t), b);
    }
    for &t in one_of.keys() {
        zero.entry(t).or_insert_with(|| {
            let c = *bound;
            *bound += 1;
            let v = if wide.contains(&t) {
                Operand::LiteralBit64(0)
            } else {
                Operand::LiteralBit32(0)
            };
            m.types_global_values
                .push(Instruction::new(Op::Constant, Some(t), Some(c), vec![v]));
            c
        });
    }
    let mut done = 0;
    for (bi, blk) in f.blocks.iter_mut().enumerate() {
        let mut out = Vec::with_capacity(blk.instructions.len() + 2);
        let mut pending: Vec<Instruction> = Vec::new();
        for mut i in std::mem::take(&mut blk.instructions) {
            let op = i.class.opcode;
            let r = i.result_id;
            if let Some(&(x, l, _, t)) = r.and_then(|r| hits.get(&r)) {
                // `(x & b) != 0`: the AND reuses the test's operand slot order.
                let a = *bound;
                *bound += 1;
                out.push(Instruction::new(
                    Op::BitwiseAnd,
                    Some(t),
                    Some(a),
                    vec![Operand::IdRef(x), Operand::IdRef(bit[&(l, t)])],
                ));
                i = Instruction::new(
                    Op::INotEqual,
                    i.result_type,
                    r,
                    vec![Operand::IdRef(a), Operand::IdRef(zero[&t])],
                );
                done += 1;
            }
            let is_phi_or_var = op == Op::Phi || (bi == 0 && op == Op::Variable);
            if !pending.is_empty() && !is_phi_or_var {
                out.append(&mut pending);
            }
            if bi == 0 && !at_entry.is_empty() && !is_phi_or_var {
                out.append(&mut at_entry);
            }
            out.push(i);
            if let Some(v) = r.and_then(|r| after.remove(&r)) {
                if op == Op::Phi || (bi == 0 && op == Op::Variable) {
                    pending.extend(v);
                } else {
                    out.extend(v);
                }
            }
        }
        blk.instructions = out;
    }
    done
}

/// The vector type of `n` components of type `comp` (the words' `uvecN`, or D251's `v2u64`), made right
/// after the component type where the module has none (before anything that could use it).
fn uvec_type(m: &mut Module, bound: &mut Word, comp: Word, n: u32) -> Word {
    let ops = vec![Operand::IdRef(comp), Operand::LiteralBit32(n)];
    type_decl(m, bound, Op::TypeVector, ops, comp)
}

/// The type `op` with operands `ops`: the module's own declaration, else a new one placed right after
/// the declaration of `after` (a type it names, which must come first).
pub(super) fn type_decl(
    m: &mut Module,
    bound: &mut Word,
    op: Op,
    ops: Vec<Operand>,
    after: Word,
) -> Word {
    if let Some(t) = find_decl(m, op, None, &ops) {
        return t;
    }
    let t = *bound;
    *bound += 1;
    let at = m
        .types_global_values
        .iter()
        .position(|i| i.result_id == Some(after))
        .map_or(0, |k| k + 1);
    m.types_global_values
        .insert(at, Instruction::new(op, None, Some(t), ops));
    t
}

/// Part of rewrite `p` (decision D233), on the whole module after the per-function rewrites: a u64
/// parameter of a called function (the outlined float primitives, D163, take f64 bits as u64) that its
/// callers mostly pass as `OpBitcast` of a two-word vector (D205's pairs) becomes a `uvec2` parameter,
/// bitcast to u64 once at the callee's entry (the old parameter id, so its uses stay); the callers pass
/// the vector itself (a caller that passes another u64 bitcasts it to the vector). A u64 result the
/// callers only split into words (`trunc32(r)`, `trunc32(r >> 32)`) or bitcast to the vector (D283: a
/// result stored to a register pair, D275) becomes a `uvec2` result (`OpReturnValue` of the value
/// bitcast), its words read as the vector's components and its bitcasts as the call itself. Only where the
/// words saved exceed those added (4 per parameter or return once, 4 per caller needing a bitcast).
/// Exact: `OpBitcast` between u64 and a vector of two u32 is a bijection (component 0 the low-order
/// bits, SPIR-V's `OpBitcast`), applied once in each direction around the call. Returns the parameters
/// and results rewritten.
fn pair_signatures(m: &mut Module, bound: &mut Word) -> usize {
    let (Some(u32_), Some(u64_)) = (uint_type(m, 32), uint_type(m, 64)) else {
        return 0;
    };
    let consts = constants(m);
    // Every definition in the module's functions (id -> (opcode, type, id operands)), the places that
    // read each id and the calls of each function ((function, block, instruction) indices, valid until
    // the module changes: taken again for each function rewritten).
    type Places = HashMap<Word, Vec<(usize, usize, usize)>>;
    let index = |m: &Module| {
        let mut def: HashMap<Word, (Op, Option<Word>, Vec<Word>)> = HashMap::default();
        let (mut uses, mut calls): (Places, Places) = Default::default();
        for (fi, f) in m.functions.iter().enumerate() {
            for (bi, b) in f.blocks.iter().enumerate() {
                for (ii, i) in b.instructions.iter().enumerate() {
                    for x in i.operands.iter().filter_map(id) {
                        uses.entry(x).or_default().push((fi, bi, ii));
                    }
                    if i.class.opcode == Op::FunctionCall {
                        if let Some(callee) = i.operands.first().and_then(id) {
                            calls.entry(callee).or_default().push((fi, bi, ii));
                        }
                    }
                    if let Some(r) = i.result_id {
                        def.insert(
                            r,
                            (
                                i.class.opcode,
                                i.result_type,
                                i.operands.iter().filter_map(id).collect(),
                            ),
                        );
                    }
                }
            }
        }
        (def, uses, calls)
    };
    let (def, uses, calls) = index(m);
    // The two-word vector type, where the module has one (D205's pairs are built in it).
    let pair_ty = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::TypeVector
                && i.operands == [Operand::IdRef(u32_), Operand::LiteralBit32(2)]
        })
        .and_then(|i| i.result_id);
    // `x = OpBitcast u64 (v)` of a two-word vector `v`: v.
    let is_pair = |x: Word| -> Option<Word> {
        match def.get(&x) {
            Some((Op::Bitcast, Some(t), a)) if *t == u64_ && a.len() == 1 => match def.get(&a[0]) {
                Some((_, Some(vt), _)) if Some(*vt) == pair_ty => Some(a[0]),
                _ => None,
            },
            _ => None,
        }
    };
    let inst_at = |m: &Module, (fi, bi, ii): (usize, usize, usize)| -> Instruction {
        m.functions[fi].blocks[bi].instructions[ii].clone()
    };
    // The split readers of a call result `r`: (`trunc32(r)` ids, `r >> 32` ids with only `trunc32`
    // readers, and those truncations, the ids of `bitcast_v2(r)`: the whole pair, D283), or None when
    // some reader is anything else.
    type Split = (Vec<Word>, Vec<(Word, Vec<Word>)>, Vec<Word>);
    let split_readers = |m: &Module, uses: &Places, r: Word| -> Option<Split> {
        let (mut lo, mut hi, mut whole) = (Vec::new(), Vec::new(), Vec::new());
        for &at in uses.get(&r).map(|v| v.as_slice()).unwrap_or(&[]) {
            let i = inst_at(m, at);
            let o: Vec<Word> = i.operands.iter().filter_map(id).collect();
            match (i.class.opcode, i.result_type, &o[..]) {
                (Op::Bitcast, Some(t), [_]) if pair_ty == Some(t) => whole.push(i.result_id?),
                (Op::UConvert, Some(t), [_]) if t == u32_ => lo.push(i.result_id?),
                (Op::ShiftRightLogical, _, [x, k]) if *x == r && consts.get(k) == Some(&32) => {
                    let sh = i.result_id?;
                    let mut ts = Vec::new();
                    for &at2 in uses.get(&sh).map(|v| v.as_slice()).unwrap_or(&[]) {
                        let j = inst_at(m, at2);
                        if j.class.opcode != Op::UConvert || j.result_type != Some(u32_) {
                            return None;
                        }
                        ts.push(j.result_id?);
                    }
                    hi.push((sh, ts));
                }
                _ => return None,
            }
        }
        Some((lo, hi, whole))
    };
    // Per callee: the parameters to rewrite, and whether its result is.
    let mut plan: Vec<(usize, Vec<usize>, bool)> = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        let Some(fid) = f.def.as_ref().and_then(|d| d.result_id) else {
            continue;
        };
        let Some(sites) = calls.get(&fid) else {
            continue;
        };
        let mut params = Vec::new();
        for (k, prm) in f.parameters.iter().enumerate() {
            if prm.result_type != Some(u64_) {
                continue;
            }
            // A packing bitcast goes when calls are its only readers (its 4 words shared by them).
            let mut gain = -4.0;
            for &at in sites {
                let arg = inst_at(m, at).operands.get(1 + k).and_then(id).unwrap_or(0);
                let readers = uses.get(&arg).map(|v| v.as_slice()).unwrap_or(&[]);
                let calls_only = readers
                    .iter()
                    .all(|&u| inst_at(m, u).class.opcode == Op::FunctionCall);
                gain += match is_pair(arg) {
                    Some(_) if calls_only => 4.0 / readers.len().max(1) as f64,
                    Some(_) => 0.0,
                    None => -4.0,
                };
            }
            if gain > 0.0 {
                params.push(k);
            }
        }
        let returns_u64 = f.def.as_ref().and_then(|d| d.result_type) == Some(u64_);
        let mut ret = false;
        if returns_u64 {
            let n_ret = f
                .blocks
                .iter()
                .flat_map(|b| &b.instructions)
                .filter(|i| i.class.opcode == Op::ReturnValue)
                .count() as i64;
            let mut gain: i64 = -4 * n_ret;
            for &at in sites {
                let r = inst_at(m, at).result_id.unwrap_or(0);
                gain += match split_readers(m, &uses, r) {
                    // A truncation (4 words) becomes an extract (5); a shift (5) goes with its
                    // truncations becoming extracts; a bitcast to the pair (4) goes (D283).
                    Some((lo, hi, whole)) => {
                        -(lo.len() as i64)
                            + hi.iter().map(|(_, ts)| 5 - ts.len() as i64).sum::<i64>()
                            + 4 * whole.len() as i64
                    }
                    None => -4,
                };
            }
            ret = gain > 0;
        }
        if !params.is_empty() || ret {
            plan.push((fi, params, ret));
        }
    }
    if plan.is_empty() {
        return 0;
    }
    let v2 = uvec_type(m, bound, u32_, 2);
    let mut done = 0;
    for (fi, params, ret) in plan {
        let fid = m.functions[fi]
            .def
            .as_ref()
            .and_then(|d| d.result_id)
            .unwrap_or(0);
        // The new function type.
        let old_ty = m.functions[fi]
            .def
            .as_ref()
            .and_then(|d| d.operands.get(1))
            .and_then(id)
            .unwrap_or(0);
        let Some(old) = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(old_ty))
            .cloned()
        else {
            continue;
        };
        let mut ops = old.operands.clone();
        if ret {
            ops[0] = Operand::IdRef(v2);
        }
        for &k in &params {
            ops[1 + k] = Operand::IdRef(v2);
        }
        let new_ty = match m
            .types_global_values
            .iter()
            .find(|i| i.class.opcode == Op::TypeFunction && i.operands == ops)
            .and_then(|i| i.result_id)
        {
            Some(t) => t,
            None => {
                let t = *bound;
                *bound += 1;
                let at = m
                    .types_global_values
                    .iter()
                    .position(|i| i.result_id == Some(old_ty))
                    .map_or(m.types_global_values.len(), |k| k + 1);
                m.types_global_values
                    .insert(at, Instruction::new(Op::TypeFunction, None, Some(t), ops));
                t
            }
        };
        // The callee: its type, parameters and returns.
        {
            let f = &mut m.functions[fi];
            if let Some(d) = f.def.as_mut() {
                d.operands[1] = Operand::IdRef(new_ty);
                if ret {
                    d.result_type = Some(v2);
                }
            }
            let mut entry_casts = Vec::new();
            for &k in &params {
                let p2 = *bound;
                *bound += 1;
                let prm = &mut f.parameters[k];
                let old_id = prm.result_id.unwrap_or(0);
                prm.result_id = Some(p2);
                prm.result_type = Some(v2);
                entry_casts.push(Instruction::new(
                    Op::Bitcast,
                    Some(u64_),
                    Some(old_id),
                    vec![Operand::IdRef(p2)],
                ));
                done += 1;
            }
            if let Some(b0) = f.blocks.first_mut() {
                let at = b0
                    .instructions
                    .iter()
                    .position(|i| i.class.opcode != Op::Variable)
                    .unwrap_or(b0.instructions.len());
                b0.instructions.splice(at..at, entry_casts);
            }
            if ret {
                for b in &mut f.blocks {
                    let mut out = Vec::with_capacity(b.instructions.len() + 1);
                    for mut i in std::mem::take(&mut b.instructions) {
                        if i.class.opcode == Op::ReturnValue {
                            let v = i.operands.first().and_then(id).unwrap_or(0);
                            let c = *bound;
                            *bound += 1;
                            out.push(Instruction::new(
                                Op::Bitcast,
                                Some(v2),
                                Some(c),
                                vec![Operand::IdRef(v)],
                            ));
                            i.operands[0] = Operand::IdRef(c);
                        }
                        out.push(i);
                    }
                    b.instructions = out;
                }
                done += 1;
            }
        }
        // The callers: each call's arguments and result. Rewritten block by block (the positions in
        // `calls` shift as instructions are added, so the calls are found again by callee).
        // Each call's result: (its vector, whether every reader is a split word).
        let mut splits: HashMap<Word, (Word, bool)> = HashMap::default();
        let mut lo_of: HashMap<Word, Word> = HashMap::default();
        let mut hi_of: HashMap<Word, Word> = HashMap::default();
        let mut gone_sh: HashSet<Word> = HashSet::default();
        // D283: the bitcasts of a call's result to the pair, read as the pair result itself.
        let mut whole_of: HashMap<Word, Word> = HashMap::default();
        if ret {
            // The places as the rewrites of the functions before this one left them.
            let (_, uses, calls) = index(m);
            for &at in calls.get(&fid).map(|v| v.as_slice()).unwrap_or(&[]) {
                let r = inst_at(m, at).result_id.unwrap_or(0);
                let r2 = *bound;
                *bound += 1;
                let split = split_readers(m, &uses, r);
                if let Some((lo, hi, whole)) = &split {
                    for &x in lo {
                        lo_of.insert(x, r2);
                    }
                    for &w in whole {
                        whole_of.insert(w, r2);
                    }
                    for (sh, ts) in hi {
                        gone_sh.insert(*sh);
                        for &t in ts {
                            hi_of.insert(t, r2);
                        }
                    }
                }
                splits.insert(r, (r2, split.is_some()));
            }
        }
        for f in &mut m.functions {
            for b in &mut f.blocks {
                let mut out = Vec::with_capacity(b.instructions.len());
                for mut i in std::mem::take(&mut b.instructions) {
                    let r = i.result_id.unwrap_or(0);
                    if let Some(&r2) = lo_of.get(&r) {
                        out.push(Instruction::new(
                            Op::CompositeExtract,
                            Some(u32_),
                            Some(r),
                            vec![Operand::IdRef(r2), Operand::LiteralBit32(0)],
                        ));
                        continue;
                    }
                    if let Some(&r2) = hi_of.get(&r) {
                        out.push(Instruction::new(
                            Op::CompositeExtract,
                            Some(u32_),
                            Some(r),
                            vec![Operand::IdRef(r2), Operand::LiteralBit32(1)],
                        ));
                        continue;
                    }
                    if gone_sh.contains(&r) || whole_of.contains_key(&r) {
                        continue;
                    }
                    if i.class.opcode != Op::FunctionCall
                        || i.operands.first().and_then(id) != Some(fid)
                    {
                        out.push(i);
                        continue;
                    }
                    for &k in &params {
                        let arg = i.operands[1 + k].clone();
                        let a = id(&arg).unwrap_or(0);
                        let v = match is_pair(a) {
                            Some(v) => v,
                            None => {
                                let c = *bound;
                                *bound += 1;
                                out.push(Instruction::new(
                                    Op::Bitcast,
                                    Some(v2),
                                    Some(c),
                                    vec![arg],
                                ));
                                c
                            }
                        };
                        i.operands[1 + k] = Operand::IdRef(v);
                    }
                    if let Some(&(r2, split)) = splits.get(&r) {
                        i.result_id = Some(r2);
                        i.result_type = Some(v2);
                        out.push(i);
                        if !split {
                            // Other readers: the u64 value again, under its old id.
                            out.push(Instruction::new(
                                Op::Bitcast,
                                Some(u64_),
                                Some(r),
                                vec![Operand::IdRef(r2)],
                            ));
                        }
                        continue;
                    }
                    out.push(i);
                }
                b.instructions = out;
            }
        }
        if !whole_of.is_empty() {
            // D283: a bitcast of the result to the pair was the pair result itself.
            for i in m
                .functions
                .iter_mut()
                .flat_map(|f| f.blocks.iter_mut())
                .flat_map(|b| b.instructions.iter_mut())
            {
                for o in &mut i.operands {
                    if let Operand::IdRef(x) = o {
                        if let Some(&y) = whole_of.get(x) {
                            *x = y;
                        }
                    }
                }
            }
        }
    }
    done
}

/// Part of rewrite `n` (decision D205): a 64-bit value assembled from two 32-bit words, `zext(a) |
/// (zext(b) << 32)` (a register pair read as an address, an f64 or a 64-bit integer), whose shift
/// nobody else reads, becomes `OpBitcast` of the two-word vector `(a, b)`: 9 words instead of 18 when
/// the extensions have no other reader (the shift and the extensions go to dead code), never more than
/// before. A truncation of such a pair to its low word reads `a` instead. Exact by SPIR-V's
/// definitions: the OR of the disjoint halves is `a + 2^32 b`, and `OpBitcast` from a vector of two
/// 32-bit components to a 64-bit scalar maps component 0 to the lower-order bits (the SPIR-V
/// specification, OpBitcast). Decorated ids are left alone. Returns the pairs rewritten.
fn pairs(m: &mut Module, f: &mut Function, bound: &mut Word, gone: &mut HashSet<Word>) -> usize {
    let (Some(u32_), Some(u64_)) = (uint_type(m, 32), uint_type(m, 64)) else {
        return 0;
    };
    let consts = constants(m);
    let decorated = decorated_ids(m);
    let (uses, def) = uses_and_defs(f);
    let zext = |x: Word| match def.get(&x) {
        Some((Op::UConvert, Some(t), o)) if *t == u64_ && !decorated.contains(&x) => {
            matches!(def.get(&o[0]), Some((_, Some(s), _)) if *s == u32_).then_some(o[0])
        }
        _ => None,
    };
    // `x` when `a` and `b` are the low and high words of the 64-bit `x` (a value split and joined again).
    let split_of = |a: Word, b: Word| {
        let low = |v: Word| match def.get(&v) {
            Some((Op::UConvert, Some(t), o)) if *t == u32_ && !decorated.contains(&v) => {
                matches!(def.get(&o[0]), Some((_, Some(s), _)) if *s == u64_).then_some(o[0])
            }
            _ => None,
        };
        let x = low(a)?;
        match def.get(&low(b)?) {
            Some((Op::ShiftRightLogical, _, s)) if s[0] == x && consts.get(&s[1]) == Some(&32) => {
                Some(x)
            }
            _ => None,
        }
    };
    // Or -> (a, b, whether its shift has no other reader).
    let mut pair: HashMap<Word, (Word, Word, bool)> = HashMap::default();
    for (&r, (op, t, o)) in &def {
        if *op != Op::BitwiseOr || *t != Some(u64_) || o.len() != 2 || decorated.contains(&r) {
            continue;
        }
        for (p, q) in [(o[0], o[1]), (o[1], o[0])] {
            let Some(a) = zext(p) else { continue };
            let Some((Op::ShiftLeftLogical, _, s)) = def.get(&q) else {
                continue;
            };
            if s.len() != 2 || consts.get(&s[1]) != Some(&32) || decorated.contains(&q) {
                continue;
            }
            let Some(b) = zext(s[0]) else { continue };
            pair.insert(r, (a, b, uses.get(&q) == Some(&1)));
            break;
        }
    }
    if pair.is_empty() {
        return 0;
    }
    let v2 = uvec_type(m, bound, u32_, 2);
    let mut repl: HashMap<Word, Word> = HashMap::default();
    let mut done = 0;
    for blk in &mut f.blocks {
        let mut out = Vec::with_capacity(blk.instructions.len());
        for i in std::mem::take(&mut blk.instructions) {
            let r = i.result_id.unwrap_or(0);
            // A truncation of a pair to its low word.
            if i.class.opcode == Op::UConvert
                && i.result_type == Some(u32_)
                && !decorated.contains(&r)
            {
                if let Some(&(a, _, _)) = i.operands.first().and_then(id).and_then(|x| pair.get(&x))
                {
                    repl.insert(r, a);
                    gone.insert(r);
                    continue;
                }
            }
            match pair.get(&r) {
                Some(&(a, b, _)) if split_of(a, b).is_some() => {
                    repl.insert(r, split_of(a, b).unwrap_or(r));
                    gone.insert(r);
                }
                Some(&(a, b, true)) => {
                    let v = *bound;
                    *bound += 1;
                    out.push(Instruction::new(
                        Op::CompositeConstruct,
                        Some(v2),
                        Some(v),
                        vec![Operand::IdRef(a), Operand::IdRef(b)],
                    ));
                    out.push(Instruction::new(
                        Op::Bitcast,
                        Some(u64_),
                        Some(r),
                        vec![Operand::IdRef(v)],
                    ));
                    done += 1;
                }
                _ => out.push(i),
            }
        }
        blk.instructions = out;
    }
    if !repl.is_empty() {
        for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    // A truncated pair's low word may itself be a truncated pair's.
                    while let Some(y) = repl.get(x) {
                        *x = *y;
                    }
                }
            }
        }
    }
    done + repl.len()
}

/// Rewrite `a`'s packing identities (decision D262): a value split into words and put together again is
/// the value. By SPIR-V's `OpBitcast` (a type with more components takes the operand's low-order bits in
/// its lower-numbered components) and `OpUConvert` (a narrower unsigned result keeps the low-order bits):
/// - `bitcast_T(x)` with `x` of type `T` is `x`; `bitcast_T(bitcast(x))` is `x` when `x` has type `T`,
///   else `bitcast_T(x)` (each bitcast keeps every bit);
/// - `construct_T(extract(v, 0), …, extract(v, n − 1))` with `v` of type `T` (`n` components) is `v`;
/// - `bitcast_T(construct(lo, hi))` of a two-word vector whose words are the low and high words of one
///   64-bit `x` (`lo` = `uconvert32(x)` or `extract(bitcast(x), 0)`, `hi` = `uconvert32(x >> 32)` or
///   `extract(bitcast(x), 1)`) is `x` (or `bitcast_T(x)`);
/// - `uconvert32(y)` and `uconvert32(y >> 32)` of `y = bitcast(construct(a, b))` are `a` and `b`;
///   `extract(construct(c0, …), i)` of a vector made of scalars is `ci`.
///
/// Session 48 found the split-and-joined shapes where D251's wide loads meet the float operations' u64
/// operands and where a float result is stored as words (22 words for `x` itself). Only plain numeric
/// types (no pointers); decorated results are left alone. The replaced instructions go (their uses read
/// the value, defined before them); what they read and nothing else reads is left to [`dead_code`].
/// Returns the instructions replaced or rewritten.
fn repack(m: &Module, f: &mut Function, gone: &mut HashSet<Word>) -> usize {
    // Numeric types: components (1 for a scalar), bits of a component, whether unsigned integers.
    #[derive(Clone, Copy)]
    struct Num {
        n: u32,
        bits: u32,
        uint: bool,
    }
    let mut num: HashMap<Word, Num> = HashMap::default();
    // A vector type's component type.
    let mut comp: HashMap<Word, Word> = HashMap::default();
    for i in &m.types_global_values {
        let Some(r) = i.result_id else { continue };
        let lit = |k: usize| match i.operands.get(k) {
            Some(Operand::LiteralBit32(x)) => Some(*x),
            _ => None,
        };
        match i.class.opcode {
            Op::TypeInt => {
                if let (Some(bits), Some(s)) = (lit(0), lit(1)) {
                    num.insert(
                        r,
                        Num {
                            n: 1,
                            bits,
                            uint: s == 0,
                        },
                    );
                }
            }
            Op::TypeFloat => {
                if let Some(bits) = lit(0) {
                    num.insert(
                        r,
                        Num {
                            n: 1,
                            bits,
                            uint: false,
                        },
                    );
                }
            }
            Op::TypeVector => {
                let c = i
                    .operands
                    .first()
                    .and_then(id)
                    .and_then(|c| num.get(&c).copied());
                if let (Some(c), Some(n)) = (c, lit(1)) {
                    num.insert(r, Num { n, ..c });
                    comp.extend(i.operands.first().and_then(id).map(|c| (r, c)));
                }
            }
            _ => {}
        }
    }
    let consts = constants(m);
    let decorated = decorated_ids(m);
    // Each result's opcode, type, id operands and first literal (an extract's index).
    struct Def {
        op: Op,
        ty: Word,
        ops: Vec<Word>,
        index: Option<u32>,
    }
    let mut defs: HashMap<Word, Def> = HashMap::default();
    // The types of constants, undefined values and parameters (operands defined outside the blocks).
    let global_ty: HashMap<Word, Word> = m
        .types_global_values
        .iter()
        .chain(&f.parameters)
        .filter_map(|i| Some((i.result_id?, i.result_type?)))
        .collect();
    let mut repl: HashMap<Word, Word> = HashMap::default();
    let resolve = |repl: &HashMap<Word, Word>, mut x: Word| {
        while let Some(&y) = repl.get(&x) {
            x = y;
        }
        x
    };
    let word_pair = |t: Word| {
        num.get(&t)
            .is_some_and(|v| v.n == 2 && v.bits == 32 && v.uint)
    };
    let bits_of = |t: Word| num.get(&t).map(|v| v.n * v.bits);
    let mut done = 0;
    for blk in &mut f.blocks {
        let mut out = Vec::with_capacity(blk.instructions.len());
        for mut i in std::mem::take(&mut blk.instructions) {
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    *x = resolve(&repl, *x);
                }
            }
            let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
                out.push(i);
                continue;
            };
            let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
            let index = match i.operands.get(1) {
                Some(Operand::LiteralBit32(k)) if i.operands.len() == 2 => Some(*k),
                _ => None,
            };
            // Decorated results and non-numeric types are only recorded.
            let candidate = !decorated.contains(&r) && num.contains_key(&t);
            let def = |x: Word| defs.get(&x);
            let ty = |x: Word| {
                defs.get(&x)
                    .map(|d| d.ty)
                    .or_else(|| global_ty.get(&x).copied())
            };
            // The value `w` is a word of, and which word (0 the lowest): `uconvert32(x)` and
            // `uconvert32(x >> 32)` of a 64-bit `x`, component `k` of a bitcast of `x` to 32-bit words.
            let word_of = |w: Word| -> Option<(Word, u32)> {
                let d = def(w)?;
                match d.op {
                    Op::UConvert => match def(d.ops[0]) {
                        Some(s)
                            if s.op == Op::ShiftRightLogical
                                && consts.get(&s.ops[1]) == Some(&32)
                                && bits_of(s.ty) == Some(64) =>
                        {
                            Some((s.ops[0], 1))
                        }
                        _ => (bits_of(ty(d.ops[0])?) == Some(64)).then_some((d.ops[0], 0)),
                    },
                    Op::CompositeExtract => {
                        let b = def(d.ops[0])?;
                        let words = num
                            .get(&b.ty)
                            .is_some_and(|v| v.n >= 2 && v.bits == 32 && v.uint);
                        (b.op == Op::Bitcast && words).then_some((b.ops[0], d.index?))
                    }
                    _ => None,
                }
            };
            // The two words `y` (64 bits) was made of.
            let words_of = |y: Word| -> Option<(Word, Word)> {
                let b = def(y)?;
                let c = def(*b.ops.first()?)?;
                (b.op == Op::Bitcast && c.op == Op::CompositeConstruct && word_pair(c.ty))
                    .then(|| Some((*c.ops.first()?, *c.ops.get(1)?)))
                    .flatten()
            };
            // What replaces `r`: a value, or the operand of a bitcast.
            enum Out {
                Same(Word),
                Cast(Word),
                Component(Word, u32),
            }
            let plain = |x: Word| ty(x).is_some_and(|tx| num.contains_key(&tx));
            let as_t = |x: Word| {
                if ty(x) == Some(t) {
                    Some(Out::Same(x))
                } else if plain(x) && bits_of(ty(x)?) == bits_of(t) {
                    Some(Out::Cast(x))
                } else {
                    None
                }
            };
            let out_of = match (i.class.opcode, ops.as_slice()) {
                _ if !candidate => None,
                (Op::Bitcast, &[x]) => match def(x) {
                    _ if ty(x) == Some(t) => Some(Out::Same(x)),
                    Some(d) if d.op == Op::Bitcast => as_t(d.ops[0]),
                    Some(d) if d.op == Op::CompositeConstruct && word_pair(d.ty) => {
                        // Two consecutive words of one `x`, from an even word: `x` itself when it
                        // has 64 bits, else its 64-bit component (a `v2u64` load's, D251).
                        match (word_of(d.ops[0]), d.ops.get(1).and_then(|&h| word_of(h))) {
                            (Some((a, 0)), Some((b, 1)))
                                if a == b && ty(a).and_then(bits_of) == Some(64) =>
                            {
                                as_t(a)
                            }
                            (Some((a, ka)), Some((b, kb)))
                                if a == b && ka % 2 == 0 && kb == ka + 1 =>
                            {
                                (ty(a).and_then(|ta| comp.get(&ta)) == Some(&t)
                                    && bits_of(t) == Some(64))
                                .then_some(Out::Component(a, ka / 2))
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                },
                (Op::CompositeConstruct, [e0, ..]) => def(*e0)
                    .filter(|d| d.op == Op::CompositeExtract)
                    .map(|d| d.ops[0])
                    .filter(|&v| {
                        ty(v) == Some(t)
                            && num[&t].n as usize == ops.len()
                            && ops.iter().enumerate().all(|(k, e)| {
                                def(*e).is_some_and(|d| {
                                    d.op == Op::CompositeExtract
                                        && d.ops[0] == v
                                        && d.index == Some(k as u32)
                                })
                            })
                    })
                    .map(Out::Same),
                (Op::UConvert, &[y]) if num[&t].bits == 32 => {
                    let high = def(y)
                        .filter(|s| {
                            s.op == Op::ShiftRightLogical && consts.get(&s.ops[1]) == Some(&32)
                        })
                        .map(|s| s.ops[0]);
                    match high {
                        Some(z) => words_of(z).map(|(_, b)| b),
                        None => words_of(y).map(|(a, _)| a),
                    }
                    .filter(|w| ty(*w) == Some(t))
                    .map(Out::Same)
                }
                (Op::CompositeExtract, &[v]) => def(v)
                    .filter(|d| {
                        d.op == Op::CompositeConstruct
                            && num.get(&d.ty).is_some_and(|n| n.n as usize == d.ops.len())
                    })
                    .and_then(|d| d.ops.get(index? as usize).copied())
                    .filter(|c| ty(*c) == Some(t))
                    .map(Out::Same),
                _ => None,
            };
            match out_of {
                Some(Out::Same(x)) => {
                    repl.insert(r, x);
                    gone.insert(r);
                    done += 1;
                }
                Some(Out::Cast(x)) => {
                    // Only bitcasts give one.
                    i.operands = vec![Operand::IdRef(x)];
                    defs.insert(
                        r,
                        Def {
                            op: Op::Bitcast,
                            ty: t,
                            ops: vec![x],
                            index: None,
                        },
                    );
                    out.push(i);
                    done += 1;
                }
                Some(Out::Component(x, k)) => {
                    let ops = vec![Operand::IdRef(x), Operand::LiteralBit32(k)];
                    i = Instruction::new(Op::CompositeExtract, Some(t), Some(r), ops);
                    let index = Some(k);
                    defs.insert(
                        r,
                        Def {
                            op: Op::CompositeExtract,
                            ty: t,
                            ops: vec![x],
                            index,
                        },
                    );
                    out.push(i);
                    done += 1;
                }
                None => {
                    defs.insert(
                        r,
                        Def {
                            op: i.class.opcode,
                            ty: t,
                            ops,
                            index,
                        },
                    );
                    out.push(i);
                }
            }
        }
        blk.instructions = out;
    }
    if !repl.is_empty() {
        for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    *x = resolve(&repl, *x);
                }
            }
        }
    }
    done
}

/// Rewrite `v` (decision D211): in one block, plain loads of components of the same element of a
/// Workgroup array of vectors (`OpAccessChain %var %idx %c`, `c` a constant, the same `%idx` id) with no
/// instruction between them that may write memory or synchronise (anything but effect-free operations,
/// plain loads and stores through Function pointers) become one `OpLoad` of the element, at the first
/// load, and an `OpCompositeExtract` of each component, in place of each load (same result ids). Done
/// when they read at least 2 distinct components of a 2-vector or 3 of a 4-vector (lavapipe emits each
/// non-uniform workgroup load as a loop over its SIMD lanes with a branch per component: fewer loops,
/// not more branches). Exact in a data-race-free module (SPIR-V's memory model makes a race undefined
/// behaviour): nothing this invocation runs between the loads writes memory, and a write by another
/// invocation between them would race with one of them, since ordering it needs a barrier or an atomic
/// of this invocation in between; the components no load read are read and discarded. Then (D237) an
/// `OpCompositeConstruct` of the vector's type whose constituents are the extracts of components 0, 1,
/// … of one such load, in order, is that load: its uses read the load instead (the load dominates its
/// extracts, which dominate the construct; `d` removes what is left unused). Returns the loads rewritten.
fn vector_loads(m: &Module, f: &mut Function, bound: &mut Word) -> usize {
    let glsl = glsl_import(m);
    let types: HashMap<Word, &Instruction> = m
        .types_global_values
        .iter()
        .filter_map(|i| Some((i.result_id?, i)))
        .collect();
    let pointer = |t: Word| match types.get(&t) {
        Some(i) if i.class.opcode == Op::TypePointer => match i.operands[..] {
            [Operand::StorageClass(sc), Operand::IdRef(to)] => Some((sc, to)),
            _ => None,
        },
        _ => None,
    };
    let pointer_to = |sc: StorageClass, to: Word| {
        m.types_global_values
            .iter()
            .find(|i| {
                i.class.opcode == Op::TypePointer
                    && i.operands == [Operand::StorageClass(sc), Operand::IdRef(to)]
            })
            .and_then(|i| i.result_id)
    };
    // Workgroup variables of arrays of vectors: var -> (vector type, its pointer type, components).
    let mut arrays: HashMap<Word, (Word, Word, u64)> = HashMap::default();
    for i in &m.types_global_values {
        let (Op::Variable, Some(r), Some(t)) = (i.class.opcode, i.result_id, i.result_type) else {
            continue;
        };
        let Some((StorageClass::Workgroup, arr)) = pointer(t) else {
            continue;
        };
        let Some(a) = types.get(&arr).filter(|a| a.class.opcode == Op::TypeArray) else {
            continue;
        };
        let Some(Operand::IdRef(v)) = a.operands.first() else {
            continue;
        };
        let Some(vi) = types.get(v).filter(|v| v.class.opcode == Op::TypeVector) else {
            continue;
        };
        let (Some(Operand::LiteralBit32(n)), Some(pv)) =
            (vi.operands.get(1), pointer_to(StorageClass::Workgroup, *v))
        else {
            continue;
        };
        arrays.insert(r, (*v, pv, *n as u64));
    }
    if arrays.is_empty() {
        return 0;
    }
    let consts = constants(m);
    // Component pointers: access chain -> (variable, element index, component, components).
    let mut comps: HashMap<Word, (Word, Word, u32, u64)> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        if i.class.opcode != Op::AccessChain {
            continue;
        }
        let (Some(r), [Operand::IdRef(var), Operand::IdRef(idx), Operand::IdRef(c)]) =
            (i.result_id, &i.operands[..])
        else {
            continue;
        };
        if let (Some(&(_, _, n)), Some(&k)) = (arrays.get(var), consts.get(c)) {
            if k < n {
                comps.insert(r, (*var, *idx, k as u32, n));
            }
        }
    }
    let function_ptr = |t: Option<Word>| {
        t.and_then(pointer)
            .is_some_and(|(sc, _)| sc == StorageClass::Function)
    };
    let mut ptr_type: HashMap<Word, Option<Word>> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        if let Some(r) = i.result_id {
            ptr_type.insert(r, i.result_type);
        }
    }
    let mut done = 0;
    // The extracts made: result -> (vector load, component, vector type).
    let mut made: HashMap<Word, (Word, u32, Word)> = HashMap::default();
    for blk in &mut f.blocks {
        // Groups of loads (instruction positions, components) of one element with nothing between
        // that may write memory.
        let mut groups: Vec<Vec<(usize, u32)>> = Vec::new();
        let mut open: HashMap<(Word, Word), usize> = HashMap::default();
        for (k, i) in blk.instructions.iter().enumerate() {
            let op = i.class.opcode;
            if op == Op::Load && plain_load(i) {
                if let Some(&(var, idx, c, _)) =
                    i.operands.first().and_then(id).and_then(|p| comps.get(&p))
                {
                    let g = *open.entry((var, idx)).or_insert_with(|| {
                        groups.push(Vec::new());
                        groups.len() - 1
                    });
                    groups[g].push((k, c));
                }
                continue;
            }
            let harmless = match op {
                Op::Store => function_ptr(
                    i.operands
                        .first()
                        .and_then(id)
                        .and_then(|p| ptr_type.get(&p).copied().flatten()),
                ),
                _ => effect_free(i, glsl),
            };
            if !harmless {
                open.clear();
            }
        }
        let mut first: HashMap<usize, Vec<Instruction>> = HashMap::default();
        let mut extract: HashMap<usize, (Word, u32)> = HashMap::default();
        for g in groups {
            let (k0, _) = g[0];
            let load = &blk.instructions[k0];
            let Some(&(var, idx, _, n)) = load
                .operands
                .first()
                .and_then(id)
                .and_then(|p| comps.get(&p))
            else {
                continue;
            };
            let distinct: HashSet<u32> = g.iter().map(|&(_, c)| c).collect();
            if (distinct.len() as u64) < n.min(3) {
                continue;
            }
            let (vty, pv, _) = arrays[&var];
            let (e, v) = (*bound, *bound + 1);
            *bound += 2;
            first.insert(
                k0,
                vec![
                    Instruction::new(
                        Op::AccessChain,
                        Some(pv),
                        Some(e),
                        vec![Operand::IdRef(var), Operand::IdRef(idx)],
                    ),
                    Instruction::new(Op::Load, Some(vty), Some(v), vec![Operand::IdRef(e)]),
                ],
            );
            for (k, c) in g {
                extract.insert(k, (v, c));
                if let Some(r) = blk.instructions[k].result_id {
                    made.insert(r, (v, c, vty));
                }
            }
        }
        if extract.is_empty() {
            continue;
        }
        done += extract.len();
        let old = std::mem::take(&mut blk.instructions);
        for (k, i) in old.into_iter().enumerate() {
            if let Some(pre) = first.remove(&k) {
                blk.instructions.extend(pre);
            }
            match extract.get(&k) {
                Some(&(v, c)) => blk.instructions.push(Instruction::new(
                    Op::CompositeExtract,
                    i.result_type,
                    i.result_id,
                    vec![Operand::IdRef(v), Operand::LiteralBit32(c)],
                )),
                None => blk.instructions.push(i),
            }
        }
    }
    // Constructs that reassemble a load.
    let mut whole: HashMap<Word, Word> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        let (Op::CompositeConstruct, Some(r), Some(t)) =
            (i.class.opcode, i.result_id, i.result_type)
        else {
            continue;
        };
        let parts: Option<Vec<(Word, u32, Word)>> = i
            .operands
            .iter()
            .map(|o| id(o).and_then(|x| made.get(&x).copied()))
            .collect();
        let Some(parts) = parts else {
            continue;
        };
        let Some(&(v, _, vty)) = parts.first() else {
            continue;
        };
        let n = types
            .get(&vty)
            .and_then(|ti| match ti.operands.get(1) {
                Some(Operand::LiteralBit32(n)) => Some(*n as usize),
                _ => None,
            })
            .unwrap_or(0);
        if t == vty
            && parts.len() == n
            && parts
                .iter()
                .enumerate()
                .all(|(c, &(w, k, _))| w == v && k as usize == c)
        {
            whole.insert(r, v);
        }
    }
    if !whole.is_empty() {
        for i in f.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
            for o in &mut i.operands {
                if let Operand::IdRef(x) = o {
                    if let Some(&v) = whole.get(x) {
                        *x = v;
                    }
                }
            }
        }
    }
    done
}

/// Rewrite `w` (decision D226): in one block, plain `Aligned 4` loads of u32 words through
/// `OpConvertUToPtr` of one 64-bit address `a` and of `a + 4k` (constants `k`), at the word offsets 0
/// to 1, 2 or 3, with no instruction between them that may write memory or synchronise (the condition
/// of [`vector_loads`]), become one `Aligned 4` load of a 2-, 3- or 4-word vector through `a`, at the
/// first of them, and an `OpCompositeExtract` in place of each (same result ids). The lowering reads a
/// `global_load_dwordx4` as four word loads (D219): 4 pointers, 3 64-bit adds, 4 loads (51 words)
/// become 1 pointer, 1 load and 4 extracts (29); lavapipe gathers one vector per lane instead of four
/// words. `Aligned 4` stores of the words at `a`, `a + 4`, … with nothing between them that may read or
/// write memory (but Function variables) become one store of the vector of their values, at the last.
/// Exact in a data-race-free module (D211's argument): the vector's components are the words at the
/// same addresses (a vector in PhysicalStorageBuffer memory is laid out component after component, 4
/// bytes each); nothing this invocation runs between the loads writes memory, nor between the stores
/// reads or writes it; the `Aligned 4` the accesses declared holds for `a`. Decision D230: the words
/// of a scalar load, at `(x + c) & !3` (s_load ignores the address's two low bits), are grouped too:
/// addresses of one `x` and one `c mod 4` lie exactly `4 (c' div 4 − c div 4)` bytes apart (adding a
/// multiple of 4 leaves the two bits the mask clears alone), so 2 to 4 consecutive ones are one vector
/// through the lowest word's address (where that address is computed before the group's place).
/// Decision D247: the words of one base at any multiple-of-4 offset, not only 0 to 12 (a
/// `global_load_dwordx4 … offset:16`), their runs of consecutive words cut into groups of at most four
/// from the lowest; a group not starting at the base itself goes through its lowest word's address, as
/// D230's groups do. Decision D251: a group of 2 or 4 words is accessed as one u64 or `v2u64` and
/// bitcast to and from the words' vector (lavapipe loops over the lanes per component of a global access;
/// a bitcast's lower-numbered components are the low bits, the lower words in memory). Returns the
/// words rewritten.
fn wide_words(m: &mut Module, f: &mut Function, bound: &mut Word) -> usize {
    let glsl = glsl_import(m);
    let Some(u32_) = uint_type(m, 32) else {
        return 0;
    };
    let Some(u64_) = uint_type(m, 64) else {
        return 0;
    };
    let psb = |m: &Module, to: Word| {
        m.types_global_values
            .iter()
            .find(|i| {
                i.class.opcode == Op::TypePointer
                    && i.operands
                        == [
                            Operand::StorageClass(StorageClass::PhysicalStorageBuffer),
                            Operand::IdRef(to),
                        ]
            })
            .and_then(|i| i.result_id)
    };
    let Some(pw) = psb(m, u32_) else { return 0 };
    let consts = constants(m);
    let types: HashMap<Word, Option<Word>> = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter_map(|i| Some((i.result_id?, i.result_type)))
        .collect();
    // Word pointers: pointer -> (group key, word offset, address). The key is (base, 0) for `base + 4k`
    // (any k, D247), or (x, 1 + r) for a dword-aligned `(x + c) & !3` with `c mod 4 = r` (the word
    // offset `c div 4`, any c): two such addresses of one key differ by exactly 4 times the difference
    // of their offsets, since adding a multiple of 4 leaves the two bits the mask clears alone.
    const DWORD: u64 = !3;
    let mut adds: HashMap<Word, (Word, u64)> = HashMap::default();
    let mut masked: HashMap<Word, (Word, u64)> = HashMap::default();
    let mut word_ptr: HashMap<Word, ((Word, u32), i64, Word)> = HashMap::default();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        let (Some(r), Some(t)) = (i.result_id, i.result_type) else {
            continue;
        };
        let o: Vec<Word> = i.operands.iter().filter_map(id).collect();
        match (i.class.opcode, &o[..]) {
            (Op::IAdd, &[x, y]) if t == u64_ => {
                let (base, k) = match (consts.get(&x), consts.get(&y)) {
                    (None, Some(&k)) => (x, k),
                    (Some(&k), None) => (y, k),
                    _ => continue,
                };
                adds.insert(r, (base, k));
            }
            (Op::BitwiseAnd, &[x, y]) if t == u64_ => {
                let a = match (consts.get(&x), consts.get(&y)) {
                    (None, Some(&DWORD)) => x,
                    (Some(&DWORD), None) => y,
                    _ => continue,
                };
                masked.insert(r, adds.get(&a).copied().unwrap_or((a, 0)));
            }
            _ => {}
        }
    }
    // A masked address that is also the base of `base + 4k` words keeps that form (D226's groups).
    // Any multiple of 4 (D247: a `global_load_dwordx4 … offset:16` reads `base + 16` to `base + 28`),
    // as a signed word offset: the addresses are `base + 4k` modulo 2^64 either way.
    let whole_words = |k: u64| k.is_multiple_of(4);
    let bases: HashSet<Word> = adds
        .values()
        .filter(|&&(_, k)| whole_words(k))
        .map(|&(b, _)| b)
        .collect();
    for i in f.blocks.iter().flat_map(|b| &b.instructions) {
        let (Some(r), Some(t), Op::ConvertUToPtr, Some(x)) = (
            i.result_id,
            i.result_type,
            i.class.opcode,
            i.operands.first().and_then(id),
        ) else {
            continue;
        };
        if t != pw || types.get(&x) != Some(&Some(u64_)) {
            continue;
        }
        let at = match (adds.get(&x), masked.get(&x)) {
            (Some(&(base, k)), _) if whole_words(k) => ((base, 0), (k as i64) >> 2),
            (_, Some(&(base, c))) if !bases.contains(&x) => {
                ((base, 1 + (c & 3) as u32), (c as i64) >> 2)
            }
            _ => ((x, 0), 0),
        };
        word_ptr.insert(r, (at.0, at.1, x));
    }
    if word_ptr.is_empty() {
        return 0;
    }
    // Exactly the memory operands `Aligned 4`.
    let aligned4 = |o: &[Operand]| {
        o == [
            Operand::MemoryAccess(spirv::MemoryAccess::ALIGNED),
            Operand::LiteralBit32(4),
        ]
    };
    let function_ptr: HashSet<Word> = f
        .blocks
        .first()
        .map(|b| {
            b.instructions
                .iter()
                .filter(|i| is_function_var(i))
                .filter_map(|i| i.result_id)
                .collect()
        })
        .unwrap_or_default();
    // (block, the group's place, base address, components, [(place, component)], stores): loads at
    // the first load's place, stores at the last store's.
    type Group = (usize, usize, Word, u32, Vec<(usize, u32)>, bool);
    type Key = ((Word, u32), bool);
    // Each access of an open group: (place, word offset, address).
    type Open = HashMap<Key, Vec<(usize, i64, Word)>>;
    let mut found: Vec<Group> = Vec::new();
    for (bi, blk) in f.blocks.iter().enumerate() {
        // Where this block defines each id (a masked group's vector goes through the address of its
        // lowest word, which must be defined before the group's place).
        let defined: HashMap<Word, usize> = blk
            .instructions
            .iter()
            .enumerate()
            .filter_map(|(k, i)| Some((i.result_id?, k)))
            .collect();
        // Open groups by (key, stores). A store closes every other group, so at most one store group
        // is open: its key.
        let mut open: Open = HashMap::default();
        let mut open_store: Option<(Word, u32)> = None;
        let mut close = |open: &mut Open, key: Key| {
            let Some(mut g) = open.remove(&key) else {
                return;
            };
            g.sort_by_key(|&(_, k, _)| k);
            // Runs of consecutive words, cut into groups of at most 4 from the lowest (D247: the
            // accesses of one base at several instruction offsets are one open group).
            let mut runs: Vec<&[(usize, i64, Word)]> = Vec::new();
            let mut from = 0;
            for j in 1..=g.len() {
                if j == g.len() || g[j].1 != g[j - 1].1 + 1 || j - from == 4 {
                    runs.push(&g[from..j]);
                    from = j;
                }
            }
            for g in runs {
                let n = g.len();
                if n < 2 {
                    continue;
                }
                let (low, lowest) = (g[0].1, g[0].2);
                let place = if key.1 {
                    g.iter().map(|&(p, _, _)| p).max()
                } else {
                    g.iter().map(|&(p, _, _)| p).min()
                }
                .unwrap_or(0);
                let base = if key.0 .1 == 0 && low == 0 {
                    // `base + 4k` from the base: it dominates every address of the group.
                    key.0 .0
                } else {
                    // Through the lowest word's own address, defined before the group's place.
                    if defined.get(&lowest).is_some_and(|&d| d >= place) {
                        continue;
                    }
                    lowest
                };
                let comps = g.iter().map(|&(p, k, _)| (p, (k - low) as u32)).collect();
                found.push((bi, place, base, n as u32, comps, key.1));
            }
        };
        let all = |open: &Open| -> Vec<Key> { open.keys().copied().collect() };
        for (k, i) in blk.instructions.iter().enumerate() {
            let op = i.class.opcode;
            let ptr = i.operands.first().and_then(id);
            let word = ptr.and_then(|p| word_ptr.get(&p)).copied();
            let access = match (op, word) {
                (Op::Load, Some(w))
                    if i.result_type == Some(u32_) && aligned4(&i.operands[1..]) =>
                {
                    Some((w, false))
                }
                (Op::Store, Some(w)) if aligned4(&i.operands[2..]) => Some((w, true)),
                _ => None,
            };
            if let Some(((base, off, addr), store)) = access {
                // A load reads memory: no store group may move past it; a store writes it: no load
                // group and no store group of another base may.
                if store {
                    for key in all(&open) {
                        if key != (base, true) {
                            close(&mut open, key);
                        }
                    }
                } else if let Some(b) = open_store.take() {
                    close(&mut open, (b, true));
                }
                // A second access of one word: the group so far closes, a new one starts.
                if open
                    .get(&(base, store))
                    .is_some_and(|g| g.iter().any(|&(_, o, _)| o == off))
                {
                    close(&mut open, (base, store));
                }
                open.entry((base, store)).or_default().push((k, off, addr));
                if store {
                    open_store = Some(base);
                }
                continue;
            }
            let private = ptr.is_some_and(|p| function_ptr.contains(&p));
            match op {
                Op::Store | Op::Load if private => {}
                Op::Load if plain_load(i) => {
                    if let Some(b) = open_store.take() {
                        close(&mut open, (b, true));
                    }
                }
                _ if effect_free(i, glsl) => {}
                _ => {
                    for key in all(&open) {
                        close(&mut open, key);
                    }
                    open_store = None;
                }
            }
        }
        for key in all(&open) {
            close(&mut open, key);
        }
    }
    if found.is_empty() {
        return 0;
    }
    // The access types and their pointers, made where missing (after their component type): groups of
    // 2 and 4 words are read and written as one u64 and a `v2u64` (D251: lavapipe loops over the lanes
    // once per component of a global access, so 64-bit components halve the loops), bitcast to and
    // from the words' `uvecN`; groups of 3 words as a `uvec3`.
    let ptr_to = |m: &mut Module, bound: &mut Word, to: Word| {
        let ops = vec![
            Operand::StorageClass(StorageClass::PhysicalStorageBuffer),
            Operand::IdRef(to),
        ];
        type_decl(m, bound, Op::TypePointer, ops, to)
    };
    // Per group size: the words' vector, and the type accessed with its pointer.
    let mut vec_ptr: HashMap<u32, (Word, Word, Word)> = HashMap::default();
    for n in found
        .iter()
        .map(|g| g.3)
        .collect::<std::collections::BTreeSet<u32>>()
    {
        let v = uvec_type(m, bound, u32_, n);
        let wide = match n {
            2 => u64_,
            4 => uvec_type(m, bound, u64_, 2),
            _ => v,
        };
        let p = ptr_to(m, bound, wide);
        vec_ptr.insert(n, (v, wide, p));
    }
    let mut done = 0;
    let mut by_block: HashMap<usize, Vec<Group>> = HashMap::default();
    for g in found {
        by_block.entry(g.0).or_default().push(g);
    }
    let aligned = [
        Operand::MemoryAccess(spirv::MemoryAccess::ALIGNED),
        Operand::LiteralBit32(4),
    ];
    // `v` bitcast to `to` (D251), appended to `new`; its id.
    fn recast(new: &mut Vec<Instruction>, bound: &mut Word, to: Word, v: Word) -> Word {
        let r = *bound;
        *bound += 1;
        new.push(Instruction::new(
            Op::Bitcast,
            Some(to),
            Some(r),
            vec![Operand::IdRef(v)],
        ));
        r
    }
    for (bi, gs) in by_block {
        let blk = &mut f.blocks[bi];
        // New instructions before a place; loads that become extracts; stores that go.
        let mut before: HashMap<usize, Vec<Instruction>> = HashMap::default();
        let mut extract: HashMap<usize, (Word, u32)> = HashMap::default();
        let mut gone_stores: HashSet<usize> = HashSet::default();
        for (_, at, base, n, comps, store) in gs {
            let (vty, wty, pty) = vec_ptr[&n];
            // Through the base: it dominates every access of the group (each address is computed
            // from it).
            let p = *bound;
            *bound += 1;
            let mut new = vec![Instruction::new(
                Op::ConvertUToPtr,
                Some(pty),
                Some(p),
                vec![Operand::IdRef(base)],
            )];
            if store {
                // The words' values in order: each is defined before its store, so before the last.
                let mut vals = vec![0; n as usize];
                for &(k, c) in &comps {
                    vals[c as usize] = blk.instructions[k]
                        .operands
                        .get(1)
                        .and_then(id)
                        .unwrap_or(0);
                    gone_stores.insert(k);
                }
                let mut v = *bound;
                *bound += 1;
                new.push(Instruction::new(
                    Op::CompositeConstruct,
                    Some(vty),
                    Some(v),
                    vals.into_iter().map(Operand::IdRef).collect(),
                ));
                if wty != vty {
                    v = recast(&mut new, bound, wty, v);
                }
                let mut ops = vec![Operand::IdRef(p), Operand::IdRef(v)];
                ops.extend(aligned.iter().cloned());
                new.push(Instruction::new(Op::Store, None, None, ops));
                // In place of the last store.
                gone_stores.remove(&at);
                before.insert(at, new);
                done += comps.len();
                continue;
            }
            let mut v = *bound;
            *bound += 1;
            let mut ops = vec![Operand::IdRef(p)];
            ops.extend(aligned.iter().cloned());
            new.push(Instruction::new(Op::Load, Some(wty), Some(v), ops));
            if wty != vty {
                // The words in address order: a u64's low half is the lower word (little-endian
                // memory), and a bitcast to more components puts each one's low bits first.
                v = recast(&mut new, bound, vty, v);
            }
            before.insert(at, new);
            for (k, c) in comps {
                extract.insert(k, (v, c));
            }
        }
        done += extract.len();
        let old = std::mem::take(&mut blk.instructions);
        for (k, i) in old.into_iter().enumerate() {
            let replaced = before.remove(&k);
            let store_here = replaced
                .as_ref()
                .is_some_and(|r| r.last().is_some_and(|x| x.class.opcode == Op::Store));
            if let Some(pre) = replaced {
                blk.instructions.extend(pre);
            }
            if store_here || gone_stores.contains(&k) {
                continue;
            }
            match extract.get(&k) {
                Some(&(v, c)) => blk.instructions.push(Instruction::new(
                    Op::CompositeExtract,
                    i.result_type,
                    i.result_id,
                    vec![Operand::IdRef(v), Operand::LiteralBit32(c)],
                )),
                None => blk.instructions.push(i),
            }
        }
    }
    done
}

/// Part of rewrite `a` (decision D227), run after `j`: `(t1 || t2)` chains of tests `(x & m) != 0`
/// (or `> 0`, unsigned) on the same constant mask become one test of the OR of the words:
/// `(f || ((x & m) != 0)) || ((y & m) != 0)` is `f || (((x | y) & m) != 0)` when the inner OR, both
/// tests and both ANDs have no other reader. The misaligned flag of a run of accesses joined by `j` was
/// such a chain (one test of the address's low bits per access; each link 15 words instead of 25) until
/// D242 made the flag an OR of the byte positions themselves (5 words a link). Exact: `(x & m) ≠ 0 ∨ (y & m) ≠ 0` ⟺ `(x & m) | (y & m) ≠ 0` ⟺ `((x | y) & m) ≠ 0`, and
/// `v > 0` is `v ≠ 0` for unsigned `v`; OR is associative. Returns the links merged.
fn merge_mask_tests(m: &Module, f: &mut Function, bound: &mut Word) -> usize {
    let consts = constants(m);
    let Some(boolt) = m
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == Op::TypeBool)
        .and_then(|i| i.result_id)
    else {
        return 0;
    };
    let (uses, _) = uses_and_defs(f);
    // The tests and ANDs this rewrite makes have one reader each.
    let mut made: HashSet<Word> = HashSet::default();
    let mut done = 0;
    for blk in &mut f.blocks {
        // Definitions in this block so far: id -> (opcode, result type, operands).
        let mut defs: HashMap<Word, (Op, Option<Word>, Vec<Word>)> = HashMap::default();
        let mut out: Vec<Instruction> = Vec::with_capacity(blk.instructions.len());
        for mut i in std::mem::take(&mut blk.instructions) {
            let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
            // `(x & m) != 0` or `> 0` with one reader each: (x, m, the AND's type).
            let one_use = |x: Word| uses.get(&x) == Some(&1) || made.contains(&x);
            let test = |defs: &HashMap<Word, (Op, Option<Word>, Vec<Word>)>, t: Word| {
                let (op, _, o) = defs.get(&t)?;
                if !matches!(op, Op::INotEqual | Op::UGreaterThan)
                    || o.len() != 2
                    || consts.get(&o[1]) != Some(&0)
                    || !one_use(t)
                    || !one_use(o[0])
                {
                    return None;
                }
                match defs.get(&o[0])? {
                    (Op::BitwiseAnd, ty, a) if a.len() == 2 && consts.contains_key(&a[1]) => {
                        Some((a[0], a[1], (*ty)?, o[1]))
                    }
                    _ => None,
                }
            };
            if i.class.opcode == Op::LogicalOr && ops.len() == 2 && i.operands.len() == 2 {
                for (inner, t2) in [(ops[0], ops[1]), (ops[1], ops[0])] {
                    let Some((y, m2, ty2, _)) = test(&defs, t2) else {
                        continue;
                    };
                    let Some((Op::LogicalOr, _, io)) = defs.get(&inner).cloned() else {
                        continue;
                    };
                    if io.len() != 2 || !one_use(inner) {
                        continue;
                    }
                    let found = [(io[0], io[1]), (io[1], io[0])]
                        .into_iter()
                        .find_map(|(f0, t1)| Some((f0, test(&defs, t1)?)));
                    let Some((f0, (x, m1, ty1, zero))) = found else {
                        continue;
                    };
                    if m1 != m2 || ty1 != ty2 {
                        continue;
                    }
                    let (o, a, c) = (*bound, *bound + 1, *bound + 2);
                    *bound += 3;
                    made.extend([a, c]);
                    let new = [
                        (Op::BitwiseOr, ty1, o, vec![x, y]),
                        (Op::BitwiseAnd, ty1, a, vec![o, m1]),
                        (Op::INotEqual, boolt, c, vec![a, zero]),
                    ];
                    for (op, t, r, v) in new {
                        defs.insert(r, (op, Some(t), v.clone()));
                        out.push(Instruction::new(
                            op,
                            Some(t),
                            Some(r),
                            v.into_iter().map(Operand::IdRef).collect(),
                        ));
                    }
                    i.operands = vec![Operand::IdRef(f0), Operand::IdRef(c)];
                    done += 1;
                    break;
                }
            }
            if let Some(r) = i.result_id {
                let ops: Vec<Word> = i.operands.iter().filter_map(id).collect();
                defs.insert(r, (i.class.opcode, i.result_type, ops));
            }
            out.push(i);
        }
        blk.instructions = out;
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::dr::Builder;
    use spirv::{Decoration, FunctionControl, SelectionControl};

    /// Ends the hand-built function (return, end) and runs `shrink` with the chosen passes and no
    /// outlining spans: the module and the statistics.
    fn shrink_built(mut b: Builder, p: Passes) -> (Module, ShrinkStats) {
        b.ret().unwrap();
        b.end_function().unwrap();
        let mut m = b.module();
        let st = shrink(&mut m, p, &[], &[], &HashMap::default());
        (m, st)
    }

    /// A builder with a `void()` function begun (its entry block not yet) and the types of [`tys`].
    pub(super) fn begun() -> (Builder, Tys) {
        let mut b = Builder::new();
        let t = tys(&mut b);
        b.begin_function(t.void, None, FunctionControl::NONE, t.fnt)
            .unwrap();
        (b, t)
    }

    /// A function of its own built by hand: `c` a bool and `x` a u32 read from Function variables,
    /// `new = x + 1`; then
    /// - `s1 = select(c, new, x)` read only as the true operand of `select(c, s1 * 2, x)`: replaced;
    /// - that select, `u`, is stored to a variable (observed where `c` is false): kept;
    /// - `s2 = select(c, new, x)` read only inside `if (c) { store }`: replaced;
    /// - `s3 = select(c, new, x)` read as the false operand of `select(c, x, s3)`: kept;
    /// - `s4 = select(c, new, x)` read by `LogicalAnd`-free arithmetic that is stored: kept;
    /// - `s5 = select(k, new, x)`, `k = c && d`, read only under `if (c)`: kept (`c` does not imply `k`);
    /// - `s6 = select(c, new, x)` read only under `if (k)`: replaced (`k` implies `c`).
    #[test]
    fn unguard_replaces_only_selects_observed_under_their_condition() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let one = b.constant_bit32(u32t, 1);
        let two = b.constant_bit32(u32t, 2);
        b.begin_block(None).unwrap();
        let cv = b.variable(pb, None, StorageClass::Function, None);
        let dv = b.variable(pb, None, StorageClass::Function, None);
        let xv = b.variable(pu, None, StorageClass::Function, None);
        let out: Vec<Word> = (0..6)
            .map(|_| b.variable(pu, None, StorageClass::Function, None))
            .collect();
        let c = b.load(boolt, None, cv, None, []).unwrap();
        let d = b.load(boolt, None, dv, None, []).unwrap();
        let k = b.logical_and(boolt, None, c, d).unwrap();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let new = b.i_add(u32t, None, x, one).unwrap();
        let s1 = b.select(u32t, None, c, new, x).unwrap();
        let t = b.i_mul(u32t, None, s1, two).unwrap();
        let u = b.select(u32t, None, c, t, x).unwrap();
        b.store(out[0], u, None, []).unwrap();
        let s2 = b.select(u32t, None, c, new, x).unwrap();
        let s3 = b.select(u32t, None, c, new, x).unwrap();
        let w = b.select(u32t, None, c, x, s3).unwrap();
        b.store(out[1], w, None, []).unwrap();
        let s4 = b.select(u32t, None, c, new, x).unwrap();
        let y = b.i_add(u32t, None, s4, two).unwrap();
        b.store(out[2], y, None, []).unwrap();
        let s5 = b.select(u32t, None, k, new, x).unwrap();
        let s6 = b.select(u32t, None, c, new, x).unwrap();
        // if (c) { store s2; store s5 }
        let (then1, merge1) = (b.id(), b.id());
        b.selection_merge(merge1, SelectionControl::NONE).unwrap();
        b.branch_conditional(c, then1, merge1, []).unwrap();
        b.begin_block(Some(then1)).unwrap();
        b.store(out[3], s2, None, []).unwrap();
        b.store(out[4], s5, None, []).unwrap();
        b.branch(merge1).unwrap();
        b.begin_block(Some(merge1)).unwrap();
        // if (k) { store s6 }
        let (then2, merge2) = (b.id(), b.id());
        b.selection_merge(merge2, SelectionControl::NONE).unwrap();
        b.branch_conditional(k, then2, merge2, []).unwrap();
        b.begin_block(Some(then2)).unwrap();
        b.store(out[5], s6, None, []).unwrap();
        b.branch(merge2).unwrap();
        b.begin_block(Some(merge2)).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        let mut m = b.module();
        let mut f = m.functions.pop().unwrap();
        let mut gone = HashSet::default();
        let n = unguard(
            &m,
            &speculable_functions(&m.functions, glsl_import(&m)),
            &mut f,
            &mut gone,
        );
        let selects: HashSet<Word> = f
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter(|i| i.class.opcode == Op::Select)
            .filter_map(|i| i.result_id)
            .collect();
        let expect_kept: HashSet<Word> = [u, w, s3, s4, s5].into_iter().collect();
        assert_eq!(selects, expect_kept);
        assert_eq!(n, 3);
        assert_eq!(gone, [s1, s2, s6].into_iter().collect());
        // Their uses read `new` now: `t = new * 2` and the stores inside the selections.
        let uses_new = f
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter(|i| i.operands.contains(&Operand::IdRef(new)))
            .count();
        assert_eq!(uses_new, 3 + 3, "s3, s4 and s5, then t and the two stores");
    }

    /// D261: global types, constants and variables nothing reads go, with their decorations, until
    /// none is left; a constant read only as a barrier's scope or semantics stays.
    #[test]
    fn dead_globals_removes_unread_declarations_to_a_fixed_point() {
        let (mut b, Tys { u32t, pu, .. }) = begun();
        let two = b.constant_bit32(u32t, 2);
        let sem = b.constant_bit32(u32t, 0x108);
        let len = b.constant_bit32(u32t, 77);
        let arr = b.type_array(u32t, len);
        b.decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
        let parr = b.type_pointer(None, StorageClass::Workgroup, arr);
        let unread = b.constant_bit32(u32t, 12345);
        let kept = b.constant_bit32(u32t, 6789);
        b.begin_block(None).unwrap();
        let v = b.variable(pu, None, StorageClass::Function, None);
        b.store(v, kept, None, []).unwrap();
        b.control_barrier(two, two, sem).unwrap();
        let (mut m, f, _) = finish(b);
        m.functions.push(f);
        let mut gone = HashSet::default();
        let n = dead_globals(&mut m, &mut gone);
        let left: HashSet<Word> = m
            .types_global_values
            .iter()
            .filter_map(|i| i.result_id)
            .collect();
        for r in [parr, arr, len, unread] {
            assert!(
                !left.contains(&r) && gone.contains(&r),
                "%{r} unread: removed"
            );
        }
        // And the helper's types this function does not read: bool, u64 and their pointers.
        assert_eq!(n, 4 + 4);
        for r in [two, sem, kept, u32t, pu] {
            assert!(left.contains(&r), "%{r} read: kept");
        }
        assert!(
            m.annotations.is_empty(),
            "the array's stride is not a reader; it goes with the type"
        );
    }

    /// D257: a select observed unguarded by one use (a store) keeps that use; its other uses, observed only
    /// where its condition holds, read its new value.
    #[test]
    fn unguard_rewrites_the_uses_observed_under_the_condition_of_a_select_also_observed_elsewhere()
    {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let one = b.constant_bit32(u32t, 1);
        b.begin_block(None).unwrap();
        let [cv, dv] = [0; 2].map(|_| b.variable(pb, None, StorageClass::Function, None));
        let [xv, yv, o1, o2, o3] =
            [0; 5].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let c = b.load(boolt, None, cv, None, []).unwrap();
        let d = b.load(boolt, None, dv, None, []).unwrap();
        let k = b.logical_and(boolt, None, c, d).unwrap();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let y = b.load(u32t, None, yv, None, []).unwrap();
        let new = b.i_add(u32t, None, x, one).unwrap();
        let s = b.select(u32t, None, c, new, x).unwrap();
        // Observed everywhere: the register's store.
        b.store(o1, s, None, []).unwrap();
        // Observed under `c`: a later guarded write reads it through an add.
        let t = b.i_add(u32t, None, s, one).unwrap();
        let u = b.select(u32t, None, c, t, y).unwrap();
        b.store(o2, u, None, []).unwrap();
        // Observed under `k`, which implies `c`, in the false arm: not a filter, so kept.
        let w = b.select(u32t, None, k, y, s).unwrap();
        b.store(o3, w, None, []).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        let mut m = b.module();
        let mut f = m.functions.pop().unwrap();
        let mut gone = HashSet::default();
        let n = unguard(
            &m,
            &speculable_functions(&m.functions, glsl_import(&m)),
            &mut f,
            &mut gone,
        );
        assert_eq!(n, 1, "one use rewritten");
        assert!(
            gone.is_empty(),
            "no select removed: each is observed by a store"
        );
        let ins: Vec<&Instruction> = f.blocks.iter().flat_map(|b| &b.instructions).collect();
        let reads = |r: Word, x: Word| {
            ins.iter()
                .find(|i| i.result_id == Some(r))
                .is_some_and(|i| i.operands.contains(&Operand::IdRef(x)))
        };
        assert!(
            reads(t, new) && !reads(t, s),
            "the add under `c` reads `new`"
        );
        assert!(
            reads(w, s),
            "the false arm of `select(k, y, s)` still reads the select"
        );
        assert!(ins.iter().any(|i| i.class.opcode == Op::Store
            && i.operands == [Operand::IdRef(o1), Operand::IdRef(s)]));
    }

    /// D239: through `shrink` itself (which takes the functions out of the module to rewrite them), a guard
    /// select read only by a call of a pure function whose result is read under the same condition reads
    /// its new value; one read by a call of a function that loads memory is kept. (Before D239 the set of
    /// pure functions was computed from the emptied module and both were kept.)
    #[test]
    fn shrink_unguards_through_calls_of_pure_functions_only() {
        let mut b = Builder::new();
        let t = tys(&mut b);
        let u32_fn = b.type_function(t.u32t, [t.u32t]);
        let three = b.constant_bit32(t.u32t, 3);
        let one = b.constant_bit32(t.u32t, 1);
        let ppriv = b.type_pointer(None, StorageClass::Private, t.u32t);
        let g = b.variable(ppriv, None, StorageClass::Private, None);
        // pure(x) = x * 3
        let pure_fn = b
            .begin_function(t.u32t, None, FunctionControl::NONE, u32_fn)
            .unwrap();
        let px = b.function_parameter(t.u32t).unwrap();
        b.begin_block(None).unwrap();
        let pr = b.i_mul(t.u32t, None, px, three).unwrap();
        b.ret_value(pr).unwrap();
        b.end_function().unwrap();
        // reads(x) = x + G (a load: not speculable)
        let load_fn = b
            .begin_function(t.u32t, None, FunctionControl::NONE, u32_fn)
            .unwrap();
        let lx = b.function_parameter(t.u32t).unwrap();
        b.begin_block(None).unwrap();
        let gv = b.load(t.u32t, None, g, None, []).unwrap();
        let lr = b.i_add(t.u32t, None, lx, gv).unwrap();
        b.ret_value(lr).unwrap();
        b.end_function().unwrap();
        b.begin_function(t.void, None, FunctionControl::NONE, t.fnt)
            .unwrap();
        b.begin_block(None).unwrap();
        let cv = b.variable(t.pb, None, StorageClass::Function, None);
        let xv = b.variable(t.pu, None, StorageClass::Function, None);
        let out: Vec<Word> = (0..2)
            .map(|_| b.variable(t.pu, None, StorageClass::Function, None))
            .collect();
        let c = b.load(t.boolt, None, cv, None, []).unwrap();
        let x = b.load(t.u32t, None, xv, None, []).unwrap();
        let new = b.i_add(t.u32t, None, x, one).unwrap();
        let mut guards = Vec::new();
        for (k, callee) in [pure_fn, load_fn].into_iter().enumerate() {
            let s = b.select(t.u32t, None, c, new, x).unwrap();
            let r = b.function_call(t.u32t, None, callee, [s]).unwrap();
            let w = b.select(t.u32t, None, c, r, x).unwrap();
            b.store(out[k], w, None, []).unwrap();
            guards.push(s);
        }
        let (m, st) = shrink_built(
            b,
            Passes {
                unguard: true,
                ..Passes::NONE
            },
        );
        assert_eq!(st.unguarded, 1);
        let main = m.functions.last().unwrap();
        let selects: HashSet<Word> = main
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter(|i| i.class.opcode == Op::Select)
            .filter_map(|i| i.result_id)
            .collect();
        assert!(!selects.contains(&guards[0]), "the pure call's guard went");
        assert!(
            selects.contains(&guards[1]),
            "the loading call's guard stays"
        );
        let call_args: Vec<Word> = main
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter(|i| i.class.opcode == Op::FunctionCall)
            .filter_map(|i| i.operands.get(1).and_then(id))
            .collect();
        assert_eq!(call_args, [new, guards[1]]);
    }

    /// D220: a select of two integer constants whose condition is `x && c` (or a guarded bool
    /// `select(c, x, old)`) reads `x` when the select is observed only where `c` holds; observed
    /// elsewhere (stored as it is), or with a value arm that is not a constant, it is left alone.
    #[test]
    fn unguard_reads_the_guarded_condition_of_a_select_of_two_constants() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let zero = b.constant_bit32(u32t, 0);
        let one = b.constant_bit32(u32t, 1);
        b.begin_block(None).unwrap();
        let [cv, xv, ov] = [0; 3].map(|_| b.variable(pb, None, StorageClass::Function, None));
        let vv = b.variable(pu, None, StorageClass::Function, None);
        let out: Vec<Word> = (0..4)
            .map(|_| b.variable(pu, None, StorageClass::Function, None))
            .collect();
        let c = b.load(boolt, None, cv, None, []).unwrap();
        let x = b.load(boolt, None, xv, None, []).unwrap();
        let old = b.load(boolt, None, ov, None, []).unwrap();
        let v = b.load(u32t, None, vv, None, []).unwrap();
        let guarded_add = |b: &mut Builder, s: Word, o: Word| {
            let y = b.i_add(u32t, None, v, s).unwrap();
            let w = b.select(u32t, None, c, y, v).unwrap();
            b.store(o, w, None, []).unwrap();
        };
        // s1 = (x && c) ? 1 : 0, added to v under c: reads x.
        let k1 = b.logical_and(boolt, None, x, c).unwrap();
        let s1 = b.select(u32t, None, k1, one, zero).unwrap();
        guarded_add(&mut b, s1, out[0]);
        // s2: the same, stored as it is: observed where c is false.
        let k2 = b.logical_and(boolt, None, x, c).unwrap();
        let s2 = b.select(u32t, None, k2, one, zero).unwrap();
        b.store(out[1], s2, None, []).unwrap();
        // s3 = select(c, x, old) ? 1 : 0 under c: reads x.
        let g3 = b.select(boolt, None, c, x, old).unwrap();
        let s3 = b.select(u32t, None, g3, one, zero).unwrap();
        guarded_add(&mut b, s3, out[2]);
        // s4 = (x && c) ? v : 1 under c: a value arm, left alone.
        let k4 = b.logical_and(boolt, None, x, c).unwrap();
        let s4 = b.select(u32t, None, k4, v, one).unwrap();
        guarded_add(&mut b, s4, out[3]);
        let (m, mut f, _) = finish(b);
        let mut gone = HashSet::default();
        let n = unguard(
            &m,
            &speculable_functions(&m.functions, glsl_import(&m)),
            &mut f,
            &mut gone,
        );
        let cond = |s: Word| {
            insts(&f)
                .find(|i| i.result_id == Some(s))
                .and_then(|i| i.operands.first().and_then(id))
                .unwrap()
        };
        assert_eq!([cond(s1), cond(s2), cond(s3), cond(s4)], [x, k2, x, k4]);
        // g3 itself is observed only where c holds here (its one use is s3's condition), so D193's
        // rule replaces it by x as well; in a lane module it is also the stored own bit of a mask unit.
        assert_eq!(gone, [g3].into_iter().collect());
        assert_eq!(n, 3);
    }

    /// D255: the conditions peel one after the other: VCC's bit written under `on`,
    /// `g = select(on, x && c, old)` with `c = bit && on` the lane's guard, read as `g ? 1 : 0` by an add
    /// written under `c`, reads `x` (first `g` → `x && c` where `on` holds, then `x` where `c` holds).
    #[test]
    fn unguard_peels_a_bit_written_under_on_to_the_carry() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let zero = b.constant_bit32(u32t, 0);
        let one = b.constant_bit32(u32t, 1);
        b.begin_block(None).unwrap();
        let [onv, bitv, xv, ov] =
            [0; 4].map(|_| b.variable(pb, None, StorageClass::Function, None));
        let [vv, out] = [0; 2].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let on = b.load(boolt, None, onv, None, []).unwrap();
        let bit = b.load(boolt, None, bitv, None, []).unwrap();
        let x = b.load(boolt, None, xv, None, []).unwrap();
        let old = b.load(boolt, None, ov, None, []).unwrap();
        let v = b.load(u32t, None, vv, None, []).unwrap();
        let c = b.logical_and(boolt, None, bit, on).unwrap();
        let xc = b.logical_and(boolt, None, x, c).unwrap();
        let g = b.select(boolt, None, on, xc, old).unwrap();
        let s = b.select(u32t, None, g, one, zero).unwrap();
        let y = b.i_add(u32t, None, v, s).unwrap();
        let w = b.select(u32t, None, c, y, v).unwrap();
        b.store(out, w, None, []).unwrap();
        // VCC itself is stored as written: `g` stays.
        b.store(ov, g, None, []).unwrap();
        let (m, mut f, _) = finish(b);
        let mut gone = HashSet::default();
        unguard(
            &m,
            &speculable_functions(&m.functions, glsl_import(&m)),
            &mut f,
            &mut gone,
        );
        let cond = insts(&f)
            .find(|i| i.result_id == Some(s))
            .and_then(|i| i.operands.first().and_then(id));
        assert_eq!(cond, Some(x));
        assert!(insts(&f).any(|i| i.result_id == Some(g)));
    }

    /// D255: `x == 1 ? 1 : 0` of 64-bit constants, `x` a 32-bit carry word, is `zext(x)`; of an `x` not
    /// known to be 0 or 1 it stays.
    #[test]
    fn simplify_widens_a_carry_word_selected_as_64_bits() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                u64t,
                pu,
                pw,
                ..
            },
        ) = begun();
        let pair = b.type_struct([u32t, u32t]);
        let one = b.constant_bit32(u32t, 1);
        let one64 = b.constant_bit64(u64t, 1);
        let zero64 = b.constant_bit64(u64t, 0);
        b.begin_block(None).unwrap();
        let [av, xv] = [0; 2].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let [o1, o2] = [0; 2].map(|_| b.variable(pw, None, StorageClass::Function, None));
        let a = b.load(u32t, None, av, None, []).unwrap();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let r = b.i_add_carry(pair, None, a, x).unwrap();
        let carry = b.composite_extract(u32t, None, r, [1]).unwrap();
        let e = b.i_equal(boolt, None, carry, one).unwrap();
        let s = b.select(u64t, None, e, one64, zero64).unwrap();
        b.store(o1, s, None, []).unwrap();
        let e2 = b.i_equal(boolt, None, x, one).unwrap();
        let s2 = b.select(u64t, None, e2, one64, zero64).unwrap();
        b.store(o2, s2, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        let mut gone = HashSet::default();
        simplify(&mut m, &mut f, &mut bound, &mut gone);
        let def = |r: Word| insts(&f).find(|i| i.result_id == Some(r)).unwrap();
        assert_eq!(def(s).class.opcode, Op::UConvert);
        assert_eq!(def(s).result_type, Some(u64t));
        assert_eq!(def(s).operands, [Operand::IdRef(carry)]);
        assert_eq!(def(s2).class.opcode, Op::Select);
    }

    /// D221, on a function built by hand: a block with guarded writes `store p, select(g, v, load p)`
    /// of private scalars, then a branch to a block whose phi names it.
    /// - `a`, `b` under `c` (selects and loads read once): one `if (c)` after `b`'s place storing both;
    /// - `e` under `c`, but `e` is loaded again before `b`'s place: stays a select;
    /// - `n1`, `n2` written where `c` does *not* hold (`select(c, load, v)`): one `if (c) else`-less
    ///   selection whose true arm is the merge;
    /// - `s` under `d`, alone: a selection would cost more words than its select; stays;
    /// - `u`, `w` under `k`, `u`'s select also read by an add: only `w` is a candidate; stays.
    ///
    /// The successor's phi names the block that now ends the split block.
    #[test]
    fn regroup_moves_guarded_writes_under_one_condition_into_one_selection() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let one = b.constant_bit32(u32t, 1);
        let entry = b.begin_block(None).unwrap();
        let [cv, dv, kv] = [0; 3].map(|_| b.variable(pb, None, StorageClass::Function, None));
        let [av, bv, ev, n1v, n2v, sv, uv, wv, xv, ov] =
            [0; 10].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let c = b.load(boolt, None, cv, None, []).unwrap();
        let d = b.load(boolt, None, dv, None, []).unwrap();
        let k = b.load(boolt, None, kv, None, []).unwrap();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let v = b.i_add(u32t, None, x, one).unwrap();
        let write = |b: &mut Builder, g: Word, p: Word, when: bool| {
            let old = b.load(u32t, None, p, None, []).unwrap();
            let s = if when {
                b.select(u32t, None, g, v, old).unwrap()
            } else {
                b.select(u32t, None, g, old, v).unwrap()
            };
            b.store(p, s, None, []).unwrap();
            s
        };
        write(&mut b, c, av, true);
        write(&mut b, c, ev, true);
        write(&mut b, c, n1v, false);
        let e_again = b.load(u32t, None, ev, None, []).unwrap();
        b.store(ov, e_again, None, []).unwrap();
        write(&mut b, d, sv, true);
        let su = write(&mut b, k, uv, true);
        let r = b.i_add(u32t, None, su, one).unwrap();
        b.store(ov, r, None, []).unwrap();
        write(&mut b, c, bv, true);
        write(&mut b, k, wv, true);
        write(&mut b, c, n2v, false);
        let next = b.id();
        b.branch(next).unwrap();
        b.begin_block(Some(next)).unwrap();
        let ph = b.phi(u32t, None, [(x, entry)]).unwrap();
        b.store(ov, ph, None, []).unwrap();
        let (_, mut f, mut bound) = finish(b);
        let first = bound;
        assert_eq!(regroup(&mut f, &mut bound), 4);
        assert_eq!(bound, first + 4);
        // The entry block now ends at the first selection (a, b under c: after b's place), whose body
        // stores both; the second (n1, n2 where c fails) follows in the merge block.
        let blocks: Vec<(Word, Vec<Op>)> = f
            .blocks
            .iter()
            .map(|b| {
                (
                    label(b),
                    b.instructions.iter().map(|i| i.class.opcode).collect(),
                )
            })
            .collect();
        assert_eq!(blocks.len(), 6);
        let (t1, m1, t2, m2) = (first, first + 1, first + 2, first + 3);
        assert_eq!(
            blocks.iter().map(|b| b.0).collect::<Vec<_>>(),
            [entry, t1, m1, t2, m2, next]
        );
        let term = |k: usize| f.blocks[k].instructions.last().unwrap().operands.clone();
        assert_eq!(
            term(0),
            [Operand::IdRef(c), Operand::IdRef(t1), Operand::IdRef(m1)]
        );
        assert_eq!(
            term(2),
            [Operand::IdRef(c), Operand::IdRef(m2), Operand::IdRef(t2)]
        );
        let stored = |k: usize| stores_in(&f, k);
        assert_eq!(stored(1), [(av, v), (bv, v)]);
        assert_eq!(stored(3), [(n1v, v), (n2v, v)]);
        // What stays a select: e (loaded again in between), s (alone), u and w (u's select read twice).
        let selected: Vec<Word> = insts(&f)
            .filter(|i| i.class.opcode == Op::Store)
            .filter(|i| {
                let s = id(&i.operands[1]).unwrap();
                insts(&f).any(|j| j.result_id == Some(s) && j.class.opcode == Op::Select)
            })
            .map(|i| id(&i.operands[0]).unwrap())
            .collect();
        assert_eq!(selected, [ev, sv, uv, wv]);
        // The phi of the successor names the last block of the split one.
        let phi = insts(&f).find(|i| i.result_id == Some(ph)).unwrap();
        assert_eq!(phi.operands, [Operand::IdRef(x), Operand::IdRef(m2)]);
    }

    /// D258: `promote` counts a guarded write that D221 will group at its grouped cost. A register `a`
    /// written in the entry as `store a, select(c, x, load a)`, stored again in one arm and read at a join
    /// of five predecessors: its phi (13 words) against 18 words of memory form. Alone on its condition the
    /// write keeps its load and select, so `a` is promoted; with three more writes on `c` beside it (a group
    /// of four: 6 words saved each) its memory form is 12 words and it stays in memory.
    #[test]
    fn promote_counts_guarded_writes_that_regroup_will_group() {
        let promoted = |others: usize| -> bool {
            let (
                mut b,
                Tys {
                    boolt,
                    u32t,
                    pb,
                    pu,
                    ..
                },
            ) = begun();
            b.begin_block(None).unwrap();
            let ds: Vec<Word> = (0..6)
                .map(|_| b.variable(pb, None, StorageClass::Function, None))
                .collect();
            let [av, xv, ov] = [0; 3].map(|_| b.variable(pu, None, StorageClass::Function, None));
            let rest: Vec<Word> = (0..others)
                .map(|_| b.variable(pu, None, StorageClass::Function, None))
                .collect();
            let c = b.load(boolt, None, ds[0], None, []).unwrap();
            let d: Vec<Word> = ds[1..]
                .iter()
                .map(|&v| b.load(boolt, None, v, None, []).unwrap())
                .collect();
            let x = b.load(u32t, None, xv, None, []).unwrap();
            for &p in std::iter::once(&av).chain(&rest) {
                let old = b.load(u32t, None, p, None, []).unwrap();
                let s = b.select(u32t, None, c, x, old).unwrap();
                b.store(p, s, None, []).unwrap();
            }
            // entry -> t (stores a) or b1; b1..b4 -> join or the next; all reach the join.
            let (t, join) = (b.id(), b.id());
            let bs: Vec<Word> = (0..4).map(|_| b.id()).collect();
            b.branch_conditional(d[0], t, bs[0], []).unwrap();
            b.begin_block(Some(t)).unwrap();
            b.store(av, x, None, []).unwrap();
            b.branch(join).unwrap();
            for k in 0..4 {
                b.begin_block(Some(bs[k])).unwrap();
                let next = if k == 3 { join } else { bs[k + 1] };
                b.branch_conditional(d[k + 1], join, next, []).unwrap();
            }
            b.begin_block(Some(join)).unwrap();
            let a = b.load(u32t, None, av, None, []).unwrap();
            b.store(ov, a, None, []).unwrap();
            b.ret().unwrap();
            b.end_function().unwrap();
            let mut m = b.module();
            let mut f = m.functions.pop().unwrap();
            let mut bound = m.header.as_ref().unwrap().bound;
            promote(&mut m, &mut f, &mut bound, &mut HashSet::default());
            let kept = insts(&f).any(|i| i.result_id == Some(av));
            !kept
        };
        assert!(promoted(0), "alone on its condition: the phi is cheaper");
        assert!(!promoted(3), "in a group of four: memory is cheaper");
    }

    /// D223, on a function built by hand (`c`, `d` bools, `x` a u32, all from Function variables):
    /// - `if (c) { store a, x+1; w = x+2 }`, then at its merge `p = phi(w, x)`, `q = x*3`, a load of
    ///   `r` (not stored in the arm), a store of `q` to `s` (not touched by the arm), then
    ///   `if (c) { store o, p; store o2, r }`, then at that merge `p2 = phi(p, p)`, then
    ///   `if (c) { store o, q }`: the three become one selection; `q`, the load of `r` and the store
    ///   to `s` run before it; the second arm reads `w` for `p`; `p` and `p2` are phis of the last merge
    ///   with `w` from the arm and `x` from the header;
    /// - then `if (d) { store a, x }`, a load of `a` at its merge, `if (d) { store o, that }`: one
    ///   selection, the load moved to the start of the second arm (D268: the first arm writes what it
    ///   reads, and only the second arm reads its value); the following `if (!d) { ... }` (the other
    ///   arm) stays apart; after it, `if (!d)` pairs whose merge computes from its phi `p6` a value only
    ///   the next arm reads join too (D268), the computation reading `p6` as the arm's value.
    #[test]
    fn join_merges_selections_on_one_condition_and_keeps_the_others_apart() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let one = b.constant_bit32(u32t, 1);
        let two = b.constant_bit32(u32t, 2);
        let three = b.constant_bit32(u32t, 3);
        let entry = b.begin_block(None).unwrap();
        let [cv, dv] = [0; 2].map(|_| b.variable(pb, None, StorageClass::Function, None));
        let [xv, av, rv, sv, ov, o2v] =
            [0; 6].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let c = b.load(boolt, None, cv, None, []).unwrap();
        let d = b.load(boolt, None, dv, None, []).unwrap();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let [t1, m1, t2, m2, t3, m3, t4, m4, t5, m5, t6, m6, t7, m7, t8, m8] =
            [0; 16].map(|_| b.id());
        let v = b.i_add(u32t, None, x, one).unwrap();
        b.selection_merge(m1, SelectionControl::NONE).unwrap();
        b.branch_conditional(c, t1, m1, []).unwrap();
        b.begin_block(Some(t1)).unwrap();
        b.store(av, v, None, []).unwrap();
        let w = b.i_add(u32t, None, x, two).unwrap();
        b.branch(m1).unwrap();
        b.begin_block(Some(m1)).unwrap();
        let p = b.phi(u32t, None, [(w, t1), (x, entry)]).unwrap();
        let q = b.i_mul(u32t, None, x, three).unwrap();
        let r = b.load(u32t, None, rv, None, []).unwrap();
        b.store(sv, q, None, []).unwrap();
        b.selection_merge(m2, SelectionControl::NONE).unwrap();
        b.branch_conditional(c, t2, m2, []).unwrap();
        b.begin_block(Some(t2)).unwrap();
        b.store(ov, p, None, []).unwrap();
        b.store(o2v, r, None, []).unwrap();
        b.branch(m2).unwrap();
        b.begin_block(Some(m2)).unwrap();
        let p2 = b.phi(u32t, None, [(p, t2), (p, m1)]).unwrap();
        b.selection_merge(m3, SelectionControl::NONE).unwrap();
        b.branch_conditional(c, t3, m3, []).unwrap();
        b.begin_block(Some(t3)).unwrap();
        b.store(ov, q, None, []).unwrap();
        b.branch(m3).unwrap();
        b.begin_block(Some(m3)).unwrap();
        b.store(ov, p2, None, []).unwrap();
        b.selection_merge(m4, SelectionControl::NONE).unwrap();
        b.branch_conditional(d, t4, m4, []).unwrap();
        b.begin_block(Some(t4)).unwrap();
        b.store(av, x, None, []).unwrap();
        b.branch(m4).unwrap();
        b.begin_block(Some(m4)).unwrap();
        let y = b.load(u32t, None, av, None, []).unwrap();
        b.selection_merge(m5, SelectionControl::NONE).unwrap();
        b.branch_conditional(d, t5, m5, []).unwrap();
        b.begin_block(Some(t5)).unwrap();
        b.store(ov, y, None, []).unwrap();
        b.branch(m5).unwrap();
        b.begin_block(Some(m5)).unwrap();
        b.selection_merge(m6, SelectionControl::NONE).unwrap();
        b.branch_conditional(d, m6, t6, []).unwrap();
        b.begin_block(Some(t6)).unwrap();
        let z = b.i_add(u32t, None, x, three).unwrap();
        b.store(ov, z, None, []).unwrap();
        b.branch(m6).unwrap();
        b.begin_block(Some(m6)).unwrap();
        let p6 = b.phi(u32t, None, [(z, t6), (x, m5)]).unwrap();
        let u = b.i_add(u32t, None, p6, one).unwrap();
        b.selection_merge(m7, SelectionControl::NONE).unwrap();
        b.branch_conditional(d, m7, t7, []).unwrap();
        b.begin_block(Some(t7)).unwrap();
        b.store(ov, u, None, []).unwrap();
        b.branch(m7).unwrap();
        b.begin_block(Some(m7)).unwrap();
        b.selection_merge(m8, SelectionControl::NONE).unwrap();
        b.branch_conditional(d, m8, t8, []).unwrap();
        b.begin_block(Some(t8)).unwrap();
        b.store(ov, x, None, []).unwrap();
        b.branch(m8).unwrap();
        b.begin_block(Some(m8)).unwrap();
        let (m, mut f, _) = finish(b);
        let before = insts(&f).count();
        // The first three, m4 with m5, and m6, m7 and m8 (five joins); the `if (!d)` after m5 stays.
        assert_eq!(join(&m, &mut f, &HashSet::default()), 5);
        let labels: Vec<Word> = f.blocks.iter().map(label).collect();
        assert_eq!(labels, [entry, t1, m3, t4, m5, t6, m8]);
        let ops = |k: usize| -> Vec<(Op, Vec<Operand>)> {
            f.blocks[k]
                .instructions
                .iter()
                .map(|i| (i.class.opcode, i.operands.clone()))
                .collect()
        };
        let ref_ = |xs: &[Word]| xs.iter().map(|&x| Operand::IdRef(x)).collect::<Vec<_>>();
        // The header: M1's body (q, the load of r, the store to s) before the selection, which merges at m3.
        let entry_ops = ops(0);
        let n = entry_ops.len();
        assert_eq!(
            entry_ops[n - 5..].iter().map(|o| o.0).collect::<Vec<_>>(),
            [
                Op::IMul,
                Op::Load,
                Op::Store,
                Op::SelectionMerge,
                Op::BranchConditional
            ]
        );
        assert_eq!(entry_ops[n - 1].1, ref_(&[c, t1, m3]));
        assert_eq!(entry_ops[n - 2].1[0], Operand::IdRef(m3));
        // The arm: its own work, then the second arm's with p read as w, then the third's.
        let stores: Vec<Vec<Operand>> = ops(1)
            .into_iter()
            .filter(|o| o.0 == Op::Store)
            .map(|o| o.1)
            .collect();
        assert_eq!(
            stores,
            [
                ref_(&[av, v]),
                ref_(&[ov, w]),
                ref_(&[o2v, r]),
                ref_(&[ov, q])
            ]
        );
        assert_eq!(ops(1).last().unwrap().1, ref_(&[m3]));
        // The last merge holds both phis, their values from the arm and from the header.
        let phis: Vec<(Word, Vec<Operand>)> = f.blocks[2]
            .instructions
            .iter()
            .filter(|i| i.class.opcode == Op::Phi)
            .map(|i| (i.result_id.unwrap(), i.operands.clone()))
            .collect();
        assert_eq!(
            phis,
            [
                (p, ref_(&[w, t1, x, entry])),
                (p2, ref_(&[w, t1, x, entry]))
            ]
        );
        // D268: the second `if (d)` arm starts with m4's load of `a`, after the first arm's store to it.
        let t4_ops: Vec<(Op, Vec<Operand>)> = ops(3);
        assert_eq!(
            t4_ops.iter().map(|o| o.0).collect::<Vec<_>>(),
            [Op::Store, Op::Load, Op::Store, Op::Branch]
        );
        assert_eq!(t4_ops[0].1, ref_(&[av, x]));
        assert_eq!(t4_ops[1].1, ref_(&[av]));
        assert_eq!(t4_ops[2].1, ref_(&[ov, y]));
        assert_eq!(
            ops(2).last().unwrap().1,
            ref_(&[d, t4, m5]),
            "if (d) after a merge that only loads for the next arm joins it"
        );
        // The `if (!d)` arm holds its own store, then `u` computed from z (p6's value from the arm),
        // then the two stores after it; m5's selection merges at m8.
        assert_eq!(ops(4).iter().rev().nth(1).unwrap().1[0], Operand::IdRef(m8));
        assert_eq!(ops(4).last().unwrap().1, ref_(&[d, m8, t6]));
        let t6_ops = ops(5);
        assert_eq!(
            t6_ops.iter().map(|o| o.0).collect::<Vec<_>>(),
            [
                Op::IAdd,
                Op::Store,
                Op::IAdd,
                Op::Store,
                Op::Store,
                Op::Branch
            ]
        );
        assert_eq!(t6_ops[2].1, ref_(&[z, one]));
        assert_eq!(t6_ops[3].1, ref_(&[ov, u]));
        assert_eq!(t6_ops.last().unwrap().1, ref_(&[m8]));
        // Nothing lost but two labels, two merges and two branches per join.
        assert_eq!(insts(&f).count(), before - 5 * 3);
    }

    /// D269, on a function built by hand (`c`, `d` bools, `x`, `y` u32s):
    /// `if (c) { if (c) { store o, x } ; p = phi(x, y); if (!c) { store o, y } }; if (!c) { store o, y };
    /// if (!d) { if (!d) { store o, x } }`: the inner `if (c)` is its arm (its phi keeps the arm's value
    /// only), and so is the inner `if (!d)` (d known false); the `if (!c)` after the inner merge stays (c
    /// is known true there, which would skip its arm: never rewritten), and so does the `if (!c)` after
    /// the outer merge (reached with c either way: the outer merge is not only the false side's).
    #[test]
    fn known_branches_run_the_arm_of_a_test_already_decided() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let entry = b.begin_block(None).unwrap();
        let [cv, dv] = [0; 2].map(|_| b.variable(pb, None, StorageClass::Function, None));
        let [xv, yv, ov] = [0; 3].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let c = b.load(boolt, None, cv, None, []).unwrap();
        let d = b.load(boolt, None, dv, None, []).unwrap();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let y = b.load(u32t, None, yv, None, []).unwrap();
        let [t1, m1, t2, m2, t3, m3, t4, m4, t5, m5, t6, m6] = [0; 12].map(|_| b.id());
        let sel = |b: &mut rspirv::dr::Builder, cond: Word, t: Word, e: Word, m: Word| {
            b.selection_merge(m, SelectionControl::NONE).unwrap();
            b.branch_conditional(cond, t, e, []).unwrap();
        };
        sel(&mut b, c, t1, m1, m1);
        b.begin_block(Some(t1)).unwrap();
        sel(&mut b, c, t2, m2, m2);
        b.begin_block(Some(t2)).unwrap();
        b.store(ov, x, None, []).unwrap();
        b.branch(m2).unwrap();
        b.begin_block(Some(m2)).unwrap();
        let p = b.phi(u32t, None, [(x, t2), (y, t1)]).unwrap();
        b.store(ov, p, None, []).unwrap();
        sel(&mut b, c, m3, t3, m3);
        b.begin_block(Some(t3)).unwrap();
        b.store(ov, y, None, []).unwrap();
        b.branch(m3).unwrap();
        b.begin_block(Some(m3)).unwrap();
        b.branch(m1).unwrap();
        b.begin_block(Some(m1)).unwrap();
        sel(&mut b, c, m4, t4, m4);
        b.begin_block(Some(t4)).unwrap();
        b.store(ov, y, None, []).unwrap();
        b.branch(m4).unwrap();
        b.begin_block(Some(m4)).unwrap();
        sel(&mut b, d, m5, t5, m5);
        b.begin_block(Some(t5)).unwrap();
        sel(&mut b, d, m6, t6, m6);
        b.begin_block(Some(t6)).unwrap();
        b.store(ov, x, None, []).unwrap();
        b.branch(m6).unwrap();
        b.begin_block(Some(m6)).unwrap();
        b.branch(m5).unwrap();
        b.begin_block(Some(m5)).unwrap();
        let (_, mut f, _) = finish(b);
        assert_eq!(known_branches(&mut f), 2);
        let block = |l: Word| f.blocks.iter().find(|b| label(b) == l).unwrap();
        let tail = |l: Word| -> Vec<(Op, Vec<Operand>)> {
            let b = block(l);
            b.instructions[b.instructions.len().saturating_sub(2)..]
                .iter()
                .map(|i| (i.class.opcode, i.operands.clone()))
                .collect()
        };
        let ids = |xs: &[Word]| xs.iter().map(|&x| Operand::IdRef(x)).collect::<Vec<_>>();
        // The decided tests: plain branches to their arms.
        assert_eq!(tail(t1), [(Op::Branch, ids(&[t2]))]);
        assert_eq!(tail(t5), [(Op::Branch, ids(&[t6]))]);
        // The phi keeps the arm's value alone.
        let phi = &block(m2).instructions[0];
        assert_eq!(
            (phi.result_id, phi.operands.clone()),
            (Some(p), ids(&[x, t2]))
        );
        // Kept: the test whose known side is its merge, and the one reached with c either way.
        assert_eq!(tail(m2)[1], (Op::BranchConditional, ids(&[c, m3, t3])));
        assert_eq!(tail(m1)[1], (Op::BranchConditional, ids(&[c, m4, t4])));
        assert_eq!(tail(entry)[1], (Op::BranchConditional, ids(&[c, t1, m1])));
        assert_eq!(tail(m4)[1], (Op::BranchConditional, ids(&[d, m5, t5])));
    }

    /// D268's limits, one `if (c)` pair each after `if (c) { store a, x }`: moved (the merge loads `a`
    /// and multiplies, only the second arm reads the product: both start the second arm, in order);
    /// kept apart when the loaded value is read after the second merge too, when a store to a
    /// variable the arm does not touch would go before the first arm while the load goes after it (the
    /// load would read the store's value), and when the merge stores to what the first arm stores.
    #[test]
    fn join_moves_what_only_the_next_arm_reads_after_the_first_arm() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let three = b.constant_bit32(u32t, 3);
        b.begin_block(None).unwrap();
        let cv = b.variable(pb, None, StorageClass::Function, None);
        let [xv, av, ov, o2v] = [0; 4].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let x = b.load(u32t, None, xv, None, []).unwrap();
        // Four pairs, each on a condition of its own (so that no pair joins the next):
        // `if (c) { store a, x }`, then the merge's `body`, then `if (c) { arm }`, then `after` at the
        // second merge.
        type Emit<'a> = &'a dyn Fn(&mut rspirv::dr::Builder) -> Vec<Word>;
        type Use<'a> = &'a dyn Fn(&mut rspirv::dr::Builder, &[Word]);
        let pair = |b: &mut rspirv::dr::Builder, body: Emit, arm: Use, after: Use| -> [Word; 4] {
            let c = b.load(boolt, None, cv, None, []).unwrap();
            let [t1, m1, t2, m2] = [0; 4].map(|_| b.id());
            b.selection_merge(m1, SelectionControl::NONE).unwrap();
            b.branch_conditional(c, t1, m1, []).unwrap();
            b.begin_block(Some(t1)).unwrap();
            b.store(av, x, None, []).unwrap();
            b.branch(m1).unwrap();
            b.begin_block(Some(m1)).unwrap();
            let vals = body(b);
            b.selection_merge(m2, SelectionControl::NONE).unwrap();
            b.branch_conditional(c, t2, m2, []).unwrap();
            b.begin_block(Some(t2)).unwrap();
            arm(b, &vals);
            b.branch(m2).unwrap();
            b.begin_block(Some(m2)).unwrap();
            after(b, &vals);
            [t1, m1, t2, m2]
        };
        let load_a = |b: &mut rspirv::dr::Builder| vec![b.load(u32t, None, av, None, []).unwrap()];
        let none = |_: &mut rspirv::dr::Builder, _: &[Word]| {};
        // 1: moved.
        let moved = pair(
            &mut b,
            &|b| {
                let y = b.load(u32t, None, av, None, []).unwrap();
                vec![y, b.i_mul(u32t, None, y, three).unwrap()]
            },
            &|b, v| b.store(ov, v[1], None, []).unwrap(),
            &none,
        );
        // 2: the loaded value read after the second merge.
        let read_after = pair(
            &mut b,
            &load_a,
            &|b, v| b.store(ov, v[0], None, []).unwrap(),
            &|b, v| b.store(o2v, v[0], None, []).unwrap(),
        );
        // 3: a store that would go first, a load that would go after it.
        let store_first = pair(
            &mut b,
            &|b| {
                let y = b.load(u32t, None, av, None, []).unwrap();
                b.store(o2v, x, None, []).unwrap();
                vec![y]
            },
            &|b, v| b.store(ov, v[0], None, []).unwrap(),
            &none,
        );
        // 4: the merge stores to what the first arm stores.
        let stores_a = pair(
            &mut b,
            &|b| {
                b.store(av, three, None, []).unwrap();
                vec![]
            },
            &|b, _| b.store(ov, x, None, []).unwrap(),
            &none,
        );
        let (m, mut f, _) = finish(b);
        assert_eq!(join(&m, &mut f, &HashSet::default()), 1);
        let labels: Vec<Word> = f.blocks.iter().map(label).collect();
        assert!(!labels.contains(&moved[1]) && !labels.contains(&moved[2]));
        for kept in [read_after, store_first, stores_a] {
            assert!(
                kept.iter().all(|l| labels.contains(l)),
                "{kept:?} kept apart"
            );
        }
        let arm = &f.blocks[labels.iter().position(|&l| l == moved[0]).unwrap()];
        assert_eq!(
            arm.instructions
                .iter()
                .map(|i| i.class.opcode)
                .collect::<Vec<_>>(),
            [Op::Store, Op::Load, Op::IMul, Op::Store, Op::Branch]
        );
    }

    /// D273: a remainder or a quotient of two constants is its constant (`7 mod 3 = 1`, `7 / 3 = 2`,
    /// hand-worked); by zero, or of a value that is not a constant, it stays.
    #[test]
    fn simplify_folds_remainders_and_quotients_of_constants() {
        let (mut b, t) = begun();
        let u32t = t.u32t;
        let (zero, three, seven) = (
            b.constant_bit32(u32t, 0),
            b.constant_bit32(u32t, 3),
            b.constant_bit32(u32t, 7),
        );
        b.begin_block(None).unwrap();
        let xv = b.variable(t.pu, None, StorageClass::Function, None);
        let o = b.variable(t.pu, None, StorageClass::Function, None);
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let r = b.u_mod(u32t, None, seven, three).unwrap();
        let q = b.u_div(u32t, None, seven, three).unwrap();
        let by0 = b.u_mod(u32t, None, seven, zero).unwrap();
        let rx = b.u_mod(u32t, None, x, three).unwrap();
        for v in [r, q, by0, rx] {
            b.store(o, v, None, []).unwrap();
        }
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(
            simplify(&mut m, &mut f, &mut bound, &mut HashSet::default()),
            2
        );
        let konst: HashMap<Word, u32> = m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Constant)
            .filter_map(|i| match i.operands.first() {
                Some(Operand::LiteralBit32(v)) => Some((i.result_id?, *v)),
                _ => None,
            })
            .collect();
        let stored: Vec<Word> = insts(&f)
            .filter(|i| i.class.opcode == Op::Store)
            .filter_map(|i| id(&i.operands[1]))
            .collect();
        assert_eq!(konst.get(&stored[0]), Some(&1));
        assert_eq!(konst.get(&stored[1]), Some(&2));
        assert_eq!(stored[2..], [by0, rx]);
    }

    /// D224: `((x & m) << k)` compared with 0 (`>`, `==`, `!=`, unsigned) compares `x & m` when no bit
    /// of `m` is shifted out (the misaligned test `((address & 3) << 3) > 0`); with `m = 0xf000_0000`
    /// and `k = 4` every bit of the mask leaves the word, and the comparison stays.
    #[test]
    fn simplify_compares_a_shifted_mask_without_the_shift() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let zero = b.constant_bit32(u32t, 0);
        let three = b.constant_bit32(u32t, 3);
        let four = b.constant_bit32(u32t, 4);
        let top = b.constant_bit32(u32t, 0xf000_0000);
        b.begin_block(None).unwrap();
        let xv = b.variable(pu, None, StorageClass::Function, None);
        let [o1, o2, o3, o4] = [0; 4].map(|_| b.variable(pb, None, StorageClass::Function, None));
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let low = b.bitwise_and(u32t, None, x, three).unwrap();
        let sh = b.shift_left_logical(u32t, None, low, three).unwrap();
        let gt = b.u_greater_than(boolt, None, sh, zero).unwrap();
        b.store(o1, gt, None, []).unwrap();
        let eq = b.i_equal(boolt, None, sh, zero).unwrap();
        b.store(o2, eq, None, []).unwrap();
        let ne = b.i_not_equal(boolt, None, sh, zero).unwrap();
        b.store(o3, ne, None, []).unwrap();
        let hi = b.bitwise_and(u32t, None, top, x).unwrap();
        let sh2 = b.shift_left_logical(u32t, None, hi, four).unwrap();
        let gt2 = b.u_greater_than(boolt, None, sh2, zero).unwrap();
        b.store(o4, gt2, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        let mut gone = HashSet::default();
        assert_eq!(simplify(&mut m, &mut f, &mut bound, &mut gone), 3);
        let first = |x: Word| def_of(&f, x).operands[0].clone();
        assert_eq!(first(gt), Operand::IdRef(low));
        assert_eq!(first(eq), Operand::IdRef(low));
        assert_eq!(first(ne), Operand::IdRef(low));
        assert_eq!(first(gt2), Operand::IdRef(sh2));
    }

    /// D225, rewrite `r` on a function built by hand (`c`, `d` bools, `x` a u32, `v = x + 1`):
    /// - under `d`: `a` (its select read again after the group), `b`, `e` (its select read before the
    ///   group's end) and `f`: `a`, `b`, `f` move into one `if (d)`; `a`'s later reader reads a load of
    ///   `a` placed right after that selection; `e` stays a select;
    /// - under `c`, before the block's closing `if (c) T`: `w` (nothing after it touches `w`) runs
    ///   first in `T`, without a selection of its own; `w2` (loaded again after it) stays a select.
    #[test]
    fn regroup_reloads_selects_read_later_and_sinks_writes_into_the_closing_arm() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let one = b.constant_bit32(u32t, 1);
        b.begin_block(None).unwrap();
        let [cv, dv] = [0; 2].map(|_| b.variable(pb, None, StorageClass::Function, None));
        let [av, bv, ev, fv, wv, w2v, xv, ov] =
            [0; 8].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let c = b.load(boolt, None, cv, None, []).unwrap();
        let d = b.load(boolt, None, dv, None, []).unwrap();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let v = b.i_add(u32t, None, x, one).unwrap();
        let write = |b: &mut Builder, g: Word, p: Word| {
            let old = b.load(u32t, None, p, None, []).unwrap();
            let s = b.select(u32t, None, g, v, old).unwrap();
            b.store(p, s, None, []).unwrap();
            s
        };
        let sa = write(&mut b, d, av);
        write(&mut b, d, bv);
        let se = write(&mut b, d, ev);
        b.store(ov, se, None, []).unwrap();
        write(&mut b, d, fv);
        let r = b.i_add(u32t, None, sa, one).unwrap();
        b.store(ov, r, None, []).unwrap();
        write(&mut b, c, wv);
        write(&mut b, c, w2v);
        let again = b.load(u32t, None, w2v, None, []).unwrap();
        b.store(ov, again, None, []).unwrap();
        let (t, m) = (b.id(), b.id());
        b.selection_merge(m, SelectionControl::NONE).unwrap();
        b.branch_conditional(c, t, m, []).unwrap();
        b.begin_block(Some(t)).unwrap();
        b.store(ov, x, None, []).unwrap();
        b.branch(m).unwrap();
        b.begin_block(Some(m)).unwrap();
        let (_, mut f, mut bound) = finish(b);
        let first = bound;
        assert_eq!(regroup(&mut f, &mut bound), 4);
        // The selection's arm and merge, and the reload.
        assert_eq!(bound, first + 3);
        let (arm, merge, reload) = (first, first + 1, first + 2);
        let labels: Vec<Word> = f.blocks.iter().map(label).collect();
        assert_eq!(labels[1..], [arm, merge, t, m]);
        let stored = |k: usize| stores_in(&f, k);
        assert_eq!(stored(1), [(av, v), (bv, v), (fv, v)]);
        assert_eq!(stored(3), [(wv, v), (ov, x)]);
        // The merge block starts with the reload of `a`, which `a`'s later reader now reads.
        let head = &f.blocks[2].instructions[0];
        assert_eq!(
            (head.class.opcode, head.result_id, id(&head.operands[0])),
            (Op::Load, Some(reload), Some(av))
        );
        assert_eq!(def_of(&f, r).operands[0], Operand::IdRef(reload));
        // What stays a select: e (and the store of it to o) and w2.
        let selected: Vec<Word> = insts(&f)
            .filter(|i| i.class.opcode == Op::Store)
            .filter(|i| {
                let s = id(&i.operands[1]).unwrap();
                insts(&f).any(|j| j.result_id == Some(s) && j.class.opcode == Op::Select)
            })
            .map(|i| id(&i.operands[0]).unwrap())
            .collect();
        assert_eq!(selected, [ev, ov, w2v]);
    }

    /// D259: the arm a guarded write keeps is the value its variable holds, wherever that was learnt: `a`
    /// loaded in the entry block (the load read by the select alone), `b` never written (its initializer,
    /// a constant), both written under `c` in the next block: one selection (10 + 6 words saved for 13). `e` loaded in the entry and written under `c` after a join one of
    /// whose arms stored it: `e`'s old value is no longer known there, so its write stays a select (with
    /// the same-block rule of D221 none of the three was grouped).
    #[test]
    fn regroup_takes_the_value_a_variable_holds_from_an_earlier_block() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let one = b.constant_bit32(u32t, 1);
        let seven = b.constant_bit32(u32t, 7);
        b.begin_block(None).unwrap();
        let [cv, dv] = [0; 2].map(|_| b.variable(pb, None, StorageClass::Function, None));
        let [av, ev, e2v, xv, ov] =
            [0; 5].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let bv = b.variable(pu, None, StorageClass::Function, Some(seven));
        let c = b.load(boolt, None, cv, None, []).unwrap();
        let d = b.load(boolt, None, dv, None, []).unwrap();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let v = b.i_add(u32t, None, x, one).unwrap();
        let la = b.load(u32t, None, av, None, []).unwrap();
        let le = b.load(u32t, None, ev, None, []).unwrap();
        let le2 = b.load(u32t, None, e2v, None, []).unwrap();
        b.store(ov, x, None, []).unwrap();
        let next = b.id();
        b.branch(next).unwrap();
        b.begin_block(Some(next)).unwrap();
        let sa = b.select(u32t, None, c, v, la).unwrap();
        b.store(av, sa, None, []).unwrap();
        let sb = b.select(u32t, None, c, v, seven).unwrap();
        b.store(bv, sb, None, []).unwrap();
        let (t, m) = (b.id(), b.id());
        b.selection_merge(m, SelectionControl::NONE).unwrap();
        b.branch_conditional(d, t, m, []).unwrap();
        b.begin_block(Some(t)).unwrap();
        b.store(ev, x, None, []).unwrap();
        b.branch(m).unwrap();
        b.begin_block(Some(m)).unwrap();
        let se = b.select(u32t, None, c, v, le).unwrap();
        b.store(ev, se, None, []).unwrap();
        let se2 = b.select(u32t, None, c, v, le2).unwrap();
        b.store(e2v, se2, None, []).unwrap();
        let (_, mut f, mut bound) = finish(b);
        let first = bound;
        assert_eq!(regroup(&mut f, &mut bound), 2, "a and b");
        let (arm, merge) = (first, first + 1);
        let labels: Vec<Word> = f.blocks.iter().map(label).collect();
        assert_eq!(labels[1..], [next, arm, merge, t, m]);
        let stored = |k: usize| stores_in(&f, k);
        assert_eq!(stored(2), [(av, v), (bv, v)]);
        // `e` (its old value unknown after the join) and `e2` (alone on `c` in its block) stay selects.
        assert_eq!(stored(5), [(ev, se), (e2v, se2)]);
    }

    /// D226, on a function built by hand (`a`, `b2`, `b3`, `b4` u64 addresses from Function variables;
    /// every load a u32 `Aligned 4` through `OpConvertUToPtr`):
    /// - `a + 8`, `a`, (a store to a Function variable), `a + 12`, `a + 4`: one `uvec4` load through `a`
    ///   at the first load's place, the four loads its components 2, 0, 3, 1;
    /// - `b2`, (a store through a PhysicalStorageBuffer pointer), `b2 + 4`: kept (memory written between);
    /// - `b3 + 4`, `b3 + 8`: one `uvec2` load through `b3 + 4`'s own address (D247; D226 kept them, no
    ///   word at the address itself); `b4`, `b4 + 8`: kept (a gap);
    ///
    /// and stores (values `s0..s3` loaded from Function variables):
    /// - `c + 4`, `c`, (a store to a Function variable), `c + 12`, `c + 8`: one `uvec4` store of
    ///   `(s0, s1, s2, s3)` through `c` at the last store's place;
    /// - `d`, (a load through a PhysicalStorageBuffer pointer), `d + 4`: kept (memory read between);
    /// - `e`, (a store to `g`), `e + 4`: kept (another store between).
    #[test]
    fn wide_words_read_consecutive_words_as_one_vector() {
        let (
            mut b,
            Tys {
                u32t, u64t, pu, pw, ..
            },
        ) = begun();
        let psb = b.type_pointer(None, StorageClass::PhysicalStorageBuffer, u32t);
        let k = [4u32, 8, 12].map(|x| b.constant_bit64(u64t, x as u64));
        b.begin_block(None).unwrap();
        let [av, b2v, b3v, b4v] =
            [0; 4].map(|_| b.variable(pw, None, StorageClass::Function, None));
        let ov = b.variable(pu, None, StorageClass::Function, None);
        let [a, b2, b3, b4] = [av, b2v, b3v, b4v].map(|v| b.load(u64t, None, v, None, []).unwrap());
        let at = |b: &mut Builder, base: Word, off: usize| -> Word {
            let addr = if off == 0 {
                base
            } else {
                b.i_add(u64t, None, base, k[off / 4 - 1]).unwrap()
            };
            word_load(b, u32t, psb, addr)
        };
        let w8 = at(&mut b, a, 8);
        let w0 = at(&mut b, a, 0);
        b.store(ov, w0, None, []).unwrap();
        let w12 = at(&mut b, a, 12);
        let w4 = at(&mut b, a, 4);
        let x0 = at(&mut b, b2, 0);
        let p = b.convert_u_to_ptr(psb, None, b2).unwrap();
        b.store(
            p,
            x0,
            Some(spirv::MemoryAccess::ALIGNED),
            [Operand::LiteralBit32(4)],
        )
        .unwrap();
        let x4 = at(&mut b, b2, 4);
        let y4 = at(&mut b, b3, 4);
        let y8 = at(&mut b, b3, 8);
        let z0 = at(&mut b, b4, 0);
        let z8 = at(&mut b, b4, 8);
        let [cv, dv, ev, gv] = [0; 4].map(|_| b.variable(pw, None, StorageClass::Function, None));
        let [c, d, e, g] = [cv, dv, ev, gv].map(|v| b.load(u64t, None, v, None, []).unwrap());
        let sv = [0; 4].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let sx = sv.map(|v| b.load(u32t, None, v, None, []).unwrap());
        let put = |b: &mut Builder, base: Word, off: usize, x: Word| {
            let addr = if off == 0 {
                base
            } else {
                b.i_add(u64t, None, base, k[off / 4 - 1]).unwrap()
            };
            let p = b.convert_u_to_ptr(psb, None, addr).unwrap();
            b.store(
                p,
                x,
                Some(spirv::MemoryAccess::ALIGNED),
                [Operand::LiteralBit32(4)],
            )
            .unwrap();
        };
        put(&mut b, c, 4, sx[1]);
        put(&mut b, c, 0, sx[0]);
        b.store(ov, sx[0], None, []).unwrap();
        put(&mut b, c, 12, sx[3]);
        put(&mut b, c, 8, sx[2]);
        let last_c = b.id();
        b.copy_object(u32t, Some(last_c), sx[0]).unwrap();
        put(&mut b, d, 0, sx[0]);
        at(&mut b, g, 0);
        put(&mut b, d, 4, sx[1]);
        put(&mut b, e, 0, sx[0]);
        put(&mut b, g, 0, sx[1]);
        put(&mut b, e, 4, sx[1]);
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(wide_words(&mut m, &mut f, &mut bound), 10);
        // The stores: c's as one vector store right before the marker; the others as they were.
        let stores: Vec<&Instruction> = insts(&f)
            .filter(|i| i.class.opcode == Op::Store && !sv.contains(&id(&i.operands[0]).unwrap()))
            .filter(|i| id(&i.operands[0]) != Some(ov))
            .collect();
        // (b2's store, the vector store, d's two, e's, g's, e's)
        assert_eq!(stores.len(), 1 + 1 + 2 + 3);
        let vs = stores[1];
        let val = unwide(&f, id(&vs.operands[1]).unwrap());
        assert_eq!(
            (val.class.opcode, val.operands.clone()),
            (
                Op::CompositeConstruct,
                sx.iter().map(|&x| Operand::IdRef(x)).collect::<Vec<_>>()
            )
        );
        let vp = def_of(&f, id(&vs.operands[0]).unwrap());
        assert_eq!(vp.operands, [Operand::IdRef(c)]);
        let pos = |x: Word| insts(&f).position(|i| i.result_id == Some(x)).unwrap();
        let vs_pos = insts(&f).position(|i| std::ptr::eq(i, vs)).unwrap();
        assert_eq!(vs_pos + 1, pos(last_c));
        let comp = |x: Word| {
            let i = def_of(&f, x);
            (i.class.opcode == Op::CompositeExtract).then(|| {
                let v = id(&i.operands[0]).unwrap();
                let Operand::LiteralBit32(c) = i.operands[1] else {
                    unreachable!()
                };
                (v, c)
            })
        };
        let (v, c8) = comp(w8).expect("a + 8 is a component");
        assert_eq!(
            [comp(w0), comp(w12), comp(w4)],
            [Some((v, 0)), Some((v, 3)), Some((v, 1))]
        );
        assert_eq!(c8, 2);
        for x in [x0, x4, z0, z8] {
            assert_eq!(def_of(&f, x).class.opcode, Op::Load);
        }
        // b3's two words: components 0 and 1 of one load through the pointer of `b3 + 4`.
        let (yv, c4) = comp(y4).expect("b3 + 4 is a component");
        assert_eq!((c4, comp(y8)), (0, Some((yv, 1))));
        let yp = def_of(&f, id(&unwide(&f, yv).operands[0]).unwrap());
        let y_addr = def_of(&f, id(&yp.operands[0]).unwrap());
        assert_eq!(
            (y_addr.class.opcode, y_addr.operands.clone()),
            (Op::IAdd, vec![Operand::IdRef(b3), Operand::IdRef(k[0])])
        );
        // The vector load: 4 words through a pointer made from `a`, `Aligned 4`, before `a + 8`'s place,
        // as a `v2u64` (D251) that `v`, the words' `uvec4`, is the bitcast of.
        let words = def_of(&f, v);
        assert_eq!(words.class.opcode, Op::Bitcast);
        let load = unwide(&f, v);
        assert_eq!(load.class.opcode, Op::Load);
        assert_eq!(
            load.operands[1..],
            [
                Operand::MemoryAccess(spirv::MemoryAccess::ALIGNED),
                Operand::LiteralBit32(4)
            ]
        );
        let ptr = def_of(&f, id(&load.operands[0]).unwrap());
        assert_eq!(
            (ptr.class.opcode, ptr.operands.clone()),
            (Op::ConvertUToPtr, vec![Operand::IdRef(a)])
        );
        let ty = |t: Option<Word>| {
            m.types_global_values
                .iter()
                .find(|i| i.result_id == t)
                .unwrap()
        };
        let vty = ty(words.result_type);
        assert_eq!(
            (vty.class.opcode, vty.operands.clone()),
            (
                Op::TypeVector,
                vec![Operand::IdRef(u32t), Operand::LiteralBit32(4)]
            )
        );
        let lty = ty(load.result_type);
        assert_eq!(
            (lty.class.opcode, &lty.operands[1]),
            (Op::TypeVector, &Operand::LiteralBit32(2))
        );
        let Operand::IdRef(c64) = lty.operands[0] else {
            unreachable!()
        };
        assert_eq!(ty(Some(c64)).operands[0], Operand::LiteralBit32(64));
        assert!(pos(v) < pos(w8));
    }

    /// D247, on a function built by hand (`a`, `b`, `c` u64 addresses from Function variables, every load
    /// a u32 `Aligned 4` through `OpConvertUToPtr` of its own `x + k`, computed right before it):
    /// - `a + 16` to `a + 32` in order (five words: a `dwordx4` at offset 16 and the next word), then
    ///   `a + 48`: one `uvec4` through `a + 16`'s address; `a + 32` and `a + 48` kept (alone in their runs);
    /// - `b - 8`, `b - 4` (offsets modulo 2^64): one `uvec2` through `b - 8`'s address;
    /// - `c + 20`, then `c + 16` (the lowest word's address is computed after the group's first load):
    ///   kept.
    #[test]
    fn wide_words_group_words_at_any_offset_in_runs_of_at_most_four() {
        let (mut b, Tys { u32t, u64t, pw, .. }) = begun();
        let psb = b.type_pointer(None, StorageClass::PhysicalStorageBuffer, u32t);
        let k: HashMap<i64, Word> = [16i64, 20, 24, 28, 32, 48, -8, -4]
            .into_iter()
            .map(|x| (x, b.constant_bit64(u64t, x as u64)))
            .collect();
        b.begin_block(None).unwrap();
        let vars = [0; 3].map(|_| b.variable(pw, None, StorageClass::Function, None));
        let [a, bb, c] = vars.map(|v| b.load(u64t, None, v, None, []).unwrap());
        let at = |b: &mut Builder, base: Word, off: i64| -> (Word, Word) {
            let addr = b.i_add(u64t, None, base, k[&off]).unwrap();
            (addr, word_load(b, u32t, psb, addr))
        };
        let run: Vec<(Word, Word)> = [16, 20, 24, 28, 32].map(|o| at(&mut b, a, o)).into();
        let (_, a48) = at(&mut b, a, 48);
        let (bm8, b0) = at(&mut b, bb, -8);
        let (_, b1) = at(&mut b, bb, -4);
        let (_, c20) = at(&mut b, c, 20);
        let (_, c16) = at(&mut b, c, 16);
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(wide_words(&mut m, &mut f, &mut bound), 6);
        let comp = |x: Word| {
            let i = def_of(&f, x);
            (i.class.opcode == Op::CompositeExtract).then(|| {
                let Operand::LiteralBit32(c) = i.operands[1] else {
                    unreachable!()
                };
                (id(&i.operands[0]).unwrap(), c)
            })
        };
        let through = |v: Word| {
            let load = unwide(&f, v);
            assert_eq!(load.class.opcode, Op::Load);
            let p = def_of(&f, id(&load.operands[0]).unwrap());
            id(&p.operands[0]).unwrap()
        };
        let (v, _) = comp(run[0].1).expect("a + 16 is a component");
        for (j, &(_, w)) in run[..4].iter().enumerate() {
            assert_eq!(comp(w), Some((v, j as u32)));
        }
        assert_eq!(through(v), run[0].0);
        for x in [run[4].1, a48, c20, c16] {
            assert_eq!(def_of(&f, x).class.opcode, Op::Load);
        }
        let (bv, _) = comp(b0).expect("b - 8 is a component");
        assert_eq!((comp(b0), comp(b1)), (Some((bv, 0)), Some((bv, 1))));
        assert_eq!(through(bv), bm8);
    }

    /// D247: `common` merges a subgroup shuffle into an equal one (value and index) of the same block,
    /// never into one of a dominating block (other invocations may run the later block).
    #[test]
    fn shuffles_merge_only_within_their_block() {
        let (mut b, Tys { u32t, pu, .. }) = begun();
        let scope = b.constant_bit32(u32t, 3);
        let l1 = b.id();
        let l2 = b.id();
        b.begin_block(None).unwrap();
        let xv = b.variable(pu, None, StorageClass::Function, None);
        let out = b.variable(pu, None, StorageClass::Function, None);
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let i = b.load(u32t, None, xv, None, []).unwrap();
        let s1 = b
            .group_non_uniform_shuffle(u32t, None, scope, x, i)
            .unwrap();
        let s2 = b
            .group_non_uniform_shuffle(u32t, None, scope, x, i)
            .unwrap();
        let s3 = b
            .group_non_uniform_shuffle(u32t, None, scope, i, x)
            .unwrap();
        b.store(out, s2, None, []).unwrap();
        b.store(out, s3, None, []).unwrap();
        b.branch(l1).unwrap();
        b.begin_block(Some(l1)).unwrap();
        let s4 = b
            .group_non_uniform_shuffle(u32t, None, scope, x, i)
            .unwrap();
        b.store(out, s4, None, []).unwrap();
        b.branch(l2).unwrap();
        b.begin_block(Some(l2)).unwrap();
        let (m, mut f, _) = finish(b);
        let mut gone = HashSet::default();
        assert_eq!(common(&m, &mut f, &mut gone), 1);
        let stored: Vec<Word> = insts(&f)
            .filter(|i| i.class.opcode == Op::Store)
            .map(|i| id(&i.operands[1]).unwrap())
            .collect();
        assert_eq!(stored, [s1, s3, s4]);
        assert!(gone.contains(&s2));
    }

    /// D230, on a function built by hand (`x`, `y`, `z`, `w` u64 addresses loaded from Function variables,
    /// `m(a, c)` the scalar loads' dword address `(a + c) & !3`):
    /// - words at `m(x, 5)`, `m(x, 9)`, `m(x, 13)` (c mod 4 = 1): one 3-word load through `m(x, 5)`;
    /// - at `x & !3` and `m(x, 4)`: one 2-word load through `x & !3`;
    /// - `m(y, 8)` read before `m(y, 4)` (the lowest word's address is computed after the group's
    ///   first load): kept;
    /// - `m(z, 0)` and `m(z, 5)` (c mod 4 differs: not 4 bytes apart for every `z`): kept;
    /// - `(w + 4) & !7` and `(w + 8) & !7` (another mask): kept.
    #[test]
    fn wide_words_read_masked_dword_addresses_as_one_vector() {
        let (mut b, Tys { u32t, u64t, pw, .. }) = begun();
        let psb = b.type_pointer(None, StorageClass::PhysicalStorageBuffer, u32t);
        let dword = b.constant_bit64(u64t, !3);
        let qword = b.constant_bit64(u64t, !7);
        b.begin_block(None).unwrap();
        let vars = [0; 4].map(|_| b.variable(pw, None, StorageClass::Function, None));
        let [x, y, z, w] = vars.map(|v| b.load(u64t, None, v, None, []).unwrap());
        let at = |b: &mut Builder, base: Word, c: u64, mask: Word| -> (Word, Word) {
            let sum = if c == 0 {
                base
            } else {
                let k = b.constant_bit64(u64t, c);
                b.i_add(u64t, None, base, k).unwrap()
            };
            let addr = b.bitwise_and(u64t, None, sum, mask).unwrap();
            (word_load(b, u32t, psb, addr), addr)
        };
        let (x5, ax5) = at(&mut b, x, 5, dword);
        let (x9, _) = at(&mut b, x, 9, dword);
        let (x13, _) = at(&mut b, x, 13, dword);
        let (x0, ax0) = at(&mut b, x, 0, dword);
        let (x4, _) = at(&mut b, x, 4, dword);
        let kept = [
            at(&mut b, y, 8, dword).0,
            at(&mut b, y, 4, dword).0,
            at(&mut b, z, 0, dword).0,
            at(&mut b, z, 5, dword).0,
            at(&mut b, w, 4, qword).0,
            at(&mut b, w, 8, qword).0,
        ];
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(wide_words(&mut m, &mut f, &mut bound), 5);
        for v in kept {
            assert_eq!(def_of(&f, v).class.opcode, Op::Load);
        }
        let comp = |v: Word| {
            let i = def_of(&f, v);
            assert_eq!(i.class.opcode, Op::CompositeExtract);
            let Operand::LiteralBit32(c) = i.operands[1] else {
                unreachable!()
            };
            (id(&i.operands[0]).unwrap(), c)
        };
        let pos = |v: Word| insts(&f).position(|i| i.result_id == Some(v)).unwrap();
        for (words, addr, n) in [([x5, x9, x13].as_slice(), ax5, 3u32), (&[x0, x4], ax0, 2)] {
            let vec = comp(words[0]).0;
            for (k, &v) in words.iter().enumerate() {
                assert_eq!(comp(v), (vec, k as u32));
            }
            let load = unwide(&f, vec);
            assert_eq!(load.class.opcode, Op::Load);
            assert!(pos(vec) < pos(words[0]));
            let ptr = def_of(&f, id(&load.operands[0]).unwrap());
            assert_eq!(ptr.operands, [Operand::IdRef(addr)]);
            let ty = |t: Option<Word>| {
                m.types_global_values
                    .iter()
                    .find(|i| i.result_id == t)
                    .unwrap()
            };
            assert_eq!(
                ty(def_of(&f, vec).result_type).operands[1],
                Operand::LiteralBit32(n)
            );
            // D251: two words are read as one u64; three as a uvec3.
            let loaded = ty(load.result_type);
            match n {
                2 => assert_eq!(
                    (loaded.class.opcode, &loaded.operands[0]),
                    (Op::TypeInt, &Operand::LiteralBit32(64))
                ),
                _ => assert_eq!(loaded.class.opcode, Op::TypeVector),
            }
        }
    }

    /// D227, on a function built by hand (`f0`, `g0` bools, `x`, `y`, `z`, `p`, `r`, `u` u32 words, all
    /// loaded from Function variables):
    /// - `((f0 || (x & 3) != 0) || (y & 3) > 0) || (z & 3) != 0` becomes `f0 || ((x | y | z) & 3) != 0`
    ///   (two links merged);
    /// - `(g0 || (p & 3) != 0) || (r & 7) != 0`: kept (two masks);
    /// - `(g0 || (u & 3) != 0) || (x & 3) != 0` with the inner test also stored: kept.
    #[test]
    fn merge_mask_tests_tests_the_or_of_the_words_once() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let zero = b.constant_bit32(u32t, 0);
        let three = b.constant_bit32(u32t, 3);
        let seven = b.constant_bit32(u32t, 7);
        b.begin_block(None).unwrap();
        let [fv, gv, o1, o2, o3, o4] =
            [0; 6].map(|_| b.variable(pb, None, StorageClass::Function, None));
        let wv = [0; 6].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let f0 = b.load(boolt, None, fv, None, []).unwrap();
        let g0 = b.load(boolt, None, gv, None, []).unwrap();
        let [x, y, z, p, r, u] = wv.map(|v| b.load(u32t, None, v, None, []).unwrap());
        let test = |b: &mut Builder, w: Word, m: Word, gt: bool| {
            let a = b.bitwise_and(u32t, None, w, m).unwrap();
            if gt {
                b.u_greater_than(boolt, None, a, zero).unwrap()
            } else {
                b.i_not_equal(boolt, None, a, zero).unwrap()
            }
        };
        let t = test(&mut b, x, three, false);
        let c1 = b.logical_or(boolt, None, f0, t).unwrap();
        let t = test(&mut b, y, three, true);
        let c2 = b.logical_or(boolt, None, c1, t).unwrap();
        let t = test(&mut b, z, three, false);
        let c3 = b.logical_or(boolt, None, t, c2).unwrap();
        b.store(o1, c3, None, []).unwrap();
        let t = test(&mut b, p, three, false);
        let d1 = b.logical_or(boolt, None, g0, t).unwrap();
        let t = test(&mut b, r, seven, false);
        let d2 = b.logical_or(boolt, None, d1, t).unwrap();
        b.store(o2, d2, None, []).unwrap();
        let tu = test(&mut b, u, three, false);
        let e1 = b.logical_or(boolt, None, g0, tu).unwrap();
        let t = test(&mut b, x, three, false);
        let e2 = b.logical_or(boolt, None, e1, t).unwrap();
        b.store(o3, e2, None, []).unwrap();
        b.store(o4, tu, None, []).unwrap();
        let (m, mut f, mut bound) = finish(b);
        assert_eq!(merge_mask_tests(&m, &mut f, &mut bound), 2);
        let ids = |x: Word| -> Vec<Operand> { def_of(&f, x).operands.clone() };
        let refs = |v: &[Word]| v.iter().map(|&x| Operand::IdRef(x)).collect::<Vec<_>>();
        // c3 = f0 || ((x | y | z) & 3) != 0
        let c3o = ids(c3);
        assert_eq!(c3o[0], Operand::IdRef(f0));
        let cmp = def_of(&f, id(&c3o[1]).unwrap());
        assert_eq!(cmp.class.opcode, Op::INotEqual);
        let and = def_of(&f, id(&cmp.operands[0]).unwrap());
        assert_eq!(
            (and.class.opcode, id(&and.operands[1])),
            (Op::BitwiseAnd, Some(three))
        );
        let or2 = def_of(&f, id(&and.operands[0]).unwrap());
        assert_eq!(or2.class.opcode, Op::BitwiseOr);
        assert_eq!(id(&or2.operands[1]), Some(z));
        assert_eq!(ids(id(&or2.operands[0]).unwrap()), refs(&[x, y]));
        // The other two chains as they were.
        assert_eq!(id(&ids(d2)[0]), Some(d1));
        assert_eq!(id(&ids(e2)[0]), Some(e1));
    }

    /// D220: the carry word of `OpIAddCarry` is 0 or 1, so `carry & 1` is the carry and
    /// `(carry & 1) == 1 ? 1 : 0` too; for an unknown `x`, `x == 1 ? 1 : 0` stays.
    #[test]
    fn simplify_reads_a_carry_tested_and_selected_as_the_carry() {
        let (
            mut b,
            Tys {
                boolt, u32t, pu, ..
            },
        ) = begun();
        let pair = b.type_struct([u32t, u32t]);
        let zero = b.constant_bit32(u32t, 0);
        let one = b.constant_bit32(u32t, 1);
        b.begin_block(None).unwrap();
        let [av, bv, o1, o2] = [0; 4].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let a = b.load(u32t, None, av, None, []).unwrap();
        let x = b.load(u32t, None, bv, None, []).unwrap();
        let r = b.i_add_carry(pair, None, a, x).unwrap();
        let carry = b.composite_extract(u32t, None, r, [1]).unwrap();
        let m1 = b.bitwise_and(u32t, None, carry, one).unwrap();
        let e = b.i_equal(boolt, None, m1, one).unwrap();
        let s = b.select(u32t, None, e, one, zero).unwrap();
        b.store(o1, s, None, []).unwrap();
        let e2 = b.i_equal(boolt, None, x, one).unwrap();
        let s2 = b.select(u32t, None, e2, one, zero).unwrap();
        b.store(o2, s2, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        let mut gone = HashSet::default();
        simplify(&mut m, &mut f, &mut bound, &mut gone);
        let stored: Vec<Word> = insts(&f)
            .filter(|i| i.class.opcode == Op::Store)
            .filter_map(|i| i.operands.get(1).and_then(id))
            .collect();
        assert_eq!(stored, [carry, s2]);
    }

    /// D255: `zext(a) − zext(b)` and `zext(a) * zext(b)` read only as their two words become
    /// `OpISubBorrow` and `OpUMulExtended`; a difference's high word read as `hi & 1` is the borrow,
    /// stored as it is it is the borrow's negation; `zext(a) + C` with `C < 2^32` becomes
    /// `OpIAddCarry a C32` (a new 32-bit constant); `zext(a) + 2^32` and a difference read whole (not
    /// through a truncation) stay.
    #[test]
    fn add_carry_takes_borrows_and_products_from_their_word_pairs() {
        let (
            mut b,
            Tys {
                u32t, u64t, pu, pw, ..
            },
        ) = begun();
        let pair = b.type_struct([u32t, u32t]);
        let one = b.constant_bit32(u32t, 1);
        let c32 = b.constant_bit64(u64t, 32);
        b.begin_block(None).unwrap();
        let [av, bv] = [0; 2].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let out: Vec<Word> = (0..10)
            .map(|_| b.variable(pu, None, StorageClass::Function, None))
            .collect();
        let small = b.constant_bit64(u64t, 0x8765_4321);
        let big = b.constant_bit64(u64t, 1 << 32);
        let whole = b.variable(pw, None, StorageClass::Function, None);
        let a = b.load(u32t, None, av, None, []).unwrap();
        let x = b.load(u32t, None, bv, None, []).unwrap();
        let za = b.u_convert(u64t, None, a).unwrap();
        let zx = b.u_convert(u64t, None, x).unwrap();
        let words = |b: &mut Builder, s: Word| {
            let lo = b.u_convert(u32t, None, s).unwrap();
            let sh = b.shift_right_logical(u64t, None, s, c32).unwrap();
            let hi = b.u_convert(u32t, None, sh).unwrap();
            (lo, hi)
        };
        // Both words stored, into `out[k]` and `out[k + 1]`.
        let stored = |b: &mut Builder, s: Word, k: usize| {
            let (lo, hi) = words(b, s);
            b.store(out[k], lo, None, []).unwrap();
            b.store(out[k + 1], hi, None, []).unwrap();
            (lo, hi)
        };
        let d1 = b.i_sub(u64t, None, za, zx).unwrap();
        let (lo1, hi1) = words(&mut b, d1);
        let bit = b.bitwise_and(u32t, None, one, hi1).unwrap();
        b.store(out[0], lo1, None, []).unwrap();
        b.store(out[1], bit, None, []).unwrap();
        let d2 = b.i_sub(u64t, None, zx, za).unwrap();
        stored(&mut b, d2, 2);
        let p = b.i_mul(u64t, None, za, zx).unwrap();
        stored(&mut b, p, 4);
        let sc = b.i_add(u64t, None, za, small).unwrap();
        stored(&mut b, sc, 6);
        let bc = b.i_add(u64t, None, za, big).unwrap();
        let (lo5, hi5) = stored(&mut b, bc, 8);
        let kept = b.i_sub(u64t, None, za, zx).unwrap();
        b.store(whole, kept, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        let mut gone = HashSet::default();
        assert_eq!(add_carry(&mut m, &mut f, &mut bound, &mut gone), 4);
        let k = m
            .types_global_values
            .iter()
            .find(|i| i.operands == [Operand::LiteralBit32(0x8765_4321)])
            .and_then(|i| i.result_id)
            .unwrap();
        let all: Vec<&Instruction> = insts(&f).collect();
        let def = |r: Word| *all.iter().find(|i| i.result_id == Some(r)).unwrap();
        let stored: Vec<Word> = all
            .iter()
            .filter(|i| i.class.opcode == Op::Store)
            .filter_map(|i| i.operands.get(1).and_then(id))
            .collect();
        // (operation, its operands, member) of a stored word, reading through one `OpSNegate`.
        let source = |w: Word| {
            let (w, negated) = match def(w) {
                i if i.class.opcode == Op::SNegate => (id(&i.operands[0]).unwrap(), true),
                _ => (w, false),
            };
            let e = def(w);
            assert_eq!(e.class.opcode, Op::CompositeExtract);
            let op = def(id(&e.operands[0]).unwrap());
            assert_eq!(op.result_type, Some(pair));
            let k = match e.operands[1] {
                Operand::LiteralBit32(k) => k,
                _ => unreachable!(),
            };
            (op.class.opcode, op.operands.clone(), k, negated)
        };
        let refs = |v: [Word; 2]| v.map(Operand::IdRef).to_vec();
        let (sa, sx) = (refs([a, x]), refs([x, a]));
        assert_eq!(source(stored[0]), (Op::ISubBorrow, sa.clone(), 0, false));
        assert_eq!(source(stored[1]), (Op::ISubBorrow, sa.clone(), 1, false));
        assert_eq!(source(stored[2]), (Op::ISubBorrow, sx.clone(), 0, false));
        assert_eq!(source(stored[3]), (Op::ISubBorrow, sx, 1, true));
        assert_eq!(source(stored[4]), (Op::UMulExtended, sa.clone(), 0, false));
        assert_eq!(source(stored[5]), (Op::UMulExtended, sa, 1, false));
        let sk = refs([a, k]);
        assert_eq!(source(stored[6]), (Op::IAddCarry, sk.clone(), 0, false));
        assert_eq!(source(stored[7]), (Op::IAddCarry, sk, 1, false));
        assert_eq!((stored[8], stored[9]), (lo5, hi5));
        assert_eq!(stored[10], kept);
        assert_eq!(def(kept).class.opcode, Op::ISub);
    }

    /// A function of its own built by hand (decision D199): `x` an unknown u32 (a Function variable
    /// without initializer or store), `a = x << 2`; then the `& 3` of
    /// - `a`: zero (two low zeros, wholly under the mask);
    /// - `x`: kept (nothing known);
    /// - a loop-carried `i = phi(a, i + 4)`: zero (optimistic: the back edge adds 4);
    /// - a load of a variable initialised to 0 and stored `a`: zero; of one stored `x`: kept;
    /// - `a << x` (a shift by an unknown amount may be past the width): kept; `a << 32`: kept;
    /// - `s = select(g, a, x)` used inside `if (g)`: zero (the use reads `a`); used after the merge:
    ///   kept; `s & 1` under a LogicalAnd `k = g && h` known true: zero.
    ///
    /// Then `trivial_phis` removes `phi(x, x)` and `phi(x, self)` and keeps `phi(x, a)`.
    #[test]
    fn low_zeros_folds_only_masks_under_known_zero_bits() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pb,
                pu,
                ..
            },
        ) = begun();
        let one = b.constant_bit32(u32t, 1);
        let two = b.constant_bit32(u32t, 2);
        let three = b.constant_bit32(u32t, 3);
        let four = b.constant_bit32(u32t, 4);
        let c32 = b.constant_bit32(u32t, 32);
        let null = b.constant_null(u32t);
        let entry = b.begin_block(None).unwrap();
        let xv = b.variable(pu, None, StorageClass::Function, None);
        let gv = b.variable(pb, None, StorageClass::Function, None);
        let hv = b.variable(pb, None, StorageClass::Function, None);
        let pv = b.variable(pu, None, StorageClass::Function, Some(null));
        let qv = b.variable(pu, None, StorageClass::Function, Some(null));
        let out: Vec<Word> = (0..12)
            .map(|_| b.variable(pu, None, StorageClass::Function, None))
            .collect();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let g = b.load(boolt, None, gv, None, []).unwrap();
        let h = b.load(boolt, None, hv, None, []).unwrap();
        let k = b.logical_and(boolt, None, g, h).unwrap();
        let a = b.shift_left_logical(u32t, None, x, two).unwrap();
        let m_a = b.bitwise_and(u32t, None, a, three).unwrap();
        b.store(out[0], m_a, None, []).unwrap();
        let m_x = b.bitwise_and(u32t, None, x, three).unwrap();
        b.store(out[1], m_x, None, []).unwrap();
        b.store(pv, a, None, []).unwrap();
        b.store(qv, x, None, []).unwrap();
        let lp = b.load(u32t, None, pv, None, []).unwrap();
        let m_p = b.bitwise_and(u32t, None, lp, three).unwrap();
        b.store(out[2], m_p, None, []).unwrap();
        let lq = b.load(u32t, None, qv, None, []).unwrap();
        let m_q = b.bitwise_and(u32t, None, lq, three).unwrap();
        b.store(out[3], m_q, None, []).unwrap();
        let sv = b.shift_left_logical(u32t, None, a, x).unwrap();
        let m_sv = b.bitwise_and(u32t, None, sv, three).unwrap();
        b.store(out[4], m_sv, None, []).unwrap();
        let sw = b.shift_left_logical(u32t, None, a, c32).unwrap();
        let m_sw = b.bitwise_and(u32t, None, sw, three).unwrap();
        b.store(out[5], m_sw, None, []).unwrap();
        let s = b.select(u32t, None, g, a, x).unwrap();
        // loop: header { i = phi(a, i + 4) } body { } exit
        let (head, body, exit) = (b.id(), b.id(), b.id());
        let i_next = b.id();
        b.branch(head).unwrap();
        b.begin_block(Some(head)).unwrap();
        let i = b.phi(u32t, None, [(a, entry), (i_next, body)]).unwrap();
        let same = b.phi(u32t, None, [(x, entry), (x, body)]).unwrap();
        let selfp = b.id();
        let selfp2 = b
            .phi(u32t, Some(selfp), [(x, entry), (selfp, body)])
            .unwrap();
        let mixed = b.phi(u32t, None, [(x, entry), (a, body)]).unwrap();
        b.loop_merge(exit, body, spirv::LoopControl::NONE, [])
            .unwrap();
        b.branch_conditional(g, body, exit, []).unwrap();
        b.begin_block(Some(body)).unwrap();
        b.i_add(u32t, Some(i_next), i, four).unwrap();
        b.branch(head).unwrap();
        b.begin_block(Some(exit)).unwrap();
        let m_i = b.bitwise_and(u32t, None, i, three).unwrap();
        b.store(out[6], m_i, None, []).unwrap();
        for (n, v) in [same, selfp2, mixed].into_iter().enumerate() {
            b.store(out[7 + n], v, None, []).unwrap();
        }
        // if (g) { s & 3 } ; s & 3 ; if (k) { s & 1 }
        let (then1, merge1) = (b.id(), b.id());
        b.selection_merge(merge1, SelectionControl::NONE).unwrap();
        b.branch_conditional(g, then1, merge1, []).unwrap();
        b.begin_block(Some(then1)).unwrap();
        let m_in = b.bitwise_and(u32t, None, s, three).unwrap();
        b.store(out[10], m_in, None, []).unwrap();
        b.branch(merge1).unwrap();
        b.begin_block(Some(merge1)).unwrap();
        let m_out = b.bitwise_and(u32t, None, s, three).unwrap();
        b.store(out[11], m_out, None, []).unwrap();
        let (then2, merge2) = (b.id(), b.id());
        b.selection_merge(merge2, SelectionControl::NONE).unwrap();
        b.branch_conditional(k, then2, merge2, []).unwrap();
        b.begin_block(Some(then2)).unwrap();
        let m_k = b.bitwise_and(u32t, None, s, one).unwrap();
        b.store(out[0], m_k, None, []).unwrap();
        b.branch(merge2).unwrap();
        b.begin_block(Some(merge2)).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        let mut gone = HashSet::default();
        low_zeros(&mut m, &mut f, &mut bound, &mut gone);
        let ands: HashSet<Word> = f
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter(|i| i.class.opcode == Op::BitwiseAnd)
            .filter_map(|i| i.result_id)
            .collect();
        assert_eq!(ands, [m_x, m_q, m_sv, m_sw, m_out].into_iter().collect());
        for z in [m_a, m_p, m_i, m_in, m_k] {
            assert!(gone.contains(&z), "%{z} should be known zero");
        }
        // The zeros' stores read the constant 0 now.
        let zero = m
            .types_global_values
            .iter()
            .find(|i| {
                i.class.opcode == Op::Constant
                    && i.result_type == Some(u32t)
                    && i.operands == [Operand::LiteralBit32(0)]
            })
            .and_then(|i| i.result_id)
            .expect("a constant 0 made");
        let zero_stores = f
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter(|i| i.class.opcode == Op::Store && i.operands[1] == Operand::IdRef(zero))
            .count();
        assert_eq!(zero_stores, 5);
        let n = trivial_phis(&mut f, &mut gone);
        assert_eq!(n, 2);
        let phis: HashSet<Word> = f
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter(|i| i.class.opcode == Op::Phi)
            .filter_map(|i| i.result_id)
            .collect();
        assert_eq!(phis, [i, mixed].into_iter().collect());
    }

    /// D242: `demanded_ors` through `low_zeros`. A flag variable `f` (initialised 0) read only as
    /// `(f & 3) != 0` and stored to a Workgroup variable, updated as `f | (y << 2)` (two known zero
    /// bits: dropped), then `| y` (kept), then `| (y << 1)` (one zero bit: kept); a second variable `g`,
    /// stored whole to Workgroup memory, updated `g | (y << 2)`: kept (every bit observed); and in a loop,
    /// `h = phi(h0, h | (y << 4))` read as `h & 15`: dropped (loop-carried, optimistic start).
    #[test]
    fn ors_of_bits_nobody_observes_are_dropped() {
        let (
            mut b,
            Tys {
                boolt, u32t, pu, ..
            },
        ) = begun();
        let [zero, two, three, one, four, fifteen] =
            [0u32, 2, 3, 1, 4, 15].map(|x| b.constant_bit32(u32t, x));
        let pw = b.type_pointer(None, StorageClass::Workgroup, u32t);
        let pwb = b.type_pointer(None, StorageClass::Workgroup, boolt);
        let wg = b.variable(pw, None, StorageClass::Workgroup, None);
        let wgb = b.variable(pwb, None, StorageClass::Workgroup, None);
        let entry = b.begin_block(None).unwrap();
        let fv = b.variable(pu, None, StorageClass::Function, Some(zero));
        let gv = b.variable(pu, None, StorageClass::Function, Some(zero));
        let yv = b.variable(pu, None, StorageClass::Function, None);
        let y = b.load(u32t, None, yv, None, []).unwrap();
        let p2 = b.shift_left_logical(u32t, None, y, two).unwrap();
        let p1 = b.shift_left_logical(u32t, None, y, one).unwrap();
        let f0 = b.load(u32t, None, fv, None, []).unwrap();
        let o1 = b.bitwise_or(u32t, None, f0, p2).unwrap();
        let o2 = b.bitwise_or(u32t, None, o1, y).unwrap();
        let o3 = b.bitwise_or(u32t, None, o2, p1).unwrap();
        b.store(fv, o3, None, []).unwrap();
        let g0 = b.load(u32t, None, gv, None, []).unwrap();
        let og = b.bitwise_or(u32t, None, g0, p2).unwrap();
        b.store(gv, og, None, []).unwrap();
        let f1 = b.load(u32t, None, fv, None, []).unwrap();
        let fa = b.bitwise_and(u32t, None, f1, three).unwrap();
        let ft = b.i_not_equal(boolt, None, fa, zero).unwrap();
        b.store(wgb, ft, None, []).unwrap();
        let g1 = b.load(u32t, None, gv, None, []).unwrap();
        b.store(wg, g1, None, []).unwrap();
        // The loop: header with h = phi(h0, oh), body ORs y << 4, exit reads h & 15.
        let (header, body, exit) = (b.id(), b.id(), b.id());
        let h0 = b.bitwise_and(u32t, None, y, fifteen).unwrap();
        b.branch(header).unwrap();
        b.begin_block(Some(header)).unwrap();
        let (h, oh) = (b.id(), b.id());
        b.insert_phi(
            rspirv::dr::InsertPoint::End,
            u32t,
            Some(h),
            [(h0, entry), (oh, body)],
        )
        .unwrap();
        let c = b.u_less_than(boolt, None, y, four).unwrap();
        b.loop_merge(exit, body, spirv::LoopControl::NONE, [])
            .unwrap();
        b.branch_conditional(c, body, exit, []).unwrap();
        b.begin_block(Some(body)).unwrap();
        let p4 = b.shift_left_logical(u32t, None, y, four).unwrap();
        b.bitwise_or(u32t, Some(oh), h, p4).unwrap();
        b.branch(header).unwrap();
        b.begin_block(Some(exit)).unwrap();
        let hl = b.bitwise_and(u32t, None, h, fifteen).unwrap();
        b.store(wg, hl, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        let mut gone = HashSet::default();
        low_zeros(&mut m, &mut f, &mut bound, &mut gone);
        let ors: HashSet<Word> = insts(&f)
            .filter(|i| i.class.opcode == Op::BitwiseOr)
            .filter_map(|i| i.result_id)
            .collect();
        assert_eq!(ors, [o2, o3, og].into_iter().collect(), "kept ORs");
        // `o2` reads the flag's load itself; the phi's back-edge value is `h`.
        assert_eq!(def_of(&f, o2).operands[0], Operand::IdRef(f0));
        let phi = def_of(&f, h);
        assert_eq!(phi.operands[2], Operand::IdRef(h));
    }

    /// D242: `masked_offsets`. `(x + 8) & !3` and `(x + 12) & !3` become `(x & !3) + 8` and `+ 12` (the
    /// ANDs of `x` one value after CSE); `(x + 6) & !3` (6 is not a multiple of 4) and `(x + 16) & !3`
    /// whose add is also stored are kept.
    #[test]
    fn masked_offsets_mask_the_base_once() {
        let (mut b, Tys { u64t, pw, .. }) = begun();
        let [c8, c12, c6, c16] = [8u64, 12, 6, 16].map(|x| b.constant_bit64(u64t, x));
        let mask = b.constant_bit64(u64t, !3);
        b.begin_block(None).unwrap();
        let xv = b.variable(pw, None, StorageClass::Function, None);
        let out = b.variable(pw, None, StorageClass::Function, None);
        let x = b.load(u64t, None, xv, None, []).unwrap();
        let mut masked = Vec::new();
        for c in [c8, c12, c6, c16] {
            let a = b.i_add(u64t, None, x, c).unwrap();
            let r = b.bitwise_and(u64t, None, a, mask).unwrap();
            b.store(out, r, None, []).unwrap();
            if c == c16 {
                b.store(out, a, None, []).unwrap();
            }
            masked.push(r);
        }
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(masked_offsets(&mut m, &mut f, &mut bound), 2);
        let mut gone = HashSet::default();
        common(&m, &mut f, &mut gone);
        for (r, c) in [(masked[0], c8), (masked[1], c12)] {
            let add = def_of(&f, r);
            assert_eq!(add.class.opcode, Op::IAdd);
            assert_eq!(add.operands[1], Operand::IdRef(c));
            let and = def_of(&f, id(&add.operands[0]).unwrap());
            assert_eq!(
                (and.class.opcode, and.operands.clone()),
                (
                    Op::BitwiseAnd,
                    vec![Operand::IdRef(x), Operand::IdRef(mask)]
                )
            );
        }
        // One AND of x for both.
        assert_eq!(
            def_of(&f, masked[0]).operands[0],
            def_of(&f, masked[1]).operands[0]
        );
        for r in [masked[2], masked[3]] {
            assert_eq!(def_of(&f, r).class.opcode, Op::BitwiseAnd);
        }
    }

    /// The types of the hand-built test functions, declared in this order: void, bool, u32, u64, `void()`,
    /// and Function pointers to bool, u32 and u64.
    pub(super) struct Tys {
        pub(super) void: Word,
        pub(super) boolt: Word,
        pub(super) u32t: Word,
        pub(super) u64t: Word,
        pub(super) fnt: Word,
        pub(super) pb: Word,
        pub(super) pu: Word,
        pub(super) pw: Word,
    }

    fn tys(b: &mut Builder) -> Tys {
        let void = b.type_void();
        let boolt = b.type_bool();
        let u32t = b.type_int(32, 0);
        let u64t = b.type_int(64, 0);
        Tys {
            void,
            boolt,
            u32t,
            u64t,
            fnt: b.type_function(void, []),
            pb: b.type_pointer(None, StorageClass::Function, boolt),
            pu: b.type_pointer(None, StorageClass::Function, u32t),
            pw: b.type_pointer(None, StorageClass::Function, u64t),
        }
    }

    /// Ends the hand-built function (return, end): the module, its function taken out, the id bound.
    pub(super) fn finish(mut b: Builder) -> (Module, Function, Word) {
        b.ret().unwrap();
        b.end_function().unwrap();
        let mut m = b.module();
        let f = m.functions.pop().unwrap();
        let bound = m.header.as_ref().unwrap().bound;
        (m, f, bound)
    }

    /// The (variable, value) pairs of block `k`'s stores, in order.
    fn stores_in(f: &Function, k: usize) -> Vec<(Word, Word)> {
        f.blocks[k]
            .instructions
            .iter()
            .filter(|i| i.class.opcode == Op::Store)
            .map(|i| (id(&i.operands[0]).unwrap(), id(&i.operands[1]).unwrap()))
            .collect()
    }

    pub(super) fn insts(f: &Function) -> impl Iterator<Item = &Instruction> {
        f.blocks.iter().flat_map(|b| &b.instructions)
    }

    /// The function's `OpVariable`s.
    fn variables(f: &Function) -> Vec<Word> {
        insts(f)
            .filter(|i| i.class.opcode == Op::Variable)
            .filter_map(|i| i.result_id)
            .collect()
    }

    pub(super) fn def_of(f: &Function, x: Word) -> &Instruction {
        insts(f).find(|i| i.result_id == Some(x)).expect("defined")
    }

    /// The module-level declaration (type, constant, global variable) of `x`.
    pub(super) fn global_def(m: &Module, x: Word) -> &Instruction {
        m.types_global_values
            .iter()
            .find(|i| i.result_id == Some(x))
            .expect("declared")
    }

    /// The definition of `x`, through an `OpBitcast` (D251: a group's words are a bitcast of its 64-bit
    /// access, and the stored 64-bit value a bitcast of the words).
    fn unwide(f: &Function, x: Word) -> &Instruction {
        let i = def_of(f, x);
        match i.class.opcode {
            Op::Bitcast => def_of(f, id(&i.operands[0]).unwrap()),
            _ => i,
        }
    }

    /// An `Aligned 4` u32 load through `OpConvertUToPtr` (to `psb`) of the u64 address `addr`, as the
    /// lowering reads a global word.
    fn word_load(b: &mut Builder, u32t: Word, psb: Word, addr: Word) -> Word {
        let p = b.convert_u_to_ptr(psb, None, addr).unwrap();
        b.load(
            u32t,
            None,
            p,
            Some(spirv::MemoryAccess::ALIGNED),
            [Operand::LiteralBit32(4)],
        )
        .unwrap()
    }

    /// Rewrite `n`'s narrowing (D205), on a function built by hand from two u32 words `a`, `b` and a
    /// bool `c`:
    /// - `t = (zext a + zext b) + select(c, 1, 0)` read only as `trunc32(t)` (an add with carry in):
    ///   the three 64-bit operations become 32-bit ones on `a`, `b` and 32-bit constants, and the
    ///   truncation's reader reads `t`;
    /// - `p = zext a * zext b` read as `trunc32(p >> 32)` (the high word): kept 64-bit;
    /// - `q = w + w` (`w` a 64-bit load) read only as `trunc32(q)`: kept (truncating `w` costs as many
    ///   words as the truncation saves);
    /// - `u = zext a << 3` read as `trunc32(u)` and `v = zext a << 40` read as `trunc32(v)`: `u`
    ///   narrowed, `v` kept (a shift by 32 or more moves high bits into the low word's place).
    #[test]
    fn narrow_computes_in_32_bits_only_what_no_high_word_reaches() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                u64t,
                pb,
                pu,
                pw,
                ..
            },
        ) = begun();
        let one = b.constant_bit64(u64t, 1);
        let zero = b.constant_bit64(u64t, 0);
        let c32 = b.constant_bit64(u64t, 32);
        let c3 = b.constant_bit64(u64t, 3);
        let c40 = b.constant_bit64(u64t, 40);
        // The 32-bit constants a lane module has anyway (so narrowing adds none).
        for v in [0, 1, 3, 40] {
            b.constant_bit32(u32t, v);
        }
        b.begin_block(None).unwrap();
        let (av, bv, cv, wv) = (
            b.variable(pu, None, StorageClass::Function, None),
            b.variable(pu, None, StorageClass::Function, None),
            b.variable(pb, None, StorageClass::Function, None),
            b.variable(pw, None, StorageClass::Function, None),
        );
        let out: Vec<Word> = (0..5)
            .map(|_| b.variable(pu, None, StorageClass::Function, None))
            .collect();
        let a = b.load(u32t, None, av, None, []).unwrap();
        let bb = b.load(u32t, None, bv, None, []).unwrap();
        let c = b.load(boolt, None, cv, None, []).unwrap();
        let w = b.load(u64t, None, wv, None, []).unwrap();
        let za = b.u_convert(u64t, None, a).unwrap();
        let zb = b.u_convert(u64t, None, bb).unwrap();
        let s = b.i_add(u64t, None, za, zb).unwrap();
        let sel = b.select(u64t, None, c, one, zero).unwrap();
        let t = b.i_add(u64t, None, s, sel).unwrap();
        let tl = b.u_convert(u32t, None, t).unwrap();
        b.store(out[0], tl, None, []).unwrap();
        let p = b.i_mul(u64t, None, za, zb).unwrap();
        let ph = b.shift_right_logical(u64t, None, p, c32).unwrap();
        let phl = b.u_convert(u32t, None, ph).unwrap();
        b.store(out[1], phl, None, []).unwrap();
        let q = b.i_add(u64t, None, w, w).unwrap();
        let ql = b.u_convert(u32t, None, q).unwrap();
        b.store(out[2], ql, None, []).unwrap();
        let u = b.shift_left_logical(u64t, None, za, c3).unwrap();
        let ul = b.u_convert(u32t, None, u).unwrap();
        b.store(out[3], ul, None, []).unwrap();
        let v = b.shift_left_logical(u64t, None, za, c40).unwrap();
        let vl = b.u_convert(u32t, None, v).unwrap();
        b.store(out[4], vl, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        let mut gone = HashSet::default();
        let n = narrow(&mut m, &mut f, &mut bound, &mut gone);
        assert_eq!(n, 4);
        for x in [s, sel, t, u] {
            assert_eq!(def_of(&f, x).result_type, Some(u32t), "%{x} narrowed");
        }
        for x in [p, q, v] {
            assert_eq!(def_of(&f, x).result_type, Some(u64t), "%{x} kept");
        }
        assert_eq!(
            def_of(&f, s).operands,
            [Operand::IdRef(a), Operand::IdRef(bb)]
        );
        for x in [tl, ul] {
            assert!(gone.contains(&x) && insts(&f).all(|i| i.result_id != Some(x)));
        }
        let stored: Vec<Word> = insts(&f)
            .filter(|i| i.class.opcode == Op::Store)
            .filter_map(|i| i.operands.get(1).and_then(id))
            .collect();
        assert_eq!(stored, [t, phl, ql, u, vl]);
        // The select's arms are the 32-bit constants 1 and 0.
        let k32 = |x: &Operand| {
            let x = id(x).unwrap();
            m.types_global_values
                .iter()
                .find(|i| i.result_id == Some(x))
                .map(|i| (i.result_type, i.operands.clone()))
        };
        let arms = &def_of(&f, sel).operands;
        assert_eq!(
            k32(&arms[1]),
            Some((Some(u32t), vec![Operand::LiteralBit32(1)]))
        );
        assert_eq!(
            k32(&arms[2]),
            Some((Some(u32t), vec![Operand::LiteralBit32(0)]))
        );
    }

    /// D232, on a function built by hand (`e`, `y` u32 words loaded from Function variables, `z(x)` the
    /// zero extension to 64 bits):
    /// - `((z(e) >> (z(y & 31) & 63)) & 1) != 0` becomes `((e >> (y & 31)) & 1) != 0` on 32 bits;
    /// - `((z(e) >> z(5)) & 1) == 0` (a constant index, no mask) becomes `((e >> 5) & 1) == 0`;
    /// - with `y & 63` (an index that may be 32 or more): kept;
    /// - with the AND also read elsewhere: kept.
    #[test]
    fn narrow_bit_of_zext_tests_the_word_itself() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                u64t,
                pu,
                ..
            },
        ) = begun();
        let [k31, k63, k5] = [31u32, 63, 5].map(|x| b.constant_bit32(u32t, x));
        let [w63, w1, w0] = [63u64, 1, 0].map(|x| b.constant_bit64(u64t, x));
        b.begin_block(None).unwrap();
        let vars = [0; 2].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let [e, y] = vars.map(|v| b.load(u32t, None, v, None, []).unwrap());
        let ze = b.u_convert(u64t, None, e).unwrap();
        let test = |b: &mut Builder, idx: Word, mask: bool, eq: bool| -> (Word, Word) {
            let zi = b.u_convert(u64t, None, idx).unwrap();
            let amount = if mask {
                b.bitwise_and(u64t, None, zi, w63).unwrap()
            } else {
                zi
            };
            let sh = b.shift_right_logical(u64t, None, ze, amount).unwrap();
            let bit = b.bitwise_and(u64t, None, sh, w1).unwrap();
            let t = if eq {
                b.i_equal(boolt, None, bit, w0).unwrap()
            } else {
                b.i_not_equal(boolt, None, bit, w0).unwrap()
            };
            (t, bit)
        };
        let i31 = b.bitwise_and(u32t, None, y, k31).unwrap();
        let (t1, _) = test(&mut b, i31, true, false);
        let (t2, _) = test(&mut b, k5, false, true);
        let i63 = b.bitwise_and(u32t, None, y, k63).unwrap();
        let (t3, _) = test(&mut b, i63, true, false);
        let (t4, bit4) = test(&mut b, i31, true, false);
        let out = b.variable(pu, None, StorageClass::Function, None);
        let again = b.u_convert(u32t, None, bit4).unwrap();
        b.store(out, again, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(narrow_bit_of_zext(&mut m, &mut f, &mut bound), 2);
        let k = constants(&m);
        for (t, idx, op) in [(t1, i31, Op::INotEqual), (t2, k5, Op::IEqual)] {
            let ti = def_of(&f, t);
            assert_eq!(ti.class.opcode, op);
            let a = def_of(&f, id(&ti.operands[0]).unwrap());
            assert_eq!(k.get(&id(&ti.operands[1]).unwrap()), Some(&0));
            assert_eq!(
                (a.class.opcode, a.result_type),
                (Op::BitwiseAnd, Some(u32t))
            );
            assert_eq!(k.get(&id(&a.operands[1]).unwrap()), Some(&1));
            let sh = def_of(&f, id(&a.operands[0]).unwrap());
            assert_eq!(
                (sh.class.opcode, sh.result_type, sh.operands.clone()),
                (
                    Op::ShiftRightLogical,
                    Some(u32t),
                    vec![Operand::IdRef(e), Operand::IdRef(idx)]
                )
            );
        }
        for t in [t3, t4] {
            let a = def_of(&f, id(&def_of(&f, t).operands[0]).unwrap());
            assert_eq!(a.result_type, Some(u64t));
        }
    }

    /// D233, on a module built by hand: `g(u64 x, u64 y, u64 z) -> u64` returns `x + y + z`; `main`
    /// loads u32 words and a u64 `w`, and calls `g(p_k, q_k, w)` four times with `p_k`, `q_k` packed
    /// word pairs (`bitcast(uvec2(..))`, each passed once); the results of calls 0, 2 and 3 are read as
    /// `trunc32(r)` and `trunc32(r >> 32)`, call 1's is stored whole. Then `x`, `y` are `uvec2`
    /// parameters (the calls pass the vectors), `z` (never a pair) stays u64; the result is a `uvec2`
    /// (the callee bitcasts its value), the split words are the components of the calls' vectors, call
    /// 1's result is bitcast back to u64 under its old id. With two calls whose results are stored
    /// whole, the result stays u64 (4 words at the callee and 4 at each call, nothing saved).
    #[test]
    fn pair_signatures_pass_and_return_word_pairs() {
        let build = |calls: usize, split_any: bool| {
            let mut b = Builder::new();
            let t = tys(&mut b);
            let (u32t, u64t) = (t.u32t, t.u64t);
            let v2 = b.type_vector(u32t, 2);
            let gty = b.type_function(u64t, [u64t, u64t, u64t]);
            let k32 = b.constant_bit64(u64t, 32);
            let g = b
                .begin_function(u64t, None, FunctionControl::NONE, gty)
                .unwrap();
            let params = [0; 3].map(|_| b.function_parameter(u64t).unwrap());
            b.begin_block(None).unwrap();
            let s1 = b.i_add(u64t, None, params[0], params[1]).unwrap();
            let s2 = b.i_add(u64t, None, s1, params[2]).unwrap();
            b.ret_value(s2).unwrap();
            b.end_function().unwrap();
            b.begin_function(t.void, None, FunctionControl::NONE, t.fnt)
                .unwrap();
            b.begin_block(None).unwrap();
            let wv = b.variable(t.pw, None, StorageClass::Function, None);
            let uv = b.variable(t.pu, None, StorageClass::Function, None);
            let w = b.load(u64t, None, wv, None, []).unwrap();
            // (call, vectors passed, result, (low word, shift, high word) when split)
            let mut out = Vec::new();
            for k in 0..calls {
                let pair = |b: &mut Builder| {
                    let [lo, hi] = [0; 2].map(|_| b.load(u32t, None, uv, None, []).unwrap());
                    let v = b.composite_construct(v2, None, [lo, hi]).unwrap();
                    (v, b.bitcast(u64t, None, v).unwrap())
                };
                let (pv, p) = pair(&mut b);
                let (qv, q) = pair(&mut b);
                let r = b.function_call(u64t, None, g, [p, q, w]).unwrap();
                let split = if k == 1 || !split_any {
                    b.store(wv, r, None, []).unwrap();
                    None
                } else {
                    let lo = b.u_convert(u32t, None, r).unwrap();
                    let sh = b.shift_right_logical(u64t, None, r, k32).unwrap();
                    let hi = b.u_convert(u32t, None, sh).unwrap();
                    b.store(uv, lo, None, []).unwrap();
                    b.store(uv, hi, None, []).unwrap();
                    Some((lo, sh, hi))
                };
                out.push((r, [pv, qv], split));
            }
            b.ret().unwrap();
            b.end_function().unwrap();
            let m = b.module();
            (m, params, s2, w, out, (u32t, u64t, v2))
        };
        let (mut m, params, s2, w, calls, (_, u64t, v2)) = build(4, true);
        let mut bound = m.header.as_ref().unwrap().bound;
        // x, y and the result.
        assert_eq!(pair_signatures(&mut m, &mut bound), 3);
        let callee = &m.functions[0];
        let ptys: Vec<Option<Word>> = callee.parameters.iter().map(|i| i.result_type).collect();
        assert_eq!(ptys, [Some(v2), Some(v2), Some(u64t)]);
        assert_eq!(callee.def.as_ref().unwrap().result_type, Some(v2));
        let fty = id(&callee.def.as_ref().unwrap().operands[1]).unwrap();
        let fti = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(fty))
            .unwrap();
        assert_eq!(
            fti.operands,
            [v2, v2, v2, u64t].map(Operand::IdRef).to_vec()
        );
        // The old parameter ids are bitcasts of the new ones at the entry.
        for (k, &old) in params.iter().enumerate().take(2) {
            let i = def_of(callee, old);
            assert_eq!(i.class.opcode, Op::Bitcast);
            assert_eq!(
                i.operands,
                [Operand::IdRef(callee.parameters[k].result_id.unwrap())]
            );
        }
        let ret = insts(callee)
            .find(|i| i.class.opcode == Op::ReturnValue)
            .unwrap();
        let rv = def_of(callee, id(&ret.operands[0]).unwrap());
        assert_eq!(
            (rv.class.opcode, rv.result_type, rv.operands.clone()),
            (Op::Bitcast, Some(v2), vec![Operand::IdRef(s2)])
        );
        let main = &m.functions[1];
        let sites: Vec<&Instruction> = insts(main)
            .filter(|i| i.class.opcode == Op::FunctionCall)
            .collect();
        for (site, (r, [pv, qv], split)) in sites.iter().zip(&calls) {
            assert_eq!(site.operands[1..], [*pv, *qv, w].map(Operand::IdRef));
            assert_eq!(site.result_type, Some(v2));
            let c = site.result_id.unwrap();
            match split {
                Some((lo, sh, hi)) => {
                    for (word, k) in [(*lo, 0), (*hi, 1)] {
                        let i = def_of(main, word);
                        assert_eq!(
                            (i.class.opcode, i.operands.clone()),
                            (
                                Op::CompositeExtract,
                                vec![Operand::IdRef(c), Operand::LiteralBit32(k)]
                            )
                        );
                    }
                    assert!(insts(main).all(|i| i.result_id != Some(*sh)));
                }
                None => {
                    let back = def_of(main, *r);
                    assert_eq!(
                        (back.class.opcode, back.result_type, back.operands.clone()),
                        (Op::Bitcast, Some(u64t), vec![Operand::IdRef(c)])
                    );
                }
            }
        }
        // Two calls, their results stored: the parameters only.
        let (mut m, _, _, _, _, (_, u64t, _)) = build(2, false);
        let mut bound = m.header.as_ref().unwrap().bound;
        assert_eq!(pair_signatures(&mut m, &mut bound), 2);
        assert_eq!(m.functions[0].def.as_ref().unwrap().result_type, Some(u64t));
    }

    /// D283, on a module built by hand: `g(u64, u64) -> u64` called three times; calls 0 and 1 store their
    /// results to a pair variable as `bitcast_v2(r)` (D275's stores), call 2 also reads its low word
    /// (`trunc32(r)`). The result becomes `uvec2`: the pair variable's stores read each call itself (no
    /// bitcast of a call's result is left), call 2's low word is its component 0, and no call's old u64
    /// id is read any more. A single call whose result is bitcast once keeps its u64 result (the
    /// callee's bitcast would cost what the caller's saves).
    #[test]
    fn pair_signatures_return_the_pair_callers_bitcast_the_result_to() {
        let build = |calls: usize| {
            let mut b = Builder::new();
            let t = tys(&mut b);
            let (u32t, u64t) = (t.u32t, t.u64t);
            let v2 = b.type_vector(u32t, 2);
            let pv2 = b.type_pointer(None, StorageClass::Function, v2);
            let gty = b.type_function(u64t, [u64t, u64t]);
            let g = b
                .begin_function(u64t, None, FunctionControl::NONE, gty)
                .unwrap();
            let params = [0; 2].map(|_| b.function_parameter(u64t).unwrap());
            b.begin_block(None).unwrap();
            let s1 = b.i_add(u64t, None, params[0], params[1]).unwrap();
            b.ret_value(s1).unwrap();
            b.end_function().unwrap();
            b.begin_function(t.void, None, FunctionControl::NONE, t.fnt)
                .unwrap();
            b.begin_block(None).unwrap();
            let wv = b.variable(t.pw, None, StorageClass::Function, None);
            let uv = b.variable(t.pu, None, StorageClass::Function, None);
            let pv = b.variable(pv2, None, StorageClass::Function, None);
            let w = b.load(u64t, None, wv, None, []).unwrap();
            // (call, its bitcast to the pair, its low word)
            let mut out = Vec::new();
            for k in 0..calls {
                let r = b.function_call(u64t, None, g, [w, w]).unwrap();
                let c = b.bitcast(v2, None, r).unwrap();
                b.store(pv, c, None, []).unwrap();
                let lo = (k == 2).then(|| {
                    let lo = b.u_convert(u32t, None, r).unwrap();
                    b.store(uv, lo, None, []).unwrap();
                    lo
                });
                out.push((r, c, lo));
            }
            b.ret().unwrap();
            b.end_function().unwrap();
            (b.module(), out, (u64t, v2, pv))
        };
        let (mut m, calls, (_, v2, pv)) = build(3);
        let mut bound = m.header.as_ref().unwrap().bound;
        assert_eq!(pair_signatures(&mut m, &mut bound), 1, "the result");
        assert_eq!(m.functions[0].def.as_ref().unwrap().result_type, Some(v2));
        let main = &m.functions[1];
        let sites: Vec<Word> = insts(main)
            .filter(|i| i.class.opcode == Op::FunctionCall)
            .map(|i| {
                assert_eq!(i.result_type, Some(v2));
                i.result_id.unwrap()
            })
            .collect();
        let stored: Vec<Word> = insts(main)
            .filter(|i| i.class.opcode == Op::Store && id(&i.operands[0]) == Some(pv))
            .map(|i| id(&i.operands[1]).unwrap())
            .collect();
        assert_eq!(stored, sites, "the pair variable stores each call's vector");
        for (r, c, lo) in &calls {
            assert!(insts(main).all(|i| i.result_id != Some(*c)), "bitcast gone");
            assert!(
                insts(main).all(|i| !i.operands.contains(&Operand::IdRef(*r))),
                "the old u64 id is not read"
            );
            if let Some(lo) = lo {
                let i = def_of(main, *lo);
                assert_eq!(i.class.opcode, Op::CompositeExtract);
                assert_eq!(i.operands[1], Operand::LiteralBit32(0));
            }
        }
        // One call, bitcast once: nothing gained, the result stays u64.
        let (mut m, _, (u64t, _, _)) = build(1);
        let mut bound = m.header.as_ref().unwrap().bound;
        assert_eq!(pair_signatures(&mut m, &mut bound), 0);
        assert_eq!(m.functions[0].def.as_ref().unwrap().result_type, Some(u64t));
    }

    /// D233 with two functions whose calls share blocks: `g(u64, u64) -> u64` and `h(u64) -> u64`,
    /// called alternately three times each in one block with fresh pairs, every result split into its
    /// words. Both functions' parameters and results are rewritten, and every split word reads its own
    /// call's vector: the second function's calls are found where the first one's rewrite moved them.
    #[test]
    fn pair_signatures_rewrites_several_functions_called_in_one_block() {
        let mut b = Builder::new();
        let t = tys(&mut b);
        let (u32t, u64t) = (t.u32t, t.u64t);
        let v2 = b.type_vector(u32t, 2);
        let k32 = b.constant_bit64(u64t, 32);
        let gty = b.type_function(u64t, [u64t, u64t]);
        let g = b
            .begin_function(u64t, None, FunctionControl::NONE, gty)
            .unwrap();
        let [x, y] = [0; 2].map(|_| b.function_parameter(u64t).unwrap());
        b.begin_block(None).unwrap();
        let sum = b.i_add(u64t, None, x, y).unwrap();
        b.ret_value(sum).unwrap();
        b.end_function().unwrap();
        let hty = b.type_function(u64t, [u64t]);
        let h = b
            .begin_function(u64t, None, FunctionControl::NONE, hty)
            .unwrap();
        let z = b.function_parameter(u64t).unwrap();
        b.begin_block(None).unwrap();
        let twice = b.i_add(u64t, None, z, z).unwrap();
        b.ret_value(twice).unwrap();
        b.end_function().unwrap();
        b.begin_function(t.void, None, FunctionControl::NONE, t.fnt)
            .unwrap();
        b.begin_block(None).unwrap();
        let uv = b.variable(t.pu, None, StorageClass::Function, None);
        let pair = |b: &mut Builder| {
            let [lo, hi] = [0; 2].map(|_| b.load(u32t, None, uv, None, []).unwrap());
            let v = b.composite_construct(v2, None, [lo, hi]).unwrap();
            b.bitcast(u64t, None, v).unwrap()
        };
        let split = |b: &mut Builder, r: Word| -> [Word; 2] {
            let lo = b.u_convert(u32t, None, r).unwrap();
            let sh = b.shift_right_logical(u64t, None, r, k32).unwrap();
            let hi = b.u_convert(u32t, None, sh).unwrap();
            b.store(uv, lo, None, []).unwrap();
            b.store(uv, hi, None, []).unwrap();
            [lo, hi]
        };
        let mut words = Vec::new();
        for _ in 0..3 {
            let (p, q) = (pair(&mut b), pair(&mut b));
            let r = b.function_call(u64t, None, g, [p, q]).unwrap();
            words.push(split(&mut b, r));
            let p = pair(&mut b);
            let r = b.function_call(u64t, None, h, [p]).unwrap();
            words.push(split(&mut b, r));
        }
        b.ret().unwrap();
        b.end_function().unwrap();
        let mut m = b.module();
        let mut bound = m.header.as_ref().unwrap().bound;
        assert_eq!(pair_signatures(&mut m, &mut bound), 5);
        for f in &m.functions[..2] {
            assert_eq!(f.def.as_ref().unwrap().result_type, Some(v2));
            assert!(f.parameters.iter().all(|p| p.result_type == Some(v2)));
        }
        let main = &m.functions[2];
        let sites: Vec<&Instruction> = insts(main)
            .filter(|i| i.class.opcode == Op::FunctionCall)
            .collect();
        assert_eq!(sites.len(), 6);
        for (site, [lo, hi]) in sites.iter().zip(&words) {
            assert_eq!(site.result_type, Some(v2));
            let c = site.result_id.unwrap();
            for (w, k) in [(*lo, 0), (*hi, 1)] {
                assert_eq!(
                    def_of(main, w).operands,
                    [Operand::IdRef(c), Operand::LiteralBit32(k)]
                );
            }
        }
    }

    /// Rewrite `n`'s bit tests and pairs (D205), and its stores of the value held:
    /// - `((x >> l) & 1) == 1` and `((y >> l) & 1) == 1` become `(x & b) != 0`, `(y & b) != 0` with one
    ///   `b = 1 << l`; `((x >> l2) & 1) == 1`, the only test of `l2`, stays;
    /// - `zext a | (zext b << 32)` with a shift read once becomes `OpBitcast` of the vector `(a, b)`, its
    ///   low-word truncation reads `a`; a pair whose shift is read twice stays an OR;
    /// - a pair whose low word is a truncated pair's low word: its truncation reads `x` through both;
    ///   `zext(lo(w)) | (zext(hi(w)) << 32)` is `w`;
    /// - `store v (load v)` and a second `store v x` go; `store v y` after `load v` stays.
    #[test]
    fn bit_tests_pairs_and_stores_of_the_value_held() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                u64t,
                pb,
                pu,
                pw,
                ..
            },
        ) = begun();
        let one = b.constant_bit32(u32t, 1);
        let c32 = b.constant_bit64(u64t, 32);
        b.begin_block(None).unwrap();
        let vars: Vec<Word> = (0..5)
            .map(|_| b.variable(pu, None, StorageClass::Function, None))
            .collect();
        let bo: Vec<Word> = (0..3)
            .map(|_| b.variable(pb, None, StorageClass::Function, None))
            .collect();
        let wo: Vec<Word> = (0..3)
            .map(|_| b.variable(pw, None, StorageClass::Function, None))
            .collect();
        let x = b.load(u32t, None, vars[0], None, []).unwrap();
        let y = b.load(u32t, None, vars[1], None, []).unwrap();
        let l = b.load(u32t, None, vars[2], None, []).unwrap();
        let l2 = b.load(u32t, None, vars[3], None, []).unwrap();
        let test = |b: &mut Builder, v: Word, l: Word| {
            let s = b.shift_right_logical(u32t, None, v, l).unwrap();
            let a = b.bitwise_and(u32t, None, s, one).unwrap();
            b.i_equal(boolt, None, a, one).unwrap()
        };
        let t1 = test(&mut b, x, l);
        let t2 = test(&mut b, y, l);
        let t3 = test(&mut b, x, l2);
        for (k, t) in [t1, t2, t3].into_iter().enumerate() {
            b.store(bo[k], t, None, []).unwrap();
        }
        let za = b.u_convert(u64t, None, x).unwrap();
        let zb = b.u_convert(u64t, None, y).unwrap();
        let sh = b.shift_left_logical(u64t, None, zb, c32).unwrap();
        let p = b.bitwise_or(u64t, None, za, sh).unwrap();
        let plo = b.u_convert(u32t, None, p).unwrap();
        b.store(wo[0], p, None, []).unwrap();
        b.store(vars[4], plo, None, []).unwrap();
        let sh2 = b.shift_left_logical(u64t, None, za, c32).unwrap();
        let p2 = b.bitwise_or(u64t, None, zb, sh2).unwrap();
        b.store(wo[1], p2, None, []).unwrap();
        b.store(wo[2], sh2, None, []).unwrap();
        // A pair whose low word is a truncated pair's; its own truncation reads `x` through both.
        let zl = b.u_convert(u64t, None, plo).unwrap();
        let sh3 = b.shift_left_logical(u64t, None, zb, c32).unwrap();
        let p3 = b.bitwise_or(u64t, None, zl, sh3).unwrap();
        let p3lo = b.u_convert(u32t, None, p3).unwrap();
        b.store(vars[4], p3lo, None, []).unwrap();
        // A 64-bit value split into words and joined again is the value.
        let wv = b.load(u64t, None, wo[0], None, []).unwrap();
        let wlo = b.u_convert(u32t, None, wv).unwrap();
        let whs = b.shift_right_logical(u64t, None, wv, c32).unwrap();
        let whi = b.u_convert(u32t, None, whs).unwrap();
        let zwl = b.u_convert(u64t, None, wlo).unwrap();
        let zwh = b.u_convert(u64t, None, whi).unwrap();
        let sh4 = b.shift_left_logical(u64t, None, zwh, c32).unwrap();
        let p4 = b.bitwise_or(u64t, None, sh4, zwl).unwrap();
        b.store(wo[1], p4, None, []).unwrap();
        // Stores of the value held.
        let lv = b.load(u32t, None, vars[0], None, []).unwrap();
        b.store(vars[0], lv, None, []).unwrap();
        b.store(vars[1], x, None, []).unwrap();
        b.store(vars[1], x, None, []).unwrap();
        let _ = b.load(u32t, None, vars[2], None, []).unwrap();
        b.store(vars[2], y, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        let mut gone = HashSet::default();
        assert_eq!(bit_tests(&mut m, &mut f, &mut bound), 2);
        for t in [t1, t2] {
            let i = def_of(&f, t);
            assert_eq!(i.class.opcode, Op::INotEqual);
            let a = def_of(&f, id(&i.operands[0]).unwrap());
            assert_eq!(a.class.opcode, Op::BitwiseAnd);
            let bit = def_of(&f, id(&a.operands[1]).unwrap());
            assert_eq!(bit.class.opcode, Op::ShiftLeftLogical);
            assert_eq!(bit.operands, [Operand::IdRef(one), Operand::IdRef(l)]);
        }
        assert_eq!(def_of(&f, t3).class.opcode, Op::IEqual);
        let bits = insts(&f)
            .filter(|i| i.class.opcode == Op::ShiftLeftLogical && i.result_type == Some(u32t))
            .count();
        assert_eq!(bits, 1);
        // p and p3 as bitcasts, p4 as `wv`; the truncations of p and p3.
        assert_eq!(pairs(&mut m, &mut f, &mut bound, &mut gone), 5);
        assert!(gone.contains(&p4) && gone.contains(&p3lo));
        assert_eq!(def_of(&f, p3).class.opcode, Op::Bitcast);
        let pi = def_of(&f, p);
        assert_eq!(pi.class.opcode, Op::Bitcast);
        let v = def_of(&f, id(&pi.operands[0]).unwrap());
        assert_eq!(v.class.opcode, Op::CompositeConstruct);
        assert_eq!(v.operands, [Operand::IdRef(x), Operand::IdRef(y)]);
        assert_eq!(def_of(&f, p2).class.opcode, Op::BitwiseOr);
        assert!(gone.contains(&plo));
        let stores = |f: &Function| -> Vec<(Word, Word)> {
            insts(f)
                .filter(|i| i.class.opcode == Op::Store)
                .map(|i| (id(&i.operands[0]).unwrap(), id(&i.operands[1]).unwrap()))
                .collect()
        };
        assert!(stores(&f).contains(&(vars[4], x)));
        assert!(!stores(&f).iter().any(|s| s.1 == p3lo));
        assert!(stores(&f).contains(&(wo[1], wv)));
        // vars[4] now gets `x` twice (both truncations read it): the second store goes too.
        let before = stores(&f).len();
        assert_eq!(same_stores(&mut f), 3);
        let after = stores(&f);
        assert_eq!(after.len(), before - 3);
        assert_eq!(after.iter().filter(|s| **s == (vars[4], x)).count(), 1);
        assert!(!after.contains(&(vars[0], lv)));
        assert_eq!(after.iter().filter(|s| **s == (vars[1], x)).count(), 1);
        assert!(after.contains(&(vars[2], y)));
    }

    /// `pair_vars` (D260): `a` and `b` are stored as the two words of one vector and read back as
    /// one: they become one `uvec2` variable, the paired stores one vector store, the paired read one
    /// vector load, and a lone read of `a` goes through its component's pointer. `g` and `h` are read
    /// as a vector too, but `g` is stored between the two loads: left alone (D277).
    /// D275: the two words of a u64 `x` (`uconvert32(x)`, `uconvert32(x >> 32)`, as D274 leaves them)
    /// stored to two private scalars that nothing else reads as a pair become one store of
    /// `bitcast uvec2(x)` to one `uvec2` variable; the conversions and the shift go (dead code). Kept: the
    /// words of another u64 whose low and high words are also read elsewhere (the bitcast would cost
    /// more than the store it saves). The identity: `bitcast uvec2(x)` has component 0 `x`'s low word.
    #[test]
    fn pair_vars_store_two_words_of_a_longer_vector_through_a_shuffle() {
        // D279: `store a x.3; store b x.1` of a uvec4 `x` (a `global_load_dwordx4`'s words) becomes
        // one store of `shuffle(x, x, 1, 3)` into the pair (b, a): the pair's component 0 is the
        // lower word's register. The extractions only the stores read go. y's words are read again
        // (an add of both): the shuffle would cost more than it saves, so c and d stay scalars.
        let (mut b, Tys { u32t, pu, .. }) = begun();
        let uvec2 = b.type_vector(u32t, 2);
        let uvec4 = b.type_vector(u32t, 4);
        let pq = b.type_pointer(None, StorageClass::Function, uvec4);
        b.begin_block(None).unwrap();
        let [va, vb, vc, vd, ve] =
            [0; 5].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let [vx, vy] = [0; 2].map(|_| b.variable(pq, None, StorageClass::Function, None));
        let x = b.load(uvec4, None, vx, None, []).unwrap();
        let x3 = b.composite_extract(u32t, None, x, [3]).unwrap();
        let x1 = b.composite_extract(u32t, None, x, [1]).unwrap();
        b.store(va, x3, None, []).unwrap();
        b.store(vb, x1, None, []).unwrap();
        let la = b.load(u32t, None, va, None, []).unwrap();
        b.store(ve, la, None, []).unwrap();
        let y = b.load(uvec4, None, vy, None, []).unwrap();
        let y0 = b.composite_extract(u32t, None, y, [0]).unwrap();
        let y2 = b.composite_extract(u32t, None, y, [2]).unwrap();
        b.store(vc, y0, None, []).unwrap();
        b.store(vd, y2, None, []).unwrap();
        let s = b.i_add(u32t, None, y0, y2).unwrap();
        b.store(ve, s, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(pair_vars(&mut m, &mut f, &mut bound), 1);
        dead_code(&m, &mut f, &mut HashSet::default());
        let vars = variables(&f);
        assert!(
            !vars.contains(&va) && !vars.contains(&vb),
            "a and b are gone"
        );
        assert!(vars.contains(&vc) && vars.contains(&vd), "c and d stay");
        let vstore = insts(&f)
            .find(|i| {
                i.class.opcode == Op::Store
                    && id(&i.operands[1]).is_some_and(|v| {
                        insts(&f).any(|d| d.result_id == Some(v) && d.result_type == Some(uvec2))
                    })
            })
            .expect("one vector store");
        let sh = def_of(&f, id(&vstore.operands[1]).unwrap());
        assert_eq!(
            (sh.class.opcode, sh.operands.clone()),
            (
                Op::VectorShuffle,
                vec![
                    Operand::IdRef(x),
                    Operand::IdRef(x),
                    Operand::LiteralBit32(1),
                    Operand::LiteralBit32(3)
                ]
            )
        );
        assert!(insts(&f).all(|i| i.result_id != Some(x1) && i.result_id != Some(x3)));
        // a (x.3) alone is read through the pair's component 1.
        let l = def_of(&f, la);
        let p = def_of(&f, id(&l.operands[0]).unwrap());
        assert_eq!(p.class.opcode, Op::AccessChain);
        let k = id(&p.operands[1]).unwrap();
        let one = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(k))
            .expect("a constant index");
        assert_eq!(one.operands, vec![Operand::LiteralBit32(1)]);
    }

    #[test]
    fn pair_vars_store_a_u64s_words_as_its_vector() {
        let (
            mut b,
            Tys {
                u32t, u64t, pu, pw, ..
            },
        ) = begun();
        let uvec2 = b.type_vector(u32t, 2);
        let c32 = b.constant_bit64(u64t, 32);
        b.begin_block(None).unwrap();
        let [va, vb, vc, vd, ve] =
            [0; 5].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let [vx, vy] = [0; 2].map(|_| b.variable(pw, None, StorageClass::Function, None));
        let words = |b: &mut Builder, x: Word| {
            let lo = b.u_convert(u32t, None, x).unwrap();
            let sh = b.shift_right_logical(u64t, None, x, c32).unwrap();
            let hi = b.u_convert(u32t, None, sh).unwrap();
            (lo, hi)
        };
        let x = b.load(u64t, None, vx, None, []).unwrap();
        let (lo, hi) = words(&mut b, x);
        b.store(va, lo, None, []).unwrap();
        b.store(vb, hi, None, []).unwrap();
        let la = b.load(u32t, None, va, None, []).unwrap();
        b.store(ve, la, None, []).unwrap();
        // Kept: y's words are read again (an add of both).
        let y = b.load(u64t, None, vy, None, []).unwrap();
        let (ylo, yhi) = words(&mut b, y);
        b.store(vc, ylo, None, []).unwrap();
        b.store(vd, yhi, None, []).unwrap();
        let s = b.i_add(u32t, None, ylo, yhi).unwrap();
        b.store(ve, s, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(pair_vars(&mut m, &mut f, &mut bound), 1);
        dead_code(&m, &mut f, &mut HashSet::default());
        let ins: Vec<&Instruction> = insts(&f).collect();
        let vars = variables(&f);
        assert!(
            !vars.contains(&va) && !vars.contains(&vb),
            "a and b are gone"
        );
        assert!(vars.contains(&vc) && vars.contains(&vd), "c and d stay");
        let vstore = ins
            .iter()
            .find(|i| {
                i.class.opcode == Op::Store
                    && id(&i.operands[1]).is_some_and(|v| {
                        insts(&f).any(|d| d.result_id == Some(v) && d.result_type == Some(uvec2))
                    })
            })
            .expect("one vector store");
        let cast = def_of(&f, id(&vstore.operands[1]).unwrap());
        assert_eq!(
            (cast.class.opcode, cast.operands.clone()),
            (Op::Bitcast, vec![Operand::IdRef(x)])
        );
        // x's conversions and shift are gone; y's stay.
        assert!(insts(&f).all(|i| i.result_id != Some(lo) && i.result_id != Some(hi)));
        assert!(insts(&f).any(|i| i.result_id == Some(ylo)));
        // The low word read alone goes through the component pointer.
        let l = def_of(&f, la);
        let p = def_of(&f, id(&l.operands[0]).unwrap());
        assert_eq!(p.class.opcode, Op::AccessChain);
        // Component 0 of the vector of x is x's low word (little-endian words, SPIR-V's bitcast).
        let v: u64 = 0x0123_4567_89ab_cdef;
        let bytes = v.to_le_bytes();
        assert_eq!(
            (
                u32::from_le_bytes(bytes[..4].try_into().unwrap()),
                u32::from_le_bytes(bytes[4..].try_into().unwrap())
            ),
            (v as u32, (v >> 32) as u32)
        );
    }

    /// D277: a register read in two pairs takes part in the one that saves most (two paired reads of
    /// `a, b` against one of `a, c`; before, neither was made), a paired read whose vector comes after a
    /// store to one of its registers reads the vector where its later load was, and a pair of stores of
    /// a vector's two words counts the words only the stores read, whether or not the pair is read
    /// together (`d, e`).
    #[test]
    fn pair_vars_takes_the_pair_that_saves_most_and_stored_words() {
        let (
            mut b,
            Tys {
                u32t, u64t, pu, pw, ..
            },
        ) = begun();
        let uvec2 = b.type_vector(u32t, 2);
        b.begin_block(None).unwrap();
        let [va, vb, vc, vd, ve] =
            [0; 5].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let [o1, o2, o3] = [0; 3].map(|_| b.variable(pw, None, StorageClass::Function, None));
        let pair = |b: &mut Builder, x: Word, y: Word, out: Word| {
            let lx = b.load(u32t, None, x, None, []).unwrap();
            let ly = b.load(u32t, None, y, None, []).unwrap();
            let v = b.composite_construct(uvec2, None, [lx, ly]).unwrap();
            let v64 = b.bitcast(u64t, None, v).unwrap();
            b.store(out, v64, None, []).unwrap();
            v
        };
        let ab1 = pair(&mut b, va, vb, o1);
        // A read whose vector comes after a store to `a` (the loads read the words before it): the
        // vector load goes where the later load was.
        let la = b.load(u32t, None, va, None, []).unwrap();
        let lb = b.load(u32t, None, vb, None, []).unwrap();
        let k7 = b.constant_bit32(u32t, 7);
        b.store(va, k7, None, []).unwrap();
        let ab2 = b.composite_construct(uvec2, None, [la, lb]).unwrap();
        let ab2_64 = b.bitcast(u64t, None, ab2).unwrap();
        b.store(o2, ab2_64, None, []).unwrap();
        let ac = pair(&mut b, va, vc, o3);
        // d and e: the two words of a loaded u64, stored and never read together.
        let x = b.load(u64t, None, o1, None, []).unwrap();
        let xv = b.bitcast(uvec2, None, x).unwrap();
        let x0 = b.composite_extract(u32t, None, xv, [0]).unwrap();
        let x1 = b.composite_extract(u32t, None, xv, [1]).unwrap();
        b.store(vd, x0, None, []).unwrap();
        b.store(ve, x1, None, []).unwrap();
        let ld = b.load(u32t, None, vd, None, []).unwrap();
        b.store(va, ld, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(pair_vars(&mut m, &mut f, &mut bound), 2);
        dead_code(&m, &mut f, &mut HashSet::default());
        let vars = variables(&f);
        for (v, name) in [(va, "a"), (vb, "b"), (vd, "d"), (ve, "e")] {
            assert!(!vars.contains(&v), "{name} is a component of a pair");
        }
        assert!(vars.contains(&vc), "c stays a scalar");
        for v in [ab1, ab2] {
            assert_eq!(
                def_of(&f, v).class.opcode,
                Op::Load,
                "a, b read as one vector"
            );
        }
        // The second read's vector load sits before the store of 7 to `a`.
        let at_load = insts(&f).position(|i| i.result_id == Some(ab2)).unwrap();
        let at_store = insts(&f)
            .position(|i| {
                i.class.opcode == Op::Store && i.operands.get(1) == Some(&Operand::IdRef(k7))
            })
            .unwrap();
        assert!(
            at_load < at_store,
            "the vector is read before `a` is stored"
        );
        assert_eq!(def_of(&f, ac).class.opcode, Op::CompositeConstruct);
        // The stored words are one store of the vector; its extracts are gone.
        assert!(
            insts(&f)
                .any(|i| i.class.opcode == Op::Store
                    && i.operands.get(1) == Some(&Operand::IdRef(xv)))
        );
        assert!(insts(&f).all(|i| i.result_id != Some(x0) && i.result_id != Some(x1)));
    }

    #[test]
    fn pair_vars_makes_one_vector_variable_of_words_read_and_written_together() {
        let (
            mut b,
            Tys {
                u32t, u64t, pu, pw, ..
            },
        ) = begun();
        let uvec2 = b.type_vector(u32t, 2);
        let zero = b.constant_bit32(u32t, 0);
        b.begin_block(None).unwrap();
        let [va, vb, vg, vh] =
            [0; 4].map(|_| b.variable(pu, None, StorageClass::Function, Some(zero)));
        let [vc, vd, ve] = [0; 3].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let [o1, o2] = [0; 2].map(|_| b.variable(pw, None, StorageClass::Function, None));
        let c = b.load(u32t, None, vc, None, []).unwrap();
        let d = b.load(u32t, None, vd, None, []).unwrap();
        let v = b.composite_construct(uvec2, None, [c, d]).unwrap();
        let v0 = b.composite_extract(u32t, None, v, [0]).unwrap();
        let v1 = b.composite_extract(u32t, None, v, [1]).unwrap();
        b.store(va, v0, None, []).unwrap();
        b.store(vb, v1, None, []).unwrap();
        let lone = b.load(u32t, None, va, None, []).unwrap();
        b.store(ve, lone, None, []).unwrap();
        let la = b.load(u32t, None, va, None, []).unwrap();
        let lb = b.load(u32t, None, vb, None, []).unwrap();
        let w = b.composite_construct(uvec2, None, [la, lb]).unwrap();
        let w64 = b.bitcast(u64t, None, w).unwrap();
        b.store(o1, w64, None, []).unwrap();
        // g is stored between the two loads: no vector load reads both words (D277).
        let lg = b.load(u32t, None, vg, None, []).unwrap();
        b.store(vg, c, None, []).unwrap();
        let lh = b.load(u32t, None, vh, None, []).unwrap();
        let x = b.composite_construct(uvec2, None, [lg, lh]).unwrap();
        let x64 = b.bitcast(u64t, None, x).unwrap();
        b.store(o2, x64, None, []).unwrap();
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(pair_vars(&mut m, &mut f, &mut bound), 1);
        let ins: Vec<&Instruction> = insts(&f).collect();
        let vars = variables(&f);
        assert!(
            !vars.contains(&va) && !vars.contains(&vb),
            "a and b are gone"
        );
        assert!(vars.contains(&vg) && vars.contains(&vh), "g and h stay");
        let pair = *ins
            .iter()
            .find(|i| {
                i.class.opcode == Op::Variable && i.operands.len() == 2 && {
                    let t = i.result_type.unwrap();
                    m.types_global_values.iter().any(|d| {
                        d.result_id == Some(t) && d.operands.get(1) == Some(&Operand::IdRef(uvec2))
                    })
                }
            })
            .and_then(|i| i.result_id)
            .as_ref()
            .unwrap();
        let wl = def_of(&f, w);
        assert_eq!(
            wl.class.opcode,
            Op::Load,
            "the paired read is one vector load"
        );
        assert_eq!(wl.operands, [Operand::IdRef(pair)]);
        assert_eq!(def_of(&f, x).class.opcode, Op::CompositeConstruct);
        let stores: Vec<(Word, Word)> = ins
            .iter()
            .filter(|i| i.class.opcode == Op::Store)
            .map(|i| (id(&i.operands[0]).unwrap(), id(&i.operands[1]).unwrap()))
            .collect();
        assert!(
            stores.contains(&(pair, v)),
            "the paired stores are one vector store"
        );
        assert!(!stores.iter().any(|s| s.1 == v0 || s.1 == v1));
        // The lone read of `a` goes through a pointer to component 0 of the pair.
        let lp = id(&def_of(&f, lone).operands[0]).unwrap();
        let chain = def_of(&f, lp);
        assert_eq!(chain.class.opcode, Op::AccessChain);
        assert_eq!(chain.operands[0], Operand::IdRef(pair));
        assert_eq!(chain.operands[1], Operand::IdRef(zero));
    }

    /// `unread_initializers` (D261): `v` is stored on both ways to its only load, so its initializer
    /// goes; `w` is stored on one way only (the second the dataflow visits) and loaded after the join
    /// (the initializer may be read): kept; `x` is loaded in a loop whose body stores it after the load
    /// (the first iteration reads the initializer): kept.
    #[test]
    fn unread_initializers_removes_only_initializers_no_load_can_see() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pu,
                pb,
                ..
            },
        ) = begun();
        let zero = b.constant_bit32(u32t, 0);
        let one = b.constant_bit32(u32t, 1);
        let [entry, left, right, join, head, body, cont, exit] = [0; 8].map(|_| b.id());
        b.begin_block(Some(entry)).unwrap();
        let [v, w, x] = [0; 3].map(|_| b.variable(pu, None, StorageClass::Function, Some(zero)));
        let [o] = [0; 1].map(|_| b.variable(pu, None, StorageClass::Function, None));
        let cv = b.variable(pb, None, StorageClass::Function, None);
        let c = b.load(boolt, None, cv, None, []).unwrap();
        b.selection_merge(join, SelectionControl::NONE).unwrap();
        b.branch_conditional(c, left, right, []).unwrap();
        b.begin_block(Some(left)).unwrap();
        b.store(v, one, None, []).unwrap();
        b.branch(join).unwrap();
        b.begin_block(Some(right)).unwrap();
        b.store(v, zero, None, []).unwrap();
        b.store(w, one, None, []).unwrap();
        b.branch(join).unwrap();
        b.begin_block(Some(join)).unwrap();
        let lv = b.load(u32t, None, v, None, []).unwrap();
        let lw = b.load(u32t, None, w, None, []).unwrap();
        let s = b.i_add(u32t, None, lv, lw).unwrap();
        b.store(o, s, None, []).unwrap();
        b.branch(head).unwrap();
        b.begin_block(Some(head)).unwrap();
        b.loop_merge(exit, cont, spirv::LoopControl::NONE, [])
            .unwrap();
        let c2 = b.load(boolt, None, cv, None, []).unwrap();
        b.branch_conditional(c2, body, exit, []).unwrap();
        b.begin_block(Some(body)).unwrap();
        let lx = b.load(u32t, None, x, None, []).unwrap();
        let nx = b.i_add(u32t, None, lx, one).unwrap();
        b.store(x, nx, None, []).unwrap();
        b.branch(cont).unwrap();
        b.begin_block(Some(cont)).unwrap();
        b.branch(head).unwrap();
        b.begin_block(Some(exit)).unwrap();
        let (_, mut f, _) = finish(b);
        assert_eq!(unread_initializers(&mut f), 1);
        let init = |var: Word| {
            f.blocks[0]
                .instructions
                .iter()
                .find(|i| i.result_id == Some(var))
                .map(|i| i.operands.len() == 2)
                .unwrap()
        };
        assert!(!init(v), "v: every way to its load stores it first");
        assert!(init(w), "w: the left way reaches its load unstored");
        assert!(
            init(x),
            "x: the loop's first iteration loads the initializer"
        );
    }

    /// D270: stores whose only loads the later rewrites delete go too. `shrink` runs `dead_stores` before
    /// the joins and the final `dead_code`; a load whose value nothing reads is deleted after it, and the
    /// stores it kept alive stayed. Here `c` is loaded into `e`, `e` is loaded into an addition nothing
    /// reads, and `a` is loaded into `G` (a Private variable: observed). The end of `shrink` now deletes
    /// `e`'s store, then (its value's last load gone) `c`'s, with both variables; `a`'s store stays.
    /// D280: in a loop, `on = i == 2 ? w : on` and `w = w + 7`, and nothing else reads either: both go
    /// with their loads, selects and stores, though the back edge keeps each store live for
    /// [`dead_stores`]. `k = i == 2 ? j : k`, `j = j + 7` have the same shape but `k` is also stored to
    /// the private global `g` after the loop: both stay, as does the counter `i`, which the loop's branch
    /// reads.
    #[test]
    fn unobserved_vars_go_with_the_stores_that_feed_them() {
        let mut b = Builder::new();
        let t = tys(&mut b);
        let ppriv = b.type_pointer(None, StorageClass::Private, t.u32t);
        let g = b.variable(ppriv, None, StorageClass::Private, None);
        let [zero, one, two, four, seven] = [0u32, 1, 2, 4, 7].map(|v| b.constant_bit32(t.u32t, v));
        b.begin_function(t.void, None, FunctionControl::NONE, t.fnt)
            .unwrap();
        let entry = b.begin_block(None).unwrap();
        let _ = entry;
        let [on, w, k, j, i] = [0; 5].map(|_| b.variable(t.pu, None, StorageClass::Function, None));
        for v in [on, w, k, j, i] {
            b.store(v, zero, None, []).unwrap();
        }
        let (header, body, cont, exit) = (b.id(), b.id(), b.id(), b.id());
        b.branch(header).unwrap();
        b.begin_block(Some(header)).unwrap();
        let li = b.load(t.u32t, None, i, None, []).unwrap();
        let c = b.u_less_than(t.boolt, None, li, four).unwrap();
        b.loop_merge(exit, cont, spirv::LoopControl::NONE, [])
            .unwrap();
        b.branch_conditional(c, body, exit, []).unwrap();
        b.begin_block(Some(body)).unwrap();
        let at2 = b.i_equal(t.boolt, None, li, two).unwrap();
        let lo = b.load(t.u32t, None, on, None, []).unwrap();
        let lw = b.load(t.u32t, None, w, None, []).unwrap();
        let so = b.select(t.u32t, None, at2, lw, lo).unwrap();
        b.store(on, so, None, []).unwrap();
        let sw = b.i_add(t.u32t, None, lw, seven).unwrap();
        b.store(w, sw, None, []).unwrap();
        let lk = b.load(t.u32t, None, k, None, []).unwrap();
        let lj = b.load(t.u32t, None, j, None, []).unwrap();
        let sk = b.select(t.u32t, None, at2, lj, lk).unwrap();
        b.store(k, sk, None, []).unwrap();
        let sj = b.i_add(t.u32t, None, lj, seven).unwrap();
        b.store(j, sj, None, []).unwrap();
        b.branch(cont).unwrap();
        b.begin_block(Some(cont)).unwrap();
        let i1 = b.i_add(t.u32t, None, li, one).unwrap();
        b.store(i, i1, None, []).unwrap();
        b.branch(header).unwrap();
        b.begin_block(Some(exit)).unwrap();
        let lk2 = b.load(t.u32t, None, k, None, []).unwrap();
        b.store(g, lk2, None, []).unwrap();
        let (m, st) = shrink_built(
            b,
            Passes {
                live: true,
                dead: true,
                ..Passes::NONE
            },
        );
        let f = m.functions.last().unwrap();
        let vars: Vec<Word> = f.blocks[0]
            .instructions
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
            .filter_map(|i| i.result_id)
            .collect();
        assert_eq!(vars, [k, j, i], "on and w went");
        let touched: HashSet<Word> = insts(f)
            .filter(|i| matches!(i.class.opcode, Op::Load | Op::Store))
            .filter_map(|i| i.operands.first().and_then(id))
            .collect();
        assert!(!touched.contains(&on) && !touched.contains(&w));
        assert!(insts(f).all(|i| ![so, lo, sw, lw].contains(&i.result_id.unwrap_or(0))));
        assert!(
            [sk, sj]
                .iter()
                .all(|&x| insts(f).any(|i| i.result_id == Some(x))),
            "k's and j's computations stay"
        );
        assert!(st.dead_stores >= 2);
    }

    #[test]
    fn shrink_deletes_stores_whose_loads_the_later_rewrites_delete() {
        let mut b = Builder::new();
        let t = tys(&mut b);
        let ppriv = b.type_pointer(None, StorageClass::Private, t.u32t);
        let g = b.variable(ppriv, None, StorageClass::Private, None);
        let five = b.constant_bit32(t.u32t, 5);
        let seven = b.constant_bit32(t.u32t, 7);
        let one = b.constant_bit32(t.u32t, 1);
        b.begin_function(t.void, None, FunctionControl::NONE, t.fnt)
            .unwrap();
        b.begin_block(None).unwrap();
        let [a, c, e] = [0; 3].map(|_| b.variable(t.pu, None, StorageClass::Function, None));
        b.store(a, seven, None, []).unwrap();
        b.store(c, five, None, []).unwrap();
        let lc = b.load(t.u32t, None, c, None, []).unwrap();
        b.store(e, lc, None, []).unwrap();
        let le = b.load(t.u32t, None, e, None, []).unwrap();
        b.i_add(t.u32t, None, le, one).unwrap();
        let la = b.load(t.u32t, None, a, None, []).unwrap();
        b.store(g, la, None, []).unwrap();
        let (m, st) = shrink_built(
            b,
            Passes {
                live: true,
                dead: true,
                ..Passes::NONE
            },
        );
        let f = m.functions.last().unwrap();
        let stored: Vec<Word> = f
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter(|i| i.class.opcode == Op::Store)
            .filter_map(|i| i.operands.first().and_then(id))
            .collect();
        assert_eq!(stored, [a, g], "only a's store and G's stay");
        let vars: Vec<Word> = f.blocks[0]
            .instructions
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
            .filter_map(|i| i.result_id)
            .collect();
        assert_eq!(vars, [a], "c and e went with their stores");
        assert_eq!(st.dead_stores, 2);
    }

    /// `same_stores` across blocks (D261): a store of a variable's initializer before anything
    /// else stored to it, and a store of the value both predecessors of a block left in the variable, go;
    /// a store of a value one predecessor did not leave stays.
    #[test]
    fn same_stores_deletes_stores_of_the_value_held_on_entry_to_a_block() {
        let (
            mut b,
            Tys {
                boolt,
                u32t,
                pu,
                pb,
                ..
            },
        ) = begun();
        let zero = b.constant_bit32(u32t, 0);
        let one = b.constant_bit32(u32t, 1);
        let [entry, left, right, join] = [0; 4].map(|_| b.id());
        b.begin_block(Some(entry)).unwrap();
        let v = b.variable(pu, None, StorageClass::Function, Some(zero));
        let w = b.variable(pu, None, StorageClass::Function, Some(zero));
        let cv = b.variable(pb, None, StorageClass::Function, None);
        // The initializer: held.
        b.store(v, zero, None, []).unwrap();
        b.store(w, one, None, []).unwrap();
        let c = b.load(boolt, None, cv, None, []).unwrap();
        b.selection_merge(join, SelectionControl::NONE).unwrap();
        b.branch_conditional(c, left, right, []).unwrap();
        b.begin_block(Some(left)).unwrap();
        b.store(v, one, None, []).unwrap();
        b.branch(join).unwrap();
        b.begin_block(Some(right)).unwrap();
        b.store(v, one, None, []).unwrap();
        b.store(w, zero, None, []).unwrap();
        b.branch(join).unwrap();
        b.begin_block(Some(join)).unwrap();
        // `v` is 1 on both ways in: held. `w` is 1 or 0: not held.
        b.store(v, one, None, []).unwrap();
        b.store(w, one, None, []).unwrap();
        let (_, mut f, _) = finish(b);
        assert_eq!(same_stores(&mut f), 2);
        let stores: Vec<(Word, Word, Word)> = f
            .blocks
            .iter()
            .flat_map(|bl| {
                let l = label(bl);
                bl.instructions
                    .iter()
                    .filter(|i| i.class.opcode == Op::Store)
                    .map(move |i| (l, id(&i.operands[0]).unwrap(), id(&i.operands[1]).unwrap()))
            })
            .collect();
        assert_eq!(
            stores,
            [
                (entry, w, one),
                (left, v, one),
                (right, v, one),
                (right, w, zero),
                (join, w, one)
            ]
        );
    }

    /// Rewrite `v` (D211) on a function built by hand: a Workgroup array of 2-vectors `a2` and one of
    /// 4-vectors `a4`, element indices `i`, `j` loaded from Function variables; each group's loads are
    /// stored to Function variables (so they stay), and a barrier ends each case.
    /// - `a2[i].x`, `a2[i].y`, a Function store between them: one vector load, two extracts;
    /// - `a2[i].x`, a Workgroup store, `a2[i].y`: kept (the store may change the element);
    /// - `a2[i].x`, a barrier, `a2[i].y`: kept;
    /// - `a2[i].x`, `a2[j].y`: kept (two elements);
    /// - `a4[i].x`, `a4[i].z`: kept (2 of 4 components: one loop with four branches is no cheaper);
    /// - `a4[i].x`, `a4[i].y`, `a4[i].w`: one vector load, three extracts.
    #[test]
    fn vector_loads_join_components_of_one_element_with_no_write_between() {
        let mut b = Builder::new();
        let Tys {
            void,
            u32t,
            fnt,
            pu,
            ..
        } = tys(&mut b);
        let v2 = b.type_vector(u32t, 2);
        let v4 = b.type_vector(u32t, 4);
        let n = b.constant_bit32(u32t, 64);
        let ar2 = b.type_array(v2, n);
        let ar4 = b.type_array(v4, n);
        let pa2 = b.type_pointer(None, StorageClass::Workgroup, ar2);
        let pa4 = b.type_pointer(None, StorageClass::Workgroup, ar4);
        let pv2 = b.type_pointer(None, StorageClass::Workgroup, v2);
        let pv4 = b.type_pointer(None, StorageClass::Workgroup, v4);
        let pwu = b.type_pointer(None, StorageClass::Workgroup, u32t);
        let a2 = b.variable(pa2, None, StorageClass::Workgroup, None);
        let a4 = b.variable(pa4, None, StorageClass::Workgroup, None);
        let c: Vec<Word> = (0..4).map(|k| b.constant_bit32(u32t, k)).collect();
        let wg = b.constant_bit32(u32t, 2);
        let sem = b.constant_bit32(u32t, 0x108);
        b.begin_function(void, None, FunctionControl::NONE, fnt)
            .unwrap();
        b.begin_block(None).unwrap();
        let vars: Vec<Word> = (0..3)
            .map(|_| b.variable(pu, None, StorageClass::Function, None))
            .collect();
        let i = b.load(u32t, None, vars[0], None, []).unwrap();
        let j = b.load(u32t, None, vars[1], None, []).unwrap();
        let comp = |b: &mut Builder, a: Word, e: Word, k: usize| {
            let p = b.access_chain(pwu, None, a, [e, c[k]]).unwrap();
            b.load(u32t, None, p, None, []).unwrap()
        };
        let keep = |b: &mut Builder, x: Word| b.store(vars[2], x, None, []).unwrap();
        let fence = |b: &mut Builder| b.control_barrier(wg, wg, sem).unwrap();
        let mut groups = Vec::new();
        // Joined.
        let x0 = comp(&mut b, a2, i, 0);
        keep(&mut b, x0);
        let x1 = comp(&mut b, a2, i, 1);
        keep(&mut b, x1);
        groups.push(vec![x0, x1]);
        fence(&mut b);
        // A Workgroup store between.
        let y0 = comp(&mut b, a2, i, 0);
        let p = b.access_chain(pwu, None, a2, [j, c[1]]).unwrap();
        b.store(p, y0, None, []).unwrap();
        let y1 = comp(&mut b, a2, i, 1);
        keep(&mut b, y1);
        groups.push(vec![y0, y1]);
        fence(&mut b);
        // A barrier between.
        let z0 = comp(&mut b, a2, i, 0);
        keep(&mut b, z0);
        fence(&mut b);
        let z1 = comp(&mut b, a2, i, 1);
        keep(&mut b, z1);
        groups.push(vec![z0, z1]);
        fence(&mut b);
        // Two elements.
        let u0 = comp(&mut b, a2, i, 0);
        let u1 = comp(&mut b, a2, j, 1);
        keep(&mut b, u0);
        keep(&mut b, u1);
        groups.push(vec![u0, u1]);
        fence(&mut b);
        // Two of four components.
        let w0 = comp(&mut b, a4, i, 0);
        let w2 = comp(&mut b, a4, i, 2);
        keep(&mut b, w0);
        keep(&mut b, w2);
        groups.push(vec![w0, w2]);
        fence(&mut b);
        // Three of four.
        let t0 = comp(&mut b, a4, i, 0);
        let t1 = comp(&mut b, a4, i, 1);
        let t3 = comp(&mut b, a4, i, 3);
        keep(&mut b, t3);
        keep(&mut b, t0);
        keep(&mut b, t1);
        groups.push(vec![t0, t1, t3]);
        let (m, mut f, mut bound) = finish(b);
        assert_eq!(vector_loads(&m, &mut f, &mut bound), 5);
        // The joined groups: each load now an extract of one vector load of its element.
        for (g, (arr, pv, vt, comps)) in [
            (0, (a2, pv2, v2, vec![0, 1])),
            (5, (a4, pv4, v4, vec![0, 1, 3])),
        ] {
            let mut vector = None;
            for (&x, &k) in groups[g].iter().zip(&comps) {
                let e = def_of(&f, x);
                assert_eq!(e.class.opcode, Op::CompositeExtract);
                assert_eq!(e.result_type, Some(u32t));
                assert_eq!(e.operands[1], Operand::LiteralBit32(k));
                let v = id(&e.operands[0]).unwrap();
                assert!(vector.is_none_or(|w| w == v), "one vector load per group");
                vector = Some(v);
            }
            let l = def_of(&f, vector.unwrap());
            assert_eq!((l.class.opcode, l.result_type), (Op::Load, Some(vt)));
            let ch = def_of(&f, id(&l.operands[0]).unwrap());
            assert_eq!(ch.class.opcode, Op::AccessChain);
            assert_eq!(ch.result_type, Some(pv));
            assert_eq!(ch.operands, [Operand::IdRef(arr), Operand::IdRef(i)]);
        }
        // The others: loads of their component as before.
        for g in &groups[1..5] {
            for &x in g {
                let l = def_of(&f, x);
                assert_eq!((l.class.opcode, l.result_type), (Op::Load, Some(u32t)));
            }
        }
        // Each vector load precedes its extracts in the block (the first load's place).
        let order: Vec<Word> = insts(&f).filter_map(|i| i.result_id).collect();
        let at = |x: Word| order.iter().position(|&y| y == x).unwrap();
        for g in [0, 5] {
            let v = id(&def_of(&f, groups[g][0]).operands[0]).unwrap();
            assert!(groups[g].iter().all(|&x| at(v) < at(x)));
        }
    }

    /// D237: after rewrite `v`, a construct of the vector type from its extracts 0, 1, 2, 3 in order is
    /// the vector load (its uses read the load); constructs in another order, of fewer components or
    /// mixing another value stay.
    #[test]
    fn vector_loads_fold_a_construct_that_reassembles_the_load() {
        let mut b = Builder::new();
        let Tys {
            void,
            u32t,
            fnt,
            pu,
            ..
        } = tys(&mut b);
        let v4 = b.type_vector(u32t, 4);
        let n = b.constant_bit32(u32t, 64);
        let ar4 = b.type_array(v4, n);
        let pa4 = b.type_pointer(None, StorageClass::Workgroup, ar4);
        b.type_pointer(None, StorageClass::Workgroup, v4);
        let pwu = b.type_pointer(None, StorageClass::Workgroup, u32t);
        let pfv = b.type_pointer(None, StorageClass::Function, v4);
        let a4 = b.variable(pa4, None, StorageClass::Workgroup, None);
        let c: Vec<Word> = (0..4).map(|k| b.constant_bit32(u32t, k)).collect();
        b.begin_function(void, None, FunctionControl::NONE, fnt)
            .unwrap();
        b.begin_block(None).unwrap();
        let iv = b.variable(pu, None, StorageClass::Function, None);
        let out = b.variable(pfv, None, StorageClass::Function, None);
        let i = b.load(u32t, None, iv, None, []).unwrap();
        let x: Vec<Word> = (0..4)
            .map(|k| {
                let p = b.access_chain(pwu, None, a4, [i, c[k]]).unwrap();
                b.load(u32t, None, p, None, []).unwrap()
            })
            .collect();
        let whole = b
            .composite_construct(v4, None, [x[0], x[1], x[2], x[3]])
            .unwrap();
        let swapped = b
            .composite_construct(v4, None, [x[1], x[0], x[2], x[3]])
            .unwrap();
        let mixed = b
            .composite_construct(v4, None, [x[0], x[1], x[2], i])
            .unwrap();
        for v in [whole, swapped, mixed] {
            b.store(out, v, None, []).unwrap();
        }
        let (m, mut f, mut bound) = finish(b);
        assert_eq!(vector_loads(&m, &mut f, &mut bound), 4);
        let v = id(&def_of(&f, x[0]).operands[0]).unwrap();
        assert_eq!(def_of(&f, v).class.opcode, Op::Load);
        let stored: Vec<Word> = insts(&f)
            .filter(|i| i.class.opcode == Op::Store)
            .map(|i| id(&i.operands[1]).unwrap())
            .collect();
        assert_eq!(stored, [v, swapped, mixed]);
    }

    /// D262: values split into words and put together again. From a u64 `x`, an f64 `d`, a `v2u64` `w`
    /// and two words `a`, `b` (all loaded), stored:
    /// 1. `bitcast64(construct(uconvert32(x), uconvert32(x >> 32)))`: `x` itself;
    /// 2. `bitcast64(construct(extract(bitcast(d), 0), extract(bitcast(d), 1)))`: the u64 bitcast of `d`;
    /// 3. `bitcast64(construct(extract(bitcast4(w), 2), extract(bitcast4(w), 3)))`: `extract(w, 1)`;
    /// 4. `uconvert32(y)`, `uconvert32(y >> 32)` of `y = bitcast64(construct(a, b))`: `a` and `b`;
    /// 5. `bitcast_f64(bitcast64(d))`: `d`.
    ///
    /// Left alone: words 1 and 2 of `w` (not one 64-bit component), the low word of `x` with the high
    /// word of another u64, and a high word taken by a shift of 31.
    #[test]
    fn repack_joins_words_split_from_one_value() {
        let (mut b, t) = begun();
        let (u32t, u64t) = (t.u32t, t.u64t);
        let f64t = b.type_float(64, None);
        let v2 = b.type_vector(u32t, 2);
        let v4 = b.type_vector(u32t, 4);
        let w2 = b.type_vector(u64t, 2);
        let pd = b.type_pointer(None, StorageClass::Function, f64t);
        let pw2 = b.type_pointer(None, StorageClass::Function, w2);
        let (k31, k32) = (b.constant_bit64(u64t, 31), b.constant_bit64(u64t, 32));
        b.begin_block(None).unwrap();
        let xv = b.variable(t.pw, None, StorageClass::Function, None);
        let dv = b.variable(pd, None, StorageClass::Function, None);
        let wv = b.variable(pw2, None, StorageClass::Function, None);
        let uv = b.variable(t.pu, None, StorageClass::Function, None);
        // Stores of u64 (0-4, 8-10), u32 (5, 6) and f64 (7) values.
        let out: Vec<Word> = (0..11)
            .map(|k| {
                let p = match k {
                    5 | 6 => t.pu,
                    7 => pd,
                    _ => t.pw,
                };
                b.variable(p, None, StorageClass::Function, None)
            })
            .collect();
        let x = b.load(u64t, None, xv, None, []).unwrap();
        let x2 = b.load(u64t, None, xv, None, []).unwrap();
        let d = b.load(f64t, None, dv, None, []).unwrap();
        let w = b.load(w2, None, wv, None, []).unwrap();
        let [a, bw] = [0; 2].map(|_| b.load(u32t, None, uv, None, []).unwrap());
        let join = |b: &mut Builder, lo: Word, hi: Word| {
            let v = b.composite_construct(v2, None, [lo, hi]).unwrap();
            b.bitcast(u64t, None, v).unwrap()
        };
        // 1.
        let lo = b.u_convert(u32t, None, x).unwrap();
        let sh = b.shift_right_logical(u64t, None, x, k32).unwrap();
        let hi = b.u_convert(u32t, None, sh).unwrap();
        let y1 = join(&mut b, lo, hi);
        b.store(out[0], y1, None, []).unwrap();
        // 2.
        let dw = b.bitcast(v2, None, d).unwrap();
        let [d0, d1] = [0, 1].map(|k| b.composite_extract(u32t, None, dw, [k]).unwrap());
        let y2 = join(&mut b, d0, d1);
        b.store(out[1], y2, None, []).unwrap();
        // 3.
        let ww = b.bitcast(v4, None, w).unwrap();
        let [w0, w1, w2_, w3] =
            [0, 1, 2, 3].map(|k| b.composite_extract(u32t, None, ww, [k]).unwrap());
        let y3 = join(&mut b, w2_, w3);
        b.store(out[2], y3, None, []).unwrap();
        // 4.
        let y4 = join(&mut b, a, bw);
        let l4 = b.u_convert(u32t, None, y4).unwrap();
        let s4 = b.shift_right_logical(u64t, None, y4, k32).unwrap();
        let h4 = b.u_convert(u32t, None, s4).unwrap();
        b.store(out[5], l4, None, []).unwrap();
        b.store(out[6], h4, None, []).unwrap();
        // 5.
        let dd = b.bitcast(u64t, None, d).unwrap();
        let y5 = b.bitcast(f64t, None, dd).unwrap();
        b.store(out[7], y5, None, []).unwrap();
        // Left alone.
        let n1 = join(&mut b, w1, w2_);
        b.store(out[8], n1, None, []).unwrap();
        let sh2 = b.shift_right_logical(u64t, None, x2, k32).unwrap();
        let hi2 = b.u_convert(u32t, None, sh2).unwrap();
        let n2 = join(&mut b, lo, hi2);
        b.store(out[9], n2, None, []).unwrap();
        let sh31 = b.shift_right_logical(u64t, None, x, k31).unwrap();
        let hi31 = b.u_convert(u32t, None, sh31).unwrap();
        let n3 = join(&mut b, lo, hi31);
        b.store(out[10], n3, None, []).unwrap();
        let _ = w0;
        let (m, mut f, _) = finish(b);
        assert_eq!(repack(&m, &mut f, &mut HashSet::default()), 7);
        dead_code(&m, &mut f, &mut HashSet::default());
        let stored = |p: Word| {
            insts(&f)
                .find(|i| i.class.opcode == Op::Store && i.operands[0] == Operand::IdRef(p))
                .and_then(|i| id(&i.operands[1]))
                .unwrap()
        };
        assert_eq!(stored(out[0]), x);
        let i2 = def_of(&f, stored(out[1]));
        assert_eq!((i2.class.opcode, i2.result_type), (Op::Bitcast, Some(u64t)));
        assert_eq!(i2.operands, [Operand::IdRef(d)]);
        let i3 = def_of(&f, stored(out[2]));
        assert_eq!(
            (i3.class.opcode, i3.result_type),
            (Op::CompositeExtract, Some(u64t))
        );
        assert_eq!(i3.operands, [Operand::IdRef(w), Operand::LiteralBit32(1)]);
        assert_eq!((stored(out[5]), stored(out[6])), (a, bw));
        assert_eq!(stored(out[7]), d);
        for (p, n) in [(out[8], n1), (out[9], n2), (out[10], n3)] {
            assert_eq!(stored(p), n);
            let i = def_of(&f, n);
            assert_eq!(i.class.opcode, Op::Bitcast);
            assert_eq!(
                def_of(&f, id(&i.operands[0]).unwrap()).class.opcode,
                Op::CompositeConstruct
            );
        }
        // What only the joined words read went with them.
        for gone in [sh, hi, dw, d0, d1, y4, l4, s4, h4, dd] {
            assert!(insts(&f).all(|i| i.result_id != Some(gone)), "%{gone} left");
        }
    }

    /// D266: `v_addc`'s carry out, `((zext(a) + zext(b) + zext(c)) >> 32) & 1 == 1` with `c` a carry word,
    /// and the `!= 0` form without the mask become `sum > 0xffffffff`; a sum of three full words (it
    /// may reach 2^34: bit 32 alone is not "above 2^32 − 1") and a shift by 31 stay. The oracle for the
    /// rewritten compares is the arithmetic itself: every (a, b, c) of a small grid around the word
    /// boundary, both forms, evaluated by hand in u64.
    #[test]
    fn carry_compares_read_bit_32_of_a_sum_below_2_pow_33() {
        let (mut b, t) = begun();
        let (u32t, u64t, boolt) = (t.u32t, t.u64t, t.boolt);
        let (k1, k0) = (b.constant_bit32(u32t, 1), b.constant_bit32(u32t, 0));
        let (k32, k31) = (b.constant_bit64(u64t, 32), b.constant_bit64(u64t, 31));
        let st = b.type_struct([u32t, u32t]);
        b.begin_block(None).unwrap();
        let uv = b.variable(t.pu, None, StorageClass::Function, None);
        let out: Vec<Word> = (0..4)
            .map(|_| b.variable(t.pb, None, StorageClass::Function, None))
            .collect();
        let [x, y, z] = [0; 3].map(|_| b.load(u32t, None, uv, None, []).unwrap());
        let ac = b.i_add_carry(st, None, x, y).unwrap();
        let carry = b.composite_extract(u32t, None, ac, [1]).unwrap();
        let [zx, zy, zz, zc] = [x, y, z, carry].map(|v| b.u_convert(u64t, None, v).unwrap());
        let s2 = b.i_add(u64t, None, zx, zy).unwrap();
        let sum = b.i_add(u64t, None, s2, zc).unwrap();
        let sum3 = b.i_add(u64t, None, s2, zz).unwrap();
        let bit = |b: &mut Builder, v: Word, k: Word, mask: bool| {
            let sh = b.shift_right_logical(u64t, None, v, k).unwrap();
            let w = b.u_convert(u32t, None, sh).unwrap();
            if mask {
                b.bitwise_and(u32t, None, w, k1).unwrap()
            } else {
                w
            }
        };
        let b1 = bit(&mut b, sum, k32, true);
        let t1 = b.i_equal(boolt, None, b1, k1).unwrap();
        let b2 = bit(&mut b, sum, k32, false);
        let t2 = b.i_not_equal(boolt, None, b2, k0).unwrap();
        let b3 = bit(&mut b, sum3, k32, true);
        let t3 = b.i_equal(boolt, None, b3, k1).unwrap();
        let b4 = bit(&mut b, sum, k31, true);
        let t4 = b.i_equal(boolt, None, b4, k1).unwrap();
        for (o, v) in out.iter().zip([t1, t2, t3, t4]) {
            b.store(*o, v, None, []).unwrap();
        }
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(carry_compares(&mut m, &mut f, &mut bound), 2);
        for tk in [t1, t2] {
            let i = def_of(&f, tk);
            assert_eq!(i.class.opcode, Op::UGreaterThan);
            assert_eq!(id(&i.operands[0]), Some(sum));
            let k = id(&i.operands[1]).unwrap();
            assert_eq!(
                global_def(&m, k).operands,
                [Operand::LiteralBit64(0xffff_ffff)]
            );
        }
        for tk in [t3, t4] {
            assert_eq!(def_of(&f, tk).class.opcode, Op::IEqual);
        }
        // The identity the rewrite rests on, over the grid (a + b + carry, carry in {0, 1}).
        let grid = [
            0u64,
            1,
            2,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_fffe,
            0xffff_ffff,
        ];
        for &a in &grid {
            for &bb in &grid {
                for cin in [0u64, 1] {
                    let s = a + bb + cin;
                    assert_eq!((s >> 32) & 1 == 1, s > 0xffff_ffff, "{a} {bb} {cin}");
                }
            }
        }
        // And the bound it needs: three full words can pass 2^33 with bit 32 clear.
        let s = 3 * 0xffff_ffffu64 - 0xffff_fffd;
        assert!((s >> 32) & 1 == 0 && s > 0xffff_ffff);
    }

    /// D267: `bitcast64(v) ^ uconvert64(w)` (an f64 operand read from a register pair, made opaque) is
    /// `bitcast64(v ^ (w, 0))`; then `repack` makes the f64 bitcast read the vector XOR. A pair also read
    /// as u64 elsewhere and an XOR with a u64 that is no zero extension stay. Oracle: the words of the
    /// XOR of the two u64 values, computed by hand for a few patterns.
    #[test]
    fn pair_xors_xor_each_word_of_a_pair() {
        let (mut b, t) = begun();
        let (u32t, u64t) = (t.u32t, t.u64t);
        let f64t = b.type_float(64, None);
        let v2 = b.type_vector(u32t, 2);
        let pv2 = b.type_pointer(None, StorageClass::Function, v2);
        let pd = b.type_pointer(None, StorageClass::Function, f64t);
        b.begin_block(None).unwrap();
        let vv = b.variable(pv2, None, StorageClass::Function, None);
        let uv = b.variable(t.pu, None, StorageClass::Function, None);
        let out: Vec<Word> = (0..4)
            .map(|k| {
                let p = if k == 3 { t.pw } else { pd };
                b.variable(p, None, StorageClass::Function, None)
            })
            .collect();
        let w = b.load(u32t, None, uv, None, []).unwrap();
        let zw = b.u_convert(u64t, None, w).unwrap();
        let [v, v2b, v3] = [0; 3].map(|_| b.load(v2, None, vv, None, []).unwrap());
        // `bitcast f64(bitcast64(pair) ^ other)` stored to `out[k]`: (the u64 of the pair, the XOR).
        let opaque = |b: &mut Builder, pair: Word, other: Word, k: usize| {
            let a = b.bitcast(u64t, None, pair).unwrap();
            let x = b.bitwise_xor(u64t, None, a, other).unwrap();
            let fx = b.bitcast(f64t, None, x).unwrap();
            b.store(out[k], fx, None, []).unwrap();
            (a, x)
        };
        // Rewritten.
        opaque(&mut b, v, zw, 0);
        // Kept: the pair's u64 is also stored.
        let (a2, x2) = opaque(&mut b, v2b, zw, 1);
        b.store(out[3], a2, None, []).unwrap();
        // Kept: the other operand is a u64 of its own.
        let (_, x3) = opaque(&mut b, v3, a2, 2);
        let (mut m, mut f, mut bound) = finish(b);
        assert_eq!(pair_xors(&mut m, &mut f, &mut bound), 1);
        repack(&m, &mut f, &mut HashSet::default());
        dead_code(&m, &mut f, &mut HashSet::default());
        let stored = |p: Word| {
            insts(&f)
                .find(|i| i.class.opcode == Op::Store && i.operands[0] == Operand::IdRef(p))
                .and_then(|i| id(&i.operands[1]))
                .unwrap()
        };
        let f0 = def_of(&f, stored(out[0]));
        assert_eq!((f0.class.opcode, f0.result_type), (Op::Bitcast, Some(f64t)));
        let vx = def_of(&f, id(&f0.operands[0]).unwrap());
        assert_eq!(
            (vx.class.opcode, vx.result_type),
            (Op::BitwiseXor, Some(v2))
        );
        assert_eq!(id(&vx.operands[0]), Some(v));
        let cw = def_of(&f, id(&vx.operands[1]).unwrap());
        assert_eq!(cw.class.opcode, Op::CompositeConstruct);
        assert_eq!(id(&cw.operands[0]), Some(w));
        let zero = id(&cw.operands[1]).unwrap();
        assert_eq!(global_def(&m, zero).operands, [Operand::LiteralBit32(0)]);
        // (w, 0) is defined after w, before the XOR.
        let pos = |x: Word| insts(&f).position(|i| i.result_id == Some(x)).unwrap();
        assert!(
            pos(w) < pos(cw.result_id.unwrap())
                && pos(cw.result_id.unwrap()) < pos(vx.result_id.unwrap())
        );
        for (p, xk) in [(out[1], x2), (out[2], x3)] {
            let i = def_of(&f, id(&def_of(&f, stored(p)).operands[0]).unwrap());
            assert_eq!((i.result_id, i.result_type), (Some(xk), Some(u64t)));
            assert_eq!(i.class.opcode, Op::BitwiseXor);
        }
        // The identity: the words of p ^ zext(w) are (lo ^ w, hi).
        for (p, wv) in [
            (0x0123_4567_89ab_cdefu64, 0xffff_ffffu32),
            (u64::MAX, 1),
            (1 << 63, 0),
        ] {
            let x = p ^ u64::from(wv);
            assert_eq!(
                (x as u32, (x >> 32) as u32),
                (p as u32 ^ wv, (p >> 32) as u32)
            );
        }
    }

    /// D263: in `if (c) { A } else { B }` after an entry that loads `x`, `y`: `x + y` in both arms and
    /// after the join becomes one add at the end of the entry (before its merge instruction), read by
    /// all three stores; `(x + y) * 2` in both arms becomes equal once the adds are one and moves in
    /// the same walk; `x ^ y` in the entry and in arm A stays in the entry; `x / y` in both arms
    /// (division by zero is undefined behaviour) and a decorated `x - y` in both arms stay in the arms.
    #[test]
    fn hoist_merges_equal_operations_into_their_common_dominator() {
        let (mut b, t) = begun();
        let u32t = t.u32t;
        let two = b.constant_bit32(u32t, 2);
        b.begin_block(None).unwrap();
        let cv = b.variable(t.pb, None, StorageClass::Function, None);
        let xv = b.variable(t.pu, None, StorageClass::Function, None);
        let o = b.variable(t.pu, None, StorageClass::Function, None);
        let c = b.load(t.boolt, None, cv, None, []).unwrap();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let y = b.load(u32t, None, xv, None, []).unwrap();
        let xor0 = b.bitwise_xor(u32t, None, x, y).unwrap();
        b.store(o, xor0, None, []).unwrap();
        let (ta, tb, merge) = (b.id(), b.id(), b.id());
        b.selection_merge(merge, SelectionControl::NONE).unwrap();
        b.branch_conditional(c, ta, tb, []).unwrap();
        let arm = |b: &mut Builder, l: Word, xor: bool| {
            b.begin_block(Some(l)).unwrap();
            let s = b.i_add(u32t, None, x, y).unwrap();
            let p = b.i_mul(u32t, None, s, two).unwrap();
            let d = b.u_div(u32t, None, x, y).unwrap();
            let n = b.i_sub(u32t, None, x, y).unwrap();
            b.decorate(n, Decoration::NoContraction, []);
            for v in [s, p, d, n] {
                b.store(o, v, None, []).unwrap();
            }
            let x2 = xor.then(|| {
                let v = b.bitwise_xor(u32t, None, x, y).unwrap();
                b.store(o, v, None, []).unwrap();
                v
            });
            b.branch(merge).unwrap();
            (s, p, d, n, x2)
        };
        let (sa, pa, da, na, xa) = arm(&mut b, ta, true);
        let (sb, pb, db, nb, _) = arm(&mut b, tb, false);
        b.begin_block(Some(merge)).unwrap();
        let s3 = b.i_add(u32t, None, x, y).unwrap();
        b.store(o, s3, None, []).unwrap();
        let (m, mut f, _) = finish(b);
        // sb, s3, pb and xa merged.
        assert_eq!(hoist(&m, &mut f, &mut HashSet::default()), 4);
        let block_of = |r: Word| {
            f.blocks
                .iter()
                .position(|blk| blk.instructions.iter().any(|i| i.result_id == Some(r)))
        };
        assert_eq!(block_of(sa), Some(0));
        assert_eq!(block_of(pa), Some(0));
        assert_eq!(block_of(xor0), Some(0));
        for gone in [sb, s3, pb, xa.unwrap()] {
            assert_eq!(block_of(gone), None, "%{gone} left");
        }
        assert_eq!((block_of(da), block_of(db)), (Some(1), Some(2)));
        assert_eq!((block_of(na), block_of(nb)), (Some(1), Some(2)));
        // The entry ends add, multiply, merge, branch; the add comes after the loads it reads.
        let entry: Vec<Op> = f.blocks[0]
            .instructions
            .iter()
            .map(|i| i.class.opcode)
            .collect();
        assert_eq!(
            entry[entry.len() - 4..],
            [
                Op::IAdd,
                Op::IMul,
                Op::SelectionMerge,
                Op::BranchConditional
            ]
        );
        let stored: Vec<Word> = insts(&f)
            .filter(|i| i.class.opcode == Op::Store)
            .filter_map(|i| id(&i.operands[1]))
            .collect();
        assert_eq!(stored, [xor0, sa, pa, da, na, xor0, sa, pa, db, nb, sa]);
    }

    /// D271: two equal access chains into a Workgroup variable, one in an arm and one after the merge
    /// (neither dominates the other), become one in the entry, read by the arm's store and the load
    /// after it; two equal chains into a buffer pointer made by `OpConvertUToPtr` stay where they are.
    #[test]
    fn hoist_merges_access_chains_into_variables_only() {
        let (mut b, t) = begun();
        let u32t = t.u32t;
        let four = b.constant_bit32(u32t, 4);
        let one = b.constant_bit32(u32t, 1);
        let arr = b.type_array(u32t, four);
        let pw = b.type_pointer(None, StorageClass::Workgroup, arr);
        let pwu = b.type_pointer(None, StorageClass::Workgroup, u32t);
        let w = b.variable(pw, None, StorageClass::Workgroup, None);
        let rta = b.type_runtime_array(u32t);
        let pba = b.type_pointer(None, StorageClass::PhysicalStorageBuffer, rta);
        let pbu = b.type_pointer(None, StorageClass::PhysicalStorageBuffer, u32t);
        b.begin_block(None).unwrap();
        let cv = b.variable(t.pb, None, StorageClass::Function, None);
        let xv = b.variable(t.pu, None, StorageClass::Function, None);
        let av = b.variable(t.pw, None, StorageClass::Function, None);
        let o = b.variable(t.pu, None, StorageClass::Function, None);
        let c = b.load(t.boolt, None, cv, None, []).unwrap();
        let x = b.load(u32t, None, xv, None, []).unwrap();
        let a = b.load(t.u64t, None, av, None, []).unwrap();
        let q = b.convert_u_to_ptr(pba, None, a).unwrap();
        let (arm, merge) = (b.id(), b.id());
        b.selection_merge(merge, SelectionControl::NONE).unwrap();
        b.branch_conditional(c, arm, merge, []).unwrap();
        b.begin_block(Some(arm)).unwrap();
        let p1 = b.access_chain(pwu, None, w, [x]).unwrap();
        b.store(p1, one, None, []).unwrap();
        let g1 = b.access_chain(pbu, None, q, [x]).unwrap();
        b.store(g1, one, None, []).unwrap();
        b.branch(merge).unwrap();
        b.begin_block(Some(merge)).unwrap();
        let p2 = b.access_chain(pwu, None, w, [x]).unwrap();
        let l = b.load(u32t, None, p2, None, []).unwrap();
        b.store(o, l, None, []).unwrap();
        let g2 = b.access_chain(pbu, None, q, [x]).unwrap();
        let lg = b.load(u32t, None, g2, None, []).unwrap();
        b.store(o, lg, None, []).unwrap();
        let (m, mut f, _) = finish(b);
        assert_eq!(hoist(&m, &mut f, &mut HashSet::default()), 1);
        let block_of = |r: Word| {
            f.blocks
                .iter()
                .position(|blk| blk.instructions.iter().any(|i| i.result_id == Some(r)))
        };
        assert_eq!(
            block_of(p1),
            Some(0),
            "the Workgroup chain moved to the entry"
        );
        assert_eq!(block_of(p2), None, "and the second one reads it");
        assert_eq!((block_of(g1), block_of(g2)), (Some(1), Some(2)));
        let pointers: Vec<Word> = insts(&f)
            .filter(|i| matches!(i.class.opcode, Op::Store | Op::Load))
            .filter_map(|i| id(&i.operands[0]))
            .filter(|p| ![cv, xv, av, o].contains(p))
            .collect();
        assert_eq!(pointers, [p1, g1, p1, g2]);
    }
}
