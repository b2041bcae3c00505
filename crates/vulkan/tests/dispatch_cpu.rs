//! `DispatchStats::dispatch_cpu` counts the dispatch, not the caller's work before it (D139).
//!
//! One test in its own binary: CPU time is process-wide, so a test running beside it in another thread
//! would be counted too.

mod common;

use std::time::{Duration, Instant};

use rdna2spv_vulkan::kernel::PushArgs;
use rdna2spv_vulkan::profile::modules;

/// A process cannot use more CPU time over an interval than its CPUs give it: `dispatch_cpu` must stay
/// within `cpus × dispatch` (plus the reads of the clocks and a worker's last microseconds after the
/// previous dispatch's fence). The caller spins on the CPU right before each dispatch: the per-thread
/// `schedstat` counters used before D139 brought that spin (up to a scheduler tick of it) into the
/// dispatch's CPU time, which broke this bound at once (mutation check in D139).
#[test]
fn dispatch_cpu_excludes_the_callers_work_before_the_dispatch() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let ctx = common::lavapipe();
    let n = 1024;
    let inp = ctx.create_buffer(4 * n as u64).unwrap();
    let out = ctx.create_buffer(4 * n as u64).unwrap();
    let words = modules::add_one_u32();
    let args = PushArgs {
        input: inp.device_address(),
        output: out.device_address(),
        count: n as u32,
        param: 0,
    };
    // Compile once; the runs below are warm.
    ctx.dispatch(&words, "main", args.workgroups(), &args.to_bytes())
        .unwrap();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let slack = Duration::from_micros(200);
    let mut worst: Option<(Duration, Duration)> = None;
    for _ in 0..20 {
        // 3 ms of the caller's own CPU work without a system call (more than a scheduler tick).
        let t = Instant::now();
        let mut x = 0x9e37_79b9u64;
        while t.elapsed() < Duration::from_millis(3) {
            for _ in 0..1000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
        let s = ctx
            .dispatch(&words, "main", args.workgroups(), &args.to_bytes())
            .unwrap();
        assert!(s.pipeline_cached);
        let cpu = s
            .dispatch_cpu
            .expect("Linux reports the dispatch's CPU time");
        let excess = cpu.saturating_sub(s.dispatch * cpus);
        if worst.is_none_or(|(e, _)| excess > e) {
            worst = Some((excess, cpu));
        }
        assert!(
            cpu <= s.dispatch * cpus + slack,
            "dispatch CPU {cpu:?} over {cpus} CPUs × {:?} wall (+{slack:?}): the caller's work \
             before the dispatch was counted",
            s.dispatch
        );
    }
    println!("worst excess over cpus × wall, and its CPU time: {worst:?}");
}
