//! Scalar memory: `Lifter::smem` (the family's entry: `s_load_dword*`) and the forms beyond it: buffer loads and stores through a V#, scalar
//! stores (gfx1010/gfx1013), and the clocks (decision D069).
//!
//! Addressing (RDNA 2 ISA guide, "Scalar memory operations"): `s_buffer_*` take the V# in the SGPR quad
//! `s[sbase*2 .. sbase*2+3]` and address `BASE[47:0] + offset + (soffset SGPR)`; `s_load`/`s_store` take a
//! 64-bit SGPR pair. The offset is the 21-bit signed immediate; the two low address bits are ignored (scalar
//! memory is dword addressed). The scalar unit executes once for the wave, whatever EXEC holds: the loads
//! and stores are Uniform (`Node::Load`/`Node::Store` with a Uniform address).
//!
//! Not modelled (D069): the scalar buffer range check (NUM_RECORDS); an access outside every allocation
//! faults on the host evaluator, which names it, as general V#s do for MUBUF in raw binaries (D051).
//!
//! Scalar atomics (`s_atomic_*`, `s_buffer_atomic_*`, gfx1010/gfx1013) are one `Node::Atomic` with Uniform
//! operands: performed once for the wave whatever EXEC holds (decision D092). `s_scratch_*` address the
//! wave's scratch region linearly (unswizzled) with FLAT_SCRATCH = 0, as D070 takes it for SCRATCH
//! instructions (D092).

use super::{LiftError, Lifter, Src};
use crate::{Access, Handle, IntOp, Node, Space, Ty, UnOp};
use rdna2spv_isa::Opcode;

type H = Handle<Node>;

impl Lifter<'_> {
    /// The dword addresses (B64, Uniform) of `n` dwords from the scalar address `base` + the instruction's
    /// immediate offset and soffset.
    fn smem_addrs(&mut self, base: H, n: u16) -> Result<Vec<H>, LiftError> {
        let w1 = self.w(1);
        let offset = ((w1 & 0x1f_ffff) as i64) << 43 >> 43;
        let soffset = w1 >> 25;
        let addr = if soffset != 125 {
            let so = self.src(soffset, Src::B32)?;
            let so64 = self.un(UnOp::ZExt, Ty::B64, so);
            self.int(IntOp::Add, Ty::B64, base, so64)
        } else {
            base
        };
        let mask = self.c(Ty::B64, !3u64);
        Ok((0..n)
            .map(|i| {
                let off = self.c(Ty::B64, (offset + 4 * i as i64) as u64);
                let a = self.int(IntOp::Add, Ty::B64, addr, off);
                self.int(IntOp::And, Ty::B64, a, mask)
            })
            .collect())
    }

    /// Lifts the scalar memory forms handled here; false for others.
    pub(super) fn smem_ext(&mut self) -> Result<bool, LiftError> {
        use Opcode::*;
        let op = self.ins.opcode();
        let w0 = self.w(0);
        let sbase = ((w0 & 0x3f) * 2) as u16;
        let sdata = ((w0 >> 6) & 0x7f) as u16;
        let (buffer, load, n) = match op {
            S_BUFFER_LOAD_DWORD => (true, true, 1),
            S_BUFFER_LOAD_DWORDX2 => (true, true, 2),
            S_BUFFER_LOAD_DWORDX4 => (true, true, 4),
            S_BUFFER_LOAD_DWORDX8 => (true, true, 8),
            S_BUFFER_LOAD_DWORDX16 => (true, true, 16),
            S_BUFFER_STORE_DWORD => (true, false, 1),
            S_BUFFER_STORE_DWORDX2 => (true, false, 2),
            S_BUFFER_STORE_DWORDX4 => (true, false, 4),
            S_STORE_DWORD => (false, false, 1),
            S_STORE_DWORDX2 => (false, false, 2),
            S_STORE_DWORDX4 => (false, false, 4),
            S_MEMTIME | S_MEMREALTIME => {
                // D069: a deterministic translator has no clock to read; both backends return 0.
                let z = self.c(Ty::B32, 0);
                self.write_s(sdata, z);
                self.write_s(sdata + 1, z);
                return Ok(true);
            }
            S_SCRATCH_LOAD_DWORD => return self.smem_scratch(true, 1),
            S_SCRATCH_LOAD_DWORDX2 => return self.smem_scratch(true, 2),
            S_SCRATCH_LOAD_DWORDX4 => return self.smem_scratch(true, 4),
            S_SCRATCH_STORE_DWORD => return self.smem_scratch(false, 1),
            S_SCRATCH_STORE_DWORDX2 => return self.smem_scratch(false, 2),
            S_SCRATCH_STORE_DWORDX4 => return self.smem_scratch(false, 4),
            S_GET_WAVEID_IN_WORKGROUP => {
                // D092: the wave's index in its workgroup (waves in work-item order).
                let w = self.n(Node::WaveId);
                self.write_s(sdata, w);
                return Ok(true);
            }
            _ => return self.smem_atomic(),
        };
        // Reads first: the base (V# words 0 and 1, or the pair), the data.
        let base = if buffer {
            let d0 = self.read_s(sbase, Ty::B32);
            let d1 = self.read_s(sbase + 1, Ty::B32);
            let m = self.c(Ty::B32, 0xffff);
            let hi = self.int(IntOp::And, Ty::B32, d1, m);
            self.n(Node::Concat { lo: d0, hi })
        } else {
            self.read_s(sbase, Ty::B64)
        };
        let data: Vec<H> = if load {
            Vec::new()
        } else {
            (0..n).map(|i| self.read_s(sdata + i, Ty::B32)).collect()
        };
        let addrs = self.smem_addrs(base, n)?;
        if load {
            let vals: Vec<H> = addrs
                .into_iter()
                .map(|addr| {
                    self.n(Node::Load {
                        space: Space::Global,
                        access: Access::B32,
                        addr,
                        offset: 0,
                    })
                })
                .collect();
            for (i, v) in vals.into_iter().enumerate() {
                self.write_s(sdata + i as u16, v);
            }
        } else {
            for (addr, value) in addrs.into_iter().zip(data) {
                self.n(Node::Store {
                    space: Space::Global,
                    access: Access::B32,
                    addr,
                    offset: 0,
                    value,
                });
            }
        }
        Ok(true)
    }
}

impl Lifter<'_> {
    /// `s_scratch_load/store_dword*` (D092): `n` dwords at the unswizzled region byte address
    /// `(s[sbase] + soffset + offset21s) & !3` (the low dword of the base pair; FLAT_SCRATCH = 0 as in D070),
    /// consecutive dwords consecutive in the region. Uniform: once for the wave.
    fn smem_scratch(&mut self, load: bool, n: u16) -> Result<bool, LiftError> {
        let (w0, w1) = (self.w(0), self.w(1));
        let sbase = ((w0 & 0x3f) * 2) as u16;
        let sdata = ((w0 >> 6) & 0x7f) as u16;
        let offset = ((w1 & 0x1f_ffff) as i64) << 43 >> 43;
        let soffset = w1 >> 25;
        let base = self.read_s(sbase, Ty::B32);
        let data: Vec<H> = if load {
            Vec::new()
        } else {
            (0..n).map(|i| self.read_s(sdata + i, Ty::B32)).collect()
        };
        let addr = if soffset != 125 {
            let so = self.src(soffset, Src::B32)?;
            self.int(IntOp::Add, Ty::B32, base, so)
        } else {
            base
        };
        let off = self.c(Ty::B32, offset as u64 & 0xffff_ffff);
        let addr = self.int(IntOp::Add, Ty::B32, addr, off);
        let mask = self.c(Ty::B32, !3u32 as u64);
        let addr = self.int(IntOp::And, Ty::B32, addr, mask);
        if load {
            let vals: Vec<H> = (0..n)
                .map(|i| {
                    self.n(Node::Load {
                        space: Space::Scratch,
                        access: Access::B32,
                        addr,
                        offset: 4 * i as i64,
                    })
                })
                .collect();
            for (i, v) in vals.into_iter().enumerate() {
                self.write_s(sdata + i as u16, v);
            }
        } else {
            for (i, value) in data.into_iter().enumerate() {
                self.n(Node::Store {
                    space: Space::Scratch,
                    access: Access::B32,
                    addr,
                    offset: 4 * i as i64,
                    value,
                });
            }
        }
        Ok(true)
    }

    /// `s_atomic_*` (64-bit address in the SGPR pair) and `s_buffer_atomic_*` (the V# quad's base), D092:
    /// one Uniform `Node::Atomic` at the scalar address (+ soffset + offset21s, the dword, or for `_x2` the
    /// naturally aligned qword, holding it), DATA in sdata (a pair for `_x2`); cmpswap takes `{src, cmp}`
    /// as the vector forms do. glc returns the pre-op value in sdata. False for other opcodes.
    fn smem_atomic(&mut self) -> Result<bool, LiftError> {
        let name = self.ins.opcode().name();
        let (buffer, rest) = match name
            .strip_prefix("s_buffer_atomic_")
            .map(|r| (true, r))
            .or_else(|| name.strip_prefix("s_atomic_").map(|r| (false, r)))
        {
            Some(x) => x,
            None => return Ok(false),
        };
        let Some((op, wide)) = super::atomic::vmem_form(rest) else {
            return Ok(false);
        };
        let w0 = self.w(0);
        let sbase = ((w0 & 0x3f) * 2) as u16;
        let sdata = ((w0 >> 6) & 0x7f) as u16;
        let glc = w0 >> 16 & 1 != 0;
        let base = if buffer {
            let d0 = self.read_s(sbase, Ty::B32);
            let d1 = self.read_s(sbase + 1, Ty::B32);
            let m = self.c(Ty::B32, 0xffff);
            let hi = self.int(IntOp::And, Ty::B32, d1, m);
            self.n(Node::Concat { lo: d0, hi })
        } else {
            self.read_s(sbase, Ty::B64)
        };
        let ty = if wide { Ty::B64 } else { Ty::B32 };
        let value = self.read_s(sdata, ty);
        let data1 = op
            .two_data()
            .then(|| self.read_s(sdata + if wide { 2 } else { 1 }, ty));
        let addr = self.smem_addrs(base, 1)?[0];
        let old = self.n(Node::Atomic {
            space: Space::Global,
            op,
            addr,
            offset: 0,
            value,
            data1,
        });
        if glc {
            self.write_s(sdata, old);
        }
        Ok(true)
    }
}

impl Lifter<'_> {
    pub(super) fn smem(&mut self) -> Result<(), LiftError> {
        let w0 = self.w(0);
        let w1 = self.w(1);
        let dwords = match self.ins.opcode() {
            Opcode::S_LOAD_DWORD => 1,
            Opcode::S_LOAD_DWORDX2 => 2,
            Opcode::S_LOAD_DWORDX4 => 4,
            Opcode::S_LOAD_DWORDX8 => 8,
            Opcode::S_LOAD_DWORDX16 => 16,
            _ => {
                // Cache maintenance: lift/salu.rs.
                if self.smem_more()? {
                    return Ok(());
                }
                // Buffer loads/stores, scalar stores, clocks: lift/smem.rs.
                if self.smem_ext()? {
                    return Ok(());
                }
                return self.unsupported("scalar memory instruction not lifted yet");
            }
        };
        let sbase = ((w0 & 0x3f) * 2) as u16;
        let sdata = ((w0 >> 6) & 0x7f) as u16;
        let offset = ((w1 & 0x1f_ffff) as i64) << 43 >> 43;
        let soffset = w1 >> 25;
        let base = self.read_s(sbase, Ty::B64);
        let addr = if soffset != 125 {
            let so = self.src(soffset, Src::B32)?;
            let so64 = self.un(UnOp::ZExt, Ty::B64, so);
            self.int(IntOp::Add, Ty::B64, base, so64)
        } else {
            base
        };
        let addr = self.address32_window(addr);
        // The address is dword aligned (the low two bits are ignored).
        let mask = self.c(Ty::B64, !3u64);
        let vals: Vec<_> = (0..dwords)
            .map(|i| {
                let off = self.c(Ty::B64, (offset + 4 * i as i64) as u64);
                let a = self.int(IntOp::Add, Ty::B64, addr, off);
                let a = self.int(IntOp::And, Ty::B64, a, mask);
                self.n(Node::Load {
                    space: Space::Global,
                    access: Access::B32,
                    addr: a,
                    offset: 0,
                })
            })
            .collect();
        for (i, v) in vals.into_iter().enumerate() {
            self.write_s(sdata + i as u16, v);
        }
        Ok(())
    }
}
