//! Shared by the lane-mapping tests (lane_masks, lane_loops, lane_split, lane_kload, lane_converged,
//! lane_onepass, lane_lds64, wave_batches, ...): write a two-buffer manifest, run a manifest on both backends
//! in the lane mapping (or a fixtures/lane manifest in either mapping, against expected words),
//! lower a manifest's lane module as the runner does, and count a lane module's static barriers.

#![allow(dead_code)] // each test binary that includes this file uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;

/// The lane module of `manifest` as the runner lowers it ([`rdna2spv::dispatch::Plan::module`]), under
/// the portable profile.
pub fn lane_module(manifest: &Path) -> Vec<u32> {
    let m = rdna2spv::manifest::Manifest::load(manifest).unwrap();
    rdna2spv::dispatch::Plan::new(&m)
        .unwrap()
        .module(
            &rdna2spv_spirv::profile::DeviceProfile::portable(),
            rdna2spv_spirv::lower::Mapping::Lane,
        )
        .unwrap()
}

/// The lane plan of `manifest` as `rdna2spv translate --dump-lane-plan` prints it (portable profile,
/// default options).
pub fn lane_plan_text(manifest: &Path) -> String {
    let plan =
        rdna2spv::dispatch::Plan::new(&rdna2spv::manifest::Manifest::load(manifest).unwrap())
            .unwrap();
    rdna2spv_spirv::lower::lane_plan(
        &plan.program,
        &rdna2spv_vulkan::kernel_layout(&plan.launch),
        &rdna2spv_spirv::profile::DeviceProfile::portable(),
        &rdna2spv_spirv::lower::LowerOptions::default(),
    )
    .unwrap()
    .to_string()
}

/// Little-endian words of `b`.
pub(crate) fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Writes `dir/x.bin` (the words `x`), a zero-filled `dir/out.bin` of `out_bytes` bytes per work-item and
/// `dir/<kernel>.toml`: `kernel` of code object `co` over `x.len()` work-items in workgroups of `wg`, its
/// arguments the two buffers (`out.bin` the output `out`). Returns the manifest's path.
pub fn x_out_manifest(
    dir: &Path,
    co: &Path,
    kernel: &str,
    x: &[u32],
    out_bytes: usize,
    wg: usize,
) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let xb: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("x.bin"), xb).unwrap();
    std::fs::write(dir.join("out.bin"), vec![0u8; out_bytes * x.len()]).unwrap();
    let m = dir.join(format!("{kernel}.toml"));
    std::fs::write(
        &m,
        format!(
            "code_object = {:?}\nkernel = \"{kernel}\"\ngrid = [{}, 1, 1]\nworkgroup = [{wg}, 1, 1]\n\n\
             [[args]]\nbuffer = \"x.bin\"\n\n[[args]]\nbuffer = \"out.bin\"\noutput = \"out\"\n",
            co.display().to_string(),
            x.len()
        ),
    )
    .unwrap();
    m
}

/// Runs `manifest` with `run --backend both --mapping lane` (host vs lavapipe bit for bit; fails the test
/// otherwise, naming `what`) and returns the words of `out_dir/out.bin`.
pub fn run_lane_both(manifest: &Path, out_dir: &Path, what: &str) -> Vec<u32> {
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("run")
        .arg(manifest)
        .args(["--backend", "both", "--timeout-ms", "600000"])
        .args(["--mapping", "lane", "--out"])
        .arg(out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(0) && stderr.contains("agree bit for bit"),
        "{what}: exit {:?}\n{stderr}",
        out.status.code()
    );
    words(&std::fs::read(out_dir.join("out.bin")).unwrap())
}

/// Runs `manifest` with `run --backend vulkan --mapping lane` (outputs under `out_dir`): the exit code and
/// the standard error.
pub fn run_lane_vulkan(manifest: &Path, out_dir: &Path) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("run")
        .arg(manifest)
        .args(["--backend", "vulkan", "--mapping", "lane", "--out"])
        .arg(out_dir)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `OpControlBarrier`s of `kernel`'s lane-mapping module (code object `co`, workgroup 64, written under
/// `dir`) once every call is inlined, as lavapipe meets them (L51's exchange function holds one, met at
/// each of its calls).
pub fn lane_barriers(co: &Path, kernel: &str, dir: &Path) -> usize {
    lane_barriers_wg(co, kernel, dir, 64)
}

/// [`lane_barriers`] with a workgroup of `wg` work-items in x.
pub fn lane_barriers_wg(co: &Path, kernel: &str, dir: &Path, wg: usize) -> usize {
    let spv = dir.join(format!("{kernel}-{wg}.spv"));
    let wgs = wg.to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("translate")
        .arg(co)
        .args(["--kernel", kernel, "--workgroup", &wgs, "1", "1"])
        .args(["--mapping", "lane", "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let w = words(&std::fs::read(&spv).unwrap());
    rdna2spv_vulkan::limit::module_cost(&w).barriers
}

/// A xorshift32 generator from `seed` (the tests' inputs: reproducible, no dependency).
pub fn xorshift(mut s: u32) -> impl FnMut() -> u32 {
    move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    }
}

/// Runs a manifest of fixtures/lane with `--backend both` in `mapping` ("lane" or "wave") and compares
/// the output with `want`.
pub fn run_fixture_both(manifest: &str, mapping: &str, want: &[u32]) {
    run_fixture_both_env(manifest, mapping, want, &[]);
}

/// [`run_fixture_both`] with `env` set for the run (measurement switches such as `RDNA2SPV_SUB_BALLOTS`).
pub fn run_fixture_both_env(manifest: &str, mapping: &str, want: &[u32], env: &[(&str, &str)]) {
    let tag: String = env.iter().map(|(k, v)| format!("-{k}={v}")).collect();
    let dir = std::env::temp_dir().join(format!(
        "rdna2spv-fixture-{}-{mapping}{tag}-{}",
        manifest.trim_end_matches(".toml"),
        std::process::id()
    ));
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .envs(env.iter().copied())
        .arg("run")
        .arg(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/lane")
                .join(manifest),
        )
        .args(["--backend", "both", "--mapping", mapping, "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(0) && stderr.contains("agree bit for bit"),
        "{manifest} ({mapping} mapping{tag}): exit {:?}\n{stderr}",
        out.status.code()
    );
    let got = words(&std::fs::read(dir.join("out.bin")).unwrap());
    assert_eq!(got.len(), want.len(), "{manifest} ({mapping}): output size");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{manifest} ({mapping}): word {i}: {g:#x} vs {w:#x}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Work-items of workgroup `g` when `grid` work-items run in workgroups of `wg`.
pub fn items(grid: u32, wg: u32, g: u32) -> u32 {
    (grid - g * wg).min(wg)
}

/// What lds64_sum.s stores: every work-item of workgroup `g` stores (low word, high word) of the 64-bit
/// sum over its workgroup's work-items `l` of `((l - 16) mod 2^32) + 2^32` (ds_add_u64 wraps mod 2^64).
pub fn lds64_sum(grid: u32, wg: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for g in 0..grid.div_ceil(wg) {
        let n = items(grid, wg, g);
        let sum = (0..n).fold(0u64, |s, l| {
            s.wrapping_add(u64::from(l.wrapping_sub(16)))
                .wrapping_add(1 << 32)
        });
        for _ in 0..n {
            out.extend([sum as u32, (sum >> 32) as u32]);
        }
    }
    out
}

/// What lds32_cas.s stores: every work-item of workgroup `g` (`n` work-items) stores the maximum and the
/// minimum of f32(l - 20) over its workgroup's `l` (from -inf and +inf), the f32 sum of f32(l) (integers
/// below 2^24: every partial sum exact, so the order does not matter) and the count `n` of ds_inc_u32
/// with limit 0xffffffff.
pub fn lds32_cas(grid: u32, wg: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for g in 0..grid.div_ceil(wg) {
        let n = items(grid, wg, g);
        let max = (n as f32 - 1.0 - 20.0).to_bits();
        let min = (-20.0f32).to_bits();
        let sum = ((n * (n - 1) / 2) as f32).to_bits();
        for _ in 0..n {
            out.extend([max, min, sum, n]);
        }
    }
    out
}

/// `spirv-val --target-env vulkan1.3` accepts `words` (`name` names the module in the message).
pub fn spirv_val(name: &str, words: &[u32]) {
    let path = std::env::temp_dir().join(format!("rdna2spv-{name}-{}.spv", std::process::id()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("spirv-val could not be run ({e}); install spirv-tools"));
    assert!(
        out.status.success(),
        "spirv-val rejected {name}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_file(&path);
}
