//! Scalar ALU instructions (crates/ir/src/lift/salu.rs and lift.rs) through the opcheck harness: host vs
//! lavapipe bit-identical, host vs a Rust reference written from the RDNA 2 ISA guide's SALU definitions
//! with Rust's integer operations (reverse_bits, trailing_zeros, leading_zeros, count_ones, checked/
//! overflowing arithmetic). SGPR operands differ per wave, so these run in the packed scalar frame
//! ([`opcheck::packed::check_packed`], D073): 4096 waves per instruction, ≥ 4096 operand sets.

mod opcheck;
use opcheck::packed::{check_packed, sop as op, sop_exec as op_exec, SOp, Sc as Frame};

fn nz(f: &mut Frame, r: u32) {
    f.set_s(16, r);
    f.scc = r != 0;
}
fn nz64(f: &mut Frame, r: u64) {
    f.set_s64(16, r);
    f.scc = r != 0;
}
fn mask32(w: u32) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1u32 << w) - 1
    }
}
fn mask64(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}
/// BFE: offset S1[4:0] (5:0), width S1[22:16]; signed forms sign-extend from bit width-1.
fn bfe32(x: u32, s1: u32, signed: bool) -> u32 {
    let (off, w) = (s1 & 31, (s1 >> 16) & 0x7f);
    if w == 0 {
        return 0;
    }
    let v = (x >> off) & mask32(w);
    if signed && w < 32 && v >> (w - 1) & 1 != 0 {
        v | !mask32(w)
    } else {
        v
    }
}
fn bfe64(x: u64, s1: u32, signed: bool) -> u64 {
    let (off, w) = (s1 & 63, (s1 >> 16) & 0x7f);
    if w == 0 {
        return 0;
    }
    let v = (x >> off) & mask64(w);
    if signed && w < 64 && v >> (w - 1) & 1 != 0 {
        v | !mask64(w)
    } else {
        v
    }
}
fn quads(x: u64, groups: u32) -> u64 {
    (0..groups).fold(0, |m, i| m | (((x >> (4 * i)) & 0xf != 0) as u64) << i)
}
fn wqm(x: u64, groups: u32) -> u64 {
    (0..groups).fold(0, |m, i| {
        m | if (x >> (4 * i)) & 0xf != 0 {
            0xf << (4 * i)
        } else {
            0
        }
    })
}
fn ff1(x: u64) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.trailing_zeros()
    }
}
fn flbit32(x: u32) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.leading_zeros()
    }
}
fn flbit64(x: u64) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.leading_zeros()
    }
}
fn sext16(k: u32) -> u32 {
    k as u16 as i16 as i32 as u32
}

fn ops() -> Vec<SOp> {
    vec![
        op("s_nand_b32 s16, s8, s9", &[0x8c10_0908], |f| {
            nz(f, !(f.s(8) & f.s(9)))
        }),
        op(
            "s_nor_b64 s[16:17], s[8:9], s[10:11]",
            &[0x8d90_0a08],
            |f| nz64(f, !(f.s64(8) | f.s64(10))),
        ),
        op("s_xnor_b32 s16, s8, s9", &[0x8e10_0908], |f| {
            nz(f, !(f.s(8) ^ f.s(9)))
        }),
        op("s_bfm_b32 s16, s8, s9", &[0x9210_0908], |f| {
            f.set_s(16, mask32(f.s(8) & 31) << (f.s(9) & 31))
        }),
        op("s_bfm_b64 s[16:17], s8, s9", &[0x9290_0908], |f| {
            f.set_s64(16, mask64(f.s(8) & 63) << (f.s(9) & 63))
        }),
        op("s_bfe_u32 s16, s8, s9", &[0x9390_0908], |f| {
            nz(f, bfe32(f.s(8), f.s(9), false))
        }),
        op("s_bfe_i32 s16, s8, s9", &[0x9410_0908], |f| {
            nz(f, bfe32(f.s(8), f.s(9), true))
        }),
        op("s_bfe_u64 s[16:17], s[8:9], s10", &[0x9490_0a08], |f| {
            nz64(f, bfe64(f.s64(8), f.s(10), false))
        }),
        op("s_bfe_i64 s[16:17], s[8:9], s10", &[0x9510_0a08], |f| {
            nz64(f, bfe64(f.s64(8), f.s(10), true))
        }),
        op("s_absdiff_i32 s16, s8, s9", &[0x9610_0908], |f| {
            nz(
                f,
                (f.s(8) as i32).wrapping_sub(f.s(9) as i32).unsigned_abs(),
            )
        }),
        op("s_lshl1_add_u32 s16, s8, s9", &[0x9710_0908], |f| {
            let r = ((f.s(8) as u64) << 1) + f.s(9) as u64;
            f.set_s(16, r as u32);
            f.scc = r >> 32 != 0;
        }),
        op("s_lshl4_add_u32 s16, s8, s9", &[0x9890_0908], |f| {
            let r = ((f.s(8) as u64) << 4) + f.s(9) as u64;
            f.set_s(16, r as u32);
            f.scc = r >> 32 != 0;
        }),
        op("s_pack_ll_b32_b16 s16, s8, s9", &[0x9910_0908], |f| {
            f.set_s(16, f.s(8) & 0xffff | f.s(9) << 16)
        }),
        op("s_pack_lh_b32_b16 s16, s8, s9", &[0x9990_0908], |f| {
            f.set_s(16, f.s(8) & 0xffff | f.s(9) & 0xffff_0000)
        }),
        op("s_pack_hh_b32_b16 s16, s8, s9", &[0x9a10_0908], |f| {
            f.set_s(16, f.s(8) >> 16 | f.s(9) & 0xffff_0000)
        }),
        op("s_mul_hi_u32 s16, s8, s9", &[0x9a90_0908], |f| {
            f.set_s(16, ((f.s(8) as u64 * f.s(9) as u64) >> 32) as u32)
        }),
        op("s_mul_hi_i32 s16, s8, s9", &[0x9b10_0908], |f| {
            f.set_s(
                16,
                ((f.s(8) as i32 as i64 * f.s(9) as i32 as i64) >> 32) as u32,
            )
        }),
        op("s_not_b64 s[16:17], s[8:9]", &[0xbe90_0808], |f| {
            nz64(f, !f.s64(8))
        }),
        op("s_cmov_b32 s16, s8", &[0xbe90_0508], |f| {
            if f.scc {
                f.set_s(16, f.s(8))
            }
        }),
        op("s_wqm_b32 s16, s8", &[0xbe90_0908], |f| {
            nz(f, wqm(f.s(8) as u64, 8) as u32)
        }),
        op("s_quadmask_b32 s16, s8", &[0xbe90_2c08], |f| {
            nz(f, quads(f.s(8) as u64, 8) as u32)
        }),
        op("s_quadmask_b64 s[16:17], s[8:9]", &[0xbe90_2d08], |f| {
            nz64(f, quads(f.s64(8), 16))
        }),
        op("s_brev_b32 s16, s8", &[0xbe90_0b08], |f| {
            f.set_s(16, f.s(8).reverse_bits())
        }),
        op("s_brev_b64 s[16:17], s[8:9]", &[0xbe90_0c08], |f| {
            f.set_s64(16, f.s64(8).reverse_bits())
        }),
        op("s_bcnt0_i32_b64 s16, s[8:9]", &[0xbe90_0e08], |f| {
            nz(f, f.s64(8).count_zeros())
        }),
        op("s_ff0_i32_b32 s16, s8", &[0xbe90_1108], |f| {
            f.set_s(16, ff1(!f.s(8) as u64))
        }),
        op("s_ff1_i32_b64 s16, s[8:9]", &[0xbe90_1408], |f| {
            f.set_s(16, ff1(f.s64(8)))
        }),
        op("s_flbit_i32_b32 s16, s8", &[0xbe90_1508], |f| {
            f.set_s(16, flbit32(f.s(8)))
        }),
        op("s_flbit_i32_b64 s16, s[8:9]", &[0xbe90_1608], |f| {
            f.set_s(16, flbit64(f.s64(8)))
        }),
        // The first bit from the MSB that differs from the sign bit; -1 for 0 and -1.
        op("s_flbit_i32 s16, s8", &[0xbe90_1708], |f| {
            let x = f.s(8);
            f.set_s(16, flbit32(if (x as i32) < 0 { !x } else { x }))
        }),
        op("s_flbit_i32_i64 s16, s[8:9]", &[0xbe90_1808], |f| {
            let x = f.s64(8);
            f.set_s(16, flbit64(if (x as i64) < 0 { !x } else { x }))
        }),
        op("s_sext_i32_i8 s16, s8", &[0xbe90_1908], |f| {
            f.set_s(16, f.s(8) as i8 as i32 as u32)
        }),
        op("s_sext_i32_i16 s16, s8", &[0xbe90_1a08], |f| {
            f.set_s(16, f.s(8) as i16 as i32 as u32)
        }),
        op("s_bitset0_b32 s16, s8", &[0xbe90_1b08], |f| {
            f.set_s(16, f.s(16) & !(1 << (f.s(8) & 31)))
        }),
        op("s_bitset1_b64 s[16:17], s8", &[0xbe90_1e08], |f| {
            f.set_s64(16, f.s64(16) | 1 << (f.s(8) & 63))
        }),
        op("s_abs_i32 s16, s8", &[0xbe90_3408], |f| {
            nz(f, (f.s(8) as i32).unsigned_abs())
        }),
        op_exec("s_orn2_saveexec_b32 s16, s8", &[0xbe90_4008], |f| {
            let e = f.exec as u32;
            f.set_s(16, e);
            f.exec = (f.s(8) | !e) as u64;
            f.scc = f.exec != 0;
        }),
        op_exec("s_xnor_saveexec_b32 s16, s8", &[0xbe90_4308], |f| {
            let e = f.exec as u32;
            f.set_s(16, e);
            f.exec = !(f.s(8) ^ e) as u64;
            f.scc = f.exec != 0;
        }),
        op_exec("s_andn1_saveexec_b32 s16, s8", &[0xbe90_4408], |f| {
            let e = f.exec as u32;
            f.set_s(16, e);
            f.exec = (e & !f.s(8)) as u64;
            f.scc = f.exec != 0;
        }),
        op_exec("s_andn2_wrexec_b32 s16, s8", &[0xbe90_4708], |f| {
            let e = f.s(8) & !(f.exec as u32);
            f.exec = e as u64;
            f.set_s(16, e);
            f.scc = e != 0;
        }),
        op("s_cmovk_i32 s16, 0x8123", &[0xb110_8123], |f| {
            if f.scc {
                f.set_s(16, sext16(0x8123))
            }
        }),
        op("s_cmpk_lt_i32 s16, 0x8123", &[0xb390_8123], |f| {
            f.scc = (f.s(16) as i32) < sext16(0x8123) as i32
        }),
        op("s_cmpk_ge_u32 s16, 0x8123", &[0xb610_8123], |f| {
            f.scc = f.s(16) >= 0x8123
        }),
        op("s_addk_i32 s16, 0x8123", &[0xb790_8123], |f| {
            let (r, o) = (f.s(16) as i32).overflowing_add(sext16(0x8123) as i32);
            f.set_s(16, r as u32);
            f.scc = o;
        }),
        op("s_mulk_i32 s16, 0x7123", &[0xb810_7123], |f| {
            f.set_s(16, f.s(16).wrapping_mul(0x7123))
        }),
        op("s_bitcmp0_b32 s8, s9", &[0xbf0c_0908], |f| {
            f.scc = f.s(8) >> (f.s(9) & 31) & 1 == 0
        }),
        op("s_bitcmp1_b64 s[8:9], s10", &[0xbf0f_0a08], |f| {
            f.scc = f.s64(8) >> (f.s(10) & 63) & 1 != 0
        }),
    ]
}

// coverage: scalar_alu: S_NAND_B32 S_NOR_B64 S_XNOR_B32 S_BFM_B32 S_BFM_B64 S_BFE_U32 S_BFE_I32 S_BFE_U64 S_BFE_I64 S_ABSDIFF_I32 S_LSHL1_ADD_U32 S_LSHL4_ADD_U32 S_PACK_LL_B32_B16 S_PACK_LH_B32_B16 S_PACK_HH_B32_B16 S_MUL_HI_U32 S_MUL_HI_I32 S_NOT_B64 S_CMOV_B32 S_WQM_B32 S_QUADMASK_B32 S_QUADMASK_B64 S_BREV_B32 S_BREV_B64 S_BCNT0_I32_B64 S_FF0_I32_B32 S_FF1_I32_B64 S_FLBIT_I32_B32 S_FLBIT_I32_B64 S_FLBIT_I32 S_FLBIT_I32_I64 S_SEXT_I32_I8 S_SEXT_I32_I16 S_BITSET0_B32 S_BITSET1_B64 S_ABS_I32 S_ORN2_SAVEEXEC_B32 S_XNOR_SAVEEXEC_B32 S_ANDN1_SAVEEXEC_B32 S_ANDN2_WREXEC_B32 S_CMOVK_I32 S_CMPK_LT_I32 S_CMPK_GE_U32 S_ADDK_I32 S_MULK_I32 S_BITCMP0_B32 S_BITCMP1_B64
/// All 47 in the packed scalar frame (tests/opcheck/packed.rs, D073): 4096 waves per op, two modules.
#[test]
fn scalar_alu() {
    check_packed(&ops());
}
