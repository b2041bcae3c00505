//! The executed-encoding log (issue 28, decision D159): with `RDNA2SPV_COVERAGE_LOG=DIR` set, every program
//! dispatched on the device appends, once per (test, row, variant) and process, a line
//! `BINARY\tTEST\tFORMAT\tOP\tMNEMONIC\tVARIANT` to `DIR/<pid>.log`: the test binary (its file stem without
//! cargo's hash), the test (libtest names each test's thread after it), and the table row and variant (plain,
//! DPP16, DPP8, SDWA) of every instruction of the lifted program — the instructions reachable from the
//! kernel's entry, which the lowered module contains. A test that runs the `rdna2spv` binary can name
//! itself for the child with `RDNA2SPV_COVERAGE_TEST=BINARY::TEST`. `cargo xtask coverage` reads these logs: a row is
//! device-tested only when a test that ran logged it and that test's `// coverage:` marker names it.

use rdna2spv_ir::Program;
use std::collections::HashSet;
use std::io::Write as _;
use std::sync::Mutex;

static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Appends `program`'s rows to the log when `RDNA2SPV_COVERAGE_LOG` names a directory; errors are reported
/// on stderr and otherwise ignored (the log is evidence for the report, not part of the run).
pub(crate) fn record(program: &Program) {
    let Some(dir) = std::env::var_os("RDNA2SPV_COVERAGE_LOG") else {
        return;
    };
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    // cargo names test binaries `NAME-<16 hex digits>`.
    let binary = match binary.rsplit_once('-') {
        Some((stem, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            stem.to_string()
        }
        _ => binary,
    };
    let mut test = std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_string();
    // A test that runs the `rdna2spv` binary names itself for the child: `BINARY::TEST`.
    let mut binary = binary;
    if let Some(t) = std::env::var("RDNA2SPV_COVERAGE_TEST").ok().and_then(|t| {
        t.split_once("::")
            .map(|(b, t)| (b.to_string(), t.to_string()))
    }) {
        (binary, test) = t;
    }
    let mut lines = String::new();
    {
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        let seen = seen.get_or_insert_with(HashSet::new);
        for (_, b) in program.blocks.iter() {
            for i in &b.insts {
                let Some((e, v)) = i.encoding else { continue };
                let line = format!(
                    "{binary}\t{test}\t{:?}\t{:#05x}\t{}\t{v:?}\n",
                    e.format, e.op, e.mnemonic
                );
                if seen.insert(line.clone()) {
                    lines.push_str(&line);
                }
            }
        }
    }
    if lines.is_empty() {
        return;
    }
    let dir = std::path::PathBuf::from(dir);
    let path = dir.join(format!("{}.log", std::process::id()));
    // One write per dispatch, appended: lines of parallel tests do not interleave.
    let r = std::fs::create_dir_all(&dir).and_then(|_| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?
            .write_all(lines.as_bytes())
    });
    if let Err(e) = r {
        eprintln!("rdna2spv: coverage log {}: {e}", path.display());
    }
}
