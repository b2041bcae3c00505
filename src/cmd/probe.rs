//! `rdna2spv probe`: the seeds' numeric studies on translated gfx1030 code (docs/numerics.md).

use super::{emit, Backend};
use anyhow::{bail, Result};
use rdna2spv::device::{open, profile_of, ProfileChoice};
use rdna2spv::output::write_atomically;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: ProbeCmd,
}

#[derive(clap::Subcommand)]
pub enum ProbeCmd {
    /// Seed ADR-1407: a*b+c, a/b and sqrtf(|a|) from hipcc's three builds, host vs device vs SoftFloat.
    ///
    /// Exit 1 when the host and the device differ anywhere or the strict build differs from the correctly
    /// rounded references.
    StrictFp {
        /// Random operand triples (the 2,197 boundary triples come on top).
        #[arg(long, default_value_t = 1 << 20)]
        random: usize,
        #[arg(long, default_value_t = 0x1407)]
        seed: u64,
        /// Only these builds (strict, default, nocrdiv); default all three.
        #[arg(long, value_delimiter = ',')]
        build: Vec<String>,
        /// `host`: the evaluator only; `vulkan` or `both`: the device and the host, compared.
        #[arg(long, value_enum, default_value = "both")]
        backend: Backend,
        #[arg(long)]
        device: Option<String>,
        /// The folder holding the probe code objects (default: fixtures/kernels of the source tree).
        #[arg(long)]
        kernels: Option<PathBuf>,
        /// Print the report as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Also write the JSON report to this file.
        #[arg(long)]
        json_out: Option<PathBuf>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Seed 003: fp32mp2 double-word error bounds in units of u², against binary128.
    ///
    /// Exit 1 when the host and the device differ anywhere or a bound of the seed is exceeded.
    DoubleWord {
        /// Operands per operation and regime (default 2^20).
        #[arg(long, default_value_t = 1 << 20)]
        n: usize,
        /// 2^24 operands per operation and regime (the seed's size).
        #[arg(long)]
        full: bool,
        #[arg(long, default_value_t = 0x3003)]
        seed: u64,
        /// Only the kernels whose name contains one of these (e.g. add_high,acc).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Only these operand regimes (same, random, cancel, positive, near-worst, work, work-same).
        #[arg(long, value_delimiter = ',')]
        regime: Vec<String>,
        #[arg(long, value_enum, default_value = "both")]
        backend: Backend,
        #[arg(long)]
        device: Option<String>,
        #[arg(long)]
        kernels: Option<PathBuf>,
        #[arg(long)]
        json: bool,
        /// Also write the JSON report to this file.
        #[arg(long)]
        json_out: Option<PathBuf>,
        /// Also write the error-distribution plot here.
        #[arg(long)]
        svg: Option<PathBuf>,
        #[arg(long)]
        quiet: bool,
    },
}

fn probe_backends(backend: Backend, device: Option<&str>) -> Result<rdna2spv::probe::Backends> {
    Ok(rdna2spv::probe::Backends {
        device: match backend {
            Backend::Host => None,
            Backend::Vulkan | Backend::Both => {
                let ctx = open(device)?;
                let prof = profile_of(&ctx, ProfileChoice::Device)?;
                Some((ctx, prof))
            }
        },
    })
}

pub fn run(a: Args) -> Result<i32> {
    let what = a.what;
    use rdna2spv::probe::{dw, kernels_dir, strict};
    match what {
        ProbeCmd::StrictFp {
            random,
            seed,
            build,
            backend,
            device,
            kernels,
            json,
            json_out,
            quiet,
        } => {
            let mut builds = Vec::new();
            for b in &strict::BUILDS {
                if build.is_empty() || build.iter().any(|x| x == b.name) {
                    builds.push(b);
                }
            }
            if let Some(x) = build
                .iter()
                .find(|x| !strict::BUILDS.iter().any(|b| b.name == x.as_str()))
            {
                bail!("no build named {x:?}; known: strict, default, nocrdiv");
            }
            let dir = kernels_dir(kernels.as_deref());
            let backends = probe_backends(backend, device.as_deref())?;
            let r = strict::run(&dir, &builds, random, seed, &backends, quiet)?;
            let text = serde_json::to_string_pretty(&r)? + "\n";
            if let Some(p) = json_out {
                write_atomically(&p, text.as_bytes())?;
            }
            if json {
                emit(&text)?;
            } else {
                emit(&r.table())?;
            }
            Ok(if r.passed() { 0 } else { 1 })
        }
        ProbeCmd::DoubleWord {
            n,
            full,
            seed,
            only,
            regime,
            backend,
            device,
            kernels,
            json,
            json_out,
            svg,
            quiet,
        } => {
            let n = if full { 1 << 24 } else { n };
            let mut regimes = Vec::new();
            for name in &regime {
                match dw::Regime::ALL.iter().find(|g| g.cli() == name.as_str()) {
                    Some(&g) => regimes.push(g),
                    None => bail!("--regime: no regime named {name:?}"),
                }
            }
            if n == 0 {
                bail!("--n must be positive");
            }
            let ops: Vec<&dw::Op> = dw::OPS
                .iter()
                .filter(|o| only.is_empty() || only.iter().any(|x| o.kernel.contains(x.as_str())))
                .collect();
            if ops.is_empty() {
                bail!("--only {} matches no operation", only.join(","));
            }
            let dir = kernels_dir(kernels.as_deref());
            let backends = probe_backends(backend, device.as_deref())?;
            let keep = |_: usize, g: dw::Regime| regimes.is_empty() || regimes.contains(&g);
            let r = dw::run_selected(&dir, &ops, n, seed, &backends, quiet, &keep)?;
            if let Some(p) = svg {
                write_atomically(&p, rdna2spv::probe::svg::plot(&r).as_bytes())?;
            }
            let text = serde_json::to_string_pretty(&r)? + "\n";
            if let Some(p) = json_out {
                write_atomically(&p, text.as_bytes())?;
            }
            if json {
                emit(&text)?;
            } else {
                emit(&r.table())?;
            }
            Ok(if r.passed() { 0 } else { 1 })
        }
    }
}
