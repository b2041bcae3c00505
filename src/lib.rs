//! rdna2spv: run AMD RDNA 2 (gfx10.3) machine code anywhere, exactly.
//!
//! The library behind the `rdna2spv` CLI: manifests, dispatch plans shared by the backends, and listings.
pub mod capture;
pub mod corpus;
pub mod corpus_validate;
pub mod device;
pub mod disasm;
pub mod dispatch;
pub mod exec;
pub mod float_mode;
pub mod glsl_ref;
pub mod images;
pub mod manifest;
pub mod output;
pub mod probe;
pub mod raw;
pub mod robust;
pub mod trace;
