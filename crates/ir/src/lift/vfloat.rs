//! Float VALU instructions written as compositions of exact IR (issue 5, part B; decision D025).
//!
//! Rounding to an integer, fract, ldexp, frexp, min/max/med3, class tests and the f64 ↔ f32/i32/u32
//! conversions are spelt out here in integer IR (bit fields, shifts, compares, selects) around at most
//! one correctly rounded float primitive (`F64Add`, `F32Add`, `F16Add`). The host evaluator and every
//! device lowering therefore compute them identically without new primitives and without trusting a
//! driver's rounding-to-integer, conversion or min/max instructions (lavapipe's float→int conversions
//! already return x86 values, ../shared/DESIGN.md). One generic [`Fmt`] serves f16 (held in a B32,
//! high half zero), f32 and f64.
//!
//! RDNA rules modelled (IEEE mode on, as clang's compute kernels run; D013 for clamp/omod):
//! * NaN results are D005's default quiet NaN;
//! * min/max/min3/max3/med3 are IEEE-754-2008 minNum/maxNum with −0 < +0 and a signalling NaN operand
//!   giving a quiet NaN (the hardware's IEEE-mode behaviour that LLVM models as fminnum_ieee);
//! * float→int conversions truncate, saturate and map NaN to 0;
//! * v_fract is min(x − floor(x), the largest float below 1) (LLVM's constant folding of
//!   llvm.amdgcn.fract), NaN for ±inf;
//! * v_frexp_mant(±inf) = ±inf, v_frexp_exp(±inf or NaN) = 0, frexp of ±0 is ±0 and 0;
//! * ldexp rounds once (to nearest even) where the result is subnormal, overflows to ±inf.

use super::{LiftError, Lifter, Src};
use crate::{FloatCmp, FloatOp, Handle, IntCmp, IntOp, Node, Ty, UnOp};
use rdna2spv_isa::{CmpRel, CmpType, Format, Opcode};

type H = Handle<Node>;

/// A binary float format held in an integer container (`ty`): f16 lives in a B32 with the high half 0.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Fmt {
    ty: Ty,
    bits: u32,
    man: u32,
}

pub(super) const F16: Fmt = Fmt {
    ty: Ty::B32,
    bits: 16,
    man: 10,
};
pub(super) const F32: Fmt = Fmt {
    ty: Ty::B32,
    bits: 32,
    man: 23,
};
pub(super) const F64: Fmt = Fmt {
    ty: Ty::B64,
    bits: 64,
    man: 52,
};

impl Fmt {
    fn emax(self) -> u64 {
        (1 << (self.bits - 1 - self.man)) - 1
    }
    fn bias(self) -> u64 {
        self.emax() >> 1
    }
    fn sign(self) -> u64 {
        1 << (self.bits - 1)
    }
    fn inf(self) -> u64 {
        self.emax() << self.man
    }
    /// The width's default NaN (`crate::quirks`).
    fn qnan(self) -> u64 {
        match self.bits {
            16 => crate::quirks::F16_DEFAULT_NAN.into(),
            32 => crate::quirks::F32_DEFAULT_NAN.into(),
            _ => crate::quirks::F64_DEFAULT_NAN,
        }
    }
    fn one(self) -> u64 {
        self.bias() << self.man
    }
    fn manmask(self) -> u64 {
        (1 << self.man) - 1
    }
    /// The type float comparisons take.
    fn cmp_ty(self) -> Ty {
        match self.bits {
            16 => Ty::B16,
            32 => Ty::B32,
            _ => Ty::B64,
        }
    }
}

/// Rounding to an integral value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Rnd {
    Trunc,
    Floor,
    Ceil,
    Even,
}

/// The operand fields of a VALU instruction, normalised across encodings.
pub(super) struct Ops {
    pub f: Format,
    pub s0: u32,
    pub s1: u32,
    pub s2: u32,
    pub vdst: u16,
    pub opsel: u32,
    pub abs: u32,
    pub neg: u32,
    pub clamp: bool,
}

/// The ops of this module whose VOP3 clamp bit is lifted (float results; omod is ignored as in D013).
pub(super) fn takes_clamp(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        V_ADD_F64
            | V_MUL_F64
            | V_MIN_F64
            | V_MAX_F64
            | V_LDEXP_F64
            | V_FREXP_MANT_F64
            | V_FRACT_F64
            | V_TRUNC_F64
            | V_CEIL_F64
            | V_FLOOR_F64
            | V_RNDNE_F64
            | V_CVT_F64_F32
            | V_CVT_F64_I32
            | V_CVT_F64_U32
            | V_CVT_F32_F64
            | V_TRUNC_F32
            | V_CEIL_F32
            | V_FLOOR_F32
            | V_RNDNE_F32
            | V_FRACT_F32
            | V_LDEXP_F32
            | V_FREXP_MANT_F32
            | V_MIN3_F32
            | V_MAX3_F32
            | V_MED3_F32
            | V_TRUNC_F16
            | V_CEIL_F16
            | V_FLOOR_F16
            | V_RNDNE_F16
            | V_FRACT_F16
            | V_FREXP_MANT_F16
            | V_MIN_F32
            | V_MAX_F32
            | V_MIN_F16
            | V_MAX_F16
            | V_SUB_F16
            | V_SUBREV_F16
            | V_LDEXP_F16
            | V_MIN3_F16
            | V_MAX3_F16
            | V_MED3_F16
            | V_CVT_F32_F16
            | V_CVT_F16_F32
    )
}

/// The float compare of a VOPC relation (`None`: an integer-only relation or the class test).
pub(super) fn float_cmp(rel: CmpRel) -> Option<FloatCmp> {
    Some(match rel {
        CmpRel::F => FloatCmp::F,
        CmpRel::Lt => FloatCmp::Lt,
        CmpRel::Eq => FloatCmp::Eq,
        CmpRel::Le => FloatCmp::Le,
        CmpRel::Gt => FloatCmp::Gt,
        CmpRel::Lg => FloatCmp::Lg,
        CmpRel::Ge => FloatCmp::Ge,
        CmpRel::O => FloatCmp::O,
        CmpRel::U => FloatCmp::U,
        CmpRel::Nge => FloatCmp::Nge,
        CmpRel::Nlg => FloatCmp::Nlg,
        CmpRel::Ngt => FloatCmp::Ngt,
        CmpRel::Nle => FloatCmp::Nle,
        CmpRel::Neq => FloatCmp::Neq,
        CmpRel::Nlt => FloatCmp::Nlt,
        CmpRel::T => FloatCmp::Tru,
        CmpRel::Ne | CmpRel::Class => return None,
    })
}

impl Lifter<'_> {
    /// Lifts `op` if this module knows it; `Ok(false)` otherwise.
    pub(super) fn valu_float(&mut self, op: Opcode, o: &Ops) -> Result<bool, LiftError> {
        use Opcode::*;
        let name = op.name();
        if o.opsel != 0 {
            return self.unsupported("VOP3 op_sel on this float instruction is not lifted yet");
        }
        // Comparisons and class tests of every width.
        if let Some(cmp) = op.compare() {
            let cmpx = op.is_cmpx();
            let f = match cmp.ty {
                CmpType::F16 => F16,
                CmpType::F32 => F32,
                CmpType::F64 => F64,
                _ => return Ok(false),
            };
            let a = self.fsrc(o, f, 0)?;
            let c = if cmp.rel == CmpRel::Class {
                let m = self.src(o.s1, Src::B32)?;
                self.class(f, a, m)
            } else {
                let Some(fcmp) = float_cmp(cmp.rel) else {
                    return Ok(false);
                };
                let b = self.fsrc(o, f, 1)?;
                let (a, b) = (self.narrow(f, a), self.narrow(f, b));
                self.n(Node::FloatCmp {
                    op: fcmp,
                    ty: f.cmp_ty(),
                    a,
                    b,
                })
            };
            self.write_compare(c, cmpx, o.f, o.vdst);
            return Ok(true);
        }
        let r = match op {
            V_ADD_F64 | V_MUL_F64 => {
                let (a, b) = (self.fsrc(o, F64, 0)?, self.fsrc(o, F64, 1)?);
                let fop = if op == V_ADD_F64 {
                    FloatOp::F64Add
                } else {
                    FloatOp::F64Mul
                };
                self.float(fop, a, b, a)
            }
            V_MIN_F64 | V_MAX_F64 | V_MIN3_F32 | V_MAX3_F32 => {
                let (f, max) = match op {
                    V_MIN_F64 => (F64, false),
                    V_MAX_F64 => (F64, true),
                    V_MIN3_F32 => (F32, false),
                    _ => (F32, true),
                };
                let (a, b) = (self.fsrc(o, f, 0)?, self.fsrc(o, f, 1)?);
                let r = self.minmax(f, a, b, max);
                if matches!(op, V_MIN3_F32 | V_MAX3_F32) {
                    let c = self.fsrc(o, f, 2)?;
                    self.minmax(f, r, c, max)
                } else {
                    r
                }
            }
            V_MIN_F32 | V_MAX_F32 | V_MIN_F16 | V_MAX_F16 => {
                let f = if matches!(op, V_MIN_F32 | V_MAX_F32) {
                    F32
                } else {
                    F16
                };
                let (a, b) = (self.fsrc(o, f, 0)?, self.fsrc(o, f, 1)?);
                self.minmax(f, a, b, matches!(op, V_MAX_F32 | V_MAX_F16))
            }
            V_MIN3_F16 | V_MAX3_F16 | V_MED3_F16 => {
                let f = F16;
                let (a, b, c) = (
                    self.fsrc(o, f, 0)?,
                    self.fsrc(o, f, 1)?,
                    self.fsrc(o, f, 2)?,
                );
                match op {
                    V_MED3_F16 => self.med3(f, a, b, c),
                    _ => {
                        let max = op == V_MAX3_F16;
                        let r = self.minmax(f, a, b, max);
                        self.minmax(f, r, c, max)
                    }
                }
            }
            V_SUB_F16 | V_SUBREV_F16 => {
                // a − b is a + (−b) exactly: one rounding to half either way.
                let (a, b) = (self.fsrc(o, F16, 0)?, self.fsrc(o, F16, 1)?);
                let (a, b) = if op == V_SUBREV_F16 { (b, a) } else { (a, b) };
                let nb = self.iopk(F16, IntOp::Xor, b, F16.sign());
                self.fadd(F16, a, nb)
            }
            V_LDEXP_F16 => {
                // D = S0.f16 · 2^S1.i16 (the low 16 bits of S1, signed).
                let a = self.fsrc(o, F16, 0)?;
                let k = self.src(o.s1, Src::B32)?;
                let k = self.lo16(k);
                let k = self.un(UnOp::SExt, Ty::B32, k);
                self.ldexp_int(F16, a, k)
            }
            V_CVT_F32_F16 => {
                let a = self.fsrc(o, F16, 0)?;
                let r = self.un(UnOp::F16ToF32, Ty::B32, a);
                let nan = self.is_nan_f(F32, r);
                let q = self.k32(F32.qnan() as u32);
                self.sel(nan, q, r)
            }
            V_CVT_F16_F32 => {
                let a = self.fsrc(o, F32, 0)?;
                let h = self.un(UnOp::F32ToF16, Ty::B32, a);
                self.f16_from_f32_directed(a, h)
            }
            V_CVT_F16_U16 | V_CVT_F16_I16 => {
                // Exact in f32, then one rounding to half.
                let a = self.src(o.s0, Src::B32)?;
                let h = self.lo16(a);
                let (ext, cv) = if op == V_CVT_F16_I16 {
                    (UnOp::SExt, UnOp::I32ToF32)
                } else {
                    (UnOp::ZExt, UnOp::U32ToF32)
                };
                let w = self.un(ext, Ty::B32, h);
                let f = self.un(cv, Ty::B32, w);
                let r = self.un(UnOp::F32ToF16, Ty::B32, f);
                self.write_result(op, o.vdst, r);
                return Ok(true);
            }
            V_CVT_U16_F16 | V_CVT_I16_F16 => {
                // Truncate, saturate to the 16-bit range, NaN → 0; the result in the low half.
                let a = self.fsrc(o, F16, 0)?;
                let f = self.un(UnOp::F16ToF32, Ty::B32, a);
                let r = if op == V_CVT_I16_F16 {
                    let i = self.un(UnOp::F32ToI32, Ty::B32, f);
                    let hi = self.k32(0x7fff);
                    let lo = self.k32(0xffff_8000);
                    let i = self.int(IntOp::MinI, Ty::B32, i, hi);
                    let i = self.int(IntOp::MaxI, Ty::B32, i, lo);
                    self.and32(i, 0xffff)
                } else {
                    let u = self.un(UnOp::F32ToU32, Ty::B32, f);
                    let hi = self.k32(0xffff);
                    self.int(IntOp::MinU, Ty::B32, u, hi)
                };
                self.write_result(op, o.vdst, r);
                return Ok(true);
            }
            V_CVT_PKRTZ_F16_F32 => {
                let (a, b) = (self.fsrc(o, F32, 0)?, self.fsrc(o, F32, 1)?);
                let lo = self.f32_to_f16_rtz(a);
                let hi = self.f32_to_f16_rtz(b);
                let k16 = self.k32(16);
                let hi = self.int(IntOp::Shl, Ty::B32, hi, k16);
                let r = self.int(IntOp::Or, Ty::B32, lo, hi);
                self.write_v(o.vdst, r);
                return Ok(true);
            }
            V_PACK_B32_F16 => {
                // D = {S1.f16, S0.f16}: the bits move unchanged (abs/neg apply to each half).
                let (a, b) = (self.fsrc(o, F16, 0)?, self.fsrc(o, F16, 1)?);
                let k16 = self.k32(16);
                let hi = self.int(IntOp::Shl, Ty::B32, b, k16);
                let r = self.int(IntOp::Or, Ty::B32, a, hi);
                self.write_v(o.vdst, r);
                return Ok(true);
            }
            V_MED3_F32 => {
                let f = F32;
                let (a, b, c) = (
                    self.fsrc(o, f, 0)?,
                    self.fsrc(o, f, 1)?,
                    self.fsrc(o, f, 2)?,
                );
                self.med3(f, a, b, c)
            }
            V_TRUNC_F64 | V_CEIL_F64 | V_FLOOR_F64 | V_RNDNE_F64 | V_TRUNC_F32 | V_CEIL_F32
            | V_FLOOR_F32 | V_RNDNE_F32 | V_TRUNC_F16 | V_CEIL_F16 | V_FLOOR_F16 | V_RNDNE_F16 => {
                let f = self.fmt_of(name);
                let mode = match op {
                    V_TRUNC_F64 | V_TRUNC_F32 | V_TRUNC_F16 => Rnd::Trunc,
                    V_CEIL_F64 | V_CEIL_F32 | V_CEIL_F16 => Rnd::Ceil,
                    V_FLOOR_F64 | V_FLOOR_F32 | V_FLOOR_F16 => Rnd::Floor,
                    _ => Rnd::Even,
                };
                let a = self.fsrc(o, f, 0)?;
                self.round_int(f, a, mode)
            }
            V_FRACT_F64 | V_FRACT_F32 | V_FRACT_F16 => {
                let f = self.fmt_of(name);
                let a = self.fsrc(o, f, 0)?;
                self.fract(f, a)
            }
            V_FREXP_MANT_F64 | V_FREXP_MANT_F32 | V_FREXP_MANT_F16 => {
                let f = self.fmt_of(name);
                let a = self.fsrc(o, f, 0)?;
                self.frexp(f, a).0
            }
            V_FREXP_EXP_I32_F64 | V_FREXP_EXP_I32_F32 | V_FREXP_EXP_I16_F16 => {
                let f = self.fmt_of(name);
                let a = self.fsrc(o, f, 0)?;
                let e = self.frexp(f, a).1;
                let r = if op == V_FREXP_EXP_I16_F16 {
                    self.and32(e, 0xffff)
                } else {
                    e
                };
                self.write_result(op, o.vdst, r);
                return Ok(true);
            }
            V_LDEXP_F64 | V_LDEXP_F32 => {
                let f = if op == V_LDEXP_F64 { F64 } else { F32 };
                let a = self.fsrc(o, f, 0)?;
                let k = self.src(o.s1, Src::B32)?;
                self.ldexp_int(f, a, k)
            }
            V_CVT_F64_F32 => {
                let a = self.fsrc(o, F32, 0)?;
                self.f32_to_f64(a)
            }
            V_CVT_F64_I32 | V_CVT_F64_U32 => {
                let a = self.src(o.s0, Src::B32)?;
                self.int_to_f64(a, op == V_CVT_F64_I32)
            }
            V_CVT_F32_F64 => {
                let a = self.fsrc(o, F64, 0)?;
                self.f64_to_f32(a)
            }
            V_CVT_I32_F64 | V_CVT_U32_F64 => {
                let a = self.fsrc(o, F64, 0)?;
                let r = self.f64_to_int(a, op == V_CVT_I32_F64);
                self.write_v(o.vdst, r);
                return Ok(true);
            }
            V_CVT_FLR_I32_F32 | V_CVT_RPI_I32_F32 => {
                // D = (int)floor(S0) and (int)floor(S0 + 0.5) (the ISA's pseudo-code: the sum rounds
                // in single precision), saturating, NaN → 0.
                let a = self.fsrc(o, F32, 0)?;
                let a = if op == V_CVT_RPI_I32_F32 {
                    let half = self.k32(0x3f00_0000);
                    self.float(FloatOp::F32Add, a, half, a)
                } else {
                    a
                };
                let fl = self.round_int(F32, a, Rnd::Floor);
                let r = self.un(UnOp::F32ToI32, Ty::B32, fl);
                self.write_v(o.vdst, r);
                return Ok(true);
            }
            V_CVT_F32_UBYTE0 | V_CVT_F32_UBYTE1 | V_CVT_F32_UBYTE2 | V_CVT_F32_UBYTE3 => {
                let a = self.src(o.s0, Src::B32)?;
                let byte = match op {
                    V_CVT_F32_UBYTE0 => 0,
                    V_CVT_F32_UBYTE1 => 8,
                    V_CVT_F32_UBYTE2 => 16,
                    _ => 24,
                };
                let k = self.k32(byte);
                let b = self.int(IntOp::LShr, Ty::B32, a, k);
                let b = self.and32(b, 0xff);
                self.un(UnOp::U32ToF32, Ty::B32, b)
            }
            _ => return Ok(false),
        };
        let r = if o.clamp {
            let f = self.fmt_of(name);
            self.clamp_bits(f.ty, r, f.sign(), f.inf(), f.one())
        } else {
            r
        };
        self.write_result(op, o.vdst, r);
        Ok(true)
    }

    /// Writes a result: 16-bit results (`valu_misc::half_result`) keep the destination's high half (D096).
    fn write_result(&mut self, op: Opcode, vdst: u16, r: H) {
        if super::valu_misc::half_result(op) {
            self.write_half(vdst, r);
        } else {
            self.write_v(vdst, r);
        }
    }

    /// The format of an op's float result or source by the mnemonic's first `_f16/_f32/_f64`.
    fn fmt_of(&self, name: &str) -> Fmt {
        let cvt64 = name.starts_with("v_cvt_f64");
        if cvt64 || (!name.starts_with("v_cvt") && name.contains("f64")) {
            F64
        } else if name.contains("f16") {
            F16
        } else {
            F32
        }
    }

    /// A float source at position `i` with its VOP3 abs/neg, in `f`'s container.
    pub(super) fn fsrc(&mut self, o: &Ops, f: Fmt, i: u32) -> Result<H, LiftError> {
        let e = [o.s0, o.s1, o.s2][i as usize];
        Ok(match f.bits {
            64 => {
                let v = self.src(e, Src::F64)?;
                self.modify_ty(v, i, o.abs, o.neg, Ty::B64)
            }
            32 => {
                let v = self.src(e, Src::B32)?;
                self.modify(v, i, o.abs, o.neg)
            }
            _ => {
                let v = self.src(e, Src::F16)?;
                let h = self.lo16(v);
                let h = self.modify_ty(h, i, o.abs, o.neg, Ty::B16);
                self.un(UnOp::ZExt, Ty::B32, h)
            }
        })
    }

    /// A value in `f`'s container as the float primitives take it (B16 for f16).
    fn narrow(&mut self, f: Fmt, x: H) -> H {
        if f.bits == 16 {
            self.lo16(x)
        } else {
            x
        }
    }

    fn fmt_k(&mut self, f: Fmt, v: u64) -> H {
        self.c(f.ty, v)
    }
    fn iop(&mut self, f: Fmt, op: IntOp, a: H, b: H) -> H {
        self.int(op, f.ty, a, b)
    }
    fn iopk(&mut self, f: Fmt, op: IntOp, a: H, v: u64) -> H {
        let k = self.fmt_k(f, v);
        self.int(op, f.ty, a, k)
    }
    fn icmpk(&mut self, f: Fmt, op: IntCmp, a: H, v: u64) -> H {
        let k = self.fmt_k(f, v);
        self.icmp(op, f.ty, a, k)
    }
    fn fabs_bits(&mut self, f: Fmt, x: H) -> H {
        self.iopk(f, IntOp::And, x, f.sign() - 1)
    }
    pub(super) fn is_nan_f(&mut self, f: Fmt, x: H) -> H {
        let a = self.fabs_bits(f, x);
        self.icmpk(f, IntCmp::GtU, a, f.inf())
    }
    fn is_snan_f(&mut self, f: Fmt, x: H) -> H {
        let a = self.fabs_bits(f, x);
        let nan = self.icmpk(f, IntCmp::GtU, a, f.inf());
        let sig = self.icmpk(f, IntCmp::LtU, a, f.qnan());
        self.and1(nan, sig)
    }
    fn sign_bits(&mut self, f: Fmt, x: H) -> H {
        self.iopk(f, IntOp::And, x, f.sign())
    }
    fn exp_field(&mut self, f: Fmt, x: H) -> H {
        let e = self.iopk(f, IntOp::LShr, x, f.man as u64);
        self.iopk(f, IntOp::And, e, f.emax())
    }
    fn b1(&mut self, v: bool) -> H {
        self.c(Ty::B1, v as u64)
    }
    /// Index of the highest set bit of a nonzero value (popcount of the smeared value, minus 1).
    pub(super) fn msb(&mut self, ty: Ty, v: H) -> H {
        let mut s = v;
        let mut k = 1u64;
        while k < ty.bits() as u64 {
            let kk = self.c(ty, k);
            let sh = self.int(IntOp::LShr, ty, s, kk);
            s = self.int(IntOp::Or, ty, s, sh);
            k *= 2;
        }
        let p = self.un(UnOp::Popcount, ty, s);
        let one = self.c(ty, 1);
        self.int(IntOp::Sub, ty, p, one)
    }
    /// `v >> sh` rounded to nearest even (1 ≤ sh ≤ width − 2).
    fn round_shift(&mut self, ty: Ty, v: H, sh: H) -> H {
        let q = self.int(IntOp::LShr, ty, v, sh);
        let one = self.c(ty, 1);
        let unit = self.int(IntOp::Shl, ty, one, sh);
        let mask = self.int(IntOp::Sub, ty, unit, one);
        let rem = self.int(IntOp::And, ty, v, mask);
        let half = self.int(IntOp::LShr, ty, unit, one);
        let gt = self.icmp(IntCmp::GtU, ty, rem, half);
        let tie = self.icmp(IntCmp::Eq, ty, rem, half);
        let lsb = self.int(IntOp::And, ty, q, one);
        let zero = self.c(ty, 0);
        let odd = self.icmp(IntCmp::Ne, ty, lsb, zero);
        let t = self.and1(tie, odd);
        let up = self.or1(gt, t);
        let qu = self.int(IntOp::Add, ty, q, one);
        self.sel(up, qu, q)
    }

    /// Rounds to an integral value in the same format (v_trunc/ceil/floor/rndne), integer logic only.
    pub(super) fn round_int(&mut self, f: Fmt, x: H, mode: Rnd) -> H {
        let a = self.fabs_bits(f, x);
        let s = self.sign_bits(f, x);
        let neg = self.icmpk(f, IntCmp::Ne, s, 0);
        let pos = self.icmpk(f, IntCmp::Eq, s, 0);
        let e = self.exp_field(f, a);
        let big = self.icmpk(f, IntCmp::GeU, e, f.bias() + f.man as u64);
        let small = self.icmpk(f, IntCmp::LtU, e, f.bias());
        // Fraction bits of a value in [1, 2^man): bias + man − e, kept in [1, man] for the other cases.
        let kbm = self.fmt_k(f, f.bias() + f.man as u64);
        let fb = self.iop(f, IntOp::Sub, kbm, e);
        let fb = self.iopk(f, IntOp::MinU, fb, f.man as u64);
        let fb = self.iopk(f, IntOp::MaxU, fb, 1);
        let one = self.fmt_k(f, 1);
        let ulp = self.iop(f, IntOp::Shl, one, fb);
        let mask = self.iopk(f, IntOp::Sub, ulp, 1);
        let frac = self.iop(f, IntOp::And, a, mask);
        let t = self.iop(f, IntOp::Sub, a, frac);
        let has_frac = self.icmpk(f, IntCmp::Ne, frac, 0);
        let up = match mode {
            Rnd::Trunc => self.b1(false),
            Rnd::Floor => self.and1(neg, has_frac),
            Rnd::Ceil => self.and1(pos, has_frac),
            Rnd::Even => {
                let half = self.iopk(f, IntOp::LShr, ulp, 1);
                let gt = self.icmp(IntCmp::GtU, f.ty, frac, half);
                let tie = self.icmp(IntCmp::Eq, f.ty, frac, half);
                let lsb = self.iop(f, IntOp::And, a, ulp);
                let odd = self.icmpk(f, IntCmp::Ne, lsb, 0);
                let t = self.and1(tie, odd);
                self.or1(gt, t)
            }
        };
        let tu = self.iop(f, IntOp::Add, t, ulp);
        let mag = self.sel(up, tu, t);
        // |x| < 1: 0 or 1.
        let nz = self.icmpk(f, IntCmp::Ne, a, 0);
        let up_s = match mode {
            Rnd::Trunc => self.b1(false),
            Rnd::Floor => self.and1(neg, nz),
            Rnd::Ceil => self.and1(pos, nz),
            Rnd::Even => self.icmpk(f, IntCmp::GtU, a, (f.bias() - 1) << f.man),
        };
        let k1 = self.fmt_k(f, f.one());
        let k0 = self.fmt_k(f, 0);
        let mag_s = self.sel(up_s, k1, k0);
        let mag = self.sel(small, mag_s, mag);
        let r = self.iop(f, IntOp::Or, s, mag);
        let r = self.sel(big, x, r);
        let nan = self.is_nan_f(f, x);
        let q = self.fmt_k(f, f.qnan());
        self.sel(nan, q, r)
    }

    /// a + b with one rounding in `f` (the correctly rounded add primitive of the width).
    fn fadd(&mut self, f: Fmt, a: H, b: H) -> H {
        match f.bits {
            64 => self.float(FloatOp::F64Add, a, b, a),
            32 => self.float(FloatOp::F32Add, a, b, a),
            _ => {
                let (x, y) = (self.lo16(a), self.lo16(b));
                let r = self.float(FloatOp::F16Add, x, y, x);
                self.un(UnOp::ZExt, Ty::B32, r)
            }
        }
    }

    /// v_fract: min(x − floor(x), largest float below 1); NaN and ±inf give NaN.
    pub(super) fn fract(&mut self, f: Fmt, x: H) -> H {
        let fl = self.round_int(f, x, Rnd::Floor);
        let nfl = self.iopk(f, IntOp::Xor, fl, f.sign());
        let r = self.fadd(f, x, nfl);
        let below_one = f.one() - 1;
        let gt = self.icmpk(f, IntCmp::GtU, r, below_one);
        let a = self.fabs_bits(f, r);
        let not_nan = self.icmpk(f, IntCmp::LeU, a, f.inf());
        let clip = self.and1(gt, not_nan);
        let k = self.fmt_k(f, below_one);
        self.sel(clip, k, r)
    }

    /// Splits a finite nonzero |x| into (biased exponent as if normal — ≤ 0 for subnormals — as a
    /// signed B32, mantissa field normalised). For zero the results are unspecified.
    fn normalise(&mut self, f: Fmt, a: H) -> (H, H) {
        let e = self.exp_field(f, a);
        let m = self.iopk(f, IntOp::And, a, f.manmask());
        let is_sub = self.icmpk(f, IntCmp::Eq, e, 0);
        let p = self.msb(f.ty, m);
        let kman = self.fmt_k(f, f.man as u64);
        let sh = self.iop(f, IntOp::Sub, kman, p);
        let mn = self.iop(f, IntOp::Shl, m, sh);
        let mn = self.iopk(f, IntOp::And, mn, f.manmask());
        let mn = self.sel(is_sub, mn, m);
        // Subnormal: value = 2^(p + 1 − bias − man)·1.m, so the biased exponent is p + 1 − man.
        let k = self.fmt_k(f, (1u64.wrapping_sub(f.man as u64)) & f.ty.mask());
        let eb_sub = self.iop(f, IntOp::Add, p, k);
        let eb = self.sel(is_sub, eb_sub, e);
        let eb = if f.ty == Ty::B64 {
            self.un(UnOp::Trunc, Ty::B32, eb)
        } else {
            eb
        };
        (eb, mn)
    }

    /// (v_frexp_mant, v_frexp_exp as a B32 i32).
    pub(super) fn frexp(&mut self, f: Fmt, x: H) -> (H, H) {
        let a = self.fabs_bits(f, x);
        let s = self.sign_bits(f, x);
        let (eb, mn) = self.normalise(f, a);
        let half = self.fmt_k(f, (f.bias() - 1) << f.man);
        let mant = self.iop(f, IntOp::Or, s, half);
        let mant = self.iop(f, IntOp::Or, mant, mn);
        // exp = unbiased + 1 = eb − bias + 1.
        let k = self.k32((1u32).wrapping_sub(f.bias() as u32));
        let ex = self.int(IntOp::Add, Ty::B32, eb, k);
        let zero = self.icmpk(f, IntCmp::Eq, a, 0);
        let special = self.icmpk(f, IntCmp::GeU, a, f.inf());
        let nan = self.is_nan_f(f, x);
        let q = self.fmt_k(f, f.qnan());
        let mant = self.sel(zero, x, mant);
        let mant = self.sel(special, x, mant);
        let mant = self.sel(nan, q, mant);
        let z = self.or1(zero, special);
        let k0 = self.k32(0);
        let ex = self.sel(z, k0, ex);
        (mant, ex)
    }

    /// x · 2^k (k a signed B32), rounded once to nearest even; integer logic only.
    pub(super) fn ldexp_int(&mut self, f: Fmt, x: H, k: H) -> H {
        let a = self.fabs_bits(f, x);
        let s = self.sign_bits(f, x);
        let (eb, mn) = self.normalise(f, a);
        let lim = self.k32(1 << 14);
        let nlim = self.k32((-(1i32 << 14)) as u32);
        let kk = self.int(IntOp::MinI, Ty::B32, k, lim);
        let kk = self.int(IntOp::MaxI, Ty::B32, kk, nlim);
        let r = self.int(IntOp::Add, Ty::B32, eb, kk);
        // Overflow.
        let kemax = self.k32(f.emax() as u32);
        let ovf = self.icmp(IntCmp::GeI, Ty::B32, r, kemax);
        let inf = self.fmt_k(f, f.inf());
        let r_inf = self.iop(f, IntOp::Or, s, inf);
        // Normal result.
        let k1 = self.k32(1);
        let normal = self.icmp(IntCmp::GeI, Ty::B32, r, k1);
        let rt = if f.ty == Ty::B64 {
            self.un(UnOp::ZExt, Ty::B64, r)
        } else {
            r
        };
        let e_sh = self.iopk(f, IntOp::Shl, rt, f.man as u64);
        let r_norm = self.iop(f, IntOp::Or, s, e_sh);
        let r_norm = self.iop(f, IntOp::Or, r_norm, mn);
        // Subnormal or zero result: (1.m) >> (1 − r), rounded once.
        let sh = self.int(IntOp::Sub, Ty::B32, k1, r);
        let cap = self.k32(f.man + 2);
        let sh = self.int(IntOp::MinU, Ty::B32, sh, cap);
        let sig = self.iopk(f, IntOp::Or, mn, 1 << f.man);
        let q = self.round_shift(f.ty, sig, sh);
        let r_sub = self.iop(f, IntOp::Or, s, q);
        let res = self.sel(normal, r_norm, r_sub);
        let res = self.sel(ovf, r_inf, res);
        // ±0, ±inf unchanged; NaN → default NaN.
        let zero = self.icmpk(f, IntCmp::Eq, a, 0);
        let special = self.icmpk(f, IntCmp::GeU, a, f.inf());
        let keep = self.or1(zero, special);
        let res = self.sel(keep, x, res);
        let nan = self.is_nan_f(f, x);
        let q = self.fmt_k(f, f.qnan());
        self.sel(nan, q, res)
    }

    /// IEEE-mode min/max: minNum/maxNum, −0 < +0, a signalling NaN operand gives the default NaN.
    pub(super) fn minmax(&mut self, f: Fmt, a: H, b: H, max: bool) -> H {
        let (x, y) = (self.narrow(f, a), self.narrow(f, b));
        let ct = f.cmp_ty();
        let pick = self.n(Node::FloatCmp {
            op: if max { FloatCmp::Gt } else { FloatCmp::Lt },
            ty: ct,
            a: x,
            b: y,
        });
        let eq = self.n(Node::FloatCmp {
            op: FloatCmp::Eq,
            ty: ct,
            a: x,
            b: y,
        });
        let tie = self.iop(f, if max { IntOp::And } else { IntOp::Or }, a, b);
        let r = self.sel(pick, a, b);
        let r = self.sel(eq, tie, r);
        let an = self.is_nan_f(f, a);
        let bn = self.is_nan_f(f, b);
        let r = self.sel(bn, a, r);
        let r = self.sel(an, b, r);
        let both = self.and1(an, bn);
        let sa = self.is_snan_f(f, a);
        let sb = self.is_snan_f(f, b);
        let sn = self.or1(sa, sb);
        let qn = self.or1(both, sn);
        let q = self.fmt_k(f, f.qnan());
        self.sel(qn, q, r)
    }

    /// v_med3 (ISA pseudo-code): a NaN operand → min3; else the max of the two operands other than
    /// the first one equal to max3.
    pub(super) fn med3(&mut self, f: Fmt, a: H, b: H, c: H) -> H {
        let ab = self.minmax(f, a, b, true);
        let m3 = self.minmax(f, ab, c, true);
        let mn = self.minmax(f, a, b, false);
        let min3 = self.minmax(f, mn, c, false);
        let ct = f.cmp_ty();
        let (m3n, an, bn) = (self.narrow(f, m3), self.narrow(f, a), self.narrow(f, b));
        let is_a = self.n(Node::FloatCmp {
            op: FloatCmp::Eq,
            ty: ct,
            a: m3n,
            b: an,
        });
        let is_b = self.n(Node::FloatCmp {
            op: FloatCmp::Eq,
            ty: ct,
            a: m3n,
            b: bn,
        });
        let bc = self.minmax(f, b, c, true);
        let ac = self.minmax(f, a, c, true);
        let r = self.sel(is_b, ac, ab);
        let r = self.sel(is_a, bc, r);
        let na = self.is_nan_f(f, a);
        let nb = self.is_nan_f(f, b);
        let nc = self.is_nan_f(f, c);
        let n = self.or1(na, nb);
        let n = self.or1(n, nc);
        self.sel(n, min3, r)
    }

    /// v_cmp_class: bit class(x) of `mask` (0 sNaN, 1 qNaN, 2 −inf, 3 −normal, 4 −subnormal, 5 −0,
    /// 6 +0, 7 +subnormal, 8 +normal, 9 +inf).
    pub(super) fn class(&mut self, f: Fmt, x: H, mask: H) -> H {
        let a = self.fabs_bits(f, x);
        let (k6, k7, k8, k9) = (self.k32(6), self.k32(7), self.k32(8), self.k32(9));
        let zero = self.icmpk(f, IntCmp::Eq, a, 0);
        let sub = self.icmpk(f, IntCmp::LtU, a, 1 << f.man);
        let normal = self.icmpk(f, IntCmp::LtU, a, f.inf());
        let p = self.sel(normal, k8, k9);
        let p = self.sel(sub, k7, p);
        let p = self.sel(zero, k6, p);
        let k11 = self.k32(11);
        let n = self.int(IntOp::Sub, Ty::B32, k11, p);
        let s = self.sign_bits(f, x);
        let neg = self.icmpk(f, IntCmp::Ne, s, 0);
        let idx = self.sel(neg, n, p);
        let nan = self.icmpk(f, IntCmp::GtU, a, f.inf());
        let quiet = self.icmpk(f, IntCmp::GeU, a, f.qnan());
        let (k0, k1) = (self.k32(0), self.k32(1));
        let nan_idx = self.sel(quiet, k1, k0);
        let idx = self.sel(nan, nan_idx, idx);
        let bit = self.int(IntOp::LShr, Ty::B32, mask, idx);
        let bit = self.and32(bit, 1);
        self.nonzero(Ty::B32, bit)
    }

    /// f32 → f64, exact (subnormals normalised, NaN → default NaN).
    pub(super) fn f32_to_f64(&mut self, x: H) -> H {
        let a = self.and32(x, 0x7fff_ffff);
        let s = self.and32(x, 0x8000_0000);
        let s = self.un(UnOp::ZExt, Ty::B64, s);
        let s = self.iopk(F64, IntOp::Shl, s, 32);
        let (eb, mn) = self.normalise(F32, a);
        // f64 biased exponent = eb − 127 + 1023.
        let k = self.k32(896);
        let e = self.int(IntOp::Add, Ty::B32, eb, k);
        let e = self.un(UnOp::ZExt, Ty::B64, e);
        let e = self.iopk(F64, IntOp::Shl, e, 52);
        let m = self.un(UnOp::ZExt, Ty::B64, mn);
        let m = self.iopk(F64, IntOp::Shl, m, 29);
        let r = self.iop(F64, IntOp::Or, s, e);
        let r = self.iop(F64, IntOp::Or, r, m);
        let zero = self.eq32(a, 0);
        let r = self.sel(zero, s, r);
        let inf = self.eq32(a, 0x7f80_0000);
        let kinf = self.fmt_k(F64, F64.inf());
        let sinf = self.iop(F64, IntOp::Or, s, kinf);
        let r = self.sel(inf, sinf, r);
        let nan = self.is_nan_f(F32, x);
        let q = self.fmt_k(F64, F64.qnan());
        self.sel(nan, q, r)
    }

    /// i32/u32 → f64, exact.
    pub(super) fn int_to_f64(&mut self, v: H, signed: bool) -> H {
        let (neg, mag) = if signed {
            let z = self.k32(0);
            let neg = self.icmp(IntCmp::LtI, Ty::B32, v, z);
            let nv = self.int(IntOp::Sub, Ty::B32, z, v);
            (Some(neg), self.sel(neg, nv, v))
        } else {
            (None, v)
        };
        let m = self.un(UnOp::ZExt, Ty::B64, mag);
        let p = self.msb(Ty::B64, m);
        let e = self.iopk(F64, IntOp::Add, p, 1023);
        let e = self.iopk(F64, IntOp::Shl, e, 52);
        let k52 = self.fmt_k(F64, 52);
        let sh = self.iop(F64, IntOp::Sub, k52, p);
        let mm = self.iop(F64, IntOp::Shl, m, sh);
        let mm = self.iopk(F64, IntOp::And, mm, F64.manmask());
        let r = self.iop(F64, IntOp::Or, e, mm);
        let r = match neg {
            Some(n) => {
                let rs = self.iopk(F64, IntOp::Or, r, F64.sign());
                self.sel(n, rs, r)
            }
            None => r,
        };
        let zero = self.eq32(mag, 0);
        let k0 = self.fmt_k(F64, 0);
        self.sel(zero, k0, r)
    }

    /// f64 → f32 with one rounding to nearest even (subnormal results, overflow to ±inf).
    pub(super) fn f64_to_f32(&mut self, x: H) -> H {
        let a = self.fabs_bits(F64, x);
        let e = self.exp_field(F64, a);
        let m = self.iopk(F64, IntOp::And, a, F64.manmask());
        let sig = self.iopk(F64, IntOp::Or, m, 1 << 52);
        // Biased f32 exponent, signed: e − 896.
        let b = self.iopk(F64, IntOp::Sub, e, 896);
        let k0 = self.fmt_k(F64, 0);
        let normal = self.icmp(IntCmp::GtI, Ty::B64, b, k0);
        let k1 = self.fmt_k(F64, 1);
        let deficit = self.iop(F64, IntOp::Sub, k1, b); // ≥ 1 when not normal
        let deficit = self.iopk(F64, IntOp::MinU, deficit, 33);
        let sh_sub = self.iopk(F64, IntOp::Add, deficit, 29);
        let k29 = self.fmt_k(F64, 29);
        let sh = self.sel(normal, k29, sh_sub);
        let q = self.round_shift(Ty::B64, sig, sh);
        let bm1 = self.iop(F64, IntOp::Sub, b, k1);
        let base = self.iopk(F64, IntOp::Shl, bm1, 23);
        let base = self.sel(normal, base, k0);
        let bits = self.iop(F64, IntOp::Add, base, q);
        // Overflow: anything at or above the f32 infinity's bits (b is < 2^11, so no wrap).
        let ovf = self.icmpk(F64, IntCmp::GeU, bits, 0x7f80_0000);
        let kinf = self.fmt_k(F64, 0x7f80_0000);
        let bits = self.sel(ovf, kinf, bits);
        let r = self.un(UnOp::Trunc, Ty::B32, bits);
        // f64 zeros and subnormals: ±0 (the shift above already gives 0 for them, but e = 0 lacks the
        // implicit bit, so say it).
        let tiny = self.icmpk(F64, IntCmp::Eq, e, 0);
        let k032 = self.k32(0);
        let r = self.sel(tiny, k032, r);
        let s = self.iopk(F64, IntOp::LShr, x, 32);
        let s = self.un(UnOp::Trunc, Ty::B32, s);
        let s = self.and32(s, 0x8000_0000);
        let r = self.int(IntOp::Or, Ty::B32, r, s);
        let nan = self.is_nan_f(F64, x);
        let q = self.k32(F32.qnan() as u32);
        self.sel(nan, q, r)
    }

    /// f64 → i32/u32: truncation, saturation, NaN → 0.
    pub(super) fn f64_to_int(&mut self, x: H, signed: bool) -> H {
        let a = self.fabs_bits(F64, x);
        let e = self.exp_field(F64, a);
        let m = self.iopk(F64, IntOp::And, a, F64.manmask());
        let sig = self.iopk(F64, IntOp::Or, m, 1 << 52);
        let ue = self.iopk(F64, IntOp::Sub, e, 1023); // signed unbiased exponent
        let k0 = self.fmt_k(F64, 0);
        let small = self.icmp(IntCmp::LtI, Ty::B64, ue, k0);
        let lim = if signed { 31 } else { 32 };
        let klim = self.fmt_k(F64, lim);
        let sat = self.icmp(IntCmp::GeI, Ty::B64, ue, klim);
        let k52 = self.fmt_k(F64, 52);
        let uec = self.iopk(F64, IntOp::MinU, ue, 52); // only used when 0 ≤ ue < lim
        let sh = self.iop(F64, IntOp::Sub, k52, uec);
        let mag = self.iop(F64, IntOp::LShr, sig, sh);
        let mag = self.un(UnOp::Trunc, Ty::B32, mag);
        let s = self.sign_bits(F64, x);
        let neg = self.icmpk(F64, IntCmp::Ne, s, 0);
        let z = self.k32(0);
        let r = if signed {
            let nm = self.int(IntOp::Sub, Ty::B32, z, mag);
            let r = self.sel(neg, nm, mag);
            let kmin = self.k32(0x8000_0000);
            let kmax = self.k32(0x7fff_ffff);
            let satv = self.sel(neg, kmin, kmax);
            self.sel(sat, satv, r)
        } else {
            let kmax = self.k32(u32::MAX);
            let r = self.sel(sat, kmax, mag);
            self.sel(neg, z, r)
        };
        let r = self.sel(small, z, r);
        let nan = self.is_nan_f(F64, x);
        self.sel(nan, z, r)
    }

    /// f32 → f16 rounded toward zero (v_cvt_pkrtz): magnitudes ≥ 2^16 give the largest half, ±inf stays,
    /// NaN → the default half NaN. Integer logic only.
    pub(super) fn f32_to_f16_rtz(&mut self, x: H) -> H {
        let a = self.and32(x, 0x7fff_ffff);
        let e = self.exponent32(a);
        let m = self.and32(a, 0x7f_ffff);
        let k13 = self.k32(13);
        let m13 = self.int(IntOp::LShr, Ty::B32, m, k13);
        let k112 = self.k32(112);
        let eh = self.int(IntOp::Sub, Ty::B32, e, k112);
        let k10 = self.k32(10);
        let eh = self.int(IntOp::Shl, Ty::B32, eh, k10);
        let normal = self.int(IntOp::Or, Ty::B32, eh, m13);
        // Below 2^-14: (1.m · 2^(e−150)) in units of 2^-24, truncated: sig >> (126 − e).
        let imp = self.k32(0x80_0000);
        let sig = self.int(IntOp::Or, Ty::B32, m, imp);
        let k126 = self.k32(126);
        let sh = self.int(IntOp::Sub, Ty::B32, k126, e);
        let k31 = self.k32(31);
        let sh = self.int(IntOp::MinU, Ty::B32, sh, k31);
        let sub = self.int(IntOp::LShr, Ty::B32, sig, sh);
        let k113 = self.k32(113);
        let is_normal = self.icmp(IntCmp::GeU, Ty::B32, e, k113);
        let r = self.sel(is_normal, normal, sub);
        let k143 = self.k32(143);
        let big = self.icmp(IntCmp::GeU, Ty::B32, e, k143);
        let kmax = self.k32(0x7bff);
        let r = self.sel(big, kmax, r);
        let inf = self.eq32(a, 0x7f80_0000);
        let kinf = self.k32(0x7c00);
        let r = self.sel(inf, kinf, r);
        let s = self.k32(16);
        let sign = self.int(IntOp::LShr, Ty::B32, x, s);
        let sign = self.and32(sign, 0x8000);
        let r = self.int(IntOp::Or, Ty::B32, r, sign);
        let nan = self.is_nan_f(F32, x);
        let q = self.k32(F16.qnan() as u32);
        self.sel(nan, q, r)
    }

    /// VOP3P V_PK_ADD/MUL/MIN/MAX_F16: each 16-bit lane from the halves op_sel (low) / op_sel_hi
    /// (high) pick, negated by neg_lo / neg_hi, one rounding to half (add/mul), clamp per lane.
    pub(super) fn valu_packed_float(
        &mut self,
        op: Opcode,
        srcs: [u32; 2],
        vdst: u16,
        sel: [u32; 2],
        negs: [u32; 2],
        clamp: bool,
    ) -> Result<bool, LiftError> {
        use Opcode::*;
        if !matches!(
            op,
            V_PK_ADD_F16 | V_PK_MUL_F16 | V_PK_MIN_F16 | V_PK_MAX_F16
        ) {
            return Ok(false);
        }
        let x = [self.src(srcs[0], Src::F16)?, self.src(srcs[1], Src::F16)?];
        let mut out = [x[0]; 2];
        for lane in 0..2 {
            let mut v = [x[0]; 2];
            for i in 0..2 {
                let shift = if sel[lane] >> i & 1 != 0 { 16 } else { 0 };
                let h = self.n(Node::Extract {
                    ty: Ty::B16,
                    a: x[i],
                    shift,
                });
                let h = self.modify_ty(h, i as u32, 0, negs[lane], Ty::B16);
                v[i] = self.un(UnOp::ZExt, Ty::B32, h);
            }
            let r = match op {
                V_PK_ADD_F16 => self.fadd(F16, v[0], v[1]),
                V_PK_MUL_F16 => {
                    let (a, b) = (self.lo16(v[0]), self.lo16(v[1]));
                    let r = self.float(FloatOp::F16Mul, a, b, a);
                    self.un(UnOp::ZExt, Ty::B32, r)
                }
                _ => self.minmax(F16, v[0], v[1], op == V_PK_MAX_F16),
            };
            out[lane] = if clamp {
                self.clamp_bits(Ty::B32, r, 0x8000, 0x7c00, 0x3c00)
            } else {
                r
            };
        }
        let r = self.insert_half(out[0], out[1], true);
        self.write_v(vdst, r);
        Ok(true)
    }
}
