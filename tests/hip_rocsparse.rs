//! Debian's librocsparse0 5.3, unmodified, through rdna2spv's HIP runtime (decision D156): the C program
//! fixtures/hip_programs/rocsparse.c opens the library with dlopen and checks axpyi, doti, nnz and csrmv (with
//! its analysis step) in f32 and f64 against references computed in the program from inputs on which every
//! operation is exact. The library comes from the rocSPARSE corpus (`cargo xtask corpus rocsparse`, which CI
//! runs; the .deb it downloads is unpacked here, 1.3 GB, and removed afterwards).

#[path = "support/rocm_deb.rs"]
mod rocm_deb;
use rocm_deb::{check, exec, fails_without_our_runtime, Library};

/// Everything on the host evaluator; the sparse-vector kernels on lavapipe and the host, compared launch by
/// launch; and the same program without our runtime failing (ROCm's runtime finds no device).
#[test]
fn rocsparse_runs_unmodified() {
    let lib = Library::unpack("rocsparse", "librocsparse0");
    check(&exec(&lib, "host", "rocsparse", &[]), "rocsparse", "host");
    check(
        &exec(&lib, "both", "rocsparse", &["vector"]),
        "rocsparse",
        "both, vector",
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
