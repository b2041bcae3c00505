//! LDS (DS) instructions: `Lifter::ds` (the family's entry) and the forms beyond its first few: every width of read and write (bytes,
//! shorts, b64/b96/b128, d16 halves), read2/write2 of b64, the addtid forms and the 32-bit atomics whose
//! read-modify-write the IR has (RDNA 2 ISA guide, "Data share operations"). Addresses are byte offsets in
//! the workgroup's LDS (`Space::Lds`); the evaluator faults outside the workgroup's allocation (M0 does not
//! bound LDS accesses on gfx10). Unaligned addresses are taken as given: each byte goes where its address
//! says (the evaluator's and the lowering's model; real LDS wants natural alignment for b64 and wider).

use super::{LiftError, Lifter};
use crate::{Access, Handle, IntOp, Node, Space, Ty, M0};
use rdna2spv_isa::Opcode;

type H = Handle<Node>;

impl Lifter<'_> {
    fn lds_load(&mut self, access: Access, addr: H, offset: i64) -> H {
        self.n(Node::Load {
            space: Space::Lds,
            access,
            addr,
            offset,
        })
    }
    fn lds_store(&mut self, access: Access, addr: H, offset: i64, value: H) {
        self.n(Node::Store {
            space: Space::Lds,
            access,
            addr,
            offset,
            value,
        });
    }
    fn vreg(&mut self, reg: u16) -> H {
        self.n(Node::ReadVgpr { reg, ty: Ty::B32 })
    }

    /// The DS instructions `Lifter::ds` does not handle itself; `addr` is the ADDR VGPR, already read.
    pub(super) fn ds_more(&mut self, addr: H) -> Result<(), LiftError> {
        use Opcode::*;
        let (w0, w1) = (self.w(0), self.w(1));
        let (off0, off1) = ((w0 & 0xff) as i64, ((w0 >> 8) & 0xff) as i64);
        let offset = (w0 & 0xffff) as i64;
        let d0 = ((w1 >> 8) & 0xff) as u16;
        let d1 = ((w1 >> 16) & 0xff) as u16;
        let vdst = ((w1 >> 24) & 0xff) as u16;
        if self.ds_atomic(addr)? {
            return Ok(());
        }
        let op = self.ins.opcode();
        match op {
            DS_WRITE_B8 | DS_WRITE_B16 | DS_WRITE_B8_D16_HI | DS_WRITE_B16_D16_HI => {
                let v = self.vreg(d0);
                let v = if matches!(op, DS_WRITE_B8_D16_HI | DS_WRITE_B16_D16_HI) {
                    let s = self.c(Ty::B32, 16);
                    self.int(IntOp::LShr, Ty::B32, v, s)
                } else {
                    v
                };
                let access = if matches!(op, DS_WRITE_B8 | DS_WRITE_B8_D16_HI) {
                    Access::U8
                } else {
                    Access::U16
                };
                self.lds_store(access, addr, offset, v);
            }
            DS_WRITE_B64 | DS_WRITE_B96 | DS_WRITE_B128 => {
                let n = match op {
                    DS_WRITE_B64 => 2,
                    DS_WRITE_B96 => 3,
                    _ => 4,
                };
                let vals: Vec<H> = (0..n).map(|i| self.vreg(d0 + i)).collect();
                for (i, v) in vals.into_iter().enumerate() {
                    self.lds_store(Access::B32, addr, offset + 4 * i as i64, v);
                }
            }
            // ADDR + OFFSET * 8 (ST64: * 8 * 64) for each of the two 64-bit halves.
            DS_WRITE2_B64 | DS_WRITE2ST64_B64 => {
                let scale = if op == DS_WRITE2ST64_B64 { 8 * 64 } else { 8 };
                let vals: Vec<H> = [d0, d0 + 1, d1, d1 + 1]
                    .into_iter()
                    .map(|r| self.vreg(r))
                    .collect();
                for (i, v) in vals.into_iter().enumerate() {
                    let base = if i < 2 { off0 } else { off1 } * scale;
                    self.lds_store(Access::B32, addr, base + 4 * (i as i64 % 2), v);
                }
            }
            DS_READ_U8 | DS_READ_I8 | DS_READ_U16 | DS_READ_I16 => {
                let access = match op {
                    DS_READ_U8 => Access::U8,
                    DS_READ_I8 => Access::I8,
                    DS_READ_U16 => Access::U16,
                    _ => Access::I16,
                };
                let v = self.lds_load(access, addr, offset);
                self.write_v(vdst, v);
            }
            DS_READ_U8_D16 | DS_READ_U8_D16_HI | DS_READ_I8_D16 | DS_READ_I8_D16_HI
            | DS_READ_U16_D16 | DS_READ_U16_D16_HI => {
                let access = match op {
                    DS_READ_U8_D16 | DS_READ_U8_D16_HI => Access::U8,
                    DS_READ_I8_D16 | DS_READ_I8_D16_HI => Access::I8,
                    _ => Access::U16,
                };
                let hi = matches!(
                    op,
                    DS_READ_U8_D16_HI | DS_READ_I8_D16_HI | DS_READ_U16_D16_HI
                );
                let old = self.vreg(vdst);
                let v = self.lds_load(access, addr, offset);
                let merged = self.d16_merge(v, old, hi);
                self.write_v(vdst, merged);
            }
            DS_READ_B64 | DS_READ_B96 | DS_READ_B128 => {
                let n = match op {
                    DS_READ_B64 => 2,
                    DS_READ_B96 => 3,
                    _ => 4,
                };
                let vals: Vec<H> = (0..n)
                    .map(|i| self.lds_load(Access::B32, addr, offset + 4 * i as i64))
                    .collect();
                for (i, v) in vals.into_iter().enumerate() {
                    self.write_v(vdst + i as u16, v);
                }
            }
            DS_READ2_B64 | DS_READ2ST64_B64 => {
                let scale = if op == DS_READ2ST64_B64 { 8 * 64 } else { 8 };
                let vals: Vec<H> = (0..4)
                    .map(|i| {
                        let base = if i < 2 { off0 } else { off1 } * scale;
                        self.lds_load(Access::B32, addr, base + 4 * (i % 2))
                    })
                    .collect();
                for (i, v) in vals.into_iter().enumerate() {
                    self.write_v(vdst + i as u16, v);
                }
            }
            // The address is M0 + OFFSET + lane * 4 (no ADDR VGPR).
            DS_READ_ADDTID_B32 | DS_WRITE_ADDTID_B32 => {
                let m0 = self.read_s(M0, Ty::B32);
                let lane = self.n(Node::LaneId);
                let two = self.c(Ty::B32, 2);
                let l4 = self.int(IntOp::Shl, Ty::B32, lane, two);
                let a = self.int(IntOp::Add, Ty::B32, m0, l4);
                if op == DS_READ_ADDTID_B32 {
                    let v = self.lds_load(Access::B32, a, offset);
                    self.write_v(vdst, v);
                } else {
                    let v = self.vreg(d0);
                    self.lds_store(Access::B32, a, offset, v);
                }
            }
            DS_NOP => {}
            DS_GWS_INIT
            | DS_GWS_SEMA_V
            | DS_GWS_SEMA_BR
            | DS_GWS_SEMA_P
            | DS_GWS_BARRIER
            | DS_GWS_SEMA_RELEASE_ALL => {
                return self.unsupported(
                    "global wave sync (GWS) needs the hardware's GDS resources; not modelled",
                )
            }
            DS_ORDERED_COUNT => {
                return self.unsupported("ds_ordered_count uses GDS ordered counters; not modelled")
            }
            _ => return self.unsupported("LDS instruction not lifted yet"),
        }
        Ok(())
    }
}

impl Lifter<'_> {
    pub(super) fn ds(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let (w0, w1) = (self.w(0), self.w(1));
        let (off0, off1) = ((w0 & 0xff) as i64, ((w0 >> 8) & 0xff) as i64);
        let offset = (w0 & 0xffff) as i64;
        let addr_r = (w1 & 0xff) as u16;
        let d0 = ((w1 >> 8) & 0xff) as u16;
        let d1 = ((w1 >> 16) & 0xff) as u16;
        let vdst = ((w1 >> 24) & 0xff) as u16;
        if w0 >> 17 & 1 != 0 {
            return self.unsupported("GDS is not modelled");
        }
        let addr = self.n(Node::ReadVgpr {
            reg: addr_r,
            ty: Ty::B32,
        });
        let lds = Space::Lds;
        match self.ins.opcode() {
            DS_WRITE_B32 => {
                let v = self.n(Node::ReadVgpr {
                    reg: d0,
                    ty: Ty::B32,
                });
                self.n(Node::Store {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset,
                    value: v,
                });
            }
            // The ST64 forms scale both offsets by 64 dwords (RDNA 2 ISA, DS_WRITE2ST64_B32: ADDR + OFFSET * 4 * 64).
            DS_WRITE2_B32 | DS_WRITE2ST64_B32 => {
                let scale = if self.ins.opcode() == DS_WRITE2ST64_B32 {
                    4 * 64
                } else {
                    4
                };
                let a = self.n(Node::ReadVgpr {
                    reg: d0,
                    ty: Ty::B32,
                });
                let b = self.n(Node::ReadVgpr {
                    reg: d1,
                    ty: Ty::B32,
                });
                self.n(Node::Store {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset: off0 * scale,
                    value: a,
                });
                self.n(Node::Store {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset: off1 * scale,
                    value: b,
                });
            }
            DS_READ_B32 => {
                let v = self.n(Node::Load {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset,
                });
                self.write_v(vdst, v);
            }
            // DS_READ2ST64_B32: ADDR + OFFSET * 4 * 64 (RDNA 2 ISA).
            DS_READ2_B32 | DS_READ2ST64_B32 => {
                let scale = if self.ins.opcode() == DS_READ2ST64_B32 {
                    4 * 64
                } else {
                    4
                };
                let a = self.n(Node::Load {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset: off0 * scale,
                });
                let b = self.n(Node::Load {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset: off1 * scale,
                });
                self.write_v(vdst, a);
                self.write_v(vdst + 1, b);
            }
            _ => return self.ds_more(addr),
        }
        Ok(())
    }
}
