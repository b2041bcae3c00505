//! `rdna2spv probe strict-fp`: seed ADR-1407's device probe through the translator.
//!
//! One HIP kernel (`fixtures/kernels/probe_fp.hip`) computes `a * b + c`, `a / b` and `sqrtf(|a|)` per
//! operand triple; hipcc 5.2.3 compiles it for gfx1030 three ways (the builds of the seed). Each build runs
//! on the host evaluator and on the Vulkan device over `random` random triples plus the 13³ = 2,197 triples
//! of [`BOUNDARY`]; every result is compared host against device, and both against correctly rounded
//! references computed with Berkeley SoftFloat (`softfloat-sys`): `f32_mul` then `f32_add` for `a * b + c`
//! (the C expression without contraction: each operation rounded once, as the host build of the seed
//! computes it), `f32_div`, `f32_sqrt`. The fused value `f32_mulAdd` is counted too, to show what a
//! contracted build computes instead. NaN results compare equal to any NaN (decision D005: this project
//! returns one default NaN); every other result is compared as bits.

use super::{bytes, progress, run_chunk, words, Backends, Rng};
use anyhow::Result;
use serde::Serialize;
use softfloat_sys as sf;
use std::path::Path;

/// One build of the probe kernel.
pub struct Build {
    pub name: &'static str,
    pub code_object: &'static str,
    pub flags: &'static str,
    /// The build is the seed's strict list: 0 mismatches against the references is required.
    pub strict: bool,
}

pub const BUILDS: [Build; 4] = [
    Build {
        name: "strict",
        code_object: "probe_strict.co",
        flags: "-ffp-contract=off -fhip-fp32-correctly-rounded-divide-sqrt",
        strict: true,
    },
    Build {
        name: "default",
        code_object: "probe_default.co",
        flags: "(hipcc's defaults: -ffp-contract=fast, correctly rounded division and square root)",
        strict: false,
    },
    Build {
        name: "nocrdiv",
        code_object: "probe_nocrdiv.co",
        flags: "-ffp-contract=off -fno-hip-fp32-correctly-rounded-divide-sqrt",
        strict: false,
    },
    // D080: the same expressions in OpenCL C (fixtures/kernels/probe_fp.cl) by clang-19 without
    // -cl-fp32-correctly-rounded-divide-sqrt: the rcp-based division hipcc 5.2.3 does not emit.
    Build {
        name: "ocl-nocrdiv",
        code_object: "probe_ocl_nocrdiv.co",
        flags:
            "clang-19 OpenCL C, -ffp-contract=off, without -cl-fp32-correctly-rounded-divide-sqrt",
        strict: false,
    },
];

/// The 13 boundary values; the boundary triples are all 13³ combinations.
pub const BOUNDARY: [u32; 13] = [
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3fc0_0000, // 1.5
    0x0000_0001, // smallest subnormal
    0x807f_ffff, // -largest subnormal
    0x0080_0000, // smallest normal
    0x7f7f_ffff, // largest finite
    0xff7f_ffff, // -largest finite
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0000, // quiet NaN
];

/// A random operand: random sign and significand, exponent uniform in [-16, 16] (so that products and
/// addends overlap and every operation rounds).
fn random_operand(r: &mut Rng) -> u32 {
    let sign = r.u32() & 0x8000_0000;
    let exp = 127 - 16 + r.below(33);
    sign | exp << 23 | (r.u32() & 0x7f_ffff)
}

/// The operand triples: `random` random ones (seeded), then the 2,197 boundary ones.
pub fn operands(random: usize, seed: u64) -> Vec<[u32; 3]> {
    let mut r = Rng::new(seed);
    let mut v: Vec<[u32; 3]> = (0..random)
        .map(|_| {
            [
                random_operand(&mut r),
                random_operand(&mut r),
                random_operand(&mut r),
            ]
        })
        .collect();
    for &a in &BOUNDARY {
        for &b in &BOUNDARY {
            for &c in &BOUNDARY {
                v.push([a, b, c]);
            }
        }
    }
    v
}

fn f(x: u32) -> sf::float32_t {
    sf::float32_t { v: x }
}

/// a*b+c as the C expression without contraction: each operation correctly rounded (SoftFloat).
pub fn ref_mad(a: u32, b: u32, c: u32) -> u32 {
    unsafe { sf::f32_add(sf::f32_mul(f(a), f(b)), f(c)).v }
}
/// a*b+c rounded once (SoftFloat f32_mulAdd): what a contracted build computes.
pub fn ref_fused(a: u32, b: u32, c: u32) -> u32 {
    unsafe { sf::f32_mulAdd(f(a), f(b), f(c)).v }
}
pub fn ref_div(a: u32, b: u32) -> u32 {
    unsafe { sf::f32_div(f(a), f(b)).v }
}
pub fn ref_sqrt_abs(a: u32) -> u32 {
    unsafe { sf::f32_sqrt(f(a & 0x7fff_ffff)).v }
}

fn is_nan(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

/// Distance in ulps of two finite f32 values (their bit patterns mapped monotonically to integers, so
/// that +0 and −0 are 0 apart); `None` when either is NaN or infinite.
pub fn ulps(x: u32, y: u32) -> Option<u64> {
    let finite = |v: u32| v & 0x7f80_0000 != 0x7f80_0000;
    if !finite(x) || !finite(y) {
        return None;
    }
    let ord = |v: u32| -> i64 {
        if v & 0x8000_0000 != 0 {
            -((v & 0x7fff_ffff) as i64)
        } else {
            v as i64
        }
    };
    Some(ord(x).abs_diff(ord(y)))
}
/// Equal as bits, or both NaN (D005).
pub fn same(x: u32, y: u32) -> bool {
    x == y || (is_nan(x) && is_nan(y))
}

/// Counts for one operation of one build.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OpCounts {
    pub op: String,
    pub triples: usize,
    /// Host evaluator vs Vulkan device (`None` when the device did not run).
    pub host_vs_device: Option<usize>,
    /// Against the correctly rounded reference of the expression.
    pub host_vs_reference: usize,
    pub device_vs_reference: Option<usize>,
    /// `a * b + c` only: against the single-rounding (fused) value.
    pub host_vs_fused: Option<usize>,
    /// The largest distance of the host result from the reference in units in the last place, over the
    /// triples where both are finite (D080: the OpenCL build's division is specified to 2.5 ulp).
    pub max_ulps_vs_reference: u64,
    /// Host results that differ from the reference where one of the two is NaN or infinite.
    pub host_vs_reference_non_finite: usize,
    /// The first triple that differed anywhere: (a, b, c, reference, host, device).
    pub first_difference: Option<[u32; 6]>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BuildReport {
    pub build: String,
    pub code_object: String,
    pub flags: String,
    pub ops: Vec<OpCounts>,
    pub seconds: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub random_triples: usize,
    pub boundary_triples: usize,
    pub seed: u64,
    pub device: Option<String>,
    pub builds: Vec<BuildReport>,
}

impl Report {
    /// Every build 0 host-vs-device differences, the strict build 0 mismatches against the references.
    pub fn passed(&self) -> bool {
        self.builds.iter().all(|b| {
            let strict = BUILDS.iter().any(|x| x.name == b.build && x.strict);
            b.ops.iter().all(|o| {
                o.host_vs_device.unwrap_or(0) == 0
                    && (!strict
                        || (o.host_vs_reference == 0 && o.device_vs_reference.unwrap_or(0) == 0))
            })
        })
    }

    /// The table as Markdown.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{} random + {} boundary operand triples per op (seed {:#x}); device: {}\n\n",
            self.random_triples,
            self.boundary_triples,
            self.seed,
            self.device
                .as_deref()
                .unwrap_or("none (host evaluator only)")
        );
        s += "| build | op | triples | host vs device | host vs reference | device vs reference | host vs fused a*b+c | max ulps vs reference | non-finite differences |\n";
        s += "|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
        let opt = |x: Option<usize>| x.map(|v| v.to_string()).unwrap_or_else(|| "—".into());
        for b in &self.builds {
            for o in &b.ops {
                s += &format!(
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                    b.build,
                    o.op,
                    o.triples,
                    opt(o.host_vs_device),
                    o.host_vs_reference,
                    opt(o.device_vs_reference),
                    opt(o.host_vs_fused),
                    o.max_ulps_vs_reference,
                    o.host_vs_reference_non_finite
                );
            }
        }
        s
    }
}

/// Work-items per dispatch.
const CHUNK: usize = 1 << 17;
const WG: u32 = 256;

/// Runs the probe: every build in `builds` over `random` random triples plus the boundary triples.
pub fn run(
    kernels: &Path,
    builds: &[&Build],
    random: usize,
    seed: u64,
    backends: &Backends,
    quiet: bool,
) -> Result<Report> {
    let ops = operands(random, seed);
    let refs: Vec<[u32; 4]> = ops
        .iter()
        .map(|&[a, b, c]| {
            [
                ref_mad(a, b, c),
                ref_div(a, b),
                ref_sqrt_abs(a),
                ref_fused(a, b, c),
            ]
        })
        .collect();
    let mut reports = Vec::new();
    for build in builds {
        let t = std::time::Instant::now();
        let co = kernels.join(build.code_object);
        let pb = progress(
            ops.len() as u64,
            &format!("strict-fp {}", build.name),
            quiet,
        );
        let names = ["a * b + c", "a / b", "sqrtf(|a|)"];
        let mut counts: Vec<OpCounts> = names
            .iter()
            .map(|n| OpCounts {
                op: n.to_string(),
                triples: ops.len(),
                host_vs_device: backends.device.as_ref().map(|_| 0),
                device_vs_reference: backends.device.as_ref().map(|_| 0),
                host_vs_fused: (*n == "a * b + c").then_some(0),
                ..OpCounts::default()
            })
            .collect();
        for (k, chunk) in ops.chunks(CHUNK).enumerate() {
            let n = chunk.len();
            let padded = n.div_ceil(WG as usize) * WG as usize;
            let mut cols = [vec![0u32; padded], vec![0u32; padded], vec![0u32; padded]];
            for (i, t) in chunk.iter().enumerate() {
                for j in 0..3 {
                    cols[j][i] = t[j];
                }
            }
            let mut bufs: Vec<Vec<u8>> = cols.iter().map(|c| bytes(c)).collect();
            bufs.extend((0..3).map(|_| vec![0u8; 4 * padded]));
            let run = run_chunk(&co, "probe_fp", padded as u32, WG, &bufs, backends)?;
            for (j, c) in counts.iter_mut().enumerate() {
                let h = words(&run.host[3 + j]);
                let d = run.device.as_ref().map(|d| words(&d[3 + j]));
                for i in 0..n {
                    let g = k * CHUNK + i;
                    let want = refs[g][j];
                    let hv = h[i];
                    let mut differs = !same(hv, want);
                    if differs {
                        c.host_vs_reference += 1;
                    }
                    match ulps(hv, want) {
                        Some(u) => c.max_ulps_vs_reference = c.max_ulps_vs_reference.max(u),
                        None if differs => c.host_vs_reference_non_finite += 1,
                        None => {}
                    }
                    if j == 0 && !same(hv, refs[g][3]) {
                        *c.host_vs_fused.as_mut().unwrap() += 1;
                    }
                    if let Some(d) = &d {
                        let dv = d[i];
                        if dv != hv {
                            *c.host_vs_device.as_mut().unwrap() += 1;
                            differs = true;
                        }
                        if !same(dv, want) {
                            *c.device_vs_reference.as_mut().unwrap() += 1;
                        }
                    }
                    if differs && c.first_difference.is_none() {
                        let [a, b, cc] = ops[g];
                        c.first_difference =
                            Some([a, b, cc, want, hv, d.as_ref().map(|d| d[i]).unwrap_or(hv)]);
                    }
                }
            }
            pb.inc(n as u64);
        }
        pb.finish_and_clear();
        reports.push(BuildReport {
            build: build.name.into(),
            code_object: build.code_object.into(),
            flags: build.flags.into(),
            ops: counts,
            seconds: t.elapsed().as_secs_f64(),
        });
    }
    Ok(Report {
        random_triples: random,
        boundary_triples: BOUNDARY.len().pow(3),
        seed,
        device: backends.device.as_ref().map(|(c, _)| c.info().name.clone()),
        builds: reports,
    })
}
