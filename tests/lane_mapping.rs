//! The lane-per-invocation mapping (issue 13, decision D082) end to end: every run manifest the project has
//! (clang-19 OpenCL fixtures in `fixtures/run`, hipcc code objects in `fixtures/hip`, Mesa ACO captures in
//! `fixtures/aco`, raw words in `fixtures/raw`; wave32 and wave64) runs on lavapipe with `--mapping lane`
//! and must agree bit for bit with the host evaluator (`run --backend both`, which compares every output
//! buffer and exits 1 naming the first difference). The host evaluator is the oracle here; the same
//! manifests are checked against independent oracles (native C, LLVM, hand-derived values) by
//! tests/fixtures_run.rs, tests/captures.rs and tests/backend_both.rs. The rocSPARSE sample kernels run in
//! the lane mapping in tests/rocsparse_kernels.rs (`rocsparse_kernels_lane_mapping`).
//!
//! Needs a Vulkan 1.3 device (lavapipe: `apt-get install libvulkan1 mesa-vulkan-drivers`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Manifests whose kernels the lifter refuses today in every mapping (calls; tests/fixtures_run.rs lists
/// them as pending with the instruction they need).
const PENDING: &[&str] = &["multi_first.toml", "multi_second.toml"];

fn manifests() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [
        "fixtures/run",
        "fixtures/hip",
        "fixtures/aco",
        "fixtures/raw",
    ] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .filter(|p| !PENDING.contains(&p.file_name().unwrap().to_str().unwrap()))
            .collect();
        v.sort();
        out.extend(v);
    }
    out
}

fn run(manifest: &Path, mapping: &str, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("run")
        .arg(manifest)
        // A busy 2-core machine can take longer than the default minute for the first dispatch's JIT.
        .args(["--backend", "both", "--timeout-ms", "600000"])
        .args(["--mapping", mapping, "--out"])
        .arg(out)
        .output()
        .expect("run rdna2spv")
}

#[test]
fn every_fixture_bit_exact_in_the_lane_mapping() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-lane-{}", std::process::id()));
    let all = manifests();
    assert!(all.len() >= 30, "only {} manifests found", all.len());
    let mut failures = Vec::new();
    let mut report = String::new();
    for m in &all {
        let t0 = std::time::Instant::now();
        let out = run(m, "lane", &tmp);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let ok = out.status.code() == Some(0) && stderr.contains("agree bit for bit");
        report.push_str(&format!(
            "{:<45} {} [{:.1} s]\n",
            m.strip_prefix(root()).unwrap().display(),
            if ok { "bit-exact" } else { "FAILED" },
            t0.elapsed().as_secs_f64()
        ));
        if !ok {
            failures.push(format!(
                "{}: exit {:?}\n{stderr}",
                m.display(),
                out.status.code()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!("\nlane mapping, host vs lavapipe:\n{report}");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Wave64 kernels are part of the set above (the manifests' code objects say so); this keeps the claim
/// honest if fixtures move.
#[test]
fn the_fixture_set_has_wave32_and_wave64_kernels() {
    let all = manifests();
    let w64 = all
        .iter()
        .filter(|m| {
            // The path inside the repository: a checkout's own path may contain "w64".
            let rel = m.strip_prefix(root()).unwrap_or(m);
            rel.to_string_lossy().contains("w64")
        })
        .count();
    assert!(w64 >= 8, "{w64} wave64 manifests");
    assert!(all.len() - w64 >= 20);
}

/// `--mapping auto` picks the lane mapping for a kernel the lane lowering accepts, and says so; options
/// the lane mapping does not implement are refused before anything runs (exit 2, a clear message).
#[test]
fn auto_mapping_and_refusals() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-lane-auto-{}", std::process::id()));
    let m = root().join("fixtures/run/saxpy.toml");
    let out = run(&m, "auto", &tmp);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("mapping: lane (auto)"), "{stderr}");
    assert!(stderr.contains("agree bit for bit"), "{stderr}");

    // Checked runs (the default since D158) stay in the lane mapping: `auto` chose it above, and an
    // explicit `--mapping lane` with the old `--checked` flag (now a no-op alias) runs too.
    let checked = tmp.join("checked");
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("run")
        .arg(&m)
        .args([
            "--backend",
            "both",
            "--mapping",
            "lane",
            "--checked",
            "--out",
        ])
        .arg(&checked)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("agree bit for bit"), "{stderr}");
    assert!(checked.join("y.bin").exists());
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The lane mapping's module is one SPIR-V invocation per lane: LocalSize is the kernel's workgroup, and
/// spirv-val accepts it.
#[test]
fn lane_module_validates_with_the_kernel_workgroup() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-lane-val-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let spv = tmp.join("reduce.spv");
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("translate")
        .arg(root().join("fixtures/kernels/reduce.co"))
        .args(["--kernel", "reduce", "--mapping", "lane", "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let val = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&spv)
        .output()
        .expect("spirv-val (apt-get install spirv-tools)");
    assert!(
        val.status.success(),
        "{}",
        String::from_utf8_lossy(&val.stderr)
    );
    let dis = Command::new("spirv-dis").arg(&spv).output().unwrap();
    let text = String::from_utf8_lossy(&dis.stdout);
    assert!(
        text.contains("LocalSize 128 1 1"),
        "reduce's workgroup is 128 work-items"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
