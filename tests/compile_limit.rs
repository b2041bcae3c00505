//! The module-size limit of a device compile (issue 31, decision D164): `translate` and `run` refuse a module
//! over the limit with exit 2, a message naming the kernel, the module's size and the limit, and no output
//! file; `--max-module-words` (or `RDNA2SPV_MAX_MODULE_WORDS`) moves it, `none` lifts it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rdna2spv(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(args)
        .env_remove("RDNA2SPV_MAX_MODULE_WORDS")
        .envs(env.iter().copied())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rdna2spv-limit-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The module words `translate` reports on stderr ("-> FILE (N words, ...").
fn words_of(out: &Output) -> usize {
    let err = String::from_utf8_lossy(&out.stderr);
    let at = err.find(" words, workgroup").expect("a word count");
    err[..at]
        .rsplit('(')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[track_caller]
fn refused(out: &Output, kernel: &str, words: usize, limit: usize, file: &Path) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    let group = |n: usize| {
        let s = n.to_string();
        let mut o = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                o.push(',');
            }
            o.push(c);
        }
        o
    };
    for needle in [
        kernel.to_string(),
        format!("the module is {} words", group(words)),
        format!("over the limit of {} words", group(limit)),
        "--max-module-words".to_string(),
    ] {
        assert!(err.contains(&needle), "expected {needle:?} in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!file.exists(), "{} was written", file.display());
}

#[test]
fn translate_refuses_a_module_over_the_limit_and_writes_nothing() {
    let d = tmp("translate");
    let spv = d.join("saxpy.spv");
    let spv_s = spv.to_str().unwrap();
    let base = [
        "translate",
        "fixtures/kernels/saxpy.co",
        "--kernel",
        "saxpy",
        "-o",
        spv_s,
    ];
    // The default limit lets it through; its size is the boundary of the checks below.
    let ok = rdna2spv(&base, &[]);
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    let words = words_of(&ok);
    assert_eq!(std::fs::metadata(&spv).unwrap().len(), 4 * words as u64);
    std::fs::remove_file(&spv).unwrap();

    // One word under the module: refused, by the flag and by the environment.
    let limit = (words - 1).to_string();
    let mut args = base.to_vec();
    args.extend(["--max-module-words", &limit]);
    refused(&rdna2spv(&args, &[]), "saxpy", words, words - 1, &spv);
    refused(
        &rdna2spv(&base, &[("RDNA2SPV_MAX_MODULE_WORDS", &limit)]),
        "saxpy",
        words,
        words - 1,
        &spv,
    );
    // Exactly the module's size passes; `none` lifts the limit whatever the environment says.
    let exact = words.to_string();
    let mut args = base.to_vec();
    args.extend(["--max-module-words", &exact]);
    assert_eq!(rdna2spv(&args, &[]).status.code(), Some(0));
    std::fs::remove_file(&spv).unwrap();
    let mut args = base.to_vec();
    args.extend(["--max-module-words", "none"]);
    let out = rdna2spv(&args, &[("RDNA2SPV_MAX_MODULE_WORDS", "10")]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // A bad value is a usage error, not a panic.
    let mut args = base.to_vec();
    args.extend(["--max-module-words", "lots"]);
    let out = rdna2spv(&args, &[]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn run_refuses_before_the_device_compiles_and_writes_no_output() {
    let d = tmp("run");
    let out_dir = d.join("out");
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec![
            "run",
            "fixtures/run/saxpy.toml",
            "--backend",
            "vulkan",
            "--out",
            out_dir.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        rdna2spv(&args, env)
    };
    let ok = run(&[], &[]);
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    let err = String::from_utf8_lossy(&ok.stderr);
    // "module N words" in the run's summary line.
    let words: usize = err
        .split("module ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no module size in: {err}"));
    std::fs::remove_dir_all(&out_dir).unwrap();
    let limit = (words - 1).to_string();
    refused(
        &run(&["--max-module-words", &limit], &[]),
        "saxpy",
        words,
        words - 1,
        &out_dir.join("y.bin"),
    );
    refused(
        &run(&[], &[("RDNA2SPV_MAX_MODULE_WORDS", &limit)]),
        "saxpy",
        words,
        words - 1,
        &out_dir.join("y.bin"),
    );
    let exact = words.to_string();
    let out = run(&["--max-module-words", &exact], &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out_dir.join("y.bin").exists());
    std::fs::remove_dir_all(&d).ok();
}
