//! The remaining VOP1/VOP3 instructions of issue 5 (decision D094): normalised conversions
//! (v_cvt_norm_*, v_cvt_pknorm_*), v_cvt_off_f32_i4, v_cvt_pk_u8_f32, the cube-map helpers
//! (v_cubeid/sc/tc/ma_f32), v_mullit_f32, the quad SADs (v_qsad_pk_u16_u8, v_mqsad_pk_u16_u8,
//! v_mqsad_u32_u8) and v_trig_preop_f64 — each a composition of existing exact IR (integer logic
//! around at most one correctly rounded float primitive), so the evaluator and every lowering agree.
//!
//! Definitions: the ISA guide's pseudo-code (RDNA 2 ISA guide; the RDNA 3 guide spells out the same
//! operations). Where the guide names a conversion without defining its rounding (`f32_to_snorm`,
//! `f32_to_u8`), D094 records the reading taken:
//! * `*_to_snorm` / `*_to_unorm`: NaN → 0, clamp to [−1, 1] / [0, 1], multiply by 32767 / 65535 exactly
//!   (in f64, where the product of any f16/f32 is exact) and round once to nearest even;
//! * `f32_to_u8`: as the guide's other float→integer conversions (`f32_to_u32`): truncate, saturate to
//!   [0, 255], NaN → 0;
//! * v_trig_preop_f64: the 1,201-bit fraction of 2/π (bits beyond it are 0), segment rounded toward zero
//!   where the result is subnormal ("Rounding is always round-to-zero").
//!
//! NaN results (v_cubesc/tc, v_cubema, v_mullit) are the default quiet NaN, as every float result (D005).
//! 16-bit results keep the destination's high half (gfx10; see [`Lifter::write_half`]).

use super::vfloat::{Ops, F16, F32, F64};
use super::{LiftError, Lifter, Src};
use crate::{FloatCmp, FloatOp, Handle, IntCmp, IntOp, Node, Ty, UnOp};
use rdna2spv_isa::{Opcode, Variant};

type H = Handle<Node>;

/// The fraction of 2/π, bits 0..1201 (bit 0 = the 2^-1 place), as big-endian 32-bit words; the last word
/// holds bits 1184..1200 and zeros. Derived here with `bc -l`:
/// `echo "scale=440; obase=16; 2/(4*a(1))" | BC_LINE_LENGTH=0 bc -l`, cut at 1,201 bits; the test
/// (tests/ops_valu_misc.rs) recomputes the bits with its own big-integer arithmetic.
const TWO_OVER_PI: [u32; 38] = [
    0xa2f9_836e,
    0x4e44_1529,
    0xfc27_57d1,
    0xf534_ddc0,
    0xdb62_9599,
    0x3c43_9041,
    0xfe51_63ab,
    0xdebb_c561,
    0xb724_6e3a,
    0x424d_d2e0,
    0x0649_2eea,
    0x09d1_921c,
    0xfe1d_eb1c,
    0xb129_a73e,
    0xe882_35f5,
    0x2ebb_4484,
    0xe99c_7026,
    0xb45f_7e41,
    0x3991_d639,
    0x8353_39f4,
    0x9c84_5f8b,
    0xbdf9_283b,
    0x1ff8_97ff,
    0xde05_980f,
    0xef2f_118b,
    0x5a0a_6d1f,
    0x6d36_7ecf,
    0x27cb_09b7,
    0x4f46_3f66,
    0x9e5f_ea2d,
    0x7527_bac7,
    0xebe5_f17b,
    0x3d07_39f7,
    0x8a52_92ea,
    0x6bfb_5fb1,
    0x1f8d_5d08,
    0x5603_3046,
    0xfc7b_0000,
];

/// The lifted VOP1/VOP2/VOP3 instructions with a 16-bit result in the low half of a VGPR, whose high half
/// gfx10 keeps (D096; the opcodes Mesa ACO's `instr_is_16bit` lists for GFX10 — VOP3 op_sel-capable forms
/// included — that this project lifts). The 16-bit integer VOP3 forms keep it in lift/valu16.rs (D063).
pub(super) fn half_result(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        V_ADD_F16
            | V_SUB_F16
            | V_SUBREV_F16
            | V_MUL_F16
            | V_MAX_F16
            | V_MIN_F16
            | V_LDEXP_F16
            | V_FMAC_F16
            | V_FMAMK_F16
            | V_FMAAK_F16
            | V_FMA_F16
            | V_DIV_FIXUP_F16
            | V_MIN3_F16
            | V_MAX3_F16
            | V_MED3_F16
            | V_CVT_F16_F32
            | V_CVT_F16_U16
            | V_CVT_F16_I16
            | V_CVT_U16_F16
            | V_CVT_I16_F16
            | V_CVT_NORM_I16_F16
            | V_CVT_NORM_U16_F16
            | V_RCP_F16
            | V_SQRT_F16
            | V_RSQ_F16
            | V_LOG_F16
            | V_EXP_F16
            | V_SIN_F16
            | V_COS_F16
            | V_FREXP_MANT_F16
            | V_FREXP_EXP_I16_F16
            | V_FLOOR_F16
            | V_CEIL_F16
            | V_TRUNC_F16
            | V_RNDNE_F16
            | V_FRACT_F16
    )
}

impl Lifter<'_> {
    /// Lifts `op` if this module knows it; `Ok(false)` otherwise.
    pub(super) fn valu_misc(&mut self, op: Opcode, o: &Ops) -> Result<bool, LiftError> {
        use Opcode::*;
        if !matches!(
            op,
            V_CVT_OFF_F32_I4
                | V_CVT_NORM_I16_F16
                | V_CVT_NORM_U16_F16
                | V_CVT_PKNORM_I16_F16
                | V_CVT_PKNORM_U16_F16
                | V_CVT_PKNORM_I16_F32
                | V_CVT_PKNORM_U16_F32
                | V_CVT_PK_U8_F32
                | V_CUBEID_F32
                | V_CUBESC_F32
                | V_CUBETC_F32
                | V_CUBEMA_F32
                | V_MULLIT_F32
                | V_QSAD_PK_U16_U8
                | V_MQSAD_PK_U16_U8
                | V_MQSAD_U32_U8
                | V_TRIG_PREOP_F64
        ) {
            return Ok(false);
        }
        if o.opsel != 0 || o.clamp {
            return self.unsupported("op_sel/clamp on this instruction are not lifted");
        }
        match op {
            V_CVT_OFF_F32_I4 => {
                // D = S0[3:0] as a signed 4-bit integer / 16 (the guide's table: 1000 → −0.5, 0111 → 0.4375).
                let a = self.src(o.s0, Src::B32)?;
                let k28 = self.k32(28);
                let t = self.int(IntOp::Shl, Ty::B32, a, k28);
                let t = self.int(IntOp::AShr, Ty::B32, t, k28);
                let f = self.un(UnOp::I32ToF32, Ty::B32, t);
                let sixteenth = self.k32(0x3d80_0000);
                let r = self.float(FloatOp::F32Mul, f, sixteenth, f);
                self.write_v(o.vdst, r);
            }
            V_CVT_NORM_I16_F16 | V_CVT_NORM_U16_F16 => {
                let x = self.fsrc(o, F16, 0)?;
                let r = self.f16_to_norm(x, op == V_CVT_NORM_I16_F16);
                self.write_half(o.vdst, r);
            }
            V_CVT_PKNORM_I16_F16 | V_CVT_PKNORM_U16_F16 | V_CVT_PKNORM_I16_F32
            | V_CVT_PKNORM_U16_F32 => {
                let signed = matches!(op, V_CVT_PKNORM_I16_F16 | V_CVT_PKNORM_I16_F32);
                let half = matches!(op, V_CVT_PKNORM_I16_F16 | V_CVT_PKNORM_U16_F16);
                let mut v = [self.k32(0); 2];
                for (i, x) in v.iter_mut().enumerate() {
                    *x = if half {
                        let h = self.fsrc(o, F16, i as u32)?;
                        self.f16_to_norm(h, signed)
                    } else {
                        let f = self.fsrc(o, F32, i as u32)?;
                        let d = self.f32_to_f64(f);
                        self.f64_to_norm(d, signed)
                    };
                }
                // D = {norm(S1), norm(S0)}.
                let lo = self.and32(v[0], 0xffff);
                let k16 = self.k32(16);
                let hi = self.int(IntOp::Shl, Ty::B32, v[1], k16);
                let r = self.int(IntOp::Or, Ty::B32, lo, hi);
                self.write_v(o.vdst, r);
            }
            V_CVT_PK_U8_F32 => {
                // D = (S2 & ~(0xff << 8·S1[1:0])) | (f32_to_u8(S0) << 8·S1[1:0]).
                let x = self.fsrc(o, F32, 0)?;
                let b = self.src(o.s1, Src::B32)?;
                let d = self.src(o.s2, Src::B32)?;
                let u = self.un(UnOp::F32ToU32, Ty::B32, x);
                let k255 = self.k32(255);
                let u = self.int(IntOp::MinU, Ty::B32, u, k255);
                let sel = self.and32(b, 3);
                let k3 = self.k32(3);
                let sh = self.int(IntOp::Shl, Ty::B32, sel, k3);
                let m = self.int(IntOp::Shl, Ty::B32, k255, sh);
                let all = self.k32(u32::MAX);
                let nm = self.int(IntOp::Xor, Ty::B32, m, all);
                let keep = self.int(IntOp::And, Ty::B32, d, nm);
                let put = self.int(IntOp::Shl, Ty::B32, u, sh);
                let r = self.int(IntOp::Or, Ty::B32, keep, put);
                self.write_v(o.vdst, r);
            }
            V_CUBEID_F32 | V_CUBESC_F32 | V_CUBETC_F32 | V_CUBEMA_F32 => {
                let (x, y, z) = (
                    self.fsrc(o, F32, 0)?,
                    self.fsrc(o, F32, 1)?,
                    self.fsrc(o, F32, 2)?,
                );
                let r = self.cube(op, x, y, z);
                self.write_v(o.vdst, r);
            }
            V_MULLIT_F32 => {
                // S1 == −MAX_FLOAT, −inf or NaN, or S2 <= 0 or NaN: −MAX_FLOAT; else S0·S1.
                let (a, b, c) = (
                    self.fsrc(o, F32, 0)?,
                    self.fsrc(o, F32, 1)?,
                    self.fsrc(o, F32, 2)?,
                );
                let b_max = self.eq32(b, 0xff7f_ffff);
                let b_inf = self.eq32(b, 0xff80_0000);
                let b_nan = self.is_nan_f(F32, b);
                let zero = self.k32(0);
                let c_le = self.fcmp(FloatCmp::Le, c, zero);
                let c_nan = self.is_nan_f(F32, c);
                let t = self.or1(b_max, b_inf);
                let t = self.or1(t, b_nan);
                let t = self.or1(t, c_le);
                let t = self.or1(t, c_nan);
                let p = self.float(FloatOp::F32Mul, a, b, a);
                let m = self.k32(0xff7f_ffff);
                let r = self.sel(t, m, p);
                self.write_v(o.vdst, r);
            }
            V_QSAD_PK_U16_U8 | V_MQSAD_PK_U16_U8 | V_MQSAD_U32_U8 => {
                let a = self.src(o.s0, Src::I64)?;
                let b = self.src(o.s1, Src::B32)?;
                let masked = op != V_QSAD_PK_U16_U8;
                if op == V_MQSAD_U32_U8 {
                    // Four 32-bit accumulators in S2 (a VGPR quad), four 32-bit results.
                    if o.s2 < 256 {
                        return self
                            .unsupported("v_mqsad_u32_u8 takes a VGPR quad as its accumulator");
                    }
                    let mut acc = Vec::new();
                    for k in 0..4 {
                        acc.push(self.n(Node::ReadVgpr {
                            reg: (o.s2 - 256) as u16 + k,
                            ty: Ty::B32,
                        }));
                    }
                    let mut out = Vec::new();
                    for (i, &c) in acc.iter().enumerate() {
                        let s = self.sad_window(a, b, i as u32, masked);
                        out.push(self.int(IntOp::Add, Ty::B32, s, c));
                    }
                    for (k, &r) in out.iter().enumerate() {
                        self.write_v(o.vdst + k as u16, r);
                    }
                } else {
                    // Four 16-bit accumulators in S2 (64 bits), four 16-bit results.
                    let c = self.src(o.s2, Src::I64)?;
                    let mut r = self.c(Ty::B64, 0);
                    for i in 0..4u32 {
                        let s = self.sad_window(a, b, i, masked);
                        let k = self.c(Ty::B64, 16 * i as u64);
                        let ci = self.int(IntOp::LShr, Ty::B64, c, k);
                        let ci = self.un(UnOp::Trunc, Ty::B32, ci);
                        let ci = self.and32(ci, 0xffff);
                        let f = self.int(IntOp::Add, Ty::B32, s, ci);
                        let f = self.and32(f, 0xffff);
                        let f = self.un(UnOp::ZExt, Ty::B64, f);
                        let f = self.int(IntOp::Shl, Ty::B64, f, k);
                        r = self.int(IntOp::Or, Ty::B64, r, f);
                    }
                    self.write_v(o.vdst, r);
                }
            }
            _ => {
                // V_TRIG_PREOP_F64: abs/neg on S0 do not change its exponent, the only part read.
                let x = self.src(o.s0, Src::F64)?;
                let seg = self.src(o.s1, Src::B32)?;
                let r = self.trig_preop(x, seg);
                self.write_v(o.vdst, r);
            }
        }
        Ok(true)
    }

    /// A 16-bit result (low 16 bits of `r`, B32) into the low half of `vdst`, keeping the high half: gfx10
    /// preserves the unused half of 16-bit VALU results (LLVM `GCNSubtarget::zeroesHigh16BitsOfDest`, false
    /// on gfx10: "all 16-bit instructions preserve the high bits"; Mesa ACO `instr_is_16bit`, true on GFX10
    /// for these opcodes). SDWA forms write as their dst_sel/dst_unused say (lift/sdwa.rs).
    pub(super) fn write_half(&mut self, vdst: u16, r: H) {
        let r = self.and32(r, 0xffff);
        let r = self.flush_out16(r);
        if self.ins.variant == Variant::Sdwa {
            self.write_v(vdst, r);
            return;
        }
        let old = self.read_old(vdst, Ty::B32);
        let w = self.insert_half(old, r, false);
        self.write_v(vdst, w);
    }

    /// f16 (B32 container) → snorm/unorm 16 (B32, low 16 bits meaningful).
    fn f16_to_norm(&mut self, h: H, signed: bool) -> H {
        let h16 = self.lo16(h);
        let f = self.un(UnOp::F16ToF32, Ty::B32, h16);
        let d = self.f32_to_f64(f);
        self.f64_to_norm(d, signed)
    }

    /// An exactly converted f64 → snorm16 (NaN → 0, clamp to [−1, 1], ×32767, nearest even) or unorm16
    /// (clamp to [0, 1], ×65535). B32 result (the integer, low 16 bits meaningful).
    fn f64_to_norm(&mut self, d: H, signed: bool) -> H {
        let (lo, scale) = if signed {
            ((-1.0f64).to_bits(), 32767.0f64.to_bits())
        } else {
            (0, 65535.0f64.to_bits())
        };
        let klo = self.c(Ty::B64, lo);
        let khi = self.c(Ty::B64, 1.0f64.to_bits());
        let below = self.n(Node::FloatCmp {
            op: FloatCmp::Lt,
            ty: Ty::B64,
            a: d,
            b: klo,
        });
        let above = self.n(Node::FloatCmp {
            op: FloatCmp::Gt,
            ty: Ty::B64,
            a: d,
            b: khi,
        });
        let c = self.sel(below, klo, d);
        let c = self.sel(above, khi, c);
        let nan = self.is_nan_f(F64, d);
        let z = self.c(Ty::B64, 0);
        let c = self.sel(nan, z, c);
        let ks = self.c(Ty::B64, scale);
        let p = self.float(FloatOp::F64Mul, c, ks, c);
        let r = self.round_int(F64, p, super::vfloat::Rnd::Even);
        self.f64_to_int(r, signed)
    }

    /// v_cubeid/sc/tc/ma of (x, y, z) = (S0, S1, S2), f32 bits.
    fn cube(&mut self, op: Opcode, x: H, y: H, z: H) -> H {
        use Opcode::*;
        let ax = self.and32(x, 0x7fff_ffff);
        let ay = self.and32(y, 0x7fff_ffff);
        let az = self.and32(z, 0x7fff_ffff);
        let zx = self.fcmp(FloatCmp::Ge, az, ax);
        let zy = self.fcmp(FloatCmp::Ge, az, ay);
        let zmaj = self.and1(zx, zy);
        let ymaj = self.fcmp(FloatCmp::Ge, ay, ax);
        let zero = self.k32(0);
        let neg = |s: &mut Self, v: H| s.fcmp(FloatCmp::Lt, v, zero);
        let (xn, yn, zn) = (neg(self, x), neg(self, y), neg(self, z));
        let flip = |s: &mut Self, v: H| s.un(UnOp::FNeg, Ty::B32, v);
        let r = match op {
            V_CUBEID_F32 => {
                let f = |s: &mut Self, v: f32| s.k32(v.to_bits());
                let (k5, k4, k3, k2, k1, k0) = (
                    f(self, 5.0),
                    f(self, 4.0),
                    f(self, 3.0),
                    f(self, 2.0),
                    f(self, 1.0),
                    f(self, 0.0),
                );
                let zr = self.sel(zn, k5, k4);
                let yr = self.sel(yn, k3, k2);
                let xr = self.sel(xn, k1, k0);
                let r = self.sel(ymaj, yr, xr);
                return self.sel(zmaj, zr, r);
            }
            V_CUBESC_F32 => {
                let nx = flip(self, x);
                let nz = flip(self, z);
                let zr = self.sel(zn, nx, x);
                let xr = self.sel(xn, z, nz);
                let r = self.sel(ymaj, x, xr);
                self.sel(zmaj, zr, r)
            }
            V_CUBETC_F32 => {
                let ny = flip(self, y);
                let nz = flip(self, z);
                let yr = self.sel(yn, nz, z);
                let r = self.sel(ymaj, yr, ny);
                self.sel(zmaj, ny, r)
            }
            _ => {
                let m = self.sel(ymaj, y, x);
                let m = self.sel(zmaj, z, m);
                let two = self.k32(0x4000_0000);
                return self.float(FloatOp::F32Mul, m, two, m);
            }
        };
        let nan = self.is_nan_f(F32, r);
        let q = self.k32(crate::quirks::F32_DEFAULT_NAN);
        self.sel(nan, q, r)
    }

    /// (Masked) SAD of the 32-bit window `a[8i+31 : 8i]` (a: B64) against `b`'s four bytes (B32 result).
    fn sad_window(&mut self, a: H, b: H, i: u32, masked: bool) -> H {
        let k = self.c(Ty::B64, 8 * i as u64);
        let w = self.int(IntOp::LShr, Ty::B64, a, k);
        let w = self.un(UnOp::Trunc, Ty::B32, w);
        let mut s = self.k32(0);
        for j in 0..4u32 {
            let kj = self.k32(8 * j);
            let x = self.int(IntOp::LShr, Ty::B32, w, kj);
            let x = self.and32(x, 0xff);
            let y = self.int(IntOp::LShr, Ty::B32, b, kj);
            let y = self.and32(y, 0xff);
            let hi = self.int(IntOp::MaxU, Ty::B32, x, y);
            let lo = self.int(IntOp::MinU, Ty::B32, x, y);
            let d = self.int(IntOp::Sub, Ty::B32, hi, lo);
            let d = if masked {
                let z = self.eq32(y, 0);
                let k0 = self.k32(0);
                self.sel(z, k0, d)
            } else {
                d
            };
            s = self.int(IntOp::Add, Ty::B32, s, d);
        }
        s
    }

    /// v_trig_preop_f64(x, seg): the 53-bit segment of 2/π starting `shift` bits into its fraction, scaled
    /// by 2^(−53−shift) (2^128 more when x's exponent field is ≥ 1968), where shift = 53·seg[4:0] plus
    /// (exponent field − 1077) when that is positive. Subnormal results are rounded toward zero.
    fn trig_preop(&mut self, x: H, seg: H) -> H {
        let t = Ty::B64;
        let k52 = self.c(t, 52);
        let e = self.int(IntOp::LShr, t, x, k52);
        let e = self.un(UnOp::Trunc, Ty::B32, e);
        let e = self.and32(e, 0x7ff);
        let s5 = self.and32(seg, 31);
        let k53 = self.k32(53);
        let shift = self.int(IntOp::Mul, Ty::B32, s5, k53);
        let k1077 = self.k32(1077);
        let big = self.icmp(IntCmp::GtU, Ty::B32, e, k1077);
        let extra = self.int(IntOp::Sub, Ty::B32, e, k1077);
        let zero = self.k32(0);
        let extra = self.sel(big, extra, zero);
        let shift = self.int(IntOp::Add, Ty::B32, shift, extra);
        // Words idx, idx+1, idx+2 of the table (0 beyond it), bit offset b within word idx.
        let k5 = self.k32(5);
        let idx = self.int(IntOp::LShr, Ty::B32, shift, k5);
        let b = self.and32(shift, 31);
        let word = |s: &mut Self, off: usize| {
            let mut w = s.k32(0);
            for (k, &v) in TWO_OVER_PI.iter().enumerate().skip(off) {
                let hit = s.eq32(idx, (k - off) as u32);
                let kv = s.k32(v);
                w = s.sel(hit, kv, w);
            }
            w
        };
        let (w0, w1, w2) = (word(self, 0), word(self, 1), word(self, 2));
        let hi = self.n(Node::Concat { lo: w1, hi: w0 });
        let b64 = self.un(UnOp::ZExt, t, b);
        let hi = self.int(IntOp::Shl, t, hi, b64);
        let k32 = self.k32(32);
        let rb = self.int(IntOp::Sub, Ty::B32, k32, b);
        let lo = self.int(IntOp::LShr, Ty::B32, w2, rb);
        let b0 = self.eq32(b, 0);
        let lo = self.sel(b0, zero, lo);
        let lo = self.un(UnOp::ZExt, t, lo);
        let top = self.int(IntOp::Or, t, hi, lo);
        let k11 = self.c(t, 11);
        let m = self.int(IntOp::LShr, t, top, k11); // the 53-bit segment
                                                    // scale = −53 − shift (+128 when e ≥ 1968), as a signed 64-bit value.
        let shift64 = self.un(UnOp::ZExt, t, shift);
        let km53 = self.c(t, (-53i64) as u64);
        let scale = self.int(IntOp::Sub, t, km53, shift64);
        let k1968 = self.k32(1968);
        let huge = self.icmp(IntCmp::GeU, Ty::B32, e, k1968);
        let k128 = self.c(t, 128);
        let up = self.int(IntOp::Add, t, scale, k128);
        let scale = self.sel(huge, up, scale);
        // Leading bit p of m; its exponent E = p + scale.
        let p = self.msb(t, m);
        let ee = self.int(IntOp::Add, t, p, scale);
        let kmin = self.c(t, (-1022i64) as u64);
        let normal = self.icmp(IntCmp::GeI, t, ee, kmin);
        let k1023 = self.c(t, 1023);
        let be = self.int(IntOp::Add, t, ee, k1023);
        let be = self.int(IntOp::Shl, t, be, k52);
        let sh = self.int(IntOp::Sub, t, k52, p);
        let mm = self.int(IntOp::Shl, t, m, sh);
        let kman = self.c(t, (1 << 52) - 1);
        let mm = self.int(IntOp::And, t, mm, kman);
        let nbits = self.int(IntOp::Or, t, be, mm);
        // Subnormal: m · 2^(scale + 1074) units of 2^-1074, truncated.
        let k1074 = self.c(t, 1074);
        let ssh = self.int(IntOp::Add, t, scale, k1074);
        let z64 = self.c(t, 0);
        let left = self.icmp(IntCmp::GeI, t, ssh, z64);
        let sl = self.int(IntOp::Shl, t, m, ssh);
        let rsh = self.int(IntOp::Sub, t, z64, ssh);
        let sr = self.int(IntOp::LShr, t, m, rsh);
        let k63 = self.c(t, 63);
        let far = self.icmp(IntCmp::GtU, t, rsh, k63);
        let sr = self.sel(far, z64, sr);
        let sbits = self.sel(left, sl, sr);
        let r = self.sel(normal, nbits, sbits);
        let mz = self.icmp(IntCmp::Eq, t, m, z64);
        self.sel(mz, z64, r)
    }
}
