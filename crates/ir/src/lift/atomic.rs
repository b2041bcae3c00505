//! Atomics in every memory space (decision D060): one IR operation, `Node::Atomic` (or `Node::AtomicIf`
//! for range-checked MUBUF), for every encoding. The operation, its width and whether the pre-op value is
//! returned come from the opcode's name (RDNA 2 ISA guide, "Data share operations", "Flat, scratch and global
//! instructions", "MUBUF instructions"); the data operands from the encoding:
//!
//! * GLOBAL/FLAT/MUBUF: DATA in vdata (a VGPR pair for `_x2`); the compare-and-swap forms take
//!   `{src, cmp}` in vdata (two dwords, or two pairs for `_x2`): memory becomes src if it equals cmp. glc
//!   returns the old value (global_atomic_csub always returns on gfx10.3).
//! * DS: DATA0 and DATA1 (a pair each for 64-bit forms): cmpst compares with DATA0 and stores DATA1, mskor
//!   clears the DATA0 bits and ors in DATA1, wrap subtracts DATA0 or adds DATA1; `_rtn` returns the old value.

use super::{LiftError, Lifter};
use crate::{Access, AtomicOp, Handle, IntOp, Node, Space, Ty};
use rdna2spv_isa::Opcode;

type H = Handle<Node>;

/// The operation and width of `global_atomic_*`, `flat_atomic_*` or `buffer_atomic_*` (`rest` is the name
/// after the prefix, e.g. `umin_x2`): (op, 64-bit).
pub(crate) fn vmem_form(rest: &str) -> Option<(AtomicOp, bool)> {
    let (base, wide) = match rest.strip_suffix("_x2") {
        Some(b) => (b, true),
        None => (rest, false),
    };
    let op = match base {
        "swap" => AtomicOp::Swap,
        "cmpswap" => AtomicOp::CmpSwap,
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "csub" => AtomicOp::CSub,
        "smin" => AtomicOp::MinI,
        "umin" => AtomicOp::MinU,
        "smax" => AtomicOp::MaxI,
        "umax" => AtomicOp::MaxU,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "inc" => AtomicOp::Inc,
        "dec" => AtomicOp::Dec,
        "fcmpswap" => AtomicOp::FCmpSwap,
        "fmin" => AtomicOp::FMin,
        "fmax" => AtomicOp::FMax,
        _ => return None,
    };
    Some((op, wide))
}

/// The operation, width and return of a single-address DS atomic (`ds_min_rtn_u64` …): (op, 64-bit, rtn).
/// None for everything else (reads, writes, the two-address, src2, append/consume and condxchg forms).
pub(crate) fn ds_form(name: &str) -> Option<(AtomicOp, bool, bool)> {
    let rest = name.strip_prefix("ds_")?;
    let (head, ty) = rest.rsplit_once('_')?;
    let (base, rtn) = match head.strip_suffix("_rtn") {
        Some(b) => (b, true),
        None => (head, false),
    };
    let wide = match ty {
        "u32" | "i32" | "b32" | "f32" => false,
        "u64" | "i64" | "b64" | "f64" => true,
        _ => return None,
    };
    let float = ty.starts_with('f');
    let signed = ty.starts_with('i');
    let op = match base {
        "add" if float => AtomicOp::FAdd,
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "rsub" => AtomicOp::RSub,
        "inc" => AtomicOp::Inc,
        "dec" => AtomicOp::Dec,
        "min" if float => AtomicOp::FMin,
        "min" if signed => AtomicOp::MinI,
        "min" => AtomicOp::MinU,
        "max" if float => AtomicOp::FMax,
        "max" if signed => AtomicOp::MaxI,
        "max" => AtomicOp::MaxU,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "mskor" => AtomicOp::MskOr,
        "cmpst" if float => AtomicOp::FCmpSwap,
        "cmpst" => AtomicOp::CmpSwap,
        "wrxchg" if rtn => AtomicOp::Swap,
        "wrap" if rtn && !wide => AtomicOp::Wrap,
        _ => return None,
    };
    if op == AtomicOp::FAdd && wide {
        return None;
    }
    Some((op, wide, rtn))
}

impl Lifter<'_> {
    fn vread(&mut self, reg: u16, wide: bool) -> H {
        self.n(Node::ReadVgpr {
            reg,
            ty: if wide { Ty::B64 } else { Ty::B32 },
        })
    }

    /// GLOBAL/FLAT atomics: `addr` (B64) and `offset` as `Lifter::global` computed them. Returns false when
    /// the opcode is not an atomic.
    pub(super) fn global_atomic(
        &mut self,
        addr: H,
        offset: i64,
        vdata: u16,
        vdst: u16,
        glc: bool,
    ) -> Result<bool, LiftError> {
        let name = self.ins.opcode().name();
        let Some(rest) = name
            .strip_prefix("global_atomic_")
            .or_else(|| name.strip_prefix("flat_atomic_"))
        else {
            return Ok(false);
        };
        let Some((op, wide)) = vmem_form(rest) else {
            return Ok(false);
        };
        let (value, data1) = self.vmem_data(op, wide, vdata);
        let old = self.n(Node::Atomic {
            space: Space::Global,
            op,
            addr,
            offset,
            value,
            data1,
        });
        // global_atomic_csub has no form without return on gfx10.3 (LLVM prints it with glc always).
        if glc || self.ins.opcode() == Opcode::GLOBAL_ATOMIC_CSUB {
            self.write_v(vdst, old);
        }
        Ok(true)
    }

    /// MUBUF atomics through the private segment buffer (scratch, D010/D092): the lane's private dword
    /// (pair for `_x2`) at the naturally aligned private offset `inst_offset + (offen ? voffset : 0)`,
    /// swizzled as D010's loads and stores are, in the wave's own region. glc returns the old value in
    /// vdata. Returns false when the opcode is not an atomic.
    pub(super) fn mubuf_scratch_atomic(&mut self) -> Result<bool, LiftError> {
        let Some((op, wide)) = self
            .ins
            .opcode()
            .name()
            .strip_prefix("buffer_atomic_")
            .and_then(vmem_form)
        else {
            return Ok(false);
        };
        let (w0, w1) = (self.w(0), self.w(1));
        let inst_offset = w0 & 0xfff;
        let offen = w0 >> 12 & 1 != 0;
        let idxen = w0 >> 13 & 1 != 0;
        let glc = w0 >> 14 & 1 != 0;
        let vaddr = (w1 & 0xff) as u16;
        let vdata = ((w1 >> 8) & 0xff) as u16;
        let srsrc = (((w1 >> 16) & 0x1f) * 4) as u16;
        let soffset = w1 >> 24;
        // Reads first.
        let base = self.read_s(srsrc, Ty::B32);
        let so = self.src(soffset, super::Src::B32)?;
        let (value, data1) = self.vmem_data(op, wide, vdata);
        let lane = self.n(Node::LaneId);
        let index = if idxen {
            let vi = self.vread(vaddr, false);
            let sum = self.int(IntOp::Add, Ty::B32, vi, lane);
            let m = self.c(Ty::B32, (self.ws - 1) as u64);
            self.int(IntOp::And, Ty::B32, sum, m)
        } else {
            lane
        };
        let k = self.c(Ty::B32, inst_offset as u64);
        let off = if offen {
            let vo = self.vread(vaddr + idxen as u16, false);
            self.int(IntOp::Add, Ty::B32, vo, k)
        } else {
            k
        };
        // Private dword (pair) index → region row: (offset & !3 or !7) * wave_size.
        let align = self.c(Ty::B32, if wide { !7u32 } else { !3u32 } as u64);
        let off = self.int(IntOp::And, Ty::B32, off, align);
        let sh = self.c(Ty::B32, self.ws.trailing_zeros() as u64);
        let row = self.int(IntOp::Shl, Ty::B32, off, sh);
        let two = self.c(Ty::B32, 2);
        let index4 = self.int(IntOp::Shl, Ty::B32, index, two);
        let a = self.int(IntOp::Add, Ty::B32, base, so);
        let a = self.int(IntOp::Add, Ty::B32, a, index4);
        let addr = self.int(IntOp::Add, Ty::B32, a, row);
        let old = self.n(Node::Atomic {
            space: Space::Scratch,
            op,
            addr,
            offset: 0,
            value,
            data1,
        });
        if glc {
            self.write_v(vdata, old);
        }
        Ok(true)
    }

    /// The data operands of a GLOBAL/FLAT/MUBUF atomic: DATA, and for the compare-and-swap forms
    /// `{src, cmp}` (src the new value, cmp in the next dword or pair).
    pub(super) fn vmem_data(&mut self, op: AtomicOp, wide: bool, vdata: u16) -> (H, Option<H>) {
        let value = self.vread(vdata, wide);
        let data1 = op
            .two_data()
            .then(|| self.vread(vdata + if wide { 2 } else { 1 }, wide));
        (value, data1)
    }

    /// DS atomics (`addr` the ADDR VGPR, read). Returns false when the opcode is not one handled here.
    pub(super) fn ds_atomic(&mut self, addr: H) -> Result<bool, LiftError> {
        use Opcode::*;
        let (w0, w1) = (self.w(0), self.w(1));
        let (off0, off1) = ((w0 & 0xff) as i64, ((w0 >> 8) & 0xff) as i64);
        let offset = (w0 & 0xffff) as i64;
        let d0 = ((w1 >> 8) & 0xff) as u16;
        let d1 = ((w1 >> 16) & 0xff) as u16;
        let vdst = ((w1 >> 24) & 0xff) as u16;
        let op = self.ins.opcode();
        if let Some((aop, wide, rtn)) = ds_form(op.name()) {
            let x = self.vread(d0, wide);
            let (value, data1) = match aop {
                // cmpst: compare with DATA0, store DATA1.
                AtomicOp::CmpSwap | AtomicOp::FCmpSwap => {
                    let y = self.vread(d1, wide);
                    (y, Some(x))
                }
                AtomicOp::MskOr | AtomicOp::Wrap => {
                    let y = self.vread(d1, wide);
                    (x, Some(y))
                }
                _ => (x, None),
            };
            let old = self.n(Node::Atomic {
                space: Space::Lds,
                op: aop,
                addr,
                offset,
                value,
                data1,
            });
            if rtn {
                self.write_v(vdst, old);
            }
            return Ok(true);
        }
        match op {
            // Two exchanges at ADDR + OFFSET0 * size and ADDR + OFFSET1 * size (ST64: * 64), the old
            // values returned in vdst (and vdst + 1 or + 2).
            DS_WRXCHG2_RTN_B32
            | DS_WRXCHG2ST64_RTN_B32
            | DS_WRXCHG2_RTN_B64
            | DS_WRXCHG2ST64_RTN_B64 => {
                let wide = matches!(op, DS_WRXCHG2_RTN_B64 | DS_WRXCHG2ST64_RTN_B64);
                let size = if wide { 8 } else { 4 };
                let scale = if matches!(op, DS_WRXCHG2ST64_RTN_B32 | DS_WRXCHG2ST64_RTN_B64) {
                    size * 64
                } else {
                    size
                };
                let a = self.vread(d0, wide);
                let b = self.vread(d1, wide);
                let oa = self.n(Node::Atomic {
                    space: Space::Lds,
                    op: AtomicOp::Swap,
                    addr,
                    offset: off0 * scale,
                    value: a,
                    data1: None,
                });
                let ob = self.n(Node::Atomic {
                    space: Space::Lds,
                    op: AtomicOp::Swap,
                    addr,
                    offset: off1 * scale,
                    value: b,
                    data1: None,
                });
                let step = if wide { 2 } else { 1 };
                self.write_v(vdst, oa);
                self.write_v(vdst + step, ob);
                Ok(true)
            }
            // D093: one add (subtract) of the number of EXEC lanes at the LDS byte address M0 + OFFSET,
            // performed once for the wave; every active lane receives the pre-op value.
            DS_APPEND | DS_CONSUME => {
                let m0 = self.read_s(crate::M0, Ty::B32);
                let ety = if self.ws == 64 { Ty::B64 } else { Ty::B32 };
                let exec = self.read_s(crate::EXEC_LO, ety);
                let n = self.un(crate::UnOp::Popcount, Ty::B32, exec);
                let old = self.n(Node::Atomic {
                    space: Space::Lds,
                    op: if op == DS_APPEND {
                        AtomicOp::Add
                    } else {
                        AtomicOp::Sub
                    },
                    addr: m0,
                    offset,
                    value: n,
                    data1: None,
                });
                self.write_v(vdst, old);
                Ok(true)
            }
            // D093 (RDNA 2 ISA guide): A0 = (ADDR + offset) & 0xfff8, A1 = A0 + 4; each dword's old value
            // is returned, and replaced by DATA's dword with bit 31 cleared iff that dword's bit 31 is set:
            // a masked OR with mask = all ones (or none) and the value bit 31 cleared (or 0).
            DS_CONDXCHG32_RTN_B64 => {
                let data = [self.vread(d0, false), self.vread(d0 + 1, false)];
                let k = self.c(Ty::B32, offset as u64);
                let a = self.int(IntOp::Add, Ty::B32, addr, k);
                let m = self.c(Ty::B32, 0xfff8);
                let a0 = self.int(IntOp::And, Ty::B32, a, m);
                let mut olds = Vec::new();
                for (i, d) in data.into_iter().enumerate() {
                    let sh = self.c(Ty::B32, 31);
                    let bit = self.int(IntOp::AShr, Ty::B32, d, sh); // 0 or all ones
                    let low = self.c(Ty::B32, 0x7fff_ffff);
                    let v = self.int(IntOp::And, Ty::B32, d, low);
                    let y = self.int(IntOp::And, Ty::B32, v, bit);
                    olds.push(self.n(Node::Atomic {
                        space: Space::Lds,
                        op: AtomicOp::MskOr,
                        addr: a0,
                        offset: 4 * i as i64,
                        value: bit,
                        data1: Some(y),
                    }));
                }
                self.write_v(vdst, olds[0]);
                self.write_v(vdst + 1, olds[1]);
                Ok(true)
            }
            _ => {
                let name = op.name();
                if let Some(rest) = name.strip_prefix("ds_").filter(|r| r.contains("_src2_")) {
                    return self.ds_src2(rest, addr, (off1 << 8) | off0).map(|_| true);
                }
                Ok(false)
            }
        }
    }

    /// `ds_<op>_src2_<ty>`: MEM[A] = op(MEM[A], MEM[B]) with A = ADDR and
    /// B = A + size * (OFFSET1[7] ? {A[31], A[31:17]} : {OFFSET1[6], OFFSET1[6:0], OFFSET0}), the 16-bit
    /// stride sign-extended (RDNA 2 ISA guide, DS_ADD_SRC2_U32 and the others). B is read for every lane
    /// before any lane updates A (where one lane's B is another's A, the result depends on that order).
    fn ds_src2(&mut self, rest: &str, addr: H, off: i64) -> Result<(), LiftError> {
        let name = rest.replace("_src2", "");
        let wide = name.ends_with("64");
        let size: i64 = if wide { 8 } else { 4 };
        let aop = if name.starts_with("write_") {
            AtomicOp::Swap
        } else {
            match ds_form(&format!("ds_{name}")) {
                Some((a, _, _)) => a,
                None => return self.unsupported("DS src2 form not recognised"),
            }
        };
        let stride = if off & 0x8000 != 0 {
            // {A[31], A[31:17]}: the address shifted right by 17, sign-extended from its bit 31.
            let s = self.c(Ty::B32, 17);
            self.int(IntOp::AShr, Ty::B32, addr, s)
        } else {
            let v = ((off & 0x7fff) << 49 >> 49) as u64;
            self.c(Ty::B32, v & 0xffff_ffff)
        };
        let sz = self.c(Ty::B32, size as u64);
        let delta = self.int(IntOp::Mul, Ty::B32, stride, sz);
        let b = self.int(IntOp::Add, Ty::B32, addr, delta);
        let lo = self.n(Node::Load {
            space: Space::Lds,
            access: Access::B32,
            addr: b,
            offset: 0,
        });
        let y = if wide {
            let hi = self.n(Node::Load {
                space: Space::Lds,
                access: Access::B32,
                addr: b,
                offset: 4,
            });
            self.n(Node::Concat { lo, hi })
        } else {
            lo
        };
        self.n(Node::Atomic {
            space: Space::Lds,
            op: aop,
            addr,
            offset: 0,
            value: y,
            data1: None,
        });
        Ok(())
    }
}
