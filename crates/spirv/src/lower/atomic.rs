//! Atomics (decision D060): every `Node::Atomic`/`Node::AtomicIf` operation on 32 and 64 bits.
//!
//! * 32-bit, global or LDS: the operations SPIR-V has (add, sub, and, or, xor, min/max, exchange,
//!   compare-exchange) map to OpAtomic* on the dword; the others (rsub, inc, dec, csub, mskor, wrap and the
//!   float forms) are a compare-exchange retry: read, compute the new value with the evaluator's rules,
//!   OpAtomicCompareExchange, retry while another writer got in between.
//! * 64-bit global: OpAtomic* on a 64-bit PhysicalStorageBuffer pointer (Int64Atomics; the device profile
//!   must show `shaderBufferInt64Atomics`, else refused), the same retry for the others.
//! * 64-bit LDS: the LDS is an array of dwords and Vulkan has no aliasing 64-bit view of it without
//!   VK_KHR_workgroup_memory_explicit_layout (lavapipe lacks it), so each 64-bit LDS atomic runs under a
//!   workgroup lock word (a spin lock written so that SIMD lock-step execution cannot deadlock: each
//!   attempt takes the lock, does the whole read-modify-write and releases it inside one branch). The
//!   lock is taken with Acquire and released with Release semantics, except on a device whose profile
//!   measured that a subgroup runs alone between barriers (`subgroup_runs_alone`, lavapipe): there both
//!   are relaxed, because lavapipe yields to the other subgroups at every ordered atomic, which inside
//!   the retry loop (trip counts differing between subgroups) desynchronises every later barrier
//!   (decision D146).
//!
//! Retries run in a top-tested loop entered only after a failed first attempt, so an atomic without
//! contention costs no loop iteration against lavapipe's 65,535-iteration cap.

use super::{Cx, R};
use rdna2spv_ir::{AtomicOp, Space, Ty};
use rspirv::spirv::{Capability, LoopControl, Word};

/// The workgroup counter words the wave mapping's barrier rounds rotate through (`lower/mod.rs`
/// `barrier_round`); the lock of 64-bit LDS atomics, when there is one, is the word after them.
pub(super) const BARRIER_COUNTERS: u32 = 3;

impl Cx<'_> {
    /// Workgroup counter words: the three barrier counters, plus the 64-bit LDS atomic lock when the
    /// program has such an atomic.
    pub(super) fn counter_words(&self) -> u32 {
        let wide_lds = self.p.nodes.iter().any(|(_, n)| match n {
            rdna2spv_ir::Node::Atomic {
                space: Space::Lds,
                value,
                ..
            } => self.types[value.index()].map(|t| t.0) == Some(Ty::B64),
            _ => false,
        });
        BARRIER_COUNTERS + u32::from(wide_lds)
    }

    /// Performs `op` at `addr + offset` and returns the old value (u64 when `wide`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic_rmw(
        &mut self,
        space: Space,
        op: AtomicOp,
        wide: bool,
        addr: Word,
        aty: Ty,
        offset: i64,
        x: Word,
        y: Option<Word>,
    ) -> R<Word> {
        let t = self.t;
        if space == Space::Scratch {
            return self.scratch_rmw(op, wide, addr, offset, x, y);
        }
        let sc = self.scope(space);
        let r = self.c32(0);
        if !wide {
            let (p, _) = self.mem_ptr(space, addr, aty, offset, 4, false)?;
            if let Some(v) = self.native_atomic(t.u32, p, sc, op, x, y)? {
                return Ok(v);
            }
            return self.cas_retry(t.u32, p, sc, op, false, x, y);
        }
        if space == Space::Global {
            if !self.prof.has_int64_buffer_atomics {
                return Err(self.unsupported(
                    "64-bit global atomics need shaderBufferInt64Atomics, which the device profile does not show",
                ));
            }
            if !self.int64_atomics {
                self.b.capability(Capability::Int64Atomics);
                self.int64_atomics = true;
            }
            let (loc, _) = self.mem_loc(space, addr, aty, offset, 8, false)?;
            let m = self.c64(!7);
            let a8 = self.b.bitwise_and(t.u64, None, loc, m)?;
            let pty = self.b.type_pointer(
                None,
                rspirv::spirv::StorageClass::PhysicalStorageBuffer,
                t.u64,
            );
            let p = self.b.convert_u_to_ptr(pty, None, a8)?;
            if let Some(v) = self.native_atomic(t.u64, p, sc, op, x, y)? {
                return Ok(v);
            }
            return self.cas_retry(t.u64, p, sc, op, true, x, y);
        }
        // 64-bit LDS under the workgroup lock.
        let (idx, _) = self.mem_loc(space, addr, aty, offset, 8, false)?;
        let m = self.c32(!1);
        let idx = self.b.bitwise_and(t.u32, None, idx, m)?;
        let counters = self.counters;
        let at = self.c32(BARRIER_COUNTERS);
        let lock = self.b.access_chain(t.wg_u32, None, counters, [at])?;
        let wg = self.c32(rspirv::spirv::Scope::Workgroup as u32);
        // D146: where a subgroup runs alone until a barrier (measured), the lock is taken and released
        // with relaxed atomics: no other subgroup runs while one holds it, and such a device (lavapipe)
        // turns an ordered atomic into a yield to the other subgroups inside this retry loop, whose trip
        // count differs between subgroups. Elsewhere Acquire/Release order the plain accesses.
        let (acquire, release) = if self.prof.subgroup_runs_alone {
            (self.c32(0), self.c32(0))
        } else {
            (
                self.c32(0x2 | 0x100), // Acquire | WorkgroupMemory
                self.c32(0x4 | 0x100), // Release | WorkgroupMemory
            )
        };
        let _ = r;
        self.retry(t.u64, &|cx: &mut Self| {
            let (z, one) = (cx.c32(0), cx.c32(1));
            let prev =
                cx.b.atomic_compare_exchange(t.u32, None, lock, wg, acquire, acquire, one, z)?;
            let got = cx.b.i_equal(t.bool, None, prev, z)?;
            let old = cx.guarded(got, Some(t.u64), |cx| {
                let p0 = cx.dword_ptr(Space::Lds, idx, 0)?;
                let p1 = cx.dword_ptr(Space::Lds, idx, 1)?;
                let lo = cx.plain_load(Space::Lds, p0)?;
                let hi = cx.plain_load(Space::Lds, p1)?;
                let old = cx.join64(lo, hi)?;
                let new = cx.rmw_value(op, true, old, x, y)?;
                let nlo = cx.b.u_convert(t.u32, None, new)?;
                let c32 = cx.c64(32);
                let nhi = cx.b.shift_right_logical(t.u64, None, new, c32)?;
                let nhi = cx.b.u_convert(t.u32, None, nhi)?;
                cx.plain_store(Space::Lds, p0, nlo)?;
                cx.plain_store(Space::Lds, p1, nhi)?;
                cx.b.atomic_store(lock, wg, release, z)?;
                Ok(Some(old))
            })?;
            Ok((got, old.expect("guarded returns the value")))
        })
    }

    /// A scratch atomic (D092): the region belongs to this invocation alone (one wave), so a plain read,
    /// compute, write is atomic; lanes run in ascending order as on the host. A 64-bit one takes the lane's
    /// private dword pair, the high dword `4 * wave_size` bytes above the low one.
    fn scratch_rmw(
        &mut self,
        op: AtomicOp,
        wide: bool,
        addr: Word,
        offset: i64,
        x: Word,
        y: Option<Word>,
    ) -> R<Word> {
        let t = self.t;
        if self.lane_mode() {
            // Lanes of one wave run in separate invocations there, and idxen can make them collide.
            return Err(self.unsupported(
                "scratch atomics run the wave's lanes in order in one invocation: the wave mapping (D092)",
            ));
        }
        let (p0, _, _) = self.scratch_loc(4, addr, offset)?;
        let lo = self.plain_load(Space::Global, p0)?;
        if !wide {
            let new = self.rmw_value(op, false, lo, x, y)?;
            self.plain_store(Space::Global, p0, new)?;
            return Ok(lo);
        }
        let (p1, _, _) = self.scratch_loc(4, addr, offset + 4 * self.ws as i64)?;
        let hi = self.plain_load(Space::Global, p1)?;
        let old = self.join64(lo, hi)?;
        let new = self.rmw_value(op, true, old, x, y)?;
        let nlo = self.b.u_convert(t.u32, None, new)?;
        let c32 = self.c64(32);
        let nhi = self.b.shift_right_logical(t.u64, None, new, c32)?;
        let nhi = self.b.u_convert(t.u32, None, nhi)?;
        self.plain_store(Space::Global, p0, nlo)?;
        self.plain_store(Space::Global, p1, nhi)?;
        Ok(old)
    }

    /// The operations SPIR-V has as one instruction; None for the others.
    fn native_atomic(
        &mut self,
        ty: Word,
        p: Word,
        sc: Word,
        op: AtomicOp,
        x: Word,
        y: Option<Word>,
    ) -> R<Option<Word>> {
        let r = self.c32(0);
        Ok(Some(match op {
            AtomicOp::Add => self.b.atomic_i_add(ty, None, p, sc, r, x)?,
            AtomicOp::Sub => self.b.atomic_i_sub(ty, None, p, sc, r, x)?,
            AtomicOp::And => self.b.atomic_and(ty, None, p, sc, r, x)?,
            AtomicOp::Or => self.b.atomic_or(ty, None, p, sc, r, x)?,
            AtomicOp::Xor => self.b.atomic_xor(ty, None, p, sc, r, x)?,
            AtomicOp::MinU => self.b.atomic_u_min(ty, None, p, sc, r, x)?,
            AtomicOp::MaxU => self.b.atomic_u_max(ty, None, p, sc, r, x)?,
            AtomicOp::MinI => self.b.atomic_s_min(ty, None, p, sc, r, x)?,
            AtomicOp::MaxI => self.b.atomic_s_max(ty, None, p, sc, r, x)?,
            AtomicOp::Swap => self.b.atomic_exchange(ty, None, p, sc, r, x)?,
            AtomicOp::CmpSwap => {
                let cmp = y.expect("verified: CmpSwap has data1");
                self.b
                    .atomic_compare_exchange(ty, None, p, sc, r, r, x, cmp)?
            }
            _ => return Ok(None),
        }))
    }

    /// Read, compute, compare-exchange; retried until no other writer got in between.
    #[allow(clippy::too_many_arguments)]
    fn cas_retry(
        &mut self,
        ty: Word,
        p: Word,
        sc: Word,
        op: AtomicOp,
        wide: bool,
        x: Word,
        y: Option<Word>,
    ) -> R<Word> {
        let t = self.t;
        self.retry(ty, &|cx: &mut Self| {
            let r = cx.c32(0);
            let cur = cx.b.atomic_load(ty, None, p, sc, r)?;
            let new = cx.rmw_value(op, wide, cur, x, y)?;
            let prev =
                cx.b.atomic_compare_exchange(ty, None, p, sc, r, r, new, cur)?;
            let ok = cx.b.i_equal(t.bool, None, prev, cur)?;
            Ok((ok, prev))
        })
    }

    /// Runs `attempt` (→ (succeeded, value)) once, then in a top-tested loop until it succeeds; the value
    /// of the successful attempt.
    fn retry(&mut self, ty: Word, attempt: &dyn Fn(&mut Self) -> R<(Word, Word)>) -> R<Word> {
        let t = self.t;
        let (ok0, v0) = attempt(self)?;
        let failed = self.b.logical_not(t.bool, None, ok0)?;
        let again = self.guarded(failed, Some(ty), |cx| {
            let f = cx.cfalse();
            let okv = cx.fn_var(t.bool, Some(f));
            let z = cx.zero_of(ty);
            let vv = cx.fn_var(ty, Some(z));
            cx.store(okv, f)?;
            let (h, body, cont, merge) = (cx.b.id(), cx.b.id(), cx.b.id(), cx.b.id());
            cx.b.branch(h)?;
            cx.begin(h)?;
            let ok = cx.load_bool(okv)?;
            let go = cx.b.logical_not(t.bool, None, ok)?;
            cx.b.loop_merge(merge, cont, LoopControl::DONT_UNROLL, [])?;
            cx.b.branch_conditional(go, body, merge, [])?;
            cx.begin(body)?;
            let (ok1, v1) = attempt(cx)?;
            cx.store(okv, ok1)?;
            cx.store(vv, v1)?;
            cx.b.branch(cont)?;
            cx.begin(cont)?;
            cx.b.branch(h)?;
            cx.begin(merge)?;
            Ok(Some(cx.b.load(ty, None, vv, None, [])?))
        })?;
        let again = again.expect("guarded returns the value");
        Ok(self.b.select(ty, None, ok0, v0, again)?)
    }

    fn cw(&mut self, wide: bool, v: u64) -> Word {
        if wide {
            self.c64(v)
        } else {
            self.c32(v as u32)
        }
    }

    /// The new memory value of `op` from the old value `o` and the data `x`, `y` (the evaluator's
    /// `rdna2spv_eval::atomic::rmw`), in integer operations (float forms included: bit-exact on any device).
    fn rmw_value(
        &mut self,
        op: AtomicOp,
        wide: bool,
        o: Word,
        x: Word,
        y: Option<Word>,
    ) -> R<Word> {
        let t = self.t;
        let ty = if wide { t.u64 } else { t.u32 };
        let bl = t.bool;
        let y = || y.expect("verified: the operation has data1");
        Ok(match op {
            AtomicOp::Add => self.b.i_add(ty, None, o, x)?,
            AtomicOp::Sub => self.b.i_sub(ty, None, o, x)?,
            AtomicOp::RSub => self.b.i_sub(ty, None, x, o)?,
            AtomicOp::And => self.b.bitwise_and(ty, None, o, x)?,
            AtomicOp::Or => self.b.bitwise_or(ty, None, o, x)?,
            AtomicOp::Xor => self.b.bitwise_xor(ty, None, o, x)?,
            AtomicOp::MinU => {
                let c = self.b.u_less_than(bl, None, x, o)?;
                self.b.select(ty, None, c, x, o)?
            }
            AtomicOp::MaxU => {
                let c = self.b.u_greater_than(bl, None, x, o)?;
                self.b.select(ty, None, c, x, o)?
            }
            AtomicOp::MinI => {
                let c = self.b.s_less_than(bl, None, x, o)?;
                self.b.select(ty, None, c, x, o)?
            }
            AtomicOp::MaxI => {
                let c = self.b.s_greater_than(bl, None, x, o)?;
                self.b.select(ty, None, c, x, o)?
            }
            AtomicOp::Swap => x,
            AtomicOp::CmpSwap => {
                let c = self.b.i_equal(bl, None, o, y())?;
                self.b.select(ty, None, c, x, o)?
            }
            AtomicOp::Inc => {
                let c = self.b.u_greater_than_equal(bl, None, o, x)?;
                let one = self.cw(wide, 1);
                let z = self.cw(wide, 0);
                let inc = self.b.i_add(ty, None, o, one)?;
                self.b.select(ty, None, c, z, inc)?
            }
            AtomicOp::Dec => {
                let z = self.cw(wide, 0);
                let one = self.cw(wide, 1);
                let is0 = self.b.i_equal(bl, None, o, z)?;
                let gt = self.b.u_greater_than(bl, None, o, x)?;
                let c = self.b.logical_or(bl, None, is0, gt)?;
                let dec = self.b.i_sub(ty, None, o, one)?;
                self.b.select(ty, None, c, x, dec)?
            }
            AtomicOp::CSub => {
                let z = self.cw(wide, 0);
                let c = self.b.u_greater_than(bl, None, x, o)?;
                let d = self.b.i_sub(ty, None, o, x)?;
                self.b.select(ty, None, c, z, d)?
            }
            AtomicOp::MskOr => {
                let nx = self.b.not(ty, None, x)?;
                let k = self.b.bitwise_and(ty, None, o, nx)?;
                self.b.bitwise_or(ty, None, k, y())?
            }
            AtomicOp::Wrap => {
                let c = self.b.u_greater_than_equal(bl, None, o, x)?;
                let d = self.b.i_sub(ty, None, o, x)?;
                let s = self.b.i_add(ty, None, o, y())?;
                self.b.select(ty, None, c, d, s)?
            }
            AtomicOp::FAdd => {
                // f32 only (verified). Round to nearest even, denormals kept (the device's OpFAdd is
                // correctly rounded and keeps subnormals: DeviceProfile); a NaN sum is the default NaN (D005).
                let a = self.b.bitcast(t.f32, None, o)?;
                let b = self.b.bitcast(t.f32, None, x)?;
                let s = self.b.f_add(t.f32, None, a, b)?;
                let bits = self.b.bitcast(t.u32, None, s)?;
                let nan = self.is_nan_bits(false, bits)?;
                let q = self.c32(rdna2spv_ir::quirks::F32_DEFAULT_NAN);
                self.b.select(t.u32, None, nan, q, bits)?
            }
            AtomicOp::FMin | AtomicOp::FMax => {
                // minNum/maxNum: a NaN operand gives the other, both NaN the default NaN; otherwise
                // ordered by the sign-magnitude key (so -0 < +0), as the evaluator's f32_min/f64_min.
                let on = self.is_nan_bits(wide, o)?;
                let xn = self.is_nan_bits(wide, x)?;
                let ko = self.order_key(wide, o)?;
                let kx = self.order_key(wide, x)?;
                let pick_x = if op == AtomicOp::FMin {
                    self.b.u_less_than(bl, None, kx, ko)?
                } else {
                    self.b.u_greater_than(bl, None, kx, ko)?
                };
                let v = self.b.select(ty, None, pick_x, x, o)?;
                let v = self.b.select(ty, None, xn, o, v)?;
                let v = self.b.select(ty, None, on, x, v)?;
                let both = self.b.logical_and(bl, None, on, xn)?;
                let q = self.cw(
                    wide,
                    if wide {
                        rdna2spv_ir::quirks::F64_DEFAULT_NAN
                    } else {
                        rdna2spv_ir::quirks::F32_DEFAULT_NAN.into()
                    },
                );
                self.b.select(ty, None, both, q, v)?
            }
            AtomicOp::FCmpSwap => {
                // Float equality: equal bits and not NaN, or both zeros of any sign.
                let yv = y();
                let same = self.b.i_equal(bl, None, o, yv)?;
                let nan = self.is_nan_bits(wide, o)?;
                let notnan = self.b.logical_not(bl, None, nan)?;
                let eq = self.b.logical_and(bl, None, same, notnan)?;
                let both = self.b.bitwise_or(ty, None, o, yv)?;
                let abs = self.cw(wide, if wide { u64::MAX >> 1 } else { 0x7fff_ffff });
                let mag = self.b.bitwise_and(ty, None, both, abs)?;
                let z = self.cw(wide, 0);
                let zeros = self.b.i_equal(bl, None, mag, z)?;
                let c = self.b.logical_or(bl, None, eq, zeros)?;
                self.b.select(ty, None, c, x, o)?
            }
        })
    }

    fn is_nan_bits(&mut self, wide: bool, v: Word) -> R<Word> {
        let t = self.t;
        let ty = if wide { t.u64 } else { t.u32 };
        let abs = self.cw(wide, if wide { u64::MAX >> 1 } else { 0x7fff_ffff });
        let inf = self.cw(
            wide,
            if wide {
                0x7ff0_0000_0000_0000
            } else {
                0x7f80_0000
            },
        );
        let a = self.b.bitwise_and(ty, None, v, abs)?;
        Ok(self.b.u_greater_than(t.bool, None, a, inf)?)
    }

    /// An unsigned key ordered as the (non-NaN) floats are, -0 below +0: negatives inverted, positives
    /// with the sign bit set.
    fn order_key(&mut self, wide: bool, v: Word) -> R<Word> {
        let t = self.t;
        let ty = if wide { t.u64 } else { t.u32 };
        let sign = self.cw(wide, if wide { 1 << 63 } else { 1 << 31 });
        let s = self.b.bitwise_and(ty, None, v, sign)?;
        let z = self.cw(wide, 0);
        let neg = self.b.i_not_equal(t.bool, None, s, z)?;
        let inv = self.b.not(ty, None, v)?;
        let set = self.b.bitwise_or(ty, None, v, sign)?;
        Ok(self.b.select(ty, None, neg, inv, set)?)
    }
}
