//! A HIP runtime of rdna2spv's own: `libamdhip64.so.5`, exporting the HIP C ABI with the symbol version
//! `hip_4.2` that hipcc-built programs import, so that an unmodified program runs its gfx1030 kernels on
//! the host evaluator or, translated to SPIR-V, on any Vulkan 1.3 device (decision D156).
//!
//! `rdna2spv exec` puts it first on the library path and chooses the backend through the environment
//! ([`config`]). Streams run in order and synchronously. What is not supported (managed memory,
//! device-side printf and malloc, cooperative launches, graphs, textures) stops the process with a
//! message naming it and exit status 2; no panic crosses the C ABI.

pub mod api;
pub mod auto;
pub mod cache;
pub mod config;
pub mod error;
pub mod launch;
pub mod memory;
pub mod module;
pub mod props;
pub mod runtime;

use error::Failure;

/// Runs one entry point: its result as a `hipError_t`, the process stopped on [`Failure::Stop`] (exit 2)
/// or [`Failure::Mismatch`] (exit 1), and a panic caught at the boundary (exit 2) — never unwound into C.
pub(crate) fn entry(call: &str, f: impl FnOnce() -> error::Result<()>) -> i32 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(Ok(())) => error::code::SUCCESS,
        Ok(Err(Failure::Code(c))) => {
            runtime::LAST_ERROR.with(|e| e.set(c));
            c
        }
        Ok(Err(Failure::Stop(msg))) => stop(2, &format!("{call}: {msg}")),
        Ok(Err(Failure::Mismatch(msg))) => stop(1, &msg),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            stop(2, &format!("{call}: internal error: {msg}"))
        }
    }
}

/// Ends the process with `status` after a message on stderr (the program's buffered output is flushed;
/// after a dispatch abandoned in flight, without the exit-time destructors: `rdna2spv_vulkan::exit`).
pub(crate) fn stop(status: i32, msg: &str) -> ! {
    eprintln!("rdna2spv: {msg}");
    rdna2spv_vulkan::exit(status)
}
