//! Debian's librocsparse0 5.3, unmodified, through rdna2spv's HIP runtime (decision D156): the C program
//! fixtures/hip_programs/rocsparse.c opens the library with dlopen and checks axpyi, doti, nnz and csrmv (with
//! its analysis step) in f32 and f64 against references computed in the program from inputs on which every
//! operation is exact, and csrsort (rocPRIM's segmented radix sort, D200) against qsort of each row. The
//! library comes from the rocSPARSE corpus (`cargo xtask corpus rocsparse`, which CI runs; the .deb it
//! downloads is unpacked here, 1.3 GB, and removed afterwards).

#[path = "support/rocm_deb.rs"]
mod rocm_deb;
use rocm_deb::{check, exec, exec_with, fails_without_our_runtime, Library};

/// Everything on the host evaluator; the sparse-vector kernels on lavapipe and the host, compared launch by
/// launch, unchecked and checked (D249: checked launches in the lane mapping, every global and LDS access
/// validated against the live allocations); and the same program without our runtime failing (ROCm's
/// runtime finds no device).
#[test]
fn rocsparse_runs_unmodified() {
    let lib = Library::unpack("rocsparse", "librocsparse0");
    check(&exec(&lib, "host", "rocsparse", &[]), "rocsparse", "host");
    check(
        &exec(&lib, "both", "rocsparse", &["vector"]),
        "rocsparse",
        "both, vector",
    );
    check(
        &exec_with(
            &lib,
            &["--backend", "both", "--checked"],
            "rocsparse",
            &["vector"],
        ),
        "rocsparse",
        "both, checked, vector",
    );
    fails_without_our_runtime(&lib, "rocsparse", &["vector"]);
}

/// nnz (with rocPRIM's block reduction) and the adaptive csrmv on lavapipe and the host, compared launch by
/// launch (issue 26 asks for them in CI on both): 141 s here with lavapipe's shader cache cold (debug build,
/// 2 cores), so in every `cargo test` (it used to be `#[ignore]`d for its cost).
#[test]
fn rocsparse_matrix_kernels_agree_on_the_device_and_the_host() {
    let lib = Library::unpack("rocsparse", "librocsparse0");
    check(
        &exec(&lib, "both", "rocsparse", &["matrix"]),
        "rocsparse",
        "both, matrix",
    );
}

/// csrsort with a permutation on lavapipe and the host evaluator, compared launch by launch (issue 31, D200,
/// D217): rocPRIM's 20,275-instruction `segmented_sort_kernel<default_segmented_radix_sort_config<0,int,int>,…>`
/// sorts 36 rows of 0 to 5,000 distinct columns (34,036 entries; every path of the kernel: empty rows, the
/// warp sort, the one-block radix sorts of 256 × 1/3/7/15 entries and the iterated 7- then 6-bit radix sort
/// of longer rows), and the program checks columns and permutation against qsort of each row. The long rows
/// read 4 bytes past the kernel's 16,440-byte group segment, inside the 16,896 bytes the hardware grants
/// (D200). On lavapipe the kernel's lane module (L44's shuffles for the warp sort: 834 barriers instead of
/// 1,080) compiles in about 2.5 minutes of CPU (it did not within 5 before D217).
#[test]
fn rocsparse_csrsort_runs_rocprims_segmented_sort_on_lavapipe_and_the_host() {
    let lib = Library::unpack("rocsparse", "librocsparse0");
    let r = exec(&lib, "both", "rocsparse", &["sort"]);
    check(&r, "rocsparse", "both, sort");
    assert_sorted_by_segmented_sort_kernel(&r);
}

/// `--backend auto` (D252, D254): matrix and csrsort pass with every kernel's first launch on the host
/// evaluator (to its end, or until its pipeline has compiled), the log naming why (its pipeline compiling
/// in a child process), instead of waiting for lavapipe's compile of rocPRIM's kernels (minutes cold);
/// later launches go to whichever side is ready.
#[test]
fn rocsparse_auto_runs_first_launches_on_the_host_while_lavapipe_compiles() {
    let lib = Library::unpack("rocsparse", "librocsparse0");
    for mode in ["matrix", "sort"] {
        let r = exec(&lib, "auto", "rocsparse", &[mode]);
        check(&r, "rocsparse", &format!("auto, {mode}"));
        let err = String::from_utf8_lossy(&r.stderr);
        let mut seen = std::collections::HashSet::new();
        let mut launches = 0;
        for l in err.lines().filter(|l| l.starts_with("rdna2spv: launch ")) {
            launches += 1;
            let kernel = l.split(": ").nth(2).and_then(|k| k.split(" grid ").next());
            let kernel = kernel.unwrap_or_else(|| panic!("{l}"));
            assert!(
                l.contains(" on host: ") || l.contains(" on vulkan: "),
                "{l}"
            );
            if seen.insert(kernel.to_string()) {
                // On the host to its end, or on the host until its pipeline had compiled and then on
                // the device (D254).
                assert!(
                    l.contains(" on host: ")
                        && (l.contains("auto: its module is translated in the background")
                            || l.contains("auto: its pipeline"))
                        || l.contains(" on vulkan: ")
                            && l.contains("on the host evaluator while its pipeline compiled in the background, then on the device"),
                    "{mode}: {l}"
                );
            }
        }
        assert!(launches >= 2, "{mode}: {err}");
        if mode == "sort" {
            assert!(
                err.lines().any(|l| l.contains(SEGMENTED_SORT_KERNEL)
                    && l.contains("grid 36x1x1 block 256x1x1 on host")),
                "{err}"
            );
        }
    }
}

/// The launch log names the unpartitioned kernel (fewer than 3,000 rows), one workgroup of 256 per row,
/// and the program's own line counts the rows and entries it checked.
fn assert_sorted_by_segmented_sort_kernel(r: &std::process::Output) {
    let out = String::from_utf8_lossy(&r.stdout);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        out.contains("rocsparse: csrsort sorted 36 rows, 34036 entries"),
        "{out}"
    );
    assert!(
        err.lines().any(|l| l.contains(SEGMENTED_SORT_KERNEL)
            && l.contains("grid 36x1x1 block 256x1x1 on vulkan+host")),
        "{err}"
    );
}

/// `rocprim::detail::segmented_sort_kernel<default_segmented_radix_sort_config<0u, int, int>, false, 256u,
/// int*, int*, int*, int*, int const*>` (bundle b107).
const SEGMENTED_SORT_KERNEL: &str = "_ZN7rocprim6detail21segmented_sort_kernelINS0_35default_segmented_radix_sort_configILj0EiiEELb0ELj256EPiS4_S4_S4_PKiEEvT2_PNSt15iterator_traitsIS7_E10value_typeET3_T4_PNS8_ISD_E10value_typeET5_bT6_SI_jjjj";
