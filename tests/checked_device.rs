//! Checked mode on the device (the default of `run` since D158; issue 9): a global access outside every allocation is
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
use rdna2spv_spirv::lower::{LowerOptions, Mapping};
use rdna2spv_vulkan::{run_program, RunError, RunOptions};

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
    let device = report(&["--backend", "vulkan"]);
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
    let e = run_program(
        &ctx,
        &plan.program,
        &plan.launch,
        &prof,
        &RunOptions {
            lower: LowerOptions::default(),
            allocations: &allocations,
        },
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

/// How many instructions of opcode `op` a SPIR-V module's words hold (walked instruction by instruction
/// from the header's end).
fn count_op(words: &[u32], op: u32) -> usize {
    let (mut n, mut at) = (0, 5);
    while at < words.len() {
        let len = (words[at] >> 16) as usize;
        n += usize::from(words[at] & 0xffff == op);
        at += len.max(1);
    }
    n
}

/// A wave32 gfx1030 program from its instruction words.
fn program_of(name: &str, words: &[u32]) -> rdna2spv_ir::Program {
    use rdna2spv_ir::lift::{lift, LiftOptions};
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    lift(
        name,
        &code,
        LiftOptions {
            target: rdna2spv_isa::Target::Gfx1030,
            wave_size: 32,
            private_segment_buffer: None,
        },
    )
    .unwrap()
}

/// One workgroup of 32 work-items (one wave) with 256 bytes of LDS, buffer address `a[i]` in s[2i:2i+1].
fn launch_wave32(a: &[u64]) -> rdna2spv_eval::Launch {
    rdna2spv_eval::Launch {
        wave_size: 32,
        grid: [32, 1, 1],
        workgroup: [32, 1, 1],
        sgprs: a
            .iter()
            .enumerate()
            .flat_map(|(i, &x)| {
                [
                    (2 * i as u16, rdna2spv_eval::SgprInit::Const(x as u32)),
                    (
                        2 * i as u16 + 1,
                        rdna2spv_eval::SgprInit::Const((x >> 32) as u32),
                    ),
                ]
            })
            .collect(),
        workitem_id_vgprs: 1,
        lds_bytes: 256,
        scratch_bytes: 0,
        max_steps_per_wave: 10_000,
        code_base: None,
    }
}

/// LDS accesses at addresses read from memory (L8 cannot describe them: checked mode tests them), on the
/// evaluator and as a checked device run with fault records; both outcomes, the errors as text.
///
/// Kernel (words from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`):
///   v_lshlrev_b32_e32 v2, 2, v0                 ; [0x82,0x00,0x04,0x34]
///   global_load_dword v1, v2, s[0:1]            ; [0x00,0x80,0x30,0xdc,0x02,0x00,0x00,0x01]
///   s_waitcnt vmcnt(0)                          ; [0x70,0x3f,0x8c,0xbf]
///   ds_write_b32 v1, v1 offset:4                ; [0x04,0x00,0x34,0xd8,0x01,0x01,0x00,0x00]
///   s_waitcnt lgkmcnt(0)                        ; [0x7f,0xc0,0x8c,0xbf]
///   ds_read_b32 v3, v1                          ; [0x00,0x00,0xd8,0xd8,0x01,0x00,0x00,0x03]
///   s_waitcnt lgkmcnt(0)                        ; [0x7f,0xc0,0x8c,0xbf]
///   global_store_dword v2, v3, s[2:3]           ; [0x00,0x80,0x70,0xdc,0x02,0x03,0x02,0x00]
///   s_endpgm                                    ; [0x00,0x00,0x81,0xbf]
/// Lane i's LDS address is `addrs[i]`: it stores at `addrs[i] + 4` and reads at `addrs[i]`.
fn lds_store_at(addrs: &[u32; 32]) -> (Result<(), String>, Result<(), String>) {
    use rdna2spv_eval::Memory;
    let words: [u32; 15] = [
        0x3404_0082,
        0xdc30_8000,
        0x0100_0002,
        0xbf8c_3f70,
        0xd834_0004,
        0x0000_0101,
        0xbf8c_c07f,
        0xd8d8_0000,
        0x0300_0001,
        0xbf8c_c07f,
        0xdc70_8000,
        0x0002_0302,
        0xbf81_0000,
        0,
        0,
    ];
    let p = program_of("lds_oob", &words);
    let input: Vec<u8> = addrs.iter().flat_map(|a| a.to_le_bytes()).collect();
    let host_addrs = [0x1_0000_0000u64, 0x1_0001_0000];
    let mut mem = Memory::default();
    mem.add("in", host_addrs[0], input.clone()).unwrap();
    mem.add("out", host_addrs[1], vec![0; 128]).unwrap();
    let host = rdna2spv_eval::run(&p, &launch_wave32(&host_addrs), &mut mem)
        .map(|_| ())
        .map_err(|e| e.to_string());

    let ctx = open(None).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let mut bin = ctx.create_buffer(128).unwrap();
    bin.upload(0, &input).unwrap();
    let bout = ctx.create_buffer(128).unwrap();
    let a = [bin.device_address(), bout.device_address()];
    let device = run_program(
        &ctx,
        &p,
        &launch_wave32(&a),
        &prof,
        &RunOptions {
            lower: LowerOptions::default(),
            allocations: &[(a[0], 128), (a[1], 128)],
        },
    )
    .map(|_| ())
    .map_err(|e| e.to_string());
    (host, device)
}

/// An LDS access past the workgroup's LDS: the evaluator faults, and the checked device run names the same
/// wave, pc, lane, kind, size and address (LDS addresses are the same on both: byte offsets from 0).
#[test]
fn lds_out_of_bounds_is_trapped_on_both_backends() {
    // Lane i writes LDS bytes 4i+4..4i+8 of 256; lane 7 is given 250, so it writes 254..258.
    let mut addrs: [u32; 32] = std::array::from_fn(|i| 4 * i as u32);
    addrs[7] = 250;
    let (host, device) = lds_store_at(&addrs);
    let host = host.expect_err("the evaluator traps");
    assert!(
        host.contains("store of 4 bytes at 0xfe is outside every allocation (lane 7)"),
        "{host}"
    );
    let e = device.expect_err("the checked run traps");
    // The evaluator's words, then the device's count of faulting waves.
    assert!(e.starts_with(&host), "host:   {host}\ndevice: {e}");
    assert!(e.ends_with("[1 of 1 waves faulted]"), "{e}");
}

/// The LDS test at its edge (D248's 32-bit form `a <= lds_bytes - bytes`), the same outcome on both
/// backends: a store of bytes 252..256 is the last inside 256 bytes, one at 253..257 the first outside;
/// at `2^32 - 6` the store's 32-bit sum `2^32 - 2` is outside (its 64-bit end would not be), and at
/// `2^32 - 4` the sum wraps to 0, inside, and the read at `2^32 - 4` is what faults.
#[test]
fn the_lds_test_is_exact_at_the_end_of_the_lds() {
    for (at, inside) in [
        (248u32, true),
        (249, false),
        (u32::MAX - 5, false),
        (u32::MAX - 3, false),
    ] {
        let mut addrs: [u32; 32] = std::array::from_fn(|i| 4 * i as u32);
        addrs[7] = at;
        let (host, device) = lds_store_at(&addrs);
        assert_eq!(host.is_ok(), inside, "address {at}: {host:?}");
        match (host, device) {
            (Ok(()), d) => d.expect("the checked run finishes"),
            (Err(h), d) => {
                let kind = if at == u32::MAX - 3 {
                    "LDS load"
                } else {
                    "LDS store"
                };
                assert!(h.contains(kind), "address {at}: {h}");
                let d = d.expect_err("the checked run traps");
                assert!(d.starts_with(&h), "host:   {h}\ndevice: {d}");
            }
        }
    }
}

/// spmv's plan with `col` as its column indices and its buffers made on `ctx` and bound at their device
/// addresses, pointer argument `shift` (buffer index, bytes) bound that many bytes below its buffer (the
/// allocations a checked run registers are the buffers as placed). Returns the plan, the buffers and their
/// addresses.
fn spmv_bound<'a>(
    ctx: &'a rdna2spv_vulkan::Context,
    col: &[u8],
    shift: Option<(usize, u64)>,
) -> (Plan, Vec<rdna2spv_vulkan::Buffer<'a>>, Vec<u64>) {
    let m = Manifest::load(&fixture("fixtures/run/spmv.toml")).unwrap();
    let mut plan = Plan::new(&m).unwrap();
    let original = std::fs::read(fixture("fixtures/run/spmv.col.bin")).unwrap();
    let ci = plan
        .buffers
        .iter()
        .position(|b| b.data == original)
        .expect("the col buffer");
    plan.buffers[ci].data = col.to_vec();
    let mut bufs = Vec::new();
    for b in &plan.buffers {
        bufs.push(ctx.create_buffer((b.data.len() as u64).max(4)).unwrap());
    }
    let addresses: Vec<u64> = bufs.iter().map(|b| b.device_address()).collect();
    let mut bound = addresses.clone();
    if let Some((i, bytes)) = shift {
        bound[i] -= bytes;
    }
    plan.bind(&bound, plan.launch.grid).unwrap();
    (plan, bufs, addresses)
}

fn upload(plan: &Plan, bufs: &mut [rdna2spv_vulkan::Buffer<'_>]) {
    for (buf, b) in bufs.iter_mut().zip(&plan.buffers) {
        buf.upload(0, &b.data).unwrap();
    }
}

fn spmv_options(plan: &Plan, mapping: Mapping, flag_only: bool) -> LowerOptions {
    LowerOptions {
        mapping,
        segments: plan.segments(),
        check_flag_only: flag_only,
        ..LowerOptions::default()
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// D189: in the run without records, spmv's loop loads (`col[j]`, `val[j]`, the gather `x[col[j]]`, their
/// addresses formed from the kernarg's pointer pairs) are tested against the allocation chosen for their
/// pair. One column index 2^26 on the third iteration of its row: the run without records stops with the
/// flag (naming the row's workgroup and wave), and the module with records names the access exactly — the
/// row's lane, the gather's pc (0x100, fixtures/kernels/spmv.objdump.txt) and the address x + 4 * 2^26
/// (x's address as placed) — in both mappings.
#[test]
fn a_loop_fault_on_a_later_iteration_is_flagged_and_named() {
    let rp = words(&std::fs::read(fixture("fixtures/run/spmv.row_ptr.bin")).unwrap());
    let row = rp
        .windows(2)
        .position(|w| w[1] >= w[0] + 3)
        .expect("a row of three entries");
    let entry = rp[row] as usize + 2;
    let mut col = std::fs::read(fixture("fixtures/run/spmv.col.bin")).unwrap();
    col[4 * entry..4 * entry + 4].copy_from_slice(&(1u32 << 26).to_le_bytes());
    let ctx = open(None).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let (plan, mut bufs, addresses) = spmv_bound(&ctx, &col, None);
    let x = std::fs::read(fixture("fixtures/run/spmv.x.bin")).unwrap();
    let xi = plan.buffers.iter().position(|b| b.data == x).unwrap();
    let allocations: Vec<(u64, u64)> = addresses
        .iter()
        .zip(&plan.buffers)
        .map(|(&a, b)| (a, b.data.len() as u64))
        .collect();
    let (wg, wave, lane) = ((row / 64) as u32, (row % 64 / 32) as u32, (row % 32) as u32);
    for mapping in [Mapping::Lane, Mapping::Wave] {
        for flag_only in [true, false] {
            upload(&plan, &mut bufs);
            let e = run_program(
                &ctx,
                &plan.program,
                &plan.launch,
                &prof,
                &RunOptions {
                    lower: spmv_options(&plan, mapping, flag_only),
                    allocations: &allocations,
                },
            )
            .expect_err("the run faults");
            match (&e, flag_only) {
                (
                    RunError::FaultUnrecorded {
                        workgroup, wave: w, ..
                    },
                    true,
                ) => assert_eq!((*workgroup, *w), ([wg, 0, 0], wave), "{mapping:?}: {e}"),
                (
                    RunError::OutOfBounds {
                        workgroup,
                        wave: w,
                        pc,
                        text,
                        lane: l,
                        address,
                        kind,
                        bytes,
                        ..
                    },
                    false,
                ) => {
                    assert_eq!(
                        (*workgroup, *w, *l, *pc),
                        ([wg, 0, 0], wave, Some(lane), 0x100),
                        "{mapping:?}: {e}"
                    );
                    assert_eq!(*address, addresses[xi] + (4u64 << 26), "{mapping:?}: {e}");
                    assert_eq!((*kind, *bytes), ("load", 4), "{mapping:?}: {e}");
                    assert!(
                        text.as_deref()
                            .unwrap_or("")
                            .starts_with("global_load_dword v11, v[11:12], off"),
                        "{mapping:?}: {e}"
                    );
                }
                _ => panic!("{mapping:?}, flag only {flag_only}: {e}"),
            }
        }
    }
}

/// D189's narrowed test is conservative: spmv with its `x` pointer bound 1 MiB below x's buffer (inside no
/// allocation, or another one) and every column index raised by 2^18, so that every gather lands inside
/// x — in bounds for the evaluator, which checks the address against every allocation. The run without
/// records cannot place the pair and flags the run; the module with records (what `run` lowers next,
/// src/device.rs) finds no fault, and its `y` is bit for bit the host evaluator's on the same placement, and
/// the plain spmv's.
#[test]
fn an_access_outside_its_pairs_allocation_goes_to_the_module_with_records() {
    let col = std::fs::read(fixture("fixtures/run/spmv.col.bin")).unwrap();
    let raised: Vec<u8> = words(&col)
        .iter()
        .flat_map(|c| (c + (1 << 18)).to_le_bytes())
        .collect();
    let x = std::fs::read(fixture("fixtures/run/spmv.x.bin")).unwrap();
    let m = Manifest::load(&fixture("fixtures/run/spmv.toml")).unwrap();
    let xi = Plan::new(&m)
        .unwrap()
        .buffers
        .iter()
        .position(|b| b.data == x)
        .unwrap();
    let ctx = open(None).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let (plan, mut bufs, addresses) = spmv_bound(&ctx, &raised, Some((xi, 1 << 20)));
    let allocations: Vec<(u64, u64)> = addresses
        .iter()
        .zip(&plan.buffers)
        .map(|(&a, b)| (a, b.data.len() as u64))
        .collect();
    // The host evaluator on the same placement, and the plain spmv on its own.
    let mut mem = rdna2spv_eval::Memory::default();
    for (i, b) in plan.buffers.iter().enumerate() {
        mem.add(&format!("buf{i}"), addresses[i], b.data.clone())
            .unwrap();
    }
    rdna2spv_eval::run(&plan.program, &plan.launch, &mut mem).expect("in bounds on the host");
    let yi = plan
        .buffers
        .iter()
        .position(|b| b.output.is_some())
        .unwrap();
    let host_y = mem.allocation(&format!("buf{yi}")).unwrap().data.clone();
    let (plain, _plain_bufs, plain_addr) = spmv_bound(&ctx, &col, None);
    let mut mem = rdna2spv_eval::Memory::default();
    for (i, b) in plain.buffers.iter().enumerate() {
        mem.add(&format!("buf{i}"), plain_addr[i], b.data.clone())
            .unwrap();
    }
    rdna2spv_eval::run(&plain.program, &plain.launch, &mut mem).unwrap();
    assert_eq!(
        host_y,
        mem.allocation(&format!("buf{yi}")).unwrap().data,
        "the raised indices reach the same x"
    );
    for mapping in [Mapping::Lane, Mapping::Wave] {
        upload(&plan, &mut bufs);
        let run = |flag_only: bool| {
            run_program(
                &ctx,
                &plan.program,
                &plan.launch,
                &prof,
                &RunOptions {
                    lower: spmv_options(&plan, mapping, flag_only),
                    allocations: &allocations,
                },
            )
        };
        match run(true) {
            Err(RunError::FaultUnrecorded { .. }) => {}
            other => panic!("{mapping:?}: the narrowed run should flag: {other:?}"),
        }
        upload(&plan, &mut bufs);
        run(false).unwrap_or_else(|e| panic!("{mapping:?}: with records: {e}"));
        let y = bufs[yi].download_all().unwrap();
        assert_eq!(&y[..host_y.len()], &host_y[..], "{mapping:?}: y");
    }
}

/// D189's narrowing, counted in the modules (no dispatch): spmv (six allocations: five buffers and the
/// kernarg segment) lowered for a checked run with records tests each of its five global accesses against
/// every allocation; without records, the three loads of its row loop (addresses formed from the pointer
/// pairs s[10:11], s[12:13], s[14:15], written before the loop) are tested against one allocation each.
/// So the module without records has 3 × (6 − 1) = 15 fewer `OpULessThan`, in both mappings; the loads
/// outside the loop (row_ptr, y) keep the full test (narrowing pays only in loops).
#[test]
fn spmv_loop_loads_are_tested_against_one_allocation() {
    let ult = |words: &[u32]| count_op(words, 176); // OpULessThan
    let m = Manifest::load(&fixture("fixtures/run/spmv.toml")).unwrap();
    let plan = Plan::new(&m).unwrap();
    assert_eq!(
        plan.buffers.len(),
        6,
        "five buffers and the kernarg segment"
    );
    let ctx = open(None).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let allocations: Vec<(u64, u64)> = (0..6).map(|i| (0x1000_0000 * (i + 1), 4096)).collect();
    for mapping in [Mapping::Lane, Mapping::Wave] {
        let lower = |flag_only| {
            rdna2spv_vulkan::lower_for_run(
                &ctx,
                &plan.program,
                &plan.launch,
                &prof,
                &RunOptions {
                    lower: spmv_options(&plan, mapping, flag_only),
                    allocations: &allocations,
                },
            )
            .unwrap()
        };
        let (with, without) = (ult(&lower(false)), ult(&lower(true)));
        assert_eq!(
            with - without,
            15,
            "{mapping:?}: {with} with records, {without} without"
        );
    }
}

/// D189, amended: a lane's load is guarded by its exec bit and its bounds test together, and only a lane
/// that makes the access can fault. spmv as shipped is in bounds, while lanes that are off in its row loop
/// hold addresses that may not be (fixtures/kernels/spmv.s): the work-items past the last row and those
/// with an empty row never write `v[7:10]`, and a lane whose row has ended keeps its pointers one entry
/// past it (the last row's: one past the end of `col` and `val`). The run without records must finish
/// without the flag, and the module with records without a fault, in both mappings.
#[test]
fn off_lanes_addresses_are_not_faults() {
    let col = std::fs::read(fixture("fixtures/run/spmv.col.bin")).unwrap();
    let ctx = open(None).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let (plan, mut bufs, addresses) = spmv_bound(&ctx, &col, None);
    let allocations: Vec<(u64, u64)> = addresses
        .iter()
        .zip(&plan.buffers)
        .map(|(&a, b)| (a, b.data.len() as u64))
        .collect();
    for mapping in [Mapping::Lane, Mapping::Wave] {
        for flag_only in [true, false] {
            upload(&plan, &mut bufs);
            let r = run_program(
                &ctx,
                &plan.program,
                &plan.launch,
                &prof,
                &RunOptions {
                    lower: spmv_options(&plan, mapping, flag_only),
                    allocations: &allocations,
                },
            );
            if let Err(e) = r {
                panic!("{mapping:?}, flag only {flag_only}: {e}");
            }
        }
    }
}

/// L47 (D248): checked mode leaves out the bounds test of an LDS access the lane plan proves inside the
/// LDS for every lane that performs it (L8's lane-indexed addresses), and keeps it where a lane passes
/// the end. Two kernels differing only in the lane stride (words from `llvm-mc-19 -arch=amdgcn
/// -mcpu=gfx1030 -show-encoding`), 256 bytes of LDS, 32 lanes:
///   v_lshlrev_b32_e32 v1, S, v0                 ; S = 2: [0x82,0x00,0x02,0x34], S = 6: [0x86,…]
///   v_mov_b32_e32 v2, v0                        ; [0x00,0x03,0x04,0x7e]
///   ds_write_b32 v1, v2 offset:4                ; [0x04,0x00,0x34,0xd8,0x01,0x02,0x00,0x00]
///   s_waitcnt lgkmcnt(0)                        ; [0x7f,0xc0,0x8c,0xbf]
///   ds_read_b32 v3, v1 offset:4                 ; [0x04,0x00,0xd8,0xd8,0x01,0x00,0x00,0x03]
///   s_waitcnt lgkmcnt(0)                        ; [0x7f,0xc0,0x8c,0xbf]
///   global_store_dword v1, v3, s[0:1]           ; [0x00,0x80,0x70,0xdc,0x01,0x03,0x00,0x00]
///   s_endpgm                                    ; [0x00,0x00,0x81,0xbf]
/// Stride 4 (S = 2) touches bytes 4..132: the lane module has no LDS test (one with L8's facts turned
/// off, the control: every LDS access fenced, so the two equal compares of the same address sit in
/// different blocks, and D263's `hoist` makes them one in their common dominator), and the device run
/// gives the evaluator's output. Stride 64 (S = 6): lane 4 writes 0x104, outside; the
/// tests stay and the device run names the evaluator's fault.
#[test]
fn lds_accesses_proven_inside_are_not_tested() {
    use rdna2spv_eval::Memory;
    // The LDS bounds test: `OpULessThanEqual` of the 32-bit address and `lds_bytes - bytes` (D248).
    let ule = |words: &[u32]| count_op(words, 178);
    let ctx = open(None).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    for shift in [2u32, 6] {
        let words: [u32; 13] = [
            0x3402_0080 | shift,
            0x7e04_0300,
            0xd834_0004,
            0x0000_0201,
            0xbf8c_c07f,
            0xd8d8_0004,
            0x0300_0001,
            0xbf8c_c07f,
            0xdc70_8000,
            0x0000_0301,
            0xbf81_0000,
            0,
            0,
        ];
        let p = program_of("lds_within", &words);
        let out_bytes = 32u64 << shift;
        let launch_at = |a: u64| launch_wave32(&[a]);
        let host_addr = 0x1_0000_0000u64;
        let mut mem = Memory::default();
        mem.add("out", host_addr, vec![0; out_bytes as usize])
            .unwrap();
        let host = rdna2spv_eval::run(&p, &launch_at(host_addr), &mut mem);

        let bout = ctx.create_buffer(out_bytes).unwrap();
        let a = bout.device_address();
        let allocations = [(a, out_bytes)];
        let options = |fences_all, flag_only| RunOptions {
            lower: LowerOptions {
                mapping: Mapping::Lane,
                check_flag_only: flag_only,
                lane_lds_fences_all: fences_all,
                ..LowerOptions::default()
            },
            allocations: &allocations,
        };
        let tests = |fences_all| {
            ule(&rdna2spv_vulkan::lower_for_run(
                &ctx,
                &p,
                &launch_at(a),
                &prof,
                &options(fences_all, true),
            )
            .unwrap())
        };
        assert_eq!(
            tests(true),
            1,
            "stride {}: the control keeps the accesses' test (one compare, D263)",
            1 << shift
        );
        // The module `run` compiles first (the flag alone), and the one with fault records.
        let flagged = run_program(&ctx, &p, &launch_at(a), &prof, &options(false, true));
        let device = run_program(&ctx, &p, &launch_at(a), &prof, &options(false, false));
        if shift == 2 {
            assert_eq!(tests(false), 0, "every lane's accesses are inside");
            host.expect("the evaluator finishes");
            flagged.expect("the checked device run finishes");
            device.expect("the run with records finishes");
            let h = mem.allocation("out").unwrap().data.clone();
            let d = bout.download_all().unwrap();
            assert_eq!(d, h, "device and host outputs");
            let lanes: Vec<u8> = (0..32u32).flat_map(|x| x.to_le_bytes()).collect();
            assert_eq!(h, lanes, "lane x reads back x");
        } else {
            // Both accesses keep their test: the same address and size, and no barrier between them
            // (L8: each lane reads its own dword), so `common` makes the two compares one.
            assert_eq!(tests(false), 1, "lanes 4.. pass the end: tested");
            let host = host.expect_err("the evaluator traps").to_string();
            assert!(
                host.contains("LDS store of 4 bytes at 0x104") && host.contains("(lane 4)"),
                "{host}"
            );
            assert!(matches!(flagged, Err(RunError::FaultUnrecorded { .. })));
            let e = device.expect_err("the run with records traps").to_string();
            assert!(e.starts_with(&host), "host:   {host}\ndevice: {e}");
        }
    }
}

/// D272: an LDS access's dword index is `(base >> 2) + offset / 4` only where the lane plan shows that
/// `base + offset` cannot wrap around 2^32; elsewhere it stays `(base + offset) >> 2`. Two kernels
/// differing in one inline constant (words from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`),
/// 256 bytes of LDS, 32 lanes:
///   v_lshlrev_b32_e32 v1, 2, v0                 ; [0x82,0x00,0x02,0x34]
///   v_add_nc_u32_e32 v1, K, v1                  ; K = -16: [0xd0,0x02,0x02,0x4a], K = 0: [0x80,…]
///   v_mov_b32_e32 v2, v0                        ; [0x00,0x03,0x04,0x7e]
///   ds_write_b32 v1, v2 offset:16               ; [0x10,0x00,0x34,0xd8,0x01,0x02,0x00,0x00]
///   s_waitcnt lgkmcnt(0)                        ; [0x7f,0xc0,0x8c,0xbf]
///   ds_read_b32 v3, v1 offset:16                ; [0x10,0x00,0xd8,0xd8,0x01,0x00,0x00,0x03]
///   s_waitcnt lgkmcnt(0)                        ; [0x7f,0xc0,0x8c,0xbf]
///   v_lshlrev_b32_e32 v4, 2, v0                 ; [0x82,0x00,0x08,0x34]
///   global_store_dword v4, v3, s[0:1]           ; [0x00,0x80,0x70,0xdc,0x04,0x03,0x00,0x00]
///   s_endpgm                                    ; [0x00,0x00,0x81,0xbf]
/// With K = -16 lanes 0..3 hold a base of 2^32 - 16 + 4x, and only the 32-bit sum with the offset
/// (4x) is inside: the module keeps the sum. With K = 0 no sum wraps and the index is split. Either
/// way lane x writes x at byte 4x and reads it back (hand-worked), and the device matches the evaluator.
/// The module's form is asserted, not only the output: with the split index forced on the K = -16
/// kernel (mutation), lanes 0..3 index dword 2^30 + x, past the Workgroup array, and lavapipe's
/// out-of-bounds shared store and load happened to meet, so the output alone did not show it.
#[test]
fn lds_index_split_only_where_the_sum_cannot_wrap() {
    use rdna2spv_eval::Memory;
    let ctx = open(None).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    // Whether the module computes some `(x + 16) >> 2` (the sum form) and some `(x >> 2) + 4` (split).
    let forms = |words: &[u32]| {
        let mut defs: std::collections::HashMap<u32, (u32, Vec<u32>)> = Default::default();
        let mut konst: std::collections::HashMap<u32, u32> = Default::default();
        let mut at = 5;
        while at < words.len() {
            let (len, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
            let w = &words[at..at + len.max(1)];
            match op {
                // OpConstant %t %r value (32-bit)
                43 if len == 4 => {
                    konst.insert(w[2], w[3]);
                }
                // OpIAdd, OpShiftRightLogical: %t %r a b
                128 | 194 if len == 5 => {
                    defs.insert(w[2], (op, vec![w[3], w[4]]));
                }
                _ => {}
            }
            at += len.max(1);
        }
        let is = |x: u32, op: u32, k: u32| {
            defs.get(&x)
                .is_some_and(|(o, a)| *o == op && a.iter().any(|y| konst.get(y) == Some(&k)))
        };
        let sum = defs
            .values()
            .any(|(o, a)| *o == 194 && konst.get(&a[1]) == Some(&2) && is(a[0], 128, 16));
        let split = defs.values().any(|(o, a)| {
            *o == 128
                && a.iter().any(|&y| is(y, 194, 2))
                && a.iter().any(|y| konst.get(y) == Some(&4))
        });
        (sum, split)
    };
    for (k, inline) in [(-16i32, 0xd0u32), (0, 0x80)] {
        let words: [u32; 15] = [
            0x3402_0082,
            0x4a02_0200 | inline,
            0x7e04_0300,
            0xd834_0010,
            0x0000_0201,
            0xbf8c_c07f,
            0xd8d8_0010,
            0x0300_0001,
            0xbf8c_c07f,
            0x3408_0082,
            0xdc70_8000,
            0x0000_0304,
            0xbf81_0000,
            0,
            0,
        ];
        let p = program_of("lds_split", &words);
        let host_addr = 0x1_0000_0000u64;
        let mut mem = Memory::default();
        mem.add("out", host_addr, vec![0; 128]).unwrap();
        rdna2spv_eval::run(&p, &launch_wave32(&[host_addr]), &mut mem)
            .expect("the evaluator finishes");
        let h = mem.allocation("out").unwrap().data.clone();
        let lanes: Vec<u8> = (0..32u32).flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(h, lanes, "K = {k}: lane x reads back x");

        let bout = ctx.create_buffer(128).unwrap();
        let a = bout.device_address();
        let allocations = [(a, 128)];
        let options = lane_flag_only(&allocations);
        let module =
            rdna2spv_vulkan::lower_for_run(&ctx, &p, &launch_wave32(&[a]), &prof, &options)
                .unwrap();
        let (sum, split) = forms(&module);
        if k < 0 {
            assert!(sum && !split, "K = {k}: the base may wrap, the sum stays");
        } else {
            assert!(split && !sum, "K = {k}: no sum wraps, the index is split");
        }
        run_program(&ctx, &p, &launch_wave32(&[a]), &prof, &options)
            .expect("the device run finishes");
        assert_eq!(
            bout.download_all().unwrap(),
            h,
            "K = {k}: device and host outputs"
        );
    }
}

/// Run options of the lane mapping's module without fault records (the flag only), over `allocations`.
fn lane_flag_only(allocations: &[(u64, u64)]) -> RunOptions<'_> {
    RunOptions {
        lower: LowerOptions {
            mapping: Mapping::Lane,
            check_flag_only: true,
            ..LowerOptions::default()
        },
        allocations,
    }
}

/// D274: a 64-bit sum the lifting makes of words (`v_lshlrev_b64` on the halves, D229; the carry between
/// `v_add_co_u32` and `v_add_co_ci_u32`, D220) and then reads as a u64 (`v_lshrrev_b64` by a VGPR,
/// `v_cmp_gt_u64`) is computed as u64 shifts and adds in the lane module, and the words it also stores
/// read the u64's words. Lane x loads `x`, `y` (u64) and stores `s = x + (y << 3)`, `t = s + 0x1234`,
/// `t >> x`, `s > x`; the inputs make every carry happen (low words near 2^32, shifted-out bits). Oracle:
/// Rust's u64 arithmetic, then the evaluator against it and lavapipe against the evaluator, bit for bit;
/// the module's form is asserted (u64 adds of a u64 shift by 3, no `OpIAddCarry` left).
#[test]
fn sums_of_words_read_as_u64_are_u64_sums_on_the_device() {
    use rdna2spv_eval::Memory;
    let words: [u32; 24] = [
        0x3402_0084, // v_lshlrev_b32_e32 v1, 4, v0
        0xdc38_8000,
        0x0200_0001, // global_load_dwordx4 v[2:5], v1, s[0:1]
        0xbf8c_3f70, // s_waitcnt vmcnt(0)
        0xd6ff_0006,
        0x0002_0883, // v_lshlrev_b64 v[6:7], 3, v[4:5]
        0xd70f_6a06,
        0x0002_0d02, // v_add_co_u32 v6, vcc_lo, v2, v6
        0x500e_0f03, // v_add_co_ci_u32_e32 v7, vcc_lo, v3, v7, vcc_lo
        0xd70f_6a08,
        0x0001_ff06,
        0x0000_1234, // v_add_co_u32 v8, vcc_lo, v6, 0x1234
        0x5012_0e80, // v_add_co_ci_u32_e32 v9, vcc_lo, 0, v7, vcc_lo
        0xd700_000a,
        0x0002_1100, // v_lshrrev_b64 v[10:11], v0, v[8:9]
        0x7dc8_0506, // v_cmp_gt_u64_e32 vcc_lo, v[6:7], v[2:3]
        0xd501_000c,
        0x01a9_0280, // v_cndmask_b32_e64 v12, 0, 1, vcc_lo
        0x3402_0085, // v_lshlrev_b32_e32 v1, 5, v0
        0xdc78_8000,
        0x0002_0601, // global_store_dwordx4 v1, v[6:9], s[2:3]
        0xdc7c_8010,
        0x0002_0a01, // global_store_dwordx3 v1, v[10:12], s[2:3] offset:16
        0xbf81_0000, // s_endpgm
    ];
    let p = program_of("wide_sums", &words);
    // Inputs: carries out of the low words of x + (y << 3) and of + 0x1234, bits shifted out of y's
    // low word, wrap-around of the whole sum.
    let mut seed = 0x9e37_79b9u32;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let special: [(u64, u64); 8] = [
        (0xffff_ffff, 1),
        (0x0000_0001_ffff_fff8, 0x1fff_ffff),
        (0xffff_ffff_ffff_ffff, 1),
        (0xffff_edcb, 0),
        (0, 0xe000_0000),
        (0x8000_0000_0000_0000, 0x1000_0000_0000_0000),
        (0x1234_5678_ffff_ffff, 0xffff_ffff_ffff_ffff),
        (0, 0),
    ];
    let inputs: Vec<(u64, u64)> = (0..32)
        .map(|l| match special.get(l) {
            Some(&xy) => xy,
            None => {
                let x = (u64::from(next()) << 32) | u64::from(next() | 0xf000_0000);
                (x, (u64::from(next()) << 32) | u64::from(next()))
            }
        })
        .collect();
    let input: Vec<u8> = inputs
        .iter()
        .flat_map(|(x, y)| [x.to_le_bytes(), y.to_le_bytes()].concat())
        .collect();
    let want: Vec<u8> = inputs
        .iter()
        .enumerate()
        .flat_map(|(l, &(x, y))| {
            let s = x.wrapping_add(y << 3);
            let t = s.wrapping_add(0x1234);
            let z = t >> (l as u32 & 63);
            let c = u32::from(s > x);
            let w: [u32; 8] = [
                s as u32,
                (s >> 32) as u32,
                t as u32,
                (t >> 32) as u32,
                z as u32,
                (z >> 32) as u32,
                c,
                0,
            ];
            w.into_iter()
                .flat_map(u32::to_le_bytes)
                .collect::<Vec<u8>>()
        })
        .collect();
    assert!(inputs
        .iter()
        .any(|&(x, y)| (x as u32).checked_add((y << 3) as u32).is_none()));
    let (hin, hout) = (0x1_0000_0000u64, 0x2_0000_0000u64);
    let mut mem = Memory::default();
    mem.add("in", hin, input.clone()).unwrap();
    mem.add("out", hout, vec![0; 1024]).unwrap();
    rdna2spv_eval::run(&p, &launch_wave32(&[hin, hout]), &mut mem).expect("the evaluator finishes");
    let h = mem.allocation("out").unwrap().data.clone();
    assert_eq!(h, want, "the evaluator against u64 arithmetic");

    let ctx = open(None).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let mut bin = ctx.create_buffer(512).unwrap();
    bin.upload(0, &input).unwrap();
    let bout = ctx.create_buffer(1024).unwrap();
    let (a, b) = (bin.device_address(), bout.device_address());
    let allocations = [(a, 512), (b, 1024)];
    let options = lane_flag_only(&allocations);
    let module =
        rdna2spv_vulkan::lower_for_run(&ctx, &p, &launch_wave32(&[a, b]), &prof, &options).unwrap();
    run_program(&ctx, &p, &launch_wave32(&[a, b]), &prof, &options)
        .expect("the device run finishes");
    assert_eq!(bout.download_all().unwrap(), h, "device and host outputs");
    let (adds_of_shift, carries) = u64_adds_of_shift(&module, 3);
    assert!(
        adds_of_shift > 0,
        "x + (y << 3) is a u64 add of a u64 shift"
    );
    assert_eq!(carries, 0, "no word carry is left");
}

/// In a module: the u64 `OpIAdd`s with an operand that is a u64 `OpShiftLeftLogical` by the constant
/// `k`, and the `OpIAddCarry`s.
fn u64_adds_of_shift(words: &[u32], k: u64) -> (usize, usize) {
    let mut u64t = None;
    let mut konst: std::collections::HashMap<u32, u64> = Default::default();
    let mut shifts = std::collections::HashSet::new();
    let mut adds = Vec::new();
    let mut carries = 0;
    let mut at = 5;
    while at < words.len() {
        let (len, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        let w = &words[at..at + len.max(1)];
        match op {
            // OpTypeInt %r 64 0
            21 if len == 4 && w[2] == 64 && w[3] == 0 => u64t = Some(w[1]),
            // OpConstant %t %r value (32 or 64 bits)
            43 => {
                let v = u64::from(w[3]) | w.get(4).map_or(0, |&h| u64::from(h) << 32);
                konst.insert(w[2], v);
            }
            // OpShiftLeftLogical %t %r a b
            196 if Some(w[1]) == u64t && konst.get(&w[4]) == Some(&k) => {
                shifts.insert(w[2]);
            }
            // OpIAdd %t %r a b
            128 if Some(w[1]) == u64t => adds.push((w[3], w[4])),
            149 => carries += 1,
            _ => {}
        }
        at += len.max(1);
    }
    let n = adds
        .iter()
        .filter(|(a, b)| shifts.contains(a) || shifts.contains(b))
        .count();
    (n, carries)
}

/// The kernel of the many-allocation tests: lane i loads the u64 address at `in[8i]` (s[0:1]), loads
/// `bytes` (1, 4, 8 or 16) from it and stores them at `out[16i]` (s[2:3]). Its address comes from memory,
/// so no narrowing (D189) applies: every access is tested against every allocation. Words from
/// `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`:
///   v_lshlrev_b32_e32 v2, 3, v0                 ; [0x83,0x00,0x04,0x34]
///   global_load_dwordx2 v[4:5], v2, s[0:1]      ; [0x00,0x80,0x34,0xdc,0x02,0x00,0x00,0x04]
///   s_waitcnt vmcnt(0)                          ; [0x70,0x3f,0x8c,0xbf]
///   global_load_{ubyte,dword,dwordx2,dwordx4} v6.., v[4:5], off
///                                   ; [0x00,0x80,0x{20,30,34,38},0xdc,0x04,0x00,0x7d,0x06]
///   s_waitcnt vmcnt(0)                          ; [0x70,0x3f,0x8c,0xbf]
///   v_lshlrev_b32_e32 v3, 4, v0                 ; [0x84,0x00,0x06,0x34]
///   global_store_{dword,dword,dwordx2,dwordx4} v3, v6.., s[2:3]
///                                   ; [0x00,0x80,0x{70,70,74,78},0xdc,0x03,0x06,0x02,0x00]
///   s_endpgm                                    ; [0x00,0x00,0x81,0xbf]
fn load_through_pointers(bytes: u32) -> rdna2spv_ir::Program {
    let (load, store) = match bytes {
        1 => (0xdc20_8000, 0xdc70_8000),
        4 => (0xdc30_8000, 0xdc70_8000),
        8 => (0xdc34_8000, 0xdc74_8000),
        16 => (0xdc38_8000, 0xdc78_8000),
        _ => unreachable!("a width the kernel has"),
    };
    let words: [u32; 15] = [
        0x3404_0083,
        0xdc34_8000,
        0x0400_0002,
        0xbf8c_3f70,
        load,
        0x067d_0004,
        0xbf8c_3f70,
        0x3406_0084,
        store,
        0x0002_0603,
        0xbf81_0000,
        0,
        0,
        0,
        0,
    ];
    program_of(&format!("load_through_pointers_{bytes}"), &words)
}

/// Registered sizes of the many-allocation tests' allocations: twelve, with the pointer and output buffers
/// fourteen (a HIP program's checked launch registers every live allocation: rocSPARSE's programs hold
/// 7–29). Sizes below an access's width (1, 2, 4, 7, 8, 12) test the bounds that are 0 and the first
/// that is not.
const TABLE_SIZES: [u64; 12] = [64, 4, 2, 100, 16, 1, 48, 7, 256, 33, 8, 12];

/// Runs [`load_through_pointers`] with lane i's address `addr(bases)[i]` (`bases`: the allocations'
/// device addresses, in [`TABLE_SIZES`]' order) on the evaluator and as a checked device run with
/// `options`, every allocation at the same address on both; each outcome: the output bytes, or the
/// error as text.
type Outcome = Result<Vec<u8>, String>;
fn through_pointers(
    bytes: u32,
    addr: impl Fn(&[u64]) -> [u64; 32],
    lower: LowerOptions,
) -> (Outcome, Outcome) {
    use rdna2spv_eval::Memory;
    let ctx = open(None).unwrap();
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let p = load_through_pointers(bytes);
    // Each buffer 16 bytes longer than registered: what lies past a registered end is real memory.
    let data: Vec<Vec<u8>> = TABLE_SIZES
        .iter()
        .enumerate()
        .map(|(k, &n)| (0..n).map(|j| ((k as u64 + 1) * 16 + j) as u8).collect())
        .collect();
    let mut bufs: Vec<_> = data
        .iter()
        .map(|d| ctx.create_buffer(d.len() as u64 + 16).unwrap())
        .collect();
    for (b, d) in bufs.iter_mut().zip(&data) {
        b.upload(0, d).unwrap();
    }
    let bases: Vec<u64> = bufs.iter().map(|b| b.device_address()).collect();
    let lanes = addr(&bases);
    let input: Vec<u8> = lanes.iter().flat_map(|a| a.to_le_bytes()).collect();
    let mut bin = ctx.create_buffer(256).unwrap();
    bin.upload(0, &input).unwrap();
    let bout = ctx.create_buffer(512).unwrap();
    let io = [bin.device_address(), bout.device_address()];

    let mut mem = Memory::default();
    mem.add("in", io[0], input).unwrap();
    mem.add("out", io[1], vec![0; 512]).unwrap();
    for (k, d) in data.iter().enumerate() {
        mem.add(&format!("a{k}"), bases[k], d.clone()).unwrap();
    }
    let host = rdna2spv_eval::run(&p, &launch_wave32(&io), &mut mem)
        .map(|_| mem.allocation("out").unwrap().data.clone())
        .map_err(|e| e.to_string());

    // Registered in an order that is not the addresses'.
    let mut allocations: Vec<(u64, u64)> = bases.iter().copied().zip(TABLE_SIZES).rev().collect();
    allocations.extend([(io[0], 256), (io[1], 512)]);
    let device = run_program(
        &ctx,
        &p,
        &launch_wave32(&io),
        &prof,
        &RunOptions {
            lower,
            allocations: &allocations,
        },
    )
    .map(|_| bout.download_all().unwrap())
    .map_err(|e| e.to_string());
    (host, device)
}

/// Every lane inside: each allocation's first and last `bytes` (where it holds them; the last dword-aligned
/// ones for wider accesses, which the device needs aligned), the rest at the largest allocation's start.
fn inside_lanes(bytes: u32) -> impl Fn(&[u64]) -> [u64; 32] {
    move |bases: &[u64]| {
        let mut v: Vec<u64> = TABLE_SIZES
            .iter()
            .zip(bases)
            .filter(|(&n, _)| n >= bytes as u64)
            .flat_map(|(&n, &b)| [b, b + ((n - bytes as u64) & !(bytes.min(4) as u64 - 1))])
            .collect();
        v.resize(32, bases[8]);
        v.try_into().unwrap()
    }
}

/// Fourteen allocations, an access through a pointer read from memory: accesses at every allocation's
/// first and last bytes pass, on both mappings, with and without fault records, for each width with a
/// bound computed at entry (1, 4, 8) and one without (16, at the access): the device's outputs equal the
/// evaluator's.
#[test]
fn accesses_inside_any_of_many_allocations_pass() {
    for bytes in [1u32, 4, 8, 16] {
        for mapping in [Mapping::Wave, Mapping::Lane] {
            for flag_only in [true, false] {
                let lower = LowerOptions {
                    mapping,
                    check_flag_only: flag_only,
                    ..LowerOptions::default()
                };
                let (host, device) = through_pointers(bytes, inside_lanes(bytes), lower);
                let host = host.expect("the evaluator finishes");
                let device = device.unwrap_or_else(|e| {
                    panic!("{bytes} bytes, {mapping:?}, flag only {flag_only}: {e}")
                });
                assert_eq!(
                    device, host,
                    "{bytes} bytes, {mapping:?}, flag only {flag_only}"
                );
                assert_ne!(host, vec![0; 512], "the lanes read something");
            }
        }
    }
}

/// Fourteen allocations, faults where the evaluator's: one lane (7) of 32 reads 4 bytes at an address
/// inside none — straddling the end of the highest allocation, just below the lowest, at the end of an
/// allocation, at the start of one smaller than the access, at 0 and at 2^64 − 4 (whose `a - base`
/// wraps for no allocation) — and the checked run names the same lane, pc, kind, size and address as
/// the evaluator; the module without records flags it.
#[test]
fn accesses_outside_many_allocations_fault_as_on_the_host() {
    type Pick = fn(&[u64]) -> u64;
    let cases: [(&str, Pick); 6] = [
        ("straddling the highest end", |b| {
            let k = (0..b.len()).max_by_key(|&k| b[k]).unwrap();
            b[k] + TABLE_SIZES[k] - 3
        }),
        ("below the lowest base", |b| b.iter().min().unwrap() - 4),
        ("at an end", |b| b[3] + TABLE_SIZES[3]),
        ("inside an allocation of 2 bytes", |b| b[2]),
        ("at 0", |_| 0),
        ("at 2^64 - 4", |_| u64::MAX - 3),
    ];
    for (what, pick) in cases {
        let lanes = |b: &[u64]| {
            let mut v = inside_lanes(4)(b);
            v[7] = pick(b);
            v
        };
        for mapping in [Mapping::Wave, Mapping::Lane] {
            let lower = |flag_only| LowerOptions {
                mapping,
                check_flag_only: flag_only,
                ..LowerOptions::default()
            };
            let (host, device) = through_pointers(4, lanes, lower(false));
            let host = host.expect_err("the evaluator traps");
            assert!(host.contains("(lane 7)"), "{what}: {host}");
            let e = device.expect_err("the checked run traps");
            assert!(
                e.starts_with(&host),
                "{what}, {mapping:?}\nhost:   {host}\ndevice: {e}"
            );
            let (_, flagged) = through_pointers(4, lanes, lower(true));
            let flagged = flagged.expect_err("the flag-only run flags it");
            assert!(
                flagged.contains("outside every allocation")
                    && flagged.contains("no fault records"),
                "{what}, {mapping:?}: {flagged}"
            );
        }
    }
}
