//! Shared helpers of the integration tests.
#![allow(dead_code)]

use std::io::Write;
use std::process::Command;

use rdna2spv_vulkan::{Context, DeviceSelector};

/// Opens lavapipe (or the device `RDNA2SPV_VK_DEVICE` names), or fails with a message saying how to get it
/// (CI installs mesa-vulkan-drivers).
pub fn lavapipe() -> Context {
    match Context::new(DeviceSelector::from_env_or_lavapipe()) {
        Ok(c) => c,
        Err(e) => panic!(
            "this test needs lavapipe (Mesa's CPU Vulkan driver) and could not open it: {e}\n\
             install it with: apt-get install -y --no-install-recommends libvulkan1 mesa-vulkan-drivers"
        ),
    }
}

/// Runs `spirv-val --target-env vulkan1.3` on `words`; panics with its output when it rejects them.
pub fn spirv_val(name: &str, words: &[u32]) {
    let dir = std::env::temp_dir().join(format!("rdna2spv-vulkan-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // One file per call: tests of one binary run in parallel and may validate modules of the same name.
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = SEQ.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let path = dir.join(format!("{name}-{k}.spv"));
    let mut f = std::fs::File::create(&path).unwrap();
    for w in words {
        f.write_all(&w.to_le_bytes()).unwrap();
    }
    drop(f);
    let out = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| {
            panic!("spirv-val could not be run ({e}); install spirv-tools (apt-get install spirv-tools)")
        });
    assert!(
        out.status.success(),
        "spirv-val rejected module {name} ({}):\n{}{}",
        path.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_file(&path);
}
