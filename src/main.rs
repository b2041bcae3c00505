//! The `rdna2spv` command line. Exit codes: 0 success; 1 a comparison or check failed; 2 bad input or usage
//! (a clear message on stderr, never a partial output file).

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use rdna2spv::disasm::{lines, Listing};
use rdna2spv::dispatch::{run_host, target_of, Plan};
use rdna2spv::manifest::Manifest;
use rdna2spv_codeobj::CodeObject;
use rdna2spv_isa::Target;
use std::io::Write as _;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "rdna2spv",
    version,
    about = "Translate AMD RDNA 2 (gfx10.3) machine code to SPIR-V and evaluate it exactly on the host",
    long_about = "rdna2spv reads HSA code objects (clang/hipcc for gfx1030), clang offload bundles and raw \
instruction words. It disassembles them exactly as llvm-objdump-19 does, lifts them to an IR of exact \
primitives, and runs them on a host evaluator that computes the ISA's semantics bit for bit.\n\n\
Examples:\n  rdna2spv info fixtures/kernels/saxpy.co\n  rdna2spv disasm fixtures/kernels/saxpy.co\n  \
rdna2spv disasm --raw words.bin --target gfx1010\n  rdna2spv lift fixtures/kernels/saxpy.co\n  \
rdna2spv run fixtures/run/saxpy/saxpy.toml --out /tmp/out\n\n\
Exit status: 0 success, 1 a comparison failed, 2 bad input or usage."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum)]
enum TargetArg {
    Gfx1030,
    Gfx1010,
    Gfx1013,
}

impl From<TargetArg> for Target {
    fn from(t: TargetArg) -> Target {
        match t {
            TargetArg::Gfx1030 => Target::Gfx1030,
            TargetArg::Gfx1010 => Target::Gfx1010,
            TargetArg::Gfx1013 => Target::Gfx1013,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    Host,
    Vulkan,
    Both,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the kernels of a code object: descriptors (every field), register ABI and arguments.
    Info {
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Disassemble, one instruction per line, exactly as `llvm-objdump-19 -d --mcpu=gfx1030` prints it.
    ///
    /// FILE is a code object (ELF) or an offload bundle; with --raw (or without ELF magic) it is taken as
    /// little-endian instruction words from byte 0. Undecodable words print a line beginning `<invalid>`.
    Disasm {
        file: PathBuf,
        /// Treat FILE as raw little-endian instruction words.
        #[arg(long)]
        raw: bool,
        /// Sub-target: decides a few opcode slots (gfx1010/gfx1013 have the MAD/MAC family).
        #[arg(long, value_enum)]
        target: Option<TargetArg>,
        /// Only this kernel (symbol name).
        #[arg(long)]
        kernel: Option<String>,
        /// Print lane masks as wave64 (vcc, exec) for raw words; code objects take it from the descriptor.
        #[arg(long)]
        wave64: bool,
    },
    /// Print the IR a kernel lifts to.
    Lift {
        file: PathBuf,
        #[arg(long)]
        kernel: Option<String>,
    },
    /// Run a kernel described by a manifest; write every output buffer to DIR/<name>.bin.
    Run {
        manifest: PathBuf,
        #[arg(long, value_enum, default_value = "host")]
        backend: Backend,
        /// Where output buffers go (default: the current directory).
        #[arg(long, default_value = ".")]
        out: PathBuf,
    },
}

fn main() {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("rdna2spv: error: {e:#}");
            std::process::exit(2);
        }
    }
}

fn run(cli: Cli) -> Result<i32> {
    match cli.cmd {
        Cmd::Info { file, json } => {
            let co = load(&file)?;
            if json {
                emit(&(serde_json::to_string_pretty(&co)? + "\n"))?;
            } else {
                emit(&rdna2spv_codeobj::describe(&co))?;
            }
            Ok(0)
        }
        Cmd::Disasm {
            file,
            raw,
            target,
            kernel,
            wave64,
        } => {
            let bytes =
                std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let is_object = !raw
                && (bytes.starts_with(b"\x7fELF")
                    || bytes.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"));
            let mut out = String::new();
            if is_object {
                let co = CodeObject::parse_any(&bytes)
                    .with_context(|| format!("loading {}", file.display()))?;
                let t = target.map(Target::from).unwrap_or_else(|| target_of(&co));
                let name = file
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_default();
                if let Some(k) = &kernel {
                    co.kernel(k)?;
                }
                let elf = rdna2spv::disasm::elf_image(&bytes)?;
                out = rdna2spv::disasm::object_listing(&name, elf, &co, t, kernel.as_deref());
            } else {
                if bytes.is_empty() {
                    bail!("{} is empty", file.display());
                }
                let listing = Listing {
                    code: &bytes,
                    address: 0,
                    symbol: None,
                    target: target.map(Target::from).unwrap_or_default(),
                    wave64,
                };
                for l in lines(&listing) {
                    out += &l;
                    out.push('\n');
                }
            }
            emit(&out)?;
            Ok(0)
        }
        Cmd::Lift { file, kernel } => {
            let co = load(&file)?;
            let k = match &kernel {
                Some(k) => co.kernel(k)?,
                None => co
                    .kernels
                    .first()
                    .context("the code object has no kernels")?,
            };
            let p = rdna2spv_ir::lift::lift(
                &k.name,
                &k.code,
                rdna2spv_ir::lift::LiftOptions {
                    target: target_of(&co),
                    wave_size: k.abi.wave_size,
                },
            )?;
            rdna2spv_ir::verify(&p)?;
            emit(&p.to_string())?;
            Ok(0)
        }
        Cmd::Run {
            manifest,
            backend,
            out,
        } => {
            let m = Manifest::load(&manifest)?;
            let mut plan = Plan::new(&m)?;
            if backend != Backend::Host {
                bail!("the Vulkan backend is not available in this build yet; use --backend host");
            }
            let (buffers, stats) = run_host(&mut plan)?;
            std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
            for b in buffers.iter().filter(|b| b.output.is_some()) {
                write_atomically(
                    &out.join(format!("{}.bin", b.output.as_deref().unwrap())),
                    &b.data,
                )?;
            }
            eprintln!(
                "rdna2spv: {} on host: {} waves, {} instructions, {} lane-instructions",
                plan.kernel.name, stats.waves, stats.instructions, stats.lane_instructions
            );
            Ok(0)
        }
    }
}

/// Writes to stdout; a reader that went away (`| head`) is not an error.
fn emit(s: &str) -> Result<()> {
    match std::io::stdout().lock().write_all(s.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

fn load(file: &Path) -> Result<CodeObject> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    CodeObject::parse_any(&bytes).with_context(|| format!("loading {}", file.display()))
}

/// Writes to a temporary file beside `path`, then renames: never a partial output.
fn write_atomically(path: &Path, data: &[u8]) -> Result<()> {
    let tmp = path.with_extension("bin.partial");
    std::fs::write(&tmp, data).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming {}", tmp.display()))?;
    Ok(())
}
