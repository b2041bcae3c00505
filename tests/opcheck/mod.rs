//! opcheck: a reusable per-opcode differential harness (docs/add-an-instruction.md, "Testing an instruction").
//!
//! One instruction under test (real words, from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`, the
//! text written next to them and checked against our LLVM-identical printer) is placed in a fixed wave32
//! frame kernel (one wave per workgroup). Every work-item loads 16 input dwords into v0..v15; the frame loads
//! lane 0's 16 dwords into s8..s23 (`s_load_dwordx16`), so each wave has its own SGPR operands; VCC_LO starts as s22, SCC as
//! `s23 & 1`, and with [`Exec::FromInput`] EXEC is `s21 | 0x100` while the instruction runs. After the
//! instruction the frame stores 16 dwords per work-item: v8..v15, s16..s19, SCC, VCC_LO, EXEC_LO (as the
//! instruction left them) and s20.
//!
//! So an instruction under test reads v0..v15, s8..s23, VCC, SCC, EXEC and M0 (the frame sets M0 = 0) and writes
//! v8..v15 or s16..s20, VCC, SCC or EXEC. It must not touch v40 or s0..s7, s24..s31.
//!
//! Several ops run in one straight-line kernel, one frame segment each, each on its own inputs and outputs.
//! The kernel runs on the host evaluator and on lavapipe; every output dword is compared host vs device
//! (bit-identical) and host vs the oracle: a Rust function over [`Frame`] (the architectural state the
//! instruction sees) written independently from the ISA guide's definition of the instruction.
//!
//! Cost: lavapipe's JIT dominates (≈ 250 SPIR-V words and ~0.2 s CPU per frame instruction, ~1.9 s CPU per op
//! at 8 ops per module vs ~6 s one op per module, measured on this 2-core machine), so ops share modules
//! ([`batch()`]). `OPCHECK_TIMES=1` prints each module's lowering/pipeline/dispatch times.
//!
//! Operands: [`N`] work-items (so ≥ 4096 operand sets per instruction; `RDNA2SPV_OPCHECK_N` overrides), each
//! dword drawn from a mix of boundary values (0, ±1, sign bits, all-ones, 16-bit and 8-bit edges, shift
//! amounts near the width) and uniform random bits (see [`operand`]).
//!
//! A test file declares the opcodes it checks on a line `// coverage: <test_fn>: OPCODE ...` for
//! `cargo xtask coverage`.
#![allow(dead_code)]

pub mod packed;

use rdna2spv_eval::{Launch, Memory, SgprInit};
use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_ir::Program;
use rdna2spv_isa::{decode, PrintOptions, Target};
use rdna2spv_spirv::lower::LowerOptions;
use rdna2spv_vulkan::{probe, run_with_buffers, Context, DeviceProfile, DeviceSelector};
use std::time::Instant;

/// Lanes per wave of the frame.
pub const WAVE: usize = 32;
/// Work-items per workgroup.
const WG: u32 = 32;
/// Operand sets (work-items) per instruction by default.
pub const N: usize = 4096;

/// Whether EXEC is all lanes or taken from the input while the instruction runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Exec {
    All,
    /// EXEC_LO = s21 | 0x100 (lane 0's v13 with lane 8 forced on).
    FromInput,
}

/// The architectural state an instruction under test sees (wave32), and that the oracle updates.
#[derive(Clone, Debug)]
pub struct Frame {
    /// v0..v15 of each lane.
    pub v: [[u32; 16]; WAVE],
    /// s[8 + i] for i in 0..16 (so `s(16)` is `self.s[8]`); use [`Frame::s`] / [`Frame::set_s`].
    pub sg: [u32; 16],
    pub scc: bool,
    pub vcc: u32,
    pub exec: u32,
    /// M0 (0 at the start of the frame).
    pub m0: u32,
}

impl Frame {
    pub fn s(&self, r: usize) -> u32 {
        assert!((8..24).contains(&r), "the frame holds s8..s23");
        self.sg[r - 8]
    }
    pub fn set_s(&mut self, r: usize, x: u32) {
        assert!((8..24).contains(&r), "the frame holds s8..s23");
        self.sg[r - 8] = x;
    }
    pub fn s64(&self, r: usize) -> u64 {
        self.s(r) as u64 | (self.s(r + 1) as u64) << 32
    }
    pub fn set_s64(&mut self, r: usize, x: u64) {
        self.set_s(r, x as u32);
        self.set_s(r + 1, (x >> 32) as u32);
    }
    pub fn active(&self, lane: usize) -> bool {
        self.exec >> lane & 1 != 0
    }
    pub fn v64(&self, lane: usize, r: usize) -> u64 {
        self.v[lane][r] as u64 | (self.v[lane][r + 1] as u64) << 32
    }
    /// Applies `f(frame_before, lane) -> (vdst, value)` to every active lane (reads see the state before).
    pub fn per_lane(&mut self, vdst: usize, f: impl Fn(&Frame, usize) -> u32) {
        let before = self.clone();
        for l in 0..WAVE {
            if before.active(l) {
                self.v[l][vdst] = f(&before, l);
            }
        }
    }
    /// 64-bit per-lane result into v[vdst:vdst+1].
    pub fn per_lane64(&mut self, vdst: usize, f: impl Fn(&Frame, usize) -> u64) {
        let before = self.clone();
        for l in 0..WAVE {
            if before.active(l) {
                let x = f(&before, l);
                self.v[l][vdst] = x as u32;
                self.v[l][vdst + 1] = (x >> 32) as u32;
            }
        }
    }
    /// A lane mask of the per-lane condition over active lanes (inactive lanes 0).
    pub fn mask(&self, f: impl Fn(&Frame, usize) -> bool) -> u32 {
        (0..WAVE)
            .filter(|&l| self.active(l) && f(self, l))
            .fold(0, |m, l| m | 1 << l)
    }
}

/// One instruction under test.
pub struct Op {
    /// LLVM's text of the instruction (checked against the words).
    pub asm: &'static str,
    /// Its words, from `llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding`.
    pub words: &'static [u32],
    pub target: Target,
    pub exec: Exec,
    /// The ISA guide's definition: updates the frame as the instruction does.
    pub oracle: fn(&mut Frame),
}

/// `op(asm, words, oracle)`: gfx1030, all lanes active.
pub fn op(asm: &'static str, words: &'static [u32], oracle: fn(&mut Frame)) -> Op {
    Op {
        asm,
        words,
        target: Target::Gfx1030,
        exec: Exec::All,
        oracle,
    }
}

/// As [`op`] with EXEC from the input.
pub fn op_exec(asm: &'static str, words: &'static [u32], oracle: fn(&mut Frame)) -> Op {
    Op {
        exec: Exec::FromInput,
        ..op(asm, words, oracle)
    }
}

// ---------------------------------------------------------------------------------------------------
// The frame (llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 -show-encoding).

const HEAD: &[u32] = &[
    0x8f05_8b04, // s_lshl_b32 s5, s4, 11            (one wave per workgroup: 32 items x 64 bytes)
    0x8006_0500, // s_add_u32 s6, s0, s5
    0x8207_8001, // s_addc_u32 s7, s1, 0               s[6:7] = this wave's inputs
    0x801c_0502, // s_add_u32 s28, s2, s5
    0x821d_8003, // s_addc_u32 s29, s3, 0              s[28:29] = this wave's outputs
    0x3450_0086, // v_lshlrev_b32_e32 v40, 6, v0
    0xf410_0203,
    0xfa00_0000, // s_load_dwordx16 s[8:23], s[6:7], 0x0   (lane 0's 16 dwords)
    0xdc38_8000,
    0x0006_0028, // global_load_dwordx4 v[0:3], v40, s[6:7]
    0xdc38_8010,
    0x0406_0028, // global_load_dwordx4 v[4:7], v40, s[6:7] offset:16
    0xdc38_8020,
    0x0806_0028, // global_load_dwordx4 v[8:11], v40, s[6:7] offset:32
    0xdc38_8030,
    0x0c06_0028, // global_load_dwordx4 v[12:15], v40, s[6:7] offset:48
    0xbf8c_0070, // s_waitcnt vmcnt(0) lgkmcnt(0)
    0xbe9e_037e, // s_mov_b32 s30, exec_lo
    0xbeea_0316, // s_mov_b32 vcc_lo, s22
];
/// s_or_b32 exec_lo, s21, 0x100 (Exec::FromInput only)
const EXEC_FROM_INPUT: &[u32] = &[0x887e_ff15, 0x0000_0100];
/// s_and_b32 s24, s23, 1 (SCC = s23 & 1)
const SET_SCC: &[u32] = &[0x8718_8117];
const TAIL: &[u32] = &[
    0x8519_8081, // s_cselect_b32 s25, 1, 0
    0xbe9a_037e, // s_mov_b32 s26, exec_lo
    0xbefe_031e, // s_mov_b32 exec_lo, s30
    0x7e20_0210, // v_mov_b32_e32 v16, s16
    0x7e22_0211, // v_mov_b32_e32 v17, s17
    0x7e24_0212, // v_mov_b32_e32 v18, s18
    0x7e26_0213, // v_mov_b32_e32 v19, s19
    0x7e28_0219, // v_mov_b32_e32 v20, s25
    0x7e2a_026a, // v_mov_b32_e32 v21, vcc_lo
    0x7e2c_021a, // v_mov_b32_e32 v22, s26
    0x7e2e_0214, // v_mov_b32_e32 v23, s20
    0xdc78_8000,
    0x001c_0828, // global_store_dwordx4 v40, v[8:11], s[28:29]
    0xdc78_8010,
    0x001c_0c28, // global_store_dwordx4 v40, v[12:15], s[28:29] offset:16
    0xdc78_8020,
    0x001c_1028, // global_store_dwordx4 v40, v[16:19], s[28:29] offset:32
    0xdc78_8030,
    0x001c_1428, // global_store_dwordx4 v40, v[20:23], s[28:29] offset:48
    0xbf81_0000, // s_endpgm
];

/// The frame's words around `op` (one segment, when the batch holds one op).
pub fn kernel_words(op: &Op) -> Vec<u32> {
    segment_words(op, 0)
}

/// The words of one segment of a batch kernel: the frame around `op`, reading its inputs and writing its
/// outputs `offset` bytes into the two buffers (segment k of a batch of n work-items: `k * n * 64`).
pub fn segment_words(op: &Op, offset: u32) -> Vec<u32> {
    let mut w = HEAD.to_vec();
    if offset != 0 {
        w.extend([
            0x8006_ff06, // s_add_u32 s6, s6, <offset>
            offset,
            0x8207_8007, // s_addc_u32 s7, s7, 0
            0x801c_ff1c, // s_add_u32 s28, s28, <offset>
            offset,
            0x821d_801d, // s_addc_u32 s29, s29, 0
        ]);
        // The loads follow the address arithmetic; v40 (v0 << 6, from the work-item id in v0) is computed
        // by the first segment only, as v0 holds an input afterwards.
        let at = HEAD.iter().position(|&x| x == 0x3450_0086).unwrap();
        let add: Vec<u32> = w.drain(HEAD.len()..).collect();
        w.splice(at..at + 1, add);
    }
    w.push(0xbefc_0380); // s_mov_b32 m0, 0
    if op.exec == Exec::FromInput {
        w.extend(EXEC_FROM_INPUT);
    }
    w.extend(SET_SCC);
    w.extend(op.words);
    w.extend(&TAIL[..TAIL.len() - 1]);
    w
}

/// One straight-line kernel running every op of `ops` on its own `n` work-items' inputs, in sequence.
pub fn batch_kernel(ops: &[&Op], n: usize) -> Program {
    let mut words = Vec::new();
    for (k, o) in ops.iter().enumerate() {
        words.extend(segment_words(o, (k * n * 64) as u32));
    }
    words.push(0xbf81_0000); // s_endpgm
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    lift(
        "opcheck",
        &code,
        LiftOptions {
            target: ops[0].target,
            wave_size: 32,
            private_segment_buffer: None,
        },
    )
    .unwrap_or_else(|e| {
        let names: Vec<&str> = ops.iter().map(|o| o.asm).collect();
        panic!("{names:?}: the batch does not lift: {e}")
    })
}

pub fn kernel(op: &Op) -> Program {
    batch_kernel(&[op], n())
}

/// The frame's state before the instruction, from one wave's inputs (as the frame code computes it).
pub fn frame_of(op: &Op, wave: &[[u32; 16]]) -> Frame {
    let mut v = [[0u32; 16]; WAVE];
    v.copy_from_slice(wave);
    let mut sg = [0u32; 16];
    sg.copy_from_slice(&wave[0]);
    let exec = match op.exec {
        Exec::All => u32::MAX,
        Exec::FromInput => sg[13] | 0x100,
    };
    Frame {
        v,
        sg,
        scc: sg[15] & 1 != 0,
        vcc: sg[14],
        exec,
        m0: 0,
    }
}

/// The 16 stored dwords of each lane of a frame after the instruction.
pub fn outputs_of(f: &Frame) -> Vec<[u32; 16]> {
    (0..WAVE)
        .map(|l| {
            let mut o = [0u32; 16];
            o[..8].copy_from_slice(&f.v[l][8..16]);
            o[8..12].copy_from_slice(&f.sg[8..12]);
            o[12] = f.scc as u32;
            o[13] = f.vcc;
            o[14] = f.exec;
            o[15] = f.sg[12];
            o
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// Operands.

/// A small deterministic generator (splitmix64).
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn u32(&mut self) -> u32 {
        self.next() as u32
    }
}

const BOUNDARY: &[u32] = &[
    0,
    1,
    2,
    3,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_ffff,
    0xffff_fffe,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0xffff,
    0x1_0000,
    0x00ff_ffff,
    0x0080_0000,
    0xff80_0000,
    0x5555_5555,
    0xaaaa_aaaa,
    0xffff_8000,
    0x0001_ffff,
];

/// One operand dword: a boundary value (1/4), a small count 0..=70 for shifts, bit offsets and lane indices
/// (1/8), a random value with a random number of low bits (1/8), or uniform random bits.
pub fn operand(r: &mut Rng) -> u32 {
    match r.next() % 8 {
        0 | 1 => BOUNDARY[(r.next() % BOUNDARY.len() as u64) as usize],
        2 => (r.next() % 71) as u32,
        3 => r.u32() >> (r.next() % 32),
        _ => r.u32(),
    }
}

pub fn inputs(n: usize, seed: u64) -> Vec<[u32; 16]> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| {
            let mut x = [0u32; 16];
            for d in x.iter_mut() {
                *d = operand(&mut r);
            }
            x
        })
        .collect()
}

/// Operand sets per op of the `cargo test` runs of the long op lists (issue 28: every op in every
/// `cargo test`, at a size lavapipe's per-module JIT keeps affordable; their `_full` siblings run [`N`]).
pub const CI_N: usize = 256;

/// [`CI_N`] unless `RDNA2SPV_OPCHECK_N` says otherwise.
pub fn ci_n() -> usize {
    std::env::var("RDNA2SPV_OPCHECK_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(CI_N)
        .div_ceil(WG as usize)
        * WG as usize
}

pub fn n() -> usize {
    let n = std::env::var("RDNA2SPV_OPCHECK_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(N);
    n.div_ceil(WG as usize) * WG as usize
}

// ---------------------------------------------------------------------------------------------------
// Running.

pub fn lavapipe() -> Context {
    Context::new(DeviceSelector::from_env_or_lavapipe())
        .map(|c| c.with_timeout(std::time::Duration::from_secs(600)))
        .unwrap_or_else(|e| {
            panic!(
                "this test needs lavapipe (apt-get install -y --no-install-recommends libvulkan1 \
             mesa-vulkan-drivers): {e}"
            )
        })
}

fn le(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn launch(n: usize, addrs: &[u64]) -> Launch {
    let mut sgprs = Vec::new();
    for (i, &a) in addrs.iter().enumerate() {
        sgprs.push((2 * i as u16, SgprInit::Const(a as u32)));
        sgprs.push((2 * i as u16 + 1, SgprInit::Const((a >> 32) as u32)));
    }
    sgprs.push((4, SgprInit::WorkgroupId(0)));
    Launch {
        wave_size: 32,
        grid: [n as u32, 1, 1],
        workgroup: [WG, 1, 1],
        sgprs,
        workitem_id_vgprs: 1,
        lds_bytes: 0,
        scratch_bytes: 0,
        max_steps_per_wave: 100_000,
        code_base: None,
    }
}

/// Host and device outputs (16 dwords per work-item).
pub fn run_both(
    ctx: &Context,
    prof: &DeviceProfile,
    p: &Program,
    ins: &[[u32; 16]],
    grid: usize,
) -> (Vec<u32>, Vec<u32>) {
    run_both_with(ctx, prof, p, ins, grid, &LowerOptions::default())
}

/// [`run_both`] with the lowering's options (e.g. the lane mapping, D197).
pub fn run_both_with(
    ctx: &Context,
    prof: &DeviceProfile,
    p: &Program,
    ins: &[[u32; 16]],
    grid: usize,
    opts: &LowerOptions,
) -> (Vec<u32>, Vec<u32>) {
    let n = ins.len();
    let input: Vec<u8> = ins
        .iter()
        .flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let init = vec![input, vec![0u8; 64 * n]];
    let t0 = Instant::now();
    let run = run_with_buffers(ctx, p, &init, |a| launch(grid, a), prof, opts)
        .unwrap_or_else(|e| panic!("device run failed: {e}"));
    let mut mem = Memory::default();
    for (i, b) in init.iter().enumerate() {
        mem.add(&format!("buf{i}"), run.addresses[i], b.clone())
            .unwrap();
    }
    let t1 = Instant::now();
    rdna2spv_eval::run(p, &run.launch, &mut mem).expect("the evaluator runs");
    if std::env::var_os("OPCHECK_TIMES").is_some() {
        eprintln!(
            "device {:.2?} (lower {:.2?}, pipeline {:.2?}, dispatch {:.2?}, {} words), host {:.2?}",
            t1 - t0,
            run.report.lower_time,
            run.report.dispatch.pipeline_create,
            run.report.dispatch.dispatch,
            run.report.module_words,
            t1.elapsed()
        );
    }
    let host = le(&mem.allocation("buf1").unwrap().data);
    (host, le(&run.outputs[1]))
}

const NAMES: [&str; 16] = [
    "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "s16", "s17", "s18", "s19", "scc",
    "vcc_lo", "exec_lo", "s20",
];

/// The words decode to the text written next to them (our printer is LLVM-identical, crates/isa tests).
/// An op may be a short sequence of instructions: its text is then their texts joined by newlines.
pub fn check_text(op: &Op) {
    let mut texts = Vec::new();
    let mut at = 0;
    while at < op.words.len() {
        let ins = decode(&op.words[at..], op.target).unwrap_or_else(|e| panic!("{}: {e}", op.asm));
        texts.push(ins.text(PrintOptions { wave64: false }));
        at += ins.len();
    }
    assert_eq!(at, op.words.len(), "{}: word count", op.asm);
    let text = texts.join("\n");
    assert_eq!(
        text, op.asm,
        "the words are not the instruction written next to them"
    );
}

/// Ops per lavapipe module (`RDNA2SPV_OPCHECK_BATCH`, default 16): lavapipe's JIT time per module dominates
/// a run (seconds under load), so the ops of a test share modules.
pub fn batch() -> usize {
    std::env::var("RDNA2SPV_OPCHECK_BATCH")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16)
        .max(1)
}

/// Ops per module for a run of `n` operand sets: at most 8 at the `cargo test` size ([`CI_N`]), where a
/// 16-op module's lazy compile inside the first dispatch passed the 600 s fence limit on a loaded
/// machine (D172); the default otherwise.
pub fn batch_for(n: usize) -> usize {
    if n <= CI_N {
        batch().min(8)
    } else {
        batch()
    }
}

/// Checks every op: host vs device bit-identical and host vs oracle, over [`n()`] operand sets each.
/// Ops of one sub-target are run [`batch()`] to a module. Panics listing the first difference of every
/// failing op.
pub fn check(ops: &[Op]) {
    check_n(ops, n())
}

/// As [`check`] with one operand set per wave: scalar instructions see one set of SGPR operands per wave, so
/// [`N`] waves (`RDNA2SPV_OPCHECK_SCALAR_WAVES` overrides) run per instruction.
pub fn check_scalar(ops: &[Op]) {
    let waves = std::env::var("RDNA2SPV_OPCHECK_SCALAR_WAVES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(N);
    check_n(ops, waves * WAVE)
}

/// As [`check`] over `n` work-items per op.
pub fn check_n(ops: &[Op], n: usize) {
    check_n_with(ops, n, inputs)
}

/// As [`check_n`] with the operand generator `gen(n, seed)` (n work-items of 16 dwords) instead of
/// [`inputs`]: for ops whose interesting cases need correlated operands (equal pairs for compares).
pub fn check_n_with(ops: &[Op], n: usize, gen: fn(usize, u64) -> Vec<[u32; 16]>) {
    for o in ops {
        check_text(o);
    }
    let ctx = lavapipe();
    let prof = probe(&ctx).expect("the device profile is probed");
    let mut failures = Vec::new();
    let all = Instant::now();
    let mut groups: Vec<Vec<(usize, &Op)>> = Vec::new();
    for (i, o) in ops.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if g.len() < batch_for(n) && g[0].1.target == o.target => g.push((i, o)),
            _ => groups.push(vec![(i, o)]),
        }
    }
    for g in groups {
        let t = Instant::now();
        let list: Vec<&Op> = g.iter().map(|x| x.1).collect();
        let p = batch_kernel(&list, n);
        let mut ins = Vec::with_capacity(n * g.len());
        for &(i, o) in &g {
            ins.extend(gen(n, 0x0bc4_ec00_0000 ^ (i as u64) << 20 ^ fnv(o.asm)));
        }
        let (host, dev) = run_both(&ctx, &prof, &p, &ins, n);
        for (k, &(_, o)) in g.iter().enumerate() {
            let ins = &ins[k * n..(k + 1) * n];
            let host = &host[16 * k * n..16 * (k + 1) * n];
            let dev = &dev[16 * k * n..16 * (k + 1) * n];
            let (mut hd, mut ho, mut first) = (0usize, 0usize, None::<String>);
            for (w, wave) in ins.chunks(WAVE).enumerate() {
                let mut f = frame_of(o, wave);
                (o.oracle)(&mut f);
                let want = outputs_of(&f);
                for (l, want) in want.iter().enumerate() {
                    let k = w * WAVE + l;
                    let h = &host[16 * k..16 * k + 16];
                    let d = &dev[16 * k..16 * k + 16];
                    for j in 0..16 {
                        let bad_dev = h[j] != d[j];
                        let bad_oracle = h[j] != want[j];
                        hd += bad_dev as usize;
                        ho += bad_oracle as usize;
                        if (bad_dev || bad_oracle) && first.is_none() {
                            first = Some(format!(
                                "wave {w} lane {l} {}: host {:#010x}, device {:#010x}, oracle \
                                 {:#010x}; lane inputs {:08x?}, exec {:#010x}",
                                NAMES[j], h[j], d[j], want[j], wave[l], f.exec
                            ));
                        }
                    }
                }
            }
            eprintln!(
                "{:52} {n} operand sets: host≠device {hd}, host≠oracle {ho}",
                o.asm.replace('\n', "; ")
            );
            if let Some(first) = first {
                failures.push(format!("{}: {first}", o.asm));
            }
        }
        eprintln!("  ({} ops in one module: {:.2?})", g.len(), t.elapsed());
    }
    eprintln!("{} ops in {:.2?}", ops.len(), all.elapsed());
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}
