//! `cargo xtask gpu-check`: one prepared run for a machine with a real GPU (issue 30, D168).
//!
//! Builds the CLI, prints the device profile measured on the chosen device (`--device NAME|INDEX`, else
//! `RDNA2SPV_VK_DEVICE`, else the first device), runs every fixture manifest with `--backend both` (device vs
//! host, bit for bit) under the measured and under the portable profile, the multiply-add suite (tests/fused_multiply_add.rs), the denormal suite
//! (tests/float_denormals.rs, and its f16/f64 twin tests/float_denormals16_64.rs) and the rocSPARSE sample (tests/hip_rocsparse.rs) on that device, and writes a
//! JSON report (`--out`, default `target/gpu-check.json`). Exit 0 when every step passed, 1 otherwise.
//! `--quick` runs the suites with 2,000 operands per form (a smoke run; the full sizes take minutes);
//! `--release` builds and tests in release mode (recommended on a GPU machine).

use anyhow::{bail, Context as _, Result};
use rdna2spv_vulkan::{probe_with_report, Context, DeviceSelector};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

struct Opts {
    device: Option<String>,
    quick: bool,
    release: bool,
    out: PathBuf,
}

fn parse(args: &[String], root: &Path) -> Result<Opts> {
    let mut o = Opts {
        device: std::env::var(DeviceSelector::ENV)
            .ok()
            .filter(|v| !v.trim().is_empty()),
        quick: false,
        release: false,
        out: root.join("target/gpu-check.json"),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--device" => o.device = Some(it.next().context("--device needs a value")?.clone()),
            "--quick" => o.quick = true,
            "--release" => o.release = true,
            "--out" => o.out = PathBuf::from(it.next().context("--out needs a file")?),
            _ => bail!(
                "gpu-check: unknown argument {a:?} (--device D, --quick, --release, --out FILE)"
            ),
        }
    }
    Ok(o)
}

/// One step's outcome for the report.
fn step(name: &str, cmd: &mut Command, tail_lines: usize) -> serde_json::Value {
    let t = Instant::now();
    let shown = format!("{cmd:?}");
    eprintln!("gpu-check: {name}: {shown}");
    let (passed, code, text) = match cmd.output() {
        Ok(o) => {
            let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&o.stderr));
            (o.status.success(), o.status.code(), text)
        }
        Err(e) => (false, None, format!("could not start: {e}")),
    };
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(tail_lines)..].join("\n");
    eprintln!(
        "gpu-check: {name}: {} ({:.1} s)",
        if passed { "passed" } else { "FAILED" },
        t.elapsed().as_secs_f64()
    );
    json!({
        "step": name,
        "command": shown,
        "passed": passed,
        "exit": code,
        "seconds": t.elapsed().as_secs_f64(),
        "output_tail": tail,
    })
}

pub fn run(args: &[String]) -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("xtask sits in the workspace")?
        .to_path_buf();
    let o = parse(args, &root)?;
    let mode: &[&str] = if o.release { &["--release"] } else { &[] };
    let mut steps = Vec::new();
    let cargo = || {
        let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        c.current_dir(&root);
        c
    };

    // 1. Build.
    steps.push(step(
        "build",
        cargo()
            .args(["build", "-p", "rdna2spv", "--bins"])
            .args(mode),
        20,
    ));

    // 2. The measured profile.
    let selector = match &o.device {
        Some(d) => match d.trim().parse::<usize>() {
            Ok(i) => DeviceSelector::Index(i),
            Err(_) => DeviceSelector::NameContains(d.trim().to_string()),
        },
        None => DeviceSelector::Default,
    };
    let ctx = Context::new(selector).context("opening the Vulkan device")?;
    let (profile, report) = probe_with_report(&ctx).context("probing the device profile")?;
    drop(ctx);
    let device = profile
        .device
        .as_ref()
        .map(|d| format!("{} ({}, {})", d.name, d.driver, d.device_type))
        .unwrap_or_default();
    println!("device: {device}\n{report}");
    let env_device = o.device.clone().unwrap_or_else(|| device.clone());
    let name_part = profile
        .device
        .as_ref()
        .map(|d| d.name.clone())
        .unwrap_or(env_device);

    // 3. Every fixture manifest, device vs host.
    let bin = root
        .join("target")
        .join(if o.release { "release" } else { "debug" })
        .join("rdna2spv");
    let out_dir = std::env::temp_dir().join(format!("rdna2spv-gpu-check-{}", std::process::id()));
    let mut manifests: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures/run"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    manifests.sort();
    for m in &manifests {
        let stem = m
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        // The measured profile, then the portable one (every emulation on: the same bits on any device).
        for profile in ["device", "portable"] {
            let mut c = Command::new(&bin);
            c.args(["run", "--backend", "both", "--profile", profile, "--out"])
                .arg(out_dir.join(&stem))
                .arg(m)
                .env(DeviceSelector::ENV, &name_part);
            steps.push(step(&format!("fixture {stem} ({profile})"), &mut c, 5));
        }
    }
    std::fs::remove_dir_all(&out_dir).ok();

    // 4–7. The suites on the same device.
    let n = if o.quick { Some("2000") } else { None };
    for (name, test) in [
        ("multiply-add suite", "fused_multiply_add"),
        ("denormal suite", "float_denormals"),
        ("f16/f64 denormal suite", "float_denormals16_64"),
        ("rocSPARSE sample", "hip_rocsparse"),
    ] {
        let mut c = cargo();
        c.args(["test"])
            .args(mode)
            .args(["--test", test, "--", "--test-threads=1"]);
        c.env(DeviceSelector::ENV, &name_part);
        if let Some(n) = n {
            c.env("RDNA2SPV_FMA_DEVICE_N", n)
                .env("RDNA2SPV_DENORM_N", n);
        }
        steps.push(step(name, &mut c, 40));
    }

    let passed = steps.iter().filter(|s| s["passed"] == true).count();
    let report_json = json!({
        "device": device,
        "profile": serde_json::from_str::<serde_json::Value>(&profile.to_json_pretty())?,
        "probe": report.lines.iter().map(|(f, d)| json!({"fact": f, "observed": d})).collect::<Vec<_>>(),
        "quick": o.quick,
        "release": o.release,
        "steps": steps,
        "passed": passed,
        "failed": steps.len() - passed,
    });
    if let Some(dir) = o.out.parent() {
        std::fs::create_dir_all(dir).ok();
    }
    std::fs::write(&o.out, serde_json::to_string_pretty(&report_json)?)
        .with_context(|| format!("writing {}", o.out.display()))?;
    println!(
        "gpu-check: {passed} of {} steps passed; report {}",
        steps.len(),
        o.out.display()
    );
    if passed != steps.len() {
        std::process::exit(1);
    }
    Ok(())
}
