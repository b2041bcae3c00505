//! Every scalar ALU and program-control instruction the lifter accepts that no other test checks on the
//! device (SOP2, SOPK, SOP1, SOPC, SOPP rows of docs/coverage.md), through the packed scalar frame
//! (tests/opcheck/packed.rs): 4096 waves per op, each with its own 16 input dwords, host vs lavapipe
//! bit-identical on s16, s17, SCC, VCC and EXEC, and host vs a Rust reference written from the RDNA 2 ISA
//! guide's definitions (Rust integer operations; SCC results included).
//!
//! Branches run as small control-flow sequences (the branch skips an `s_not_b32 s16, s16`, whose effect is
//! visible exactly when the branch falls through). Instructions with no architectural effect in a compute
//! wave (s_nop, s_sleep, s_setprio, cache and performance hints, the waitcnt forms, s_version) are
//! checked to leave every recorded register as it was. The 64-bit EXEC forms run in a wave64 frame.

mod opcheck;
use opcheck::packed::{check_packed, sop, sop_exec, sop_exec64, SOp, Sc};

fn nz(f: &mut Sc, r: u32) {
    f.set_s(16, r);
    f.scc = r != 0;
}
fn nz64(f: &mut Sc, r: u64) {
    f.set_s64(16, r);
    f.scc = r != 0;
}
/// s_wqm_b64: each 4-bit quad of the result is all ones when any bit of the source quad is set.
fn wqm(x: u64) -> u64 {
    (0..16).fold(0, |m, i| {
        m | if (x >> (4 * i)) & 0xf != 0 {
            0xf << (4 * i)
        } else {
            0
        }
    })
}
/// The index of the lowest set bit, or -1 (0xffffffff) when none is.
fn first_one(x: u64) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.trailing_zeros()
    }
}
/// saveexec: D = EXEC before; EXEC = f(S0, EXEC); SCC = EXEC != 0 (wave32 uses the low halves).
fn saveexec(f: &mut Sc, op: fn(u64, u64) -> u64) {
    let (s, e, lanes) = (src_exec(f), f.exec, f.lanes());
    f.exec = op(s, e) & lanes;
    set_d(f, e);
    f.scc = f.exec != 0;
}
/// wrexec: EXEC = f(S0, EXEC); D = EXEC after; SCC = EXEC != 0.
fn wrexec(f: &mut Sc, op: fn(u64, u64) -> u64) {
    let (s, e, lanes) = (src_exec(f), f.exec, f.lanes());
    f.exec = op(s, e) & lanes;
    let x = f.exec;
    set_d(f, x);
    f.scc = f.exec != 0;
}
fn src_exec(f: &Sc) -> u64 {
    if f.wave64 {
        f.s64(8)
    } else {
        f.s(8) as u64
    }
}
fn set_d(f: &mut Sc, x: u64) {
    if f.wave64 {
        f.set_s64(16, x)
    } else {
        f.set_s(16, x as u32)
    }
}
/// The SOPK constant 0x8123 sign-extended (_i32 compares) and zero-extended (_u32 compares).
const K_I: i32 = 0x8123u16 as i16 as i32;
const K_U: u32 = 0x8123;

fn ops() -> Vec<SOp> {
    vec![
        sop("s_add_u32 s16, s8, s9", &[0x8010_0908], |f| {
            let (r, c) = f.s(8).overflowing_add(f.s(9));
            f.set_s(16, r);
            f.scc = c;
        }),
        sop("s_sub_u32 s16, s8, s9", &[0x8090_0908], |f| {
            let (r, b) = f.s(8).overflowing_sub(f.s(9));
            f.set_s(16, r);
            f.scc = b;
        }),
        sop("s_add_i32 s16, s8, s9", &[0x8110_0908], |f| {
            let (r, o) = (f.s(8) as i32).overflowing_add(f.s(9) as i32);
            f.set_s(16, r as u32);
            f.scc = o;
        }),
        sop("s_sub_i32 s16, s8, s9", &[0x8190_0908], |f| {
            let (r, o) = (f.s(8) as i32).overflowing_sub(f.s(9) as i32);
            f.set_s(16, r as u32);
            f.scc = o;
        }),
        sop("s_subb_u32 s16, s8, s9", &[0x8290_0908], |f| {
            let sub = f.s(9) as u64 + f.scc as u64;
            f.set_s(16, (f.s(8) as u64).wrapping_sub(sub) as u32);
            f.scc = sub > f.s(8) as u64;
        }),
        sop("s_min_i32 s16, s8, s9", &[0x8310_0908], |f| {
            let (a, b) = (f.s(8) as i32, f.s(9) as i32);
            f.set_s(16, if a < b { a } else { b } as u32);
            f.scc = a < b;
        }),
        sop("s_min_u32 s16, s8, s9", &[0x8390_0908], |f| {
            let (a, b) = (f.s(8), f.s(9));
            f.set_s(16, if a < b { a } else { b });
            f.scc = a < b;
        }),
        sop("s_max_i32 s16, s8, s9", &[0x8410_0908], |f| {
            let (a, b) = (f.s(8) as i32, f.s(9) as i32);
            f.set_s(16, if a > b { a } else { b } as u32);
            f.scc = a > b;
        }),
        sop("s_max_u32 s16, s8, s9", &[0x8490_0908], |f| {
            let (a, b) = (f.s(8), f.s(9));
            f.set_s(16, if a > b { a } else { b });
            f.scc = a > b;
        }),
        sop("s_cselect_b32 s16, s8, s9", &[0x8510_0908], |f| {
            f.set_s(16, if f.scc { f.s(8) } else { f.s(9) });
        }),
        sop("s_cselect_b64 s[16:17], s[8:9], s[10:11]", &[0x8590_0a08], |f| {
            f.set_s64(16, if f.scc { f.s64(8) } else { f.s64(10) });
        }),
        sop("s_and_b32 s16, s8, s9", &[0x8710_0908], |f| {
            nz(f, f.s(8) & f.s(9));
        }),
        sop("s_and_b64 s[16:17], s[8:9], s[10:11]", &[0x8790_0a08], |f| {
            nz64(f, f.s64(8) & f.s64(10));
        }),
        sop("s_or_b32 s16, s8, s9", &[0x8810_0908], |f| {
            nz(f, f.s(8) | f.s(9));
        }),
        sop("s_or_b64 s[16:17], s[8:9], s[10:11]", &[0x8890_0a08], |f| {
            nz64(f, f.s64(8) | f.s64(10));
        }),
        sop("s_xor_b32 s16, s8, s9", &[0x8910_0908], |f| {
            nz(f, f.s(8) ^ f.s(9));
        }),
        sop("s_xor_b64 s[16:17], s[8:9], s[10:11]", &[0x8990_0a08], |f| {
            nz64(f, f.s64(8) ^ f.s64(10));
        }),
        sop("s_orn2_b32 s16, s8, s9", &[0x8b10_0908], |f| {
            nz(f, f.s(8) | !f.s(9));
        }),
        sop("s_orn2_b64 s[16:17], s[8:9], s[10:11]", &[0x8b90_0a08], |f| {
            nz64(f, f.s64(8) | !f.s64(10));
        }),
        sop("s_nand_b64 s[16:17], s[8:9], s[10:11]", &[0x8c90_0a08], |f| {
            nz64(f, !(f.s64(8) & f.s64(10)));
        }),
        sop("s_nor_b32 s16, s8, s9", &[0x8d10_0908], |f| {
            nz(f, !(f.s(8) | f.s(9)));
        }),
        sop("s_xnor_b64 s[16:17], s[8:9], s[10:11]", &[0x8e90_0a08], |f| {
            nz64(f, !(f.s64(8) ^ f.s64(10)));
        }),
        sop("s_lshl_b32 s16, s8, s9", &[0x8f10_0908], |f| {
            nz(f, f.s(8) << (f.s(9) & 31));
        }),
        sop("s_lshl_b64 s[16:17], s[8:9], s10", &[0x8f90_0a08], |f| {
            nz64(f, f.s64(8) << (f.s(10) & 63));
        }),
        sop("s_lshr_b32 s16, s8, s9", &[0x9010_0908], |f| {
            nz(f, f.s(8) >> (f.s(9) & 31));
        }),
        sop("s_lshr_b64 s[16:17], s[8:9], s10", &[0x9090_0a08], |f| {
            nz64(f, f.s64(8) >> (f.s(10) & 63));
        }),
        sop("s_ashr_i32 s16, s8, s9", &[0x9110_0908], |f| {
            nz(f, ((f.s(8) as i32) >> (f.s(9) & 31)) as u32);
        }),
        sop("s_ashr_i64 s[16:17], s[8:9], s10", &[0x9190_0a08], |f| {
            nz64(f, ((f.s64(8) as i64) >> (f.s(10) & 63)) as u64);
        }),
        sop("s_mul_i32 s16, s8, s9", &[0x9310_0908], |f| {
            f.set_s(16, (f.s(8) as i32).wrapping_mul(f.s(9) as i32) as u32);
        }),
        sop("s_lshl2_add_u32 s16, s8, s9", &[0x9790_0908], |f| {
            let r = ((f.s(8) as u64) << 2) + f.s(9) as u64;
            f.set_s(16, r as u32);
            f.scc = r >> 32 != 0;
        }),
        sop("s_lshl3_add_u32 s16, s8, s9", &[0x9810_0908], |f| {
            let r = ((f.s(8) as u64) << 3) + f.s(9) as u64;
            f.set_s(16, r as u32);
            f.scc = r >> 32 != 0;
        }),
        sop("s_mov_b32 s16, s8", &[0xbe90_0308], |f| {
            f.set_s(16, f.s(8));
        }),
        sop("s_cmov_b64 s[16:17], s[8:9]", &[0xbe90_0608], |f| {
            if f.scc {
                f.set_s64(16, f.s64(8));
            }
        }),
        sop("s_not_b32 s16, s8", &[0xbe90_0708], |f| {
            nz(f, !f.s(8));
        }),
        sop("s_wqm_b64 s[16:17], s[8:9]", &[0xbe90_0a08], |f| {
            nz64(f, wqm(f.s64(8)));
        }),
        sop("s_bcnt0_i32_b32 s16, s8", &[0xbe90_0d08], |f| {
            nz(f, f.s(8).count_zeros());
        }),
        sop("s_ff0_i32_b64 s16, s[8:9]", &[0xbe90_1208], |f| {
            f.set_s(16, first_one(!f.s64(8)));
        }),
        sop("s_ff1_i32_b32 s16, s8", &[0xbe90_1308], |f| {
            f.set_s(16, first_one(f.s(8) as u64));
        }),
        sop("s_bitset0_b64 s[16:17], s8", &[0xbe90_1c08], |f| {
            f.set_s64(16, f.s64(16) & !(1u64 << (f.s(8) & 63)));
        }),
        sop("s_bitset1_b32 s16, s8", &[0xbe90_1d08], |f| {
            f.set_s(16, f.s(16) | 1 << (f.s(8) & 31));
        }),
        sop_exec("s_xor_saveexec_b32 s16, s8", &[0xbe90_3e08], |f| {
            saveexec(f, |s, e| s ^ e);
        }),
        sop_exec("s_nand_saveexec_b32 s16, s8", &[0xbe90_4108], |f| {
            saveexec(f, |s, e| !(s & e));
        }),
        sop_exec("s_nor_saveexec_b32 s16, s8", &[0xbe90_4208], |f| {
            saveexec(f, |s, e| !(s | e));
        }),
        sop_exec("s_orn1_saveexec_b32 s16, s8", &[0xbe90_4508], |f| {
            saveexec(f, |s, e| !s | e);
        }),
        sop_exec("s_andn1_wrexec_b32 s16, s8", &[0xbe90_4608], |f| {
            wrexec(f, |s, e| !s & e);
        }),
        sop("s_cmpk_eq_i32 s16, 0x8123", &[0xb190_8123], |f| {
            f.scc = f.s(16) as i32 == K_I;
        }),
        sop("s_cmpk_lg_i32 s16, 0x8123", &[0xb210_8123], |f| {
            f.scc = f.s(16) as i32 != K_I;
        }),
        sop("s_cmpk_gt_i32 s16, 0x8123", &[0xb290_8123], |f| {
            f.scc = f.s(16) as i32 > K_I;
        }),
        sop("s_cmpk_ge_i32 s16, 0x8123", &[0xb310_8123], |f| {
            f.scc = f.s(16) as i32 >= K_I;
        }),
        sop("s_cmpk_le_i32 s16, 0x8123", &[0xb410_8123], |f| {
            f.scc = f.s(16) as i32 <= K_I;
        }),
        sop("s_cmpk_eq_u32 s16, 0x8123", &[0xb490_8123], |f| {
            f.scc = f.s(16) == K_U;
        }),
        sop("s_cmpk_lg_u32 s16, 0x8123", &[0xb510_8123], |f| {
            f.scc = f.s(16) != K_U;
        }),
        sop("s_cmpk_gt_u32 s16, 0x8123", &[0xb590_8123], |f| {
            f.scc = f.s(16) > K_U;
        }),
        sop("s_cmpk_lt_u32 s16, 0x8123", &[0xb690_8123], |f| {
            f.scc = f.s(16) < K_U;
        }),
        sop("s_cmpk_le_u32 s16, 0x8123", &[0xb710_8123], |f| {
            f.scc = f.s(16) <= K_U;
        }),
        sop("s_cmp_eq_i32 s8, s9", &[0xbf00_0908], |f| {
            f.scc = f.s(8) as i32 == f.s(9) as i32;
        }),
        sop("s_cmp_lg_i32 s8, s9", &[0xbf01_0908], |f| {
            f.scc = f.s(8) as i32 != f.s(9) as i32;
        }),
        sop("s_cmp_gt_i32 s8, s9", &[0xbf02_0908], |f| {
            f.scc = f.s(8) as i32 > f.s(9) as i32;
        }),
        sop("s_cmp_ge_i32 s8, s9", &[0xbf03_0908], |f| {
            f.scc = f.s(8) as i32 >= f.s(9) as i32;
        }),
        sop("s_cmp_lt_i32 s8, s9", &[0xbf04_0908], |f| {
            f.scc = (f.s(8) as i32) < f.s(9) as i32;
        }),
        sop("s_cmp_le_i32 s8, s9", &[0xbf05_0908], |f| {
            f.scc = f.s(8) as i32 <= f.s(9) as i32;
        }),
        sop("s_cmp_eq_u32 s8, s9", &[0xbf06_0908], |f| {
            f.scc = f.s(8) == f.s(9);
        }),
        sop("s_cmp_lg_u32 s8, s9", &[0xbf07_0908], |f| {
            f.scc = f.s(8) != f.s(9);
        }),
        sop("s_cmp_gt_u32 s8, s9", &[0xbf08_0908], |f| {
            f.scc = f.s(8) > f.s(9);
        }),
        sop("s_cmp_ge_u32 s8, s9", &[0xbf09_0908], |f| {
            f.scc = f.s(8) >= f.s(9);
        }),
        sop("s_cmp_lt_u32 s8, s9", &[0xbf0a_0908], |f| {
            f.scc = f.s(8) < f.s(9);
        }),
        sop("s_cmp_le_u32 s8, s9", &[0xbf0b_0908], |f| {
            f.scc = f.s(8) <= f.s(9);
        }),
        sop("s_bitcmp1_b32 s8, s9", &[0xbf0d_0908], |f| {
            f.scc = f.s(8) >> (f.s(9) & 31) & 1 == 1;
        }),
        sop("s_bitcmp0_b64 s[8:9], s10", &[0xbf0e_0a08], |f| {
            f.scc = f.s64(8) >> (f.s(10) & 63) & 1 == 0;
        }),
        sop("s_cmp_eq_u64 s[8:9], s[10:11]", &[0xbf12_0a08], |f| {
            f.scc = f.s64(8) == f.s64(10);
        }),
        sop("s_cmp_lg_u64 s[8:9], s[10:11]", &[0xbf13_0a08], |f| {
            f.scc = f.s64(8) != f.s64(10);
        }),
        sop("s_cbranch_scc1 1; s_not_b32 s16, s16", &[0xbf85_0001, 0xbe90_0710], |f| {
            if !f.scc {
                nz(f, !f.s(16));
            }
        }),
        sop("s_and_b32 vcc_lo, s22, 1; s_cbranch_vccz 1; s_not_b32 s16, s16", &[0x876a_8116, 0xbf86_0001, 0xbe90_0710], |f| {
            f.vcc = (f.s(22) & 1) as u64;
            f.scc = f.vcc != 0;
            if f.vcc != 0 {
                nz(f, !f.s(16));
            }
        }),
        sop("s_and_b32 vcc_lo, s22, 1; s_cbranch_vccnz 1; s_not_b32 s16, s16", &[0x876a_8116, 0xbf87_0001, 0xbe90_0710], |f| {
            f.vcc = (f.s(22) & 1) as u64;
            f.scc = f.vcc != 0;
            if f.vcc == 0 {
                nz(f, !f.s(16));
            }
        }),
        sop("s_and_b32 exec_lo, s21, 1; s_cbranch_execnz 1; s_not_b32 s16, s16", &[0x877e_8115, 0xbf89_0001, 0xbe90_0710], |f| {
            f.exec = (f.s(21) & 1) as u64;
            f.scc = f.exec != 0;
            if f.exec == 0 {
                nz(f, !f.s(16));
            }
        }),
        sop("s_nop 3; s_wakeup; s_sleep 2; s_setprio 1; s_icache_inv; s_incperflevel 1", &[0xbf80_0003, 0xbf83_0000, 0xbf8e_0002, 0xbf8f_0001, 0xbf93_0000, 0xbf94_0001], |f| {
            let _ = f;
        }),
        sop("s_decperflevel 1; s_code_end; s_inst_prefetch 0x1; s_clause 0x2; s_wait_idle; s_waitcnt_depctr 0xffe3; s_version 0x1234", &[0xbf95_0001, 0xbf9f_0000, 0xbfa0_0001, 0xbfa1_0002, 0xbfa2_0000, 0xbfa3_ffe3, 0xb080_1234], |f| {
            let _ = f;
        }),
        sop("s_waitcnt vmcnt(1) expcnt(2) lgkmcnt(3); s_waitcnt_vscnt null, 0x0; s_waitcnt_vmcnt null, 0x3; s_waitcnt_expcnt null, 0x0; s_waitcnt_lgkmcnt null, 0x0", &[0xbf8c_0321, 0xbbfd_0000, 0xbc7d_0003, 0xbcfd_0000, 0xbd7d_0000], |f| {
            let _ = f;
        }),
        sop("s_bitreplicate_b64_b32 s[16:17], s8", &[0xbe90_3b08], |f| {
            let x = f.s(8);
            let r = (0..32).fold(0u64, |r, i| r | ((x >> i & 1) as u64 * 3) << (2 * i));
            f.set_s64(16, r);
        }),
        // MODE (hwreg 1) as the kernel starts it (clang's descriptor: FP_ROUND 0, FP_DENORM 0xf, DX10_CLAMP
        // bit 8 and IEEE bit 9 set) and as s_round_mode / s_denorm_mode / s_setreg_imm32_b32 change it; each
        // sequence restores the mode (the wave runs the following ops in it).
        sop("s_getreg_b32 s16, hwreg(HW_REG_MODE); s_getreg_b32 s17, hwreg(HW_REG_MODE, 8, 2)", &[0xb910_f801, 0xb911_0a01], |f| {
            f.set_s(16, 0x3f0);
            f.set_s(17, 3);
        }),
        sop("s_round_mode 0x3; s_denorm_mode 5; s_getreg_b32 s16, hwreg(HW_REG_MODE, 0, 8); s_round_mode 0x0; s_denorm_mode 15", &[0xbfa4_0003, 0xbfa5_0005, 0xb910_3801, 0xbfa4_0000, 0xbfa5_000f], |f| {
            f.set_s(16, 0x53);
        }),
        sop("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0; s_getreg_b32 s17, hwreg(HW_REG_MODE, 4, 4); s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 15; s_setreg_b32 hwreg(HW_REG_FLAT_SCR_LO), s8", &[0xba80_1901, 0x0000_0000, 0xb911_1901, 0xba80_1901, 0x0000_000f, 0xb988_f814], |f| {
            f.set_s(17, 0);
        }),
        sop_exec64("s_and_saveexec_b64 s[16:17], s[8:9]", &[0xbe90_2408], |f| {
            saveexec(f, |s, e| s & e);
        }),
        sop_exec64("s_or_saveexec_b64 s[16:17], s[8:9]", &[0xbe90_2508], |f| {
            saveexec(f, |s, e| s | e);
        }),
        sop_exec64("s_xor_saveexec_b64 s[16:17], s[8:9]", &[0xbe90_2608], |f| {
            saveexec(f, |s, e| s ^ e);
        }),
        sop_exec64("s_andn2_saveexec_b64 s[16:17], s[8:9]", &[0xbe90_2708], |f| {
            saveexec(f, |s, e| s & !e);
        }),
        sop_exec64("s_orn2_saveexec_b64 s[16:17], s[8:9]", &[0xbe90_2808], |f| {
            saveexec(f, |s, e| s | !e);
        }),
        sop_exec64("s_nand_saveexec_b64 s[16:17], s[8:9]", &[0xbe90_2908], |f| {
            saveexec(f, |s, e| !(s & e));
        }),
        sop_exec64("s_nor_saveexec_b64 s[16:17], s[8:9]", &[0xbe90_2a08], |f| {
            saveexec(f, |s, e| !(s | e));
        }),
        sop_exec64("s_xnor_saveexec_b64 s[16:17], s[8:9]", &[0xbe90_2b08], |f| {
            saveexec(f, |s, e| !(s ^ e));
        }),
        sop_exec64("s_andn1_saveexec_b64 s[16:17], s[8:9]", &[0xbe90_3708], |f| {
            saveexec(f, |s, e| !s & e);
        }),
        sop_exec64("s_orn1_saveexec_b64 s[16:17], s[8:9]", &[0xbe90_3808], |f| {
            saveexec(f, |s, e| !s | e);
        }),
        sop_exec64("s_andn1_wrexec_b64 s[16:17], s[8:9]", &[0xbe90_3908], |f| {
            wrexec(f, |s, e| !s & e);
        }),
        sop_exec64("s_andn2_wrexec_b64 s[16:17], s[8:9]", &[0xbe90_3a08], |f| {
            wrexec(f, |s, e| s & !e);
        }),
    ]
}

// coverage: scalar_all: S_ADD_I32 S_ADD_U32 S_ANDN1_SAVEEXEC_B64 S_ANDN1_WREXEC_B32 S_ANDN1_WREXEC_B64 S_ANDN2_SAVEEXEC_B64 S_ANDN2_WREXEC_B64 S_AND_B32 S_AND_B64 S_AND_SAVEEXEC_B64 S_ASHR_I32 S_ASHR_I64 S_BCNT0_I32_B32 S_BITCMP0_B64 S_BITCMP1_B32 S_BITREPLICATE_B64_B32 S_BITSET0_B64 S_BITSET1_B32 S_CBRANCH_EXECNZ S_CBRANCH_SCC1 S_CBRANCH_VCCNZ S_CBRANCH_VCCZ S_CLAUSE S_CMOV_B64 S_CMPK_EQ_I32 S_CMPK_EQ_U32 S_CMPK_GE_I32 S_CMPK_GT_I32 S_CMPK_GT_U32 S_CMPK_LE_I32 S_CMPK_LE_U32 S_CMPK_LG_I32 S_CMPK_LG_U32 S_CMPK_LT_U32 S_CMP_EQ_I32 S_CMP_EQ_U32 S_CMP_EQ_U64 S_CMP_GE_I32 S_CMP_GE_U32 S_CMP_GT_I32 S_CMP_GT_U32 S_CMP_LE_I32 S_CMP_LE_U32 S_CMP_LG_I32 S_CMP_LG_U32 S_CMP_LG_U64 S_CMP_LT_I32 S_CMP_LT_U32 S_CODE_END S_CSELECT_B32 S_CSELECT_B64 S_DECPERFLEVEL S_DENORM_MODE S_FF0_I32_B64 S_FF1_I32_B32 S_GETREG_B32 S_ICACHE_INV S_INCPERFLEVEL S_INST_PREFETCH S_LSHL2_ADD_U32 S_LSHL3_ADD_U32 S_LSHL_B32 S_LSHL_B64 S_LSHR_B32 S_LSHR_B64 S_MAX_I32 S_MAX_U32 S_MIN_I32 S_MIN_U32 S_MOV_B32 S_MUL_I32 S_NAND_B64 S_NAND_SAVEEXEC_B32 S_NAND_SAVEEXEC_B64 S_NOP S_NOR_B32 S_NOR_SAVEEXEC_B32 S_NOR_SAVEEXEC_B64 S_NOT_B32 S_ORN1_SAVEEXEC_B32 S_ORN1_SAVEEXEC_B64 S_ORN2_B32 S_ORN2_B64 S_ORN2_SAVEEXEC_B64 S_OR_B32 S_OR_B64 S_OR_SAVEEXEC_B64 S_ROUND_MODE S_SETPRIO S_SETREG_B32 S_SETREG_IMM32_B32 S_SLEEP S_SUBB_U32 S_SUB_I32 S_SUB_U32 S_VERSION S_WAITCNT S_WAITCNT_DEPCTR S_WAITCNT_EXPCNT S_WAITCNT_LGKMCNT S_WAITCNT_VMCNT S_WAITCNT_VSCNT S_WAIT_IDLE S_WAKEUP S_WQM_B64 S_XNOR_B64 S_XNOR_SAVEEXEC_B64 S_XOR_B32 S_XOR_B64 S_XOR_SAVEEXEC_B32 S_XOR_SAVEEXEC_B64
#[test]
fn scalar_all() {
    check_packed(&ops());
}
