//! Golden test: every scalar instruction (SOP*, SMEM) in the fixture kernels' llvm-objdump-19 listings
//! (fixtures/kernels/*.objdump.txt, code compiled by clang-19) decodes to the same length and text.

use rdna2spv_isa::{decode, decode::classify, Format, PrintOptions, Target};

const SCALAR: [Format; 6] = [
    Format::SOP2,
    Format::SOPK,
    Format::SOP1,
    Format::SOPC,
    Format::SOPP,
    Format::SMEM,
];

#[test]
fn scalar_lines_of_the_fixture_listings() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/kernels");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).expect("fixtures/kernels") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".objdump.txt") {
            continue;
        }
        // The wave size changes only lane-mask printing, which the scalar formats do not have; print with
        // the kernel's own anyway.
        let opts = PrintOptions {
            wave64: name.contains("_w64"),
        };
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            // `\t<text>  // <offset>: <WORDS> [<symbol+off>]`
            let Some((text, rest)) = line.split_once("//") else {
                continue;
            };
            let Some((_, words)) = rest.split_once(": ") else {
                continue;
            };
            let words: Vec<u32> = words
                .split_whitespace()
                .map_while(|w| u32::from_str_radix(w, 16).ok().filter(|_| w.len() == 8))
                .collect();
            let Some(&w0) = words.first() else { continue };
            if !classify(w0).is_some_and(|f| SCALAR.contains(&f)) {
                continue;
            }
            let i =
                decode(&words, Target::Gfx1030).unwrap_or_else(|e| panic!("{name}: {line}: {e}"));
            assert_eq!(i.len(), words.len(), "{name}: {line}");
            assert_eq!(i.text(opts), text.trim(), "{name}: {line}");
            checked += 1;
        }
    }
    assert!(checked > 900, "only {checked} scalar lines found");
}
