//! HSA code objects for AMD gfx10.x (RDNA 1/2): kernels, kernel descriptors and the msgpack
//! metadata, from code object v3–v6 ELF files (clang-19 writes v5, hipcc 5.2 v4) and from clang
//! offload bundles.
//!
//! ```no_run
//! let bytes = std::fs::read("fixtures/kernels/saxpy.co").unwrap();
//! let co = rdna2spv_codeobj::CodeObject::parse_any(&bytes).unwrap();
//! let k = co.kernel("saxpy").unwrap();
//! println!("wave{} at {:#x}: {} bytes", k.descriptor.wave_size(), k.code_address, k.code.len());
//! ```
//!
//! Nothing here panics on any input: every offset is checked and every failure is a
//! [`LoadError`]. All public types are `Debug + Clone + serde::Serialize`.

pub mod bundle;
mod describe;
pub mod descriptor;
mod elf;
pub mod error;
pub mod image;
pub mod metadata;
pub mod target;

pub use bundle::BundleEntry;
pub use describe::describe;
pub use descriptor::{
    Abi, KernelCodeProperties, KernelDescriptor, Rsrc1, Rsrc2, Rsrc3, SgprKind, SgprSlot, VgprKind,
    VgprSlot, KERNEL_DESCRIPTOR_SIZE,
};
pub use error::LoadError;
pub use image::{Global, Image, LoadSegment, Relocation};
pub use metadata::{AddressSpace, KernelArg, KernelMetadata, MetaValue, Metadata, ValueKind};
pub use target::{FeatureSetting, Gpu, Target};

use goblin::elf::section_header::{SHF_ALLOC, SHF_EXECINSTR};
use serde::Serialize;

/// One ELF section header, with its name resolved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SectionInfo {
    pub index: usize,
    pub name: String,
    /// `sh_type`.
    pub kind: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_addr`: virtual address.
    pub address: u64,
    /// `sh_offset`: file offset.
    pub offset: u64,
    pub size: u64,
    pub link: u32,
    pub entsize: u64,
}

impl SectionInfo {
    pub fn is_alloc(&self) -> bool {
        self.flags & u64::from(SHF_ALLOC) != 0
    }

    pub fn is_executable(&self) -> bool {
        self.flags & u64::from(SHF_EXECINSTR) != 0
    }

    /// Whether `[addr, addr + size)` lies inside the section's address range.
    pub fn contains_range(&self, addr: u64, size: u64) -> bool {
        match (self.address.checked_add(self.size), addr.checked_add(size)) {
            (Some(end), Some(e)) => addr >= self.address && e <= end,
            _ => false,
        }
    }

    /// The section's bytes within the file it was parsed from (`None` if out of range or NOBITS).
    pub fn data<'a>(&self, file: &'a [u8]) -> Option<&'a [u8]> {
        if self.kind == goblin::elf::section_header::SHT_NOBITS {
            return None;
        }
        elf::file_slice(file, self.offset, self.size, "section").ok()
    }
}

/// `STT_*` of a symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    NoType,
    Object,
    Func,
    Section,
    File,
    Other(u8),
}

impl SymbolKind {
    fn from_st_type(t: u8) -> SymbolKind {
        match t {
            0 => SymbolKind::NoType,
            1 => SymbolKind::Object,
            2 => SymbolKind::Func,
            3 => SymbolKind::Section,
            4 => SymbolKind::File,
            o => SymbolKind::Other(o),
        }
    }
}

/// `STB_*` of a symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolBinding {
    Local,
    Global,
    Weak,
    Other(u8),
}

impl SymbolBinding {
    fn from_st_bind(b: u8) -> SymbolBinding {
        match b {
            0 => SymbolBinding::Local,
            1 => SymbolBinding::Global,
            2 => SymbolBinding::Weak,
            o => SymbolBinding::Other(o),
        }
    }
}

/// A named symbol from `.symtab` or `.dynsym` (deduplicated by name and value).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Symbol {
    pub name: String,
    /// Virtual address.
    pub value: u64,
    pub size: u64,
    pub kind: SymbolKind,
    pub binding: SymbolBinding,
    /// Section index (`None` for undefined, absolute and other special indices).
    pub section: Option<usize>,
}

/// How the end of a kernel's code was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeExtent {
    /// The function symbol's `st_size`.
    Symbol,
    /// The next symbol (or kernel entry) in the same section.
    NextSymbol,
    /// The end of the section (or segment) holding the code.
    SectionEnd,
}

/// One kernel: descriptor, code and (when present) metadata.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Kernel {
    /// The kernel's symbol name (the descriptor symbol without `.kd`; mangled for C++ kernels).
    pub name: String,
    /// The descriptor's symbol, `<name>.kd`.
    pub descriptor_symbol: String,
    /// Virtual address of the 64-byte descriptor (section-relative in an unlinked ET_REL object).
    pub descriptor_address: u64,
    /// File offset of the descriptor.
    pub descriptor_offset: u64,
    pub descriptor: KernelDescriptor,
    /// Initial register state implied by the descriptor.
    pub abi: Abi,
    /// Virtual address of the first instruction (descriptor address + entry byte offset), as
    /// llvm-objdump prints it. In an unlinked ET_REL object the entry offset is a pending
    /// relocation, so this is the kernel function symbol's section-relative value instead.
    pub code_address: u64,
    /// File offset of the first instruction.
    pub code_offset: u64,
    /// The function symbol at the entry point, if any.
    pub code_symbol: Option<String>,
    pub code_extent: CodeExtent,
    /// Number of code bytes.
    pub code_size: u64,
    /// The machine code (not serialised; see `code_offset`/`code_size`).
    #[serde(skip)]
    pub code: Vec<u8>,
    /// The kernel's entry in `amdhsa.kernels`, matched by `.symbol`.
    pub metadata: Option<KernelMetadata>,
}

impl Kernel {
    /// The source-level name: metadata `.name` when present, else the symbol name.
    pub fn display_name(&self) -> &str {
        self.metadata
            .as_ref()
            .map(|m| m.name.as_str())
            .unwrap_or(&self.name)
    }

    /// The code as little-endian 32-bit words (a trailing partial word is dropped).
    pub fn code_words(&self) -> Vec<u32> {
        self.code
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }
}

/// A loaded HSA code object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CodeObject {
    pub target: Target,
    /// 3, 4, 5 or 6.
    pub code_object_version: u32,
    /// `EI_ABIVERSION` (1 = v3, 2 = v4, 3 = v5, 4 = v6).
    pub abi_version: u8,
    /// `e_type` (3 = ET_DYN for linked code objects, 1 = ET_REL for unlinked objects).
    pub elf_type: u16,
    /// Kernels, ordered by code address.
    pub kernels: Vec<Kernel>,
    /// The decoded NT_AMDGPU_METADATA note, if the object has one.
    pub metadata: Option<Metadata>,
    pub sections: Vec<SectionInfo>,
    pub symbols: Vec<Symbol>,
    /// Where the object came from when it was taken out of an offload bundle.
    pub bundle_triple: Option<String>,
    /// The functions a kernel may call: every sized function symbol in an executable section of a
    /// linked object (ET_DYN) that is not a kernel entry, with its code (calls are inlined, D099).
    #[serde(skip)]
    pub functions: Vec<Function>,
    /// The loaded image (segments, relocations, globals; D155), or why the object has none (an
    /// unlinked object, or a malformed segment or relocation table: the kernels still disassemble).
    #[serde(skip)]
    pub image: Result<Image, LoadError>,
}

/// A non-kernel function of a linked code object (a callee of `s_swappc_b64`/`s_call_b64`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// Virtual address of the first instruction.
    pub address: u64,
    pub code: Vec<u8>,
}

/// The callable functions of a linked object (empty for an unlinked one: its calls are pending
/// relocations).
fn find_functions(bytes: &[u8], elf: &elf::Elf, kernels: &[Kernel]) -> Vec<Function> {
    if elf.header.e_type != goblin::elf::header::ET_DYN {
        return Vec::new();
    }
    let entries: std::collections::HashSet<u64> = kernels.iter().map(|k| k.code_address).collect();
    let mut out: Vec<Function> = elf
        .symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Func && s.size > 0)
        .filter(|s| !entries.contains(&s.value))
        .filter_map(|s| {
            let sec = elf.sections.get(s.section?)?;
            if !sec.is_executable() || !sec.contains_range(s.value, s.size) {
                return None;
            }
            let (off, _) = elf.map_address(s.value, s.size, s.section)?;
            let code = elf::file_slice(bytes, off, s.size, "function code").ok()?;
            Some(Function {
                name: s.name.clone(),
                address: s.value,
                code: code.to_vec(),
            })
        })
        .collect();
    out.sort_by_key(|f| f.address);
    out.dedup_by_key(|f| f.address);
    out
}

fn code_object_version(abi_version: u8) -> Option<u32> {
    match abi_version {
        1 => Some(3),
        2 => Some(4),
        3 => Some(5),
        4 => Some(6),
        _ => None,
    }
}

impl CodeObject {
    /// Parses an HSA code object (ELF64, EM_AMDGPU, ELFOSABI_AMDGPU_HSA, code object v3–v6).
    pub fn parse(bytes: &[u8]) -> Result<CodeObject, LoadError> {
        elf::check_ident(bytes)?;
        // e_machine and the OS/ABI come first so that a wrong file gets the clearest error.
        let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
        if machine != elf::EM_AMDGPU {
            return Err(LoadError::NotAmdgpu { machine });
        }
        if bytes[7] != elf::ELFOSABI_AMDGPU_HSA {
            return Err(LoadError::NotHsa { os_abi: bytes[7] });
        }
        let abi_version = bytes[8];
        let version = code_object_version(abi_version)
            .ok_or(LoadError::UnsupportedCodeObjectVersion { abi_version })?;

        let elf = elf::parse(bytes)?;
        let target = Target::from_e_flags(elf.header.e_flags, version);

        let metadata = match elf.notes(bytes, "AMDGPU", elf::NT_AMDGPU_METADATA).first() {
            Some(desc) => Some(Metadata::from_msgpack(desc)?),
            None => None,
        };

        let kernels = find_kernels(bytes, &elf, metadata.as_ref())?;
        let functions = find_functions(bytes, &elf, &kernels);
        let image = image::load(bytes, &elf);
        Ok(CodeObject {
            target,
            code_object_version: version,
            abi_version,
            elf_type: elf.header.e_type,
            kernels,
            metadata,
            sections: elf.sections,
            symbols: elf.symbols,
            bundle_triple: None,
            functions,
            image,
        })
    }

    /// Parses a code object, a clang offload bundle (choosing the gfx1030 entry, else the first
    /// amdgcn entry), or a host ELF object/library with a `.hip_fatbin` section.
    pub fn parse_any(bytes: &[u8]) -> Result<CodeObject, LoadError> {
        match bundle_entries(bytes)? {
            None => Self::parse(bytes),
            Some(entries) => Self::from_entries(&entries),
        }
    }

    /// Every amdgcn code object in `bytes`: the object itself for an AMDGPU ELF, each non-empty
    /// amdgcn entry of a bundle, or of every bundle in a host object's or library's
    /// `.hip_fatbin` section (e.g. rocSPARSE's 111 gfx1030 objects and the other GPUs'), in file
    /// order. The first entry that fails to load fails the whole call.
    pub fn parse_all(bytes: &[u8]) -> Result<Vec<CodeObject>, LoadError> {
        let Some(entries) = bundle_entries(bytes)? else {
            return Ok(vec![Self::parse(bytes)?]);
        };
        let amd: Vec<&BundleEntry<'_>> = entries
            .iter()
            .filter(|e| e.is_amdgcn() && !e.data.is_empty())
            .collect();
        if amd.is_empty() {
            return Err(LoadError::NoAmdgpuCodeObject {
                triples: entries.iter().map(|e| e.triple.clone()).collect(),
            });
        }
        amd.into_iter()
            .map(|e| {
                let mut co = Self::parse(e.data)?;
                co.bundle_triple = Some(e.triple.clone());
                Ok(co)
            })
            .collect()
    }

    fn from_entries(entries: &[BundleEntry<'_>]) -> Result<CodeObject, LoadError> {
        let entry = bundle::pick_amdgcn(entries)?;
        let mut co = Self::parse(entry.data)?;
        co.bundle_triple = Some(entry.triple.clone());
        Ok(co)
    }

    /// Looks a kernel up by symbol name, descriptor symbol (`name.kd`) or metadata `.name`.
    pub fn kernel(&self, name: &str) -> Result<&Kernel, LoadError> {
        self.kernels
            .iter()
            .find(|k| k.name == name || k.descriptor_symbol == name)
            .or_else(|| {
                self.kernels
                    .iter()
                    .find(|k| k.metadata.as_ref().is_some_and(|m| m.name == name))
            })
            .ok_or_else(|| LoadError::KernelNotFound {
                name: name.to_string(),
                available: self.kernel_names(),
            })
    }

    /// The kernels' symbol names, in code order.
    pub fn kernel_names(&self) -> Vec<String> {
        self.kernels.iter().map(|k| k.name.clone()).collect()
    }

    /// The section named `name`.
    pub fn section(&self, name: &str) -> Option<&SectionInfo> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The symbol (function or otherwise) whose address is `addr`, preferring functions.
    pub fn symbol_at(&self, addr: u64) -> Option<&Symbol> {
        let at = || self.symbols.iter().filter(|s| s.value == addr);
        at().find(|s| s.kind == SymbolKind::Func)
            .or_else(|| at().next())
    }
}

/// The entries of the offload bundle(s) in `bytes` — a bundle file, or a host ELF whose
/// `.hip_fatbin` section holds bundles — or `None` for an AMDGPU ELF, which is parsed as it is.
fn bundle_entries(bytes: &[u8]) -> Result<Option<Vec<BundleEntry<'_>>>, LoadError> {
    if bundle::is_bundle(bytes) || bytes.starts_with(bundle::COMPRESSED_BUNDLE_MAGIC) {
        return bundle::extract(bytes).map(Some);
    }
    elf::check_ident(bytes)?;
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    if machine == elf::EM_AMDGPU {
        return Ok(None);
    }
    let host = elf::parse(bytes)?;
    let Some(fatbin) = host.sections.iter().find(|s| s.name == ".hip_fatbin") else {
        return Err(LoadError::NotAmdgpu { machine });
    };
    let data = elf::file_slice(bytes, fatbin.offset, fatbin.size, ".hip_fatbin")?;
    bundle::extract_all(data).map(Some)
}

/// The clang offload bundles in the `.hip_fatbin` section of a host ELF object or library, one list of
/// entries per bundle, in file order (entry offsets relative to the section).
pub fn fatbin_bundles(bytes: &[u8]) -> Result<Vec<Vec<BundleEntry<'_>>>, LoadError> {
    elf::check_ident(bytes)?;
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    let host = elf::parse(bytes)?;
    let Some(fatbin) = host.sections.iter().find(|s| s.name == ".hip_fatbin") else {
        return Err(LoadError::NotAmdgpu { machine });
    };
    let data = elf::file_slice(bytes, fatbin.offset, fatbin.size, ".hip_fatbin")?;
    bundle::extract_bundles(data)
}

/// Upper bound on the code bytes copied out of one file, as a multiple of its size: real code
/// objects copy each byte of `.text` at most once; only crafted symbol tables (many descriptors
/// sharing one entry point) could make the copies grow quadratically.
const MAX_CODE_COPY_FACTOR: u64 = 8;

fn find_kernels(
    bytes: &[u8],
    elf: &elf::Elf,
    metadata: Option<&Metadata>,
) -> Result<Vec<Kernel>, LoadError> {
    use std::collections::{HashMap, HashSet};

    // ET_REL: addresses are section-relative and entry offsets unrelocated.
    let relocatable = elf.header.e_type == goblin::elf::header::ET_REL;
    // Symbols by address, and the sorted addresses of symbols defined in each section.
    let mut by_value: HashMap<u64, Vec<&Symbol>> = HashMap::new();
    let mut in_section: HashMap<Option<usize>, Vec<u64>> = HashMap::new();
    for s in &elf.symbols {
        by_value.entry(s.value).or_default().push(s);
        if s.section.is_some() {
            in_section.entry(s.section).or_default().push(s.value);
        }
    }

    // First pass: descriptors and entry points.
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for kd in elf
        .symbols
        .iter()
        .filter(|s| s.name.len() > 3 && s.name.ends_with(".kd"))
    {
        if !seen.insert(kd.name.as_str()) {
            continue;
        }
        let what = format!("kernel descriptor {}", kd.name);
        let size = KERNEL_DESCRIPTOR_SIZE as u64;
        let (kd_offset, _) = elf
            .map_address(kd.value, size, kd.section)
            .ok_or_else(|| LoadError::out_of_range(what.clone(), kd.value, size))?;
        let raw = elf::file_slice(bytes, kd_offset, size, &what)?;
        let descriptor = KernelDescriptor::from_bytes(raw)
            .ok_or_else(|| LoadError::truncated(what.clone(), kd_offset, size, bytes.len()))?;
        let entry = if relocatable {
            // In an unlinked object the entry offset is left to a relocation (R_AMDGPU_REL64);
            // the kernel's function symbol, relative to its section, gives the entry instead.
            let name = kd.name.trim_end_matches(".kd");
            elf.symbols
                .iter()
                .find(|s| s.name == name && s.kind == SymbolKind::Func && s.section.is_some())
                .map(|s| s.value)
                .ok_or_else(|| {
                    LoadError::Malformed(format!(
                        "relocatable object without a function symbol for {}",
                        kd.name
                    ))
                })?
        } else {
            descriptor.entry_address(kd.value).ok_or_else(|| {
                LoadError::out_of_range(format!("entry point of {}", kd.name), kd.value, 0)
            })?
        };
        found.push((kd, kd_offset, descriptor, entry));
    }
    for addrs in in_section.values_mut() {
        addrs.sort_unstable();
        addrs.dedup();
    }
    let mut entries: Vec<u64> = found.iter().map(|f| f.3).collect();
    entries.sort_unstable();

    let copy_budget = (bytes.len() as u64).saturating_mul(MAX_CODE_COPY_FACTOR);
    let mut copied: u64 = 0;
    let mut kernels = Vec::with_capacity(found.len());
    for (kd, kd_offset, descriptor, entry) in found {
        let name = kd.name.trim_end_matches(".kd").to_string();
        let at_entry = by_value.get(&entry).map(Vec::as_slice).unwrap_or(&[]);
        let func = at_entry
            .iter()
            .find(|s| s.name == name)
            .or_else(|| at_entry.iter().find(|s| s.kind == SymbolKind::Func))
            .copied();

        // The section (or segment) holding the entry point bounds the code.
        let what = format!("code of kernel {name}");
        let (code_offset, section) = elf
            .map_address(entry, 1, func.and_then(|f| f.section))
            .ok_or_else(|| LoadError::out_of_range(what.clone(), entry, 0))?;
        let region_end = match section.and_then(|i| elf.sections.get(i)) {
            Some(s) => s.address.saturating_add(s.size),
            None => elf
                .segments
                .iter()
                .find(|p| p.p_vaddr <= entry && entry < p.p_vaddr.saturating_add(p.p_filesz))
                .map(|p| p.p_vaddr.saturating_add(p.p_filesz))
                .unwrap_or(entry),
        };
        let by_symbol = func
            .map(|f| f.size)
            .filter(|&sz| sz > 0 && entry.checked_add(sz).is_some_and(|e| e <= region_end));
        let (size, extent) = match by_symbol {
            Some(sz) => (sz, CodeExtent::Symbol),
            None => {
                // Without a section, any symbol may bound the code.
                let symbols_here: &[u64] = match section {
                    Some(_) => in_section.get(&section).map(Vec::as_slice).unwrap_or(&[]),
                    None => &[],
                };
                let next_after =
                    |list: &[u64]| list.get(list.partition_point(|&v| v <= entry)).copied();
                let next = [next_after(symbols_here), next_after(&entries)]
                    .into_iter()
                    .flatten()
                    .filter(|&v| v < region_end)
                    .min();
                match next {
                    Some(n) => (n - entry, CodeExtent::NextSymbol),
                    None => (region_end.saturating_sub(entry), CodeExtent::SectionEnd),
                }
            }
        };
        copied = copied.saturating_add(size);
        if copied > copy_budget {
            return Err(LoadError::Malformed(format!(
                "kernel code ranges overlap excessively ({copied} bytes of code from a {}-byte file)",
                bytes.len()
            )));
        }
        let code = elf::file_slice(bytes, code_offset, size, &what)?.to_vec();
        let kernel_metadata = metadata
            .and_then(|m| m.kernels.iter().find(|k| k.symbol == kd.name))
            .cloned();
        kernels.push(Kernel {
            name,
            descriptor_symbol: kd.name.clone(),
            descriptor_address: kd.value,
            descriptor_offset: kd_offset,
            abi: descriptor.abi(),
            descriptor,
            code_address: entry,
            code_offset,
            code_symbol: func.map(|f| f.name.clone()),
            code_extent: extent,
            code_size: size,
            code,
            metadata: kernel_metadata,
        });
    }
    kernels.sort_by(|a, b| {
        a.code_address
            .cmp(&b.code_address)
            .then_with(|| a.name.cmp(&b.name))
    });
    Ok(kernels)
}
