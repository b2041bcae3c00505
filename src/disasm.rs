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
    let words: Vec<u32> =
        l.code.chunks(4).map(|c| c.iter().rev().fold(0u32, |acc, b| (acc << 8) | *b as u32)).collect();
    let opts = PrintOptions { wave64: l.wave64 };
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let addr = l.address + 4 * i as u64;
        let (text, n, label) = match decode(&words[i..], l.target) {
            Ok(ins) => {
                let label = match (ins.branch_target(addr), l.symbol) {
                    (Some(t), Some(sym)) if t >= l.address => Some(format!("<{sym}+0x{:x}>", t - l.address)),
                    _ => None,
                };
                (ins.text(opts), ins.len(), label)
            }
            Err(e @ DecodeError::Truncated { .. }) => (format!("<invalid> ({e})"), words.len() - i, None),
            Err(e) => (format!("<invalid> ({e})"), 1, None),
        };
        let mut line = String::with_capacity(100);
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
    out
}
