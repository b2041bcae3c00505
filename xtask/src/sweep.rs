//! `cargo xtask sweep`: ask LLVM-19's decoder which opcode slots exist in every encoding format, per
//! sub-target, and with which operands. The result is the bootstrap (and the cross-check) of
//! `crates/isa/opcodes.txt`: every row of the table must be a slot LLVM decodes with that mnemonic, and every
//! slot LLVM decodes must have a row.
//!
//! LLVM's decoder insists that fields an instruction does not use are zero, so each opcode is tried with several
//! operand templates; the first one LLVM accepts describes the operands (registers are chosen so that a printed
//! register number tells which field it came from). The table is a lower bound in the same sense as the LLVM
//! sweep in ../shared/research/feasibility-amd-binaries.md §4.4.

use anyhow::Result;
use llvm_oracle::{Decoded, Disassembler};
use std::collections::BTreeMap;

pub const TARGETS: [&str; 3] = ["gfx1010", "gfx1013", "gfx1030"];

/// A slot found by the sweep.
#[derive(Debug, Clone)]
pub struct Slot {
    pub format: &'static str,
    pub opcode: u32,
    pub mnemonic: String,
    /// LLVM's text for the first template it accepted.
    pub text: String,
    /// The template words.
    pub words: Vec<u32>,
}

/// Every format, how to place an opcode in it, and the templates to try.
/// Templates of one opcode: candidate word sequences.
type Templates = Box<dyn Fn(u32) -> Vec<Vec<u32>>>;

pub fn formats() -> Vec<(&'static str, u32, Templates)> {
    let mut v: Vec<(&'static str, u32, Templates)> = Vec::new();
    // Scalar formats. Register fields use s4 (dst), s8 (src0), s12 (src1) so the printed text names the field.
    v.push((
        "SOP2",
        0x60,
        Box::new(|op| {
            let base = 0x8000_0000 | (op << 23);
            let lit = 0xff;
            vec![
                vec![base | (4 << 16) | (12 << 8) | 8],
                vec![base | (4 << 16) | (12 << 8) | lit, 0x1234_5678],
            ]
        }),
    ));
    v.push((
        "SOPK",
        0x1d,
        Box::new(|op| {
            let base = 0xb000_0000 | (op << 23);
            vec![
                vec![base | (4 << 16) | 0x10],
                vec![base | (4 << 16)],
                vec![base | 0x10],
                vec![base],
            ]
        }),
    ));
    v.push((
        "SOP1",
        0x100,
        Box::new(|op| {
            let base = 0xbe80_0000 | (op << 8);
            vec![
                vec![base | (4 << 16) | 8],
                vec![base | (4 << 16)],
                vec![base | 8],
                vec![base],
            ]
        }),
    ));
    v.push((
        "SOPC",
        0x80,
        Box::new(|op| {
            let base = 0xbf00_0000 | (op << 16);
            vec![vec![base | (12 << 8) | 8], vec![base | (12 << 8) | 0x88]]
        }),
    ));
    v.push((
        "SOPP",
        0x80,
        Box::new(|op| {
            let base = 0xbf80_0000 | (op << 16);
            vec![vec![base | 0x10], vec![base], vec![base | 1]]
        }),
    ));
    v.push((
        "SMEM",
        0x100,
        Box::new(|op| {
            let base = 0xf400_0000 | (op << 18);
            vec![
                vec![base | (4 << 6) | 4, 0xfa00_0010],
                vec![base | (4 << 6) | 4, 0x1000_0010],
                vec![base | (4 << 6), 0xfa00_0000],
                vec![base | 4, 0xfa00_0010],
                vec![base, 0xfa00_0000],
                vec![base, 0],
            ]
        }),
    ));
    // Vector ALU. vdst v4, src0 v8, src1 v12, src2 v16.
    v.push((
        "VOP1",
        0x100,
        Box::new(|op| {
            let base = 0x7e00_0000 | (op << 9);
            vec![
                vec![base | (4 << 17) | 0x108],
                vec![base | 0x108],
                vec![base | (4 << 17)],
                vec![base],
            ]
        }),
    ));
    v.push((
        "VOP2",
        0x3e,
        Box::new(|op| {
            let base = op << 25;
            vec![
                vec![base | (4 << 17) | (12 << 9) | 0x108],
                vec![base | (4 << 17) | (12 << 9) | 0xff, 0x1234_5678],
            ]
        }),
    ));
    v.push((
        "VOPC",
        0x100,
        Box::new(|op| {
            let base = 0x7c00_0000 | (op << 17);
            vec![vec![base | (12 << 9) | 0x108]]
        }),
    ));
    v.push((
        "VOP3",
        0x400,
        Box::new(|op| {
            let base = 0xd400_0000 | (op << 16);
            let w1 = |s0: u32, s1: u32, s2: u32| s0 | (s1 << 9) | (s2 << 18);
            vec![
                vec![base | 4, w1(0x108, 0x10c, 0x110)],
                vec![base | 4, w1(0x108, 0x10c, 0)],
                vec![base | 4, w1(0x108, 0, 0)],
                vec![base | (6 << 8) | 4, w1(0x108, 0x10c, 0x110)],
                vec![base | (6 << 8) | 4, w1(0x108, 0x10c, 0x6a)],
                vec![base | 4, w1(0x108, 0x10c, 0x6a)],
                vec![base | 4, w1(0x08, 0x10c, 0)],
                vec![base | 4, w1(0x108, 0x0c, 0)],
                vec![base | 4, w1(0x108, 0x10c, 0x10)],
                vec![base | 4, w1(0x08, 0x10c, 0x110)],
                vec![base | 4, w1(0, 0, 0)],
                vec![base, w1(0, 0, 0)],
            ]
        }),
    ));
    v.push((
        "VOP3P",
        0x80,
        Box::new(|op| {
            let base = 0xcc00_0000 | (op << 16) | (1 << 14);
            let w1 = |s0: u32, s1: u32, s2: u32| s0 | (s1 << 9) | (s2 << 18) | (3 << 27);
            vec![
                vec![base | 4, w1(0x108, 0x10c, 0x110)],
                vec![base | 4, w1(0x108, 0x10c, 0)],
                vec![
                    (base & !(1 << 14)) | 4,
                    w1(0x108, 0x10c, 0x110) & !(3 << 27),
                ],
            ]
        }),
    ));
    // Memory.
    v.push((
        "DS",
        0x100,
        Box::new(|op| {
            let base = 0xd800_0000 | (op << 18);
            let w1 = |addr: u32, d0: u32, d1: u32, vdst: u32| {
                addr | (d0 << 8) | (d1 << 16) | (vdst << 24)
            };
            vec![
                vec![base, w1(8, 12, 16, 4)],
                vec![base, w1(8, 12, 16, 0)],
                vec![base, w1(8, 12, 0, 4)],
                vec![base, w1(8, 12, 0, 0)],
                vec![base, w1(8, 0, 0, 4)],
                vec![base, w1(8, 0, 0, 0)],
                vec![base, w1(0, 12, 0, 4)],
                vec![base, w1(0, 12, 0, 0)],
                vec![base, w1(0, 0, 0, 4)],
                vec![base, w1(0, 0, 0, 0)],
            ]
        }),
    ));
    for (name, seg) in [("FLAT", 0u32), ("SCRATCH", 1), ("GLOBAL", 2)] {
        v.push((
            name,
            0x80,
            Box::new(move |op| {
                let base = 0xdc00_0000 | (op << 18) | (seg << 14);
                let w1 = |addr: u32, data: u32, saddr: u32, vdst: u32| {
                    addr | (data << 8) | (saddr << 16) | (vdst << 24)
                };
                let mut t = Vec::new();
                for saddr in [0x7d, 4] {
                    t.push(vec![base, w1(8, 12, saddr, 4)]);
                    t.push(vec![base, w1(8, 12, saddr, 0)]);
                    t.push(vec![base, w1(8, 0, saddr, 4)]);
                    t.push(vec![base, w1(8, 0, saddr, 0)]);
                    t.push(vec![base, w1(0, 0, saddr, 0)]);
                }
                // SCRATCH with neither address: the `off` form.
                t.push(vec![base | (1 << 13), w1(0, 12, 0x7d, 4)]);
                t.push(vec![base | (1 << 13), w1(0, 12, 0x7d, 0)]);
                t.push(vec![base | (1 << 13), w1(0, 0, 0x7d, 4)]);
                t
            }),
        ));
    }
    v.push((
        "MUBUF",
        0x80,
        Box::new(|op| {
            let base = 0xe000_0000 | (op << 18);
            let w1 = |vaddr: u32, vdata: u32, srsrc: u32, soffset: u32| {
                vaddr | (vdata << 8) | (srsrc << 16) | (soffset << 24)
            };
            vec![
                vec![base, w1(8, 4, 2, 0x80)],
                vec![base, w1(0, 0, 0, 0x80)],
                vec![base, w1(0, 0, 0, 0)],
                vec![base | (1 << 16), w1(8, 4, 2, 0x80)],
            ]
        }),
    ));
    v.push((
        "MTBUF",
        0x10,
        Box::new(|op| {
            let base = 0xe800_0000 | ((op & 7) << 16) | (1 << 19);
            let w1 = |vaddr: u32, vdata: u32, srsrc: u32, soffset: u32| {
                vaddr | (vdata << 8) | (srsrc << 16) | (soffset << 24) | ((op >> 3) << 21)
            };
            vec![vec![base, w1(8, 4, 2, 0x80)]]
        }),
    ));
    v.push((
        "MIMG",
        0x100,
        Box::new(|op| {
            let base = 0xf000_0000 | ((op & 0x7f) << 18) | (op >> 7) | (1 << 8);
            let w1 = |vaddr: u32, vdata: u32, srsrc: u32, ssamp: u32| {
                vaddr | (vdata << 8) | (srsrc << 16) | (ssamp << 21)
            };
            vec![
                vec![base, w1(8, 4, 2, 0)],
                vec![base, w1(8, 4, 2, 3)],
                vec![base | (0xf << 8), w1(8, 4, 2, 0)],
                vec![base | (0xf << 8) | (1 << 12), w1(8, 4, 2, 3)],
                vec![(base & !(0xf << 8)) | (1 << 12), w1(8, 4, 2, 3)],
                vec![base & !(0xf << 8), w1(8, 4, 2, 0)],
            ]
        }),
    ));
    v.push((
        "EXP",
        1,
        Box::new(|_| vec![vec![0xf800_0000 | 0xf, 0x0c08_0804]]),
    ));
    v.push((
        "VINTRP",
        4,
        Box::new(|op| {
            let base = 0xc800_0000 | (op << 16);
            vec![vec![base | (4 << 18) | 8]]
        }),
    ));
    v
}

pub fn sweep(cpu: &str) -> Result<Vec<Slot>> {
    let d = Disassembler::new(cpu, "")?;
    let mut out = Vec::new();
    for (format, count, templates) in formats() {
        for op in 0..count {
            for words in templates(op) {
                if let Decoded::Ok { size, text } = d.decode_words(&words) {
                    if size != words.len() * 4 && !(format == "SOP2" || format == "VOP2") {
                        continue;
                    }
                    let mnemonic = text.split_whitespace().next().unwrap_or("").to_string();
                    out.push(Slot {
                        format,
                        opcode: op,
                        mnemonic,
                        text,
                        words: words[..size / 4].to_vec(),
                    });
                    break;
                }
            }
        }
    }
    Ok(out)
}

/// `cargo xtask sweep`: print every slot per sub-target as `FORMAT OPCODE TARGETS MNEMONIC | TEXT`.
pub fn run(args: &[String]) -> Result<()> {
    if args.first().map(String::as_str) == Some("--table") {
        return draft_table();
    }
    let mut rows: BTreeMap<(&'static str, u32, String), (Vec<&str>, String)> = BTreeMap::new();
    for cpu in TARGETS {
        for s in sweep(cpu)? {
            let e = rows
                .entry((s.format, s.opcode, s.mnemonic.clone()))
                .or_insert((Vec::new(), s.text.clone()));
            e.0.push(cpu);
        }
    }
    for ((format, op, mnemonic), (cpus, text)) in rows {
        let t = if cpus.len() == 3 {
            "gfx10".to_string()
        } else {
            cpus.join(",")
        };
        println!("{format:<8} 0x{op:03x} {t:<16} {mnemonic:<28} | {text}");
    }
    Ok(())
}

/// The register numbers the templates put in each field, per format: a printed register names its field.
fn field_of(format: &str, file: char, first: u32) -> Option<&'static str> {
    Some(match (format, file, first) {
        ("SOP2" | "SOP1" | "SOPK", 's', 4) => "sdst",
        ("SOP2" | "SOP1" | "SOPC", 's', 8) => "ssrc0",
        ("SOP2" | "SOPC", 's', 12) => "ssrc1",
        ("SMEM", 's', 4) => "sdata",
        ("SMEM", 's', 8) => "sbase",
        ("VOP1" | "VOP2" | "VOP3" | "VOP3P", 'v', 4) => "vdst",
        ("VOP3" | "VOP3P", 's', 4) => "vdst",
        ("VOP3", 's', 6) => "sdst",
        ("VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3P", 'v' | 's', 8) => "src0",
        ("VOP2" | "VOPC", 'v', 12) => "vsrc1",
        ("VOP3" | "VOP3P", 'v' | 's', 12) => "src1",
        ("VOP3" | "VOP3P", 'v' | 's', 16) => "src2",
        ("DS", 'v', 4) => "vdst",
        ("DS", 'v', 8) => "addr",
        ("DS", 'v', 12) => "data0",
        ("DS", 'v', 16) => "data1",
        ("FLAT" | "GLOBAL" | "SCRATCH", 'v', 4) => "vdst",
        ("FLAT" | "GLOBAL" | "SCRATCH", 'v', 8) => "addr",
        ("FLAT" | "GLOBAL" | "SCRATCH", 'v', 12) => "data",
        ("FLAT" | "GLOBAL" | "SCRATCH", 's', 4) => "saddr",
        ("MUBUF" | "MTBUF" | "MIMG", 'v', 4) => "vdata",
        ("MUBUF" | "MTBUF" | "MIMG", 'v', 8) => "vaddr",
        ("MUBUF" | "MTBUF" | "MIMG", 's', 8) => "srsrc",
        ("MIMG", 's', 12) => "ssamp",
        ("VINTRP", 'v', 4) => "vdst",
        ("VINTRP", 'v', 8) => "vsrc",
        _ => return None,
    })
}

/// Splits LLVM's operand text at top-level commas.
pub fn split_operands(text: &str) -> (String, Vec<String>) {
    let text = text.trim();
    let (mnemonic, rest) = text.split_once(' ').unwrap_or((text, ""));
    let mut ops = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in rest.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                ops.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        ops.push(cur.trim().to_string());
    }
    (mnemonic.to_string(), ops)
}

/// Parses `v4`, `s[8:9]`, `v[12:15]` into (file, first, count).
fn parse_reg(tok: &str) -> Option<(char, u32, u32)> {
    let file = tok.chars().next()?;
    if file != 'v' && file != 's' {
        return None;
    }
    let rest = &tok[1..];
    if let Some(r) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (a, b) = r.split_once(':')?;
        let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
        Some((file, a, b - a + 1))
    } else {
        Some((file, rest.parse().ok()?, 1))
    }
}

/// The literal class of a source field: how LLVM prints a literal there. `f16`/`i16` (16 bits, float or
/// integer inline constants), `b32`, `f64`/`b64` (64-bit operand, float or integer literal), `p16` (packed).
fn literal_class(
    d: &Disassembler,
    format: &str,
    words: &[u32],
    field: &str,
    pos: usize,
) -> Option<String> {
    let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
    let with = |lit: u32, inline: Option<u32>| -> Option<String> {
        let v = inline.unwrap_or(0xff);
        let mut w = match (format, field) {
            ("VOP1" | "VOP2" | "VOPC", "src0") => vec![(w0 & !0x1ff) | v],
            ("VOP3" | "VOP3P", "src0") => vec![w0, (w1 & !0x1ff) | v],
            ("VOP3" | "VOP3P", "src1") => vec![w0, (w1 & !(0x1ff << 9)) | (v << 9)],
            ("VOP3" | "VOP3P", "src2") => vec![w0, (w1 & !(0x1ff << 18)) | (v << 18)],
            ("SOP2" | "SOP1" | "SOPC", "ssrc0") => vec![(w0 & !0xff) | v],
            ("SOP2" | "SOPC", "ssrc1") => vec![(w0 & !0xff00) | (v << 8)],
            _ => return None,
        };
        if inline.is_none() {
            w.push(lit);
        }
        match d.decode_words(&w) {
            Decoded::Ok { text, .. } => split_operands(&text).1.get(pos).cloned(),
            _ => None,
        }
    };
    let p16 = with(0x3c00, None)?;
    let p64 = with(0x3ff0_0000, None)?;
    let pt = with(0x1234_5678, None)?;
    let inl = with(0, Some(0xf2))?;
    Some(
        match (p16.as_str(), p64.as_str(), pt.as_str(), inl.as_str()) {
            (_, _, "0x12345678", _) if p64 == "1.0" => "f64",
            ("1.0", _, "0x5678", _) => "f16",
            (_, _, "0x5678", "0x3c00") => "i16",
            (_, _, "0x5678", _) => "f16",
            ("0x3c00", _, "0x12345678", "1.0") => "b32",
            (_, _, "0x12345678", "0x3c00") => "p16i",
            ("1.0", _, "0x12345678", _) => "p16",
            (_, _, "0x12345678", _) => "b32",
            _ => "unknown",
        }
        .to_string(),
    )
}

/// Describes a slot's operands as `field:kind` tokens (kind: register width in bits, or the literal class of a
/// source), other printed tokens kept as `=token`.
pub fn describe(d: &Disassembler, s: &Slot) -> Vec<String> {
    let (_, ops) = split_operands(&s.text);
    let mut out = Vec::new();
    for (pos, tok) in ops.iter().enumerate() {
        let first = tok.split_whitespace().next().unwrap_or("");
        if let Some((file, first_reg, count)) = parse_reg(first) {
            if let Some(field) = field_of(s.format, file, first_reg) {
                let lit = if matches!(field, "src0" | "src1" | "src2" | "ssrc0" | "ssrc1") {
                    literal_class(d, s.format, &s.words, field, pos)
                } else {
                    None
                };
                let bits = count * 32;
                let kind = match lit.as_deref() {
                    Some("b32") | None => format!("b{bits}"),
                    Some("f64") => "f64".to_string(),
                    Some(k) if bits == 64 && k != "f64" => "b64".to_string(),
                    Some(k) => k.to_string(),
                };
                out.push(format!("{field}:{kind}"));
                let rest = tok[first.len()..].trim();
                if !rest.is_empty() {
                    out.push(format!("={}", rest.replace(' ', "_")));
                }
                continue;
            }
        }
        out.push(format!("={}", tok.replace(' ', "_")));
    }
    out
}

/// `cargo xtask sweep --table`: a draft of opcodes.txt rows.
pub fn draft_table() -> Result<()> {
    let mut rows: BTreeMap<(&'static str, u32, String, String), Vec<&str>> = BTreeMap::new();
    for cpu in TARGETS {
        let d = Disassembler::new(cpu, "")?;
        for s in sweep(cpu)? {
            let ops = describe(&d, &s).join(" ");
            rows.entry((s.format, s.opcode, s.mnemonic.clone(), ops))
                .or_default()
                .push(cpu);
        }
    }
    for ((format, op, mnemonic, ops), cpus) in rows {
        let t = if cpus.len() == 3 {
            "gfx10".to_string()
        } else {
            cpus.join(",")
        };
        println!("{format:<8} 0x{op:03x} {t:<16} {mnemonic:<28} {ops}");
    }
    Ok(())
}
