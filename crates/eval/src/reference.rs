//! The reference interpreter: the evaluator's oracle (decision D176). It runs a lifted program one machine
//! instruction at a time and, inside an instruction, one IR node at a time, in node order, through a value table
//! of 64 lanes per node. What a program means on the host is what this module computes; everything faster
//! (`crate::fast`) must give the same architectural state and memory, and tests/eval_fast_paths.rs checks that
//! it does.
//!
//! Reading order:
//!
//! * [`run_workgroup`]: the waves of one workgroup — their start state ([`new_wave`]), the order they run in
//!   (each wave until it ends or reaches `s_barrier`, in wave order; then the barrier releases them), and what
//!   is kept when the workgroup ends;
//! * [`step`]: one instruction — runaway limit, statistics, its nodes, then the next instruction or the block's
//!   terminator ([`next_instruction`]);
//! * [`eval_node`]: one node; the memory nodes in [`load`], [`store`], [`atomic`] and their per-lane enabled
//!   forms ([`load_if`], [`store_if`], [`atomic_if`]);
//! * the operations: [`float_op`], [`unary`], [`float_cmp`], [`crate::atomic::rmw`], with the target quirks in
//!   [`crate::specialize`];
//! * the lane-array kernels (decision D090): each node's operation over all lanes at once.
//!
//! This module imports nothing from the fast layer (a unit test in lib.rs checks it). The fast layer plugs in
//! through [`Shortcut`]: before each step the workgroup loop offers the wave to it, and it either runs some
//! instructions exactly as [`step`] would or leaves the wave unchanged. [`Plain`] offers nothing: the run is
//! then this module alone.

use crate::memory::{Fault, Memory};
use crate::specialize as sp;
use crate::{EvalError, Launch, SgprInit, Stats};
use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{
    Access, Block, FloatCmp, FloatOp, Handle, Inst, IntOp, Node, Program, Shape, Space, Terminator,
    Ty, UnOp, EXEC_LO,
};

/// The architectural state of one wave.
#[derive(Debug, Clone)]
pub struct WaveState {
    pub wave_size: u32,
    pub sgpr: [u32; 128],
    /// `vgpr[reg * wave_size + lane]`.
    pub vgpr: Vec<u32>,
    pub scc: bool,
    block: Handle<Block>,
    pub(crate) inst: usize,
    done: bool,
    at_barrier: bool,
    pub(crate) steps: u64,
    /// The wave's scratch region (`Space::Scratch`), one allocation at 0.
    private: Memory,
    /// The blocks the wave entered, in order, when the run is traced ([`crate::run_traced`]).
    trace: Option<Vec<u32>>,
    /// The last EXEC seen and its active-lane count (EXEC rarely changes; the count is for [`Stats`]).
    active_lanes: (u64, u64),
}

impl WaveState {
    pub fn exec(&self) -> u64 {
        let lo = self.sgpr[EXEC_LO as usize] as u64;
        if self.wave_size == 64 {
            lo | (self.sgpr[EXEC_LO as usize + 1] as u64) << 32
        } else {
            lo
        }
    }
    pub(crate) fn block_handle(&self) -> Handle<Block> {
        self.block
    }
    /// Marks the wave ended (its block's terminator was `End`).
    pub(crate) fn finish(&mut self) {
        self.done = true;
    }
    /// The number of lanes active in `exec` (cached per EXEC value).
    pub(crate) fn active_count(&mut self, exec: u64) -> u64 {
        if self.active_lanes.0 != exec {
            self.active_lanes = (exec, exec.count_ones() as u64);
        }
        self.active_lanes.1
    }
    pub fn vgpr(&self, reg: u16, lane: u32) -> u32 {
        self.vgpr
            .get(reg as usize * self.wave_size as usize + lane as usize)
            .copied()
            .unwrap_or(0)
    }
    /// Whether the wave runs on: it has not ended and does not wait at a barrier.
    fn runs(&self) -> bool {
        !self.done && !self.at_barrier
    }
}

/// A faster way through some instructions, offered the wave before each [`step`] (implemented by the fast
/// layer, `crate::fast`). Each method either runs instructions with exactly the effect [`step`] would have —
/// registers, memory, `wave.steps`, [`Stats`], the next instruction or block — and returns true, or changes
/// nothing and returns false; it also returns false when a step would pass the runaway limit, which [`step`]
/// then reports at the exact instruction.
pub(crate) trait Shortcut {
    /// Runs the wave, standing at the start of its block, through one or more whole blocks. Not offered under
    /// a tracer (which records each instruction).
    fn blocks(&mut self, wave: &mut WaveState, max_steps: u64, stats: &mut Stats) -> bool;
    /// Runs the wave's next instruction. `vals` is [`step`]'s value table: an instruction that computes its
    /// block's branch condition leaves it there, in its row, for [`next_instruction`].
    fn instruction(
        &mut self,
        p: &Program,
        wave: &mut WaveState,
        max_steps: u64,
        vals: &mut Vec<u64>,
        stats: &mut Stats,
    ) -> bool;
}

/// No shortcut: every instruction through [`step`] (the reference alone).
pub(crate) struct Plain;

impl Shortcut for Plain {
    fn blocks(&mut self, _: &mut WaveState, _: u64, _: &mut Stats) -> bool {
        false
    }
    fn instruction(
        &mut self,
        _: &Program,
        _: &mut WaveState,
        _: u64,
        _: &mut Vec<u64>,
        _: &mut Stats,
    ) -> bool {
        false
    }
}

/// What every workgroup of a run shares.
pub(crate) struct Dispatch<'a> {
    pub(crate) program: &'a Program,
    pub(crate) types: &'a Types,
    pub(crate) launch: &'a Launch,
    /// [`vgpr_bound`] of the program.
    pub(crate) vgprs: usize,
    /// [`crate::run_cancellable`]'s flag, read every [`CANCEL_POLL`] steps of a wave.
    pub(crate) cancel: Option<&'a std::sync::atomic::AtomicBool>,
}

/// How many steps of a wave pass between two reads of the cancel flag: a launch of one long workgroup
/// stops too, within about a millisecond.
const CANCEL_POLL: u64 = 1 << 16;

/// Where a workgroup's results besides memory and statistics go.
#[derive(Default)]
pub(crate) struct Observers<'a> {
    /// The block trace of every wave ([`crate::run_traced`]).
    pub(crate) traces: Option<&'a mut Vec<crate::WaveTrace>>,
    /// A tracer recording instructions ([`crate::trace::run_traced`]).
    pub(crate) tracer: Option<&'a mut crate::trace::Tracer>,
}

/// Runs the waves of workgroup `group` to their ends: each wave in turn until it ends or waits at the barrier,
/// then every waiting wave is released, until all have ended.
pub(crate) fn run_workgroup(
    d: &Dispatch,
    group: [u32; 3],
    memory: &mut Memory,
    stats: &mut Stats,
    obs: &mut Observers,
    shortcut: &mut impl Shortcut,
) -> Result<(), EvalError> {
    let launch = d.launch;
    let size = workgroup_size(launch, group);
    let threads = size[0] * size[1] * size[2];
    let n_waves = threads.div_ceil(launch.wave_size);
    let mut lds = Memory::default();
    if launch.lds_bytes > 0 {
        lds.add("lds", 0, vec![0; launch.lds_bytes as usize])
            .map_err(EvalError::Launch)?;
    }
    let traced = obs.traces.is_some();
    let mut waves: Vec<WaveState> = (0..n_waves)
        .map(|w| new_wave(d.program, launch, group, size, w, traced))
        .collect();
    stats.waves += n_waves as u64;
    let mut scratch = Scratch::default();
    loop {
        for (w, wave) in waves.iter_mut().enumerate() {
            let at = At {
                d,
                group,
                wave_index: w as u32,
            };
            run_wave(
                &at,
                wave,
                memory,
                &mut lds,
                &mut scratch,
                stats,
                obs.tracer.as_deref_mut(),
                shortcut,
            )?;
        }
        if waves.iter().all(|w| w.done) {
            finish_workgroup(d, group, &mut waves, obs);
            return Ok(());
        }
        // Every wave that has not ended waits at the barrier: release them.
        for wave in waves.iter_mut() {
            wave.at_barrier = false;
        }
    }
}

/// Which wave of which workgroup runs.
struct At<'a> {
    d: &'a Dispatch<'a>,
    group: [u32; 3],
    wave_index: u32,
}

/// Runs one wave until it ends or waits at a barrier, offering it to the shortcut before each step.
#[allow(clippy::too_many_arguments)]
fn run_wave(
    at: &At,
    wave: &mut WaveState,
    memory: &mut Memory,
    lds: &mut Memory,
    scratch: &mut Scratch,
    stats: &mut Stats,
    mut tracer: Option<&mut crate::trace::Tracer>,
    shortcut: &mut impl Shortcut,
) -> Result<(), EvalError> {
    let (p, launch_max_steps) = (at.d.program, at.d.launch.max_steps_per_wave);
    let mut next_check = wave.steps.saturating_add(CANCEL_POLL);
    while wave.runs() {
        // Under a cancel flag the shortcuts stop every CANCEL_POLL steps (a loop of whole blocks would not
        // come back here before the step limit) and the flag is read.
        let mut max_steps = launch_max_steps;
        if let Some(c) = at.d.cancel {
            if wave.steps >= next_check {
                if c.load(std::sync::atomic::Ordering::Relaxed) {
                    return Err(EvalError::Cancelled { workgroups: 0 });
                }
                next_check = wave.steps.saturating_add(CANCEL_POLL);
            }
            max_steps = max_steps.min(next_check);
        }
        let Some(t) = tracer.as_deref_mut() else {
            // Whole blocks in one piece (decision D113), else the instruction's fast form (decision D090).
            if wave.inst == 0 && shortcut.blocks(wave, max_steps, stats)
                || shortcut.instruction(p, wave, max_steps, &mut scratch.vals, stats)
            {
                continue;
            }
            step(at, wave, memory, lds, scratch, stats)?;
            continue;
        };
        // Under a tracer: an instruction it records runs node by node; one it skips may take its fast form.
        let pending = p.blocks[wave.block].insts.get(wave.inst).and_then(|inst| {
            let (d, group, w) = (at.d, at.group, at.wave_index);
            t.before(p, d.types, group, w, wave, inst, scratch)
        });
        match pending {
            None => {
                if !shortcut.instruction(p, wave, max_steps, &mut scratch.vals, stats) {
                    step(at, wave, memory, lds, scratch, stats)?;
                }
            }
            Some(record) => {
                step(at, wave, memory, lds, scratch, stats)?;
                t.after(record, wave, scratch);
            }
        }
    }
    Ok(())
}

/// The size of workgroup `group`, partial at the grid's far edges.
fn workgroup_size(launch: &Launch, group: [u32; 3]) -> [u32; 3] {
    [0, 1, 2].map(|d| launch.workgroup[d].min(launch.grid[d] - group[d] * launch.workgroup[d]))
}

/// Wave `w` of workgroup `group` (of `size` work-items) at its start: the launch's SGPRs, the work-item ids in
/// v0..v2, EXEC set for the work-items the wave holds, a zeroed scratch region, at the entry block.
fn new_wave(
    p: &Program,
    launch: &Launch,
    group: [u32; 3],
    size: [u32; 3],
    w: u32,
    traced: bool,
) -> WaveState {
    let ws = launch.wave_size;
    let threads = size[0] * size[1] * size[2];
    let private_bytes = rdna2spv_ir::launch::wave_scratch_bytes(ws, launch.scratch_bytes) as usize;
    let mut private = Memory::default();
    if private_bytes > 0 {
        private
            .add("scratch", 0, vec![0; private_bytes])
            .expect("one allocation");
    }
    let mut s = WaveState {
        wave_size: ws,
        sgpr: [0; 128],
        vgpr: vgpr_file(256 * ws as usize),
        scc: false,
        block: p.entry(),
        inst: 0,
        done: false,
        at_barrier: false,
        steps: 0,
        private,
        trace: traced.then(|| vec![p.entry().index() as u32]),
        active_lanes: (0, 0),
    };
    for &(reg, v) in &launch.sgprs {
        if let Some(r) = s.sgpr.get_mut(reg as usize) {
            *r = match v {
                SgprInit::Const(c) => c,
                SgprInit::WorkgroupId(d) => group[d.min(2)],
                SgprInit::ScratchWaveOffset => 0,
            };
        }
    }
    let mut exec = 0u64;
    for lane in 0..ws {
        let t = w * ws + lane;
        if t >= threads {
            continue;
        }
        exec |= 1 << lane;
        let ids = [
            t % size[0],
            (t / size[0]) % size[1],
            t / (size[0] * size[1]),
        ];
        for (d, id) in ids
            .iter()
            .enumerate()
            .take(launch.workitem_id_vgprs.clamp(1, 3) as usize)
        {
            s.vgpr[d * ws as usize + lane as usize] = *id;
        }
    }
    s.sgpr[EXEC_LO as usize] = exec as u32;
    s.sgpr[EXEC_LO as usize + 1] = (exec >> 32) as u32;
    s
}

/// After the last wave of a workgroup ended: the block traces and end states asked for, and the VGPR files back
/// to the pool.
fn finish_workgroup(d: &Dispatch, group: [u32; 3], waves: &mut [WaveState], obs: &mut Observers) {
    if let Some(t) = obs.traces.as_deref_mut() {
        for (w, wave) in waves.iter_mut().enumerate() {
            t.push(crate::WaveTrace {
                workgroup: group,
                wave: w as u32,
                blocks: wave.trace.take().unwrap_or_default(),
            });
        }
    }
    END_STATES.with(|c| {
        if let Some(v) = c.borrow_mut().as_mut() {
            v.extend(waves.iter().map(|w| crate::EndState {
                workgroup: group,
                sgpr: w.sgpr,
                scc: w.scc,
                vgpr: w.vgpr.clone(),
                steps: w.steps,
            }));
        }
    });
    // The part of each VGPR file this program can write (the work-item ids included): what a reused file
    // must have cleared after the wave (decision D113).
    let ws = d.launch.wave_size as usize;
    let vgpr_words =
        (d.vgprs.max(d.launch.workitem_id_vgprs.clamp(1, 3) as usize) * ws).min(256 * ws);
    recycle(waves, vgpr_words);
}

thread_local! {
    /// When set, every finished wave's state is appended ([`crate::end_states`]).
    pub(crate) static END_STATES: std::cell::RefCell<Option<Vec<crate::EndState>>> = const { std::cell::RefCell::new(None) };
    /// VGPR files of finished waves, reused by the next workgroup's waves (a fresh 32–64 KiB allocation per wave
    /// costs page faults), each with the length of its prefix that may hold non-zero words (the rest is zero).
    static VGPR_POOL: std::cell::RefCell<Vec<(Vec<u32>, usize)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A zeroed VGPR file of `len` registers × lanes. A reused file has only its written prefix cleared.
fn vgpr_file(len: usize) -> Vec<u32> {
    match VGPR_POOL.with(|p| p.borrow_mut().pop()) {
        Some((mut v, dirty)) if v.len() == len => {
            v[..dirty.min(len)].fill(0);
            v
        }
        Some((mut v, _)) => {
            v.clear();
            v.resize(len, 0);
            v
        }
        None => vec![0; len],
    }
}

/// Returns the waves' VGPR files to the pool; `dirty`: the words of each file the program can have written.
fn recycle(waves: &mut [WaveState], dirty: usize) {
    VGPR_POOL.with(|p| {
        let mut p = p.borrow_mut();
        for w in waves {
            if p.len() < 32 {
                p.push((std::mem::take(&mut w.vgpr), dirty));
            }
        }
    });
}

/// The value table of [`step`] and the tracer's memory log.
/// One past the highest VGPR a node of `p` can read or write: the registers the wave's VGPR file can hold
/// non-zero values in besides the work-item ids. Node kinds not known here to leave VGPRs alone count as the
/// whole file (256 registers), so a new kind that reaches VGPRs in a new way stays safe.
pub(crate) fn vgpr_bound(p: &Program, types: &Types) -> usize {
    let mut n = 0usize;
    for (_, node) in p.nodes.iter() {
        let wide = |v: Handle<Node>| types[v.index()].map(|t| t.0) == Some(Ty::B64);
        let top = match *node {
            Node::ReadVgpr { reg, ty } => reg as usize + if ty == Ty::B64 { 2 } else { 1 },
            Node::WriteVgpr { reg, value } => reg as usize + if wide(value) { 2 } else { 1 },
            Node::Const { .. }
            | Node::ReadSgpr { .. }
            | Node::ReadScc
            | Node::LaneId
            | Node::WaveId
            | Node::CodeBase
            | Node::Int { .. }
            | Node::IntCmp { .. }
            | Node::Float { .. }
            | Node::FloatCmp { .. }
            | Node::Unary { .. }
            | Node::Select { .. }
            | Node::Concat { .. }
            | Node::Extract { .. }
            | Node::Ballot { .. }
            | Node::LaneBit { .. }
            | Node::ReadLane { .. }
            | Node::ReadFirstLane { .. }
            | Node::Load { .. }
            | Node::WriteSgpr { .. }
            | Node::WriteScc { .. }
            | Node::Store { .. }
            | Node::Atomic { .. }
            | Node::Barrier
            | Node::LoadIf { .. }
            | Node::StoreIf { .. }
            | Node::AtomicIf { .. }
            | Node::Refuse { .. } => 0,
            #[allow(unreachable_patterns)]
            _ => 256,
        };
        n = n.max(top);
    }
    n.min(256)
}

#[derive(Default)]
pub(crate) struct Scratch {
    /// `vals[k * L + lane]`: the value of the instruction's node `k` in `lane` (uniform values in lane 0).
    pub(crate) vals: Vec<u64>,
    /// Memory writes of the traced instruction (None when it is not traced).
    pub(crate) mem_log: Option<Vec<rdna2spv_ir::trace::Write>>,
}

/// Lanes per row of the value table.
pub(crate) const L: usize = 64;

/// Runs the wave's next instruction, node by node; past a block's last instruction (an empty block), its
/// terminator.
fn step(
    at: &At,
    wave: &mut WaveState,
    memory: &mut Memory,
    lds: &mut Memory,
    scratch: &mut Scratch,
    stats: &mut Stats,
) -> Result<(), EvalError> {
    let (p, launch) = (at.d.program, at.d.launch);
    let block = &p.blocks[wave.block];
    let Some(inst) = block.insts.get(wave.inst) else {
        // Past the last instruction: the terminator decides (its condition was computed by the last instruction).
        match block.terminator {
            Terminator::End => wave.done = true,
            Terminator::Jump(t) => enter(wave, t),
            Terminator::Branch { .. } => unreachable!("handled after the last instruction"),
        }
        return Ok(());
    };
    wave.steps += 1;
    if wave.steps > launch.max_steps_per_wave {
        return Err(EvalError::Runaway {
            workgroup: at.group,
            wave: at.wave_index,
            steps: wave.steps - 1,
            pc: inst.pc,
            text: inst.text.clone(),
        });
    }
    let exec = wave.exec();
    count_step(wave, exec, stats);
    let ws = wave.wave_size as usize;
    let f = Frame {
        at,
        inst,
        types: at.d.types,
        base: inst.nodes.start as usize,
        ws,
        exec,
        private_size: rdna2spv_ir::launch::wave_scratch_bytes(ws as u32, launch.scratch_bytes),
    };
    let n = inst.nodes.len();
    // The value table is not cleared between instructions: every node writes each lane it defines before a
    // later node reads it (uniform values lane 0, per-lane values lanes 0..wave size; loads and atomics write
    // 0 to the lanes they skip), so stale entries are never read (decision D090).
    if scratch.vals.len() < n * L {
        scratch.vals.resize(n * L, 0);
    }
    for k in 0..n {
        eval_node(&f, k, wave, memory, lds, scratch)?;
    }
    next_instruction(p, wave, &scratch.vals);
    Ok(())
}

/// Counts one executed instruction and its active lanes.
#[inline(always)]
pub(crate) fn count_step(wave: &mut WaveState, exec: u64, stats: &mut Stats) {
    stats.instructions += 1;
    stats.lane_instructions += wave.active_count(exec);
}

/// Moves the wave past the instruction it just ran; after a block's last instruction its terminator decides
/// (a branch reads its condition from the value table `vals`, where the last instruction computed it).
#[inline(always)]
pub(crate) fn next_instruction(p: &Program, wave: &mut WaveState, vals: &[u64]) {
    let block = &p.blocks[wave.block];
    wave.inst += 1;
    if wave.inst == block.insts.len() {
        match block.terminator {
            Terminator::Branch {
                cond,
                taken,
                not_taken,
            } => {
                let base = block.insts[wave.inst - 1].nodes.start as usize;
                let c = vals[(cond.index() - base) * L] != 0;
                enter(wave, if c { taken } else { not_taken });
            }
            Terminator::Jump(t) => enter(wave, t),
            Terminator::End => wave.done = true,
        }
    }
}

/// Moves the wave to the start of block `b`.
pub(crate) fn enter(wave: &mut WaveState, b: Handle<Block>) {
    if let Some(t) = wave.trace.as_mut() {
        t.push(b.index() as u32);
    }
    wave.block = b;
    wave.inst = 0;
}

/// What the nodes of one instruction see: where their values sit in the value table, EXEC, and where a fault
/// happened.
struct Frame<'a> {
    at: &'a At<'a>,
    inst: &'a Inst,
    types: &'a Types,
    /// The instruction's first node: node `base + k` has row `k` of the value table.
    base: usize,
    ws: usize,
    exec: u64,
    /// The bytes of the wave's scratch region.
    private_size: u64,
}

impl Frame<'_> {
    /// Operand value of `a` in `lane` (uniform values broadcast).
    #[inline(always)]
    fn get(&self, vals: &[u64], a: Handle<Node>, lane: usize) -> u64 {
        let j = a.index() - self.base;
        match self.types[a.index()] {
            Some((_, Shape::Lane)) => vals[j * L + lane],
            _ => vals[j * L],
        }
    }
    #[inline(always)]
    fn active(&self, lane: usize) -> bool {
        self.exec >> lane & 1 != 0
    }
    /// An operand's row in the value table and its lane stride (0: uniform, broadcast).
    #[inline(always)]
    fn slot(&self, a: Handle<Node>) -> (usize, usize) {
        let stride = matches!(self.types[a.index()], Some((_, Shape::Lane))) as usize;
        (a.index() - self.base, stride)
    }
    /// Whether `a` is a 64-bit value.
    fn wide(&self, a: Handle<Node>) -> bool {
        self.types[a.index()].map(|t| t.0) == Some(Ty::B64)
    }
    /// The error of a memory access that failed.
    #[cold]
    fn fault(&self, mut f: Fault, space: Space) -> EvalError {
        if space == Space::Scratch {
            f.scratch = Some((self.private_size, self.ws as u32));
        }
        if space == Space::Lds {
            // The workgroup's LDS is one allocation at 0 of the launch's size.
            f.kind = match f.kind {
                "load" => "LDS load",
                "store" => "LDS store",
                k => k,
            };
        }
        EvalError::Fault {
            workgroup: self.at.group,
            wave: self.at.wave_index,
            pc: self.inst.pc,
            text: self.inst.text.clone(),
            fault: f,
        }
    }
}

/// The memory of `space`: the dispatch's global memory, the workgroup's LDS or the wave's scratch region.
#[inline(always)]
fn space_memory<'m>(
    space: Space,
    global: &'m mut Memory,
    lds: &'m mut Memory,
    private: &'m mut Memory,
) -> &'m mut Memory {
    match space {
        Space::Lds => lds,
        Space::Scratch => private,
        Space::Global => global,
    }
}

/// Evaluates node `k` of the instruction into row `k` of the value table (or into the wave's state).
#[inline(always)]
fn eval_node(
    f: &Frame,
    k: usize,
    wave: &mut WaveState,
    memory: &mut Memory,
    lds: &mut Memory,
    scratch: &mut Scratch,
) -> Result<(), EvalError> {
    let (ws, exec, types, base) = (f.ws, f.exec, f.types, f.base);
    let p = f.at.d.program;
    let h = Handle::<Node>::from_index(base + k);
    let node = &p.nodes[h];
    let (_, shape) = types[base + k].unwrap_or((Ty::B1, Shape::Uniform));
    let lanes = if shape == Shape::Lane { ws } else { 1 };
    let vals = &mut scratch.vals;
    let get = |vals: &Vec<u64>, a: Handle<Node>, lane: usize| f.get(vals, a, lane);
    let active = |lane: usize| f.active(lane);
    let slot = |a: Handle<Node>| f.slot(a);
    match *node {
        Node::Const { bits, .. } => vals[k * L] = bits,
        Node::ReadSgpr { reg, ty } => {
            let r = reg as usize;
            let lo = *wave.sgpr.get(r).unwrap_or(&0) as u64;
            vals[k * L] = if ty == Ty::B64 {
                lo | (*wave.sgpr.get(r + 1).unwrap_or(&0) as u64) << 32
            } else {
                lo & ty.mask()
            };
        }
        Node::ReadVgpr { reg, ty }
            if read_vgpr_wave(wave, reg, ty, &mut vals[k * L..k * L + ws]) => {}
        Node::ReadVgpr { reg, ty } => {
            for lane in 0..ws {
                let lo = wave.vgpr(reg, lane as u32) as u64;
                vals[k * L + lane] = if ty == Ty::B64 {
                    lo | (wave.vgpr(reg + 1, lane as u32) as u64) << 32
                } else {
                    lo & ty.mask()
                };
            }
        }
        Node::ReadScc => vals[k * L] = wave.scc as u64,
        Node::WaveId => vals[k * L] = f.at.wave_index as u64,
        Node::CodeBase => vals[k * L] = f.at.d.launch.code_base.unwrap_or(0),
        Node::LaneId => {
            for lane in 0..ws {
                vals[k * L + lane] = lane as u64;
            }
        }
        Node::Int { op, ty, a, b } => lanes_int(vals, k, lanes, op, ty, slot(a), slot(b)),
        Node::IntCmp { op, ty, a, b } => lanes2(vals, k, lanes, slot(a), slot(b), |x, y| {
            op.eval(ty, x, y) as u64
        }),
        Node::Float { op, args } => {
            // Only the operation's arity is verified: unused arguments read the first one.
            let arg = |i: usize| slot(args[if i < op.arity() { i } else { 0 }]);
            lanes_float(vals, k, lanes, op, [arg(0), arg(1), arg(2)])
        }
        Node::FloatCmp { op, ty, a, b } => lanes2(vals, k, lanes, slot(a), slot(b), |x, y| {
            float_cmp(op, ty, x, y) as u64
        }),
        Node::Unary { op, ty, a } => {
            let from = types[a.index()].map(|t| t.0).unwrap_or(Ty::B32);
            let (fm, tm) = (from.mask(), ty.mask());
            match op {
                UnOp::ZExt | UnOp::Trunc => lanes1(vals, k, lanes, slot(a), |x| x & fm & tm),
                _ => lanes1(vals, k, lanes, slot(a), |x| unary(op, from, ty, x) & tm),
            }
        }
        Node::Select { cond, a, b } => {
            lanes3(vals, k, lanes, slot(cond), slot(a), slot(b), |c, x, y| {
                if c != 0 {
                    x
                } else {
                    y
                }
            })
        }
        Node::Concat { lo, hi } => lanes2(vals, k, lanes, slot(lo), slot(hi), |x, y| {
            (x & 0xffff_ffff) | y << 32
        }),
        Node::Extract { ty, a, shift } => {
            let m = ty.mask();
            lanes1(vals, k, lanes, slot(a), |x| (x >> shift) & m)
        }
        Node::Ballot { cond } => {
            let mut m = 0u64;
            for lane in 0..ws {
                if active(lane) && get(vals, cond, lane) != 0 {
                    m |= 1 << lane;
                }
            }
            vals[k * L] = m;
        }
        Node::LaneBit { mask } => {
            let m = get(vals, mask, 0);
            for lane in 0..ws {
                vals[k * L + lane] = m >> lane & 1;
            }
        }
        Node::ReadLane { a, lane } => {
            let l = (get(vals, lane, 0) as usize) % ws;
            vals[k * L] = get(vals, a, l);
        }
        Node::ReadFirstLane { a } => {
            let l = if exec == 0 {
                0
            } else {
                exec.trailing_zeros() as usize
            };
            vals[k * L] = get(vals, a, l);
        }
        Node::Load {
            space,
            access,
            addr,
            offset,
        } => {
            let mem = space_memory(space, memory, lds, &mut wave.private);
            load(f, k, shape, mem, space, access, addr, offset, vals)?
        }
        Node::Atomic {
            space,
            op,
            addr,
            offset,
            value,
            data1,
        } => {
            let mem = space_memory(space, memory, lds, &mut wave.private);
            let args = AtomicArgs {
                space,
                op,
                addr,
                offset,
                value,
                data1,
            };
            atomic(f, k, shape, mem, args, scratch)?
        }
        Node::WriteSgpr { reg, value } => {
            let v = get(vals, value, 0);
            let r = reg as usize;
            if let Some(s) = wave.sgpr.get_mut(r) {
                *s = v as u32;
            }
            if types[value.index()].map(|t| t.0) == Some(Ty::B64) {
                if let Some(s) = wave.sgpr.get_mut(r + 1) {
                    *s = (v >> 32) as u32;
                }
            }
        }
        Node::WriteVgpr { reg, value }
            if write_vgpr_wave(wave, reg, exec, types, value, vals, slot(value)) => {}
        Node::WriteVgpr { reg, value } => {
            let wide = types[value.index()].map(|t| t.0) == Some(Ty::B64);
            for lane in 0..ws {
                if !active(lane) {
                    continue;
                }
                let v = get(vals, value, lane);
                let i = reg as usize * ws + lane;
                if let Some(x) = wave.vgpr.get_mut(i) {
                    *x = v as u32;
                }
                if wide {
                    if let Some(x) = wave.vgpr.get_mut(i + ws) {
                        *x = (v >> 32) as u32;
                    }
                }
            }
        }
        Node::WriteScc { value } => wave.scc = get(vals, value, 0) != 0,
        Node::Store {
            space,
            access,
            addr,
            offset,
            value,
        } => {
            let mem = space_memory(space, memory, lds, &mut wave.private);
            store(f, mem, space, access, addr, offset, value, scratch)?
        }
        Node::Barrier => wave.at_barrier = true,
        Node::Refuse { cond, reason } => {
            if let Some(lane) = (0..ws).find(|&l| active(l) && get(vals, cond, l) != 0) {
                return Err(EvalError::Refused {
                    workgroup: f.at.group,
                    wave: f.at.wave_index,
                    pc: f.inst.pc,
                    text: f.inst.text.clone(),
                    lane: lane as u32,
                    reason,
                });
            }
        }
        Node::LoadIf {
            space,
            access,
            addr,
            offset,
            enable,
        } => {
            let mem = space_memory(space, memory, lds, &mut wave.private);
            load_if(f, k, mem, space, access, addr, offset, enable, vals)?
        }
        Node::AtomicIf {
            space,
            op,
            addr,
            offset,
            value,
            data1,
            enable,
        } => {
            let mem = space_memory(space, memory, lds, &mut wave.private);
            let args = AtomicArgs {
                space,
                op,
                addr,
                offset,
                value,
                data1,
            };
            atomic_if(f, k, mem, args, enable, vals)?
        }
        Node::StoreIf {
            space,
            access,
            addr,
            offset,
            value,
            enable,
        } => {
            let mem = space_memory(space, memory, lds, &mut wave.private);
            store_if(f, mem, space, access, addr, offset, value, enable, vals)?
        }
    }
    Ok(())
}

/// `Load`: per active lane (a per-lane load; inactive lanes read 0) or once (a uniform one), sign-extended as
/// its access says.
#[allow(clippy::too_many_arguments)]
fn load(
    f: &Frame,
    k: usize,
    shape: Shape,
    mem: &Memory,
    space: Space,
    access: Access,
    addr: Handle<Node>,
    offset: i64,
    vals: &mut [u64],
) -> Result<(), EvalError> {
    let lanes = if shape == Shape::Lane { f.ws } else { 1 };
    for lane in 0..lanes {
        if shape == Shape::Lane && !f.active(lane) {
            vals[k * L + lane] = 0;
            continue;
        }
        let address = space_address(space, f.get(vals, addr, lane).wrapping_add(offset as u64));
        let raw = mem.read(address, access.bytes()).map_err(|mut e| {
            e.lane = (shape == Shape::Lane).then_some(lane as u32);
            f.fault(e, space)
        })?;
        vals[k * L + lane] = extend(access, raw);
    }
    Ok(())
}

/// The operands of an `Atomic` or `AtomicIf` node.
struct AtomicArgs {
    space: Space,
    op: rdna2spv_ir::AtomicOp,
    addr: Handle<Node>,
    offset: i64,
    value: Handle<Node>,
    data1: Option<Handle<Node>>,
}

/// `Atomic`: a read-modify-write per active lane, or once for the wave when the node is uniform, whatever EXEC
/// holds (D092); the node's value is the old memory value.
fn atomic(
    f: &Frame,
    k: usize,
    shape: Shape,
    mem: &mut Memory,
    a: AtomicArgs,
    scratch: &mut Scratch,
) -> Result<(), EvalError> {
    let AtomicArgs {
        space,
        op,
        addr,
        offset,
        value,
        data1,
    } = a;
    let ws = f.ws;
    let vals = &mut scratch.vals;
    let wide = f.wide(value);
    let bytes = if wide { 8 } else { 4 };
    // A Uniform atomic runs once for the wave, whatever EXEC holds (D092).
    let once = shape == Shape::Uniform;
    for lane in 0..if once { 1 } else { ws } {
        if !once && !f.active(lane) {
            vals[k * L + lane] = 0;
            continue;
        }
        let a = space_address(space, f.get(vals, addr, lane).wrapping_add(offset as u64));
        let with_lane = |mut e: Fault| {
            e.lane = (!once).then_some(lane as u32);
            f.fault(e, space)
        };
        let v = f.get(vals, value, lane);
        let y = data1.map_or(0, |d| f.get(vals, d, lane));
        let (address, old) = if space == Space::Scratch && wide {
            // The lane's private dword pair: the high dword 4 * wave_size bytes up (D092).
            let a = a & !3;
            let hi_at = a.wrapping_add(4 * ws as u64);
            let lo = mem.read(a, 4).map_err(with_lane)?;
            let hi = mem.read(hi_at, 4).map_err(with_lane)?;
            let old = lo | hi << 32;
            let new = crate::atomic::rmw(op, wide, old, v, y);
            mem.write(a, 4, new & 0xffff_ffff).map_err(with_lane)?;
            mem.write(hi_at, 4, new >> 32).map_err(with_lane)?;
            (a, old)
        } else {
            // The naturally aligned word holding the address (decision D060).
            let address = a & !(bytes - 1);
            let old = mem.read(address, bytes).map_err(with_lane)?;
            mem.write(address, bytes, crate::atomic::rmw(op, wide, old, v, y))
                .map_err(with_lane)?;
            (address, old)
        };
        vals[k * L + lane] = old;
        if let Some(log) = &mut scratch.mem_log {
            log.push(crate::trace::mem_write(
                space,
                address,
                4,
                v,
                (!once).then_some(lane as u32),
                true,
            ));
        }
    }
    Ok(())
}

/// `Store`: per active lane when the address is per-lane, else once.
#[allow(clippy::too_many_arguments)]
fn store(
    f: &Frame,
    mem: &mut Memory,
    space: Space,
    access: Access,
    addr: Handle<Node>,
    offset: i64,
    value: Handle<Node>,
    scratch: &mut Scratch,
) -> Result<(), EvalError> {
    let vals = &scratch.vals;
    let addr_lane = f.types[addr.index()].map(|t| t.1) == Some(Shape::Lane);
    for lane in 0..if addr_lane { f.ws } else { 1 } {
        if addr_lane && !f.active(lane) {
            continue;
        }
        let address = space_address(space, f.get(vals, addr, lane).wrapping_add(offset as u64));
        mem.write(address, access.bytes(), f.get(vals, value, lane))
            .map_err(|mut e| {
                e.lane = addr_lane.then_some(lane as u32);
                f.fault(e, space)
            })?;
        if let Some(log) = &mut scratch.mem_log {
            log.push(crate::trace::mem_write(
                space,
                address,
                access.bytes(),
                f.get(vals, value, lane),
                addr_lane.then_some(lane as u32),
                false,
            ));
        }
    }
    Ok(())
}

/// `LoadIf`: per active lane whose `enable` is set; every other lane reads 0.
#[allow(clippy::too_many_arguments)]
fn load_if(
    f: &Frame,
    k: usize,
    mem: &Memory,
    space: Space,
    access: Access,
    addr: Handle<Node>,
    offset: i64,
    enable: Handle<Node>,
    vals: &mut [u64],
) -> Result<(), EvalError> {
    for lane in 0..f.ws {
        vals[k * L + lane] = 0;
        if !f.active(lane) || f.get(vals, enable, lane) == 0 {
            continue;
        }
        let address = f.get(vals, addr, lane).wrapping_add(offset as u64);
        let raw = mem.read(address, access.bytes()).map_err(|mut e| {
            e.lane = Some(lane as u32);
            f.fault(e, space)
        })?;
        vals[k * L + lane] = extend(access, raw);
    }
    Ok(())
}

/// `AtomicIf`: a read-modify-write per active lane whose `enable` is set; every other lane reads 0.
fn atomic_if(
    f: &Frame,
    k: usize,
    mem: &mut Memory,
    a: AtomicArgs,
    enable: Handle<Node>,
    vals: &mut [u64],
) -> Result<(), EvalError> {
    let AtomicArgs {
        space,
        op,
        addr,
        offset,
        value,
        data1,
    } = a;
    let wide = f.wide(value);
    let bytes = if wide { 8 } else { 4 };
    for lane in 0..f.ws {
        vals[k * L + lane] = 0;
        if !f.active(lane) || f.get(vals, enable, lane) == 0 {
            continue;
        }
        let address = f.get(vals, addr, lane).wrapping_add(offset as u64) & !(bytes - 1);
        let with_lane = |mut e: Fault| {
            e.lane = Some(lane as u32);
            f.fault(e, space)
        };
        let old = mem.read(address, bytes).map_err(with_lane)?;
        let v = f.get(vals, value, lane);
        let y = data1.map_or(0, |d| f.get(vals, d, lane));
        mem.write(address, bytes, crate::atomic::rmw(op, wide, old, v, y))
            .map_err(with_lane)?;
        vals[k * L + lane] = old;
    }
    Ok(())
}

/// `StoreIf`: per active lane whose `enable` is set.
#[allow(clippy::too_many_arguments)]
fn store_if(
    f: &Frame,
    mem: &mut Memory,
    space: Space,
    access: Access,
    addr: Handle<Node>,
    offset: i64,
    value: Handle<Node>,
    enable: Handle<Node>,
    vals: &[u64],
) -> Result<(), EvalError> {
    for lane in 0..f.ws {
        if !f.active(lane) || f.get(vals, enable, lane) == 0 {
            continue;
        }
        let address = f.get(vals, addr, lane).wrapping_add(offset as u64);
        mem.write(address, access.bytes(), f.get(vals, value, lane))
            .map_err(|mut e| {
                e.lane = Some(lane as u32);
                f.fault(e, space)
            })?;
    }
    Ok(())
}

fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

pub(crate) fn float_op(op: FloatOp, a: u64, b: u64, c: u64) -> u64 {
    let (a32, b32, c32) = (a as u32, b as u32, c as u32);
    let (a16, b16, c16) = (a as u16, b as u16, c as u16);
    match op {
        FloatOp::F32Add => sp::f32_add(a32, b32) as u64,
        FloatOp::F32Sub => sp::f32_sub(a32, b32) as u64,
        FloatOp::F32Mul => sp::f32_mul(a32, b32) as u64,
        FloatOp::F32Fma => sp::f32_fma(a32, b32, c32) as u64,
        FloatOp::F32LegacyMad => sp::f32_legacy_mad(a32, b32, c32) as u64,
        FloatOp::F16Add => sp::f16_add(a16, b16) as u64,
        FloatOp::F16Mul => sp::f16_mul(a16, b16) as u64,
        FloatOp::F16FmaToHalf => sp::f16_fma_to_half(a16, b16, c16) as u64,
        FloatOp::F64Add => sp::f64_add(a, b),
        FloatOp::F64Mul => sp::f64_mul(a, b),
        FloatOp::F64Fma => sp::f64_fma(a, b, c),
        FloatOp::F32Div => sp::f32_div(a32, b32) as u64,
        FloatOp::F32Sqrt => sp::f32_sqrt(a32) as u64,
        FloatOp::F32FmaLdexp(k) => sp::f32_fma_ldexp(a32, b32, c32, k as i32) as u64,
        FloatOp::F64FmaLdexp(k) => sp::f64_fma_ldexp(a, b, c, k as i32),
    }
}

fn to_f64(ty: Ty, v: u64) -> f64 {
    match ty {
        Ty::B16 => f32::from_bits(sp::f16_to_f32(v as u16)) as f64,
        Ty::B32 => f32::from_bits(v as u32) as f64,
        _ => f64::from_bits(v),
    }
}

// The comparisons are spelt out on purpose: with NaN operands `!(x >= y)` is not `x < y`, and
// `x < y || x > y` is not `x != y`.
#[allow(clippy::double_comparisons, clippy::neg_cmp_op_on_partial_ord)]
fn float_cmp(op: FloatCmp, ty: Ty, a: u64, b: u64) -> bool {
    let (x, y) = (to_f64(ty, a), to_f64(ty, b));
    let unordered = x.is_nan() || y.is_nan();
    match op {
        FloatCmp::F => false,
        FloatCmp::Lt => x < y,
        FloatCmp::Eq => x == y,
        FloatCmp::Le => x <= y,
        FloatCmp::Gt => x > y,
        FloatCmp::Lg => !unordered && x != y,
        FloatCmp::Ge => x >= y,
        FloatCmp::O => !unordered,
        FloatCmp::U => unordered,
        FloatCmp::Nge => unordered || x < y,
        FloatCmp::Nlg => unordered || x == y,
        FloatCmp::Ngt => unordered || x <= y,
        FloatCmp::Nle => unordered || x > y,
        FloatCmp::Neq => x != y,
        FloatCmp::Nlt => unordered || x >= y,
        FloatCmp::Tru => true,
    }
}

pub(crate) fn unary(op: UnOp, from: Ty, to: Ty, a: u64) -> u64 {
    let a = a & from.mask();
    match op {
        UnOp::Not => !a,
        UnOp::ZExt | UnOp::Trunc => a,
        UnOp::SExt => sext(a, from.bits()) as u64,
        UnOp::Popcount => a.count_ones() as u64,
        UnOp::FNeg => a ^ (1u64 << (to.bits() - 1)),
        UnOp::FAbs => a & !(1u64 << (to.bits() - 1)),
        UnOp::F16ToF32 => sp::f16_to_f32(a as u16) as u64,
        UnOp::F32ToF16 => sp::f32_to_f16(a as u32) as u64,
        UnOp::F32ToI32 => sp::f32_to_i32(a as u32) as u64,
        UnOp::F32ToU32 => sp::f32_to_u32(a as u32) as u64,
        UnOp::I32ToF32 => sp::i32_to_f32(a as u32) as u64,
        UnOp::U32ToF32 => sp::u32_to_f32(a as u32) as u64,
        UnOp::Flush => UnOp::flush(to, a),
    }
}

fn extend(access: Access, raw: u64) -> u64 {
    match access {
        Access::I8 => sext(raw, 8) as u64 & 0xffff_ffff,
        Access::I16 => sext(raw, 16) as u64 & 0xffff_ffff,
        _ => raw,
    }
}

/// LDS and scratch addresses are 32-bit: the address operand plus the instruction's offset wraps
/// (ACO relies on it: `ds_read_b32 v2, v4 offset:252` with v4 = -4·l), as the lowering computes them.
fn space_address(space: Space, address: u64) -> u64 {
    match space {
        Space::Global => address,
        Space::Lds | Space::Scratch => address & 0xffff_ffff,
    }
}

// Lane-array kernels (decision D090): one IR node over all lanes of a wave at once. The operation is chosen once
// per node, outside the lane loop, and operands come from their rows of the value table with a lane stride of 1
// (per-lane) or 0 (uniform, broadcast), so the loops are straight-line and the compiler can vectorise them. Each
// computes exactly what the per-lane form (`IntOp::eval`, `float_op`, ...) computes.

/// `dst[lane] = f(a[lane])` for lanes `0..lanes` of node `k`.
#[inline(always)]
fn lanes1(vals: &mut [u64], k: usize, lanes: usize, a: (usize, usize), f: impl Fn(u64) -> u64) {
    let (src, dst) = vals.split_at_mut(k * L);
    let dst = &mut dst[..lanes];
    let ra = &src[a.0 * L..a.0 * L + L];
    if a.1 == 1 {
        for (d, &x) in dst.iter_mut().zip(ra) {
            *d = f(x);
        }
    } else {
        let v = f(ra[0]);
        dst.fill(v);
    }
}

/// `dst[lane] = f(a[lane], b[lane])`.
#[inline(always)]
fn lanes2(
    vals: &mut [u64],
    k: usize,
    lanes: usize,
    a: (usize, usize),
    b: (usize, usize),
    f: impl Fn(u64, u64) -> u64,
) {
    let (src, dst) = vals.split_at_mut(k * L);
    let dst = &mut dst[..lanes];
    let ra = &src[a.0 * L..a.0 * L + L];
    let rb = &src[b.0 * L..b.0 * L + L];
    match (a.1, b.1) {
        (1, 1) => {
            for ((d, &x), &y) in dst.iter_mut().zip(ra).zip(rb) {
                *d = f(x, y);
            }
        }
        (1, _) => {
            let y = rb[0];
            for (d, &x) in dst.iter_mut().zip(ra) {
                *d = f(x, y);
            }
        }
        (_, 1) => {
            let x = ra[0];
            for (d, &y) in dst.iter_mut().zip(rb) {
                *d = f(x, y);
            }
        }
        _ => {
            let v = f(ra[0], rb[0]);
            dst.fill(v);
        }
    }
}

/// `dst[lane] = f(a[lane], b[lane], c[lane])`.
#[inline(always)]
fn lanes3(
    vals: &mut [u64],
    k: usize,
    lanes: usize,
    a: (usize, usize),
    b: (usize, usize),
    c: (usize, usize),
    f: impl Fn(u64, u64, u64) -> u64,
) {
    let (src, dst) = vals.split_at_mut(k * L);
    let dst = &mut dst[..lanes];
    let (ra, rb, rc) = (&src[a.0 * L..], &src[b.0 * L..], &src[c.0 * L..]);
    if a.1 == 1 && b.1 == 1 && c.1 == 1 {
        for (l, d) in dst.iter_mut().enumerate() {
            *d = f(ra[l], rb[l], rc[l]);
        }
    } else {
        for (l, d) in dst.iter_mut().enumerate() {
            *d = f(ra[l * a.1], rb[l * b.1], rc[l * c.1]);
        }
    }
}

/// [`IntOp::eval`] then the result mask, over the lanes; the common operations spelt out.
#[inline(always)]
fn lanes_int(
    vals: &mut [u64],
    k: usize,
    lanes: usize,
    op: IntOp,
    ty: Ty,
    a: (usize, usize),
    b: (usize, usize),
) {
    let m = ty.mask();
    // Every width is a power of two, so `b % bits` is `b & (bits - 1)`.
    let sh = ty.bits() as u64 - 1;
    debug_assert!(ty.bits().is_power_of_two());
    match op {
        IntOp::Add => lanes2(vals, k, lanes, a, b, |x, y| (x & m).wrapping_add(y) & m),
        IntOp::Sub => lanes2(vals, k, lanes, a, b, |x, y| (x & m).wrapping_sub(y) & m),
        IntOp::Mul => lanes2(vals, k, lanes, a, b, |x, y| (x & m).wrapping_mul(y) & m),
        IntOp::And => lanes2(vals, k, lanes, a, b, |x, y| x & y & m),
        IntOp::Or => lanes2(vals, k, lanes, a, b, |x, y| (x & m | y) & m),
        IntOp::Xor => lanes2(vals, k, lanes, a, b, |x, y| (x & m ^ y) & m),
        IntOp::Shl => lanes2(vals, k, lanes, a, b, |x, y| ((x & m) << (y & sh)) & m),
        IntOp::LShr => lanes2(vals, k, lanes, a, b, |x, y| ((x & m) >> (y & sh)) & m),
        _ => lanes2(vals, k, lanes, a, b, |x, y| op.eval(ty, x, y) & m),
    }
}

/// [`float_op`] over the lanes; the common f32 operations spelt out.
#[inline(always)]
fn lanes_float(vals: &mut [u64], k: usize, lanes: usize, op: FloatOp, args: [(usize, usize); 3]) {
    let [a, b, c] = args;
    match op {
        FloatOp::F32Add => lanes2(vals, k, lanes, a, b, |x, y| {
            sp::f32_add(x as u32, y as u32) as u64
        }),
        FloatOp::F32Sub => lanes2(vals, k, lanes, a, b, |x, y| {
            sp::f32_sub(x as u32, y as u32) as u64
        }),
        FloatOp::F32Mul => lanes2(vals, k, lanes, a, b, |x, y| {
            sp::f32_mul(x as u32, y as u32) as u64
        }),
        FloatOp::F32Fma => lanes3(vals, k, lanes, a, b, c, |x, y, z| {
            sp::f32_fma(x as u32, y as u32, z as u32) as u64
        }),
        _ if op.arity() == 3 => lanes3(vals, k, lanes, a, b, c, |x, y, z| float_op(op, x, y, z)),
        _ => lanes2(vals, k, lanes, a, b, |x, y| float_op(op, x, y, 0)),
    }
}

/// `ReadVgpr` of a whole wave when the register (pair) is inside the file; false to take the general path.
#[inline(always)]
fn read_vgpr_wave(wave: &WaveState, reg: u16, ty: Ty, dst: &mut [u64]) -> bool {
    let ws = wave.wave_size as usize;
    let start = reg as usize * ws;
    if ty == Ty::B64 {
        let (Some(lo), Some(hi)) = (
            wave.vgpr.get(start..start + ws),
            wave.vgpr.get(start + ws..start + 2 * ws),
        ) else {
            return false;
        };
        for ((d, &l), &h) in dst.iter_mut().zip(lo).zip(hi) {
            *d = l as u64 | (h as u64) << 32;
        }
    } else {
        let Some(src) = wave.vgpr.get(start..start + ws) else {
            return false;
        };
        let m = ty.mask();
        for (d, &x) in dst.iter_mut().zip(src) {
            *d = x as u64 & m;
        }
    }
    true
}

/// `WriteVgpr` of the active lanes when the register (pair) is inside the file; false to take the general path.
#[inline(always)]
fn write_vgpr_wave(
    wave: &mut WaveState,
    reg: u16,
    exec: u64,
    types: &Types,
    value: Handle<Node>,
    vals: &[u64],
    (row, stride): (usize, usize),
) -> bool {
    let ws = wave.wave_size as usize;
    let wide = types[value.index()].map(|t| t.0) == Some(Ty::B64);
    let start = reg as usize * ws;
    let end = start + if wide { 2 * ws } else { ws };
    if end > wave.vgpr.len() {
        return false;
    }
    let src = &vals[row * L..row * L + L];
    let (lo, hi) = wave.vgpr[start..end].split_at_mut(ws);
    let all = if ws == 64 { u64::MAX } else { (1u64 << ws) - 1 };
    if exec & all == all {
        if stride == 1 {
            for (d, &v) in lo.iter_mut().zip(src) {
                *d = v as u32;
            }
            if wide {
                for (d, &v) in hi.iter_mut().zip(src) {
                    *d = (v >> 32) as u32;
                }
            }
        } else {
            lo.fill(src[0] as u32);
            if wide {
                hi.fill((src[0] >> 32) as u32);
            }
        }
    } else {
        for lane in 0..ws {
            if exec >> lane & 1 == 0 {
                continue;
            }
            let v = src[lane * stride];
            lo[lane] = v as u32;
            if wide {
                hi[lane] = (v >> 32) as u32;
            }
        }
    }
    true
}
