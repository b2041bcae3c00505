//! Checked mode (D158): the check buffer's layout and fault records, the module's per-invocation checking
//! state, its set-up at entry and the flag it gives at the end. The per-access test is `check_global` and
//! `note_fault` in memory.rs.

use rdna2spv_ir::{Handle, Node, Space};
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

/// Bits of a fault site word (D184): the access's kind (`CHECK_KIND_*`) in bits 0..3, its size in bytes in
/// bits 3..8, [`SITE_NO_LANE`] for a wave-uniform access, and the instruction's pc from bit
/// [`SITE_PC_SHIFT`]. Never zero (every kind has a bit set): zero means "no fault yet".
const SITE_BYTES_SHIFT: u32 = 3;
const SITE_NO_LANE: u32 = 1 << 8;
const SITE_PC_SHIFT: u32 = 9;

/// The site word of an access (see [`SITE_PC_SHIFT`]), or `None` when its pc or size does not fit.
pub(super) fn site_word(pc: u32, kind: u32, bytes: u32, has_lane: bool) -> Option<u32> {
    if pc >= 1 << (32 - SITE_PC_SHIFT) || bytes >= 1 << (SITE_PC_SHIFT - 1 - SITE_BYTES_SHIFT) {
        return None;
    }
    Some(
        pc << SITE_PC_SHIFT
            | bytes << SITE_BYTES_SHIFT
            | if has_lane { 0 } else { SITE_NO_LANE }
            | kind,
    )
}

/// The checked mode's per-module state: each allocation's base and size (u64 values read once at entry)
/// with the bound of the one-compare test per access size, the sink address, this invocation's record
/// address, and its first fault so far.
#[derive(Debug, Clone)]
pub(super) struct Check {
    /// `(base, size)` of each allocation.
    pub(super) ranges: Vec<(Word, Word)>,
    /// For an access of `bytes` (1, 2, 4, 8): per allocation, `size - bytes + 1` (0 when the allocation is
    /// smaller than the access), so that the access at `a` is inside iff `a - base < bound` (u64) — one
    /// compare per allocation (D184). Computed at entry, like `ranges`.
    pub(super) bounds: Vec<(u32, Vec<Word>)>,
    pub(super) sink: Word,
    pub(super) record: Word,
    /// The first fault (D184): its site word (u32 Function variable, 0 until a fault; [`site_word`]:
    /// pc, kind, size, lane or not) and its address (u64 variable), kept by two selects per access and
    /// expanded to the six-word record once, at the end. Was six u32 selects and a flag (D158).
    pub(super) site: Word,
    pub(super) addr: Word,
    /// The first fault's lane (u32 variable) where the lane is a loop value (the wave mapping's lane loop);
    /// the lane mapping's lane is its invocation's, known at the end.
    pub(super) lane: Word,
    /// Without records ([`LowerOptions::check_flag_only`](super::LowerOptions)): whether an access has
    /// faulted (bool variable); `site`, `addr` and `lane` are unused.
    pub(super) oob: Option<Word>,
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
            ranges.push((base, size));
        }
        let mut bounds = Vec::new();
        for bytes in [1u32, 2, 4, 8] {
            let mut v = Vec::with_capacity(ranges.len());
            for &(_, size) in &ranges {
                v.push(self.check_bound(size, bytes)?);
            }
            bounds.push((bytes, v));
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
        let z64 = self.c64(0);
        let site = self.fn_var(t.u32, Some(z));
        let addr = self.fn_var(t.u64, Some(z64));
        let lane = self.fn_var(t.u32, Some(z));
        let oob = if self.opts.check_flag_only {
            let f = self.cfalse();
            Some(self.fn_var(t.bool, Some(f)))
        } else {
            None
        };
        self.check = Some(Check {
            oob,
            ranges,
            bounds,
            sink: table,
            record,
            site,
            addr,
            lane,
        });
        Ok(())
    }

    /// Checked mode without records (D189): finds the global accesses whose address was formed from an
    /// SGPR pair (narrow.rs), makes each pair's chosen-allocation variables and chooses for the pairs'
    /// initial values. With records, or with no such access, nothing.
    pub(super) fn narrow_setup(&mut self) -> R<()> {
        let t = self.t;
        if !self.opts.check_flag_only || self.check.is_none() {
            return Ok(());
        }
        // A measurement switch (D189): `RDNA2SPV_CHECK_NARROW=0` lowers as before it, every access against
        // every allocation, so that one build can time both alternately.
        if std::env::var_os("RDNA2SPV_CHECK_NARROW").is_some_and(|v| v == "0") {
            return Ok(());
        }
        let types = self.types;
        let ty = move |i: usize| types[i].map(|t| t.0).unwrap_or(rdna2spv_ir::Ty::B32);
        let bases = super::narrow::base_pairs(self.p, &ty);
        self.bases = super::narrow::worth_narrowing(self.p, &ty, bases)
            .into_iter()
            .collect();
        self.bases.retain(|_, r| (*r as u32) + 1 < 128);
        let pairs: std::collections::BTreeSet<u16> = self.bases.values().copied().collect();
        let z = self.c64(0);
        for r in pairs {
            let base = self.fn_var(t.u64, Some(z));
            let bounds = [0; 4].map(|_| self.fn_var(t.u64, Some(z)));
            self.base_sel.insert(r, (base, bounds));
            self.narrow_choose(r)?;
        }
        Ok(())
    }

    /// After an instruction (nodes `range`): re-chooses the allocation of every tracked pair it wrote.
    pub(super) fn narrow_after(&mut self, range: std::ops::Range<u32>) -> R<()> {
        if self.base_sel.is_empty() {
            return Ok(());
        }
        let mut written = std::collections::BTreeSet::new();
        for i in range {
            if let Node::WriteSgpr { reg, value } = self.p.nodes[Handle::from_index(i as usize)] {
                let n = if self.ty(value.index()) == rdna2spv_ir::Ty::B64 {
                    2
                } else {
                    1
                };
                for w in reg..reg + n {
                    for r in [w, w.wrapping_sub(1)] {
                        if self.base_sel.contains_key(&r) {
                            written.insert(r);
                        }
                    }
                }
            }
        }
        for r in written {
            self.narrow_choose(r)?;
        }
        Ok(())
    }

    /// Pair `r`'s chosen allocation, from its value now: the allocation it points into (or one past the
    /// end of), else none (base 0, bounds 0: every narrowed test of the pair fails, and the run goes to
    /// the module with records). Allocations do not overlap, so at most one holds the value, apart from
    /// one's end being the next one's start, where the later one is taken.
    fn narrow_choose(&mut self, r: u16) -> R<()> {
        let t = self.t;
        let (Some(c), Some(&(base_var, bound_vars))) = (self.check.clone(), self.base_sel.get(&r))
        else {
            return Ok(());
        };
        let lo = self.read_sgpr32(r as u32)?;
        let hi = self.read_sgpr32(r as u32 + 1)?;
        let v = self.join64(lo, hi)?;
        let z = self.c64(0);
        let mut base = z;
        let mut bounds = [z; 4];
        for (k, &(b, size)) in c.ranges.iter().enumerate() {
            let d = self.b.i_sub(t.u64, None, v, b)?;
            let inside = self.b.u_less_than_equal(t.bool, None, d, size)?;
            base = self.b.select(t.u64, None, inside, b, base)?;
            for (j, bound) in bounds.iter_mut().enumerate() {
                let kb = c.bounds[j].1[k];
                *bound = self.b.select(t.u64, None, inside, kb, *bound)?;
            }
        }
        self.store(base_var, base)?;
        for (var, v) in bound_vars.into_iter().zip(bounds) {
            self.store(var, v)?;
        }
        Ok(())
    }

    /// `size - bytes + 1` if `size >= bytes`, else 0 (u64): the one-compare test's bound (see
    /// [`Check::bounds`]).
    pub(super) fn check_bound(&mut self, size: Word, bytes: u32) -> R<Word> {
        let t = self.t;
        let b = self.c64(bytes as u64);
        let fits = self.b.u_greater_than_equal(t.bool, None, size, b)?;
        let d = self.c64(bytes as u64 - 1);
        let bound = self.b.i_sub(t.u64, None, size, d)?;
        let z = self.c64(0);
        Ok(self.b.select(t.u64, None, fits, bound, z)?)
    }

    /// The flag word with an out-of-bounds access taking precedence over `flag`, and the first fault's
    /// record (the six words of [`FaultRecord`]) written to the check buffer from its site word and address.
    pub(super) fn check_flag(&mut self, flag: Word) -> R<Word> {
        let t = self.t;
        let Some(c) = self.check.clone() else {
            return Ok(flag);
        };
        if let Some(oob) = c.oob {
            let o = self.load_bool(oob)?;
            let fo = self.c32(FLAG_OOB);
            return Ok(self.b.select(t.u32, None, o, fo, flag)?);
        }
        let site = self.b.load(t.u32, None, c.site, None, [])?;
        let z = self.c32(0);
        let o = self.b.i_not_equal(t.bool, None, site, z)?;
        let lane_id = self.lm.as_ref().map(|l| l.lane_id);
        // The first fault's record, kept as a site word and an address until here (D158, D184).
        self.guarded(o, None, |cx| {
            let pcs = cx.c32(SITE_PC_SHIFT);
            let pc = cx.b.shift_right_logical(t.u32, None, site, pcs)?;
            let nl = cx.c32(SITE_NO_LANE);
            let no_lane = cx.b.bitwise_and(t.u32, None, site, nl)?;
            let no_lane = cx.b.i_not_equal(t.bool, None, no_lane, z)?;
            let lane = match lane_id {
                Some(l) => l,
                None => cx.b.load(t.u32, None, c.lane, None, [])?,
            };
            let max = cx.c32(u32::MAX);
            let lane = cx.b.select(t.u32, None, no_lane, max, lane)?;
            let a = cx.b.load(t.u64, None, c.addr, None, [])?;
            let lo = cx.b.u_convert(t.u32, None, a)?;
            let c32 = cx.c64(32);
            let hi = cx.b.shift_right_logical(t.u64, None, a, c32)?;
            let hi = cx.b.u_convert(t.u32, None, hi)?;
            let km = cx.c32((1 << SITE_BYTES_SHIFT) - 1);
            let kind = cx.b.bitwise_and(t.u32, None, site, km)?;
            let bs = cx.c32(SITE_BYTES_SHIFT);
            let bytes = cx.b.shift_right_logical(t.u32, None, site, bs)?;
            let bm = cx.c32((1 << (SITE_PC_SHIFT - 1 - SITE_BYTES_SHIFT)) - 1);
            let bytes = cx.b.bitwise_and(t.u32, None, bytes, bm)?;
            for (i, v) in [pc, lane, lo, hi, kind, bytes].into_iter().enumerate() {
                let off = cx.c64(4 * i as u64);
                let p = cx.b.i_add(t.u64, None, c.record, off)?;
                let p = cx.b.convert_u_to_ptr(t.psb_u32, None, p)?;
                cx.plain_store(Space::Global, p, v)?;
            }
            Ok(None)
        })?;
        let fo = self.c32(FLAG_OOB);
        Ok(self.b.select(t.u32, None, o, fo, flag)?)
    }
}
