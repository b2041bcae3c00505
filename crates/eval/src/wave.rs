//! Waves of one workgroup, interpreted instruction by instruction.

use crate::memory::{Fault, Memory};
use crate::specialize as sp;
use crate::{EvalError, Launch, SgprInit, Stats};
use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{
    Access, Block, FloatCmp, FloatOp, Handle, IntOp, Node, Program, Shape, Space, Terminator, Ty,
    UnOp, EXEC_LO,
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
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn run_workgroup(
    p: &Program,
    types: &Types,
    fused: &crate::fused::Table,
    launch: &Launch,
    group: [u32; 3],
    memory: &mut Memory,
    stats: &mut Stats,
    mut traces: Option<&mut Vec<crate::WaveTrace>>,
    mut tracer: Option<&mut crate::trace::Tracer>,
) -> Result<(), EvalError> {
    let ws = launch.wave_size;
    // The actual size of this (possibly partial) workgroup.
    let size: Vec<u32> = (0..3)
        .map(|d| launch.workgroup[d].min(launch.grid[d] - group[d] * launch.workgroup[d]))
        .collect();
    let threads = size[0] * size[1] * size[2];
    let n_waves = threads.div_ceil(ws);
    let mut lds = Memory::default();
    if launch.lds_bytes > 0 {
        lds.add("lds", 0, vec![0; launch.lds_bytes as usize])
            .map_err(EvalError::Launch)?;
    }
    let private_bytes = rdna2spv_ir::launch::wave_scratch_bytes(ws, launch.scratch_bytes) as usize;
    // The part of each VGPR file this program can write (the work-item ids included): what a reused file
    // must have cleared after the wave (decision D113).
    let vgpr_words = (fused
        .vgprs
        .max(launch.workitem_id_vgprs.clamp(1, 3) as usize)
        * ws as usize)
        .min(256 * ws as usize);
    let mut waves: Vec<WaveState> = (0..n_waves)
        .map(|w| {
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
                trace: traces.is_some().then(|| vec![p.entry().index() as u32]),
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
        })
        .collect();
    stats.waves += n_waves as u64;
    let mut scratch = Scratch::default();
    loop {
        let mut all_waiting = true;
        for (w, wave) in waves.iter_mut().enumerate() {
            while !wave.done && !wave.at_barrier {
                // Whole blocks in one piece (decision D113).
                if tracer.is_none()
                    && wave.inst == 0
                    && crate::block::run(
                        &fused.blocks,
                        launch.max_steps_per_wave,
                        wave,
                        &mut scratch.regs,
                        &mut scratch.tmp,
                        stats,
                    )
                {
                    continue;
                }
                // Fused instructions without the general step's set-up (decision D090).
                if tracer.is_none() && fast_step(p, fused, launch, wave, &mut scratch, stats) {
                    continue;
                }
                step(
                    p,
                    types,
                    fused,
                    launch,
                    group,
                    w as u32,
                    wave,
                    memory,
                    &mut lds,
                    &mut scratch,
                    stats,
                    tracer.as_deref_mut(),
                )?;
            }
            all_waiting &= wave.done || wave.at_barrier;
        }
        debug_assert!(all_waiting);
        if waves.iter().all(|w| w.done) {
            if let Some(t) = traces.as_deref_mut() {
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
            recycle(&mut waves, vgpr_words);
            return Ok(());
        }
        // Every wave that has not ended waits at the barrier: release them.
        for wave in waves.iter_mut() {
            wave.at_barrier = false;
        }
    }
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

#[derive(Default)]
pub(crate) struct Scratch {
    vals: Vec<u64>,
    /// The scalar registers of a block form (crate::block) and 1 + the index of the block whose constants
    /// they hold (0: none).
    regs: (Vec<u64>, usize),
    /// The lane rows of a multi-op VALU form (crate::fused_multi).
    tmp: Vec<u32>,
    /// Memory writes of the traced instruction (None when it is not traced).
    pub(crate) mem_log: Option<Vec<rdna2spv_ir::trace::Write>>,
}

const L: usize = 64;

#[allow(clippy::too_many_arguments)]
fn step(
    p: &Program,
    types: &Types,
    fused: &crate::fused::Table,
    launch: &Launch,
    group: [u32; 3],
    wave_index: u32,
    wave: &mut WaveState,
    memory: &mut Memory,
    lds: &mut Memory,
    scratch: &mut Scratch,
    stats: &mut Stats,
    tracer: Option<&mut crate::trace::Tracer>,
) -> Result<(), EvalError> {
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
    let mut tracer = tracer;
    let traced = tracer
        .as_deref_mut()
        .and_then(|t| t.before(p, types, group, wave_index, wave, inst, scratch));
    wave.steps += 1;
    if wave.steps > launch.max_steps_per_wave {
        return Err(EvalError::Runaway {
            workgroup: group,
            wave: wave_index,
            steps: wave.steps - 1,
            pc: inst.pc,
            text: inst.text.clone(),
        });
    }
    let ws = wave.wave_size as usize;
    let exec = wave.exec();
    stats.instructions += 1;
    if wave.active_lanes.0 != exec {
        wave.active_lanes = (exec, exec.count_ones() as u64);
    }
    stats.lane_instructions += wave.active_lanes.1;
    let base = inst.nodes.start as usize;
    // A fused VALU instruction runs in one piece (crate::fused); then no node is evaluated one by one.
    let fused_done = traced.is_none()
        && fused
            .get(wave.block.index())
            .and_then(|b| b.get(wave.inst))
            .and_then(Option::as_ref)
            .is_some_and(|f| match f {
                crate::fused::Fast::Valu(f) => crate::fused::run(f, wave, exec),
                crate::fused::Fast::Multi(m) => {
                    crate::fused_multi::run(m, wave, exec, &mut scratch.tmp)
                }
                crate::fused::Fast::Salu(ops) => {
                    crate::fused::run_scalar(ops, wave, &mut scratch.vals);
                    true
                }
            });
    let n = if fused_done { 0 } else { inst.nodes.len() };
    // The value table is not cleared between instructions: every node writes each lane it defines before a
    // later node reads it (uniform values lane 0, per-lane values lanes 0..wave size; loads and atomics write
    // 0 to the lanes they skip), so stale entries are never read (decision D090).
    if scratch.vals.len() < n * L {
        scratch.vals.resize(n * L, 0);
    }
    let private_size = rdna2spv_ir::launch::wave_scratch_bytes(ws as u32, launch.scratch_bytes);
    let fault = |mut f: Fault, space: Space| {
        if space == Space::Scratch {
            f.scratch = Some((private_size, ws as u32));
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
            workgroup: group,
            wave: wave_index,
            pc: inst.pc,
            text: inst.text.clone(),
            fault: f,
        }
    };
    for k in 0..n {
        let h = Handle::<Node>::from_index(base + k);
        let node = &p.nodes[h];
        let (_, shape) = types[base + k].unwrap_or((Ty::B1, Shape::Uniform));
        let lanes = if shape == Shape::Lane { ws } else { 1 };
        let vals = &mut scratch.vals;
        // Operand value of `a` in `lane` (uniform values broadcast).
        let get = |vals: &Vec<u64>, a: Handle<Node>, lane: usize| -> u64 {
            let j = a.index() - base;
            match types[a.index()] {
                Some((_, Shape::Lane)) => vals[j * L + lane],
                _ => vals[j * L],
            }
        };
        let active = |lane: usize| exec >> lane & 1 != 0;
        // An operand's row in the value table and its lane stride (0: uniform, broadcast).
        let slot = |a: Handle<Node>| -> (usize, usize) {
            let stride = matches!(types[a.index()], Some((_, Shape::Lane))) as usize;
            (a.index() - base, stride)
        };
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
                if fast_read_vgpr(wave, reg, ty, &mut vals[k * L..k * L + ws]) => {}
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
            Node::WaveId => vals[k * L] = wave_index as u64,
            Node::CodeBase => vals[k * L] = launch.code_base.unwrap_or(0),
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
                for lane in 0..lanes {
                    if shape == Shape::Lane && !active(lane) {
                        vals[k * L + lane] = 0;
                        continue;
                    }
                    let address =
                        space_address(space, get(vals, addr, lane).wrapping_add(offset as u64));
                    let mem = match space {
                        Space::Lds => &*lds,
                        Space::Scratch => &wave.private,
                        Space::Global => &*memory,
                    };
                    let raw = mem.read(address, access.bytes()).map_err(|mut f| {
                        f.lane = (shape == Shape::Lane).then_some(lane as u32);
                        fault(f, space)
                    })?;
                    vals[k * L + lane] = extend(access, raw);
                }
            }
            Node::Atomic {
                space,
                op,
                addr,
                offset,
                value,
                data1,
            } => {
                let wide = types[value.index()].map(|t| t.0) == Some(Ty::B64);
                let bytes = if wide { 8 } else { 4 };
                // A Uniform atomic runs once for the wave, whatever EXEC holds (D092).
                let once = shape == Shape::Uniform;
                for lane in 0..if once { 1 } else { ws } {
                    if !once && !active(lane) {
                        vals[k * L + lane] = 0;
                        continue;
                    }
                    let a = space_address(space, get(vals, addr, lane).wrapping_add(offset as u64));
                    let mem = match space {
                        Space::Lds => &mut *lds,
                        Space::Scratch => &mut wave.private,
                        Space::Global => &mut *memory,
                    };
                    let with_lane = |mut f: Fault| {
                        f.lane = (!once).then_some(lane as u32);
                        fault(f, space)
                    };
                    let v = get(vals, value, lane);
                    let y = data1.map_or(0, |d| get(vals, d, lane));
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
                if fast_write_vgpr(wave, reg, exec, types, value, vals, slot(value)) => {}
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
                let addr_lane = types[addr.index()].map(|t| t.1) == Some(Shape::Lane);
                for lane in 0..if addr_lane { ws } else { 1 } {
                    if addr_lane && !active(lane) {
                        continue;
                    }
                    let address =
                        space_address(space, get(vals, addr, lane).wrapping_add(offset as u64));
                    let mem = match space {
                        Space::Lds => &mut *lds,
                        Space::Scratch => &mut wave.private,
                        Space::Global => &mut *memory,
                    };
                    mem.write(address, access.bytes(), get(vals, value, lane))
                        .map_err(|mut f| {
                            f.lane = addr_lane.then_some(lane as u32);
                            fault(f, space)
                        })?;
                    if let Some(log) = &mut scratch.mem_log {
                        log.push(crate::trace::mem_write(
                            space,
                            address,
                            access.bytes(),
                            get(vals, value, lane),
                            addr_lane.then_some(lane as u32),
                            false,
                        ));
                    }
                }
            }
            Node::Barrier => wave.at_barrier = true,
            Node::Refuse { cond, reason } => {
                if let Some(lane) = (0..ws).find(|&l| active(l) && get(vals, cond, l) != 0) {
                    return Err(EvalError::Refused {
                        workgroup: group,
                        wave: wave_index,
                        pc: inst.pc,
                        text: inst.text.clone(),
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
                for lane in 0..ws {
                    vals[k * L + lane] = 0;
                    if !active(lane) || get(vals, enable, lane) == 0 {
                        continue;
                    }
                    let address = get(vals, addr, lane).wrapping_add(offset as u64);
                    let mem = match space {
                        Space::Lds => &*lds,
                        Space::Scratch => &wave.private,
                        Space::Global => &*memory,
                    };
                    let raw = mem.read(address, access.bytes()).map_err(|mut f| {
                        f.lane = Some(lane as u32);
                        fault(f, space)
                    })?;
                    vals[k * L + lane] = extend(access, raw);
                }
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
                let wide = types[value.index()].map(|t| t.0) == Some(Ty::B64);
                let bytes = if wide { 8 } else { 4 };
                for lane in 0..ws {
                    vals[k * L + lane] = 0;
                    if !active(lane) || get(vals, enable, lane) == 0 {
                        continue;
                    }
                    let address = get(vals, addr, lane).wrapping_add(offset as u64) & !(bytes - 1);
                    let mem = match space {
                        Space::Lds => &mut *lds,
                        Space::Scratch => &mut wave.private,
                        Space::Global => &mut *memory,
                    };
                    let with_lane = |mut f: Fault| {
                        f.lane = Some(lane as u32);
                        fault(f, space)
                    };
                    let old = mem.read(address, bytes).map_err(with_lane)?;
                    let v = get(vals, value, lane);
                    let y = data1.map_or(0, |d| get(vals, d, lane));
                    mem.write(address, bytes, crate::atomic::rmw(op, wide, old, v, y))
                        .map_err(with_lane)?;
                    vals[k * L + lane] = old;
                }
            }
            Node::StoreIf {
                space,
                access,
                addr,
                offset,
                value,
                enable,
            } => {
                for lane in 0..ws {
                    if !active(lane) || get(vals, enable, lane) == 0 {
                        continue;
                    }
                    let address = get(vals, addr, lane).wrapping_add(offset as u64);
                    let mem = match space {
                        Space::Lds => &mut *lds,
                        Space::Scratch => &mut wave.private,
                        Space::Global => &mut *memory,
                    };
                    mem.write(address, access.bytes(), get(vals, value, lane))
                        .map_err(|mut f| {
                            f.lane = Some(lane as u32);
                            fault(f, space)
                        })?;
                }
            }
        }
    }
    // Not a tuple of the two options: that moves the (large) pending record on every instruction.
    if let Some(rec) = traced {
        if let Some(t) = tracer {
            t.after(rec, wave, scratch);
        }
    }
    wave.inst += 1;
    if wave.inst == block.insts.len() {
        match block.terminator {
            Terminator::Branch {
                cond,
                taken,
                not_taken,
            } => {
                let c = scratch.vals[(cond.index() - base) * L] != 0;
                enter(wave, if c { taken } else { not_taken });
            }
            Terminator::Jump(t) => enter(wave, t),
            Terminator::End => wave.done = true,
        }
    }
    Ok(())
}

/// Runs the wave's next instruction when it has a fused form, exactly as [`step`] would (steps, statistics,
/// the terminator after the block's last instruction); false, with nothing changed, otherwise — also when the
/// step would exceed the runaway limit, which [`step`] then reports.
#[inline(always)]
fn fast_step(
    p: &Program,
    fused: &crate::fused::Table,
    launch: &Launch,
    wave: &mut WaveState,
    scratch: &mut Scratch,
    stats: &mut Stats,
) -> bool {
    let Some(Some(f)) = fused.get(wave.block.index()).and_then(|b| b.get(wave.inst)) else {
        return false;
    };
    if wave.steps >= launch.max_steps_per_wave {
        return false;
    }
    let exec = wave.exec();
    match f {
        crate::fused::Fast::Valu(f) => {
            if !crate::fused::run(f, wave, exec) {
                return false;
            }
        }
        crate::fused::Fast::Salu(ops) => crate::fused::run_scalar(ops, wave, &mut scratch.vals),
        crate::fused::Fast::Multi(m) => {
            if !crate::fused_multi::run(m, wave, exec, &mut scratch.tmp) {
                return false;
            }
        }
    }
    wave.steps += 1;
    stats.instructions += 1;
    if wave.active_lanes.0 != exec {
        wave.active_lanes = (exec, exec.count_ones() as u64);
    }
    stats.lane_instructions += wave.active_lanes.1;
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
                let c = scratch.vals[(cond.index() - base) * L] != 0;
                enter(wave, if c { taken } else { not_taken });
            }
            Terminator::Jump(t) => enter(wave, t),
            Terminator::End => wave.done = true,
        }
    }
    true
}

pub(crate) fn enter(wave: &mut WaveState, b: Handle<Block>) {
    if let Some(t) = wave.trace.as_mut() {
        t.push(b.index() as u32);
    }
    wave.block = b;
    wave.inst = 0;
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
fn fast_read_vgpr(wave: &WaveState, reg: u16, ty: Ty, dst: &mut [u64]) -> bool {
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
fn fast_write_vgpr(
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
