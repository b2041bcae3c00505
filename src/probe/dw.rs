//! `rdna2spv probe double-word`: the fp32mp2 error study (seed 003) through the translator.
//!
//! `fixtures/kernels/dw_fp32mp2.cl` holds one kernel per operation and accuracy level (the algorithms and
//! their sources are named there). Each runs translated on the host evaluator and on the Vulkan device over
//! `n` operands per regime; the host and device result pairs must agree bit for bit, and the relative error
//! |(hi + lo) − exact| / |exact| of every result is measured in units of u² = 2⁻⁴⁸ against the exact result
//! computed in binary128 with Berkeley SoftFloat (`f128_*`; the operands are sums of two floats, exact in
//! binary128, and the reference's own rounding is 2⁻¹¹³ relative — 2⁻⁶⁵ u²). The absolute error is
//! measured over |x| + |y| (|x·y| + |z| for fma), as the seed does.
//!
//! Operands are normalized pairs (|lo| ≤ ulp(hi)/2, made so by an exact Fast2Sum) with high limbs of
//! random sign and log-uniform magnitudes in [2⁻⁸, 2⁸] ([`EXP_SPAN`]). Regimes as the seed defines them: `same` — the
//! operands (x·y and z for fma) have one sign; `random` — independent signs; `cancel` — y = −x·(1 ± 2⁻ᵏ)
//! (z = −x·y·(1 ± 2⁻ᵏ) for fma; c = −xh·(1 ± 2⁻ᵏ) rounded to a float for the accumulate) with k
//! uniform in [1, 48] = 2p and 2⁻ᵏ given 24 random bits (2⁻ᵏ·(1 + ρ)), computed in binary128 and split into a pair. Multiplication and division
//! have one regime (random signs), the square root positive operands. Every operation also runs on the
//! seed harness's own "working range" (`work`, D079: doubles uniform over ±10¹⁶, ±10⁸ for fma, [0, 10³²] for
//! the root, split into pairs), and the additions and fma on its one-sign part (`work, one sign`).

use super::{bytes, progress, run_chunk, words, Backends, Rng};
use anyhow::Result;
use serde::Serialize;
use softfloat_sys as sf;
use std::path::Path;

/// binary128 through SoftFloat.
#[derive(Clone, Copy)]
struct Q(sf::float128_t);

impl Q {
    fn f(x: f32) -> Q {
        Q(unsafe { sf::f32_to_f128(sf::float32_t { v: x.to_bits() }) })
    }
    fn add(self, o: Q) -> Q {
        Q(unsafe { sf::f128_add(self.0, o.0) })
    }
    fn sub(self, o: Q) -> Q {
        Q(unsafe { sf::f128_sub(self.0, o.0) })
    }
    fn mul(self, o: Q) -> Q {
        Q(unsafe { sf::f128_mul(self.0, o.0) })
    }
    fn fma(self, b: Q, c: Q) -> Q {
        Q(unsafe { sf::f128_mulAdd(self.0, b.0, c.0) })
    }
    fn div(self, o: Q) -> Q {
        Q(unsafe { sf::f128_div(self.0, o.0) })
    }
    fn sqrt(self) -> Q {
        Q(unsafe { sf::f128_sqrt(self.0) })
    }
    fn abs(self) -> Q {
        let mut v = self.0;
        v.v[1] &= !(1u64 << 63);
        Q(v)
    }
    fn neg(self) -> Q {
        let mut v = self.0;
        v.v[1] ^= 1u64 << 63;
        Q(v)
    }
    fn is_zero(self) -> bool {
        self.0.v[0] == 0 && self.0.v[1] & !(1u64 << 63) == 0
    }
    fn to_f32(self) -> f32 {
        f32::from_bits(unsafe { sf::f128_to_f32(self.0) }.v)
    }
    fn to_f64(self) -> f64 {
        f64::from_bits(unsafe { sf::f128_to_f64(self.0) }.v)
    }
    /// A pair (hi, lo) = (RN(self), RN(self − hi)).
    fn split(self) -> (f32, f32) {
        let h = self.to_f32();
        (h, self.sub(Q::f(h)).to_f32())
    }
}

/// hi + lo exactly.
fn pair(h: f32, l: f32) -> Q {
    Q::f(h).add(Q::f(l))
}

/// u² for fp32mp2.
pub const U2: f64 = 1.0 / (1u64 << 48) as f64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Regime {
    Same,
    Random,
    Cancel,
    Positive,
    /// The seed's harness "working range" (D079): each operand a double drawn uniformly from the operation's
    /// range ([−10¹⁶, 10¹⁶]; [−10⁸, 10⁸] for fma; [0, 10³²] for the root) and split into the pair
    /// (RN(d), RN(d − RN(d))); the accumulate's c is RN(d). Random signs.
    Work,
    /// [`Regime::Work`] with one sign (x·y and z of one sign for fma): the working-range operands that do not
    /// cancel, which the seed's main-table figures for low/mid addition and for fma are stated over.
    WorkSame,
    /// The neighbourhood of the accumulate's worst case (not a seed regime): xh just above a power of two,
    /// c of the other sign just below xh/2, so that x + c lands just above the power of two one binade down
    /// and the rounded low-order sum is as large as it can be relative to it.
    Worst,
}

impl Regime {
    pub const ALL: [Regime; 7] = [Same, Random, Cancel, Positive, Worst, Work, WorkSame];

    /// The command-line spelling (`--regime`).
    pub fn cli(self) -> &'static str {
        match self {
            Regime::Same => "same",
            Regime::Random => "random",
            Regime::Cancel => "cancel",
            Regime::Positive => "positive",
            Regime::Worst => "near-worst",
            Regime::Work => "work",
            Regime::WorkSame => "work-same",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Regime::Same => "same",
            Regime::Random => "random",
            Regime::Cancel => "cancel",
            Regime::Positive => "x > 0",
            Regime::Worst => "near-worst",
            Regime::Work => "work",
            Regime::WorkSame => "work, one sign",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Add,
    Acc,
    Mul,
    Fma,
    Div,
    Sqrt,
}

/// A bound of the seed, checked on the regimes it holds for.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Bound {
    /// Relative (over |exact|) or absolute (over |x| + |y|, |x·y| + |z| for fma), in u².
    pub absolute: bool,
    pub value: f64,
    /// "proven" or "derived".
    pub status: &'static str,
    /// The regimes it is claimed for.
    #[serde(skip)]
    pub regimes: &'static [Regime],
}

/// One operation at one accuracy level: its kernel, the regimes measured, the seed's bounds and figures.
pub struct Op {
    pub name: &'static str,
    pub level: &'static str,
    pub kernel: &'static str,
    pub kind: Kind,
    pub regimes: &'static [Regime],
    pub bounds: &'static [Bound],
    /// The seed's measured maxima (relative, u²) per regime, in `regimes` order; `None`: "unbounded" or
    /// not given.
    pub seed_rel: &'static [Option<f64>],
    /// The seed's measured absolute maximum (any regime), where it gives one.
    pub seed_abs: Option<f64>,
    /// The seed's main-table figure (device working range, or host per regime, the larger).
    pub seed_main: Option<f64>,
}

use Regime::*;
/// [JMP17] Thm 3.1: 3u²/(1 − 4u) with u = 2⁻²⁴ (< 3u² + 13u³), in u².
pub const HIGH_ADD_BOUND: f64 = 3.0 / (1.0 - 4.0 / 16_777_216.0);
/// Additions and fma with a bound stated without cancellation only: the seed's three regimes, then the
/// working range with one sign and with random signs.
const SRC: &[Regime] = &[Same, Random, Cancel, WorkSame, Work];
const SAME: &[Regime] = &[Same, WorkSame];
const ALL3: &[Regime] = &[Same, Random, Cancel, WorkSame, Work];
const HIGH: &[Regime] = &[Same, Random, Cancel, Work];
/// Multiplication and division: the working range first (the seed's main-table figures), then random
/// signs with log-uniform magnitudes.
const RANDOM: &[Regime] = &[Work, Random];
const ACC_ALL: &[Regime] = &[Same, Random, Cancel, Worst, Work];

pub const OPS: &[Op] = &[
    Op {
        name: "x + y",
        level: "low",
        kernel: "dw_add_low",
        kind: Kind::Add,
        regimes: SRC,
        bounds: &[
            Bound {
                absolute: true,
                value: 4.0,
                status: "proven (Dekker)",
                regimes: ALL3,
            },
            Bound {
                absolute: false,
                value: 3.0,
                status: "derived",
                regimes: SAME,
            },
        ],
        seed_rel: &[Some(2.4), None, None, Some(2.4), None],
        seed_abs: Some(2.5),
        seed_main: Some(2.4),
    },
    Op {
        name: "x + y",
        level: "mid",
        kernel: "dw_add_mid",
        kind: Kind::Add,
        regimes: SRC,
        bounds: &[
            Bound {
                absolute: true,
                value: 4.0,
                status: "proven (Dekker)",
                regimes: ALL3,
            },
            Bound {
                absolute: false,
                value: 3.0,
                status: "derived",
                regimes: SAME,
            },
        ],
        seed_rel: &[Some(2.4), None, None, Some(2.4), None],
        seed_abs: Some(2.5),
        seed_main: Some(2.4),
    },
    Op {
        name: "x + y",
        level: "high",
        kernel: "dw_add_high",
        kind: Kind::Add,
        regimes: HIGH,
        bounds: &[Bound {
            absolute: false,
            value: HIGH_ADD_BOUND,
            status: "proven",
            regimes: HIGH,
        }],
        seed_rel: &[Some(1.9), Some(2.5), Some(2.4), Some(2.8)],
        seed_abs: Some(1.9),
        seed_main: Some(2.8),
    },
    Op {
        name: "x += c",
        level: "all",
        kernel: "dw_acc",
        kind: Kind::Acc,
        regimes: ACC_ALL,
        bounds: &[Bound {
            absolute: false,
            value: 2.0,
            status: "proven",
            regimes: ACC_ALL,
        }],
        seed_rel: &[Some(1.0), Some(2.0), Some(2.0), None, Some(2.0)],
        seed_abs: Some(1.0),
        seed_main: Some(2.0),
    },
    Op {
        name: "x * y",
        level: "low",
        kernel: "dw_mul_low",
        kind: Kind::Mul,
        regimes: RANDOM,
        bounds: &[Bound {
            absolute: false,
            value: 6.0,
            status: "derived",
            regimes: RANDOM,
        }],
        seed_rel: &[Some(3.5), Some(3.5)],
        seed_abs: None,
        seed_main: Some(3.5),
    },
    Op {
        name: "x * y",
        level: "mid/high",
        kernel: "dw_mul_high",
        kind: Kind::Mul,
        regimes: RANDOM,
        bounds: &[Bound {
            absolute: false,
            value: 5.0,
            status: "proven",
            regimes: RANDOM,
        }],
        seed_rel: &[Some(4.8), Some(4.8)],
        seed_abs: None,
        seed_main: Some(4.8),
    },
    Op {
        name: "fma(x, y, z)",
        level: "low",
        kernel: "dw_fma_low",
        kind: Kind::Fma,
        regimes: SRC,
        bounds: &[
            Bound {
                absolute: true,
                value: 15.0,
                status: "derived",
                regimes: ALL3,
            },
            Bound {
                absolute: false,
                value: 15.0,
                status: "derived",
                regimes: SAME,
            },
        ],
        seed_rel: &[Some(4.8), None, None, Some(5.0), None],
        seed_abs: Some(4.8),
        seed_main: Some(5.0),
    },
    Op {
        name: "fma(x, y, z)",
        level: "mid",
        kernel: "dw_fma_mid",
        kind: Kind::Fma,
        regimes: SRC,
        bounds: &[
            Bound {
                absolute: true,
                value: 15.0,
                status: "derived",
                regimes: ALL3,
            },
            Bound {
                absolute: false,
                value: 15.0,
                status: "derived",
                regimes: SAME,
            },
        ],
        seed_rel: &[Some(4.8), None, None, Some(5.0), None],
        seed_abs: Some(4.8),
        seed_main: Some(5.0),
    },
    Op {
        name: "fma(x, y, z)",
        level: "high",
        kernel: "dw_fma_high",
        kind: Kind::Fma,
        regimes: SRC,
        bounds: &[
            Bound {
                absolute: true,
                value: 6.0,
                status: "derived",
                regimes: ALL3,
            },
            Bound {
                absolute: false,
                value: 6.0,
                status: "derived",
                regimes: SAME,
            },
        ],
        seed_rel: &[Some(2.9), None, None, Some(3.0), None],
        seed_abs: Some(2.9),
        seed_main: Some(3.0),
    },
    Op {
        name: "x / y",
        level: "low",
        kernel: "dw_div_low",
        kind: Kind::Div,
        regimes: RANDOM,
        bounds: &[],
        seed_rel: &[Some(14.1), Some(14.1)],
        seed_abs: None,
        seed_main: Some(14.1),
    },
    Op {
        name: "x / y",
        level: "mid/high",
        kernel: "dw_div_high",
        kind: Kind::Div,
        regimes: RANDOM,
        bounds: &[],
        seed_rel: &[Some(7.1), Some(7.1)],
        seed_abs: None,
        seed_main: Some(7.1),
    },
    Op {
        name: "sqrt(x)",
        level: "mid",
        kernel: "dw_sqrt_mid",
        kind: Kind::Sqrt,
        regimes: &[Work, Positive],
        bounds: &[],
        seed_rel: &[Some(9.5), Some(9.5)],
        seed_abs: None,
        seed_main: Some(9.5),
    },
];

/// Magnitudes of the high limbs: 2^t, t uniform in [−EXP_SPAN, EXP_SPAN].
pub const EXP_SPAN: u32 = 8;

/// A normalized pair with a random high limb (log-uniform magnitude in [2^−EXP_SPAN, 2^EXP_SPAN]) of the given sign (`None`: random).
fn random_pair(r: &mut Rng, negative: Option<bool>) -> (f32, f32) {
    let sign = match negative {
        Some(n) => (n as u32) << 31,
        None => r.u32() & 0x8000_0000,
    };
    // |hi| = 2^t, t uniform in [−EXP_SPAN, EXP_SPAN] (log-uniform magnitudes: significands near 1, where
    // the pair's relative precision is lowest, are as likely as in real data spanning many binades).
    let t = (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let m = 2.0f64.powf((2.0 * t - 1.0) * EXP_SPAN as f64) as f32;
    let hi = f32::from_bits(sign | m.to_bits());
    let e = ((hi.to_bits() >> 23 & 0xff) as i32) - 127;
    let lo = low_limb(r, e);
    let s = hi + lo;
    (s, lo - (s - hi))
}

/// A low limb for a high limb of exponent `e`: uniform over [−ulp(hi)/2, ulp(hi)/2] = [−2^(e−24), 2^(e−24)]
/// as a real number (53 random bits, then rounded to a float), so that it carries a full 24-bit significand
/// in every binade (an integer / 2^23 grid would leave its last bits 0, and many operations exact).
fn low_limb(r: &mut Rng, e: i32) -> f32 {
    let t = (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let m = (t * 2f64.powi(e - 24)) as f32;
    if r.u32() & 1 == 0 {
        m
    } else {
        -m
    }
}

fn neg_f(x: f32) -> bool {
    x.is_sign_negative()
}

/// −v·(1 ± 2⁻ᵏ·(1 + ρ)), k uniform in [1, 48], ρ uniform in [0, 1) (24 random bits, so that the
/// difference carries random bits and is not a scaled copy of v), as a pair.
fn cancel_of(r: &mut Rng, v: Q) -> (f32, f32) {
    let k = 1 + r.below(48) as i32;
    let rho = 1.0 + r.signed_unit().abs();
    let t = Q::f(rho).mul(Q::f(f32::from_bits(((127 - k) as u32) << 23)));
    let t = if r.u32() & 1 == 0 { t } else { t.neg() };
    v.add(v.mul(t)).neg().split()
}

/// The half-width of the seed harness's working range for `kind` (its `work_beg`/`work_end`: ±10¹⁶ for
/// add, sub, acc, mul, div; ±10⁸ for fma; [0, 10³²] for sqrt).
fn work_range(kind: Kind) -> f64 {
    match kind {
        Kind::Fma => 1e8,
        Kind::Sqrt => 1e32,
        _ => 1e16,
    }
}

/// A double uniform in [0, w) (53 random bits), negated when `negative`.
fn work_value(r: &mut Rng, w: f64, negative: bool) -> f64 {
    let t = (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    if negative {
        -(t * w)
    } else {
        t * w
    }
}

/// The harness's conversion of a double to a pair: hi = RN(d), lo = RN(d − hi) (d − hi is exact in f64).
fn split_f64(d: f64) -> (f32, f32) {
    let h = d as f32;
    (h, (d - h as f64) as f32)
}

/// Operands of the working-range regimes (D079): uniform over [−w, w] (random signs; `one_sign`: x and y
/// of one sign, x·y and z for fma), [0, w] for the root.
fn work_operand(kind: Kind, r: &mut Rng, one_sign: bool) -> [f32; 8] {
    let w = work_range(kind);
    let coin = |r: &mut Rng| r.u32() & 1 == 1;
    let sx = kind != Kind::Sqrt && coin(r);
    let x = split_f64(work_value(r, w, sx));
    let sy = if one_sign && kind != Kind::Fma {
        sx
    } else {
        coin(r)
    };
    let y = split_f64(work_value(r, w, sy));
    let sz = if one_sign { sx != sy } else { coin(r) };
    let z = split_f64(work_value(r, w, sz));
    match kind {
        Kind::Sqrt => [x.0, x.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        // The harness zeroes the accumulated operand's low limb: c = RN(d).
        Kind::Acc => [x.0, x.1, 0.0, 0.0, 0.0, 0.0, y.0, 0.0],
        Kind::Fma => [x.0, x.1, y.0, y.1, z.0, z.1, 0.0, 0.0],
        _ => [x.0, x.1, y.0, y.1, 0.0, 0.0, 0.0, 0.0],
    }
}

/// The eight input floats of one item: xh, xl, yh, yl, zh, zl, c, 0.
fn operand(kind: Kind, regime: Regime, r: &mut Rng) -> [f32; 8] {
    if matches!(regime, Work | WorkSame) {
        return work_operand(kind, r, regime == WorkSame);
    }
    let x = random_pair(
        r,
        if regime == Positive {
            Some(false)
        } else {
            None
        },
    );
    let mut v = [x.0, x.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    match kind {
        Kind::Add => {
            let y = match regime {
                Same => random_pair(r, Some(neg_f(x.0))),
                Cancel => cancel_of(r, pair(x.0, x.1)),
                _ => random_pair(r, None),
            };
            v[2] = y.0;
            v[3] = y.1;
        }
        Kind::Acc if regime == Worst => {
            let k = r.below(17) as i32 - 8;
            let sign = r.u32() & 0x8000_0000;
            let p = |e: i32| f32::from_bits(((127 + e) as u32) << 23);
            let hi = f32::from_bits(sign | p(k).to_bits() | (r.u32() & 0x7fff));
            let lo = low_limb(r, k);
            let (h, l) = (hi + lo, lo - ((hi + lo) - hi));
            v[0] = h;
            v[1] = l;
            // c = −sign · (2^(k−1) − a few thousand ulps): just below xh / 2 in magnitude.
            v[6] = f32::from_bits(
                (sign ^ 0x8000_0000) | (p(k - 1).to_bits() - 1 - (r.u32() & 0xffff)),
            );
        }
        Kind::Acc => {
            v[6] = match regime {
                Same => random_pair(r, Some(neg_f(x.0))).0,
                Cancel => cancel_of(r, Q::f(x.0)).0,
                _ => random_pair(r, None).0,
            };
        }
        Kind::Mul | Kind::Div => {
            let y = random_pair(r, None);
            v[2] = y.0;
            v[3] = y.1;
        }
        Kind::Fma => {
            let y = random_pair(r, None);
            v[2] = y.0;
            v[3] = y.1;
            let p = pair(x.0, x.1).mul(pair(y.0, y.1));
            let z = match regime {
                Same => random_pair(r, Some(neg_f(x.0) != neg_f(y.0))),
                Cancel => cancel_of(r, p),
                _ => random_pair(r, None),
            };
            v[4] = z.0;
            v[5] = z.1;
        }
        Kind::Sqrt => {}
    }
    v
}

/// The exact result (rounded to binary128) and the scale of the absolute error.
fn exact(kind: Kind, v: &[f32; 8]) -> (Q, Q) {
    let x = pair(v[0], v[1]);
    let y = pair(v[2], v[3]);
    let z = pair(v[4], v[5]);
    match kind {
        Kind::Add => (x.add(y), x.abs().add(y.abs())),
        Kind::Acc => {
            let c = Q::f(v[6]);
            (x.add(c), x.abs().add(c.abs()))
        }
        Kind::Mul => {
            let p = x.mul(y);
            (p, p.abs())
        }
        Kind::Fma => (x.fma(y, z), x.mul(y).abs().add(z.abs())),
        Kind::Div => {
            let q = x.div(y);
            (q, q.abs())
        }
        Kind::Sqrt => {
            let s = x.sqrt();
            (s, s.abs())
        }
    }
}

/// Histogram bins of the relative error: 0.05 u² wide up to [`HIST_MAX`] u², one overflow bin.
pub const HIST_STEP: f64 = 0.05;
pub const HIST_MAX: f64 = 16.0;

/// One cell: an operation, a level, a regime.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub op: String,
    pub level: String,
    pub kernel: String,
    pub regime: Regime,
    pub operands: usize,
    pub host_vs_device: Option<usize>,
    /// Largest relative error, u² (`inf`-free: results with an exact value of 0 are counted apart).
    pub max_rel: f64,
    /// Operands of the largest relative error: xh, xl, yh, yl, zh, zl, c (bits).
    pub max_rel_operands: [u32; 7],
    pub max_abs: f64,
    pub mean_rel: f64,
    /// Exact result 0 and computed result not 0.
    pub zero_exact_nonzero: usize,
    /// Bounds checked here: (relative/absolute, bound, status, holds).
    pub bounds: Vec<BoundCheck>,
    pub seed_rel: Option<f64>,
    pub seed_abs: Option<f64>,
    pub seed_main: Option<f64>,
    /// Counts of the relative error in bins of [`HIST_STEP`] u² (last bin: everything above [`HIST_MAX`]).
    pub histogram: Vec<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BoundCheck {
    pub absolute: bool,
    pub bound: f64,
    pub status: String,
    pub measured: f64,
    pub holds: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub operands_per_cell: usize,
    pub seed: u64,
    pub device: Option<String>,
    pub cells: Vec<Cell>,
    pub seconds: f64,
}

impl Report {
    /// 0 host-vs-device differences and every bound holds.
    pub fn passed(&self) -> bool {
        self.cells.iter().all(|c| {
            c.host_vs_device.unwrap_or(0) == 0
                && c.zero_exact_nonzero == 0
                && c.bounds.iter().all(|b| b.holds)
        })
    }

    pub fn table(&self) -> String {
        let mut s = format!(
            "{} operands per cell (seed {:#x}); relative errors in u² = 2⁻⁴⁸ against binary128; device: {}\n\n",
            self.operands_per_cell,
            self.seed,
            self.device.as_deref().unwrap_or("none (host evaluator only)")
        );
        s += "| operation | level | regime | host vs device | max rel | seed rel | max abs | seed abs | bounds (measured ≤ bound) |\n";
        s += "|---|---|---|---:|---:|---:|---:|---:|---|\n";
        let f = |x: Option<f64>| x.map(|v| format!("{v:.1}")).unwrap_or_else(|| "—".into());
        for c in &self.cells {
            let b: Vec<String> = c
                .bounds
                .iter()
                .map(|b| {
                    format!(
                        "{} {:.2} ≤ {} ({}): {}",
                        if b.absolute { "abs" } else { "rel" },
                        b.measured,
                        b.bound,
                        b.status,
                        if b.holds { "holds" } else { "VIOLATED" }
                    )
                })
                .collect();
            let rel = if c.max_rel > 1e3 {
                format!("{:.3e}", c.max_rel)
            } else {
                format!("{:.3}", c.max_rel)
            };
            let seed_rel = match (c.seed_rel, c.regime) {
                (None, Random | Cancel | Work) => "unbounded".into(),
                (x, _) => f(x),
            };
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {:.3} | {} | {} |\n",
                c.op,
                c.level,
                c.regime.name(),
                c.host_vs_device
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "—".into()),
                rel,
                seed_rel,
                c.max_abs,
                f(c.seed_abs),
                b.join("; ")
            );
        }
        s
    }
}

const CHUNK: usize = 1 << 17;
const WG: u32 = 256;

/// Runs every operation of `ops` over `n` operands per regime.
pub fn run(
    kernels: &Path,
    ops: &[&Op],
    n: usize,
    seed: u64,
    backends: &Backends,
    quiet: bool,
) -> Result<Report> {
    run_regimes(kernels, ops, n, seed, backends, quiet, usize::MAX)
}

/// [`run`] over the first `regimes` regimes of each operation only (the first is the one its relative
/// bound is stated for).
pub fn run_regimes(
    kernels: &Path,
    ops: &[&Op],
    n: usize,
    seed: u64,
    backends: &Backends,
    quiet: bool,
    regimes: usize,
) -> Result<Report> {
    run_selected(kernels, ops, n, seed, backends, quiet, &|i, _| i < regimes)
}

/// [`run`] over the regimes `keep(index, regime)` selects. The operand stream of a cell depends on the
/// seed, the operation's position in `ops` and the regime's position in the operation's list, so leaving
/// regimes out does not change the other cells' operands (leaving operations out does).
pub fn run_selected(
    kernels: &Path,
    ops: &[&Op],
    n: usize,
    seed: u64,
    backends: &Backends,
    quiet: bool,
    keep: &dyn Fn(usize, Regime) -> bool,
) -> Result<Report> {
    let t0 = std::time::Instant::now();
    let co = kernels.join("dw_fp32mp2.co");
    let total: usize = ops
        .iter()
        .map(|o| {
            o.regimes
                .iter()
                .enumerate()
                .filter(|&(i, &g)| keep(i, g))
                .count()
                * n
        })
        .sum();
    let pb = progress(total as u64, "double-word", quiet);
    let mut cells = Vec::new();
    for (oi, op) in ops.iter().enumerate() {
        for (ri, &regime) in op.regimes.iter().enumerate() {
            if !keep(ri, regime) {
                continue;
            }
            pb.set_message(format!("{} {} {}", op.name, op.level, regime.name()));
            let mut r = Rng::new(seed ^ (oi as u64) << 40 ^ (ri as u64) << 32);
            let mut cell = Cell {
                op: op.name.into(),
                level: op.level.into(),
                kernel: op.kernel.into(),
                regime,
                operands: n,
                host_vs_device: backends.device.as_ref().map(|_| 0),
                max_rel: 0.0,
                max_rel_operands: [0; 7],
                max_abs: 0.0,
                mean_rel: 0.0,
                zero_exact_nonzero: 0,
                bounds: Vec::new(),
                seed_rel: op.seed_rel.get(ri).copied().flatten(),
                seed_abs: op.seed_abs,
                seed_main: op.seed_main,
                histogram: vec![0; (HIST_MAX / HIST_STEP) as usize + 1],
            };
            let mut sum = 0.0;
            let mut done = 0;
            while done < n {
                let m = CHUNK.min(n - done);
                let padded = m.div_ceil(WG as usize) * WG as usize;
                let mut inputs: Vec<[f32; 8]> =
                    (0..m).map(|_| operand(op.kind, regime, &mut r)).collect();
                inputs.resize(padded, [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
                let inbuf: Vec<u32> = inputs.iter().flatten().map(|x| x.to_bits()).collect();
                let bufs = vec![bytes(&inbuf), vec![0u8; 8 * padded]];
                let run = run_chunk(&co, op.kernel, padded as u32, WG, &bufs, backends)?;
                let h = words(&run.host[1]);
                if let Some(d) = &run.device {
                    let d = words(&d[1]);
                    *cell.host_vs_device.as_mut().unwrap() +=
                        (0..2 * m).filter(|&i| h[i] != d[i]).count();
                }
                for (i, v) in inputs.iter().take(m).enumerate() {
                    let (e, scale) = exact(op.kind, v);
                    let got = pair(f32::from_bits(h[2 * i]), f32::from_bits(h[2 * i + 1]));
                    let err = got.sub(e).abs();
                    let abs = err.div(scale).to_f64() / U2;
                    let rel = if e.is_zero() {
                        if !err.is_zero() {
                            cell.zero_exact_nonzero += 1;
                        }
                        0.0
                    } else {
                        err.div(e.abs()).to_f64() / U2
                    };
                    if rel > cell.max_rel || rel.is_nan() {
                        cell.max_rel = rel;
                        for (dst, x) in cell.max_rel_operands.iter_mut().zip(&v[..7]) {
                            *dst = x.to_bits();
                        }
                    }
                    cell.max_abs = cell.max_abs.max(abs);
                    sum += rel;
                    let bin = ((rel / HIST_STEP) as usize).min(cell.histogram.len() - 1);
                    cell.histogram[bin] += 1;
                }
                done += m;
                pb.inc(m as u64);
            }
            cell.mean_rel = sum / n as f64;
            for b in op.bounds.iter().filter(|b| b.regimes.contains(&regime)) {
                let measured = if b.absolute {
                    cell.max_abs
                } else {
                    cell.max_rel
                };
                cell.bounds.push(BoundCheck {
                    absolute: b.absolute,
                    bound: b.value,
                    status: b.status.into(),
                    measured,
                    holds: measured <= b.value,
                });
            }
            cells.push(cell);
        }
    }
    pb.finish_and_clear();
    Ok(Report {
        operands_per_cell: n,
        seed,
        device: backends.device.as_ref().map(|(c, _)| c.info().name.clone()),
        cells,
        seconds: t0.elapsed().as_secs_f64(),
    })
}
