//! M0-relative register indexing (D100): s_movrels/s_movreld_b32/b64, s_movrelsd_2_b32, v_movrels/
//! v_movreld/v_movrelsd/v_movrelsd_2_b32 and v_swaprel_b32.
//!
//! The register number is the instruction's register field plus an index from M0 (AMD RDNA 2 ISA guide,
//! SOP1/VOP1 opcode descriptions): all of M0 (unsigned, 32 bits) for the movrels/movreld/movrelsd forms;
//! for the `_2` forms and v_swaprel_b32 the source index is M0[9:0] and the destination index M0[25:16].
//! Out of range (the ISA's "Out-of-Range behavior": index at or past the wave's register count) a source
//! reads register 0 (s0/s[0:1], v0) and a destination is not written — for a VALU instruction the whole
//! instruction is ignored, so v_swaprel_b32 with either index out of range changes nothing.
//! The wave's SGPRs are s0–s105 (gfx10: VCC, M0, EXEC are not indexable SGPRs); its VGPRs are the
//! descriptor's allocation ([`super::LiftExtras::vgpr_count`]), or all 256 when it is not known.
//!
//! Lifted as exact selects over the registers in range, read before any write: a read is a chain of
//! `index == r ? reg[r] : …` ending in register 0; a write rewrites every register in range with
//! `index == r ? value : reg[r]`. No new IR primitive: the evaluator and every lowering run it as they run
//! any select (the SPIR-V lowering thus emits a bounded select over the allocated registers).

use super::{LiftError, Lifter, Src};
use crate::{Handle, IntCmp, IntOp, Node, Ty, UnOp, M0};
use rdna2spv_isa::{Format, Opcode, Variant};

/// s0–s105.
const SGPR_SIZE: u32 = 106;

/// Which index of M0 an operand uses.
#[derive(Clone, Copy)]
enum Index {
    /// M0[31:0].
    Full,
    /// M0[9:0] (the `_2` forms' and v_swaprel's source).
    Src10,
    /// M0[25:16] (their destination).
    Dst10,
}

impl Lifter<'_> {
    /// Lifts the M0-relative instructions; Ok(false) for any other opcode.
    pub(super) fn movrel(&mut self) -> Result<bool, LiftError> {
        use Opcode::*;
        let op = self.ins.opcode();
        let scalar = matches!(
            op,
            S_MOVRELS_B32 | S_MOVRELS_B64 | S_MOVRELD_B32 | S_MOVRELD_B64 | S_MOVRELSD_2_B32
        );
        let vector = matches!(
            op,
            V_MOVRELS_B32 | V_MOVRELD_B32 | V_MOVRELSD_B32 | V_MOVRELSD_2_B32 | V_SWAPREL_B32
        );
        if !scalar && !vector {
            return Ok(false);
        }
        if scalar {
            self.smovrel(op)?;
        } else {
            self.vmovrel(op)?;
        }
        Ok(true)
    }

    /// `base + index` as B64 (no wrap-around: a large M0 is simply out of range).
    fn rel_index(&mut self, base: u32, which: Index) -> Handle<Node> {
        let m0 = self.read_s(M0, Ty::B32);
        let i = match which {
            Index::Full => m0,
            Index::Src10 => {
                let m = self.c(Ty::B32, 0x3ff);
                self.int(IntOp::And, Ty::B32, m0, m)
            }
            Index::Dst10 => {
                let s = self.c(Ty::B32, 16);
                let sh = self.int(IntOp::LShr, Ty::B32, m0, s);
                let m = self.c(Ty::B32, 0x3ff);
                self.int(IntOp::And, Ty::B32, sh, m)
            }
        };
        let i = self.un(UnOp::ZExt, Ty::B64, i);
        let b = self.c(Ty::B64, base as u64);
        self.int(IntOp::Add, Ty::B64, i, b)
    }

    fn index_is(&mut self, idx: Handle<Node>, r: u32) -> Handle<Node> {
        let c = self.c(Ty::B64, r as u64);
        self.icmp(IntCmp::Eq, Ty::B64, idx, c)
    }

    /// Register `idx` of a file of `size` registers, `words` wide; register 0 when out of range.
    fn rel_read(&mut self, vgpr: bool, idx: Handle<Node>, size: u32, words: u32) -> Handle<Node> {
        let ty = if words == 2 { Ty::B64 } else { Ty::B32 };
        let read = |l: &mut Self, r: u32| {
            if vgpr {
                l.n(Node::ReadVgpr { reg: r as u16, ty })
            } else {
                l.read_s(r as u16, ty)
            }
        };
        let mut acc = read(self, 0);
        for r in (0..=size.saturating_sub(words)).rev() {
            let hit = self.index_is(idx, r);
            let v = read(self, r);
            acc = self.n(Node::Select {
                cond: hit,
                a: v,
                b: acc,
            });
        }
        acc
    }

    /// The new value of every register of a file of `size` after writing `value` (`words` wide) at
    /// `idx` when `enable` (None: always): (register, value) pairs, read before anything is written.
    fn rel_write_values(
        &mut self,
        vgpr: bool,
        idx: Handle<Node>,
        size: u32,
        words: u32,
        value: Handle<Node>,
        enable: Option<Handle<Node>>,
    ) -> Vec<(u32, Handle<Node>)> {
        let parts: Vec<Handle<Node>> = if words == 2 {
            vec![
                self.n(Node::Extract {
                    ty: Ty::B32,
                    a: value,
                    shift: 0,
                }),
                self.n(Node::Extract {
                    ty: Ty::B32,
                    a: value,
                    shift: 32,
                }),
            ]
        } else {
            vec![value]
        };
        let mut out = Vec::new();
        for r in 0..size {
            let mut v = if vgpr {
                self.n(Node::ReadVgpr {
                    reg: r as u16,
                    ty: Ty::B32,
                })
            } else {
                self.read_s(r as u16, Ty::B32)
            };
            // Dword k of the value lands in r when idx == r - k and the whole value is in range.
            for (k, &part) in parts.iter().enumerate() {
                let k = k as u32;
                if r < k || r - k + words > size {
                    continue;
                }
                let mut hit = self.index_is(idx, r - k);
                if let Some(e) = enable {
                    hit = self.int(IntOp::And, Ty::B1, hit, e);
                }
                v = self.n(Node::Select {
                    cond: hit,
                    a: part,
                    b: v,
                });
            }
            out.push((r, v));
        }
        out
    }

    /// Whether `idx` + `words` stays within `size` registers (B1).
    fn in_range(&mut self, idx: Handle<Node>, size: u32, words: u32) -> Handle<Node> {
        let lim = self.c(Ty::B64, (size - words) as u64);
        self.icmp(IntCmp::LeU, Ty::B64, idx, lim)
    }

    fn smovrel(&mut self, op: Opcode) -> Result<(), LiftError> {
        use Opcode::*;
        let w0 = self.w(0);
        let sdst = w0 >> 16 & 0x7f;
        let ssrc0 = w0 & 0xff;
        let words = if matches!(op, S_MOVRELS_B64 | S_MOVRELD_B64) {
            2
        } else {
            1
        };
        let reads_rel = matches!(op, S_MOVRELS_B32 | S_MOVRELS_B64 | S_MOVRELSD_2_B32);
        if reads_rel && ssrc0 > 127 {
            return self.unsupported("the indexed source of an M0-relative move must be an SGPR");
        }
        match op {
            S_MOVRELS_B32 | S_MOVRELS_B64 => {
                let idx = self.rel_index(ssrc0, Index::Full);
                let v = self.rel_read(false, idx, SGPR_SIZE, words);
                self.write_s(sdst as u16, v);
            }
            S_MOVRELD_B32 | S_MOVRELD_B64 => {
                let class = if words == 2 { Src::I64 } else { Src::B32 };
                let v = self.src(ssrc0, class)?;
                let idx = self.rel_index(sdst, Index::Full);
                for (r, nv) in self.rel_write_values(false, idx, SGPR_SIZE, words, v, None) {
                    self.write_s(r as u16, nv);
                }
            }
            _ => {
                // S_MOVRELSD_2_B32
                let si = self.rel_index(ssrc0, Index::Src10);
                let v = self.rel_read(false, si, SGPR_SIZE, 1);
                let di = self.rel_index(sdst, Index::Dst10);
                for (r, nv) in self.rel_write_values(false, di, SGPR_SIZE, 1, v, None) {
                    self.write_s(r as u16, nv);
                }
            }
        }
        Ok(())
    }

    fn vmovrel(&mut self, op: Opcode) -> Result<(), LiftError> {
        use Opcode::*;
        if self.ins.variant != Variant::Plain {
            return self.unsupported(
                "the DPP and SDWA forms of the M0-relative moves are not modelled (D100)",
            );
        }
        let (w0, w1) = (self.w(0), self.w(1));
        let (src0, vdst) = match self.ins.format() {
            Format::VOP1 => (w0 & 0x1ff, w0 >> 17 & 0xff),
            _ => (w1 & 0x1ff, w0 & 0xff),
        };
        let size = self.ext.vgpr_count.unwrap_or(256).clamp(1, 256);
        let rel_src = op != V_MOVRELD_B32;
        if rel_src && !(256..512).contains(&src0) {
            return self.unsupported("the indexed source of an M0-relative move must be a VGPR");
        }
        let vsrc = src0.wrapping_sub(256);
        let write = |l: &mut Self, vals: Vec<(u32, Handle<Node>)>| {
            for (r, v) in vals {
                l.n(Node::WriteVgpr {
                    reg: r as u16,
                    value: v,
                });
            }
        };
        match op {
            V_MOVRELS_B32 => {
                let idx = self.rel_index(vsrc, Index::Full);
                let v = self.rel_read(true, idx, size, 1);
                self.n(Node::WriteVgpr {
                    reg: vdst as u16,
                    value: v,
                });
            }
            V_MOVRELD_B32 => {
                let v = self.src(src0, Src::B32)?;
                let idx = self.rel_index(vdst, Index::Full);
                let vals = self.rel_write_values(true, idx, size, 1, v, None);
                write(self, vals);
            }
            V_MOVRELSD_B32 | V_MOVRELSD_2_B32 => {
                let (si, di) = if op == V_MOVRELSD_B32 {
                    (Index::Full, Index::Full)
                } else {
                    (Index::Src10, Index::Dst10)
                };
                let s = self.rel_index(vsrc, si);
                let v = self.rel_read(true, s, size, 1);
                let d = self.rel_index(vdst, di);
                let vals = self.rel_write_values(true, d, size, 1, v, None);
                write(self, vals);
            }
            _ => {
                // V_SWAPREL_B32: both registers are written; with either out of range nothing is.
                let s = self.rel_index(vsrc, Index::Src10);
                let d = self.rel_index(vdst, Index::Dst10);
                let sv = self.rel_read(true, s, size, 1);
                let dv = self.rel_read(true, d, size, 1);
                let s_ok = self.in_range(s, size, 1);
                let d_ok = self.in_range(d, size, 1);
                let both = self.int(IntOp::And, Ty::B1, s_ok, d_ok);
                // Every register's new value: the destination gets the source's value, then the source
                // the destination's (when they are one register, it keeps its value either way).
                let mut vals = self.rel_write_values(true, d, size, 1, sv, Some(both));
                for (r, v) in vals.iter_mut() {
                    let hit = self.index_is(s, *r);
                    let hit = self.int(IntOp::And, Ty::B1, hit, both);
                    *v = self.n(Node::Select {
                        cond: hit,
                        a: dv,
                        b: *v,
                    });
                }
                write(self, vals);
            }
        }
        Ok(())
    }
}
