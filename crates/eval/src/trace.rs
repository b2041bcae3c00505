//! Host traces (decision D040): the evaluator's side of `rdna2spv_ir::trace`. A [`Tracer`] rides along a
//! run and, for every instruction its filter selects, records EXEC at the start, the operands read and,
//! after the instruction, the registers its slots name plus the memory writes it made.

use crate::reference::{Scratch, WaveState};
use crate::{EvalError, Launch, Memory, Stats};
use rdna2spv_ir::trace::{self, Record, RecordKind, Slot, TraceFilter, Write};
use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{verify, Inst, Node, Program, Space};

/// Collects records during a run.
#[derive(Debug)]
pub struct Tracer {
    pub filter: TraceFilter,
    /// Waves per workgroup (for the global wave index of the filter).
    pub waves_per_workgroup: u32,
    /// Workgroups per dimension.
    pub workgroups: [u32; 3],
    /// VGPRs in a snapshot.
    pub snapshot_vgprs: u16,
    /// SGPRs in a snapshot.
    pub snapshot_sgprs: Vec<u16>,
    pub records: Vec<Record>,
}

/// A record being filled while its instruction runs.
pub(crate) struct Pending {
    record: Record,
    slots: Vec<Slot>,
}

pub(crate) fn mem_write(
    space: Space,
    addr: u64,
    bytes: u64,
    value: u64,
    lane: Option<u32>,
    atomic: bool,
) -> Write {
    let mask = if bytes >= 4 {
        u32::MAX
    } else {
        (1u32 << (8 * bytes)) - 1
    };
    Write::Mem {
        space,
        addr,
        bytes: bytes as u8,
        value: value as u32 & mask,
        lane,
        atomic,
    }
}

fn vgpr_lanes(wave: &WaveState, reg: u16, exec: u64) -> Vec<(u32, u32)> {
    (0..wave.wave_size)
        .filter(|&l| exec >> l & 1 != 0)
        .map(|l| (l, wave.vgpr(reg, l)))
        .collect()
}

impl Tracer {
    fn header(&self, group: [u32; 3], wave_index: u32, wave: &WaveState, pc: u32) -> Record {
        Record {
            kind: RecordKind::Step,
            workgroup: group,
            wave: wave_index,
            step: wave.steps,
            pc,
            exec: wave.exec(),
            writes: Vec::new(),
            reads: Vec::new(),
        }
    }

    /// Called before `inst` runs (its step is `wave.steps`); returns the record to complete, if traced.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn before(
        &mut self,
        p: &Program,
        types: &Types,
        group: [u32; 3],
        wave_index: u32,
        wave: &WaveState,
        inst: &Inst,
        scratch: &mut Scratch,
    ) -> Option<Pending> {
        scratch.mem_log = None;
        let [gx, gy, _] = self.workgroups;
        let lin = (group[2] * gy + group[1]) * gx + group[0];
        let global = lin * self.waves_per_workgroup + wave_index;
        if !(self.filter.wants_wave(global)
            && self.filter.wants_pc(inst.pc)
            && self.filter.wants_step(wave.steps))
        {
            return None;
        }
        let exec = wave.exec();
        if self.filter.snapshots {
            if wave.inst == 0 {
                let mut r = self.header(group, wave_index, wave, inst.pc);
                r.kind = RecordKind::Snapshot;
                for &reg in &self.snapshot_sgprs {
                    r.writes.push(Write::Sgpr {
                        reg,
                        value: wave.sgpr[reg as usize],
                    });
                }
                r.writes.push(Write::Scc(wave.scc));
                for reg in 0..self.snapshot_vgprs {
                    r.writes.push(Write::Vgpr {
                        reg,
                        lanes: vgpr_lanes(wave, reg, exec),
                    });
                }
                self.records.push(r);
            }
            return None;
        }
        let mut r = self.header(group, wave_index, wave, inst.pc);
        for (_, n) in p.inst_nodes(inst) {
            match *n {
                Node::ReadSgpr { reg, ty } => {
                    for k in 0..(ty.bits().div_ceil(32) as u16) {
                        let reg = reg + k;
                        if reg < 128 {
                            r.reads.push(Write::Sgpr {
                                reg,
                                value: wave.sgpr[reg as usize],
                            });
                        }
                    }
                }
                Node::ReadVgpr { reg, ty } => {
                    for k in 0..(ty.bits().div_ceil(32) as u16) {
                        r.reads.push(Write::Vgpr {
                            reg: reg + k,
                            lanes: vgpr_lanes(wave, reg + k, exec),
                        });
                    }
                }
                Node::ReadScc => r.reads.push(Write::Scc(wave.scc)),
                _ => {}
            }
        }
        scratch.mem_log = Some(Vec::new());
        Some(Pending {
            record: r,
            slots: trace::slots(p, types, inst),
        })
    }

    /// Called after the instruction ran: reads back its slots.
    pub(crate) fn after(&mut self, pending: Pending, wave: &WaveState, scratch: &mut Scratch) {
        let Pending { mut record, slots } = pending;
        let exec = record.exec;
        for s in slots {
            match s {
                Slot::Sgpr(reg) => record.writes.push(Write::Sgpr {
                    reg,
                    value: wave.sgpr[reg as usize],
                }),
                Slot::Scc => record.writes.push(Write::Scc(wave.scc)),
                Slot::Vgpr(reg) => record.writes.push(Write::Vgpr {
                    reg,
                    lanes: vgpr_lanes(wave, reg, exec),
                }),
                Slot::Mem { .. } => {}
            }
        }
        record
            .writes
            .extend(scratch.mem_log.take().unwrap_or_default());
        self.records.push(record);
    }
}

/// A traced run's result.
#[derive(Debug, Clone)]
pub struct Traced {
    pub stats: Stats,
    /// In trace order (`rdna2spv_ir::trace::sort`).
    pub records: Vec<Record>,
}

/// [`crate::run`] recording a trace selected by `filter`.
pub fn run_traced(
    program: &Program,
    launch: &Launch,
    memory: &mut Memory,
    filter: TraceFilter,
) -> Result<Traced, EvalError> {
    let types = verify(program)?;
    let wg = launch.workgroup;
    let threads: u32 = wg.iter().product();
    let workgroups = [0, 1, 2].map(|d| launch.grid[d].div_ceil(wg[d].max(1)));
    let mut tracer = Tracer {
        filter,
        waves_per_workgroup: threads.div_ceil(launch.wave_size.max(1)),
        workgroups,
        snapshot_vgprs: trace::snapshot_vgprs(program, &types, launch.workitem_id_vgprs),
        snapshot_sgprs: trace::snapshot_sgprs(program, &types),
        records: Vec::new(),
    };
    let stats = crate::run_with(program, launch, memory, Some(&mut tracer))?;
    let mut records = tracer.records;
    trace::sort(&mut records);
    Ok(Traced { stats, records })
}
