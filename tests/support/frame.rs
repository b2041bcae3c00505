//! The kernel frame shared by the per-instruction tests (tests/fused_multiply_add.rs,
//! tests/transcendental.rs): a small kernel that loads eight dwords per work-item into v[0:7], executes the
//! instruction words under test, and stores v[3:6]; run on the host evaluator and on lavapipe.
#![allow(dead_code)]

use rdna2spv_eval::{Launch, Memory, SgprInit};
use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_ir::Program;
use rdna2spv_isa::Target;
use rdna2spv_spirv::lower::LowerOptions;
use rdna2spv_vulkan::{run_with_buffers, Context, DeviceProfile, DeviceSelector};

// ---------------------------------------------------------------------------------------------------
// The kernel frame (identical words on gfx1030 and gfx1010).
//   s_lshl_b32 s5, s4, 8                                ; [0x04,0x88,0x05,0x8f]
//   v_add_nc_u32_e32 v10, s5, v0                        ; [0x05,0x00,0x14,0x4a]
//   v_lshlrev_b32_e32 v11, 5, v10                       ; [0x85,0x14,0x16,0x34]
//   global_load_dwordx4 v[0:3], v11, s[0:1]             ; [0x00,0x80,0x38,0xdc,0x0b,0x00,0x00,0x00]
//   global_load_dwordx4 v[4:7], v11, s[0:1] offset:16   ; [0x10,0x80,0x38,0xdc,0x0b,0x00,0x00,0x04]
//   s_waitcnt vmcnt(0)                                  ; [0x70,0x3f,0x8c,0xbf]
//   <the form>
//   v_lshlrev_b32_e32 v12, 4, v10                       ; [0x84,0x14,0x18,0x34]
//   global_store_dwordx4 v12, v[3:6], s[2:3]            ; [0x00,0x80,0x78,0xdc,0x0c,0x03,0x02,0x00]
//   s_endpgm                                            ; [0x00,0x00,0x81,0xbf]
pub const HEAD: [u32; 8] = [
    0x8f05_8804,
    0x4a14_0005,
    0x3416_1485,
    0xdc38_8000,
    0x0000_000b,
    0xdc38_8010,
    0x0400_000b,
    0xbf8c_3f70,
];
pub const TAIL: [u32; 4] = [0x3418_1484, 0xdc78_8000, 0x0002_030c, 0xbf81_0000];
pub const WG: u32 = 256;

pub fn le(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn kernel(target: Target, form: &[u8]) -> Program {
    let mut words: Vec<u32> = HEAD.to_vec();
    words.extend(le(form));
    words.extend(TAIL);
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    lift(
        "fma_form",
        &code,
        LiftOptions {
            target,
            wave_size: 32,
            private_segment_buffer: None,
        },
    )
    .expect("the form lifts")
}

pub fn launch(n: usize, addrs: &[u64]) -> Launch {
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
        max_steps_per_wave: 1_000_000,
        code_base: None,
    }
}

/// Lavapipe with a 600 s fence timeout (as tests/opcheck): the default 60 s is not enough for one
/// 100,000-operand dispatch of a multiply-add form while the machine is loaded (measured: a debug run at
/// load average 19 timed out on `v_fma_f16 -a |b| clamp` after the form before it took 69 s).
///
/// `RDNA2SPV_VK_DEVICE` (a name part or an index) picks another device instead: `cargo xtask gpu-check` runs
/// these suites on a real GPU that way.
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

/// Runs the kernel over `inputs` (eight dwords per item) on the host and on the device; returns the
/// outputs (four dwords per item) of each.
pub fn run_both(
    ctx: &Context,
    prof: &DeviceProfile,
    p: &Program,
    inputs: &[[u32; 8]],
) -> (Vec<u32>, Vec<u32>) {
    run_both_with(ctx, prof, p, inputs, &LowerOptions::default())
}

/// [`run_both`] with the lowering's options (e.g. the lane mapping, whose float primitives are shared
/// functions: D163, D197).
pub fn run_both_with(
    ctx: &Context,
    prof: &DeviceProfile,
    p: &Program,
    inputs: &[[u32; 8]],
    opts: &LowerOptions,
) -> (Vec<u32>, Vec<u32>) {
    let n = inputs.len();
    let input: Vec<u8> = inputs
        .iter()
        .flat_map(|t| t.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let init = vec![input.clone(), vec![0u8; 16 * n]];
    let run = run_with_buffers(ctx, p, &init, |a| launch(n, a), prof, opts)
        .unwrap_or_else(|e| panic!("device run failed: {e}"));
    let mut mem = Memory::default();
    for (i, b) in init.iter().enumerate() {
        mem.add(&format!("buf{i}"), run.addresses[i], b.clone())
            .unwrap();
    }
    rdna2spv_eval::run(p, &run.launch, &mut mem).expect("the evaluator runs");
    let host = le(&mem.allocation("buf1").unwrap().data);
    (host, le(&run.outputs[1]))
}

/// The device the float suites run on: `RDNA2SPV_VK_DEVICE` (a name part or an index; `cargo xtask gpu-check`
/// sets it), else lavapipe.
pub fn device_name() -> String {
    std::env::var(DeviceSelector::ENV)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "llvmpipe".into())
}

/// `p` with every denormal-related fact declared missing — "flushes f32, f16 and f64 subnormals", "no
/// float-controls execution modes", "Fma not fused" — and f32 division and square root declared not
/// correctly rounded (as measured on NVIDIA's driver, D228), so the lowering emits every exact emulation
/// (D168, D228) and lavapipe runs them: the simulated flushing device of the float suites.
pub fn simulated_flushing(mut p: DeviceProfile) -> DeviceProfile {
    p.div_sqrt_f32_correctly_rounded = false;
    p.preserves_subnormals_f32 = false;
    p.preserves_subnormals_f16 = false;
    p.preserves_subnormals_f64 = false;
    p.denorm_preserve_mode_honoured = false;
    p.fma_f32_fused = false;
    p.fma_f16_fused = false;
    p.fma_f64_fused = false;
    p
}

/// splitmix64: the float suites' deterministic operand source.
pub struct Rng(pub u64);

impl Rng {
    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn u32(&mut self) -> u32 {
        self.u64() as u32
    }
    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        self.u32() % n
    }
}
