//! Exact emulations of ISA primitives that a driver may not implement exactly.
//!
//! The fused multiply-add recipe (D993, D004): a fused multiply-add rounds once, but `GLSL.std.450 Fma`
//! does not promise that and lavapipe rounds twice. So the operands are widened to a type with more
//! than twice the precision, where
//!
//! 1. the product `p = a·b` is exact (24 + 24 ≤ 53 bits for f32 in f64; 11 + 11 ≤ 24 for f16 in f32);
//! 2. the sum `s = fl(p + c)` rounds once, and TwoSum recovers its rounding error `e` exactly;
//! 3. if `e ≠ 0` and the last bit of `s` is even, `s` is stepped one unit toward the exact value —
//!    that is `p + c` rounded *to odd* in the wide type (emitted branch-free as `(s + d) | 1` on the
//!    bits, `d` the sign of `e XOR s` spread by an arithmetic shift: six integer operations where the
//!    compare-and-select form took eleven, the same bits for every `s` and `e`, decision D150);
//! 4. one round-to-nearest-even conversion to the narrow type then equals the single rounding of
//!    `a·b + c` (round-to-odd at p' ≥ 2p + 2 bits followed by RNE at p bits is RNE at p bits).
//!
//! Every float operation carries `NoContraction`: without it the driver may simplify the TwoSum error
//! term to zero (measured on lavapipe: 40 f32 / 72 f16 mismatches per million without it, 0 with it).
//!
//! The emitters only append instructions to the block the [`Builder`] has selected and reuse (or add)
//! the scalar types and constants they need. The caller declares the capabilities listed by
//! [`FMA_F32_CAPABILITIES`] / [`FMA_F16_CAPABILITIES`].

use rspirv::dr::{Builder, Error as BuildError, Instruction, Operand};
use spirv::{Capability, Decoration, Op, Word};

/// Capabilities a module must declare to use [`emit_fma_f32_exact`] (the wide type is f64, its bits u64).
pub const FMA_F32_CAPABILITIES: &[Capability] = &[Capability::Float64, Capability::Int64];
/// Capabilities a module must declare to use [`emit_fma_f16_exact`] (the wide type is f32).
pub const FMA_F16_CAPABILITIES: &[Capability] = &[Capability::Float16];

/// Emits a single-rounding f32 fused multiply-add `a * b + c` (all three `OpTypeFloat 32` values) and
/// returns the id of the f32 result. Needs `Float64` and `Int64`.
pub fn emit_fma_f32_exact(
    builder: &mut Builder,
    a: Word,
    b: Word,
    c: Word,
) -> Result<Word, BuildError> {
    emit_fma_via_wider(builder, 32, 64, a, b, c)
}

/// Emits a single-rounding f16 fused multiply-add `a * b + c` (all three `OpTypeFloat 16` values) —
/// D993's `fused_to_half` — and returns the id of the f16 result. Needs `Float16`.
pub fn emit_fma_f16_exact(
    builder: &mut Builder,
    a: Word,
    b: Word,
    c: Word,
) -> Result<Word, BuildError> {
    emit_fma_via_wider(builder, 16, 32, a, b, c)
}

/// Returns the id of an `OpConstant` of type `ty` with the given bits, reusing an existing one.
/// `wide` selects a 64-bit literal.
pub fn constant_bits(builder: &mut Builder, ty: Word, bits: u64, wide: bool) -> Word {
    let want = if wide {
        Operand::LiteralBit64(bits)
    } else {
        Operand::LiteralBit32(bits as u32)
    };
    let existing = builder.module_ref().types_global_values.iter().find(|i| {
        i.class.opcode == Op::Constant && i.result_type == Some(ty) && i.operands == [want.clone()]
    });
    if let Some(id) = existing.and_then(|i| i.result_id) {
        return id;
    }
    if wide {
        builder.constant_bit64(ty, bits)
    } else {
        builder.constant_bit32(ty, bits as u32)
    }
}

fn no_contraction(builder: &mut Builder, id: Word) {
    builder.decorate(id, Decoration::NoContraction, []);
}

fn emit_fma_via_wider(
    bd: &mut Builder,
    narrow: u32,
    wide: u32,
    a: Word,
    b: Word,
    c: Word,
) -> Result<Word, BuildError> {
    let t_narrow = bd.type_float(narrow, None);
    let t_wide = bd.type_float(wide, None);

    let xa = bd.f_convert(t_wide, None, a)?;
    let xb = bd.f_convert(t_wide, None, b)?;
    let xc = bd.f_convert(t_wide, None, c)?;
    let odd = emit_round_to_odd_fma(bd, wide, xa, xb, xc)?;
    // The one rounding to nearest even (also exact into the narrow subnormal range).
    bd.f_convert(t_narrow, None, odd)
}

/// `a * b + c` rounded *to odd* in the float type of `wide` bits (32 or 64), for operands already of that
/// type whose product is exact in it and whose inexact sums are never zero (e.g. widened halves in f32,
/// widened f32 in f64: their grids lie far above the wide type's subnormals). Steps 1–3 of the recipe
/// above; a round-to-nearest narrowing of the result to at most `(p − 2) / 2` bits of precision is the
/// single rounding of the fused operation. Every float op carries `NoContraction`.
pub fn emit_round_to_odd_fma(
    bd: &mut Builder,
    wide: u32,
    xa: Word,
    xb: Word,
    xc: Word,
) -> Result<Word, BuildError> {
    let t_wide = bd.type_float(wide, None);
    let t_bits = bd.type_int(wide, 0);
    let t_bool = bd.type_bool();
    let is64 = wide == 64;
    let zero_f = constant_bits(bd, t_wide, 0, is64);
    let one_i = constant_bits(bd, t_bits, 1, is64);
    // Exact product, one rounding of the sum.
    let p = bd.f_mul(t_wide, None, xa, xb)?;
    no_contraction(bd, p);
    let s = bd.f_add(t_wide, None, p, xc)?;
    no_contraction(bd, s);
    // TwoSum: e = (p - (s - bv)) + (c - bv) with bv = s - p.
    let bv = bd.f_sub(t_wide, None, s, p)?;
    no_contraction(bd, bv);
    let av = bd.f_sub(t_wide, None, s, bv)?;
    no_contraction(bd, av);
    let ea = bd.f_sub(t_wide, None, p, av)?;
    no_contraction(bd, ea);
    let eb = bd.f_sub(t_wide, None, xc, bv)?;
    no_contraction(bd, eb);
    let e = bd.f_add(t_wide, None, ea, eb)?;
    no_contraction(bd, e);
    // Round to odd (D150): an inexact sum moves to the neighbour of the exact value whose last bit is
    // odd. `s` is one of the exact value's two neighbours, so that neighbour is `s` itself when `s` is
    // odd and the one a unit toward the exact value when `s` is even: in the bits (sign and magnitude),
    // `(s + d) | 1` with d = 0 when `e` has the sign of `s` (the exact value is farther from zero) and
    // d = −1 when it has the other sign. The sign bit of `e XOR s`, spread by an arithmetic shift, is that
    // d. An inexact sum is never zero (the operands' bits lie on a grid the wide type holds), and an
    // infinite or NaN sum gives a NaN error term; ordered comparisons with NaN are false, so `s` stays.
    let sbits = bd.bitcast(t_bits, None, s)?;
    let ebits = bd.bitcast(t_bits, None, e)?;
    let signs = bd.bitwise_xor(t_bits, None, ebits, sbits)?;
    let top = constant_bits(bd, t_bits, u64::from(wide - 1), is64);
    let d = bd.shift_right_arithmetic(t_bits, None, signs, top)?;
    let toward = bd.i_add(t_bits, None, sbits, d)?;
    let odd = bd.bitwise_or(t_bits, None, toward, one_i)?;
    let inexact = bd.f_ord_not_equal(t_bool, None, e, zero_f)?;
    let odd_bits = bd.select(t_bits, None, inexact, odd, sbits)?;
    bd.bitcast(t_wide, None, odd_bits)
}

/// Host models of the same primitives, used as references by tests and probes.
pub mod host {
    /// f16 bits → f64 (exact).
    pub fn f16_to_f64(h: u16) -> f64 {
        let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let exp = ((h >> 10) & 0x1f) as i32;
        let man = (h & 0x3ff) as f64;
        match exp {
            0 => sign * man * 2f64.powi(-24),
            31 if man == 0.0 => sign * f64::INFINITY,
            31 => f64::from_bits(
                (u64::from(h & 0x8000) << 48)
                    | 0x7ff8_0000_0000_0000
                    | (u64::from(h & 0x1ff) << 42),
            ),
            _ => sign * (1.0 + man / 1024.0) * 2f64.powi(exp - 15),
        }
    }

    /// f64 → f16 bits, one rounding to nearest even (subnormals, overflow to infinity, NaN quietened).
    pub fn f64_to_f16(x: f64) -> u16 {
        let bits = x.to_bits();
        let sign = ((bits >> 48) & 0x8000) as u16;
        if x.is_nan() {
            return sign | 0x7e00 | ((bits >> 42) & 0x1ff) as u16;
        }
        let a = x.abs();
        if a.is_infinite() {
            return sign | 0x7c00;
        }
        if a == 0.0 {
            return sign;
        }
        // Work in units of 2^-24 (the f16 subnormal step) for tiny values, else of the value's ulp.
        let e = ((a.to_bits() >> 52) as i32) - 1023; // a is normal in f64 here unless tiny
        let ulp_exp = if e < -14 { -24 } else { e - 10 };
        // scaled = a / 2^ulp_exp, exact in f64 (power-of-two scaling within range).
        let scaled = a * 2f64.powi(-ulp_exp);
        let int = scaled.trunc();
        let frac = scaled - int;
        let mut q = int as u64;
        if frac > 0.5 || (frac == 0.5 && q & 1 == 1) {
            q += 1;
        }
        // q * 2^ulp_exp; rebuild the half.
        let mut exp = ulp_exp + 10; // exponent if q has 11 significant bits
        if ulp_exp == -24 {
            // subnormal range: q is the mantissa (may carry into the smallest normal)
            return sign | q as u16;
        }
        if q == 2048 {
            q = 1024;
            exp += 1;
        }
        if exp > 15 {
            return sign | 0x7c00;
        }
        sign | (((exp + 15) as u16) << 10) | (q as u16 & 0x3ff)
    }

    /// f16 fused multiply-add with one rounding to nearest even (the reference for `fused_to_half`).
    pub fn fma_f16(a: u16, b: u16, c: u16) -> u16 {
        let (fa, fb, fc) = (f16_to_f64(a), f16_to_f64(b), f16_to_f64(c));
        let p = fa * fb; // exact: 22 significant bits
        let s = p + fc;
        if !s.is_finite() || !p.is_finite() {
            return f64_to_f16(fa.mul_add(fb, fc));
        }
        let bv = s - p;
        let e = (p - (s - bv)) + (fc - bv);
        let mut sb = s.to_bits();
        if e != 0.0 && sb & 1 == 0 {
            if (e > 0.0) == (s > 0.0) {
                sb += 1;
            } else {
                sb -= 1;
            }
        }
        f64_to_f16(f64::from_bits(sb))
    }

    /// TwoSum's error term of `s = fl(p + c)`: `p + c − s` exactly (a NaN when `s` is not finite).
    pub fn two_sum_error(p: f64, c: f64, s: f64) -> f64 {
        let bv = s - p;
        (p - (s - bv)) + (c - bv)
    }

    /// The bits of `s + e` rounded to odd, given the rounded sum `s` and its exact error `e`, in the form
    /// [`super::emit_round_to_odd_fma`] emits (D150): `(s + d) | 1` when `e ≠ 0`, `d` the sign of
    /// `e XOR s` spread over the word (0 or −1).
    pub fn round_to_odd_bits(s: f64, e: f64) -> u64 {
        let sb = s.to_bits();
        let d = ((e.to_bits() ^ sb) as i64 >> 63) as u64;
        // Ordered "not equal", as OpFOrdNotEqual: a NaN error term (an infinite or NaN sum) keeps `s`.
        if !e.is_nan() && e != 0.0 {
            sb.wrapping_add(d) | 1
        } else {
            sb
        }
    }

    /// f32 fused multiply-add as [`super::emit_fma_f32_exact`] computes it (exact product in f64,
    /// TwoSum, round to odd, one narrowing); the NaN result is whatever the host's f64 arithmetic gives
    /// (the lowering canonicalises it afterwards).
    pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
        let p = f64::from(a) * f64::from(b);
        let s = p + f64::from(c);
        f64::from_bits(round_to_odd_bits(s, two_sum_error(p, f64::from(c), s))) as f32
    }

    /// A test triple `[a, b, c]` (f32 bits) whose f64 sum `fl(a·b + c)` lands exactly on a midpoint of the
    /// f32 grid while the exact value lies just off it: rounding the f64 sum to nearest a second time
    /// goes wrong on these, and only the round-to-odd step decides the direction (decision D150; used by
    /// tests/fused_multiply_add.rs against SoftFloat and by the vulkan crate's exact_fma test on the
    /// device). `next` gives random words. Two constructions, half each:
    /// * `c` random (normal with biased exponent 1..=230, or subnormal) and `a·b = ±2^h (1 − 2^-46)`
    ///   with 2^h half an ulp of `c` (h = −150 for a subnormal `c`): the exact value is 2^(h−46) inside
    ///   the midpoint next to `c`, above or below it by the product's sign;
    /// * `a·b` a midpoint itself (`a` random, `b` = 1.5 or 1.25, kept when the product's f64 bits say so)
    ///   and `c` about 2^-30..2^-60 of it, either sign.
    pub fn fma_midpoint_triple(next: &mut impl FnMut() -> u32) -> [u32; 3] {
        let pow2 = |e: i32| ((e + 127) as u32) << 23;
        loop {
            let sign = next() & 0x8000_0000;
            if next().is_multiple_of(2) {
                let c = if next().is_multiple_of(8) {
                    sign | (next() & 0x007f_ffff).max(1)
                } else {
                    sign | ((1 + next() % 230) << 23) | (next() & 0x007f_ffff)
                };
                let ec = ((c >> 23) & 0xff) as i32;
                let h = if ec == 0 { -150 } else { ec - 127 - 24 };
                let (ha, hb) = (h.div_euclid(2), h - h.div_euclid(2));
                // a = ±2^ha (1 + 2^-23), b = 2^(hb−1) (2 − 2^-22): a·b = ±2^h (1 − 2^-46).
                let a = pow2(ha) | 1 | (next() & 0x8000_0000);
                return [a, pow2(hb - 1) | 0x007f_fffe, c];
            }
            let a = (next() & 0x007f_ffff) | pow2((next() % 200) as i32 - 100) | sign;
            let b = if next().is_multiple_of(2) {
                0x3fc0_0000
            } else {
                0x3fa0_0000
            };
            let p = f64::from(f32::from_bits(a)) * f64::from(f32::from_bits(b));
            if p.to_bits() & 0x1fff_ffff != 0x1000_0000 {
                continue;
            }
            let k = 30 + (next() % 31) as i32;
            let c = (p.abs() * 2f64.powi(-k)) as f32;
            return [
                a,
                b,
                (c.to_bits() ^ (next() & 0x7f)) | (next() & 0x8000_0000),
            ];
        }
    }

    /// f16 multiply then add, each rounded (what an unfused `Fma` gives).
    pub fn mul_add_twice_f16(a: u16, b: u16, c: u16) -> u16 {
        let p = f64_to_f16(f16_to_f64(a) * f16_to_f64(b));
        f64_to_f16(f16_to_f64(p) + f16_to_f64(c))
    }
}

/// Counts the instructions of a kind in a module (handy in tests of emitters).
pub fn count_ops(module: &rspirv::dr::Module, op: Op) -> usize {
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i: &&Instruction| i.class.opcode == op)
        .count()
}

#[cfg(test)]
mod tests {
    use super::host::*;

    #[test]
    fn f16_conversions_round_trip_every_value() {
        for h in 0..=u16::MAX {
            let x = f16_to_f64(h);
            if x.is_nan() {
                assert!(f64_to_f16(x) & 0x7c00 == 0x7c00 && f64_to_f16(x) & 0x3ff != 0);
                continue;
            }
            assert_eq!(f64_to_f16(x), h, "{h:04x}");
        }
    }

    #[test]
    fn f16_narrowing_ties_go_to_even() {
        // Midpoints between consecutive finite halves (same sign) round to the even neighbour.
        for h in 0u16..0x7bff {
            let lo = f16_to_f64(h);
            let hi = f16_to_f64(h + 1);
            let mid = (lo + hi) / 2.0;
            let want = if h & 1 == 0 { h } else { h + 1 };
            assert_eq!(f64_to_f16(mid), want, "mid of {h:04x}");
            assert_eq!(f64_to_f16(-mid), want | 0x8000);
            // Just above / below the midpoint.
            let above = f64::from_bits(mid.to_bits() + 1);
            let below = f64::from_bits(mid.to_bits() - 1);
            assert_eq!(f64_to_f16(above), h + 1);
            assert_eq!(f64_to_f16(below), h);
        }
        // Overflow threshold: 65520 rounds to infinity, just below it to 65504.
        assert_eq!(f64_to_f16(65520.0), 0x7c00);
        assert_eq!(f64_to_f16(65519.999), 0x7bff);
    }

    /// An independent reference: every finite half is a multiple of 2^-24, so a·b + c is an exact
    /// integer multiple of 2^-48 in i128; round that to a half by hand.
    fn fma_f16_integer(a: u16, b: u16, c: u16) -> Option<u16> {
        let units = |h: u16| -> Option<i128> {
            let x = f16_to_f64(h);
            if !x.is_finite() {
                return None;
            }
            Some((x * 2f64.powi(24)) as i128) // exact: |x|·2^24 < 2^40
        };
        let s = units(a)? * units(b)? + (units(c)? << 24); // in units of 2^-48
        let sign = if s < 0 { 0x8000u16 } else { 0 };
        let m = s.unsigned_abs();
        if m == 0 {
            // exact zero: +0 unless both a·b and c are -0 or the signs say otherwise
            let pa = (a ^ b) & 0x8000;
            return Some(if pa == 0x8000 && c & 0x8000 != 0 {
                0x8000
            } else {
                0
            });
        }
        let bits = 128 - m.leading_zeros() as i32; // m < 2^bits
                                                   // quantum exponent in units of 2^-48: subnormal quantum 2^-24 = 2^24 units
        let shift = (bits - 11).max(24);
        let q = m >> shift;
        let rem = m - (q << shift);
        let half = 1u128 << (shift - 1);
        let mut q = q as u32 + u32::from(rem > half || (rem == half && q & 1 == 1));
        let mut exp = shift - 24 + 1; // biased exponent when q has 11 bits (subnormals: q < 1024)
        if shift == 24 {
            // subnormal or the smallest binade: value = q · 2^-24
            if q < 1024 {
                return Some(sign | q as u16);
            }
            exp = 1;
        }
        if q >= 2048 {
            q >>= 1;
            exp += 1;
        }
        if exp >= 31 {
            return Some(sign | 0x7c00);
        }
        Some(sign | ((exp as u16) << 10) | (q as u16 & 0x3ff))
    }

    #[test]
    fn host_fma_f16_matches_an_integer_reference() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut checked = 0;
        for i in 0..300_000 {
            let r = next();
            let (a, b) = (r as u16, (r >> 16) as u16);
            let c = if i % 2 == 0 {
                (r >> 32) as u16
            } else {
                // cancellation: c ≈ -(a·b), perturbed
                let p = f64_to_f16(-(f16_to_f64(a) * f16_to_f64(b)));
                p.wrapping_add(((r >> 32) % 5) as u16).wrapping_sub(2)
            };
            if let Some(want) = fma_f16_integer(a, b, c) {
                let got = fma_f16(a, b, c);
                if got & 0x7fff == 0 && want & 0x7fff == 0 {
                    continue; // signs of exact zeros are checked elsewhere
                }
                assert_eq!(got, want, "fma({a:04x}, {b:04x}, {c:04x})");
                checked += 1;
            }
        }
        assert!(checked > 200_000);
    }

    #[test]
    fn d993_half_triple_rounds_once() {
        // a = 2^-11 (1 + 2^-10), b = 1 - 2^-10, c = 1 + 2^-10.
        let (a, b, c) = (0x1001u16, 0x3bfeu16, 0x3c01u16);
        assert_eq!(f16_to_f64(b), 1.0 - 2f64.powi(-10));
        assert_eq!(f16_to_f64(a), 2f64.powi(-11) * (1.0 + 2f64.powi(-10)));
        assert_eq!(fma_f16(a, b, c), 0x3c01);
        // Rounded first to f32, then to half, it lands on the tie and goes to 0x3c02.
        let via_f32 = (f16_to_f64(a) as f32).mul_add(f16_to_f64(b) as f32, f16_to_f64(c) as f32);
        assert_eq!(f64_to_f16(via_f32 as f64), 0x3c02);
    }
}
