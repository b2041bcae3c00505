//! The ELF layer: header checks, sections, symbols and notes, read with goblin's table parsers
//! and checked slicing. Internal to the crate; the public view is [`crate::SectionInfo`] and
//! [`crate::Symbol`].

use crate::error::LoadError;
use crate::{SectionInfo, Symbol, SymbolBinding, SymbolKind};
use goblin::container::{Container, Ctx, Endian};
use goblin::elf::program_header::{ProgramHeader, PT_LOAD, PT_NOTE};
use goblin::elf::section_header::{SectionHeader, SHT_DYNSYM, SHT_NOBITS, SHT_NOTE, SHT_SYMTAB};
use goblin::elf::sym::Symtab;

pub(crate) const EM_AMDGPU: u16 = 224;
pub(crate) const ELFOSABI_AMDGPU_HSA: u8 = 64;
pub(crate) const NT_AMDGPU_METADATA: u32 = 32;
const ELF64_EHDR_SIZE: usize = 64;
const ELF64_SHDR_SIZE: u16 = 64;
const ELF64_SYM_SIZE: u64 = 24;

/// Checked sub-slice of the file.
pub(crate) fn file_slice<'a>(
    bytes: &'a [u8],
    offset: u64,
    size: u64,
    what: &str,
) -> Result<&'a [u8], LoadError> {
    let end = offset
        .checked_add(size)
        .ok_or_else(|| LoadError::out_of_range(what, offset, size))?;
    if end > bytes.len() as u64 {
        return Err(LoadError::truncated(what, offset, size, bytes.len()));
    }
    // Both ends are at most bytes.len(), so they fit in usize.
    bytes
        .get(offset as usize..end as usize)
        .ok_or_else(|| LoadError::out_of_range(what, offset, size))
}

/// A NUL-terminated name from a string table's bytes (lossy UTF-8; empty when out of range).
fn name_at(strtab: &[u8], offset: u64) -> String {
    let Some(rest) = usize::try_from(offset).ok().and_then(|o| strtab.get(o..)) else {
        return String::new();
    };
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    String::from_utf8_lossy(&rest[..end]).into_owned()
}

pub(crate) struct Elf {
    pub header: goblin::elf::Header,
    pub sections: Vec<SectionInfo>,
    pub segments: Vec<ProgramHeader>,
    pub symbols: Vec<Symbol>,
}

pub(crate) fn check_ident(bytes: &[u8]) -> Result<(), LoadError> {
    if !bytes.starts_with(b"\x7fELF") {
        let hint = crate::bundle::is_bundle(bytes)
            .then(|| "this is a clang offload bundle: use CodeObject::parse_any".to_string());
        return Err(LoadError::NotElf { hint });
    }
    if bytes.len() < ELF64_EHDR_SIZE {
        return Err(LoadError::truncated(
            "ELF header",
            0,
            ELF64_EHDR_SIZE as u64,
            bytes.len(),
        ));
    }
    match bytes[4] {
        2 => {}
        1 => {
            return Err(LoadError::UnsupportedElf {
                detail: "32-bit ELF (HSA code objects are ELF64)".into(),
            })
        }
        c => {
            return Err(LoadError::UnsupportedElf {
                detail: format!("ELF class {c}"),
            })
        }
    }
    if bytes[5] != 1 {
        return Err(LoadError::UnsupportedElf {
            detail: format!(
                "data encoding {} (HSA code objects are little-endian)",
                bytes[5]
            ),
        });
    }
    Ok(())
}

pub(crate) fn parse(bytes: &[u8]) -> Result<Elf, LoadError> {
    check_ident(bytes)?;
    let header = goblin::elf::Elf::parse_header(bytes)?;
    let ctx = Ctx::new(Container::Big, Endian::Little);

    let sections = parse_sections(bytes, &header, ctx)?;
    // Program headers only help to map addresses when sections are missing; a broken table is
    // ignored rather than fatal.
    let segments = usize::try_from(header.e_phoff)
        .ok()
        .filter(|_| header.e_phnum > 0)
        .and_then(|off| ProgramHeader::parse(bytes, off, usize::from(header.e_phnum), ctx).ok())
        .unwrap_or_default();
    let symbols = parse_symbols(bytes, &sections, ctx)?;
    Ok(Elf {
        header,
        sections,
        segments,
        symbols,
    })
}

fn parse_sections(
    bytes: &[u8],
    header: &goblin::elf::Header,
    ctx: Ctx,
) -> Result<Vec<SectionInfo>, LoadError> {
    if header.e_shoff == 0 {
        return Ok(Vec::new());
    }
    if header.e_shentsize != ELF64_SHDR_SIZE {
        return Err(LoadError::Malformed(format!(
            "section header entry size {} (expected {ELF64_SHDR_SIZE})",
            header.e_shentsize
        )));
    }
    // The table itself must be in the file (with e_shnum == 0 the count is in the first entry,
    // which goblin reads and bounds).
    let table_size = u64::from(header.e_shnum.max(1)) * u64::from(ELF64_SHDR_SIZE);
    file_slice(bytes, header.e_shoff, table_size, "section header table")?;
    let off = usize::try_from(header.e_shoff)
        .map_err(|_| LoadError::out_of_range("section header table", header.e_shoff, 0))?;
    let shdrs = SectionHeader::parse(bytes, off, usize::from(header.e_shnum), ctx)?;
    let shstrtab: &[u8] = shdrs
        .get(usize::from(header.e_shstrndx))
        .filter(|s| s.sh_type != SHT_NOBITS)
        .and_then(|s| file_slice(bytes, s.sh_offset, s.sh_size, "section name table").ok())
        .unwrap_or(&[]);
    // Every section with contents lies inside the file: a table of garbage or offsets past the end is an
    // error here, not a code object with no kernels.
    for (index, s) in shdrs.iter().enumerate() {
        if s.sh_type != SHT_NOBITS && s.sh_type != 0 {
            let what = format!("section {index} ({})", name_at(shstrtab, s.sh_name as u64));
            file_slice(bytes, s.sh_offset, s.sh_size, &what)?;
        }
    }
    Ok(shdrs
        .iter()
        .enumerate()
        .map(|(index, s)| SectionInfo {
            index,
            name: name_at(shstrtab, s.sh_name as u64),
            kind: s.sh_type,
            flags: s.sh_flags,
            address: s.sh_addr,
            offset: s.sh_offset,
            size: s.sh_size,
            link: s.sh_link,
            entsize: s.sh_entsize,
        })
        .collect())
}

fn parse_symbols(
    bytes: &[u8],
    sections: &[SectionInfo],
    ctx: Ctx,
) -> Result<Vec<Symbol>, LoadError> {
    let mut out: Vec<Symbol> = Vec::new();
    let mut seen: std::collections::HashSet<(String, u64)> = std::collections::HashSet::new();
    // .symtab first (it also has local symbols), then .dynsym for stripped objects.
    for kind in [SHT_SYMTAB, SHT_DYNSYM] {
        for sec in sections.iter().filter(|s| s.kind == kind) {
            if sec.entsize != 0 && sec.entsize != ELF64_SYM_SIZE {
                return Err(LoadError::Malformed(format!(
                    "symbol table {} has entry size {} (expected {ELF64_SYM_SIZE})",
                    sec.name, sec.entsize
                )));
            }
            let data = file_slice(
                bytes,
                sec.offset,
                sec.size,
                &format!("symbol table {}", sec.name),
            )?;
            let count = sec.size / ELF64_SYM_SIZE;
            if count == 0 {
                continue;
            }
            let strtab: &[u8] = usize::try_from(sec.link)
                .ok()
                .and_then(|i| sections.get(i))
                .filter(|s| s.kind != SHT_NOBITS)
                .and_then(|s| file_slice(bytes, s.offset, s.size, "symbol name table").ok())
                .unwrap_or(&[]);
            // `count * 24 <= data.len()`, so the table parses without truncation.
            let table = Symtab::parse(data, 0, count as usize, ctx)?;
            for sym in table.iter() {
                let name = name_at(strtab, sym.st_name as u64);
                if name.is_empty() {
                    continue;
                }
                let symbol = Symbol {
                    name,
                    value: sym.st_value,
                    size: sym.st_size,
                    kind: SymbolKind::from_st_type(sym.st_type()),
                    binding: SymbolBinding::from_st_bind(sym.st_bind()),
                    section: (sym.st_shndx != 0 && sym.st_shndx < 0xff00).then_some(sym.st_shndx),
                };
                if seen.insert((symbol.name.clone(), symbol.value)) {
                    out.push(symbol);
                }
            }
        }
    }
    Ok(out)
}

impl Elf {
    /// The file range (offset) of `size` bytes at virtual address `addr`: through the section
    /// `hint` if given and it holds the range, else any allocated section with file contents,
    /// else a PT_LOAD segment.
    pub fn map_address(
        &self,
        addr: u64,
        size: u64,
        hint: Option<usize>,
    ) -> Option<(u64, Option<usize>)> {
        let in_section =
            |s: &SectionInfo| s.kind != SHT_NOBITS && s.is_alloc() && s.contains_range(addr, size);
        if let Some(s) = hint
            .and_then(|i| self.sections.get(i))
            .filter(|s| in_section(s))
        {
            return Some((s.offset.checked_add(addr - s.address)?, Some(s.index)));
        }
        if let Some(s) = self.sections.iter().find(|s| in_section(s)) {
            return Some((s.offset.checked_add(addr - s.address)?, Some(s.index)));
        }
        for p in self.segments.iter().filter(|p| p.p_type == PT_LOAD) {
            let end = p.p_vaddr.checked_add(p.p_filesz)?;
            if addr >= p.p_vaddr && addr.checked_add(size).is_some_and(|e| e <= end) {
                return Some((p.p_offset.checked_add(addr - p.p_vaddr)?, None));
            }
        }
        None
    }

    /// The descriptors of every note in SHT_NOTE sections (or PT_NOTE segments when there are
    /// no sections) whose owner is `owner` and whose type is `note_type`.
    pub fn notes<'a>(&self, bytes: &'a [u8], owner: &str, note_type: u32) -> Vec<&'a [u8]> {
        let mut areas: Vec<&[u8]> = self
            .sections
            .iter()
            .filter(|s| s.kind == SHT_NOTE)
            .filter_map(|s| file_slice(bytes, s.offset, s.size, "note section").ok())
            .collect();
        if self.sections.is_empty() {
            areas.extend(
                self.segments
                    .iter()
                    .filter(|p| p.p_type == PT_NOTE)
                    .filter_map(|p| file_slice(bytes, p.p_offset, p.p_filesz, "note segment").ok()),
            );
        }
        let mut out = Vec::new();
        for area in areas {
            let mut at = 0usize;
            // Note header: namesz, descsz, type; name and desc each padded to 4 bytes.
            while let Some(h) = at.checked_add(12).and_then(|end| area.get(at..end)) {
                let word = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
                let (namesz, descsz, ty) = (word(0) as usize, word(4) as usize, word(8));
                let name_at = at + 12;
                let Some(desc_at) = name_at
                    .checked_add(namesz)
                    .and_then(|n| n.checked_add(3))
                    .map(|n| n & !3)
                else {
                    break;
                };
                let Some(next) = desc_at
                    .checked_add(descsz)
                    .and_then(|n| n.checked_add(3))
                    .map(|n| n & !3)
                else {
                    break;
                };
                let (Some(name), Some(desc)) = (
                    area.get(name_at..name_at + namesz),
                    desc_at
                        .checked_add(descsz)
                        .and_then(|e| area.get(desc_at..e)),
                ) else {
                    break;
                };
                let name = name.strip_suffix(&[0]).unwrap_or(name);
                if name == owner.as_bytes() && ty == note_type {
                    out.push(desc);
                }
                if next <= at {
                    break;
                }
                at = next;
            }
        }
        out
    }
}
