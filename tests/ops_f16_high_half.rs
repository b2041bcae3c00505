//! gfx10 keeps bits 31:16 of the destination VGPR of a 16-bit VALU result (decision D096): LLVM's
//! `GCNSubtarget::zeroesHigh16BitsOfDest` is false on gfx10 ("On gfx10, all 16-bit instructions preserve
//! the high bits"), and Mesa ACO's `instr_is_16bit` is true on GFX10 for the same opcodes. Through the
//! opcheck harness (D022) each f16-result instruction below writes v8, whose old value (random input, so
//! its high half is random) the reference keeps in bits 31:16; the low half is Berkeley SoftFloat's
//! (through `softfloat-wrapper`) result, NaN → D005's default half NaN 0x7e00. A lifter that zeroes the high half fails
//! every lane. VOP1, VOP2 (incl. the accumulating v_fmac_f16 and the literal form v_fmaak_f16) and VOP3
//! forms; ≥ 4,096 operand sets each, host vs lavapipe bit-identical and host vs the reference.

// coverage: f16_results_keep_the_high_half: V_ADD_F16 V_MUL_F16 V_SUB_F16 V_FMAC_F16 V_FMAAK_F16 V_CVT_F16_F32 V_CVT_F16_U16 V_CVT_U16_F16 V_SQRT_F16 V_RCP_F16 V_TRUNC_F16 V_FMA_F16

mod opcheck;
use opcheck::{check, op, Frame, Op};
use softfloat_wrapper::{Float, RoundingMode, RoundingMode::TiesToEven as RNE, F16, F32};

fn h(x: u32) -> F16 {
    F16::from_bits(x as u16)
}
/// A half result, NaN → 0x7e00, as bits.
fn c16(r: F16) -> u32 {
    let v = r.to_bits() as u32;
    if v & 0x7fff > 0x7c00 {
        0x7e00
    } else {
        v
    }
}
/// v8 = old v8's high half | g(lane inputs) in the low half.
fn keep_hi(f: &mut Frame, g: fn(&[u32; 16]) -> u32) {
    f.per_lane(8, move |f, l| f.v[l][8] & 0xffff_0000 | g(&f.v[l]) & 0xffff)
}

fn ops() -> Vec<Op> {
    vec![
        op("v_add_f16_e32 v8, v0, v1", &[0x6410_0300], |f| {
            keep_hi(f, |v| c16(h(v[0]).add(h(v[1]), RNE)))
        }),
        op("v_mul_f16_e32 v8, v0, v1", &[0x6a10_0300], |f| {
            keep_hi(f, |v| c16(h(v[0]).mul(h(v[1]), RNE)))
        }),
        op("v_sub_f16_e32 v8, v0, v1", &[0x6610_0300], |f| {
            keep_hi(f, |v| c16(h(v[0]).sub(h(v[1]), RNE)))
        }),
        op("v_fmac_f16_e32 v8, v0, v1", &[0x6c10_0300], |f| {
            keep_hi(f, |v| c16(h(v[0]).fused_mul_add(h(v[1]), h(v[8]), RNE)))
        }),
        op(
            "v_fmaak_f16 v8, v0, v1, 0x3c01",
            &[0x7010_0300, 0x0000_3c01],
            |f| keep_hi(f, |v| c16(h(v[0]).fused_mul_add(h(v[1]), h(0x3c01), RNE))),
        ),
        op("v_cvt_f16_f32_e32 v8, v0", &[0x7e10_1500], |f| {
            keep_hi(f, |v| c16(F32::from_bits(v[0]).to_f16(RNE)))
        }),
        op("v_cvt_f16_u16_e32 v8, v0", &[0x7e10_a100], |f| {
            keep_hi(f, |v| c16(F16::from_u32(v[0] & 0xffff, RNE)))
        }),
        op("v_cvt_u16_f16_e32 v8, v0", &[0x7e10_a500], |f| {
            keep_hi(f, |v| {
                let x = f32::from_bits(h(v[0]).to_f32(RNE).to_bits());
                (x as u32).min(0xffff)
            })
        }),
        op("v_sqrt_f16_e32 v8, v0", &[0x7e10_ab00], |f| {
            keep_hi(f, |v| c16(h(v[0]).sqrt(RNE)))
        }),
        op("v_rcp_f16_e32 v8, v0", &[0x7e10_a900], |f| {
            keep_hi(f, |v| c16(h(0x3c00).div(h(v[0]), RNE)))
        }),
        op("v_trunc_f16_e32 v8, v0", &[0x7e10_bb00], |f| {
            keep_hi(f, |v| {
                c16(h(v[0]).round_to_integral(RoundingMode::TowardZero))
            })
        }),
        op(
            "v_fma_f16 v8, v0, v1, v2",
            &[0xd74b_0008, 0x040a_0300],
            |f| keep_hi(f, |v| c16(h(v[0]).fused_mul_add(h(v[1]), h(v[2]), RNE))),
        ),
        op(
            "v_add_f16_e64 v8, -v0, |v1|",
            &[0xd532_0208, 0x2002_0300],
            |f| keep_hi(f, |v| c16(h(v[0] ^ 0x8000).add(h(v[1] & 0x7fff), RNE))),
        ),
    ]
}

#[test]
fn f16_results_keep_the_high_half() {
    check(&ops());
}
