//! The opcheck harness (tests/opcheck) on instructions whose semantics already existed: each is run from its
//! real words over ≥ 4096 operand sets, host vs lavapipe bit-identical, host vs a Rust reference written from
//! the ISA guide's definition.

mod opcheck;
use opcheck::{check, op, op_exec, Frame};

// coverage: harness_smoke: V_ADD_NC_U32 V_ADD_CO_CI_U32 S_ADDC_U32 V_READFIRSTLANE_B32 V_MBCNT_LO_U32_B32 S_AND_SAVEEXEC_B32 V_CMPX_LT_U32 V_MUL_HI_I32
#[test]
fn harness_smoke() {
    check(&[
        op("v_add_nc_u32_e32 v8, v0, v1", &[0x4a10_0300], |f| {
            f.per_lane(8, |f, l| f.v[l][0].wrapping_add(f.v[l][1]))
        }),
        // D = S0 + S1 + VCC[lane]; VCC[lane] = carry out (inactive lanes 0).
        op_exec(
            "v_add_co_ci_u32_e32 v8, vcc_lo, v0, v1, vcc_lo",
            &[0x5010_0300],
            |f| {
                let sum = |f: &Frame, l: usize| {
                    f.v[l][0] as u64 + f.v[l][1] as u64 + (f.vcc >> l & 1) as u64
                };
                let carry = f.mask(|f, l| sum(f, l) >> 32 != 0);
                f.per_lane(8, |f, l| sum(f, l) as u32);
                f.vcc = carry;
            },
        ),
        op("s_addc_u32 s16, s8, s9", &[0x8210_0908], |f| {
            let s = f.s(8) as u64 + f.s(9) as u64 + f.scc as u64;
            f.set_s(16, s as u32);
            f.scc = s >> 32 != 0;
        }),
        // The first active lane's value (EXEC always has lane 8 on here).
        op_exec("v_readfirstlane_b32 s16, v0", &[0x7e20_0500], |f| {
            let first = f.exec.trailing_zeros() as usize;
            f.set_s(16, f.v[first][0]);
        }),
        op_exec(
            "v_mbcnt_lo_u32_b32 v8, s8, v1",
            &[0xd765_0008, 0x0002_0208],
            |f| {
                f.per_lane(8, |f, l| {
                    (f.s(8) & ((1u64 << l) - 1) as u32)
                        .count_ones()
                        .wrapping_add(f.v[l][1])
                })
            },
        ),
        // s16 = EXEC; EXEC = s8 & EXEC; SCC = EXEC != 0.
        op_exec("s_and_saveexec_b32 s16, s8", &[0xbe90_3c08], |f| {
            f.set_s(16, f.exec);
            f.exec &= f.s(8);
            f.scc = f.exec != 0;
        }),
        // EXEC = VCC = per-lane (v0 < v1) over the active lanes (gfx10 v_cmpx_*_e32 writes EXEC only).
        op_exec("v_cmpx_lt_u32_e32 v0, v1", &[0x7da2_0300], |f| {
            f.exec = f.mask(|f, l| f.v[l][0] < f.v[l][1]);
        }),
        op(
            "v_mul_hi_i32 v8, v0, s9",
            &[0xd56c_0008, 0x0000_1300],
            |f| {
                f.per_lane(8, |f, l| {
                    ((f.v[l][0] as i32 as i64 * f.s(9) as i32 as i64) >> 32) as u32
                })
            },
        ),
    ]);
}
