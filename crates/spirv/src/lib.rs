//! SPIR-V side of rdna2spv: the device profile that drives the lowering, and exact emulations of ISA
//! primitives (the IR → SPIR-V lowering itself lands here later).

pub mod exact;
pub mod lower;
pub mod profile;
pub mod words;

pub use profile::{DeviceIdentity, DeviceProfile, FloatToInt, VerifiedSubgroup};
