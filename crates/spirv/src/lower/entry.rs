//! The entry of the module and the launch words (D117): the push-constant block, the initial SGPRs from
//! the launch words, where the scratch region, work-item ids and LDS of a wave start. `Cx::module` (mod.rs)
//! calls these in the order of the prologue; the run-time layout they read is [`launch_words`] and
//! [`push_constants`].

use crate::hash::HashMap;

use rspirv::dr::{Instruction, Operand};
use spirv::{Decoration, LoopControl, MemoryAccess, StorageClass, Word};

use super::{Cx, KernelLayout, SgprInit, R};

/// Bytes of one wave's slot in the scratch buffer: the region (`wave_size` lanes of the private segment size
/// rounded up to dwords) and two spare dwords that take out-of-range accesses.
pub fn scratch_stride(layout: &KernelLayout) -> u64 {
    rdna2spv_ir::launch::wave_scratch_bytes(layout.wave_size, layout.scratch_bytes) + 8
}

/// Bytes of the zero-filled scratch buffer a run of `layout` over `grid` needs (0 without scratch): one
/// [`scratch_stride`] slot per invocation, indexed like the flags. Its device address follows the
/// [`launch_words`] as two more words (low, high).
pub fn scratch_buffer_bytes(layout: &KernelLayout, grid: [u32; 3]) -> u64 {
    if layout.scratch_bytes == 0 {
        return 0;
    }
    let groups: u64 = layout.workgroups(grid).iter().map(|&g| g as u64).product();
    groups * layout.waves_per_workgroup() as u64 * scratch_stride(layout)
}

/// The run-time values of the `Const` SGPRs, in the order the module reads them, then the code object
/// image's address (low, high) when the layout places one (a module with scratch then reads the scratch
/// buffer's address, see [`scratch_buffer_bytes`]).
pub fn launch_words(layout: &KernelLayout) -> Vec<u32> {
    let mut words: Vec<u32> = layout
        .sgprs
        .iter()
        .filter_map(|(_, v)| match v {
            SgprInit::Const(c) => Some(*c),
            _ => None,
        })
        .collect();
    if let Some(b) = layout.code_base {
        words.extend([b as u32, (b >> 32) as u32]);
    }
    words
}

/// The prefix of the `OpModuleProcessed` string of a module lowered for a folded grid (D253); the decimal
/// row width `W` follows it.
pub const FOLD_MARK: &str = "rdna2spv folded grid rows=";

/// The row width a module's folded grid asks for ([`FOLD_MARK`]), if it was lowered for one.
pub fn fold_width(words: &[u32]) -> Option<u32> {
    super::lane::split::processed_number(words, FOLD_MARK).filter(|&w| w > 0)
}

/// The Vulkan dispatch of `workgroups` kernel workgroups folded into rows of `width` (D253): `[width,
/// rows, 1]`, or None when the count does not fit in 32 bits or the rows exceed `max_rows`.
pub fn folded_dispatch(workgroups: [u32; 3], width: u32, max_rows: u32) -> Option<[u32; 3]> {
    let total = workgroups
        .iter()
        .try_fold(1u64, |a, &g| a.checked_mul(g as u64))?;
    if total == 0 || total > u32::MAX as u64 || width == 0 {
        return None;
    }
    let rows = total.div_ceil(width as u64);
    (rows <= max_rows as u64).then_some([width.min(total as u32), rows as u32, 1])
}

/// Size of the push-constant block (the minimum `maxPushConstantsSize` of Vulkan).
pub const PUSH_CONSTANT_BYTES: usize = 128;
/// Launch words copied into the push constants after the 32-byte header (D117); later ones are read from
/// the launch buffer only.
pub const PUSHED_LAUNCH_WORDS: usize = (PUSH_CONSTANT_BYTES - 32) / 4;
/// The push constants: `{ u64 launch_words; u64 flags; u32 grid[3]; u32 zero; u32 launch[24] }`. `flags`
/// holds one u32 per invocation, `flags[workgroup_linear * waves_per_workgroup + wave]`; `launch` the
/// first [`PUSHED_LAUNCH_WORDS`] of `launch` (the words at `launch_addr`), zero-padded.
pub fn push_constants(
    launch_addr: u64,
    flags_addr: u64,
    grid: [u32; 3],
    launch: &[u32],
) -> Vec<u8> {
    let mut v = Vec::with_capacity(PUSH_CONSTANT_BYTES);
    v.extend_from_slice(&launch_addr.to_le_bytes());
    v.extend_from_slice(&flags_addr.to_le_bytes());
    for g in grid {
        v.extend_from_slice(&g.to_le_bytes());
    }
    v.extend_from_slice(&0u32.to_le_bytes());
    for k in 0..PUSHED_LAUNCH_WORDS {
        v.extend_from_slice(&launch.get(k).copied().unwrap_or(0).to_le_bytes());
    }
    v
}

impl Cx<'_> {
    /// D253: the kernel workgroup of an invocation of a folded dispatch (rows of `w` Vulkan workgroups):
    /// the kernel's workgroup counts from the pushed grid (`ceil(grid / workgroup)`, as `(grid − 1) / wg +
    /// 1`: a grid is at least 1), the row-major index `y·w + x`, a workgroup past their product returns at
    /// once (the whole Vulkan workgroup: the test reads only `WorkgroupId`, before any barrier or memory
    /// access), and `gid`, `nwg` become the kernel's.
    pub(super) fn fold_grid(
        &mut self,
        w: u32,
        grid: &[Word; 3],
        gid: &mut [Word; 3],
        nwg: &mut [Word; 3],
    ) -> R<()> {
        let t = self.t;
        let one = self.c32(1);
        let mut n = [0; 3];
        for d in 0..3 {
            let wg = self.c32(self.desc.workgroup[d]);
            let g1 = self.b.i_sub(t.u32, None, grid[d], one)?;
            let q = self.b.u_div(t.u32, None, g1, wg)?;
            n[d] = self.b.i_add(t.u32, None, q, one)?;
        }
        let wc = self.c32(w);
        let row = self.b.i_mul(t.u32, None, gid[1], wc)?;
        let linear = self.b.i_add(t.u32, None, row, gid[0])?;
        let xy = self.b.i_mul(t.u32, None, n[0], n[1])?;
        let total = self.b.i_mul(t.u32, None, xy, n[2])?;
        let beyond = self.b.u_greater_than_equal(t.bool, None, linear, total)?;
        let (ret, cont) = (self.b.id(), self.b.id());
        self.b
            .selection_merge(cont, spirv::SelectionControl::NONE)?;
        self.b.branch_conditional(beyond, ret, cont, [])?;
        self.begin(ret)?;
        self.b.ret()?;
        self.begin(cont)?;
        gid[0] = self.b.u_mod(t.u32, None, linear, n[0])?;
        let rest = self.b.u_div(t.u32, None, linear, n[0])?;
        gid[1] = self.b.u_mod(t.u32, None, rest, n[1])?;
        gid[2] = self.b.u_div(t.u32, None, rest, n[1])?;
        *nwg = n;
        self.b.module_processed(format!("{FOLD_MARK}{w}"));
        Ok(())
    }

    /// The push-constant block ([`push_constants`]), a module variable.
    pub(super) fn push_constant_block(&mut self) -> Word {
        let t = self.t;
        // The pushed launch words are one array member (D243: one Offset and one ArrayStride instead of
        // an Offset per word). Its type is declared afresh, not through the builder's deduplication: an
        // equal-length Function array shares a deduplicated type and must not carry an ArrayStride
        // (aggregate types may be declared twice).
        let len = self.c32(PUSHED_LAUNCH_WORDS as u32);
        let arr = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(
                spirv::Op::TypeArray,
                None,
                Some(arr),
                vec![Operand::IdRef(t.u32), Operand::IdRef(len)],
            ));
        self.b
            .decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
        let members = vec![t.u64, t.u64, t.u32, t.u32, t.u32, t.u32, arr];
        let pc_struct = self.b.type_struct(members);
        self.b.decorate(pc_struct, Decoration::Block, []);
        let offsets = [0u32, 8, 16, 20, 24, 28, 32];
        for (m, off) in offsets.into_iter().enumerate() {
            self.b.member_decorate(
                pc_struct,
                m as u32,
                Decoration::Offset,
                [Operand::LiteralBit32(off)],
            );
        }
        self.global_var(pc_struct, StorageClass::PushConstant)
    }

    /// Member `m` of the push-constant block `pc`.
    pub(super) fn push_field(&mut self, pc: Word, ty: Word, m: u32) -> R<Word> {
        let p = self.b.type_pointer(None, StorageClass::PushConstant, ty);
        let c = self.c32(m);
        let ptr = self.b.access_chain(p, None, pc, [c])?;
        Ok(self.b.load(ty, None, ptr, None, [])?)
    }

    /// Launch word `k`: from the push constants' copy where it has one (uniform, cheap: D117), else from
    /// the launch buffer at `launch_addr`.
    pub(super) fn launch_word(&mut self, pc: Word, launch_addr: Word, k: u64) -> R<Word> {
        let t = self.t;
        if (k as usize) < PUSHED_LAUNCH_WORDS {
            let p = self.b.type_pointer(None, StorageClass::PushConstant, t.u32);
            let m = self.c32(6);
            let kc = self.c32(k as u32);
            let ptr = self.b.access_chain(p, None, pc, [m, kc])?;
            Ok(self.b.load(t.u32, None, ptr, None, [])?)
        } else {
            let off = self.c64(4 * k);
            let a = self.b.i_add(t.u64, None, launch_addr, off)?;
            let p = self.b.convert_u_to_ptr(t.psb_u32, None, a)?;
            Ok(self.b.load(
                t.u32,
                None,
                p,
                Some(MemoryAccess::ALIGNED),
                [Operand::LiteralBit32(4)],
            )?)
        }
    }

    /// Two launch words from the launch buffer (not the pushed copy) as a u64.
    pub(super) fn launch_u64(&mut self, launch_addr: Word, k: u64) -> R<Word> {
        let t = self.t;
        let mut half = [0; 2];
        for (i, h) in half.iter_mut().enumerate() {
            let off = self.c64(4 * (k + i as u64));
            let a = self.b.i_add(t.u64, None, launch_addr, off)?;
            let p = self.b.convert_u_to_ptr(t.psb_u32, None, a)?;
            *h = self.b.load(
                t.u32,
                None,
                p,
                Some(MemoryAccess::ALIGNED),
                [Operand::LiteralBit32(4)],
            )?;
        }
        self.join64(half[0], half[1])
    }

    /// The initial SGPRs of the layout, in order; returns the number of launch words read and the value of
    /// each register a `Const` word initialised.
    pub(super) fn initial_sgprs(
        &mut self,
        pc: Word,
        launch_addr: Word,
        gid: [Word; 3],
    ) -> R<(u64, HashMap<u32, Word>)> {
        let z = self.c32(0);
        let mut k = 0u64;
        let mut init_vals = HashMap::default();
        for &(reg, init) in &self.desc.sgprs.clone() {
            if reg >= 128 {
                continue;
            }
            let v = match init {
                SgprInit::Const(_) => {
                    let v = self.launch_word(pc, launch_addr, k)?;
                    k += 1;
                    v
                }
                SgprInit::WorkgroupId(d) => gid[d.min(2)],
                SgprInit::ScratchWaveOffset => z,
            };
            if matches!(init, SgprInit::Const(_)) {
                init_vals.insert(reg as u32, v);
            }
            let p = self.sgpr_ptr(reg as u32)?;
            self.store(p, v)?;
        }
        Ok((k, init_vals))
    }

    /// The invocation's index in the dispatch as a u64: `workgroup_linear * waves_per_workgroup + wave`,
    /// the index of its flag, scratch slot and fault record.
    pub(super) fn invocation_index(&mut self, gid: [Word; 3], nwg: [Word; 3], li: Word) -> R<Word> {
        let t = self.t;
        let row = self.b.i_mul(t.u32, None, nwg[1], gid[2])?;
        let row = self.b.i_add(t.u32, None, row, gid[1])?;
        let lin = self.b.i_mul(t.u32, None, row, nwg[0])?;
        let lin = self.b.i_add(t.u32, None, lin, gid[0])?;
        let lszc = self.c32(self.desc.waves_per_workgroup());
        let lin = self.b.i_mul(t.u32, None, lin, lszc)?;
        let lin = self.b.i_add(t.u32, None, lin, li)?;
        Ok(self.b.u_convert(t.u64, None, lin)?)
    }

    /// With scratch, this wave's region (`self.private`): the scratch buffer's address is launch words `k`,
    /// `k + 1`.
    pub(super) fn scratch_region(
        &mut self,
        launch_addr: Word,
        k: u64,
        gid: [Word; 3],
        nwg: [Word; 3],
        wave_ix: Word,
    ) -> R<()> {
        let t = self.t;
        if self.desc.scratch_bytes > 0 {
            // The scratch buffer's address follows the Const words; this wave's region is slot
            // `workgroup_linear * waves_per_workgroup + wave` of it (the same index as the flags).
            let base = self.launch_u64(launch_addr, k)?;
            let lin64 = self.invocation_index(gid, nwg, wave_ix)?;
            let stride = self.c64(scratch_stride(self.desc));
            let off = self.b.i_mul(t.u64, None, lin64, stride)?;
            self.private = Some(self.b.i_add(t.u64, None, base, off)?);
        }
        Ok(())
    }

    /// Work-item ids in v0..v2 of the valid lanes (`count` of them, the first with id `base`) of a workgroup
    /// of `size` (`s01` = x·y).
    pub(super) fn workitem_ids(
        &mut self,
        count: Word,
        base: Word,
        size: [Word; 3],
        s01: Word,
    ) -> R<()> {
        let t = self.t;
        let z = self.c32(0);
        let nids = self.desc.workitem_id_vgprs.clamp(1, 3);
        // A 1-D workgroup (y and z sizes 1): every valid lane's `tid` is below `threads`, which is then
        // `size[0]`, so x = tid and y = z = 0 without the per-lane divisions (a division is a scalar loop
        // over the SIMD lanes on lavapipe).
        let one_d = self.desc.workgroup[1] == 1 && self.desc.workgroup[2] == 1;
        self.lane_loop(|cx, lane| {
            let valid = cx.b.u_less_than(t.bool, None, lane, count)?;
            cx.guarded(valid, None, |cx| {
                let tid = cx.b.i_add(t.u32, None, base, lane)?;
                let (x, y, zz) = if one_d {
                    (tid, z, z)
                } else {
                    let x = cx.b.u_mod(t.u32, None, tid, size[0])?;
                    let q = cx.b.u_div(t.u32, None, tid, size[0])?;
                    let y = cx.b.u_mod(t.u32, None, q, size[1])?;
                    (x, y, cx.b.u_div(t.u32, None, tid, s01)?)
                };
                for (d, id) in [x, y, zz].into_iter().enumerate().take(nids as usize) {
                    let p = cx.vgpr_ptr(d as u32, lane)?;
                    cx.store(p, id)?;
                }
                Ok(None)
            })?;
            Ok(())
        })?;
        Ok(())
    }

    /// LDS starts at zero, as in the evaluator: each of the `inv` invocations clears its share of the words.
    pub(super) fn clear_lds(&mut self, li: Word, inv: u32) -> R<()> {
        let t = self.t;
        let z = self.c32(0);
        if let Some(lds) = self.lds {
            let words = self.desc.lds_bytes.div_ceil(4);
            let share = words.div_ceil(inv);
            let sharec = self.c32(share);
            let first = self.b.i_mul(t.u32, None, li, sharec)?;
            let wordsc = self.c32(words);
            let k_var = self.fn_var(t.u32, Some(z));
            self.store(k_var, first)?;
            let end0 = self.b.i_add(t.u32, None, first, sharec)?;
            let lt = self.b.u_less_than(t.bool, None, end0, wordsc)?;
            let end = self.b.select(t.u32, None, lt, end0, wordsc)?;
            let (h, body, cont, merge) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
            self.b.branch(h)?;
            self.begin(h)?;
            let k = self.load_u32(k_var)?;
            let go = self.b.u_less_than(t.bool, None, k, end)?;
            self.b
                .loop_merge(merge, cont, LoopControl::DONT_UNROLL, [])?;
            self.b.branch_conditional(go, body, merge, [])?;
            self.begin(body)?;
            let p = self.b.access_chain(t.wg_u32, None, lds, [k])?;
            self.store(p, z)?;
            self.b.branch(cont)?;
            self.begin(cont)?;
            let one = self.c32(1);
            let k1 = self.b.i_add(t.u32, None, k, one)?;
            self.store(k_var, k1)?;
            self.bump(self.progress, one)?;
            self.b.branch(h)?;
            self.begin(merge)?;
            let some = self.b.u_less_than(t.bool, None, first, end)?;
            let n = self.b.i_sub(t.u32, None, end, first)?;
            let n = self.b.select(t.u32, None, some, n, z)?;
            self.bump(self.expected, n)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod fold_tests {
    use super::folded_dispatch;

    /// D253: rows of `width`, as many as the count needs; nothing for an empty grid, a count past 2^32 − 1
    /// or more rows than the device allows.
    #[test]
    fn folded_dispatches_cover_every_workgroup_in_rows() {
        assert_eq!(
            folded_dispatch([65536, 1, 1], 65535, 65535),
            Some([65535, 2, 1])
        );
        assert_eq!(
            folded_dispatch([2, 1, 65537], 65535, 65535),
            Some([65535, 3, 1])
        );
        assert_eq!(folded_dispatch([10, 1, 1], 65535, 65535), Some([10, 1, 1]));
        assert_eq!(
            folded_dispatch([65535, 65535, 1], 65535, 65535),
            Some([65535, 65535, 1])
        );
        assert_eq!(folded_dispatch([65535, 65535, 2], 65535, 65535), None);
        assert_eq!(folded_dispatch([65536, 65536, 1], 65535, u32::MAX), None);
        assert_eq!(folded_dispatch([0, 1, 1], 65535, 65535), None);
        assert_eq!(folded_dispatch([5, 1, 1], 0, 65535), None);
    }
}
