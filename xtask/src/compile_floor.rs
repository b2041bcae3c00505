//! `xtask compile-floor CO KERNEL_INDEX PROFILE_JSON [--images] [--accumulator] [--cut P,..] [--only V,..] [--timeout S]
//! [--keep DIR] [--json FILE]`: how much of lavapipe's cold compile of one kernel's module (the checked
//! module `run` compiles, as `xtask compile-probe` lowers it) its memory accesses and barriers cost, by
//! ablation (issue 31, D287). A measurement, not a product path: every variant is wrong and runs nothing.
//!
//! Each variant is the module with its entry point's body inside a branch nothing takes (a push-constant
//! word compared with 12345; the probes push zeros), so lavapipe compiles all of it and runs none of it:
//!
//! - `wrapped`: nothing replaced (the reference the ratios are taken against);
//! - `no-workgroup-loads`: every `Workgroup` load becomes its first access-chain index XOR the opaque word
//!   (gallivm turns each workgroup load inside control flow into a loop over the SIMD lanes with
//!   `alloca`s, D245);
//! - `workgroup-loads-as-images` (`--images`): every `Workgroup` load a read of a storage texel buffer
//!   instead, compiled by `xtask image-probe` (which binds the buffers): what gallivm makes of image loads;
//! - `no-workgroup`: also every `Workgroup` store and atomic, its operand XORed into one `Function`
//!   accumulator stored to a workgroup word once at the end (without it the values become dead code);
//! - `no-memory`: also every physical-storage-buffer load, store and atomic;
//! - `no-memory-no-barriers`: also every `OpControlBarrier` (each one a coroutine suspend point);
//! - `accumulator-only` (`--accumulator`): nothing replaced, every store's operand also XORed into the
//!   accumulator — what the accumulator costs by itself, which the three variants above include (D287:
//!   they overstate what is left; they are not floors).
//! - `cut-P` (`--cut P,..`, per mille): nothing replaced, the entry point returns after every barrier from the
//!   P/1000-th on (block order; loop headers keep theirs), so lavapipe compiles only what is reachable
//!   without passing them: how the compile grows with the part of one kernel a pipeline holds (D289).
//!   `--only none` runs `wrapped` and the cuts alone. A module whose workgroup memory already lives in texel
//!   buffers (lavapipe's profile, D288) runs every variant through `image-probe`.
//!
//! Helper functions (not the entry point) keep their accesses; the table counts what is left. Every
//! variant runs in its own child process (Mesa's shader cache off); the figure is the child's
//! first-dispatch CPU time (lavapipe's compile plus a run that does nothing).
use anyhow::{bail, Context as _, Result};
use rspirv::binary::Assemble as _;
use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{
    Capability, Decoration, Dim, ImageFormat, Op, SelectionControl, StorageClass, Word,
};
use serde_json::json;
use std::collections::HashMap;
use std::time::Duration;

/// What one variant replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ablation {
    pub workgroup_loads: bool,
    /// Workgroup loads become reads of two storage texel buffers (set 0: binding 0 `R32ui` for scalar
    /// loads, binding 1 `Rgba32ui` for `uvec4` loads) instead of XORs: what gallivm makes of image loads
    /// (gathers, no lane loop), for `xtask image-probe`.
    pub loads_as_images: bool,
    /// With `loads_as_images`: the workgroup stores (of `u32` and `uvec4`) become writes of the same texel
    /// buffers (`OpImageWrite`), atomics stay (D287's plan moves both; this measures the stores' part).
    pub stores_as_images: bool,
    /// Every workgroup and global store and atomic kept *and* its operand XORed into the accumulator: what
    /// the accumulator itself costs (a diagnostic of the later variants' estimates).
    pub accumulate_only: bool,
    pub workgroup_rest: bool,
    pub global: bool,
    pub barriers: bool,
    /// `--cut P` (per mille): the entry point returns after every `OpControlBarrier` past the first P/1000
    /// of them (block order), so lavapipe compiles the part of the kernel reachable without passing those
    /// (NIR drops the rest) — for a kernel whose paths each have their own barriers, far more than P/1000
    /// of it (D289): how the compile grows with the part of one kernel a pipeline holds. 1000 cuts nothing.
    pub cut_permille: Option<u32>,
}

/// The variant `--images` adds after `no-workgroup-loads`: the workgroup loads as texel-buffer reads
/// (compiled by `xtask image-probe`, which binds the buffers).
pub const IMAGES: (&str, Ablation) = (
    "workgroup-loads-as-images",
    Ablation {
        workgroup_loads: true,
        loads_as_images: true,
        ..Ablation::NONE
    },
);

/// The variant `--images` also adds after [`IMAGES`]: the workgroup stores as texel-buffer writes too.
pub const IMAGES_STORES: (&str, Ablation) = (
    "workgroup-loads-and-stores-as-images",
    Ablation {
        workgroup_loads: true,
        loads_as_images: true,
        stores_as_images: true,
        ..Ablation::NONE
    },
);

/// The variant `--accumulator` adds last: nothing replaced, every store's and atomic's operand also XORed
/// into the accumulator (its cost, which the later variants' figures include).
pub const ACCUMULATOR: (&str, Ablation) = (
    "accumulator-only",
    Ablation {
        accumulate_only: true,
        ..Ablation::NONE
    },
);

/// The variants, in the order they run.
pub const VARIANTS: [(&str, Ablation); 5] = [
    ("wrapped", Ablation::NONE),
    (
        "no-workgroup-loads",
        Ablation {
            workgroup_loads: true,
            ..Ablation::NONE
        },
    ),
    (
        "no-workgroup",
        Ablation {
            workgroup_loads: true,
            workgroup_rest: true,
            ..Ablation::NONE
        },
    ),
    (
        "no-memory",
        Ablation {
            workgroup_loads: true,
            workgroup_rest: true,
            global: true,
            ..Ablation::NONE
        },
    ),
    (
        "no-memory-no-barriers",
        Ablation {
            workgroup_loads: true,
            workgroup_rest: true,
            global: true,
            barriers: true,
            ..Ablation::NONE
        },
    ),
];

impl Ablation {
    pub const NONE: Ablation = Ablation {
        workgroup_loads: false,
        loads_as_images: false,
        stores_as_images: false,
        accumulate_only: false,
        workgroup_rest: false,
        global: false,
        barriers: false,
        cut_permille: None,
    };
}

/// What an ablation replaced and left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub loads_replaced: usize,
    pub stores_replaced: usize,
    pub atomics_replaced: usize,
    pub barriers_removed: usize,
    /// Workgroup / physical-storage-buffer accesses left anywhere in the module (helpers included, the
    /// accumulator's one store counted).
    pub accesses_left: usize,
    pub barriers_left: usize,
    /// Blocks `cut_permille` made return after a barrier.
    pub cuts: usize,
}

fn id(o: &Operand) -> Option<Word> {
    match o {
        Operand::IdRef(w) => Some(*w),
        _ => None,
    }
}

fn is_atomic(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicUMin
            | Op::AtomicUMax
            | Op::AtomicSMin
            | Op::AtomicSMax
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicLoad
            | Op::AtomicStore
    )
}

struct Ids {
    bound: Word,
}
impl Ids {
    fn fresh(&mut self) -> Word {
        self.bound += 1;
        self.bound - 1
    }
}

/// The module's types the ablation needs, found or added.
struct Types {
    u32_: Word,
    u64_: Word,
    bool_: Word,
    /// vector type id → (component type, count)
    vectors: HashMap<Word, (Word, u32)>,
    ptr_pc_u32: Word,
    ptr_fn_u32: Word,
    ptr_wg_u32: Word,
    c0: Word,
    c1: Word,
    c2: Word,
    c_key: Word,
}

fn find_or_add(
    m: &mut Module,
    ids: &mut Ids,
    op: Op,
    operands: Vec<Operand>,
    ty: Option<Word>,
) -> Word {
    if let Some(i) = m
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == op && i.operands == operands && i.result_type == ty)
    {
        return i.result_id.unwrap();
    }
    let r = ids.fresh();
    m.types_global_values
        .push(Instruction::new(op, ty, Some(r), operands));
    r
}

fn types(m: &mut Module, ids: &mut Ids) -> Types {
    let u32_ = find_or_add(
        m,
        ids,
        Op::TypeInt,
        vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
        None,
    );
    let u64_ = find_or_add(
        m,
        ids,
        Op::TypeInt,
        vec![Operand::LiteralBit32(64), Operand::LiteralBit32(0)],
        None,
    );
    let bool_ = find_or_add(m, ids, Op::TypeBool, vec![], None);
    let ptr = |m: &mut Module, ids: &mut Ids, sc: StorageClass| {
        find_or_add(
            m,
            ids,
            Op::TypePointer,
            vec![Operand::StorageClass(sc), Operand::IdRef(u32_)],
            None,
        )
    };
    let ptr_pc_u32 = ptr(m, ids, StorageClass::PushConstant);
    let ptr_fn_u32 = ptr(m, ids, StorageClass::Function);
    let ptr_wg_u32 = ptr(m, ids, StorageClass::Workgroup);
    let konst = |m: &mut Module, ids: &mut Ids, v: u32| {
        find_or_add(
            m,
            ids,
            Op::Constant,
            vec![Operand::LiteralBit32(v)],
            Some(u32_),
        )
    };
    let (c0, c1, c2, c_key) = (
        konst(m, ids, 0),
        konst(m, ids, 1),
        konst(m, ids, 2),
        konst(m, ids, 12345),
    );
    let vectors = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeVector)
        .filter_map(|i| match (&i.operands[0], &i.operands[1]) {
            (Operand::IdRef(c), Operand::LiteralBit32(n)) => Some((i.result_id?, (*c, *n))),
            _ => None,
        })
        .collect();
    Types {
        u32_,
        u64_,
        bool_,
        vectors,
        ptr_pc_u32,
        ptr_fn_u32,
        ptr_wg_u32,
        c0,
        c1,
        c2,
        c_key,
    }
}

fn ins(op: Op, ty: Option<Word>, r: Option<Word>, ops: &[Word]) -> Instruction {
    Instruction::new(op, ty, r, ops.iter().map(|&w| Operand::IdRef(w)).collect())
}

/// `x` (of type `ty`) as a u32, appended to `out`.
fn to_u32(out: &mut Vec<Instruction>, ids: &mut Ids, t: &Types, ty: Word, x: Word) -> Result<Word> {
    if ty == t.u32_ {
        return Ok(x);
    }
    if ty == t.u64_ {
        let r = ids.fresh();
        out.push(ins(Op::UConvert, Some(t.u32_), Some(r), &[x]));
        return Ok(r);
    }
    if ty == t.bool_ {
        let r = ids.fresh();
        out.push(ins(Op::Select, Some(t.u32_), Some(r), &[x, t.c1, t.c0]));
        return Ok(r);
    }
    if let Some(&(comp, _)) = t.vectors.get(&ty) {
        let r = ids.fresh();
        out.push(Instruction::new(
            Op::CompositeExtract,
            Some(comp),
            Some(r),
            vec![Operand::IdRef(x), Operand::LiteralBit32(0)],
        ));
        return to_u32(out, ids, t, comp, r);
    }
    bail!("a stored value of type %{ty} (not u32, u64, bool or a vector of them)")
}

/// Result `r` of type `ty` from the u32 `x`, appended to `out`.
fn from_u32(
    out: &mut Vec<Instruction>,
    ids: &mut Ids,
    t: &Types,
    ty: Word,
    r: Word,
    x: Word,
) -> Result<()> {
    if ty == t.u32_ {
        out.push(ins(Op::CopyObject, Some(ty), Some(r), &[x]));
        return Ok(());
    }
    if ty == t.u64_ {
        out.push(ins(Op::UConvert, Some(ty), Some(r), &[x]));
        return Ok(());
    }
    if let Some(&(comp, n)) = t.vectors.get(&ty) {
        let c = ids.fresh();
        from_u32(out, ids, t, comp, c, x)?;
        out.push(ins(
            Op::CompositeConstruct,
            Some(ty),
            Some(r),
            &vec![c; n as usize],
        ));
        return Ok(());
    }
    bail!("a loaded value of type %{ty} (not u32, u64 or a vector of them)")
}

/// `acc ^= x as u32` (x of type `ty`), appended to `out`.
fn accumulate(
    out: &mut Vec<Instruction>,
    ids: &mut Ids,
    t: &Types,
    acc: Word,
    ty: Word,
    x: Word,
) -> Result<()> {
    let u = to_u32(out, ids, t, ty, x)?;
    let (a0, a1) = (ids.fresh(), ids.fresh());
    out.push(ins(Op::Load, Some(t.u32_), Some(a0), &[acc]));
    out.push(ins(Op::BitwiseXor, Some(t.u32_), Some(a1), &[a0, u]));
    out.push(ins(Op::Store, None, None, &[acc, a1]));
    Ok(())
}

/// An atomic's last id operand after pointer, scope and semantics (its value, or a compare-exchange's
/// comparator); `None` for an increment or decrement.
fn atomic_value(i: &Instruction) -> Option<Word> {
    i.operands.iter().skip(3).filter_map(id).next_back()
}

/// The module with its entry point wrapped and `a`'s accesses replaced (module docs).
pub fn ablate(words: &[u32], a: Ablation) -> Result<(Vec<u32>, Counts)> {
    let mut m =
        rspirv::dr::load_words(words).map_err(|e| anyhow::anyhow!("parsing the module: {e}"))?;
    let mut ids = Ids {
        bound: m.header.as_ref().context("no header")?.bound,
    };
    let t = types(&mut m, &mut ids);
    let ep = m.entry_points.first().context("no entry point")?;
    let entry = id(&ep.operands[1]).context("entry point id")?;
    // The accumulator's workgroup word: a new variable, in the entry point's interface.
    let acc_var = ids.fresh();
    m.types_global_values.push(Instruction::new(
        Op::Variable,
        Some(t.ptr_wg_u32),
        Some(acc_var),
        vec![Operand::StorageClass(StorageClass::Workgroup)],
    ));
    m.entry_points[0].operands.push(Operand::IdRef(acc_var));
    let pc_var = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::PushConstant))
        })
        .and_then(|i| i.result_id)
        .context("no push-constant block")?;
    // The texel buffers of `loads_as_images`: (image type, variable) for scalar and `uvec4` loads.
    let images = if a.loads_as_images {
        m.capabilities.push(Instruction::new(
            Op::Capability,
            None,
            None,
            vec![Operand::Capability(Capability::ImageBuffer)],
        ));
        let v4 = find_or_add(
            &mut m,
            &mut ids,
            Op::TypeVector,
            vec![Operand::IdRef(t.u32_), Operand::LiteralBit32(4)],
            None,
        );
        let decl = |m: &mut Module, ids: &mut Ids, format: ImageFormat, binding: u32| {
            let ty = find_or_add(
                m,
                ids,
                Op::TypeImage,
                vec![
                    Operand::IdRef(t.u32_),
                    Operand::Dim(Dim::DimBuffer),
                    Operand::LiteralBit32(0),
                    Operand::LiteralBit32(0),
                    Operand::LiteralBit32(0),
                    Operand::LiteralBit32(2),
                    Operand::ImageFormat(format),
                ],
                None,
            );
            let ptr = find_or_add(
                m,
                ids,
                Op::TypePointer,
                vec![
                    Operand::StorageClass(StorageClass::UniformConstant),
                    Operand::IdRef(ty),
                ],
                None,
            );
            let var = ids.fresh();
            m.types_global_values.push(Instruction::new(
                Op::Variable,
                Some(ptr),
                Some(var),
                vec![Operand::StorageClass(StorageClass::UniformConstant)],
            ));
            for (d, v) in [
                (Decoration::DescriptorSet, 0),
                (Decoration::Binding, binding),
            ] {
                m.annotations.push(Instruction::new(
                    Op::Decorate,
                    None,
                    None,
                    vec![
                        Operand::IdRef(var),
                        Operand::Decoration(d),
                        Operand::LiteralBit32(v),
                    ],
                ));
            }
            m.entry_points[0].operands.push(Operand::IdRef(var));
            (ty, var)
        };
        let one = decl(&mut m, &mut ids, ImageFormat::R32ui, 0);
        let four = decl(&mut m, &mut ids, ImageFormat::Rgba32ui, 1);
        Some((v4, one, four))
    } else {
        None
    };
    // Storage class of every pointer type, and the type of every id.
    let mut ptr_sc: HashMap<Word, StorageClass> = HashMap::new();
    let mut ty_of: HashMap<Word, Word> = HashMap::new();
    for i in &m.types_global_values {
        if i.class.opcode == Op::TypePointer {
            if let (Some(r), Operand::StorageClass(sc)) = (i.result_id, &i.operands[0]) {
                ptr_sc.insert(r, *sc);
            }
        }
        if let (Some(r), Some(ty)) = (i.result_id, i.result_type) {
            ty_of.insert(r, ty);
        }
    }
    let mut first_index: HashMap<Word, Word> = HashMap::new();
    for f in &m.functions {
        for p in &f.parameters {
            if let (Some(r), Some(ty)) = (p.result_id, p.result_type) {
                ty_of.insert(r, ty);
            }
        }
        for b in &f.blocks {
            for i in &b.instructions {
                if let (Some(r), Some(ty)) = (i.result_id, i.result_type) {
                    ty_of.insert(r, ty);
                }
                if matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                    if let (Some(r), Some(ix)) = (i.result_id, i.operands.get(1).and_then(id)) {
                        if ty_of.get(&ix) == Some(&t.u32_) {
                            first_index.insert(r, ix);
                        }
                    }
                }
            }
        }
    }
    let class_of = |p: Word| ty_of.get(&p).and_then(|ty| ptr_sc.get(ty)).copied();
    let replaced = |sc: Option<StorageClass>, load: bool| match sc {
        Some(StorageClass::Workgroup) => {
            if load {
                a.workgroup_loads
            } else {
                a.workgroup_rest
            }
        }
        Some(StorageClass::PhysicalStorageBuffer) => a.global,
        _ => false,
    };
    let kept_and_accumulated = |p: Word| {
        a.accumulate_only
            && matches!(
                class_of(p),
                Some(StorageClass::Workgroup | StorageClass::PhysicalStorageBuffer)
            )
    };
    let mut n = Counts::default();
    let fi = m
        .functions
        .iter()
        .position(|f| f.def.as_ref().and_then(|d| d.result_id) == Some(entry))
        .context("entry function")?;
    let c_true = match a.cut_permille {
        Some(_) => find_or_add(&mut m, &mut ids, Op::ConstantTrue, vec![], Some(t.bool_)),
        None => 0,
    };
    let f = &mut m.functions[fi];
    let returns = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == Op::Return)
        .count();
    if returns != 1 {
        bail!("the entry point has {returns} OpReturns (the wrapping needs one)");
    }
    let (opaque_ptr, opaque, key_test, acc, body_end) = (
        ids.fresh(),
        ids.fresh(),
        ids.fresh(),
        ids.fresh(),
        ids.fresh(),
    );
    for b in f.blocks.iter_mut() {
        let mut out = Vec::with_capacity(b.instructions.len());
        for i in std::mem::take(&mut b.instructions) {
            let op = i.class.opcode;
            match op {
                Op::Load => {
                    let p = id(&i.operands[0]).unwrap();
                    let sc = class_of(p);
                    if replaced(sc, true) {
                        let x = match (sc, first_index.get(&p)) {
                            (Some(StorageClass::Workgroup), Some(&ix)) => ix,
                            _ => opaque,
                        };
                        let (ty, r) = (i.result_type.unwrap(), i.result_id.unwrap());
                        if let (Some((v4, one, four)), Some(StorageClass::Workgroup)) = (images, sc)
                        {
                            if ty == t.u32_ || ty == v4 {
                                let (im_ty, var) = if ty == t.u32_ { one } else { four };
                                let im = ids.fresh();
                                out.push(ins(Op::Load, Some(im_ty), Some(im), &[var]));
                                if ty == v4 {
                                    out.push(ins(Op::ImageRead, Some(v4), Some(r), &[im, x]));
                                } else {
                                    let texel = ids.fresh();
                                    out.push(ins(Op::ImageRead, Some(v4), Some(texel), &[im, x]));
                                    out.push(Instruction::new(
                                        Op::CompositeExtract,
                                        Some(t.u32_),
                                        Some(r),
                                        vec![Operand::IdRef(texel), Operand::LiteralBit32(0)],
                                    ));
                                }
                                n.loads_replaced += 1;
                                continue;
                            }
                        }
                        let v = ids.fresh();
                        out.push(ins(Op::BitwiseXor, Some(t.u32_), Some(v), &[x, opaque]));
                        from_u32(&mut out, &mut ids, &t, ty, r, v)?;
                        n.loads_replaced += 1;
                        continue;
                    }
                }
                Op::Store => {
                    let p = id(&i.operands[0]).unwrap();
                    if let (true, Some((v4, one, four)), Some(StorageClass::Workgroup)) =
                        (a.stores_as_images, images, class_of(p))
                    {
                        let v = id(&i.operands[1]).unwrap();
                        let ty = ty_of.get(&v).copied();
                        if ty == Some(t.u32_) || ty == Some(v4) {
                            let (im_ty, var) = if ty == Some(t.u32_) { one } else { four };
                            let x = first_index.get(&p).copied().unwrap_or(opaque);
                            let im = ids.fresh();
                            out.push(ins(Op::Load, Some(im_ty), Some(im), &[var]));
                            out.push(ins(Op::ImageWrite, None, None, &[im, x, v]));
                            n.stores_replaced += 1;
                            continue;
                        }
                    }
                    let (gone, keep) = (replaced(class_of(p), false), kept_and_accumulated(p));
                    if gone || keep {
                        let v = id(&i.operands[1]).unwrap();
                        let ty = *ty_of.get(&v).context("stored value's type")?;
                        accumulate(&mut out, &mut ids, &t, acc, ty, v)?;
                        if keep {
                            out.push(i);
                        }
                        n.stores_replaced += 1;
                        continue;
                    }
                }
                _ if is_atomic(op) => {
                    let p = id(&i.operands[0]).unwrap();
                    let (gone, keep) = (replaced(class_of(p), false), kept_and_accumulated(p));
                    if gone || keep {
                        if let Some(v) = atomic_value(&i) {
                            let ty = *ty_of.get(&v).context("atomic operand's type")?;
                            accumulate(&mut out, &mut ids, &t, acc, ty, v)?;
                        }
                        n.atomics_replaced += 1;
                        if keep {
                            out.push(i);
                            continue;
                        }
                        if let (Some(ty), Some(r)) = (i.result_type, i.result_id) {
                            let x = first_index.get(&p).copied().unwrap_or(opaque);
                            let v = ids.fresh();
                            out.push(ins(Op::BitwiseXor, Some(t.u32_), Some(v), &[x, opaque]));
                            from_u32(&mut out, &mut ids, &t, ty, r, v)?;
                        }
                        continue;
                    }
                }
                Op::ControlBarrier if a.barriers => {
                    n.barriers_removed += 1;
                    continue;
                }
                Op::Return => {
                    let (a0, wp) = (ids.fresh(), acc_var);
                    out.push(ins(Op::Load, Some(t.u32_), Some(a0), &[acc]));
                    out.push(ins(Op::Store, None, None, &[wp, a0]));
                    out.push(ins(Op::Branch, None, None, &[body_end]));
                    continue;
                }
                _ => {}
            }
            out.push(i);
        }
        b.instructions = out;
    }
    if let Some(p) = a.cut_permille {
        n.cuts = cut_at_barriers(f, p, c_true, &mut ids);
    }
    // The new entry block: the variables, the opaque word and the branch nothing takes; the old entry
    // block keeps its label (phis name it as a predecessor) and becomes the branch's body.
    let old = &mut f.blocks[0];
    let vars: Vec<Instruction> = old
        .instructions
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
        .cloned()
        .collect();
    old.instructions.retain(|i| i.class.opcode != Op::Variable);
    let body = old
        .label
        .as_ref()
        .and_then(|l| l.result_id)
        .context("entry label")?;
    let mut head = vars;
    head.push(Instruction::new(
        Op::Variable,
        Some(t.ptr_fn_u32),
        Some(acc),
        vec![
            Operand::StorageClass(StorageClass::Function),
            Operand::IdRef(t.c0),
        ],
    ));
    head.push(ins(
        Op::AccessChain,
        Some(t.ptr_pc_u32),
        Some(opaque_ptr),
        &[pc_var, t.c2],
    ));
    head.push(ins(Op::Load, Some(t.u32_), Some(opaque), &[opaque_ptr]));
    head.push(ins(
        Op::IEqual,
        Some(t.bool_),
        Some(key_test),
        &[opaque, t.c_key],
    ));
    head.push(Instruction::new(
        Op::SelectionMerge,
        None,
        None,
        vec![
            Operand::IdRef(body_end),
            Operand::SelectionControl(SelectionControl::NONE),
        ],
    ));
    head.push(ins(
        Op::BranchConditional,
        None,
        None,
        &[key_test, body, body_end],
    ));
    let head_label = ids.fresh();
    f.blocks.insert(
        0,
        rspirv::dr::Block {
            label: Some(ins(Op::Label, None, Some(head_label), &[])),
            instructions: head,
        },
    );
    f.blocks.push(rspirv::dr::Block {
        label: Some(ins(Op::Label, None, Some(body_end), &[])),
        instructions: vec![ins(Op::Return, None, None, &[])],
    });
    for f in &m.functions {
        for i in f.blocks.iter().flat_map(|b| &b.instructions) {
            let op = i.class.opcode;
            if op == Op::ControlBarrier {
                n.barriers_left += 1;
            }
            let p = match op {
                Op::Load => i.operands.first().and_then(id),
                Op::Store => i.operands.first().and_then(id),
                _ if is_atomic(op) => i.operands.first().and_then(id),
                _ => None,
            };
            if let Some(p) = p {
                let sc = if p == acc_var {
                    Some(StorageClass::Workgroup)
                } else {
                    class_of(p)
                };
                if matches!(
                    sc,
                    Some(StorageClass::Workgroup | StorageClass::PhysicalStorageBuffer)
                ) {
                    n.accesses_left += 1;
                }
            }
        }
    }
    m.header.as_mut().unwrap().bound = ids.bound;
    Ok((m.assemble(), n))
}

/// `Ablation::cut_permille`: after every barrier from the `permille`/1000-th on (block order) the block
/// becomes a selection on the constant `true` whose taken arm returns; the rest of the block (its merge
/// instruction and terminator included) moves to the selection's merge block, whose label the successors'
/// phis now name. NIR folds the selection and drops what only the other arm reached. A loop header keeps its
/// barrier (its merge instruction must stay in the block its back edges target). Returns the cuts made.
fn cut_at_barriers(
    f: &mut rspirv::dr::Function,
    permille: u32,
    c_true: Word,
    ids: &mut Ids,
) -> usize {
    let total = f
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == Op::ControlBarrier)
        .count();
    let first_cut = (total * permille as usize).div_ceil(1000);
    let mut seen = 0;
    let mut renamed: HashMap<Word, Word> = HashMap::new();
    let mut blocks = Vec::with_capacity(f.blocks.len());
    for mut b in std::mem::take(&mut f.blocks) {
        let header = b
            .instructions
            .iter()
            .any(|i| i.class.opcode == Op::LoopMerge);
        let mut at = None;
        for (k, i) in b.instructions.iter().enumerate() {
            if i.class.opcode == Op::ControlBarrier {
                seen += 1;
                if seen > first_cut && !header && at.is_none() {
                    at = Some(k);
                }
            }
        }
        let Some(at) = at else {
            blocks.push(b);
            continue;
        };
        let rest = b.instructions.split_off(at + 1);
        let old = b.label.as_ref().and_then(|l| l.result_id).unwrap();
        let (ret, merge) = (ids.fresh(), ids.fresh());
        b.instructions.push(Instruction::new(
            Op::SelectionMerge,
            None,
            None,
            vec![
                Operand::IdRef(merge),
                Operand::SelectionControl(SelectionControl::NONE),
            ],
        ));
        b.instructions.push(ins(
            Op::BranchConditional,
            None,
            None,
            &[c_true, ret, merge],
        ));
        renamed.insert(old, merge);
        blocks.push(b);
        blocks.push(rspirv::dr::Block {
            label: Some(ins(Op::Label, None, Some(ret), &[])),
            instructions: vec![ins(Op::Return, None, None, &[])],
        });
        blocks.push(rspirv::dr::Block {
            label: Some(ins(Op::Label, None, Some(merge), &[])),
            instructions: rest,
        });
    }
    for b in &mut blocks {
        for i in b
            .instructions
            .iter_mut()
            .filter(|i| i.class.opcode == Op::Phi)
        {
            for parent in i.operands.iter_mut().skip(1).step_by(2) {
                if let Operand::IdRef(p) = parent {
                    if let Some(&n) = renamed.get(p) {
                        *p = n;
                    }
                }
            }
        }
    }
    f.blocks = blocks;
    renamed.len()
}

/// `xtask compile-floor …` (module docs).
pub fn main(args: &[String]) -> Result<()> {
    let usage = "usage: xtask compile-floor CODE_OBJECT KERNEL_INDEX PROFILE_JSON [--images] [--accumulator] [--cut P,..] [--only V,..] [--timeout S] [--keep DIR] [--json FILE]";
    if args.len() < 3 {
        bail!("{usage}");
    }
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .map(|i| {
                args.get(i + 1)
                    .cloned()
                    .with_context(|| format!("{name} needs a value"))
            })
            .transpose()
    };
    let timeout: u64 = flag("--timeout")?.map_or(Ok(900), |s| s.parse())?;
    let dir = match flag("--keep")? {
        Some(d) => std::path::PathBuf::from(d),
        None => std::env::temp_dir().join(format!("rdna2spv-compile-floor-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir)?;
    // The module `run` compiles, as `compile-probe` lowers it (its dump, no dispatch).
    let module = dir.join("module.spv");
    let dump = crate::bench_corpus_size::run_child(
        "compile-probe",
        &[
            args[0].clone(),
            args[1].clone(),
            args[2].clone(),
            timeout.to_string(),
        ],
        &[
            ("RDNA2SPV_PROBE_DUMP", module.to_string_lossy().as_ref()),
            ("RDNA2SPV_PROBE_DUMP_ONLY", "1"),
        ],
        u64::MAX,
        Duration::from_secs(timeout),
    )?;
    if dump.status != "exit 0" {
        bail!("lowering the kernel: compile-probe {}", dump.status);
    }
    let words = rdna2spv_capture::spirv_words(&std::fs::read(&module)?)?;
    let mut rows = Vec::new();
    let mut reference = None;
    let mut variants: Vec<(String, Ablation)> =
        VARIANTS.iter().map(|(n, a)| (n.to_string(), *a)).collect();
    if args.iter().any(|a| a == "--images") {
        variants.insert(2, (IMAGES.0.into(), IMAGES.1));
        variants.insert(3, (IMAGES_STORES.0.into(), IMAGES_STORES.1));
    }
    if args.iter().any(|a| a == "--accumulator") {
        variants.push((ACCUMULATOR.0.into(), ACCUMULATOR.1));
    }
    if let Some(cuts) = flag("--cut")? {
        for p in cuts.split(',') {
            let p: u32 = p
                .parse()
                .context("--cut takes per-mille values: 250,500,750")?;
            let a = Ablation {
                cut_permille: Some(p.min(1000)),
                ..Ablation::NONE
            };
            variants.push((format!("cut-{p}"), a));
        }
    }
    if let Some(only) = flag("--only")? {
        let keep: Vec<&str> = only.split(',').collect();
        variants.retain(|(name, _)| {
            name == "wrapped" || keep.contains(&name.as_str()) || name.starts_with("cut-")
        });
    }
    // A module whose workgroup memory already lives in texel buffers (D288's lavapipe profile) needs them
    // bound: every variant goes through `image-probe`.
    let texel_module = rspirv::dr::load_words(&words)
        .map_err(|e| anyhow::anyhow!("parsing the module: {e}"))?
        .types_global_values
        .iter()
        .any(|i| i.class.opcode == Op::TypeImage);
    for (name, a) in variants {
        let (w, n) = ablate(&words, a)?;
        let path = dir.join(format!("{name}.spv"));
        std::fs::write(
            &path,
            w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
        )?;
        let c = crate::bench_corpus_size::run_child(
            if a.loads_as_images || texel_module {
                "image-probe"
            } else {
                "spv-probe"
            },
            &[path.to_string_lossy().into_owned()],
            &[],
            u64::MAX,
            Duration::from_secs(timeout),
        )?;
        let first = c
            .text
            .split("first dispatch ")
            .nth(1)
            .and_then(|s| s.split(" s CPU").next())
            .and_then(|s| s.parse::<f64>().ok());
        if name == "wrapped" {
            reference = first;
        }
        let ratio = match (first, reference) {
            (Some(x), Some(r)) if r > 0.0 => Some(x / r),
            _ => None,
        };
        eprintln!(
            "{name:24} words {:7}  accesses left {:5}  barriers {:4}  compile+run CPU {}  ×{}  peak {} MB  ({})",
            w.len(),
            n.accesses_left,
            n.barriers_left,
            first.map_or("-".into(), |x| format!("{x:.2} s")),
            ratio.map_or("-".into(), |x| format!("{x:.2}")),
            c.maxrss_kb / 1024,
            c.status
        );
        rows.push(json!({
            "variant": name,
            "words": w.len(),
            "loads_replaced": n.loads_replaced,
            "stores_replaced": n.stores_replaced,
            "atomics_replaced": n.atomics_replaced,
            "barriers_removed": n.barriers_removed,
            "accesses_left": n.accesses_left,
            "barriers_left": n.barriers_left,
            "cuts": n.cuts,
            "first_dispatch_cpu_s": first,
            "ratio": ratio,
            "peak_mb": c.maxrss_kb / 1024,
            "status": c.status,
        }));
    }
    let out = json!({"code_object": args[0], "kernel": args[1], "variants": rows});
    println!("{out}");
    if let Some(path) = flag("--json")? {
        std::fs::write(&path, format!("{out}\n"))?;
    }
    if flag("--keep")?.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

/// `xtask image-probe MODULE.spv`: `spv-probe` for a module of the `loads_as_images` ablation — one dispatch
/// of one workgroup on lavapipe with two storage texel buffers bound (set 0: binding 0 `R32_UINT`, binding 1
/// `R32G32B32A32_UINT`, 1 MiB) and 128 zero bytes of push constants, every feature the device has enabled.
/// Prints the first dispatch's CPU time (pipeline creation and lavapipe's compile at that dispatch).
pub fn image_probe_main(args: &[String]) -> Result<()> {
    use ash::vk;
    std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");
    let path = args
        .first()
        .context("usage: xtask image-probe MODULE.spv")?;
    let words = rdna2spv_capture::spirv_words(&std::fs::read(path)?)?;
    let cpu = || crate::bench::process_cpu_seconds().unwrap_or(f64::NAN);
    // SAFETY: plain Vulkan calls on objects created here, destroyed at process exit; every handle passed
    // is one this function created and still holds.
    unsafe {
        let entry = ash::Entry::load()?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )?;
        let pds = instance.enumerate_physical_devices()?;
        let pd = *pds
            .iter()
            .find(|&&pd| {
                let p = instance.get_physical_device_properties(pd);
                std::ffi::CStr::from_ptr(p.device_name.as_ptr())
                    .to_string_lossy()
                    .contains("llvmpipe")
            })
            .context("no lavapipe device")?;
        let family = instance
            .get_physical_device_queue_family_properties(pd)
            .iter()
            .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .context("no compute queue")? as u32;
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut f11)
            .push_next(&mut f12)
            .push_next(&mut f13);
        instance.get_physical_device_features2(pd, &mut f2);
        let prio = [1.0f32];
        let qci = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let device = instance.create_device(
            pd,
            &vk::DeviceCreateInfo::default()
                .queue_create_infos(&qci)
                .push_next(&mut f2),
            None,
        )?;
        let queue = device.get_device_queue(family, 0);
        let size = 1u64 << 20;
        let buffer = device.create_buffer(
            &vk::BufferCreateInfo::default()
                .size(size)
                .usage(vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER),
            None,
        )?;
        let req = device.get_buffer_memory_requirements(buffer);
        let memory_type = (0..32)
            .find(|i| req.memory_type_bits & (1 << i) != 0)
            .context("no memory type")?;
        let memory = device.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(memory_type),
            None,
        )?;
        device.bind_buffer_memory(buffer, memory, 0)?;
        let view = |format| {
            device.create_buffer_view(
                &vk::BufferViewCreateInfo::default()
                    .buffer(buffer)
                    .format(format)
                    .range(vk::WHOLE_SIZE),
                None,
            )
        };
        let views = [
            view(vk::Format::R32_UINT)?,
            view(vk::Format::R32G32B32A32_UINT)?,
        ];
        let bindings: Vec<_> = (0..2)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(vk::DescriptorType::STORAGE_TEXEL_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let set_layout = device.create_descriptor_set_layout(
            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
            None,
        )?;
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_TEXEL_BUFFER)
            .descriptor_count(2)];
        let pool = device.create_descriptor_pool(
            &vk::DescriptorPoolCreateInfo::default()
                .max_sets(1)
                .pool_sizes(&sizes),
            None,
        )?;
        let layouts = [set_layout];
        let set = device.allocate_descriptor_sets(
            &vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&layouts),
        )?[0];
        for (b, v) in views.iter().enumerate() {
            let v = [*v];
            device.update_descriptor_sets(
                &[vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(b as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_TEXEL_BUFFER)
                    .texel_buffer_view(&v)],
                &[],
            );
        }
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(128)];
        let layout = device.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&layouts)
                .push_constant_ranges(&ranges),
            None,
        )?;
        let c0 = cpu();
        let module = device
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let pipeline = device
            .create_compute_pipelines(
                vk::PipelineCache::null(),
                &[vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(layout)],
                None,
            )
            .map_err(|(_, e)| e)?[0];
        let cmd_pool = device.create_command_pool(
            &vk::CommandPoolCreateInfo::default().queue_family_index(family),
            None,
        )?;
        let cmd = device.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(cmd_pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1),
        )?[0];
        device.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
        device.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::COMPUTE,
            layout,
            0,
            &[set],
            &[],
        );
        device.cmd_push_constants(cmd, layout, vk::ShaderStageFlags::COMPUTE, 0, &[0u8; 128]);
        device.cmd_dispatch(cmd, 1, 1, 1);
        device.end_command_buffer(cmd)?;
        let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
        let cmds = [cmd];
        device.queue_submit(
            queue,
            &[vk::SubmitInfo::default().command_buffers(&cmds)],
            fence,
        )?;
        device.wait_for_fences(&[fence], true, u64::MAX)?;
        let c1 = cpu();
        println!(
            "{path}: {} words: first dispatch {:.2} s CPU",
            words.len(),
            c1 - c0
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdna2spv::dispatch::lift_options;
    use rdna2spv_codeobj::CodeObject;
    use rdna2spv_ir::lift::lift;
    use rdna2spv_spirv::lower::{lower_with, LowerOptions, Mapping};
    use rdna2spv_vulkan::{kernel_layout, DeviceProfile};

    /// fixtures/kernels/reduce.co (a workgroup reduction: LDS, barriers, global loads and stores), lowered
    /// checked in the lane mapping.
    fn fixture() -> Vec<u32> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/kernels/reduce.co");
        let co = CodeObject::parse(&std::fs::read(path).unwrap()).unwrap();
        let k = &co.kernels[0];
        let program = lift(&k.name, &k.code, lift_options(&co, k)).unwrap();
        let layout = kernel_layout(&crate::bench_translate::launch_for(k, 0x1_0000));
        let opts = LowerOptions {
            mapping: Mapping::Lane,
            checked: Some(1),
            ..LowerOptions::default()
        };
        lower_with(&program, &layout, &DeviceProfile::portable(), &opts).unwrap()
    }

    /// A lowered kernel with workgroup and global accesses and a barrier: every variant assembles into a
    /// module spirv-val accepts (where spirv-val is installed), with the counts the ablation claims.
    #[test]
    fn variants_are_valid_and_counted() {
        let words = fixture();
        let mut last_left = usize::MAX;
        for (name, a) in VARIANTS
            .into_iter()
            .chain([IMAGES, IMAGES_STORES, ACCUMULATOR])
        {
            let (w, n) = ablate(&words, a).unwrap();
            // Each switch replaced something of its kind in this kernel, and nothing else.
            assert_eq!(a.workgroup_loads, n.loads_replaced > 0, "{name}: {n:?}");
            assert_eq!(
                a.workgroup_rest || a.accumulate_only || a.stores_as_images,
                n.stores_replaced > 0,
                "{name}: {n:?}"
            );
            assert_eq!(a.barriers, n.barriers_removed > 0, "{name}: {n:?}");
            if a.global {
                let (_, without) = ablate(&words, Ablation { global: false, ..a }).unwrap();
                assert!(
                    n.loads_replaced > without.loads_replaced,
                    "{name}: global loads"
                );
            }
            if a.workgroup_rest && a.global {
                assert_eq!(
                    n.accesses_left, 1,
                    "{name}: only the accumulator's store is left"
                );
            }
            if a.accumulate_only {
                let (_, wrapped) = ablate(&words, Ablation::NONE).unwrap();
                assert_eq!(
                    n.accesses_left, wrapped.accesses_left,
                    "{name}: every access kept"
                );
            } else if a.stores_as_images {
                let (_, loads_only) = ablate(&words, IMAGES.1).unwrap();
                assert_eq!(
                    n.accesses_left + n.stores_replaced,
                    loads_only.accesses_left,
                    "{name}: the workgroup stores written to the texel buffers"
                );
            } else if !a.loads_as_images {
                assert!(n.accesses_left <= last_left, "{name}");
                last_left = n.accesses_left;
            }
            if a.barriers {
                assert_eq!(n.barriers_left, 0, "{name}");
            }
            validate(name, &w);
        }
    }

    /// spirv-val (where installed) accepts the module.
    fn validate(name: &str, w: &[u32]) {
        if std::process::Command::new("spirv-val")
            .arg("--version")
            .output()
            .is_err()
        {
            return;
        }
        let path =
            std::env::temp_dir().join(format!("compile-floor-{name}-{}.spv", std::process::id()));
        std::fs::write(
            &path,
            w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
        )
        .unwrap();
        let out = std::process::Command::new("spirv-val")
            .args(["--target-env", "vulkan1.3"])
            .arg(&path)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The barriers spirv-opt (where installed) finds live once the constant selections are folded, or
    /// `None` without spirv-opt.
    fn live_barriers(name: &str, w: &[u32]) -> Option<usize> {
        let dir = std::env::temp_dir();
        let (src, dst) = (
            dir.join(format!(
                "compile-floor-cut-{name}-{}.spv",
                std::process::id()
            )),
            dir.join(format!(
                "compile-floor-cut-{name}-{}.opt.spv",
                std::process::id()
            )),
        );
        std::fs::write(
            &src,
            w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
        )
        .unwrap();
        let out = std::process::Command::new("spirv-opt")
            .args([
                "--eliminate-dead-branches",
                "--eliminate-dead-code-aggressive",
            ])
            .arg(&src)
            .arg("-o")
            .arg(&dst)
            .output()
            .ok()?;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let m = rspirv::dr::load_words(
            rdna2spv_capture::spirv_words(&std::fs::read(&dst).unwrap()).unwrap(),
        )
        .unwrap();
        let _ = (std::fs::remove_file(&src), std::fs::remove_file(&dst));
        Some(
            m.functions
                .iter()
                .flat_map(|f| &f.blocks)
                .flat_map(|b| &b.instructions)
                .filter(|i| i.class.opcode == Op::ControlBarrier)
                .count(),
        )
    }

    /// `--cut`: a cut at the first barrier leaves valid SPIR-V in which folding the constant selections
    /// leaves fewer live barriers than the uncut module; a cut at 1000 per mille changes nothing.
    #[test]
    fn cuts_are_valid_and_drop_what_follows() {
        let words = fixture();
        let cut = |p| {
            ablate(
                &words,
                Ablation {
                    cut_permille: Some(p),
                    ..Ablation::NONE
                },
            )
            .unwrap()
        };
        let (whole, _) = ablate(&words, Ablation::NONE).unwrap();
        let (none, n) = cut(1000);
        assert_eq!((n.cuts, &none), (0, &whole));
        let (first, n) = cut(0);
        assert!(n.cuts > 0, "{n:?}");
        validate("cut-0", &first);
        if let (Some(all), Some(left)) = (
            live_barriers("whole", &whole),
            live_barriers("cut-0", &first),
        ) {
            assert!(all > 0 && left < all, "live barriers: {left} of {all}");
        }
    }
}
