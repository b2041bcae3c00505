//! `s_barrier` met in place in the lane mapping (decision D134): when every wave has paused or ended, the
//! workgroup meets at the block that ends with the barrier and the pass goes on, instead of ending the pass.
//!
//! fixtures/lane/barrier_meet.s: three waves of 32; wave 2 ends at once; waves 0 and 1 reach different
//! `s_barrier`s (so the first one reached in the structured order finds the other wave still running and
//! must not meet there), then exchange values through LDS in a uniform loop with two barriers per
//! iteration. The run is host vs lavapipe bit for bit, and every output word is also derived here in
//! Rust from the hardware's rules (a wave waits at `s_barrier` until every wave that has not ended has
//! reached one). Needs a Vulkan 1.3 device (lavapipe).

#[path = "support/lane.rs"]
mod lane;
use lane::run_lane_both;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What barrier_meet.s stores for a grid of `grid` work-items in workgroups of `wg` (96 or 32): LDS
/// starts zero, a slot that no live work-item writes reads 0; wave 2's work-items store 0x5eed.
fn expected(grid: u32, wg: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for g in 0..grid.div_ceil(wg) {
        let items = (grid - g * wg).min(wg);
        let live = |l: u32| l < items;
        let first: Vec<u32> = (0..64)
            .map(|l| match (live(l), l < 32) {
                (false, _) => 0,
                (true, true) => 7 * l + 3 + 1000,
                (true, false) => 7 * l + 3,
            })
            .collect();
        // After the barriers each wave reads the other wave's slot (l ^ 32).
        let mut v3: Vec<u32> = (0..64).map(|l| first[(l ^ 32) as usize]).collect();
        let mut second = [0u32; 64];
        for s in [3u32, 2, 1] {
            for l in (0..64).filter(|&l| live(l)) {
                v3[l as usize] = v3[l as usize].wrapping_add(s);
                second[l as usize] = v3[l as usize];
            }
            let read: Vec<u32> = (0..64).map(|l| second[(l ^ 32) as usize]).collect();
            for l in (0..64).filter(|&l| live(l)) {
                let l = l as usize;
                v3[l] = v3[l].wrapping_shl(1).wrapping_add(read[l]);
            }
        }
        for l in 0..items {
            out.push(if l < 64 { v3[l as usize] } else { 0x5eed });
        }
    }
    out
}

fn check(manifest: &str, grid: u32, wg: u32) {
    let dir = std::env::temp_dir().join(format!("rdna2spv-lane-meet-{wg}-{}", std::process::id()));
    let m = root().join("fixtures/lane").join(manifest);
    let got = run_lane_both(&m, &dir, manifest);
    let want = expected(grid, wg);
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{manifest}: work-item {i}: {g:#x} vs {w:#x}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Waves at different barriers, an ended wave, an empty wave and a partial wave: bit-exact and equal to
/// the hardware's result.
#[test]
fn waves_meet_in_place_only_when_every_wave_has_paused() {
    check("barrier_meet.toml", 240, 96);
}

/// One wave per workgroup: the wave that reaches the barrier is the only one, it meets at once.
#[test]
fn a_lone_wave_meets_at_once() {
    check("barrier_meet_1wave.toml", 80, 32);
}
