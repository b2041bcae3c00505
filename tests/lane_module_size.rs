//! Lane modules proportionate to the code (issue 31, decisions D162, D163): the rewrites of
//! `crates/spirv/src/lower/lane/shrink.rs` keep results bit for bit and keep module sizes at today's
//! measured floors (docs/performance.md, "Lane module size").
//!
//! - divsqrt64 (fixtures/kernels/divsqrt64.s: v_div_scale/fmas/fixup and v_fma_f64 chains) in the lane
//!   mapping with the portable profile, where every f64 FMA is the integer emulation: the repeated
//!   emulations are one SPIR-V function each (D163), and so is the code of each repeated division
//!   instruction around its primitives (D235: such a function calls them; v_div_scale_f64's returns its
//!   value and VCC bit as one struct), host evaluator and lavapipe agree bit for bit, and the module is at
//!   most 12,200 words (11,114 measured after D235, 13,521 before; 13,240 after D205, 13,903 before; 31,533 at the default workgroup after D182; 32,017 after
//!   D168's portable f32 subnormal emulations; 20,731 before them; 75,769 before D162/D163).
//! - rocSPARSE kernels from the corpus (`cargo xtask corpus rocsparse`, as tests/rocsparse_kernels.rs):
//!   module words at most today's value plus 10 %, each spirv-val clean.
//!
//! Needs a Vulkan 1.3 device (lavapipe) and spirv-val.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn words_of(path: &std::path::Path) -> usize {
    std::fs::metadata(path).unwrap().len() as usize / 4
}

/// `rdna2spv translate --mapping lane --profile portable --kernel KERNEL` (the file and output follow).
fn translate_lane_portable(kernel: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rdna2spv"));
    cmd.args([
        "translate",
        "--mapping",
        "lane",
        "--profile",
        "portable",
        "--kernel",
        kernel,
    ]);
    cmd
}

#[test]
fn divsqrt64_lane_portable_shares_the_f64_fma_and_agrees() {
    let dir = std::env::temp_dir().join(format!("rdna2spv-lane-size-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spv = dir.join("divsqrt64.spv");
    let out = translate_lane_portable("divsqrt64")
        .arg(root().join("fixtures/kernels/divsqrt64.co"))
        .arg("-o")
        .arg(&spv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let words: Vec<u32> = std::fs::read(&spv)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let m = rspirv::dr::load_words(&words).unwrap();
    assert!(
        m.functions.len() >= 2,
        "the f64 FMA emulation is a shared function ({} functions)",
        m.functions.len()
    );
    // D235: a machine instruction's computation outlined around the primitives it calls.
    let calls_inside = m.functions[1..].iter().any(|f| {
        f.blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .any(|i| i.class.opcode == rspirv::spirv::Op::FunctionCall)
    });
    assert!(
        calls_inside,
        "no outlined instruction calls an outlined primitive"
    );
    // D235: v_div_scale_f64's value and VCC bit returned together, as one struct.
    let structs: std::collections::HashSet<u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == rspirv::spirv::Op::TypeStruct)
        .filter_map(|i| i.result_id)
        .collect();
    assert!(
        m.functions[1..].iter().any(|f| f
            .def
            .as_ref()
            .and_then(|d| d.result_type)
            .is_some_and(|t| structs.contains(&t))),
        "no outlined instruction returns several results"
    );
    assert!(
        words.len() <= 12_200,
        "divsqrt64 lane module: {} words",
        words.len()
    );
    let run = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args([
            "run",
            "--backend",
            "both",
            "--mapping",
            "lane",
            "--profile",
            "portable",
        ])
        .arg(root().join("fixtures/run/divsqrt64.toml"))
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(err.contains("agree bit for bit"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// (bundle code object, kernel, words today): see D162's, D182's, D193's, D197's, D199's and D205's
/// tables; re-measured after D205 (64-bit arithmetic narrowed, shared lane-bit tests, pairs as bitcasts).
/// gtsv_nopivot_strided_batch_pcr_shared<512, complex<double>> was added by D197. The two complex<double>
/// kernels re-measured after D235 (their repeated division instructions shared): 20,044 → 14,727 and
/// 22,052 → 19,289. csrilu0_hash<256,64,8,double> (issue 31's worst sample kernel, built for its real
/// block of 256: 8 waves, 28 ballot exchanges) was added by D236 (the invocation's array indices computed
/// once): 33,302 → 31,792, then D237 (its L23 label updates one per group of copies: 29,030; the label
/// tests one `OpAny` over both groups: 28,758). Each entry: code object, kernel, workgroup size (0: the
/// default), words.
const FLOORS: &[(&str, &str, u32, usize)] = &[
    ("b074.co", "_ZL14nnz_kernel_rowILi64ELi16EiifEv16rocsparse_order_T2_S1_PKT3_T1_PS5_", 0, 39_056),
    (
        "b023.co",
        "_ZL21csrmvn_general_kernelILj512ELj8EiiffEvbT2_T4_PKT1_PKS0_PKT3_S9_S1_PS7_21rocsparse_index_base_",
        0,
        7_281,
    ),
    (
        "b044.co",
        "_ZL27csrmmnt_general_main_kernelILj128ELj8ELj16EiiffEvbbT3_S0_S0_S0_S0_T2_S1_S1_T5_PKS1_PKS0_PKT4_S9_S0_S1_S2_PS7_S0_S1_16rocsparse_order_21rocsparse_index_base_",
        0,
        33_910,
    ),
    (
        "b083.co",
        "_ZL19nnz_compress_kernelILi1024ELi32ELi32ELi32E21rocsparse_complex_numIdEEvi21rocsparse_index_base_PKT3_PKiPiS3_",
        0,
        14_727,
    ),
    (
        "b071.co",
        "_ZL44gtsv_nopivot_strided_batch_pcr_shared_kernelILj512E21rocsparse_complex_numIdEEviiiPKT0_S4_S4_PS2_",
        0,
        19_289,
    ),
    (
        "b068.co",
        "_ZL12csrilu0_hashILj256ELj64ELj8EdddEviPKiS1_PT2_S1_PiS1_S4_21rocsparse_index_base_iT3_T4_",
        256,
        28_758,
    ),
];

#[test]
fn rocsparse_lane_modules_stay_at_their_floors() {
    let corpus = rdna2spv::corpus::default_dir().expect("HOME or RDNA2SPV_CORPUS_DIR");
    assert!(
        corpus.join("index.json").exists(),
        "the rocSPARSE corpus is missing at {}: run `cargo xtask corpus rocsparse`",
        corpus.display()
    );
    let dir = std::env::temp_dir().join(format!("rdna2spv-lane-floors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut report = Vec::new();
    for &(co, kernel, workgroup, today) in FLOORS {
        let spv = dir.join("k.spv");
        let mut cmd = translate_lane_portable(kernel);
        if workgroup != 0 {
            cmd.arg(format!("--workgroup={workgroup}"));
        }
        let out = cmd
            .arg(corpus.join("co").join(co))
            .arg("-o")
            .arg(&spv)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{kernel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let w = words_of(&spv);
        let val = Command::new("spirv-val")
            .args(["--target-env", "vulkan1.3"])
            .arg(&spv)
            .output()
            .expect("spirv-val");
        assert!(
            val.status.success(),
            "{kernel}: {}",
            String::from_utf8_lossy(&val.stderr)
        );
        if w > today + today / 10 {
            report.push(format!("{kernel}: {w} words (floor {today} + 10 %)"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(report.is_empty(), "{}", report.join("\n"));
}
