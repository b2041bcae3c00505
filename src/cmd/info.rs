//! `rdna2spv info`: the kernels of a code object.

use super::{emit, load};
use anyhow::Result;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<i32> {
    let Args { file, json } = a;
    let co = load(&file)?;
    if json {
        let mut v = serde_json::to_value(&co)?;
        v["image"] = match &co.image {
            Ok(im) => serde_json::to_value(im)?,
            Err(e) => serde_json::json!({ "error": e.to_string() }),
        };
        emit(&(serde_json::to_string_pretty(&v)? + "\n"))?;
    } else {
        emit(&rdna2spv_codeobj::describe(&co))?;
    }
    Ok(0)
}
