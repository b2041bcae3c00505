//! `rdna2spv capture` (issue 27; decisions D174, D175): GLSL → RADV's null device → code words, ACO's
//! listing and a raw manifest whose `[abi]` is read from the driver's output, then `rdna2spv run --backend
//! both` on that manifest unchanged, in wave32 and wave64; `--from-radv-log` on a log of a real Vulkan
//! program on RADV's null device (fixtures/radv-log/app.log, made by `cargo xtask aco --fixtures`).
//!
//! Expectations: the muladd outputs are computed here from the GLSL's definition (precise a·x then + y:
//! two f32 roundings; fma() and the contractable b·x + y that ACO fuses to v_fmac: one rounding, Rust's
//! `f32::mul_add`); every other fixture is checked by being byte-identical to the committed capture, whose
//! results tests/captures.rs and tests/shared_vgprs.rs check against references written from the GLSL.
//!
//! Needs mesa-vulkan-drivers (RADV) and glslang-tools, as CI installs them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn aco() -> PathBuf {
    root().join("fixtures/aco")
}

/// A fresh folder for one test, removed first if a previous run left it.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rdna2spv-capture-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn rdna2spv<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(args)
        .output()
        .unwrap()
}

fn ok(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: exit {:?}\n{}{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every committed ACO fixture is exactly what `rdna2spv capture` makes of its source with its recipe:
/// words, listing and manifest byte for byte, so no `[abi]` under fixtures/aco/ is hand-written and
/// tests/captures.rs's results (host = lavapipe = the references) are the generated manifests' results.
#[test]
fn capture_remakes_every_aco_fixture_byte_for_byte() {
    let recipes = rdna2spv_capture::recipes::FIXTURES;
    assert_eq!(recipes.len(), 17);
    let out = scratch("fixtures");
    for r in recipes {
        let mut args = vec!["capture".to_string()];
        args.extend(r.cli_args(&aco(), &out));
        let o = rdna2spv(&args);
        ok(&o, &r.stem());
        for ext in ["bin", "toml", "aco.txt"] {
            let f = format!("{}.{ext}", r.stem());
            assert!(
                read(&out.join(&f)) == read(&aco().join(&f)),
                "{f}: the capture differs from the committed fixture"
            );
        }
        for (_, input) in r.inputs {
            assert_eq!(read(&out.join(input)), read(&aco().join(input)), "{input}");
        }
    }
    let m = std::fs::read_to_string(out.join("shuffle.navi21.w64.toml")).unwrap();
    assert!(m.contains("\nvgprs = 8\nshared_vgprs = 16 "), "{m}");
    assert!(m.contains("f32_denormals = \"flush\"          # ACO's float_mode = 0xc0"));
    let m = std::fs::read_to_string(out.join("muladd.navi10.w64.toml")).unwrap();
    assert!(m.contains("target = \"gfx1010\""));
    std::fs::remove_dir_all(&out).unwrap();
}

/// muladd.comp: z[i] = precise(a·x[i] + y[i]); w[2i] = fma(a, x[i], y[i]); w[2i+1] = b·x[i] + y[i] (fused).
fn check_muladd(out: &Path, x: &[u32], y: &[u32], (a, b): (f32, f32)) {
    let z = words(&read(&out.join(if out.join("z.bin").exists() {
        "z.bin"
    } else {
        "Z.bin"
    })));
    let w = words(&read(&out.join(if out.join("w.bin").exists() {
        "w.bin"
    } else {
        "W.bin"
    })));
    assert_eq!((z.len(), w.len()), (256, 512));
    for i in 0..256 {
        let (xf, yf) = (f32::from_bits(x[i]), f32::from_bits(y[i]));
        for v in [
            xf,
            yf,
            a * xf,
            a * xf + yf,
            a.mul_add(xf, yf),
            b.mul_add(xf, yf),
        ] {
            assert!(
                v == 0.0 || v.is_normal(),
                "item {i}: {v:e} would meet RADV's denormal flush"
            );
        }
        assert_eq!(z[i], (a * xf + yf).to_bits(), "z[{i}]");
        assert_eq!(w[2 * i], a.mul_add(xf, yf).to_bits(), "w[{}]", 2 * i);
        assert_eq!(
            w[2 * i + 1],
            b.mul_add(xf, yf).to_bits(),
            "w[{}]",
            2 * i + 1
        );
    }
}

/// GLSL → `rdna2spv capture` → `rdna2spv run --backend both` (host and lavapipe agree bit for bit) → the
/// references, in wave32 and wave64, with only the manifest capture wrote.
#[test]
fn capture_then_run_both_in_wave32_and_wave64() {
    let x = words(&read(&aco().join("muladd.x.in.bin")));
    let y = words(&read(&aco().join("muladd.y.in.bin")));
    for wave in ["32", "64"] {
        let dir = scratch(&format!("run{wave}"));
        let src = aco().join("muladd.comp");
        let xin = format!("x={}", aco().join("muladd.x.in.bin").display());
        let yin = format!("y={}", aco().join("muladd.y.in.bin").display());
        let o = rdna2spv(&[
            "capture",
            src.to_str().unwrap(),
            "--wave",
            wave,
            "--grid",
            "256",
            "--input",
            &xin,
            "--input",
            &yin,
            "--size",
            "w=2048",
            "--push",
            "a=1.5",
            "--push",
            "b=-2.25",
            "-o",
            dir.to_str().unwrap(),
        ]);
        ok(&o, "capture");
        let manifest = dir.join(format!("muladd.navi21.w{wave}.toml"));
        let text = std::fs::read_to_string(&manifest).unwrap();
        assert!(text.contains(&format!("wave_size = {wave}\n")));
        let out = dir.join("out");
        let o = rdna2spv(&[
            "run".as_ref(),
            manifest.as_os_str(),
            "--backend".as_ref(),
            "both".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        ok(&o, "run");
        assert!(String::from_utf8_lossy(&o.stderr).contains("host and device agree bit for bit"));
        check_muladd(&out, &x, &y, (1.5, -2.25));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// The log's four compute shaders (muladd wave32 and shuffle_rel wave64, each compiled twice by the
/// program): shader 0 runs on both backends to the references; shader 2 is the null-device capture's code
/// with the same `[abi]` (registers, VGPRs, shared VGPRs), its buffers named after NIR's block types, and
/// gives the same outputs on the host.
#[test]
fn capture_from_a_radv_log() {
    let log = root().join("fixtures/radv-log/app.log");
    let logs = log.to_str().unwrap();
    let dir = scratch("log");
    let d = dir.to_str().unwrap();

    // Four shaders: the user must choose.
    let o = rdna2spv(&["capture", "--from-radv-log", logs, "-o", d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("choose one with --shader 0..3"));
    assert!(!dir.exists());

    // Shader 0: muladd, wave32 (its code shows no lane mask, so the user says so).
    let o = rdna2spv(&["capture", "--from-radv-log", logs, "--shader", "0", "-o", d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give --wave 32 or 64"));
    let xin = format!("X={}", aco().join("muladd.x.in.bin").display());
    let yin = format!("Y={}", aco().join("muladd.y.in.bin").display());
    let o = rdna2spv(&[
        "capture",
        "--from-radv-log",
        logs,
        "--shader",
        "0",
        "--wave",
        "32",
        "--grid",
        "256",
        "--input",
        &xin,
        "--input",
        &yin,
        "--size",
        "W=2048",
        "--push",
        "pc0=1.5",
        "--push",
        "pc1=-2.25",
        "--name",
        "muladd",
        "-o",
        d,
    ]);
    ok(&o, "capture shader 0");
    assert_eq!(
        read(&dir.join("muladd.navi21.w32.bin")),
        read(&aco().join("muladd.navi21.w32.bin"))
    );
    let manifest = dir.join("muladd.navi21.w32.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(
        text.contains("\nvgprs = 16\n"),
        "the statistic that follows shader 0:\n{text}"
    );
    let out = dir.join("out0");
    let o = rdna2spv(&[
        "run".as_ref(),
        manifest.as_os_str(),
        "--backend".as_ref(),
        "both".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    ok(&o, "run shader 0");
    let x = words(&read(&aco().join("muladd.x.in.bin")));
    let y = words(&read(&aco().join("muladd.y.in.bin")));
    check_muladd(&out, &x, &y, (1.5, -2.25));

    // Shader 2: shuffle_rel, wave64 (read off the code), shared VGPRs read off the code.
    let xin = format!("X={}", aco().join("shuffle.x.in.bin").display());
    let o = rdna2spv(&[
        "capture",
        "--from-radv-log",
        logs,
        "--shader",
        "2",
        "--grid",
        "256",
        "--input",
        &xin,
        "--push",
        "pc0=37",
        "--name",
        "shuffle_rel",
        "-o",
        d,
    ]);
    ok(&o, "capture shader 2");
    let stem = "shuffle_rel.navi21.w64";
    assert_eq!(
        read(&dir.join(format!("{stem}.bin"))),
        read(&aco().join(format!("{stem}.bin")))
    );
    let abi = |p: &Path| -> toml::Value {
        let t = std::fs::read_to_string(p).unwrap().to_lowercase();
        let mut v: toml::Value = toml::from_str(&t).unwrap();
        let a = v.get_mut("abi").unwrap().as_table_mut().unwrap();
        a.remove("f32_denormals"); // the log: RADV's default; the null device: ACO's float_mode (both flush)
        v
    };
    let (from_log, from_device) = (
        abi(&dir.join(format!("{stem}.toml"))),
        abi(&aco().join(format!("{stem}.toml"))),
    );
    assert_eq!(from_log.get("abi"), from_device.get("abi"));
    assert_eq!(from_log.get("buffers"), from_device.get("buffers"));
    for (m, o) in [
        (dir.join(format!("{stem}.toml")), dir.join("out2")),
        (aco().join(format!("{stem}.toml")), dir.join("out_fixture")),
    ] {
        let r = rdna2spv(&[
            "run".as_ref(),
            m.as_os_str(),
            "--backend".as_ref(),
            "host".as_ref(),
            "--out".as_ref(),
            o.as_os_str(),
        ]);
        ok(&r, "run shuffle_rel on the host");
    }
    for (a, b) in [("R", "r"), ("S", "s"), ("T", "t")] {
        assert_eq!(
            read(&dir.join("out2").join(format!("{a}.bin"))),
            read(&dir.join("out_fixture").join(format!("{b}.bin"))),
            "{a}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Bad input: exit 2 with a message, and nothing written.
#[test]
fn capture_refusals_exit_2_and_write_nothing() {
    let dir = scratch("refusals");
    let d = dir.to_str().unwrap();
    let muladd = aco().join("muladd.comp");
    let m = muladd.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![m, "--family", "navi99"], "must be navi21"),
        (vec![m, "--wave", "16"], "must be 32 or 64"),
        (
            vec![m, "--push", "nosuch=1"],
            "no push constant of that name (it reads: a, b)",
        ),
        (vec![m, "--push", "a=one"], "not an f32"),
        (vec![m, "--size", "q=4"], "no buffer named \"q\""),
        (vec![m, "--grid", "100"], "multiple of the workgroup size"),
        (
            vec![m, "--entry", "other"],
            "no compute entry point \"other\"",
        ),
        (vec!["/nonexistent.comp"], "no such file"),
        (vec![], "give a shader"),
    ];
    for (args, msg) in cases {
        let mut a = vec!["capture"];
        a.extend(&args);
        a.extend(["-o", d]);
        let o = rdna2spv(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(!dir.exists(), "{args:?} wrote into the output folder");
    }

    // Not SPIR-V; a shader sampling a multisampled image (storage images and 1-D, 2-D, 3-D, cube and array
    // combined image samplers are captured: tests/images.rs, tests/images_cube3d.rs); no glslangValidator.
    let junk =
        std::env::temp_dir().join(format!("rdna2spv-capture-{}-junk.spv", std::process::id()));
    std::fs::write(&junk, b"not spir-v at all").unwrap();
    let img =
        std::env::temp_dir().join(format!("rdna2spv-capture-{}-img.comp", std::process::id()));
    std::fs::write(
        &img,
        "#version 450\nlayout(local_size_x = 8) in;\nlayout(set = 0, binding = 0) uniform sampler2DMS im;\n\
         layout(set = 0, binding = 1) buffer B { vec4 b[]; };\n\
         void main() { b[0] = texelFetch(im, ivec2(0), 0); }\n",
    )
    .unwrap();
    for (file, path, msg) in [
        (&junk, None, "not a SPIR-V binary"),
        (
            &img,
            None,
            "sampling is modelled for 1-D, 2-D, 3-D, cube and array images only",
        ),
        (&muladd, Some(""), "apt-get install glslang-tools"),
    ] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_rdna2spv"));
        c.args([
            "capture".as_ref(),
            file.as_os_str(),
            "-o".as_ref(),
            dir.as_os_str(),
        ]);
        if let Some(p) = path {
            c.env("PATH", p);
        }
        let o = c.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", file.display());
        assert!(err.contains(msg), "{}: {err}", file.display());
        assert!(!dir.exists());
    }
    let _ = std::fs::remove_file(&junk);
    let _ = std::fs::remove_file(&img);
}

/// RADV's argument order beyond the fixtures: two descriptor sets (set 0 holding only binding 1, set 1 a
/// uniform block and a storage buffer), push-constant dwords 1 and 2 only (dword 0 unused), workgroup ids x
/// and y, a 2-D workgroup. The capture runs on the host to o[i] = v[i]·scale + b + (c + workgroup y), all
/// values exact in f32 (so fused or not gives the same bits).
#[test]
fn capture_two_sets_a_uniform_block_and_inner_push_dwords() {
    let dir = scratch("twosets");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("two.comp");
    std::fs::write(
        &src,
        "#version 450\nlayout(local_size_x = 8, local_size_y = 4) in;\n\
         layout(set = 0, binding = 1) readonly buffer In { float v[]; } inp;\n\
         layout(set = 1, binding = 0) uniform U { float scale; uint stride; } u;\n\
         layout(set = 1, binding = 2) writeonly buffer Out { float o[]; };\n\
         layout(push_constant) uniform PC { float unused; float b; uint c; } pc;\n\
         void main() {\n    uint i = gl_GlobalInvocationID.y * u.stride + gl_GlobalInvocationID.x;\n\
         \x20   o[i] = inp.v[i] * u.scale + pc.b + float(pc.c + gl_WorkGroupID.y);\n}\n",
    )
    .unwrap();
    let cap = dir.join("cap");
    let u = dir.join("u.bin");
    std::fs::write(&u, [2.0f32.to_le_bytes(), 16u32.to_le_bytes()].concat()).unwrap();
    let uin = format!("u={}", u.display());
    let o = rdna2spv(&[
        "capture",
        src.to_str().unwrap(),
        "--wave",
        "32",
        "--grid",
        "16,8",
        "--push",
        "b=0.5",
        "--push",
        "c=3",
        "--input",
        &uin,
        "-o",
        cap.to_str().unwrap(),
    ]);
    ok(&o, "capture");
    let m = std::fs::read_to_string(cap.join("two.navi21.w32.toml")).unwrap();
    for want in [
        "{ reg = 2, descriptor_set = [\"inp\"] }",
        "{ reg = 3, descriptor_set = [\"u\", \"o\"] }",
        "{ reg = 4, f32 = 0.5 },   # push constant b (offset 4)",
        "{ reg = 5, u32 = 3 },   # push constant c (offset 8)",
        "{ reg = 6, workgroup_id = 0 }",
        "{ reg = 7, workgroup_id = 1 }",
        "{ reg = 8, scratch_wave_offset = true }",
        "workgroup = [8, 4, 1]",
    ] {
        assert!(m.contains(want), "{want} not in\n{m}");
    }
    let out = dir.join("out");
    let manifest = cap.join("two.navi21.w32.toml");
    let r = rdna2spv(&[
        "run".as_ref(),
        manifest.as_os_str(),
        "--backend".as_ref(),
        "host".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    ok(&r, "run");
    let v = words(&read(&cap.join("two.inp.in.bin")));
    let o = words(&read(&out.join("o.bin")));
    assert_eq!((v.len(), o.len()), (128, 128));
    for y in 0..8u32 {
        for x in 0..16u32 {
            let i = (y * 16 + x) as usize;
            let want = f32::from_bits(v[i]) * 2.0 + 0.5 + (3 + y / 4) as f32;
            assert_eq!(o[i], want.to_bits(), "o[{i}]");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
