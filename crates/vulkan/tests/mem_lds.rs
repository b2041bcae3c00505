//! LDS (DS) instructions on lavapipe and in the evaluator, against an independent Rust model of the
//! workgroup's LDS written from the RDNA 2 ISA guide's descriptions of each opcode.
//!
//! Both kernels (assembled by llvm-mc-19) fill the LDS from a global buffer (ds_write_b128), then run at
//! random per-lane LDS addresses (unaligned included): kernel A every read width and form (u8/i8/u16/i16,
//! b64/b96/b128, d16 and d16_hi, read2/read2st64 of b64, read_addtid); kernel B every write width and form
//! (b8/b16/b64/b96/b128, d16_hi, write2/write2st64 of b64, write_addtid) and the 32-bit atomics with and
//! without return (sub, min/max signed and unsigned, and, or, xor, wrxchg, wrxchg2, wrxchg2st64), then dump
//! the LDS to memory. Lanes collide on purpose; workgroups are one wave each, so the order is the one the
//! evaluator defines (instruction, then the instruction's memory operation in order, then ascending lane),
//! which the lowering also follows and the model applies.

mod common;
mod memcommon;

use memcommon::{expect_same, le_words, lift_words, run_both, words_le, Rng};
use rdna2spv_eval::{Launch, SgprInit};

// coverage: lds_reads_match_model: DS_READ_U8 DS_READ_I8 DS_READ_U16 DS_READ_I16 DS_READ_B64 DS_READ_B96 DS_READ_B128 DS_READ_U8_D16 DS_READ_U8_D16_HI DS_READ_I8_D16 DS_READ_I8_D16_HI DS_READ_U16_D16 DS_READ_U16_D16_HI DS_READ2_B64 DS_READ2ST64_B64 DS_READ_ADDTID_B32 DS_WRITE_B128
// coverage: lds_cmpst_matches_model: DS_CMPST_B32 DS_CMPST_RTN_B32
// coverage: lds_writes_and_atomics_match_model: DS_WRITE_B8 DS_WRITE_B16 DS_WRITE_B64 DS_WRITE_B96 DS_WRITE_B128 DS_WRITE_B8_D16_HI DS_WRITE_B16_D16_HI DS_WRITE2_B64 DS_WRITE2ST64_B64 DS_WRITE_ADDTID_B32 DS_SUB_U32 DS_SUB_RTN_U32 DS_MIN_I32 DS_MIN_RTN_I32 DS_MAX_I32 DS_MAX_RTN_I32 DS_MIN_U32 DS_MIN_RTN_U32 DS_MAX_U32 DS_MAX_RTN_U32 DS_AND_B32 DS_AND_RTN_B32 DS_OR_B32 DS_OR_RTN_B32 DS_XOR_B32 DS_XOR_RTN_B32 DS_WRXCHG_RTN_B32 DS_WRXCHG2_RTN_B32 DS_WRXCHG2ST64_RTN_B32

/// s[0:1] parameters (8 dwords per work-item: LDS address, d16 seed, data v3..v7, unused), s[2:3] output
/// (32 dwords per work-item), s[4:5] LDS contents (64 bytes per work-item), s[6:7] LDS dump, s14
/// workgroup id, s18 = 32; M0 = 0x100 (the addtid base).
const READS: &[u32] = &[
    0xbefc03ff, 0x00000100, // s_mov_b32 m0, 0x100
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x34285285, // v_lshlrev_b32_e32 v20, 5, v41
    0x342a5286, // v_lshlrev_b32_e32 v21, 6, v41
    0x34540086, // v_lshlrev_b32_e32 v42, 6, v0
    0xdc388000, 0x01000014, // global_load_dwordx4 v[1:4], v20, s[0:1]
    0xdc388010, 0x05000014, // global_load_dwordx4 v[5:8], v20, s[0:1] offset:16
    0xdc388000, 0x0a040015, // global_load_dwordx4 v[10:13], v21, s[4:5]
    0xdc388010, 0x0e040015, // global_load_dwordx4 v[14:17], v21, s[4:5] offset:16
    0xdc388020, 0x17040015, // global_load_dwordx4 v[23:26], v21, s[4:5] offset:32
    0xdc388030, 0x1b040015, // global_load_dwordx4 v[27:30], v21, s[4:5] offset:48
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xdb7c0000, 0x00000a2a, // ds_write_b128 v42, v[10:13]
    0xdb7c0010, 0x00000e2a, // ds_write_b128 v42, v[14:17] offset:16
    0xdb7c0020, 0x0000172a, // ds_write_b128 v42, v[23:26] offset:32
    0xdb7c0030, 0x00001b2a, // ds_write_b128 v42, v[27:30] offset:48
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xbf8a0000, // s_barrier
    0x361202c4, // v_and_b32_e32 v9, -4, v1
    0xd8e80000, 0x0a000001, // ds_read_u8 v10, v1
    0xd8e40001, 0x0b000001, // ds_read_i8 v11, v1 offset:1
    0xd8f00002, 0x0c000001, // ds_read_u16 v12, v1 offset:2
    0xd8ec0005, 0x0d000001, // ds_read_i16 v13, v1 offset:5
    0xd9d80007, 0x0e000001, // ds_read_b64 v[14:15], v1 offset:7
    0xdbf80010, 0x10000001, // ds_read_b96 v[16:18], v1 offset:16
    0xdbfc0021, 0x13000001, // ds_read_b128 v[19:22], v1 offset:33
    0x7e2e0302, // v_mov_b32_e32 v23, v2
    0x7e300302, // v_mov_b32_e32 v24, v2
    0x7e320302, // v_mov_b32_e32 v25, v2
    0x7e340302, // v_mov_b32_e32 v26, v2
    0x7e360302, // v_mov_b32_e32 v27, v2
    0x7e380302, // v_mov_b32_e32 v28, v2
    0xda880003, 0x17000001, // ds_read_u8_d16 v23, v1 offset:3
    0xda8c0009, 0x18000001, // ds_read_u8_d16_hi v24, v1 offset:9
    0xda90000b, 0x19000001, // ds_read_i8_d16 v25, v1 offset:11
    0xda94000d, 0x1a000001, // ds_read_i8_d16_hi v26, v1 offset:13
    0xda98000f, 0x1b000001, // ds_read_u16_d16 v27, v1 offset:15
    0xda9c0011, 0x1c000001, // ds_read_u16_d16_hi v28, v1 offset:17
    0xd9dc1103, 0x1d000001, // ds_read2_b64 v[29:32], v1 offset0:3 offset1:17
    0xd9e00201, 0x21000001, // ds_read2st64_b64 v[33:36], v1 offset0:1 offset1:2
    0xdac4000c, 0x25000000, // ds_read_addtid_b32 v37 offset:12
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0x34505287, // v_lshlrev_b32_e32 v40, 7, v41
    0xdc788000, 0x00020a28, // global_store_dwordx4 v40, v[10:13], s[2:3]
    0xdc788010, 0x00020e28, // global_store_dwordx4 v40, v[14:17], s[2:3] offset:16
    0xdc788020, 0x00021228, // global_store_dwordx4 v40, v[18:21], s[2:3] offset:32
    0xdc788030, 0x00021628, // global_store_dwordx4 v40, v[22:25], s[2:3] offset:48
    0xdc788040, 0x00021a28, // global_store_dwordx4 v40, v[26:29], s[2:3] offset:64
    0xdc788050, 0x00021e28, // global_store_dwordx4 v40, v[30:33], s[2:3] offset:80
    0xdc788060, 0x00022228, // global_store_dwordx4 v40, v[34:37], s[2:3] offset:96
    0xbf810000, // s_endpgm
];

const WRITES: &[u32] = &[
    0xbefc03ff, 0x00000100, // s_mov_b32 m0, 0x100
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x34285285, // v_lshlrev_b32_e32 v20, 5, v41
    0x342a5286, // v_lshlrev_b32_e32 v21, 6, v41
    0x34540086, // v_lshlrev_b32_e32 v42, 6, v0
    0xdc388000, 0x01000014, // global_load_dwordx4 v[1:4], v20, s[0:1]
    0xdc388010, 0x05000014, // global_load_dwordx4 v[5:8], v20, s[0:1] offset:16
    0xdc388000, 0x0a040015, // global_load_dwordx4 v[10:13], v21, s[4:5]
    0xdc388010, 0x0e040015, // global_load_dwordx4 v[14:17], v21, s[4:5] offset:16
    0xdc388020, 0x17040015, // global_load_dwordx4 v[23:26], v21, s[4:5] offset:32
    0xdc388030, 0x1b040015, // global_load_dwordx4 v[27:30], v21, s[4:5] offset:48
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xdb7c0000, 0x00000a2a, // ds_write_b128 v42, v[10:13]
    0xdb7c0010, 0x00000e2a, // ds_write_b128 v42, v[14:17] offset:16
    0xdb7c0020, 0x0000172a, // ds_write_b128 v42, v[23:26] offset:32
    0xdb7c0030, 0x00001b2a, // ds_write_b128 v42, v[27:30] offset:48
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xbf8a0000, // s_barrier
    0x361202c4, // v_and_b32_e32 v9, -4, v1
    0xd8780000, 0x00000301, // ds_write_b8 v1, v3
    0xd87c0001, 0x00000401, // ds_write_b16 v1, v4 offset:1
    0xd9340008, 0x00000301, // ds_write_b64 v1, v[3:4] offset:8
    0xdb780014, 0x00000301, // ds_write_b96 v1, v[3:5] offset:20
    0xdb7c0028, 0x00000301, // ds_write_b128 v1, v[3:6] offset:40
    0xda80003c, 0x00000501, // ds_write_b8_d16_hi v1, v5 offset:60
    0xda84003e, 0x00000601, // ds_write_b16_d16_hi v1, v6 offset:62
    0xd9380d09, 0x00050301, // ds_write2_b64 v1, v[3:4], v[5:6] offset0:9 offset1:13
    0xd93c0201, 0x00030501, // ds_write2st64_b64 v1, v[5:6], v[3:4] offset0:1 offset1:2
    0xdac00004, 0x00000700, // ds_write_addtid_b32 v7 offset:4
    0xd8040004, 0x00000309, // ds_sub_u32 v9, v3 offset:4
    0xd8840008, 0x0a000409, // ds_sub_rtn_u32 v10, v9, v4 offset:8
    0xd814000c, 0x00000509, // ds_min_i32 v9, v5 offset:12
    0xd8940010, 0x0b000609, // ds_min_rtn_i32 v11, v9, v6 offset:16
    0xd8180014, 0x00000709, // ds_max_i32 v9, v7 offset:20
    0xd8980018, 0x0c000309, // ds_max_rtn_i32 v12, v9, v3 offset:24
    0xd81c001c, 0x00000409, // ds_min_u32 v9, v4 offset:28
    0xd89c0020, 0x0d000509, // ds_min_rtn_u32 v13, v9, v5 offset:32
    0xd8200024, 0x00000609, // ds_max_u32 v9, v6 offset:36
    0xd8a00028, 0x0e000709, // ds_max_rtn_u32 v14, v9, v7 offset:40
    0xd824002c, 0x00000309, // ds_and_b32 v9, v3 offset:44
    0xd8a40030, 0x0f000409, // ds_and_rtn_b32 v15, v9, v4 offset:48
    0xd8280034, 0x00000509, // ds_or_b32 v9, v5 offset:52
    0xd8a80038, 0x10000609, // ds_or_rtn_b32 v16, v9, v6 offset:56
    0xd82c003c, 0x00000709, // ds_xor_b32 v9, v7 offset:60
    0xd8ac0040, 0x11000309, // ds_xor_rtn_b32 v17, v9, v3 offset:64
    0xd8b40044, 0x12000409, // ds_wrxchg_rtn_b32 v18, v9, v4 offset:68
    0xd8b81312, 0x13060509, // ds_wrxchg2_rtn_b32 v[19:20], v9, v5, v6 offset0:18 offset1:19
    0xd8bc0301, 0x2b030709, // ds_wrxchg2st64_rtn_b32 v[43:44], v9, v7, v3 offset0:1 offset1:3
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xbf8a0000, // s_barrier
    0xdbfc0000, 0x1700002a, // ds_read_b128 v[23:26], v42
    0xdbfc0010, 0x1b00002a, // ds_read_b128 v[27:30], v42 offset:16
    0xdbfc0020, 0x1f00002a, // ds_read_b128 v[31:34], v42 offset:32
    0xdbfc0030, 0x2300002a, // ds_read_b128 v[35:38], v42 offset:48
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc788000, 0x00061715, // global_store_dwordx4 v21, v[23:26], s[6:7]
    0xdc788010, 0x00061b15, // global_store_dwordx4 v21, v[27:30], s[6:7] offset:16
    0xdc788020, 0x00061f15, // global_store_dwordx4 v21, v[31:34], s[6:7] offset:32
    0xdc788030, 0x00062315, // global_store_dwordx4 v21, v[35:38], s[6:7] offset:48
    0x34505287, // v_lshlrev_b32_e32 v40, 7, v41
    0xdc788000, 0x00020a28, // global_store_dwordx4 v40, v[10:13], s[2:3]
    0xdc788010, 0x00020e28, // global_store_dwordx4 v40, v[14:17], s[2:3] offset:16
    0xdc7c8020, 0x00021228, // global_store_dwordx3 v40, v[18:20], s[2:3] offset:32
    0xdc74802c, 0x00022b28, // global_store_dwordx2 v40, v[43:44], s[2:3] offset:44
    0xbf810000, // s_endpgm
];

/// The same prologue, then ds_cmpst_rtn_b32 v10, v9, v3, v4 offset:8 (compare v3, new v4) and
/// ds_cmpst_b32 v9, v5, v6 offset:12, the LDS dump and v10.
const CMPST: &[u32] = &[
    0xbefc03ff, 0x00000100, // s_mov_b32 m0, 0x100
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x34285285, // v_lshlrev_b32_e32 v20, 5, v41
    0x342a5286, // v_lshlrev_b32_e32 v21, 6, v41
    0x34540086, // v_lshlrev_b32_e32 v42, 6, v0
    0xdc388000, 0x01000014, // global_load_dwordx4 v[1:4], v20, s[0:1]
    0xdc388010, 0x05000014, // global_load_dwordx4 v[5:8], v20, s[0:1] offset:16
    0xdc388000, 0x0a040015, // global_load_dwordx4 v[10:13], v21, s[4:5]
    0xdc388010, 0x0e040015, // global_load_dwordx4 v[14:17], v21, s[4:5] offset:16
    0xdc388020, 0x17040015, // global_load_dwordx4 v[23:26], v21, s[4:5] offset:32
    0xdc388030, 0x1b040015, // global_load_dwordx4 v[27:30], v21, s[4:5] offset:48
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0xdb7c0000, 0x00000a2a, // ds_write_b128 v42, v[10:13]
    0xdb7c0010, 0x00000e2a, // ds_write_b128 v42, v[14:17] offset:16
    0xdb7c0020, 0x0000172a, // ds_write_b128 v42, v[23:26] offset:32
    0xdb7c0030, 0x00001b2a, // ds_write_b128 v42, v[27:30] offset:48
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xbf8a0000, // s_barrier
    0x361202c4, // v_and_b32_e32 v9, -4, v1
    0xd8c00008, 0x0a040309, // ds_cmpst_rtn_b32 v10, v9, v3, v4 offset:8
    0xd840000c, 0x00060509, // ds_cmpst_b32 v9, v5, v6 offset:12
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xbf8a0000, // s_barrier
    0xdbfc0000, 0x1700002a, // ds_read_b128 v[23:26], v42
    0xdbfc0010, 0x1b00002a, // ds_read_b128 v[27:30], v42 offset:16
    0xdbfc0020, 0x1f00002a, // ds_read_b128 v[31:34], v42 offset:32
    0xdbfc0030, 0x2300002a, // ds_read_b128 v[35:38], v42 offset:48
    0xbf8cc07f, // s_waitcnt lgkmcnt(0)
    0xdc788000, 0x00061715, // global_store_dwordx4 v21, v[23:26], s[6:7]
    0xdc788010, 0x00061b15, // global_store_dwordx4 v21, v[27:30], s[6:7] offset:16
    0xdc788020, 0x00061f15, // global_store_dwordx4 v21, v[31:34], s[6:7] offset:32
    0xdc788030, 0x00062315, // global_store_dwordx4 v21, v[35:38], s[6:7] offset:48
    0x34505287, // v_lshlrev_b32_e32 v40, 7, v41
    0xdc708000, 0x00020a28, // global_store_dword v40, v10, s[2:3]
    0xbf810000, // s_endpgm
];

const WS: u32 = 32;
const GROUPS: u32 = 4;
const LDS: usize = 64 * WS as usize;
const M0: u32 = 0x100;

struct Lds(Vec<u8>);
impl Lds {
    fn rd(&self, a: u32, n: u32) -> u32 {
        assert!(
            a as usize + n as usize <= LDS,
            "generator bug: LDS access outside the allocation"
        );
        (0..n as usize)
            .rev()
            .fold(0u32, |acc, k| acc << 8 | self.0[a as usize + k] as u32)
    }
    fn wr(&mut self, a: u32, n: u32, v: u32) {
        assert!(
            a as usize + n as usize <= LDS,
            "generator bug: LDS access outside the allocation"
        );
        self.0[a as usize..][..n as usize].copy_from_slice(&v.to_le_bytes()[..n as usize]);
    }
}

fn d16(old: u32, x: u16, hi: bool) -> u32 {
    if hi {
        (x as u32) << 16 | (old & 0xffff)
    } else {
        (old & 0xffff_0000) | x as u32
    }
}

/// Runs `kernel` over GROUPS workgroups; returns (host = device buffers, parameters, initial LDS bytes).
fn run(
    kernel: &[u32],
    name: &str,
    seed: u64,
    tweak: impl FnOnce(&mut [u32], &[u8]),
) -> (memcommon::Both, Vec<u32>, Vec<u8>) {
    let ctx = common::lavapipe().with_timeout(std::time::Duration::from_secs(600));
    let mut r = Rng(seed);
    let n = (WS * GROUPS) as usize;
    let mut params = Vec::new();
    for _ in 0..n {
        params.push(r.below(900) as u32);
        for _ in 0..6 {
            params.push(r.next() as u32);
        }
        params.push(0);
    }
    let init = r.bytes(n * 64);
    tweak(&mut params, &init);
    let program = lift_words(name, kernel, WS);
    let both = run_both(
        &ctx,
        &program,
        vec![
            words_le(&params),
            vec![0xee; n * 128],
            init.clone(),
            vec![0xee; n * 64],
        ],
        |_| Vec::new(),
        |a| Launch {
            wave_size: WS,
            grid: [WS * GROUPS, 1, 1],
            workgroup: [WS, 1, 1],
            sgprs: vec![
                (0, SgprInit::Const(a[0] as u32)),
                (1, SgprInit::Const((a[0] >> 32) as u32)),
                (2, SgprInit::Const(a[1] as u32)),
                (3, SgprInit::Const((a[1] >> 32) as u32)),
                (4, SgprInit::Const(a[2] as u32)),
                (5, SgprInit::Const((a[2] >> 32) as u32)),
                (6, SgprInit::Const(a[3] as u32)),
                (7, SgprInit::Const((a[3] >> 32) as u32)),
                (14, SgprInit::WorkgroupId(0)),
                (18, SgprInit::Const(WS)),
            ],
            workitem_id_vgprs: 1,
            lds_bytes: LDS as u32,
            scratch_bytes: 0,
            max_steps_per_wave: 1000,
            code_base: None,
        },
    );
    (both, params, init)
}

#[test]
fn lds_reads_match_model() {
    let (both, params, init) = run(READS, "lds_reads", 0x1d5_0001, |_, _| {});
    let mut want = vec![0xeeu8; both.host[1].len()];
    for g in 0..GROUPS {
        let lds = Lds(init[(g * WS) as usize * 64..][..LDS].to_vec());
        for lane in 0..WS {
            let item = (g * WS + lane) as usize;
            let p = &params[8 * item..][..8];
            let a = p[0];
            let mut v = [0u32; 38];
            v[10] = lds.rd(a, 1);
            v[11] = lds.rd(a + 1, 1) as u8 as i8 as i32 as u32;
            v[12] = lds.rd(a + 2, 2);
            v[13] = lds.rd(a + 5, 2) as u16 as i16 as i32 as u32;
            for k in 0..2 {
                v[14 + k] = lds.rd(a + 7 + 4 * k as u32, 4);
            }
            for k in 0..3 {
                v[16 + k] = lds.rd(a + 16 + 4 * k as u32, 4);
            }
            for k in 0..4 {
                v[19 + k] = lds.rd(a + 33 + 4 * k as u32, 4);
            }
            let s = p[1];
            v[23] = d16(s, lds.rd(a + 3, 1) as u16, false);
            v[24] = d16(s, lds.rd(a + 9, 1) as u16, true);
            v[25] = d16(s, lds.rd(a + 11, 1) as u8 as i8 as i16 as u16, false);
            v[26] = d16(s, lds.rd(a + 13, 1) as u8 as i8 as i16 as u16, true);
            v[27] = d16(s, lds.rd(a + 15, 2) as u16, false);
            v[28] = d16(s, lds.rd(a + 17, 2) as u16, true);
            // read2_b64 offset0:3 offset1:17 (units of 8 bytes); read2st64_b64 offset0:1 offset1:2 (512 bytes).
            for (k, o) in [(0, 24), (1, 28), (2, 136), (3, 140)] {
                v[29 + k] = lds.rd(a + o, 4);
            }
            for (k, o) in [(0, 512), (1, 516), (2, 1024), (3, 1028)] {
                v[33 + k] = lds.rd(a + o, 4);
            }
            v[37] = lds.rd(M0 + 12 + 4 * lane, 4);
            for j in 0..28 {
                want[(item * 32 + j) * 4..][..4].copy_from_slice(&v[10 + j].to_le_bytes());
            }
        }
    }
    expect_same("LDS reads", &both.host[1], &both.device[1], &want);
    eprintln!(
        "lds reads: {} work-items x 28 words identical on host, device and model",
        WS * GROUPS
    );
}

#[test]
fn lds_writes_and_atomics_match_model() {
    let (both, params, init) = run(WRITES, "lds_writes", 0x1d5_0002, |_, _| {});
    let mut want_out = vec![0xeeu8; both.host[1].len()];
    let mut want_dump = vec![0u8; both.host[3].len()];
    for g in 0..GROUPS {
        let mut lds = Lds(init[(g * WS) as usize * 64..][..LDS].to_vec());
        let p = |lane: u32| -> &[u32] { &params[8 * (g * WS + lane) as usize..][..8] };
        // v3..v7 of a lane.
        let v = |lane: u32, r: usize| p(lane)[r - 1];
        // Plain writes: (bytes, data register, shift, byte offset) per memory operation, in order.
        let writes: &[(u32, usize, u32, u32)] = &[
            (1, 3, 0, 0),
            (2, 4, 0, 1),
            (4, 3, 0, 8),
            (4, 4, 0, 12),
            (4, 3, 0, 20),
            (4, 4, 0, 24),
            (4, 5, 0, 28),
            (4, 3, 0, 40),
            (4, 4, 0, 44),
            (4, 5, 0, 48),
            (4, 6, 0, 52),
            (1, 5, 16, 60),
            (2, 6, 16, 62),
            // write2_b64 offset0:9 offset1:13: v[3:4] at +72, v[5:6] at +104.
            (4, 3, 0, 72),
            (4, 4, 0, 76),
            (4, 5, 0, 104),
            (4, 6, 0, 108),
            // write2st64_b64 offset0:1 offset1:2: v[5:6] at +512, v[3:4] at +1024.
            (4, 5, 0, 512),
            (4, 6, 0, 516),
            (4, 3, 0, 1024),
            (4, 4, 0, 1028),
        ];
        for &(n, r, sh, o) in writes {
            for lane in 0..WS {
                lds.wr(p(lane)[0] + o, n, v(lane, r) >> sh);
            }
        }
        for lane in 0..WS {
            lds.wr(M0 + 4 + 4 * lane, 4, v(lane, 7));
        }
        // Atomics at the dword-aligned address: (op, data register, byte offset, returned into).
        #[derive(Clone, Copy)]
        enum A {
            Sub,
            MinI,
            MaxI,
            MinU,
            MaxU,
            And,
            Or,
            Xor,
            Swap,
        }
        let atomics: &[(A, usize, u32, Option<usize>)] = &[
            (A::Sub, 3, 4, None),
            (A::Sub, 4, 8, Some(0)),
            (A::MinI, 5, 12, None),
            (A::MinI, 6, 16, Some(1)),
            (A::MaxI, 7, 20, None),
            (A::MaxI, 3, 24, Some(2)),
            (A::MinU, 4, 28, None),
            (A::MinU, 5, 32, Some(3)),
            (A::MaxU, 6, 36, None),
            (A::MaxU, 7, 40, Some(4)),
            (A::And, 3, 44, None),
            (A::And, 4, 48, Some(5)),
            (A::Or, 5, 52, None),
            (A::Or, 6, 56, Some(6)),
            (A::Xor, 7, 60, None),
            (A::Xor, 3, 64, Some(7)),
            (A::Swap, 4, 68, Some(8)),
            // wrxchg2 offset0:18 offset1:19 (dwords); wrxchg2st64 offset0:1 offset1:3 (256 bytes).
            (A::Swap, 5, 72, Some(9)),
            (A::Swap, 6, 76, Some(10)),
            (A::Swap, 7, 256, Some(11)),
            (A::Swap, 3, 768, Some(12)),
        ];
        let mut ret = vec![[0u32; 13]; WS as usize];
        for &(op, r, o, into) in atomics {
            for lane in 0..WS {
                let a = (p(lane)[0] & !3) + o;
                let old = lds.rd(a, 4);
                let x = v(lane, r);
                let new = match op {
                    A::Sub => old.wrapping_sub(x),
                    A::MinI => (old as i32).min(x as i32) as u32,
                    A::MaxI => (old as i32).max(x as i32) as u32,
                    A::MinU => old.min(x),
                    A::MaxU => old.max(x),
                    A::And => old & x,
                    A::Or => old | x,
                    A::Xor => old ^ x,
                    A::Swap => x,
                };
                lds.wr(a, 4, new);
                if let Some(k) = into {
                    ret[lane as usize][k] = old;
                }
            }
        }
        for lane in 0..WS {
            let item = (g * WS + lane) as usize;
            for (j, w) in ret[lane as usize].iter().enumerate() {
                want_out[(item * 32 + j) * 4..][..4].copy_from_slice(&w.to_le_bytes());
            }
        }
        want_dump[(g * WS) as usize * 64..][..LDS].copy_from_slice(&lds.0);
    }
    expect_same(
        "LDS returned values",
        &both.host[1],
        &both.device[1],
        &want_out,
    );
    expect_same("LDS contents", &both.host[3], &both.device[3], &want_dump);
    let changed = le_words(&want_dump).len();
    eprintln!(
        "lds writes and atomics: {} LDS words and 13 returned words per work-item identical",
        changed
    );
}

/// Host trap: an LDS access past the workgroup's allocation stops the run with the workgroup, wave, pc,
/// instruction, lane and address (no device needed).
#[test]
fn lds_out_of_range_faults_on_the_host() {
    // ds_write_b32 v1, v2 offset:4 with v1 = lane * 64: lanes whose address passes 256 bytes fault.
    // v_lshlrev_b32 v1, 6, v0; v_mov_b32 v2, v0; ds_write_b32 v1, v2 offset:4; s_endpgm
    let words = [
        0x3402_0086,
        0x7e04_0300,
        0xd834_0004,
        0x0000_0201,
        0xbf81_0000,
    ];
    let program = lift_words("lds_oob", &words, WS);
    let mut mem = rdna2spv_eval::Memory::default();
    let launch = Launch {
        wave_size: WS,
        grid: [WS, 1, 1],
        workgroup: [WS, 1, 1],
        sgprs: vec![],
        workitem_id_vgprs: 1,
        lds_bytes: 256,
        scratch_bytes: 0,
        max_steps_per_wave: 100,
        code_base: None,
    };
    let e = rdna2spv_eval::run(&program, &launch, &mut mem)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("wave 0")
            && e.contains("pc 0x8")
            && e.contains("ds_write_b32 v1, v2 offset:4")
            && e.contains("LDS store of 4 bytes at 0x104")
            && e.contains("(lane 4)"),
        "{e}"
    );
}

#[test]
fn lds_cmpst_matches_model() {
    // Even lanes compare with the value their dword starts with (the first such lane swaps).
    let tweak = |params: &mut [u32], init: &[u8]| {
        for item in 0..(WS * GROUPS) as usize {
            if item % 2 == 0 {
                let g = item / WS as usize;
                let a = (params[8 * item] & !3) as usize;
                let at =
                    |o: usize| u32::from_le_bytes(init[g * LDS + a + o..][..4].try_into().unwrap());
                params[8 * item + 2] = at(8);
                params[8 * item + 4] = at(12);
            }
        }
    };
    let (both, params, init) = run(CMPST, "lds_cmpst", 0x1d5_0003, tweak);
    let mut want_out = vec![0xeeu8; both.host[1].len()];
    let mut want_dump = vec![0u8; both.host[3].len()];
    let mut swaps = 0;
    for g in 0..GROUPS {
        let mut lds = Lds(init[(g * WS) as usize * 64..][..LDS].to_vec());
        let p = |lane: u32| -> &[u32] { &params[8 * (g * WS + lane) as usize..][..8] };
        // (byte offset, compare register index, new value index, returned?)
        for (o, c, n, rtn) in [(8u32, 2usize, 3usize, true), (12, 4, 5, false)] {
            for lane in 0..WS {
                let a = (p(lane)[0] & !3) + o;
                let old = lds.rd(a, 4);
                if old == p(lane)[c] {
                    lds.wr(a, 4, p(lane)[n]);
                    swaps += 1;
                }
                if rtn {
                    let item = (g * WS + lane) as usize;
                    want_out[item * 128..][..4].copy_from_slice(&old.to_le_bytes());
                }
            }
        }
        want_dump[(g * WS) as usize * 64..][..LDS].copy_from_slice(&lds.0);
    }
    expect_same(
        "ds_cmpst returned values",
        &both.host[1],
        &both.device[1],
        &want_out,
    );
    expect_same(
        "LDS after ds_cmpst",
        &both.host[3],
        &both.device[3],
        &want_dump,
    );
    assert!(swaps >= 64, "compare-and-stores must succeed: {swaps}");
    eprintln!("lds cmpst: {swaps} successful compare-and-stores; host = device = model");
}
