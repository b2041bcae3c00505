//! Checked mode on the device (`run --checked`, issue 9): a global access outside every allocation is
//! reported as the host evaluator reports it (workgroup, wave, pc, instruction, lane; kind and size) and
//! touches no memory outside the registered allocations.
//!
//! The faults are real kernels' own accesses: saxpy run over more work-items than its buffers hold, and
//! kernels whose pointer argument points at memory that is not registered (a canary buffer, which must come
//! back untouched).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rdna2spv::device::{open, profile_of, ProfileChoice};
use rdna2spv::dispatch::Plan;
use rdna2spv::manifest::Manifest;
use rdna2spv_spirv::lower::LowerOptions;
use rdna2spv_vulkan::{run_program_checked, RunError};

fn fixture(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rdna2spv-checked-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn rdna2spv(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(args)
        .output()
        .unwrap()
}

/// The report without the address (host and device place buffers at different addresses): everything
/// before " at 0x" and everything after the address.
fn without_address(line: &str) -> String {
    let start = line.find(" at 0x").expect("an address");
    let rest = &line[start + 6..];
    let end = rest
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(rest.len());
    format!("{}{}", &line[..start], &rest[end..])
}

/// saxpy over 1,024 work-items with 64-element buffers: workgroup 1's first load is the first access past
/// the end. The host evaluator and the checked device run must name the same workgroup, wave, pc,
/// instruction, lane, kind and size; exit code 2 and no output file for both.
#[test]
fn checked_device_run_reports_the_fault_as_the_host_does() {
    let d = tmp("cli");
    let saxpy = fixture("fixtures/kernels/saxpy.co");
    let m = d.join("oob.toml");
    std::fs::write(
        &m,
        format!(
            "code_object = {saxpy:?}\ngrid = [1024,1,1]\nworkgroup = [64,1,1]\n[[args]]\nf32 = 1.0\n[[args]]\nbuffer = {{ size = 256 }}\n[[args]]\nbuffer = {{ size = 256 }}\noutput = \"y\"\n"
        ),
    )
    .unwrap();
    let out = d.join("out");
    let report = |extra: &[&str]| -> String {
        let mut args: Vec<&std::ffi::OsStr> = vec!["run".as_ref(), m.as_os_str()];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        args.extend(["--out".as_ref(), out.as_os_str()]);
        let o = rdna2spv(&args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            !out.join("y.bin").exists(),
            "{extra:?}: a partial output was written"
        );
        err.lines()
            .find(|l| l.contains("outside every allocation"))
            .unwrap_or_else(|| panic!("{extra:?}: no fault report in {err}"))
            .to_string()
    };
    let host = report(&["--backend", "host"]);
    let device = report(&["--backend", "vulkan", "--checked"]);
    assert!(
        host.contains("workgroup [1, 0, 0], wave 0, pc 0x") && host.contains("(lane 0)"),
        "{host}"
    );
    let h = without_address(host.trim_start_matches(|c| c != 'w'));
    let v = without_address(device.trim_start_matches(|c| c != 'w'));
    // The device adds how many waves faulted; the rest is the evaluator's wording. 1,024 work-items are 32
    // waves of 32; the 64 work-items of workgroup 0 (2 waves) stay inside the buffers.
    assert!(v.starts_with(&h), "host:   {h}\ndevice: {v}");
    assert!(v.contains("[30 of 32 waves faulted]"), "{v}");
    let _ = std::fs::remove_dir_all(&d);
}

/// Runs `manifest` on lavapipe in checked mode with pointer argument buffer `redirect` bound to a canary
/// buffer that is not registered; returns the error and the canary's contents afterwards.
fn run_into_canary(manifest: &str, redirect: usize) -> (RunError, Vec<u8>, Vec<Vec<u8>>) {
    let m = Manifest::load(&fixture(manifest)).unwrap();
    let mut plan = Plan::new(&m).unwrap();
    let ctx = open(None).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let mut bufs = Vec::new();
    for b in &plan.buffers {
        let mut buf = ctx.create_buffer((b.data.len() as u64).max(4)).unwrap();
        buf.upload(0, &b.data).unwrap();
        bufs.push(buf);
    }
    let pattern: Vec<u8> = (0..plan.buffers[redirect].data.len())
        .map(|i| (i * 7 + 3) as u8)
        .collect();
    let mut canary = ctx.create_buffer(pattern.len() as u64).unwrap();
    canary.upload(0, &pattern).unwrap();
    let mut addresses: Vec<u64> = bufs.iter().map(|b| b.device_address()).collect();
    let allocations: Vec<(u64, u64)> = addresses
        .iter()
        .zip(&plan.buffers)
        .map(|(&a, b)| (a, b.data.len() as u64))
        .collect();
    addresses[redirect] = canary.device_address();
    plan.bind(&addresses, plan.launch.grid).unwrap();
    // The kernarg segment now holds the canary's address: upload it again.
    let k = plan.kernarg_index();
    bufs[k].upload(0, &plan.buffers[k].data).unwrap();
    let e = run_program_checked(
        &ctx,
        &plan.program,
        &plan.launch,
        &prof,
        &LowerOptions::default(),
        &allocations,
    )
    .expect_err("the run faults");
    let after = canary.download_all().unwrap();
    let others = bufs
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != redirect && i != k)
        .map(|(_, b)| b.download_all().unwrap())
        .collect();
    assert_eq!(after, pattern, "the canary was written: {e}");
    (e, after, others)
}

/// saxpy's y pointer aimed at unregistered memory: the first fault is wave 0's load of y, lane 0; y's
/// stores are redirected too, so the canary comes back as it went in, and x is untouched.
#[test]
fn unregistered_memory_is_neither_read_nor_written() {
    let (e, _, others) = run_into_canary("fixtures/run/saxpy.toml", 1);
    match &e {
        RunError::OutOfBounds {
            workgroup,
            wave,
            lane,
            kind,
            bytes,
            text,
            count,
            ..
        } => {
            assert_eq!((*workgroup, *wave, *lane), ([0, 0, 0], 0, Some(0)), "{e}");
            assert_eq!((*kind, *bytes), ("load", 4), "{e}");
            assert!(
                text.as_deref()
                    .unwrap_or("")
                    .starts_with("global_load_dword"),
                "{e}"
            );
            // 1,000 work-items in waves of 32: every one of the 32 waves touches y.
            assert_eq!(*count, 32, "every wave touches y: {e}");
        }
        e => panic!("expected an out-of-bounds report, got {e}"),
    }
    let x = std::fs::read(fixture("fixtures/run/saxpy.x.bin")).unwrap();
    assert_eq!(others[0], x, "x changed");
}

/// ids3d only stores: its first fault is a store, by the first lane of wave 0 of workgroup 0.
#[test]
fn a_store_fault_is_named_as_a_store() {
    let (e, _, _) = run_into_canary("fixtures/run/ids3d.toml", 0);
    match &e {
        RunError::OutOfBounds {
            workgroup,
            wave,
            lane,
            kind,
            bytes,
            text,
            ..
        } => {
            assert_eq!((*workgroup, *wave, *lane), ([0, 0, 0], 0, Some(0)), "{e}");
            assert_eq!((*kind, *bytes), ("store", 4), "{e}");
            assert!(
                text.as_deref().unwrap_or("").starts_with("global_store"),
                "{e}"
            );
        }
        e => panic!("expected an out-of-bounds report, got {e}"),
    }
}
