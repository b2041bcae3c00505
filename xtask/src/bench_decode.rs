//! `cargo xtask bench decode`: decode and decode + print throughput against LLVM-19's C API disassembler
//! (`LLVMDisasmInstruction`, which decodes and prints) on the same stream of 10^6 words, in one run.
//!
//! The stream is the one crates/isa/examples/bench_decode.rs has always used (so figures stay comparable):
//! random words that LLVM-19 decodes as valid gfx1030 instructions, every format, seed 7, concatenated up to
//! 10^6 words. While building it, every instruction's text is compared with LLVM's (the same check as
//! tests/llvm_differential.rs, with its one named normalisation), so the figures are for a printer that is
//! right on this stream. Then each side walks the whole stream instruction by instruction; the three walks are
//! interleaved round by round and the best round of each counts; each walk is timed in the CPU time of the
//! measuring thread (`CLOCK_THREAD_CPUTIME_ID`), not wall time, because on the shared machine a walk
//! otherwise spends most of its wall time waiting for a core (both sides run in this one thread, LLVM's
//! disassembler included).

#[allow(unused_imports)]
#[path = "../../crates/isa/tests/common/mod.rs"]
mod common;

use crate::bench::{best_of_cpu, load_average, progress, thread_cpu_seconds, Opts, Section};
use anyhow::{bail, Result};
use common::{normalise, random_words, Rng};
use rdna2spv_isa::{decode, Format, PrintOptions, Target};
use serde_json::json;

const SEED: u64 = 7;

pub struct Stream {
    pub words: Vec<u32>,
    pub insts: usize,
    pub identical: usize,
    pub normalised: usize,
}

/// Random valid instructions until `want` words (LLVM and our decoder agree on each length; see module docs).
pub fn random_stream(d: &llvm_oracle::Disassembler, want: usize) -> Result<Stream> {
    let mut rng = Rng(SEED);
    let mut s = Stream {
        words: Vec::with_capacity(want + 8),
        insts: 0,
        identical: 0,
        normalised: 0,
    };
    let opts = PrintOptions::default();
    let mut differ = Vec::new();
    while s.words.len() < want {
        let f = if rng.next_u32() & 1 == 0 {
            None
        } else {
            Some(Format::ALL[(rng.next_u32() % 20) as usize])
        };
        let w = random_words(&mut rng, f);
        if let llvm_oracle::Decoded::Ok { size, text } = d.decode_words(&w) {
            if let Ok(i) = decode(&w, Target::Gfx1030) {
                if i.len() * 4 == size {
                    let ours = i.text(opts);
                    if ours == text {
                        s.identical += 1;
                    } else if normalise(&ours, &text).is_some() {
                        s.normalised += 1;
                    } else if differ.len() < 5 {
                        differ.push(format!("{w:08x?}: ours `{ours}`, LLVM `{text}`"));
                    }
                    s.words.extend_from_slice(&w[..size / 4]);
                    s.insts += 1;
                }
            }
        }
    }
    if s.identical + s.normalised != s.insts {
        bail!(
            "the printer differs from LLVM-19 on {} of {} instructions of the stream, e.g.\n  {}",
            s.insts - s.identical - s.normalised,
            s.insts,
            differ.join("\n  ")
        );
    }
    Ok(s)
}

fn walk_decode(words: &[u32]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < words.len() {
        i += decode(&words[i..], Target::Gfx1030).map_or(1, |x| x.len());
        n += 1;
    }
    n
}

/// Decode + print, one `String` per instruction (`Instruction::text`, what most callers use).
fn walk_text(words: &[u32]) -> usize {
    let opts = PrintOptions::default();
    let (mut i, mut n, mut chars) = (0, 0, 0usize);
    while i < words.len() {
        match decode(&words[i..], Target::Gfx1030) {
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
}

/// Decode + print into one reused buffer (`Instruction::write_text`, what a listing writer uses).
fn walk_write_text(words: &[u32]) -> usize {
    let opts = PrintOptions::default();
    let (mut i, mut n, mut chars) = (0, 0, 0usize);
    let mut buf = String::with_capacity(256);
    while i < words.len() {
        match decode(&words[i..], Target::Gfx1030) {
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
}

/// LLVM-19's C API: `LLVMDisasmInstruction` decodes and prints into a caller's buffer.
fn walk_llvm(d: &llvm_oracle::Disassembler, bytes: &[u8]) -> usize {
    let (mut i, mut n, mut chars) = (0, 0, 0usize);
    let mut out = [0u8; 256];
    while i < bytes.len() {
        let end = (i + 64).min(bytes.len());
        let (size, len) = d.disasm_into(&bytes[i..end], &mut out);
        chars += len;
        i += if size == 0 { 4 } else { size };
        n += 1;
    }
    std::hint::black_box(chars);
    n
}

pub fn section(opts: &Opts) -> Result<Section> {
    let want = if opts.quick { 100_000 } else { 1_000_000 };
    let rounds = if opts.quick { 1 } else { 5 };
    let d = llvm_oracle::Disassembler::new("gfx1030", "")?;
    progress(format!(
        "decode: building a stream of {want} words (random valid gfx1030 instructions, seed {SEED}) and checking \
         every text against LLVM-19"
    ));
    let s = random_stream(&d, want)?;
    progress(format!(
        "decode: {} instructions, {} identical to LLVM, {} identical after the named normalisation",
        s.insts, s.identical, s.normalised
    ));
    let bytes: Vec<u8> = s.words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let load = load_average();
    let (mut t_dec, mut t_text, mut t_into, mut t_llvm) = (f64::MAX, f64::MAX, f64::MAX, f64::MAX);
    for r in 0..rounds {
        let (t, n) = best_of_cpu(1, || walk_decode(&s.words));
        check(n, s.insts)?;
        t_dec = t_dec.min(t);
        let (t, n) = best_of_cpu(1, || walk_text(&s.words));
        check(n, s.insts)?;
        t_text = t_text.min(t);
        let (t, n) = best_of_cpu(1, || walk_write_text(&s.words));
        check(n, s.insts)?;
        t_into = t_into.min(t);
        let (t, n) = best_of_cpu(1, || walk_llvm(&d, &bytes));
        check(n, s.insts)?;
        t_llvm = t_llvm.min(t);
        progress(format!(
            "decode: round {}/{rounds}: decode {:.3} s, text {:.3} s, write_text {:.3} s, LLVM {:.3} s",
            r + 1,
            t_dec,
            t_text,
            t_into,
            t_llvm
        ));
    }
    let rate = |t: f64| s.insts as f64 / t / 1e6;
    let ratio = |t: f64| t_llvm / t;
    let md = format!(
        "## Decode and print vs LLVM-19 (`cargo xtask bench decode`)\n\n\
         The stream: {words} words of random gfx1030 instructions that LLVM-19 decodes as valid ({insts} \
         instructions, every format, seed {SEED}); while it is built, every instruction's text is compared with \
         LLVM's: {ident} identical, {norm} identical after the one named normalisation of \
         tests/llvm_differential.rs (LLVM's misaligned-register warning), 0 different. Each side then walks the \
         whole stream instruction by instruction, {rounds} interleaved rounds, best round of each, in {clock} \
         (load average {load} at the start).\n\n\
         | | instructions/s | vs LLVM-19 C API |\n| --- | ---: | ---: |\n\
         | rdna2spv `decode` only | {r_dec:.1} M | {x_dec:.1}× |\n\
         | rdna2spv `decode` + `text` (a `String` per instruction) | {r_text:.1} M | {x_text:.1}× |\n\
         | rdna2spv `decode` + `write_text` (one reused buffer) | {r_into:.1} M | {x_into:.1}× |\n\
         | LLVM-19 `LLVMDisasmInstruction` (decode + text into a buffer) | {r_llvm:.2} M | 1× |\n",
        clock = if thread_cpu_seconds().is_some() {
            "CPU time of the measuring thread"
        } else {
            "wall time"
        },
        words = s.words.len(),
        insts = s.insts,
        ident = s.identical,
        norm = s.normalised,
        r_dec = rate(t_dec),
        x_dec = ratio(t_dec),
        r_text = rate(t_text),
        x_text = ratio(t_text),
        r_into = rate(t_into),
        x_into = ratio(t_into),
        r_llvm = rate(t_llvm),
    );
    Ok(Section {
        markdown: md,
        json: json!({
            "words": s.words.len(), "instructions": s.insts, "identical": s.identical,
            "normalised": s.normalised, "rounds": rounds, "load_average": load,
            "seconds": { "decode": t_dec, "text": t_text, "write_text": t_into, "llvm": t_llvm },
            "ratio_vs_llvm": { "decode": ratio(t_dec), "text": ratio(t_text), "write_text": ratio(t_into) },
        }),
        headlines: vec![
            (
                "decode + print vs LLVM-19 C API (10^6 words)".into(),
                format!("{:.1}× faster", ratio(t_text.min(t_into))),
                "≥ 50×".into(),
            ),
            (
                "decode only vs LLVM-19 C API (decode + print)".into(),
                format!("{:.1}× faster", ratio(t_dec)),
                "—".into(),
            ),
        ],
    })
}

fn check(n: usize, want: usize) -> Result<()> {
    if n != want {
        bail!("a walk counted {n} instructions, the stream has {want}");
    }
    Ok(())
}
