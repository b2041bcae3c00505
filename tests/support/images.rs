//! Helpers shared by the image tests (tests/images.rs, images_gather.rs, images_mip.rs,
//! images_cube3d.rs): scratch folders, the CLI with the suite's executed-encoding log name
//! (`crate::SUITE`), captures, `--backend both` runs, a small generator, hand-assembled code files, and
//! the few reference steps every suite's reference takes alike (D187's floor and address modes, D191's
//! gradient LOD), written from the decision records and sharing no code with crates/ir or crates/eval.
//! Each suite's filtering reference stays its own.
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

/// Writes `manifest` to `dir/k.toml` and runs it with `--backend both` into `dir/out` ([`run_both`]);
/// returns the output folder.
pub fn run_manifest(dir: &Path, manifest: &str) -> PathBuf {
    let m = dir.join("k.toml");
    std::fs::write(&m, manifest).unwrap();
    let out = dir.join("out");
    run_both(&m, &out);
    out
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

// ---------------------------------------------------------------------------------------------------------
// Reference steps shared by the suites' references (written from D187 and D191, not from the lowering).

/// D187's floor: the f32 clamped to ±2^24 (NaN → 0), then rounded down; with the clamped value.
pub fn ref_floor(x: f32) -> (i32, f32) {
    if x.is_nan() {
        return (0, x);
    }
    let x = x.clamp(-16_777_216.0, 16_777_216.0);
    (x.floor() as i32, x)
}

/// D187's address modes on an integer index of an axis of `n` texels: (index, inside the image).
/// 0 wrap, 1 mirror, 2 clamp to the last texel, 3 mirror once, 6 border.
pub fn ref_address(i: i32, n: i32, mode: u32) -> (i32, bool) {
    match mode {
        0 => (i.rem_euclid(n), true),
        1 => {
            let m = i.rem_euclid(2 * n);
            (if m >= n { 2 * n - 1 - m } else { m }, true)
        }
        2 => (i.clamp(0, n - 1), true),
        3 => ((if i < 0 { -1 - i } else { i }).min(n - 1), true),
        6 => (i, (0..n).contains(&i)),
        _ => unreachable!(),
    }
}

/// D191's LOD from gradients, in 1/256 before bias and clamps: `floor(128·log2 q)`, q the larger of
/// `(du·W)² + (dv·H)²` per direction in f32 (1-D: `(du·W)²`), saturated to [2^−64, 2^64]. `g`: du/dx,
/// dv/dx, du/dy, dv/dy; `base`: the BASE_LEVEL extent (W, H).
pub fn ref_grad_lod(g: [f32; 4], base: (i32, i32), d2: bool) -> i32 {
    let (w, h) = (base.0 as f32, base.1 as f32);
    let sq = |x: f32, n: f32| {
        let a = x * n;
        a * a
    };
    let (qx, qy) = if d2 {
        (sq(g[0], w) + sq(g[1], h), sq(g[2], w) + sq(g[3], h))
    } else {
        (sq(g[0], w), sq(g[2], w))
    };
    let q = if qy > qx { qy } else { qx };
    let lo = 2f32.powi(-64);
    let q = if q >= lo { q } else { lo };
    let q = q.min(2f32.powi(64));
    (128.0 * (q as f64).log2()).floor() as i32
}
