//! The exact f64 fused multiply-add of D209 as D239 shortened it, from correctly rounded f64 adds and
//! multiplies only (what lavapipe has: its own f64 `Fma` rounds twice), written in the operations its
//! lowering (`quirks::f64_fma_float`) emits — f64 add/multiply rounding to nearest even, bit casts, integer
//! adds on the bits, selects — and run on the host against Berkeley SoftFloat's `f64_mulAdd`, on triples
//! chosen to reach every path (tests/support/f64_triples.rs; tests/fused_multiply_add.rs runs the lowering
//! itself on lavapipe over the same triples).
//!
//! Finite, nonzero a, b and finite c (the rest takes the plain path, exact there):
//! 1. a = a1·2^ea, b = b1·2^eb by multiplications by powers of two only: e = max(exponent field, 1) − 1024,
//!    so a normal operand scales to ±[2, 4) and a subnormal one to ±[2^−51, 2) (2^−e is normal for every
//!    e; no select). K = ea + eb. Everything is computed scaled by 2^−K.
//! 2. The exact product a1·b1 = ph + pl (Dekker's product with Veltkamp's split: no overflow or underflow
//!    in [2^−102, 16)); it is a multiple of 2^−102, and at least 2^−50 unless both operands are subnormal
//!    (then the result is c, or a·b for a zero c).
//! 3. c scaled: c1 = c·2^−a·2^−b in float — both scales at once when they point different ways (their
//!    product is then normal), one after the other when they point the same way (an intermediate
//!    overflow or underflow then means the end's). Where c1 ≥ 2^58 (or overflowed) the product is below a
//!    quarter of c's ulp and the result is c. Where c1 is below the smallest normal it may have lost bits,
//!    but there it only decides ties and the direction of an inexact sum: ±2^−1000 rounds the same.
//! 4. The exact sum x = c1 + ph + pl renormalised in Boldo and Melquiond's order: (th, tl) = TwoSum(c1, ph),
//!    (u, ue) = TwoSum(tl, pl), (h, hl) = TwoSum(th, u), so x = h + hl + ue with |hl + ue| < ulp(h).
//! 5. One path for every result (D244): M = ±2^(−1022−K) (the smallest normal, scaled, with h's sign) where
//!    |h| is below it — a subnormal result, whose grid's rounding point is M's last bit — else M = 0.
//!    (s, e) = Fast2Sum(M, h) (exact: |h| < |M|, or s = h, e = 0). For a normal result w = RO(hl + ue)
//!    (round to odd: TwoSum, then an inexact even result steps one ulp toward the exact sum) and y =
//!    RN(h + w) is Boldo and Melquiond's RN(x). For a subnormal one w = RO(e + RN(hl + ue)): e and ±q/2
//!    (q = ulp(M)) are multiples of ulp(h) and |hl + ue| < ulp(h), so the rounded hl + ue keeps the
//!    comparison of e + hl + ue with ±q/2, and round-to-odd keeps it through the last sum (an inexact
//!    result is never the even ±q/2); y = RN(s + w). Both are RO((e + hl_n) + (hl_s + ue)) with (hl_n,
//!    hl_s) = (hl, 0) or (0, hl): hl_s chosen by a select, hl_n = hl − hl_s (exact).
//! 6. The result is (y − M)·2^K with h's sign, in float: y − M is exact (Sterbenz, or M = 0), ±0 for a
//!    result below half the smallest subnormal; scaled by z/4·2^(ea+1)·2^(eb+1) (normal powers of two for
//!    every exponent field), both at once when the scales point different ways, one after the other when
//!    the same way, so at most one multiplication rounds: none for a subnormal result (it lies on its
//!    grid), an overflow to ±∞, or the one normal-side y below the smallest normal — h = 2^−1022 exactly
//!    and x between 2^−1022 − 2^−1075 and 2^−1022 − 2^−1076, where y·2^K = 2^−1022 − 2^−1075 ties to
//!    2^−1022, x's rounding (x is less than half a subnormal ulp below it).
//!
//! The lowering's shared function is 161 SPIR-V instructions with 11 selects (D239's two paths: 171 and 13;
//! D209's: 217; the integer emulation's: ~265): lavapipe compiles selects and integer operations slowly
//! (D239's and D244's measurements).
//!
//! Checked (2026-12-05, D244): 2,000,000 triples and the directed ones in every `cargo test` (a fraction
//! of a second in release), 200,000,000 on each of two seeds once (`RDNA2SPV_FMA_DESIGN_N=200000000`,
//! ~15 s in release): 0 differences from SoftFloat; rounding twice differs on 18 % of them; every path and
//! result reached (200 M run: special operand 4.2 M, zero addend 533 k, far addend 19.7 M, addend stand-in
//! 8.6 M, exact zero 47 k, overflow 6.4 M, normal 112 M, the normal-side boundary only by the directed
//! triples, below the subnormals 465 k, subnormal 47.9 M). Planted faults each fail it: hl never moved, hl
//! always moved, the sign not ORed into y − M, one scaling order for every operand pair (either), an
//! unsigned subnormal test, the far bound at 2^56, no stand-in.

#[path = "support/f64_triples.rs"]
mod f64_triples;

use f64_triples::{directed, triple, Rng};
use softfloat_wrapper::{Float, RoundingMode::TiesToEven as RNE, F64};

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Veltkamp's split of |x| < 2^996 into 26 and 27 bits.
fn split(x: f64) -> (f64, f64) {
    let t = 134_217_729.0 * x;
    let hi = t - (t - x);
    (hi, x - hi)
}

/// Dekker's exact product of a, b in ±[2^−51, 4): a·b = p + e.
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

/// x + y rounded to odd (no underflow below the subnormal grid matters: TwoSum is exact there too).
fn ro_add(x: f64, y: f64) -> f64 {
    let (s, e) = two_sum(x, y);
    let sb = s.to_bits();
    if e != 0.0 && sb & 1 == 0 {
        let toward = (e.to_bits() >> 63) == (sb >> 63);
        f64::from_bits(if toward { sb + 1 } else { sb - 1 })
    } else {
        s
    }
}

/// (x·2^−e, 2^−e, e) for a finite nonzero x, by powers of two only: e = max(x's exponent field, 1) −
/// 1024, so a normal x scales to ±[2, 4) and a subnormal one to ±[2^−51, 2); 2^−e is normal for every e.
fn norm(x: f64) -> (f64, f64, i64) {
    let field = ((x.to_bits() & !(1 << 63)) >> 52).max(1);
    let scale = f64::from_bits((2047 - field) << 52);
    (x * scale, scale, field as i64 - 1024)
}

/// The paths and results of [`fma_design`], counted by the test so that a run shows it reached each.
const PATHS: [&str; 10] = [
    "special operand",
    "zero addend",
    "far addend",
    "addend stand-in",
    "exact zero",
    "overflow",
    "normal",
    "normal-side y below the smallest normal",
    "below the subnormals",
    "subnormal",
];

fn fma_design(a: f64, b: f64, c: f64) -> (f64, usize) {
    let finite_nonzero = |x: f64| x.is_finite() && x != 0.0;
    // a or b zero, infinite or NaN, or c infinite or NaN: (a·b, or +0 where a and b are finite and
    // nonzero, so that their product cannot overflow into c) + c, exact there.
    let ab = finite_nonzero(a) && finite_nonzero(b);
    if !(ab && c.is_finite()) {
        return (if ab { 0.0 } else { a * b } + c, 0);
    }
    if c == 0.0 {
        return (a * b, 1);
    }
    let (a1, sa, ea) = norm(a);
    let (b1, sb, eb) = norm(b);
    let k = ea + eb;
    let same = (ea >= 0) == (eb >= 0);
    // c·2^−K exactly, wherever that is normal: both scales at once when they point different ways (their
    // product 2^−K is then normal), one after the other when they point the same way (no intermediate
    // overflows or underflows unless the end does).
    let c1 = if same { c * sa * sb } else { c * (sa * sb) };
    let m1 = c1.to_bits() & !(1 << 63);
    if m1 >= (1023 + 58) << 52 {
        // c at least 2^58 above the product (below 16), or c1 overflowed: the product is below a quarter
        // of c's ulp.
        return (c, 2);
    }
    // Below the smallest normal c1 may have lost bits, but there it only decides ties and the direction
    // of an inexact sum (the product is at least 2^−50, a multiple of 2^−102): any value of its sign
    // below 2^−103 rounds the same, and ±2^−1000 is one.
    let stand_in = m1 < 1 << 52;
    let c1 = if stand_in {
        f64::from_bits((c.to_bits() & (1 << 63)) | ((1023 - 1000) << 52))
    } else {
        c1
    };
    let (ph, pl) = two_prod(a1, b1);
    let (th, tl) = two_sum(c1, ph);
    let (u, ue) = two_sum(tl, pl);
    let (h, hl) = two_sum(th, u);
    let sign = h.to_bits() & (1 << 63);
    let hmag = h.to_bits() & !(1 << 63);
    // The bits of 2^(−1022−K): 0 or negative as an i64 for every K ≥ 1 (the u32 1 − K widened without
    // its sign), where the result is never subnormal.
    let me = u64::from((1 - k) as u32) << 52;
    let subnormal = (hmag as i64) < me as i64;
    let m = f64::from_bits(if subnormal { sign | me } else { 0 });
    // |h| < |M| (or M = 0): Fast2Sum is exact.
    let s = m + h;
    let e = h - (s - m);
    let hl_s = if subnormal { hl } else { 0.0 };
    let hl_n = hl - hl_s;
    let w = ro_add(e + hl_n, hl_s + ue);
    let y = s + w;
    let z = f64::from_bits((y - m).to_bits() | sign);
    let zq = z * 0.25;
    let ia = f64::from_bits(((ea + 1024) as u64) << 52);
    let ib = f64::from_bits(((eb + 1024) as u64) << 52);
    let x = if same { zq * ia * ib } else { zq * (ia * ib) };
    let path = if stand_in {
        3
    } else if h == 0.0 {
        4
    } else if x.is_infinite() {
        5
    } else if !subnormal && k <= 0 && y.to_bits() & !(1 << 63) < me {
        7
    } else if x == 0.0 {
        8
    } else if subnormal {
        9
    } else {
        6
    };
    (x, path)
}

fn softfloat(a: f64, b: f64, c: f64) -> u64 {
    F64::from_bits(a.to_bits())
        .fused_mul_add(
            F64::from_bits(b.to_bits()),
            F64::from_bits(c.to_bits()),
            RNE,
        )
        .to_bits()
}

fn same(x: f64, want: u64) -> bool {
    // NaNs: any NaN for a NaN (the lowering canonicalises them on the plain path, as today).
    (x.is_nan() && f64::from_bits(want).is_nan()) || x.to_bits() == want
}

#[test]
fn the_float_fma_design_rounds_once_like_softfloat() {
    let n: usize = std::env::var("RDNA2SPV_FMA_DESIGN_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let mut r = Rng(0xf64f_3a00);
    let (mut bad, mut first) = (0usize, None);
    let mut twice_wrong = 0usize;
    let mut paths = [0usize; PATHS.len()];
    for (a, b, c) in directed().into_iter().chain((0..n).map(|_| triple(&mut r))) {
        let want = softfloat(a, b, c);
        let (x, path) = fma_design(a, b, c);
        paths[path] += 1;
        if !same(x, want) {
            bad += 1;
            first.get_or_insert((a.to_bits(), b.to_bits(), c.to_bits(), want));
        }
        if !same(a * b + c, want) {
            twice_wrong += 1;
        }
    }
    eprintln!("{n} triples: {bad} differ from SoftFloat; rounding twice differs on {twice_wrong}");
    for (name, k) in PATHS.iter().zip(paths) {
        eprintln!("  {name}: {k}");
    }
    // The operands must discriminate: rounding twice is wrong on many of them.
    assert!(twice_wrong > n / 20, "{twice_wrong}");
    assert_eq!(bad, 0, "first: {first:x?}");
    // Every path taken (the addend stand-in on a normal or subnormal result).
    for (name, k) in PATHS.iter().zip(paths) {
        assert!(k > 0, "no triple took the path '{name}'");
    }
}
