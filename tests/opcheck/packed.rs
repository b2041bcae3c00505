//! A leaner opcheck frame for scalar instructions (SOP1/SOP2/SOPK/SOPC/SOPP): many ops per frame segment.
//!
//! The vector frame of [`super`] spends ~17 vector instructions (loads, stores and moves of 16 dwords per
//! lane) around every op, and lavapipe's JIT time grows with them (D022). A scalar op reads and writes
//! only SGPRs, SCC, VCC, EXEC and M0, so here one wave runs up to a wave's worth of ops in sequence: for op
//! `i` the frame loads that op's 16 input dwords into s8..s23 (`s_load_dwordx16` at offset `64 i` of the
//! wave's input block), sets M0 = 0, VCC_LO = s22 (wave64: VCC_HI = s18), SCC = s23 & 1 and, for
//! [`Exec::FromInput`], EXEC_LO = s21 | 0x100 (wave64: EXEC_HI = s20), runs the op, copies SCC and EXEC to
//! SGPRs and copies s16, s17, VCC_LO, SCC, EXEC_LO (wave64: EXEC_HI, VCC_HI) into lane `i` of v0..v6
//! (three or four VALU copies with EXEC = lane `i` alone, see [`NAMES`]), then restores EXEC. After the last op every lane stores its v0..v7, so lane `i`
//! holds op `i`'s results. So an op under test may write s16, s17, SCC, VCC and EXEC (and M0, not recorded). The oracle is a Rust function over [`Sc`], the scalar state the op sees.
//!
//! An op may be a short sequence of instructions (a branch and the instruction it skips); every
//! instruction's words are checked to print as the text written next to them.
//!
//! Operand sets: [`super::N`] waves per op (each wave its own 16 input dwords per op), from
//! [`super::inputs`] seeded per op.
#![allow(dead_code)]

use super::{inputs, lavapipe, Exec, WAVE};
use rdna2spv_eval::{Launch, Memory, SgprInit};
use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_ir::Program;
use rdna2spv_isa::{decode, PrintOptions, Target};
use rdna2spv_spirv::lower::LowerOptions;
use rdna2spv_vulkan::{probe, run_with_buffers};
use std::time::Instant;

/// The scalar state an op sees and its oracle updates (s8..s23, SCC, VCC, EXEC, M0).
#[derive(Clone, Debug)]
pub struct Sc {
    pub sg: [u32; 16],
    pub scc: bool,
    pub vcc: u64,
    pub exec: u64,
    pub m0: u32,
    pub wave64: bool,
}

impl Sc {
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
    /// The wave's lane mask (all lanes of the wave size).
    pub fn lanes(&self) -> u64 {
        if self.wave64 {
            u64::MAX
        } else {
            u32::MAX as u64
        }
    }
}

/// One scalar op (or a short instruction sequence) under test.
pub struct SOp {
    /// LLVM's text of each instruction, joined by "; ".
    pub asm: &'static str,
    pub words: &'static [u32],
    pub exec: Exec,
    pub wave64: bool,
    pub oracle: fn(&mut Sc),
}

/// A wave32 op with EXEC = all lanes.
pub fn sop(asm: &'static str, words: &'static [u32], oracle: fn(&mut Sc)) -> SOp {
    SOp {
        asm,
        words,
        exec: Exec::All,
        wave64: false,
        oracle,
    }
}

/// A wave32 op with EXEC from the input.
pub fn sop_exec(asm: &'static str, words: &'static [u32], oracle: fn(&mut Sc)) -> SOp {
    SOp {
        exec: Exec::FromInput,
        ..sop(asm, words, oracle)
    }
}

/// A wave64 op with EXEC from the input (the 64-bit EXEC forms).
pub fn sop_exec64(asm: &'static str, words: &'static [u32], oracle: fn(&mut Sc)) -> SOp {
    SOp {
        exec: Exec::FromInput,
        wave64: true,
        ..sop(asm, words, oracle)
    }
}

/// The registers recorded per op, in output order: s16, s17, VCC_LO, SCC, EXEC_LO, and for wave64 EXEC_HI,
/// VCC_HI. Every copy is a lane loop per op (the bulk of the module and of the evaluator's work), so pairs
/// go in one `v_lshlrev_b64 v[n:n+1], 0, s[m:m+1]`: s[16:17], then s[24:25] = VCC_LO and SCC, then EXEC
/// (s26, wave64 s[26:27]), then wave64's VCC_HI (s32).
const NAMES: [&str; 7] = [
    "s16", "s17", "vcc_lo", "scc", "exec_lo", "exec_hi", "vcc_hi",
];

/// The kernel running `ops` in sequence in every wave (llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 encodings).
pub fn packed_words(ops: &[&SOp]) -> Vec<u32> {
    let w64 = ops[0].wave64;
    let k = ops.len() as u32;
    let mut w = vec![
        0x3450_0086, // v_lshlrev_b32_e32 v40, 6, v0        (64 output bytes per lane)
        0x9318_ff04, // s_mul_i32 s24, s4, <k * 64>          (this wave's input block)
        k * 64,
        0x8006_1800,                                 // s_add_u32 s6, s0, s24
        0x8207_8001,                                 // s_addc_u32 s7, s1, 0
        if w64 { 0x8f05_8c04 } else { 0x8f05_8b04 }, // s_lshl_b32 s5, s4, 12 | 11
        0x801c_0502,                                 // s_add_u32 s28, s2, s5
        0x821d_8003,                                 // s_addc_u32 s29, s3, 0
        0xbe9e_037e,                                 // s_mov_b32 s30, exec_lo
    ];
    if w64 {
        w.push(0xbe9f_037f); // s_mov_b32 s31, exec_hi
    }
    for (i, o) in ops.iter().enumerate() {
        assert_eq!(o.wave64, w64);
        w.extend([0xf410_0203, 0xfa00_0000 | (i as u32 * 64)]); // s_load_dwordx16 s[8:23], s[6:7], 64 i
        w.push(0xbf8c_0070); // s_waitcnt vmcnt(0) lgkmcnt(0)
        w.push(0xbefc_0380); // s_mov_b32 m0, 0
        w.push(0xbeea_0316); // s_mov_b32 vcc_lo, s22
        if w64 {
            w.push(0xbeeb_0312); // s_mov_b32 vcc_hi, s18
        }
        if o.exec == Exec::FromInput {
            w.extend([0x887e_ff15, 0x0000_0100]); // s_or_b32 exec_lo, s21, 0x100
            if w64 {
                w.push(0xbeff_0314); // s_mov_b32 exec_hi, s20
            }
        }
        w.push(0x8718_8117); // s_and_b32 s24, s23, 1       (SCC)
        w.extend(o.words);
        w.push(0x8519_8081); // s_cselect_b32 s25, 1, 0
        w.push(0xbe98_036a); // s_mov_b32 s24, vcc_lo
        w.push(0xbe9a_037e); // s_mov_b32 s26, exec_lo
        if w64 {
            w.push(0xbe9b_037f); // s_mov_b32 s27, exec_hi
            w.push(0xbea0_036b); // s_mov_b32 s32, vcc_hi
        }
        // EXEC = lane i alone while the recorded registers are copied into v0..v6, then the saved EXEC.
        let bit = 1u64 << i;
        w.extend([0xbefe_03ff, bit as u32]); // s_mov_b32 exec_lo, <1 << i>
        if w64 {
            w.extend([0xbeff_03ff, (bit >> 32) as u32]); // s_mov_b32 exec_hi, <(1 << i) >> 32>
        }
        w.extend([0xd6ff_0000, 0x0000_2080]); // v_lshlrev_b64 v[0:1], 0, s[16:17]
        w.extend([0xd6ff_0002, 0x0000_3080]); // v_lshlrev_b64 v[2:3], 0, s[24:25]
        if w64 {
            w.extend([0xd6ff_0004, 0x0000_3480]); // v_lshlrev_b64 v[4:5], 0, s[26:27]
            w.push(0x7e0c_0220); // v_mov_b32_e32 v6, s32
        } else {
            w.push(0x7e08_021a); // v_mov_b32_e32 v4, s26
        }
        w.push(0xbefe_031e); // s_mov_b32 exec_lo, s30
        if w64 {
            w.push(0xbeff_031f); // s_mov_b32 exec_hi, s31
        }
    }
    w.extend([
        0xdc78_8000,
        0x001c_0028, // global_store_dwordx4 v40, v[0:3], s[28:29]
        0xdc78_8010,
        0x001c_0428, // global_store_dwordx4 v40, v[4:7], s[28:29] offset:16
    ]);
    w.push(0xbf81_0000); // s_endpgm
    w
}

pub fn packed_kernel(ops: &[&SOp]) -> Program {
    let code: Vec<u8> = packed_words(ops)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    lift(
        "opcheck_scalar",
        &code,
        LiftOptions {
            target: Target::Gfx1030,
            wave_size: if ops[0].wave64 { 64 } else { 32 },
            private_segment_buffer: None,
        },
    )
    .unwrap_or_else(|e| {
        let names: Vec<&str> = ops.iter().map(|o| o.asm).collect();
        panic!("{names:?}: the packed scalar kernel does not lift: {e}")
    })
}

/// The state before op `o` from its 16 input dwords (as the frame sets it up).
pub fn state_of(o: &SOp, x: &[u32; 16]) -> Sc {
    let wave64 = o.wave64;
    let hi = |v: u32| if wave64 { (v as u64) << 32 } else { 0 };
    let exec = match o.exec {
        Exec::All => {
            if wave64 {
                u64::MAX
            } else {
                u32::MAX as u64
            }
        }
        Exec::FromInput => (x[13] | 0x100) as u64 | hi(x[12]),
    };
    Sc {
        sg: *x,
        scc: x[15] & 1 != 0,
        vcc: x[14] as u64 | hi(x[10]),
        exec,
        m0: 0,
        wave64,
    }
}

fn recorded(s: &Sc) -> Vec<u32> {
    let mut r = vec![s.s(16), s.s(17), s.vcc as u32, s.scc as u32, s.exec as u32];
    if s.wave64 {
        r.extend([(s.exec >> 32) as u32, (s.vcc >> 32) as u32]);
    }
    r
}

/// Every instruction of the op's words prints as the text written next to them.
pub fn check_text(o: &SOp) {
    let mut at = 0;
    let mut texts = Vec::new();
    while at < o.words.len() {
        let ins =
            decode(&o.words[at..], Target::Gfx1030).unwrap_or_else(|e| panic!("{}: {e}", o.asm));
        texts.push(ins.text(PrintOptions { wave64: o.wave64 }));
        at += ins.len();
    }
    assert_eq!(
        texts.join("; "),
        o.asm,
        "the words are not the instructions written next to them"
    );
}

fn le(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Waves per op (`RDNA2SPV_OPCHECK_SCALAR_WAVES` overrides [`super::N`]).
pub fn waves() -> usize {
    std::env::var("RDNA2SPV_OPCHECK_SCALAR_WAVES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(super::N)
}

/// Checks every op over [`waves()`] operand sets: host vs lavapipe bit-identical and host vs the oracle, on
/// every recorded register. Ops run a wave's worth (32, or 64 for wave64 ops) to a module.
pub fn check_packed(ops: &[SOp]) {
    for o in ops {
        check_text(o);
    }
    let ctx = lavapipe();
    let prof = probe(&ctx).expect("the device profile is probed");
    let nw = waves();
    let all = Instant::now();
    let mut failures = Vec::new();
    let mut groups: Vec<Vec<&SOp>> = Vec::new();
    for o in ops {
        let cap = if o.wave64 { 64 } else { WAVE };
        match groups.last_mut() {
            Some(g) if g.len() < cap && g[0].wave64 == o.wave64 => g.push(o),
            _ => groups.push(vec![o]),
        }
    }
    for g in groups {
        let t = Instant::now();
        let ws = if g[0].wave64 { 64 } else { 32 };
        let k = g.len();
        let p = packed_kernel(&g);
        let per_op: Vec<Vec<[u32; 16]>> = g
            .iter()
            .map(|o| inputs(nw, 0x5ca1_a400_0000 ^ super::fnv(o.asm)))
            .collect();
        let mut input = Vec::with_capacity(nw * k * 64);
        for w in 0..nw {
            for x in &per_op {
                input.extend(x[w].iter().flat_map(|d| d.to_le_bytes()));
            }
        }
        let init = vec![input, vec![0u8; nw * ws * 64]];
        let launch = |a: &[u64]| Launch {
            wave_size: ws as u32,
            grid: [(nw * ws) as u32, 1, 1],
            workgroup: [ws as u32, 1, 1],
            sgprs: vec![
                (0, SgprInit::Const(a[0] as u32)),
                (1, SgprInit::Const((a[0] >> 32) as u32)),
                (2, SgprInit::Const(a[1] as u32)),
                (3, SgprInit::Const((a[1] >> 32) as u32)),
                (4, SgprInit::WorkgroupId(0)),
            ],
            workitem_id_vgprs: 1,
            lds_bytes: 0,
            scratch_bytes: 0,
            max_steps_per_wave: 1_000_000,
            code_base: None,
        };
        let run = run_with_buffers(&ctx, &p, &init, launch, &prof, &LowerOptions::default())
            .unwrap_or_else(|e| panic!("device run failed: {e}"));
        let t_dev = t.elapsed();
        let mut mem = Memory::default();
        for (i, b) in init.iter().enumerate() {
            mem.add(&format!("buf{i}"), run.addresses[i], b.clone())
                .unwrap();
        }
        rdna2spv_eval::run(&p, &run.launch, &mut mem).expect("the evaluator runs");
        let host = le(&mem.allocation("buf1").unwrap().data);
        let dev = le(&run.outputs[1]);
        for (j, o) in g.iter().enumerate() {
            let (mut hd, mut ho, mut first) = (0usize, 0usize, None::<String>);
            for (w, x) in per_op[j].iter().enumerate() {
                let mut s = state_of(o, x);
                (o.oracle)(&mut s);
                let want = recorded(&s);
                let at = (w * ws + j) * 16;
                for (r, &want) in want.iter().enumerate() {
                    let (h, d) = (host[at + r], dev[at + r]);
                    hd += (h != d) as usize;
                    ho += (h != want) as usize;
                    if (h != d || h != want) && first.is_none() {
                        first = Some(format!(
                            "wave {w} {}: host {h:#010x}, device {d:#010x}, oracle {want:#010x}; \
                             inputs s8..s23 {x:08x?}",
                            NAMES[r]
                        ));
                    }
                }
            }
            eprintln!(
                "{:52} {nw} operand sets: host≠device {hd}, host≠oracle {ho}",
                o.asm
            );
            if let Some(first) = first {
                failures.push(format!("{}: {first}", o.asm));
            }
        }
        eprintln!(
            "  ({k} ops in one module, {} words: device {t_dev:.2?} (lower {:.2?}, pipeline {:.2?}, \
             dispatch {:.2?}), all {:.2?})",
            run.report.module_words,
            run.report.lower_time,
            run.report.dispatch.pipeline_create,
            run.report.dispatch.dispatch,
            t.elapsed()
        );
    }
    eprintln!("{} scalar ops in {:.2?}", ops.len(), all.elapsed());
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
