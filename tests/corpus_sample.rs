//! CI's sample of the rocSPARSE corpus (docs/corpus.md): nine small bundles (70 kernels) through the same
//! check `rdna2spv corpus` runs over all 111 — every listing line against llvm-objdump-19, every kernel
//! translated for the measured device profile and its module through `spirv-val --target-env vulkan1.3`.
//! Every one of the 70 sample kernels translates and validates today (issue 28), so a kernel blocked by an
//! unsupported instruction fails as well as a listing that differs, a module spirv-val rejects, or any other
//! translation error. Needs `cargo xtask corpus rocsparse`.

use rdna2spv::corpus::{self, Options};
use rdna2spv::device::{open, profile_of, ProfileChoice};

const SAMPLE: &[usize] = &[0, 1, 2, 4, 5, 6, 7, 84, 94];

#[test]
fn sample_decodes_like_llvm_and_translates_to_valid_spirv() {
    let dir = corpus::default_dir().expect("HOME or RDNA2SPV_CORPUS_DIR");
    assert!(
        dir.join("index.json").exists(),
        "the rocSPARSE corpus is missing at {}: run `cargo xtask corpus rocsparse` (CI's .ci/run does)",
        dir.display()
    );
    let ctx = open(None).expect("a Vulkan device (lavapipe)");
    let opts = Options {
        profile: profile_of(&ctx, ProfileChoice::Device).unwrap(),
        ..Default::default()
    };
    let report = corpus::check(&dir, SAMPLE, &opts).unwrap();
    let s = report.summary();
    eprintln!("{}", s.table(20));
    assert!(s.object_errors.is_empty(), "{:?}", s.object_errors);
    assert_eq!(s.objects, SAMPLE.len());
    assert!(s.kernels >= 70, "{} kernels", s.kernels);
    assert!(
        s.decode_instructions > 1000,
        "{} instructions",
        s.decode_instructions
    );
    assert_eq!(s.decode_differing, 0, "{:#?}", s.decode_examples);
    assert!(s.invalid.is_empty(), "{:#?}", s.invalid);
    assert!(s.errors.is_empty(), "{:#?}", s.errors);
    assert!(s.validated);
    assert_eq!(s.valid + s.blocked, s.kernels);
    // Every sample kernel translates and its module is spirv-val clean today; none may regress (issue 28).
    assert_eq!(s.blocked, 0, "sample kernels blocked:\n{}", s.table(20));
    assert_eq!(s.valid, s.kernels);
}

/// Issue 12 on the same sample: every sample kernel that lifts translates with structured control flow and no
/// dispatcher loop (an irreducible region would run as one; `control_flow_notes` would name it, and this test
/// prints and counts it). Every sample kernel lifts today (issue 28), so one that does not is a failure.
#[test]
fn sample_kernels_are_fully_structured() {
    use rdna2spv::dispatch::lift_options;
    use rdna2spv_codeobj::CodeObject;
    use rdna2spv_ir::cfg::Structure;
    use rdna2spv_ir::lift::lift;
    let dir = corpus::default_dir().expect("HOME or RDNA2SPV_CORPUS_DIR");
    let index = corpus::Index::load(&dir).expect("cargo xtask corpus rocsparse");
    let (mut lifted, mut blocks, mut loops) = (0usize, 0usize, 0usize);
    let mut blocked: Vec<String> = Vec::new();
    let mut regions: Vec<String> = Vec::new();
    for b in index.bundles.iter().filter(|b| SAMPLE.contains(&b.bundle)) {
        let Some(file) = &b.code_object else { continue };
        let bytes = std::fs::read(dir.join("co").join(file)).unwrap();
        let co = CodeObject::parse_any(&bytes).unwrap();
        for k in &co.kernels {
            let p = match lift(&k.name, &k.code, lift_options(&co, k)) {
                Ok(p) => p,
                Err(e) => {
                    blocked.push(format!("{}: {e}", k.name));
                    continue;
                }
            };
            lifted += 1;
            blocks += p.blocks.len();
            let s = Structure::of(&p);
            loops += s.loops;
            if !s.dispatch_regions.is_empty() {
                // The notes name each region's blocks and pcs.
                regions.extend(rdna2spv_spirv::lower::control_flow_notes(&p));
            }
        }
    }
    eprintln!(
        "sample: {lifted} kernels lift ({blocks} blocks, {loops} loops), {} blocked by unsupported instructions; {} dispatcher regions",
        blocked.len(),
        regions.len()
    );
    assert!(
        blocked.is_empty(),
        "sample kernels that do not lift: {blocked:#?}"
    );
    assert!(
        lifted >= 70,
        "{lifted} sample kernels lift; the sample has 70"
    );
    assert!(regions.is_empty(), "{regions:#?}");
}

/// A kernel's module is the same bytes every time it is translated (D077 validates each distinct module once
/// and caches the verdict by the module's hash). The csrmm kernel below has several per-lane temporaries in
/// one instruction group; they were once declared in hash-set order, which differs between two translations
/// in one process.
#[test]
fn translation_is_byte_identical_run_to_run() {
    use rdna2spv_codeobj::CodeObject;
    let dir = corpus::default_dir().expect("HOME or RDNA2SPV_CORPUS_DIR");
    let index = corpus::Index::load(&dir).expect("cargo xtask corpus rocsparse");
    let file = index
        .bundles
        .iter()
        .find(|b| b.bundle == 44)
        .and_then(|b| b.code_object.clone())
        .expect("bundle 44");
    let bytes = std::fs::read(dir.join("co").join(file)).unwrap();
    let co = CodeObject::parse(&bytes).unwrap();
    let k = co
        .kernel("_ZL27csrmmnt_general_main_kernelILj256ELj8ELj1Eli21rocsparse_complex_numIfES1_EvbbT3_S2_S2_S2_S2_T2_S3_S3_T5_PKS3_PKS2_PKT4_SB_S2_S3_S4_PS9_S2_S3_16rocsparse_order_21rocsparse_index_base_")
        .unwrap();
    let profile = rdna2spv_vulkan::DeviceProfile::portable();
    let a = corpus::module_words(&co, k, &profile).unwrap();
    for _ in 0..3 {
        assert!(corpus::module_words(&co, k, &profile).unwrap() == a);
    }
}
