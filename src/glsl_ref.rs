//! Hand-written GLSL reference kernels (`fixtures/glsl/*.comp`) equivalent to fixture kernels, run on the
//! same data as the translated kernel: the equivalence check of `tests/glsl_reference.rs` and the
//! reference side of `cargo xtask bench device` (issues 10 and 13).
//!
//! Calling convention of every reference kernel: one push-constant block holding the fixture kernel's
//! explicit arguments in declaration order — buffers as `buffer_reference` device addresses (8 bytes,
//! 8-aligned), scalars as their 4 bytes — then `uint grid`, the HSA grid size in x (std430 offsets).
//! Invocations at or past `grid` do what work-items past the end do in the HSA dispatch: nothing (they
//! still take part in barriers). Sources are compiled with `glslangValidator -V --target-env vulkan1.2`
//! (Debian: glslang-tools): SPIR-V 1.5, because for 1.6 glslang writes the workgroup size as
//! `OpExecutionModeId LocalSizeId`, which the runner's module check (rspirv) does not parse.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use rdna2spv_vulkan::{Context, DispatchStats};

use crate::manifest::{ArgValue, Manifest};

/// How the reference's results relate to the translated kernel's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agreement {
    /// Same operations in the same order: bit-identical (float NaNs compared as the canonical NaN, D005:
    /// the translated kernel gives RDNA's quiet NaN, the driver's payload varies).
    BitExact,
    /// The kernel's only float operation is a fused multiply-add; GLSL's `fma` is the same operation but
    /// lavapipe rounds its product and its sum separately (DESIGN.md), so the reference gives
    /// `round(round(a*x) + y)` where the translated kernel gives `round(a*x + y)`.
    UnfusedFma,
}

/// One reference kernel.
#[derive(Debug, Clone, Copy)]
pub struct Reference {
    /// Short name (also the GLSL file stem).
    pub name: &'static str,
    /// The fixture manifest (relative to the repository root) whose kernel and data it reproduces.
    pub manifest: &'static str,
    /// The GLSL source (relative to the repository root).
    pub glsl: &'static str,
    /// `local_size_x` of the GLSL kernel (the manifest's workgroup in x).
    pub local_size: u32,
    /// What bounds it (for the benchmark table).
    pub bound: &'static str,
    pub agreement: Agreement,
    /// The outputs are integers (compared as raw bits, no NaN rule).
    pub integer: bool,
    /// Indices of u32 arguments that count work-items or rows: multiplied with the grid when the
    /// benchmark scales the dispatch.
    pub count_args: &'static [usize],
}

/// The reference kernels: ALU-bound, memory-bound, LDS with barriers, divergent control flow, and a
/// CSR SpMV in the shape of rocSPARSE's csrmv; saxpy twice (GLSL `fma`, and the exactly rounded one).
pub const REFERENCES: &[Reference] = &[
    Reference {
        name: "saxpy",
        manifest: "fixtures/run/saxpy.toml",
        glsl: "fixtures/glsl/saxpy.comp",
        local_size: 64,
        bound: "memory",
        agreement: Agreement::UnfusedFma,
        integer: false,
        count_args: &[],
    },
    // The same kernel against the GLSL that computes the same bits: the fused multiply-add emulated as
    // the translated module does (product in double, TwoSum, round to odd, one narrowing; D115).
    Reference {
        name: "saxpy_exact",
        manifest: "fixtures/run/saxpy.toml",
        glsl: "fixtures/glsl/saxpy_exact.comp",
        local_size: 64,
        bound: "memory + exact fma",
        agreement: Agreement::BitExact,
        integer: false,
        count_args: &[],
    },
    Reference {
        name: "spmv",
        manifest: "fixtures/run/spmv.toml",
        glsl: "fixtures/glsl/spmv.comp",
        local_size: 64,
        bound: "memory (gather)",
        agreement: Agreement::BitExact,
        integer: false,
        count_args: &[0],
    },
    Reference {
        name: "reduce",
        manifest: "fixtures/run/reduce.toml",
        glsl: "fixtures/glsl/reduce.comp",
        local_size: 128,
        bound: "LDS + barriers",
        agreement: Agreement::BitExact,
        integer: false,
        count_args: &[],
    },
    Reference {
        name: "divergent",
        manifest: "fixtures/run/divergent.toml",
        glsl: "fixtures/glsl/divergent.comp",
        local_size: 64,
        bound: "ALU, divergent loop",
        agreement: Agreement::BitExact,
        integer: false,
        count_args: &[2],
    },
    Reference {
        name: "branchy",
        manifest: "fixtures/run/branchy.toml",
        glsl: "fixtures/glsl/branchy.comp",
        local_size: 64,
        bound: "ALU, control flow",
        agreement: Agreement::BitExact,
        integer: true,
        count_args: &[2],
    },
    Reference {
        name: "divsqrt",
        manifest: "fixtures/run/divsqrt.toml",
        glsl: "fixtures/glsl/divsqrt.comp",
        local_size: 64,
        bound: "ALU (division, root)",
        agreement: Agreement::BitExact,
        integer: false,
        count_args: &[],
    },
];

/// Wave64 builds of fixture kernels measured against the same GLSL kernels by `cargo xtask bench device`
/// (their outputs are compared at every scale there; `tests/glsl_reference.rs` proves the wave32 builds).
pub const WAVE64_REFERENCES: &[Reference] = &[Reference {
    name: "reduce_w64",
    manifest: "fixtures/run/reduce_w64.toml",
    glsl: "fixtures/glsl/reduce.comp",
    local_size: 128,
    bound: "LDS + barriers, wave64",
    agreement: Agreement::BitExact,
    integer: false,
    count_args: &[],
}];

/// Compiles a GLSL compute shader to SPIR-V words with glslangValidator.
pub fn compile_glsl(source: &Path) -> Result<Vec<u32>> {
    let dir = std::env::temp_dir().join(format!("rdna2spv-glsl-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("shader");
    let out = dir.join(format!("{stem}.spv"));
    let run = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.2", "-o"])
        .arg(&out)
        .arg(source)
        .output()
        .context("running glslangValidator (apt-get install glslang-tools)")?;
    if !run.status.success() {
        bail!(
            "glslangValidator failed on {}:\n{}{}",
            source.display(),
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let bytes = std::fs::read(&out)?;
    let _ = std::fs::remove_file(&out);
    if bytes.len() % 4 != 0 {
        bail!("{}: SPIR-V of {} bytes", out.display(), bytes.len());
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// A manifest scaled `k` times: the grid in x, every input file tiled `k` times, every zero-filled
/// buffer `k` times larger, and the `count_args` multiplied (files of the scaled inputs go to
/// `scratch`). `k = 1` returns the manifest unchanged. CSR row pointers (`spmv`) are tiled as a
/// block-diagonal matrix: each copy's pointers and column indices offset by the copies before it.
pub fn scaled(r: &Reference, m: &Manifest, k: u32, scratch: &Path) -> Result<Manifest> {
    let mut s = m.clone();
    if k == 1 {
        return Ok(s);
    }
    std::fs::create_dir_all(scratch)?;
    s.grid[0] = m.grid[0]
        .checked_mul(k)
        .context("scaled grid overflows u32")?;
    // For the block-diagonal CSR tiling: the original nnz and column count.
    let nnz_and_cols = if r.name == "spmv" {
        let rp = words(&file_arg(m, 2)?);
        let x = file_arg(m, 5)?;
        Some((*rp.last().unwrap_or(&0), (x.len() / 4) as u32))
    } else {
        None
    };
    for (i, a) in s.args.iter_mut().enumerate() {
        if let Some(v) = a.u32.as_mut() {
            if r.count_args.contains(&i) {
                *v *= u64::from(k);
            }
        }
        match a.buffer.clone() {
            Some(crate::manifest::BufferArg::File(p)) => {
                let data = std::fs::read(m.resolve(&p))?;
                let mut out = Vec::with_capacity(data.len() * k as usize);
                for c in 0..k {
                    match (nnz_and_cols, i) {
                        (Some((nnz, _)), 2) => {
                            // Row pointers: n+1 entries; each copy after the first drops its leading 0.
                            let rp = words(&data);
                            let skip = usize::from(c > 0);
                            for w in &rp[skip..] {
                                out.extend_from_slice(&(w + c * nnz).to_le_bytes());
                            }
                        }
                        (Some((_, cols)), 3) => {
                            for w in words(&data) {
                                out.extend_from_slice(&(w + c * cols).to_le_bytes());
                            }
                        }
                        _ => out.extend_from_slice(&data),
                    }
                }
                let name = format!("{}.{i}.x{k}.bin", r.name);
                let path = scratch.join(name);
                std::fs::write(&path, &out)?;
                a.buffer = Some(crate::manifest::BufferArg::File(path));
            }
            Some(crate::manifest::BufferArg::Zeroed { size }) => {
                a.buffer = Some(crate::manifest::BufferArg::Zeroed {
                    size: size * u64::from(k),
                });
            }
            None => {}
        }
    }
    Ok(s)
}

fn file_arg(m: &Manifest, i: usize) -> Result<Vec<u8>> {
    match m.arg_value(i)? {
        ArgValue::Buffer { data, .. } => Ok(data),
        ArgValue::Scalar { .. } => bail!("argument {i} is not a buffer"),
    }
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A GLSL reference run: each output buffer by its manifest name, and the dispatch's timings.
pub struct GlslRun {
    pub outputs: Vec<(String, Vec<u8>)>,
    pub stats: DispatchStats,
}

/// Buffers of one manifest on the device, ready to dispatch the reference kernel (again and again).
pub struct GlslSetup<'a> {
    buffers: Vec<(Option<String>, rdna2spv_vulkan::Buffer<'a>, usize)>,
    push: Vec<u8>,
    workgroups: [u32; 3],
}

impl<'a> GlslSetup<'a> {
    /// Uploads the manifest's buffers and lays out the push constants.
    pub fn new(ctx: &'a Context, r: &Reference, m: &Manifest) -> Result<GlslSetup<'a>> {
        let mut push = Vec::new();
        let mut buffers = Vec::new();
        let align = |push: &mut Vec<u8>, a: usize| {
            while !push.len().is_multiple_of(a) {
                push.push(0);
            }
        };
        for i in 0..m.args.len() {
            match m.arg_value(i)? {
                ArgValue::Buffer { data, output, .. } => {
                    let b = ctx.buffer_from_bytes(if data.is_empty() { &[0] } else { &data })?;
                    align(&mut push, 8);
                    push.extend_from_slice(&b.device_address().to_le_bytes());
                    buffers.push((output, b, data.len()));
                }
                ArgValue::Scalar { bytes, .. } => {
                    if bytes.len() != 4 {
                        bail!("{}: argument {i}: only 4-byte scalars", r.name);
                    }
                    align(&mut push, 4);
                    push.extend_from_slice(&bytes);
                }
            }
        }
        align(&mut push, 4);
        push.extend_from_slice(&m.grid[0].to_le_bytes());
        align(&mut push, 4);
        if m.grid[1] != 1 || m.grid[2] != 1 || m.workgroup[0] != r.local_size {
            bail!(
                "{}: the reference runs 1-D grids in workgroups of {}",
                r.name,
                r.local_size
            );
        }
        Ok(GlslSetup {
            buffers,
            push,
            workgroups: [m.grid[0].div_ceil(r.local_size), 1, 1],
        })
    }

    /// Dispatches `words` once.
    pub fn dispatch(&self, ctx: &Context, words: &[u32]) -> Result<DispatchStats> {
        Ok(ctx.dispatch(words, "main", self.workgroups, &self.push)?)
    }

    /// The output buffers' contents.
    pub fn outputs(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let mut v = Vec::new();
        for (name, b, len) in &self.buffers {
            if let Some(n) = name {
                v.push((n.clone(), b.download(0, *len)?));
            }
        }
        Ok(v)
    }
}

/// Runs reference `r` once on `m`'s data.
pub fn run(ctx: &Context, r: &Reference, m: &Manifest, words: &[u32]) -> Result<GlslRun> {
    let setup = GlslSetup::new(ctx, r, m)?;
    let stats = setup.dispatch(ctx, words)?;
    Ok(GlslRun {
        outputs: setup.outputs()?,
        stats,
    })
}

/// The repository root (the directory holding `fixtures/`), from this crate's manifest directory.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Median of durations (0 for none).
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}
