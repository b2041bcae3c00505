//! The printer's line buffer (print.rs `Line`, decision D109) writes with fixed-size copies and hands its bytes
//! to the output `String` without a second UTF-8 check. This drives every printing path with random words of
//! every format (valid, invalid and truncated; all three sub-targets; wave32 and wave64) and checks that the
//! printer never panics and that what it appends is printable ASCII — LLVM's syntax has no other byte, so a
//! stray byte from a fixed-size copy (a wrong length) would show here. Texts against LLVM-19 are
//! tests/llvm_differential.rs's business.
#[path = "common/mod.rs"]
mod common;

use common::{biased_vector_words, random_words, Rng};
use rdna2spv_isa::{decode, Format, PrintOptions, Target};

fn check_line(words: &[u32], target: Target, buf: &mut String, printed: &mut usize) {
    for n in 0..=words.len() {
        let Ok(i) = decode(&words[..n], target) else {
            continue;
        };
        for wave64 in [false, true] {
            let opts = PrintOptions { wave64 };
            let start = buf.len();
            i.write_text(opts, buf);
            let line = &buf.as_bytes()[start..];
            assert!(
                !line.is_empty() && line.iter().all(|b| (0x20..0x7f).contains(b)),
                "{words:08x?} {target:?} wave64={wave64}: {:?}",
                String::from_utf8_lossy(line)
            );
            assert_eq!(&buf[start..], i.text(opts), "{words:08x?}");
            *printed += 1;
            if buf.len() > 1 << 16 {
                buf.clear();
            }
        }
    }
}

#[test]
fn printer_writes_only_printable_ascii() {
    let mut rng = Rng(0x5eed);
    let mut buf = String::new();
    let mut printed = 0;
    for n in 0..200_000 {
        let target = Target::ALL[n % 3];
        let w = match n % 4 {
            0 => random_words(&mut rng, None),
            1 | 2 => {
                let f = Format::ALL[(rng.next_u32() % 20) as usize];
                random_words(&mut rng, Some(f))
            }
            _ => {
                let f = [
                    Format::VOP1,
                    Format::VOP2,
                    Format::VOPC,
                    Format::VOP3,
                    Format::VOP3P,
                ][(rng.next_u32() % 5) as usize];
                biased_vector_words(&mut rng, f)
            }
        };
        check_line(&w, target, &mut buf, &mut printed);
    }
    // Every format prints something (the stream is not all rejected).
    assert!(printed > 150_000, "only {printed} lines printed");
}
