//! Execution traces: one [`Record`] per executed machine instruction and wave, the same typed structure from
//! the host evaluator and from an instrumented device module (decision D040).
//!
//! What a record holds is decided statically by the instruction's IR ([`slots`]): the registers it writes
//! (read back *after* the instruction), the VGPRs for the lanes active in EXEC at its start, and every memory
//! write (stores and atomics, by address and value, per lane, in node order). Both backends use the same slot
//! list, so equal programs give equal records; the device form is a flat word layout ([`slot_words`],
//! [`decode_device`]) written by the module with an atomic counter into a bounded buffer.
//!
//! Record order ([`sort`]): workgroup (linear, x fastest), wave within the workgroup, step (the wave's count
//! of executed instructions before this one), snapshots before steps.

use crate::verify::Types;
use crate::{Handle, Inst, Node, Program, Space, Ty, EXEC_LO, VCC_LO};

/// Which records a run writes. `Copy` so it can ride in the lowering options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TraceFilter {
    /// Only this wave: `workgroup_linear * waves_per_workgroup + wave` (linear x fastest).
    pub wave: Option<u32>,
    /// Only instructions with `lo <= pc < hi`.
    pub pcs: Option<(u32, u32)>,
    /// Only steps `lo <= step < hi` of each wave.
    pub steps: Option<(u64, u64)>,
    /// Record block-boundary snapshots (the program's SGPRs, SCC, the VGPRs of the active lanes before the first
    /// instruction of each block) instead of per-instruction records.
    pub snapshots: bool,
}

impl TraceFilter {
    pub fn wants_wave(&self, global_wave: u32) -> bool {
        self.wave.is_none_or(|w| w == global_wave)
    }
    pub fn wants_pc(&self, pc: u32) -> bool {
        self.pcs.is_none_or(|(lo, hi)| lo <= pc && pc < hi)
    }
    pub fn wants_step(&self, step: u64) -> bool {
        self.steps.is_none_or(|(lo, hi)| lo <= step && step < hi)
    }
}

/// What a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RecordKind {
    /// The state before the first instruction of a block (bisection).
    Snapshot,
    /// One executed instruction and what it wrote.
    Step,
}

/// One register or memory write (or, in a snapshot, one register's value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    Sgpr {
        reg: u16,
        value: u32,
    },
    Scc(bool),
    /// One VGPR: (lane, value) for each lane active in EXEC at the instruction's start, lane order.
    Vgpr {
        reg: u16,
        lanes: Vec<(u32, u32)>,
    },
    /// A store (value masked to `bytes`) or an atomic (value = its operand; the old value it returns
    /// appears as a VGPR write). `lane` is None for a store with a uniform address (done once).
    Mem {
        space: Space,
        addr: u64,
        bytes: u8,
        value: u32,
        lane: Option<u32>,
        atomic: bool,
    },
}

/// One record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub kind: RecordKind,
    pub workgroup: [u32; 3],
    /// The wave's index within its workgroup.
    pub wave: u32,
    /// Instructions the wave executed before this one.
    pub step: u64,
    /// Kernel byte offset of the instruction.
    pub pc: u32,
    /// EXEC at the instruction's start.
    pub exec: u64,
    pub writes: Vec<Write>,
    /// Host records only, not compared: the register values the instruction read (its operands), in
    /// node order, VGPRs for the active lanes.
    pub reads: Vec<Write>,
}

impl Record {
    /// Equal in everything a trace compares (all but `reads`).
    pub fn same_as(&self, o: &Record) -> bool {
        self.kind == o.kind
            && self.workgroup == o.workgroup
            && self.wave == o.wave
            && self.step == o.step
            && self.pc == o.pc
            && self.exec == o.exec
            && self.writes == o.writes
    }
}

/// A write slot of an instruction, in record order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Sgpr(u16),
    Scc,
    Vgpr(u16),
    /// A memory write of node `node`: per active lane (`lanes`) or once.
    Mem {
        node: u32,
        space: Space,
        bytes: u8,
        lanes: bool,
        atomic: bool,
    },
}

/// The slots of `inst`: SGPRs (a 64-bit write is two slots) and SCC in first-write order, then VGPRs,
/// then memory writes in node order. Registers are listed once each; SGPRs past 127 are not state.
pub fn slots(p: &Program, types: &Types, inst: &Inst) -> Vec<Slot> {
    let (mut s, mut v, mut m) = (Vec::new(), Vec::new(), Vec::new());
    let wide = |h: Handle<Node>| types[h.index()].map(|t| t.0) == Some(Ty::B64);
    let lane = |h: Handle<Node>| types[h.index()].map(|t| t.1) == Some(crate::Shape::Lane);
    let push = |list: &mut Vec<Slot>, x: Slot| {
        if !list.contains(&x) {
            list.push(x)
        }
    };
    for (h, n) in p.inst_nodes(inst) {
        match *n {
            Node::WriteSgpr { reg, value } => {
                for r in [reg, reg + 1]
                    .into_iter()
                    .take(if wide(value) { 2 } else { 1 })
                {
                    if r < 128 {
                        push(&mut s, Slot::Sgpr(r));
                    }
                }
            }
            Node::WriteScc { .. } => push(&mut s, Slot::Scc),
            Node::WriteVgpr { reg, value } => {
                for r in [reg, reg + 1]
                    .into_iter()
                    .take(if wide(value) { 2 } else { 1 })
                {
                    push(&mut v, Slot::Vgpr(r));
                }
            }
            Node::Store {
                space,
                access,
                addr,
                ..
            } => m.push(Slot::Mem {
                node: h.index() as u32,
                space,
                bytes: access.bytes() as u8,
                lanes: lane(addr),
                atomic: false,
            }),
            Node::Atomic { space, .. } => m.push(Slot::Mem {
                node: h.index() as u32,
                space,
                bytes: 4,
                // A Uniform atomic (D092) is recorded once.
                lanes: lane(h),
                atomic: true,
            }),
            _ => {}
        }
    }
    s.extend(v);
    s.extend(m);
    s
}

/// Device words of a slot: 1 per SGPR/SCC, one per lane for a VGPR, 3 (address lo, hi, value) per lane or
/// once for a memory write.
pub fn slot_words(slot: &Slot, wave_size: u32) -> u32 {
    match slot {
        Slot::Sgpr(_) | Slot::Scc => 1,
        Slot::Vgpr(_) => wave_size,
        Slot::Mem { lanes: true, .. } => 3 * wave_size,
        Slot::Mem { lanes: false, .. } => 3,
    }
}

/// The VGPRs a snapshot holds: v0 up to the highest VGPR the program touches (pairs included) and the
/// work-item id VGPRs.
pub fn snapshot_vgprs(p: &Program, types: &Types, workitem_id_vgprs: u32) -> u16 {
    let mut n = workitem_id_vgprs.clamp(1, 3) as u16;
    for (_, node) in p.nodes.iter() {
        let (reg, w) = match *node {
            Node::ReadVgpr { reg, ty } => (reg, ty == Ty::B64),
            Node::WriteVgpr { reg, value } => {
                (reg, types[value.index()].map(|t| t.0) == Some(Ty::B64))
            }
            _ => continue,
        };
        n = n.max(reg + if w { 2 } else { 1 });
    }
    n
}

/// Words of the device record header: `len | kind << 28`, workgroup linear, wave, step, pc, exec lo, hi.
pub const HEADER_WORDS: u32 = 7;
/// Words before the first record in the device trace buffer: the words used (atomic counter) and the
/// capacity in words (written by the host).
pub const BUFFER_HEADER_WORDS: u32 = 2;
/// Words of the sink buffer: records a run does not keep are written there (the longest record must fit).
pub const SINK_WORDS: u32 = 1 << 18;
/// The SGPRs a snapshot holds: every one the program reads or writes (pairs included), VCC and EXEC, in
/// increasing order (128 stores per block made lavapipe's JIT crawl on kernels with many blocks).
pub fn snapshot_sgprs(p: &Program, types: &Types) -> Vec<u16> {
    let mut set = std::collections::BTreeSet::from([VCC_LO, VCC_LO + 1, EXEC_LO, EXEC_LO + 1]);
    for (_, node) in p.nodes.iter() {
        let (reg, w) = match *node {
            Node::ReadSgpr { reg, ty } => (reg, ty == Ty::B64),
            Node::WriteSgpr { reg, value } => {
                (reg, types[value.index()].map(|t| t.0) == Some(Ty::B64))
            }
            _ => continue,
        };
        set.insert(reg);
        if w {
            set.insert(reg + 1);
        }
    }
    set.into_iter().filter(|&r| r < 128).collect()
}

/// Snapshot payload: the `n_sgpr` SGPRs of [`snapshot_sgprs`], SCC, then `n_vgpr` VGPRs × wave lanes.
pub fn snapshot_words(n_sgpr: usize, n_vgpr: u16, wave_size: u32) -> u32 {
    n_sgpr as u32 + 1 + n_vgpr as u32 * wave_size
}

/// Why a device trace could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error("the device trace overflowed its buffer: {needed} words needed, {capacity} available (raise --trace-words or narrow --wave/--pc-range/--max-steps)")]
    Overflow { needed: u64, capacity: u64 },
    #[error("malformed device trace at word {at}: {reason}")]
    Malformed { at: usize, reason: String },
}

/// Facts the decoder needs about the dispatch.
#[derive(Debug, Clone, Copy)]
pub struct DeviceShape {
    pub wave_size: u32,
    pub waves_per_workgroup: u32,
    pub workgroups: [u32; 3],
    pub workitem_id_vgprs: u32,
}

/// Decodes a device trace buffer (all of it, header included) into records, sorted.
pub fn decode_device(
    p: &Program,
    types: &Types,
    shape: DeviceShape,
    buf: &[u32],
) -> Result<Vec<Record>, TraceError> {
    let ws = shape.wave_size;
    let hw = BUFFER_HEADER_WORDS as usize;
    let bad = |at: usize, reason: String| TraceError::Malformed { at, reason };
    if buf.len() < hw {
        return Err(bad(0, "shorter than its header".into()));
    }
    let (used, cap) = (buf[0] as u64, buf[1] as u64);
    if used > cap {
        return Err(TraceError::Overflow {
            needed: used,
            capacity: cap,
        });
    }
    if hw as u64 + used > buf.len() as u64 {
        return Err(bad(buf.len(), format!("{used} words used, buffer shorter")));
    }
    let mut by_pc = std::collections::HashMap::new();
    for (_, b) in p.blocks.iter() {
        for inst in &b.insts {
            by_pc.insert(inst.pc, inst);
        }
    }
    let n_v = snapshot_vgprs(p, types, shape.workitem_id_vgprs);
    let sgprs = snapshot_sgprs(p, types);
    let n_s = sgprs.len();
    let words = &buf[hw..hw + used as usize];
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < words.len() {
        if i + HEADER_WORDS as usize > words.len() {
            return Err(bad(i, "truncated header".into()));
        }
        let h = &words[i..i + HEADER_WORDS as usize];
        let len = (h[0] & 0x0fff_ffff) as usize;
        let kind = if h[0] >> 28 == 1 {
            RecordKind::Snapshot
        } else {
            RecordKind::Step
        };
        if len < HEADER_WORDS as usize || i + len > words.len() {
            return Err(bad(i, format!("record length {len}")));
        }
        let pc = h[4];
        let exec = h[5] as u64 | (h[6] as u64) << 32;
        let lin = h[1];
        let [gx, gy, _] = shape.workgroups;
        let workgroup = [lin % gx, (lin / gx) % gy, lin / (gx * gy)];
        let body = &words[i + HEADER_WORDS as usize..i + len];
        let active = |l: u32| exec >> l & 1 != 0;
        let mut writes = Vec::new();
        match kind {
            RecordKind::Snapshot => {
                if body.len() != snapshot_words(n_s, n_v, ws) as usize {
                    return Err(bad(i, format!("snapshot of {} words", body.len())));
                }
                for (k, &r) in sgprs.iter().enumerate() {
                    writes.push(Write::Sgpr {
                        reg: r,
                        value: body[k],
                    });
                }
                writes.push(Write::Scc(body[n_s] != 0));
                for r in 0..n_v {
                    let base = n_s + 1 + r as usize * ws as usize;
                    writes.push(Write::Vgpr {
                        reg: r,
                        lanes: (0..ws)
                            .filter(|&l| active(l))
                            .map(|l| (l, body[base + l as usize]))
                            .collect(),
                    });
                }
            }
            RecordKind::Step => {
                let inst = by_pc
                    .get(&pc)
                    .ok_or_else(|| bad(i, format!("no instruction at pc 0x{pc:x}")))?;
                let mut k = 0usize;
                let sl = slots(p, types, inst);
                let need: u32 = sl.iter().map(|s| slot_words(s, ws)).sum();
                if need as usize != body.len() {
                    return Err(bad(
                        i,
                        format!("pc 0x{pc:x}: {} payload words, {need} expected", body.len()),
                    ));
                }
                for s in sl {
                    match s {
                        Slot::Sgpr(reg) => writes.push(Write::Sgpr {
                            reg,
                            value: body[k],
                        }),
                        Slot::Scc => writes.push(Write::Scc(body[k] != 0)),
                        Slot::Vgpr(reg) => writes.push(Write::Vgpr {
                            reg,
                            lanes: (0..ws)
                                .filter(|&l| active(l))
                                .map(|l| (l, body[k + l as usize]))
                                .collect(),
                        }),
                        Slot::Mem {
                            space,
                            bytes,
                            lanes,
                            atomic,
                            ..
                        } => {
                            let n = if lanes { ws } else { 1 };
                            for l in 0..n {
                                if lanes && !active(l) {
                                    continue;
                                }
                                let w = &body[k + 3 * l as usize..k + 3 * l as usize + 3];
                                writes.push(Write::Mem {
                                    space,
                                    addr: w[0] as u64 | (w[1] as u64) << 32,
                                    bytes,
                                    value: w[2],
                                    lane: lanes.then_some(l),
                                    atomic,
                                });
                            }
                        }
                    }
                    k += slot_words(&s, ws) as usize;
                }
            }
        }
        out.push(Record {
            kind,
            workgroup,
            wave: h[2],
            step: h[3] as u64,
            pc,
            exec,
            writes,
            reads: Vec::new(),
        });
        i += len;
    }
    sort(&mut out);
    Ok(out)
}

/// Sorts records into trace order.
pub fn sort(records: &mut [Record]) {
    records.sort_by_key(|r| {
        (
            r.workgroup[2],
            r.workgroup[1],
            r.workgroup[0],
            r.wave,
            r.step,
            r.kind,
        )
    });
}
