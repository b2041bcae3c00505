//! Double-precision division, reciprocal and root instructions as compositions of exact IR (decisions
//! D066–D068): V_RCP_F64, V_SQRT_F64, V_RSQ_F64, V_DIV_SCALE_F64, V_DIV_FMAS_F64, V_DIV_FIXUP_F64 and
//! V_DIV_FIXUP_F16.
//!
//! V_RCP_F64 and V_SQRT_F64 are the correctly rounded 1/x and √x (D067, extending D012 to f64): an f32
//! seed (`F32Div`/`F32Sqrt` of the truncated significand), Newton–Raphson steps on the exact `F64Fma`,
//! then an exact decision between the candidate and its two neighbours by 128-bit integer products of
//! the midpoints (`MulHiU` on B64), and one rounding into the normal or subnormal range in integer logic
//! ([`Lifter::assemble64`]) that knows on which side of the candidate the exact value lies. V_RSQ_F64 is
//! 1/√x refined from the correctly rounded root with exact residuals and one final `F64Fma` (within 1 ulp;
//! measured in tests/f64div.rs). Nothing here needs a primitive the evaluator and the lowering do not
//! already compute exactly, except `F64FmaLdexp` for V_DIV_FMAS_F64 (one rounding after the 2^±128 scale).

use super::Lifter;
use crate::Handle;
use crate::{FloatOp, IntCmp, IntOp, Node, Ty, UnOp};

type H = Handle<Node>;

const MAN: u64 = (1 << 52) - 1;
const INF: u64 = 0x7ff0_0000_0000_0000;
const QNAN: u64 = crate::quirks::F64_DEFAULT_NAN;
const SIGN: u64 = 1 << 63;
const ONE: u64 = 0x3ff0_0000_0000_0000;

impl Lifter<'_> {
    fn k64(&mut self, v: u64) -> H {
        self.c(Ty::B64, v)
    }
    fn o64(&mut self, op: IntOp, a: H, b: H) -> H {
        self.int(op, Ty::B64, a, b)
    }
    fn o64k(&mut self, op: IntOp, a: H, v: u64) -> H {
        let k = self.k64(v);
        self.int(op, Ty::B64, a, k)
    }
    fn c64k(&mut self, op: IntCmp, a: H, v: u64) -> H {
        let k = self.k64(v);
        self.icmp(op, Ty::B64, a, k)
    }
    fn o32k(&mut self, op: IntOp, a: H, v: i32) -> H {
        let k = self.k32(v as u32);
        self.int(op, Ty::B32, a, k)
    }
    fn fma64(&mut self, a: H, b: H, c: H) -> H {
        self.float(FloatOp::F64Fma, a, b, c)
    }
    fn mul64(&mut self, a: H, b: H) -> H {
        self.float(FloatOp::F64Mul, a, b, a)
    }
    fn add64(&mut self, a: H, b: H) -> H {
        self.float(FloatOp::F64Add, a, b, a)
    }
    /// a·b + c with two roundings: where the result only needs to be within a few ulps (the exact
    /// decision that follows corrects it), the fused emulation is not worth its size on a device
    /// without a fused f64 fma.
    fn mad64(&mut self, a: H, b: H, c: H) -> H {
        let p = self.mul64(a, b);
        self.add64(p, c)
    }
    fn neg64(&mut self, a: H) -> H {
        self.o64k(IntOp::Xor, a, SIGN)
    }
    fn b64_of_b32(&mut self, a: H) -> H {
        self.un(UnOp::ZExt, Ty::B64, a)
    }

    /// Index of the highest set bit of a nonzero B64, as B64.
    fn msb64v(&mut self, v: H) -> H {
        let mut s = v;
        for k in [1u64, 2, 4, 8, 16, 32] {
            let sh = self.o64k(IntOp::LShr, s, k);
            s = self.o64(IntOp::Or, s, sh);
        }
        let p = self.un(UnOp::Popcount, Ty::B64, s);
        self.o64k(IntOp::Sub, p, 1)
    }

    /// A finite nonzero |x| (sign clear) as (M, E): the 53-bit significand with its top bit at 52 and
    /// the unbiased exponent (B32, signed), |x| = M·2^(E−52); subnormals normalised.
    fn norm64(&mut self, a: H) -> (H, H) {
        let e = self.o64k(IntOp::LShr, a, 52);
        let m = self.o64k(IntOp::And, a, MAN);
        let sub = self.c64k(IntCmp::Eq, e, 0);
        let p = self.msb64v(m);
        let k52 = self.k64(52);
        let sh = self.o64(IntOp::Sub, k52, p);
        let m_sub = self.o64(IntOp::Shl, m, sh);
        let m_norm = self.o64k(IntOp::Or, m, 1 << 52);
        let mm = self.sel(sub, m_sub, m_norm);
        let e32 = self.un(UnOp::Trunc, Ty::B32, e);
        let e_norm = self.o32k(IntOp::Sub, e32, 1023);
        let p32 = self.un(UnOp::Trunc, Ty::B32, p);
        let e_sub = self.o32k(IntOp::Sub, p32, 1074);
        let ee = self.sel(sub, e_sub, e_norm);
        (mm, ee)
    }

    /// The positive f64 nearest to (Y + δ)·2^L where Y is an integer in [2^52, 2^53], L a signed B32
    /// and δ an unknown real with |δ| < 1/2, zero exactly when `inexact` is false and positive when
    /// `above`: one rounding to nearest even into the normal or subnormal range, or to +inf. The sign of
    /// δ decides the cases where Y lies exactly halfway between two representable values.
    fn assemble64(&mut self, y: H, l: H, inexact: H, above: H) -> H {
        let k = self.k32((-1074i32) as u32);
        let s = self.int(IntOp::Sub, Ty::B32, k, l); // bits to drop
        let k1 = self.k32(1);
        let sub = self.icmp(IntCmp::GeI, Ty::B32, s, k1);
        // Normal: ((L + 1074) << 52) + Y, the exponent term clamped so an overflow stays an overflow.
        let eb = self.o32k(IntOp::Add, l, 1074);
        let k0 = self.k32(0);
        let eb = self.int(IntOp::MaxI, Ty::B32, eb, k0);
        let k2046 = self.k32(2046);
        let eb = self.int(IntOp::MinI, Ty::B32, eb, k2046);
        let eb = self.b64_of_b32(eb);
        let eb = self.o64k(IntOp::Shl, eb, 52);
        let norm = self.o64(IntOp::Add, eb, y);
        let inf = self.k64(INF);
        let norm = self.o64(IntOp::MinU, norm, inf);
        // Subnormal: Y >> s rounded with the round bit, the rest, and δ.
        let k63 = self.k32(63);
        let s = self.int(IntOp::MinI, Ty::B32, s, k63);
        let s = self.int(IntOp::MaxI, Ty::B32, s, k1);
        let s64 = self.b64_of_b32(s);
        let q = self.o64(IntOp::LShr, y, s64);
        let s1 = self.o64k(IntOp::Sub, s64, 1);
        let rb = self.o64(IntOp::LShr, y, s1);
        let rb = self.o64k(IntOp::And, rb, 1);
        let rb = self.c64k(IntCmp::Ne, rb, 0);
        let one = self.k64(1);
        let unit = self.o64(IntOp::Shl, one, s1);
        let rmask = self.o64k(IntOp::Sub, unit, 1);
        let rest = self.o64(IntOp::And, y, rmask);
        let rest = self.c64k(IntCmp::Ne, rest, 0);
        let qodd = self.o64k(IntOp::And, q, 1);
        let qodd = self.c64k(IntCmp::Ne, qodd, 0);
        let tie_dir = self.sel(inexact, above, qodd);
        let more = self.or1(rest, tie_dir);
        let up = self.and1(rb, more);
        let inc = self.un(UnOp::ZExt, Ty::B64, up);
        let subv = self.o64(IntOp::Add, q, inc);
        self.sel(sub, subv, norm)
    }

    /// (A·B) as a 128-bit (hi, lo) pair of B64.
    fn mul128(&mut self, a: H, b: H) -> (H, H) {
        let hi = self.o64(IntOp::MulHiU, a, b);
        let lo = self.o64(IntOp::Mul, a, b);
        (hi, lo)
    }
    /// (hi, lo) < (hi2, lo2), unsigned.
    fn lt128(&mut self, x: (H, H), y: (H, H)) -> H {
        let hl = self.icmp(IntCmp::LtU, Ty::B64, x.0, y.0);
        let he = self.icmp(IntCmp::Eq, Ty::B64, x.0, y.0);
        let ll = self.icmp(IntCmp::LtU, Ty::B64, x.1, y.1);
        let e = self.and1(he, ll);
        self.or1(hl, e)
    }
    /// An f64 in [lo, hi] (both positive) as the integer Y with value Y·2^-s, where Y has 53 bits
    /// when the value is below `hi` and Y = 2^53 at `hi` (hi = 2·lo), s = 52 − exponent(lo).
    fn sig_of(&mut self, x: H, lo: u64) -> H {
        let x = self.o64k(IntOp::MaxU, x, lo);
        let x = self.o64k(IntOp::MinU, x, lo + (1 << 52));
        let e = self.o64k(IntOp::LShr, x, 52);
        let sh = self.o64k(IntOp::Sub, e, lo >> 52);
        let m = self.o64k(IntOp::And, x, MAN);
        let m = self.o64k(IntOp::Or, m, 1 << 52);
        self.o64(IntOp::Shl, m, sh)
    }

    /// V_RCP_F64: 1/x correctly rounded (D067). ±0 → ±inf, ±inf → ±0, NaN → the default NaN.
    pub(super) fn rcp_f64(&mut self, x: H) -> H {
        let sign = self.o64k(IntOp::And, x, SIGN);
        let a = self.o64k(IntOp::And, x, !SIGN);
        let is_nan = self.c64k(IntCmp::GtU, a, INF);
        let is_inf = self.c64k(IntCmp::Eq, a, INF);
        let is_zero = self.c64k(IntCmp::Eq, a, 0);
        // Work on a nonzero finite stand-in so the main path stays defined.
        let special = self.c64k(IntCmp::GeU, a, INF);
        let special = self.or1(special, is_zero);
        let one = self.k64(ONE);
        let a = self.sel(special, one, a);
        let (mb, e) = self.norm64(a);
        let frac = self.o64k(IntOp::And, mb, MAN);
        let m = self.o64k(IntOp::Or, frac, ONE); // m in [1, 2)
                                                 // Seed: 1/m in f32 from the top 23 fraction bits (relative error < 2^-22).
        let f = self.o64k(IntOp::LShr, frac, 29);
        let f = self.un(UnOp::Trunc, Ty::B32, f);
        let mf = self.o32k(IntOp::Or, f, 0x3f80_0000);
        let onef = self.k32(0x3f80_0000);
        let y0 = self.float(FloatOp::F32Div, onef, mf, mf);
        let y0 = self.b64_of_b32(y0);
        let y0 = self.o64k(IntOp::Shl, y0, 29);
        let mut y = self.o64k(IntOp::Add, y0, 896 << 52);
        // Two Newton–Raphson steps y += y·(1 − m·y); the second residual on the exact fma (relative
        // error of y below 2^-52 after it; the decision below needs it within one ulp).
        let nm = self.neg64(m);
        for i in 0..2 {
            let r = if i == 0 {
                self.mad64(nm, y, one)
            } else {
                self.fma64(nm, y, one)
            };
            y = self.mad64(y, r, y);
        }
        // y in [1/2, 1] as Y·2^-53; pick Y−1, Y or Y+1 by the midpoints' exact products with M.
        let yy = self.sig_of(y, 0x3fe0_0000_0000_0000);
        let two_y = self.o64k(IntOp::Shl, yy, 1);
        let up_mid = self.o64k(IntOp::Add, two_y, 1);
        let dn_mid = self.o64k(IntOp::Sub, two_y, 1);
        let t106 = (self.k64(1 << 42), self.k64(0));
        let pu = self.mul128(up_mid, mb);
        let up = self.lt128(pu, t106); // 1/m above the upper midpoint
        let pd = self.mul128(dn_mid, mb);
        let down = self.lt128(t106, pd); // 1/m below the lower midpoint
        let inc = self.un(UnOp::ZExt, Ty::B64, up);
        let dec = self.un(UnOp::ZExt, Ty::B64, down);
        let yy = self.o64(IntOp::Add, yy, inc);
        let yy = self.o64(IntOp::Sub, yy, dec);
        // Which side of Y·2^-53 the exact 1/m lies: Y·M against 2^105.
        let t105 = (self.k64(1 << 41), self.k64(0));
        let p = self.mul128(yy, mb);
        let above = self.lt128(p, t105);
        let below = self.lt128(t105, p);
        let inexact = self.or1(above, below);
        // 1/x = (Y + δ)·2^(−53 − E).
        let k = self.k32((-53i32) as u32);
        let l = self.int(IntOp::Sub, Ty::B32, k, e);
        let mag = self.assemble64(yy, l, inexact, above);
        let r = self.o64(IntOp::Or, sign, mag);
        let sinf = self.o64k(IntOp::Or, sign, INF);
        let r = self.sel(is_zero, sinf, r);
        let r = self.sel(is_inf, sign, r);
        let q = self.k64(QNAN);
        self.sel(is_nan, q, r)
    }

    /// √(m') for the reduced operand of x = m'·2^(2h), m' in [1, 4): (the correctly rounded root as an
    /// f64 in [1, 2), an approximation of 1/√m' from the Newton steps, m' as an f64, h as a B32).
    /// `a` must be finite, positive and nonzero.
    fn sqrt_core(&mut self, a: H) -> (H, H, H, H) {
        let (mb, e) = self.norm64(a);
        let odd = self.o32k(IntOp::And, e, 1);
        let odd = self.nonzero(Ty::B32, odd);
        let h = self.o32k(IntOp::AShr, e, 1); // floor(E/2): E = 2h + odd
        let frac = self.o64k(IntOp::And, mb, MAN);
        let m1 = self.o64k(IntOp::Or, frac, ONE);
        let m2 = self.o64k(IntOp::Or, frac, ONE + (1 << 52));
        let mp = self.sel(odd, m2, m1); // m' in [1, 4)
        let mm2 = self.o64k(IntOp::Shl, mb, 1);
        let mm = self.sel(odd, mm2, mb); // m' = Mm·2^-52
                                         // Seed: 1/√m' in f32.
        let f = self.o64k(IntOp::LShr, frac, 29);
        let f = self.un(UnOp::Trunc, Ty::B32, f);
        let fe = self.k32(0x4000_0000);
        let f1 = self.k32(0x3f80_0000);
        let fexp = self.sel(odd, fe, f1);
        let mf = self.int(IntOp::Or, Ty::B32, f, fexp);
        let sf = self.float(FloatOp::F32Sqrt, mf, mf, mf);
        let y0 = self.float(FloatOp::F32Div, f1, sf, sf);
        let y0 = self.b64_of_b32(y0);
        let y0 = self.o64k(IntOp::Shl, y0, 29);
        let mut y = self.o64k(IntOp::Add, y0, 896 << 52);
        let one = self.k64(ONE);
        let half = self.k64(0x3fe0_0000_0000_0000);
        let nm = self.neg64(mp);
        for _ in 0..2 {
            // y += (y/2)·(1 − m'·y²), unfused: y ends within a few 2^-53 of 1/√m'.
            let t = self.mul64(y, y);
            let r = self.mad64(nm, t, one);
            let hy = self.mul64(y, half);
            y = self.mad64(hy, r, y);
        }
        // g = m'·y, refined by the residual on the exact fma: g += (y/2)·(m' − g²) (within one ulp).
        let g = self.mul64(mp, y);
        let ng = self.neg64(g);
        let d = self.fma64(ng, g, mp);
        let hy = self.mul64(y, half);
        let g = self.mad64(d, hy, g);
        // g in [1, 2] as S·2^-52; pick S−1, S or S+1 by the squared midpoints against m'·2^106.
        let s = self.sig_of(g, ONE);
        let two_s = self.o64k(IntOp::Shl, s, 1);
        let up_mid = self.o64k(IntOp::Add, two_s, 1);
        let dn_mid = self.o64k(IntOp::Sub, two_s, 1);
        let thi = self.o64k(IntOp::LShr, mm, 10);
        let tlo = self.o64k(IntOp::Shl, mm, 54);
        let target = (thi, tlo);
        let pu = self.mul128(up_mid, up_mid);
        let up = self.lt128(pu, target);
        let pd = self.mul128(dn_mid, dn_mid);
        let down = self.lt128(target, pd);
        let inc = self.un(UnOp::ZExt, Ty::B64, up);
        let dec = self.un(UnOp::ZExt, Ty::B64, down);
        let s = self.o64(IntOp::Add, s, inc);
        let s = self.o64(IntOp::Sub, s, dec);
        // Back to an f64 in [1, 2] (S = 2^53 is 2.0).
        let l = self.k32((-52i32) as u32);
        let f0 = self.c(Ty::B1, 0);
        let root = self.assemble64(s, l, f0, f0);
        (root, y, mp, h)
    }

    /// Scales a positive normal f64 by 2^h (B32) where the result is known to stay normal.
    fn scale_exp(&mut self, x: H, h: H) -> H {
        let h64 = self.un(UnOp::SExt, Ty::B64, h);
        let sh = self.o64k(IntOp::Shl, h64, 52);
        self.o64(IntOp::Add, x, sh)
    }

    /// V_SQRT_F64: √x correctly rounded (D067). −0 → −0, x < 0 → NaN, +inf → +inf, NaN → default NaN.
    pub(super) fn sqrt_f64(&mut self, x: H) -> H {
        let a = self.o64k(IntOp::And, x, !SIGN);
        let is_nan = self.c64k(IntCmp::GtU, a, INF);
        let is_zero = self.c64k(IntCmp::Eq, a, 0);
        let neg = self.c64k(IntCmp::GeU, x, SIGN);
        let is_inf = self.c64k(IntCmp::Eq, x, INF);
        let special = self.c64k(IntCmp::GeU, a, INF);
        let special = self.or1(special, is_zero);
        let one = self.k64(ONE);
        let a1 = self.sel(special, one, a);
        let (root, _, _, h) = self.sqrt_core(a1);
        let r = self.scale_exp(root, h);
        let q = self.k64(QNAN);
        let r = self.sel(neg, q, r);
        let r = self.sel(is_inf, x, r);
        let r = self.sel(is_zero, x, r);
        self.sel(is_nan, q, r)
    }

    /// V_RSQ_F64: 1/√x within 1 ulp (D067): from s = √m' correctly rounded and y ≈ 1/√m', with the exact
    /// residuals r = 1 − s·y and d = m' − s², 1/√m' = y + y·(r − d·y²/2) + O(2^-100), one final rounding.
    /// ±0 → ±inf, x < 0 → NaN, +inf → +0, NaN → default NaN.
    pub(super) fn rsq_f64(&mut self, x: H) -> H {
        let a = self.o64k(IntOp::And, x, !SIGN);
        let sign = self.o64k(IntOp::And, x, SIGN);
        let is_nan = self.c64k(IntCmp::GtU, a, INF);
        let is_zero = self.c64k(IntCmp::Eq, a, 0);
        let neg = self.c64k(IntCmp::GeU, x, SIGN);
        let is_inf = self.c64k(IntCmp::Eq, x, INF);
        let special = self.c64k(IntCmp::GeU, a, INF);
        let special = self.or1(special, is_zero);
        let one = self.k64(ONE);
        let a1 = self.sel(special, one, a);
        let (s, y, mp, h) = self.sqrt_core(a1);
        let ns = self.neg64(s);
        let r = self.fma64(ns, y, one);
        let d = self.fma64(ns, s, mp);
        let y2 = self.mul64(y, y);
        let hd = self.k64(0xbfe0_0000_0000_0000); // −1/2
        let dh = self.mul64(d, hd);
        // The correction (≈ 2^-51 relative) only needs its leading bits: unfused, then one rounding.
        let corr = self.mad64(dh, y2, r);
        let z = self.mad64(y, corr, y); // in [1/2, 1]
        let k0 = self.k32(0);
        let nh = self.int(IntOp::Sub, Ty::B32, k0, h);
        let res = self.scale_exp(z, nh);
        let q = self.k64(QNAN);
        let r = self.sel(neg, q, res);
        let z0 = self.k64(0);
        let r = self.sel(is_inf, z0, r);
        let sinf = self.o64k(IntOp::Or, sign, INF);
        let r = self.sel(is_zero, sinf, r);
        self.sel(is_nan, q, r)
    }

    fn exp11(&mut self, x: H) -> H {
        let e = self.o64k(IntOp::LShr, x, 52);
        let e = self.o64k(IntOp::And, e, 0x7ff);
        self.un(UnOp::Trunc, Ty::B32, e)
    }
    fn ldexp64k(&mut self, x: H, k: i32) -> H {
        let p = self.k64(((1023 + k) as u64) << 52);
        self.mul64(x, p)
    }

    /// V_DIV_SCALE_F64: the rules of V_DIV_SCALE_F32 (lift/fmath.rs, D012) with the f64 constants: exponent
    /// difference ≥ 768, scale 2^±128, 1/D subnormal when D ≥ 2^1022 (exponent ≥ 2045), N/D subnormal
    /// when exponent(N) − exponent(D) ≤ −1022, tiny numerator when exponent(N) ≤ 53. Returns (D, VCC bit).
    pub(super) fn div_scale_f64(&mut self, x: H, den: H, num: H) -> (H, H) {
        let (f1, t1) = (self.c(Ty::B1, 0), self.c(Ty::B1, 1));
        let an = self.o64k(IntOp::And, num, !SIGN);
        let ad = self.o64k(IntOp::And, den, !SIGN);
        let zn = self.c64k(IntCmp::Eq, an, 0);
        let zd = self.c64k(IntCmp::Eq, ad, 0);
        let zero = self.or1(zn, zd);
        let en = self.exp11(num);
        let ed = self.exp11(den);
        let diff = self.int(IntOp::Sub, Ty::B32, en, ed);
        let k768 = self.k32(768);
        let big = self.icmp(IntCmp::GeI, Ty::B32, diff, k768);
        let d_sub = self.eq32(ed, 0);
        let k2045 = self.k32(2045);
        let r_sub = self.icmp(IntCmp::GeU, Ty::B32, ed, k2045);
        let km = self.k32((-1022i32) as u32);
        let q_sub = self.icmp(IntCmp::LeI, Ty::B32, diff, km);
        let both = self.and1(r_sub, q_sub);
        let k53 = self.k32(53);
        let tiny = self.icmp(IntCmp::LeU, Ty::B32, en, k53);
        let up = self.ldexp64k(x, 128);
        let down = self.ldexp64k(x, -128);
        let c = super::fmath::DivScaleCases {
            zero,
            big,
            d_sub,
            r_sub,
            q_sub,
            both,
            tiny,
        };
        self.div_scale_select(Ty::B64, (x, den, num), c, (up, down), (f1, t1))
    }

    /// V_DIV_FMAS_F64: fma(S0, S1, S2), and where the lane's VCC bit is set (a·b + c)·2^128 when
    /// exponent(S2) > 1023, ·2^-128 otherwise, rounded once (`F64FmaLdexp`, D067).
    pub(super) fn div_fmas_f64(&mut self, vcc: H, a: H, b: H, c: H) -> H {
        let plain = self.float(FloatOp::F64Fma, a, b, c);
        let up = self.float(FloatOp::F64FmaLdexp(128), a, b, c);
        let down = self.float(FloatOp::F64FmaLdexp(-128), a, b, c);
        let ec = self.exp11(c);
        let k = self.k32(1023);
        let large = self.icmp(IntCmp::GtU, Ty::B32, ec, k);
        let scaled = self.sel(large, up, down);
        self.sel(vcc, scaled, plain)
    }

    /// V_DIV_FIXUP_F64 / V_DIV_FIXUP_F16 (S0 = quotient, S1 = denominator, S2 = numerator): the rules
    /// of V_DIV_FIXUP_F32 (lift/fmath.rs, D012) in the given width (`ty` B64 or B16 in a B16 container),
    /// with the underflow limit exponent(N) − exponent(D) < −(bias + mantissa bits + 1).
    pub(super) fn div_fixup_w(&mut self, ty: Ty, q: H, den: H, num: H) -> H {
        let (man, ebits): (u32, u32) = if ty == Ty::B64 { (52, 11) } else { (10, 5) };
        let sign_bit = 1u64 << (man + ebits);
        let inf_k = ((1u64 << ebits) - 1) << man;
        let qnan_k = inf_k | 1 << (man - 1);
        let k = |s: &mut Self, v: u64| s.c(ty, v);
        let x = self.int(IntOp::Xor, ty, den, num);
        let km = k(self, sign_bit);
        let sign = self.int(IntOp::And, ty, x, km);
        let ka = k(self, sign_bit - 1);
        let an = self.int(IntOp::And, ty, num, ka);
        let ad = self.int(IntOp::And, ty, den, ka);
        let aq = self.int(IntOp::And, ty, q, ka);
        let inf = k(self, inf_k);
        let n_nan = self.icmp(IntCmp::GtU, ty, an, inf);
        let d_nan = self.icmp(IntCmp::GtU, ty, ad, inf);
        let q_nan = self.icmp(IntCmp::GtU, ty, aq, inf);
        let n_inf = self.icmp(IntCmp::Eq, ty, an, inf);
        let d_inf = self.icmp(IntCmp::Eq, ty, ad, inf);
        let z = k(self, 0);
        let n_zero = self.icmp(IntCmp::Eq, ty, an, z);
        let d_zero = self.icmp(IntCmp::Eq, ty, ad, z);
        let zz = self.and1(n_zero, d_zero);
        let ii = self.and1(n_inf, d_inf);
        let nan_in = self.or1(n_nan, d_nan);
        let nan_in = self.or1(nan_in, zz);
        let nan_in = self.or1(nan_in, ii);
        let to_inf = self.or1(d_zero, n_inf);
        let to_zero = self.or1(d_inf, n_zero);
        let kman = k(self, man as u64);
        let en = self.int(IntOp::LShr, ty, an, kman);
        let ed = self.int(IntOp::LShr, ty, ad, kman);
        let (en, ed) = if ty == Ty::B64 {
            (
                self.un(UnOp::Trunc, Ty::B32, en),
                self.un(UnOp::Trunc, Ty::B32, ed),
            )
        } else {
            (
                self.un(UnOp::ZExt, Ty::B32, en),
                self.un(UnOp::ZExt, Ty::B32, ed),
            )
        };
        let diff = self.int(IntOp::Sub, Ty::B32, en, ed);
        let bias = (1i32 << (ebits - 1)) - 1;
        let lim = self.k32((-(bias + man as i32)) as u32);
        let under = self.icmp(IntCmp::LtI, Ty::B32, diff, lim);
        let to_zero = self.or1(to_zero, under);
        let nan = k(self, qnan_k);
        let signed_inf = self.int(IntOp::Or, ty, sign, inf);
        let signed_q = self.int(IntOp::Or, ty, sign, aq);
        let r = self.sel(q_nan, signed_inf, signed_q);
        let r = self.sel(to_zero, sign, r);
        let r = self.sel(to_inf, signed_inf, r);
        self.sel(nan_in, nan, r)
    }
}
