//! Linear mip filtering at fractional LODs (issue 27, decision D195): `image_sample*` through an S# whose
//! MIP_FILTER is linear blends the levels `L >> 8` and the next one by `L & 255`. Run with `rdna2spv run
//! --backend both` (the host evaluator and lavapipe agree bit for bit, or the run fails), every output
//! compared with a reference written here from D195's text and D187/D191's per-level model, sharing no code
//! with crates/ir or crates/eval. `fixtures/images/sample_mip.comp` is captured by ACO (wave32 and wave64);
//! the forms ACO does not emit for it run from llvm-mc-19 encodings.
//!
//! Needs mesa-vulkan-drivers (RADV, lavapipe), glslang-tools and llvm-19, as CI installs them.

/// The suite's name: scratch folders and the executed-encoding log's test names (D159).
const SUITE: &str = "images_mip";

#[path = "support/images.rs"]
mod support;
use support::*;

// ---------------------------------------------------------------------------------------------------------
// The reference, written from D195 (levels and blend) and D187/D191 (one level's footprint).

/// A sampler as D187/D191/D195 read it: filter (min = mag), MIP_FILTER (0 none, 1 point, 2 linear),
/// address modes (0 wrap, 1 mirror, 2 clamp, 3 mirror once, 6 border), MIN_LOD, MAX_LOD and LOD_BIAS in
/// 1/256, border colour type, compare function (0 never … 7 always).
#[derive(Clone, Copy, Debug)]
struct Smp {
    linear: bool,
    mip: u32,
    addr: [u32; 2],
    min_lod: i32,
    max_lod: i32,
    bias: i32,
    border: u32,
    compare: u32,
}

impl Smp {
    /// The manifest's `ssharp`/`sampler` table for it (Vulkan names; LODs in 1/256 as f64).
    fn toml(&self) -> String {
        let mode = |m: u32| match m {
            0 => "repeat",
            1 => "mirrored_repeat",
            2 => "clamp_to_edge",
            3 => "mirror_clamp_to_edge",
            _ => "clamp_to_border",
        };
        let compare = [
            "never",
            "less",
            "equal",
            "less_or_equal",
            "greater",
            "not_equal",
            "greater_or_equal",
            "always",
        ][self.compare as usize];
        format!(
            "{{ filter = \"{}\", mipmap_mode = \"{}\", address = [\"{}\", \"{}\"], border = \"{}\", \
             min_lod = {}, max_lod = {}, lod_bias = {}{} }}",
            if self.linear { "linear" } else { "nearest" },
            ["none", "nearest", "linear"][self.mip as usize],
            mode(self.addr[0]),
            mode(self.addr[1]),
            ["transparent_black", "opaque_black", "opaque_white"][self.border as usize],
            self.min_lod as f64 / 256.0,
            self.max_lod as f64 / 256.0,
            self.bias as f64 / 256.0,
            if self.compare != 0 {
                format!(", compare = \"{compare}\"")
            } else {
                String::new()
            }
        )
    }
}

/// Where a sample's LOD comes from.
#[derive(Clone, Copy, Debug)]
enum LodSrc {
    Zero,
    Lod(f32),
    /// du/dx, dv/dx, du/dy, dv/dy (1-D: dv ignored).
    Grad([f32; 4]),
}

/// The LOD in 1/256 (D187, D191): `floor(RN(lod·256))`, or `floor(128·log2 q)` from gradients over the
/// BASE_LEVEL extent `base`; plus LOD_BIAS, clamped to [max(MIN_LOD, floor(RN(clamp·256))), MAX_LOD]
/// (MAX wins).
fn ref_lod(s: &Smp, src: LodSrc, base: (i32, i32), d2: bool, clamp: Option<f32>) -> i32 {
    let l = match src {
        LodSrc::Zero => 0,
        LodSrc::Lod(x) => ref_floor(x * 256.0).0,
        LodSrc::Grad(g) => ref_grad_lod(g, base, d2),
    };
    let lo = match clamp {
        Some(c) => s.min_lod.max(ref_floor(c * 256.0).0),
        None => s.min_lod,
    };
    (l + s.bias).max(lo).min(s.max_lod)
}

/// D195's levels for LOD `l` with `last` = LAST_LEVEL − BASE_LEVEL: (first level, second level, the second's
/// weight in 1/256) — the second is `None` unless MIP_FILTER is linear, `l` has a fraction and `l >> 8` is
/// below `last`.
fn ref_levels(s: &Smp, l: i32, last: usize) -> (usize, Option<(usize, u32)>) {
    match s.mip {
        0 => (0, None),
        1 => ((((l + 128) >> 8) as usize).min(last), None),
        _ => {
            let d = (l >> 8) as usize;
            let f = (l & 255) as u32;
            if f != 0 && d < last {
                (d, Some((d + 1, f)))
            } else {
                (d.min(last), None)
            }
        }
    }
}

/// One level's sample (D187 steps 2–5, D191's offset and compare): coordinates `u`, `v` on a level of
/// `ext` texels; `texel(x, y)` the level's texels (four f32 components); `dref` the compare reference.
#[allow(clippy::too_many_arguments)]
fn ref_level(
    s: &Smp,
    linear: bool,
    u: f32,
    v: f32,
    off: (i32, i32),
    ext: (i32, i32),
    d2: bool,
    dref: Option<f32>,
    texel: &dyn Fn(i32, i32) -> [f32; 4],
) -> [f32; 4] {
    let axis = |c: f32, n: i32, mode: u32, o: i32| -> ([(i32, bool); 2], u32) {
        let sc = c * n as f32;
        let (i0, a) = if linear {
            let (i, shc) = ref_floor(sc - 0.5);
            (i, ((shc - i as f32) * 256.0) as u32)
        } else {
            (ref_floor(sc).0, 0)
        };
        let i0 = i0 + o;
        ([ref_address(i0, n, mode), ref_address(i0 + 1, n, mode)], a)
    };
    let (xs, a) = axis(u, ext.0, s.addr[0], off.0);
    let (ys, b) = if d2 {
        axis(v, ext.1, s.addr[1], off.1)
    } else {
        ([(0, true); 2], 0)
    };
    let border = match s.border {
        0 => [0.0; 4],
        1 => [0.0, 0.0, 0.0, 1.0],
        _ => [1.0; 4],
    };
    let fetch = |(x, ix): (i32, bool), (y, iy): (i32, bool)| {
        let t = if ix && iy { texel(x, y) } else { border };
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
    if !linear {
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

/// A whole sample at LOD `l` (1/256): D195's levels, each by [`ref_level`] at its extent, blended as
/// `RN(RN(r0·(256 − f)/256) + RN(r1·f/256))`. `levels[d]` is level d's extent (d from BASE_LEVEL);
/// `texel(d, x, y)`.
#[allow(clippy::too_many_arguments)]
fn ref_sample(
    s: &Smp,
    u: f32,
    v: f32,
    off: (i32, i32),
    l: i32,
    levels: &[(i32, i32)],
    d2: bool,
    dref: Option<f32>,
    texel: &dyn Fn(usize, i32, i32) -> [f32; 4],
) -> [f32; 4] {
    let (d0, second) = ref_levels(s, l, levels.len() - 1);
    let level = |d: usize| {
        ref_level(s, s.linear, u, v, off, levels[d], d2, dref, &|x, y| {
            texel(d, x, y)
        })
    };
    let r0 = level(d0);
    match second {
        None => r0,
        Some((d1, f)) => {
            let r1 = level(d1);
            let (w1, w0) = (f as f32 / 256.0, (256 - f) as f32 / 256.0);
            std::array::from_fn(|c| r0[c] * w0 + r1[c] * w1)
        }
    }
}

#[test]
fn reference_self_check() {
    // Levels: on a level, one step either side, beyond the last, point and none.
    let s = Smp {
        linear: true,
        mip: 2,
        addr: [2, 2],
        min_lod: 0,
        max_lod: 3840,
        bias: 0,
        border: 0,
        compare: 0,
    };
    assert_eq!(ref_levels(&s, 256, 2), (1, None));
    assert_eq!(ref_levels(&s, 257, 2), (1, Some((2, 1))));
    assert_eq!(ref_levels(&s, 255, 2), (0, Some((1, 255))));
    assert_eq!(ref_levels(&s, 600, 2), (2, None));
    assert_eq!(ref_levels(&s, 1000, 2), (2, None));
    assert_eq!(ref_levels(&Smp { mip: 1, ..s }, 383, 2), (1, None));
    assert_eq!(ref_levels(&Smp { mip: 1, ..s }, 384, 2), (2, None));
    assert_eq!(ref_levels(&Smp { mip: 0, ..s }, 700, 2), (0, None));
    // The LOD: 1 ± 1/256, negative (clamped to MIN_LOD), NaN (0), the `_cl` bound, MAX wins.
    assert_eq!(
        ref_lod(&s, LodSrc::Lod(1.0 + 1.0 / 256.0), (8, 8), true, None),
        257
    );
    assert_eq!(
        ref_lod(&s, LodSrc::Lod(1.0 - 1.0 / 256.0), (8, 8), true, None),
        255
    );
    assert_eq!(ref_lod(&s, LodSrc::Lod(-3.0), (8, 8), true, None), 0);
    assert_eq!(ref_lod(&s, LodSrc::Lod(f32::NAN), (8, 8), true, None), 0);
    assert_eq!(ref_lod(&s, LodSrc::Lod(0.5), (8, 8), true, Some(1.25)), 320);
    let crossed = Smp {
        min_lod: 512,
        max_lod: 128,
        ..s
    };
    assert_eq!(ref_lod(&crossed, LodSrc::Lod(3.0), (8, 8), true, None), 128);
    // Gradients of 2 texels per step on a 8×8 image: log2 2 = 1, L = 256.
    assert_eq!(
        ref_lod(&s, LodSrc::Grad([0.25, 0.0, 0.0, 0.0]), (8, 8), true, None),
        256
    );
    // A blend by hand: levels of constant 0.5 and 1.0 at f = 64: 0.5·0.75 + 1·0.25 = 0.625.
    let t = |d: usize, _x: i32, _y: i32| [[0.5f32; 4], [1.0; 4]][d];
    let r = ref_sample(&s, 0.3, 0.6, (0, 0), 64, &[(4, 4), (2, 2)], true, None, &t);
    assert_eq!(r, [0.625; 4]);
}

// ---------------------------------------------------------------------------------------------------------
// The ACO capture.

/// Replaces the `sampler = …` line of image `name` in a captured manifest.
fn set_sampler(manifest: &str, name: &str, table: &str) -> String {
    let key = format!("name = \"{name}\"\n");
    let at = manifest.find(&key).unwrap_or_else(|| panic!("{name}"));
    let rest = &manifest[at..];
    let s = rest.find("sampler = ").unwrap();
    let e = s + rest[s..].find('\n').unwrap();
    format!(
        "{}sampler = {table}{}",
        &manifest[..at + s],
        &manifest[at + e..]
    )
}

/// Inputs of one lane of the capture: (u, v, slice, lod), (reference, 0, 0, 0), gradients.
fn capture_inputs(n: usize, g: &mut Lcg) -> Vec<[[f32; 4]; 3]> {
    let rnd =
        |lo: f32, hi: f32, g: &mut Lcg| lo + (g.next() % 10_000) as f32 * ((hi - lo) / 10_000.0);
    let step = 1.0 / 256.0;
    // LODs on a level, one 1/256 step either side, negative, beyond the last level, NaN and ±inf.
    let edge = [
        0.0,
        1.0,
        2.0,
        3.0,
        1.0 + step,
        1.0 - step,
        2.0 + step,
        2.0 - step,
        step,
        -step,
        -1.0,
        0.5,
        1.5,
        2.5,
        3.5,
        5.0,
        20.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.75,
        1.25,
        0.125,
        1.0 + 2.0 * step,
    ];
    let refs: Vec<f32> = (-1..=9).map(|k| k as f32 / 8.0).collect();
    (0..n)
        .map(|i| {
            let (u, v) = match i {
                0..=12 => (i as f32 / 13.0, (i % 8) as f32 / 7.0),
                _ => (rnd(-0.5, 1.5, g), rnd(-0.5, 1.5, g)),
            };
            let lod = if i < 3 * edge.len() {
                edge[i % edge.len()]
            } else {
                rnd(-1.0, 4.0, g)
            };
            let slice = rnd(-0.5, 3.5, g);
            let r = refs[g.next() as usize % refs.len()];
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
            [
                [u, v, slice, lod],
                [r, 0.0, 0.0, 0.0],
                [grad(g), grad(g), grad(g), grad(g)],
            ]
        })
        .collect()
}

// coverage: sample_mip_capture: IMAGE_SAMPLE_L IMAGE_SAMPLE_L_O IMAGE_SAMPLE_D IMAGE_SAMPLE_C_L
/// `fixtures/images/sample_mip.comp` captured by ACO in wave32 and wave64, every sampler with
/// `mipmap_mode = linear` (two filters, bias, MIN/MAX_LOD with fractions, a 1-D and a 2-D array image, a
/// depth compare), `--backend both`, every component against [`ref_sample`].
#[test]
fn sample_mip_capture() {
    let levels = [(13, 7), (6, 3), (3, 1)];
    let base = [0i32, 91, 109];
    let arr_levels = [(5, 4), (2, 2)];
    let line_levels = [(9, 1), (4, 1), (2, 1)];
    let s_tex = Smp {
        linear: true,
        mip: 2,
        addr: [0, 1],
        min_lod: 0,
        max_lod: 3840,
        bias: 0,
        border: 0,
        compare: 0,
    };
    // MIN_LOD ¼ and MAX_LOD ¾: both clamps leave a fraction.
    let s_arr = Smp {
        addr: [2, 0],
        min_lod: 64,
        max_lod: 192,
        ..s_tex
    };
    let s_shadow = Smp {
        addr: [6, 6],
        border: 2,
        compare: 3,
        ..s_tex
    };
    // Point sampling within each level, levels blended; a negative bias (−½).
    let s_line = Smp {
        linear: false,
        addr: [1, 1],
        bias: -128,
        ..s_tex
    };
    for wave in [32u32, 64] {
        let dir = scratch(&format!("cap-mip-w{wave}"));
        let mut g = Lcg(195 + wave as u64);
        let n = 256usize;
        let tex: Vec<u8> = (0..112 * 4).map(|_| (g.next() >> 8) as u8).collect();
        let arr: Vec<u8> = (0..72 * 4).map(|_| (g.next() >> 8) as u8).collect();
        let line: Vec<u8> = (0..15 * 4).map(|_| (g.next() >> 8) as u8).collect();
        let depth: Vec<f32> = (0..112).map(|_| (g.next() % 9) as f32 / 8.0).collect();
        let inp = capture_inputs(n, &mut g);
        let f32_bytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
        std::fs::write(dir.join("tex.bin"), &tex).unwrap();
        std::fs::write(dir.join("arr.bin"), &arr).unwrap();
        std::fs::write(dir.join("line.bin"), &line).unwrap();
        std::fs::write(dir.join("depth.bin"), f32_bytes(&depth)).unwrap();
        std::fs::write(
            dir.join("inp.bin"),
            f32_bytes(inp.as_flattened().as_flattened()),
        )
        .unwrap();
        let mut a: Vec<String> = [
            "--grid",
            "256",
            "--image",
            "tex=13,7,1,3,1",
            "--image",
            "arr=5,4,1,2,3",
            "--image",
            "shadowTex=13,7,1,3,1",
            "--image",
            "line=9,1,1,3,1",
            "--size",
            "o=20480",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for (k, f) in [
            ("tex", "tex.bin"),
            ("arr", "arr.bin"),
            ("shadowTex", "depth.bin"),
            ("line", "line.bin"),
            ("inp", "inp.bin"),
        ] {
            a.push(format!("--input={k}={}", dir.join(f).display()));
        }
        let m = capture("sample_mip.comp", wave, &a, &dir);
        let listing =
            std::fs::read_to_string(dir.join(format!("sample_mip.navi21.w{wave}.aco.txt")))
                .unwrap();
        for form in ["l", "l_o", "d", "c_l"] {
            assert!(
                listing.contains(&format!("image_sample_{form} v")),
                "{form}: {listing}"
            );
        }
        let mut text = std::fs::read_to_string(&m).unwrap();
        for (name, s) in [
            ("tex", s_tex),
            ("arr", s_arr),
            ("shadowTex", s_shadow),
            ("line", s_line),
        ] {
            text = set_sampler(&text, name, &s.toml());
        }
        std::fs::write(&m, &text).unwrap();
        let out = dir.join("out");
        run_both(&m, &out);
        let o = words(&read(&out.join("o.bin")));
        let tex_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
            let t = (base[l] + y * levels[l].0 + x) as usize;
            std::array::from_fn(|c| tex[4 * t + c] as f32 / 255.0)
        };
        let depth_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
            [
                depth[(base[l] + y * levels[l].0 + x) as usize],
                0.0,
                0.0,
                1.0,
            ]
        };
        let line_t = |l: usize, x: i32, _y: i32| -> [f32; 4] {
            let t = ([0i32, 9, 13][l] + x) as usize;
            std::array::from_fn(|c| line[4 * t + c] as f32 / 255.0)
        };
        let mut blended = 0;
        for (i, &[[u, v, slice, lod], [r, ..], gr]) in inp.iter().enumerate() {
            let sl = slice.round_ties_even().clamp(0.0, 2.0) as i32;
            let arr_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
                let (w, h) = arr_levels[l];
                let t = ([0i32, 60][l] + (sl * h + y) * w + x) as usize;
                std::array::from_fn(|c| arr[4 * t + c] as f32 / 255.0)
            };
            let lt = ref_lod(&s_tex, LodSrc::Lod(lod), (13, 7), true, None);
            let lg = ref_lod(&s_tex, LodSrc::Grad(gr), (13, 7), true, None);
            let la = ref_lod(&s_arr, LodSrc::Lod(lod), (5, 4), true, None);
            let ls = ref_lod(&s_shadow, LodSrc::Lod(lod), (13, 7), true, None);
            let ll = ref_lod(&s_line, LodSrc::Lod(lod), (9, 1), false, None);
            for (s, l, last) in [(&s_tex, lt, 2), (&s_tex, lg, 2), (&s_arr, la, 1)] {
                blended += ref_levels(s, l, last).1.is_some() as usize;
            }
            let shadow = ref_sample(
                &s_shadow,
                u,
                v,
                (0, 0),
                ls,
                &levels,
                true,
                Some(r),
                &depth_t,
            );
            let line1 = ref_sample(
                &s_line,
                u,
                0.0,
                (0, 0),
                ll,
                &line_levels,
                false,
                None,
                &line_t,
            );
            let want = [
                ref_sample(&s_tex, u, v, (0, 0), lt, &levels, true, None, &tex_t),
                ref_sample(&s_tex, u, v, (2, -3), lt, &levels, true, None, &tex_t),
                ref_sample(&s_tex, u, v, (0, 0), lg, &levels, true, None, &tex_t),
                ref_sample(&s_arr, u, v, (0, 0), la, &arr_levels, true, None, &arr_t),
                [shadow[0], line1[0], line1[1], line1[2]],
            ];
            for (k, w) in want.iter().enumerate() {
                for c in 0..4 {
                    let got = o[20 * i + 4 * k + c];
                    assert_eq!(
                        got,
                        w[c].to_bits(),
                        "w{wave} lane {i} sample {k} c{c} (u {u}, v {v}, slice {slice}, lod {lod}, ref {r}, \
                         grads {gr:?}; L tex {lt} grad {lg} arr {la} shadow {ls} line {ll}): {} want {}",
                        f32::from_bits(got),
                        w[c]
                    );
                }
            }
        }
        // Most lanes blend two levels (the edge LODs and the random ones).
        assert!(blended > n, "{blended}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------------------
// Hand-assembled forms.

/// Hand-assembled (llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding) wave32 code: each invocation
/// reads 16 dwords — (u, v, lod, ref), (packed offsets, du/dx, dv/dx, du/dy), (dv/dy, slice, clamp, f16
/// du/dx|dv/dx), (f16 du/dy|dv/dy, -, -, -) — and samples through six samplers with MIP_FILTER linear
/// (s[16:35], s[80:83]) the forms ACO does not emit for sample_mip.comp: `_lz` (a fractional LOD_BIAS),
/// `_d_cl`, `_d_g16`, `_l_o` through a view of levels 1..=2 (BASE_LEVEL 1), `_l` on a 1-D array, `_c_lz` on
/// a 2-D r16 unorm array, `_c_d_cl_o` and `_c_l` on a 2-D r16 unorm image, `_l` through crossed MIN/MAX_LOD,
/// `_d` on a 1-D image.
const MIP_FORMS_ASM: &[(&str, &[u32])] = &[
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
        "image_sample_lz v[20:23], [v2, v3], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf09c0f0a, 0x00821402, 0x00000003],
    ),
    (
        "image_sample_d_cl v[24:27], [v7, v8, v9, v10, v2, v3, v12], s[8:15], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf08c0f0c, 0x00a21807, 0x020a0908, 0x00000c03],
    ),
    (
        "image_sample_d_g16 v[28:31], [v13, v14, v2, v3], s[8:15], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0880f0b, 0x00c21c0d, 0x0003020e],
    ),
    (
        "image_sample_l_o v[32:35], [v6, v2, v3, v4], s[40:47], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0d00f0a, 0x008a2006, 0x00040302],
    ),
    (
        "image_sample_l v[36:39], [v2, v11, v4], s[48:55], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_1D_ARRAY",
        &[0xf0900f22, 0x00ac2402, 0x0000040b],
    ),
    (
        "image_sample_c_lz v40, [v5, v2, v3, v11], s[56:63], s[28:31] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY",
        &[0xf0bc012a, 0x00ee2805, 0x000b0302],
    ),
    (
        "image_sample_c_d_cl_o v41, [v6, v5, v7, v8, v9, v10, v2, v3, v12], s[64:71], s[32:35] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0ec010c, 0x01102906, 0x09080705, 0x0c03020a],
    ),
    (
        "image_sample_l v[42:45], [v2, v3, v4], s[8:15], s[80:83] dmask:0xf dim:SQ_RSRC_IMG_2D",
        &[0xf0900f0a, 0x02822a02, 0x00000403],
    ),
    (
        "image_sample_d v[46:49], [v7, v9, v2], s[72:79], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_1D",
        &[0xf0880f02, 0x00d22e07, 0x00000209],
    ),
    (
        "image_sample_c_l v50, [v5, v2, v3, v4], s[64:71], s[32:35] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf0b0010a, 0x01103205, 0x00040302],
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
    ("s_endpgm", &[0xbf810000]),
];

fn f32_to_f16(x: f32) -> u16 {
    // Exact for the n/256 values used here (|n| ≤ 64): sign, exponent, 10-bit mantissa.
    if x == 0.0 {
        return if x.is_sign_negative() { 0x8000 } else { 0 };
    }
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&e) && b & 0x1fff == 0, "{x}");
    sign | (e as u16) << 10 | ((b >> 13) & 0x3ff) as u16
}

// coverage: sample_mip_forms: IMAGE_SAMPLE_LZ IMAGE_SAMPLE_D_CL IMAGE_SAMPLE_D_G16 IMAGE_SAMPLE_L_O IMAGE_SAMPLE_L IMAGE_SAMPLE_C_LZ IMAGE_SAMPLE_C_D_CL_O IMAGE_SAMPLE_D IMAGE_SAMPLE_C_L
/// Every form in [`MIP_FORMS_ASM`] over 256 lanes (the capture's edge LODs, NaN and ±inf coordinates,
/// gradients from zero and NaN up, LOD clamps around the samplers' MIN_LOD, references outside [0, 1]),
/// `--backend both`, every result against [`ref_sample`].
#[test]
fn sample_mip_forms() {
    let dir = scratch("mip-forms");
    write_code(&dir.join("k.bin"), MIP_FORMS_ASM);
    let mut g = Lcg(1950);
    let levels = [(13, 7), (6, 3), (3, 1)];
    let base = [0i32, 91, 109];
    let tex: Vec<u8> = (0..112 * 4).map(|_| (g.next() >> 8) as u8).collect();
    let larr: Vec<u8> = (0..45 * 4).map(|_| (g.next() >> 8) as u8).collect();
    let line: Vec<u8> = (0..15 * 4).map(|_| (g.next() >> 8) as u8).collect();
    let codes = [0u16, 8191, 16384, 32768, 49151, 65535];
    let darr: Vec<u16> = (0..72).map(|_| codes[(g.next() % 6) as usize]).collect();
    let un: Vec<u16> = (0..112).map(|_| codes[(g.next() % 6) as usize]).collect();
    let u16_bytes = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    std::fs::write(dir.join("tex.bin"), &tex).unwrap();
    std::fs::write(dir.join("larr.bin"), &larr).unwrap();
    std::fs::write(dir.join("line.bin"), &line).unwrap();
    std::fs::write(dir.join("darr.bin"), u16_bytes(&darr)).unwrap();
    std::fs::write(dir.join("un.bin"), u16_bytes(&un)).unwrap();
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
    let caps = capture_inputs(n, &mut g);
    let refs = [-0.5f32, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, f32::NAN];
    let mut lanes: Vec<[u32; 16]> = Vec::new();
    let mut halves: Vec<[f32; 4]> = Vec::new();
    for (i, c) in caps.iter().enumerate() {
        let [u, v, _, lod] = c[0];
        let u = match i {
            100 => f32::NAN,
            101 => f32::INFINITY,
            102 => f32::NEG_INFINITY,
            _ => u,
        };
        let r = refs[g.next() as usize % refs.len()];
        let (ox, oy) = ((g.next() % 64) as i32 - 32, (g.next() % 64) as i32 - 32);
        let off = (ox as u32 & 0x3f) | (oy as u32 & 0x3f) << 8;
        let gr = [
            grad(i, &mut g),
            grad(i, &mut g),
            grad(i, &mut g),
            grad(i, &mut g),
        ];
        let slice = match i % 4 {
            0 => (i / 4 % 9) as f32 * 0.5 - 1.0,
            _ => rnd(-1.0, 4.0, &mut g),
        };
        let step = 1.0 / 256.0;
        let clamp = match i % 8 {
            0 => 0.25 - step,
            1 => 0.25 + step,
            2 => 1.0,
            3 => -0.5,
            _ => rnd(-0.5, 3.0, &mut g),
        };
        // 16-bit gradients n/256, |n| ≤ 64 (exact halves): up to 3.25 texels, LODs around levels 0..=2.
        let h: [f32; 4] = std::array::from_fn(|_| ((g.next() % 129) as i32 - 64) as f32 / 256.0);
        halves.push(h);
        let hb = |x: f32| f32_to_f16(x) as u32;
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
            hb(h[0]) | hb(h[1]) << 16,
            hb(h[2]) | hb(h[3]) << 16,
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
    let lin = Smp {
        linear: true,
        mip: 2,
        addr: [0, 2],
        min_lod: 0,
        max_lod: 3840,
        bias: 0,
        border: 0,
        compare: 0,
    };
    // A: LOD_BIAS 0.375. B: MIN_LOD ¼, MAX_LOD 1.75. C: nearest, bias −0.625. D: compare ≤, border white,
    // bias 0.625. E: compare >, MAX_LOD 2.5. F: MIN_LOD 1.5 above MAX_LOD 0.75 (MAX wins).
    let sa = Smp { bias: 96, ..lin };
    let sb = Smp {
        addr: [2, 1],
        min_lod: 64,
        max_lod: 448,
        ..lin
    };
    let sc = Smp {
        linear: false,
        addr: [1, 0],
        bias: -160,
        ..lin
    };
    let sd = Smp {
        addr: [6, 6],
        border: 2,
        compare: 3,
        bias: 160,
        ..lin
    };
    let se = Smp {
        addr: [0, 0],
        compare: 4,
        max_lod: 640,
        ..lin
    };
    let sf = Smp {
        min_lod: 384,
        max_lod: 192,
        ..lin
    };
    let sgprs = format!(
        "    {{ reg = 8, tsharp = \"tex\" }},\n    {{ reg = 16, ssharp = {} }},\n    {{ reg = 20, ssharp = {} }},\n    \
         {{ reg = 24, ssharp = {} }},\n    {{ reg = 28, ssharp = {} }},\n    {{ reg = 32, ssharp = {} }},\n    \
         {{ reg = 38, workgroup_id = 0 }},\n    {{ reg = 40, tsharp = \"view\" }},\n    {{ reg = 48, tsharp = \"larr\" }},\n    \
         {{ reg = 56, tsharp = \"darr\" }},\n    {{ reg = 64, tsharp = \"un\" }},\n    {{ reg = 72, tsharp = \"line\" }},\n    \
         {{ reg = 80, ssharp = {} }},\n",
        sa.toml(),
        sb.toml(),
        sc.toml(),
        sd.toml(),
        se.toml(),
        sf.toml()
    );
    let manifest = format!(
        "code = \"k.bin\"\ngrid = [{n}, 1, 1]\nworkgroup = [32, 1, 1]\n[abi]\nwave_size = 32\nsgpr = [\n    \
         {{ reg = 0, address = \"in\" }},\n    {{ reg = 2, address = \"o\" }},\n{sgprs}]\n\
         [[buffers]]\nname = \"in\"\nfile = \"in.bin\"\n[[buffers]]\nname = \"o\"\nsize = {}\noutput = true\n\
         [[images]]\nname = \"tex\"\nformat = \"rgba8_unorm\"\ndim = \"2d\"\nextent = [13, 7, 1]\nlevels = 3\nfile = \"tex.bin\"\n\
         [[images]]\nname = \"view\"\nview_of = \"tex\"\nbase_level = 1\nlevels = 2\n\
         [[images]]\nname = \"larr\"\nformat = \"rgba8_unorm\"\ndim = \"1d_array\"\nextent = [9, 1, 1]\nlevels = 3\nlayers = 3\nfile = \"larr.bin\"\n\
         [[images]]\nname = \"darr\"\nformat = \"r16_unorm\"\ndim = \"2d_array\"\nextent = [5, 4, 1]\nlevels = 2\nlayers = 3\nfile = \"darr.bin\"\n\
         [[images]]\nname = \"un\"\nformat = \"r16_unorm\"\ndim = \"2d\"\nextent = [13, 7, 1]\nlevels = 3\nfile = \"un.bin\"\n\
         [[images]]\nname = \"line\"\nformat = \"rgba8_unorm\"\ndim = \"1d\"\nextent = [9, 1, 1]\nlevels = 3\nfile = \"line.bin\"\n",
        n * 256
    );
    let out = run_manifest(&dir, &manifest);
    let o = words(&read(&out.join("o.bin")));
    // Texels (D183's layout: levels one after another, slices within a level, one row per 1-D slice).
    let tex_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
        let t = (base[l] + y * levels[l].0 + x) as usize;
        std::array::from_fn(|c| tex[4 * t + c] as f32 / 255.0)
    };
    let view_t = |l: usize, x: i32, y: i32| tex_t(l + 1, x, y);
    let line_t = |l: usize, x: i32, _y: i32| -> [f32; 4] {
        let t = ([0i32, 9, 13][l] + x) as usize;
        std::array::from_fn(|c| line[4 * t + c] as f32 / 255.0)
    };
    let un_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
        let c = un[(base[l] + y * levels[l].0 + x) as usize];
        [c as f32 / 65535.0, 0.0, 0.0, 1.0]
    };
    let line_levels = [(9, 1), (4, 1), (2, 1)];
    let arr_levels = [(5, 4), (2, 2)];
    let unorm_ref = |r: f32| if r.is_nan() { r } else { r.clamp(0.0, 1.0) };
    let mut blended = [0usize; 10];
    for (i, lane) in lanes.iter().enumerate() {
        let fl = |k: usize| f32::from_bits(lane[k]);
        let (u, v, lod, r) = (fl(0), fl(1), fl(2), fl(3));
        let off = (
            ((lane[4] << 26) as i32) >> 26,
            ((lane[4] << 18) as i32) >> 26,
        );
        let gr = [fl(5), fl(6), fl(7), fl(8)];
        let (slice, clamp) = (fl(9), fl(10));
        let h = halves[i];
        let sl = |layers: f32| {
            if slice.is_nan() {
                0
            } else {
                slice.round_ties_even().clamp(0.0, layers - 1.0) as i32
            }
        };
        let (s1, s2) = (sl(3.0), sl(3.0));
        let larr_t = |l: usize, x: i32, _y: i32| -> [f32; 4] {
            let t = ([0i32, 27, 39][l] + s1 * line_levels[l].0 + x) as usize;
            std::array::from_fn(|c| larr[4 * t + c] as f32 / 255.0)
        };
        let darr_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
            let (w, hh) = arr_levels[l];
            let c = darr[([0i32, 60][l] + (s2 * hh + y) * w + x) as usize];
            [c as f32 / 65535.0, 0.0, 0.0, 1.0]
        };
        let view_levels = [levels[1], levels[2]];
        let lods = [
            ref_lod(&sa, LodSrc::Zero, (13, 7), true, None),
            ref_lod(&sb, LodSrc::Grad(gr), (13, 7), true, Some(clamp)),
            ref_lod(&sc, LodSrc::Grad(h), (13, 7), true, None),
            ref_lod(&sa, LodSrc::Lod(lod), (6, 3), true, None),
            ref_lod(&sb, LodSrc::Lod(lod), (9, 1), false, None),
            ref_lod(&sd, LodSrc::Zero, (5, 4), true, None),
            ref_lod(&se, LodSrc::Grad(gr), (13, 7), true, Some(clamp)),
            ref_lod(&sf, LodSrc::Lod(lod), (13, 7), true, None),
            ref_lod(
                &sc,
                LodSrc::Grad([gr[0], 0.0, gr[2], 0.0]),
                (9, 1),
                false,
                None,
            ),
            ref_lod(&se, LodSrc::Lod(lod), (13, 7), true, None),
        ];
        let lasts = [2, 2, 2, 1, 2, 1, 2, 2, 2, 2];
        let sm = [&sa, &sb, &sc, &sa, &sb, &sd, &se, &sf, &sc, &se];
        for k in 0..10 {
            blended[k] += ref_levels(sm[k], lods[k], lasts[k]).1.is_some() as usize;
        }
        let z = (0, 0);
        let rr = unorm_ref(r);
        let want: [[f32; 4]; 10] = [
            ref_sample(&sa, u, v, z, lods[0], &levels, true, None, &tex_t),
            ref_sample(&sb, u, v, z, lods[1], &levels, true, None, &tex_t),
            ref_sample(&sc, u, v, z, lods[2], &levels, true, None, &tex_t),
            ref_sample(&sa, u, v, off, lods[3], &view_levels, true, None, &view_t),
            ref_sample(&sb, u, 0.0, z, lods[4], &line_levels, false, None, &larr_t),
            ref_sample(&sd, u, v, z, lods[5], &arr_levels, true, Some(rr), &darr_t),
            ref_sample(&se, u, v, off, lods[6], &levels, true, Some(rr), &un_t),
            ref_sample(&sf, u, v, z, lods[7], &levels, true, None, &tex_t),
            ref_sample(&sc, u, 0.0, z, lods[8], &line_levels, false, None, &line_t),
            ref_sample(&se, u, v, z, lods[9], &levels, true, Some(rr), &un_t),
        ];
        // Output dwords: v[20:39] the first five samples, v40, v41, v[42:45], v[46:49], v50.
        let at: [(usize, usize); 10] = [
            (0, 4),
            (4, 4),
            (8, 4),
            (12, 4),
            (16, 4),
            (20, 1),
            (21, 1),
            (22, 4),
            (26, 4),
            (30, 1),
        ];
        for (k, &(first, count)) in at.iter().enumerate() {
            for c in 0..count {
                let got = o[64 * i + first + c];
                assert_eq!(
                    got,
                    want[k][c].to_bits(),
                    "lane {i} form {k} ({}) c{c} (u {u}, v {v}, lod {lod}, ref {r}, off {off:?}, grads {gr:?}, \
                     g16 {h:?}, slice {slice}, clamp {clamp}; L {}): {} want {}",
                    MIP_FORMS_ASM[9 + k].0,
                    lods[k],
                    f32::from_bits(got),
                    want[k][c]
                );
            }
        }
    }
    // Every form blends two levels in some lanes.
    for (k, b) in blended.iter().enumerate() {
        assert!(*b > 0, "form {k} never blends");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A linear mip filter between two levels of a UINT format is refused at run time by name (D195); the
/// same sample on one level (an integer LOD) runs.
#[test]
fn sample_mip_refusals() {
    let dir = scratch("mip-refuse");
    // image_sample_l v[4:7], v[0:2], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D
    let code: &[(&str, &[u32])] = &[
        ("v_mov_b32_e32 v2, s20", &[0x7e040214]),
        (
            "image_sample_l v[4:7], v[0:2], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D",
            &[0xf0900f08, 0x00820400],
        ),
        ("s_endpgm", &[0xbf810000]),
    ];
    write_code(&dir.join("k.bin"), code);
    for (name, lod, refused) in [("whole", 1.0f32, false), ("frac", 1.5, true)] {
        let m = dir.join(format!("{name}.toml"));
        std::fs::write(
            &m,
            format!(
                "code = \"k.bin\"\ngrid = [32, 1, 1]\nworkgroup = [32, 1, 1]\n[abi]\nwave_size = 32\nsgpr = [ \
                 {{ reg = 8, tsharp = \"t\" }}, {{ reg = 16, ssharp = {{ filter = \"nearest\", mipmap_mode = \"linear\" }} }}, \
                 {{ reg = 20, u32 = {} }} ]\n[[images]]\nname = \"t\"\nformat = \"r32_uint\"\ndim = \"2d\"\nextent = [4, 4, 1]\nlevels = 3\n",
                lod.to_bits()
            ),
        )
        .unwrap();
        let o = rdna2spv(&["run", m.to_str().unwrap(), "--backend", "host"]);
        let err = String::from_utf8_lossy(&o.stderr);
        if refused {
            assert_ne!(o.status.code(), Some(0), "{name}: {err}");
            assert!(
                err.contains("linear mip filtering of a UINT/SINT format") && err.contains("D195"),
                "{name}: {err}"
            );
        } else {
            assert_eq!(o.status.code(), Some(0), "{name}: {err}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
