//! f32 building blocks composed of exact IR primitives: the transcendental approximations (exp2, log2,
//! sin/cos and rsq via `transcendental_f32`), ldexp, the division steps (`v_div_scale_f32`,
//! `v_div_fmas_f32`, `v_div_fixup_f32`) and `v_cmp_class_f32`'s class test (AMD RDNA 2 ISA guide, VOP3).

use super::Lifter;
use crate::{FloatCmp, FloatOp, Handle, IntCmp, IntOp, Node, Ty, UnOp};
use rdna2spv_isa::Opcode;

/// The cases of V_DIV_SCALE (D012), each a B1 node: a zero operand, a large exponent difference, a
/// subnormal denominator, 1/D subnormal, N/D subnormal, both of those, a tiny numerator.
pub(super) struct DivScaleCases {
    pub zero: Handle<Node>,
    pub big: Handle<Node>,
    pub d_sub: Handle<Node>,
    pub r_sub: Handle<Node>,
    pub q_sub: Handle<Node>,
    pub both: Handle<Node>,
    pub tiny: Handle<Node>,
}

impl Lifter<'_> {
    pub(super) fn k32(&mut self, v: u32) -> Handle<Node> {
        self.c(Ty::B32, v as u64)
    }

    pub(super) fn and32(&mut self, a: Handle<Node>, m: u32) -> Handle<Node> {
        let k = self.k32(m);
        self.int(IntOp::And, Ty::B32, a, k)
    }

    /// `a == k` (B32).
    pub(super) fn eq32(&mut self, a: Handle<Node>, k: u32) -> Handle<Node> {
        let k = self.k32(k);
        self.icmp(IntCmp::Eq, Ty::B32, a, k)
    }

    pub(super) fn sel(
        &mut self,
        cond: Handle<Node>,
        a: Handle<Node>,
        b: Handle<Node>,
    ) -> Handle<Node> {
        self.n(Node::Select { cond, a, b })
    }

    pub(super) fn and1(&mut self, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.int(IntOp::And, Ty::B1, a, b)
    }

    pub(super) fn or1(&mut self, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.int(IntOp::Or, Ty::B1, a, b)
    }

    /// The biased exponent field of an f32 (`exponent()` of the ISA pseudo-code; 0 for subnormals).
    pub(super) fn exponent32(&mut self, x: Handle<Node>) -> Handle<Node> {
        let k23 = self.k32(23);
        let e = self.int(IntOp::LShr, Ty::B32, x, k23);
        self.and32(e, 0xff)
    }

    /// `|x| == 0` (the ISA's float comparison with 0.0: true for ±0 only).
    pub(super) fn is_zero32(&mut self, x: Handle<Node>) -> Handle<Node> {
        let a = self.and32(x, 0x7fff_ffff);
        self.eq32(a, 0)
    }
    // ---- transcendental approximations (decision D017) --------------------------------------------

    pub(super) fn fk(&mut self, v: f32) -> Handle<Node> {
        self.c(Ty::B32, v.to_bits() as u64)
    }

    pub(super) fn fop(&mut self, op: FloatOp, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.float(op, a, b, a)
    }

    pub(super) fn ffma(
        &mut self,
        a: Handle<Node>,
        b: Handle<Node>,
        c: Handle<Node>,
    ) -> Handle<Node> {
        self.float(FloatOp::F32Fma, a, b, c)
    }

    pub(super) fn fcmp(&mut self, op: FloatCmp, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.n(Node::FloatCmp {
            op,
            ty: Ty::B32,
            a,
            b,
        })
    }

    /// Horner's rule with fused multiply-adds: c[0] + x·(c[1] + x·(…)).
    pub(super) fn horner(&mut self, x: Handle<Node>, c: &[f32]) -> Handle<Node> {
        let mut p = self.fk(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let kk = self.fk(k);
            p = self.ffma(p, x, kk);
        }
        p
    }

    /// 2^n for an integer n (B32) in [-126, 127], as f32 bits.
    pub(super) fn pow2_bits(&mut self, n: Handle<Node>) -> Handle<Node> {
        let bias = self.k32(127);
        let e = self.int(IntOp::Add, Ty::B32, n, bias);
        let k23 = self.k32(23);
        self.int(IntOp::Shl, Ty::B32, e, k23)
    }

    /// rint(x) (round half to even) of an f32 with |x| < 2^22, exactly: (x + 1.5·2^23) − 1.5·2^23.
    pub(super) fn rint_small(&mut self, x: Handle<Node>) -> Handle<Node> {
        let c = self.fk(12_582_912.0);
        let t = self.fop(FloatOp::F32Add, x, c);
        self.fop(FloatOp::F32Sub, t, c)
    }

    /// V_RSQ_F32, V_EXP_F32 (2^x), V_LOG_F32 (log2 x), V_SIN_F32 / V_COS_F32 (of 2π·x: the operand is in
    /// revolutions) on an f32 value, as fixed sequences of correctly rounded f32 operations (D017).
    pub(super) fn transcendental_f32(&mut self, op: Opcode, x: Handle<Node>) -> Handle<Node> {
        match op {
            Opcode::V_RSQ_F32 => {
                // 1/sqrt(x): two roundings. ±0 → ±inf, x < 0 → NaN, +inf → +0.
                let r = self.float(FloatOp::F32Sqrt, x, x, x);
                let one = self.fk(1.0);
                self.fop(FloatOp::F32Div, one, r)
            }
            Opcode::V_EXP_F32 => self.exp2_f32(x),
            Opcode::V_LOG_F32 => self.log2_f32(x),
            Opcode::V_SIN_F32 => self.sincos_f32(x, false),
            _ => self.sincos_f32(x, true),
        }
    }

    /// 2^x: x clamped to [-160, 130] (outside, the result is 0 or +inf anyway; a NaN stays NaN), split
    /// exactly into n + f with n = rint(x) and |f| ≤ 1/2, 2^f by a degree-7 Taylor polynomial of e^(f·ln2)
    /// in Horner form, then scaled by 2^n in two exact halves so that only the last multiplication rounds
    /// (once, also into the subnormal range).
    pub(super) fn exp2_f32(&mut self, x: Handle<Node>) -> Handle<Node> {
        let hi = self.fk(130.0);
        let lo = self.fk(-160.0);
        let over = self.fcmp(FloatCmp::Gt, x, hi);
        let under = self.fcmp(FloatCmp::Lt, x, lo);
        let x = self.sel(over, hi, x);
        let x = self.sel(under, lo, x);
        let n_f = self.rint_small(x);
        let f = self.fop(FloatOp::F32Sub, x, n_f);
        let ln2 = std::f64::consts::LN_2;
        let mut c = [0f32; 8];
        let mut term = 1f64;
        for (i, k) in c.iter_mut().enumerate() {
            if i > 0 {
                term *= ln2 / i as f64;
            }
            *k = term as f32;
        }
        let p = self.horner(f, &c);
        let n = self.un(UnOp::F32ToI32, Ty::B32, n_f);
        let one = self.k32(1);
        let n1 = self.int(IntOp::AShr, Ty::B32, n, one);
        let n2 = self.int(IntOp::Sub, Ty::B32, n, n1);
        let s1 = self.pow2_bits(n1);
        let s2 = self.pow2_bits(n2);
        let r = self.fop(FloatOp::F32Mul, p, s1);
        self.fop(FloatOp::F32Mul, r, s2)
    }

    /// log2(x): x = m·2^e with m in [√2/2, √2) (subnormals scaled by 2^32 first), log2(m) from
    /// t = (m−1)/(m+1) as c1·t + t³·(c3 + c5·t² + … + c11·t⁸) with c_k = 2/(k·ln 2), carried in two parts
    /// (t + t_lo, c1·t as hi + lo) and added to e with TwoSum, so one final rounding dominates. Special values:
    /// ±0 → −inf, x < 0 → NaN, +inf → +inf, NaN → NaN.
    pub(super) fn log2_f32(&mut self, x: Handle<Node>) -> Handle<Node> {
        let expf = self.and32(x, 0x7f80_0000);
        let den = self.eq32(expf, 0);
        let k32 = self.fk(4_294_967_296.0);
        let xs = self.fop(FloatOp::F32Mul, x, k32);
        let xs = self.sel(den, xs, x);
        let adj_d = self.k32(-32i32 as u32);
        let z = self.k32(0);
        let adj = self.sel(den, adj_d, z);
        let k23 = self.k32(23);
        let eb = self.int(IntOp::LShr, Ty::B32, xs, k23);
        let eb = self.and32(eb, 0xff);
        let bias = self.k32(127);
        let e = self.int(IntOp::Sub, Ty::B32, eb, bias);
        let e = self.int(IntOp::Add, Ty::B32, e, adj);
        let frac = self.and32(xs, 0x007f_ffff);
        let onebits = self.k32(0x3f80_0000);
        let mb = self.int(IntOp::Or, Ty::B32, frac, onebits);
        // m > √2: halve it and count one more.
        let sqrt2 = self.k32(0x3fb5_04f3);
        let big = self.icmp(IntCmp::GtU, Ty::B32, mb, sqrt2);
        let exp1 = self.k32(0x0080_0000);
        let mh = self.int(IntOp::Sub, Ty::B32, mb, exp1);
        let m = self.sel(big, mh, mb);
        let one_i = self.k32(1);
        let e1 = self.int(IntOp::Add, Ty::B32, e, one_i);
        let e = self.sel(big, e1, e);
        // f = m − 1 is exact; t = f/(2 + f) with its error carried: the denominator's rounding error dl
        // (Fast2Sum) and the quotient's remainder (exact by fma) give t_lo, so t + t_lo is within a few
        // units of 2^-48 of the true t.
        let one = self.fk(1.0);
        let two = self.fk(2.0);
        let f = self.fop(FloatOp::F32Sub, m, one);
        let dnm = self.fop(FloatOp::F32Add, f, two);
        let z = self.fop(FloatOp::F32Sub, dnm, two);
        let dl = self.fop(FloatOp::F32Sub, f, z);
        let t = self.fop(FloatOp::F32Div, f, dnm);
        let nt = self.un(UnOp::FNeg, Ty::B32, t);
        let rem = self.ffma(nt, dnm, f);
        let tdl = self.fop(FloatOp::F32Mul, t, dl);
        let num_lo = self.fop(FloatOp::F32Sub, rem, tdl);
        let t_lo = self.fop(FloatOp::F32Div, num_lo, dnm);
        // log2(m) = c1·t + t³·(c3 + c5·t² + … + c11·t⁸), c_k = 2/(k·ln 2); c1·t in two parts.
        let l2 = std::f64::consts::LN_2;
        let c1 = 2.0 / l2;
        let c1h = c1 as f32;
        let c1l = (c1 - c1h as f64) as f32;
        let c: Vec<f32> = [3, 5, 7, 9, 11]
            .iter()
            .map(|&k| (2.0 / (k as f64 * l2)) as f32)
            .collect();
        let t2 = self.fop(FloatOp::F32Mul, t, t);
        let rp = self.horner(t2, &c);
        let t3 = self.fop(FloatOp::F32Mul, t2, t);
        let kh = self.fk(c1h);
        let kl = self.fk(c1l);
        let hi = self.fop(FloatOp::F32Mul, kh, t);
        let nhi = self.un(UnOp::FNeg, Ty::B32, hi);
        let lo = self.ffma(kh, t, nhi);
        let corr = self.ffma(kl, t, lo);
        let corr = self.ffma(kh, t_lo, corr);
        let corr = self.ffma(t3, rp, corr);
        // e + hi + corr: TwoSum of e and hi, then one last rounding.
        let ef = self.un(UnOp::I32ToF32, Ty::B32, e);
        let s1 = self.fop(FloatOp::F32Add, ef, hi);
        let bb = self.fop(FloatOp::F32Sub, s1, ef);
        let ab = self.fop(FloatOp::F32Sub, s1, bb);
        let ea = self.fop(FloatOp::F32Sub, ef, ab);
        let eb = self.fop(FloatOp::F32Sub, hi, bb);
        let err = self.fop(FloatOp::F32Add, ea, eb);
        let low = self.fop(FloatOp::F32Add, err, corr);
        let r = self.fop(FloatOp::F32Add, s1, low);
        // Special values.
        let zero = self.fk(0.0);
        let is_zero = self.fcmp(FloatCmp::Eq, x, zero);
        let neg = self.fcmp(FloatCmp::Lt, x, zero);
        let inf = self.k32(0x7f80_0000);
        let is_inf = self.eq32(x, 0x7f80_0000);
        let is_nan = self.fcmp(FloatCmp::U, x, x);
        let ninf = self.k32(0xff80_0000);
        let qnan = self.k32(crate::quirks::F32_DEFAULT_NAN);
        let r = self.sel(is_inf, inf, r);
        let r = self.sel(is_zero, ninf, r);
        let bad = self.or1(neg, is_nan);
        self.sel(bad, qnan, r)
    }

    /// sin(2π·x) or cos(2π·x): r = x − rint(x) (exact; |x| ≥ 2^22 is a multiple of 1/2, handled by the
    /// same identities), quadrant q = rint(4r), s = r − q/4 (exact, |s| ≤ 1/8), then the sine or cosine
    /// polynomial in s (Taylor series of sin/cos(2π·s), |2π·s| ≤ π/4, leading terms carried in two parts)
    /// chosen and signed by q. ±inf and NaN → NaN.
    pub(super) fn sincos_f32(&mut self, x: Handle<Node>, cos: bool) -> Handle<Node> {
        let ax = self.un(UnOp::FAbs, Ty::B32, x);
        let lim = self.fk(4_194_304.0);
        let small = self.fcmp(FloatCmp::Lt, ax, lim);
        let xr = self.rint_small(x);
        let r_small = self.fop(FloatOp::F32Sub, x, xr);
        // |x| ≥ 2^22: x is a multiple of 1/2 and r is 1/2 for an odd multiple (below 2^23), else 0.
        let half = self.fk(0.5);
        let two = self.fk(2.0);
        let tx = self.fop(FloatOp::F32Mul, x, two);
        // tx = 2x is an integer for |x| ≥ 2^22; it is odd iff x is an odd multiple of 1/2 (|x| < 2^23).
        let txi = self.un(UnOp::F32ToI32, Ty::B32, tx);
        let odd = self.and32(txi, 1);
        let is_odd = self.eq32(odd, 1);
        let lim23 = self.fk(8_388_608.0);
        let below23 = self.fcmp(FloatCmp::Lt, ax, lim23);
        let is_odd = self.and1(is_odd, below23);
        let zr = self.fk(0.0);
        let r_big = self.sel(is_odd, half, zr);
        let r = self.sel(small, r_small, r_big);
        let four = self.fk(4.0);
        let r4 = self.fop(FloatOp::F32Mul, r, four);
        let qf = self.rint_small(r4);
        let quarter = self.fk(0.25);
        let qq = self.fop(FloatOp::F32Mul, qf, quarter);
        let sv = self.fop(FloatOp::F32Sub, r, qq);
        let q = self.un(UnOp::F32ToI32, Ty::B32, qf);
        // Taylor coefficients of sin(2π·s) (odd) and cos(2π·s) (even); the leading ones split in two f32
        // parts and their products with s (or s²) kept exactly by fma, so one final rounding dominates.
        let tau = std::f64::consts::TAU;
        let fact = |k: u32| (1..=k).map(|i| i as f64).product::<f64>();
        let coef = |k: u32| {
            let v = tau.powi(k as i32) / fact(k);
            if (k / 2) % 2 == 1 {
                -v
            } else {
                v
            }
        };
        let split = |v: f64| (v as f32, (v - v as f32 as f64) as f32);
        let neg = |cx: &mut Self, v: Handle<Node>| cx.un(UnOp::FNeg, Ty::B32, v);
        let s2 = self.fop(FloatOp::F32Mul, sv, sv);
        let ns2 = neg(self, s2);
        let s2l = self.ffma(sv, sv, ns2);
        // sin(2π·s) = a1·s + s³·(a3 + a5·s² + a7·s⁴ + a9·s⁶)
        let (a1h, a1l) = split(coef(1));
        let p_sin: Vec<f32> = [3, 5, 7, 9].iter().map(|&k| coef(k) as f32).collect();
        let ps = self.horner(s2, &p_sin);
        let s3 = self.fop(FloatOp::F32Mul, s2, sv);
        let kh = self.fk(a1h);
        let kl = self.fk(a1l);
        let hi = self.fop(FloatOp::F32Mul, kh, sv);
        let nhi = neg(self, hi);
        let lo = self.ffma(kh, sv, nhi);
        let corr = self.ffma(kl, sv, lo);
        let corr = self.ffma(s3, ps, corr);
        let sin_s = self.fop(FloatOp::F32Add, hi, corr);
        // cos(2π·s) = 1 + b2·s² + s⁴·(b4 + b6·s² + b8·s⁴ + b10·s⁶)
        let (b2h, b2l) = split(coef(2));
        let p_cos: Vec<f32> = [4, 6, 8, 10].iter().map(|&k| coef(k) as f32).collect();
        let pc = self.horner(s2, &p_cos);
        let kh = self.fk(b2h);
        let kl = self.fk(b2l);
        let bh = self.fop(FloatOp::F32Mul, kh, s2);
        let nbh = neg(self, bh);
        let bl = self.ffma(kh, s2, nbh);
        let one = self.fk(1.0);
        let c0 = self.fop(FloatOp::F32Add, one, bh);
        let zz = self.fop(FloatOp::F32Sub, c0, one);
        let e1 = self.fop(FloatOp::F32Sub, bh, zz);
        let s4 = self.fop(FloatOp::F32Mul, s2, s2);
        let corr = self.fop(FloatOp::F32Add, e1, bl);
        let corr = self.ffma(kh, s2l, corr);
        let corr = self.ffma(kl, s2, corr);
        let corr = self.ffma(s4, pc, corr);
        let cos_s = self.fop(FloatOp::F32Add, c0, corr);
        // sin(2π(s + q/4)) and cos(2π(s + q/4)) by q mod 4 (q in −2..=2).
        let qm = self.and32(q, 3);
        let q_is = |cx: &mut Self, k: u32| cx.eq32(qm, k);
        let (q1, q2, q3) = (q_is(self, 1), q_is(self, 2), q_is(self, 3));
        let nsin = self.un(UnOp::FNeg, Ty::B32, sin_s);
        let ncos = self.un(UnOp::FNeg, Ty::B32, cos_s);
        let r = if cos {
            // q=0: cos, 1: −sin, 2: −cos, 3: sin
            let v = self.sel(q1, nsin, cos_s);
            let v = self.sel(q2, ncos, v);
            self.sel(q3, sin_s, v)
        } else {
            // q=0: sin, 1: cos, 2: −sin, 3: −cos
            let v = self.sel(q1, cos_s, sin_s);
            let v = self.sel(q2, nsin, v);
            self.sel(q3, ncos, v)
        };
        let is_nan = self.fcmp(FloatCmp::U, x, x);
        let inf = self.fk(f32::INFINITY);
        let is_inf = self.fcmp(FloatCmp::Eq, ax, inf);
        let bad = self.or1(is_nan, is_inf);
        let qnan = self.k32(crate::quirks::F32_DEFAULT_NAN);
        self.sel(bad, qnan, r)
    }

    /// ldexp(x, ±64) as a multiplication by the power of two `pow2` (one rounding, which only matters
    /// where the result leaves the normal range).
    pub(super) fn ldexp(&mut self, x: Handle<Node>, pow2: u32) -> Handle<Node> {
        let k = self.k32(pow2);
        self.float(FloatOp::F32Mul, x, k, x)
    }

    /// V_DIV_SCALE_F32 (RDNA ISA guide pseudo-code; S0 = value to scale, S1 = denominator,
    /// S2 = numerator). Returns (D, VCC bit); the first rule that matches decides:
    ///   1. S2 == 0 or S1 == 0                → D = NaN, VCC = 0
    ///   2. exponent(S2) − exponent(S1) ≥ 96  → VCC = 1; D = S0 == S1 ? ldexp(S0, 64) : S0
    ///   3. S1 subnormal                      → D = ldexp(S0, 64)
    ///   4. 1/S1 and S2/S1 subnormal          → VCC = 1; D = S0 == S1 ? ldexp(S0, −64) : S0
    ///   5. 1/S1 subnormal                    → D = ldexp(S0, −64)
    ///   6. S2/S1 subnormal                   → VCC = 1; D = S0 == S2 ? ldexp(S0, 64) : S0
    ///   7. exponent(S2) ≤ 23 (tiny numerator) → D = ldexp(S0, 64)
    ///
    /// Otherwise D = S0, VCC = 0.
    ///
    /// Readings (decision D012): "is subnormal" is predicted from exponent fields, conservatively —
    /// 1/S1 when exponent(S1) ≥ 253 (S1 ≥ 2^126), S2/S1 when exponent(S2) − exponent(S1) ≤ −126 — not
    /// tested on rounded results (a rounded quotient misses quotients that round to 0 or up to 2^-126,
    /// and the macro then rounds twice); scaling when the value turns out normal is exact and undone
    /// by div_fmas before its one rounding. Rule 4's denominator scale is read as 2^-64: the guide's
    /// ldexp(S0, 64) would take a denominator ≥ 2^126 to infinity and the macro to NaN.
    pub(super) fn div_scale_f32(
        &mut self,
        x: Handle<Node>,
        den: Handle<Node>,
        num: Handle<Node>,
    ) -> (Handle<Node>, Handle<Node>) {
        let (f1, t1) = (self.c(Ty::B1, 0), self.c(Ty::B1, 1));
        let zn = self.is_zero32(num);
        let zd = self.is_zero32(den);
        let zero = self.or1(zn, zd);
        let en = self.exponent32(num);
        let ed = self.exponent32(den);
        let diff = self.int(IntOp::Sub, Ty::B32, en, ed);
        let k96 = self.k32(96);
        let big = self.icmp(IntCmp::GeI, Ty::B32, diff, k96);
        let d_sub = self.eq32(ed, 0); // zeros were taken by rule 1, so exponent 0 means subnormal
        let k253 = self.k32(253);
        let r_sub = self.icmp(IntCmp::GeU, Ty::B32, ed, k253);
        let km126 = self.k32((-126i32) as u32);
        let q_sub = self.icmp(IntCmp::LeI, Ty::B32, diff, km126);
        let both = self.and1(r_sub, q_sub);
        let k23 = self.k32(23);
        let tiny = self.icmp(IntCmp::LeU, Ty::B32, en, k23);
        let up = self.ldexp(x, 0x5f80_0000);
        let down = self.ldexp(x, 0x1f80_0000);
        let c = DivScaleCases {
            zero,
            big,
            d_sub,
            r_sub,
            q_sub,
            both,
            tiny,
        };
        self.div_scale_select(Ty::B32, (x, den, num), c, (up, down), (f1, t1))
    }

    /// The selection of V_DIV_SCALE_F32/F64 (`f1`/`t1`: the B1 constants 0 and 1), shared by `div_scale_f32` and lift/f64div.rs
    /// `div_scale_f64`, which compute the cases with their own constants): D and the VCC bit from the
    /// cases and the two scalings `up`/`down` of `x`, built from the last rule to the first so that the
    /// first matching rule wins.
    pub(super) fn div_scale_select(
        &mut self,
        ty: Ty,
        (x, den, num): (Handle<Node>, Handle<Node>, Handle<Node>),
        c: DivScaleCases,
        (up, down): (Handle<Node>, Handle<Node>),
        (f1, t1): (Handle<Node>, Handle<Node>),
    ) -> (Handle<Node>, Handle<Node>) {
        let x_is_den = self.n(Node::FloatCmp {
            op: FloatCmp::Eq,
            ty,
            a: x,
            b: den,
        });
        let x_is_num = self.n(Node::FloatCmp {
            op: FloatCmp::Eq,
            ty,
            a: x,
            b: num,
        });
        let nan = match ty {
            Ty::B64 => self.c(Ty::B64, crate::quirks::F64_DEFAULT_NAN),
            _ => self.k32(crate::quirks::F32_DEFAULT_NAN),
        };
        let d = self.sel(c.tiny, up, x);
        let f = f1;
        let d6 = self.sel(x_is_num, up, x);
        let d = self.sel(c.q_sub, d6, d);
        let f = self.sel(c.q_sub, t1, f);
        let d = self.sel(c.r_sub, down, d);
        let f = self.sel(c.r_sub, f1, f);
        let d4 = self.sel(x_is_den, down, x);
        let d = self.sel(c.both, d4, d);
        let f = self.sel(c.both, t1, f);
        let d = self.sel(c.d_sub, up, d);
        let f = self.sel(c.d_sub, f1, f);
        let d2 = self.sel(x_is_den, up, x);
        let d = self.sel(c.big, d2, d);
        let f = self.sel(c.big, t1, f);
        let d = self.sel(c.zero, nan, d);
        let f = self.sel(c.zero, f1, f);
        (d, f)
    }

    /// V_DIV_FMAS_F32: fma(S0, S1, S2), and where the lane's VCC bit is set the result is scaled by
    /// 2^64 when exponent(S2) > 127 (the quotient was computed against a denominator scaled up by
    /// div_scale) and by 2^-64 otherwise (numerator scaled up) — the scale applied before the single
    /// rounding.
    pub(super) fn div_fmas_f32(
        &mut self,
        vcc: Handle<Node>,
        a: Handle<Node>,
        b: Handle<Node>,
        c: Handle<Node>,
    ) -> Handle<Node> {
        let plain = self.float(FloatOp::F32Fma, a, b, c);
        let up = self.float(FloatOp::F32FmaLdexp(64), a, b, c);
        let down = self.float(FloatOp::F32FmaLdexp(-64), a, b, c);
        let ec = self.exponent32(c);
        let k127 = self.k32(127);
        let large = self.icmp(IntCmp::GtU, Ty::B32, ec, k127);
        let scaled = self.sel(large, up, down);
        self.sel(vcc, scaled, plain)
    }

    /// V_DIV_FIXUP_F32 (S0 = quotient, S1 = denominator, S2 = numerator), in integer logic:
    ///   S2 or S1 NaN, 0/0, ±inf/±inf → NaN (the default NaN, D005)
    ///   S1 == 0 or |S2| == inf       → ±inf with sign(S1) ^ sign(S2)
    ///   |S1| == inf or S2 == 0       → ±0
    ///   exponent(S2) − exponent(S1) < −150 → ±0 (underflow: |S2/S1| < 2^-150 rounds to zero)
    ///   otherwise                    → |S0| with the sign sign(S1) ^ sign(S2); a NaN S0 (with finite,
    ///                                  nonzero operands only an overflowed macro makes one: inf − inf in
    ///                                  its residual) gives ±inf, the correctly rounded overflow (D012)
    pub(super) fn div_fixup_f32(
        &mut self,
        q: Handle<Node>,
        den: Handle<Node>,
        num: Handle<Node>,
    ) -> Handle<Node> {
        let x = self.int(IntOp::Xor, Ty::B32, den, num);
        let sign = self.and32(x, 0x8000_0000);
        let an = self.and32(num, 0x7fff_ffff);
        let ad = self.and32(den, 0x7fff_ffff);
        let aq = self.and32(q, 0x7fff_ffff);
        let inf = self.k32(0x7f80_0000);
        let n_nan = self.icmp(IntCmp::GtU, Ty::B32, an, inf);
        let d_nan = self.icmp(IntCmp::GtU, Ty::B32, ad, inf);
        let q_nan = self.icmp(IntCmp::GtU, Ty::B32, aq, inf);
        let n_inf = self.eq32(an, 0x7f80_0000);
        let d_inf = self.eq32(ad, 0x7f80_0000);
        let n_zero = self.eq32(an, 0);
        let d_zero = self.eq32(ad, 0);
        let zz = self.and1(n_zero, d_zero);
        let ii = self.and1(n_inf, d_inf);
        let nan_in = self.or1(n_nan, d_nan);
        let nan_in = self.or1(nan_in, zz);
        let nan_in = self.or1(nan_in, ii);
        let to_inf = self.or1(d_zero, n_inf);
        let to_zero = self.or1(d_inf, n_zero);
        let en = self.exponent32(num);
        let ed = self.exponent32(den);
        let diff = self.int(IntOp::Sub, Ty::B32, en, ed);
        let lim = self.k32((-150i32) as u32);
        let under = self.icmp(IntCmp::LtI, Ty::B32, diff, lim);
        let to_zero = self.or1(to_zero, under);
        let nan = self.k32(crate::quirks::F32_DEFAULT_NAN);
        let signed_inf = self.int(IntOp::Or, Ty::B32, sign, inf);
        let signed_q = self.int(IntOp::Or, Ty::B32, sign, aq);
        let r = self.sel(q_nan, signed_inf, signed_q);
        let r = self.sel(to_zero, sign, r);
        let r = self.sel(to_inf, signed_inf, r);
        self.sel(nan_in, nan, r)
    }

    /// V_CMP_CLASS_F32: bit `class(S0)` of the mask S1, classes numbered as the ISA does
    /// (0 signalling NaN, 1 quiet NaN, 2 −inf, 3 −normal, 4 −subnormal, 5 −0, 6 +0, 7 +subnormal,
    /// 8 +normal, 9 +inf). Integer logic only: the negative class of a positive class p is 11 − p.
    pub(super) fn class_f32(&mut self, x: Handle<Node>, mask: Handle<Node>) -> Handle<Node> {
        let a = self.and32(x, 0x7fff_ffff);
        let (k6, k7, k8, k9) = (self.k32(6), self.k32(7), self.k32(8), self.k32(9));
        let is_zero = self.eq32(a, 0);
        let min_normal = self.k32(0x0080_0000);
        let sub = self.icmp(IntCmp::LtU, Ty::B32, a, min_normal);
        let inf = self.k32(0x7f80_0000);
        let normal = self.icmp(IntCmp::LtU, Ty::B32, a, inf);
        let p = self.sel(normal, k8, k9);
        let p = self.sel(sub, k7, p);
        let p = self.sel(is_zero, k6, p);
        let k11 = self.k32(11);
        let n = self.int(IntOp::Sub, Ty::B32, k11, p);
        let k31 = self.k32(31);
        let s = self.int(IntOp::LShr, Ty::B32, x, k31);
        let neg = self.eq32(s, 1);
        let idx = self.sel(neg, n, p);
        let is_nan = self.icmp(IntCmp::GtU, Ty::B32, a, inf);
        let quiet_min = self.k32(0x7fc0_0000);
        let quiet = self.icmp(IntCmp::GeU, Ty::B32, a, quiet_min);
        let (k0, k1) = (self.k32(0), self.k32(1));
        let nan_idx = self.sel(quiet, k1, k0);
        let idx = self.sel(is_nan, nan_idx, idx);
        let bit = self.int(IntOp::LShr, Ty::B32, mask, idx);
        let bit = self.and32(bit, 1);
        self.nonzero(Ty::B32, bit)
    }
}
