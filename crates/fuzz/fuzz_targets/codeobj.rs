//! Code-object loader: any bytes (ELF or offload bundle) — a code object or a LoadError, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(co) = rdna2spv_codeobj::CodeObject::parse_any(data) {
        let _ = rdna2spv_codeobj::describe(&co);
    }
});
