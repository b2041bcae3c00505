//! Running a lifted [`Program`] on the device: lower it (wave per invocation, D006), pass the launch
//! through push constants and a small launch buffer, dispatch, and check every wave's "finished" flag.
//!
//! Memory the kernel reads and writes is the caller's: create [`Buffer`](crate::Buffer)s first, put
//! their device addresses into the kernel arguments (and, for an exact comparison, populate the
//! evaluator's `Memory` at the same addresses), run, then download the buffers.

use std::time::{Duration, Instant};

use rdna2spv_eval::Launch;
use rdna2spv_ir::Program;
use rdna2spv_spirv::lower::{
    self, launch_words, push_constants, KernelLayout, LowerError, LowerOptions, FLAG_BLOCK_SHIFT,
    FLAG_CUT_SHORT, FLAG_FINISHED, FLAG_KIND_MASK, FLAG_MISALIGNED, FLAG_REFUSED,
    FLAG_SCRATCH_FAULT,
};
use rdna2spv_spirv::lower::{
    check_buffer_words, check_records_offset, FaultRecord, FAULT_RECORD_WORDS, FLAG_OOB,
};
use rdna2spv_spirv::DeviceProfile;

use crate::{Context, DispatchStats};

/// What can stop a device run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("lowering failed: {0}")]
    Lower(#[from] LowerError),
    #[error(transparent)]
    Vulkan(#[from] crate::Error),
    #[error("bad launch: {0}")]
    Launch(String),
    #[error(transparent)]
    Trace(#[from] rdna2spv_ir::trace::TraceError),
    /// Checked mode: a wave accessed global memory outside every allocation (its first such access; the
    /// lowest-numbered faulting wave). Worded as the evaluator words its faults.
    #[error("workgroup {workgroup:?}, wave {wave}, pc 0x{pc:x}{text}: {kind} of {bytes} bytes at 0x{address:x} is outside every allocation{lane_text} [{count} of {total} waves faulted]", text = text.as_ref().map(|t| format!(" ({t})")).unwrap_or_default(), lane_text = lane.map(|l| format!(" (lane {l})")).unwrap_or_default())]
    OutOfBounds {
        workgroup: [u32; 3],
        wave: u32,
        pc: u32,
        /// The instruction's text, when the program is known.
        text: Option<String>,
        lane: Option<u32>,
        address: u64,
        kind: &'static str,
        bytes: u32,
        count: usize,
        total: usize,
    },
    /// Checked mode without fault records ([`LowerOptions::check_flag_only`], D184): waves accessed memory
    /// outside every allocation, and the module kept no record to name the access; run again with records.
    #[error("{count} of {total} waves accessed memory outside every allocation (first: workgroup {workgroup:?}, wave {wave}; the module keeps no fault records)")]
    FaultUnrecorded {
        workgroup: [u32; 3],
        wave: u32,
        count: usize,
        total: usize,
    },
    /// Some waves did not report that they finished (lavapipe's silent loop cap, or a crash).
    #[error(
        "{count} of {total} waves did not finish cleanly (first: workgroup {workgroup}, wave {wave}, flag {flag}: {what}{at})"
    )]
    NotFinished {
        /// Where a cut-short wave was: `", in block N"`, or with the program `", in the block at pc 0x.."`.
        at: String,
        /// The block number a cut-short wave reported.
        block: Option<u32>,
        count: usize,
        total: usize,
        workgroup: usize,
        wave: usize,
        flag: u32,
        what: &'static str,
    },
}

/// Timings and sizes of one device run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunReport {
    /// SPIR-V words of the module.
    pub module_words: usize,
    /// Time spent in [`lower_for_run`] (zero after [`run_lowered`]).
    pub lower_time: Duration,
    /// Pipeline creation and dispatch (lavapipe JITs lazily inside the first dispatch).
    pub dispatch: DispatchStats,
    /// Invocations (waves, including empty ones past a partial workgroup).
    pub invocations: usize,
    /// The kernel's workgroups (the Vulkan dispatch is wider for split waves, D105, and rows for a folded
    /// grid, D253).
    pub workgroups: [u32; 3],
    /// The module keeps its workgroup memory in a texel buffer, dispatched in chunks (D288).
    pub texel_lds: Option<rdna2spv_spirv::lower::TexelLds>,
}

/// The module-shaping part of a launch (the evaluator's [`Launch`] → the lowering's [`KernelLayout`]).
pub fn kernel_layout(launch: &Launch) -> KernelLayout {
    KernelLayout {
        wave_size: launch.wave_size,
        workgroup: launch.workgroup,
        sgprs: launch.sgprs.clone(),
        workitem_id_vgprs: launch.workitem_id_vgprs,
        lds_bytes: launch.lds_bytes,
        scratch_bytes: launch.scratch_bytes,
        code_base: launch.code_base,
    }
}

/// How [`run_program`] lowers and checks a run; `RunOptions::default()` is the plain run (default
/// lowering, no checking).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions<'a> {
    /// The lowering's options.
    pub lower: LowerOptions,
    /// Checked mode when not empty: each `(device address, bytes)` is an allocation, every global access
    /// is validated against them ([`LowerOptions::checked`]) and the first out-of-bounds one is reported
    /// as [`RunError::OutOfBounds`] instead of touching memory outside them.
    pub allocations: &'a [(u64, u64)],
}

/// Lowers `program` for `launch` with `profile` and `opts` ([`lower_for_run`]) and runs it on `ctx`.
pub fn run_program(
    ctx: &Context,
    program: &Program,
    launch: &Launch,
    profile: &DeviceProfile,
    opts: &RunOptions,
) -> Result<RunReport, RunError> {
    run_program_extra(ctx, program, launch, profile, opts, &[])
}

/// The module [`run_program`] lowers and dispatches for these inputs: `opts.lower` in checked mode when
/// `opts.allocations` is not empty, and with [`LowerOptions::whole_workgroups`] when split waves (D105)
/// would make the dispatch wider than the device allows. It depends on `launch` through [`kernel_layout`]
/// less the values of its `Const` SGPRs (launch words the module reads at run time, `lower`'s module
/// docs) and through `launch.grid` (the split-width fallback): [`run_lowered`] may reuse it while those,
/// the program, `profile`, `opts.lower` and the number of allocations stay the same (D149).
pub fn lower_for_run(
    ctx: &Context,
    program: &Program,
    launch: &Launch,
    profile: &DeviceProfile,
    opts: &RunOptions,
) -> Result<Vec<u32>, RunError> {
    let layout = kernel_layout(launch);
    let allocations = opts.allocations;
    let mut opts = opts.lower;
    if !allocations.is_empty() {
        opts.checked = Some(u16::try_from(allocations.len()).map_err(|_| {
            RunError::Launch(format!("{} allocations to check", allocations.len()))
        })?);
    } else if opts.checked.is_some() {
        return Err(RunError::Launch(
            "checked lowering without allocations: give RunOptions::allocations".into(),
        ));
    }
    let mut words = lower::lower_with(program, &layout, profile, &opts)?;
    // Split waves (D105) multiply the dispatch's width; past the device's limit, keep whole workgroups.
    // A grid past the limits in any dimension is also folded into rows (D253).
    let split = lower::split_factor(&words) as u64;
    let groups = layout.workgroups(launch.grid);
    let max = ctx.info().max_workgroup_count;
    let fold = (0..3).any(|d| groups[d] > max[d]);
    // Rows of at most 65,535 (Vulkan's minimum limit): the module's `row · W + x` stays below 2^32.
    let width = max[0].min(65_535);
    if fold {
        if lower::folded_dispatch(groups, width, max[1]).is_none() {
            return Err(RunError::Launch(format!(
                "grid {:?} is {groups:?} workgroups of {:?}: more than one dispatch of this device holds \
                 folded into rows (at most {} × {})",
                launch.grid, layout.workgroup, width, max[1]
            )));
        }
        opts.whole_workgroups = true;
        opts.fold = Some(width);
        words = lower::lower_with(program, &layout, profile, &opts)?;
    } else if split > 1 && groups[0] as u64 * split > max[0] as u64 {
        opts.whole_workgroups = true;
        words = lower::lower_with(program, &layout, profile, &opts)?;
    }
    Ok(words)
}

/// [`run_program`] with its module already lowered: `words` must be what [`lower_for_run`] gave for the
/// same program, profile, lowering options, number of allocations, layout shape and grid, and
/// `allocations` are the run's (checked mode when not empty, as [`RunOptions::allocations`]). D149: the
/// bench's warm runs reuse their first run's module, so that no lowering runs just before the timed
/// dispatch. The report's `lower_time` is zero.
pub fn run_lowered(
    ctx: &Context,
    program: &Program,
    launch: &Launch,
    words: &[u32],
    allocations: &[(u64, u64)],
) -> Result<RunReport, RunError> {
    run_lowered_extra(ctx, program, launch, words, allocations, &[])
}

/// [`run_program`] with `extra` launch words after the Const words, the scratch address and the check
/// buffer's address (the trace buffers, `crate::trace`).
pub(crate) fn run_program_extra(
    ctx: &Context,
    program: &Program,
    launch: &Launch,
    profile: &DeviceProfile,
    opts: &RunOptions,
    extra: &[u32],
) -> Result<RunReport, RunError> {
    let t0 = Instant::now();
    let words = lower_for_run(ctx, program, launch, profile, opts)?;
    let lower_time = t0.elapsed();
    let mut r = run_lowered_extra(ctx, program, launch, &words, opts.allocations, extra)?;
    r.lower_time = lower_time;
    Ok(r)
}

/// [`run_lowered`] with `extra` launch words ([`run_program_extra`]); names a fault's instruction and a
/// stuck wave's block from `program`.
fn run_lowered_extra(
    ctx: &Context,
    program: &Program,
    launch: &Launch,
    words: &[u32],
    allocations: &[(u64, u64)],
    extra: &[u32],
) -> Result<RunReport, RunError> {
    let r = run_module(
        ctx,
        words,
        &kernel_layout(launch),
        launch.grid,
        allocations,
        extra,
    );
    // A dispatch that finished: its program's encodings ran on the device (issue 28's coverage log).
    if r.is_ok() {
        crate::coverage_log::record(program);
    }
    r.map_err(|e| name_in_program(program, e))
}

/// [`run_lowered`] without the lifted program, for a module taken from a persistent cache (the HIP
/// runtime's, D160): a fault's instruction and a stuck wave's block are then given as the device
/// reported them; [`name_in_program`] names them once the caller has lifted the kernel. Returns None when
/// the coverage log (`RDNA2SPV_COVERAGE_LOG`) is on: it needs the program, so the caller lifts.
pub fn run_lowered_unlifted(
    ctx: &Context,
    launch: &Launch,
    words: &[u32],
    allocations: &[(u64, u64)],
) -> Option<Result<RunReport, RunError>> {
    if std::env::var_os("RDNA2SPV_COVERAGE_LOG").is_some() {
        return None;
    }
    Some(run_module(
        ctx,
        words,
        &kernel_layout(launch),
        launch.grid,
        allocations,
        &[],
    ))
}

/// A device error with the faulting instruction's text and a stuck wave's block start taken from
/// `program` (the program the module was lowered from).
pub fn name_in_program(program: &Program, mut e: RunError) -> RunError {
    match e {
        RunError::OutOfBounds {
            ref mut text, pc, ..
        } => {
            *text = program
                .blocks
                .iter()
                .flat_map(|(_, b)| &b.insts)
                .find(|i| i.pc == pc)
                .map(|i| i.text.clone());
            e
        }
        RunError::NotFinished {
            ref mut at,
            block: Some(b),
            ..
        } => {
            if let Some((_, blk)) = program.blocks.iter().nth(b as usize) {
                *at = format!(", in the block at pc {:#x}", blk.start_pc);
            } else {
                *at = format!(", in block {b}");
            }
            e
        }
        e => e,
    }
}

/// Runs a module made by [`lower_for_run`] for `layout` over `grid` work-items, in checked mode when
/// `allocations` is not empty, with `extra` launch words last.
fn run_module(
    ctx: &Context,
    words: &[u32],
    layout: &KernelLayout,
    grid: [u32; 3],
    allocations: &[(u64, u64)],
    extra: &[u32],
) -> Result<RunReport, RunError> {
    let checked = (!allocations.is_empty()).then_some(allocations);
    if grid.contains(&0) {
        return Err(RunError::Launch(format!("grid {grid:?} is empty")));
    }
    let groups = layout.workgroups(grid);
    // A module whose waves run as Vulkan workgroups of their own (D105) is dispatched that much wider in
    // x; its flags keep the kernel workgroup's order.
    let dispatched = match lower::fold_width(words) {
        // D253: rows of `w` Vulkan workgroups.
        Some(w) => lower::folded_dispatch(groups, w, ctx.info().max_workgroup_count[1])
            .ok_or_else(|| {
                RunError::Launch(format!(
                    "grid {grid:?} ({groups:?} workgroups) does not fold into rows of {w}"
                ))
            })?,
        None => [
            groups[0].saturating_mul(lower::split_factor(words)),
            groups[1],
            groups[2],
        ],
    };
    let per_group = layout.waves_per_workgroup() as usize;
    let n_groups = groups.iter().map(|&g| g as usize).product::<usize>();
    let total = n_groups * per_group;
    // Scratch: one zero-filled slot per wave (D010); its address follows the launch words.
    let mut words_in = launch_words(layout);
    let scratch_bytes = lower::scratch_buffer_bytes(layout, grid);
    let scratch = if scratch_bytes > 0 {
        let b = ctx.create_buffer(scratch_bytes)?;
        let a = b.device_address();
        words_in.extend([a as u32, (a >> 32) as u32]);
        Some(b)
    } else {
        None
    };
    // One flag word per wave, or one per lane in a lane-mapping module (D116): the wave's flag is the
    // maximum of its words. Fault records are kept per flag slot (D158).
    let slots = lower::flag_slots(words) as usize;
    // Checked mode: the check buffer (sink, allocations, fault records); its address comes next.
    let check = match checked {
        Some(allocs) => {
            let w = check_buffer_words(allocs, total * slots);
            let mut b = ctx.create_buffer(4 * w.len() as u64)?;
            b.upload_u32(0, &w)?;
            let a = b.device_address();
            words_in.extend([a as u32, (a >> 32) as u32]);
            // Then each allocation's (base, size), read from the push constants' copy where it fits (D158).
            for &(base, size) in allocs {
                words_in.extend([
                    base as u32,
                    (base >> 32) as u32,
                    size as u32,
                    (size >> 32) as u32,
                ]);
            }
            Some((b, allocs.len()))
        }
        None => None,
    };
    words_in.extend_from_slice(extra);
    let mut launch_buf = ctx.create_buffer(4 * words_in.len().max(1) as u64)?;
    launch_buf.upload_u32(0, &words_in)?;
    let flags = ctx.create_buffer(4 * (total * slots) as u64)?;
    let pc = push_constants(
        launch_buf.device_address(),
        flags.device_address(),
        grid,
        &words_in,
    );
    let dispatch = ctx.dispatch(words, "main", dispatched, &pc)?;
    let got: Vec<u32> = flags
        .download_u32(0, total * slots)?
        .chunks(slots)
        .map(|w| w.iter().copied().max().unwrap_or(0))
        .collect();
    drop(scratch);
    let bad: Vec<(usize, u32)> = got
        .iter()
        .enumerate()
        .filter(|(_, &f)| f != FLAG_FINISHED)
        .map(|(i, &f)| (i, f))
        .collect();
    let oob: Vec<usize> = bad
        .iter()
        .filter(|(_, f)| f & FLAG_KIND_MASK == FLAG_OOB)
        .map(|&(i, _)| i)
        .collect();
    if let (Some(&i), Some((buf, n))) = (oob.first(), &check) {
        // The wave's records (one per lane in the lane mapping): the lowest slot that recorded a fault
        // (a record's kind word is never zero once written).
        let first = check_records_offset(*n) + FAULT_RECORD_WORDS * i * slots;
        let words = buf.download_u32(4 * first as u64, FAULT_RECORD_WORDS * slots)?;
        let g = i / per_group;
        let (gx, gy) = (groups[0] as usize, groups[1] as usize);
        let workgroup = [
            (g % gx) as u32,
            (g / gx % gy) as u32,
            (g / (gx * gy)) as u32,
        ];
        let wave = (i % per_group) as u32;
        let Some(rec) = words
            .chunks(FAULT_RECORD_WORDS)
            .find(|r| r[4] != 0)
            .map(FaultRecord::from_words)
        else {
            // A module lowered without records (D184): the caller runs again with them.
            return Err(RunError::FaultUnrecorded {
                workgroup,
                wave,
                count: oob.len(),
                total,
            });
        };
        return Err(RunError::OutOfBounds {
            workgroup,
            wave,
            pc: rec.pc,
            text: None,
            lane: rec.lane,
            address: rec.address,
            kind: rec.kind,
            bytes: rec.bytes,
            count: oob.len(),
            total,
        });
    }
    drop(check);
    if let Some(&(i, word)) = bad.first() {
        let flag = word & FLAG_KIND_MASK;
        let block = (flag == FLAG_CUT_SHORT).then_some(word >> FLAG_BLOCK_SHIFT);
        return Err(RunError::NotFinished {
            at: block.map(|b| format!(", in block {b}")).unwrap_or_default(),
            block,
            count: bad.len(),
            total,
            workgroup: i / per_group,
            wave: i % per_group,
            flag,
            what: if flag == FLAG_CUT_SHORT {
                "a loop stopped before its exit condition (driver loop cap?)"
            } else if flag == FLAG_MISALIGNED {
                "a memory access crossed a dword boundary; lower with Unaligned::Emulate"
            } else if flag == FLAG_REFUSED {
                "an instruction met a case the translator refuses at run time, such as a typed buffer access through a V# whose format has no established conversion (run --backend host for the lane, pc and reason)"
            } else if flag == FLAG_SCRATCH_FAULT {
                "a scratch access fell outside the wave's private segment (run --backend host for the lane and pc)"
            } else {
                "the wave never wrote its flag (killed)"
            },
        });
    }
    Ok(RunReport {
        module_words: words.len(),
        lower_time: Duration::ZERO,
        dispatch,
        invocations: total,
        workgroups: groups,
        texel_lds: lower::texel_lds(words),
    })
}

/// What [`run_with_buffers`] gives back.
#[derive(Debug, Clone)]
pub struct BufferRun {
    /// The launch built from the buffers' device addresses (give it to the evaluator for a comparison).
    pub launch: Launch,
    /// Each buffer's device address, in the order of the initial contents.
    pub addresses: Vec<u64>,
    /// Each buffer's contents after the run.
    pub outputs: Vec<Vec<u8>>,
    pub report: RunReport,
}

/// Creates one buffer per entry of `init` (filled with it), builds the launch from their device
/// addresses with `launch_of` (kernel arguments usually hold those addresses), runs `program`, and
/// downloads every buffer. For `--backend both`, populate the evaluator's `Memory` with `init` at
/// `addresses` and run it with `launch`: the two must agree byte for byte.
pub fn run_with_buffers(
    ctx: &Context,
    program: &Program,
    init: &[Vec<u8>],
    launch_of: impl FnOnce(&[u64]) -> Launch,
    profile: &DeviceProfile,
    opts: &LowerOptions,
) -> Result<BufferRun, RunError> {
    let mut bufs = Vec::with_capacity(init.len());
    for b in init {
        bufs.push(ctx.buffer_from_bytes(b)?);
    }
    let addresses: Vec<u64> = bufs.iter().map(|b| b.device_address()).collect();
    let launch = launch_of(&addresses);
    let opts = RunOptions {
        lower: *opts,
        ..RunOptions::default()
    };
    let report = run_program(ctx, program, &launch, profile, &opts)?;
    let mut outputs = Vec::with_capacity(bufs.len());
    for b in &bufs {
        outputs.push(b.download_all()?);
    }
    Ok(BufferRun {
        launch,
        addresses,
        outputs,
        report,
    })
}
