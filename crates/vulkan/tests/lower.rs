//! The IR → SPIR-V lowering against the host evaluator, on lavapipe: hand-built IR programs run on the
//! device and in the evaluator with the same memory at the same device addresses; every output byte must
//! agree. Every module must also pass `spirv-val --target-env vulkan1.3`.

mod common;

use std::time::Instant;

use rdna2spv_eval::{Launch, Memory, SgprInit};
use rdna2spv_ir::{
    Access, AtomicOp, Block, FloatCmp, FloatOp, Handle, Inst, IntCmp, IntOp, Node, Program, Space,
    Terminator, Ty, UnOp, EXEC_LO, VCC_LO,
};
use rdna2spv_spirv::lower::{lower, lower_with, Lanes, LowerOptions, Mapping, Unaligned};
use rdna2spv_spirv::DeviceProfile;
use rdna2spv_vulkan::{
    kernel_layout, probe, run_program, run_with_buffers, Context, RunOptions, RunReport,
};

type H = Handle<Node>;

/// A tiny assembler for IR programs: nodes go into the current instruction until `end`.
struct Pb {
    p: Program,
    start: u32,
    insts: Vec<Inst>,
    pc: u32,
    block_pc: u32,
}

impl Pb {
    fn new(name: &str, ws: u32) -> Self {
        Pb {
            p: Program {
                name: name.into(),
                wave_size: ws,
                ..Default::default()
            },
            start: 0,
            insts: Vec::new(),
            pc: 0,
            block_pc: 0,
        }
    }
    fn n(&mut self, node: Node) -> H {
        self.p.nodes.push(node)
    }
    fn c(&mut self, ty: Ty, bits: u64) -> H {
        self.n(Node::Const { ty, bits })
    }
    fn c32(&mut self, v: u32) -> H {
        self.c(Ty::B32, v as u64)
    }
    fn s(&mut self, reg: u16, ty: Ty) -> H {
        self.n(Node::ReadSgpr { reg, ty })
    }
    fn v(&mut self, reg: u16) -> H {
        self.n(Node::ReadVgpr { reg, ty: Ty::B32 })
    }
    fn int(&mut self, op: IntOp, ty: Ty, a: H, b: H) -> H {
        self.n(Node::Int { op, ty, a, b })
    }
    fn i32(&mut self, op: IntOp, a: H, b: H) -> H {
        self.int(op, Ty::B32, a, b)
    }
    fn un(&mut self, op: UnOp, ty: Ty, a: H) -> H {
        self.n(Node::Unary { op, ty, a })
    }
    fn fl(&mut self, op: FloatOp, a: H, b: H, c: H) -> H {
        self.n(Node::Float {
            op,
            args: [a, b, c],
        })
    }
    fn wv(&mut self, reg: u16, value: H) {
        self.n(Node::WriteVgpr { reg, value });
    }
    fn ws(&mut self, reg: u16, value: H) {
        self.n(Node::WriteSgpr { reg, value });
    }
    fn exec_ty(&self) -> Ty {
        if self.p.wave_size == 64 {
            Ty::B64
        } else {
            Ty::B32
        }
    }
    /// Writes a B64 wave mask to a mask register of the wave's width.
    fn write_mask(&mut self, reg: u16, m: H) {
        let v = if self.p.wave_size == 64 {
            m
        } else {
            self.n(Node::Extract {
                ty: Ty::B32,
                a: m,
                shift: 0,
            })
        };
        self.ws(reg, v);
    }
    /// Reads a mask register as B64.
    fn read_mask(&mut self, reg: u16) -> H {
        let ty = self.exec_ty();
        let m = self.s(reg, ty);
        if ty == Ty::B64 {
            m
        } else {
            self.un(UnOp::ZExt, Ty::B64, m)
        }
    }
    fn addr64(&mut self, base_sgpr: u16, off: H) -> H {
        let base = self.s(base_sgpr, Ty::B64);
        let o = self.un(UnOp::ZExt, Ty::B64, off);
        self.int(IntOp::Add, Ty::B64, base, o)
    }
    fn load(&mut self, space: Space, access: Access, addr: H, offset: i64) -> H {
        self.n(Node::Load {
            space,
            access,
            addr,
            offset,
        })
    }
    fn store(&mut self, space: Space, access: Access, addr: H, offset: i64, value: H) {
        self.n(Node::Store {
            space,
            access,
            addr,
            offset,
            value,
        });
    }
    fn end(&mut self, text: &str) {
        let end = self.p.nodes.len() as u32;
        self.insts.push(Inst {
            pc: self.pc,
            text: text.into(),
            nodes: self.start..end,
            encoding: None,
        });
        self.start = end;
        self.pc += 4;
    }
    fn block(&mut self, terminator: Terminator) {
        self.p.blocks.push(Block {
            start_pc: self.block_pc,
            insts: std::mem::take(&mut self.insts),
            terminator,
        });
        self.block_pc = self.pc;
    }
    fn finish(self) -> Program {
        rdna2spv_ir::verify(&self.p).expect("test program verifies");
        self.p
    }
    /// v<dst> = s4 * W + v0 (the global work-item id in x).
    fn global_id(&mut self, dst: u16, w: u32) {
        let g = self.s(4, Ty::B32);
        let wc = self.c32(w);
        let m = self.i32(IntOp::Mul, g, wc);
        let v0 = self.v(0);
        let id = self.i32(IntOp::Add, m, v0);
        self.wv(dst, id);
        self.end("v_mad_u32_u24 (global id)");
    }
}

fn blk(i: usize) -> Handle<Block> {
    Handle::from_index(i)
}

/// s[0:1] = buffer 0, s[2:3] = buffer 1, s[6:7] = buffer 2, s4 = workgroup id x.
fn launch_for(ws: u32, w: u32, grid: u32, addrs: &[u64], lds: u32) -> Launch {
    let mut sgprs = Vec::new();
    for (i, reg) in [0u16, 2, 6].iter().enumerate() {
        if let Some(&a) = addrs.get(i) {
            sgprs.push((*reg, SgprInit::Const(a as u32)));
            sgprs.push((*reg + 1, SgprInit::Const((a >> 32) as u32)));
        }
    }
    sgprs.push((4, SgprInit::WorkgroupId(0)));
    Launch {
        wave_size: ws,
        grid: [grid, 1, 1],
        workgroup: [w, 1, 1],
        sgprs,
        workitem_id_vgprs: 1,
        lds_bytes: lds,
        scratch_bytes: 0,
        max_steps_per_wave: 10_000_000,
        code_base: None,
    }
}

struct Outcome {
    report: RunReport,
    words: usize,
    compared_bytes: usize,
}

/// Runs `program` on lavapipe and in the evaluator with buffers holding `init`; compares every buffer.
fn run_both(
    ctx: &Context,
    name: &str,
    program: &Program,
    init: &[Vec<u8>],
    launch_of: impl Fn(&[u64]) -> Launch,
) -> Outcome {
    let (o, mism) = run_both_with(
        ctx,
        name,
        program,
        init,
        launch_of,
        &DeviceProfile::portable(),
        &LowerOptions::default(),
    );
    if let Some(m) = mism {
        panic!("{m}");
    }
    o
}

/// Like [`run_both`] with a chosen profile; returns the first difference instead of panicking.
fn run_both_with(
    ctx: &Context,
    name: &str,
    program: &Program,
    init: &[Vec<u8>],
    launch_of: impl FnOnce(&[u64]) -> Launch,
    profile: &DeviceProfile,
    opts: &LowerOptions,
) -> (Outcome, Option<String>) {
    // Device: buffers first, so the evaluator's memory can sit at the same addresses.
    let run = run_with_buffers(ctx, program, init, launch_of, profile, opts)
        .unwrap_or_else(|e| panic!("{name}: device run failed: {e}"));
    let (launch, addrs, report) = (run.launch.clone(), run.addresses.clone(), run.report);
    // The module must validate.
    let words = lower_with(program, &kernel_layout(&launch), profile, opts).expect("lowers");
    common::spirv_val(name, &words);
    // Host.
    let mut mem = Memory::default();
    for (i, b) in init.iter().enumerate() {
        mem.add(&format!("buf{i}"), addrs[i], b.clone()).unwrap();
    }
    rdna2spv_eval::run(program, &launch, &mut mem).expect("evaluator runs");
    let mut compared = 0;
    for (i, dev) in run.outputs.iter().enumerate() {
        let host = &mem.allocation(&format!("buf{i}")).unwrap().data;
        assert_eq!(dev.len(), host.len());
        if let Some(k) = (0..dev.len()).find(|&k| dev[k] != host[k]) {
            let w = k & !3;
            let word = |d: &[u8]| u32::from_le_bytes([d[w], d[w + 1], d[w + 2], d[w + 3]]);
            let mism = (0..dev.len() / 4)
                .filter(|&j| dev[4 * j..4 * j + 4] != host[4 * j..4 * j + 4])
                .count();
            let msg = format!(
                "{name}: buffer {i} differs first at byte {k} (word {}): device 0x{:08x}, host 0x{:08x}; \
                 {mism} words differ",
                w / 4,
                word(dev),
                word(host)
            );
            let o = Outcome {
                report,
                words: words.len(),
                compared_bytes: compared,
            };
            return (o, Some(msg));
        }
        compared += dev.len();
    }
    eprintln!(
        "{name}: {} words ({} bytes) of SPIR-V, lower {:?}, pipeline {:?}, dispatch {:?}, {} invocations, \
         {compared} bytes identical",
        words.len(),
        4 * words.len(),
        report.lower_time,
        report.dispatch.pipeline_create,
        report.dispatch.dispatch,
        report.invocations
    );
    (
        Outcome {
            report,
            words: words.len(),
            compared_bytes: compared,
        },
        None,
    )
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
}

const F32_SPECIALS: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x7f80_0001,
    0xffc1_2345,
    0x3f00_0000,
    0x4040_0000,
    0x3380_0000,
    0x4f00_0000,
    0xcf00_0000,
    0x4f80_0000,
    0x4effffff,
    0x3f800800,
    0xbf801000,
    0x0040_0000,
    0x3f7f_ffff,
];

fn f32_operand(r: &mut Rng) -> u32 {
    match r.next() % 8 {
        0 | 1 => F32_SPECIALS[(r.next() % F32_SPECIALS.len() as u64) as usize],
        2 => r.u32(),
        3 => {
            // Subnormal or tiny.
            (r.u32() & 0x80ff_ffff) & !0x7f00_0000
        }
        _ => {
            // Moderate exponents, where cancellation happens.
            let e = 112 + (r.next() % 32) as u32;
            (r.u32() & 0x807f_ffff) | (e << 23)
        }
    }
}

// ---- (2) hand-built programs ----------------------------------------------------------------------

/// The D993 operands and a saxpy-like F32Fma over ≥ `n` triples: out[i] = fma(in[3i], in[3i+1], in[3i+2]).
fn fma_program(ws: u32, w: u32) -> Program {
    let mut b = Pb::new("fma", ws);
    b.global_id(1, w);
    let x = b.v(1);
    let c12 = b.c32(12);
    let off = b.i32(IntOp::Mul, x, c12);
    b.wv(2, off);
    b.end("v_mul_u32_u24 v2, 12, v1");
    let off = b.v(2);
    let a = b.addr64(0, off);
    let l0 = b.load(Space::Global, Access::B32, a, 0);
    let l1 = b.load(Space::Global, Access::B32, a, 4);
    let l2 = b.load(Space::Global, Access::B32, a, 8);
    b.wv(3, l0);
    b.wv(4, l1);
    b.wv(5, l2);
    b.end("global_load_dwordx3 v[3:5], v2, s[0:1]");
    let (x, y, z) = (b.v(3), b.v(4), b.v(5));
    let r = b.fl(FloatOp::F32Fma, x, y, z);
    b.wv(6, r);
    b.end("v_fma_f32 v6, v3, v4, v5");
    let id = b.v(1);
    let c4 = b.c32(4);
    let off = b.i32(IntOp::Mul, id, c4);
    let a = b.addr64(2, off);
    let r = b.v(6);
    b.store(Space::Global, Access::B32, a, 0, r);
    b.end("global_store_dword v7, v6, s[2:3]");
    b.block(Terminator::End);
    b.finish()
}

fn fma_triples(n: usize, seed: u64) -> Vec<[u32; 3]> {
    let mut v = vec![[0x3f80_0800, 0x3f80_0800, 0xbf80_1000]];
    let sp = F32_SPECIALS;
    for &a in sp {
        for &b in sp {
            for &c in sp.iter().step_by(3) {
                v.push([a, b, c]);
            }
        }
    }
    let mut r = Rng(seed);
    while v.len() < n {
        let a = f32_operand(&mut r);
        let b = f32_operand(&mut r);
        let c = match r.next() % 3 {
            // Cancellation: c ≈ −a·b, perturbed by a few ulps.
            0 => {
                let p = f32::from_bits(a) * f32::from_bits(b);
                let bits = (-p).to_bits();
                bits.wrapping_add((r.next() % 5) as u32).wrapping_sub(2)
            }
            _ => f32_operand(&mut r),
        };
        v.push([a, b, c]);
    }
    v
}

fn run_fma(ctx: &Context, ws: u32, w: u32, n: usize, seed: u64) -> (usize, Outcome) {
    let triples = fma_triples(n, seed);
    let n = triples.len();
    let input: Vec<u8> = triples
        .iter()
        .flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let out = vec![0xa5u8; 4 * n];
    let p = fma_program(ws, w);
    let o = run_both(ctx, &format!("fma_w{ws}"), &p, &[input, out], |a| {
        launch_for(ws, w, n as u32, a, 0)
    });
    (n, o)
}

#[test]
fn fma_wave32_and_wave64_saxpy_like_with_d993_operands() {
    let ctx = common::lavapipe();
    for (ws, w, n) in [(32u32, 96u32, 5_000usize), (64, 128, 5_000)] {
        let (n, o) = run_fma(&ctx, ws, w, n, 7 + ws as u64);
        assert_eq!(o.compared_bytes, 12 * n + 4 * n);
    }
    // D993's triple gives 2^-24 (checked by run_both against the evaluator, which computes it exactly).
    assert_eq!(
        rdna2spv_eval::specialize::f32_fma(0x3f80_0800, 0x3f80_0800, 0xbf80_1000),
        0x3380_0000
    );
}

/// (3) ≥ 100,000 f32 FMA triples (random, boundary, cancellation), device vs host bit for bit.
///
/// The benchmark size runs the same check over more triples:
/// `RDNA2SPV_FMA_TRIPLES=1000000 cargo test --release -p rdna2spv-vulkan --test lower fma_f32 -- --nocapture`.
#[test]
fn fma_f32_hundred_thousand_triples_bit_identical() {
    let ctx = common::lavapipe();
    let t = Instant::now();
    let want = std::env::var("RDNA2SPV_FMA_TRIPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120_000);
    let (n, o) = run_fma(&ctx, 32, 256, want.max(100_000), 0x5eed);
    assert!(n >= 100_000);
    // Again with the pipeline cached and JIT-compiled: the dispatch alone.
    let scratch: Vec<_> = (0..2)
        .map(|k| {
            ctx.create_buffer(if k == 0 { 12 * n } else { 4 * n } as u64)
                .unwrap()
        })
        .collect();
    let addrs: Vec<u64> = scratch.iter().map(|b| b.device_address()).collect();
    let launch = launch_for(32, 256, n as u32, &addrs, 0);
    let warm = run_program(
        &ctx,
        &fma_program(32, 256),
        &launch,
        &DeviceProfile::portable(),
        &RunOptions::default(),
    )
    .expect("warm run");
    eprintln!(
        "fma: warm dispatch {:?} (first, with JIT: {:?})",
        warm.dispatch.dispatch, o.report.dispatch.dispatch
    );
    eprintln!(
        "fma: {n} triples, 0 mismatches; module {} words; total {:?}",
        o.words,
        t.elapsed()
    );
}

/// A divergent branch: EXEC narrowed by a compare (s_and_saveexec), skipped when empty, restored;
/// readfirstlane, readlane and a VCC lane mask inside.
fn divergent_program(ws: u32, w: u32) -> Program {
    let mut b = Pb::new("divergent", ws);
    let et = b.exec_ty();
    // block 0
    b.global_id(6, w);
    let v0 = b.v(0);
    let c3 = b.c32(3);
    let a = b.i32(IntOp::And, v0, c3);
    b.wv(1, a);
    b.end("v_and_b32 v1, 3, v0");
    let v1 = b.v(1);
    let z = b.c32(0);
    let ne = b.n(Node::IntCmp {
        op: IntCmp::Ne,
        ty: Ty::B32,
        a: v1,
        b: z,
    });
    let m = b.n(Node::Ballot { cond: ne });
    b.write_mask(VCC_LO, m);
    b.end("v_cmp_ne_u32 vcc, 0, v1");
    let k = b.c32(0xdead);
    b.wv(2, k);
    let k = b.c32(0x1234);
    b.wv(4, k);
    b.end("v_mov_b32 v2 / v4");
    let old = b.s(EXEC_LO, et);
    let vcc = b.s(VCC_LO, et);
    let new = b.int(IntOp::And, et, old, vcc);
    b.ws(8, old);
    b.ws(EXEC_LO, new);
    let zero = b.c(et, 0);
    let nz = b.n(Node::IntCmp {
        op: IntCmp::Ne,
        ty: et,
        a: new,
        b: zero,
    });
    b.n(Node::WriteScc { value: nz });
    b.end("s_and_saveexec vcc");
    let e = b.s(EXEC_LO, et);
    let zero = b.c(et, 0);
    let ez = b.n(Node::IntCmp {
        op: IntCmp::Eq,
        ty: et,
        a: e,
        b: zero,
    });
    b.end("s_cbranch_execz");
    b.block(Terminator::Branch {
        cond: ez,
        taken: blk(2),
        not_taken: blk(1),
    });
    // block 1
    let v0 = b.v(0);
    let c3 = b.c32(3);
    let c7 = b.c32(7);
    let m = b.i32(IntOp::Mul, v0, c3);
    let r = b.i32(IntOp::Add, m, c7);
    b.wv(2, r);
    b.end("v_mad_u32_u24 v2, v0, 3, 7");
    let v6 = b.v(6);
    let rf = b.n(Node::ReadFirstLane { a: v6 });
    b.ws(10, rf);
    b.end("v_readfirstlane_b32 s10, v6");
    let v2 = b.v(2);
    let c5 = b.c32(5);
    let rl = b.n(Node::ReadLane { a: v2, lane: c5 });
    b.ws(11, rl);
    b.end("v_readlane_b32 s11, v2, 5");
    let s10 = b.s(10, Ty::B32);
    let s11 = b.s(11, Ty::B32);
    let sum = b.i32(IntOp::Add, s10, s11);
    b.wv(4, sum);
    b.end("v_add_nc_u32 v4, s10, s11");
    let vcc = b.read_mask(VCC_LO);
    let bit = b.n(Node::LaneBit { mask: vcc });
    let (v0, v1) = (b.v(0), b.v(1));
    let sel = b.n(Node::Select {
        cond: bit,
        a: v0,
        b: v1,
    });
    b.wv(5, sel);
    b.end("v_cndmask_b32 v5, v1, v0, vcc");
    b.block(Terminator::Jump(blk(2)));
    // block 2
    let saved = b.s(8, et);
    b.ws(EXEC_LO, saved);
    b.end("s_mov exec, s[8:9]");
    let id = b.v(6);
    let c16 = b.c32(16);
    let off = b.i32(IntOp::Mul, id, c16);
    let a = b.addr64(0, off);
    let (v2, v4, v5) = (b.v(2), b.v(4), b.v(5));
    let s10 = b.s(10, Ty::B32);
    b.store(Space::Global, Access::B32, a, 0, v2);
    b.store(Space::Global, Access::B32, a, 4, v4);
    b.store(Space::Global, Access::B32, a, 8, v5);
    b.store(Space::Global, Access::B32, a, 12, s10);
    b.end("global_store_dwordx4");
    b.block(Terminator::End);
    b.finish()
}

#[test]
fn divergent_branch_with_exec_changes() {
    let ctx = common::lavapipe();
    for (ws, w) in [(32u32, 64u32), (64, 128)] {
        let grid = 3 * w - 21;
        let p = divergent_program(ws, w);
        let out = vec![0x11u8; 16 * grid as usize];
        run_both(&ctx, &format!("divergent_w{ws}"), &p, &[out], |a| {
            launch_for(ws, w, grid, a, 0)
        });
    }
}

/// A uniform counted loop (SCC) and a divergent loop that narrows EXEC until every lane is done.
fn loop_program(ws: u32, w: u32) -> Program {
    let mut b = Pb::new("loops", ws);
    let et = b.exec_ty();
    // block 0
    b.global_id(6, w);
    let z = b.c32(0);
    b.ws(5, z);
    b.wv(3, z);
    b.end("s_mov_b32 s5, 0 / v_mov_b32 v3, 0");
    b.block(Terminator::Jump(blk(1)));
    // block 1: v3 += v0 * s5; s5 += 1; loop while s5 < s4 + 5
    let (v3, v0) = (b.v(3), b.v(0));
    let s5 = b.s(5, Ty::B32);
    let m = b.i32(IntOp::Mul, v0, s5);
    let r = b.i32(IntOp::Add, v3, m);
    b.wv(3, r);
    b.end("v_mad_u32_u24 v3, v0, s5, v3");
    let s5 = b.s(5, Ty::B32);
    let one = b.c32(1);
    let n = b.i32(IntOp::Add, s5, one);
    b.ws(5, n);
    let s4 = b.s(4, Ty::B32);
    let c5 = b.c32(5);
    let lim = b.i32(IntOp::Add, s4, c5);
    let lt = b.n(Node::IntCmp {
        op: IntCmp::LtU,
        ty: Ty::B32,
        a: n,
        b: lim,
    });
    b.n(Node::WriteScc { value: lt });
    b.end("s_add_u32 s5, s5, 1 / s_cmp_lt_u32");
    let scc = b.n(Node::ReadScc);
    b.end("s_cbranch_scc1");
    b.block(Terminator::Branch {
        cond: scc,
        taken: blk(1),
        not_taken: blk(2),
    });
    // block 2: save exec, v5 = 0, v1 = v0 & 7
    let e = b.s(EXEC_LO, et);
    b.ws(8, e);
    let z = b.c32(0);
    b.wv(5, z);
    let v0 = b.v(0);
    let c7 = b.c32(7);
    let a = b.i32(IntOp::And, v0, c7);
    b.wv(1, a);
    b.end("s_mov s[8:9], exec / v_mov v5, 0 / v_and v1, 7, v0");
    b.block(Terminator::Jump(blk(3)));
    // block 3: v5 += 1; exec = ballot(v5 < v1); loop while exec != 0
    let v5 = b.v(5);
    let one = b.c32(1);
    let r = b.i32(IntOp::Add, v5, one);
    b.wv(5, r);
    b.end("v_add_nc_u32 v5, 1, v5");
    let v5 = b.v(5);
    let v1 = b.v(1);
    let lt = b.n(Node::IntCmp {
        op: IntCmp::LtU,
        ty: Ty::B32,
        a: v5,
        b: v1,
    });
    let m = b.n(Node::Ballot { cond: lt });
    b.write_mask(EXEC_LO, m);
    let z = b.c(Ty::B64, 0);
    let nz = b.n(Node::IntCmp {
        op: IntCmp::Ne,
        ty: Ty::B64,
        a: m,
        b: z,
    });
    b.n(Node::WriteScc { value: nz });
    b.end("v_cmpx_lt_u32 v5, v1");
    let scc = b.n(Node::ReadScc);
    b.end("s_cbranch_scc1");
    b.block(Terminator::Branch {
        cond: scc,
        taken: blk(3),
        not_taken: blk(4),
    });
    // block 4
    let saved = b.s(8, et);
    b.ws(EXEC_LO, saved);
    b.end("s_mov exec, s[8:9]");
    let id = b.v(6);
    let c8 = b.c32(8);
    let off = b.i32(IntOp::Mul, id, c8);
    let a = b.addr64(0, off);
    let (v3, v5) = (b.v(3), b.v(5));
    b.store(Space::Global, Access::B32, a, 0, v3);
    b.store(Space::Global, Access::B32, a, 4, v5);
    b.end("global_store_dwordx2");
    b.block(Terminator::End);
    b.finish()
}

#[test]
fn uniform_and_divergent_loops() {
    let ctx = common::lavapipe();
    for (ws, w) in [(32u32, 64u32), (64, 64)] {
        let grid = 4 * w - 3;
        let p = loop_program(ws, w);
        let out = vec![0x22u8; 8 * grid as usize];
        run_both(&ctx, &format!("loops_w{ws}"), &p, &[out], |a| {
            launch_for(ws, w, grid, a, 0)
        });
    }
}

/// LDS exchange between the two waves of a workgroup across barriers, with byte and half-word accesses
/// in LDS and byte stores to global memory.
fn lds_program(ws: u32, w: u32) -> Program {
    let mut b = Pb::new("lds", ws);
    let bytes_at = (4 * w) as i64;
    // block 0
    b.global_id(6, w);
    let v0 = b.v(0);
    let c4 = b.c32(4);
    let a = b.i32(IntOp::Mul, v0, c4);
    b.wv(7, a);
    b.end("v_lshlrev_b32 v7, 2, v0");
    let v7 = b.v(7);
    let v0 = b.v(0);
    let c7 = b.c32(7);
    let s4 = b.s(4, Ty::B32);
    let k = b.c32(1000);
    let x = b.i32(IntOp::Mul, v0, c7);
    let y = b.i32(IntOp::Mul, s4, k);
    let val = b.i32(IntOp::Add, x, y);
    b.store(Space::Lds, Access::B32, v7, 0, val);
    b.end("ds_write_b32 v7, v8");
    let v0 = b.v(0);
    let c5 = b.c32(5);
    let c3 = b.c32(3);
    let x = b.i32(IntOp::Mul, v0, c5);
    let val = b.i32(IntOp::Add, x, c3);
    b.store(Space::Lds, Access::U8, v0, bytes_at, val);
    b.end("ds_write_b8 v0, v9 offset:4W");
    b.n(Node::Barrier);
    b.end("s_barrier");
    b.block(Terminator::Jump(blk(1)));
    // block 1
    let v0 = b.v(0);
    let last = b.c32(w - 1);
    let r = b.i32(IntOp::Sub, last, v0);
    let c4 = b.c32(4);
    let ra = b.i32(IntOp::Mul, r, c4);
    let l = b.load(Space::Lds, Access::B32, ra, 0);
    b.wv(2, l);
    let l = b.load(Space::Lds, Access::I8, r, bytes_at);
    b.wv(3, l);
    let v0 = b.v(0);
    let m = b.c32(!1);
    let even = b.i32(IntOp::And, v0, m);
    let l = b.load(Space::Lds, Access::U16, even, bytes_at);
    b.wv(9, l);
    b.end("ds_read x3");
    let id = b.v(6);
    let c12 = b.c32(12);
    let off = b.i32(IntOp::Mul, id, c12);
    let a = b.addr64(0, off);
    let (v2, v3, v9) = (b.v(2), b.v(3), b.v(9));
    b.store(Space::Global, Access::B32, a, 0, v2);
    b.store(Space::Global, Access::B32, a, 4, v3);
    b.store(Space::Global, Access::B32, a, 8, v9);
    b.end("global_store_dwordx3");
    let id = b.v(6);
    let a = b.addr64(2, id);
    let v0 = b.v(0);
    let k = b.c32(0x5a);
    let x = b.i32(IntOp::Xor, v0, k);
    b.store(Space::Global, Access::U8, a, 0, x);
    b.end("global_store_byte");
    b.n(Node::Barrier);
    b.end("s_barrier");
    b.block(Terminator::Jump(blk(2)));
    // block 2
    let v7 = b.v(7);
    let v0 = b.v(0);
    let one = b.c32(1);
    let x = b.i32(IntOp::Add, v0, one);
    b.store(Space::Lds, Access::B32, v7, 0, x);
    b.end("ds_write_b32");
    b.n(Node::Barrier);
    b.end("s_barrier");
    b.block(Terminator::Jump(blk(3)));
    // block 3
    let v0 = b.v(0);
    let one = b.c32(1);
    let n = b.i32(IntOp::Add, v0, one);
    let wm = b.c32(w);
    let q = b.i32(IntOp::Sub, n, wm);
    let ge = b.n(Node::IntCmp {
        op: IntCmp::GeU,
        ty: Ty::B32,
        a: n,
        b: wm,
    });
    let idx = b.n(Node::Select {
        cond: ge,
        a: q,
        b: n,
    });
    let c4 = b.c32(4);
    let ra = b.i32(IntOp::Mul, idx, c4);
    let l = b.load(Space::Lds, Access::B32, ra, 0);
    let id = b.v(6);
    let c4 = b.c32(4);
    let off = b.i32(IntOp::Mul, id, c4);
    let a = b.addr64(6, off);
    b.store(Space::Global, Access::B32, a, 0, l);
    b.end("ds_read / global_store");
    b.block(Terminator::End);
    b.finish()
}

#[test]
fn lds_exchange_across_two_waves_with_barriers() {
    let ctx = common::lavapipe();
    for (ws, w) in [(32u32, 64u32), (64, 128)] {
        let grid = 3 * w;
        let p = lds_program(ws, w);
        let lds = 4 * w + w + 4;
        let bufs = vec![
            vec![0x33u8; 12 * grid as usize],
            vec![0x44u8; grid as usize + 3],
            vec![0x55u8; 4 * grid as usize],
        ];
        run_both(&ctx, &format!("lds_w{ws}"), &p, &bufs, |a| {
            launch_for(ws, w, grid, a, lds)
        });
    }
}

/// Global and LDS atomics; uniform loads of LDS after a barrier; a uniform-address store of a lane value.
fn atomics_program(ws: u32, w: u32) -> Program {
    let mut b = Pb::new("atomics", ws);
    b.global_id(6, w);
    let base = b.s(0, Ty::B64);
    let v0 = b.v(0);
    let one = b.c32(1);
    let x = b.i32(IntOp::Add, v0, one);
    b.n(Node::Atomic {
        space: Space::Global,
        op: AtomicOp::Add,
        addr: base,
        offset: 0,
        value: x,
        data1: None,
    });
    b.end("global_atomic_add");
    let base = b.s(0, Ty::B64);
    let v6 = b.v(6);
    b.n(Node::Atomic {
        space: Space::Global,
        op: AtomicOp::MaxU,
        addr: base,
        offset: 4,
        value: v6,
        data1: None,
    });
    b.end("global_atomic_umax");
    let base = b.s(0, Ty::B64);
    let v6 = b.v(6);
    let k = b.c32(0x8000_0005);
    let x = b.i32(IntOp::Xor, v6, k);
    b.n(Node::Atomic {
        space: Space::Global,
        op: AtomicOp::MinI,
        addr: base,
        offset: 8,
        value: x,
        data1: None,
    });
    b.end("global_atomic_smin");
    let z = b.c32(0);
    let v0 = b.v(0);
    b.n(Node::Atomic {
        space: Space::Lds,
        op: AtomicOp::Add,
        addr: z,
        offset: 0,
        value: v0,
        data1: None,
    });
    b.end("ds_add_u32");
    let z = b.c32(0);
    let v6 = b.v(6);
    let k = b.c32(2_654_435_761);
    let x = b.i32(IntOp::Mul, v6, k);
    b.n(Node::Atomic {
        space: Space::Lds,
        op: AtomicOp::Xor,
        addr: z,
        offset: 4,
        value: x,
        data1: None,
    });
    b.end("ds_xor_b32");
    b.n(Node::Barrier);
    b.end("s_barrier");
    b.block(Terminator::Jump(blk(1)));
    let z = b.c32(0);
    let l = b.load(Space::Lds, Access::B32, z, 0);
    b.ws(12, l);
    let l = b.load(Space::Lds, Access::B32, z, 4);
    b.ws(13, l);
    b.end("ds_read (uniform) to s12/s13");
    let s4 = b.s(4, Ty::B32);
    let c8 = b.c32(8);
    let off = b.i32(IntOp::Mul, s4, c8);
    let a = b.addr64(2, off);
    let s12 = b.s(12, Ty::B32);
    let s13 = b.s(13, Ty::B32);
    b.store(Space::Global, Access::B32, a, 0, s12);
    b.store(Space::Global, Access::B32, a, 4, s13);
    b.end("s_store (uniform)");
    let s4 = b.s(4, Ty::B32);
    let c4 = b.c32(4);
    let off = b.i32(IntOp::Mul, s4, c4);
    let a = b.addr64(6, off);
    let v6 = b.v(6);
    b.store(Space::Global, Access::B32, a, 0, v6);
    b.end("store with a uniform address of a lane value");
    b.block(Terminator::End);
    b.finish()
}

#[test]
fn global_and_lds_atomics() {
    let ctx = common::lavapipe();
    for (ws, w) in [(32u32, 64u32), (64, 128)] {
        let groups = 5;
        let grid = groups * w - 7;
        let p = atomics_program(ws, w);
        let mut counters = vec![0u8; 16];
        counters[8..12].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
        let bufs = vec![
            counters,
            vec![0x66u8; 8 * groups as usize],
            vec![0x77u8; 4 * groups as usize],
        ];
        run_both(&ctx, &format!("atomics_w{ws}"), &p, &bufs, |a| {
            launch_for(ws, w, grid, a, 16)
        });
    }
}

/// Many primitives on random and special operands, each result stored: floats (NaN canonicalisation,
/// min/max, legacy mad, f16 via f32, f64), conversions, comparisons, 16/64-bit integers, lane reads.
fn mixed_program(ws: u32, w: u32, n_out: &mut u32) -> Program {
    let mut b = Pb::new("mixed", ws);
    b.global_id(6, w);
    let id = b.v(6);
    let c16 = b.c32(16);
    let off = b.i32(IntOp::Mul, id, c16);
    let a = b.addr64(0, off);
    for k in 0..4 {
        let l = b.load(Space::Global, Access::B32, a, 4 * k);
        b.wv(10 + k as u16, l);
    }
    b.end("global_load_dwordx4 v[10:13]");
    let mut k = 0u32;
    type Op = Box<dyn Fn(&mut Pb, [H; 4]) -> H>;
    let fop =
        |op: FloatOp| -> Op { Box::new(move |b: &mut Pb, x: [H; 4]| b.fl(op, x[0], x[1], x[2])) };
    let lo16 = |b: &mut Pb, x: H| {
        b.n(Node::Extract {
            ty: Ty::B16,
            a: x,
            shift: 0,
        })
    };
    let hop = move |op: FloatOp| -> Op {
        Box::new(move |b: &mut Pb, x: [H; 4]| {
            let (p, q, r) = (lo16(b, x[0]), lo16(b, x[1]), lo16(b, x[2]));
            let h = b.fl(op, p, q, r);
            b.un(UnOp::ZExt, Ty::B32, h)
        })
    };
    let d64 = |b: &mut Pb, x: [H; 4], op: FloatOp| {
        let p = b.n(Node::Concat { lo: x[0], hi: x[1] });
        let q = b.n(Node::Concat { lo: x[2], hi: x[3] });
        b.fl(op, p, q, p)
    };
    let cvt = |op: UnOp| -> Op { Box::new(move |b: &mut Pb, x: [H; 4]| b.un(op, Ty::B32, x[0])) };
    let fcmp = |op: FloatCmp, ty: Ty| -> Op {
        Box::new(move |b: &mut Pb, x: [H; 4]| {
            let (p, q) = match ty {
                Ty::B16 => (lo16(b, x[0]), lo16(b, x[1])),
                Ty::B64 => (
                    b.n(Node::Concat { lo: x[0], hi: x[1] }),
                    b.n(Node::Concat { lo: x[2], hi: x[3] }),
                ),
                _ => (x[0], x[1]),
            };
            let c = b.n(Node::FloatCmp { op, ty, a: p, b: q });
            b.un(UnOp::ZExt, Ty::B32, c)
        })
    };
    let iop = |op: IntOp, ty: Ty| -> Op {
        Box::new(move |b: &mut Pb, x: [H; 4]| match ty {
            Ty::B16 => {
                let (p, q) = (lo16(b, x[0]), lo16(b, x[1]));
                let r = b.int(op, Ty::B16, p, q);
                b.un(UnOp::ZExt, Ty::B32, r)
            }
            Ty::B64 => {
                let p = b.n(Node::Concat { lo: x[0], hi: x[1] });
                let q = if matches!(op, IntOp::Shl | IntOp::LShr | IntOp::AShr) {
                    x[2]
                } else {
                    b.n(Node::Concat { lo: x[2], hi: x[3] })
                };
                b.int(op, Ty::B64, p, q)
            }
            _ => b.int(op, ty, x[0], x[1]),
        })
    };
    let mut ops: Vec<Op> = vec![
        fop(FloatOp::F32Add),
        fop(FloatOp::F32Sub),
        fop(FloatOp::F32Mul),
        fop(FloatOp::F32Fma),
        fop(FloatOp::F32LegacyMad),
        hop(FloatOp::F16Add),
        hop(FloatOp::F16Mul),
        hop(FloatOp::F16FmaToHalf),
        Box::new(move |b: &mut Pb, x: [H; 4]| d64(b, x, FloatOp::F64Add)),
        Box::new(move |b: &mut Pb, x: [H; 4]| d64(b, x, FloatOp::F64Mul)),
        cvt(UnOp::F32ToI32),
        cvt(UnOp::F32ToU32),
        cvt(UnOp::I32ToF32),
        cvt(UnOp::U32ToF32),
        Box::new(move |b: &mut Pb, x: [H; 4]| {
            let h = lo16(b, x[0]);
            b.un(UnOp::F16ToF32, Ty::B32, h)
        }),
        Box::new(|b: &mut Pb, x: [H; 4]| {
            let h = b.un(UnOp::F32ToF16, Ty::B16, x[0]);
            b.un(UnOp::ZExt, Ty::B32, h)
        }),
        iop(IntOp::MulHiU, Ty::B32),
        iop(IntOp::MulHiI, Ty::B32),
        iop(IntOp::Shl, Ty::B32),
        iop(IntOp::LShr, Ty::B32),
        iop(IntOp::AShr, Ty::B32),
        iop(IntOp::MinI, Ty::B32),
        iop(IntOp::MaxU, Ty::B32),
        iop(IntOp::Add, Ty::B16),
        iop(IntOp::AShr, Ty::B16),
        iop(IntOp::MinI, Ty::B16),
        iop(IntOp::MulHiI, Ty::B16),
        iop(IntOp::Shl, Ty::B64),
        iop(IntOp::AShr, Ty::B64),
        iop(IntOp::MulHiU, Ty::B64),
        iop(IntOp::MulHiI, Ty::B64),
        iop(IntOp::Sub, Ty::B64),
        Box::new(|b: &mut Pb, x: [H; 4]| {
            let p = b.n(Node::Concat { lo: x[0], hi: x[1] });
            b.un(UnOp::Popcount, Ty::B32, p)
        }),
        Box::new(move |b: &mut Pb, x: [H; 4]| {
            let h = lo16(b, x[0]);
            b.un(UnOp::SExt, Ty::B32, h)
        }),
        Box::new(|b: &mut Pb, x: [H; 4]| {
            let s = b.un(UnOp::SExt, Ty::B64, x[0]);
            b.n(Node::Extract {
                ty: Ty::B32,
                a: s,
                shift: 20,
            })
        }),
        Box::new(|b: &mut Pb, x: [H; 4]| {
            let c = b.c32(7);
            let r = b.n(Node::ReadLane { a: x[0], lane: c });
            b.int(IntOp::Xor, Ty::B32, r, x[1])
        }),
        Box::new(|b: &mut Pb, x: [H; 4]| {
            let c = b.n(Node::IntCmp {
                op: IntCmp::LtI,
                ty: Ty::B32,
                a: x[0],
                b: x[1],
            });
            let m = b.n(Node::Ballot { cond: c });
            b.n(Node::Extract {
                ty: Ty::B32,
                a: m,
                shift: 0,
            })
        }),
        Box::new(|b: &mut Pb, x: [H; 4]| {
            let n = b.un(UnOp::FNeg, Ty::B32, x[0]);
            let a = b.un(UnOp::FAbs, Ty::B32, x[1]);
            b.fl(FloatOp::F32Add, n, a, n)
        }),
    ];
    for op in [
        FloatCmp::Lt,
        FloatCmp::Eq,
        FloatCmp::Le,
        FloatCmp::Lg,
        FloatCmp::O,
        FloatCmp::U,
        FloatCmp::Nge,
        FloatCmp::Nlg,
        FloatCmp::Neq,
        FloatCmp::Nlt,
    ] {
        ops.push(fcmp(op, Ty::B32));
    }
    ops.push(fcmp(FloatCmp::Lt, Ty::B16));
    ops.push(fcmp(FloatCmp::Nle, Ty::B64));
    let n = ops.len() as u32;
    *n_out = n;
    for op in ops {
        let x = [b.v(10), b.v(11), b.v(12), b.v(13)];
        let r = op(&mut b, x);
        let id = b.v(6);
        let stride = b.c32(8 * n);
        let off = b.i32(IntOp::Mul, id, stride);
        let a = b.addr64(2, off);
        let ty = ty_of(&b.p, r);
        if ty == Ty::B64 {
            let lo = b.n(Node::Extract {
                ty: Ty::B32,
                a: r,
                shift: 0,
            });
            let hi = b.n(Node::Extract {
                ty: Ty::B32,
                a: r,
                shift: 32,
            });
            b.store(Space::Global, Access::B32, a, 8 * k as i64, lo);
            b.store(Space::Global, Access::B32, a, 8 * k as i64 + 4, hi);
        } else {
            b.store(Space::Global, Access::B32, a, 8 * k as i64, r);
        }
        b.end(&format!("op {k}"));
        k += 1;
    }
    b.block(Terminator::End);
    b.finish()
}

/// The type of node `h` (B32 unless it is 64-bit).
fn ty_of(p: &Program, h: H) -> Ty {
    match p.nodes[h] {
        Node::Concat { .. } => Ty::B64,
        Node::Int { ty, .. } | Node::Unary { ty, .. } | Node::Extract { ty, .. } => ty,
        Node::Float { op, .. } => op.ty(),
        _ => Ty::B32,
    }
}

#[test]
fn mixed_primitives_on_special_operands() {
    let ctx = common::lavapipe();
    for (ws, w, groups) in [(32u32, 64u32, 24u32), (64, 128, 6)] {
        mixed_case(&ctx, ws, w, groups);
    }
}

fn mixed_case(ctx: &Context, ws: u32, w: u32, groups: u32) {
    let grid = w * groups;
    let mut n_ops = 0;
    let p = mixed_program(ws, w, &mut n_ops);
    let mut r = Rng(99);
    let mut input = Vec::new();
    for i in 0..grid {
        for k in 0..4 {
            let v = if i % 5 == 0 {
                // f16 specials in the low half.
                let hs = [
                    0x0000u32, 0x8000, 0x0001, 0x03ff, 0x0400, 0x7bff, 0x7c00, 0xfc00, 0x7e00,
                    0x7c01, 0x3c00, 0xbc00, 0x1001, 0x3bfe, 0x3c01,
                ];
                hs[(r.next() % hs.len() as u64) as usize] | (r.u32() & 0xffff_0000)
            } else if k % 2 == 1 && i % 3 == 0 {
                r.u32()
            } else {
                f32_operand(&mut r)
            };
            input.extend_from_slice(&v.to_le_bytes());
        }
    }
    let out = vec![0x99u8; (8 * n_ops * grid) as usize];
    let o = run_both(ctx, &format!("mixed_w{ws}"), &p, &[input, out], |a| {
        launch_for(ws, w, grid, a, 0)
    });
    eprintln!(
        "mixed: {n_ops} primitives x {grid} lanes compared, module {} words",
        o.words
    );
}

#[test]
fn unsupported_shapes_are_refused() {
    // A barrier that does not end its block.
    let mut b = Pb::new("bad", 32);
    b.n(Node::Barrier);
    b.end("s_barrier");
    let z = b.c32(0);
    b.ws(5, z);
    b.end("s_mov_b32 s5, 0");
    b.block(Terminator::End);
    let p = b.finish();
    let launch = launch_for(32, 32, 32, &[], 0);
    let e = lower(&p, &kernel_layout(&launch), &DeviceProfile::portable()).unwrap_err();
    assert!(
        e.to_string().contains("s_barrier must end its block"),
        "{e}"
    );
}

/// The tests can tell: a profile that wrongly claims lavapipe's `Fma` is fused makes the same triples differ.
#[test]
fn a_profile_claiming_fused_fma_is_caught_on_lavapipe() {
    let ctx = common::lavapipe();
    let mut wrong = DeviceProfile::portable();
    wrong.fma_f32_fused = true;
    // Subnormals preserved (lavapipe does): the device's own Fma is then used, not the D168 emulation.
    wrong.preserves_subnormals_f32 = true;
    let triples = fma_triples(20_000, 3);
    let n = triples.len();
    let input: Vec<u8> = triples
        .iter()
        .flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let p = fma_program(32, 64);
    let (_, mism) = run_both_with(
        &ctx,
        "fma_wrong_profile",
        &p,
        &[input, vec![0u8; 4 * n]],
        |a| launch_for(32, 64, n as u32, a, 0),
        &wrong,
        &LowerOptions::default(),
    );
    let m = mism.expect("an unfused Fma must differ from the evaluator on these triples");
    eprintln!("as expected: {m}");
}

/// D228: out[2i] = x/y and out[2i+1] = √x for in[2i] = x, in[2i+1] = y (`F32Div`, `F32Sqrt`).
fn divsqrt_program(ws: u32, w: u32) -> Program {
    let mut b = Pb::new("divsqrt", ws);
    b.global_id(1, w);
    let x = b.v(1);
    let c8 = b.c32(8);
    let off = b.i32(IntOp::Mul, x, c8);
    b.wv(2, off);
    b.end("v_lshlrev_b32 v2, 3, v1");
    let off = b.v(2);
    let a = b.addr64(0, off);
    let l0 = b.load(Space::Global, Access::B32, a, 0);
    let l1 = b.load(Space::Global, Access::B32, a, 4);
    b.wv(3, l0);
    b.wv(4, l1);
    b.end("global_load_dwordx2 v[3:4], v2, s[0:1]");
    let (x, y) = (b.v(3), b.v(4));
    let q = b.fl(FloatOp::F32Div, x, y, x);
    b.wv(5, q);
    b.end("(x / y) v5");
    let x = b.v(3);
    let r = b.fl(FloatOp::F32Sqrt, x, x, x);
    b.wv(6, r);
    b.end("v_sqrt_f32 v6, v3");
    let off = b.v(2);
    let a = b.addr64(2, off);
    let (q, r) = (b.v(5), b.v(6));
    b.store(Space::Global, Access::B32, a, 0, q);
    b.store(Space::Global, Access::B32, a, 4, r);
    b.end("global_store_dwordx2 v2, v[5:6], s[2:3]");
    b.block(Terminator::End);
    b.finish()
}

/// Division and root operands: every pair of the specials, exact ties in the subnormal range (odd
/// subnormals over powers of two: x/y exactly halfway, rounded to even), quotients at the overflow and
/// underflow thresholds, and random pairs from `f32_operand` (a quarter with nearby significands).
fn divsqrt_pairs(n: usize, seed: u64) -> Vec<[u32; 2]> {
    let mut v = Vec::new();
    for &a in F32_SPECIALS {
        for &b in F32_SPECIALS {
            v.push([a, b]);
        }
    }
    for m in [1u32, 3, 5, 7, 0x7f_ffff, 0x40_0001, 0x12_3457] {
        for k in 1..=24u32 {
            v.push([m, (127 + k) << 23]);
            v.push([m | 0x8000_0000, (127 + k) << 23]);
        }
    }
    for (x, y) in [
        (0x7f7f_ffffu32, 0x3f00_0000u32),
        (0x7f7f_ffff, 0x3f7f_ffff),
        (0x7f00_0000, 0x3f00_0001),
        (0x0080_0000, 0x4000_0000),
        (0x0080_0000, 0x7f7f_ffff),
        (0x0000_0001, 0x7f7f_ffff),
        (0x0000_0003, 0x4000_0000),
        (0x0000_0001, 0x3f00_0000),
    ] {
        v.push([x, y]);
    }
    let mut r = Rng(seed);
    while v.len() < n {
        let x = f32_operand(&mut r);
        let y = if r.next().is_multiple_of(4) {
            (x & 0xff80_0000) ^ (r.u32() & 0x807f_ffff)
        } else {
            f32_operand(&mut r)
        };
        v.push([x, y]);
    }
    v
}

/// IEEE results computed natively on the host (x86 division and square root are correctly rounded),
/// NaNs as D005's default NaN.
fn divsqrt_native(x: u32, y: u32) -> [u32; 2] {
    let canon = |f: f32| if f.is_nan() { 0x7fc0_0000 } else { f.to_bits() };
    let (a, b) = (f32::from_bits(x), f32::from_bits(y));
    [canon(a / b), canon(a.sqrt())]
}

/// D228: on a device whose f32 `OpFDiv`/`Sqrt` are not correctly rounded (NVIDIA's, measured: 420 of 706
/// quotients and 157 of 706 roots differ), the lowering emits the exact integer emulation; lavapipe runs it
/// under the measured profile with that fact declared missing, with the square root's f64 seed moved by up
/// to 3·2^10 units (`div_sqrt_skew`, so its Newton step and corrections do work), and under the portable
/// profile (every emulation on): the device gives the native IEEE bits of every pair, and the host
/// evaluator the same bits.
#[test]
fn f32_division_and_root_exact_without_correctly_rounded_div_sqrt() {
    let ctx = common::lavapipe();
    let measured = probe(&ctx).expect("probe");
    let mut no_div = measured.clone();
    no_div.div_sqrt_f32_correctly_rounded = false;
    let portable = DeviceProfile::portable();
    let n = std::env::var("RDNA2SPV_DIVSQRT_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000usize);
    let pairs = divsqrt_pairs(n, 0xd228);
    let n = pairs.len();
    let input: Vec<u8> = pairs
        .iter()
        .flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let p = divsqrt_program(32, 256);
    for (label, prof, skew) in [
        ("no_div", &no_div, false),
        ("no_div_skewed", &no_div, true),
        ("portable_skewed", &portable, true),
    ] {
        let opts = LowerOptions {
            div_sqrt_skew: skew,
            ..LowerOptions::default()
        };
        let (o, mism) = run_both_with(
            &ctx,
            &format!("divsqrt_{label}"),
            &p,
            &[input.clone(), vec![0u8; 8 * n]],
            |a| launch_for(32, 256, n as u32, a, 0),
            prof,
            &opts,
        );
        if let Some(m) = mism {
            panic!("{label}: {m}");
        }
        assert_eq!(o.compared_bytes, 16 * n);
        let run = run_with_buffers(
            &ctx,
            &p,
            &[input.clone(), vec![0u8; 8 * n]],
            |a| launch_for(32, 256, n as u32, a, 0),
            prof,
            &opts,
        )
        .expect("device run");
        let out = &run.outputs[1];
        let mut bad = Vec::new();
        for (i, &[x, y]) in pairs.iter().enumerate() {
            let want = divsqrt_native(x, y);
            for (k, w) in want.into_iter().enumerate() {
                let at = 8 * i + 4 * k;
                let got = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
                if got != w {
                    bad.push(format!(
                        "{} x = {x:#010x}, y = {y:#010x}: device {got:#010x}, IEEE {w:#010x}",
                        ["div", "sqrt"][k]
                    ));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{label}: {} results differ from IEEE; first: {:?}",
            bad.len(),
            &bad[..bad.len().min(10)]
        );
        eprintln!(
            "divsqrt {label}: {n} pairs, every quotient and root IEEE on the device and the host"
        );
    }
}

/// A scalar loop of `trips` rounds through the dispatcher: s5 counts, then lane 0 stores it.
fn long_loop_program(trips: u32, ws: u32, lane_op: bool) -> Program {
    let mut b = Pb::new("long_loop", ws);
    let z = b.c32(0);
    b.ws(5, z);
    b.end("s_mov_b32 s5, 0");
    b.block(Terminator::Jump(blk(1)));
    if lane_op {
        // v1 += v0 (a lane loop per round).
        let (v1, v0) = (b.v(1), b.v(0));
        let x = b.i32(IntOp::Add, v1, v0);
        b.wv(1, x);
        b.end("v_add_nc_u32 v1, v1, v0");
    }
    let s5 = b.s(5, Ty::B32);
    let one = b.c32(1);
    let n = b.i32(IntOp::Add, s5, one);
    b.ws(5, n);
    let lim = b.c32(trips);
    let lt = b.n(Node::IntCmp {
        op: IntCmp::LtU,
        ty: Ty::B32,
        a: n,
        b: lim,
    });
    b.n(Node::WriteScc { value: lt });
    b.end("s_add_u32 s5, s5, 1 / s_cmp_lt_u32 s5, trips");
    let scc = b.n(Node::ReadScc);
    b.end("s_cbranch_scc1");
    b.block(Terminator::Branch {
        cond: scc,
        taken: blk(1),
        not_taken: blk(2),
    });
    let a = b.s(0, Ty::B64);
    let s5 = b.s(5, Ty::B32);
    b.store(Space::Global, Access::B32, a, 0, s5);
    b.end("s_store_dword s5, s[0:1]");
    if lane_op {
        let a = b.s(0, Ty::B64);
        let v0 = b.v(0);
        let c4 = b.c32(4);
        let off = b.i32(IntOp::Mul, v0, c4);
        let off = b.un(UnOp::ZExt, Ty::B64, off);
        let a = b.int(IntOp::Add, Ty::B64, a, off);
        let v1 = b.v(1);
        b.store(Space::Global, Access::B32, a, 4, v1);
        b.end("global_store_dword v1");
    }
    b.block(Terminator::End);
    b.finish()
}

/// lavapipe stops a loop silently after 65,535 iterations; the flags turn that into an error, whether the
/// dispatcher loop or a lane loop was cut.
#[test]
fn loop_cap_is_detected_not_silent() {
    let ctx = common::lavapipe();
    for (trips, ws, lane_op, fits) in [
        (20_000u32, 32u32, false, true),
        (100_000, 32, false, false),
        (300, 64, true, true),
        (2_000, 64, true, false),
    ] {
        let p = long_loop_program(trips, ws, lane_op);
        let name = format!("long_loop_{trips}_w{ws}");
        let size = 4 + 4 * ws as usize;
        if fits {
            run_both(&ctx, &name, &p, &[vec![0u8; size]], |a| {
                launch_for(ws, ws, ws, a, 0)
            });
            continue;
        }
        // The evaluator finishes; the device run must fail loudly.
        let buf = ctx.buffer_from_bytes(&vec![0u8; size]).unwrap();
        let launch = launch_for(ws, ws, ws, &[buf.device_address()], 0);
        let mut mem = Memory::default();
        mem.add("b", buf.device_address(), vec![0; size]).unwrap();
        rdna2spv_eval::run(&p, &launch, &mut mem).unwrap();
        assert_eq!(mem.read(buf.device_address(), 4).unwrap(), trips as u64);
        // Both mappings; the flag names the loop's block (block 1, the only block of the loop: D265
        // writes the block in the lane mapping only inside loops and at pass ends).
        let mappings: &[Mapping] = if lane_op {
            &[Mapping::Wave]
        } else {
            &[Mapping::Wave, Mapping::Lane]
        };
        for &mapping in mappings {
            let opts = RunOptions {
                lower: LowerOptions {
                    mapping,
                    ..LowerOptions::default()
                },
                ..RunOptions::default()
            };
            let err = run_program(&ctx, &p, &launch, &DeviceProfile::portable(), &opts)
                .expect_err("a loop past lavapipe's cap must not pass silently");
            eprintln!("{name} ({mapping:?}): as expected: {err}");
            assert!(
                matches!(
                    err,
                    rdna2spv_vulkan::RunError::NotFinished {
                        flag: 2,
                        block: Some(1),
                        ..
                    }
                ),
                "{mapping:?}: {err}"
            );
        }
    }
}

/// The unrolled-lanes form computes the same bits (and spends no loop budget on lanes).
#[test]
fn unrolled_lanes_give_the_same_bits() {
    let ctx = common::lavapipe();
    let unrolled = LowerOptions {
        lanes: Lanes::Unrolled,
        ..Default::default()
    };
    let portable = DeviceProfile::portable();
    let check =
        |name: &str, p: &Program, init: &[Vec<u8>], launch_of: &dyn Fn(&[u64]) -> Launch| {
            let (_, m) = run_both_with(&ctx, name, p, init, launch_of, &portable, &unrolled);
            if let Some(m) = m {
                panic!("{m}");
            }
        };
    let (ws, w) = (32u32, 64u32);
    let grid = 3 * w - 21;
    check(
        "divergent_unrolled",
        &divergent_program(ws, w),
        &[vec![0x11u8; 16 * grid as usize]],
        &|a| launch_for(ws, w, grid, a, 0),
    );
    check(
        "loops_unrolled",
        &loop_program(ws, w),
        &[vec![0x22u8; 8 * grid as usize]],
        &|a| launch_for(ws, w, grid, a, 0),
    );
    let grid = 3 * w;
    check(
        "lds_unrolled",
        &lds_program(ws, w),
        &[
            vec![0x33u8; 12 * grid as usize],
            vec![0x44u8; grid as usize + 3],
            vec![0x55u8; 4 * grid as usize],
        ],
        &|a| launch_for(ws, w, grid, a, 4 * w + w + 4),
    );
    // A loop whose lane work would exceed the cap with lane loops fits when unrolled.
    let p = long_loop_program(2_000, 64, true);
    check(
        "long_loop_2000_w64_unrolled",
        &p,
        &[vec![0u8; 4 + 4 * 64]],
        &|a| launch_for(64, 64, 64, a, 0),
    );
}

/// Three-dimensional workgroups, partial in every dimension: work-item ids in v0..v2, workgroup ids in
/// SGPRs, EXEC of the last wave.
#[test]
fn three_dimensional_partial_workgroups() {
    let ctx = common::lavapipe();
    let (wg, grid) = ([8u32, 4, 2], [20u32, 7, 3]);
    let mut b = Pb::new("ids3d", 32);
    // global x, y, z
    let mut g = Vec::new();
    for (d, sreg) in [(0u16, 4u16), (1, 5), (2, 8)] {
        let s = b.s(sreg, Ty::B32);
        let k = b.c32(wg[d as usize]);
        let m = b.i32(IntOp::Mul, s, k);
        let v = b.v(d);
        g.push(b.i32(IntOp::Add, m, v));
    }
    let gz = b.c32(grid[1]);
    let t = b.i32(IntOp::Mul, g[2], gz);
    let t = b.i32(IntOp::Add, t, g[1]);
    let gx = b.c32(grid[0]);
    let t = b.i32(IntOp::Mul, t, gx);
    let t = b.i32(IntOp::Add, t, g[0]);
    let c16 = b.c32(16);
    let off = b.i32(IntOp::Mul, t, c16);
    b.wv(10, off);
    b.end("linear id * 16");
    let off = b.v(10);
    let a = b.addr64(0, off);
    let (v0, v1, v2) = (b.v(0), b.v(1), b.v(2));
    let c8 = b.c32(8);
    let c16 = b.c32(16);
    let y = b.i32(IntOp::Shl, v1, c8);
    let z = b.i32(IntOp::Shl, v2, c16);
    let ids = b.i32(IntOp::Or, v0, y);
    let ids = b.i32(IntOp::Or, ids, z);
    let (s4, s5, s8) = (b.s(4, Ty::B32), b.s(5, Ty::B32), b.s(8, Ty::B32));
    let y = b.i32(IntOp::Shl, s5, c8);
    let z = b.i32(IntOp::Shl, s8, c16);
    let wgs = b.i32(IntOp::Or, s4, y);
    let wgs = b.i32(IntOp::Or, wgs, z);
    let exec = b.s(EXEC_LO, Ty::B32);
    let lane = b.n(Node::LaneId);
    b.store(Space::Global, Access::B32, a, 0, ids);
    b.store(Space::Global, Access::B32, a, 4, wgs);
    b.store(Space::Global, Access::B32, a, 8, exec);
    b.store(Space::Global, Access::B32, a, 12, lane);
    b.end("global_store_dwordx4");
    b.block(Terminator::End);
    let p = b.finish();
    let n = (grid[0] * grid[1] * grid[2]) as usize;
    run_both(&ctx, "ids3d", &p, &[vec![0xeeu8; 16 * n]], |a| Launch {
        wave_size: 32,
        grid,
        workgroup: wg,
        sgprs: vec![
            (0, SgprInit::Const(a[0] as u32)),
            (1, SgprInit::Const((a[0] >> 32) as u32)),
            (4, SgprInit::WorkgroupId(0)),
            (5, SgprInit::WorkgroupId(1)),
            (8, SgprInit::WorkgroupId(2)),
            (9, SgprInit::ScratchWaveOffset),
        ],
        workitem_id_vgprs: 3,
        lds_bytes: 0,
        scratch_bytes: 0,
        max_steps_per_wave: 1000,
        code_base: None,
    });
}

/// `x + 0.0`, `x * 1.0` and `x * 0.0` with constant operands: lavapipe folds them even under
/// NoContraction (−0 + 0 would stay −0, −1 × 0 would be +0), so the portable profile hides the constants;
/// a profile that says "no folding" shows the difference, and the multiply by zero alone (the fold
/// `folds_mul_zero` measures) is enough to need the hiding.
#[test]
fn constant_operands_are_not_folded() {
    let ctx = common::lavapipe();
    // `ops`: (operation, constant operand, its text); each result is stored as one word per work-item.
    let program = |ops: &[(FloatOp, u32, &str)]| {
        let mut b = Pb::new("fold", 32);
        b.global_id(1, 32);
        let id = b.v(1);
        let c4 = b.c32(4);
        let off = b.i32(IntOp::Mul, id, c4);
        let a = b.addr64(0, off);
        let x = b.load(Space::Global, Access::B32, a, 0);
        b.wv(2, x);
        b.end("global_load_dword v2");
        for (k, &(op, c, text)) in ops.iter().enumerate() {
            let x = b.v(2);
            let c = b.c32(c);
            let r = b.fl(op, x, c, c);
            b.wv(3 + k as u16, r);
            b.end(text);
        }
        let id = b.v(1);
        let stride = b.c32(4 * ops.len() as u32);
        let off = b.i32(IntOp::Mul, id, stride);
        let a = b.addr64(2, off);
        for k in 0..ops.len() {
            let r = b.v(3 + k as u16);
            b.store(Space::Global, Access::B32, a, 4 * k as i64, r);
        }
        b.end("global_store_dword");
        b.block(Terminator::End);
        b.finish()
    };
    let all = [
        (FloatOp::F32Add, 0, "v_add_f32 v3, 0, v2"),
        (FloatOp::F32Mul, 0x3f80_0000, "v_mul_f32 v4, 1.0, v2"),
        (FloatOp::F32Mul, 0, "v_mul_f32 v5, 0, v2"),
    ];
    let xs: Vec<u32> = F32_SPECIALS
        .iter()
        .copied()
        .chain([0x8000_0000; 5])
        .chain([0xbf80_0000, 0x7f80_0000])
        .collect();
    let n = xs.len();
    let input: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    let run = |name: &str, ops: &[(FloatOp, u32, &str)], prof: &DeviceProfile| {
        let init = [input.clone(), vec![0u8; 4 * ops.len() * n]];
        let launch_of = |a: &[u64]| launch_for(32, 32, n as u32, a, 0);
        run_both_with(
            &ctx,
            name,
            &program(ops),
            &init,
            launch_of,
            prof,
            &LowerOptions::default(),
        )
        .1
    };
    let portable = DeviceProfile::portable();
    assert_eq!(run("fold_portable", &all, &portable), None);
    let mut naive = DeviceProfile::portable();
    naive.folds_add_zero = false;
    naive.folds_mul_one = false;
    naive.folds_mul_zero = false;
    let m = run("fold_naive", &all, &naive)
        .expect("lavapipe folds -0 + 0 to -0 when the zero is a visible constant");
    eprintln!("as expected: {m}");
    // The multiply by zero alone: folded where the constant is visible, exact where the profile's
    // `folds_mul_zero` hides it.
    let mul0 = &all[2..];
    let m = run("fold_mul_zero_naive", mul0, &naive)
        .expect("lavapipe folds -1 * 0.0 to +0 when the zero is a visible constant");
    eprintln!("as expected: {m}");
    let mut zero_only = naive.clone();
    zero_only.folds_mul_zero = true;
    assert_eq!(run("fold_mul_zero", mul0, &zero_only), None);
    assert_eq!(run("fold_mul_zero_all", &all, &zero_only), None);
}

/// Instructions whose nodes need several lane loops: overlapping stores by neighbouring lanes (node order
/// across lanes matters), loads followed by stores to addresses other lanes read, a ballot feeding a lane
/// value of the same instruction.
#[test]
fn multi_phase_instructions_keep_node_order() {
    let ctx = common::lavapipe();
    for (ws, w) in [(32u32, 64u32), (64, 64)] {
        let mut b = Pb::new("phases", ws);
        b.global_id(1, w);
        // Overlapping stores: out0[id] = id + 100, then out0[id + 1] = id + 200.
        // Each wave owns words [id + wave] (a gap word after every wave), so waves do not race.
        let id = b.v(1);
        let sh = b.c32(ws.trailing_zeros());
        let wave = b.i32(IntOp::LShr, id, sh);
        let slot = b.i32(IntOp::Add, id, wave);
        let c4 = b.c32(4);
        let off = b.i32(IntOp::Mul, slot, c4);
        b.wv(11, off);
        b.end("slot");
        let id = b.v(1);
        let off = b.v(11);
        let a = b.addr64(0, off);
        let k = b.c32(100);
        let x = b.i32(IntOp::Add, id, k);
        b.store(Space::Global, Access::B32, a, 0, x);
        let k = b.c32(200);
        let y = b.i32(IntOp::Add, id, k);
        b.store(Space::Global, Access::B32, a, 4, y);
        b.end("ds_write2-like overlapping stores");
        // Loads then stores: out1[id] = out1[id + 1] + 1.
        let off = b.v(11);
        let a = b.addr64(2, off);
        let l = b.load(Space::Global, Access::B32, a, 4);
        let one = b.c32(1);
        let x = b.i32(IntOp::Add, l, one);
        b.store(Space::Global, Access::B32, a, 0, x);
        b.end("load then store");
        // A ballot used by lanes of the same instruction.
        let v0 = b.v(0);
        let one = b.c32(1);
        let odd = b.i32(IntOp::And, v0, one);
        let is_odd = b.n(Node::IntCmp {
            op: IntCmp::Ne,
            ty: Ty::B32,
            a: odd,
            b: one,
        });
        let m = b.n(Node::Ballot { cond: is_odd });
        let pc = b.un(UnOp::Popcount, Ty::B32, m);
        let k = b.c32(5);
        let v5 = b.i32(IntOp::Add, v0, k);
        let rf = b.n(Node::ReadFirstLane { a: v5 });
        let bit = b.n(Node::LaneBit { mask: m });
        let sel = b.n(Node::Select {
            cond: bit,
            a: pc,
            b: rf,
        });
        b.wv(9, sel);
        b.end("ballot -> lanes");
        let id = b.v(1);
        let c4 = b.c32(4);
        let off = b.i32(IntOp::Mul, id, c4);
        let a = b.addr64(6, off);
        let v9 = b.v(9);
        b.store(Space::Global, Access::B32, a, 0, v9);
        b.end("global_store_dword v9");
        b.block(Terminator::End);
        let p = b.finish();
        let grid = 2 * w - 5;
        let n = grid as usize + grid.div_ceil(ws) as usize + 1;
        let counting: Vec<u8> = (0..n as u32).flat_map(|i| (i * 3).to_le_bytes()).collect();
        run_both(
            &ctx,
            &format!("phases_w{ws}"),
            &p,
            &[vec![0u8; 4 * n], counting, vec![0u8; 4 * n]],
            |a| launch_for(ws, w, grid, a, 0),
        );
    }
}

/// out[i] = fma(in[3i], in[3i+1], in[3i+2]) in f64 (V_FMA_F64).
fn fma64_program(ws: u32, w: u32) -> Program {
    let mut b = Pb::new("fma64", ws);
    b.global_id(1, w);
    let x = b.v(1);
    let c24 = b.c32(24);
    let off = b.i32(IntOp::Mul, x, c24);
    let a = b.addr64(0, off);
    for k in 0..6u16 {
        let l = b.load(Space::Global, Access::B32, a, 4 * k as i64);
        b.wv(10 + k, l);
    }
    b.end("global_load_dwordx4 + dwordx2");
    let r = |b: &mut Pb, reg: u16| b.n(Node::ReadVgpr { reg, ty: Ty::B64 });
    let (x, y, z) = (r(&mut b, 10), r(&mut b, 12), r(&mut b, 14));
    let f = b.fl(FloatOp::F64Fma, x, y, z);
    b.wv(20, f);
    b.end("v_fma_f64 v[20:21], v[10:11], v[12:13], v[14:15]");
    let id = b.v(1);
    let c8 = b.c32(8);
    let off = b.i32(IntOp::Mul, id, c8);
    let a = b.addr64(2, off);
    let (lo, hi) = (b.v(20), b.v(21));
    b.store(Space::Global, Access::B32, a, 0, lo);
    b.store(Space::Global, Access::B32, a, 4, hi);
    b.end("global_store_dwordx2");
    b.block(Terminator::End);
    b.finish()
}

const F64_SPECIALS: &[u64] = &[
    0,
    1 << 63,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    1,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x8010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0x3ff0_0000_0200_0000, // 1 + 2^-27
    0xbff0_0000_0400_0000, // -(1 + 2^-26)
    0x3ca0_0000_0000_0000, // 2^-53
    0x5ff0_0000_0000_0000,
    0x2000_0000_0000_0000,
    0x0008_0000_0000_0000,
    0x3fe0_0000_0000_0000,
    0x4008_0000_0000_0000,
];

fn f64_operand(r: &mut Rng) -> u64 {
    match r.next() % 10 {
        0 | 1 => F64_SPECIALS[(r.next() % F64_SPECIALS.len() as u64) as usize],
        2 => r.next(),
        // Near the bottom of the range (products and sums that underflow).
        3 => (r.next() & 0x800f_ffff_ffff_ffff) | ((r.next() % 64) << 52),
        // Near the top (products that overflow).
        4 => (r.next() & 0x800f_ffff_ffff_ffff) | ((0x7ff - 1 - r.next() % 64) << 52),
        // Around 2^±500 so products land in the subnormal or overflow ranges.
        5 => (r.next() & 0x800f_ffff_ffff_ffff) | ((1023 - 500 - r.next() % 60) << 52),
        _ => (r.next() & 0x800f_ffff_ffff_ffff) | ((1023 - 20 + r.next() % 40) << 52),
    }
}

/// (3) for f64: ≥ 100,000 V_FMA_F64 triples through the integer emulation on lavapipe (whose f64 Fma
/// rounds twice) against the host's fused multiply-add.
#[test]
fn fma_f64_hundred_thousand_triples_bit_identical() {
    let ctx = common::lavapipe();
    let mut v: Vec<[u64; 3]> = vec![[
        0x3ff0_0000_0200_0000,
        0x3ff0_0000_0200_0000,
        0xbff0_0000_0400_0000,
    ]];
    for &a in F64_SPECIALS {
        for &b in F64_SPECIALS {
            for &c in F64_SPECIALS.iter().step_by(2) {
                v.push([a, b, c]);
            }
        }
    }
    let mut r = Rng(0xf64);
    while v.len() < 110_000 {
        let a = f64_operand(&mut r);
        let b = f64_operand(&mut r);
        let c = match r.next() % 3 {
            0 => {
                let p = f64::from_bits(a) * f64::from_bits(b);
                (-p).to_bits().wrapping_add(r.next() % 5).wrapping_sub(2)
            }
            _ => f64_operand(&mut r),
        };
        v.push([a, b, c]);
    }
    let n = v.len();
    let input: Vec<u8> = v
        .iter()
        .flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let (ws, w) = (32u32, 256u32);
    let p = fma64_program(ws, w);
    let init = [input, vec![0u8; 8 * n]];
    // V_FMA_F64 lowers under every profile (D066; portable takes the integer emulation): run it with
    // portable plus the Float64/Int64 fields lavapipe has.
    let mut with_f64 = DeviceProfile::portable();
    with_f64.has_float64 = true;
    with_f64.has_int64 = true;
    let (o, m) = run_both_with(
        &ctx,
        "fma64",
        &p,
        &init,
        |a| launch_for(ws, w, n as u32, a, 0),
        &with_f64,
        &LowerOptions::default(),
    );
    if let Some(m) = m {
        panic!("{m}");
    }
    // The same triples through lavapipe's own (unfused) f64 Fma do differ.
    let mut wrong = with_f64.clone();
    wrong.fma_f64_fused = true;
    // Subnormals preserved (lavapipe does): the device's own Fma is then used, not the D168 emulation.
    wrong.preserves_subnormals_f64 = true;
    let (_, m) = run_both_with(
        &ctx,
        "fma64_wrong_profile",
        &p,
        &init,
        |a| launch_for(ws, w, n as u32, a, 0),
        &wrong,
        &LowerOptions::default(),
    );
    eprintln!(
        "as expected: {}",
        m.expect("lavapipe's f64 Fma rounds twice on these triples")
    );
    assert_eq!(
        rdna2spv_eval::specialize::f64_fma(
            0x3ff0_0000_0200_0000,
            0x3ff0_0000_0200_0000,
            0xbff0_0000_0400_0000
        ),
        0x3c90_0000_0000_0000 // 2^-54
    );
    eprintln!("fma64: {n} triples, 0 mismatches, module {} words", o.words);
}

/// Unaligned 32-bit and dword-straddling 16-bit loads and stores, in global memory and LDS: the
/// evaluator allows any byte address, so the device must too.
#[test]
fn unaligned_and_straddling_accesses() {
    let ctx = common::lavapipe();
    let (ws, w) = (32u32, 64u32);
    let mut b = Pb::new("unaligned", ws);
    b.global_id(1, w);
    // v5 = id * 8 + (id & 3): a byte offset with every alignment.
    let id = b.v(1);
    let c8 = b.c32(8);
    let c3 = b.c32(3);
    let base = b.i32(IntOp::Mul, id, c8);
    let mis = b.i32(IntOp::And, id, c3);
    let off = b.i32(IntOp::Add, base, mis);
    b.wv(5, off);
    b.end("offsets");
    let off = b.v(5);
    let a = b.addr64(0, off);
    let l = b.load(Space::Global, Access::B32, a, 0);
    b.wv(2, l);
    let l = b.load(Space::Global, Access::U16, a, 1);
    b.wv(3, l);
    let l = b.load(Space::Global, Access::I16, a, 3);
    b.wv(4, l);
    b.end("global_load_dword / ushort / sshort (unaligned)");
    let off = b.v(5);
    let a = b.addr64(2, off);
    let v2 = b.v(2);
    b.store(Space::Global, Access::B32, a, 0, v2);
    b.end("global_store_dword (unaligned)");
    let off = b.v(5);
    let a = b.addr64(6, off);
    let v3 = b.v(3);
    b.store(Space::Global, Access::U16, a, 0, v3);
    b.end("global_store_short");
    let off = b.v(5);
    let a = b.addr64(6, off);
    let v4 = b.v(4);
    b.store(Space::Global, Access::U16, a, 3, v4);
    b.end("global_store_short (straddling when unaligned)");
    // LDS: each lane writes its value unaligned, then reads its neighbour's.
    let v0 = b.v(0);
    let c8 = b.c32(8);
    let c3 = b.c32(3);
    let base = b.i32(IntOp::Mul, v0, c8);
    let mis = b.i32(IntOp::And, v0, c3);
    let la = b.i32(IntOp::Add, base, mis);
    let v2 = b.v(2);
    b.store(Space::Lds, Access::B32, la, 0, v2);
    b.end("ds_write_b32 (unaligned)");
    b.n(Node::Barrier);
    b.end("s_barrier");
    b.block(Terminator::Jump(blk(1)));
    let v0 = b.v(0);
    let one = b.c32(1);
    let wm = b.c32(w - 1);
    let n = b.i32(IntOp::Add, v0, one);
    let n = b.i32(IntOp::And, n, wm);
    let c8 = b.c32(8);
    let c3 = b.c32(3);
    let base = b.i32(IntOp::Mul, n, c8);
    let mis = b.i32(IntOp::And, n, c3);
    let la = b.i32(IntOp::Add, base, mis);
    let l = b.load(Space::Lds, Access::B32, la, 0);
    let l2 = b.load(Space::Lds, Access::U16, la, 3);
    let id = b.v(1);
    let c8 = b.c32(8);
    let off = b.i32(IntOp::Mul, id, c8);
    let a = b.addr64(2, off);
    b.store(Space::Global, Access::B32, a, 8 * 256, l);
    b.store(Space::Global, Access::B32, a, 8 * 256 + 4, l2);
    b.end("ds_read (unaligned) / global_store");
    b.block(Terminator::End);
    let p = b.finish();
    let grid = 4 * w;
    let mut r = Rng(4);
    let input: Vec<u8> = (0..8 * grid + 16).map(|_| r.u32() as u8).collect();
    let init = [
        input,
        vec![0xabu8; 16 * grid as usize + 16],
        vec![0xcdu8; 8 * grid as usize + 16],
    ];
    let launch_of = |a: &[u64]| launch_for(ws, w, grid, a, 8 * w + 8);
    let emulate = LowerOptions {
        unaligned: Unaligned::Emulate,
        ..Default::default()
    };
    let (_, m) = run_both_with(
        &ctx,
        "unaligned",
        &p,
        &init,
        launch_of,
        &DeviceProfile::portable(),
        &emulate,
    );
    assert!(m.is_none(), "{}", m.unwrap_or_default());
    // By default such accesses are detected and the run fails loudly.
    let err = rdna2spv_vulkan::run_with_buffers(
        &ctx,
        &p,
        &init,
        launch_of,
        &DeviceProfile::portable(),
        &LowerOptions::default(),
    )
    .expect_err("a straddling access must not pass silently by default");
    eprintln!("as expected: {err}");
    assert!(
        matches!(err, rdna2spv_vulkan::RunError::NotFinished { flag: 3, .. }),
        "{err}"
    );
}

/// out[i] = f(in[3i], in[3i+1], in[3i+2]) for a 32-bit result.
fn map3_program(ws: u32, w: u32, f: &dyn Fn(&mut Pb, [H; 3]) -> H) -> Program {
    let mut b = Pb::new("map3", ws);
    b.global_id(1, w);
    let x = b.v(1);
    let c12 = b.c32(12);
    let off = b.i32(IntOp::Mul, x, c12);
    let a = b.addr64(0, off);
    let l = [
        b.load(Space::Global, Access::B32, a, 0),
        b.load(Space::Global, Access::B32, a, 4),
        b.load(Space::Global, Access::B32, a, 8),
    ];
    let r = f(&mut b, l);
    let id = b.v(1);
    let c4 = b.c32(4);
    let off = b.i32(IntOp::Mul, id, c4);
    let a = b.addr64(2, off);
    b.store(Space::Global, Access::B32, a, 0, r);
    b.end("load / op / store");
    b.block(Terminator::End);
    b.finish()
}

/// Half precision without Float16: f32→f16 rounding over the whole half range (ties and the subnormal
/// range included) and fused_to_half over random halves, device vs evaluator.
#[test]
fn half_precision_without_float16() {
    let ctx = common::lavapipe();
    let mut r = Rng(0x16);
    let n = 150_000usize;
    let mut words = Vec::with_capacity(3 * n);
    for i in 0..n {
        // f32 operand around the half range: exponents 98..=145, random or tie-shaped mantissas.
        let e = 98 + (r.next() % 48) as u32;
        let mut m = r.u32() & 0x7f_ffff;
        if i % 4 == 0 {
            m = (m & !0x1fff) | 0x1000; // a tie at the normal-half rounding position
        }
        let s = (r.u32() & 1) << 31;
        let x = if i % 50 == 0 {
            F32_SPECIALS[i / 50 % F32_SPECIALS.len()]
        } else {
            s | (e << 23) | m
        };
        words.push(x);
        words.push(r.u32() & 0xffff);
        words.push(r.u32() & 0xffff);
    }
    // D993's half triple: once-rounded 0x3c01, twice-rounded 0x3c02.
    words[..3].copy_from_slice(&[0x1001, 0x3bfe, 0x3c01]);
    assert_eq!(
        rdna2spv_eval::specialize::f16_fma_to_half(0x1001, 0x3bfe, 0x3c01),
        0x3c01
    );
    let input: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
    let (ws, w) = (32u32, 256u32);
    // f32 → f16.
    let p = map3_program(ws, w, &|b, x| {
        let h = b.un(UnOp::F32ToF16, Ty::B16, x[0]);
        b.un(UnOp::ZExt, Ty::B32, h)
    });
    run_both(
        &ctx,
        "f32_to_f16",
        &p,
        &[input.clone(), vec![0u8; 4 * n]],
        |a| launch_for(ws, w, n as u32, a, 0),
    );
    // fused_to_half(lo16(x0), x1, x2).
    let p = map3_program(ws, w, &|b, x| {
        let lo = |b: &mut Pb, v: H| {
            b.n(Node::Extract {
                ty: Ty::B16,
                a: v,
                shift: 0,
            })
        };
        let (p, q, s) = (lo(b, x[0]), lo(b, x[1]), lo(b, x[2]));
        let h = b.fl(FloatOp::F16FmaToHalf, p, q, s);
        b.un(UnOp::ZExt, Ty::B32, h)
    });
    run_both(&ctx, "fma_f16", &p, &[input, vec![0u8; 4 * n]], |a| {
        launch_for(ws, w, n as u32, a, 0)
    });
    eprintln!("half: {n} conversions and {n} fused_to_half, 0 mismatches");
}

/// An irreducible loop: the cycle {1, 2} is entered at 1 or at 2 depending on the workgroup id, and each
/// block can leave it. v3 = global id, then block 1 adds v0 and block 2 multiplies by 3, alternating until
/// the counter s5 passes a bound that depends on the workgroup id.
fn irreducible_program(ws: u32, w: u32) -> Program {
    let mut b = Pb::new("irreducible", ws);
    // block 0
    b.global_id(6, w);
    let v6 = b.v(6);
    b.wv(3, v6);
    let z = b.c32(0);
    b.ws(5, z);
    b.end("v_mov_b32 v3, v6 / s_mov_b32 s5, 0");
    let s4 = b.s(4, Ty::B32);
    let one = b.c32(1);
    let odd = b.i32(IntOp::And, s4, one);
    let z = b.c32(0);
    let nz = b.n(Node::IntCmp {
        op: IntCmp::Ne,
        ty: Ty::B32,
        a: odd,
        b: z,
    });
    b.n(Node::WriteScc { value: nz });
    b.end("s_bitcmp1_b32 s4, 0");
    let scc = b.n(Node::ReadScc);
    b.end("s_cbranch_scc1");
    b.block(Terminator::Branch {
        cond: scc,
        taken: blk(2),
        not_taken: blk(1),
    });
    // blocks 1 and 2: body, counter, branch to the other block or out
    for (me, other, step, bound) in [(1usize, 2usize, 1u32, 6u32), (2, 1, 2, 9)] {
        let v3 = b.v(3);
        let r = if me == 1 {
            let v0 = b.v(0);
            b.i32(IntOp::Add, v3, v0)
        } else {
            let c3 = b.c32(3);
            b.i32(IntOp::Mul, v3, c3)
        };
        b.wv(3, r);
        b.end("v_add / v_mul v3");
        let s5 = b.s(5, Ty::B32);
        let st = b.c32(step);
        let n = b.i32(IntOp::Add, s5, st);
        b.ws(5, n);
        let s4 = b.s(4, Ty::B32);
        let bc = b.c32(bound);
        let lim = b.i32(IntOp::Add, s4, bc);
        let lt = b.n(Node::IntCmp {
            op: IntCmp::LtU,
            ty: Ty::B32,
            a: n,
            b: lim,
        });
        b.n(Node::WriteScc { value: lt });
        b.end("s_add_u32 s5 / s_cmp_lt_u32");
        let scc = b.n(Node::ReadScc);
        b.end("s_cbranch_scc1");
        b.block(Terminator::Branch {
            cond: scc,
            taken: blk(other),
            not_taken: blk(3),
        });
    }
    // block 3
    let id = b.v(6);
    let c4 = b.c32(4);
    let off = b.i32(IntOp::Mul, id, c4);
    let a = b.addr64(0, off);
    let v3 = b.v(3);
    b.store(Space::Global, Access::B32, a, 0, v3);
    b.end("global_store_dword");
    b.block(Terminator::End);
    b.finish()
}

#[test]
fn irreducible_loop_runs_in_a_dispatcher_region() {
    use rdna2spv_spirv::lower::{control_flow_notes, ControlFlow};
    let ctx = common::lavapipe();
    let (ws, w) = (32u32, 64u32);
    let grid = 4 * w;
    let p = irreducible_program(ws, w);
    let s = rdna2spv_ir::cfg::Structure::of(&p);
    assert_eq!(s.dispatch_regions.len(), 1);
    assert_eq!(s.dispatch_regions[0].blocks, vec![1, 2]);
    let notes = control_flow_notes(&p);
    assert!(
        notes.len() == 1 && notes[0].contains("irreducible region of 2 blocks"),
        "{notes:?}"
    );
    // Both forms against the host evaluator, so both give the same bits.
    for cf in [ControlFlow::Structured, ControlFlow::Dispatcher] {
        let out = vec![0x33u8; 4 * grid as usize];
        let opts = LowerOptions {
            control_flow: cf,
            ..LowerOptions::default()
        };
        let (_, mism) = run_both_with(
            &ctx,
            &format!("irreducible_{cf:?}"),
            &p,
            &[out],
            |a| launch_for(ws, w, grid, a, 0),
            &DeviceProfile::portable(),
            &opts,
        );
        assert_eq!(mism, None, "{cf:?}");
    }
}
