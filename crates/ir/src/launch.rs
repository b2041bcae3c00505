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
