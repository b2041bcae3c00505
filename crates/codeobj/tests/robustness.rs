//! The loader must never panic: thousands of mutated copies of every fixture (bit flips, byte
//! overwrites aimed at the ELF structures, truncations) are parsed, and every successful parse
//! is also described and serialised.

mod common;

use proptest::prelude::*;
use rdna2spv_codeobj::{bundle, describe, CodeObject};

/// Parses `bytes` every way the crate offers and uses the results; returns the outcome of
/// `parse_any` (`Ok` or the error's variant name).
fn exercise(bytes: &[u8]) -> Result<(), String> {
    let _ = CodeObject::parse(bytes).map(|co| use_code_object(&co, bytes));
    let _ = bundle::extract(bytes);
    let _ = bundle::extract_all(bytes);
    match CodeObject::parse_any(bytes) {
        Ok(co) => {
            use_code_object(&co, bytes);
            Ok(())
        }
        Err(e) => {
            let _ = e.to_string();
            Err(format!("{e:?}")
                .split([' ', '(', '{'])
                .next()
                .unwrap_or("")
                .to_string())
        }
    }
}

fn use_code_object(co: &CodeObject, bytes: &[u8]) {
    let _ = describe(co);
    let _ = serde_json::to_string(co).expect("serialisable");
    for k in &co.kernels {
        assert_eq!(k.code.len() as u64, k.code_size);
        let _ = co.kernel(&k.name).expect("a listed kernel is found");
        let _ = k.code_words();
        let _ = k.descriptor.abi();
    }
    let _ = co.kernel("no-such-kernel").unwrap_err().to_string();
    for s in &co.sections {
        let _ = s.data(bytes);
    }
}

/// Byte ranges worth aiming at: ELF header, section header table, and every section that is
/// not code (notes, symbols, strings, descriptors).
fn hot_ranges(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut ranges = vec![(0, 64.min(bytes.len()))];
    if let Ok(co) = CodeObject::parse_any(bytes) {
        let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().unwrap()) as usize;
        if bytes.starts_with(b"\x7fELF") {
            ranges.push((shoff.min(bytes.len()), bytes.len()));
        }
        for s in &co.sections {
            if !s.is_executable() && s.size > 0 {
                let start = (s.offset as usize).min(bytes.len());
                let end = (s.offset + s.size).min(bytes.len() as u64) as usize;
                if start < end {
                    ranges.push((start, end));
                }
            }
        }
    } else if bundle::is_bundle(bytes) {
        ranges.push((0, 200.min(bytes.len())));
    }
    ranges
}

/// xorshift64*: a small deterministic generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INTERESTING: &[u8] = &[0x00, 0xff, 0x7f, 0x80, 0x01, 0x40, 0x3f, 0xfe, 0x10, 0x20];

fn mutate(rng: &mut Rng, original: &[u8], hot: &[(usize, usize)]) -> Vec<u8> {
    let mut b = original.to_vec();
    let n = 1 + rng.below(8);
    for _ in 0..n {
        if b.is_empty() {
            break;
        }
        // Three times out of four, aim at the structures rather than the code.
        let pos = if rng.below(4) != 0 {
            let (s, e) = hot[rng.below(hot.len())];
            (s + rng.below(e.saturating_sub(s))).min(b.len() - 1)
        } else {
            rng.below(b.len())
        };
        match rng.below(5) {
            0 => b[pos] ^= 1 << rng.below(8),
            1 => b[pos] = INTERESTING[rng.below(INTERESTING.len())],
            2 => b[pos] = rng.next() as u8,
            3 => {
                // A whole little-endian word: large sizes, offsets and counts.
                let word = match rng.below(4) {
                    0 => u64::MAX,
                    1 => 1 << rng.below(64),
                    2 => original.len() as u64 + rng.below(64) as u64,
                    _ => rng.next(),
                };
                let width = [2usize, 4, 8][rng.below(3)];
                let end = (pos + width).min(b.len());
                let bytes = word.to_le_bytes();
                b[pos..end].copy_from_slice(&bytes[..end - pos]);
            }
            _ => {
                let cut = rng.below(b.len());
                b.truncate(cut);
            }
        }
    }
    b
}

#[test]
fn mutated_fixtures_never_panic() {
    let files = common::all_fixture_files();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let per_file = 700;
    let mut total = 0;
    let mut loaded = 0;
    let mut error_kinds = std::collections::BTreeMap::new();
    for (_, original) in &files {
        let hot = hot_ranges(original);
        for _ in 0..per_file {
            let m = mutate(&mut rng, original, &hot);
            total += 1;
            match exercise(&m) {
                Ok(()) => loaded += 1,
                Err(kind) => *error_kinds.entry(kind).or_insert(0) += 1,
            }
        }
    }
    eprintln!("{total} mutants: {loaded} loaded; errors {error_kinds:?}");
    assert!(total >= 10_000, "{total}");
    // The mutations must reach past the first checks: many still load, and the failures
    // come from several different stages.
    assert!(
        loaded * 10 > total,
        "only {loaded} of {total} mutants loaded"
    );
    assert!(error_kinds.len() >= 5, "{error_kinds:?}");
}

#[test]
fn every_truncation_is_an_error_or_a_load() {
    for (name, original) in common::all_fixture_files() {
        // Every prefix of the headers and tables, and a stride through the rest.
        let step = if original.len() > 16_384 { 7 } else { 1 };
        for cut in (0..original.len()).step_by(step) {
            let _ = exercise(&original[..cut]);
        }
        assert!(
            CodeObject::parse_any(&original[..original.len() / 2]).is_err(),
            "{name}"
        );
    }
}

fn fixture_strategy() -> impl Strategy<
    Value = (
        usize,
        Vec<(prop::sample::Index, u8)>,
        Option<prop::sample::Index>,
    ),
> {
    (
        0usize..64,
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..12),
        prop::option::of(any::<prop::sample::Index>()),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random byte overwrites at random places (anywhere, or inside the structures) plus an
    /// optional truncation.
    #[test]
    fn proptest_mutations_never_panic((which, writes, cut) in fixture_strategy()) {
        let files = common::all_fixture_files();
        let (_, original) = &files[which % files.len()];
        let hot = hot_ranges(original);
        let mut b = original.clone();
        for (i, (idx, value)) in writes.iter().enumerate() {
            let pos = if i % 2 == 0 {
                let (s, e) = hot[idx.index(hot.len())];
                s + idx.index((e - s).max(1))
            } else {
                idx.index(b.len())
            };
            if pos < b.len() {
                b[pos] = *value;
            }
        }
        if let Some(cut) = cut {
            let at = cut.index(b.len() + 1);
            b.truncate(at);
        }
        let _ = exercise(&b);
    }
}
