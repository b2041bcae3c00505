//! f64 fused multiply-add operand triples chosen to reach every path of an exact emulation (shared by
//! tests/f64_fma_float_design.rs and tests/fused_multiply_add.rs): random bits, moderate exponents,
//! cancellation at every scale, results near and below the subnormal boundary, near overflow, far addends on
//! both sides of the clamps, ties, subnormal operands.

pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn f64_with_exp(&mut self, e: i64) -> f64 {
        let s = self.next() & (1 << 63);
        let m = self.next() & ((1 << 52) - 1);
        if e < -1022 {
            // A subnormal of about that size.
            let sh = (-1022 - e).min(52) as u32;
            return f64::from_bits(s | ((m | (1 << 52)) >> (sh + 1)).max(1));
        }
        f64::from_bits(s | (((e + 1023) as u64) << 52) | m)
    }
}

/// One triple of a class chosen to reach every path: random bits, moderate, cancellation (c = −a·b ±
/// a few ulps), products and sums near and below the subnormal boundary, near overflow, far addends, the
/// scaled addend's boundaries, ties.
/// x or −x, at random.
fn signed(r: &mut Rng, x: f64) -> f64 {
    if r.next().is_multiple_of(2) {
        x
    } else {
        -x
    }
}

pub fn triple(r: &mut Rng) -> (f64, f64, f64) {
    let class = r.next() % 12;
    let ex = |r: &mut Rng, lo: i64, hi: i64| lo + (r.next() % (hi - lo + 1) as u64) as i64;
    match class {
        0 => (
            f64::from_bits(r.next()),
            f64::from_bits(r.next()),
            f64::from_bits(r.next()),
        ),
        1 => {
            let (ea, eb, ec) = (ex(r, -40, 40), ex(r, -40, 40), ex(r, -90, 90));
            (r.f64_with_exp(ea), r.f64_with_exp(eb), r.f64_with_exp(ec))
        }
        2 | 3 => {
            // Cancellation, at any scale (down into the subnormal results).
            let (ea, eb) = (ex(r, -1100, 1000), ex(r, -1100, 1000));
            let (a, b) = (r.f64_with_exp(ea), r.f64_with_exp(eb));
            let p = -(a * b);
            let c = f64::from_bits(p.to_bits().wrapping_add(r.next() % 9).wrapping_sub(4));
            (a, b, c)
        }
        4 | 5 => {
            // Results near the subnormal boundary: product exponent around −1022 ± 60, c small.
            let ea = ex(r, -600, 0);
            let eb = ex(r, -1090, -960) - ea;
            let ec = ex(r, -1080, -1000);
            (r.f64_with_exp(ea), r.f64_with_exp(eb), r.f64_with_exp(ec))
        }
        6 => {
            // Near overflow.
            let ea = ex(r, 500, 1023);
            let eb = ex(r, 1000, 1030) - ea;
            let ec = ex(r, 1000, 1023);
            (r.f64_with_exp(ea), r.f64_with_exp(eb), r.f64_with_exp(ec))
        }
        7 => {
            // Far addends on either side, including the clamp boundaries (56, -110).
            let (ea, eb) = (ex(r, -300, 300), ex(r, -300, 300));
            let ec = ea + eb + ex(r, -130, 70);
            (
                r.f64_with_exp(ea),
                r.f64_with_exp(eb),
                r.f64_with_exp(ec.clamp(-1074, 1023)),
            )
        }
        8 => {
            // Ties: short significands whose exact sum lands on a midpoint.
            let short = |r: &mut Rng, e: i64| {
                let x = r.f64_with_exp(e);
                let keep = r.next() % 40 + 10;
                f64::from_bits(x.to_bits() & !((1u64 << keep) - 1))
            };
            let (ea, eb) = (ex(r, -20, 20), ex(r, -20, 20));
            let (a, b) = (short(r, ea), short(r, eb));
            let ec = ea + eb + ex(r, -60, 5);
            let c = short(r, ec);
            (a, b, c)
        }
        9 => {
            // The scaled addend c·2^−K at the smallest normal, where D239 puts a stand-in for it, and the
            // exponent clamps of that scaling (K = ea + eb near −2046 and 2044).
            match r.next() % 5 {
                0 => {
                    let k = ex(r, -40, 1000);
                    let ea = ex(r, (k - 1023).max(-1074), (k + 1074).min(1023));
                    let ec = (k + ex(r, -1060, -1000)).max(-1074);
                    (
                        r.f64_with_exp(ea),
                        r.f64_with_exp(k - ea),
                        r.f64_with_exp(ec),
                    )
                }
                1 => {
                    let (ea, eb) = (ex(r, 1015, 1023), ex(r, 1015, 1023));
                    let ec = ex(r, -1074, 1023);
                    (r.f64_with_exp(ea), r.f64_with_exp(eb), r.f64_with_exp(ec))
                }
                3 => {
                    // A product on or 2v²·2^−104 below a midpoint of its 53-bit grid (a = 1 + (2^26 + 2v)·
                    // 2^−52, b = 1 + (2^25 − v)·2^−52, scaled) with a tiny addend, down to where c·2^−K
                    // underflows: only c's sign decides, never its size.
                    let k = ex(r, 2, 1000);
                    let ea = ex(r, (k - 1023).max(-1022), k.min(1023));
                    let v = r.next() % 9;
                    let a = f64::from_bits((((ea + 1023) as u64) << 52) | ((1 << 26) + 2 * v));
                    let b = f64::from_bits((((k - ea + 1023) as u64) << 52) | ((1 << 25) - v));
                    let ec = (k + ex(r, -1200, -106)).max(-1074);
                    let c = r.f64_with_exp(ec);
                    (signed(r, a), b, c)
                }
                2 => {
                    // An exact cancellation down to i·j·2^(E−104), at and below the subnormals' half:
                    // a = 1 + i·2^−52, b = (1 + j·2^−52)·2^E, c = −(1 + (i + j)·2^−52)·2^E.
                    let (i, j) = (r.next() % (1 << 20) + 1, r.next() % (1 << 20) + 1);
                    let e = ex(r, -1022, -900);
                    let a = f64::from_bits((1023 << 52) | i);
                    let b = f64::from_bits((((e + 1023) as u64) << 52) | j);
                    let c = -f64::from_bits((((e + 1023) as u64) << 52) | (i + j));
                    let s = if r.next().is_multiple_of(2) {
                        1.0
                    } else {
                        -1.0
                    };
                    (s * a, b, s * c)
                }
                _ => {
                    let (ea, eb) = (ex(r, -1074, -1020), ex(r, -1074, -1020));
                    let ec = ex(r, -1074, -1020);
                    (r.f64_with_exp(ea), r.f64_with_exp(eb), r.f64_with_exp(ec))
                }
            }
        }
        10 => {
            // Subnormal results on a midpoint of the subnormal grid, or just off it by the product's own
            // low bits: b = (2n + 1)·2^(s − 1075), a = (1 + k·2^−52)·2^−s, c a few steps of the grid.
            let s = ex(r, 60, 500);
            let n = r.next() % (1 << 20);
            let b = (2 * n + 1) as f64 * 2f64.powi(s as i32 - 1075);
            let a = f64::from_bits(((1023 - s) as u64) << 52 | (r.next() % 8));
            let c = f64::from_bits(r.next() % 4 + 1);
            (signed(r, a), signed(r, b), signed(r, c))
        }
        11 => {
            // A subnormal midpoint minus a product's last bits: a·b = 2^−1075·(1 − j²·2^−104), c = ±k·2^−1074,
            // so the exact sum lies 2^−1179·j² from a midpoint of the subnormal grid (the sticky bits far
            // below the rounding point decide it).
            let j = r.next() % 64 + 1;
            let ea = ex(r, -1000, -60);
            let a = f64::from_bits(((ea + 1023) as u64) << 52 | j);
            let b = f64::from_bits(((-1075 - ea + 1022) as u64) << 52 | ((1 << 52) - 2 * j));
            let c = f64::from_bits(r.next() % 6 + 1);
            let (a, c) = (signed(r, a), signed(r, c));
            (a, b, c)
        }
        _ => {
            // Subnormal operands.
            let (ea, eb) = (ex(r, -1074, -1023), ex(r, -200, 1023));
            let ec = ex(r, -1074, 0);
            (r.f64_with_exp(ea), r.f64_with_exp(eb), r.f64_with_exp(ec))
        }
    }
}

/// Triples for results the random classes reach rarely or never, with their negations: an exact zero sum
/// where the scale K is positive (2^10 · 3·2^10 − 3·2^20); and x just above 2^−1022 − 2^−1075 where the
/// renormalised h is exactly 2^−1022 (c = 2^−1022, a·b = −2^−1076·(1 + 2^−78): the sum rounded to 53 bits
/// is 2^−1022 − 2^−1075, half a subnormal ulp below the smallest normal, and the result is 2^−1022).
pub fn directed() -> Vec<(f64, f64, f64)> {
    let p = |e: i32| 2f64.powi(e);
    let base = [
        (p(10), 3.0 * p(10), -3.0 * p(20)),
        (
            p(-500) * (1.0 + p(-26)),
            -p(-576) * (1.0 - p(-26) + p(-52)),
            p(-1022),
        ),
    ];
    base.iter()
        .flat_map(|&(a, b, c)| [(a, b, c), (-a, b, -c)])
        .collect()
}
