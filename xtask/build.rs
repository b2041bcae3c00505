//! Detects which `cargo xtask bench` section modules exist (xtask/src/bench_<name>.rs for the sections owned
//! by other engineers) and sets `cfg(has_bench_<name>)`, so that a section joins `cargo xtask bench all` as soon
//! as its file is added, with no edit to main.rs or bench.rs (contract: xtask/src/bench.rs, decision D087).
fn main() {
    println!("cargo::rerun-if-changed=src");
    for name in ["eval", "device", "lane"] {
        println!("cargo::rustc-check-cfg=cfg(has_bench_{name})");
        if std::path::Path::new(&format!("src/bench_{name}.rs")).exists() {
            println!("cargo::rustc-cfg=has_bench_{name}");
        }
    }
}
