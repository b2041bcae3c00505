//! Scalar memory through V#s and SGPR pairs (lift/smem.rs, decision D069) on lavapipe and in the evaluator,
//! against an independent Rust model of scalar addressing written from the RDNA 2 ISA guide: a scalar
//! buffer access reads or writes the dwords at `(BASE[47:0] + soffset + offset + 4 * i) & !3` (the V#'s
//! STRIDE bits in word 1 take no part), `s_store` at `(pair + offset + 4 * i) & !3`; the clocks read 0
//! (D069).
//!
//! The kernel (gfx1010: `s_store_*` and `s_buffer_store_*` do not exist on gfx1030; assembled by
//! llvm-mc-19 `-mcpu=gfx1010`; the text is llvm-mc's disassembly of the words, which our decoder must
//! print identically) runs one wave
//! per workgroup, looping over 16 operand sets. Each iteration loads its own operand set with
//! `s_load_dwordx16` from a table: a load V# whose
//! base is a random (unaligned) point in a random source buffer and whose stride bits are random, a random
//! unaligned soffset, a store V# and an SGPR pair addressing the wave's own output region, and a random
//! store soffset. It runs every `s_buffer_load` width, both clocks, every `s_buffer_store` width and
//! `s_store_dword`/`x2`/`x4` (these write every loaded dword out). 256 waves × 16 iterations: 4,096
//! operand sets per opcode (a wave per operand set cost ~0.2 s CPU each on lavapipe; the loop amortises it).

mod common;
mod memcommon;

use memcommon::{expect_same, run_both, words_le, Rng};
use rdna2spv_eval::{Launch, SgprInit};
use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_isa::{decode, PrintOptions, Target};

// coverage: scalar_memory_matches_model: S_BUFFER_LOAD_DWORD S_BUFFER_LOAD_DWORDX2 S_BUFFER_LOAD_DWORDX4 S_BUFFER_LOAD_DWORDX8 S_BUFFER_LOAD_DWORDX16 S_BUFFER_STORE_DWORD S_BUFFER_STORE_DWORDX2 S_BUFFER_STORE_DWORDX4 S_STORE_DWORD S_STORE_DWORDX2 S_STORE_DWORDX4 S_MEMTIME S_MEMREALTIME

/// s[0:1] the operand table (16 dwords per operand set), s2 the workgroup id; each wave runs the body for
/// operand sets `16 * workgroup + i`, i = 0..15 (s56), a loop closed by `s_cbranch_scc1`.
const KERNEL: &[(&str, &[u32])] = &[
    ("s_mov_b32 s56, 0", &[0xbeb80380]),
    ("s_lshl_b32 s3, s2, 4", &[0x8f038402]),
    ("s_add_u32 s3, s3, s56", &[0x80033803]),
    ("s_lshl_b32 s3, s3, 6", &[0x8f038603]),
    (
        "s_load_dwordx16 s[4:19], s[0:1], s3",
        &[0xf4100100, 0x06000000],
    ),
    ("s_waitcnt lgkmcnt(0)", &[0xbf8cc07f]),
    (
        "s_buffer_load_dword s20, s[4:7], s12 offset:0x10",
        &[0xf4200502, 0x18000010],
    ),
    (
        "s_buffer_load_dwordx2 s[22:23], s[4:7], s12 offset:0x24",
        &[0xf4240582, 0x18000024],
    ),
    (
        "s_buffer_load_dwordx4 s[24:27], s[4:7], 0x100",
        &[0xf4280602, 0xfa000100],
    ),
    (
        "s_buffer_load_dwordx8 s[28:35], s[4:7], s12",
        &[0xf42c0702, 0x18000000],
    ),
    (
        "s_buffer_load_dwordx16 s[36:51], s[4:7], s12 offset:0x40",
        &[0xf4300902, 0x18000040],
    ),
    ("s_memtime s[52:53]", &[0xf4900d00, 0x00000000]),
    ("s_memrealtime s[54:55]", &[0xf4940d80, 0x00000000]),
    ("s_waitcnt lgkmcnt(0)", &[0xbf8cc07f]),
    (
        "s_buffer_store_dword s20, s[8:11], s13",
        &[0xf4600504, 0x1a000000],
    ),
    (
        "s_buffer_store_dwordx2 s[22:23], s[8:11], s13 offset:0x10",
        &[0xf4640584, 0x1a000010],
    ),
    (
        "s_buffer_store_dwordx4 s[24:27], s[8:11], s13 offset:0x20",
        &[0xf4680604, 0x1a000020],
    ),
    (
        "s_store_dwordx4 s[28:31], s[14:15], null",
        &[0xf4480707, 0xfa000000],
    ),
    (
        "s_store_dwordx4 s[32:35], s[14:15], 0x10",
        &[0xf4480807, 0xfa000010],
    ),
    (
        "s_store_dwordx4 s[36:39], s[14:15], 0x20",
        &[0xf4480907, 0xfa000020],
    ),
    (
        "s_store_dwordx4 s[40:43], s[14:15], 0x30",
        &[0xf4480a07, 0xfa000030],
    ),
    (
        "s_store_dwordx4 s[44:47], s[14:15], 0x40",
        &[0xf4480b07, 0xfa000040],
    ),
    (
        "s_store_dwordx4 s[48:51], s[14:15], 0x50",
        &[0xf4480c07, 0xfa000050],
    ),
    (
        "s_store_dwordx4 s[52:55], s[14:15], 0x60",
        &[0xf4480d07, 0xfa000060],
    ),
    (
        "s_store_dword s20, s[14:15], 0x70",
        &[0xf4400507, 0xfa000070],
    ),
    (
        "s_store_dwordx2 s[22:23], s[14:15], 0x78",
        &[0xf4440587, 0xfa000078],
    ),
    ("s_dcache_wb", &[0xf4840000, 0x00000000]),
    ("s_add_u32 s56, s56, 1", &[0x80388138]),
    ("s_cmp_lt_u32 s56, 16", &[0xbf0a9038]),
    ("s_cbranch_scc1 65486", &[0xbf85ffce]),
    ("s_endpgm", &[0xbf810000]),
];

/// Waves (one per workgroup), each looping over `PER_WAVE` operand sets.
const WAVES: usize = 256;
const PER_WAVE: usize = 16;
const CASES: usize = WAVES * PER_WAVE;
const SRC: usize = 65536;
const REGION: usize = 256;

struct Case {
    load_base: u64,
    load_stride_bits: u32,
    load_so: u32,
    store_so: u32,
}

fn read(src: &[u8], src_addr: u64, addr: u64) -> u32 {
    let a = ((addr & !3) - src_addr) as usize;
    u32::from_le_bytes(src[a..a + 4].try_into().unwrap())
}

/// The expected output region of one wave.
fn model(c: &Case, src: &[u8], src_addr: u64) -> Vec<u8> {
    let mut out = vec![0u8; REGION];
    let ld = |imm: u64, so: bool, n: usize| -> Vec<u32> {
        let start = src_addr + c.load_base + if so { c.load_so as u64 } else { 0 } + imm;
        (0..n as u64)
            .map(|i| read(src, src_addr, start + 4 * i))
            .collect()
    };
    let s20 = ld(0x10, true, 1);
    let s22 = ld(0x24, true, 2);
    let s24 = ld(0x100, false, 4);
    let s28 = ld(0, true, 8);
    let s36 = ld(0x40, true, 16);
    let mut put = |at: u64, vals: &[u32]| {
        for (i, v) in vals.iter().enumerate() {
            let a = ((at + 4 * i as u64) & !3) as usize;
            out[a..a + 4].copy_from_slice(&v.to_le_bytes());
        }
    };
    let so = c.store_so as u64;
    put(so, &s20);
    put(so + 0x10, &s22);
    put(so + 0x20, &s24);
    let mut all = s28.clone();
    all.extend(&s36);
    all.extend([0, 0, 0, 0]); // s_memtime, s_memrealtime (D069)
    put(64, &all);
    put(64 + 0x70, &s20);
    put(64 + 0x78, &s22);
    out
}

#[test]
fn scalar_memory_matches_model() {
    for (text, words) in KERNEL {
        let ins = decode(words, Target::Gfx1010).expect("decodes");
        assert_eq!(ins.len(), words.len(), "{text}");
        assert_eq!(ins.text(PrintOptions { wave64: false }), *text);
    }
    let words: Vec<u32> = KERNEL.iter().flat_map(|(_, w)| w.iter().copied()).collect();
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let program = lift(
        "scalar_memory",
        &code,
        LiftOptions {
            target: Target::Gfx1010,
            wave_size: 32,
            private_segment_buffer: None,
        },
    )
    .expect("the kernel lifts");
    let mut rng = Rng(0x5e3e_0001);
    let src = rng.bytes(SRC);
    let cases: Vec<Case> = (0..CASES)
        .map(|_| Case {
            load_base: rng.below(16384),
            load_stride_bits: rng.below(1 << 16) as u32,
            load_so: rng.below(4096) as u32,
            store_so: rng.below(16) as u32,
        })
        .collect();
    let ctx = common::lavapipe();
    let both = run_both(
        &ctx,
        &program,
        vec![src.clone(), vec![0; CASES * REGION]],
        |a| {
            let (src_addr, out_addr) = (a[0], a[1]);
            let mut t = Vec::new();
            for (w, c) in cases.iter().enumerate() {
                let lb = src_addr + c.load_base;
                let sb = out_addr + (w * REGION) as u64;
                let pair = sb + 64;
                let mut d = [0u32; 16];
                d[0] = lb as u32;
                d[1] = (lb >> 32) as u32 & 0xffff | c.load_stride_bits << 16;
                d[2] = u32::MAX;
                d[4] = sb as u32;
                d[5] = (sb >> 32) as u32 & 0xffff | (c.load_stride_bits ^ 0x5555) << 16;
                d[6] = u32::MAX;
                d[8] = c.load_so;
                d[9] = c.store_so;
                d[10] = pair as u32;
                d[11] = (pair >> 32) as u32;
                t.extend(d);
            }
            vec![words_le(&t)]
        },
        |a| Launch {
            wave_size: 32,
            grid: [(WAVES * 32) as u32, 1, 1],
            workgroup: [32, 1, 1],
            sgprs: vec![
                (0, SgprInit::Const(a[2] as u32)),
                (1, SgprInit::Const((a[2] >> 32) as u32)),
                (2, SgprInit::WorkgroupId(0)),
            ],
            workitem_id_vgprs: 1,
            lds_bytes: 0,
            scratch_bytes: 0,
            max_steps_per_wave: 1_000_000,
            code_base: None,
        },
    );
    let src_addr = both.addresses[0];
    let want: Vec<u8> = cases
        .iter()
        .flat_map(|c| model(c, &src, src_addr))
        .collect();
    expect_same("scalar memory", &both.host[1], &both.device[1], &want);
}

/// `global_load_dword_addtid` with saddr = off addresses `offset + lane * 4` absolutely (no SGPR term,
/// LLVM's gfx10/gfx11 operand pages): no allocation is there, so the host evaluator stops with a fault that
/// names the wave, the instruction and the address instead of reading anything (no device run: the
/// unchecked device would read a wild address).
#[test]
fn addtid_without_sgpr_base_faults_on_the_host() {
    let words = [0xdc58_8010, 0x017d_0000, 0xbf81_0000];
    let ins = decode(&words, Target::Gfx1030).expect("decodes");
    assert_eq!(
        ins.text(PrintOptions { wave64: false }),
        "global_load_dword_addtid v1, off offset:16"
    );
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let program = lift(
        "addtid_off",
        &code,
        LiftOptions {
            target: Target::Gfx1030,
            wave_size: 32,
            private_segment_buffer: None,
        },
    )
    .expect("lifts");
    let launch = Launch {
        wave_size: 32,
        grid: [32, 1, 1],
        workgroup: [32, 1, 1],
        sgprs: vec![],
        workitem_id_vgprs: 1,
        lds_bytes: 0,
        scratch_bytes: 0,
        max_steps_per_wave: 100,
        code_base: None,
    };
    let mut mem = rdna2spv_eval::Memory::default();
    let e = rdna2spv_eval::run(&program, &launch, &mut mem)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("wave 0") && e.contains("global_load_dword_addtid") && e.contains("0x10"),
        "{e}"
    );
}
