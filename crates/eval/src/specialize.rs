//! Every target quirk of RDNA 2 float and conversion semantics, in one place (the evaluator's side; the
//! lowering has its own counterpart keyed by the device profile). Values are bit patterns.
//!
//! * NaN results are the default quiet NaN of their width (`rdna2spv_ir::quirks`, D170): devices
//!   disagree on which NaN operand's payload survives (lavapipe's choice varies with code generation,
//!   ../shared/DESIGN.md), so both sides canonicalise (decision D005).
//! * Fused operations round once (D993): f32 uses the host's fused multiply-add; half forms round once to half
//!   through round-to-odd in double precision (`fused_to_half`).
//! * Float→integer conversions saturate and map NaN to 0.
//! * Denormals are preserved (the LLVM/HSA default mode, FLOAT_DENORM_MODE_32 = 3) except where an
//!   instruction is defined to flush (legacy_multiply_add).

use rdna2spv_ir::quirks::{F16_DEFAULT_NAN, F32_DEFAULT_NAN, F64_DEFAULT_NAN};

fn c32(x: f32) -> u32 {
    if x.is_nan() {
        F32_DEFAULT_NAN
    } else {
        x.to_bits()
    }
}

fn c64(x: f64) -> u64 {
    if x.is_nan() {
        F64_DEFAULT_NAN
    } else {
        x.to_bits()
    }
}

pub fn f32_add(a: u32, b: u32) -> u32 {
    c32(f32::from_bits(a) + f32::from_bits(b))
}
pub fn f32_sub(a: u32, b: u32) -> u32 {
    c32(f32::from_bits(a) - f32::from_bits(b))
}
pub fn f32_mul(a: u32, b: u32) -> u32 {
    c32(f32::from_bits(a) * f32::from_bits(b))
}
/// Model::f32_fma: one rounding of a*b+c.
pub fn f32_fma(a: u32, b: u32, c: u32) -> u32 {
    c32(f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c)))
}

/// IEEE division, correctly rounded (V_RCP_F32 is 1/x through this; decision D012).
pub fn f32_div(a: u32, b: u32) -> u32 {
    c32(f32::from_bits(a) / f32::from_bits(b))
}

/// IEEE square root, correctly rounded (V_SQRT_F32; decision D012). sqrt(−0) = −0, negative → NaN.
pub fn f32_sqrt(a: u32) -> u32 {
    c32(f32::from_bits(a).sqrt())
}

/// (a·b + c)·2^k with one rounding to f32 (V_DIV_FMAS_F32 with VCC set, k = ±64). The product is
/// exact in f64; the sum is rounded to odd there (TwoSum), scaled exactly (|k| ≤ 127 stays far inside
/// f64's normal range for any f32 operands), then rounded once to f32 — round-to-odd at 53 bits
/// followed by one RNE at ≤ 24 bits is the single rounding, subnormal results included.
pub fn f32_fma_ldexp(a: u32, b: u32, c: u32, k: i32) -> u32 {
    let (x, y, z) = (
        f32::from_bits(a) as f64,
        f32::from_bits(b) as f64,
        f32::from_bits(c) as f64,
    );
    let p = x * y;
    let s = p + z;
    let odd = if s.is_finite() {
        let bb = s - p;
        let err = (p - (s - bb)) + (z - bb);
        if err != 0.0 && s.to_bits() & 1 == 0 {
            let toward = if err > 0.0 {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            next_toward(s, toward)
        } else {
            s
        }
    } else {
        s
    };
    c32((odd * 2f64.powi(k)) as f32)
}

fn flush32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// legacy_multiply_add (V_MAD_F32 and friends): the product rounds, then the sum rounds; denormal inputs,
/// product and result are flushed to zero of the same sign.
pub fn f32_legacy_mad(a: u32, b: u32, c: u32) -> u32 {
    let p = flush32(f32_mul(flush32(a), flush32(b)));
    flush32(f32_add(p, flush32(c)))
}

/// IEEE-mode min/max (minNum/maxNum: a NaN operand yields the other operand; -0 < +0).
pub fn f32_min(a: u32, b: u32) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => F32_DEFAULT_NAN,
        (true, false) => b,
        (false, true) => a,
        _ if x == y => a | b,
        _ => {
            if x < y {
                a
            } else {
                b
            }
        }
    }
}
pub fn f32_max(a: u32, b: u32) -> u32 {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => F32_DEFAULT_NAN,
        (true, false) => b,
        (false, true) => a,
        _ if x == y => a & b,
        _ => {
            if x > y {
                a
            } else {
                b
            }
        }
    }
}

/// f16 → f32, exact.
pub fn f16_to_f32(h: u16) -> u32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    match exp {
        0 if man == 0 => sign,
        0 => {
            // Subnormal: value = man * 2^-24.
            let v = man as f32 * f32::from_bits(0x3380_0000);
            sign | v.to_bits()
        }
        0x1f if man == 0 => sign | 0x7f80_0000,
        0x1f => sign | 0x7f80_0000 | (man << 13) | 0x0040_0000,
        _ => sign | ((exp + 112) << 23) | (man << 13),
    }
}

/// f64 → f16 with one rounding to nearest even (also used for f32 → f16, which is exact to widen first).
pub fn f64_to_f16(x: f64) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    if x.is_nan() {
        return F16_DEFAULT_NAN;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // Scale so the half's last place (2^-24 for subnormals, else 2^(e-10)) is 1, round to integer (RNE).
    let e = if a == 0.0 {
        -25
    } else {
        ((a.to_bits() >> 52) as i32) - 1023
    };
    let quantum_exp = (e.max(-14)) - 10;
    let scaled = a * 2f64.powi(-quantum_exp);
    let r = round_half_even(scaled);
    let v = r * 2f64.powi(quantum_exp);
    if v >= 65520.0 {
        return sign | 0x7c00;
    }
    // v is now exactly representable as a half.
    let vb = v.to_bits();
    if v == 0.0 {
        return sign;
    }
    let ve = ((vb >> 52) as i32) - 1023;
    if ve < -14 {
        let m = (v * 2f64.powi(24)) as u16;
        return sign | m;
    }
    let man = ((vb >> 42) & 0x3ff) as u16;
    sign | (((ve + 15) as u16) << 10) | man
}

fn round_half_even(x: f64) -> f64 {
    let f = x.floor();
    let d = x - f;
    if d > 0.5 || (d == 0.5 && f % 2.0 != 0.0) {
        f + 1.0
    } else {
        f
    }
}

pub fn f32_to_f16(x: u32) -> u16 {
    f64_to_f16(f32::from_bits(x) as f64)
}

fn h(x: u16) -> f64 {
    f32::from_bits(f16_to_f32(x)) as f64
}

/// Half add and multiply ([`rdna2spv_ir::FloatOp::F16Add`] / `F16Mul`): the one algorithm the IR names and
/// the lowering also uses — widen both halves exactly to f32, one f32 operation, round to half. Rounding twice
/// is innocuous here (24 ≥ 2·11 + 2, Figueroa 1995), so the result is the exact sum or product rounded once.
pub fn f16_add(a: u16, b: u16) -> u16 {
    f32_to_f16(f32_add(f16_to_f32(a), f16_to_f32(b)))
}
pub fn f16_mul(a: u16, b: u16) -> u16 {
    f32_to_f16(f32_mul(f16_to_f32(a), f16_to_f32(b)))
}

/// fused_to_half: a*b+c of halves, rounded once to half. The product is exact in f64; the sum is rounded to
/// odd at 53 bits (TwoSum gives its error exactly; an inexact sum with an even last bit moves one step toward
/// the exact value), and rounding to odd at 53 bits then to nearest at 11 is one rounding to nearest at 11
/// (Boldo and Melquiond 2008; D993).
pub fn f16_fma_to_half(a: u16, b: u16, c: u16) -> u16 {
    let p = h(a) * h(b);
    let cc = h(c);
    let s = p + cc;
    if !s.is_finite() {
        return f64_to_f16(s);
    }
    let bb = s - p;
    let err = (p - (s - bb)) + (cc - bb);
    let mut s_odd = s;
    if err != 0.0 && s.to_bits() & 1 == 0 {
        let toward = if err > 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
        s_odd = next_toward(s, toward);
    }
    f64_to_f16(s_odd)
}

fn next_toward(x: f64, t: f64) -> f64 {
    if x == t {
        return x;
    }
    if x == 0.0 {
        return if t > 0.0 {
            f64::from_bits(1)
        } else {
            -f64::from_bits(1)
        };
    }
    let b = x.to_bits();
    if (x < t) == (x > 0.0) {
        f64::from_bits(b + 1)
    } else {
        f64::from_bits(b - 1)
    }
}

pub fn f64_add(a: u64, b: u64) -> u64 {
    c64(f64::from_bits(a) + f64::from_bits(b))
}
pub fn f64_mul(a: u64, b: u64) -> u64 {
    c64(f64::from_bits(a) * f64::from_bits(b))
}
pub fn f64_fma(a: u64, b: u64, c: u64) -> u64 {
    c64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)))
}

/// (a·b + c)·2^k with ONE rounding to nearest even, into the normal or subnormal range or to ±inf
/// (V_DIV_FMAS_F64 with VCC set, k = ±128; decision D067). Exact integer arithmetic; special operands
/// (NaN, infinities, a zero factor) take the plain path, where a·b + c is exact and the scale rounds once.
pub fn f64_fma_ldexp(a: u64, b: u64, c: u64, k: i32) -> u64 {
    let (fa, fb, fc) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    if !fa.is_finite() || !fb.is_finite() || !fc.is_finite() || fa == 0.0 || fb == 0.0 {
        let scale = f64::from_bits(((1023 + k) as u64) << 52);
        return c64(fa.mul_add(fb, fc) * scale);
    }
    // Integer significand and the exponent of its last bit.
    fn parts(x: u64) -> (u128, i32) {
        let e = ((x >> 52) & 0x7ff) as i32;
        let m = (x & ((1 << 52) - 1)) as u128;
        if e == 0 {
            (m, -1074)
        } else {
            (m | 1 << 52, e - 1075)
        }
    }
    fn shr_jam(x: u128, d: i32) -> u128 {
        if d <= 0 {
            x
        } else if d >= 128 {
            (x != 0) as u128
        } else {
            (x >> d) | ((x & ((1u128 << d) - 1)) != 0) as u128
        }
    }
    // Normalised so the top bit is bit 125 (room for one carry).
    fn norm(m: u128, e: i32) -> (u128, i32) {
        let sh = m.leading_zeros() as i32 - 2;
        (m << sh, e - sh)
    }
    let (ma, ea) = parts(a);
    let (mb, eb) = parts(b);
    let sp = (a ^ b) >> 63;
    let (p, ep) = norm(ma * mb, ea + eb);
    let (mc, ec0) = parts(c);
    let sc = c >> 63;
    let (r, ex, sign) = if mc == 0 {
        (p, ep, sp)
    } else {
        let (cm, ec) = norm(mc, ec0);
        let ((big, sbig), (small, ssmall), ex, d) = if ep >= ec {
            ((p, sp), (cm, sc), ep, ep - ec)
        } else {
            ((cm, sc), (p, sp), ec, ec - ep)
        };
        let small = shr_jam(small, d);
        if sbig == ssmall {
            (big + small, ex, sbig)
        } else if big >= small {
            (big - small, ex, sbig)
        } else {
            (small - big, ex, ssmall)
        }
    };
    if r == 0 {
        return 0;
    }
    // Round r·2^(ex+k) to 53 bits, or to the subnormal grid 2^-1074.
    let e0 = ex + k;
    let m = 127 - r.leading_zeros() as i32;
    let s = (m - 52).max(-1074 - e0);
    let q: u128 = if s <= 0 {
        r << (-s)
    } else if s >= 128 {
        0
    } else {
        let q = r >> s;
        let rem = r & ((1u128 << s) - 1);
        let half = 1u128 << (s - 1);
        let up = rem > half || (rem == half && q & 1 == 1);
        q + up as u128
    };
    let lsb = e0 + s;
    let inf = 0x7ff0_0000_0000_0000u64;
    let biased = lsb as i64 + 1074;
    let mag = if biased >= 2047 {
        inf
    } else {
        (((biased as u64) << 52) + q as u64).min(inf)
    };
    (sign << 63) | mag
}

/// f32 → i32 with saturation; NaN → 0.
pub fn f32_to_i32(x: u32) -> u32 {
    let f = f32::from_bits(x);
    if f.is_nan() {
        0
    } else {
        (f as i32) as u32 // Rust's `as` saturates
    }
}
pub fn f32_to_u32(x: u32) -> u32 {
    let f = f32::from_bits(x);
    if f.is_nan() {
        0
    } else {
        f as u32
    }
}
pub fn i32_to_f32(x: u32) -> u32 {
    (x as i32 as f32).to_bits()
}
pub fn u32_to_f32(x: u32) -> u32 {
    (x as f32).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// D993's hand-worked operands.
    #[test]
    fn seed_operands() {
        let a = 1.0f32 + 2f32.powi(-12);
        let c = -(1.0f32 + 2f32.powi(-11));
        assert_eq!(
            f32::from_bits(f32_fma(a.to_bits(), a.to_bits(), c.to_bits())),
            2f32.powi(-24)
        );
        // Two roundings (the legacy form) give zero.
        assert_eq!(f32_legacy_mad(a.to_bits(), a.to_bits(), c.to_bits()), 0);
        // Half: a = 2^-11 (1 + 2^-10), b = 1 - 2^-10, c = 1 + 2^-10 → 0x3c01 rounded once.
        let ha = f64_to_f16(2f64.powi(-11) * (1.0 + 2f64.powi(-10)));
        let hb = f64_to_f16(1.0 - 2f64.powi(-10));
        let hc = f64_to_f16(1.0 + 2f64.powi(-10));
        assert_eq!((ha, hb, hc), (0x1001, 0x3bfe, 0x3c01));
        assert_eq!(f16_fma_to_half(ha, hb, hc), 0x3c01);
        // Rounded first to single precision it lands on the tie, which rounds to 0x3c02.
        let via_f32 = f32_fma(f16_to_f32(ha), f16_to_f32(hb), f16_to_f32(hc));
        assert_eq!(f32_to_f16(via_f32), 0x3c02);
    }

    #[test]
    fn half_conversions_round_trip_every_half() {
        for x in 0..=u16::MAX {
            let exp = (x >> 10) & 0x1f;
            if exp == 0x1f && x & 0x3ff != 0 {
                continue;
            }
            assert_eq!(f32_to_f16(f16_to_f32(x)), x, "0x{x:04x}");
        }
    }

    /// f16_add / f16_mul (through f32) equal the exact result rounded once to half, modelled here by the
    /// f64 route (a sum or product of two halves is exact in f64): every half against a boundary set, then
    /// seeded random pairs.
    #[test]
    fn half_add_mul_round_once() {
        let model = |x: f64| f64_to_f16(x);
        let check = |a: u16, b: u16| {
            assert_eq!(f16_add(a, b), model(h(a) + h(b)), "add 0x{a:04x} 0x{b:04x}");
            assert_eq!(f16_mul(a, b), model(h(a) * h(b)), "mul 0x{a:04x} 0x{b:04x}");
        };
        let edges: [u16; 14] = [
            0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3c01, 0x7bff, 0xfbff,
            0x7c00, 0xfc00, 0x7e01,
        ];
        for a in 0..=u16::MAX {
            for &b in &edges {
                check(a, b);
            }
        }
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            check(s as u16, (s >> 16) as u16);
        }
    }

    #[test]
    fn conversions_saturate() {
        assert_eq!(f32_to_i32(3e9f32.to_bits()), i32::MAX as u32);
        assert_eq!(f32_to_i32((-3e9f32).to_bits()), i32::MIN as u32);
        assert_eq!(f32_to_i32(F32_DEFAULT_NAN), 0);
        assert_eq!(f32_to_u32((-1.0f32).to_bits()), 0);
    }
}
