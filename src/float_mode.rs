//! The float mode a kernel starts in: the MODE value its kernel descriptor's COMPUTE_PGM_RSRC1 loads
//! (FLOAT_ROUND_MODE_32/_16_64, FLOAT_DENORM_MODE_32/_16_64, ENABLE_DX10_CLAMP, ENABLE_IEEE_MODE).
//!
//! One home for the float-mode rules (decision D166): the lifter (crates/ir/src/lift/mode.rs) carries MODE
//! from this start value through `s_setreg`/`s_round_mode`/`s_denorm_mode`, flushes f32 denormals where
//! FP_DENORM f32 says so, and refuses by name, at the first float instruction that would run in it, any mode
//! it does not model (D026, D072, D167). Kernels without float instructions run in any mode.

use rdna2spv_codeobj::Kernel;

/// MODE at the start of `kernel`, from its descriptor.
pub fn initial_mode(kernel: &Kernel) -> u32 {
    let r = &kernel.descriptor.compute_pgm_rsrc1;
    rdna2spv_ir::lift::mode_of_rsrc1(
        r.float_round_mode_32.into(),
        r.float_round_mode_16_64.into(),
        r.float_denorm_mode_32.into(),
        r.float_denorm_mode_16_64.into(),
        r.enable_dx10_clamp,
        r.enable_ieee_mode,
    )
}
