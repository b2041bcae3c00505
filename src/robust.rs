//! Helpers for the robustness checks (fuzz targets and property tests): the whole translation pipeline on
//! raw instruction words, with every stage's failure as a clear error.

use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_isa::Target;
use rdna2spv_spirv::lower::{lower, KernelLayout, SgprInit};
use rdna2spv_spirv::DeviceProfile;

/// `s_endpgm`.
pub const S_ENDPGM: u32 = 0xbf81_0000;

/// How far a program got through the pipeline when it stopped.
#[derive(Debug)]
pub enum Translated {
    /// A SPIR-V module (words), which the caller may validate.
    Module(Vec<u32>),
    /// A clear refusal at some stage (decode/lift, verify or lower), with its message.
    Refused {
        stage: &'static str,
        message: String,
    },
}

/// The launch layout used for random programs: one workgroup of 64 work-items, s0..s15 passed in, v0 the
/// work-item id, some LDS and scratch so every memory space can lower.
pub fn fuzz_layout(wave_size: u32) -> KernelLayout {
    KernelLayout {
        wave_size,
        workgroup: [64, 1, 1],
        sgprs: (0..16).map(|r| (r, SgprInit::Const(0))).collect(),
        workitem_id_vgprs: 1,
        lds_bytes: 256,
        scratch_bytes: 16,
        code_base: None,
    }
}

/// The fuzz targets' input format for random programs: byte 0 picks the wave size (bit 0: wave64), the
/// sub-target (bits 1..) and whether `s_endpgm` is appended (bit 7 clear); then up to 64 little-endian
/// words. None for empty input.
pub fn fuzz_program(data: &[u8]) -> Option<(Vec<u32>, Target, u32)> {
    let (&head, rest) = data.split_first()?;
    let wave_size = if head & 1 == 1 { 64 } else { 32 };
    let target = Target::ALL[(head as usize >> 1) % Target::ALL.len()];
    let mut words: Vec<u32> = rest
        .chunks_exact(4)
        .take(64)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if head & 0x80 == 0 {
        words.push(S_ENDPGM);
    }
    Some((words, target, wave_size))
}

/// decode → lift → verify → lower (portable profile) of the little-endian `words` as a kernel starting at
/// word 0. Never panics; a module it returns is meant to pass `spirv-val --target-env vulkan1.3`.
pub fn translate_words(words: &[u32], target: Target, wave_size: u32) -> Translated {
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = LiftOptions {
        target,
        wave_size,
        private_segment_buffer: Some(0),
    };
    let program = match lift("fuzz", &code, opts) {
        Ok(p) => p,
        Err(e) => {
            return Translated::Refused {
                stage: "lift",
                message: e.to_string(),
            }
        }
    };
    if let Err(e) = rdna2spv_ir::verify::verify(&program) {
        return Translated::Refused {
            stage: "verify",
            message: e.to_string(),
        };
    }
    match lower(
        &program,
        &fuzz_layout(wave_size),
        &DeviceProfile::portable(),
    ) {
        Ok(m) => Translated::Module(m),
        Err(e) => Translated::Refused {
            stage: "lower",
            message: e.to_string(),
        },
    }
}

/// Checks a module's structure by parsing it back with rspirv (a cheap in-process stand-in for spirv-val).
pub fn reparse(words: &[u32]) -> Result<(), String> {
    let mut loader = rspirv::dr::Loader::new();
    rspirv::binary::parse_words(words, &mut loader).map_err(|e| e.to_string())?;
    let m = loader.module();
    if m.entry_points.is_empty() {
        return Err("no entry point".into());
    }
    Ok(())
}
