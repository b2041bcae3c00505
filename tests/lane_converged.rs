//! Workgroup-converged control flow in the lane mapping (decision D141): a conditional branch whose
//! condition is the same in every wave publishes no labels, and one on a wave-dependent value keeps its
//! publication.
//!
//! fixtures/lane/uniform_loop.s: three waves loop `rounds` (a launch word) times around two `s_barrier`s,
//! exchanging values between waves through LDS; the loop's skip and back edge branch on SCC computed by
//! SALU from the launch word. fixtures/lane/wave_branch.s: a branch on `s_bcnt1` of EXEC sends a full wave
//! and a partial one down different paths, each to its own `s_barrier`, after which each reads the other
//! wave's LDS slots. Every run is host vs lavapipe bit for bit, and every output word is also derived here
//! in Rust from the hardware's rules (a wave waits at `s_barrier` until every wave of the workgroup that
//! has not ended has reached one; LDS starts zero; a slot no live work-item writes reads 0). Partial
//! workgroups with a partial wave and an empty one are included. Needs a Vulkan 1.3 device (lavapipe).

#[path = "support/lane.rs"]
mod lane;
use lane::{lane_module, run_lane_both};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs a manifest of fixtures/lane on both backends and compares it with `want`.
fn check(manifest: &str, want: &[u32]) {
    let dir = std::env::temp_dir().join(format!(
        "rdna2spv-lane-conv-{}-{}",
        manifest.trim_end_matches(".toml"),
        std::process::id()
    ));
    let got = run_lane_both(&root().join("fixtures/lane").join(manifest), &dir, manifest);
    assert_eq!(got.len(), want.len(), "{manifest}: output size");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{manifest}: work-item {i}: {g:#x} vs {w:#x}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `OpControlBarrier`s of the lane module the runner dispatches for a manifest of fixtures/lane, calls
/// inlined (as lavapipe meets them).
fn barriers_of(manifest: &Path) -> usize {
    rdna2spv_vulkan::limit::module_cost(&lane_module(manifest)).barriers
}

/// Static `OpLoopMerge`s (loop constructs) of that module.
fn loops_of(manifest: &Path) -> usize {
    rdna2spv_spirv::words::count_opcode(&lane_module(manifest), 246) // OpLoopMerge
}

/// What uniform_loop.s stores for `grid` work-items in workgroups of `wg` (three waves of `ws`), `rounds`
/// iterations: lane `l` starts with `7 l + g`; each iteration every live lane writes its value to slot
/// `l`, all waves meet, lane `l` reads slot `l ^ ws` (0 when no live work-item writes it), all meet
/// again, and the value becomes `2 v + read + counter` (the counter runs `rounds, rounds - 1, ..., 1`).
fn uniform_loop(grid: u32, wg: u32, ws: u32, rounds: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for g in 0..grid.div_ceil(wg) {
        let items = (grid - g * wg).min(wg);
        let mut v: Vec<u32> = (0..items).map(|l| (7 * l).wrapping_add(g)).collect();
        for r in 0..rounds {
            let counter = rounds - r;
            let slots = v.clone();
            for l in 0..items {
                let n = (l ^ ws) as usize;
                let read = slots.get(n).copied().unwrap_or(0);
                let x = &mut v[l as usize];
                *x = x.wrapping_shl(1).wrapping_add(read).wrapping_add(counter);
            }
        }
        out.extend(v);
    }
    out
}

/// What wave_branch.s stores for `grid` work-items in workgroups of 64 (two waves of 32): a full wave
/// (32 live lanes) writes `7 l + 1003` and stores `read + own`, a partial wave writes `7 l + 3` and stores
/// `read - own`, where `read` is slot `l ^ 32` after both waves' barriers (0 if no live lane wrote it).
fn wave_branch(grid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for g in 0..grid.div_ceil(64) {
        let items = (grid - g * 64).min(64);
        let full = |l: u32| (items - (l / 32) * 32).min(32) == 32;
        let own = |l: u32| {
            if full(l) {
                7 * l + 1003
            } else {
                7 * l + 3
            }
        };
        let slot = |l: u32| if l < items { own(l) } else { 0 };
        for l in 0..items {
            let read = slot(l ^ 32);
            out.push(if full(l) {
                read.wrapping_add(own(l))
            } else {
                read.wrapping_sub(own(l))
            });
        }
    }
    out
}

/// A uniform SCC loop around barriers with three waves, wave32 and wave64, partial and empty waves in the
/// last workgroup: bit-exact, the hardware's values, and no label publication (D141).
#[test]
fn uniform_scc_loop_publishes_no_labels() {
    check("uniform_loop_w32.toml", &uniform_loop(240, 96, 32, 5));
    check("uniform_loop_w64.toml", &uniform_loop(464, 192, 64, 5));
    // The whole kernel is converged: the counters' initial barrier and the two s_barriers met in place
    // with no test (D143); one pass, so no pass end's barrier (D121). Each publication of the loop's skip
    // and back edge would add one.
    for m in ["uniform_loop_w32.toml", "uniform_loop_w64.toml"] {
        let path = root().join("fixtures/lane").join(m);
        assert_eq!(barriers_of(&path), 3, "{m}: static barriers");
        // One pass (D143): the LDS clearing loop and the kernel's `rounds` loop, no outer pass loop.
        assert_eq!(loops_of(&path), 2, "{m}: loop constructs");
    }
}

/// An SCC branch on a wave-dependent value (s_bcnt1 of EXEC) keeps its publication: the full wave 0 and
/// the partial wave 1 of the last workgroup go different ways to different barriers and must each read
/// what the other wrote; a workgroup whose only wave is partial (wave 1 empty) too.
#[test]
fn wave_dependent_scc_branch_keeps_its_publication() {
    check("wave_branch.toml", &wave_branch(240));
    check("wave_branch_half.toml", &wave_branch(208));
    // The counters' initial barrier, the branch's publication, the two s_barrier meetings (D134) and the
    // pass end's barrier (D121): the same count as without D141.
    let path = root().join("fixtures/lane/wave_branch.toml");
    assert_eq!(barriers_of(&path), 5, "wave_branch.toml: static barriers");
    // Not converged: the waves may pause at different barriers, so the outer pass loop stays (D143),
    // besides the LDS clearing loop.
    assert_eq!(loops_of(&path), 2, "wave_branch.toml: loop constructs");
}

/// What uniform_if.s stores for `grid` work-items in workgroups of `wg` (three waves of `ws`) with launch
/// word `pick`: lane `l` of workgroup `g` holds `7 l + g`, writes it to slot `l`, all waves meet in the
/// arm they all took, and it stores value + slot `l ^ ws` (0 when no live work-item writes it) + 111 + 222
/// (pick != 0) or + 333 + 1000 (pick == 0, s11 keeps its launch value).
fn uniform_if(grid: u32, wg: u32, ws: u32, pick: u32) -> Vec<u32> {
    let add: u32 = if pick != 0 { 111 + 222 } else { 333 + 1000 };
    let mut out = Vec::new();
    for g in 0..grid.div_ceil(wg) {
        let items = (grid - g * wg).min(wg);
        let v: Vec<u32> = (0..items).map(|l| 7 * l + g).collect();
        for l in 0..items {
            let read = v.get((l ^ ws) as usize).copied().unwrap_or(0);
            out.push(v[l as usize].wrapping_add(read).wrapping_add(add));
        }
    }
    out
}

/// A uniform if/else with a barrier in each arm, three waves, a partial and an empty wave in the last
/// workgroup, both ways: bit-exact and the hardware's values. The kernel is converged everywhere, so it
/// runs one pass (D143: no outer loop, only the LDS clearing loop; the counters' barrier and the two
/// arms' barriers met in place with no test, no pass-end barrier). Only the entry chain runs without its
/// label test: the arms follow a conditional branch, and running the first arm's item where every wave
/// took the other would overwrite s11, which that arm never writes.
#[test]
fn uniform_branch_between_barriers_runs_one_pass() {
    for pick in [0, 1] {
        let m = format!("uniform_if_p{pick}.toml");
        check(&m, &uniform_if(240, 96, 32, pick));
        let path = root().join("fixtures/lane").join(&m);
        assert_eq!(barriers_of(&path), 3, "{m}: static barriers");
        assert_eq!(loops_of(&path), 1, "{m}: loop constructs");
    }
}

/// `OpAtomicAnd`s of `manifest`'s module in `mapping`, as the runner lowers it under the portable profile.
/// The kernels counted here have no AND atomic: these are the prologue's clearing of the workgroup counter
/// words.
fn atomic_ands(manifest: &Path, mapping: rdna2spv_spirv::lower::Mapping) -> usize {
    let m = rdna2spv::manifest::Manifest::load(manifest).unwrap();
    let w = rdna2spv::dispatch::Plan::new(&m)
        .unwrap()
        .module(&rdna2spv_spirv::profile::DeviceProfile::portable(), mapping)
        .unwrap();
    rdna2spv_spirv::words::count_opcode(&w, 240) // OpAtomicAnd
}

/// The lane mapping never counts barriers (D121), so its prologue clears only the lock word of 64-bit LDS
/// atomics (D060), not the wave mapping's three barrier counters (D145); the wave mapping clears all of
/// them (and its barrier round clears the counter two rounds old: one AND more). Counted in the modules
/// the runner lowers. lds64_sum.s (64-bit LDS adds of every work-item of
/// three waves under that lock, a partial and an empty wave in the last workgroup) runs bit-exact and
/// equal to the sums derived here in the wave mapping; tests/lane_lds64.rs runs it in the lane mapping
/// too (before D146 its waves did not finish there on lavapipe).
#[test]
fn lane_modules_clear_only_the_lds_lock() {
    use rdna2spv_spirv::lower::Mapping;
    for (m, want) in [
        ("lds64_sum_w32.toml", lane::lds64_sum(240, 96)),
        ("lds64_sum_w64.toml", lane::lds64_sum(464, 192)),
    ] {
        lane::run_fixture_both(m, "wave", &want);
    }
    let lane = root().join("fixtures/lane");
    let cases = [
        (lane.join("lds64_sum_w32.toml"), 1, 5),
        (lane.join("lds64_sum_w64.toml"), 1, 5),
        (lane.join("uniform_loop_w32.toml"), 0, 4),
        (lane.join("wave_branch.toml"), 0, 4),
        (root().join("fixtures/run/branchy.toml"), 0, 4),
        (root().join("fixtures/run/reduce.toml"), 0, 4),
    ];
    for (path, lane_ands, wave_ands) in cases {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            atomic_ands(&path, Mapping::Lane),
            lane_ands,
            "{name}: lane module's counter clearing"
        );
        assert_eq!(
            atomic_ands(&path, Mapping::Wave),
            wave_ands,
            "{name}: wave module's counter clearing"
        );
    }
}

/// What local_in_uniform.s stores for `grid` work-items in workgroups of `wg`, `rounds` outer iterations:
/// work-item `l` of workgroup `g` runs the lane-local loop `k = ((l + g) & 3) + 1` times per round, adding
/// `k, k - 1, ..., 1`: its sum is `rounds * k (k + 1) / 2`; after `s_barrier` it stores its sum or'ed with
/// the sum of lane `l ^ 32` shifted left by 8 (0 when no work-item writes that LDS slot).
fn local_in_uniform(grid: u32, wg: u32, rounds: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for g in 0..grid.div_ceil(wg) {
        let items = lane::items(grid, wg, g);
        let sum = |l: u32| {
            let k = ((l + g) & 3) + 1;
            rounds * k * (k + 1) / 2
        };
        for l in 0..items {
            let n = l ^ 32;
            let read = if n < items { sum(n) } else { 0 };
            out.push(sum(l) | (read << 8));
        }
    }
    out
}

/// A loop left lane by lane inside a workgroup-uniform loop with several waves (D151): the kernel keeps
/// one label copy (D141 use 3: every block converged or in the lane-local loop), and the outer loop's
/// vote, whose range holds the lane-local loop's non-converged block, must read that copy alone; it used
/// to read the other waves' copies too, never written, and lavapipe ran the loop to its iteration cap.
/// Bit-exact in both mappings against the hardware's values; the fuzzer's reproducer (D148, seed 1010,
/// nine wave64 waves) host vs lavapipe and lane vs wave.
#[test]
fn lane_local_loop_inside_uniform_loop_votes_on_one_copy() {
    let want = local_in_uniform(160, 96, 3);
    lane::run_fixture_both("local_in_uniform.toml", "lane", &want);
    lane::run_fixture_both("local_in_uniform.toml", "wave", &want);
    let dir =
        std::env::temp_dir().join(format!("rdna2spv-lane-conv-loopcap-{}", std::process::id()));
    let lane_out = run_lane_both(
        &root().join("fixtures/lane/fuzz_loopcap_9w64.toml"),
        &dir,
        "fuzz_loopcap_9w64.toml",
    );
    lane::run_fixture_both("fuzz_loopcap_9w64.toml", "wave", &lane_out);
    let _ = std::fs::remove_dir_all(&dir);
}
