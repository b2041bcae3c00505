//! Shared by the lane-mapping tests (lane_masks, lane_loops, lane_split, lane_kload, lane_converged,
//! lane_onepass, ...): write a two-buffer manifest, run a manifest on both backends in the lane mapping,
//! lower a manifest's lane module as the runner does, and count a lane module's static barriers.

#![allow(dead_code)] // each test binary that includes this file uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;

/// The lane module of `manifest` as the runner lowers it ([`rdna2spv::dispatch::Plan::module`]), under
/// the portable profile.
pub fn lane_module(manifest: &Path) -> Vec<u32> {
    let m = rdna2spv::manifest::Manifest::load(manifest).unwrap();
    rdna2spv::dispatch::Plan::new(&m)
        .unwrap()
        .module(
            &rdna2spv_spirv::profile::DeviceProfile::portable(),
            rdna2spv_spirv::lower::Mapping::Lane,
        )
        .unwrap()
}

/// Little-endian words of `b`.
pub(crate) fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Writes `dir/x.bin` (the words `x`), a zero-filled `dir/out.bin` of `out_bytes` bytes per work-item and
/// `dir/<kernel>.toml`: `kernel` of code object `co` over `x.len()` work-items in workgroups of `wg`, its
/// arguments the two buffers (`out.bin` the output `out`). Returns the manifest's path.
pub fn x_out_manifest(
    dir: &Path,
    co: &Path,
    kernel: &str,
    x: &[u32],
    out_bytes: usize,
    wg: usize,
) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let xb: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("x.bin"), xb).unwrap();
    std::fs::write(dir.join("out.bin"), vec![0u8; out_bytes * x.len()]).unwrap();
    let m = dir.join(format!("{kernel}.toml"));
    std::fs::write(
        &m,
        format!(
            "code_object = {:?}\nkernel = \"{kernel}\"\ngrid = [{}, 1, 1]\nworkgroup = [{wg}, 1, 1]\n\n\
             [[args]]\nbuffer = \"x.bin\"\n\n[[args]]\nbuffer = \"out.bin\"\noutput = \"out\"\n",
            co.display().to_string(),
            x.len()
        ),
    )
    .unwrap();
    m
}

/// Runs `manifest` with `run --backend both --mapping lane` (host vs lavapipe bit for bit; fails the test
/// otherwise, naming `what`) and returns the words of `out_dir/out.bin`.
pub fn run_lane_both(manifest: &Path, out_dir: &Path, what: &str) -> Vec<u32> {
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("run")
        .arg(manifest)
        .args(["--backend", "both", "--timeout-ms", "600000"])
        .args(["--mapping", "lane", "--out"])
        .arg(out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(0) && stderr.contains("agree bit for bit"),
        "{what}: exit {:?}\n{stderr}",
        out.status.code()
    );
    words(&std::fs::read(out_dir.join("out.bin")).unwrap())
}

/// Static `OpControlBarrier` count of `kernel`'s lane-mapping module (code object `co`, workgroup 64),
/// written under `dir`.
pub fn lane_barriers(co: &Path, kernel: &str, dir: &Path) -> usize {
    lane_barriers_wg(co, kernel, dir, 64)
}

/// [`lane_barriers`] with a workgroup of `wg` work-items in x.
pub fn lane_barriers_wg(co: &Path, kernel: &str, dir: &Path, wg: usize) -> usize {
    let spv = dir.join(format!("{kernel}-{wg}.spv"));
    let wgs = wg.to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("translate")
        .arg(co)
        .args(["--kernel", kernel, "--workgroup", &wgs, "1", "1"])
        .args(["--mapping", "lane", "-o"])
        .arg(&spv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let w = words(&std::fs::read(&spv).unwrap());
    rdna2spv_spirv::words::count_opcode(&w, 224) // OpControlBarrier
}

/// A xorshift32 generator from `seed` (the tests' inputs: reproducible, no dependency).
pub fn xorshift(mut s: u32) -> impl FnMut() -> u32 {
    move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    }
}
