//! Developer tool: print LLVM-19's decoding (and ours) of hex words, one instruction per input line.
//!
//! echo "d5010000 00020304" | cargo run -p rdna2spv-isa --example llvm -- [--target gfx1030] [--wave64]
use llvm_oracle::Decoded;
use rdna2spv_isa::{decode, PrintOptions, Target};
use std::io::BufRead;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = args
        .iter()
        .position(|a| a == "--target")
        .and_then(|i| args.get(i + 1))
        .map(|t| Target::from_name(t).expect("target"))
        .unwrap_or(Target::Gfx1030);
    let wave64 = args.iter().any(|a| a == "--wave64");
    let d =
        llvm_oracle::Disassembler::new(target.name(), if wave64 { "+wavefrontsize64" } else { "" })
            .expect("libLLVM-19");
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let words: Vec<u32> = line
            .split_whitespace()
            .filter_map(|w| u32::from_str_radix(w.trim_start_matches("0x"), 16).ok())
            .collect();
        if words.is_empty() {
            continue;
        }
        let llvm = match d.decode_words(&words) {
            Decoded::Ok { size, text } => format!("[{size}] {text}"),
            Decoded::Invalid => "invalid".into(),
            Decoded::Skipped => "skipped".into(),
        };
        let ours = match decode(&words, target) {
            Ok(i) => format!("[{}] {}", i.len() * 4, i.text(PrintOptions { wave64 })),
            Err(e) => format!("error: {e}"),
        };
        let mark = if ours == llvm { "  " } else { "!!" };
        println!("{line:<40} llvm {llvm}\n{mark:<40} ours {ours}");
    }
}
