//! Scalar atomics (`s_atomic_*`, `s_buffer_atomic_*`, gfx1010/gfx1013), scalar scratch accesses
//! (`s_scratch_*`), `ds_append`/`ds_consume` and `ds_condxchg32_rtn_b64` (decisions D092, D093): host vs
//! lavapipe bit for bit and host vs an independent Rust reference written from the ISA's definitions.
//!
//! Each instruction runs in the opcheck frame (tests/opcheck) with a short segment around it; words from
//! `llvm-mc-19 -arch=amdgcn -show-encoding` (`-mcpu=gfx1010` for the SMEM forms, which exist only there,
//! `-mcpu=gfx1030` for the DS forms), the text beside them checked against our printer.
//!
//! * Scalar atomics: DATA (and the compare value) from lane 0's input (s8..s11, copied to s16..s19), one
//!   atomic per wave on the wave's own dword/qword 64 bytes into its input buffer (lane 1's v0/v1), with
//!   glc (pre-op value back in s16/s[16:17]; two forms without glc keep s16.. unchanged); the memory is read
//!   back with s_load into s18/s[18:19]. One operand set per wave: the compare forms get an equal compare
//!   value in a quarter of the waves, inc/dec a limit next to the memory value in a quarter. They run in a
//!   frame of scalar instructions only ([`scalar_segment_words`], issue 28), which stores s16..s19.
//! * `s_scratch_*`: the wave's scratch region (32 lanes x 32 bytes) is cleared by vector scratch stores,
//!   `s_scratch_store_dword{,x2,x4}` writes s8.. at the unswizzled region byte `(s12 & 0x3ef) & !3`, every lane
//!   then reads its 8 private dwords (swizzled, D070) into v8..v15 and `s_scratch_load_dword{,x2,x4}` reads
//!   back 4 bytes further into s16..: so the reference checks exactly where the scalar store landed in the
//!   swizzled per-lane layout, and what the scalar load sees.
//! * `ds_append`/`ds_consume` (EXEC from the input): the counter at M0 + offset (M0 = s10 & 0x7fc) set to
//!   s9, the pre-op value returned to every active lane (v8) and the counter read back (v9): s9 ± the number
//!   of EXEC lanes.
//! * `ds_condxchg32_rtn_b64`: each lane's qword at 64 * lane + 8 set from v[0:1], the address given
//!   unaligned by 0..7 bytes (v4 & 7: the ISA's `& 0xfff8`), DATA v[2:3]; old value in v[8:9], memory read
//!   back into v[10:11].
#![allow(clippy::unusual_byte_groupings)]

mod opcheck;

use opcheck::{frame_of, outputs_of, Exec, Frame, Op, Rng, WAVE};
use rdna2spv_eval::{Launch, Memory, SgprInit};
use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_isa::{decode, PrintOptions, Target};
use rdna2spv_spirv::lower::{choose_mapping, lower_with, KernelLayout, LowerOptions, Mapping};
use rdna2spv_spirv::profile::DeviceProfile;
use rdna2spv_vulkan::{probe, run_with_buffers};

// coverage: scalar_atomics_all: S_ATOMIC_SWAP S_ATOMIC_CMPSWAP S_ATOMIC_ADD S_ATOMIC_SUB S_ATOMIC_SMIN S_ATOMIC_UMIN S_ATOMIC_SMAX S_ATOMIC_UMAX S_ATOMIC_AND S_ATOMIC_OR S_ATOMIC_XOR S_ATOMIC_INC S_ATOMIC_DEC S_ATOMIC_SWAP_X2 S_ATOMIC_CMPSWAP_X2 S_ATOMIC_ADD_X2 S_ATOMIC_SUB_X2 S_ATOMIC_SMIN_X2 S_ATOMIC_UMIN_X2 S_ATOMIC_SMAX_X2 S_ATOMIC_UMAX_X2 S_ATOMIC_AND_X2 S_ATOMIC_OR_X2 S_ATOMIC_XOR_X2 S_ATOMIC_INC_X2 S_ATOMIC_DEC_X2 S_BUFFER_ATOMIC_SWAP S_BUFFER_ATOMIC_CMPSWAP S_BUFFER_ATOMIC_ADD S_BUFFER_ATOMIC_SUB S_BUFFER_ATOMIC_SMIN S_BUFFER_ATOMIC_UMIN S_BUFFER_ATOMIC_SMAX S_BUFFER_ATOMIC_UMAX S_BUFFER_ATOMIC_AND S_BUFFER_ATOMIC_OR S_BUFFER_ATOMIC_XOR S_BUFFER_ATOMIC_INC S_BUFFER_ATOMIC_DEC S_BUFFER_ATOMIC_SWAP_X2 S_BUFFER_ATOMIC_CMPSWAP_X2 S_BUFFER_ATOMIC_ADD_X2 S_BUFFER_ATOMIC_SUB_X2 S_BUFFER_ATOMIC_SMIN_X2 S_BUFFER_ATOMIC_UMIN_X2 S_BUFFER_ATOMIC_SMAX_X2 S_BUFFER_ATOMIC_UMAX_X2 S_BUFFER_ATOMIC_AND_X2 S_BUFFER_ATOMIC_OR_X2 S_BUFFER_ATOMIC_XOR_X2 S_BUFFER_ATOMIC_INC_X2 S_BUFFER_ATOMIC_DEC_X2
// In every `cargo test`, every segment at fewer waves (`scalar_atomics`; D159 credits the rows its log shows).
// coverage: scalar_atomics: S_ATOMIC_SWAP S_ATOMIC_CMPSWAP S_ATOMIC_ADD S_ATOMIC_SUB S_ATOMIC_SMIN S_ATOMIC_UMIN S_ATOMIC_SMAX S_ATOMIC_UMAX S_ATOMIC_AND S_ATOMIC_OR S_ATOMIC_XOR S_ATOMIC_INC S_ATOMIC_DEC S_ATOMIC_SWAP_X2 S_ATOMIC_CMPSWAP_X2 S_ATOMIC_ADD_X2 S_ATOMIC_SUB_X2 S_ATOMIC_SMIN_X2 S_ATOMIC_UMIN_X2 S_ATOMIC_SMAX_X2 S_ATOMIC_UMAX_X2 S_ATOMIC_AND_X2 S_ATOMIC_OR_X2 S_ATOMIC_XOR_X2 S_ATOMIC_INC_X2 S_ATOMIC_DEC_X2 S_BUFFER_ATOMIC_SWAP S_BUFFER_ATOMIC_CMPSWAP S_BUFFER_ATOMIC_ADD S_BUFFER_ATOMIC_SUB S_BUFFER_ATOMIC_SMIN S_BUFFER_ATOMIC_UMIN S_BUFFER_ATOMIC_SMAX S_BUFFER_ATOMIC_UMAX S_BUFFER_ATOMIC_AND S_BUFFER_ATOMIC_OR S_BUFFER_ATOMIC_XOR S_BUFFER_ATOMIC_INC S_BUFFER_ATOMIC_DEC S_BUFFER_ATOMIC_SWAP_X2 S_BUFFER_ATOMIC_CMPSWAP_X2 S_BUFFER_ATOMIC_ADD_X2 S_BUFFER_ATOMIC_SUB_X2 S_BUFFER_ATOMIC_SMIN_X2 S_BUFFER_ATOMIC_UMIN_X2 S_BUFFER_ATOMIC_SMAX_X2 S_BUFFER_ATOMIC_UMAX_X2 S_BUFFER_ATOMIC_AND_X2 S_BUFFER_ATOMIC_OR_X2 S_BUFFER_ATOMIC_XOR_X2 S_BUFFER_ATOMIC_INC_X2 S_BUFFER_ATOMIC_DEC_X2
// coverage: wave_id_in_workgroup: S_GET_WAVEID_IN_WORKGROUP
// coverage: scalar_memory_and_lds_counters: S_SCRATCH_LOAD_DWORD S_SCRATCH_LOAD_DWORDX2 S_SCRATCH_LOAD_DWORDX4 S_SCRATCH_STORE_DWORD S_SCRATCH_STORE_DWORDX2 S_SCRATCH_STORE_DWORDX4 DS_APPEND DS_CONSUME DS_CONDXCHG32_RTN_B64

/// One segment: its name, LLVM's text of its instructions and their words.
struct Seg {
    name: &'static str,
    text: &'static str,
    words: &'static [u32],
}

const fn seg(name: &'static str, text: &'static str, words: &'static [u32]) -> Seg {
    Seg { name, text, words }
}

fn base(name: &str) -> &str {
    name.split('@').next().unwrap()
}

fn target(s: &Seg) -> Target {
    if s.name.starts_with("s_") {
        Target::Gfx1010
    } else {
        Target::Gfx1030
    }
}

fn exec(s: &Seg) -> Exec {
    if s.name.starts_with("ds_") {
        Exec::FromInput
    } else {
        Exec::All
    }
}

// ---- the references (RDNA ISA definitions) ----------------------------------------------------------

/// The scalar atomic's operation: (op, 64-bit, compare form).
fn scalar_kind(name: &str) -> (&str, bool, bool) {
    let n = base(name);
    let rest = n
        .strip_prefix("s_buffer_atomic_")
        .or_else(|| n.strip_prefix("s_atomic_"))
        .unwrap();
    let wide = rest.ends_with("_x2");
    let op = rest.trim_end_matches("_x2");
    (op, wide, op == "cmpswap")
}

/// Memory after a scalar atomic: `m` before, `x` DATA, `c` the compare value (cmpswap stores x if m == c).
fn scalar_ref(op: &str, wide: bool, m: u64, x: u64, c: u64) -> u64 {
    let (mask, bits) = if wide {
        (u64::MAX, 64)
    } else {
        (0xffff_ffff, 32)
    };
    let s = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
    let r = match op {
        "swap" => x,
        "cmpswap" => {
            if m == c {
                x
            } else {
                m
            }
        }
        "add" => m.wrapping_add(x),
        "sub" => m.wrapping_sub(x),
        "smin" => s(m).min(s(x)) as u64,
        "smax" => s(m).max(s(x)) as u64,
        "umin" => m.min(x),
        "umax" => m.max(x),
        "and" => m & x,
        "or" => m | x,
        "xor" => m ^ x,
        // inc: m >= x ? 0 : m + 1; dec: (m == 0 || m > x) ? x : m - 1 (ISA guide, S_ATOMIC_INC/DEC).
        "inc" => {
            if m >= x {
                0
            } else {
                m + 1
            }
        }
        "dec" => {
            if m == 0 || m > x {
                x
            } else {
                m - 1
            }
        }
        o => panic!("no reference for {o}"),
    };
    r & mask
}

fn oracle(s: &Seg, f: &mut Frame, wave: &[[u32; 16]]) {
    let name = base(s.name);
    if name.starts_with("s_buffer_atomic_") || name.starts_with("s_atomic_") {
        let (op, wide, _) = scalar_kind(name);
        let glc = !s.name.ends_with("@noglc");
        let get = |r: usize| {
            if wide {
                f.s64(r)
            } else {
                f.s(r) as u64
            }
        };
        let m = if wide {
            wave[1][0] as u64 | (wave[1][1] as u64) << 32
        } else {
            wave[1][0] as u64
        };
        let x = get(8);
        let c = if wide { f.s64(10) } else { f.s(9) as u64 };
        let new = scalar_ref(op, wide, m, x, c);
        for r in 0..4 {
            let v = f.s(8 + r);
            f.set_s(16 + r, v);
        }
        if glc {
            if wide {
                f.set_s64(16, m);
            } else {
                f.set_s(16, m as u32);
            }
        }
        if wide {
            f.set_s64(18, new);
        } else {
            f.set_s(18, new as u32);
        }
    } else if name.starts_with("s_scratch_") {
        let w = match name {
            "s_scratch_dword" => 1,
            "s_scratch_dwordx2" => 2,
            _ => 4,
        };
        let mut region = [0u32; 32 * 8];
        f.scc = f.s(12) & 0x3ef != 0; // s_and_b32
        let a = (f.s(12) & 0x3ef & !3) as usize / 4;
        for j in 0..w {
            region[a + j] = f.s(8 + j);
        }
        for l in 0..WAVE {
            for k in 0..8 {
                f.v[l][8 + k] = region[k * 32 + l];
            }
        }
        for j in 0..w {
            f.set_s(16 + j, region[a + 1 + j]);
        }
    } else if name == "ds_append" || name == "ds_consume" {
        let c = f.s(9);
        f.scc = f.s(10) & 0x7fc != 0; // s_and_b32
        let n = f.exec.count_ones();
        let after = if name == "ds_append" {
            c.wrapping_add(n)
        } else {
            c.wrapping_sub(n)
        };
        f.per_lane(8, |_, _| c);
        f.per_lane(9, |_, _| after);
    } else if name == "ds_condxchg32_rtn_b64" {
        let before = f.clone();
        for l in 0..WAVE {
            if !before.active(l) {
                continue;
            }
            let v = before.v[l];
            f.v[l][8] = v[0];
            f.v[l][9] = v[1];
            for i in 0..2 {
                let d = v[2 + i];
                f.v[l][10 + i] = if d >> 31 != 0 { d & 0x7fff_ffff } else { v[i] };
            }
        }
    } else {
        panic!("no oracle for {name}");
    }
}

// ---- operands ----------------------------------------------------------------------------------------

fn inputs(s: &Seg, n: usize, seed: u64) -> Vec<[u32; 16]> {
    let mut r = Rng(seed);
    let mut v: Vec<[u32; 16]> = (0..n)
        .map(|_| {
            let mut x = [0u32; 16];
            for d in x.iter_mut() {
                *d = opcheck::operand(&mut r);
            }
            x
        })
        .collect();
    let name = base(s.name);
    if name.starts_with("s_buffer_atomic_") || name.starts_with("s_atomic_") {
        let (op, wide, _) = scalar_kind(name);
        // Every fourth wave gets a correlated operand class, the classes in turn (so that every class
        // occurs from 20 waves on, whatever the seed): the compare forms an equal compare value (the
        // 64-bit forms also one with only the low half equal); inc/dec a limit equal to the memory
        // value, one above, one below, 0, or the memory value 0 (dec's wrap). The other waves keep
        // their random operands (almost surely an unequal compare value). The operands are lane 0's
        // dwords 0..4 (s8..s11: DATA s8 or s[8:9], the compare value s9 or s[10:11]); the memory word
        // is lane 1's dwords 0 and 1. (Until issue 28's rework this wrote lane 0's dwords 8..12 —
        // s16..s19, which the segments overwrite — so the correlated classes never reached the
        // instruction.)
        for (w, wave) in v.chunks_mut(WAVE).enumerate() {
            if w % 4 != 0 {
                continue;
            }
            let class = (w / 4) as u64;
            let m = wave[1][0] as u64 | (wave[1][1] as u64) << 32;
            match op {
                "cmpswap" if wide => {
                    wave[0][2] = m as u32;
                    wave[0][3] = if class.is_multiple_of(2) {
                        (m >> 32) as u32
                    } else {
                        (m >> 32) as u32 ^ (1 << (r.next() % 32))
                    };
                }
                "cmpswap" => wave[0][1] = m as u32,
                "inc" | "dec" => {
                    let class = class % 5;
                    if class == 4 {
                        wave[1][0] = 0;
                        if wide {
                            wave[1][1] = 0;
                        }
                        continue;
                    }
                    let mm = if wide { m } else { m & 0xffff_ffff };
                    let x = match class {
                        0 => mm,
                        1 => mm.wrapping_add(1),
                        2 => mm.wrapping_sub(1),
                        _ => 0,
                    };
                    let x = if wide { x } else { x & 0xffff_ffff };
                    wave[0][0] = x as u32;
                    if wide {
                        wave[0][1] = (x >> 32) as u32;
                    }
                }
                _ => {}
            }
        }
    }
    v
}

// ---- the harness ---------------------------------------------------------------------------------------

fn check_words(s: &Seg) {
    let mut at = 0;
    for line in s.text.lines() {
        let ins = decode(&s.words[at..], target(s)).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        assert_eq!(ins.text(PrintOptions { wave64: false }), line, "{}", s.name);
        at += ins.len();
    }
    assert_eq!(at, s.words.len(), "{}: word count", s.name);
}

fn nothing(_: &mut Frame) {}

fn as_op(s: &Seg) -> Op {
    Op {
        asm: s.name,
        words: s.words,
        target: target(s),
        exec: exec(s),
        oracle: nothing,
    }
}

fn launch(grid: usize, addrs: &[u64]) -> Launch {
    let mut sgprs = Vec::new();
    for (i, &a) in addrs.iter().enumerate() {
        sgprs.push((2 * i as u16, SgprInit::Const(a as u32)));
        sgprs.push((2 * i as u16 + 1, SgprInit::Const((a >> 32) as u32)));
    }
    sgprs.push((4, SgprInit::WorkgroupId(0)));
    Launch {
        wave_size: 32,
        grid: [grid as u32, 1, 1],
        workgroup: [WAVE as u32, 1, 1],
        sgprs,
        workitem_id_vgprs: 1,
        lds_bytes: 4096,
        scratch_bytes: 32,
        max_steps_per_wave: 100_000,
        code_base: None,
    }
}

fn le(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn is_scalar_atomic(s: &Seg) -> bool {
    s.name.starts_with("s_atomic_") || s.name.starts_with("s_buffer_atomic_")
}

/// The scalar frame of the scalar atomics (issue 28): the wave's input and output blocks as in the opcheck
/// frame (2 KiB a wave at `s[6:7]` and `s[28:29]`, `offset` bytes in), lane 0's 16 input dwords in
/// s8..s23, the segment, then s16..s19 stored at the start of the wave's output block. No vector
/// instruction: the opcheck frame's per-lane loads and stores made each segment ~9,400 SPIR-V words in the
/// wave mapping, and lavapipe's compile of them (~5 s CPU a segment at 8 to a module on this machine)
/// was the whole cost of the test. Words from llvm-mc-19 -mcpu=gfx1010 -show-encoding ([`SCALAR_FRAME`]).
fn scalar_segment_words(segment: &[u32], offset: u32) -> Vec<u32> {
    let mut w = SCALAR_HEAD.to_vec();
    if offset != 0 {
        w.extend([
            0x8006_ff06,
            offset,
            0x8207_8007,
            0x801c_ff1c,
            offset,
            0x821d_801d,
        ]);
    }
    w.extend(SCALAR_LOAD);
    w.extend(segment);
    w.extend(SCALAR_TAIL);
    w
}

const SCALAR_HEAD: &[u32] = &[
    0x8f05_8b04,
    0x8006_0500,
    0x8207_8001,
    0x801c_0502,
    0x821d_8003,
];
const SCALAR_LOAD: &[u32] = &[0xf410_0203, 0xfa00_0000, 0xbf8c_c07f];
const SCALAR_TAIL: &[u32] = &[0xf448_040e, 0xfa00_0000, 0xbf8c_c07f];

/// The scalar frame's words and LLVM's text of them (checked against our printer by [`check_words`]).
static SCALAR_FRAME: &[Seg] = &[
    seg(
        "s_frame head",
        "s_lshl_b32 s5, s4, 11\ns_add_u32 s6, s0, s5\ns_addc_u32 s7, s1, 0\ns_add_u32 s28, s2, s5\ns_addc_u32 s29, s3, 0",
        SCALAR_HEAD,
    ),
    seg(
        "s_frame offset",
        "s_add_u32 s6, s6, 0x12345\ns_addc_u32 s7, s7, 0\ns_add_u32 s28, s28, 0x12345\ns_addc_u32 s29, s29, 0",
        &[0x8006_ff06, 0x12345, 0x8207_8007, 0x801c_ff1c, 0x12345, 0x821d_801d],
    ),
    seg(
        "s_frame load",
        "s_load_dwordx16 s[8:23], s[6:7], null\ns_waitcnt lgkmcnt(0)",
        SCALAR_LOAD,
    ),
    seg(
        "s_frame tail",
        "s_store_dwordx4 s[16:19], s[28:29], null\ns_waitcnt lgkmcnt(0)",
        SCALAR_TAIL,
    ),
];

/// Waves per scalar atomic segment in every `cargo test` ([`scalar_atomics`]): 256 operand sets, each
/// correlated class of [`inputs`] in 12 or more of them (8.9 s CPU for the 54 segments; docs/coverage-tests.md).
const CI_WAVES: usize = 256;

/// Segments per module in [`scalar_atomics`] (`RDNA2SPV_OPCHECK_BATCH` overrides): the scalar frame's
/// modules are small (about 2,800 SPIR-V words a segment), so two modules hold the 54.
const CI_BATCH: usize = 27;

fn ci_batch() -> usize {
    std::env::var("RDNA2SPV_OPCHECK_BATCH")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(CI_BATCH)
        .max(1)
}

/// Runs `segs` (one sub-target) on `n` work-items each, in modules of `opcheck::batch()` segments.
fn check(segs: &[&Seg], n: usize) {
    check_in(segs, n, opcheck::batch())
}

/// As [`check`], `batch` segments to a module.
fn check_in(segs: &[&Seg], n: usize, batch: usize) {
    for s in segs.iter().copied().chain(SCALAR_FRAME) {
        check_words(s);
    }
    let ctx = opcheck::lavapipe();
    let prof = probe(&ctx).expect("the device profile is probed");
    let mut failures = Vec::new();
    for (gi, group) in segs.chunks(batch).enumerate() {
        let t = std::time::Instant::now();
        let ops: Vec<Op> = group.iter().map(|s| as_op(s)).collect();
        let scalar = group.iter().all(|s| is_scalar_atomic(s));
        let mut words = Vec::new();
        for (k, o) in ops.iter().enumerate() {
            let offset = (k * n * 64) as u32;
            words.extend(if scalar {
                scalar_segment_words(o.words, offset)
            } else {
                opcheck::segment_words(o, offset)
            });
        }
        words.push(0xbf81_0000); // s_endpgm
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let p = lift(
            "scalar_atomics",
            &code,
            LiftOptions {
                target: target(group[0]),
                wave_size: 32,
                private_segment_buffer: None,
            },
        )
        .unwrap_or_else(|e| panic!("group {gi}: the batch does not lift: {e}"));
        let mut ins = Vec::new();
        for (i, s) in group.iter().enumerate() {
            ins.extend(inputs(s, n, 0x5a70_0000 ^ (gi as u64) << 12 ^ i as u64));
        }
        let input: Vec<u8> = ins
            .iter()
            .flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes()))
            .collect();
        let init = vec![input, vec![0u8; 64 * n * group.len()]];
        let run = run_with_buffers(
            &ctx,
            &p,
            &init,
            |a| launch(n, a),
            &prof,
            &LowerOptions::default(),
        )
        .unwrap_or_else(|e| panic!("group {gi}: device run failed: {e}"));
        let mut mem = Memory::default();
        for (i, b) in init.iter().enumerate() {
            mem.add(&format!("buf{i}"), run.addresses[i], b.clone())
                .unwrap();
        }
        let th = std::time::Instant::now();
        rdna2spv_eval::run(&p, &run.launch, &mut mem).expect("the evaluator runs");
        let host_time = th.elapsed();
        let host = le(&mem.allocation("buf1").unwrap().data);
        let dev = le(&run.outputs[1]);
        for (j, s) in group.iter().enumerate() {
            let ins = &ins[j * n..(j + 1) * n];
            let (mut hd, mut ho, mut first) = (0usize, 0usize, None::<String>);
            for (w, wave) in ins.chunks(WAVE).enumerate() {
                let o = as_op(s);
                let mut f = frame_of(&o, wave);
                oracle(s, &mut f, wave);
                let want = if scalar {
                    // The scalar frame stores s16..s19 at the start of the wave's output block and
                    // nothing else: the rest of the block stays zero.
                    let mut o = vec![[0u32; 16]; WAVE];
                    o[0][..4].copy_from_slice(&f.sg[8..12]);
                    o
                } else {
                    outputs_of(&f)
                };
                for (l, want) in want.iter().enumerate() {
                    let at = 16 * (j * n + w * WAVE + l);
                    let (h, d) = (&host[at..at + 16], &dev[at..at + 16]);
                    for q in 0..16 {
                        hd += (h[q] != d[q]) as usize;
                        ho += (h[q] != want[q]) as usize;
                        if (h[q] != d[q] || h[q] != want[q]) && first.is_none() {
                            first = Some(format!(
                                "wave {w} lane {l} output {q}: host {:#010x}, device {:#010x}, reference {:#010x}; lane inputs {:08x?}",
                                h[q], d[q], want[q], wave[l]
                            ));
                        }
                    }
                }
            }
            // Wave-level operands (scalar forms, the append counter): one operand set per wave.
            let sets = if s.name.starts_with("ds_condxchg") {
                n
            } else {
                n / WAVE
            };
            eprintln!(
                "{:32} {sets} operand sets ({n} lanes): host≠device {hd}, host≠reference {ho}",
                s.name
            );
            if let Some(first) = first {
                failures.push(format!("{}: {first}", s.name));
            }
        }
        eprintln!(
            "  ({} segments in one module: {:.2?}, process CPU {:.1} s so far; lowering {:.2?}, pipeline {:.2?}, dispatch {:.2?}, {} words; host {:.2?})",
            group.len(),
            t.elapsed(),
            cpu_seconds(),
            run.report.lower_time,
            run.report.dispatch.pipeline_create,
            run.report.dispatch.dispatch,
            run.report.module_words,
            host_time,
        );
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// User + system CPU seconds of this process so far (Linux `/proc/self/stat`, clock ticks of 1/100 s;
/// 0 where it cannot be read): the cost figure for CI's two cores, which wall time on a shared machine is not.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of the stat line (utime, stime) are the 12th and 13th after the command name.
    (tick(11) + tick(12)) / 100.0
}

fn select(f: impl Fn(&Seg) -> bool) -> Vec<&'static Seg> {
    SEGS.iter().filter(|s| f(s)).collect()
}

/// Work-items for the scalar atomics: one operand set per wave, so 4096 sets take 4096 waves
/// (`RDNA2SPV_SCALAR_WAVES` overrides).
fn scalar_items(default_waves: usize) -> usize {
    std::env::var("RDNA2SPV_SCALAR_WAVES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_waves)
        * WAVE
}

/// In every `cargo test` (issue 28): every scalar atomic segment — the 52 opcodes with glc and the two
/// without — on [`CI_WAVES`] waves each (one operand set per wave, every operand class of [`inputs`]
/// present), [`CI_BATCH`] segments to a module. `scalar_atomics_all` runs the same at 4096 waves.
#[test]
fn scalar_atomics() {
    let segs = select(|s| s.name.starts_with("s_") && !s.name.starts_with("s_scratch"));
    assert_eq!(segs.len(), 54, "every scalar atomic segment");
    check_in(&segs, scalar_items(CI_WAVES), ci_batch());
}

#[test]
#[ignore = "long (54 segments x 4096 waves, ~30 min; docs/coverage-tests.md): cargo test --test atomics_scalar -- --ignored"]
fn scalar_atomics_all() {
    check(
        &select(|s| s.name.starts_with("s_") && !s.name.starts_with("s_scratch")),
        scalar_items(4096),
    );
}

/// In every `cargo test`: s_scratch_* (4096 work-items: 128 waves, each with its own address and data),
/// ds_append/ds_consume with and without an offset (128 waves, each with its own EXEC, counter address
/// and value), ds_condxchg32_rtn_b64 (4096 lanes).
#[test]
fn scalar_memory_and_lds_counters() {
    check(&select(|s| s.name.starts_with("s_scratch")), opcheck::n());
    check(&select(|s| s.name.starts_with("ds_")), opcheck::n());
}

/// s_get_waveid_in_workgroup (D092): every work-item stores its wave's value at its own dword; 1,000
/// work-items in workgroups of 128 (the last one partial), wave32 (4 waves a group) and wave64 (2), in the
/// wave mapping and in the lane mapping (D082); the reference is (local id / wave size). Words from
/// llvm-mc-19 -mcpu=gfx1010.
#[test]
fn wave_id_in_workgroup() {
    const TEXT: &str = "s_get_waveid_in_workgroup s8\ns_lshl_b32 s5, s4, 9\ns_add_u32 s6, s0, s5\ns_addc_u32 s7, s1, 0\nv_mov_b32_e32 v1, s8\nv_lshlrev_b32_e32 v2, 2, v0\nglobal_store_dword v2, v1, s[6:7]\ns_endpgm";
    const WORDS: &[u32] = &[
        0xf4a80200, 0x00000000, 0x8f058904, 0x80060500, 0x82078001, 0x7e020208, 0x34040082,
        0xdc708000, 0x00060102, 0xbf810000,
    ];
    check_words(&seg("s_get_waveid_in_workgroup", TEXT, WORDS));
    let code: Vec<u8> = WORDS.iter().flat_map(|w| w.to_le_bytes()).collect();
    let ctx = opcheck::lavapipe();
    let prof = probe(&ctx).expect("the device profile is probed");
    const ITEMS: usize = 1000;
    for (ws, mapping) in [
        (32u32, Mapping::Wave),
        (64, Mapping::Wave),
        (32, Mapping::Lane),
        (64, Mapping::Lane),
    ] {
        let opts = LowerOptions {
            mapping,
            ..LowerOptions::default()
        };
        let p = lift(
            "wave_id",
            &code,
            LiftOptions {
                target: Target::Gfx1010,
                wave_size: ws,
                private_segment_buffer: None,
            },
        )
        .expect("lifts");
        let init = vec![vec![0xffu8; 4096]];
        let launch = |a: &[u64]| Launch {
            wave_size: ws,
            grid: [ITEMS as u32, 1, 1],
            workgroup: [128, 1, 1],
            sgprs: vec![
                (0, SgprInit::Const(a[0] as u32)),
                (1, SgprInit::Const((a[0] >> 32) as u32)),
                (4, SgprInit::WorkgroupId(0)),
            ],
            workitem_id_vgprs: 1,
            lds_bytes: 0,
            scratch_bytes: 0,
            max_steps_per_wave: 1000,
            code_base: None,
        };
        let run = run_with_buffers(&ctx, &p, &init, launch, &prof, &opts).expect("device run");
        let mut mem = Memory::default();
        mem.add("buf0", run.addresses[0], init[0].clone()).unwrap();
        rdna2spv_eval::run(&p, &run.launch, &mut mem).expect("the evaluator runs");
        let host = le(&mem.allocation("buf0").unwrap().data);
        let dev = le(&run.outputs[0]);
        for i in 0..1024 {
            let want = if i < ITEMS {
                ((i % 128) as u32) / ws
            } else {
                u32::MAX
            };
            assert_eq!(
                host[i], dev[i],
                "wave{ws} {mapping:?} item {i}: host vs device"
            );
            assert_eq!(
                host[i], want,
                "wave{ws} {mapping:?} item {i}: host vs reference"
            );
        }
        eprintln!("wave{ws}, {mapping:?} mapping: {ITEMS} work-items, host = device = reference");
    }
}

/// The lane mapping runs uniform nodes in every invocation of a wave and a wave's lanes in separate
/// invocations, so it refuses once-per-wave atomics, s_scratch_* and scratch atomics with their reasons
/// (D092), and `--mapping auto` (choose_mapping) keeps such kernels on the wave mapping.
#[test]
fn once_per_wave_atomics_keep_the_wave_mapping() {
    // buffer_atomic_add through the private segment buffer s[12:15] (tests/atomics.rs, llvm-mc-19 gfx1030).
    static SCRATCH_ATOMIC: Seg = seg(
        "buffer_atomic_add@scratch",
        "s_mov_b32 s12, 0\nv_and_b32_e32 v41, 56, v6\nbuffer_store_dword v0, v41, s[12:15], 0 offen\nv_mov_b32_e32 v8, v2\nbuffer_atomic_add v8, v41, s[12:15], 0 offen glc\nbuffer_load_dword v12, v41, s[12:15], 0 offen\ns_waitcnt vmcnt(0)",
        &[
            0xbe8c0380, 0x36520cb8, 0xe0701000, 0x80030029, 0x7e100302, 0xe0c85000, 0x80030829,
            0xe0301000, 0x80030c29, 0xbf8c3f70,
        ],
    );
    check_words(&SCRATCH_ATOMIC);
    let mut cases = select(|s| matches!(s.name, "s_atomic_add" | "ds_append" | "s_scratch_dword"));
    cases.push(&SCRATCH_ATOMIC);
    for s in cases {
        let (why, psb) = match s.name {
            "s_scratch_dword" => ("scalar scratch accesses", None),
            "buffer_atomic_add@scratch" => ("scratch atomics", Some(12)),
            _ => ("once-per-wave atomic", None),
        };
        let mut words = opcheck::segment_words(&as_op(s), 0);
        words.push(0xbf81_0000);
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let p = lift(
            "k",
            &code,
            LiftOptions {
                target: target(s),
                wave_size: 32,
                private_segment_buffer: psb,
            },
        )
        .expect("lifts");
        let layout = KernelLayout {
            wave_size: 32,
            workgroup: [32, 1, 1],
            sgprs: Vec::new(),
            workitem_id_vgprs: 1,
            lds_bytes: 4096,
            scratch_bytes: 64,
            code_base: None,
        };
        let prof = DeviceProfile::portable();
        let lane = LowerOptions {
            mapping: Mapping::Lane,
            ..LowerOptions::default()
        };
        let e = lower_with(&p, &layout, &prof, &lane)
            .unwrap_err()
            .to_string();
        assert!(e.contains(why), "{}: {e}", s.name);
        let chosen = choose_mapping(&p, &layout, &prof, &LowerOptions::default());
        assert_eq!(chosen.mapping(), Mapping::Wave, "{}", s.name);
        let reason = chosen.fallback_reason().expect("a reason").to_string();
        assert!(reason.contains(why), "{}", s.name);
        lower_with(&p, &layout, &prof, &LowerOptions::default())
            .expect("the wave mapping lowers it");
    }
}

/// Every segment: its name, LLVM's text of its instructions and their words (llvm-mc-19; gfx1010 for the
/// SMEM forms, gfx1030 for the DS forms).
static SEGS: &[Seg] = &[
    seg("s_atomic_swap", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_swap s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6010403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_cmpswap", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_cmpswap s[16:17], s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6050403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_add", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_add s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6090403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_sub", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_sub s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf60d0403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_smin", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_smin s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6110403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_umin", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_umin s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6150403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_smax", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_smax s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6190403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_umax", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_umax s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf61d0403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_and", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_and s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6210403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_or", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_or s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6250403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_xor", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_xor s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6290403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_inc", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_inc s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf62d0403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_dec", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_dec s16, s[6:7], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6310403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_swap_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_swap_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6810403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_cmpswap_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_cmpswap_x2 s[16:19], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6850403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_add_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_add_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6890403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_sub_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_sub_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf68d0403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_smin_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_smin_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6910403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_umin_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_umin_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6950403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_smax_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_smax_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6990403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_umax_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_umax_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf69d0403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_and_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_and_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6a10403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_or_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_or_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6a50403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_xor_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_xor_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6a90403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_inc_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_inc_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6ad0403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_dec_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_dec_x2 s[16:17], s[6:7], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6b10403, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_swap", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_swap s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5010406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_cmpswap", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_cmpswap s[16:17], s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5050406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_add", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_add s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5090406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_sub", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_sub s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf50d0406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_smin", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_smin s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5110406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_umin", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_umin s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5150406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_smax", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_smax s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5190406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_umax", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_umax s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf51d0406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_and", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_and s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5210406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_or", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_or s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5250406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_xor", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_xor s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5290406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_inc", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_inc s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf52d0406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_dec", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_dec s16, s[12:15], 0x40 glc\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5310406, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_swap_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_swap_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5810406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_cmpswap_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_cmpswap_x2 s[16:19], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5850406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_add_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_add_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5890406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_sub_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_sub_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf58d0406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_smin_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_smin_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5910406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_umin_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_umin_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5950406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_smax_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_smax_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5990406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_umax_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_umax_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf59d0406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_and_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_and_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5a10406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_or_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_or_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5a50406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_xor_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_xor_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5a90406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_inc_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_inc_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5ad0406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_dec_x2", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_dec_x2 s[16:17], s[12:15], 0x40 glc\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5b10406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_atomic_add@noglc", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_atomic_add s16, s[6:7], 0x40\ns_load_dword s18, s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xf6080403, 0xfa000040, 0xf4000483, 0xfa000040, 0xbf8cc07f]),
    seg("s_buffer_atomic_cmpswap_x2@noglc", "s_mov_b32 s16, s8\ns_mov_b32 s17, s9\ns_mov_b32 s18, s10\ns_mov_b32 s19, s11\ns_mov_b32 s12, s6\ns_mov_b32 s13, s7\ns_buffer_atomic_cmpswap_x2 s[16:19], s[12:15], 0x40\ns_load_dwordx2 s[18:19], s[6:7], 0x40\ns_waitcnt lgkmcnt(0)", &[0xbe900308, 0xbe910309, 0xbe92030a, 0xbe93030b, 0xbe8c0306, 0xbe8d0307, 0xf5840406, 0xfa000040, 0xf4040483, 0xfa000040, 0xbf8cc07f]),
    seg("s_scratch_dword", "v_mov_b32_e32 v41, 0\nv_mov_b32_e32 v42, 0\nv_mov_b32_e32 v43, 0\nv_mov_b32_e32 v44, 0\nv_mov_b32_e32 v45, 0\nscratch_store_dwordx4 v41, v[42:45], off\nscratch_store_dwordx4 v41, v[42:45], off offset:16\ns_and_b32 s12, s12, 0x3ef\ns_mov_b32 s13, 0\ns_scratch_store_dword s8, s[12:13], null\ns_waitcnt lgkmcnt(0)\nscratch_load_dwordx4 v[8:11], v41, off\nscratch_load_dwordx4 v[12:15], v41, off offset:16\ns_scratch_load_dword s16, s[12:13], 0x4\ns_waitcnt vmcnt(0) lgkmcnt(0)", &[0x7e520280, 0x7e540280, 0x7e560280, 0x7e580280, 0x7e5a0280, 0xdc784000, 0x007d2a29, 0xdc784010, 0x007d2a29, 0x870cff0c, 0x000003ef, 0xbe8d0380, 0xf4540206, 0xfa000000, 0xbf8cc07f, 0xdc384000, 0x087d0029, 0xdc384010, 0x0c7d0029, 0xf4140406, 0xfa000004, 0xbf8c0070]),
    seg("s_scratch_dwordx2", "v_mov_b32_e32 v41, 0\nv_mov_b32_e32 v42, 0\nv_mov_b32_e32 v43, 0\nv_mov_b32_e32 v44, 0\nv_mov_b32_e32 v45, 0\nscratch_store_dwordx4 v41, v[42:45], off\nscratch_store_dwordx4 v41, v[42:45], off offset:16\ns_and_b32 s12, s12, 0x3ef\ns_mov_b32 s13, 0\ns_scratch_store_dwordx2 s[8:9], s[12:13], null\ns_waitcnt lgkmcnt(0)\nscratch_load_dwordx4 v[8:11], v41, off\nscratch_load_dwordx4 v[12:15], v41, off offset:16\ns_scratch_load_dwordx2 s[16:17], s[12:13], 0x4\ns_waitcnt vmcnt(0) lgkmcnt(0)", &[0x7e520280, 0x7e540280, 0x7e560280, 0x7e580280, 0x7e5a0280, 0xdc784000, 0x007d2a29, 0xdc784010, 0x007d2a29, 0x870cff0c, 0x000003ef, 0xbe8d0380, 0xf4580206, 0xfa000000, 0xbf8cc07f, 0xdc384000, 0x087d0029, 0xdc384010, 0x0c7d0029, 0xf4180406, 0xfa000004, 0xbf8c0070]),
    seg("s_scratch_dwordx4", "v_mov_b32_e32 v41, 0\nv_mov_b32_e32 v42, 0\nv_mov_b32_e32 v43, 0\nv_mov_b32_e32 v44, 0\nv_mov_b32_e32 v45, 0\nscratch_store_dwordx4 v41, v[42:45], off\nscratch_store_dwordx4 v41, v[42:45], off offset:16\ns_and_b32 s12, s12, 0x3ef\ns_mov_b32 s13, 0\ns_scratch_store_dwordx4 s[8:11], s[12:13], null\ns_waitcnt lgkmcnt(0)\nscratch_load_dwordx4 v[8:11], v41, off\nscratch_load_dwordx4 v[12:15], v41, off offset:16\ns_scratch_load_dwordx4 s[16:19], s[12:13], 0x4\ns_waitcnt vmcnt(0) lgkmcnt(0)", &[0x7e520280, 0x7e540280, 0x7e560280, 0x7e580280, 0x7e5a0280, 0xdc784000, 0x007d2a29, 0xdc784010, 0x007d2a29, 0x870cff0c, 0x000003ef, 0xbe8d0380, 0xf45c0206, 0xfa000000, 0xbf8cc07f, 0xdc384000, 0x087d0029, 0xdc384010, 0x0c7d0029, 0xf41c0406, 0xfa000004, 0xbf8c0070]),
    seg("ds_append", "s_and_b32 s10, s10, 0x7fc\ns_mov_b32 m0, s10\nv_mov_b32_e32 v41, s9\nv_mov_b32_e32 v42, s10\nds_write_b32 v42, v41\nds_append v8\nds_read_b32 v9, v42\ns_waitcnt lgkmcnt(0)", &[0x870aff0a, 0x000007fc, 0xbefc030a, 0x7e520209, 0x7e54020a, 0xd8340000, 0x0000292a, 0xd8f80000, 0x08000000, 0xd8d80000, 0x0900002a, 0xbf8cc07f]),
    seg("ds_append@off", "s_and_b32 s10, s10, 0x7fc\ns_mov_b32 m0, s10\nv_mov_b32_e32 v41, s9\nv_mov_b32_e32 v42, s10\nds_write_b32 v42, v41 offset:16\nds_append v8 offset:16\nds_read_b32 v9, v42 offset:16\ns_waitcnt lgkmcnt(0)", &[0x870aff0a, 0x000007fc, 0xbefc030a, 0x7e520209, 0x7e54020a, 0xd8340010, 0x0000292a, 0xd8f80010, 0x08000000, 0xd8d80010, 0x0900002a, 0xbf8cc07f]),
    seg("ds_consume", "s_and_b32 s10, s10, 0x7fc\ns_mov_b32 m0, s10\nv_mov_b32_e32 v41, s9\nv_mov_b32_e32 v42, s10\nds_write_b32 v42, v41\nds_consume v8\nds_read_b32 v9, v42\ns_waitcnt lgkmcnt(0)", &[0x870aff0a, 0x000007fc, 0xbefc030a, 0x7e520209, 0x7e54020a, 0xd8340000, 0x0000292a, 0xd8f40000, 0x08000000, 0xd8d80000, 0x0900002a, 0xbf8cc07f]),
    seg("ds_consume@off", "s_and_b32 s10, s10, 0x7fc\ns_mov_b32 m0, s10\nv_mov_b32_e32 v41, s9\nv_mov_b32_e32 v42, s10\nds_write_b32 v42, v41 offset:16\nds_consume v8 offset:16\nds_read_b32 v9, v42 offset:16\ns_waitcnt lgkmcnt(0)", &[0x870aff0a, 0x000007fc, 0xbefc030a, 0x7e520209, 0x7e54020a, 0xd8340010, 0x0000292a, 0xd8f40010, 0x08000000, 0xd8d80010, 0x0900002a, 0xbf8cc07f]),
    seg("ds_condxchg32_rtn_b64", "v_and_b32_e32 v41, 7, v4\nv_add_nc_u32_e32 v41, v40, v41\nds_write_b64 v40, v[0:1] offset:8\nds_condxchg32_rtn_b64 v[8:9], v41, v[2:3] offset:8\nds_read_b64 v[10:11], v40 offset:8\ns_waitcnt lgkmcnt(0)", &[0x36520887, 0x4a525328, 0xd9340008, 0x00000028, 0xd9f80008, 0x08000229, 0xd9d80008, 0x0a000028, 0xbf8cc07f]),
];
