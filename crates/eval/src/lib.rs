//! The host evaluator: interprets a lifted [`Program`] for a whole dispatch — workgroups, waves (wave32 or
//! wave64), lanes, EXEC/VCC/SCC/M0, the SGPR and VGPR files, LDS per workgroup, `s_barrier` across the waves of
//! a workgroup, and global memory at the same device addresses a Vulkan run uses.
//!
//! It is the oracle: it computes the ISA's semantics (through [`specialize`] for the target quirks) and never
//! depends on a device profile. Floats are bit patterns; fused operations use the host's fused multiply-add.
//!
//! Two layers (decision D176): `reference` is the plain interpreter of the IR — a node at a time, the
//! definition of what a program computes — and `fast` holds the fused instruction and block forms that
//! reproduce it faster, offered to the reference's workgroup loop through its `Shortcut` hook. The reference
//! imports nothing from the fast layer; [`end_states`] runs either and tests/eval_fast_paths.rs compares them.
//! Beneath both: [`memory`], [`specialize`] (target quirks of the float operations) and [`atomic`].

pub mod atomic;
mod fast;
pub mod memory;
mod reference;
pub mod specialize;
pub mod trace;

pub use memory::{Fault, Memory};
pub use reference::WaveState;

use rdna2spv_ir::{verify, Program, Sreg, VerifyError};

/// What one SGPR holds when a wave starts: the launch ABI's one type, shared with the lowering (D170).
pub use rdna2spv_ir::launch::SgprInit;

/// Everything the evaluator needs to start the waves of a dispatch (built from the kernel descriptor, the
/// code object's metadata and the manifest).
#[derive(Debug, Clone)]
pub struct Launch {
    pub wave_size: u32,
    /// Grid size in work-items per dimension (HSA grid size).
    pub grid: [u32; 3],
    pub workgroup: [u32; 3],
    pub sgprs: Vec<(Sreg, SgprInit)>,
    /// How many of v0, v1, v2 receive the work-item id x, y, z (0..=2 → 1..=3 VGPRs).
    pub workitem_id_vgprs: u32,
    /// LDS bytes per workgroup.
    pub lds_bytes: u32,
    /// Private segment (scratch) bytes per lane (the descriptor's private_segment_fixed_size); each wave gets
    /// a zero-filled region of `wave_size` times this, rounded up to dwords ([`rdna2spv_ir::Space::Scratch`]).
    pub scratch_bytes: u32,
    /// Instructions a wave may execute before the run stops as a runaway loop.
    pub max_steps_per_wave: u64,
    /// Where the code object's image is placed ([`rdna2spv_ir::Node::CodeBase`]; `None`: no image, the
    /// node reads 0; decision D155).
    pub code_base: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("the program does not verify: {0}")]
    Verify(#[from] VerifyError),
    #[error("workgroup {workgroup:?}, wave {wave}, pc 0x{pc:x} ({text}): {fault}")]
    Fault {
        workgroup: [u32; 3],
        wave: u32,
        pc: u32,
        text: String,
        fault: Fault,
    },
    #[error("workgroup {workgroup:?}, wave {wave}: runaway after {steps} instructions, last at pc 0x{pc:x} ({text})")]
    Runaway {
        workgroup: [u32; 3],
        wave: u32,
        steps: u64,
        pc: u32,
        text: String,
    },
    #[error("bad launch: {0}")]
    Launch(String),
    /// [`run_cancellable`]'s flag was set: the run stopped after `workgroups` whole workgroups, memory
    /// holding what it wrote up to then (decision D254).
    #[error("cancelled after {workgroups} workgroups")]
    Cancelled { workgroups: u64 },
    /// A run-time refusal (`Node::Refuse`, decision D097).
    #[error("workgroup {workgroup:?}, wave {wave}, pc 0x{pc:x} ({text}), lane {lane}: unsupported at run time: {reason}")]
    Refused {
        workgroup: [u32; 3],
        wave: u32,
        pc: u32,
        text: String,
        lane: u32,
        reason: &'static str,
    },
}

/// Counters of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub waves: u64,
    pub instructions: u64,
    /// Instructions times active lanes.
    pub lane_instructions: u64,
}

/// How much of a program the evaluator's fast forms cover (decisions D090, D113): for tests that check the
/// fast forms against the general path, and for the benchmark's notes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FastForms {
    pub instructions: usize,
    /// Instructions with a fused (VALU or scalar) form.
    pub fused_instructions: usize,
    pub blocks: usize,
    /// Blocks that run as one block form.
    pub block_forms: usize,
}

/// [`FastForms`] of `program`.
pub fn fast_forms(program: &Program) -> Result<FastForms, EvalError> {
    let types = verify(program)?;
    let fused = fast::fuse(program, &types);
    Ok(FastForms {
        instructions: fused.iter().map(Vec::len).sum(),
        fused_instructions: fused.iter().flatten().filter(|f| f.is_some()).count(),
        blocks: fused.blocks.len(),
        block_forms: fused.blocks.iter().filter(|b| b.is_some()).count(),
    })
}

/// A wave's architectural state when it ended ([`end_states`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndState {
    pub workgroup: [u32; 3],
    pub sgpr: [u32; 128],
    pub scc: bool,
    pub vgpr: Vec<u32>,
    pub steps: u64,
}

/// [`run`] (`general` false: with the fast forms) or the general path alone (`general` true: the reference
/// interpreter without the fast layer, every instruction node by node), returning every wave's final state
/// too: for tests that check the fast forms against the general path beyond what reaches memory.
#[doc(hidden)]
pub fn end_states(
    program: &Program,
    launch: &Launch,
    memory: &mut Memory,
    general: bool,
) -> Result<(Stats, Vec<EndState>), EvalError> {
    reference::END_STATES.with(|c| *c.borrow_mut() = Some(Vec::new()));
    let r = if general {
        run_reference(program, launch, memory)
    } else {
        run(program, launch, memory)
    };
    let states = reference::END_STATES
        .with(|c| c.borrow_mut().take())
        .unwrap_or_default();
    r.map(|s| (s, states))
}

/// Runs every workgroup of the dispatch, in order.
pub fn run(program: &Program, launch: &Launch, memory: &mut Memory) -> Result<Stats, EvalError> {
    run_with(program, launch, memory, None)
}

/// [`run`] by the reference interpreter alone, without the fast layer.
fn run_reference(
    program: &Program,
    launch: &Launch,
    memory: &mut Memory,
) -> Result<Stats, EvalError> {
    run_layers(program, launch, memory, None, false, None)
}

/// [`run`] that stops with [`EvalError::Cancelled`] soon after `cancel` is set (from another thread):
/// before its next workgroup, or inside one within 65,536 steps of a wave. The HIP runtime's `auto`
/// backend runs a launch on the evaluator over a copy of the device's memory and drops it when the
/// launch's pipeline has compiled first (decision D254).
pub fn run_cancellable(
    program: &Program,
    launch: &Launch,
    memory: &mut Memory,
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<Stats, EvalError> {
    run_layers(program, launch, memory, None, true, Some(cancel))
}

/// [`run`] with an optional tracer ([`trace::run_traced`]).
pub(crate) fn run_with(
    program: &Program,
    launch: &Launch,
    memory: &mut Memory,
    tracer: Option<&mut trace::Tracer>,
) -> Result<Stats, EvalError> {
    run_layers(program, launch, memory, tracer, true, None)
}

/// [`run`] with an optional tracer, with the fast layer (`fast`) or without it.
fn run_layers(
    program: &Program,
    launch: &Launch,
    memory: &mut Memory,
    tracer: Option<&mut trace::Tracer>,
    fast: bool,
    cancel: Option<&std::sync::atomic::AtomicBool>,
) -> Result<Stats, EvalError> {
    let types = verify(program)?;
    let fused = fast.then(|| fast::fuse(program, &types));
    if launch.wave_size != 32 && launch.wave_size != 64 {
        return Err(EvalError::Launch(format!(
            "wave size {} (must be 32 or 64)",
            launch.wave_size
        )));
    }
    let wg = launch.workgroup;
    let threads = wg.iter().map(|&x| x as u64).product::<u64>();
    if threads == 0 || threads > 1024 {
        return Err(EvalError::Launch(format!(
            "workgroup {wg:?} has {threads} work-items (1..=1024)"
        )));
    }
    if launch.grid.contains(&0) {
        return Err(EvalError::Launch(format!(
            "grid {:?} is empty",
            launch.grid
        )));
    }
    let groups: Vec<u32> = (0..3).map(|d| launch.grid[d].div_ceil(wg[d])).collect();
    let d = reference::Dispatch {
        program,
        types: &types,
        launch,
        vgprs: reference::vgpr_bound(program, &types),
        cancel,
    };
    let mut obs = reference::Observers {
        traces: None,
        tracer,
    };
    let mut stats = Stats::default();
    let mut accel = fused.as_ref().map(fast::Accel::new);
    let mut done = 0u64;
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                if cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
                    return Err(EvalError::Cancelled { workgroups: done });
                }
                done += 1;
                let group = [gx, gy, gz];
                let ran = match accel.as_mut() {
                    Some(a) => reference::run_workgroup(&d, group, memory, &mut stats, &mut obs, a),
                    None => reference::run_workgroup(
                        &d,
                        group,
                        memory,
                        &mut stats,
                        &mut obs,
                        &mut reference::Plain,
                    ),
                };
                match ran {
                    // Stopped inside this workgroup: the ones before it ended.
                    Err(EvalError::Cancelled { .. }) => {
                        return Err(EvalError::Cancelled {
                            workgroups: done - 1,
                        })
                    }
                    r => r?,
                }
            }
        }
    }
    Ok(stats)
}

/// The blocks one wave entered, in order (`Program::blocks` indices, the entry first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveTrace {
    pub workgroup: [u32; 3],
    pub wave: u32,
    pub blocks: Vec<u32>,
}

/// [`run`], also recording the block trace of every wave (for checking a structured translation's block
/// order against the machine program's).
pub fn run_traced(
    program: &Program,
    launch: &Launch,
    memory: &mut Memory,
) -> Result<(Stats, Vec<WaveTrace>), EvalError> {
    let types = verify(program)?;
    let fused = fast::fuse(program, &types);
    if launch.wave_size != 32 && launch.wave_size != 64 {
        return Err(EvalError::Launch(format!(
            "wave size {} (must be 32 or 64)",
            launch.wave_size
        )));
    }
    let wg = launch.workgroup;
    let threads = wg.iter().map(|&x| x as u64).product::<u64>();
    if threads == 0 || threads > 1024 || launch.grid.contains(&0) {
        return Err(EvalError::Launch(format!(
            "workgroup {wg:?} / grid {:?}",
            launch.grid
        )));
    }
    let groups: Vec<u32> = (0..3).map(|d| launch.grid[d].div_ceil(wg[d])).collect();
    let d = reference::Dispatch {
        program,
        types: &types,
        launch,
        vgprs: reference::vgpr_bound(program, &types),
        cancel: None,
    };
    let mut stats = Stats::default();
    let mut traces = Vec::new();
    let mut obs = reference::Observers {
        traces: Some(&mut traces),
        tracer: None,
    };
    let mut accel = fast::Accel::new(&fused);
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                reference::run_workgroup(
                    &d,
                    [gx, gy, gz],
                    memory,
                    &mut stats,
                    &mut obs,
                    &mut accel,
                )?;
            }
        }
    }
    Ok((stats, traces))
}

#[cfg(test)]
mod layering {
    /// The paths of the fast layer (`crate::fast` and its modules) that the reference side must not name.
    const FAST: [&str; 4] = ["fast::", "fused::", "fused_multi::", "block::"];

    /// `path` segments in the code (comments left out) of `source`, as (line, segment) pairs.
    fn fast_paths(source: &str) -> Vec<(usize, &'static str)> {
        let mut found = Vec::new();
        for (i, line) in source.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for seg in FAST {
                // A segment on its own: not the tail of a longer name (`Refused`, `is_fast::`).
                let hit = code.match_indices(seg).any(|(at, _)| {
                    !code[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                if hit {
                    found.push((i + 1, seg));
                }
            }
        }
        found
    }

    /// Decision D176: the reference interpreter and the tracer that observes it name nothing of the fast
    /// layer; the fast forms reach it only through `reference::Shortcut`, which lib.rs hands in.
    #[test]
    fn the_reference_does_not_use_the_fast_layer() {
        for (name, source) in [
            ("reference.rs", include_str!("reference.rs")),
            ("trace.rs", include_str!("trace.rs")),
        ] {
            assert_eq!(fast_paths(source), [], "{name} names the fast layer");
        }
    }

    /// The check sees a use of the fast layer and ignores comments and longer names.
    #[test]
    fn the_layering_check_can_fail() {
        assert_eq!(fast_paths("use crate::fast::Accel;"), [(1, "fast::")]);
        assert_eq!(
            fast_paths("x\n    super::fused::run(f, w, e);"),
            [(2, "fused::")]
        );
        assert_eq!(fast_paths("// crate::fast::Accel\nlet Refused = 1;"), []);
        assert_eq!(fast_paths("is_fast::x(); fast_read_vgpr()"), []);
    }
}
