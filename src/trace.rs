//! `rdna2spv trace` and `rdna2spv diff` (decision D040, D041): per-instruction traces of a manifest's
//! dispatch on the host evaluator and on the Vulkan device, their JSON Lines form, and the finder of the
//! first divergent record (with a bisection mode that compares block-boundary snapshots first).

use crate::dispatch::{host_addresses, Buffer, Plan};
use anyhow::{Context as _, Result};
use rdna2spv_eval::Memory;
use rdna2spv_ir::trace::{Record, RecordKind, TraceFilter, Write};
use rdna2spv_ir::{Program, Space};
use rdna2spv_spirv::lower::LowerOptions;
use rdna2spv_vulkan::{Context, DeviceProfile};
use serde_json::{json, Value};
use std::collections::HashMap;

/// The host trace of an already bound plan whose buffers sit at `addresses`.
pub fn trace_host_at(plan: &Plan, addresses: &[u64], filter: TraceFilter) -> Result<Vec<Record>> {
    let mut mem = Memory::default();
    for (b, &a) in plan.buffers.iter().zip(addresses) {
        mem.add(&b.name, a, b.data.clone())
            .map_err(anyhow::Error::msg)?;
    }
    let t = rdna2spv_eval::trace::run_traced(&plan.program, &plan.launch, &mut mem, filter)
        .with_context(|| format!("tracing {} on the host evaluator", plan.kernel.name))?;
    Ok(t.records)
}

/// The host trace at host-chosen addresses.
pub fn trace_host(plan: &mut Plan, filter: TraceFilter) -> Result<Vec<Record>> {
    let addresses = host_addresses(&plan.buffers);
    plan.bind(&addresses, plan.launch.grid)?;
    trace_host_at(plan, &addresses, filter)
}

/// A device trace and where its buffers were.
pub struct DeviceTrace {
    pub addresses: Vec<u64>,
    pub records: Vec<Record>,
    pub buffers: Vec<Buffer>,
    pub report: rdna2spv_vulkan::RunReport,
}

/// Runs the plan on `ctx` lowered with `opts` and tracing by `filter` (`capacity` words of trace buffer).
pub fn trace_device(
    ctx: &Context,
    plan: &mut Plan,
    profile: &DeviceProfile,
    opts: &LowerOptions,
    filter: TraceFilter,
    capacity: u32,
) -> Result<DeviceTrace> {
    let mut bufs = Vec::with_capacity(plan.buffers.len());
    for b in &plan.buffers {
        bufs.push(ctx.create_buffer((b.data.len() as u64).max(4))?);
    }
    let addresses: Vec<u64> = bufs.iter().map(|b| b.device_address()).collect();
    plan.bind(&addresses, plan.launch.grid)?;
    for (buf, b) in bufs.iter_mut().zip(&plan.buffers) {
        buf.upload(0, &b.data)?;
    }
    let (report, records) = rdna2spv_vulkan::trace::run_program_traced(
        ctx,
        &plan.program,
        &plan.launch,
        profile,
        opts,
        filter,
        capacity,
    )
    .with_context(|| format!("tracing {} on the Vulkan device", plan.kernel.name))?;
    let mut buffers = Vec::with_capacity(bufs.len());
    for (buf, b) in bufs.iter().zip(&plan.buffers) {
        let mut data = buf.download_all()?;
        data.truncate(b.data.len());
        buffers.push(Buffer { data, ..b.clone() });
    }
    Ok(DeviceTrace {
        addresses,
        records,
        buffers,
        report,
    })
}

/// Instruction text by pc.
pub fn texts(p: &Program) -> HashMap<u32, String> {
    let mut m = HashMap::new();
    for (_, b) in p.blocks.iter() {
        for i in &b.insts {
            m.insert(i.pc, i.text.clone());
        }
    }
    m
}

/// A register's name as LLVM prints it.
pub fn sgpr_name(reg: u16) -> String {
    match reg {
        106 => "vcc_lo".into(),
        107 => "vcc_hi".into(),
        108..=123 => format!("ttmp{}", reg - 108),
        124 => "m0".into(),
        126 => "exec_lo".into(),
        127 => "exec_hi".into(),
        r => format!("s{r}"),
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => "global",
        Space::Lds => "lds",
        Space::Scratch => "scratch",
    }
}

fn write_json(w: &Write) -> Value {
    match w {
        Write::Sgpr { reg, value } => {
            json!({"sgpr": reg, "name": sgpr_name(*reg), "value": format!("0x{value:08x}")})
        }
        Write::Scc(b) => json!({"scc": *b as u8}),
        Write::Vgpr { reg, lanes } => json!({
            "vgpr": reg,
            "lanes": lanes.iter().map(|(l, v)| json!([l, format!("0x{v:08x}")])).collect::<Vec<_>>()
        }),
        Write::Mem {
            space,
            addr,
            bytes,
            value,
            lane,
            atomic,
        } => json!({
            "mem": space_name(*space),
            "addr": format!("0x{addr:x}"),
            "bytes": bytes,
            "value": format!("0x{value:0w$x}", w = *bytes as usize * 2),
            "lane": lane,
            "atomic": atomic,
        }),
    }
}

/// The JSON Lines form of one record (one object; `text` is the instruction).
pub fn record_json(r: &Record, text: &str) -> Value {
    let mut v = json!({
        "kind": match r.kind { RecordKind::Step => "step", RecordKind::Snapshot => "snapshot" },
        "workgroup": r.workgroup,
        "wave": r.wave,
        "step": r.step,
        "pc": format!("0x{:x}", r.pc),
        "text": text,
        "exec": format!("0x{:x}", r.exec),
        "writes": r.writes.iter().map(write_json).collect::<Vec<_>>(),
    });
    if !r.reads.is_empty() {
        v["reads"] = Value::Array(r.reads.iter().map(write_json).collect());
    }
    v
}

/// Records as JSON Lines.
pub fn to_jsonl(p: &Program, records: &[Record]) -> String {
    to_jsonl_shared(p, records, None)
}

/// Records as JSON Lines; `shared` = (first, count) of the wave64 shared VGPRs ([`Plan::shared_vgprs`]),
/// shown once per slot ([`shared_json`]).
pub fn to_jsonl_shared(p: &Program, records: &[Record], shared: Option<(u16, u16)>) -> String {
    let t = texts(p);
    let mut s = String::new();
    for r in records {
        let v = record_json_shared(r, t.get(&r.pc).map(String::as_str).unwrap_or(""), shared);
        s += &v.to_string();
        s.push('\n');
    }
    s
}

/// [`record_json`] with the wave64 shared VGPRs `shared` = (first, count) shown once ([`shared_json`]).
pub fn record_json_shared(r: &Record, text: &str, shared: Option<(u16, u16)>) -> Value {
    let mut v = record_json(r, text);
    if let Some(sh) = shared {
        for key in ["writes", "reads"] {
            let list = if key == "writes" { &r.writes } else { &r.reads };
            if v.get(key).is_some() {
                v[key] = Value::Array(shared_json(list, sh));
            }
        }
    }
    v
}

/// The JSON of a record's register list with the wave64 shared VGPRs `first .. first + count` shown once
/// (D153): `{"vgpr": 8, "shared": [[slot, value], ...]}`, slot s being lane s's copy or lane s + 32's as the
/// owner mask in ttmp[k] (s108 + k, rdna2spv's own bookkeeping, left out here) says; slots whose owner lane
/// is not in the record (inactive) are left out. Other entries as [`record_json`] writes them.
pub fn shared_json(list: &[Write], (first, count): (u16, u16)) -> Vec<Value> {
    let ttmp0 = rdna2spv_ir::lift::TTMP0;
    let is_shared = |reg: u16| reg >= first && reg < first + count;
    let owner = |k: u16| {
        list.iter().find_map(|w| match w {
            Write::Sgpr { reg, value } if *reg == ttmp0 + k => Some(*value),
            _ => None,
        })
    };
    let mut out = Vec::new();
    for w in list {
        match w {
            Write::Sgpr { reg, .. } if *reg >= ttmp0 && *reg < ttmp0 + count.min(16) => {}
            Write::Vgpr { reg, lanes } if is_shared(*reg) => {
                let o = owner(reg - first).unwrap_or(0);
                let slots: Vec<Value> = (0..32u32)
                    .filter_map(|s| {
                        let l = if o >> s & 1 != 0 { s + 32 } else { s };
                        vgpr_at(lanes, l).map(|v| json!([s, format!("0x{v:08x}")]))
                    })
                    .collect();
                out.push(json!({"vgpr": reg, "shared": slots}));
            }
            w => out.push(write_json(w)),
        }
    }
    out
}

/// The first thing that differs inside two records at the same position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteDiff {
    /// `v3`, `s4`, `exec_lo`, `scc`, `global[0x...]`, or a record field (`pc`, `exec`, `step`, `record`).
    pub what: String,
    pub lane: Option<u32>,
    pub host: Option<u64>,
    pub device: Option<u64>,
}

/// The first divergent record.
#[derive(Debug, Clone)]
pub struct Divergence {
    /// Position in trace order.
    pub index: usize,
    pub host: Option<Record>,
    pub device: Option<Record>,
    /// The host record's instruction (else the device's).
    pub pc: u32,
    pub text: String,
    pub workgroup: [u32; 3],
    pub wave: u32,
    pub step: u64,
    pub first: WriteDiff,
    /// The instruction's operands (host values, for the divergent lane when there is one).
    pub operands: Vec<(String, u32)>,
}

fn vgpr_at(lanes: &[(u32, u32)], lane: u32) -> Option<u32> {
    lanes.iter().find(|(l, _)| *l == lane).map(|(_, v)| *v)
}

/// What differs first between two records at the same trace position.
pub fn record_diff(h: &Record, d: &Record) -> Option<WriteDiff> {
    let field = |what: &str, a: u64, b: u64| {
        Some(WriteDiff {
            what: what.into(),
            lane: None,
            host: Some(a),
            device: Some(b),
        })
    };
    if (h.workgroup, h.wave, h.kind) != (d.workgroup, d.wave, d.kind) {
        return Some(WriteDiff {
            what: "record".into(),
            lane: None,
            host: None,
            device: None,
        });
    }
    if h.step != d.step {
        return field("step", h.step, d.step);
    }
    if h.pc != d.pc {
        return field("pc", h.pc as u64, d.pc as u64);
    }
    if h.exec != d.exec {
        return field("exec", h.exec, d.exec);
    }
    for k in 0..h.writes.len().max(d.writes.len()) {
        let (a, b) = (h.writes.get(k), d.writes.get(k));
        if a == b {
            continue;
        }
        return Some(match (a, b) {
            (Some(Write::Sgpr { reg, value: x }), Some(Write::Sgpr { value: y, .. })) => {
                WriteDiff {
                    what: sgpr_name(*reg),
                    lane: None,
                    host: Some(*x as u64),
                    device: Some(*y as u64),
                }
            }
            (Some(Write::Scc(x)), Some(Write::Scc(y))) => WriteDiff {
                what: "scc".into(),
                lane: None,
                host: Some(*x as u64),
                device: Some(*y as u64),
            },
            (Some(Write::Vgpr { reg, lanes: x }), Some(Write::Vgpr { lanes: y, .. })) => {
                let lane = x
                    .iter()
                    .find(|(l, v)| vgpr_at(y, *l) != Some(*v))
                    .map(|(l, _)| *l)
                    .or_else(|| y.iter().map(|(l, _)| *l).find(|l| vgpr_at(x, *l).is_none()));
                WriteDiff {
                    what: format!("v{reg}"),
                    lane,
                    host: lane.and_then(|l| vgpr_at(x, l)).map(u64::from),
                    device: lane.and_then(|l| vgpr_at(y, l)).map(u64::from),
                }
            }
            (
                Some(Write::Mem {
                    space,
                    addr,
                    value: x,
                    lane,
                    ..
                }),
                Some(Write::Mem {
                    addr: a2, value: y, ..
                }),
            ) => {
                if addr != a2 {
                    WriteDiff {
                        what: format!("{} address", space_name(*space)),
                        lane: *lane,
                        host: Some(*addr),
                        device: Some(*a2),
                    }
                } else {
                    WriteDiff {
                        what: format!("{}[0x{addr:x}]", space_name(*space)),
                        lane: *lane,
                        host: Some(*x as u64),
                        device: Some(*y as u64),
                    }
                }
            }
            _ => WriteDiff {
                what: "writes".into(),
                lane: None,
                host: None,
                device: None,
            },
        });
    }
    None
}

/// The operands of a host record: SGPRs and SCC, VGPRs at `lane` (or the first active lane).
fn operands(r: &Record, lane: Option<u32>) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    for w in &r.reads {
        match w {
            Write::Sgpr { reg, value } => out.push((sgpr_name(*reg), *value)),
            Write::Scc(b) => out.push(("scc".into(), *b as u32)),
            Write::Vgpr { reg, lanes } => {
                let l = lane.or(lanes.first().map(|x| x.0));
                if let Some(v) = l.and_then(|l| vgpr_at(lanes, l)) {
                    out.push((format!("v{reg}[{}]", l.unwrap_or(0)), v));
                }
            }
            Write::Mem { .. } => {}
        }
    }
    out
}

/// The first divergent record of two traces (both in trace order).
pub fn first_divergence(p: &Program, host: &[Record], device: &[Record]) -> Option<Divergence> {
    let t = texts(p);
    for k in 0..host.len().max(device.len()) {
        let (h, d) = (host.get(k), device.get(k));
        let first = match (h, d) {
            (Some(h), Some(d)) => {
                if h.same_as(d) {
                    continue;
                }
                record_diff(h, d).unwrap_or(WriteDiff {
                    what: "record".into(),
                    lane: None,
                    host: None,
                    device: None,
                })
            }
            _ => WriteDiff {
                what: if h.is_some() {
                    "missing on the device".into()
                } else {
                    "missing on the host".into()
                },
                lane: None,
                host: None,
                device: None,
            },
        };
        let r = h.or(d).expect("one side has it");
        return Some(Divergence {
            index: k,
            host: h.cloned(),
            device: d.cloned(),
            pc: r.pc,
            text: t.get(&r.pc).cloned().unwrap_or_default(),
            workgroup: r.workgroup,
            wave: r.wave,
            step: r.step,
            operands: h.map(|h| operands(h, first.lane)).unwrap_or_default(),
            first,
        });
    }
    None
}

/// How `diff` runs.
#[derive(Debug, Clone, Copy)]
pub struct DiffOptions {
    pub filter: TraceFilter,
    pub bisect: bool,
    pub capacity: u32,
    /// Device lowering options (tests plant faults here).
    pub lower: LowerOptions,
}

/// What bisection did.
#[derive(Debug, Clone)]
pub struct Bisection {
    pub snapshots_host: usize,
    pub snapshots_device: usize,
    /// The first differing snapshot: (workgroup, wave, step, block start pc); None when all agreed.
    pub first_snapshot: Option<([u32; 3], u32, u64, u32)>,
    /// The step window traced afterwards and the wave (global index).
    pub window: Option<(u32, u64, u64)>,
}

/// The result of `diff`.
#[derive(Debug, Clone)]
pub struct DiffOutcome {
    pub host_records: usize,
    pub device_records: usize,
    pub divergence: Option<Divergence>,
    pub bisection: Option<Bisection>,
    pub waves_per_workgroup: u32,
}

impl DiffOutcome {
    /// The divergent wave's global index (`workgroup_linear * waves_per_workgroup + wave`).
    pub fn global_wave(&self, plan: &Plan) -> Option<u32> {
        let d = self.divergence.as_ref()?;
        let g = [0, 1, 2].map(|i| plan.launch.grid[i].div_ceil(plan.launch.workgroup[i]));
        let lin = (d.workgroup[2] * g[1] + d.workgroup[1]) * g[0] + d.workgroup[0];
        Some(lin * self.waves_per_workgroup + d.wave)
    }
}

fn both(
    ctx: &Context,
    plan: &mut Plan,
    profile: &DeviceProfile,
    o: &DiffOptions,
    filter: TraceFilter,
) -> Result<(Vec<Record>, Vec<Record>)> {
    let dev = trace_device(ctx, plan, profile, &o.lower, filter, o.capacity)?;
    let host = trace_host_at(plan, &dev.addresses, filter)?;
    Ok((host, dev.records))
}

/// Runs both backends with traces and finds the first divergent record.
pub fn diff(
    ctx: &Context,
    plan: &mut Plan,
    profile: &DeviceProfile,
    o: &DiffOptions,
) -> Result<DiffOutcome> {
    let threads: u32 = plan.launch.workgroup.iter().product();
    let wpw = threads.div_ceil(plan.launch.wave_size);
    let mut bisection = None;
    let mut filter = o.filter;
    if o.bisect {
        let snap = TraceFilter {
            snapshots: true,
            ..o.filter
        };
        let (h, d) = both(ctx, plan, profile, o, snap)?;
        let mut b = Bisection {
            snapshots_host: h.len(),
            snapshots_device: d.len(),
            first_snapshot: None,
            window: None,
        };
        if let Some(k) = (0..h.len().max(d.len())).find(|&k| match (h.get(k), d.get(k)) {
            (Some(x), Some(y)) => !x.same_as(y),
            _ => true,
        }) {
            let r = h.get(k).or(d.get(k)).expect("one side");
            // The divergence happened after the wave's previous snapshot (which agreed).
            let prev = k
                .checked_sub(1)
                .and_then(|j| h.get(j))
                .filter(|p| p.workgroup == r.workgroup && p.wave == r.wave)
                .map(|p| p.step)
                .unwrap_or(0);
            let g = [0, 1, 2].map(|i| plan.launch.grid[i].div_ceil(plan.launch.workgroup[i]));
            let lin = (r.workgroup[2] * g[1] + r.workgroup[1]) * g[0] + r.workgroup[0];
            let gw = lin * wpw + r.wave;
            b.first_snapshot = Some((r.workgroup, r.wave, r.step, r.pc));
            b.window = Some((gw, prev, r.step + 1));
            filter = TraceFilter {
                wave: Some(gw),
                steps: Some((prev, r.step + 1)),
                snapshots: false,
                ..o.filter
            };
        }
        bisection = Some(b);
    }
    let (h, d) = both(ctx, plan, profile, o, filter)?;
    Ok(DiffOutcome {
        host_records: h.len(),
        device_records: d.len(),
        divergence: first_divergence(&plan.program, &h, &d),
        bisection,
        waves_per_workgroup: wpw,
    })
}

fn hex(v: Option<u64>) -> String {
    match v {
        Some(v) if v > u32::MAX as u64 => format!("0x{v:016x}"),
        Some(v) => format!("0x{v:08x}"),
        None => "-".into(),
    }
}

/// The human report of a diff.
pub fn report_text(plan: &Plan, o: &DiffOutcome) -> String {
    let mut s = String::new();
    if let Some(b) = &o.bisection {
        s += &format!(
            "bisect: {} host / {} device block-boundary snapshots",
            b.snapshots_host, b.snapshots_device
        );
        match (b.first_snapshot, b.window) {
            (Some((wg, w, step, pc)), Some((gw, lo, hi))) => {
                s += &format!(
                    "; first differing snapshot: workgroup {wg:?} wave {w} before step {step} (block at pc 0x{pc:x}); tracing wave {gw} steps {lo}..{hi}\n"
                )
            }
            _ => s += "; all agree, tracing everything\n",
        }
    }
    let Some(d) = &o.divergence else {
        s += &format!(
            "identical: {} host records, {} device records, 0 differing\n",
            o.host_records, o.device_records
        );
        return s;
    };
    s += &format!(
        "first divergence at record {} ({} host records, {} device records)\n",
        d.index, o.host_records, o.device_records
    );
    s += &format!(
        "  workgroup {:?}, wave {} (global wave {}), step {}\n",
        d.workgroup,
        d.wave,
        o.global_wave(plan).unwrap_or(0),
        d.step
    );
    s += &format!("  pc 0x{:x}: {}\n", d.pc, d.text);
    if let Some(r) = d.host.as_ref().or(d.device.as_ref()) {
        s += &format!("  exec 0x{:x}\n", r.exec);
    }
    let f = &d.first;
    s += &format!(
        "  {}{}: host {} device {}",
        f.what,
        f.lane.map(|l| format!(" lane {l}")).unwrap_or_default(),
        hex(f.host),
        hex(f.device)
    );
    if let (Some(h), Some(v)) = (f.host, f.device) {
        if h <= u32::MAX as u64 && v <= u32::MAX as u64 && f.what.starts_with('v') {
            s += &format!(
                " (as f32: {:e} vs {:e})",
                f32::from_bits(h as u32),
                f32::from_bits(v as u32)
            );
        }
    }
    s.push('\n');
    if !d.operands.is_empty() {
        s += &format!(
            "  operands (host){}: {}\n",
            f.lane.map(|l| format!(", lane {l}")).unwrap_or_default(),
            d.operands
                .iter()
                .map(|(n, v)| format!("{n} = 0x{v:08x}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    s
}

/// The JSON report of a diff.
pub fn report_json(plan: &Plan, o: &DiffOutcome) -> Value {
    let mut v = json!({
        "identical": o.divergence.is_none(),
        "host_records": o.host_records,
        "device_records": o.device_records,
    });
    if let Some(b) = &o.bisection {
        v["bisect"] = json!({
            "snapshots_host": b.snapshots_host,
            "snapshots_device": b.snapshots_device,
            "first_snapshot": b.first_snapshot.map(|(wg, w, step, pc)| json!({"workgroup": wg, "wave": w, "step": step, "pc": format!("0x{pc:x}")})),
            "window": b.window.map(|(gw, lo, hi)| json!({"global_wave": gw, "steps": [lo, hi]})),
        });
    }
    if let Some(d) = &o.divergence {
        let t = d.text.as_str();
        v["divergence"] = json!({
            "index": d.index,
            "workgroup": d.workgroup,
            "wave": d.wave,
            "global_wave": o.global_wave(plan),
            "step": d.step,
            "pc": format!("0x{:x}", d.pc),
            "text": t,
            "what": d.first.what,
            "lane": d.first.lane,
            "host": d.first.host.map(|x| hex(Some(x))),
            "device": d.first.device.map(|x| hex(Some(x))),
            "operands": d.operands.iter().map(|(n, x)| json!({"reg": n, "value": format!("0x{x:08x}")})).collect::<Vec<_>>(),
            "host_record": d.host.as_ref().map(|r| record_json_shared(r, t, plan.shared_vgprs())),
            "device_record": d.device.as_ref().map(|r| record_json_shared(r, t, plan.shared_vgprs())),
        });
    }
    v
}

// ---- the CLI -------------------------------------------------------------------------------------

/// Where a trace runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceBackend {
    Host,
    Vulkan,
}

/// The lowering profile of the device side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceProfile {
    Portable,
    Device,
}

/// Filters and run options shared by `trace` and `diff`.
#[derive(Debug, Clone, clap::Args)]
pub struct TraceCommon {
    pub manifest: std::path::PathBuf,
    /// Only this wave: its global index, workgroup_linear * waves_per_workgroup + wave (x fastest).
    #[arg(long)]
    pub wave: Option<u32>,
    /// Only instructions with LO <= pc < HI (kernel byte offsets, hex with 0x or decimal): `LO..HI`.
    #[arg(long, value_parser = parse_pc_range)]
    pub pc_range: Option<(u32, u32)>,
    /// Only each wave's first N executed instructions.
    #[arg(long)]
    pub max_steps: Option<u64>,
    /// Override the manifest's grid (work-items per dimension) to keep a trace small.
    #[arg(long, value_delimiter = ',', num_args = 1..=3)]
    pub grid: Option<Vec<u32>>,
    /// Lowering profile for the Vulkan backend.
    #[arg(long, value_enum, default_value = "device")]
    pub profile: TraceProfile,
    /// Vulkan device: an index or part of its name.
    #[arg(long)]
    pub device: Option<String>,
    /// Capacity of the device trace buffer in 32-bit words (an overflow is an error, exit 2).
    #[arg(long, default_value_t = rdna2spv_vulkan::trace::DEFAULT_TRACE_WORDS)]
    pub trace_words: u32,
    /// Give up on a device dispatch after this many milliseconds (default 60,000).
    /// Left out, the default (or RDNA2SPV_VK_TIMEOUT_S seconds) applies and a module's first dispatch on
    /// lavapipe, which holds its compile, also waits 4× its predicted compile time (D241); a value given
    /// here is exact.
    #[arg(long)]
    pub timeout_ms: Option<u64>,
}

/// `rdna2spv trace`.
#[derive(Debug, Clone, clap::Args)]
pub struct TraceArgs {
    #[command(flatten)]
    pub common: TraceCommon,
    #[arg(long, value_enum, default_value = "host")]
    pub backend: TraceBackend,
    /// The JSON Lines file to write.
    #[arg(short, long)]
    pub output: std::path::PathBuf,
    /// Block-boundary snapshots instead of per-instruction records.
    #[arg(long)]
    pub snapshots: bool,
}

/// `rdna2spv diff`.
#[derive(Debug, Clone, clap::Args)]
pub struct DiffArgs {
    #[command(flatten)]
    pub common: TraceCommon,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Compare block-boundary snapshots first, then trace only the steps where they first differ.
    #[arg(long)]
    pub bisect: bool,
    /// Testing aid, hidden: break one instruction on the device on purpose (`double-round-fma@PC`,
    /// `drop-exec-write@PC`, `flip-lane-bit@PC:LANE`).
    #[arg(long, hide = true, value_parser = parse_fault)]
    pub plant_fault_for_testing: Option<rdna2spv_spirv::lower::PlantedFault>,
}

fn parse_num(s: &str) -> Result<u32, String> {
    let s = s.trim();
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|e| format!("{s:?}: {e}"))
}

/// `LO..HI` (half-open).
pub fn parse_pc_range(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("{s:?}: expected LO..HI"))?;
    let (lo, hi) = (parse_num(a)?, parse_num(b)?);
    if lo >= hi {
        return Err(format!("{s:?}: empty range"));
    }
    Ok((lo, hi))
}

/// `double-round-fma@PC`, `drop-exec-write@PC`, `flip-lane-bit@PC:LANE`.
pub fn parse_fault(s: &str) -> Result<rdna2spv_spirv::lower::PlantedFault, String> {
    use rdna2spv_spirv::lower::PlantedFault;
    let (kind, at) = s
        .split_once('@')
        .ok_or_else(|| format!("{s:?}: expected KIND@PC"))?;
    Ok(match kind {
        "double-round-fma" => PlantedFault::DoubleRoundFma { pc: parse_num(at)? },
        "drop-exec-write" => PlantedFault::DropExecWrite { pc: parse_num(at)? },
        "flip-lane-bit" => {
            let (pc, lane) = at
                .split_once(':')
                .ok_or_else(|| format!("{s:?}: expected flip-lane-bit@PC:LANE"))?;
            PlantedFault::FlipLaneBit {
                pc: parse_num(pc)?,
                lane: parse_num(lane)?,
            }
        }
        k => return Err(format!("unknown fault {k:?}")),
    })
}

impl TraceCommon {
    pub fn filter(&self) -> TraceFilter {
        TraceFilter {
            wave: self.wave,
            pcs: self.pc_range,
            steps: self.max_steps.map(|n| (0, n)),
            snapshots: false,
        }
    }

    pub fn plan(&self) -> Result<Plan> {
        let mut m = crate::manifest::Manifest::load(&self.manifest)?;
        if let Some(g) = &self.grid {
            m.grid = [
                g[0],
                g.get(1).copied().unwrap_or(1),
                g.get(2).copied().unwrap_or(1),
            ];
            if m.grid.contains(&0) {
                anyhow::bail!("--grid {:?} is empty", m.grid);
            }
        }
        Plan::new(&m)
    }

    fn open(&self) -> Result<(Context, DeviceProfile)> {
        let ctx = crate::device::open(self.device.as_deref())?;
        let ctx = match self.timeout_ms {
            Some(ms) => ctx.with_timeout(std::time::Duration::from_millis(ms)),
            None => ctx,
        };
        let choice = match self.profile {
            TraceProfile::Portable => crate::device::ProfileChoice::Portable,
            TraceProfile::Device => crate::device::ProfileChoice::Device,
        };
        let prof = crate::device::profile_of(&ctx, choice)?;
        Ok((ctx, prof))
    }
}

/// `rdna2spv trace`: exit 0.
pub fn cli_trace(a: &TraceArgs) -> Result<i32> {
    let mut plan = a.common.plan()?;
    let filter = TraceFilter {
        snapshots: a.snapshots,
        ..a.common.filter()
    };
    let records = match a.backend {
        TraceBackend::Host => trace_host(&mut plan, filter)?,
        TraceBackend::Vulkan => {
            let (ctx, prof) = a.common.open()?;
            let t = trace_device(
                &ctx,
                &mut plan,
                &prof,
                &LowerOptions::default(),
                filter,
                a.common.trace_words,
            )?;
            eprintln!(
                "rdna2spv: {} on {}: module {} words, lowered in {:.1} ms, pipeline {:.1} ms, dispatch {:.1} ms",
                plan.kernel.name,
                ctx.info().name,
                t.report.module_words,
                t.report.lower_time.as_secs_f64() * 1e3,
                t.report.dispatch.pipeline_create.as_secs_f64() * 1e3,
                t.report.dispatch.dispatch.as_secs_f64() * 1e3
            );
            t.records
        }
    };
    let text = to_jsonl_shared(&plan.program, &records, plan.shared_vgprs());
    crate::output::write_atomically(&a.output, text.as_bytes())?;
    eprintln!(
        "rdna2spv: {} records of {} -> {}",
        records.len(),
        plan.kernel.name,
        a.output.display()
    );
    Ok(0)
}

/// `rdna2spv diff`: exit 0 identical, 1 divergent.
pub fn cli_diff(a: &DiffArgs) -> Result<i32> {
    let mut plan = a.common.plan()?;
    let (ctx, prof) = a.common.open()?;
    let o = DiffOptions {
        filter: a.common.filter(),
        bisect: a.bisect,
        capacity: a.common.trace_words,
        lower: LowerOptions {
            fault: a.plant_fault_for_testing,
            ..LowerOptions::default()
        },
    };
    let out = diff(&ctx, &mut plan, &prof, &o)?;
    let s = if a.json {
        report_json(&plan, &out).to_string() + "\n"
    } else {
        report_text(&plan, &out)
    };
    use std::io::Write as _;
    let mut so = std::io::stdout().lock();
    match so.write_all(s.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r?,
    }
    Ok(if out.divergence.is_some() { 1 } else { 0 })
}
