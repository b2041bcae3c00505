//! Kernel-argument scalar loads inside vote-free `s_cbranch_execz` regions in the lane mapping (decision
//! D132), on hand-written kernels (fixtures/kernels/kload.s, assembled by `cargo xtask fixtures`).
//!
//! Every kernel sets s12 = 7 and, in the lanes with x < 256, runs a region that `s_cbranch_execz` skips
//! when no lane of the wave has x < 256; the region loads s12 with `s_load_dword` and sets v9. In the lane
//! mapping a vote-free skip runs its region with EXEC = 0 in such a wave, so the load runs where the
//! hardware skips it. D132 allows that only when the load reads inside the kernarg segment through the
//! kernarg pair, unwritten on every path to the load:
//!
//! * `kload_dead` (kernarg offset 0x10, s12 overwritten at the target, the kernarg pair overwritten after
//!   the target: unwritten on every path to the load) and `kload_edge` (0x114, the segment's last dword)
//!   are vote-free;
//! * `kload_live` keeps its vote (s12 read at the target, D102 point 4): a wave with no lane below 256 must
//!   read 7, the others the argument c;
//! * `kload_far` (0x118, past the 280-byte segment), `kload_ptr` (through the buffer pointer loaded from
//!   kernarg: an address the skipped program never formed) and `kload_moved` (the kernarg pair is written
//!   before the branch) keep their vote although s12 is dead at the target: their only obstacle is the
//!   load, so a rule that is too permissive makes them vote-free and the barrier checks fail;
//! * the dispatch packet (a kernel with the dispatch pointer in s[4:5]): `kload_packet` (its dword 1,
//!   workgroup_size_x | workgroup_size_y << 16) is vote-free, `kload_packet_far` (0x40, past the 64-byte
//!   packet) keeps its vote.
//!
//! Each kernel runs with `run --backend both --mapping lane` (host vs lavapipe bit for bit) and the output
//! is compared with the kernel's result computed here from the ISA's definitions (an independent oracle).
//! Mutation check (D132): dropping the in-bounds condition makes `kload_far` vote-free, dropping the
//! unwritten-pair condition `kload_moved`, and turning the rule off makes `kload_dead` keep its vote; each
//! fails this test (a skipped load past the segment cannot be seen in the outputs: lavapipe reads a few
//! bytes past a buffer without a fault, and the host never runs it).

use std::path::{Path, PathBuf};
#[path = "support/lane.rs"]
mod lane;
use lane::{lane_barriers, run_lane_both};

const N: usize = 200;
const WG: usize = 64;
/// The kernel's argument `c` (kernarg offset 16).
const C: u32 = 0x5eed_0c0d;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// x: per 32-lane wave mixed, none < 256, all < 256, mixed, ...
fn inputs() -> Vec<u32> {
    let mut rnd = lane::xorshift(0x1f2e_3d4c_u32);
    (0..N)
        .map(|i| match i / 32 {
            1 | 4 => 256 + rnd() % 1744,
            2 => rnd() % 256,
            _ => rnd() % 1000,
        })
        .collect()
}

/// The kernel's result from the ISA's definitions: out[2i..2i+2] = {v9, s12 at the target}.
fn oracle(kernel: &str, x: &[u32]) -> Vec<u32> {
    let loaded = match kernel {
        "kload_live" | "kload_dead" | "kload_moved" => Some(C),
        "kload_ptr" => Some(x[0]),
        // The AQL packet's dword 1: workgroup_size_x (64) | workgroup_size_y (1) << 16 (HSA AQL layout).
        "kload_packet" => Some(WG as u32 | 1 << 16),
        _ => None, // v9 = x + 100
    };
    let mut out = vec![0u32; 2 * x.len()];
    for w in 0..x.len().div_ceil(32) {
        let lanes: Vec<usize> = (32 * w..(32 * w + 32).min(x.len())).collect();
        let entered = lanes.iter().any(|&i| x[i] < 256);
        for &i in &lanes {
            let v9 = if x[i] < 256 {
                match loaded {
                    Some(v) => v.wrapping_add(x[i]),
                    None => x[i] + 100,
                }
            } else {
                0
            };
            let s12 = match kernel {
                "kload_live" if entered => C,
                "kload_live" => 7,
                _ => 3,
            };
            out[2 * i] = v9;
            out[2 * i + 1] = s12;
        }
    }
    out
}

fn run_lane(tmp: &Path, kernel: &str, x: &[u32]) -> Vec<u32> {
    let dir = tmp.join(kernel);
    std::fs::create_dir_all(&dir).unwrap();
    let xb: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("x.bin"), xb).unwrap();
    std::fs::write(dir.join("out.bin"), vec![0u8; 8 * x.len()]).unwrap();
    let co = root().join("fixtures/kernels/kload.co");
    let m = dir.join(format!("{kernel}.toml"));
    std::fs::write(
        &m,
        format!(
            "code_object = {:?}\nkernel = \"{kernel}\"\ngrid = [{}, 1, 1]\nworkgroup = [{WG}, 1, 1]\n\n\
             [[args]]\nbuffer = \"x.bin\"\n\n[[args]]\nbuffer = \"out.bin\"\noutput = \"out\"\n\n\
             [[args]]\nu32 = {C}\n",
            co.display().to_string(),
            x.len()
        ),
    )
    .unwrap();
    run_lane_both(&m, &dir.join("out"), kernel)
}

fn barriers(kernel: &str, dir: &Path) -> usize {
    lane_barriers(&root().join("fixtures/kernels/kload.co"), kernel, dir)
}

#[test]
fn kernarg_loads_in_vote_free_regions_bit_exact() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-kload-{}", std::process::id()));
    let x = inputs();
    // Waves that enter the region and waves that skip it.
    assert!((32..64).all(|i| x[i] >= 256) && (64..96).all(|i| x[i] < 256));
    assert!((0..32).any(|i| x[i] < 256) && (0..32).any(|i| x[i] >= 256));
    // The _far loads lie past their segment: run only where every wave skips the region (the host
    // evaluator faults on the load where it runs, as the hardware would).
    let far_x: Vec<u32> = x.iter().map(|&v| v | 0x100).collect();
    for kernel in [
        "kload_live",
        "kload_dead",
        "kload_edge",
        "kload_far",
        "kload_ptr",
        "kload_moved",
        "kload_packet",
        "kload_packet_far",
    ] {
        let x = if kernel.ends_with("_far") { &far_x } else { &x };
        let got = run_lane(&tmp, kernel, x);
        let want = oracle(kernel, x);
        for i in 0..x.len() {
            assert_eq!(
                &got[2 * i..2 * i + 2],
                &want[2 * i..2 * i + 2],
                "{kernel}: work-item {i} (x = {})",
                x[i]
            );
        }
    }
    let n = |k: &str| barriers(k, &tmp);
    let (dead, edge, packet) = (n("kload_dead"), n("kload_edge"), n("kload_packet"));
    let keep = [
        ("kload_live", n("kload_live")),
        ("kload_far", n("kload_far")),
        ("kload_ptr", n("kload_ptr")),
        ("kload_moved", n("kload_moved")),
        ("kload_packet_far", n("kload_packet_far")),
    ];
    assert!(
        dead == edge && dead == packet,
        "barriers: kload_dead {dead}, kload_edge {edge}, kload_packet {packet}"
    );
    for (k, b) in keep {
        assert!(
            b > dead,
            "barriers: {k} {b} must keep the skip's vote (kload_dead {dead})"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
