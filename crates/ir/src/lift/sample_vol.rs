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
//! - each face is clamped to its edge (the S#'s address modes are not read: Vulkan's rule for cubes);
//!   when the S#'s DISABLE_CUBE_WRAP (word 0 bit 28) is 0 — seamless filtering, RADV's default — a texel
//!   of the footprint (point: the one texel; bilinear: the four) outside the face would come from a
//!   neighbouring face: refused at run time by name (not modelled);
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
    /// The cube's slice (D196; None for 3-D).
    slice: Option<H>,
    /// The S#'s DISABLE_CUBE_WRAP.
    wrap_off: H,
    /// The compare function and the clamped reference (D191).
    cmp: Option<(H, H)>,
    dmask: u32,
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
        let t = self.c(Ty::B1, 1);
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let smp = self.sampler_state(&sw, m.unorm);
        let clamp_z = self.buf_field(sw[0], 6, 7);
        let wrap_off = self.buf_field(sw[0], 28, 1);
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
        let (layers, slice) = if cube {
            let (layers, slice) = self.cube_slice(&ts, addr[2]);
            (layers, Some(slice))
        } else {
            (one, None)
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
            wrap_off,
            cmp,
            dmask,
        };
        // The first level, then (D195) the second one of a linear mip filter, its loads enabled only in
        // the lanes that blend; its offset is the first one's plus the first level's size.
        let off0 = self.level_offset(&ts, dim, mip.level, size64, layers);
        let r0 = self.sample_level_vol(&vf, mip.level, off0, not_refused, t);
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
        let r1 = self.sample_level_vol(&vf, next, off1, ok1, blend);
        self.write_blended(vdata, blend, mip.frac, &r0, &r1);
        Ok(())
    }

    /// One level's footprint of a 3-D or cube sample (D196; called per level, D195): the level's
    /// extents, the axes (3-D: u, v, w; cube: the face's u, v, its seamless crossing refused in the lanes
    /// where `active` holds), the texels at `base + off` (loads where `ok_level` holds and the texel is
    /// inside), point or (tri)linear; one value per `dmask` component.
    fn sample_level_vol(
        &mut self,
        vf: &VolFootprint,
        level: H,
        off: H,
        ok_level: H,
        active: H,
    ) -> Vec<H> {
        let ts = vf.ts;
        let f = self.c(Ty::B1, 0);
        let t = self.c(Ty::B1, 1);
        let z = self.c(Ty::B32, 0);
        let (linear, unnorm) = (vf.linear, vf.unnorm);
        let wl = self.level_extent(ts.width, level);
        let hl = self.level_extent(ts.height, level);
        let (ax, ay, planes) = match (vf.depth, vf.slice) {
            (Some(d), _) => {
                let dl = self.level_extent(d, level);
                let [u, v, w] = vf.coords;
                let [mx, my, mz] = vf.modes;
                let ax = self.sample_axis_off(u, wl, mx, linear, unnorm, vf.offsets[0]);
                let ay = self.sample_axis_off(v, hl, my, linear, unnorm, vf.offsets[1]);
                let az = self.sample_axis_off(w, dl, mz, linear, unnorm, vf.offsets[2]);
                (ax, ay, az)
            }
            (None, slice) => {
                let slice = slice.expect("a cube's slice");
                let (ax, ay, cross) =
                    self.cube_face_axes(vf.coords[0], vf.coords[1], wl, hl, linear, unnorm);
                let cross = self.buf_select(active, cross, f);
                self.refuse_seamless_cross(vf.wrap_off, cross);
                let planes = Axis {
                    i0: (slice, t),
                    i1: (slice, t),
                    a: z,
                };
                (ax, ay, planes)
            }
        };
        let cube = vf.depth.is_none();
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
        // texels[p][r][c]: plane p (k0, k1), row r (j0, j1), column c (i0, i1).
        let mut texels = Vec::new();
        for (zz, inside_z) in [planes.i0, planes.i1] {
            let mut plane = Vec::new();
            for (y, inside_y) in [ay.i0, ay.i1] {
                let mut row = Vec::new();
                for (x, inside_x) in [ax.i0, ax.i1] {
                    let inside = self.buf_select(inside_x, inside_y, f);
                    let inside = self.buf_select(inside, inside_z, f);
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
                    row.push(vals);
                }
                plane.push(row);
            }
            texels.push(plane);
            if cube {
                // One plane: the face's slice.
                break;
            }
        }
        let (ax0, ax1) = self.weights_256(ax.a);
        let (ay0, ay1) = self.weights_256(ay.a);
        let (az0, az1) = self.weights_256(planes.a);
        let mut out = Vec::new();
        for c in (0..4usize).filter(|c| vf.dmask >> c & 1 != 0) {
            let mut r = Vec::new();
            for plane in &texels {
                let r0 = self.lerp(plane[0][0][c], plane[0][1][c], ax0, ax1);
                let r1 = self.lerp(plane[1][0][c], plane[1][1][c], ax0, ax1);
                r.push(self.lerp(r0, r1, ay0, ay1));
            }
            let v = if cube {
                r[0]
            } else {
                self.lerp(r[0], r[1], az0, az1)
            };
            out.push(self.buf_select(linear, v, texels[0][0][0][c]));
        }
        out
    }

    /// The run-time refusal of a cube footprint that leaves its face (`cross`, B1) when the S#'s
    /// DISABLE_CUBE_WRAP (`wrap_off`, word 0 bit 28) is 0: seamless filtering (D196).
    pub(in crate::lift) fn refuse_seamless_cross(&mut self, wrap_off: H, cross: H) {
        let z = self.c(Ty::B32, 0);
        let f = self.c(Ty::B1, 0);
        let seamless = self.icmp(IntCmp::Eq, Ty::B32, wrap_off, z);
        let refuse = self.buf_select(seamless, cross, f);
        self.n(Node::Refuse {
            cond: refuse,
            reason: "a cube sample whose footprint leaves its face under seamless filtering (the S#'s \
                     DISABLE_CUBE_WRAP is 0): texels of the neighbouring face are not modelled (D196)",
        });
    }

    /// A cube face's two axes (D196): `u = RN(s − 1)`, `v = RN(t − 1)`, D187's axis on the level's extents
    /// with the index clamped to the face; and whether a texel of the footprint (point: the first;
    /// bilinear: all four) lies outside the face (B1).
    fn cube_face_axes(
        &mut self,
        s: H,
        tc: H,
        wl: H,
        hl: H,
        linear: H,
        unnorm: H,
    ) -> (Axis, Axis, H) {
        let onef = self.c(Ty::B32, 0x3f80_0000);
        let border = self.c(Ty::B32, 6);
        let f = self.c(Ty::B1, 0);
        let t = self.c(Ty::B1, 1);
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let mut axes = Vec::new();
        let mut cross = f;
        for (c, n) in [(s, wl), (tc, hl)] {
            let u = self.float(FloatOp::F32Sub, c, onef, c);
            // The border mode keeps the raw index and says whether it is on the face.
            let a = self.sample_axis_off(u, n, border, linear, unnorm, None);
            let n1 = self.int(IntOp::Sub, Ty::B32, n, one);
            let clamp = |s: &mut Self, i: H| {
                let i = s.int(IntOp::MaxI, Ty::B32, i, z);
                s.int(IntOp::MinI, Ty::B32, i, n1)
            };
            let i0 = clamp(self, a.i0.0);
            let i1 = clamp(self, a.i1.0);
            let out0 = self.buf_select(a.i0.1, f, t);
            let out1 = self.buf_select(a.i1.1, f, t);
            let out1 = self.buf_select(linear, out1, f);
            cross = self.buf_or(cross, out0);
            cross = self.buf_or(cross, out1);
            axes.push(Axis {
                i0: (i0, t),
                i1: (i1, t),
                a: a.a,
            });
        }
        let ay = axes.pop().expect("v");
        let ax = axes.pop().expect("u");
        (ax, ay, cross)
    }

    /// A cube's slice from the face coordinate (D196): `z = RNE(face)`, layer `z >> 3`, face `z & 7`
    /// (6 and 7 refused at run time), the layer clamped to [0, cubes − 1], cubes = (DEPTH − BASE_ARRAY +
    /// 1) / 6; slice = BASE_ARRAY + 6·layer + face. Returns (the layout's slices DEPTH + 1, slice).
    pub(in crate::lift) fn cube_slice(&mut self, ts: &super::super::image::Tsharp, r: H) -> (H, H) {
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
        (layers, self.int(IntOp::Add, Ty::B32, s, ts.base_array))
    }
}
