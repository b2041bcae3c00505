//! Lane-local exits of divergent loops in the lane mapping (decision D130), on a hand-written kernel
//! (fixtures/kernels/laneloop.s, assembled by `cargo xtask fixtures`): a loop whose trip count differs per
//! lane ends `v_cmp_eq_u32 vcc, s5, v2; s_or_b32 s4, vcc, s4; s_andn2_b32 exec, exec, s4;
//! s_cbranch_execnz`, as clang emits it (fixtures/kernels/divergent.s).
//!
//! * `laneloop_local`: s4 (the mask of lanes that left) is live at the exit and read whole, but a masked
//!   iteration leaves its own bit as it was; the loop counter s5 and VCC are dead: each lane leaves the loop
//!   when its own EXEC bit is 0, and the back edge costs no barrier. The `s_cbranch_execz` that skips the
//!   loop when no lane enters it is then vote-free too (D131): run with EXEC = 0, every lane leaves the
//!   loop after one pass, and s4 is 0 at the exit either way (a wave with no lane looping checks it);
//! * `laneloop_execz`: the same loop left by `s_andn2_b32 exec, exec, s4; s_cbranch_execz exit` at a latch
//!   placed before the header (clang's form for nested loops): left lane by lane too;
//! * `laneloop_skip`: the same, shaped as clang emits divergent.cl (the skip's region holds the loop and
//!   an `s_or_b32 exec, exec, s4` restore): vote-free as well;
//! * `laneloop_zero`: the skip's region ANDs s12 (1 before the branch) with the restored EXEC, and s12 is
//!   read at the skip's target: run with EXEC = 0 the region leaves s12 = 0, skipping leaves 1, so the skip
//!   keeps its vote (a wave with no lane looping must read 1);
//! * `laneloop_sgpr`: s5 is read after the exit (the wave's largest trip count): a lane that left early
//!   would hold its own trip count, so the back edge keeps its vote (one barrier more);
//! * `laneloop_vcc`: VCC's bit is read after the exit: only the lanes of the wave's last iteration have
//!   it set, a lane that left early would still hold its own last compare, so the vote stays (one barrier
//!   more).
//!
//! In the last two the skip before the loop keeps its vote as well (its region holds a loop that is not
//! left lane by lane): two barriers more than `laneloop_local`, whose one barrier is s_bcnt1's read of s4.
//!
//! Each kernel runs with `run --backend both --mapping lane` (host vs lavapipe, bit for bit) with one wave
//! per workgroup and with two waves split into workgroups of their own (D105), and the output is compared
//! with the result computed here from the ISA's definitions (an independent oracle).

use std::path::{Path, PathBuf};
#[path = "support/lane.rs"]
mod lane;
use lane::{lane_barriers, lane_barriers_wg, run_lane_both, x_out_manifest};

const N: usize = 200;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// x: per 32-lane wave a different pattern (random trip counts, none looping, all the same, one lane
/// looping 7 times...).
fn inputs() -> Vec<u32> {
    let mut rnd = lane::xorshift(0x9e37_79b9_u32);
    (0..N)
        .map(|i| match i / 32 {
            1 => rnd() & !7,
            2 => (rnd() & !7) | 3,
            3 => (rnd() & !7) | if i % 32 == 17 { 7 } else { 0 },
            _ => rnd(),
        })
        .collect()
}

/// The kernel's result from the ISA's definitions: out[4i..4i+4] = {popcount(M), M, acc, extra}.
fn oracle(x: &[u32], kernel: &str) -> Vec<u32> {
    let mut out = vec![0u32; 4 * N];
    for w in 0..N.div_ceil(32) {
        let lanes: Vec<usize> = (32 * w..(32 * w + 32).min(N)).collect();
        let trips = |i: usize| x[i] & 7;
        // The wave loops while any lane is active: max trips iterations; s4 collects each lane's bit in
        // the iteration where its counter reaches its trip count.
        let max = lanes.iter().map(|&i| trips(i)).max().unwrap_or(0);
        let mut m = 0u32;
        for &i in &lanes {
            if trips(i) != 0 {
                m |= 1 << (i % 32);
            }
        }
        for &i in &lanes {
            let t = trips(i);
            let acc = t * t.saturating_sub(1) / 2;
            let extra = match kernel {
                "laneloop_local" | "laneloop_execz" | "laneloop_skip" => 0,
                // s12 = 1 & EXEC (= M after the restore) when some lane loops, else the skip leaves 1.
                "laneloop_zero" => {
                    if max == 0 {
                        1
                    } else {
                        m & 1
                    }
                }
                // s5 counts the wave's iterations.
                "laneloop_sgpr" => max,
                // VCC of the last iteration: the lanes still active then, whose count was reached.
                "laneloop_vcc" => u32::from(max != 0 && t == max),
                _ => unreachable!(),
            };
            out[4 * i..4 * i + 4].copy_from_slice(&[m.count_ones(), m, acc, extra]);
        }
    }
    out
}

/// Runs `kernel` with `run --backend both --mapping lane` (host vs lavapipe bit for bit); its output words.
fn run_lane(tmp: &Path, kernel: &str, x: &[u32], wg: usize) -> Vec<u32> {
    let dir = tmp.join(format!("{kernel}-{wg}"));
    let co = root().join("fixtures/kernels/laneloop.co");
    let m = x_out_manifest(&dir, &co, kernel, x, 16, wg);
    run_lane_both(&m, &dir.join("out"), &format!("{kernel} (workgroup {wg})"))
}

/// `OpControlBarrier`s of the kernel's lane-mapping module, calls inlined.
fn barriers(kernel: &str, dir: &Path) -> usize {
    lane_barriers(&root().join("fixtures/kernels/laneloop.co"), kernel, dir)
}

#[test]
fn lane_local_loop_exits_bit_exact() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-laneloop-{}", std::process::id()));
    let x = inputs();
    // Every wave shape the rule must survive: mixed trip counts, no lane looping, all lanes alike, one
    // lane looping alone.
    assert!((32..64).all(|i| x[i] & 7 == 0));
    assert!((64..96).all(|i| x[i] & 7 == 3));
    assert!((96..128).filter(|&i| x[i] & 7 != 0).count() == 1);
    assert!(
        (0..32)
            .map(|i| x[i] & 7)
            .collect::<std::collections::HashSet<_>>()
            .len()
            == 8
    );
    for kernel in [
        "laneloop_local",
        "laneloop_execz",
        "laneloop_skip",
        "laneloop_zero",
        "laneloop_sgpr",
        "laneloop_vcc",
    ] {
        let want = oracle(&x, kernel);
        for wg in [32, 64] {
            let got = run_lane(&tmp, kernel, &x, wg);
            for i in 0..N {
                assert_eq!(
                    &got[4 * i..4 * i + 4],
                    &want[4 * i..4 * i + 4],
                    "{kernel} (workgroup {wg}): work-item {i} (x & 7 = {})",
                    x[i] & 7
                );
            }
        }
    }
    // The local loops have neither the back edge's vote nor the skip's: one barrier, s_bcnt1's read of
    // s4. The live SGPR and the live VCC keep both.
    let local = barriers("laneloop_local", &tmp);
    let execz = barriers("laneloop_execz", &tmp);
    let skip = barriers("laneloop_skip", &tmp);
    let sgpr = barriers("laneloop_sgpr", &tmp);
    let vcc = barriers("laneloop_vcc", &tmp);
    assert_eq!(
        (local, execz, skip, sgpr, vcc),
        (1, 1, 1, 3, 3),
        "barriers: local {local}, execz {execz}, skip {skip}, sgpr {sgpr}, vcc {vcc}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

// ---- Several waves per workgroup (D133, D136) ------------------------------------------------------------
//
// fixtures/kernels/mwloop.s and mwloop_w64.s: the loop of `laneloop_local` / `laneloop_sgpr` in kernels that
// start with an s_barrier, so their waves share one Vulkan workgroup (no D105 split) and the structured
// constructs are entered by workgroup votes. Out: 8 words per work-item, {popcount(M), M.lo, M.hi, acc,
// extra, 0, 0, 0}; `mwloop_local*`'s extra is the x of work-item i ^ 1 (written to LDS before the loop,
// read after it: a fence after the lane-local loop), `mwloop_sgpr*`'s the wave's largest trip count.

/// Inputs by wave (`ws` lanes): random trip counts, no lane looping, all lanes alike, one lane alone.
fn mw_inputs(n: usize, ws: usize) -> Vec<u32> {
    let mut rnd = lane::xorshift(0x2545_f491_u32);
    (0..n)
        .map(|i| match (i / ws) % 5 {
            1 => rnd() & !7,
            2 => (rnd() & !7) | 3,
            3 => (rnd() & !7) | if i % ws == 17 { 7 } else { 0 },
            _ => rnd(),
        })
        .collect()
}

/// The kernels' results from the ISA's definitions (waves are `ws` consecutive work-items: every
/// workgroup size used is a multiple of the wave size).
fn mw_oracle(x: &[u32], ws: usize, local: bool) -> Vec<u32> {
    let n = x.len();
    let mut out = vec![0u32; 8 * n];
    for w in 0..n.div_ceil(ws) {
        let lanes: Vec<usize> = (ws * w..(ws * w + ws).min(n)).collect();
        let trips = |i: usize| x[i] & 7;
        let max = lanes.iter().map(|&i| trips(i)).max().unwrap_or(0);
        let m: u64 = lanes
            .iter()
            .filter(|&&i| trips(i) != 0)
            .map(|&i| 1u64 << (i % ws))
            .sum();
        for &i in &lanes {
            let t = trips(i);
            let extra = if local { x[i ^ 1] } else { max };
            out[8 * i..8 * i + 8].copy_from_slice(&[
                m.count_ones(),
                m as u32,
                (m >> 32) as u32,
                t * t.saturating_sub(1) / 2,
                extra,
                0,
                0,
                0,
            ]);
        }
    }
    out
}

fn run_mw(tmp: &Path, co: &Path, kernel: &str, x: &[u32], wg: usize) -> Vec<u32> {
    let dir = tmp.join(format!("{kernel}-{wg}"));
    let m = x_out_manifest(&dir, co, kernel, x, 32, wg);
    run_lane_both(&m, &dir.join("out"), &format!("{kernel} (workgroup {wg})"))
}

#[test]
fn multi_wave_lane_local_loops_bit_exact() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-mwloop-{}", std::process::id()));
    // Two and four waves per workgroup; the last workgroup is partial with a partial wave and (four
    // waves) empty waves: 200 = 3 x 64 + 8 = 128 + 72 in wave32, 328 = 2 x 128 + 72 = 256 + 72 in wave64.
    for (stem, ws, n, wgs) in [
        ("mwloop", 32, 200, [64, 128]),
        ("mwloop_w64", 64, 328, [128, 256]),
    ] {
        let co = root().join(format!("fixtures/kernels/{stem}.co"));
        let x = mw_inputs(n, ws);
        let sfx = if ws == 64 { "_w64" } else { "" };
        for (kernel, local) in [
            (format!("mwloop_local{sfx}"), true),
            (format!("mwloop_sgpr{sfx}"), false),
        ] {
            let want = mw_oracle(&x, ws, local);
            for wg in wgs {
                let got = run_mw(&tmp, &co, &kernel, &x, wg);
                for i in 0..n {
                    assert_eq!(
                        &got[8 * i..8 * i + 8],
                        &want[8 * i..8 * i + 8],
                        "{kernel} (workgroup {wg}): work-item {i} (x & 7 = {})",
                        x[i] & 7
                    );
                }
            }
        }
        // Static barriers with two and four waves: the lane-local loop has no vote, no publication and
        // no back-edge exchange, and its skip is vote-free (D133 with D131): the barrier round, the LDS
        // fence before the read of the neighbour, s_bcnt1's read of M and the initial one. The live loop
        // counter keeps the skip's and the back edge's EXEC exchanges (no LDS fence), each deciding every
        // wave's label without a publication (D136). Each kernel's one s_barrier block also holds D134's
        // in-place meeting (one more static barrier each since D134 joined D133/D136 in `int`).
        // mwloop_local is workgroup-converged everywhere (D141) and meets its barrier in place with no
        // test, so it runs one pass without the barrier round (D143): 4.
        for wg in wgs {
            let local = lane_barriers_wg(&co, &format!("mwloop_local{sfx}"), &tmp, wg);
            let sgpr = lane_barriers_wg(&co, &format!("mwloop_sgpr{sfx}"), &tmp, wg);
            assert_eq!(
                (local, sgpr),
                (4, 6),
                "{stem} workgroup {wg}: barriers local {local}, sgpr {sgpr}"
            );
        }
    }
    // branchy (two waves, LDS, s_barrier): since D140 the skips inside its nested loops are vote-free
    // (s9 and s7 are all-ones on both ways, the counters s6 and s4 are overwritten on every path the state
    // at the skip's target permits), so both loops are left lane by lane (D130, D133) and the skips around
    // them are vote-free (D131); its `rounds` loop is workgroup-converged and its two SCC branches (the
    // skip of the loop and the back edge) are uniform (a kernel argument decremented by SALU), so they
    // publish nothing (D141): 4 static barriers (13 before both; 6 with D140 alone, 11 with D141 alone).
    // Converged everywhere with its one s_barrier met in place, it runs one pass (D143): no barrier
    // round at the pass end, 3.
    let branchy = lane_barriers(&root().join("fixtures/kernels/branchy.co"), "branchy", &tmp);
    assert_eq!(branchy, 3, "branchy barriers");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// L23 (D136) with the ballot words as vectors (L39, D213): every wave's label copy comes from its own
/// EXEC words, read as components of one `uvec2`/`uvec4` load. The inputs make the waves of a workgroup
/// disagree at the EXEC branches in both directions: by wave index in the workgroup, the first wave's lanes
/// loop no time (EXEC zero at the skip) while the others loop, or the last wave alone loops. A wave that
/// took another wave's EXEC would skip its loop or run it with the wrong trip counts.
#[test]
fn exec_branch_labels_from_vector_ballot_words_bit_exact() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-l39-{}", std::process::id()));
    for (stem, ws, wgs) in [
        ("mwloop", 32usize, [64usize, 128]),
        ("mwloop_w64", 64, [128, 256]),
    ] {
        let co = root().join(format!("fixtures/kernels/{stem}.co"));
        let sfx = if ws == 64 { "_w64" } else { "" };
        let kernel = format!("mwloop_sgpr{sfx}");
        for wg in wgs {
            let waves = wg / ws;
            let n = 3 * wg;
            let mut rnd = lane::xorshift(0x9e37_79b9);
            for last_only in [false, true] {
                let x: Vec<u32> = (0..n)
                    .map(|i| {
                        let w = (i % wg) / ws;
                        let loops = if last_only { w == waves - 1 } else { w != 0 };
                        let r = rnd();
                        if loops {
                            (r & !7) | (1 + r % 7)
                        } else {
                            r & !7
                        }
                    })
                    .collect();
                let want = mw_oracle(&x, ws, false);
                let got = run_mw(&tmp, &co, &kernel, &x, wg);
                for i in 0..n {
                    assert_eq!(
                        &got[8 * i..8 * i + 8],
                        &want[8 * i..8 * i + 8],
                        "{kernel} (workgroup {wg}, last wave only {last_only}): work-item {i}"
                    );
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A chain of blocks (D137) that ends with an EXEC branch deciding every wave's label copy from its own
/// exchange (D136): `chain_exec` (fixtures/kernels/chain.s) is `mwloop_sgpr` with an `s_branch` from the
/// block after the s_barrier into the skip's block, so both blocks are one item and the oracle is
/// `mwloop_sgpr`'s. Two and four waves per workgroup, the last workgroup partial (a partial wave, and empty
/// waves with four). D136's update must look for the copies at the chain's first block: looking at the
/// skip's own number leaves them behind and no wave finishes.
#[test]
fn chain_ending_in_an_exec_branch_bit_exact() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-chain-{}", std::process::id()));
    let co = root().join("fixtures/kernels/chain.co");
    let x = mw_inputs(200, 32);
    let want = mw_oracle(&x, 32, false);
    for wg in [64, 128] {
        let got = run_mw(&tmp, &co, "chain_exec", &x, wg);
        for i in 0..x.len() {
            assert_eq!(
                &got[8 * i..8 * i + 8],
                &want[8 * i..8 * i + 8],
                "chain_exec (workgroup {wg}): work-item {i}"
            );
        }
        // The chain keeps mwloop_sgpr's static barriers: D136 applies at its end (no publication).
        assert_eq!(
            lane_barriers_wg(&co, "chain_exec", &tmp, wg),
            6,
            "workgroup {wg}"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// L40 (D214): a value exchange carried on an exchange of an earlier block of the same chain (L24).
/// `warpsort` (fixtures/kernels/warpsort.cl, clang-19) is rocPRIM's warp sort shape: per compare-exchange
/// step a `ds_bpermute_b32` pair (key, value), then under `v_cmpx`/`s_cbranch_execz` (vote-free) the
/// payload's `ds_bpermute_b32` with EXEC narrowed to the swapping lanes, then `s_or_b32 exec` and the next
/// sequence's pair in the block after it. That pair's VGPRs are unchanged since the payload's exchange, so
/// it rides on it: 32 static barriers instead of 60 (30 steps, each a pair and a payload; the first pair
/// and one pair whose EXEC is not whole there keep their own).
///
/// Oracle, independent of the network: each wave's two 32-element sequences of (key, value) end sorted
/// (key, then value), as a permutation of the input, and each payload still belongs to its pair
/// (value × 2654435761). Keys repeat (some waves draw them from 0..8) so that values break ties. A rider
/// that read its partner's key from a stale or wrong slot leaves a sequence unsorted or a pair split.
#[test]
fn exchanges_ride_across_chain_links_bit_exact() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-l40-{}", std::process::id()));
    let co = root().join("fixtures/kernels/warpsort.co");
    let n = 256usize; // work-items: 8 waves, each sorting items i and i + n of its lanes
    let mut rnd = lane::xorshift(0x2545_f491);
    let (keys, vals): (Vec<u32>, Vec<u32>) = (0..2 * n)
        .map(|i| {
            let k = if (i / 32) % 3 == 1 { rnd() % 8 } else { rnd() };
            (k, rnd())
        })
        .unzip();
    let mut want_pairs: Vec<Vec<(u32, u32)>> = Vec::new();
    for seq in 0..2 * n / 32 {
        let mut v: Vec<(u32, u32)> = (32 * seq..32 * seq + 32)
            .map(|i| (keys[i], vals[i]))
            .collect();
        v.sort_unstable();
        want_pairs.push(v);
    }
    for wg in [32usize, 64] {
        let dir = tmp.join(format!("wg{wg}"));
        std::fs::create_dir_all(&dir).unwrap();
        let bytes = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|v| v.to_le_bytes()).collect() };
        std::fs::write(dir.join("keys.bin"), bytes(&keys)).unwrap();
        std::fs::write(dir.join("vals.bin"), bytes(&vals)).unwrap();
        std::fs::write(dir.join("out.bin"), vec![0u8; 4 * 6 * n]).unwrap();
        let m = dir.join("warpsort.toml");
        std::fs::write(
            &m,
            format!(
                "code_object = {:?}\nkernel = \"warpsort\"\ngrid = [{n}, 1, 1]\nworkgroup = [{wg}, 1, 1]\n\n\
                 [[args]]\nbuffer = \"keys.bin\"\n\n[[args]]\nbuffer = \"vals.bin\"\n\n\
                 [[args]]\nbuffer = \"out.bin\"\noutput = \"out\"\n\n[[args]]\nu32 = {n}\n",
                co.display().to_string()
            ),
        )
        .unwrap();
        let got = run_lane_both(&m, &dir.join("out"), &format!("warpsort (workgroup {wg})"));
        for (seq, want) in want_pairs.iter().enumerate() {
            for (lane, &(k, v)) in want.iter().enumerate() {
                let i = 32 * seq + lane;
                assert_eq!(
                    &got[3 * i..3 * i + 3],
                    &[k, v, v.wrapping_mul(2_654_435_761)],
                    "warpsort (workgroup {wg}): sequence {seq}, lane {lane}"
                );
            }
        }
        assert_eq!(
            lane_barriers_wg(&co, "warpsort", &tmp, wg),
            32,
            "warpsort (workgroup {wg}): static barriers"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// fixtures/lane/wave_loop.s from the ISA: in each launched wave (lane 0 is always a work-item) the loop
/// runs t = (first work-item id >> 5) + 1 times; a work-item `v0` adds 3 * v0 every iteration and 100
/// in the iterations i < (v0 & 3), then the scalar sum 0 + 1 + ... + (t - 1); it stores that and the value
/// of work-item (v0 & 31) of its workgroup (wave 0's lane, written to LDS before the barrier).
fn wave_loop(grid: u32, wg: u32, ws: u32) -> Vec<u32> {
    let v1 = |v0: u32| {
        let t = ((v0 / ws * ws) >> 5) + 1;
        t * 3 * v0 + 100 * t.min(v0 & 3) + t * (t - 1) / 2
    };
    let mut out = vec![0u32; 2 * grid as usize];
    for g in 0..grid.div_ceil(wg) {
        for v0 in 0..lane::items(grid, wg, g) {
            let i = (g * wg + v0) as usize;
            out[2 * i] = v1(v0);
            out[2 * i + 1] = v1(v0 & 31);
        }
    }
    out
}

/// L45 (decision D238): a loop every lane of a wave leaves together, on an SCC branch whose trip count
/// differs between the waves of the workgroup, runs on each invocation's own label (no vote, `on` or
/// label publication inside it; the copies advance to its exit after it), in wave32 and wave64 with a
/// partial last workgroup (empty waves in wave32). Host vs lavapipe bit for bit in both mappings, and
/// against the ISA.
#[test]
fn wave_local_loops_bit_exact() {
    for (name, grid, wg, ws) in [
        ("wave_loop_w32.toml", 200, 96, 32),
        ("wave_loop_w64.toml", 328, 192, 64),
    ] {
        let want = wave_loop(grid, wg, ws);
        lane::run_fixture_both(name, "lane", &want);
        lane::run_fixture_both(name, "wave", &want);
        let m = root().join("fixtures/lane").join(name);
        let lp = lane::lane_plan_text(&m);
        assert!(
            lp.lines().any(|l| l.starts_with("L45 wave-local loop: ")),
            "{name}: L45 takes the loop\n{lp}"
        );
        // The prologue's, the readfirstlane's exchange, the pass end and the s_barrier met in place; the
        // loop's SCC back edge published the labels (one barrier more) before L45.
        assert_eq!(
            rdna2spv_vulkan::limit::module_cost(&lane::lane_module(&m)).barriers,
            4,
            "{name}: static barriers"
        );
    }
    // The model by hand (wave32, first workgroup): work-item 37 is in wave 1 (t = 2): 2 * 3 * 37 +
    // 100 * min(2, 1) + 1 = 323; it also stores work-item 5's value (wave 0, t = 1): 15 + 100 = 115.
    let w = wave_loop(200, 96, 32);
    assert_eq!((w[74], w[75]), (323, 115));
}
