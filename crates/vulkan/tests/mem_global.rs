//! GLOBAL and FLAT d16 loads and stores and the addtid forms on lavapipe and in the evaluator, against an
//! independent Rust model of the RDNA 2 ISA guide's descriptions (a byte or short into one half of the VGPR,
//! the other half kept; d16_hi stores write bits 31:16; addtid addresses are SGPR base + offset + lane * 4).
//! Random data, random unaligned per-lane addresses; each work-item stores to its own bytes.

mod common;
mod memcommon;

use memcommon::{expect_same, lift_words, run_both, words_le, Rng};
use rdna2spv_eval::{Launch, SgprInit};

// coverage: global_d16_and_addtid_match_model: GLOBAL_LOAD_UBYTE_D16 GLOBAL_LOAD_UBYTE_D16_HI GLOBAL_LOAD_SBYTE_D16 GLOBAL_LOAD_SBYTE_D16_HI GLOBAL_LOAD_SHORT_D16 GLOBAL_LOAD_SHORT_D16_HI FLAT_LOAD_SBYTE_D16_HI FLAT_LOAD_SHORT_D16 GLOBAL_LOAD_DWORD_ADDTID GLOBAL_STORE_BYTE_D16_HI GLOBAL_STORE_SHORT_D16_HI FLAT_STORE_BYTE_D16_HI FLAT_STORE_SHORT_D16_HI GLOBAL_STORE_DWORD_ADDTID GLOBAL_ATOMIC_CMPSWAP FLAT_ATOMIC_CMPSWAP

/// s[0:1] parameters (8 dwords per work-item: data offset, d16 seed, data v3..v7, 0), s[2:3] output
/// (16 dwords per work-item), s[8:9] data, s[10:11] target (8 bytes per work-item), s[12:13] addtid target
/// and compare-and-swap target (1024 bytes per workgroup: addtid stores at 8, global_atomic_cmpswap
/// (returning) at 512, flat_atomic_cmpswap at 768, 4 bytes per lane), s14 workgroup id, s18 wave size.
const KERNEL: &[u32] = &[
    0x9313120e, // s_mul_i32 s19, s14, s18
    0x8f148a0e, // s_lshl_b32 s20, s14, 10
    0x800c140c, // s_add_u32 s12, s12, s20
    0x820d800d, // s_addc_u32 s13, s13, 0
    0x4a520013, // v_add_nc_u32_e32 v41, s19, v0
    0x34285285, // v_lshlrev_b32_e32 v20, 5, v41
    0x345a5283, // v_lshlrev_b32_e32 v45, 3, v41
    0x34600082, // v_lshlrev_b32_e32 v48, 2, v0
    0xdc388000, 0x01000014, // global_load_dwordx4 v[1:4], v20, s[0:1]
    0xdc388010, 0x05000014, // global_load_dwordx4 v[5:8], v20, s[0:1] offset:16
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0x7e2e0302, // v_mov_b32_e32 v23, v2
    0x7e300302, // v_mov_b32_e32 v24, v2
    0x7e320302, // v_mov_b32_e32 v25, v2
    0x7e340302, // v_mov_b32_e32 v26, v2
    0x7e360302, // v_mov_b32_e32 v27, v2
    0x7e380302, // v_mov_b32_e32 v28, v2
    0x7e3a0302, // v_mov_b32_e32 v29, v2
    0x7e3c0302, // v_mov_b32_e32 v30, v2
    0xd70f6a2b, 0x00020208, // v_add_co_u32 v43, vcc_lo, s8, v1
    0x50581009, // v_add_co_ci_u32_e32 v44, vcc_lo, s9, v8, vcc_lo
    0xd70f6a2e, 0x00025a0a, // v_add_co_u32 v46, vcc_lo, s10, v45
    0x505e100b, // v_add_co_ci_u32_e32 v47, vcc_lo, s11, v8, vcc_lo
    0xdc808000, 0x17080001, // global_load_ubyte_d16 v23, v1, s[8:9]
    0xdc848001, 0x18080001, // global_load_ubyte_d16_hi v24, v1, s[8:9] offset:1
    0xdc888002, 0x19080001, // global_load_sbyte_d16 v25, v1, s[8:9] offset:2
    0xdc8c8003, 0x1a080001, // global_load_sbyte_d16_hi v26, v1, s[8:9] offset:3
    0xdc908005, 0x1b080001, // global_load_short_d16 v27, v1, s[8:9] offset:5
    0xdc948007, 0x1c080001, // global_load_short_d16_hi v28, v1, s[8:9] offset:7
    0xdc8c0009, 0x1d7d002b, // flat_load_sbyte_d16_hi v29, v[43:44] offset:9
    0xdc90000b, 0x1e7d002b, // flat_load_short_d16 v30, v[43:44] offset:11
    0xdc588010, 0x1f080000, // global_load_dword_addtid v31, s[8:9] offset:16
    0xdc648001, 0x000a032d, // global_store_byte_d16_hi v45, v3, s[10:11] offset:1
    0xdc6c8002, 0x000a042d, // global_store_short_d16_hi v45, v4, s[10:11] offset:2
    0xdc640004, 0x007d052e, // flat_store_byte_d16_hi v[46:47], v5 offset:4
    0xdc6c0005, 0x007d062e, // flat_store_short_d16_hi v[46:47], v6 offset:5
    0xdc5c8008, 0x000c0700, // global_store_dword_addtid v7, s[12:13] offset:8
    0xdcc58200, 0x200c0330, // global_atomic_cmpswap v32, v48, v[3:4], s[12:13] offset:512 glc
    0xd70f6a31, 0x0002600c, // v_add_co_u32 v49, vcc_lo, s12, v48
    0x5064100d, // v_add_co_ci_u32_e32 v50, vcc_lo, s13, v8, vcc_lo
    0xdcc40300, 0x007d0531, // flat_atomic_cmpswap v[49:50], v[5:6] offset:768
    0xbf8c3f70, // s_waitcnt vmcnt(0)
    0x34505286, // v_lshlrev_b32_e32 v40, 6, v41
    0xdc788000, 0x00021728, // global_store_dwordx4 v40, v[23:26], s[2:3]
    0xdc788010, 0x00021b28, // global_store_dwordx4 v40, v[27:30], s[2:3] offset:16
    0xdc748020, 0x00021f28, // global_store_dwordx2 v40, v[31:32], s[2:3] offset:32
    0xbf810000, // s_endpgm
];

fn d16(old: u32, x: u16, hi: bool) -> u32 {
    if hi {
        (x as u32) << 16 | (old & 0xffff)
    } else {
        (old & 0xffff_0000) | x as u32
    }
}

#[test]
fn global_d16_and_addtid_match_model() {
    let ctx = common::lavapipe().with_timeout(std::time::Duration::from_secs(600));
    let mut r = Rng(0x0091_0ba1_0d16);
    for (ws, groups) in [(32u32, 4u32), (64, 2)] {
        let n = (ws * groups) as usize;
        let mut params = Vec::new();
        for _ in 0..n {
            params.push(r.below(4000) as u32);
            for _ in 0..6 {
                params.push(r.next() as u32);
            }
            params.push(0);
        }
        let data = r.bytes(4096);
        let target = r.bytes(n * 8);
        let target2 = r.bytes(groups as usize * 1024);
        // Even lanes compare with the value memory holds (the swap happens), odd lanes with a random one.
        for item in 0..n {
            let (lane, g) = (item % ws as usize, item / ws as usize);
            if lane % 2 == 0 {
                let at = |o: usize| {
                    u32::from_le_bytes(target2[g * 1024 + o + 4 * lane..][..4].try_into().unwrap())
                };
                params[8 * item + 3] = at(512);
                params[8 * item + 5] = at(768);
            }
        }
        let program = lift_words("global_d16", KERNEL, ws);
        let both = run_both(
            &ctx,
            &program,
            vec![
                words_le(&params),
                vec![0xee; n * 64],
                data.clone(),
                target.clone(),
                target2.clone(),
            ],
            |_| Vec::new(),
            |a| {
                let mut sgprs = vec![(14, SgprInit::WorkgroupId(0)), (18, SgprInit::Const(ws))];
                for (k, i) in [(0u16, 0usize), (2, 1), (8, 2), (10, 3), (12, 4)] {
                    sgprs.push((k, SgprInit::Const(a[i] as u32)));
                    sgprs.push((k + 1, SgprInit::Const((a[i] >> 32) as u32)));
                }
                Launch {
                    wave_size: ws,
                    grid: [ws * groups, 1, 1],
                    workgroup: [ws, 1, 1],
                    sgprs,
                    workitem_id_vgprs: 1,
                    lds_bytes: 0,
                    scratch_bytes: 0,
                    max_steps_per_wave: 1000,
                    code_base: None,
                }
            },
        );
        let mut out = vec![0xeeu8; n * 64];
        let mut t = target.clone();
        let mut t2 = target2.clone();
        let mut swaps = 0;
        let b = |o: u32| data[o as usize];
        let h = |o: u32| u16::from_le_bytes([data[o as usize], data[o as usize + 1]]);
        for item in 0..n as u32 {
            let p = &params[8 * item as usize..][..8];
            let (o, s, lane, g) = (p[0], p[1], item % ws, item / ws);
            let sx = |x: u8| x as i8 as i16 as u16;
            let v = [
                d16(s, b(o) as u16, false),
                d16(s, b(o + 1) as u16, true),
                d16(s, sx(b(o + 2)), false),
                d16(s, sx(b(o + 3)), true),
                d16(s, h(o + 5), false),
                d16(s, h(o + 7), true),
                d16(s, sx(b(o + 9)), true),
                d16(s, h(o + 11), false),
                u32::from_le_bytes(data[16 + 4 * lane as usize..][..4].try_into().unwrap()),
                u32::from_le_bytes(
                    t2[g as usize * 1024 + 512 + 4 * lane as usize..][..4]
                        .try_into()
                        .unwrap(),
                ),
            ];
            for (j, w) in v.iter().enumerate() {
                out[(item as usize * 16 + j) * 4..][..4].copy_from_slice(&w.to_le_bytes());
            }
            let base = item as usize * 8;
            t[base + 1] = (p[2] >> 16) as u8;
            t[base + 2..base + 4].copy_from_slice(&((p[3] >> 16) as u16).to_le_bytes());
            t[base + 4] = (p[4] >> 16) as u8;
            t[base + 5..base + 7].copy_from_slice(&((p[5] >> 16) as u16).to_le_bytes());
            let g2 = g as usize * 1024 + 4 * lane as usize;
            t2[g2 + 8..][..4].copy_from_slice(&p[6].to_le_bytes());
            for (o, src, cmp) in [(512, p[2], p[3]), (768, p[4], p[5])] {
                let old = u32::from_le_bytes(t2[g2 + o..][..4].try_into().unwrap());
                if old == cmp {
                    t2[g2 + o..][..4].copy_from_slice(&src.to_le_bytes());
                    swaps += 1;
                }
            }
        }
        expect_same(
            &format!("w{ws} loads"),
            &both.host[1],
            &both.device[1],
            &out,
        );
        expect_same(
            &format!("w{ws} d16_hi stores"),
            &both.host[3],
            &both.device[3],
            &t,
        );
        expect_same(
            &format!("w{ws} addtid and cmpswap targets"),
            &both.host[4],
            &both.device[4],
            &t2,
        );
        assert_eq!(swaps, n, "half the lanes swap in each of the two cmpswaps");
        eprintln!(
            "global d16/addtid/cmpswap w{ws}: {n} work-items identical on host, device and model"
        );
    }
}
