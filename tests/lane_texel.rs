//! Workgroup memory in a storage texel buffer (decision D288): on lavapipe's profile
//! (`lds_in_texel_buffer`) every workgroup variable of a lane module — the kernel's LDS, the exchange
//! slots, ballot words and labels — lives in one texel buffer, a region per workgroup, the dispatch run
//! in chunks of `regions` workgroups with the regions zero-filled before each.
//!
//! The lane tests that run on lavapipe (`run`'s default profile is the device's) go through it where a
//! kernel has `TEXEL_MIN_LOADS` workgroup loads (rocSPARSE's sorts in tests/hip_rocsparse.rs); this file
//! moves every module (`RDNA2SPV_TEXEL_MIN_LOADS=0`) and checks what those cannot: that every fixture's lane module moves all of its workgroup memory and
//! stays valid, that barriers and atomics order image memory where they ordered workgroup memory, and
//! that a dispatch split into many chunks (`RDNA2SPV_TEXEL_REGIONS`) computes what the ISA's rules give,
//! derived here in Rust, and what the host evaluator computes. Needs a Vulkan 1.3 device (lavapipe).

#[path = "support/lane.rs"]
mod lane;

use std::path::{Path, PathBuf};
use std::process::Command;

use rdna2spv::dispatch::Plan;
use rdna2spv::manifest::Manifest;
use rdna2spv_spirv::lower::{texel_lds, Mapping, TEXEL_MIN_LOADS_ENV, TEXEL_REGIONS_ENV};
use rdna2spv_spirv::profile::DeviceProfile;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Op, StorageClass};

/// Every lane module moves, however few its workgroup loads (`TEXEL_MIN_LOADS` keeps small kernels'
/// workgroup memory, which would leave these fixtures out): set once, before any test of this file
/// lowers a module or starts a child (which inherits it).
fn every_module_moves() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::env::set_var(TEXEL_MIN_LOADS_ENV, "0"));
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn manifests(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

fn texel_profile() -> DeviceProfile {
    DeviceProfile {
        lds_in_texel_buffer: true,
        ..DeviceProfile::portable()
    }
}

fn id(o: &Operand) -> Option<u32> {
    match o {
        Operand::IdRef(x) | Operand::IdMemorySemantics(x) | Operand::IdScope(x) => Some(*x),
        _ => None,
    }
}

/// The u32 literal of constant `c`.
fn literal(m: &rspirv::dr::Module, c: u32) -> Option<u32> {
    m.types_global_values
        .iter()
        .find(|i| i.result_id == Some(c) && i.class.opcode == Op::Constant)
        .and_then(|i| match i.operands.first() {
            Some(Operand::LiteralBit32(v)) => Some(*v),
            _ => None,
        })
}

fn workgroup_variables(m: &rspirv::dr::Module) -> usize {
    m.types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Workgroup))
        })
        .count()
}

fn instructions(m: &rspirv::dr::Module) -> impl Iterator<Item = &Instruction> {
    m.functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
}

/// Every lane module of the fixtures that has workgroup memory under the portable profile has none under
/// the texel profile: it carries the texel marks, passes spirv-val, its barriers' semantics that order
/// workgroup memory order image memory too (0x800), and so do its atomics, every one of which goes
/// through `OpImageTexelPointer`. Lane modules without workgroup memory are left as they were.
#[test]
fn every_fixture_moves_all_of_its_workgroup_memory() {
    every_module_moves();
    let (mut moved, mut without) = (0, 0);
    for dir in [
        "fixtures/lane",
        "fixtures/run",
        "fixtures/hip",
        "fixtures/aco",
    ] {
        for path in manifests(dir) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Ok(manifest) = Manifest::load(&path) else {
                continue;
            };
            let Ok(plan) = Plan::new(&manifest) else {
                continue;
            };
            let Ok(plain) = plan.module(&DeviceProfile::portable(), Mapping::Lane) else {
                continue; // the lane mapping refuses it (a wave-only manifest)
            };
            let texel = plan.module(&texel_profile(), Mapping::Lane).unwrap();
            let pm = rspirv::dr::load_words(&plain).unwrap();
            let tm = rspirv::dr::load_words(&texel).unwrap();
            assert!(
                texel_lds(&plain).is_none(),
                "{name}: portable module marked"
            );
            if workgroup_variables(&pm) == 0 {
                assert_eq!(texel, plain, "{name}: no workgroup memory, yet rewritten");
                without += 1;
                continue;
            }
            let t = texel_lds(&texel).unwrap_or_else(|| panic!("{name}: not moved"));
            assert_eq!(workgroup_variables(&tm), 0, "{name}");
            assert!(
                t.region_words.is_multiple_of(4) && t.regions >= 1,
                "{name}: {t:?}"
            );
            lane::spirv_val(&format!("texel-{name}"), &texel);
            // Every workgroup atomic of the portable module is an atomic through a texel pointer here.
            let texel_pointers: std::collections::HashSet<u32> = instructions(&tm)
                .filter(|i| i.class.opcode == Op::ImageTexelPointer)
                .filter_map(|i| i.result_id)
                .collect();
            let mut workgroup_pointers: std::collections::HashSet<u32> = pm
                .types_global_values
                .iter()
                .filter(|i| {
                    i.class.opcode == Op::Variable
                        && i.operands.first()
                            == Some(&Operand::StorageClass(StorageClass::Workgroup))
                })
                .filter_map(|i| i.result_id)
                .collect();
            for i in instructions(&pm) {
                if matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain)
                    && id(&i.operands[0]).is_some_and(|b| workgroup_pointers.contains(&b))
                {
                    workgroup_pointers.extend(i.result_id);
                }
            }
            let atomics_through =
                |m: &rspirv::dr::Module, ptrs: &std::collections::HashSet<u32>| {
                    instructions(m)
                        .filter(|i| format!("{:?}", i.class.opcode).starts_with("Atomic"))
                        .filter(|i| id(&i.operands[0]).is_some_and(|p| ptrs.contains(&p)))
                        .count()
                };
            assert_eq!(
                atomics_through(&tm, &texel_pointers),
                atomics_through(&pm, &workgroup_pointers),
                "{name}: workgroup atomics"
            );
            for i in instructions(&tm) {
                let op = i.class.opcode;
                let sems: Vec<usize> = match op {
                    Op::ControlBarrier => vec![2],
                    Op::MemoryBarrier => vec![1],
                    Op::AtomicCompareExchange => vec![2, 3],
                    o if format!("{o:?}").starts_with("Atomic") => vec![2],
                    _ => vec![],
                };
                for k in sems {
                    let v = literal(&tm, id(&i.operands[k]).unwrap()).unwrap();
                    assert!(
                        v & 0x100 == 0 || v & 0x800 != 0,
                        "{name}: {op:?} orders workgroup memory but not image memory ({v:#x})"
                    );
                }
            }
            moved += 1;
        }
    }
    // Under the portable profile every lane module exchanges through workgroup memory (127 fixtures).
    assert!(moved >= 100, "moved {moved}, without {without}");
}

/// Runs `manifest` with `run --backend both --mapping lane` and `RDNA2SPV_TEXEL_REGIONS=regions` on
/// lavapipe: host and device agree bit for bit, the run says its workgroup memory was in a texel buffer
/// of `regions` workgroups a chunk, and the output words.
fn run_chunked(manifest: &Path, regions: u32) -> Vec<u32> {
    let name = manifest.file_name().unwrap().to_string_lossy().into_owned();
    let dir = std::env::temp_dir().join(format!(
        "rdna2spv-texel-{}-{regions}-{}",
        name.trim_end_matches(".toml"),
        std::process::id()
    ));
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .env(TEXEL_REGIONS_ENV, regions.to_string())
        .arg("run")
        .arg(manifest)
        .args(["--backend", "both", "--timeout-ms", "600000"])
        .args(["--mapping", "lane", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(0) && stderr.contains("agree bit for bit"),
        "{name}, {regions} regions: exit {:?}\n{stderr}",
        out.status.code()
    );
    assert!(
        stderr.contains(&format!("up to {regions} workgroups a chunk")),
        "{name}: the texel buffer was not used with {regions} regions\n{stderr}"
    );
    let outputs: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let file = if outputs.iter().any(|f| f == "out.bin") {
        "out.bin".to_string()
    } else {
        outputs.into_iter().find(|f| f.ends_with(".bin")).unwrap()
    };
    let words = lane::words(&std::fs::read(dir.join(file)).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    words
}

/// Three workgroups in chunks of one and of two (regions reused, refilled with zeros between chunks):
/// the 64-bit LDS atomics under D060's lock and the 32-bit compare-exchange retries, every word derived
/// in Rust from the ISA's rules; and four workgroups that read their LDS before writing it
/// (fixtures/lane/lds_fresh.s): zero, as the host evaluator starts every workgroup's LDS, although each
/// workgroup's region is the one the workgroup before it wrote.
#[test]
fn chunked_dispatches_compute_the_derived_words() {
    every_module_moves();
    for regions in [1, 2] {
        let fresh = run_chunked(&root().join("fixtures/lane/lds_fresh_w32.toml"), regions);
        let want: Vec<u32> = (0..4u32)
            .flat_map(|g| (0..64).flat_map(move |_| [0, g + 1]))
            .collect();
        assert_eq!(fresh, want, "lds_fresh, {regions} regions");
        let sum = run_chunked(&root().join("fixtures/lane/lds64_sum_w32.toml"), regions);
        assert_eq!(
            sum,
            lane::lds64_sum(240, 96),
            "lds64_sum, {regions} regions"
        );
        let cas = run_chunked(&root().join("fixtures/lane/lds32_cas_w64.toml"), regions);
        assert_eq!(
            cas,
            lane::lds32_cas(464, 192),
            "lds32_cas, {regions} regions"
        );
    }
}

/// Grids in chunks: a 3 × 3 × 3 grid of split workgroups (4 waves each, D105: 12 × 3 × 3 Vulkan
/// workgroups) in chunks of 1, 5 and 27 (boxes of partial rows, rows and planes through
/// `vkCmdDispatchBase`, whose `NumWorkgroups` counts the box: the module's workgroup counts come from the
/// pushed grid), hipcc's 4 × 2 grid in chunks of 3, and a reduction over 40 workgroups in chunks of 3:
/// host ≡ device.
#[test]
fn chunked_dispatches_of_grids_agree_with_the_host() {
    every_module_moves();
    for regions in [1, 5, 27] {
        run_chunked(&root().join("fixtures/run/ids3d.toml"), regions);
    }
    run_chunked(&root().join("fixtures/hip/grid2d.toml"), 3);
    run_chunked(&root().join("fixtures/run/reduce.toml"), 3);
}
