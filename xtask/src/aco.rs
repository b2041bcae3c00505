//! `cargo xtask aco --fixtures`: regenerates every ACO capture under fixtures/aco/ with the capture code of
//! `rdna2spv capture` (crates/capture; decision D174), from the recipes in
//! `rdna2spv_capture::recipes::FIXTURES`. Captures of your own: `rdna2spv capture` (docs/captures.md).

use anyhow::{bail, Context, Result};
use std::path::PathBuf;

pub fn run(args: &[String]) -> Result<()> {
    if args != ["--fixtures"] {
        bail!("usage: cargo xtask aco --fixtures (to capture a shader of your own: rdna2spv capture SHADER.comp -o DIR; docs/captures.md)");
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/aco");
    for rcp in rdna2spv_capture::recipes::FIXTURES {
        let src = root.join(format!("{}.comp", rcp.name));
        let spirv = rdna2spv_capture::glsl_to_spirv(&src)?;
        rdna2spv_capture::radv::use_null_device(rcp.family)?;
        let req = rcp.request(&root, &root);
        let cap = rdna2spv_capture::capture_spirv(&spirv, &format!("{}.comp", rcp.name), &req)
            .with_context(|| format!("capturing {}", rcp.stem()))?;
        for (f, data) in cap.files() {
            std::fs::write(root.join(&f), data).with_context(|| format!("writing {f}"))?;
        }
        println!("fixtures/aco/{}: {} words", cap.stem, cap.words.len());
    }
    Ok(())
}
