//! The body of converged multi-wave lane modules (decision D144): a top chain's `on` is the wave's
//! running flag, and consecutive guarded effects under the same guard share one selection construct
//! (`crates/spirv/src/lower/lane/fuse.rs`).
//!
//! Every run is `run --backend both --mapping lane` (host evaluator vs lavapipe, bit for bit), and the
//! outputs are also compared with values derived here from the ISA and the dispatch rules. The module
//! checks count `OpSelectionMerge` between the static barriers.
//!
//! Needs a Vulkan 1.3 device (lavapipe).

#[path = "support/lane.rs"]
mod lane;
use lane::{lane_module, run_lane_both};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tmp(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rdna2spv-lane-body-{tag}-{}", std::process::id()))
}

/// `OpSelectionMerge` constructs of the module's function, split at its `OpControlBarrier`s: one count
/// per stretch of code between two barriers (the first before the first barrier, the last after the
/// last one).
fn selections_between_barriers(module: &[u32]) -> Vec<usize> {
    let m = rspirv::dr::load_words(module).unwrap();
    let mut out = vec![0];
    for i in m.functions[0].blocks.iter().flat_map(|b| &b.instructions) {
        match i.class.opcode {
            rspirv::spirv::Op::ControlBarrier => out.push(0),
            rspirv::spirv::Op::SelectionMerge => *out.last_mut().unwrap() += 1,
            _ => {}
        }
    }
    out
}

/// fixtures/lane/guard_runs.s from the ISA: every lane of every launched wave (a lane beyond the
/// partial wave's work-items has v0 = 0) adds v1 and v2 to its workgroup's counters, where after
/// `v_cmpx_gt_u32 16, v0` the lanes with v0 < 16 wrote v1 = 2 and v2 = 2 + 7, the others keep 1 and 7.
/// Empty waves (no work-item) are not launched on the hardware: they add nothing.
fn guard_runs(grid: u32, wg: u32, ws: u32) -> Vec<u32> {
    let mut out = vec![0u32; 8];
    for g in 0..grid.div_ceil(wg) {
        let items = (grid - g * wg).min(wg);
        for tid in 0..items.div_ceil(ws) * ws {
            let v0 = if tid < items { tid } else { 0 };
            let (v1, v2) = if v0 < 16 { (2, 9) } else { (1, 7) };
            out[2 * g as usize] += v1;
            out[2 * g as usize + 1] += v2;
        }
    }
    out
}

/// Two runs of guarded effects around a `v_cmpx` in a converged one-pass module: each run is one
/// selection, the EXEC write ends the first (fusing across it gives every lane v1 = 2), and the empty
/// waves of the last workgroup, whose chain sets all of EXEC, add nothing (their `on` is false).
#[test]
fn guard_runs_stop_at_an_exec_write() {
    let dir = tmp("guard");
    for (name, wg, ws) in [
        ("guard_runs_w32.toml", 96, 32),
        ("guard_runs_w64.toml", 192, 64),
    ] {
        let m = root().join("fixtures/lane").join(name);
        let want = guard_runs(200, wg, ws);
        assert_eq!(run_lane_both(&m, &dir, name), want, "{name}");
        // The counters' initial barrier and the s_barrier met in place (D143); after it D144 made one
        // selection per run: v1 and v2 before the v_cmpx, v1 and v2 after it, v3 with the two atomics,
        // and the flag store. Since D162 the two runs of VGPR writes are straight code (each write a
        // select of the new and the old value under the run's guard): the atomics' and the flag
        // store's selections remain. The run above checks that the EXEC write still ends a run.
        let sel = selections_between_barriers(&lane_module(&m));
        assert_eq!(sel.len(), 3, "{name}: two static barriers");
        assert_eq!(
            sel[2], 2,
            "{name}: one selection per run of guarded memory effects ({sel:?})"
        );
    }
    // The model itself, by hand: wave32, full workgroups 16 x 2 + 80 x 1 and 16 x 9 + 80 x 7; the last
    // (8 work-items, one launched wave of 32 lanes, all with v0 < 16) 32 x 2 and 32 x 9.
    assert_eq!(guard_runs(200, 96, 32), [112, 704, 112, 704, 64, 288, 0, 0]);
}

/// reduce and reduce_w64: each LDS tree step between two barriers (`ds_read2`, `v_add`, `ds_write`:
/// two lane loads, three VGPR writes and a store, six selections before D144) is one selection.
#[test]
fn reduce_tree_steps_are_one_selection_each() {
    for name in ["reduce.toml", "reduce_w64.toml"] {
        let m = root().join("fixtures/run").join(name);
        // On a device that keeps f32 subnormals: the portable profile's f32 add emulation (D168) adds one
        // selection to each step (measured: [1, 4, 2, 2, 2, 2, 2, 2, 4, 4]).
        let mut prof = rdna2spv_spirv::profile::DeviceProfile::portable();
        prof.preserves_subnormals_f32 = true;
        let module =
            rdna2spv::dispatch::Plan::new(&rdna2spv::manifest::Manifest::load(&m).unwrap())
                .unwrap()
                .module(&prof, rdna2spv_spirv::lower::Mapping::Lane)
                .unwrap();
        let sel = selections_between_barriers(&module);
        // The counters' barrier, the first s_barrier, six tree steps each ended by an s_barrier, the
        // last step's barrier and the final chain.
        assert_eq!(sel.len(), 10, "{name}: nine static barriers");
        assert_eq!(
            sel[2..8],
            [1; 6],
            "{name}: one selection per tree step ({sel:?})"
        );
    }
}
