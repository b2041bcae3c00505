//! The float mode a kernel starts in (COMPUTE_PGM_RSRC1 of its kernel descriptor), checked against the one
//! mode the lifter's float semantics model (decisions D013, D025, D026): round to nearest even for f32 and
//! f16/f64, denormals preserved for both (FLOAT_DENORM_MODE 3), IEEE mode on, DX10_CLAMP on — what clang
//! and hipcc set for every compute kernel. A kernel that starts in another mode and executes float
//! instructions is refused with the field named, instead of being run with the wrong rounding, flushing
//! or NaN rules. Kernels without float instructions are unaffected by the mode and pass.

use anyhow::{bail, Result};
use rdna2spv_codeobj::Kernel;
use rdna2spv_ir::Program;

/// The mode's departures from the modelled one, as text (empty: the modelled mode).
pub fn unmodelled(kernel: &Kernel) -> Vec<String> {
    let r = &kernel.descriptor.compute_pgm_rsrc1;
    let mut out = Vec::new();
    if r.float_round_mode_32 != 0 {
        out.push(format!(
            "FLOAT_ROUND_MODE_32 = {} (only round to nearest even is modelled)",
            r.float_round_mode_32
        ));
    }
    if r.float_round_mode_16_64 != 0 {
        out.push(format!(
            "FLOAT_ROUND_MODE_16_64 = {} (only round to nearest even is modelled)",
            r.float_round_mode_16_64
        ));
    }
    if r.float_denorm_mode_32 != 3 {
        out.push(format!(
            "FLOAT_DENORM_MODE_32 = {} (only 3, denormals preserved, is modelled)",
            r.float_denorm_mode_32
        ));
    }
    if r.float_denorm_mode_16_64 != 3 {
        out.push(format!(
            "FLOAT_DENORM_MODE_16_64 = {} (only 3, denormals preserved, is modelled)",
            r.float_denorm_mode_16_64
        ));
    }
    if !r.enable_ieee_mode {
        out.push("ENABLE_IEEE_MODE = 0 (only IEEE mode is modelled)".into());
    }
    if !r.enable_dx10_clamp {
        out.push("ENABLE_DX10_CLAMP = 0 (only DX10 clamp is modelled)".into());
    }
    out
}

/// The first instruction of `p` whose mnemonic names a float type (`_f16`, `_f32`, `_f64`), as
/// (offset, text).
pub fn first_float_instruction(p: &Program) -> Option<(u32, String)> {
    p.blocks
        .iter()
        .flat_map(|(_, b)| b.insts.iter())
        .find_map(|i| {
            let m = i.text.split_whitespace().next().unwrap_or("");
            let float =
                m.starts_with("v_") && ["_f16", "_f32", "_f64"].iter().any(|t| m.contains(t));
            float.then(|| (i.pc, i.text.clone()))
        })
}

/// Refuses a kernel whose float instructions would run in a mode the lifter does not model.
pub fn check(kernel: &Kernel, p: &Program) -> Result<()> {
    let bad = unmodelled(kernel);
    if bad.is_empty() {
        return Ok(());
    }
    if let Some((pc, text)) = first_float_instruction(p) {
        bail!(
            "kernel {}: its descriptor starts it in a float mode this translator does not model ({}); \
             float instructions such as `{text}` at offset 0x{pc:x} would run with the wrong rounding, \
             denormal or NaN rules (decision D026)",
            kernel.name,
            bad.join("; ")
        );
    }
    Ok(())
}
