//! Manifest parser: any text — a checked manifest or an error, never a panic; every argument of a parsed
//! manifest interprets to a value or an error (buffer files resolve against a directory that does not exist).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rdna2spv::manifest::Manifest;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = Manifest::parse(text, Path::new("/nonexistent-rdna2spv-fuzz")) {
        for i in 0..m.args.len() {
            let _ = m.arg_value(i);
        }
    }
});
