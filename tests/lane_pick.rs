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
