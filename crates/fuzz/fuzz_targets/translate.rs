//! decode → lift → verify → lower (portable profile) on random instruction words: a module that rspirv
//! parses back, or a clear refusal — never a panic. (`cargo test` runs spirv-val on random programs built
//! from valid instruction words: tests/translate_random.rs.)
#![no_main]
use libfuzzer_sys::fuzz_target;
use rdna2spv::robust::{reparse, translate_words, Translated, S_ENDPGM};
use rdna2spv_isa::Target;

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    let wave_size = if data[0] & 1 == 1 { 64 } else { 32 };
    let target = Target::ALL[(data[0] as usize >> 1) % Target::ALL.len()];
    let mut words: Vec<u32> = data[1..]
        .chunks_exact(4)
        .take(64)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if data[0] & 0x80 == 0 {
        words.push(S_ENDPGM);
    }
    if let Translated::Module(m) = translate_words(&words, target, wave_size) {
        if let Err(e) = reparse(&m) {
            panic!("lowered module does not parse back: {e}");
        }
    }
});
