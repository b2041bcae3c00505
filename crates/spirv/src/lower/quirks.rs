//! Every float workaround of the lowering, in one place, keyed by the [`DeviceProfile`].
//!
//! Values arrive and leave as bit patterns (f16 and f32 in a u32, f64 in a u64). The host evaluator's
//! `specialize` module is the specification; each function here reproduces its counterpart bit for bit:
//!
//! * every float arithmetic result carries `NoContraction`;
//! * operands pass through an XOR with a zero that only arrives at run time (push constants), so the
//!   driver cannot fold `x + 0.0`, `x * 1.0` or `x * 0.0` (lavapipe does, even under NoContraction) —
//!   when the profile says the device folds any of them;
//! * NaN results become the default quiet NaN of their width (`rdna2spv_ir::quirks`, D170);
//! * fused multiply-adds use the round-to-odd emulation of [`crate::exact`] unless the profile measured
//!   a fused `Fma`; f64 has no wider type, so its FMA is emulated in integer arithmetic (128-bit product,
//!   alignment with a sticky bit, one rounding to nearest even, subnormals and overflow included);
//! * legacy multiply-add flushes denormal inputs, product and result by hand;
//! * f16 add/mul are computed in f32 and rounded once more to half (exact: 24 ≥ 2·11 + 2); without
//!   Float16 in the profile every f16 step (widening, narrowing, the fused form) is integer arithmetic
//!   plus f32, so the module needs neither Float16 nor Int16;
//! * min/max follow IEEE minNum/maxNum with −0 < +0, spelt out with compares and selects;
//! * f32→i32/u32 saturate and map NaN to 0 by hand unless the device already does;
//! * f32 division and square root (the correctly rounded models of V_RCP_F32/V_SQRT_F32, D012) use
//!   OpFDiv / GLSL Sqrt only where the profile measured them correctly rounded, and are refused
//!   otherwise; the scaled fused multiply-add of V_DIV_FMAS_F32 is the round-to-odd FMA in f64, scaled
//!   exactly there, then narrowed once.

use rdna2spv_ir::{FloatCmp, FloatOp, Ty, UnOp};
use spirv::{GlslStd450Op, Word};

use super::{Cx, R};

use rdna2spv_ir::quirks::{F32_DEFAULT_NAN, F64_DEFAULT_NAN};
/// The half default NaN as the u32 the lowering carries halves in.
const F16_NAN_U32: u32 = rdna2spv_ir::quirks::F16_DEFAULT_NAN as u32;

impl Cx<'_> {
    /// f32 subnormals survive the device's own f32 arithmetic: measured so, or kept by the `DenormPreserve 32`
    /// execution mode the module then requests (D168).
    pub(super) fn preserve32(&self) -> bool {
        self.prof.preserves_subnormals_f32 || self.prof.denorm_preserve_mode_honoured
    }

    fn folds(&self) -> bool {
        self.prof.folds_add_zero || self.prof.folds_mul_one || self.prof.folds_mul_zero
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
        let q = self.c32(F32_DEFAULT_NAN);
        Ok(self.b.select(t.u32, None, nan, q, bits)?)
    }

    fn canon64(&mut self, f: Word) -> R<Word> {
        let t = self.t;
        let nan = self.b.is_nan(t.bool, None, f)?;
        let bits = self.b.bitcast(t.u64, None, f)?;
        let q = self.c64(F64_DEFAULT_NAN);
        Ok(self.b.select(t.u64, None, nan, q, bits)?)
    }

    /// Zero of the same sign for f32 denormals (bits in, bits out).
    fn flush32(&mut self, x: Word) -> R<Word> {
        self.flush_bits(Ty::B32, x)
    }

    fn f32_arith(&mut self, op: FloatOp, a: Word, b: Word) -> R<Word> {
        let t = self.t;
        if !self.preserve32() {
            // A device that may flush f32 subnormals (D168): widen exactly by integer work, compute in f64
            // (every f32 operand, sum and product is far above f64's subnormals; the product is exact, a
            // sum in the f32 subnormal range is exact, and one f64 rounding before the f32 one is
            // innocuous for +, −, × since 53 ≥ 2·24 + 2), narrow to f32 by integer work, rounding once.
            let x = self.f32_to_f64_int(a)?;
            let y = self.f32_to_f64_int(b)?;
            let x = self.f64_of(x)?;
            let y = self.f64_of(y)?;
            let r = match op {
                FloatOp::F32Add => self.b.f_add(t.f64, None, x, y)?,
                FloatOp::F32Sub => self.b.f_sub(t.f64, None, x, y)?,
                _ => self.b.f_mul(t.f64, None, x, y)?,
            };
            self.nc(r);
            let w = self.b.bitcast(t.u64, None, r)?;
            return self.f64_to_f32_int(w);
        }
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

    /// f32 bits → the same value as f64 bits, integer work only (subnormals normalised; NaN stays NaN):
    /// no device conversion, which may flush an f32 subnormal input (D168).
    pub(crate) fn f32_to_f64_int(&mut self, x: Word) -> R<Word> {
        let t = self.t;
        let (u, w, bt) = (t.u32, t.u64, t.bool);
        let sign = self.mask(x, 0x8000_0000)?;
        let sign = self.b.u_convert(w, None, sign)?;
        let c32 = self.c64(32);
        let sign = self.b.shift_left_logical(w, None, sign, c32)?;
        let c23 = self.c32(23);
        let e0 = self.b.shift_right_logical(u, None, x, c23)?;
        let e = self.mask(e0, 0xff)?;
        let m = self.mask(x, 0x7f_ffff)?;
        let m64 = self.b.u_convert(w, None, m)?;
        let e64 = self.b.u_convert(w, None, e)?;
        let c52 = self.c64(52);
        let c29 = self.c64(29);
        let frac = self.b.shift_left_logical(w, None, m64, c29)?;
        // Normal: exponent rebiased by 1023 − 127.
        let c896 = self.c64(896);
        let eb = self.b.i_add(w, None, e64, c896)?;
        let eb = self.b.shift_left_logical(w, None, eb, c52)?;
        let normal = self.b.bitwise_or(w, None, eb, frac)?;
        // Subnormal m·2^-149 with its top bit at `msb`: exponent msb − 149, fraction m << (52 − msb).
        let msb = self.glsl_op(u, GlslStd450Op::FindUMsb, &[m])?;
        let msb = self.b.u_convert(w, None, msb)?;
        let c874 = self.c64(874);
        let es = self.b.i_add(w, None, msb, c874)?;
        let es = self.b.shift_left_logical(w, None, es, c52)?;
        let sh = self.b.i_sub(w, None, c52, msb)?;
        let fs = self.b.shift_left_logical(w, None, m64, sh)?;
        let fmask = self.c64((1 << 52) - 1);
        let fs = self.b.bitwise_and(w, None, fs, fmask)?;
        let sub = self.b.bitwise_or(w, None, es, fs)?;
        let z32 = self.c32(0);
        let z64 = self.c64(0);
        let m_zero = self.b.i_equal(bt, None, m, z32)?;
        let sub = self.b.select(w, None, m_zero, z64, sub)?;
        // Infinity / NaN.
        let inf = self.c64(0x7ff0_0000_0000_0000);
        let special = self.b.bitwise_or(w, None, inf, frac)?;
        let e_zero = self.b.i_equal(bt, None, e, z32)?;
        let c255 = self.c32(255);
        let e_max = self.b.i_equal(bt, None, e, c255)?;
        let mag = self.b.select(w, None, e_zero, sub, normal)?;
        let mag = self.b.select(w, None, e_max, special, mag)?;
        Ok(self.b.bitwise_or(w, None, sign, mag)?)
    }

    /// f64 bits → f32 bits, one rounding to nearest even into the normal or subnormal range or to ±inf,
    /// NaN → D005's default NaN; integer work only (no device conversion, which may flush, D168).
    pub(crate) fn f64_to_f32_int(&mut self, x: Word) -> R<Word> {
        let t = self.t;
        let (u, w, bt) = (t.u32, t.u64, t.bool);
        let c32 = self.c64(32);
        let hi = self.b.shift_right_logical(w, None, x, c32)?;
        let hi = self.b.u_convert(u, None, hi)?;
        let sign = self.mask(hi, 0x8000_0000)?;
        let absm = self.c64(0x7fff_ffff_ffff_ffff);
        let ax = self.b.bitwise_and(w, None, x, absm)?;
        let c52 = self.c64(52);
        let e = self.b.shift_right_logical(w, None, ax, c52)?;
        let one = self.c64(1);
        let z = self.c64(0);
        // Round `m >> s` to nearest even (s in 1..=63).
        let round = |cx: &mut Self, m: Word, s: Word| -> R<Word> {
            let q = cx.b.shift_right_logical(w, None, m, s)?;
            let bit = cx.b.shift_left_logical(w, None, one, s)?;
            let mask = cx.b.i_sub(w, None, bit, one)?;
            let rem = cx.b.bitwise_and(w, None, m, mask)?;
            let half = cx.b.shift_right_logical(w, None, bit, one)?;
            let above = cx.b.u_greater_than(bt, None, rem, half)?;
            let tie = cx.b.i_equal(bt, None, rem, half)?;
            let qodd = cx.b.bitwise_and(w, None, q, one)?;
            let odd = cx.b.i_equal(bt, None, qodd, one)?;
            let tie_up = cx.b.logical_and(bt, None, tie, odd)?;
            let up = cx.b.logical_or(bt, None, above, tie_up)?;
            let inc = cx.b.select(w, None, up, one, z)?;
            Ok(cx.b.i_add(w, None, q, inc)?)
        };
        // Normal f32 results (e ≥ 897): rebias, round 29 bits off (a carry moves into the exponent, up to
        // 0x7f800000 = inf).
        let c29 = self.c64(29);
        let rebias = self.c64(896 << 52);
        let nb = self.b.i_sub(w, None, ax, rebias)?;
        let normal = round(self, nb, c29)?;
        // Subnormal results: the significand with its implicit bit, shifted by 926 − e (≥ 30).
        let fmask = self.c64((1 << 52) - 1);
        let frac = self.b.bitwise_and(w, None, ax, fmask)?;
        let imp = self.c64(1 << 52);
        let m = self.b.bitwise_or(w, None, frac, imp)?;
        let c926 = self.c64(926);
        let s = self.b.i_sub(w, None, c926, e)?;
        let c63 = self.c64(63);
        let s_big = self.b.u_greater_than(bt, None, s, c63)?;
        let s_c = self.b.select(w, None, s_big, c63, s)?;
        let sub = round(self, m, s_c)?;
        let sub = self.b.select(w, None, s_big, z, sub)?;
        let c897 = self.c64(897);
        let is_normal = self.b.u_greater_than_equal(bt, None, e, c897)?;
        let mag = self.b.select(w, None, is_normal, normal, sub)?;
        // Exponents past f32's range overflow to infinity.
        let lim = self.c64(1151);
        let over = self.b.u_greater_than_equal(bt, None, e, lim)?;
        let inf = self.c64(0x7f80_0000);
        let mag = self.b.select(w, None, over, inf, mag)?;
        let mag = self.b.u_convert(u, None, mag)?;
        let r = self.b.bitwise_or(u, None, sign, mag)?;
        let nan_lim = self.c64(0x7ff0_0000_0000_0000);
        let nan = self.b.u_greater_than(bt, None, ax, nan_lim)?;
        let q = self.c32(F32_DEFAULT_NAN);
        Ok(self.b.select(u, None, nan, q, r)?)
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

    /// f32 bits → f16 bits (u32), one rounding to nearest even, NaN → 0x7e00: the device's conversion
    /// when it has Float16, else integer arithmetic.
    pub(crate) fn f32_to_f16_bits(&mut self, x: Word) -> R<Word> {
        if !self.prof.has_float16 || !self.prof.preserves_subnormals_f16 {
            // Integer narrowing: a device conversion may flush an f16 subnormal result (D168).
            return self.f32_to_f16_int(x);
        }
        self.uses_f16 = true;
        let t = self.t;
        let f = self.f32_of(x)?;
        let f16 = self.b.type_float(16, None);
        let u16_ = self.b.type_int(16, 0);
        let h = self.b.f_convert(f16, None, f)?;
        let hb = self.b.bitcast(u16_, None, h)?;
        let hb = self.b.u_convert(t.u32, None, hb)?;
        let nan = self.b.is_nan(t.bool, None, f)?;
        let q = self.c32(F16_NAN_U32);
        Ok(self.b.select(t.u32, None, nan, q, hb)?)
    }

    /// f32 bits → f16 bits with integer operations only (no Float16 needed).
    fn f32_to_f16_int(&mut self, x: Word) -> R<Word> {
        let t = self.t;
        let bt = t.bool;
        let u = t.u32;
        let c16 = self.c32(16);
        let sign = self.b.shift_right_logical(u, None, x, c16)?;
        let sign = self.mask(sign, 0x8000)?;
        let ax = self.mask(x, 0x7fff_ffff)?;
        let c23 = self.c32(23);
        let e = self.b.shift_right_logical(u, None, ax, c23)?;
        let mant = self.mask(ax, 0x7f_ffff)?;
        let one = self.c32(1);
        let z = self.c32(0);
        // Round `m >> s` to nearest even (s in 1..=31).
        let round = |cx: &mut Self, m: Word, s: Word| -> R<Word> {
            let q = cx.b.shift_right_logical(u, None, m, s)?;
            let bit = cx.b.shift_left_logical(u, None, one, s)?;
            let mask = cx.b.i_sub(u, None, bit, one)?;
            let rem = cx.b.bitwise_and(u, None, m, mask)?;
            let half = cx.b.shift_right_logical(u, None, bit, one)?;
            let above = cx.b.u_greater_than(bt, None, rem, half)?;
            let tie = cx.b.i_equal(bt, None, rem, half)?;
            let qodd = cx.b.bitwise_and(u, None, q, one)?;
            let odd = cx.b.i_equal(bt, None, qodd, one)?;
            let tie_up = cx.b.logical_and(bt, None, tie, odd)?;
            let up = cx.b.logical_or(bt, None, above, tie_up)?;
            let inc = cx.b.select(u, None, up, one, z)?;
            Ok(cx.b.i_add(u, None, q, inc)?)
        };
        // Normal halves: exponent rebiased, 13 bits rounded off (a carry moves into the exponent).
        let c13 = self.c32(13);
        let rebias = self.c32(112 << 23);
        let nb = self.b.i_sub(u, None, ax, rebias)?;
        let normal = round(self, nb, c13)?;
        // Subnormal halves: the significand shifted by 126 − e (≥ 14); below 2^-25 everything rounds to 0.
        let imp = self.c32(1 << 23);
        let m = self.b.bitwise_or(u, None, mant, imp)?;
        let c126 = self.c32(126);
        let s = self.b.i_sub(u, None, c126, e)?;
        let c31 = self.c32(31);
        let s_big = self.b.u_greater_than(bt, None, s, c31)?;
        let s_c = self.b.select(u, None, s_big, c31, s)?;
        let sub = round(self, m, s_c)?;
        let sub = self.b.select(u, None, s_big, z, sub)?;
        let e_zero = self.b.i_equal(bt, None, e, z)?;
        let sub = self.b.select(u, None, e_zero, z, sub)?;
        let c113 = self.c32(113);
        let is_normal = self.b.u_greater_than_equal(bt, None, e, c113)?;
        let mag = self.b.select(u, None, is_normal, normal, sub)?;
        // 65520 and above (infinity included) overflow; NaN is the default NaN.
        let lim = self.c32(0x477f_f000);
        let over = self.b.u_greater_than_equal(bt, None, ax, lim)?;
        let inf = self.c32(0x7c00);
        let mag = self.b.select(u, None, over, inf, mag)?;
        let r = self.b.bitwise_or(u, None, sign, mag)?;
        let nan_lim = self.c32(0x7f80_0000);
        let nan = self.b.u_greater_than(bt, None, ax, nan_lim)?;
        let q = self.c32(F16_NAN_U32);
        Ok(self.b.select(u, None, nan, q, r)?)
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

/// A float primitive on bit patterns. Its code is a pure function of `a`, `b`, `c`: the ids it defines
/// after a marker id are recorded so that the lane mapping can share repeated large sequences (the exact
/// f64 FMA) as one SPIR-V function (decision D163).
///
/// In the lane mapping the primitive is first put in a canonical form (decision D197): an f64 add or
/// multiply the profile emulates is the integer FMA it already was (`a·1 + b`, `a·b + (−0)`), with its
/// constant operand an input; the 2^±k scale of `F64FmaLdexp(k)` is two inputs (the exponent and the
/// scale's bits) instead of constants inside its code; and each input enters through an `OpCopyObject`,
/// so that the span's code reads every input through its own id whatever the inputs are (equal ids,
/// constants). Spans then differ only in their inputs: every f64 add, multiply and FMA of a module can
/// share one function, every 2^±128-scaled FMA another; the span's third number is its copies, which
/// `lane::shrink` turns into parameters (or constants every call passes) or removes again.
pub(super) fn float_op(cx: &mut Cx, op: FloatOp, a: Word, b: Word, c: Word) -> R<Word> {
    if cx.lm.is_none() {
        return float_op_inline(cx, op, a, b, c);
    }
    let t = cx.t;
    let soft64 = !cx.prof.preserves_subnormals_f64;
    let w = |op: FloatOp| match op {
        FloatOp::F64Add | FloatOp::F64Mul | FloatOp::F64Fma | FloatOp::F64FmaLdexp(_) => t.u64,
        _ => t.u32,
    };
    let (op, ins, tys): (FloatOp, Vec<Word>, Vec<Word>) = match op {
        FloatOp::F64Add if soft64 => {
            let one = cx.c64(0x3ff0_0000_0000_0000);
            (FloatOp::F64Fma, vec![a, one, b], vec![t.u64; 3])
        }
        FloatOp::F64Mul if soft64 => {
            let nz = cx.c64(1 << 63);
            (FloatOp::F64Fma, vec![a, b, nz], vec![t.u64; 3])
        }
        FloatOp::F64FmaLdexp(k) => {
            let kk = cx.c32(k as i32 as u32);
            let p2 = cx.c64(((1023 + k as i64) as u64) << 52);
            (
                op,
                vec![a, b, c, kk, p2],
                vec![t.u64, t.u64, t.u64, t.u32, t.u64],
            )
        }
        _ => {
            let n = op.arity();
            (op, [a, b, c][..n].to_vec(), vec![w(op); n])
        }
    };
    let mark = cx.b.id();
    let mut v = Vec::with_capacity(ins.len());
    for (x, ty) in ins.iter().zip(&tys) {
        v.push(cx.b.copy_object(*ty, None, *x)?);
    }
    let r = match op {
        FloatOp::F64FmaLdexp(_) => {
            f64_fma_soft(cx, v[0], v[1], v[2], Some(Scale::Ids(v[3], v[4])))?
        }
        _ => {
            let a = v[0];
            let b = v.get(1).copied().unwrap_or(a);
            let c = v.get(2).copied().unwrap_or(a);
            float_op_inline(cx, op, a, b, c)?
        }
    };
    cx.spans.push((mark, r, v.len() as u32));
    Ok(r)
}

fn float_op_inline(cx: &mut Cx, op: FloatOp, a: Word, b: Word, c: Word) -> R<Word> {
    let t = cx.t;
    match op {
        FloatOp::F32Add | FloatOp::F32Sub | FloatOp::F32Mul => cx.f32_arith(op, a, b),
        FloatOp::F32Fma => {
            let x = cx.f32_of(a)?;
            let y = cx.f32_of(b)?;
            let z = cx.f32_of(c)?;
            let r = if !cx.preserve32() {
                // A device that may flush f32 subnormals (D168): widen and narrow by integer work, round
                // to odd in f64 (no f64 subnormal arises from f32 operands).
                let mut wv = [0; 3];
                for (k, v) in [a, b, c].into_iter().enumerate() {
                    let bits = cx.f32_to_f64_int(v)?;
                    wv[k] = cx.f64_of(bits)?;
                }
                let odd = crate::exact::emit_round_to_odd_fma(&mut cx.b, 64, wv[0], wv[1], wv[2])?;
                let bits = cx.b.bitcast(t.u64, None, odd)?;
                return cx.f64_to_f32_int(bits);
            } else if cx.prof.fma_f32_fused {
                let r = cx.glsl_op(t.f32, GlslStd450Op::Fma, &[x, y, z])?;
                cx.nc(r)
            } else {
                crate::exact::emit_fma_f32_exact(&mut cx.b, x, y, z)?
            };
            cx.canon32(r)
        }
        FloatOp::F32Div | FloatOp::F32Sqrt => {
            if !cx.prof.div_sqrt_f32_correctly_rounded {
                return f32_div_sqrt_exact(cx, op == FloatOp::F32Div, a, b);
            }
            let x = cx.f32_of(a)?;
            let r = if op == FloatOp::F32Div {
                let y = cx.f32_of(b)?;
                cx.b.f_div(t.f32, None, x, y)?
            } else {
                cx.glsl_op(t.f32, GlslStd450Op::Sqrt, &[x])?
            };
            cx.nc(r);
            cx.canon32(r)
        }
        FloatOp::F64FmaLdexp(k) => f64_fma_soft(cx, a, b, c, Some(Scale::Const(k as i32))),
        FloatOp::F32FmaLdexp(k) => {
            // Round to odd in f64 (exact product, TwoSum), scale exactly in f64, one narrowing.
            let mut w = [0; 3];
            for (i, v) in [a, b, c].into_iter().enumerate() {
                let f = cx.f32_of(v)?;
                w[i] = cx.b.f_convert(t.f64, None, f)?;
            }
            let odd = crate::exact::emit_round_to_odd_fma(&mut cx.b, 64, w[0], w[1], w[2])?;
            let scale = cx.c64(((1023 + k as i64) as u64) << 52);
            let scale = cx.opaque64(scale)?;
            let scale = cx.b.bitcast(t.f64, None, scale)?;
            let scaled = cx.b.f_mul(t.f64, None, odd, scale)?;
            cx.nc(scaled);
            let r = cx.b.f_convert(t.f32, None, scaled)?;
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
        FloatOp::F16FmaToHalf if !cx.prof.has_float16 || !cx.prof.preserves_subnormals_f16 => {
            // No Float16: widen exactly, round to odd in f32 (the product of halves is exact there), then
            // one rounding to half (24 ≥ 2·11 + 2).
            let mut w = [0; 3];
            for (k, v) in [a, b, c].into_iter().enumerate() {
                let bits = cx.f16_to_f32_bits(v)?;
                w[k] = cx.f32_of(bits)?;
            }
            let odd = crate::exact::emit_round_to_odd_fma(&mut cx.b, 32, w[0], w[1], w[2])?;
            let bits = cx.b.bitcast(t.u32, None, odd)?;
            cx.f32_to_f16_int(bits)
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
            let q = cx.c32(F16_NAN_U32);
            Ok(cx.b.select(t.u32, None, nan, q, bits)?)
        }
        FloatOp::F64Add | FloatOp::F64Mul if !cx.prof.preserves_subnormals_f64 => {
            // A device that may flush f64 subnormals (D168): the integer fma rounds once, subnormals
            // included: a + b = fma(a, 1, b); a · b = fma(a, b, −0) (−0 keeps the product's zero sign).
            if op == FloatOp::F64Add {
                let one = cx.c64(0x3ff0_0000_0000_0000);
                f64_fma_soft(cx, a, one, b, None)
            } else {
                let nz = cx.c64(1 << 63);
                f64_fma_soft(cx, a, b, nz, None)
            }
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
        // Every module declares Float64 and Int64 (D006), so the portable profile lowers F64Fma by the
        // integer emulation like F64Add/F64Mul and the f32 fused forms (decision D066 replaces D016's
        // refusal).
        FloatOp::F64Fma => {
            if !cx.prof.preserves_subnormals_f64 {
                return f64_fma_soft(cx, a, b, c, None);
            }
            if !cx.prof.fma_f64_fused {
                // The device keeps f64 subnormals: float operations suffice (D209).
                return f64_fma_float(cx, a, b, c);
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

/// [`Cx::f32_to_f64_int`], recorded as a span for the lane mapping's outlining like [`float_op`]'s (its
/// input through a copy, D197).
fn widen_span(cx: &mut Cx, x: Word) -> R<Word> {
    if cx.lm.is_none() {
        return cx.f32_to_f64_int(x);
    }
    let mark = cx.b.id();
    let x = cx.b.copy_object(cx.t.u32, None, x)?;
    let r = cx.f32_to_f64_int(x)?;
    cx.spans.push((mark, r, 1));
    Ok(r)
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
        _ if !cx.preserve32() => {
            // A device that may treat f32 subnormal operands as zero (D168): compare exact f64 widenings,
            // each a span the lane mapping may share as one function (D163, D182).
            let a64 = widen_span(cx, a)?;
            let b64 = widen_span(cx, b)?;
            (cx.f64_of(a64)?, cx.f64_of(b64)?)
        }
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
        // MODE.FP_DENORM (D166): integer work only, so no driver's own denormal handling can enter.
        UnOp::Flush => Err(cx.unsupported_pub("flush is lowered by Cx::flush_bits")),
        _ => Err(cx.unsupported_pub(format!("unary {op:?} is not a conversion"))),
    }
}

impl Cx<'_> {
    /// `x` (a float of width `ty` as bits: f16 in a u32) with a denormal replaced by the zero of its sign
    /// (UnOp::Flush, D166): `exponent == 0 ? x & sign : x`.
    pub(super) fn flush_bits(&mut self, ty: Ty, x: Word) -> R<Word> {
        let t = self.t;
        let (st, exp, sign, zero) = match ty {
            Ty::B64 => (
                t.u64,
                self.c64(0x7ff0_0000_0000_0000),
                self.c64(1 << 63),
                self.c64(0),
            ),
            Ty::B16 => (t.u32, self.c32(0x7c00), self.c32(0x8000), self.c32(0)),
            _ => (
                t.u32,
                self.c32(0x7f80_0000),
                self.c32(0x8000_0000),
                self.c32(0),
            ),
        };
        let e = self.b.bitwise_and(st, None, x, exp)?;
        let denormal_or_zero = self.b.i_equal(t.bool, None, e, zero)?;
        let signed_zero = self.b.bitwise_and(st, None, x, sign)?;
        Ok(self.b.select(st, None, denormal_or_zero, signed_zero, x)?)
    }

    pub(super) fn unsupported_pub(&self, reason: impl Into<String>) -> super::LowerError {
        self.unsupported(reason)
    }
}

/// A 128-bit unsigned integer as (high, low) u64 ids.
type U128 = (Word, Word);

impl Cx<'_> {
    fn sel64(&mut self, c: Word, a: Word, b: Word) -> R<Word> {
        Ok(self.b.select(self.t.u64, None, c, a, b)?)
    }
    fn sel128(&mut self, c: Word, a: U128, b: U128) -> R<U128> {
        Ok((self.sel64(c, a.0, b.0)?, self.sel64(c, a.1, b.1)?))
    }

    /// Index of the highest set bit of a nonzero u64 (as u32).
    fn msb64(&mut self, x: Word) -> R<Word> {
        let t = self.t;
        let lo = self.b.u_convert(t.u32, None, x)?;
        let c32 = self.c64(32);
        let hi = self.b.shift_right_logical(t.u64, None, x, c32)?;
        let hi = self.b.u_convert(t.u32, None, hi)?;
        let mlo = self.glsl_op(t.u32, GlslStd450Op::FindUMsb, &[lo])?;
        let mhi = self.glsl_op(t.u32, GlslStd450Op::FindUMsb, &[hi])?;
        let k32 = self.c32(32);
        let mhi = self.b.i_add(t.u32, None, mhi, k32)?;
        let z = self.c32(0);
        let hz = self.b.i_equal(t.bool, None, hi, z)?;
        Ok(self.b.select(t.u32, None, hz, mlo, mhi)?)
    }

    /// Index of the highest set bit of a nonzero 128-bit value.
    fn msb128(&mut self, x: U128) -> R<Word> {
        let t = self.t;
        let mlo = self.msb64(x.1)?;
        let mhi = self.msb64(x.0)?;
        let k64 = self.c32(64);
        let mhi = self.b.i_add(t.u32, None, mhi, k64)?;
        let z = self.c64(0);
        let hz = self.b.i_equal(t.bool, None, x.0, z)?;
        Ok(self.b.select(t.u32, None, hz, mlo, mhi)?)
    }

    /// x << n for n in 0..=127 (u32).
    fn shl128(&mut self, x: U128, n: Word) -> R<U128> {
        let t = self.t;
        let c63 = self.c32(63);
        let c64 = self.c32(64);
        let z = self.c64(0);
        let zero32 = self.c32(0);
        let n63 = self.b.bitwise_and(t.u32, None, n, c63)?;
        // n < 64
        let hi_a = self.b.shift_left_logical(t.u64, None, x.0, n63)?;
        let back = self.b.i_sub(t.u32, None, c64, n63)?;
        let back = self.b.bitwise_and(t.u32, None, back, c63)?;
        let carry = self.b.shift_right_logical(t.u64, None, x.1, back)?;
        let n0 = self.b.i_equal(t.bool, None, n63, zero32)?;
        let carry = self.sel64(n0, z, carry)?;
        let hi_a = self.b.bitwise_or(t.u64, None, hi_a, carry)?;
        let lo_a = self.b.shift_left_logical(t.u64, None, x.1, n63)?;
        // n >= 64
        let hi_b = lo_a;
        let big = self.b.u_greater_than_equal(t.bool, None, n, c64)?;
        self.sel128(big, (hi_b, z), (hi_a, lo_a))
    }

    /// x >> n with every shifted-out bit ORed into bit 0 ("jamming"); any n (u32).
    fn shr128_jam(&mut self, x: U128, n: Word) -> R<U128> {
        let t = self.t;
        let c63 = self.c32(63);
        let c64 = self.c32(64);
        let c128 = self.c32(128);
        let z = self.c64(0);
        let one = self.c64(1);
        let zero32 = self.c32(0);
        let n63 = self.b.bitwise_and(t.u32, None, n, c63)?;
        let n0 = self.b.i_equal(t.bool, None, n63, zero32)?;
        let back = self.b.i_sub(t.u32, None, c64, n63)?;
        let back = self.b.bitwise_and(t.u32, None, back, c63)?;
        // n < 64
        let lo_a = self.b.shift_right_logical(t.u64, None, x.1, n63)?;
        let from_hi = self.b.shift_left_logical(t.u64, None, x.0, back)?;
        let from_hi = self.sel64(n0, z, from_hi)?;
        let lo_a = self.b.bitwise_or(t.u64, None, lo_a, from_hi)?;
        let hi_a = self.b.shift_right_logical(t.u64, None, x.0, n63)?;
        let lost_a = self.b.shift_left_logical(t.u64, None, x.1, back)?;
        let lost_a = self.sel64(n0, z, lost_a)?;
        // 64 <= n < 128
        let lo_b = self.b.shift_right_logical(t.u64, None, x.0, n63)?;
        let lost_hi = self.b.shift_left_logical(t.u64, None, x.0, back)?;
        let lost_hi = self.sel64(n0, z, lost_hi)?;
        let lost_b = self.b.bitwise_or(t.u64, None, lost_hi, x.1)?;
        // n >= 128: everything is lost.
        let lost_c = self.b.bitwise_or(t.u64, None, x.0, x.1)?;
        let ge64 = self.b.u_greater_than_equal(t.bool, None, n, c64)?;
        let ge128 = self.b.u_greater_than_equal(t.bool, None, n, c128)?;
        let (hi, lo) = self.sel128(ge64, (z, lo_b), (hi_a, lo_a))?;
        let (hi, lo) = self.sel128(ge128, (z, z), (hi, lo))?;
        let lost = self.sel64(ge64, lost_b, lost_a)?;
        let lost = self.sel64(ge128, lost_c, lost)?;
        let any = self.b.i_not_equal(t.bool, None, lost, z)?;
        let jam = self.sel64(any, one, z)?;
        let lo = self.b.bitwise_or(t.u64, None, lo, jam)?;
        Ok((hi, lo))
    }

    fn add128(&mut self, a: U128, b: U128) -> R<U128> {
        let t = self.t;
        let lo = self.b.i_add(t.u64, None, a.1, b.1)?;
        let carry = self.b.u_less_than(t.bool, None, lo, a.1)?;
        let (one, z) = (self.c64(1), self.c64(0));
        let c = self.sel64(carry, one, z)?;
        let hi = self.b.i_add(t.u64, None, a.0, b.0)?;
        Ok((self.b.i_add(t.u64, None, hi, c)?, lo))
    }

    fn sub128(&mut self, a: U128, b: U128) -> R<U128> {
        let t = self.t;
        let lo = self.b.i_sub(t.u64, None, a.1, b.1)?;
        let borrow = self.b.u_less_than(t.bool, None, a.1, b.1)?;
        let (one, z) = (self.c64(1), self.c64(0));
        let c = self.sel64(borrow, one, z)?;
        let hi = self.b.i_sub(t.u64, None, a.0, b.0)?;
        Ok((self.b.i_sub(t.u64, None, hi, c)?, lo))
    }

    /// a >= b (unsigned 128-bit).
    fn ge128(&mut self, a: U128, b: U128) -> R<Word> {
        let t = self.t;
        let hgt = self.b.u_greater_than(t.bool, None, a.0, b.0)?;
        let heq = self.b.i_equal(t.bool, None, a.0, b.0)?;
        let lge = self.b.u_greater_than_equal(t.bool, None, a.1, b.1)?;
        let eq_ge = self.b.logical_and(t.bool, None, heq, lge)?;
        Ok(self.b.logical_or(t.bool, None, hgt, eq_ge)?)
    }

    /// (significand with the implicit bit, exponent of its last bit) of a finite, nonzero f64; the
    /// exponent is an i32 in a u32.
    fn f64_parts(&mut self, x: Word) -> R<(Word, Word)> {
        let t = self.t;
        let c52 = self.c64(52);
        let e = self.b.shift_right_logical(t.u64, None, x, c52)?;
        let m7ff = self.c64(0x7ff);
        let e = self.b.bitwise_and(t.u64, None, e, m7ff)?;
        let e = self.b.u_convert(t.u32, None, e)?;
        let fm = self.c64((1u64 << 52) - 1);
        let frac = self.b.bitwise_and(t.u64, None, x, fm)?;
        let z32 = self.c32(0);
        let sub = self.b.i_equal(t.bool, None, e, z32)?;
        let imp = self.c64(1u64 << 52);
        let z = self.c64(0);
        let hidden = self.sel64(sub, z, imp)?;
        let m = self.b.bitwise_or(t.u64, None, frac, hidden)?;
        let one = self.c32(1);
        let e = self.b.select(t.u32, None, sub, one, e)?;
        let bias = self.c32(1075);
        let lsb = self.b.i_sub(t.u32, None, e, bias)?;
        Ok((m, lsb))
    }
}

/// What every exact f64 FMA shares: the operands hidden from constant folding, their classes (finite,
/// zero) and the results for special operands — the plain a·b + c (exact where a or b is zero, infinite or
/// NaN), RN(a·b) for a zero c, c itself when only c is special.
#[derive(Clone, Copy)]
struct Fma64Specials {
    a: Word,
    b: Word,
    c: Word,
    inf: Word,
    z: Word,
    fa: Word,
    za: Word,
    fb: Word,
    zb: Word,
    fc: Word,
    zc: Word,
    plain: Word,
    prod_bits: Word,
    c_canon: Word,
}

fn fma64_specials(cx: &mut Cx, a: Word, b: Word, c: Word) -> R<Fma64Specials> {
    let t = cx.t;
    let bt = t.bool;
    let a = cx.opaque64(a)?;
    let b = cx.opaque64(b)?;
    let c = cx.opaque64(c)?;
    // Classification.
    let abs_m = cx.c64(!(1u64 << 63));
    let inf = cx.c64(0x7ff0_0000_0000_0000);
    let z = cx.c64(0);
    let class = |cx: &mut Cx, x: Word| -> R<(Word, Word)> {
        let m = cx.b.bitwise_and(t.u64, None, x, abs_m)?;
        let finite = cx.b.u_less_than(bt, None, m, inf)?;
        let zero = cx.b.i_equal(bt, None, m, z)?;
        Ok((finite, zero))
    };
    let (fa, za) = class(cx, a)?;
    let (fb, zb) = class(cx, b)?;
    let (fc, zc) = class(cx, c)?;
    // Plain paths.
    let xa = cx.b.bitcast(t.f64, None, a)?;
    let xb = cx.b.bitcast(t.f64, None, b)?;
    let xc = cx.b.bitcast(t.f64, None, c)?;
    let prod = cx.b.f_mul(t.f64, None, xa, xb)?;
    cx.nc(prod);
    let sum = cx.b.f_add(t.f64, None, prod, xc)?;
    cx.nc(sum);
    let plain = cx.canon64(sum)?;
    let prod_bits = cx.b.bitcast(t.u64, None, prod)?;
    let c_canon = cx.canon64(xc)?;
    Ok(Fma64Specials {
        a,
        b,
        c,
        inf,
        z,
        fa,
        za,
        fb,
        zb,
        fc,
        zc,
        plain,
        prod_bits,
        c_canon,
    })
}

impl Fma64Specials {
    /// (a or b zero, infinite or NaN; c infinite or NaN).
    fn plain_conditions(&self, cx: &mut Cx) -> R<(Word, Word)> {
        let bt = cx.t.bool;
        let ab_finite = cx.b.logical_and(bt, None, self.fa, self.fb)?;
        let ab_zero = cx.b.logical_or(bt, None, self.za, self.zb)?;
        let ab_plain = cx.b.logical_not(bt, None, ab_finite)?;
        let ab_plain = cx.b.logical_or(bt, None, ab_plain, ab_zero)?;
        let c_special = cx.b.logical_not(bt, None, self.fc)?;
        Ok((ab_plain, c_special))
    }

    /// The result: `main` for finite nonzero operands, else the special operands' results.
    fn choose(&self, cx: &mut Cx, ab_plain: Word, c_special: Word, main: Word) -> R<Word> {
        let r = cx.sel64(self.zc, self.prod_bits, main)?;
        let r = cx.sel64(c_special, self.c_canon, r)?;
        cx.sel64(ab_plain, self.plain, r)
    }
}

/// f64 fused multiply-add with one rounding from correctly rounded f64 adds and multiplies only (decisions
/// D209, D239, D244), for devices whose f64 `Fma` rounds twice but whose f64 arithmetic keeps subnormals
/// (lavapipe): the design checked against SoftFloat in tests/f64_fma_float_design.rs, instruction for
/// instruction. Finite nonzero a, b and finite c: a and b multiplied by powers of two 2^−e, e = max(exponent
/// field, 1) − 1024 (normal operands to ±[2, 4), subnormal ones to ±[2^−51, 2); no select), everything
/// computed scaled by 2^−K (K = ea + eb); c·2^−K by the same two scales in float (at once when they point
/// different ways, one after the other when the same way; c itself when that is 2^58 or more, ±2^−1000 when
/// it is below the smallest normal); Dekker's exact product; the exact sum renormalised in Boldo and
/// Melquiond's order; one path for every result (D244): M = ±2^(−1022−K) where the result is subnormal
/// (rounding at M's last bit), else 0, Fast2Sum(M, h), one round-to-odd, one rounding, and (y − M)·2^K by
/// float multiplications. lavapipe compiles selects and integer work far more slowly than float arithmetic
/// (D239), hence the float scaling; the special operands' classes and results come last.
fn f64_fma_float(cx: &mut Cx, a: Word, b: Word, c: Word) -> R<Word> {
    let t = cx.t;
    let bt = t.bool;
    let a = cx.opaque64(a)?;
    let b = cx.opaque64(b)?;
    let c = cx.opaque64(c)?;
    let abs_m = cx.c64(!(1u64 << 63));
    let sign_m = cx.c64(1u64 << 63);
    let z = cx.c64(0);
    let c52 = cx.c64(52);

    let f = |cx: &mut Cx, x: Word| -> R<Word> { Ok(cx.b.bitcast(t.f64, None, x)?) };
    let u = |cx: &mut Cx, x: Word| -> R<Word> { Ok(cx.b.bitcast(t.u64, None, x)?) };
    let add = |cx: &mut Cx, x: Word, y: Word| -> R<Word> {
        let r = cx.b.f_add(t.f64, None, x, y)?;
        Ok(cx.nc(r))
    };
    let sub = |cx: &mut Cx, x: Word, y: Word| -> R<Word> {
        let r = cx.b.f_sub(t.f64, None, x, y)?;
        Ok(cx.nc(r))
    };
    let mul = |cx: &mut Cx, x: Word, y: Word| -> R<Word> {
        let r = cx.b.f_mul(t.f64, None, x, y)?;
        Ok(cx.nc(r))
    };
    let two_sum = |cx: &mut Cx, x: Word, y: Word| -> R<(Word, Word)> {
        let s = add(cx, x, y)?;
        let bb = sub(cx, s, x)?;
        let sb = sub(cx, s, bb)?;
        let da = sub(cx, x, sb)?;
        let db = sub(cx, y, bb)?;
        Ok((s, add(cx, da, db)?))
    };
    // The sum s with its exact error e rounded to odd: an inexact sum moves to the neighbour of the exact
    // value with an odd last bit (`(s + d) | 1`, d = 0 when the error has the sum's sign, −1 otherwise;
    // exact.rs, D150).
    let round_odd = |cx: &mut Cx, s: Word, e: Word| -> R<Word> {
        let sb = u(cx, s)?;
        let eb = u(cx, e)?;
        let signs = cx.b.bitwise_xor(t.u64, None, eb, sb)?;
        let c63 = cx.c64(63);
        let d = cx.b.shift_right_arithmetic(t.u64, None, signs, c63)?;
        let toward = cx.b.i_add(t.u64, None, sb, d)?;
        let one = cx.c64(1);
        let odd = cx.b.bitwise_or(t.u64, None, toward, one)?;
        let em = cx.b.bitwise_and(t.u64, None, eb, abs_m)?;
        let exact = cx.b.i_equal(bt, None, em, z)?;
        let r = cx.sel64(exact, sb, odd)?;
        f(cx, r)
    };
    // (|x|'s bits, x·2^−e, 2^−e, e + 1024 as a u32) for e = max(x's exponent field, 1) − 1024: a normal x
    // scales to ±[2, 4), a subnormal one to ±[2^−51, 2), and 2^−e is normal for every e (D239).
    let norm = |cx: &mut Cx, x: Word| -> R<(Word, Word, Word, Word)> {
        let mag = cx.b.bitwise_and(t.u64, None, x, abs_m)?;
        let field = cx.b.shift_right_logical(t.u64, None, mag, c52)?;
        let field = cx.b.u_convert(t.u32, None, field)?;
        let one = cx.c32(1);
        let field = cx.glsl_op(t.u32, GlslStd450Op::UMax, &[field, one])?;
        let c2047 = cx.c32(2047);
        let s = cx.b.i_sub(t.u32, None, c2047, field)?;
        let s = cx.b.u_convert(t.u64, None, s)?;
        let s = cx.b.shift_left_logical(t.u64, None, s, c52)?;
        let s = f(cx, s)?;
        let xf = f(cx, x)?;
        let x1 = mul(cx, xf, s)?;
        Ok((mag, x1, s, field))
    };
    let (mag_a, a1, sa, fa) = norm(cx, a)?;
    let (mag_b, b1, sb, fb) = norm(cx, b)?;
    let c2048 = cx.c32(2048);
    let k = cx.b.i_add(t.u32, None, fa, fb)?;
    let k = cx.b.i_sub(t.u32, None, k, c2048)?;
    // c·2^−K exactly wherever that is normal: both scales at once when they point different ways (2^−K is
    // then normal), one after the other when they point the same way (no intermediate overflows or
    // underflows unless the end does).
    let dirs = cx.b.bitwise_xor(t.u32, None, fa, fb)?;
    let c1024 = cx.c32(1024);
    let dirs = cx.b.bitwise_and(t.u32, None, dirs, c1024)?;
    let z32 = cx.c32(0);
    let same = cx.b.i_equal(bt, None, dirs, z32)?;
    // x·2^p·2^q: x·(2^p·2^q) when the scales point different ways, (x·2^p)·2^q when the same way.
    let scale = |cx: &mut Cx, x: Word, p: Word, q: Word| -> R<Word> {
        let pq = mul(cx, p, q)?;
        let once = mul(cx, x, pq)?;
        let xp = mul(cx, x, p)?;
        let xpq = mul(cx, xp, q)?;
        Ok(cx.b.select(t.f64, None, same, xpq, once)?)
    };
    let cf = f(cx, c)?;
    let c1 = scale(cx, cf, sa, sb)?;
    let c1b = u(cx, c1)?;
    let m1 = cx.b.bitwise_and(t.u64, None, c1b, abs_m)?;
    // c at least 2^58 above the product (below 16), or c1 overflowed: the result is c.
    let e58 = cx.c64((1023 + 58) << 52);
    let cfar = cx.b.s_greater_than_equal(bt, None, m1, e58)?;
    // Below the smallest normal c1 may have lost bits, but there it only decides ties and the direction of
    // an inexact sum (the product is at least 2^−50, a multiple of 2^−102): ±2^−1000 rounds the same.
    let min_normal = cx.c64(1 << 52);
    let ctiny = cx.b.s_less_than(bt, None, m1, min_normal)?;
    let csign = cx.b.bitwise_and(t.u64, None, c, sign_m)?;
    let e1000 = cx.c64((1023 - 1000) << 52);
    let c_tiny = cx.b.bitwise_or(t.u64, None, csign, e1000)?;
    let c1 = cx.sel64(ctiny, c_tiny, c1b)?;
    let c1 = f(cx, c1)?;
    // Dekker's exact product of a1, b1 (Veltkamp's split, 2^27 + 1).
    let split_c = cx.c64(134_217_729f64.to_bits());
    let split_c = cx.opaque64(split_c)?;
    let split_c = f(cx, split_c)?;
    let split = |cx: &mut Cx, x: Word| -> R<(Word, Word)> {
        let tt = mul(cx, split_c, x)?;
        let d = sub(cx, tt, x)?;
        let hi = sub(cx, tt, d)?;
        Ok((hi, sub(cx, x, hi)?))
    };
    let ph = mul(cx, a1, b1)?;
    let (ah, al) = split(cx, a1)?;
    let (bh, bl) = split(cx, b1)?;
    let hh = mul(cx, ah, bh)?;
    let e1 = sub(cx, hh, ph)?;
    let hl = mul(cx, ah, bl)?;
    let e2 = add(cx, e1, hl)?;
    let lh = mul(cx, al, bh)?;
    let e3 = add(cx, e2, lh)?;
    let ll = mul(cx, al, bl)?;
    let pl = add(cx, e3, ll)?;
    // Boldo–Melquiond: the exact sum renormalised, x = th + tl + pl = h + hl + ue.
    let (th, tl) = two_sum(cx, c1, ph)?;
    let (uu, ue) = two_sum(cx, tl, pl)?;
    let (h, hl) = two_sum(cx, th, uu)?;
    let hb = u(cx, h)?;
    let hsign = cx.b.bitwise_and(t.u64, None, hb, sign_m)?;
    let hmag = cx.b.bitwise_and(t.u64, None, hb, abs_m)?;
    // M = ±2^(−1022−K) (the smallest normal, scaled, with h's sign) where |h| is below it: a subnormal
    // result, rounded at M's last bit; else M = 0. The signed compare with the bits of 2^(−1022−K) is false
    // for every K ≥ 1 (the bits are 0 or negative), where the result is never subnormal.
    let c1_32 = cx.c32(1);
    let me = cx.b.i_sub(t.u32, None, c1_32, k)?;
    let me = cx.b.u_convert(t.u64, None, me)?;
    let me = cx.b.shift_left_logical(t.u64, None, me, c52)?;
    let subn = cx.b.s_less_than(bt, None, hmag, me)?;
    let mbits = cx.b.bitwise_or(t.u64, None, hsign, me)?;
    let mbits = cx.sel64(subn, mbits, z)?;
    let m = f(cx, mbits)?;
    // Fast2Sum(M, h) (|h| < |M|, or M = 0: s = h, e = 0); then w = RO(hl + ue) for a normal result
    // (Boldo–Melquiond's last step) and RO(e + RN(hl + ue)) for a subnormal one (hl moves to the other
    // side of the sum by an exact subtraction), y = RN(s + w).
    let s = add(cx, m, h)?;
    let sm = sub(cx, s, m)?;
    let e = sub(cx, h, sm)?;
    let hlb = u(cx, hl)?;
    let hl_sub = cx.sel64(subn, hlb, z)?;
    let hl_sub = f(cx, hl_sub)?;
    let hl_normal = sub(cx, hl, hl_sub)?;
    let e2 = add(cx, e, hl_normal)?;
    let w1 = add(cx, hl_sub, ue)?;
    let (ws, we) = two_sum(cx, e2, w1)?;
    let w = round_odd(cx, ws, we)?;
    let y = add(cx, s, w)?;
    // The result: (y − M)·2^K with h's sign (exact: a subnormal result lies on its grid, ±0 below it),
    // in float as (y − M)/4·2^(ea+1)·2^(eb+1) by `scale` (powers of two that are normal for every exponent
    // field). At most one multiplication rounds: an overflow to ±∞, or a normal-side y half a subnormal ulp
    // below the smallest normal (the tie goes to the smallest normal, which is x's rounding there).
    let ym = sub(cx, y, m)?;
    let ymb = u(cx, ym)?;
    let ymb = cx.b.bitwise_or(t.u64, None, ymb, hsign)?;
    let ym = f(cx, ymb)?;
    let quarter = cx.c64(0.25f64.to_bits());
    let quarter = f(cx, quarter)?;
    let zq = mul(cx, ym, quarter)?;
    let pow = |cx: &mut Cx, field: Word| -> R<Word> {
        let x = cx.b.u_convert(t.u64, None, field)?;
        let x = cx.b.shift_left_logical(t.u64, None, x, c52)?;
        f(cx, x)
    };
    let ia = pow(cx, fa)?;
    let ib = pow(cx, fb)?;
    let r = scale(cx, zq, ia, ib)?;
    let main = u(cx, r)?;
    let main = cx.sel64(cfar, c, main)?;
    // Special operands: a or b zero, infinite or NaN, or c infinite or NaN: (a·b, or +0 where a and b are
    // finite and nonzero, so that their product cannot overflow into c) + c, exact there; a zero c: a·b.
    let one = cx.c64(1);
    let inf_less = cx.c64(0x7ff0_0000_0000_0000 - 1);
    let finite_nonzero = |cx: &mut Cx, mag: Word| -> R<Word> {
        let x = cx.b.i_sub(t.u64, None, mag, one)?;
        Ok(cx.b.u_less_than(bt, None, x, inf_less)?)
    };
    let fnz_a = finite_nonzero(cx, mag_a)?;
    let fnz_b = finite_nonzero(cx, mag_b)?;
    let ab = cx.b.logical_and(bt, None, fnz_a, fnz_b)?;
    let af = f(cx, a)?;
    let bf = f(cx, b)?;
    let prod = mul(cx, af, bf)?;
    let prod_bits = u(cx, prod)?;
    let mag_c = cx.b.bitwise_and(t.u64, None, c, abs_m)?;
    let zc = cx.b.i_equal(bt, None, mag_c, z)?;
    let main = cx.sel64(zc, prod_bits, main)?;
    let p = cx.sel64(ab, z, prod_bits)?;
    let p = f(cx, p)?;
    let plain = add(cx, p, cf)?;
    let plain = cx.canon64(plain)?;
    let inf = cx.c64(0x7ff0_0000_0000_0000);
    let fc = cx.b.s_less_than(bt, None, mag_c, inf)?;
    let ok = cx.b.logical_and(bt, None, ab, fc)?;
    cx.sel64(ok, main, plain)
}

/// The 2^k scale of [`f64_fma_soft`]: `k` itself, or the ids of `k` (u32) and of 2^k's f64 bits (u64).
#[derive(Clone, Copy)]
enum Scale {
    Const(i32),
    Ids(Word, Word),
}

/// Correctly rounded f32 division (`div`) or square root of the bits `a` (÷ `b`) on a device whose
/// `OpFDiv`/`Sqrt` are not (D228), by integer arithmetic that the device cannot round: the significands
/// (subnormals unpacked as they are, the dividend's normalised by its top bit) give an integer quotient
/// `A / B` of at least 26 bits (up to 51 for a subnormal divisor) with an exact remainder (`OpUDiv` on
/// u64), or an integer square root of 26 bits (an f64 `Sqrt` only seeds one integer Newton step, which
/// lands on or above `⌊√N⌋`, then two exact downward corrections by squaring); the remainder's "not
/// zero" becomes a sticky bit below them. That integer with its sticky bit, below 2^53, times a power of
/// two is an exact f64, and one integer narrowing (`f64_to_f32_int`)
/// rounds it to f32 once, subnormal and overflowing results included. Nothing the device rounds decides
/// a bit of the result.
fn f32_div_sqrt_exact(cx: &mut Cx, div: bool, a: Word, b: Word) -> R<Word> {
    let t = cx.t;
    let (u, w, bt, f64t) = (t.u32, t.u64, t.bool, t.f64);
    let ax = cx.mask(a, 0x7fff_ffff)?;
    let zero = cx.c32(0);
    let one = cx.c32(1);
    let one64 = cx.c64(1);
    // |v| (finite) → (significand with its implicit bit, max(biased exponent, 1)): |v| = m·2^(e1 − 150).
    let unpack = |cx: &mut Cx, v: Word| -> R<(Word, Word)> {
        let c23 = cx.c32(23);
        let e = cx.b.shift_right_logical(u, None, v, c23)?;
        let normal = cx.b.i_not_equal(bt, None, e, zero)?;
        let m = cx.mask(v, 0x7f_ffff)?;
        let imp = cx.c32(0x80_0000);
        let mi = cx.b.bitwise_or(u, None, m, imp)?;
        let m = cx.b.select(u, None, normal, mi, m)?;
        let e1 = cx.b.select(u, None, normal, e, one)?;
        Ok((m, e1))
    };
    // (2q | inexact)·2^(ebias − 1023) — the integer with its sticky bit, below 2^53, times a power of two
    // inside f64's normal range: an exact f64 — rounded once to f32 by integer narrowing.
    let narrow = |cx: &mut Cx, q: Word, inexact: Word, ebias: Word| -> R<Word> {
        let z64 = cx.c64(0);
        let st = cx.b.select(w, None, inexact, one64, z64)?;
        let q2 = cx.b.shift_left_logical(w, None, q, one64)?;
        let q2 = cx.b.bitwise_or(w, None, q2, st)?;
        let f = cx.b.convert_u_to_f(f64t, None, q2)?;
        let eb = cx.b.u_convert(w, None, ebias)?;
        let c52 = cx.c64(52);
        let sb = cx.b.shift_left_logical(w, None, eb, c52)?;
        let sc = cx.b.bitcast(f64t, None, sb)?;
        let r = cx.b.f_mul(f64t, None, f, sc)?;
        cx.nc(r);
        let bits = cx.b.bitcast(w, None, r)?;
        cx.f64_to_f32_int(bits)
    };
    let (ma, ea) = unpack(cx, ax)?;
    let msb = cx.glsl_op(u, GlslStd450Op::FindUMsb, &[ma])?;
    let ma64 = cx.b.u_convert(w, None, ma)?;
    let inf = cx.c32(0x7f80_0000);
    let nan_q = cx.c32(F32_DEFAULT_NAN);
    let x_nan = cx.b.u_greater_than(bt, None, ax, inf)?;
    let x_inf = cx.b.i_equal(bt, None, ax, inf)?;
    let x_zero = cx.b.i_equal(bt, None, ax, zero)?;
    if div {
        let ay = cx.mask(b, 0x7fff_ffff)?;
        let (mb, eb) = unpack(cx, ay)?;
        // A = ma << (50 − msb(ma)): top bit at 50, so A / mb (mb < 2^24) has at least 26 bits and 2q + 1 < 2^53.
        let c50 = cx.c32(50);
        let sa = cx.b.i_sub(u, None, c50, msb)?;
        let sa64 = cx.b.u_convert(w, None, sa)?;
        let big_a = cx.b.shift_left_logical(w, None, ma64, sa64)?;
        let mb64 = cx.b.u_convert(w, None, mb)?;
        let z64 = cx.c64(0);
        let mb_zero = cx.b.i_equal(bt, None, mb64, z64)?;
        let den = cx.b.select(w, None, mb_zero, one64, mb64)?;
        let q = cx.b.u_div(w, None, big_a, den)?;
        let back = cx.b.i_mul(w, None, q, den)?;
        let inexact = cx.b.i_not_equal(bt, None, back, big_a)?;
        // x / y = (A / mb)·2^(ea − eb − sa) = (2q | inexact)·2^(ea − eb − sa − 1).
        let c1022 = cx.c32(1022);
        let e = cx.b.i_add(u, None, ea, c1022)?;
        let e = cx.b.i_sub(u, None, e, eb)?;
        let e = cx.b.i_sub(u, None, e, sa)?;
        let c = narrow(cx, q, inexact, e)?;
        let y_nan = cx.b.u_greater_than(bt, None, ay, inf)?;
        let y_inf = cx.b.i_equal(bt, None, ay, inf)?;
        let y_zero = cx.b.i_equal(bt, None, ay, zero)?;
        let zz = cx.b.logical_and(bt, None, x_zero, y_zero)?;
        let ii = cx.b.logical_and(bt, None, x_inf, y_inf)?;
        let nan = cx.b.logical_or(bt, None, x_nan, y_nan)?;
        let nan = cx.b.logical_or(bt, None, nan, zz)?;
        let nan = cx.b.logical_or(bt, None, nan, ii)?;
        let to_inf = cx.b.logical_or(bt, None, x_inf, y_zero)?;
        let to_zero = cx.b.logical_or(bt, None, x_zero, y_inf)?;
        let mag = cx.b.select(u, None, to_inf, inf, c)?;
        let mag = cx.b.select(u, None, to_zero, zero, mag)?;
        let s = cx.b.bitwise_xor(u, None, a, b)?;
        let s = cx.mask(s, 0x8000_0000)?;
        let r = cx.b.bitwise_or(u, None, s, mag)?;
        return Ok(cx.b.select(u, None, nan, nan_q, r)?);
    }
    // N = ma << s, top bit at 50 or 51, with ea − 150 − s even: √x = √N·2^((ea − 150 − s)/2).
    let c50 = cx.c32(50);
    let s0 = cx.b.i_sub(u, None, c50, msb)?;
    let par = cx.b.i_add(u, None, ea, s0)?;
    let par = cx.b.bitwise_and(u, None, par, one)?;
    let sn = cx.b.i_add(u, None, s0, par)?;
    let sn64 = cx.b.u_convert(w, None, sn)?;
    let n = cx.b.shift_left_logical(w, None, ma64, sn64)?;
    let nf = cx.b.convert_u_to_f(f64t, None, n)?;
    let rf = cx.glsl_op(f64t, GlslStd450Op::Sqrt, &[nf])?;
    cx.nc(rf);
    let r0 = cx.b.convert_f_to_u(w, None, rf)?;
    let c24 = cx.c64(1 << 24);
    let mut r0 = cx.glsl_op(w, GlslStd450Op::UMax, &[r0, c24])?;
    if cx.opts.div_sqrt_skew {
        // r0 + ((|x| mod 7) − 3)·2^10: up to 2^-15 off, what the Newton step and the corrections must absorb.
        let c7 = cx.c32(7);
        let k = cx.b.u_mod(u, None, ax, c7)?;
        let k = cx.b.u_convert(w, None, k)?;
        let c10 = cx.c64(10);
        let k = cx.b.shift_left_logical(w, None, k, c10)?;
        let c3k = cx.c64(3 << 10);
        let moved = cx.b.i_add(w, None, r0, k)?;
        r0 = cx.b.i_sub(w, None, moved, c3k)?;
    }
    // One Newton step from any positive r0 gives ⌊(r0 + ⌊N/r0⌋)/2⌋ ≥ ⌊√N⌋.
    let d = cx.b.u_div(w, None, n, r0)?;
    let sum = cx.b.i_add(w, None, r0, d)?;
    let mut r = cx.b.shift_right_logical(w, None, sum, one64)?;
    for _ in 0..2 {
        let sq = cx.b.i_mul(w, None, r, r)?;
        let over = cx.b.u_greater_than(bt, None, sq, n)?;
        let less = cx.b.i_sub(w, None, r, one64)?;
        r = cx.b.select(w, None, over, less, r)?;
    }
    let sq = cx.b.i_mul(w, None, r, r)?;
    let inexact = cx.b.i_not_equal(bt, None, sq, n)?;
    // (2r | inexact)·2^((ea − 150 − s)/2 − 1): biased (ea + 1894 − s)/2.
    let c1894 = cx.c32(1894);
    let e = cx.b.i_add(u, None, ea, c1894)?;
    let e = cx.b.i_sub(u, None, e, sn)?;
    let e = cx.b.shift_right_logical(u, None, e, one)?;
    let c = narrow(cx, r, inexact, e)?;
    // √±0 = ±0, √+inf = +inf, √(x < 0) and √NaN = NaN.
    let neg = cx.b.u_greater_than(bt, None, a, ax)?;
    let nonzero = cx.b.logical_not(bt, None, x_zero)?;
    let neg = cx.b.logical_and(bt, None, neg, nonzero)?;
    let nan = cx.b.logical_or(bt, None, x_nan, neg)?;
    let keep = cx.b.logical_or(bt, None, x_zero, x_inf)?;
    let r = cx.b.select(u, None, keep, a, c)?;
    Ok(cx.b.select(u, None, nan, nan_q, r)?)
}

/// f64 fused multiply-add with one rounding (to nearest even), in integer arithmetic: for devices whose
/// f64 `Fma` rounds twice (lavapipe). The evaluator's reference is the host's `f64::mul_add` with NaN
/// canonicalised. Special operands (NaN, infinities, zeros) take the plain float path, where it is exact.
/// With `scale = Some(k)` the result is (a·b + c)·2^k, still rounded once (F64FmaLdexp, decision D067):
/// the exponent moves before the rounding, a zero addend goes through the main path, and the plain
/// path's exact result is scaled by one correctly rounded multiplication.
fn f64_fma_soft(cx: &mut Cx, a: Word, b: Word, c: Word, scale: Option<Scale>) -> R<Word> {
    let t = cx.t;
    let bt = t.bool;
    let sx = fma64_specials(cx, a, b, c)?;
    let Fma64Specials {
        a,
        b,
        c,
        inf,
        z,
        zc,
        plain,
        ..
    } = sx;

    // Main path: a, b, c finite and nonzero.
    let (ma, la) = cx.f64_parts(a)?;
    let (mb, lb) = cx.f64_parts(b)?;
    let (mc, lc) = cx.f64_parts(c)?;
    let c63 = cx.c64(63);
    let sa = cx.b.shift_right_logical(t.u64, None, a, c63)?;
    let sb = cx.b.shift_right_logical(t.u64, None, b, c63)?;
    let sc = cx.b.shift_right_logical(t.u64, None, c, c63)?;
    let sp = cx.b.bitwise_xor(t.u64, None, sa, sb)?;
    // P = ma * mb (≤ 106 bits), normalised so its top bit is bit 125.
    let pair = cx.b.type_struct([t.u64, t.u64]);
    let pm = cx.b.u_mul_extended(pair, None, ma, mb)?;
    let plo = cx.b.composite_extract(t.u64, None, pm, [0])?;
    let phi = cx.b.composite_extract(t.u64, None, pm, [1])?;
    let p = (phi, plo);
    let mp = cx.msb128(p)?;
    let c125 = cx.c32(125);
    let shp = cx.b.i_sub(t.u32, None, c125, mp)?;
    let xp = cx.shl128(p, shp)?;
    let ep = cx.b.i_add(t.u32, None, la, lb)?;
    let ep = cx.b.i_sub(t.u32, None, ep, shp)?;
    // C normalised the same way.
    let mcm = cx.msb64(mc)?;
    let shc = cx.b.i_sub(t.u32, None, c125, mcm)?;
    let mut xc128 = cx.shl128((z, mc), shc)?;
    let mut ec = cx.b.i_sub(t.u32, None, lc, shc)?;
    if scale.is_some() {
        // A zero addend: nothing to add, placed far below the product.
        xc128 = cx.sel128(zc, (z, z), xc128)?;
        let k200 = cx.c32(200);
        let far = cx.b.i_sub(t.u32, None, ep, k200)?;
        ec = cx.b.select(t.u32, None, zc, far, ec)?;
    }
    // Align the smaller exponent to the larger one.
    let swap = cx.b.s_less_than(bt, None, ep, ec)?;
    let big = cx.sel128(swap, xc128, xp)?;
    let small = cx.sel128(swap, xp, xc128)?;
    let ex = cx.b.select(t.u32, None, swap, ec, ep)?;
    let d1 = cx.b.i_sub(t.u32, None, ep, ec)?;
    let d2 = cx.b.i_sub(t.u32, None, ec, ep)?;
    let d = cx.b.select(t.u32, None, swap, d2, d1)?;
    let small = cx.shr128_jam(small, d)?;
    let sbig = cx.sel64(swap, sc, sp)?;
    let ssmall = cx.sel64(swap, sp, sc)?;
    let same = cx.b.i_equal(bt, None, sbig, ssmall)?;
    let sum128 = cx.add128(big, small)?;
    let big_ge = cx.ge128(big, small)?;
    let d_bs = cx.sub128(big, small)?;
    let d_sb = cx.sub128(small, big)?;
    let diff = cx.sel128(big_ge, d_bs, d_sb)?;
    let dsign = cx.sel64(big_ge, sbig, ssmall)?;
    let r = cx.sel128(same, sum128, diff)?;
    let sign = cx.sel64(same, sbig, dsign)?;
    let r_or = cx.b.bitwise_or(t.u64, None, r.0, r.1)?;
    let exact_zero = cx.b.i_equal(bt, None, r_or, z)?;
    // Normalise to a 64-bit window with its top bit at 63, the rest jammed into bit 0.
    let one64 = cx.c64(1);
    let r_safe = cx.sel128(exact_zero, (z, one64), r)?;
    let m = cx.msb128(r_safe)?;
    let c127 = cx.c32(127);
    let shn = cx.b.i_sub(t.u32, None, c127, m)?;
    let w = cx.shl128(r_safe, shn)?;
    let lost = cx.b.i_not_equal(bt, None, w.1, z)?;
    let jam = cx.sel64(lost, one64, z)?;
    let top = cx.b.bitwise_or(t.u64, None, w.0, jam)?;
    // e_msb = ex + m; shift = max(11, -1011 - e_msb).
    let ex = match scale {
        Some(s) => {
            let kk = match s {
                Scale::Const(k) => cx.c32(k as u32),
                Scale::Ids(k, _) => k,
            };
            cx.b.i_add(t.u32, None, ex, kk)?
        }
        None => ex,
    };
    let e_msb = cx.b.i_add(t.u32, None, ex, m)?;
    let k = cx.c32((-1011i32) as u32);
    let sub_sh = cx.b.i_sub(t.u32, None, k, e_msb)?;
    let c11 = cx.c32(11);
    let tiny = cx.b.s_greater_than(bt, None, sub_sh, c11)?;
    let sh = cx.b.select(t.u32, None, tiny, sub_sh, c11)?;
    // Round to nearest even at bit `sh` of `top`.
    let c64u = cx.c32(64);
    let c63u = cx.c32(63);
    let huge = cx.b.u_greater_than_equal(bt, None, sh, c64u)?;
    let sh63 = cx.b.select(t.u32, None, huge, c63u, sh)?;
    let q = cx.b.shift_right_logical(t.u64, None, top, sh63)?;
    let mask = cx.b.shift_left_logical(t.u64, None, one64, sh63)?;
    let half = cx.b.shift_right_logical(t.u64, None, mask, one64)?;
    let mask = cx.b.i_sub(t.u64, None, mask, one64)?;
    let rem = cx.b.bitwise_and(t.u64, None, top, mask)?;
    let above = cx.b.u_greater_than(bt, None, rem, half)?;
    let tie = cx.b.i_equal(bt, None, rem, half)?;
    let qodd = cx.b.bitwise_and(t.u64, None, q, one64)?;
    let odd = cx.b.i_equal(bt, None, qodd, one64)?;
    let tie_up = cx.b.logical_and(bt, None, tie, odd)?;
    let up = cx.b.logical_or(bt, None, above, tie_up)?;
    // sh == 64: nothing is kept; above half unless exactly 2^63. sh > 64: rounds to zero.
    let half64 = cx.c64(1u64 << 63);
    let gt_half = cx.b.u_greater_than(bt, None, top, half64)?;
    let is64 = cx.b.i_equal(bt, None, sh, c64u)?;
    let up64 = cx.b.logical_and(bt, None, is64, gt_half)?;
    let q = cx.sel64(huge, z, q)?;
    let up = cx.b.select(bt, None, huge, up64, up)?;
    let inc = cx.sel64(up, one64, z)?;
    let q = cx.b.i_add(t.u64, None, q, inc)?;
    // bits = ((e_lsb + 1074) << 52) + q with e_lsb + 1074 = e_msb + sh + 1011.
    let k1011 = cx.c32(1011);
    let eb = cx.b.i_add(t.u32, None, e_msb, sh)?;
    let eb = cx.b.i_add(t.u32, None, eb, k1011)?;
    let eb = cx.b.u_convert(t.u64, None, eb)?;
    let c52 = cx.c64(52);
    let eb = cx.b.shift_left_logical(t.u64, None, eb, c52)?;
    let mag = cx.b.i_add(t.u64, None, eb, q)?;
    let over = cx.b.u_greater_than_equal(bt, None, mag, inf)?;
    let mag = cx.sel64(over, inf, mag)?;
    let sbit = cx.b.shift_left_logical(t.u64, None, sign, c63)?;
    let main = cx.b.bitwise_or(t.u64, None, sbit, mag)?;
    let main = cx.sel64(exact_zero, z, main)?;

    // Choose.
    let (ab_plain, c_special) = sx.plain_conditions(cx)?;
    if let Some(s) = scale {
        let p2 = match s {
            Scale::Const(k) => cx.c64(((1023 + k as i64) as u64) << 52),
            Scale::Ids(_, p2) => p2,
        };
        let p2 = cx.opaque64(p2)?;
        let p2 = cx.b.bitcast(t.f64, None, p2)?;
        let ps = cx.b.bitcast(t.f64, None, plain)?;
        let ps = cx.b.f_mul(t.f64, None, ps, p2)?;
        cx.nc(ps);
        let plain = cx.canon64(ps)?;
        let r = cx.sel64(c_special, sx.c_canon, main)?;
        return cx.sel64(ab_plain, plain, r);
    }
    sx.choose(cx, ab_plain, c_special, main)
}
