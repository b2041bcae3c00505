//! Texel gathering (issue 27, decision D190): `image_gather4_lz`, `_lz_o`, `_l`, `_l_o`, `_c_lz`, `_c_lz_o`,
//! `_c_l`, `_c_l_o` on 2-D and 2-D array images, run with `rdna2spv run --backend both` (the host evaluator
//! and lavapipe agree bit for bit, or the run fails), every output compared with a reference written here
//! from D190's text (the bilinear footprint of D187, the ISA's texel order (i0, j1), (i1, j1), (i1, j0),
//! (i0, j0), the packed 6-bit offsets, the S#'s compare function), sharing no code with crates/ir or
//! crates/eval. `fixtures/images/gather.comp` is captured by ACO (wave32 and wave64); the compare forms and
//! 2-D arrays run from llvm-mc-19 encodings (capture has no compare setting for a sampler, and samples 2-D
//! images only).
//!
//! Needs mesa-vulkan-drivers (RADV, lavapipe), glslang-tools and llvm-19, as CI installs them.

/// The suite's name: scratch folders and the executed-encoding log's test names (D159).
const SUITE: &str = "images_gather";

#[path = "support/images.rs"]
mod support;
use support::*;

// ---------------------------------------------------------------------------------------------------------
// The reference, written from D190 (and D187's footprint, which D190 cites).

/// A sampler as D190 reads it: address modes (0 wrap, 1 mirror, 2 clamp to the last texel, 3 mirror once,
/// 6 border), border colour type (0 transparent black, 1 opaque black, 2 opaque white), mip filter (0
/// none, 1 point), LOD clamp and bias in 1/256, compare function (0..=7, Vulkan's order).
#[derive(Clone, Copy)]
struct RefSampler {
    addr: [u32; 2],
    border: u32,
    mip: u32,
    min_lod: i32,
    max_lod: i32,
    bias: i32,
    compare: u32,
    /// Unnormalized coordinates (the instruction's `unorm` bit or the S#'s FORCE_UNNORMALIZED).
    unnorm: bool,
}

/// `reference OP t` for the compare function `k`, IEEE comparisons (a NaN fails all but 5 and 7).
fn ref_compare(k: u32, reference: f32, t: f32) -> f32 {
    let pass = match k {
        0 => false,
        1 => reference < t,
        2 => reference == t,
        3 => reference <= t,
        4 => reference > t,
        5 => reference != t,
        6 => reference >= t,
        _ => true,
    };
    if pass {
        1.0
    } else {
        0.0
    }
}

/// One gather: the four results' bits in the ISA's order (i0, j1), (i1, j1), (i1, j0), (i0, j0).
/// `texel(level, x, y)` gives a texel's four components; `offset` the integer texel offsets;
/// `reference` the compare value for `_c` forms.
#[allow(clippy::too_many_arguments)]
fn ref_gather(
    s: &RefSampler,
    u: f32,
    v: f32,
    lod: f32,
    offset: (i32, i32),
    comp: usize,
    reference: Option<f32>,
    extents: &[(i32, i32)],
    texel: &dyn Fn(usize, i32, i32) -> [f32; 4],
) -> [u32; 4] {
    let l = (ref_floor(lod * 256.0).0 + s.bias)
        .max(s.min_lod)
        .min(s.max_lod);
    let d = if s.mip == 0 {
        0
    } else {
        ((l + 128) >> 8) as usize
    }
    .min(extents.len() - 1);
    let (w, h) = extents[d];
    let axis = |c: f32, n: i32, mode: u32, o: i32| {
        let sc = if s.unnorm { c } else { c * n as f32 };
        let i = ref_floor(sc - 0.5).0 + o;
        [ref_address(i, n, mode), ref_address(i + 1, n, mode)]
    };
    let xs = axis(u, w, s.addr[0], offset.0);
    let ys = axis(v, h, s.addr[1], offset.1);
    let border = match s.border {
        0 => [0.0f32, 0.0, 0.0, 0.0],
        1 => [0.0, 0.0, 0.0, 1.0],
        _ => [1.0, 1.0, 1.0, 1.0],
    };
    let get = |(x, ix): (i32, bool), (y, iy): (i32, bool)| -> u32 {
        let t = if ix && iy {
            texel(d, x, y)[comp]
        } else {
            border[comp]
        };
        match reference {
            Some(r) => ref_compare(s.compare, r, t).to_bits(),
            None => t.to_bits(),
        }
    };
    [
        get(xs[0], ys[1]),
        get(xs[1], ys[1]),
        get(xs[1], ys[0]),
        get(xs[0], ys[0]),
    ]
}

/// The reference's own checks: the footprint and order on a 4×4 image with hand-worked answers.
#[test]
fn reference_self_check() {
    // Texel (x, y) holds x + 10·y in every component.
    let t = |_l: usize, x: i32, y: i32| [(x + 10 * y) as f32; 4];
    let s = RefSampler {
        addr: [2, 2],
        border: 0,
        mip: 0,
        min_lod: 0,
        max_lod: 0,
        bias: 0,
        compare: 0,
        unnorm: false,
    };
    let g = |u: f32, v: f32, o: (i32, i32), s: &RefSampler| {
        ref_gather(s, u, v, 0.0, o, 0, None, &[(4, 4)], &t).map(f32::from_bits)
    };
    // u = v = 0.5: s' = 1.5, i0 = j0 = 1: (1, 2), (2, 2), (2, 1), (1, 1).
    assert_eq!(g(0.5, 0.5, (0, 0), &s), [21.0, 22.0, 12.0, 11.0]);
    // Exactly on a texel centre (u·4 − ½ = 1): i0 = 1, i1 = 2.
    assert_eq!(g(0.375, 0.125, (0, 0), &s), [11.0, 12.0, 2.0, 1.0]);
    // Offsets (−2, 1) from there, clamped: x −1, 0 → 0, 0; y 1, 2.
    assert_eq!(g(0.375, 0.125, (-2, 1), &s), [20.0, 20.0, 10.0, 10.0]);
    // Wrap in x at the left edge: i0 = −1 → 3.
    let wrap = RefSampler { addr: [0, 2], ..s };
    assert_eq!(g(0.0, 0.125, (0, 0), &wrap), [13.0, 10.0, 0.0, 3.0]);
    // Border, opaque white, at the top-left corner: only (0, 0) is inside.
    let b = RefSampler {
        addr: [6, 6],
        border: 2,
        ..s
    };
    assert_eq!(g(0.0, 0.0, (0, 0), &b), [1.0, 0.0, 1.0, 1.0]);
    // Compare: less (ref < t) with ref 11.5 against 11, 12, 21, 22.
    let c = RefSampler { compare: 1, ..s };
    let r = ref_gather(&c, 0.5, 0.5, 0.0, (0, 0), 0, Some(11.5), &[(4, 4)], &t);
    assert_eq!(r.map(f32::from_bits), [1.0, 1.0, 1.0, 0.0]);
    assert!(ref_compare(5, f32::NAN, 1.0) == 1.0 && ref_compare(3, f32::NAN, f32::NAN) == 0.0);
}

// ---------------------------------------------------------------------------------------------------------
// Hand-assembled: every modelled form, 2-D and 2-D array, compare functions from a per-workgroup S# table.

/// llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding of each line. Per lane: inputs (u, v, slice, lod,
/// offsets, ref) from s[0:1] + 32·lane; twelve gathers; 48 dwords to s[2:3] + 192·lane. The compare S#
/// comes from the table at s[4:5], entry `workgroup & 7`.
const GATHER_ASM: &[(&str, &[u32])] = &[
    (
        "s_lshl_b32 s7, s6, 5",
        &[0x8f078506],
    ),
    (
        "v_add_nc_u32_e32 v0, s7, v0",
        &[0x4a000007],
    ),
    (
        "v_lshlrev_b32_e32 v1, 5, v0",
        &[0x34020085],
    ),
    (
        "global_load_dwordx4 v[2:5], v1, s[0:1]",
        &[0xdc388000, 0x02000001],
    ),
    (
        "global_load_dwordx4 v[6:9], v1, s[0:1] offset:16",
        &[0xdc388010, 0x06000001],
    ),
    (
        "v_mul_u32_u24_e32 v60, 0xc0, v0",
        &[0x167800ff, 0x000000c0],
    ),
    (
        "s_and_b32 s64, s6, 7",
        &[0x87408706],
    ),
    (
        "s_lshl_b32 s64, s64, 4",
        &[0x8f408440],
    ),
    (
        "s_load_dwordx4 s[36:39], s[4:5], s64",
        &[0xf4080902, 0x80000000],
    ),
    (
        "s_waitcnt vmcnt(0) lgkmcnt(0)",
        &[0xbf8c0070],
    ),
    (
        "image_gather4_lz v[10:13], v[2:3], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf11c0108, 0x00820a02],
    ),
    (
        "image_gather4_lz v[14:17], v[2:3], s[8:15], s[20:23] dmask:0x2 dim:SQ_RSRC_IMG_2D",
        &[0xf11c0208, 0x00a20e02],
    ),
    (
        "image_gather4_lz_o v[18:21], [v6, v2, v3], s[8:15], s[24:27] dmask:0x4 dim:SQ_RSRC_IMG_2D",
        &[0xf15c040a, 0x00c21206, 0x00000302],
    ),
    (
        "image_gather4_l v[22:25], [v2, v3, v5], s[8:15], s[28:31] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf110010a, 0x00e21602, 0x00000503],
    ),
    (
        "image_gather4_l_o v[26:29], [v6, v2, v3, v5], s[8:15], s[32:35] dmask:0x8 dim:SQ_RSRC_IMG_2D",
        &[0xf150080a, 0x01021a06, 0x00050302],
    ),
    (
        "image_gather4_c_lz v[30:33], [v7, v2, v3], s[40:47], s[36:39] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf13c010a, 0x012a1e07, 0x00000302],
    ),
    (
        "image_gather4_c_lz_o v[34:37], [v6, v7, v2, v3], s[40:47], s[36:39] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf17c010a, 0x012a2206, 0x00030207],
    ),
    (
        "image_gather4_c_l v[38:41], [v7, v2, v3, v5], s[40:47], s[36:39] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf130010a, 0x012a2607, 0x00050302],
    ),
    (
        "image_gather4_c_l_o v[42:45], [v6, v7, v2, v3, v5], s[40:47], s[36:39] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf170010a, 0x012a2a06, 0x05030207],
    ),
    (
        "image_gather4_lz v[46:49], v[2:4], s[48:55], s[20:23] dmask:0x2 dim:SQ_RSRC_IMG_2D_ARRAY",
        &[0xf11c0228, 0x00ac2e02],
    ),
    (
        "image_gather4_c_l_o v[50:53], [v6, v7, v2, v3, v4, v5], s[56:63], s[36:39] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY",
        &[0xf170012c, 0x012e3206, 0x04030207, 0x00000005],
    ),
    (
        "image_gather4_lz v[54:57], v[2:3], s[8:15], s[16:19] dmask:0x4 dim:SQ_RSRC_IMG_2D unorm",
        &[0xf11c1408, 0x00823602],
    ),
    (
        "s_waitcnt vmcnt(0)",
        &[0xbf8c3f70],
    ),
    (
        "global_store_dwordx4 v60, v[10:13], s[2:3]",
        &[0xdc788000, 0x00020a3c],
    ),
    (
        "global_store_dwordx4 v60, v[14:17], s[2:3] offset:16",
        &[0xdc788010, 0x00020e3c],
    ),
    (
        "global_store_dwordx4 v60, v[18:21], s[2:3] offset:32",
        &[0xdc788020, 0x0002123c],
    ),
    (
        "global_store_dwordx4 v60, v[22:25], s[2:3] offset:48",
        &[0xdc788030, 0x0002163c],
    ),
    (
        "global_store_dwordx4 v60, v[26:29], s[2:3] offset:64",
        &[0xdc788040, 0x00021a3c],
    ),
    (
        "global_store_dwordx4 v60, v[30:33], s[2:3] offset:80",
        &[0xdc788050, 0x00021e3c],
    ),
    (
        "global_store_dwordx4 v60, v[34:37], s[2:3] offset:96",
        &[0xdc788060, 0x0002223c],
    ),
    (
        "global_store_dwordx4 v60, v[38:41], s[2:3] offset:112",
        &[0xdc788070, 0x0002263c],
    ),
    (
        "global_store_dwordx4 v60, v[42:45], s[2:3] offset:128",
        &[0xdc788080, 0x00022a3c],
    ),
    (
        "global_store_dwordx4 v60, v[46:49], s[2:3] offset:144",
        &[0xdc788090, 0x00022e3c],
    ),
    (
        "global_store_dwordx4 v60, v[50:53], s[2:3] offset:160",
        &[0xdc7880a0, 0x0002323c],
    ),
    (
        "global_store_dwordx4 v60, v[54:57], s[2:3] offset:176",
        &[0xdc7880b0, 0x0002363c],
    ),
    (
        "s_endpgm",
        &[0xbf810000],
    ),
];

/// llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding; in `write_framed_code`'s frame. Per lane: (u, v, ref) from
/// s[0:1] + 16·lane; two compare gathers on the r16 unorm T# at s[8:15] through the S#s at s[16:19]
/// (less-or-equal) and s[20:23] (greater-or-equal); 8 dwords to s[2:3] + 32·lane.
const GATHER_UNORM_ASM: &[(&str, &[u32])] = &[
    (
        "image_gather4_c_lz v[10:13], [v4, v2, v3], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf13c010a, 0x00820a04, 0x00000302],
    ),
    (
        "image_gather4_c_lz v[14:17], [v4, v2, v3], s[8:15], s[20:23] dmask:0x1 dim:SQ_RSRC_IMG_2D",
        &[0xf13c010a, 0x00a20e04, 0x00000302],
    ),
];

/// The compare reference of a gather on a UNORM format is clamped to [0, 1] (NaN stays NaN), the rule
/// sampling has (D191 point 4; D194 makes it the one rule): an r16 unorm image whose texels include 0 and
/// 1, references outside [0, 1], at the ends and NaN, through less-or-equal and greater-or-equal.
// coverage: gather_compare_clamps_unorm_reference: IMAGE_GATHER4_C_LZ
#[test]
fn gather_compare_clamps_unorm_reference() {
    let dir = scratch("unorm");
    write_framed_code(&dir.join("k.bin"), GATHER_UNORM_ASM);
    let mut g = Lcg(0x5eed_0194);
    let (w, h) = (8i32, 4i32);
    let codes: Vec<u16> = (0..w * h)
        .map(|_| match g.next() % 4 {
            0 => 0,
            1 => 65535,
            _ => (g.next() >> 8) as u16,
        })
        .collect();
    std::fs::write(
        dir.join("un.bin"),
        codes
            .iter()
            .flat_map(|c| c.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let refs = [
        -1.0f32,
        -0.5,
        -0.0,
        0.0,
        1.0,
        1.5,
        2.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(1),
        32768.0 / 65535.0,
    ];
    let n = 128usize;
    let inputs: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            let u = (g.next() % 1000) as f32 / 600.0 - 0.3;
            let v = (g.next() % 1000) as f32 / 600.0 - 0.3;
            let r = if i % 4 == 3 {
                (g.next() % 65536) as f32 / 65535.0
            } else {
                refs[(g.next() % refs.len() as u32) as usize]
            };
            [u, v, r, 0.0]
        })
        .collect();
    write_lane_inputs(&dir.join("in.bin"), &inputs);
    let manifest = lanes_manifest(
        n,
        n * 32,
        r#"    { reg = 8, tsharp = "un" },
    { reg = 16, ssharp = { filter = "nearest", address = ["clamp_to_edge", "repeat"], compare = "less_or_equal" } },
    { reg = 20, ssharp = { filter = "nearest", address = ["mirrored_repeat", "clamp_to_edge"], compare = "greater_or_equal" } },
"#,
        &format!(
            r#"[[images]]
name = "un"
format = "r16_unorm"
dim = "2d"
extent = [{w}, {h}, 1]
file = "un.bin"
"#
        ),
    );
    let out = run_manifest(&dir, &manifest);
    let o = words(&read(&out.join("o.bin")));
    let texel = |_: usize, x: i32, y: i32| -> [f32; 4] {
        [codes[(y * w + x) as usize] as f32 / 65535.0, 0.0, 0.0, 1.0]
    };
    let sampler = |addr: [u32; 2], compare: u32| RefSampler {
        addr,
        border: 0,
        mip: 0,
        min_lod: 0,
        max_lod: 0,
        bias: 0,
        compare,
        unnorm: false,
    };
    let samplers = [sampler([2, 0], 3), sampler([1, 2], 6)];
    // The clamp, written from D191 point 4: [0, 1] (f32::clamp keeps NaN and −0).
    let clamp = |r: f32| r.clamp(0.0, 1.0);
    let mut decided = 0;
    for (i, inp) in inputs.iter().enumerate() {
        let [u, v, r, _] = *inp;
        for (k, s) in samplers.iter().enumerate() {
            let want = ref_gather(s, u, v, 0.0, (0, 0), 0, Some(clamp(r)), &[(w, h)], &texel);
            let unclamped = ref_gather(s, u, v, 0.0, (0, 0), 0, Some(r), &[(w, h)], &texel);
            decided += (want != unclamped) as usize;
            let got = &o[8 * i + 4 * k..8 * i + 4 * k + 4];
            assert_eq!(got, want, "lane {i} sampler {k} (u {u}, v {v}, ref {r})");
        }
    }
    // The clamp decides some results (else the test could not tell the rules apart).
    assert!(decided > 8, "the clamp decided {decided} results");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Bits of a random 8-bit-per-channel texel image.
fn bytes(g: &mut Lcg, n: usize) -> Vec<u8> {
    (0..n).map(|_| (g.next() >> 8) as u8).collect()
}

// coverage: gather_every_form_2d_and_array: IMAGE_GATHER4_LZ IMAGE_GATHER4_LZ_O IMAGE_GATHER4_L IMAGE_GATHER4_L_O IMAGE_GATHER4_C_LZ IMAGE_GATHER4_C_LZ_O IMAGE_GATHER4_C_L IMAGE_GATHER4_C_L_O
#[test]
fn gather_every_form_2d_and_array() {
    let dir = scratch("forms");
    write_code(&dir.join("k.bin"), GATHER_ASM);
    let mut g = Lcg(190);
    // rgba8 13×7, three levels (13×7, 6×3, 3×1): 91 + 18 + 3 texels.
    let tex_ext = [(13, 7), (6, 3), (3, 1)];
    let tex_base = [0usize, 91, 109];
    let tex = bytes(&mut g, 112 * 4);
    // rgba8 2-D array 5×4, three slices.
    let arr = bytes(&mut g, 5 * 4 * 3 * 4);
    // r32 float: 8×4 with two levels (8×4, 4×2), and a 5×4 array of three slices with two levels (5×4,
    // 2×2). Values from a small set so that comparisons meet equal values, signed zeros, NaN, infinities
    // and a denormal.
    let set = [
        0.0f32,
        -0.0,
        0.25,
        0.5,
        0.75,
        1.0,
        -1.0,
        2.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(1),
    ];
    let pick = |g: &mut Lcg| set[(g.next() % set.len() as u32) as usize];
    let depth: Vec<f32> = (0..32 + 8).map(|_| pick(&mut g)).collect();
    let darr: Vec<f32> = (0..60 + 12).map(|_| pick(&mut g)).collect();
    let fbytes = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    std::fs::write(dir.join("tex.bin"), &tex).unwrap();
    std::fs::write(dir.join("arr.bin"), &arr).unwrap();
    std::fs::write(dir.join("depth.bin"), fbytes(&depth)).unwrap();
    std::fs::write(dir.join("darr.bin"), fbytes(&darr)).unwrap();
    // The compare samplers, one per workgroup & 7: compare function k, bilinear filters, point mips, LOD
    // 0..15, address modes and border colours varied (S# words from D187/D190's field positions).
    let cmp_modes: [[u32; 2]; 8] = [
        [0, 2],
        [1, 6],
        [2, 0],
        [3, 1],
        [6, 3],
        [0, 6],
        [2, 2],
        [6, 0],
    ];
    let cmp_samplers: Vec<RefSampler> = (0..8u32)
        .map(|k| RefSampler {
            addr: cmp_modes[k as usize],
            border: k % 3,
            mip: 1,
            min_lod: 0,
            max_lod: 3840,
            bias: 0,
            compare: k,
            unnorm: false,
        })
        .collect();
    let table: Vec<u8> = cmp_samplers
        .iter()
        .flat_map(|s| {
            [
                s.addr[0] | s.addr[1] << 3 | s.compare << 12,
                (s.max_lod as u32) << 12,
                1 << 20 | 1 << 22 | 1 << 26,
                s.border << 30,
            ]
        })
        .flat_map(|w| w.to_le_bytes())
        .collect();
    std::fs::write(dir.join("samplers.bin"), table).unwrap();
    // Lanes: 16 workgroups of 32 (each compare function twice).
    let n = 512usize;
    let refs = |g: &mut Lcg| -> f32 {
        if g.next().is_multiple_of(4) {
            (g.next() % 1000) as f32 / 250.0 - 2.0
        } else {
            set[(g.next() % set.len() as u32) as usize]
        }
    };
    let mut inputs: Vec<[f32; 8]> = Vec::new();
    for i in 0..n {
        let coord = |g: &mut Lcg, k: usize| -> f32 {
            match (i + k) % 16 {
                0 => f32::NAN,
                1 => f32::INFINITY,
                2 => f32::NEG_INFINITY,
                // Texel centres and edges of 13-, 8- and 5-texel axes.
                3..=5 => (g.next() % 30) as f32 / 13.0 - 0.5,
                6..=8 => (g.next() % 24) as f32 / 16.0 - 0.25,
                9 => (g.next() % 20) as f32 / 10.0 - 0.5,
                _ => (g.next() % 5000) as f32 / 1000.0 - 2.0,
            }
        };
        let u = coord(&mut g, 0);
        let v = coord(&mut g, 7);
        let slice = match i % 8 {
            0 => (i / 8 % 12) as f32 * 0.5 - 1.5,
            1 if i < 64 => f32::NAN,
            _ => (g.next() % 600) as f32 / 100.0 - 1.5,
        };
        let lod = match i % 5 {
            0 => (g.next() % 16) as f32 * 0.25 - 0.5,
            1 if i < 40 => f32::NAN,
            _ => (g.next() % 500) as f32 / 100.0 - 1.0,
        };
        // Offsets: every 6-bit value over the lanes (u: i, v: 63 − 7i), the slice field left 0.
        let ou = (i % 64) as u32;
        let ov = (63 - (7 * i) % 64) as u32;
        let offs = f32::from_bits(ou | ov << 8);
        let r = refs(&mut g);
        inputs.push([u, v, slice, lod, offs, r, 0.0, 0.0]);
    }
    let inb: Vec<u8> = inputs
        .iter()
        .flat_map(|t| t.iter().flat_map(|x| x.to_bits().to_le_bytes()))
        .collect();
    std::fs::write(dir.join("in.bin"), inb).unwrap();
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
    {{ reg = 4, address = "samplers" }},
    {{ reg = 6, workgroup_id = 0 }},
    {{ reg = 8, tsharp = "tex" }},
    {{ reg = 16, ssharp = {{ filter = "nearest", address = ["repeat", "clamp_to_edge"] }} }},
    {{ reg = 20, ssharp = {{ filter = "linear", address = ["mirrored_repeat", "mirror_clamp_to_edge"] }} }},
    {{ reg = 24, ssharp = {{ filter = "linear", address = ["clamp_to_border", "clamp_to_border"], border = "opaque_white" }} }},
    {{ reg = 28, ssharp = {{ filter = "nearest", address = ["clamp_to_edge", "repeat"], lod_bias = 0.25 }} }},
    {{ reg = 32, ssharp = {{ filter = "linear", address = ["clamp_to_border", "mirrored_repeat"], border = "opaque_black", max_lod = 1.5 }} }},
    {{ reg = 40, tsharp = "depth" }},
    {{ reg = 48, tsharp = "arr" }},
    {{ reg = 56, tsharp = "darr" }},
]
[[buffers]]
name = "in"
file = "in.bin"
[[buffers]]
name = "samplers"
file = "samplers.bin"
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
name = "arr"
format = "rgba8_unorm"
dim = "2d_array"
extent = [5, 4, 1]
layers = 3
file = "arr.bin"
[[images]]
name = "depth"
format = "r32_float"
dim = "2d"
extent = [8, 4, 1]
levels = 2
file = "depth.bin"
[[images]]
name = "darr"
format = "r32_float"
dim = "2d_array"
extent = [5, 4, 1]
levels = 2
layers = 3
file = "darr.bin"
"#,
        n * 192
    );
    let out = run_manifest(&dir, &manifest);
    let o = words(&read(&out.join("o.bin")));
    // Texel readers per image (D183's layout: levels one after another, slices within a level).
    let tex_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
        let k = tex_base[l] + (y * tex_ext[l].0 + x) as usize;
        std::array::from_fn(|c| tex[4 * k + c] as f32 / 255.0)
    };
    let depth_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
        let k = [0usize, 32][l] + (y * [8, 4][l] + x) as usize;
        [depth[k], 0.0, 0.0, 1.0]
    };
    let fixed = [
        // (sampler, component, lod form, offsets)
        RefSampler {
            addr: [0, 2],
            border: 0,
            mip: 1,
            min_lod: 0,
            max_lod: 3840,
            bias: 0,
            compare: 0,
            unnorm: false,
        },
        RefSampler {
            addr: [1, 3],
            border: 0,
            mip: 1,
            min_lod: 0,
            max_lod: 3840,
            bias: 0,
            compare: 0,
            unnorm: false,
        },
        RefSampler {
            addr: [6, 6],
            border: 2,
            mip: 1,
            min_lod: 0,
            max_lod: 3840,
            bias: 0,
            compare: 0,
            unnorm: false,
        },
        RefSampler {
            addr: [2, 0],
            border: 0,
            mip: 1,
            min_lod: 0,
            max_lod: 3840,
            bias: 64,
            compare: 0,
            unnorm: false,
        },
        RefSampler {
            addr: [6, 1],
            border: 1,
            mip: 1,
            min_lod: 0,
            max_lod: 384,
            bias: 0,
            compare: 0,
            unnorm: false,
        },
    ];
    let sext6 = |x: u32| ((x as i32) << 26) >> 26;
    let mut not_all_equal = 0;
    let mut compare_ones = [0usize; 8];
    for (i, inp) in inputs.iter().enumerate() {
        let [u, v, slice, lod, offs, r, _, _] = *inp;
        let ob = offs.to_bits();
        let off = (sext6(ob & 0x3f), sext6(ob >> 8 & 0x3f));
        let cs = &cmp_samplers[(i / 32) % 8];
        // (result slot, want, what)
        let mut checks: Vec<(usize, [u32; 4], String)> = vec![
            (
                0,
                ref_gather(&fixed[0], u, v, 0.0, (0, 0), 0, None, &tex_ext, &tex_t),
                "gather4_lz x".into(),
            ),
            (
                1,
                ref_gather(&fixed[1], u, v, 0.0, (0, 0), 1, None, &tex_ext, &tex_t),
                "gather4_lz y".into(),
            ),
            (
                2,
                ref_gather(&fixed[2], u, v, 0.0, off, 2, None, &tex_ext, &tex_t),
                "gather4_lz_o z".into(),
            ),
            (
                3,
                ref_gather(&fixed[3], u, v, lod, (0, 0), 0, None, &tex_ext, &tex_t),
                "gather4_l x".into(),
            ),
            (
                4,
                ref_gather(&fixed[4], u, v, lod, off, 3, None, &tex_ext, &tex_t),
                "gather4_l_o w".into(),
            ),
            (
                5,
                ref_gather(
                    cs,
                    u,
                    v,
                    0.0,
                    (0, 0),
                    0,
                    Some(r),
                    &[(8, 4), (4, 2)],
                    &depth_t,
                ),
                "gather4_c_lz".into(),
            ),
            (
                6,
                ref_gather(cs, u, v, 0.0, off, 0, Some(r), &[(8, 4), (4, 2)], &depth_t),
                "gather4_c_lz_o".into(),
            ),
            (
                7,
                ref_gather(
                    cs,
                    u,
                    v,
                    lod,
                    (0, 0),
                    0,
                    Some(r),
                    &[(8, 4), (4, 2)],
                    &depth_t,
                ),
                "gather4_c_l".into(),
            ),
            (
                8,
                ref_gather(cs, u, v, lod, off, 0, Some(r), &[(8, 4), (4, 2)], &depth_t),
                "gather4_c_l_o".into(),
            ),
        ];
        // 2-D arrays: the slice rounded to nearest even, clamped to 0..=2 (NaN → 0).
        let sl = if slice.is_nan() {
            0
        } else {
            (slice.clamp(-16_777_216.0, 16_777_216.0).round_ties_even() as i32).clamp(0, 2)
        };
        let arr_t = |_l: usize, x: i32, y: i32| -> [f32; 4] {
            let k = ((sl * 4 + y) * 5 + x) as usize;
            std::array::from_fn(|c| arr[4 * k + c] as f32 / 255.0)
        };
        let darr_t = |l: usize, x: i32, y: i32| -> [f32; 4] {
            let (w, h) = [(5, 4), (2, 2)][l];
            let k = [0usize, 60][l] + ((sl * h + y) * w + x) as usize;
            [darr[k], 0.0, 0.0, 1.0]
        };
        checks.push((
            9,
            ref_gather(&fixed[1], u, v, 0.0, (0, 0), 1, None, &[(5, 4)], &arr_t),
            "array gather4_lz y".into(),
        ));
        let un = RefSampler {
            unnorm: true,
            ..fixed[0]
        };
        checks.push((
            11,
            ref_gather(&un, u, v, 0.0, (0, 0), 2, None, &tex_ext, &tex_t),
            "gather4_lz unorm z".into(),
        ));
        checks.push((
            10,
            ref_gather(cs, u, v, lod, off, 0, Some(r), &[(5, 4), (2, 2)], &darr_t),
            "array gather4_c_l_o".into(),
        ));
        for (slot, want, what) in &checks {
            let got = &o[48 * i + 4 * slot..48 * i + 4 * slot + 4];
            assert_eq!(
                got,
                want,
                "lane {i} {what} (u {u}, v {v}, slice {slice}, lod {lod}, offsets {off:?}, ref {r}, compare {})",
                cs.compare
            );
        }
        if checks[0].1.iter().any(|&b| b != checks[0].1[0]) {
            not_all_equal += 1;
        }
        compare_ones[cs.compare as usize] +=
            checks[7].1.iter().filter(|&&b| b == 0x3f80_0000).count();
    }
    // The footprints are not degenerate (most lanes gather differing texels), and every compare function but never/always passes and fails.
    assert!(not_all_equal > n / 4, "{not_all_equal}");
    for (k, &ones) in compare_ones.iter().enumerate() {
        let total = 4 * n / 8;
        match k {
            0 => assert_eq!(ones, 0),
            7 => assert_eq!(ones, total),
            _ => assert!(ones > 0 && ones < total, "compare {k}: {ones} of {total}"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// coverage: gather_capture_lz_and_l: IMAGE_GATHER4_LZ IMAGE_GATHER4_LZ_O IMAGE_GATHER4_L IMAGE_GATHER4_L_O
/// `gather.comp` captured by ACO (wave32 and wave64): textureGather of each component, textureGatherOffset
/// with constant and per-invocation offsets, textureGatherLodAMD / textureGatherLodOffsetAMD, from a 13×7
/// rgba8 image of three levels through a nearest sampler, repeat × clamp-to-border (transparent black),
/// against the reference on the GLSL's coordinates.
#[test]
fn gather_capture_lz_and_l() {
    for wave in [32u32, 64] {
        let dir = scratch(&format!("capture-w{wave}"));
        let ext = [(13i32, 7i32), (6, 3), (3, 1)];
        let base = [0usize, 91, 109];
        let mut g = Lcg(1900 + wave as u64);
        let tex = bytes(&mut g, 112 * 4);
        std::fs::write(dir.join("tex.bin"), &tex).unwrap();
        let mut args: Vec<String> = [
            "capture",
            "fixtures/images/gather.comp",
            "--wave",
            &wave.to_string(),
            "--grid",
            "16,16",
            "--image",
            "tex=13,7,1,3,1",
            "--sampler",
            "tex=nearest,repeat,clamp_to_border",
            "--size",
            "o=32768",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args[1] = root().join(&args[1]).display().to_string();
        args.push(format!("--input=tex={}", dir.join("tex.bin").display()));
        args.extend(["-o".to_string(), dir.display().to_string()]);
        ok(&rdna2spv(&args), "capture gather.comp");
        let listing =
            std::fs::read_to_string(dir.join(format!("gather.navi21.w{wave}.aco.txt"))).unwrap();
        for (op, count) in [
            ("image_gather4_lz v", 4),
            ("image_gather4_lz_o v", 2),
            ("image_gather4_l v", 1),
            ("image_gather4_l_o v", 1),
        ] {
            assert_eq!(listing.matches(op).count(), count, "{op}\n{listing}");
        }
        let m = dir.join(format!("gather.navi21.w{wave}.toml"));
        let out = dir.join("out");
        run_both(&m, &out);
        let o = words(&read(&out.join("o.bin")));
        let texel = |l: usize, x: i32, y: i32| -> [f32; 4] {
            let k = base[l] + (y * ext[l].0 + x) as usize;
            std::array::from_fn(|c| tex[4 * k + c] as f32 / 255.0)
        };
        // RADV's sampler for these settings: point mips, LOD 0..15, no bias; the border type 0.
        let s = RefSampler {
            addr: [0, 6],
            border: 0,
            mip: 1,
            min_lod: 0,
            max_lod: 3840,
            bias: 0,
            compare: 0,
            unnorm: false,
        };
        for py in 0..16u32 {
            for px in 0..16u32 {
                let i = (py * 16 + px) as usize;
                let u = px as f32 * 0.1875f32 - 0.59375f32;
                let v = py as f32 * 0.1328125f32 - 0.46875f32;
                let lod = (px + py) as f32 * 0.1875f32 - 0.5f32;
                let o2 = (px as i32 - 8, (py % 5) as i32 - 2);
                let o3 = (py as i32 - 4, 1 - (px % 3) as i32);
                let want = [
                    ref_gather(&s, u, v, 0.0, (0, 0), 0, None, &ext, &texel),
                    ref_gather(&s, u, v, 0.0, (0, 0), 1, None, &ext, &texel),
                    ref_gather(&s, u, v, 0.0, (0, 0), 2, None, &ext, &texel),
                    ref_gather(&s, u, v, 0.0, (0, 0), 3, None, &ext, &texel),
                    ref_gather(&s, u, v, 0.0, (-3, 2), 1, None, &ext, &texel),
                    ref_gather(&s, u, v, 0.0, o2, 0, None, &ext, &texel),
                    ref_gather(&s, u, v, lod, (0, 0), 2, None, &ext, &texel),
                    ref_gather(&s, u, v, lod, o3, 3, None, &ext, &texel),
                ];
                for (k, w) in want.iter().enumerate() {
                    let got = &o[32 * i + 4 * k..32 * i + 4 * k + 4];
                    assert_eq!(
                        got, w,
                        "w{wave} ({px}, {py}) gather {k} (u {u}, v {v}, lod {lod})"
                    );
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Gather forms and operands D190 does not model are refused by name at lift time (exit 2), never run.
#[test]
fn gather_refusals_name_the_form() {
    let dir = scratch("refuse");
    // Encodings from llvm-mc-19 -mcpu=gfx1030.
    let cases: [(&str, &[u32], &str); 5] = [
        (
            "image_gather4 v[0:3], v[0:1], s[4:11], s[12:15] dmask:0x1 dim:SQ_RSRC_IMG_2D",
            &[0xf1000108, 0x00610000],
            "implicit (derivative) LOD",
        ),
        (
            "image_gather4_b v[0:3], v[0:2], s[4:11], s[12:15] dmask:0x1 dim:SQ_RSRC_IMG_2D",
            &[0xf1140108, 0x00610000],
            "bias",
        ),
        (
            // Cube gathers are lifted since D196 (tests/images_cube3d.rs); a 3-D gather is not a thing.
            "image_gather4_lz v[0:3], v[0:2], s[4:11], s[12:15] dmask:0x1 dim:SQ_RSRC_IMG_3D",
            &[0xf11c0110, 0x00610000],
            "3D",
        ),
        (
            // dmask 0x3: llvm-mc-19 rejects it ("only one bit must be set"); the dmask 0x1 word with bit 9 set.
            "image_gather4_lz v[0:3], v[0:1], s[4:11], s[12:15] dmask:0x3 dim:SQ_RSRC_IMG_2D",
            &[0xf11c0308, 0x00610000],
            "one component",
        ),
        (
            "image_gather4_c_lz v[0:3], v[0:2], s[4:11], s[12:15] dmask:0x2 dim:SQ_RSRC_IMG_2D",
            &[0xf13c0208, 0x00610000],
            "compare gather with dmask 0x2",
        ),
    ];
    for (k, (text, w, want)) in cases.iter().enumerate() {
        let code: &[(&str, &[u32])] = &[(text, w), ("s_endpgm", &[0xbf810000])];
        write_code(&dir.join(format!("{k}.bin")), code);
        let manifest = format!(
            "code = \"{k}.bin\"\ngrid = [32, 1, 1]\nworkgroup = [32, 1, 1]\n[abi]\nwave_size = 32\nsgpr = [ {{ reg = 4, tsharp = \"t\" }}, {{ reg = 12, ssharp = {{ filter = \"nearest\" }} }} ]\n[[images]]\nname = \"t\"\nformat = \"r32_float\"\ndim = \"2d\"\nextent = [4, 4, 1]\n"
        );
        let m = dir.join(format!("{k}.toml"));
        std::fs::write(&m, manifest).unwrap();
        let o = rdna2spv(&["run", m.to_str().unwrap(), "--backend", "host"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{text}: {err}");
        assert!(err.contains("MIMG") && err.contains(want), "{text}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The decoder and printer on the gather encodings above: `rdna2spv disasm --raw` of GATHER_ASM's words
/// prints each line as llvm-mc-19 assembled it (whitespace aside: LLVM pads NSA mnemonics).
#[test]
fn gather_decoding_matches_llvm_mc() {
    let dir = scratch("disasm");
    let bin = dir.join("k.bin");
    write_code(&bin, GATHER_ASM);
    let o = rdna2spv(&["disasm", "--raw", bin.to_str().unwrap()]);
    let text = ok(&o, "disasm");
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let got: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| norm(l.split("//").next().unwrap_or(l)))
        .collect();
    let want: Vec<String> = GATHER_ASM.iter().map(|(t, _)| norm(t)).collect();
    assert_eq!(got, want);
    std::fs::remove_dir_all(&dir).unwrap();
}
