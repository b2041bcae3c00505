//! Helpers shared by the image tests (tests/images.rs, tests/images_gather.rs): scratch folders, the CLI
//! with the suite's executed-encoding log name (`crate::SUITE`), captures, `--backend both` runs, a small
//! generator and hand-assembled code files. No reference arithmetic lives here: each suite writes its own
//! from the decision records.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(name: &str) -> PathBuf {
    root().join("fixtures/images").join(name)
}

/// A fresh folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "rdna2spv-{}-{}-{name}",
        crate::SUITE,
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the CLI, naming the calling test for the executed-encoding log (`RDNA2SPV_COVERAGE_TEST`, D159).
pub fn rdna2spv<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    let test = std::thread::current()
        .name()
        .unwrap_or("main")
        .rsplit("::")
        .next()
        .unwrap_or("main")
        .to_string();
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(args)
        .env("RDNA2SPV_VK_TIMEOUT_S", "600")
        .env(
            "RDNA2SPV_COVERAGE_TEST",
            format!("{}::{test}", crate::SUITE),
        )
        .output()
        .unwrap()
}

pub fn ok(o: &Output, what: &str) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.status.success(),
        "{what}: exit {:?}\n{text}",
        o.status.code()
    );
    text
}

pub fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn halves(b: &[u8]) -> Vec<u16> {
    b.chunks_exact(2)
        .map(|c| u16::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `rdna2spv capture SHADER ARGS -o DIR`; returns the manifest's path.
pub fn capture(shader: &str, wave: u32, args: &[String], dir: &Path) -> PathBuf {
    let mut a: Vec<String> = vec![
        "capture".into(),
        fixture(shader).display().to_string(),
        "--wave".into(),
        wave.to_string(),
    ];
    a.extend(args.iter().cloned());
    a.extend(["-o".to_string(), dir.display().to_string()]);
    ok(&rdna2spv(&a), &format!("capture {shader}"));
    let stem = shader.trim_end_matches(".comp");
    dir.join(format!("{stem}.navi21.w{wave}.toml"))
}

/// `rdna2spv run M --backend both --out OUT`: host and lavapipe agree bit for bit.
pub fn run_both(manifest: &Path, out: &Path) {
    run_both_mapped(manifest, out, "auto");
}

/// The same with the lowering's mapping chosen (`auto`: the lane mapping where it accepts the kernel).
pub fn run_both_mapped(manifest: &Path, out: &Path, mapping: &str) {
    let o = rdna2spv(&[
        "run".as_ref(),
        manifest.as_os_str(),
        "--backend".as_ref(),
        "both".as_ref(),
        "--mapping".as_ref(),
        mapping.as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let text = ok(&o, &manifest.display().to_string());
    assert!(text.contains("host and device agree bit for bit"), "{text}");
}

/// A small deterministic generator (64-bit LCG, high bits).
pub struct Lcg(pub u64);
impl Lcg {
    pub fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

pub fn write_code(path: &Path, code: &[(&str, &[u32])]) {
    let bytes: Vec<u8> = code
        .iter()
        .flat_map(|(_, w)| w.iter())
        .flat_map(|w| w.to_le_bytes())
        .collect();
    std::fs::write(path, bytes).unwrap();
}
