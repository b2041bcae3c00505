//! Fixture discovery and parsers for the golden outputs of LLVM's own tools, which are the
//! independent oracle for the loader:
//!
//! * `<stem>.readelf.txt`: `llvm-readelf-19 --file-header --section-headers --symbols --notes`
//! * `<stem>.s`: `clang-19 -S` (or `hipcc -S`) with the same flags, whose `.amdhsa_*`
//!   directives give every kernel-descriptor field
//! * `<stem>.objdump.txt`: `llvm-objdump-19 -d --mcpu=gfx1030`
//!
//! All are written by `cargo xtask fixtures` (xtask/src/fixtures.rs).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/kernels")
}

/// Every ELF fixture that has LLVM goldens (`<stem>.readelf.txt`), as (stem, file name): the
/// linked `.co` code objects and the unlinked `.o` object, sorted.
pub fn golden_objects() -> Vec<(String, String)> {
    let names: Vec<String> = std::fs::read_dir(kernels_dir())
        .expect("fixtures/kernels exists")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    let mut out: Vec<(String, String)> = names
        .iter()
        .filter_map(|n| n.strip_suffix(".readelf.txt"))
        .map(|stem| {
            let file = [".co", ".o"]
                .iter()
                .map(|ext| format!("{stem}{ext}"))
                .find(|f| names.contains(f))
                .unwrap_or_else(|| panic!("no binary for {stem}.readelf.txt"));
            (stem.to_string(), file)
        })
        .collect();
    out.sort();
    assert!(
        out.len() >= 10,
        "expected the fixture code objects, found {out:?}"
    );
    out
}

/// Every fixture file the loader accepts (code objects, bundles, host objects), as (name, bytes).
pub fn all_fixture_files() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(kernels_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.ends_with(".co") || n.ends_with(".bundle") || n.ends_with(".o"))
        .map(|n| {
            let bytes = std::fs::read(kernels_dir().join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    out.sort();
    out
}

pub fn read(name: &str) -> Vec<u8> {
    std::fs::read(kernels_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub fn read_text(name: &str) -> String {
    String::from_utf8(read(name)).unwrap()
}

/// What `llvm-readelf-19` printed for one file.
#[derive(Debug, Default)]
pub struct Readelf {
    pub abi_version: u8,
    pub e_flags: u32,
    pub flags_text: String,
    /// (index, name, address, offset, size) of every section but the null one.
    pub sections: Vec<(usize, String, u64, u64, u64)>,
    /// (value, size, type, name) of every named symbol of every table.
    pub symbols: Vec<(u64, u64, String, String)>,
    /// The `--notes` YAML text.
    pub notes_yaml: String,
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("hex {s:?}"))
}

pub fn parse_readelf(text: &str) -> Readelf {
    let mut r = Readelf::default();
    let mut in_yaml = false;
    let mut in_symbols = false;
    for line in text.lines() {
        if in_yaml {
            if line == "..." {
                in_yaml = false;
            } else {
                r.notes_yaml.push_str(line);
                r.notes_yaml.push('\n');
            }
            continue;
        }
        let t = line.trim();
        if let Some(v) = t.strip_prefix("ABI Version:") {
            r.abi_version = v.trim().parse().unwrap();
        } else if let Some(v) = t.strip_prefix("Flags:") {
            let v = v.trim();
            let (num, rest) = v.split_once(',').unwrap_or((v, ""));
            r.e_flags = hex(num) as u32;
            r.flags_text = rest.trim().to_string();
        } else if t == "---" {
            in_yaml = true;
        } else if t.starts_with("Symbol table") {
            in_symbols = true;
        } else if t.is_empty() || t.starts_with("Displaying notes") {
            in_symbols = false;
        } else if let Some(rest) = t.strip_prefix('[') {
            // "[ 7] .text  PROGBITS  0000000000001900 000900 000140 00  AX  0   0 256"
            let (idx, rest) = rest.split_once(']').unwrap();
            let Ok(index) = idx.trim().parse::<usize>() else {
                continue;
            };
            let f: Vec<&str> = rest.split_whitespace().collect();
            if index == 0 || f.len() < 5 {
                continue;
            }
            r.sections
                .push((index, f[0].to_string(), hex(f[2]), hex(f[3]), hex(f[4])));
        } else if in_symbols {
            // "3: 0000000000001900   120 FUNC    GLOBAL PROTECTED   7 saxpy"
            let f: Vec<&str> = t.split_whitespace().collect();
            if f.len() == 8 && f[0].trim_end_matches(':').parse::<u64>().is_ok() {
                let size = if let Some(h) = f[2].strip_prefix("0x") {
                    hex(h)
                } else {
                    f[2].parse().unwrap()
                };
                r.symbols
                    .push((hex(f[1]), size, f[3].to_string(), f[7].to_string()));
            }
        }
    }
    r
}

/// `.amdhsa_*` directives per kernel from a `.s` file, plus the file-level
/// `.amdhsa_code_object_version` (under the key `""`).
pub fn parse_amdhsa_directives(text: &str) -> BTreeMap<String, BTreeMap<String, i64>> {
    let mut out: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix(".amdhsa_kernel ") {
            current = Some(name.trim().to_string());
            out.entry(name.trim().to_string()).or_default();
        } else if t == ".end_amdhsa_kernel" {
            current = None;
        } else if let Some(rest) = t.strip_prefix(".amdhsa_") {
            let mut f = rest.split_whitespace();
            let (Some(key), Some(value)) = (f.next(), f.next()) else {
                continue;
            };
            let Ok(value) = value.parse::<i64>() else {
                continue;
            };
            let kernel = current.clone().unwrap_or_default();
            out.entry(kernel)
                .or_default()
                .insert(key.to_string(), value);
        }
    }
    out
}

/// A symbol label of llvm-objdump: (address, name).
pub type Label = (u64, String);
/// An instruction line of llvm-objdump: (address, encoding words).
pub type Insn = (u64, Vec<u32>);

/// The labels and instruction lines of an llvm-objdump listing.
pub fn parse_objdump(text: &str) -> (Vec<Label>, Vec<Insn>) {
    let mut labels = Vec::new();
    let mut insns = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_suffix(">:") {
            if let Some((addr, name)) = rest.split_once(" <") {
                labels.push((hex(addr), name.to_string()));
            }
            continue;
        }
        // "	s_clause 0x1          // 000000001900: BFA10001"
        let Some((_, comment)) = line.rsplit_once("// ") else {
            continue;
        };
        let Some((addr, words)) = comment.split_once(": ") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        let words: Vec<u32> = words
            .split_whitespace()
            .take_while(|w| w.len() == 8 && w.chars().all(|c| c.is_ascii_hexdigit()))
            .map(|w| u32::from_str_radix(w, 16).unwrap())
            .collect();
        insns.push((addr, words));
    }
    (labels, insns)
}
