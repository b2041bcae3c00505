//! The launch ABI a wave starts with: what each initial SGPR holds. One type for the evaluator
//! (`rdna2spv_eval::Launch`) and the lowering (`rdna2spv_spirv::lower::KernelLayout`), so the runner passes a
//! launch's registers to both without a conversion (decision D170). The registers and their order come from
//! the kernel descriptor and the code object's metadata (the HSA/AMDGPU ABI: "Initial Kernel Execution
//! State" in LLVM's AMDGPUUsage).

/// What one SGPR holds when a wave starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SgprInit {
    /// A value known at launch (kernel argument address, dispatch packet word, …). The evaluator writes it;
    /// a lowered module does not contain it: the k-th `Const` entry of its layout reads launch word k, a value
    /// the host passes at run time (`rdna2spv_spirv::lower::launch_words`).
    Const(u32),
    /// The workgroup id in dimension 0, 1 or 2.
    WorkgroupId(usize),
    /// The wave's byte offset into the private segment (scratch): always 0, each wave has its own region
    /// ([`crate::Space::Scratch`]).
    ScratchWaveOffset,
}

/// Bytes of one wave's private (scratch) region: `wave_size` lanes of the per-lane private segment size
/// (the descriptor's private_segment_fixed_size) rounded up to dwords ([`crate::Space::Scratch`], D010). The
/// evaluator sizes each wave's region by it and the lowering each wave's slot of the scratch buffer.
pub fn wave_scratch_bytes(wave_size: u32, per_lane_bytes: u32) -> u64 {
    u64::from(wave_size) * u64::from(per_lane_bytes.div_ceil(4)) * 4
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked: 5 bytes per lane round up to 2 dwords (8 bytes), times 32 lanes; 0 stays 0.
    #[test]
    fn wave_scratch_rounds_each_lane_up_to_dwords() {
        assert_eq!(wave_scratch_bytes(32, 5), 256);
        assert_eq!(wave_scratch_bytes(64, 8), 512);
        assert_eq!(wave_scratch_bytes(64, 0), 0);
        assert_eq!(wave_scratch_bytes(64, u32::MAX), 64 * (1u64 << 32));
    }
}
