//! Calls the translator cannot resolve are refused before anything runs, naming the instruction (D099):
//! a call through a function pointer (fixtures/kernels/calls.cl, kernel `fptr`, built by clang-19) and a
//! call in an unlinked object, whose offset is still a pending relocation (fixtures/kernels/multi_rel.o).
//! The calls that resolve run in tests/fixtures_run.rs (calls_*, multi_*, clang-19) and here (hipcc 5.2.3).

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// `rdna2spv translate` and `run --backend both`-free checks: exit 2, the message, and no output file.
fn refused(co: &str, kernel: &str, needles: &[&str]) {
    let out_dir =
        std::env::temp_dir().join(format!("rdna2spv-calls-{}-{kernel}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let spv = out_dir.join("k.spv");
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["translate", "--kernel", kernel, "-o"])
        .arg(&spv)
        .arg(fixture(co))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for n in needles {
        assert!(err.contains(n), "expected {n:?} in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!spv.exists(), "a refused kernel left an output file");
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn a_call_through_a_function_pointer_is_refused() {
    refused(
        "fixtures/kernels/calls.co",
        "fptr",
        &[
            "unsupported instruction s_swappc_b64 s[30:31], s[6:7] at fptr+0xc0",
            "the call target is not known at translation time",
        ],
    );
}

#[test]
fn a_call_in_an_unlinked_object_is_refused() {
    refused(
        "fixtures/kernels/multi_rel.o",
        "first",
        &[
            "unsupported instruction s_swappc_b64 s[30:31], s[4:5] at first+0x6c",
            "is not the entry of a function of this code object",
        ],
    );
}

/// fixtures/hip/calls.hip (hipcc 5.2.3, code object v4): a helper with a loop, called from two sites, run on
/// lavapipe and on the host at the device's addresses; both equal Rust's wrapping integer ops on the
/// source's definition.
// coverage: hip_calls: S_GETPC_B64 S_SWAPPC_B64 S_SETPC_B64
#[test]
fn hip_calls() {
    use rdna2spv::device::{open, profile_of, run_vulkan, ProfileChoice};
    use rdna2spv::dispatch::{run_host_at, Plan};
    let m = rdna2spv::manifest::Manifest::load(&fixture("fixtures/hip/calls.toml")).unwrap();
    let mut plan = Plan::new(&m).unwrap();
    let ctx = open(None).unwrap();
    let profile = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let dev = run_vulkan(&ctx, &mut plan, &profile).unwrap();
    let (host, _) = run_host_at(&plan, &dev.addresses).unwrap();
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let x = words(&std::fs::read(fixture("fixtures/aco/control.x.in.bin")).unwrap());
    let mix = |a: u32, b: u32, k: i32| {
        let mut r = a;
        for i in 0..k {
            r = r.wrapping_mul(2_654_435_761).wrapping_add(b ^ i as u32);
        }
        r
    };
    let want: Vec<u32> = x
        .iter()
        .map(|&v| mix(v, 7, 5 + (v & 3) as i32) ^ mix(v >> 3, 11, 5))
        .collect();
    let h = host.iter().find(|b| b.name == "out").unwrap();
    let d = dev.buffers.iter().find(|b| b.name == "out").unwrap();
    assert_eq!(words(&h.data), want, "host");
    assert_eq!(words(&d.data), want, "lavapipe");
}
