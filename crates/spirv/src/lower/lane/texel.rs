//! Workgroup memory in a storage texel buffer (decision D288, the plan of D287).
//!
//! lavapipe compiles a workgroup load inside control flow as a loop over the lanes, one per access; a
//! storage-texel-buffer read is a gather with no loop. Half of the large sorts' compile is their
//! workgroup loads (D287, measured with `xtask compile-floor`), so on a device whose profile says
//! [`DeviceProfile::lds_in_texel_buffer`](crate::DeviceProfile::lds_in_texel_buffer) every `Workgroup`
//! variable of a lane module — the kernel's LDS, the exchange slots, ballot words and labels — moves
//! into one storage texel buffer, bound twice (descriptor set 0): binding 0 as `R32ui` (every word
//! access, atomics through `OpImageTexelPointer`) and binding 1 as `Rgba32ui` (the `uvec4` elements).
//!
//! The buffer holds [`TexelLds::regions`] regions of [`TexelLds::region_words`] words. A workgroup uses
//! region `lin mod regions`, `lin` its linear Vulkan workgroup id `x + X·(y + Y·z)` over the whole
//! dispatch (X, Y: the kernel's workgroup counts from the pushed grid, or the folded grid's row width,
//! D253). The runner dispatches the workgroups in chunks of `regions` consecutive linear ids
//! (`vkCmdDispatchBase` boxes), zero-fills the regions before each chunk (what the variables' null
//! initializers and D010's zeroed LDS promise) and orders the chunks with barriers, so no two
//! workgroups in flight share a region. `NumWorkgroups` then counts a chunk, so a module lowered for
//! texel LDS takes the kernel's workgroup counts from the pushed grid instead (`Cx::module`).
//!
//! Each variable keeps its words at a 4-word aligned offset of the region; an access's index is the
//! region's base plus the variable's offset plus the index it had (the checked path's spare words
//! included, so out-of-range semantics do not change). Barriers and atomics that ordered workgroup
//! memory order image memory too, and the image variables are `Coherent` (the modules use the GLSL450
//! memory model). The rewrite runs last, on the finished module; a module with an access it does not
//! know is left as it was (workgroup memory), never half rewritten.

use crate::hash::{HashMap, HashSet};

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{BuiltIn, Capability, Decoration, Dim, ImageFormat, Op, StorageClass, Word};

use super::shrink::{const_u32, find_decl, type_decl};

/// The prefix of the `OpModuleProcessed` string giving the regions of one chunk of a texel-LDS module.
pub const TEXEL_REGIONS_MARK: &str = "rdna2spv lds texel regions=";
/// The prefix of the `OpModuleProcessed` string giving the words of one region.
pub const TEXEL_WORDS_MARK: &str = "rdna2spv lds texel words=";

/// The prefix of the `OpModuleProcessed` string of a lane module the rewrite could not move (it keeps
/// its workgroup memory); the reason follows. `rdna2spv corpus` reports such a module as an error.
pub const TEXEL_REFUSED_MARK: &str = "rdna2spv lds texel refused: ";

/// Texel words of one chunk at most (64 MiB; lavapipe's `maxTexelBufferElements` is 2^27).
pub const TEXEL_BUDGET_WORDS: u32 = 1 << 24;
/// Regions of one chunk at most.
pub const TEXEL_MAX_REGIONS: u32 = 1 << 16;

/// `MemorySemantics` bits.
const SEM_WORKGROUP_MEMORY: u32 = 0x100;
const SEM_IMAGE_MEMORY: u32 = 0x800;

/// Environment variable capping the regions of one chunk (tests and measurements: a dispatch of a few
/// workgroups then runs in several chunks, each refilled with zeros).
pub const TEXEL_REGIONS_ENV: &str = "RDNA2SPV_TEXEL_REGIONS";

fn regions_from_env() -> Option<u32> {
    std::env::var(TEXEL_REGIONS_ENV)
        .ok()?
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|&n| n > 0)
}

/// Workgroup loads a lane module needs before its workgroup memory moves (D288): each scalar load
/// costs six more words in the texel buffer (an index add, the read of a `uvec4` and its first
/// component), which a small kernel's compile does not repay — on the corpus sample every module moved
/// put the median words per instruction at 21.4, against 19.7 — while the kernels whose compile the
/// texel buffer halves have hundreds (b023 #298: 242; the sorts: 800 to 1,400).
pub const TEXEL_MIN_LOADS: usize = 128;
/// Environment variable replacing [`TEXEL_MIN_LOADS`] (tests: 0 moves every lane module).
pub const TEXEL_MIN_LOADS_ENV: &str = "RDNA2SPV_TEXEL_MIN_LOADS";

fn min_loads() -> usize {
    std::env::var(TEXEL_MIN_LOADS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(TEXEL_MIN_LOADS)
}

/// The texel buffer a module lowered with texel LDS needs (from its marks: [`texel_lds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TexelLds {
    /// Regions of one chunk: workgroups with linear ids `k·regions .. (k+1)·regions` run together.
    pub regions: u32,
    /// Words of one region (a multiple of 4).
    pub region_words: u32,
}

/// The texel LDS a module asks for, from its `OpModuleProcessed` marks; `None`: workgroup memory.
pub fn texel_lds(words: &[u32]) -> Option<TexelLds> {
    let regions = super::split::processed_number(words, TEXEL_REGIONS_MARK)?;
    let region_words = super::split::processed_number(words, TEXEL_WORDS_MARK)?;
    (regions > 0 && region_words > 0 && region_words.is_multiple_of(4)).then_some(TexelLds {
        regions,
        region_words,
    })
}

/// Why the texel rewrite left `words`' workgroup memory where it was ([`TEXEL_REFUSED_MARK`]), if it did.
pub fn texel_refusal(words: &[u32]) -> Option<String> {
    super::split::processed_string(words, TEXEL_REFUSED_MARK)
}

/// How the module finds its workgroup's linear id.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RegionOf {
    /// The folded grid's row width (D253): the linear id is `y·w + x`.
    pub fold: Option<u32>,
    /// Vulkan workgroups per kernel workgroup in x (split waves, D105: each wave is a Vulkan workgroup
    /// with workgroup memory, and so a region, of its own).
    pub split: u32,
    /// The kernel's workgroup size (the counts are `(grid − 1) / size + 1`).
    pub workgroup: [u32; 3],
}

/// One workgroup variable's place in the region.
#[derive(Clone, Copy)]
struct Var {
    /// Word offset in the region (a multiple of 4).
    off: u32,
    /// Words of one element: 1 (u32), 2 or 4 (vectors of u32).
    elem: u32,
    /// An array (indexed by access chains) rather than one element.
    array: bool,
}

/// What an access chain into a workgroup variable became.
#[derive(Clone, Copy)]
enum Place {
    /// One word: the `R32ui` texel at the index.
    Word(Word),
    /// A `uvec2` element: two words from the index on.
    Pair(Word),
    /// A `uvec4` element: the `Rgba32ui` texel at the index.
    Quad(Word),
}

/// Moves every workgroup variable of the lane module `m` into the texel buffer (module doc). Returns
/// what the runner must bind, or `None` (the module unchanged) when it has no workgroup variable, or an
/// error naming the access it cannot move (the module unchanged but for [`TEXEL_REFUSED_MARK`]).
pub(crate) fn lds_to_texel(m: &mut Module, at: RegionOf) -> Result<Option<TexelLds>, String> {
    let mut work = m.clone();
    match rewrite(&mut work, at) {
        Ok(r) => {
            if r.is_some() {
                *m = work;
            }
            Ok(r)
        }
        Err(why) => {
            m.debug_module_processed.push(Instruction::new(
                Op::ModuleProcessed,
                None,
                None,
                vec![Operand::LiteralString(format!("{TEXEL_REFUSED_MARK}{why}"))],
            ));
            Err(why)
        }
    }
}

fn id(o: &Operand) -> Option<Word> {
    match o {
        Operand::IdRef(x) | Operand::IdMemorySemantics(x) | Operand::IdScope(x) => Some(*x),
        _ => None,
    }
}

fn ins(op: Op, ty: Option<Word>, r: Option<Word>, ops: &[Word]) -> Instruction {
    Instruction::new(op, ty, r, ops.iter().map(|&w| Operand::IdRef(w)).collect())
}

fn decl_of(m: &Module, x: Word) -> Option<&Instruction> {
    m.types_global_values
        .iter()
        .find(|i| i.result_id == Some(x))
}

fn literal_of(m: &Module, c: Word) -> Option<u32> {
    let i = decl_of(m, c)?;
    match (i.class.opcode, i.operands.first()) {
        (Op::Constant, Some(Operand::LiteralBit32(v))) => Some(*v),
        _ => None,
    }
}

fn rewrite(m: &mut Module, at: RegionOf) -> Result<Option<TexelLds>, String> {
    let mut bound = m.header.as_ref().ok_or("no header")?.bound;
    // The workgroup variables and their layout.
    let mut vars: HashMap<Word, Var> = HashMap::default();
    let mut order = Vec::new();
    let mut next = 0u32;
    for i in &m.types_global_values {
        if i.class.opcode != Op::Variable
            || i.operands.first() != Some(&Operand::StorageClass(StorageClass::Workgroup))
        {
            continue;
        }
        let var = i.result_id.ok_or("variable without id")?;
        if let Some(init) = i.operands.get(1).and_then(id) {
            if decl_of(m, init).map(|d| d.class.opcode) != Some(Op::ConstantNull) {
                return Err(format!(
                    "workgroup variable %{var} has a non-null initializer"
                ));
            }
        }
        let ptr = decl_of(m, i.result_type.ok_or("untyped variable")?).ok_or("pointer type")?;
        let pointee = ptr.operands.get(1).and_then(id).ok_or("pointer type")?;
        let t = decl_of(m, pointee).ok_or("pointee type")?;
        let (elem_ty, len, array) = match t.class.opcode {
            Op::TypeArray => {
                let e = t.operands.first().and_then(id).ok_or("array type")?;
                let n = t.operands.get(1).and_then(id).ok_or("array type")?;
                let n = literal_of(m, n).ok_or("array length")?;
                (e, n, true)
            }
            _ => (pointee, 1, false),
        };
        let et = decl_of(m, elem_ty).ok_or("element type")?;
        let elem = match (et.class.opcode, et.operands.as_slice()) {
            (Op::TypeInt, [Operand::LiteralBit32(32), Operand::LiteralBit32(0)]) => 1,
            (Op::TypeVector, [Operand::IdRef(c), Operand::LiteralBit32(n @ (2 | 4))]) => {
                let ct = decl_of(m, *c).ok_or("component type")?;
                if ct.class.opcode != Op::TypeInt
                    || ct.operands != [Operand::LiteralBit32(32), Operand::LiteralBit32(0)]
                {
                    return Err(format!("workgroup variable %{var}: not a vector of u32"));
                }
                *n
            }
            _ => {
                return Err(format!(
                    "workgroup variable %{var}: elements not u32 or uvec2/uvec4"
                ))
            }
        };
        let words = elem
            .checked_mul(len)
            .ok_or("workgroup variable too large")?;
        vars.insert(
            var,
            Var {
                off: next,
                elem,
                array,
            },
        );
        order.push(var);
        next = next
            .checked_add(words)
            .and_then(|n| n.checked_next_multiple_of(4))
            .ok_or("workgroup memory too large")?;
    }
    if vars.is_empty() {
        return Ok(None);
    }
    // Loads through the workgroup variables (directly or through one access chain).
    let mut chains: HashSet<Word> = vars.keys().copied().collect();
    let mut loads = 0;
    for i in m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
    {
        let p0 = i.operands.first().and_then(id);
        match i.class.opcode {
            Op::AccessChain | Op::InBoundsAccessChain
                if p0.is_some_and(|p| vars.contains_key(&p)) =>
            {
                chains.extend(i.result_id);
            }
            Op::Load if p0.is_some_and(|p| chains.contains(&p)) => loads += 1,
            _ => {}
        }
    }
    if loads < min_loads() {
        return Ok(None);
    }
    let region_words = next.max(4);
    if region_words > TEXEL_BUDGET_WORDS {
        return Err(format!("{region_words} words of workgroup memory"));
    }
    let regions = (TEXEL_BUDGET_WORDS / region_words)
        .clamp(1, TEXEL_MAX_REGIONS)
        .min(regions_from_env().unwrap_or(u32::MAX));

    // Types, the image variables and the region's base.
    let u32_ = find_decl(
        m,
        Op::TypeInt,
        None,
        &[Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
    )
    .ok_or("no u32 type")?;
    let v4 = type_decl(
        m,
        &mut bound,
        Op::TypeVector,
        vec![Operand::IdRef(u32_), Operand::LiteralBit32(4)],
        u32_,
    );
    let v3 = type_decl(
        m,
        &mut bound,
        Op::TypeVector,
        vec![Operand::IdRef(u32_), Operand::LiteralBit32(3)],
        u32_,
    );
    let image_ty = |m: &mut Module, bound: &mut Word, f: ImageFormat| {
        type_decl(
            m,
            bound,
            Op::TypeImage,
            vec![
                Operand::IdRef(u32_),
                Operand::Dim(Dim::DimBuffer),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(2),
                Operand::ImageFormat(f),
            ],
            u32_,
        )
    };
    let img1 = image_ty(m, &mut bound, ImageFormat::R32ui);
    let img4 = image_ty(m, &mut bound, ImageFormat::Rgba32ui);
    let ptr = |m: &mut Module, bound: &mut Word, sc: StorageClass, t: Word| {
        type_decl(
            m,
            bound,
            Op::TypePointer,
            vec![Operand::StorageClass(sc), Operand::IdRef(t)],
            t,
        )
    };
    let p_img1 = ptr(m, &mut bound, StorageClass::UniformConstant, img1);
    let p_img4 = ptr(m, &mut bound, StorageClass::UniformConstant, img4);
    let p_texel = ptr(m, &mut bound, StorageClass::Image, u32_);
    let p_priv = ptr(m, &mut bound, StorageClass::Private, u32_);
    let p_pc = ptr(m, &mut bound, StorageClass::PushConstant, u32_);
    let p_in3 = ptr(m, &mut bound, StorageClass::Input, v3);
    let mut ids = Ids { next: bound };
    let (var1, var4, base_var) = (ids.fresh(), ids.fresh(), ids.fresh());
    let mut globals = vec![
        Instruction::new(
            Op::Variable,
            Some(p_img1),
            Some(var1),
            vec![Operand::StorageClass(StorageClass::UniformConstant)],
        ),
        Instruction::new(
            Op::Variable,
            Some(p_img4),
            Some(var4),
            vec![Operand::StorageClass(StorageClass::UniformConstant)],
        ),
        Instruction::new(
            Op::Variable,
            Some(p_priv),
            Some(base_var),
            vec![Operand::StorageClass(StorageClass::Private)],
        ),
    ];
    for (var, binding) in [(var1, 0), (var4, 1)] {
        for (d, v) in [
            (Decoration::DescriptorSet, Some(0)),
            (Decoration::Binding, Some(binding)),
            (Decoration::Coherent, None),
        ] {
            let mut ops = vec![Operand::IdRef(var), Operand::Decoration(d)];
            ops.extend(v.map(Operand::LiteralBit32));
            m.annotations
                .push(Instruction::new(Op::Decorate, None, None, ops));
        }
    }
    // The WorkgroupId built-in (declared if the module has none) and the push-constant block.
    let wgid = m
        .annotations
        .iter()
        .find(|i| {
            i.class.opcode == Op::Decorate
                && i.operands.get(1) == Some(&Operand::Decoration(Decoration::BuiltIn))
                && i.operands.get(2) == Some(&Operand::BuiltIn(BuiltIn::WorkgroupId))
        })
        .and_then(|i| i.operands.first().and_then(id));
    let wgid = match wgid {
        Some(v) => v,
        None => {
            let v = ids.fresh();
            globals.push(Instruction::new(
                Op::Variable,
                Some(p_in3),
                Some(v),
                vec![Operand::StorageClass(StorageClass::Input)],
            ));
            m.annotations.push(Instruction::new(
                Op::Decorate,
                None,
                None,
                vec![
                    Operand::IdRef(v),
                    Operand::Decoration(Decoration::BuiltIn),
                    Operand::BuiltIn(BuiltIn::WorkgroupId),
                ],
            ));
            v
        }
    };
    let pc = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::PushConstant))
        })
        .and_then(|i| i.result_id)
        .ok_or("no push-constant block")?;
    // Constants (ids past `ids.next` are taken from `ids` so that no two meet).
    let mut c = |m: &mut Module, v: u32| const_u32(m, &mut ids.next, u32_, v);
    let grid_members: Vec<Word> = (0..2).map(|d| c(m, 2 + d)).collect();
    let wg: Vec<Word> = at.workgroup.iter().map(|&w| c(m, w)).collect();
    let (zero, one, two) = (c(m, 0), c(m, 1), c(m, 2));
    let (c_regions, c_words) = (c(m, regions), c(m, region_words));
    let fold_w = at.fold.map(|w| c(m, w));
    let split_c = (at.split > 1).then(|| c(m, at.split));
    let elem_c: HashMap<u32, Word> = [2u32, 4].into_iter().map(|n| (n, c(m, n))).collect();
    // Each variable's offset: in words, and in `uvec4` texels for the `Rgba32ui` view.
    let offs: HashMap<Word, (Word, Word)> = order
        .iter()
        .map(|v| (*v, (c(m, vars[v].off), c(m, vars[v].off / 4))))
        .collect();
    // Semantics constants with image memory beside workgroup memory: for the constants barriers and
    // atomics use as semantics (no others: a data constant that happens to have bit 8 set gets none).
    let used: HashSet<Word> = m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .flat_map(|i| {
            let at: &[usize] = match i.class.opcode {
                Op::ControlBarrier => &[2],
                Op::MemoryBarrier => &[1],
                Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => &[2, 3],
                op if is_atomic(op) => &[2],
                _ => &[],
            };
            at.iter().filter_map(|&k| i.operands.get(k).and_then(id))
        })
        .collect();
    let sem_ids: Vec<(Word, u32)> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant && i.result_type == Some(u32_))
        .filter(|i| i.result_id.is_some_and(|r| used.contains(&r)))
        .filter_map(|i| match i.operands.first() {
            Some(Operand::LiteralBit32(v)) if v & SEM_WORKGROUP_MEMORY != 0 => {
                Some((i.result_id?, *v))
            }
            _ => None,
        })
        .collect();
    let sems: HashMap<Word, Word> = sem_ids
        .into_iter()
        .map(|(k, v)| (k, c(m, v | SEM_IMAGE_MEMORY)))
        .collect();
    m.types_global_values.extend(globals);
    let mut k = K {
        u32_,
        v4,
        im1: 0,
        im4: 0,
    };

    let entry = m
        .entry_points
        .first()
        .and_then(|e| e.operands.get(1).and_then(id))
        .ok_or("no entry point")?;
    // Every id the module may not use after the rewrite.
    let mut gone: HashSet<Word> = vars.keys().copied().collect();
    for f in m.functions.iter_mut() {
        let fid = f.def.as_ref().and_then(|d| d.result_id);
        let uses = f.blocks.iter().flat_map(|b| &b.instructions).any(|i| {
            i.operands
                .iter()
                .any(|o| id(o).is_some_and(|x| vars.contains_key(&x)))
        });
        if fid != Some(entry) && !uses {
            continue;
        }
        let b0 = f.blocks.first_mut().ok_or("function without blocks")?;
        let at0 = b0
            .instructions
            .iter()
            .position(|i| i.class.opcode != Op::Variable)
            .unwrap_or(b0.instructions.len());
        let mut head = Vec::new();
        let base = ids.fresh();
        if fid == Some(entry) {
            // lin = x + X·(y + Y·z), or y·w + x in a folded grid; base = (lin mod regions) · words.
            let (g, gx, gy, gz) = (ids.fresh(), ids.fresh(), ids.fresh(), ids.fresh());
            head.push(ins(Op::Load, Some(v3), Some(g), &[wgid]));
            for (d, r) in [gx, gy, gz].into_iter().enumerate() {
                head.push(extract(u32_, r, g, d as u32));
            }
            let lin = ids.fresh();
            if let Some(w) = fold_w {
                let row = ids.fresh();
                head.push(ins(Op::IMul, Some(u32_), Some(row), &[gy, w]));
                head.push(ins(Op::IAdd, Some(u32_), Some(lin), &[row, gx]));
            } else {
                let mut n = [0; 2];
                for d in 0..2 {
                    let (p, gr, g1, q) = (ids.fresh(), ids.fresh(), ids.fresh(), ids.fresh());
                    n[d] = ids.fresh();
                    head.push(ins(
                        Op::AccessChain,
                        Some(p_pc),
                        Some(p),
                        &[pc, grid_members[d]],
                    ));
                    head.push(ins(Op::Load, Some(u32_), Some(gr), &[p]));
                    head.push(ins(Op::ISub, Some(u32_), Some(g1), &[gr, one]));
                    head.push(ins(Op::UDiv, Some(u32_), Some(q), &[g1, wg[d]]));
                    head.push(ins(Op::IAdd, Some(u32_), Some(n[d]), &[q, one]));
                }
                if let Some(w) = split_c {
                    let nx = ids.fresh();
                    head.push(ins(Op::IMul, Some(u32_), Some(nx), &[n[0], w]));
                    n[0] = nx;
                }
                let (yz, yzs, row) = (ids.fresh(), ids.fresh(), ids.fresh());
                head.push(ins(Op::IMul, Some(u32_), Some(yz), &[n[1], gz]));
                head.push(ins(Op::IAdd, Some(u32_), Some(yzs), &[yz, gy]));
                head.push(ins(Op::IMul, Some(u32_), Some(row), &[yzs, n[0]]));
                head.push(ins(Op::IAdd, Some(u32_), Some(lin), &[row, gx]));
            }
            let region = ids.fresh();
            head.push(ins(Op::UMod, Some(u32_), Some(region), &[lin, c_regions]));
            head.push(ins(Op::IMul, Some(u32_), Some(base), &[region, c_words]));
            head.push(ins(Op::Store, None, None, &[base_var, base]));
        } else {
            head.push(ins(Op::Load, Some(u32_), Some(base), &[base_var]));
        }
        let base4 = ids.fresh();
        head.push(ins(
            Op::ShiftRightLogical,
            Some(u32_),
            Some(base4),
            &[base, two],
        ));
        // The two views, loaded once per function (every access's block is dominated by the first).
        (k.im1, k.im4) = (ids.fresh(), ids.fresh());
        head.push(ins(Op::Load, Some(img1), Some(k.im1), &[var1]));
        head.push(ins(Op::Load, Some(img4), Some(k.im4), &[var4]));
        // Each variable's first texel in this function's region, in words and in `uvec4`s (LLVM drops
        // the ones no access reads).
        let mut starts: HashMap<Word, (Word, Word)> = HashMap::default();
        for v in &order {
            let (w, q) = (ids.fresh(), ids.fresh());
            head.push(ins(Op::IAdd, Some(u32_), Some(w), &[base, offs[v].0]));
            head.push(ins(Op::IAdd, Some(u32_), Some(q), &[base4, offs[v].1]));
            starts.insert(*v, (w, q));
        }
        b0.instructions.splice(at0..at0, head);

        let mut places: HashMap<Word, Place> = HashMap::default();
        for b in f.blocks.iter_mut() {
            let mut out = Vec::with_capacity(b.instructions.len());
            for mut i in std::mem::take(&mut b.instructions) {
                let op = i.class.opcode;
                let p0 = i.operands.first().and_then(id);
                let chain = matches!(op, Op::AccessChain | Op::InBoundsAccessChain);
                if let Some(var) = p0.filter(|p| chain && vars.contains_key(p)) {
                    // An element (one index) or an element's component (two) of an array variable.
                    let v = vars[&var];
                    let ix: Vec<Word> = i.operands[1..].iter().filter_map(id).collect();
                    let r = i.result_id.ok_or("chain without id")?;
                    if !v.array || ix.is_empty() || ix.len() > 2 || (ix.len() == 2 && v.elem == 1) {
                        return Err(format!("access chain %{r} of {} indices", ix.len()));
                    }
                    let quad = ix.len() == 1 && v.elem == 4;
                    let from = if quad { starts[&var].1 } else { starts[&var].0 };
                    let at_elem = if ix.len() == 2 {
                        let (s, e) = (ids.fresh(), ids.fresh());
                        out.push(ins(
                            Op::IMul,
                            Some(u32_),
                            Some(s),
                            &[ix[0], elem_c[&v.elem]],
                        ));
                        out.push(ins(Op::IAdd, Some(u32_), Some(e), &[s, ix[1]]));
                        e
                    } else if v.elem == 2 {
                        let s = ids.fresh();
                        out.push(ins(Op::IMul, Some(u32_), Some(s), &[ix[0], elem_c[&2]]));
                        s
                    } else {
                        ix[0]
                    };
                    let x = ids.fresh();
                    out.push(ins(Op::IAdd, Some(u32_), Some(x), &[from, at_elem]));
                    let place = match (ix.len(), v.elem) {
                        (2, _) | (1, 1) => Place::Word(x),
                        (1, 2) => Place::Pair(x),
                        _ => Place::Quad(x),
                    };
                    places.insert(r, place);
                    gone.insert(r);
                    continue;
                }
                // A whole (non-array) variable used as a pointer.
                if let Some(var) = p0.filter(|p| !chain && vars.get(p).is_some_and(|v| !v.array)) {
                    let place = match vars[&var].elem {
                        4 => Place::Quad(starts[&var].1),
                        2 => Place::Pair(starts[&var].0),
                        _ => Place::Word(starts[&var].0),
                    };
                    places.insert(var, place);
                }
                let place = p0.and_then(|p| places.get(&p).copied());
                match (op, place) {
                    (Op::Load, Some(place)) => {
                        let ty = i.result_type.ok_or("load type")?;
                        let r = i.result_id.ok_or("load id")?;
                        match place {
                            Place::Word(x) => k.read(&mut out, &mut ids, x, false, r),
                            Place::Quad(x) => k.read(&mut out, &mut ids, x, true, r),
                            Place::Pair(x) => {
                                let (a, b2, x1) = (ids.fresh(), ids.fresh(), ids.fresh());
                                k.read(&mut out, &mut ids, x, false, a);
                                out.push(ins(Op::IAdd, Some(u32_), Some(x1), &[x, one]));
                                k.read(&mut out, &mut ids, x1, false, b2);
                                out.push(ins(Op::CompositeConstruct, Some(ty), Some(r), &[a, b2]));
                            }
                        }
                    }
                    (Op::Store, Some(place)) => {
                        let v = i.operands.get(1).and_then(id).ok_or("store value")?;
                        match place {
                            Place::Word(x) => k.write(&mut out, x, false, v),
                            Place::Quad(x) => k.write(&mut out, x, true, v),
                            Place::Pair(x) => {
                                let (a, b2, x1) = (ids.fresh(), ids.fresh(), ids.fresh());
                                out.push(extract(u32_, a, v, 0));
                                out.push(extract(u32_, b2, v, 1));
                                k.write(&mut out, x, false, a);
                                out.push(ins(Op::IAdd, Some(u32_), Some(x1), &[x, one]));
                                k.write(&mut out, x1, false, b2);
                            }
                        }
                    }
                    (_, Some(place)) if is_atomic(op) => {
                        let Place::Word(x) = place else {
                            return Err(format!("{op:?} on a vector of workgroup memory"));
                        };
                        let tp = ids.fresh();
                        out.push(ins(
                            Op::ImageTexelPointer,
                            Some(p_texel),
                            Some(tp),
                            &[var1, x, zero],
                        ));
                        i.operands[0] = Operand::IdRef(tp);
                        let n_sem = match op {
                            Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => 2,
                            _ => 1,
                        };
                        for s in 2..2 + n_sem {
                            remap(&mut i, s, &sems);
                        }
                        out.push(i);
                    }
                    (Op::ControlBarrier, _) => {
                        remap(&mut i, 2, &sems);
                        out.push(i);
                    }
                    (Op::MemoryBarrier, _) => {
                        remap(&mut i, 1, &sems);
                        out.push(i);
                    }
                    _ => {
                        if let Some(x) = i.operands.iter().filter_map(id).find(|x| gone.contains(x))
                        {
                            return Err(format!("{op:?} uses workgroup pointer %{x}"));
                        }
                        out.push(i);
                    }
                }
            }
            b.instructions = out;
        }
        // A whole-variable place is per use: forget it so that each function computes its own.
        places.clear();
    }
    let bound = ids.next;
    // The workgroup variables leave the module and its interface; the texel buffers join it.
    m.types_global_values
        .retain(|i| !i.result_id.is_some_and(|r| vars.contains_key(&r)));
    m.debug_names.retain(|i| {
        !i.operands
            .first()
            .and_then(id)
            .is_some_and(|r| gone.contains(&r))
    });
    m.annotations.retain(|i| {
        !i.operands
            .first()
            .and_then(id)
            .is_some_and(|r| gone.contains(&r))
    });
    let ep = m.entry_points.first_mut().ok_or("no entry point")?;
    ep.operands
        .retain(|o| !id(o).is_some_and(|r| vars.contains_key(&r)));
    for v in [var1, var4, base_var, wgid] {
        if !ep.operands.contains(&Operand::IdRef(v)) {
            ep.operands.push(Operand::IdRef(v));
        }
    }
    if !m
        .capabilities
        .iter()
        .any(|i| i.operands == [Operand::Capability(Capability::ImageBuffer)])
    {
        m.capabilities.push(Instruction::new(
            Op::Capability,
            None,
            None,
            vec![Operand::Capability(Capability::ImageBuffer)],
        ));
    }
    for s in [
        format!("{TEXEL_REGIONS_MARK}{regions}"),
        format!("{TEXEL_WORDS_MARK}{region_words}"),
    ] {
        m.debug_module_processed.push(Instruction::new(
            Op::ModuleProcessed,
            None,
            None,
            vec![Operand::LiteralString(s)],
        ));
    }
    m.header.as_mut().ok_or("no header")?.bound = bound;
    Ok(Some(TexelLds {
        regions,
        region_words,
    }))
}

struct Ids {
    next: Word,
}

impl Ids {
    fn fresh(&mut self) -> Word {
        self.next += 1;
        self.next - 1
    }
}

/// The types the loads use and the two views as the current function loaded them.
struct K {
    u32_: Word,
    v4: Word,
    im1: Word,
    im4: Word,
}

impl K {
    /// `r` = the word at texel `x` of the `R32ui` view, or (`wide`) the `uvec4` at texel `x` of the
    /// `Rgba32ui` view.
    fn read(&self, out: &mut Vec<Instruction>, ids: &mut Ids, x: Word, wide: bool, r: Word) {
        if wide {
            out.push(ins(Op::ImageRead, Some(self.v4), Some(r), &[self.im4, x]));
        } else {
            let t = ids.fresh();
            out.push(ins(Op::ImageRead, Some(self.v4), Some(t), &[self.im1, x]));
            out.push(extract(self.u32_, r, t, 0));
        }
    }

    /// Writes `v` (a u32, or with `wide` a `uvec4`) to texel `x`.
    fn write(&self, out: &mut Vec<Instruction>, x: Word, wide: bool, v: Word) {
        let im = if wide { self.im4 } else { self.im1 };
        out.push(ins(Op::ImageWrite, None, None, &[im, x, v]));
    }
}

fn extract(ty: Word, r: Word, v: Word, k: u32) -> Instruction {
    Instruction::new(
        Op::CompositeExtract,
        Some(ty),
        Some(r),
        vec![Operand::IdRef(v), Operand::LiteralBit32(k)],
    )
}

/// Operand `k` of `i`, a semantics constant ordering workgroup memory, orders image memory too.
fn remap(i: &mut Instruction, k: usize, sems: &HashMap<Word, Word>) {
    if let Some(&n) = i.operands.get(k).and_then(id).and_then(|s| sems.get(&s)) {
        i.operands[k] = match i.operands[k] {
            Operand::IdMemorySemantics(_) => Operand::IdMemorySemantics(n),
            _ => Operand::IdRef(n),
        };
    }
}

fn is_atomic(op: Op) -> bool {
    matches!(
        op,
        Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicCompareExchangeWeak
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::binary::Assemble;
    use rspirv::dr::Builder;
    use spirv::{AddressingModel, ExecutionModel, FunctionControl, MemoryModel};

    /// A compute module whose one workgroup variable is `ty`'s, loaded once, with a push-constant
    /// block (the rewrite reads the grid from it).
    fn module(bool_var: bool) -> Module {
        let mut b = Builder::new();
        b.set_version(1, 5);
        b.capability(Capability::Shader);
        b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        let void = b.type_void();
        let u32_ = b.type_int(32, 0);
        let boolt = b.type_bool();
        let pc_struct = b.type_struct([u32_, u32_, u32_, u32_, u32_]);
        let p_pc = b.type_pointer(None, StorageClass::PushConstant, pc_struct);
        let pc = b.variable(p_pc, None, StorageClass::PushConstant, None);
        let elem = if bool_var { boolt } else { u32_ };
        let four = b.constant_bit32(u32_, 4);
        let arr = b.type_array(elem, four);
        let p_arr = b.type_pointer(None, StorageClass::Workgroup, arr);
        let p_elem = b.type_pointer(None, StorageClass::Workgroup, elem);
        let wg = b.variable(p_arr, None, StorageClass::Workgroup, None);
        let fty = b.type_function(void, []);
        let main = b
            .begin_function(void, None, FunctionControl::NONE, fty)
            .unwrap();
        b.begin_block(None).unwrap();
        let one = b.constant_bit32(u32_, 1);
        let p = b.access_chain(p_elem, None, wg, [one]).unwrap();
        b.load(elem, None, p, None, []).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        b.entry_point(ExecutionModel::GLCompute, main, "main", [pc, wg]);
        b.module()
    }

    const AT: RegionOf = RegionOf {
        fold: None,
        split: 1,
        workgroup: [64, 1, 1],
    };

    /// A workgroup variable of a type the texel buffer cannot hold (bool) leaves the module's workgroup
    /// memory where it was and marks why; `texel_refusal` reads it back (`rdna2spv corpus` reports it).
    /// A u32 array moves (with the threshold off).
    #[test]
    fn refusals_leave_the_module_and_say_why() {
        std::env::set_var(TEXEL_MIN_LOADS_ENV, "0");
        let mut m = module(true);
        let why = lds_to_texel(&mut m, AT).unwrap_err();
        assert!(why.contains("elements not u32"), "{why}");
        let words = m.assemble();
        assert_eq!(texel_refusal(&words).as_deref(), Some(why.as_str()));
        assert!(texel_lds(&words).is_none());
        let mut m = module(false);
        let t = lds_to_texel(&mut m, AT).unwrap().unwrap();
        let words = m.assemble();
        assert_eq!(texel_lds(&words), Some(t));
        assert!(texel_refusal(&words).is_none());
    }
}
