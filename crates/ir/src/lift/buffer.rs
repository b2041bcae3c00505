//! Buffer accesses of captured binaries (decision D050): MUBUF through a general V# held in SGPRs (RADV's
//! storage-buffer descriptors), and RADV's 32-bit address window for scalar loads.

use super::{LiftError, Lifter, Src};
use crate::Handle;
use crate::{Access, IntCmp, IntOp, Node, Space, Ty, UnOp};
use rdna2spv_isa::Opcode;

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

    /// MUBUF with a V# from the SGPRs: the lane's address is
    /// `base + soffset + inst_offset + (offen ? voffset : 0) + (idxen ? vindex * stride : 0)`.
    pub(super) fn mubuf_vsharp(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let (w0, w1) = (self.w(0), self.w(1));
        let inst_offset = w0 & 0xfff;
        let offen = w0 >> 12 & 1 != 0;
        let idxen = w0 >> 13 & 1 != 0;
        let glc = w0 >> 14 & 1 != 0;
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
        let atomic = match op {
            BUFFER_ATOMIC_ADD => Some(crate::AtomicOp::Add),
            BUFFER_ATOMIC_SUB => Some(crate::AtomicOp::Sub),
            BUFFER_ATOMIC_AND => Some(crate::AtomicOp::And),
            BUFFER_ATOMIC_OR => Some(crate::AtomicOp::Or),
            BUFFER_ATOMIC_XOR => Some(crate::AtomicOp::Xor),
            BUFFER_ATOMIC_UMIN => Some(crate::AtomicOp::MinU),
            BUFFER_ATOMIC_UMAX => Some(crate::AtomicOp::MaxU),
            BUFFER_ATOMIC_SMIN => Some(crate::AtomicOp::MinI),
            BUFFER_ATOMIC_SMAX => Some(crate::AtomicOp::MaxI),
            BUFFER_ATOMIC_SWAP => Some(crate::AtomicOp::Swap),
            _ => None,
        };
        if load.is_none() && store.is_none() && atomic.is_none() {
            return self.unsupported(
                "buffer instruction not lifted yet (loads, stores and 32-bit atomics of a raw buffer)",
            );
        }
        // Reads first: the V#, soffset, the VGPR address operands, the data.
        let v01 = self.read_s(srsrc, Ty::B64);
        let base_mask = self.c(Ty::B64, 0xffff_ffff_ffff);
        let base = self.int(IntOp::And, Ty::B64, v01, base_mask);
        let so = self.src(soffset, Src::B32)?;
        let mut off = self.c(Ty::B32, inst_offset as u64);
        if offen {
            let v = self.n(Node::ReadVgpr {
                reg: vaddr + idxen as u16,
                ty: Ty::B32,
            });
            off = self.int(IntOp::Add, Ty::B32, v, off);
        }
        let off64 = self.un(UnOp::ZExt, Ty::B64, off);
        let so64 = self.un(UnOp::ZExt, Ty::B64, so);
        let mut addr = self.int(IntOp::Add, Ty::B64, base, so64);
        addr = self.int(IntOp::Add, Ty::B64, addr, off64);
        if idxen {
            let w1v = self.read_s(srsrc + 1, Ty::B32);
            let sh = self.c(Ty::B32, 16);
            let st = self.int(IntOp::LShr, Ty::B32, w1v, sh);
            let m = self.c(Ty::B32, 0x3fff);
            let stride = self.int(IntOp::And, Ty::B32, st, m);
            let vi = self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B32,
            });
            let vi64 = self.un(UnOp::ZExt, Ty::B64, vi);
            let st64 = self.un(UnOp::ZExt, Ty::B64, stride);
            let prod = self.int(IntOp::Mul, Ty::B64, vi64, st64);
            addr = self.int(IntOp::Add, Ty::B64, addr, prod);
        }
        if let Some((access, n)) = load {
            let vals: Vec<_> = (0..n)
                .map(|i| {
                    self.n(Node::Load {
                        space: Space::Global,
                        access,
                        addr,
                        offset: 4 * i as i64,
                    })
                })
                .collect();
            for (i, v) in vals.into_iter().enumerate() {
                self.write_v(vdata + i as u16, v);
            }
            return Ok(());
        }
        if let Some((access, n)) = store {
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
                    offset: 4 * i as i64,
                    value: v,
                });
            }
            return Ok(());
        }
        let op = atomic.expect("checked above");
        let v = self.n(Node::ReadVgpr {
            reg: vdata,
            ty: Ty::B32,
        });
        let old = self.n(Node::Atomic {
            space: Space::Global,
            op,
            addr,
            offset: 0,
            value: v,
        });
        if glc {
            self.write_v(vdata, old);
        }
        Ok(())
    }
}
