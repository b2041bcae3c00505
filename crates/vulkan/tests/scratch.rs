//! Scratch (`Space::Scratch`, D010) on lavapipe against the host evaluator: hand-built IR programs whose
//! waves and lanes write distinct values into their private memory (dwords, bytes, shorts, a dynamically
//! indexed read, a read that straddles two dwords of the swizzled layout), run on the device and in the
//! evaluator with the same memory at the same addresses; every output byte must agree. Out-of-range scratch
//! accesses must fail loudly on both sides.

mod common;

use rdna2spv_eval::{EvalError, Launch, Memory, SgprInit};
use rdna2spv_ir::{Access, Block, Handle, Inst, IntOp, Node, Program, Space, Terminator, Ty};
use rdna2spv_spirv::lower::{lower, FLAG_SCRATCH_FAULT};
use rdna2spv_spirv::DeviceProfile;
use rdna2spv_vulkan::{kernel_layout, run_with_buffers, RunError};

type H = Handle<Node>;

/// Dwords of private memory per lane.
const WORDS: u32 = 7;
/// Output words per work-item.
const OUT: u32 = 5;

struct Pb {
    p: Program,
    start: u32,
    insts: Vec<Inst>,
    pc: u32,
}

impl Pb {
    fn n(&mut self, node: Node) -> H {
        self.p.nodes.push(node)
    }
    fn c32(&mut self, v: u32) -> H {
        self.n(Node::Const {
            ty: Ty::B32,
            bits: v as u64,
        })
    }
    fn i32(&mut self, op: IntOp, a: H, b: H) -> H {
        self.n(Node::Int {
            op,
            ty: Ty::B32,
            a,
            b,
        })
    }
    fn v(&mut self, reg: u16) -> H {
        self.n(Node::ReadVgpr { reg, ty: Ty::B32 })
    }
    fn wv(&mut self, reg: u16, value: H) {
        self.n(Node::WriteVgpr { reg, value });
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
    /// The swizzled scratch byte address of byte `byte` of private dword `k` (a lane value) of this lane.
    fn private_addr(&mut self, k: H, byte: u32) -> H {
        let ws = self.p.wave_size;
        let wsc = self.c32(ws);
        let row = self.i32(IntOp::Mul, k, wsc);
        let lane = self.n(Node::LaneId);
        let d = self.i32(IntOp::Add, row, lane);
        let four = self.c32(4);
        let a = self.i32(IntOp::Mul, d, four);
        let b = self.c32(byte);
        self.i32(IntOp::Add, a, b)
    }
    fn addr64(&mut self, base_sgpr: u16, off: H) -> H {
        let base = self.n(Node::ReadSgpr {
            reg: base_sgpr,
            ty: Ty::B64,
        });
        let o = self.n(Node::Unary {
            op: rdna2spv_ir::UnOp::ZExt,
            ty: Ty::B64,
            a: off,
        });
        self.n(Node::Int {
            op: IntOp::Add,
            ty: Ty::B64,
            a: base,
            b: o,
        })
    }
}

/// s[0:1] = index buffer, s[2:3] = output buffer, s4 = workgroup id x; v1 = global id.
fn program(ws: u32, wg: u32, overrun: bool) -> Program {
    let mut b = Pb {
        p: Program {
            name: format!("scratch_w{ws}"),
            wave_size: ws,
            ..Default::default()
        },
        start: 0,
        insts: Vec::new(),
        pc: 0,
    };
    // v1 = s4 * wg + v0
    let g = b.n(Node::ReadSgpr {
        reg: 4,
        ty: Ty::B32,
    });
    let wgc = b.c32(wg);
    let m = b.i32(IntOp::Mul, g, wgc);
    let v0 = b.v(0);
    let id = b.i32(IntOp::Add, m, v0);
    b.wv(1, id);
    b.end("v_mad_u32_u24 v1, s4, wg, v0");
    // Private dword k = id * 1000 + k * 7 + 0x5a5a0000 (distinct per lane, wave and workgroup).
    for k in 0..WORDS - 1 {
        let id = b.v(1);
        let c = b.c32(1000);
        let x = b.i32(IntOp::Mul, id, c);
        let kc = b.c32(k * 7 + 0x5a5a_0000);
        let val = b.i32(IntOp::Add, x, kc);
        let kk = b.c32(k);
        let a = b.private_addr(kk, 0);
        b.n(Node::Store {
            space: Space::Scratch,
            access: Access::B32,
            addr: a,
            offset: 0,
            value: val,
        });
        b.end("buffer_store_dword");
    }
    // The last dword by parts: byte 0 = id, byte 1 = 0x80 | k, short at 2 = id ^ 0xbeef.
    let last = WORDS - 1;
    let kk = b.c32(last);
    let a0 = b.private_addr(kk, 0);
    let a1 = b.private_addr(kk, 1);
    let a2 = b.private_addr(kk, 2);
    let id = b.v(1);
    let hi = b.c32(0x80);
    let v1 = b.i32(IntOp::Or, id, hi);
    let x = b.c32(0xbeef);
    let v2 = b.i32(IntOp::Xor, id, x);
    for (addr, access, value) in [
        (a0, Access::U8, id),
        (a1, Access::U8, v1),
        (a2, Access::U16, v2),
    ] {
        b.n(Node::Store {
            space: Space::Scratch,
            access,
            addr,
            offset: 0,
            value,
        });
    }
    b.end("buffer_store_byte/short");
    if overrun {
        // One dword past the region (lanes of the last row end exactly at its end).
        let kk = b.c32(WORDS);
        let a = b.private_addr(kk, 0);
        let v = b.v(1);
        b.n(Node::Store {
            space: Space::Scratch,
            access: Access::B32,
            addr: a,
            offset: 0,
            value: v,
        });
        b.end("buffer_store_dword (overrun)");
    }
    // out[id*OUT + 0] = private[idx[id] & 3]                (a dynamic index)
    // out[id*OUT + 1] = the dword at byte 2 of private dword 1 (straddles into the next lane's dword 1)
    // out[id*OUT + 2] = sbyte at byte 1 of the last dword, out[+3] = ushort at byte 2, out[+4] = the dword.
    let id = b.v(1);
    let four = b.c32(4);
    let off = b.i32(IntOp::Mul, id, four);
    let ia = b.addr64(0, off);
    let j = b.n(Node::Load {
        space: Space::Global,
        access: Access::B32,
        addr: ia,
        offset: 0,
    });
    let three = b.c32(3);
    let j = b.i32(IntOp::And, j, three);
    let da = b.private_addr(j, 0);
    let dynamic = b.n(Node::Load {
        space: Space::Scratch,
        access: Access::B32,
        addr: da,
        offset: 0,
    });
    let one = b.c32(1);
    let sa = b.private_addr(one, 0);
    let straddle = b.n(Node::Load {
        space: Space::Scratch,
        access: Access::B32,
        addr: sa,
        offset: 2,
    });
    let kk = b.c32(last);
    let la = b.private_addr(kk, 0);
    let sbyte = b.n(Node::Load {
        space: Space::Scratch,
        access: Access::I8,
        addr: la,
        offset: 1,
    });
    let ushort = b.n(Node::Load {
        space: Space::Scratch,
        access: Access::U16,
        addr: la,
        offset: 2,
    });
    let whole = b.n(Node::Load {
        space: Space::Scratch,
        access: Access::B32,
        addr: la,
        offset: 0,
    });
    let c = b.c32(OUT * 4);
    let o = b.i32(IntOp::Mul, id, c);
    let oa = b.addr64(2, o);
    for (i, v) in [dynamic, straddle, sbyte, ushort, whole]
        .into_iter()
        .enumerate()
    {
        b.n(Node::Store {
            space: Space::Global,
            access: Access::B32,
            addr: oa,
            offset: 4 * i as i64,
            value: v,
        });
    }
    b.end("global_store_dword x5");
    b.p.blocks.push(Block {
        start_pc: 0,
        insts: std::mem::take(&mut b.insts),
        terminator: Terminator::End,
    });
    rdna2spv_ir::verify(&b.p).expect("test program verifies");
    b.p
}

fn launch(ws: u32, wg: u32, grid: u32, a: &[u64]) -> Launch {
    Launch {
        wave_size: ws,
        grid: [grid, 1, 1],
        workgroup: [wg, 1, 1],
        sgprs: vec![
            (0, SgprInit::Const(a[0] as u32)),
            (1, SgprInit::Const((a[0] >> 32) as u32)),
            (2, SgprInit::Const(a[1] as u32)),
            (3, SgprInit::Const((a[1] >> 32) as u32)),
            (4, SgprInit::WorkgroupId(0)),
            (9, SgprInit::ScratchWaveOffset),
        ],
        workitem_id_vgprs: 1,
        lds_bytes: 0,
        scratch_bytes: 4 * WORDS - 1, // rounded up to dwords: the region still has WORDS rows
        max_steps_per_wave: 10_000,
        code_base: None,
    }
}

fn inputs(grid: u32) -> Vec<Vec<u8>> {
    let idx: Vec<u8> = (0..grid)
        .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 7).to_le_bytes())
        .collect();
    vec![idx, vec![0xee; (grid * OUT * 4) as usize]]
}

#[test]
fn private_values_per_lane_and_wave_match_the_evaluator() {
    let ctx = common::lavapipe();
    // wave32: 3 waves per workgroup, a partial last workgroup (and a partial wave); wave64: 2 waves.
    for (ws, wg, grid) in [(32u32, 96u32, 250u32), (64, 128, 200)] {
        let p = program(ws, wg, false);
        let init = inputs(grid);
        let run = run_with_buffers(
            &ctx,
            &p,
            &init,
            |a| launch(ws, wg, grid, a),
            &DeviceProfile::portable(),
            &Default::default(),
        )
        .unwrap_or_else(|e| panic!("w{ws}: device run failed: {e}"));
        let words = lower(&p, &kernel_layout(&run.launch), &DeviceProfile::portable()).unwrap();
        common::spirv_val(&format!("scratch_w{ws}"), &words);
        let mut mem = Memory::default();
        for (i, b) in init.iter().enumerate() {
            mem.add(&format!("buf{i}"), run.addresses[i], b.clone())
                .unwrap();
        }
        rdna2spv_eval::run(&p, &run.launch, &mut mem).expect("evaluator runs");
        let host = &mem.allocation("buf1").unwrap().data;
        let dev = &run.outputs[1];
        assert_eq!(host.len(), dev.len());
        if let Some(k) = (0..host.len()).find(|&k| host[k] != dev[k]) {
            panic!(
                "w{ws}: output differs first at byte {k} (work-item {}, word {})",
                k / (4 * OUT as usize),
                (k / 4) % OUT as usize
            );
        }
        // Spot-check the values against what the program means.
        let word = |i: u32, w: u32| {
            let o = (4 * (i * OUT + w)) as usize;
            u32::from_le_bytes(host[o..o + 4].try_into().unwrap())
        };
        let idx = |i: u32| u32::from_le_bytes(init[0][4 * i as usize..][..4].try_into().unwrap());
        let private = |i: u32, k: u32| i * 1000 + k * 7 + 0x5a5a_0000;
        let mut distinct = std::collections::HashSet::new();
        for i in 0..grid {
            let j = idx(i) & 3;
            assert_eq!(
                word(i, 0),
                private(i, j),
                "w{ws} item {i}: dynamic index {j}"
            );
            distinct.insert(word(i, 0));
            let lane = (i % wg) % ws;
            let last = (i & 0xff) | ((i | 0x80) & 0xff) << 8 | ((i ^ 0xbeef) & 0xffff) << 16;
            assert_eq!(word(i, 4), last, "w{ws} item {i}: bytes and short");
            assert_eq!(word(i, 2), ((i | 0x80) as u8 as i8 as i32) as u32);
            assert_eq!(word(i, 3), (i ^ 0xbeef) & 0xffff);
            // Bytes 2..3 of this lane's dword 1, then bytes 0..1 of the next lane's (if that lane ran).
            let next_lane_ran = lane + 1 < ws && i + 1 < grid && (i + 1) % wg != 0;
            if next_lane_ran {
                let want = private(i, 1) >> 16 | (private(i + 1, 1) & 0xffff) << 16;
                assert_eq!(word(i, 1), want, "w{ws} item {i}: straddling read");
            }
        }
        assert_eq!(distinct.len(), grid as usize);
        eprintln!(
            "scratch w{ws}: {} work-items, {} invocations, {} bytes identical, dispatch {:?}",
            grid,
            run.report.invocations,
            host.len(),
            run.report.dispatch.dispatch
        );
    }
}

#[test]
fn out_of_range_scratch_fails_on_both_sides() {
    let (ws, wg, grid) = (32u32, 64u32, 64u32);
    let p = program(ws, wg, true);
    let init = inputs(grid);
    // Host: a fault naming the wave, the lane, the pc and the offset.
    let mut mem = Memory::default();
    mem.add("idx", 0x1_0000_0000, init[0].clone()).unwrap();
    mem.add("out", 0x2_0000_0000, init[1].clone()).unwrap();
    let l = launch(ws, wg, grid, &[0x1_0000_0000, 0x2_0000_0000]);
    let e = rdna2spv_eval::run(&p, &l, &mut mem).unwrap_err();
    assert!(matches!(e, EvalError::Fault { wave: 0, .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("scratch store of 4 bytes")
            && text.contains("lane 0's offset 0x1c")
            && text.contains("(lane 0)")
            && text.contains("overrun"),
        "{text}"
    );
    // Device: the wave's flag says so.
    let ctx = common::lavapipe();
    let e = run_with_buffers(
        &ctx,
        &p,
        &init,
        |a| launch(ws, wg, grid, a),
        &DeviceProfile::portable(),
        &Default::default(),
    )
    .unwrap_err();
    match e {
        RunError::NotFinished { flag, count, .. } => {
            assert_eq!(flag, FLAG_SCRATCH_FAULT);
            assert_eq!(count, 2, "both waves overrun");
        }
        e => panic!("expected a scratch fault flag, got {e}"),
    }
}
