//! Decode (+ print) loop over the 10^6-word stream of `cargo xtask bench decode`, without LLVM: for profiles
//! and instruction counts of the printer (docs/performance.md records before/after under callgrind).
//!
//! cargo run --release -p rdna2spv-isa --example print_loop -- <decode|print> [reps]
//! valgrind --tool=callgrind --toggle-collect=print_loop::walk target/release/examples/print_loop print 1
//!   (the walk alone; minus `decode 1`: the print cost)
//!
//! The stream: random words (seed 7, the bench's generator) kept where our decoder accepts them; the decoder
//! rejects what LLVM-19 rejects (tests/llvm_differential.rs), so it is the bench's stream (805,945 instructions).
#[path = "../tests/common/mod.rs"]
mod common;
use common::*;
use rdna2spv_isa::{decode, Format, PrintOptions, Target};
use std::time::Instant;
fn main() {
    let mode = std::env::args().nth(1).unwrap_or("print".into());
    let reps: usize = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(10);
    let mut rng = Rng(7);
    let mut stream = Vec::new();
    let mut n = 0;
    while stream.len() < 1_000_000 {
        let f = if rng.next_u32() & 1 == 0 {
            None
        } else {
            Some(Format::ALL[(rng.next_u32() % 20) as usize])
        };
        let w = random_words(&mut rng, f);
        if let Ok(i) = decode(&w, Target::Gfx1030) {
            stream.extend_from_slice(&w[..i.len()]);
            n += 1;
        }
    }
    let t = Instant::now();
    let chars = walk(&stream, mode == "print", reps);
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{n} insts, {:.1} ns/inst ({mode}), {chars}",
        dt / (n * reps) as f64 * 1e9
    );
}

/// The measured loop (its own function so that `valgrind --toggle-collect=print_loop::walk` counts it alone).
#[inline(never)]
fn walk(stream: &[u32], print: bool, reps: usize) -> usize {
    let opts = PrintOptions::default();
    let mut buf = String::with_capacity(256);
    let mut chars = 0usize;
    for _ in 0..reps {
        let mut i = 0;
        while i < stream.len() {
            let x = decode(&stream[i..], Target::Gfx1030).unwrap();
            if print {
                buf.clear();
                x.write_text(opts, &mut buf);
                chars += buf.len();
            }
            i += x.len();
        }
    }
    chars
}
