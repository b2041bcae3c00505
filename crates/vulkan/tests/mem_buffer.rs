//! MUBUF through general buffer resources (V#, decision D030) on lavapipe and in the evaluator, against an
//! independent Rust model of buffer addressing and range checking written from the RDNA 2 ISA guide.
//!
//! The kernel (assembled by llvm-mc-19, words below) loads per-lane parameters, then runs every MUBUF load
//! and store width (bytes, shorts, dwords x1..x4, d16 and d16_hi forms; idxen+offen, idxen, offen and
//! neither) through two V#s whose every field is random per case: base, stride, swizzle with each index
//! stride, ADD_TID_ENABLE, NUM_RECORDS and each OOB_SELECT, plus a random soffset. Indices and offsets are
//! random per lane, unaligned included, so every case mixes in-range and out-of-range components. The
//! loaded values and the whole store target buffer must be identical on the host and the device, and equal
//! to the model's. Colliding stores follow the order the evaluator defines (instruction, then dword
//! component, then ascending lane), which the model applies too.

mod common;
mod memcommon;

use memcommon::{expect_same, lift_words, run_both, words_le, Rng};
use rdna2spv_eval::{Launch, SgprInit};

// coverage: buffer_vsharp_atomics_match_model: BUFFER_ATOMIC_CMPSWAP BUFFER_ATOMIC_SWAP BUFFER_ATOMIC_ADD BUFFER_ATOMIC_SUB BUFFER_ATOMIC_SMIN BUFFER_ATOMIC_UMIN BUFFER_ATOMIC_SMAX BUFFER_ATOMIC_UMAX BUFFER_ATOMIC_AND BUFFER_ATOMIC_OR BUFFER_ATOMIC_XOR
// coverage: buffer_vsharp_loads_and_stores_match_model: BUFFER_LOAD_UBYTE BUFFER_LOAD_SBYTE BUFFER_LOAD_USHORT BUFFER_LOAD_SSHORT BUFFER_LOAD_DWORD BUFFER_LOAD_DWORDX2 BUFFER_LOAD_DWORDX3 BUFFER_LOAD_DWORDX4 BUFFER_LOAD_UBYTE_D16 BUFFER_LOAD_UBYTE_D16_HI BUFFER_LOAD_SBYTE_D16 BUFFER_LOAD_SBYTE_D16_HI BUFFER_LOAD_SHORT_D16 BUFFER_LOAD_SHORT_D16_HI BUFFER_STORE_BYTE BUFFER_STORE_SHORT BUFFER_STORE_DWORD BUFFER_STORE_DWORDX2 BUFFER_STORE_DWORDX3 BUFFER_STORE_DWORDX4 BUFFER_STORE_BYTE_D16_HI BUFFER_STORE_SHORT_D16_HI

/// Two kernels (loads; stores), each a module small enough for lavapipe to compile quickly. Each
/// workgroup (one wave) loads its two V#s and soffsets with s_load from the descriptor table at
/// s[16:17] (16 dwords per workgroup: load V#, store V#, load soffset, store soffset), as RADV shaders load
/// theirs. s[0:1] parameters (8 dwords per work-item: index, offset, data0..3, d16 seed, unused), s[2:3]
/// output (24 dwords per work-item: v10..v33), s14 workgroup id, s18 wave size.
const LOAD_KERNEL: &[u32] = &[
    0x8f0f860e, // s_lshl_b32 s15, s14, 6
    0xf40c0108, 0x1e000000, // s_load_dwordx8 s[4:11], s[16:17], s15
    0xf4040308, 0x1e000020, // s_load_dwordx2 s[12:13], s[16:17], s15 offset:0x20
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x34285285, // v_lshlrev_b32_e32 v20, 5, v41
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc388000, 0x01000014, // global_load_dwordx4 v[1:4], v20, s[0:1]
    0xdc388010, 0x05000014, // global_load_dwordx4 v[5:8], v20, s[0:1] offset:16
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0x7e320307, // v_mov_b32_e32 v25, v7
    0x7e340307, // v_mov_b32_e32 v26, v7
    0x7e360307, // v_mov_b32_e32 v27, v7
    0x7e380307, // v_mov_b32_e32 v28, v7
    0x7e3a0307, // v_mov_b32_e32 v29, v7
    0x7e3c0307, // v_mov_b32_e32 v30, v7
    0xe0203000, 0x0c010a01, // buffer_load_ubyte v10, v[1:2], s[4:7], s12 idxen offen
    0xe0243001, 0x0c010b01, // buffer_load_sbyte v11, v[1:2], s[4:7], s12 idxen offen offset:1
    0xe0283002,
    0x0c010c01, // buffer_load_ushort v12, v[1:2], s[4:7], s12 idxen offen offset:2
    0xe02c3006,
    0x0c010d01, // buffer_load_sshort v13, v[1:2], s[4:7], s12 idxen offen offset:6
    0xe0307008,
    0x0c010e01, // buffer_load_dword v14, v[1:2], s[4:7], s12 idxen offen offset:8 glc
    0xe034300c,
    0x0c410f01, // buffer_load_dwordx2 v[15:16], v[1:2], s[4:7], s12 idxen offen offset:12 slc
    0xe03cb014,
    0x0c011101, // buffer_load_dwordx3 v[17:19], v[1:2], s[4:7], s12 idxen offen offset:20 dlc
    0xe0383020,
    0x0c011501, // buffer_load_dwordx4 v[21:24], v[1:2], s[4:7], s12 idxen offen offset:32
    0xe0803005,
    0x0c011901, // buffer_load_ubyte_d16 v25, v[1:2], s[4:7], s12 idxen offen offset:5
    0xe0843007,
    0x0c011a01, // buffer_load_ubyte_d16_hi v26, v[1:2], s[4:7], s12 idxen offen offset:7
    0xe0883009,
    0x0c011b01, // buffer_load_sbyte_d16 v27, v[1:2], s[4:7], s12 idxen offen offset:9
    0xe08c300b,
    0x0c011c01, // buffer_load_sbyte_d16_hi v28, v[1:2], s[4:7], s12 idxen offen offset:11
    0xe090300e,
    0x0c011d01, // buffer_load_short_d16 v29, v[1:2], s[4:7], s12 idxen offen offset:14
    0xe0943012,
    0x0c011e01, // buffer_load_short_d16_hi v30, v[1:2], s[4:7], s12 idxen offen offset:18
    0xe0302004, 0x0c011f01, // buffer_load_dword v31, v1, s[4:7], s12 idxen offset:4
    0xe0301000, 0x0c012002, // buffer_load_dword v32, v2, s[4:7], s12 offen
    0xe0300010, 0x0c012100, // buffer_load_dword v33, off, s[4:7], s12 offset:16
    0x34505286, // v_lshlrev_b32_e32 v40, 6, v41
    0x4a502928, // v_add_nc_u32_e32 v40, v40, v20
    0xdc788000, 0x00020a28, // global_store_dwordx4 v40, v[10:13], s[2:3]
    0xdc788010, 0x00020e28, // global_store_dwordx4 v40, v[14:17], s[2:3] offset:16
    0xdc788020, 0x00021228, // global_store_dwordx4 v40, v[18:21], s[2:3] offset:32
    0xdc788030, 0x00021628, // global_store_dwordx4 v40, v[22:25], s[2:3] offset:48
    0xdc788040, 0x00021a28, // global_store_dwordx4 v40, v[26:29], s[2:3] offset:64
    0xdc788050, 0x00021e28, // global_store_dwordx4 v40, v[30:33], s[2:3] offset:80
    0xbf810000, // s_endpgm
];

/// The same prologue, then the stores.
const STORE_KERNEL: &[u32] = &[
    0x8f0f860e, // s_lshl_b32 s15, s14, 6
    0xf40c0108, 0x1e000000, // s_load_dwordx8 s[4:11], s[16:17], s15
    0xf4040308, 0x1e000020, // s_load_dwordx2 s[12:13], s[16:17], s15 offset:0x20
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x34285285, // v_lshlrev_b32_e32 v20, 5, v41
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc388000, 0x01000014, // global_load_dwordx4 v[1:4], v20, s[0:1]
    0xdc388010, 0x05000014, // global_load_dwordx4 v[5:8], v20, s[0:1] offset:16
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xe0603000, 0x0d020301, // buffer_store_byte v3, v[1:2], s[8:11], s13 idxen offen
    0xe0683002,
    0x0d020401, // buffer_store_short v4, v[1:2], s[8:11], s13 idxen offen offset:2
    0xe0707004,
    0x0d420501, // buffer_store_dword v5, v[1:2], s[8:11], s13 idxen offen offset:4 glc slc
    0xe0743008,
    0x0d020301, // buffer_store_dwordx2 v[3:4], v[1:2], s[8:11], s13 idxen offen offset:8
    0xe07c3010,
    0x0d020301, // buffer_store_dwordx3 v[3:5], v[1:2], s[8:11], s13 idxen offen offset:16
    0xe078301c,
    0x0d020301, // buffer_store_dwordx4 v[3:6], v[1:2], s[8:11], s13 idxen offen offset:28
    0xe064302c,
    0x0d020601, // buffer_store_byte_d16_hi v6, v[1:2], s[8:11], s13 idxen offen offset:44
    0xe06c302e,
    0x0d020501, // buffer_store_short_d16_hi v5, v[1:2], s[8:11], s13 idxen offen offset:46
    0xe0701040, 0x0d020402, // buffer_store_dword v4, v2, s[8:11], s13 offen offset:64
    0xe0700048, 0x0d020300, // buffer_store_dword v3, off, s[8:11], s13 offset:72
    0xbf810000, // s_endpgm
];

const OUT_WORDS: usize = 24;
const BUF: usize = 32 * 1024;

/// A V# as the ISA guide lays it out (gfx10.3).
#[derive(Debug, Clone, Copy)]
struct Vsharp {
    base: u64,
    stride: u32,
    swizzle: bool,
    num_records: u32,
    /// INDEX_STRIDE field: 8 << it elements.
    index_stride: u32,
    add_tid: bool,
    oob_select: u32,
}

impl Vsharp {
    fn words(&self) -> [u32; 4] {
        [
            self.base as u32,
            (self.base >> 32) as u32 & 0xffff | self.stride << 16 | (self.swizzle as u32) << 31,
            self.num_records,
            // DST_SEL_XYZW = XYZW, FORMAT 32_UINT (20), RESOURCE_LEVEL 1, TYPE 0 (buffer): what RADV writes;
            // none of these change a non-format access.
            4 | 5 << 3
                | 6 << 6
                | 7 << 9
                | 20 << 12
                | self.index_stride << 21
                | (self.add_tid as u32) << 23
                | 1 << 24
                | self.oob_select << 28,
        ]
    }

    fn random(r: &mut Rng, base: u64) -> Vsharp {
        let oob_select = r.below(4) as u32;
        let swizzle = r.below(3) == 0;
        let stride = if r.below(4) == 0 {
            0
        } else {
            r.below(64) as u32
        };
        let num_records = match oob_select {
            // Bytes for a raw buffer, a swizzled offset bound otherwise.
            3 => r.below(if swizzle { 3000 } else { 300 }) as u32,
            2 => [0, 1, 77][r.below(3) as usize],
            _ => r.below(60) as u32,
        };
        Vsharp {
            base: base + r.below(64),
            stride,
            swizzle,
            num_records,
            index_stride: r.below(4) as u32,
            add_tid: r.below(3) == 0,
            oob_select,
        }
    }

    /// The byte address and whether it is in range, for one dword component of a lane's access (ISA guide:
    /// buffer addressing and range checking; the soffset takes no part in the check).
    fn locate(
        &self,
        soffset: u32,
        lane: u32,
        index: Option<u32>,
        offset: Option<u32>,
        inst: u32,
    ) -> (u64, bool) {
        let index = index
            .unwrap_or(0)
            .wrapping_add(if self.add_tid { lane } else { 0 });
        let offset = offset.unwrap_or(0).wrapping_add(inst);
        let stride = self.stride as u64;
        let buffer_offset = if self.swizzle {
            let is = 8u64 << self.index_stride;
            let (imsb, ilsb) = (index as u64 / is, index as u64 % is);
            let (omsb, olsb) = (offset as u64 / 4, offset as u64 % 4);
            (imsb * stride + omsb * 4) * is + ilsb * 4 + olsb
        } else {
            index as u64 * stride + offset as u64
        };
        let nr = self.num_records;
        let in_range = match self.oob_select {
            0 => index < nr && (offset as u64) < stride,
            1 => index < nr,
            2 => nr != 0,
            _ => {
                if self.swizzle {
                    buffer_offset < nr as u64
                } else {
                    offset < nr
                }
            }
        };
        (self.base + soffset as u64 + buffer_offset, in_range)
    }
}

#[derive(Clone, Copy)]
enum Kind {
    U8,
    I8,
    U16,
    I16,
    Dwords(u32),
    /// d16 load: (signed byte?, bytes, high half?)
    D16(bool, u32, bool),
}

/// The kernel's loads: destination VGPR, inst_offset, kind, idxen, offen.
const LOADS: &[(usize, u32, Kind, bool, bool)] = &[
    (10, 0, Kind::U8, true, true),
    (11, 1, Kind::I8, true, true),
    (12, 2, Kind::U16, true, true),
    (13, 6, Kind::I16, true, true),
    (14, 8, Kind::Dwords(1), true, true),
    (15, 12, Kind::Dwords(2), true, true),
    (17, 20, Kind::Dwords(3), true, true),
    (21, 32, Kind::Dwords(4), true, true),
    (25, 5, Kind::D16(false, 1, false), true, true),
    (26, 7, Kind::D16(false, 1, true), true, true),
    (27, 9, Kind::D16(true, 1, false), true, true),
    (28, 11, Kind::D16(true, 1, true), true, true),
    (29, 14, Kind::D16(false, 2, false), true, true),
    (30, 18, Kind::D16(false, 2, true), true, true),
    (31, 4, Kind::Dwords(1), true, false),
    (32, 0, Kind::Dwords(1), false, true),
    (33, 16, Kind::Dwords(1), false, false),
];

/// The kernel's stores: first data VGPR, dwords, bytes per component, high half?, inst_offset, idxen, offen.
const STORES: &[(usize, u32, u32, bool, u32, bool, bool)] = &[
    (3, 1, 1, false, 0, true, true),
    (4, 1, 2, false, 2, true, true),
    (5, 1, 4, false, 4, true, true),
    (3, 2, 4, false, 8, true, true),
    (3, 3, 4, false, 16, true, true),
    (3, 4, 4, false, 28, true, true),
    (6, 1, 1, true, 44, true, true),
    (5, 1, 2, true, 46, true, true),
    (4, 1, 4, false, 64, false, true),
    (3, 1, 4, false, 72, false, false),
];

/// The same prologue, then the 32-bit buffer atomics through the store V#, each returning (glc) but the
/// last: cmpswap v[10:11] (src v4, cmp v5), swap v12 (v3), add v13 (v4), sub v14 (v5), smin v15 (v6), umin
/// v16 (v3), smax v17 (v4), umax v18 (v5), and v19 (v6), or v21 (v3), xor v22 (v4) at offsets 0, 4, .., 40
/// and a non-returning add of v5 at 44. Output: v10..v22 (24 dwords per work-item).
const ATOMIC_KERNEL: &[u32] = &[
    0x8f0f860e, // s_lshl_b32 s15, s14, 6
    0xf40c0108, 0x1e000000, // s_load_dwordx8 s[4:11], s[16:17], s15
    0xf4040308, 0x1e000020, // s_load_dwordx2 s[12:13], s[16:17], s15 offset:0x20
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x34285285, // v_lshlrev_b32_e32 v20, 5, v41
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc388000, 0x01000014, // global_load_dwordx4 v[1:4], v20, s[0:1]
    0xdc388010, 0x05000014, // global_load_dwordx4 v[5:8], v20, s[0:1] offset:16
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0x7e140304, // v_mov_b32_e32 v10, v4
    0x7e160305, // v_mov_b32_e32 v11, v5
    0x7e180303, // v_mov_b32_e32 v12, v3
    0x7e1a0304, // v_mov_b32_e32 v13, v4
    0x7e1c0305, // v_mov_b32_e32 v14, v5
    0x7e1e0306, // v_mov_b32_e32 v15, v6
    0x7e200303, // v_mov_b32_e32 v16, v3
    0x7e220304, // v_mov_b32_e32 v17, v4
    0x7e240305, // v_mov_b32_e32 v18, v5
    0x7e260306, // v_mov_b32_e32 v19, v6
    0x7e2a0303, // v_mov_b32_e32 v21, v3
    0x7e2c0304, // v_mov_b32_e32 v22, v4
    0xe0c47000,
    0x0d020a01, // buffer_atomic_cmpswap v[10:11], v[1:2], s[8:11], s13 idxen offen glc
    0xe0c07004,
    0x0d020c01, // buffer_atomic_swap v12, v[1:2], s[8:11], s13 idxen offen offset:4 glc
    0xe0c87008,
    0x0d020d01, // buffer_atomic_add v13, v[1:2], s[8:11], s13 idxen offen offset:8 glc
    0xe0cc700c,
    0x0d020e01, // buffer_atomic_sub v14, v[1:2], s[8:11], s13 idxen offen offset:12 glc
    0xe0d47010,
    0x0d020f01, // buffer_atomic_smin v15, v[1:2], s[8:11], s13 idxen offen offset:16 glc
    0xe0d87014,
    0x0d021001, // buffer_atomic_umin v16, v[1:2], s[8:11], s13 idxen offen offset:20 glc
    0xe0dc7018,
    0x0d021101, // buffer_atomic_smax v17, v[1:2], s[8:11], s13 idxen offen offset:24 glc
    0xe0e0701c,
    0x0d021201, // buffer_atomic_umax v18, v[1:2], s[8:11], s13 idxen offen offset:28 glc
    0xe0e47020,
    0x0d021301, // buffer_atomic_and v19, v[1:2], s[8:11], s13 idxen offen offset:32 glc
    0xe0e87024,
    0x0d021501, // buffer_atomic_or v21, v[1:2], s[8:11], s13 idxen offen offset:36 glc
    0xe0ec7028,
    0x0d021601, // buffer_atomic_xor v22, v[1:2], s[8:11], s13 idxen offen offset:40 glc
    0xe0c8302c,
    0x0d020501, // buffer_atomic_add v5, v[1:2], s[8:11], s13 idxen offen offset:44
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0x34505286, // v_lshlrev_b32_e32 v40, 6, v41
    0x4a502928, // v_add_nc_u32_e32 v40, v40, v20
    0xdc788000, 0x00020a28, // global_store_dwordx4 v40, v[10:13], s[2:3]
    0xdc788010, 0x00020e28, // global_store_dwordx4 v40, v[14:17], s[2:3] offset:16
    0xdc788020, 0x00021228, // global_store_dwordx4 v40, v[18:21], s[2:3] offset:32
    0xdc708030, 0x00021628, // global_store_dword v40, v22, s[2:3] offset:48
    0xbf810000, // s_endpgm
];

/// One workgroup's descriptors.
#[derive(Debug, Clone, Copy)]
struct Group {
    vload: Vsharp,
    vstore: Vsharp,
    soff: [u32; 2],
}

/// The expected output and store target of the work-items `lanes` of one workgroup (`first` = its first
/// work-item); `target` is that group's slice.
#[allow(clippy::too_many_arguments)]
fn model(
    g: &Group,
    params: &[u32],
    first: u32,
    lanes: u32,
    data: &[u8],
    data_addr: u64,
    out: &mut [u8],
    target: &mut [u8],
    target_addr: u64,
) {
    let rd = |a: u64, n: u32| -> u64 {
        let o = (a - data_addr) as usize;
        assert!(
            o + n as usize <= data.len(),
            "generator bug: an in-range load leaves the data buffer"
        );
        (0..n as usize)
            .rev()
            .fold(0u64, |acc, k| acc << 8 | data[o + k] as u64)
    };
    for lane in 0..lanes {
        let item = first + lane;
        let p = &params[8 * item as usize..][..8];
        let mut v = [0u32; 34];
        v[20] = item * 32;
        v[25..=30].fill(p[6]);
        for &(reg, inst, kind, idxen, offen) in LOADS {
            let load = |k: u32, n: u32| {
                let (a, ok) = g.vload.locate(
                    g.soff[0],
                    lane,
                    idxen.then_some(p[0]),
                    offen.then_some(p[1]),
                    inst + 4 * k,
                );
                if ok {
                    rd(a, n)
                } else {
                    0
                }
            };
            match kind {
                Kind::U8 => v[reg] = load(0, 1) as u32,
                Kind::I8 => v[reg] = load(0, 1) as u8 as i8 as i32 as u32,
                Kind::U16 => v[reg] = load(0, 2) as u32,
                Kind::I16 => v[reg] = load(0, 2) as u16 as i16 as i32 as u32,
                Kind::Dwords(n) => {
                    for k in 0..n {
                        v[reg + k as usize] = load(k, 4) as u32;
                    }
                }
                Kind::D16(signed, n, hi) => {
                    let x = load(0, n) as u32;
                    let h = if signed {
                        x as u8 as i8 as i16 as u16
                    } else {
                        x as u16
                    };
                    v[reg] = if hi {
                        (h as u32) << 16 | (v[reg] & 0xffff)
                    } else {
                        (v[reg] & 0xffff_0000) | h as u32
                    };
                }
            }
        }
        for j in 0..OUT_WORDS {
            out[(item as usize * OUT_WORDS + j) * 4..][..4]
                .copy_from_slice(&v[10 + j].to_le_bytes());
        }
    }
    for &(reg, n, bytes, hi, inst, idxen, offen) in STORES {
        for k in 0..n {
            for lane in 0..lanes {
                let p = &params[8 * (first + lane) as usize..][..8];
                let data = p[2 + (reg - 3) + k as usize];
                let data = if hi { data >> 16 } else { data };
                let (a, ok) = g.vstore.locate(
                    g.soff[1],
                    lane,
                    idxen.then_some(p[0]),
                    offen.then_some(p[1]),
                    inst + 4 * k,
                );
                if ok {
                    let o = (a - target_addr) as usize;
                    assert!(
                        o + bytes as usize <= BUF,
                        "generator bug: an in-range store leaves the target"
                    );
                    target[o..o + bytes as usize]
                        .copy_from_slice(&data.to_le_bytes()[..bytes as usize]);
                }
            }
        }
    }
}

/// One dispatch: `grid` work-items in workgroups of one wave, each workgroup with its own random V#s.
/// Returns (components in range, out of range) over all work-items and components.
fn dispatch(ctx: &rdna2spv_vulkan::Context, r: &mut Rng, ws: u32, grid: u32) -> [usize; 2] {
    let groups = grid.div_ceil(ws);
    let mut params = Vec::new();
    for _ in 0..groups * ws {
        params.push(r.below(48) as u32); // index
        params.push(r.below(200) as u32); // offset (unaligned included)
        for _ in 0..5 {
            params.push(r.next() as u32);
        }
        params.push(0);
    }
    let data = r.bytes(BUF);
    let target = r.bytes(BUF * groups as usize);
    let mut gs: Vec<Group> = (0..groups)
        .map(|_| Group {
            vload: Vsharp::random(r, 0),
            vstore: Vsharp::random(r, 0),
            soff: [r.below(256) as u32, r.below(256) as u32],
        })
        .collect();
    // What RADV gives a storage buffer: raw, stride 0, no swizzle, no tid, OOB_SELECT 3.
    let raw = |v: Vsharp| Vsharp {
        stride: 0,
        swizzle: false,
        add_tid: false,
        oob_select: 3,
        num_records: 150,
        ..v
    };
    gs[0].vload = raw(gs[0].vload);
    gs[0].vstore = raw(gs[0].vstore);
    // A swizzled, thread-indexed one like the scratch descriptors LLVM and ACO build.
    let last = gs.len() - 1;
    gs[last].vload = Vsharp {
        stride: 0,
        swizzle: true,
        add_tid: true,
        oob_select: 3,
        num_records: 2000,
        index_stride: if ws == 64 { 3 } else { 2 },
        ..gs[last].vload
    };
    let out0 = vec![0xeeu8; (groups * ws) as usize * OUT_WORDS * 4];
    let mut runs = Vec::new();
    for (name, kernel) in [
        ("buffer_vsharp_loads", LOAD_KERNEL),
        ("buffer_vsharp_stores", STORE_KERNEL),
    ] {
        let program = lift_words(name, kernel, ws);
        let gs2 = gs.clone();
        let both = run_both(
            ctx,
            &program,
            vec![
                words_le(&params),
                out0.clone(),
                data.clone(),
                target.clone(),
            ],
            |a| {
                let mut table = Vec::new();
                for (gi, g) in gs2.iter().enumerate() {
                    let vl = Vsharp {
                        base: g.vload.base + a[2],
                        ..g.vload
                    }
                    .words();
                    let vs = Vsharp {
                        base: g.vstore.base + a[3] + (gi * BUF) as u64,
                        ..g.vstore
                    }
                    .words();
                    table.extend(vl);
                    table.extend(vs);
                    table.extend([g.soff[0], g.soff[1], 0, 0, 0, 0, 0, 0]);
                }
                vec![words_le(&table)]
            },
            |a| Launch {
                wave_size: ws,
                grid: [grid, 1, 1],
                workgroup: [ws, 1, 1],
                sgprs: vec![
                    (0, SgprInit::Const(a[0] as u32)),
                    (1, SgprInit::Const((a[0] >> 32) as u32)),
                    (2, SgprInit::Const(a[1] as u32)),
                    (3, SgprInit::Const((a[1] >> 32) as u32)),
                    (14, SgprInit::WorkgroupId(0)),
                    (16, SgprInit::Const(a[4] as u32)),
                    (17, SgprInit::Const((a[4] >> 32) as u32)),
                    (18, SgprInit::Const(ws)),
                ],
                workitem_id_vgprs: 1,
                lds_bytes: 0,
                scratch_bytes: 0,
                max_steps_per_wave: 1000,
                code_base: None,
            },
        );
        runs.push(both);
    }
    let (loads, stores) = (&runs[0], &runs[1]);
    // Each run has its own buffers: the model places each V# relative to that run's buffer.
    let (data_addr, target_addr) = (loads.addresses[2], stores.addresses[3]);
    let mut want_out = out0;
    let target0 = target.clone();
    let mut want_target = target;
    let mut counts = [0usize; 2];
    for (gi, g) in gs.iter().enumerate() {
        let g = Group {
            vload: Vsharp {
                base: g.vload.base + data_addr,
                ..g.vload
            },
            vstore: Vsharp {
                base: g.vstore.base + target_addr + (gi * BUF) as u64,
                ..g.vstore
            },
            ..*g
        };
        let first = gi as u32 * ws;
        let lanes = ws.min(grid - first);
        model(
            &g,
            &params,
            first,
            lanes,
            &data,
            data_addr,
            &mut want_out,
            &mut want_target[gi * BUF..][..BUF],
            target_addr + (gi * BUF) as u64,
        );
        for lane in 0..lanes {
            let p = &params[8 * (first + lane) as usize..];
            for (v, so) in [(g.vload, g.soff[0]), (g.vstore, g.soff[1])] {
                for inst in [0, 8, 28] {
                    counts[!v.locate(so, lane, Some(p[0]), Some(p[1]), inst).1 as usize] += 1;
                }
            }
        }
        eprintln!("w{ws} group {gi}: {g:?}");
    }
    expect_same(
        &format!("w{ws} loaded values"),
        &loads.host[1],
        &loads.device[1],
        &want_out,
    );
    expect_same(
        &format!("w{ws} store target"),
        &stores.host[3],
        &stores.device[3],
        &want_target,
    );
    // Neither kernel touches the other's buffer.
    let out_untouched = vec![0xeeu8; want_out.len()];
    expect_same(
        &format!("w{ws} output of the store kernel"),
        &stores.host[1],
        &stores.device[1],
        &out_untouched,
    );
    expect_same(
        &format!("w{ws} target of the load kernel"),
        &loads.host[3],
        &loads.device[3],
        &target0,
    );
    counts
}

#[test]
fn buffer_vsharp_loads_and_stores_match_model() {
    // The modules are large (every V# field is decoded at run time); on a loaded machine lavapipe's
    // compile alone can pass the default 60 s fence timeout.
    let ctx = common::lavapipe().with_timeout(std::time::Duration::from_secs(600));
    let mut r = Rng(0x5eed_0b0f);
    // wave32: 10 workgroups, the last one partial; wave64: 4 workgroups, the last one partial.
    let a = dispatch(&ctx, &mut r, 32, 32 * 10 - 3);
    let b = dispatch(&ctx, &mut r, 64, 64 * 4 - 5);
    let (inr, out) = (a[0] + b[0], a[1] + b[1]);
    eprintln!("sampled components: {inr} in range, {out} out of range");
    assert!(
        inr > 500 && out > 500,
        "the cases must mix in- and out-of-range accesses: {inr} {out}"
    );
}

/// Buffer atomics: dword-aligned V#s, offsets and soffsets (atomics address whole dwords), random otherwise;
/// all-or-nothing range checks; lanes collide, applied in ascending lane order (the evaluator's order,
/// which the lowering follows; each workgroup has its own target slice).
#[test]
fn buffer_vsharp_atomics_match_model() {
    let ctx = common::lavapipe().with_timeout(std::time::Duration::from_secs(600));
    let mut r = Rng(0xa70_0b1c);
    let mut swaps = 0;
    for (ws, grid) in [(32u32, 32u32 * 6 - 1), (64, 64 * 2)] {
        let groups = grid.div_ceil(ws);
        let gs: Vec<Group> = (0..groups)
            .map(|_| {
                let mut v = Vsharp::random(&mut r, 0);
                v.base &= !3;
                v.stride &= !3;
                if v.oob_select == 3 && !v.swizzle {
                    v.num_records = r.below(120) as u32;
                }
                Group {
                    vload: v,
                    vstore: v,
                    soff: [0, r.below(64) as u32 * 4],
                }
            })
            .collect();
        let target = r.bytes(BUF * groups as usize);
        let mut params = Vec::new();
        for item in 0..groups * ws {
            let (g, lane) = (&gs[(item / ws) as usize], item % ws);
            let idx = r.below(48) as u32;
            let off = r.below(30) as u32 * 4;
            let mut p = vec![idx, off];
            for _ in 0..5 {
                p.push(r.next() as u32);
            }
            p.push(0);
            // Even lanes compare (cmpswap) with the value memory starts with at their address.
            if lane % 2 == 0 {
                let (a, ok) = g.vstore.locate(g.soff[1], lane, Some(idx), Some(off), 0);
                let o = a as usize + (item / ws) as usize * BUF;
                if ok && o + 4 <= target.len() {
                    p[4] = u32::from_le_bytes(target[o..o + 4].try_into().unwrap());
                }
            }
            params.extend(p);
        }
        let program = lift_words("buffer_vsharp_atomics", ATOMIC_KERNEL, ws);
        let out0 = vec![0xeeu8; (groups * ws) as usize * OUT_WORDS * 4];
        let gs2 = gs.clone();
        let both = run_both(
            &ctx,
            &program,
            vec![words_le(&params), out0.clone(), vec![0; 64], target.clone()],
            |a| {
                let mut table = Vec::new();
                for (gi, g) in gs2.iter().enumerate() {
                    let vs = Vsharp {
                        base: g.vstore.base + a[3] + (gi * BUF) as u64,
                        ..g.vstore
                    }
                    .words();
                    table.extend(vs);
                    table.extend(vs);
                    table.extend([g.soff[0], g.soff[1], 0, 0, 0, 0, 0, 0]);
                }
                vec![words_le(&table)]
            },
            |a| Launch {
                wave_size: ws,
                grid: [grid, 1, 1],
                workgroup: [ws, 1, 1],
                sgprs: vec![
                    (0, SgprInit::Const(a[0] as u32)),
                    (1, SgprInit::Const((a[0] >> 32) as u32)),
                    (2, SgprInit::Const(a[1] as u32)),
                    (3, SgprInit::Const((a[1] >> 32) as u32)),
                    (14, SgprInit::WorkgroupId(0)),
                    (16, SgprInit::Const(a[4] as u32)),
                    (17, SgprInit::Const((a[4] >> 32) as u32)),
                    (18, SgprInit::Const(ws)),
                ],
                workitem_id_vgprs: 1,
                lds_bytes: 0,
                scratch_bytes: 0,
                max_steps_per_wave: 1000,
                code_base: None,
            },
        );
        let mut want_out = out0;
        let mut want_t = target;
        // (data register, returned into, offset) in kernel order; the op is by position.
        let ops: [(usize, Option<usize>, u32); 12] = [
            (4, Some(10), 0),
            (3, Some(12), 4),
            (4, Some(13), 8),
            (5, Some(14), 12),
            (6, Some(15), 16),
            (3, Some(16), 20),
            (4, Some(17), 24),
            (5, Some(18), 28),
            (6, Some(19), 32),
            (3, Some(21), 36),
            (4, Some(22), 40),
            (5, None, 44),
        ];
        for (gi, g) in gs.iter().enumerate() {
            let first = gi as u32 * ws;
            let lanes = ws.min(grid - first);
            let mut v = vec![[0u32; 23]; lanes as usize];
            for lane in 0..lanes {
                v[lane as usize][20] = (first + lane) * 32;
                v[lane as usize][11] = params[8 * (first + lane) as usize + 4];
            }
            for (k, &(reg, into, inst)) in ops.iter().enumerate() {
                for lane in 0..lanes {
                    let p = &params[8 * (first + lane) as usize..][..8];
                    let x = p[reg - 1];
                    let (a, ok) = g
                        .vstore
                        .locate(g.soff[1], lane, Some(p[0]), Some(p[1]), inst);
                    let mut old = 0;
                    if ok {
                        let o = a as usize + gi * BUF;
                        assert!(
                            a as usize + 4 <= BUF,
                            "generator bug: an in-range atomic leaves the slice"
                        );
                        old = u32::from_le_bytes(want_t[o..o + 4].try_into().unwrap());
                        let new = match k {
                            0 => {
                                if old == p[4] {
                                    swaps += 1;
                                    x
                                } else {
                                    old
                                }
                            }
                            1 => x,
                            2 | 11 => old.wrapping_add(x),
                            3 => old.wrapping_sub(x),
                            4 => (old as i32).min(x as i32) as u32,
                            5 => old.min(x),
                            6 => (old as i32).max(x as i32) as u32,
                            7 => old.max(x),
                            8 => old & x,
                            9 => old | x,
                            _ => old ^ x,
                        };
                        want_t[o..o + 4].copy_from_slice(&new.to_le_bytes());
                    }
                    if let Some(d) = into {
                        v[lane as usize][d] = old;
                    }
                }
            }
            for lane in 0..lanes {
                let item = (first + lane) as usize;
                for j in 0..13 {
                    want_out[(item * OUT_WORDS + j) * 4..][..4]
                        .copy_from_slice(&v[lane as usize][10 + j].to_le_bytes());
                }
            }
        }
        expect_same(
            &format!("w{ws} returned values"),
            &both.host[1],
            &both.device[1],
            &want_out,
        );
        expect_same(
            &format!("w{ws} atomic target"),
            &both.host[3],
            &both.device[3],
            &want_t,
        );
        eprintln!("buffer atomics w{ws}: {grid} work-items identical on host, device and model");
    }
    assert!(swaps > 10, "some compare-and-swaps must succeed: {swaps}");
}

/// The predicated accesses also lower in the device's checked mode (every global access validated against
/// the registered allocations) to modules spirv-val accepts (no device run).
#[test]
fn buffer_vsharp_modules_validate_in_checked_mode() {
    use rdna2spv_spirv::lower::{lower_with, LowerOptions};
    for (name, kernel) in [
        ("buffer_vsharp_loads_checked", LOAD_KERNEL),
        ("buffer_vsharp_stores_checked", STORE_KERNEL),
        ("buffer_vsharp_atomics_checked", ATOMIC_KERNEL),
    ] {
        let program = lift_words(name, kernel, 32);
        let launch = Launch {
            wave_size: 32,
            grid: [64, 1, 1],
            workgroup: [32, 1, 1],
            sgprs: vec![(14, SgprInit::WorkgroupId(0)), (18, SgprInit::Const(32))],
            workitem_id_vgprs: 1,
            lds_bytes: 0,
            scratch_bytes: 0,
            max_steps_per_wave: 1000,
            code_base: None,
        };
        let opts = LowerOptions {
            checked: Some(5),
            ..Default::default()
        };
        let words = lower_with(
            &program,
            &rdna2spv_vulkan::kernel_layout(&launch),
            &rdna2spv_spirv::DeviceProfile::portable(),
            &opts,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        common::spirv_val(name, &words);
    }
}
