//! The profile probe: every module is valid SPIR-V, and on lavapipe it measures what DESIGN.md says.

mod common;

use rdna2spv_vulkan::profile::probe_modules;
use rdna2spv_vulkan::{probe_with_report, DeviceProfile, FloatToInt};

#[test]
fn every_probe_module_passes_spirv_val() {
    for (name, words) in probe_modules() {
        common::spirv_val(name, &words);
    }
}

#[test]
fn lavapipe_profile_matches_the_measurements() {
    let ctx = common::lavapipe();
    let (p, report) = probe_with_report(&ctx).expect("probe");
    println!("{report}");
    println!("{}", p.to_json_pretty());
    assert!(p.buffer_device_address, "{report}");
    assert!(
        !p.fma_f32_fused,
        "lavapipe's f32 Fma is not fused:\n{report}"
    );
    assert!(!p.fma_f16_fused, "{report}");
    assert!(!p.fma_f64_fused, "{report}");
    assert!(
        p.folds_add_zero && p.folds_mul_one && p.folds_mul_zero,
        "{report}"
    );
    assert!(
        p.preserves_subnormals_f32 && p.preserves_subnormals_f64,
        "{report}"
    );
    assert!(!p.denorm_preserve_mode_honoured);
    assert_eq!(p.float_to_int, FloatToInt::X86Indefinite, "{report}");
    assert!(p.has_int64 && p.has_float64);
    assert_eq!(p.subgroup_size, 8, "{report}");
    assert!(!p.required_subgroup_size_honoured);
    assert_eq!(p.loop_iteration_cap, Some(65_535), "{report}");
    // D146: each 8-wide batch is a coroutine that runs alone until a barrier.
    assert!(p.subgroup_runs_alone, "{report}");
    // D288: lavapipe's lane modules keep their workgroup memory in a texel buffer.
    assert!(p.lds_in_texel_buffer, "{report}");
    // The profile prints as JSON and reads back.
    assert_eq!(DeviceProfile::from_json(&p.to_json_pretty()).unwrap(), p);
}

/// The D146 criterion on hand-made probe outputs: contiguous blocks per subgroup pass; one add of another
/// subgroup inside a block, a single subgroup, a subgroup size that does not divide the workgroup, or no
/// measurement fail.
#[test]
fn runs_alone_needs_one_contiguous_block_per_subgroup() {
    use rdna2spv_vulkan::profile::runs_alone;
    // 4 invocations, subgroups of 2, 3 adds each: subgroup 0 saw 0..=5, subgroup 1 saw 6..=11.
    let alone = [0, 4, 1, 5, 6, 10, 7, 11];
    assert!(runs_alone(&alone, 2, 3));
    // Subgroup 1's last add came after one of subgroup 0's: both blocks are wider than 6 values.
    let mixed = [0, 4, 1, 6, 5, 10, 7, 11];
    assert!(!runs_alone(&mixed, 2, 3));
    // Read as one subgroup of 4 the same output is one block of 12 values, but a single subgroup shows
    // nothing.
    assert!(!runs_alone(&alone, 4, 3));
    // Subgroups of 1, 2 adds each: invocation 1 ran alone, 0 and 2 interleaved.
    assert!(runs_alone(&[0, 1, 2, 3, 4, 5, 6, 7], 1, 2));
    assert!(!runs_alone(&[0, 4, 2, 3, 1, 5, 6, 7], 1, 2));
    assert!(!runs_alone(&alone, 3, 3));
    assert!(!runs_alone(&alone, 0, 3));
    assert!(!runs_alone(&[], 2, 3));
}
