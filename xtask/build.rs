//! Detects which `cargo xtask bench` section modules exist (xtask/src/bench_<name>.rs for the sections owned
//! by other engineers) and sets `cfg(has_bench_<name>)`, so that a section joins `cargo xtask bench all` as soon
//! as its file is added, with no edit to main.rs or bench.rs (contract: xtask/src/bench.rs, decision D087).
fn main() {
    println!("cargo::rerun-if-changed=src");
    for name in ["eval", "device", "lane", "hip"] {
        println!("cargo::rustc-check-cfg=cfg(has_bench_{name})");
        println!("cargo::rustc-check-cfg=cfg(has_file_{name})");
        let path = format!("src/bench_{name}.rs");
        if let Ok(text) = std::fs::read_to_string(&path) {
            // The file exists (its module is declared); it joins `bench` once it follows the section contract.
            println!("cargo::rustc-cfg=has_file_{name}");
            if text.contains("pub fn section(") {
                println!("cargo::rustc-cfg=has_bench_{name}");
            }
        }
    }
}
