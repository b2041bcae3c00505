//! One module per subcommand of the `rdna2spv` CLI: each holds the subcommand's arguments (a clap `Args`
//! struct, field order = `--help` order) and its handler `run`, which returns the exit code (0 success,
//! 1 a comparison or check failed; errors become exit 2 in main.rs). `trace`, `capture` and `diff` have
//! their arguments and handlers in the library (src/trace.rs, src/capture.rs). This module holds what
//! several subcommands share: value enums, `--max-module-words`, loading and lifting a kernel, stdout.

pub mod corpus;
pub mod disasm;
pub mod exec;
pub mod info;
pub mod lift;
pub mod probe;
pub mod run;
pub mod translate;
pub mod warm;

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use rdna2spv::device::ProfileChoice;
use rdna2spv_codeobj::CodeObject;
use rdna2spv_isa::Target;
use std::io::Write as _;
use std::path::Path;

#[derive(Clone, Copy, ValueEnum)]
pub enum TargetArg {
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
pub enum Backend {
    Host,
    Vulkan,
    Both,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProfileArg {
    /// Every workaround on: exact on any Vulkan 1.3 device with Float64 and Int64.
    Portable,
    /// Measure the chosen device at start-up and work around only what it gets wrong.
    Device,
}

impl From<ProfileArg> for ProfileChoice {
    fn from(p: ProfileArg) -> Self {
        match p {
            ProfileArg::Portable => ProfileChoice::Portable,
            ProfileArg::Device => ProfileChoice::Device,
        }
    }
}

/// `--mapping`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MappingArg {
    Wave,
    Lane,
    Auto,
}

impl MappingArg {
    pub fn fixed(self) -> Option<rdna2spv_spirv::lower::Mapping> {
        match self {
            MappingArg::Wave => Some(rdna2spv_spirv::lower::Mapping::Wave),
            MappingArg::Lane => Some(rdna2spv_spirv::lower::Mapping::Lane),
            MappingArg::Auto => None,
        }
    }
}

/// `--control-flow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ControlFlowArg {
    Structured,
    Dispatcher,
}

impl From<ControlFlowArg> for rdna2spv_spirv::lower::ControlFlow {
    fn from(c: ControlFlowArg) -> Self {
        match c {
            ControlFlowArg::Structured => Self::Structured,
            ControlFlowArg::Dispatcher => Self::Dispatcher,
        }
    }
}

/// `--max-module-words`: a number of words, or `none` (D164).
#[derive(Clone, Copy)]
pub struct MaxWords(pub Option<usize>);

pub fn parse_max_words(v: &str) -> Result<MaxWords, String> {
    rdna2spv_vulkan::limit::parse_limit(v)
        .map(MaxWords)
        .ok_or_else(|| format!("{v:?} is not a number of words or `none`"))
}

/// Writes to stdout; a reader that went away (`| head`) is not an error.
pub fn emit(s: &str) -> Result<()> {
    match std::io::stdout().lock().write_all(s.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// A kernel of a code object (the named one, else the first) and the IR it lifts to.
pub fn lifted(
    file: &Path,
    kernel: Option<&str>,
) -> Result<(rdna2spv_codeobj::Kernel, rdna2spv_ir::Program)> {
    let co = load(file)?;
    let k = match kernel {
        Some(k) => co.kernel(k)?,
        None => match co.kernels.as_slice() {
            [] => bail!("{}: the code object has no kernels", file.display()),
            [k] => k,
            ks => bail!(
                "{}: the code object holds {} kernels ({}): choose one with --kernel",
                file.display(),
                ks.len(),
                ks.iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    };
    let p = rdna2spv::dispatch::lift_kernel(&co, k)?;
    Ok((k.clone(), p))
}

pub fn load(file: &Path) -> Result<CodeObject> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    CodeObject::parse_any(&bytes).with_context(|| format!("loading {}", file.display()))
}
