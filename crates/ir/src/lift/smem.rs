//! Scalar memory beyond `s_load_dword*` (`Lifter::smem`): buffer loads and stores through a V#, scalar
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
//! `s_scratch_*` are refused: they address FLAT_SCRATCH's linear view, which this runtime does not set.

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
            S_SCRATCH_LOAD_DWORD
            | S_SCRATCH_LOAD_DWORDX2
            | S_SCRATCH_LOAD_DWORDX4
            | S_SCRATCH_STORE_DWORD
            | S_SCRATCH_STORE_DWORDX2
            | S_SCRATCH_STORE_DWORDX4 => {
                return self.unsupported(
                    "scalar scratch accesses address FLAT_SCRATCH's linear view of the scratch region, which this runtime does not model (D069)",
                )
            }
            _ => return Ok(false),
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
