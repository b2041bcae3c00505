//! `cargo xtask fixtures --inputs`: the input buffers of the run manifests in `fixtures/run/`, generated
//! deterministically (a fixed-seed SplitMix64 per file, plus boundary values placed first): ±0, subnormals,
//! ±inf, NaN where the kernel's semantics make them meaningful, large and small magnitudes, and operands where
//! a fused and an unfused multiply-add differ (D993: a = b = 1 + 2^-12, c = -(1 + 2^-11)).
//!
//! Every file is `fixtures/run/<manifest stem>.<argument>.bin`, little-endian elements. The sizes here must
//! match the grids in the manifests; `tests/fixtures_run.rs` runs them.

use anyhow::{bail, Context, Result};
use std::path::Path;

/// SplitMix64: small, fixed, and the same on every platform.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A float with a random sign, mantissa and a biased exponent in `lo..=hi`.
    fn f32_exp(&mut self, lo: u32, hi: u32) -> f32 {
        let sign = (self.next() as u32) & 0x8000_0000;
        let exp = lo + self.below((hi - lo + 1) as u64) as u32;
        let mant = (self.next() as u32) & 0x7f_ffff;
        f32::from_bits(sign | exp << 23 | mant)
    }
    /// Uniform in [lo, hi).
    fn f32_range(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
    fn f16_exp(&mut self, lo: u16, hi: u16) -> u16 {
        let sign = (self.next() as u16) & 0x8000;
        let exp = lo + self.below((hi - lo + 1) as u64) as u16;
        let mant = (self.next() as u16) & 0x3ff;
        sign | exp << 10 | mant
    }
}

const F32_SPECIALS: &[u32] = &[
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x0000_0001, // smallest subnormal
    0x8000_0001,
    0x007f_ffff, // largest subnormal
    0x0080_0000, // smallest normal
    0x7f7f_ffff, // largest finite
    0xff7f_ffff,
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0000, // quiet NaN
    0xffc0_1234, // negative quiet NaN with a payload
    0x7f80_0001, // signalling NaN
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f80_0800, // 1 + 2^-12 (D993)
    0xbf80_1000, // -(1 + 2^-11) (D993)
    0x3eff_ffff, // just below 0.5
    0x3f00_0000, // 0.5
];

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn u16s(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `n` floats: the specials first, then a mix of magnitudes: mostly moderate, some wide, some subnormal.
fn mixed_f32(rng: &mut Rng, n: usize, specials: &[u32]) -> Vec<f32> {
    let mut v: Vec<f32> = specials.iter().map(|&b| f32::from_bits(b)).collect();
    v.truncate(n);
    while v.len() < n {
        let x = match rng.below(16) {
            0 => f32::from_bits((rng.next() as u32) & 0x807f_ffff), // subnormal
            1 | 2 => rng.f32_exp(1, 254),                           // any finite magnitude
            3 => rng.f32_exp(100, 154),                             // 2^-27 .. 2^27
            _ => rng.f32_range(-4.0, 4.0),
        };
        v.push(x);
    }
    v
}

/// One input file.
struct Input {
    name: &'static str,
    bytes: Vec<u8>,
}

fn saxpy(seed: u64, n: usize) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    let mut x = mixed_f32(&mut rng, n, F32_SPECIALS);
    let mut y = mixed_f32(&mut rng, n, &[]);
    // Every special of x against every special of y, and the D993 triple (the manifest's a is 1 + 2^-12 for
    // `saxpy`): fused 2^-24, unfused 0.
    let k = F32_SPECIALS.len();
    for (i, &b) in F32_SPECIALS.iter().enumerate() {
        for (j, &c) in F32_SPECIALS.iter().enumerate() {
            let at = k + i * k + j;
            if at < n {
                x[at] = f32::from_bits(b);
                y[at] = f32::from_bits(c);
            }
        }
    }
    let at = k + k * k;
    for d in 0..8 {
        x[at + d] = f32::from_bits(0x3f80_0800 + d as u32);
        y[at + d] = f32::from_bits(0xbf80_1000 + d as u32);
    }
    vec![
        Input {
            name: "x",
            bytes: f32s(&x),
        },
        Input {
            name: "y",
            bytes: f32s(&y),
        },
    ]
}

fn divergent(seed: u64, n: usize) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    let mut v = mixed_f32(&mut rng, n, F32_SPECIALS);
    // Mostly values below 0.5 (the lane-dependent loop), with |v| <= 1 so the loop's values stay moderate.
    for x in v.iter_mut().skip(F32_SPECIALS.len()) {
        if rng.below(4) != 0 {
            *x = rng.f32_range(-1.0, 0.5);
        }
    }
    vec![Input {
        name: "in",
        bytes: f32s(&v),
    }]
}

/// Workgroup-sized blocks (`WG` in reduce.cl) with a theme each, so the reduction's special cases each get a
/// workgroup.
fn reduce(seed: u64, groups: usize) -> Vec<Input> {
    const WG: usize = 128;
    let mut rng = Rng::new(seed);
    let mut v = Vec::with_capacity(groups * WG);
    for g in 0..groups {
        let mut block: Vec<f32> = (0..WG).map(|_| rng.f32_range(-1000.0, 1000.0)).collect();
        let at = rng.below(WG as u64) as usize;
        match g {
            0 => {}
            1 => block[at] = f32::INFINITY,
            2 => {
                block[at] = f32::INFINITY;
                block[(at + 17) % WG] = f32::NEG_INFINITY; // inf + -inf: NaN
            }
            3 => block[at] = f32::from_bits(0x7fc0_0000),
            4 => block.iter_mut().for_each(|x| *x = -0.0), // -0 + -0: -0
            5 => block
                .iter_mut()
                .for_each(|x| *x = f32::from_bits(0x8000_0000)),
            6 => block
                .iter_mut()
                .for_each(|x| *x = f32::from_bits((rng.next() as u32) & 0x807f_ffff)), // subnormals
            7 => block.iter_mut().for_each(|x| *x = 3.0e38), // overflows to inf
            8 => {
                // Cancellation: a large value and its negation, small terms in between.
                block
                    .iter_mut()
                    .for_each(|x| *x = rng.f32_range(-1e-3, 1e-3));
                block[0] = 1.0e8;
                block[WG / 2 + 3] = -1.0e8;
            }
            9 => block.iter_mut().for_each(|x| *x = rng.f32_exp(1, 254)), // any magnitude
            10 => block
                .iter_mut()
                .for_each(|x| *x = 1.0 + (rng.below(1 << 10) as f32) * 2f32.powi(-23)),
            _ => {
                if g % 3 == 0 {
                    block.iter_mut().for_each(|x| *x = rng.f32_exp(100, 154));
                }
            }
        }
        v.extend(block);
    }
    vec![Input {
        name: "in",
        bytes: f32s(&v),
    }]
}

fn atomics(seed: u64, n: usize) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    let v: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    vec![Input {
        name: "in",
        bytes: u32s(&v),
    }]
}

fn scratch(seed: u64, n: usize) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    // idx[i] and idx[i + 1] are read: n + 1 entries; the kernel reduces them modulo 48.
    let v: Vec<u32> = (0..n + 1)
        .map(|i| match i % 4 {
            0 => rng.next() as u32,
            _ => rng.below(48) as u32,
        })
        .collect();
    vec![Input {
        name: "idx",
        bytes: u32s(&v),
    }]
}

fn divsqrt(seed: u64, n: usize) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    let k = F32_SPECIALS.len();
    let mut x = mixed_f32(&mut rng, n, &[]);
    let mut y = mixed_f32(&mut rng, n, &[]);
    // Every special against every special, then quotients that overflow, underflow or land near subnormals,
    // then positive x (so sqrt is a number) over the whole exponent range.
    for (i, &b) in F32_SPECIALS.iter().enumerate() {
        for (j, &c) in F32_SPECIALS.iter().enumerate() {
            x[i * k + j] = f32::from_bits(b);
            y[i * k + j] = f32::from_bits(c);
        }
    }
    let mut at = k * k;
    for _ in 0..64 {
        x[at] = rng.f32_exp(200, 254);
        y[at] = rng.f32_exp(1, 40);
        x[at + 1] = rng.f32_exp(1, 40);
        y[at + 1] = rng.f32_exp(200, 254);
        x[at + 2] = f32::from_bits((rng.next() as u32) & 0x007f_ffff);
        y[at + 2] = rng.f32_exp(120, 135);
        x[at + 3] = rng.f32_exp(1, 254).abs();
        y[at + 3] = f32::from_bits((rng.next() as u32) & 0x807f_ffff);
        at += 4;
    }
    for v in x.iter_mut().skip(at) {
        *v = v.abs();
    }
    vec![
        Input {
            name: "x",
            bytes: f32s(&x),
        },
        Input {
            name: "y",
            bytes: f32s(&y),
        },
    ]
}

const F16_SPECIALS: &[u16] = &[
    0x0000, 0x8000, // ±0
    0x0001, 0x8001, 0x03ff, // subnormals
    0x0400, // smallest normal
    0x7bff, 0xfbff, // largest finite
    0x7c00, 0xfc00, // ±inf
    0x7e00, 0xfe01, 0x7c01, // NaNs (quiet, payload, signalling)
    0x3c00, 0xbc00, // ±1
    0x3c01, // 1 + 2^-10
    0xbbff, // -(1 - 2^-11)
    0x3555, // ~1/3 (the manifest's a)
];

fn mixed_f16(rng: &mut Rng, n: usize, specials: &[u16]) -> Vec<u16> {
    let mut v: Vec<u16> = specials.to_vec();
    v.truncate(n);
    while v.len() < n {
        let x = match rng.below(8) {
            0 => (rng.next() as u16) & 0x83ff, // subnormal
            1 => rng.f16_exp(1, 30),           // any finite
            _ => rng.f16_exp(11, 17),          // 2^-4 .. 4
        };
        v.push(x);
    }
    v
}

fn half(seed: u64, n: usize) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    let x = mixed_f16(&mut rng, n, F16_SPECIALS);
    let y = mixed_f16(&mut rng, n, &[]);
    let mut p = mixed_f16(&mut rng, 2 * n, &[]);
    let mut q = mixed_f16(&mut rng, 2 * n, F16_SPECIALS);
    // p*q + (1, 2) where fusing matters: (1+2^-10) * -(1-2^-11) + 1 and (1+2^-10) * -(2-2^-10) + 2.
    for d in 0..8 {
        p[2 * d] = 0x3c01;
        q[2 * d] = 0xbbff - d as u16;
        p[2 * d + 1] = 0x3c01 + d as u16;
        q[2 * d + 1] = 0xbfff;
    }
    let f = mixed_f32(&mut rng, n, F32_SPECIALS);
    vec![
        Input {
            name: "x",
            bytes: u16s(&x),
        },
        Input {
            name: "y",
            bytes: u16s(&y),
        },
        Input {
            name: "p",
            bytes: u16s(&p),
        },
        Input {
            name: "q",
            bytes: u16s(&q),
        },
        Input {
            name: "f",
            bytes: f32s(&f),
        },
    ]
}

fn multi(seed: u64, n: usize) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    let p = mixed_f32(&mut rng, n, F32_SPECIALS);
    let q = mixed_f32(&mut rng, n, &[]);
    vec![
        Input {
            name: "p",
            bytes: f32s(&p),
        },
        Input {
            name: "q",
            bytes: f32s(&q),
        },
    ]
}

fn f64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// x / y, sqrt(x), 1/sqrt(y) in f64 (decision D067): every special against every special, exponent
/// differences at the v_div_scale_f64 thresholds (±768, −1022, −1075), huge and subnormal divisors, exact
/// quotients, then random finite values over the whole exponent range (half of them positive, so the
/// roots are numbers).
fn divsqrt64(seed: u64, n: usize) -> Vec<Input> {
    const SPECIALS: &[u64] = &[
        0,
        1 << 63,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0xbff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x7fe0_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
    ];
    let mut rng = Rng::new(seed);
    let man = |rng: &mut Rng| rng.next() & ((1 << 52) - 1);
    let mut x = Vec::with_capacity(n);
    let mut y = Vec::with_capacity(n);
    for &a in SPECIALS {
        for &b in SPECIALS {
            x.push(a);
            y.push(b);
        }
    }
    for d in [768i64, 767, 769, -1022, -1021, -1023, -1075, -1074, -1076] {
        for _ in 0..8 {
            let ed = if d > 0 {
                1 + rng.below(2046 - d as u64) as i64
            } else {
                -d + 1 + rng.below((2046 + d) as u64) as i64
            };
            x.push(man(&mut rng) | ((ed + d) as u64) << 52);
            y.push(man(&mut rng) | (ed as u64) << 52 | (rng.next() & 1) << 63);
        }
    }
    for _ in 0..32 {
        x.push(man(&mut rng) | (1 + rng.below(2046)) << 52);
        y.push(man(&mut rng) | (2045 + rng.below(2)) << 52);
        x.push(man(&mut rng) | (1 + rng.below(2046)) << 52);
        y.push(man(&mut rng));
        let d = (1 + rng.below(1000)) as f64 * 2f64.powi(rng.below(200) as i32 - 100);
        let q = (1 + rng.below(1000)) as f64;
        x.push((d * q).to_bits());
        y.push(d.to_bits());
    }
    while x.len() < n {
        let sign = if x.len() % 2 == 0 { 0 } else { 1 << 63 };
        x.push(man(&mut rng) | rng.below(2047) << 52 | sign);
        y.push(man(&mut rng) | rng.below(2047) << 52 | (rng.next() & 1) << 63);
    }
    x.truncate(n);
    y.truncate(n);
    vec![
        Input {
            name: "x",
            bytes: f64s(&x),
        },
        Input {
            name: "y",
            bytes: f64s(&y),
        },
    ]
}

/// A CSR matrix of `rows` rows over as many columns (0 to 24 entries per row, some rows empty, a few
/// long ones), values and x mostly moderate with some specials, and y: the `spmv` manifest's buffers.
pub fn spmv(seed: u64, rows: usize) -> Vec<(&'static str, Vec<u8>)> {
    let mut rng = Rng::new(seed);
    let mut row_ptr = vec![0u32];
    let mut col = Vec::new();
    for _ in 0..rows {
        let len = match rng.below(10) {
            0 => 0,
            1 => 16 + rng.below(9),
            _ => 1 + rng.below(8),
        };
        for _ in 0..len {
            col.push(rng.below(rows as u64) as u32);
        }
        row_ptr.push(col.len() as u32);
    }
    let mut val: Vec<f32> = (0..col.len()).map(|_| rng.f32_range(-2.0, 2.0)).collect();
    for (i, &b) in F32_SPECIALS.iter().enumerate() {
        if let Some(v) = val.get_mut(40 * i + 7) {
            *v = f32::from_bits(b);
        }
    }
    let x = mixed_f32(&mut rng, rows, &[]);
    let y = mixed_f32(&mut rng, rows, &[]);
    vec![
        ("row_ptr", u32s(&row_ptr)),
        ("col", u32s(&col)),
        ("val", f32s(&val)),
        ("x", f32s(&x)),
        ("y", f32s(&y)),
    ]
}

/// (manifest stem, inputs). Element counts follow the manifests' grids.
fn all() -> Vec<(&'static str, Vec<Input>)> {
    vec![
        ("saxpy", saxpy(1, 1000)),
        ("saxpy_cov4", saxpy(2, 777)),
        ("divergent", divergent(3, 1000)),
        ("divergent_w64", divergent(4, 1000)),
        ("reduce", reduce(5, 40)),
        ("reduce_w64", reduce(6, 40)),
        ("atomics", atomics(7, 1000)),
        ("scratch", scratch(8, 500)),
        ("divsqrt", divsqrt(9, 1000)),
        ("divsqrt64", divsqrt64(12, 1024)),
        ("half", half(10, 1000)),
        ("multi", multi(11, 600)),
        (
            "spmv",
            spmv(13, 1000)
                .into_iter()
                .map(|(name, bytes)| Input { name, bytes })
                .collect(),
        ),
    ]
}

/// Writes every input into `run_dir` (or, with `check`, compares with what is there). Returns the file names.
pub fn write(run_dir: &Path, check: bool) -> Result<Vec<String>> {
    let mut names = Vec::new();
    let mut differing = Vec::new();
    for (stem, inputs) in all() {
        for input in inputs {
            let name = format!("{stem}.{}.bin", input.name);
            let path = run_dir.join(&name);
            if check {
                if std::fs::read(&path).ok().as_deref() != Some(&input.bytes[..]) {
                    differing.push(name.clone());
                }
            } else {
                std::fs::write(&path, &input.bytes)
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            names.push(name);
        }
    }
    if !differing.is_empty() {
        bail!(
            "{} input file(s) differ from a fresh generation: {}",
            differing.len(),
            differing.join(", ")
        );
    }
    Ok(names)
}
