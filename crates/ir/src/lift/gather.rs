//! Texel gathering (MIMG `image_gather4_lz`, `_l`, `_c_lz`, `_c_l` and their `_o` forms) on 2D and 2D array
//! images, decision D190, and on cube images without offsets (one face's footprint, D196; under seamless
//! filtering texels across an edge from the adjacent face and a corner the average of three, D198). A
//! child of lift/sample.rs (it shares D187's `floor`, `mod` and address-mode
//! helpers); the T# is decoded as for storage images (D183) and the S# as for sampling (D187).
//!
//! Gather returns one component (the single `dmask` bit) of the four texels of the bilinear footprint,
//! unfiltered, so the result is exact: no weights, only the footprint and the texel order. Per lane:
//! 1. Address VGPRs in the ISA's order: the packed offsets (`_o`), the reference value (`_c`), u, v, the
//!    slice (2D array), the LOD (`_l`).
//! 2. The level: D187 step 1 (LOD in 1/256 plus LOD_BIAS, clamped to [MIN_LOD, MAX_LOD]; MIP_FILTER none →
//!    BASE_LEVEL, point → nearest level, linear → refused between two levels). The filters (XY_MAG/MIN)
//!    are not read: a gather always takes the bilinear footprint.
//! 3. Per axis with the level's extent N: `s = RN(u × N)` (u when unnormalized), `i = floor(RN(s − ½)) +
//!    offset`, texels `i` and `i + 1`, each through the S#'s address mode (D187 step 3, border included).
//!    The offsets are the offset VGPR's signed 6-bit fields at bits 5:0 (u) and 13:8 (v); the slice field
//!    (21:16) does not apply to a 2D array's slice.
//! 4. The slice (2D arrays): D187's, the coordinate rounded to nearest even, clamped.
//! 5. Texels fetched and converted as storage-image loads (D183), DST_SEL applied, component `dmask`
//!    taken; a border texel gives BORDER_COLOR_TYPE's component (D187 step 4).
//! 6. `_c`: each texel's value `t` is replaced by 1.0 when `ref OP t` holds, else 0.0, with OP the S#'s
//!    DEPTH_COMPARE_FUNC (word 0 bits 14:12; 0 never, 1 less, 2 equal, 3 less-or-equal, 4 greater, 5 not
//!    equal, 6 greater-or-equal, 7 always, as RADV maps VkCompareOp) as IEEE f32 comparisons (a NaN on
//!    either side: only "not equal" and "always" hold); `ref` clamped to [0, 1] for UNORM formats, as
//!    sampling does (D191's rule, one helper: D194). Only dmask 0x1 and float or normalized formats.
//! 7. The four results to vdata..vdata+3 in the ISA's order: (i0, j1), (i1, j1), (i1, j0), (i0, j0).

use super::super::format::Typed;
use super::super::image::Dim;
use super::super::{LiftError, Lifter};
use super::SampledFormat;
use crate::{Handle, IntOp, Node, Ty, UnOp};

type H = Handle<Node>;

/// Which LOD a gather form takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(in crate::lift) enum GatherLod {
    /// `_lz`: LOD 0.
    Zero,
    /// `_l`: the last address VGPR.
    Explicit,
}

impl Lifter<'_> {
    /// One gather axis: coordinate `u` (f32), level extent `n`, address mode, `unorm` (B1), integer
    /// offset `off` (B32): the two texels (index, inside) after the address mode (D190 step 3).
    fn gather_axis(&mut self, u: H, n: H, mode: H, unnorm: H, off: H) -> [(H, H); 2] {
        let nf = self.un(UnOp::U32ToF32, Ty::B32, n);
        let s = self.float(crate::FloatOp::F32Mul, u, nf, u);
        let s = self.buf_select(unnorm, u, s);
        let half = self.c(Ty::B32, 0x3f00_0000);
        let sh = self.float(crate::FloatOp::F32Sub, s, half, s);
        let (i, _) = self.floor_i(sh);
        let i0 = self.int(IntOp::Add, Ty::B32, i, off);
        let one = self.c(Ty::B32, 1);
        let i1 = self.int(IntOp::Add, Ty::B32, i0, one);
        [
            self.address_mode(i0, n, mode),
            self.address_mode(i1, n, mode),
        ]
    }

    /// A signed 6-bit field of the offset VGPR at `shift`, as i32.
    fn offset_field(&mut self, v: H, shift: u64) -> H {
        let f = self.buf_field(v, shift, 0x3f);
        let k = self.c(Ty::B32, 26);
        let f = self.int(IntOp::Shl, Ty::B32, f, k);
        self.int(IntOp::AShr, Ty::B32, f, k)
    }

    /// `image_gather4{_c}{_lz,_l}{_o}` on 2D and 2D array images (D190).
    pub(in crate::lift) fn image_gather4(
        &mut self,
        lod_form: GatherLod,
        compare: bool,
        offset: bool,
    ) -> Result<(), LiftError> {
        let m = self.mimg_fields()?;
        let (dmask, unorm_bit, vdata) = (m.dmask, m.unorm, m.vdata);
        let dim = match Dim::of(m.dim_field) {
            Some(d @ (Dim::D2 | Dim::D2Array | Dim::Cube)) => d,
            _ => {
                return self.unsupported_mimg(
                    "gather is modelled for 2D, 2D array and cube images only (D190, D196): 1D, 3D and MSAA are not",
                )
            }
        };
        let cube = dim == Dim::Cube;
        if cube && offset {
            return self
                .unsupported_mimg("texel offsets (`_o`) on a cube image are not modelled (D196)");
        }
        if dmask.count_ones() != 1 {
            return self.unsupported_mimg(&format!(
                "a gather with dmask {dmask:#x}: a gather returns one component (one dmask bit, D190)"
            ));
        }
        if compare && dmask != 1 {
            return self.unsupported_mimg(&format!(
                "a compare gather with dmask {dmask:#x}: only the first component (0x1) is modelled (D190)"
            ));
        }
        let comp = dmask.trailing_zeros() as usize;
        let array = dim == Dim::D2Array;
        let naddr = offset as usize
            + compare as usize
            + dim.coords()
            + (lod_form == GatherLod::Explicit) as usize;
        let addr_regs = self.mimg_addr_regs(&m, naddr, 4)?;
        // Reads first: the T#, the S#, the address.
        let ts = self.tsharp(m.srsrc, dim);
        let sw: Vec<H> = (0..4).map(|i| self.read_s(m.ssamp + i, Ty::B32)).collect();
        let addr: Vec<H> = addr_regs
            .iter()
            .map(|&reg| self.n(Node::ReadVgpr { reg, ty: Ty::B32 }))
            .collect();
        let mut next = 0;
        let mut take = |n: bool| {
            let k = next;
            next += n as usize;
            n.then(|| addr[k])
        };
        let off_v = take(offset);
        let reference = take(compare);
        let u = take(true).expect("u");
        let v = take(true).expect("v");
        // The slice (2D array) or the face coordinate (cube, D196).
        let r = take(array || cube);
        let lod_v = take(lod_form == GatherLod::Explicit);
        let f = self.c(Ty::B1, 0);
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let smp = self.sampler_state(&sw, unorm_bit);
        // The level (D187 step 1; the filters are not read).
        let lod = match lod_v {
            Some(x) => self.lod_256(x),
            None => z,
        };
        let (_, level, level_ok) = self.lod_and_level(
            &smp,
            &ts,
            lod,
            smp.min_lod,
            "a gather between two mip levels (linear mip filtering at a fractional LOD): not modelled (D190)",
        );
        let SampledFormat {
            desc,
            is_int,
            border: border_all,
        } = self.sampled_format(&ts, dmask, smp.border);
        if compare {
            self.n(Node::Refuse {
                cond: is_int,
                reason: "a compare gather on a UINT/SINT format: not modelled (D190)",
            });
        }
        // The reference clamped to [0, 1] for UNORM formats: sampling's rule (D191, D194).
        let reference = reference.map(|r| self.compare_reference(r, desc.nf));
        // Offsets (D190 step 3).
        let (ou, ov) = match off_v {
            Some(x) => (self.offset_field(x, 0), self.offset_field(x, 8)),
            None => (z, z),
        };
        let wl = self.level_extent(ts.width, level);
        let hl = self.level_extent(ts.height, level);
        let size64 = self.un(UnOp::ZExt, Ty::B64, desc.size);
        let (layers, slice, face) = match r {
            Some(r) if cube => self.cube_slice(&ts, r),
            Some(r) => {
                let (layers, slice) = self.array_slice(&ts, r);
                (layers, slice, z)
            }
            None => (one, z, z),
        };
        // sites[r][c]: (x, y, slice, inside) of row r (j0, j1), column c (i0, i1).
        let (sites, blk) = if cube {
            // A cube face (D196): u = s − 1, v = t − 1, the footprint through the border mode (the raw
            // index), then D198's block: texels across an edge from the adjacent face under seamless
            // filtering, else clamped to the face.
            let onef = self.c(Ty::B32, 0x3f80_0000);
            let border = self.c(Ty::B32, 6);
            let t = self.c(Ty::B1, 1);
            let uf = self.float(crate::FloatOp::F32Sub, u, onef, u);
            let vf = self.float(crate::FloatOp::F32Sub, v, onef, v);
            let px = self.gather_axis(uf, wl, border, smp.unnorm, z);
            let py = self.gather_axis(vf, hl, border, smp.unnorm, z);
            let seamless = self.cube_seamless(sw[0], &ts);
            let blk = self.cube_block([px[0].0, py[0].0], [wl, hl], t, face, slice, seamless);
            (
                blk.at.map(|row| row.map(|(x, y, s)| (x, y, s, t))),
                Some(blk),
            )
        } else {
            let xs = self.gather_axis(u, wl, smp.clamp_x, smp.unnorm, ou);
            let ys = self.gather_axis(v, hl, smp.clamp_y, smp.unnorm, ov);
            let site = |r: usize, c: usize| {
                let ((x, ix), (y, iy)) = (xs[c], ys[r]);
                (x, y, slice, ix, iy)
            };
            let mut sites = [[(z, z, z, f); 2]; 2];
            for (r, row) in sites.iter_mut().enumerate() {
                for (c, st) in row.iter_mut().enumerate() {
                    let (x, y, sl, ix, iy) = site(r, c);
                    *st = (x, y, sl, self.buf_select(ix, iy, f));
                }
            }
            (sites, None)
        };
        // The border colour's component (D187 step 4).
        let border_c = border_all[comp];
        let off = self.level_offset(&ts, dim, level, size64, layers);
        let h64 = self.un(UnOp::ZExt, Ty::B64, hl);
        let w64 = self.un(UnOp::ZExt, Ty::B64, wl);
        let base = self.int(IntOp::Add, Ty::B64, ts.base, off);
        let not_refused = self.buf_select(desc.refused, f, level_ok);
        let t = Typed {
            store: false,
            d16: false,
            hi: false,
            n: 1,
        };
        // texel[j][i]: row j (0: i0 row, 1: i1 row), column i.
        let mut texel = [[z; 2]; 2];
        for (j, row) in sites.iter().enumerate() {
            for (i, &(x, y, sl, inside)) in row.iter().enumerate() {
                let ok = self.buf_select(inside, not_refused, f);
                let s64 = self.un(UnOp::ZExt, Ty::B64, sl);
                let slice_rows = self.int(IntOp::Mul, Ty::B64, s64, h64);
                let y64 = self.un(UnOp::ZExt, Ty::B64, y);
                let y64 = self.int(IntOp::Add, Ty::B64, y64, slice_rows);
                let x64 = self.un(UnOp::ZExt, Ty::B64, x);
                let t1 = self.int(IntOp::Mul, Ty::B64, y64, w64);
                let t1 = self.int(IntOp::Add, Ty::B64, t1, x64);
                let t1 = self.int(IntOp::Mul, Ty::B64, t1, size64);
                let a = self.int(IntOp::Add, Ty::B64, base, t1);
                let addrs: Vec<H> = (0..4u64)
                    .map(|k| {
                        let kc = self.c(Ty::B64, 4 * k);
                        self.int(IntOp::Add, Ty::B64, a, kc)
                    })
                    .collect();
                let vals = self.typed_load_values(t, &desc, &ts.sel, &[comp], &addrs, ok);
                let mut val = self.buf_select(inside, vals[0], border_c);
                if let Some(rf) = reference {
                    val = self.compare_value(smp.cmp_func, rf, val);
                }
                texel[j][i] = val;
            }
        }
        // A cube's corner texel (D198).
        if let Some(blk) = &blk {
            texel = self.cube_corner(blk, texel, is_int);
        }
        // The ISA's order: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
        for (k, val) in [texel[1][0], texel[1][1], texel[0][1], texel[0][0]]
            .into_iter()
            .enumerate()
        {
            self.write_v(vdata + k as u16, val);
        }
        Ok(())
    }
}
