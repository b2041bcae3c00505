//! Integer vector ALU instructions (crates/ir/src/lift/valu_int.rs and lift.rs) through the opcheck harness:
//! host vs lavapipe bit-identical, host vs a Rust reference written per lane from the RDNA 2 ISA guide's
//! VALU definitions with Rust's integer operations. EXEC is partial in the `op_exec` cases.

mod opcheck;
use opcheck::{check, op, op_exec, Frame, Op};

fn lane1(f: &mut Frame, g: fn(u32) -> u32) {
    f.per_lane(8, move |f, l| g(f.v[l][0]))
}
fn lane2(f: &mut Frame, g: fn(u32, u32) -> u32) {
    f.per_lane(8, move |f, l| g(f.v[l][0], f.v[l][1]))
}
fn lane3(f: &mut Frame, g: fn(u32, u32, u32) -> u32) {
    f.per_lane(8, move |f, l| g(f.v[l][0], f.v[l][1], f.v[l][2]))
}
fn u24(x: u32) -> u64 {
    (x & 0xff_ffff) as u64
}
fn i24(x: u32) -> i64 {
    ((x << 8) as i32 >> 8) as i64
}
fn bfe(x: u32, off: u32, w: u32, signed: bool) -> u32 {
    let (off, w) = (off & 31, w & 31);
    if w == 0 {
        return 0;
    }
    let v = (x >> off) & ((1u32 << w) - 1);
    if signed && v >> (w - 1) & 1 != 0 {
        v | !((1u32 << w) - 1)
    } else {
        v
    }
}
fn perm(s0: u32, s1: u32, sel: u32) -> u32 {
    let x = (s0 as u64) << 32 | s1 as u64;
    (0..4).fold(0, |d, i| {
        let s = (sel >> (8 * i)) & 0xff;
        let b = match s {
            0..=7 => (x >> (8 * s)) & 0xff,
            8..=11 => {
                if x >> (16 * (s - 8) + 15) & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        d | (b as u32) << (8 * i)
    })
}
fn sad(a: u32, b: u32, w: u32) -> u32 {
    let m = (1u32 << w) - 1;
    (0..32 / w)
        .map(|i| ((a >> (w * i)) & m).abs_diff((b >> (w * i)) & m))
        .sum()
}
fn ffb(x: u32, from_msb: bool) -> u32 {
    match (x, from_msb) {
        (0, _) => u32::MAX,
        (_, true) => x.leading_zeros(),
        _ => x.trailing_zeros(),
    }
}
fn med3<T: Ord + Copy>(a: T, b: T, c: T) -> T {
    let mut v = [a, b, c];
    v.sort();
    v[1]
}
fn cmp_vcc(f: &mut Frame, c: fn(&Frame, usize) -> bool) {
    f.vcc = f.mask(c);
}

fn ops() -> Vec<Op> {
    vec![
        op_exec("v_not_b32_e32 v8, v0", &[0x7e10_6f00], |f| lane1(f, |a| !a)),
        op("v_bfrev_b32_e32 v8, v0", &[0x7e10_7100], |f| {
            lane1(f, u32::reverse_bits)
        }),
        op(
            "v_bcnt_u32_b32 v8, v0, v1",
            &[0xd764_0008, 0x0002_0300],
            |f| lane2(f, |a, b| a.count_ones().wrapping_add(b)),
        ),
        op("v_ffbl_b32_e32 v8, v0", &[0x7e10_7500], |f| {
            lane1(f, |a| ffb(a, false))
        }),
        op("v_ffbh_u32_e32 v8, v0", &[0x7e10_7300], |f| {
            lane1(f, |a| ffb(a, true))
        }),
        op("v_ffbh_i32_e32 v8, v0", &[0x7e10_7700], |f| {
            lane1(f, |a| ffb(if (a as i32) < 0 { !a } else { a }, true))
        }),
        op(
            "v_lshrrev_b64 v[8:9], v0, v[2:3]",
            &[0xd700_0008, 0x0002_0500],
            |f| f.per_lane64(8, |f, l| f.v64(l, 2) >> (f.v[l][0] & 63)),
        ),
        op_exec(
            "v_ashrrev_i64 v[8:9], v0, v[2:3]",
            &[0xd701_0008, 0x0002_0500],
            |f| f.per_lane64(8, |f, l| ((f.v64(l, 2) as i64) >> (f.v[l][0] & 63)) as u64),
        ),
        op("v_mul_u32_u24_e32 v8, v0, v1", &[0x1610_0300], |f| {
            lane2(f, |a, b| (u24(a) * u24(b)) as u32)
        }),
        op("v_mul_i32_i24_e32 v8, s8, v1", &[0x1210_0208], |f| {
            f.per_lane(8, |f, l| (i24(f.s(8)) * i24(f.v[l][1])) as u32)
        }),
        op("v_mul_hi_u32_u24_e32 v8, v0, v1", &[0x1810_0300], |f| {
            lane2(f, |a, b| ((u24(a) * u24(b)) >> 32) as u32)
        }),
        op("v_mul_hi_i32_i24_e32 v8, v0, v1", &[0x1410_0300], |f| {
            lane2(f, |a, b| ((i24(a) * i24(b)) >> 32) as u32)
        }),
        op(
            "v_mad_u32_u24 v8, v0, v1, v2",
            &[0xd543_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| ((u24(a) * u24(b)) as u32).wrapping_add(c)),
        ),
        op(
            "v_mad_i32_i24 v8, v0, s9, v2",
            &[0xd542_0008, 0x0408_1300],
            |f| {
                f.per_lane(8, |f, l| {
                    ((i24(f.v[l][0]) * i24(f.s(9))) as u32).wrapping_add(f.v[l][2])
                })
            },
        ),
        op(
            "v_bfe_u32 v8, v0, v1, v2",
            &[0xd548_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| bfe(a, b, c, false)),
        ),
        op(
            "v_bfe_i32 v8, v0, v1, v2",
            &[0xd549_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| bfe(a, b, c, true)),
        ),
        op(
            "v_bfi_b32 v8, v0, v1, v2",
            &[0xd54a_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| (a & b) | (!a & c)),
        ),
        op("v_bfm_b32 v8, v0, v1", &[0xd763_0008, 0x0002_0300], |f| {
            lane2(f, |a, b| ((1u32 << (a & 31)) - 1) << (b & 31))
        }),
        op(
            "v_alignbit_b32 v8, v0, v1, v2",
            &[0xd54e_0008, 0x040a_0300],
            |f| {
                lane3(f, |a, b, c| {
                    (((a as u64) << 32 | b as u64) >> (c & 31)) as u32
                })
            },
        ),
        op(
            "v_alignbyte_b32 v8, v0, v1, v2",
            &[0xd54f_0008, 0x040a_0300],
            |f| {
                lane3(f, |a, b, c| {
                    (((a as u64) << 32 | b as u64) >> (8 * (c & 3))) as u32
                })
            },
        ),
        op(
            "v_perm_b32 v8, v0, v1, v2",
            &[0xd744_0008, 0x040a_0300],
            |f| lane3(f, perm),
        ),
        op(
            "v_min3_i32 v8, v0, v1, v2",
            &[0xd552_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| (a as i32).min(b as i32).min(c as i32) as u32),
        ),
        op(
            "v_max3_u32 v8, v0, s9, v2",
            &[0xd556_0008, 0x0408_1300],
            |f| f.per_lane(8, |f, l| f.v[l][0].max(f.s(9)).max(f.v[l][2])),
        ),
        op(
            "v_med3_i32 v8, v0, v1, v2",
            &[0xd558_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| med3(a as i32, b as i32, c as i32) as u32),
        ),
        op(
            "v_med3_u32 v8, v0, v1, v2",
            &[0xd559_0008, 0x040a_0300],
            |f| lane3(f, med3),
        ),
        op(
            "v_xad_u32 v8, v0, v1, v2",
            &[0xd745_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| (a ^ b).wrapping_add(c)),
        ),
        op(
            "v_sad_u32 v8, v0, v1, v2",
            &[0xd55d_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| a.abs_diff(b).wrapping_add(c)),
        ),
        op(
            "v_sad_u8 v8, v0, v1, v2",
            &[0xd55a_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| sad(a, b, 8).wrapping_add(c)),
        ),
        op(
            "v_sad_hi_u8 v8, v0, v1, v2",
            &[0xd55b_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| (sad(a, b, 8) << 16).wrapping_add(c)),
        ),
        op(
            "v_sad_u16 v8, v0, v1, v2",
            &[0xd55c_0008, 0x040a_0300],
            |f| lane3(f, |a, b, c| sad(a, b, 16).wrapping_add(c)),
        ),
        op(
            "v_lerp_u8 v8, v0, v1, v2",
            &[0xd54d_0008, 0x040a_0300],
            |f| {
                lane3(f, |a, b, c| {
                    (0..4).fold(0, |d, i| {
                        let (x, y, z) = (
                            (a >> (8 * i)) & 0xff,
                            (b >> (8 * i)) & 0xff,
                            (c >> (8 * i)) & 1,
                        );
                        d | ((x + y + z) >> 1) << (8 * i)
                    })
                })
            },
        ),
        op_exec("v_cmp_lt_i16_e32 vcc_lo, v0, v1", &[0x7d12_0300], |f| {
            cmp_vcc(f, |f, l| (f.v[l][0] as i16) < (f.v[l][1] as i16))
        }),
        op_exec(
            "v_cmp_ge_u16_e64 s16, v0, v1",
            &[0xd4ae_0010, 0x0002_0300],
            |f| {
                let m = f.mask(|f, l| f.v[l][0] as u16 >= f.v[l][1] as u16);
                f.set_s(16, m);
            },
        ),
        op(
            "v_cmp_eq_u64_e32 vcc_lo, v[0:1], v[2:3]",
            &[0x7dc4_0500],
            |f| cmp_vcc(f, |f, l| f.v64(l, 0) == f.v64(l, 2)),
        ),
        op_exec(
            "v_cmp_gt_i64_e64 s16, v[0:1], v[2:3]",
            &[0xd4a4_0010, 0x0002_0500],
            |f| {
                let m = f.mask(|f, l| f.v64(l, 0) as i64 > f.v64(l, 2) as i64);
                f.set_s(16, m);
            },
        ),
        op_exec("v_cmpx_le_u64_e32 v[0:1], v[2:3]", &[0x7de6_0500], |f| {
            f.exec = f.mask(|f, l| f.v64(l, 0) <= f.v64(l, 2))
        }),
        op_exec("v_cmp_t_u32_e32 vcc_lo, v0, v1", &[0x7d8e_0300], |f| {
            cmp_vcc(f, |_, _| true)
        }),
        op_exec("v_cmpx_ne_i16_e32 v0, v1", &[0x7d3a_0300], |f| {
            f.exec = f.mask(|f, l| f.v[l][0] as u16 != f.v[l][1] as u16)
        }),
    ]
}

// coverage: vector_int: V_NOT_B32 V_BFREV_B32 V_BCNT_U32_B32 V_FFBL_B32 V_FFBH_U32 V_FFBH_I32 V_LSHRREV_B64 V_ASHRREV_I64 V_MUL_U32_U24 V_MUL_I32_I24 V_MUL_HI_U32_U24 V_MUL_HI_I32_I24 V_MAD_U32_U24 V_MAD_I32_I24 V_BFE_U32 V_BFE_I32 V_BFI_B32 V_BFM_B32
#[test]
fn vector_int() {
    check(&ops()[..18]);
}

// coverage: vector_int_more: V_ALIGNBIT_B32 V_ALIGNBYTE_B32 V_PERM_B32 V_MIN3_I32 V_MAX3_U32 V_MED3_I32 V_MED3_U32 V_XAD_U32 V_SAD_U32 V_SAD_U8 V_SAD_HI_U8 V_SAD_U16 V_LERP_U8 V_CMP_LT_I16 V_CMP_GE_U16 V_CMP_EQ_U64 V_CMP_GT_I64 V_CMPX_LE_U64 V_CMP_T_U32 V_CMPX_NE_I16
/// The other half (lavapipe's JIT time per frame segment): `cargo test --test ops_vector_int -- --ignored`;
/// results recorded in docs/coverage-tests.md.
#[test]
fn vector_int_more() {
    opcheck::check_n(&ops()[18..], opcheck::ci_n());
}

/// `vector_int_more` at the default size.
#[test]
#[ignore = "long (lavapipe JIT): cargo test --test ops_vector_int -- --ignored"]
fn vector_int_more_full() {
    check(&ops()[18..]);
}

fn s64(f: &Frame, r: usize) -> u64 {
    f.s(r) as u64 | (f.s(r + 1) as u64) << 32
}

/// 64-bit shifts by constants (inline, literal; 0, below 32, 32 and above; VGPR and SGPR pairs; a
/// destination equal to or overlapping its source), which the lifter writes as 32-bit operations on the
/// halves (D229); every third with EXEC from the input. Encodings: llvm-mc-19 -arch=amdgcn -mcpu=gfx1030
/// -show-encoding.
fn shift64_ops() -> Vec<Op> {
    vec![
        op(
            "v_lshlrev_b64 v[8:9], 0, v[2:3]",
            &[0xd6ff_0008, 0x0002_0480],
            |f| f.per_lane64(8, |f, l| f.v64(l, 2)),
        ),
        op_exec(
            "v_lshlrev_b64 v[8:9], 1, v[2:3]",
            &[0xd6ff_0008, 0x0002_0481],
            |f| f.per_lane64(8, |f, l| f.v64(l, 2) << 1),
        ),
        op(
            "v_lshlrev_b64 v[8:9], 31, v[2:3]",
            &[0xd6ff_0008, 0x0002_049f],
            |f| f.per_lane64(8, |f, l| f.v64(l, 2) << 31),
        ),
        op(
            "v_lshlrev_b64 v[8:9], 32, v[2:3]",
            &[0xd6ff_0008, 0x0002_04a0],
            |f| f.per_lane64(8, |f, l| f.v64(l, 2) << 32),
        ),
        op_exec(
            "v_lshlrev_b64 v[8:9], 0x45, v[2:3]",
            &[0xd6ff_0008, 0x0002_04ff, 0x0000_0045],
            |f| f.per_lane64(8, |f, l| f.v64(l, 2) << (0x45 & 63)),
        ),
        op(
            "v_lshlrev_b64 v[2:3], 4, v[2:3]",
            &[0xd6ff_0002, 0x0002_0484],
            |f| f.per_lane64(2, |f, l| f.v64(l, 2) << 4),
        ),
        op(
            "v_lshlrev_b64 v[8:9], 3, s[8:9]",
            &[0xd6ff_0008, 0x0000_1083],
            |f| f.per_lane64(8, |f, _| s64(f, 8) << 3),
        ),
        op_exec(
            "v_lshrrev_b64 v[8:9], 7, v[2:3]",
            &[0xd700_0008, 0x0002_0487],
            |f| f.per_lane64(8, |f, l| f.v64(l, 2) >> 7),
        ),
        op(
            "v_lshrrev_b64 v[8:9], 40, v[2:3]",
            &[0xd700_0008, 0x0002_04a8],
            |f| f.per_lane64(8, |f, l| f.v64(l, 2) >> 40),
        ),
        op(
            "v_lshrrev_b64 v[3:4], 12, v[2:3]",
            &[0xd700_0003, 0x0002_048c],
            |f| f.per_lane64(3, |f, l| f.v64(l, 2) >> 12),
        ),
        op_exec(
            "v_ashrrev_i64 v[8:9], 13, v[2:3]",
            &[0xd701_0008, 0x0002_048d],
            |f| f.per_lane64(8, |f, l| (f.v64(l, 2) as i64 >> 13) as u64),
        ),
        op(
            "v_ashrrev_i64 v[8:9], 63, v[2:3]",
            &[0xd701_0008, 0x0002_04bf],
            |f| f.per_lane64(8, |f, l| (f.v64(l, 2) as i64 >> 63) as u64),
        ),
        op(
            "v_ashrrev_i64 v[8:9], 35, s[10:11]",
            &[0xd701_0008, 0x0000_14a3],
            |f| f.per_lane64(8, |f, _| (s64(f, 10) as i64 >> 35) as u64),
        ),
    ]
}

// coverage: shifts64_by_constants: V_LSHLREV_B64 V_LSHRREV_B64 V_ASHRREV_I64
#[test]
fn shifts64_by_constants() {
    check(&shift64_ops());
}
