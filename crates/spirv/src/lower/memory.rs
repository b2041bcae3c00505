//! Memory accesses: where a global, LDS or scratch access goes (`mem_loc`, `scratch_loc`, `dword_ptr`), the
//! checked mode's per-access test (D158), and the load and store emitters, aligned or straddling a dword
//! (`Unaligned`). Atomics are in atomic.rs.

use rdna2spv_ir::{Access, Handle, IntOp, Node, Space, Ty};
use rspirv::dr::Operand;
use spirv::{MemoryAccess, Word};

use super::checked::{site_word, CHECK_KIND_LDS, CHECK_KIND_LOAD, CHECK_KIND_STORE};
use super::{Cx, Unaligned, R};

impl Cx<'_> {
    // ---- memory --------------------------------------------------------------------------------

    /// Where byte `addr + offset` lives: the containing dword (a u64 device address of it for global
    /// memory, a u32 word index for LDS) and the bit position of the byte in that dword.
    /// `bytes` and `store` describe the access for checked mode ([`Self::check_global`]).
    pub(super) fn mem_loc(
        &mut self,
        space: Space,
        addr: Word,
        aty: Ty,
        offset: i64,
        bytes: u32,
        store: bool,
    ) -> R<(Word, Word)> {
        let t = self.t;
        match space {
            Space::Scratch => Err(self.unsupported("scratch atomics are not lowered")),
            Space::Global => {
                let a = if aty == Ty::B64 {
                    addr
                } else {
                    self.b.u_convert(t.u64, None, addr)?
                };
                let base = a;
                let o = self.c64(offset as u64);
                let a = self.b.i_add(t.u64, None, a, o)?;
                let checked = self.check_global(a, bytes, store)?;
                let m = self.c64(!3);
                // An unchecked (or deferred) access at an offset that is a multiple of 4 takes its dword
                // and byte position from the instruction's base address: the offset moves neither the
                // position nor the low two bits the mask clears (exact modulo 2^64), so the dwords of one
                // wide access share the masked base and the position (the CSE merges them, D219).
                let (from, add) = if checked == a && offset % 4 == 0 {
                    (base, offset != 0)
                } else {
                    (checked, false)
                };
                let dw = self.b.bitwise_and(t.u64, None, from, m)?;
                let dw = if add {
                    self.b.i_add(t.u64, None, dw, o)?
                } else {
                    dw
                };
                let lo = self.b.u_convert(t.u32, None, from)?;
                self.pos_word = Some(lo);
                let sh = self.byte_shift(lo)?;
                Ok((dw, sh))
            }
            Space::Lds => {
                if self.lds.is_none() {
                    return Err(self.unsupported("LDS access but the layout has no LDS"));
                }
                let a = if aty == Ty::B64 {
                    self.b.u_convert(t.u32, None, addr)?
                } else {
                    addr
                };
                let base = a;
                let o = self.c32(offset as u32);
                let a = self.b.i_add(t.u32, None, a, o)?;
                let two = self.c32(2);
                // D272: where the lane plan shows `base + offset` cannot wrap, the dword index is the
                // base's plus the offset's: one `base >> 2` for every access from the same base.
                let fits = offset >= 0
                    && offset % 4 == 0
                    && self.cur_node.is_some_and(|i| self.lane_lds_fits(i));
                let idx = if fits {
                    let bi = self.b.shift_right_logical(t.u32, None, base, two)?;
                    if offset == 0 {
                        bi
                    } else {
                        let q = self.c32(offset as u32 / 4);
                        self.b.i_add(t.u32, None, bi, q)?
                    }
                } else {
                    self.b.shift_right_logical(t.u32, None, a, two)?
                };
                // An offset that is a multiple of 4 leaves the byte position as the base's.
                let pos = if offset % 4 == 0 { base } else { a };
                // L47 (D248): an access the lane plan proves inside the LDS for every lane that
                // performs it cannot fault; checked mode tests the others.
                if self.check.is_none() || self.cur_node.is_some_and(|i| self.lane_lds_within(i)) {
                    self.pos_word = Some(pos);
                    let sh = self.byte_shift(pos)?;
                    return Ok((idx, sh));
                }
                // Checked mode: the evaluator's LDS is an allocation of `lds_bytes` at address 0, addressed
                // with the 32-bit sum (as above); outside it, the access goes to the spare words past the end.
                // `a + bytes <= lds_bytes` without the 64-bit sum: `a <= lds_bytes - bytes` (D248).
                let ok = match self.desc.lds_bytes.checked_sub(bytes) {
                    Some(last) => {
                        let last = self.c32(last);
                        self.b.u_less_than_equal(t.bool, None, a, last)?
                    }
                    None => self.cfalse(),
                };
                // The fault record's address (u64); the flag alone needs none.
                let records = self.check.as_ref().is_some_and(|c| c.oob.is_none());
                let a64 = if records {
                    self.b.u_convert(t.u64, None, a)?
                } else {
                    a
                };
                self.note_fault(ok, a64, bytes, store, true)?;
                let spare = self.c32(self.desc.lds_bytes.div_ceil(4));
                let idx = self.b.select(t.u32, None, ok, idx, spare)?;
                // Outside, the access is at byte 0 of the spare words.
                let z = self.c32(0);
                let pos = self.b.select(t.u32, None, ok, pos, z)?;
                self.pos_word = Some(pos);
                let sh = self.byte_shift(pos)?;
                Ok((idx, sh))
            }
        }
    }

    /// Checked mode: `a` (u64) if the `bytes` at it lie inside one allocation; otherwise the sink, after
    /// recording the wave's first fault (pc, lane, address, kind, size) and marking it out of bounds.
    pub(super) fn check_global(&mut self, a: Word, bytes: u32, store: bool) -> R<Word> {
        let Some(c) = self.check.clone() else {
            return Ok(a);
        };
        if self.skip_check {
            return Ok(a); // proven inside a launch segment (D132, D158)
        }
        let t = self.t;
        // Without records, an address formed from an SGPR pair is tested against the allocation chosen
        // for the pair's value (D189): one compare. Sound whatever was chosen (inside that allocation is
        // inside one); an access inside another allocation fails it and the run goes to the module with
        // records, which tests every allocation.
        let narrow = self
            .cur_node
            .and_then(|i| self.bases.get(&i))
            .and_then(|r| self.base_sel.get(r))
            .copied();
        if let (Some((base_var, bound_vars)), Some(j)) =
            (narrow, [1, 2, 4, 8].iter().position(|&b| b == bytes))
        {
            let base = self.b.load(t.u64, None, base_var, None, [])?;
            let bound = self.b.load(t.u64, None, bound_vars[j], None, [])?;
            let d = self.b.i_sub(t.u64, None, a, base)?;
            let ok = self.b.u_less_than(t.bool, None, d, bound)?;
            return self.checked_result(ok, a, bytes, store, c.sink);
        }
        // One compare per allocation (D184): `a - base < size - bytes + 1`, the bound computed at entry.
        let bounds = match c.bounds.iter().find(|(b, _)| *b == bytes) {
            Some((_, v)) => v.clone(),
            None => c
                .ranges
                .iter()
                .map(|&(_, size)| self.check_bound(size, bytes))
                .collect::<R<_>>()?,
        };
        let mut tests = Vec::with_capacity(bounds.len());
        for (&(base, _), &bound) in c.ranges.iter().zip(&bounds) {
            let d = self.b.i_sub(t.u64, None, a, base)?;
            tests.push(self.b.u_less_than(t.bool, None, d, bound)?);
        }
        // Or'ed as a balanced tree: the test sits between the address and the access, so its depth is
        // latency on every access (D184).
        while tests.len() > 1 {
            let mut next = Vec::with_capacity(tests.len().div_ceil(2));
            for pair in tests.chunks(2) {
                next.push(match *pair {
                    [x, y] => self.b.logical_or(t.bool, None, x, y)?,
                    [x] => x,
                    _ => unreachable!("chunks of two"),
                });
            }
            tests = next;
        }
        let ok = match tests.first() {
            Some(&o) => o,
            None => self.cfalse(),
        };
        self.checked_result(ok, a, bytes, store, c.sink)
    }

    /// The end of a global access's test `ok`: the fault noted, and the address to access (`a`, or the
    /// sink where the test fails; `a` for a deferred test, which the access runs under).
    fn checked_result(
        &mut self,
        ok: Word,
        a: Word,
        bytes: u32,
        store: bool,
        sink: Word,
    ) -> R<Word> {
        self.note_fault(ok, a, bytes, store, false)?;
        if self.defer_check {
            // A plain load: guarded by the test (`mem_load`), so that its address does not wait for it.
            self.deferred_ok = Some(ok);
            return Ok(a);
        }
        Ok(self.b.select(self.t.u64, None, ok, a, sink)?)
    }

    /// Checked mode, where an access's bounds test `ok` fails: records the invocation's first fault — its
    /// site word (pc, kind, size, lane or not), address `a` (u64) and, in a lane loop, the lane — by
    /// selects (no branch per access; written to the check buffer at the end, D158, D184).
    pub(super) fn note_fault(
        &mut self,
        ok: Word,
        a: Word,
        bytes: u32,
        store: bool,
        lds: bool,
    ) -> R<()> {
        let Some(c) = self.check.clone() else {
            return Ok(());
        };
        let t = self.t;
        if let Some(oob) = c.oob {
            // Without records (D184): the flag alone.
            let bad = self.fault_of(ok)?;
            let o = self.load_bool(oob)?;
            let o = self.b.logical_or(t.bool, None, o, bad)?;
            return self.store(oob, o);
        }
        let kind = if store {
            CHECK_KIND_STORE
        } else {
            CHECK_KIND_LOAD
        } | if lds { CHECK_KIND_LDS } else { 0 };
        let Some(w) = site_word(self.at.1, kind, bytes, self.lane.is_some()) else {
            return Err(self.unsupported("checked mode: an access at a pc past 8 MiB"));
        };
        let site_c = self.c32(w);
        let site = self.b.load(t.u32, None, c.site, None, [])?;
        let z = self.c32(0);
        let fresh = self.b.i_equal(t.bool, None, site, z)?;
        let bad = self.fault_of(ok)?;
        let first = self.b.logical_and(t.bool, None, bad, fresh)?;
        let s = self.b.select(t.u32, None, first, site_c, site)?;
        self.store(c.site, s)?;
        let old = self.b.load(t.u64, None, c.addr, None, [])?;
        let x = self.b.select(t.u64, None, first, a, old)?;
        self.store(c.addr, x)?;
        // The lane mapping's lane is its invocation's (check_flag); the wave mapping's is the lane loop's.
        if let (Some(l), None) = (self.lane, self.lm.as_ref()) {
            let old = self.b.load(t.u32, None, c.lane, None, [])?;
            let x = self.b.select(t.u32, None, first, l, old)?;
            self.store(c.lane, x)?;
        }
        Ok(())
    }

    /// Whether an access whose bounds test is `ok` faults: it fails the test and, for a load guarded by
    /// its lane's condition together with its test (`lane_load`), the lane makes the access.
    fn fault_of(&mut self, ok: Word) -> R<Word> {
        let bad = self.b.logical_not(self.t.bool, None, ok)?;
        Ok(match self.lane_guard {
            Some(g) => self.b.logical_and(self.t.bool, None, bad, g)?,
            None => bad,
        })
    }

    /// Dwords in the wave's scratch region.
    pub(super) fn scratch_words(&self) -> u32 {
        (rdna2spv_ir::launch::wave_scratch_bytes(self.ws, self.desc.scratch_bytes) / 4) as u32
    }

    /// For an access of `bytes` at scratch byte `addr + offset` (`addr` a u32): pointers to the dword holding
    /// the first byte and to the next one, and the bit position (u64) of the first byte in the pair. An
    /// access that does not lie wholly inside the region (computed in 64 bits, as the evaluator does) sets
    /// the wave's scratch-fault flag and goes to the two spare words past the region instead.
    pub(super) fn scratch_loc(
        &mut self,
        bytes: u32,
        addr: Word,
        offset: i64,
    ) -> R<(Word, Word, Word)> {
        let t = self.t;
        let Some(private) = self.private else {
            return Err(self.unsupported("scratch access but the kernel has no private segment"));
        };
        let limit = 4 * self.scratch_words() as u64;
        let a = self.b.u_convert(t.u64, None, addr)?;
        let o = self.c64(offset as u64);
        let a = self.b.i_add(t.u64, None, a, o)?;
        let last = self.c64(limit - bytes as u64);
        let ok = self.b.u_less_than_equal(t.bool, None, a, last)?;
        let bad = self.b.logical_not(t.bool, None, ok)?;
        let f = self.load_bool(self.scratch_fault)?;
        let f = self.b.logical_or(t.bool, None, f, bad)?;
        self.store(self.scratch_fault, f)?;
        let spare = self.c64(limit);
        let a = self.b.select(t.u64, None, ok, a, spare)?;
        let a32 = self.b.u_convert(t.u32, None, a)?;
        let m = self.c64(!3);
        let dw = self.b.bitwise_and(t.u64, None, a, m)?;
        let d0 = self.b.i_add(t.u64, None, private, dw)?;
        let four = self.c64(4);
        let d1 = self.b.i_add(t.u64, None, d0, four)?;
        let p0 = self.b.convert_u_to_ptr(t.psb_u32, None, d0)?;
        let p1 = self.b.convert_u_to_ptr(t.psb_u32, None, d1)?;
        let sh = self.byte_shift(a32)?;
        let sh = self.b.u_convert(t.u64, None, sh)?;
        Ok((p0, p1, sh))
    }

    /// Pointer to dword `k` (0 or 1) from a [`mem_loc`](Self::mem_loc) location.
    pub(super) fn dword_ptr(&mut self, space: Space, loc: Word, k: u32) -> R<Word> {
        let t = self.t;
        if space == Space::Lds {
            let lds = self.lds.expect("checked by mem_loc");
            let idx = if k == 0 {
                loc
            } else {
                let kc = self.c32(k);
                self.b.i_add(t.u32, None, loc, kc)?
            };
            Ok(self.b.access_chain(t.wg_u32, None, lds, [idx])?)
        } else {
            let a = if k == 0 {
                loc
            } else {
                let kc = self.c64(4 * k as u64);
                self.b.i_add(t.u64, None, loc, kc)?
            };
            Ok(self.b.convert_u_to_ptr(t.psb_u32, None, a)?)
        }
    }

    /// Pointer to the dword holding byte `addr + offset`, and the bit position of that byte in it.
    pub(super) fn mem_ptr(
        &mut self,
        space: Space,
        addr: Word,
        aty: Ty,
        offset: i64,
        bytes: u32,
        store: bool,
    ) -> R<(Word, Word)> {
        let (loc, sh) = self.mem_loc(space, addr, aty, offset, bytes, store)?;
        Ok((self.dword_ptr(space, loc, 0)?, sh))
    }

    pub(super) fn byte_shift(&mut self, a: Word) -> R<Word> {
        let three = self.c32(3);
        let low = self.b.bitwise_and(self.t.u32, None, a, three)?;
        Ok(self.b.shift_left_logical(self.t.u32, None, low, three)?)
    }

    pub(super) fn scope(&mut self, space: Space) -> Word {
        self.c32(if space == Space::Lds {
            spirv::Scope::Workgroup as u32
        } else {
            spirv::Scope::Device as u32
        })
    }

    pub(super) fn plain_load(&mut self, space: Space, p: Word) -> R<Word> {
        Ok(if space == Space::Lds {
            self.b.load(self.t.u32, None, p, None, [])?
        } else {
            self.b.load(
                self.t.u32,
                None,
                p,
                Some(MemoryAccess::ALIGNED),
                [Operand::LiteralBit32(4)],
            )?
        })
    }

    pub(super) fn plain_store(&mut self, space: Space, p: Word, v: Word) -> R<()> {
        if space == Space::Lds {
            self.b.store(p, v, None, [])?;
        } else {
            self.b.store(
                p,
                v,
                Some(MemoryAccess::ALIGNED),
                [Operand::LiteralBit32(4)],
            )?;
        }
        Ok(())
    }

    /// Notes a straddling access in the misaligned flag (D242): for a dword (`bytes` 4) the byte position
    /// word of the latest [`mem_loc`](Self::mem_loc) (it straddles when its two low bits are not zero;
    /// the flag's reader masks them), for a 16-bit access 1 when it straddles (at byte 3: `sh`, the
    /// position's bit shift, is 24); under `guard`, only where it holds.
    pub(super) fn note_misaligned(&mut self, bytes: u32, sh: Word, guard: Option<Word>) -> R<()> {
        let t = self.t;
        let c = match bytes {
            4 => self
                .pos_word
                .ok_or_else(|| self.unsupported("misaligned test without a byte position"))?,
            2 => {
                let st = self.straddles(bytes, sh)?;
                let one = self.c32(1);
                let z = self.c32(0);
                self.b.select(t.u32, None, st, one, z)?
            }
            _ => return Ok(()),
        };
        let c = match guard {
            Some(g) => {
                let z = self.c32(0);
                self.b.select(t.u32, None, g, c, z)?
            }
            None => c,
        };
        let m = self.load_u32(self.misaligned)?;
        let m = self.b.bitwise_or(t.u32, None, m, c)?;
        self.store(self.misaligned, m)
    }

    /// Whether IR node `addr` is a multiple of 4 by construction: an AND with a constant whose two low
    /// bits are clear (a scalar load's `(x + c) & !3`), or such a constant (D242).
    pub(super) fn dword_aligned_node(&self, addr: Handle<Node>) -> bool {
        let low_clear =
            |n: Handle<Node>| matches!(self.p.nodes[n], Node::Const { bits, .. } if bits & 3 == 0);
        match self.p.nodes[addr] {
            Node::Const { bits, .. } => bits & 3 == 0,
            Node::Int {
                op: IntOp::And,
                a,
                b,
                ..
            } => low_clear(a) || low_clear(b),
            _ => false,
        }
    }

    /// True when an access of `bytes` at bit position `sh` runs into the next dword.
    pub(super) fn straddles(&mut self, bytes: u32, sh: Word) -> R<Word> {
        let lim = self.c32(32 - 8 * bytes);
        Ok(self.b.u_greater_than(self.t.bool, None, sh, lim)?)
    }

    /// A lane's load under its condition `on` (its exec bit, and a `LoadIf`'s enable). Checked, a global
    /// load is guarded by `on` and its bounds test together, one selection instead of the lane's around the
    /// test's (D189, amended): the address and the test are computed for every lane (arithmetic only), the
    /// fault is noted for a lane that is on, and a lane that is off, or fails the test, reads zero — as the
    /// two nested guards gave. Otherwise the load runs under `on`.
    pub(super) fn lane_load(
        &mut self,
        on: Word,
        space: Space,
        access: Access,
        addr: Word,
        aty: Ty,
        offset: i64,
    ) -> R<Word> {
        // A measurement switch, like D189's: `RDNA2SPV_CHECK_MERGE=0` nests the two guards as before.
        let merge = std::env::var_os("RDNA2SPV_CHECK_MERGE").is_none_or(|v| v != "0");
        if merge && self.check.is_some() && space == Space::Global {
            self.lane_guard = Some(on);
            let v = self.mem_load(space, access, addr, aty, offset);
            self.lane_guard = None;
            return v;
        }
        Ok(self
            .guarded(on, Some(self.t.u32), |cx| {
                Ok(Some(cx.mem_load(space, access, addr, aty, offset)?))
            })?
            .expect("guarded with a type gives a value"))
    }

    /// A load's `mem_loc` with its bounds test deferred (D184): the dword location, the byte position and
    /// the test the load is to run under (None where the access needs none).
    fn deferred_loc(
        &mut self,
        space: Space,
        addr: Word,
        aty: Ty,
        offset: i64,
        bytes: u32,
    ) -> R<(Word, Word, Option<Word>)> {
        self.defer_check = true;
        let loc = self.mem_loc(space, addr, aty, offset, bytes, false);
        self.defer_check = false;
        let (loc, sh) = loc?;
        Ok((loc, sh, self.deferred_ok.take()))
    }

    /// Checked mode without records, lane mapping (D245): pairs the instruction's global dword loads from
    /// one address at offsets `o` and `o + 4` (`o` a multiple of 4), consecutive among `nodes`, in
    /// `load_pairs`. lavapipe runs a storage-buffer load as a loop over its SIMD lanes per 32- or 64-bit
    /// component, each with a counter and a result `alloca`, and its coroutine split builds a dominator
    /// tree of the whole function per `alloca` (D245): one 64-bit load for two dwords halves both.
    /// `RDNA2SPV_CHECK_PAIRS=0` (a measurement switch) keeps the dword loads.
    pub(super) fn pair_loads(&mut self, nodes: &[usize]) {
        self.load_pairs.clear();
        if !self.opts.check_flag_only
            || self.check.is_none()
            || self.opts.unaligned != Unaligned::Detect
            || std::env::var_os("RDNA2SPV_CHECK_PAIRS").is_some_and(|v| v == "0")
        {
            return;
        }
        let dword = |cx: &Self, i: usize| match cx.p.nodes[Handle::<Node>::from_index(i)] {
            Node::Load {
                space: Space::Global,
                access: Access::B32,
                addr,
                offset,
            } if offset % 4 == 0 => Some((addr, offset)),
            _ => None,
        };
        let mut k = 0;
        while k + 1 < nodes.len() {
            match (dword(self, nodes[k]), dword(self, nodes[k + 1])) {
                (Some((a, o)), Some((b, p))) if a == b && p == o + 4 => {
                    self.load_pairs.insert(nodes[k], nodes[k + 1]);
                    k += 2;
                }
                _ => k += 1,
            }
        }
    }

    /// The two dwords of a pair (`pair_loads`) from one 64-bit load, lane mapping: each dword's bounds
    /// test and misaligned test as `mem_load` makes them (the fault flag and the misaligned flag are the
    /// same), and one load under the lane's condition `on` and both tests. Exact where both dwords are
    /// inside (the two words at `(a + o) & !3` and 4 past it, in order) and where the lane is off (both
    /// read zero, as each did); a lane with one dword inside and one outside reads zero for both, where
    /// the inside one read its word — that lane has set the out-of-bounds flag, and a run without records
    /// whose flag is set is run again with records (D184), whose module keeps the dword loads.
    pub(super) fn lane_load_pair(
        &mut self,
        on: Word,
        addr: Handle<Node>,
        offset: i64,
        i: usize,
        j: usize,
    ) -> R<(Word, Word)> {
        let t = self.t;
        let a = self.get(addr)?;
        let aty = self.ty(addr.index());
        let mut guard = on;
        let mut first = None;
        for (k, node) in [(0i64, i), (1, j)] {
            self.cur_node = Some(node);
            self.lane_guard = Some(on);
            let loc = self.deferred_loc(Space::Global, a, aty, offset + 4 * k, 4);
            self.lane_guard = None;
            let (loc, sh, ok) = loc?;
            if let Some(ok) = ok {
                guard = self.b.logical_and(t.bool, None, guard, ok)?;
            }
            if !self.aligned_addr {
                self.note_misaligned(4, sh, Some(on))?;
            }
            first.get_or_insert(loc);
        }
        self.cur_node = Some(i);
        let loc = first.expect("two dwords");
        let v = self
            .guarded(guard, Some(t.u64), |cx| {
                let pt =
                    cx.b.type_pointer(None, spirv::StorageClass::PhysicalStorageBuffer, t.u64);
                let p = cx.b.convert_u_to_ptr(pt, None, loc)?;
                Ok(Some(cx.b.load(
                    t.u64,
                    None,
                    p,
                    Some(MemoryAccess::ALIGNED),
                    [Operand::LiteralBit32(4)],
                )?))
            })?
            .expect("guarded with a type gives a value");
        let lo = self.b.u_convert(t.u32, None, v)?;
        let c32 = self.c64(32);
        let hi = self.b.shift_right_logical(t.u64, None, v, c32)?;
        let hi = self.b.u_convert(t.u32, None, hi)?;
        Ok((lo, hi))
    }

    /// Loads as the evaluator does, at any byte address: a dword-straddling access (unaligned 32-bit,
    /// 16-bit at byte 3) reads the next dword too.
    pub(super) fn mem_load(
        &mut self,
        space: Space,
        access: Access,
        addr: Word,
        aty: Ty,
        offset: i64,
    ) -> R<Word> {
        let t = self.t;
        let bytes = access.bytes() as u32;
        if space == Space::Scratch {
            let (p0, p1, sh) = self.scratch_loc(bytes, addr, offset)?;
            let w0 = self.plain_load(Space::Global, p0)?;
            let w1 = self.plain_load(Space::Global, p1)?;
            let both = self.join64(w0, w1)?;
            let x = self.b.shift_right_logical(t.u64, None, both, sh)?;
            let x = self.b.u_convert(t.u32, None, x)?;
            return self.extend(access, x);
        }
        // Checked mode (D184): the load runs under its bounds test (a lane outside every allocation reads
        // zero and touches nothing) rather than from an address selected by the test. lavapipe runs a load
        // as a loop over the SIMD lanes that tests each lane's mask bit with a branch, which the CPU
        // predicts; a selected address made every load wait for the test (measured: about half of the
        // remaining checked cost of saxpy and spmv at 100x).
        let (loc, sh, ok) = self.deferred_loc(space, addr, aty, offset, bytes)?;
        // Under `lane_load`: the lane's condition joins the test (one guard), or is the guard where the
        // access needs no test.
        let guard = self.lane_guard.take();
        let ok = match (ok, guard) {
            (Some(ok), Some(g)) => Some(self.b.logical_and(t.bool, None, g, ok)?),
            (ok, g) => ok.or(g),
        };
        let p0 = self.dword_ptr(space, loc, 0)?;
        let w0 = match ok {
            Some(ok) => self
                .guarded(ok, Some(t.u32), |cx| Ok(Some(cx.plain_load(space, p0)?)))?
                .expect("guarded with a type gives a value"),
            None => self.plain_load(space, p0)?,
        };
        let x = if bytes == 1 {
            self.b.shift_right_logical(t.u32, None, w0, sh)?
        } else if self.opts.unaligned == Unaligned::Detect {
            if !self.aligned_addr {
                self.note_misaligned(bytes, sh, guard)?;
            }
            if access == Access::B32 {
                // A dword at a nonzero byte position straddles (flagged): the aligned dword is the value.
                w0
            } else {
                self.b.shift_right_logical(t.u32, None, w0, sh)?
            }
        } else {
            let st = self.straddles(bytes, sh)?;
            let st = match ok {
                Some(ok) => self.b.logical_and(t.bool, None, st, ok)?,
                None => st,
            };
            let w1 = self
                .guarded(st, Some(t.u32), |cx| {
                    let p1 = cx.dword_ptr(space, loc, 1)?;
                    Ok(Some(cx.plain_load(space, p1)?))
                })?
                .expect("guarded with a type gives a value");
            let both = self.join64(w0, w1)?;
            let sh64 = self.b.u_convert(t.u64, None, sh)?;
            let x = self.b.shift_right_logical(t.u64, None, both, sh64)?;
            self.b.u_convert(t.u32, None, x)?
        };
        self.extend(access, x)
    }

    /// The loaded bits `x` (at bit 0) zero- or sign-extended from the access's width.
    pub(super) fn extend(&mut self, access: Access, x: Word) -> R<Word> {
        let t = self.t;
        if access == Access::B32 {
            return Ok(x);
        }
        let bits = 8 * access.bytes() as u32;
        Ok(match access {
            Access::U8 | Access::U16 => {
                let m = self.c32((1u32 << bits) - 1);
                self.b.bitwise_and(t.u32, None, x, m)?
            }
            _ => {
                let s = self.c32(32 - bits);
                let l = self.b.shift_left_logical(t.u32, None, x, s)?;
                self.b.shift_right_arithmetic(t.u32, None, l, s)?
            }
        })
    }

    /// Stores as the evaluator does, at any byte address. An aligned dword is a plain store; anything
    /// narrower or unaligned clears and sets its bytes with atomic AND/OR on each dword it touches
    /// (other lanes and waves may own the neighbouring bytes).
    pub(super) fn mem_store(
        &mut self,
        space: Space,
        access: Access,
        addr: Word,
        aty: Ty,
        offset: i64,
        v: Word,
    ) -> R<()> {
        let t = self.t;
        let bytes = access.bytes() as u32;
        if space == Space::Scratch {
            // The region belongs to this invocation alone: read, merge, write both dwords (exact at any byte
            // address; an untouched second dword is written back unchanged; no atomics needed).
            let (p0, p1, sh) = self.scratch_loc(bytes, addr, offset)?;
            if self.lane_mode() {
                // The neighbouring dwords belong to other lanes, which run concurrently.
                return self.lane_scratch_store(p0, p1, sh, bytes, v);
            }
            let w0 = self.plain_load(Space::Global, p0)?;
            let w1 = self.plain_load(Space::Global, p1)?;
            let both = self.join64(w0, w1)?;
            let mc = self.c64((1u64 << (8 * bytes)) - 1);
            let m64 = self.b.shift_left_logical(t.u64, None, mc, sh)?;
            let keep = self.b.not(t.u64, None, m64)?;
            let kept = self.b.bitwise_and(t.u64, None, both, keep)?;
            let v64 = self.b.u_convert(t.u64, None, v)?;
            let v64 = self.b.bitwise_and(t.u64, None, v64, mc)?;
            let v64 = self.b.shift_left_logical(t.u64, None, v64, sh)?;
            let new = self.b.bitwise_or(t.u64, None, kept, v64)?;
            let lo = self.b.u_convert(t.u32, None, new)?;
            let c32 = self.c64(32);
            let hi = self.b.shift_right_logical(t.u64, None, new, c32)?;
            let hi = self.b.u_convert(t.u32, None, hi)?;
            self.plain_store(Space::Global, p0, lo)?;
            return self.plain_store(Space::Global, p1, hi);
        }
        // Checked mode: a plain dword store runs under its bounds test, as loads do (`mem_load`, D184);
        // the other forms go to the sink.
        let plain = self.opts.unaligned == Unaligned::Detect && access == Access::B32;
        self.defer_check = plain;
        let loc = self.mem_loc(space, addr, aty, offset, bytes, true);
        self.defer_check = false;
        let (loc, sh) = loc?;
        let ok = self.deferred_ok.take();
        if self.opts.unaligned == Unaligned::Detect {
            if !self.aligned_addr {
                self.note_misaligned(bytes, sh, None)?;
            }
            let p0 = self.dword_ptr(space, loc, 0)?;
            if access == Access::B32 {
                if let Some(ok) = ok {
                    self.guarded(ok, None, |cx| {
                        cx.plain_store(space, p0, v)?;
                        Ok(None)
                    })?;
                    return Ok(());
                }
                return self.plain_store(space, p0, v);
            }
            let m = self.c32((1u32 << (8 * bytes)) - 1);
            let mm = self.b.shift_left_logical(t.u32, None, m, sh)?;
            let keep = self.b.not(t.u32, None, mm)?;
            let vv = self.b.bitwise_and(t.u32, None, v, m)?;
            let set = self.b.shift_left_logical(t.u32, None, vv, sh)?;
            let sc = self.scope(space);
            let relaxed = self.c32(0);
            self.b.atomic_and(t.u32, None, p0, sc, relaxed, keep)?;
            self.b.atomic_or(t.u32, None, p0, sc, relaxed, set)?;
            return Ok(());
        }
        let z = self.c32(0);
        let aligned = self.b.i_equal(t.bool, None, sh, z)?;
        let whole = if access == Access::B32 {
            aligned
        } else {
            self.cfalse()
        };
        self.guarded(whole, None, |cx| {
            let p0 = cx.dword_ptr(space, loc, 0)?;
            cx.plain_store(space, p0, v)?;
            Ok(None)
        })?;
        let partial = self.b.logical_not(t.bool, None, whole)?;
        self.guarded(partial, None, |cx| {
            let m = (1u64 << (8 * bytes)) - 1;
            let mc = cx.c64(m);
            let sh64 = cx.b.u_convert(t.u64, None, sh)?;
            let m64 = cx.b.shift_left_logical(t.u64, None, mc, sh64)?;
            let v64 = cx.b.u_convert(t.u64, None, v)?;
            let v64 = cx.b.bitwise_and(t.u64, None, v64, mc)?;
            let v64 = cx.b.shift_left_logical(t.u64, None, v64, sh64)?;
            let c32 = cx.c64(32);
            let parts = |cx: &mut Self, x: Word, hi: bool| -> R<Word> {
                let y = if hi {
                    cx.b.shift_right_logical(t.u64, None, x, c32)?
                } else {
                    x
                };
                Ok(cx.b.u_convert(t.u32, None, y)?)
            };
            let sc = cx.scope(space);
            let relaxed = cx.c32(0);
            let (m0, v0) = (parts(cx, m64, false)?, parts(cx, v64, false)?);
            let keep0 = cx.b.not(t.u32, None, m0)?;
            let p0 = cx.dword_ptr(space, loc, 0)?;
            cx.b.atomic_and(t.u32, None, p0, sc, relaxed, keep0)?;
            cx.b.atomic_or(t.u32, None, p0, sc, relaxed, v0)?;
            if bytes > 1 {
                let st = cx.straddles(bytes, sh)?;
                let (m1, v1) = (parts(cx, m64, true)?, parts(cx, v64, true)?);
                cx.guarded(st, None, |cx| {
                    let keep1 = cx.b.not(t.u32, None, m1)?;
                    let p1 = cx.dword_ptr(space, loc, 1)?;
                    cx.b.atomic_and(t.u32, None, p1, sc, relaxed, keep1)?;
                    cx.b.atomic_or(t.u32, None, p1, sc, relaxed, v1)?;
                    Ok(None)
                })?;
            }
            Ok(None)
        })?;
        Ok(())
    }
}
