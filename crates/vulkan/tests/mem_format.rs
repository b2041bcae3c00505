//! Typed buffer accesses (decision D097) on lavapipe and in the evaluator, against an independent Rust
//! model written from the conversion rules: MUBUF `buffer_{load,store}_format_*` (the format is the V#'s
//! FORMAT field, random per workgroup over every gfx10 unified format the instruction models) and MTBUF
//! `tbuffer_*` (the format in the instruction).
//!
//! The model takes each format's channel layout from the disassembler's format names (LLVM's), not from the
//! lifter's table, and converts from the definitions: UNORM `c / (2^n - 1)` and SNORM
//! `max(c / (2^(n-1) - 1), -1)` computed in f64 and rounded once to f32 (for n <= 16 the f64 quotient is
//! never within 2^-53 of an f32 rounding boundary, so this is the correctly rounded quotient), small floats
//! decoded from sign/exponent/mantissa, integers extended by hand. Each workgroup (one wave32) loads its V#s
//! (random stride, NUM_RECORDS, OOB_SELECT 1 or 3, DST_SEL, format) from a descriptor table, as RADV
//! shaders do; lanes use random indices and offsets so elements fall in range, out of range and across
//! the NUM_RECORDS boundary (all or nothing). Data are random with boundary values (0, all ones, the
//! signed extremes, f16/f32 infinities, NaNs, denormals). Loaded registers and the store target must be
//! identical on host and device, and equal to the model's.

mod common;
mod memcommon;

use memcommon::{expect_same, le_words, lift_words, run_both, words_le, Rng};
use rdna2spv_eval::{Launch, SgprInit};
use rdna2spv_isa::buf_format_name;

// coverage: typed_mubuf_loads_match_model: BUFFER_LOAD_FORMAT_X BUFFER_LOAD_FORMAT_XY BUFFER_LOAD_FORMAT_XYZ BUFFER_LOAD_FORMAT_XYZW BUFFER_LOAD_FORMAT_D16_X BUFFER_LOAD_FORMAT_D16_XY BUFFER_LOAD_FORMAT_D16_XYZ BUFFER_LOAD_FORMAT_D16_XYZW BUFFER_LOAD_FORMAT_D16_HI_X
// coverage: typed_mubuf_stores_match_model: BUFFER_STORE_FORMAT_X BUFFER_STORE_FORMAT_XY BUFFER_STORE_FORMAT_XYZ BUFFER_STORE_FORMAT_XYZW BUFFER_STORE_FORMAT_D16_X BUFFER_STORE_FORMAT_D16_XY BUFFER_STORE_FORMAT_D16_XYZ BUFFER_STORE_FORMAT_D16_XYZW BUFFER_STORE_FORMAT_D16_HI_X
// coverage: typed_mtbuf_loads_match_model: TBUFFER_LOAD_FORMAT_X TBUFFER_LOAD_FORMAT_XY TBUFFER_LOAD_FORMAT_XYZ TBUFFER_LOAD_FORMAT_XYZW TBUFFER_LOAD_FORMAT_D16_X TBUFFER_LOAD_FORMAT_D16_XY TBUFFER_LOAD_FORMAT_D16_XYZ TBUFFER_LOAD_FORMAT_D16_XYZW
// coverage: typed_mtbuf_stores_match_model: TBUFFER_STORE_FORMAT_X TBUFFER_STORE_FORMAT_XY TBUFFER_STORE_FORMAT_XYZ TBUFFER_STORE_FORMAT_XYZW TBUFFER_STORE_FORMAT_D16_X TBUFFER_STORE_FORMAT_D16_XY TBUFFER_STORE_FORMAT_D16_XYZ TBUFFER_STORE_FORMAT_D16_XYZW

// Kernels (llvm-mc-19 -mcpu=gfx1030): each workgroup loads 9 V#s s[20:55] and an soffset s56 from its
// 64-dword record of the descriptor table s[16:17]; each work-item loads 20 dwords v[8:27] from s[0:1]
// (v8 index, v9 offset, v10..v26 the typed instructions' data or preset destinations), runs the typed
// instructions, and stores v[8:27] to s[2:3]. s14 = workgroup id, s18 = wave size.
const MUBUF_LOADS: &[u32] = &[
    0x8f0f880e, // s_lshl_b32 s15, s14, 8
    0xf4100508, 0x1e000000, // s_load_dwordx16 s[20:35], s[16:17], s15
    0xf4100908, 0x1e000040, // s_load_dwordx16 s[36:51], s[16:17], s15 offset:0x40
    0xf4080d08, 0x1e000080, // s_load_dwordx4 s[52:55], s[16:17], s15 offset:0x80
    0xf4000e08, 0x1e000090, // s_load_dword s56, s[16:17], s15 offset:0x90
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x160252ff, 0x00000050, // v_mul_u32_u24_e32 v1, 0x50, v41
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc388000, 0x08000001, // global_load_dwordx4 v[8:11], v1, s[0:1]
    0xdc388010, 0x0c000001, // global_load_dwordx4 v[12:15], v1, s[0:1] offset:16
    0xdc388020, 0x10000001, // global_load_dwordx4 v[16:19], v1, s[0:1] offset:32
    0xdc388030, 0x14000001, // global_load_dwordx4 v[20:23], v1, s[0:1] offset:48
    0xdc388040, 0x18000001, // global_load_dwordx4 v[24:27], v1, s[0:1] offset:64
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xe0003000, 0x38050a08, // buffer_load_format_x v10, v[8:9], s[20:23], s56 idxen offen
    0xe0043000,
    0x38050b08, // buffer_load_format_xy v[11:12], v[8:9], s[20:23], s56 idxen offen
    0xe0083000,
    0x38050d08, // buffer_load_format_xyz v[13:15], v[8:9], s[20:23], s56 idxen offen
    0xe00c3000,
    0x38051008, // buffer_load_format_xyzw v[16:19], v[8:9], s[20:23], s56 idxen offen
    0xe2003000, 0x38061408, // buffer_load_format_d16_x v20, v[8:9], s[24:27], s56 idxen offen
    0xe2043000,
    0x38061508, // buffer_load_format_d16_xy v21, v[8:9], s[24:27], s56 idxen offen
    0xe2083000,
    0x38061608, // buffer_load_format_d16_xyz v[22:23], v[8:9], s[24:27], s56 idxen offen
    0xe20c3000,
    0x38061808, // buffer_load_format_d16_xyzw v[24:25], v[8:9], s[24:27], s56 idxen offen
    0xe0983000,
    0x38061a08, // buffer_load_format_d16_hi_x v26, v[8:9], s[24:27], s56 idxen offen
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xdc788000, 0x00020801, // global_store_dwordx4 v1, v[8:11], s[2:3]
    0xdc788010, 0x00020c01, // global_store_dwordx4 v1, v[12:15], s[2:3] offset:16
    0xdc788020, 0x00021001, // global_store_dwordx4 v1, v[16:19], s[2:3] offset:32
    0xdc788030, 0x00021401, // global_store_dwordx4 v1, v[20:23], s[2:3] offset:48
    0xdc788040, 0x00021801, // global_store_dwordx4 v1, v[24:27], s[2:3] offset:64
    0xbf810000, // s_endpgm
];

const MUBUF_STORES: &[u32] = &[
    0x8f0f880e, // s_lshl_b32 s15, s14, 8
    0xf4100508, 0x1e000000, // s_load_dwordx16 s[20:35], s[16:17], s15
    0xf4100908, 0x1e000040, // s_load_dwordx16 s[36:51], s[16:17], s15 offset:0x40
    0xf4080d08, 0x1e000080, // s_load_dwordx4 s[52:55], s[16:17], s15 offset:0x80
    0xf4000e08, 0x1e000090, // s_load_dword s56, s[16:17], s15 offset:0x90
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x160252ff, 0x00000050, // v_mul_u32_u24_e32 v1, 0x50, v41
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc388000, 0x08000001, // global_load_dwordx4 v[8:11], v1, s[0:1]
    0xdc388010, 0x0c000001, // global_load_dwordx4 v[12:15], v1, s[0:1] offset:16
    0xdc388020, 0x10000001, // global_load_dwordx4 v[16:19], v1, s[0:1] offset:32
    0xdc388030, 0x14000001, // global_load_dwordx4 v[20:23], v1, s[0:1] offset:48
    0xdc388040, 0x18000001, // global_load_dwordx4 v[24:27], v1, s[0:1] offset:64
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xe0103000, 0x38050a08, // buffer_store_format_x v10, v[8:9], s[20:23], s56 idxen offen
    0xe0143000,
    0x38060b08, // buffer_store_format_xy v[11:12], v[8:9], s[24:27], s56 idxen offen
    0xe0183000,
    0x38070d08, // buffer_store_format_xyz v[13:15], v[8:9], s[28:31], s56 idxen offen
    0xe01c3000,
    0x38081008, // buffer_store_format_xyzw v[16:19], v[8:9], s[32:35], s56 idxen offen
    0xe2103000,
    0x38091408, // buffer_store_format_d16_x v20, v[8:9], s[36:39], s56 idxen offen
    0xe2143000,
    0x380a1508, // buffer_store_format_d16_xy v21, v[8:9], s[40:43], s56 idxen offen
    0xe2183000,
    0x380b1608, // buffer_store_format_d16_xyz v[22:23], v[8:9], s[44:47], s56 idxen offen
    0xe21c3000,
    0x380c1808, // buffer_store_format_d16_xyzw v[24:25], v[8:9], s[48:51], s56 idxen offen
    0xe09c3000,
    0x380d1a08, // buffer_store_format_d16_hi_x v26, v[8:9], s[52:55], s56 idxen offen
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xdc788000, 0x00020801, // global_store_dwordx4 v1, v[8:11], s[2:3]
    0xdc788010, 0x00020c01, // global_store_dwordx4 v1, v[12:15], s[2:3] offset:16
    0xdc788020, 0x00021001, // global_store_dwordx4 v1, v[16:19], s[2:3] offset:32
    0xdc788030, 0x00021401, // global_store_dwordx4 v1, v[20:23], s[2:3] offset:48
    0xdc788040, 0x00021801, // global_store_dwordx4 v1, v[24:27], s[2:3] offset:64
    0xbf810000, // s_endpgm
];

const MTBUF_LOADS: &[u32] = &[
    0x8f0f880e, // s_lshl_b32 s15, s14, 8
    0xf4100508, 0x1e000000, // s_load_dwordx16 s[20:35], s[16:17], s15
    0xf4100908, 0x1e000040, // s_load_dwordx16 s[36:51], s[16:17], s15 offset:0x40
    0xf4080d08, 0x1e000080, // s_load_dwordx4 s[52:55], s[16:17], s15 offset:0x80
    0xf4000e08, 0x1e000090, // s_load_dword s56, s[16:17], s15 offset:0x90
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x160252ff, 0x00000050, // v_mul_u32_u24_e32 v1, 0x50, v41
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc388000, 0x08000001, // global_load_dwordx4 v[8:11], v1, s[0:1]
    0xdc388010, 0x0c000001, // global_load_dwordx4 v[12:15], v1, s[0:1] offset:16
    0xdc388020, 0x10000001, // global_load_dwordx4 v[16:19], v1, s[0:1] offset:32
    0xdc388030, 0x14000001, // global_load_dwordx4 v[20:23], v1, s[0:1] offset:48
    0xdc388040, 0x18000001, // global_load_dwordx4 v[24:27], v1, s[0:1] offset:64
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xe8103000,
    0x38050a08, // tbuffer_load_format_x v10, v[8:9], s[20:23], s56 format:[BUF_FMT_8_SNORM] idxen offen
    0xe8b93000,
    0x38050b08, // tbuffer_load_format_xy v[11:12], v[8:9], s[20:23], s56 format:[BUF_FMT_16_16_UNORM] idxen offen
    0xe9223000,
    0x38050d08, // tbuffer_load_format_xyz v[13:15], v[8:9], s[20:23], s56 format:[BUF_FMT_10_11_11_FLOAT] idxen offen
    0xe99b3000,
    0x38051008, // tbuffer_load_format_xyzw v[16:19], v[8:9], s[20:23], s56 format:[BUF_FMT_2_10_10_10_SNORM] idxen offen
    0xe8683000,
    0x38261408, // tbuffer_load_format_d16_x v20, v[8:9], s[24:27], s56 format:[BUF_FMT_16_FLOAT] idxen offen
    0xe8893000,
    0x38261508, // tbuffer_load_format_d16_xy v21, v[8:9], s[24:27], s56 format:[BUF_FMT_8_8_SSCALED] idxen offen
    0xe95a3000,
    0x38261608, // tbuffer_load_format_d16_xyz v[22:23], v[8:9], s[24:27], s56 format:[BUF_FMT_11_11_10_FLOAT] idxen offen
    0xea333000,
    0x38261808, // tbuffer_load_format_d16_xyzw v[24:25], v[8:9], s[24:27], s56 format:[BUF_FMT_16_16_16_16_SINT] idxen offen
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xdc788000, 0x00020801, // global_store_dwordx4 v1, v[8:11], s[2:3]
    0xdc788010, 0x00020c01, // global_store_dwordx4 v1, v[12:15], s[2:3] offset:16
    0xdc788020, 0x00021001, // global_store_dwordx4 v1, v[16:19], s[2:3] offset:32
    0xdc788030, 0x00021401, // global_store_dwordx4 v1, v[20:23], s[2:3] offset:48
    0xdc788040, 0x00021801, // global_store_dwordx4 v1, v[24:27], s[2:3] offset:64
    0xbf810000, // s_endpgm
];

const MTBUF_STORES: &[u32] = &[
    0x8f0f880e, // s_lshl_b32 s15, s14, 8
    0xf4100508, 0x1e000000, // s_load_dwordx16 s[20:35], s[16:17], s15
    0xf4100908, 0x1e000040, // s_load_dwordx16 s[36:51], s[16:17], s15 offset:0x40
    0xf4080d08, 0x1e000080, // s_load_dwordx4 s[52:55], s[16:17], s15 offset:0x80
    0xf4000e08, 0x1e000090, // s_load_dword s56, s[16:17], s15 offset:0x90
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x160252ff, 0x00000050, // v_mul_u32_u24_e32 v1, 0x50, v41
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc388000, 0x08000001, // global_load_dwordx4 v[8:11], v1, s[0:1]
    0xdc388010, 0x0c000001, // global_load_dwordx4 v[12:15], v1, s[0:1] offset:16
    0xdc388020, 0x10000001, // global_load_dwordx4 v[16:19], v1, s[0:1] offset:32
    0xdc388030, 0x14000001, // global_load_dwordx4 v[20:23], v1, s[0:1] offset:48
    0xdc388040, 0x18000001, // global_load_dwordx4 v[24:27], v1, s[0:1] offset:64
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xe8b43000,
    0x38050a08, // tbuffer_store_format_x v10, v[8:9], s[20:23], s56 format:[BUF_FMT_32_FLOAT] idxen offen
    0xe8dd3000,
    0x38060b08, // tbuffer_store_format_xy v[11:12], v[8:9], s[24:27], s56 format:[BUF_FMT_16_16_UINT] idxen offen
    0xe91e3000,
    0x38070d08, // tbuffer_store_format_xyz v[13:15], v[8:9], s[28:31], s56 format:[BUF_FMT_10_11_11_SINT] idxen offen
    0xe9ef3000,
    0x38081008, // tbuffer_store_format_xyzw v[16:19], v[8:9], s[32:35], s56 format:[BUF_FMT_8_8_8_8_SINT] idxen offen
    0xe8643000,
    0x38291408, // tbuffer_store_format_d16_x v20, v[8:9], s[36:39], s56 format:[BUF_FMT_16_SINT] idxen offen
    0xe8ed3000,
    0x382a1508, // tbuffer_store_format_d16_xy v21, v[8:9], s[40:43], s56 format:[BUF_FMT_16_16_FLOAT] idxen offen
    0xe9163000,
    0x382b1608, // tbuffer_store_format_d16_xyz v[22:23], v[8:9], s[44:47], s56 format:[BUF_FMT_10_11_11_UINT] idxen offen
    0xe9873000,
    0x382c1808, // tbuffer_store_format_d16_xyzw v[24:25], v[8:9], s[48:51], s56 format:[BUF_FMT_10_10_10_2_UINT] idxen offen
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xdc788000, 0x00020801, // global_store_dwordx4 v1, v[8:11], s[2:3]
    0xdc788010, 0x00020c01, // global_store_dwordx4 v1, v[12:15], s[2:3] offset:16
    0xdc788020, 0x00021001, // global_store_dwordx4 v1, v[16:19], s[2:3] offset:32
    0xdc788030, 0x00021401, // global_store_dwordx4 v1, v[20:23], s[2:3] offset:48
    0xdc788040, 0x00021801, // global_store_dwordx4 v1, v[24:27], s[2:3] offset:64
    0xbf810000, // s_endpgm
];

const ITEM_WORDS: usize = 20;
/// Bytes of one workgroup's store region (every store V# of the group points into it).
const REGION: usize = 4096;
const DATA: usize = 8192;
/// Work-items per test (4,096 accesses per instruction): 128 wave32 or 64 wave64 workgroups.
const LANES: u32 = 4096;
const WS: u32 = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nf {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Float,
}

/// Channel widths (X..W, 0 = absent) and numeric format, from the format's name: `2_10_10_10_UNORM` lists
/// the widths from the most significant end, so X is the last.
fn fmt_of(fmt: u32) -> Option<([u32; 4], Nf)> {
    let name = buf_format_name(fmt).filter(|n| *n != "INVALID")?;
    let parts: Vec<&str> = name.split('_').collect();
    let (nf, widths) = parts.split_last()?;
    let mut w = [0u32; 4];
    for (c, x) in widths.iter().rev().enumerate() {
        w[c] = x.parse().ok()?;
    }
    let nf = match *nf {
        "UNORM" => Nf::Unorm,
        "SNORM" => Nf::Snorm,
        "USCALED" => Nf::Uscaled,
        "SSCALED" => Nf::Sscaled,
        "UINT" => Nf::Uint,
        "SINT" => Nf::Sint,
        "FLOAT" => Nf::Float,
        _ => return None,
    };
    Some((w, nf))
}

/// One typed instruction of a kernel: first VGPR, components, d16, d16_hi, which V#, MTBUF format.
#[derive(Debug, Clone, Copy)]
struct Form {
    reg: usize,
    n: u32,
    d16: bool,
    hi: bool,
    vs: usize,
    fixed: Option<u32>,
}

const fn f(reg: usize, n: u32, d16: bool, hi: bool, vs: usize, fixed: Option<u32>) -> Form {
    Form {
        reg,
        n,
        d16,
        hi,
        vs,
        fixed,
    }
}

const MUBUF_LOAD_FORMS: [Form; 9] = [
    f(10, 1, false, false, 0, None),
    f(11, 2, false, false, 0, None),
    f(13, 3, false, false, 0, None),
    f(16, 4, false, false, 0, None),
    f(20, 1, true, false, 1, None),
    f(21, 2, true, false, 1, None),
    f(22, 3, true, false, 1, None),
    f(24, 4, true, false, 1, None),
    f(26, 1, true, true, 1, None),
];
const MUBUF_STORE_FORMS: [Form; 9] = [
    f(10, 1, false, false, 0, None),
    f(11, 2, false, false, 1, None),
    f(13, 3, false, false, 2, None),
    f(16, 4, false, false, 3, None),
    f(20, 1, true, false, 4, None),
    f(21, 2, true, false, 5, None),
    f(22, 3, true, false, 6, None),
    f(24, 4, true, false, 7, None),
    f(26, 1, true, true, 8, None),
];
// BUF_FMT_8_SNORM 16_16_UNORM 10_11_11_FLOAT 2_10_10_10_SNORM 16_FLOAT 8_8_SSCALED 11_11_10_FLOAT
// 16_16_16_16_SINT (see the kernel listing).
const MTBUF_LOAD_FORMS: [Form; 8] = [
    f(10, 1, false, false, 0, Some(2)),
    f(11, 2, false, false, 0, Some(23)),
    f(13, 3, false, false, 0, Some(36)),
    f(16, 4, false, false, 0, Some(51)),
    f(20, 1, true, false, 1, Some(13)),
    f(21, 2, true, false, 1, Some(17)),
    f(22, 3, true, false, 1, Some(43)),
    f(24, 4, true, false, 1, Some(70)),
];
// BUF_FMT_32_FLOAT 16_16_UINT 10_11_11_SINT 8_8_8_8_SINT 16_SINT 16_16_FLOAT 10_11_11_UINT 10_10_10_2_UINT.
const MTBUF_STORE_FORMS: [Form; 8] = [
    f(10, 1, false, false, 0, Some(22)),
    f(11, 2, false, false, 1, Some(27)),
    f(13, 3, false, false, 2, Some(35)),
    f(16, 4, false, false, 3, Some(61)),
    f(20, 1, true, false, 4, Some(12)),
    f(21, 2, true, false, 5, Some(29)),
    f(22, 3, true, false, 6, Some(34)),
    f(24, 4, true, false, 7, Some(48)),
];

/// Whether D097 models the form with this format (the rule under test, written from the decision).
fn modelled(fm: &Form, fmt: u32, store: bool) -> bool {
    let Some((w, nf)) = fmt_of(fmt) else {
        return false;
    };
    let wmax = *w.iter().max().unwrap();
    let nchan = w.iter().filter(|&&x| x > 0).count() as u32;
    match (store, fm.d16) {
        (false, false) => true,
        (false, true) => match nf {
            Nf::Uint | Nf::Sint => wmax <= 16,
            Nf::Uscaled => wmax <= 11,
            Nf::Sscaled => wmax <= 12,
            Nf::Float => wmax <= 16,
            Nf::Unorm | Nf::Snorm => false,
        },
        (true, d16) => {
            fm.n >= nchan
                && match nf {
                    Nf::Uint | Nf::Sint => !d16 || wmax <= 16,
                    Nf::Float => (d16 && wmax == 16) || (!d16 && wmax == 32),
                    _ => false,
                }
        }
    }
}

/// A V# (linear, no ADD_TID) and its format fields.
#[derive(Debug, Clone, Copy)]
struct V {
    off: u64,
    stride: u32,
    nr: u32,
    oob: u32,
    fmt: u32,
    sel: [u32; 4],
}

impl V {
    fn words(&self, base: u64) -> [u32; 4] {
        let b = base + self.off;
        [
            b as u32,
            (b >> 32) as u32 & 0xffff | self.stride << 16,
            self.nr,
            self.sel[0]
                | self.sel[1] << 3
                | self.sel[2] << 6
                | self.sel[3] << 9
                | self.fmt << 12
                | 1 << 24
                | self.oob << 28,
        ]
    }
    /// The element's byte offset from the V#'s base and whether it is in range (every dword it touches).
    fn locate(&self, soff: u32, index: u32, offset: u32, size: u32) -> (u64, bool) {
        let ok = (0..size.div_ceil(4)).all(|j| match self.oob {
            1 => index < self.nr,
            _ => offset + 4 * j < self.nr,
        });
        (
            self.off + soff as u64 + index as u64 * self.stride as u64 + offset as u64,
            ok,
        )
    }
}

fn biased32(r: &mut Rng) -> u32 {
    const SPECIAL: [u32; 20] = [
        0,
        1,
        0x7f,
        0x80,
        0xff,
        0x7fff,
        0x8000,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0x8000_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x0080_0000,
        0x007f_ffff,
    ];
    if r.below(3) == 0 {
        SPECIAL[r.below(20) as usize]
    } else {
        r.next() as u32
    }
}

fn biased16(r: &mut Rng) -> u32 {
    const SPECIAL: [u32; 12] = [
        0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x0001, 0x03ff, 0x3c00, 0xbc00, 0x7bff, 0xffff,
    ];
    if r.below(3) == 0 {
        SPECIAL[r.below(12) as usize]
    } else {
        r.next() as u32 & 0xffff
    }
}

fn sext(x: u32, w: u32) -> i32 {
    ((x << (32 - w)) as i32) >> (32 - w)
}

/// A value of `w`-bit channel of format `nf` that a store models (in range), as the register holds it.
fn in_range(r: &mut Rng, w: u32, nf: Nf, d16: bool) -> u32 {
    if w == 32 {
        return biased32(r);
    }
    if nf == Nf::Float {
        return biased16(r); // a 16-bit float (d16)
    }
    let v = match (nf, r.below(4)) {
        (Nf::Uint, 0) => 0,
        (Nf::Uint, 1) => (1u32 << w) - 1,
        (Nf::Uint, _) => r.next() as u32 & ((1u32 << w) - 1),
        (_, 0) => (-(1i32 << (w - 1))) as u32,
        (_, 1) => ((1i32 << (w - 1)) - 1) as u32,
        (_, _) => sext(r.next() as u32, w) as u32,
    };
    if d16 {
        v & 0xffff
    } else {
        v
    }
}

/// A small float (5 exponent bits, bias 15, `mb` mantissa bits, a sign only when 16 bits wide) as f32
/// bits, from the definition; NaNs come back quiet with their payload.
fn small_float(x: u32, w: u32) -> u32 {
    let mb = match w {
        16 => 10,
        11 => 6,
        _ => 5,
    };
    let sign = if w == 16 { (x >> 15) & 1 } else { 0 };
    let e = (x >> mb) & 31;
    let m = x & ((1 << mb) - 1);
    let s = sign << 31;
    if e == 31 {
        return if m == 0 {
            s | 0x7f80_0000
        } else {
            s | 0x7fc0_0000 | m << (23 - mb)
        };
    }
    let v = if e == 0 {
        m as f64 * 2f64.powi(-14 - mb)
    } else {
        (1.0 + m as f64 / (1u32 << mb) as f64) * 2f64.powi(e as i32 - 15)
    };
    s | (v as f32).to_bits()
}

/// An integer of magnitude <= 2048 as f16 bits (exact), from the definition.
fn int_to_f16(v: i32) -> u32 {
    if v == 0 {
        return 0;
    }
    let s = if v < 0 { 0x8000 } else { 0 };
    let a = v.unsigned_abs();
    let e = 31 - a.leading_zeros(); // a = 1.m * 2^e
    let m = (a << (10 - e)) & 0x3ff;
    s | (e + 15) << 10 | m
}

/// One channel's loaded value (32-bit or d16 result).
fn convert(raw: u32, w: u32, nf: Nf, d16: bool) -> u32 {
    let sx = sext(raw, w);
    if d16 {
        return match nf {
            Nf::Uint => raw & 0xffff,
            Nf::Sint => sx as u32 & 0xffff,
            Nf::Uscaled => int_to_f16(raw as i32),
            Nf::Sscaled => int_to_f16(sx),
            // The f16 with the same value: the same exponent field, the mantissa widened with zeros.
            Nf::Float => {
                let sh = match w {
                    11 => 4,
                    10 => 5,
                    _ => 0,
                };
                (raw << sh) & 0xffff
            }
            _ => unreachable!("refused"),
        };
    }
    match nf {
        Nf::Unorm => ((raw as f64) / (((1u64 << w) - 1) as f64)) as f32,
        Nf::Snorm => ((sx as f64) / (((1u64 << (w - 1)) - 1) as f64)).max(-1.0) as f32,
        Nf::Uscaled => raw as f32,
        Nf::Sscaled => sx as f32,
        Nf::Uint => return raw,
        Nf::Sint => return sx as u32,
        Nf::Float if w == 32 => return raw,
        Nf::Float => return small_float(raw, w),
    }
    .to_bits()
}

/// The format a form uses in a group.
fn fmt_in(fm: &Form, g: &[V]) -> u32 {
    fm.fixed.unwrap_or(g[fm.vs].fmt)
}

/// Loads: the registers of one work-item after the kernel (`v` = its 20 parameter dwords, changed in place).
fn model_loads(forms: &[Form], g: &[V], soff: u32, data: &[u8], v: &mut [u32]) -> usize {
    let mut in_range = 0;
    let (index, offset) = (v[0], v[1]);
    for fm in forms {
        let vs = &g[fm.vs];
        let (w, nf) = fmt_of(fmt_in(fm, g)).expect("modelled");
        let size = w.iter().sum::<u32>() / 8;
        let (at, ok) = vs.locate(soff, index, offset, size);
        let mut bits = [0u32; 4];
        in_range += ok as usize;
        if ok {
            for k in 0..size as usize {
                bits[k / 4] |= (data[at as usize + k] as u32) << (8 * (k % 4));
            }
        }
        let int = matches!(nf, Nf::Uint | Nf::Sint);
        let one = match (int, fm.d16) {
            (true, _) => 1,
            (false, true) => 0x3c00,
            (false, false) => 0x3f80_0000,
        };
        let mut s = 0;
        let mut ch = [0, 0, 0, one];
        for c in 0..4 {
            if w[c] > 0 {
                let raw = if w[c] == 32 {
                    bits[(s / 32) as usize]
                } else {
                    (bits[(s / 32) as usize] >> (s % 32)) & ((1 << w[c]) - 1)
                };
                ch[c] = convert(raw, w[c], nf, fm.d16);
            }
            s += w[c];
        }
        let comps: Vec<u32> = (0..fm.n as usize)
            .map(|i| match vs.sel[i] {
                0 => 0,
                1 => one,
                x => ch[(x - 4) as usize],
            })
            .collect();
        let r = fm.reg - 8;
        if !fm.d16 {
            v[r..r + fm.n as usize].copy_from_slice(&comps);
            continue;
        }
        for (k, pair) in comps.chunks(2).enumerate() {
            let old = v[r + k];
            v[r + k] = match (pair.len(), fm.hi) {
                (2, _) => (pair[0] & 0xffff) | pair[1] << 16,
                (_, false) => (old & 0xffff_0000) | (pair[0] & 0xffff),
                (_, true) => (old & 0xffff) | pair[0] << 16,
            };
        }
    }
    in_range
}

/// Stores: applies one work-item's typed store `fm` to its group's region (`region_base` = the byte
/// offset of the region's V# base 0), dword by dword as the evaluator orders them (the caller iterates
/// instructions, then dwords, then lanes).
fn store_elem(fm: &Form, g: &[V], soff: u32, v: &[u32]) -> Option<(u64, Vec<u8>)> {
    let vs = &g[fm.vs];
    let (w, nf) = fmt_of(fmt_in(fm, g)).expect("modelled");
    let size = w.iter().sum::<u32>() / 8;
    let (at, ok) = vs.locate(soff, v[0], v[1], size);
    if !ok {
        return None;
    }
    let r = fm.reg - 8;
    let comp = |i: usize| -> u32 {
        if !fm.d16 {
            return v[r + i];
        }
        let h = if i % 2 == 1 || fm.hi {
            v[r + i / 2] >> 16
        } else {
            v[r + i / 2] & 0xffff
        };
        if nf == Nf::Sint {
            h as u16 as i16 as i32 as u32
        } else {
            h
        }
    };
    let mut bits = [0u32; 4];
    let mut s = 0;
    for (c, &wc) in w.iter().enumerate() {
        if wc > 0 {
            let mask = if wc == 32 { !0 } else { (1 << wc) - 1 };
            bits[(s / 32) as usize] |= (comp(c) & mask) << (s % 32);
        }
        s += wc;
    }
    let bytes: Vec<u8> = bits
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .take(size as usize)
        .collect();
    Some((at, bytes))
}

/// The descriptor table: per group 9 V#s (36 dwords), the soffset, padding to 64 dwords.
fn table(gs: &[(Vec<V>, u32)], base_of: impl Fn(usize) -> u64) -> Vec<u8> {
    let mut t = Vec::new();
    for (gi, (vs, soff)) in gs.iter().enumerate() {
        for v in &vs[..9] {
            t.extend(v.words(base_of(gi)));
        }
        t.push(*soff);
        t.resize(64 * (gi + 1), 0);
    }
    words_le(&t)
}

fn launch_groups(a: &[u64], groups: u32, ws: u32) -> Launch {
    Launch {
        wave_size: ws,
        grid: [groups * ws, 1, 1],
        workgroup: [ws, 1, 1],
        sgprs: vec![
            (0, SgprInit::Const(a[0] as u32)),
            (1, SgprInit::Const((a[0] >> 32) as u32)),
            (2, SgprInit::Const(a[1] as u32)),
            (3, SgprInit::Const((a[1] >> 32) as u32)),
            (14, SgprInit::WorkgroupId(0)),
            (16, SgprInit::Const(a[3] as u32)),
            (17, SgprInit::Const((a[3] >> 32) as u32)),
            (18, SgprInit::Const(ws)),
        ],
        workitem_id_vgprs: 1,
        lds_bytes: 0,
        scratch_bytes: 0,
        max_steps_per_wave: 1000,
        code_base: None,
    }
}

fn random_v(r: &mut Rng, fmt: u32, sel: [u32; 4]) -> V {
    V {
        off: 4 * r.below(8),
        stride: 4 * r.below(17) as u32,
        nr: r.below(48) as u32,
        oob: if r.below(2) == 0 { 1 } else { 3 },
        fmt,
        sel,
    }
}

fn random_sel(r: &mut Rng) -> [u32; 4] {
    const S: [u32; 6] = [0, 1, 4, 5, 6, 7];
    if r.below(3) == 0 {
        [4, 5, 6, 7]
    } else {
        std::array::from_fn(|_| S[r.below(6) as usize])
    }
}

/// Per work-item parameters: index, dword-aligned offset, then biased data.
fn params(r: &mut Rng) -> Vec<u32> {
    let mut p = Vec::new();
    for _ in 0..LANES {
        p.push(r.below(40) as u32);
        p.push(4 * r.below(16) as u32);
        for _ in 2..ITEM_WORDS {
            p.push(biased32(r));
        }
    }
    p
}

fn run_loads(name: &str, kernel: &[u32], forms: &[Form], seed: u64, ws: u32) {
    let groups = LANES / ws;
    let ctx = common::lavapipe().with_timeout(std::time::Duration::from_secs(600));
    let mut r = Rng(seed);
    let p = params(&mut r);
    let mut data: Vec<u8> = Vec::with_capacity(DATA);
    const B: [u8; 8] = [0x00, 0xff, 0x7f, 0x80, 0x7c, 0xfc, 0x3c, 0x01];
    for _ in 0..DATA {
        let b = r.next() as u8;
        data.push(if r.below(3) == 0 {
            B[(b & 7) as usize]
        } else {
            b
        });
    }
    let d16_fmts: Vec<u32> = (1..=77)
        .filter(|&x| modelled(&MUBUF_LOAD_FORMS[4], x, false))
        .collect();
    let gs: Vec<(Vec<V>, u32)> = (0..groups)
        .map(|gi| {
            // Every format at least once for the 32-bit forms; d16 over the formats they model.
            let f0 = 1 + gi % 77;
            let f1 = d16_fmts[r.below(d16_fmts.len() as u64) as usize];
            let s0 = random_sel(&mut r);
            let s1 = random_sel(&mut r);
            let mut vs = vec![random_v(&mut r, f0, s0), random_v(&mut r, f1, s1)];
            while vs.len() < 9 {
                vs.push(vs[0]);
            }
            (vs, r.below(64) as u32)
        })
        .collect();
    let program = lift_words(name, kernel, ws);
    let out0 = vec![0xeeu8; p.len() * 4];
    let both = run_both(
        &ctx,
        &program,
        vec![words_le(&p), out0, data.clone()],
        |a| vec![table(&gs, |_| a[2])],
        |a| launch_groups(a, groups, ws),
    );
    let mut want = Vec::new();
    let mut in_range = 0;
    for (gi, (vs, soff)) in gs.iter().enumerate() {
        for lane in 0..ws as usize {
            let item = gi * ws as usize + lane;
            let mut v = p[item * ITEM_WORDS..][..ITEM_WORDS].to_vec();
            in_range += model_loads(forms, vs, *soff, &data, &mut v);
            want.extend(v);
        }
    }
    expect_same(name, &both.host[1], &both.device[1], &words_le(&want));
    // The data really went through conversions: not every loaded register kept its preset.
    let got = le_words(&both.host[1]);
    let changed = (0..got.len()).filter(|&i| got[i] != p[i]).count();
    assert!(
        changed > got.len() / 4,
        "{name}: only {changed} registers changed"
    );
    let total = forms.len() * LANES as usize;
    eprintln!(
        "{name}: {total} accesses, {in_range} elements in range, {changed} registers changed"
    );
    assert!(
        in_range > total / 3 && in_range < total,
        "{name}: {in_range} of {total} in range"
    );
}

fn run_stores(name: &str, kernel: &[u32], forms: &[Form], seed: u64, ws: u32) {
    let groups = LANES / ws;
    let ctx = common::lavapipe().with_timeout(std::time::Duration::from_secs(600));
    let mut r = Rng(seed);
    let mut p = params(&mut r);
    let gs: Vec<(Vec<V>, u32)> = (0..groups)
        .map(|_| {
            let vs: Vec<V> = (0..9)
                .map(|k| {
                    let fmt = match forms.get(k) {
                        Some(fm) if fm.fixed.is_none() => {
                            let ok: Vec<u32> =
                                (1..=77).filter(|&x| modelled(fm, x, true)).collect();
                            ok[r.below(ok.len() as u64) as usize]
                        }
                        _ => 1 + r.below(77) as u32,
                    };
                    random_v(&mut r, fmt, [4, 5, 6, 7])
                })
                .collect();
            (vs, r.below(64) as u32)
        })
        .collect();
    // Data each store models: in range for its channel.
    for (gi, (vs, _)) in gs.iter().enumerate() {
        for lane in 0..ws as usize {
            let v = &mut p[(gi * ws as usize + lane) * ITEM_WORDS..][..ITEM_WORDS];
            for fm in forms {
                let (w, nf) = fmt_of(fmt_in(fm, vs)).unwrap();
                for c in 0..fm.n as usize {
                    if w[c] == 0 {
                        continue;
                    }
                    let x = in_range(&mut r, w[c], nf, fm.d16);
                    let reg = fm.reg - 8;
                    if !fm.d16 {
                        v[reg + c] = x;
                    } else if c % 2 == 1 || fm.hi {
                        v[reg + c / 2] = (v[reg + c / 2] & 0xffff) | x << 16;
                    } else {
                        v[reg + c / 2] = (v[reg + c / 2] & 0xffff_0000) | (x & 0xffff);
                    }
                }
            }
        }
    }
    let target = r.bytes(REGION * groups as usize);
    let program = lift_words(name, kernel, ws);
    let out0 = vec![0xeeu8; p.len() * 4];
    let both = run_both(
        &ctx,
        &program,
        vec![words_le(&p), out0, target.clone()],
        |a| vec![table(&gs, |gi| a[2] + (gi * REGION) as u64)],
        |a| launch_groups(a, groups, ws),
    );
    let mut want = target;
    let mut written = 0usize;
    for (gi, (vs, soff)) in gs.iter().enumerate() {
        for fm in forms {
            let elems: Vec<Option<(u64, Vec<u8>)>> = (0..ws as usize)
                .map(|lane| {
                    let v = &p[(gi * ws as usize + lane) * ITEM_WORDS..][..ITEM_WORDS];
                    store_elem(fm, vs, *soff, v)
                })
                .collect();
            // Dword by dword, lanes ascending (a 1- or 2-byte element is one access).
            for j in 0..4 {
                for (at, bytes) in elems.iter().flatten() {
                    if 4 * j < bytes.len() {
                        let o = gi * REGION + *at as usize + 4 * j;
                        let n = (bytes.len() - 4 * j).min(4);
                        want[o..o + n].copy_from_slice(&bytes[4 * j..4 * j + n]);
                        written += (j == 0) as usize;
                    }
                }
            }
        }
    }
    expect_same(name, &both.host[2], &both.device[2], &want);
    // The registers are unchanged by stores.
    expect_same(name, &both.host[1], &both.device[1], &words_le(&p));
    let total = forms.len() * LANES as usize;
    eprintln!("{name}: {total} accesses, {written} elements in range");
    assert!(
        written > total / 3 && written < total,
        "{name}: {written} of {total} in range"
    );
}

#[test]
fn typed_mubuf_loads_match_model() {
    run_loads(
        "typed_mubuf_loads",
        MUBUF_LOADS,
        &MUBUF_LOAD_FORMS,
        0x7e57_0001,
        WS,
    );
}

#[test]
fn typed_mubuf_stores_match_model() {
    run_stores(
        "typed_mubuf_stores",
        MUBUF_STORES,
        &MUBUF_STORE_FORMS,
        0x7e57_0002,
        WS,
    );
}

#[test]
fn typed_mtbuf_loads_match_model() {
    run_loads(
        "typed_mtbuf_loads",
        MTBUF_LOADS,
        &MTBUF_LOAD_FORMS,
        0x7e57_0003,
        WS,
    );
}

#[test]
fn typed_mtbuf_stores_match_model() {
    run_stores(
        "typed_mtbuf_stores",
        MTBUF_STORES,
        &MTBUF_STORE_FORMS,
        0x7e57_0004,
        WS,
    );
}

/// A store whose value the format does not hold (300 into an 8_UINT channel) and a load through a V# with
/// an invalid format are refused at run time: the evaluator stops naming the instruction, the lane and the
/// reason; the device run fails with the refused flag instead of writing a guess.
#[test]
fn typed_runtime_refusals_stop_the_run() {
    use rdna2spv_spirv::lower::{LowerOptions, Unaligned};
    use rdna2spv_spirv::DeviceProfile;
    let ctx = common::lavapipe().with_timeout(std::time::Duration::from_secs(600));
    let u32x = |fmt| V {
        off: 0,
        stride: 16,
        nr: 32,
        oob: 1,
        fmt,
        sel: [4, 5, 6, 7],
    };
    for (name, kernel, fmt0, want) in [
        (
            "refused_store",
            MUBUF_STORES,
            5,
            "outside the range of its UINT/SINT channel",
        ),
        (
            "refused_unorm_store",
            MUBUF_STORES,
            1,
            "a store that rounds or clamps",
        ),
        (
            "refused_load",
            MUBUF_LOADS,
            0,
            "the buffer format is invalid",
        ),
    ] {
        let mut vs = vec![u32x(20); 9];
        vs[0].fmt = fmt0;
        // The first V#'s elements lie in the upper half of the region, the others' below 1 KiB.
        vs[0].off = 2048;
        vs[1].fmt = 11; // 16_UINT: d16 loads model it
        let mut p: Vec<u32> = (0..WS)
            .flat_map(|l| {
                let mut v = vec![l, 0];
                v.extend(std::iter::repeat_n(7, ITEM_WORDS - 2));
                v
            })
            .collect();
        p[5 * ITEM_WORDS + 2] = 300; // lane 5's v10
        let program = lift_words(name, kernel, WS);
        let bufs: Vec<Vec<u8>> = vec![words_le(&p), vec![0; p.len() * 4], vec![0; REGION]];
        let gpu: Vec<_> = bufs
            .iter()
            .map(|b| ctx.buffer_from_bytes(b).expect("buffer"))
            .collect();
        let mut a: Vec<u64> = gpu.iter().map(|b| b.device_address()).collect();
        let t = table(&[(vs, 0)], |_| a[2]);
        let tb = ctx.buffer_from_bytes(&t).expect("buffer");
        a.push(tb.device_address());
        let l = launch_groups(&a, 1, WS);
        let mut mem = rdna2spv_eval::Memory::default();
        for (i, b) in bufs.iter().chain([&t]).enumerate() {
            mem.add(&format!("buf{i}"), a[i], b.clone()).unwrap();
        }
        let e = rdna2spv_eval::run(&program, &l, &mut mem)
            .expect_err("the host refuses")
            .to_string();
        assert!(
            e.contains("unsupported at run time") && e.contains(want),
            "{name}: {e}"
        );
        if name == "refused_store" {
            assert!(e.contains("lane 5"), "{name}: {e}");
        }
        let opts = rdna2spv_vulkan::RunOptions {
            lower: LowerOptions {
                unaligned: Unaligned::Emulate,
                ..Default::default()
            },
            allocations: &[],
        };
        let d = rdna2spv_vulkan::run_program(&ctx, &program, &l, &DeviceProfile::portable(), &opts)
            .expect_err("the device run fails")
            .to_string();
        assert!(d.contains("refuses at run time"), "{name}: {d}");
        // A refused store writes nothing: lane 5's element (an out-of-range value), or every lane's (a
        // format whose stores are refused); the other lanes of the range case store their 7.
        let region = gpu[2].download_all().expect("download");
        if name == "refused_store" {
            assert_eq!(region[2048 + 5 * 16], 0, "{name}: the refused lane wrote");
            assert_eq!(region[2048 + 4 * 16], 7, "{name}: lane 4 did not write");
        } else {
            assert!(
                region[2048..].iter().all(|&b| b == 0),
                "{name}: a refused store wrote"
            );
        }
    }
}

/// The run-time path (format from the V#) with wave64: 64 workgroups of 64 lanes.
#[test]
fn typed_mubuf_wave64_match_model() {
    run_loads(
        "typed_mubuf_loads_w64",
        MUBUF_LOADS,
        &MUBUF_LOAD_FORMS,
        0x7e57_0005,
        64,
    );
    run_stores(
        "typed_mubuf_stores_w64",
        MUBUF_STORES,
        &MUBUF_STORE_FORMS,
        0x7e57_0006,
        64,
    );
}
