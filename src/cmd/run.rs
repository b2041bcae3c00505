//! `rdna2spv run`: a manifest's dispatch on the host evaluator, the Vulkan device or both, compared.

use super::{parse_max_words, Backend, ControlFlowArg, MappingArg, MaxWords, ProfileArg};
use anyhow::{Context, Result};
use rdna2spv::device::{first_difference, open, profile_of};
use rdna2spv::dispatch::{run_host, run_host_at, Plan};
use rdna2spv::manifest::Manifest;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The manifest (TOML): code object or raw words, kernel, grid, workgroup and arguments
    /// (docs/manifest.md; examples in fixtures/run/).
    manifest: PathBuf,
    /// host: the evaluator; vulkan: the translated module on the device; both: both, compared bit for bit.
    #[arg(long, value_enum, default_value = "host")]
    backend: Backend,
    /// Where output buffers go (default: the current directory).
    #[arg(long, default_value = ".")]
    out: PathBuf,
    /// Lowering profile for the Vulkan backend.
    #[arg(long, value_enum, default_value = "device")]
    profile: ProfileArg,
    /// Vulkan device: an index or part of its name (default: RDNA2SPV_VK_DEVICE, else a GPU, else lavapipe).
    #[arg(long)]
    device: Option<String>,
    /// Give up on a device dispatch after this many milliseconds (default 60,000): a hung or lost device
    /// is an error (exit 2), not a hang.
    /// Left out, the default (or RDNA2SPV_VK_TIMEOUT_S seconds) applies and a module's first dispatch on
    /// lavapipe, which holds its compile, also waits 4× its predicted compile time (D241); a value given
    /// here is exact.
    #[arg(long)]
    timeout_ms: Option<u64>,
    /// Turn off the device's bounds checks (decision D158). By default every global/flat/buffer access
    /// is validated on the device against the run's allocations (the manifest's buffers, the kernarg
    /// segment, the dispatch packet, the code object image; scratch and LDS against their regions):
    /// an access outside them stops the run with the report the host evaluator gives (workgroup, wave,
    /// pc, instruction, lane, address; exit 2) instead of crashing rdna2spv (lavapipe runs in this
    /// process) or corrupting its memory. Unchecked runs are a little faster (docs/performance.md)
    /// and trust the kernel.
    #[arg(long, conflicts_with = "checked")]
    unchecked: bool,
    /// Accepted for old scripts: checked runs are the default now (D158).
    #[arg(long, hide = true)]
    checked: bool,
    /// Control flow of the Vulkan module: structured (default) or one dispatcher loop.
    #[arg(long, value_enum, default_value = "structured")]
    control_flow: ControlFlowArg,
    /// SPIR-V invocation per lane or per wave; auto (default): lane when the lane lowering accepts
    /// the kernel, else wave, saying why on stderr (decisions D082, D083, D126).
    #[arg(long, value_enum, default_value = "auto")]
    mapping: MappingArg,
    /// Refuse a module over this many words (default 1,000,000, or RDNA2SPV_MAX_MODULE_WORDS; `none`: no
    /// limit): lavapipe's compile of larger modules takes minutes and gigabytes (decision D164).
    #[arg(long, value_parser = parse_max_words)]
    max_module_words: Option<MaxWords>,
}

pub fn run(a: Args) -> Result<i32> {
    let Args {
        manifest,
        backend,
        out,
        profile,
        device,
        timeout_ms,
        unchecked,
        checked: _,
        control_flow,
        mapping,
        max_module_words,
    } = a;
    let checked = !unchecked;
    let m = Manifest::load(&manifest)?;
    let mut plan = Plan::new(&m)?;
    let name = plan.kernel.name.clone();
    let (buffers, code) = match backend {
        Backend::Host => {
            let (buffers, stats) = run_host(&mut plan)?;
            eprintln!(
                "rdna2spv: {name} on the host evaluator: {} waves, {} instructions, {} lane-instructions",
                stats.waves, stats.instructions, stats.lane_instructions
            );
            (buffers, 0)
        }
        Backend::Vulkan | Backend::Both => {
            let ctx = open(device.as_deref())?;
            let prof = profile_of(&ctx, profile.into())?;
            let ctx = match timeout_ms {
                Some(ms) => ctx.with_timeout(std::time::Duration::from_millis(ms)),
                None => ctx,
            };
            let ctx = match max_module_words {
                Some(MaxWords(l)) => ctx.with_max_module_words(l),
                None => ctx,
            };
            let mapping = rdna2spv::device::resolve_mapping(
                &plan,
                &prof,
                checked,
                control_flow.into(),
                mapping.fixed(),
            );
            let dev = rdna2spv::device::run_vulkan_mapped(
                &ctx,
                &mut plan,
                &prof,
                checked,
                control_flow.into(),
                mapping,
            )
            .with_context(|| format!("running {name} on the Vulkan device"))?;
            eprintln!(
                "rdna2spv: {name} on {}: {} waves in {:?} workgroups, module {} words, lowered in {:.1} ms, dispatch {:.1} ms",
                dev.device,
                dev.report.invocations,
                dev.report.workgroups,
                dev.report.module_words,
                dev.report.lower_time.as_secs_f64() * 1e3,
                dev.report.dispatch.dispatch.as_secs_f64() * 1e3
            );
            if let Some(t) = dev.report.texel_lds {
                eprintln!(
                    "rdna2spv: workgroup memory in a texel buffer (D288): {} words a workgroup, up to {} \
                     workgroups a chunk",
                    t.region_words, t.regions
                );
            }
            let mut code = 0;
            if backend == Backend::Both {
                let (host, stats) = run_host_at(&plan, &dev.addresses)?;
                eprintln!(
                    "rdna2spv: {name} on the host evaluator: {} waves, {} instructions",
                    stats.waves, stats.instructions
                );
                match first_difference(&host, &dev.buffers) {
                    None => {
                        let n: usize = host
                            .iter()
                            .filter(|b| b.output.is_some())
                            .map(|b| b.data.len())
                            .sum();
                        eprintln!("rdna2spv: host and device agree bit for bit ({n} output bytes)");
                    }
                    Some((buf, off, h, d)) => {
                        eprintln!(
                            "rdna2spv: host and device differ: buffer {buf}, byte offset {off} (element {}): host 0x{h:08x} ({}), device 0x{d:08x} ({})",
                            off / 4,
                            f32::from_bits(h),
                            f32::from_bits(d)
                        );
                        code = 1;
                    }
                }
            }
            (dev.buffers, code)
        }
    };
    rdna2spv::output::write_outputs(&out, &buffers)?;
    Ok(code)
}
