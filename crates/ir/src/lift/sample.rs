//! Image sampling (MIMG `image_sample_lz`, `image_sample_l`) on 1D, 2D, 1D array and 2D array images, decision D187 (1D arrays: D194; 3D and cube
//! images: lift/sample_vol.rs, D196). The T# is decoded
//! as for storage images (D183, lift/image.rs) and the sampler (S#, four SGPRs) at run time too; texels are
//! fetched with the storage-image addressing and conversions, and filtered by D187's model, a composition of
//! existing IR nodes (integer arithmetic, f32 add/mul/div and conversions), so the evaluator and every
//! lowering compute the same bits (D025).
//!
//! S# (RDNA 2, gfx10.3), the fields read:
//! - word 0: CLAMP_X (2:0), CLAMP_Y (5:3), FORCE_UNNORMALIZED (15);
//! - word 1: MIN_LOD (11:0), MAX_LOD (23:12), unsigned 4.8 fixed point;
//! - word 2: LOD_BIAS (13:0, signed 5.8 fixed point), XY_MAG_FILTER (21:20), XY_MIN_FILTER (23:22),
//!   MIP_FILTER (27:26);
//! - word 3: BORDER_COLOR_TYPE (31:30).
//!
//! The model (D187), per lane:
//! 1. LOD: `L = floor(RN(lod × 256))` (lod 0 for `_lz`; the f32 clamped to ±2^24 first, NaN → 0), plus
//!    LOD_BIAS, clamped to [MIN_LOD, MAX_LOD] (integers in 1/256). Filter: XY_MIN_FILTER when L > 0, else
//!    XY_MAG_FILTER (0 point, 1 bilinear; aniso refused). Level `d`: MIP_FILTER 0 → 0; 1 (point) →
//!    `(L + 128) >> 8`; 2 (linear) → `L >> 8` and, when `L` has a fraction and a next level exists, the
//!    next level too (D195); `d` at most LAST_LEVEL − BASE_LEVEL; the level is BASE_LEVEL + d.
//! 2. Per axis, extent N of the level: `s = RN(u × N)` (u itself when unnormalized). Point: `i = floor(s)`.
//!    Bilinear: `s' = RN(s − ½)`, `i = floor(s')`, `a = trunc((s' − i) × 256)` (8-bit sub-texel fraction),
//!    texels i and i + 1. `floor` clamps its f32 to ±2^24 first (NaN → 0).
//! 3. Address modes on the integer index: 0 wrap (`i mod N`), 1 mirror (`m = i mod 2N`, `2N − 1 − m` when
//!    m ≥ N), 2 clamp to the last texel, 3 mirror once (`−1 − i` for i < 0, then clamped), 6 border (outside
//!    [0, N): the border colour); 4, 5, 7 (half-border forms) refused.
//! 4. Texels converted as storage-image loads (D183), DST_SEL applied; a border texel is BORDER_COLOR_TYPE's
//!    colour (0 transparent black, 1 opaque black, 2 opaque white; 3, a register colour, refused) with 1.0
//!    (1 for UINT/SINT formats).
//! 5. Bilinear, per component, with `α = a/256`, `β = b/256`: `r0 = RN(RN(t00·(1−α)) + RN(t10·α))`,
//!    `r1` likewise on the second row, result `RN(RN(r0·(1−β)) + RN(r1·β))` (1D: `r0`); refused for
//!    UINT/SINT.
//! 6. Linear mip filtering (D195): steps 2–5 run per level (`sample_level`, emitted for both levels, the
//!    second's loads only in the lanes that blend); with `f = L & 255` the result is
//!    `RN(RN(r0·(256 − f)/256) + RN(r1·f/256))`, or the first level's result unchanged when the levels do
//!    not blend; refused for UINT/SINT.

use super::format::{Nfmt, Typed};
use super::image::Dim;
use super::{LiftError, Lifter};
use crate::{FloatCmp, FloatOp, Handle, IntCmp, IntOp, Node, Ty, UnOp};

// Gather (D190) shares this module's floor, mod and address-mode helpers.
#[path = "gather.rs"]
mod gather;
pub(super) use gather::GatherLod;
// 3-D and cube sampling (D196) likewise.
#[path = "sample_vol.rs"]
mod sample_vol;

type H = Handle<Node>;

const TWO24: u64 = 0x4b80_0000; // 2^24 as f32
const NEG_TWO24: u64 = 0xcb80_0000;

/// Where a sample's LOD comes from (D187, D191).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Lod {
    /// `_lz`: LOD 0.
    #[default]
    Zero,
    /// `_l`: the last address VGPR.
    Explicit,
    /// `_d`: explicit gradients, 32-bit or (`_g16`) 16-bit.
    Grad { g16: bool },
}

/// The options of one `image_sample*` opcode, read from its name (D191).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct SampleForm {
    pub(super) lod: Lod,
    /// `_c`: a depth-compare reference.
    pub(super) compare: bool,
    /// `_o`: packed texel offsets.
    pub(super) offset: bool,
    /// `_cl`: a LOD clamp (a lower bound).
    pub(super) clamp: bool,
}

impl SampleForm {
    /// The form of `image_sample…`: `_c`, `_d`, `_l`, `_lz`, `_cl`, `_o`, `_g16`; the implicit-derivative,
    /// bias and coarse-derivative forms are refused with the reason.
    pub(super) fn of(name: &str) -> Result<SampleForm, &'static str> {
        let rest = name
            .strip_prefix("image_sample")
            .ok_or("not a sampling instruction")?;
        let mut f = SampleForm::default();
        let (mut lod, mut grad, mut g16) = (None, false, false);
        for t in rest.split('_').filter(|t| !t.is_empty()) {
            match t {
                "c" => f.compare = true,
                "o" => f.offset = true,
                "cl" => f.clamp = true,
                "lz" => lod = Some(Lod::Zero),
                "l" => lod = Some(Lod::Explicit),
                "d" => grad = true,
                "g16" => g16 = true,
                "b" => return Err("LOD bias operands (`_b`) are not modelled: they need implicit derivatives (D191)"),
                "cd" => return Err("coarse (per-quad) derivatives (`_cd`) are not modelled: which lane's gradients give a quad's LOD is not documented (D191)"),
                _ => return Err("an unknown sampling form (D191)"),
            }
        }
        f.lod = match (lod, grad) {
            (Some(l), false) => l,
            (None, true) => Lod::Grad { g16 },
            _ => {
                return Err(
                    "implicit derivatives (a compute derivative group) are not modelled: only the `_lz`, `_l` and `_d` forms are (D187, D191)",
                )
            }
        };
        Ok(f)
    }
}

/// `T[j]` (1 ≤ j < 128): the mantissa field of the smallest f32 at or above `2^(j/128)`, so that for an
/// f32 `m` in [1, 2), `m ≥ 2^(j/128)` exactly when its mantissa field is at least `T[j]` (`2^(j/128)` is
/// irrational). Computed with exact integer arithmetic (`(2^23 + T)^128 ≥ 2^(j + 23·128)`), checked by
/// `log2_thresholds_are_exact` below (D191).
const LOG2_THRESHOLDS: [u32; 127] = [
    0x00b1ee, 0x0164d2, 0x0218b0, 0x02cd87, 0x03835a, 0x043a29, 0x04f1f7, 0x05aac4, 0x066492,
    0x071f62, 0x07db36, 0x08980f, 0x0955ef, 0x0a14d6, 0x0ad4c7, 0x0b95c2, 0x0c57ca, 0x0d1ae0,
    0x0ddf05, 0x0ea43a, 0x0f6a82, 0x1031dd, 0x10fa4d, 0x11c3d4, 0x128e73, 0x135a2c, 0x142700,
    0x14f4f0, 0x15c3ff, 0x16942e, 0x17657e, 0x1837f1, 0x190b88, 0x19e046, 0x1ab62b, 0x1b8d3a,
    0x1c6574, 0x1d3eda, 0x1e196f, 0x1ef533, 0x1fd229, 0x20b052, 0x218faf, 0x227044, 0x235210,
    0x243516, 0x251958, 0x25fed7, 0x26e595, 0x27cd94, 0x28b6d6, 0x29a15b, 0x2a8d27, 0x2b7a3a,
    0x2c6897, 0x2d583f, 0x2e4935, 0x2f3b79, 0x302f0e, 0x3123f6, 0x321a32, 0x3311c5, 0x340aaf,
    0x3504f4, 0x360094, 0x36fd92, 0x37fbf0, 0x38fbb0, 0x39fcd3, 0x3aff5b, 0x3c034b, 0x3d08a4,
    0x3e0f69, 0x3f179a, 0x40213b, 0x412c4d, 0x4238d3, 0x4346cd, 0x44563f, 0x45672b, 0x467991,
    0x478d75, 0x48a2d9, 0x49b9be, 0x4ad227, 0x4bec15, 0x4d078c, 0x4e248d, 0x4f4319, 0x506334,
    0x5184e0, 0x52a81e, 0x53ccf1, 0x54f35b, 0x561b5e, 0x5744fd, 0x58703a, 0x599d16, 0x5acb95,
    0x5bfbb8, 0x5d2d82, 0x5e60f5, 0x5f9613, 0x60ccdf, 0x62055b, 0x633f8a, 0x647b6d, 0x65b907,
    0x66f85b, 0x68396b, 0x697c39, 0x6ac0c7, 0x6c0719, 0x6d4f31, 0x6e9910, 0x6fe4ba, 0x713231,
    0x728178, 0x73d290, 0x75257e, 0x767a42, 0x77d0e0, 0x79295a, 0x7a83b3, 0x7bdfee, 0x7d3e0d,
    0x7e9e12,
];

/// The S# fields D187, D190 and D191 read (word 0 CLAMP_X, CLAMP_Y, DEPTH_COMPARE_FUNC,
/// FORCE_UNNORMALIZED ORed with the instruction's `unorm` bit; word 1 MIN_LOD, MAX_LOD; word 2 LOD_BIAS
/// sign-extended, XY_MAG_FILTER, XY_MIN_FILTER, MIP_FILTER; word 3 BORDER_COLOR_TYPE), B32 each but
/// `unnorm` (B1). The one decoding of sampling and gathering (D194).
struct SamplerState {
    clamp_x: H,
    clamp_y: H,
    cmp_func: H,
    unnorm: H,
    min_lod: H,
    max_lod: H,
    bias: H,
    mag: H,
    minf: H,
    mip: H,
    border: H,
}

/// What a sample or gather reads of the image once its level is known: the format descriptor (refused
/// formats folded into `desc.refused`), whether it is UINT/SINT, and the border colour (D187 step 4).
struct SampledFormat {
    desc: super::format::Desc,
    is_int: H,
    border: [H; 4],
}

/// The levels a sample reads (D187 step 1, D195).
struct MipLevels {
    /// The LOD in 1/256 after LOD_BIAS and the clamps.
    l: H,
    /// The (first) level: BASE_LEVEL + d.
    level: H,
    /// `L & 255` (B32): the second level's weight in 1/256 (D195).
    frac: H,
    /// MIP_FILTER linear and `L` has a fraction (B1).
    fractional: H,
    /// BASE_LEVEL ≤ LAST_LEVEL (B1).
    level_ok: H,
    /// `L >> 8` and LAST_LEVEL − BASE_LEVEL (B32), for [`Lifter::second_level`].
    d_lin: H,
    span: H,
}

/// What one level's footprint reads, the same for both levels of a linear mip filter (D195).
struct Footprint<'a> {
    ts: &'a super::image::Tsharp,
    dim: Dim,
    desc: &'a super::format::Desc,
    /// The border colour (D187 step 4).
    border: [H; 4],
    /// u, and v (2-D) — u again for 1-D.
    coords: [H; 2],
    /// CLAMP_X, CLAMP_Y.
    modes: [H; 2],
    /// The texel offsets (D191), x and y.
    offsets: [Option<H>; 2],
    linear: H,
    unnorm: H,
    /// Element bytes (B64).
    size64: H,
    /// The slice (D183, D187).
    slice: H,
    /// The compare function and the clamped reference (D191).
    cmp: Option<(H, H)>,
    dmask: u32,
}

/// One axis's texel indices and weights.
struct Axis {
    /// First texel (after the address mode) and whether it is inside the image.
    i0: (H, H),
    /// Second texel (bilinear).
    i1: (H, H),
    /// The 8-bit sub-texel fraction (0 for point sampling), B32.
    a: H,
}

impl Lifter<'_> {
    /// `floor(x)` as i32 of f32 `x` clamped to ±2^24 first (NaN → 0), and the clamped value.
    fn floor_i(&mut self, x: H) -> (H, H) {
        let hi = self.c(Ty::B32, TWO24);
        let lo = self.c(Ty::B32, NEG_TWO24);
        let over = self.fcmp(FloatCmp::Gt, x, hi);
        let under = self.fcmp(FloatCmp::Lt, x, lo);
        let x = self.buf_select(over, hi, x);
        let x = self.buf_select(under, lo, x);
        let t = self.un(UnOp::F32ToI32, Ty::B32, x);
        let tf = self.un(UnOp::I32ToF32, Ty::B32, t);
        let above = self.fcmp(FloatCmp::Gt, tf, x);
        let one = self.c(Ty::B32, 1);
        let tm = self.int(IntOp::Sub, Ty::B32, t, one);
        (self.buf_select(above, tm, t), x)
    }

    /// `i mod m` (result in [0, m)) for |i| ≤ 2^24 + 1 and 0 < m ≤ 2^15: the quotient from one f32 division,
    /// then one correction each way.
    fn mod_i(&mut self, i: H, m: H) -> H {
        let fi = self.un(UnOp::I32ToF32, Ty::B32, i);
        let fm = self.un(UnOp::U32ToF32, Ty::B32, m);
        let q = self.float(FloatOp::F32Div, fi, fm, fi);
        let (q, _) = self.floor_i(q);
        let qm = self.int(IntOp::Mul, Ty::B32, q, m);
        let r = self.int(IntOp::Sub, Ty::B32, i, qm);
        let z = self.c(Ty::B32, 0);
        let neg = self.icmp(IntCmp::LtI, Ty::B32, r, z);
        let rp = self.int(IntOp::Add, Ty::B32, r, m);
        let r = self.buf_select(neg, rp, r);
        let big = self.icmp(IntCmp::GeI, Ty::B32, r, m);
        let rm = self.int(IntOp::Sub, Ty::B32, r, m);
        self.buf_select(big, rm, r)
    }

    /// The address mode `mode` (B32, 3 bits) on index `i` of an axis of `n` texels: (index, inside).
    fn address_mode(&mut self, i: H, n: H, mode: H) -> (H, H) {
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let t = self.c(Ty::B1, 1);
        let n1 = self.int(IntOp::Sub, Ty::B32, n, one);
        let wrap = self.mod_i(i, n);
        let n2 = self.int(IntOp::Add, Ty::B32, n, n);
        let m = self.mod_i(i, n2);
        let hi = self.icmp(IntCmp::GeI, Ty::B32, m, n);
        let n2m = self.int(IntOp::Sub, Ty::B32, n2, one);
        let refl = self.int(IntOp::Sub, Ty::B32, n2m, m);
        let mirror = self.buf_select(hi, refl, m);
        let c0 = self.int(IntOp::MaxI, Ty::B32, i, z);
        let clamp = self.int(IntOp::MinI, Ty::B32, c0, n1);
        let neg = self.icmp(IntCmp::LtI, Ty::B32, i, z);
        let mone = self.c(Ty::B32, 0xffff_ffff);
        let flip = self.int(IntOp::Sub, Ty::B32, mone, i);
        let j = self.buf_select(neg, flip, i);
        let once = self.int(IntOp::MinI, Ty::B32, j, n1);
        let inside = self.icmp(IntCmp::LtU, Ty::B32, i, n);
        let is = |s: &mut Self, k: u64| {
            let kc = s.c(Ty::B32, k);
            s.icmp(IntCmp::Eq, Ty::B32, mode, kc)
        };
        let m0 = is(self, 0);
        let m1 = is(self, 1);
        let m3 = is(self, 3);
        let m6 = is(self, 6);
        let mut idx = clamp;
        idx = self.buf_select(m0, wrap, idx);
        idx = self.buf_select(m1, mirror, idx);
        idx = self.buf_select(m3, once, idx);
        idx = self.buf_select(m6, i, idx);
        let ins = self.buf_select(m6, inside, t);
        (idx, ins)
    }

    /// `x` (f32) rounded to the nearest integer, ties to even, as i32 (clamped to ±2^24 first, NaN → 0):
    /// `floor` and the exact fraction decide.
    fn round_even_i(&mut self, x: H) -> H {
        let (fl, xc) = self.floor_i(x);
        let flf = self.un(UnOp::I32ToF32, Ty::B32, fl);
        let frac = self.float(FloatOp::F32Sub, xc, flf, xc);
        let half = self.c(Ty::B32, 0x3f00_0000);
        let gt = self.fcmp(FloatCmp::Gt, frac, half);
        let eq = self.fcmp(FloatCmp::Eq, frac, half);
        let one = self.c(Ty::B32, 1);
        let lsb = self.int(IntOp::And, Ty::B32, fl, one);
        let odd = self.nonzero(Ty::B32, lsb);
        let f = self.c(Ty::B1, 0);
        let tie = self.buf_select(eq, odd, f);
        let up = self.buf_or(gt, tie);
        let z = self.c(Ty::B32, 0);
        let inc = self.buf_select(up, one, z);
        self.int(IntOp::Add, Ty::B32, fl, inc)
    }

    /// One axis: coordinate `u` (f32), level extent `n`, address mode, `linear` and `unnorm` (B1). (The
    /// sampling forms now call [`Self::sample_axis_off`]; this offset-free form stays for other callers
    /// of the footprint, such as gather.)
    #[allow(dead_code)]
    fn sample_axis(&mut self, u: H, n: H, mode: H, linear: H, unnorm: H) -> Axis {
        self.sample_axis_off(u, n, mode, linear, unnorm, None)
    }

    /// [`Self::sample_axis`] with a texel offset (i32, D191) added to the first texel's index before the
    /// address mode.
    fn sample_axis_off(
        &mut self,
        u: H,
        n: H,
        mode: H,
        linear: H,
        unnorm: H,
        off: Option<H>,
    ) -> Axis {
        let nf = self.un(UnOp::U32ToF32, Ty::B32, n);
        let s = self.float(FloatOp::F32Mul, u, nf, u);
        let s = self.buf_select(unnorm, u, s);
        let (ip, _) = self.floor_i(s);
        let half = self.c(Ty::B32, 0x3f00_0000);
        let sh = self.float(FloatOp::F32Sub, s, half, s);
        let (il, shc) = self.floor_i(sh);
        let ilf = self.un(UnOp::I32ToF32, Ty::B32, il);
        let frac = self.float(FloatOp::F32Sub, shc, ilf, shc);
        let k256 = self.c(Ty::B32, 0x4380_0000);
        let fr = self.float(FloatOp::F32Mul, frac, k256, frac);
        let a = self.un(UnOp::F32ToU32, Ty::B32, fr);
        let z = self.c(Ty::B32, 0);
        let a = self.buf_select(linear, a, z);
        let i0 = self.buf_select(linear, il, ip);
        let i0 = match off {
            Some(o) => self.int(IntOp::Add, Ty::B32, i0, o),
            None => i0,
        };
        let one = self.c(Ty::B32, 1);
        let i1 = self.int(IntOp::Add, Ty::B32, i0, one);
        let i0 = self.address_mode(i0, n, mode);
        let i1 = self.address_mode(i1, n, mode);
        Axis { i0, i1, a }
    }

    /// The gradients as f32 (du/dx, dv/dx, du/dy, dv/dy; 1D: du/dx, du/dy): `_g16` holds one f16 per
    /// axis in each half of one VGPR per direction (converted exactly).
    fn gradients(&mut self, regs: &[H], g16: bool, d2: bool) -> Vec<H> {
        if !g16 {
            return regs.to_vec();
        }
        let mut g = Vec::new();
        for &r in regs {
            let lo = self.un(UnOp::Trunc, Ty::B16, r);
            g.push(self.un(UnOp::F16ToF32, Ty::B32, lo));
            if d2 {
                let c16 = self.c(Ty::B32, 16);
                let hi = self.int(IntOp::LShr, Ty::B32, r, c16);
                let hi = self.un(UnOp::Trunc, Ty::B16, hi);
                g.push(self.un(UnOp::F16ToF32, Ty::B32, hi));
            }
        }
        g
    }

    /// D191's LOD from gradients, in 1/256: per direction `q = RN(RN(RN(du·W)²) + RN(RN(dv·H)²))` (1D:
    /// `RN(RN(du·W)²)`; W, H the extents of BASE_LEVEL, 1 when unnormalized), `q` the larger of the two
    /// (the first when the second is not larger, so a NaN there is ignored), saturated to [2^−64, 2^64]
    /// (NaN → 2^−64), then `L = floor(128·log2 q)` exactly: 128·(exponent) + the number of thresholds
    /// `2^(j/128)` the mantissa reaches. `floor(256·log2 √q) = floor(128·log2 q)`, so no square root.
    fn gradient_lod(&mut self, g: &[H], w: H, h: Option<H>, unnorm: H) -> H {
        let onef = self.c(Ty::B32, 0x3f80_0000);
        let scale = |s: &mut Self, n: H| {
            let nf = s.un(UnOp::U32ToF32, Ty::B32, n);
            s.buf_select(unnorm, onef, nf)
        };
        let wf = scale(self, w);
        let sq = |s: &mut Self, x: H, n: H| {
            let a = s.float(FloatOp::F32Mul, x, n, x);
            s.float(FloatOp::F32Mul, a, a, a)
        };
        let (qx, qy) = match h {
            Some(h) => {
                let hf = scale(self, h);
                let (a, b) = (sq(self, g[0], wf), sq(self, g[1], hf));
                let qx = self.float(FloatOp::F32Add, a, b, a);
                let (a, b) = (sq(self, g[2], wf), sq(self, g[3], hf));
                let qy = self.float(FloatOp::F32Add, a, b, a);
                (qx, qy)
            }
            None => (sq(self, g[0], wf), sq(self, g[1], wf)),
        };
        self.gradient_lod_of(qx, qy)
    }

    /// D191's LOD from the two directions' squared scaled gradient lengths `qx`, `qy` (see
    /// [`Self::gradient_lod`]; 3-D images add a third term, D196).
    fn gradient_lod_of(&mut self, qx: H, qy: H) -> H {
        let larger = self.fcmp(FloatCmp::Gt, qy, qx);
        let q = self.buf_select(larger, qy, qx);
        let lo = self.c(Ty::B32, 0x1f80_0000); // 2^-64
        let hi = self.c(Ty::B32, 0x5f80_0000); // 2^64
        let ok = self.fcmp(FloatCmp::Ge, q, lo);
        let q = self.buf_select(ok, q, lo);
        let over = self.fcmp(FloatCmp::Gt, q, hi);
        let q = self.buf_select(over, hi, q);
        let c23 = self.c(Ty::B32, 23);
        let e = self.int(IntOp::LShr, Ty::B32, q, c23);
        let bias = self.c(Ty::B32, 127);
        let e = self.int(IntOp::Sub, Ty::B32, e, bias);
        let c7 = self.c(Ty::B32, 7);
        let e = self.int(IntOp::Shl, Ty::B32, e, c7);
        let mant = self.buf_field(q, 0, 0x7f_ffff);
        let k = self.log2_steps(mant, 0, 128);
        self.int(IntOp::Add, Ty::B32, e, k)
    }

    /// The number of `LOG2_THRESHOLDS[j − 1]` (lo < j < hi) that `mant` reaches, plus `lo`, for a mantissa
    /// known to reach threshold `lo` and not `hi`: a tree of selects.
    fn log2_steps(&mut self, mant: H, lo: usize, hi: usize) -> H {
        if hi - lo == 1 {
            return self.c(Ty::B32, lo as u64);
        }
        let mid = (lo + hi) / 2;
        let t = self.c(Ty::B32, LOG2_THRESHOLDS[mid - 1] as u64);
        let ge = self.icmp(IntCmp::GeU, Ty::B32, mant, t);
        let up = self.log2_steps(mant, mid, hi);
        let down = self.log2_steps(mant, lo, mid);
        self.buf_select(ge, up, down)
    }

    /// The S#'s DEPTH_COMPARE_FUNC (0 never, 1 less, 2 equal, 3 less-or-equal, 4 greater, 5 not equal,
    /// 6 greater-or-equal, 7 always) as `reference OP texel`, IEEE comparisons (NaN: only "not equal" and
    /// "always" pass), B1. The one compare of sampling (D191) and gathering (D190, amended by D194).
    fn compare_passes(&mut self, func: H, r: H, t: H) -> H {
        let mut pass = self.c(Ty::B1, 0);
        for (k, op) in [
            (1u64, FloatCmp::Lt),
            (2, FloatCmp::Eq),
            (3, FloatCmp::Le),
            (4, FloatCmp::Gt),
            (5, FloatCmp::Neq),
            (6, FloatCmp::Ge),
            (7, FloatCmp::Tru),
        ] {
            let kc = self.c(Ty::B32, k);
            let is = self.icmp(IntCmp::Eq, Ty::B32, func, kc);
            let p = self.fcmp(op, r, t);
            pass = self.buf_select(is, p, pass);
        }
        pass
    }

    /// The S# of four SGPR values, decoded (D194), with D187's run-time refusals of the half-border
    /// address modes and the register border colour.
    fn sampler_state(&mut self, sw: &[H], unorm_bit: u32) -> SamplerState {
        let clamp_x = self.buf_field(sw[0], 0, 7);
        let clamp_y = self.buf_field(sw[0], 3, 7);
        let cmp_func = self.buf_field(sw[0], 12, 7);
        let force_un = self.buf_field(sw[0], 15, 1);
        let unorm_k = self.c(Ty::B32, unorm_bit as u64);
        let un = self.int(IntOp::Or, Ty::B32, force_un, unorm_k);
        let unnorm = self.nonzero(Ty::B32, un);
        let min_lod = self.buf_field(sw[1], 0, 0xfff);
        let max_lod = self.buf_field(sw[1], 12, 0xfff);
        let bias = self.buf_field(sw[2], 0, 0x3fff);
        let c18 = self.c(Ty::B32, 18);
        let bias = self.int(IntOp::Shl, Ty::B32, bias, c18);
        let bias = self.int(IntOp::AShr, Ty::B32, bias, c18);
        let mag = self.buf_field(sw[2], 20, 3);
        let minf = self.buf_field(sw[2], 22, 3);
        let mip = self.buf_field(sw[2], 26, 3);
        let border = self.buf_field(sw[3], 30, 3);
        let mut bad = self.c(Ty::B1, 0);
        for m in [clamp_x, clamp_y] {
            for k in [4u64, 5, 7] {
                let kc = self.c(Ty::B32, k);
                let e = self.icmp(IntCmp::Eq, Ty::B32, m, kc);
                bad = self.buf_or(bad, e);
            }
        }
        self.n(Node::Refuse {
            cond: bad,
            reason: "the S#'s address mode is a half-border or mirror-once-border form: not modelled (D187)",
        });
        let three = self.c(Ty::B32, 3);
        let reg_border = self.icmp(IntCmp::Eq, Ty::B32, border, three);
        self.n(Node::Refuse {
            cond: reg_border,
            reason: "the S#'s border colour is a register colour: not modelled (D187)",
        });
        SamplerState {
            clamp_x,
            clamp_y,
            cmp_func,
            unnorm,
            min_lod,
            max_lod,
            bias,
            mag,
            minf,
            mip,
            border,
        }
    }

    /// An f32 LOD operand in 1/256: `floor(RN(x × 256))` (D187 step 1).
    fn lod_256(&mut self, x: H) -> H {
        let k256 = self.c(Ty::B32, 0x4380_0000);
        let l = self.float(FloatOp::F32Mul, x, k256, x);
        self.floor_i(l).0
    }

    /// D187 step 1 from a LOD in 1/256, for gathering: [`Self::mip_levels`]' first level, refused with
    /// `between` when MIP_FILTER is linear and `L` has a fraction. Returns (L, level, BASE ≤ LAST).
    fn lod_and_level(
        &mut self,
        s: &SamplerState,
        ts: &super::image::Tsharp,
        lod: H,
        min_lod: H,
        between: &'static str,
    ) -> (H, H, H) {
        let m = self.mip_levels(s, ts, lod, min_lod);
        self.n(Node::Refuse {
            cond: m.fractional,
            reason: between,
        });
        (m.l, m.level, m.level_ok)
    }

    /// D187 step 1 and D195 from a LOD in 1/256: plus LOD_BIAS, clamped to [`min_lod`, MAX_LOD] (MAX
    /// wins), then the level: MIP_FILTER none → BASE_LEVEL, point → `(L + 128) >> 8`, linear → `L >> 8`
    /// (D195: [`Self::second_level`] gives the next one), at most LAST_LEVEL − BASE_LEVEL above BASE_LEVEL.
    fn mip_levels(
        &mut self,
        s: &SamplerState,
        ts: &super::image::Tsharp,
        lod: H,
        min_lod: H,
    ) -> MipLevels {
        let l = self.int(IntOp::Add, Ty::B32, lod, s.bias);
        let l = self.int(IntOp::MaxI, Ty::B32, l, min_lod);
        let l = self.int(IntOp::MinI, Ty::B32, l, s.max_lod);
        let (z, one, two) = (self.c(Ty::B32, 0), self.c(Ty::B32, 1), self.c(Ty::B32, 2));
        let f = self.c(Ty::B1, 0);
        let c128 = self.c(Ty::B32, 128);
        let c8 = self.c(Ty::B32, 8);
        let lr = self.int(IntOp::Add, Ty::B32, l, c128);
        let d_point = self.int(IntOp::LShr, Ty::B32, lr, c8);
        let d_lin = self.int(IntOp::LShr, Ty::B32, l, c8);
        let m255 = self.c(Ty::B32, 255);
        let frac = self.int(IntOp::And, Ty::B32, l, m255);
        let has_frac = self.nonzero(Ty::B32, frac);
        let mip_lin = self.icmp(IntCmp::Eq, Ty::B32, s.mip, two);
        let mip_pt = self.icmp(IntCmp::Eq, Ty::B32, s.mip, one);
        let fractional = self.buf_select(mip_lin, has_frac, f);
        let d = self.buf_select(mip_pt, d_point, z);
        let d = self.buf_select(mip_lin, d_lin, d);
        let span = self.int(IntOp::Sub, Ty::B32, ts.last_level, ts.base_level);
        let d = self.int(IntOp::MinU, Ty::B32, d, span);
        let level = self.int(IntOp::Add, Ty::B32, ts.base_level, d);
        let level_ok = self.icmp(IntCmp::LeU, Ty::B32, ts.base_level, ts.last_level);
        MipLevels {
            l,
            level,
            frac,
            fractional,
            level_ok,
            d_lin,
            span,
        }
    }

    /// The second level of a linear mip filter (D195): (`level + 1`, or `level` when the two do not
    /// blend; whether they blend: `L` has a fraction, `L >> 8` is below LAST_LEVEL − BASE_LEVEL and
    /// BASE ≤ LAST).
    fn second_level(&mut self, m: &MipLevels) -> (H, H) {
        let f = self.c(Ty::B1, 0);
        let one = self.c(Ty::B32, 1);
        let below = self.icmp(IntCmp::LtU, Ty::B32, m.d_lin, m.span);
        let blend = self.buf_select(m.fractional, below, f);
        let blend = self.buf_select(m.level_ok, blend, f);
        let next = self.int(IntOp::Add, Ty::B32, m.level, one);
        (self.buf_select(blend, next, m.level), blend)
    }

    /// The T#'s format for sampling or gathering (D183's run-time descriptor, FORMAT above 127 refused)
    /// and the S#'s border colour in it (D187 step 4: 0 transparent black, 1 opaque black, 2 opaque
    /// white; 1.0, or 1 for UINT/SINT formats).
    fn sampled_format(
        &mut self,
        ts: &super::image::Tsharp,
        dmask: u32,
        border: H,
    ) -> SampledFormat {
        let fmt7 = self.buf_field(ts.fmt, 0, 0x7f);
        let c127 = self.c(Ty::B32, 127);
        let wide = self.icmp(IntCmp::GtU, Ty::B32, ts.fmt, c127);
        self.n(Node::Refuse {
            cond: wide,
            reason: "the T#'s FORMAT is invalid or not modelled (0, or above 77: compressed and depth formats; D183)",
        });
        let mut desc = self.runtime_desc(fmt7, |x| {
            super::image::image_format_refusal(x, false, dmask)
        });
        desc.refused = self.buf_or(desc.refused, wide);
        let is_u = self.is_nf(desc.nf, Nfmt::Uint);
        let is_s = self.is_nf(desc.nf, Nfmt::Sint);
        let is_int = self.buf_or(is_u, is_s);
        let (z, one, two) = (self.c(Ty::B32, 0), self.c(Ty::B32, 1), self.c(Ty::B32, 2));
        let onef = self.c(Ty::B32, 0x3f80_0000);
        let one_v = self.buf_select(is_int, one, onef);
        let b1 = self.icmp(IntCmp::Eq, Ty::B32, border, one);
        let b2 = self.icmp(IntCmp::Eq, Ty::B32, border, two);
        let rgb = self.buf_select(b2, one_v, z);
        let alpha_b = self.buf_or(b1, b2);
        let alpha = self.buf_select(alpha_b, one_v, z);
        SampledFormat {
            desc,
            is_int,
            border: [rgb, rgb, rgb, alpha],
        }
    }

    /// The slice of a 2D array (D187): the coordinate rounded to the nearest integer, ties to even,
    /// clamped to [0, DEPTH − BASE_ARRAY], plus BASE_ARRAY; with the layout's DEPTH + 1 slices per level
    /// (D183). Returns (layers, slice).
    fn array_slice(&mut self, ts: &super::image::Tsharp, r: H) -> (H, H) {
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let layers = self.int(IntOp::Add, Ty::B32, ts.depth, one);
        let r = self.round_even_i(r);
        let room = self.int(IntOp::Sub, Ty::B32, ts.depth, ts.base_array);
        let room = self.int(IntOp::MaxI, Ty::B32, room, z);
        let r = self.int(IntOp::MaxI, Ty::B32, r, z);
        let r = self.int(IntOp::MinI, Ty::B32, r, room);
        (layers, self.int(IntOp::Add, Ty::B32, r, ts.base_array))
    }

    /// The compare reference (D191 point 4, the one rule of sampling and gathering, D194): the f32
    /// address VGPR `r` clamped to [0, 1] when the T#'s number format `nf` is UNORM (Vulkan's rule for
    /// fixed-point depth formats: a T# cannot tell a D16 shadow map from a colour image; NaN stays NaN),
    /// unchanged otherwise.
    fn compare_reference(&mut self, r: H, nf: Result<Nfmt, H>) -> H {
        let zero_f = self.c(Ty::B32, 0);
        let onef = self.c(Ty::B32, 0x3f80_0000);
        let lt0 = self.fcmp(FloatCmp::Lt, r, zero_f);
        let gt1 = self.fcmp(FloatCmp::Gt, r, onef);
        let rc = self.buf_select(lt0, zero_f, r);
        let rc = self.buf_select(gt1, onef, rc);
        let is_un = self.is_nf(nf, Nfmt::Unorm);
        self.buf_select(is_un, rc, r)
    }

    /// 1.0 when `reference OP t` holds ([`Self::compare_passes`]), else 0.0: a compared texel (D191, D190).
    fn compare_value(&mut self, func: H, reference: H, t: H) -> H {
        let pass = self.compare_passes(func, reference, t);
        let onef = self.c(Ty::B32, 0x3f80_0000);
        let z = self.c(Ty::B32, 0);
        self.buf_select(pass, onef, z)
    }

    /// The filter and format checks every sample makes once its LOD `l` (1/256) is known (D187, D191;
    /// shared by 1-D/2-D and 3-D/cube sampling, D196): the S#'s MIN_FILTER when minified (`l > 0`), else
    /// MAG_FILTER; anisotropic refused; the T#'s format ([`Self::sampled_format`]); bilinear filtering
    /// of a UINT/SINT format refused, and (`compare`) a depth compare on one. Returns whether the filter
    /// is linear, and the format.
    fn sample_filter(
        &mut self,
        smp: &SamplerState,
        ts: &super::image::Tsharp,
        l: H,
        dmask: u32,
        compare: bool,
    ) -> (H, SampledFormat) {
        let f = self.c(Ty::B1, 0);
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let minified = self.icmp(IntCmp::GtI, Ty::B32, l, z);
        let xy = self.buf_select(minified, smp.minf, smp.mag);
        let two = self.c(Ty::B32, 2);
        let aniso = self.icmp(IntCmp::GeU, Ty::B32, xy, two);
        self.n(Node::Refuse {
            cond: aniso,
            reason: "the S#'s filter is anisotropic: not modelled (D187)",
        });
        let linear = self.icmp(IntCmp::Eq, Ty::B32, xy, one);
        let fmt = self.sampled_format(ts, dmask, smp.border);
        let lin_int = self.buf_select(linear, fmt.is_int, f);
        self.n(Node::Refuse {
            cond: lin_int,
            reason: "bilinear filtering of a UINT/SINT format: not modelled (D187)",
        });
        if compare {
            self.n(Node::Refuse {
                cond: fmt.is_int,
                reason: "a depth compare on a UINT/SINT format: not modelled (D191)",
            });
        }
        (linear, fmt)
    }

    /// `image_sample_lz` (`explicit_lod` false) and `image_sample_l` on 1D and 2D images (D187).
    pub(super) fn image_sample(&mut self, explicit_lod: bool) -> Result<(), LiftError> {
        let lod = if explicit_lod {
            Lod::Explicit
        } else {
            Lod::Zero
        };
        self.image_sample_form(SampleForm {
            lod,
            ..SampleForm::default()
        })
    }

    /// Any other `image_sample*` opcode by name: the forms of D191 (offset, compare, explicit gradients,
    /// LOD clamp), every other one refused by name.
    pub(super) fn image_sample_named(&mut self, name: &str) -> Result<(), LiftError> {
        match SampleForm::of(name) {
            Ok(form) => self.image_sample_form(form),
            Err(why) => self.unsupported_mimg(&format!("{name}: {why}")),
        }
    }

    /// One sampling form on 1D, 2D, 1D array and 2D array images (D187, D191, D194).
    fn image_sample_form(&mut self, form: SampleForm) -> Result<(), LiftError> {
        let m = self.mimg_fields()?;
        let (dmask, unorm_bit, vdata) = (m.dmask, m.unorm, m.vdata);
        let dim = match Dim::of(m.dim_field) {
            Some(d @ (Dim::D1 | Dim::D2 | Dim::D1Array | Dim::D2Array)) => d,
            // 3-D and cube images: their own function (D196).
            Some(d @ (Dim::D3 | Dim::Cube)) => return self.image_sample_vol(form, &m, d),
            _ => {
                return self.unsupported_mimg(
                    "sampling is modelled for 1D, 2D, 3D, cube, 1D array and 2D array images only (D187, D194, D196): MSAA is not",
                )
            }
        };
        let d2 = matches!(dim, Dim::D2 | Dim::D2Array);
        let array = matches!(dim, Dim::D1Array | Dim::D2Array);
        self.mimg_dmask_nonzero(&m)?;
        if form.compare && dmask != 1 {
            return self.unsupported_mimg(
                "a depth-compare sample with a dmask other than 0x1 is not modelled: what the hardware \
                 returns in the other components is not established (D191)",
            );
        }
        // Address VGPRs in the ISA's order (D191): offset, compare reference, gradients (du/dx, dv/dx,
        // du/dy, dv/dy; `_g16`: one VGPR per direction, u low, v high), the coordinates, then the LOD or
        // the LOD clamp.
        let gdim = if d2 { 2 } else { 1 };
        let ngrad = match form.lod {
            Lod::Grad { g16: false } => 2 * gdim,
            Lod::Grad { g16: true } => 2,
            _ => 0,
        };
        let nlast = (form.lod == Lod::Explicit || form.clamp) as usize;
        let ncoord = dim.coords();
        let k_cmp = form.offset as usize;
        let k_grad = k_cmp + form.compare as usize;
        let k_coord = k_grad + ngrad;
        let naddr = k_coord + ncoord + nlast;
        let ndata = dmask.count_ones() as u16;
        let addr_regs = self.mimg_addr_regs(&m, naddr, ndata)?;
        // Reads first: the T#, the S#, the address.
        let ts = self.tsharp(m.srsrc, dim);
        let sw: Vec<H> = (0..4).map(|i| self.read_s(m.ssamp + i, Ty::B32)).collect();
        let all: Vec<H> = addr_regs
            .iter()
            .map(|&reg| self.n(Node::ReadVgpr { reg, ty: Ty::B32 }))
            .collect();
        // `addr`: the coordinates, then the LOD or clamp (D187's order).
        let addr: Vec<H> = all[k_coord..].to_vec();
        let naddr = naddr - k_coord;
        let f = self.c(Ty::B1, 0);
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let smp = self.sampler_state(&sw, unorm_bit);
        let unnorm = smp.unnorm;
        // LOD in 1/256 (D187 step 1; from the gradients, D191).
        let lod = match form.lod {
            Lod::Explicit => self.lod_256(addr[naddr - 1]),
            Lod::Zero => z,
            Lod::Grad { g16 } => {
                let g = self.gradients(&all[k_grad..k_coord], g16, d2);
                let w0 = self.level_extent(ts.width, ts.base_level);
                let h0 = if d2 {
                    Some(self.level_extent(ts.height, ts.base_level))
                } else {
                    None
                };
                self.gradient_lod(&g, w0, h0, unnorm)
            }
        };
        let min_lod = if form.clamp {
            // `_cl`: the clamp operand raises the lower bound (Vulkan's minLod operand).
            let c = self.lod_256(addr[naddr - 1]);
            self.int(IntOp::MaxI, Ty::B32, smp.min_lod, c)
        } else {
            smp.min_lod
        };
        let mip = self.mip_levels(&smp, &ts, lod, min_lod);
        let l = mip.l;
        let (linear, fmt) = self.sample_filter(&smp, &ts, l, dmask, form.compare);
        let SampledFormat {
            desc,
            is_int,
            border: border_c,
        } = fmt;
        // Texel offsets (D191): 6-bit signed fields, x at bits 5:0, y at 13:8.
        let (off_x, off_y) = if form.offset {
            let o = all[0];
            let c26 = self.c(Ty::B32, 26);
            let c18 = self.c(Ty::B32, 18);
            let x = self.int(IntOp::Shl, Ty::B32, o, c26);
            let x = self.int(IntOp::AShr, Ty::B32, x, c26);
            let y = self.int(IntOp::Shl, Ty::B32, o, c18);
            let y = self.int(IntOp::AShr, Ty::B32, y, c26);
            (Some(x), Some(y))
        } else {
            (None, None)
        };
        let size64 = self.un(UnOp::ZExt, Ty::B64, desc.size);
        // The slice (2D arrays): the coordinate rounded to the nearest integer, ties to even, clamped to
        // [0, DEPTH − BASE_ARRAY], plus BASE_ARRAY; the layout holds DEPTH + 1 slices per level (D183).
        let (layers, slice) = if array {
            // The slice follows the coordinates: v for 1D arrays, w for 2D arrays (D194).
            self.array_slice(&ts, addr[if d2 { 2 } else { 1 }])
        } else {
            (one, z)
        };
        let not_refused = self.buf_select(desc.refused, f, mip.level_ok);
        // The compare function (word 0 bits 14:12) and the reference, clamped to [0, 1] for UNORM
        // formats (D191).
        let cmp = if form.compare {
            Some((smp.cmp_func, self.compare_reference(all[k_cmp], desc.nf)))
        } else {
            None
        };
        let fp = Footprint {
            ts: &ts,
            dim,
            desc: &desc,
            border: border_c,
            coords: [addr[0], addr[if d2 { 1 } else { 0 }]],
            modes: [smp.clamp_x, smp.clamp_y],
            offsets: [off_x, off_y],
            linear,
            unnorm,
            size64,
            slice,
            cmp,
            dmask,
        };
        // The first level, then (D195) the second one of a linear mip filter, its loads enabled only in
        // the lanes that blend; its offset is the first one's plus the first level's size.
        let off0 = self.level_offset(&ts, dim, mip.level, size64, layers);
        let r0 = self.sample_level(&fp, mip.level, off0, not_refused);
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
        let r1 = self.sample_level(&fp, next, off1, ok1);
        self.write_blended(vdata, blend, mip.frac, &r0, &r1);
        Ok(())
    }

    /// D195's blend of two levels' results, D187's weights: `RN(RN(r0·(256 − f)/256) + RN(r1·f/256))`
    /// where `blend` holds, the first level alone elsewhere; written to `vdata` onwards.
    pub(in crate::lift) fn write_blended(
        &mut self,
        vdata: u16,
        blend: H,
        frac: H,
        r0: &[H],
        r1: &[H],
    ) {
        let (w0, w1) = self.weights_256(frac);
        for (reg, (&a, &b)) in (vdata..).zip(r0.iter().zip(r1)) {
            let m = self.lerp(a, b, w0, w1);
            let v = self.buf_select(blend, m, a);
            self.write_v(reg, v);
        }
    }

    /// The byte size of `level` (B64): its texels times the element size and the layers (D183's layout,
    /// as [`Self::level_offset`] adds them up).
    fn level_bytes(
        &mut self,
        ts: &super::image::Tsharp,
        dim: Dim,
        level: H,
        size64: H,
        layers: H,
    ) -> H {
        let w = self.level_extent(ts.width, level);
        let mut n = self.un(UnOp::ZExt, Ty::B64, w);
        if matches!(dim, Dim::D2 | Dim::D2Array | Dim::D3 | Dim::Cube) {
            let h = self.level_extent(ts.height, level);
            let h = self.un(UnOp::ZExt, Ty::B64, h);
            n = self.int(IntOp::Mul, Ty::B64, n, h);
        }
        if dim == Dim::D3 {
            let one = self.c(Ty::B32, 1);
            let d = self.int(IntOp::Add, Ty::B32, ts.depth, one);
            let d = self.level_extent(d, level);
            let d = self.un(UnOp::ZExt, Ty::B64, d);
            n = self.int(IntOp::Mul, Ty::B64, n, d);
        }
        let layers64 = self.un(UnOp::ZExt, Ty::B64, layers);
        let n = self.int(IntOp::Mul, Ty::B64, n, layers64);
        self.int(IntOp::Mul, Ty::B64, n, size64)
    }

    /// `k/256` and `(256 − k)/256` as f32 (exact) for `k` in 0..=256: (weight of the first, of the second).
    fn weights_256(&mut self, k: H) -> (H, H) {
        let inv = self.c(Ty::B32, 0x3b80_0000);
        let c256 = self.c(Ty::B32, 256);
        let af = self.un(UnOp::U32ToF32, Ty::B32, k);
        let w1 = self.float(FloatOp::F32Mul, af, inv, af);
        let b = self.int(IntOp::Sub, Ty::B32, c256, k);
        let bf = self.un(UnOp::U32ToF32, Ty::B32, b);
        let w0 = self.float(FloatOp::F32Mul, bf, inv, bf);
        (w0, w1)
    }

    /// `RN(RN(p·w0) + RN(q·w1))` (D187's interpolation step).
    fn lerp(&mut self, p: H, q: H, w0: H, w1: H) -> H {
        let x = self.float(FloatOp::F32Mul, p, w0, p);
        let y = self.float(FloatOp::F32Mul, q, w1, q);
        self.float(FloatOp::F32Add, x, y, x)
    }

    /// One level's footprint (D187 steps 2–5, D191's offsets and compare): the level's extents, the two
    /// axes, the texels at `base + off` (loads in the lanes where `ok` holds and the texel is inside),
    /// filtered point or bilinear; one value per `dmask` component.
    fn sample_level(&mut self, fp: &Footprint, level: H, off: H, ok_level: H) -> Vec<H> {
        let ts = fp.ts;
        let d2 = matches!(fp.dim, Dim::D2 | Dim::D2Array);
        let f = self.c(Ty::B1, 0);
        let z = self.c(Ty::B32, 0);
        let one = self.c(Ty::B32, 1);
        let wl = self.level_extent(ts.width, level);
        let ax = self.sample_axis_off(
            fp.coords[0],
            wl,
            fp.modes[0],
            fp.linear,
            fp.unnorm,
            fp.offsets[0],
        );
        let (ay, rows_per_level) = if d2 {
            let hl = self.level_extent(ts.height, level);
            let ay = self.sample_axis_off(
                fp.coords[1],
                hl,
                fp.modes[1],
                fp.linear,
                fp.unnorm,
                fp.offsets[1],
            );
            (ay, hl)
        } else {
            // 1D: one row, y = 0.
            let t = self.c(Ty::B1, 1);
            let ay = Axis {
                i0: (z, t),
                i1: (z, t),
                a: z,
            };
            (ay, one)
        };
        let s64 = self.un(UnOp::ZExt, Ty::B64, fp.slice);
        let h64 = self.un(UnOp::ZExt, Ty::B64, rows_per_level);
        let slice_rows = self.int(IntOp::Mul, Ty::B64, s64, h64);
        let base = self.int(IntOp::Add, Ty::B64, ts.base, off);
        let t = Typed {
            store: false,
            d16: false,
            hi: false,
            n: 4,
        };
        let mut texels = Vec::new();
        let rows = if d2 { vec![ay.i0, ay.i1] } else { vec![ay.i0] };
        for (y, inside_y) in rows {
            for (x, inside_x) in [ax.i0, ax.i1] {
                let inside = self.buf_select(inside_x, inside_y, f);
                let ok = self.buf_select(inside, ok_level, f);
                let y64 = self.un(UnOp::ZExt, Ty::B64, y);
                let y64 = self.int(IntOp::Add, Ty::B64, y64, slice_rows);
                let x64 = self.un(UnOp::ZExt, Ty::B64, x);
                let w64 = self.un(UnOp::ZExt, Ty::B64, wl);
                let t1 = self.int(IntOp::Mul, Ty::B64, y64, w64);
                let t1 = self.int(IntOp::Add, Ty::B64, t1, x64);
                let t1 = self.int(IntOp::Mul, Ty::B64, t1, fp.size64);
                let a = self.int(IntOp::Add, Ty::B64, base, t1);
                let addrs: Vec<H> = (0..4u64)
                    .map(|j| {
                        let k = self.c(Ty::B64, 4 * j);
                        self.int(IntOp::Add, Ty::B64, a, k)
                    })
                    .collect();
                let vals = self.typed_load_values(t, fp.desc, &ts.sel, &[0, 1, 2, 3], &addrs, ok);
                let vals: Vec<H> = (0..4)
                    .map(|c| self.buf_select(inside, vals[c], fp.border[c]))
                    .collect();
                let vals = match &fp.cmp {
                    // Depth compare (D191): the texel's first component against the reference, 1.0 or
                    // 0.0, filtered below like a texel.
                    Some((func, r)) => {
                        let v = self.compare_value(*func, *r, vals[0]);
                        vec![v; 4]
                    }
                    None => vals,
                };
                texels.push(vals);
            }
        }
        // Weights: k/256 and (256 − k)/256, exact.
        let (ax0, ax1) = self.weights_256(ax.a);
        let (ay0, ay1) = self.weights_256(ay.a);
        let mut out = Vec::new();
        for c in (0..4usize).filter(|c| fp.dmask >> c & 1 != 0) {
            let r0 = self.lerp(texels[0][c], texels[1][c], ax0, ax1);
            let v = if d2 {
                let r1 = self.lerp(texels[2][c], texels[3][c], ax0, ax1);
                self.lerp(r0, r1, ay0, ay1)
            } else {
                r0
            };
            out.push(self.buf_select(fp.linear, v, texels[0][c]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{SampleForm, LOG2_THRESHOLDS};

    /// `(2^23 + m)^128` as little-endian 64-bit limbs.
    fn pow128(m: u64) -> Vec<u64> {
        let mut x = vec![m];
        for _ in 0..7 {
            let mut r = vec![0u64; 2 * x.len() + 1];
            for (i, &a) in x.iter().enumerate() {
                let mut carry = 0u128;
                for (j, &b) in x.iter().enumerate() {
                    let t = a as u128 * b as u128 + r[i + j] as u128 + carry;
                    r[i + j] = t as u64;
                    carry = t >> 64;
                }
                r[i + x.len()] = carry as u64;
            }
            while r.last() == Some(&0) {
                r.pop();
            }
            x = r;
        }
        x
    }

    /// `a ≥ 2^p` for a little-endian number.
    fn at_least_pow2(a: &[u64], p: usize) -> bool {
        let top = a.len() * 64 - a.last().unwrap().leading_zeros() as usize; // bit length
        top > p
    }

    /// Each threshold is the smallest mantissa whose value reaches 2^(j/128): exact big-integer arithmetic.
    #[test]
    fn log2_thresholds_are_exact() {
        for (j, &t) in (1..128).zip(LOG2_THRESHOLDS.iter()) {
            let p = j + 23 * 128;
            let m = (1u64 << 23) + t as u64;
            assert!(at_least_pow2(&pow128(m), p), "{j}");
            assert!(!at_least_pow2(&pow128(m - 1), p), "{j}");
        }
    }

    #[test]
    fn forms_from_names() {
        let f = SampleForm::of("image_sample_c_d_cl_o_g16").unwrap();
        assert!(f.compare && f.clamp && f.offset);
        assert_eq!(f.lod, super::Lod::Grad { g16: true });
        assert_eq!(
            SampleForm::of("image_sample_c_lz_o").unwrap().lod,
            super::Lod::Zero
        );
        for bad in [
            "image_sample",
            "image_sample_cl",
            "image_sample_b",
            "image_sample_c_cd_o",
            "image_sample_o",
        ] {
            assert!(SampleForm::of(bad).is_err(), "{bad}");
        }
    }
}
