//! DPP16 / DPP8 operand transforms (crates/ir/src/lift/dpp.rs) through the opcheck harness: host vs lavapipe
//! bit-identical, host vs a Rust reference of the ISA guide's DPP rules written per lane below. EXEC is
//! partial in the `op_exec` cases (fetch-inactive and bound_ctrl rules exercised).

mod opcheck;
use opcheck::{check, op, op_exec, Frame, WAVE};

#[derive(Clone, Copy)]
enum Ctl {
    Quad([usize; 4]),
    Shl(usize),
    Shr(usize),
    Ror(usize),
    Mirror,
    HalfMirror,
    Share(usize),
    Xmask(usize),
    Dpp8([usize; 8]),
}

/// The source lane of lane l, or None when out of the row.
fn source(c: Ctl, l: usize) -> Option<usize> {
    let (row, r) = (l / 16 * 16, l % 16);
    match c {
        Ctl::Quad(q) => Some(l / 4 * 4 + q[l % 4]),
        Ctl::Shl(n) => (r + n < 16).then(|| row + r + n),
        Ctl::Shr(n) => (r >= n).then(|| row + r - n),
        Ctl::Ror(n) => Some(row + (r + 16 - n) % 16),
        Ctl::Mirror => Some(row + 15 - r),
        Ctl::HalfMirror => Some(l / 8 * 8 + 7 - l % 8),
        Ctl::Share(n) => Some(row + n),
        Ctl::Xmask(n) => Some(row + (r ^ n)),
        Ctl::Dpp8(s) => Some(l / 8 * 8 + s[l % 8]),
    }
}

/// Applies `D = op(src0 via DPP from v1, v2)` into v8 with the masks and rules of the DPP word.
fn dpp(
    f: &mut Frame,
    c: Ctl,
    row_mask: u32,
    bank_mask: u32,
    bound_ctrl: bool,
    fi: bool,
    op: fn(u32, u32, u32, bool) -> u32,
) {
    let before = f.clone();
    let dpp8 = matches!(c, Ctl::Dpp8(_));
    for l in 0..WAVE {
        if !before.active(l) {
            continue;
        }
        let src = source(c, l).filter(|&j| fi || before.active(j));
        let written = row_mask >> (l / 16) & 1 != 0
            && bank_mask >> (l % 16 / 4) & 1 != 0
            && (src.is_some() || bound_ctrl || dpp8);
        if written {
            let s0 = src.map_or(0, |j| before.v[j][1]);
            let vcc = before.vcc >> l & 1 != 0;
            f.v[l][8] = op(s0, before.v[l][2], before.v[l][8], vcc);
        }
    }
}

fn mov(a: u32, _: u32, _: u32, _: bool) -> u32 {
    a
}
fn add(a: u32, b: u32, _: u32, _: bool) -> u32 {
    a.wrapping_add(b)
}

// coverage: dpp16_dpp8: V_MOV_B32 V_ADD_NC_U32 V_MAX_U32 V_XOR_B32 V_OR_B32 V_CNDMASK_B32
#[test]
fn dpp16_dpp8() {
    check(&[
        op_exec(
            "v_mov_b32_dpp v8, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
            &[0x7e10_02fa, 0xff00_b101],
            |f| dpp(f, Ctl::Quad([1, 0, 3, 2]), 0xf, 0xf, false, false, mov),
        ),
        op_exec(
            "v_add_nc_u32_dpp v8, v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1",
            &[0x4a10_04fa, 0xff09_1101],
            |f| dpp(f, Ctl::Shr(1), 0xf, 0xf, true, false, add),
        ),
        op_exec(
            "v_add_nc_u32_dpp v8, v1, v2 row_shr:3 row_mask:0xf bank_mask:0xf",
            &[0x4a10_04fa, 0xff01_1301],
            |f| dpp(f, Ctl::Shr(3), 0xf, 0xf, false, false, add),
        ),
        op_exec(
            "v_mov_b32_dpp v8, v1 row_shl:2 row_mask:0xa bank_mask:0x5 fi:1",
            &[0x7e10_02fa, 0xa505_0201],
            |f| dpp(f, Ctl::Shl(2), 0xa, 0x5, false, true, mov),
        ),
        op(
            "v_max_u32_dpp v8, v1, v2 row_ror:7 row_mask:0xf bank_mask:0xf",
            &[0x2810_04fa, 0xff01_2701],
            |f| {
                dpp(f, Ctl::Ror(7), 0xf, 0xf, false, false, |a, b, _, _| {
                    a.max(b)
                })
            },
        ),
        op_exec(
            "v_mov_b32_dpp v8, v1 row_mirror row_mask:0xf bank_mask:0xf",
            &[0x7e10_02fa, 0xff01_4001],
            |f| dpp(f, Ctl::Mirror, 0xf, 0xf, false, false, mov),
        ),
        op(
            "v_xor_b32_dpp v8, v1, v2 row_half_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1",
            &[0x3a10_04fa, 0xff09_4101],
            |f| {
                dpp(f, Ctl::HalfMirror, 0xf, 0xf, true, false, |a, b, _, _| {
                    a ^ b
                })
            },
        ),
        op_exec(
            "v_mov_b32_dpp v8, v1 row_share:5 row_mask:0xf bank_mask:0xf",
            &[0x7e10_02fa, 0xff01_5501],
            |f| dpp(f, Ctl::Share(5), 0xf, 0xf, false, false, mov),
        ),
        op_exec(
            "v_or_b32_dpp v8, v1, v2 row_xmask:9 row_mask:0xf bank_mask:0xf fi:1",
            &[0x3810_04fa, 0xff05_6901],
            |f| dpp(f, Ctl::Xmask(9), 0xf, 0xf, false, true, |a, b, _, _| a | b),
        ),
        op_exec(
            "v_mov_b32_dpp v8, v1 dpp8:[7,6,5,4,3,2,1,0]",
            &[0x7e10_02e9, 0x0539_7701],
            |f| {
                dpp(
                    f,
                    Ctl::Dpp8([7, 6, 5, 4, 3, 2, 1, 0]),
                    0xf,
                    0xf,
                    false,
                    false,
                    mov,
                )
            },
        ),
        op_exec(
            "v_add_nc_u32_dpp v8, v1, v2 dpp8:[1,1,2,3,0,5,7,6] fi:1",
            &[0x4a10_04ea, 0xde86_8901],
            |f| {
                dpp(
                    f,
                    Ctl::Dpp8([1, 1, 2, 3, 0, 5, 7, 6]),
                    0xf,
                    0xf,
                    false,
                    true,
                    add,
                )
            },
        ),
        // D = VCC[lane] ? S1 : S0.
        op_exec(
            "v_cndmask_b32_dpp v8, v1, v2, vcc_lo row_shr:1 row_mask:0xf bank_mask:0xf",
            &[0x0210_04fa, 0xff01_1101],
            |f| {
                dpp(f, Ctl::Shr(1), 0xf, 0xf, false, false, |a, b, _, c| {
                    if c {
                        b
                    } else {
                        a
                    }
                })
            },
        ),
    ]);
}
