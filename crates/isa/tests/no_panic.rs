//! The decoder and printer are total: any words, any length, any target — a result or an error, never a
//! panic. (The cargo-fuzz target `decode` in fuzz/ explores the same property with coverage guidance.)

use proptest::prelude::*;
use rdna2spv_isa::{decode, decode_bytes, PrintOptions, Target};

proptest! {
    #![proptest_config(ProptestConfig { cases: 50_000, .. ProptestConfig::default() })]

    #[test]
    fn decode_and_print_never_panic(words in proptest::collection::vec(any::<u32>(), 0..6), t in 0usize..3, wave64: bool) {
        let target = Target::ALL[t];
        for n in 0..=words.len() {
            if let Ok(i) = decode(&words[..n], target) {
                prop_assert!(!i.is_empty() && i.len() <= n);
                let _ = i.text(PrintOptions { wave64 });
                let _ = i.branch_target(0x1000);
            }
        }
    }

    #[test]
    fn decode_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..24)) {
        if let Ok(i) = decode_bytes(&bytes, Target::Gfx1030) {
            prop_assert!(i.len() * 4 <= bytes.len());
            let _ = i.text(PrintOptions::default());
        }
    }
}
