//! Lane picks read one slot (decision D188): a DPP/permlane/shuffle read of another lane is, in the IR, the
//! wave's lanes read one by one and a multiplexer tree on the per-lane index (D020); the lane mapping
//! reads the one exchange slot the index names instead of every slot of the wave.
//!
//! Needs a Vulkan 1.3 device (lavapipe) for the bit-exact run.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `OpLoad`s of the module's function.
fn loads(module: &[u32]) -> usize {
    let m = rspirv::dr::load_words(module).unwrap();
    m.functions[0]
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == rspirv::spirv::Op::Load)
        .count()
}

/// ACO's subgroup reductions (fixtures/aco/reduce.comp: DPP row steps, v_permlanex16, v_readlane):
/// before D188 each DPP step alone loaded every slot of the wave (the wave64 module, portable profile:
/// 789 loads before, 45 after). The modules still run bit for bit as the evaluator.
#[test]
fn dpp_reductions_read_one_slot_per_pick() {
    for (name, ws) in [
        ("reduce.navi21.w64.toml", 64),
        ("reduce.navi21.w32.toml", 32),
    ] {
        let m = root().join("fixtures/aco").join(name);
        let prof = rdna2spv_spirv::profile::DeviceProfile::portable();
        let module =
            rdna2spv::dispatch::Plan::new(&rdna2spv::manifest::Manifest::load(&m).unwrap())
                .unwrap()
                .module(&prof, rdna2spv_spirv::lower::Mapping::Lane)
                .unwrap();
        let n = loads(&module);
        assert!(n < ws, "{name}: {n} loads, a DPP step reads every slot");
        let out =
            std::env::temp_dir().join(format!("rdna2spv-lane-pick-{ws}-{}", std::process::id()));
        let r = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
            .arg("run")
            .arg(&m)
            .args(["--backend", "both", "--mapping", "lane", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert!(
            r.status.code() == Some(0) && stderr.contains("agree bit for bit"),
            "{name}: exit {:?}\n{stderr}",
            r.status.code()
        );
    }
}

#[path = "support/lane.rs"]
mod lane;

/// fixtures/lane/shuffle_xor.s from the ISA's definitions (wave32; `grid` work-items in workgroups of
/// `wg`). `ds_bpermute_b32 dst, addr, src` writes, in each lane of EXEC, `src` of lane `(addr / 4) & 31`
/// when that lane is in EXEC, else 0; lanes outside EXEC keep `dst`. `v_cmpx_ne_u32` (gfx10) sets EXEC to
/// its lanes where the compare holds; `s_or_b32 exec_lo, exec_lo, s4` restores the saved EXEC.
fn shuffle_xor(grid: u32, wg: u32) -> Vec<u32> {
    let mut out = vec![0u32; 8 * grid as usize];
    for g_wg in 0..grid.div_ceil(wg) {
        let items = lane::items(grid, wg, g_wg);
        for w in 0..items.div_ceil(32) {
            let n = (items - w * 32).min(32);
            let gid = |l: u32| g_wg * wg + w * 32 + l;
            let d = |l: u32| gid(l) ^ 0x5a5a_0000;
            let h = |l: u32| gid(l).wrapping_mul(0x2545_f491);
            let exec0 = |l: u32| l < n;
            let exec_c = |l: u32| exec0(l) && (h(l) >> 11) & 1 == 1;
            let v9 = |l: u32| if exec0(l ^ 1) { d(l ^ 1) } else { 0 };
            let v11 = |l: u32| if exec0(l ^ 8) { d(l ^ 8) } else { 0 };
            let src = |l: u32| if (h(l) >> 5) & 1 == 1 { l ^ 2 } else { l };
            let v14 = |l: u32| match (exec_c(l), exec_c(src(l))) {
                (false, _) => 0xdead,
                (true, true) => d(src(l)),
                (true, false) => 0,
            };
            let v17 = |l: u32| match (exec_c(l), exec_c(l ^ 4)) {
                (false, _) => 0xbeef,
                (true, true) => v9(l ^ 4),
                (true, false) => 0,
            };
            let v18 = |l: u32| if exec0(src(l)) { v14(src(l)) } else { 0 };
            let v19 = |l: u32| if exec0(l ^ 16) { v17(l ^ 16) } else { 0 };
            let exec = if n == 32 { u32::MAX } else { (1 << n) - 1 };
            for l in 0..n {
                let g = gid(l) as usize;
                out[8 * g..8 * g + 8].copy_from_slice(&[
                    v9(l),
                    v11(l),
                    4 * src(l),
                    v14(l),
                    v17(l),
                    v18(l),
                    v19(l),
                    exec,
                ]);
            }
        }
    }
    out
}

/// `OpGroupNonUniformShuffle`s of a module, and its `OpControlBarrier`s once calls are inlined.
fn shuffles_and_barriers(module: &[u32]) -> (usize, usize) {
    let m = rspirv::dr::load_words(module).unwrap();
    let ops = || {
        m.functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .map(|i| i.class.opcode)
    };
    (
        ops()
            .filter(|&o| o == rspirv::spirv::Op::GroupNonUniformShuffle)
            .count(),
        rdna2spv_vulkan::limit::module_cost(module).barriers,
    )
}

/// L44 (D217): rocPRIM's warp-sort shapes. Where the profile measured subgroups of 8 aligned lanes
/// (lavapipe), the `ds_bpermute_b32`s at `L ^ 1`, `L ^ 4`, and at the data-dependent `c ? L ^ 2 : L` (under
/// full EXEC, under a narrowed EXEC, and after it is restored) are shuffles, and so is the source lane's
/// EXEC bit where EXEC is known only as own bits (the `v_cmpx` region); `L ^ 8` and `L ^ 16` cross blocks
/// and keep their exchanges. Bit-exact host vs lavapipe in both mappings against the ISA's values, one
/// wave per workgroup and three waves with a partial and an empty wave.
#[test]
fn picks_inside_a_subgroup_block_are_shuffles_bit_exact() {
    for (manifest, grid, wg) in [
        ("shuffle_xor_1wave.toml", 96, 32),
        ("shuffle_xor_partial.toml", 141, 96),
    ] {
        let m = root().join("fixtures/lane").join(manifest);
        let plan = rdna2spv::dispatch::Plan::new(&rdna2spv::manifest::Manifest::load(&m).unwrap())
            .unwrap();
        let portable = rdna2spv_spirv::profile::DeviceProfile::portable();
        let mut aligned = portable.clone();
        aligned.aligned_subgroup_size = 8;
        let lane = rdna2spv_spirv::lower::Mapping::Lane;
        let (s0, b0) = shuffles_and_barriers(&plan.module(&portable, lane).unwrap());
        let (s8, b8) = shuffles_and_barriers(&plan.module(&aligned, lane).unwrap());
        // Four picks (v9, v14, v17, v18) and the two source-EXEC tests under the v_cmpx (v14, v17).
        assert_eq!(
            (s0, s8),
            (0, 6),
            "{manifest}: shuffles without / with the layout"
        );
        assert!(b8 < b0, "{manifest}: barriers {b0} -> {b8}");
        let want = shuffle_xor(grid, wg);
        // Every case is reached: a source lane outside EXEC (0, in the partial wave), lanes outside the
        // v_cmpx (0xdead, 0xbeef), both ways of the range check, a v_cmpx source lane without q (0).
        let rec: Vec<&[u32]> = want.chunks(8).collect();
        assert_eq!(rec.iter().any(|r| r[0] == 0), grid % 32 != 0);
        assert!(rec.iter().any(|r| r[3] == 0xdead) && rec.iter().any(|r| r[4] == 0xbeef));
        assert!(rec.iter().any(|r| r[3] == 0) && rec.iter().any(|r| r[3] >> 16 == 0x5a5a));
        assert!(rec
            .iter()
            .enumerate()
            .any(|(g, r)| r[2] / 4 != g as u32 % 32));
        assert!(rec
            .iter()
            .enumerate()
            .any(|(g, r)| r[2] / 4 == g as u32 % 32));
        lane::run_fixture_both(manifest, "lane", &want);
        lane::run_fixture_both(manifest, "wave", &want);
    }
}
