//! `cargo xtask aco --fixtures`: regenerates every ACO capture under fixtures/aco/ with the capture code of
//! `rdna2spv capture` (crates/capture; decision D174), from the recipes in
//! `rdna2spv_capture::recipes::FIXTURES`. Captures of your own: `rdna2spv capture` (docs/captures.md).
//!
//! It also remakes fixtures/radv-log/app.log (decision D175), the `RADV_DEBUG=shaders,shaderstats` log of a
//! small ash program — this xtask, re-run as a child with that variable set — that creates compute
//! pipelines for fixtures/aco/muladd.comp (wave32) and shuffle_rel.comp (wave64) on RADV's null device, as
//! an application would; `rdna2spv capture --from-radv-log` reads it in tests/capture.rs.

use anyhow::{bail, Context, Result};
use std::path::PathBuf;

/// The shaders of fixtures/radv-log/app.log: (source in fixtures/aco, wave size).
pub const LOG_SHADERS: &[(&str, u32)] = &[("muladd.comp", 32), ("shuffle_rel.comp", 64)];

pub fn run(args: &[String]) -> Result<()> {
    if let [flag, src, wave] = args {
        if flag == "--log-child" {
            // Inside the child: RADV_DEBUG is set; RADV prints the shaders on stderr.
            let r = PathBuf::from(src);
            let spirv = rdna2spv_capture::glsl_to_spirv(&r)?;
            rdna2spv_capture::radv::use_null_device("navi21")?;
            let refl = rdna2spv_capture::reflect::reflect(&spirv, None)?;
            rdna2spv_capture::radv::compile(&spirv, &refl, wave.parse()?)?;
            return Ok(());
        }
    }
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
    let mut log = Vec::new();
    for (src, wave) in LOG_SHADERS {
        let out = std::process::Command::new(std::env::current_exe()?)
            .args(["aco", "--log-child"])
            .arg(root.join(src))
            .arg(wave.to_string())
            .env("RADV_DEBUG", "shaders,shaderstats")
            .output()?;
        if !out.status.success() {
            bail!(
                "the RADV_DEBUG=shaders run of {src} failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        log.extend_from_slice(&out.stderr);
    }
    let dir = root.join("../radv-log");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("app.log"), &log)?;
    println!("fixtures/radv-log/app.log: {} bytes", log.len());
    Ok(())
}
