//! `rdna2spv disasm` on every fixture code object prints exactly what llvm-objdump-19 printed for it
//! (fixtures/kernels/*.objdump.txt, made by `cargo xtask fixtures` with `llvm-objdump-19 -d --mcpu=gfx1030`,
//! plus `--mattr=+wavefrontsize64` for wave64 objects).

use std::path::Path;
use std::process::Command;

#[test]
fn listings_match_llvm_objdump() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kernels");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("co") {
            continue;
        }
        let golden = path.with_extension("objdump.txt");
        let expected = std::fs::read_to_string(&golden)
            .unwrap_or_else(|_| panic!("missing {}", golden.display()));
        let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
            .arg("disasm")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let ours = String::from_utf8(out.stdout).unwrap();
        let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), expected.lines().collect());
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert_eq!(x, y, "{} line {}", path.display(), i + 1);
        }
        assert_eq!(a.len(), b.len(), "{}: line count", path.display());
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} fixtures found");
}
