//! MUBUF (`Lifter::mubuf`, the family's entry) through a general buffer resource (V#): the descriptor is read from the instruction's SGPR quad at
//! the instruction (it is runtime data: a descriptor set loaded with `s_load_dwordx4`, a kernel argument, or
//! one the kernel builds itself), and every field the address and the range check use is decoded in IR, so
//! one lifted instruction serves every descriptor (decision D030).
//!
//! V# (RDNA 2, gfx10.3), as four dwords:
//! - word 0: BASE_ADDRESS[31:0]; word 1: BASE_ADDRESS[47:32] (bits 15:0), STRIDE (bits 29:16), CACHE_SWIZZLE
//!   (bit 30, a cache hint), SWIZZLE_ENABLE (bit 31);
//! - word 2: NUM_RECORDS;
//! - word 3: DST_SEL_XYZW (bits 11:0), FORMAT (bits 18:12), INDEX_STRIDE (bits 22:21: 8, 16, 32, 64),
//!   ADD_TID_ENABLE (bit 23), RESOURCE_LEVEL (bit 24), OOB_SELECT (bits 29:28), TYPE (bits 31:30).
//!
//! Address of a lane (ISA guide, "Buffer addressing"; element size 4 bytes when swizzled):
//! ```text
//! offset = inst_offset + (offen ? voffset : 0)          (per component: + 4 * k for dwordxN)
//! index  = (idxen ? vindex : 0) + (ADD_TID_ENABLE ? lane : 0)
//! linear:   buffer_offset = index * STRIDE + offset
//! swizzled: buffer_offset = ((index / IS) * STRIDE + (offset / 4) * 4) * IS + (index % IS) * 4 + offset % 4
//! address = BASE + soffset + buffer_offset
//! ```
//! Range check (gfx10 OOB_SELECT; the SGPR offset takes no part):
//! 0: index >= NUM_RECORDS || offset >= STRIDE; 1: index >= NUM_RECORDS; 2: NUM_RECORDS == 0;
//! 3: swizzled ? buffer_offset >= NUM_RECORDS : offset >= NUM_RECORDS.
//! Out-of-range loads give 0 and out-of-range stores write nothing; dwordxN accesses are checked per dword.

use super::{LiftError, Lifter, Src};
use crate::{Access, Handle, IntCmp, IntOp, Node, Space, Ty, UnOp};
use rdna2spv_isa::Opcode;

type H = Handle<Node>;

/// The fields of a V# the address and the range check need, decoded (all Uniform).
pub(super) struct Vsharp {
    base: H,
    stride: H,
    swizzle: H,
    num_records: H,
    /// log2 of the index stride when swizzled, 0 when linear (B32 and B64), and (1 << shift) - 1.
    shift: H,
    shift64: H,
    lsb_mask: H,
    pub(super) add_tid: H,
    /// Which range tests OOB_SELECT enables: index >= NUM_RECORDS (0, 1), offset >= STRIDE (0),
    /// NUM_RECORDS == 0 (2; `empty` is that test's result), offset or swizzled offset >= NUM_RECORDS (3).
    check_index: H,
    check_stride: H,
    check_raw: H,
    empty: H,
}

/// Per-lane, offset-independent parts of a buffer address.
pub(super) struct BufLane {
    /// (index >> shift) * STRIDE (B64).
    row: H,
    /// (index & lsb_mask) * 4 (B32).
    col: H,
    /// BASE + soffset (B64).
    base: H,
    /// The index test's verdict (false when not enabled).
    idx_oob: H,
}

/// What a buffer load/store moves per component.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Width {
    /// Whole dword registers (`n` of them), or a narrower access zero/sign-extended into a dword.
    Plain(Access, u16),
    /// A d16 load: the access into the low (hi = false) or high half of the VGPR, the other half kept;
    /// bytes are zero/sign-extended to 16 bits.
    D16Load { access: Access, hi: bool },
    /// A d16_hi store: the high half of the VGPR (byte or short).
    D16HiStore(Access),
}

impl Lifter<'_> {
    pub(super) fn buf_select(&mut self, cond: H, a: H, b: H) -> H {
        self.n(Node::Select { cond, a, b })
    }
    pub(super) fn buf_or(&mut self, a: H, b: H) -> H {
        let t = self.c(Ty::B1, 1);
        self.buf_select(a, t, b)
    }
    pub(super) fn buf_field(&mut self, word: H, shift: u64, mask: u64) -> H {
        let s = self.c(Ty::B32, shift);
        let x = self.int(IntOp::LShr, Ty::B32, word, s);
        let m = self.c(Ty::B32, mask);
        self.int(IntOp::And, Ty::B32, x, m)
    }

    pub(super) fn vsharp(&mut self, srsrc: u16) -> Vsharp {
        let d0 = self.read_s(srsrc, Ty::B32);
        let d1 = self.read_s(srsrc + 1, Ty::B32);
        let d2 = self.read_s(srsrc + 2, Ty::B32);
        let d3 = self.read_s(srsrc + 3, Ty::B32);
        let hi = self.buf_field(d1, 0, 0xffff);
        let base = self.n(Node::Concat { lo: d0, hi });
        let stride = self.buf_field(d1, 16, 0x3fff);
        let sw = self.buf_field(d1, 31, 1);
        let swizzle = self.nonzero(Ty::B32, sw);
        let is = self.buf_field(d3, 21, 3);
        let three = self.c(Ty::B32, 3);
        let isl = self.int(IntOp::Add, Ty::B32, is, three);
        let z = self.c(Ty::B32, 0);
        let shift = self.buf_select(swizzle, isl, z);
        let shift64 = self.un(UnOp::ZExt, Ty::B64, shift);
        let one = self.c(Ty::B32, 1);
        let p = self.int(IntOp::Shl, Ty::B32, one, shift);
        let lsb_mask = self.int(IntOp::Sub, Ty::B32, p, one);
        let tid = self.buf_field(d3, 23, 1);
        let add_tid = self.nonzero(Ty::B32, tid);
        let oob_select = self.buf_field(d3, 28, 3);
        let mut sel = |k: u64| {
            let kk = self.c(Ty::B32, k);
            self.icmp(IntCmp::Eq, Ty::B32, oob_select, kk)
        };
        let (is0, is1, is2, is3) = (sel(0), sel(1), sel(2), sel(3));
        let check_index = self.buf_or(is0, is1);
        let nr0 = self.icmp(IntCmp::Eq, Ty::B32, d2, z);
        let f = self.c(Ty::B1, 0);
        let empty = self.buf_select(is2, nr0, f);
        Vsharp {
            base,
            stride,
            swizzle,
            num_records: d2,
            shift,
            shift64,
            lsb_mask,
            add_tid,
            check_index,
            check_stride: is0,
            check_raw: is3,
            empty,
        }
    }

    /// The parts of a lane's buffer address that do not depend on the offset (computed once per
    /// instruction; [`Self::buffer_component`] finishes each dword component).
    ///
    /// One formula serves both layouts: with `s` = log2(index stride) when swizzled and 0 when linear,
    /// `((index >> s) * STRIDE + (offset & !3)) << s + (index & ((1 << s) - 1)) * 4 + (offset & 3)` is the
    /// swizzled offset, and for s = 0 it is `index * STRIDE + offset`, the linear one.
    pub(super) fn buffer_lane(&mut self, v: &Vsharp, soffset: H, index: H) -> BufLane {
        let z64 = |s: &mut Self, x: H| s.un(UnOp::ZExt, Ty::B64, x);
        let sh = v.shift;
        let imsb = self.int(IntOp::LShr, Ty::B32, index, sh);
        let ilsb = self.int(IntOp::And, Ty::B32, index, v.lsb_mask);
        let imsb64 = z64(self, imsb);
        let stride64 = z64(self, v.stride);
        let row = self.int(IntOp::Mul, Ty::B64, imsb64, stride64);
        let two = self.c(Ty::B32, 2);
        let col = self.int(IntOp::Shl, Ty::B32, ilsb, two);
        let so64 = z64(self, soffset);
        let base = self.int(IntOp::Add, Ty::B64, v.base, so64);
        let idx_out = self.icmp(IntCmp::GeU, Ty::B32, index, v.num_records);
        let f = self.c(Ty::B1, 0);
        let idx_oob = self.buf_select(v.check_index, idx_out, f);
        BufLane {
            row,
            col,
            base,
            idx_oob,
        }
    }

    /// The byte address (B64) and the in-range condition (B1) of one component at `offset` (B32).
    pub(super) fn buffer_component(&mut self, v: &Vsharp, l: &BufLane, offset: H) -> (H, H) {
        let m3 = self.c(Ty::B32, !3u32 as u64);
        let omsb = self.int(IntOp::And, Ty::B32, offset, m3);
        let omsb64 = self.un(UnOp::ZExt, Ty::B64, omsb);
        let row = self.int(IntOp::Add, Ty::B64, l.row, omsb64);
        let row = self.int(IntOp::Shl, Ty::B64, row, v.shift64);
        let three = self.c(Ty::B32, 3);
        let olsb = self.int(IntOp::And, Ty::B32, offset, three);
        let col = self.int(IntOp::Or, Ty::B32, l.col, olsb);
        let col64 = self.un(UnOp::ZExt, Ty::B64, col);
        let buffer_offset = self.int(IntOp::Add, Ty::B64, row, col64);
        let addr = self.int(IntOp::Add, Ty::B64, l.base, buffer_offset);
        // Range check: out of range if any enabled test fails (the tests enabled by OOB_SELECT are
        // uniform; see the module documentation).
        let off_stride = self.icmp(IntCmp::GeU, Ty::B32, offset, v.stride);
        let f = self.c(Ty::B1, 0);
        let off_stride = self.buf_select(v.check_stride, off_stride, f);
        let offset64 = self.un(UnOp::ZExt, Ty::B64, offset);
        let bound = self.buf_select(v.swizzle, buffer_offset, offset64);
        let nr64 = self.un(UnOp::ZExt, Ty::B64, v.num_records);
        let over = self.icmp(IntCmp::GeU, Ty::B64, bound, nr64);
        let over = self.buf_select(v.check_raw, over, f);
        let oob = self.buf_or(l.idx_oob, off_stride);
        let oob = self.buf_or(oob, over);
        let oob = self.buf_or(oob, v.empty);
        let t = self.c(Ty::B1, 1);
        let ok = self.buf_select(oob, f, t);
        (addr, ok)
    }

    /// MUBUF loads and stores through the V# in `s[srsrc:srsrc+3]` (not the private segment buffer).
    pub(super) fn mubuf_vsharp(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let (w0, w1) = (self.w(0), self.w(1));
        let inst_offset = w0 & 0xfff;
        let offen = w0 >> 12 & 1 != 0;
        let idxen = w0 >> 13 & 1 != 0;
        // glc (bit 14), dlc (bit 15) and slc (word 1 bit 22) choose cache policies; the evaluator and the
        // SPIR-V lowering have one coherent memory, so they change nothing observable here.
        let lds = w0 >> 16 & 1 != 0;
        let vaddr = (w1 & 0xff) as u16;
        let vdata = ((w1 >> 8) & 0xff) as u16;
        let srsrc = (((w1 >> 16) & 0x1f) * 4) as u16;
        let tfe = w1 >> 23 & 1 != 0;
        let soffset = w1 >> 24;
        if lds {
            return self.unsupported("MUBUF loads into LDS are not modelled");
        }
        if tfe {
            return self.unsupported("tfe (texture fail enable) is not modelled");
        }
        let op = self.ins.opcode();
        let (load, width) = match op {
            BUFFER_LOAD_UBYTE => (true, Width::Plain(Access::U8, 1)),
            BUFFER_LOAD_SBYTE => (true, Width::Plain(Access::I8, 1)),
            BUFFER_LOAD_USHORT => (true, Width::Plain(Access::U16, 1)),
            BUFFER_LOAD_SSHORT => (true, Width::Plain(Access::I16, 1)),
            BUFFER_LOAD_DWORD => (true, Width::Plain(Access::B32, 1)),
            BUFFER_LOAD_DWORDX2 => (true, Width::Plain(Access::B32, 2)),
            BUFFER_LOAD_DWORDX3 => (true, Width::Plain(Access::B32, 3)),
            BUFFER_LOAD_DWORDX4 => (true, Width::Plain(Access::B32, 4)),
            BUFFER_LOAD_UBYTE_D16 | BUFFER_LOAD_UBYTE_D16_HI => (
                true,
                Width::D16Load {
                    access: Access::U8,
                    hi: op == BUFFER_LOAD_UBYTE_D16_HI,
                },
            ),
            BUFFER_LOAD_SBYTE_D16 | BUFFER_LOAD_SBYTE_D16_HI => (
                true,
                Width::D16Load {
                    access: Access::I8,
                    hi: op == BUFFER_LOAD_SBYTE_D16_HI,
                },
            ),
            BUFFER_LOAD_SHORT_D16 | BUFFER_LOAD_SHORT_D16_HI => (
                true,
                Width::D16Load {
                    access: Access::U16,
                    hi: op == BUFFER_LOAD_SHORT_D16_HI,
                },
            ),
            BUFFER_STORE_BYTE => (false, Width::Plain(Access::U8, 1)),
            BUFFER_STORE_SHORT => (false, Width::Plain(Access::U16, 1)),
            BUFFER_STORE_DWORD => (false, Width::Plain(Access::B32, 1)),
            BUFFER_STORE_DWORDX2 => (false, Width::Plain(Access::B32, 2)),
            BUFFER_STORE_DWORDX3 => (false, Width::Plain(Access::B32, 3)),
            BUFFER_STORE_DWORDX4 => (false, Width::Plain(Access::B32, 4)),
            BUFFER_STORE_BYTE_D16_HI => (false, Width::D16HiStore(Access::U8)),
            BUFFER_STORE_SHORT_D16_HI => (false, Width::D16HiStore(Access::U16)),
            _ => return self.mubuf_atomic(inst_offset, offen, idxen, vaddr, vdata, srsrc, soffset),
        };
        // Reads first.
        let v = self.vsharp(srsrc);
        let so = self.src(soffset, Src::B32)?;
        let lane = self.n(Node::LaneId);
        let vindex = if idxen {
            self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B32,
            })
        } else {
            self.c(Ty::B32, 0)
        };
        let z = self.c(Ty::B32, 0);
        let tid = self.buf_select(v.add_tid, lane, z);
        let index = self.int(IntOp::Add, Ty::B32, vindex, tid);
        let voffset = offen.then(|| {
            self.n(Node::ReadVgpr {
                reg: vaddr + idxen as u16,
                ty: Ty::B32,
            })
        });
        let n = match width {
            Width::Plain(_, n) => n,
            _ => 1,
        };
        let data: Vec<H> = if load {
            Vec::new()
        } else {
            (0..n)
                .map(|i| {
                    self.n(Node::ReadVgpr {
                        reg: vdata + i,
                        ty: Ty::B32,
                    })
                })
                .collect()
        };
        let old = matches!(width, Width::D16Load { .. }).then(|| {
            self.n(Node::ReadVgpr {
                reg: vdata,
                ty: Ty::B32,
            })
        });
        let bl = self.buffer_lane(&v, so, index);
        let mut comps = Vec::new();
        for i in 0..n {
            let k = self.c(Ty::B32, (inst_offset + 4 * i as u32) as u64);
            let off = match voffset {
                Some(vo) => self.int(IntOp::Add, Ty::B32, vo, k),
                None => k,
            };
            comps.push(self.buffer_component(&v, &bl, off));
        }
        match width {
            Width::Plain(access, _) if load => {
                let vals: Vec<H> = comps
                    .iter()
                    .map(|&(addr, enable)| {
                        self.n(Node::LoadIf {
                            space: Space::Global,
                            access,
                            addr,
                            offset: 0,
                            enable,
                        })
                    })
                    .collect();
                for (i, x) in vals.into_iter().enumerate() {
                    self.write_v(vdata + i as u16, x);
                }
            }
            Width::D16Load { access, hi } => {
                let (addr, enable) = comps[0];
                let x = self.n(Node::LoadIf {
                    space: Space::Global,
                    access,
                    addr,
                    offset: 0,
                    enable,
                });
                let merged = self.d16_merge(x, old.expect("read above"), hi);
                self.write_v(vdata, merged);
            }
            Width::Plain(access, _) => {
                for (&(addr, enable), &value) in comps.iter().zip(&data) {
                    self.n(Node::StoreIf {
                        space: Space::Global,
                        access,
                        addr,
                        offset: 0,
                        value,
                        enable,
                    });
                }
            }
            Width::D16HiStore(access) => {
                let (addr, enable) = comps[0];
                let s = self.c(Ty::B32, 16);
                let value = self.int(IntOp::LShr, Ty::B32, data[0], s);
                self.n(Node::StoreIf {
                    space: Space::Global,
                    access,
                    addr,
                    offset: 0,
                    value,
                    enable,
                });
            }
        }
        Ok(())
    }

    /// Buffer atomics (32 and 64-bit, decision D060) through a general V#: range-checked all or nothing (the check of the access's
    /// offset); out of range they change nothing and return 0. glc returns the old value in vdata.
    #[allow(clippy::too_many_arguments)]
    fn mubuf_atomic(
        &mut self,
        inst_offset: u32,
        offen: bool,
        idxen: bool,
        vaddr: u16,
        vdata: u16,
        srsrc: u16,
        soffset: u32,
    ) -> Result<(), LiftError> {
        let form = self
            .ins
            .opcode()
            .name()
            .strip_prefix("buffer_atomic_")
            .and_then(super::atomic::vmem_form);
        let Some((aop, wide)) = form else {
            return self.unsupported(
                "buffer instruction not lifted yet for a general V# (loads and stores of every width, d16 forms and the atomics are)",
            );
        };
        let glc = self.w(0) >> 14 & 1 != 0;
        let v = self.vsharp(srsrc);
        let so = self.src(soffset, Src::B32)?;
        let lane = self.n(Node::LaneId);
        let vindex = if idxen {
            self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B32,
            })
        } else {
            self.c(Ty::B32, 0)
        };
        let z = self.c(Ty::B32, 0);
        let tid = self.buf_select(v.add_tid, lane, z);
        let index = self.int(IntOp::Add, Ty::B32, vindex, tid);
        let k = self.c(Ty::B32, inst_offset as u64);
        let off = if offen {
            let vo = self.n(Node::ReadVgpr {
                reg: vaddr + idxen as u16,
                ty: Ty::B32,
            });
            self.int(IntOp::Add, Ty::B32, vo, k)
        } else {
            k
        };
        let (value, data1) = self.vmem_data(aop, wide, vdata);
        let bl = self.buffer_lane(&v, so, index);
        let (addr, mut enable) = self.buffer_component(&v, &bl, off);
        if wide {
            // All or nothing: both dwords of a 64-bit atomic in range.
            let four = self.c(Ty::B32, 4);
            let off2 = self.int(IntOp::Add, Ty::B32, off, four);
            let (_, ok2) = self.buffer_component(&v, &bl, off2);
            let f = self.c(Ty::B1, 0);
            enable = self.buf_select(enable, ok2, f);
        }
        let old = self.n(Node::AtomicIf {
            space: Space::Global,
            op: aop,
            addr,
            offset: 0,
            value,
            data1,
            enable,
        });
        if glc {
            self.write_v(vdata, old);
        }
        Ok(())
    }

    /// A d16 load result: the loaded value `x` (already zero/sign-extended to 32 bits) truncated to 16 bits
    /// into the low (or, for `hi`, the high) half of `old`, the other half kept.
    pub(super) fn d16_merge(&mut self, x: H, old: H, hi: bool) -> H {
        let m16 = self.c(Ty::B32, 0xffff);
        let x = self.int(IntOp::And, Ty::B32, x, m16);
        if hi {
            let s = self.c(Ty::B32, 16);
            let x = self.int(IntOp::Shl, Ty::B32, x, s);
            let keep = self.int(IntOp::And, Ty::B32, old, m16);
            self.int(IntOp::Or, Ty::B32, x, keep)
        } else {
            let mh = self.c(Ty::B32, 0xffff_0000);
            let keep = self.int(IntOp::And, Ty::B32, old, mh);
            self.int(IntOp::Or, Ty::B32, x, keep)
        }
    }
}

/// ABI facts of a captured binary that a code object's descriptor does not carry (raw `code` manifests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LiftExtras {
    /// RADV's 32-bit pointers: RADV hands out descriptor-set (and push-constant) pointers as 32-bit values and
    /// the code rebuilds the 64-bit address with a fixed high half (`address32_hi`, 0xffff8000 on RADV).
    /// `Some((hi, base))`: a scalar load whose address has high half `hi` reads `base + low half` instead, so
    /// the runtime can place that window in any buffer (the device picks buffer addresses).
    pub address32: Option<(u32, u64)>,
    /// MUBUF instructions whose resource is not the private segment buffer read their V# from the SGPRs as
    /// the hardware does: a raw buffer at `base` (48 bits), `stride` for `idxen`. SWIZZLE_ENABLE, ADD_TID_ENABLE
    /// and the NUM_RECORDS range check are not modelled: an access outside every buffer faults on the host.
    pub general_buffers: bool,
    /// The wave's VGPR allocation (the kernel descriptor's), the range of M0-relative VGPR indexing
    /// (lift/movrel.rs, D100); None: all 256.
    pub vgpr_count: Option<u32>,
    /// Wave64 shared VGPRs above the allocation (COMPUTE_PGM_RSRC3.SHARED_VGPR_COUNT × 8; a raw manifest's
    /// `[abi] shared_vgprs`): v`vgpr_count` .. v`vgpr_count + shared_vgprs − 1` are seen by both halves of
    /// the wave (lift/shared.rs, D153). 0: none. Needs `vgpr_count`.
    pub shared_vgprs: u32,
    /// MODE at the kernel's start (lift/mode.rs): from the kernel descriptor's float fields
    /// ([`mode_of_rsrc1`](super::mode_of_rsrc1)) or a raw manifest's `[abi] float_mode`; None: the modelled
    /// mode of clang/hipcc kernels ([`MODELLED_MODE`](super::MODELLED_MODE)).
    pub initial_mode: Option<u32>,
}

impl Lifter<'_> {
    /// The 64-bit scalar-load address after RADV's 32-bit window ([`LiftExtras::address32`]).
    pub(super) fn address32_window(&mut self, addr: Handle<Node>) -> Handle<Node> {
        let Some((hi, base)) = self.ext.address32 else {
            return addr;
        };
        let sh = self.c(Ty::B64, 32);
        let h = self.int(IntOp::LShr, Ty::B64, addr, sh);
        let want = self.c(Ty::B64, hi as u64);
        let inside = self.icmp(IntCmp::Eq, Ty::B64, h, want);
        let lo_mask = self.c(Ty::B64, 0xffff_ffff);
        let lo = self.int(IntOp::And, Ty::B64, addr, lo_mask);
        let b = self.c(Ty::B64, base);
        let moved = self.int(IntOp::Add, Ty::B64, b, lo);
        self.n(Node::Select {
            cond: inside,
            a: moved,
            b: addr,
        })
    }
}

impl Lifter<'_> {
    /// MUBUF through the private segment buffer: scratch (D010). The runtime's V# (see `rdna2spv::dispatch`)
    /// has base 0, stride 0, swizzling with 4-byte elements, an index stride of the wave size and
    /// ADD_TID_ENABLE, so the ISA's swizzled address of a lane is
    /// `base + soffset + (offset / 4) * 4 * wave_size + (index % wave_size) * 4 + offset % 4`, where
    /// `offset = inst_offset + (offen ? voffset : 0)` and `index = (idxen ? vindex : 0) + lane`. That is a
    /// byte address in the wave's scratch region ([`Space::Scratch`]); only the low 32 bits of the base
    /// take part (the kernel adds the wave offset to them).
    pub(super) fn mubuf(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let (w0, w1) = (self.w(0), self.w(1));
        let inst_offset = w0 & 0xfff;
        let offen = w0 >> 12 & 1 != 0;
        let idxen = w0 >> 13 & 1 != 0;
        let lds = w0 >> 16 & 1 != 0;
        let vaddr = (w1 & 0xff) as u16;
        let vdata = ((w1 >> 8) & 0xff) as u16;
        let srsrc = (((w1 >> 16) & 0x1f) * 4) as u16;
        let tfe = w1 >> 23 & 1 != 0;
        let soffset = w1 >> 24;
        if self.psb != Some(srsrc) {
            // Any other quad is a general V# (D030).
            return self.mubuf_vsharp();
        }
        if lds {
            return self.unsupported("MUBUF loads into LDS are not modelled");
        }
        if tfe {
            return self.unsupported("tfe (texture fail enable) is not modelled");
        }
        let op = self.ins.opcode();
        let load = match op {
            BUFFER_LOAD_UBYTE => Some((Access::U8, 1)),
            BUFFER_LOAD_SBYTE => Some((Access::I8, 1)),
            BUFFER_LOAD_USHORT => Some((Access::U16, 1)),
            BUFFER_LOAD_SSHORT => Some((Access::I16, 1)),
            BUFFER_LOAD_DWORD => Some((Access::B32, 1)),
            BUFFER_LOAD_DWORDX2 => Some((Access::B32, 2)),
            BUFFER_LOAD_DWORDX3 => Some((Access::B32, 3)),
            BUFFER_LOAD_DWORDX4 => Some((Access::B32, 4)),
            _ => None,
        };
        let store = match op {
            BUFFER_STORE_BYTE => Some((Access::U8, 1)),
            BUFFER_STORE_SHORT => Some((Access::U16, 1)),
            BUFFER_STORE_DWORD => Some((Access::B32, 1)),
            BUFFER_STORE_DWORDX2 => Some((Access::B32, 2)),
            BUFFER_STORE_DWORDX3 => Some((Access::B32, 3)),
            BUFFER_STORE_DWORDX4 => Some((Access::B32, 4)),
            _ => None,
        };
        if load.is_none() && store.is_none() && self.mubuf_scratch_d16()? {
            return Ok(()); // d16 forms: lift/scratch.rs
        }
        if load.is_none() && store.is_none() && self.mubuf_scratch_atomic()? {
            return Ok(()); // atomics: lift/atomic.rs (D092)
        }
        if load.is_none() && store.is_none() {
            return self.unsupported("buffer instruction not lifted yet (scratch takes loads and stores of bytes, shorts and dwords)");
        }
        // Reads first.
        let base = self.read_s(srsrc, Ty::B32);
        let so = self.src(soffset, Src::B32)?;
        let wave_base = self.int(IntOp::Add, Ty::B32, base, so);
        let lane = self.n(Node::LaneId);
        let index = if idxen {
            let vi = self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B32,
            });
            let sum = self.int(IntOp::Add, Ty::B32, vi, lane);
            let m = self.c(Ty::B32, (self.ws - 1) as u64);
            self.int(IntOp::And, Ty::B32, sum, m)
        } else {
            lane
        };
        let two = self.c(Ty::B32, 2);
        let index4 = self.int(IntOp::Shl, Ty::B32, index, two);
        let lane_base = self.int(IntOp::Add, Ty::B32, wave_base, index4);
        let voffset = offen.then(|| {
            self.n(Node::ReadVgpr {
                reg: vaddr + idxen as u16,
                ty: Ty::B32,
            })
        });
        let stores: Vec<_> = match store {
            Some((_, n)) => (0..n)
                .map(|i| {
                    self.n(Node::ReadVgpr {
                        reg: vdata + i,
                        ty: Ty::B32,
                    })
                })
                .collect(),
            None => Vec::new(),
        };
        let (access, n) = load.or(store).expect("checked above");
        let log_ws = self.ws.trailing_zeros() as u64;
        let mut addrs = Vec::new();
        for i in 0..n {
            let k = self.c(Ty::B32, (inst_offset + 4 * i as u32) as u64);
            let off = match voffset {
                Some(v) => self.int(IntOp::Add, Ty::B32, v, k),
                None => k,
            };
            let hi_mask = self.c(Ty::B32, !3u32 as u64);
            let hi = self.int(IntOp::And, Ty::B32, off, hi_mask);
            let sh = self.c(Ty::B32, log_ws);
            let row = self.int(IntOp::Shl, Ty::B32, hi, sh);
            let lo_mask = self.c(Ty::B32, 3);
            let lo = self.int(IntOp::And, Ty::B32, off, lo_mask);
            let a = self.int(IntOp::Add, Ty::B32, lane_base, row);
            addrs.push(self.int(IntOp::Add, Ty::B32, a, lo));
        }
        if load.is_some() {
            let vals: Vec<_> = addrs
                .iter()
                .map(|&addr| {
                    self.n(Node::Load {
                        space: Space::Scratch,
                        access,
                        addr,
                        offset: 0,
                    })
                })
                .collect();
            for (i, v) in vals.into_iter().enumerate() {
                self.write_v(vdata + i as u16, v);
            }
        } else {
            for (addr, value) in addrs.into_iter().zip(stores) {
                self.n(Node::Store {
                    space: Space::Scratch,
                    access,
                    addr,
                    offset: 0,
                    value,
                });
            }
        }
        Ok(())
    }
}
