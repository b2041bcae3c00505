//! Timing side of `cargo xtask bench-eval` (xtask/src/bench_eval.rs builds the kernels and calls this in a
//! release build): runs one manifest on the host evaluator repeatedly and prints one JSON line.
//!
//!   bench_eval MANIFEST OUT SECONDS
//!
//! Only `rdna2spv_eval::run` is timed, in CPU time of the running thread (CLOCK_THREAD_CPUTIME_ID: the machine
//! is shared, and wall time counts the other processes' slices; the wall time is printed too) (lifting, binding and placing the buffers in memory are not): the
//! fastest of the runs made within SECONDS (at least 3). OUT receives the manifest's output buffer from the
//! last run, for the bit-for-bit comparison with the native build.

use anyhow::{bail, Context, Result};
use rdna2spv::dispatch::{host_addresses, Plan};
use rdna2spv::manifest::Manifest;
use rdna2spv_eval::Memory;
use std::path::Path;
use std::time::Instant;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [manifest, out, seconds] = args.as_slice() else {
        bail!("usage: bench_eval MANIFEST OUT SECONDS");
    };
    let budget: f64 = seconds.parse().context("SECONDS")?;
    let m = Manifest::load(Path::new(manifest))?;
    let mut plan = Plan::new(&m)?;
    let addresses = host_addresses(&plan.buffers);
    plan.bind(&addresses, plan.launch.grid)?;
    let mut initial = Memory::default();
    for (b, &a) in plan.buffers.iter().zip(&addresses) {
        initial
            .add(&b.name, a, b.data.clone())
            .map_err(anyhow::Error::msg)?;
    }
    let output = plan
        .buffers
        .iter()
        .find(|b| b.output.is_some())
        .context("the manifest names no output")?
        .name
        .clone();
    let start = Instant::now();
    let (mut best, mut best_wall) = (f64::INFINITY, f64::INFINITY);
    let mut runs = 0;
    let (stats, last) = loop {
        let mut mem = initial.clone();
        let (t, c) = (Instant::now(), thread_cpu_ns());
        let stats = rdna2spv_eval::run(&plan.program, &plan.launch, &mut mem)?;
        best_wall = best_wall.min(t.elapsed().as_secs_f64());
        best = best.min((thread_cpu_ns() - c) as f64 * 1e-9);
        runs += 1;
        if runs >= 3 && start.elapsed().as_secs_f64() >= budget {
            break (stats, mem);
        }
    };
    let data = &last.allocation(&output).context("output allocation")?.data;
    std::fs::write(out, data).with_context(|| format!("writing {out}"))?;
    let static_instructions: usize = plan.program.blocks.iter().map(|(_, b)| b.insts.len()).sum();
    println!(
        "{{\"seconds\":{best:e},\"wall_seconds\":{best_wall:e},\"runs\":{runs},\"waves\":{},\"instructions\":{},\"lane_instructions\":{},\"static_instructions\":{static_instructions}}}",
        stats.waves, stats.instructions, stats.lane_instructions
    );
    Ok(())
}

/// Nanoseconds of CPU time the calling thread has used.
fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given and nothing else.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}
