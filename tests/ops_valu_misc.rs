//! The remaining VALU rows of issue 5 (decision D094) through the opcheck harness (D022): normalised
//! conversions, v_cvt_off_f32_i4, v_cvt_pk_u8_f32, the cube-map helpers, v_mullit_f32, the quad SADs and
//! v_trig_preop_f64. Each op runs over ≥ 4,096 random + boundary operand sets (correlated where the
//! definition branches on equal magnitudes), host vs lavapipe bit-identical and host vs a reference
//! written here from the ISA guide's pseudo-code: Rust integer operations, Rust's exact f32→f64 widening
//! and saturating casts, Berkeley SoftFloat (`softfloat-sys`) for the f16→f32 widening and the f32
//! products, and — for v_trig_preop_f64 — the bits of 2/π computed in this file with its own big-integer
//! arithmetic (Machin's formula and a bit-by-bit division), independent of the lifter's table.
//! NaN float results are D005's default quiet NaN. Words from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030
//! -show-encoding` (the harness checks our printer prints them back as written).

// coverage: valu_misc_ops: V_CVT_OFF_F32_I4 V_CVT_NORM_I16_F16 V_CVT_NORM_U16_F16 V_CVT_PKNORM_I16_F16 V_CVT_PKNORM_U16_F16 V_CVT_PKNORM_I16_F32 V_CVT_PKNORM_U16_F32 V_CVT_PK_U8_F32 V_CUBEID_F32 V_CUBESC_F32 V_CUBETC_F32 V_CUBEMA_F32 V_MULLIT_F32 V_QSAD_PK_U16_U8 V_MQSAD_PK_U16_U8 V_MQSAD_U32_U8
// coverage: trig_preop_f64: V_TRIG_PREOP_F64

mod opcheck;
use opcheck::{check_n_with, inputs, n, op, Frame, Op, Rng};
use softfloat_wrapper::{Float, RoundingMode::TiesToEven as RNE, F16, F32};
use std::sync::OnceLock;

const QNAN: u32 = 0x7fc0_0000;

fn f16_to_f32(h: u32) -> f32 {
    f32::from_bits(F16::from_bits(h as u16).to_f32(RNE).to_bits())
}
/// SoftFloat's f32 product, NaN → the default NaN.
fn mul(a: u32, b: u32) -> u32 {
    let r = F32::from_bits(a).mul(F32::from_bits(b), RNE).to_bits();
    if f32::from_bits(r).is_nan() {
        QNAN
    } else {
        r
    }
}
fn canon(x: u32) -> u32 {
    if f32::from_bits(x).is_nan() {
        QNAN
    } else {
        x
    }
}

/// f32_to_snorm / f32_to_unorm as D094 reads them: NaN → 0, clamp, exact scale, nearest even.
fn norm(x: f32, signed: bool) -> u32 {
    if x.is_nan() {
        return 0;
    }
    let x = x as f64;
    let r = if signed {
        (x.clamp(-1.0, 1.0) * 32767.0).round_ties_even()
    } else {
        (x.clamp(0.0, 1.0) * 65535.0).round_ties_even()
    };
    (r as i32 as u32) & 0xffff
}
fn norm16(h: u32, signed: bool) -> u32 {
    norm(f16_to_f32(h & 0xffff), signed)
}

/// The face, S and T coordinates and 2·major axis of (x, y, z) (ISA pseudo-code of v_cube*_f32).
fn cube(x: u32, y: u32, z: u32) -> [u32; 4] {
    let (fx, fy, fz) = (f32::from_bits(x), f32::from_bits(y), f32::from_bits(z));
    let n = |v: u32| v ^ 0x8000_0000;
    let (id, sc, tc, ma) = if fz.abs() >= fx.abs() && fz.abs() >= fy.abs() {
        if fz < 0.0 {
            (5.0f32, n(x), n(y), z)
        } else {
            (4.0, x, n(y), z)
        }
    } else if fy.abs() >= fx.abs() {
        if fy < 0.0 {
            (3.0, x, n(z), y)
        } else {
            (2.0, x, z, y)
        }
    } else if fx < 0.0 {
        (1.0, z, n(y), x)
    } else {
        (0.0, n(z), n(y), x)
    };
    [
        id.to_bits(),
        canon(sc),
        canon(tc),
        mul(ma, 2.0f32.to_bits()),
    ]
}

fn mullit(a: u32, b: u32, c: u32) -> u32 {
    let (fb, fc) = (f32::from_bits(b), f32::from_bits(c));
    if b == 0xff7f_ffff || fb == f32::NEG_INFINITY || fb.is_nan() || fc <= 0.0 || fc.is_nan() {
        0xff7f_ffff
    } else {
        mul(a, b)
    }
}

/// (Masked) sum of absolute byte differences of `a` against `b`.
fn sad(a: u32, b: u32, masked: bool) -> u32 {
    (0..4)
        .map(|j| {
            let (x, y) = ((a >> (8 * j)) & 0xff, (b >> (8 * j)) & 0xff);
            if masked && y == 0 {
                0
            } else {
                x.abs_diff(y)
            }
        })
        .sum()
}
fn qsad(f: &mut Frame, masked: bool) {
    let before = f.clone();
    for l in 0..32 {
        let v = before.v[l];
        let a = v[0] as u64 | (v[1] as u64) << 32;
        let c = v[4] as u64 | (v[5] as u64) << 32;
        let mut d = 0u64;
        for i in 0..4 {
            let w = (a >> (8 * i)) as u32;
            let acc = (c >> (16 * i)) as u32 & 0xffff;
            d |= ((sad(w, v[2], masked).wrapping_add(acc) & 0xffff) as u64) << (16 * i);
        }
        f.v[l][8] = d as u32;
        f.v[l][9] = (d >> 32) as u32;
    }
}

/// The operands: the harness's mix, then in most items correlated floats — equal magnitudes with random
/// signs (the cube-map branches), values in [−1.25, 1.25] (the normalised conversions' range), f16
/// specials in the low halves, and v_mullit's special S1 values.
fn gen(n: usize, seed: u64) -> Vec<[u32; 16]> {
    let mut v = inputs(n, seed);
    let mut r = Rng(seed ^ 0x5eed);
    const H: [u32; 12] = [
        0x3800, 0xb800, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x7d00, 0x0001, 0x8001, 0x3bff,
        0x8000,
    ];
    for x in v.iter_mut() {
        for k in 0..3 {
            match r.next() % 8 {
                0 | 1 => {
                    let unit = (r.next() >> 40) as f32 / (1u64 << 24) as f32;
                    x[k] = (unit * 2.5 - 1.25).to_bits();
                }
                2 => x[k] = x[(k + 1) % 3] ^ ((r.next() as u32) & 0x8000_0000),
                3 => x[k] = x[k] & 0xffff_0000 | H[(r.next() % 12) as usize],
                4 => {
                    x[k] = [0xff7f_ffff, 0xff80_0000, 0x7f80_0000, 0x7fc0_0000]
                        [(r.next() % 4) as usize]
                }
                _ => {}
            }
        }
    }
    v
}

fn ops() -> Vec<Op> {
    vec![
        op("v_cvt_off_f32_i4_e32 v8, v0", &[0x7e10_1d00], |f| {
            f.per_lane(8, |f, l| {
                ((((f.v[l][0] << 28) as i32) >> 28) as f32 / 16.0).to_bits()
            })
        }),
        op(
            "v_cvt_off_f32_i4_e64 v9, v1",
            &[0xd58e_0009, 0x0000_0101],
            |f| {
                f.per_lane(9, |f, l| {
                    ((((f.v[l][1] << 28) as i32) >> 28) as f32 / 16.0).to_bits()
                })
            },
        ),
        op("v_cvt_norm_i16_f16_e32 v8, v0", &[0x7e10_c700], |f| {
            f.per_lane(8, |f, l| f.v[l][8] & 0xffff_0000 | norm16(f.v[l][0], true))
        }),
        op("v_cvt_norm_u16_f16_e32 v8, v0", &[0x7e10_c900], |f| {
            f.per_lane(8, |f, l| f.v[l][8] & 0xffff_0000 | norm16(f.v[l][0], false))
        }),
        op(
            "v_cvt_norm_i16_f16_e64 v8, -|v0|",
            &[0xd5e3_0108, 0x2000_0100],
            |f| {
                f.per_lane(8, |f, l| {
                    f.v[l][8] & 0xffff_0000 | norm16(f.v[l][0] & 0x7fff | 0x8000, true)
                })
            },
        ),
        op(
            "v_cvt_norm_u16_f16_e64 v8, v1",
            &[0xd5e4_0008, 0x0000_0101],
            |f| f.per_lane(8, |f, l| f.v[l][8] & 0xffff_0000 | norm16(f.v[l][1], false)),
        ),
        op(
            "v_cvt_pknorm_i16_f16 v8, v0, v1",
            &[0xd712_0008, 0x0002_0300],
            |f| {
                f.per_lane(8, |f, l| {
                    norm16(f.v[l][0], true) | norm16(f.v[l][1], true) << 16
                })
            },
        ),
        op(
            "v_cvt_pknorm_u16_f16 v8, v0, -v1",
            &[0xd713_0008, 0x4002_0300],
            |f| {
                f.per_lane(8, |f, l| {
                    norm16(f.v[l][0], false) | norm16(f.v[l][1] ^ 0x8000, false) << 16
                })
            },
        ),
        op(
            "v_cvt_pknorm_i16_f32 v8, v0, v1",
            &[0xd768_0008, 0x0002_0300],
            |f| {
                f.per_lane(8, |f, l| {
                    let v = f.v[l];
                    norm(f32::from_bits(v[0]), true) | norm(f32::from_bits(v[1]), true) << 16
                })
            },
        ),
        op(
            "v_cvt_pknorm_u16_f32 v8, |v0|, v1",
            &[0xd769_0108, 0x0002_0300],
            |f| {
                f.per_lane(8, |f, l| {
                    let v = f.v[l];
                    norm(f32::from_bits(v[0]).abs(), false)
                        | norm(f32::from_bits(v[1]), false) << 16
                })
            },
        ),
        op(
            "v_cvt_pk_u8_f32 v8, v0, v1, v2",
            &[0xd55e_0008, 0x040a_0300],
            |f| {
                f.per_lane(8, |f, l| {
                    let v = f.v[l];
                    let u = (f32::from_bits(v[0]) as u32).min(255);
                    let sh = 8 * (v[1] & 3);
                    v[2] & !(0xff << sh) | u << sh
                })
            },
        ),
        op(
            "v_cubeid_f32 v8, v0, v1, v2",
            &[0xd544_0008, 0x040a_0300],
            |f| f.per_lane(8, |f, l| cube(f.v[l][0], f.v[l][1], f.v[l][2])[0]),
        ),
        op(
            "v_cubesc_f32 v8, v0, v1, v2",
            &[0xd545_0008, 0x040a_0300],
            |f| f.per_lane(8, |f, l| cube(f.v[l][0], f.v[l][1], f.v[l][2])[1]),
        ),
        op(
            "v_cubetc_f32 v8, v0, v1, v2",
            &[0xd546_0008, 0x040a_0300],
            |f| f.per_lane(8, |f, l| cube(f.v[l][0], f.v[l][1], f.v[l][2])[2]),
        ),
        op(
            "v_cubema_f32 v8, v0, v1, v2",
            &[0xd547_0008, 0x040a_0300],
            |f| f.per_lane(8, |f, l| cube(f.v[l][0], f.v[l][1], f.v[l][2])[3]),
        ),
        op(
            "v_cubesc_f32 v8, -v0, |v1|, v2",
            &[0xd545_0208, 0x240a_0300],
            |f| {
                f.per_lane(8, |f, l| {
                    let v = f.v[l];
                    cube(v[0] ^ 0x8000_0000, v[1] & 0x7fff_ffff, v[2])[1]
                })
            },
        ),
        op(
            "v_mullit_f32 v8, v0, v1, v2",
            &[0xd550_0008, 0x040a_0300],
            |f| f.per_lane(8, |f, l| mullit(f.v[l][0], f.v[l][1], f.v[l][2])),
        ),
        op(
            "v_qsad_pk_u16_u8 v[8:9], v[0:1], v2, v[4:5]",
            &[0xd572_0008, 0x0412_0500],
            |f| qsad(f, false),
        ),
        op(
            "v_mqsad_pk_u16_u8 v[8:9], v[0:1], v2, v[4:5]",
            &[0xd573_0008, 0x0412_0500],
            |f| qsad(f, true),
        ),
        op(
            "v_mqsad_u32_u8 v[8:11], v[0:1], v2, v[4:7]",
            &[0xd575_0008, 0x0412_0500],
            |f| {
                let before = f.clone();
                for l in 0..32 {
                    let v = before.v[l];
                    let a = v[0] as u64 | (v[1] as u64) << 32;
                    for i in 0..4 {
                        let w = (a >> (8 * i)) as u32;
                        f.v[l][8 + i] = sad(w, v[2], true).wrapping_add(v[4 + i]);
                    }
                }
            },
        ),
    ]
}

#[test]
fn valu_misc_ops() {
    check_n_with(&ops(), n(), gen);
}

// ---------------------------------------------------------------------------------------------------
// v_trig_preop_f64 and its reference: the fraction bits of 2/π from big-integer arithmetic.

/// Fixed-point numbers: little-endian 32-bit limbs, `FRAC` of them below the binary point.
const FRAC: usize = 44;
const LIMBS: usize = FRAC + 2;
type Fix = [u64; LIMBS];

fn fix_int(n: u64) -> Fix {
    let mut x = [0; LIMBS];
    x[FRAC] = n;
    x
}
fn fix_div(x: &Fix, d: u64) -> Fix {
    let mut q = [0; LIMBS];
    let mut rem = 0u64;
    for i in (0..LIMBS).rev() {
        let cur = rem << 32 | x[i];
        q[i] = cur / d;
        rem = cur % d;
    }
    q
}
fn fix_mul_small(x: &Fix, m: u64) -> Fix {
    let mut r = [0; LIMBS];
    let mut carry = 0u64;
    for i in 0..LIMBS {
        let t = x[i] * m + carry;
        r[i] = t & 0xffff_ffff;
        carry = t >> 32;
    }
    r
}
fn fix_add(a: &Fix, b: &Fix) -> Fix {
    let mut r = [0; LIMBS];
    let mut c = 0u64;
    for i in 0..LIMBS {
        let t = a[i] + b[i] + c;
        r[i] = t & 0xffff_ffff;
        c = t >> 32;
    }
    r
}
fn fix_sub(a: &Fix, b: &Fix) -> Fix {
    let mut r = [0; LIMBS];
    let mut borrow = 0i64;
    for i in 0..LIMBS {
        let mut t = a[i] as i64 - b[i] as i64 - borrow;
        borrow = (t < 0) as i64;
        if t < 0 {
            t += 1 << 32;
        }
        r[i] = t as u64;
    }
    r
}
fn fix_ge(a: &Fix, b: &Fix) -> bool {
    for i in (0..LIMBS).rev() {
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}
/// arctan(1/n) = Σ (−1)^k / ((2k+1)·n^(2k+1)).
fn atan_inv(n: u64) -> Fix {
    let mut power = fix_div(&fix_int(1), n);
    let mut sum = [0; LIMBS];
    let mut k = 0u64;
    while power.iter().any(|&x| x != 0) {
        let t = fix_div(&power, 2 * k + 1);
        sum = if k.is_multiple_of(2) {
            fix_add(&sum, &t)
        } else {
            fix_sub(&sum, &t)
        };
        power = fix_div(&power, n * n);
        k += 1;
    }
    sum
}
/// The first `bits` fraction bits of 2/π (index 0 = the 2^-1 place): π from Machin's formula
/// (16·atan(1/5) − 4·atan(1/239), 1,408 fraction bits), then 2/π by restoring division, bit by bit.
fn two_over_pi_bits() -> &'static Vec<bool> {
    static BITS: OnceLock<Vec<bool>> = OnceLock::new();
    BITS.get_or_init(|| {
        let pi = fix_sub(
            &fix_mul_small(&atan_inv(5), 16),
            &fix_mul_small(&atan_inv(239), 4),
        );
        let mut r = fix_int(2);
        (0..1201)
            .map(|_| {
                r = fix_mul_small(&r, 2);
                let bit = fix_ge(&r, &pi);
                if bit {
                    r = fix_sub(&r, &pi);
                }
                bit
            })
            .collect()
    })
}

/// v_trig_preop_f64 from the ISA guide: shift = 53·seg[4:0] (+ exponent − 1077 when the exponent field is
/// above 1077); the 53 bits of 2/π's 1,201-bit fraction from bit `shift` on (0 past its end), times
/// 2^(−53 − shift) (2^128 more when the exponent field is ≥ 1968), rounded toward zero.
fn trig_preop(x: u64, seg: u32) -> u64 {
    let e = (x >> 52 & 0x7ff) as i64;
    let mut shift = 53 * (seg & 31) as i64;
    if e > 1077 {
        shift += e - 1077;
    }
    let bits = two_over_pi_bits();
    let mut m = 0u64;
    for i in 0..53 {
        let b = bits.get((shift + i) as usize).copied().unwrap_or(false);
        m = m << 1 | b as u64;
    }
    let mut scale = -53 - shift;
    if e >= 1968 {
        scale += 128;
    }
    if m == 0 {
        return 0;
    }
    let lead = 63 - m.leading_zeros() as i64;
    if lead + scale >= -1022 {
        // A normal result: exact, m (< 2^53) times a power of two.
        let p2 = if scale >= -1022 {
            f64::from_bits(((scale + 1023) as u64) << 52)
        } else {
            f64::from_bits(1u64 << (scale + 1074))
        };
        ((m as f64) * p2).to_bits()
    } else {
        // Subnormal: whole units of 2^-1074, rounded toward zero.
        let s = scale + 1074;
        if s >= 0 {
            m << s
        } else if -s >= 64 {
            0
        } else {
            m >> -s
        }
    }
}

fn trig_ops() -> [Op; 2] {
    [
        op(
            "v_trig_preop_f64 v[8:9], v[0:1], v2",
            &[0xd574_0008, 0x0002_0500],
            |f| f.per_lane64(8, |f, l| trig_preop(f.v64(l, 0), f.v[l][2])),
        ),
        op(
            "v_trig_preop_f64 v[8:9], -|v[0:1]|, v2",
            &[0xd574_0108, 0x2002_0500],
            |f| f.per_lane64(8, |f, l| trig_preop(f.v64(l, 0) | 1 << 63, f.v[l][2])),
        ),
    ]
}

/// Exponent fields across the whole range (the random mix alone rarely reaches ≥ 1968), segments 0..31
/// and beyond.
fn gen_trig(n: usize, seed: u64) -> Vec<[u32; 16]> {
    let mut v = inputs(n, seed);
    let mut r = Rng(seed ^ 0x2f9);
    for x in v.iter_mut() {
        if r.next().is_multiple_of(2) {
            let e = (r.next() % 2048) as u32;
            x[1] = x[1] & 0x800f_ffff | e << 20;
        }
        if r.next().is_multiple_of(2) {
            x[2] = (r.next() % 40) as u32;
        }
    }
    v
}

#[test]
fn trig_preop_f64() {
    check_n_with(&trig_ops(), n(), gen_trig);
}

/// Benchmark size: 2^20 operand sets per op, one op per lavapipe module (results in
/// docs/coverage-tests.md).
#[test]
#[ignore = "benchmark: cargo test --release --test ops_valu_misc -- --ignored --test-threads 1"]
fn valu_misc_ops_at_benchmark_size() {
    for o in ops() {
        check_n_with(std::slice::from_ref(&o), 1 << 20, gen);
    }
    for o in trig_ops() {
        check_n_with(std::slice::from_ref(&o), 1 << 20, gen_trig);
    }
}
