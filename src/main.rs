//! The `rdna2spv` command line. Exit codes: 0 success; 1 a comparison or check failed; 2 bad input or usage
//! (a clear message on stderr, never a partial output file).

mod cmd;

use anyhow::Result;

/// mimalloc for this binary's Rust allocations (D290: the lane lowering of rocPRIM's largest sort spent a
/// quarter of its time in glibc's malloc and free; ×0.72 wall). Mesa and LLVM keep the C library's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "rdna2spv",
    version,
    about = "Translate AMD RDNA 2 (gfx10.3) machine code to SPIR-V and evaluate it exactly on the host",
    long_about = "rdna2spv reads HSA code objects (clang/hipcc for gfx1030), clang offload bundles and raw \
instruction words. It disassembles them exactly as llvm-objdump-19 does, lifts them to an IR of exact \
primitives, translates that IR to a SPIR-V compute module any Vulkan 1.3 device runs, and runs the same IR on a \
host evaluator that computes the ISA's semantics bit for bit, so the device can be checked against the host.\n\n\
Examples:\n  rdna2spv info fixtures/kernels/saxpy.co\n  rdna2spv disasm fixtures/kernels/saxpy.co\n  \
rdna2spv disasm --raw words.bin --target gfx1010\n  rdna2spv lift fixtures/kernels/saxpy.co\n  \
rdna2spv translate fixtures/kernels/saxpy.co --kernel saxpy -o saxpy.spv\n  \
rdna2spv run fixtures/run/saxpy.toml --out /tmp/out\n  \
rdna2spv run fixtures/run/saxpy.toml --backend both --out /tmp/out   (device vs host, bit for bit)\n  \
rdna2spv diff fixtures/run/divergent.toml   (first divergent instruction, host vs device)\n  \
rdna2spv exec --backend both -- ./hip_program   (an unmodified hipcc-built program through our HIP runtime)\n\n\
Exit status: 0 success, 1 a comparison failed, 2 bad input or usage."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the kernels of a code object: descriptors (every field), register ABI and arguments.
    Info(cmd::info::Args),
    /// Disassemble, one instruction per line, exactly as `llvm-objdump-19 -d --mcpu=gfx1030` prints it.
    ///
    /// FILE is a code object (ELF) or an offload bundle; with --raw (or without ELF magic) it is taken as
    /// little-endian instruction words from byte 0. Undecodable words print a line beginning `<invalid>`.
    Disasm(cmd::disasm::Args),
    /// Print the IR a kernel lifts to.
    Lift(cmd::lift::Args),
    /// Translate a kernel to a SPIR-V compute module for Vulkan 1.3 (one invocation per lane where it can).
    ///
    /// The module is specialised for a workgroup size; buffer addresses and kernel arguments arrive at run
    /// time. `--profile portable` (default) emits every exact emulation; `device` measures the Vulkan device
    /// (RDNA2SPV_VK_DEVICE selects it) and works around only what it gets wrong.
    Translate(cmd::translate::Args),
    /// Run a kernel described by a manifest; write every output buffer to DIR/<name>.bin.
    ///
    /// `--backend both` runs the Vulkan device first, then the host evaluator on the same device addresses,
    /// and compares every output buffer bit for bit (exit 1 at the first difference, which it names).
    Run(cmd::run::Args),
    /// Trace a manifest's dispatch: one JSON Lines record per executed instruction and wave (EXEC, every
    /// register written, memory writes by address), on the host evaluator or the Vulkan device.
    Trace(rdna2spv::trace::TraceArgs),
    /// Capture a compute shader as RADV/ACO compiles it (RADV's null device, no AMD GPU needed; or from a
    /// RADV_DEBUG=shaders log): code words, ACO's listing and a ready-to-run raw manifest (docs/captures.md).
    Capture(rdna2spv::capture::CaptureArgs),
    /// Trace on both backends and report the first divergent record: workgroup, wave, lane, instruction,
    /// host vs device bits and the operands. Exit 0 identical, 1 divergent, 2 bad input.
    Diff(rdna2spv::trace::DiffArgs),
    /// Check the real-world corpus `cargo xtask corpus rocsparse` extracted (docs/corpus.md): every listing
    /// against llvm-objdump-19, every kernel translated and checked with spirv-val; prints a table with the
    /// missing opcodes ranked. Exit 1 when a listing differs or spirv-val rejects a module.
    Corpus(cmd::corpus::Args),
    /// Run an unmodified hipcc-built program with rdna2spv's HIP runtime: its gfx1030 kernels on the host
    /// evaluator or, translated, on a Vulkan device (README "Run a HIP program", decision D156).
    ///
    /// The program's stdout, stderr and exit status pass through. `--backend both` runs every launch on
    /// the device, then on the host evaluator from the same memory at the same addresses, and stops the
    /// program with exit 1 at the first difference (launch number, kernel, address). A call or feature the
    /// runtime does not support stops it with a message naming it and exit 2.
    Exec(cmd::exec::Args),
    /// The seeds' numeric studies reproduced on translated gfx1030 code (docs/numerics.md).
    Probe(cmd::probe::Args),
    /// Compile a SPIR-V module's pipeline without running it (the HIP runtime's `auto` backend, D252).
    #[command(hide = true)]
    WarmPipeline(cmd::warm::Args),
}

fn main() {
    let cli = Cli::parse();
    match run(cli) {
        // Not `std::process::exit`: after a dispatch abandoned in flight the driver's exit-time destructors
        // must not run under its threads (`rdna2spv_vulkan::exit`).
        Ok(code) => rdna2spv_vulkan::exit(code),
        Err(e) => {
            eprintln!("rdna2spv: error: {e:#}");
            rdna2spv_vulkan::exit(2);
        }
    }
}

fn run(cli: Cli) -> Result<i32> {
    match cli.cmd {
        Cmd::Info(a) => cmd::info::run(a),
        Cmd::Disasm(a) => cmd::disasm::run(a),
        Cmd::Lift(a) => cmd::lift::run(a),
        Cmd::Translate(a) => cmd::translate::run(a),
        Cmd::Corpus(a) => cmd::corpus::run(a),
        Cmd::Run(a) => cmd::run::run(a),
        Cmd::Trace(a) => rdna2spv::trace::cli_trace(&a),
        Cmd::Capture(a) => rdna2spv::capture::cli_capture(&a),
        Cmd::Diff(a) => rdna2spv::trace::cli_diff(&a),
        Cmd::Probe(a) => cmd::probe::run(a),
        Cmd::Exec(a) => cmd::exec::run(a),
        Cmd::WarmPipeline(a) => cmd::warm::run(a),
    }
}
