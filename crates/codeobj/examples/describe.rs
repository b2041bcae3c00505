//! `cargo run -p rdna2spv-codeobj --example describe -- FILE [--json]`: print what the loader
//! sees in a code object, offload bundle or host object with a `.hip_fatbin` section.

use rdna2spv_codeobj::{describe, CodeObject};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: describe FILE [--json]");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    match CodeObject::parse_any(&bytes) {
        Ok(co) if args.iter().any(|a| a == "--json") => {
            println!(
                "{}",
                serde_json::to_string_pretty(&co).expect("serialisable")
            );
        }
        Ok(co) => print!("{}", describe(&co)),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    }
}
