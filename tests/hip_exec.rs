//! `rdna2spv exec`: unmodified hipcc-built programs (fixtures/hip_programs, built by `cargo xtask fixtures`)
//! run through rdna2spv's HIP runtime (crates/hip, decision D156). Each program computes its own CPU
//! reference from the same inputs and prints `NAME: PASS` and exits 0 only when every result matches; the
//! runtime's part is to make the kernels run exactly. The same binaries without our runtime fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hip_programs")
}

fn kernels() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kernels")
}

/// Each program with its arguments.
fn cases() -> Vec<(&'static str, Vec<PathBuf>)> {
    let mut v: Vec<(&str, Vec<PathBuf>)> = [
        "vadd",
        "structarg",
        "reduction",
        "symbols",
        "gridstride",
        "streams",
        "pitched",
        "threads",
        "pointers",
    ]
    .iter()
    .map(|p| (*p, Vec::new()))
    .collect();
    v.push((
        "module",
        vec![
            kernels().join("saxpy_hip.co"),
            kernels().join("saxpy_hip.bundle"),
        ],
    ));
    // The launch-overhead benchmark's program (`cargo xtask bench hip`), small.
    v.push(("launches", vec![PathBuf::from("3"), PathBuf::from("1000")]));
    v
}

fn exec(backend: &str, extra: &[&str], program: &str, args: &[PathBuf]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["exec", "--backend", backend])
        .args(extra)
        .arg("--")
        .arg(programs().join(program))
        .args(args)
        .env_remove("RDNA2SPV_HIP_LIBRARY")
        // Every module lowered by this run (tests/hip_exec.rs checks the disk cache on its own).
        .env("RDNA2SPV_HIP_CACHE", "0")
        .output()
        .unwrap()
}

fn check_pass(backend: &str) {
    check_pass_with(backend, &[]);
}

fn check_pass_with(backend: &str, extra: &[&str]) {
    for (p, args) in cases() {
        assert_passes(
            &format!("{p} on {backend}"),
            p,
            &exec(backend, extra, p, &args),
        );
    }
}

#[test]
fn programs_pass_on_the_host_evaluator() {
    check_pass("host");
}

/// Every launch on lavapipe, then on the host evaluator from the same memory, compared bit for bit.
#[test]
fn programs_pass_on_the_device_and_agree_with_the_host() {
    check_pass("both");
}

/// Checked (D158, D250): each launch's first run tests the allocations its launch points into (kernarg
/// words, the dispatch packet, the code object's image: structarg's `__constant__` table, symbols'
/// globals), and pointers' row table reaches further; compared with the host bit for bit.
#[test]
fn programs_pass_checked_on_the_device_and_agree_with_the_host() {
    check_pass_with("both", &["--checked"]);
}

/// The device alone (the default backend): memory is Vulkan buffers at their device addresses.
#[test]
fn programs_pass_on_the_device_alone() {
    check_pass("vulkan");
}

#[test]
fn without_our_runtime_the_programs_fail_with_a_hip_error() {
    for p in ["vadd", "reduction"] {
        let r = Command::new(programs().join(p))
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("LD_PRELOAD")
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&r.stdout);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_ne!(r.status.code(), Some(0), "{p}: {out} {err}");
        assert!(!out.contains("PASS"), "{p}: {out}");
        // ROCm's runtime without an AMD GPU: hipErrorInvalidDevice (or no ROCm installed at all).
        assert!(
            err.contains("hipError") || err.contains("libamdhip64.so.5"),
            "{p}: {err}"
        );
    }
}

#[test]
fn unsupported_features_stop_the_program_with_exit_2_naming_them() {
    for (backend, (arg, named)) in [
        ("managed", "hipMallocManaged"),
        (
            "printf",
            "launch 1 (_Z5helloPi): the kernel calls device-side printf",
        ),
        (
            "malloc",
            "launch 1 (_Z10scratchpadPi): the kernel calls device-side malloc/free (__ockl_dm_alloc)",
        ),
        ("graph", "hipGraphCreate (graphs)"),
        (
            "cooperative",
            "a cooperative launch (hipLaunchCooperativeKernel)",
        ),
        ("texture", "hipCreateTextureObject (texture objects)"),
    ]
    .into_iter()
    .flat_map(|c| [("host", c), ("vulkan", c)])
    {
        let r = exec(backend, &[], "unsupported", &[PathBuf::from(arg)]);
        let out = String::from_utf8_lossy(&r.stdout);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{arg}: {out} {err}");
        assert!(err.contains(named), "{arg}: {err}");
        assert!(err.contains("not supported"), "{arg}: {err}");
        assert!(!out.contains("reached the end"), "{arg}: {out}");
    }
}

/// hipcc -O0 kernels do not lift yet (their functions keep s[30:31] in a VGPR saved to the scratch frame, and
/// they reach private memory through flat addresses: D160): the program stops with exit 2 saying so.
#[test]
fn a_hipcc_o0_program_stops_naming_o0_code() {
    for backend in ["host", "vulkan"] {
        let r = exec(backend, &[], "vadd_O0", &[]);
        let out = String::from_utf8_lossy(&r.stdout);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{backend}: {out} {err}");
        // The host lifts first (the call tracker stops); a Vulkan launch meets the dynamic stack first.
        let why = match backend {
            "host" => "launch 1 (_Z4vaddPKfS0_Pfi): the kernel's functions keep their return addresses in scratch memory, as hipcc -O0 code does",
            _ => "launch 1 (_Z4vaddPKfS0_Pfi): kernel _Z4vaddPKfS0_Pfi uses a dynamic stack (its scratch size is not known before the run), which is not supported yet; hipcc -O0 code does",
        };
        assert!(
            err.contains(why) && err.contains("rebuild with -O1 or higher"),
            "{backend}: {err}"
        );
        assert!(!err.contains("host service"), "{backend}: {err}");
        assert!(!out.contains("PASS"), "{backend}: {out}");
    }
}

/// A kernel writing past its allocation stops the program (exit 2) with the faulting instruction and
/// address: always on the host evaluator, on the device under `--checked`.
#[test]
fn a_faulting_kernel_stops_the_program() {
    for (backend, extra) in [("host", &[][..]), ("vulkan", &["--checked"][..])] {
        let r = exec(backend, extra, "unsupported", &[PathBuf::from("oob")]);
        let out = String::from_utf8_lossy(&r.stdout);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{backend}: {out} {err}");
        assert!(
            err.contains("launch 1 (_Z7overrunPii)") && err.contains("outside every allocation"),
            "{backend}: {err}"
        );
        assert!(err.contains("global_store_dword"), "{backend}: {err}");
        assert!(!out.contains("reached the end"), "{backend}: {out}");
    }
}

/// D250: a checked launch's first run tests only the allocations its launch points into, keeping no fault
/// records. fixtures/hip_programs/pointers reads its rows through a table of pointers in device memory:
/// the first launch flags an access outside those allocations, gets its rows' bytes back and runs again
/// against every allocation (with records); the second launch of the kernel goes straight there. `scale`
/// is launched twice with one more allocation between: its module is the same (cached). With `spin`, a
/// kernel waits on a flag read through the table: the first run reads zeros where the read is redirected
/// and spins until its wave is cut short, still flagging the access, and the run against every allocation
/// reads the flag and passes. With `oob`, a row read past its end through the table is named as the host
/// evaluator names it.
#[test]
fn a_checked_launch_that_reaches_past_its_arguments_runs_again_against_every_allocation() {
    for backend in ["vulkan", "both"] {
        let r = exec(backend, &["--checked", "--log"], "pointers", &[]);
        let out = String::from_utf8_lossy(&r.stdout);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(0), "{backend}: {out}\n{err}");
        assert!(out.contains("pointers: PASS"), "{backend}: {out}");
        let launch = |n: u32| {
            err.lines()
                .find(|l| l.starts_with(&format!("rdna2spv: launch {n}: ")))
                .unwrap_or_else(|| panic!("{backend}: no log line for launch {n}: {err}"))
        };
        assert!(
            launch(1).contains("ran again against all"),
            "{backend}: {}",
            launch(1)
        );
        for n in 2..=4 {
            assert!(!launch(n).contains("ran again"), "{backend}: {}", launch(n));
        }
        assert!(
            launch(3).contains("module lowered"),
            "{backend}: {}",
            launch(3)
        );
        assert!(
            launch(4).contains("module cached"),
            "{backend}: one more allocation, the same module: {}",
            launch(4)
        );
    }
    for backend in ["vulkan", "both"] {
        let r = exec(
            backend,
            &["--checked", "--log"],
            "pointers",
            &[PathBuf::from("spin")],
        );
        let out = String::from_utf8_lossy(&r.stdout);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(0), "{backend} spin: {out}\n{err}");
        assert!(out.contains("pointers: PASS"), "{backend} spin: {out}");
        assert!(
            err.contains("ran again against all"),
            "{backend} spin: {err}"
        );
    }
    let fault = |backend: &str, extra: &[&str]| {
        let r = exec(backend, extra, "pointers", &[PathBuf::from("oob")]);
        let err = String::from_utf8_lossy(&r.stderr).to_string();
        assert_eq!(r.status.code(), Some(2), "{backend}: {err}");
        // Everything but the address (each backend places memory where it does) and the device's count
        // of faulting waves.
        let at = err.find(" at 0x").expect("an address");
        let rest = &err[at + 6..];
        let end = rest.find(|c: char| !c.is_ascii_hexdigit()).unwrap();
        let tail = rest[end..]
            .split(" [")
            .next()
            .unwrap()
            .trim_end()
            .to_string();
        let head = err[..at].split(": on the ").nth(1).unwrap().to_string();
        let head = head.split_once(": ").unwrap().1.to_string();
        (head, tail)
    };
    let host = fault("host", &[]);
    assert!(
        host.0.contains("global_load_dword") && host.1.contains("(lane 11)"),
        "{host:?}"
    );
    assert_eq!(fault("vulkan", &["--checked"]), host);
}

/// A module taken from the disk cache runs without its kernel lifted (D160); when it faults, the kernel is
/// lifted then, and the message still names the faulting instruction.
#[test]
fn a_fault_in_a_module_from_the_disk_cache_names_its_instruction() {
    let cache = std::env::temp_dir().join(format!("rdna2spv-hip-xdg-oob-{}", std::process::id()));
    for run in 0..2 {
        let r = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
            .args(["exec", "--backend", "vulkan", "--checked", "--log", "--"])
            .arg(programs().join("unsupported"))
            .arg("oob")
            .env("XDG_CACHE_HOME", &cache)
            .env_remove("RDNA2SPV_HIP_LIBRARY")
            .env_remove("RDNA2SPV_HIP_CACHE")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "run {run}: {err}");
        assert!(
            err.contains("launch 1 (_Z7overrunPii)")
                && err.contains("outside every allocation")
                && err.contains("global_store_dword"),
            "run {run}: {err}"
        );
    }
    let spv: Vec<PathBuf> = std::fs::read_dir(cache.join("rdna2spv/hip"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "spv"))
        .collect();
    // D250: the first run's module (flag only, the allocations the launch points into) and, as it flags
    // the overrun, the one with fault records (every allocation), both kept once.
    assert_eq!(spv.len(), 2, "{spv:?}");
    // D249: the checked modules are the lane mapping's, as `run` takes it (it names its per-lane flag
    // words in an `OpModuleProcessed` string; the wave mapping writes none).
    let mark = rdna2spv_spirv::lower::FLAG_SLOTS_MARK.as_bytes();
    for p in &spv {
        let bytes = std::fs::read(p).unwrap();
        assert!(
            bytes.windows(mark.len()).any(|w| w == mark),
            "{}: the checked module is not a lane module",
            p.display()
        );
    }
    let _ = std::fs::remove_dir_all(&cache);
}

/// FNV-1a, 64 bits (the cache files' checksums, written here from its definition).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The persistent caches (D156, D160): a second run of a program takes every module from
/// `$XDG_CACHE_HOME/rdna2spv/hip` without lifting or lowering its kernels, and creates its pipelines with
/// the Vulkan pipeline cache the first run saved; damaged files are ignored with a note (and rewritten), a
/// pipeline cache of another device is ignored with a note; `RDNA2SPV_HIP_CACHE=0` writes nothing.
#[test]
fn a_second_run_reads_its_modules_from_the_disk_cache() {
    let cache = std::env::temp_dir().join(format!("rdna2spv-hip-xdg-{}", std::process::id()));
    let run = |backend: &str, env_cache: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_rdna2spv"));
        c.args(["exec", "--backend", backend, "--log", "--"])
            .arg(programs().join("streams"))
            .env("XDG_CACHE_HOME", &cache)
            .env_remove("RDNA2SPV_HIP_LIBRARY")
            // An executed-encoding log (CI sets it, D159) needs the lifted program, so a run that writes
            // one lifts even on a disk-cache hit: this test is about the cache, so it writes none.
            .env_remove("RDNA2SPV_COVERAGE_LOG");
        match env_cache {
            Some(v) => c.env("RDNA2SPV_HIP_CACHE", v),
            None => c.env_remove("RDNA2SPV_HIP_CACHE"),
        };
        let r = c.output().unwrap();
        let err = String::from_utf8_lossy(&r.stderr).to_string();
        assert_eq!(r.status.code(), Some(0), "{err}");
        assert!(String::from_utf8_lossy(&r.stdout).contains("streams: PASS"));
        err
    };
    let count = |err: &str, s: &str| err.lines().filter(|l| l.contains(s)).count();
    let counts = |err: &str| {
        (
            count(err, "; module lowered;"),
            count(err, "; module from the disk cache;"),
        )
    };
    let files = |ext: &str| -> Vec<PathBuf> {
        std::fs::read_dir(cache.join("rdna2spv/hip"))
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == ext))
                    .collect()
            })
            .unwrap_or_default()
    };
    let e = run("vulkan", Some("0"));
    assert_eq!(counts(&e), (3, 0), "{e}");
    assert!(files("spv").is_empty() && files("vkpc").is_empty());
    // Three kernel shapes (fill twice with the same shape: the second is the in-memory module).
    let e = run("vulkan", None);
    assert_eq!(counts(&e), (3, 0), "{e}");
    assert_eq!(
        count(&e, "(lifted; module lowered; pipeline compiled)"),
        3,
        "{e}"
    );
    assert_eq!(files("spv").len(), 3);
    assert_eq!(files("vkpc").len(), 1);
    // The second run: no lifting, no lowering, the pipeline cache read back (its header at least).
    let e = run("vulkan", None);
    assert_eq!(counts(&e), (0, 3), "{e}");
    assert_eq!(
        count(&e, "(not lifted; module from the disk cache;"),
        3,
        "{e}"
    );
    assert_eq!(count(&e, "; pipeline cache 0 bytes"), 0, "{e}");
    assert_eq!(count(&e, "bytes from the disk"), 4, "{e}");
    assert!(!e.contains("note:"), "{e}");
    // `both` needs the program for the host evaluator: it lifts, but still takes the modules.
    let e = run("both", None);
    assert_eq!(counts(&e), (0, 3), "{e}");
    assert_eq!(count(&e, "(lifted; module from the disk cache;"), 3, "{e}");
    // Every file damaged: ignored with a note each, lowered again, rewritten.
    for f in files("spv").into_iter().chain(files("vkpc")) {
        let mut b = std::fs::read(&f).unwrap();
        let n = b.len();
        b[n - 1] ^= 0x80;
        std::fs::write(&f, b).unwrap();
    }
    let e = run("vulkan", None);
    assert_eq!(counts(&e), (3, 0), "{e}");
    assert_eq!(count(&e, "note: ignoring cache file"), 4, "{e}");
    assert_eq!(
        count(&e, "its checksum does not match its contents"),
        4,
        "{e}"
    );
    let e = run("vulkan", None);
    assert_eq!(counts(&e), (0, 3), "{e}");
    assert!(!e.contains("note:"), "{e}");
    // A whole, well-formed file whose pipeline cache header is another device's (its UUID's last byte
    // changed, the file's checksum recomputed): the header check refuses it before the driver sees it.
    let vkpc = files("vkpc").pop().unwrap();
    let mut b = std::fs::read(&vkpc).unwrap();
    assert_eq!(&b[..8], b"R2SVKPC1");
    b[24 + 31] ^= 1;
    let sum = fnv1a(&b[24..]);
    b[16..24].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&vkpc, &b).unwrap();
    let e = run("vulkan", None);
    assert_eq!(counts(&e), (0, 3), "{e}");
    assert_eq!(count(&e, "is not this device's"), 1, "{e}");
    // Truncated to nothing past the magic: a note, not a crash.
    std::fs::write(&vkpc, b"R2SVKPC1").unwrap();
    let e = run("vulkan", None);
    assert_eq!(count(&e, "it is truncated"), 1, "{e}");
    let _ = std::fs::remove_dir_all(&cache);
}

/// D253: 65,536 workgroups of 256 (16,777,216 floats), one more than lavapipe dispatches in x, run on the
/// device folded into rows (before: "workgroup count 65536 in dimension 0 is outside 1..=65535"); the
/// program checks every element of both launches.
#[test]
fn a_grid_wider_than_one_dispatch_runs_on_the_device() {
    let r = exec(
        "vulkan",
        &["--log"],
        "launches",
        &[PathBuf::from("1"), PathBuf::from("16777216")],
    );
    let out = String::from_utf8_lossy(&r.stdout);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("launches: PASS"), "{out}\n{err}");
    assert!(
        err.contains("grid 65536x1x1 block 256x1x1 on vulkan"),
        "{err}"
    );
}

#[test]
fn the_log_lists_every_launch() {
    let r = exec("host", &["--log"], "symbols", &[]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(": launch ")).collect();
    assert_eq!(lines.len(), 5, "{err}");
    for (i, l) in lines.iter().enumerate() {
        assert!(
            l.contains(&format!(
                "launch {}: _Z4stepi grid 1x1x1 block 32x1x1 on host",
                i + 1
            )),
            "{l}"
        );
    }
}

#[test]
fn exec_passes_output_and_exit_status_through() {
    let r = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["exec", "--backend", "host", "--", "sh", "-c"])
        .arg("echo out; echo err >&2; exit 7")
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(7));
    assert_eq!(String::from_utf8_lossy(&r.stdout), "out\n");
    assert_eq!(String::from_utf8_lossy(&r.stderr), "err\n");
    // A program that cannot be started is bad input.
    let r = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["exec", "--", "/nonexistent/program"])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("/nonexistent/program"));
    // So is a runtime that is not there.
    let r = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["exec", "--", "true"])
        .env("RDNA2SPV_HIP_LIBRARY", "/nonexistent/libamdhip64.so")
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("RDNA2SPV_HIP_LIBRARY"));
}

/// Dynamic symbols of an ELF file as llvm-readelf-19 prints them: (name with version, defined).
fn dyn_syms(file: &Path) -> Vec<(String, bool)> {
    let r = Command::new("llvm-readelf-19")
        .args(["--dyn-syms", "-W"])
        .arg(file)
        .output()
        .expect("llvm-readelf-19");
    assert!(r.status.success());
    String::from_utf8_lossy(&r.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let numbered = f
                .first()
                .and_then(|n| n.strip_suffix(':'))
                .is_some_and(|n| n.parse::<u32>().is_ok());
            (numbered && f.len() >= 8).then(|| (f[7].to_string(), f[6] != "UND"))
        })
        .collect()
}

/// The runtime exports every function of ROCm's libamdhip64.so.5 with ROCm's symbol version
/// (crates/hip/abi.txt, measured with nm on Debian's libamdhip64-5 5.2.3), and everything the programs
/// import (`NAME@hip_x.y`, read from the hipcc-built binaries) is exported with that version.
#[test]
fn the_runtime_exports_rocms_abi_with_its_symbol_versions() {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_rdna2spv"));
    let dir = exe.parent().unwrap();
    // The newest, as `exec` chooses (`cargo test` refreshes only deps/).
    let lib = [dir.join("libamdhip64.so"), dir.join("deps/libamdhip64.so")]
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p)
        .expect("the runtime is built with the tests");
    let exported: Vec<String> = dyn_syms(&lib)
        .into_iter()
        .filter(|(_, defined)| *defined)
        .map(|(n, _)| n)
        .collect();
    let abi =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/hip/abi.txt"))
            .unwrap();
    let mut n = 0;
    for line in abi.lines().filter(|l| !l.starts_with('#')) {
        let (name, version) = line.split_once(' ').unwrap();
        let versioned = format!("{name}@@{version}");
        assert!(exported.contains(&versioned), "{versioned} not exported");
        n += 1;
    }
    assert_eq!(n, 409);
    assert!(
        exported.iter().all(|n| n.contains("@@hip_")),
        "an unversioned export: {exported:?}"
    );
    assert_eq!(exported.len(), amdhip64::api::EXPORTS.len());
    let mut imports = 0;
    for (p, _) in cases().into_iter().chain([("unsupported", Vec::new())]) {
        for (n, defined) in dyn_syms(&programs().join(p)) {
            if let Some((base, version)) = n.split_once("@hip_") {
                assert!(!defined);
                let want = format!("{base}@@hip_{version}");
                assert!(
                    exported.contains(&want),
                    "{p} imports {n}, which the runtime does not export"
                );
                imports += 1;
            }
        }
    }
    assert!(imports > 60, "{imports} imports");
}

/// `exec --backend auto` with `env` set, a fresh Mesa shader cache of its own (every pipeline compiles
/// cold in its child, D252), and `--log`: the output, and per launch (kernel, backend, the rest of the line).
fn exec_auto(
    program: &str,
    args: &[PathBuf],
    env: &[(&str, &str)],
    tag: &str,
) -> (Output, Vec<(String, String, String)>) {
    let cache = std::env::temp_dir().join(format!(
        "rdna2spv-test-auto-{tag}-{program}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&cache);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rdna2spv"));
    cmd.args(["exec", "--backend", "auto", "--log", "--"])
        .arg(programs().join(program))
        .args(args)
        .env_remove("RDNA2SPV_HIP_LIBRARY")
        .env_remove("MESA_SHADER_CACHE_DISABLE")
        .env_remove("RDNA2SPV_HIP_AUTO_WAIT_MS")
        .env_remove("RDNA2SPV_HIP_WARMER")
        .env("MESA_SHADER_CACHE_DIR", &cache)
        .env("RDNA2SPV_HIP_CACHE", "0");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let r = cmd.output().unwrap();
    let _ = std::fs::remove_dir_all(&cache);
    let err = String::from_utf8_lossy(&r.stderr).into_owned();
    let launches = err
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("rdna2spv: launch ")?;
            let (_, rest) = rest.split_once(": ")?;
            let (kernel, rest) = rest.split_once(" grid ")?;
            let (_, rest) = rest.split_once(" on ")?;
            let (backend, rest) = rest.split_once(": ")?;
            Some((kernel.to_string(), backend.to_string(), rest.to_string()))
        })
        .collect();
    (r, launches)
}

/// Exit 0 and the program's success line `PROGRAM: PASS` (`what` names the run in a failure).
fn assert_passes(what: &str, program: &str, r: &Output) {
    let out = String::from_utf8_lossy(&r.stdout);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(
        r.status.code(),
        Some(0),
        "{what}: stdout {out}\nstderr {err}"
    );
    assert!(
        out.contains(&format!("{program}: PASS")),
        "{what}: stdout {out}\nstderr {err}"
    );
}

/// D252: `auto` runs each kernel's first launch on the host evaluator while a child process compiles its
/// pipeline (no child can have finished when the launch chooses: it was started for that launch); every
/// program passes, its launches on whichever side they ran.
#[test]
fn auto_runs_first_launches_on_the_host_while_their_pipelines_compile() {
    for (p, args) in cases() {
        let (r, launches) = exec_auto(p, &args, &[], "first");
        assert_passes(p, p, &r);
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!launches.is_empty(), "{p}: {err}");
        let mut seen = std::collections::HashSet::new();
        for (kernel, backend, rest) in &launches {
            assert!(backend == "host" || backend == "vulkan", "{p}: {err}");
            if seen.insert(kernel.clone()) {
                // On the host to its end, or (D254) on the host until its pipeline had compiled, then
                // on the device: either way it did not wait for the compile.
                match backend.as_str() {
                    "host" => assert!(
                        rest.contains("auto: its module is translated in the background")
                            || rest.contains("auto: its pipeline"),
                        "{p}: first launch of {kernel}: {err}"
                    ),
                    _ => assert!(
                        rest.contains(
                            "on the host evaluator while its pipeline compiled in the background, then on the device"
                        ),
                        "{p}: first launch of {kernel}: {err}"
                    ),
                }
            }
        }
    }
}

/// D254: a launch far heavier on the host evaluator than its module's compile (`launches 1 16777216`:
/// y += x over 2^24 floats in 65,536 workgroups, seconds on the evaluator even in a release build, while
/// lavapipe compiles the kernel in well under a second) starts on the host, stops there once the child
/// has compiled its pipeline, and runs on the device from the start: the program passes (its check
/// reads every element, so a launch half-run on the host copy and not redone would fail).
#[test]
fn auto_drops_a_heavy_host_launch_when_its_pipeline_has_compiled() {
    let (r, launches) = exec_auto(
        "launches",
        &[PathBuf::from("1"), PathBuf::from("16777216")],
        &[],
        "race",
    );
    assert_passes("launches", "launches", &r);
    let err = String::from_utf8_lossy(&r.stderr);
    // The untimed launch, then the timed one (on the device: its pipeline has compiled).
    assert_eq!(launches.len(), 2, "{err}");
    let (_, backend, rest) = &launches[0];
    assert_eq!(backend, "vulkan", "{err}");
    assert!(
        rest.contains(
            "whole workgroups on the host evaluator while its pipeline compiled in the background, then on the device"
        ),
        "{err}"
    );
    assert_eq!(launches[1].1, "vulkan", "{err}");
}

/// D252: with `RDNA2SPV_HIP_AUTO_WAIT_MS` long enough, each kernel's first launch waits for its child's
/// compile, which must end well (a failed one leaves the module on the host), and every launch runs on
/// the device.
#[test]
fn auto_launches_that_wait_for_their_compile_run_on_the_device() {
    for p in ["vadd", "reduction", "structarg"] {
        let (r, launches) = exec_auto(p, &[], &[("RDNA2SPV_HIP_AUTO_WAIT_MS", "300000")], "wait");
        assert_passes(p, p, &r);
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!launches.is_empty(), "{p}: {err}");
        let mut seen = std::collections::HashSet::new();
        for (kernel, backend, rest) in &launches {
            assert_eq!(backend, "vulkan", "{p}: {err}");
            if seen.insert(kernel.clone()) {
                assert!(
                    rest.contains("auto: waited"),
                    "{p}: first launch of {kernel}: {err}"
                );
            }
        }
    }
}

/// D252: a module whose child fails to compile it (a stand-in for `rdna2spv warm-pipeline` that exits 2
/// with a message, or dies of a signal as a crashing or out-of-memory compile would) stays on the host
/// evaluator, the child's reason in the log; the program passes.
#[test]
fn auto_keeps_a_module_whose_pipeline_does_not_compile_on_the_host() {
    let dir = std::env::temp_dir().join(format!("rdna2spv-test-warmer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, script, reason) in [
        (
            "fails",
            "#!/bin/sh\necho 'rdna2spv: error: a compile that failed' >&2\nexit 2\n",
            "its pipeline did not compile: exit status 2: a compile that failed",
        ),
        (
            "crashes",
            "#!/bin/sh\nkill -SEGV $$\n",
            "its pipeline did not compile: the compiling process ended by signal 11",
        ),
    ] {
        let warmer = dir.join(name);
        std::fs::write(&warmer, script).unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&warmer, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (r, launches) = exec_auto(
            "vadd",
            &[],
            &[
                ("RDNA2SPV_HIP_AUTO_WAIT_MS", "300000"),
                ("RDNA2SPV_HIP_WARMER", warmer.to_str().unwrap()),
            ],
            name,
        );
        assert_passes("vadd", "vadd", &r);
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!launches.is_empty(), "{name}: {err}");
        for (_, backend, rest) in &launches {
            assert_eq!(backend, "host", "{name}: {err}");
            assert!(rest.contains(reason), "{name}: {err}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// D252: with Mesa's shader cache off a child's compile could not reach the program, so `auto` runs every
/// launch on the device, as `vulkan` does.
#[test]
fn auto_without_a_shader_cache_runs_on_the_device() {
    let (r, launches) = exec_auto(
        "vadd",
        &[],
        &[("MESA_SHADER_CACHE_DISABLE", "true")],
        "nocache",
    );
    assert_passes("vadd", "vadd", &r);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!launches.is_empty(), "{err}");
    for (_, backend, rest) in &launches {
        assert_eq!(backend, "vulkan", "{err}");
        assert!(!rest.contains("auto:"), "{err}");
    }
}
