//! `rdna2spv run --backend both`: the device (lavapipe) and the host evaluator run the same kernel on the same
//! device addresses and must agree bit for bit (exit 0); an atomics kernel's tickets are compared as a
//! multiset because the order is not defined (`unordered = true` in its manifest).

use std::path::Path;
use std::process::Command;

#[test]
fn host_and_device_agree_through_the_cli() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("rdna2spv-both-{}", std::process::id()));
    for m in ["saxpy", "reduce_w64", "atomics"] {
        let manifest = root.join("fixtures/run").join(format!("{m}.toml"));
        let r = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
            .args(["run", "--backend", "both", "--out"])
            .arg(&out)
            .arg(&manifest)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(0), "{m}: {err}");
        assert!(err.contains("agree bit for bit"), "{m}: {err}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
