//! `cargo xtask codegen [--check]`: crates/isa/opcodes.txt → crates/isa/src/generated/table.rs.
//!
//! `--check` regenerates in memory and fails if the checked-in file differs (CI runs it).

use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub const FORMATS: [&str; 20] = [
    "SOP2", "SOPK", "SOP1", "SOPC", "SOPP", "SMEM", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3P", "DS",
    "FLAT", "GLOBAL", "SCRATCH", "MUBUF", "MTBUF", "MIMG", "EXP", "VINTRP",
];
pub const CPUS: [&str; 3] = ["gfx1010", "gfx1013", "gfx1030"];

#[derive(Debug, Clone)]
pub struct Row {
    pub line: usize,
    pub format: String,
    pub opcode: u32,
    pub targets: Vec<String>,
    pub mnemonic: String,
    pub operands: Vec<String>,
    /// `+flag` tokens (vector-ALU modifiers and variants), see the table header.
    pub flags: Vec<String>,
    pub note: String,
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn parse_table(text: &str) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (body, note) = match line.split_once(';') {
            Some((b, n)) => (b, n.trim().to_string()),
            None => (line, String::new()),
        };
        let mut t = body.split_whitespace();
        let ctx = || format!("opcodes.txt:{}: {raw}", i + 1);
        let format = t.next().with_context(ctx)?.to_string();
        if !FORMATS.contains(&format.as_str()) {
            bail!("{}: unknown format {format}", ctx());
        }
        let op = t.next().with_context(ctx)?;
        let opcode = u32::from_str_radix(op.trim_start_matches("0x"), 16).with_context(ctx)?;
        let targets: Vec<String> = match t.next().with_context(ctx)? {
            "gfx10" => CPUS.iter().map(|s| s.to_string()).collect(),
            list => list.split(',').map(str::to_string).collect(),
        };
        for c in &targets {
            if !CPUS.contains(&c.as_str()) {
                bail!("{}: unknown target {c}", ctx());
            }
        }
        let mnemonic = t.next().with_context(ctx)?.to_string();
        let (flags, operands): (Vec<String>, Vec<String>) =
            t.map(str::to_string).partition(|x| is_mods_token(x));
        for f in &flags {
            mods_field(f).with_context(ctx)?;
        }
        rows.push(Row {
            line: i + 1,
            format,
            opcode,
            targets,
            mnemonic,
            operands,
            flags,
            note,
        });
    }
    // One mnemonic per (format, opcode, target).
    let mut seen = BTreeMap::new();
    for r in &rows {
        for c in &r.targets {
            if let Some(prev) = seen.insert((r.format.clone(), r.opcode, c.clone()), r.line) {
                bail!(
                    "opcodes.txt:{}: slot {} 0x{:x} for {c} already defined at line {prev}",
                    r.line,
                    r.format,
                    r.opcode
                );
            }
        }
    }
    Ok(rows)
}

/// Vector-ALU modifier tokens become the row's `Mods`; every other `+flag` token (memory formats) stays with
/// the operands and becomes a `Flag`.
fn is_mods_token(t: &str) -> bool {
    const MODS: [&str; 11] = [
        "abs", "neg", "neghi", "opsel", "opselhi", "clamp", "omod", "dpp", "dpp8", "sdwa", "ignore",
    ];
    t.strip_prefix('+')
        .is_some_and(|f| MODS.contains(&f.split(':').next().unwrap_or("")))
}

/// One `+flag` token as a `Mods` field initialiser.
fn mods_field(flag: &str) -> Result<String> {
    let (name, val) = flag[1..].split_once(':').unwrap_or((&flag[1..], ""));
    let hex = |v: &str| u32::from_str_radix(v, 16).with_context(|| format!("bad hex in {flag}"));
    Ok(match name {
        "abs" => format!("abs: 0x{:x}", hex(val)?),
        "neg" => format!("neg: 0x{:x}", hex(val)?),
        "neghi" => format!("neg_hi: 0x{:x}", hex(val)?),
        "opsel" => format!("opsel: 0x{:x}", hex(val)?),
        "opselhi" => format!("opsel_hi: 0x{:x}", hex(val)?),
        "clamp" => "clamp: true".into(),
        "omod" => "omod: true".into(),
        "dpp" => {
            let (a, p) = val.split_once('/').context("+dpp:ACCEPTED/PRINTED")?;
            format!("dpp: Some([0x{:x}, 0x{:x}])", hex(a)?, hex(p)?)
        }
        "dpp8" => "dpp8: true".into(),
        "sdwa" => {
            let (a, p) = val.split_once('/').context("+sdwa:ACCEPTED/PRINTED")?;
            format!("sdwa: Some([0x{:x}, 0x{:x}])", hex(a)?, hex(p)?)
        }
        "ignore" => {
            let (a, b) = val.split_once(',').context("+ignore:W0,W1")?;
            format!("ignore: [0x{:x}, 0x{:x}]", hex(a)?, hex(b)?)
        }
        _ => bail!("unknown flag {flag}"),
    })
}

/// The instruction an encoding performs: the mnemonic without its encoding suffix.
pub fn opcode_name(mnemonic: &str) -> String {
    let base = mnemonic
        .strip_suffix("_e32")
        .or_else(|| mnemonic.strip_suffix("_e64"))
        .unwrap_or(mnemonic);
    base.to_ascii_uppercase()
}

fn camel(s: &str) -> String {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            let first = c.next().unwrap().to_ascii_uppercase();
            std::iter::once(first).chain(c).collect::<String>()
        })
        .collect()
}

pub fn generate(rows: &[Row]) -> String {
    let mut o = String::new();
    let w = &mut o;
    writeln!(
        w,
        "// @generated by `cargo xtask codegen` from crates/isa/opcodes.txt. DO NOT EDIT."
    )
    .unwrap();

    writeln!(
        w,
        "use crate::table::{{Encoding, Format, Mods, Operand, Targets}};\n"
    )
    .unwrap();

    // Opcode enum.
    let names: BTreeSet<String> = rows.iter().map(|r| opcode_name(&r.mnemonic)).collect();
    writeln!(
        w,
        "/// Every instruction of the table (one per operation, whatever its encodings)."
    )
    .unwrap();
    writeln!(
        w,
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\n#[repr(u16)]"
    )
    .unwrap();
    writeln!(w, "pub enum Opcode {{").unwrap();
    for n in &names {
        writeln!(w, "    {n},").unwrap();
    }
    writeln!(w, "}}\n").unwrap();
    writeln!(w, "impl Opcode {{").unwrap();
    writeln!(
        w,
        "    /// The instruction's name in lower case, without an encoding suffix."
    )
    .unwrap();
    writeln!(
        w,
        "    pub const fn name(self) -> &'static str {{\n        match self {{"
    )
    .unwrap();
    for n in &names {
        writeln!(
            w,
            "            Opcode::{n} => \"{}\",",
            n.to_ascii_lowercase()
        )
        .unwrap();
    }
    writeln!(w, "        }}\n    }}\n}}\n").unwrap();

    // Field and kind enums from the tokens in use.
    let mut fields = BTreeSet::new();
    // Every width the printer knows is generated, used by a row or not (print::kind_regs matches them all).
    let mut kinds: BTreeSet<String> = [
        "b32", "b64", "b96", "b128", "b160", "b192", "b256", "b512", "f16", "i16", "f64", "p16",
    ]
    .iter()
    .map(|k| k.to_string())
    .collect();
    for r in rows {
        for t in &r.operands {
            if t.starts_with('+') {
                continue;
            }
            if let Some((f, k)) = t.split_once(':').filter(|_| !t.starts_with('=')) {
                fields.insert(f.to_string());
                kinds.insert(k.to_string());
            }
        }
    }
    writeln!(w, "/// An encoding field an operand is printed from.").unwrap();
    writeln!(
        w,
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum Field {{"
    )
    .unwrap();
    for f in &fields {
        writeln!(w, "    {},", camel(f)).unwrap();
    }
    writeln!(w, "}}\n").unwrap();
    writeln!(w, "/// An operand's width and literal class.").unwrap();
    writeln!(
        w,
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum Kind {{"
    )
    .unwrap();
    for k in &kinds {
        writeln!(w, "    {},", camel(k)).unwrap();
    }
    writeln!(w, "}}\n").unwrap();

    // Per-row facts (`+flag` tokens).
    let flags: BTreeSet<String> = rows
        .iter()
        .flat_map(|r| r.operands.iter())
        .filter_map(|t| t.strip_prefix('+'))
        .map(str::to_string)
        .collect();
    writeln!(
        w,
        "/// A per-row fact from a `+flag` token of the table (see the header of opcodes.txt)."
    )
    .unwrap();
    writeln!(
        w,
        "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum Flag {{"
    )
    .unwrap();
    for f in &flags {
        writeln!(w, "    {},", camel(f)).unwrap();
    }
    writeln!(w, "}}\n").unwrap();

    // Encodings, sorted by (format, opcode).
    let mut sorted: Vec<&Row> = rows.iter().collect();
    sorted.sort_by_key(|r| {
        (
            FORMATS.iter().position(|f| *f == r.format).unwrap(),
            r.opcode,
            r.line,
        )
    });
    writeln!(w, "/// Every encoding slot, sorted by format and opcode.").unwrap();
    writeln!(w, "pub static ENCODINGS: [Encoding; {}] = [", sorted.len()).unwrap();
    for r in &sorted {
        let mut mask = 0u8;
        for c in &r.targets {
            mask |= 1 << CPUS.iter().position(|x| x == c).unwrap();
        }
        let ops: Vec<String> = r
            .operands
            .iter()
            .filter(|t| !t.starts_with('+'))
            .map(|t| match t.strip_prefix('=') {
                Some(text) => format!("Operand::Fixed({:?})", text.replace('_', " ")),
                None => {
                    let (f, k) = t.split_once(':').unwrap();
                    format!("Operand::Field(Field::{}, Kind::{})", camel(f), camel(k))
                }
            })
            .collect();
        let row_flags: Vec<String> = r
            .operands
            .iter()
            .filter_map(|t| t.strip_prefix('+'))
            .map(|f| format!("Flag::{}", camel(f)))
            .collect();
        let mods = if r.flags.is_empty() {
            "Mods::NONE".to_string()
        } else {
            let f: Vec<String> = r.flags.iter().map(|f| mods_field(f).unwrap()).collect();
            format!("Mods {{ {}, ..Mods::NONE }}", f.join(", "))
        };
        writeln!(
            w,
            "    Encoding {{ format: Format::{}, op: 0x{:x}, targets: Targets({mask}), opcode: Opcode::{}, mnemonic: {:?}, operands: &[{}], flags: &[{}], mods: {}, note: {:?} }},",
            r.format,
            r.opcode,
            opcode_name(&r.mnemonic),
            r.mnemonic,
            ops.join(", "),
            row_flags.join(", "),
            mods,
            r.note
        )
        .unwrap();
    }
    writeln!(w, "];").unwrap();
    o
}

pub fn run(args: &[String]) -> Result<()> {
    let root = root();
    let table = std::fs::read_to_string(root.join("crates/isa/opcodes.txt"))?;
    let rows = parse_table(&table)?;
    let out = generate(&rows);
    let path = root.join("crates/isa/src/generated/table.rs");
    if args.iter().any(|a| a == "--check") {
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if old != out {
            bail!(
                "{} is stale: run `cargo xtask codegen` and commit the result",
                path.display()
            );
        }
        println!(
            "codegen: {} is up to date ({} encodings)",
            path.display(),
            rows.len()
        );
        return Ok(());
    }
    std::fs::create_dir_all(path.parent().unwrap())?;
    std::fs::write(&path, out)?;
    println!(
        "codegen: wrote {} ({} encodings)",
        path.display(),
        rows.len()
    );
    Ok(())
}
