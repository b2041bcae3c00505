//! The error contract of the CLI: bad input gives exit code 2, a message that names the problem, no panic
//! and no output file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rdna2spv(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rdna2spv-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fixture(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

#[track_caller]
fn fails_with(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
}

#[test]
fn bad_files_are_clear_errors() {
    let d = tmp("files");
    let empty = d.join("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    fails_with(&rdna2spv(&["disasm".as_ref(), empty.as_os_str()]), "empty");
    fails_with(
        &rdna2spv(&["info".as_ref(), empty.as_os_str()]),
        "not an ELF",
    );
    let garbage = d.join("garbage.co");
    let mut bytes = std::fs::read(fixture("fixtures/kernels/saxpy.co")).unwrap();
    bytes.truncate(200);
    std::fs::write(&garbage, &bytes).unwrap();
    fails_with(
        &rdna2spv(&["info".as_ref(), garbage.as_os_str()]),
        "loading",
    );
    let co = fixture("fixtures/kernels/saxpy.co");
    fails_with(
        &rdna2spv(&[
            "disasm".as_ref(),
            "--kernel".as_ref(),
            "nope".as_ref(),
            co.as_os_str(),
        ]),
        "nope",
    );
    fails_with(
        &rdna2spv(&["info".as_ref(), d.join("missing.co").as_os_str()]),
        "missing.co",
    );
    // Truncated raw words still list every word, the last as <invalid>.
    let raw = d.join("words.bin");
    std::fs::write(&raw, [0x00, 0x00, 0x4b, 0xd5, 0x01]).unwrap();
    let out = rdna2spv(&["disasm".as_ref(), "--raw".as_ref(), raw.as_os_str()]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("<invalid>"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_manifests_are_clear_errors_and_write_nothing() {
    let d = tmp("manifests");
    let out_dir = d.join("out");
    let saxpy = fixture("fixtures/kernels/saxpy.co");
    let cases: [(&str, String); 5] = [
        ("unknown field `colour`", format!("code_object = {saxpy:?}\ngrid = [64,1,1]\nworkgroup = [64,1,1]\ncolour = 1\n")),
        ("workgroup", format!("code_object = {saxpy:?}\ngrid = [64,1,1]\nworkgroup = [2048,1,1]\n")),
        ("explicit arguments", format!("code_object = {saxpy:?}\ngrid = [64,1,1]\nworkgroup = [64,1,1]\n")),
        (
            "the kernel takes 4 bytes",
            format!(
                "code_object = {saxpy:?}\ngrid = [64,1,1]\nworkgroup = [64,1,1]\n[[args]]\nf64 = 1.0\n[[args]]\nbuffer = {{ size = 256 }}\n[[args]]\nbuffer = {{ size = 256 }}\noutput = \"y\"\n"
            ),
        ),
        (
            "outside every allocation",
            format!(
                "code_object = {saxpy:?}\ngrid = [1024,1,1]\nworkgroup = [64,1,1]\n[[args]]\nf32 = 1.0\n[[args]]\nbuffer = {{ size = 256 }}\n[[args]]\nbuffer = {{ size = 256 }}\noutput = \"y\"\n"
            ),
        ),
    ];
    for (i, (needle, text)) in cases.iter().enumerate() {
        let m = d.join(format!("m{i}.toml"));
        std::fs::write(&m, text).unwrap();
        let out = rdna2spv(&[
            "run".as_ref(),
            m.as_os_str(),
            "--out".as_ref(),
            out_dir.as_os_str(),
        ]);
        fails_with(&out, needle);
        assert!(
            !out_dir.join("y.bin").exists(),
            "{needle}: a partial output was written"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}
