//! Kernel arguments of any size and alignment, and outputs that stay inside `--out DIR` (issues 25 and 28,
//! decision D152), through the CLI as a user runs it:
//!
//! * a 48-byte struct by value (mixed char/short/int/long/float/double fields, padding) in two real kernels —
//!   clang-19 OpenCL C (`fixtures/kernels/byval_struct.co`) and hipcc 5.2.3 (`byval_struct_hip.co`) — passed
//!   as `bytes = "file"` and as one full-width `bits = "0x…"`, on `--backend both` (host and lavapipe), each
//!   output equal bit for bit to the same source compiled natively (`fixtures/native`, D009);
//! * `bits` shorter than the argument, zero-extended (against the native build run on the zero-extended bytes
//!   the test lays out itself), a u64 ≥ 2^63 through `bits`, typed scalars keeping their exact width;
//! * every malformed form, and metadata whose arguments do not fit: exit 2, a message naming the problem, no
//!   panic, nothing written;
//! * output names that would leave `--out DIR`: exit 2 before anything runs, nothing written anywhere.
//!
//! Needs clang-19 (the native oracle) and a Vulkan 1.3 device (lavapipe); CI installs both.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rdna2spv-kargs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(manifest: &Path, backend: &str, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("run")
        .arg(manifest)
        .args(["--backend", backend, "--out"])
        .arg(out)
        .output()
        .unwrap()
}

#[track_caller]
fn succeeds(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    err
}

/// Exit 2, every `needles` in the message, no panic, and `out` (the run's `--out DIR`) absent or empty.
#[track_caller]
fn refused(out: &Output, needles: &[&str], dir: &Path) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    for n in needles {
        assert!(err.contains(n), "expected {n:?} in: {err}");
    }
    assert!(!err.contains("panicked"), "panic: {err}");
    assert!(
        !dir.exists() || std::fs::read_dir(dir).unwrap().next().is_none(),
        "{} holds files after a refused run",
        dir.display()
    );
}

// ---------------------------------------------------------------------------------------------------------
// The struct, laid out here from byval_struct.h's declaration (natural alignment, as the AMDGPU and x86-64
// SysV ABIs both place it) — independent of the manifest parser and of the committed file.

struct Params {
    c: i8,
    d: f64,
    s: i16,
    f: f32,
    l: i64,
    n: i32,
    u: u8,
    g: f32,
}

/// The struct's 48 bytes with every padding byte `pad`.
fn layout(p: &Params, pad: u8) -> Vec<u8> {
    let mut b = vec![pad; 48];
    b[0] = p.c as u8;
    b[8..16].copy_from_slice(&p.d.to_le_bytes());
    b[16..18].copy_from_slice(&p.s.to_le_bytes());
    b[20..24].copy_from_slice(&p.f.to_le_bytes());
    b[24..32].copy_from_slice(&p.l.to_le_bytes());
    b[32..36].copy_from_slice(&p.n.to_le_bytes());
    b[36] = p.u;
    b[40..44].copy_from_slice(&p.g.to_le_bytes());
    b
}

/// The values of fixtures/args/byval_struct.bin (padding 0xee); `f` is not π, just a float with a full
/// mantissa.
#[allow(clippy::approx_constant)]
const FIXTURE: Params = Params {
    c: -7,
    d: -2.75e-3,
    s: -12345,
    f: 3.14159,
    l: 0x8123_4567_89ab_cdef_u64 as i64,
    n: 0x0123_4567,
    u: 200,
    g: -0.0078125,
};

/// A `bits` value written by hand from little-endian bytes: the last byte first, two hex digits each.
fn hex_of(bytes: &[u8]) -> String {
    let mut s = String::from("0x");
    for b in bytes.iter().rev() {
        s += &format!("{b:02x}");
    }
    s
}

/// The bytes a `bits` string stands for, decoded here by hand (not by the parser under test): the digits
/// read as one number, least significant byte first.
fn bytes_of_hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text[2..]
        .chars()
        .filter(|&c| c != '_')
        .map(|c| c.to_digit(16).unwrap() as u8)
        .collect();
    let mut out = Vec::new();
    let mut k = digits.len();
    while k > 0 {
        let lo = digits[k - 1];
        let hi = if k >= 2 { digits[k - 2] } else { 0 };
        out.push(hi << 4 | lo);
        k = k.saturating_sub(2);
    }
    out
}

/// The native build of byval_struct.cl (fixtures/native/run.c with the struct passed as `bytes:`).
fn native_exe(dir: &Path) -> PathBuf {
    let native = root().join("fixtures/native");
    let exe = dir.join("byval_native");
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang-19".into());
    let build = Command::new(&clang)
        .args([
            "-x",
            "c",
            "-std=c11",
            "-O2",
            "-ffp-contract=off",
            "-fno-math-errno",
            "-Wall",
            "-Wno-unknown-pragmas",
            "-Wno-unused-function",
            "-include",
        ])
        .arg(native.join("host.h"))
        .arg(format!(
            "-DKERNEL_SOURCE=\"{}\"",
            root().join("fixtures/kernels/byval_struct.cl").display()
        ))
        .arg("-DKERNEL_CALL=byval_struct(ARG_PTR(0), ARG_BYVAL(1, byval_params), ARG_PTR(2), ARG_PTR(3))")
        .arg(native.join("run.c"))
        .arg("-o")
        .arg(&exe)
        .args(["-lm", "-lpthread"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {clang} ({e}): the native oracle needs clang-19"));
    assert!(
        build.status.success(),
        "building the native harness failed:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    exe
}

/// The native outputs d, l and f for the struct bytes `params` over the manifests' grid (128 in 64s).
fn native_outputs(exe: &Path, params: &[u8], dir: &Path) -> [Vec<u8>; 3] {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("params.bin");
    std::fs::write(&file, params).unwrap();
    let out = Command::new(exe)
        .args(["128", "1", "1", "64", "1", "1"])
        .arg(dir)
        .arg("zero:d:1024")
        .arg(format!("bytes:{}", file.display()))
        .args(["zero:l:1024", "zero:f:512"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "native run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    ["d", "l", "f"].map(|o| std::fs::read(dir.join(format!("{o}.bin"))).unwrap())
}

#[track_caller]
fn same_outputs(what: &str, out: &Path, expected: &[Vec<u8>; 3]) {
    for (name, want) in ["d", "l", "f"].iter().zip(expected) {
        let got = std::fs::read(out.join(format!("{name}.bin")))
            .unwrap_or_else(|e| panic!("{what}: {name}.bin: {e}"));
        assert_eq!(got.len(), want.len(), "{what}: {name}.bin size");
        if let Some(k) = (0..got.len()).find(|&k| got[k] != want[k]) {
            panic!(
                "{what}: {name}.bin differs from the native build first at byte {k}: {:#04x} vs {:#04x}",
                got[k], want[k]
            );
        }
    }
}

/// A manifest for one of the struct code objects with the struct argument written as `arg` (a TOML line).
fn struct_manifest(dir: &Path, co: &str, arg: &str, outputs: [&str; 3]) -> PathBuf {
    let text = format!(
        "code_object = {co:?}\nkernel = \"byval_struct\"\ngrid = [128, 1, 1]\nworkgroup = [64, 1, 1]\n\
         [[args]]\nbuffer = {{ size = 1024 }}\noutput = {:?}\n[[args]]\n{arg}\n\
         [[args]]\nbuffer = {{ size = 1024 }}\noutput = {:?}\n[[args]]\nbuffer = {{ size = 512 }}\noutput = {:?}\n",
        outputs[0], outputs[1], outputs[2]
    );
    let p = dir.join("m.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn co_path(name: &str) -> String {
    root()
        .join("fixtures/kernels")
        .join(name)
        .display()
        .to_string()
}

/// The committed struct file and both manifests' `bits` are the layout of [`FIXTURE`].
#[test]
fn fixture_struct_bytes_are_the_declared_layout() {
    let want = layout(&FIXTURE, 0xee);
    let dir = root().join("fixtures/args");
    assert_eq!(std::fs::read(dir.join("byval_struct.bin")).unwrap(), want);
    for m in ["byval_struct_bits.toml", "byval_struct_hip_bits.toml"] {
        let text = std::fs::read_to_string(dir.join(m)).unwrap();
        let line = text.lines().find(|l| l.starts_with("bits = ")).unwrap();
        let hex = line.trim_start_matches("bits = ").trim_matches('"');
        assert_eq!(bytes_of_hex(hex), want, "{m}");
    }
}

/// The two struct kernels, struct as a file and as one 48-byte `bits`, on host and lavapipe, against the
/// native build of the same source.
#[test]
fn struct_by_value_matches_native_on_both_backends() {
    let tmp = scratch("struct");
    let exe = native_exe(&tmp);
    let expected = native_outputs(&exe, &layout(&FIXTURE, 0xee), &tmp.join("native"));
    // The oracle sees every field: d, l and f vary with the work-item and are not all zero.
    assert!(expected.iter().all(|o| o.iter().any(|&b| b != 0)));
    for m in [
        "byval_struct_bytes",
        "byval_struct_bits",
        "byval_struct_hip_bytes",
        "byval_struct_hip_bits",
    ] {
        let out = tmp.join(m);
        let r = run(
            &root().join("fixtures/args").join(format!("{m}.toml")),
            "both",
            &out,
        );
        let err = succeeds(&r);
        assert!(
            err.contains("host and device agree bit for bit"),
            "{m}: {err}"
        );
        same_outputs(m, &out, &expected);
    }
}

/// `bits` shorter than the struct: zero-extended, least significant byte at offset 0. The native build runs
/// on the bytes this test lays out (the given bytes, then zeros up to 48).
#[test]
fn short_bits_are_zero_extended_little_endian() {
    let tmp = scratch("short");
    let exe = native_exe(&tmp);
    let full = layout(&FIXTURE, 0x5a);
    for (k, given) in [1usize, 17, 30, 47].into_iter().enumerate() {
        let mut params = full[..given].to_vec();
        params.resize(48, 0);
        let expected = native_outputs(&exe, &params, &tmp.join(format!("native{k}")));
        let hex = hex_of(&full[..given]);
        for co in ["byval_struct.co", "byval_struct_hip.co"] {
            let d = tmp.join(format!("{co}-{given}"));
            std::fs::create_dir_all(&d).unwrap();
            let m = struct_manifest(
                &d,
                &co_path(co),
                &format!("bits = {hex:?}"),
                ["d", "l", "f"],
            );
            let out = d.join("out");
            succeeds(&run(&m, "host", &out));
            same_outputs(&format!("{co} with {given}-byte bits"), &out, &expected);
        }
    }
}

/// A u64 ≥ 2^63 needs `bits` (TOML integers are i64); a short `bits` is zero-extended; the typed forms keep
/// their exact width. On hipcc's dfma (an 8-byte double argument).
#[test]
fn eight_byte_argument_through_bits() {
    let tmp = scratch("dfma");
    let base = std::fs::read_to_string(root().join("fixtures/hip/dfma.toml")).unwrap();
    let base = base
        .replace(
            "\"dfma.",
            &format!("\"{}/fixtures/hip/dfma.", root().display()),
        )
        .replace("f64 = 1.5", "ARG");
    let go = |name: &str, arg: &str| {
        let d = tmp.join(name);
        std::fs::create_dir_all(&d).unwrap();
        let m = d.join("m.toml");
        std::fs::write(&m, base.replace("ARG", arg)).unwrap();
        let out = d.join("out");
        let r = run(&m, "host", &out);
        (r, out)
    };
    let read = |out: &Path| std::fs::read(out.join("r.bin")).unwrap();
    // -1.5 is 0xbff8000000000000 ≥ 2^63 as a u64.
    let (r, typed) = go("f64", "f64 = -1.5");
    succeeds(&r);
    let (r, bits) = go("bits", "bits = \"0xbff8_0000_0000_0000\"");
    succeeds(&r);
    assert_eq!(read(&bits), read(&typed), "bits 0xbff8… is not f64 -1.5");
    // Two bytes, zero-extended: the double whose bit pattern is 0x3ff8 (a denormal), as a typed u64 gives it.
    let (r, typed) = go("u64", "u64 = 0x3ff8");
    succeeds(&r);
    let (r, bits) = go("short", "bits = \"0x3ff8\"");
    succeeds(&r);
    assert_eq!(
        read(&bits),
        read(&typed),
        "bits 0x3ff8 is not zero-extended"
    );
    assert_ne!(read(&bits), read(&go("neg", "f64 = -1.5").1));
    // What TOML cannot hold, and typed widths.
    let (r, out) = go("big", "u64 = 9223372036854775808");
    refused(&r, &["parsing manifest"], &out);
    let (r, out) = go("u32", "u32 = 1");
    refused(&r, &["argument 3", "4-byte u32", "takes 8 bytes"], &out);
    let (r, out) = go("wide", "bits = \"0x1_0000_0000_0000_0000\"");
    refused(&r, &["argument 3", "9-byte value", "8 bytes"], &out);
}

/// Every malformed struct argument: exit 2 with a message, nothing written.
#[test]
fn malformed_arguments_are_refused() {
    let tmp = scratch("bad");
    std::fs::write(tmp.join("short.bin"), [0u8; 47]).unwrap();
    std::fs::write(tmp.join("long.bin"), [0u8; 49]).unwrap();
    std::fs::write(tmp.join("ok.bin"), [0u8; 48]).unwrap();
    let wide = hex_of(&[1u8; 49]);
    let cases: Vec<(String, Vec<&str>)> = vec![
        (
            format!("bits = {wide:?}"),
            vec!["argument 1", "49-byte value", "48 bytes"],
        ),
        (
            "bits = \"0xzz\"".into(),
            vec!["argument 1", "'z' is not a hex digit"],
        ),
        (
            "bits = \"\"".into(),
            vec!["argument 1", "must start with 0x"],
        ),
        (
            "bits = \"12\"".into(),
            vec!["argument 1", "must start with 0x"],
        ),
        ("bits = \"0x\"".into(), vec!["argument 1", "no hex digits"]),
        (
            "bits = \"0x_\"".into(),
            vec!["argument 1", "not a hex digit"],
        ),
        (
            "bits = \"0x-1\"".into(),
            vec!["argument 1", "not a hex digit"],
        ),
        ("bits = 5".into(), vec!["parsing manifest", "bits"]),
        (
            "bytes = \"short.bin\"".into(),
            vec!["argument 1", "gives 47 bytes", "takes 48 bytes"],
        ),
        (
            "bytes = \"long.bin\"".into(),
            vec!["argument 1", "gives 49 bytes", "takes 48 bytes"],
        ),
        (
            "bytes = \"missing.bin\"".into(),
            vec!["argument 1", "missing.bin"],
        ),
        (
            "bytes = \"ok.bin\"\nbits = \"0x1\"".into(),
            vec!["argument 1", "exactly one of"],
        ),
        (
            "u64 = 5".into(),
            vec!["argument 1", "8-byte u64", "48 bytes"],
        ),
        (
            "f32 = 1.0".into(),
            vec!["argument 1", "4-byte f32", "48 bytes"],
        ),
        (
            "buffer = \"ok.bin\"".into(),
            vec!["argument 1 is a by_value in the kernel but a buffer"],
        ),
        (
            "bits = \"0x1\"\noutput = \"x\"".into(),
            vec!["argument 1", "only allowed on buffers"],
        ),
        (String::new(), vec!["argument 1", "exactly one of"]),
    ];
    for (k, (arg, needles)) in cases.iter().enumerate() {
        let d = tmp.join(format!("case{k}"));
        std::fs::create_dir_all(&d).unwrap();
        for f in ["short.bin", "long.bin", "ok.bin"] {
            std::fs::copy(tmp.join(f), d.join(f)).unwrap();
        }
        let m = struct_manifest(&d, &co_path("byval_struct.co"), arg, ["d", "l", "f"]);
        let out = d.join("out");
        refused(&run(&m, "host", &out), needles, &out);
    }
    // `bits` and `bytes` on a pointer argument (argument 0 is `global double *`).
    for (k, arg) in ["bits = \"0x1\"", "bytes = \"ok.bin\""].iter().enumerate() {
        let d = tmp.join(format!("ptr{k}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(tmp.join("ok.bin"), d.join("ok.bin")).unwrap();
        let text = format!(
            "code_object = {:?}\nkernel = \"byval_struct\"\ngrid = [128, 1, 1]\nworkgroup = [64, 1, 1]\n\
             [[args]]\n{arg}\n[[args]]\nbytes = \"ok.bin\"\n[[args]]\nbuffer = {{ size = 1024 }}\noutput = \"l\"\n\
             [[args]]\nbuffer = {{ size = 512 }}\noutput = \"f\"\n",
            co_path("byval_struct.co")
        );
        let m = d.join("m.toml");
        std::fs::write(&m, text).unwrap();
        let out = d.join("out");
        let kind = if k == 0 { "`bits`" } else { "`bytes`" };
        refused(
            &run(&m, "host", &out),
            &["argument 0 is a global_buffer in the kernel", kind],
            &out,
        );
    }
}

/// Metadata whose arguments do not fit (the code object patched in its msgpack note, same length): a hidden
/// argument wider than 8 bytes runs (the runtime fills 8, the rest stays 0) where it used to panic; a kernarg
/// segment too small for the explicit arguments and a 0-byte by-value argument are refused.
#[test]
fn metadata_out_of_range_is_an_error_not_a_panic() {
    let tmp = scratch("meta");
    let co = std::fs::read(root().join("fixtures/kernels/byval_struct.co")).unwrap();
    let patch = |from: &[u8], to: &[u8]| {
        let at = co
            .windows(from.len())
            .position(|w| w == from)
            .expect("metadata bytes not found");
        assert_eq!(from.len(), to.len());
        let mut c = co.clone();
        c[at..at + from.len()].copy_from_slice(to);
        c
    };
    std::fs::copy(
        root().join("fixtures/args/byval_struct.bin"),
        tmp.join("s.bin"),
    )
    .unwrap();
    // (name, patched code object, the struct argument, None: runs; Some: refused with these words).
    type Case<'a> = (&'a str, Vec<u8>, &'a str, Option<Vec<&'a str>>);
    let cases: [Case; 4] = [
        (
            "hidden16",
            patch(
                b"\xa5.size\x08\xab.value_kind\xb6hidden_global_offset_x",
                b"\xa5.size\x10\xab.value_kind\xb6hidden_global_offset_x",
            ),
            "bytes = \"s.bin\"",
            None,
        ),
        (
            "segment64",
            patch(
                b"\xb5.kernarg_segment_size\xcd\x01\x48",
                b"\xb5.kernarg_segment_size\xcd\x00\x40",
            ),
            "bytes = \"s.bin\"",
            Some(vec![
                "argument 3",
                "offset 64 (+8 bytes) is outside the kernarg segment (64 bytes)",
            ]),
        ),
        (
            "size0-bytes",
            patch(
                b"\xa7.offset\x08\xa5.size\x30",
                b"\xa7.offset\x08\xa5.size\x00",
            ),
            "bytes = \"s.bin\"",
            Some(vec!["argument 1", "gives 48 bytes", "takes 0 bytes"]),
        ),
        (
            "size0-bits",
            patch(
                b"\xa7.offset\x08\xa5.size\x30",
                b"\xa7.offset\x08\xa5.size\x00",
            ),
            "bits = \"0x0\"",
            Some(vec!["argument 1", "1-byte value", "0 bytes"]),
        ),
    ];
    for (name, bytes, arg, needles) in cases {
        let d = tmp.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(tmp.join("s.bin"), d.join("s.bin")).unwrap();
        std::fs::write(d.join("k.co"), bytes).unwrap();
        let m = struct_manifest(&d, "k.co", arg, ["d", "l", "f"]);
        let out = d.join("out");
        let r = run(&m, "host", &out);
        match needles {
            None => {
                succeeds(&r);
                assert!(out.join("d.bin").exists(), "{name}");
            }
            Some(n) => refused(&r, &n, &out),
        }
    }
}

/// Output names that would leave `--out DIR` (or name no file): exit 2 before anything runs, nothing written
/// in DIR, beside it, or at the absolute path — for an argument's `output`, a raw buffer's name, and a name
/// given twice.
#[test]
fn output_names_stay_inside_out_dir() {
    let tmp = scratch("names");
    let abs = tmp.join("abs").join("x");
    std::fs::create_dir_all(tmp.join("abs")).unwrap();
    let abs_name = abs.display().to_string();
    let names: Vec<(&str, &str)> = vec![
        ("../x", "path separator"),
        (&abs_name, "path separator"),
        ("a/b", "path separator"),
        ("a\\\\b", "path separator"),
        ("..", "directory name"),
        (".", "directory name"),
        ("", "is empty"),
        ("a\\u0000b", "NUL"),
    ];
    for (k, (name, why)) in names.iter().enumerate() {
        let d = tmp.join(format!("arg{k}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::copy(
            root().join("fixtures/args/byval_struct.bin"),
            d.join("s.bin"),
        )
        .unwrap();
        // The bad name on the second output; the first is fine and must not be written either.
        let text = format!(
            "code_object = {:?}\nkernel = \"byval_struct\"\ngrid = [128, 1, 1]\nworkgroup = [64, 1, 1]\n\
             [[args]]\nbuffer = {{ size = 1024 }}\noutput = \"d\"\n[[args]]\nbytes = \"s.bin\"\n\
             [[args]]\nbuffer = {{ size = 1024 }}\noutput = \"{name}\"\n[[args]]\nbuffer = {{ size = 512 }}\n",
            co_path("byval_struct.co")
        );
        let m = d.join("m.toml");
        std::fs::write(&m, text).unwrap();
        let out = d.join("out").join("inner");
        for backend in ["host", "vulkan"] {
            refused(
                &run(&m, backend, &out),
                &["argument 2: output", why, "plain file name"],
                &out,
            );
        }
        assert!(
            !d.join("out").exists(),
            "{name:?}: --out's parent was created"
        );
        for stray in [
            d.join("out/x.bin"),
            d.join("x.bin"),
            d.join("a"),
            tmp.join("abs/x.bin"),
        ] {
            assert!(!stray.exists(), "{name:?}: {} was written", stray.display());
        }
    }
    // A raw manifest's buffer name becomes the file name when `output = true`.
    let raw = std::fs::read_to_string(root().join("fixtures/raw/vsharp.toml")).unwrap();
    let raw = raw
        .replace(
            "\"vsharp.",
            &format!("\"{}/fixtures/raw/vsharp.", root().display()),
        )
        .replace("\"y\"", "\"../y\"");
    let d = tmp.join("raw");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("m.toml"), raw).unwrap();
    let out = d.join("out");
    refused(
        &run(&d.join("m.toml"), "host", &out),
        &["buffer \"../y\": output", "path separator"],
        &out,
    );
    assert!(!d.join("y.bin").exists());
    // Two outputs with one name: one would silently replace the other.
    let d = tmp.join("twice");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(
        root().join("fixtures/args/byval_struct.bin"),
        d.join("s.bin"),
    )
    .unwrap();
    let m = struct_manifest(
        &d,
        &co_path("byval_struct.co"),
        "bytes = \"s.bin\"",
        ["d", "l", "d"],
    );
    let out = d.join("out");
    refused(
        &run(&m, "host", &out),
        &["argument 3: output \"d\" is written by another"],
        &out,
    );
}

/// The outputs are written whole: no temporary file is left beside them, and an existing file of the same
/// name is replaced.
#[test]
fn outputs_are_written_whole() {
    let tmp = scratch("atomic");
    let out = tmp.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("d.bin"), b"old").unwrap();
    succeeds(&run(
        &root().join("fixtures/args/byval_struct_bytes.toml"),
        "host",
        &out,
    ));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["d.bin", "f.bin", "l.bin"]);
    assert_eq!(std::fs::read(out.join("d.bin")).unwrap().len(), 1024);
}

/// The two library checks by themselves: `bits` digits to little-endian bytes (width = digits written), and
/// which names are plain file names — ordinary names with dots, dashes and spaces stay allowed.
#[test]
fn bits_and_names_by_hand() {
    use rdna2spv::manifest::{check_output_name, parse_bits};
    assert_eq!(parse_bits("0x1").unwrap(), [0x01]);
    assert_eq!(parse_bits("0x0001").unwrap(), [0x01, 0x00]);
    assert_eq!(parse_bits("0x123").unwrap(), [0x23, 0x01]);
    assert_eq!(parse_bits("0XaB_cD").unwrap(), [0xcd, 0xab]);
    assert_eq!(
        parse_bits("0x8000_0000_0000_0000").unwrap(),
        0x8000_0000_0000_0000u64.to_le_bytes()
    );
    for bad in ["", "0x", "1", "x1", "0x_1", "0x1_", "0xg", "0x 1", "0x1.0"] {
        assert!(parse_bits(bad).is_err(), "{bad:?} accepted");
    }
    for ok in [
        "y",
        "out.f32",
        "...",
        "-x",
        "a b",
        "Ünïcode",
        "x".repeat(200).as_str(),
    ] {
        check_output_name(ok).unwrap_or_else(|e| panic!("{ok:?} refused: {e}"));
    }
    for bad in [
        "",
        ".",
        "..",
        "../x",
        "/x",
        "a/b",
        "a\\b",
        "a\0b",
        "x/",
        "x".repeat(201).as_str(),
    ] {
        assert!(check_output_name(bad).is_err(), "{bad:?} accepted");
    }
}
