//! MODE.FP_ROUND toward +inf, −inf and zero (decision D186) for the instructions whose one rounding the
//! field directs: f32 add/sub/mul/fma (FP_ROUND f32) and v_cvt_f16_f32 (FP_ROUND f16/f64, the field LLVM's
//! `llvm.fptrunc.round` sets around it). No new IR primitive: the directed result is built from the
//! nearest-even one and the sign of its error, both computed exactly with IR the host and every device already
//! run bit for bit:
//!
//! * f32 arithmetic: the operands widened to f64 (exact), the exact result as an unevaluated sum s + e — a
//!   product of two f32 is exact in f64; a sum is split by TwoSum in f64 (exact: f32 operands cannot overflow
//!   f64, and no f64 value derived from them is subnormal) — then r = f32(s) to nearest even, and the sign
//!   of x − r from (s − r) against −e (s − r is exact: r is within an f32 ulp of s). r is within one f32 ulp
//!   of x, so the directed result is r or its neighbour toward the direction: one integer step on the bits.
//!   Overflow falls out of the same step (r = ±inf with x finite: toward zero gives ±FLT_MAX). IEEE's sign of
//!   an exact zero sum under rounding toward −inf (−0 unless both addends are +0) is applied explicitly.
//! * v_cvt_f16_f32: h = f16(x) to nearest even, then |x| against |f16→f32(h)| (exact, integer compare of the
//!   magnitudes: the same sign) decides the step.
//!
//! NaN and infinite operands keep the nearest-even path's result (the direction changes nothing there).

use super::Lifter;
use crate::{FloatCmp, FloatOp, Handle, IntCmp, IntOp, Node, Ty, UnOp};

type H = Handle<Node>;

/// FP_ROUND values: 0 nearest even, 1 toward +inf, 2 toward −inf, 3 toward zero.
const UP: u32 = 1;
const DOWN: u32 = 2;

impl Lifter<'_> {
    /// `op` (F32Add, F32Sub, F32Mul or F32Fma) on f32 bits, rounded as the instruction's FP_ROUND f32 says
    /// (D186): the plain primitive under nearest even.
    pub(super) fn f32_arith(&mut self, op: FloatOp, a: H, b: H, c: H) -> H {
        let plain = self.float(op, a, b, c);
        let mode = self.flush.round32;
        if mode == 0 {
            return plain;
        }
        let a64 = self.f32_to_f64(a);
        let b64 = self.f32_to_f64(b);
        let (s, e, addends) = match op {
            FloatOp::F32Mul => {
                let s = self.float(FloatOp::F64Mul, a64, b64, a64);
                (s, self.c(Ty::B64, 0), None)
            }
            FloatOp::F32Fma => {
                let p = self.float(FloatOp::F64Mul, a64, b64, a64);
                let c64 = self.f32_to_f64(c);
                let (s, e) = self.two_sum64(p, c64);
                (s, e, Some((p, c64)))
            }
            FloatOp::F32Sub => {
                let nb = self.un(UnOp::FNeg, Ty::B64, b64);
                let (s, e) = self.two_sum64(a64, nb);
                (s, e, Some((a64, nb)))
            }
            _ => {
                let (s, e) = self.two_sum64(a64, b64);
                (s, e, Some((a64, b64)))
            }
        };
        let r = self.f64_to_f32(s);
        let r64 = self.f32_to_f64(r);
        let nr = self.un(UnOp::FNeg, Ty::B64, r64);
        let d = self.float(FloatOp::F64Add, s, nr, s);
        let ne = self.un(UnOp::FNeg, Ty::B64, e);
        // x − r = d + e: above r when d > −e, below when d < −e.
        let above = self.fcmp64(FloatCmp::Gt, d, ne);
        let below = self.fcmp64(FloatCmp::Lt, d, ne);
        let negative = self.icmp_k32(IntCmp::GeU, r, 0x8000_0000);
        let mut res = self.step32(mode, r, negative, above, below);
        if mode == DOWN {
            if let Some((x, y)) = addends {
                // An exact zero sum is −0 toward −inf unless both addends are +0 (IEEE 754, 6.3).
                let zero = self.c(Ty::B64, 0);
                let s_pos0 = self.icmp(IntCmp::Eq, Ty::B64, s, zero);
                let e_mag = self.abs64(e);
                let exact = self.icmp(IntCmp::Eq, Ty::B64, e_mag, zero);
                let x0 = self.icmp(IntCmp::Eq, Ty::B64, x, zero);
                let y0 = self.icmp(IntCmp::Eq, Ty::B64, y, zero);
                let both = self.and1(x0, y0);
                let t = self.c(Ty::B1, 1);
                let not_both = self.int(IntOp::Xor, Ty::B1, both, t);
                let z = self.and1(s_pos0, exact);
                let z = self.and1(z, not_both);
                let m0 = self.k32(0x8000_0000);
                res = self.sel(z, m0, res);
            }
        }
        // NaN or infinite operands: the nearest-even result (the direction changes nothing).
        let s_abs = self.abs64(s);
        let kinf = self.c(Ty::B64, 0x7ff0_0000_0000_0000);
        let special = self.icmp(IntCmp::GeU, Ty::B64, s_abs, kinf);
        self.sel(special, plain, res)
    }

    /// f32 → f16 (the result in the low 16 bits of a B32) rounded as the instruction's FP_ROUND f16/f64 says
    /// (D186), from the nearest-even conversion `h` of `x`.
    pub(super) fn f16_from_f32_directed(&mut self, x: H, h: H) -> H {
        let mode = self.flush.round16_64;
        if mode == 0 {
            return h;
        }
        let lo = self.n(Node::Extract {
            ty: Ty::B16,
            a: h,
            shift: 0,
        });
        let back = self.un(UnOp::F16ToF32, Ty::B32, lo);
        let xm = self.and32(x, 0x7fff_ffff);
        let bm = self.and32(back, 0x7fff_ffff);
        let mag_above = self.icmp(IntCmp::GtU, Ty::B32, xm, bm);
        let mag_below = self.icmp(IntCmp::LtU, Ty::B32, xm, bm);
        let negative = self.icmp_k32(IntCmp::GeU, h, 0x8000);
        // Value order from magnitude order: the same sign on both sides.
        let above = self.sel(negative, mag_below, mag_above);
        let below = self.sel(negative, mag_above, mag_below);
        let res = self.step32(mode, h, negative, above, below);
        let nan = self.icmp_k32(IntCmp::GtU, xm, 0x7f80_0000);
        self.sel(nan, h, res)
    }

    /// The directed result from the nearest-even `r` (sign-magnitude bits in a B32: an f32, or an f16 in the
    /// low half) and where the exact value lies against it: toward +inf a value above r takes the next value
    /// up, toward −inf a value below takes the next down, toward zero a value nearer zero than r takes the
    /// next magnitude down. On sign-magnitude bits "next up" is +1 for a positive r and −1 for a negative one.
    fn step32(&mut self, mode: u32, r: H, negative: H, above: H, below: H) -> H {
        let k1 = self.k32(1);
        let inc = self.int(IntOp::Add, Ty::B32, r, k1);
        let dec = self.int(IntOp::Sub, Ty::B32, r, k1);
        match mode {
            UP => {
                let up = self.sel(negative, dec, inc);
                self.sel(above, up, r)
            }
            DOWN => {
                let down = self.sel(negative, inc, dec);
                self.sel(below, down, r)
            }
            _ => {
                let toward_zero = self.sel(negative, above, below);
                self.sel(toward_zero, dec, r)
            }
        }
    }

    /// TwoSum in f64: (s, e) with s = a + b to nearest even and a + b = s + e exactly.
    fn two_sum64(&mut self, a: H, b: H) -> (H, H) {
        let add = |l: &mut Self, x: H, y: H| l.float(FloatOp::F64Add, x, y, x);
        let neg = |l: &mut Self, x: H| l.un(UnOp::FNeg, Ty::B64, x);
        let s = add(self, a, b);
        let na = neg(self, a);
        let bb = add(self, s, na);
        let nbb = neg(self, bb);
        let s_bb = add(self, s, nbb);
        let n_sbb = neg(self, s_bb);
        let da = add(self, a, n_sbb);
        let db = add(self, b, nbb);
        let e = add(self, da, db);
        (s, e)
    }

    fn fcmp64(&mut self, op: FloatCmp, a: H, b: H) -> H {
        self.n(Node::FloatCmp {
            op,
            ty: Ty::B64,
            a,
            b,
        })
    }

    fn abs64(&mut self, x: H) -> H {
        let m = self.c(Ty::B64, 0x7fff_ffff_ffff_ffff);
        self.int(IntOp::And, Ty::B64, x, m)
    }

    fn icmp_k32(&mut self, op: IntCmp, a: H, k: u32) -> H {
        let k = self.k32(k);
        self.icmp(op, Ty::B32, a, k)
    }
}
