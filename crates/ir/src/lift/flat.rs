//! GLOBAL/FLAT: `Lifter::global` (the family's entry: the plain loads, stores and atomics) and the forms
//! beyond it: the d16 loads and
//! stores (a byte or short into / from one half of the VGPR, the other half kept) and the addtid forms
//! (RDNA 2 ISA guide, "Flat, scratch and global instructions"). glc/slc/dlc are cache policies with no
//! observable effect on the evaluator's and the lowering's single coherent memory.

use super::{LiftError, Lifter};
use crate::{Access, Handle, IntOp, Node, Space, Ty, UnOp};
use rdna2spv_isa::{Format, Opcode};

type H = Handle<Node>;

impl Lifter<'_> {
    /// Lifts `op` if it is one of the forms handled here (returns false otherwise). `addr` is the
    /// instruction's address (B64) as `Lifter::global` computed it.
    pub(super) fn global_more(
        &mut self,
        addr: H,
        offset: i64,
        vdata: u16,
        vdst: u16,
    ) -> Result<bool, LiftError> {
        use Opcode::*;
        let op = self.ins.opcode();
        let d16 = match op {
            GLOBAL_LOAD_UBYTE_D16 | FLAT_LOAD_UBYTE_D16 => Some((Access::U8, false)),
            GLOBAL_LOAD_UBYTE_D16_HI | FLAT_LOAD_UBYTE_D16_HI => Some((Access::U8, true)),
            GLOBAL_LOAD_SBYTE_D16 | FLAT_LOAD_SBYTE_D16 => Some((Access::I8, false)),
            GLOBAL_LOAD_SBYTE_D16_HI | FLAT_LOAD_SBYTE_D16_HI => Some((Access::I8, true)),
            GLOBAL_LOAD_SHORT_D16 | FLAT_LOAD_SHORT_D16 => Some((Access::U16, false)),
            GLOBAL_LOAD_SHORT_D16_HI | FLAT_LOAD_SHORT_D16_HI => Some((Access::U16, true)),
            _ => None,
        };
        if let Some((access, hi)) = d16 {
            let old = self.n(Node::ReadVgpr {
                reg: vdst,
                ty: Ty::B32,
            });
            let v = self.n(Node::Load {
                space: Space::Global,
                access,
                addr,
                offset,
            });
            let merged = self.d16_merge(v, old, hi);
            self.write_v(vdst, merged);
            return Ok(true);
        }
        let store_hi = match op {
            GLOBAL_STORE_BYTE_D16_HI | FLAT_STORE_BYTE_D16_HI => Some(Access::U8),
            GLOBAL_STORE_SHORT_D16_HI | FLAT_STORE_SHORT_D16_HI => Some(Access::U16),
            _ => None,
        };
        if let Some(access) = store_hi {
            let v = self.n(Node::ReadVgpr {
                reg: vdata,
                ty: Ty::B32,
            });
            let s = self.c(Ty::B32, 16);
            let value = self.int(IntOp::LShr, Ty::B32, v, s);
            self.n(Node::Store {
                space: Space::Global,
                access,
                addr,
                offset,
                value,
            });
            return Ok(true);
        }
        if matches!(op, GLOBAL_LOAD_DWORD_ADDTID | GLOBAL_STORE_DWORD_ADDTID) {
            // Address = [SGPR pair] + inst_offset + lane * 4; no VGPR address. With saddr = off the SGPR
            // term is absent (LLVM's operand page: "Address = [saddr] + offset + ThreadID * 4"): an
            // absolute address below 4 KiB + 256, which no allocation holds, so the host evaluator faults
            // naming it (and the device's checked mode flags it).
            let saddr = (self.w(1) >> 16) & 0x7f;
            let base = if saddr == 0x7d || saddr == 0x7f {
                self.c(Ty::B64, 0)
            } else {
                self.read_s(saddr as u16, Ty::B64)
            };
            let lane = self.n(Node::LaneId);
            let two = self.c(Ty::B32, 2);
            let l4 = self.int(IntOp::Shl, Ty::B32, lane, two);
            let l4 = self.un(UnOp::ZExt, Ty::B64, l4);
            let a = self.int(IntOp::Add, Ty::B64, base, l4);
            if op == GLOBAL_LOAD_DWORD_ADDTID {
                let v = self.n(Node::Load {
                    space: Space::Global,
                    access: Access::B32,
                    addr: a,
                    offset,
                });
                self.write_v(vdst, v);
            } else {
                let v = self.n(Node::ReadVgpr {
                    reg: vdata,
                    ty: Ty::B32,
                });
                self.n(Node::Store {
                    space: Space::Global,
                    access: Access::B32,
                    addr: a,
                    offset,
                    value: v,
                });
            }
            return Ok(true);
        }
        Ok(false)
    }
}

impl Lifter<'_> {
    pub(super) fn global(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let (w0, w1) = (self.w(0), self.w(1));
        let offset = ((w0 & 0xfff) as i64) << 52 >> 52;
        let vaddr = (w1 & 0xff) as u16;
        let vdata = ((w1 >> 8) & 0xff) as u16;
        let saddr = (w1 >> 16) & 0x7f;
        let vdst = ((w1 >> 24) & 0xff) as u16;
        let glc = w0 >> 16 & 1 != 0;
        let flat = self.ins.format() == Format::FLAT;
        // Address: 64-bit VGPR pair, or SGPR pair + 32-bit VGPR offset (GLOBAL with saddr).
        let addr = if !flat && saddr != 0x7d && saddr != 0x7f {
            let base = self.read_s(saddr as u16, Ty::B64);
            let v = self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B32,
            });
            let v64 = self.un(UnOp::ZExt, Ty::B64, v);
            self.int(IntOp::Add, Ty::B64, base, v64)
        } else {
            self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B64,
            })
        };
        let load = |op| -> Option<(Access, u16)> {
            Some(match op {
                GLOBAL_LOAD_UBYTE | FLAT_LOAD_UBYTE => (Access::U8, 1),
                GLOBAL_LOAD_SBYTE | FLAT_LOAD_SBYTE => (Access::I8, 1),
                GLOBAL_LOAD_USHORT | FLAT_LOAD_USHORT => (Access::U16, 1),
                GLOBAL_LOAD_SSHORT | FLAT_LOAD_SSHORT => (Access::I16, 1),
                GLOBAL_LOAD_DWORD | FLAT_LOAD_DWORD => (Access::B32, 1),
                GLOBAL_LOAD_DWORDX2 | FLAT_LOAD_DWORDX2 => (Access::B32, 2),
                GLOBAL_LOAD_DWORDX3 | FLAT_LOAD_DWORDX3 => (Access::B32, 3),
                GLOBAL_LOAD_DWORDX4 | FLAT_LOAD_DWORDX4 => (Access::B32, 4),
                _ => return None,
            })
        };
        let store = |op| -> Option<(Access, u16)> {
            Some(match op {
                GLOBAL_STORE_BYTE | FLAT_STORE_BYTE => (Access::U8, 1),
                GLOBAL_STORE_SHORT | FLAT_STORE_SHORT => (Access::U16, 1),
                GLOBAL_STORE_DWORD | FLAT_STORE_DWORD => (Access::B32, 1),
                GLOBAL_STORE_DWORDX2 | FLAT_STORE_DWORDX2 => (Access::B32, 2),
                GLOBAL_STORE_DWORDX3 | FLAT_STORE_DWORDX3 => (Access::B32, 3),
                GLOBAL_STORE_DWORDX4 | FLAT_STORE_DWORDX4 => (Access::B32, 4),
                _ => return None,
            })
        };
        let op = self.ins.opcode();
        if self.global_more(addr, offset, vdata, vdst)? {
            return Ok(());
        }
        if let Some((access, n)) = load(op) {
            let vals: Vec<_> = (0..n)
                .map(|i| {
                    self.n(Node::Load {
                        space: Space::Global,
                        access,
                        addr,
                        offset: offset + 4 * i as i64,
                    })
                })
                .collect();
            for (i, v) in vals.into_iter().enumerate() {
                self.write_v(vdst + i as u16, v);
            }
            return Ok(());
        }
        if let Some((access, n)) = store(op) {
            let vals: Vec<_> = (0..n)
                .map(|i| {
                    self.n(Node::ReadVgpr {
                        reg: vdata + i,
                        ty: Ty::B32,
                    })
                })
                .collect();
            for (i, v) in vals.into_iter().enumerate() {
                self.n(Node::Store {
                    space: Space::Global,
                    access,
                    addr,
                    offset: offset + 4 * i as i64,
                    value: v,
                });
            }
            return Ok(());
        }
        if self.global_atomic(addr, offset, vdata, vdst, glc)? {
            return Ok(());
        }
        self.unsupported("global/flat instruction not lifted yet")
    }
}
