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

use super::super::format::Typed;
use super::super::image::{Dim, MimgFields};
use super::super::{LiftError, Lifter};
use super::{Axis, Lod, SampleForm, SampledFormat};
use crate::{FloatOp, Handle, IntCmp, IntOp, Node, Ty, UnOp};

type H = Handle<Node>;

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
        let (l, level, level_ok) = self.lod_and_level(
            &smp,
            &ts,
            lod,
            min_lod,
            "linear mip filtering between two levels: not modelled (D187)",
        );
        let (linear, fmt) = self.sample_filter(&smp, &ts, l, dmask, form.compare);
        let SampledFormat {
            desc,
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
        let wl = self.level_extent(ts.width, level);
        let hl = self.level_extent(ts.height, level);
        let size64 = self.un(UnOp::ZExt, Ty::B64, desc.size);
        // Axes and the third index (w for 3-D, the slice for a cube).
        let (ax, ay, planes, layers) = if let Some(d) = depth {
            let dl = self.level_extent(d, level);
            let ax = self.sample_axis_off(addr[0], wl, smp.clamp_x, linear, smp.unnorm, offs[0]);
            let ay = self.sample_axis_off(addr[1], hl, smp.clamp_y, linear, smp.unnorm, offs[1]);
            let az = self.sample_axis_off(addr[2], dl, clamp_z, linear, smp.unnorm, offs[2]);
            (ax, ay, az, one)
        } else {
            let (ax, ay, cross) = self.cube_face_axes(addr[0], addr[1], wl, hl, linear, smp.unnorm);
            self.refuse_seamless_cross(wrap_off, cross);
            let (layers, slice) = self.cube_slice(&ts, addr[2]);
            let planes = Axis {
                i0: (slice, t),
                i1: (slice, t),
                a: z,
            };
            (ax, ay, planes, layers)
        };
        let off = self.level_offset(&ts, dim, level, size64, layers);
        let base = self.int(IntOp::Add, Ty::B64, ts.base, off);
        let not_refused = self.buf_select(desc.refused, f, level_ok);
        let tl = Typed {
            store: false,
            d16: false,
            hi: false,
            n: 4,
        };
        let cmp = if form.compare {
            Some((smp.cmp_func, self.compare_reference(all[k_cmp], desc.nf)))
        } else {
            None
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
                    let ok = self.buf_select(inside, not_refused, f);
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
                        self.typed_load_values(tl, &desc, &ts.sel, &[0, 1, 2, 3], &addrs, ok);
                    let vals: Vec<H> = (0..4)
                        .map(|c| self.buf_select(inside, vals[c], border_c[c]))
                        .collect();
                    let vals = match &cmp {
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
        let inv = self.c(Ty::B32, 0x3b80_0000);
        let c256 = self.c(Ty::B32, 256);
        let weights = |s: &mut Self, a: H| {
            let af = s.un(UnOp::U32ToF32, Ty::B32, a);
            let w1 = s.float(FloatOp::F32Mul, af, inv, af);
            let b = s.int(IntOp::Sub, Ty::B32, c256, a);
            let bf = s.un(UnOp::U32ToF32, Ty::B32, b);
            let w0 = s.float(FloatOp::F32Mul, bf, inv, bf);
            (w0, w1)
        };
        let (ax0, ax1) = weights(self, ax.a);
        let (ay0, ay1) = weights(self, ay.a);
        let (az0, az1) = weights(self, planes.a);
        let lerp = |s: &mut Self, p: H, q: H, w0: H, w1: H| {
            let x = s.float(FloatOp::F32Mul, p, w0, p);
            let y = s.float(FloatOp::F32Mul, q, w1, q);
            s.float(FloatOp::F32Add, x, y, x)
        };
        for (reg, c) in (vdata..).zip((0..4usize).filter(|c| dmask >> c & 1 != 0)) {
            let mut r = Vec::new();
            for plane in &texels {
                let r0 = lerp(self, plane[0][0][c], plane[0][1][c], ax0, ax1);
                let r1 = lerp(self, plane[1][0][c], plane[1][1][c], ax0, ax1);
                r.push(lerp(self, r0, r1, ay0, ay1));
            }
            let v = if cube {
                r[0]
            } else {
                lerp(self, r[0], r[1], az0, az1)
            };
            let v = self.buf_select(linear, v, texels[0][0][0][c]);
            self.write_v(reg, v);
        }
        Ok(())
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
