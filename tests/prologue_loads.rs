//! Scalar loads of the entry block read once in the module's prologue (decision D118), in both mappings
//! and both wave sizes: fixtures/lane/hoist.s has one load that qualifies (through the initial kernarg-like
//! pair) and two that must not (through a pair the kernel changed first; after a global store in the same
//! block). Each run is `run --backend both` (host evaluator vs lavapipe, bit for bit) and every output
//! word is also compared with the value the ISA gives, derived here from the fixture's data: a load
//! hoisted when it must not be reads the initial memory or address and gives 5 instead of 13 or 7. The
//! module is checked to read exactly one load in its prologue, so the positive case is exercised too.
//!
//! Needs a Vulkan 1.3 device (lavapipe).

use std::path::PathBuf;
use std::process::Command;

use rdna2spv::dispatch::Plan;
use rdna2spv::manifest::Manifest;
use rdna2spv_spirv::lower::{lower_with, LowerOptions, Mapping};
use rdna2spv_spirv::profile::DeviceProfile;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Device-address pointers formed before the module's first structured construct (the work-item ids'
/// lane loop or selection; a one-pass lane module has no outer loop, D142): the prologue's hoisted loads
/// (the launch words come from push constants, and the fixture has no scratch).
fn prologue_loads(module: &[u32]) -> usize {
    let m = rspirv::dr::load_words(module).unwrap();
    let f = &m.functions[0];
    let mut n = 0;
    for b in &f.blocks {
        for i in &b.instructions {
            match i.class.opcode {
                rspirv::spirv::Op::LoopMerge | rspirv::spirv::Op::SelectionMerge => return n,
                rspirv::spirv::Op::ConvertUToPtr => n += 1,
                _ => {}
            }
        }
    }
    n
}

#[test]
fn entry_block_scalar_loads_are_read_in_the_prologue_only_when_nothing_changed_them() {
    for ws in [32, 64] {
        let manifest = root().join(format!("fixtures/lane/hoist_w{ws}.toml"));
        let m = Manifest::load(&manifest).unwrap();
        let mut plan = Plan::new(&m).unwrap();
        let addresses = rdna2spv::dispatch::host_addresses(&plan.buffers);
        plan.bind(&addresses, plan.launch.grid).unwrap();
        let layout = rdna2spv_vulkan::kernel_layout(&plan.launch);
        for (name, mapping) in [("lane", Mapping::Lane), ("wave", Mapping::Wave)] {
            // The prologue is found structurally (before the first construct), which D162's
            // if-conversion of guarded register writes moves: the hoisting (a lowering decision) is
            // checked on the module before lane::shrink (`RDNA2SPV_SHRINK=-`, this binary's only test);
            // the runs below use the full rewrites.
            std::env::set_var("RDNA2SPV_SHRINK", "-");
            let module = lower_with(
                &plan.program,
                &layout,
                &DeviceProfile::portable(),
                &LowerOptions {
                    mapping,
                    ..LowerOptions::default()
                },
            )
            .unwrap();
            std::env::remove_var("RDNA2SPV_SHRINK");
            let dir = std::env::temp_dir().join(format!(
                "rdna2spv-prologue-loads-{ws}-{name}-{}",
                std::process::id()
            ));
            let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
                .arg("run")
                .arg(&manifest)
                .args(["--backend", "both", "--mapping", name, "--out"])
                .arg(&dir)
                .output()
                .expect("run rdna2spv");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "wave{ws} {name}: {stderr}");
            assert!(stderr.contains("agree bit for bit"), "{stderr}");
            let o = words(&std::fs::read(dir.join("out.bin")).unwrap());
            // One workgroup of 64 work-items, each writing its own four words.
            for id in 0..64 {
                assert_eq!(
                    o[4 * id..4 * id + 4],
                    [11, 13, 7, 1],
                    "wave{ws} {name}: work-item {id}"
                );
            }
            assert!(o[256..].iter().all(|&w| w == 0), "wave{ws} {name}");
            let z = words(&std::fs::read(dir.join("z.bin")).unwrap());
            assert_eq!(z, [7, 0, 0, 0], "wave{ws} {name}");
            assert_eq!(prologue_loads(&module), 1, "wave{ws} {name}");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
