//! Developer tool: walk a raw `.text` dump with LLVM-19's instruction sizes and compare every vector-ALU
//! instruction with ours (real compiler output rather than random words).
//!
//! cargo run --release -p rdna2spv-isa --example textcheck -- FILE.bin [--target gfx1030] [--wave64]
use llvm_oracle::Decoded;
use rdna2spv_isa::decode::classify;
use rdna2spv_isa::{decode, Format, PrintOptions, Target};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = args
        .iter()
        .position(|a| a == "--target")
        .and_then(|i| args.get(i + 1))
        .map(|t| Target::from_name(t).expect("target"))
        .unwrap_or(Target::Gfx1030);
    let wave64 = args.iter().any(|a| a == "--wave64");
    let bytes = std::fs::read(&args[0]).expect("read");
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let d =
        llvm_oracle::Disassembler::new(target.name(), if wave64 { "+wavefrontsize64" } else { "" })
            .expect("libLLVM-19");
    let (mut at, mut checked, mut bad) = (0, 0, 0);
    while at < words.len() {
        let end = (at + 5).min(words.len());
        let llvm = d.decode_words(&words[at..end]);
        let size = match &llvm {
            Decoded::Ok { size, .. } => size / 4,
            _ => 1,
        };
        let vector = matches!(
            classify(words[at]),
            Some(Format::VOP1 | Format::VOP2 | Format::VOPC | Format::VOP3 | Format::VOP3P)
        );
        if vector {
            checked += 1;
            let ours =
                decode(&words[at..end], target).map(|i| (i.len(), i.text(PrintOptions { wave64 })));
            let same = matches!((&llvm, &ours), (Decoded::Ok { size, text }, Ok((n, t))) if *size == n * 4 && text == t);
            if !same {
                bad += 1;
                println!("{at:6}: llvm {llvm:?}\n        ours {ours:?}");
            }
        }
        at += size.max(1);
    }
    println!("{checked} vector instructions, {bad} differ");
}
