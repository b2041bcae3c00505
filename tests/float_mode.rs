//! Kernels whose descriptor starts them in a float mode the lifter does not model are refused when they
//! execute float instructions (decisions D026, D167): exit 2, the field named, no output written. Flushed
//! f32 denormals (FLOAT_DENORM_MODE_32 ≠ 3) are modelled since D166 and run. The code objects are clang's
//! fixtures with COMPUTE_PGM_RSRC1 (descriptor byte 48) patched.

use std::path::{Path, PathBuf};
use std::process::Command;

use rdna2spv_codeobj::CodeObject;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/kernels")
        .join(name)
}

/// A copy of `name` with `f(rsrc1)` written into every kernel's descriptor, in a fresh directory.
fn patched(name: &str, tag: &str, f: impl Fn(u32) -> u32) -> (PathBuf, PathBuf) {
    let bytes = std::fs::read(fixture(name)).unwrap();
    let co = CodeObject::parse_any(&bytes).unwrap();
    let mut out = bytes.clone();
    for k in &co.kernels {
        let at = k.descriptor_offset as usize + 48;
        let raw = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
        out[at..at + 4].copy_from_slice(&f(raw).to_le_bytes());
    }
    let dir =
        std::env::temp_dir().join(format!("rdna2spv-float-mode-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, out).unwrap();
    (dir, p)
}

fn translate(co: &Path, out: &Path) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("translate")
        .arg(co)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_fixtures_start_in_the_modelled_mode() {
    // clang's compute kernels: round to nearest even, denormals preserved, IEEE and DX10_CLAMP on (the
    // -cl-denorms-are-zero / -fgpu-flush-denormals-to-zero builds: f32 denormals flushed).
    let dir = fixture("");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "co") {
            continue;
        }
        n += 1;
        let name = path.display();
        let co = CodeObject::parse_any(&std::fs::read(&path).unwrap()).unwrap();
        // The *_ftz fixtures are built to flush f32 denormals (FP_DENORM f32 = 0, D166); denorm64_ftz
        // (-fdenormal-fp-math=preserve-sign) flushes every width (FP_DENORM f16/f64 = 0 too, D185).
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let want = if stem == "denorm64_ftz" {
            rdna2spv_ir::lift::MODELLED_MODE & !0xf0
        } else if stem.ends_with("_ftz") {
            rdna2spv_ir::lift::MODELLED_MODE & !0x30
        } else {
            rdna2spv_ir::lift::MODELLED_MODE
        };
        for k in &co.kernels {
            assert_eq!(
                rdna2spv::float_mode::initial_mode(k),
                want,
                "{name} {}",
                k.name,
            );
        }
    }
    assert!(n >= 3);
}

#[test]
fn flushed_denormals_round_modes_and_ieee_off_are_refused_by_name() {
    // (fixture, bit field, value, expected text) — FLOAT_DENORM_MODE_32 bits 17:16, ROUND_MODE_32 13:12,
    // ROUND_MODE_16_64 15:14, IEEE bit 23, DX10_CLAMP bit 21.
    let cases: [(&str, &str, u32, u32, &str); 5] = [
        // Directed rounding is modelled for f32 add/sub/mul/fma and v_cvt_f16_f32 (D186), not for the
        // division sequence's v_div_scale_f32 nor for the f64 division helpers: refused by name.
        (
            "divsqrt.co",
            "round32",
            12,
            1,
            "FP_ROUND f32 = 1 (toward +inf)",
        ),
        (
            "divsqrt64.co",
            "round1664",
            14,
            3,
            "FP_ROUND f16/f64 = 3 (toward zero)",
        ),
        ("divsqrt.co", "ieee", 23, 0, "IEEE = 0"),
        ("divsqrt.co", "dx10", 21, 0, "DX10_CLAMP = 0"),
        // Flushed f32 denormals are modelled (D166), but not yet for the division sequence's
        // v_div_scale_f32 outside an s_denorm_mode bracket: refused by name.
        ("divsqrt.co", "denorm32", 16, 0, "FP_DENORM f32 = 0"),
    ];
    for (fixture, tag, shift, value, text) in cases {
        let width = if shift >= 21 { 1 } else { 2 };
        let mask = ((1u32 << width) - 1) << shift;
        let (dir, co) = patched(fixture, tag, |r| (r & !mask) | value << shift);
        let out = dir.join("out.spv");
        let (code, err) = translate(&co, &out);
        assert_eq!(code, 2, "{tag}: {err}");
        assert!(
            err.contains(text) && ["D026", "D166", "D186"].iter().any(|d| err.contains(d)),
            "{tag}: {err}"
        );
        assert!(!out.exists(), "{tag}: an output was written");
        std::fs::remove_dir_all(dir).ok();
    }
}

#[test]
fn directed_rounding_translates_where_modelled() {
    // saxpy (v_fmac_f32) toward zero and denorm64 (f64/f16 arithmetic) with FP_ROUND f16/f64 toward +inf:
    // saxpy's one rounding is directed (D186); denorm64's f64 add is not modelled under a directed f16/f64
    // field and is refused by name.
    let (dir, co) = patched("saxpy.co", "rtz", |r| r | 3 << 12);
    let out = dir.join("out.spv");
    let (code, err) = translate(&co, &out);
    assert_eq!(code, 0, "{err}");
    assert!(out.exists());
    std::fs::remove_dir_all(dir).ok();
    let (dir, co) = patched("denorm64.co", "rup1664", |r| r & !(3 << 14) | 1 << 14);
    let out = dir.join("out.spv");
    let (code, err) = translate(&co, &out);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("v_add_f64")
            && err.contains("FP_ROUND f16/f64 = 1 (toward +inf)")
            && err.contains("D186"),
        "{err}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn kernels_without_float_instructions_run_in_any_mode() {
    // atomics.co has no float instruction: its mode cannot change what it computes.
    let (dir, co) = patched("atomics.co", "int", |r| r & !(3 << 16) & !(1 << 23));
    let out = dir.join("out.spv");
    let (code, err) = translate(&co, &out);
    assert_eq!(code, 0, "{err}");
    assert!(out.exists());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn flushed_f32_denormals_translate() {
    // saxpy (v_fmac_f32) with FLOAT_DENORM_MODE_32 = 0: modelled since D166, so it translates.
    let (dir, co) = patched("saxpy.co", "ftz", |r| r & !(3 << 16));
    let out = dir.join("out.spv");
    let (code, err) = translate(&co, &out);
    assert_eq!(code, 0, "{err}");
    assert!(out.exists());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn flushed_f16_f64_denormals_translate_or_are_refused_by_name() {
    // FLOAT_DENORM_MODE_16_64 (bits 19:18) = 0 is modelled per instruction since D185: divsqrt.co (f32 only)
    // and denorm64.co (f64 and f16 arithmetic) translate; half.co's v_fma_mix_f32 and divsqrt64.co's
    // v_div_scale_f64 have no flush rule yet and are refused by name, nothing written.
    for (fixture, refused) in [
        ("divsqrt.co", None),
        ("denorm64.co", None),
        ("half.co", Some("v_fma_mix_f32")),
        ("divsqrt64.co", Some("v_div_scale_f64")),
    ] {
        let (dir, co) = patched(fixture, "ftz1664", |r| r & !(3 << 18));
        let out = dir.join("out.spv");
        let (code, err) = translate(&co, &out);
        if let Some(name) = refused {
            assert_eq!(code, 2, "{fixture}: {err}");
            assert!(
                err.contains(name) && err.contains("FP_DENORM f16/f64 = 0") && err.contains("D185"),
                "{fixture}: {err}"
            );
            assert!(!out.exists(), "{fixture}: an output was written");
        } else {
            assert_eq!(code, 0, "{fixture}: {err}");
            assert!(out.exists());
        }
        std::fs::remove_dir_all(dir).ok();
    }
}
