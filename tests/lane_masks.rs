//! Lazy lane masks and vote-free `s_cbranch_execz` in the lane mapping (decisions D101, D102), on a
//! hand-written kernel (fixtures/kernels/lanemask.s, assembled by `cargo xtask fixtures`):
//!
//! * a saved EXEC held only as each lane's own bit (`v_cmpx` then `s_and_saveexec_b32`) is read whole in a
//!   later block by `s_bcnt1_i32_b32` and by `v_mov_b32` (stored): a wrongly materialised mask changes both;
//! * an `s_cbranch_execz` whose region holds a nested `s_and_saveexec`/`s_or_b32 exec` pair is vote-free
//!   (EXEC is zero again at the target, D102), one whose region sets EXEC to all lanes keeps its vote (a
//!   wave with no lane below 128 must not run the `v_add` at the target);
//! * an `s_cbranch_execz` whose skipped region writes an SGPR that is read at the target must keep its vote
//!   (`lanemask_live`: a wave with no lane taking the branch must see s12 = 7, not the region's 5); the same
//!   branch with the SGPR overwritten at the target is vote-free (`lanemask_dead`) and has fewer barriers.
//!
//! * wave64 (fixtures/kernels/lanemask_w64.s): the mask unit is an SGPR pair; a saved EXEC pair held as own
//!   bits is read half by half by `v_mov_b32` and whole by `s_bcnt1_i32_b64`.
//!
//! Each kernel runs with `run --backend both --mapping lane` (host vs lavapipe, bit for bit) and the output
//! is compared with the kernel's result computed here from the ISA's definitions (an independent oracle).

use std::path::{Path, PathBuf};
#[path = "support/lane.rs"]
mod lane;
use lane::{lane_barriers, run_lane_both, spirv_val, x_out_manifest};

const N: usize = 200;
const WG: usize = 64;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The lane plan of fixtures/lane/`manifest` (its text, as `--dump-lane-plan` prints it).
fn fixture_plan(manifest: &str) -> String {
    lane::lane_plan_text(&root().join("fixtures/lane").join(manifest))
}

/// The line of plan `lp` (of `manifest`) that mentions `what`.
fn plan_line<'a>(lp: &'a str, manifest: &str, what: &str) -> &'a str {
    lp.lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("{manifest}: no plan line for {what}\n{lp}"))
}

/// x: per 32-lane wave a different pattern (mixed, none < 256, none < 1000, all < 256, random...).
fn inputs() -> Vec<u32> {
    let mut rnd = lane::xorshift(0x2545_f491_u32);
    (0..N)
        .map(|i| match i / 32 {
            0 | 3 | 5 | 6 => rnd() % 2000,
            1 => 256 + rnd() % 1744,
            2 => 1000 + rnd() % 1000,
            _ => rnd() % 256,
        })
        .collect()
}

/// The kernel's result from the ISA's definitions: out[4i..4i+4] = {popcount(M), M, v9, s12}.
fn oracle(x: &[u32], live: bool) -> Vec<u32> {
    let mut out = vec![0u32; 4 * N];
    for w in 0..N.div_ceil(32) {
        let lanes: Vec<usize> = (32 * w..(32 * w + 32).min(N)).collect();
        // v_cmpx_gt_u32 0x3e8, v4: EXEC = lanes with 1000 > x; s_and_saveexec saves that EXEC in s8.
        let mut m = 0u32;
        for &i in &lanes {
            if 1000 > x[i] {
                m |= 1 << (i % 32);
            }
        }
        let any_small = lanes.iter().any(|&i| x[i] < 256);
        // Section 3: s_mov_b32 exec_lo, s10 in the region turns every lane on, so v9 + 1 runs in every
        // lane of a wave that entered it (some x < 128) and in none of the others.
        let any_tiny = lanes.iter().any(|&i| x[i] < 128);
        for &i in &lanes {
            let v9 = if 1000 > x[i] && x[i] & 1 != 0 {
                if 500 < x[i] {
                    0
                } else {
                    x[i] + 100
                }
            } else {
                0
            } + u32::from(any_tiny);
            let s12 = if !live {
                3
            } else if any_small {
                5
            } else {
                7
            };
            out[4 * i..4 * i + 4].copy_from_slice(&[m.count_ones(), m, v9, s12]);
        }
    }
    out
}

fn write_case(dir: &Path, co: &str, kernel: &str, x: &[u32], wg: usize) -> PathBuf {
    x_out_manifest(
        dir,
        &root().join("fixtures/kernels").join(co),
        kernel,
        x,
        16,
        wg,
    )
}

/// Runs `kernel` with `run --backend both --mapping lane` (host vs lavapipe bit for bit); its output words.
fn run_lane(tmp: &Path, co: &str, kernel: &str, x: &[u32], wg: usize) -> Vec<u32> {
    let dir = tmp.join(kernel);
    let m = write_case(&dir, co, kernel, x, wg);
    run_lane_both(&m, &dir.join("out"), kernel)
}

/// `OpControlBarrier`s of the kernel's lane-mapping module, calls inlined.
fn barriers(kernel: &str, dir: &Path) -> usize {
    lane_barriers(&root().join("fixtures/kernels/lanemask.co"), kernel, dir)
}

#[test]
fn lazy_masks_and_vote_free_execz_bit_exact() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-lanemask-{}", std::process::id()));
    let x = inputs();
    // The inputs exercise both outcomes of every branch somewhere.
    assert!((32..64).all(|i| x[i] >= 256) && (64..96).all(|i| x[i] >= 1000));
    assert!((128..160).all(|i| x[i] < 256));
    assert!((0..N)
        .step_by(32)
        .any(|w| (w..(w + 32).min(N)).any(|i| x[i] < 128)));
    for (kernel, live) in [("lanemask_live", true), ("lanemask_dead", false)] {
        let got = run_lane(&tmp, "lanemask.co", kernel, &x, WG);
        let want = oracle(&x, live);
        for i in 0..N {
            assert_eq!(
                &got[4 * i..4 * i + 4],
                &want[4 * i..4 * i + 4],
                "{kernel}: work-item {i} (x = {})",
                x[i]
            );
        }
    }
    // The live SGPR write keeps the second branch's vote; the dead one does not.
    let (live, dead) = (
        barriers("lanemask_live", &tmp),
        barriers("lanemask_dead", &tmp),
    );
    assert!(
        live > dead,
        "barriers: lanemask_live {live}, lanemask_dead {dead}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The wave64 kernel's result: out[4i..4i+4] = {popcount(M), M[31:0], M[63:32], s12} per 64-lane wave.
fn oracle_w64(x: &[u32]) -> Vec<u32> {
    let n = x.len();
    let mut out = vec![0u32; 4 * n];
    for w in 0..n.div_ceil(64) {
        let lanes: Vec<usize> = (64 * w..(64 * w + 64).min(n)).collect();
        let mut m = 0u64;
        for &i in &lanes {
            if 1000 > x[i] {
                m |= 1 << (i % 64);
            }
        }
        let s12 = if lanes.iter().any(|&i| x[i] < 256) {
            5
        } else {
            7
        };
        for &i in &lanes {
            out[4 * i..4 * i + 4].copy_from_slice(&[
                m.count_ones(),
                m as u32,
                (m >> 32) as u32,
                s12,
            ]);
        }
    }
    out
}

/// Wave64: the mask unit is an SGPR pair; the saved EXEC pair (own bits) is read half by half by v_mov
/// (each half read materialises the pair) and whole by s_bcnt1_i32_b64, in workgroups of two waves.
#[test]
fn lazy_masks_wave64_bit_exact() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-lanemask64-{}", std::process::id()));
    let base = inputs();
    // 300 work-items: per 64-lane wave mixed, none < 256, none < 1000, all < 256, mixed (44 lanes).
    let x: Vec<u32> = (0..300)
        .map(|i| match i / 64 {
            1 => 256 + base[i % N] % 1744,
            2 => 1000 + base[i % N] % 1000,
            3 => base[i % N] % 256,
            _ => base[i % N],
        })
        .collect();
    let got = run_lane(&tmp, "lanemask_w64.co", "lanemask_w64", &x, 128);
    let want = oracle_w64(&x);
    for i in 0..x.len() {
        assert_eq!(
            &got[4 * i..4 * i + 4],
            &want[4 * i..4 * i + 4],
            "lanemask_w64: work-item {i} (x = {})",
            x[i]
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

// ---- Skips decided on symbolic SGPR values (D140) ---------------------------------------------------------
//
// fixtures/kernels/symskip.s: `s_and_saveexec_b32 s8, vcc; s_cbranch_execz T` over a region run by the lanes
// with x & 7 != 0. `symskip_same`: the region leaves s9 = -1, s12 and s13 = 5 as they were when run with
// EXEC = 0 (a constant, a bitwise function of a value unknown at the branch): vote-free. `symskip_differ`:
// s12 |= s8 (the saved EXEC) differs: keeps its vote. `symskip_dead`: the counter s13 differs, but EXEC is
// 0 at T when the skip is taken, so T's own execz branch is taken and s13 is overwritten before any read:
// vote-free. `symskip_live`: the same with s13 read after the restore: keeps its vote.

/// x by 32-lane wave: mixed, none entering the region, all entering, one lane entering.
fn sym_inputs() -> Vec<u32> {
    let mut rnd = lane::xorshift(0x1b87_3593_u32);
    (0..N)
        .map(|i| match (i / 32) % 4 {
            1 => rnd() & !7,
            2 => (rnd() & !7) | 3,
            3 => (rnd() & !7) | if i % 32 == 9 { 5 } else { 0 },
            _ => rnd(),
        })
        .collect()
}

/// The kernels' results from the ISA's definitions: out[4i..4i+4] = {v7, v8, v9, v10}.
fn sym_oracle(x: &[u32], kernel: &str, wg: usize) -> Vec<u32> {
    let mut out = vec![0u32; 4 * N];
    for w in 0..N.div_ceil(32) {
        let lanes: Vec<usize> = (32 * w..(32 * w + 32).min(N)).collect();
        // EXEC at the start (the launched lanes) and M, the lanes that run the region.
        let exec: u32 = lanes.iter().map(|&i| 1u32 << (i % 32)).sum();
        let m: u32 = lanes
            .iter()
            .filter(|&&i| x[i] & 7 != 0)
            .map(|&i| 1u32 << (i % 32))
            .sum();
        for &i in &lanes {
            let s12 = (i / wg) as u32 + 0x100;
            let ran = x[i] & 7 != 0;
            let v9 = if ran { x[i].wrapping_add(1) } else { 0 };
            let (v8, v10) = match kernel {
                "symskip_same" => (s12 | m, 5),
                "symskip_differ" => (if m != 0 { s12 | exec } else { s12 }, 5),
                // T's s_cbranch_execz falls through only when some lane ran the region: those lanes read
                // s13 = 6 into v10; then s13 = 7 is added.
                "symskip_dead" => (s12, 7 + if ran { 6 } else { 0 }),
                "symskip_live" => (if m != 0 { 6 } else { 5 }, 7 + if ran { 6 } else { 0 }),
                _ => unreachable!(),
            };
            out[4 * i..4 * i + 4].copy_from_slice(&[u32::MAX, v8, v9, v10]);
        }
    }
    out
}

#[test]
fn symbolic_skips_bit_exact() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-symskip-{}", std::process::id()));
    let x = sym_inputs();
    assert!((32..64).all(|i| x[i] & 7 == 0) && (64..96).all(|i| x[i] & 7 != 0));
    for kernel in [
        "symskip_same",
        "symskip_differ",
        "symskip_dead",
        "symskip_live",
    ] {
        for wg in [32, 64] {
            let dir = tmp.join(format!("{kernel}-{wg}"));
            let m = write_case(&dir, "symskip.co", kernel, &x, wg);
            let got = run_lane_both(&m, &dir.join("out"), &format!("{kernel} (workgroup {wg})"));
            let want = sym_oracle(&x, kernel, wg);
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
    // The vote-free skips cost no exchange; the kept votes one each (EXEC at the branch). symskip_same's
    // one is the whole reads of s9 and s12 at T: with no vote EXEC stays in own form (D101), so the region
    // writes them as own bits and the first v_mov materialises both, s12 riding on s9's exchange (L38,
    // D212; before it each v_mov materialised one: 2 barriers; before D140 the vote materialised EXEC at
    // the branch, the region wrote them whole: 1 barrier; the trade-off of D102).
    let co = root().join("fixtures/kernels/symskip.co");
    let count = |k: &str| lane_barriers(&co, k, &tmp);
    let (same, differ, dead, live) = (
        count("symskip_same"),
        count("symskip_differ"),
        count("symskip_dead"),
        count("symskip_live"),
    );
    assert_eq!(
        (same, differ, dead, live),
        (1, 1, 0, 1),
        "barriers: same {same}, differ {differ}, dead {dead}, live {live}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// fixtures/lane/ballot_rank.s (`ws` 32) and ballot_rank_w64.s (`ws` 64) from the ISA's definitions:
/// `grid` work-items in workgroups of `wg`; each wave's lanes are its work-items (a partial wave's other
/// lanes have EXEC 0; an empty wave is not launched). A ballot is the OR of `1 << L` over the lanes whose
/// EXEC bit is 1 and whose condition holds (VOPC writes 0 for the others). Wave32: `v_and_b32 v, vcc_lo,
/// below` + `v_bcnt_u32_b32` and `v_mbcnt_lo_u32_b32 v, vcc_lo, 5` count its bits below the lane; S and x
/// read the masks' (only) word. Wave64: `v_mbcnt_lo_u32_b32 d, m, a` adds to `a` the bits of `m` below
/// lane `min(L, 32)` and `v_mbcnt_hi_u32_b32 d, m, a` those below lane `L − 32` (none for L < 32), together
/// the ballot's bits below the lane; S and x read the masks' high words (`s9`, `vcc_hi`).
fn ballot_rank(grid: u32, wg: u32, ws: u32) -> Vec<u32> {
    let bit13 = |v: u32| (v.wrapping_mul(0x2545_f491) >> 13) & 1;
    let word = |m: u64| (m >> (ws - 32)) as u32;
    let mut out = vec![0u32; 4 * grid as usize];
    for g_wg in 0..grid.div_ceil(wg) {
        let items = lane::items(grid, wg, g_wg);
        for w in 0..items.div_ceil(ws) {
            let lanes: Vec<u32> = (0..ws).filter(|&l| w * ws + l < items).collect();
            let gid = |l: u32| g_wg * wg + w * ws + l;
            let below = |l: u32| (1u64 << l) - 1;
            let ballot = |f: &dyn Fn(u32) -> bool, act: &dyn Fn(u32) -> bool| {
                lanes
                    .iter()
                    .filter(|&&l| act(l) && f(l))
                    .fold(0u64, |m, &l| m | 1 << l)
            };
            let b = ballot(&|l| bit13(gid(l)) == 1, &|_| true);
            let odd = ballot(&|l| l & 1 == 1, &|_| true);
            let (mut acc, mut x) = ([0u32; 64], [0u32; 64]);
            for trip in 0..4u32 {
                // Lanes still looping: (g & 3) + 1 trips; in trip `trip` the counter j = (g & 3) - trip.
                let looping = |l: u32| gid(l) & 3 >= trip;
                let j = |l: u32| (gid(l) & 3).wrapping_sub(trip);
                let q = ballot(&|l| bit13(gid(l).wrapping_add(3 * j(l))) == 1, &looping);
                for &l in &lanes {
                    if looping(l) {
                        acc[l as usize] += (q & below(l)).count_ones();
                        x[l as usize] ^= word(q);
                    }
                }
            }
            for &l in &lanes {
                let g = gid(l) as usize;
                let r0 = (b & below(l)).count_ones();
                out[4 * g..4 * g + 4].copy_from_slice(&[
                    r0 | (r0 + 5) << 8,
                    word(b & odd) | gid(l) << 8,
                    acc[l as usize],
                    x[l as usize],
                ]);
            }
        }
    }
    out
}

/// A ballot read whole by VALU operations (D157): `v_and_b32 v, vcc_lo, v` (the compaction rank of
/// rocSPARSE's csr2csr_compress), `v_mbcnt_lo_u32_b32 v, vcc_lo, 5`, `v_or_b32 v, s5, v` of an SGPR mask
/// computed by `s_and_b32` of two ballots, and `v_xor_b32 v, vcc_lo, v` inside a loop the lanes leave one
/// by one. The lane lowering used to take the VALU operation for a mask operation on the lanes' own bits
/// and refuse the module ("operand %N is not available where it is used"). Bit-exact host vs lavapipe in
/// the lane and the wave mapping against the ISA's values, one wave per workgroup and three waves with a
/// partial and an empty wave, in wave32 and in wave64 (`v_mbcnt_lo`/`v_mbcnt_hi` of both VCC words, the
/// high words read by VALU).
#[test]
fn ballots_read_whole_by_valu_bit_exact() {
    // The model by hand for work-item 0 (wave 0 of 96 items: g = L): bit 13 of 0 is 0, so R0 = 0,
    // R1 = 5; S = (ballot & odd lanes) | 0; one trip (j = 0).
    let m = ballot_rank(96, 32, 32);
    assert_eq!(m[0] & 0xffff, 5 << 8);
    assert_eq!(m[1] & 1, 0);
    for (manifest, want) in [
        ("ballot_rank_1wave.toml", ballot_rank(96, 32, 32)),
        ("ballot_rank_partial.toml", ballot_rank(136, 96, 32)),
        ("ballot_rank_w64_1wave.toml", ballot_rank(192, 64, 64)),
        ("ballot_rank_w64_partial.toml", ballot_rank(488, 192, 64)),
    ] {
        // The inputs give both outcomes of each ballot somewhere; in wave64 the high words are read
        // and not all zero.
        assert!(want.chunks(4).any(|w| w[0] & 0xff != 0) && want.chunks(4).any(|w| w[3] != 0));
        assert!(want.chunks(4).any(|w| w[1] & 0xff != 0));
        lane::run_fixture_both(manifest, "lane", &want);
        lane::run_fixture_both(manifest, "wave", &want);
    }
}

/// fixtures/lane/cmpx_bpermute.s (`ws` 32) and cmpx_bpermute_w64.s (`ws` 64) from the ISA's definitions:
/// `grid` work-items in workgroups of `wg` (a partial wave's other lanes have EXEC 0; an empty wave is not
/// launched). `v_cmpx_ne_u32 0, v`
/// sets EXEC to EXEC & (v != 0); `ds_bpermute_b32 d, a, s` writes, in each lane L of EXEC, lane
/// `(L & 32) | ((a >> 2) & 31)`'s `s` (within L's 32-lane half) when that lane is in EXEC and 0 otherwise; `v_readfirstlane_b32` reads the lowest
/// lane of EXEC (lane 0 when EXEC is 0); `s_or_b32 exec_lo, exec_lo, s4` restores the saved EXEC;
/// `v_add_nc_u32 v7, 1, v7` (EXEC every item) adds 1 to d.
fn cmpx_bpermute(grid: u32, wg: u32, ws: u32) -> Vec<u32> {
    let mut out = vec![0u32; 4 * grid as usize];
    for g_wg in 0..grid.div_ceil(wg) {
        let items = lane::items(grid, wg, g_wg);
        for w in 0..items.div_ceil(ws) {
            let n = (items - w * ws).min(ws);
            let gid = |l: u32| g_wg * wg + w * ws + l;
            let h = |l: u32| gid(l).wrapping_mul(0x2545_f491);
            let d = |l: u32| gid(l) ^ 0x5a5a_0000;
            let c = |l: u32| (h(l) >> 13) & 1 == 1 || l & 7 == 3;
            let q = |l: u32| (h(l) >> 7) & 1 == 1;
            let src = |l: u32| (l & 32) | ((l + 1) & 31);
            let first = |f: &dyn Fn(u32) -> bool| (0..n).find(|&l| f(l)).unwrap_or(0);
            // A: under EXEC & c.
            let v9: Vec<u32> = (0..n)
                .map(|l| match (c(l), src(l) < n && c(src(l))) {
                    (false, _) => 0xdead,
                    (true, true) => d(src(l)),
                    (true, false) => 0,
                })
                .collect();
            let s8 = d(first(&c));
            // B: EXEC restored (every item), then under EXEC & q.
            let v11: Vec<u32> = (0..n)
                .map(|l| if src(l) < n { v9[src(l) as usize] } else { 0 })
                .collect();
            let s9 = d(first(&q)) + 1;
            for l in 0..n {
                let g = gid(l) as usize;
                out[4 * g..4 * g + 4].copy_from_slice(&[v9[l as usize], s8, v11[l as usize], s9]);
            }
        }
    }
    out
}

/// EXEC made whole on the cross-lane instruction's own exchange (L36, D207): after `v_cmpx` or
/// `s_or_b32 exec_lo, exec_lo, s4` EXEC is each lane's own bit (L9); the next `ds_bpermute_b32` (its
/// source-lane test reads EXEC whole) and `v_readfirstlane_b32` take EXEC's ballot on their own exchange
/// and read EXEC only after it. Bit-exact host vs lavapipe in the lane and the wave mapping against the ISA's
/// values, one wave per workgroup and three waves with a partial and an empty wave.
#[test]
fn exec_made_whole_on_the_instruction_s_own_exchange_bit_exact() {
    for (manifest, grid, wg, ws) in [
        ("cmpx_bpermute_1wave.toml", 96, 32, 32),
        ("cmpx_bpermute_partial.toml", 136, 96, 32),
        ("cmpx_bpermute_w64_1wave.toml", 192, 64, 64),
        ("cmpx_bpermute_w64_partial.toml", 296, 192, 64),
    ] {
        let want = cmpx_bpermute(grid, wg, ws);
        // The inputs reach every case: a source lane outside EXEC (0), a lane outside EXEC (0xdead), a
        // source lane in EXEC, waves whose first lane with c and with q is not lane 0 (whose d is
        // (g & !(ws - 1)) ^ 0x5a5a0000: the workgroups are whole multiples of the wave size).
        assert!(want.chunks(4).any(|w| w[0] == 0));
        assert!(want.chunks(4).any(|w| w[0] == 0xdead));
        assert!(want.chunks(4).any(|w| w[0] >> 16 == 0x5a5a));
        let lane0 = |g: usize| (g as u32 & !(ws - 1)) ^ 0x5a5a_0000;
        assert!(want.chunks(4).enumerate().any(|(g, w)| w[1] != lane0(g)));
        assert!(want
            .chunks(4)
            .enumerate()
            .any(|(g, w)| w[3] != lane0(g) + 1));
        lane::run_fixture_both(manifest, "lane", &want);
        lane::run_fixture_both(manifest, "wave", &want);
    }
}

/// fixtures/lane/bpermute_zero.s (`ws` 32) and bpermute_zero_w64.s (`ws` 64) from the ISA's definitions:
/// `grid` work-items in workgroups of `wg` (a partial wave's other lanes have EXEC 0). `v_cmpx_ne_u32 0, v`
/// sets EXEC to EXEC & (v != 0); `ds_bpermute_b32 d, a, s` writes, in each lane L of EXEC, lane
/// `(L & 32) | ((a >> 2) & 31)`'s `s` when that lane is in EXEC and 0 otherwise (lanes outside EXEC keep
/// `d`); `s_or_b32 exec_lo, exec_lo, s4` restores the saved EXEC.
fn bpermute_zero(grid: u32, wg: u32, ws: u32) -> Vec<u32> {
    let mut out = vec![0u32; 4 * grid as usize];
    for g_wg in 0..grid.div_ceil(wg) {
        let items = lane::items(grid, wg, g_wg);
        for w in 0..items.div_ceil(ws) {
            let n = (items - w * ws).min(ws);
            let gid = |l: u32| g_wg * wg + w * ws + l;
            let h = |l: u32| gid(l).wrapping_mul(0x2545_f491);
            let c = |l: u32| l < n && (h(l) >> 13) & 1 == 1;
            let src = |l: u32| (l & 32) | ((l + 3) & 31);
            for l in 0..n {
                let s = src(l);
                let (v9, v10) = match (c(l), c(s)) {
                    (false, _) => (0xdead, 0xbeef),
                    (true, true) => (gid(s) ^ 0x5a5a_0000, gid(s)),
                    (true, false) => (0, 0),
                };
                let v11 = if s < n { h(s) } else { 0 };
                let g = gid(l) as usize;
                out[4 * g..4 * g + 4].copy_from_slice(&[v9, v10, v11, l]);
            }
        }
    }
    out
}

/// L48 (D278): a `ds_bpermute_b32` under an EXEC known only as own bits stores 0 in its exchange for the lanes
/// outside EXEC and reads its source lane's slot as the result: the plan makes EXEC whole nowhere (before
/// D278 the first bpermute made it whole on its own exchange, L36). The second bpermute rides on the
/// first's exchange (L35, same EXEC); the third, after `s_or_b32 exec_lo, exec_lo, s4`, rides on it too
/// but unzeroed (a zeroed slot would carry the narrowed EXEC's zeros), testing the restored EXEC, which
/// is whole again (L41: the OR equals the saved mask). Bit-exact host vs lavapipe in both mappings against
/// the ISA's values, one wave per workgroup and three waves with a partial and an empty wave, wave32 and
/// wave64.
#[test]
fn bpermute_exchanges_store_zero_outside_exec_bit_exact() {
    for (manifest, grid, wg, ws) in [
        ("bpermute_zero_1wave.toml", 96, 32, 32),
        ("bpermute_zero_partial.toml", 136, 96, 32),
        ("bpermute_zero_w64_1wave.toml", 192, 64, 64),
        ("bpermute_zero_w64_partial.toml", 296, 192, 64),
    ] {
        let want = bpermute_zero(grid, wg, ws);
        // Every case is reached: a source lane outside EXEC (0), a lane outside EXEC, a source lane in
        // EXEC, and a source lane past the wave's items after EXEC is restored (0).
        assert!(want.chunks(4).any(|w| w[0] == 0 && w[1] == 0));
        assert!(want.chunks(4).any(|w| w[0] == 0xdead));
        assert!(want.chunks(4).any(|w| w[0] >> 16 == 0x5a5a));
        // (h of work-item 0 is 0 too: lane 29 of the first wave reads it.)
        assert_eq!(
            want.chunks(4).filter(|w| w[2] == 0).count() > 1,
            manifest.contains("partial")
        );
        lane::run_fixture_both(manifest, "lane", &want);
        lane::run_fixture_both(manifest, "wave", &want);
        let lp = fixture_plan(manifest);
        let line = |what: &str| plan_line(&lp, manifest, what);
        assert!(!lp.contains("materialise exec"), "{manifest}\n{lp}");
        let first = line("ds_bpermute_b32 v9, v8, v7");
        assert!(first.contains("(1 exchange)"), "{manifest}: {first}");
        for rider in ["ds_bpermute_b32 v10, v8, v1", "ds_bpermute_b32 v11, v8, v6"] {
            assert!(
                line(rider).contains("(L35: on the exchange at"),
                "{manifest}: {rider}\n{lp}"
            );
        }
        // L48 at the two bpermutes under the narrowed EXEC, not at the one after it is restored.
        let zeroed = "L48 read from a slot zeroed outside EXEC";
        assert!(first.contains(zeroed), "{manifest}: {first}");
        assert!(
            line("ds_bpermute_b32 v10, v8, v1").contains(zeroed),
            "{manifest}\n{lp}"
        );
        assert!(
            !line("ds_bpermute_b32 v11, v8, v6").contains(zeroed),
            "{manifest}\n{lp}"
        );
    }
}

/// fixtures/lane/tail_dup.s from the ISA's definitions (wave32; `grid` work-items in workgroups of `wg`).
/// `s_and_saveexec_b32 s, m` saves EXEC in `s` and sets EXEC to EXEC & m; `s_or_b32 exec_lo, exec_lo, s`
/// restores it; the out-of-line then blocks run only when EXEC is not 0 and their code only in EXEC's lanes;
/// `v_cmp_ne_u32_e64 s9, 0, v11` in F2 writes s9 = its EXEC lanes (v11 is never 0 there) when F2 runs.
/// out starts zeroed, so F2's load reads 0.
fn tail_dup(grid: u32, wg: u32) -> Vec<u32> {
    let mut out = vec![0u32; 4 * grid as usize];
    for g_wg in 0..grid.div_ceil(wg) {
        let items = lane::items(grid, wg, g_wg);
        for w in 0..items.div_ceil(32) {
            let n = (items - w * 32).min(32);
            let gid = |l: u32| g_wg * wg + w * 32 + l;
            let h = |l: u32| gid(l).wrapping_mul(0x2545_f491);
            let bit = |x: u32, b: u32| (x >> b) & 1 == 1;
            let c0 = |l: u32| bit(h(l), 3) && bit(gid(l) >> 5, 0);
            let c1 = |l: u32| bit(h(l), 9) && bit(gid(l) >> 5, 1);
            let c2 = |l: u32| bit(h(l), 17) && !bit(gid(l) >> 5, 2);
            let any_c1 = (0..n).any(c1);
            let exec = if n == 32 { u32::MAX } else { (1 << n) - 1 };
            for l in 0..n {
                let g = gid(l);
                let d = if any_c1 { c1(l) } else { c2(l) };
                out[4 * g as usize..4 * g as usize + 4].copy_from_slice(&[
                    if c0(l) {
                        g.wrapping_add(h(l)) ^ 0x1111_0000
                    } else {
                        0xdead_0000
                    },
                    if c1(l) { g ^ 0x2222_0000 } else { 0xdead_0001 },
                    if d { g ^ 0x3333_0000 } else { 0xdead_0002 },
                    exec,
                ]);
            }
        }
    }
    out
}

/// clang's tail-duplicated `if`s (L42, D216): an out-of-line then block that ends with a copy of the
/// fall-through block, so the two ways of the EXEC branch never meet. Run with no lane active, the copy does
/// what the fall-through does: the branch needs no vote. Where the then block's prefix writes an SGPR the
/// fall-through's successors read (F2's `v_cmp_ne_u32_e64 s9`), the branches into it keep their vote: a
/// wave with no lane in c1 must see the old s9. Bit-exact host vs lavapipe in both mappings against the
/// ISA's values, one wave per workgroup and three waves with a partial and an empty wave.
#[test]
fn tail_duplicated_ifs_without_votes_bit_exact() {
    for (manifest, grid, wg) in [
        ("tail_dup_1wave.toml", 96, 32),
        ("tail_dup_partial.toml", 136, 96),
    ] {
        let want = tail_dup(grid, wg);
        // Every case is reached: waves with and without a lane in c0 and in c1 (both ways of each branch),
        // and in a wave without c1, lanes whose v12 follows c2.
        let waves: Vec<&[u32]> = want.chunks(4 * 32).collect();
        assert!(waves
            .iter()
            .any(|w| w.chunks(4).all(|x| x[0] == 0xdead_0000)));
        assert!(waves
            .iter()
            .any(|w| w.chunks(4).any(|x| x[0] != 0xdead_0000)));
        assert!(waves
            .iter()
            .any(|w| w.chunks(4).any(|x| x[1] != 0xdead_0001)));
        assert!(waves
            .iter()
            .any(|w| w.chunks(4).all(|x| x[1] == 0xdead_0001)
                && w.chunks(4).any(|x| x[2] != 0xdead_0002)));
        lane::run_fixture_both(manifest, "lane", &want);
        lane::run_fixture_both(manifest, "wave", &want);
    }
}

/// fixtures/lane/vcc_branch.s (and its wave64 twin) from the ISA's definitions: `grid` work-items in
/// workgroups of `wg`, waves of `ws` lanes. `v_cmp_*_e32 vcc` sets the bits of the wave's active lanes
/// (the work-items) whose comparison holds and clears the others; `s_cbranch_vccz` / `s_cbranch_vccnz`
/// jump when VCC is / is not 0, for the whole wave.
fn vcc_branch(grid: u32, wg: u32, ws: u32) -> Vec<u32> {
    let mut out = vec![0u32; 4 * grid as usize];
    for g_wg in 0..grid.div_ceil(wg) {
        let items = lane::items(grid, wg, g_wg);
        for w in 0..items.div_ceil(ws) {
            let gids: Vec<u32> = (0..(items - w * ws).min(ws))
                .map(|l| g_wg * wg + w * ws + l)
                .collect();
            let h = |g: u32| g.wrapping_mul(0x2545_f491);
            let wave = |g: u32| g / ws;
            let t = |g: u32| if wave(g) & 3 != 0 { h(g) & 7 } else { 0 };
            let u = |g: u32| if wave(g) & 4 != 0 { (h(g) >> 3) & 7 } else { 0 };
            let a = gids.iter().any(|&g| t(g) != 0);
            let m = gids.iter().map(|&g| t(g)).max().unwrap_or(0).max(1);
            let c = gids.iter().any(|&g| u(g) > 5);
            for &g in &gids {
                out[4 * g as usize..4 * g as usize + 4].copy_from_slice(&[
                    if a { g ^ 0x1111_0000 } else { 0xdead_0000 },
                    m * (m + 1) / 2,
                    g ^ if c { 0x4444_0000 } else { 0x3333_0000 },
                    m,
                ]);
            }
        }
    }
    out
}

/// Branches on VCC take every wave's label from the exchange that makes VCC whole at the branch (L23 for
/// VCC, D234): an `s_cbranch_vccz` over a block, a loop whose back edge is `s_cbranch_vccnz` (the waves of
/// one workgroup loop different numbers of times) and an `s_cbranch_vccnz` if/else, in three and five waves
/// of wave32 and three of wave64, with a partial and an empty wave. Bit-exact host vs lavapipe in both
/// mappings against the ISA's values (the rule's decision on such a block:
/// `crates/spirv/src/lower/lane/plan.rs::l23_vcc_branch_labels_come_from_its_own_exchange`).
#[test]
fn vcc_branch_labels_from_the_exchange_bit_exact() {
    for (manifest, grid, wg, ws) in [
        ("vcc_branch_partial.toml", 328, 96, 32),
        ("vcc_branch_5w.toml", 616, 160, 32),
        ("vcc_branch_w64_partial.toml", 872, 192, 64),
    ] {
        let want = vcc_branch(grid, wg, ws);
        let waves: Vec<&[u32]> = want.chunks(4 * ws as usize).collect();
        // Both ways of A and of C, and waves of one workgroup that loop different numbers of times.
        assert!(waves.iter().any(|w| w[0] == 0xdead_0000));
        assert!(waves.iter().any(|w| w[0] != 0xdead_0000));
        assert!(waves.iter().any(|w| w[2] >> 16 == 0x4444));
        assert!(waves.iter().any(|w| w[2] >> 16 == 0x3333));
        let per_wg = (wg / ws) as usize;
        assert!(waves
            .chunks(per_wg)
            .any(|ws| ws.iter().any(|w| w[3] != ws[0][3])));
        lane::run_fixture_both(manifest, "lane", &want);
        lane::run_fixture_both(manifest, "wave", &want);
    }
}

/// The lane module's exchange functions (L51, D285): per function other than the entry point that holds an
/// `OpControlBarrier`, how many barriers it holds and how many times the entry point calls it.
fn exchange_functions(module: &[u32]) -> Vec<(usize, usize)> {
    use rspirv::spirv::Op;
    let m = rspirv::dr::load_words(module).unwrap();
    fn count(f: &rspirv::dr::Function, keep: impl Fn(&rspirv::dr::Instruction) -> bool) -> usize {
        f.blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter(|&i| keep(i))
            .count()
    }
    m.functions[1..]
        .iter()
        .map(|f| {
            let id = f.def.as_ref().and_then(|d| d.result_id);
            let barriers = count(f, |i| i.class.opcode == Op::ControlBarrier);
            let calls = count(&m.functions[0], |i| {
                i.class.opcode == Op::FunctionCall
                    && i.operands.first() == id.map(rspirv::dr::Operand::IdRef).as_ref()
            });
            (barriers, calls)
        })
        .filter(|&(barriers, _)| barriers > 0)
        .collect()
}

/// L51 (D285): where the plan counts three mask exchanges or more (one ballot set), each one-ballot
/// exchange is a call of one function that ORs the lane's bit into the rotating ballot words, meets the
/// barrier, moves the rotation on and returns the wave's word (wave64: its two words). The ballot ranks
/// (one wave, and three with a partial and an empty wave; in wave64 both mask words read by VALU) and the
/// VCC branches whose labels come from the exchange's words of every wave (L23; wave32 in three and five
/// waves, wave64 in three, where lanes 0 and 1 clear the next buffer's two words): the module holds one
/// such function with one barrier, called once per mask exchange of the plan, and meets as many barriers
/// once inlined as the plan's sites; host ≡ lavapipe against the ISA's values with the function (its
/// rotation a Private variable the function stores, and, `RDNA2SPV_OUTLINE_BALLOTS=site`, a Function
/// variable each call's site stores) and with the exchanges inline (`=0`).
#[test]
fn one_ballot_exchanges_call_one_function_bit_exact() {
    for (manifest, want) in [
        ("ballot_rank_1wave.toml", ballot_rank(96, 32, 32)),
        ("ballot_rank_partial.toml", ballot_rank(136, 96, 32)),
        ("vcc_branch_partial.toml", vcc_branch(328, 96, 32)),
        ("vcc_branch_5w.toml", vcc_branch(616, 160, 32)),
        ("vcc_branch_w64_partial.toml", vcc_branch(872, 192, 64)),
        ("ballot_rank_w64_1wave.toml", ballot_rank(192, 64, 64)),
        ("ballot_rank_w64_partial.toml", ballot_rank(488, 192, 64)),
    ] {
        let lp = fixture_plan(manifest);
        let sites = plan_line(&lp, manifest, "barrier sites: ");
        let number = |what: &str| -> usize {
            let at = sites
                .find(what)
                .unwrap_or_else(|| panic!("{manifest}: {what}\n{sites}"));
            sites[..at]
                .split_whitespace()
                .last()
                .unwrap()
                .parse()
                .unwrap()
        };
        let (total, masks) = (
            sites["barrier sites: ".len()..]
                .split_whitespace()
                .next()
                .unwrap()
                .parse::<usize>()
                .unwrap(),
            number(" (L9, L10)"),
        );
        assert!(masks >= 3, "{manifest}: {sites}");
        let module = lane::lane_module(&root().join("fixtures/lane").join(manifest));
        assert_eq!(
            exchange_functions(&module),
            [(1, masks)],
            "{manifest}: one exchange function, called at each mask exchange\n{sites}"
        );
        assert_eq!(
            rdna2spv_vulkan::limit::module_cost(&module).barriers,
            total,
            "{manifest}: barriers met once inlined\n{sites}"
        );
        lane::run_fixture_both(manifest, "lane", &want);
        for switch in ["site", "0"] {
            lane::run_fixture_both_env(
                manifest,
                "lane",
                &want,
                &[("RDNA2SPV_OUTLINE_BALLOTS", switch)],
            );
        }
    }
}

/// Static counts in a lane module's functions: `OpAtomicOr`s and `OpGroupNonUniformShuffle`s.
fn atomics_and_shuffles(module: &[u32]) -> (usize, usize) {
    use rspirv::spirv::Op;
    let m = rspirv::dr::load_words(module).unwrap();
    let ops: Vec<Op> = m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .map(|i| i.class.opcode)
        .collect();
    let count = |op: Op| ops.iter().filter(|&&o| o == op).count();
    (count(Op::AtomicOr), count(Op::GroupNonUniformShuffle))
}

/// L46 (D246): ballots through subgroup shuffles. Where the profile measured aligned subgroups of 8 lanes
/// and their shuffles (lavapipe, L44) and an exchange carries up to two or more ballots (the plan's ballot
/// sets: `laneloop_zero`, `symskip_same`), a wave32 lane module gathers each ballot's bits within a subgroup
/// by a butterfly of shuffles and combines the wave's four subgroups through plain workgroup stores and
/// loads: no `OpAtomicOr` is left (the portable profile keeps D125's atomics; so do kernels of one ballot
/// set, where L46 would cost words, and wave64); subgroups of 16 and 32 give valid modules too. Bit for bit
/// host vs lavapipe against the ISA's values (those two kernels run with L46 in tests/lane_loops.rs and
/// above) with L46 forced on single-ballot kernels (`RDNA2SPV_SUB_BALLOTS=all`: ballots read whole in three
/// waves with a partial and an empty wave; VCC branches in five waves, whose L23 reads of 20 subgroups' words
/// leave the last of three loads partly past the last subgroup) and with it off (`=0`).
#[test]
fn ballots_through_subgroup_shuffles_bit_exact() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-sub-ballots-{}", std::process::id()));
    let portable = rdna2spv_spirv::profile::DeviceProfile::portable();
    let with = |size: u32| {
        let mut p = portable.clone();
        p.aligned_subgroup_size = size;
        p
    };
    let lane = rdna2spv_spirv::lower::Mapping::Lane;
    let x: Vec<u32> = (0..128u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) >> 7)
        .collect();
    for (co, kernel) in [
        ("laneloop.co", "laneloop_zero"),
        ("symskip.co", "symskip_same"),
    ] {
        let dir = tmp.join(kernel);
        let m = x_out_manifest(
            &dir,
            &root().join("fixtures/kernels").join(co),
            kernel,
            &x,
            16,
            64,
        );
        let plan = rdna2spv::dispatch::Plan::new(&rdna2spv::manifest::Manifest::load(&m).unwrap())
            .unwrap();
        let (a0, s0) = atomics_and_shuffles(&plan.module(&portable, lane).unwrap());
        let (a8, s8) = atomics_and_shuffles(&plan.module(&with(8), lane).unwrap());
        assert!(
            a0 > 0 && s0 == 0,
            "{kernel}: portable: {a0} atomics, {s0} shuffles"
        );
        // Per exchange with ballots: 3 butterfly steps before the barrier, 2 after.
        assert!(
            a8 == 0 && s8 >= 5,
            "{kernel}: aligned 8: {a8} atomics, {s8} shuffles"
        );
        for size in [16, 32] {
            let module = plan.module(&with(size), lane).unwrap();
            assert_eq!(atomics_and_shuffles(&module).0, 0, "{kernel}: S = {size}");
            spirv_val(&format!("sub-ballots-{size}-{kernel}"), &module);
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    // One ballot set: D125 (fewer words).
    let vcc = root().join("fixtures/lane/vcc_branch_5w.toml");
    let plan =
        rdna2spv::dispatch::Plan::new(&rdna2spv::manifest::Manifest::load(&vcc).unwrap()).unwrap();
    let (a, _) = atomics_and_shuffles(&plan.module(&with(8), lane).unwrap());
    assert!(a > 0, "vcc_branch_5w: one ballot set keeps the atomics");
    let cases: [(&str, Vec<u32>); 3] = [
        ("ballot_rank_partial.toml", ballot_rank(136, 96, 32)),
        ("vcc_branch_5w.toml", vcc_branch(616, 160, 32)),
        ("vcc_branch_w64_partial.toml", vcc_branch(872, 192, 64)),
    ];
    for (manifest, want) in cases {
        for mode in ["all", "0"] {
            lane::run_fixture_both_env(manifest, "lane", &want, &[("RDNA2SPV_SUB_BALLOTS", mode)]);
        }
    }
}

/// fixtures/lane/future_ballots.s (`ws` 32) and future_ballots_w64.s (`ws` 64) from the ISA's definitions:
/// `grid` work-items in workgroups of `wg` (a partial wave's other lanes have EXEC 0), `n_valid` valid
/// ones. `v_cmpx_eq_u32 0, v3` sets EXEC to EXEC & (v3 == 0); `v_cmp_* s, ...` writes bit L of s = the
/// comparison in each lane L of EXEC and 0 elsewhere (VCC the same); `v_xor_b32 v, s, v` reads the whole
/// of s (one half of a wave64 pair) in every lane; `v_mbcnt_lo/hi_u32_b32` count a mask's bits below the
/// lane, `v_bcnt_u32_b32` all of them. For a lane with digit bit b set, `(b - 1) ^ s` is s (the lanes of
/// EXEC with the bit set); with it clear, `!s` (the lanes with it clear, and the lanes outside EXEC, which
/// VCC's AND removes; bit 2's xor is stored as it is: its low word in wave32, its high word in wave64).
/// Lanes outside EXEC keep their 0xdead, 0xbeef, 0xcafe, 0xf00d.
fn future_ballots(grid: u32, wg: u32, n_valid: u32, ws: u32) -> Vec<u32> {
    digit_waves(grid, wg, ws, n_valid, |w, l| {
        if !w.exec(l) {
            return [0xdead, 0xbeef, 0xcafe, 0xf00d];
        }
        let m = (0..4).fold(w.vcc(), |m, b| m & w.xor_bit(l, b));
        let below = m & ((1u64 << l) - 1);
        let x2 = if ws == 32 {
            w.xor_bit(l, 2)
        } else {
            w.xor_bit(l, 2) >> 32
        };
        [below.count_ones(), m.count_ones(), m as u32, x2 as u32]
    })
}

/// One wave of the digit fixtures (future_ballots.s, future_merged.s): its lanes' global ids start at
/// `base`, `n` of its `ws` lanes have work-items, `n_valid` work-items of the grid are valid.
struct DigitWave {
    base: u32,
    n: u32,
    ws: u32,
    n_valid: u32,
}

impl DigitWave {
    fn gid(&self, l: u32) -> u32 {
        self.base + l
    }
    /// Bits 7..10 of g * 0x2545f491.
    fn digit(&self, l: u32) -> u32 {
        (self.gid(l).wrapping_mul(0x2545_f491) >> 7) & 15
    }
    /// EXEC after `v_cmpx_eq_u32 0, v3`: a work-item whose bit 20 of g * 0x2545f491 is 0.
    fn exec(&self, l: u32) -> bool {
        l < self.n && (self.gid(l).wrapping_mul(0x2545_f491) >> 20) & 1 == 0
    }
    /// A VOPC's mask: bit j set for the lanes j of EXEC where `c(j)` holds.
    fn ballot(&self, c: impl Fn(u32) -> bool) -> u64 {
        (0..self.ws)
            .filter(|&j| self.exec(j) && c(j))
            .map(|j| 1u64 << j)
            .sum()
    }
    /// VCC = `v_cmp_gt_u32 s4, v1`: the valid lanes of EXEC.
    fn vcc(&self) -> u64 {
        self.ballot(|j| self.gid(j) < self.n_valid)
    }
    /// Lane `l`'s `(b - 1) ^ s` for digit bit `b` and its ballot s: s where the lane's bit is set, the
    /// wave's other bits where it is clear.
    fn xor_bit(&self, l: u32, b: u32) -> u64 {
        let s = self.ballot(|j| (self.digit(j) >> b) & 1 == 1);
        let all = u64::MAX >> (64 - self.ws);
        if (self.digit(l) >> b) & 1 == 1 {
            s
        } else {
            all ^ s
        }
    }
}

/// Every wave of `grid` work-items in workgroups of `wg` (waves of `ws`): `words(wave, lane)` are the
/// four output words of each work-item.
fn digit_waves(
    grid: u32,
    wg: u32,
    ws: u32,
    n_valid: u32,
    words: impl Fn(&DigitWave, u32) -> [u32; 4],
) -> Vec<u32> {
    let mut out = vec![0u32; 4 * grid as usize];
    for g_wg in 0..grid.div_ceil(wg) {
        let items = lane::items(grid, wg, g_wg);
        for w in 0..items.div_ceil(ws) {
            let wave = DigitWave {
                base: g_wg * wg + w * ws,
                n: (items - w * ws).min(ws),
                ws,
                n_valid,
            };
            for l in 0..wave.n {
                let g = wave.gid(l) as usize;
                out[4 * g..4 * g + 4].copy_from_slice(&words(&wave, l));
            }
        }
    }
    out
}

/// L50 (D284): rocPRIM's match-any reuses its mask registers, so a digit bit's ballot is written after
/// the exchange that makes the previous one whole (L38 cannot move it there). Its own bit is computed at
/// that exchange instead — the condition's register reads see the same values there, the one written
/// in between replaced by the value written — and its full value is written with the ballot: the four
/// bits and VCC take one mask exchange, not three. Bit-exact host vs lavapipe in both mappings against
/// the ISA's values, one wave per workgroup and three waves with a partial and an empty wave, wave32 and
/// wave64 (a ballot written as it is, not truncated), under an EXEC narrowed by `v_cmpx` (own bits only).
#[test]
fn later_ballots_formed_on_an_earlier_exchange_bit_exact() {
    for (manifest, grid, wg, n, ws) in [
        ("future_ballots_1wave.toml", 96, 32, 80, 32),
        ("future_ballots_partial.toml", 136, 96, 120, 32),
        ("future_ballots_w64_1wave.toml", 192, 64, 150, 64),
        ("future_ballots_w64_partial.toml", 296, 192, 250, 64),
    ] {
        let want = future_ballots(grid, wg, n, ws);
        // Every case is reached: lanes outside EXEC, invalid lanes, groups of one lane and of several.
        assert!(want.chunks(4).any(|w| w[1] == 0xbeef));
        assert!(want.chunks(4).any(|w| w[1] == 0));
        assert!(want.chunks(4).any(|w| w[1] == 1));
        assert!(want
            .chunks(4)
            .any(|w| w[1] > 1 && w[1] != 0xbeef && w[0] > 0));
        lane::run_fixture_both(manifest, "lane", &want);
        lane::run_fixture_both(manifest, "wave", &want);
        let lp = fixture_plan(manifest);
        let line = |what: &str| plan_line(&lp, manifest, what);
        let (first, s10) = if ws == 32 {
            ("v_xor_b32_e32 v37, s10, v37", "s10")
        } else {
            ("v_xor_b32_e32 v44, s11, v37", "s[10:11]")
        };
        assert!(
            line(first).contains("L50 later ballots"),
            "{manifest}\n{lp}"
        );
        for v in ["v40", "v39"] {
            let later = format!("v_cmp_ne_u32_e64 {s10}, 0, {v}");
            assert!(
                line(&later).contains("whole from an earlier exchange"),
                "{manifest}: {later}\n{lp}"
            );
        }
        assert!(lp.contains("mask exchanges 1 "), "{manifest}\n{lp}");
    }
}

/// fixtures/lane/future_merged.s from the ISA's definitions (wave32; `grid` work-items in workgroups of
/// `wg`, `n_valid` valid): as [`future_ballots`]'s, and `v_readfirstlane_b32 s12, v1` writes v1 of EXEC's
/// first lane (s12 keeps 0xbeef when EXEC is empty).
fn future_merged(grid: u32, wg: u32, n_valid: u32) -> Vec<u32> {
    digit_waves(grid, wg, 32, n_valid, |w, l| {
        let s12 = (0..32).find(|&j| w.exec(j)).map_or(0xbeef, |j| w.gid(j));
        if w.exec(l) {
            let x = |b| w.xor_bit(l, b) as u32;
            [x(0) & w.vcc() as u32, x(2), s12, w.digit(l)]
        } else {
            [0xcafe, 0xf00d, s12, w.digit(l)]
        }
    })
}

/// L50 with L36 (D284, D207): the exchange the later ballot rides on is itself a cross-lane read's own
/// exchange (`v_readfirstlane_b32` makes EXEC whole there, and s10 and VCC ride on it, L38), so the later
/// ballot's own bit is formed in that instruction's lane body and its full value taken from that exchange.
/// Bit-exact host vs lavapipe in both mappings against the ISA's values, one wave and three with a partial
/// and an empty one; no mask exchange of its own in the plan.
#[test]
fn later_ballots_ride_on_a_cross_lane_read_s_own_exchange_bit_exact() {
    for (manifest, grid, wg, n) in [
        ("future_merged_1wave.toml", 96, 32, 80),
        ("future_merged_partial.toml", 136, 96, 120),
    ] {
        let want = future_merged(grid, wg, n);
        assert!(want.chunks(4).any(|w| w[0] == 0xcafe));
        assert!(want.chunks(4).any(|w| w[0] != 0xcafe && w[0] != 0));
        lane::run_fixture_both(manifest, "lane", &want);
        lane::run_fixture_both(manifest, "wave", &want);
        let lp = fixture_plan(manifest);
        let first = plan_line(&lp, manifest, "v_readfirstlane_b32 s12, v1");
        assert!(
            first.contains("(L36: on its own exchange)") && first.contains("L50 later ballots"),
            "{manifest}\n{lp}"
        );
        assert!(
            plan_line(&lp, manifest, "v_cmp_ne_u32_e64 s10, 0, v40")
                .contains("whole from an earlier exchange"),
            "{manifest}\n{lp}"
        );
        assert!(lp.contains("mask exchanges 0 "), "{manifest}\n{lp}");
    }
}

/// Accesses of a lane module to the L46 ballot buffer, the Workgroup array of `len` `uvec4` elements:
/// (scalar loads, scalar stores, vector loads, vector stores), counted through the access chains into it.
fn ballot_buffer_accesses(module: &[u32], len: u32) -> (usize, usize, usize, usize) {
    use rspirv::dr::Operand;
    use rspirv::spirv::{Op, StorageClass};
    let m = rspirv::dr::load_words(module).unwrap();
    let consts: std::collections::HashMap<u32, u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter_map(|i| match i.operands.first() {
            Some(Operand::LiteralBit32(v)) => Some((i.result_id?, *v)),
            _ => None,
        })
        .collect();
    let ty = |id: u32| {
        m.types_global_values
            .iter()
            .find(|i| i.result_id == Some(id))
    };
    let is_vec = |id: u32| ty(id).is_some_and(|i| i.class.opcode == Op::TypeVector);
    let ptr_pointee = |id: u32| {
        ty(id).and_then(|i| match (i.class.opcode, &i.operands[..]) {
            (
                Op::TypePointer,
                [Operand::StorageClass(StorageClass::Workgroup), Operand::IdRef(p)],
            ) => Some(*p),
            _ => None,
        })
    };
    let buffer = m
        .types_global_values
        .iter()
        .find(|i| {
            i.class.opcode == Op::Variable
                && i.result_type
                    .and_then(ptr_pointee)
                    .and_then(ty)
                    .is_some_and(|a| {
                        a.class.opcode == Op::TypeArray
                            && matches!(a.operands[..], [Operand::IdRef(e), Operand::IdRef(n)]
                                if is_vec(e) && consts.get(&n) == Some(&len))
                    })
        })
        .and_then(|i| i.result_id)
        .expect("the ballot buffer");
    let insts: Vec<&rspirv::dr::Instruction> = m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .collect();
    // Pointers into the buffer and whether each points to a vector.
    let ptrs: std::collections::HashMap<u32, bool> = insts
        .iter()
        .filter(|i| {
            i.class.opcode == Op::AccessChain
                && matches!(i.operands.first(), Some(Operand::IdRef(b)) if *b == buffer)
        })
        .map(|i| {
            let pointee = i.result_type.and_then(ptr_pointee).unwrap();
            (i.result_id.unwrap(), is_vec(pointee))
        })
        .collect();
    let mut n = (0, 0, 0, 0);
    for i in &insts {
        let (p, load) = match (i.class.opcode, i.operands.first()) {
            (Op::Load, Some(Operand::IdRef(p))) => (*p, true),
            (Op::Store, Some(Operand::IdRef(p))) => (*p, false),
            _ => continue,
        };
        match (ptrs.get(&p), load) {
            (Some(false), true) => n.0 += 1,
            (Some(false), false) => n.1 += 1,
            (Some(true), true) => n.2 += 1,
            (Some(true), false) => n.3 += 1,
            (None, _) => {}
        }
    }
    n
}

/// L52 (D286): the ballot words of an exchange of several ballots through subgroup shuffles (L46), one
/// scalar workgroup access per lane: after the butterfly every lane of a subgroup holds every ballot's
/// bits, and lane k stores ballot k's word (one store for up to 8 ballots where a `uvec4` store per four
/// ballots was four of lavapipe's per-component lane loops); after the barrier lane k of each subgroup
/// reads subgroup k % 4's word of ballot k / 4 (2 ballots per scalar load where a `uvec4` load was
/// four loops), ORs it over its block of 4 lanes and each ballot's mask is shuffled from its block's
/// first lane. Five waves in one Vulkan workgroup (LDS in the descriptor, no split) with a partial and
/// two empty waves; the match-any exchanges carry five ballots (two groups of four: every round of the
/// store's group select and three loads, the last clamped) and four (future_merged's, on a
/// `v_readfirstlane_b32`'s own exchange). ISA oracle, host ≡ lavapipe with L52 and with
/// `RDNA2SPV_SUB_WORDS=0` (the `uvec4` words).
#[test]
fn several_ballots_one_word_per_lane_bit_exact() {
    let mut aligned = rdna2spv_spirv::profile::DeviceProfile::portable();
    aligned.aligned_subgroup_size = 8;
    let lane = rdna2spv_spirv::lower::Mapping::Lane;
    for (manifest, n, want) in [
        (
            "future_ballots_lds.toml",
            5u32,
            future_ballots(392, 160, 380, 32),
        ),
        ("future_merged_lds.toml", 4, future_merged(392, 160, 380)),
    ] {
        let path = root().join("fixtures/lane").join(manifest);
        let plan =
            rdna2spv::dispatch::Plan::new(&rdna2spv::manifest::Manifest::load(&path).unwrap())
                .unwrap();
        let module = plan.module(&aligned, lane).unwrap();
        spirv_val(&format!("sub-words-{manifest}"), &module);
        // Two buffers × five waves × four subgroups × ⌈n / 4⌉ uvec4.
        let (loads, stores, vloads, vstores) =
            ballot_buffer_accesses(&module, 2 * 5 * 4 * n.div_ceil(4));
        assert_eq!((vloads, vstores), (0, 0), "{manifest}: vector accesses");
        // Per exchange one store (n ≤ 8) and ⌈n / 2⌉ loads.
        assert!(
            stores > 0 && loads == stores * n.div_ceil(2) as usize,
            "{manifest}: {loads} loads, {stores} stores"
        );
        assert!(want.chunks(4).any(|w| w[0] == 0xcafe || w[1] == 0xbeef));
        for words in ["1", "0"] {
            lane::run_fixture_both_env(manifest, "lane", &want, &[("RDNA2SPV_SUB_WORDS", words)]);
        }
    }
}
