//! `rdna2spv translate`: a kernel to a SPIR-V module. Its arguments are [`Args`], all in one place.

use super::{emit, lifted, parse_max_words, ControlFlowArg, MappingArg, MaxWords, ProfileArg};
use anyhow::{bail, Context, Result};
use rdna2spv::device::{open, profile_of, ProfileChoice};
use rdna2spv::output::write_atomically;
use rdna2spv_spirv::lower::{lower_with, Chosen};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The code object (ELF) or offload bundle holding the kernel.
    file: PathBuf,
    /// The kernel's symbol name (without `.kd`); may be left out when FILE holds one kernel.
    #[arg(long)]
    kernel: Option<String>,
    /// Where the SPIR-V module goes (written only when the whole translation succeeded).
    #[arg(short, long, required_unless_present = "dump_lane_plan")]
    output: Option<PathBuf>,
    /// Print the lane mapping's plan (every lane rule's decision, docs/lane-mapping.md) and exit;
    /// exit 2 with the reason when the lane mapping refuses the kernel.
    #[arg(long)]
    dump_lane_plan: bool,
    /// Lowering profile: which exact emulations of driver float behaviour the module carries.
    #[arg(long, value_enum, default_value = "portable")]
    profile: ProfileArg,
    /// Workgroup size the module is built for (default: the kernel's required size, else 64,1,1).
    #[arg(long, value_delimiter = ',', num_args = 1..=3)]
    workgroup: Option<Vec<u32>>,
    /// Vulkan device for `--profile device`: an index or part of its name (default: a GPU, else lavapipe).
    #[arg(long)]
    device: Option<String>,
    /// Control flow between blocks: structured selections and loops (default), or one dispatcher loop
    /// over every block. Irreducible regions that need a dispatcher are named on stderr.
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
        file,
        kernel,
        output,
        profile,
        workgroup,
        device,
        control_flow,
        mapping,
        max_module_words,
        dump_lane_plan,
    } = a;
    let (k, program) = lifted(&file, kernel.as_deref())?;
    let wg = match workgroup {
        Some(v) => [
            v[0],
            v.get(1).copied().unwrap_or(1),
            v.get(2).copied().unwrap_or(1),
        ],
        None => k
            .metadata
            .as_ref()
            .and_then(|m| m.reqd_workgroup_size.clone())
            .filter(|v| v.len() == 3)
            .map(|v| [v[0] as u32, v[1] as u32, v[2] as u32])
            .unwrap_or([64, 1, 1]),
    };
    let launch = rdna2spv_eval::Launch {
        wave_size: k.abi.wave_size,
        grid: wg,
        workgroup: wg,
        sgprs: rdna2spv::dispatch::initial_sgprs(&k.abi, 0, 0),
        workitem_id_vgprs: k.abi.workitem_id_vgprs.len() as u32,
        lds_bytes: k.descriptor.group_segment_fixed_size,
        scratch_bytes: k.descriptor.private_segment_fixed_size,
        max_steps_per_wave: 0,
        code_base: None,
    };
    let profile = match profile {
        ProfileArg::Portable => rdna2spv_vulkan::DeviceProfile::portable(),
        ProfileArg::Device => profile_of(&open(device.as_deref())?, ProfileChoice::Device)?,
    };
    let mut opts = rdna2spv_spirv::lower::LowerOptions {
        control_flow: control_flow.into(),
        segments: rdna2spv::dispatch::launch_segments(&k),
        ..Default::default()
    };
    let layout = rdna2spv_vulkan::kernel_layout(&launch);
    if dump_lane_plan {
        let plan = rdna2spv_spirv::lower::lane_plan(&program, &layout, &profile, &opts)
            .with_context(|| format!("{}: the lane mapping refuses the kernel", k.name))?;
        emit(&plan.to_string())?;
        return Ok(0);
    }
    let output = output.context("-o OUT is required")?;
    // `auto` lowers the lane module to decide; when it is chosen, that module is the translation.
    let chosen = match mapping.fixed() {
        Some(m) => {
            opts.mapping = m;
            None
        }
        None => {
            let c = rdna2spv_spirv::lower::choose_mapping(&program, &layout, &profile, &opts);
            match c.fallback_reason() {
                Some(why) => eprintln!("rdna2spv: mapping: wave (auto: {why})"),
                None => eprintln!("rdna2spv: mapping: lane (auto)"),
            }
            opts.mapping = c.mapping();
            Some(c)
        }
    };
    let words = match chosen {
        Some(Chosen::Lane(words)) => words,
        _ => lower_with(&program, &layout, &profile, &opts)?,
    };
    if opts.control_flow == rdna2spv_spirv::lower::ControlFlow::Structured {
        let s = rdna2spv_ir::cfg::Structure::of(&program);
        eprintln!(
            "rdna2spv: control flow: {} blocks, {} loops, {} irreducible regions (dispatcher)",
            s.number.iter().filter(|&&n| n != u32::MAX).count(),
            s.loops,
            s.dispatch_regions.len()
        );
        for note in rdna2spv_spirv::lower::control_flow_notes(&program) {
            eprintln!("rdna2spv: note: {note}");
        }
    }
    let limit = match max_module_words {
        Some(MaxWords(l)) => l,
        None => rdna2spv_vulkan::limit::max_module_words_from_env().map_err(anyhow::Error::msg)?,
    };
    if let Some(limit) = limit.filter(|&l| words.len() > l) {
        bail!(
            "{}: {}",
            k.name,
            rdna2spv_vulkan::limit::too_large_message(
                &rdna2spv_vulkan::limit::module_cost(&words),
                limit
            )
        );
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    write_atomically(&output, &bytes)?;
    eprintln!(
        "rdna2spv: {} -> {} ({} words, workgroup {wg:?})",
        k.name,
        output.display(),
        words.len()
    );
    let split = rdna2spv_spirv::lower::split_factor(&words);
    if split > 1 {
        eprintln!(
            "rdna2spv: note: each wave runs as its own Vulkan workgroup (LocalSize {}, decision \
             D105): dispatch {split} times the workgroup count in x",
            k.abi.wave_size
        );
    }
    Ok(0)
}
