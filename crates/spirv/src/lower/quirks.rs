//! Every float workaround of the lowering, in one place, keyed by the [`DeviceProfile`].
//!
//! Values arrive and leave as bit patterns (f16 and f32 in a u32, f64 in a u64). The host evaluator's
//! `specialize` module is the specification; each function here reproduces its counterpart bit for bit:
//!
//! * every float arithmetic result carries `NoContraction`;
//! * operands pass through an XOR with a zero that only arrives at run time (push constants), so the
//!   driver cannot fold `x + 0.0` or `x * 1.0` (lavapipe does, even under NoContraction) — when the
//!   profile says the device folds;
//! * NaN results become the default quiet NaN of their width (0x7e00, 0x7fc00000, 0x7ff8000000000000);
//! * fused multiply-adds use the round-to-odd emulation of [`crate::exact`] unless the profile measured
//!   a fused `Fma`; f64 FMA has no emulation yet and is refused;
//! * legacy multiply-add flushes denormal inputs, product and result by hand;
//! * f16 add/mul are computed in f32 and rounded once more to half (exact: 24 ≥ 2·11 + 2);
//! * min/max follow IEEE minNum/maxNum with −0 < +0, spelt out with compares and selects;
//! * f32→i32/u32 saturate and map NaN to 0 by hand unless the device already does.

use rdna2spv_ir::{FloatCmp, FloatOp, Ty, UnOp};
use spirv::{GlslStd450Op, Word};

use super::{Cx, R};

const F32_QNAN: u32 = 0x7fc0_0000;
const F16_QNAN: u32 = 0x7e00;
const F64_QNAN: u64 = 0x7ff8_0000_0000_0000;

impl Cx<'_> {
    fn folds(&self) -> bool {
        self.prof.folds_add_zero || self.prof.folds_mul_one
    }

    /// Hides a 32-bit operand's value from the driver's constant folding.
    fn opaque32(&mut self, x: Word) -> R<Word> {
        if !self.folds() {
            return Ok(x);
        }
        let z = self.zero32;
        Ok(self.b.bitwise_xor(self.t.u32, None, x, z)?)
    }

    fn opaque64(&mut self, x: Word) -> R<Word> {
        if !self.folds() {
            return Ok(x);
        }
        let z = self.zero64;
        Ok(self.b.bitwise_xor(self.t.u64, None, x, z)?)
    }

    fn f32_of(&mut self, bits: Word) -> R<Word> {
        let o = self.opaque32(bits)?;
        Ok(self.b.bitcast(self.t.f32, None, o)?)
    }

    fn f64_of(&mut self, bits: Word) -> R<Word> {
        let o = self.opaque64(bits)?;
        Ok(self.b.bitcast(self.t.f64, None, o)?)
    }

    /// f32 result → bits with the NaN canonicalised.
    fn canon32(&mut self, f: Word) -> R<Word> {
        let t = self.t;
        let nan = self.b.is_nan(t.bool, None, f)?;
        let bits = self.b.bitcast(t.u32, None, f)?;
        let q = self.c32(F32_QNAN);
        Ok(self.b.select(t.u32, None, nan, q, bits)?)
    }

    fn canon64(&mut self, f: Word) -> R<Word> {
        let t = self.t;
        let nan = self.b.is_nan(t.bool, None, f)?;
        let bits = self.b.bitcast(t.u64, None, f)?;
        let q = self.c64(F64_QNAN);
        Ok(self.b.select(t.u64, None, nan, q, bits)?)
    }

    /// Zero of the same sign for f32 denormals (bits in, bits out).
    fn flush32(&mut self, x: Word) -> R<Word> {
        let t = self.t;
        let e = self.mask(x, 0x7f80_0000)?;
        let z = self.c32(0);
        let den = self.b.i_equal(t.bool, None, e, z)?;
        let s = self.mask(x, 0x8000_0000)?;
        Ok(self.b.select(t.u32, None, den, s, x)?)
    }

    fn f32_arith(&mut self, op: FloatOp, a: Word, b: Word) -> R<Word> {
        let t = self.t;
        let x = self.f32_of(a)?;
        let y = self.f32_of(b)?;
        let r = match op {
            FloatOp::F32Add => self.b.f_add(t.f32, None, x, y)?,
            FloatOp::F32Sub => self.b.f_sub(t.f32, None, x, y)?,
            _ => self.b.f_mul(t.f32, None, x, y)?,
        };
        self.nc(r);
        self.canon32(r)
    }

    /// Exact f16 (bits in a u32) → f32 (bits), as the evaluator's `f16_to_f32`: integer arithmetic only.
    pub(crate) fn f16_to_f32_bits(&mut self, h: Word) -> R<Word> {
        let t = self.t;
        let c16 = self.c32(16);
        let sign0 = self.mask(h, 0x8000)?;
        let sign = self.b.shift_left_logical(t.u32, None, sign0, c16)?;
        let c10 = self.c32(10);
        let e0 = self.b.shift_right_logical(t.u32, None, h, c10)?;
        let e = self.mask(e0, 0x1f)?;
        let m = self.mask(h, 0x3ff)?;
        let c13 = self.c32(13);
        let m13 = self.b.shift_left_logical(t.u32, None, m, c13)?;
        // Normal: rebias the exponent.
        let c112 = self.c32(112);
        let eb = self.b.i_add(t.u32, None, e, c112)?;
        let c23 = self.c32(23);
        let eb = self.b.shift_left_logical(t.u32, None, eb, c23)?;
        let normal = self.b.bitwise_or(t.u32, None, eb, m13)?;
        // Zero / subnormal: m · 2^-24, exact in f32.
        let mf = self.b.convert_u_to_f(t.f32, None, m)?;
        let scale_bits = self.c32(0x3380_0000);
        let scale_bits = self.opaque32(scale_bits)?;
        let scale = self.b.bitcast(t.f32, None, scale_bits)?;
        let sub = self.b.f_mul(t.f32, None, mf, scale)?;
        self.nc(sub);
        let sub = self.b.bitcast(t.u32, None, sub)?;
        // Inf / NaN (NaNs quietened, payload kept).
        let inf = self.c32(0x7f80_0000);
        let infm = self.b.bitwise_or(t.u32, None, inf, m13)?;
        let z = self.c32(0);
        let mz = self.b.i_equal(t.bool, None, m, z)?;
        let q = self.c32(0x0040_0000);
        let qbit = self.b.select(t.u32, None, mz, z, q)?;
        let special = self.b.bitwise_or(t.u32, None, infm, qbit)?;
        let c31 = self.c32(31);
        let is_sp = self.b.i_equal(t.bool, None, e, c31)?;
        let is_sub = self.b.i_equal(t.bool, None, e, z)?;
        let mag = self.b.select(t.u32, None, is_sub, sub, normal)?;
        let mag = self.b.select(t.u32, None, is_sp, special, mag)?;
        Ok(self.b.bitwise_or(t.u32, None, sign, mag)?)
    }

    /// f32 bits → f16 bits (u32), one rounding to nearest even, NaN → 0x7e00. Needs Float16.
    pub(crate) fn f32_to_f16_bits(&mut self, x: Word) -> R<Word> {
        self.uses_f16 = true;
        let t = self.t;
        let f = self.f32_of(x)?;
        let f16 = self.b.type_float(16, None);
        let u16_ = self.b.type_int(16, 0);
        let h = self.b.f_convert(f16, None, f)?;
        let hb = self.b.bitcast(u16_, None, h)?;
        let hb = self.b.u_convert(t.u32, None, hb)?;
        let nan = self.b.is_nan(t.bool, None, f)?;
        let q = self.c32(F16_QNAN);
        Ok(self.b.select(t.u32, None, nan, q, hb)?)
    }

    fn f16_value(&mut self, bits: Word) -> R<Word> {
        self.uses_f16 = true;
        let f16 = self.b.type_float(16, None);
        let u16_ = self.b.type_int(16, 0);
        let o = self.opaque32(bits)?;
        let n = self.b.u_convert(u16_, None, o)?;
        Ok(self.b.bitcast(f16, None, n)?)
    }
}

/// A float primitive on bit patterns.
pub(super) fn float_op(cx: &mut Cx, op: FloatOp, a: Word, b: Word, c: Word) -> R<Word> {
    let t = cx.t;
    match op {
        FloatOp::F32Add | FloatOp::F32Sub | FloatOp::F32Mul => cx.f32_arith(op, a, b),
        FloatOp::F32Fma => {
            let x = cx.f32_of(a)?;
            let y = cx.f32_of(b)?;
            let z = cx.f32_of(c)?;
            let r = if cx.prof.fma_f32_fused {
                let r = cx.glsl_op(t.f32, GlslStd450Op::Fma, &[x, y, z])?;
                cx.nc(r)
            } else {
                crate::exact::emit_fma_f32_exact(&mut cx.b, x, y, z)?
            };
            cx.canon32(r)
        }
        FloatOp::F32LegacyMad => {
            let fa = cx.flush32(a)?;
            let fb = cx.flush32(b)?;
            let p = cx.f32_arith(FloatOp::F32Mul, fa, fb)?;
            let p = cx.flush32(p)?;
            let fc = cx.flush32(c)?;
            let s = cx.f32_arith(FloatOp::F32Add, p, fc)?;
            cx.flush32(s)
        }
        FloatOp::F32Min | FloatOp::F32Max => {
            let x = cx.f32_of(a)?;
            let y = cx.f32_of(b)?;
            let an = cx.b.is_nan(t.bool, None, x)?;
            let bn = cx.b.is_nan(t.bool, None, y)?;
            let eq = cx.b.f_ord_equal(t.bool, None, x, y)?;
            let (pick_a, tie) = if op == FloatOp::F32Min {
                (
                    cx.b.f_ord_less_than(t.bool, None, x, y)?,
                    cx.b.bitwise_or(t.u32, None, a, b)?,
                )
            } else {
                (
                    cx.b.f_ord_greater_than(t.bool, None, x, y)?,
                    cx.b.bitwise_and(t.u32, None, a, b)?,
                )
            };
            let r = cx.b.select(t.u32, None, pick_a, a, b)?;
            let r = cx.b.select(t.u32, None, eq, tie, r)?;
            let r = cx.b.select(t.u32, None, bn, a, r)?;
            let r = cx.b.select(t.u32, None, an, b, r)?;
            let both = cx.b.logical_and(t.bool, None, an, bn)?;
            let q = cx.c32(F32_QNAN);
            Ok(cx.b.select(t.u32, None, both, q, r)?)
        }
        FloatOp::F16Add | FloatOp::F16Mul => {
            let x = cx.f16_to_f32_bits(a)?;
            let y = cx.f16_to_f32_bits(b)?;
            let op32 = if op == FloatOp::F16Add {
                FloatOp::F32Add
            } else {
                FloatOp::F32Mul
            };
            let r = cx.f32_arith(op32, x, y)?;
            cx.f32_to_f16_bits(r)
        }
        FloatOp::F16FmaToHalf => {
            let x = cx.f16_value(a)?;
            let y = cx.f16_value(b)?;
            let z = cx.f16_value(c)?;
            let f16 = cx.b.type_float(16, None);
            let u16_ = cx.b.type_int(16, 0);
            let r = if cx.prof.fma_f16_fused {
                let r = cx.glsl_op(f16, GlslStd450Op::Fma, &[x, y, z])?;
                cx.nc(r)
            } else {
                crate::exact::emit_fma_f16_exact(&mut cx.b, x, y, z)?
            };
            let nan = cx.b.is_nan(t.bool, None, r)?;
            let bits = cx.b.bitcast(u16_, None, r)?;
            let bits = cx.b.u_convert(t.u32, None, bits)?;
            let q = cx.c32(F16_QNAN);
            Ok(cx.b.select(t.u32, None, nan, q, bits)?)
        }
        FloatOp::F64Add | FloatOp::F64Mul => {
            let x = cx.f64_of(a)?;
            let y = cx.f64_of(b)?;
            let r = if op == FloatOp::F64Add {
                cx.b.f_add(t.f64, None, x, y)?
            } else {
                cx.b.f_mul(t.f64, None, x, y)?
            };
            cx.nc(r);
            cx.canon64(r)
        }
        FloatOp::F64Fma => {
            if !cx.prof.fma_f64_fused {
                return Err(cx.unsupported_pub(
                    "F64Fma needs a device whose f64 Fma is fused (no exact emulation yet)",
                ));
            }
            let x = cx.f64_of(a)?;
            let y = cx.f64_of(b)?;
            let z = cx.f64_of(c)?;
            let r = cx.glsl_op(t.f64, GlslStd450Op::Fma, &[x, y, z])?;
            cx.nc(r);
            cx.canon64(r)
        }
    }
}

/// A float comparison on bit patterns (the evaluator compares in f64, which is exact for all widths).
pub(super) fn float_cmp(cx: &mut Cx, op: FloatCmp, ty: Ty, a: Word, b: Word) -> R<Word> {
    let t = cx.t;
    let (x, y) = match ty {
        Ty::B16 => {
            let a32 = cx.f16_to_f32_bits(a)?;
            let b32 = cx.f16_to_f32_bits(b)?;
            (cx.f32_of(a32)?, cx.f32_of(b32)?)
        }
        Ty::B64 => (cx.f64_of(a)?, cx.f64_of(b)?),
        _ => (cx.f32_of(a)?, cx.f32_of(b)?),
    };
    let bt = t.bool;
    Ok(match op {
        FloatCmp::F => cx.cfalse(),
        FloatCmp::Tru => cx.ctrue(),
        FloatCmp::Lt => cx.b.f_ord_less_than(bt, None, x, y)?,
        FloatCmp::Eq => cx.b.f_ord_equal(bt, None, x, y)?,
        FloatCmp::Le => cx.b.f_ord_less_than_equal(bt, None, x, y)?,
        FloatCmp::Gt => cx.b.f_ord_greater_than(bt, None, x, y)?,
        FloatCmp::Lg => cx.b.f_ord_not_equal(bt, None, x, y)?,
        FloatCmp::Ge => cx.b.f_ord_greater_than_equal(bt, None, x, y)?,
        FloatCmp::O | FloatCmp::U => {
            let an = cx.b.is_nan(bt, None, x)?;
            let bn = cx.b.is_nan(bt, None, y)?;
            let u = cx.b.logical_or(bt, None, an, bn)?;
            if op == FloatCmp::U {
                u
            } else {
                cx.b.logical_not(bt, None, u)?
            }
        }
        FloatCmp::Nge => cx.b.f_unord_less_than(bt, None, x, y)?,
        FloatCmp::Nlg => cx.b.f_unord_equal(bt, None, x, y)?,
        FloatCmp::Ngt => cx.b.f_unord_less_than_equal(bt, None, x, y)?,
        FloatCmp::Nle => cx.b.f_unord_greater_than(bt, None, x, y)?,
        FloatCmp::Neq => cx.b.f_unord_not_equal(bt, None, x, y)?,
        FloatCmp::Nlt => cx.b.f_unord_greater_than_equal(bt, None, x, y)?,
    })
}

/// Float conversions (bits in, bits out).
pub(super) fn convert(cx: &mut Cx, op: UnOp, x: Word) -> R<Word> {
    let t = cx.t;
    match op {
        UnOp::F16ToF32 => cx.f16_to_f32_bits(x),
        UnOp::F32ToF16 => cx.f32_to_f16_bits(x),
        UnOp::I32ToF32 | UnOp::U32ToF32 => {
            let o = cx.opaque32(x)?;
            let f = if op == UnOp::I32ToF32 {
                cx.b.convert_s_to_f(t.f32, None, o)?
            } else {
                cx.b.convert_u_to_f(t.f32, None, o)?
            };
            Ok(cx.b.bitcast(t.u32, None, f)?)
        }
        UnOp::F32ToI32 | UnOp::F32ToU32 => {
            let f = cx.f32_of(x)?;
            let signed = op == UnOp::F32ToI32;
            let raw = if signed {
                cx.b.convert_f_to_s(t.u32, None, f)?
            } else {
                cx.b.convert_f_to_u(t.u32, None, f)?
            };
            if cx.prof.float_to_int_saturates() {
                return Ok(raw);
            }
            // Clamp by hand: NaN → 0, out of range → the nearest representable integer.
            let bt = t.bool;
            let z = cx.c32(0);
            if signed {
                let hi_lim = cx.c32(0x4f00_0000); // 2^31
                let hi_lim = cx.b.bitcast(t.f32, None, hi_lim)?;
                let lo_lim = cx.c32(0xcf00_0000); // -2^31
                let lo_lim = cx.b.bitcast(t.f32, None, lo_lim)?;
                let too_big = cx.b.f_ord_greater_than_equal(bt, None, f, hi_lim)?;
                let too_small = cx.b.f_ord_less_than_equal(bt, None, f, lo_lim)?;
                let nan = cx.b.is_nan(bt, None, f)?;
                let max = cx.c32(i32::MAX as u32);
                let min = cx.c32(i32::MIN as u32);
                let r = cx.b.select(t.u32, None, too_big, max, raw)?;
                let r = cx.b.select(t.u32, None, too_small, min, r)?;
                Ok(cx.b.select(t.u32, None, nan, z, r)?)
            } else {
                let hi_lim = cx.c32(0x4f80_0000); // 2^32
                let hi_lim = cx.b.bitcast(t.f32, None, hi_lim)?;
                let one = cx.c32(0x3f80_0000);
                let one = cx.b.bitcast(t.f32, None, one)?;
                let too_big = cx.b.f_ord_greater_than_equal(bt, None, f, hi_lim)?;
                let at_least_one = cx.b.f_ord_greater_than_equal(bt, None, f, one)?;
                let max = cx.c32(u32::MAX);
                let r = cx.b.select(t.u32, None, too_big, max, raw)?;
                // Below 1 (negative, NaN, or a fraction) the result is 0.
                Ok(cx.b.select(t.u32, None, at_least_one, r, z)?)
            }
        }
        _ => Err(cx.unsupported_pub(format!("unary {op:?} is not a conversion"))),
    }
}

impl Cx<'_> {
    pub(super) fn unsupported_pub(&self, reason: impl Into<String>) -> super::LowerError {
        self.unsupported(reason)
    }
}
