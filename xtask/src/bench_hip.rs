//! `cargo xtask bench hip`: HIP programs through `rdna2spv exec` on the Vulkan device (lavapipe here), issue
//! 26, decision D160. Two figures, each a ratio of measurements taken in the same run:
//!
//! * warm launch overhead vs the kernel's own device time: fixtures/hip_programs/launches times each of its
//!   launches on the host (from hipLaunchKernel to the end of hipDeviceSynchronize, after one untimed launch
//!   that translates the kernel and makes its pipeline), and the runtime's launch log gives the dispatch's
//!   own time (recording the command buffer to the fence); overhead = the program's time − the device's,
//!   medians over the launches;
//! * the rocSPARSE program (fixtures/hip_programs/rocsparse, Debian's librocsparse0 from `cargo xtask corpus
//!   rocsparse`), second run vs first run with a fresh `$XDG_CACHE_HOME`: cold, both caches (ours and Mesa's
//!   shader cache, which lives there too) are empty; warm, both are full. Two more runs split the two: ours
//!   off (`RDNA2SPV_HIP_CACHE=0`), and Mesa's off (`MESA_SHADER_CACHE_DISABLE=true`). Times are the child
//!   processes' CPU time (user + system, `getrusage(RUSAGE_CHILDREN)`: lavapipe's threads included) and wall
//!   time. The program's sparse-vector kernels only (`vector`): the matrix kernels' cold compile passes the
//!   fence timeout on a loaded 2-core machine.
//!
//! The CLI and the runtime are built in release first (`cargo build --release -p rdna2spv -p rdna2spv-hip`).

use crate::bench::{progress, Opts, Section};
use anyhow::{bail, Context, Result};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

fn children_cpu_seconds() -> f64 {
    // SAFETY: a zeroed rusage is a valid output buffer.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_CHILDREN with a valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(ru.ru_utime) + t(ru.ru_stime)
}

/// One run of `cmd`: its output, CPU seconds (children) and wall seconds.
fn timed(cmd: &mut Command) -> Result<(Output, f64, f64)> {
    let c0 = children_cpu_seconds();
    let t0 = Instant::now();
    let out = cmd.output().context("running rdna2spv exec")?;
    let wall = t0.elapsed().as_secs_f64();
    Ok((out, children_cpu_seconds() - c0, wall))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

fn check_pass(out: &Output, name: &str) -> Result<()> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !stdout.contains(&format!("{name}: PASS")) {
        bail!(
            "{name} did not pass ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// A fresh, empty folder under the temporary directory (removed by the caller).
fn fresh_dir(tag: &str) -> Result<PathBuf> {
    let d = std::env::temp_dir().join(format!("rdna2spv-bench-hip-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

struct Overhead {
    n: u32,
    launches: u32,
    program_us: f64,
    runtime_us: f64,
    device_us: f64,
}

/// The launch log's lines of launches 2.. (the warm ones): (runtime ms, device ms).
fn warm_log(stderr: &str) -> Vec<(f64, f64)> {
    stderr
        .lines()
        .filter(|l| l.starts_with("rdna2spv: launch ") && !l.starts_with("rdna2spv: launch 1:"))
        .filter_map(|l| {
            let (_, rest) = l.split_once(" on vulkan: ")?;
            let (total, rest) = rest.split_once(" ms")?;
            let (_, dev) = rest.split_once("(device ")?;
            let (dev, _) = dev.split_once(" ms)")?;
            Some((total.trim().parse().ok()?, dev.trim().parse().ok()?))
        })
        .collect()
}

fn launch_overhead(cli: &Path, root: &Path, n: u32, launches: u32) -> Result<Overhead> {
    let xdg = fresh_dir("launches")?;
    let (out, _, _) = timed(
        Command::new(cli)
            .args(["exec", "--backend", "vulkan", "--log", "--"])
            .arg(root.join("fixtures/hip_programs/launches"))
            .args([launches.to_string(), n.to_string()])
            .env("XDG_CACHE_HOME", &xdg)
            .env_remove("RDNA2SPV_HIP_LIBRARY"),
    )?;
    let _ = std::fs::remove_dir_all(&xdg);
    check_pass(&out, "launches")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let program_us: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("launches: median "))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .context("the program's median line")?;
    let log = warm_log(&String::from_utf8_lossy(&out.stderr));
    if log.len() != launches as usize {
        bail!(
            "{} warm launch lines in the log, {launches} expected",
            log.len()
        );
    }
    Ok(Overhead {
        n,
        launches,
        program_us,
        runtime_us: median(log.iter().map(|l| l.0 * 1e3).collect()),
        device_us: median(log.iter().map(|l| l.1 * 1e3).collect()),
    })
}

struct Rocsparse {
    what: &'static str,
    cpu: f64,
    wall: f64,
}

fn rocsparse_runs(cli: &Path, root: &Path, mode: &str) -> Result<Vec<Rocsparse>> {
    let deb_dir = rdna2spv::corpus::default_dir()
        .context("HOME or RDNA2SPV_CORPUS_DIR")?
        .with_file_name("rocsparse")
        .join("deb");
    let deb = std::fs::read_dir(&deb_dir)
        .ok()
        .and_then(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| p.to_string_lossy().contains("librocsparse0_"))
        })
        .with_context(|| {
            format!(
                "librocsparse0's .deb is missing under {}: run `cargo xtask corpus rocsparse`",
                deb_dir.display()
            )
        })?;
    let lib = fresh_dir("rocsparse-lib")?;
    let ok = Command::new("dpkg-deb")
        .arg("-x")
        .arg(&deb)
        .arg(&lib)
        .status()
        .context("dpkg-deb")?;
    if !ok.success() {
        bail!("unpacking {}", deb.display());
    }
    let xdg = fresh_dir("rocsparse-xdg")?;
    let run = |what: &'static str, env: &[(&str, &str)]| -> Result<Rocsparse> {
        progress(format!("hip: rocsparse {mode}: {what}"));
        let mut c = Command::new(cli);
        c.args(["exec", "--backend", "vulkan", "--"])
            .arg(root.join("fixtures/hip_programs/rocsparse"))
            .arg(mode)
            .env("LD_LIBRARY_PATH", lib.join("usr/lib/x86_64-linux-gnu"))
            .env("XDG_CACHE_HOME", &xdg)
            .env_remove("RDNA2SPV_HIP_LIBRARY")
            .env_remove("RDNA2SPV_HIP_CACHE")
            .env_remove("MESA_SHADER_CACHE_DISABLE")
            .env("RDNA2SPV_VK_TIMEOUT_S", "600");
        for (k, v) in env {
            c.env(k, v);
        }
        let (out, cpu, wall) = timed(&mut c)?;
        check_pass(&out, "rocsparse")?;
        Ok(Rocsparse { what, cpu, wall })
    };
    let result = (|| {
        Ok(vec![
            run("first run (both caches cold)", &[])?,
            run("second run (both caches warm)", &[])?,
            run(
                "warm, our cache off (RDNA2SPV_HIP_CACHE=0)",
                &[("RDNA2SPV_HIP_CACHE", "0")],
            )?,
            run(
                "warm, Mesa's shader cache off (MESA_SHADER_CACHE_DISABLE=true)",
                &[("MESA_SHADER_CACHE_DISABLE", "true")],
            )?,
        ])
    })();
    let _ = std::fs::remove_dir_all(&xdg);
    let _ = std::fs::remove_dir_all(&lib);
    result
}

pub fn section(opts: &Opts) -> Result<Section> {
    let root = &opts.root;
    progress("hip: building the CLI and the HIP runtime in release");
    let st = Command::new(env!("CARGO"))
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "rdna2spv",
            "-p",
            "rdna2spv-hip",
        ])
        .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
        .current_dir(root)
        .status()
        .context("cargo build --release")?;
    if !st.success() {
        bail!("cargo build --release -p rdna2spv -p rdna2spv-hip failed");
    }
    let cli = root.join("target/release/rdna2spv");
    let launches = if opts.quick { 10 } else { 100 };
    let mut overheads = Vec::new();
    for n in [1024u32, 1 << 20] {
        progress(format!("hip: {launches} warm launches of {n} elements"));
        overheads.push(launch_overhead(&cli, root, n, launches)?);
    }
    // The sparse-vector kernels (axpyi, doti): the matrix kernels' first dispatch, lavapipe's compile of
    // rocPRIM's block reduction and the adaptive csrmv, takes minutes cold on the 2-core machine.
    let mode = "vector";
    let runs = rocsparse_runs(&cli, root, mode)?;

    let mut md = String::from(
        "## HIP programs: launch overhead and the persistent caches (`cargo xtask bench hip`; issue 26, D160)\n\n",
    );
    md.push_str(
        "Release build of the CLI and the runtime, `rdna2spv exec --backend vulkan` on lavapipe. \
         **Launch overhead**: fixtures/hip_programs/launches (`y += x` over n floats, 256 work-items per block) \
         times each warm launch on the host, from hipLaunchKernel to the end of hipDeviceSynchronize; the \
         launch log gives the runtime's own time for the launch and the dispatch's device time (recording the \
         command buffer to the fence). Medians over the launches; overhead = program − device.\n\n",
    );
    md.push_str("| n | launches | per launch (program) | runtime's launch | device | overhead | overhead / device |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for o in &overheads {
        let over = o.program_us - o.device_us;
        md.push_str(&format!(
            "| {} | {} | {:.1} µs | {:.1} µs | {:.1} µs | {:.1} µs | {:.2}× |\n",
            o.n,
            o.launches,
            o.program_us,
            o.runtime_us,
            o.device_us,
            over,
            over / o.device_us
        ));
    }
    md.push_str(&format!(
        "\n**Caches**: fixtures/hip_programs/rocsparse{} with Debian's librocsparse0, four runs with one fresh \
         `$XDG_CACHE_HOME` (our translation and pipeline caches and Mesa's shader cache all live there). CPU \
         time of the run (all its threads: lavapipe compiles and runs on them) and wall time.\n\n",
        if mode.is_empty() {
            String::new()
        } else {
            format!(" `{mode}`")
        }
    ));
    md.push_str("| run | CPU | wall | vs first run (CPU) |\n| --- | ---: | ---: | ---: |\n");
    for r in &runs {
        md.push_str(&format!(
            "| {} | {:.2} s | {:.2} s | {:.2}× |\n",
            r.what,
            r.cpu,
            r.wall,
            r.cpu / runs[0].cpu
        ));
    }
    let small = &overheads[0];
    let headlines = vec![
        (
            format!(
                "HIP warm launch overhead vs the kernel's device time ({} floats; {} floats)",
                overheads[0].n, overheads[1].n
            ),
            format!(
                "{:.2}× ({:.0} µs); {:.2}×",
                (small.program_us - small.device_us) / small.device_us,
                small.program_us - small.device_us,
                (overheads[1].program_us - overheads[1].device_us) / overheads[1].device_us
            ),
            "—".into(),
        ),
        (
            "rocSPARSE program, second run vs first (caches warm vs cold), CPU".into(),
            format!("{:.2}×", runs[1].cpu / runs[0].cpu),
            "—".into(),
        ),
    ];
    let json = json!({
        "launch_overhead": overheads.iter().map(|o| json!({
            "n": o.n, "launches": o.launches, "program_us": o.program_us,
            "runtime_us": o.runtime_us, "device_us": o.device_us,
        })).collect::<Vec<_>>(),
        "rocsparse": runs.iter().map(|r| json!({"run": r.what, "cpu_s": r.cpu, "wall_s": r.wall})).collect::<Vec<_>>(),
    });
    Ok(Section {
        markdown: md,
        json,
        headlines,
    })
}
