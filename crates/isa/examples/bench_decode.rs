//! Decode (+ print) throughput against LLVM-19's C API on the same instruction stream.
//!
//! cargo run --release -p rdna2spv-isa --example bench_decode -- [--words 1000000] [--seed 7]
//!
//! The stream is built from random words that LLVM decodes as valid instructions (mixed formats, as in
//! `random_words`), concatenated until it holds the requested number of words. Each side then walks the
//! whole stream instruction by instruction; both are timed in the same run and reported as a ratio.
#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use rdna2spv_isa::{decode, Format, PrintOptions, Target};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let want: usize = get("--words")
        .map(|s| s.parse().unwrap())
        .unwrap_or(1_000_000);
    let seed: u64 = get("--seed").map(|s| s.parse().unwrap()).unwrap_or(7);
    let d = llvm_oracle::Disassembler::new("gfx1030", "").expect("libLLVM-19");
    let mut rng = Rng(seed);
    let mut stream: Vec<u32> = Vec::with_capacity(want + 8);
    let mut n_insts = 0usize;
    while stream.len() < want {
        let f = if rng.next_u32() & 1 == 0 {
            None
        } else {
            Some(Format::ALL[(rng.next_u32() % 20) as usize])
        };
        let w = random_words(&mut rng, f);
        if let llvm_oracle::Decoded::Ok { size, .. } = d.decode_words(&w) {
            if decode(&w, Target::Gfx1030).map(|i| i.len() * 4) == Ok(size) {
                stream.extend_from_slice(&w[..size / 4]);
                n_insts += 1;
            }
        }
    }
    let bytes: Vec<u8> = stream.iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = PrintOptions::default();

    let best = |f: &mut dyn FnMut() -> usize| -> (f64, usize) {
        let mut best = f64::MAX;
        let mut n = 0;
        for _ in 0..3 {
            let t = Instant::now();
            n = f();
            best = best.min(t.elapsed().as_secs_f64());
        }
        (best, n)
    };
    let (t_decode, n1) = best(&mut || {
        let (mut i, mut n) = (0, 0);
        while i < stream.len() {
            i += decode(&stream[i..], Target::Gfx1030)
                .map(|x| x.len())
                .unwrap_or(1);
            n += 1;
        }
        n
    });
    let (t_print, n2) = best(&mut || {
        let (mut i, mut n, mut chars) = (0, 0, 0usize);
        while i < stream.len() {
            match decode(&stream[i..], Target::Gfx1030) {
                Ok(x) => {
                    chars += x.text(opts).len();
                    i += x.len();
                }
                Err(_) => i += 1,
            }
            n += 1;
        }
        std::hint::black_box(chars);
        n
    });
    let (t_print_into, n4) = best(&mut || {
        let (mut i, mut n, mut chars) = (0, 0, 0usize);
        let mut buf = String::with_capacity(256);
        while i < stream.len() {
            match decode(&stream[i..], Target::Gfx1030) {
                Ok(x) => {
                    buf.clear();
                    x.write_text(opts, &mut buf);
                    chars += buf.len();
                    i += x.len();
                }
                Err(_) => i += 1,
            }
            n += 1;
        }
        std::hint::black_box(chars);
        n
    });
    let (t_llvm, n3) = best(&mut || {
        let (mut i, mut n) = (0, 0);
        while i < bytes.len() {
            let end = (i + 64).min(bytes.len());
            i += match d.decode(&bytes[i..end]) {
                llvm_oracle::Decoded::Ok { size, .. } => size,
                _ => 4,
            };
            n += 1;
        }
        n
    });
    assert_eq!(n1, n_insts);
    assert_eq!(n2, n_insts);
    assert_eq!(n3, n_insts);
    assert_eq!(n4, n_insts);
    let rate = |t: f64| n_insts as f64 / t / 1e6;
    println!(
        "stream: {} words, {n_insts} instructions (random valid gfx1030 instructions, seed {seed})",
        stream.len()
    );
    println!("rdna2spv decode only:      {:8.2} M insn/s", rate(t_decode));
    println!("rdna2spv decode + print:   {:8.2} M insn/s", rate(t_print));
    println!(
        "rdna2spv decode + print into a reused buffer: {:8.2} M insn/s",
        rate(t_print_into)
    );
    println!("LLVM-19 C API (with text): {:8.2} M insn/s", rate(t_llvm));
    println!("ratio decode+print / LLVM: {:8.1}x", t_llvm / t_print);
    println!(
        "ratio decode+print (reused buffer) / LLVM: {:8.1}x",
        t_llvm / t_print_into
    );
    println!("ratio decode only / LLVM:  {:8.1}x", t_llvm / t_decode);
}
