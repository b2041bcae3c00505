//! 16-bit integer VOP3 instructions (op_sel, clamp), integer clamp on 32-bit add/subtract, more integer VOP3
//! (v_mad_i64_i32, v_add/sub_nc_i32, v_xnor_b32, v_swap_b32, the no-op forms) and general SDWA on integer
//! VOP1/VOP2/VOPC through the opcheck harness (D022): host vs lavapipe bit-identical, host vs a Rust
//! reference written per lane from the RDNA 2 ISA guide's definitions with Rust's integer operations.
//! Words from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding` (the harness checks that our printer
//! prints them back as written). Decisions D063 (16-bit results keep the other half) and D064 (SDWA).

mod opcheck;
use opcheck::{check, op, op_exec, Exec, Frame, Op};
use rdna2spv_isa::Target;

/// The low (or high) half of `x`, zero- or sign-extended.
fn x16(x: u32, hi: bool, signed: bool) -> i64 {
    let h = if hi { x >> 16 } else { x & 0xffff };
    if signed {
        h as u16 as i16 as i64
    } else {
        h as i64
    }
}
/// `old` with the low 16 bits of `r` in its low (or high) half; the other half kept.
fn put16(old: u32, r: i64, hi: bool) -> u32 {
    let r = r as u32 & 0xffff;
    if hi {
        old & 0xffff | r << 16
    } else {
        old & 0xffff_0000 | r
    }
}
/// A 16-bit VOP3 op on v0, v1, v2 into v8 with op_sel bits `opsel` (bit 3: destination half).
fn v16(f: &mut Frame, opsel: u32, signed: bool, g: fn(i64, i64, i64) -> i64) {
    f.per_lane(8, move |f, l| {
        let v = f.v[l];
        let a = x16(v[0], opsel & 1 != 0, signed);
        let b = x16(v[1], opsel & 2 != 0, signed);
        let c = x16(v[2], opsel & 4 != 0, signed);
        put16(v[8], g(a, b, c), opsel & 8 != 0)
    })
}
fn med3(a: i64, b: i64, c: i64) -> i64 {
    let mut v = [a, b, c];
    v.sort();
    v[1]
}
/// (the low 64 bits, bit 64) of the exact sext(a) * sext(b) + sext(c).
fn mad_i64(a: u32, b: u32, c: u64) -> (u64, bool) {
    let x = (a as i32 as i128) * (b as i32 as i128) + (c as i64 as i128);
    (x as u64, x < 0)
}
/// `g` applied to the selected sources (one or two).
fn ap1(g: fn(u32) -> u32, a: u32) -> u32 {
    g(a)
}
fn ap2(g: fn(u32, u32) -> u32, a: u32, b: u32) -> u32 {
    g(a, b)
}
fn i24(x: u32) -> i64 {
    ((x << 8) as i32 >> 8) as i64
}
/// An SDWA source selection: BYTE_0..3 (0..3), WORD_0/1 (4, 5), DWORD (6), zero- or sign-extended.
fn sel(x: u32, sel: u32, sext: bool) -> u32 {
    let (sh, bits) = match sel {
        0..=3 => (8 * sel, 8),
        4 | 5 => (16 * (sel - 4), 16),
        _ => return x,
    };
    let m = (1u32 << bits) - 1;
    let v = (x >> sh) & m;
    if sext && v >> (bits - 1) & 1 != 0 {
        v | !m
    } else {
        v
    }
}
/// An SDWA destination write: `r`'s low field into field `sel` of the destination; the other bits 0
/// (unused 0), the field's sign above and 0 below (1), or `old`'s (2).
fn dst(old: u32, r: u32, sel: u32, unused: u32) -> u32 {
    let (sh, bits) = match sel {
        0..=3 => (8 * sel, 8),
        4 | 5 => (16 * (sel - 4), 16),
        _ => return r,
    };
    let m = (1u32 << bits) - 1;
    let field = (r & m) << sh;
    match unused {
        0 => field,
        1 if r >> (bits - 1) & 1 != 0 => field | !(((1u64 << (sh + bits)) - 1) as u32),
        1 => field,
        _ => old & !(m << sh) | field,
    }
}

fn ops() -> Vec<Op> {
    vec![
        op(
            "v_add_nc_u16 v8, v0, v1",
            &[0xd703_0008, 0x0002_0300],
            |f| v16(f, 0, false, |a, b, _| a + b),
        ),
        op(
            "v_add_nc_u16 v8, v0, v1 op_sel:[1,0,1] clamp",
            &[0xd703_c808, 0x0002_0300],
            |f| v16(f, 0b1001, false, |a, b, _| (a + b).min(0xffff)),
        ),
        op(
            "v_sub_nc_u16 v8, v0, v1 clamp",
            &[0xd704_8008, 0x0002_0300],
            |f| v16(f, 0, false, |a, b, _| (a - b).max(0)),
        ),
        op(
            "v_sub_nc_u16 v8, v0, s8 op_sel:[0,1,0]",
            &[0xd704_1008, 0x0000_1100],
            |f| f.per_lane(8, |f, l| put16(f.v[l][8], x16(f.v[l][0], false, false) - x16(f.s(8), true, false), false)),
        ),
        op(
            "v_add_nc_i16 v8, v0, v1",
            &[0xd70d_0008, 0x0002_0300],
            |f| v16(f, 0, true, |a, b, _| a + b),
        ),
        op(
            "v_add_nc_i16 v8, v0, v1 op_sel:[0,1,1] clamp",
            &[0xd70d_d008, 0x0002_0300],
            |f| v16(f, 0b1010, true, |a, b, _| (a + b).clamp(-0x8000, 0x7fff)),
        ),
        op(
            "v_sub_nc_i16 v8, v0, v1",
            &[0xd70e_0008, 0x0002_0300],
            |f| v16(f, 0, true, |a, b, _| a - b),
        ),
        op(
            "v_sub_nc_i16 v8, v0, v1 clamp",
            &[0xd70e_8008, 0x0002_0300],
            |f| v16(f, 0, true, |a, b, _| (a - b).clamp(-0x8000, 0x7fff)),
        ),
        op(
            "v_mul_lo_u16 v8, v0, v1",
            &[0xd705_0008, 0x0002_0300],
            |f| v16(f, 0, false, |a, b, _| a * b),
        ),
        op(
            "v_lshlrev_b16 v8, v0, v1",
            &[0xd714_0008, 0x0002_0300],
            |f| v16(f, 0, false, |a, b, _| b << (a & 15)),
        ),
        op(
            "v_lshrrev_b16 v8, v0, v1",
            &[0xd707_0008, 0x0002_0300],
            |f| v16(f, 0, false, |a, b, _| b >> (a & 15)),
        ),
        op(
            "v_ashrrev_i16 v8, v0, v1",
            &[0xd708_0008, 0x0002_0300],
            |f| v16(f, 0, true, |a, b, _| b >> (a & 15)),
        ),
        op(
            "v_max_u16 v8, v0, v1",
            &[0xd709_0008, 0x0002_0300],
            |f| v16(f, 0, false, |a, b, _| a.max(b)),
        ),
        op(
            "v_max_i16 v8, v0, v1",
            &[0xd70a_0008, 0x0002_0300],
            |f| v16(f, 0, true, |a, b, _| a.max(b)),
        ),
        op(
            "v_min_u16 v8, v0, v1",
            &[0xd70b_0008, 0x0002_0300],
            |f| v16(f, 0, false, |a, b, _| a.min(b)),
        ),
        op(
            "v_min_i16 v8, v0, v1",
            &[0xd70c_0008, 0x0002_0300],
            |f| v16(f, 0, true, |a, b, _| a.min(b)),
        ),
        op(
            "v_mad_u16 v8, v0, v1, v2 op_sel:[0,1,1,1]",
            &[0xd740_7008, 0x040a_0300],
            |f| v16(f, 0b1110, false, |a, b, c| a * b + c),
        ),
        op(
            "v_mad_i16 v8, v0, v1, v2",
            &[0xd75e_0008, 0x040a_0300],
            |f| v16(f, 0, true, |a, b, c| a * b + c),
        ),
        op(
            "v_min3_i16 v8, v0, v1, v2",
            &[0xd752_0008, 0x040a_0300],
            |f| v16(f, 0, true, |a, b, c| a.min(b).min(c)),
        ),
        op(
            "v_min3_u16 v8, v0, v1, v2 op_sel:[1,0,1,0]",
            &[0xd753_2808, 0x040a_0300],
            |f| v16(f, 0b0101, false, |a, b, c| a.min(b).min(c)),
        ),
        op(
            "v_max3_i16 v8, v0, v1, v2 op_sel:[0,1,0,1]",
            &[0xd755_5008, 0x040a_0300],
            |f| v16(f, 0b1010, true, |a, b, c| a.max(b).max(c)),
        ),
        op(
            "v_max3_u16 v8, v0, v1, v2",
            &[0xd756_0008, 0x040a_0300],
            |f| v16(f, 0, false, |a, b, c| a.max(b).max(c)),
        ),
        op(
            "v_med3_i16 v8, v0, v1, v2 op_sel:[1,1,1,0]",
            &[0xd758_3808, 0x040a_0300],
            |f| v16(f, 0b0111, true, med3),
        ),
        op(
            "v_med3_u16 v8, v0, v1, v2",
            &[0xd759_0008, 0x040a_0300],
            |f| v16(f, 0, false, med3),
        ),
        op(
            "v_mad_u32_u16 v8, v0, v1, v2 op_sel:[1,0,0,0]",
            &[0xd773_0808, 0x040a_0300],
            |f| f.per_lane(8, |f, l| { let v = f.v[l]; (x16(v[0], true, false) * x16(v[1], false, false) + v[2] as i64) as u32 }),
        ),
        op(
            "v_mad_i32_i16 v8, v0, v1, v2 op_sel:[0,1,0,0]",
            &[0xd775_1008, 0x040a_0300],
            |f| f.per_lane(8, |f, l| { let v = f.v[l]; (x16(v[0], false, true) * x16(v[1], true, true) + v[2] as i32 as i64) as u32 }),
        ),
        op(
            "v_add_nc_u32_e64 v8, v0, v1 clamp",
            &[0xd525_8008, 0x0002_0300],
            |f| f.per_lane(8, |f, l| f.v[l][0].saturating_add(f.v[l][1])),
        ),
        op(
            "v_sub_nc_u32_e64 v8, s8, v1 clamp",
            &[0xd526_8008, 0x0002_0208],
            |f| f.per_lane(8, |f, l| f.s(8).saturating_sub(f.v[l][1])),
        ),
        op(
            "v_subrev_nc_u32_e64 v8, v0, v1 clamp",
            &[0xd527_8008, 0x0002_0300],
            |f| f.per_lane(8, |f, l| f.v[l][1].saturating_sub(f.v[l][0])),
        ),
        op(
            "v_add_nc_i32 v8, v0, v1",
            &[0xd77f_0008, 0x0002_0300],
            |f| f.per_lane(8, |f, l| f.v[l][0].wrapping_add(f.v[l][1])),
        ),
        op(
            "v_add_nc_i32 v8, v0, v1 clamp",
            &[0xd77f_8008, 0x0002_0300],
            |f| f.per_lane(8, |f, l| (f.v[l][0] as i32).saturating_add(f.v[l][1] as i32) as u32),
        ),
        op(
            "v_sub_nc_i32 v8, v0, v1",
            &[0xd776_0008, 0x0002_0300],
            |f| f.per_lane(8, |f, l| f.v[l][0].wrapping_sub(f.v[l][1])),
        ),
        op(
            "v_sub_nc_i32 v8, v0, v1 clamp",
            &[0xd776_8008, 0x0002_0300],
            |f| f.per_lane(8, |f, l| (f.v[l][0] as i32).saturating_sub(f.v[l][1] as i32) as u32),
        ),
        op_exec(
            "v_mad_i64_i32 v[8:9], s16, v0, v1, v[2:3]",
            &[0xd577_1008, 0x040a_0300],
            |f| {
            let m = f.mask(|f, l| mad_i64(f.v[l][0], f.v[l][1], f.v64(l, 2)).1);
            f.per_lane64(8, |f, l| mad_i64(f.v[l][0], f.v[l][1], f.v64(l, 2)).0);
            f.set_s(16, m);
        },
        ),
        op(
            "v_mad_i64_i32 v[8:9], null, v0, 36, s[14:15]",
            &[0xd577_7d08, 0x0039_4900],
            |f| f.per_lane64(8, |f, l| mad_i64(f.v[l][0], 36, f.s64(14)).0),
        ),
        op(
            "v_xnor_b32_e32 v8, v0, v1",
            &[0x3c10_0300],
            |f| f.per_lane(8, |f, l| !(f.v[l][0] ^ f.v[l][1])),
        ),
        op(
            "v_xnor_b32_e64 v8, s8, v1",
            &[0xd51e_0008, 0x0002_0208],
            |f| f.per_lane(8, |f, l| !(f.s(8) ^ f.v[l][1])),
        ),
        op_exec(
            "v_swap_b32 v8, v9",
            &[0x7e10_cb09],
            |f| {
            let before = f.clone();
            f.per_lane(8, |_, l| before.v[l][9]);
            f.per_lane(9, |_, l| before.v[l][8]);
        },
        ),
        op(
            "v_nop",
            &[0x7e00_0000],
            |_| {},
        ),
        op(
            "v_pipeflush",
            &[0x7e00_3600],
            |_| {},
        ),
        op(
            "v_clrexcp",
            &[0x7e00_8200],
            |_| {},
        ),
        // The VOP3 (e64) encodings of the three no-ops (issue 28): every recorded register unchanged.
        op(
            "v_nop",
            &[0xd580_0000, 0x0000_0000],
            |_| {},
        ),
        op_exec(
            "v_pipeflush",
            &[0xd59b_0000, 0x0000_0000],
            |_| {},
        ),
        op_exec(
            "v_clrexcp",
            &[0xd5c1_0000, 0x0000_0000],
            |_| {},
        ),
        op(
            "v_mul_u32_u24_sdwa v8, v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD",
            &[0x1610_02f9, 0x0604_0600],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff), sel(f.v[l][0], 4, false), sel(f.v[l][1], 6, false)), 6, 0)),
        ),
        op_exec(
            "v_add_nc_u32_sdwa v8, v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_1",
            &[0x4a10_02f9, 0x0501_1500],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| a.wrapping_add(b), sel(f.v[l][0], 1, false), sel(f.v[l][1], 5, false)), 5, 2)),
        ),
        op(
            "v_sub_nc_u32_sdwa v8, sext(v0), v1 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:WORD_1 src1_sel:BYTE_3",
            &[0x4c10_02f9, 0x030d_0a00],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| a.wrapping_sub(b), sel(f.v[l][0], 5, true), sel(f.v[l][1], 3, false)), 2, 1)),
        ),
        op(
            "v_add_nc_u32_sdwa v8, v0, sext(v1) clamp dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:BYTE_0",
            &[0x4a10_02f9, 0x0806_2600],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| a.saturating_add(b), sel(f.v[l][0], 6, false), sel(f.v[l][1], 0, true)), 6, 0)),
        ),
        op(
            "v_sub_nc_u32_sdwa v8, v0, v1 clamp dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:WORD_0 src1_sel:DWORD",
            &[0x4c10_02f9, 0x0604_2c00],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| a.saturating_sub(b), sel(f.v[l][0], 4, false), sel(f.v[l][1], 6, false)), 4, 1)),
        ),
        op(
            "v_and_b32_sdwa v8, v0, v1 dst_sel:BYTE_0 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_3 src1_sel:BYTE_2",
            &[0x3610_02f9, 0x0203_1000],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| a & b, sel(f.v[l][0], 3, false), sel(f.v[l][1], 2, false)), 0, 2)),
        ),
        op(
            "v_or_b32_sdwa v8, s8, v1 dst_sel:BYTE_3 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD",
            &[0x3810_02f9, 0x0685_0308],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| a | b, sel(f.s(8), 5, false), sel(f.v[l][1], 6, false)), 3, 0)),
        ),
        op(
            "v_xor_b32_sdwa v8, v0, s9 dst_sel:WORD_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_1 src1_sel:WORD_0",
            &[0x3a10_12f9, 0x8401_0d00],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| a ^ b, sel(f.v[l][0], 1, false), sel(f.s(9), 4, false)), 5, 1)),
        ),
        op(
            "v_lshrrev_b32_sdwa v8, v0, v1 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:WORD_1",
            &[0x2c10_02f9, 0x0500_0400],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| b >> (a & 31), sel(f.v[l][0], 0, false), sel(f.v[l][1], 5, false)), 4, 0)),
        ),
        op(
            "v_lshlrev_b32_sdwa v8, v0, v1 dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2 src1_sel:DWORD",
            &[0x3410_02f9, 0x0602_1100],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| b << (a & 31), sel(f.v[l][0], 2, false), sel(f.v[l][1], 6, false)), 1, 2)),
        ),
        op(
            "v_ashrrev_i32_sdwa v8, v0, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1",
            &[0x3010_02f9, 0x0d06_0600],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| ((b as i32) >> (a & 31)) as u32, sel(f.v[l][0], 6, false), sel(f.v[l][1], 5, true)), 6, 0)),
        ),
        op(
            "v_min_i32_sdwa v8, sext(v0), sext(v1) dst_sel:WORD_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_0 src1_sel:BYTE_3",
            &[0x2210_02f9, 0x0b08_0d00],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| (a as i32).min(b as i32) as u32, sel(f.v[l][0], 0, true), sel(f.v[l][1], 3, true)), 5, 1)),
        ),
        op(
            "v_max_u32_sdwa v8, v0, v1 dst_sel:BYTE_2 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 src1_sel:WORD_1",
            &[0x2810_02f9, 0x0504_1200],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| a.max(b), sel(f.v[l][0], 4, false), sel(f.v[l][1], 5, false)), 2, 2)),
        ),
        op(
            "v_mul_i32_i24_sdwa v8, sext(v0), v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD",
            &[0x1210_02f9, 0x060d_0600],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap2(|a, b| (i24(a) * i24(b)) as u32, sel(f.v[l][0], 5, true), sel(f.v[l][1], 6, false)), 6, 0)),
        ),
        op(
            "v_not_b32_sdwa v8, v0 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2",
            &[0x7e10_6ef9, 0x0002_1400],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap1(|a| !a, sel(f.v[l][0], 2, false)), 4, 2)),
        ),
        op(
            "v_bfrev_b32_sdwa v8, sext(v0) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1",
            &[0x7e10_70f9, 0x000d_0600],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], ap1(|a| a.reverse_bits(), sel(f.v[l][0], 5, true)), 6, 0)),
        ),
        op_exec(
            "v_cndmask_b32_sdwa v8, v0, v1, vcc_lo dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_0 src1_sel:WORD_1",
            &[0x0210_02f9, 0x0500_0900],
            |f| f.per_lane(8, |f, l| dst(f.v[l][8], if f.vcc >> l & 1 != 0 { sel(f.v[l][1], 5, false) } else { sel(f.v[l][0], 0, false) }, 1, 1)),
        ),
        op_exec(
            "v_cmp_ne_u16_sdwa s16, v0, v1 src0_sel:BYTE_0 src1_sel:DWORD",
            &[0x7d5a_02f9, 0x0600_9000],
            |f| { let m = f.mask(|f, l| sel(f.v[l][0], 0, false) & 0xffff != f.v[l][1] & 0xffff); f.set_s(16, m) },
        ),
        op(
            "v_cmp_eq_u16_sdwa vcc_lo, v0, s8 src0_sel:WORD_1 src1_sel:BYTE_2",
            &[0x7d54_10f9, 0x8205_0000],
            |f| f.vcc = f.mask(|f, l| sel(f.v[l][0], 5, false) & 0xffff == sel(f.s(8), 2, false) & 0xffff),
        ),
        op(
            "v_cmp_ne_u32_sdwa s17, v0, v1 src0_sel:WORD_0 src1_sel:WORD_0",
            &[0x7d8a_02f9, 0x0404_9100],
            |f| { let m = f.mask(|f, l| sel(f.v[l][0], 4, false) != sel(f.v[l][1], 4, false)); f.set_s(17, m) },
        ),
        op(
            "v_cmp_gt_i32_sdwa s18, sext(v0), v1 src0_sel:BYTE_1 src1_sel:DWORD",
            &[0x7d08_02f9, 0x0609_9200],
            |f| { let m = f.mask(|f, l| (sel(f.v[l][0], 1, true) as i32) > f.v[l][1] as i32); f.set_s(18, m) },
        ),
        op(
            "v_cmp_lt_i16_sdwa vcc_lo, sext(v0), sext(v1) src0_sel:BYTE_3 src1_sel:WORD_1",
            &[0x7d12_02f9, 0x0d0b_0000],
            |f| f.vcc = f.mask(|f, l| (sel(f.v[l][0], 3, true) as i16) < sel(f.v[l][1], 5, true) as i16),
        ),
        op_exec(
            "v_cmpx_le_u32_sdwa v0, v1 src0_sel:BYTE_2 src1_sel:BYTE_1",
            &[0x7da6_02f9, 0x0102_0000],
            |f| f.exec = f.mask(|f, l| sel(f.v[l][0], 2, false) <= sel(f.v[l][1], 1, false)),
        ),
        // gfx1010's VOP3 0x16b (gfx1030 has no v_mul_lo_i32): the low 32 bits of the signed product,
        // from a VGPR, an SGPR and a literal; llvm-mc-19 -mcpu=gfx1010.
        Op {
            asm: "v_mul_lo_i32 v8, v0, v1\nv_mul_lo_i32 v9, s8, v1\nv_mul_lo_i32 v10, v3, 0x12345",
            words: &[
                0xd56b_0008, 0x0002_0300, 0xd56b_0009, 0x0002_0208, 0xd56b_000a, 0x0001_ff03,
                0x0001_2345,
            ],
            target: Target::Gfx1010,
            exec: Exec::FromInput,
            oracle: |f| {
                let m = |a: u32, b: u32| (a as i32 as i64 * b as i32 as i64) as u32;
                f.per_lane(8, |f, l| m(f.v[l][0], f.v[l][1]));
                f.per_lane(9, |f, l| m(f.s(8), f.v[l][1]));
                f.per_lane(10, |f, l| m(f.v[l][3], 0x12345));
            },
        },
    ]
}

/// The forms rocSPARSE's gfx1030 kernels need (docs/corpus.md), run in the default suite; the other forms
/// run with `--ignored` (CI cost, docs/coverage-tests.md).
const CORPUS: &[&str] = &[
    "v_add_nc_u16 v8, v0, v1",
    "v_sub_nc_u16 v8, v0, v1 clamp",
    "v_mul_lo_u16 v8, v0, v1",
    "v_lshrrev_b16 v8, v0, v1",
    "v_lshlrev_b16 v8, v0, v1",
    "v_min_u16 v8, v0, v1",
    "v_add_nc_u32_e64 v8, v0, v1 clamp",
    "v_sub_nc_u32_e64 v8, s8, v1 clamp",
    "v_mad_i64_i32 v[8:9], s16, v0, v1, v[2:3]",
    "v_mad_i64_i32 v[8:9], null, v0, 36, s[14:15]",
    "v_mul_u32_u24_sdwa v8, v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD",
    "v_add_nc_u32_sdwa v8, v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_1",
    "v_sub_nc_u32_sdwa v8, sext(v0), v1 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:WORD_1 src1_sel:BYTE_3",
    "v_add_nc_u32_sdwa v8, v0, sext(v1) clamp dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:BYTE_0",
    "v_sub_nc_u32_sdwa v8, v0, v1 clamp dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:WORD_0 src1_sel:DWORD",
    "v_and_b32_sdwa v8, v0, v1 dst_sel:BYTE_0 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_3 src1_sel:BYTE_2",
    "v_or_b32_sdwa v8, s8, v1 dst_sel:BYTE_3 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD",
    "v_xor_b32_sdwa v8, v0, s9 dst_sel:WORD_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_1 src1_sel:WORD_0",
    "v_lshrrev_b32_sdwa v8, v0, v1 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:WORD_1",
    "v_cmp_ne_u16_sdwa s16, v0, v1 src0_sel:BYTE_0 src1_sel:DWORD",
    "v_cmp_eq_u16_sdwa vcc_lo, v0, s8 src0_sel:WORD_1 src1_sel:BYTE_2",
    "v_cmp_ne_u32_sdwa s17, v0, v1 src0_sel:WORD_0 src1_sel:WORD_0",
];

/// The ops in (`corpus`) or out of [`CORPUS`], in `ops()` order.
fn pick(corpus: bool, sdwa: Option<bool>) -> Vec<Op> {
    ops()
        .into_iter()
        .filter(|o| CORPUS.contains(&o.asm) == corpus)
        .filter(|o| sdwa.is_none_or(|s| o.asm.contains("_sdwa") == s))
        .collect()
}

// coverage: valu16_corpus: V_ADD_NC_U16 V_SUB_NC_U16 V_MUL_LO_U16 V_LSHRREV_B16 V_LSHLREV_B16 V_MIN_U16 V_ADD_NC_U32 V_SUB_NC_U32 V_MAD_I64_I32 V_MUL_U32_U24 V_AND_B32 V_OR_B32 V_XOR_B32 V_LSHRREV_B32 V_CMP_NE_U16 V_CMP_EQ_U16 V_CMP_NE_U32
#[test]
fn valu16_corpus() {
    check(&pick(true, None));
}

// coverage: valu16_more: V_ADD_NC_I16 V_SUB_NC_I16 V_ASHRREV_I16 V_MAX_U16 V_MAX_I16 V_MIN_I16 V_MAD_U16 V_MAD_I16 V_MIN3_I16 V_MIN3_U16 V_MAX3_I16 V_MAX3_U16 V_MED3_I16 V_MED3_U16 V_MAD_U32_U16 V_MAD_I32_I16 V_SUBREV_NC_U32 V_ADD_NC_I32 V_SUB_NC_I32 V_XNOR_B32 V_SWAP_B32 V_NOP V_PIPEFLUSH V_CLREXCP V_MUL_LO_I32
/// Every op in every `cargo test` at [`opcheck::CI_N`] operand sets (issue 28); `valu16_more_full` runs
/// the default size.
#[test]
fn valu16_more() {
    opcheck::check_n(&pick(false, Some(false)), opcheck::ci_n());
}

#[test]
#[ignore = "CI cost (D022); run: cargo test --test ops_valu16 -- --ignored"]
fn valu16_more_full() {
    check(&pick(false, Some(false)));
}

// coverage: sdwa_more: V_LSHLREV_B32 V_ASHRREV_I32 V_MIN_I32 V_MAX_U32 V_MUL_I32_I24 V_NOT_B32 V_BFREV_B32 V_CNDMASK_B32 V_CMP_GT_I32 V_CMP_LT_I16 V_CMPX_LE_U32
/// Every op in every `cargo test` at [`opcheck::CI_N`] operand sets (issue 28); `sdwa_more_full` runs
/// the default size.
#[test]
fn sdwa_more() {
    opcheck::check_n(&pick(false, Some(true)), opcheck::ci_n());
}

#[test]
#[ignore = "CI cost (D022); run: cargo test --test ops_valu16 -- --ignored"]
fn sdwa_more_full() {
    check(&pick(false, Some(true)));
}
