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

/// Four f32 inputs per lane, little-endian, to `path`.
pub fn write_lane_inputs(path: &Path, inputs: &[[f32; 4]]) {
    let bytes: Vec<u8> = inputs
        .iter()
        .flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    std::fs::write(path, bytes).unwrap();
}

/// The manifest of a hand-assembled kernel in `k.bin` over `n` lanes (wave32, workgroups of 32): s[0:1]
/// the input buffer `in` (`in.bin`), s[2:3] the output `o` of `out_bytes`, s6 the workgroup id, then
/// `sgprs` (TOML entries of the `sgpr` list) and `images` (`[[images]]` tables).
pub fn lanes_manifest(n: usize, out_bytes: usize, sgprs: &str, images: &str) -> String {
    format!(
        "code = \"k.bin\"\ngrid = [{n}, 1, 1]\nworkgroup = [32, 1, 1]\n[abi]\nwave_size = 32\nsgpr = [\n    \
         {{ reg = 0, address = \"in\" }},\n    {{ reg = 2, address = \"o\" }},\n    \
         {{ reg = 6, workgroup_id = 0 }},\n{sgprs}]\n[[buffers]]\nname = \"in\"\nfile = \"in.bin\"\n\
         [[buffers]]\nname = \"o\"\nsize = {out_bytes}\noutput = true\n{images}"
    )
}

/// A per-lane frame around two image instructions (llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding
/// of each line): four dwords of inputs from s[0:1] + 16·lane into v[2:5]; the body's results in
/// v[10:13] and v[14:17] stored to s[2:3] + 32·lane.
const FRAME_HEAD: &[(&str, &[u32])] = &[
    ("s_lshl_b32 s7, s6, 5", &[0x8f078506]),
    ("v_add_nc_u32_e32 v0, s7, v0", &[0x4a000007]),
    ("v_lshlrev_b32_e32 v1, 4, v0", &[0x34020084]),
    (
        "global_load_dwordx4 v[2:5], v1, s[0:1]",
        &[0xdc388000, 0x02000001],
    ),
    ("v_lshlrev_b32_e32 v20, 5, v0", &[0x34280085]),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
];
const FRAME_TAIL: &[(&str, &[u32])] = &[
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "global_store_dwordx4 v20, v[10:13], s[2:3]",
        &[0xdc788000, 0x00020a14],
    ),
    (
        "global_store_dwordx4 v20, v[14:17], s[2:3] offset:16",
        &[0xdc788010, 0x00020e14],
    ),
    ("s_endpgm", &[0xbf810000]),
];

/// `body` (writing v[10:17] from the inputs in v[2:5]) inside the frame above, to `path`.
pub fn write_framed_code(path: &Path, body: &[(&str, &[u32])]) {
    let code: Vec<(&str, &[u32])> = FRAME_HEAD
        .iter()
        .chain(body)
        .chain(FRAME_TAIL)
        .copied()
        .collect();
    write_code(path, &code);
}
