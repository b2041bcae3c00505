//! Calls the translator cannot resolve are refused before anything runs, naming the instruction (D099):
//! a call through a function pointer (fixtures/kernels/calls.cl, kernel `fptr`, built by clang-19) and a
//! call in an unlinked object, whose offset is still a pending relocation (fixtures/kernels/multi_rel.o).
//! The calls that resolve run in tests/fixtures_run.rs (calls_*, multi_*).

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// `rdna2spv translate` and `run --backend both`-free checks: exit 2, the message, and no output file.
fn refused(co: &str, kernel: &str, needles: &[&str]) {
    let out_dir =
        std::env::temp_dir().join(format!("rdna2spv-calls-{}-{kernel}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let spv = out_dir.join("k.spv");
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["translate", "--kernel", kernel, "-o"])
        .arg(&spv)
        .arg(fixture(co))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for n in needles {
        assert!(err.contains(n), "expected {n:?} in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!spv.exists(), "a refused kernel left an output file");
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn a_call_through_a_function_pointer_is_refused() {
    refused(
        "fixtures/kernels/calls.co",
        "fptr",
        &[
            "unsupported instruction s_swappc_b64 s[30:31], s[6:7] at fptr+0xc0",
            "the call target is not known at translation time",
        ],
    );
}

#[test]
fn a_call_in_an_unlinked_object_is_refused() {
    refused(
        "fixtures/kernels/multi_rel.o",
        "first",
        &[
            "unsupported instruction s_swappc_b64 s[30:31], s[4:5] at first+0x6c",
            "is not the entry of a function of this code object",
        ],
    );
}
