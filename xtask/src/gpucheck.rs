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
    bundle: Option<PathBuf>,
}

fn parse(args: &[String], root: &Path) -> Result<Opts> {
    let mut o = Opts {
        device: std::env::var(DeviceSelector::ENV)
            .ok()
            .filter(|v| !v.trim().is_empty()),
        quick: false,
        release: false,
        out: root.join("target/gpu-check.json"),
        bundle: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--device" => o.device = Some(it.next().context("--device needs a value")?.clone()),
            "--quick" => o.quick = true,
            "--release" => o.release = true,
            "--out" => o.out = PathBuf::from(it.next().context("--out needs a file")?),
            "--bundle" => {
                o.bundle = Some(PathBuf::from(it.next().context("--bundle needs a folder")?))
            }
            _ => bail!(
                "gpu-check: unknown argument {a:?} (--device D, --quick, --release, --out FILE, --bundle DIR)"
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
    if let Some(dir) = &o.bundle {
        return bundle(&root, dir);
    }
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

/// The suites the prebuilt bundle runs, in the order a short device lease should spend its time (most
/// telling first), each with its time limit in seconds on a 16-core machine.
const BUNDLE_SUITES: &[(&str, u32)] = &[
    ("fused_multiply_add", 150),
    ("float_denormals", 120),
    ("float_denormals16_64", 120),
    ("probe_numerics", 90),
    ("float_round_modes", 90),
    ("float_mode", 60),
    ("transcendental", 90),
    ("vfloat_ops", 150),
    ("f64div", 120),
    ("backend_both", 60),
    ("ops_valu_misc", 300),
    ("ops_valu16", 300),
    ("ops_valu_packed", 300),
];

/// The script the bundle runs on the GPU machine (no Rust there): `@ROOT@` is this checkout's path, which
/// the test binaries carry (`CARGO_MANIFEST_DIR`) and the script links to the checkout it runs in.
const BUNDLE_SCRIPT: &str = r#"#!/bin/bash
# rdna2spv gpu-check, prebuilt (cargo xtask gpu-check --bundle): run from a checkout of the same commit.
#   bash BUNDLE/run.sh OUTDIR [DEVICE_NAME_PART] [OPERANDS_PER_FORM]
# Writes OUTDIR/summary.txt (one line per step: exit status, milliseconds), OUTDIR/log.txt (each step's
# output, long ones cut), OUTDIR/profile.json and OUTDIR/probe.txt (the measured profile), and
# OUTDIR/rejected.tar.xz (modules the driver refused, if any). Exit 0 when every step passed.
set -u
OUTD=$(realpath "$1"); DEV=${2:-}; N=${3:-20000}
HERE=$(cd "$(dirname "$0")" && pwd)
B=$HERE/bin
ROOT=@ROOT@
if [ ! -e "$ROOT/fixtures" ]; then mkdir -p "$(dirname "$ROOT")" && ln -sfn "$PWD" "$ROOT"; fi
# The CLI tests run target/release/rdna2spv of that path: the bundle's, unless a build is there already.
mkdir -p "$ROOT/target/release"; [ -e "$ROOT/target/release/rdna2spv" ] || ln -s "$B/rdna2spv" "$ROOT/target/release/rdna2spv"
cd "$ROOT" || exit 2
mkdir -p "$OUTD"; log=$OUTD/log.txt; sum=$OUTD/summary.txt; : > "$log"; : > "$sum"
[ -n "$DEV" ] && export RDNA2SPV_VK_DEVICE="$DEV"
export RDNA2SPV_FMA_DEVICE_N=$N RDNA2SPV_DENORM_N=$N RDNA2SPV_ROUND_N=$N RDNA2SPV_DUMP_REJECTED=/tmp/gpu-check-rejected
failed=0
step() { # name limit command...
  local name=$1 t=$2; shift 2
  local s=$(date +%s%N)
  echo "=== $name: $*" >> "$log"
  timeout -k 5 "$t" "$@" > /tmp/gpu-check-step.txt 2>&1
  local rc=$?
  if [ "$(stat -c %s /tmp/gpu-check-step.txt)" -gt 300000 ]; then
    head -c 150000 /tmp/gpu-check-step.txt >> "$log"; echo "[... cut ...]" >> "$log"; tail -c 150000 /tmp/gpu-check-step.txt >> "$log"
  else cat /tmp/gpu-check-step.txt >> "$log"; fi
  printf '%-44s rc=%-3s %8d ms
' "$name" "$rc" $(( ($(date +%s%N) - s) / 1000000 )) | tee -a "$sum"
  [ "$rc" = 0 ] || failed=$((failed + 1))
  if [ -d /tmp/gpu-check-rejected ]; then (cd /tmp && tar cJf "$OUTD/rejected.tar.xz" gpu-check-rejected); fi
}
step probe 60 sh -c "'$B/probe' > '$OUTD/profile.json' 2> '$OUTD/probe.txt'"
if [ ! -s "$OUTD/profile.json" ]; then
  VK_LOADER_DEBUG=error,driver "$B/probe" > /dev/null 2>> "$OUTD/probe.txt"
  echo "no Vulkan device: see $OUTD/probe.txt" | tee -a "$sum"; exit 1
fi
@SUITES@
for m in fixtures/run/*.toml; do
  s=$(basename "$m" .toml)
  for p in device portable; do
    step "fixture $s ($p)" 60 "$B/rdna2spv" run --backend both --profile $p --out "/tmp/gpu-check-out/$s-$p" "$m"
  done
done
echo "steps failed: $failed" | tee -a "$sum"
[ "$failed" = 0 ]
"#;

/// `--bundle DIR`: builds the CLI, the probe and the suites' test binaries in release mode here and puts
/// them, stripped, with `run.sh` into DIR, for a GPU machine without Rust (copy DIR into the checkout
/// there, or carry it; README "Check a real GPU").
fn bundle(root: &Path, dir: &Path) -> Result<()> {
    let cargo = || {
        let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        c.current_dir(root);
        c
    };
    let ok = |c: &mut Command, what: &str| -> Result<std::process::Output> {
        let o = c
            .output()
            .with_context(|| format!("running cargo for {what}"))?;
        if !o.status.success() {
            bail!("{what} failed:\n{}", String::from_utf8_lossy(&o.stderr));
        }
        Ok(o)
    };
    eprintln!("gpu-check --bundle: building the CLI and the probe (release)");
    ok(
        cargo().args(["build", "--release", "-p", "rdna2spv", "--bins"]),
        "building the CLI",
    )?;
    ok(
        cargo().args([
            "build",
            "--release",
            "-p",
            "rdna2spv-vulkan",
            "--example",
            "probe",
        ]),
        "building the probe",
    )?;
    eprintln!(
        "gpu-check --bundle: building {} test binaries (release)",
        BUNDLE_SUITES.len()
    );
    let mut c = cargo();
    c.args([
        "test",
        "--release",
        "--no-run",
        "--message-format=json",
        "-p",
        "rdna2spv",
    ]);
    for (t, _) in BUNDLE_SUITES {
        c.args(["--test", t]);
    }
    let out = ok(&mut c, "building the test binaries")?;
    let mut exes = std::collections::BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] == "compiler-artifact" && v["profile"]["test"] == true {
            if let (Some(name), Some(exe)) =
                (v["target"]["name"].as_str(), v["executable"].as_str())
            {
                exes.insert(name.to_string(), PathBuf::from(exe));
            }
        }
    }
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).with_context(|| format!("creating {}", bin.display()))?;
    let copy = |from: &Path, name: &str| -> Result<()> {
        let to = bin.join(name);
        std::fs::copy(from, &to).with_context(|| format!("copying {}", from.display()))?;
        // Stripped: the bundle travels (debug symbols are most of a test binary).
        let _ = Command::new("strip").arg(&to).status();
        Ok(())
    };
    let release = root.join("target/release");
    copy(&release.join("rdna2spv"), "rdna2spv")?;
    copy(&release.join("examples/probe"), "probe")?;
    let mut suites = String::new();
    for (t, limit) in BUNDLE_SUITES {
        let exe = exes
            .get(*t)
            .with_context(|| format!("cargo did not report the test binary of {t}"))?;
        copy(exe, t)?;
        suites.push_str(&format!("step {t} {limit} \"$B/{t}\" --test-threads=16\n"));
    }
    let script = BUNDLE_SCRIPT
        .replace("@ROOT@", &root.display().to_string())
        .replace("@SUITES@", suites.trim_end());
    let run = dir.join("run.sh");
    std::fs::write(&run, script).with_context(|| format!("writing {}", run.display()))?;
    let size: u64 = std::fs::read_dir(&bin)?
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "gpu-check --bundle: {} binaries ({:.1} MB) and run.sh in {}; on the GPU machine, from a checkout of \
         this commit: bash {}/run.sh OUTDIR [DEVICE_NAME_PART] [OPERANDS_PER_FORM]",
        BUNDLE_SUITES.len() + 2,
        size as f64 / 1e6,
        dir.display(),
        dir.display()
    );
    Ok(())
}
