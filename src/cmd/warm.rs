//! `rdna2spv warm-pipeline` (hidden): compiles a SPIR-V module's pipeline on a Vulkan device without
//! running it, so that the driver's shader cache holds it (decision D252). The HIP runtime's `auto`
//! backend starts it as a child process for a kernel's first launch, runs that launch on the host
//! evaluator meanwhile, and sends the kernel to the device once the child has ended with status 0. A
//! compile that crashes, runs out of memory or times out ends this process, never the program.

use anyhow::{bail, Context as _, Result};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Vulkan device: an index or part of its name (default: RDNA2SPV_VK_DEVICE, else a GPU, else lavapipe).
    #[arg(long)]
    device: Option<String>,
    /// Remove FILE once read (the runtime's temporary copy).
    #[arg(long)]
    consume: bool,
    /// The module: little-endian SPIR-V words; its entry point is `main`.
    file: PathBuf,
}

pub fn run(a: Args) -> Result<i32> {
    let bytes = std::fs::read(&a.file).with_context(|| format!("reading {}", a.file.display()))?;
    if a.consume {
        std::fs::remove_file(&a.file).with_context(|| format!("removing {}", a.file.display()))?;
    }
    if bytes.is_empty() || !bytes.len().is_multiple_of(4) {
        bail!(
            "{}: {} bytes is not a whole number of SPIR-V words",
            a.file.display(),
            bytes.len()
        );
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let ctx = rdna2spv::device::open(a.device.as_deref())?;
    ctx.warm_up(&words, "main")
        .with_context(|| format!("compiling {} on {}", a.file.display(), ctx.info().name))?;
    Ok(0)
}
