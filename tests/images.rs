//! Storage images (issue 27, decision D183): compute shaders of our own (fixtures/images/*.comp) captured
//! with `rdna2spv capture` (RADV's null device, no GPU), run with `rdna2spv run --backend both` (the host
//! evaluator and lavapipe agree bit for bit, or the run fails), and every output compared with a reference
//! computed here from the GLSL's definition and D183's texel rules (layout, out-of-range loads and stores,
//! unorm/snorm/f16 encodings), sharing no code with crates/ir or crates/eval. Plus: `image_get_resinfo` and a
//! per-lane `image_load_mip` in hand-assembled code (ACO computes image sizes from the T# itself), the float
//! image atomics (D203) hand-assembled and captured, the decoder against llvm-mc-19 on MIMG encodings, and
//! the refusals.
//!
//! Needs mesa-vulkan-drivers (RADV, lavapipe), glslang-tools and llvm-19, as CI installs them.

use std::path::Path;
use std::process::Command;

/// The suite's name: scratch folders and the executed-encoding log's test names (D159).
const SUITE: &str = "images";

#[path = "support/images.rs"]
mod support;
use support::*;

// ---------------------------------------------------------------------------------------------------------
// Texel rules, written from D183 (and the Vulkan fixed-point and half-float definitions).

/// f32 → unsigned normalized of `bits` bits: NaN and x ≤ 0 → 0, x ≥ 1 → max, else x·max to nearest, ties
/// to even (the product is exact in f64).
fn unorm(x: f32, bits: u32) -> u32 {
    let max = (1u32 << bits) - 1;
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 1.0 {
        max
    } else {
        (x as f64 * max as f64).round_ties_even() as u32
    }
}

/// f32 → signed normalized of `bits` bits, as its low `bits` bits.
fn snorm(x: f32, bits: u32) -> u32 {
    let max = (1i32 << (bits - 1)) - 1;
    let v = if x.is_nan() {
        0
    } else if x >= 1.0 {
        max
    } else if x <= -1.0 {
        -max
    } else {
        (x as f64 * max as f64).round_ties_even() as i32
    };
    (v as u32) & ((1u32 << bits) - 1)
}

/// f16 bits → f32 (exact).
fn f16_to_f32(h: u16) -> f32 {
    let s = (h as u32 & 0x8000) << 16;
    let e = (h >> 10) & 0x1f;
    let m = (h & 0x3ff) as u32;
    let v = match e {
        0 => (m as f32) * (2.0f32).powi(-24),
        31 => f32::from_bits(0x7f80_0000 | m << 13),
        _ => f32::from_bits(((e as u32 + 112) << 23) | m << 13),
    };
    f32::from_bits(v.to_bits() | s)
}

/// f32 → f16 bits, round to nearest even (overflow to infinity); NaN → a NaN.
fn f32_to_f16(x: f32) -> u16 {
    let sign = ((x.to_bits() >> 16) & 0x8000) as u16;
    let a = x.abs();
    if a.is_nan() {
        return sign | 0x7e00;
    }
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    // The f16 ulp at a's binade: 2^(E − 10), or 2^-24 below 2^-14; q = a / ulp rounded to even (exact in
    // f64). Subnormal: the bits are q (q = 1024 is the smallest normal, 0x400); normal: q in 1024..=2048.
    let e_f32 = ((a.to_bits() >> 23) & 0xff) as i32 - 127;
    if a < f32::from_bits(0x3880_0000) {
        return sign | ((a as f64) * 2f64.powi(24)).round_ties_even() as u16;
    }
    let mut e = e_f32;
    let mut q = ((a as f64) / 2f64.powi(e - 10)).round_ties_even() as u32;
    if q == 2048 {
        q = 1024;
        e += 1;
    }
    sign | (((e + 15) as u32) << 10 | (q - 1024)) as u16
}

#[test]
fn texel_rules_self_check() {
    // f16 round trip over every finite f16, and ties between neighbours go to the even one.
    for h in 0..0x7c00u16 {
        for s in [0, 0x8000] {
            let x = f16_to_f32(h | s);
            assert_eq!(f32_to_f16(x), h | s, "{:#06x}", h | s);
        }
        if h < 0x7bff {
            let mid = (f16_to_f32(h) as f64 + f16_to_f32(h + 1) as f64) / 2.0;
            let even = if h % 2 == 0 { h } else { h + 1 };
            assert_eq!(f32_to_f16(mid as f32), even, "tie above {h:#06x}");
        }
    }
    assert_eq!(unorm(0.5, 8), 128);
    assert_eq!(snorm(-1.0, 8), 0x81);
    assert_eq!(snorm(-2.0, 16), 0x8001);
}

// ---------------------------------------------------------------------------------------------------------

/// invert.comp: an rgba8 unorm image inverted into another, in wave32 and wave64, in the lane and the wave
/// mapping: every texel of the output is unorm8(1 − k/255) of the input byte k.
// coverage: invert_rgba8_both_waves: IMAGE_LOAD IMAGE_STORE
#[test]
fn invert_rgba8_both_waves() {
    for wave in [32, 64] {
        let dir = scratch(&format!("invert{wave}"));
        let m = capture(
            "invert.comp",
            wave,
            &["--grid".into(), "16,16".into()],
            &dir,
        );
        let out = dir.join("out");
        run_both(&m, &out);
        let src = read(&dir.join("invert.src.in.bin"));
        let dst = read(&out.join("dst.bin"));
        assert_eq!(src.len(), 16 * 16 * 4);
        assert_eq!(dst.len(), src.len());
        let distinct: std::collections::BTreeSet<u8> = src.iter().copied().collect();
        assert!(
            distinct.len() == 256,
            "the placeholder covers every byte value"
        );
        for (i, (&k, &d)) in src.iter().zip(&dst).enumerate() {
            let c = k as f32 / 255.0;
            assert_eq!(d as u32, unorm(1.0 - c, 8), "byte {i}: src {k}");
        }
        // The wave mapping (one invocation per wave) computes the same bits.
        let wave_out = dir.join("out-wave");
        run_both_mapped(&m, &wave_out, "wave");
        assert_eq!(read(&wave_out.join("dst.bin")), dst, "wave mapping");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// blur.comp, a separable 3-tap blur through r32f images in two dispatches (horizontal, then vertical) on
/// a 16×12 image with a 16×16 grid: loads outside the image read 0 (the edges), stores outside it (rows
/// 12..15) are dropped.
// coverage: separable_blur_r32f: IMAGE_LOAD IMAGE_STORE
#[test]
fn separable_blur_r32f() {
    let dir = scratch("blur");
    let (w, h) = (16usize, 12usize);
    let mut g = Lcg(7);
    let input: Vec<f32> = (0..w * h)
        .map(|_| (g.next() % 2001) as f32 / 250.0 - 4.0)
        .collect();
    let inp = dir.join("blur.in.bin");
    std::fs::write(
        &inp,
        input
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let img = |n: &str| format!("{n}=16,12,1,1,1");
    let pass = |d: (i32, i32), src: &Path, tag: &str| -> Vec<f32> {
        let cdir = dir.join(tag);
        let m = capture(
            "blur.comp",
            64,
            &[
                "--grid".into(),
                "16,16".into(),
                "--image".into(),
                img("src"),
                "--image".into(),
                img("dst"),
                "--input".into(),
                format!("src={}", src.display()),
                "--push".into(),
                format!("dx={}", d.0),
                "--push".into(),
                format!("dy={}", d.1),
                "--name".into(),
                "blur".into(),
            ],
            &cdir,
        );
        let out = cdir.join("out");
        run_both(&m, &out);
        words(&read(&out.join("dst.bin")))
            .into_iter()
            .map(f32::from_bits)
            .collect()
    };
    let reference = |src: &[f32], (dx, dy): (i32, i32)| -> Vec<f32> {
        let at = |x: i32, y: i32| {
            if (0..w as i32).contains(&x) && (0..h as i32).contains(&y) {
                src[y as usize * w + x as usize]
            } else {
                0.0
            }
        };
        let mut o = vec![0.0f32; w * h];
        for y in 0..h as i32 {
            for x in 0..w as i32 {
                let (a, b, c) = (at(x - dx, y - dy), at(x, y), at(x + dx, y + dy));
                for v in [a * 0.3, b * 0.4, c * 0.3] {
                    assert!(
                        v == 0.0 || v.is_normal(),
                        "RADV's denormal flush would apply"
                    );
                }
                o[y as usize * w + x as usize] = 0.3f32 * a + 0.4f32 * b + 0.3f32 * c;
            }
        }
        o
    };
    let tmp = pass((1, 0), &inp, "h");
    let want_tmp = reference(&input, (1, 0));
    assert_eq!(
        tmp.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        want_tmp.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        "horizontal pass"
    );
    let tmp_file = dir.join("blur.tmp.bin");
    std::fs::write(
        &tmp_file,
        tmp.iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let out = pass((0, 1), &tmp_file, "v");
    let want = reference(&want_tmp, (0, 1));
    assert_eq!(
        out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        "vertical pass"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// mip.comp: levels 1 and 2 of an 8×8 rgba16f image from its level 0 (image_load, image_store_mip with
/// NSA addresses): f32 sums of the f16 texels in the shader's order, scaled, rounded to f16 (D183).
// coverage: mip_chain_rgba16f: IMAGE_LOAD IMAGE_STORE_MIP
#[test]
fn mip_chain_rgba16f() {
    let dir = scratch("mip");
    let mut g = Lcg(11);
    // Level 0: normal f16 values of both signs across exponents 2^-6 .. 2^6; levels 1 and 2: zero.
    let level0: Vec<u16> = (0..8 * 8 * 4)
        .map(|_| {
            let e = 9 + g.next() % 13; // biased exponent 9..21
            let m = g.next() & 0x3ff;
            let s = (g.next() & 1) << 15;
            (s | e << 10 | m) as u16
        })
        .collect();
    let mut file: Vec<u8> = level0.iter().flat_map(|h| h.to_le_bytes()).collect();
    file.resize(672, 0);
    let inp = dir.join("chain.bin");
    std::fs::write(&inp, &file).unwrap();
    let m = capture(
        "mip.comp",
        64,
        &[
            "--grid".into(),
            "4,4".into(),
            "--image".into(),
            "chain=8,8,1,3,1".into(),
            "--input".into(),
            format!("chain={}", inp.display()),
        ],
        &dir,
    );
    let listing = std::fs::read_to_string(dir.join("mip.navi21.w64.aco.txt")).unwrap();
    assert!(
        listing.contains("image_store_mip"),
        "the capture stores through image_store_mip"
    );
    let out = dir.join("out");
    run_both(&m, &out);
    let got = halves(&read(&out.join("chain.bin")));
    assert_eq!(got.len(), 336);
    assert_eq!(&got[..256], &level0[..], "level 0 is only read");
    let texel = |x: usize, y: usize, c: usize| f16_to_f32(level0[(y * 8 + x) * 4 + c]);
    for (level, n, scale, base) in [(1usize, 2usize, 0.25f32, 256usize), (2, 4, 0.0625, 320)] {
        let side = 8 >> level;
        for py in 0..side {
            for px in 0..side {
                for c in 0..4 {
                    let mut s = 0.0f32;
                    for j in 0..n {
                        for i in 0..n {
                            s += texel(n * px + i, n * py + j, c);
                        }
                    }
                    let want = f32_to_f16(s * scale);
                    let at = base + (py * side + px) * 4 + c;
                    assert_eq!(got[at], want, "level {level} ({px},{py}) channel {c}");
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// downsample.comp: mip generation through per-level views of one rgba8 image (`view_of`, the T#'s
/// BASE_LEVEL/LAST_LEVEL = 1 and 2 for the two outputs, 0 for the input), as Vulkan programs bind them:
/// level 1 and level 2 are unorm8 of the box averages of level 0; level 0 is unchanged.
// coverage: downsample_through_level_views: IMAGE_LOAD IMAGE_STORE
#[test]
fn downsample_through_level_views() {
    let dir = scratch("downsample");
    let mut g = Lcg(9);
    let mut chain: Vec<u8> = (0..8 * 8 * 4).map(|_| g.next() as u8).collect();
    chain.resize(8 * 8 * 4 + 4 * 4 * 4 + 2 * 2 * 4, 0xee);
    let cf = dir.join("chain.bin");
    std::fs::write(&cf, &chain).unwrap();
    // `src` is the image (3 levels); `half_` and `quarter` are views of its levels 1 and 2.
    let vm = capture(
        "downsample.comp",
        64,
        &[
            "--grid".into(),
            "4,4".into(),
            "--image".into(),
            "src=8,8,1,3,1".into(),
            "--view".into(),
            "half_=src,1,1".into(),
            "--view".into(),
            "quarter=src,2,1".into(),
            "--input".into(),
            format!("src={}", cf.display()),
        ],
        &dir,
    );
    let text = std::fs::read_to_string(&vm).unwrap();
    assert!(
        text.contains("name = \"half_\"\nview_of = \"src\""),
        "{text}"
    );
    let out = dir.join("out");
    run_both(&vm, &out);
    let got = read(&out.join("src.bin"));
    assert_eq!(&got[..256], &chain[..256], "level 0 is only read");
    let texel = |x: usize, y: usize, c: usize| chain[(y * 8 + x) * 4 + c] as f32 / 255.0;
    for (n, scale, base) in [(2usize, 0.25f32, 256usize), (4, 0.0625, 320)] {
        let side = 8 / n;
        for py in 0..side {
            for px in 0..side {
                for c in 0..4 {
                    let mut s = 0.0f32;
                    for j in 0..n {
                        for i in 0..n {
                            s += texel(n * px + i, n * py + j, c);
                        }
                    }
                    let at = base + (py * side + px) * 4 + c;
                    assert_eq!(
                        got[at] as u32,
                        unorm(s * scale, 8),
                        "{n}x{n} box ({px},{py}) channel {c}"
                    );
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The f32 values convert.comp stores: specials, every tie region of the 8- and 16-bit unorm/snorm scales
/// (the f32 nearest to (k + 1/2)/max and its neighbours), and random values.
fn convert_inputs() -> Vec<f32> {
    let mut v: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(0xffc0_0001),
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::MIN_POSITIVE,
        65504.0,
        65519.99,
        65520.0,
        1e-8,
        6.0e-5,
        3.0e-5,
        0.1,
        1.0 / 3.0,
        0.99999994,
    ];
    for (max, k) in [
        (255.0f64, 0..255),
        (127.0, 0..127),
        (65535.0, 0..255),
        (32767.0, 0..255),
    ] {
        for k in k.step_by(3) {
            let t = (k as f64 + 0.5) / max;
            let x = t as f32;
            v.push(x);
            v.push(f32::from_bits(x.to_bits() + 1));
            v.push(f32::from_bits(x.to_bits() - 1));
            v.push(-x);
        }
    }
    let mut g = Lcg(3);
    while v.len() < 1024 {
        v.push(
            f32::from_bits(0x3a00_0000 + g.next() % 0x0600_0000)
                * if g.next() & 1 == 0 { 1.0 } else { -1.0 },
        );
    }
    v.truncate(1024);
    v
}

/// convert.comp: stores of f32 values to rgba8 / rgba8_snorm / rgba16 / rgba16_snorm / rgba16f 1-D images
/// (D183's encodings: clamp, NaN → 0, round to nearest even; f16 by RNE), and loads of rgba8_snorm and
/// r16 unorm texels (−128 reads −1; k/max correctly rounded; absent channels (0, 0, 1)).
// coverage: conversions_rgba8_rgba16_f16: IMAGE_LOAD IMAGE_STORE
#[test]
fn conversions_rgba8_rgba16_f16() {
    let dir = scratch("convert");
    let x = convert_inputs();
    let xin = dir.join("x.bin");
    std::fs::write(
        &xin,
        x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    )
    .unwrap();
    let in8: Vec<u8> = (0..1024u32).map(|i| (i * 7 + 3) as u8).collect();
    let in16: Vec<u16> = (0..256u32).map(|i| (i * 257 + i / 3) as u16).collect();
    let (f8, f16) = (dir.join("in8.bin"), dir.join("in16.bin"));
    std::fs::write(&f8, &in8).unwrap();
    std::fs::write(
        &f16,
        in16.iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let m = capture(
        "convert.comp",
        64,
        &[
            "--grid".into(),
            "256".into(),
            "--input".into(),
            format!("x={}", xin.display()),
            "--input".into(),
            format!("in8={}", f8.display()),
            "--input".into(),
            format!("in16={}", f16.display()),
            "--size".into(),
            "y=8192".into(),
        ],
        &dir,
    );
    let out = dir.join("out");
    run_both(&m, &out);
    let u8n = read(&out.join("u8n.bin"));
    let s8n = read(&out.join("s8n.bin"));
    let u16n = halves(&read(&out.join("u16n.bin")));
    let s16n = halves(&read(&out.join("s16n.bin")));
    let h = halves(&read(&out.join("h.bin")));
    for (i, &v) in x.iter().enumerate() {
        assert_eq!(
            u8n[i] as u32,
            unorm(v, 8),
            "rgba8 of {v:e} ({:#x})",
            v.to_bits()
        );
        assert_eq!(s8n[i] as u32, snorm(v, 8), "rgba8_snorm of {v:e}");
        assert_eq!(u16n[i] as u32, unorm(v, 16), "rgba16 of {v:e}");
        assert_eq!(s16n[i] as u32, snorm(v, 16), "rgba16_snorm of {v:e}");
        if v.is_nan() {
            assert!(f16_to_f32(h[i]).is_nan(), "rgba16f of NaN: {:#06x}", h[i]);
        } else {
            assert_eq!(h[i], f32_to_f16(v), "rgba16f of {v:e} ({:#x})", v.to_bits());
        }
    }
    let y: Vec<u32> = words(&read(&out.join("y.bin")));
    for i in 0..256 {
        for c in 0..4 {
            let b = in8[4 * i + c] as i8;
            let want = if b == -128 { -1.0 } else { b as f32 / 127.0 };
            assert_eq!(y[8 * i + c], want.to_bits(), "snorm8 {b}");
        }
        let want = [in16[i] as f32 / 65535.0, 0.0, 0.0, 1.0];
        for c in 0..4 {
            assert_eq!(
                y[8 * i + 4 + c],
                want[c].to_bits(),
                "unorm16 {} channel {c}",
                in16[i]
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// arrays.comp: a 2-D array (r32ui, 3 slices) copied into a 3-D image with dst = src·3 + z, a 1-D array
/// (rg32i) updated in place, and imageSize (which ACO reads off the T#'s fields) of all three.
// coverage: arrays_and_3d: IMAGE_LOAD IMAGE_STORE
#[test]
fn arrays_and_3d() {
    for wave in [32, 64] {
        let dir = scratch(&format!("arrays{wave}"));
        let m = capture(
            "arrays.comp",
            wave,
            &[
                "--grid".into(),
                "4,4,3".into(),
                "--image".into(),
                "lines=4,1,1,1,3".into(),
            ],
            &dir,
        );
        let out = dir.join("out");
        run_both(&m, &out);
        let src = words(&read(&dir.join("arrays.src.in.bin")));
        let lines = words(&read(&dir.join("arrays.lines.in.bin")));
        assert_eq!((src.len(), lines.len()), (48, 24));
        let dst = words(&read(&out.join("dst.bin")));
        for (i, &s) in src.iter().enumerate() {
            let z = (i / 16) as u32;
            assert_eq!(dst[i], s.wrapping_mul(3).wrapping_add(z), "texel {i}");
        }
        let got = words(&read(&out.join("lines.bin")));
        for t in 0..12 {
            let (a, b) = (lines[2 * t], lines[2 * t + 1]);
            assert_eq!(
                (got[2 * t], got[2 * t + 1]),
                (b, a.wrapping_neg()),
                "texel {t}"
            );
        }
        let sizes = words(&read(&out.join("sizes.bin")));
        assert_eq!(&sizes[..8], &[4, 4, 3, 4, 4, 3, 4, 3]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// atomics.comp: image atomics on r32 formats (add, umin, umax, xor, smin, smax, and, or on texels shared by
/// half the invocations;
/// cmpswap and a float exchange on each invocation's own texel with the old values returned), whose shared
/// results do not depend on the order the lanes and waves reach them.
// coverage: image_atomics_r32: IMAGE_ATOMIC_ADD IMAGE_ATOMIC_UMIN IMAGE_ATOMIC_UMAX IMAGE_ATOMIC_XOR IMAGE_ATOMIC_SMIN IMAGE_ATOMIC_SMAX IMAGE_ATOMIC_AND IMAGE_ATOMIC_OR IMAGE_ATOMIC_CMPSWAP IMAGE_ATOMIC_SWAP
#[test]
fn image_atomics_r32() {
    let dir = scratch("atomics");
    let mut g = Lcg(5);
    let x: Vec<u32> = (0..256).map(|_| g.next() % 5000).collect();
    let own: Vec<u32> = x
        .iter()
        .enumerate()
        .map(|(i, &v)| if i % 2 == 0 { v } else { v + 1 })
        .collect();
    let put = |n: &str, w: &[u32]| {
        let p = dir.join(n);
        std::fs::write(
            &p,
            w.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
        )
        .unwrap();
        p
    };
    let (xf, of) = (put("x.bin", &x), put("own.bin", &own));
    let m = capture(
        "atomics.comp",
        64,
        &[
            "--grid".into(),
            "256".into(),
            "--image".into(),
            "hist=32,1,1,1,1".into(),
            "--image".into(),
            "ustats=8,1,1,1,1".into(),
            "--image".into(),
            "istats=8,1,1,1,1".into(),
            "--input".into(),
            format!("x={}", xf.display()),
            "--input".into(),
            format!("own={}", of.display()),
            "--size".into(),
            "r=2048".into(),
        ],
        &dir,
    );
    let out = dir.join("out");
    run_both(&m, &out);
    let init = |n: &str| words(&read(&dir.join(format!("atomics.{n}.in.bin"))));
    let got = |n: &str| words(&read(&out.join(format!("{n}.bin"))));
    let mut hist = init("hist");
    for &v in &x {
        if v % 40 < 32 {
            hist[(v % 40) as usize] = hist[(v % 40) as usize].wrapping_add(1);
        }
    }
    assert_eq!(got("hist"), hist, "histogram");
    // Texel 2j + k takes the invocations i with i & 1 = k.
    let half = |k: usize| {
        x.iter()
            .enumerate()
            .filter(move |(i, _)| i & 1 == k)
            .map(|(_, &v)| v)
    };
    let mut u = init("ustats");
    let mut i = init("istats");
    for k in 0..2 {
        u[k] = half(k).fold(u[k], |a, v| a.min(v));
        u[2 + k] = half(k).fold(u[2 + k], |a, v| a.max(v));
        u[4 + k] = half(k).fold(u[4 + k], |a, v| a ^ v);
        let s = |v: u32| v as i32 - 1000;
        i[k] = half(k).fold(i[k] as i32, |a, v| a.min(s(v))) as u32;
        i[2 + k] = half(k).fold(i[2 + k] as i32, |a, v| a.max(s(v))) as u32;
        i[4 + k] = half(k).fold(i[4 + k], |a, v| a & (s(v) | 0x10) as u32);
        i[6 + k] = half(k).fold(i[6 + k], |a, v| a | (s(v) & 0x7fff) as u32);
    }
    assert_eq!(got("ustats"), u, "umin umax xor");
    assert_eq!(got("istats"), i, "smin smax and or");
    let r = got("r");
    let ownf = init("ownf");
    let own_out = got("own");
    let ownf_out = got("ownf");
    for k in 0..256 {
        assert_eq!(r[2 * k], own[k], "cmpswap returns the old value, texel {k}");
        let want = if own[k] == x[k] { x[k] * 2 } else { own[k] };
        assert_eq!(own_out[k], want, "cmpswap texel {k}");
        assert_eq!(
            r[2 * k + 1],
            ownf[k],
            "swap returns the old value, texel {k}"
        );
        assert_eq!(ownf_out[k], (x[k] as f32).to_bits(), "swap texel {k}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// cube.comp: storage cubes (and a cube array) as `capture` describes them — 2-D arrays of six faces per
/// cube, as ACO addresses them (dim 2D_ARRAY): dst = 2·src on every face, and imageSize of a cube and of a
/// two-cube array from the T#.
// coverage: cube_storage_images: IMAGE_LOAD IMAGE_STORE
#[test]
fn cube_storage_images() {
    let dir = scratch("cube");
    let m = capture(
        "cube.comp",
        64,
        &[
            "--grid".into(),
            "4,4,6".into(),
            "--image".into(),
            "cubes=4,4,1,1,12".into(),
        ],
        &dir,
    );
    let text = std::fs::read_to_string(&m).unwrap();
    assert!(
        text.contains("name = \"src\"\nformat = \"r32_float\"\ndim = \"2d_array\""),
        "{text}"
    );
    let out = dir.join("out");
    run_both(&m, &out);
    let src = words(&read(&dir.join("cube.src.in.bin")));
    let dst = words(&read(&out.join("dst.bin")));
    assert_eq!((src.len(), dst.len()), (96, 96));
    for (i, (&s, &d)) in src.iter().zip(&dst).enumerate() {
        assert_eq!(
            d,
            (f32::from_bits(s) * 2.0).to_bits(),
            "texel {i} (face {})",
            i / 16
        );
    }
    let sizes = words(&read(&out.join("sizes.bin")));
    assert_eq!(&sizes[..5], &[4, 4, 4, 4, 2]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Hand-assembled (llvm-mc-19, gfx1030) wave32 code for what ACO does not emit here: image_get_resinfo of
/// a 2-D array and a 3-D image with a per-lane level, and image_load_mip of a 1-D r32ui image with a
/// per-lane level and x (levels past LAST_LEVEL and x past the level's width read 0).
const RESINFO_ASM: &[(&str, &[u32])] = &[
    (
        "image_get_resinfo v[2:5], v0, s[4:11] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY unorm",
        &[0xf0381f28, 0x00010200],
    ),
    ("v_lshlrev_b32_e32 v6, 4, v0", &[0x340c0084]),
    (
        "global_store_dwordx4 v6, v[2:5], s[0:1]",
        &[0xdc788000, 0x00000206],
    ),
    (
        "image_get_resinfo v[2:4], v0, s[12:19] dmask:0x7 dim:SQ_RSRC_IMG_3D unorm",
        &[0xf0381710, 0x00030200],
    ),
    (
        "global_store_dwordx3 v6, v[2:4], s[2:3]",
        &[0xdc7c8000, 0x00020206],
    ),
    ("v_and_b32_e32 v8, 7, v0", &[0x36100087]),
    ("v_lshrrev_b32_e32 v9, 2, v0", &[0x2c120082]),
    (
        "image_load_mip v10, v[8:9], s[20:27] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm",
        &[0xf0041100, 0x00050a08],
    ),
    ("v_lshlrev_b32_e32 v11, 2, v0", &[0x34160082]),
    (
        "global_store_dword v11, v10, s[28:29]",
        &[0xdc708000, 0x001c0a0b],
    ),
    ("s_endpgm", &[0xbf810000]),
];

// coverage: resinfo_and_load_mip_per_lane: IMAGE_GET_RESINFO IMAGE_LOAD_MIP
#[test]
fn resinfo_and_load_mip_per_lane() {
    let dir = scratch("resinfo");
    write_code(&dir.join("k.bin"), RESINFO_ASM);
    // The 1-D image's texels (levels 16, 8, 4 wide): each the index of its dword plus 1000.
    let tex: Vec<u8> = (0..28u32).flat_map(|i| (1000 + i).to_le_bytes()).collect();
    std::fs::write(dir.join("tex.bin"), tex).unwrap();
    let manifest = r#"
code = "k.bin"
grid = [16, 1, 1]
workgroup = [16, 1, 1]
[abi]
wave_size = 32
sgpr = [
    { reg = 0, address = "a" },
    { reg = 2, address = "b" },
    { reg = 4, tsharp = "arr" },
    { reg = 12, tsharp = "vol" },
    { reg = 20, tsharp = "tex" },
    { reg = 28, address = "c" },
]
[[buffers]]
name = "a"
size = 256
output = true
[[buffers]]
name = "b"
size = 256
output = true
[[buffers]]
name = "c"
size = 64
output = true
[[images]]
name = "arr"
format = "rgba8_unorm"
dim = "2d_array"
extent = [20, 9, 1]
levels = 4
layers = 5
[[images]]
name = "vol"
format = "r32_float"
dim = "3d"
extent = [7, 12, 5]
levels = 3
[[images]]
name = "tex"
format = "r32_uint"
dim = "1d"
extent = [16, 1, 1]
levels = 3
file = "tex.bin"
"#;
    let out = run_manifest(&dir, manifest);
    let a = words(&read(&out.join("a.bin")));
    let b = words(&read(&out.join("b.bin")));
    let c = words(&read(&out.join("c.bin")));
    let ext = |e: u32, l: u32| (e >> l).max(1);
    for l in 0..16u32 {
        let i = l as usize;
        let want_a = if l < 4 {
            [ext(20, l), ext(9, l), 5, 4]
        } else {
            [0, 0, 0, 4]
        };
        assert_eq!(&a[4 * i..4 * i + 4], &want_a, "2-D array, level {l}");
        let want_b = if l < 3 {
            [ext(7, l), ext(12, l), ext(5, l)]
        } else {
            [0, 0, 0]
        };
        assert_eq!(&b[4 * i..4 * i + 3], &want_b, "3-D, level {l}");
        let (x, lod) = (l & 7, l >> 2);
        let want_c = if lod < 3 && x < 16 >> lod {
            let base = [0, 16, 24][lod as usize];
            1000 + base + x
        } else {
            0
        };
        assert_eq!(c[i], want_c, "image_load_mip lane {l} (x {x}, lod {lod})");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Hand-assembled (llvm-mc-19) wave32 code for the integer atomics GLSL does not emit: image_atomic_sub,
/// image_atomic_inc (`old >= data ? 0 : old + 1`) and image_atomic_dec (`old == 0 || old > data ? data : old
/// − 1`), each lane on its own texel of a 24-texel image (lanes 24..31 are out of range: no change, 0
/// returned), old values returned (glc).
const ATOMIC_ASM: &[(&str, &[u32])] = &[
    ("v_mul_u32_u24_e32 v1, 3, v0", &[0x16020083]),
    (
        "image_atomic_sub v1, v0, s[4:11] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm glc",
        &[0xf0483100, 0x00010100],
    ),
    ("v_mov_b32_e32 v3, 5", &[0x7e060285]),
    (
        "image_atomic_inc v3, v0, s[12:19] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm glc",
        &[0xf06c3100, 0x00030300],
    ),
    ("v_mov_b32_e32 v4, 7", &[0x7e080287]),
    (
        "image_atomic_dec v4, v0, s[20:27] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm glc",
        &[0xf0703100, 0x00050400],
    ),
    ("v_lshlrev_b32_e32 v2, 2, v0", &[0x34040082]),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "global_store_dword v2, v1, s[0:1]",
        &[0xdc708000, 0x00000102],
    ),
    (
        "global_store_dword v2, v3, s[2:3]",
        &[0xdc708000, 0x00020302],
    ),
    (
        "global_store_dword v2, v4, s[28:29]",
        &[0xdc708000, 0x001c0402],
    ),
    ("s_endpgm", &[0xbf810000]),
];

// coverage: atomic_sub_inc_dec_per_lane: IMAGE_ATOMIC_SUB IMAGE_ATOMIC_INC IMAGE_ATOMIC_DEC
#[test]
fn atomic_sub_inc_dec_per_lane() {
    let dir = scratch("atomic-asm");
    write_code(&dir.join("k.bin"), ATOMIC_ASM);
    let subs: Vec<u32> = (0..24).map(|t| 1000 + t).collect();
    let counts: Vec<u32> = (0..24).map(|t| (t * 7) % 11).collect();
    let put = |n: &str, w: &[u32]| {
        std::fs::write(
            dir.join(n),
            w.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
        )
        .unwrap()
    };
    put("s.bin", &subs);
    put("c.bin", &counts);
    let image = |n: &str, f: &str| {
        format!("[[images]]\nname = \"{n}\"\nformat = \"r32_uint\"\ndim = \"1d\"\nextent = [24, 1, 1]\nfile = \"{f}\"\noutput = true\n")
    };
    let buffer = |n: &str| format!("[[buffers]]\nname = \"{n}\"\nsize = 128\noutput = true\n");
    let manifest = format!(
        "code = \"k.bin\"\ngrid = [32, 1, 1]\nworkgroup = [32, 1, 1]\n[abi]\nwave_size = 32\nsgpr = [\n  {{ reg = 0, address = \"rs\" }},\n  {{ reg = 2, address = \"ri\" }},\n  {{ reg = 4, tsharp = \"sub\" }},\n  {{ reg = 12, tsharp = \"inc\" }},\n  {{ reg = 20, tsharp = \"dec\" }},\n  {{ reg = 28, address = \"rd\" }},\n]\n{}{}{}{}{}{}",
        image("sub", "s.bin"),
        image("inc", "c.bin"),
        image("dec", "c.bin"),
        buffer("rs"),
        buffer("ri"),
        buffer("rd"),
    );
    let out = run_manifest(&dir, &manifest);
    let got = |n: &str| words(&read(&out.join(format!("{n}.bin"))));
    let (mut sub, mut inc, mut dec) = (subs.clone(), counts.clone(), counts.clone());
    let (mut rs, mut ri, mut rd) = (vec![0u32; 32], vec![0u32; 32], vec![0u32; 32]);
    for l in 0..24usize {
        rs[l] = sub[l];
        sub[l] = sub[l].wrapping_sub(3 * l as u32);
        ri[l] = inc[l];
        inc[l] = if inc[l] >= 5 { 0 } else { inc[l] + 1 };
        rd[l] = dec[l];
        dec[l] = if dec[l] == 0 || dec[l] > 7 {
            7
        } else {
            dec[l] - 1
        };
    }
    assert_eq!((got("sub"), got("rs")), (sub, rs), "image_atomic_sub");
    assert_eq!((got("inc"), got("ri")), (inc, ri), "image_atomic_inc");
    assert_eq!((got("dec"), got("rd")), (dec, rd), "image_atomic_dec");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------------------
// Float image atomics (D203): image_atomic_fmin, image_atomic_fmax, image_atomic_fcmpswap on r32 float, with
// D060's float semantics written out here from IEEE 754-2008 minNum/maxNum and float equality: a NaN
// operand yields the other operand, two NaNs give the default NaN 0x7fc00000 (D005), −0 < +0; fcmpswap
// replaces the texel with src when texel == cmp as floats (NaN never equal, +0 == −0). Denormals are kept
// whatever MODE says, as the global/buffer/DS float atomics do (D060; D166 flushes VALU operands only).

/// Whether the f32 bits are a NaN.
fn nan32(b: u32) -> bool {
    b & 0x7fff_ffff > 0x7f80_0000
}

/// The texel after image_atomic_fmin (`max` false) or image_atomic_fmax on texel `m` with data `x`.
fn ref_fminmax(m: u32, x: u32, max: bool) -> u32 {
    match (nan32(m), nan32(x)) {
        (true, true) => 0x7fc0_0000,
        (true, false) => x,
        (false, true) => m,
        _ => {
            let (a, b) = (f32::from_bits(m), f32::from_bits(x));
            if a == 0.0 && b == 0.0 {
                // Zeros: −0 is the smaller.
                let neg = |v: u32| v >> 31 == 1;
                let pick_neg = !max;
                if neg(m) == pick_neg {
                    m
                } else {
                    x
                }
            } else if (a < b) != max {
                m
            } else {
                x
            }
        }
    }
}

/// The texel after image_atomic_fcmpswap on texel `m` with {src, cmp}.
fn ref_fcmpswap(m: u32, src: u32, cmp: u32) -> u32 {
    if !nan32(m) && !nan32(cmp) && f32::from_bits(m) == f32::from_bits(cmp) {
        src
    } else {
        m
    }
}

/// A race on one texel: the fold of `xs` into `init` in ascending and in descending order, which must agree
/// (minNum/maxNum with the default-NaN rule are order independent: after the first non-NaN operand the
/// texel is the minimum (maximum) of the non-NaN values seen, −0 < +0 a total order; while none has been
/// seen it is a NaN, the default one once two NaNs met, and a later non-NaN replaces it).
fn ref_race(init: u32, xs: &[u32], max: bool) -> u32 {
    let up = xs.iter().fold(init, |m, &x| ref_fminmax(m, x, max));
    let down = xs.iter().rev().fold(init, |m, &x| ref_fminmax(m, x, max));
    assert_eq!(up, down, "the reference race is order independent");
    up
}

/// f32 boundary values: ±0, ±the smallest and largest denormals, ±1, ±inf, a quiet NaN, a negative quiet
/// NaN with payload, a signalling NaN, the largest finite, the smallest normal, π.
const FA_VALUES: [u32; 16] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0001,
    0x7f80_0001,
    0x7f7f_ffff,
    0x0080_0000,
    0x4049_0fdb,
];

/// The hand-assembled float atomics (llvm-mc-19, wave32, MODE as the raw manifest starts it: denormals
/// kept): per lane l the dwords d[4l..4l+4] = {fmin data, fmax data, fcmpswap src, fcmpswap cmp};
/// first a race without glc on a 2-D array "sh" (2 × 1, 4 slices: fmin on slices 0–1, fmax on 2–3, eight
/// lanes per texel), then per-lane atomics returning the old value (glc): fmin on a 1-D image of 24 texels,
/// fmax on a 2-D image 8 × 3 (lanes 24..31 outside both: no change, 0 returned), fcmpswap on a 3-D image
/// 4 × 4 × 2; v[4:7] (old, old, old, cmp) stored to r[4l..4l+4].
const FATOMIC_ASM: &[(&str, &[u32])] = &[
    ("v_lshlrev_b32_e32 v2, 4, v0", &[0x34040084]),
    (
        "global_load_dwordx4 v[4:7], v2, s[0:1]",
        &[0xdc388000, 0x04000002],
    ),
    ("v_and_b32_e32 v14, 1, v0", &[0x361c0081]),
    ("v_mov_b32_e32 v15, 0", &[0x7e1e0280]),
    ("v_bfe_u32 v16, v0, 1, 1", &[0xd5480010, 0x02050300]),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "image_atomic_fmin v4, v[14:16], s[28:35] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY unorm",
        &[0xf0781128, 0x0007040e],
    ),
    ("v_add_nc_u32_e32 v16, 2, v16", &[0x4a202082]),
    (
        "image_atomic_fmax v5, v[14:16], s[28:35] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY unorm",
        &[0xf07c1128, 0x0007050e],
    ),
    (
        "image_atomic_fmin v4, v0, s[4:11] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm glc",
        &[0xf0783100, 0x00010400],
    ),
    ("v_and_b32_e32 v8, 7, v0", &[0x36100087]),
    ("v_lshrrev_b32_e32 v9, 3, v0", &[0x2c120083]),
    (
        "image_atomic_fmax v5, v[8:9], s[12:19] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm glc",
        &[0xf07c3108, 0x00030508],
    ),
    ("v_and_b32_e32 v10, 3, v0", &[0x36140083]),
    ("v_bfe_u32 v11, v0, 2, 2", &[0xd548000b, 0x02090500]),
    ("v_lshrrev_b32_e32 v12, 4, v0", &[0x2c180084]),
    (
        "image_atomic_fcmpswap v[6:7], v[10:12], s[20:27] dmask:0x3 dim:SQ_RSRC_IMG_3D unorm glc",
        &[0xf0743310, 0x0005060a],
    ),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "global_store_dwordx4 v2, v[4:7], s[2:3]",
        &[0xdc788000, 0x00020402],
    ),
    ("s_endpgm", &[0xbf810000]),
];

// coverage: float_image_atomics_hand_assembled: IMAGE_ATOMIC_FMIN IMAGE_ATOMIC_FMAX IMAGE_ATOMIC_FCMPSWAP
#[test]
fn float_image_atomics_hand_assembled() {
    let dir = scratch("fatomic-asm");
    write_code(&dir.join("k.bin"), FATOMIC_ASM);
    let v = |i: usize| FA_VALUES[i % 16];
    // Lanes 0..15 pair each boundary value with its neighbour in the table (+0/−0, the denormals of both
    // signs, ±1, ±inf, two NaNs, a NaN and a number, …) both ways; lanes 16..31 other pairs.
    let (mut mn, mut mx, mut cs) = (vec![0u32; 24], vec![0u32; 24], vec![0u32; 32]);
    let mut d = vec![0u32; 128];
    for l in 0..32usize {
        let (a, b) = if l < 16 {
            (v(l), v(l ^ 1))
        } else {
            (v(3 * l), v(7 * l + 3))
        };
        if l < 24 {
            mn[l] = a;
            mx[l] = if l < 16 { a } else { v(5 * l + 1) };
        }
        d[4 * l] = b;
        d[4 * l + 1] = if l < 16 { b } else { v(11 * l + 5) };
        // fcmpswap: the comparison value equal in bits (l % 4 = 0), of the other sign (1: equal only for
        // zeros), another table value (2), the next bit pattern (3).
        let init = if l < 16 { v(l) } else { v(5 * l) };
        cs[l] = init;
        d[4 * l + 2] = v(9 * l + 2) ^ (l as u32 & 0x10);
        d[4 * l + 3] = match l % 4 {
            0 => init,
            1 => init ^ 0x8000_0000,
            2 => v(l + 6),
            _ => init.wrapping_add(1),
        };
    }
    let sh: Vec<u32> = vec![
        0x7fc0_0000,
        0x0000_0000,
        0x8000_0001,
        0xffc0_0001,
        0x7f80_0001,
        0xff80_0000,
        0x0000_0000,
        0x7fc0_0000,
    ];
    let put = |n: &str, w: &[u32]| {
        std::fs::write(
            dir.join(n),
            w.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
        )
        .unwrap()
    };
    put("d.bin", &d);
    put("mn.bin", &mn);
    put("mx.bin", &mx);
    put("cs.bin", &cs);
    put("sh.bin", &sh);
    let image = |n: &str, dim: &str, extent: [u32; 3], layers: u32| {
        format!(
            "[[images]]\nname = \"{n}\"\nformat = \"r32_float\"\ndim = \"{dim}\"\nextent = {extent:?}\nlayers = {layers}\nfile = \"{n}.bin\"\noutput = true\n"
        )
    };
    let manifest = format!(
        "code = \"k.bin\"\ngrid = [32, 1, 1]\nworkgroup = [32, 1, 1]\n[abi]\nwave_size = 32\nsgpr = [\n  {{ reg = 0, address = \"d\" }},\n  {{ reg = 2, address = \"r\" }},\n  {{ reg = 4, tsharp = \"mn\" }},\n  {{ reg = 12, tsharp = \"mx\" }},\n  {{ reg = 20, tsharp = \"cs\" }},\n  {{ reg = 28, tsharp = \"sh\" }},\n]\n[[buffers]]\nname = \"d\"\nfile = \"d.bin\"\n[[buffers]]\nname = \"r\"\nsize = 512\noutput = true\n{}{}{}{}",
        image("mn", "1d", [24, 1, 1], 1),
        image("mx", "2d", [8, 3, 1], 1),
        image("cs", "3d", [4, 4, 2], 1),
        image("sh", "2d_array", [2, 1, 1], 4),
    );
    let out = run_manifest(&dir, &manifest);
    let got = |n: &str| words(&read(&out.join(format!("{n}.bin"))));
    // The race: texel slice·2 + x takes the lanes with l & 1 = x and (l >> 1) & 1 = slice (mod 2).
    let mut want_sh = sh.clone();
    for t in 0..8usize {
        let (x, s) = (t & 1, t >> 1);
        let max = s >= 2;
        let lanes: Vec<u32> = (0..32usize)
            .filter(|l| l & 1 == x && (l >> 1) & 1 == s & 1)
            .map(|l| d[4 * l + max as usize])
            .collect();
        want_sh[t] = ref_race(sh[t], &lanes, max);
    }
    assert_eq!(got("sh"), want_sh, "fmin/fmax races on the 2-D array");
    let mut want_r = vec![0u32; 128];
    let (mut wmn, mut wmx, mut wcs) = (mn.clone(), mx.clone(), cs.clone());
    for l in 0..32usize {
        if l < 24 {
            want_r[4 * l] = mn[l];
            wmn[l] = ref_fminmax(mn[l], d[4 * l], false);
            want_r[4 * l + 1] = mx[l];
            wmx[l] = ref_fminmax(mx[l], d[4 * l + 1], true);
        }
        want_r[4 * l + 2] = cs[l];
        wcs[l] = ref_fcmpswap(cs[l], d[4 * l + 2], d[4 * l + 3]);
        want_r[4 * l + 3] = d[4 * l + 3];
    }
    // The cases the table was built for, stated once by hand.
    assert_eq!(ref_fminmax(0, 0x8000_0000, false), 0x8000_0000);
    assert_eq!(ref_fminmax(0x8000_0000, 0, true), 0);
    assert_eq!(ref_fminmax(0x7fc0_0000, 0xffc0_0001, false), 0x7fc0_0000);
    assert_eq!(ref_fminmax(0x7f80_0001, 0xbf80_0000, true), 0xbf80_0000);
    assert_eq!(ref_fminmax(0x0000_0001, 0x8000_0001, false), 0x8000_0001);
    assert_eq!(ref_fcmpswap(0x8000_0000, 7, 0), 7);
    assert_eq!(ref_fcmpswap(0x7fc0_0000, 7, 0x7fc0_0000), 0x7fc0_0000);
    let swapped = (0..32)
        .filter(|&l| !nan32(cs[l]) && f32::from_bits(cs[l]) == f32::from_bits(d[4 * l + 3]))
        .count();
    assert!(
        swapped >= 8,
        "the table exercises successful swaps ({swapped})"
    );
    assert_eq!(
        got("r"),
        want_r,
        "returned old values (glc) and the kept cmp"
    );
    assert_eq!(got("mn"), wmn, "image_atomic_fmin per lane (1-D)");
    assert_eq!(got("mx"), wmx, "image_atomic_fmax per lane (2-D)");
    assert_eq!(got("cs"), wcs, "image_atomic_fcmpswap per lane (3-D)");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// fatomics.comp (GL_EXT_shader_atomic_float2, imageAtomicMin/Max on r32f) as ACO compiles it: RADV's
/// null device accepts it and ACO emits image_atomic_fmin/fmax (glc where the result is used). The capture
/// runs in ACO's float mode (f32 denormals flushed): the memory atomics keep denormals all the same (D203),
/// so the inputs are biased to denormals. Races of 32 invocations on each texel of two 1-D images, and one
/// min then max per invocation on its own texel of a 16 × 16 image with both old values returned.
// coverage: float_image_atomics_captured: IMAGE_ATOMIC_FMIN IMAGE_ATOMIC_FMAX
#[test]
fn float_image_atomics_captured() {
    let dir = scratch("fatomics");
    let mut g = Lcg(203);
    let value = |g: &mut Lcg| -> u32 {
        let bits = (g.next() << 16) ^ g.next();
        match g.next() % 4 {
            0 => FA_VALUES[(g.next() % 16) as usize],
            1 => bits & 0x807f_ffff, // a denormal or a zero
            _ => bits,
        }
    };
    let x: Vec<u32> = (0..512).map(|_| value(&mut g)).collect();
    let own: Vec<u32> = (0..256).map(|_| value(&mut g)).collect();
    let smin: Vec<u32> = vec![
        0x7fc0_0000,
        0,
        0x8000_0000,
        0x7f80_0000,
        1,
        0x807f_ffff,
        0x3f80_0000,
        0xffc0_0001,
    ];
    let smax: Vec<u32> = vec![
        0x7fc0_0000,
        0,
        0x8000_0000,
        0xff80_0000,
        0x8000_0001,
        0x007f_ffff,
        0xbf80_0000,
        0x7f80_0001,
    ];
    let xf = dir.join("x.bin");
    std::fs::write(
        &xf,
        x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    )
    .unwrap();
    let m = capture(
        "fatomics.comp",
        64,
        &[
            "--grid".into(),
            "256".into(),
            "--image".into(),
            "smin=8,1,1,1,1".into(),
            "--image".into(),
            "smax=8,1,1,1,1".into(),
            "--image".into(),
            "own=16,16,1,1,1".into(),
            "--input".into(),
            format!("x={}", xf.display()),
            "--size".into(),
            "r=2048".into(),
        ],
        &dir,
    );
    let text = std::fs::read_to_string(&m).unwrap();
    assert!(text.contains("f32_denormals = \"flush\""), "{text}");
    // Our texels in place of capture's placeholders.
    for (n, w) in [("smin", &smin), ("smax", &smax), ("own", &own)] {
        std::fs::write(
            dir.join(format!("fatomics.{n}.in.bin")),
            w.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
        )
        .unwrap();
    }
    let out = dir.join("out");
    run_both(&m, &out);
    let got = |n: &str| words(&read(&out.join(format!("{n}.bin"))));
    let race = |init: &[u32], k: usize, max: bool| -> Vec<u32> {
        (0..8)
            .map(|t| {
                let xs: Vec<u32> = (0..256)
                    .filter(|i| i & 7 == t)
                    .map(|i| x[2 * i + k])
                    .collect();
                ref_race(init[t], &xs, max)
            })
            .collect()
    };
    assert_eq!(got("smin"), race(&smin, 0, false), "imageAtomicMin races");
    assert_eq!(got("smax"), race(&smax, 1, true), "imageAtomicMax races");
    let (mut r, mut o) = (vec![0u32; 512], own.clone());
    for i in 0..256 {
        r[2 * i] = o[i];
        o[i] = ref_fminmax(o[i], x[2 * i], false);
        r[2 * i + 1] = o[i];
        o[i] = ref_fminmax(o[i], x[2 * i + 1], true);
    }
    let denormal_results = o
        .iter()
        .filter(|&&b| b & 0x7f80_0000 == 0 && b & 0x7f_ffff != 0)
        .count();
    assert!(
        denormal_results > 16,
        "denormals kept in {denormal_results} texels"
    );
    assert_eq!(got("r"), r, "returned old values");
    assert_eq!(got("own"), o, "per-invocation min then max");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What is refused, by name: a float image atomic with a 64-bit dmask (exit 2 naming the instruction and
/// MIMG), a float image atomic on an r32 uint texel (a run-time refusal naming D203), a sampled image at
/// capture, a T# whose TYPE differs from the instruction's dim (a run-time refusal naming D183).
#[test]
fn refusals_name_the_instruction_and_feature() {
    let dir = scratch("refuse");
    // image_atomic_fmin v[1:2], v0, s[4:11] dmask:0x3 dim:SQ_RSRC_IMG_1D unorm glc; s_endpgm
    let atomic: &[(&str, &[u32])] = &[
        ("image_atomic_fmin", &[0xf0783300, 0x00010100]),
        ("s_endpgm", &[0xbf810000]),
    ];
    write_code(&dir.join("atomic.bin"), atomic);
    let manifest = |code: &str, dim: &str| {
        format!(
            "code = \"{code}\"\ngrid = [32, 1, 1]\nworkgroup = [32, 1, 1]\n[abi]\nwave_size = 32\nsgpr = [ {{ reg = 4, tsharp = \"t\" }} ]\n[[images]]\nname = \"t\"\nformat = \"r32_uint\"\ndim = \"{dim}\"\nextent = [32, 1, 1]\noutput = true\n"
        )
    };
    std::fs::write(dir.join("atomic.toml"), manifest("atomic.bin", "1d")).unwrap();
    let o = rdna2spv(&[
        "run",
        dir.join("atomic.toml").to_str().unwrap(),
        "--backend",
        "host",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("image_atomic_fmin") && err.contains("MIMG") && err.contains("dmask 0x3"),
        "{err}"
    );
    // image_atomic_fmax v1, v0, s[4:11] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm glc on an r32 uint texel.
    let fmax_uint: &[(&str, &[u32])] = &[
        ("image_atomic_fmax", &[0xf07c3100, 0x00010100]),
        ("s_endpgm", &[0xbf810000]),
    ];
    write_code(&dir.join("fmax.bin"), fmax_uint);
    std::fs::write(dir.join("fmax.toml"), manifest("fmax.bin", "1d")).unwrap();
    let o = rdna2spv(&[
        "run",
        dir.join("fmax.toml").to_str().unwrap(),
        "--backend",
        "host",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("float image atomic") && err.contains("r32 float") && err.contains("D203"),
        "{err}"
    );
    // image_load v1, v0, s[4:11] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm through a 2-D T#.
    let load: &[(&str, &[u32])] = &[
        ("image_load", &[0xf0001100, 0x00010100]),
        ("s_endpgm", &[0xbf810000]),
    ];
    write_code(&dir.join("load.bin"), load);
    std::fs::write(dir.join("load.toml"), manifest("load.bin", "2d")).unwrap();
    let o = rdna2spv(&[
        "run",
        dir.join("load.toml").to_str().unwrap(),
        "--backend",
        "host",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("TYPE does not match") && err.contains("D183"),
        "{err}"
    );
    // Sampling a multisampled image (3-D and cube images sample since D196), and a separate sampled image
    // and sampler: refused at capture (D187).
    for (name, decl, call, want) in [
        (
            "sampledms",
            "uniform sampler2DMS s;",
            "texelFetch(s, ivec2(0), 0)",
            "a multisampled image",
        ),
        (
            "separate",
            "uniform texture2D t;\nlayout(binding = 2) uniform sampler sm;",
            "textureLod(sampler2D(t, sm), vec2(0.5), 0.0)",
            "separate sampled image",
        ),
    ] {
        let src = dir.join(format!("{name}.comp"));
        std::fs::write(
            &src,
            format!("#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0) {decl}\nlayout(binding = 1) buffer B {{ vec4 b[]; }};\nvoid main() {{ b[0] = {call}; }}\n"),
        )
        .unwrap();
        let o = rdna2spv(&[
            "capture",
            src.to_str().unwrap(),
            "-o",
            dir.join(format!("cap-{name}")).to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(want) && err.contains("D187"), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The decoder and printer on MIMG encodings against llvm-mc-19: each line assembled by LLVM, then
/// `rdna2spv disasm --raw` of its words prints the line exactly (NSA forms as ACO writes them, every
/// storage-image form with each dim, resinfo, atomics with the float ones of D203, sampling).
#[test]
fn mimg_decoding_matches_llvm_mc() {
    let lines = [
        "image_load v[4:7], v[2:3], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
        "image_load v[12:15], [v4, v1], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
        "image_load v0, v[2:4], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY unorm",
        "image_load v[0:1], [v2, v4], s[16:23] dmask:0x3 dim:SQ_RSRC_IMG_1D_ARRAY unorm",
        "image_load v[1:2], v[5:7], s[4:11] dmask:0x5 dim:SQ_RSRC_IMG_3D unorm glc",
        "image_load v3, v1, s[4:11] dmask:0x8 dim:SQ_RSRC_IMG_1D",
        "image_load_mip v10, v[8:9], s[20:27] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm",
        "image_load_mip v[4:6], [v1, v7, v3], s[8:15] dmask:0x7 dim:SQ_RSRC_IMG_2D unorm",
        "image_load_mip v[4:7], v[0:3], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY unorm",
        "image_store v[8:11], v[2:3], s[16:23] dmask:0xf dim:SQ_RSRC_IMG_2D unorm glc",
        "image_store v0, v[2:4], s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_3D unorm glc",
        "image_store v[6:7], [v2, v4], s[16:23] dmask:0x3 dim:SQ_RSRC_IMG_1D_ARRAY unorm",
        "image_store_mip v[12:15], [v2, v3, v0], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm",
        "image_store_mip v1, v[2:3], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm",
        "image_get_resinfo v[2:5], v0, s[4:11] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY unorm",
        "image_get_resinfo v[2:4], v0, s[12:19] dmask:0x7 dim:SQ_RSRC_IMG_3D unorm",
        "image_atomic_add v1, v0, s[4:11] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm glc",
        "image_atomic_cmpswap v[4:5], v[0:1], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D unorm glc",
        "image_atomic_fcmpswap v[4:5], v0, s[4:11] dmask:0x3 dim:SQ_RSRC_IMG_1D unorm glc",
        "image_atomic_fcmpswap v[6:7], v[0:2], s[20:27] dmask:0x3 dim:SQ_RSRC_IMG_3D unorm glc",
        "image_atomic_fmin v1, v[0:1], s[4:11] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm",
        "image_atomic_fmin v1, v[0:1], s[4:11] dmask:0x1 dim:SQ_RSRC_IMG_1D_ARRAY unorm glc",
        "image_atomic_fmax v2, [v0, v3, v5], s[12:19] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY unorm glc",
        "image_atomic_fmax v1, v0, s[4:11] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm glc",
        "image_sample v[0:3], v[4:5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        "image_sample_lz v[0:3], [v4, v9], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
    ];
    let dir = scratch("llvm-mc");
    let src = dir.join("mimg.s");
    std::fs::write(&src, lines.join("\n") + "\n").unwrap();
    let o = Command::new("llvm-mc-19")
        .args(["-arch=amdgcn", "-mcpu=gfx1030", "-show-encoding"])
        .arg(&src)
        .output()
        .expect("llvm-mc-19 (apt-get install llvm-19)");
    let text = ok(&o, "llvm-mc-19");
    let encodings: Vec<Vec<u8>> = text
        .lines()
        .filter_map(|l| l.split_once("encoding: [")?.1.split_once(']'))
        .map(|(bytes, _)| {
            bytes
                .split(',')
                .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap())
                .collect()
        })
        .collect();
    assert_eq!(encodings.len(), lines.len(), "{text}");
    for (line, enc) in lines.iter().zip(&encodings) {
        let f = dir.join("w.bin");
        std::fs::write(&f, enc).unwrap();
        let o = rdna2spv(&["disasm", "--raw", f.to_str().unwrap()]);
        let out = ok(&o, line);
        let printed = out
            .lines()
            .next()
            .unwrap()
            .split("//")
            .next()
            .unwrap()
            .trim();
        // llvm-objdump (the printer's contract) writes two spaces after the mnemonic of NSA sampler forms,
        // llvm-mc's input has one: whitespace runs compare as one space.
        let norm = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(norm(printed), *line, "words {enc:02x?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------------------
// Sampling forms of decision D191: texel offsets, depth compare, explicit gradients (32- and 16-bit), the
// LOD clamp, against a reference written here from D191's text (D187's model plus those steps).

/// A sampler as D191 defines its behaviour: filter (min = mag), address modes (0 wrap, 1 mirror, 2 clamp,
/// 3 mirror once, 6 border), point mips, LOD clamp and bias in 1/256, border colour type (0 transparent
/// black, 1 opaque black, 2 opaque white), compare function (0 never … 7 always, VkCompareOp's order).
#[derive(Clone, Copy)]
struct D191Sampler {
    linear: bool,
    addr: [u32; 2],
    max_lod: i32,
    bias: i32,
    border: u32,
    compare: u32,
}

/// Where a D191 sample's LOD comes from.
#[derive(Clone, Copy)]
enum D191Lod {
    Zero,
    Lod(f32),
    /// du/dx, dv/dx, du/dy, dv/dy (1-D: dv ignored).
    Grad([f32; 4]),
}

/// D191's LOD in 1/256: `floor(RN(lod·256))`, or from gradients `floor(128·log2 q)` with q the larger of
/// `(du·W)² + (dv·H)²` per direction in f32, saturated to [2^−64, 2^64]; plus the bias, clamped to
/// [max(MIN_LOD, floor(RN(clamp·256))), MAX_LOD].
fn d191_lod(s: &D191Sampler, lod: D191Lod, base: (i32, i32), d2: bool, clamp: Option<f32>) -> i32 {
    let l = match lod {
        D191Lod::Zero => 0,
        D191Lod::Lod(x) => ref_floor(x * 256.0).0,
        D191Lod::Grad(g) => ref_grad_lod(g, base, d2),
    };
    let lo = match clamp {
        Some(c) => ref_floor(c * 256.0).0.max(0),
        None => 0,
    };
    (l + s.bias).max(lo).min(s.max_lod)
}

/// One D191 sample at LOD `l` (1/256) with texel offset `off`; `dref`: the (already clamped) compare
/// reference. `texel(level, x, y)` gives a texel's four f32 components.
#[allow(clippy::too_many_arguments)]
fn d191_sample(
    s: &D191Sampler,
    u: f32,
    v: f32,
    off: (i32, i32),
    l: i32,
    levels: &[(i32, i32)],
    d2: bool,
    dref: Option<f32>,
    texel: &dyn Fn(usize, i32, i32) -> [f32; 4],
) -> [f32; 4] {
    let d = (((l + 128) >> 8) as usize).min(levels.len() - 1);
    let (w, h) = levels[d];
    let axis = |c: f32, n: i32, mode: u32, o: i32| -> ([(i32, bool); 2], u32) {
        let sc = c * n as f32;
        let (i0, a) = if s.linear {
            let (i, shc) = ref_floor(sc - 0.5);
            (i, ((shc - i as f32) * 256.0) as u32)
        } else {
            (ref_floor(sc).0, 0)
        };
        let i0 = i0 + o;
        ([ref_address(i0, n, mode), ref_address(i0 + 1, n, mode)], a)
    };
    let (xs, a) = axis(u, w, s.addr[0], off.0);
    let (ys, b) = if d2 {
        axis(v, h, s.addr[1], off.1)
    } else {
        ([(0, true); 2], 0)
    };
    let border = match s.border {
        0 => [0.0; 4],
        1 => [0.0, 0.0, 0.0, 1.0],
        _ => [1.0; 4],
    };
    let fetch = |(x, ix): (i32, bool), (y, iy): (i32, bool)| {
        let t = if ix && iy { texel(d, x, y) } else { border };
        match dref {
            None => t,
            Some(r) => {
                let t = t[0];
                let pass = match s.compare {
                    0 => false,
                    1 => r < t,
                    2 => r == t,
                    3 => r <= t,
                    4 => r > t,
                    5 => r != t,
                    6 => r >= t,
                    _ => true,
                };
                [if pass { 1.0 } else { 0.0 }; 4]
            }
        }
    };
    let t00 = fetch(xs[0], ys[0]);
    if !s.linear {
        return t00;
    }
    let t10 = fetch(xs[1], ys[0]);
    let (a1, a0) = (a as f32 / 256.0, (256 - a) as f32 / 256.0);
    if !d2 {
        return std::array::from_fn(|c| t00[c] * a0 + t10[c] * a1);
    }
    let t01 = fetch(xs[0], ys[1]);
    let t11 = fetch(xs[1], ys[1]);
    let (b1, b0) = (b as f32 / 256.0, (256 - b) as f32 / 256.0);
    std::array::from_fn(|c| {
        let r0 = t00[c] * a0 + t10[c] * a1;
        let r1 = t01[c] * a0 + t11[c] * a1;
        r0 * b0 + r1 * b1
    })
}

/// Hand-assembled (llvm-mc-19, gfx1030) wave32 code: each invocation reads 16 dwords — (u, v, lod, ref),
/// (packed offsets, du/dx, dv/dx, du/dy), (dv/dy, slice, clamp, f16 du/dx|dv/dx), (f16 du/dy|dv/dy, -, -,
/// -) — and samples with every D191 form: offsets, gradients (f32 and g16), the LOD clamp, on a 2-D rgba8
/// image (s[8:15]), a 1-D one (s[88:95]) and a 2-D r32f array (s[48:55]); depth compares through eight
/// samplers, one per compare function (s[56:87]), on a 2-D r32f image (s[40:47]), the array, and a 2-D
/// r16 unorm image (s[96:103], whose reference is clamped to [0, 1]).
const SAMPLE_FORMS_ASM: &[(&str, &[u32])] = &[
    ("s_lshl_b32 s39, s38, 5", &[0x8f278526]),
    ("v_add_nc_u32_e32 v0, s39, v0", &[0x4a000027]),
    ("v_lshlrev_b32_e32 v1, 6, v0", &[0x34020086]),
    ("global_load_dwordx4 v[2:5], v1, s[0:1]", &[0xdc388000, 0x02000001]),
    ("global_load_dwordx4 v[6:9], v1, s[0:1] offset:16", &[0xdc388010, 0x06000001]),
    ("global_load_dwordx4 v[10:13], v1, s[0:1] offset:32", &[0xdc388020, 0x0a000001]),
    ("global_load_dwordx4 v[14:17], v1, s[0:1] offset:48", &[0xdc388030, 0x0e000001]),
    ("v_lshlrev_b32_e32 v18, 8, v0", &[0x34240088]),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "image_sample_lz_o v[20:23], [v6, v2, v3], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0dc0f0a, 0x00821406, 0x00000302],
    ),
    (
        "image_sample_l_o v[24:27], [v6, v2, v3, v4], s[8:15], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0d00f0a, 0x00a21806, 0x00040302],
    ),
    (
        "image_sample_d v[28:31], [v7, v8, v9, v10, v2, v3], s[8:15], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0880f0c, 0x00c21c07, 0x020a0908, 0x00000003],
    ),
    (
        "image_sample_d_o v[32:35], [v6, v7, v8, v9, v10, v2, v3], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0c80f0c, 0x00822006, 0x0a090807, 0x00000302],
    ),
    (
        "image_sample_d_g16 v[36:39], [v13, v14, v2, v3], s[8:15], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0880f0b, 0x00a2240d, 0x0003020e],
    ),
    (
        "image_sample_d_cl v[40:43], [v7, v8, v9, v10, v2, v3, v12], s[8:15], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf08c0f0c, 0x00c22807, 0x020a0908, 0x00000c03],
    ),
    (
        "image_sample_d_o_g16 v[44:47], [v6, v13, v14, v2], s[88:95], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_1D",
        &[0xf0c80f03, 0x00b62c06, 0x00020e0d],
    ),
    (
        "image_sample_d v[48:51], [v7, v9, v2], s[88:95], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_1D",
        &[0xf0880f02, 0x00d63007, 0x00000209],
    ),
    (
        "image_sample_d_cl_o v[52:55], [v6, v7, v8, v9, v10, v2, v3, v11, v12], s[48:55], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY",
        &[0xf0cc0f2c, 0x00cc3406, 0x0a090807, 0x0c0b0302],
    ),
    (
        "image_sample_c_lz v56, [v5, v2, v3], s[40:47], s[56:59] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0bc010a, 0x01ca3805, 0x00000302],
    ),
    (
        "image_sample_c_l v57, [v5, v2, v3, v4], s[40:47], s[60:63] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0b0010a, 0x01ea3905, 0x00040302],
    ),
    (
        "image_sample_c_lz_o v58, [v6, v5, v2, v3], s[40:47], s[64:67] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0fc010a, 0x020a3a06, 0x00030205],
    ),
    (
        "image_sample_c_l_o v59, [v6, v5, v2, v3, v4], s[40:47], s[68:71] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0f0010a, 0x022a3b06, 0x04030205],
    ),
    (
        "image_sample_c_d v60, [v5, v7, v8, v9, v10, v2, v3], s[40:47], s[72:75] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0a8010c, 0x024a3c05, 0x0a090807, 0x00000302],
    ),
    (
        "image_sample_c_d_o v61, [v6, v5, v7, v8, v9, v10, v2, v3], s[40:47], s[76:79] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0e8010c, 0x026a3d06, 0x09080705, 0x0003020a],
    ),
    (
        "image_sample_c_d_cl_o_g16 v62, [v6, v5, v13, v14, v2, v3, v12], s[40:47], s[80:83] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0ec010d, 0x028a3e06, 0x020e0d05, 0x00000c03],
    ),
    (
        "image_sample_c_d_g16 v63, [v5, v13, v14, v2, v3], s[96:103], s[84:87] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0a8010b, 0x02b83f05, 0x03020e0d],
    ),
    (
        "image_sample_c_lz v64, [v5, v2, v3, v11], s[48:55], s[60:63] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY",
        &[0xf0bc012a, 0x01ec4005, 0x000b0302],
    ),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    ("global_store_dwordx4 v18, v[20:23], s[2:3]", &[0xdc788000, 0x00021412]),
    ("global_store_dwordx4 v18, v[24:27], s[2:3] offset:16", &[0xdc788010, 0x00021812]),
    ("global_store_dwordx4 v18, v[28:31], s[2:3] offset:32", &[0xdc788020, 0x00021c12]),
    ("global_store_dwordx4 v18, v[32:35], s[2:3] offset:48", &[0xdc788030, 0x00022012]),
    ("global_store_dwordx4 v18, v[36:39], s[2:3] offset:64", &[0xdc788040, 0x00022412]),
    ("global_store_dwordx4 v18, v[40:43], s[2:3] offset:80", &[0xdc788050, 0x00022812]),
    ("global_store_dwordx4 v18, v[44:47], s[2:3] offset:96", &[0xdc788060, 0x00022c12]),
    ("global_store_dwordx4 v18, v[48:51], s[2:3] offset:112", &[0xdc788070, 0x00023012]),
    ("global_store_dwordx4 v18, v[52:55], s[2:3] offset:128", &[0xdc788080, 0x00023412]),
    ("global_store_dwordx4 v18, v[56:59], s[2:3] offset:144", &[0xdc788090, 0x00023812]),
    ("global_store_dwordx4 v18, v[60:63], s[2:3] offset:160", &[0xdc7880a0, 0x00023c12]),
    (
        "image_sample_c_d_cl v65, [v5, v7, v8, v9, v10, v2, v3, v12], s[40:47], s[72:75] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0ac010c, 0x024a4105, 0x0a090807, 0x000c0302],
    ),
    (
        "image_sample_c_d_cl_o v66, [v6, v5, v7, v8, v9, v10, v2, v3, v12], s[40:47], s[80:83] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0ec010c, 0x028a4206, 0x09080705, 0x0c03020a],
    ),
    (
        "image_sample_c_d_cl_g16 v67, [v5, v13, v14, v2, v3, v12], s[96:103], s[84:87] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0ac010d, 0x02b84305, 0x03020e0d, 0x0000000c],
    ),
    (
        "image_sample_d_cl_g16 v[68:71], [v13, v14, v2, v3, v12], s[8:15], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf08c0f0b, 0x00c2440d, 0x0c03020e],
    ),
    (
        "image_sample_c_d_o_g16 v72, [v6, v5, v13, v14, v2, v3], s[40:47], s[64:67] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0e8010d, 0x020a4806, 0x020e0d05, 0x00000003],
    ),
    (
        "image_sample_d_cl_o_g16 v[73:76], [v6, v13, v14, v2, v3, v12], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0cc0f0d, 0x00824906, 0x03020e0d, 0x0000000c],
    ),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    ("global_store_dwordx4 v18, v[64:67], s[2:3] offset:176", &[0xdc7880b0, 0x00024012]),
    ("global_store_dwordx4 v18, v[68:71], s[2:3] offset:192", &[0xdc7880c0, 0x00024412]),
    ("global_store_dwordx4 v18, v[72:75], s[2:3] offset:208", &[0xdc7880d0, 0x00024812]),
    ("global_store_dword v18, v76, s[2:3] offset:224", &[0xdc7080e0, 0x00024c12]),
    ("s_endpgm", &[0xbf810000]),
];

// coverage: sample_offset_compare_gradient_forms: IMAGE_SAMPLE_LZ_O IMAGE_SAMPLE_L_O IMAGE_SAMPLE_D IMAGE_SAMPLE_D_O IMAGE_SAMPLE_D_G16 IMAGE_SAMPLE_D_CL IMAGE_SAMPLE_D_O_G16 IMAGE_SAMPLE_D_CL_O IMAGE_SAMPLE_C_LZ IMAGE_SAMPLE_C_L IMAGE_SAMPLE_C_LZ_O IMAGE_SAMPLE_C_L_O IMAGE_SAMPLE_C_D IMAGE_SAMPLE_C_D_O IMAGE_SAMPLE_C_D_CL_O_G16 IMAGE_SAMPLE_C_D_G16 IMAGE_SAMPLE_C_D_CL IMAGE_SAMPLE_C_D_CL_O IMAGE_SAMPLE_C_D_CL_G16 IMAGE_SAMPLE_D_CL_G16 IMAGE_SAMPLE_C_D_O_G16 IMAGE_SAMPLE_D_CL_O_G16
/// Every D191 form in [`SAMPLE_FORMS_ASM`] over 256 lanes (NaN, ±inf and texel-edge coordinates, offsets
/// over the whole 6-bit range, gradients from zero and NaN to 2^4 texels so the LOD crosses every level,
/// references equal to texels, outside [0, 1] and NaN), `--backend both`, every result compared with
/// [`d191_sample`].
#[test]
fn sample_offset_compare_gradient_forms() {
    let dir = scratch("forms");
    write_code(&dir.join("k.bin"), SAMPLE_FORMS_ASM);
    let mut g = Lcg(191);
    let levels = [(13, 7), (6, 3), (3, 1)];
    let tex: Vec<u8> = (0..112 * 4).map(|_| (g.next() >> 8) as u8).collect();
    let line: Vec<u8> = (0..13 * 4).map(|_| (g.next() >> 8) as u8).collect();
    let depth: Vec<f32> = (0..112).map(|_| (g.next() % 9) as f32 / 8.0).collect();
    let arr: Vec<f32> = (0..24 * 3).map(|_| (g.next() % 9) as f32 / 8.0).collect();
    let codes = [0u16, 8191, 16384, 32768, 49151, 65535];
    let un: Vec<u16> = (0..109).map(|_| codes[(g.next() % 6) as usize]).collect();
    let f32_bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    std::fs::write(dir.join("tex.bin"), &tex).unwrap();
    std::fs::write(dir.join("line.bin"), &line).unwrap();
    std::fs::write(dir.join("depth.bin"), f32_bytes(&depth)).unwrap();
    std::fs::write(dir.join("arr.bin"), f32_bytes(&arr)).unwrap();
    let un_bytes: Vec<u8> = un.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(dir.join("un.bin"), un_bytes).unwrap();
    let n = 256usize;
    let rnd =
        |lo: f32, hi: f32, g: &mut Lcg| lo + (g.next() % 10_000) as f32 * ((hi - lo) / 10_000.0);
    let grad = |i: usize, g: &mut Lcg| -> f32 {
        match g.next() % 16 {
            0 => 0.0,
            1 if i < 64 => f32::NAN,
            _ => {
                let e = (g.next() % 9) as i32 - 9;
                let m = 1.0 + (g.next() % 1024) as f32 / 1024.0;
                let s = if g.next().is_multiple_of(2) {
                    1.0
                } else {
                    -1.0
                };
                s * m * 2f32.powi(e)
            }
        }
    };
    let refs: Vec<f32> = (-1..=9)
        .map(|k| k as f32 / 8.0)
        .chain(codes.iter().map(|&c| c as f32 / 65535.0))
        .chain([1.5, -0.5])
        .collect();
    let half16 = |x: f32| f32_to_f16(x) as u32;
    let mut lanes: Vec<[u32; 16]> = Vec::new();
    for i in 0..n {
        let u = match i {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3..=16 => (i - 3) as f32 / 13.0,
            _ => rnd(-1.5, 2.5, &mut g),
        };
        let v = match i {
            3..=16 => (i % 8) as f32 / 7.0,
            _ => rnd(-1.5, 2.5, &mut g),
        };
        let lod = rnd(-1.0, 4.0, &mut g);
        let r = if i == 5 {
            f32::NAN
        } else {
            refs[(g.next() as usize) % refs.len()]
        };
        let (ox, oy) = ((g.next() % 64) as i32 - 32, (g.next() % 64) as i32 - 32);
        let off = (ox as u32 & 0x3f) | (oy as u32 & 0x3f) << 8;
        let mut gr = [
            grad(i, &mut g),
            grad(i, &mut g),
            grad(i, &mut g),
            grad(i, &mut g),
        ];
        // Lanes 17..=80: gradients whose LOD (through the third sampler) sits one 1/256 step below a
        // point-mip boundary (L = 127 or 383: one step more picks the next level) or on it (128).
        if (17..=80).contains(&i) {
            let boundary = D191Sampler {
                linear: true,
                addr: [2, 0],
                max_lod: 384,
                bias: 0,
                border: 0,
                compare: 0,
            };
            let want = [127, 128, 383, 127][i % 4];
            while d191_lod(&boundary, D191Lod::Grad(gr), (13, 7), true, None) != want {
                gr = std::array::from_fn(|_| grad(1000, &mut g));
            }
        }
        let slice = match i % 4 {
            0 => (i / 4 % 9) as f32 * 0.5 - 1.0,
            _ => rnd(-1.0, 4.0, &mut g),
        };
        let clamp = rnd(-0.5, 3.0, &mut g);
        // 16-bit gradients: n/64 (exact halves), as 32-bit ones cross the levels.
        let h: Vec<f32> = (0..4)
            .map(|_| ((g.next() % 1025) as i32 - 512) as f32 / 64.0)
            .collect();
        lanes.push([
            u.to_bits(),
            v.to_bits(),
            lod.to_bits(),
            r.to_bits(),
            off,
            gr[0].to_bits(),
            gr[1].to_bits(),
            gr[2].to_bits(),
            gr[3].to_bits(),
            slice.to_bits(),
            clamp.to_bits(),
            half16(h[0]) | half16(h[1]) << 16,
            half16(h[2]) | half16(h[3]) << 16,
            0,
            0,
            0,
        ]);
    }
    let input: Vec<u8> = lanes
        .iter()
        .flatten()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    std::fs::write(dir.join("in.bin"), input).unwrap();
    let manifest = format!(
        r#"
code = "k.bin"
grid = [{n}, 1, 1]
workgroup = [32, 1, 1]
[abi]
wave_size = 32
sgpr = [
    {{ reg = 0, address = "in" }},
    {{ reg = 2, address = "o" }},
    {{ reg = 8, tsharp = "tex" }},
    {{ reg = 16, ssharp = {{ filter = "nearest", address = ["repeat", "clamp_to_edge"] }} }},
    {{ reg = 20, ssharp = {{ filter = "linear", address = ["mirrored_repeat", "clamp_to_border"], border = "opaque_white", lod_bias = 0.25 }} }},
    {{ reg = 24, ssharp = {{ filter = "linear", address = ["clamp_to_edge", "repeat"], max_lod = 1.5 }} }},
    {{ reg = 38, workgroup_id = 0 }},
    {{ reg = 40, tsharp = "depth" }},
    {{ reg = 48, tsharp = "arr" }},
    {{ reg = 56, ssharp = {{ filter = "nearest", compare = "never" }} }},
    {{ reg = 60, ssharp = {{ filter = "linear", address = ["repeat", "repeat"], compare = "less" }} }},
    {{ reg = 64, ssharp = {{ filter = "nearest", address = ["mirrored_repeat", "mirror_clamp_to_edge"], compare = "equal" }} }},
    {{ reg = 68, ssharp = {{ filter = "linear", address = ["clamp_to_border", "clamp_to_border"], compare = "always" }} }},
    {{ reg = 72, ssharp = {{ filter = "linear", address = ["clamp_to_border", "clamp_to_border"], border = "opaque_white", compare = "greater" }} }},
    {{ reg = 76, ssharp = {{ filter = "nearest", address = ["clamp_to_border", "clamp_to_border"], border = "opaque_black", compare = "not_equal" }} }},
    {{ reg = 80, ssharp = {{ filter = "linear", address = ["repeat", "mirror_clamp_to_edge"], compare = "greater_or_equal" }} }},
    {{ reg = 84, ssharp = {{ filter = "linear", address = ["clamp_to_edge", "mirrored_repeat"], compare = "less_or_equal" }} }},
    {{ reg = 88, tsharp = "line" }},
    {{ reg = 96, tsharp = "un" }},
]
[[buffers]]
name = "in"
file = "in.bin"
[[buffers]]
name = "o"
size = {}
output = true
[[images]]
name = "tex"
format = "rgba8_unorm"
dim = "2d"
extent = [13, 7, 1]
levels = 3
file = "tex.bin"
[[images]]
name = "line"
format = "rgba8_unorm"
dim = "1d"
extent = [9, 1, 1]
levels = 2
file = "line.bin"
[[images]]
name = "depth"
format = "r32_float"
dim = "2d"
extent = [13, 7, 1]
levels = 3
file = "depth.bin"
[[images]]
name = "arr"
format = "r32_float"
dim = "2d_array"
extent = [5, 4, 1]
levels = 2
layers = 3
file = "arr.bin"
[[images]]
name = "un"
format = "r16_unorm"
dim = "2d"
extent = [13, 7, 1]
levels = 2
file = "un.bin"
"#,
        n * 256
    );
    let out = run_manifest(&dir, &manifest);
    let o = words(&read(&out.join("o.bin")));
    // Texels (D183's layout: levels one after another, slices within a level).
    let base = [0i32, 91, 109];
    let tex_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
        let t = (base[l] + y * levels[l].0 + x) as usize;
        std::array::from_fn(|c| tex[4 * t + c] as f32 / 255.0)
    };
    let line_t = |l: usize, x: i32, _y: i32| -> [f32; 4] {
        let t = ([0i32, 9][l] + x) as usize;
        std::array::from_fn(|c| line[4 * t + c] as f32 / 255.0)
    };
    let depth_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
        [
            depth[(base[l] + y * levels[l].0 + x) as usize],
            0.0,
            0.0,
            1.0,
        ]
    };
    let un_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
        let c = un[(base[l] + y * levels[l].0 + x) as usize];
        [c as f32 / 65535.0, 0.0, 0.0, 1.0]
    };
    let arr_levels = [(5, 4), (2, 2)];
    let arr_t = |sl: i32| {
        let arr = &arr;
        move |l: usize, x: i32, y: i32| -> [f32; 4] {
            let (w, h) = arr_levels[l];
            let t = [0i32, 60][l] + (sl * h + y) * w + x;
            [arr[t as usize], 0.0, 0.0, 1.0]
        }
    };
    let smp = |linear, addr, max_lod, bias, border, compare| D191Sampler {
        linear,
        addr,
        max_lod,
        bias,
        border,
        compare,
    };
    let s0 = smp(false, [0, 2], 3840, 0, 0, 0);
    let s1 = smp(true, [1, 6], 3840, 64, 2, 0);
    let s2 = smp(true, [2, 0], 384, 0, 0, 0);
    let cs = [
        smp(false, [2, 2], 3840, 0, 0, 0),
        smp(true, [0, 0], 3840, 0, 0, 1),
        smp(false, [1, 3], 3840, 0, 0, 2),
        smp(true, [6, 6], 3840, 0, 0, 7),
        smp(true, [6, 6], 3840, 0, 2, 4),
        smp(false, [6, 6], 3840, 0, 1, 5),
        smp(true, [0, 3], 3840, 0, 0, 6),
        smp(true, [2, 1], 3840, 0, 0, 3),
    ];
    let (mut fractional, mut level_seen, mut clamp_matters) = (0, [0usize; 3], 0);
    // The r16 unorm compare with a reference as given, to count where D191's clamp decides.
    let cmp_un = |u: f32, v: f32, r: f32, lod: D191Lod| {
        let s = &cs[7];
        d191_sample(
            s,
            u,
            v,
            (0, 0),
            d191_lod(s, lod, (13, 7), true, None),
            &levels[..2],
            true,
            Some(r),
            &un_t,
        )[0]
    };
    for (i, w) in lanes.iter().enumerate() {
        let f = |k: usize| f32::from_bits(w[k]);
        let (u, v, lod, r) = (f(0), f(1), f(2), f(3));
        let sx = |x: u32| ((x << 26) as i32) >> 26;
        let off = (sx(w[4]), sx(w[4] >> 8));
        let gr = D191Lod::Grad([f(5), f(6), f(7), f(8)]);
        let h = |x: u32| f16_to_f32(x as u16);
        let g16 = D191Lod::Grad([h(w[11]), h(w[11] >> 16), h(w[12]), h(w[12] >> 16)]);
        let g16_1d = D191Lod::Grad([h(w[11]), 0.0, h(w[12]), 0.0]);
        let gr_1d = D191Lod::Grad([f(5), 0.0, f(7), 0.0]);
        let (slice_in, clamp) = (f(9), f(10));
        let slice = if slice_in.is_nan() {
            0
        } else {
            (slice_in
                .clamp(-16_777_216.0, 16_777_216.0)
                .round_ties_even() as i32)
                .clamp(0, 2)
        };
        let l2 = |s: &D191Sampler, lod, cl| d191_lod(s, lod, (13, 7), true, cl);
        let none = (0, 0);
        level_seen[((l2(&s2, gr, None) + 128) >> 8).min(2) as usize] += 1;
        let r_un = r.clamp(0.0, 1.0); // NaN stays NaN
        let un_raw = cmp_un(u, v, r, g16);
        clamp_matters += (un_raw.to_bits() != cmp_un(u, v, r_un, g16).to_bits()) as usize;
        // (output dword, what, expected)
        let mut want: Vec<(usize, &str, Vec<f32>)> = vec![
            (
                0,
                "lz_o",
                d191_sample(
                    &s0,
                    u,
                    v,
                    off,
                    l2(&s0, D191Lod::Zero, None),
                    &levels,
                    true,
                    None,
                    &tex_t,
                )
                .to_vec(),
            ),
            (
                4,
                "l_o",
                d191_sample(
                    &s1,
                    u,
                    v,
                    off,
                    l2(&s1, D191Lod::Lod(lod), None),
                    &levels,
                    true,
                    None,
                    &tex_t,
                )
                .to_vec(),
            ),
            (
                8,
                "d",
                d191_sample(
                    &s2,
                    u,
                    v,
                    none,
                    l2(&s2, gr, None),
                    &levels,
                    true,
                    None,
                    &tex_t,
                )
                .to_vec(),
            ),
            (
                12,
                "d_o",
                d191_sample(
                    &s0,
                    u,
                    v,
                    off,
                    l2(&s0, gr, None),
                    &levels,
                    true,
                    None,
                    &tex_t,
                )
                .to_vec(),
            ),
            (
                16,
                "d_g16",
                d191_sample(
                    &s1,
                    u,
                    v,
                    none,
                    l2(&s1, g16, None),
                    &levels,
                    true,
                    None,
                    &tex_t,
                )
                .to_vec(),
            ),
            (
                20,
                "d_cl",
                d191_sample(
                    &s2,
                    u,
                    v,
                    none,
                    l2(&s2, gr, Some(clamp)),
                    &levels,
                    true,
                    None,
                    &tex_t,
                )
                .to_vec(),
            ),
            (
                24,
                "1d d_o_g16",
                d191_sample(
                    &s1,
                    u,
                    0.0,
                    off,
                    d191_lod(&s1, g16_1d, (9, 1), false, None),
                    &[(9, 1), (4, 1)],
                    false,
                    None,
                    &line_t,
                )
                .to_vec(),
            ),
            (
                28,
                "1d d",
                d191_sample(
                    &s2,
                    u,
                    0.0,
                    none,
                    d191_lod(&s2, gr_1d, (9, 1), false, None),
                    &[(9, 1), (4, 1)],
                    false,
                    None,
                    &line_t,
                )
                .to_vec(),
            ),
            (
                32,
                "array d_cl_o",
                d191_sample(
                    &s2,
                    u,
                    v,
                    off,
                    d191_lod(&s2, gr, (5, 4), true, Some(clamp)),
                    &arr_levels,
                    true,
                    None,
                    &arr_t(slice),
                )
                .to_vec(),
            ),
        ];
        let cmp = |k: usize,
                   lod,
                   off,
                   cl,
                   t: &dyn Fn(usize, i32, i32) -> [f32; 4],
                   lv: &[(i32, i32)],
                   rr: f32| {
            let s = &cs[k];
            vec![
                d191_sample(
                    s,
                    u,
                    v,
                    off,
                    d191_lod(s, lod, lv[0], true, cl),
                    lv,
                    true,
                    Some(rr),
                    t,
                )[0],
            ]
        };
        want.push((
            36,
            "c_lz never",
            cmp(0, D191Lod::Zero, none, None, &depth_t, &levels, r),
        ));
        want.push((
            37,
            "c_l less",
            cmp(1, D191Lod::Lod(lod), none, None, &depth_t, &levels, r),
        ));
        want.push((
            38,
            "c_lz_o equal",
            cmp(2, D191Lod::Zero, off, None, &depth_t, &levels, r),
        ));
        want.push((
            39,
            "c_l_o always",
            cmp(3, D191Lod::Lod(lod), off, None, &depth_t, &levels, r),
        ));
        want.push((
            40,
            "c_d greater",
            cmp(4, gr, none, None, &depth_t, &levels, r),
        ));
        want.push((
            41,
            "c_d_o not_equal",
            cmp(5, gr, off, None, &depth_t, &levels, r),
        ));
        want.push((
            42,
            "c_d_cl_o_g16 greater_or_equal",
            cmp(6, g16, off, Some(clamp), &depth_t, &levels, r),
        ));
        want.push((
            43,
            "c_d_g16 r16 unorm less_or_equal",
            cmp(7, g16, none, None, &un_t, &levels[..2], r_un),
        ));
        want.push((
            44,
            "array c_lz less",
            cmp(1, D191Lod::Zero, none, None, &arr_t(slice), &arr_levels, r),
        ));
        want.push((
            45,
            "c_d_cl greater",
            cmp(4, gr, none, Some(clamp), &depth_t, &levels, r),
        ));
        want.push((
            46,
            "c_d_cl_o greater_or_equal",
            cmp(6, gr, off, Some(clamp), &depth_t, &levels, r),
        ));
        want.push((
            47,
            "c_d_cl_g16 r16 unorm less_or_equal",
            cmp(7, g16, none, Some(clamp), &un_t, &levels[..2], r_un),
        ));
        want.push((
            48,
            "d_cl_g16",
            d191_sample(
                &s2,
                u,
                v,
                none,
                l2(&s2, g16, Some(clamp)),
                &levels,
                true,
                None,
                &tex_t,
            )
            .to_vec(),
        ));
        want.push((
            52,
            "c_d_o_g16 equal",
            cmp(2, g16, off, None, &depth_t, &levels, r),
        ));
        want.push((
            53,
            "d_cl_o_g16",
            d191_sample(
                &s0,
                u,
                v,
                off,
                l2(&s0, g16, Some(clamp)),
                &levels,
                true,
                None,
                &tex_t,
            )
            .to_vec(),
        ));
        for (at, what, vals) in &want {
            for (c, x) in vals.iter().enumerate() {
                let got = o[64 * i + at + c];
                assert_eq!(
                    got,
                    x.to_bits(),
                    "lane {i} {what} component {c} (u {u}, v {v}, lod {lod}, ref {r}, offset {off:?}, lane words {w:08x?}): {} want {x}",
                    f32::from_bits(got)
                );
            }
            if vals.len() == 1 && vals[0] != 0.0 && vals[0] != 1.0 {
                fractional += 1;
            }
        }
    }
    // Filtered compares are not all 0 or 1, and the gradients reach every level.
    assert!(fractional > n / 2, "{fractional}");
    assert!(level_seen.iter().all(|&k| k > n / 10), "{level_seen:?}");
    assert!(clamp_matters > 0, "{clamp_matters}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// D191's refusals: the implicit-derivative, bias and coarse-derivative forms and a compare with a dmask
/// other than 0x1 at lift time (exit 2, naming the instruction), a compare on a UINT format at run time.
#[test]
fn sample_form_refusals() {
    let dir = scratch("forms-refuse");
    let cases: [(&str, &[u32], &str, &str); 5] = [
        // image_sample_b v[0:3], v[0:2], s[4:11], s[12:15] dmask:0xf dim:SQ_RSRC_IMG_2D
        (
            "b",
            &[0xf0940f08, 0x00610000],
            "r32_float",
            "image_sample_b: LOD bias",
        ),
        // image_sample_c_cd v0, v[0:6], s[4:11], s[12:15] dmask:0x1 dim:SQ_RSRC_IMG_2D
        (
            "cd",
            &[0xf1a80108, 0x00610000],
            "r32_float",
            "image_sample_c_cd: coarse",
        ),
        // image_sample_o v[0:3], v[0:2], s[4:11], s[12:15] dmask:0xf dim:SQ_RSRC_IMG_2D
        (
            "o",
            &[0xf0c00f08, 0x00610000],
            "r32_float",
            "image_sample_o: implicit derivatives",
        ),
        // image_sample_c_lz v[0:3], v[0:2], s[4:11], s[12:15] dmask:0xf dim:SQ_RSRC_IMG_2D
        (
            "dmask",
            &[0xf0bc0f08, 0x00610000],
            "r32_float",
            "dmask other than 0x1",
        ),
        // image_sample_c_lz v1, v[0:2], s[4:11], s[12:15] dmask:0x1 dim:SQ_RSRC_IMG_2D
        (
            "uint",
            &[0xf0bc0108, 0x00610100],
            "r32_uint",
            "depth compare on a UINT/SINT format",
        ),
    ];
    for (name, words, format, want) in cases {
        let code: &[(&str, &[u32])] = &[(name, words), ("s_endpgm", &[0xbf810000])];
        write_code(&dir.join(format!("{name}.bin")), code);
        let m = dir.join(format!("{name}.toml"));
        std::fs::write(
            &m,
            format!(
                "code = \"{name}.bin\"\ngrid = [32, 1, 1]\nworkgroup = [32, 1, 1]\n[abi]\nwave_size = 32\nsgpr = [ {{ reg = 4, tsharp = \"t\" }}, {{ reg = 12, ssharp = {{ filter = \"nearest\", compare = \"less\" }} }} ]\n[[images]]\nname = \"t\"\nformat = \"{format}\"\ndim = \"2d\"\nextent = [4, 4, 1]\n"
            ),
        )
        .unwrap();
        let o = rdna2spv(&["run", m.to_str().unwrap(), "--backend", "host"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_ne!(o.status.code(), Some(0), "{name}: {err}");
        if name != "uint" {
            assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        }
        assert!(err.contains(want) && err.contains("D191"), "{name}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// coverage: sample_forms_captured: IMAGE_SAMPLE_LZ_O IMAGE_SAMPLE_L_O IMAGE_SAMPLE_C_LZ IMAGE_SAMPLE_C_L IMAGE_SAMPLE_C_LZ_O IMAGE_SAMPLE_C_L_O IMAGE_SAMPLE_D IMAGE_SAMPLE_D_O IMAGE_SAMPLE_C_D IMAGE_SAMPLE_C_D_O
/// The D191 forms as ACO emits them for GLSL of our own: sample_offset.comp (`textureLodOffset`, wave32),
/// sample_shadow.comp (`textureLod`/`textureLodOffset` on a `sampler2DShadow`, wave64) and
/// sample_grad.comp (`textureGrad`/`textureGradOffset` on 2-D, 2-D array and shadow samplers, wave32),
/// captured with `rdna2spv capture` (samplers, compare operations, formats and shapes from the command
/// line, no hand-written `[abi]`), run `--backend both`, every result against [`d191_sample`] on the
/// GLSL's operands.
#[test]
fn sample_forms_captured() {
    let levels = [(13, 7), (6, 3), (3, 1)];
    let base = [0i32, 91, 109];
    let arr_levels = [(5, 4), (2, 2)];
    let n = 256usize;
    let mut g = Lcg(1910);
    let rnd =
        |lo: f32, hi: f32, g: &mut Lcg| lo + (g.next() % 10_000) as f32 * ((hi - lo) / 10_000.0);
    let grad = |g: &mut Lcg| -> f32 {
        match g.next() % 16 {
            0 => 0.0,
            _ => {
                let e = (g.next() % 9) as i32 - 9;
                let m = 1.0 + (g.next() % 1024) as f32 / 1024.0;
                let s = if g.next().is_multiple_of(2) {
                    1.0
                } else {
                    -1.0
                };
                s * m * 2f32.powi(e)
            }
        }
    };
    let coord = |i: usize, g: &mut Lcg| match i {
        0..=12 => (i as f32 / 13.0, (i % 8) as f32 / 7.0),
        _ => (rnd(-1.5, 2.5, g), rnd(-1.5, 2.5, g)),
    };
    let f32_bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let smp = |linear, addr, compare| D191Sampler {
        linear,
        addr,
        max_lod: 3840,
        bias: 0,
        border: 0,
        compare,
    };
    let args = |list: &[&str], dir: &Path, inputs: &[(&str, &str)]| -> Vec<String> {
        list.iter()
            .map(|s| s.to_string())
            .chain(
                inputs
                    .iter()
                    .map(|(k, f)| format!("--input={k}={}", dir.join(f).display())),
            )
            .collect()
    };
    let rgba = |t: &[u8]| {
        let t = t.to_vec();
        move |l: usize, x: i32, y: i32| -> [f32; 4] {
            let k = (base[l] + y * levels[l].0 + x) as usize;
            std::array::from_fn(|c| t[4 * k + c] as f32 / 255.0)
        }
    };
    let r32 = |t: &[f32]| {
        let t = t.to_vec();
        move |l: usize, x: i32, y: i32| -> [f32; 4] {
            [t[(base[l] + y * levels[l].0 + x) as usize], 0.0, 0.0, 1.0]
        }
    };

    // textureLodOffset, wave32: nearest repeat × mirrored_repeat; linear border × mirror once.
    {
        let dir = scratch("cap-offset");
        let near: Vec<u8> = (0..112 * 4).map(|_| (g.next() >> 8) as u8).collect();
        let lin: Vec<u8> = (0..112 * 4).map(|_| (g.next() >> 8) as u8).collect();
        let inp: Vec<[f32; 4]> = (0..n)
            .map(|i| {
                let (u, v) = coord(i, &mut g);
                [u, v, rnd(-1.0, 4.0, &mut g), 0.0]
            })
            .collect();
        std::fs::write(dir.join("near.bin"), &near).unwrap();
        std::fs::write(dir.join("lin.bin"), &lin).unwrap();
        std::fs::write(dir.join("inp.bin"), f32_bytes(inp.as_flattened())).unwrap();
        let a = args(
            &[
                "--grid",
                "256",
                "--image",
                "nearestTex=13,7,1,3,1",
                "--image",
                "linearTex=13,7,1,3,1",
                "--sampler",
                "nearestTex=nearest,repeat,mirrored_repeat",
                "--sampler",
                "linearTex=linear,clamp_to_border,mirror_clamp_to_edge",
                "--size",
                "o=16384",
            ],
            &dir,
            &[
                ("nearestTex", "near.bin"),
                ("linearTex", "lin.bin"),
                ("inp", "inp.bin"),
            ],
        );
        let m = capture("sample_offset.comp", 32, &a, &dir);
        let listing =
            std::fs::read_to_string(dir.join("sample_offset.navi21.w32.aco.txt")).unwrap();
        assert_eq!(
            listing.matches("image_sample_lz_o v").count(),
            2,
            "{listing}"
        );
        assert_eq!(
            listing.matches("image_sample_l_o v").count(),
            2,
            "{listing}"
        );
        let out = dir.join("out");
        run_both(&m, &out);
        let o = words(&read(&out.join("o.bin")));
        let (sn, sl) = (smp(false, [0, 1], 0), smp(true, [6, 3], 0));
        let (tn, tl) = (rgba(&near), rgba(&lin));
        for (i, &[u, v, lod, _]) in inp.iter().enumerate() {
            let l = |s: &D191Sampler, lod| d191_lod(s, lod, (13, 7), true, None);
            let cases = [
                d191_sample(
                    &sn,
                    u,
                    v,
                    (-3, 2),
                    l(&sn, D191Lod::Zero),
                    &levels,
                    true,
                    None,
                    &tn,
                ),
                d191_sample(
                    &sl,
                    u,
                    v,
                    (7, -8),
                    l(&sl, D191Lod::Zero),
                    &levels,
                    true,
                    None,
                    &tl,
                ),
                d191_sample(
                    &sn,
                    u,
                    v,
                    (-8, 7),
                    l(&sn, D191Lod::Lod(lod)),
                    &levels,
                    true,
                    None,
                    &tn,
                ),
                d191_sample(
                    &sl,
                    u,
                    v,
                    (-1, 1),
                    l(&sl, D191Lod::Lod(lod)),
                    &levels,
                    true,
                    None,
                    &tl,
                ),
            ];
            for (k, want) in cases.iter().enumerate() {
                for c in 0..4 {
                    let got = o[16 * i + 4 * k + c];
                    assert_eq!(
                        got,
                        want[c].to_bits(),
                        "offset lane {i} sample {k} c{c} (u {u}, v {v}, lod {lod}): {} want {}",
                        f32::from_bits(got),
                        want[c]
                    );
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // Shadow textureLod / textureLodOffset, wave64: linear, repeat × clamp_to_edge, greater_or_equal.
    let refs: Vec<f32> = (-1..=9).map(|k| k as f32 / 8.0).collect();
    {
        let dir = scratch("cap-shadow");
        let depth: Vec<f32> = (0..112).map(|_| (g.next() % 9) as f32 / 8.0).collect();
        let inp: Vec<[f32; 4]> = (0..n)
            .map(|i| {
                let (u, v) = coord(i, &mut g);
                let r = refs[g.next() as usize % refs.len()];
                [u, v, rnd(-1.0, 4.0, &mut g), r]
            })
            .collect();
        std::fs::write(dir.join("depth.bin"), f32_bytes(&depth)).unwrap();
        std::fs::write(dir.join("inp.bin"), f32_bytes(inp.as_flattened())).unwrap();
        let a = args(
            &[
                "--grid",
                "256",
                "--image",
                "shadowTex=13,7,1,3,1",
                "--sampler",
                "shadowTex=linear,repeat,clamp_to_edge,greater_or_equal",
                "--size",
                "o=4096",
            ],
            &dir,
            &[("shadowTex", "depth.bin"), ("inp", "inp.bin")],
        );
        let m = capture("sample_shadow.comp", 64, &a, &dir);
        let listing =
            std::fs::read_to_string(dir.join("sample_shadow.navi21.w64.aco.txt")).unwrap();
        for form in ["c_lz", "c_l", "c_lz_o", "c_l_o"] {
            assert!(
                listing.contains(&format!("image_sample_{form} v")),
                "{form}: {listing}"
            );
        }
        let out = dir.join("out");
        run_both(&m, &out);
        let o = words(&read(&out.join("o.bin")));
        let s = smp(true, [0, 2], 6);
        let t = r32(&depth);
        let mut fractional = 0;
        for (i, &[u, v, lod, r]) in inp.iter().enumerate() {
            let l = |lod| d191_lod(&s, lod, (13, 7), true, None);
            let cases = [
                (D191Lod::Zero, (0, 0)),
                (D191Lod::Lod(lod), (0, 0)),
                (D191Lod::Zero, (-2, 3)),
                (D191Lod::Lod(lod), (5, -1)),
            ];
            for (k, &(lod_in, off)) in cases.iter().enumerate() {
                let want = d191_sample(&s, u, v, off, l(lod_in), &levels, true, Some(r), &t)[0];
                let got = o[4 * i + k];
                assert_eq!(
                    got,
                    want.to_bits(),
                    "shadow lane {i} sample {k} (u {u}, v {v}, lod {lod}, ref {r}): {} want {want}",
                    f32::from_bits(got)
                );
                fractional += (want != 0.0 && want != 1.0) as usize;
            }
        }
        assert!(fractional > n, "{fractional}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // textureGrad / textureGradOffset, wave32.
    {
        let dir = scratch("cap-grad");
        let tex: Vec<u8> = (0..112 * 4).map(|_| (g.next() >> 8) as u8).collect();
        let arr: Vec<u8> = (0..24 * 3 * 4).map(|_| (g.next() >> 8) as u8).collect();
        let depth: Vec<f32> = (0..112).map(|_| (g.next() % 9) as f32 / 8.0).collect();
        let darr: Vec<f32> = (0..24 * 3).map(|_| (g.next() % 9) as f32 / 8.0).collect();
        let inp: Vec<[f32; 8]> = (0..n)
            .map(|i| {
                let (u, v) = coord(i, &mut g);
                let slice = match i % 4 {
                    0 => (i / 4 % 9) as f32 * 0.5 - 1.0,
                    _ => rnd(-1.0, 4.0, &mut g),
                };
                let r = refs[g.next() as usize % refs.len()];
                [
                    u,
                    v,
                    slice,
                    r,
                    grad(&mut g),
                    grad(&mut g),
                    grad(&mut g),
                    grad(&mut g),
                ]
            })
            .collect();
        std::fs::write(dir.join("tex.bin"), &tex).unwrap();
        std::fs::write(dir.join("arr.bin"), &arr).unwrap();
        std::fs::write(dir.join("depth.bin"), f32_bytes(&depth)).unwrap();
        std::fs::write(dir.join("darr.bin"), f32_bytes(&darr)).unwrap();
        std::fs::write(dir.join("inp.bin"), f32_bytes(inp.as_flattened())).unwrap();
        let a = args(
            &[
                "--grid",
                "256",
                "--image",
                "tex=13,7,1,3,1",
                "--image",
                "arr=5,4,1,2,3",
                "--image",
                "shadowTex=13,7,1,3,1",
                "--image",
                "shadowArr=5,4,1,2,3",
                "--sampler",
                "tex=linear,mirrored_repeat,repeat",
                "--sampler",
                "arr=nearest,clamp_to_edge,repeat",
                "--sampler",
                "shadowTex=nearest,clamp_to_border,clamp_to_border,less",
                "--sampler",
                "shadowArr=linear,repeat,repeat,greater",
                "--size",
                "o=16384",
            ],
            &dir,
            &[
                ("tex", "tex.bin"),
                ("arr", "arr.bin"),
                ("shadowTex", "depth.bin"),
                ("shadowArr", "darr.bin"),
                ("inp", "inp.bin"),
            ],
        );
        let m = capture("sample_grad.comp", 32, &a, &dir);
        let listing = std::fs::read_to_string(dir.join("sample_grad.navi21.w32.aco.txt")).unwrap();
        for form in ["d", "d_o", "c_d", "c_d_o"] {
            assert!(
                listing.contains(&format!("image_sample_{form} v")),
                "{form}: {listing}"
            );
        }
        let out = dir.join("out");
        run_both(&m, &out);
        let o = words(&read(&out.join("o.bin")));
        let (st, sa) = (smp(true, [1, 0], 0), smp(false, [2, 0], 0));
        let (sd, sda) = (smp(false, [6, 6], 1), smp(true, [0, 0], 4));
        let tt = rgba(&tex);
        let mut level_seen = [0usize; 3];
        for (i, w) in inp.iter().enumerate() {
            let [u, v, slice_in, r, gx, gy, hx, hy] = *w;
            let gr = D191Lod::Grad([gx, gy, hx, hy]);
            let slice = if slice_in.is_nan() {
                0
            } else {
                (slice_in.round_ties_even() as i32).clamp(0, 2)
            };
            let arr_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
                let (w, h) = arr_levels[l];
                let k = ([0i32, 60][l] + (slice * h + y) * w + x) as usize;
                std::array::from_fn(|c| arr[4 * k + c] as f32 / 255.0)
            };
            let darr_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
                let (w, h) = arr_levels[l];
                [
                    darr[([0i32, 60][l] + (slice * h + y) * w + x) as usize],
                    0.0,
                    0.0,
                    1.0,
                ]
            };
            let l2 = |s: &D191Sampler| d191_lod(s, gr, (13, 7), true, None);
            let la = |s: &D191Sampler| d191_lod(s, gr, (5, 4), true, None);
            level_seen[((l2(&st) + 128) >> 8).min(2) as usize] += 1;
            let dt = r32(&depth);
            let want: [Vec<f32>; 4] = [
                d191_sample(&st, u, v, (0, 0), l2(&st), &levels, true, None, &tt).to_vec(),
                d191_sample(&st, u, v, (-4, 6), l2(&st), &levels, true, None, &tt).to_vec(),
                d191_sample(&sa, u, v, (0, 0), la(&sa), &arr_levels, true, None, &arr_t).to_vec(),
                vec![
                    d191_sample(&sd, u, v, (0, 0), l2(&sd), &levels, true, Some(r), &dt)[0],
                    d191_sample(&sd, u, v, (3, -5), l2(&sd), &levels, true, Some(r), &dt)[0],
                    d191_sample(
                        &sda,
                        u,
                        v,
                        (0, 0),
                        la(&sda),
                        &arr_levels,
                        true,
                        Some(r),
                        &darr_t,
                    )[0],
                    0.0,
                ],
            ];
            for (k, vals) in want.iter().enumerate() {
                for (c, x) in vals.iter().enumerate() {
                    let got = o[16 * i + 4 * k + c];
                    assert_eq!(
                        got,
                        x.to_bits(),
                        "grad lane {i} vec {k} c{c} (u {u}, v {v}, slice {slice_in}, ref {r}, grads {gx} {gy} {hx} {hy}): {} want {x}",
                        f32::from_bits(got)
                    );
                }
            }
        }
        assert!(level_seen.iter().all(|&k| k > n / 10), "{level_seen:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------------------
// Sampling (decision D187): image_sample_lz and image_sample_l on a 2-D rgba8 image with three levels,
// through five samplers, against a reference written here from D187's model.

/// Hand-assembled (llvm-mc-19, gfx1030) wave32 code: each invocation reads (u, v, lod) and samples with
/// five samplers (s[16:19] .. s[32:35]); the fifth sample returns x, y, w (dmask 0xb, NSA addresses); then
/// a 1-D image (s[40:47]) sampled at u with the fourth sampler (`_lz`) and the third (`_l`, NSA); then a
/// 2-D array (s[48:55]) sampled at (u, v, slice) with the second sampler (the slice from the fourth input).
const SAMPLE_ASM: &[(&str, &[u32])] = &[
    ("s_lshl_b32 s39, s38, 5", &[0x8f278526]),
    ("v_add_nc_u32_e32 v0, s39, v0", &[0x4a000027]),
    ("v_lshlrev_b32_e32 v1, 4, v0", &[0x34020084]),
    (
        "global_load_dwordx4 v[2:5], v1, s[0:1]",
        &[0xdc388000, 0x02000001],
    ),
    ("v_mul_u32_u24_e32 v6, 0x80, v0", &[0x160c00ff, 0x00000080]),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "image_sample_lz v[8:11], v[2:3], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf09c0f08, 0x00820802],
    ),
    (
        "image_sample_lz v[12:15], v[2:3], s[8:15], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf09c0f08, 0x00a20c02],
    ),
    (
        "image_sample_l v[16:19], v[2:4], s[8:15], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0900f08, 0x00c21002],
    ),
    (
        "image_sample_l v[20:23], v[2:4], s[8:15], s[28:31] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0900f08, 0x00e21402],
    ),
    (
        "image_sample_lz v[24:26], [v2, v3], s[8:15], s[32:35] dmask:0xb dim:SQ_RSRC_IMG_2D",
        &[0xf09c0b0a, 0x01021802, 0x00000003],
    ),
    (
        "image_sample_lz v[28:31], v2, s[40:47], s[28:31] dmask:0xf dim:SQ_RSRC_IMG_1D",
        &[0xf09c0f00, 0x00ea1c02],
    ),
    (
        "image_sample_l v[32:35], [v2, v4], s[40:47], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_1D",
        &[0xf0900f02, 0x00ca2002, 0x00000004],
    ),
    (
        "image_sample_lz v[36:39], [v2, v3, v5], s[48:55], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY",
        &[0xf09c0f2a, 0x00ac2402, 0x00000503],
    ),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "global_store_dwordx4 v6, v[8:11], s[2:3]",
        &[0xdc788000, 0x00020806],
    ),
    (
        "global_store_dwordx4 v6, v[12:15], s[2:3] offset:16",
        &[0xdc788010, 0x00020c06],
    ),
    (
        "global_store_dwordx4 v6, v[16:19], s[2:3] offset:32",
        &[0xdc788020, 0x00021006],
    ),
    (
        "global_store_dwordx4 v6, v[20:23], s[2:3] offset:48",
        &[0xdc788030, 0x00021406],
    ),
    (
        "global_store_dwordx3 v6, v[24:26], s[2:3] offset:64",
        &[0xdc7c8040, 0x00021806],
    ),
    (
        "global_store_dwordx4 v6, v[28:31], s[2:3] offset:80",
        &[0xdc788050, 0x00021c06],
    ),
    (
        "global_store_dwordx4 v6, v[32:35], s[2:3] offset:96",
        &[0xdc788060, 0x00022006],
    ),
    (
        "global_store_dwordx4 v6, v[36:39], s[2:3] offset:112",
        &[0xdc788070, 0x00022406],
    ),
    ("s_endpgm", &[0xbf810000]),
];

#[derive(Clone, Copy)]
/// A sampler as D187 defines its behaviour: filter, address modes (0 wrap, 1 mirror, 2 clamp to the last
/// texel, 3 mirror once, 6 border), mip filter (1 point), LOD clamp and bias in 1/256, border (0, 0, 0, 1).
struct RefSampler {
    linear: bool,
    addr: [u32; 2],
    min_lod: i32,
    max_lod: i32,
    bias: i32,
}

/// One sample per D187: `texel(level, x, y)` gives a texel's four f32 components.
fn ref_sample(
    s: &RefSampler,
    u: f32,
    v: f32,
    lod: f32,
    extents: &[(i32, i32)],
    texel: &dyn Fn(usize, i32, i32) -> [f32; 4],
) -> [f32; 4] {
    let l = (ref_floor(lod * 256.0).0 + s.bias)
        .max(s.min_lod)
        .min(s.max_lod);
    // Minification (L > 0) and magnification use the same filter in these samplers.
    let d = (((l + 128) >> 8) as usize).min(extents.len() - 1);
    let (w, h) = extents[d];
    // Per axis: two texel indices (with inside flags) and the 8-bit fraction.
    let axis = |c: f32, n: i32, mode: u32| -> ([(i32, bool); 2], u32) {
        let sc = c * n as f32;
        let (i0, a) = if s.linear {
            let (i, shc) = ref_floor(sc - 0.5);
            let frac = shc - i as f32;
            (i, (frac * 256.0) as u32)
        } else {
            (ref_floor(sc).0, 0)
        };
        ([ref_address(i0, n, mode), ref_address(i0 + 1, n, mode)], a)
    };
    let (xs, a) = axis(u, w, s.addr[0]);
    let (ys, b) = axis(v, h, s.addr[1]);
    let fetch = |(x, ix): (i32, bool), (y, iy): (i32, bool)| {
        if ix && iy {
            texel(d, x, y)
        } else {
            [0.0, 0.0, 0.0, 1.0]
        }
    };
    let t00 = fetch(xs[0], ys[0]);
    if !s.linear {
        return t00;
    }
    let t10 = fetch(xs[1], ys[0]);
    let t01 = fetch(xs[0], ys[1]);
    let t11 = fetch(xs[1], ys[1]);
    let (a1, a0) = (a as f32 / 256.0, (256 - a) as f32 / 256.0);
    let (b1, b0) = (b as f32 / 256.0, (256 - b) as f32 / 256.0);
    std::array::from_fn(|c| {
        let r0 = t00[c] * a0 + t10[c] * a1;
        let r1 = t01[c] * a0 + t11[c] * a1;
        r0 * b0 + r1 * b1
    })
}

/// One 1-D sample per D187: as [`ref_sample`] with a single row (bilinear along x only).
fn ref_sample_1d(
    s: &RefSampler,
    u: f32,
    lod: f32,
    widths: &[i32],
    texel: &dyn Fn(usize, i32, i32) -> [f32; 4],
) -> [f32; 4] {
    let l = (ref_floor(lod * 256.0).0 + s.bias)
        .max(s.min_lod)
        .min(s.max_lod);
    let d = (((l + 128) >> 8) as usize).min(widths.len() - 1);
    let n = widths[d];
    let sc = u * n as f32;
    let fetch = |(x, inside): (i32, bool)| {
        if inside {
            texel(d, x, 0)
        } else {
            [0.0, 0.0, 0.0, 1.0]
        }
    };
    if !s.linear {
        return fetch(ref_address(ref_floor(sc).0, n, s.addr[0]));
    }
    let (i, shc) = ref_floor(sc - 0.5);
    let a = ((shc - i as f32) * 256.0) as u32;
    let t0 = fetch(ref_address(i, n, s.addr[0]));
    let t1 = fetch(ref_address(i + 1, n, s.addr[0]));
    let (a1, a0) = (a as f32 / 256.0, (256 - a) as f32 / 256.0);
    std::array::from_fn(|c| t0[c] * a0 + t1[c] * a1)
}

// coverage: sample_nearest_and_linear_2d: IMAGE_SAMPLE_LZ IMAGE_SAMPLE_L
#[test]
fn sample_nearest_and_linear_2d() {
    let dir = scratch("sample");
    write_code(&dir.join("k.bin"), SAMPLE_ASM);
    let extents = [(13, 7), (6, 3), (3, 1)];
    let mut g = Lcg(27);
    let tex: Vec<u8> = (0..112 * 4).map(|_| (g.next() >> 8) as u8).collect();
    std::fs::write(dir.join("tex.bin"), &tex).unwrap();
    let line: Vec<u8> = (0..13 * 4).map(|_| (g.next() >> 8) as u8).collect();
    std::fs::write(dir.join("line.bin"), &line).unwrap();
    let arr: Vec<u8> = (0..5 * 4 * 3 * 4).map(|_| (g.next() >> 8) as u8).collect();
    std::fs::write(dir.join("arr.bin"), &arr).unwrap();
    let n = 256usize;
    let mut inputs: Vec<[f32; 4]> = Vec::new();
    for i in 0..n {
        let u = match i {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3..=16 => (i - 3) as f32 / 13.0,
            17..=30 => (i as f32 - 17.5) / 13.0,
            _ => (g.next() % 5000) as f32 / 1000.0 - 2.0,
        };
        let v = match i {
            3..=16 => (i % 8) as f32 / 7.0,
            _ => (g.next() % 5000) as f32 / 1000.0 - 2.0,
        };
        let lod = (g.next() % 500) as f32 / 100.0 - 1.0;
        // Slices: halves (ties), NaN and out-of-range values among random ones.
        let slice = match i % 8 {
            0 => (i / 8 % 9) as f32 * 0.5 - 1.0,
            1 if i < 16 => f32::NAN,
            _ => (g.next() % 600) as f32 / 100.0 - 1.5,
        };
        inputs.push([u, v, lod, slice]);
    }
    let uv: Vec<u8> = inputs
        .iter()
        .flat_map(|t| [t[0], t[1], t[2], t[3]])
        .flat_map(|x| x.to_le_bytes())
        .collect();
    std::fs::write(dir.join("uv.bin"), uv).unwrap();
    let manifest = format!(
        r#"
code = "k.bin"
grid = [{n}, 1, 1]
workgroup = [32, 1, 1]
[abi]
wave_size = 32
sgpr = [
    {{ reg = 0, address = "uv" }},
    {{ reg = 2, address = "o" }},
    {{ reg = 8, tsharp = "tex" }},
    {{ reg = 16, ssharp = {{ filter = "nearest", address = ["repeat", "clamp_to_edge"] }} }},
    {{ reg = 20, ssharp = {{ filter = "linear", address = ["clamp_to_edge", "repeat"] }} }},
    {{ reg = 24, ssharp = {{ filter = "nearest", address = ["mirrored_repeat", "mirror_clamp_to_edge"], lod_bias = 0.25 }} }},
    {{ reg = 28, ssharp = {{ filter = "linear", address = ["repeat", "repeat"], max_lod = 1.5 }} }},
    {{ reg = 32, ssharp = {{ filter = "linear", address = ["clamp_to_border", "clamp_to_border"], border = "opaque_black" }} }},
    {{ reg = 38, workgroup_id = 0 }},
    {{ reg = 40, tsharp = "line" }},
    {{ reg = 48, tsharp = "arr" }},
]
[[buffers]]
name = "uv"
file = "uv.bin"
[[buffers]]
name = "o"
size = {}
output = true
[[images]]
name = "tex"
format = "rgba8_unorm"
dim = "2d"
extent = [13, 7, 1]
levels = 3
file = "tex.bin"
[[images]]
name = "line"
format = "rgba8_unorm"
dim = "1d"
extent = [9, 1, 1]
levels = 2
file = "line.bin"
[[images]]
name = "arr"
format = "rgba8_unorm"
dim = "2d_array"
extent = [5, 4, 1]
layers = 3
file = "arr.bin"
"#,
        n * 128
    );
    let out = run_manifest(&dir, &manifest);
    let o = words(&read(&out.join("o.bin")));
    let base = [0usize, 91, 109];
    let texel = |l: usize, x: i32, y: i32| -> [f32; 4] {
        let (w, _) = extents[l];
        let t = base[l] + (y * w + x) as usize;
        std::array::from_fn(|c| tex[4 * t + c] as f32 / 255.0)
    };
    let samplers = [
        RefSampler {
            linear: false,
            addr: [0, 2],
            min_lod: 0,
            max_lod: 3840,
            bias: 0,
        },
        RefSampler {
            linear: true,
            addr: [2, 0],
            min_lod: 0,
            max_lod: 3840,
            bias: 0,
        },
        RefSampler {
            linear: false,
            addr: [1, 3],
            min_lod: 0,
            max_lod: 3840,
            bias: 64,
        },
        RefSampler {
            linear: true,
            addr: [0, 0],
            min_lod: 0,
            max_lod: 384,
            bias: 0,
        },
        RefSampler {
            linear: true,
            addr: [6, 6],
            min_lod: 0,
            max_lod: 3840,
            bias: 0,
        },
    ];
    let mut linear_differs = 0;
    for (i, &[u, v, lod, _]) in inputs.iter().enumerate() {
        for (k, s) in samplers.iter().enumerate() {
            // `_lz` samples level 0 at LOD 0 (plus the bias), `_l` at the lane's LOD.
            let l = if k == 2 || k == 3 { lod } else { 0.0 };
            let want = ref_sample(s, u, v, l, &extents, &texel);
            let comps: &[usize] = if k == 4 { &[0, 1, 3] } else { &[0, 1, 2, 3] };
            for (j, &c) in comps.iter().enumerate() {
                let got = o[32 * i + 4 * k + j];
                assert_eq!(
                    got,
                    want[c].to_bits(),
                    "lane {i} (u {u}, v {v}, lod {lod}) sampler {k} component {c}: {} want {}",
                    f32::from_bits(got),
                    want[c]
                );
            }
            if s.linear {
                let near = RefSampler {
                    linear: false,
                    ..*s
                };
                let p = ref_sample(&near, u, v, l, &extents, &texel);
                linear_differs += (p != want) as usize;
            }
        }
    }
    // The linear samples are not the nearest texels in disguise.
    assert!(linear_differs > 3 * n / 2, "{linear_differs}");
    // 1-D: one row (levels 9 and 4 texels wide); bilinear along x only.
    let line_texel = |l: usize, x: i32, _y: i32| -> [f32; 4] {
        let t = [0usize, 9][l] + x as usize;
        std::array::from_fn(|c| line[4 * t + c] as f32 / 255.0)
    };
    for (i, &[u, _, lod, _]) in inputs.iter().enumerate() {
        for (k, s, l) in [(5usize, &samplers[3], 0.0f32), (6, &samplers[2], lod)] {
            let want = ref_sample_1d(s, u, l, &[9, 4], &line_texel);
            for c in 0..4 {
                let got = o[32 * i + 4 * k + c];
                assert_eq!(
                    got,
                    want[c].to_bits(),
                    "1-D lane {i} (u {u}, lod {lod}) sample {k} component {c}: {} want {}",
                    f32::from_bits(got),
                    want[c]
                );
            }
        }
    }
    // 2-D array (5×4, three slices): the slice is the coordinate rounded to nearest even, clamped to 0..=2.
    for (i, &[u, v, _, r]) in inputs.iter().enumerate() {
        let slice = if r.is_nan() {
            0
        } else {
            (r.clamp(-16_777_216.0, 16_777_216.0).round_ties_even() as i32).clamp(0, 2)
        };
        let arr_texel = |_l: usize, x: i32, y: i32| -> [f32; 4] {
            let t = ((slice * 4 + y) * 5 + x) as usize;
            std::array::from_fn(|c| arr[4 * t + c] as f32 / 255.0)
        };
        let want = ref_sample(&samplers[1], u, v, 0.0, &[(5, 4)], &arr_texel);
        for c in 0..4 {
            let got = o[32 * i + 28 + c];
            assert_eq!(
                got,
                want[c].to_bits(),
                "2-D array lane {i} (u {u}, v {v}, slice {r}) component {c}: {} want {}",
                f32::from_bits(got),
                want[c]
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// coverage: sampled_image_capture_nearest_linear: IMAGE_SAMPLE_LZ
/// `sample.comp` captured by ACO with two combined image samplers (nearest: repeat × clamp-to-edge through
/// `texture()`; bilinear: clamp-to-edge × repeat through `textureLod(.., 0)`), a 13×7 rgba8 image each, in
/// wave32 and wave64, against D187's model on the GLSL's coordinates.
#[test]
fn sampled_image_capture_nearest_linear() {
    for wave in [32u32, 64] {
        let dir = scratch(&format!("sampled-w{wave}"));
        let (w, h) = (13i32, 7i32);
        let mut g = Lcg(187 + wave as u64);
        let near: Vec<u8> = (0..w * h * 4).map(|_| (g.next() >> 8) as u8).collect();
        let lin: Vec<u8> = (0..w * h * 4).map(|_| (g.next() >> 8) as u8).collect();
        std::fs::write(dir.join("near.bin"), &near).unwrap();
        std::fs::write(dir.join("lin.bin"), &lin).unwrap();
        let args: Vec<String> = [
            "--grid",
            "16,16",
            "--image",
            "nearestTex=13,7,1,1,1",
            "--image",
            "linearTex=13,7,1,1,1",
            "--sampler",
            "nearestTex=nearest,repeat,clamp_to_edge",
            "--sampler",
            "linearTex=linear,clamp_to_edge,repeat",
            "--size",
            "o=8192",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            format!("--input=nearestTex={}", dir.join("near.bin").display()),
            format!("--input=linearTex={}", dir.join("lin.bin").display()),
        ])
        .collect();
        let m = capture("sample.comp", wave, &args, &dir);
        let listing =
            std::fs::read_to_string(dir.join(format!("sample.navi21.w{wave}.aco.txt"))).unwrap();
        assert_eq!(listing.matches("image_sample_lz v").count(), 2, "{listing}");
        let out = dir.join("out");
        run_both(&m, &out);
        let o = words(&read(&out.join("o.bin")));
        let texel_of = |t: &[u8]| {
            let t = t.to_vec();
            move |_l: usize, x: i32, y: i32| -> [f32; 4] {
                let k = (y * w + x) as usize;
                std::array::from_fn(|c| t[4 * k + c] as f32 / 255.0)
            }
        };
        let (tn, tl) = (texel_of(&near), texel_of(&lin));
        let sn = RefSampler {
            linear: false,
            addr: [0, 2],
            min_lod: 0,
            max_lod: 3840,
            bias: 0,
        };
        let sl = RefSampler {
            linear: true,
            addr: [2, 0],
            ..sn
        };
        for py in 0..16u32 {
            for px in 0..16u32 {
                let i = (py * 16 + px) as usize;
                let u = px as f32 * 0.173f32 - 0.61f32;
                let v = py as f32 * 0.1309f32 - 0.47f32;
                let a = ref_sample(&sn, u, v, 0.0, &[(w, h)], &tn);
                let b = ref_sample(&sl, u, v, 0.0, &[(w, h)], &tl);
                for c in 0..4 {
                    assert_eq!(
                        o[8 * i + c],
                        a[c].to_bits(),
                        "w{wave} ({px}, {py}) nearest c{c}"
                    );
                    assert_eq!(
                        o[8 * i + 4 + c],
                        b[c].to_bits(),
                        "w{wave} ({px}, {py}) linear c{c}: {} want {}",
                        f32::from_bits(o[8 * i + 4 + c]),
                        b[c]
                    );
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding; in `write_framed_code`'s frame. Per lane: (u, slice, lod) from
/// s[0:1] + 16·lane; two samples of the 1-D array T# at s[8:15]; 8 dwords to s[2:3] + 32·lane.
const SAMPLE_1D_ARRAY_ASM: &[(&str, &[u32])] = &[
    (
        "image_sample_l v[10:13], v[2:4], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_1D_ARRAY",
        &[0xf0900f20, 0x00820a02],
    ),
    (
        "image_sample_lz v[14:17], v[2:3], s[8:15], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_1D_ARRAY",
        &[0xf09c0f20, 0x00a20e02],
    ),
];

/// 1-D array sampling (D194 on D187's model): the slice is the second coordinate, rounded to nearest
/// even and clamped; bilinear along u with point mips (`image_sample_l`, repeat), and nearest with a
/// clamp-to-border opaque-black sampler (`image_sample_lz`), on a 9-texel rgba8 image of two levels and
/// three slices. The reference is written here from D187's text.
// coverage: sample_1d_array: IMAGE_SAMPLE_L IMAGE_SAMPLE_LZ
#[test]
fn sample_1d_array() {
    let dir = scratch("sample1da");
    write_framed_code(&dir.join("k.bin"), SAMPLE_1D_ARRAY_ASM);
    let mut g = Lcg(0x1da_0194);
    let widths = [9i32, 4];
    let base = [0usize, 27]; // texels before each level: 3 slices of 9
    let tex: Vec<u8> = (0..4 * (27 + 12)).map(|_| (g.next() >> 8) as u8).collect();
    std::fs::write(dir.join("t.bin"), &tex).unwrap();
    let n = 128usize;
    let inputs: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            let u = (g.next() % 3000) as f32 / 1000.0 - 1.0;
            let slice = match i % 8 {
                0 => f32::NAN,
                1 => (i / 8 % 10) as f32 * 0.5 - 1.5,
                _ => (g.next() % 500) as f32 / 100.0 - 1.0,
            };
            let lod = (g.next() % 12) as f32 * 0.25 - 0.5;
            [u, slice, lod, 0.0]
        })
        .collect();
    write_lane_inputs(&dir.join("in.bin"), &inputs);
    let manifest = lanes_manifest(
        n,
        n * 32,
        r#"    { reg = 8, tsharp = "t" },
    { reg = 16, ssharp = { filter = "linear", mipmap_mode = "nearest", address = ["repeat", "repeat"] } },
    { reg = 20, ssharp = { filter = "nearest", address = ["clamp_to_border", "clamp_to_border"], border = "opaque_black" } },
"#,
        r#"[[images]]
name = "t"
format = "rgba8_unorm"
dim = "1d_array"
extent = [9, 1, 1]
levels = 2
layers = 3
file = "t.bin"
"#,
    );
    let out = run_manifest(&dir, &manifest);
    let o = words(&read(&out.join("o.bin")));
    // D187: floor of an f32 clamped to ±2^24 (NaN → 0); the slice to nearest even, clamped to 0..=2.
    let floor = |x: f32| {
        if x.is_nan() {
            0
        } else {
            x.clamp(-16_777_216.0, 16_777_216.0).floor() as i32
        }
    };
    let slice_of = |r: f32| {
        if r.is_nan() {
            0
        } else {
            (r.clamp(-16_777_216.0, 16_777_216.0).round_ties_even() as i32).clamp(0, 2)
        }
    };
    let texel = |d: usize, sl: i32, x: i32| -> [f32; 4] {
        let t = base[d] + (sl * widths[d] + x) as usize;
        std::array::from_fn(|c| tex[4 * t + c] as f32 / 255.0)
    };
    let mut linear_seen = 0;
    for (i, &[u, slice, lod, _]) in inputs.iter().enumerate() {
        let sl = slice_of(slice);
        // image_sample_l, repeat, bilinear, point mips: L = floor(lod·256) clamped to [0, 15·256].
        let l = floor(lod * 256.0).clamp(0, 3840);
        let d = (((l + 128) >> 8) as usize).min(1);
        let w = widths[d];
        let sh = u * w as f32 - 0.5;
        let i0 = floor(sh);
        let a = ((sh - i0 as f32) * 256.0) as u32;
        let t0 = texel(d, sl, i0.rem_euclid(w));
        let t1 = texel(d, sl, (i0 + 1).rem_euclid(w));
        let (w1, w0) = (a as f32 / 256.0, (256 - a) as f32 / 256.0);
        let want: [f32; 4] = std::array::from_fn(|c| t0[c] * w0 + t1[c] * w1);
        linear_seen += (a != 0) as usize;
        // image_sample_lz, nearest, clamp to border (opaque black), level 0.
        let x = floor(u * 9.0);
        let want_lz = if (0..9).contains(&x) {
            texel(0, sl, x)
        } else {
            [0.0, 0.0, 0.0, 1.0]
        };
        for c in 0..4 {
            assert_eq!(
                o[8 * i + c],
                want[c].to_bits(),
                "lane {i} _l (u {u}, slice {slice}, lod {lod}) c{c}"
            );
            assert_eq!(
                o[8 * i + 4 + c],
                want_lz[c].to_bits(),
                "lane {i} _lz (u {u}, slice {slice}) c{c}"
            );
        }
    }
    assert!(linear_seen > n / 2, "{linear_seen}");
    std::fs::remove_dir_all(&dir).unwrap();
}
