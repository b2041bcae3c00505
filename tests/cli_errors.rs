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
    assert_eq!(
        out.status.code(),
        Some(2),
        "status {:?}, stderr: {err}",
        out.status
    );
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
    // Two kernels and no --kernel: an error naming both, not a silent choice of the first.
    let multi = fixture("fixtures/kernels/multi.co");
    let spv = d.join("multi.spv");
    for cmd in ["lift", "translate"] {
        let mut args = vec![cmd.as_ref(), multi.as_os_str()];
        if cmd == "translate" {
            args.extend(["-o".as_ref(), spv.as_os_str()]);
        }
        let out = rdna2spv(&args);
        fails_with(
            &out,
            "holds 2 kernels (first, second): choose one with --kernel",
        );
    }
    assert!(
        !spv.exists(),
        "a module was written without a kernel chosen"
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

/// `saxpy.co` with `patch` written at file offset `at` (its .text is at file offset 0x900 = address 0x1900).
fn patched_saxpy(d: &Path, name: &str, at: usize, patch: &[u8]) -> PathBuf {
    let mut bytes = std::fs::read(fixture("fixtures/kernels/saxpy.co")).unwrap();
    bytes[at..at + patch.len()].copy_from_slice(patch);
    let p = d.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn saxpy_manifest(co: &Path, extra: &str) -> String {
    format!(
        "code_object = {co:?}\ngrid = [64,1,1]\nworkgroup = [64,1,1]\n{extra}[[args]]\nf32 = 1.0\n[[args]]\nbuffer = {{ size = 256 }}\n[[args]]\nbuffer = {{ size = 256 }}\noutput = \"y\"\n"
    )
}

fn run_manifest(d: &Path, name: &str, text: &str, extra: &[&str]) -> (Output, PathBuf) {
    run_manifest_env(d, name, text, extra, &[])
}

/// [`run_manifest`] with extra environment variables for the process.
fn run_manifest_env(
    d: &Path,
    name: &str,
    text: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (Output, PathBuf) {
    let m = d.join(format!("{name}.toml"));
    std::fs::write(&m, text).unwrap();
    let out_dir = d.join(format!("out-{name}"));
    let mut args: Vec<&std::ffi::OsStr> = vec!["run".as_ref(), m.as_os_str()];
    args.extend(extra.iter().map(|a| a.as_ref() as &std::ffi::OsStr));
    args.push("--out".as_ref());
    args.push(out_dir.as_os_str());
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(&args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (out, out_dir)
}

#[test]
fn broken_elf_headers_are_clear_errors() {
    let d = tmp("elf");
    let co = std::fs::read(fixture("fixtures/kernels/saxpy.co")).unwrap();
    // e_shoff (offset 0x28, 8 bytes) far past the end; a section's offset past the end; a valid ELF header
    // followed by garbage (section headers whose offsets point nowhere).
    let mut cases: Vec<Vec<u8>> = Vec::new();
    let mut b = co.clone();
    b[0x28..0x30].copy_from_slice(&0x7fff_ffff_u64.to_le_bytes());
    cases.push(b);
    let mut b = co.clone();
    let shoff = u64::from_le_bytes(b[0x28..0x30].try_into().unwrap()) as usize;
    // Section 1's sh_offset (entry + 0x18).
    b[shoff + 64 + 0x18..shoff + 64 + 0x20].copy_from_slice(&0x10_0000_u64.to_le_bytes());
    cases.push(b);
    let mut b = co[..64].to_vec();
    b.extend(std::iter::repeat_n(0xa5u8, 4096));
    cases.push(b);
    for (i, bytes) in cases.iter().enumerate() {
        let p = d.join(format!("bad{i}.co"));
        std::fs::write(&p, bytes).unwrap();
        let out = rdna2spv(&["info".as_ref(), p.as_os_str()]);
        fails_with(&out, "loading");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("truncated") || err.contains("out of range"),
            "{err}"
        );
        fails_with(
            &rdna2spv(&["disasm".as_ref(), p.as_os_str()]),
            &format!("bad{i}.co"),
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn more_bad_manifests_are_clear_errors() {
    let d = tmp("manifests2");
    let saxpy = fixture("fixtures/kernels/saxpy.co");
    let cases: Vec<(&str, &str, String)> = vec![
        ("wrong-type", "invalid type", format!("code_object = {saxpy:?}\ngrid = \"big\"\nworkgroup = [64,1,1]\n")),
        ("short-grid", "grid", format!("code_object = {saxpy:?}\ngrid = [64,1]\nworkgroup = [64,1,1]\n")),
        ("zero-workgroup", "must be positive", format!("code_object = {saxpy:?}\ngrid = [64,1,1]\nworkgroup = [0,1,1]\n")),
        ("zero-grid", "must be positive", format!("code_object = {saxpy:?}\ngrid = [64,0,1]\nworkgroup = [64,1,1]\n")),
        ("oversized", "at most 1024", format!("code_object = {saxpy:?}\ngrid = [64,1,1]\nworkgroup = [64,64,1]\n")),
        ("missing-kernel", "nope", format!("code_object = {saxpy:?}\nkernel = \"nope\"\ngrid = [64,1,1]\nworkgroup = [64,1,1]\n")),
        ("missing-co", "missing.co", "code_object = \"missing.co\"\ngrid = [64,1,1]\nworkgroup = [64,1,1]\n".into()),
        ("no-code", "code_object", "grid = [64,1,1]\nworkgroup = [64,1,1]\n".into()),
        ("too-many-args", "explicit arguments", saxpy_manifest(&saxpy, "").replace("[[args]]\nf32", "[[args]]\nu32 = 1\n[[args]]\nf32")),
        ("two-values", "exactly one", saxpy_manifest(&saxpy, "").replace("f32 = 1.0", "f32 = 1.0\nu32 = 3")),
        ("buffer-for-scalar", "argument 0", saxpy_manifest(&saxpy, "").replace("f32 = 1.0", "buffer = { size = 4 }")),
        ("bad-bits", "bits", saxpy_manifest(&saxpy, "").replace("f32 = 1.0", "bits = \"12\"")),
        ("unknown-arg-key", "unknown field `colour`", saxpy_manifest(&saxpy, "").replace("f32 = 1.0", "f32 = 1.0\ncolour = 1")),
        ("missing-buffer-file", "nothere.bin", saxpy_manifest(&saxpy, "").replace("buffer = { size = 256 }\noutput", "buffer = \"nothere.bin\"\noutput")),
    ];
    for (name, needle, text) in &cases {
        let (out, out_dir) = run_manifest(&d, name, text, &[]);
        fails_with(&out, needle);
        assert!(
            !out_dir.join("y.bin").exists(),
            "{name}: a partial output was written"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn unsupported_instructions_are_named_with_their_offset() {
    let d = tmp("unsupported");
    // global_store_dword at address 0x196c (file 0x96c) → image_sample v[0:3], v0, s[0:7], s[8:11] dmask:0xf
    // dim:1D (sampling is not lifted; storage-image loads are, D183).
    let co = patched_saxpy(
        &d,
        "image.co",
        0x96c,
        &[0x00, 0x0f, 0x80, 0xf0, 0, 0, 0x40, 0],
    );
    let (out, out_dir) = run_manifest(&d, "image", &saxpy_manifest(&co, ""), &[]);
    fails_with(&out, "unsupported instruction image_sample");
    fails_with(&out, "at saxpy+0x6c");
    assert!(!out_dir.join("y.bin").exists());
    let spv = d.join("image.spv");
    fails_with(
        &rdna2spv(&[
            "translate".as_ref(),
            co.as_os_str(),
            "-o".as_ref(),
            spv.as_os_str(),
        ]),
        "not supported",
    );
    assert!(!spv.exists(), "a partial module was written");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn runaway_loops_stop_at_the_step_budget_naming_the_pc() {
    let d = tmp("runaway");
    // s_endpgm at address 0x1974 (kernel offset 0x74) → s_branch -1: a wave that spins there forever.
    let co = patched_saxpy(&d, "spin.co", 0x974, &0xbf82_ffff_u32.to_le_bytes());
    let (out, out_dir) = run_manifest(
        &d,
        "spin",
        &saxpy_manifest(&co, "max_steps_per_wave = 10000\n"),
        &[],
    );
    fails_with(&out, "0x74");
    assert!(!out_dir.join("y.bin").exists());
    fails_with(&out, "runaway after 10000 instructions");
    // The device (lavapipe) cuts the loop at its cap; the flag names the block the wave was in.
    let (out, out_dir) = run_manifest(
        &d,
        "spin-vk",
        &saxpy_manifest(&co, ""),
        &["--backend", "vulkan"],
    );
    fails_with(&out, "a loop stopped before its exit condition");
    fails_with(&out, "in the block at pc 0x74");
    assert!(!out_dir.join("y.bin").exists());
    // A dispatch that outlives the fence timeout (a hung device) is a clear error, not a hang. Mesa's
    // shader cache is off for this run: lavapipe compiles at the first dispatch (inside the fence wait,
    // 13–45 ms cold), so the dispatch cannot finish within 1 ms; with the module cached by the run above,
    // an idle machine finished the capped loop in under 1 ms and the test raced the timeout.
    let (out, out_dir) = run_manifest_env(
        &d,
        "spin-timeout",
        &saxpy_manifest(&co, ""),
        &[
            "--backend",
            "vulkan",
            "--profile",
            "portable",
            "--timeout-ms",
            "1",
        ],
        &[("MESA_SHADER_CACHE_DISABLE", "true")],
    );
    fails_with(&out, "running saxpy on the Vulkan device");
    fails_with(&out, "did not finish within 1ms");
    assert!(!out_dir.join("y.bin").exists());
    let _ = std::fs::remove_dir_all(&d);
}
