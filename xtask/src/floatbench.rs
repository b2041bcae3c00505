//! `cargo xtask floatbench [--only <part>] [--list]`: every implemented float VALU op at benchmark size
//! (≥ 10^6 operands per op, or every input of a 16-bit op), host evaluator vs lavapipe vs an independent
//! reference, as one command (issue 5; decision D076).
//!
//! It runs the existing benchmark-size checks one after another (release build), each of which fails on
//! any host≠device or host≠reference word, and prints a summary with each part's status and wall time:
//!
//! - `vfloat`: tests/vfloat_ops.rs's `*_at_benchmark_size` (1,000,192 operands per case; every f16/f32/f64
//!   add, mul, min/max/med3, rounding, fract, frexp, ldexp, conversion, compare and class case; SoftFloat
//!   and ISA-text references);
//! - `fma`: tests/fused_multiply_add.rs with `RDNA2SPV_FMA_DEVICE_N=1000000` (every multiply-add form:
//!   fused, unfused/legacy, f16, packed, mix, f64; SoftFloat);
//! - `transcendental`: tests/transcendental.rs with `RDNA2SPV_TRANS_N=1048576` (f32 ops over 1,048,576
//!   operands, f16 ops over all 65,536 inputs; determinism host = device and the ulp bound, D017);
//! - `strict-fp`: `rdna2spv probe strict-fp` (1,048,576 random + 2,197 boundary triples through hipcc's
//!   correctly rounded division and square root: v_div_scale/v_div_fmas/v_div_fixup/v_rcp/v_sqrt_f32 and
//!   the fma refinements; SoftFloat; exit 1 on any difference).

use anyhow::{bail, Result};
use std::process::Command;
use std::time::Instant;

struct Part {
    name: &'static str,
    env: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
}

const PARTS: &[Part] = &[
    Part {
        name: "vfloat",
        env: &[],
        args: &[
            "test",
            "--release",
            "--test",
            "vfloat_ops",
            "--",
            "--ignored",
            "--test-threads",
            "1",
            "--nocapture",
        ],
    },
    Part {
        name: "fma",
        env: &[("RDNA2SPV_FMA_DEVICE_N", "1000000")],
        args: &[
            "test",
            "--release",
            "--test",
            "fused_multiply_add",
            "--",
            "--test-threads",
            "1",
            "--nocapture",
        ],
    },
    Part {
        name: "transcendental",
        env: &[("RDNA2SPV_TRANS_N", "1048576")],
        args: &[
            "test",
            "--release",
            "--test",
            "transcendental",
            "transcendental_ops_are_deterministic_and_accurate",
            "--",
            "--nocapture",
        ],
    },
    Part {
        name: "strict-fp",
        env: &[],
        args: &["run", "--release", "--", "probe", "strict-fp"],
    },
];

pub fn run(args: &[String]) -> Result<()> {
    let mut only: Option<Vec<String>> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--only" => {
                let Some(v) = it.next() else {
                    bail!("--only needs a comma-separated list of parts")
                };
                only = Some(v.split(',').map(str::to_string).collect());
            }
            "--list" => {
                for p in PARTS {
                    println!("{:16} {}", p.name, command_line(p));
                }
                return Ok(());
            }
            _ => bail!("usage: cargo xtask floatbench [--only vfloat,fma,transcendental,strict-fp] [--list]"),
        }
    }
    if let Some(o) = &only {
        for n in o {
            if !PARTS.iter().any(|p| p.name == n) {
                bail!("no part named {n} (see --list)");
            }
        }
    }
    let mut results = Vec::new();
    for p in PARTS {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == p.name))
        {
            continue;
        }
        eprintln!("== floatbench {}: {}", p.name, command_line(p));
        let t = Instant::now();
        let st = Command::new(env!("CARGO"))
            .args(p.args)
            .envs(p.env.iter().copied())
            .status()?;
        results.push((p.name, st.success(), t.elapsed()));
    }
    eprintln!("== floatbench summary");
    for (n, ok, t) in &results {
        eprintln!(
            "{n:16} {} {:>8.1} s",
            if *ok { "pass" } else { "FAIL" },
            t.as_secs_f64()
        );
    }
    if results.iter().any(|r| !r.1) {
        bail!("a benchmark-size float check failed");
    }
    Ok(())
}

fn command_line(p: &Part) -> String {
    let env: Vec<String> = p.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut s = env.join(" ");
    if !s.is_empty() {
        s.push(' ');
    }
    s.push_str("cargo ");
    s.push_str(&p.args.join(" "));
    s
}
