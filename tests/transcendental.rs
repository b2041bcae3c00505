//! The approximate VALU ops (decision D017): V_RCP_IFLAG_F32, V_RSQ_F32, V_EXP_F32, V_LOG_F32, V_SIN_F32,
//! V_COS_F32 and the half-precision V_RCP/SQRT/RSQ/EXP/LOG/SIN/COS_F16, from real instruction words
//! (`llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`, written next to each), each applied to v0, v1,
//! v2 and v7 of the shared frame (tests/support/frame.rs) and stored from v3..v6.
//!
//! Checked for every operand:
//! - host evaluator and lavapipe (probed profile) give identical bits — the deterministic model is the
//!   contract, whatever the accuracy;
//! - special values exactly as the ISA defines them (NaN → the default NaN of D005, infinities, zeros);
//! - the distance to the correctly rounded value, in ulps of the result's format, is at most the bound of the
//!   op (D017 gives the measured maxima and the ISA's stated accuracy). References: SoftFloat for 1/x and
//!   √x; the host's f64 `exp2`, `log2`, `sin`, `cos` and `sqrt` (an f64 result within an f64 ulp, rounded to
//!   the narrow format by SoftFloat) for the rest.
//!
//! Operands: half-precision ops exhaustively (all 65,536 inputs); single-precision ops over boundary values
//! and op-specific random domains, `RDNA2SPV_TRANS_N` per op (default 16,384; the benchmark-size run in
//! docs/numerics-transcendental.md uses 1,048,576).

#[path = "support/frame.rs"]
mod frame;

use frame::*;
use rdna2spv_isa::Target;
use rdna2spv_vulkan::{probe, DeviceProfile};
use softfloat_wrapper::{Float, RoundingMode::TiesToEven as RNE, F16, F32, F64};

// coverage: transcendental_ops_are_deterministic_and_accurate: V_RCP_IFLAG_F32 V_RSQ_F32 V_EXP_F32 V_LOG_F32 V_SIN_F32 V_COS_F32 V_RCP_F16 V_SQRT_F16 V_RSQ_F16 V_EXP_F16 V_LOG_F16 V_SIN_F16 V_COS_F16

#[derive(Clone, Copy, PartialEq)]
enum Fun {
    Rcp,
    Sqrt,
    Rsq,
    Exp,
    Log,
    Sin,
    Cos,
}

struct Op {
    name: &'static str,
    fun: Fun,
    half: bool,
    /// `<op> v3, v0`, `<op> v4, v1`, `<op> v5, v2`, `<op> v6, v7` (VOP1, or VOP3 for the `_e64` names).
    words: &'static [u32],
    /// Largest allowed distance from the correctly rounded result, in ulps (D017).
    bound: u64,
}

const OPS: &[Op] = &[
    // v_rcp_iflag_f32: [0x00,0x57,0x06,0x7e] [0x01,0x57,0x08,0x7e] [0x02,0x57,0x0a,0x7e] [0x07,0x57,0x0c,0x7e]
    Op {
        name: "v_rcp_iflag_f32",
        fun: Fun::Rcp,
        half: false,
        words: &[0x7e06_5700, 0x7e08_5701, 0x7e0a_5702, 0x7e0c_5707],
        bound: 0,
    },
    // v_rsq_f32: [0x00,0x5d,0x06,0x7e] [0x01,0x5d,0x08,0x7e] [0x02,0x5d,0x0a,0x7e] [0x07,0x5d,0x0c,0x7e]
    Op {
        name: "v_rsq_f32",
        fun: Fun::Rsq,
        half: false,
        words: &[0x7e06_5d00, 0x7e08_5d01, 0x7e0a_5d02, 0x7e0c_5d07],
        bound: 1,
    },
    // v_exp_f32: [0x00,0x4b,0x06,0x7e] [0x01,0x4b,0x08,0x7e] [0x02,0x4b,0x0a,0x7e] [0x07,0x4b,0x0c,0x7e]
    Op {
        name: "v_exp_f32",
        fun: Fun::Exp,
        half: false,
        words: &[0x7e06_4b00, 0x7e08_4b01, 0x7e0a_4b02, 0x7e0c_4b07],
        bound: 1,
    },
    // v_log_f32: [0x00,0x4f,0x06,0x7e] [0x01,0x4f,0x08,0x7e] [0x02,0x4f,0x0a,0x7e] [0x07,0x4f,0x0c,0x7e]
    Op {
        name: "v_log_f32",
        fun: Fun::Log,
        half: false,
        words: &[0x7e06_4f00, 0x7e08_4f01, 0x7e0a_4f02, 0x7e0c_4f07],
        bound: 1,
    },
    // v_sin_f32: [0x00,0x6b,0x06,0x7e] [0x01,0x6b,0x08,0x7e] [0x02,0x6b,0x0a,0x7e] [0x07,0x6b,0x0c,0x7e]
    Op {
        name: "v_sin_f32",
        fun: Fun::Sin,
        half: false,
        words: &[0x7e06_6b00, 0x7e08_6b01, 0x7e0a_6b02, 0x7e0c_6b07],
        bound: 1,
    },
    // v_cos_f32: [0x00,0x6d,0x06,0x7e] [0x01,0x6d,0x08,0x7e] [0x02,0x6d,0x0a,0x7e] [0x07,0x6d,0x0c,0x7e]
    Op {
        name: "v_cos_f32",
        fun: Fun::Cos,
        half: false,
        words: &[0x7e06_6d00, 0x7e08_6d01, 0x7e0a_6d02, 0x7e0c_6d07],
        bound: 1,
    },
    // v_rcp_f16: [0x00,0xa9,0x06,0x7e] [0x01,0xa9,0x08,0x7e] [0x02,0xa9,0x0a,0x7e] [0x07,0xa9,0x0c,0x7e]
    Op {
        name: "v_rcp_f16",
        fun: Fun::Rcp,
        half: true,
        words: &[0x7e06_a900, 0x7e08_a901, 0x7e0a_a902, 0x7e0c_a907],
        bound: 1,
    },
    // v_sqrt_f16: [0x00,0xab,0x06,0x7e] [0x01,0xab,0x08,0x7e] [0x02,0xab,0x0a,0x7e] [0x07,0xab,0x0c,0x7e]
    Op {
        name: "v_sqrt_f16",
        fun: Fun::Sqrt,
        half: true,
        words: &[0x7e06_ab00, 0x7e08_ab01, 0x7e0a_ab02, 0x7e0c_ab07],
        bound: 1,
    },
    // v_rsq_f16: [0x00,0xad,0x06,0x7e] [0x01,0xad,0x08,0x7e] [0x02,0xad,0x0a,0x7e] [0x07,0xad,0x0c,0x7e]
    Op {
        name: "v_rsq_f16",
        fun: Fun::Rsq,
        half: true,
        words: &[0x7e06_ad00, 0x7e08_ad01, 0x7e0a_ad02, 0x7e0c_ad07],
        bound: 1,
    },
    // v_exp_f16: [0x00,0xb1,0x06,0x7e] [0x01,0xb1,0x08,0x7e] [0x02,0xb1,0x0a,0x7e] [0x07,0xb1,0x0c,0x7e]
    Op {
        name: "v_exp_f16",
        fun: Fun::Exp,
        half: true,
        words: &[0x7e06_b100, 0x7e08_b101, 0x7e0a_b102, 0x7e0c_b107],
        bound: 1,
    },
    // v_log_f16: [0x00,0xaf,0x06,0x7e] [0x01,0xaf,0x08,0x7e] [0x02,0xaf,0x0a,0x7e] [0x07,0xaf,0x0c,0x7e]
    Op {
        name: "v_log_f16",
        fun: Fun::Log,
        half: true,
        words: &[0x7e06_af00, 0x7e08_af01, 0x7e0a_af02, 0x7e0c_af07],
        bound: 1,
    },
    // v_sin_f16: [0x00,0xc1,0x06,0x7e] [0x01,0xc1,0x08,0x7e] [0x02,0xc1,0x0a,0x7e] [0x07,0xc1,0x0c,0x7e]
    Op {
        name: "v_sin_f16",
        fun: Fun::Sin,
        half: true,
        words: &[0x7e06_c100, 0x7e08_c101, 0x7e0a_c102, 0x7e0c_c107],
        bound: 1,
    },
    // v_cos_f16: [0x00,0xc3,0x06,0x7e] [0x01,0xc3,0x08,0x7e] [0x02,0xc3,0x0a,0x7e] [0x07,0xc3,0x0c,0x7e]
    Op {
        name: "v_cos_f16",
        fun: Fun::Cos,
        half: true,
        words: &[0x7e06_c300, 0x7e08_c301, 0x7e0a_c302, 0x7e0c_c307],
        bound: 1,
    },
    // The VOP3 (e64) encodings: their own table rows (issue 28); llvm-mc-19 -mcpu=gfx1030 words.
    Op {
        name: "v_rcp_iflag_f32_e64",
        fun: Fun::Rcp,
        half: false,
        words: &[
            0xd5ab_0003,
            0x0000_0100,
            0xd5ab_0004,
            0x0000_0101,
            0xd5ab_0005,
            0x0000_0102,
            0xd5ab_0006,
            0x0000_0107,
        ],
        bound: 0,
    },
    Op {
        name: "v_rsq_f32_e64",
        fun: Fun::Rsq,
        half: false,
        words: &[
            0xd5ae_0003,
            0x0000_0100,
            0xd5ae_0004,
            0x0000_0101,
            0xd5ae_0005,
            0x0000_0102,
            0xd5ae_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_exp_f32_e64",
        fun: Fun::Exp,
        half: false,
        words: &[
            0xd5a5_0003,
            0x0000_0100,
            0xd5a5_0004,
            0x0000_0101,
            0xd5a5_0005,
            0x0000_0102,
            0xd5a5_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_log_f32_e64",
        fun: Fun::Log,
        half: false,
        words: &[
            0xd5a7_0003,
            0x0000_0100,
            0xd5a7_0004,
            0x0000_0101,
            0xd5a7_0005,
            0x0000_0102,
            0xd5a7_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_sin_f32_e64",
        fun: Fun::Sin,
        half: false,
        words: &[
            0xd5b5_0003,
            0x0000_0100,
            0xd5b5_0004,
            0x0000_0101,
            0xd5b5_0005,
            0x0000_0102,
            0xd5b5_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_cos_f32_e64",
        fun: Fun::Cos,
        half: false,
        words: &[
            0xd5b6_0003,
            0x0000_0100,
            0xd5b6_0004,
            0x0000_0101,
            0xd5b6_0005,
            0x0000_0102,
            0xd5b6_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_rcp_f16_e64",
        fun: Fun::Rcp,
        half: true,
        words: &[
            0xd5d4_0003,
            0x0000_0100,
            0xd5d4_0004,
            0x0000_0101,
            0xd5d4_0005,
            0x0000_0102,
            0xd5d4_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_sqrt_f16_e64",
        fun: Fun::Sqrt,
        half: true,
        words: &[
            0xd5d5_0003,
            0x0000_0100,
            0xd5d5_0004,
            0x0000_0101,
            0xd5d5_0005,
            0x0000_0102,
            0xd5d5_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_rsq_f16_e64",
        fun: Fun::Rsq,
        half: true,
        words: &[
            0xd5d6_0003,
            0x0000_0100,
            0xd5d6_0004,
            0x0000_0101,
            0xd5d6_0005,
            0x0000_0102,
            0xd5d6_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_exp_f16_e64",
        fun: Fun::Exp,
        half: true,
        words: &[
            0xd5d8_0003,
            0x0000_0100,
            0xd5d8_0004,
            0x0000_0101,
            0xd5d8_0005,
            0x0000_0102,
            0xd5d8_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_log_f16_e64",
        fun: Fun::Log,
        half: true,
        words: &[
            0xd5d7_0003,
            0x0000_0100,
            0xd5d7_0004,
            0x0000_0101,
            0xd5d7_0005,
            0x0000_0102,
            0xd5d7_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_sin_f16_e64",
        fun: Fun::Sin,
        half: true,
        words: &[
            0xd5e0_0003,
            0x0000_0100,
            0xd5e0_0004,
            0x0000_0101,
            0xd5e0_0005,
            0x0000_0102,
            0xd5e0_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
    Op {
        name: "v_cos_f16_e64",
        fun: Fun::Cos,
        half: true,
        words: &[
            0xd5e1_0003,
            0x0000_0100,
            0xd5e1_0004,
            0x0000_0101,
            0xd5e1_0005,
            0x0000_0102,
            0xd5e1_0006,
            0x0000_0107,
        ],
        bound: 1,
    },
];

// ---------------------------------------------------------------------------------------------------
// References.

/// The correctly rounded value of `fun` at `x` (as f64), for the op's format.
fn reference_f64(fun: Fun, x: f64) -> f64 {
    match fun {
        Fun::Rcp => 1.0 / x,
        Fun::Sqrt => x.sqrt(),
        Fun::Rsq => 1.0 / x.sqrt(),
        Fun::Exp => x.exp2(),
        Fun::Log => {
            if x == 0.0 {
                f64::NEG_INFINITY
            } else {
                x.log2()
            }
        }
        Fun::Sin | Fun::Cos => {
            if !x.is_finite() {
                return f64::NAN;
            }
            // Exact reduction of an f32/f16 operand: r = x − round(x) in [-1/2, 1/2], then by quarter
            // turns: s = r − q/4 with |s| ≤ 1/8 (both exact in f64), so multiples of a quarter turn give
            // exact zeros and ones instead of f64's sin(π) ≈ 1.2e-16.
            let r = x - x.round_ties_even();
            let q = (4.0 * r).round_ties_even();
            let s = r - q / 4.0;
            let a = std::f64::consts::TAU * s;
            let (sn, cs) = (a.sin(), a.cos());
            let q = (q as i64).rem_euclid(4);
            let (sin, cos) = match q {
                0 => (sn, cs),
                1 => (cs, -sn),
                2 => (-sn, -cs),
                _ => (-cs, sn),
            };
            if fun == Fun::Sin {
                sin
            } else {
                cos
            }
        }
    }
}

fn f64_to_f32_bits(v: f64) -> u32 {
    F64::from_bits(v.to_bits()).to_f32(RNE).to_bits()
}
fn f64_to_f16_bits(v: f64) -> u32 {
    F64::from_bits(v.to_bits()).to_f16(RNE).to_bits() as u32
}
fn f16_to_f64(h: u32) -> f64 {
    f64::from_bits(F16::from_bits(h as u16).to_f64(RNE).to_bits())
}

/// The reference result bits: 1/x from SoftFloat's correctly rounded division; the others through f64.
fn reference(op: &Op, x: u32) -> u32 {
    if op.half {
        if op.fun == Fun::Rcp {
            let one = F16::from_bits(0x3c00);
            return one.div(F16::from_bits(x as u16), RNE).to_bits() as u32;
        }
        f64_to_f16_bits(reference_f64(op.fun, f16_to_f64(x)))
    } else {
        if op.fun == Fun::Rcp {
            let one = F32::from_bits(0x3f80_0000);
            return one.div(F32::from_bits(x), RNE).to_bits();
        }
        f64_to_f32_bits(reference_f64(op.fun, f32::from_bits(x) as f64))
    }
}

fn is_nan(op: &Op, x: u32) -> bool {
    if op.half {
        x & 0x7fff > 0x7c00
    } else {
        x & 0x7fff_ffff > 0x7f80_0000
    }
}

/// Distance in ulps between two non-NaN values of the op's format (adjacent values are 1 apart, ±0 are 0
/// apart, the largest finite value and infinity 1).
fn ulps(op: &Op, a: u32, b: u32) -> u64 {
    let key = |x: u32| -> i64 {
        let (sign, mag) = if op.half {
            (x & 0x8000 != 0, (x & 0x7fff) as i64)
        } else {
            (x & 0x8000_0000 != 0, (x & 0x7fff_ffff) as i64)
        };
        if sign {
            -mag
        } else {
            mag
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

// ---------------------------------------------------------------------------------------------------
// Operands.

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// Boundary values and random operands for a single-precision op.
fn operands_f32(fun: Fun, n: usize, seed: u64) -> Vec<u32> {
    let mut v: Vec<u32> = vec![
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x807f_ffff,
        0x0080_0000,
        0x8080_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa0_0000,
        0xffc0_0001,
    ];
    for e in -149..=128i32 {
        let p = (e as f32).exp2();
        for x in [
            p,
            -p,
            e as f32,
            -(e as f32),
            e as f32 + 0.5,
            e as f32 - 0.25,
        ] {
            v.push(x.to_bits());
            v.push(x.to_bits().wrapping_add(1));
            v.push(x.to_bits().wrapping_sub(1));
        }
    }
    for k in -40..=40i32 {
        v.push((k as f32 * 0.125).to_bits());
    }
    for x in [
        4_194_304.0f32,
        4_194_304.5,
        8_388_607.5,
        8_388_608.0,
        16_777_216.0,
        256.0,
        -256.0,
    ] {
        v.push(x.to_bits());
        v.push((-x).to_bits());
    }
    let mut rng = Rng(seed);
    while v.len() < n {
        let r = match rng.next() % 4 {
            0 => rng.next(),
            1 => match fun {
                Fun::Exp => (rng.unit() * 290.0 - 160.0).to_bits(),
                Fun::Log | Fun::Rsq | Fun::Rcp | Fun::Sqrt => {
                    (rng.next() & 0x7fff_ffff) % 0x7f80_0001
                }
                Fun::Sin | Fun::Cos => (rng.unit() * 512.0 - 256.0).to_bits(),
            },
            2 => match fun {
                Fun::Exp => (rng.unit() * 2.0 - 1.0).to_bits(),
                Fun::Log => (0.5 + rng.unit()).to_bits(),
                Fun::Sin | Fun::Cos => (rng.unit() - 0.5).to_bits(),
                _ => (rng.unit() * 4.0).to_bits(),
            },
            _ => {
                // Near a multiple of 1/4 (sin/cos), near 1 (log), near an integer (exp).
                let base = (rng.next() % 64) as f32 * 0.25;
                (base.to_bits() as i64 + (rng.next() % 64) as i64 - 32) as u32
            }
        };
        v.push(r);
    }
    v.truncate(n.max(v.len().min(n)));
    v
}

// ---------------------------------------------------------------------------------------------------

fn run_op(ctx: &rdna2spv_vulkan::Context, prof: &DeviceProfile, op: &Op, xs: &[u32]) -> OpResult {
    // The words are the op written in its name (e32 or e64 form; our printer is LLVM-identical).
    let text = rdna2spv_isa::decode(op.words, Target::Gfx1030)
        .unwrap_or_else(|e| panic!("{}: {e}", op.name))
        .text(rdna2spv_isa::PrintOptions { wave64: false });
    assert!(
        text.starts_with(&format!("{} ", op.name))
            || text.starts_with(&format!("{}_e32 ", op.name)),
        "{}: the words are {text}",
        op.name
    );
    let form: Vec<u8> = op.words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let p = kernel(Target::Gfx1030, &form);
    // Four operands per work-item: in v0, v1, v2, v7 (the frame loads v[0:7]).
    let items: Vec<[u32; 8]> = xs
        .chunks(4)
        .map(|c| {
            let g = |i: usize| c.get(i).copied().unwrap_or(0);
            [g(0), g(1), g(2), 0, 0, 0, 0, g(3)]
        })
        .collect();
    let (host, dev) = run_both(ctx, prof, &p, &items);
    let mut r = OpResult::default();
    for (k, &x) in xs.iter().enumerate() {
        let (item, slot) = (k / 4, k % 4);
        let (h, d) = (host[4 * item + slot], dev[4 * item + slot]);
        let want = reference(op, x);
        let got = if op.half { h & 0xffff } else { h };
        r.n += 1;
        if h != d {
            r.device_diffs += 1;
            if r.first_device_diff.is_none() {
                r.first_device_diff = Some((x, h, d));
            }
        }
        if op.half && h >> 16 != 0 {
            r.bad_specials += 1;
            r.first_bad.get_or_insert((x, h, want));
            continue;
        }
        match (is_nan(op, got), is_nan(op, want)) {
            (true, true) => {
                let q = if op.half { 0x7e00 } else { 0x7fc0_0000 };
                if got != q {
                    r.bad_specials += 1;
                    r.first_bad.get_or_insert((x, h, want));
                }
            }
            (false, false) => {
                let u = ulps(op, got, want);
                // Infinities and zeros must be exact: an infinite or zero result where the reference
                // is not (or the reverse) counts as a special-value error, not as ulps.
                let inf = |b: u32| {
                    if op.half {
                        b & 0x7fff == 0x7c00
                    } else {
                        b & 0x7fff_ffff == 0x7f80_0000
                    }
                };
                if inf(got) != inf(want) && u > 1 {
                    r.bad_specials += 1;
                    r.first_bad.get_or_insert((x, h, want));
                }
                if u > r.max_ulps {
                    r.max_ulps = u;
                    r.worst = (x, got, want);
                }
                if u > 0 {
                    r.inexact += 1;
                }
            }
            _ => {
                r.bad_specials += 1;
                r.first_bad.get_or_insert((x, h, want));
            }
        }
    }
    r
}

#[derive(Default)]
struct OpResult {
    n: usize,
    device_diffs: usize,
    first_device_diff: Option<(u32, u32, u32)>,
    bad_specials: usize,
    first_bad: Option<(u32, u32, u32)>,
    max_ulps: u64,
    worst: (u32, u32, u32),
    inexact: usize,
}

#[test]
fn transcendental_ops_are_deterministic_and_accurate() {
    let n: usize = std::env::var("RDNA2SPV_TRANS_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16_384);
    // A benchmark-size run is one long dispatch per op: give it time (the default fence timeout is 60 s).
    let ctx = lavapipe().with_timeout(std::time::Duration::from_secs(if n > 100_000 {
        1800
    } else {
        60
    }));
    let prof = probe(&ctx).expect("the device profile is probed");
    let only = std::env::var("RDNA2SPV_TRANS_ONLY").ok();
    let mut failures = Vec::new();
    println!(
        "{:<16} {:>9} {:>8} {:>9} {:>9} {:>9}  worst (operand → got, correctly rounded)",
        "op", "operands", "host≠dev", "specials", "≠ CR", "max ulps"
    );
    for (i, op) in OPS.iter().enumerate() {
        if only.as_deref().is_some_and(|o| !op.name.contains(o)) {
            continue;
        }
        let xs: Vec<u32> = if op.half {
            (0..=0xffffu32).collect()
        } else {
            operands_f32(op.fun, n, 0x9e37_79b9_7f4a_7c15 ^ i as u64)
        };
        let r = run_op(&ctx, &prof, op, &xs);
        println!(
            "{:<16} {:>9} {:>8} {:>9} {:>9} {:>9}  {:#x} → {:#x}, {:#x}",
            op.name,
            r.n,
            r.device_diffs,
            r.bad_specials,
            r.inexact,
            r.max_ulps,
            r.worst.0,
            r.worst.1,
            r.worst.2
        );
        if r.device_diffs > 0 {
            failures.push(format!(
                "{}: {} host/device differences (first: operand {:#x?})",
                op.name, r.device_diffs, r.first_device_diff
            ));
        }
        if r.bad_specials > 0 {
            failures.push(format!(
                "{}: {} special-value errors (first: operand, got, want = {:#x?})",
                op.name, r.bad_specials, r.first_bad
            ));
        }
        if r.max_ulps > op.bound {
            failures.push(format!(
                "{}: {} ulps from the correctly rounded value (bound {}), at {:#x?}",
                op.name, r.max_ulps, op.bound, r.worst
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
