//! Vulkan 1.3 runner for rdna2spv (ash + gpu-allocator).
//!
//! * [`Context`] — instance, one chosen physical device with the optional shader features it has
//!   switched on, one compute queue, a memory allocator.
//! * [`Buffer`] — host-visible memory with a device address (`SHADER_DEVICE_ADDRESS`): kernels reach
//!   all memory through `PhysicalStorageBuffer64` pointers passed in push constants.
//! * [`Context::dispatch`] — one compute dispatch of a SPIR-V module whose pipeline layout holds only
//!   a push-constant range; waits on a fence with a timeout and reports timings.
//! * [`subgroup`] — the effective subgroup size behind a `requiredSubgroupSize` request (D085).
//! * [`probe`] — measures the [`DeviceProfile`] of the device with tiny kernels built by [`kernel`].
//!
//! libvulkan is loaded at run time, so the crate builds everywhere; without a loader or a device,
//! [`Context::new`] returns a clear [`Error`].

mod buffer;
mod context;
mod coverage_log;
pub mod kernel;
pub mod limit;
pub mod profile;
pub mod run;
pub mod subgroup;
pub mod texel;
pub mod trace;

pub use buffer::Buffer;
pub use context::{
    exit, pipeline_cache_data_matches, work_abandoned, Context, DeviceInfo, DeviceSelector,
    DispatchOptions, DispatchStats, EnabledFeatures, PIPELINE_CACHE_HEADER_BYTES,
};
pub use profile::{probe, probe_with_report, ProbeReport};
pub use rdna2spv_spirv::profile::{DeviceIdentity, DeviceProfile, FloatToInt, VerifiedSubgroup};
pub use run::{
    kernel_layout, lower_for_run, name_in_program, run_lowered, run_lowered_unlifted, run_program,
    run_with_buffers, BufferRun, RunError, RunOptions, RunReport,
};

use std::time::Duration;

/// Everything that can go wrong talking to Vulkan.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// libvulkan could not be loaded.
    #[error(
        "no Vulkan loader: {0} (install libvulkan1 and a driver; for CPU-only CI: \
         apt-get install libvulkan1 mesa-vulkan-drivers, which provides lavapipe)"
    )]
    NoLoader(String),
    /// The loader or device is older than Vulkan 1.3.
    #[error("Vulkan 1.3 is required, but {0}")]
    TooOld(String),
    /// No physical device matched.
    #[error("no usable Vulkan 1.3 device with a compute queue{0}")]
    NoDevice(String),
    /// The chosen device lacks a feature rdna2spv cannot do without.
    #[error("device \"{device}\" lacks the required feature {feature}")]
    MissingFeature {
        /// Device name.
        device: String,
        /// Vulkan feature name.
        feature: &'static str,
    },
    /// A Vulkan call returned an error.
    #[error("{call} failed: {result}")]
    Vk {
        /// The call that failed.
        call: &'static str,
        /// Its result code.
        result: ash::vk::Result,
    },
    /// The device was lost (VK_ERROR_DEVICE_LOST); the context is unusable.
    #[error("the Vulkan device was lost during {0}; the context is unusable")]
    DeviceLost(&'static str),
    /// A dispatch did not finish in time; the context is unusable afterwards. The message separates the
    /// pipeline's creation (before the wait) from the wait, and says whether the wait held the module's
    /// first dispatch, where lavapipe compiles it (D164).
    #[error(
        "the dispatch did not finish within {}; {}; the device may be hung and the context is unusable",
        timeout_limit(*limit, *compile_allowance),
        timeout_phases(*pipeline_create, *first_dispatch, *module_words, module_cost)
    )]
    Timeout {
        /// The fence timeout.
        limit: Duration,
        /// The wait allowed on top of `limit` for lavapipe's compile of the module in its first dispatch
        /// ([`limit::compile_allowance`], D241; zero otherwise).
        compile_allowance: Duration,
        /// Time spent creating the shader module and pipeline before the dispatch (zero when cached).
        pipeline_create: Duration,
        /// The pipeline was created for this dispatch (lavapipe compiles the module inside it).
        first_dispatch: bool,
        /// Words of the module.
        module_words: usize,
        /// What lavapipe's compile of the module grows with (D208); zero when no module was dispatched.
        module_cost: limit::ModuleCost,
    },
    /// A module over the context's size limit ([`limit`], D164): it never reaches the driver.
    #[error("{}", limit::too_large_message(cost, *limit))]
    ModuleTooLarge {
        /// Words of the module.
        words: usize,
        /// The limit.
        limit: usize,
        /// The module's words, inlined words and barriers, for the prediction (D208).
        cost: limit::ModuleCost,
    },
    /// A previous timeout or device loss made the context unusable.
    #[error("the context is unusable after an earlier timeout or device loss")]
    Poisoned,
    /// Memory allocation failed.
    #[error("memory allocation failed: {0}")]
    Alloc(#[from] gpu_allocator::AllocationError),
    /// The SPIR-V module was rejected before it reached the driver, or by the driver.
    #[error("invalid SPIR-V module: {0}")]
    InvalidSpirv(String),
    /// Bad arguments (push constants too large, out-of-range buffer access, zero workgroups…).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// The timeout message's limit: "60s", or "60s and 5 min allowed for lavapipe's compile …" (D241).
fn timeout_limit(limit: Duration, compile_allowance: Duration) -> String {
    if compile_allowance.is_zero() {
        format!("{limit:?}")
    } else {
        format!(
            "{limit:?} and {} allowed for lavapipe's compile of the module ({}× its predicted CPU time, D241)",
            limit::human_seconds(compile_allowance.as_secs_f64()),
            limit::COMPILE_ALLOWANCE_FACTOR
        )
    }
}

/// The timeout message's account of where the time went (D164).
fn timeout_phases(
    pipeline_create: Duration,
    first_dispatch: bool,
    module_words: usize,
    cost: &limit::ModuleCost,
) -> String {
    if first_dispatch {
        let (secs, _) = limit::predicted_compile(cost);
        format!(
            "pipeline creation took {:.2} s before the wait (not counted); the wait was the module's first \
             dispatch, which on lavapipe holds its compile ({}: about {} of CPU predicted, \
             docs/performance.md) before the run",
            pipeline_create.as_secs_f64(),
            limit::describe_cost(cost),
            limit::human_seconds(secs)
        )
    } else {
        format!(
            "the pipeline ({} words) was compiled by an earlier dispatch, so the wait was the kernel's run",
            limit::group(module_words)
        )
    }
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn vk_err(call: &'static str) -> impl Fn(ash::vk::Result) -> Error {
    move |result| {
        if result == ash::vk::Result::ERROR_DEVICE_LOST {
            Error::DeviceLost(call)
        } else {
            Error::Vk { call, result }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_names_the_compile_allowance_it_waited_for() {
        let cost = limit::ModuleCost {
            words: 345_162,
            inlined_words: 345_162,
            barriers: 579,
            memory_accesses: 2_859,
            ..limit::ModuleCost::default()
        };
        let e = |compile_allowance| Error::Timeout {
            limit: Duration::from_secs(60),
            compile_allowance,
            pipeline_create: Duration::from_millis(840),
            first_dispatch: true,
            module_words: cost.words,
            module_cost: cost,
        };
        let with = e(limit::compile_allowance(&cost)).to_string();
        assert!(
            with.starts_with(
                "the dispatch did not finish within 60s and 5 min allowed for lavapipe's compile of \
                 the module (4× its predicted CPU time, D241); pipeline creation took 0.84 s"
            ),
            "{with}"
        );
        assert!(with.contains("about 77 s of CPU predicted"), "{with}");
        let without = e(Duration::ZERO).to_string();
        assert!(
            without.starts_with("the dispatch did not finish within 60s; pipeline creation"),
            "{without}"
        );
    }

    #[test]
    fn context_can_be_shared_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Context>();
    }

    #[test]
    fn missing_loader_message_says_what_to_install() {
        let text = Error::NoLoader("libvulkan.so.1: cannot open".into()).to_string();
        assert!(
            text.contains("libvulkan1") && text.contains("mesa-vulkan-drivers"),
            "{text}"
        );
    }
}
