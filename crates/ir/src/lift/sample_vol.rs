//! Sampling 3-D and cube images (MIMG `image_sample*` with `dim` 3D or CUBE), decision D196: D187's model
//! (with D191's forms) given a third axis, and D187's 2-D model on one face of a cube. A child of
//! lift/sample.rs: the S#, LOD, format, floor, mod and address-mode helpers are that module's.
//!
//! 3-D, per lane (the level as D187/D191, the gradients' LOD with a third term `RN(dw·D)²`):
//! - axes u, v, w with the level's extents W, H, D and the S#'s CLAMP_X, CLAMP_Y, CLAMP_Z (word 0 bits
//!   8:6; the half-border modes 4, 5, 7 refused there too); offsets x 5:0, y 13:8, z 21:16;
//! - point: texel (i, j, k); trilinear: the two planes k0, k1 each filtered as D187's bilinear
//!   (`r0` from plane k0, `r1` from plane k1), then `RN(RN(r0·(1−γ)) + RN(r1·γ))` with γ the w axis's
//!   8-bit fraction over 256.
//!
//! Cube, per lane (address VGPRs s, t, face; ACO computes them with v_cubesc/tc/ma/id: s, t =
//! `fma(sc or tc, 1/|2·ma|, 1.5)`, in [1, 2] on the face, the face `fma(RNE(layer), 8, id)` for arrays):
//! - the face coordinates `u = RN(s − 1)`, `v = RN(t − 1)` (exact for s in [0.5, 2]), then D187's axis on
//!   the face's extent N (square);
//! - the slice: `z = RNE(face)` (D187's rounding), layer `z >> 3` (arithmetic), face `z & 7` (6 and 7
//!   refused), the layer clamped to [0, cubes − 1] with cubes = (DEPTH − BASE_ARRAY + 1) / 6, slice =
//!   BASE_ARRAY + 6·layer + face (RADV's CUBE T#: DEPTH the last face, six per cube);
//! - the S#'s address modes are not read (Vulkan's rule for cubes). With the S#'s DISABLE_CUBE_WRAP
//!   (word 0 bit 28) set, each index is clamped to its face (D196). When it is 0 — seamless filtering,
//!   RADV's default — D198: the footprint is shaped to a 2×2 block one texel around the face at most
//!   (bilinear `i0 ∈ [−1, N − 1]`, `i1 = i0 + 1`; point `i ∈ [−1, N]` and its face-clamped
//!   neighbour), a texel off the face on one axis is the adjacent face's texel by [`CUBE_EDGE`] (24
//!   (face, edge) cases as data), a texel off on both axes (a corner; at most one per block) is
//!   `RN(RN(RN(own + across_i) + across_j) / 3)` of the block's three other texels (UINT/SINT: `own`);
//! - seamless filtering of a T# whose faces are not square is refused at run time;
//! - texel offsets (`_o`) on a cube are refused at lift time.
//!
//! Linear mip filtering (D195, amended session 16): [`Lifter::sample_level_vol`] is one level's footprint,
//! emitted for the first level and for the second; the levels, blend and refusals are lift/sample.rs's.

use super::super::format::Typed;
use super::super::image::{Dim, MimgFields};
use super::super::{LiftError, Lifter};
use super::{Axis, Lod, SampleForm, SampledFormat};
use crate::{FloatOp, Handle, IntCmp, IntOp, Node, Ty, UnOp};

type H = Handle<Node>;

/// What one level's footprint of a 3-D or cube sample reads, the same for both levels of a linear mip
/// filter (D195, D196).
struct VolFootprint<'a> {
    ts: &'a super::super::image::Tsharp,
    desc: &'a super::super::format::Desc,
    /// The border colour (D187 step 4).
    border: [H; 4],
    /// u, v, w (3-D); s, t, face (cube).
    coords: [H; 3],
    /// CLAMP_X, CLAMP_Y, CLAMP_Z (3-D).
    modes: [H; 3],
    /// The texel offsets (D191), x, y, z (3-D).
    offsets: [Option<H>; 3],
    linear: H,
    unnorm: H,
    /// Element bytes (B64).
    size64: H,
    /// DEPTH + 1 (3-D; None for a cube).
    depth: Option<H>,
    /// The cube's slice and face number (D196; None for 3-D).
    slice: Option<(H, H)>,
    /// Seamless cube filtering (D198: the S#'s DISABLE_CUBE_WRAP is 0).
    seamless: H,
    /// UINT/SINT format (a cube corner takes the face's own texel, D198).
    is_int: H,
    /// The compare function and the clamped reference (D191).
    cmp: Option<(H, H)>,
    dmask: u32,
}

/// The cube's edges as data (D198): for each edge crossed — `i < 0`, `i ≥ N`, `j < 0`, `j ≥ N` — one
/// word holding, at bits 6f..6f + 5 for face f (0..=5: +X, −X, +Y, −Y, +Z, −Z), the adjacent face (bits
/// 2:0), where the index along the edge `k` goes (bit 3: 0 to i′, 1 to j′; the other index is 0), and
/// whether i′ (bit 4) and j′ (bit 5) are then reflected to `N − 1 − ·`. Derived from the Vulkan face
/// selection table (decisions/D198-seamless-cube-filtering.md has the 24 cases).
const CUBE_EDGE: [u64; 4] = [0x6_19c4_175c, 0x2_4881_030d, 0x4_a291_52ba, 0xc_c3d4_4adb];

/// A cube footprint's 2×2 block after D198's edge rule ([`Lifter::cube_block`]).
pub(in crate::lift) struct CubeBlock {
    /// (x, y, slice) of each texel: row r (j0, j1), column c (i0, i1); always inside the image.
    pub(in crate::lift) at: [[(H, H, H); 2]; 2],
    /// Whether the block has a corner texel (seamless filtering, off the face on both axes), B1.
    corner: H,
    /// The corner's row and column (B1: 1 for j1, i1).
    row: H,
    col: H,
}

impl Lifter<'_> {
    /// `image_sample*` of `form` on a 3-D or cube image (D196).
    pub(in crate::lift) fn image_sample_vol(
        &mut self,
        form: SampleForm,
        m: &MimgFields,
        dim: Dim,
    ) -> Result<(), LiftError> {
        let cube = dim == Dim::Cube;
        let (dmask, vdata) = (m.dmask, m.vdata);
        self.mimg_dmask_nonzero(m)?;
        if form.compare && dmask != 1 {
            return self.unsupported_mimg(
                "a depth-compare sample with a dmask other than 0x1 is not modelled: what the hardware \
                 returns in the other components is not established (D191)",
            );
        }
        if cube && form.offset {
            return self
                .unsupported_mimg("texel offsets (`_o`) on a cube image are not modelled (D196)");
        }
        if !cube && form.lod == (Lod::Grad { g16: true }) {
            return self.unsupported_mimg(
                "16-bit gradients (`_g16`) on a 3-D image are not modelled: their packing is not established (D196)",
            );
        }
        // Address VGPRs in the ISA's order: offset, reference, gradients (3-D: du/dx, dv/dx, dw/dx, du/dy,
        // dv/dy, dw/dy; cube: the 2-D face gradients), s/u, t/v, face/w, then the LOD or clamp.
        let ngrad = match form.lod {
            Lod::Grad { g16: false } => {
                if cube {
                    4
                } else {
                    6
                }
            }
            Lod::Grad { g16: true } => 2,
            _ => 0,
        };
        let nlast = (form.lod == Lod::Explicit || form.clamp) as usize;
        let k_cmp = form.offset as usize;
        let k_grad = k_cmp + form.compare as usize;
        let k_coord = k_grad + ngrad;
        let naddr = k_coord + 3 + nlast;
        let ndata = dmask.count_ones() as u16;
        let addr_regs = self.mimg_addr_regs(m, naddr, ndata)?;
        // Reads first: the T#, the S#, the address.
        let ts = self.tsharp(m.srsrc, dim);
        let sw: Vec<H> = (0..4).map(|i| self.read_s(m.ssamp + i, Ty::B32)).collect();
        let all: Vec<H> = addr_regs
            .iter()
            .map(|&reg| self.n(Node::ReadVgpr { reg, ty: Ty::B32 }))
            .collect();
        let addr: Vec<H> = all[k_coord..].to_vec();
        let f = self.c(Ty::B1, 0);
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let smp = self.sampler_state(&sw, m.unorm);
        let clamp_z = self.buf_field(sw[0], 6, 7);
        if !cube {
            let mut bad = f;
            for k in [4u64, 5, 7] {
                let kc = self.c(Ty::B32, k);
                let e = self.icmp(IntCmp::Eq, Ty::B32, clamp_z, kc);
                bad = self.buf_or(bad, e);
            }
            self.n(Node::Refuse {
                cond: bad,
                reason: "the S#'s address mode is a half-border or mirror-once-border form: not modelled (D187)",
            });
        }
        let depth = if cube {
            None
        } else {
            let d = self.int(IntOp::Add, Ty::B32, ts.depth, one);
            Some(d)
        };
        // LOD in 1/256 (D187 step 1; D191's gradients, a third term for 3-D).
        let lod = match form.lod {
            Lod::Explicit => self.lod_256(addr[3]),
            Lod::Zero => z,
            Lod::Grad { g16 } => {
                let w0 = self.level_extent(ts.width, ts.base_level);
                let h0 = self.level_extent(ts.height, ts.base_level);
                match depth {
                    None => {
                        let g = self.gradients(&all[k_grad..k_coord], g16, true);
                        self.gradient_lod(&g, w0, Some(h0), smp.unnorm)
                    }
                    Some(d) => {
                        let d0 = self.level_extent(d, ts.base_level);
                        let g = &all[k_grad..k_coord];
                        let onef = self.c(Ty::B32, 0x3f80_0000);
                        let mut q = Vec::new();
                        for dir in [&g[0..3], &g[3..6]] {
                            let mut acc = None;
                            for (&gv, n) in dir.iter().zip([w0, h0, d0]) {
                                let nf = self.un(UnOp::U32ToF32, Ty::B32, n);
                                let nf = self.buf_select(smp.unnorm, onef, nf);
                                let a = self.float(FloatOp::F32Mul, gv, nf, gv);
                                let a2 = self.float(FloatOp::F32Mul, a, a, a);
                                acc = Some(match acc {
                                    None => a2,
                                    Some(p) => self.float(FloatOp::F32Add, p, a2, p),
                                });
                            }
                            q.push(acc.expect("three terms"));
                        }
                        self.gradient_lod_of(q[0], q[1])
                    }
                }
            }
        };
        let min_lod = if form.clamp {
            let c = self.lod_256(addr[3]);
            self.int(IntOp::MaxI, Ty::B32, smp.min_lod, c)
        } else {
            smp.min_lod
        };
        // The levels (D195): the first, and a second one blended with it under a linear mip filter.
        let mip = self.mip_levels(&smp, &ts, lod, min_lod);
        let l = mip.l;
        let (linear, fmt) = self.sample_filter(&smp, &ts, l, dmask, form.compare);
        let SampledFormat {
            desc,
            is_int,
            border: border_c,
            ..
        } = fmt;
        // Texel offsets (D191; z at bits 21:16 for 3-D).
        let offs: [Option<H>; 3] = if form.offset {
            let o = all[0];
            let c26 = self.c(Ty::B32, 26);
            let mut r = [None; 3];
            // Shift the field to the top, then back arithmetically: x (5:0), y (13:8), z (21:16).
            for (k, shift) in [26u64, 18, 10].into_iter().enumerate() {
                let sh = self.c(Ty::B32, shift);
                let x = self.int(IntOp::Shl, Ty::B32, o, sh);
                r[k] = Some(self.int(IntOp::AShr, Ty::B32, x, c26));
            }
            r
        } else {
            [None; 3]
        };
        let size64 = self.un(UnOp::ZExt, Ty::B64, desc.size);
        // The cube's slice (level-independent) and the layout's slices per level.
        let (layers, slice, seamless) = if cube {
            let (layers, slice, face) = self.cube_slice(&ts, addr[2]);
            let seamless = self.cube_seamless(sw[0], &ts);
            (layers, Some((slice, face)), seamless)
        } else {
            (one, None, f)
        };
        let not_refused = self.buf_select(desc.refused, f, mip.level_ok);
        let cmp = if form.compare {
            Some((smp.cmp_func, self.compare_reference(all[k_cmp], desc.nf)))
        } else {
            None
        };
        let vf = VolFootprint {
            ts: &ts,
            desc: &desc,
            border: border_c,
            coords: [addr[0], addr[1], addr[2]],
            modes: [smp.clamp_x, smp.clamp_y, clamp_z],
            offsets: offs,
            linear,
            unnorm: smp.unnorm,
            size64,
            depth,
            slice,
            seamless,
            is_int,
            cmp,
            dmask,
        };
        // The first level, then (D195) the second one of a linear mip filter, its loads enabled only in
        // the lanes that blend; its offset is the first one's plus the first level's size.
        let off0 = self.level_offset(&ts, dim, mip.level, size64, layers);
        let r0 = self.sample_level_vol(&vf, mip.level, off0, not_refused);
        let (next, blend) = self.second_level(&mip);
        let blend_int = self.buf_select(blend, is_int, f);
        self.n(Node::Refuse {
            cond: blend_int,
            reason: "linear mip filtering of a UINT/SINT format: not modelled (D195)",
        });
        let bytes0 = self.level_bytes(&ts, dim, mip.level, size64, layers);
        let zero64 = self.c(Ty::B64, 0);
        let step = self.buf_select(blend, bytes0, zero64);
        let off1 = self.int(IntOp::Add, Ty::B64, off0, step);
        let ok1 = self.buf_select(blend, not_refused, f);
        let r1 = self.sample_level_vol(&vf, next, off1, ok1);
        self.write_blended(vdata, blend, mip.frac, &r0, &r1);
        Ok(())
    }

    /// One level's footprint of a 3-D or cube sample (D196; called per level, D195): the level's
    /// extents, the axes (3-D: u, v, w; cube: the face's u, v and D198's block, texels across an edge
    /// taken from the adjacent face), the texels at `base + off` (loads where `ok_level` holds and the
    /// texel is inside), point or (tri)linear; one value per `dmask` component.
    fn sample_level_vol(&mut self, vf: &VolFootprint, level: H, off: H, ok_level: H) -> Vec<H> {
        let ts = vf.ts;
        let f = self.c(Ty::B1, 0);
        let t = self.c(Ty::B1, 1);
        let z = self.c(Ty::B32, 0);
        let (linear, unnorm) = (vf.linear, vf.unnorm);
        let wl = self.level_extent(ts.width, level);
        let hl = self.level_extent(ts.height, level);
        // sites[p][r][c]: (x, y, z, inside) of plane p (k0, k1), row r (j0, j1), column c (i0, i1).
        type Site = (H, H, H, H);
        let (fx, fy, fz, sites, blk): (H, H, H, Vec<[[Site; 2]; 2]>, _) = match (vf.depth, vf.slice)
        {
            (Some(d), _) => {
                let dl = self.level_extent(d, level);
                let [u, v, w] = vf.coords;
                let [mx, my, mz] = vf.modes;
                let ax = self.sample_axis_off(u, wl, mx, linear, unnorm, vf.offsets[0]);
                let ay = self.sample_axis_off(v, hl, my, linear, unnorm, vf.offsets[1]);
                let az = self.sample_axis_off(w, dl, mz, linear, unnorm, vf.offsets[2]);
                let mut sites = Vec::new();
                for (zz, inside_z) in [az.i0, az.i1] {
                    let mut plane = [[(z, z, z, f); 2]; 2];
                    for (r, (y, inside_y)) in [ay.i0, ay.i1].into_iter().enumerate() {
                        for (c, (x, inside_x)) in [ax.i0, ax.i1].into_iter().enumerate() {
                            let inside = self.buf_select(inside_x, inside_y, f);
                            let inside = self.buf_select(inside, inside_z, f);
                            plane[r][c] = (x, y, zz, inside);
                        }
                    }
                    sites.push(plane);
                }
                (ax.a, ay.a, az.a, sites, None)
            }
            (None, slice) => {
                let (slice, face) = slice.expect("a cube's slice");
                let (ax, ay) =
                    self.cube_face_axes(vf.coords[0], vf.coords[1], wl, hl, linear, unnorm);
                let blk = self.cube_block(
                    [ax.i0.0, ay.i0.0],
                    [wl, hl],
                    linear,
                    face,
                    slice,
                    vf.seamless,
                );
                let plane = blk.at.map(|row| row.map(|(x, y, s)| (x, y, s, t)));
                (ax.a, ay.a, z, vec![plane], Some(blk))
            }
        };
        let size64 = vf.size64;
        let base = self.int(IntOp::Add, Ty::B64, ts.base, off);
        let tl = Typed {
            store: false,
            d16: false,
            hi: false,
            n: 4,
        };
        let w64 = self.un(UnOp::ZExt, Ty::B64, wl);
        let h64 = self.un(UnOp::ZExt, Ty::B64, hl);
        // texels[p][r][c]: the four components of each site.
        let mut texels = Vec::new();
        for plane in &sites {
            let mut tp: Vec<Vec<Vec<H>>> = Vec::new();
            for row in plane {
                let mut tr = Vec::new();
                for &(x, y, zz, inside) in row {
                    let ok = self.buf_select(inside, ok_level, f);
                    let z64 = self.un(UnOp::ZExt, Ty::B64, zz);
                    let y64 = self.un(UnOp::ZExt, Ty::B64, y);
                    let x64 = self.un(UnOp::ZExt, Ty::B64, x);
                    let t1 = self.int(IntOp::Mul, Ty::B64, z64, h64);
                    let t1 = self.int(IntOp::Add, Ty::B64, t1, y64);
                    let t1 = self.int(IntOp::Mul, Ty::B64, t1, w64);
                    let t1 = self.int(IntOp::Add, Ty::B64, t1, x64);
                    let t1 = self.int(IntOp::Mul, Ty::B64, t1, size64);
                    let a = self.int(IntOp::Add, Ty::B64, base, t1);
                    let addrs: Vec<H> = (0..4u64)
                        .map(|j| {
                            let k = self.c(Ty::B64, 4 * j);
                            self.int(IntOp::Add, Ty::B64, a, k)
                        })
                        .collect();
                    let vals =
                        self.typed_load_values(tl, vf.desc, &ts.sel, &[0, 1, 2, 3], &addrs, ok);
                    let vals: Vec<H> = (0..4)
                        .map(|c| self.buf_select(inside, vals[c], vf.border[c]))
                        .collect();
                    let vals = match &vf.cmp {
                        Some((func, r)) => {
                            let v = self.compare_value(*func, *r, vals[0]);
                            vec![v; 4]
                        }
                        None => vals,
                    };
                    tr.push(vals);
                }
                tp.push(tr);
            }
            texels.push(tp);
        }
        // A cube's corner texel (D198), per component the sample returns.
        if let Some(blk) = &blk {
            let p = &mut texels[0];
            for c in (0..4usize).filter(|c| vf.dmask >> c & 1 != 0) {
                let v = [[p[0][0][c], p[0][1][c]], [p[1][0][c], p[1][1][c]]];
                let v = self.cube_corner(blk, v, vf.is_int);
                for (r, row) in v.iter().enumerate() {
                    for (k, &x) in row.iter().enumerate() {
                        p[r][k][c] = x;
                    }
                }
            }
        }
        let (ax0, ax1) = self.weights_256(fx);
        let (ay0, ay1) = self.weights_256(fy);
        let (az0, az1) = self.weights_256(fz);
        let mut out = Vec::new();
        for c in (0..4usize).filter(|c| vf.dmask >> c & 1 != 0) {
            let mut r = Vec::new();
            for plane in &texels {
                let r0 = self.lerp(plane[0][0][c], plane[0][1][c], ax0, ax1);
                let r1 = self.lerp(plane[1][0][c], plane[1][1][c], ax0, ax1);
                r.push(self.lerp(r0, r1, ay0, ay1));
            }
            let v = if blk.is_some() {
                r[0]
            } else {
                self.lerp(r[0], r[1], az0, az1)
            };
            out.push(self.buf_select(linear, v, texels[0][0][0][c]));
        }
        out
    }

    /// A cube face's two axes (D196): `u = RN(s − 1)`, `v = RN(t − 1)`, D187's axis on the level's
    /// extents through the border mode, so the first index is the raw one (D198 shapes and folds it).
    fn cube_face_axes(&mut self, s: H, tc: H, wl: H, hl: H, linear: H, unnorm: H) -> (Axis, Axis) {
        let onef = self.c(Ty::B32, 0x3f80_0000);
        let border = self.c(Ty::B32, 6);
        let u = self.float(FloatOp::F32Sub, s, onef, s);
        let v = self.float(FloatOp::F32Sub, tc, onef, tc);
        let ax = self.sample_axis_off(u, wl, border, linear, unnorm, None);
        let ay = self.sample_axis_off(v, hl, border, linear, unnorm, None);
        (ax, ay)
    }

    /// Whether a cube is filtered seamlessly (D198): the S#'s DISABLE_CUBE_WRAP (word 0 bit 28) is 0, as
    /// RADV encodes every Vulkan cube sampler without `VK_SAMPLER_CREATE_NON_SEAMLESS_CUBE_MAP_BIT_EXT`.
    /// A seamless cube whose T# faces are not square is refused at run time (a Vulkan cube's are).
    pub(in crate::lift) fn cube_seamless(&mut self, sw0: H, ts: &super::super::image::Tsharp) -> H {
        let z = self.c(Ty::B32, 0);
        let f = self.c(Ty::B1, 0);
        let wrap_off = self.buf_field(sw0, 28, 1);
        let seamless = self.icmp(IntCmp::Eq, Ty::B32, wrap_off, z);
        let oblong = self.icmp(IntCmp::Ne, Ty::B32, ts.width, ts.height);
        let bad = self.buf_select(seamless, oblong, f);
        self.n(Node::Refuse {
            cond: bad,
            reason:
                "a seamless cube sample on a CUBE T# whose faces are not square (WIDTH != HEIGHT): \
                     not modelled (D198)",
        });
        seamless
    }

    /// One face's 2×2 block of a cube footprint (D196, D198). `first`: the first texel's raw face indices
    /// (D187's axis before any address mode); `extents`: the level's face extents N (square when
    /// seamless, [`Lifter::cube_seamless`]); `face`, `slice`: the
    /// sample's face number and slice. The block is shaped first: bilinear `i0 = clamp(x0, −1, N − 1)`,
    /// `i1 = i0 + 1`; point `i0 = clamp(x0, −1, N)`, `i1 = clamp(i0, 0, N − 1)` (the texel and its
    /// face-clamped neighbour). A texel off the face on exactly one axis, under seamless filtering, is the
    /// adjacent face's texel ([`CUBE_EDGE`]); otherwise the indices are clamped to the face (D196). A
    /// texel off the face on both axes (at most one per block) is a corner, replaced after the loads by
    /// [`Lifter::cube_corner`].
    pub(in crate::lift) fn cube_block(
        &mut self,
        first: [H; 2],
        extents: [H; 2],
        linear: H,
        face: H,
        slice: H,
        seamless: H,
    ) -> CubeBlock {
        let f = self.c(Ty::B1, 0);
        let t = self.c(Ty::B1, 1);
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let m1 = self.c(Ty::B32, u32::MAX as u64);
        let clamp = |s: &mut Self, i: H, lo: H, hi: H| {
            let i = s.int(IntOp::MaxI, Ty::B32, i, lo);
            s.int(IntOp::MinI, Ty::B32, i, hi)
        };
        let [nx, ny] = extents;
        let last = [
            self.int(IntOp::Sub, Ty::B32, nx, one),
            self.int(IntOp::Sub, Ty::B32, ny, one),
        ];
        // (index, off the face, below 0) per column, then per row.
        let mut sides = Vec::new();
        for ((r, n), n1) in first.into_iter().zip(extents).zip(last) {
            let l0 = clamp(self, r, m1, n1);
            let l1 = self.int(IntOp::Add, Ty::B32, l0, one);
            let p0 = clamp(self, r, m1, n);
            let p1 = clamp(self, p0, z, n1);
            let i0 = self.buf_select(linear, l0, p0);
            let i1 = self.buf_select(linear, l1, p1);
            let mut side = Vec::new();
            for i in [i0, i1] {
                let lo = self.icmp(IntCmp::LtI, Ty::B32, i, z);
                let hi = self.icmp(IntCmp::GeI, Ty::B32, i, n);
                let off = self.buf_or(lo, hi);
                side.push((i, off, lo));
            }
            sides.push(side);
        }
        let (cols, rows) = (&sides[0], &sides[1]);
        let base = self.int(IntOp::Sub, Ty::B32, slice, face);
        let face64 = self.un(UnOp::ZExt, Ty::B64, face);
        let c6 = self.c(Ty::B64, 6);
        let shift = self.int(IntOp::Mul, Ty::B64, face64, c6);
        let mut at = [[(z, z, z); 2]; 2];
        for (r, &(y, offy, loy)) in rows.iter().enumerate() {
            for (c, &(x, offx, lox)) in cols.iter().enumerate() {
                let on_y = self.buf_select(offy, f, t);
                let on_x = self.buf_select(offx, f, t);
                let only_x = self.buf_select(offx, on_y, f);
                let only_y = self.buf_select(offy, on_x, f);
                let one_axis = self.buf_or(only_x, only_y);
                let fold = self.buf_select(seamless, one_axis, f);
                // The edge crossed and the index along it: i < 0, i ≥ N (k = j); j < 0, j ≥ N (k = i).
                let k = self.buf_select(offx, y, x);
                let entry = self.cube_edge_entry(offx, lox, loy, shift);
                let g = self.buf_field(entry, 0, 7);
                let along_j = self.buf_field(entry, 3, 1);
                let along_j = self.icmp(IntCmp::Ne, Ty::B32, along_j, z);
                let vi = self.buf_select(along_j, z, k);
                let vj = self.buf_select(along_j, k, z);
                let mut ij = [z; 2];
                for (q, (v, bit)) in [(vi, 4u64), (vj, 5)].into_iter().enumerate() {
                    let flip = self.buf_field(entry, bit, 1);
                    let flip = self.icmp(IntCmp::Ne, Ty::B32, flip, z);
                    let rv = self.int(IntOp::Sub, Ty::B32, last[q], v);
                    ij[q] = self.buf_select(flip, rv, v);
                }
                let gs = self.int(IntOp::Add, Ty::B32, base, g);
                let xc = clamp(self, x, z, last[0]);
                let yc = clamp(self, y, z, last[1]);
                at[r][c] = (
                    self.buf_select(fold, ij[0], xc),
                    self.buf_select(fold, ij[1], yc),
                    self.buf_select(fold, gs, slice),
                );
            }
        }
        let any_x = self.buf_or(cols[0].1, cols[1].1);
        let any_y = self.buf_or(rows[0].1, rows[1].1);
        let corner = self.buf_select(any_x, any_y, f);
        let corner = self.buf_select(seamless, corner, f);
        CubeBlock {
            at,
            corner,
            row: rows[1].1,
            col: cols[1].1,
        }
    }

    /// The [`CUBE_EDGE`] entry of the sample's face (`shift` = 6·face, B64) for the edge a texel crosses:
    /// `offx` (off on the i axis, else the j axis) and which side (`lox`, `loy`: below 0).
    fn cube_edge_entry(&mut self, offx: H, lox: H, loy: H, shift: H) -> H {
        let w: Vec<H> = CUBE_EDGE.iter().map(|&w| self.c(Ty::B64, w)).collect();
        let wx = self.buf_select(lox, w[0], w[1]);
        let wy = self.buf_select(loy, w[2], w[3]);
        let word = self.buf_select(offx, wx, wy);
        let e = self.int(IntOp::LShr, Ty::B64, word, shift);
        let e = self.un(UnOp::Trunc, Ty::B32, e);
        self.buf_field(e, 0, 63)
    }

    /// A cube block's corner texel (D198): where [`CubeBlock::corner`] holds, the texel at (`row`, `col`)
    /// becomes `RN(RN(RN(own + across_i) + across_j) / 3)` — `own` the block's texel on the face (the
    /// other row and column), `across_i` the other row's texel in the corner's column (the face across the
    /// i edge), `across_j` the corner's row's texel in the other column (across the j edge) — for float and
    /// normalized formats; for UINT/SINT (`is_int`) the face's own texel. `v[r][c]`: one component.
    pub(in crate::lift) fn cube_corner(
        &mut self,
        blk: &CubeBlock,
        v: [[H; 2]; 2],
        is_int: H,
    ) -> [[H; 2]; 2] {
        let f = self.c(Ty::B1, 0);
        let t = self.c(Ty::B1, 1);
        let (cr, cc) = (blk.row, blk.col);
        // pick(a, b): v[a ? 1 − row : row][b ? 1 − col : col].
        let pick = |s: &mut Self, other_r: bool, other_c: bool| {
            let ra = if other_r { 1 } else { 0 };
            let ca = if other_c { 1 } else { 0 };
            // With row = 0: v[ra][·]; row = 1: v[1 − ra][·]; likewise the column.
            let r0 = s.buf_select(cc, v[ra][1 - ca], v[ra][ca]);
            let r1 = s.buf_select(cc, v[1 - ra][1 - ca], v[1 - ra][ca]);
            s.buf_select(cr, r1, r0)
        };
        let own = pick(self, true, true);
        let across_i = pick(self, true, false);
        let across_j = pick(self, false, true);
        let a = self.float(FloatOp::F32Add, own, across_i, own);
        let a = self.float(FloatOp::F32Add, a, across_j, a);
        let three = self.c(Ty::B32, 0x4040_0000);
        let avg = self.float(FloatOp::F32Div, a, three, a);
        let val = self.buf_select(is_int, own, avg);
        let mut out = v;
        for (r, row) in out.iter_mut().enumerate() {
            let is_r = if r == 1 {
                cr
            } else {
                self.buf_select(cr, f, t)
            };
            for (c, x) in row.iter_mut().enumerate() {
                let is_c = if c == 1 {
                    cc
                } else {
                    self.buf_select(cc, f, t)
                };
                let here = self.buf_select(is_r, is_c, f);
                let here = self.buf_select(blk.corner, here, f);
                *x = self.buf_select(here, val, *x);
            }
        }
        out
    }

    /// A cube's slice from the face coordinate (D196): `z = RNE(face)`, layer `z >> 3`, face `z & 7`
    /// (6 and 7 refused at run time), the layer clamped to [0, cubes − 1], cubes = (DEPTH − BASE_ARRAY +
    /// 1) / 6; slice = BASE_ARRAY + 6·layer + face. Returns (the layout's slices DEPTH + 1, slice, face).
    pub(in crate::lift) fn cube_slice(
        &mut self,
        ts: &super::super::image::Tsharp,
        r: H,
    ) -> (H, H, H) {
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let layers = self.int(IntOp::Add, Ty::B32, ts.depth, one);
        let q = self.round_even_i(r);
        let c3 = self.c(Ty::B32, 3);
        let layer = self.int(IntOp::AShr, Ty::B32, q, c3);
        let face = self.buf_field(q, 0, 7);
        let c6 = self.c(Ty::B32, 6);
        let bad_face = self.icmp(IntCmp::GeU, Ty::B32, face, c6);
        self.n(Node::Refuse {
            cond: bad_face,
            reason: "a cube face number 6 or 7 (the face coordinate's low three bits): not modelled (D196)",
        });
        // cubes = (DEPTH − BASE_ARRAY + 1) / 6 (the high half of the product with ⌈2^34 / 6⌉, exact for
        // every u32), at least 1.
        let room = self.int(IntOp::Sub, Ty::B32, layers, ts.base_array);
        let room = self.int(IntOp::MaxI, Ty::B32, room, z);
        let magic = self.c(Ty::B32, 0xaaaa_aaab);
        let hi = self.int(IntOp::MulHiU, Ty::B32, room, magic);
        let c2 = self.c(Ty::B32, 2);
        let cubes = self.int(IntOp::LShr, Ty::B32, hi, c2);
        let none = self.icmp(IntCmp::Eq, Ty::B32, cubes, z);
        self.n(Node::Refuse {
            cond: none,
            reason: "a CUBE T# with fewer than six slices from BASE_ARRAY to DEPTH: not modelled (D196)",
        });
        let last = self.int(IntOp::Sub, Ty::B32, cubes, one);
        let last = self.int(IntOp::MaxI, Ty::B32, last, z);
        let layer = self.int(IntOp::MaxI, Ty::B32, layer, z);
        let layer = self.int(IntOp::MinI, Ty::B32, layer, last);
        let l6 = self.int(IntOp::Mul, Ty::B32, layer, c6);
        let s = self.int(IntOp::Add, Ty::B32, l6, face);
        let slice = self.int(IntOp::Add, Ty::B32, s, ts.base_array);
        (layers, slice, face)
    }
}
