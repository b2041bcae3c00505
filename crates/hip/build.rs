//! Exports the runtime with ROCm's symbol versions. `abi.txt` lists every function ROCm's libamdhip64.so.5
//! defines with its version (`hipMalloc hip_4.2`, `hipMallocAsync hip_5.1`, …; measured, D156). This script
//!
//! * writes the version script defining the nodes hip_4.2 … hip_5.2, each inheriting the one before, as
//!   ROCm's library does (a program that needs `hip_5.1` loads only if the node exists);
//! * generates `exports.rs`: for every name of `abi.txt` that `src/` does not implement (`extern "C" fn
//!   NAME`), a stub that stops the program naming the call (exit 2), and for every export a `.symver` line
//!   giving it its version (rustc's own anonymous version script otherwise wins over ours), plus the
//!   `EXPORTS` table.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The feature an unimplemented call belongs to, for its message.
fn feature(name: &str) -> Option<&'static str> {
    let table: &[(&str, &str)] = &[
        ("hipGraph", "graphs"),
        ("hipStreamBeginCapture", "graphs (stream capture)"),
        ("hipStreamEndCapture", "graphs (stream capture)"),
        ("hipStreamIsCapturing", "graphs (stream capture)"),
        ("hipStreamGetCaptureInfo", "graphs (stream capture)"),
        ("hipTex", "textures"),
        ("hipBindTexture", "textures"),
        ("hipUnbindTexture", "textures"),
        ("hipGetTexture", "textures"),
        ("hipCreateTextureObject", "texture objects"),
        ("hipDestroyTextureObject", "texture objects"),
        ("hipGetTextureObject", "texture objects"),
        ("hipModuleGetTexRef", "textures"),
        ("hipCreateSurfaceObject", "surface objects"),
        ("hipDestroySurfaceObject", "surface objects"),
        ("hipMallocArray", "arrays"),
        ("hipMalloc3DArray", "arrays"),
        ("hipArray", "arrays"),
        ("hipFreeArray", "arrays"),
        ("hipMallocMipmappedArray", "arrays"),
        ("hipMemcpyToArray", "arrays"),
        ("hipMemcpyFromArray", "arrays"),
        ("hipMemcpy2DToArray", "arrays"),
        ("hipMemcpy2DFromArray", "arrays"),
        ("hipMemcpyAtoH", "arrays"),
        ("hipMemcpyHtoA", "arrays"),
        ("hipMallocManaged", "managed memory"),
        ("hipMemAdvise", "managed memory"),
        ("hipMemPrefetchAsync", "managed memory"),
        ("hipMemRangeGetAttribute", "managed memory"),
        ("hipLaunchCooperativeKernel", "cooperative launches"),
        ("hipModuleLaunchCooperativeKernel", "cooperative launches"),
        ("hipMallocAsync", "stream-ordered allocation"),
        ("hipFreeAsync", "stream-ordered allocation"),
        ("hipMemPool", "stream-ordered allocation"),
        ("hipIpc", "inter-process memory"),
        ("hipCtx", "contexts"),
        ("hipDevicePrimaryCtx", "contexts"),
        ("hipMemCreate", "virtual memory management"),
        ("hipMemMap", "virtual memory management"),
        ("hipMemAddressReserve", "virtual memory management"),
        ("hipExtMallocWithFlags", "extended allocation flags"),
        ("hiprtc", "runtime compilation"),
        ("__gnu_", "half-precision conversion helpers"),
    ];
    table
        .iter()
        .find(|(p, _)| name.starts_with(p))
        .map(|(_, f)| *f)
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=abi.txt");
    println!("cargo:rerun-if-changed=src");
    let abi_text = std::fs::read_to_string(dir.join("abi.txt")).expect("abi.txt");
    let mut abi: BTreeMap<String, String> = BTreeMap::new();
    for line in abi_text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut f = line.split_whitespace();
        let (n, v) = (f.next().expect("name"), f.next().expect("version"));
        abi.insert(n.to_string(), v.to_string());
    }
    // What src/ implements: `extern "C" fn NAME(`.
    let mut implemented = Vec::new();
    for entry in std::fs::read_dir(dir.join("src")).expect("src") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("source");
            for part in text.split("extern \"C\" fn ").skip(1) {
                let name: String = part
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    implemented.push(name);
                }
            }
        }
    }
    implemented.sort();
    implemented.dedup();

    let mut versions: Vec<String> = abi.values().cloned().collect();
    versions.push("hip_4.2".into());
    versions.sort_by_key(|v| {
        v.trim_start_matches("hip_")
            .split('.')
            .map(|p| p.parse::<u32>().unwrap_or(0))
            .collect::<Vec<_>>()
    });
    versions.dedup();
    let mut map = String::from("/* Generated by crates/hip/build.rs from abi.txt. */\n");
    for (i, v) in versions.iter().enumerate() {
        if i == 0 {
            writeln!(
                map,
                "{v} {{\n  global:\n    hip*;\n    __hip*;\n  local:\n    *;\n}};"
            )
            .unwrap();
        } else {
            writeln!(map, "{v} {{\n}} {};", versions[i - 1]).unwrap();
        }
    }
    let map_path = out.join("hip.map");
    std::fs::write(&map_path, map).expect("writing hip.map");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        map_path.display()
    );
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libamdhip64.so.5");

    let mut rs = String::from("// Generated by crates/hip/build.rs from abi.txt and src/.\n\n");
    let mut all: BTreeMap<String, String> = BTreeMap::new();
    for name in &implemented {
        all.insert(
            name.clone(),
            abi.get(name).cloned().unwrap_or_else(|| "hip_4.2".into()),
        );
    }
    for (name, version) in &abi {
        if implemented.contains(name) {
            continue;
        }
        all.insert(name.clone(), version.clone());
        let what = match feature(name) {
            Some(f) => format!("{name} ({f})"),
            None => name.clone(),
        };
        writeln!(
            rs,
            "#[no_mangle]\npub extern \"C\" fn {name}() -> i32 {{\n    crate::entry({name:?}, || crate::error::unsupported({what:?}))\n}}\n"
        )
        .unwrap();
    }
    rs.push_str("std::arch::global_asm!(concat!(\n");
    for (name, version) in &all {
        writeln!(rs, "    \".symver {name}, {name}@@{version}\\n\",").unwrap();
    }
    rs.push_str("));\n\n/// Every export and its symbol version (for the tests).\npub const EXPORTS: &[(&str, &str)] = &[\n");
    for (name, version) in &all {
        writeln!(rs, "    ({name:?}, {version:?}),").unwrap();
    }
    rs.push_str("];\n");
    std::fs::write(out.join("exports.rs"), rs).expect("writing exports.rs");
}
