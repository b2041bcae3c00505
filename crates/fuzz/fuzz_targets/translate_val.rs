//! The `translate` target with the real oracle: every module the pipeline produces must pass
//! `spirv-val --target-env vulkan1.3` (spawned per module, so about 100× slower than `translate`, which
//! parses modules back with rspirv). Same input format as `translate`; share its corpus.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rdna2spv::robust::{fuzz_program, translate_words, Translated};
use std::io::Write;
use std::process::{Command, Stdio};

fuzz_target!(|data: &[u8]| {
    let Some((words, target, wave_size)) = fuzz_program(data) else {
        return;
    };
    if let Translated::Module(m) = translate_words(&words, target, wave_size) {
        let bytes: Vec<u8> = m.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut child = Command::new("spirv-val")
            .args(["--target-env", "vulkan1.3", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spirv-val runs (apt-get install spirv-tools)");
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        let out = child.wait_with_output().unwrap();
        if !out.status.success() {
            panic!(
                "spirv-val rejects the module of {words:08x?} ({target:?}, wave{wave_size}): {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
});
