//! The wave mapping (D006: one invocation per wave) with more than 8 waves per workgroup (decision D147).
//!
//! lavapipe runs a workgroup in 8-wide SIMD batches, each a coroutine that switches at every
//! `OpControlBarrier`, and ends the workgroup once one batch has returned. A last, partial batch also
//! runs lanes past the workgroup (`LocalInvocationIndex >= LocalSize`) whose stores and atomics are
//! masked but which take part in every loop's exit test: such a lane read each barrier round's counter
//! as 0 and held the outer loop, so the partial batch went on meeting barriers after batch 0 had ended
//! and its real waves never wrote their flags ("the wave never wrote its flag"). These lanes now start
//! and stay done. Workgroups of 9 and 12 waves (two batches, the second partial) and of 16 (two full
//! batches) with a partial last workgroup, wave32 and wave64, in both mappings; every run host vs
//! lavapipe bit for bit, every output word derived here in Rust; and `rdna2spv trace`'s device side (the
//! wave mapping) on 9 waves, record for record as on the host. Needs a Vulkan 1.3 device (lavapipe for
//! the trace).

#[path = "support/lane.rs"]
mod lane;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs a manifest of fixtures/lane with `--backend both` in `mapping` ("lane" or "wave") and compares
/// the output with `want`.
fn check(manifest: &str, mapping: &str, want: &[u32]) {
    let dir = std::env::temp_dir().join(format!(
        "rdna2spv-wave-batches-{}-{mapping}-{}",
        manifest.trim_end_matches(".toml"),
        std::process::id()
    ));
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("run")
        .arg(root().join("fixtures/lane").join(manifest))
        .args(["--backend", "both", "--mapping", mapping, "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(0) && stderr.contains("agree bit for bit"),
        "{manifest} ({mapping} mapping): exit {:?}\n{stderr}",
        out.status.code()
    );
    let got = lane::words(&std::fs::read(dir.join("out.bin")).unwrap());
    assert_eq!(got.len(), want.len(), "{manifest} ({mapping}): output size");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{manifest} ({mapping}): word {i}: {g:#x} vs {w:#x}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Work-items of workgroup `g` when `grid` work-items run in workgroups of `wg`.
fn items(grid: u32, wg: u32, g: u32) -> u32 {
    (grid - g * wg).min(wg)
}

/// What lds64_sum.s stores: every work-item of workgroup `g` stores (low word, high word) of the 64-bit
/// sum over its workgroup's work-items `l` of `((l - 16) mod 2^32) + 2^32` (ds_add_u64 wraps mod 2^64).
fn lds64_sum(grid: u32, wg: u32) -> Vec<u32> {
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

/// What lds32_sum.s stores: every work-item of workgroup `g` stores the sum over its workgroup's
/// work-items `l` of `(l - 16) mod 2^32` (ds_add_u32 wraps mod 2^32).
fn lds32_sum(grid: u32, wg: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for g in 0..grid.div_ceil(wg) {
        let n = items(grid, wg, g);
        let sum = (0..n).fold(0u32, |s, l| s.wrapping_add(l.wrapping_sub(16)));
        out.extend(std::iter::repeat_n(sum, n as usize));
    }
    out
}

#[test]
fn nine_waves_wave32() {
    for mapping in ["wave", "lane"] {
        check("lds32_sum_9w32.toml", mapping, &lds32_sum(676, 288));
        check("lds64_sum_9w32.toml", mapping, &lds64_sum(676, 288));
    }
}

#[test]
fn nine_and_twelve_waves_wave64() {
    for mapping in ["wave", "lane"] {
        check("lds64_sum_9w64.toml", mapping, &lds64_sum(1252, 576));
        check("lds32_sum_12w64.toml", mapping, &lds32_sum(1636, 768));
    }
}

#[test]
fn sixteen_waves() {
    for mapping in ["wave", "lane"] {
        check("lds64_sum_16w32.toml", mapping, &lds64_sum(1100, 512));
        check("lds64_sum_16w64.toml", mapping, &lds64_sum(2100, 1024));
    }
}

/// `rdna2spv trace`'s device side is the wave mapping: a workgroup of 9 waves (two batches, the second
/// partial) traces record for record as on the host, one record per instruction the evaluator counts.
#[test]
fn nine_waves_trace_as_on_the_host() {
    use rdna2spv::trace::{diff, DiffOptions};
    use rdna2spv_spirv::lower::LowerOptions;
    let m = rdna2spv::manifest::Manifest::load(&root().join("fixtures/lane/lds32_sum_9w32.toml"))
        .unwrap();
    let mut p = rdna2spv::dispatch::Plan::new(&m).unwrap();
    let ctx = rdna2spv_vulkan::Context::new(rdna2spv_vulkan::DeviceSelector::NameContains(
        "llvmpipe".into(),
    ))
    .expect("this test needs lavapipe");
    let prof = rdna2spv_vulkan::probe(&ctx).expect("probe");
    let o = DiffOptions {
        filter: Default::default(),
        bisect: false,
        capacity: 1 << 22,
        lower: LowerOptions::default(),
    };
    let out = diff(&ctx, &mut p, &prof, &o).unwrap();
    assert!(
        out.divergence.is_none(),
        "{}",
        rdna2spv::trace::report_text(&p, &out)
    );
    assert_eq!(out.host_records, out.device_records);
    let (_, stats) = rdna2spv::dispatch::run_host(&mut p).unwrap();
    assert_eq!(out.host_records as u64, stats.instructions);
    // 22 live waves (two workgroups of 9, 4 in the last) of 16 instructions each.
    assert_eq!(out.host_records, 22 * 16);
}
