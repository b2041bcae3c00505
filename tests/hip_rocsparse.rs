//! Debian's librocsparse0 5.3, unmodified, through rdna2spv's HIP runtime (decision D156): the C program
//! fixtures/hip_programs/rocsparse.c opens the library with dlopen and checks axpyi, doti, nnz and csrmv (with
//! its analysis step) in f32 and f64 against references computed in the program from inputs on which every
//! operation is exact. The library comes from the rocSPARSE corpus (`cargo xtask corpus rocsparse`, which CI
//! runs; the .deb it downloads is unpacked here with dpkg-deb).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// librocsparse.so.0 unpacked from the corpus's .deb into a temporary folder (1.3 GB), removed when dropped.
struct Library(PathBuf);

impl Library {
    fn unpack() -> Library {
        let corpus = rdna2spv::corpus::default_dir().expect("HOME or RDNA2SPV_CORPUS_DIR");
        let deb = std::fs::read_dir(corpus.join("deb"))
            .ok()
            .and_then(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .find(|p| p.to_string_lossy().contains("librocsparse0_"))
            })
            .unwrap_or_else(|| {
                panic!(
                    "librocsparse0's .deb is missing under {}: run `cargo xtask corpus rocsparse` (CI's .ci/run does)",
                    corpus.join("deb").display()
                )
            });
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let out =
            std::env::temp_dir().join(format!("rdna2spv-rocsparse-{}-{nanos}", std::process::id()));
        let lib = Library(out);
        let r = Command::new("dpkg-deb")
            .arg("-x")
            .arg(&deb)
            .arg(&lib.0)
            .status()
            .expect("dpkg-deb");
        assert!(r.success(), "unpacking {}", deb.display());
        assert!(lib.dir().join("librocsparse.so.0").exists());
        lib
    }

    fn dir(&self) -> PathBuf {
        self.0.join("usr/lib/x86_64-linux-gnu")
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hip_programs/rocsparse")
}

fn exec(lib: &Library, backend: &str, part: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["exec", "--backend", backend, "--"])
        .arg(program())
        .arg(part)
        .env("LD_LIBRARY_PATH", lib.dir())
        .env_remove("RDNA2SPV_HIP_LIBRARY")
        .output()
        .unwrap()
}

fn check(r: &Output, what: &str) {
    let out = String::from_utf8_lossy(&r.stdout);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{what}: {out}\n{err}");
    assert!(out.contains("rocsparse: PASS"), "{what}: {out}\n{err}");
}

/// Everything on the host evaluator; the sparse-vector kernels on lavapipe and the host, compared launch by
/// launch; and the same program without our runtime failing (ROCm's runtime finds no device).
#[test]
fn rocsparse_runs_unmodified() {
    let lib = Library::unpack();
    check(&exec(&lib, "host", ""), "host");
    check(&exec(&lib, "both", "vector"), "both, vector");
    let r = Command::new(program())
        .arg("vector")
        .env("LD_LIBRARY_PATH", lib.dir())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&r.stdout);
    assert_ne!(r.status.code(), Some(0), "{out}");
    assert!(
        out.contains("rocsparse: FAIL") && !out.contains("PASS"),
        "{out}"
    );
}

/// nnz (with rocPRIM's block reduction) and the adaptive csrmv on lavapipe and the host: about 100 s when
/// lavapipe's shader cache is cold, so not in the default run:
/// `cargo test --test hip_rocsparse -- --ignored`.
#[test]
#[ignore]
fn rocsparse_matrix_kernels_agree_on_the_device_and_the_host() {
    let lib = Library::unpack();
    check(&exec(&lib, "both", "matrix"), "both, matrix");
}
