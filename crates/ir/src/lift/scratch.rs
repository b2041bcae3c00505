//! SCRATCH instructions (`scratch_load_*` / `scratch_store_*`, the FLAT encoding with SEG = 1) and the d16
//! forms of MUBUF through the private segment buffer: both address the executing wave's scratch region
//! ([`Space::Scratch`], decision D010) and lift to explicit IR for the hardware's swizzled layout.
//!
//! SCRATCH addressing (RDNA 2 ISA guide, "Scratch (private) instructions"; LLVM's gfx1030 operand syntax
//! for `saddr`/`vaddr`): a lane's private byte offset is `[vaddr] + [saddr] + offset12s` (32 bits), where
//! exactly one of the two registers takes part: `saddr` = 0x7d (`off`) uses the VGPR `vaddr`, an SGPR
//! `saddr` uses that SGPR (vaddr is ignored and prints as `off`), and on gfx1030 `saddr` = 0x7f is "ST
//! mode" (neither: the offset alone). The hardware swizzles private offsets like the private segment
//! buffer (element size 4, index stride = wave size, D010), so private offset `o` of lane `l` is byte
//! `(o & !3) * wave_size + 4 * l + (o & 3)` of the wave's region. FLAT_SCRATCH (the wave's region base)
//! is 0 in this runtime: every wave has its own region (D010), and `s_setreg` of FLAT_SCRATCH is not lifted.
//! Wider accesses swizzle each dword separately. An offset so large that the swizzled address would not
//! fit 32 bits is sent past every region (0xffff_fffc), so it faults instead of wrapping into the region.
//! glc/slc/dlc are cache policies without effect on one coherent memory; lds = 1 is refused.

use super::{LiftError, Lifter, Src};
use crate::{Access, Handle, IntCmp, IntOp, Node, Space, Ty};
use rdna2spv_isa::{Flag, Opcode};

type H = Handle<Node>;

/// What a scratch access moves.
#[derive(Clone, Copy)]
enum Kind {
    Load(Access, u16),
    Store(Access, u16),
    /// d16 load into the low (false) or high half, the other half kept.
    LoadD16(Access, bool),
    /// Store of the VGPR's high half.
    StoreHi(Access),
}

fn scratch_kind(op: Opcode) -> Option<Kind> {
    use Opcode::*;
    Some(match op {
        SCRATCH_LOAD_UBYTE | BUFFER_LOAD_UBYTE => Kind::Load(Access::U8, 1),
        SCRATCH_LOAD_SBYTE | BUFFER_LOAD_SBYTE => Kind::Load(Access::I8, 1),
        SCRATCH_LOAD_USHORT | BUFFER_LOAD_USHORT => Kind::Load(Access::U16, 1),
        SCRATCH_LOAD_SSHORT | BUFFER_LOAD_SSHORT => Kind::Load(Access::I16, 1),
        SCRATCH_LOAD_DWORD | BUFFER_LOAD_DWORD => Kind::Load(Access::B32, 1),
        SCRATCH_LOAD_DWORDX2 | BUFFER_LOAD_DWORDX2 => Kind::Load(Access::B32, 2),
        SCRATCH_LOAD_DWORDX3 | BUFFER_LOAD_DWORDX3 => Kind::Load(Access::B32, 3),
        SCRATCH_LOAD_DWORDX4 | BUFFER_LOAD_DWORDX4 => Kind::Load(Access::B32, 4),
        SCRATCH_STORE_BYTE | BUFFER_STORE_BYTE => Kind::Store(Access::U8, 1),
        SCRATCH_STORE_SHORT | BUFFER_STORE_SHORT => Kind::Store(Access::U16, 1),
        SCRATCH_STORE_DWORD | BUFFER_STORE_DWORD => Kind::Store(Access::B32, 1),
        SCRATCH_STORE_DWORDX2 | BUFFER_STORE_DWORDX2 => Kind::Store(Access::B32, 2),
        SCRATCH_STORE_DWORDX3 | BUFFER_STORE_DWORDX3 => Kind::Store(Access::B32, 3),
        SCRATCH_STORE_DWORDX4 | BUFFER_STORE_DWORDX4 => Kind::Store(Access::B32, 4),
        SCRATCH_STORE_BYTE_D16_HI | BUFFER_STORE_BYTE_D16_HI => Kind::StoreHi(Access::U8),
        SCRATCH_STORE_SHORT_D16_HI | BUFFER_STORE_SHORT_D16_HI => Kind::StoreHi(Access::U16),
        SCRATCH_LOAD_UBYTE_D16 | BUFFER_LOAD_UBYTE_D16 => Kind::LoadD16(Access::U8, false),
        SCRATCH_LOAD_UBYTE_D16_HI | BUFFER_LOAD_UBYTE_D16_HI => Kind::LoadD16(Access::U8, true),
        SCRATCH_LOAD_SBYTE_D16 | BUFFER_LOAD_SBYTE_D16 => Kind::LoadD16(Access::I8, false),
        SCRATCH_LOAD_SBYTE_D16_HI | BUFFER_LOAD_SBYTE_D16_HI => Kind::LoadD16(Access::I8, true),
        SCRATCH_LOAD_SHORT_D16 | BUFFER_LOAD_SHORT_D16 => Kind::LoadD16(Access::U16, false),
        SCRATCH_LOAD_SHORT_D16_HI | BUFFER_LOAD_SHORT_D16_HI => Kind::LoadD16(Access::U16, true),
        _ => return None,
    })
}

impl Lifter<'_> {
    /// The region byte address (B32) of private byte offset `off` (B32) of the executing lane.
    fn swizzled_private(&mut self, off: H) -> H {
        let log_ws = self.ws.trailing_zeros() as u64;
        let m3 = self.c(Ty::B32, !3u32 as u64);
        let hi = self.int(IntOp::And, Ty::B32, off, m3);
        let sh = self.c(Ty::B32, log_ws);
        let row = self.int(IntOp::Shl, Ty::B32, hi, sh);
        let lane = self.n(Node::LaneId);
        let two = self.c(Ty::B32, 2);
        let col = self.int(IntOp::Shl, Ty::B32, lane, two);
        let three = self.c(Ty::B32, 3);
        let lo = self.int(IntOp::And, Ty::B32, off, three);
        let a = self.int(IntOp::Add, Ty::B32, row, col);
        let a = self.int(IntOp::Add, Ty::B32, a, lo);
        // Offsets whose swizzled address needs more than 32 bits go past every region (a fault).
        let top = self.c(Ty::B32, 32 - log_ws);
        let over = self.int(IntOp::LShr, Ty::B32, off, top);
        let z = self.c(Ty::B32, 0);
        let wraps = self.icmp(IntCmp::Ne, Ty::B32, over, z);
        let far = self.c(Ty::B32, 0xffff_fffc);
        self.n(Node::Select {
            cond: wraps,
            a: far,
            b: a,
        })
    }

    /// One scratch access of `kind` at private offsets `base + 4 * k` (component k): reads first, then the
    /// loads and stores.
    fn scratch_access(&mut self, kind: Kind, base: H, vdata: u16, vdst: u16) {
        let n = match kind {
            Kind::Load(_, n) | Kind::Store(_, n) => n,
            _ => 1,
        };
        let data: Vec<H> = match kind {
            Kind::Store(..) | Kind::StoreHi(_) => (0..n)
                .map(|i| {
                    self.n(Node::ReadVgpr {
                        reg: vdata + i,
                        ty: Ty::B32,
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        let old = matches!(kind, Kind::LoadD16(..)).then(|| {
            self.n(Node::ReadVgpr {
                reg: vdst,
                ty: Ty::B32,
            })
        });
        let addrs: Vec<H> = (0..n)
            .map(|i| {
                let off = if i == 0 {
                    base
                } else {
                    let k = self.c(Ty::B32, 4 * i as u64);
                    self.int(IntOp::Add, Ty::B32, base, k)
                };
                self.swizzled_private(off)
            })
            .collect();
        match kind {
            Kind::Load(access, _) => {
                let vals: Vec<H> = addrs
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
                    self.write_v(vdst + i as u16, v);
                }
            }
            Kind::LoadD16(access, hi) => {
                let x = self.n(Node::Load {
                    space: Space::Scratch,
                    access,
                    addr: addrs[0],
                    offset: 0,
                });
                let merged = self.d16_merge(x, old.expect("read above"), hi);
                self.write_v(vdst, merged);
            }
            Kind::Store(access, _) => {
                for (addr, value) in addrs.into_iter().zip(data) {
                    self.n(Node::Store {
                        space: Space::Scratch,
                        access,
                        addr,
                        offset: 0,
                        value,
                    });
                }
            }
            Kind::StoreHi(access) => {
                let s = self.c(Ty::B32, 16);
                let value = self.int(IntOp::LShr, Ty::B32, data[0], s);
                self.n(Node::Store {
                    space: Space::Scratch,
                    access,
                    addr: addrs[0],
                    offset: 0,
                    value,
                });
            }
        }
    }

    /// SCRATCH loads and stores (module documentation).
    pub(super) fn scratch(&mut self) -> Result<(), LiftError> {
        let (w0, w1) = (self.w(0), self.w(1));
        let offset = ((w0 & 0xfff) as i32) << 20 >> 20;
        let lds = w0 >> 13 & 1 != 0;
        let vaddr = (w1 & 0xff) as u16;
        let vdata = ((w1 >> 8) & 0xff) as u16;
        let saddr = (w1 >> 16) & 0x7f;
        let vdst = ((w1 >> 24) & 0xff) as u16;
        if lds {
            return self.unsupported("scratch loads into LDS (lds = 1) are not modelled");
        }
        let Some(kind) = scratch_kind(self.ins.opcode()) else {
            return self.unsupported("scratch instruction not lifted yet (atomics do not exist)");
        };
        let k = self.c(Ty::B32, offset as u32 as u64);
        let base = match saddr {
            0x7d => {
                let v = self.n(Node::ReadVgpr {
                    reg: vaddr,
                    ty: Ty::B32,
                });
                self.int(IntOp::Add, Ty::B32, v, k)
            }
            0x7f if self.ins.encoding.has(Flag::StMode) => k,
            0x7f => {
                return self
                    .unsupported("saddr = 0x7f (exec_hi) is not a valid scratch offset here")
            }
            s => {
                let v = self.src(s, Src::B32)?;
                self.int(IntOp::Add, Ty::B32, v, k)
            }
        };
        self.scratch_access(kind, base, vdata, vdst);
        Ok(())
    }

    /// The MUBUF d16 forms through the private segment buffer (the plain forms are `Lifter::mubuf`'s):
    /// `base + soffset + swizzle(offset)` with `offset = inst_offset + (offen ? voffset : 0)` and the index
    /// `(idxen ? vindex : 0) + lane` taken modulo the wave size, as in D010. Returns false for other opcodes.
    pub(super) fn mubuf_scratch_d16(&mut self) -> Result<bool, LiftError> {
        let kind = match scratch_kind(self.ins.opcode()) {
            Some(k @ (Kind::LoadD16(..) | Kind::StoreHi(_))) => k,
            _ => return Ok(false),
        };
        let (w0, w1) = (self.w(0), self.w(1));
        let inst_offset = w0 & 0xfff;
        let offen = w0 >> 12 & 1 != 0;
        let idxen = w0 >> 13 & 1 != 0;
        let vaddr = (w1 & 0xff) as u16;
        let vdata = ((w1 >> 8) & 0xff) as u16;
        let srsrc = (((w1 >> 16) & 0x1f) * 4) as u16;
        let soffset = w1 >> 24;
        let wbase = self.read_s(srsrc, Ty::B32);
        let so = self.src(soffset, Src::B32)?;
        let wave_base = self.int(IntOp::Add, Ty::B32, wbase, so);
        let k = self.c(Ty::B32, inst_offset as u64);
        let off = if offen {
            let v = self.n(Node::ReadVgpr {
                reg: vaddr + idxen as u16,
                ty: Ty::B32,
            });
            self.int(IntOp::Add, Ty::B32, v, k)
        } else {
            k
        };
        // swizzle(offset) for lane (index % wave_size): the lane term of `swizzled_private` is replaced
        // by the index's when idxen is set.
        let mut a = self.swizzled_private(off);
        if idxen {
            let vi = self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B32,
            });
            let lane = self.n(Node::LaneId);
            let sum = self.int(IntOp::Add, Ty::B32, vi, lane);
            let m = self.c(Ty::B32, (self.ws - 1) as u64);
            let idx = self.int(IntOp::And, Ty::B32, sum, m);
            let d = self.int(IntOp::Sub, Ty::B32, idx, lane);
            let two = self.c(Ty::B32, 2);
            let d4 = self.int(IntOp::Shl, Ty::B32, d, two);
            a = self.int(IntOp::Add, Ty::B32, a, d4);
        }
        let addr = self.int(IntOp::Add, Ty::B32, wave_base, a);
        // `scratch_access` swizzles its own offsets; here the address is final, so access it directly.
        match kind {
            Kind::LoadD16(access, hi) => {
                let old = self.n(Node::ReadVgpr {
                    reg: vdata,
                    ty: Ty::B32,
                });
                let x = self.n(Node::Load {
                    space: Space::Scratch,
                    access,
                    addr,
                    offset: 0,
                });
                let merged = self.d16_merge(x, old, hi);
                self.write_v(vdata, merged);
            }
            Kind::StoreHi(access) => {
                let v = self.n(Node::ReadVgpr {
                    reg: vdata,
                    ty: Ty::B32,
                });
                let s = self.c(Ty::B32, 16);
                let value = self.int(IntOp::LShr, Ty::B32, v, s);
                self.n(Node::Store {
                    space: Space::Scratch,
                    access,
                    addr,
                    offset: 0,
                    value,
                });
            }
            _ => unreachable!("filtered above"),
        }
        Ok(true)
    }
}
