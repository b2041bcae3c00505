//! `rdna2spv disasm`: llvm-objdump-19-compatible listings.
//!
//! Each instruction line is what llvm-objdump-19 `-d --mcpu=gfx1030` prints: a tab, the instruction text
//! padded to 59 columns, `// `, the address in 12 upper-case hex digits, `: `, the words in 8 upper-case hex
//! digits each, and for branches ` <symbol+0xoff>`. Words that do not decode give a line whose text begins
//! `<invalid>` (with the reason) and decoding resumes at the next word.

use rdna2spv_isa::{decode, DecodeError, PrintOptions, Target};
use std::fmt::Write as _;

/// What to disassemble: code bytes at an address, with the symbol they belong to (for branch labels).
pub struct Listing<'a> {
    pub code: &'a [u8],
    pub address: u64,
    pub symbol: Option<&'a str>,
    pub target: Target,
    pub wave64: bool,
}

/// One line per instruction (or undecodable word), without trailing newline characters.
pub fn lines(l: &Listing<'_>) -> Vec<String> {
    lines_with(l, false)
}

/// [`lines`]; with `skip_zeros`, as llvm-objdump does without `--disassemble-zeroes`: wherever an instruction
/// would start, a run of at least 8 zero bytes is skipped (its length rounded down to a multiple of 4) and
/// printed as a line `\t\t...`.
pub fn lines_with(l: &Listing<'_>, skip_zeros: bool) -> Vec<String> {
    let words: Vec<u32> = l
        .code
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let opts = PrintOptions { wave64: l.wave64 };
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if skip_zeros {
            let zeros = l.code[4 * i..].iter().take_while(|&&b| b == 0).count();
            if zeros >= 8 {
                out.push("\t\t...".to_string());
                i += zeros / 4;
                continue;
            }
        }
        let addr = l.address + 4 * i as u64;
        let (text, n, label) = match decode(&words[i..], l.target) {
            Ok(ins) => {
                let label = match (ins.branch_target(addr), l.symbol) {
                    (Some(t), Some(sym)) if t >= l.address => {
                        Some(format!("<{sym}+0x{:x}>", t - l.address))
                    }
                    _ => None,
                };
                (ins.text(opts), ins.len(), label)
            }
            Err(e @ DecodeError::Truncated { .. }) => {
                (format!("<invalid> ({e})"), words.len() - i, None)
            }
            Err(e) => (format!("<invalid> ({e})"), 1, None),
        };
        let mut line = String::with_capacity(100);
        // llvm-objdump left-justifies tab + text to 60 columns: a text of 59 characters or more is followed
        // directly by the comment, with no space (D057; 38,131 such lines in rocSPARSE).
        let _ = write!(line, "\t{text:<59}// {addr:012X}:");
        for w in &words[i..i + n] {
            let _ = write!(line, " {w:08X}");
        }
        if let Some(label) = label {
            line.push(' ');
            line.push_str(&label);
        }
        out.push(line);
        i += n;
    }
    let tail = l.code.chunks_exact(4).remainder();
    if !tail.is_empty() {
        let addr = l.address + 4 * words.len() as u64;
        let text = format!("<invalid> (truncated: {} trailing bytes)", tail.len());
        let hex: String = tail.iter().map(|b| format!("{b:02X}")).collect();
        out.push(format!("\t{text:<59}// {addr:012X}: {hex}"));
    }
    out
}

/// The whole listing of a code object, as `llvm-objdump-19 -d` prints it: every function symbol of every
/// executable section, from its address to the next symbol or the section's end (so the `s_code_end` padding
/// after a kernel is listed too). `elf` is the ELF image the object was parsed from.
pub fn object_listing(
    file_name: &str,
    elf: &[u8],
    co: &rdna2spv_codeobj::CodeObject,
    target: Target,
    only: Option<&str>,
) -> String {
    use rdna2spv_codeobj::SymbolKind;
    let wave64 = !co.kernels.is_empty() && co.kernels.iter().all(|k| k.abi.wave_size == 64);
    let mut out = format!("\n{file_name}:\tfile format elf64-amdgpu\n");
    for sec in co.sections.iter().filter(|s| s.is_executable()) {
        let Some(data) = sec.data(elf) else { continue };
        let _ = write!(out, "\nDisassembly of section {}:\n", sec.name);
        let mut syms: Vec<_> = co
            .symbols
            .iter()
            .filter(|s| {
                s.section == Some(sec.index)
                    && matches!(s.kind, SymbolKind::Func | SymbolKind::NoType)
            })
            .filter(|s| sec.contains_range(s.value, 0))
            .collect();
        syms.sort_by_key(|s| (s.value, s.name.clone()));
        syms.dedup_by_key(|s| s.value);
        // Like llvm-objdump, bytes before the first symbol (hipcc's leading `s_code_end` padding) are listed
        // under a label named after the section.
        let mut starts: Vec<(u64, &str)> =
            syms.iter().map(|s| (s.value, s.name.as_str())).collect();
        if starts.first().is_none_or(|&(v, _)| v != sec.address) {
            starts.insert(0, (sec.address, sec.name.as_str()));
        }
        for (i, &(value, name)) in starts.iter().enumerate() {
            let end = starts
                .get(i + 1)
                .map(|n| n.0)
                .unwrap_or(sec.address + sec.size);
            if only.is_some_and(|k| k != name) {
                continue;
            }
            let (a, b) = ((value - sec.address) as usize, (end - sec.address) as usize);
            let Some(code) = data.get(a..b.min(data.len())) else {
                continue;
            };
            let _ = write!(out, "\n{value:016x} <{name}>:\n");
            let listing = Listing {
                code,
                address: value,
                symbol: Some(name),
                target,
                wave64,
            };
            for l in lines_with(&listing, true) {
                out.push_str(&l);
                out.push('\n');
            }
        }
    }
    out
}

/// The ELF image inside `bytes` (the file itself, or the amdgcn entry of a clang offload bundle).
pub fn elf_image(bytes: &[u8]) -> anyhow::Result<&[u8]> {
    if rdna2spv_codeobj::bundle::is_bundle(bytes) {
        let entries = rdna2spv_codeobj::bundle::extract(bytes)?;
        let e = rdna2spv_codeobj::bundle::pick_amdgcn(&entries)?;
        Ok(e.data)
    } else {
        Ok(bytes)
    }
}
