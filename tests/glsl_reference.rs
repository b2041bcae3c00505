//! The hand-written GLSL reference kernels (`fixtures/glsl/*.comp`, `rdna2spv::glsl_ref`) compute what the
//! translated fixture kernels compute, on the same data, on lavapipe: bit for bit where the operations and
//! their order are the same (float NaNs as the canonical NaN, D005). `saxpy` is the one documented
//! exception: its kernel is one fused multiply-add, which lavapipe's GLSL `fma` rounds twice; there the
//! translated result must equal the host's one-rounding `f32::mul_add` and the GLSL one the two-rounding
//! `a * x + y`, element by element, so the kernels are shown to be the same computation. `saxpy_exact`
//! is the GLSL that rounds the fused multiply-add once (fixtures/glsl/saxpy_exact.comp): bit-identical to
//! the translated kernel and, element by element, to the host's `f32::mul_add` (D115).
//!
//! These are the equivalence proofs behind `cargo xtask bench device`'s run-time ratios (issue 10); no
//! timing is asserted. Needs `glslangValidator` (apt-get install glslang-tools) and lavapipe.

use rdna2spv::device::{open, profile_of, run_vulkan, ProfileChoice};
use rdna2spv::dispatch::Plan;
use rdna2spv::glsl_ref::{self, Agreement, REFERENCES};
use rdna2spv::manifest::{ArgValue, Manifest};

fn words_of(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The canonical quiet NaN for NaNs (D005); other values unchanged.
fn canon(w: u32) -> u32 {
    if f32::from_bits(w).is_nan() {
        0x7fc0_0000
    } else {
        w
    }
}

fn buffer_arg(m: &Manifest, i: usize) -> Vec<u8> {
    match m.arg_value(i).unwrap() {
        ArgValue::Buffer { data, .. } => data,
        other => panic!("argument {i} is {other:?}"),
    }
}

fn scalar_f32(m: &Manifest, i: usize) -> f32 {
    match m.arg_value(i).unwrap() {
        ArgValue::Scalar { bytes, .. } => f32::from_le_bytes(bytes[..4].try_into().unwrap()),
        other => panic!("argument {i} is {other:?}"),
    }
}

#[test]
fn glsl_references_compute_what_the_translated_kernels_compute() {
    let ctx = open(Some("llvmpipe")).expect("lavapipe (apt-get install mesa-vulkan-drivers)");
    let profile = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let root = glsl_ref::repo_root();
    assert!(REFERENCES.len() >= 6);
    for r in REFERENCES {
        let m = Manifest::load(&root.join(r.manifest)).unwrap();
        let mut plan = Plan::new(&m).unwrap();
        let translated = run_vulkan(&ctx, &mut plan, &profile).unwrap();
        let words = glsl_ref::compile_glsl(&root.join(r.glsl)).unwrap();
        let glsl = glsl_ref::run(&ctx, r, &m, &words).unwrap();
        assert!(!glsl.outputs.is_empty(), "{}: no outputs", r.name);
        for (name, g) in &glsl.outputs {
            let t = translated
                .buffers
                .iter()
                .find(|b| b.output.as_deref() == Some(name))
                .unwrap_or_else(|| panic!("{}: translated run has no output {name}", r.name));
            let (tw, gw) = (words_of(&t.data), words_of(g));
            assert_eq!(tw.len(), gw.len(), "{}: {name} sizes", r.name);
            let canon = |w: u32| if r.integer { w } else { canon(w) };
            let nans = if r.integer {
                0
            } else {
                tw.iter().filter(|w| f32::from_bits(**w).is_nan()).count()
            };
            let differ = tw
                .iter()
                .zip(&gw)
                .filter(|(a, b)| canon(**a) != canon(**b))
                .count();
            let raw = tw.iter().zip(&gw).filter(|(a, b)| a != b).count();
            println!(
                "{}: {name}: {} words, {differ} differ (translated vs GLSL; {raw} as raw bits), {nans} NaN",
                r.name,
                tw.len()
            );
            match r.agreement {
                Agreement::BitExact => {
                    if let Some(i) = (0..tw.len()).find(|&i| canon(tw[i]) != canon(gw[i])) {
                        panic!(
                            "{}: {name}[{i}]: translated {:#010x}, GLSL {:#010x} ({differ} differ)",
                            r.name, tw[i], gw[i]
                        );
                    }
                    if r.name == "saxpy_exact" {
                        // The independent oracle: the host's one-rounding fused multiply-add.
                        let a = scalar_f32(&m, 0);
                        let x = words_of(&buffer_arg(&m, 1));
                        let y = words_of(&buffer_arg(&m, 2));
                        let n = m.grid[0] as usize;
                        let mut twice_differs = 0;
                        for i in 0..gw.len() {
                            let (xi, yi) = (f32::from_bits(x[i]), f32::from_bits(y[i]));
                            let once = if i < n {
                                a.mul_add(xi, yi).to_bits()
                            } else {
                                y[i]
                            };
                            assert_eq!(canon(gw[i]), canon(once), "{}: GLSL y[{i}]", r.name);
                            let twice = (a * xi + yi).to_bits();
                            twice_differs += usize::from(i < n && canon(once) != canon(twice));
                        }
                        // The data holds operands where one rounding and two differ (D993).
                        assert!(twice_differs > 0, "{}", r.name);
                    }
                }
                Agreement::UnfusedFma => {
                    // saxpy: y = fma(a, x, y) over the manifest's data.
                    let a = scalar_f32(&m, 0);
                    let x = words_of(&buffer_arg(&m, 1));
                    let y = words_of(&buffer_arg(&m, 2));
                    let n = m.grid[0] as usize;
                    let mut fused_differs = 0;
                    for i in 0..tw.len() {
                        let (xi, yi) = (f32::from_bits(x[i]), f32::from_bits(y[i]));
                        let (once, twice) = if i < n {
                            (a.mul_add(xi, yi).to_bits(), (a * xi + yi).to_bits())
                        } else {
                            (y[i], y[i])
                        };
                        assert_eq!(canon(tw[i]), canon(once), "{}: translated y[{i}]", r.name);
                        assert_eq!(canon(gw[i]), canon(twice), "{}: GLSL y[{i}]", r.name);
                        fused_differs += usize::from(canon(once) != canon(twice));
                    }
                    assert_eq!(differ, fused_differs);
                    // The fixture is built to show the difference (D993 operands).
                    assert!(fused_differs > 0, "{}", r.name);
                }
            }
        }
    }
}
