//! References for rocRAND's Philox4x32-10 and MRG32k3a kernels (tests/rocrand_kernels.rs, decision D154) and
//! its XORWOW generator (tests/hip_rocrand.rs, decision D181), written from the published algorithms, never
//! from the code object under test:
//!
//! * Philox4x32-10: J. K. Salmon, M. A. Moraes, R. O. Dror, D. E. Shaw, "Parallel random numbers: as easy
//!   as 1, 2, 3", SC'11 (doi:10.1145/2063384.2063405), section 3 and Random123's `philox.h` constants; checked
//!   against Random123's known-answer vectors (`examples/kat_vectors`, the `philox4x32 10` lines).
//! * MRG32k3a: P. L'Ecuyer, "Good parameters and implementations for combined multiple recursive random
//!   number generators", Operations Research 47(1), 1999; the streams and substreams of P. L'Ecuyer,
//!   R. Simard, E. J. Chen, W. D. Kelton, "An object-oriented random-number package with many long streams
//!   and substreams", Operations Research 50(6), 2002 (RngStream). Jump matrices are computed here by modular
//!   matrix exponentiation and checked against RngStream.cpp's A1p76/A2p76/A1p127/A2p127 and against
//!   RngStream's published test output (umontreal-simul/RngStreams, tests/test2RngStream.res).
//! * XORWOW: G. Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8(14), 2003. Jumps are maps of GF(2)^160 built
//!   from the step function and squared here (rocRAND's precomputed tables are not used); checked by stepping
//!   and against the xorshift's period 2^160 − 1 (tests/rocrand_kernels.rs).
//!
//! rocRAND's mapping of an engine to the stream (what its seed, subsequence and offset mean, the layout of
//! its engine structs, the distributions) is taken from rocRAND 5.3.3's source (tag rocm-5.3.3:
//! library/include/rocrand/rocrand_philox4x32_10.h, rocrand_mrg32k3a.h, rocrand_xorwow.h, rocrand_uniform.h,
//! library/src/rng/philox4x32_10.hpp, mrg32k3a.hpp, xorwow.hpp, distribution/uniform.hpp).
#![allow(dead_code)]

// --- Philox4x32-10 -------------------------------------------------------------------------------------

/// The round multipliers and the Weyl key increments (SC'11 table 2; Random123 philox.h).
pub const PHILOX_M: [u32; 2] = [0xD251_1F53, 0xCD9E_8D57];
pub const PHILOX_W: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];

/// One Philox4x32 round: the two products' high halves are xored with the other words and the round key,
/// the words are permuted (SC'11 section 3.3, the S-box is a multiplication).
fn philox_round(c: [u32; 4], k: [u32; 2]) -> [u32; 4] {
    let p0 = u64::from(PHILOX_M[0]) * u64::from(c[0]);
    let p1 = u64::from(PHILOX_M[1]) * u64::from(c[2]);
    let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
    let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
    [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0]
}

/// Philox4x32 with `rounds` rounds: the key is bumped by the Weyl constants between rounds.
pub fn philox4x32(rounds: u32, mut c: [u32; 4], mut k: [u32; 2]) -> [u32; 4] {
    for r in 0..rounds {
        if r > 0 {
            k = [
                k[0].wrapping_add(PHILOX_W[0]),
                k[1].wrapping_add(PHILOX_W[1]),
            ];
        }
        c = philox_round(c, k);
    }
    c
}

pub fn philox4x32_10(c: [u32; 4], k: [u32; 2]) -> [u32; 4] {
    philox4x32(10, c, k)
}

/// rocRAND's Philox stream: number `i` (from 0) of the engine made with `(seed, subsequence, offset)` is
/// word `(offset + i) mod 4` of Philox4x32-10 at the 128-bit counter `subsequence * 2^64 + (offset + i) / 4`
/// (little-endian words) with key `(seed lo, seed hi)` — rocRAND: "a subsequence is 4 * 2^64 numbers long",
/// `offset` skips numbers; `discard_state` carries through all four words.
pub fn philox_stream(seed: u64, subsequence: u64, offset: u64, count: usize) -> Vec<u32> {
    let key = [seed as u32, (seed >> 32) as u32];
    (0..count as u128)
        .map(|i| {
            let pos = u128::from(offset) + i;
            let ctr = (u128::from(subsequence) << 64).wrapping_add(pos / 4);
            let c = [
                ctr as u32,
                (ctr >> 32) as u32,
                (ctr >> 64) as u32,
                (ctr >> 96) as u32,
            ];
            philox4x32_10(c, key)[(pos % 4) as usize]
        })
        .collect()
}

/// The 48 bytes of `rocrand_host::detail::philox4x32_10_device_engine` (rocRAND builds its library with
/// `ROCRAND_DETAIL_PHILOX_BM_NOT_IN_STATE`, so the state is `uint4 counter; uint4 result; uint2 key;
/// unsigned int substate;` padded to the uint4 alignment) as rocRAND's host constructs it for `(seed,
/// subsequence, offset)` (`philox4x32_10_engine::seed` / `restart`): the generator passes this struct by
/// value to every generate kernel.
pub fn philox_engine_bytes(seed: u64, subsequence: u64, offset: u64) -> [u8; 48] {
    let ctr = (u128::from(subsequence) << 64) + u128::from(offset / 4);
    let counter = [
        ctr as u32,
        (ctr >> 32) as u32,
        (ctr >> 64) as u32,
        (ctr >> 96) as u32,
    ];
    let key = [seed as u32, (seed >> 32) as u32];
    let result = philox4x32_10(counter, key);
    let substate = (offset % 4) as u32;
    let mut b = [0u8; 48];
    let words = counter
        .iter()
        .chain(&result)
        .chain(&key)
        .chain(std::iter::once(&substate));
    for (i, w) in words.enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    b
}

/// rocRAND's `uniform_distribution<float>` (rocrand_uniform.h): `ROCRAND_2POW32_INV + v * ROCRAND_2POW32_INV`
/// in float, `v` converted to float first (round to nearest). The constant, `2.3283064e-10f` as rocRAND
/// writes it, is 2^-32 exactly, so the product is exact and a fused multiply-add gives the same bits.
pub fn uniform_f32(v: u32) -> f32 {
    const INV: f32 = 2.328_306_4e-10;
    INV + (v as f32) * INV
}

/// rocRAND's `uniform_distribution<double>` from two numbers (`uniform_distribution_double(v1, v2)`): the
/// 53-bit integer `v1 | (v2 >> 11) << 32`, exactly representable, times 2^-53 (exact) plus 2^-53 (`1.1102230246251565e-16` as
/// rocRAND writes it): one rounding.
pub fn uniform_f64(v1: u32, v2: u32) -> f64 {
    const INV: f64 = 1.110_223_024_625_156_5e-16;
    let v = u64::from(v1) | (u64::from(v2 >> 11) << 32);
    INV + (v as f64) * INV
}

// --- MRG32k3a ------------------------------------------------------------------------------------------

pub const M1: u64 = 4_294_967_087;
pub const M2: u64 = 4_294_944_443;
pub const A12: u64 = 1_403_580;
pub const A13N: u64 = 810_728;
pub const A21: u64 = 527_612;
pub const A23N: u64 = 1_370_589;

pub type Mat = [[u64; 3]; 3];

/// The transition matrices of the two components (RngStream's A1p0 and A2p0, the negative entries reduced
/// modulo m): `s' = A s` with `s = (s_{n-2}, s_{n-1}, s_n)`.
pub const A1: Mat = [[0, 1, 0], [0, 0, 1], [M1 - A13N, A12, 0]];
pub const A2: Mat = [[0, 1, 0], [0, 0, 1], [M2 - A23N, 0, A21]];

pub fn mat_mul(a: &Mat, b: &Mat, m: u64) -> Mat {
    let mut c = [[0u64; 3]; 3];
    for (i, row) in c.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            let s: u128 = (0..3)
                .map(|k| u128::from(a[i][k]) * u128::from(b[k][j]))
                .sum();
            *x = (s % u128::from(m)) as u64;
        }
    }
    c
}

/// `a^n mod m` by binary exponentiation (n up to 2^128 - 1).
pub fn mat_pow(a: &Mat, mut n: u128, m: u64) -> Mat {
    let mut r: Mat = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
    let mut p = *a;
    while n > 0 {
        if n & 1 == 1 {
            r = mat_mul(&r, &p, m);
        }
        p = mat_mul(&p, &p, m);
        n >>= 1;
    }
    r
}

pub fn mat_vec(a: &Mat, s: [u32; 3], m: u64) -> [u32; 3] {
    let mut r = [0u32; 3];
    for (i, x) in r.iter_mut().enumerate() {
        let v: u128 = (0..3).map(|k| u128::from(a[i][k]) * u128::from(s[k])).sum();
        *x = (v % u128::from(m)) as u32;
    }
    r
}

/// An MRG32k3a state: `g1 = (s10, s11, s12)`, `g2 = (s20, s21, s22)` (RngStream's Cg).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mrg {
    pub g1: [u32; 3],
    pub g2: [u32; 3],
}

impl Mrg {
    /// Advance `n` steps (RngStream's AdvanceState with any 128-bit count).
    pub fn advance(self, n: u128) -> Mrg {
        Mrg {
            g1: mat_vec(&mat_pow(&A1, n, M1), self.g1, M1),
            g2: mat_vec(&mat_pow(&A2, n, M2), self.g2, M2),
        }
    }

    /// One step of the recurrence and the combined output in `[1, m1]` (L'Ecuyer 1999, figure 1:
    /// `p1 = a12 s11 - a13n s10 mod m1`, `p2 = a21 s22 - a23n s20 mod m2`, output `p1 - p2 mod m1` with 0
    /// mapped to m1 — RngStream's U01 is this integer times 1/(m1+1); rocRAND returns the integer).
    pub fn next(&mut self) -> u32 {
        let p1 = ((A12 * u64::from(self.g1[1]) + (M1 - A13N) * u64::from(self.g1[0])) % M1) as u32;
        self.g1 = [self.g1[1], self.g1[2], p1];
        let p2 = ((A21 * u64::from(self.g2[2]) + (M2 - A23N) * u64::from(self.g2[0])) % M2) as u32;
        self.g2 = [self.g2[1], self.g2[2], p2];
        if p1 > p2 {
            p1 - p2
        } else {
            (u64::from(p1) + M1 - u64::from(p2)) as u32
        }
    }

    /// RngStream's U01 (not antithetic, not increased precision).
    pub fn u01(&mut self) -> f64 {
        f64::from(self.next()) * (1.0 / (M1 as f64 + 1.0))
    }

    /// The 24 bytes of `rocrand_device::mrg32k3a_engine` (rocRAND's library is built with
    /// `ROCRAND_DETAIL_MRG32K3A_BM_NOT_IN_STATE`: `unsigned int g1[3], g2[3]`).
    pub fn bytes(&self) -> [u8; 24] {
        let mut b = [0u8; 24];
        for (i, w) in self.g1.iter().chain(&self.g2).enumerate() {
            b[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }
}

/// rocRAND's reductions as written: `mod_m1` folds the high word once (`p = 209 (p >> 32) + (p mod 2^32)`),
/// `mod_m2` twice (`22853`), then one conditional subtraction — not a full reduction for every input.
fn rocrand_mod_m(p: u64, m: u64) -> u64 {
    let (c, folds) = if m == M1 { (209, 1) } else { (22_853, 2) };
    let mut p = p;
    for _ in 0..folds {
        // mad_u64_u32(c, (unsigned int)(p >> 32), p & 0xffffffff)
        p = (c * (p >> 32)).wrapping_add(p & 0xffff_ffff);
    }
    if p >= m {
        p - m
    } else {
        p
    }
}

/// rocRAND's `mod_mul_m1`/`mod_mul_m2(i, j)` as written (signed 64-bit intermediates, wrapping).
fn rocrand_mod_mul(i: u32, j: u64, m: u64) -> u64 {
    let hi = i64::from(i / 131_072);
    let lo = i64::from(i) - hi * 131_072;
    let t1 = rocrand_mod_m((hi as u64).wrapping_mul(j), m).wrapping_mul(131_072) as i64;
    let t2 = rocrand_mod_m((lo as u64).wrapping_mul(j), m) as i64;
    let mut r = rocrand_mod_m(t1.wrapping_add(t2) as u64, m) as i64;
    if r < 0 {
        r += m as i64;
    }
    r as u64
}

/// rocRAND's MRG32k3a seeding (`mrg32k3a_engine::seed`): 0 means 12345; the six words are products of the
/// seed with the seed's halves xored with 0x55555555 / 0xAAAAAAAA, reduced by rocRAND's `mod_mul`, then
/// stored as `unsigned int`.
pub fn rocrand_mrg_seed(seed: u64) -> Mrg {
    let seed = if seed == 0 { 12345 } else { seed };
    let x = (seed as u32) ^ 0x5555_5555;
    let y = ((seed >> 32) as u32) ^ 0xAAAA_AAAA;
    let m1 = |i| rocrand_mod_mul(i, seed, M1) as u32;
    let m2 = |i| rocrand_mod_mul(i, seed, M2) as u32;
    Mrg {
        g1: [m1(x), m1(y), m1(x)],
        g2: [m2(y), m2(x), m2(y)],
    }
}

/// The number of steps in one rocRAND MRG32k3a subsequence. rocRAND's comments and documentation say 2^67,
/// but the tables its `discard_subsequence` uses (`d_A1P67`, generated by tools/mrg32k3a_precomputed_generator
/// from RngStream's A1p76/A2p76) jump 2^76 steps: a rocRAND subsequence is an RngStream substream.
pub const MRG_SUBSEQUENCE_LOG2: u32 = 76;

/// The engine rocRAND's `init_engines_kernel` writes at `engine_id`: the seeded state advanced by
/// `engine_id` subsequences and `offset + (engine_id < start_engine_id)` numbers.
pub fn rocrand_mrg_engine(seed: u64, engine_id: u32, start_engine_id: u32, offset: u64) -> Mrg {
    let off = u128::from(offset) + u128::from(engine_id < start_engine_id);
    let steps = (u128::from(engine_id) << MRG_SUBSEQUENCE_LOG2) + off;
    rocrand_mrg_seed(seed).advance(steps)
}

/// rocRAND's `mrg_uniform_distribution<unsigned int>` (rocrand_uniform.h `mrg_uniform_distribution_uint`):
/// `(unsigned int)((v - 1) * ROCRAND_MRG32K3A_UINT_NORM)` in double.
pub fn mrg_uniform_u32(v: u32) -> u32 {
    const UINT_NORM: f64 = 1.000000048661607; // (2^32 - 1) / (m1 - 1), as rocRAND writes it
    (f64::from(v - 1) * UINT_NORM) as u32
}

// --- XORWOW --------------------------------------------------------------------------------------------

/// XORWOW (G. Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8(14), 2003, section 3.1 `xorwow`): a 160-bit
/// xorshift (five 32-bit words, shifts 2, 1 and 4; period 2^160 − 1) plus a Weyl sequence `d += 362437`, the
/// output `d + x4`. rocRAND 5.3's engine keeps `x[0..5]` oldest first and adds the Weyl step before the sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Xorwow {
    pub x: [u32; 5],
    pub d: u32,
}

pub const XORWOW_WEYL: u32 = 362_437;

/// One step of the xorshift alone (linear over GF(2)).
pub fn xorshift160(x: [u32; 5]) -> [u32; 5] {
    let t = x[0] ^ (x[0] >> 2);
    [
        x[1],
        x[2],
        x[3],
        x[4],
        (x[4] ^ (x[4] << 4)) ^ (t ^ (t << 1)),
    ]
}

impl Xorwow {
    pub fn next(&mut self) -> u32 {
        self.x = xorshift160(self.x);
        self.d = self.d.wrapping_add(XORWOW_WEYL);
        self.d.wrapping_add(self.x[4])
    }
}

/// A linear map of GF(2)^160, as the images of the 160 unit vectors (bit `j` of word `i` is unit `32 i + j`).
#[derive(Clone, PartialEq, Eq)]
pub struct Gf2Map(pub Vec<[u32; 5]>);

impl Gf2Map {
    /// The xorshift's transition, from the step function applied to each unit vector.
    pub fn xorshift() -> Gf2Map {
        Gf2Map(
            (0..160)
                .map(|u| {
                    let mut e = [0u32; 5];
                    e[u / 32] = 1 << (u % 32);
                    xorshift160(e)
                })
                .collect(),
        )
    }

    pub fn apply(&self, v: [u32; 5]) -> [u32; 5] {
        let mut r = [0u32; 5];
        for (u, img) in self.0.iter().enumerate() {
            if v[u / 32] >> (u % 32) & 1 == 1 {
                for (a, b) in r.iter_mut().zip(img) {
                    *a ^= b;
                }
            }
        }
        r
    }

    /// `self` after `other` (`self · other`).
    pub fn after(&self, other: &Gf2Map) -> Gf2Map {
        Gf2Map(other.0.iter().map(|&img| self.apply(img)).collect())
    }
}

/// The xorshift's transition squared `k` times, for `k` in `0..=n`: `A^(2^k)`.
pub fn xorshift_pow2(n: usize) -> Vec<Gf2Map> {
    let mut p = vec![Gf2Map::xorshift()];
    for _ in 0..n {
        let q = p.last().unwrap();
        p.push(q.after(q));
    }
    p
}

/// `A^n x` for `n` given as little-endian 32-bit limbs, with `pow2[k] = A^(2^k)` (as many as `n` has bits).
pub fn xorshift_jump(pow2: &[Gf2Map], n: &[u32], mut x: [u32; 5]) -> [u32; 5] {
    for k in 0..32 * n.len() {
        if n[k / 32] >> (k % 32) & 1 == 1 {
            x = pow2[k].apply(x);
        }
    }
    x
}

/// `x` moved `n` numbers on: the xorshift by `A^n`, the Weyl word by `n · 362437` (mod 2^32).
pub fn xorwow_skip(pow2: &[Gf2Map], x: Xorwow, n: u64) -> Xorwow {
    Xorwow {
        x: xorshift_jump(pow2, &[n as u32, (n >> 32) as u32], x.x),
        d: x.d.wrapping_add((n as u32).wrapping_mul(XORWOW_WEYL)),
    }
}

/// rocRAND's XORWOW seeding (5.3.3, `xorwow_engine(seed, subsequence, offset)`; the constants read in the
/// gfx1030 code object of Debian's librocrand1 5.3.3 too): Marsaglia's initial state (x 123456789,
/// 362436069, 521288629, 88675123, 5783321; d 6615241) perturbed by `t0 = 1228688033 (seed lo ^ 0x2c7f967f)`
/// and `t1 = 2073658381 (seed hi ^ 0xa03697cb)` (32-bit products): x0 += t0, x1 ^= t0, x2 += t1, x3 ^= t1,
/// x4 += t0, d += t0 + t1. Seed 0 is not special (rocRAND's default XORWOW seed is 0).
pub fn rocrand_xorwow_seed(seed: u64) -> Xorwow {
    let t0 = 1_228_688_033u32.wrapping_mul((seed as u32) ^ 0x2c7f_967f);
    let t1 = 2_073_658_381u32.wrapping_mul(((seed >> 32) as u32) ^ 0xa036_97cb);
    Xorwow {
        x: [
            123_456_789u32.wrapping_add(t0),
            362_436_069 ^ t0,
            521_288_629u32.wrapping_add(t1),
            88_675_123 ^ t1,
            5_783_321u32.wrapping_add(t0),
        ],
        d: 6_615_241u32.wrapping_add(t0).wrapping_add(t1),
    }
}

/// A rocRAND XORWOW subsequence is 2^67 numbers (rocrand_xorwow.h's documentation; the sequence tables of
/// tools/xorwow_precomputed_generator are A^(2^67 · 4^k)). A subsequence jump moves the xorshift only, not `d`.
pub const XORWOW_SUBSEQUENCE_LOG2: usize = 67;

/// rocRAND's XORWOW host generator (library/src/rng/xorwow.hpp): 512 blocks of 256 engines; engine `e` is
/// `xorwow_engine(seed, e, offset / 131072 + (e < offset mod 131072))`; a generate call of `n` outputs runs
/// one work-item per engine, work-item `i` taking engine `(i + start) mod 131072` for outputs `i, i + 131072,
/// …` (each output `input_width` numbers in a row), then `start += n` (the outputs it touched) mod 131072,
/// the engines kept. `start` begins at `offset mod 131072`.
pub struct XorwowGenerator {
    pub engines: Vec<Xorwow>,
    pub start: usize,
}

pub const XORWOW_ENGINES: usize = 512 * 256;

impl XorwowGenerator {
    /// The engines computed here by jumps: engine `e + 1` is engine `e` moved by `A^(2^67)` (the matrix
    /// squared 67 times), then each engine moves by its offset bit by bit, `d += offset · 362437`.
    pub fn new(seed: u64, offset: u64) -> XorwowGenerator {
        let pow2 = xorshift_pow2(XORWOW_SUBSEQUENCE_LOG2.max(64));
        let sub = &pow2[XORWOW_SUBSEQUENCE_LOG2];
        let start = (offset % XORWOW_ENGINES as u64) as usize;
        let mut x = rocrand_xorwow_seed(seed);
        let engines = (0..XORWOW_ENGINES)
            .map(|e| {
                let own = offset / XORWOW_ENGINES as u64 + u64::from(e < start);
                let moved = xorwow_skip(&pow2, x, own);
                x.x = sub.apply(x.x);
                moved
            })
            .collect();
        XorwowGenerator { engines, start }
    }

    /// `n` outputs of `width` numbers each, as the generate kernel lays them out.
    pub fn generate(&mut self, n: usize, width: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); n];
        for i in 0..XORWOW_ENGINES.min(n) {
            let e = &mut self.engines[(i + self.start) % XORWOW_ENGINES];
            for o in out.iter_mut().skip(i).step_by(XORWOW_ENGINES) {
                *o = (0..width).map(|_| e.next()).collect();
            }
        }
        self.start = (self.start + n) % XORWOW_ENGINES;
        out
    }
}
