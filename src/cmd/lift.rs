//! `rdna2spv lift`: the IR a kernel lifts to.

use super::{emit, lifted};
use anyhow::Result;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The code object (ELF) or offload bundle.
    file: PathBuf,
    /// The kernel's symbol name (without `.kd`); may be left out when FILE holds one kernel.
    #[arg(long)]
    kernel: Option<String>,
}

pub fn run(a: Args) -> Result<i32> {
    let (_, p) = lifted(&a.file, a.kernel.as_deref())?;
    rdna2spv_ir::verify(&p)?;
    emit(&p.to_string())?;
    Ok(0)
}
