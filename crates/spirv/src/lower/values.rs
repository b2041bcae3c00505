//! Pure values: the code of a value node computed from its operands (`pure`), and the integer, extract and
//! unary operations it is built from. Float primitives are in quirks.rs and crate::exact.

use rdna2spv_ir::{IntCmp, IntOp, Node, Ty, UnOp};
use spirv::Word;

use super::{quirks, Cx, PlantedFault, R};

impl Cx<'_> {
    pub(super) fn pure(&mut self, i: usize, node: &Node) -> R<Word> {
        let t = self.t;
        let ty = self.ty(i);
        let st = self.spv_ty(ty);
        Ok(match *node {
            Node::Const { ty, bits } => match ty {
                Ty::B1 => {
                    if bits != 0 {
                        self.ctrue()
                    } else {
                        self.cfalse()
                    }
                }
                Ty::B64 => self.c64(bits),
                _ => self.c32(bits as u32),
            },
            Node::ReadSgpr { reg, ty } => {
                let lo = self.read_sgpr32(reg as u32)?;
                match ty {
                    Ty::B64 => {
                        let hi = self.read_sgpr32(reg as u32 + 1)?;
                        self.join64(lo, hi)?
                    }
                    Ty::B32 => lo,
                    Ty::B16 => self.mask(lo, 0xffff)?,
                    Ty::B1 => self.bit0(lo)?,
                }
            }
            Node::ReadVgpr { reg, ty } => {
                let lane = self
                    .lane
                    .ok_or_else(|| self.unsupported("VGPR read outside a lane loop"))?;
                let p = self.vgpr_ptr(reg as u32, lane)?;
                let lo = self.load_u32(p)?;
                match ty {
                    Ty::B64 => {
                        let p = self.vgpr_ptr(reg as u32 + 1, lane)?;
                        let hi = self.load_u32(p)?;
                        self.join64(lo, hi)?
                    }
                    Ty::B32 => lo,
                    Ty::B16 => self.mask(lo, 0xffff)?,
                    Ty::B1 => self.bit0(lo)?,
                }
            }
            Node::ReadScc => self.load_bool(self.scc)?,
            Node::LaneId => self
                .lane
                .ok_or_else(|| self.unsupported("lane id outside a lane loop"))?,
            // One invocation per wave: its index in the workgroup is the wave's (D092).
            // The lane mapping knows its invocation's wave (D092).
            Node::WaveId => match &self.lm {
                Some(lm) => lm.wave,
                None => self.wave_in_group,
            },
            Node::CodeBase => match self.code_base {
                Some(v) => v,
                None => self.c64(0),
            },
            Node::Int { op, ty, a, b } => {
                let x = self.get(a)?;
                let y = self.get(b)?;
                let yty = self.ty(b.index());
                self.int_op(op, ty, x, y, yty)?
            }
            Node::IntCmp { op, ty, a, b } => {
                let x = self.get(a)?;
                let y = self.get(b)?;
                self.int_cmp(op, ty, x, y)?
            }
            Node::Float { op, args } => {
                let x = self.get(args[0])?;
                let y = self.get(args[1])?;
                let z = if op.arity() == 3 {
                    self.get(args[2])?
                } else {
                    x
                };
                if let (Some(PlantedFault::DoubleRoundFma { .. }), rdna2spv_ir::FloatOp::F32Fma) =
                    (self.fault_here(), op)
                {
                    let m = quirks::float_op(self, rdna2spv_ir::FloatOp::F32Mul, x, y, x)?;
                    quirks::float_op(self, rdna2spv_ir::FloatOp::F32Add, m, z, m)?
                } else {
                    quirks::float_op(self, op, x, y, z)?
                }
            }
            Node::FloatCmp { op, ty, a, b } => {
                let x = self.get(a)?;
                let y = self.get(b)?;
                quirks::float_cmp(self, op, ty, x, y)?
            }
            Node::Unary { op, ty, a } => {
                let x = self.get(a)?;
                let from = self.ty(a.index());
                self.unary(op, from, ty, x)?
            }
            Node::Select { cond, a, b } => {
                let c = self.get(cond)?;
                let x = self.get(a)?;
                let y = self.get(b)?;
                self.b.select(st, None, c, x, y)?
            }
            Node::Concat { lo, hi } => {
                let l = self.get(lo)?;
                let h = self.get(hi)?;
                self.join64(l, h)?
            }
            Node::Extract { ty, a, shift } => {
                let x = self.get(a)?;
                let from = self.ty(a.index());
                self.extract(x, from, ty, shift as u32)?
            }
            Node::LaneBit { mask } => {
                if self.is_lane(mask) {
                    return Err(self.unsupported("LaneBit of a per-lane mask"));
                }
                if let Some(bit) = self.lane_forwarded_bit(mask) {
                    return Ok(bit);
                }
                let m = self.get(mask)?;
                let lane = self
                    .lane
                    .ok_or_else(|| self.unsupported("LaneBit outside a lane loop"))?;
                let sh = self.b.shift_right_logical(t.u64, None, m, lane)?;
                let one = self.c64(1);
                let bit = self.b.bitwise_and(t.u64, None, sh, one)?;
                self.b.i_equal(t.bool, None, bit, one)?
            }
            Node::Load {
                space,
                access,
                addr,
                offset,
            } => {
                // Uniform load: once for the wave, whatever EXEC says (as the evaluator does).
                let a = self.get(addr)?;
                let aty = self.ty(addr.index());
                self.skip_check = self.proven.contains(&i);
                self.aligned_addr = offset % 4 == 0 && self.dword_aligned_node(addr);
                let v = self.mem_load(space, access, a, aty, offset);
                self.skip_check = false;
                self.aligned_addr = false;
                v?
            }
            _ => return Err(self.unsupported(format!("node {node:?} is not a value here"))),
        })
    }

    /// Launch words `k` and `k + 1` (low, high) read from the launch buffer at `launch_addr`, as a u64.
    pub(super) fn join64(&mut self, lo: Word, hi: Word) -> R<Word> {
        let t = self.t;
        let l = self.b.u_convert(t.u64, None, lo)?;
        let h = self.b.u_convert(t.u64, None, hi)?;
        let c = self.c64(32);
        let hs = self.b.shift_left_logical(t.u64, None, h, c)?;
        Ok(self.b.bitwise_or(t.u64, None, l, hs)?)
    }

    pub(crate) fn mask(&mut self, x: Word, m: u32) -> R<Word> {
        let c = self.c32(m);
        Ok(self.b.bitwise_and(self.t.u32, None, x, c)?)
    }

    pub(super) fn bit0(&mut self, x: Word) -> R<Word> {
        let one = self.c32(1);
        let b = self.b.bitwise_and(self.t.u32, None, x, one)?;
        Ok(self.b.i_equal(self.t.bool, None, b, one)?)
    }

    /// Sign-extends a 16-bit value held in a u32.
    pub(crate) fn sext16(&mut self, x: Word) -> R<Word> {
        let s = self.c32(16);
        let l = self.b.shift_left_logical(self.t.u32, None, x, s)?;
        Ok(self.b.shift_right_arithmetic(self.t.u32, None, l, s)?)
    }

    /// Converts an integer-like value of type `from` to the representation of width `to` (zero-extending
    /// or truncating), for shift amounts.
    pub(super) fn resize(&mut self, x: Word, from: Ty, to: Ty) -> R<Word> {
        let t = self.t;
        Ok(match (from, to) {
            (Ty::B1, Ty::B64) => {
                let (o, z) = (self.c64(1), self.c64(0));
                self.b.select(t.u64, None, x, o, z)?
            }
            (Ty::B1, _) => {
                let (o, z) = (self.c32(1), self.c32(0));
                self.b.select(t.u32, None, x, o, z)?
            }
            (Ty::B64, Ty::B64) => x,
            (Ty::B64, _) => self.b.u_convert(t.u32, None, x)?,
            (_, Ty::B64) => self.b.u_convert(t.u64, None, x)?,
            _ => x,
        })
    }

    pub(super) fn int_op(&mut self, op: IntOp, ty: Ty, a: Word, b: Word, bty: Ty) -> R<Word> {
        let t = self.t;
        if ty == Ty::B1 {
            return Ok(match op {
                IntOp::And | IntOp::MinU | IntOp::MaxI => self.b.logical_and(t.bool, None, a, b)?,
                IntOp::Or | IntOp::MaxU | IntOp::MinI => self.b.logical_or(t.bool, None, a, b)?,
                IntOp::Xor | IntOp::Add | IntOp::Sub => {
                    self.b.logical_not_equal(t.bool, None, a, b)?
                }
                IntOp::Mul => self.b.logical_and(t.bool, None, a, b)?,
                _ => return Err(self.unsupported(format!("{op:?} on B1"))),
            });
        }
        let st = self.spv_ty(ty);
        let bits = ty.bits();
        let narrow = ty == Ty::B16;
        let r = match op {
            IntOp::Add => self.b.i_add(st, None, a, b)?,
            IntOp::Sub => self.b.i_sub(st, None, a, b)?,
            IntOp::Mul => self.b.i_mul(st, None, a, b)?,
            IntOp::And => self.b.bitwise_and(st, None, a, b)?,
            IntOp::Or => self.b.bitwise_or(st, None, a, b)?,
            IntOp::Xor => self.b.bitwise_xor(st, None, a, b)?,
            IntOp::MulHiU | IntOp::MulHiI if narrow => {
                let (x, y) = if op == IntOp::MulHiI {
                    (self.sext16(a)?, self.sext16(b)?)
                } else {
                    (a, b)
                };
                let p = self.b.i_mul(st, None, x, y)?;
                let s = self.c32(16);
                if op == IntOp::MulHiI {
                    self.b.shift_right_arithmetic(st, None, p, s)?
                } else {
                    self.b.shift_right_logical(st, None, p, s)?
                }
            }
            IntOp::MulHiU | IntOp::MulHiI => {
                let pair = self.b.type_struct([st, st]);
                let r = if op == IntOp::MulHiU {
                    self.b.u_mul_extended(pair, None, a, b)?
                } else {
                    self.b.s_mul_extended(pair, None, a, b)?
                };
                self.b.composite_extract(st, None, r, [1])?
            }
            IntOp::Shl | IntOp::LShr | IntOp::AShr => {
                let amt = self.resize(b, bty, ty)?;
                let m = if ty == Ty::B64 {
                    self.c64(63)
                } else {
                    self.c32(bits - 1)
                };
                let amt = self.b.bitwise_and(st, None, amt, m)?;
                match op {
                    IntOp::Shl => self.b.shift_left_logical(st, None, a, amt)?,
                    IntOp::LShr => self.b.shift_right_logical(st, None, a, amt)?,
                    _ => {
                        let x = if narrow { self.sext16(a)? } else { a };
                        self.b.shift_right_arithmetic(st, None, x, amt)?
                    }
                }
            }
            IntOp::MinU | IntOp::MaxU | IntOp::MinI | IntOp::MaxI => {
                let signed = matches!(op, IntOp::MinI | IntOp::MaxI);
                let (x, y) = if signed && narrow {
                    (self.sext16(a)?, self.sext16(b)?)
                } else {
                    (a, b)
                };
                let lt = if signed {
                    self.b.s_less_than(t.bool, None, x, y)?
                } else {
                    self.b.u_less_than(t.bool, None, x, y)?
                };
                if matches!(op, IntOp::MinU | IntOp::MinI) {
                    self.b.select(st, None, lt, a, b)?
                } else {
                    self.b.select(st, None, lt, b, a)?
                }
            }
        };
        if narrow {
            self.mask(r, 0xffff)
        } else {
            Ok(r)
        }
    }

    pub(super) fn int_cmp(&mut self, op: IntCmp, ty: Ty, a: Word, b: Word) -> R<Word> {
        let t = self.t.bool;
        if ty == Ty::B1 {
            return Ok(match op {
                IntCmp::Eq => self.b.logical_equal(t, None, a, b)?,
                IntCmp::Ne => self.b.logical_not_equal(t, None, a, b)?,
                _ => return Err(self.unsupported(format!("{op:?} on B1"))),
            });
        }
        let signed = matches!(op, IntCmp::LtI | IntCmp::LeI | IntCmp::GtI | IntCmp::GeI);
        let (a, b) = if signed && ty == Ty::B16 {
            (self.sext16(a)?, self.sext16(b)?)
        } else {
            (a, b)
        };
        Ok(match op {
            IntCmp::Eq => self.b.i_equal(t, None, a, b)?,
            IntCmp::Ne => self.b.i_not_equal(t, None, a, b)?,
            IntCmp::LtU => self.b.u_less_than(t, None, a, b)?,
            IntCmp::LeU => self.b.u_less_than_equal(t, None, a, b)?,
            IntCmp::GtU => self.b.u_greater_than(t, None, a, b)?,
            IntCmp::GeU => self.b.u_greater_than_equal(t, None, a, b)?,
            IntCmp::LtI => self.b.s_less_than(t, None, a, b)?,
            IntCmp::LeI => self.b.s_less_than_equal(t, None, a, b)?,
            IntCmp::GtI => self.b.s_greater_than(t, None, a, b)?,
            IntCmp::GeI => self.b.s_greater_than_equal(t, None, a, b)?,
        })
    }

    pub(super) fn extract(&mut self, x: Word, from: Ty, ty: Ty, shift: u32) -> R<Word> {
        let t = self.t;
        let st = self.spv_ty(from);
        let shifted = if shift == 0 || from == Ty::B1 {
            x
        } else if from == Ty::B64 {
            let s = self.c64(shift as u64);
            self.b.shift_right_logical(st, None, x, s)?
        } else {
            let s = self.c32(shift);
            self.b.shift_right_logical(st, None, x, s)?
        };
        if from == ty {
            return Ok(shifted);
        }
        let narrowed = if from == Ty::B64 && ty != Ty::B64 {
            self.b.u_convert(t.u32, None, shifted)?
        } else {
            shifted
        };
        match ty {
            Ty::B1 => {
                if from == Ty::B1 {
                    Ok(x)
                } else {
                    self.bit0(narrowed)
                }
            }
            Ty::B16 => self.mask(narrowed, 0xffff),
            _ => Ok(narrowed),
        }
    }

    pub(super) fn unary(&mut self, op: UnOp, from: Ty, to: Ty, x: Word) -> R<Word> {
        let t = self.t;
        let st = self.spv_ty(to);
        Ok(match op {
            UnOp::Not => match to {
                Ty::B1 => self.b.logical_not(t.bool, None, x)?,
                Ty::B16 => {
                    let n = self.b.not(t.u32, None, x)?;
                    self.mask(n, 0xffff)?
                }
                _ => self.b.not(st, None, x)?,
            },
            UnOp::ZExt | UnOp::Trunc => {
                if from == Ty::B1 {
                    self.resize(x, Ty::B1, to)?
                } else if to == Ty::B1 {
                    let x32 = self.resize(x, from, Ty::B32)?;
                    self.bit0(x32)?
                } else {
                    let r = self.resize(x, from, to)?;
                    if to == Ty::B16 && from != Ty::B16 {
                        self.mask(r, 0xffff)?
                    } else {
                        r
                    }
                }
            }
            UnOp::SExt => {
                let v = match from {
                    Ty::B1 => {
                        let m = if to == Ty::B64 {
                            self.c64(u64::MAX)
                        } else {
                            self.c32(to.mask() as u32)
                        };
                        let z = self.zero_of(st);
                        return Ok(self.b.select(st, None, x, m, z)?);
                    }
                    Ty::B16 => self.sext16(x)?,
                    _ => x,
                };
                let wide = if to == Ty::B64 && from != Ty::B64 {
                    self.b.s_convert(t.u64, None, v)?
                } else if from == Ty::B64 && to != Ty::B64 {
                    self.b.u_convert(t.u32, None, v)?
                } else {
                    v
                };
                match to {
                    Ty::B16 => self.mask(wide, 0xffff)?,
                    Ty::B1 => self.bit0(wide)?,
                    _ => wide,
                }
            }
            UnOp::Popcount => {
                let c = match from {
                    Ty::B1 => self.resize(x, Ty::B1, Ty::B32)?,
                    Ty::B64 => {
                        let lo = self.b.u_convert(t.u32, None, x)?;
                        let s = self.c64(32);
                        let hi = self.b.shift_right_logical(t.u64, None, x, s)?;
                        let hi = self.b.u_convert(t.u32, None, hi)?;
                        let a = self.b.bit_count(t.u32, None, lo)?;
                        let b = self.b.bit_count(t.u32, None, hi)?;
                        self.b.i_add(t.u32, None, a, b)?
                    }
                    _ => self.b.bit_count(t.u32, None, x)?,
                };
                match to {
                    Ty::B64 => self.b.u_convert(t.u64, None, c)?,
                    Ty::B1 => self.bit0(c)?,
                    Ty::B16 => self.mask(c, 0xffff)?,
                    Ty::B32 => c,
                }
            }
            UnOp::FNeg | UnOp::FAbs => {
                let sign = 1u64 << (to.bits() - 1);
                let (m, wide) = match to {
                    Ty::B64 => (self.c64(sign), true),
                    _ => (self.c32(sign as u32), false),
                };
                let _ = wide;
                if op == UnOp::FNeg {
                    self.b.bitwise_xor(st, None, x, m)?
                } else {
                    let nm = self.b.not(st, None, m)?;
                    let r = self.b.bitwise_and(st, None, x, nm)?;
                    if to == Ty::B16 {
                        self.mask(r, 0xffff)?
                    } else {
                        r
                    }
                }
            }
            UnOp::Flush => self.flush_bits(to, x)?,
            _ => quirks::convert(self, op, x)?,
        })
    }
}
