//! Every run manifest in `fixtures/run/` against an independent oracle: the same OpenCL source compiled for the
//! host by clang-19 as C (`fixtures/native/host.h` maps the OpenCL-isms, `fixtures/native/run.c` runs every
//! work-item of every workgroup on threads with real barriers). Both sides are built with `-ffp-contract=off`,
//! so they compute the same operations; `rdna2spv run --backend host` and `--backend vulkan` must each
//! reproduce the native outputs bit for bit (float results that are NaN compare as the canonical NaN, D005;
//! atomic tickets as a permutation).
//!
//! Kernels the lifter or evaluator cannot run yet are listed in [`PENDING`] with the reason, and each must
//! fail with a clear "not supported yet" error naming the instruction: when support lands the test fails
//! until the kernel moves to [`CASES`].
//!
//! Needs `clang-19` (Debian: `apt-get install clang-19`) and a Vulkan 1.3 device (lavapipe:
//! `apt-get install libvulkan1 mesa-vulkan-drivers`); CI installs both. The test fails loudly without them.

use rdna2spv::manifest::{BufferArg, Manifest};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elem {
    F32,
    F16,
    U32,
    F64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    /// Bit for bit, element by element.
    Exact,
    /// The same multiset of elements (atomic tickets: which work-item gets which is unordered).
    Permutation,
}

struct Case {
    /// `fixtures/run/<manifest>.toml`.
    manifest: &'static str,
    /// The OpenCL source in `fixtures/kernels/` the code object was built from.
    source: &'static str,
    /// Every output buffer: name, element type, comparison.
    outputs: &'static [(&'static str, Elem, Cmp)],
}

/// Kernels that run end to end and must match the native oracle bit for bit.
const CASES: &[Case] = &[
    Case {
        manifest: "saxpy",
        source: "saxpy.cl",
        outputs: &[("y", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "saxpy_cov4",
        source: "saxpy.cl",
        outputs: &[("y", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "divergent",
        source: "divergent.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "divergent_w64",
        source: "divergent.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "branchy",
        source: "branchy.cl",
        outputs: &[("out", Elem::U32, Cmp::Exact)],
    },
    Case {
        manifest: "reduce",
        source: "reduce.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "reduce_w64",
        source: "reduce.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "atomics",
        source: "atomics.cl",
        outputs: &[
            ("counter", Elem::U32, Cmp::Exact),
            ("hist", Elem::U32, Cmp::Exact),
            ("tickets", Elem::U32, Cmp::Permutation),
        ],
    },
    Case {
        manifest: "spmv",
        source: "spmv.cl",
        outputs: &[("y", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "ids3d",
        source: "ids3d.cl",
        outputs: &[("out", Elem::U32, Cmp::Exact)],
    },
    Case {
        manifest: "wgids_x",
        source: "wgids.cl",
        outputs: &[("out", Elem::U32, Cmp::Exact)],
    },
    Case {
        manifest: "wgids_z",
        source: "wgids.cl",
        outputs: &[("out", Elem::U32, Cmp::Exact)],
    },
    Case {
        manifest: "half",
        source: "half.cl",
        outputs: &[
            ("y", Elem::F16, Cmp::Exact),
            ("q", Elem::F16, Cmp::Exact),
            ("f", Elem::F32, Cmp::Exact),
        ],
    },
    Case {
        manifest: "scratch",
        source: "scratch.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "scratch_w64",
        source: "scratch.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    // Correctly rounded division and sqrt sequences (decision D012).
    Case {
        manifest: "divsqrt",
        source: "divsqrt.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    // Two kernels calling one non-inlined helper (s_getpc/s_swappc_b64/s_setpc_b64), inlined (D099).
    Case {
        manifest: "multi_first",
        source: "multi.cl",
        outputs: &[("p", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "multi_second",
        source: "multi.cl",
        outputs: &[("p", Elem::F32, Cmp::Exact)],
    },
    // A helper called from two sites, and a helper whose loop calls another helper (D099); the calls_scall_*
    // kernels are the same code with s_call_b64 for s_getpc + s_swappc_b64 (fixtures/kernels/calls_scall.s).
    // Host and lavapipe against the native C build of the same source, bit for bit:
    // coverage: multi_first: S_GETPC_B64 S_SWAPPC_B64 S_SETPC_B64
    // coverage: multi_second: S_GETPC_B64 S_SWAPPC_B64 S_SETPC_B64
    // coverage: calls_twice: S_GETPC_B64 S_SWAPPC_B64 S_SETPC_B64
    // coverage: calls_nested: S_GETPC_B64 S_SWAPPC_B64 S_SETPC_B64
    // coverage: calls_deep: S_GETPC_B64 S_SWAPPC_B64 S_SETPC_B64
    // coverage: calls_scall_twice: S_CALL_B64 S_SETPC_B64
    // coverage: calls_scall_nested: S_CALL_B64 S_SETPC_B64
    Case {
        manifest: "calls_twice",
        source: "calls.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "calls_nested",
        source: "calls.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "calls_deep",
        source: "calls.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "calls_scall_twice",
        source: "calls.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    Case {
        manifest: "calls_scall_nested",
        source: "calls.cl",
        outputs: &[("out", Elem::F32, Cmp::Exact)],
    },
    // The f64 division, sqrt and 1/sqrt sequences clang emits (decision D067).
    Case {
        manifest: "divsqrt64",
        source: "divsqrt64.cl",
        outputs: &[
            ("q", Elem::F64, Cmp::Exact),
            ("s", Elem::F64, Cmp::Exact),
            ("r", Elem::F64, Cmp::Exact),
        ],
    },
];

/// Kernels that cannot run yet: (case, why, a piece of the instruction text the error must name).
/// Empty since calls are inlined (D099); kept for the next kernel that cannot run yet.
const PENDING: &[(Case, &str, &str)] = &[];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "rdna2spv-fixtures-run-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn clang() -> String {
    std::env::var("CLANG").unwrap_or_else(|_| "clang-19".into())
}

/// Builds the native harness for `case` and runs it; returns the folder holding `<output>.bin`.
fn run_native(case: &Case, m: &Manifest, tmp: &Path) -> PathBuf {
    let kernel = m
        .kernel
        .clone()
        .expect("fixture manifests name their kernel");
    let mut call_args = Vec::new();
    let mut argv = Vec::new();
    for (i, a) in m.args.iter().enumerate() {
        let out = a.output.clone().unwrap_or_default();
        let (macro_, spec) = if let Some(b) = &a.buffer {
            let spec = match b {
                BufferArg::File(p) => format!("buf:{out}:{}", m.resolve(p).display()),
                BufferArg::Zeroed { size } => format!("zero:{out}:{size}"),
            };
            ("ARG_PTR", spec)
        } else if let Some(v) = a.f32 {
            ("ARG_F32", format!("f32:{:#x}", (v as f32).to_bits()))
        } else if let Some(v) = a.f16 {
            let h = rdna2spv_eval::specialize::f64_to_f16(v);
            ("ARG_F16", format!("f16:{h:#x}"))
        } else if let Some(v) = a.f64 {
            ("ARG_F64", format!("f64:{:#x}", v.to_bits()))
        } else if let Some(v) = a.u32 {
            ("ARG_U32", format!("u32:{v}"))
        } else if let Some(v) = a.i32 {
            ("ARG_I32", format!("i32:{v}"))
        } else if let Some(v) = a.u64 {
            ("ARG_U64", format!("u64:{v}"))
        } else if let Some(v) = a.i64 {
            ("ARG_I64", format!("i64:{v}"))
        } else {
            panic!(
                "{}: argument {i}: the native harness takes typed scalars and buffers only",
                case.manifest
            );
        };
        call_args.push(format!("{macro_}({i})"));
        argv.push(spec);
    }
    let native = root().join("fixtures/native");
    let source = root().join("fixtures/kernels").join(case.source);
    let exe = tmp.join("native");
    let build = Command::new(clang())
        .args([
            "-x",
            "c",
            "-std=c11",
            "-O2",
            "-ffp-contract=off",
            // Not a driver option in clang 19: without it (the default "standard") a chain of half operations
            // is evaluated in float and rounded once at the end, unlike the GPU.
            "-Xclang",
            "-ffloat16-excess-precision=none",
            "-fno-math-errno",
            "-Wall",
            "-Wno-unknown-pragmas",
            "-Wno-unused-function",
            "-include",
        ])
        .arg(native.join("host.h"))
        .arg(format!("-DKERNEL_SOURCE=\"{}\"", source.display()))
        .arg(format!("-DKERNEL_CALL={kernel}({})", call_args.join(", ")))
        .arg(native.join("run.c"))
        .arg("-o")
        .arg(&exe)
        .args(["-lm", "-lpthread"])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}): the native oracle needs clang-19 (apt-get install clang-19)",
                clang()
            )
        });
    assert!(
        build.status.success(),
        "{}: building the native harness failed:\n{}",
        case.manifest,
        String::from_utf8_lossy(&build.stderr)
    );
    let out = tmp.join("native-out");
    std::fs::create_dir_all(&out).unwrap();
    let mut cmd = Command::new(&exe);
    for d in m.grid.iter().chain(&m.workgroup) {
        cmd.arg(d.to_string());
    }
    let run = cmd.arg(&out).args(&argv).output().unwrap();
    assert!(
        run.status.success(),
        "{}: the native harness failed ({}):\n{}",
        case.manifest,
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    out
}

fn run_rdna2spv(manifest: &Path, backend: &str, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        // The child's device dispatches are this test's in the executed-encoding log (D159).
        .env(
            "RDNA2SPV_COVERAGE_TEST",
            format!(
                "fixtures_run::{}",
                std::thread::current().name().unwrap_or_default()
            ),
        )
        .arg("run")
        .arg(manifest)
        .args(["--backend", backend, "--out"])
        .arg(out)
        .output()
        .unwrap()
}

fn elements(bytes: &[u8], elem: Elem) -> Vec<u64> {
    match elem {
        Elem::F16 => bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]) as u64)
            .collect(),
        Elem::F32 | Elem::U32 => bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64)
            .collect(),
        Elem::F64 => bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    }
}

/// The native value as the ISA contract expects it: float NaNs are the canonical quiet NaN (D005).
fn expected_bits(v: u64, elem: Elem) -> u64 {
    match elem {
        Elem::F32 if f32::from_bits(v as u32).is_nan() => 0x7fc0_0000,
        Elem::F64 if f64::from_bits(v).is_nan() => 0x7ff8_0000_0000_0000,
        Elem::F16 if (v & 0x7c00) == 0x7c00 && (v & 0x3ff) != 0 => 0x7e00,
        _ => v,
    }
}

fn show(v: u64, elem: Elem) -> String {
    match elem {
        Elem::F32 => format!("{v:#010x} ({:e})", f32::from_bits(v as u32)),
        Elem::F64 => format!("{v:#018x} ({:e})", f64::from_bits(v)),
        Elem::F16 => format!(
            "{v:#06x} ({:e})",
            f32::from_bits(rdna2spv_eval::specialize::f16_to_f32(v as u16))
        ),
        Elem::U32 => format!("{v:#010x} ({v})"),
    }
}

/// Compares one output buffer; returns the number of elements compared.
fn compare(
    case: &Case,
    backend: &str,
    name: &str,
    elem: Elem,
    cmp: Cmp,
    native: &[u8],
    ours: &[u8],
) -> usize {
    assert_eq!(
        native.len(),
        ours.len(),
        "{}: output {name}: native {} bytes, rdna2spv --backend {backend} {} bytes",
        case.manifest,
        native.len(),
        ours.len()
    );
    let mut want: Vec<u64> = elements(native, elem)
        .into_iter()
        .map(|v| expected_bits(v, elem))
        .collect();
    let mut got = elements(ours, elem);
    if cmp == Cmp::Permutation {
        want.sort_unstable();
        got.sort_unstable();
    }
    let differing = want.iter().zip(&got).filter(|(a, b)| a != b).count();
    if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
        panic!(
            "{}: output {name}{}: {differing} of {} elements differ; first at index {i}: native {}, rdna2spv --backend {backend} {}",
            case.manifest,
            if cmp == Cmp::Permutation { " (sorted)" } else { "" },
            want.len(),
            show(want[i], elem),
            show(got[i], elem)
        );
    }
    want.len()
}

/// The contents of output buffer `name` before the run.
fn initial(m: &Manifest, name: &str) -> Vec<u8> {
    let a = m
        .args
        .iter()
        .find(|a| a.output.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no output {name} in the manifest"));
    match a.buffer.as_ref().unwrap() {
        BufferArg::File(p) => std::fs::read(m.resolve(p)).unwrap(),
        BufferArg::Zeroed { size } => vec![0; *size as usize],
    }
}

fn load(case: &Case) -> (PathBuf, Manifest) {
    let path = root()
        .join("fixtures/run")
        .join(format!("{}.toml", case.manifest));
    let m = Manifest::load(&path).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
    (path, m)
}

/// Runs `case` on both sides and compares every output bit for bit.
fn check(manifest: &str) {
    let case = CASES
        .iter()
        .find(|c| c.manifest == manifest)
        .unwrap_or_else(|| panic!("{manifest} is not in CASES"));
    let (path, m) = load(case);
    let tmp = scratch_dir(manifest);
    let native = run_native(case, &m, &tmp);
    // The host evaluator, then the same program lowered to SPIR-V on the Vulkan device (lavapipe in CI; the
    // Vulkan tests need it too: apt-get install libvulkan1 mesa-vulkan-drivers).
    for backend in ["host", "vulkan"] {
        let ours = tmp.join(format!("rdna2spv-{backend}"));
        let run = run_rdna2spv(&path, backend, &ours);
        assert!(
            run.status.success(),
            "{}: rdna2spv run --backend {backend} failed ({}):\n{}",
            case.manifest,
            run.status,
            String::from_utf8_lossy(&run.stderr)
        );
        let mut compared = 0;
        for &(name, elem, cmp) in case.outputs {
            let a = std::fs::read(native.join(format!("{name}.bin"))).unwrap();
            assert_ne!(
                a,
                initial(&m, name),
                "{}: the native run left output {name} unchanged (a vacuous comparison)",
                case.manifest
            );
            let b = std::fs::read(ours.join(format!("{name}.bin"))).unwrap_or_else(|e| {
                panic!(
                    "{}: rdna2spv --backend {backend} wrote no {name}.bin: {e}",
                    case.manifest
                )
            });
            compared += compare(case, backend, name, elem, cmp, &a, &b);
        }
        eprintln!("{manifest}: {backend}: {compared} elements bit-exact");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A pending kernel: the native oracle runs, and rdna2spv refuses it with a clear error naming the instruction.
#[allow(dead_code)] // no kernel is pending now
fn check_pending(manifest: &str) {
    let (case, why, names) = PENDING
        .iter()
        .find(|(c, _, _)| c.manifest == manifest)
        .unwrap_or_else(|| panic!("{manifest} is not in PENDING"));
    let (path, m) = load(case);
    let tmp = scratch_dir(manifest);
    let native = run_native(case, &m, &tmp);
    for &(name, _, _) in case.outputs {
        assert!(native.join(format!("{name}.bin")).is_file());
    }
    let ours = tmp.join("rdna2spv-out");
    let run = run_rdna2spv(&path, "host", &ours);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success(),
        "{manifest} runs now ({why}): compare it and move it from PENDING to CASES"
    );
    assert_eq!(
        run.status.code(),
        Some(2),
        "{manifest}: expected exit 2 (unsupported), got {}:\n{stderr}",
        run.status
    );
    assert!(
        stderr.contains("not supported yet") && stderr.contains(names),
        "{manifest}: expected a \"not supported yet\" error naming `{names}…` ({why}), got:\n{stderr}"
    );
    assert!(
        !ours.exists() || std::fs::read_dir(&ours).unwrap().next().is_none(),
        "{manifest}: a failed run left output files"
    );
    eprintln!(
        "{manifest}: pending ({why}): {}",
        stderr.lines().last().unwrap_or("")
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn every_manifest_is_covered() {
    let dir = root().join("fixtures/run");
    let mut listed: Vec<&str> = CASES
        .iter()
        .map(|c| c.manifest)
        .chain(PENDING.iter().map(|(c, _, _)| c.manifest))
        .collect();
    listed.sort_unstable();
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "toml").then(|| p.file_stem().unwrap().to_string_lossy().to_string())
        })
        .collect();
    found.sort_unstable();
    assert_eq!(
        found, listed,
        "every fixtures/run/*.toml must be in CASES or PENDING"
    );
}

/// The native oracle itself: fmaf and the half fmas round once, half arithmetic rounds to half.
#[test]
fn native_oracle_rounds_like_the_isa() {
    let case = CASES.iter().find(|c| c.manifest == "saxpy").unwrap();
    let (_, m) = load(case);
    let tmp = scratch_dir("oracle-saxpy");
    let out = run_native(case, &m, &tmp);
    let y = elements(&std::fs::read(out.join("y.bin")).unwrap(), Elem::F32);
    // D993: fma(1 + 2^-12, 1 + 2^-12, -(1 + 2^-11)) = 2^-24 (unfused: 0). The inputs put the triple at
    // 19 + 19 * 19 (inputs.rs: after the specials and their cross product).
    assert_eq!(y[380], 0x3380_0000, "native fmaf is not fused");

    let case = CASES.iter().find(|c| c.manifest == "half").unwrap();
    let (_, m) = load(case);
    let tmp2 = scratch_dir("oracle-half");
    let out = run_native(case, &m, &tmp2);
    let q = elements(&std::fs::read(out.join("q.bin")).unwrap(), Elem::F16);
    // (1 + 2^-10) * -(1 - 2^-11) + 1 = -(2^-11 - 2^-21), in half -0x1.ff8p-12 = 0x8ffe (unfused: 0).
    assert_eq!(q[0], 0x8ffe, "native half fma is not fused");
    // Every lane of q against the same fused operation computed independently in Rust.
    let p = elements(
        &std::fs::read(m.resolve(Path::new("half.p.bin"))).unwrap(),
        Elem::F16,
    );
    let q_in = elements(
        &std::fs::read(m.resolve(Path::new("half.q.bin"))).unwrap(),
        Elem::F16,
    );
    for i in 0..q.len() {
        // The evaluator's model (TwoSum + round-to-odd, D993), a different algorithm from host.h's.
        let c = if i % 2 == 0 { 0x3c00 } else { 0x4000 };
        let want =
            rdna2spv_eval::specialize::f16_fma_to_half(p[i] as u16, q_in[i] as u16, c) as u64;
        assert_eq!(
            expected_bits(q[i], Elem::F16),
            expected_bits(want, Elem::F16),
            "q[{i}]: native {:#06x}, model {want:#06x}",
            q[i]
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let _ = std::fs::remove_dir_all(&tmp2);
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { check(stringify!($name)); })*
    };
}
#[allow(unused_macros)] // no kernel is pending now
macro_rules! pending {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { check_pending(stringify!($name)); })*
    };
}

cases!(
    saxpy,
    saxpy_cov4,
    divergent,
    divergent_w64,
    branchy,
    reduce,
    reduce_w64,
    atomics,
    ids3d,
    wgids_x,
    wgids_z,
    half,
    scratch,
    scratch_w64,
    divsqrt,
    divsqrt64,
    spmv,
    multi_first,
    multi_second,
    calls_twice,
    calls_nested,
    calls_deep,
    calls_scall_twice,
    calls_scall_nested
);

/// The fixtures are built with -ffp-contract=off; the operations each kernel is meant to exercise must still be
/// in the code LLVM generated (the objdump goldens), and the unfused ones must not have become fused.
#[test]
fn fixtures_keep_their_intended_instructions() {
    let kernels = root().join("fixtures/kernels");
    let has: &[(&str, &[&str], &[&str])] = &[
        ("saxpy", &["v_fmac_f32"], &["v_mul_f32", "v_add_f32"]),
        ("saxpy_cov4", &["v_fmac_f32"], &["v_mul_f32", "v_add_f32"]),
        (
            "divergent",
            &[
                "v_mul_f32",
                "v_add_f32",
                "v_cmpx_",
                "s_cbranch_execz",
                "saveexec",
            ],
            &["v_fma", "v_mac"],
        ),
        (
            "divergent_w64",
            &[
                "v_mul_f32",
                "v_add_f32",
                "v_cmpx_",
                "s_cbranch_execz",
                "saveexec_b64",
            ],
            &["v_fma", "v_mac"],
        ),
        ("reduce", &["ds_write_b32", "ds_read", "s_barrier"], &[]),
        ("reduce_w64", &["ds_write_b32", "ds_read", "s_barrier"], &[]),
        ("atomics", &["global_atomic_add", "v_mbcnt_lo_u32_b32"], &[]),
        (
            "half",
            &[
                "v_mul_f16",
                "v_add_f16",
                "v_fma_f16",
                "v_pk_fma_f16",
                "v_fma_mix_f32",
            ],
            &["v_fmac_f16"],
        ),
        (
            "divsqrt",
            &[
                "v_div_scale_f32",
                "v_div_fmas_f32",
                "v_div_fixup_f32",
                "v_sqrt_f32",
            ],
            &[],
        ),
        (
            "divsqrt64",
            &[
                "v_div_scale_f64",
                "v_rcp_f64",
                "v_div_fmas_f64",
                "v_div_fixup_f64",
                "v_rsq_f64",
                "v_fma_f64",
            ],
            &[],
        ),
        (
            "scratch",
            &["buffer_store_dword", "buffer_load_dword"],
            &["v_fma", "v_mac"],
        ),
    ];
    for (stem, want, never) in has {
        let text = std::fs::read_to_string(kernels.join(format!("{stem}.objdump.txt"))).unwrap();
        for w in *want {
            assert!(text.contains(w), "{stem}.objdump.txt lost `{w}`");
        }
        for n in *never {
            assert!(!text.contains(n), "{stem}.objdump.txt has `{n}`");
        }
    }
}
