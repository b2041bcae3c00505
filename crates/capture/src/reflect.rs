//! SPIR-V reflection for `rdna2spv capture`: the compute entry point, its descriptor bindings (names, set,
//! binding, read/write, element type and stride) and its push-constant members (name, offset, type).

use anyhow::{bail, Context, Result};
use rspirv::dr::{Module, Operand};
use spirv::{Decoration, Op, StorageClass};
use std::collections::BTreeMap;

/// The scalar type of a buffer's elements or a push-constant member, for placeholders and typed values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    F32,
    I32,
    U32,
    F16,
    F64,
    /// Anything else (structs, 8/16/64-bit integers): raw bytes.
    Other,
}

#[derive(Debug, Clone)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
    pub name: String,
    pub readonly: bool,
    pub writeonly: bool,
    /// The stride of the trailing runtime array, if the block ends in one.
    pub stride: Option<u32>,
    /// The fixed part of the block (bytes before the runtime array, or its whole size).
    pub fixed_bytes: u32,
    pub elem: Scalar,
    /// A uniform block (descriptor type UNIFORM_BUFFER) rather than a storage block.
    pub uniform: bool,
    /// A storage image (descriptor type STORAGE_IMAGE) rather than a buffer (D183).
    pub image: Option<StorageImage>,
}

/// A storage image binding: its dimension and format as a raw manifest's `[[images]]` names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageImage {
    /// `1d`, `2d`, `3d`, `1d_array` or `2d_array`.
    pub dim: &'static str,
    /// The format (`crate`-independent name, e.g. `rgba8_unorm`), from the shader's format qualifier.
    pub format: &'static str,
    /// A cube or cube array (six 2-D array slices per cube).
    pub cube: bool,
    /// A combined image sampler (descriptor type COMBINED_IMAGE_SAMPLER, D187) rather than a storage image.
    pub sampled: bool,
    /// A depth image sampled with a compare (`sampler2DShadow`, `sampler2DArrayShadow`; D191).
    pub depth: bool,
}

/// The raw-manifest name of a SPIR-V storage image format (None: not modelled, or Unknown).
fn image_format_name(f: spirv::ImageFormat) -> Option<&'static str> {
    use spirv::ImageFormat as F;
    Some(match f {
        F::Rgba32f => "rgba32_float",
        F::Rgba16f => "rgba16_float",
        F::R32f => "r32_float",
        F::Rgba8 => "rgba8_unorm",
        F::Rgba8Snorm => "rgba8_snorm",
        F::Rg32f => "rg32_float",
        F::Rg16f => "rg16_float",
        F::R16f => "r16_float",
        F::Rgba16 => "rgba16_unorm",
        F::Rg16 => "rg16_unorm",
        F::Rg8 => "rg8_unorm",
        F::R16 => "r16_unorm",
        F::R8 => "r8_unorm",
        F::Rgba16Snorm => "rgba16_snorm",
        F::Rg16Snorm => "rg16_snorm",
        F::Rg8Snorm => "rg8_snorm",
        F::R16Snorm => "r16_snorm",
        F::R8Snorm => "r8_snorm",
        F::Rgba32i => "rgba32_sint",
        F::Rgba16i => "rgba16_sint",
        F::Rgba8i => "rgba8_sint",
        F::R32i => "r32_sint",
        F::Rg32i => "rg32_sint",
        F::Rg16i => "rg16_sint",
        F::Rg8i => "rg8_sint",
        F::R16i => "r16_sint",
        F::R8i => "r8_sint",
        F::Rgba32ui => "rgba32_uint",
        F::Rgba16ui => "rgba16_uint",
        F::Rgba8ui => "rgba8_uint",
        F::R32ui => "r32_uint",
        F::Rg32ui => "rg32_uint",
        F::Rg16ui => "rg16_uint",
        F::Rg8ui => "rg8_uint",
        F::R16ui => "r16_uint",
        F::R8ui => "r8_uint",
        _ => return None,
    })
}

#[derive(Debug, Clone)]
pub struct PushMember {
    pub name: String,
    pub offset: u32,
    pub ty: Scalar,
    pub bytes: u32,
}

#[derive(Debug, Clone)]
pub struct Reflection {
    pub entry: String,
    pub bindings: Vec<Binding>,
    pub push: Vec<PushMember>,
    pub push_bytes: u32,
}

/// Decorations of an id (or a struct member): (decoration, its first literal).
type Decos = Vec<(Decoration, Option<u32>)>;

struct Info<'a> {
    m: &'a Module,
    names: BTreeMap<u32, String>,
    member_names: BTreeMap<(u32, u32), String>,
    decos: BTreeMap<u32, Decos>,
    member_decos: BTreeMap<(u32, u32), Decos>,
    consts: BTreeMap<u32, u32>,
}

impl Info<'_> {
    fn deco(&self, id: u32, d: Decoration) -> Option<Option<u32>> {
        self.decos
            .get(&id)?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, v)| *v)
    }
    fn member_deco(&self, id: u32, m: u32, d: Decoration) -> Option<Option<u32>> {
        self.member_decos
            .get(&(id, m))?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, v)| *v)
    }
    fn ty(&self, id: u32) -> Option<&rspirv::dr::Instruction> {
        self.m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(id))
    }
    fn id_op(i: &rspirv::dr::Instruction, n: usize) -> Option<u32> {
        match i.operands.get(n)? {
            Operand::IdRef(x) => Some(*x),
            _ => None,
        }
    }
    fn lit(i: &rspirv::dr::Instruction, n: usize) -> Option<u32> {
        match i.operands.get(n)? {
            Operand::LiteralBit32(x) => Some(*x),
            _ => None,
        }
    }
    /// Scalar kind and byte size of a type (vectors and arrays by their element; structs: Other).
    fn scalar(&self, id: u32) -> (Scalar, u32) {
        let Some(t) = self.ty(id) else {
            return (Scalar::Other, 0);
        };
        match t.class.opcode {
            Op::TypeFloat => match Self::lit(t, 0) {
                Some(32) => (Scalar::F32, 4),
                Some(16) => (Scalar::F16, 2),
                Some(64) => (Scalar::F64, 8),
                _ => (Scalar::Other, 0),
            },
            Op::TypeInt => match (Self::lit(t, 0), Self::lit(t, 1)) {
                (Some(32), Some(1)) => (Scalar::I32, 4),
                (Some(32), _) => (Scalar::U32, 4),
                (Some(w), _) => (Scalar::Other, w / 8),
                _ => (Scalar::Other, 0),
            },
            Op::TypeVector => {
                let (s, b) = self.scalar(Self::id_op(t, 0).unwrap_or(0));
                (s, b * Self::lit(t, 1).unwrap_or(1))
            }
            Op::TypeArray => {
                let (s, b) = self.scalar(Self::id_op(t, 0).unwrap_or(0));
                let n = Self::id_op(t, 1)
                    .and_then(|c| self.consts.get(&c).copied())
                    .unwrap_or(1);
                let stride = self
                    .deco(id, Decoration::ArrayStride)
                    .flatten()
                    .unwrap_or(b);
                (s, stride * n)
            }
            _ => (Scalar::Other, 0),
        }
    }
}

/// Reflects a SPIR-V module's compute entry point `entry` (or its only one).
pub fn reflect(words: &[u32], entry: Option<&str>) -> Result<Reflection> {
    let m = rspirv::dr::load_words(without_execution_mode_ids(words)?)
        .map_err(|e| anyhow::anyhow!("not valid SPIR-V: {e}"))?;
    let mut info = Info {
        m: &m,
        names: BTreeMap::new(),
        member_names: BTreeMap::new(),
        decos: BTreeMap::new(),
        member_decos: BTreeMap::new(),
        consts: BTreeMap::new(),
    };
    for i in &m.debug_names {
        match (i.class.opcode, i.operands.as_slice()) {
            (Op::Name, [Operand::IdRef(id), Operand::LiteralString(s)]) => {
                info.names.insert(*id, s.clone());
            }
            (
                Op::MemberName,
                [Operand::IdRef(id), Operand::LiteralBit32(n), Operand::LiteralString(s)],
            ) => {
                info.member_names.insert((*id, *n), s.clone());
            }
            _ => {}
        }
    }
    for i in &m.annotations {
        match (i.class.opcode, i.operands.as_slice()) {
            (Op::Decorate, [Operand::IdRef(id), Operand::Decoration(d), rest @ ..]) => {
                let v = match rest.first() {
                    Some(Operand::LiteralBit32(x)) => Some(*x),
                    _ => None,
                };
                info.decos.entry(*id).or_default().push((*d, v));
            }
            (
                Op::MemberDecorate,
                [Operand::IdRef(id), Operand::LiteralBit32(n), Operand::Decoration(d), rest @ ..],
            ) => {
                let v = match rest.first() {
                    Some(Operand::LiteralBit32(x)) => Some(*x),
                    _ => None,
                };
                info.member_decos
                    .entry((*id, *n))
                    .or_default()
                    .push((*d, v));
            }
            _ => {}
        }
    }
    for i in &m.types_global_values {
        if i.class.opcode == Op::Constant {
            if let (Some(id), Some(Operand::LiteralBit32(v))) = (i.result_id, i.operands.first()) {
                info.consts.insert(id, *v);
            }
        }
    }
    let computes: Vec<(u32, String)> = m
        .entry_points
        .iter()
        .filter_map(|e| match e.operands.as_slice() {
            [Operand::ExecutionModel(spirv::ExecutionModel::GLCompute), Operand::IdRef(f), Operand::LiteralString(n), ..] => {
                Some((*f, n.clone()))
            }
            _ => None,
        })
        .collect();
    let entry = match (entry, computes.as_slice()) {
        (_, []) => bail!("the SPIR-V module has no GLCompute entry point"),
        (Some(e), cs) => cs
            .iter()
            .find(|(_, n)| n == e)
            .map(|(_, n)| n.clone())
            .with_context(|| {
                format!(
                    "the SPIR-V module has no compute entry point {e:?} (it has: {})",
                    cs.iter()
                        .map(|(_, n)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?,
        (None, [(_, n)]) => n.clone(),
        (None, cs) => bail!(
            "the SPIR-V module has {} compute entry points ({}): name one with --entry",
            cs.len(),
            cs.iter()
                .map(|(_, n)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };

    let mut bindings = Vec::new();
    let mut push = Vec::new();
    let mut push_bytes = 0;
    for v in &m.types_global_values {
        if v.class.opcode != Op::Variable {
            continue;
        }
        let Some(var) = v.result_id else { continue };
        let Some(Operand::StorageClass(sc)) = v.operands.first() else {
            continue;
        };
        let ptr = v.result_type.and_then(|t| info.ty(t));
        let pointee = ptr.and_then(|p| Info::id_op(p, 1)).unwrap_or(0);
        let pointee_ty = info.ty(pointee);
        // Arrays of descriptors: not described by a raw manifest yet.
        let st = match pointee_ty.map(|t| t.class.opcode) {
            Some(Op::TypeStruct) => pointee,
            Some(Op::TypeArray | Op::TypeRuntimeArray)
                if matches!(sc, StorageClass::StorageBuffer | StorageClass::Uniform) =>
            {
                bail!(
                    "binding {:?} is an array of descriptors, which rdna2spv capture does not describe yet",
                    info.names.get(&var).cloned().unwrap_or_default()
                )
            }
            _ => 0,
        };
        match sc {
            StorageClass::StorageBuffer | StorageClass::Uniform => {
                let set = info
                    .deco(var, Decoration::DescriptorSet)
                    .flatten()
                    .unwrap_or(0);
                let binding = info.deco(var, Decoration::Binding).flatten().unwrap_or(0);
                let members = pointee_ty.map(|t| t.operands.len() as u32).unwrap_or(0);
                let all_members = |d| (0..members).all(|k| info.member_deco(st, k, d).is_some());
                let readonly = info.deco(var, Decoration::NonWritable).is_some()
                    || members > 0 && all_members(Decoration::NonWritable)
                    || *sc == StorageClass::Uniform
                        && info.deco(st, Decoration::BufferBlock).is_none();
                let writeonly = info.deco(var, Decoration::NonReadable).is_some()
                    || members > 0 && all_members(Decoration::NonReadable);
                let var_name = info.names.get(&var).cloned().unwrap_or_default();
                let name = if !var_name.is_empty() {
                    var_name
                } else if members == 1 {
                    info.member_names.get(&(st, 0)).cloned().unwrap_or_default()
                } else {
                    info.names.get(&st).cloned().unwrap_or_default()
                };
                let name = if name.is_empty() {
                    format!("set{set}_binding{binding}")
                } else {
                    name
                };
                // The trailing runtime array (if any): its stride and element type.
                let (mut stride, mut elem, mut fixed) = (None, Scalar::Other, 0);
                if let Some(t) = pointee_ty {
                    for (k, op) in t.operands.iter().enumerate() {
                        let Operand::IdRef(mt) = op else { continue };
                        let off = info
                            .member_deco(st, k as u32, Decoration::Offset)
                            .flatten()
                            .unwrap_or(0);
                        match info.ty(*mt) {
                            Some(a) if a.class.opcode == Op::TypeRuntimeArray => {
                                stride = info.deco(*mt, Decoration::ArrayStride).flatten();
                                elem = info.scalar(Info::id_op(a, 0).unwrap_or(0)).0;
                                fixed = off;
                            }
                            _ => {
                                let (s, b) = info.scalar(*mt);
                                if members == 1 {
                                    elem = s;
                                }
                                fixed = fixed.max(off + b);
                            }
                        }
                    }
                }
                bindings.push(Binding {
                    set,
                    binding,
                    name,
                    readonly,
                    writeonly,
                    stride,
                    fixed_bytes: fixed,
                    elem,
                    uniform: *sc == StorageClass::Uniform
                        && info.deco(st, Decoration::BufferBlock).is_none(),
                    image: None,
                });
            }
            StorageClass::PushConstant => {
                if let Some(t) = pointee_ty {
                    for (k, op) in t.operands.iter().enumerate() {
                        let Operand::IdRef(mt) = op else { continue };
                        let offset = info
                            .member_deco(st, k as u32, Decoration::Offset)
                            .flatten()
                            .unwrap_or(0);
                        let (ty, bytes) = info.scalar(*mt);
                        let name = info
                            .member_names
                            .get(&(st, k as u32))
                            .cloned()
                            .unwrap_or_else(|| format!("pc{k}"));
                        push_bytes = push_bytes.max(offset + bytes);
                        push.push(PushMember {
                            name,
                            offset,
                            ty,
                            bytes,
                        });
                    }
                }
            }
            StorageClass::UniformConstant
                if pointee_ty.is_some_and(|t| {
                    t.class.opcode == Op::TypeImage || t.class.opcode == Op::TypeSampledImage
                }) =>
            {
                let t = pointee_ty.expect("checked");
                // A combined image sampler (OpTypeSampledImage of a sampled image, D187).
                let combined = t.class.opcode == Op::TypeSampledImage;
                let t = if combined {
                    Info::id_op(t, 0)
                        .and_then(|i| info.ty(i))
                        .context("OpTypeSampledImage without its image type")?
                } else {
                    t
                };
                let var_name = info.names.get(&var).cloned().unwrap_or_default();
                let set = info
                    .deco(var, Decoration::DescriptorSet)
                    .flatten()
                    .unwrap_or(0);
                let binding = info.deco(var, Decoration::Binding).flatten().unwrap_or(0);
                // OpTypeImage: sampled type, Dim, Depth, Arrayed, MS, Sampled, Image Format.
                let dim = t.operands.get(1);
                let arrayed = Info::lit(t, 3) == Some(1);
                let ms = Info::lit(t, 4) == Some(1);
                let sampled = Info::lit(t, 5);
                let format = match t.operands.get(6) {
                    Some(Operand::ImageFormat(f)) => Some(*f),
                    _ => None,
                };
                let dim = match (dim, arrayed, ms) {
                    (Some(Operand::Dim(spirv::Dim::Dim1D)), false, false) => Some("1d"),
                    (Some(Operand::Dim(spirv::Dim::Dim2D)), false, false) => Some("2d"),
                    (Some(Operand::Dim(spirv::Dim::Dim3D)), false, false) => Some("3d"),
                    (Some(Operand::Dim(spirv::Dim::Dim1D)), true, false) => Some("1d_array"),
                    (Some(Operand::Dim(spirv::Dim::Dim2D)), true, false) => Some("2d_array"),
                    // A cube (or cube array) storage image: six faces per cube as 2-D array slices, the
                    // way RADV and ACO address storage cubes (a 2D_ARRAY T# and dim).
                    (Some(Operand::Dim(spirv::Dim::DimCube)), _, false) => Some("2d_array"),
                    _ => None,
                };
                let shown = if var_name.is_empty() {
                    format!("%{var}")
                } else {
                    var_name.clone()
                };
                let cube = matches!(t.operands.get(1), Some(Operand::Dim(spirv::Dim::DimCube)));
                if combined {
                    // A sampled cube or cube array is a `cube` image: a CUBE T# over six 2-D slices per
                    // cube, as RADV builds it for a sampled cube view (D196).
                    let sdim = if cube { Some("cube") } else { dim };
                    let Some(sdim @ ("1d" | "2d" | "2d_array" | "3d" | "cube")) =
                        sdim.filter(|_| sampled == Some(1))
                    else {
                        bail!(
                            "the shader samples {shown:?}, a multisampled image: sampling is modelled for 1-D, 2-D, 3-D, cube and array images only (D187, D191, D196)"
                        );
                    };
                    let depth = Info::lit(t, 2) == Some(1);
                    let name = if var_name.is_empty() {
                        format!("set{set}_binding{binding}")
                    } else {
                        var_name
                    };
                    bindings.push(Binding {
                        set,
                        binding,
                        name,
                        readonly: true,
                        writeonly: false,
                        stride: None,
                        fixed_bytes: 0,
                        elem: Scalar::Other,
                        uniform: false,
                        // The format is not in the shader: rgba8_unorm (r32_float for a depth image,
                        // as RADV describes D32_SFLOAT) unless `--format` names one.
                        image: Some(StorageImage {
                            dim: sdim,
                            format: if depth { "r32_float" } else { "rgba8_unorm" },
                            cube,
                            sampled: true,
                            depth,
                        }),
                    });
                    continue;
                }
                let (Some(dim), Some(2)) = (dim, sampled) else {
                    bail!(
                        "the shader uses {shown:?}, a separate sampled image, texel buffer or multisampled image: only storage images (1D, 2D, 3D, cubes and arrays, D183) and combined 2-D image samplers (D187) are modelled yet"
                    );
                };
                let Some(format) = format.and_then(image_format_name) else {
                    bail!(
                        "storage image {shown:?} has format {format:?}: give it one of the formats D183 models (e.g. layout(rgba8), r32f, rgba16f, rgba32f)"
                    );
                };
                let readonly = info.deco(var, Decoration::NonWritable).is_some();
                let writeonly = info.deco(var, Decoration::NonReadable).is_some();
                let name = if var_name.is_empty() {
                    format!("set{set}_binding{binding}")
                } else {
                    var_name
                };
                bindings.push(Binding {
                    set,
                    binding,
                    name,
                    readonly,
                    writeonly,
                    stride: None,
                    fixed_bytes: 0,
                    elem: Scalar::Other,
                    uniform: false,
                    image: Some(StorageImage {
                        dim,
                        format,
                        cube,
                        sampled: false,
                        depth: false,
                    }),
                });
            }
            StorageClass::UniformConstant => {
                bail!(
                    "the shader uses {:?} (a sampled image, sampler or texel buffer): only storage images are modelled yet (D183, issue 27)",
                    info.names.get(&var).cloned().unwrap_or_else(|| format!("%{var}"))
                )
            }
            _ => {}
        }
    }
    bindings.sort_by_key(|b| (b.set, b.binding));
    Ok(Reflection {
        entry,
        bindings,
        push,
        push_bytes: push_bytes.div_ceil(4) * 4,
    })
}

/// The module without its OpExecutionModeId instructions (SPIR-V 1.2+, e.g. glslang's LocalSizeId for
/// Vulkan 1.3), which rspirv 0.13's loader refuses; reflection does not need them (the workgroup size is
/// read from RADV's NIR).
fn without_execution_mode_ids(words: &[u32]) -> Result<Vec<u32>> {
    const OP_EXECUTION_MODE_ID: u32 = 331;
    if words.len() < 5 {
        bail!("not a SPIR-V module (shorter than its header)");
    }
    let mut out = words[..5].to_vec();
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        if n == 0 || i + n > words.len() {
            bail!("not valid SPIR-V: an instruction at word {i} has length {n}");
        }
        if words[i] & 0xffff != OP_EXECUTION_MODE_ID {
            out.extend_from_slice(&words[i..i + n]);
        }
        i += n;
    }
    Ok(out)
}
