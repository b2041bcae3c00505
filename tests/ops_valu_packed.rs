//! The integer VALU instructions that were green but not device-tested (docs/coverage.md): every integer
//! v_cmp/v_cmpx (i16/u16/i32/u32/i64/u64, VOPC and VOP3 encodings) and the remaining VOP2/VOP3 integer ops,
//! through the opcheck harness (D022) with several instructions packed into each frame segment (D075).
//!
//! Each segment is a short sequence from tests/valu_packed/segments.rs (assembled by llvm-mc-19 in
//! tests/valu_packed/gen.py; the harness checks the words print as the text). The reference is [`model`]:
//! an interpreter of exactly these instruction texts over the architectural state ([`Frame`]), written from
//! the RDNA 2 ISA guide's definitions with Rust's integer operations — it shares nothing with crates/ir or
//! crates/eval. Compare results are lane masks over the active lanes (inactive lanes' bits 0); v_cmpx
//! writes EXEC (and no SGPR on gfx10), so its segments copy EXEC to s16..s20 after each v_cmpx and restore
//! it; EXEC is partial (`s21 | 0x100`) in half of the segments.
//!
//! Operands: [`correlated`] makes random + boundary operands (opcheck's mix) and then, per lane, ties
//! pairs of them together (equal, ±1, equal low halves with different high halves, 64-bit values equal in
//! one dword) so that eq/le/ge and the 16-bit compares' ignored high bits are exercised, not just
//! "random a ≠ random b".

mod opcheck;
use opcheck::{check_n_with, inputs, n, Exec, Frame, Op, Rng, WAVE};
use rdna2spv_isa::Target;

macro_rules! seg {
    ($exec:ident, $text:literal, [$($w:expr),* $(,)?]) => {
        crate::Op {
            asm: $text,
            words: &[$($w),*],
            target: crate::Target::Gfx1030,
            exec: crate::Exec::$exec,
            oracle: |f| crate::model(f, $text),
        }
    };
}

#[path = "valu_packed/segments.rs"]
mod segments;
use segments::*;

// ---------------------------------------------------------------------------------------------------
// The reference: an interpreter of the segments' instruction texts, from the ISA guide.

/// A source operand's value for one lane: VGPR (`v3`, `v[2:3]`), SGPR (`s8`, `s[8:9]`), `vcc_lo`,
/// `exec_lo` or an integer constant (inline constants are sign-extended to 64 bits).
fn rd(f: &Frame, l: usize, op: &str) -> u64 {
    if let Some(r) = op.strip_prefix("v[") {
        let lo: usize = r.split(':').next().unwrap().parse().unwrap();
        return f.v64(l, lo);
    }
    if let Some(r) = op.strip_prefix("s[") {
        let lo: usize = r.split(':').next().unwrap().parse().unwrap();
        return f.s64(lo);
    }
    if let Some(r) = op
        .strip_prefix('v')
        .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    {
        return f.v[l][r.parse::<usize>().unwrap()] as u64;
    }
    rd_s(f, op) as u64
}

fn rd_s(f: &Frame, op: &str) -> u32 {
    match op {
        "vcc_lo" => f.vcc,
        "exec_lo" => f.exec,
        _ if op.starts_with('s') => f.s(op[1..].parse().unwrap_or_else(|_| panic!("operand {op}"))),
        _ if op.starts_with("0x") => u32::from_str_radix(&op[2..], 16).unwrap(),
        _ => op.parse::<i64>().unwrap() as u32,
    }
}

/// Inline constants as 64-bit operands.
fn rd64(f: &Frame, l: usize, op: &str) -> u64 {
    match op.parse::<i64>() {
        Ok(k) => k as u64,
        Err(_) => rd(f, l, op),
    }
}

fn wr_s(f: &mut Frame, op: &str, x: u32) {
    match op {
        "vcc_lo" => f.vcc = x,
        "exec_lo" => f.exec = x,
        _ => f.set_s(op[1..].parse().unwrap(), x),
    }
}

/// The first VGPR of a destination (`v8` or `v[8:9]`).
fn vdst(op: &str) -> usize {
    op.trim_start_matches("v[")
        .trim_start_matches('v')
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// The integer compare of the ISA's VOPC table: the operands' low 16/32/64 bits, signed or unsigned.
fn compare(cond: &str, ty: &str, a: u64, b: u64) -> bool {
    let key = |x: u64| -> i128 {
        match ty {
            "i16" => x as u16 as i16 as i128,
            "u16" => x as u16 as i128,
            "i32" => x as u32 as i32 as i128,
            "u32" => x as u32 as i128,
            "i64" => x as i64 as i128,
            "u64" => x as i128,
            _ => panic!("compare type {ty}"),
        }
    };
    let (a, b) = (key(a), key(b));
    match cond {
        "f" => false,
        "lt" => a < b,
        "eq" => a == b,
        "le" => a <= b,
        "gt" => a > b,
        "ne" => a != b,
        "ge" => a >= b,
        "t" => true,
        _ => panic!("compare condition {cond}"),
    }
}

/// Per active lane: `g(frame before, lane) -> (value, carry)`; writes the value (32 or 64 bits) to
/// VGPR `d` and returns the carry mask (inactive lanes 0).
fn lanes(f: &mut Frame, d: usize, wide: bool, g: impl Fn(&Frame, usize) -> (u64, bool)) -> u32 {
    let before = f.clone();
    let mut mask = 0u32;
    for l in 0..WAVE {
        if before.active(l) {
            let (x, c) = g(&before, l);
            f.v[l][d] = x as u32;
            if wide {
                f.v[l][d + 1] = (x >> 32) as u32;
            }
            mask |= (c as u32) << l;
        }
    }
    mask
}

fn bit(mask: u32, l: usize) -> u64 {
    (mask >> l & 1) as u64
}

/// One instruction of a segment, as the ISA guide defines it.
fn step(f: &mut Frame, line: &str) {
    let (line, clamp) = match line.strip_suffix(" clamp") {
        Some(l) => (l, true),
        None => (line, false),
    };
    let (mn, rest) = line.split_once(' ').unwrap();
    let a: Vec<&str> = rest.split(", ").collect();
    if let Some((x, c)) = mn
        .strip_prefix("v_cmpx_")
        .map(|c| (true, c))
        .or(mn.strip_prefix("v_cmp_").map(|c| (false, c)))
    {
        let p: Vec<&str> = c.split('_').collect();
        let (cond, ty) = (p[0], p[1]);
        let (s0, s1) = if x { (a[0], a[1]) } else { (a[1], a[2]) };
        let wide = ty.ends_with("64");
        let m = f.mask(|f, l| {
            let (u, v) = if wide {
                (rd64(f, l, s0), rd64(f, l, s1))
            } else {
                (rd(f, l, s0), rd(f, l, s1))
            };
            compare(cond, ty, u, v)
        });
        if x {
            f.exec = m;
        } else {
            wr_s(f, a[0], m);
        }
        return;
    }
    let u32_of = |f: &Frame, l: usize, k: usize| rd(f, l, a[k]) as u32;
    match mn {
        "s_mov_b32" => {
            let x = rd_s(f, a[1]);
            wr_s(f, a[0], x);
        }
        "s_or_b32" => {
            let x = rd_s(f, a[1]) | rd_s(f, a[2]);
            wr_s(f, a[0], x);
            f.scc = x != 0;
        }
        "v_mov_b32_e32" => {
            lanes(f, vdst(a[0]), false, |f, l| (u32_of(f, l, 1) as u64, false));
        }
        "v_lshrrev_b32_e32" | "v_lshrrev_b32_e64" => {
            lanes(f, vdst(a[0]), false, |f, l| {
                ((u32_of(f, l, 2) >> (u32_of(f, l, 1) & 31)) as u64, false)
            });
        }
        "v_and_b32_e32" | "v_and_b32_e64" => {
            lanes(f, vdst(a[0]), false, |f, l| {
                ((u32_of(f, l, 1) & u32_of(f, l, 2)) as u64, false)
            });
        }
        "v_sub_nc_u32_e32" | "v_sub_nc_u32_e64" => {
            lanes(f, vdst(a[0]), false, |f, l| {
                (u32_of(f, l, 1).wrapping_sub(u32_of(f, l, 2)) as u64, false)
            });
        }
        "v_subrev_nc_u32_e32" | "v_subrev_nc_u32_e64" => {
            lanes(f, vdst(a[0]), false, |f, l| {
                (u32_of(f, l, 2).wrapping_sub(u32_of(f, l, 1)) as u64, false)
            });
        }
        // D = S0 - S1 - borrow-in (the lane's bit of the carry SGPR); borrow-out when S1 + borrow-in > S0.
        "v_sub_co_ci_u32_e32"
        | "v_sub_co_ci_u32_e64"
        | "v_subrev_co_ci_u32_e32"
        | "v_subrev_co_ci_u32_e64" => {
            let rev = mn.starts_with("v_subrev");
            let cin = rd_s(f, a[4]);
            let m = lanes(f, vdst(a[0]), false, |f, l| {
                let (x, y) = (rd(f, l, a[2]), rd(f, l, a[3]));
                let (x, y) = if rev { (y, x) } else { (x, y) };
                let y = y + bit(cin, l);
                ((x.wrapping_sub(y)) & 0xffff_ffff, y > x)
            });
            wr_s(f, a[1], m);
        }
        "v_add_co_u32" => {
            let m = lanes(f, vdst(a[0]), false, |f, l| {
                let s = rd(f, l, a[2]) + rd(f, l, a[3]);
                (s & 0xffff_ffff, s >> 32 != 0)
            });
            wr_s(f, a[1], m);
        }
        "v_sub_co_u32" | "v_subrev_co_u32" => {
            let rev = mn == "v_subrev_co_u32";
            let m = lanes(f, vdst(a[0]), false, |f, l| {
                let (x, y) = (rd(f, l, a[2]) as u32, rd(f, l, a[3]) as u32);
                let (x, y) = if rev { (y, x) } else { (x, y) };
                (x.wrapping_sub(y) as u64, y > x)
            });
            wr_s(f, a[1], m);
        }
        // {carry, D[63:0]} = S0[31:0] * S1[31:0] + S2[63:0].
        "v_mad_u64_u32" => {
            let m = lanes(f, vdst(a[0]), true, |f, l| {
                let s = rd(f, l, a[2]) as u128 * rd(f, l, a[3]) as u128 + rd(f, l, a[4]) as u128;
                (s as u64, s >> 64 != 0)
            });
            wr_s(f, a[1], m);
        }
        "v_min3_u32" => {
            lanes(f, vdst(a[0]), false, |f, l| {
                let v = [1, 2, 3].map(|k| u32_of(f, l, k));
                (v[0].min(v[1]).min(v[2]) as u64, false)
            });
        }
        "v_max3_i32" => {
            lanes(f, vdst(a[0]), false, |f, l| {
                let v = [1, 2, 3].map(|k| u32_of(f, l, k) as i32);
                (v[0].max(v[1]).max(v[2]) as u32 as u64, false)
            });
        }
        "v_xor3_b32" | "v_or3_b32" | "v_and_or_b32" | "v_lshl_or_b32" | "v_add_lshl_u32" => {
            lanes(f, vdst(a[0]), false, |f, l| {
                let [x, y, z] = [1, 2, 3].map(|k| u32_of(f, l, k));
                let r = match mn {
                    "v_xor3_b32" => x ^ y ^ z,
                    "v_or3_b32" => x | y | z,
                    "v_and_or_b32" => (x & y) | z,
                    "v_lshl_or_b32" => (x << (y & 31)) | z,
                    _ => x.wrapping_add(y) << (z & 31),
                };
                (r as u64, false)
            });
        }
        // D[63:0] = S1[63:0] << S0[5:0].
        "v_lshlrev_b64" => {
            lanes(f, vdst(a[0]), true, |f, l| {
                (rd64(f, l, a[2]) << (u32_of(f, l, 1) & 63), false)
            });
        }
        // D = popcount(S0 & ThreadMask[63:32]) + S1, ThreadMask = (1 << lane) - 1 (64-bit): in wave32 the
        // high half of the mask is empty for every lane.
        "v_mbcnt_hi_u32_b32" => {
            lanes(f, vdst(a[0]), false, |f, l| {
                let tm = ((1u64 << l) - 1) >> 32;
                let c = (u32_of(f, l, 1) as u64 & tm).count_ones();
                (c.wrapping_add(u32_of(f, l, 2)) as u64, false)
            });
        }
        // Lane l reads S0 of lane 16 * (l / 16) + sel, sel = nibble (l % 8) of S1 (l % 16 < 8) or S2.
        "v_permlane16_b32" => {
            assert_eq!(
                f.exec,
                u32::MAX,
                "the permlane segments run with every lane active"
            );
            let (lo, hi) = (rd_s(f, a[2]), rd_s(f, a[3]));
            lanes(f, vdst(a[0]), false, |f, l| {
                let i = l % 16;
                let word = if i < 8 { lo } else { hi };
                let sel = (word >> (4 * (i % 8))) & 15;
                (
                    rd(f, 16 * (l / 16) + sel as usize, a[1]) & 0xffff_ffff,
                    false,
                )
            });
        }
        // VGPR D of lane (S1 mod 32) = S0 (scalar), whatever EXEC says; the other lanes keep theirs.
        "v_writelane_b32" => {
            let lane = (rd_s(f, a[2]) & 31) as usize;
            let x = rd_s(f, a[1]);
            f.v[lane][vdst(a[0])] = x;
        }
        // D = S0 + S1 + carry-in (the lane's bit of the carry SGPR); carry-out when the sum passes 2^32.
        "v_add_co_ci_u32_e64" => {
            let cin = rd_s(f, a[4]);
            let m = lanes(f, vdst(a[0]), false, |f, l| {
                let s = u32_of(f, l, 2) as u64 + u32_of(f, l, 3) as u64 + bit(cin, l);
                (s & 0xffff_ffff, s >> 32 != 0)
            });
            wr_s(f, a[1], m);
        }
        _ => {
            let base = mn.trim_end_matches("_e32").trim_end_matches("_e64");
            int_op(base, clamp, 1, 1).unwrap_or_else(|| panic!("the model does not know {line}"));
            lanes(f, vdst(a[0]), false, |f, l| {
                let x = u32_of(f, l, 1);
                let y = if a.len() > 2 { u32_of(f, l, 2) } else { 0 };
                (int_op(base, clamp, x, y).unwrap() as u64, false)
            });
        }
    }
}

/// The one- and two-source integer ops of the `int_e64` segments, from the ISA guide (S0 = `x`, S1 = `y`;
/// the shifts' S0 is the amount; `clamp` saturates the signed add/sub).
fn int_op(mn: &str, clamp: bool, x: u32, y: u32) -> Option<u32> {
    let i24 = |v: u32| ((v << 8) as i32 >> 8) as i64;
    let u24 = |v: u32| (v & 0xff_ffff) as u64;
    let none_if_zero = |v: u32, r: u32| if v == 0 { u32::MAX } else { r };
    Some(match mn {
        "v_mul_i32_i24" => (i24(x) * i24(y)) as u32,
        "v_mul_hi_i32_i24" => ((i24(x) * i24(y)) >> 32) as u32,
        "v_mul_u32_u24" => (u24(x) * u24(y)) as u32,
        "v_mul_hi_u32_u24" => ((u24(x) * u24(y)) >> 32) as u32,
        "v_mul_lo_i32" => x.wrapping_mul(y),
        "v_max_i32" => (x as i32).max(y as i32) as u32,
        "v_min_i32" => (x as i32).min(y as i32) as u32,
        "v_max_u32" => x.max(y),
        "v_min_u32" => x.min(y),
        "v_or_b32" => x | y,
        "v_xor_b32" => x ^ y,
        "v_xnor_b32" => !(x ^ y),
        "v_ashrrev_i32" => ((y as i32) >> (x & 31)) as u32,
        "v_lshlrev_b32" => y << (x & 31),
        "v_mov_b32" => x,
        "v_not_b32" => !x,
        "v_bfrev_b32" => x.reverse_bits(),
        "v_ffbh_u32" => none_if_zero(x, x.leading_zeros()),
        "v_ffbl_b32" => none_if_zero(x, x.trailing_zeros()),
        // Leading bits equal to the sign bit; -1 when every bit is (0 and -1).
        "v_ffbh_i32" => {
            let d = x ^ ((x as i32 >> 31) as u32);
            none_if_zero(d, d.leading_zeros())
        }
        "v_add_nc_i32" if clamp => (x as i32).saturating_add(y as i32) as u32,
        "v_add_nc_i32" => x.wrapping_add(y),
        "v_sub_nc_i32" if clamp => (x as i32).saturating_sub(y as i32) as u32,
        "v_sub_nc_i32" => x.wrapping_sub(y),
        _ => return None,
    })
}

/// The reference for a segment: its instructions in order.
fn model(f: &mut Frame, text: &str) {
    for line in text.lines() {
        step(f, line);
    }
}

// ---------------------------------------------------------------------------------------------------
// Operands.

/// `b` related to `a`: equal, ±1, the same low half with another high half, the sign bit flipped.
fn related32(r: &mut Rng, a: u32) -> u32 {
    match r.next() % 8 {
        0 | 1 => a,
        2 => a.wrapping_add(1),
        3 => a.wrapping_sub(1),
        4 => a ^ (r.u32() | 1) << 16,
        5 => a ^ 0x8000_0000,
        6 => a ^ 0x8000,
        _ => (a & 0xffff_0000) | (a as u16).wrapping_add(1) as u32,
    }
}

/// opcheck's random + boundary operands, with pairs tied per lane: the dword pairs (0,1), (2,3), ...
/// (32- and 16-bit compares) in 3/8 of the lanes, the 64-bit pairs (v[0:1], v[2:3]), (v[4:5], v[6:7]), ...
/// in another 3/8 (equal, or equal in one dword), the rest left independent.
fn correlated(n: usize, seed: u64) -> Vec<[u32; 16]> {
    let mut v = inputs(n, seed);
    let mut r = Rng(seed ^ 0x5a5a_0000_c0de);
    for x in v.iter_mut() {
        match r.next() % 8 {
            0..=2 => {
                for p in 0..8 {
                    x[2 * p + 1] = related32(&mut r, x[2 * p]);
                }
            }
            3..=5 => {
                for q in 0..4 {
                    let (lo, hi) = (x[4 * q], x[4 * q + 1]);
                    let (nlo, nhi) = match r.next() % 6 {
                        0 | 1 => (lo, hi),
                        2 => (related32(&mut r, lo), hi),
                        3 => (lo, related32(&mut r, hi)),
                        _ => {
                            let w = ((hi as u64) << 32 | lo as u64).wrapping_add(1);
                            (w as u32, (w >> 32) as u32)
                        }
                    };
                    x[4 * q + 2] = nlo;
                    x[4 * q + 3] = nhi;
                }
            }
            _ => {}
        }
    }
    v
}

fn check(ops: &[Op]) {
    check_n_with(ops, n(), correlated)
}

// coverage: valu_cmp_e64: V_CMP_LT_I16 V_CMP_EQ_I16 V_CMP_LE_I16 V_CMP_GT_I16 V_CMP_NE_I16 V_CMP_GE_I16 V_CMP_LT_U16 V_CMP_EQ_U16 V_CMP_LE_U16 V_CMP_GT_U16 V_CMP_NE_U16 V_CMP_GE_U16 V_CMP_F_I32 V_CMP_LT_I32 V_CMP_EQ_I32 V_CMP_LE_I32 V_CMP_GT_I32 V_CMP_NE_I32 V_CMP_GE_I32 V_CMP_T_I32 V_CMP_F_U32 V_CMP_LT_U32 V_CMP_EQ_U32 V_CMP_LE_U32 V_CMP_GT_U32 V_CMP_NE_U32 V_CMP_GE_U32 V_CMP_T_U32 V_CMP_F_I64 V_CMP_LT_I64 V_CMP_EQ_I64 V_CMP_LE_I64 V_CMP_GT_I64 V_CMP_NE_I64 V_CMP_GE_I64 V_CMP_T_I64 V_CMP_F_U64 V_CMP_LT_U64 V_CMP_EQ_U64 V_CMP_LE_U64 V_CMP_GT_U64 V_CMP_NE_U64 V_CMP_GE_U64 V_CMP_T_U64
/// Every integer v_cmp, five of each six in the VOP3 encoding (to s16..s20), the sixth in VOPC (to VCC).
#[test]
fn valu_cmp_e64() {
    check(&cmp_e64());
}

// coverage: valu_cmpx: V_CMPX_LT_I16 V_CMPX_EQ_I16 V_CMPX_LE_I16 V_CMPX_GT_I16 V_CMPX_NE_I16 V_CMPX_GE_I16 V_CMPX_LT_U16 V_CMPX_EQ_U16 V_CMPX_LE_U16 V_CMPX_GT_U16 V_CMPX_NE_U16 V_CMPX_GE_U16 V_CMPX_F_I32 V_CMPX_LT_I32 V_CMPX_EQ_I32 V_CMPX_LE_I32 V_CMPX_GT_I32 V_CMPX_NE_I32 V_CMPX_GE_I32 V_CMPX_T_I32 V_CMPX_F_U32 V_CMPX_LT_U32 V_CMPX_EQ_U32 V_CMPX_LE_U32 V_CMPX_GT_U32 V_CMPX_NE_U32 V_CMPX_GE_U32 V_CMPX_T_U32 V_CMPX_F_I64 V_CMPX_LT_I64 V_CMPX_EQ_I64 V_CMPX_LE_I64 V_CMPX_GT_I64 V_CMPX_NE_I64 V_CMPX_GE_I64 V_CMPX_T_I64 V_CMPX_F_U64 V_CMPX_LT_U64 V_CMPX_EQ_U64 V_CMPX_LE_U64 V_CMPX_GT_U64 V_CMPX_NE_U64 V_CMPX_GE_U64 V_CMPX_T_U64
/// Every integer v_cmpx (VOPC and VOP3 encodings alternating), EXEC partial in 6 of 8 segments.
#[test]
fn valu_cmpx() {
    check(&cmpx());
}

// coverage: valu_int_misc: V_LSHRREV_B32 V_AND_B32 V_SUB_NC_U32 V_SUBREV_NC_U32 V_SUB_CO_CI_U32 V_SUBREV_CO_CI_U32 V_ADD_CO_U32 V_SUB_CO_U32 V_SUBREV_CO_U32 V_MIN3_U32 V_MAX3_I32 V_XOR3_B32 V_LSHLREV_B64 V_ADD_LSHL_U32 V_LSHL_OR_B32 V_AND_OR_B32 V_OR3_B32 V_MBCNT_HI_U32_B32 V_PERMLANE16_B32 V_MAD_U64_U32
/// The remaining integer VOP2/VOP3 ops, up to eight per segment (results in v8..v15, carries in s16..s20
/// and VCC).
#[test]
fn valu_int_misc() {
    check(&misc());
}

// coverage: valu_int_e64: V_MUL_HI_I32_I24 V_MUL_U32_U24 V_MUL_HI_U32_U24 V_MAX_I32 V_MIN_U32 V_OR_B32 V_XOR_B32 V_FFBH_U32 V_FFBL_B32 V_FFBH_I32 V_MOV_B32 V_MAX_U32 V_XNOR_B32 V_ADD_CO_CI_U32 V_SUBREV_CO_CI_U32 V_MIN_I32 V_ASHRREV_I32 V_LSHLREV_B32 V_NOT_B32 V_BFREV_B32 V_MUL_I32_I24 V_ADD_NC_I32 V_SUB_NC_I32 V_WRITELANE_B32
/// Integer VOP1/VOP2 ops in their VOP3 (e64) encoding, VOP2 ones whose e32 row no test compared, and the
/// VOP3-only v_add_nc_i32 / v_sub_nc_i32 (clamp too) — issue 28.
#[test]
fn valu_int_e64() {
    check(&int_e64());
}

// coverage: valu_cmp_e32: V_CMP_LT_I16 V_CMP_EQ_I16 V_CMP_LE_I16 V_CMP_GT_I16 V_CMP_NE_I16 V_CMP_GE_I16 V_CMP_LT_U16 V_CMP_EQ_U16 V_CMP_LE_U16 V_CMP_GT_U16 V_CMP_NE_U16 V_CMP_GE_U16 V_CMP_F_I32 V_CMP_LT_I32 V_CMP_EQ_I32 V_CMP_LE_I32 V_CMP_GT_I32 V_CMP_NE_I32 V_CMP_GE_I32 V_CMP_T_I32 V_CMP_F_U32 V_CMP_LT_U32 V_CMP_EQ_U32 V_CMP_LE_U32 V_CMP_GT_U32 V_CMP_NE_U32 V_CMP_GE_U32 V_CMP_T_U32 V_CMP_F_I64 V_CMP_LT_I64 V_CMP_EQ_I64 V_CMP_LE_I64 V_CMP_GT_I64 V_CMP_NE_I64 V_CMP_GE_I64 V_CMP_T_I64 V_CMP_F_U64 V_CMP_LT_U64 V_CMP_EQ_U64 V_CMP_LE_U64 V_CMP_GT_U64 V_CMP_NE_U64 V_CMP_GE_U64 V_CMP_T_U64
/// Every integer v_cmp in the VOPC encoding (to VCC, copied to s16..s20).
#[test]
fn valu_cmp_e32() {
    check(&cmp_e32());
}

// coverage: valu_cmp_e64_vcc: V_CMP_LT_I16 V_CMP_EQ_I16 V_CMP_LE_I16 V_CMP_GT_I16 V_CMP_NE_I16 V_CMP_GE_I16 V_CMP_LT_U16 V_CMP_EQ_U16 V_CMP_LE_U16 V_CMP_GT_U16 V_CMP_NE_U16 V_CMP_GE_U16 V_CMP_F_I32 V_CMP_LT_I32 V_CMP_EQ_I32 V_CMP_LE_I32 V_CMP_GT_I32 V_CMP_NE_I32 V_CMP_GE_I32 V_CMP_T_I32 V_CMP_F_U32 V_CMP_LT_U32 V_CMP_EQ_U32 V_CMP_LE_U32 V_CMP_GT_U32 V_CMP_NE_U32 V_CMP_GE_U32 V_CMP_T_U32 V_CMP_F_I64 V_CMP_LT_I64 V_CMP_EQ_I64 V_CMP_LE_I64 V_CMP_GT_I64 V_CMP_NE_I64 V_CMP_GE_I64 V_CMP_T_I64 V_CMP_F_U64 V_CMP_LT_U64 V_CMP_EQ_U64 V_CMP_LE_U64 V_CMP_GT_U64 V_CMP_NE_U64 V_CMP_GE_U64 V_CMP_T_U64
/// Every integer v_cmp in the VOP3 encoding, the sixth of each segment to VCC (issue 28: the VOP3 rows that
/// `valu_cmp_e64` gives the VOPC encoding).
#[test]
fn valu_cmp_e64_vcc() {
    check(&cmp_e64_vcc());
}

// coverage: valu_cmpx_swapped: V_CMPX_LT_I16 V_CMPX_EQ_I16 V_CMPX_LE_I16 V_CMPX_GT_I16 V_CMPX_NE_I16 V_CMPX_GE_I16 V_CMPX_LT_U16 V_CMPX_EQ_U16 V_CMPX_LE_U16 V_CMPX_GT_U16 V_CMPX_NE_U16 V_CMPX_GE_U16 V_CMPX_F_I32 V_CMPX_LT_I32 V_CMPX_EQ_I32 V_CMPX_LE_I32 V_CMPX_GT_I32 V_CMPX_NE_I32 V_CMPX_GE_I32 V_CMPX_T_I32 V_CMPX_F_U32 V_CMPX_LT_U32 V_CMPX_EQ_U32 V_CMPX_LE_U32 V_CMPX_GT_U32 V_CMPX_NE_U32 V_CMPX_GE_U32 V_CMPX_T_U32 V_CMPX_F_I64 V_CMPX_LT_I64 V_CMPX_EQ_I64 V_CMPX_LE_I64 V_CMPX_GT_I64 V_CMPX_NE_I64 V_CMPX_GE_I64 V_CMPX_T_I64 V_CMPX_F_U64 V_CMPX_LT_U64 V_CMPX_EQ_U64 V_CMPX_LE_U64 V_CMPX_GT_U64 V_CMPX_NE_U64 V_CMPX_GE_U64 V_CMPX_T_U64
/// Every integer v_cmpx in the encoding `valu_cmpx` does not give it (issue 28: one row per encoding).
#[test]
fn valu_cmpx_swapped() {
    check(&cmpx_swapped());
}
