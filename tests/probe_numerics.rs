//! The seeds' numeric studies (issue 7; docs/numerics.md) at reduced sizes, on the host evaluator and on
//! lavapipe, against independent references: SoftFloat's correctly rounded f32 operations for the strict-fp
//! probe, SoftFloat binary128 for the double-word error study. Full sizes: `rdna2spv probe strict-fp` and
//! `rdna2spv probe double-word [--full]` (commands and results in docs/numerics.md).
//!
//! Sizes: `RDNA2SPV_PROBE_STRICT_N` random triples per build (default 12,288, plus the 2,197 boundary
//! triples; four builds) and `RDNA2SPV_PROBE_DW_N` operands per operation (default 65,536 = 2^16).

// coverage: strict_fp_probe_reduced: V_FMA_F32 V_FMAC_F32 V_MUL_F32 V_ADD_F32 V_DIV_SCALE_F32 V_RCP_F32 V_DIV_FMAS_F32 V_DIV_FIXUP_F32 V_SQRT_F32 V_CMP_CLASS_F32
// coverage: double_word_bounds_reduced: V_ADD_F32 V_SUB_F32 V_MUL_F32 V_FMA_F32 V_FMAC_F32 V_RCP_F32 V_RSQ_F32

use rdna2spv::probe::{dw, kernels_dir, strict, Backends};
use rdna2spv_vulkan::{probe, Context, DeviceSelector};

fn env_n(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn lavapipe() -> Backends {
    let ctx = Context::new(DeviceSelector::from_env_or_lavapipe()).unwrap_or_else(|e| {
        panic!(
            "this test needs lavapipe (apt-get install -y --no-install-recommends libvulkan1 \
             mesa-vulkan-drivers): {e}"
        )
    });
    let prof = probe(&ctx).expect("the device profile is probed");
    Backends {
        device: Some((ctx, prof)),
    }
}

/// The reference functions against hand-worked values (so the oracle itself is pinned).
#[test]
fn strict_references_hand_worked() {
    // (1 + 2^-23) * (1 - 2^-23) = 1 - 2^-46: the product rounds to 1, so adding -1 gives 0 unfused and
    // -2^-46 fused.
    let (a, b, c) = (0x3f80_0001, 0x3f7f_fffe, 0xbf80_0000);
    assert_eq!(strict::ref_mad(a, b, c), 0);
    assert_eq!(strict::ref_fused(a, b, c), 0xa880_0000); // -2^-46
    assert_eq!(strict::ref_div(0x4040_0000, 0x4000_0000), 0x3fc0_0000); // 3 / 2 = 1.5
    assert_eq!(strict::ref_sqrt_abs(0xc110_0000), 0x4040_0000); // sqrt(|-9|) = 3
    assert!(strict::same(0x7fc0_0000, 0xffc0_0001));
}

/// Seed ADR-1407 at reduced size: every build 0 host-vs-device differences; the strict build 0 mismatches
/// against SoftFloat; hipcc's default build contracts a*b+c (every result equals the fused value and some
/// differ from the unfused reference).
#[test]
fn strict_fp_probe_reduced() {
    let backends = lavapipe();
    let builds: Vec<&strict::Build> = strict::BUILDS.iter().collect();
    let n = env_n("RDNA2SPV_PROBE_STRICT_N", 12_288);
    let r = strict::run(&kernels_dir(None), &builds, n, 0x1407, &backends, true).unwrap();
    eprintln!("{}", r.table());
    for b in &r.builds {
        for o in &b.ops {
            assert_eq!(
                o.host_vs_device,
                Some(0),
                "{} {}: host vs device",
                b.build,
                o.op
            );
            assert_eq!(o.triples, n + 2197);
        }
    }
    let strict = &r.builds[0];
    assert_eq!(strict.build, "strict");
    for o in &strict.ops {
        assert_eq!(
            o.host_vs_reference, 0,
            "strict {}: {:x?}",
            o.op, o.first_difference
        );
        assert_eq!(o.device_vs_reference, Some(0), "strict {}", o.op);
    }
    let default = &r.builds[1];
    assert_eq!(
        default.ops[0].host_vs_fused,
        Some(0),
        "the default build fuses a*b+c"
    );
    assert!(
        default.ops[0].host_vs_reference > 0,
        "the default build differs from unfused"
    );
    // The OpenCL build without correctly rounded division (D080): a*b+c unfused, the rcp-based division
    // differs from the correctly rounded quotient on some triples, the root (v_sqrt_f32, D012) does not.
    let ocl = &r.builds[3];
    assert_eq!(ocl.build, "ocl-nocrdiv");
    assert_eq!(ocl.ops[0].host_vs_reference, 0, "ocl-nocrdiv a*b+c");
    assert!(
        ocl.ops[1].host_vs_reference > 0,
        "ocl-nocrdiv a/b is not CR"
    );
    assert_eq!(ocl.ops[2].host_vs_reference, 0, "ocl-nocrdiv sqrt");
    // The division stays within OpenCL's 2.5 ulp for single precision and never differs in class.
    assert!(ocl.ops[1].max_ulps_vs_reference <= 2, "{:?}", ocl.ops[1]);
    assert_eq!(
        ocl.ops[1].host_vs_reference_non_finite, 0,
        "{:?}",
        ocl.ops[1]
    );
    assert!(r.passed());
}

/// Seed 003 at reduced size (2^16 operands per operation, each in its first regime: the one its relative
/// bound is stated for, or the seed harness's working range for multiplication, division and root, D079):
/// 0 host-vs-device differences, and every bound of the seed holds.
#[test]
fn double_word_bounds_reduced() {
    let backends = lavapipe();
    let n = env_n("RDNA2SPV_PROBE_DW_N", 1 << 16);
    let ops: Vec<&dw::Op> = dw::OPS.iter().collect();
    let r = dw::run_regimes(&kernels_dir(None), &ops, n, 0x3003, &backends, true, 1).unwrap();
    eprintln!("{}", r.table());
    assert_eq!(r.cells.len(), dw::OPS.len());
    for c in &r.cells {
        assert_eq!(
            c.host_vs_device,
            Some(0),
            "{} {}: host vs device",
            c.op,
            c.level
        );
        assert_eq!(c.operands, n);
        for b in &c.bounds {
            assert!(
                b.holds,
                "{} {} {}: measured {} > bound {}",
                c.op,
                c.level,
                c.regime.name(),
                b.measured,
                b.bound
            );
        }
        // Sanity of the measurement itself: errors are seen (nothing is exact by accident) and stay finite.
        assert!(
            c.max_rel > 0.1 && c.max_rel.is_finite(),
            "{} {}: {}",
            c.op,
            c.level,
            c.max_rel
        );
    }
    // The proven bounds are checked where they are claimed.
    let checked: usize = r.cells.iter().map(|c| c.bounds.len()).sum();
    assert!(checked >= 12, "{checked} bounds checked");
    assert!(r.passed());
}

/// Bad input to `rdna2spv probe` is exit 2 with a message naming the problem (DESIGN.md's contract).
#[test]
fn probe_bad_input_exits_2() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
            // The child's device dispatches are this test's in the executed-encoding log (D159).
            .env(
                "RDNA2SPV_COVERAGE_TEST",
                format!(
                    "probe_numerics::{}",
                    std::thread::current().name().unwrap_or_default()
                ),
            )
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&[
        "probe",
        "strict-fp",
        "--build",
        "bogus",
        "--backend",
        "host",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no build named \"bogus\""), "{err}");
    let (code, err) = run(&[
        "probe",
        "double-word",
        "--only",
        "nothing",
        "--backend",
        "host",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("matches no operation"), "{err}");
    let (code, err) = run(&[
        "probe",
        "double-word",
        "--n",
        "256",
        "--backend",
        "host",
        "--only",
        "acc",
        "--kernels",
        "/nonexistent-dir",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("dw_fp32mp2.co"), "{err}");
}
