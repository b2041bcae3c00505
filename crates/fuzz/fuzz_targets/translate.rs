//! decode → lift → verify → lower (portable profile) on random instruction words: a module that rspirv
//! parses back, or a clear refusal — never a panic. (`cargo test` runs spirv-val on random programs built
//! from valid instruction words: tests/translate_random.rs.)
#![no_main]
use libfuzzer_sys::fuzz_target;
use rdna2spv::robust::{fuzz_program, reparse, translate_words, Translated};

fuzz_target!(|data: &[u8]| {
    let Some((words, target, wave_size)) = fuzz_program(data) else {
        return;
    };
    if let Translated::Module(m) = translate_words(&words, target, wave_size) {
        if let Err(e) = reparse(&m) {
            panic!("lowered module does not parse back: {e}");
        }
    }
});
