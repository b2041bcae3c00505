//! The Vulkan backend of `rdna2spv run`: buffers at device addresses, the kernarg segment and dispatch packet
//! filled with those addresses, the lifted program lowered for the device's measured profile, one dispatch,
//! and every wave's "finished" flag checked (lavapipe cuts long loops silently; D004, D006).

use crate::dispatch::{Buffer, Plan};
use anyhow::{Context as _, Result};
use rdna2spv_spirv::lower::{ControlFlow, KernelLayout, LowerOptions, Mapping, SgprInit};
use rdna2spv_vulkan::{Context, DeviceProfile, DeviceSelector, RunOptions, RunReport};

/// Which profile the lowering uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileChoice {
    /// Every workaround on: the same module is exact on any device with Float64 and Int64.
    Portable,
    /// Measured on the chosen device at start-up.
    Device,
}

/// A device run's results.
pub struct DeviceRun {
    pub buffers: Vec<Buffer>,
    pub addresses: Vec<u64>,
    pub report: RunReport,
    pub device: String,
    pub profile: DeviceProfile,
}

/// Opens the device: `choice` (an index in the loader's order, or part of a device name), else
/// `RDNA2SPV_VK_DEVICE`, else the default (a GPU, else lavapipe).
pub fn open(choice: Option<&str>) -> Result<Context> {
    let selector = match choice.map(str::trim) {
        Some(c) if !c.is_empty() => match c.parse::<usize>() {
            Ok(i) => DeviceSelector::Index(i),
            Err(_) => DeviceSelector::NameContains(c.to_string()),
        },
        _ => DeviceSelector::from_env(),
    };
    Context::new(selector).context(
        "opening a Vulkan device (install mesa-vulkan-drivers for lavapipe, or use --backend host)",
    )
}

pub fn profile_of(ctx: &Context, choice: ProfileChoice) -> Result<DeviceProfile> {
    Ok(match choice {
        ProfileChoice::Portable => DeviceProfile::portable(),
        ProfileChoice::Device => {
            rdna2spv_vulkan::probe(ctx).context("probing the device profile")?
        }
    })
}

/// Runs the plan on `ctx`; binds it to the device buffers' addresses (so the host can run at the same ones).
/// Checked (memory-safe, decision D158): every global access is validated against the plan's buffers.
pub fn run_vulkan(ctx: &Context, plan: &mut Plan, profile: &DeviceProfile) -> Result<DeviceRun> {
    run_vulkan_with(ctx, plan, profile, true)
}

/// Bytes of unregistered memory after each buffer of a checked run (the host evaluator's gap is 64 KiB).
pub const CHECK_GUARD_BYTES: u64 = 0x1_0000;

/// [`run_vulkan`]; with `checked` (the default of `run`, D158; `run --unchecked` turns it off), every
/// global/flat/buffer access is validated against the plan's buffers (argument buffers, kernarg segment,
/// dispatch packet, the code object image) on the device, in either mapping: an access outside them is an
/// error naming its workgroup, wave, pc, lane and address, as the host evaluator names it, and touches no
/// memory outside the buffers. Scratch and LDS accesses are bounded in either case (D010; LDS only when
/// checked).
pub fn run_vulkan_with(
    ctx: &Context,
    plan: &mut Plan,
    profile: &DeviceProfile,
    checked: bool,
) -> Result<DeviceRun> {
    run_vulkan_opts(ctx, plan, profile, checked, ControlFlow::default())
}

/// [`run_vulkan_with`] with the lowering's control-flow form chosen (`run --control-flow`).
pub fn run_vulkan_opts(
    ctx: &Context,
    plan: &mut Plan,
    profile: &DeviceProfile,
    checked: bool,
    control_flow: ControlFlow,
) -> Result<DeviceRun> {
    run_vulkan_mapped(ctx, plan, profile, checked, control_flow, Mapping::Wave)
}

/// `run --mapping`: the wave or lane mapping, or `None` for auto (decision D083; the choice and its reason
/// are printed on stderr).
pub fn resolve_mapping(
    plan: &Plan,
    profile: &DeviceProfile,
    checked: bool,
    control_flow: ControlFlow,
    mapping: Option<Mapping>,
) -> Mapping {
    if let Some(m) = mapping {
        return m;
    }
    let layout = rdna2spv_vulkan::kernel_layout(&plan.launch);
    let opts = LowerOptions {
        control_flow,
        segments: plan.segments(),
        checked: checked.then_some(plan.buffers.len() as u16),
        ..LowerOptions::default()
    };
    let chosen = rdna2spv_spirv::lower::choose_mapping(&plan.program, &layout, profile, &opts);
    match chosen.fallback_reason() {
        None => eprintln!("rdna2spv: mapping: lane (auto)"),
        Some(why) => {
            eprintln!("rdna2spv: mapping: wave (auto: the lane lowering refused the kernel: {why})")
        }
    }
    chosen.mapping()
}

/// [`run_vulkan_opts`] with the lane or wave mapping (decision D082).
pub fn run_vulkan_mapped(
    ctx: &Context,
    plan: &mut Plan,
    profile: &DeviceProfile,
    checked: bool,
    control_flow: ControlFlow,
    mapping: Mapping,
) -> Result<DeviceRun> {
    let mut once = ModuleCache::default();
    run_vulkan_mapped_cached(
        ctx,
        plan,
        profile,
        checked,
        control_flow,
        mapping,
        &mut once,
    )
}

/// The module of a plan's last run and what it was lowered for (D149). `bench device` keeps one per
/// translated kernel and scale, so that its warm runs dispatch the module of its first run instead of
/// lowering it again just before each timed dispatch: a dispatch that follows a millisecond of other work
/// costs lavapipe more CPU than one that follows the previous dispatch closely, whatever the module.
#[derive(Default)]
pub struct ModuleCache {
    key: Option<ModuleKey>,
    words: Vec<u32>,
    /// Runs that reused the module (for the tests).
    pub hits: usize,
}

/// Everything [`rdna2spv_vulkan::lower_for_run`]'s result depends on besides the program: the layout with
/// its `Const` SGPR values cleared (they are launch words, read at run time, and hold the bound buffer
/// addresses), the grid, the profile, the options and the number of checked allocations.
#[derive(PartialEq)]
struct ModuleKey {
    layout: KernelLayout,
    grid: [u32; 3],
    profile: DeviceProfile,
    opts: LowerOptions,
    allocations: usize,
}

impl ModuleKey {
    fn new(plan: &Plan, profile: &DeviceProfile, opts: &LowerOptions, allocations: usize) -> Self {
        let mut layout = rdna2spv_vulkan::kernel_layout(&plan.launch);
        for (_, v) in &mut layout.sgprs {
            if let SgprInit::Const(c) = v {
                *c = 0;
            }
        }
        // The image's address is a launch word too (D155).
        layout.code_base = layout.code_base.map(|_| 0);
        ModuleKey {
            layout,
            grid: plan.launch.grid,
            profile: profile.clone(),
            opts: *opts,
            allocations,
        }
    }
}

/// [`run_vulkan_mapped`] that reuses `cache`'s module when it was lowered for this plan's program (a plan
/// whose [`Plan::program_fixed`]; `cache` must not move between plans) and the same [`ModuleKey`], and
/// otherwise lowers and keeps the new module. A reused module is the one the lowering would give again:
/// the lowering is a function of those inputs.
pub fn run_vulkan_mapped_cached(
    ctx: &Context,
    plan: &mut Plan,
    profile: &DeviceProfile,
    checked: bool,
    control_flow: ControlFlow,
    mapping: Mapping,
    cache: &mut ModuleCache,
) -> Result<DeviceRun> {
    // Checked mode gives every buffer an unregistered guard band after it, as the host evaluator's layout
    // does (`host_addresses`): an overrun lands in no allocation instead of in the next buffer.
    let guard = if checked { CHECK_GUARD_BYTES } else { 0 };
    let mut bufs = Vec::with_capacity(plan.buffers.len());
    for b in &plan.buffers {
        bufs.push(ctx.create_buffer((b.data.len() as u64).max(4) + guard)?);
    }
    let addresses: Vec<u64> = bufs.iter().map(|b| b.device_address()).collect();
    plan.bind(&addresses, plan.launch.grid)?;
    for (buf, b) in bufs.iter_mut().zip(&plan.buffers) {
        buf.upload(0, &b.data)?;
    }
    let allocations: Vec<(u64, u64)> = if checked {
        addresses
            .iter()
            .zip(&plan.buffers)
            .map(|(&a, b)| (a, b.data.len() as u64))
            .collect()
    } else {
        Vec::new()
    };
    let opts = RunOptions {
        lower: LowerOptions {
            control_flow,
            mapping,
            segments: plan.segments(),
            // Checked runs keep no fault records (D184): a fault re-runs with them, below.
            check_flag_only: checked,
            ..LowerOptions::default()
        },
        allocations: &allocations,
    };
    let key = ModuleKey::new(plan, profile, &opts.lower, allocations.len());
    let first = if plan.program_fixed() && cache.key.as_ref() == Some(&key) {
        cache.hits += 1;
        rdna2spv_vulkan::run_lowered(ctx, &plan.program, &plan.launch, &cache.words, &allocations)
    } else {
        let t0 = std::time::Instant::now();
        let words =
            rdna2spv_vulkan::lower_for_run(ctx, &plan.program, &plan.launch, profile, &opts)?;
        let lower_time = t0.elapsed();
        let report =
            rdna2spv_vulkan::run_lowered(ctx, &plan.program, &plan.launch, &words, &allocations);
        *cache = ModuleCache {
            key: plan.program_fixed().then_some(key),
            words,
            hits: cache.hits,
        };
        report.map(|mut r| {
            r.lower_time = lower_time;
            r
        })
    };
    let report = match first {
        Err(rdna2spv_vulkan::RunError::FaultUnrecorded { .. }) => {
            // The kernel faulted: the same buffers (same addresses) get their inputs again (a checked run
            // writes nothing outside them), and the module with fault records names the first fault as the
            // evaluator would (D158, D184).
            for (buf, b) in bufs.iter_mut().zip(&plan.buffers) {
                buf.upload(0, &b.data)?;
            }
            let mut with = opts;
            with.lower.check_flag_only = false;
            let words =
                rdna2spv_vulkan::lower_for_run(ctx, &plan.program, &plan.launch, profile, &with)?;
            rdna2spv_vulkan::run_lowered(ctx, &plan.program, &plan.launch, &words, &allocations)?
        }
        other => other?,
    };
    let mut buffers = Vec::with_capacity(bufs.len());
    for (buf, b) in bufs.iter().zip(&plan.buffers) {
        let mut data = buf.download_all()?;
        data.truncate(b.data.len());
        buffers.push(Buffer { data, ..b.clone() });
    }
    plan.add_global_outputs(&mut buffers);
    Ok(DeviceRun {
        buffers,
        addresses,
        report,
        device: ctx.info().name.clone(),
        profile: profile.clone(),
    })
}

/// The first difference between two runs' output buffers: (buffer, byte offset, host word, device word).
pub fn first_difference(host: &[Buffer], device: &[Buffer]) -> Option<(String, usize, u32, u32)> {
    let sorted = |v: &[u8]| {
        let mut w: Vec<u32> = v
            .chunks(4)
            .map(|c| c.iter().rev().fold(0u32, |a, b| (a << 8) | *b as u32))
            .collect();
        w.sort_unstable();
        w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()
    };
    for (h, d) in host.iter().zip(device).filter(|(h, _)| h.output.is_some()) {
        let (h, d) = if h.unordered {
            (
                Buffer {
                    data: sorted(&h.data),
                    ..h.clone()
                },
                Buffer {
                    data: sorted(&d.data),
                    ..d.clone()
                },
            )
        } else {
            (h.clone(), d.clone())
        };
        if h.data == d.data {
            continue;
        }
        let i = h
            .data
            .iter()
            .zip(&d.data)
            .position(|(a, b)| a != b)
            .unwrap_or(h.data.len().min(d.data.len()));
        let w = i & !3;
        let word = |v: &[u8]| {
            let mut b = [0u8; 4];
            for (k, x) in v.iter().skip(w).take(4).enumerate() {
                b[k] = *x;
            }
            u32::from_le_bytes(b)
        };
        return Some((
            h.output.clone().unwrap_or_default(),
            w,
            word(&h.data),
            word(&d.data),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(name: &str, words: &[u32], unordered: bool) -> Buffer {
        Buffer {
            name: name.into(),
            data: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            output: Some(name.into()),
            unordered,
        }
    }

    #[test]
    fn names_the_first_differing_element() {
        let host = [buf("a", &[1, 2, 3], false), buf("b", &[5, 6, 7, 8], false)];
        let same = host.clone();
        assert_eq!(first_difference(&host, &same), None);
        let dev = [
            buf("a", &[1, 2, 3], false),
            buf("b", &[5, 6, 0x3f80_0000, 8], false),
        ];
        assert_eq!(
            first_difference(&host, &dev),
            Some(("b".into(), 8, 7, 0x3f80_0000))
        );
        // Unordered outputs compare as multisets; a changed value is still a difference.
        let (h, d) = ([buf("t", &[3, 1, 2], true)], [buf("t", &[1, 2, 3], true)]);
        assert_eq!(first_difference(&h, &d), None);
        assert!(first_difference(&h, &[buf("t", &[1, 2, 4], true)]).is_some());
        // Buffers that are not outputs are not compared.
        let mut hidden = host.clone();
        hidden[1].output = None;
        assert_eq!(first_difference(&hidden, &dev), None);
    }
}
