//! GLOBAL/FLAT forms beyond the plain loads, stores and atomics of `Lifter::global`: the d16 loads and
//! stores (a byte or short into / from one half of the VGPR, the other half kept) and the addtid forms
//! (RDNA 2 ISA guide, "Flat, scratch and global instructions"). glc/slc/dlc are cache policies with no
//! observable effect on the evaluator's and the lowering's single coherent memory.

use super::{LiftError, Lifter};
use crate::{Access, Handle, IntOp, Node, Space, Ty, UnOp};
use rdna2spv_isa::Opcode;

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
