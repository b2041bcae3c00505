//! Checked mode (D158): the check buffer's layout and fault records, the module's per-invocation checking
//! state, its set-up at entry and the flag it gives at the end. The per-access test is `check_global` and
//! `note_fault` in memory.rs.

use rdna2spv_ir::Space;
use spirv::Word;

use super::{Cx, Mapping, FLAG_OOB, R};

/// Bytes of the check buffer's sink: the first bytes of the buffer, where a checked module sends the
/// accesses that fall outside every allocation.
pub const CHECK_SINK_BYTES: u64 = 16;
/// u32 words of one wave's fault record in the check buffer.
pub const FAULT_RECORD_WORDS: usize = 6;

/// The check buffer of a checked run (its device address follows the launch words and the scratch
/// address): the sink ([`CHECK_SINK_BYTES`], zero), then one `(base, size)` pair of u64 per allocation, then
/// one [`FAULT_RECORD_WORDS`]-word record per invocation (indexed like the flags), zero-filled.
pub fn check_buffer_words(allocations: &[(u64, u64)], invocations: usize) -> Vec<u32> {
    let mut w = vec![0u32; (CHECK_SINK_BYTES / 4) as usize];
    for &(base, size) in allocations {
        w.extend([
            base as u32,
            (base >> 32) as u32,
            size as u32,
            (size >> 32) as u32,
        ]);
    }
    w.resize(w.len() + FAULT_RECORD_WORDS * invocations, 0);
    w
}

/// Word offset of the first fault record in the check buffer.
pub fn check_records_offset(allocations: usize) -> usize {
    (CHECK_SINK_BYTES / 4) as usize + 4 * allocations
}

/// The first out-of-bounds access of a wave in a checked run, as the module records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultRecord {
    /// Byte offset of the instruction from the kernel entry.
    pub pc: u32,
    /// The lane, or `None` for a wave-uniform (scalar memory) access.
    pub lane: Option<u32>,
    pub address: u64,
    /// "load" (loads and atomics, which read first, as the evaluator reports them) or "store"; "LDS load" /
    /// "LDS store" for the workgroup's LDS.
    pub kind: &'static str,
    pub bytes: u32,
}

impl FaultRecord {
    /// Decodes a record's words (`FAULT_RECORD_WORDS` of them).
    pub fn from_words(w: &[u32]) -> FaultRecord {
        FaultRecord {
            pc: w[0],
            lane: (w[1] != u32::MAX).then_some(w[1]),
            address: w[2] as u64 | (w[3] as u64) << 32,
            kind: match (w[4] & CHECK_KIND_LDS != 0, w[4] & CHECK_KIND_STORE != 0) {
                (false, false) => "load",
                (false, true) => "store",
                (true, false) => "LDS load",
                (true, true) => "LDS store",
            },
            bytes: w[5],
        }
    }
}

pub(super) const CHECK_KIND_LOAD: u32 = 1;
pub(super) const CHECK_KIND_STORE: u32 = 2;
/// Or'ed into the kind of an LDS access (the evaluator says "LDS load"/"LDS store").
pub(super) const CHECK_KIND_LDS: u32 = 4;

/// The checked mode's per-module state: each allocation's base and end (u64 values loaded once at entry),
/// the sink address, this invocation's record address, and whether it has faulted.
#[derive(Debug, Clone)]
pub(super) struct Check {
    pub(super) ranges: Vec<(Word, Word)>,
    pub(super) sink: Word,
    pub(super) record: Word,
    pub(super) oob: Word,
    /// The first fault's record words (pc, lane, address low/high, kind, size), kept in Function variables
    /// by selects at every access and written to the check buffer once, at the end (D158: no branch per
    /// access).
    pub(super) words: [Word; FAULT_RECORD_WORDS],
}

impl Cx<'_> {
    /// The check buffer's state (`self.check`) for `n` allocations: its address is launch words `k`, `k + 1`
    /// (after the scratch address, if any), each allocation's (base, size) the words after it.
    #[allow(clippy::too_many_arguments)] // the entry values module() has computed by then
    pub(super) fn check_setup(
        &mut self,
        n: u16,
        pc: Word,
        launch_addr: Word,
        k: u64,
        gid: [Word; 3],
        nwg: [Word; 3],
        wave_ix: Word,
    ) -> R<()> {
        let t = self.t;
        let ws = self.ws;
        let lane_mapping = self.opts.mapping == Mapping::Lane;
        let f = self.cfalse();
        let z = self.c32(0);
        // The check buffer's address follows the Const words (and the scratch address, if any).
        let at = k + if self.desc.scratch_bytes > 0 { 2 } else { 0 };
        let lo = self.launch_word(pc, launch_addr, at)?;
        let hi = self.launch_word(pc, launch_addr, at + 1)?;
        let table = self.join64(lo, hi)?;
        // Each allocation's (base, size) follows as launch words (D158; also in the check buffer).
        let mut ranges = Vec::with_capacity(n as usize);
        for i in 0..n as u64 {
            let first = at + 2 + 4 * i;
            let w: Vec<Word> = (0..4)
                .map(|j| self.launch_word(pc, launch_addr, first + j))
                .collect::<R<_>>()?;
            let base = self.join64(w[0], w[1])?;
            let size = self.join64(w[2], w[3])?;
            let end = self.b.i_add(t.u64, None, base, size)?;
            ranges.push((base, end));
        }
        // One record per flag slot: per wave in the wave mapping, per lane in the lane mapping (its
        // lanes fault independently; the runner reads the wave's lowest faulting lane, D158).
        let lin64 = self.invocation_index(gid, nwg, wave_ix)?;
        let lin64 = if lane_mapping {
            let wsc = self.c64(ws as u64);
            let lane = self.lm.as_ref().expect("lane mapping").lane_id;
            let lane = self.b.u_convert(t.u64, None, lane)?;
            let slot = self.b.i_mul(t.u64, None, lin64, wsc)?;
            self.b.i_add(t.u64, None, slot, lane)?
        } else {
            lin64
        };
        let stride = self.c64(4 * FAULT_RECORD_WORDS as u64);
        let off = self.b.i_mul(t.u64, None, lin64, stride)?;
        let first = self.c64(4 * check_records_offset(n as usize) as u64);
        let off = self.b.i_add(t.u64, None, off, first)?;
        let record = self.b.i_add(t.u64, None, table, off)?;
        let oob = self.fn_var(t.bool, Some(f));
        let words = [(); FAULT_RECORD_WORDS].map(|_| self.fn_var(t.u32, Some(z)));
        self.check = Some(Check {
            ranges,
            sink: table,
            record,
            oob,
            words,
        });
        Ok(())
    }

    /// The flag word with an out-of-bounds access taking precedence over `flag`, and the first fault's
    /// record written to the check buffer.
    pub(super) fn check_flag(&mut self, flag: Word) -> R<Word> {
        let t = self.t;
        Ok(if let Some(c) = self.check.clone() {
            let oob = c.oob;
            let o = self.load_bool(oob)?;
            // The first fault's record, kept in variables until here (D158).
            self.guarded(o, None, |cx| {
                for (i, &w) in c.words.iter().enumerate() {
                    let v = cx.b.load(t.u32, None, w, None, [])?;
                    let off = cx.c64(4 * i as u64);
                    let p = cx.b.i_add(t.u64, None, c.record, off)?;
                    let p = cx.b.convert_u_to_ptr(t.psb_u32, None, p)?;
                    cx.plain_store(Space::Global, p, v)?;
                }
                Ok(None)
            })?;
            let fo = self.c32(FLAG_OOB);
            self.b.select(t.u32, None, o, fo, flag)?
        } else {
            flag
        })
    }
}
