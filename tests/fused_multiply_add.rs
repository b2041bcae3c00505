//! D993, "a fused multiply-add rounds once", made executable (decisions D013–D016).
//!
//! Every multiply-add form — fused, unfused, half, mix, legacy, f64 — is run from real instruction words
//! (encodings from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`, gfx1010 for the MAD/MAC
//! family; each is written next to its words) inside a small kernel that loads eight dwords per work-item,
//! executes the form and stores v[3:6]. The kernel is lifted, run by the host evaluator and on lavapipe
//! (the probed device profile), and every output word is compared with an independent oracle built on
//! Berkeley SoftFloat (`softfloat-sys`: f16/f32/f64_mulAdd are one rounding; the unfused forms are
//! f32_mul then f32_add with the flushes written out).
//!
//! NaN rule: SoftFloat returns x86's default NaN (sign set) or a propagated payload; this project returns
//! the default quiet NaN of D005 (0x7e00 / 0x7fc00000 / 0x7ff8000000000000) for every NaN result. The
//! oracle therefore maps every NaN result to D005's NaN; every other bit is compared exactly.
//!
//! Operand count per form on the device: `RDNA2SPV_FMA_DEVICE_N` (default 100,000).

#[path = "support/f64_triples.rs"]
mod f64_triples;
#[path = "support/frame.rs"]
mod frame;

use frame::*;
use rdna2spv_isa::Target;
use rdna2spv_vulkan::{probe, Context, DeviceProfile};
use softfloat_wrapper::{Float, RoundingMode::TiesToEven as RNE, F16, F32, F64};

// ---------------------------------------------------------------------------------------------------
// The SoftFloat oracle.

const Q16: u32 = 0x7e00;
const Q32: u32 = 0x7fc0_0000;
const Q64: u64 = 0x7ff8_0000_0000_0000;

fn nan16(x: u32) -> bool {
    x & 0x7fff > 0x7c00
}
fn nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}
fn c16(x: u16) -> u32 {
    if nan16(x as u32) {
        Q16
    } else {
        x as u32
    }
}
fn c32(x: u32) -> u32 {
    if nan32(x) {
        Q32
    } else {
        x
    }
}
fn c64(x: u64) -> u64 {
    if x & !(1 << 63) > 0x7ff0_0000_0000_0000 {
        Q64
    } else {
        x
    }
}

fn sf_fma16(a: u32, b: u32, c: u32) -> u32 {
    let h = |v: u32| F16::from_bits(v as u16);
    c16(h(a).fused_mul_add(h(b), h(c), RNE).to_bits())
}
fn sf_fma32(a: u32, b: u32, c: u32) -> u32 {
    c32(F32::from_bits(a)
        .fused_mul_add(F32::from_bits(b), F32::from_bits(c), RNE)
        .to_bits())
}
fn sf_fma64(a: u64, b: u64, c: u64) -> u64 {
    c64(F64::from_bits(a)
        .fused_mul_add(F64::from_bits(b), F64::from_bits(c), RNE)
        .to_bits())
}
fn sf_mul32(a: u32, b: u32) -> u32 {
    c32(F32::from_bits(a).mul(F32::from_bits(b), RNE).to_bits())
}
fn sf_add32(a: u32, b: u32) -> u32 {
    c32(F32::from_bits(a).add(F32::from_bits(b), RNE).to_bits())
}
fn sf_h2f(a: u32) -> u32 {
    F16::from_bits(a as u16).to_f32(RNE).to_bits()
}
fn sf_f2h(a: u32) -> u32 {
    c16(F32::from_bits(a).to_f16(RNE).to_bits())
}
fn flush32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}
/// The unfused forms: round(round(a*b) + c), denormal inputs, product and result flushed.
fn sf_mad32(a: u32, b: u32, c: u32) -> u32 {
    let p = flush32(sf_mul32(flush32(a), flush32(b)));
    flush32(sf_add32(p, flush32(c)))
}
/// The DX9 rule: a zero factor (a denormal one too where inputs are flushed) makes the product +0.
fn dx9(a: u32, b: u32, flushed: bool) -> (u32, u32) {
    let zero = |x: u32| {
        if flushed {
            x & 0x7f80_0000 == 0
        } else {
            x & 0x7fff_ffff == 0
        }
    };
    if zero(a) || zero(b) {
        (0, 0)
    } else {
        (a, b)
    }
}
/// Clamp to [0, 1] by value: NaN → +0 (DX10_CLAMP), negative values and −0 → +0.
fn clamp32(x: u32) -> u32 {
    let v = f32::from_bits(x);
    if v.is_nan() || v <= 0.0 {
        0
    } else if v >= 1.0 {
        0x3f80_0000
    } else {
        x
    }
}
fn clamp16(x: u32) -> u32 {
    let v = f32::from_bits(sf_h2f(x));
    if v.is_nan() || v <= 0.0 {
        0
    } else if v >= 1.0 {
        0x3c00
    } else {
        x
    }
}
fn lo(x: u32) -> u32 {
    x & 0xffff
}
fn hi(x: u32) -> u32 {
    x >> 16
}
fn neg32(x: u32) -> u32 {
    x ^ 0x8000_0000
}
fn abs32(x: u32) -> u32 {
    x & 0x7fff_ffff
}
fn neg16(x: u32) -> u32 {
    x ^ 0x8000
}
fn abs16(x: u32) -> u32 {
    x & 0x7fff
}

// ---------------------------------------------------------------------------------------------------
// The forms.

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    F32,
    F16,
    F64,
}

struct Form {
    name: &'static str,
    target: Target,
    bytes: &'static [u8],
    kind: Kind,
    /// The four output dwords (v3..v6) from the eight input dwords (v0..v7).
    oracle: fn(&[u32; 8]) -> [u32; 4],
}

/// A 16-bit result in the low half of v3 with v3's old high half kept (gfx10, D096).
fn keep_hi(v: &[u32], r: u32) -> u32 {
    (v[3] & 0xffff_0000) | (r & 0xffff)
}

/// v3 replaced, v4..v6 as loaded.
fn out3(v: &[u32; 8], r: u32) -> [u32; 4] {
    [r, v[4], v[5], v[6]]
}

fn forms() -> Vec<Form> {
    use Kind::*;
    use Target::{Gfx1010, Gfx1030};
    vec![
        // v_fma_f32 v3, v0, v1, v2
        Form {
            name: "v_fma_f32",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x03, 0x00, 0x4b, 0xd5, 0x00, 0x03, 0x0a, 0x04],
            oracle: |v| out3(v, sf_fma32(v[0], v[1], v[2])),
        },
        // v_fma_f32 v3, -v0, |v1|, -|v2| clamp
        Form {
            name: "v_fma_f32 -a |b| -|c| clamp",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x03, 0x86, 0x4b, 0xd5, 0x00, 0x03, 0x0a, 0xa4],
            oracle: |v| {
                out3(
                    v,
                    clamp32(sf_fma32(neg32(v[0]), abs32(v[1]), neg32(abs32(v[2])))),
                )
            },
        },
        // v_fma_f32 v3, v0, v1, v2 mul:2 (omod: ignored in IEEE mode / with output denormals, D013)
        Form {
            name: "v_fma_f32 mul:2",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x03, 0x00, 0x4b, 0xd5, 0x00, 0x03, 0x0a, 0x0c],
            oracle: |v| out3(v, sf_fma32(v[0], v[1], v[2])),
        },
        // v_fmac_f32_e32 v3, v0, v1
        Form {
            name: "v_fmac_f32_e32",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x00, 0x03, 0x06, 0x56],
            oracle: |v| out3(v, sf_fma32(v[0], v[1], v[3])),
        },
        // v_fmac_f32_e64 v3, v0, v1 clamp
        Form {
            name: "v_fmac_f32_e64 clamp",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x03, 0x80, 0x2b, 0xd5, 0x00, 0x03, 0x02, 0x00],
            oracle: |v| out3(v, clamp32(sf_fma32(v[0], v[1], v[3]))),
        },
        // v_fmaak_f32 v3, v0, v1, 0xbf801000
        Form {
            name: "v_fmaak_f32",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x00, 0x03, 0x06, 0x5a, 0x00, 0x10, 0x80, 0xbf],
            oracle: |v| out3(v, sf_fma32(v[0], v[1], 0xbf80_1000)),
        },
        // v_fmamk_f32 v3, v0, 0x3f800800, v1
        Form {
            name: "v_fmamk_f32",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x00, 0x03, 0x06, 0x58, 0x00, 0x08, 0x80, 0x3f],
            oracle: |v| out3(v, sf_fma32(v[0], 0x3f80_0800, v[1])),
        },
        // v_fma_legacy_f32 v3, v0, v1, v2
        Form {
            name: "v_fma_legacy_f32",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x03, 0x00, 0x40, 0xd5, 0x00, 0x03, 0x0a, 0x04],
            oracle: |v| {
                let (a, b) = dx9(v[0], v[1], false);
                out3(v, sf_fma32(a, b, v[2]))
            },
        },
        // v_fma_legacy_f32 v3, -v0, v1, |v2| clamp
        Form {
            name: "v_fma_legacy_f32 -a |c| clamp",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x03, 0x84, 0x40, 0xd5, 0x00, 0x03, 0x0a, 0x24],
            oracle: |v| {
                let (a, b) = dx9(neg32(v[0]), v[1], false);
                out3(v, clamp32(sf_fma32(a, b, abs32(v[2]))))
            },
        },
        // v_fmac_legacy_f32_e32 v3, v0, v1
        Form {
            name: "v_fmac_legacy_f32_e32",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x00, 0x03, 0x06, 0x0c],
            oracle: |v| {
                let (a, b) = dx9(v[0], v[1], false);
                out3(v, sf_fma32(a, b, v[3]))
            },
        },
        // v_fmac_legacy_f32_e64 v3, |v0|, v1 clamp
        Form {
            name: "v_fmac_legacy_f32_e64 |a| clamp",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x03, 0x81, 0x06, 0xd5, 0x00, 0x03, 0x02, 0x00],
            oracle: |v| {
                let (a, b) = dx9(abs32(v[0]), v[1], false);
                out3(v, clamp32(sf_fma32(a, b, v[3])))
            },
        },
        // v_mul_legacy_f32_e32 v3, v0, v1
        Form {
            name: "v_mul_legacy_f32_e32",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x00, 0x03, 0x06, 0x0e],
            oracle: |v| {
                let (a, b) = dx9(v[0], v[1], false);
                out3(v, sf_mul32(a, b))
            },
        },
        // v_mul_legacy_f32_e64 v3, v0, -v1 clamp
        Form {
            name: "v_mul_legacy_f32_e64 -b clamp",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x03, 0x80, 0x07, 0xd5, 0x00, 0x03, 0x02, 0x40],
            oracle: |v| {
                let (a, b) = dx9(v[0], neg32(v[1]), false);
                out3(v, clamp32(sf_mul32(a, b)))
            },
        },
        // gfx1010: v_mad_f32 v3, v0, v1, v2
        Form {
            name: "v_mad_f32 (gfx1010)",
            target: Gfx1010,
            kind: F32,
            bytes: &[0x03, 0x00, 0x41, 0xd5, 0x00, 0x03, 0x0a, 0x04],
            oracle: |v| out3(v, sf_mad32(v[0], v[1], v[2])),
        },
        // gfx1010: v_mad_f32 v3, -v0, |v1|, v2 clamp
        Form {
            name: "v_mad_f32 -a |b| clamp (gfx1010)",
            target: Gfx1010,
            kind: F32,
            bytes: &[0x03, 0x82, 0x41, 0xd5, 0x00, 0x03, 0x0a, 0x24],
            oracle: |v| out3(v, clamp32(sf_mad32(neg32(v[0]), abs32(v[1]), v[2]))),
        },
        // gfx1010: v_mac_f32_e32 v3, v0, v1
        Form {
            name: "v_mac_f32_e32 (gfx1010)",
            target: Gfx1010,
            kind: F32,
            bytes: &[0x00, 0x03, 0x06, 0x3e],
            oracle: |v| out3(v, sf_mad32(v[0], v[1], v[3])),
        },
        // gfx1010: v_mac_f32_e64 v3, v0, v1 clamp
        Form {
            name: "v_mac_f32_e64 clamp (gfx1010)",
            target: Gfx1010,
            kind: F32,
            bytes: &[0x03, 0x80, 0x1f, 0xd5, 0x00, 0x03, 0x02, 0x00],
            oracle: |v| out3(v, clamp32(sf_mad32(v[0], v[1], v[3]))),
        },
        // gfx1010: v_madak_f32 v3, v0, v1, 0xbf801000
        Form {
            name: "v_madak_f32 (gfx1010)",
            target: Gfx1010,
            kind: F32,
            bytes: &[0x00, 0x03, 0x06, 0x42, 0x00, 0x10, 0x80, 0xbf],
            oracle: |v| out3(v, sf_mad32(v[0], v[1], 0xbf80_1000)),
        },
        // gfx1010: v_madmk_f32 v3, v0, 0x3f800800, v1
        Form {
            name: "v_madmk_f32 (gfx1010)",
            target: Gfx1010,
            kind: F32,
            bytes: &[0x00, 0x03, 0x06, 0x40, 0x00, 0x08, 0x80, 0x3f],
            oracle: |v| out3(v, sf_mad32(v[0], 0x3f80_0800, v[1])),
        },
        // gfx1010: v_mad_legacy_f32 v3, -v0, v1, |v2| clamp
        Form {
            name: "v_mad_legacy_f32 -a |c| clamp (gfx1010)",
            target: Gfx1010,
            kind: F32,
            bytes: &[0x03, 0x84, 0x40, 0xd5, 0x00, 0x03, 0x0a, 0x24],
            oracle: |v| {
                let (a, b) = dx9(neg32(v[0]), v[1], true);
                out3(v, clamp32(sf_mad32(a, b, abs32(v[2]))))
            },
        },
        // gfx1010: v_mac_legacy_f32_e32 v3, v0, v1
        Form {
            name: "v_mac_legacy_f32_e32 (gfx1010)",
            target: Gfx1010,
            kind: F32,
            bytes: &[0x00, 0x03, 0x06, 0x0c],
            oracle: |v| {
                let (a, b) = dx9(v[0], v[1], true);
                out3(v, sf_mad32(a, b, v[3]))
            },
        },
        // gfx1010: v_mac_legacy_f32_e64 v3, v0, -v1
        Form {
            name: "v_mac_legacy_f32_e64 -b (gfx1010)",
            target: Gfx1010,
            kind: F32,
            bytes: &[0x03, 0x00, 0x06, 0xd5, 0x00, 0x03, 0x02, 0x40],
            oracle: |v| {
                let (a, b) = dx9(v[0], neg32(v[1]), true);
                out3(v, sf_mad32(a, b, v[3]))
            },
        },
        // v_fma_f16 v3, v0, v1, v2
        Form {
            name: "v_fma_f16",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0x00, 0x4b, 0xd7, 0x00, 0x03, 0x0a, 0x04],
            oracle: |v| out3(v, keep_hi(v, sf_fma16(lo(v[0]), lo(v[1]), lo(v[2])))),
        },
        // v_fma_f16 v3, v0, v1, v2 op_sel:[1,0,1,0]
        Form {
            name: "v_fma_f16 op_sel:[1,0,1,0]",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0x28, 0x4b, 0xd7, 0x00, 0x03, 0x0a, 0x04],
            oracle: |v| out3(v, keep_hi(v, sf_fma16(hi(v[0]), lo(v[1]), hi(v[2])))),
        },
        // v_fma_f16 v3, v0, v1, v2 op_sel:[1,1,1,1] (writes the high half, keeps the low half)
        Form {
            name: "v_fma_f16 op_sel:[1,1,1,1]",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0x78, 0x4b, 0xd7, 0x00, 0x03, 0x0a, 0x04],
            oracle: |v| out3(v, lo(v[3]) | sf_fma16(hi(v[0]), hi(v[1]), hi(v[2])) << 16),
        },
        // v_fma_f16 v3, -v0, |v1|, v2 clamp
        Form {
            name: "v_fma_f16 -a |b| clamp",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0x82, 0x4b, 0xd7, 0x00, 0x03, 0x0a, 0x24],
            oracle: |v| {
                out3(
                    v,
                    keep_hi(
                        v,
                        clamp16(sf_fma16(neg16(lo(v[0])), abs16(lo(v[1])), lo(v[2]))),
                    ),
                )
            },
        },
        // v_fmac_f16_e32 v3, v0, v1
        Form {
            name: "v_fmac_f16_e32",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x00, 0x03, 0x06, 0x6c],
            oracle: |v| out3(v, keep_hi(v, sf_fma16(lo(v[0]), lo(v[1]), lo(v[3])))),
        },
        // v_fmaak_f16 v3, v0, v1, 0x3c01
        Form {
            name: "v_fmaak_f16",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x00, 0x03, 0x06, 0x70, 0x01, 0x3c, 0x00, 0x00],
            oracle: |v| out3(v, keep_hi(v, sf_fma16(lo(v[0]), lo(v[1]), 0x3c01))),
        },
        // v_fmamk_f16 v3, v0, 0x3bfe, v1
        Form {
            name: "v_fmamk_f16",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x00, 0x03, 0x06, 0x6e, 0xfe, 0x3b, 0x00, 0x00],
            oracle: |v| out3(v, keep_hi(v, sf_fma16(lo(v[0]), 0x3bfe, lo(v[1])))),
        },
        // v_pk_fma_f16 v3, v0, v1, v2
        Form {
            name: "v_pk_fma_f16",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0x40, 0x0e, 0xcc, 0x00, 0x03, 0x0a, 0x1c],
            oracle: |v| {
                out3(
                    v,
                    sf_fma16(lo(v[0]), lo(v[1]), lo(v[2]))
                        | sf_fma16(hi(v[0]), hi(v[1]), hi(v[2])) << 16,
                )
            },
        },
        // v_pk_fma_f16 v3, v0, v1, v2 op_sel:[1,0,1] op_sel_hi:[0,1,0] neg_lo:[1,0,0] neg_hi:[0,1,1] clamp
        Form {
            name: "v_pk_fma_f16 op_sel neg_lo neg_hi clamp",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0xae, 0x0e, 0xcc, 0x00, 0x03, 0x0a, 0x34],
            oracle: |v| {
                let l = clamp16(sf_fma16(neg16(hi(v[0])), lo(v[1]), hi(v[2])));
                let h = clamp16(sf_fma16(lo(v[0]), neg16(hi(v[1])), neg16(lo(v[2]))));
                out3(v, l | h << 16)
            },
        },
        // v_pk_fmac_f16 v3, v0, v1
        Form {
            name: "v_pk_fmac_f16",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x00, 0x03, 0x06, 0x78],
            oracle: |v| {
                out3(
                    v,
                    sf_fma16(lo(v[0]), lo(v[1]), lo(v[3]))
                        | sf_fma16(hi(v[0]), hi(v[1]), hi(v[3])) << 16,
                )
            },
        },
        // v_fma_mix_f32 v3, v0, v1, v2 (all f32 sources)
        Form {
            name: "v_fma_mix_f32 f32 sources",
            target: Gfx1030,
            kind: F32,
            bytes: &[0x03, 0x00, 0x20, 0xcc, 0x00, 0x03, 0x0a, 0x04],
            oracle: |v| out3(v, sf_fma32(v[0], v[1], v[2])),
        },
        // v_fma_mix_f32 v3, v0, v1, v2 op_sel_hi:[1,1,1]
        Form {
            name: "v_fma_mix_f32 half sources",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0x40, 0x20, 0xcc, 0x00, 0x03, 0x0a, 0x1c],
            oracle: |v| {
                out3(
                    v,
                    sf_fma32(sf_h2f(lo(v[0])), sf_h2f(lo(v[1])), sf_h2f(lo(v[2]))),
                )
            },
        },
        // v_fma_mix_f32 v3, -v0, v1, |v2| op_sel:[1,0,0] op_sel_hi:[1,0,1] clamp
        Form {
            name: "v_fma_mix_f32 mixed -a |c| clamp",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0xcc, 0x20, 0xcc, 0x00, 0x03, 0x0a, 0x2c],
            oracle: |v| {
                out3(
                    v,
                    clamp32(sf_fma32(
                        sf_h2f(neg16(hi(v[0]))),
                        v[1],
                        sf_h2f(abs16(lo(v[2]))),
                    )),
                )
            },
        },
        // v_fma_mixlo_f16 v3, v0, v1, v2 op_sel_hi:[1,1,1] (every source a half: one rounding to half)
        Form {
            name: "v_fma_mixlo_f16 half sources",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0x40, 0x21, 0xcc, 0x00, 0x03, 0x0a, 0x1c],
            oracle: |v| {
                out3(
                    v,
                    (v[3] & 0xffff_0000) | sf_fma16(lo(v[0]), lo(v[1]), lo(v[2])),
                )
            },
        },
        // v_fma_mixhi_f16 v3, v0, v1, v2 op_sel_hi:[1,1,1]
        Form {
            name: "v_fma_mixhi_f16 half sources",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0x40, 0x22, 0xcc, 0x00, 0x03, 0x0a, 0x1c],
            oracle: |v| out3(v, lo(v[3]) | sf_fma16(lo(v[0]), lo(v[1]), lo(v[2])) << 16),
        },
        // v_fma_mixlo_f16 v3, v0, v1, v2 op_sel_hi:[1,0,1] (an f32 source: f32, then half)
        Form {
            name: "v_fma_mixlo_f16 f32 source",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0x40, 0x21, 0xcc, 0x00, 0x03, 0x0a, 0x0c],
            oracle: |v| {
                out3(
                    v,
                    (v[3] & 0xffff_0000)
                        | sf_f2h(sf_fma32(sf_h2f(lo(v[0])), v[1], sf_h2f(lo(v[2])))),
                )
            },
        },
        // v_fma_mixlo_f16 v3, -v0, |v1|, v2 op_sel:[1,0,0] op_sel_hi:[1,1,1] clamp
        Form {
            name: "v_fma_mixlo_f16 -a |b| op_sel clamp",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0xca, 0x21, 0xcc, 0x00, 0x03, 0x0a, 0x3c],
            oracle: |v| {
                out3(
                    v,
                    (v[3] & 0xffff_0000)
                        | clamp16(sf_fma16(neg16(hi(v[0])), abs16(lo(v[1])), lo(v[2]))),
                )
            },
        },
        // v_fma_mixhi_f16 v3, v0, v1, v2 op_sel:[0,1,0] op_sel_hi:[1,0,1] clamp
        Form {
            name: "v_fma_mixhi_f16 f32 source clamp",
            target: Gfx1030,
            kind: F16,
            bytes: &[0x03, 0xd0, 0x22, 0xcc, 0x00, 0x03, 0x0a, 0x0c],
            oracle: |v| {
                out3(
                    v,
                    lo(v[3])
                        | clamp16(sf_f2h(sf_fma32(sf_h2f(lo(v[0])), v[1], sf_h2f(lo(v[2]))))) << 16,
                )
            },
        },
        // v_fma_f64 v[4:5], v[0:1], v[2:3], v[6:7]
        Form {
            name: "v_fma_f64",
            target: Gfx1030,
            kind: F64,
            bytes: &[0x04, 0x00, 0x4c, 0xd5, 0x00, 0x05, 0x1a, 0x04],
            oracle: |v| {
                let q = |i: usize| v[i] as u64 | (v[i + 1] as u64) << 32;
                let r = sf_fma64(q(0), q(2), q(6));
                [v[3], r as u32, (r >> 32) as u32, v[6]]
            },
        },
        // v_fma_f64 v[4:5], -v[0:1], |v[2:3]|, v[6:7] clamp
        Form {
            name: "v_fma_f64 -a |b| clamp",
            target: Gfx1030,
            kind: F64,
            bytes: &[0x04, 0x82, 0x4c, 0xd5, 0x00, 0x05, 0x1a, 0x24],
            oracle: |v| {
                let q = |i: usize| v[i] as u64 | (v[i + 1] as u64) << 32;
                let r = sf_fma64(q(0) ^ 1 << 63, q(2) & !(1 << 63), q(6));
                let x = f64::from_bits(r);
                let r = if x.is_nan() || x <= 0.0 {
                    0
                } else if x >= 1.0 {
                    1f64.to_bits()
                } else {
                    r
                };
                [v[3], r as u32, (r >> 32) as u32, v[6]]
            },
        },
    ]
}

// ---------------------------------------------------------------------------------------------------
// Operands: random bits, boundary values, moderate values, cancellation (c ≈ −a·b) and the neighbourhood
// of D993's operands, where fused and unfused results differ.

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
}

const B32: &[u32] = &[
    0,
    0x8000_0000,
    1,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0001,
    0x7f80_0001,
    0x3f80_0000,
    0xbf80_0000,
    0x3f80_0001,
    0x3f7f_ffff,
    0x3380_0000,
    0x3f00_0000,
    0x4000_0000,
    0x3f80_0800,
    0xbf80_1000,
    0x1a00_0000,
    0x0040_0000,
];
const B16: &[u32] = &[
    0, 0x8000, 1, 0x8001, 0x03ff, 0x0400, 0x8400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe01,
    0x7c01, 0x3c00, 0xbc00, 0x3c01, 0x3bff, 0x3800, 0x4000, 0x1001, 0x3bfe, 0xb800, 0x0200,
];

fn f32_operand(r: &mut Rng) -> u32 {
    match r.next() % 4 {
        0 => r.u32(),
        1 => B32[(r.next() % B32.len() as u64) as usize],
        _ => {
            let s = r.u32() & 0x8000_0000;
            let e = 127 - 12 + (r.next() % 25) as u32;
            s | e << 23 | (r.u32() & 0x7f_ffff)
        }
    }
}

fn f32_triple(r: &mut Rng) -> [u32; 3] {
    match r.next() % 5 {
        0 | 1 => [f32_operand(r), f32_operand(r), f32_operand(r)],
        2 => {
            let (a, b) = (f32_operand(r), f32_operand(r));
            let p = f32::from_bits(a) * f32::from_bits(b);
            let c = (-p)
                .to_bits()
                .wrapping_add((r.next() % 5) as u32)
                .wrapping_sub(2);
            [a, b, c]
        }
        _ => {
            // Near D993's triple a = b = 1 + 2^-12, c = -(1 + 2^-11).
            let d = |r: &mut Rng| ((r.next() % 7) as u32).wrapping_sub(3);
            [
                0x3f80_0800u32.wrapping_add(d(r)),
                0x3f80_0800u32.wrapping_add(d(r)),
                0xbf80_1000u32.wrapping_add(d(r)),
            ]
        }
    }
}

fn f16_operand(r: &mut Rng) -> u32 {
    match r.next() % 4 {
        0 => r.u32() & 0xffff,
        1 => B16[(r.next() % B16.len() as u64) as usize],
        _ => {
            let s = r.u32() & 0x8000;
            let e = 15 - 6 + (r.next() % 13) as u32;
            s | e << 10 | (r.u32() & 0x3ff)
        }
    }
}

fn f16_triple(r: &mut Rng) -> [u32; 3] {
    match r.next() % 5 {
        0 | 1 => [f16_operand(r), f16_operand(r), f16_operand(r)],
        2 => {
            let (a, b) = (f16_operand(r), f16_operand(r));
            let p = f32::from_bits(sf_h2f(a)) * f32::from_bits(sf_h2f(b));
            let c = sf_f2h((-p).to_bits())
                .wrapping_add((r.next() % 5) as u32)
                .wrapping_sub(2)
                & 0xffff;
            [a, b, c]
        }
        _ => {
            // Near D993's half triple a = 2^-11 (1 + 2^-10), b = 1 - 2^-10, c = 1 + 2^-10.
            let d = |r: &mut Rng| ((r.next() % 5) as u32).wrapping_sub(2);
            [
                0x1001u32.wrapping_add(d(r)) & 0xffff,
                0x3bfeu32.wrapping_add(d(r)) & 0xffff,
                0x3c01u32.wrapping_add(d(r)) & 0xffff,
            ]
        }
    }
}

fn f64_operand(r: &mut Rng) -> u64 {
    const B: &[u64] = &[
        0,
        1 << 63,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x3ff0_0000_0000_0000,
        0xbff0_0000_0000_0000,
        0x3ff0_0000_0200_0000,
        0xbff0_0000_0400_0000,
        0x3fe0_0000_0000_0000,
    ];
    match r.next() % 4 {
        0 => r.next(),
        1 => B[(r.next() % B.len() as u64) as usize],
        _ => {
            let s = r.next() & 1 << 63;
            let e = 1023 - 30 + r.next() % 61;
            s | e << 52 | (r.next() & ((1 << 52) - 1))
        }
    }
}

fn inputs(kind: Kind, n: usize, seed: u64) -> Vec<[u32; 8]> {
    let mut r = Rng(seed);
    let mut v = Vec::with_capacity(n);
    // The seed's operands first (D993), then generated ones.
    match kind {
        Kind::F32 => {
            let (a, c) = (0x3f80_0800, 0xbf80_1000);
            v.push([
                a,
                a,
                c,
                c,
                0x1111_1111,
                0x2222_2222,
                0x3333_3333,
                0x4444_4444,
            ]);
        }
        Kind::F16 => {
            let (a, b, c) = (0x1001, 0x3bfe, 0x3c01);
            let w = |x: u32| x | x << 16;
            v.push([
                w(a),
                w(b),
                w(c),
                w(c),
                0x1111_1111,
                0x2222_2222,
                0x3333_3333,
                0x4444_4444,
            ]);
        }
        Kind::F64 => {}
    }
    while v.len() < n {
        let mut x = [0u32; 8];
        match kind {
            Kind::F32 => {
                let t = f32_triple(&mut r);
                let u = f32_triple(&mut r);
                x[..3].copy_from_slice(&t);
                // v3 (the accumulator of the MAC/FMAC forms) cancels the product as v2 does, or not.
                x[3] = if r.next().is_multiple_of(2) {
                    t[2]
                } else {
                    u[2]
                };
                for w in x[4..].iter_mut() {
                    *w = r.u32();
                }
            }
            Kind::F16 => {
                let t = f16_triple(&mut r);
                let u = f16_triple(&mut r);
                // Mix forms read v1 as an f32 source in some variants: sometimes a full f32 there.
                let v1_f32 = r.next().is_multiple_of(4);
                for (k, w) in x[..3].iter_mut().enumerate() {
                    *w = t[k] | u[k] << 16;
                }
                if v1_f32 {
                    x[1] = f32_triple(&mut r)[0];
                }
                let w = f16_triple(&mut r);
                x[3] = if r.next().is_multiple_of(2) {
                    t[2] | u[2] << 16
                } else {
                    w[2] | w[0] << 16
                };
                for w in x[4..].iter_mut() {
                    *w = r.u32();
                }
            }
            Kind::F64 => {
                let (a, b) = (f64_operand(&mut r), f64_operand(&mut r));
                let c = match r.next() % 3 {
                    0 => {
                        let p = f64::from_bits(a) * f64::from_bits(b);
                        (-p).to_bits().wrapping_add(r.next() % 5).wrapping_sub(2)
                    }
                    _ => f64_operand(&mut r),
                };
                for (k, q) in [(0, a), (2, b), (6, c)] {
                    x[k] = q as u32;
                    x[k + 1] = (q >> 32) as u32;
                }
                for k in [4, 5] {
                    x[k] = r.u32();
                }
            }
        }
        v.push(x);
    }
    v
}

fn device_n() -> usize {
    std::env::var("RDNA2SPV_FMA_DEVICE_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

fn profile(ctx: &Context) -> DeviceProfile {
    probe(ctx).expect("the device profile is probed")
}

/// The forms chosen by `pick`, on the host and on lavapipe, against SoftFloat: 0 differing words.
fn check_forms(pick: impl Fn(&Form) -> bool) {
    let ctx = lavapipe();
    let prof = profile(&ctx);
    let n = device_n();
    let mut failures = Vec::new();
    for (i, f) in forms().into_iter().enumerate() {
        if !pick(&f) {
            continue;
        }
        let t = std::time::Instant::now();
        let p = kernel(f.target, f.bytes);
        let ins = inputs(f.kind, n, 0x5eed_0000 + i as u64);
        let (host, dev) = run_both(&ctx, &prof, &p, &ins);
        let (mut mh, mut md, mut first) = (0usize, 0usize, None);
        for (k, x) in ins.iter().enumerate() {
            let want = (f.oracle)(x);
            let h = &host[4 * k..4 * k + 4];
            let d = &dev[4 * k..4 * k + 4];
            if h != want {
                mh += 1;
            }
            if d != want {
                md += 1;
            }
            if (h != want || d != want) && first.is_none() {
                first = Some(format!(
                    "inputs {x:08x?}: softfloat {want:08x?}, host {h:08x?}, device {d:08x?}"
                ));
            }
        }
        eprintln!(
            "{:42} {n} operands: host vs SoftFloat {mh} differ, device vs SoftFloat {md} differ ({:?})",
            f.name,
            t.elapsed()
        );
        if mh + md > 0 {
            failures.push(format!("{}: {}", f.name, first.unwrap()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// The forms in groups, so that each test stays near half a minute in a debug build.
// coverage: single_precision_fused_and_legacy_forms: V_FMA_F32 V_FMAC_F32 V_FMAAK_F32 V_FMAMK_F32 V_FMA_LEGACY_F32 V_FMAC_LEGACY_F32 V_MUL_LEGACY_F32
#[test]
fn single_precision_fused_and_legacy_forms() {
    check_forms(|f| f.kind == Kind::F32 && f.target == Target::Gfx1030);
}

// coverage: single_precision_unfused_forms_gfx1010: V_MAD_F32 V_MAC_F32 V_MADAK_F32 V_MADMK_F32 V_MAD_LEGACY_F32 V_MAC_LEGACY_F32
#[test]
fn single_precision_unfused_forms_gfx1010() {
    check_forms(|f| f.kind == Kind::F32 && f.target == Target::Gfx1010);
}

// coverage: half_precision_vop2_vop3_and_packed_forms: V_FMA_F16 V_FMAC_F16 V_FMAAK_F16 V_FMAMK_F16 V_PK_FMA_F16 V_PK_FMAC_F16
#[test]
fn half_precision_vop2_vop3_and_packed_forms() {
    check_forms(|f| f.kind == Kind::F16 && !f.name.starts_with("v_fma_mix"));
}

// coverage: mix_forms: V_FMA_MIX_F32 V_FMA_MIXLO_F16 V_FMA_MIXHI_F16
#[test]
fn mix_forms() {
    check_forms(|f| f.kind == Kind::F16 && f.name.starts_with("v_fma_mix"));
}

// coverage: double_precision_forms: V_FMA_F64
#[test]
fn double_precision_forms() {
    check_forms(|f| f.kind == Kind::F64);
}

fn triples_n() -> usize {
    std::env::var("RDNA2SPV_FMA_TRIPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000)
}

/// The evaluator's primitives (rdna2spv_eval::specialize) against SoftFloat over `RDNA2SPV_FMA_TRIPLES`
/// (default 10^6) random + boundary + cancellation + seed-neighbourhood triples per primitive, and
/// fused_to_half over every f16 `c` for 96 (a, b) pairs: 0 differences.
#[test]
fn evaluator_primitives_match_softfloat() {
    use rdna2spv_eval::specialize as sp;
    let n = triples_n();
    let mut r = Rng(0xf00d_5eed);
    let (mut m_fma32, mut m_mad32, mut m_fma16, mut m_fma64, mut m_mix) = (0, 0, 0, 0, 0);
    let mut differ_fused_unfused = 0usize;
    for _ in 0..n {
        let [a, b, c] = f32_triple(&mut r);
        let fused = sp::f32_fma(a, b, c);
        if fused != sf_fma32(a, b, c) {
            m_fma32 += 1;
        }
        let unfused = sp::f32_legacy_mad(a, b, c);
        if unfused != sf_mad32(a, b, c) {
            m_mad32 += 1;
        }
        if fused != unfused {
            differ_fused_unfused += 1;
        }
        let [x, y, z] = f16_triple(&mut r);
        if sp::f16_fma_to_half(x as u16, y as u16, z as u16) as u32 != sf_fma16(x, y, z) {
            m_fma16 += 1;
        }
        // A mix narrowing to half with an f32 source: f32 then half.
        let via = sp::f32_to_f16(sp::f32_fma(
            sp::f16_to_f32(x as u16),
            b,
            sp::f16_to_f32(z as u16),
        ));
        if via as u32 != sf_f2h(sf_fma32(sf_h2f(x), b, sf_h2f(z))) {
            m_mix += 1;
        }
        let (p, q) = (f64_operand(&mut r), f64_operand(&mut r));
        let w = if r.next().is_multiple_of(3) {
            (-(f64::from_bits(p) * f64::from_bits(q)))
                .to_bits()
                .wrapping_add(r.next() % 5)
                .wrapping_sub(2)
        } else {
            f64_operand(&mut r)
        };
        if sp::f64_fma(p, q, w) != sf_fma64(p, q, w) {
            m_fma64 += 1;
        }
    }
    eprintln!(
        "{n} triples each: f32 fma {m_fma32}, f32 unfused {m_mad32}, f16 fused_to_half {m_fma16}, \
         mix f32->f16 {m_mix}, f64 fma {m_fma64} differ from SoftFloat; fused != unfused on \
         {differ_fused_unfused}"
    );
    // Every f16 c for a sample of (a, b): boundary pairs, the seed's pair and random pairs.
    let mut pairs: Vec<(u32, u32)> = vec![(0x1001, 0x3bfe), (0x3c00, 0x3c00), (0x0001, 0x3c00)];
    for i in 0..93 {
        pairs.push(if i % 3 == 0 {
            (B16[i % B16.len()], B16[(i * 7 + 3) % B16.len()])
        } else {
            (f16_operand(&mut r), f16_operand(&mut r))
        });
    }
    let mut m_sweep = 0usize;
    for &(a, b) in &pairs {
        for c in 0..=0xffffu32 {
            if sp::f16_fma_to_half(a as u16, b as u16, c as u16) as u32 != sf_fma16(a, b, c) {
                m_sweep += 1;
            }
        }
    }
    eprintln!(
        "fused_to_half over every f16 c for {} (a, b) pairs ({} triples): {m_sweep} differ",
        pairs.len(),
        pairs.len() * 65536
    );
    assert_eq!(
        (m_fma32, m_mad32, m_fma16, m_mix, m_fma64, m_sweep),
        (0, 0, 0, 0, 0, 0)
    );
    assert!(
        differ_fused_unfused > n / 100,
        "the operands must separate fused from unfused"
    );
}

/// D993's hand-worked values, through the real instructions, on the host and on lavapipe.
#[test]
fn seed_operands_give_the_hand_worked_values() {
    let ctx = lavapipe();
    let prof = profile(&ctx);
    let all = forms();
    let get = |name: &str| all.iter().find(|f| f.name == name).unwrap();
    // Single precision: a = b = 1 + 2^-12, c = -(1 + 2^-11): fused 2^-24, unfused 0.
    let a = 0x3f80_0800;
    let c = 0xbf80_1000;
    let x32 = [a, a, c, c, 0, 0, 0, 0];
    let check = |name: &str, x: [u32; 8], want: u32, mask: u32| {
        let f = get(name);
        // The *mk forms take b from the literal and c from v1.
        let mut x = x;
        if name.contains("mk") {
            x[1] = x[2];
        }
        let p = kernel(f.target, f.bytes);
        let (h, d) = run_both(&ctx, &prof, &p, &[x; 32]);
        assert_eq!(h[0] & mask, want, "{name} on the host");
        assert_eq!(d[0] & mask, want, "{name} on lavapipe");
    };
    for name in [
        "v_fma_f32",
        "v_fmac_f32_e32",
        "v_fmaak_f32",
        "v_fmamk_f32",
        "v_fma_legacy_f32",
        "v_fmac_legacy_f32_e32",
        "v_fma_mix_f32 f32 sources",
    ] {
        check(name, x32, 0x3380_0000, !0); // 2^-24
    }
    for name in [
        "v_mad_f32 (gfx1010)",
        "v_mac_f32_e32 (gfx1010)",
        "v_madak_f32 (gfx1010)",
        "v_madmk_f32 (gfx1010)",
        "v_mac_legacy_f32_e32 (gfx1010)",
    ] {
        check(name, x32, 0, !0);
    }
    // Half: a = 2^-11 (1 + 2^-10), b = 1 - 2^-10, c = 1 + 2^-10: 0x3c01 rounded once.
    let w = |x: u32| x | x << 16;
    let x16 = [w(0x1001), w(0x3bfe), w(0x3c01), w(0x3c01), 0, 0, 0, 0];
    for name in [
        "v_fma_f16",
        "v_fmac_f16_e32",
        "v_fmaak_f16",
        "v_fmamk_f16",
        "v_fma_mixlo_f16 half sources",
    ] {
        check(name, x16, 0x3c01, 0xffff);
    }
    check("v_pk_fma_f16", x16, 0x3c01_3c01, !0);
    check("v_pk_fmac_f16", x16, 0x3c01_3c01, !0);
    check(
        "v_fma_mixhi_f16 half sources",
        x16,
        0x3c01_0000,
        0xffff_0000,
    );
}

/// D993's rejected alternatives really are wrong on the seed's operands, on the host and on lavapipe —
/// so the tests above can fail.
#[test]
fn rejected_alternatives_give_the_wrong_answers() {
    let ctx = lavapipe();
    let prof = profile(&ctx);
    // NoContraction multiply and add for a fused form (the lowering decorates every float op so):
    //   v_mul_f32_e32 v8, v0, v1   ; [0x00,0x03,0x10,0x10]
    //   v_add_f32_e32 v3, v8, v2   ; [0x08,0x05,0x06,0x06]
    let p = kernel(
        Target::Gfx1030,
        &[0x00, 0x03, 0x10, 0x10, 0x08, 0x05, 0x06, 0x06],
    );
    let (a, c) = (0x3f80_0800, 0xbf80_1000);
    let (h, d) = run_both(&ctx, &prof, &p, &[[a, a, c, c, 0, 0, 0, 0]; 32]);
    assert_eq!((h[0], d[0]), (0, 0), "mul+add gives 0, not the fused 2^-24");
    assert_eq!(sf_fma32(a, a, c), 0x3380_0000);
    // The half form computed in single precision and narrowed:
    //   v_fma_mix_f32 v8, v0, v1, v2 op_sel_hi:[1,1,1]  ; [0x08,0x40,0x20,0xcc,0x00,0x03,0x0a,0x1c]
    //   v_fma_mixlo_f16 v3, v8, 1.0, 0                  ; [0x03,0x00,0x21,0xcc,0x08,0xe5,0x01,0x02]
    let p = kernel(
        Target::Gfx1030,
        &[
            0x08, 0x40, 0x20, 0xcc, 0x00, 0x03, 0x0a, 0x1c, 0x03, 0x00, 0x21, 0xcc, 0x08, 0xe5,
            0x01, 0x02,
        ],
    );
    let x = [0x1001, 0x3bfe, 0x3c01, 0, 0, 0, 0, 0];
    let (h, d) = run_both(&ctx, &prof, &p, &[x; 32]);
    assert_eq!(
        (h[0] & 0xffff, d[0] & 0xffff),
        (0x3c02, 0x3c02),
        "through f32: the double rounding"
    );
    assert_eq!(sf_fma16(0x1001, 0x3bfe, 0x3c01), 0x3c01);
}

/// The round-to-odd f32 fused multiply-add as the lowering emits it (rdna2spv_spirv::exact::host::fma_f32,
/// D150's `(s + d) | 1` step) against SoftFloat's f32_mulAdd: `RDNA2SPV_FMA_TRIPLES` (default 10^6)
/// random + boundary + cancellation triples and as many f64-midpoint triples, 0 differences; the midpoint
/// triples must discriminate (rounding the f64 sum twice gets many of them wrong).
#[test]
fn round_to_odd_fma_model_matches_softfloat() {
    use rdna2spv_spirv::exact::host::fma_f32;
    let n = triples_n();
    let mut r = Rng(0x0dd_0150);
    let (mut bad, mut twice_wrong) = (Vec::new(), 0usize);
    for i in 0..2 * n {
        let t = if i % 2 == 0 {
            f32_triple(&mut r)
        } else {
            rdna2spv_spirv::exact::host::fma_midpoint_triple(&mut || r.u32())
        };
        let [a, b, c] = t.map(f32::from_bits);
        let got = c32(fma_f32(a, b, c).to_bits());
        let want = sf_fma32(t[0], t[1], t[2]);
        if got != want {
            bad.push(format!("{t:08x?} -> {got:08x}, want {want:08x}"));
        }
        let twice = (f64::from(a) * f64::from(b) + f64::from(c)) as f32;
        if i % 2 == 1 && c32(twice.to_bits()) != want {
            twice_wrong += 1;
        }
    }
    eprintln!(
        "{} triples: {} differ from SoftFloat; the f64 sum rounded twice is wrong on {twice_wrong} of the \
         {n} midpoint triples",
        2 * n,
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "{} differ, e.g. {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
    assert!(
        twice_wrong > n / 10,
        "the midpoint triples must discriminate: {twice_wrong}"
    );
}

/// v_fma_f64 over the triples that reach every path of the float emulation (D209: subnormal results, the
/// overflow boundary, far addends, ties, subnormal operands), on the host and on lavapipe, against
/// SoftFloat; a NaN result is D005's NaN.
#[test]
fn double_precision_fma_on_every_path() {
    let ctx = lavapipe();
    let prof = profile(&ctx);
    let f = forms()
        .into_iter()
        .find(|f| f.name == "v_fma_f64")
        .expect("the v_fma_f64 form");
    let p = kernel(f.target, f.bytes);
    let mut r = f64_triples::Rng(0xd209_0001);
    let directed = f64_triples::directed();
    let ins: Vec<[u32; 8]> = (0..directed.len() + device_n())
        .map(|i| {
            let (a, b, c) = match directed.get(i) {
                Some(&t) => t,
                None => f64_triples::triple(&mut r),
            };
            let (a, b, c) = (a.to_bits(), b.to_bits(), c.to_bits());
            let x = r.next();
            [
                a as u32,
                (a >> 32) as u32,
                b as u32,
                (b >> 32) as u32,
                x as u32,
                (x >> 32) as u32,
                c as u32,
                (c >> 32) as u32,
            ]
        })
        .collect();
    let (host, dev) = run_both(&ctx, &prof, &p, &ins);
    let (mut mh, mut md, mut first) = (0usize, 0usize, None);
    for (k, x) in ins.iter().enumerate() {
        let want = (f.oracle)(x);
        let (h, d) = (&host[4 * k..4 * k + 4], &dev[4 * k..4 * k + 4]);
        mh += usize::from(h != want);
        md += usize::from(d != want);
        if (h != want || d != want) && first.is_none() {
            first = Some(format!(
                "inputs {x:08x?}: softfloat {want:08x?}, host {h:08x?}, device {d:08x?}"
            ));
        }
    }
    eprintln!(
        "v_fma_f64 on every path, {} triples: host {mh}, device {md} differ from SoftFloat",
        ins.len()
    );
    assert_eq!((mh, md), (0, 0), "{}", first.unwrap_or_default());
}
