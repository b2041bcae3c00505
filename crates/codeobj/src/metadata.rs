//! The code object metadata: the msgpack map in the `NT_AMDGPU_METADATA` note (type 32, owner
//! `"AMDGPU"`), code object v3 and later. Keys follow LLVM's `AMDGPUUsage.rst` ("Code Object V3
//! to V6 Metadata"). Known keys become typed fields; every other key is kept, with its value,
//! in an `extra` map, so newer producers load without loss.

use crate::error::LoadError;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// A metadata value kept as it was (for keys this crate does not interpret).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MetaValue {
    Nil,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    String(String),
    Binary(Vec<u8>),
    Array(Vec<MetaValue>),
    Map(BTreeMap<String, MetaValue>),
}

impl MetaValue {
    fn from_rmpv(v: &rmpv::Value) -> MetaValue {
        use rmpv::Value as V;
        match v {
            V::Nil => MetaValue::Nil,
            V::Boolean(b) => MetaValue::Bool(*b),
            V::Integer(i) => match (i.as_u64(), i.as_i64()) {
                (Some(u), _) => MetaValue::UInt(u),
                (None, Some(s)) => MetaValue::Int(s),
                (None, None) => MetaValue::Nil,
            },
            V::F32(f) => MetaValue::Float(f64::from(*f)),
            V::F64(f) => MetaValue::Float(*f),
            V::String(s) => MetaValue::String(utf8_lossy(s)),
            V::Binary(b) => MetaValue::Binary(b.clone()),
            V::Array(a) => MetaValue::Array(a.iter().map(MetaValue::from_rmpv).collect()),
            V::Map(m) => MetaValue::Map(
                m.iter()
                    .map(|(k, v)| (key_string(k), MetaValue::from_rmpv(v)))
                    .collect(),
            ),
            V::Ext(_, data) => MetaValue::Binary(data.clone()),
        }
    }
}

impl fmt::Display for MetaValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetaValue::Nil => f.write_str("nil"),
            MetaValue::Bool(b) => write!(f, "{b}"),
            MetaValue::Int(i) => write!(f, "{i}"),
            MetaValue::UInt(u) => write!(f, "{u}"),
            MetaValue::Float(x) => write!(f, "{x}"),
            MetaValue::String(s) => f.write_str(s),
            MetaValue::Binary(b) => write!(f, "<{} bytes>", b.len()),
            MetaValue::Array(a) => {
                f.write_str("[")?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            MetaValue::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

fn utf8_lossy(s: &rmpv::Utf8String) -> String {
    match s.as_str() {
        Some(s) => s.to_string(),
        None => String::from_utf8_lossy(s.as_bytes()).into_owned(),
    }
}

fn key_string(k: &rmpv::Value) -> String {
    match k {
        rmpv::Value::String(s) => utf8_lossy(s),
        other => other.to_string(),
    }
}

/// `.value_kind` of a kernel argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    ByValue,
    GlobalBuffer,
    DynamicSharedPointer,
    Sampler,
    Image,
    Pipe,
    Queue,
    HiddenGlobalOffsetX,
    HiddenGlobalOffsetY,
    HiddenGlobalOffsetZ,
    HiddenNone,
    HiddenPrintfBuffer,
    HiddenHostcallBuffer,
    HiddenDefaultQueue,
    HiddenCompletionAction,
    HiddenMultigridSyncArg,
    HiddenBlockCountX,
    HiddenBlockCountY,
    HiddenBlockCountZ,
    HiddenGroupSizeX,
    HiddenGroupSizeY,
    HiddenGroupSizeZ,
    HiddenRemainderX,
    HiddenRemainderY,
    HiddenRemainderZ,
    HiddenGridDims,
    HiddenHeapV1,
    HiddenDynamicLdsSize,
    HiddenPrivateBase,
    HiddenSharedBase,
    HiddenQueuePtr,
    /// A kind this crate does not know, spelt as in the metadata.
    Other(String),
}

const VALUE_KINDS: &[(ValueKind, &str)] = &[
    (ValueKind::ByValue, "by_value"),
    (ValueKind::GlobalBuffer, "global_buffer"),
    (ValueKind::DynamicSharedPointer, "dynamic_shared_pointer"),
    (ValueKind::Sampler, "sampler"),
    (ValueKind::Image, "image"),
    (ValueKind::Pipe, "pipe"),
    (ValueKind::Queue, "queue"),
    (ValueKind::HiddenGlobalOffsetX, "hidden_global_offset_x"),
    (ValueKind::HiddenGlobalOffsetY, "hidden_global_offset_y"),
    (ValueKind::HiddenGlobalOffsetZ, "hidden_global_offset_z"),
    (ValueKind::HiddenNone, "hidden_none"),
    (ValueKind::HiddenPrintfBuffer, "hidden_printf_buffer"),
    (ValueKind::HiddenHostcallBuffer, "hidden_hostcall_buffer"),
    (ValueKind::HiddenDefaultQueue, "hidden_default_queue"),
    (
        ValueKind::HiddenCompletionAction,
        "hidden_completion_action",
    ),
    (
        ValueKind::HiddenMultigridSyncArg,
        "hidden_multigrid_sync_arg",
    ),
    (ValueKind::HiddenBlockCountX, "hidden_block_count_x"),
    (ValueKind::HiddenBlockCountY, "hidden_block_count_y"),
    (ValueKind::HiddenBlockCountZ, "hidden_block_count_z"),
    (ValueKind::HiddenGroupSizeX, "hidden_group_size_x"),
    (ValueKind::HiddenGroupSizeY, "hidden_group_size_y"),
    (ValueKind::HiddenGroupSizeZ, "hidden_group_size_z"),
    (ValueKind::HiddenRemainderX, "hidden_remainder_x"),
    (ValueKind::HiddenRemainderY, "hidden_remainder_y"),
    (ValueKind::HiddenRemainderZ, "hidden_remainder_z"),
    (ValueKind::HiddenGridDims, "hidden_grid_dims"),
    (ValueKind::HiddenHeapV1, "hidden_heap_v1"),
    (ValueKind::HiddenDynamicLdsSize, "hidden_dynamic_lds_size"),
    (ValueKind::HiddenPrivateBase, "hidden_private_base"),
    (ValueKind::HiddenSharedBase, "hidden_shared_base"),
    (ValueKind::HiddenQueuePtr, "hidden_queue_ptr"),
];

impl ValueKind {
    /// Parses the metadata spelling; unknown spellings become [`ValueKind::Other`].
    pub fn parse(s: &str) -> ValueKind {
        VALUE_KINDS
            .iter()
            .find(|(_, name)| *name == s)
            .map(|(k, _)| k.clone())
            .unwrap_or_else(|| ValueKind::Other(s.to_string()))
    }

    /// The metadata spelling.
    pub fn as_str(&self) -> &str {
        match self {
            ValueKind::Other(s) => s,
            k => VALUE_KINDS
                .iter()
                .find(|(v, _)| v == k)
                .map(|(_, n)| *n)
                .unwrap_or(""),
        }
    }

    /// Hidden (implicit) arguments are filled by the runtime, not given by the caller.
    pub fn is_hidden(&self) -> bool {
        self.as_str().starts_with("hidden_")
    }
}

impl fmt::Display for ValueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ValueKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// `.address_space` of a pointer argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AddressSpace {
    Private,
    Global,
    Constant,
    Local,
    Generic,
    Region,
    Other(String),
}

impl AddressSpace {
    pub fn parse(s: &str) -> AddressSpace {
        match s {
            "private" => AddressSpace::Private,
            "global" => AddressSpace::Global,
            "constant" => AddressSpace::Constant,
            "local" => AddressSpace::Local,
            "generic" => AddressSpace::Generic,
            "region" => AddressSpace::Region,
            other => AddressSpace::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            AddressSpace::Private => "private",
            AddressSpace::Global => "global",
            AddressSpace::Constant => "constant",
            AddressSpace::Local => "local",
            AddressSpace::Generic => "generic",
            AddressSpace::Region => "region",
            AddressSpace::Other(s) => s,
        }
    }
}

impl fmt::Display for AddressSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for AddressSpace {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One entry of a kernel's `.args`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelArg {
    /// `.name` (absent in hipcc's metadata).
    pub name: Option<String>,
    /// `.type_name`, e.g. `float*`.
    pub type_name: Option<String>,
    /// `.offset` in the kernarg segment (required).
    pub offset: u64,
    /// `.size` in bytes (required).
    pub size: u64,
    /// `.value_kind` (required).
    pub value_kind: ValueKind,
    /// `.value_type` (deprecated in v5, still written by some producers).
    pub value_type: Option<String>,
    pub pointee_align: Option<u64>,
    pub address_space: Option<AddressSpace>,
    /// `.access`: `read_only`, `write_only`, `read_write`.
    pub access: Option<String>,
    pub actual_access: Option<String>,
    pub is_const: bool,
    pub is_restrict: bool,
    pub is_volatile: bool,
    pub is_pipe: bool,
    /// Keys not listed above.
    pub extra: BTreeMap<String, MetaValue>,
}

impl KernelArg {
    pub fn is_hidden(&self) -> bool {
        self.value_kind.is_hidden()
    }
}

/// One entry of `amdhsa.kernels`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelMetadata {
    /// `.name`: the source-level name.
    pub name: String,
    /// `.symbol`: the kernel descriptor's symbol (`<name>.kd`).
    pub symbol: String,
    pub language: Option<String>,
    pub language_version: Option<Vec<u64>>,
    pub args: Vec<KernelArg>,
    pub reqd_workgroup_size: Option<Vec<u64>>,
    pub workgroup_size_hint: Option<Vec<u64>>,
    pub vec_type_hint: Option<String>,
    pub device_enqueue_symbol: Option<String>,
    pub kernarg_segment_size: Option<u64>,
    pub kernarg_segment_align: Option<u64>,
    pub group_segment_fixed_size: Option<u64>,
    pub private_segment_fixed_size: Option<u64>,
    pub uses_dynamic_stack: Option<bool>,
    pub wavefront_size: Option<u64>,
    pub sgpr_count: Option<u64>,
    pub vgpr_count: Option<u64>,
    pub agpr_count: Option<u64>,
    pub max_flat_workgroup_size: Option<u64>,
    pub sgpr_spill_count: Option<u64>,
    pub vgpr_spill_count: Option<u64>,
    pub kind: Option<String>,
    pub workgroup_processor_mode: Option<bool>,
    pub uniform_work_group_size: Option<bool>,
    /// Keys not listed above.
    pub extra: BTreeMap<String, MetaValue>,
}

impl KernelMetadata {
    /// The arguments a caller passes (not `hidden_*`), in kernarg order.
    pub fn explicit_args(&self) -> impl Iterator<Item = &KernelArg> {
        self.args.iter().filter(|a| !a.is_hidden())
    }

    /// The arguments the runtime fills.
    pub fn hidden_args(&self) -> impl Iterator<Item = &KernelArg> {
        self.args.iter().filter(|a| a.is_hidden())
    }

    /// The first argument of the given kind.
    pub fn arg_of_kind(&self, kind: &ValueKind) -> Option<&KernelArg> {
        self.args.iter().find(|a| &a.value_kind == kind)
    }
}

/// The whole metadata map.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metadata {
    /// `amdhsa.version`, e.g. `[1, 2]` for code object v5.
    pub version: Option<Vec<u64>>,
    /// `amdhsa.target`, e.g. `amdgcn-amd-amdhsa--gfx1030`.
    pub target: Option<String>,
    /// `amdhsa.printf` format strings, if any.
    pub printf: Option<Vec<String>>,
    pub kernels: Vec<KernelMetadata>,
    /// Top-level keys not listed above.
    pub extra: BTreeMap<String, MetaValue>,
}

impl Metadata {
    /// Decodes the msgpack bytes of an `NT_AMDGPU_METADATA` note's descriptor.
    pub fn from_msgpack(bytes: &[u8]) -> Result<Metadata, LoadError> {
        let mut rd = bytes;
        let root = rmpv::decode::read_value(&mut rd)
            .map_err(|e| LoadError::metadata(format!("msgpack: {e}")))?;
        Metadata::from_value(&root)
    }

    fn from_value(root: &rmpv::Value) -> Result<Metadata, LoadError> {
        let map = as_map(root, "the metadata root")?;
        let mut md = Metadata {
            version: None,
            target: None,
            printf: None,
            kernels: Vec::new(),
            extra: BTreeMap::new(),
        };
        for (k, v) in map {
            let key = key_string(k);
            match key.as_str() {
                "amdhsa.version" => md.version = Some(uint_list(v, &key)?),
                "amdhsa.target" => md.target = Some(string(v, &key)?),
                "amdhsa.printf" => md.printf = Some(string_list(v, &key)?),
                "amdhsa.kernels" => {
                    let list = v
                        .as_array()
                        .ok_or_else(|| LoadError::metadata("amdhsa.kernels is not an array"))?;
                    for (i, kv) in list.iter().enumerate() {
                        md.kernels.push(kernel(kv, i)?);
                    }
                }
                _ => {
                    md.extra.insert(key, MetaValue::from_rmpv(v));
                }
            }
        }
        Ok(md)
    }

    /// The kernel whose `.symbol` or `.name` is `name` (with or without `.kd`).
    pub fn kernel(&self, name: &str) -> Option<&KernelMetadata> {
        let kd = format!("{name}.kd");
        self.kernels
            .iter()
            .find(|k| k.symbol == name || k.symbol == kd)
            .or_else(|| self.kernels.iter().find(|k| k.name == name))
    }
}

fn as_map<'a>(
    v: &'a rmpv::Value,
    what: &str,
) -> Result<&'a [(rmpv::Value, rmpv::Value)], LoadError> {
    match v {
        rmpv::Value::Map(m) => Ok(m.as_slice()),
        _ => Err(LoadError::metadata(format!("{what} is not a map"))),
    }
}

fn string(v: &rmpv::Value, key: &str) -> Result<String, LoadError> {
    match v {
        rmpv::Value::String(s) => Ok(utf8_lossy(s)),
        _ => Err(LoadError::metadata(format!("{key} is not a string: {v}"))),
    }
}

fn uint(v: &rmpv::Value, key: &str) -> Result<u64, LoadError> {
    v.as_u64()
        .ok_or_else(|| LoadError::metadata(format!("{key} is not an unsigned integer: {v}")))
}

fn boolean(v: &rmpv::Value, key: &str) -> Result<bool, LoadError> {
    match v {
        rmpv::Value::Boolean(b) => Ok(*b),
        rmpv::Value::Integer(i) if i.as_u64() == Some(0) => Ok(false),
        rmpv::Value::Integer(i) if i.as_u64() == Some(1) => Ok(true),
        _ => Err(LoadError::metadata(format!("{key} is not a boolean: {v}"))),
    }
}

fn uint_list(v: &rmpv::Value, key: &str) -> Result<Vec<u64>, LoadError> {
    v.as_array()
        .ok_or_else(|| LoadError::metadata(format!("{key} is not an array")))?
        .iter()
        .map(|x| uint(x, key))
        .collect()
}

fn string_list(v: &rmpv::Value, key: &str) -> Result<Vec<String>, LoadError> {
    v.as_array()
        .ok_or_else(|| LoadError::metadata(format!("{key} is not an array")))?
        .iter()
        .map(|x| string(x, key))
        .collect()
}

fn kernel(v: &rmpv::Value, index: usize) -> Result<KernelMetadata, LoadError> {
    let map = as_map(v, &format!("amdhsa.kernels[{index}]"))?;
    let mut name = None;
    let mut symbol = None;
    let mut km = KernelMetadata {
        name: String::new(),
        symbol: String::new(),
        language: None,
        language_version: None,
        args: Vec::new(),
        reqd_workgroup_size: None,
        workgroup_size_hint: None,
        vec_type_hint: None,
        device_enqueue_symbol: None,
        kernarg_segment_size: None,
        kernarg_segment_align: None,
        group_segment_fixed_size: None,
        private_segment_fixed_size: None,
        uses_dynamic_stack: None,
        wavefront_size: None,
        sgpr_count: None,
        vgpr_count: None,
        agpr_count: None,
        max_flat_workgroup_size: None,
        sgpr_spill_count: None,
        vgpr_spill_count: None,
        kind: None,
        workgroup_processor_mode: None,
        uniform_work_group_size: None,
        extra: BTreeMap::new(),
    };
    let mut args = None;
    for (k, v) in map {
        let key = key_string(k);
        let ctx = || format!("amdhsa.kernels[{index}].{}", key.trim_start_matches('.'));
        match key.as_str() {
            ".name" => name = Some(string(v, &ctx())?),
            ".symbol" => symbol = Some(string(v, &ctx())?),
            ".language" => km.language = Some(string(v, &ctx())?),
            ".language_version" => km.language_version = Some(uint_list(v, &ctx())?),
            ".args" => args = Some(v),
            ".reqd_workgroup_size" => km.reqd_workgroup_size = Some(uint_list(v, &ctx())?),
            ".workgroup_size_hint" => km.workgroup_size_hint = Some(uint_list(v, &ctx())?),
            ".vec_type_hint" => km.vec_type_hint = Some(string(v, &ctx())?),
            ".device_enqueue_symbol" => km.device_enqueue_symbol = Some(string(v, &ctx())?),
            ".kernarg_segment_size" => km.kernarg_segment_size = Some(uint(v, &ctx())?),
            ".kernarg_segment_align" => km.kernarg_segment_align = Some(uint(v, &ctx())?),
            ".group_segment_fixed_size" => km.group_segment_fixed_size = Some(uint(v, &ctx())?),
            ".private_segment_fixed_size" => km.private_segment_fixed_size = Some(uint(v, &ctx())?),
            ".uses_dynamic_stack" => km.uses_dynamic_stack = Some(boolean(v, &ctx())?),
            ".wavefront_size" => km.wavefront_size = Some(uint(v, &ctx())?),
            ".sgpr_count" => km.sgpr_count = Some(uint(v, &ctx())?),
            ".vgpr_count" => km.vgpr_count = Some(uint(v, &ctx())?),
            ".agpr_count" => km.agpr_count = Some(uint(v, &ctx())?),
            ".max_flat_workgroup_size" => km.max_flat_workgroup_size = Some(uint(v, &ctx())?),
            ".sgpr_spill_count" => km.sgpr_spill_count = Some(uint(v, &ctx())?),
            ".vgpr_spill_count" => km.vgpr_spill_count = Some(uint(v, &ctx())?),
            ".kind" => km.kind = Some(string(v, &ctx())?),
            ".workgroup_processor_mode" => km.workgroup_processor_mode = Some(boolean(v, &ctx())?),
            ".uniform_work_group_size" => km.uniform_work_group_size = Some(boolean(v, &ctx())?),
            _ => {
                km.extra.insert(key, MetaValue::from_rmpv(v));
            }
        }
    }
    km.name =
        name.ok_or_else(|| LoadError::metadata(format!("amdhsa.kernels[{index}] has no .name")))?;
    km.symbol = symbol
        .ok_or_else(|| LoadError::metadata(format!("kernel {:?} has no .symbol", km.name)))?;
    if let Some(args) = args {
        let list = args.as_array().ok_or_else(|| {
            LoadError::metadata(format!("kernel {:?}: .args is not an array", km.name))
        })?;
        for (i, a) in list.iter().enumerate() {
            km.args.push(arg(a, &km.name, i)?);
        }
    }
    Ok(km)
}

fn arg(v: &rmpv::Value, kernel: &str, index: usize) -> Result<KernelArg, LoadError> {
    let here = format!("kernel {kernel:?} argument {index}");
    let map = as_map(v, &here)?;
    let mut offset = None;
    let mut size = None;
    let mut value_kind = None;
    let mut a = KernelArg {
        name: None,
        type_name: None,
        offset: 0,
        size: 0,
        value_kind: ValueKind::HiddenNone,
        value_type: None,
        pointee_align: None,
        address_space: None,
        access: None,
        actual_access: None,
        is_const: false,
        is_restrict: false,
        is_volatile: false,
        is_pipe: false,
        extra: BTreeMap::new(),
    };
    for (k, v) in map {
        let key = key_string(k);
        let ctx = || format!("{here}: {key}");
        match key.as_str() {
            ".name" => a.name = Some(string(v, &ctx())?),
            ".type_name" => a.type_name = Some(string(v, &ctx())?),
            ".offset" => offset = Some(uint(v, &ctx())?),
            ".size" => size = Some(uint(v, &ctx())?),
            ".value_kind" => value_kind = Some(ValueKind::parse(&string(v, &ctx())?)),
            ".value_type" => a.value_type = Some(string(v, &ctx())?),
            ".pointee_align" => a.pointee_align = Some(uint(v, &ctx())?),
            ".address_space" => a.address_space = Some(AddressSpace::parse(&string(v, &ctx())?)),
            ".access" => a.access = Some(string(v, &ctx())?),
            ".actual_access" => a.actual_access = Some(string(v, &ctx())?),
            ".is_const" => a.is_const = boolean(v, &ctx())?,
            ".is_restrict" => a.is_restrict = boolean(v, &ctx())?,
            ".is_volatile" => a.is_volatile = boolean(v, &ctx())?,
            ".is_pipe" => a.is_pipe = boolean(v, &ctx())?,
            _ => {
                a.extra.insert(key, MetaValue::from_rmpv(v));
            }
        }
    }
    a.offset = offset.ok_or_else(|| LoadError::metadata(format!("{here} has no .offset")))?;
    a.size = size.ok_or_else(|| LoadError::metadata(format!("{here} has no .size")))?;
    a.value_kind =
        value_kind.ok_or_else(|| LoadError::metadata(format!("{here} has no .value_kind")))?;
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmpv::Value;

    fn s(x: &str) -> Value {
        Value::from(x)
    }

    fn sample() -> Value {
        let arg = Value::Map(vec![
            (s(".offset"), Value::from(0u64)),
            (s(".size"), Value::from(8u64)),
            (s(".value_kind"), s("global_buffer")),
            (s(".address_space"), s("global")),
            (s(".is_const"), Value::from(true)),
            (s(".new_arg_key"), Value::from(7u64)),
        ]);
        let hidden = Value::Map(vec![
            (s(".offset"), Value::from(8u64)),
            (s(".size"), Value::from(4u64)),
            (s(".value_kind"), s("hidden_block_count_x")),
        ]);
        let kernel = Value::Map(vec![
            (s(".name"), s("k")),
            (s(".symbol"), s("k.kd")),
            (s(".args"), Value::Array(vec![arg, hidden])),
            (s(".kernarg_segment_size"), Value::from(16u64)),
            (s(".workgroup_processor_mode"), Value::from(1u64)),
            (
                s(".future_key"),
                Value::Array(vec![Value::from(1u64), s("x")]),
            ),
        ]);
        Value::Map(vec![
            (
                s("amdhsa.version"),
                Value::Array(vec![Value::from(1u64), Value::from(2u64)]),
            ),
            (s("amdhsa.target"), s("amdgcn-amd-amdhsa--gfx1030")),
            (s("amdhsa.kernels"), Value::Array(vec![kernel])),
            (s("amdhsa.other"), Value::from(false)),
        ])
    }

    fn encode(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        rmpv::encode::write_value(&mut out, v).unwrap();
        out
    }

    #[test]
    fn decodes_known_and_keeps_unknown_keys() {
        let md = Metadata::from_msgpack(&encode(&sample())).unwrap();
        assert_eq!(md.version, Some(vec![1, 2]));
        assert_eq!(md.target.as_deref(), Some("amdgcn-amd-amdhsa--gfx1030"));
        assert_eq!(md.extra.get("amdhsa.other"), Some(&MetaValue::Bool(false)));
        let k = md.kernel("k").unwrap();
        assert_eq!(k.kernarg_segment_size, Some(16));
        assert_eq!(k.workgroup_processor_mode, Some(true));
        assert_eq!(k.extra.get(".future_key").unwrap().to_string(), "[1, x]");
        assert_eq!(k.args.len(), 2);
        assert_eq!(k.args[0].address_space, Some(AddressSpace::Global));
        assert!(k.args[0].is_const);
        assert_eq!(
            k.args[0].extra.get(".new_arg_key"),
            Some(&MetaValue::UInt(7))
        );
        assert_eq!(k.explicit_args().count(), 1);
        assert_eq!(
            k.hidden_args().next().unwrap().value_kind,
            ValueKind::HiddenBlockCountX
        );
        assert!(ValueKind::parse("hidden_new_thing").is_hidden());
        assert_eq!(
            ValueKind::parse("hidden_new_thing").as_str(),
            "hidden_new_thing"
        );
        assert!(md.kernel("k.kd").is_some());
        assert!(md.kernel("nope").is_none());
    }

    #[test]
    fn every_known_value_kind_round_trips() {
        for (k, name) in VALUE_KINDS {
            assert_eq!(&ValueKind::parse(name), k);
            assert_eq!(k.as_str(), *name);
            assert_eq!(k.is_hidden(), name.starts_with("hidden_"));
        }
    }

    #[test]
    fn missing_required_keys_are_errors() {
        let no_offset = Value::Map(vec![(
            s("amdhsa.kernels"),
            Value::Array(vec![Value::Map(vec![
                (s(".name"), s("k")),
                (s(".symbol"), s("k.kd")),
                (
                    s(".args"),
                    Value::Array(vec![Value::Map(vec![
                        (s(".size"), Value::from(4u64)),
                        (s(".value_kind"), s("by_value")),
                    ])]),
                ),
            ])]),
        )]);
        let e = Metadata::from_msgpack(&encode(&no_offset)).unwrap_err();
        assert!(matches!(e, LoadError::BadMetadata { .. }), "{e}");
        assert!(Metadata::from_msgpack(&[0xc1]).is_err());
        assert!(Metadata::from_msgpack(&[]).is_err());
        assert!(Metadata::from_msgpack(&encode(&Value::from(3u64))).is_err());
    }
}
