//! M0-relative register indexing (D100): every form, host evaluator vs lavapipe bit for bit, and both
//! against a reference written here from the ISA's definitions (AMD RDNA 2 ISA guide: the SOP1/VOP1
//! descriptions of S_MOVRELS/S_MOVRELD/S_MOVRELSD_2 and V_MOVRELS/V_MOVRELD/V_MOVRELSD/V_MOVRELSD_2/
//! V_SWAPREL; "Out-of-Range behavior": a source out of range reads register 0, a destination out of range
//! is not written and a VALU instruction with one is ignored), not from the IR.
//!
//! One wave per workgroup; M0 comes per wave from a table (every in-range index of the form's bases, the
//! boundaries, the 10-bit fields of the `_2` forms, random 32-bit values): each vector form runs 128 indices
//! × 32 lanes of random register contents = 4,096 operand sets, each scalar form 256 indices (the index
//! domain exhaustively: all 106 in-range indices and past the end) over 106 random SGPRs.
//!   VALU frame: v0–v38 loaded from the input, v39 = the lane's byte offset (input and output: 40 dwords per
//!   lane), the form, v0–v39 stored. The modelled VGPR allocation is 40 (LiftExtras::vgpr_count), so indexing
//!   reaches every register of the frame; indices that would write v39 (the store address) are left out.
//!   SALU frame: s0–s3 buffer addresses, s4 the workgroup id, s5 = M0's value, s[6:7] the M0 table, s8–s105
//!   constants; after the form the 106 SGPRs go to VGPR lanes (v_writelane_b32) and are stored.
//! Instruction words from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding` (in the comments).

#[path = "support/frame.rs"]
mod frame;

use frame::{lavapipe, le};
use rdna2spv_eval::{Launch, Memory, SgprInit};
use rdna2spv_ir::lift::{lift_ext, LiftExtras, LiftOptions};
use rdna2spv_ir::Program;
use rdna2spv_isa::Target;
use rdna2spv_spirv::lower::LowerOptions;
use rdna2spv_vulkan::{run_with_buffers, DeviceProfile};

/// Waves (one M0 value each) per vector form (× 32 lanes = 4,096 operand sets) and per scalar form (every
/// in-range index of the form's bases, both fields of the `_2` form, boundaries, random values).
const VWAVES: usize = 128;
const SWAVES: usize = 256;
const NV: usize = 40;
const NS: usize = 106;

/// A deterministic generator (SplitMix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

// ----------------------------------------------------------------------------------------------------
// The reference: register files as arrays, indices as the ISA defines them.

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    SMovrels32,
    SMovrels64,
    SMovreld32,
    SMovreld64,
    SMovrelsd2,
    VMovrels,
    VMovreld,
    VMovrelsd,
    VMovrelsd2,
    VSwaprel,
}

/// (source index, destination index) of M0 for the op: all of M0, or M0[9:0] / M0[25:16].
fn split(op: Op, m0: u32) -> (u64, u64) {
    match op {
        Op::SMovrelsd2 | Op::VMovrelsd2 | Op::VSwaprel => {
            ((m0 & 0x3ff) as u64, ((m0 >> 16) & 0x3ff) as u64)
        }
        _ => (m0 as u64, m0 as u64),
    }
}

/// The SGPR file after a scalar form with register fields `d` (sdst) and `s` (ssrc0).
fn sref(op: Op, d: u32, s: u32, m0: u32, f: &mut [u32; NS]) {
    let (si, di) = split(op, m0);
    let read = |f: &[u32; NS], i: u64, w: u64| -> Vec<u32> {
        if i + w <= NS as u64 {
            (0..w).map(|k| f[(i + k) as usize]).collect()
        } else {
            (0..w).map(|k| f[k as usize]).collect()
        }
    };
    let write = |f: &mut [u32; NS], i: u64, v: &[u32]| {
        if i + v.len() as u64 <= NS as u64 {
            for (k, x) in v.iter().enumerate() {
                f[i as usize + k] = *x;
            }
        }
    };
    match op {
        Op::SMovrels32 | Op::SMovrels64 => {
            let w = if op == Op::SMovrels64 { 2 } else { 1 };
            let v = read(f, s as u64 + si, w);
            for (k, x) in v.iter().enumerate() {
                f[d as usize + k] = *x;
            }
        }
        Op::SMovreld32 | Op::SMovreld64 => {
            let w = if op == Op::SMovreld64 { 2 } else { 1 };
            let v: Vec<u32> = (0..w).map(|k| f[s as usize + k]).collect();
            write(f, d as u64 + di, &v);
        }
        Op::SMovrelsd2 => {
            let v = read(f, s as u64 + si, 1);
            write(f, d as u64 + di, &v);
        }
        _ => unreachable!(),
    }
}

/// One lane's VGPRs after a vector form with register fields `d` (vdst) and `s` (src0).
fn vref(op: Op, d: u32, s: u32, m0: u32, f: &mut [u32; NV]) {
    let (si, di) = split(op, m0);
    let n = NV as u64;
    let src = |f: &[u32; NV], i: u64| if i < n { f[i as usize] } else { f[0] };
    match op {
        Op::VMovrels => f[d as usize] = src(f, s as u64 + si),
        Op::VMovreld => {
            let v = f[s as usize];
            if d as u64 + di < n {
                f[(d as u64 + di) as usize] = v;
            }
        }
        Op::VMovrelsd | Op::VMovrelsd2 => {
            let v = src(f, s as u64 + si);
            if d as u64 + di < n {
                f[(d as u64 + di) as usize] = v;
            }
        }
        Op::VSwaprel => {
            let (a, b) = (s as u64 + si, d as u64 + di);
            if a < n && b < n {
                f.swap(a as usize, b as usize);
            }
        }
        _ => unreachable!(),
    }
}

// ----------------------------------------------------------------------------------------------------
// Encoders (checked against llvm-mc-19 in `encoders_match_llvm`).

fn sop1(op: u32, sdst: u32, ssrc0: u32) -> Vec<u32> {
    vec![0xbe80_0000 | (sdst << 16) | (op << 8) | ssrc0]
}
fn vop1(op: u32, vdst: u32, vsrc: u32) -> Vec<u32> {
    vec![0x7e00_0000 | (vdst << 17) | (op << 9) | (256 + vsrc)]
}
fn vop3(op: u32, vdst: u32, vsrc: u32) -> Vec<u32> {
    vec![0xd400_0000 | (op << 16) | vdst, 256 + vsrc]
}

#[test]
fn encoders_match_llvm() {
    assert_eq!(sop1(0x2e, 10, 20), [0xbe8a_2e14]); // s_movrels_b32 s10, s20
    assert_eq!(sop1(0x31, 20, 10), [0xbe94_310a]); // s_movreld_b64 s[20:21], s[10:11]
    assert_eq!(sop1(0x49, 20, 30), [0xbe94_491e]); // s_movrelsd_2_b32 s20, s30
    assert_eq!(vop1(0x43, 5, 7), [0x7e0a_8707]); // v_movrels_b32_e32 v5, v7
    assert_eq!(vop1(0x68, 5, 7), [0x7e0a_d107]); // v_swaprel_b32 v5, v7
    assert_eq!(vop3(0x1c8, 5, 7), [0xd5c8_0005, 0x0000_0107]); // v_movrelsd_2_b32_e64 v5, v7
}

/// A form: the op, its words, its destination and source register fields.
struct Form {
    name: &'static str,
    op: Op,
    words: Vec<u32>,
    d: u32,
    s: u32,
}

fn vector_forms() -> Vec<Form> {
    // Bases chosen so that every form reaches both ends of the 40-register file.
    let mk = |name, op, e64: bool, code: u32, d: u32, s: u32| Form {
        name,
        op,
        words: if e64 {
            vop3(code, d, s)
        } else {
            vop1(code, d, s)
        },
        d,
        s,
    };
    vec![
        mk("v_movrels_b32_e32", Op::VMovrels, false, 0x43, 5, 7),
        mk("v_movrels_b32_e64", Op::VMovrels, true, 0x1c3, 38, 0),
        mk("v_movreld_b32_e32", Op::VMovreld, false, 0x42, 3, 11),
        mk("v_movreld_b32_e64", Op::VMovreld, true, 0x1c2, 0, 38),
        mk("v_movrelsd_b32_e32", Op::VMovrelsd, false, 0x44, 2, 9),
        mk("v_movrelsd_b32_e64", Op::VMovrelsd, true, 0x1c4, 12, 1),
        mk("v_movrelsd_2_b32_e32", Op::VMovrelsd2, false, 0x48, 4, 6),
        mk("v_movrelsd_2_b32_e64", Op::VMovrelsd2, true, 0x1c8, 0, 20),
        mk("v_swaprel_b32", Op::VSwaprel, false, 0x68, 1, 8),
    ]
}

fn scalar_forms() -> Vec<Form> {
    let mk = |name, op, code: u32, d: u32, s: u32| Form {
        name,
        op,
        words: sop1(code, d, s),
        d,
        s,
    };
    vec![
        mk("s_movrels_b32", Op::SMovrels32, 0x2e, 10, 20),
        mk("s_movrels_b64", Op::SMovrels64, 0x2f, 12, 0),
        mk("s_movreld_b32", Op::SMovreld32, 0x30, 9, 14),
        mk("s_movreld_b64", Op::SMovreld64, 0x31, 8, 16),
        mk("s_movrelsd_2_b32", Op::SMovrelsd2, 0x49, 11, 3),
    ]
}

/// M0 values for a form: every index 0..=n+2 for both fields, the 10-bit fields' ends, random values;
/// `keep(m0)` filters out the values the frame cannot run.
fn m0_table(op: Op, n: u32, waves: usize, seed: u64, keep: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut rng = Rng(seed);
    let two = matches!(op, Op::SMovrelsd2 | Op::VMovrelsd2 | Op::VSwaprel);
    let mut t: Vec<u32> = Vec::new();
    for i in 0..=n + 2 {
        if two {
            let j = [0, 1, i / 2, n - 1, n, 0x3ff][i as usize % 6];
            t.push((j << 16) | i);
            t.push((i << 16) | j);
        } else {
            t.push(i);
        }
    }
    t.extend([
        0x3ff,
        0x3ff << 16,
        0x03ff_03ff,
        0xfc00_fc00,
        0x8000_0000,
        u32::MAX,
        1 << 16,
    ]);
    while t.len() < 4 * waves {
        let r = rng.next();
        let v = match r % 4 {
            0 => (r >> 8) as u32,
            1 => (r >> 8) as u32 % (2 * n),
            // Reserved bits set around small fields.
            2 => {
                ((r >> 8) as u32 & 0xfc00_fc00)
                    | (((r >> 40) as u32 % n) << 16)
                    | ((r >> 50) as u32 % n)
            }
            _ => (((r >> 8) as u32 % n) << 16) | ((r >> 30) as u32 % n),
        };
        t.push(v);
    }
    t.retain(|&m| keep(m));
    t.truncate(waves);
    assert_eq!(t.len(), waves);
    t
}

fn lift_frame(words: &[u32]) -> Program {
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    lift_ext(
        "movrel",
        &code,
        LiftOptions {
            target: Target::Gfx1030,
            wave_size: 32,
            private_segment_buffer: None,
        },
        &LiftExtras {
            vgpr_count: Some(NV as u32),
            ..Default::default()
        },
    )
    .expect("the frame lifts")
}

fn launch(addrs: &[u64], consts: &[(u16, u32)], waves: usize) -> Launch {
    let mut sgprs = vec![
        (0, SgprInit::Const(addrs[0] as u32)),
        (1, SgprInit::Const((addrs[0] >> 32) as u32)),
        (2, SgprInit::Const(addrs[1] as u32)),
        (3, SgprInit::Const((addrs[1] >> 32) as u32)),
        (4, SgprInit::WorkgroupId(0)),
        (6, SgprInit::Const(addrs[2] as u32)),
        (7, SgprInit::Const((addrs[2] >> 32) as u32)),
    ];
    sgprs.extend(consts.iter().map(|&(r, v)| (r, SgprInit::Const(v))));
    Launch {
        wave_size: 32,
        grid: [32 * waves as u32, 1, 1],
        workgroup: [32, 1, 1],
        sgprs,
        workitem_id_vgprs: 1,
        lds_bytes: 0,
        scratch_bytes: 0,
        max_steps_per_wave: 100_000,
        code_base: None,
    }
}

/// Runs `p` over the buffers on the host and on lavapipe; returns (addresses, host out, device out).
fn run_both(
    p: &Program,
    init: Vec<Vec<u8>>,
    consts: &[(u16, u32)],
    waves: usize,
) -> (Vec<u64>, Vec<u32>, Vec<u32>) {
    let ctx = lavapipe();
    let prof = DeviceProfile::portable();
    let run = run_with_buffers(
        &ctx,
        p,
        &init,
        |a| launch(a, consts, waves),
        &prof,
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("device run failed: {e}"));
    let mut mem = Memory::default();
    for (i, b) in init.iter().enumerate() {
        mem.add(&format!("buf{i}"), run.addresses[i], b.clone())
            .unwrap();
    }
    rdna2spv_eval::run(p, &run.launch, &mut mem).expect("the evaluator runs");
    let host = le(&mem.allocation("buf1").unwrap().data);
    (run.addresses.clone(), host, le(&run.outputs[1]))
}

fn table_bytes(t: &[u32]) -> Vec<u8> {
    t.iter().flat_map(|x| x.to_le_bytes()).collect()
}

// coverage: vector_relative_moves: V_MOVRELS_B32 V_MOVRELD_B32 V_MOVRELSD_B32 V_MOVRELSD_2_B32 V_SWAPREL_B32
#[test]
fn vector_relative_moves() {
    // s_lshl_b32 s5, s4, 5                            [0x04,0x85,0x05,0x8f]
    // v_add_nc_u32_e32 v39, s5, v0                    [0x05,0x00,0x4e,0x4a]
    // v_mul_u32_u24_e32 v39, 0xa0, v39                [0xff,0x4e,0x4e,0x16,0xa0,0x00,0x00,0x00]
    // s_lshl_b32 s5, s4, 2                            [0x04,0x82,0x05,0x8f]
    // s_load_dword s5, s[6:7], s5                     [0x43,0x01,0x00,0xf4,0x00,0x00,0x00,0x0a]
    // global_load_dwordx4 v[4k:4k+3], v39, s[0:1] offset:16k   [0x10*k,0x80,0x38,0xdc,0x27,0x00,0x00,4k]
    // global_load_dwordx3 v[36:38], v39, s[0:1] offset:144      [0x90,0x80,0x3c,0xdc,0x27,0x00,0x00,0x24]
    // s_waitcnt vmcnt(0) lgkmcnt(0)                   [0x70,0x00,0x8c,0xbf]
    // s_mov_b32 m0, s5                                [0x05,0x03,0xfc,0xbe]
    let mut head = vec![
        0x8f05_8504,
        0x4a4e_0005,
        0x164e_4eff,
        0xa0,
        0x8f05_8204,
        0xf400_0143,
        0x0a00_0000,
    ];
    for k in 0..9u32 {
        head.extend([0xdc38_8000 | (16 * k), 0x0000_0027 | ((4 * k) << 24)]);
    }
    head.extend([0xdc3c_8090, 0x2400_0027, 0xbf8c_0070, 0xbefc_0305]);
    // global_store_dwordx4 v39, v[4k:4k+3], s[2:3] offset:16k   [0x10*k,0x80,0x78,0xdc,0x27,4k,0x02,0x00]
    let mut tail = Vec::new();
    for k in 0..10u32 {
        tail.extend([0xdc78_8000 | (16 * k), 0x0002_0027 | ((4 * k) << 8)]);
    }
    tail.push(0xbf81_0000);
    let mut rng = Rng(0x5eed_0001);
    let lanes = 32 * VWAVES;
    let input: Vec<u32> = (0..lanes * NV).map(|_| rng.next() as u32).collect();
    let mut mismatches = Vec::new();
    for (fi, f) in vector_forms().into_iter().enumerate() {
        // Leave out the indices that would write v39 (the frame's store offset).
        let writes39 = |m0: u32| {
            let (si, di) = split(f.op, m0);
            let d = f.d as u64 + di == 39;
            match f.op {
                Op::VMovrels => false,
                Op::VSwaprel => {
                    (d || f.s as u64 + si == 39) && f.s as u64 + si < 40 && f.d as u64 + di < 40
                }
                _ => d,
            }
        };
        let table = m0_table(f.op, NV as u32, VWAVES, 100 + fi as u64, |m| !writes39(m));
        let mut words = head.clone();
        words.extend(&f.words);
        words.extend(&tail);
        let p = lift_frame(&words);
        let init = vec![
            table_bytes(&input),
            vec![0u8; lanes * NV * 4],
            table_bytes(&table),
        ];
        let (_, host, dev) = run_both(&p, init, &[], VWAVES);
        let mut bad = 0;
        for lane in 0..lanes {
            let mut regs = [0u32; NV];
            regs.copy_from_slice(&input[lane * NV..(lane + 1) * NV]);
            regs[39] = (lane * NV * 4) as u32;
            let m0 = table[lane / 32];
            vref(f.op, f.d, f.s, m0, &mut regs);
            for r in 0..NV {
                let (h, d) = (host[lane * NV + r], dev[lane * NV + r]);
                if (h != regs[r] || d != regs[r]) && bad < 5 {
                    mismatches.push(format!(
                        "{}: lane {lane} m0 {m0:#x} v{r}: want {:#x} host {h:#x} device {d:#x}",
                        f.name, regs[r]
                    ));
                }
                bad += usize::from(h != regs[r] || d != regs[r]);
            }
        }
        eprintln!(
            "{}: {} lanes x {NV} registers, {bad} mismatches",
            f.name, lanes
        );
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

// coverage: scalar_relative_moves: S_MOVRELS_B32 S_MOVRELS_B64 S_MOVRELD_B32 S_MOVRELD_B64 S_MOVRELSD_2_B32
#[test]
fn scalar_relative_moves() {
    // s_lshl_b32 s5, s4, 5                            [0x04,0x85,0x05,0x8f]
    // v_add_nc_u32_e32 v39, s5, v0                    [0x05,0x00,0x4e,0x4a]
    // v_lshlrev_b32_e32 v39, 4, v39                   [0x84,0x4e,0x4e,0x34]
    // v_mov_b32_e32 v37, s2                           [0x02,0x02,0x4a,0x7e]
    // v_mov_b32_e32 v38, s3                           [0x03,0x02,0x4c,0x7e]
    // s_lshl_b32 s5, s4, 2                            [0x04,0x82,0x05,0x8f]
    // s_load_dword s5, s[6:7], s5                     [0x43,0x01,0x00,0xf4,0x00,0x00,0x00,0x0a]
    // s_waitcnt vmcnt(0) lgkmcnt(0)                   [0x70,0x00,0x8c,0xbf]
    // s_mov_b32 m0, s5                                [0x05,0x03,0xfc,0xbe]
    let head = vec![
        0x8f05_8504,
        0x4a4e_0005,
        0x344e_4e84,
        0x7e4a_0202,
        0x7e4c_0203,
        0x8f05_8204,
        0xf400_0143,
        0x0a00_0000,
        0xbf8c_0070,
        0xbefc_0305,
    ];
    // v_writelane_b32 v(k/32), s(k), k%32             [v,0x00,0x61,0xd7, s,lane<<1,0x01,0x00]
    let mut tail = Vec::new();
    for k in 0..NS as u32 {
        tail.extend([0xd761_0000 | (k / 32), k | ((128 + k % 32) << 9)]);
    }
    // v_add_co_u32 v37, vcc_lo, v37, v39              [0x25,0x6a,0x0f,0xd7,0x25,0x4f,0x02,0x00]
    // v_add_co_ci_u32_e32 v38, vcc_lo, 0, v38, vcc_lo [0x80,0x4c,0x4c,0x50]
    // global_store_dwordx4 v[37:38], v[0:3], off      [0x00,0x80,0x78,0xdc,0x25,0x00,0x7d,0x00]
    // s_endpgm
    tail.extend([
        0xd70f_6a25,
        0x0002_4f25,
        0x504c_4c80,
        0xdc78_8000,
        0x007d_0025,
        0xbf81_0000,
    ]);
    let mut rng = Rng(0x5eed_0002);
    let consts: Vec<(u16, u32)> = (8..NS as u16).map(|r| (r, rng.next() as u32)).collect();
    let mut mismatches = Vec::new();
    for (fi, f) in scalar_forms().into_iter().enumerate() {
        // The M0 table's own address (s[6:7]) and the frame's s0–s5 may be overwritten: the frame reads
        // nothing from them after the form.
        let table = m0_table(f.op, NS as u32, SWAVES, 200 + fi as u64, |_| true);
        let mut words = head.clone();
        words.extend(&f.words);
        words.extend(&tail);
        let p = lift_frame(&words);
        let init = vec![
            vec![0u8; 4],
            vec![0u8; SWAVES * 32 * 16],
            table_bytes(&table),
        ];
        let (addrs, host, dev) = run_both(&p, init, &consts, SWAVES);
        let mut bad = 0;
        for (w, &m0) in table.iter().enumerate() {
            let mut regs = [0u32; NS];
            regs[0] = addrs[0] as u32;
            regs[1] = (addrs[0] >> 32) as u32;
            regs[2] = addrs[1] as u32;
            regs[3] = (addrs[1] >> 32) as u32;
            regs[4] = w as u32;
            regs[5] = m0;
            regs[6] = addrs[2] as u32;
            regs[7] = (addrs[2] >> 32) as u32;
            for &(r, v) in &consts {
                regs[r as usize] = v;
            }
            sref(f.op, f.d, f.s, m0, &mut regs);
            for (k, &want) in regs.iter().enumerate() {
                // SGPR k sits in lane k % 32 of v(k / 32): dword k / 32 of lane k % 32's record.
                let at = (w * 32 + k % 32) * 4 + k / 32;
                let (h, d) = (host[at], dev[at]);
                if (h != want || d != want) && bad < 5 {
                    mismatches.push(format!(
                        "{}: wave {w} m0 {m0:#x} s{k}: want {want:#x} host {h:#x} device {d:#x}",
                        f.name
                    ));
                }
                bad += usize::from(h != want || d != want);
            }
        }
        eprintln!("{}: {SWAVES} waves x {NS} SGPRs, {bad} mismatches", f.name);
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
