//! Global and flat loads and stores of every width, extension and d16 half (issue 28: rows that every
//! opcheck frame ran but no test compared on their own) through the opcheck harness (D022), several
//! instructions packed into each frame segment (D075).
//!
//! Each segment (tests/mem_forms/segments.rs, assembled by llvm-mc-19 in tests/mem_forms/gen.py; the
//! harness checks that the words print as the text) loads from and stores to the lane's own 64 input bytes:
//! the frame addresses them as `s[6:7] + v40`, the flat forms as `v[16:17]` computed from the same. Stores
//! are read back with dwordx4 loads into v8..v15. The reference is [`model`]: an interpreter of exactly
//! these instruction texts over a per-lane 64-byte image of the inputs, written from the RDNA 2 ISA guide's
//! definitions of the loads (zero/sign extension, the d16 forms writing one half and keeping the other) and
//! stores (the low bytes of the source), sharing nothing with crates/ir or crates/eval. EXEC is partial
//! (`s21 | 0x100`) in every other segment: an inactive lane neither loads nor stores. The cache
//! invalidations (buffer_gl0_inv, buffer_gl1_inv) between the stores and the loads change nothing visible.

mod opcheck;
use opcheck::{check, Frame, Op, WAVE};

macro_rules! seg {
    ($exec:ident, $text:literal, [$($w:expr),* $(,)?]) => {
        crate::Op {
            asm: $text,
            words: &[$($w),*],
            target: rdna2spv_isa::Target::Gfx1030,
            exec: crate::opcheck::Exec::$exec,
            oracle: |f| crate::model(f, $text),
        }
    };
}

#[path = "mem_forms/segments.rs"]
mod segments;

/// The first register of `v8`, `v[12:14]`.
fn vreg(op: &str) -> usize {
    let r = op.trim_start_matches("v[").trim_start_matches('v');
    r.split([':', ']']).next().unwrap().parse().unwrap()
}

/// Bytes a load or store moves, from its type suffix.
fn size(ty: &str) -> usize {
    match ty {
        "ubyte" | "sbyte" | "byte" | "ubyte_d16" | "ubyte_d16_hi" | "sbyte_d16" => 1,
        "ushort" | "sshort" | "short" | "short_d16_hi" => 2,
        "dword" => 4,
        "dwordx2" => 8,
        "dwordx3" => 12,
        "dwordx4" => 16,
        _ => panic!("unknown type {ty}"),
    }
}

/// The ISA guide's loads and stores over one lane's 64-byte image; the two address-setup VALU lines and
/// the waits leave the image and the recorded registers alone (s16 is zeroed by the segment's last line).
fn model(f: &mut Frame, text: &str) {
    for l in 0..WAVE {
        if !f.active(l) {
            continue;
        }
        let mut mem: Vec<u8> = f.v[l].iter().flat_map(|x| x.to_le_bytes()).collect();
        for line in text.lines() {
            let (mn, rest) = line.split_once(' ').unwrap_or((line, ""));
            let ops: Vec<&str> = rest.split([',', ' ']).filter(|s| !s.is_empty()).collect();
            let offset: usize = ops
                .iter()
                .find_map(|o| o.strip_prefix("offset:"))
                .map_or(0, |x| x.parse().unwrap());
            let Some((_, op)) = mn.split_once('_') else {
                continue;
            };
            if let Some(ty) = op.strip_prefix("load_") {
                let n = size(ty);
                let b = &mem[offset..offset + n];
                let d = vreg(ops[0]);
                let x = |i: usize| b[i] as u32;
                let v = &mut f.v[l];
                match ty {
                    "ubyte" => v[d] = x(0),
                    "sbyte" => v[d] = x(0) as u8 as i8 as i32 as u32,
                    "ushort" => v[d] = x(0) | x(1) << 8,
                    "sshort" => v[d] = (x(0) | x(1) << 8) as u16 as i16 as i32 as u32,
                    "ubyte_d16" => v[d] = v[d] & 0xffff_0000 | x(0),
                    "sbyte_d16" => {
                        v[d] = v[d] & 0xffff_0000 | x(0) as u8 as i8 as i16 as u16 as u32
                    }
                    "ubyte_d16_hi" => v[d] = v[d] & 0xffff | x(0) << 16,
                    "short_d16_hi" => v[d] = v[d] & 0xffff | (x(0) | x(1) << 8) << 16,
                    _ => {
                        for i in 0..n / 4 {
                            v[d + i] = u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
                        }
                    }
                }
            } else if let Some(ty) = op.strip_prefix("store_") {
                let n = size(ty);
                let s = vreg(ops[1]);
                let bytes: Vec<u8> = f.v[l][s..s + n.div_ceil(4)]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect();
                mem[offset..offset + n].copy_from_slice(&bytes[..n]);
            }
        }
    }
    if text.contains("s16") {
        f.set_s(16, 0);
    }
}

// coverage: mem_forms: GLOBAL_LOAD_UBYTE GLOBAL_LOAD_SBYTE GLOBAL_LOAD_USHORT GLOBAL_LOAD_SSHORT GLOBAL_LOAD_DWORD GLOBAL_LOAD_DWORDX3 GLOBAL_LOAD_DWORDX4 GLOBAL_STORE_BYTE GLOBAL_STORE_SHORT GLOBAL_STORE_DWORDX3 GLOBAL_STORE_DWORDX4 FLAT_LOAD_UBYTE FLAT_LOAD_SBYTE FLAT_LOAD_USHORT FLAT_LOAD_SSHORT FLAT_LOAD_DWORD FLAT_LOAD_DWORDX2 FLAT_LOAD_DWORDX3 FLAT_LOAD_DWORDX4 FLAT_LOAD_UBYTE_D16 FLAT_LOAD_UBYTE_D16_HI FLAT_LOAD_SBYTE_D16 FLAT_LOAD_SHORT_D16_HI FLAT_STORE_BYTE FLAT_STORE_SHORT FLAT_STORE_DWORD FLAT_STORE_DWORDX2 FLAT_STORE_DWORDX3 FLAT_STORE_DWORDX4 BUFFER_GL0_INV BUFFER_GL1_INV S_ENDPGM
/// Every global/flat load and store form above, host vs lavapipe vs the model.
#[test]
fn mem_forms() {
    check(&segments::segments());
}

/// Scalar loads of lane 0's (and lane 1's) input dwords: the frame's `s[6:7]` addresses the wave's
/// inputs, lane `l`'s 16 dwords at byte `64 l`.
fn smem_ops() -> Vec<Op> {
    fn lane_dwords(f: &mut Frame, lane: usize, to: usize, from: usize, n: usize) {
        for i in 0..n {
            let x = f.v[lane][from + i];
            f.set_s(to + i, x);
        }
    }
    vec![
        opcheck::op(
            "s_load_dwordx8 s[12:19], s[6:7], 0x20\ns_load_dwordx2 s[16:17], s[6:7], 0x8\ns_waitcnt lgkmcnt(0)",
            &[0xf40c0303, 0xfa000020, 0xf4040403, 0xfa000008, 0xbf8cc07f],
            |f| {
                lane_dwords(f, 0, 12, 8, 8);
                lane_dwords(f, 0, 16, 2, 2);
            },
        ),
        opcheck::op(
            "s_load_dwordx16 s[8:23], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)",
            &[0xf4100203, 0xfa000040, 0xbf8cc07f],
            |f| lane_dwords(f, 1, 8, 0, 16),
        ),
        // Cache maintenance and address-translation probes change no register the frame records.
        opcheck::op(
            "s_dcache_inv\ns_gl1_inv\ns_atc_probe 0, s[6:7], null\ns_atc_probe_buffer 0, s[8:11], null\ns_load_dwordx2 s[16:17], s[6:7], 0x38\ns_waitcnt lgkmcnt(0)",
            &[
                0xf4800000, 0x00000000, 0xf47c0000, 0x00000000, 0xf4980003, 0xfa000000,
                0xf49c0004, 0xfa000000, 0xf4040403, 0xfa000038, 0xbf8cc07f,
            ],
            |f| lane_dwords(f, 0, 16, 14, 2),
        ),
        Op {
            target: rdna2spv_isa::Target::Gfx1010,
            ..opcheck::op(
                "s_dcache_wb\ns_dcache_discard s[6:7], null\ns_dcache_discard_x2 s[6:7], null\ns_load_dwordx2 s[18:19], s[6:7], 0x10\ns_waitcnt lgkmcnt(0)",
                &[
                    0xf4840000, 0x00000000, 0xf4a00003, 0xfa000000, 0xf4a40003, 0xfa000000,
                    0xf4040483, 0xfa000010, 0xbf8cc07f,
                ],
                |f| lane_dwords(f, 0, 18, 4, 2),
            )
        },
    ]
}

// coverage: smem_forms: S_LOAD_DWORDX2 S_LOAD_DWORDX8 S_LOAD_DWORDX16 S_DCACHE_INV S_GL1_INV S_ATC_PROBE S_ATC_PROBE_BUFFER S_DCACHE_WB S_DCACHE_DISCARD S_DCACHE_DISCARD_X2
/// Scalar loads of three widths and the cache/probe instructions (which must leave the recorded state
/// alone), host vs lavapipe vs the model.
#[test]
fn smem_forms() {
    check(&smem_ops());
}
