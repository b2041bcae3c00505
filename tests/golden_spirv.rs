//! Every run fixture translates to SPIR-V that `spirv-val --target-env vulkan1.3` accepts. The golden
//! disassembly that lived here (fixtures/spirv/*.spvasm, re-blessed by hand) is now insta snapshots in
//! tests/snapshots.rs (tests/snapshots/spirv/, the same text; D171).

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tool(name: &str, args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(name)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{name} is required (apt-get install spirv-tools): {e}"))
}

/// Every run fixture's kernel translates (portable profile, its manifest's workgroup) to a module spirv-val
/// accepts, except the kernels `tests/fixtures_run.rs` lists as pending, which must fail with a clear error.
#[test]
fn every_fixture_translates_to_valid_spirv() {
    const PENDING: [&str; 0] = [];
    let tmp = std::env::temp_dir().join(format!("rdna2spv-val-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join("fixtures/run")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let m = rdna2spv::manifest::Manifest::load(&path).unwrap();
        let co = m.resolve(m.code_object.as_ref().unwrap());
        let wg = format!("{},{},{}", m.workgroup[0], m.workgroup[1], m.workgroup[2]);
        let spv = tmp.join(format!("{name}.spv"));
        let mut args: Vec<std::ffi::OsString> = vec![
            "translate".into(),
            "--profile".into(),
            "portable".into(),
            "--workgroup".into(),
            wg.into(),
        ];
        if let Some(k) = &m.kernel {
            args.push("--kernel".into());
            args.push(k.into());
        }
        args.push("-o".into());
        args.push(spv.clone().into());
        args.push(co.into());
        let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
            .args(&args)
            .output()
            .unwrap();
        if PENDING.contains(&name.as_str()) {
            assert_eq!(
                out.status.code(),
                Some(2),
                "{name} is pending but translated"
            );
            assert!(String::from_utf8_lossy(&out.stderr).contains("not supported yet"));
            continue;
        }
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let val = tool(
            "spirv-val",
            &[
                "--target-env".as_ref(),
                "vulkan1.3".as_ref(),
                spv.as_os_str(),
            ],
        );
        assert!(
            val.status.success(),
            "{name}: spirv-val: {}",
            String::from_utf8_lossy(&val.stderr)
        );
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} fixtures translated");
    let _ = std::fs::remove_dir_all(&tmp);
}
