//! `rdna2spv probe`: the seeds' two numeric studies reproduced through the translator (issue 7,
//! docs/numerics.md).
//!
//! * [`strict`] — seed ADR-1407's device probe: `a * b + c`, `a / b` and `sqrtf(|a|)` compiled for gfx1030
//!   three ways by hipcc, run on the host evaluator and on the Vulkan device over 1,048,576 random and 2,197
//!   boundary operand triples, compared with each other and with correctly rounded references (SoftFloat).
//! * [`dw`] — the fp32mp2 double-word error study: Dekker / Joldes–Muller–Popescu additions, accumulate,
//!   multiplication, fma, division and square root in OpenCL C for gfx1030, translated, run on both
//!   backends, their relative errors measured in units of u² against binary128 (SoftFloat `f128`).
//!
//! Both run real code objects from `fixtures/kernels/` through the same path as `rdna2spv run`: a
//! [`Plan`](crate::dispatch::Plan) per chunk, the device first, then the host evaluator at the device's
//! buffer addresses, every output word compared.

pub mod dw;
pub mod strict;
pub mod svg;

use crate::device::run_vulkan;
use crate::dispatch::{run_host, run_host_at, Plan};
use crate::manifest::{Arg, BufferArg, Manifest};
use anyhow::{bail, Context as _, Result};
use rdna2spv_vulkan::{Context, DeviceProfile};
use std::path::{Path, PathBuf};

/// Where the kernels run.
pub struct Backends {
    /// The Vulkan device and the profile its lowering uses; `None`: the host evaluator only.
    pub device: Option<(Context, DeviceProfile)>,
}

/// The outputs of one chunk: the host evaluator's buffers, and the device's when there is one.
pub struct ChunkRun {
    pub host: Vec<Vec<u8>>,
    pub device: Option<Vec<Vec<u8>>>,
}

/// The fixture directory holding the probe code objects: `RDNA2SPV_FIXTURES` or the source tree's
/// `fixtures/kernels`.
pub fn kernels_dir(given: Option<&Path>) -> PathBuf {
    if let Some(p) = given {
        return p.to_path_buf();
    }
    if let Ok(p) = std::env::var("RDNA2SPV_FIXTURES") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/kernels")
}

/// Runs `kernel` of the code object `co` over `items` work-items (workgroups of `wg`), every explicit
/// argument a global buffer initialised with `bufs[i]`; returns every buffer after the run on each backend.
pub fn run_chunk(
    co: &Path,
    kernel: &str,
    items: u32,
    wg: u32,
    bufs: &[Vec<u8>],
    backends: &Backends,
) -> Result<ChunkRun> {
    if items == 0 || !items.is_multiple_of(wg) {
        bail!("{items} work-items is not a multiple of the workgroup size {wg}");
    }
    let file = co
        .file_name()
        .with_context(|| format!("{} is not a file", co.display()))?;
    let m = Manifest {
        code_object: Some(PathBuf::from(file)),
        code: None,
        abi: None,
        buffers: Vec::new(),
        images: Vec::new(),
        kernel: Some(kernel.to_string()),
        grid: [items, 1, 1],
        workgroup: [wg, 1, 1],
        args: bufs
            .iter()
            .enumerate()
            .map(|(i, b)| Arg {
                buffer: Some(BufferArg::Zeroed {
                    size: b.len() as u64,
                }),
                output: Some(format!("arg{i}")),
                ..Arg::default()
            })
            .collect(),
        max_steps_per_wave: None,
        dir: co.parent().map(Path::to_path_buf).unwrap_or_default(),
        globals: Vec::new(),
    };
    let mut plan = Plan::new(&m).with_context(|| format!("{}: kernel {kernel}", co.display()))?;
    for (b, data) in plan.buffers.iter_mut().zip(bufs) {
        b.data.clone_from(data);
    }
    let take = |bufs: Vec<crate::dispatch::Buffer>| -> Vec<Vec<u8>> {
        bufs.into_iter()
            .take(m.args.len())
            .map(|b| b.data)
            .collect()
    };
    match &backends.device {
        Some((ctx, prof)) => {
            let dev = run_vulkan(ctx, &mut plan, prof)
                .with_context(|| format!("running {kernel} on the Vulkan device"))?;
            let (host, _) = run_host_at(&plan, &dev.addresses)
                .with_context(|| format!("running {kernel} on the host evaluator"))?;
            Ok(ChunkRun {
                host: take(host),
                device: Some(take(dev.buffers)),
            })
        }
        None => {
            let (host, _) = run_host(&mut plan)
                .with_context(|| format!("running {kernel} on the host evaluator"))?;
            Ok(ChunkRun {
                host: take(host),
                device: None,
            })
        }
    }
}

/// Little-endian f32 words of a buffer.
pub fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A buffer of f32 words.
pub fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// xorshift64* — the deterministic operand generator of both probes (seeded per build / op / regime).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    /// Uniform in [0, n).
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.u32() as u64 * n as u64) >> 32) as u32
    }
    /// Uniform in [-1, 1) with 24 random bits.
    pub fn signed_unit(&mut self) -> f32 {
        ((self.u32() >> 8) as i32 - (1 << 23)) as f32 / (1 << 23) as f32
    }
}

/// A progress bar on stderr (hidden when `quiet`).
pub fn progress(total: u64, what: &str, quiet: bool) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(total);
    pb.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg:32} [{elapsed_precise}] {wide_bar} {pos}/{len} ({eta})",
        )
        .expect("a valid template"),
    );
    pb.set_message(what.to_string());
    pb
}
