//! The `rdna2spv` command line. Exit codes: 0 success; 1 a comparison or check failed; 2 bad input or usage
//! (a clear message on stderr, never a partial output file).

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use rdna2spv::device::{first_difference, open, profile_of, ProfileChoice};
use rdna2spv::disasm::{lines, Listing};
use rdna2spv::dispatch::{run_host, run_host_at, target_of, Plan};
use rdna2spv::manifest::Manifest;
use rdna2spv::output::write_atomically;
use rdna2spv_codeobj::CodeObject;
use rdna2spv_isa::Target;
use std::io::Write as _;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "rdna2spv",
    version,
    about = "Translate AMD RDNA 2 (gfx10.3) machine code to SPIR-V and evaluate it exactly on the host",
    long_about = "rdna2spv reads HSA code objects (clang/hipcc for gfx1030), clang offload bundles and raw \
instruction words. It disassembles them exactly as llvm-objdump-19 does, lifts them to an IR of exact \
primitives, translates that IR to a SPIR-V compute module any Vulkan 1.3 device runs, and runs the same IR on a \
host evaluator that computes the ISA's semantics bit for bit, so the device can be checked against the host.\n\n\
Examples:\n  rdna2spv info fixtures/kernels/saxpy.co\n  rdna2spv disasm fixtures/kernels/saxpy.co\n  \
rdna2spv disasm --raw words.bin --target gfx1010\n  rdna2spv lift fixtures/kernels/saxpy.co\n  \
rdna2spv translate fixtures/kernels/saxpy.co --kernel saxpy -o saxpy.spv\n  \
rdna2spv run fixtures/run/saxpy.toml --out /tmp/out\n  \
rdna2spv run fixtures/run/saxpy.toml --backend both --out /tmp/out   (device vs host, bit for bit)\n  \
rdna2spv diff fixtures/run/divergent.toml   (first divergent instruction, host vs device)\n  \
rdna2spv exec --backend both -- ./hip_program   (an unmodified hipcc-built program through our HIP runtime)\n\n\
Exit status: 0 success, 1 a comparison failed, 2 bad input or usage."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum)]
enum TargetArg {
    Gfx1030,
    Gfx1010,
    Gfx1013,
}

impl From<TargetArg> for Target {
    fn from(t: TargetArg) -> Target {
        match t {
            TargetArg::Gfx1030 => Target::Gfx1030,
            TargetArg::Gfx1010 => Target::Gfx1010,
            TargetArg::Gfx1013 => Target::Gfx1013,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    Host,
    Vulkan,
    Both,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ProfileArg {
    /// Every workaround on: exact on any Vulkan 1.3 device with Float64 and Int64.
    Portable,
    /// Measure the chosen device at start-up and work around only what it gets wrong.
    Device,
}

impl From<ProfileArg> for ProfileChoice {
    fn from(p: ProfileArg) -> Self {
        match p {
            ProfileArg::Portable => ProfileChoice::Portable,
            ProfileArg::Device => ProfileChoice::Device,
        }
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// List the kernels of a code object: descriptors (every field), register ABI and arguments.
    Info {
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Disassemble, one instruction per line, exactly as `llvm-objdump-19 -d --mcpu=gfx1030` prints it.
    ///
    /// FILE is a code object (ELF) or an offload bundle; with --raw (or without ELF magic) it is taken as
    /// little-endian instruction words from byte 0. Undecodable words print a line beginning `<invalid>`.
    Disasm {
        file: PathBuf,
        /// Treat FILE as raw little-endian instruction words.
        #[arg(long)]
        raw: bool,
        /// Sub-target: decides a few opcode slots (gfx1010/gfx1013 have the MAD/MAC family).
        #[arg(long, value_enum)]
        target: Option<TargetArg>,
        /// Only this kernel (symbol name).
        #[arg(long)]
        kernel: Option<String>,
        /// Print lane masks as wave64 (vcc, exec) for raw words; code objects take it from the descriptor.
        #[arg(long)]
        wave64: bool,
    },
    /// Print the IR a kernel lifts to.
    Lift {
        /// The code object (ELF) or offload bundle.
        file: PathBuf,
        /// The kernel's symbol name (without `.kd`); may be left out when FILE holds one kernel.
        #[arg(long)]
        kernel: Option<String>,
    },
    /// Translate a kernel to a SPIR-V compute module for Vulkan 1.3 (one invocation per lane where it can).
    ///
    /// The module is specialised for a workgroup size; buffer addresses and kernel arguments arrive at run
    /// time. `--profile portable` (default) emits every exact emulation; `device` measures the Vulkan device
    /// (RDNA2SPV_VK_DEVICE selects it) and works around only what it gets wrong.
    Translate {
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
    },
    /// Run a kernel described by a manifest; write every output buffer to DIR/<name>.bin.
    ///
    /// `--backend both` runs the Vulkan device first, then the host evaluator on the same device addresses,
    /// and compares every output buffer bit for bit (exit 1 at the first difference, which it names).
    Run {
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
    },
    /// Trace a manifest's dispatch: one JSON Lines record per executed instruction and wave (EXEC, every
    /// register written, memory writes by address), on the host evaluator or the Vulkan device.
    Trace(rdna2spv::trace::TraceArgs),
    /// Capture a compute shader as RADV/ACO compiles it (RADV's null device, no AMD GPU needed; or from a
    /// RADV_DEBUG=shaders log): code words, ACO's listing and a ready-to-run raw manifest (docs/captures.md).
    Capture(rdna2spv::capture::CaptureArgs),
    /// Trace on both backends and report the first divergent record: workgroup, wave, lane, instruction,
    /// host vs device bits and the operands. Exit 0 identical, 1 divergent, 2 bad input.
    Diff(rdna2spv::trace::DiffArgs),
    /// Check the real-world corpus `cargo xtask corpus rocsparse` extracted (docs/corpus.md): every listing
    /// against llvm-objdump-19, every kernel translated and checked with spirv-val; prints a table with the
    /// missing opcodes ranked. Exit 1 when a listing differs or spirv-val rejects a module.
    Corpus {
        /// The corpus directory (default: ~/.cache/rdna2spv/corpus/rocsparse; RDNA2SPV_CORPUS_DIR overrides).
        dir: Option<PathBuf>,
        /// Only these bundles (indices as in index.json), e.g. `--bundles 3,17`.
        #[arg(long, value_delimiter = ',')]
        bundles: Vec<usize>,
        /// Worker threads.
        #[arg(long, default_value = "2")]
        jobs: usize,
        /// Skip the llvm-objdump-19 comparison.
        #[arg(long)]
        no_decode: bool,
        /// Skip translation.
        #[arg(long)]
        no_translate: bool,
        /// Translate, but skip spirv-val.
        #[arg(long)]
        no_validate: bool,
        /// Validate every distinct module now, ignoring (and rewriting) the cache of modules an earlier run
        /// found spirv-val-clean (`spirv-val-clean.txt` in the corpus directory, D077).
        #[arg(long)]
        fresh_validation: bool,
        /// Run spirv-val only on modules of at most this many words; a larger one counts as validated only
        /// when its exact bytes were found clean before (this run or the cache), else as translated, not
        /// validated (spirv-val's cost grows faster than linearly with the module; D077).
        #[arg(long)]
        validate_max_words: Option<usize>,
        /// Rows of the missing-opcode tables.
        #[arg(long, default_value = "40")]
        top: usize,
        /// Also write the whole report (every kernel's outcome) as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Lowering profile: `device` (default) measures the Vulkan device (lavapipe in CI); `portable`
        /// assumes nothing (no Float64/Int64: every f64 instruction is then refused).
        #[arg(long, value_enum, default_value = "device")]
        profile: ProfileArg,
        /// Vulkan device for `--profile device`: an index or part of its name.
        #[arg(long)]
        device: Option<String>,
        /// Lower every kernel in this mapping (`auto` is not a corpus choice): `wave` (default) or `lane`,
        /// whose refusals are then listed by reason.
        #[arg(long, value_enum, default_value = "wave")]
        mapping: MappingArg,
    },
    /// Run an unmodified hipcc-built program with rdna2spv's HIP runtime: its gfx1030 kernels on the host
    /// evaluator or, translated, on a Vulkan device (README "Run a HIP program", decision D156).
    ///
    /// The program's stdout, stderr and exit status pass through. `--backend both` runs every launch on
    /// the device, then on the host evaluator from the same memory at the same addresses, and stops the
    /// program with exit 1 at the first difference (launch number, kernel, address). A call or feature the
    /// runtime does not support stops it with a message naming it and exit 2.
    Exec {
        /// host: the evaluator; vulkan: the translated kernels on the device; both: both, compared.
        #[arg(long, value_enum, default_value = "vulkan")]
        backend: Backend,
        /// Vulkan device: an index or part of its name (default: RDNA2SPV_VK_DEVICE, else a GPU, else lavapipe).
        #[arg(long)]
        device: Option<String>,
        /// Lowering profile for the Vulkan backend.
        #[arg(long, value_enum, default_value = "device")]
        profile: ProfileArg,
        /// One line per launch on stderr: kernel, grid, block, backend, time, module cache hit.
        #[arg(long)]
        log: bool,
        /// Checked device launches: every global access is validated against the live allocations (the
        /// module, kernarg segment, dispatch packet and every hipMalloc); an access outside them stops the
        /// program with the host evaluator's report (exit 2) instead of corrupting memory. Slower.
        #[arg(long)]
        checked: bool,
        /// The program and its arguments (after `--`).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<std::ffi::OsString>,
    },
    /// The seeds' numeric studies reproduced on translated gfx1030 code (docs/numerics.md).
    Probe {
        #[command(subcommand)]
        what: ProbeCmd,
    },
}

#[derive(Subcommand)]
enum ProbeCmd {
    /// Seed ADR-1407: a*b+c, a/b and sqrtf(|a|) from hipcc's three builds, host vs device vs SoftFloat.
    ///
    /// Exit 1 when the host and the device differ anywhere or the strict build differs from the correctly
    /// rounded references.
    StrictFp {
        /// Random operand triples (the 2,197 boundary triples come on top).
        #[arg(long, default_value_t = 1 << 20)]
        random: usize,
        #[arg(long, default_value_t = 0x1407)]
        seed: u64,
        /// Only these builds (strict, default, nocrdiv); default all three.
        #[arg(long, value_delimiter = ',')]
        build: Vec<String>,
        /// `host`: the evaluator only; `vulkan` or `both`: the device and the host, compared.
        #[arg(long, value_enum, default_value = "both")]
        backend: Backend,
        #[arg(long)]
        device: Option<String>,
        /// The folder holding the probe code objects (default: fixtures/kernels of the source tree).
        #[arg(long)]
        kernels: Option<PathBuf>,
        /// Print the report as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Also write the JSON report to this file.
        #[arg(long)]
        json_out: Option<PathBuf>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Seed 003: fp32mp2 double-word error bounds in units of u², against binary128.
    ///
    /// Exit 1 when the host and the device differ anywhere or a bound of the seed is exceeded.
    DoubleWord {
        /// Operands per operation and regime (default 2^20).
        #[arg(long, default_value_t = 1 << 20)]
        n: usize,
        /// 2^24 operands per operation and regime (the seed's size).
        #[arg(long)]
        full: bool,
        #[arg(long, default_value_t = 0x3003)]
        seed: u64,
        /// Only the kernels whose name contains one of these (e.g. add_high,acc).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Only these operand regimes (same, random, cancel, positive, near-worst, work, work-same).
        #[arg(long, value_delimiter = ',')]
        regime: Vec<String>,
        #[arg(long, value_enum, default_value = "both")]
        backend: Backend,
        #[arg(long)]
        device: Option<String>,
        #[arg(long)]
        kernels: Option<PathBuf>,
        #[arg(long)]
        json: bool,
        /// Also write the JSON report to this file.
        #[arg(long)]
        json_out: Option<PathBuf>,
        /// Also write the error-distribution plot here.
        #[arg(long)]
        svg: Option<PathBuf>,
        #[arg(long)]
        quiet: bool,
    },
}

/// `--mapping`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum MappingArg {
    Wave,
    Lane,
    Auto,
}

impl MappingArg {
    fn fixed(self) -> Option<rdna2spv_spirv::lower::Mapping> {
        match self {
            MappingArg::Wave => Some(rdna2spv_spirv::lower::Mapping::Wave),
            MappingArg::Lane => Some(rdna2spv_spirv::lower::Mapping::Lane),
            MappingArg::Auto => None,
        }
    }
}

/// `--control-flow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ControlFlowArg {
    Structured,
    Dispatcher,
}

impl From<ControlFlowArg> for rdna2spv_spirv::lower::ControlFlow {
    fn from(c: ControlFlowArg) -> Self {
        match c {
            ControlFlowArg::Structured => Self::Structured,
            ControlFlowArg::Dispatcher => Self::Dispatcher,
        }
    }
}

fn main() {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("rdna2spv: error: {e:#}");
            std::process::exit(2);
        }
    }
}

fn run(cli: Cli) -> Result<i32> {
    match cli.cmd {
        Cmd::Info { file, json } => {
            let co = load(&file)?;
            if json {
                let mut v = serde_json::to_value(&co)?;
                v["image"] = match &co.image {
                    Ok(im) => serde_json::to_value(im)?,
                    Err(e) => serde_json::json!({ "error": e.to_string() }),
                };
                emit(&(serde_json::to_string_pretty(&v)? + "\n"))?;
            } else {
                emit(&rdna2spv_codeobj::describe(&co))?;
            }
            Ok(0)
        }
        Cmd::Disasm {
            file,
            raw,
            target,
            kernel,
            wave64,
        } => {
            let bytes =
                std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let is_object = !raw
                && (bytes.starts_with(b"\x7fELF")
                    || bytes.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"));
            let mut out = String::new();
            if is_object {
                let co = CodeObject::parse_any(&bytes)
                    .with_context(|| format!("loading {}", file.display()))?;
                let t = target.map(Target::from).unwrap_or_else(|| target_of(&co));
                let name = file
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_default();
                if let Some(k) = &kernel {
                    co.kernel(k)?;
                }
                let elf = rdna2spv::disasm::elf_image(&bytes)?;
                out = rdna2spv::disasm::object_listing(&name, elf, &co, t, kernel.as_deref());
            } else {
                if bytes.is_empty() {
                    bail!("{} is empty", file.display());
                }
                let listing = Listing {
                    code: &bytes,
                    address: 0,
                    symbol: None,
                    target: target.map(Target::from).unwrap_or_default(),
                    wave64,
                };
                for l in lines(&listing) {
                    out += &l;
                    out.push('\n');
                }
            }
            emit(&out)?;
            Ok(0)
        }
        Cmd::Lift { file, kernel } => {
            let (_, p) = lifted(&file, kernel.as_deref())?;
            rdna2spv_ir::verify(&p)?;
            emit(&p.to_string())?;
            Ok(0)
        }
        Cmd::Translate {
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
        } => {
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
            opts.mapping = match mapping.fixed() {
                Some(m) => m,
                None => {
                    let (m, why) =
                        rdna2spv_spirv::lower::choose_mapping(&program, &layout, &profile, &opts);
                    match why {
                        Some(why) => eprintln!("rdna2spv: mapping: wave (auto: {why})"),
                        None => eprintln!("rdna2spv: mapping: lane (auto)"),
                    }
                    m
                }
            };
            let words = rdna2spv_spirv::lower::lower_with(
                &program,
                &rdna2spv_vulkan::kernel_layout(&launch),
                &profile,
                &opts,
            )?;
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
                None => rdna2spv_vulkan::limit::max_module_words_from_env()
                    .map_err(anyhow::Error::msg)?,
            };
            if let Some(limit) = limit.filter(|&l| words.len() > l) {
                bail!(
                    "{}: {}",
                    k.name,
                    rdna2spv_vulkan::limit::too_large_message(words.len(), limit)
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
        Cmd::Corpus {
            dir,
            bundles,
            jobs,
            no_decode,
            no_translate,
            no_validate,
            fresh_validation,
            validate_max_words,
            top,
            json,
            profile,
            device,
            mapping,
        } => {
            let profile = match profile {
                ProfileArg::Portable => rdna2spv_vulkan::DeviceProfile::portable(),
                ProfileArg::Device => profile_of(&open(device.as_deref())?, ProfileChoice::Device)?,
            };
            let Some(mapping) = mapping.fixed() else {
                bail!("corpus --mapping takes wave or lane (auto chooses per kernel; the corpus measures one)");
            };
            let opts = rdna2spv::corpus::Options {
                mapping,
                profile,
                decode: !no_decode,
                translate: !no_translate,
                validate: !no_validate,
                jobs,
                validate_max_words,
                progress: true,
                ..Default::default()
            };
            corpus(dir, bundles, opts, fresh_validation, top, json)
        }
        Cmd::Run {
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
        } => {
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
        Cmd::Trace(a) => rdna2spv::trace::cli_trace(&a),
        Cmd::Capture(a) => rdna2spv::capture::cli_capture(&a),
        Cmd::Diff(a) => rdna2spv::trace::cli_diff(&a),
        Cmd::Probe { what } => probe(what),
        Cmd::Exec {
            backend,
            device,
            profile,
            log,
            checked,
            mut command,
        } => {
            let program = command.remove(0);
            rdna2spv::exec::exec(&rdna2spv::exec::ExecOptions {
                backend: match backend {
                    Backend::Host => "host",
                    Backend::Vulkan => "vulkan",
                    Backend::Both => "both",
                },
                device,
                profile: match profile {
                    ProfileArg::Portable => "portable",
                    ProfileArg::Device => "device",
                },
                log,
                checked,
                program,
                args: command,
            })
        }
    }
}

/// `--max-module-words`: a number of words, or `none` (D164).
#[derive(Clone, Copy)]
struct MaxWords(Option<usize>);

fn parse_max_words(v: &str) -> Result<MaxWords, String> {
    rdna2spv_vulkan::limit::parse_limit(v)
        .map(MaxWords)
        .ok_or_else(|| format!("{v:?} is not a number of words or `none`"))
}

fn corpus(
    dir: Option<PathBuf>,
    bundles: Vec<usize>,
    mut opts: rdna2spv::corpus::Options,
    fresh_validation: bool,
    top: usize,
    json: Option<PathBuf>,
) -> Result<i32> {
    let dir = match dir {
        Some(d) => d,
        None => rdna2spv::corpus::default_dir()
            .context("no corpus directory: set HOME or RDNA2SPV_CORPUS_DIR")?,
    };
    let cache = rdna2spv::corpus_validate::Validator::default_cache(&dir);
    if fresh_validation {
        std::fs::remove_file(&cache).ok();
    }
    opts.validation_cache = Some(cache);
    let report = rdna2spv::corpus::check(&dir, &bundles, &opts)?;
    let s = report.summary();
    if let Some(j) = json {
        let text = serde_json::to_string(&serde_json::json!({ "summary": s, "report": report }))?;
        write_atomically(&j, text.as_bytes())?;
    }
    emit(&s.table(top))?;
    emit(&format!(
        "\n{} code objects, {} kernels in {:.1} s with {} jobs (llvm-objdump-19: {:.1} s, our listings: {:.1} s, summed over jobs)\n",
        s.objects, s.kernels, s.seconds, opts.jobs, s.seconds_objdump, s.seconds_ours_listing
    ))?;
    emit(&format!(
        "translation (every attempt, summed): {:.1} s; spirv-val: {:.1} s for {} distinct modules ({:.1} M words); \
         {} kernels' modules repeated one validated in this run, {} were clean in the cache (D077)\n",
        s.seconds_translate,
        s.seconds_validate,
        s.validated_modules,
        s.validated_words as f64 / 1e6,
        s.validated_repeats,
        s.validated_cached
    ))?;
    let failed = s.decode_differing > 0 || !s.invalid.is_empty() || !s.object_errors.is_empty();
    Ok(i32::from(failed))
}

/// Writes to stdout; a reader that went away (`| head`) is not an error.
fn emit(s: &str) -> Result<()> {
    match std::io::stdout().lock().write_all(s.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// A kernel of a code object (the named one, else the first) and the IR it lifts to.
fn lifted(
    file: &Path,
    kernel: Option<&str>,
) -> Result<(rdna2spv_codeobj::Kernel, rdna2spv_ir::Program)> {
    let co = load(file)?;
    let k = match kernel {
        Some(k) => co.kernel(k)?,
        None => match co.kernels.as_slice() {
            [] => bail!("{}: the code object has no kernels", file.display()),
            [k] => k,
            ks => bail!(
                "{}: the code object holds {} kernels ({}): choose one with --kernel",
                file.display(),
                ks.len(),
                ks.iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    };
    let p = rdna2spv::dispatch::lift_kernel(&co, k)?;
    Ok((k.clone(), p))
}

fn load(file: &Path) -> Result<CodeObject> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    CodeObject::parse_any(&bytes).with_context(|| format!("loading {}", file.display()))
}

fn probe_backends(backend: Backend, device: Option<&str>) -> Result<rdna2spv::probe::Backends> {
    Ok(rdna2spv::probe::Backends {
        device: match backend {
            Backend::Host => None,
            Backend::Vulkan | Backend::Both => {
                let ctx = open(device)?;
                let prof = profile_of(&ctx, ProfileChoice::Device)?;
                Some((ctx, prof))
            }
        },
    })
}

fn probe(what: ProbeCmd) -> Result<i32> {
    use rdna2spv::probe::{dw, kernels_dir, strict};
    match what {
        ProbeCmd::StrictFp {
            random,
            seed,
            build,
            backend,
            device,
            kernels,
            json,
            json_out,
            quiet,
        } => {
            let mut builds = Vec::new();
            for b in &strict::BUILDS {
                if build.is_empty() || build.iter().any(|x| x == b.name) {
                    builds.push(b);
                }
            }
            if let Some(x) = build
                .iter()
                .find(|x| !strict::BUILDS.iter().any(|b| b.name == x.as_str()))
            {
                bail!("no build named {x:?}; known: strict, default, nocrdiv");
            }
            let dir = kernels_dir(kernels.as_deref());
            let backends = probe_backends(backend, device.as_deref())?;
            let r = strict::run(&dir, &builds, random, seed, &backends, quiet)?;
            let text = serde_json::to_string_pretty(&r)? + "\n";
            if let Some(p) = json_out {
                write_atomically(&p, text.as_bytes())?;
            }
            if json {
                emit(&text)?;
            } else {
                emit(&r.table())?;
            }
            Ok(if r.passed() { 0 } else { 1 })
        }
        ProbeCmd::DoubleWord {
            n,
            full,
            seed,
            only,
            regime,
            backend,
            device,
            kernels,
            json,
            json_out,
            svg,
            quiet,
        } => {
            let n = if full { 1 << 24 } else { n };
            let mut regimes = Vec::new();
            for name in &regime {
                match dw::Regime::ALL.iter().find(|g| g.cli() == name.as_str()) {
                    Some(&g) => regimes.push(g),
                    None => bail!("--regime: no regime named {name:?}"),
                }
            }
            if n == 0 {
                bail!("--n must be positive");
            }
            let ops: Vec<&dw::Op> = dw::OPS
                .iter()
                .filter(|o| only.is_empty() || only.iter().any(|x| o.kernel.contains(x.as_str())))
                .collect();
            if ops.is_empty() {
                bail!("--only {} matches no operation", only.join(","));
            }
            let dir = kernels_dir(kernels.as_deref());
            let backends = probe_backends(backend, device.as_deref())?;
            let keep = |_: usize, g: dw::Regime| regimes.is_empty() || regimes.contains(&g);
            let r = dw::run_selected(&dir, &ops, n, seed, &backends, quiet, &keep)?;
            if let Some(p) = svg {
                write_atomically(&p, rdna2spv::probe::svg::plot(&r).as_bytes())?;
            }
            let text = serde_json::to_string_pretty(&r)? + "\n";
            if let Some(p) = json_out {
                write_atomically(&p, text.as_bytes())?;
            }
            if json {
                emit(&text)?;
            } else {
                emit(&r.table())?;
            }
            Ok(if r.passed() { 0 } else { 1 })
        }
    }
}
