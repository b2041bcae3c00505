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

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What lds32_sum.s stores: every work-item of workgroup `g` stores the sum over its workgroup's
/// work-items `l` of `(l - 16) mod 2^32` (ds_add_u32 wraps mod 2^32).
fn lds32_sum(grid: u32, wg: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for g in 0..grid.div_ceil(wg) {
        let n = lane::items(grid, wg, g);
        let sum = (0..n).fold(0u32, |s, l| s.wrapping_add(l.wrapping_sub(16)));
        out.extend(std::iter::repeat_n(sum, n as usize));
    }
    out
}

#[test]
fn nine_waves_wave32() {
    for mapping in ["wave", "lane"] {
        lane::run_fixture_both("lds32_sum_9w32.toml", mapping, &lds32_sum(676, 288));
        lane::run_fixture_both("lds64_sum_9w32.toml", mapping, &lane::lds64_sum(676, 288));
    }
}

#[test]
fn nine_and_twelve_waves_wave64() {
    for mapping in ["wave", "lane"] {
        lane::run_fixture_both("lds64_sum_9w64.toml", mapping, &lane::lds64_sum(1252, 576));
        lane::run_fixture_both("lds32_sum_12w64.toml", mapping, &lds32_sum(1636, 768));
    }
}

#[test]
fn sixteen_waves() {
    for mapping in ["wave", "lane"] {
        lane::run_fixture_both("lds64_sum_16w32.toml", mapping, &lane::lds64_sum(1100, 512));
        lane::run_fixture_both(
            "lds64_sum_16w64.toml",
            mapping,
            &lane::lds64_sum(2100, 1024),
        );
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
