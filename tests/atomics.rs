//! Atomics in every memory space (decision D060), host vs lavapipe bit for bit and host vs an independent
//! Rust reference written from the RDNA 2 ISA guide's definitions (integer ops from their text; f32 add
//! through Berkeley SoftFloat; float min/max/compare from IEEE 754 minNum/maxNum/equality with the
//! default-NaN rule of D005).
//!
//! Each instruction runs in the opcheck frame (tests/opcheck) with a short segment around it, words from
//! `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding` and the text beside them checked against our
//! printer: the memory word is initialised from the lane's v0 (v[0:1]) — DS by ds_write, GLOBAL/FLAT/MUBUF
//! use the lane's own input dwords in place — the atomic runs with DATA from v2.. (and v4.. for DS's second
//! operand), the returned pre-op value lands in v8 (v[8:9]) and memory is read back into v10 (v[10:11]; v12
//! for MUBUF, whose vdata doubles as the return register). Every lane has its own address (lane * 64 bytes),
//! so the results do not depend on the order of the lanes or waves: order independent by construction.
//! The `@scratch` segments run the MUBUF atomics through the private segment buffer (decision D092): each
//! lane's private dword (qword) at offset v6 & 0x38 is written with buffer_store, updated by the atomic and
//! read back with buffer_load through the same swizzled scratch view.
//! Operands: 4096 sets per instruction (RDNA2SPV_OPCHECK_N overrides): integer boundary values and random
//! bits, for the float forms float boundary values (±0, ±inf, quiet and signalling NaNs, denormals, ±1,
//! extremes) and random bits; the compare forms get an equal comparison value in a quarter of the sets,
//! inc/dec a limit near the memory value in a quarter.
#![allow(clippy::unusual_byte_groupings)]

mod opcheck;

use opcheck::{frame_of, outputs_of, segment_words, Exec, Frame, Op, Rng, WAVE};
use rdna2spv_eval::{Launch, Memory, SgprInit};
use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_isa::{decode, PrintOptions, Target};
use rdna2spv_spirv::lower::{LowerOptions, Mapping};
use rdna2spv_vulkan::{probe, run_with_buffers};
use softfloat_wrapper::{Float, RoundingMode::TiesToEven as RNE, F32};

// coverage: atomics_corpus_blockers: GLOBAL_ATOMIC_CMPSWAP_X2 DS_CMPST_RTN_B64 DS_ADD_F32 DS_ADD_RTN_F32 GLOBAL_ATOMIC_UMIN_X2 GLOBAL_ATOMIC_UMAX_X2 DS_MIN_U64 DS_ADD_U64 GLOBAL_ATOMIC_CMPSWAP DS_CMPST_RTN_B32
// coverage: atomics_lds_32: DS_ADD_U32 DS_ADD_RTN_U32 DS_SUB_U32 DS_SUB_RTN_U32 DS_RSUB_U32 DS_RSUB_RTN_U32 DS_INC_U32 DS_INC_RTN_U32 DS_DEC_U32 DS_DEC_RTN_U32 DS_MIN_I32 DS_MIN_RTN_I32 DS_MAX_I32 DS_MAX_RTN_I32 DS_MIN_U32 DS_MIN_RTN_U32 DS_MAX_U32 DS_MAX_RTN_U32 DS_AND_B32 DS_AND_RTN_B32 DS_OR_B32 DS_OR_RTN_B32 DS_XOR_B32 DS_XOR_RTN_B32 DS_MSKOR_B32 DS_MSKOR_RTN_B32 DS_CMPST_B32 DS_CMPST_RTN_B32 DS_CMPST_F32 DS_CMPST_RTN_F32 DS_MIN_F32 DS_MIN_RTN_F32 DS_MAX_F32 DS_MAX_RTN_F32 DS_ADD_F32 DS_ADD_RTN_F32 DS_WRXCHG_RTN_B32 DS_WRAP_RTN_B32
// coverage: atomics_lds_64: DS_ADD_U64 DS_ADD_RTN_U64 DS_SUB_U64 DS_SUB_RTN_U64 DS_RSUB_U64 DS_RSUB_RTN_U64 DS_INC_U64 DS_INC_RTN_U64 DS_DEC_U64 DS_DEC_RTN_U64 DS_MIN_I64 DS_MIN_RTN_I64 DS_MAX_I64 DS_MAX_RTN_I64 DS_MIN_U64 DS_MIN_RTN_U64 DS_MAX_U64 DS_MAX_RTN_U64 DS_AND_B64 DS_AND_RTN_B64 DS_OR_B64 DS_OR_RTN_B64 DS_XOR_B64 DS_XOR_RTN_B64 DS_MSKOR_B64 DS_MSKOR_RTN_B64 DS_CMPST_B64 DS_CMPST_RTN_B64 DS_CMPST_F64 DS_CMPST_RTN_F64 DS_MIN_F64 DS_MIN_RTN_F64 DS_MAX_F64 DS_MAX_RTN_F64 DS_WRXCHG_RTN_B64
// coverage: atomics_global: GLOBAL_ATOMIC_SWAP GLOBAL_ATOMIC_CMPSWAP GLOBAL_ATOMIC_ADD GLOBAL_ATOMIC_SUB GLOBAL_ATOMIC_SMIN GLOBAL_ATOMIC_UMIN GLOBAL_ATOMIC_SMAX GLOBAL_ATOMIC_UMAX GLOBAL_ATOMIC_AND GLOBAL_ATOMIC_OR GLOBAL_ATOMIC_XOR GLOBAL_ATOMIC_INC GLOBAL_ATOMIC_DEC GLOBAL_ATOMIC_FCMPSWAP GLOBAL_ATOMIC_FMIN GLOBAL_ATOMIC_FMAX GLOBAL_ATOMIC_CSUB GLOBAL_ATOMIC_SWAP_X2 GLOBAL_ATOMIC_CMPSWAP_X2 GLOBAL_ATOMIC_ADD_X2 GLOBAL_ATOMIC_SUB_X2 GLOBAL_ATOMIC_SMIN_X2 GLOBAL_ATOMIC_UMIN_X2 GLOBAL_ATOMIC_SMAX_X2 GLOBAL_ATOMIC_UMAX_X2 GLOBAL_ATOMIC_AND_X2 GLOBAL_ATOMIC_OR_X2 GLOBAL_ATOMIC_XOR_X2 GLOBAL_ATOMIC_INC_X2 GLOBAL_ATOMIC_DEC_X2 GLOBAL_ATOMIC_FCMPSWAP_X2 GLOBAL_ATOMIC_FMIN_X2 GLOBAL_ATOMIC_FMAX_X2
// coverage: atomics_flat: FLAT_ATOMIC_SWAP FLAT_ATOMIC_CMPSWAP FLAT_ATOMIC_ADD FLAT_ATOMIC_SUB FLAT_ATOMIC_SMIN FLAT_ATOMIC_UMIN FLAT_ATOMIC_SMAX FLAT_ATOMIC_UMAX FLAT_ATOMIC_AND FLAT_ATOMIC_OR FLAT_ATOMIC_XOR FLAT_ATOMIC_INC FLAT_ATOMIC_DEC FLAT_ATOMIC_FCMPSWAP FLAT_ATOMIC_FMIN FLAT_ATOMIC_FMAX FLAT_ATOMIC_SWAP_X2 FLAT_ATOMIC_CMPSWAP_X2 FLAT_ATOMIC_ADD_X2 FLAT_ATOMIC_SUB_X2 FLAT_ATOMIC_SMIN_X2 FLAT_ATOMIC_UMIN_X2 FLAT_ATOMIC_SMAX_X2 FLAT_ATOMIC_UMAX_X2 FLAT_ATOMIC_AND_X2 FLAT_ATOMIC_OR_X2 FLAT_ATOMIC_XOR_X2 FLAT_ATOMIC_INC_X2 FLAT_ATOMIC_DEC_X2 FLAT_ATOMIC_FCMPSWAP_X2 FLAT_ATOMIC_FMIN_X2 FLAT_ATOMIC_FMAX_X2
// coverage: atomics_buffer: BUFFER_ATOMIC_SWAP BUFFER_ATOMIC_CMPSWAP BUFFER_ATOMIC_ADD BUFFER_ATOMIC_SUB BUFFER_ATOMIC_SMIN BUFFER_ATOMIC_UMIN BUFFER_ATOMIC_SMAX BUFFER_ATOMIC_UMAX BUFFER_ATOMIC_AND BUFFER_ATOMIC_OR BUFFER_ATOMIC_XOR BUFFER_ATOMIC_INC BUFFER_ATOMIC_DEC BUFFER_ATOMIC_FCMPSWAP BUFFER_ATOMIC_FMIN BUFFER_ATOMIC_FMAX BUFFER_ATOMIC_CSUB BUFFER_ATOMIC_SWAP_X2 BUFFER_ATOMIC_CMPSWAP_X2 BUFFER_ATOMIC_ADD_X2 BUFFER_ATOMIC_SUB_X2 BUFFER_ATOMIC_SMIN_X2 BUFFER_ATOMIC_UMIN_X2 BUFFER_ATOMIC_SMAX_X2 BUFFER_ATOMIC_UMAX_X2 BUFFER_ATOMIC_AND_X2 BUFFER_ATOMIC_OR_X2 BUFFER_ATOMIC_XOR_X2 BUFFER_ATOMIC_INC_X2 BUFFER_ATOMIC_DEC_X2 BUFFER_ATOMIC_FCMPSWAP_X2 BUFFER_ATOMIC_FMIN_X2 BUFFER_ATOMIC_FMAX_X2
// coverage: atomics_buffer_scratch: BUFFER_ATOMIC_SWAP BUFFER_ATOMIC_CMPSWAP BUFFER_ATOMIC_ADD BUFFER_ATOMIC_SUB BUFFER_ATOMIC_SMIN BUFFER_ATOMIC_UMIN BUFFER_ATOMIC_SMAX BUFFER_ATOMIC_UMAX BUFFER_ATOMIC_AND BUFFER_ATOMIC_OR BUFFER_ATOMIC_XOR BUFFER_ATOMIC_INC BUFFER_ATOMIC_DEC BUFFER_ATOMIC_FCMPSWAP BUFFER_ATOMIC_FMIN BUFFER_ATOMIC_FMAX BUFFER_ATOMIC_CSUB BUFFER_ATOMIC_SWAP_X2 BUFFER_ATOMIC_CMPSWAP_X2 BUFFER_ATOMIC_ADD_X2 BUFFER_ATOMIC_SUB_X2 BUFFER_ATOMIC_SMIN_X2 BUFFER_ATOMIC_UMIN_X2 BUFFER_ATOMIC_SMAX_X2 BUFFER_ATOMIC_UMAX_X2 BUFFER_ATOMIC_AND_X2 BUFFER_ATOMIC_OR_X2 BUFFER_ATOMIC_XOR_X2 BUFFER_ATOMIC_INC_X2 BUFFER_ATOMIC_DEC_X2 BUFFER_ATOMIC_FCMPSWAP_X2 BUFFER_ATOMIC_FMIN_X2 BUFFER_ATOMIC_FMAX_X2
// The tests below run in every `cargo test` with the same check (host vs lavapipe vs the reference model);
// their markers name their ignored siblings' opcodes, and docs/coverage.md credits only the rows their
// executed-encoding logs show (D159).
// coverage: atomics_lds_src2: DS_ADD_SRC2_U32 DS_SUB_SRC2_U32 DS_RSUB_SRC2_U32 DS_INC_SRC2_U32 DS_DEC_SRC2_U32 DS_MIN_SRC2_I32 DS_MAX_SRC2_I32 DS_MIN_SRC2_U32 DS_MAX_SRC2_U32 DS_AND_SRC2_B32 DS_OR_SRC2_B32 DS_XOR_SRC2_B32 DS_WRITE_SRC2_B32 DS_MIN_SRC2_F32 DS_MAX_SRC2_F32 DS_ADD_SRC2_F32 DS_ADD_SRC2_U64 DS_SUB_SRC2_U64 DS_RSUB_SRC2_U64 DS_INC_SRC2_U64 DS_DEC_SRC2_U64 DS_MIN_SRC2_I64 DS_MAX_SRC2_I64 DS_MIN_SRC2_U64 DS_MAX_SRC2_U64 DS_AND_SRC2_B64 DS_OR_SRC2_B64 DS_XOR_SRC2_B64 DS_WRITE_SRC2_B64 DS_MIN_SRC2_F64 DS_MAX_SRC2_F64
// coverage: atomics_lds_64_lane_mapping: DS_ADD_U64 DS_ADD_RTN_U64 DS_SUB_U64 DS_SUB_RTN_U64 DS_RSUB_U64 DS_RSUB_RTN_U64 DS_INC_U64 DS_INC_RTN_U64 DS_DEC_U64 DS_DEC_RTN_U64 DS_MIN_I64 DS_MIN_RTN_I64 DS_MAX_I64 DS_MAX_RTN_I64 DS_MIN_U64 DS_MIN_RTN_U64 DS_MAX_U64 DS_MAX_RTN_U64 DS_AND_B64 DS_AND_RTN_B64 DS_OR_B64 DS_OR_RTN_B64 DS_XOR_B64 DS_XOR_RTN_B64 DS_MSKOR_B64 DS_MSKOR_RTN_B64 DS_CMPST_B64 DS_CMPST_RTN_B64 DS_CMPST_F64 DS_CMPST_RTN_F64 DS_MIN_F64 DS_MIN_RTN_F64 DS_MAX_F64 DS_MAX_RTN_F64 DS_WRXCHG_RTN_B64
// coverage: atomics_buffer_scratch_sample: BUFFER_ATOMIC_SWAP BUFFER_ATOMIC_CMPSWAP BUFFER_ATOMIC_ADD BUFFER_ATOMIC_SUB BUFFER_ATOMIC_SMIN BUFFER_ATOMIC_UMIN BUFFER_ATOMIC_SMAX BUFFER_ATOMIC_UMAX BUFFER_ATOMIC_AND BUFFER_ATOMIC_OR BUFFER_ATOMIC_XOR BUFFER_ATOMIC_INC BUFFER_ATOMIC_DEC BUFFER_ATOMIC_FCMPSWAP BUFFER_ATOMIC_FMIN BUFFER_ATOMIC_FMAX BUFFER_ATOMIC_CSUB BUFFER_ATOMIC_SWAP_X2 BUFFER_ATOMIC_CMPSWAP_X2 BUFFER_ATOMIC_ADD_X2 BUFFER_ATOMIC_SUB_X2 BUFFER_ATOMIC_SMIN_X2 BUFFER_ATOMIC_UMIN_X2 BUFFER_ATOMIC_SMAX_X2 BUFFER_ATOMIC_UMAX_X2 BUFFER_ATOMIC_AND_X2 BUFFER_ATOMIC_OR_X2 BUFFER_ATOMIC_XOR_X2 BUFFER_ATOMIC_INC_X2 BUFFER_ATOMIC_DEC_X2 BUFFER_ATOMIC_FCMPSWAP_X2 BUFFER_ATOMIC_FMIN_X2 BUFFER_ATOMIC_FMAX_X2

/// One instruction under test in its segment.
struct Seg {
    name: &'static str,
    text: &'static str,
    words: &'static [u32],
}

const fn seg(name: &'static str, text: &'static str, words: &'static [u32]) -> Seg {
    Seg { name, text, words }
}

/// The instruction's operation, decoded from its name (independently of the lifter's tables).
#[derive(Clone, Copy, Debug)]
struct Kind {
    space: &'static str,
    base: &'static str,
    wide: bool,
    float: bool,
    signed: bool,
    two: bool,
    rtn: bool,
    scratch: bool,
}

fn kind(full: &'static str) -> Kind {
    // `pairs_*`: the two-address LDS forms, with their own reference ([`oracle_pairs`]).
    if full.starts_with("pairs_") {
        return Kind {
            space: "ds",
            base: "pairs",
            wide: full.ends_with("b64"),
            float: false,
            signed: false,
            two: false,
            rtn: true,
            scratch: false,
        };
    }
    // `<name>@scratch`: the MUBUF form through the private segment buffer (D092).
    let scratch = full.ends_with("@scratch");
    let name = full.split('@').next().unwrap();
    let space = name.split('_').next().unwrap();
    let (wide, float, signed);
    let base: &'static str;
    let rtn;
    if space == "ds" {
        let rest = &name[3..];
        let (head, ty) = rest.rsplit_once('_').unwrap();
        rtn = head.ends_with("_rtn");
        // `ds_<op>_src2_<ty>` (gfx1010): MEM[A] = op(MEM[A], MEM[B]), the segment puts DATA at B.
        base = head.trim_end_matches("_rtn").trim_end_matches("_src2");
        wide = ty.ends_with("64");
        float = ty.starts_with('f');
        signed = ty.starts_with('i');
    } else {
        let rest = name.split_once("_atomic_").unwrap().1;
        wide = rest.ends_with("_x2");
        base = rest.trim_end_matches("_x2");
        float = base.starts_with('f');
        signed = base.starts_with('s');
        rtn = true;
    }
    let two = matches!(base, "cmpst" | "mskor" | "wrap" | "cmpswap" | "fcmpswap");
    Kind {
        space,
        base,
        wide,
        float,
        signed,
        two,
        rtn,
        scratch,
    }
}

// ---- the reference (RDNA 2 ISA guide definitions) --------------------------------------------------

fn is_nan(k: Kind, v: u64) -> bool {
    if k.wide {
        f64::from_bits(v).is_nan()
    } else {
        f32::from_bits(v as u32).is_nan()
    }
}

/// The float value as f64 (exact for f32) for ordering and equality.
fn fval(k: Kind, v: u64) -> f64 {
    if k.wide {
        f64::from_bits(v)
    } else {
        f32::from_bits(v as u32) as f64
    }
}

fn qnan(k: Kind) -> u64 {
    if k.wide {
        0x7ff8_0000_0000_0000
    } else {
        0x7fc0_0000
    }
}

/// IEEE 754-2008 minNum / maxNum, -0 ordered below +0, both-NaN → the default NaN.
fn min_max(k: Kind, a: u64, b: u64, max: bool) -> u64 {
    match (is_nan(k, a), is_nan(k, b)) {
        (true, true) => return qnan(k),
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    let (x, y) = (fval(k, a), fval(k, b));
    let neg_zero = |v: u64, f: f64| f == 0.0 && (v >> if k.wide { 63 } else { 31 }) & 1 == 1;
    let a_less = x < y || (x == y && neg_zero(a, x) && !neg_zero(b, y));
    let b_less = y < x || (x == y && neg_zero(b, y) && !neg_zero(a, x));
    if max {
        if b_less {
            a
        } else if a_less {
            b
        } else {
            a
        }
    } else if a_less {
        a
    } else if b_less {
        b
    } else {
        a
    }
}

/// Memory after the instruction: `m` before, `x` DATA (DS DATA0), `y` the second operand (DS DATA1,
/// the comparison value of GLOBAL/FLAT/MUBUF cmpswap).
fn reference(k: Kind, m: u64, x: u64, y: u64) -> u64 {
    let mask = if k.wide { u64::MAX } else { 0xffff_ffff };
    let sx = |v: u64| -> i64 {
        if k.wide {
            v as i64
        } else {
            v as u32 as i32 as i64
        }
    };
    let r = match k.base {
        "add" if k.float => {
            let s = F32::from_bits(m as u32)
                .add(F32::from_bits(x as u32), RNE)
                .to_bits();
            if f32::from_bits(s).is_nan() {
                0x7fc0_0000
            } else {
                s as u64
            }
        }
        "add" => m.wrapping_add(x),
        "sub" => m.wrapping_sub(x),
        "rsub" => x.wrapping_sub(m),
        "inc" => {
            if m >= x {
                0
            } else {
                m + 1
            }
        }
        "dec" => {
            if m == 0 || m > x {
                x
            } else {
                m - 1
            }
        }
        "csub" => m.saturating_sub(x),
        "min" | "smin" | "umin" | "fmin" if k.float => min_max(k, m, x, false),
        "max" | "smax" | "umax" | "fmax" if k.float => min_max(k, m, x, true),
        "min" | "smin" | "umin" if k.signed => sx(m).min(sx(x)) as u64,
        "max" | "smax" | "umax" if k.signed => sx(m).max(sx(x)) as u64,
        "min" | "umin" => m.min(x),
        "max" | "umax" => m.max(x),
        "and" => m & x,
        "or" => m | x,
        "xor" => m ^ x,
        "mskor" => (m & !x) | y,
        "wrxchg" | "swap" | "write" => x,
        "wrap" => {
            if m >= x {
                m - x
            } else {
                m.wrapping_add(y)
            }
        }
        // DS: compare with DATA0, store DATA1. GLOBAL/FLAT/MUBUF: store src (x) if memory equals cmp (y).
        "cmpst" | "cmpswap" | "fcmpswap" => {
            let (cmp, src) = if k.space == "ds" { (x, y) } else { (y, x) };
            let eq = if k.float {
                !is_nan(k, m) && fval(k, m) == fval(k, cmp)
            } else {
                m == cmp
            };
            if eq {
                src
            } else {
                m
            }
        }
        b => panic!("no reference for {b}"),
    };
    r & mask
}

// ---- operands ---------------------------------------------------------------------------------------

const F32S: &[u32] = &[
    0,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0001,
    0x7f80_0001,
    0xff80_1234,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x0080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x4000_0000,
    0x3400_0000,
    0x4b80_0000,
];
const F64S: &[u64] = &[
    0,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0001,
    0x7ff0_0000_0000_0001,
    0x0000_0000_0000_0001,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x4000_0000_0000_0000,
];

fn value(k: Kind, r: &mut Rng) -> u64 {
    if k.float {
        if k.wide {
            match r.next() % 4 {
                0 | 1 => F64S[(r.next() % F64S.len() as u64) as usize],
                _ => r.next(),
            }
        } else {
            match r.next() % 4 {
                0 | 1 => F32S[(r.next() % F32S.len() as u64) as usize] as u64,
                _ => r.u32() as u64,
            }
        }
    } else if k.wide {
        opcheck::operand(r) as u64 | (opcheck::operand(r) as u64) << 32
    } else {
        opcheck::operand(r) as u64
    }
}

/// v0.. = memory, v2.. = DATA, v4.. (DS) / v3 or v[4:5] (VMEM compare) = second operand.
fn inputs(k: Kind, n: usize, seed: u64) -> Vec<[u32; 16]> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| {
            let mut v = [0u32; 16];
            for d in v.iter_mut() {
                *d = r.u32();
            }
            let m = value(k, &mut r);
            let mut x = value(k, &mut r);
            let mut y = value(k, &mut r);
            let eq = r.next().is_multiple_of(4);
            if k.two && eq {
                // An equal comparison value (for floats sometimes the other zero).
                let c = if k.float && r.next().is_multiple_of(2) && fval(k, m) == 0.0 {
                    m ^ if k.wide { 1 << 63 } else { 1 << 31 }
                } else {
                    m
                };
                let cmp_is_x = k.space == "ds";
                if cmp_is_x && k.base != "mskor" && k.base != "wrap" {
                    x = c;
                } else if !cmp_is_x {
                    y = c;
                }
            }
            if matches!(k.base, "inc" | "dec" | "wrap" | "csub") && eq {
                x = match r.next() % 4 {
                    0 => m,
                    1 => m.wrapping_add(1),
                    2 => m.wrapping_sub(1),
                    _ => 0,
                };
            }
            let mask = if k.wide { u64::MAX } else { 0xffff_ffff };
            let (m, x, y) = (m & mask, x & mask, y & mask);
            v[0] = m as u32;
            v[1] = (m >> 32) as u32;
            v[2] = x as u32;
            if k.wide {
                v[3] = (x >> 32) as u32;
            }
            if k.space == "ds" || k.wide {
                v[4] = y as u32;
                v[5] = (y >> 32) as u32;
            } else {
                v[3] = y as u32;
            }
            v
        })
        .collect()
}

/// The two-address LDS segments (`pairs_*`, lane l's dwords at 4l or 8l, far apart from every other
/// lane's): ds_write2/read2(st64)_b32 move v0..v3 through LDS into v10..v13; the b64 exchanges return the
/// old values (both v[0:1]) into v[8:11] and the read-back of the new ones (v[2:3], v[4:5]) is v[12:15].
fn oracle_pairs(name: &str, f: &mut Frame) {
    for l in 0..WAVE {
        let v = f.v[l];
        if name == "pairs_rw2_b32" {
            f.v[l][10..14].copy_from_slice(&[v[0], v[2], v[1], v[3]]);
        } else {
            f.v[l][8..16].copy_from_slice(&[v[0], v[1], v[0], v[1], v[2], v[3], v[4], v[5]]);
        }
    }
}

/// The frame after the segment.
fn oracle(k: Kind, f: &mut Frame) {
    for l in 0..WAVE {
        let v = f.v[l];
        let get = |r: usize| {
            if k.wide {
                v[r] as u64 | (v[r + 1] as u64) << 32
            } else {
                v[r] as u64
            }
        };
        let m = get(0);
        let x = get(2);
        let y = if k.space == "ds" || k.wide {
            get(4)
        } else {
            v[3] as u64
        };
        let new = reference(k, m, x, y);
        let mut put = |r: usize, val: u64| {
            f.v[l][r] = val as u32;
            if k.wide {
                f.v[l][r + 1] = (val >> 32) as u32;
            }
        };
        match k.space {
            "buffer" => {
                // vdata = copies of v2.. ; the old value replaces its first register (pair).
                let n = (if k.wide { 2 } else { 1 }) * (if k.two { 2 } else { 1 });
                f.v[l][8..8 + n].copy_from_slice(&v[2..2 + n]);
                let mut put = |r: usize, val: u64| {
                    f.v[l][r] = val as u32;
                    if k.wide {
                        f.v[l][r + 1] = (val >> 32) as u32;
                    }
                };
                put(8, m);
                put(12, new);
            }
            _ => {
                if k.rtn {
                    put(8, m);
                }
                put(10, new);
            }
        }
    }
    match k.space {
        "flat" => f.set_s(16, 0),
        "buffer" if !k.scratch => {
            for r in 16..20 {
                f.set_s(r, 0);
            }
        }
        _ => {}
    }
}

// ---- the harness --------------------------------------------------------------------------------------

fn check_words(s: &Seg) {
    let mut at = 0;
    for line in s.text.lines() {
        let ins =
            decode(&s.words[at..], target(s.name)).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(ins.text(PrintOptions { wave64: false }), line, "{}", s.name);
        at += ins.len();
    }
    assert_eq!(at, s.words.len(), "{}: word count", s.name);
}

fn nothing(_: &mut Frame) {}

/// `<name>@gfx1010`: a segment of gfx1010-only instructions (the DS src2 forms); else gfx1030.
fn target(name: &str) -> Target {
    if name.ends_with("@gfx1010") {
        Target::Gfx1010
    } else {
        Target::Gfx1030
    }
}

fn as_op(s: &Seg) -> Op {
    Op {
        asm: s.name,
        words: s.words,
        target: target(s.name),
        exec: Exec::All,
        oracle: nothing,
    }
}

fn launch(grid: usize, addrs: &[u64], scratch_bytes: u32) -> Launch {
    let mut sgprs = Vec::new();
    for (i, &a) in addrs.iter().enumerate() {
        sgprs.push((2 * i as u16, SgprInit::Const(a as u32)));
        sgprs.push((2 * i as u16 + 1, SgprInit::Const((a >> 32) as u32)));
    }
    sgprs.push((4, SgprInit::WorkgroupId(0)));
    Launch {
        wave_size: 32,
        grid: [grid as u32, 1, 1],
        workgroup: [WAVE as u32, 1, 1],
        sgprs,
        workitem_id_vgprs: 1,
        // lane * 64 bytes, 16 used.
        lds_bytes: 64 * WAVE as u32,
        scratch_bytes,
        max_steps_per_wave: 100_000,
        code_base: None,
    }
}

fn le(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn check_n(segs: &[Seg], mapping: Mapping, n: usize) {
    for s in segs {
        check_words(s);
    }
    let ctx = opcheck::lavapipe();
    let prof = probe(&ctx).expect("the device profile is probed");
    let mut failures = Vec::new();
    for (gi, group) in segs.chunks(opcheck::batch_for(n)).enumerate() {
        let t = std::time::Instant::now();
        let ops: Vec<Op> = group.iter().map(as_op).collect();
        let scratch = group.iter().any(|s| kind(s.name).scratch);
        assert!(group
            .iter()
            .all(|s| target(s.name) == target(group[0].name)));
        assert!(group.iter().all(|s| kind(s.name).scratch == scratch));
        let mut words = Vec::new();
        for (k, o) in ops.iter().enumerate() {
            words.extend(segment_words(o, (k * n * 64) as u32));
        }
        words.push(0xbf81_0000); // s_endpgm
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let p = lift(
            "atomics",
            &code,
            LiftOptions {
                target: target(group[0].name),
                wave_size: 32,
                // The scratch forms address s[12:15] as the private segment buffer (base s12 = 0).
                private_segment_buffer: scratch.then_some(12),
            },
        )
        .unwrap_or_else(|e| panic!("group {gi}: the batch does not lift: {e}"));
        let mut ins = Vec::new();
        for (i, s) in group.iter().enumerate() {
            ins.extend(inputs(
                kind(s.name),
                n,
                0xa70_0000 ^ (gi as u64) << 12 ^ i as u64,
            ));
        }
        let input: Vec<u8> = ins
            .iter()
            .flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes()))
            .collect();
        let init = vec![input, vec![0u8; 64 * n * group.len()]];
        let run = run_with_buffers(
            &ctx,
            &p,
            &init,
            // Scratch forms: 64 private bytes per lane (offsets v6 & 0x38, a dword or qword each).
            |a| launch(n, a, if scratch { 64 } else { 0 }),
            &prof,
            &LowerOptions {
                mapping,
                ..LowerOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("group {gi}: device run failed: {e}"));
        let mut mem = Memory::default();
        for (i, b) in init.iter().enumerate() {
            mem.add(&format!("buf{i}"), run.addresses[i], b.clone())
                .unwrap();
        }
        rdna2spv_eval::run(&p, &run.launch, &mut mem).expect("the evaluator runs");
        let host = le(&mem.allocation("buf1").unwrap().data);
        let dev = le(&run.outputs[1]);
        for (j, s) in group.iter().enumerate() {
            let k = kind(s.name);
            let ins = &ins[j * n..(j + 1) * n];
            let (mut hd, mut ho, mut first) = (0usize, 0usize, None::<String>);
            for (w, wave) in ins.chunks(WAVE).enumerate() {
                let o = as_op(s);
                let mut f = frame_of(&o, wave);
                if k.base == "pairs" {
                    oracle_pairs(s.name, &mut f);
                } else {
                    oracle(k, &mut f);
                }
                let want = outputs_of(&f);
                for (l, want) in want.iter().enumerate() {
                    let at = 16 * (j * n + w * WAVE + l);
                    let (h, d) = (&host[at..at + 16], &dev[at..at + 16]);
                    for q in 0..16 {
                        hd += (h[q] != d[q]) as usize;
                        ho += (h[q] != want[q]) as usize;
                        if (h[q] != d[q] || h[q] != want[q]) && first.is_none() {
                            first = Some(format!(
                                "wave {w} lane {l} output {q}: host {:#010x}, device {:#010x}, reference {:#010x}; inputs {:08x?}",
                                h[q], d[q], want[q], wave[l]
                            ));
                        }
                    }
                }
            }
            eprintln!(
                "{:28} {n} operand sets: host≠device {hd}, host≠reference {ho}",
                s.name
            );
            if let Some(first) = first {
                failures.push(format!("{}: {first}", s.name));
            }
        }
        eprintln!("  ({} ops in one module: {:.2?})", group.len(), t.elapsed());
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn select(f: impl Fn(&Seg) -> bool) -> Vec<&'static Seg> {
    SEGS.iter().filter(|s| f(s)).collect()
}

fn run_selected(f: impl Fn(&Seg) -> bool) {
    run_selected_in(f, Mapping::Wave);
}

fn run_selected_in(f: impl Fn(&Seg) -> bool, mapping: Mapping) {
    run_selected_n(f, mapping, opcheck::n())
}

fn run_selected_n(f: impl Fn(&Seg) -> bool, mapping: Mapping, n: usize) {
    let v: Vec<Seg> = select(f)
        .into_iter()
        .map(|s| seg(s.name, s.text, s.words))
        .collect();
    check_n(&v, mapping, n);
}

/// Every op in every `cargo test` (issue 28) at [`opcheck::CI_N`] lanes; the `_full` siblings run the
/// default size.
fn run_ci(f: impl Fn(&Seg) -> bool) {
    run_selected_n(f, Mapping::Wave, opcheck::ci_n())
}

/// The atomics that block the most rocSPARSE kernels (docs/corpus.md), in every `cargo test`.
const CORPUS_BLOCKERS: &[&str] = &[
    "global_atomic_cmpswap_x2",
    "ds_cmpst_rtn_b64",
    "ds_add_f32",
    "ds_add_rtn_f32",
    "global_atomic_umin_x2",
    "global_atomic_umax_x2",
    "ds_min_u64",
    "ds_add_u64",
    "global_atomic_cmpswap",
    "ds_cmpst_rtn_b32",
];

#[test]
fn atomics_corpus_blockers() {
    run_selected(|s| CORPUS_BLOCKERS.contains(&s.name));
}

/// Every op in every `cargo test` at [`opcheck::CI_N`] lanes (issue 28); `atomics_lds_32_full` runs 4096.
#[test]
fn atomics_lds_32() {
    run_ci(|s| s.name.starts_with("ds_") && !kind(s.name).wide && !s.name.contains("_src2_"));
}

#[test]
#[ignore = "long (~170 ops; docs/coverage-tests.md): cargo test --test atomics -- --ignored"]
fn atomics_lds_32_full() {
    run_selected(|s| s.name.starts_with("ds_") && !kind(s.name).wide && !s.name.contains("_src2_"));
}

/// Every op in every `cargo test` at [`opcheck::CI_N`] lanes (issue 28); `atomics_lds_64_full` runs 4096.
#[test]
fn atomics_lds_64() {
    run_ci(|s| s.name.starts_with("ds_") && kind(s.name).wide && !s.name.contains("_src2_"));
}

#[test]
#[ignore = "long (~170 ops; docs/coverage-tests.md): cargo test --test atomics -- --ignored"]
fn atomics_lds_64_full() {
    run_selected(|s| s.name.starts_with("ds_") && kind(s.name).wide && !s.name.contains("_src2_"));
}

/// Every 64-bit LDS atomic (with and without return) in the lane mapping (D146): one invocation per
/// lane, so the 32 lanes of a workgroup are four 8-wide lavapipe batches that contend for D060's lock
/// word (each lane has its own address). Before D146 the lock's ordered atomics yielded inside the retry
/// loop and the batches' barriers fell out of step.
#[test]
fn atomics_lds_64_lane_mapping() {
    run_selected_in(
        |s| s.name.starts_with("ds_") && kind(s.name).wide && !s.name.contains("_src2_"),
        Mapping::Lane,
    );
}

/// Every op in every `cargo test` at [`opcheck::CI_N`] lanes (issue 28); `atomics_global_full` runs 4096.
#[test]
fn atomics_global() {
    run_ci(|s| s.name.starts_with("global_"));
}

#[test]
#[ignore = "long (~170 ops; docs/coverage-tests.md): cargo test --test atomics -- --ignored"]
fn atomics_global_full() {
    run_selected(|s| s.name.starts_with("global_"));
}

/// Every op in every `cargo test` at [`opcheck::CI_N`] lanes (issue 28); `atomics_flat_full` runs 4096.
#[test]
fn atomics_flat() {
    run_ci(|s| s.name.starts_with("flat_"));
}

#[test]
#[ignore = "long (~170 ops; docs/coverage-tests.md): cargo test --test atomics -- --ignored"]
fn atomics_flat_full() {
    run_selected(|s| s.name.starts_with("flat_"));
}

/// Every op in every `cargo test` at [`opcheck::CI_N`] lanes (issue 28); `atomics_buffer_full` runs 4096.
#[test]
fn atomics_buffer() {
    run_ci(|s| s.name.starts_with("buffer_") && !s.name.ends_with("@scratch"));
}

#[test]
#[ignore = "long (~170 ops; docs/coverage-tests.md): cargo test --test atomics -- --ignored"]
fn atomics_buffer_full() {
    run_selected(|s| s.name.starts_with("buffer_") && !s.name.ends_with("@scratch"));
}

/// In every `cargo test`: buffer atomics through the private segment buffer (scratch, D092): both widths,
/// the compare, float, csub and inc forms.
#[test]
fn atomics_buffer_scratch_sample() {
    const SAMPLE: &[&str] = &[
        "buffer_atomic_add@scratch",
        "buffer_atomic_csub@scratch",
        "buffer_atomic_fmax@scratch",
        "buffer_atomic_cmpswap_x2@scratch",
        "buffer_atomic_umin_x2@scratch",
        "buffer_atomic_inc_x2@scratch",
    ];
    run_selected(|s| SAMPLE.contains(&s.name));
}

/// Every op in every `cargo test` at [`opcheck::CI_N`] lanes (issue 28); `atomics_buffer_scratch_full` runs 4096.
#[test]
fn atomics_buffer_scratch() {
    run_ci(|s| s.name.ends_with("@scratch"));
}

#[test]
#[ignore = "long (33 ops; docs/coverage-tests.md): cargo test --test atomics -- --ignored"]
fn atomics_buffer_scratch_full() {
    run_selected(|s| s.name.ends_with("@scratch"));
}

// coverage: lds_pairs: DS_WRITE2_B32 DS_WRITE2ST64_B32 DS_READ2_B32 DS_READ2ST64_B32 DS_NOP DS_WRXCHG2_RTN_B64 DS_WRXCHG2ST64_RTN_B64
/// The two-address LDS forms no other test compared (issue 28; rocSPARSE's ds_read2/write2(st64)_b32):
/// each lane's addresses are its own (4l or 8l bytes), so no two lanes touch one dword.
#[test]
fn lds_pairs() {
    run_ci(|s| s.name.starts_with("pairs_"));
}

/// Every DS src2 form (gfx1010; issue 28): each segment writes the memory operand at A and DATA at
/// B = A + size * 3 (`offset:3`, the stride), runs `ds_<op>_src2_<ty> v40 offset:3` and reads A back, so
/// the reference is the plain DS atomic's, MEM[A] = op(MEM[A], DATA).
#[test]
fn atomics_lds_src2() {
    run_ci(|s| s.name.contains("_src2_"));
}

/// Every segment: its name, LLVM's text of its instructions and their words (llvm-mc-19, gfx1030; the
/// `@gfx1010` ones with -mcpu=gfx1010).
static SEGS: &[Seg] = &[
    seg("pairs_rw2_b32", "v_lshrrev_b32_e32 v16, 4, v40\nds_write2_b32 v16, v0, v1 offset1:32\nds_write2st64_b32 v16, v2, v3 offset0:1 offset1:2\nds_read2st64_b32 v[10:11], v16 offset1:1\nds_read2_b32 v[12:13], v16 offset0:32 offset1:128\nds_nop\ns_waitcnt lgkmcnt(0)", &[0x2c205084, 0xd8382000, 0x00010010, 0xd83c0201, 0x00030210, 0xd8e00100, 0x0a000010, 0xd8dc8020, 0x0c000010, 0xd8500000, 0x00000000, 0xbf8cc07f]),
    seg("pairs_xchg2_b64", "v_lshrrev_b32_e32 v16, 3, v40\nds_write_b64 v16, v[0:1]\nds_write_b64 v16, v[0:1] offset:256\nds_wrxchg2_rtn_b64 v[8:11], v16, v[2:3], v[4:5] offset1:32\nds_read2_b64 v[12:15], v16 offset1:32\ns_waitcnt lgkmcnt(0)", &[0x2c205083, 0xd9340000, 0x00000010, 0xd9340100, 0x00000010, 0xd9b82000, 0x08040210, 0xd9dc2000, 0x0c000010, 0xbf8cc07f]),
    seg("pairs_xchg2st64_b64", "v_lshrrev_b32_e32 v16, 3, v40\nds_write_b64 v16, v[0:1] offset:512\nds_write_b64 v16, v[0:1] offset:1024\nds_wrxchg2st64_rtn_b64 v[8:11], v16, v[2:3], v[4:5] offset0:1 offset1:2\nds_read2st64_b64 v[12:15], v16 offset0:1 offset1:2\ns_waitcnt lgkmcnt(0)", &[0x2c205083, 0xd9340200, 0x00000010, 0xd9340400, 0x00000010, 0xd9bc0201, 0x08040210, 0xd9e00201, 0x0c000010, 0xbf8cc07f]),
    seg("ds_add_src2_u32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_add_src2_u32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda000003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_sub_src2_u32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_sub_src2_u32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda040003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_rsub_src2_u32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_rsub_src2_u32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda080003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_inc_src2_u32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_inc_src2_u32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda0c0003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_dec_src2_u32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_dec_src2_u32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda100003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_src2_i32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_min_src2_i32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda140003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_src2_i32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_max_src2_i32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda180003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_src2_u32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_min_src2_u32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda1c0003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_src2_u32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_max_src2_u32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda200003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_and_src2_b32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_and_src2_b32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda240003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_or_src2_b32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_or_src2_b32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda280003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_xor_src2_b32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_xor_src2_b32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda2c0003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_write_src2_b32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_write_src2_b32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda340003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_src2_f32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_min_src2_f32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda480003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_src2_f32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_max_src2_f32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda4c0003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_add_src2_f32@gfx1010", "ds_write_b32 v40, v0\nds_write_b32 v40, v2 offset:12\nds_add_src2_f32 v40 offset:3\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd834000c, 0x00000228, 0xda540003, 0x00000028, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_add_src2_u64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_add_src2_u64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb000003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_sub_src2_u64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_sub_src2_u64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb040003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_rsub_src2_u64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_rsub_src2_u64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb080003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_inc_src2_u64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_inc_src2_u64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb0c0003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_dec_src2_u64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_dec_src2_u64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb100003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_src2_i64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_min_src2_i64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb140003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_src2_i64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_max_src2_i64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb180003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_src2_u64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_min_src2_u64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb1c0003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_src2_u64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_max_src2_u64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb200003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_and_src2_b64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_and_src2_b64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb240003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_or_src2_b64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_or_src2_b64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb280003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_xor_src2_b64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_xor_src2_b64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb2c0003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_write_src2_b64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_write_src2_b64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb340003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_src2_f64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_min_src2_f64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb480003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_src2_f64@gfx1010", "ds_write_b64 v40, v[0:1]\nds_write_b64 v40, v[2:3] offset:24\nds_max_src2_f64 v40 offset:3\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9340018, 0x00000228, 0xdb4c0003, 0x00000028, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_add_u32", "ds_write_b32 v40, v0\nds_add_u32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8000000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_add_rtn_u32", "ds_write_b32 v40, v0\nds_add_rtn_u32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8800000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_sub_u32", "ds_write_b32 v40, v0\nds_sub_u32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8040000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_sub_rtn_u32", "ds_write_b32 v40, v0\nds_sub_rtn_u32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8840000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_rsub_u32", "ds_write_b32 v40, v0\nds_rsub_u32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8080000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_rsub_rtn_u32", "ds_write_b32 v40, v0\nds_rsub_rtn_u32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8880000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_inc_u32", "ds_write_b32 v40, v0\nds_inc_u32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd80c0000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_inc_rtn_u32", "ds_write_b32 v40, v0\nds_inc_rtn_u32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd88c0000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_dec_u32", "ds_write_b32 v40, v0\nds_dec_u32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8100000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_dec_rtn_u32", "ds_write_b32 v40, v0\nds_dec_rtn_u32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8900000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_i32", "ds_write_b32 v40, v0\nds_min_i32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8140000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_rtn_i32", "ds_write_b32 v40, v0\nds_min_rtn_i32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8940000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_i32", "ds_write_b32 v40, v0\nds_max_i32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8180000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_rtn_i32", "ds_write_b32 v40, v0\nds_max_rtn_i32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8980000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_u32", "ds_write_b32 v40, v0\nds_min_u32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd81c0000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_rtn_u32", "ds_write_b32 v40, v0\nds_min_rtn_u32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd89c0000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_u32", "ds_write_b32 v40, v0\nds_max_u32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8200000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_rtn_u32", "ds_write_b32 v40, v0\nds_max_rtn_u32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8a00000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_and_b32", "ds_write_b32 v40, v0\nds_and_b32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8240000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_and_rtn_b32", "ds_write_b32 v40, v0\nds_and_rtn_b32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8a40000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_or_b32", "ds_write_b32 v40, v0\nds_or_b32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8280000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_or_rtn_b32", "ds_write_b32 v40, v0\nds_or_rtn_b32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8a80000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_xor_b32", "ds_write_b32 v40, v0\nds_xor_b32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd82c0000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_xor_rtn_b32", "ds_write_b32 v40, v0\nds_xor_rtn_b32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8ac0000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_mskor_b32", "ds_write_b32 v40, v0\nds_mskor_b32 v40, v2, v4\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8300000, 0x00040228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_mskor_rtn_b32", "ds_write_b32 v40, v0\nds_mskor_rtn_b32 v8, v40, v2, v4\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8b00000, 0x08040228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_cmpst_b32", "ds_write_b32 v40, v0\nds_cmpst_b32 v40, v2, v4\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8400000, 0x00040228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_cmpst_rtn_b32", "ds_write_b32 v40, v0\nds_cmpst_rtn_b32 v8, v40, v2, v4\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8c00000, 0x08040228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_cmpst_f32", "ds_write_b32 v40, v0\nds_cmpst_f32 v40, v2, v4\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8440000, 0x00040228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_cmpst_rtn_f32", "ds_write_b32 v40, v0\nds_cmpst_rtn_f32 v8, v40, v2, v4\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8c40000, 0x08040228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_f32", "ds_write_b32 v40, v0\nds_min_f32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8480000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_rtn_f32", "ds_write_b32 v40, v0\nds_min_rtn_f32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8c80000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_f32", "ds_write_b32 v40, v0\nds_max_f32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd84c0000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_rtn_f32", "ds_write_b32 v40, v0\nds_max_rtn_f32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8cc0000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_add_f32", "ds_write_b32 v40, v0\nds_add_f32 v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8540000, 0x00000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_add_rtn_f32", "ds_write_b32 v40, v0\nds_add_rtn_f32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd9540000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_wrxchg_rtn_b32", "ds_write_b32 v40, v0\nds_wrxchg_rtn_b32 v8, v40, v2\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8b40000, 0x08000228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_wrap_rtn_b32", "ds_write_b32 v40, v0\nds_wrap_rtn_b32 v8, v40, v2, v4\nds_read_b32 v10, v40\ns_waitcnt lgkmcnt(0)", &[0xd8340000, 0x00000028, 0xd8d00000, 0x08040228, 0xd8d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_add_u64", "ds_write_b64 v40, v[0:1]\nds_add_u64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9000000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_add_rtn_u64", "ds_write_b64 v40, v[0:1]\nds_add_rtn_u64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9800000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_sub_u64", "ds_write_b64 v40, v[0:1]\nds_sub_u64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9040000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_sub_rtn_u64", "ds_write_b64 v40, v[0:1]\nds_sub_rtn_u64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9840000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_rsub_u64", "ds_write_b64 v40, v[0:1]\nds_rsub_u64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9080000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_rsub_rtn_u64", "ds_write_b64 v40, v[0:1]\nds_rsub_rtn_u64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9880000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_inc_u64", "ds_write_b64 v40, v[0:1]\nds_inc_u64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd90c0000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_inc_rtn_u64", "ds_write_b64 v40, v[0:1]\nds_inc_rtn_u64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd98c0000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_dec_u64", "ds_write_b64 v40, v[0:1]\nds_dec_u64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9100000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_dec_rtn_u64", "ds_write_b64 v40, v[0:1]\nds_dec_rtn_u64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9900000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_i64", "ds_write_b64 v40, v[0:1]\nds_min_i64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9140000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_rtn_i64", "ds_write_b64 v40, v[0:1]\nds_min_rtn_i64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9940000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_i64", "ds_write_b64 v40, v[0:1]\nds_max_i64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9180000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_rtn_i64", "ds_write_b64 v40, v[0:1]\nds_max_rtn_i64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9980000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_u64", "ds_write_b64 v40, v[0:1]\nds_min_u64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd91c0000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_rtn_u64", "ds_write_b64 v40, v[0:1]\nds_min_rtn_u64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd99c0000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_u64", "ds_write_b64 v40, v[0:1]\nds_max_u64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9200000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_rtn_u64", "ds_write_b64 v40, v[0:1]\nds_max_rtn_u64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9a00000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_and_b64", "ds_write_b64 v40, v[0:1]\nds_and_b64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9240000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_and_rtn_b64", "ds_write_b64 v40, v[0:1]\nds_and_rtn_b64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9a40000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_or_b64", "ds_write_b64 v40, v[0:1]\nds_or_b64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9280000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_or_rtn_b64", "ds_write_b64 v40, v[0:1]\nds_or_rtn_b64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9a80000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_xor_b64", "ds_write_b64 v40, v[0:1]\nds_xor_b64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd92c0000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_xor_rtn_b64", "ds_write_b64 v40, v[0:1]\nds_xor_rtn_b64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9ac0000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_mskor_b64", "ds_write_b64 v40, v[0:1]\nds_mskor_b64 v40, v[2:3], v[4:5]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9300000, 0x00040228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_mskor_rtn_b64", "ds_write_b64 v40, v[0:1]\nds_mskor_rtn_b64 v[8:9], v40, v[2:3], v[4:5]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9b00000, 0x08040228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_cmpst_b64", "ds_write_b64 v40, v[0:1]\nds_cmpst_b64 v40, v[2:3], v[4:5]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9400000, 0x00040228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_cmpst_rtn_b64", "ds_write_b64 v40, v[0:1]\nds_cmpst_rtn_b64 v[8:9], v40, v[2:3], v[4:5]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9c00000, 0x08040228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_cmpst_f64", "ds_write_b64 v40, v[0:1]\nds_cmpst_f64 v40, v[2:3], v[4:5]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9440000, 0x00040228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_cmpst_rtn_f64", "ds_write_b64 v40, v[0:1]\nds_cmpst_rtn_f64 v[8:9], v40, v[2:3], v[4:5]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9c40000, 0x08040228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_f64", "ds_write_b64 v40, v[0:1]\nds_min_f64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9480000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_min_rtn_f64", "ds_write_b64 v40, v[0:1]\nds_min_rtn_f64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9c80000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_f64", "ds_write_b64 v40, v[0:1]\nds_max_f64 v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd94c0000, 0x00000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_max_rtn_f64", "ds_write_b64 v40, v[0:1]\nds_max_rtn_f64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9cc0000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("ds_wrxchg_rtn_b64", "ds_write_b64 v40, v[0:1]\nds_wrxchg_rtn_b64 v[8:9], v40, v[2:3]\nds_read_b64 v[10:11], v40\ns_waitcnt lgkmcnt(0)", &[0xd9340000, 0x00000028, 0xd9b40000, 0x08000228, 0xd9d80000, 0x0a000028, 0xbf8cc07f]),
    seg("global_atomic_swap", "global_atomic_swap v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcc18000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_cmpswap", "global_atomic_cmpswap v8, v40, v[2:3], s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcc58000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_add", "global_atomic_add v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcc98000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_sub", "global_atomic_sub v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdccd8000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_smin", "global_atomic_smin v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcd58000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_umin", "global_atomic_umin v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcd98000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_smax", "global_atomic_smax v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcdd8000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_umax", "global_atomic_umax v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdce18000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_and", "global_atomic_and v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdce58000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_or", "global_atomic_or v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdce98000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_xor", "global_atomic_xor v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdced8000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_inc", "global_atomic_inc v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcf18000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_dec", "global_atomic_dec v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcf58000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_fcmpswap", "global_atomic_fcmpswap v8, v40, v[2:3], s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcf98000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_fmin", "global_atomic_fmin v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcfd8000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_fmax", "global_atomic_fmax v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd018000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_csub", "global_atomic_csub v8, v40, v2, s[6:7] glc\nglobal_load_dword v10, v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdcd18000, 0x08060228, 0xdc308000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_swap_x2", "global_atomic_swap_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd418000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_cmpswap_x2", "global_atomic_cmpswap_x2 v[8:9], v40, v[2:5], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd458000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_add_x2", "global_atomic_add_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd498000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_sub_x2", "global_atomic_sub_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd4d8000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_smin_x2", "global_atomic_smin_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd558000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_umin_x2", "global_atomic_umin_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd598000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_smax_x2", "global_atomic_smax_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd5d8000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_umax_x2", "global_atomic_umax_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd618000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_and_x2", "global_atomic_and_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd658000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_or_x2", "global_atomic_or_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd698000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_xor_x2", "global_atomic_xor_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd6d8000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_inc_x2", "global_atomic_inc_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd718000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_dec_x2", "global_atomic_dec_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd758000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_fcmpswap_x2", "global_atomic_fcmpswap_x2 v[8:9], v40, v[2:5], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd798000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_fmin_x2", "global_atomic_fmin_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd7d8000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("global_atomic_fmax_x2", "global_atomic_fmax_x2 v[8:9], v40, v[2:3], s[6:7] glc\nglobal_load_dwordx2 v[10:11], v40, s[6:7]\ns_waitcnt vmcnt(0)", &[0xdd818000, 0x08060228, 0xdc348000, 0x0a060028, 0xbf8c3f70]),
    seg("flat_atomic_swap", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_swap v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdcc10000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_cmpswap", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_cmpswap v8, v[42:43], v[2:3] glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdcc50000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_add", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_add v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdcc90000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_sub", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_sub v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdccd0000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_smin", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_smin v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdcd50000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_umin", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_umin v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdcd90000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_smax", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_smax v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdcdd0000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_umax", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_umax v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdce10000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_and", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_and v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdce50000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_or", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_or v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdce90000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_xor", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_xor v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdced0000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_inc", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_inc v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdcf10000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_dec", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_dec v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdcf50000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_fcmpswap", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_fcmpswap v8, v[42:43], v[2:3] glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdcf90000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_fmin", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_fmin v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdcfd0000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_fmax", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_fmax v8, v[42:43], v2 glc\nflat_load_dword v10, v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd010000, 0x087d022a, 0xdc300000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_swap_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_swap_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd410000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_cmpswap_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_cmpswap_x2 v[8:9], v[42:43], v[2:5] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd450000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_add_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_add_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd490000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_sub_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_sub_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd4d0000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_smin_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_smin_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd550000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_umin_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_umin_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd590000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_smax_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_smax_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd5d0000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_umax_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_umax_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd610000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_and_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_and_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd650000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_or_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_or_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd690000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_xor_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_xor_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd6d0000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_inc_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_inc_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd710000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_dec_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_dec_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd750000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_fcmpswap_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_fcmpswap_x2 v[8:9], v[42:43], v[2:5] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd790000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_fmin_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_fmin_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd7d0000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("flat_atomic_fmax_x2", "v_add_co_u32 v42, s16, s6, v40\nv_add_co_ci_u32_e64 v43, s16, s7, 0, s16\nflat_atomic_fmax_x2 v[8:9], v[42:43], v[2:3] glc\nflat_load_dwordx2 v[10:11], v[42:43]\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b32 s16, 0", &[0xd70f102a, 0x00025006, 0xd528102b, 0x00410007, 0xdd810000, 0x087d022a, 0xdc340000, 0x0a7d002a, 0xbf8c0070, 0xbe900380]),
    seg("buffer_atomic_swap", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_swap v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0c05000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_cmpswap", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_cmpswap v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe0c45000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_add", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_add v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0c85000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_sub", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_sub v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0cc5000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_smin", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_smin v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0d45000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_umin", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_umin v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0d85000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_smax", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_smax v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0dc5000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_umax", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_umax v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0e05000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_and", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_and v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0e45000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_or", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_or v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0e85000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_xor", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_xor v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0ec5000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_inc", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_inc v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0f05000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_dec", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_dec v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0f45000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_fcmpswap", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_fcmpswap v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe0f85000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_fmin", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_fmin v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0fc5000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_fmax", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_fmax v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe1005000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_csub", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nbuffer_atomic_csub v8, v40, s[16:19], 0 offen glc\nbuffer_load_dword v12, v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0xe0d05000, 0x80040828, 0xe0301000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_swap_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_swap_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe1405000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_cmpswap_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nv_mov_b32_e32 v10, v4\nv_mov_b32_e32 v11, v5\nbuffer_atomic_cmpswap_x2 v[8:11], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0x7e140304, 0x7e160305, 0xe1445000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_add_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_add_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe1485000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_sub_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_sub_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe14c5000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_smin_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_smin_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe1545000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_umin_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_umin_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe1585000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_smax_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_smax_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe15c5000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_umax_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_umax_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe1605000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_and_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_and_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe1645000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_or_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_or_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe1685000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_xor_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_xor_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe16c5000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_inc_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_inc_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe1705000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_dec_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_dec_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe1745000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_fcmpswap_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nv_mov_b32_e32 v10, v4\nv_mov_b32_e32 v11, v5\nbuffer_atomic_fcmpswap_x2 v[8:11], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0x7e140304, 0x7e160305, 0xe1785000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_fmin_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_fmin_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe17c5000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_fmax_x2", "s_mov_b32 s16, s6\ns_mov_b32 s17, s7\ns_mov_b32 s18, -1\ns_mov_b32 s19, 0x30000000\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_fmax_x2 v[8:9], v40, s[16:19], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v40, s[16:19], 0 offen\ns_waitcnt vmcnt(0)\ns_mov_b32 s16, 0\ns_mov_b32 s17, 0\ns_mov_b32 s18, 0\ns_mov_b32 s19, 0", &[0xbe900306, 0xbe910307, 0xbe9203c1, 0xbe9303ff, 0x30000000, 0x7e100302, 0x7e120303, 0xe1805000, 0x80040828, 0xe0341000, 0x80040c28, 0xbf8c3f70, 0xbe900380, 0xbe910380, 0xbe920380, 0xbe930380]),
    seg("buffer_atomic_swap@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_swap v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0c05000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_cmpswap@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_cmpswap v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0x7e120303, 0xe0c45000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_add@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_add v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0c85000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_sub@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_sub v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0cc5000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_csub@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_csub v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0d05000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_smin@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_smin v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0d45000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_umin@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_umin v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0d85000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_smax@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_smax v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0dc5000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_umax@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_umax v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0e05000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_and@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_and v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0e45000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_or@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_or v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0e85000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_xor@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_xor v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0ec5000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_inc@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_inc v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0f05000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_dec@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_dec v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0f45000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_fcmpswap@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_fcmpswap v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0x7e120303, 0xe0f85000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_fmin@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_fmin v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0fc5000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_fmax@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_fmax v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe1005000, 0x80030829, 0xe0301000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_swap_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_swap_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe1405000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_cmpswap_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nv_mov_b32_e32 v10, v4\nv_mov_b32_e32 v11, v5\nbuffer_atomic_cmpswap_x2 v[8:11], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0x7e140304, 0x7e160305, 0xe1445000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_add_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_add_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe1485000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_sub_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_sub_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe14c5000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_smin_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_smin_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe1545000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_umin_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_umin_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe1585000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_smax_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_smax_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe15c5000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_umax_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_umax_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe1605000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_and_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_and_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe1645000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_or_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_or_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe1685000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_xor_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_xor_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe16c5000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_inc_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_inc_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe1705000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_dec_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_dec_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe1745000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_fcmpswap_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nv_mov_b32_e32 v10, v4\nv_mov_b32_e32 v11, v5\nbuffer_atomic_fcmpswap_x2 v[8:11], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0x7e140304, 0x7e160305, 0xe1785000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_fmin_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_fmin_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe17c5000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
    seg("buffer_atomic_fmax_x2@scratch", "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dwordx2 v[0:1], v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nv_mov_b32_e32 v9, v3\nbuffer_atomic_fmax_x2 v[8:9], v41, s[12:15], 0 offen glc\nbuffer_load_dwordx2 v[12:13], v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)", &[0xbe8c0380, 0x36520cb8, 0xe0741000, 0x80030029, 0x7e100302, 0x7e120303, 0xe1805000, 0x80030829, 0xe0341000, 0x80030c29, 0xbf8c3f70]),
];
