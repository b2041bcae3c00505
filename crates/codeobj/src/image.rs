//! The loaded image of a linked code object (decision D155): every `PT_LOAD` segment placed at its
//! virtual address, `.bss` and other `p_memsz > p_filesz` tails zeroed, and the dynamic relocations
//! applied for the address the image is placed at — what the HSA runtime's loader does before a kernel
//! of the object runs, so that PC-relative (`s_getpc_b64` + offset) and absolute references to the
//! object's global data reach the right bytes.
//!
//! Relocations (LLVM AMDGPUUsage, "Relocation Records"; S = the symbol's address in the placed image,
//! A = the addend, P = the address of the field, B = the load base, i.e. the address of virtual address 0):
//!
//! | type | value | field | calculation |
//! |---|---:|---|---|
//! | `R_AMDGPU_NONE` | 0 | none | none |
//! | `R_AMDGPU_ABS32_LO` | 1 | word32 | (S + A) & 0xFFFFFFFF |
//! | `R_AMDGPU_ABS32_HI` | 2 | word32 | (S + A) >> 32 |
//! | `R_AMDGPU_ABS64` | 3 | word64 | S + A |
//! | `R_AMDGPU_REL32` | 4 | word32 | S + A - P |
//! | `R_AMDGPU_REL64` | 5 | word64 | S + A - P |
//! | `R_AMDGPU_ABS32` | 6 | word32 | S + A |
//! | `R_AMDGPU_REL32_LO` | 10 | word32 | (S + A - P) & 0xFFFFFFFF |
//! | `R_AMDGPU_REL32_HI` | 11 | word32 | (S + A - P) >> 32 |
//! | `R_AMDGPU_RELATIVE64` | 13 | word64 | B + A |
//!
//! The GOT-relative forms (7–9) and `R_AMDGPU_REL16` are resolved by the linker and never reach a
//! loader; one in a dynamic relocation section is refused by name, as is a relocation against an
//! undefined symbol (the object needs something from outside it) and one whose field lies outside the
//! image. Nothing here panics on any input.

use crate::elf::{self, Elf};
use crate::error::LoadError;
use crate::{SectionInfo, Symbol, SymbolKind};
use goblin::elf::program_header::{PF_W, PF_X, PT_LOAD};
use goblin::elf::section_header::{SHT_NOBITS, SHT_REL, SHT_RELA};
use serde::Serialize;

/// The largest image this loader places (its memory size, `.bss` included).
pub const MAX_IMAGE_BYTES: u64 = 1 << 30;

/// One `PT_LOAD` segment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LoadSegment {
    /// Virtual address (`p_vaddr`).
    pub address: u64,
    /// Bytes in memory (`p_memsz`); those past `data` are zero.
    pub size: u64,
    pub writable: bool,
    pub executable: bool,
    /// The file's bytes of the segment (`p_filesz`, at most `size`).
    #[serde(skip)]
    pub data: Vec<u8>,
}

/// A relocation the loader applies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Relocation {
    /// Virtual address of the field (`r_offset`).
    pub address: u64,
    /// `R_AMDGPU_*` type.
    pub kind: u32,
    /// The symbol's name, if the relocation names one.
    pub symbol: Option<String>,
    /// The symbol's virtual address; `None` for no symbol (`STN_UNDEF`) or an undefined one.
    pub symbol_value: Option<u64>,
    pub addend: i64,
}

/// A global variable of the object: an `STT_OBJECT` symbol in an allocated, non-executable section
/// (`__constant` / `__device__` / `__constant__` data, OpenCL program-scope variables; kernel
/// descriptors are `<kernel>.kd`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Global {
    pub name: String,
    /// Virtual address.
    pub address: u64,
    pub size: u64,
    /// The section holding it (`.rodata`, `.data`, `.bss`, …).
    pub section: String,
    /// Whether the section is writable (a kernel may store to it).
    pub writable: bool,
}

/// The loaded image of a linked (ET_DYN) code object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Image {
    /// Bytes from virtual address 0 to the end of the last segment.
    pub size: u64,
    pub segments: Vec<LoadSegment>,
    pub relocations: Vec<Relocation>,
    /// Sorted by address.
    pub globals: Vec<Global>,
}

/// `R_AMDGPU_*` names, for messages.
pub fn relocation_name(kind: u32) -> &'static str {
    match kind {
        0 => "R_AMDGPU_NONE",
        1 => "R_AMDGPU_ABS32_LO",
        2 => "R_AMDGPU_ABS32_HI",
        3 => "R_AMDGPU_ABS64",
        4 => "R_AMDGPU_REL32",
        5 => "R_AMDGPU_REL64",
        6 => "R_AMDGPU_ABS32",
        7 => "R_AMDGPU_GOTPCREL",
        8 => "R_AMDGPU_GOTPCREL32_LO",
        9 => "R_AMDGPU_GOTPCREL32_HI",
        10 => "R_AMDGPU_REL32_LO",
        11 => "R_AMDGPU_REL32_HI",
        13 => "R_AMDGPU_RELATIVE64",
        14 => "R_AMDGPU_REL16",
        _ => "an unknown relocation type",
    }
}

impl Image {
    /// The global named `name`.
    pub fn global(&self, name: &str) -> Option<&Global> {
        self.globals.iter().find(|g| g.name == name)
    }

    /// The image's bytes when virtual address 0 is placed at `base`: segments copied, the rest zero, every
    /// relocation applied. An error names the relocation that cannot be applied.
    pub fn place(&self, base: u64) -> Result<Vec<u8>, LoadError> {
        let mut out = vec![0u8; self.size as usize];
        for s in &self.segments {
            let at = s.address as usize;
            out[at..at + s.data.len()].copy_from_slice(&s.data);
        }
        for r in &self.relocations {
            let what = || {
                format!(
                    "{} at {:#x}{}",
                    relocation_name(r.kind),
                    r.address,
                    r.symbol
                        .as_deref()
                        .map(|s| format!(" against {s}"))
                        .unwrap_or_default()
                )
            };
            let a = r.addend as u64;
            let p = base.wrapping_add(r.address);
            let s = || {
                match (&r.symbol, r.symbol_value) {
                (_, Some(v)) => Ok(base.wrapping_add(v)),
                (None, None) => Ok(0),
                (Some(name), None) => Err(LoadError::Malformed(format!(
                    "{}: the symbol {name} is not defined in the code object (an external reference no \
                     loader here can resolve)",
                    what()
                ))),
            }
            };
            let (value, width): (u64, usize) = match r.kind {
                0 => continue,
                1 => (s()?.wrapping_add(a) & 0xffff_ffff, 4),
                2 => (s()?.wrapping_add(a) >> 32, 4),
                3 => (s()?.wrapping_add(a), 8),
                4 => (s()?.wrapping_add(a).wrapping_sub(p) & 0xffff_ffff, 4),
                5 => (s()?.wrapping_add(a).wrapping_sub(p), 8),
                6 => (s()?.wrapping_add(a) & 0xffff_ffff, 4),
                10 => (s()?.wrapping_add(a).wrapping_sub(p) & 0xffff_ffff, 4),
                11 => (s()?.wrapping_add(a).wrapping_sub(p) >> 32, 4),
                13 => (base.wrapping_add(a), 8),
                k => {
                    return Err(LoadError::Malformed(format!(
                        "{}: {} ({k}) is not a dynamic relocation a loader applies",
                        what(),
                        relocation_name(k)
                    )))
                }
            };
            let at = r.address as usize;
            // Checked when the image was loaded: the field lies inside it.
            out[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
        }
        Ok(out)
    }
}

/// Loads the image of a linked object; `Err` for an unlinked (ET_REL) one, whose addresses are not final.
pub(crate) fn load(bytes: &[u8], elf: &Elf) -> Result<Image, LoadError> {
    if elf.header.e_type != goblin::elf::header::ET_DYN {
        return Err(LoadError::Malformed(
            "an unlinked object (ET_REL) has no load image: link it (ld.lld -shared) first".into(),
        ));
    }
    let mut segments = Vec::new();
    let mut size = 0u64;
    for p in elf.segments.iter().filter(|p| p.p_type == PT_LOAD) {
        let end = p
            .p_vaddr
            .checked_add(p.p_memsz)
            .filter(|&e| e <= MAX_IMAGE_BYTES)
            .ok_or_else(|| {
                LoadError::Malformed(format!(
                    "PT_LOAD segment at {:#x} of {:#x} bytes: the image would exceed {} bytes",
                    p.p_vaddr, p.p_memsz, MAX_IMAGE_BYTES
                ))
            })?;
        if p.p_filesz > p.p_memsz {
            return Err(LoadError::Malformed(format!(
                "PT_LOAD segment at {:#x}: file size {:#x} exceeds its memory size {:#x}",
                p.p_vaddr, p.p_filesz, p.p_memsz
            )));
        }
        let data = elf::file_slice(bytes, p.p_offset, p.p_filesz, "PT_LOAD segment")?.to_vec();
        size = size.max(end);
        segments.push(LoadSegment {
            address: p.p_vaddr,
            size: p.p_memsz,
            writable: p.p_flags & PF_W != 0,
            executable: p.p_flags & PF_X != 0,
            data,
        });
    }
    let relocations = relocations(bytes, elf, size)?;
    let globals = globals(&elf.sections, &elf.symbols, size);
    Ok(Image {
        size,
        segments,
        relocations,
        globals,
    })
}

/// Every relocation of the allocated relocation sections (`.rela.dyn`; a linked object's `.rela.*`
/// sections that are not loaded were applied by the linker).
fn relocations(bytes: &[u8], elf: &Elf, size: u64) -> Result<Vec<Relocation>, LoadError> {
    let mut out = Vec::new();
    for sec in elf
        .sections
        .iter()
        .filter(|s| s.kind == SHT_RELA || s.kind == SHT_REL)
    {
        if !sec.is_alloc() {
            continue;
        }
        if sec.kind == SHT_REL {
            return Err(LoadError::Malformed(format!(
                "{}: SHT_REL relocations (AMDGPU uses Elf64_Rela)",
                sec.name
            )));
        }
        let data = elf::file_slice(bytes, sec.offset, sec.size, &sec.name)?;
        let symtab = elf.sections.get(sec.link as usize);
        for (i, e) in data.chunks_exact(24).enumerate() {
            let word =
                |k: usize| u64::from_le_bytes(e[8 * k..8 * k + 8].try_into().unwrap_or([0; 8]));
            let (address, info, addend) = (word(0), word(1), word(2) as i64);
            let (sym, kind) = ((info >> 32) as u32, info as u32);
            let (symbol, symbol_value) = if sym == 0 {
                (None, None)
            } else {
                let (name, value) =
                    symbol_entry(bytes, &elf.sections, symtab, sym).ok_or_else(|| {
                        LoadError::Malformed(format!(
                            "{} entry {i}: symbol index {sym} is outside its symbol table",
                            sec.name
                        ))
                    })?;
                (Some(name), value)
            };
            let width = match kind {
                3 | 5 | 13 => 8,
                _ => 4,
            };
            if address.checked_add(width).is_none_or(|e| e > size) {
                return Err(LoadError::Malformed(format!(
                    "{} entry {i}: {} at {address:#x} lies outside the {size:#x}-byte image",
                    sec.name,
                    relocation_name(kind)
                )));
            }
            out.push(Relocation {
                address,
                kind,
                symbol,
                symbol_value,
                addend,
            });
        }
    }
    Ok(out)
}

/// The name and (when defined) value of symbol `index` of `symtab`.
fn symbol_entry(
    bytes: &[u8],
    sections: &[SectionInfo],
    symtab: Option<&SectionInfo>,
    index: u32,
) -> Option<(String, Option<u64>)> {
    let symtab = symtab?;
    let data = elf::file_slice(bytes, symtab.offset, symtab.size, "symbol table").ok()?;
    let e = data.get(24 * index as usize..24 * index as usize + 24)?;
    let st_name = u32::from_le_bytes(e[0..4].try_into().ok()?);
    let shndx = u16::from_le_bytes(e[6..8].try_into().ok()?);
    let value = u64::from_le_bytes(e[8..16].try_into().ok()?);
    let strtab = sections
        .get(symtab.link as usize)
        .filter(|s| s.kind != SHT_NOBITS)
        .and_then(|s| elf::file_slice(bytes, s.offset, s.size, "string table").ok())
        .unwrap_or(&[]);
    let name = strtab
        .get(st_name as usize..)
        .map(|r| {
            let end = r.iter().position(|&b| b == 0).unwrap_or(r.len());
            String::from_utf8_lossy(&r[..end]).into_owned()
        })
        .unwrap_or_default();
    Some((name, (shndx != 0).then_some(value)))
}

fn globals(sections: &[SectionInfo], symbols: &[Symbol], size: u64) -> Vec<Global> {
    let mut out: Vec<Global> = symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Object)
        .filter_map(|s| {
            let sec = sections.get(s.section?)?;
            if !sec.is_alloc() || sec.is_executable() {
                return None;
            }
            let end = s.value.checked_add(s.size)?;
            (end <= size).then(|| Global {
                name: s.name.clone(),
                address: s.value,
                size: s.size,
                section: sec.name.clone(),
                writable: sec.flags & u64::from(goblin::elf::section_header::SHF_WRITE) != 0,
            })
        })
        .collect();
    out.sort_by(|a, b| (a.address, &a.name).cmp(&(b.address, &b.name)));
    out.dedup_by(|a, b| a.name == b.name);
    out
}
