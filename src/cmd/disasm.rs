//! `rdna2spv disasm`: listings identical to llvm-objdump-19's.

use super::{emit, TargetArg};
use anyhow::{bail, Context, Result};
use rdna2spv::disasm::{lines, Listing};
use rdna2spv::dispatch::target_of;
use rdna2spv_codeobj::CodeObject;
use rdna2spv_isa::Target;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
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
}

pub fn run(a: Args) -> Result<i32> {
    let Args {
        file,
        raw,
        target,
        kernel,
        wave64,
    } = a;
    let bytes = std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
    let is_object =
        !raw && (bytes.starts_with(b"\x7fELF") || bytes.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"));
    let mut out = String::new();
    if is_object {
        let co =
            CodeObject::parse_any(&bytes).with_context(|| format!("loading {}", file.display()))?;
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
