//! Device traces (decision D040): with [`LowerOptions::trace`](super::LowerOptions) set, every instruction
//! the filter selects appends a record to a bounded trace buffer, in the layout `rdna2spv_ir::trace` decodes:
//! one atomic add on the buffer's word counter reserves the record (header + the instruction's slots); a
//! record that does not fit is not written, but the counter still grows, so the host sees the overflow and
//! reports it (never a silent truncation). The header goes out before the instruction, memory writes inside
//! the lane loops where they happen, register slots after the instruction. Everything is straight-line code
//! (no loops: lavapipe's loop budget is shared with the kernel's own loops).
//!
//! Records the filter does not keep are written to a sink buffer instead (a select of the address, not a
//! branch). The buffer's and the sink's device addresses are the launch words after the Const SGPR words (and the scratch address).
//!
//! Planted faults ([`PlantedFault`]) exist for the tests of `rdna2spv diff`: each breaks one instruction on
//! the device only, so the first divergent record is known in advance.

use crate::hash::HashMap;

use rdna2spv_ir::trace::{
    self as irt, slot_words, Slot, TraceFilter, BUFFER_HEADER_WORDS, HEADER_WORDS, SINK_WORDS,
};
use rdna2spv_ir::{Inst, Ty};
use spirv::{MemoryAccess, Word};

use super::{Cx, R};
use rspirv::dr::Operand;

/// A deliberate device-only bug at one instruction, for testing the divergence finder. Not reachable from
/// the CLI except through a hidden, explicitly named flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlantedFault {
    /// The F32Fma nodes of the instruction at `pc` round twice: round(round(a*b) + c).
    DoubleRoundFma { pc: u32 },
    /// The writes of EXEC (s126/s127) by the instruction at `pc` are dropped.
    DropExecWrite { pc: u32 },
    /// Bit 0 of every VGPR value the instruction at `pc` writes in `lane` is flipped.
    FlipLaneBit { pc: u32, lane: u32 },
}

impl PlantedFault {
    pub fn pc(self) -> u32 {
        match self {
            PlantedFault::DoubleRoundFma { pc }
            | PlantedFault::DropExecWrite { pc }
            | PlantedFault::FlipLaneBit { pc, .. } => pc,
        }
    }
}

/// Per-module trace state.
#[derive(Default)]
pub(crate) struct TraceState {
    /// Device address of the buffer (u64).
    buf: Word,
    /// Device address of the sink: records that are not kept are written there (no branches).
    sink: Word,
    /// Capacity in words (u32, from the buffer header).
    cap: Word,
    /// This wave's global index (u32).
    global_wave: Word,
    wg_linear: Word,
    wave: Word,
    /// Function variables: the wave's step counter (u32), the current record's byte address (u64) and
    step: Word,
    rec: Word,
    /// Payload word offset of each memory-writing node of the current instruction.
    mem_off: HashMap<usize, u32>,
    /// Payload word offset of the SGPR/SCC slots of the current instruction.
    regs: Vec<(Slot, u32)>,
    /// Payload word offset of each VGPR slot (written inside the lane loops, where the VGPR is written).
    vgpr_off: HashMap<u16, u32>,
    n_snapshot_vgprs: u16,
}

impl Cx<'_> {
    fn filter(&self) -> Option<TraceFilter> {
        self.opts.trace
    }

    pub(crate) fn fault_here(&self) -> Option<PlantedFault> {
        self.opts.fault.filter(|f| f.pc() == self.at.1)
    }

    /// Reads the buffer address (launch word `word`) and sets up the state; at the entry.
    pub(crate) fn trace_setup(
        &mut self,
        launch_addr: Word,
        word: u64,
        wg_linear: Word,
        wave: Word,
    ) -> R<()> {
        if self.filter().is_none() {
            return Ok(());
        }
        let t = self.t;
        let mut half = [0; 2];
        for (i, h) in half.iter_mut().enumerate() {
            let off = self.c64(4 * (word + i as u64));
            let a = self.b.i_add(t.u64, None, launch_addr, off)?;
            let p = self.b.convert_u_to_ptr(t.psb_u32, None, a)?;
            *h = self.aligned_load(p)?;
        }
        let buf = self.join64(half[0], half[1])?;
        let mut half = [0; 2];
        for (i, h) in half.iter_mut().enumerate() {
            let off = self.c64(4 * (word + 2 + i as u64));
            let a = self.b.i_add(t.u64, None, launch_addr, off)?;
            let p = self.b.convert_u_to_ptr(t.psb_u32, None, a)?;
            *h = self.aligned_load(p)?;
        }
        let sink = self.join64(half[0], half[1])?;
        let four = self.c64(4);
        let a = self.b.i_add(t.u64, None, buf, four)?;
        let p = self.b.convert_u_to_ptr(t.psb_u32, None, a)?;
        let cap = self.aligned_load(p)?;
        let lsz = self.c32(self.desc.waves_per_workgroup());
        let g = self.b.i_mul(t.u32, None, wg_linear, lsz)?;
        let global_wave = self.b.i_add(t.u32, None, g, wave)?;
        let z = self.c32(0);
        let z64 = self.c64(0);
        let n_v = irt::snapshot_vgprs(self.p, self.types, self.desc.workitem_id_vgprs);
        self.tr = TraceState {
            buf,
            sink,
            cap,
            global_wave,
            wg_linear,
            wave,
            step: self.fn_var(t.u32, Some(z)),
            rec: self.fn_var(t.u64, Some(z64)),
            n_snapshot_vgprs: n_v,
            ..TraceState::default()
        };
        Ok(())
    }

    fn aligned_load(&mut self, p: Word) -> R<Word> {
        Ok(self.b.load(
            self.t.u32,
            None,
            p,
            Some(MemoryAccess::ALIGNED),
            [Operand::LiteralBit32(4)],
        )?)
    }

    /// Whether this wave at this step is selected (the pc is checked statically). `step` is the u32 step.
    fn wanted(&mut self, f: &TraceFilter, step: Word) -> R<Word> {
        let t = self.t;
        let mut c = self.ctrue();
        if let Some(w) = f.wave {
            let wc = self.c32(w);
            let e = self.b.i_equal(t.bool, None, self.tr.global_wave, wc)?;
            c = self.b.logical_and(t.bool, None, c, e)?;
        }
        if let Some((lo, hi)) = f.steps {
            let lo = self.c32(lo.min(u32::MAX as u64) as u32);
            let ge = self.b.u_greater_than_equal(t.bool, None, step, lo)?;
            c = self.b.logical_and(t.bool, None, c, ge)?;
            let hi = self.c32(hi.min(u32::MAX as u64) as u32);
            let lt = self.b.u_less_than(t.bool, None, step, hi)?;
            c = self.b.logical_and(t.bool, None, c, lt)?;
        }
        Ok(c)
    }

    /// Reserves `len` words when `want` (an atomic add of 0 otherwise); sets `rec` (the record's address,
    /// or the sink when it is not kept) and writes the header. No branches: a branch per instruction
    /// made lavapipe's JIT crawl on large kernels.
    fn reserve(&mut self, want: Word, len: u32, kind: u32, step: Word, pc: u32) -> R<()> {
        if len > SINK_WORDS {
            return Err(self.unsupported(format!(
                "a trace record of {len} words (the sink holds {SINK_WORDS})"
            )));
        }
        let t = self.t;
        let lenc = self.c32(len);
        let z = self.c32(0);
        let amount = self.b.select(t.u32, None, want, lenc, z)?;
        let buf = self.tr.buf;
        let p = self.b.convert_u_to_ptr(t.psb_u32, None, buf)?;
        let sc = self.c32(spirv::Scope::Device as u32);
        let r = self.c32(0);
        let base = self.b.atomic_i_add(t.u32, None, p, sc, r, amount)?;
        let end = self.b.i_add(t.u32, None, base, lenc)?;
        let fits = self.b.u_less_than_equal(t.bool, None, end, self.tr.cap)?;
        let ok = self.b.logical_and(t.bool, None, want, fits)?;
        let b64 = self.b.u_convert(t.u64, None, base)?;
        let four = self.c64(4);
        let off = self.b.i_mul(t.u64, None, b64, four)?;
        let hdr = self.c64(4 * BUFFER_HEADER_WORDS as u64);
        let off = self.b.i_add(t.u64, None, off, hdr)?;
        let real = self.b.i_add(t.u64, None, buf, off)?;
        let rec = self.b.select(t.u64, None, ok, real, self.tr.sink)?;
        self.store(self.tr.rec, rec)?;
        let exec_lo = self.read_sgpr32(rdna2spv_ir::EXEC_LO as u32)?;
        let exec_hi = self.read_sgpr32(rdna2spv_ir::EXEC_LO as u32 + 1)?;
        let head = self.c32(len | kind << 28);
        let pcc = self.c32(pc);
        let words = [
            head,
            self.tr.wg_linear,
            self.tr.wave,
            step,
            pcc,
            exec_lo,
            exec_hi,
        ];
        for (k, w) in words.into_iter().enumerate() {
            self.put(rec, k as u32, w)?;
        }
        Ok(())
    }

    /// Stores `v` (u32) at word `k` of the record at byte address `rec`.
    fn put(&mut self, rec: Word, k: u32, v: Word) -> R<()> {
        let t = self.t;
        let off = self.c64(4 * k as u64);
        let a = self.b.i_add(t.u64, None, rec, off)?;
        self.put_at(a, v)
    }

    fn put_at(&mut self, a: Word, v: Word) -> R<()> {
        let p = self.b.convert_u_to_ptr(self.t.psb_u32, None, a)?;
        self.b.store(
            p,
            v,
            Some(MemoryAccess::ALIGNED),
            [Operand::LiteralBit32(4)],
        )?;
        Ok(())
    }

    /// Before the first instruction of a block: a snapshot record when snapshots are on.
    pub(crate) fn trace_block_start(&mut self, inst: &Inst) -> R<()> {
        let Some(f) = self.filter() else {
            return Ok(());
        };
        if !f.snapshots || !f.wants_pc(inst.pc) {
            return Ok(());
        }
        let t = self.t;
        let step = self.load_u32(self.tr.step)?;
        let want = self.wanted(&f, step)?;
        let n_v = self.tr.n_snapshot_vgprs;
        let sgprs = irt::snapshot_sgprs(self.p, self.types);
        let n_s = sgprs.len() as u32;
        let len = HEADER_WORDS + irt::snapshot_words(sgprs.len(), n_v, self.ws);
        self.reserve(want, len, 1, step, inst.pc)?;
        let rec = self.b.load(t.u64, None, self.tr.rec, None, [])?;
        for (k, &r) in sgprs.iter().enumerate() {
            let v = self.read_sgpr32(r as u32)?;
            self.put(rec, HEADER_WORDS + k as u32, v)?;
        }
        let s = self.load_bool(self.scc)?;
        let one = self.c32(1);
        let z = self.c32(0);
        let s = self.b.select(t.u32, None, s, one, z)?;
        self.put(rec, HEADER_WORDS + n_s, s)?;
        // VGPRs: one lane loop (straight-line code per lane would make the JIT crawl).
        self.lane_loop(|cx, lane| {
            let l64 = cx.b.u_convert(t.u64, None, lane)?;
            let four = cx.c64(4);
            let lo = cx.b.i_mul(t.u64, None, l64, four)?;
            let at0 = cx.b.i_add(t.u64, None, rec, lo)?;
            for r in 0..n_v as u32 {
                let p = cx.vgpr_ptr(r, lane)?;
                let v = cx.load_u32(p)?;
                let k = cx.c64(4 * (HEADER_WORDS + n_s + 1 + r * cx.ws) as u64);
                let at = cx.b.i_add(t.u64, None, at0, k)?;
                cx.put_at(at, v)?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// Before an instruction: count the step; reserve its record and write the header when selected.
    pub(crate) fn trace_begin(&mut self, inst: &Inst) -> R<()> {
        let Some(f) = self.filter() else {
            return Ok(());
        };
        let t = self.t;
        let step = self.load_u32(self.tr.step)?;
        let one = self.c32(1);
        let next = self.b.i_add(t.u32, None, step, one)?;
        self.store(self.tr.step, next)?;
        self.tr.mem_off.clear();
        self.tr.vgpr_off.clear();
        self.tr.regs.clear();
        if f.snapshots || !f.wants_pc(inst.pc) {
            return Ok(());
        }
        let slots = irt::slots(self.p, self.types, inst);
        let mut off = 0u32;
        for s in &slots {
            match s {
                Slot::Mem { node, .. } => {
                    self.tr.mem_off.insert(*node as usize, off);
                }
                Slot::Vgpr(r) => {
                    self.tr.vgpr_off.insert(*r, off);
                }
                _ => self.tr.regs.push((*s, off)),
            }
            off += slot_words(s, self.ws);
        }
        let want = self.wanted(&f, step)?;
        self.reserve(want, HEADER_WORDS + off, 0, step, inst.pc)
    }

    /// After an instruction: its register slots.
    pub(crate) fn trace_end(&mut self) -> R<()> {
        if self.filter().is_none() || self.tr.regs.is_empty() {
            return Ok(());
        }
        let t = self.t;
        let rec = self.b.load(t.u64, None, self.tr.rec, None, [])?;
        let regs = std::mem::take(&mut self.tr.regs);
        for &(s, off) in &regs {
            let k = HEADER_WORDS + off;
            match s {
                Slot::Sgpr(r) => {
                    let v = self.read_sgpr32(r as u32)?;
                    self.put(rec, k, v)?;
                }
                Slot::Scc => {
                    let s = self.load_bool(self.scc)?;
                    let one = self.c32(1);
                    let z = self.c32(0);
                    let s = self.b.select(t.u32, None, s, one, z)?;
                    self.put(rec, k, s)?;
                }
                Slot::Vgpr(_) | Slot::Mem { .. } => {}
            }
        }
        Ok(())
    }

    /// Inside a lane loop, where an active lane writes `v` (u32) to VGPR `reg`: its slot word.
    pub(crate) fn trace_vgpr(&mut self, reg: u32, lane: Word, v: Word) -> R<()> {
        let Some(&off) = self.tr.vgpr_off.get(&(reg as u16)) else {
            return Ok(());
        };
        let t = self.t;
        let rec = self.b.load(t.u64, None, self.tr.rec, None, [])?;
        let base = self.c64(4 * (HEADER_WORDS + off) as u64);
        let at = self.b.i_add(t.u64, None, rec, base)?;
        let l64 = self.b.u_convert(t.u64, None, lane)?;
        let four = self.c64(4);
        let o = self.b.i_mul(t.u64, None, l64, four)?;
        let at = self.b.i_add(t.u64, None, at, o)?;
        self.put_at(at, v)
    }

    /// Where a memory write happens (node `i`; `lane` None for a write done once): record address and value.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn trace_mem(
        &mut self,
        i: usize,
        lane: Option<Word>,
        addr: Word,
        aty: Ty,
        offset: i64,
        value: Word,
        value_wide: bool,
        bytes: u32,
    ) -> R<()> {
        let Some(&off) = self.tr.mem_off.get(&i) else {
            return Ok(());
        };
        let t = self.t;
        let rec = self.b.load(t.u64, None, self.tr.rec, None, [])?;
        let a64 = if aty == Ty::B64 {
            addr
        } else {
            self.b.u_convert(t.u64, None, addr)?
        };
        let oc = self.c64(offset as u64);
        let a64 = self.b.i_add(t.u64, None, a64, oc)?;
        let v = if value_wide {
            self.b.u_convert(t.u32, None, value)?
        } else {
            value
        };
        let mask = self.c32(if bytes >= 4 {
            u32::MAX
        } else {
            (1u32 << (8 * bytes)) - 1
        });
        let v = self.b.bitwise_and(t.u32, None, v, mask)?;
        {
            let cx = self;
            let base = cx.c64(4 * (HEADER_WORDS + off) as u64);
            let mut at = cx.b.i_add(t.u64, None, rec, base)?;
            if let Some(l) = lane {
                let l64 = cx.b.u_convert(t.u64, None, l)?;
                let twelve = cx.c64(12);
                let o = cx.b.i_mul(t.u64, None, l64, twelve)?;
                at = cx.b.i_add(t.u64, None, at, o)?;
            }
            let lo = cx.b.u_convert(t.u32, None, a64)?;
            let c32 = cx.c64(32);
            let hi = cx.b.shift_right_logical(t.u64, None, a64, c32)?;
            let hi = cx.b.u_convert(t.u32, None, hi)?;
            cx.put_at(at, lo)?;
            let four = cx.c64(4);
            let at1 = cx.b.i_add(t.u64, None, at, four)?;
            cx.put_at(at1, hi)?;
            let eight = cx.c64(8);
            let at2 = cx.b.i_add(t.u64, None, at, eight)?;
            cx.put_at(at2, v)?;
        }
        Ok(())
    }
}
