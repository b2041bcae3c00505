//! Shared by tests/hip_rocsparse.rs and tests/hip_rocrand.rs: a ROCm library unpacked from the Debian package
//! `cargo xtask corpus rocsparse|rocrand` downloads, into a temporary folder removed when dropped, and a
//! fixtures/hip_programs program run through `rdna2spv exec` with that folder on the library path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Library(PathBuf);

impl Library {
    /// Unpacks the newest `<package>_*.deb` of the corpus cache's `<corpus>/deb/`.
    pub fn unpack(corpus: &str, package: &str) -> Library {
        let root = rdna2spv::corpus::default_dir()
            .expect("HOME or RDNA2SPV_CORPUS_DIR")
            .with_file_name(corpus);
        let deb = std::fs::read_dir(root.join("deb"))
            .ok()
            .and_then(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .find(|p| p.to_string_lossy().contains(&format!("{package}_")))
            })
            .unwrap_or_else(|| {
                panic!(
                    "{package}'s .deb is missing under {}: run `cargo xtask corpus {corpus}` (CI's .ci/run does)",
                    root.join("deb").display()
                )
            });
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let lib = Library(
            std::env::temp_dir().join(format!("rdna2spv-{corpus}-{}-{nanos}", std::process::id())),
        );
        let r = Command::new("dpkg-deb")
            .arg("-x")
            .arg(&deb)
            .arg(&lib.0)
            .status()
            .expect("dpkg-deb");
        assert!(r.success(), "unpacking {}", deb.display());
        lib
    }

    pub fn dir(&self) -> PathBuf {
        self.0.join("usr/lib/x86_64-linux-gnu")
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hip_programs")
        .join(name)
}

/// `rdna2spv exec --log --backend BACKEND -- PROGRAM ARGS` with the library on the path (stderr has one
/// line per launch: kernel, grid, block, backend).
pub fn exec(lib: &Library, backend: &str, name: &str, args: &[&str]) -> Output {
    exec_with(lib, &["--backend", backend], name, args)
}

/// `rdna2spv exec --log FLAGS -- PROGRAM ARGS` with the library on the path.
pub fn exec_with(lib: &Library, flags: &[&str], name: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rdna2spv"));
    if flags.contains(&"auto") {
        // `auto` compiles pipelines in a child process into Mesa's shader cache (D252): with the cache
        // switched off in the caller's environment every launch would go to the device as `vulkan`.
        cmd.env_remove("MESA_SHADER_CACHE_DISABLE");
    }
    cmd.args(["exec", "--log"])
        .args(flags)
        .arg("--")
        .arg(program(name))
        .args(args)
        .env("LD_LIBRARY_PATH", lib.dir())
        .env_remove("RDNA2SPV_HIP_LIBRARY")
        // Every module lowered by this run (tests/hip_exec.rs checks the disk cache on its own).
        .env("RDNA2SPV_HIP_CACHE", "0")
        .output()
        .unwrap()
}

/// Exit 0 and the program's success line `NAME: PASS`.
pub fn check(r: &Output, name: &str, what: &str) {
    let out = String::from_utf8_lossy(&r.stdout);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{what}: {out}\n{err}");
    assert!(
        out.contains(&format!("{name}: PASS")),
        "{what}: {out}\n{err}"
    );
}

/// The program run directly, with ROCm's runtime: it must fail (no AMD GPU here) without passing.
pub fn fails_without_our_runtime(lib: &Library, name: &str, args: &[&str]) {
    let r = Command::new(program(name))
        .args(args)
        .env("LD_LIBRARY_PATH", lib.dir())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&r.stdout);
    assert_ne!(r.status.code(), Some(0), "{out}");
    assert!(
        out.contains(&format!("{name}: FAIL")) && !out.contains("PASS"),
        "{out}"
    );
}
