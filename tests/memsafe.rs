//! Memory-safe device runs by default (issue 28, decision D158): `run` bounds-checks every global access on
//! the device, in the lane mapping as in the wave mapping, without `--checked`. Real fixture kernels are
//! driven outside their buffers by their manifests: spmv gathers `x[col[j]]` with one column index 2^26
//! (a read 256 MiB past `x`), globals writes `out[i]` for `i < n` with `n` one wave past `out`'s end (a
//! store just past the end; the kernel's code object image is placed as the buffer `code_object`, D155).
//! Each must stop with exit 2 and the report the host evaluator gives (workgroup, wave, pc, instruction,
//! lane; the address differs between the backends' layouts), write no output file, on `--backend vulkan`
//! and `--backend both`, in both mappings. The same kernels in range run bit-exact (`--backend both`
//! compares host and device bit for bit).
//!
//! Mutation (D158, by hand): with the default turned off (`let checked = !unchecked` → `false` in
//! src/main.rs) the spmv run touches unregistered memory 256 MiB away: the child process dies of SIGSEGV
//! (exit status none) or reads garbage and exits 0, and these tests fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rdna2spv-memsafe-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn rdna2spv(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(args)
        .output()
        .unwrap()
}

fn run(manifest: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec!["run".as_ref(), manifest.as_os_str()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    args.extend(["--out".as_ref(), out.as_os_str()]);
    rdna2spv(&args)
}

/// The report's words without the address (the backends place buffers at different addresses) and without
/// the device's count of faulting waves.
fn without_address(line: &str) -> String {
    let line = line.trim_start_matches(|c| c != 'w');
    let start = line.find(" at 0x").expect("an address");
    let rest = &line[start + 6..];
    let end = rest
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(rest.len());
    let tail = &rest[end..];
    let tail = tail.split(" [").next().unwrap_or(tail);
    format!("{}{}", &line[..start], tail)
}

/// Runs `manifest` faulting on the host, then on `vulkan` and `both` in each mapping, by default (no
/// `--checked`): every run exits 2 with the host's report and writes nothing under `--out`.
fn faults_everywhere(manifest: &Path, output: &str, kind: &str) -> String {
    let d = manifest.parent().unwrap().join("out");
    let report = |extra: &[&str]| -> String {
        let o = run(manifest, &d, extra);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            !d.join(format!("{output}.bin")).exists(),
            "{extra:?}: an output was written"
        );
        err.lines()
            .find(|l| l.contains("outside every allocation"))
            .unwrap_or_else(|| panic!("{extra:?}: no fault report in {err}"))
            .to_string()
    };
    let host = report(&["--backend", "host"]);
    assert!(
        host.contains("workgroup [")
            && host.contains("wave ")
            && host.contains("pc 0x")
            && host.contains("(lane ")
            && host.contains(&format!("{kind} of ")),
        "{host}"
    );
    let h = without_address(&host);
    for backend in ["vulkan", "both"] {
        for mapping in ["lane", "wave"] {
            let dev = report(&["--backend", backend, "--mapping", mapping]);
            assert!(dev.contains(" at 0x"), "{dev}");
            let v = without_address(&dev);
            assert_eq!(v, h, "{backend} {mapping}:\nhost:   {host}\ndevice: {dev}");
            assert!(dev.contains("waves faulted]"), "{dev}");
        }
    }
    host
}

/// spmv with one column index 2^26 (entry 40, in row 3 of the fixture's matrix): the gather reads 256 MiB
/// past `x`.
#[test]
fn a_far_read_from_a_manifest_index_stops_the_run() {
    let d = tmp("far");
    let mut col = std::fs::read(fixture("fixtures/run/spmv.col.bin")).unwrap();
    col[4 * 40..4 * 41].copy_from_slice(&(1u32 << 26).to_le_bytes());
    std::fs::write(d.join("col.bin"), &col).unwrap();
    let src = std::fs::read_to_string(fixture("fixtures/run/spmv.toml")).unwrap();
    let dir = fixture("fixtures/run");
    let m = src
        .replace(
            "\"../kernels/spmv.co\"",
            &format!("{:?}", fixture("fixtures/kernels/spmv.co")),
        )
        .replace("\"spmv.col.bin\"", &format!("{:?}", d.join("col.bin")))
        .replace("\"spmv.", &format!("\"{}/spmv.", dir.display()));
    let path = d.join("spmv_far.toml");
    std::fs::write(&path, m).unwrap();
    let host = faults_everywhere(&path, "y", "load");
    // The faulting lane is the one whose row holds entry 40 (row_ptr, an input file): its row.
    let rp = std::fs::read(fixture("fixtures/run/spmv.row_ptr.bin")).unwrap();
    let rp: Vec<u32> = rp
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let row = rp.windows(2).position(|w| w[0] <= 40 && 40 < w[1]).unwrap();
    assert!(
        host.contains(&format!("(lane {row})")) && host.contains("workgroup [0, 0, 0], wave 0,"),
        "row {row}: {host}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// globals with `n` = 1,312 over a 1,280-word `out`: wave 40's stores `out[1280..1312]` land just past the
/// end (workgroup 20, wave 0, lane 0 is the first).
#[test]
fn a_store_just_past_the_end_stops_the_run() {
    let d = tmp("past");
    let src = std::fs::read_to_string(fixture("fixtures/globals/globals.toml")).unwrap();
    let m = src
        .replace(
            "\"../kernels/globals.co\"",
            &format!("{:?}", fixture("fixtures/kernels/globals.co")),
        )
        .replace("grid = [1280, 1, 1]", "grid = [1344, 1, 1]")
        .replace("u32 = 1280", "u32 = 1312");
    let path = d.join("globals_past.toml");
    std::fs::write(&path, m).unwrap();
    let host = faults_everywhere(&path, "out", "store");
    assert!(
        host.contains("workgroup [20, 0, 0], wave 0,") && host.contains("(lane 0)"),
        "{host}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The same kernels in range: exit 0, the host and the device agree bit for bit in both mappings, with the
/// default checks and with `--unchecked`; `--checked` is still accepted.
#[test]
fn in_range_runs_are_bit_exact_checked_and_unchecked() {
    let d = tmp("ok");
    for m in ["fixtures/run/spmv.toml", "fixtures/globals/globals.toml"] {
        for extra in [
            &["--mapping", "lane"][..],
            &["--mapping", "wave"],
            &["--mapping", "lane", "--unchecked"],
            &["--checked"],
        ] {
            let mut args = vec!["--backend", "both"];
            args.extend(extra);
            let out = d.join("out");
            let o = run(&fixture(m), &out, &args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(0), "{m} {extra:?}: {err}");
            assert!(
                err.contains("host and device agree bit for bit"),
                "{m} {extra:?}: {err}"
            );
            let _ = std::fs::remove_dir_all(&out);
        }
    }
    // --checked and --unchecked together are a usage error.
    let o = run(
        &fixture("fixtures/run/spmv.toml"),
        &d.join("out"),
        &["--checked", "--unchecked"],
    );
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}
