//! Decision D085: a required subgroup size is trusted only when a shader measures it. lavapipe accepts
//! a forced `requiredSubgroupSize` of 32 (and 64) and runs subgroups of 8; the probe must see that
//! from the invocations' own ballots and sums, and refuse to trust the request.

mod common;

use std::collections::BTreeMap;

use rdna2spv_vulkan::subgroup::{self, measure_records, probe_module, verify};
use rdna2spv_vulkan::DeviceProfile;

#[test]
fn probe_module_passes_spirv_val() {
    common::spirv_val("subgroup_verify", &probe_module());
}

/// Sizes of the groups of invocations that share a broadcast-first value (a subgroup), counted here
/// from the raw records, independently of `VerifiedSubgroup::from_records`.
fn group_sizes(records: &[[u32; 5]]) -> Vec<u32> {
    let mut groups: BTreeMap<u32, u32> = BTreeMap::new();
    for r in records {
        *groups.entry(r[4]).or_default() += 1;
    }
    groups.into_values().collect()
}

#[test]
fn lavapipe_accepting_32_but_running_8_is_detected_and_not_trusted() {
    let ctx = common::lavapipe();
    let default = measure_records(&ctx, None, false).expect("default pipeline");
    let default_sizes = group_sizes(&default);
    println!("default pipeline: subgroups of {default_sizes:?}");
    for want in [32u32, 64] {
        // The device does not advertise the size (lavapipe: 8..=8), so this is a forced request:
        // the driver accepts it (no error) — that is the behaviour under test.
        let records = measure_records(&ctx, Some(want), true)
            .unwrap_or_else(|e| panic!("lavapipe refused a forced required size {want}: {e}"));
        let sizes = group_sizes(&records);
        let ballots: Vec<u32> = records.iter().map(|r| r[2]).collect();
        let sums: Vec<u32> = records.iter().map(|r| r[3]).collect();
        println!(
            "required {want}: SubgroupSize built-in {:?}, subgroups of {sizes:?}, ballot counts {:?}",
            records.iter().map(|r| r[0]).max(),
            ballots.iter().max()
        );
        // What ran: every subgroup smaller than the request, by every independent count.
        assert!(sizes.iter().all(|&s| s < want), "{sizes:?}");
        assert!(ballots.iter().all(|&b| b < want) && sums.iter().all(|&s| s < want));
        // The verification sees it and does not trust the request.
        let v = verify(&ctx, Some(want), true).expect("verify");
        println!("{v:?}");
        assert!(v.forced && !v.advertised, "{v:?}");
        assert_eq!(v.requested, Some(want));
        assert_eq!(v.effective, *sizes.iter().min().unwrap(), "{v:?}");
        assert!(v.effective < want && !v.trusted, "{v:?}");
        // The effective size is the default one: the request changed nothing.
        assert_eq!(v.effective, *default_sizes.iter().min().unwrap());
    }
}

#[test]
fn lavapipe_profile_trusts_no_wave_sized_subgroup() {
    let ctx = common::lavapipe();
    let (p, report) = rdna2spv_vulkan::probe_with_report(&ctx).expect("probe");
    let waves: Vec<Option<u32>> = p.verified_subgroups.iter().map(|v| v.requested).collect();
    assert_eq!(waves, [Some(32), Some(64)], "{report}");
    assert!(p.trusted_subgroup(32).is_none() && p.trusted_subgroup(64).is_none());
    assert!(!p.required_subgroup_size_honoured, "{report}");
    assert_eq!(DeviceProfile::from_json(&p.to_json_pretty()).unwrap(), p);
    // Only advertised sizes are requested by the profile probe.
    for v in &p.verified_subgroups {
        assert_eq!(
            v.advertised,
            subgroup::advertised(&ctx, v.requested.unwrap())
        );
        assert!(!v.forced);
    }
}
