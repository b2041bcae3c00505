//! Developer tool: like `difftest`, but every 9-bit source and 8-bit register field of a vector-ALU word is
//! drawn from the encodings where LLVM's rules have edges (literal, lds_direct, vcc_hi/m0/exec_hi, odd SGPRs,
//! reserved values, the DPP/SDWA markers, v255, inline constants), so rare cases are hit often.
//!
//! cargo run --release -p rdna2spv-isa --example vopfuzz -- [--format VOP3] [-n 100000] [--seed 1] [--target gfx1030] [--wave64]
#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use rdna2spv_isa::{Format, PrintOptions, Target};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let format = get("--format")
        .map(|f| {
            *Format::ALL
                .iter()
                .find(|x| format!("{x:?}") == f)
                .unwrap_or_else(|| panic!("unknown format {f}"))
        })
        .unwrap_or(Format::VOP3);
    let n: usize = get("-n").map(|s| s.parse().unwrap()).unwrap_or(100_000);
    let seed: u64 = get("--seed").map(|s| s.parse().unwrap()).unwrap_or(1);
    let target = get("--target")
        .map(|t| Target::from_name(&t).expect("target"))
        .unwrap_or(Target::Gfx1030);
    let wave64 = args.iter().any(|a| a == "--wave64");
    let d =
        llvm_oracle::Disassembler::new(target.name(), if wave64 { "+wavefrontsize64" } else { "" })
            .expect("libLLVM-19");
    let mut rng = Rng(seed);
    let mut report = Report::default();
    for _ in 0..n {
        let w = biased_vector_words(&mut rng, format);
        report.add(&w, compare(&d, &w, target, PrintOptions { wave64 }));
    }
    print!("{}", report.summary());
}
