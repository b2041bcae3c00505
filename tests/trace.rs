//! Per-instruction traces on the host and on lavapipe, and `rdna2spv diff` (decision D040, D041).
//!
//! * Fixture traces are identical record for record on both backends (0 differing records), and a full host
//!   trace has exactly one record per instruction the evaluator counts.
//! * Faults planted in the device lowering (a test-only `LowerOptions::fault`) are found: `diff` names the
//!   instruction, wave, lane and register, and the expected place comes from an independent source —
//!   Berkeley SoftFloat for the double-rounded fma (which element is the first whose fused and twice-rounded
//!   results differ), the fault's own lane for the flipped bit, the host trace's EXEC values for the dropped
//!   EXEC write.

use rdna2spv::dispatch::Plan;
use rdna2spv::manifest::Manifest;
use rdna2spv::trace::{diff, trace_host, DiffOptions, DiffOutcome};
use rdna2spv_ir::trace::{RecordKind, TraceFilter, Write};
use rdna2spv_spirv::lower::{ControlFlow, LowerOptions, PlantedFault};
use rdna2spv_vulkan::{Context, DeviceProfile, DeviceSelector};
use softfloat_wrapper::{Float, RoundingMode::TiesToEven as RNE, F32};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn manifest(name: &str) -> PathBuf {
    root().join("fixtures/run").join(format!("{name}.toml"))
}

fn plan(name: &str, grid: Option<[u32; 3]>) -> Plan {
    let mut m = Manifest::load(&manifest(name)).unwrap();
    if let Some(g) = grid {
        m.grid = g;
    }
    Plan::new(&m).unwrap()
}

/// The device tests of this file run one at a time (each JITs big instrumented modules on a small CI
/// machine) and probe the device once.
static DEVICE: Mutex<Option<DeviceProfile>> = Mutex::new(None);

fn lavapipe() -> (
    Context,
    DeviceProfile,
    MutexGuard<'static, Option<DeviceProfile>>,
) {
    let mut guard = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    let ctx = Context::new(DeviceSelector::from_env_or_lavapipe())
        .unwrap_or_else(|e| {
            panic!(
                "this test needs lavapipe (apt-get install -y --no-install-recommends libvulkan1 \
                 mesa-vulkan-drivers): {e}"
            )
        })
        .with_timeout(std::time::Duration::from_secs(600));
    let prof = guard
        .get_or_insert_with(|| rdna2spv_vulkan::probe(&ctx).expect("probe"))
        .clone();
    (ctx, prof, guard)
}

fn opts(fault: Option<PlantedFault>, bisect: bool) -> DiffOptions {
    DiffOptions {
        filter: TraceFilter::default(),
        bisect,
        capacity: 1 << 22,
        lower: LowerOptions {
            fault,
            ..LowerOptions::default()
        },
    }
}

fn le32(p: &Path) -> Vec<u32> {
    std::fs::read(p)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Every fixture that lifts and runs in the test budget: host and lavapipe traces agree record for record.
/// Left out: `scratch*` (the instrumented module takes lavapipe's JIT over 60 s, docs/tracing.md) and
/// `multi_*` (calls are not lifted yet). `atomics` runs one wave: with more, which wave's fetch-add
/// returns which ticket is a race on any device, and the traces record the returned values.
#[test]
fn fixture_traces_are_identical_on_host_and_lavapipe() {
    let (ctx, prof, _serial) = lavapipe();
    let cases: [(&str, Option<[u32; 3]>); 10] = [
        ("saxpy", None),
        ("saxpy_cov4", None),
        ("half", None),
        ("ids3d", None),
        ("divergent", None),
        ("divergent_w64", None),
        ("divsqrt", Some([256, 1, 1])),
        ("reduce", Some([512, 1, 1])),
        ("reduce_w64", Some([512, 1, 1])),
        ("atomics", Some([32, 1, 1])),
    ];
    for (name, grid) in cases {
        let mut p = plan(name, grid);
        let out = diff(&ctx, &mut p, &prof, &opts(None, false)).unwrap();
        assert!(
            out.divergence.is_none(),
            "{name}: {}",
            rdna2spv::trace::report_text(&p, &out)
        );
        assert_eq!(out.host_records, out.device_records, "{name}");
        // A full trace has one record per executed instruction (the evaluator's own count).
        let (_, stats) = rdna2spv::dispatch::run_host(&mut p).unwrap();
        assert_eq!(out.host_records as u64, stats.instructions, "{name}");
        eprintln!("{name}: {} records, 0 differing", out.host_records);
    }
    // The instrumentation sits in the per-instruction lowering, so the dispatcher-loop form traces the same.
    for name in ["divergent", "reduce"] {
        let mut p = plan(name, Some([256, 1, 1]));
        let mut o = opts(None, false);
        o.lower.control_flow = ControlFlow::Dispatcher;
        let out = diff(&ctx, &mut p, &prof, &o).unwrap();
        assert!(out.divergence.is_none(), "{name} (dispatcher)");
        assert!(out.host_records > 0);
        eprintln!(
            "{name} (dispatcher): {} records, 0 differing",
            out.host_records
        );
    }
}

fn divergence(out: &DiffOutcome) -> &rdna2spv::trace::Divergence {
    out.divergence.as_ref().expect("a divergence")
}

// saxpy: v_fmac_f32_e32 v3, s0, v2 at kernel offset 0x68 computes y = fma(a, x, y).
const SAXPY_FMAC: u32 = 0x68;
/// saxpy's `a` in its manifest: 1.000244140625 = 1 + 2^-12.
const SAXPY_A: u32 = 0x3f80_0800;

/// The first element (in trace order: workgroup, wave, lane = element order for this 1-D kernel) whose
/// fused result differs from round(round(a*x)+y), by SoftFloat, and both results.
fn first_double_rounding_difference() -> (usize, u32, u32) {
    let x = le32(&root().join("fixtures/run/saxpy.x.bin"));
    let y = le32(&root().join("fixtures/run/saxpy.y.bin"));
    let a = SAXPY_A;
    let f = F32::from_bits;
    for i in 0..1000 {
        let fused = f(a).fused_mul_add(f(x[i]), f(y[i]), RNE).to_bits();
        let twice = f(a).mul(f(x[i]), RNE).add(f(y[i]), RNE).to_bits();
        if fused != twice {
            return (i, fused, twice);
        }
    }
    panic!("no element of saxpy's inputs tells one rounding from two");
}

#[test]
fn planted_faults_are_named_exactly_on_lavapipe() {
    let (ctx, prof, _serial) = lavapipe();

    // 1. The fmac rounds twice on the device.
    let (i, fused, twice) = first_double_rounding_difference();
    let mut p = plan("saxpy", None);
    let fault = PlantedFault::DoubleRoundFma { pc: SAXPY_FMAC };
    let out = diff(&ctx, &mut p, &prof, &opts(Some(fault), false)).unwrap();
    let d = divergence(&out);
    eprintln!("{}", rdna2spv::trace::report_text(&p, &out));
    assert_eq!(d.pc, SAXPY_FMAC);
    assert_eq!(d.text, "v_fmac_f32_e32 v3, s0, v2");
    assert_eq!(d.workgroup, [(i / 64) as u32, 0, 0]);
    assert_eq!(d.wave, (i % 64 / 32) as u32);
    assert_eq!(d.first.what, "v3");
    assert_eq!(d.first.lane, Some((i % 32) as u32));
    assert_eq!(d.first.host, Some(fused as u64));
    assert_eq!(d.first.device, Some(twice as u64));
    // The operands shown are the fmac's inputs in that lane: s0 = a, v2 = x[i], v3 = y[i].
    let x = le32(&root().join("fixtures/run/saxpy.x.bin"));
    assert!(d.operands.contains(&("s0".into(), SAXPY_A)));
    assert!(d.operands.contains(&(format!("v2[{}]", i % 32), x[i])));

    // 2. One lane's result bit flipped: that lane, the first wave.
    let mut p = plan("saxpy", None);
    let fault = PlantedFault::FlipLaneBit {
        pc: SAXPY_FMAC,
        lane: 5,
    };
    let out = diff(&ctx, &mut p, &prof, &opts(Some(fault), false)).unwrap();
    let d = divergence(&out);
    assert_eq!((d.pc, d.workgroup, d.wave), (SAXPY_FMAC, [0, 0, 0], 0));
    assert_eq!((d.first.what.as_str(), d.first.lane), ("v3", Some(5)));
    assert_eq!(d.first.host.map(|h| h ^ 1), d.first.device);

    // 3. divergent: v_cmpx_ngt_f32 at 0x6c does not update EXEC on the device. The first wave whose EXEC
    // that instruction changes (from the host trace) is named, with the old EXEC on the device.
    const CMPX: u32 = 0x6c;
    let mut hp = plan("divergent", None);
    let host = trace_host(&mut hp, TraceFilter::default()).unwrap();
    let first = host
        .iter()
        .find(|r| {
            r.pc == CMPX
                && r.writes.iter().any(
                    |w| matches!(w, Write::Sgpr { reg: 126, value } if *value as u64 != r.exec),
                )
        })
        .expect("some wave changes EXEC there");
    let new_exec = first
        .writes
        .iter()
        .find_map(|w| match w {
            Write::Sgpr { reg: 126, value } => Some(*value),
            _ => None,
        })
        .unwrap();
    let mut p = plan("divergent", None);
    let fault = PlantedFault::DropExecWrite { pc: CMPX };
    let out = diff(&ctx, &mut p, &prof, &opts(Some(fault), false)).unwrap();
    let d = divergence(&out);
    eprintln!("{}", rdna2spv::trace::report_text(&p, &out));
    assert_eq!(d.pc, CMPX);
    assert_eq!(d.text, "v_cmpx_ngt_f32_e32 0.5, v3");
    assert_eq!((d.workgroup, d.wave), (first.workgroup, first.wave));
    assert_eq!(d.first.what, "exec_lo");
    assert_eq!(d.first.host, Some(new_exec as u64));
    assert_eq!(d.first.device, Some(first.exec & 0xffff_ffff));
}

/// `--bisect` on a kernel with a loop: block-boundary snapshots first, then one wave's step window; it finds
/// the same instruction, wave and lane as the full trace, with far fewer step records.
#[test]
fn bisection_finds_the_same_divergence() {
    let (ctx, prof, _serial) = lavapipe();
    // divergent: v_add_f32_e32 v4, v4, v5 at 0xb4 is in the loop body; flip lane 3 of it.
    let fault = PlantedFault::FlipLaneBit { pc: 0xb4, lane: 3 };
    let mut p = plan("divergent", None);
    let full = diff(&ctx, &mut p, &prof, &opts(Some(fault), false)).unwrap();
    let mut p = plan("divergent", None);
    let bis = diff(&ctx, &mut p, &prof, &opts(Some(fault), true)).unwrap();
    eprintln!("{}", rdna2spv::trace::report_text(&p, &bis));
    let (a, b) = (divergence(&full), divergence(&bis));
    assert_eq!(
        (a.pc, a.workgroup, a.wave, a.step),
        (b.pc, b.workgroup, b.wave, b.step)
    );
    assert_eq!((&a.first.what, a.first.lane), (&b.first.what, b.first.lane));
    assert_eq!((a.pc, a.first.lane), (0xb4, Some(3)));
    let bi = bis.bisection.as_ref().unwrap();
    assert!(bi.first_snapshot.is_some() && bi.window.is_some());
    assert!(
        bis.host_records < full.host_records / 10,
        "{} vs {}",
        bis.host_records,
        full.host_records
    );
}

fn cli(args: &[&str]) -> (Option<i32>, String, String) {
    let r = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(args)
        .output()
        .unwrap();
    (
        r.status.code(),
        String::from_utf8_lossy(&r.stdout).into(),
        String::from_utf8_lossy(&r.stderr).into(),
    )
}

/// The CLI contract: `trace` writes JSON Lines (host here), `diff` exits 0 / 1 / 2, `--json` is
/// machine-readable, an overflowing trace buffer is an error naming the words needed, filters narrow.
#[test]
fn trace_and_diff_through_the_cli() {
    let _serial = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    let m = manifest("saxpy");
    let m = m.to_str().unwrap();
    let dir = std::env::temp_dir().join(format!("rdna2spv-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("t.jsonl");
    let o = out.to_str().unwrap();
    let (code, _, err) = cli(&["trace", m, "--backend", "host", "-o", o]);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // 32 waves (16 workgroups of 2) × 19 instructions.
    assert_eq!(lines.len(), 32 * 19);
    let fmac = lines
        .iter()
        .find(|l| l["pc"] == "0x68")
        .expect("the fmac's record");
    assert_eq!(fmac["text"], "v_fmac_f32_e32 v3, s0, v2");
    assert_eq!(fmac["writes"][0]["vgpr"], 3);

    // Filters: one wave, a pc range, a step bound.
    let (code, _, err) = cli(&[
        "trace",
        m,
        "-o",
        o,
        "--wave",
        "3",
        "--pc-range",
        "0x60..0x70",
        "--max-steps",
        "17",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let pcs: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["pc"].to_string())
        .collect();
    // Steps 0..17 of wave 3 in 0x60..0x70: s_waitcnt (0x64, step 15) and the fmac (0x68, step 16); the
    // store (0x6c) is step 17.
    assert_eq!(pcs, ["\"0x64\"", "\"0x68\""]);

    // diff: identical → 0; a planted fault → 1 with JSON naming it; too small a trace buffer → 2.
    let (code, stdout, err) = cli(&["diff", m, "--profile", "portable"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(stdout.contains("0 differing"), "{stdout}");
    let (code, stdout, err) = cli(&[
        "diff",
        m,
        "--profile",
        "portable",
        "--json",
        "--plant-fault-for-testing",
        "flip-lane-bit@0x68:7",
    ]);
    assert_eq!(code, Some(1), "{err}");
    let j: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let d = &j["divergence"];
    assert_eq!(
        (
            &d["pc"],
            &d["wave"],
            &d["lane"],
            &d["what"],
            &d["global_wave"]
        ),
        (
            &serde_json::json!("0x68"),
            &serde_json::json!(0),
            &serde_json::json!(7),
            &serde_json::json!("v3"),
            &serde_json::json!(0)
        )
    );
    // The device applies the same filters: wave 3, the pc range, the first 17 steps → the same 2 records.
    let (code, stdout, err) = cli(&[
        "diff",
        m,
        "--profile",
        "portable",
        "--wave",
        "3",
        "--pc-range",
        "0x60..0x70",
        "--max-steps",
        "17",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        stdout.contains("identical: 2 host records, 2 device records"),
        "{stdout}"
    );
    let (code, _, err) = cli(&["diff", m, "--profile", "portable", "--trace-words", "100"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("overflowed") && err.contains("words needed"),
        "{err}"
    );
    let (code, _, err) = cli(&["diff", m, "--pc-range", "0x70..0x10"]);
    assert_eq!(code, Some(2), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Host-only: snapshots come one per block entered, before the block's first step, and hold the SGPRs the
/// program uses (with VCC and EXEC).
#[test]
fn host_snapshots_mark_block_entries() {
    let mut p = plan("divergent", Some([64, 1, 1]));
    let steps = trace_host(&mut p, TraceFilter::default()).unwrap();
    let mut p = plan("divergent", Some([64, 1, 1]));
    let snaps = trace_host(
        &mut p,
        TraceFilter {
            snapshots: true,
            ..TraceFilter::default()
        },
    )
    .unwrap();
    let starts: std::collections::HashSet<u32> =
        p.program.blocks.iter().map(|(_, b)| b.start_pc).collect();
    assert!(!snaps.is_empty());
    for s in &snaps {
        assert_eq!(s.kind, RecordKind::Snapshot);
        assert!(starts.contains(&s.pc));
        let sgprs: Vec<u16> = s
            .writes
            .iter()
            .filter_map(|w| match w {
                Write::Sgpr { reg, .. } => Some(*reg),
                _ => None,
            })
            .collect();
        // divergent reads s[0:1], s4..s6 and the kernarg pointer s[4:5]; VCC and EXEC are always there.
        for r in [0, 1, 4, 5, 6, 106, 107, 126, 127] {
            assert!(sgprs.contains(&r), "s{r} in {sgprs:?}");
        }
        // The step record with the same (wave, step) is that block's first instruction.
        let st = steps
            .iter()
            .find(|r| (r.workgroup, r.wave, r.step) == (s.workgroup, s.wave, s.step))
            .unwrap();
        assert_eq!(st.pc, s.pc);
    }
    let entries = steps.iter().filter(|r| starts.contains(&r.pc)).count();
    assert_eq!(snaps.len(), entries);
}
