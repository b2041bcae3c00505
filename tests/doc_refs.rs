//! The documents that map the code cannot silently drift from it (decision D169).
//!
//! docs/lane-mapping.md, docs/architecture.md and decisions/README.md name tests, source files and
//! decision records. This test reads them and fails, naming the document and the reference, when
//! * a `path.rs::function` reference names a file that does not exist or a function it does not define
//!   (`fn function(`);
//! * a repository path (`tests/…`, `crates/…`, `docs/…`, `decisions/…`, `fixtures/…`, `xtask/…`, `src/…`)
//!   does not exist;
//! * a decision number `Dnnn` has no record `decisions/Dnnn-*.md`;
//! * decisions/README.md does not index every record, links a file that does not exist, or lists a record
//!   as superseded while the record's own text does not say so.
//!
//! It only reads files (no build products, no device): well under a second.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const DOCS: [&str; 3] = [
    "docs/lane-mapping.md",
    "docs/architecture.md",
    "decisions/README.md",
];

/// Top-level folders a path reference may start with.
const ROOTS: [&str; 7] = [
    "tests/",
    "crates/",
    "docs/",
    "decisions/",
    "fixtures/",
    "xtask/",
    "src/",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.' | '-')
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every maximal run of path characters in `text`, with the identifier after a directly following
/// `::` (if any).
fn tokens(text: &str) -> Vec<(String, Option<String>)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !is_path_char(chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && is_path_char(chars[i]) {
            i += 1;
        }
        let tok: String = chars[start..i].iter().collect();
        let tok = tok.trim_end_matches(['.', '-']).to_string();
        let mut func = None;
        if i + 1 < chars.len() && chars[i] == ':' && chars[i + 1] == ':' {
            let s = i + 2;
            let mut e = s;
            while e < chars.len() && is_ident_char(chars[e]) {
                e += 1;
            }
            if e > s {
                func = Some(chars[s..e].iter().collect());
            }
            i = e;
        }
        out.push((tok, func));
    }
    out
}

/// The decision numbers `Dnnn` (three digits, not part of a longer word) in `text`.
fn decision_numbers(text: &str) -> BTreeSet<String> {
    let b = text.as_bytes();
    let mut out = BTreeSet::new();
    for i in 0..b.len() {
        if b[i] != b'D' || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
            continue;
        }
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        let next = b.get(i + 1 + digits).copied().unwrap_or(b' ');
        if digits == 3 && !next.is_ascii_alphanumeric() && next != b'_' {
            out.insert(text[i..i + 4].to_string());
        }
    }
    out
}

/// `Dnnn` → the file name of its record.
fn records() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(root().join("decisions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('D') && n.ends_with(".md") && n.as_bytes().get(4) == Some(&b'-'))
        .map(|n| (n[..4].to_string(), n))
        .collect();
    v.sort();
    v
}

/// Every problem with the references of one document.
fn check_doc(doc: &str, text: &str, records: &[(String, String)]) -> Vec<String> {
    let mut bad = Vec::new();
    for (tok, func) in tokens(text) {
        if !ROOTS.iter().any(|r| tok.starts_with(r)) {
            continue;
        }
        let path = root().join(&tok);
        if !path.exists() {
            bad.push(format!("{doc}: {tok} does not exist"));
            continue;
        }
        if let Some(f) = func {
            let src = read(&path);
            if !src.contains(&format!("fn {f}(")) {
                bad.push(format!("{doc}: {tok} defines no fn {f}"));
            }
        }
    }
    for d in decision_numbers(text) {
        if !records.iter().any(|(n, _)| *n == d) {
            bad.push(format!("{doc}: {d} has no record in decisions/"));
        }
    }
    bad
}

/// Problems of the index: a record it does not list, a link to a missing file, a superseded status the
/// record itself does not state.
fn check_index(index: &str, records: &[(String, String)]) -> Vec<String> {
    let mut bad = Vec::new();
    for (d, file) in records {
        if !index.contains(&format!("[{d}]({file})")) {
            bad.push(format!(
                "decisions/README.md: {file} is not indexed (add a row `| [{d}]({file}) | … |`)"
            ));
        }
    }
    for line in index.lines().filter(|l| l.starts_with("| [D")) {
        let Some(open) = line.find("](") else {
            continue;
        };
        let Some(close) = line[open..].find(')') else {
            continue;
        };
        let file = &line[open + 2..open + close];
        let path = root().join("decisions").join(file);
        if !path.exists() {
            bad.push(format!(
                "decisions/README.md: links {file}, which does not exist"
            ));
            continue;
        }
        let status = line.rsplit('|').nth(1).unwrap_or("").to_lowercase();
        if let Some(at) = status.find("superseded by ") {
            let by: String = status[at + 14..]
                .chars()
                .take(4)
                .collect::<String>()
                .to_uppercase();
            let own = read(&path);
            if !own.to_lowercase().contains("superseded") || !own.contains(&by) {
                bad.push(format!(
                    "decisions/{file}: indexed as superseded by {by}, but its own text does not say so"
                ));
            }
        }
    }
    bad
}

#[test]
fn documents_name_only_what_exists() {
    let records = records();
    assert!(records.len() > 100, "decisions/ looks empty");
    let mut bad = Vec::new();
    for doc in DOCS {
        bad.extend(check_doc(doc, &read(&root().join(doc)), &records));
    }
    bad.extend(check_index(
        &read(&root().join("decisions/README.md")),
        &records,
    ));
    assert!(bad.is_empty(), "stale references:\n{}", bad.join("\n"));
}

/// The checker itself catches what it is for (so a broken parser cannot pass everything).
#[test]
fn the_checker_catches_missing_names() {
    let records = records();
    let text =
        "see `tests/lane_meet.rs::a_lone_wave_meets_at_once`, `tests/lane_meet.rs::no_such_test`, \
                tests/no_such_file.rs, D082 and D000.";
    let bad = check_doc("t", text, &records);
    assert_eq!(
        bad,
        vec![
            "t: tests/lane_meet.rs defines no fn no_such_test".to_string(),
            "t: tests/no_such_file.rs does not exist".to_string(),
            "t: D000 has no record in decisions/".to_string(),
        ]
    );
    let index = "| [D001](D001-opcode-table-from-llvm-sweep.md) | x | superseded by D126 |\n";
    let bad = check_index(index, &records[..0]);
    assert_eq!(
        bad,
        vec![
            "decisions/D001-opcode-table-from-llvm-sweep.md: indexed as superseded by D126, but its own text does not say so"
                .to_string()
        ]
    );
}
