//! SPIR-V side of rdna2spv: the IR → SPIR-V lowering ([`lower`]: the wave mapping, one invocation per wave,
//! decision D006, and the lane mapping, one invocation per lane, `lower/lane/`, decision D082 and
//! docs/lane-mapping.md), the device profile that drives its workarounds ([`profile`], decision D004), and
//! exact emulations of ISA primitives a driver may not implement exactly ([`exact`]). How it fits with the
//! other crates: docs/architecture.md.

pub mod exact;
pub(crate) mod hash;
pub mod lower;
pub mod profile;
pub mod words;

pub use profile::{
    aligned_subgroup_size_of, layout_probe_source, DeviceIdentity, DeviceProfile, FloatToInt,
    VerifiedSubgroup,
};
