//! One-pass lane modules (decision D142): a lone wave with no `s_barrier` and no LDS runs its program in
//! one pass, with no outer loop, and its entry block's chain at the top of the module, outside every
//! selection; an empty split wave (D105) runs that chain "off".
//!
//! Every run is `run --backend both --mapping lane` (host evaluator vs lavapipe, bit for bit) and the
//! outputs are also compared with values derived here from the dispatch rules. The module checks count
//! `OpLoopMerge`: a one-pass module has only its kernel's loops; a module whose waves meet at a barrier
//! keeps its outer loop (and its run, which needs a second pass, stays exact), unless the workgroup is one
//! wave (L49, D282), which meets every barrier where it stands.
//!
//! Needs a Vulkan 1.3 device (lavapipe).

#[path = "support/lane.rs"]
mod lane;
use lane::{lane_module, run_lane_both};
use std::path::PathBuf;

use rdna2spv_spirv::lower::split_factor;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tmp(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "rdna2spv-lane-onepass-{tag}-{}",
        std::process::id()
    ))
}

/// `OpLoopMerge` instructions in a module.
fn loops(module: &[u32]) -> usize {
    let m = rspirv::dr::load_words(module).unwrap();
    m.functions[0]
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == rspirv::spirv::Op::LoopMerge)
        .count()
}

/// fixtures/lane/empty_wave.s: every launched wave adds its wave size to its workgroup's counter. The
/// last workgroup (8 of 200 work-items) has one wave; the split dispatch launches three Vulkan workgroups
/// for it, two of them empty waves whose entry chain runs at the top of the module: they must add nothing
/// although the chain sets every bit of EXEC. Expected: wave size x ceil(workgroup size / wave size).
#[test]
fn empty_split_waves_run_their_entry_chain_off() {
    let dir = tmp("empty");
    for (name, wave, wg, by_hand) in [
        ("empty_wave_w32.toml", 32u32, 96u32, [96, 96, 32, 0]),
        ("empty_wave_w64.toml", 64, 192, [192, 64, 0, 0]),
    ] {
        let m = root().join("fixtures/lane").join(name);
        let module = lane_module(&m);
        assert_eq!(
            split_factor(&module),
            wg / wave,
            "{name}: split into its waves"
        );
        assert_eq!(loops(&module), 0, "{name}: one pass, no loop");
        let got = run_lane_both(&m, &dir, name);
        let grid = 200u32;
        let want: Vec<u32> = (0..4)
            .map(|g| {
                let size = grid.saturating_sub(g * wg).min(wg);
                wave * size.div_ceil(wave)
            })
            .collect();
        assert_eq!(want, by_hand, "{name}: the derivation");
        assert_eq!(got, want, "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where the rule applies and where it must not: the barrier-free split bench kernels have no outer loop
/// (divsqrt: no loop at all; divergent: only its kernel loop), while a workgroup of three waves that
/// pause at `s_barrier` (fixtures/lane/barrier_meet.toml, LDS) keeps its pass loop, and its run, where
/// waves resume in later passes, stays bit-exact on both backends (tests/lane_meet.rs checks its words
/// against the hardware's result).
#[test]
fn the_pass_loop_stays_only_where_a_wave_pauses() {
    let run = root().join("fixtures/run");
    assert_eq!(loops(&lane_module(&run.join("divsqrt.toml"))), 0, "divsqrt");
    assert_eq!(
        loops(&lane_module(&run.join("divergent.toml"))),
        1,
        "divergent"
    );
    // barrier_meet: its pass loop, its kernel loop (.Lloop) and the loop that clears LDS. The same code
    // in workgroups of one wave (L49, D282): every `s_barrier` is met where it stands, so the module has
    // no pass loop, only the kernel loop and the LDS clearing loop; its run stays bit-exact
    // (tests/lane_meet.rs::a_lone_wave_meets_at_once checks every word against the ISA).
    for (name, want_loops, words, why) in [
        ("barrier_meet", 3, 240, "keeps its pass loop"),
        ("barrier_meet_1wave", 2, 80, "runs one pass"),
    ] {
        let m = root().join(format!("fixtures/lane/{name}.toml"));
        assert_eq!(loops(&lane_module(&m)), want_loops, "{name} {why}");
        let dir = tmp(name);
        let out = run_lane_both(&m, &dir, name);
        assert_eq!(out.len(), words);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
