//! MODE.FP_DENORM f16/f64 made executable (decision D185): f64 and f16 instructions run after `s_denorm_mode`
//! in each of the four f16/f64 denormal modes (flush in and out, flush out only, flush in only, preserve;
//! f32 denormals preserved), over operands and results in the f64 and f16 subnormal ranges, on the host
//! evaluator and on lavapipe, against an oracle built on Berkeley SoftFloat (`softfloat-sys`) with the mode's
//! flushes written out: an input flush before the operation, an output flush of the rounded result (a
//! denormal becomes the zero of its sign). The f32 field's twin is tests/float_denormals.rs (D166).
//!
//! The words run inside tests/support/frame.rs (eight input dwords per work-item in v[0:7], v[3:6] stored);
//! encodings from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`, written next to each. Operands
//! are finite or infinite (NaN rules are D005's and tested elsewhere). Operand count per form and mode:
//! `RDNA2SPV_DENORM_N` (default 100,000).

#[path = "support/frame.rs"]
mod frame;

use frame::*;
use rdna2spv_isa::Target;
use rdna2spv_spirv::lower::{LowerOptions, Mapping};
use rdna2spv_vulkan::{probe, DeviceProfile};
use softfloat_sys as sf;

// ---------------------------------------------------------------------------------------------------
// The oracle: SoftFloat, with the mode's flushes written from the IEEE formats.

fn d(v: u64) -> sf::float64_t {
    sf::float64_t { v }
}
fn h(v: u32) -> sf::float16_t {
    sf::float16_t { v: v as u16 }
}

/// A denormal flushed to the zero of its sign.
fn ftz64(x: u64) -> u64 {
    if x & 0x7ff0_0000_0000_0000 == 0 {
        x & 1 << 63
    } else {
        x
    }
}
fn ftz16(x: u32) -> u32 {
    if x & 0x7c00 == 0 {
        x & 0x8000
    } else {
        x
    }
}
/// D005's default NaNs for every NaN result.
fn canon64(x: u64) -> u64 {
    if x & !(1 << 63) > 0x7ff0_0000_0000_0000 {
        0x7ff8_0000_0000_0000
    } else {
        x
    }
}
fn canon16(x: u32) -> u32 {
    if x & 0x7fff > 0x7c00 {
        0x7e00
    } else {
        x
    }
}

/// The f16/f64 denormal mode: which directions flush.
#[derive(Clone, Copy, Debug)]
struct Mode {
    inputs: bool,
    outputs: bool,
}

impl Mode {
    /// FP_DENORM f16/f64 (0..=3): bit 0 allows input denormals, bit 1 output denormals.
    fn of(field: u32) -> Mode {
        Mode {
            inputs: field & 1 == 0,
            outputs: field & 2 == 0,
        }
    }
    fn i64(self, x: u64) -> u64 {
        if self.inputs {
            ftz64(x)
        } else {
            x
        }
    }
    fn o64(self, x: u64) -> u64 {
        let x = canon64(x);
        if self.outputs {
            ftz64(x)
        } else {
            x
        }
    }
    fn i16(self, x: u32) -> u32 {
        if self.inputs {
            ftz16(x)
        } else {
            x
        }
    }
    fn o16(self, x: u32) -> u32 {
        let x = canon16(x);
        if self.outputs {
            ftz16(x)
        } else {
            x
        }
    }
}

/// IEEE-754-2008 minNum/maxNum on non-NaN operands with −0 < +0 (the IEEE-mode rule, D025), on sign-magnitude
/// bits of width `bits`.
fn minmax(a: u64, b: u64, bits: u32, max: bool) -> u64 {
    let sign = 1u64 << (bits - 1);
    // Sign-magnitude to a totally ordered integer key.
    let key = |x: u64| -> i128 {
        if x & sign != 0 {
            -((x & !sign) as i128) - 1
        } else {
            x as i128
        }
    };
    let a_less = key(a) < key(b);
    if a_less != max {
        a
    } else {
        b
    }
}

fn f64_of(lo: u32, hi: u32) -> u64 {
    lo as u64 | (hi as u64) << 32
}
fn split(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

/// frexp's mantissa of an f64: ±[0.5, 1) for finite nonzero x, x itself for ±0 and ±inf (exact: scaling by
/// powers of two).
fn frexp_mant64(a: u64) -> u64 {
    let x = f64::from_bits(a);
    if x == 0.0 || x.is_infinite() {
        return a;
    }
    let mut m = x;
    while m.abs() >= 1.0 {
        m /= 2.0;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
    }
    m.to_bits()
}
/// frexp's exponent: x = m·2^e with |m| in [0.5, 1); 0 for ±0, ±inf.
fn frexp_exp64(a: u64) -> u32 {
    let x = f64::from_bits(a);
    if x == 0.0 || x.is_infinite() {
        return 0;
    }
    let mut e = 0i32;
    let mut m = x.abs();
    while m >= 1.0 {
        m /= 2.0;
        e += 1;
    }
    while m < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    e as u32
}
/// ldexp with one rounding: 2^k is an exact f64 for |k| ≤ 160, and one IEEE multiplication rounds once.
fn ldexp64(a: u64, k: i32) -> u64 {
    (f64::from_bits(a) * 2f64.powi(k)).to_bits()
}
fn floor64(a: u64) -> u64 {
    // softfloat_round_min = 2
    unsafe { sf::f64_roundToInt(d(a), 2, false) }.v
}
fn floor16(a: u32) -> u32 {
    unsafe { sf::f16_roundToInt(h(a), 2, false) }.v as u32
}
/// f32 → f16 rounded toward zero, from SoftFloat's nearest-even result stepped back toward zero where it
/// rounded away (finite inputs; an overflow to ±inf steps back to ±65504).
fn f32_to_f16_rtz(a: u32) -> u32 {
    let r = unsafe { sf::f32_to_f16(sf::float32_t { v: a }) }.v as u32;
    let back = unsafe { sf::f16_to_f32(h(r)) }.v;
    if f32::from_bits(back).abs() > f32::from_bits(a).abs() {
        r - 1
    } else {
        r
    }
}

fn sf_add64(a: u64, b: u64) -> u64 {
    unsafe { sf::f64_add(d(a), d(b)) }.v
}
fn sf_mul64(a: u64, b: u64) -> u64 {
    unsafe { sf::f64_mul(d(a), d(b)) }.v
}
fn sf_fma64(a: u64, b: u64, c: u64) -> u64 {
    unsafe { sf::f64_mulAdd(d(a), d(b), d(c)) }.v
}
fn sf_lt64(a: u64, b: u64) -> bool {
    unsafe { sf::f64_lt(d(a), d(b)) }
}
fn sf_add16(a: u32, b: u32) -> u32 {
    unsafe { sf::f16_add(h(a), h(b)) }.v as u32
}
fn sf_sub16(a: u32, b: u32) -> u32 {
    unsafe { sf::f16_sub(h(a), h(b)) }.v as u32
}
fn sf_mul16(a: u32, b: u32) -> u32 {
    unsafe { sf::f16_mul(h(a), h(b)) }.v as u32
}
fn sf_fma16(a: u32, b: u32, c: u32) -> u32 {
    unsafe { sf::f16_mulAdd(h(a), h(b), h(c)) }.v as u32
}
fn sf_lt16(a: u32, b: u32) -> bool {
    unsafe { sf::f16_lt(h(a), h(b)) }
}
fn sf_f16_to_f32(a: u32) -> u32 {
    unsafe { sf::f16_to_f32(h(a)) }.v
}
fn sf_f32_to_f16(a: u32) -> u32 {
    unsafe { sf::f32_to_f16(sf::float32_t { v: a }) }.v as u32
}

fn lo(x: u32) -> u32 {
    x & 0xffff
}
fn hi(x: u32) -> u32 {
    x >> 16
}
/// A 16-bit result written into the low half of a register whose high half is kept (gfx10, D096).
fn keep_hi(old: u32, r: u32) -> u32 {
    old & 0xffff_0000 | r
}

// ---------------------------------------------------------------------------------------------------
// The forms.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Width {
    F64,
    F16,
}

struct Form {
    name: &'static str,
    width: Width,
    /// The words after `s_denorm_mode` (little-endian bytes).
    bytes: &'static [u8],
    /// The four stored dwords v3..v6 for eight input dwords.
    oracle: fn(Mode, &[u32; 8]) -> [u32; 4],
    /// The float results among the four dwords that are subnormal (counted: the operands must reach them).
    subnormals: fn(&[u32; 4]) -> usize,
}

fn sub64(lo: u32, hi: u32) -> usize {
    let x = f64_of(lo, hi);
    (x & 0x7ff0_0000_0000_0000 == 0 && x & 0xf_ffff_ffff_ffff != 0) as usize
}
fn sub16(x: u32) -> usize {
    (x & 0x7c00 == 0 && x & 0x3ff != 0) as usize
}
fn sub16x2(x: u32) -> usize {
    sub16(lo(x)) + sub16(hi(x))
}

fn forms() -> Vec<Form> {
    vec![
        // f64 operands: a = v[0:1], b = v[2:3], c = v[4:5]; v6 a small integer (ldexp).
        Form {
            name: "f64 add, fma",
            width: Width::F64,
            // v_add_f64 v[8:9], v[0:1], v[2:3]          [0x08,0x00,0x64,0xd5,0x00,0x05,0x02,0x00]
            // v_fma_f64 v[3:4], v[0:1], v[2:3], v[4:5]  [0x03,0x00,0x4c,0xd5,0x00,0x05,0x12,0x04]
            // v_mov_b32_e32 v5, v8                      [0x08,0x03,0x0a,0x7e]
            // v_mov_b32_e32 v6, v9                      [0x09,0x03,0x0c,0x7e]
            bytes: &[
                0x08, 0x00, 0x64, 0xd5, 0x00, 0x05, 0x02, 0x00, 0x03, 0x00, 0x4c, 0xd5, 0x00, 0x05,
                0x12, 0x04, 0x08, 0x03, 0x0a, 0x7e, 0x09, 0x03, 0x0c, 0x7e,
            ],
            oracle: |m, x| {
                let a = m.i64(f64_of(x[0], x[1]));
                let b = m.i64(f64_of(x[2], x[3]));
                let c = m.i64(f64_of(x[4], x[5]));
                let [f0, f1] = split(m.o64(sf_fma64(a, b, c)));
                let [s0, s1] = split(m.o64(sf_add64(a, b)));
                [f0, f1, s0, s1]
            },
            subnormals: |w| sub64(w[0], w[1]) + sub64(w[2], w[3]),
        },
        Form {
            name: "f64 mul, min",
            width: Width::F64,
            // v_mul_f64 v[8:9], v[0:1], v[2:3]          [0x08,0x00,0x65,0xd5,0x00,0x05,0x02,0x00]
            // v_min_f64 v[14:15], v[0:1], v[2:3]        [0x0e,0x00,0x66,0xd5,0x00,0x05,0x02,0x00]
            // v_mov_b32_e32 v3, v8                      [0x08,0x03,0x06,0x7e]
            // v_mov_b32_e32 v4, v9                      [0x09,0x03,0x08,0x7e]
            // v_mov_b32_e32 v5, v14                     [0x0e,0x03,0x0a,0x7e]
            // v_mov_b32_e32 v6, v15                     [0x0f,0x03,0x0c,0x7e]
            bytes: &[
                0x08, 0x00, 0x65, 0xd5, 0x00, 0x05, 0x02, 0x00, 0x0e, 0x00, 0x66, 0xd5, 0x00, 0x05,
                0x02, 0x00, 0x08, 0x03, 0x06, 0x7e, 0x09, 0x03, 0x08, 0x7e, 0x0e, 0x03, 0x0a, 0x7e,
                0x0f, 0x03, 0x0c, 0x7e,
            ],
            oracle: |m, x| {
                let a = m.i64(f64_of(x[0], x[1]));
                let b = m.i64(f64_of(x[2], x[3]));
                let [p0, p1] = split(m.o64(sf_mul64(a, b)));
                let [n0, n1] = split(m.o64(minmax(a, b, 64, false)));
                [p0, p1, n0, n1]
            },
            subnormals: |w| sub64(w[0], w[1]) + sub64(w[2], w[3]),
        },
        Form {
            name: "f64 max, cmp_lt, frexp_exp",
            width: Width::F64,
            // v_max_f64 v[8:9], v[0:1], v[2:3]          [0x08,0x00,0x67,0xd5,0x00,0x05,0x02,0x00]
            // v_cmp_lt_f64_e32 vcc_lo, v[0:1], v[2:3]   [0x00,0x05,0x42,0x7c]
            // v_cndmask_b32_e64 v5, 0, 1, vcc_lo        [0x05,0x00,0x01,0xd5,0x80,0x02,0xa9,0x01]
            // v_frexp_exp_i32_f64_e32 v6, v[0:1]        [0x00,0x79,0x0c,0x7e]
            // v_mov_b32_e32 v3, v8                      [0x08,0x03,0x06,0x7e]
            // v_mov_b32_e32 v4, v9                      [0x09,0x03,0x08,0x7e]
            bytes: &[
                0x08, 0x00, 0x67, 0xd5, 0x00, 0x05, 0x02, 0x00, 0x00, 0x05, 0x42, 0x7c, 0x05, 0x00,
                0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01, 0x00, 0x79, 0x0c, 0x7e, 0x08, 0x03, 0x06, 0x7e,
                0x09, 0x03, 0x08, 0x7e,
            ],
            oracle: |m, x| {
                let a = m.i64(f64_of(x[0], x[1]));
                let b = m.i64(f64_of(x[2], x[3]));
                let [x0, x1] = split(m.o64(minmax(a, b, 64, true)));
                [x0, x1, sf_lt64(a, b) as u32, frexp_exp64(a)]
            },
            subnormals: |w| sub64(w[0], w[1]),
        },
        Form {
            name: "f64 ldexp, floor",
            width: Width::F64,
            // v_ldexp_f64 v[8:9], v[0:1], v6            [0x08,0x00,0x68,0xd5,0x00,0x0d,0x02,0x00]
            // v_floor_f64_e32 v[14:15], v[0:1]          [0x00,0x35,0x1c,0x7e]
            // v_mov_b32_e32 v3, v8                      [0x08,0x03,0x06,0x7e]
            // v_mov_b32_e32 v4, v9                      [0x09,0x03,0x08,0x7e]
            // v_mov_b32_e32 v5, v14                     [0x0e,0x03,0x0a,0x7e]
            // v_mov_b32_e32 v6, v15                     [0x0f,0x03,0x0c,0x7e]
            bytes: &[
                0x08, 0x00, 0x68, 0xd5, 0x00, 0x0d, 0x02, 0x00, 0x00, 0x35, 0x1c, 0x7e, 0x08, 0x03,
                0x06, 0x7e, 0x09, 0x03, 0x08, 0x7e, 0x0e, 0x03, 0x0a, 0x7e, 0x0f, 0x03, 0x0c, 0x7e,
            ],
            oracle: |m, x| {
                let a = m.i64(f64_of(x[0], x[1]));
                let [l0, l1] = split(m.o64(ldexp64(a, x[6] as i32)));
                let [f0, f1] = split(m.o64(floor64(a)));
                [l0, l1, f0, f1]
            },
            subnormals: |w| sub64(w[0], w[1]) + sub64(w[2], w[3]),
        },
        Form {
            name: "f64 frexp_mant",
            width: Width::F64,
            // v_frexp_mant_f64_e32 v[14:15], v[0:1]     [0x00,0x7b,0x1c,0x7e]
            // v_mov_b32_e32 v3, v14                     [0x0e,0x03,0x06,0x7e]
            // v_mov_b32_e32 v4, v15                     [0x0f,0x03,0x08,0x7e]
            bytes: &[
                0x00, 0x7b, 0x1c, 0x7e, 0x0e, 0x03, 0x06, 0x7e, 0x0f, 0x03, 0x08, 0x7e,
            ],
            oracle: |m, x| {
                let a = m.i64(f64_of(x[0], x[1]));
                let [f0, f1] = split(m.o64(frexp_mant64(a)));
                [f0, f1, x[5], x[6]]
            },
            subnormals: |w| sub64(w[0], w[1]),
        },
        // f16 operands in both halves of v0..v5; v6, v7 f32 values near the f16 subnormal range.
        Form {
            name: "f16 add, mul, fma, sub",
            width: Width::F16,
            // v_add_f16_e32 v3, v0, v1                  [0x00,0x03,0x06,0x64]
            // v_mul_f16_e32 v4, v0, v1                  [0x00,0x03,0x08,0x6a]
            // v_fma_f16 v5, v0, v1, v2                  [0x05,0x00,0x4b,0xd7,0x00,0x03,0x0a,0x04]
            // v_sub_f16_e32 v6, v0, v1                  [0x00,0x03,0x0c,0x66]
            bytes: &[
                0x00, 0x03, 0x06, 0x64, 0x00, 0x03, 0x08, 0x6a, 0x05, 0x00, 0x4b, 0xd7, 0x00, 0x03,
                0x0a, 0x04, 0x00, 0x03, 0x0c, 0x66,
            ],
            oracle: |m, x| {
                let (a, b, c) = (m.i16(lo(x[0])), m.i16(lo(x[1])), m.i16(lo(x[2])));
                [
                    keep_hi(x[3], m.o16(sf_add16(a, b))),
                    keep_hi(x[4], m.o16(sf_mul16(a, b))),
                    keep_hi(x[5], m.o16(sf_fma16(a, b, c))),
                    keep_hi(x[6], m.o16(sf_sub16(a, b))),
                ]
            },
            subnormals: |w| w.iter().map(|x| sub16(lo(*x))).sum(),
        },
        Form {
            name: "f16 min, max, cmp_lt, cvt_f32_f16",
            width: Width::F16,
            // v_min_f16_e32 v3, v0, v1                  [0x00,0x03,0x06,0x74]
            // v_max_f16_e32 v4, v0, v1                  [0x00,0x03,0x08,0x72]
            // v_cmp_lt_f16_e32 vcc_lo, v0, v1           [0x00,0x03,0x92,0x7d]
            // v_cndmask_b32_e64 v5, 0, 1, vcc_lo        [0x05,0x00,0x01,0xd5,0x80,0x02,0xa9,0x01]
            // v_cvt_f32_f16_e32 v6, v0                  [0x00,0x17,0x0c,0x7e]
            bytes: &[
                0x00, 0x03, 0x06, 0x74, 0x00, 0x03, 0x08, 0x72, 0x00, 0x03, 0x92, 0x7d, 0x05, 0x00,
                0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01, 0x00, 0x17, 0x0c, 0x7e,
            ],
            oracle: |m, x| {
                let (a, b) = (m.i16(lo(x[0])), m.i16(lo(x[1])));
                [
                    keep_hi(x[3], m.o16(minmax(a as u64, b as u64, 16, false) as u32)),
                    keep_hi(x[4], m.o16(minmax(a as u64, b as u64, 16, true) as u32)),
                    sf_lt16(a, b) as u32,
                    // The f32 result follows FP_DENORM f32 (preserved here; it is never denormal).
                    sf_f16_to_f32(a),
                ]
            },
            subnormals: |w| sub16(lo(w[0])) + sub16(lo(w[1])),
        },
        Form {
            name: "pk_add, pk_mul, pk_fma, pk_max f16",
            width: Width::F16,
            // v_pk_add_f16 v3, v0, v1                   [0x03,0x40,0x0f,0xcc,0x00,0x03,0x02,0x18]
            // v_pk_mul_f16 v4, v0, v1                   [0x04,0x40,0x10,0xcc,0x00,0x03,0x02,0x18]
            // v_pk_fma_f16 v5, v0, v1, v2               [0x05,0x40,0x0e,0xcc,0x00,0x03,0x0a,0x1c]
            // v_pk_max_f16 v6, v0, v1                   [0x06,0x40,0x12,0xcc,0x00,0x03,0x02,0x18]
            bytes: &[
                0x03, 0x40, 0x0f, 0xcc, 0x00, 0x03, 0x02, 0x18, 0x04, 0x40, 0x10, 0xcc, 0x00, 0x03,
                0x02, 0x18, 0x05, 0x40, 0x0e, 0xcc, 0x00, 0x03, 0x0a, 0x1c, 0x06, 0x40, 0x12, 0xcc,
                0x00, 0x03, 0x02, 0x18,
            ],
            oracle: |m, x| {
                let lane = |half: fn(u32) -> u32| {
                    let (a, b, c) = (m.i16(half(x[0])), m.i16(half(x[1])), m.i16(half(x[2])));
                    [
                        m.o16(sf_add16(a, b)),
                        m.o16(sf_mul16(a, b)),
                        m.o16(sf_fma16(a, b, c)),
                        m.o16(minmax(a as u64, b as u64, 16, true) as u32),
                    ]
                };
                let (l, h) = (lane(lo), lane(hi));
                [0, 1, 2, 3].map(|k| l[k] | h[k] << 16)
            },
            subnormals: |w| w.iter().map(|x| sub16x2(*x)).sum(),
        },
        Form {
            name: "cvt_f16_f32, cvt_pkrtz, fmac_f16, floor_f16",
            width: Width::F16,
            // v_cvt_f16_f32_e32 v3, v6                  [0x06,0x15,0x06,0x7e]
            // v_cvt_pkrtz_f16_f32_e32 v4, v6, v7        [0x06,0x0f,0x08,0x5e]
            // v_fmac_f16_e32 v5, v0, v1                 [0x00,0x03,0x0a,0x6c]
            // v_floor_f16_e32 v6, v0                    [0x00,0xb7,0x0c,0x7e]
            bytes: &[
                0x06, 0x15, 0x06, 0x7e, 0x06, 0x0f, 0x08, 0x5e, 0x00, 0x03, 0x0a, 0x6c, 0x00, 0xb7,
                0x0c, 0x7e,
            ],
            oracle: |m, x| {
                let (a, b, acc) = (m.i16(lo(x[0])), m.i16(lo(x[1])), m.i16(lo(x[5])));
                // The f32 sources follow FP_DENORM f32 (preserved); the f16 results follow f16/f64.
                let cvt = m.o16(sf_f32_to_f16(x[6]));
                let pk = m.o16(f32_to_f16_rtz(x[6])) | m.o16(f32_to_f16_rtz(x[7])) << 16;
                [
                    keep_hi(x[3], cvt),
                    pk,
                    keep_hi(x[5], m.o16(sf_fma16(a, b, acc))),
                    keep_hi(x[6], m.o16(floor16(a))),
                ]
            },
            subnormals: |w| sub16(lo(w[0])) + sub16x2(w[1]) + sub16(lo(w[2])),
        },
    ]
}

// ---------------------------------------------------------------------------------------------------
// Operands.

/// An f64 operand biased to the subnormal range: subnormals, the smallest normals, numbers whose products
/// land below 2^-1022, numbers near 1, zeros, large values and infinities.
fn operand64(r: &mut Rng) -> u64 {
    let s = r.u64() & 1 << 63;
    let man = r.u64() & 0xf_ffff_ffff_ffff;
    let e: u64 = match r.below(16) {
        0..=5 => 0,
        6..=8 => 1 + r.below(4) as u64,
        9..=10 => 500 + r.below(40) as u64, // 2^-523 .. 2^-484: products below 2^-1022
        11..=12 => 1000 + r.below(46) as u64,
        13 => return s,
        14 => 1800 + r.below(200) as u64,
        _ => {
            if r.below(4) == 0 {
                return s | 0x7ff0_0000_0000_0000;
            }
            1
        }
    };
    s | e << 52 | man
}

/// An f16 operand biased to the subnormal range (as [`operand64`], for binary16: products of numbers
/// around 2^-7 land below 2^-14).
fn operand16(r: &mut Rng) -> u32 {
    let s = (r.u64() as u32) & 0x8000;
    let man = (r.u64() as u32) & 0x3ff;
    let e = match r.below(16) {
        0..=5 => 0,
        6..=8 => 1 + r.below(2),
        9..=10 => 6 + r.below(4),
        11..=12 => 13 + r.below(4),
        13 => return s,
        14 => 25 + r.below(5),
        _ => {
            if r.below(4) == 0 {
                return s | 0x7c00;
            }
            1
        }
    };
    s | e << 10 | man
}

/// An f32 near the f16 subnormal range (2^-25 .. 2^-13), whose conversions to f16 are subnormal or just
/// normal; sometimes a zero.
fn f32_near_f16_subnormals(r: &mut Rng) -> u32 {
    let s = (r.u64() as u32) & 0x8000_0000;
    if r.below(32) == 0 {
        return s;
    }
    let e = 127 - 25 + r.below(13);
    s | e << 23 | (r.u64() as u32) & 0x7f_ffff
}

fn inputs(n: usize, seed: u64, width: Width) -> Vec<[u32; 8]> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| {
            let mut x = [0u32; 8];
            match width {
                Width::F64 => {
                    for k in 0..3 {
                        let [l, h] = split(operand64(&mut r));
                        x[2 * k] = l;
                        x[2 * k + 1] = h;
                    }
                    x[6] = (r.below(321) as i32 - 160) as u32;
                    x[7] = r.u64() as u32;
                }
                Width::F16 => {
                    for v in x.iter_mut().take(6) {
                        *v = operand16(&mut r) | operand16(&mut r) << 16;
                    }
                    x[6] = f32_near_f16_subnormals(&mut r);
                    x[7] = f32_near_f16_subnormals(&mut r);
                }
            }
            x
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// The runs.

fn n() -> usize {
    std::env::var("RDNA2SPV_DENORM_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

/// `s_denorm_mode` with FP_DENORM f32 preserved (3) and f16/f64 = `field`: simm16 = 3 | field << 2.
fn with_mode(field: u32, body: &[u8]) -> Vec<u8> {
    let mut v = (0xbfa5_0000u32 | 3 | field << 2).to_le_bytes().to_vec();
    v.extend_from_slice(body);
    v
}

fn check(fields: &[u32], prof: &DeviceProfile, n: usize) {
    check_with(fields, prof, n, &LowerOptions::default())
}

fn check_with(fields: &[u32], prof: &DeviceProfile, n: usize, opts: &LowerOptions) {
    let ctx = lavapipe();
    let mut failures = Vec::new();
    for (fi, form) in forms().iter().enumerate() {
        for &field in fields {
            let t = std::time::Instant::now();
            let mode = Mode::of(field);
            let p = kernel(Target::Gfx1030, &with_mode(field, form.bytes));
            let ins = inputs(n, 0xd185_0000 + fi as u64, form.width);
            let (host, dev) = run_both_with(&ctx, prof, &p, &ins, opts);
            let (mut mh, mut md, mut sub, mut first) = (0usize, 0usize, 0usize, None);
            for (k, x) in ins.iter().enumerate() {
                let want = (form.oracle)(mode, x);
                sub += (form.subnormals)(&want);
                let h = &host[4 * k..4 * k + 4];
                let d = &dev[4 * k..4 * k + 4];
                mh += (h != want) as usize;
                md += (d != want) as usize;
                if (h != want || d != want) && first.is_none() {
                    first = Some(format!(
                        "inputs {x:08x?}: softfloat {want:08x?}, host {h:08x?}, device {d:08x?}"
                    ));
                }
            }
            eprintln!(
                "FP_DENORM f16/f64 = {field} {:42} {n} operands ({sub} subnormal results expected): host \
                 {mh}, device {md} differ ({:?})",
                form.name,
                t.elapsed()
            );
            // A flushing output mode must leave no subnormal; a preserving one must meet some.
            if mode.outputs {
                assert_eq!(sub, 0, "{}: the oracle flushes every result", form.name);
            }
            if mh + md > 0 {
                failures.push(format!("mode {field} {}: {}", form.name, first.unwrap()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Flushing in both directions (clang's `-fdenormal-fp-math=preserve-sign`) and preserving (the default of
/// every compiler), 100,000 operands per form on the measured profile.
#[test]
fn f16_f64_flush_and_preserve_match_softfloat() {
    let prof = probe(&lavapipe()).expect("the device profile is probed");
    check(&[0, 3], &prof, n());
}

/// The measured lavapipe profile with every denormal-related fact declared missing (as
/// tests/float_denormals.rs `simulated`): the lowering's exact emulations of f16/f64 arithmetic run on
/// lavapipe and still give SoftFloat's bits in both modes.
#[test]
fn f16_f64_modes_on_the_simulated_flushing_device_match_softfloat() {
    let p = simulated_flushing(probe(&lavapipe()).expect("the device profile is probed"));
    check(&[0, 3], &p, n() / 4);
}

/// The simulated flushing device in the lane mapping: every f64 add, multiply and FMA is one shared
/// SPIR-V function (the integer FMA, called with the add's 1.0 and the multiply's −0 as arguments) and
/// the f16 forms' emulations are shared functions too (decisions D163, D197).
#[test]
fn f16_f64_modes_on_the_simulated_flushing_device_in_the_lane_mapping_match_softfloat() {
    let p = simulated_flushing(probe(&lavapipe()).expect("the device profile is probed"));
    let opts = LowerOptions {
        mapping: Mapping::Lane,
        ..LowerOptions::default()
    };
    check_with(&[0, 3], &p, n() / 4, &opts);
}

/// The two one-directional modes (only `s_denorm_mode`/`s_setreg` reach them).
#[test]
fn f16_f64_one_directional_modes_match_softfloat() {
    let prof = probe(&lavapipe()).expect("the device profile is probed");
    check(&[1, 2], &prof, n() / 4);
}

/// The compiled kernel fixtures/kernels/denorm64.cl (clang-19 OpenCL: f64 add, mul, fma, fmin; f16 add,
/// mul, fma, compare), built with denormals preserved (`denorm64`, descriptor FLOAT_DENORM_MODE_16_64 = 3)
/// and with `-fdenormal-fp-math=preserve-sign` (`denorm64_ftz`: FLOAT_DENORM_MODE_32 and _16_64 = 0), run over
/// 100,000 subnormal-biased operand triples of each width on the host and on lavapipe, under the measured
/// profile and (the flushing build) the simulated flushing device: every output equals SoftFloat under the
/// descriptor's mode.
#[test]
fn compiled_kernels_follow_their_f16_f64_descriptor_mode() {
    use rdna2spv::device::{open, profile_of, run_vulkan, ProfileChoice};
    use rdna2spv::dispatch::{run_host_at, Plan};
    let n = 100_000usize;
    let mut r = Rng(0xd185_0c0d);
    let abc: Vec<[u64; 3]> = (0..n)
        .map(|_| [0; 3].map(|_: u64| operand64(&mut r)))
        .collect();
    let pqr: Vec<[u32; 3]> = (0..n)
        .map(|_| [0; 3].map(|_: u32| operand16(&mut r)))
        .collect();
    let ctx = open(Some(&device_name())).unwrap();
    let measured = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let simulated = simulated_flushing(measured.clone());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kernels");
    let dir = std::env::temp_dir().join(format!("rdna2spv-denorm64-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        let b: Vec<u8> = abc.iter().flat_map(|t| t[i].to_le_bytes()).collect();
        std::fs::write(dir.join(format!("{name}.bin")), b).unwrap();
    }
    for (i, name) in ["p", "q", "r"].iter().enumerate() {
        let b: Vec<u8> = pqr
            .iter()
            .flat_map(|t| (t[i] as u16).to_le_bytes())
            .collect();
        std::fs::write(dir.join(format!("{name}.bin")), b).unwrap();
    }
    let mut failures = Vec::new();
    for (stem, ftz, profile, pname) in [
        ("denorm64", false, &measured, "measured"),
        ("denorm64_ftz", true, &measured, "measured"),
        ("denorm64_ftz", true, &simulated, "simulated"),
    ] {
        let mut manifest = format!(
            "code_object = {co:?}\nkernel = \"denorm64\"\ngrid = [{g}, 1, 1]\nworkgroup = [256, 1, 1]\n",
            co = root.join(format!("{stem}.co")).display().to_string(),
            g = n.div_ceil(256) * 256,
        );
        for name in ["a", "b", "c", "p", "q", "r"] {
            manifest += &format!("[[args]]\nbuffer = \"{name}.bin\"\n");
        }
        manifest += &format!(
            "[[args]]\nbuffer = {{ size = {} }}\noutput = \"out\"\n[[args]]\nbuffer = {{ size = {} }}\n\
             output = \"hout\"\n[[args]]\nu32 = {n}\n",
            32 * n,
            8 * n
        );
        let mpath = dir.join(format!("{stem}-{pname}.toml"));
        std::fs::write(&mpath, manifest).unwrap();
        let m = rdna2spv::manifest::Manifest::load(&mpath).unwrap();
        let mut plan = Plan::new(&m).unwrap();
        let dev = run_vulkan(&ctx, &mut plan, profile).unwrap();
        let (host, _) = run_host_at(&plan, &dev.addresses).unwrap();
        let get = |bufs: &[rdna2spv::dispatch::Buffer], name: &str| -> Vec<u8> {
            bufs.iter().find(|b| b.name == name).unwrap().data.clone()
        };
        let q64 = |b: &[u8]| -> Vec<u64> {
            b.chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        let q16 = |b: &[u8]| -> Vec<u32> {
            b.chunks(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32)
                .collect()
        };
        let (h64, d64) = (q64(&get(&host, "out")), q64(&get(&dev.buffers, "out")));
        let (h16, d16) = (q16(&get(&host, "hout")), q16(&get(&dev.buffers, "hout")));
        let m = Mode::of(if ftz { 0 } else { 3 });
        let (mut mh, mut md, mut sub, mut first) = (0, 0, 0, None);
        for k in 0..n {
            let (x, y, z) = (m.i64(abc[k][0]), m.i64(abc[k][1]), m.i64(abc[k][2]));
            let (u, v, w) = (m.i16(pqr[k][0]), m.i16(pqr[k][1]), m.i16(pqr[k][2]));
            let want64 = [
                m.o64(sf_add64(x, y)),
                m.o64(sf_mul64(x, y)),
                m.o64(sf_fma64(x, y, z)),
                m.o64(minmax(x, y, 64, false)),
            ];
            let want16 = [
                m.o16(sf_add16(u, v)),
                m.o16(sf_mul16(u, v)),
                m.o16(sf_fma16(u, v, w)),
                if sf_lt16(u, v) { 0x3c00 } else { 0 },
            ];
            sub += want64
                .iter()
                .map(|x| sub64(*x as u32, (*x >> 32) as u32))
                .sum::<usize>()
                + want16.iter().map(|x| sub16(*x)).sum::<usize>();
            let hk = (&h64[4 * k..4 * k + 4], &h16[4 * k..4 * k + 4]);
            let dk = (&d64[4 * k..4 * k + 4], &d16[4 * k..4 * k + 4]);
            let ok_h = hk.0 == want64 && hk.1 == want16;
            let ok_d = dk.0 == want64 && dk.1 == want16;
            mh += !ok_h as usize;
            md += !ok_d as usize;
            if (!ok_h || !ok_d) && first.is_none() {
                first = Some(format!(
                    "{:016x?} {:04x?}: softfloat {want64:016x?} {want16:04x?}, host {:016x?} {:04x?}, \
                     device {:016x?} {:04x?}",
                    abc[k], pqr[k], hk.0, hk.1, dk.0, dk.1
                ));
            }
        }
        eprintln!(
            "{stem:13} {pname:9} {n} operand triples per width ({sub} subnormal results expected): host \
             {mh}, device {md} differ"
        );
        if ftz {
            assert_eq!(sub, 0, "{stem}: the flushing oracle produced a subnormal");
        } else {
            assert!(sub > n / 4, "{stem}: too few subnormal results ({sub})");
        }
        if mh + md > 0 {
            failures.push(format!("{stem} ({pname}): {}", first.unwrap()));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
