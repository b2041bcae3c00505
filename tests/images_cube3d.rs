//! 3-D and cube sampling (issue 27, decision D196): ACO captures of fixtures/images/sample3d.comp and
//! sample_cube.comp, and hand-assembled 3-D sampling forms (llvm-mc-19 encodings), run with `rdna2spv run
//! --backend both` (host evaluator ≡ lavapipe bit for bit) and compared with references written here from
//! the GLSL (Vulkan's cube face selection table) and D196's text (D187's model with a third axis; a cube
//! face sampled as a 2-D image; D198's seamless filtering, the neighbouring face's texel found by
//! projecting the texel's direction and selecting its face again), sharing no code with crates/ir or
//! crates/eval.
//!
//! Needs mesa-vulkan-drivers (RADV, lavapipe), glslang-tools and llvm-19, as CI installs them.

/// The suite's name: scratch folders and the executed-encoding log's test names (D159).
const SUITE: &str = "images_cube3d";

#[path = "support/images.rs"]
mod support;
use support::*;

/// One axis per D187/D191: the two texel indices (before the address mode) and the 8-bit fraction.
fn axis(c: f32, n: i32, linear: bool, off: i32) -> (i32, u32) {
    let s = c * n as f32;
    if linear {
        let (i, sc) = ref_floor(s - 0.5);
        (i + off, ((sc - i as f32) * 256.0) as u32)
    } else {
        (ref_floor(s).0 + off, 0)
    }
}

/// `p·(256 − a)/256 + q·a/256`, each product and the sum rounded (D187's weights).
fn lerp(p: f32, q: f32, a: u32) -> f32 {
    p * ((256 - a) as f32 / 256.0) + q * (a as f32 / 256.0)
}

/// A 3-D sampler as D196 reads it: filter (min = mag), address modes u, v, w, border colour.
#[derive(Clone, Copy)]
struct Sampler3 {
    linear: bool,
    addr: [u32; 3],
    border: [f32; 4],
}

/// One 3-D sample per D196 at extent `e` of level `d`: point → texel (i, j, k); trilinear → plane k0's
/// bilinear (rows j0 then j1, each along x) and plane k1's, blended by w's fraction.
fn sample3(
    s: &Sampler3,
    c: [f32; 3],
    off: [i32; 3],
    e: [i32; 3],
    texel: &dyn Fn(i32, i32, i32) -> [f32; 4],
) -> [f32; 4] {
    let ax: Vec<(i32, u32)> = (0..3).map(|k| axis(c[k], e[k], s.linear, off[k])).collect();
    let idx = |k: usize, t: i32| ref_address(ax[k].0 + t, e[k], s.addr[k]);
    let fetch = |tx: i32, ty: i32, tz: i32| {
        let (x, ix) = idx(0, tx);
        let (y, iy) = idx(1, ty);
        let (z, iz) = idx(2, tz);
        if ix && iy && iz {
            texel(x, y, z)
        } else {
            s.border
        }
    };
    if !s.linear {
        return fetch(0, 0, 0);
    }
    std::array::from_fn(|c| {
        let plane = |tz: i32| {
            let r0 = lerp(fetch(0, 0, tz)[c], fetch(1, 0, tz)[c], ax[0].1);
            let r1 = lerp(fetch(0, 1, tz)[c], fetch(1, 1, tz)[c], ax[0].1);
            lerp(r0, r1, ax[1].1)
        };
        lerp(plane(0), plane(1), ax[2].1)
    })
}

const SAMPLE_3D_ASM: &[(&str, &[u32])] = &[
    ("s_lshl_b32 s7, s6, 5", &[0x8f078506]),
    ("v_add_nc_u32_e32 v0, s7, v0", &[0x4a000007]),
    ("v_lshlrev_b32_e32 v1, 6, v0", &[0x34020086]),
    ("global_load_dwordx4 v[2:5], v1, s[0:1]", &[0xdc388000, 0x02000001]),
    ("global_load_dwordx4 v[6:9], v1, s[0:1] offset:16", &[0xdc388010, 0x06000001]),
    ("global_load_dwordx4 v[10:13], v1, s[0:1] offset:32", &[0xdc388020, 0x0a000001]),
    ("v_lshlrev_b32_e32 v56, 7, v0", &[0x34700087]),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    ("image_sample_lz v[20:23], v[2:4], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D", &[0xf09c0f10, 0x00821402]),
    ("image_sample_lz v[24:27], v[2:4], s[8:15], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_3D", &[0xf09c0f10, 0x00a21802]),
    ("image_sample_lz v[28:31], v[2:4], s[8:15], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_3D", &[0xf09c0f10, 0x00c21c02]),
    ("image_sample_lz v[32:35], v[2:4], s[8:15], s[28:31] dmask:0xf dim:SQ_RSRC_IMG_3D", &[0xf09c0f10, 0x00e22002]),
    ("image_sample_lz v[36:39], v[2:4], s[8:15], s[32:35] dmask:0xf dim:SQ_RSRC_IMG_3D", &[0xf09c0f10, 0x01022402]),
    ("image_sample_l v[40:43], v[2:5], s[8:15], s[36:39] dmask:0xf dim:SQ_RSRC_IMG_3D", &[0xf0900f10, 0x01222802]),
    ("image_sample_lz_o v[44:47], [v6, v2, v3, v4], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D", &[0xf0dc0f12, 0x00822c06, 0x00040302]),
    ("image_sample_d v[48:51], [v7, v8, v9, v10, v11, v12, v2, v3, v4], s[8:15], s[36:39] dmask:0xf dim:SQ_RSRC_IMG_3D", &[0xf0880f14, 0x01223007, 0x0b0a0908, 0x0403020c]),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    ("global_store_dwordx4 v56, v[20:23], s[2:3]", &[0xdc788000, 0x00021438]),
    ("global_store_dwordx4 v56, v[24:27], s[2:3] offset:16", &[0xdc788010, 0x00021838]),
    ("global_store_dwordx4 v56, v[28:31], s[2:3] offset:32", &[0xdc788020, 0x00021c38]),
    ("global_store_dwordx4 v56, v[32:35], s[2:3] offset:48", &[0xdc788030, 0x00022038]),
    ("global_store_dwordx4 v56, v[36:39], s[2:3] offset:64", &[0xdc788040, 0x00022438]),
    ("global_store_dwordx4 v56, v[40:43], s[2:3] offset:80", &[0xdc788050, 0x00022838]),
    ("global_store_dwordx4 v56, v[44:47], s[2:3] offset:96", &[0xdc788060, 0x00022c38]),
    ("global_store_dwordx4 v56, v[48:51], s[2:3] offset:112", &[0xdc788070, 0x00023038]),
    ("s_endpgm", &[0xbf810000]),
];

/// The D187/D191 LOD of a point-mip sampler with MIN_LOD 0, MAX_LOD 15 and no bias, from an f32 LOD: the
/// level `((L + 128) >> 8)`, at most `last`.
fn level_of_lod(lod: f32, last: usize) -> usize {
    let l = ref_floor(lod * 256.0).0.clamp(0, 3840);
    (((l + 128) >> 8) as usize).min(last)
}

/// D196's LOD from 3-D gradients (D191's rule with a third term): per direction
/// `q = RN(RN((du·W)² + (dv·H)²) + (dw·D)²)`, the larger, saturated to [2^−64, 2^64], `floor(128·log2 q)`,
/// then clamped to [0, 15·256]; the point-mip level.
fn level_of_grad(g: &[f32], wh: [f32; 3], last: usize) -> usize {
    let sq = |x: f32, n: f32| {
        let a = x * n;
        a * a
    };
    let qx = sq(g[0], wh[0]) + sq(g[1], wh[1]) + sq(g[2], wh[2]);
    let qy = sq(g[3], wh[0]) + sq(g[4], wh[1]) + sq(g[5], wh[2]);
    let q = if qy > qx { qy } else { qx };
    let lo = 2f32.powi(-64);
    let q = if q >= lo { q } else { lo };
    let q = q.min(2f32.powi(64));
    let l = ((128.0 * (q as f64).log2()).floor() as i32).clamp(0, 3840);
    (((l + 128) >> 8) as usize).min(last)
}

/// Hand-assembled 3-D forms (D196) on a 5×4×3 rgba8 image of two levels: `image_sample_lz` through five
/// samplers — every address mode on the third axis (repeat, mirror, clamp, mirror once, border) — and
/// `image_sample_l` (point mips), `image_sample_lz_o` (x, y, z offsets, other bits set) and
/// `image_sample_d` (six gradients, NSA), 256 lanes with texel-edge, NaN, ±inf and ±0 coordinates.
// coverage: sample_3d_forms: IMAGE_SAMPLE_LZ IMAGE_SAMPLE_L IMAGE_SAMPLE_LZ_O IMAGE_SAMPLE_D
#[test]
fn sample_3d_forms() {
    let dir = scratch("s3d");
    write_code(&dir.join("k.bin"), SAMPLE_3D_ASM);
    let mut g = Lcg(0x3d_0196);
    let ext = [[5i32, 4, 3], [2, 2, 1]];
    let base = [0usize, 60];
    let tex: Vec<u8> = (0..4 * 64).map(|_| (g.next() >> 8) as u8).collect();
    std::fs::write(dir.join("t.bin"), &tex).unwrap();
    let n = 256usize;
    let specials = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
    ];
    let mut inputs: Vec<[u32; 16]> = Vec::new();
    for i in 0..n {
        let mut c = [0f32; 3];
        for (k, ck) in c.iter_mut().enumerate() {
            let nk = ext[0][k];
            *ck = match (i + 3 * k) % 8 {
                // Texel edges and centres (k/N and (k + ½)/N) of level 0.
                0 => (g.next() % (3 * nk as u32)) as f32 / nk as f32 - 1.0,
                1 => ((g.next() % (3 * nk as u32)) as f32 + 0.5) / nk as f32 - 1.0,
                2 if i < 64 => specials[(i / 8 + k) % specials.len()],
                _ => (g.next() % 4000) as f32 / 1000.0 - 1.5,
            };
        }
        let lod = (g.next() % 16) as f32 * 0.25 - 1.0;
        // Offsets: x, y, z in their 6-bit fields, junk in the bits between.
        let off = g.next() & 0x3f | (g.next() & 0x3f) << 8 | (g.next() & 0x3f) << 16 | 0xc0c0_c0c0;
        let mut grads = [0f32; 6];
        for gk in grads.iter_mut() {
            *gk = match g.next() % 8 {
                0 => 0.0,
                1 if i % 16 == 1 => f32::NAN,
                _ => ((g.next() % 2000) as f32 / 1000.0 - 1.0) / (1 << (g.next() % 4)) as f32,
            };
        }
        let mut w = [0u32; 16];
        w[0] = c[0].to_bits();
        w[1] = c[1].to_bits();
        w[2] = c[2].to_bits();
        w[3] = lod.to_bits();
        w[4] = off;
        for k in 0..6 {
            w[5 + k] = grads[k].to_bits();
        }
        inputs.push(w);
    }
    let bytes: Vec<u8> = inputs
        .iter()
        .flat_map(|w| w.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    std::fs::write(dir.join("in.bin"), bytes).unwrap();
    let manifest = lanes_manifest(
        n,
        n * 128,
        r#"    { reg = 8, tsharp = "t" },
    { reg = 16, ssharp = { filter = "linear", address = ["repeat", "clamp_to_edge", "repeat"] } },
    { reg = 20, ssharp = { filter = "linear", address = ["clamp_to_edge", "mirrored_repeat", "mirrored_repeat"] } },
    { reg = 24, ssharp = { filter = "nearest", address = ["repeat", "repeat", "clamp_to_edge"] } },
    { reg = 28, ssharp = { filter = "linear", address = ["mirror_clamp_to_edge", "clamp_to_edge", "mirror_clamp_to_edge"] } },
    { reg = 32, ssharp = { filter = "linear", address = ["clamp_to_border", "clamp_to_border", "clamp_to_border"], border = "opaque_white" } },
    { reg = 36, ssharp = { filter = "nearest", address = ["repeat", "clamp_to_edge", "clamp_to_border"], border = "opaque_black" } },
"#,
        r#"[[images]]
name = "t"
format = "rgba8_unorm"
dim = "3d"
extent = [5, 4, 3]
levels = 2
file = "t.bin"
"#,
    );
    let out = run_manifest(&dir, &manifest);
    let o = words(&read(&out.join("o.bin")));
    let texel = |d: usize| {
        let tex = &tex;
        move |x: i32, y: i32, z: i32| -> [f32; 4] {
            let [w, h, _] = ext[d];
            let t = base[d] + ((z * h + y) * w + x) as usize;
            std::array::from_fn(|c| tex[4 * t + c] as f32 / 255.0)
        }
    };
    let tb = [0.0, 0.0, 0.0, 0.0];
    let s = |linear: bool, addr: [u32; 3], border: [f32; 4]| Sampler3 {
        linear,
        addr,
        border,
    };
    let samplers = [
        s(true, [0, 2, 0], tb),
        s(true, [2, 1, 1], tb),
        s(false, [0, 0, 2], tb),
        s(true, [3, 2, 3], tb),
        s(true, [6, 6, 6], [1.0; 4]),
        s(false, [0, 2, 6], [0.0, 0.0, 0.0, 1.0]),
    ];
    let mut z_fractions = 0;
    for (i, w) in inputs.iter().enumerate() {
        let c = [0, 1, 2].map(|k| f32::from_bits(w[k]));
        let lod = f32::from_bits(w[3]);
        let sext = |v: u32| ((v & 0x3f) as i32) << 26 >> 26;
        let off = [sext(w[4]), sext(w[4] >> 8), sext(w[4] >> 16)];
        let grads: Vec<f32> = (0..6).map(|k| f32::from_bits(w[5 + k])).collect();
        let mut want = Vec::new();
        for sm in &samplers[..5] {
            want.push(sample3(sm, c, [0; 3], ext[0], &texel(0)));
        }
        let d = level_of_lod(lod, 1);
        want.push(sample3(&samplers[5], c, [0; 3], ext[d], &texel(d)));
        want.push(sample3(&samplers[0], c, off, ext[0], &texel(0)));
        let d = level_of_grad(&grads, [5.0, 4.0, 3.0], 1);
        want.push(sample3(&samplers[5], c, [0; 3], ext[d], &texel(d)));
        z_fractions += (axis(c[2], 3, true, 0).1 != 0) as usize;
        for (k, wk) in want.iter().enumerate() {
            for ch in 0..4 {
                let got = o[32 * i + 4 * k + ch];
                assert_eq!(
                    got,
                    wk[ch].to_bits(),
                    "lane {i} (u, v, w {c:?}, lod {lod}, off {off:?}, grads {grads:?}) sample {k} c{ch}: {} want {}",
                    f32::from_bits(got),
                    wk[ch]
                );
            }
        }
    }
    // The third axis is filtered, not only selected.
    assert!(z_fractions > n / 2, "{z_fractions}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `sample3d.comp` captured by ACO (`texture()` nearest and `textureLod(…, 0)` trilinear on 8×6×5 rgba8
/// images; third-axis modes mirror-once and mirrored repeat), wave32 and wave64, against D196's model on
/// the GLSL's coordinates.
// coverage: sample_3d_capture: IMAGE_SAMPLE_LZ
#[test]
fn sample_3d_capture() {
    for wave in [32u32, 64] {
        let dir = scratch(&format!("s3dcap-w{wave}"));
        let e = [8i32, 6, 5];
        let mut g = Lcg(196 + wave as u64);
        let near: Vec<u8> = (0..8 * 6 * 5 * 4).map(|_| (g.next() >> 8) as u8).collect();
        let lin: Vec<u8> = (0..8 * 6 * 5 * 4).map(|_| (g.next() >> 8) as u8).collect();
        std::fs::write(dir.join("near.bin"), &near).unwrap();
        std::fs::write(dir.join("lin.bin"), &lin).unwrap();
        let args: Vec<String> = [
            "--grid",
            "16,16",
            "--image",
            "nearestVol=8,6,5,1,1",
            "--image",
            "linearVol=8,6,5,1,1",
            "--sampler",
            "nearestVol=nearest,repeat,clamp_to_edge,mirror_clamp_to_edge",
            "--sampler",
            "linearVol=linear,clamp_to_edge,repeat,mirrored_repeat",
            "--size",
            "o=8192",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            format!("--input=nearestVol={}", dir.join("near.bin").display()),
            format!("--input=linearVol={}", dir.join("lin.bin").display()),
        ])
        .collect();
        let m = capture("sample3d.comp", wave, &args, &dir);
        let listing =
            std::fs::read_to_string(dir.join(format!("sample3d.navi21.w{wave}.aco.txt"))).unwrap();
        assert_eq!(
            listing.matches("dim:SQ_RSRC_IMG_3D").count(),
            2,
            "{listing}"
        );
        let out = dir.join("out");
        run_both(&m, &out);
        let o = words(&read(&out.join("o.bin")));
        let texel_of = |t: &[u8]| {
            let t = t.to_vec();
            move |x: i32, y: i32, z: i32| -> [f32; 4] {
                let k = ((z * e[1] + y) * e[0] + x) as usize;
                std::array::from_fn(|c| t[4 * k + c] as f32 / 255.0)
            }
        };
        let (tn, tl) = (texel_of(&near), texel_of(&lin));
        let sn = Sampler3 {
            linear: false,
            addr: [0, 2, 3],
            border: [0.0; 4],
        };
        let sl = Sampler3 {
            linear: true,
            addr: [2, 0, 1],
            border: [0.0; 4],
        };
        for py in 0..16u32 {
            for px in 0..16u32 {
                let i = (py * 16 + px) as usize;
                let c = [
                    px as f32 * 0.125f32 - 0.5f32,
                    py as f32 * 0.0937f32 - 0.25f32,
                    ((px + 3 * py) % 16) as f32 * 0.0781f32 - 0.125f32,
                ];
                let a = sample3(&sn, c, [0; 3], e, &tn);
                let b = sample3(&sl, c, [0; 3], e, &tl);
                for ch in 0..4 {
                    assert_eq!(
                        o[8 * i + ch],
                        a[ch].to_bits(),
                        "w{wave} ({px}, {py}) nearest c{ch}"
                    );
                    assert_eq!(
                        o[8 * i + 4 + ch],
                        b[ch].to_bits(),
                        "w{wave} ({px}, {py}) trilinear c{ch}: {} want {}",
                        f32::from_bits(o[8 * i + 4 + ch]),
                        b[ch]
                    );
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// ACO's cube coordinates for a direction (x, y, z) and a layer, written from GLSL's cube face selection
/// (the Vulkan spec's table: +X sc = −z, tc = −y; −X z, −y; +Y x, z; −Y x, −z; +Z x, −y; −Z −x, −y; ma
/// the major axis) with the ISA's tie rule (z wins over y, y over x; NaN compares false, −0 is not
/// negative) and the arithmetic ACO emits in the listing: `s = fma(sc, RN(1/|2·ma|), 1.5)`, likewise t,
/// the face `fma(RNE(layer), 8, face)` for arrays.
fn cube_coords(d: [f32; 4], array: bool) -> [f32; 3] {
    let [x, y, z, layer] = d;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if az >= ax && az >= ay {
        if z < 0.0 {
            (5, -x, -y, z)
        } else {
            (4, x, -y, z)
        }
    } else if ay >= ax {
        if y < 0.0 {
            (3, x, -z, y)
        } else {
            (2, x, z, y)
        }
    } else if x < 0.0 {
        (1, z, -y, x)
    } else {
        (0, -z, -y, x)
    };
    let rcp = 1.0f32 / (2.0 * ma).abs();
    let id = face as f32;
    let f = if array {
        layer.round_ties_even().mul_add(8.0, id)
    } else {
        id
    };
    [sc.mul_add(rcp, 1.5), tc.mul_add(rcp, 1.5), f]
}

/// One cube sample per D196 on faces of `n` texels with `cubes` cubes: the slice from the face
/// coordinate (nearest even, layer `z >> 3` clamped, face `z & 7`), `u = s − 1`, `v = t − 1`, D187's axes
/// with indices clamped to the face. Also whether a footprint texel left the face (seamless: refused).
fn cube_sample(
    linear: bool,
    c: [f32; 3],
    n: i32,
    cubes: i32,
    texel: &dyn Fn(i32, i32, i32) -> [f32; 4],
) -> ([f32; 4], bool) {
    let q = if c[2].is_nan() {
        0
    } else {
        c[2].clamp(-16_777_216.0, 16_777_216.0).round_ties_even() as i32
    };
    let face = q & 7;
    assert!(face < 6, "face {face}");
    let slice = 6 * (q >> 3).clamp(0, cubes - 1) + face;
    let (i, a) = axis(c[0] - 1.0, n, linear, 0);
    let (j, b) = axis(c[1] - 1.0, n, linear, 0);
    let on = |k: i32| (0..n).contains(&k);
    let crossed = !on(i) || !on(j) || (linear && (!on(i + 1) || !on(j + 1)));
    let cl = |k: i32| k.clamp(0, n - 1);
    let t = |di: i32, dj: i32| texel(slice, cl(i + di), cl(j + dj));
    if !linear {
        return (t(0, 0), crossed);
    }
    let (t00, t10, t01, t11) = (t(0, 0), t(1, 0), t(0, 1), t(1, 1));
    (
        std::array::from_fn(|k| lerp(lerp(t00[k], t10[k], a), lerp(t01[k], t11[k], a), b)),
        crossed,
    )
}

/// Each face's major axis M, s axis S and t axis T as vectors, read from the Vulkan spec's "Cube Map Face
/// Selection" table (layer, rc, sc, tc columns): +X sc = −rz, tc = −ry; −X +rz, −ry; +Y +rx, +rz; −Y +rx,
/// −rz; +Z +rx, −ry; −Z −rx, −ry. [`select_face`] checks them against the same table written as code.
const FACES: [[[i64; 3]; 3]; 6] = [
    [[1, 0, 0], [0, 0, -1], [0, -1, 0]],
    [[-1, 0, 0], [0, 0, 1], [0, -1, 0]],
    [[0, 1, 0], [1, 0, 0], [0, 0, 1]],
    [[0, -1, 0], [1, 0, 0], [0, 0, -1]],
    [[0, 0, 1], [1, 0, 0], [0, -1, 0]],
    [[0, 0, -1], [-1, 0, 0], [0, -1, 0]],
];

/// The Vulkan face selection of an integer direction: (face, sc, tc, |rc|); the major axis is unique for
/// every direction [`fold`] asks about (no ties).
fn select_face(d: [i64; 3]) -> (usize, i64, i64, i64) {
    let [x, y, z] = d;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    if az > ax && az > ay {
        if z < 0 {
            (5, -x, -y, az)
        } else {
            (4, x, -y, az)
        }
    } else if ay > ax && ay > az {
        if y < 0 {
            (3, x, -z, ay)
        } else {
            (2, x, z, ay)
        }
    } else {
        assert!(ax > ay && ax > az, "a tie: {d:?}");
        if x < 0 {
            (1, z, -y, ax)
        } else {
            (0, -z, -y, ax)
        }
    }
}

/// The texel of face `face` (faces of `n` texels) at (i, j) one texel off the face on one axis, found
/// the Vulkan way: the direction of its centre, `n·M + (2i + 1 − n)·S + (2j + 1 − n)·T`, selects a face
/// by the table, and the face coordinates `(sc/|rc| + 1)/2` of that direction give the texel
/// `floor(n·(sc + |rc|)/(2·|rc|))` (integer arithmetic, exact). Returns (face, i, j).
fn fold(face: usize, i: i32, j: i32, n: i32) -> (usize, i32, i32) {
    let [m, sv, tv] = FACES[face];
    let (n, i, j) = (n as i64, i as i64, j as i64);
    let d: [i64; 3] =
        std::array::from_fn(|k| n * m[k] + (2 * i + 1 - n) * sv[k] + (2 * j + 1 - n) * tv[k]);
    let (g, sc, tc, ma) = select_face(d);
    let idx = |c: i64| (n * (c + ma)).div_euclid(2 * ma) as i32;
    (g, idx(sc), idx(tc))
}

/// [`FACES`] agrees with [`select_face`] and with [`cube_coords`] (the table written three ways): the
/// direction `4·M + S + 2·T` of face f selects f with sc = 1, tc = 2.
#[test]
fn cube_face_table_agrees() {
    for (f, [m, sv, tv]) in FACES.iter().enumerate() {
        let d: [i64; 3] = std::array::from_fn(|k| 4 * m[k] + sv[k] + 2 * tv[k]);
        assert_eq!(select_face(d), (f, 1, 2, 4), "face {f}");
        let c = cube_coords([d[0] as f32, d[1] as f32, d[2] as f32, 0.0], false);
        assert_eq!(c, [1.625, 1.75, f as f32], "face {f}");
    }
}

/// D198's seamless cube sample, from the face coordinates ACO computes (or a test gives): D196's slice,
/// face and axes, the footprint shaped (bilinear `i0 ∈ [−1, n − 1]`, `i1 = i0 + 1`; point `i ∈ [−1, n]`),
/// a texel off the face on one axis taken by [`fold`], a corner texel (off on both axes) the f32
/// average `((own + across_i) + across_j) / 3` of the face's own texel (both indices clamped), the texel
/// across the i edge (i kept, j clamped) and across the j edge; then point or D187's bilinear. Also the
/// (face, edge) folds and corner texels it used (edge 0: i < 0, 1: i ≥ n, 2: j < 0, 3: j ≥ n).
fn seamless_sample(
    linear: bool,
    c: [f32; 3],
    n: i32,
    cubes: i32,
    texel: &dyn Fn(i32, i32, i32) -> [f32; 4],
    seen: &mut Seen,
) -> [f32; 4] {
    let (face, base) = cube_face(c[2], cubes);
    let (i, a) = axis(c[0] - 1.0, n, linear, 0);
    let (j, b) = axis(c[1] - 1.0, n, linear, 0);
    let at = |x: i32, y: i32, seen: &mut Seen| seamless_texel(face, base, x, y, n, texel, seen);
    if !linear {
        return at(i.clamp(-1, n), j.clamp(-1, n), seen);
    }
    let (i, j) = (i.clamp(-1, n - 1), j.clamp(-1, n - 1));
    let (t00, t10) = (at(i, j, seen), at(i + 1, j, seen));
    let (t01, t11) = (at(i, j + 1, seen), at(i + 1, j + 1, seen));
    std::array::from_fn(|k| lerp(lerp(t00[k], t10[k], a), lerp(t01[k], t11[k], a), b))
}

/// What the seamless references used: (face, edge) folds and corner texels (face, corner by the signs
/// of i and j).
#[derive(Default)]
struct Seen {
    edges: std::collections::BTreeSet<(usize, usize)>,
    corners: std::collections::BTreeSet<(usize, bool, bool)>,
}

/// D196's face and slice base from the face coordinate: `RNE` (NaN → 0), face `q & 7` (never 6, 7
/// here), base slice `6·clamp(q >> 3, 0, cubes − 1)`.
fn cube_face(f: f32, cubes: i32) -> (usize, i32) {
    let q = if f.is_nan() {
        0
    } else {
        f.clamp(-16_777_216.0, 16_777_216.0).round_ties_even() as i32
    };
    let face = q & 7;
    assert!(face < 6, "face {face}");
    (face as usize, 6 * (q >> 3).clamp(0, cubes - 1))
}

/// One texel of a seamless cube footprint at face indices (x, y) in [−1, n] (D198).
fn seamless_texel(
    face: usize,
    base: i32,
    x: i32,
    y: i32,
    n: i32,
    texel: &dyn Fn(i32, i32, i32) -> [f32; 4],
    seen: &mut Seen,
) -> [f32; 4] {
    let on = |k: i32| (0..n).contains(&k);
    let edge = |k: i32, e: usize| if k < 0 { e } else { e + 1 };
    let across = |x: i32, y: i32, seen: &mut Seen| {
        seen.edges
            .insert((face, if on(x) { edge(y, 2) } else { edge(x, 0) }));
        let (g, i, j) = fold(face, x, y, n);
        texel(base + g as i32, i, j)
    };
    match (on(x), on(y)) {
        (true, true) => texel(base + face as i32, x, y),
        (true, false) | (false, true) => across(x, y, seen),
        (false, false) => {
            seen.corners.insert((face, x < 0, y < 0));
            let cl = |k: i32| k.clamp(0, n - 1);
            let own = texel(base + face as i32, cl(x), cl(y));
            let ai = across(x, cl(y), seen);
            let aj = across(cl(x), y, seen);
            std::array::from_fn(|k| (own[k] + ai[k] + aj[k]) / 3.0)
        }
    }
}

/// A cube gather under seamless filtering (D190's order on D198's footprint): component `comp` of
/// (i0, j1), (i1, j1), (i1, j0), (i0, j0).
fn seamless_gather(
    c: [f32; 3],
    n: i32,
    cubes: i32,
    comp: usize,
    texel: &dyn Fn(i32, i32, i32) -> [f32; 4],
    seen: &mut Seen,
) -> [f32; 4] {
    let (face, base) = cube_face(c[2], cubes);
    let i = axis(c[0] - 1.0, n, true, 0).0.clamp(-1, n - 1);
    let j = axis(c[1] - 1.0, n, true, 0).0.clamp(-1, n - 1);
    let mut t = |di: i32, dj: i32| seamless_texel(face, base, i + di, j + dj, n, texel, seen)[comp];
    [t(0, 1), t(1, 1), t(1, 0), t(0, 0)]
}

/// Directions for the cube capture: every face's axis, ties between axes (|x| = |y|, |x| = |z|,
/// |y| = |z|, all three), signed zeros, NaN and infinite components, then random ones; layers with halves
/// (ties), NaN and values past the array.
fn cube_dirs(g: &mut Lcg, n: usize) -> Vec<[f32; 4]> {
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let mut d: Vec<[f32; 4]> = vec![
        [1.0, 0.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 0.5],
        [0.0, -1.0, 0.0, 1.5],
        [0.0, 0.0, 1.0, 2.5],
        [0.0, 0.0, -1.0, -0.5],
        [1.0, 1.0, 0.5, 0.0],
        [-1.0, 1.0, 0.25, 1.0],
        [1.0, -1.0, -0.75, 0.0],
        [0.5, 1.0, 1.0, 1.0],
        [1.0, 0.3, 1.0, 0.0],
        [-1.0, 0.2, -1.0, 1.0],
        [1.0, 1.0, 1.0, 0.0],
        [-1.0, -1.0, -1.0, 1.0],
        [0.75, -0.75, 0.75, 3.0],
        [-0.3, 0.3, -0.3, -2.0],
        [0.0, 0.0, 0.0, 0.0],
        [-0.0, 0.0, 0.0, 0.0],
        [0.0, -0.0, 0.0, 0.0],
        [0.0, 0.0, -0.0, 0.0],
        [-0.0, -0.0, -0.0, -0.0],
        [1.0, -0.0, 0.0, 0.0],
        [-0.0, -1.0, 0.0, 1.0],
        [0.0, -0.0, -1.0, 0.0],
        [nan, 1.0, 0.0, 0.0],
        [1.0, nan, 0.5, 1.0],
        [0.5, 0.5, nan, 0.0],
        [nan, nan, nan, nan],
        [0.5, -0.25, 0.75, nan],
        [inf, 1.0, 0.0, 0.0],
        [0.0, -inf, 0.5, 1.0],
        [1.0, 2.0, -inf, 0.0],
    ];
    while d.len() < n {
        let layer = match g.next() % 4 {
            0 => (g.next() % 9) as f32 * 0.5 - 1.0,
            _ => (g.next() % 500) as f32 / 100.0 - 1.5,
        };
        let mut r = || (g.next() % 2001) as f32 / 1000.0 - 1.0;
        d.push([r(), r(), r(), layer]);
    }
    d
}

/// The captured sample_cube.comp manifest with `cubesTex` given three levels from `file` and a linear
/// mip filter with LOD_BIAS ¼ (the seamless default kept).
fn mip_manifest(captured: &str, file: &std::path::Path) -> String {
    let (head, tail) = captured
        .split_once("name = \"cubesTex\"")
        .expect("cubesTex");
    let tail = tail
        .replacen(
            "sampler = { filter = \"linear\"",
            "sampler = { mipmap_mode = \"linear\", lod_bias = 0.25, filter = \"linear\"",
            1,
        )
        .replacen("levels = 1", "levels = 3", 1)
        .replacen(
            "file = \"two.bin\"",
            &format!("file = {:?}", file.display().to_string()),
            1,
        );
    let m = format!("{head}name = \"cubesTex\"{tail}");
    assert!(
        m.contains("lod_bias = 0.25") && m.contains("levels = 3") && m.contains("mips.bin"),
        "{m}"
    );
    m
}

/// Directions for the seamless captures (D198): per face (M, S, T of [`FACES`]) and edge (±S, ±T), one
/// direction exactly on the cube's edge (a tie, v_cubeid's rule picks the face) and one 1 % inside it;
/// per face corner one 2–3 % inside it; the cube's eight corners (±1, ±1, ±1); then random ones. Layers
/// 0, ½, 1, 1½ in turn, random ones later.
fn seamless_dirs(g: &mut Lcg, n: usize) -> Vec<[f32; 4]> {
    let mut d: Vec<[f32; 4]> = Vec::new();
    let push = |v: [f32; 3], d: &mut Vec<[f32; 4]>| {
        let layer = (d.len() % 4) as f32 * 0.5;
        d.push([v[0], v[1], v[2], layer]);
    };
    let comb = |f: usize, a: f32, b: f32| -> [f32; 3] {
        let [m, sv, tv] = FACES[f];
        std::array::from_fn(|k| m[k] as f32 + a * sv[k] as f32 + b * tv[k] as f32)
    };
    for f in 0..6 {
        for sign in [-1.0f32, 1.0] {
            push(comb(f, sign, 0.3), &mut d);
            push(comb(f, 0.99 * sign, -0.4), &mut d);
            push(comb(f, 0.2, sign), &mut d);
            push(comb(f, -0.6, 0.99 * sign), &mut d);
        }
        for (a, b) in [(-1.0f32, -1.0f32), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)] {
            push(comb(f, 0.98 * a, 0.97 * b), &mut d);
        }
    }
    for x in [-1.0f32, 1.0] {
        for y in [-1.0f32, 1.0] {
            for z in [-1.0f32, 1.0] {
                push([x, y, z], &mut d);
            }
        }
    }
    while d.len() < n {
        let layer = (g.next() % 9) as f32 * 0.5 - 1.0;
        let mut r = || (g.next() % 2001) as f32 / 1000.0 - 1.0;
        d.push([r(), r(), r(), layer]);
    }
    d
}

/// `sample_cube.comp` captured by ACO (v_cubeid/sc/tc/ma, then `image_sample_lz` with dim CUBE): a
/// `samplerCube` through `texture()` (nearest) and a `samplerCubeArray` of two cubes through
/// `textureLod(…, 0)` (bilinear), faces of 4×4 rgba8 texels, wave32 and wave64. With the samplers'
/// `seamless = false` (DISABLE_CUBE_WRAP) every direction runs, edges and ties included, against D196's
/// model; with the captured samplers (seamless, RADV's default) directions on and near every edge and
/// corner of the cube and random ones against D198's reference ([`seamless_sample`]), every (face, edge)
/// and face corner reached by the bilinear sample; in wave32 also the cube array with three levels
/// through a linear mip filter (LOD_BIAS ¼: every lane blends levels 0 and 1, D195).
// coverage: sample_cube_capture: IMAGE_SAMPLE_LZ V_CUBEID_F32 V_CUBESC_F32 V_CUBETC_F32 V_CUBEMA_F32
#[test]
fn sample_cube_capture() {
    for wave in [32u32, 64] {
        let dir = scratch(&format!("cube-w{wave}"));
        let n = 4i32;
        let mut g = Lcg(0xc0be + wave as u64);
        let one: Vec<u8> = (0..4 * 16 * 6).map(|_| (g.next() >> 8) as u8).collect();
        let two: Vec<u8> = (0..4 * 16 * 12).map(|_| (g.next() >> 8) as u8).collect();
        std::fs::write(dir.join("one.bin"), &one).unwrap();
        std::fs::write(dir.join("two.bin"), &two).unwrap();
        let dirs_all = cube_dirs(&mut g, 256);
        let write_dirs = |d: &[[f32; 4]]| {
            let b: Vec<u8> = d.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
            std::fs::write(dir.join("dirs.bin"), b).unwrap();
        };
        write_dirs(&dirs_all);
        let args: Vec<String> = [
            "--grid",
            "16,16",
            "--image",
            "cubeTex=4,4,1,1,6",
            "--image",
            "cubesTex=4,4,1,1,12",
            "--sampler",
            "cubeTex=nearest,clamp_to_edge,clamp_to_edge",
            "--sampler",
            "cubesTex=linear,clamp_to_edge,clamp_to_edge",
            "--size",
            "o=8192",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            format!("--input=cubeTex={}", dir.join("one.bin").display()),
            format!("--input=cubesTex={}", dir.join("two.bin").display()),
            format!("--input=dirs={}", dir.join("dirs.bin").display()),
        ])
        .collect();
        let m = capture("sample_cube.comp", wave, &args, &dir);
        let listing =
            std::fs::read_to_string(dir.join(format!("sample_cube.navi21.w{wave}.aco.txt")))
                .unwrap();
        assert_eq!(
            listing.matches("dim:SQ_RSRC_IMG_CUBE").count(),
            2,
            "{listing}"
        );
        for op in [
            "v_cubeid_f32",
            "v_cubesc_f32",
            "v_cubetc_f32",
            "v_cubema_f32",
        ] {
            assert!(listing.contains(op), "{op}");
        }
        let seamless = std::fs::read_to_string(&m).unwrap();
        assert!(seamless.contains("dim = \"cube\""), "{seamless}");
        let texel_of = |t: &[u8]| {
            let t = t.to_vec();
            move |slice: i32, x: i32, y: i32| -> [f32; 4] {
                let k = ((slice * n + y) * n + x) as usize;
                std::array::from_fn(|c| t[4 * k + c] as f32 / 255.0)
            }
        };
        let (t1, t2) = (texel_of(&one), texel_of(&two));
        // Compares lane i's two samples with `want(i)`.
        let check =
            |out: &std::path::Path,
             dirs: &[[f32; 4]],
             what: &str,
             want: &mut dyn FnMut(usize, [f32; 4]) -> ([f32; 4], [f32; 4])| {
                let o = words(&read(&out.join("o.bin")));
                for (i, d) in dirs.iter().enumerate() {
                    let (a, b) = want(i, *d);
                    for ch in 0..4 {
                        assert_eq!(
                            o[8 * i + ch],
                            a[ch].to_bits(),
                            "w{wave} {what} lane {i} {d:?} cube c{ch}: {} want {}",
                            f32::from_bits(o[8 * i + ch]),
                            a[ch]
                        );
                        assert_eq!(
                            o[8 * i + 4 + ch],
                            b[ch].to_bits(),
                            "w{wave} {what} lane {i} {d:?} cube array c{ch}: {} want {}",
                            f32::from_bits(o[8 * i + 4 + ch]),
                            b[ch]
                        );
                    }
                }
            };
        // Non-seamless: every direction.
        let flat = dir.join("flat.toml");
        std::fs::write(
            &flat,
            seamless.replace("sampler = { filter", "sampler = { seamless = false, filter"),
        )
        .unwrap();
        assert_ne!(std::fs::read_to_string(&flat).unwrap(), seamless);
        let out = dir.join("out-flat");
        run_both(&flat, &out);
        let mut crossed = 0;
        check(&out, &dirs_all, "non-seamless", &mut |_, d| {
            let (a, ca) = cube_sample(false, cube_coords(d, false), n, 1, &t1);
            let (b, cb) = cube_sample(true, cube_coords(d, true), n, 2, &t2);
            crossed += (ca || cb) as usize;
            (a, b)
        });
        assert!(crossed > 20, "edge footprints exercised: {crossed}");
        // Seamless (the captured samplers, RADV's default): directions at and near every edge and
        // corner of the cube, then random ones (D198).
        let dirs = seamless_dirs(&mut g, 256);
        write_dirs(&dirs);
        let out = dir.join("out-seamless");
        run_both(&m, &out);
        let (mut near, mut lin) = (Seen::default(), Seen::default());
        check(&out, &dirs, "seamless", &mut |_, d| {
            let a = seamless_sample(false, cube_coords(d, false), n, 1, &t1, &mut near);
            let b = seamless_sample(true, cube_coords(d, true), n, 2, &t2, &mut lin);
            (a, b)
        });
        assert_eq!(lin.edges.len(), 24, "bilinear: every edge of every face");
        assert_eq!(
            lin.corners.len(),
            24,
            "bilinear: every corner of every face"
        );
        // A point sample leaves its face only at s or t = 2.0 exactly (i = N): directions on an edge whose
        // tie v_cubeid gives to a face where the coordinate is +|ma| — six edges, two corners here.
        assert!(
            near.edges.len() >= 6 && near.corners.len() >= 2,
            "nearest on edges and corners: {:?} {:?}",
            near.edges,
            near.corners
        );
        if wave == 32 {
            // Linear mip filtering (D195) on the seamless cube array: three levels (4, 2, 1 texels),
            // LOD_BIAS ¼ on the LOD 0 of `textureLod`, so every lane blends levels 0 and 1.
            let mips: Vec<u8> = (0..4 * 12 * 21).map(|_| (g.next() >> 8) as u8).collect();
            std::fs::write(dir.join("mips.bin"), &mips).unwrap();
            let mm = dir.join("mip.toml");
            std::fs::write(&mm, mip_manifest(&seamless, &dir.join("mips.bin"))).unwrap();
            let out = dir.join("out-mip");
            run_both(&mm, &out);
            let level = |d: usize| {
                let mips = &mips;
                move |slice: i32, x: i32, y: i32| -> [f32; 4] {
                    let e = 4 >> d;
                    let k = [0usize, 12 * 16, 12 * 20][d] + ((slice * e + y) * e + x) as usize;
                    std::array::from_fn(|c| mips[4 * k + c] as f32 / 255.0)
                }
            };
            let mut seen = Seen::default();
            check(&out, &dirs, "seamless mip", &mut |_, d| {
                let a = seamless_sample(false, cube_coords(d, false), n, 1, &t1, &mut near);
                let c = cube_coords(d, true);
                let r0 = seamless_sample(true, c, 4, 2, &level(0), &mut seen);
                let r1 = seamless_sample(true, c, 2, 2, &level(1), &mut seen);
                (a, mip_blend(r0, Some(r1), 64))
            });
            assert_eq!(seen.edges.len(), 24);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding. Per lane: (s, t, face, lod) from s[0:1] + 16·lane; four
/// cube samples (T# s[8:15] two cubes of one level, s[40:47] one cube of three levels); 16 dwords to s[2:3] + 64·lane.
const SAMPLE_CUBE_ASM: &[(&str, &[u32])] = &[
    ("s_lshl_b32 s7, s6, 5", &[0x8f078506]),
    ("v_add_nc_u32_e32 v0, s7, v0", &[0x4a000007]),
    ("v_lshlrev_b32_e32 v1, 4, v0", &[0x34020084]),
    (
        "global_load_dwordx4 v[2:5], v1, s[0:1]",
        &[0xdc388000, 0x02000001],
    ),
    ("v_lshlrev_b32_e32 v56, 6, v0", &[0x34700086]),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "image_sample_lz v[20:23], v[2:4], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_CUBE",
        &[0xf09c0f18, 0x00821402],
    ),
    (
        "image_sample_lz v[24:27], v[2:4], s[8:15], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_CUBE",
        &[0xf09c0f18, 0x00a21802],
    ),
    (
        "image_sample_l v[28:31], v[2:5], s[40:47], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_CUBE",
        &[0xf0900f18, 0x00ca1c02],
    ),
    (
        "image_sample_lz v[32:35], v[2:4], s[40:47], s[28:31] dmask:0xf dim:SQ_RSRC_IMG_CUBE",
        &[0xf09c0f18, 0x00ea2002],
    ),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "global_store_dwordx4 v56, v[20:23], s[2:3]",
        &[0xdc788000, 0x00021438],
    ),
    (
        "global_store_dwordx4 v56, v[24:27], s[2:3] offset:16",
        &[0xdc788010, 0x00021838],
    ),
    (
        "global_store_dwordx4 v56, v[28:31], s[2:3] offset:32",
        &[0xdc788020, 0x00021c38],
    ),
    (
        "global_store_dwordx4 v56, v[32:35], s[2:3] offset:48",
        &[0xdc788030, 0x00022038],
    ),
    ("s_endpgm", &[0xbf810000]),
];

/// The face coordinates the cube forms take directly (D196): s and t around [1, 2] (edges 1 and 2 exactly,
/// NaN, ±inf), face numbers of both cubes, past them (the layer clamped), negative, halves (ties to even)
/// and NaN — never 6 or 7 in the low bits (refused, below).
fn cube_face_inputs(g: &mut Lcg, n: usize) -> Vec<[f32; 4]> {
    let faces = [
        0.0,
        1.0,
        2.0,
        3.0,
        4.0,
        5.0,
        8.0,
        9.0,
        10.0,
        11.0,
        12.0,
        13.0,
        16.0,
        21.0,
        -8.0,
        -3.0,
        0.5,
        1.5,
        2.5,
        4.5,
        8.5,
        12.5,
        -0.0,
        f32::NAN,
    ];
    let st = [
        1.0,
        2.0,
        1.5,
        0.9,
        2.1,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    // Lanes 0..96: faces 0..=5 of the first cube with s, t each one of 0.99, 1.03, 1.97, 2.0 — every
    // edge and corner of every face for bilinear footprints and for point samples (D198).
    let corner = [0.99f32, 1.03, 1.97, 2.0];
    (0..n)
        .map(|i| {
            if i < 96 {
                let lod = (g.next() % 14) as f32 * 0.25 - 0.5;
                return [corner[i % 4], corner[i / 4 % 4], (i / 16) as f32, lod];
            }
            let mut c = |k: usize| {
                if (i + k).is_multiple_of(5) {
                    st[(i / 5 + k) % st.len()]
                } else {
                    1.0 + (g.next() % 1000) as f32 / 1000.0
                }
            };
            let (s, t) = (c(0), c(1));
            let face = faces[g.next() as usize % faces.len()];
            let lod = (g.next() % 14) as f32 * 0.25 - 0.5;
            [s, t, face, lod]
        })
        .collect()
}

/// The hand-assembled cube tests' fixture: `k.bin` (the code), a two-cube rgba8 image `two` (4×4 faces,
/// one level) and a one-cube image `mips` (three levels: 4, 2, 1), the face inputs of [`cube_face_inputs`]
/// over 256 lanes, and the manifest `k.toml` (T#s at s[8:15] and s[40:47], S#s at s16, s20, s24, s28).
struct CubeForms {
    dir: std::path::PathBuf,
    two: Vec<u8>,
    mips: Vec<u8>,
    inputs: Vec<[f32; 4]>,
    m: std::path::PathBuf,
}

impl CubeForms {
    const N: usize = 256;

    fn new(name: &str, code: &[(&str, &[u32])], seed: u64) -> CubeForms {
        let dir = scratch(name);
        write_code(&dir.join("k.bin"), code);
        let mut g = Lcg(seed);
        let two: Vec<u8> = (0..4 * 16 * 12).map(|_| (g.next() >> 8) as u8).collect();
        let mips: Vec<u8> = (0..4 * 6 * (16 + 4 + 1))
            .map(|_| (g.next() >> 8) as u8)
            .collect();
        std::fs::write(dir.join("two.bin"), &two).unwrap();
        std::fs::write(dir.join("mips.bin"), &mips).unwrap();
        let inputs = cube_face_inputs(&mut g, Self::N);
        write_lane_inputs(&dir.join("in.bin"), &inputs);
        let m = dir.join("k.toml");
        let f = CubeForms {
            dir,
            two,
            mips,
            inputs,
            m,
        };
        std::fs::write(&f.m, f.manifest(false)).unwrap();
        f
    }

    /// The manifest; `seamless = false` on every sampler unless `seamless`.
    fn manifest(&self, seamless: bool) -> String {
        let sm = if seamless { "" } else { "seamless = false, " };
        lanes_manifest(
            Self::N,
            Self::N * 64,
            &format!(
                r#"    {{ reg = 8, tsharp = "two" }},
    {{ reg = 40, tsharp = "mips" }},
    {{ reg = 16, ssharp = {{ {sm}filter = "nearest" }} }},
    {{ reg = 20, ssharp = {{ {sm}filter = "linear", address = ["repeat", "mirrored_repeat"] }} }},
    {{ reg = 24, ssharp = {{ {sm}filter = "nearest", mipmap_mode = "nearest" }} }},
    {{ reg = 28, ssharp = {{ {sm}filter = "linear", address = ["clamp_to_border", "clamp_to_border"], border = "opaque_white" }} }},
"#
            ),
            r#"[[images]]
name = "two"
format = "rgba8_unorm"
dim = "cube"
extent = [4, 4, 1]
layers = 12
file = "two.bin"
[[images]]
name = "mips"
format = "rgba8_unorm"
dim = "cube"
extent = [4, 4, 1]
levels = 3
layers = 6
file = "mips.bin"
"#,
        )
    }

    /// `--backend both`; the output words (16 per lane).
    fn run(&self) -> Vec<u32> {
        let out = self.dir.join("out");
        run_both(&self.m, &out);
        words(&read(&out.join("o.bin")))
    }

    /// A texel of `two` (slice, x, y).
    fn two(&self, slice: i32, x: i32, y: i32) -> [f32; 4] {
        let k = ((slice * 4 + y) * 4 + x) as usize;
        std::array::from_fn(|c| self.two[4 * k + c] as f32 / 255.0)
    }

    /// A texel of `mips` level `d` (slice, x, y).
    fn mip(&self, d: usize, slice: i32, x: i32, y: i32) -> [f32; 4] {
        let e = 4 >> d;
        let k = [0usize, 96, 120][d] + ((slice * e + y) * e + x) as usize;
        std::array::from_fn(|c| self.mips[4 * k + c] as f32 / 255.0)
    }

    /// A host run that exits 2 naming `msg`.
    fn refused(&self, what: &str, msg: &str) {
        let o = rdna2spv(&[
            "run".as_ref(),
            self.m.as_os_str(),
            "--backend".as_ref(),
            "host".as_ref(),
            "--out".as_ref(),
            self.dir.join("out-refused").as_os_str(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains(msg), "{what}: {err}");
    }
}

/// Hand-assembled cube forms with the face coordinates given directly (D196): `image_sample_lz` nearest
/// and bilinear on a two-cube image (non-seamless), `image_sample_l` nearest with point mips and
/// `image_sample_lz` bilinear on a one-cube image of three levels (4, 2, 1 texels), 256 lanes; the same
/// four samples with seamless samplers against D198's reference (every edge and corner of every face,
/// point and bilinear); then the refusals: a face number 6 at run time, `_o` on a cube and `_g16` on a
/// 3-D image at lift time.
// coverage: sample_cube_forms: IMAGE_SAMPLE_LZ IMAGE_SAMPLE_L
#[test]
fn sample_cube_forms() {
    let fx = CubeForms::new("cubeforms", SAMPLE_CUBE_ASM, 0xcbe_0196);
    let (n, inputs, dir, m) = (CubeForms::N, &fx.inputs, &fx.dir, &fx.m);
    let o = fx.run();
    let t2 = |slice: i32, x: i32, y: i32| fx.two(slice, x, y);
    let fxr = &fx;
    let tm = |d: usize| move |slice: i32, x: i32, y: i32| fxr.mip(d, slice, x, y);
    let mut edges = 0;
    for (i, &[s, t, face, lod]) in inputs.iter().enumerate() {
        let c = [s, t, face];
        let (a, ca) = cube_sample(false, c, 4, 2, &t2);
        let (b, cb) = cube_sample(true, c, 4, 2, &t2);
        let d = level_of_lod(lod, 2);
        let (e, _) = cube_sample(false, c, 4 >> d, 1, &tm(d));
        let (f, _) = cube_sample(true, c, 4, 1, &tm(0));
        edges += (ca || cb) as usize;
        for (k, want) in [a, b, e, f].iter().enumerate() {
            for ch in 0..4 {
                let got = o[16 * i + 4 * k + ch];
                assert_eq!(
                    got,
                    want[ch].to_bits(),
                    "lane {i} (s {s}, t {t}, face {face}, lod {lod}) sample {k} c{ch}: {} want {}",
                    f32::from_bits(got),
                    want[ch]
                );
            }
        }
    }
    assert!(edges > n / 8, "{edges}");
    // Refused: a face number 6 (low bits 6 or 7) at run time; seamless footprints off the face.
    let refused = |what: &str, msg: &str| fx.refused(what, msg);
    let mut bad = inputs.clone();
    bad[3][2] = 14.0;
    write_lane_inputs(&dir.join("in.bin"), &bad);
    refused("face 6", "a cube face number 6 or 7");
    write_lane_inputs(&dir.join("in.bin"), inputs);
    // Seamless filtering (D198): the same four samples against the seamless reference.
    std::fs::write(m, fx.manifest(true)).unwrap();
    let o = fx.run();
    let (mut near, mut lin) = (Seen::default(), Seen::default());
    for (i, &[s, t, face, lod]) in inputs.iter().enumerate() {
        let c = [s, t, face];
        let d = level_of_lod(lod, 2);
        let want = [
            seamless_sample(false, c, 4, 2, &t2, &mut near),
            seamless_sample(true, c, 4, 2, &t2, &mut lin),
            seamless_sample(false, c, 4 >> d, 1, &tm(d), &mut near),
            seamless_sample(true, c, 4, 1, &tm(0), &mut lin),
        ];
        for (k, want) in want.iter().enumerate() {
            for ch in 0..4 {
                let got = o[16 * i + 4 * k + ch];
                assert_eq!(
                    got,
                    want[ch].to_bits(),
                    "seamless lane {i} (s {s}, t {t}, face {face}, lod {lod}) sample {k} c{ch}: {} want {}",
                    f32::from_bits(got),
                    want[ch]
                );
            }
        }
    }
    assert_eq!((lin.edges.len(), lin.corners.len()), (24, 24));
    assert_eq!((near.edges.len(), near.corners.len()), (24, 24));
    std::fs::write(m, fx.manifest(false)).unwrap();
    // Lift-time refusals: `_o` on a cube, `_g16` on a 3-D image (llvm-mc-19 encodings).
    for (line, w, msg) in [
        (
            "image_sample_lz_o v[10:13], v[2:5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_CUBE",
            [0xf0dc0f18u32, 0x00820a02],
            "texel offsets (`_o`) on a cube image",
        ),
        (
            "image_sample_d_g16 v[10:13], v[2:8], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D",
            [0xf0880f11, 0x00820a02],
            "16-bit gradients (`_g16`) on a 3-D image",
        ),
    ] {
        write_code(
            &dir.join("k.bin"),
            &[(line, &w), ("s_endpgm", &[0xbf810000])],
        );
        refused(line, msg);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `rdna2spv disasm --raw` prints every 3-D and cube sampling encoding of this suite as llvm-mc-19
/// assembled it.
#[test]
fn cube3d_decoding_matches_llvm_mc() {
    let dir = scratch("disasm");
    for (line, w) in SAMPLE_3D_ASM
        .iter()
        .chain(SAMPLE_CUBE_ASM)
        .chain(GATHER_CUBE_ASM)
        .chain(MIP_VOL_ASM)
    {
        if !line.starts_with("image_") {
            continue;
        }
        let f = dir.join("w.bin");
        write_code(&f, &[(line, w)]);
        let out = ok(&rdna2spv(&["disasm", "--raw", f.to_str().unwrap()]), line);
        let printed = out.lines().next().unwrap().split("//").next().unwrap();
        let norm = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(norm(printed), norm(line), "{w:08x?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding. Per lane: (s, t, face, lod) from s[0:1] + 16·lane; four
/// cube gathers (T# s[8:15] two cubes of one level, s[40:47] one cube of three levels); 16 dwords to
/// s[2:3] + 64·lane.
const GATHER_CUBE_ASM: &[(&str, &[u32])] = &[
    ("s_lshl_b32 s7, s6, 5", &[0x8f078506]),
    ("v_add_nc_u32_e32 v0, s7, v0", &[0x4a000007]),
    ("v_lshlrev_b32_e32 v1, 4, v0", &[0x34020084]),
    (
        "global_load_dwordx4 v[2:5], v1, s[0:1]",
        &[0xdc388000, 0x02000001],
    ),
    ("v_lshlrev_b32_e32 v56, 6, v0", &[0x34700086]),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "image_gather4_lz v[20:23], v[2:4], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_CUBE",
        &[0xf11c0118, 0x00821402],
    ),
    (
        "image_gather4_lz v[24:27], v[2:4], s[8:15], s[20:23] dmask:0x8 dim:SQ_RSRC_IMG_CUBE",
        &[0xf11c0818, 0x00a21802],
    ),
    (
        "image_gather4_l v[28:31], v[2:5], s[40:47], s[24:27] dmask:0x2 dim:SQ_RSRC_IMG_CUBE",
        &[0xf1100218, 0x00ca1c02],
    ),
    (
        "image_gather4_lz v[32:35], v[2:4], s[40:47], s[28:31] dmask:0x4 dim:SQ_RSRC_IMG_CUBE",
        &[0xf11c0418, 0x00ea2002],
    ),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "global_store_dwordx4 v56, v[20:23], s[2:3]",
        &[0xdc788000, 0x00021438],
    ),
    (
        "global_store_dwordx4 v56, v[24:27], s[2:3] offset:16",
        &[0xdc788010, 0x00021838],
    ),
    (
        "global_store_dwordx4 v56, v[28:31], s[2:3] offset:32",
        &[0xdc788020, 0x00021c38],
    ),
    (
        "global_store_dwordx4 v56, v[32:35], s[2:3] offset:48",
        &[0xdc788030, 0x00022038],
    ),
    ("s_endpgm", &[0xbf810000]),
];

/// One cube gather per D190 on D196's face: the bilinear footprint of `u = s − 1`, `v = t − 1` on faces of
/// `n` texels, indices clamped to the face, component `c` of (i0, j1), (i1, j1), (i1, j0), (i0, j0).
fn cube_gather(
    c: [f32; 3],
    n: i32,
    cubes: i32,
    comp: usize,
    texel: &dyn Fn(i32, i32, i32) -> [f32; 4],
) -> [f32; 4] {
    let q = if c[2].is_nan() {
        0
    } else {
        c[2].clamp(-16_777_216.0, 16_777_216.0).round_ties_even() as i32
    };
    let slice = 6 * (q >> 3).clamp(0, cubes - 1) + (q & 7);
    let (i, _) = axis(c[0] - 1.0, n, true, 0);
    let (j, _) = axis(c[1] - 1.0, n, true, 0);
    let cl = |k: i32| k.clamp(0, n - 1);
    let t = |di: i32, dj: i32| texel(slice, cl(i + di), cl(j + dj))[comp];
    [t(0, 1), t(1, 1), t(1, 0), t(0, 0)]
}

/// Cube gathers (D196 on D190): `image_gather4_lz` and `_l` on faces given directly (the inputs of
/// `sample_cube_forms`), components x, w, y, z, non-seamless, then seamless against D198's reference
/// (every edge and corner of every face); `_o` on a cube refused by name.
// coverage: gather_cube_forms: IMAGE_GATHER4_LZ IMAGE_GATHER4_L
#[test]
fn gather_cube_forms() {
    let fx = CubeForms::new("cubegather", GATHER_CUBE_ASM, 0x9a7_0196);
    let (inputs, dir, m) = (&fx.inputs, &fx.dir, &fx.m);
    let o = fx.run();
    let t2 = |slice: i32, x: i32, y: i32| fx.two(slice, x, y);
    let fxr = &fx;
    let tm = |d: usize| move |slice: i32, x: i32, y: i32| fxr.mip(d, slice, x, y);
    for (i, &[s, t, face, lod]) in inputs.iter().enumerate() {
        let c = [s, t, face];
        let d = level_of_lod(lod, 2);
        let want = [
            cube_gather(c, 4, 2, 0, &t2),
            cube_gather(c, 4, 2, 3, &t2),
            cube_gather(c, 4 >> d, 1, 1, &tm(d)),
            cube_gather(c, 4, 1, 2, &tm(0)),
        ];
        for (k, w) in want.iter().enumerate() {
            for ch in 0..4 {
                let got = o[16 * i + 4 * k + ch];
                assert_eq!(
                    got,
                    w[ch].to_bits(),
                    "lane {i} (s {s}, t {t}, face {face}, lod {lod}) gather {k} texel {ch}: {} want {}",
                    f32::from_bits(got),
                    w[ch]
                );
            }
        }
    }
    // Seamless filtering (D198): the same gathers against the seamless reference.
    std::fs::write(m, fx.manifest(true)).unwrap();
    let o = fx.run();
    let mut seen = Seen::default();
    for (i, &[s, t, face, lod]) in inputs.iter().enumerate() {
        let c = [s, t, face];
        let d = level_of_lod(lod, 2);
        let want = [
            seamless_gather(c, 4, 2, 0, &t2, &mut seen),
            seamless_gather(c, 4, 2, 3, &t2, &mut seen),
            seamless_gather(c, 4 >> d, 1, 1, &tm(d), &mut seen),
            seamless_gather(c, 4, 1, 2, &tm(0), &mut seen),
        ];
        for (k, w) in want.iter().enumerate() {
            for ch in 0..4 {
                let got = o[16 * i + 4 * k + ch];
                assert_eq!(
                    got,
                    w[ch].to_bits(),
                    "seamless lane {i} (s {s}, t {t}, face {face}, lod {lod}) gather {k} texel {ch}: {} want {}",
                    f32::from_bits(got),
                    w[ch]
                );
            }
        }
    }
    assert_eq!((seen.edges.len(), seen.corners.len()), (24, 24));
    let refused = |what: &str, msg: &str| fx.refused(what, msg);
    let line =
        "image_gather4_lz_o v[10:13], v[2:5], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_CUBE";
    write_code(
        &dir.join("k.bin"),
        &[
            (line, &[0xf15c0118, 0x00820a02]),
            ("s_endpgm", &[0xbf810000]),
        ],
    );
    refused(line, "texel offsets (`_o`) on a cube image");
    std::fs::remove_dir_all(dir).unwrap();
}

/// llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding. Per lane: (u, v, w, lod) and (s, t, face, lod)
/// from s[0:1] + 32·lane; two 3-D samples (T# s[8:15]) and two cube samples (T# s[40:47]) through
/// linear-mip samplers; 16 dwords to s[2:3] + 64·lane.
const MIP_VOL_ASM: &[(&str, &[u32])] = &[
    ("s_lshl_b32 s7, s6, 5", &[0x8f078506]),
    ("v_add_nc_u32_e32 v0, s7, v0", &[0x4a000007]),
    ("v_lshlrev_b32_e32 v1, 5, v0", &[0x34020085]),
    (
        "global_load_dwordx4 v[2:5], v1, s[0:1]",
        &[0xdc388000, 0x02000001],
    ),
    (
        "global_load_dwordx4 v[6:9], v1, s[0:1] offset:16",
        &[0xdc388010, 0x06000001],
    ),
    ("v_lshlrev_b32_e32 v56, 6, v0", &[0x34700086]),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "image_sample_l v[20:23], v[2:5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_3D",
        &[0xf0900f10, 0x00821402],
    ),
    (
        "image_sample_l v[24:27], v[2:5], s[8:15], s[20:23] dmask:0xf dim:SQ_RSRC_IMG_3D",
        &[0xf0900f10, 0x00a21802],
    ),
    (
        "image_sample_l v[28:31], v[6:9], s[40:47], s[24:27] dmask:0xf dim:SQ_RSRC_IMG_CUBE",
        &[0xf0900f18, 0x00ca1c06],
    ),
    (
        "image_sample_l v[32:35], v[6:9], s[40:47], s[28:31] dmask:0xf dim:SQ_RSRC_IMG_CUBE",
        &[0xf0900f18, 0x00ea2006],
    ),
    ("s_waitcnt vmcnt(0)", &[0xbf8c3f70]),
    (
        "global_store_dwordx4 v56, v[20:23], s[2:3]",
        &[0xdc788000, 0x00021438],
    ),
    (
        "global_store_dwordx4 v56, v[24:27], s[2:3] offset:16",
        &[0xdc788010, 0x00021838],
    ),
    (
        "global_store_dwordx4 v56, v[28:31], s[2:3] offset:32",
        &[0xdc788020, 0x00021c38],
    ),
    (
        "global_store_dwordx4 v56, v[32:35], s[2:3] offset:48",
        &[0xdc788030, 0x00022038],
    ),
    ("s_endpgm", &[0xbf810000]),
];

/// D195's levels for a linear mip filter with MIN_LOD 0, MAX_LOD 15, no bias, levels 0..=`last`:
/// `L = floor(RN(lod·256))` (NaN → 0) clamped to [0, 3840], the first level `min(L >> 8, last)`, the
/// second level's weight `L & 255`, and whether the two blend (`L & 255 ≠ 0` and `L >> 8 < last`).
fn linear_mip(lod: f32, last: usize) -> (usize, u32, bool) {
    let l = ref_floor(lod * 256.0).0.clamp(0, 3840);
    let d = (l >> 8) as usize;
    let f = (l & 255) as u32;
    (d.min(last), f, f != 0 && d < last)
}

/// D195's blend of two levels' results, per component: `RN(RN(r0·(256 − f)/256) + RN(r1·f/256))`; the
/// first level alone when they do not blend (the Vulkan spec's `(1 − δ)·τ[d] + δ·τ[d + 1]`).
fn mip_blend(r0: [f32; 4], r1: Option<[f32; 4]>, f: u32) -> [f32; 4] {
    match r1 {
        Some(r1) => std::array::from_fn(|c| lerp(r0[c], r1[c], f)),
        None => r0,
    }
}

/// Linear mip filtering (D195) on 3-D and cube images (D196), hand-assembled `image_sample_l`: a 4×4×4
/// rgba8 3-D image of three levels (4, 2, 1) through a trilinear and a nearest sampler, and a one-cube
/// rgba8 image of three levels (faces 4, 2, 1; non-seamless) through a bilinear and a nearest sampler,
/// every sampler `mipmap_mode = "linear"`; 256 lanes whose LODs are every level exactly, 1/256 either
/// side of levels 1 and 2 and of 0, past the last level, negative, NaN, ±inf and random fractions.
// coverage: sample_mip_vol: IMAGE_SAMPLE_L
#[test]
fn sample_mip_vol() {
    let dir = scratch("mipvol");
    write_code(&dir.join("k.bin"), MIP_VOL_ASM);
    let mut g = Lcg(0x3d_0195);
    let ext3 = [[4i32, 4, 4], [2, 2, 2], [1, 1, 1]];
    let base3 = [0usize, 64, 72];
    let vol: Vec<u8> = (0..4 * 73).map(|_| (g.next() >> 8) as u8).collect();
    let cube: Vec<u8> = (0..4 * 6 * (16 + 4 + 1))
        .map(|_| (g.next() >> 8) as u8)
        .collect();
    std::fs::write(dir.join("vol.bin"), &vol).unwrap();
    std::fs::write(dir.join("cube.bin"), &cube).unwrap();
    let n = 256usize;
    let q = 1.0 / 256.0;
    let lods = [
        0.0,
        1.0,
        2.0,
        1.0 - q,
        1.0 + q,
        2.0 - q,
        2.0 + q,
        q,
        -q,
        -1.0,
        2.5,
        3.0,
        7.75,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    let mut inputs: Vec<[f32; 8]> = Vec::new();
    for i in 0..n {
        let lod = |g: &mut Lcg| {
            if i % 2 == 0 {
                lods[(i / 2) % lods.len()]
            } else {
                (g.next() % 640) as f32 / 256.0 - 0.25
            }
        };
        let r = |g: &mut Lcg, lo: f32, span: u32| lo + (g.next() % span) as f32 / 1000.0;
        let (u, v, w) = (
            r(&mut g, -0.5, 2000),
            r(&mut g, -0.5, 2000),
            r(&mut g, -0.5, 2000),
        );
        let l3 = lod(&mut g);
        let (s, t) = (r(&mut g, 1.0, 1001), r(&mut g, 1.0, 1001));
        let face = (g.next() % 6) as f32;
        let lc = lod(&mut g);
        inputs.push([u, v, w, l3, s, t, face, lc]);
    }
    let bytes: Vec<u8> = inputs
        .iter()
        .flat_map(|w| w.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    std::fs::write(dir.join("in.bin"), bytes).unwrap();
    let manifest = lanes_manifest(
        n,
        n * 64,
        r#"    { reg = 8, tsharp = "vol" },
    { reg = 40, tsharp = "cube" },
    { reg = 16, ssharp = { filter = "linear", mipmap_mode = "linear", address = ["repeat", "clamp_to_edge", "mirrored_repeat"], min_lod = 0.0, max_lod = 15.0 } },
    { reg = 20, ssharp = { filter = "nearest", mipmap_mode = "linear", address = ["mirrored_repeat", "repeat", "clamp_to_edge"], min_lod = 0.0, max_lod = 15.0 } },
    { reg = 24, ssharp = { seamless = false, filter = "linear", mipmap_mode = "linear", min_lod = 0.0, max_lod = 15.0 } },
    { reg = 28, ssharp = { seamless = false, filter = "nearest", mipmap_mode = "linear", min_lod = 0.0, max_lod = 15.0 } },
"#,
        r#"[[images]]
name = "vol"
format = "rgba8_unorm"
dim = "3d"
extent = [4, 4, 4]
levels = 3
file = "vol.bin"
[[images]]
name = "cube"
format = "rgba8_unorm"
dim = "cube"
extent = [4, 4, 1]
levels = 3
layers = 6
file = "cube.bin"
"#,
    );
    let m = dir.join("k.toml");
    std::fs::write(&m, &manifest).unwrap();
    let out = dir.join("out");
    run_both(&m, &out);
    let o = words(&read(&out.join("o.bin")));
    let vol_texel = |d: usize| {
        let vol = &vol;
        move |x: i32, y: i32, z: i32| -> [f32; 4] {
            let [w, h, _] = ext3[d];
            let t = base3[d] + ((z * h + y) * w + x) as usize;
            std::array::from_fn(|c| vol[4 * t + c] as f32 / 255.0)
        }
    };
    let cube_texel = |d: usize| {
        let cube = &cube;
        move |slice: i32, x: i32, y: i32| -> [f32; 4] {
            let e = 4 >> d;
            let k = [0usize, 96, 120][d] + ((slice * e + y) * e + x) as usize;
            std::array::from_fn(|c| cube[4 * k + c] as f32 / 255.0)
        }
    };
    let tb = [0.0; 4];
    let s3 = [
        Sampler3 {
            linear: true,
            addr: [0, 2, 1],
            border: tb,
        },
        Sampler3 {
            linear: false,
            addr: [1, 0, 2],
            border: tb,
        },
    ];
    let (mut blends, mut on_level, mut past) = (0, 0, 0);
    for (i, x) in inputs.iter().enumerate() {
        let c3 = [x[0], x[1], x[2]];
        let cc = [x[4], x[5], x[6]];
        let mut want = Vec::new();
        let (d, f, blend) = linear_mip(x[3], 2);
        for sm in &s3 {
            let r0 = sample3(sm, c3, [0; 3], ext3[d], &vol_texel(d));
            let r1 = blend.then(|| sample3(sm, c3, [0; 3], ext3[d + 1], &vol_texel(d + 1)));
            want.push(mip_blend(r0, r1, f));
        }
        blends += blend as usize;
        let (dc, fc, blend_c) = linear_mip(x[7], 2);
        for linear in [true, false] {
            let r0 = cube_sample(linear, cc, 4 >> dc, 1, &cube_texel(dc)).0;
            let r1 =
                blend_c.then(|| cube_sample(linear, cc, 4 >> (dc + 1), 1, &cube_texel(dc + 1)).0);
            want.push(mip_blend(r0, r1, fc));
        }
        blends += blend_c as usize;
        on_level += (f == 0) as usize + (fc == 0) as usize;
        past += (!blend && f != 0) as usize + (!blend_c && fc != 0) as usize;
        for (k, wk) in want.iter().enumerate() {
            for ch in 0..4 {
                let got = o[16 * i + 4 * k + ch];
                assert_eq!(
                    got,
                    wk[ch].to_bits(),
                    "lane {i} (inputs {x:?}) sample {k} c{ch}: {} want {}",
                    f32::from_bits(got),
                    wk[ch]
                );
            }
        }
    }
    // Both kinds of lanes: blending, on a level, and a fraction at or past the last level.
    assert!(blends > n / 2, "{blends}");
    assert!(on_level > n / 8, "{on_level}");
    assert!(past > n / 16, "{past}");
    // D195's refusal on 3-D images: the volume as rgba8_uint through nearest samplers runs with every
    // 3-D LOD on a level (1.0) and is refused by name when one lane blends (1.5).
    let uint = manifest
        .replace(
            "format = \"rgba8_unorm\"\ndim = \"3d\"",
            "format = \"rgba8_uint\"\ndim = \"3d\"",
        )
        .replace(
            "filter = \"linear\", mipmap_mode = \"linear\", address",
            "filter = \"nearest\", mipmap_mode = \"linear\", address",
        );
    assert_ne!(uint, manifest);
    std::fs::write(&m, &uint).unwrap();
    let host = |lod5: f32| {
        let mut inp = inputs.clone();
        for x in inp.iter_mut() {
            x[3] = 1.0;
        }
        inp[5][3] = lod5;
        let bytes: Vec<u8> = inp
            .iter()
            .flat_map(|w| w.iter().flat_map(|x| x.to_le_bytes()))
            .collect();
        std::fs::write(dir.join("in.bin"), bytes).unwrap();
        rdna2spv(&[
            "run".as_ref(),
            m.as_os_str(),
            "--backend".as_ref(),
            "host".as_ref(),
            "--out".as_ref(),
            dir.join("out-uint").as_os_str(),
        ])
    };
    ok(&host(1.0), "rgba8_uint 3-D at LOD 1.0");
    let o = host(1.5);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("linear mip filtering of a UINT/SINT format"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
