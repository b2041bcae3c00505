//! `rdna2spv exec`: an unmodified hipcc-built program through rdna2spv's HIP runtime (D156).

use super::ProfileArg;
use anyhow::Result;

/// `exec --backend`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExecBackend {
    /// The host evaluator.
    Host,
    /// The translated kernels on the Vulkan device.
    Vulkan,
    /// Both, every launch compared bit for bit.
    Both,
    /// The device for kernels whose pipeline is compiled; the host evaluator while it compiles in the
    /// background (D252, D254).
    Auto,
}

#[derive(clap::Args)]
pub struct Args {
    /// auto (default): the device for kernels whose pipeline is compiled, and while a kernel's pipeline
    /// compiles (in a child process, into the driver's shader cache) its launches on the host evaluator,
    /// which computes the same bits; a launch still running on the evaluator when the compile ends stops
    /// there and runs on the device. A first run of a rocSPARSE program starts at once instead of waiting
    /// minutes for lavapipe; RDNA2SPV_HIP_AUTO_WAIT_MS makes a launch wait that long for its compile
    /// first (D252, D254). vulkan: every launch on the device, waiting for its compile; host: the
    /// evaluator; both: the device, then the evaluator from the same memory, compared bit for bit.
    #[arg(long, value_enum, default_value = "auto")]
    backend: ExecBackend,
    /// Vulkan device: an index or part of its name (default: RDNA2SPV_VK_DEVICE, else a GPU, else lavapipe).
    #[arg(long)]
    device: Option<String>,
    /// Lowering profile for the Vulkan backend.
    #[arg(long, value_enum, default_value = "device")]
    profile: ProfileArg,
    /// One line per launch on stderr: kernel, grid, block, backend, time, module cache hit.
    #[arg(long)]
    log: bool,
    /// Checked device launches: every global access is validated against the live allocations (the
    /// module, kernarg segment, dispatch packet and every hipMalloc); an access outside them stops the
    /// program with the host evaluator's report (exit 2) instead of corrupting memory. Slower. Each launch
    /// first runs against the allocations it points into (its arguments, kernarg segment, packet and code
    /// object) and, where it reaches further, again against all of them (`--log` says so; D250).
    #[arg(long)]
    checked: bool,
    /// The program and its arguments (after `--`).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<std::ffi::OsString>,
}

pub fn run(a: Args) -> Result<i32> {
    let Args {
        backend,
        device,
        profile,
        log,
        checked,
        mut command,
    } = a;
    let program = command.remove(0);
    rdna2spv::exec::exec(&rdna2spv::exec::ExecOptions {
        backend: match backend {
            ExecBackend::Host => "host",
            ExecBackend::Vulkan => "vulkan",
            ExecBackend::Both => "both",
            ExecBackend::Auto => "auto",
        },
        device,
        profile: match profile {
            ProfileArg::Portable => "portable",
            ProfileArg::Device => "device",
        },
        log,
        checked,
        program,
        args: command,
    })
}
