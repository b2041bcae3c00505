//! `run_cancellable` (decision D254): the HIP runtime's `auto` backend runs a launch on the evaluator over a
//! copy of memory and drops it once the launch's pipeline has compiled. The run must stop soon after the
//! flag is set — between workgroups, and inside a workgroup that never ends — and say how many whole
//! workgroups it ran; a flag never set changes nothing.

mod divsqrt_kernel;

use divsqrt_kernel::*;
use rdna2spv_eval::{EvalError, Memory};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const S_BRANCH_SELF: u32 = 0xbf82_ffff; // s_branch -1: to itself, forever

fn memory(n: usize) -> (Memory, u64) {
    let x: Vec<u32> = (0..n as u32).map(|i| 0x3f80_0000 + i).collect();
    host_memory(&x, &vec![0x4000_0000; n])
}

/// Not set: the same memory as `run`. Set before the start: no workgroup runs, nothing is written.
#[test]
fn a_flag_not_set_changes_nothing_and_one_set_first_runs_nothing() {
    let p = lift_code(&variant_code(Variant::Full));
    let n = 64 * WORKGROUP as usize;
    let (mut a, ka) = memory(n);
    let (mut b, _) = memory(n);
    rdna2spv_eval::run(&p, &launch(ka, n as u32), &mut a).expect("runs");
    let flag = AtomicBool::new(false);
    rdna2spv_eval::run_cancellable(&p, &launch(ka, n as u32), &mut b, &flag).expect("runs");
    let out = |m: &Memory| m.allocation("out").unwrap().data.clone();
    assert_eq!(out(&a), out(&b));
    assert!(out(&a).iter().any(|&x| x != 0));

    let (mut c, _) = memory(n);
    flag.store(true, Ordering::Relaxed);
    match rdna2spv_eval::run_cancellable(&p, &launch(ka, n as u32), &mut c, &flag) {
        Err(EvalError::Cancelled { workgroups: 0 }) => {}
        r => panic!("{r:?}"),
    }
    assert!(out(&c).iter().all(|&x| x == 0));
}

/// A wave looping forever stops within moments of the flag being set from another thread, with no
/// workgroup finished (its step limit, 2^32, would take minutes to reach: a run that ignored the flag
/// would end as a runaway instead).
#[test]
fn a_wave_that_never_ends_stops_when_the_flag_is_set() {
    let p = lift_code(&wrapped_code(&[S_BRANCH_SELF]));
    let n = 4 * WORKGROUP as usize;
    let (mut m, ka) = memory(n);
    let mut l = launch(ka, n as u32);
    l.max_steps_per_wave = 1 << 32;
    let flag = AtomicBool::new(false);
    std::thread::scope(|s| {
        let setter = s.spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::Relaxed);
            Instant::now()
        });
        let r = rdna2spv_eval::run_cancellable(&p, &l, &mut m, &flag);
        let stopped = Instant::now();
        let set_at = setter.join().unwrap();
        match r {
            Err(EvalError::Cancelled { workgroups: 0 }) => {}
            r => panic!("{r:?}"),
        }
        // Generous for a debug build on a loaded machine: the flag is read every 65,536 steps.
        assert!(
            stopped.duration_since(set_at) < Duration::from_secs(5),
            "{:?}",
            stopped.duration_since(set_at)
        );
    });
}
