//! `rdna2spv exec`: runs an unmodified hipcc-built program with rdna2spv's HIP runtime (crates/hip,
//! `libamdhip64.so`) in front of the system's, its kernels on the host evaluator or a Vulkan device
//! (decision D156). The program's stdout, stderr and exit status pass through.
//!
//! The runtime is found next to this executable (`target/debug/` or `target/debug/deps/` in a build
//! tree, the same folder in an installation) or at `RDNA2SPV_HIP_LIBRARY`, and exposed under the name
//! programs ask for, `libamdhip64.so.5`, in a private temporary folder put first on `LD_LIBRARY_PATH`
//! (hipcc sets neither RPATH nor RUNPATH, so the loader searches that folder first). The backend, device,
//! profile and log switch reach the runtime through the environment.

use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The runtime's file name as cargo builds it.
pub const RUNTIME_FILE: &str = "libamdhip64.so";
/// The soname hipcc-built programs need.
pub const RUNTIME_SONAME: &str = "libamdhip64.so.5";
/// Overrides where the runtime is looked for.
pub const ENV_LIBRARY: &str = "RDNA2SPV_HIP_LIBRARY";
/// The executable whose hidden `warm-pipeline` subcommand the runtime's `auto` backend starts (D252).
pub const ENV_WARMER: &str = "RDNA2SPV_HIP_WARMER";

/// What `exec` runs and how.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// `host`, `vulkan`, `both` or `auto`.
    pub backend: &'static str,
    pub device: Option<String>,
    /// `device` or `portable`.
    pub profile: &'static str,
    pub log: bool,
    /// Checked device launches (`RDNA2SPV_HIP_CHECKED`).
    pub checked: bool,
    pub program: OsString,
    pub args: Vec<OsString>,
}

/// The runtime library: `RDNA2SPV_HIP_LIBRARY`, else the newest of those next to the running executable
/// and in its `deps/` folder (where `cargo test` builds leave it).
pub fn find_runtime() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(ENV_LIBRARY).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!("{ENV_LIBRARY}={} is not a file", p.display());
        }
        return Ok(p);
    }
    let exe = std::env::current_exe().context("locating the rdna2spv executable")?;
    let dir = exe.parent().context("the executable has no folder")?;
    let candidates = [
        dir.join(RUNTIME_FILE),
        dir.join("deps").join(RUNTIME_FILE),
        dir.join("..").join(RUNTIME_FILE),
    ];
    // The newest: `cargo test` refreshes only `deps/`, `cargo build` also the copy beside the binary.
    candidates
        .iter()
        .filter_map(|p| Some((std::fs::metadata(p).ok()?.modified().ok()?, p)))
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p.clone())
        .with_context(|| {
            format!(
                "the rdna2spv HIP runtime ({RUNTIME_FILE}) is not next to {} (build it: cargo build -p rdna2spv-hip; or set {ENV_LIBRARY})",
                exe.display()
            )
        })
}

/// A private folder holding `libamdhip64.so.5` (and `libamdhip64.so`) as links to the runtime; removed
/// when dropped.
struct LibraryDir(PathBuf);

impl LibraryDir {
    fn new(runtime: &Path) -> Result<Self> {
        let runtime = runtime
            .canonicalize()
            .with_context(|| format!("resolving {}", runtime.display()))?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("rdna2spv-exec-{}-{nanos:08x}", std::process::id()));
        std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let d = LibraryDir(dir);
        for name in [RUNTIME_SONAME, RUNTIME_FILE] {
            std::os::unix::fs::symlink(&runtime, d.0.join(name))
                .with_context(|| format!("linking {} into {}", runtime.display(), d.0.display()))?;
        }
        Ok(d)
    }
}

impl Drop for LibraryDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the program; its exit status (128 + the signal's number when a signal ended it, as a shell
/// reports it).
pub fn exec(o: &ExecOptions) -> Result<i32> {
    let runtime = find_runtime()?;
    let libdir = LibraryDir::new(&runtime)?;
    let mut path = OsString::from(libdir.0.as_os_str());
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|p| !p.is_empty()) {
        path.push(":");
        path.push(old);
    }
    let mut cmd = std::process::Command::new(&o.program);
    cmd.args(&o.args)
        .env("LD_LIBRARY_PATH", path)
        .env("RDNA2SPV_HIP_BACKEND", o.backend)
        .env("RDNA2SPV_HIP_PROFILE", o.profile);
    match &o.device {
        Some(d) => cmd.env("RDNA2SPV_HIP_DEVICE", d),
        None => cmd.env_remove("RDNA2SPV_HIP_DEVICE"),
    };
    if o.checked {
        cmd.env("RDNA2SPV_HIP_CHECKED", "1");
    } else {
        cmd.env_remove("RDNA2SPV_HIP_CHECKED");
    }
    if o.log {
        cmd.env("RDNA2SPV_HIP_LOG", "1");
    } else {
        cmd.env_remove("RDNA2SPV_HIP_LOG");
    }
    // `auto` (D252): the runtime compiles pipelines in child processes of this executable (or of the one
    // `RDNA2SPV_HIP_WARMER` names already).
    let preset = std::env::var_os(ENV_WARMER).filter(|p| !p.is_empty());
    match (o.backend == "auto", preset, std::env::current_exe()) {
        (true, Some(p), _) => cmd.env(ENV_WARMER, p),
        (true, None, Ok(exe)) => cmd.env(ENV_WARMER, exe),
        _ => cmd.env_remove(ENV_WARMER),
    };
    let status = cmd
        .status()
        .with_context(|| format!("running {}", Path::new(&o.program).display()))?;
    drop(libdir);
    use std::os::unix::process::ExitStatusExt;
    Ok(match (status.code(), status.signal()) {
        (Some(c), _) => c,
        (None, Some(s)) => 128 + s,
        (None, None) => 2,
    })
}
