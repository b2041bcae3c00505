//! Developer tool: exhaustive sweeps of the scalar formats' fields against LLVM-19 (the random difftest samples;
//! this walks every value of the fields that matter, the other fields random).
//!
//! cargo run --release -p rdna2spv-isa --example scalar_sweep -- [--target gfx1030] [--wave64] [SOPP SOPK SOP1 SOPC SOP2 SMEM]
#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use rdna2spv_isa::{PrintOptions, Target};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = args
        .iter()
        .position(|a| a == "--target")
        .map(|i| Target::from_name(&args[i + 1]).expect("target"))
        .unwrap_or(Target::Gfx1030);
    let wave64 = args.iter().any(|a| a == "--wave64");
    let d =
        llvm_oracle::Disassembler::new(target.name(), if wave64 { "+wavefrontsize64" } else { "" })
            .expect("libLLVM-19");
    let opts = PrintOptions { wave64 };
    let all = ["SOPP", "SOPK", "SOP1", "SOPC", "SOP2", "SMEM"];
    let chosen: Vec<&str> = all
        .iter()
        .copied()
        .filter(|f| args.iter().any(|a| a == f))
        .collect();
    let chosen = if chosen.is_empty() {
        all.to_vec()
    } else {
        chosen
    };
    let mut rng = Rng(42);
    for f in chosen {
        let mut report = Report::default();
        // The first word, and the second (random when None).
        let mut run2 = |w0: u32, w1: Option<u32>, rng: &mut Rng| {
            let mut w = [
                w0,
                rng.next_u32(),
                rng.next_u32(),
                rng.next_u32(),
                rng.next_u32(),
            ];
            if let Some(w1) = w1 {
                w[1] = w1;
            }
            report.add(&w, compare(&d, &w, target, opts));
        };
        match f {
            // Every first word.
            "SOPP" => (0..1 << 23).for_each(|x| run2(0xbf80_0000 | x, None, &mut rng)),
            "SOP1" => (0..1 << 23).for_each(|x| run2(0xbe80_0000 | x, None, &mut rng)),
            "SOPC" => (0..1 << 23).for_each(|x| run2(0xbf00_0000 | x, None, &mut rng)),
            // Every opcode with every simm16, then with every sdst.
            "SOPK" => {
                for op in 0..0x1d {
                    let base = 0xb000_0000 | op << 23;
                    for imm in 0..1 << 16 {
                        let sdst = rng.next_u32() & 0x7f;
                        run2(base | sdst << 16 | imm, None, &mut rng);
                    }
                    for sdst in 0..128 {
                        let imm = rng.next_u32() & 0xffff;
                        run2(base | sdst << 16 | imm, None, &mut rng);
                    }
                }
            }
            // Every opcode with every pair of sources, then with every sdst.
            "SOP2" => {
                for op in 0..0x60 {
                    let base = 0x8000_0000 | op << 23;
                    for src in 0..1 << 16 {
                        let sdst = rng.next_u32() & 0x7f;
                        run2(base | sdst << 16 | src, None, &mut rng);
                    }
                    for sdst in 0..128 {
                        let src = rng.next_u32() & 0xffff;
                        run2(base | sdst << 16 | src, None, &mut rng);
                    }
                }
            }
            // Every first word (op, sdata, sbase, glc, dlc and the unused bits), second word random and with
            // soffset null and offset zero.
            "SMEM" => {
                for x in 0..1 << 26 {
                    if x & 0x2a000 != 0 && x & 0xff != 0 {
                        continue; // the unused bits 13, 15, 17: once per opcode
                    }
                    let w0 = 0xf400_0000 | x;
                    run2(w0, None, &mut rng);
                    if x & 0x3f == 0 {
                        for w1 in [0xfa00_0000, 0x0000_0000, 0xfa10_0000, 0x0a00_0001] {
                            run2(w0, Some(w1), &mut rng);
                        }
                    }
                }
            }
            _ => unreachable!(),
        }
        print!(
            "{f} ({}, wave64 {wave64}): {}",
            target.name(),
            report.summary()
        );
    }
}
