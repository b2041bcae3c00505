//! The fixture kernel fixtures/kernels/divsqrt.co (clang-19, -cl-fp32-correctly-rounded-divide-sqrt:
//! `out[i] = x[i] / y[i] + sqrtf(x[i])`), lifted as clang emitted it, in variants that store the
//! quotient alone, the square root alone, or the whole expression — plus a harness that wraps a few
//! hand-assembled instructions in the kernel's own prologue (loads v2 = x[i], v3 = y[i]) and epilogue
//! (stores v2 to out[i]). Shared by the host test (crates/eval) and the lavapipe test (crates/vulkan).
#![allow(dead_code)]

use rdna2spv_eval::{Launch, Memory, SgprInit};
use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_ir::Program;
use rdna2spv_isa::Target;

pub const WORKGROUP: u32 = 256;

/// Byte offsets inside the kernel's code.
const ADD_AT: usize = 0x138; // v_add_f32_e32 v2, v3, v2 (quotient + sqrt)
const ADD_WORD: u32 = 0x0604_0503;
const PROLOGUE_END: usize = 0x74; // after s_waitcnt vmcnt(0): v2 = x[i], v3 = y[i]
const EPI_ADDR: std::ops::Range<usize> = 0x12c..0x138; // out address into v[0:1]
const EPI_STORE: std::ops::Range<usize> = 0x13c..0x148; // global_store_dword v[0:1], v2; s_endpgm

/// v_mov_b32_e32 v2, v2 (keep the quotient) and v_mov_b32_e32 v2, v3 (take the square root).
pub const MOV_V2_V2: u32 = 0x7e04_0302;
pub const MOV_V2_V3: u32 = 0x7e04_0303;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The kernel as compiled: x/y + sqrt(x).
    Full,
    /// The division sequence's result only.
    Div,
    /// The square-root sequence's result only.
    Sqrt,
}

pub fn fixture_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/kernels/divsqrt.co")
}

/// The kernel's code bytes.
pub fn kernel_code() -> Vec<u8> {
    let bytes = std::fs::read(fixture_path()).expect("fixture divsqrt.co");
    let co = rdna2spv_codeobj::CodeObject::parse(&bytes).expect("parses");
    let k = co.kernel("divsqrt").expect("kernel divsqrt");
    k.code.clone()
}

fn word_at(code: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([code[at], code[at + 1], code[at + 2], code[at + 3]])
}

pub fn variant_code(v: Variant) -> Vec<u8> {
    let mut code = kernel_code();
    assert_eq!(word_at(&code, ADD_AT), ADD_WORD, "the fixture changed");
    let patch = match v {
        Variant::Full => return code,
        Variant::Div => MOV_V2_V2,
        Variant::Sqrt => MOV_V2_V3,
    };
    code[ADD_AT..ADD_AT + 4].copy_from_slice(&patch.to_le_bytes());
    code
}

/// The fixture's prologue, `body`, the fixture's epilogue (body: v2 = x, v3 = y in; v2 out; it must
/// keep v0, v1, s4, s5).
pub fn wrapped_code(body: &[u32]) -> Vec<u8> {
    let code = kernel_code();
    let mut out = code[..PROLOGUE_END].to_vec();
    for w in body {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&code[EPI_ADDR]);
    out.extend_from_slice(&code[EPI_STORE]);
    out
}

pub fn lift_code(code: &[u8]) -> Program {
    lift(
        "divsqrt",
        code,
        LiftOptions {
            target: Target::Gfx1030,
            wave_size: 32,
            private_segment_buffer: None,
        },
    )
    .expect("lifts")
}

/// Kernel arguments: x, y, out pointers, then the hidden block counts and the workgroup size x (u16 at
/// 0x24), as the code reads them.
pub fn kernarg(x: u64, y: u64, out: u64) -> Vec<u8> {
    let mut k = vec![0u8; 0x40];
    k[0..8].copy_from_slice(&x.to_le_bytes());
    k[8..16].copy_from_slice(&y.to_le_bytes());
    k[16..24].copy_from_slice(&out.to_le_bytes());
    k[0x24..0x26].copy_from_slice(&(WORKGROUP as u16).to_le_bytes());
    k
}

/// The launch: s[4:5] = kernarg address, s6 = workgroup id x, v0 = work-item id x.
pub fn launch(kernarg_addr: u64, n: u32) -> Launch {
    Launch {
        wave_size: 32,
        grid: [n, 1, 1],
        workgroup: [WORKGROUP, 1, 1],
        sgprs: vec![
            (4, SgprInit::Const(kernarg_addr as u32)),
            (5, SgprInit::Const((kernarg_addr >> 32) as u32)),
            (6, SgprInit::WorkgroupId(0)),
        ],
        workitem_id_vgprs: 1,
        lds_bytes: 0,
        scratch_bytes: 0,
        max_steps_per_wave: 1 << 20,
        code_base: None,
    }
}

pub fn to_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn to_words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Pads the operand lists to a whole number of workgroups (the kernel has no bounds check).
pub fn pad(xs: &mut Vec<u32>, ys: &mut Vec<u32>) {
    while !xs.len().is_multiple_of(WORKGROUP as usize) {
        xs.push(0x3f80_0000);
        ys.push(0x3f80_0000);
    }
}

/// Runs `program` in the host evaluator over the operand pairs; returns out[].
pub fn run_host(program: &Program, xs: &[u32], ys: &[u32]) -> Vec<u32> {
    assert!(xs.len().is_multiple_of(WORKGROUP as usize));
    let (mut mem, ka) = host_memory(xs, ys);
    rdna2spv_eval::run(program, &launch(ka, xs.len() as u32), &mut mem).expect("evaluator runs");
    to_words(&mem.allocation("out").unwrap().data)
}

/// The evaluator's memory for a run over the operand pairs: the kernel arguments, `x`, `y` and a zeroed
/// `out`; and the kernarg segment's address.
pub fn host_memory(xs: &[u32], ys: &[u32]) -> (Memory, u64) {
    assert_eq!(xs.len(), ys.len());
    let (ka, xa, ya, oa) = (
        0x1_0000_0000u64,
        0x2_0000_0000,
        0x3_0000_0000,
        0x4_0000_0000,
    );
    let mut mem = Memory::default();
    mem.add("kernarg", ka, kernarg(xa, ya, oa)).unwrap();
    mem.add("x", xa, to_bytes(xs)).unwrap();
    mem.add("y", ya, to_bytes(ys)).unwrap();
    mem.add("out", oa, vec![0; xs.len() * 4]).unwrap();
    (mem, ka)
}

/// The default NaN for NaN results (D005), other values as they are.
pub fn canon(x: f32) -> u32 {
    if x.is_nan() {
        0x7fc0_0000
    } else {
        x.to_bits()
    }
}

/// The correctly rounded C results of the variant (the host's IEEE f32 division and square root).
pub fn reference(v: Variant, x: u32, y: u32) -> u32 {
    let (a, b) = (f32::from_bits(x), f32::from_bits(y));
    match v {
        Variant::Div => canon(a / b),
        Variant::Sqrt => canon(a.sqrt()),
        Variant::Full => canon(a / b + a.sqrt()),
    }
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

/// Boundary values: zeros, infinities, NaNs, subnormal and normal extremes, every power of two and its
/// neighbours, values around the sqrt pre-scale threshold 2^-96, and all of them negated.
pub fn boundary_values() -> Vec<u32> {
    let mut v = vec![
        0x0000_0000,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa0_0000,
        0xffc0_0001,
        0x0000_0001,
        0x0000_0002,
        0x0000_0003,
        0x007f_ffff,
        0x0040_0000,
        0x0080_0000,
        0x0080_0001,
        0x00ff_ffff,
        0x7f7f_ffff,
        0x7f7f_fffe,
        0x3f80_0000,
        0x3f80_0001,
        0x3f7f_ffff,
        0x4000_0000,
        0x3f00_0000,
        0x4040_0000,
        0x4049_0fdb,
        0x3eaa_aaab,
    ];
    for e in 0..=254u32 {
        let p = e << 23;
        v.push(p);
        v.push(p | 0x7f_ffff);
        v.push(p | 1);
    }
    for base in [
        0x0f80_0000u32,
        0x0b80_0000,
        0x7e80_0000,
        0x0c00_0000,
        0x3380_0000,
    ] {
        for d in 0..4u32 {
            v.push(base.wrapping_add(d));
            v.push(base.wrapping_sub(d));
        }
    }
    let neg: Vec<u32> = v.iter().map(|x| x ^ 0x8000_0000).collect();
    v.extend(neg);
    v.sort_unstable();
    v.dedup();
    v
}

/// Operand pairs: boundary values against boundary values (a deterministic sample of the square plus
/// every pair with one of the first 32), then `random` pairs from six generators: random bit patterns,
/// values in [1, 2), exponent differences at the thresholds of div_scale/div_fixup (±96, ±126, −150…),
/// subnormal numerators or denominators, exact quotients, and huge denominators (1/y subnormal).
pub fn operands(random: usize) -> (Vec<u32>, Vec<u32>) {
    let b = boundary_values();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for (i, &x) in b.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            if (i * 7 + j * 13) % 17 == 0 || i < 32 || j < 32 {
                xs.push(x);
                ys.push(y);
            }
        }
    }
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for k in 0..random {
        let (x, y) = match k % 6 {
            0 => (r.u32(), r.u32()),
            1 => (
                0x3f80_0000 | (r.u32() & 0x807f_ffff),
                0x3f80_0000 | (r.u32() & 0x807f_ffff),
            ),
            2 => {
                const D: [i32; 12] = [
                    96, 95, 97, -126, -127, -149, -150, -151, 126, 127, 128, -125,
                ];
                let d = D[(r.u32() % 12) as usize];
                let ey = (r.u32() % 254 + 1) as i32;
                let ex = (ey + d).clamp(0, 254);
                (
                    ((ex as u32) << 23) | (r.u32() & 0x807f_ffff),
                    ((ey as u32) << 23) | (r.u32() & 0x807f_ffff),
                )
            }
            3 => {
                let s = r.u32() & 0x807f_ffff;
                let o = r.u32() & 0xff7f_ffff;
                if r.u32() & 1 == 0 {
                    (s, o)
                } else {
                    (o, s)
                }
            }
            4 => {
                let y = 0x3f80_0000 | (r.u32() & 0x0000_ffff);
                let m = (r.u32() % 64) as f32;
                ((f32::from_bits(y) * m).to_bits(), y)
            }
            _ => {
                let y =
                    (((r.u32() % 2 + 253) << 23) | (r.u32() & 0x7f_ffff)) ^ (r.u32() & 0x8000_0000);
                (r.u32(), y)
            }
        };
        xs.push(x);
        ys.push(y);
    }
    pad(&mut xs, &mut ys);
    (xs, ys)
}
