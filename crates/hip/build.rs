//! Links the runtime with the symbol version hipcc-built programs ask for (`hipMalloc@hip_4.2`, ...).
fn main() {
    let map = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("hip.map");
    println!("cargo:rerun-if-changed={}", map.display());
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        map.display()
    );
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libamdhip64.so.5");
}
