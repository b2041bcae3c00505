//! Golden SPIR-V: the disassembly (`spirv-dis`) of two translated fixtures, checked in under fixtures/spirv/.
//! A change to the lowering shows up as a reviewable diff. Re-bless with `RDNA2SPV_BLESS=1 cargo test --test
//! golden_spirv`. Every module must also pass `spirv-val --target-env vulkan1.3`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn translate(co: &str, workgroup: &str, mapping: &str, out: &Path) {
    let st = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args([
            "translate",
            "--profile",
            "portable",
            "--mapping",
            mapping,
            "--workgroup",
            workgroup,
            "-o",
        ])
        .arg(out)
        .arg(root().join("fixtures/kernels").join(co))
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "translate {co}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
}

fn tool(name: &str, args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(name)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{name} is required (apt-get install spirv-tools): {e}"))
}

#[test]
fn translated_fixtures_match_their_golden_disassembly() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-golden-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    // Both mappings (the wave mapping is the reference, D006; the lane mapping is `auto`'s usual choice,
    // D082, D126).
    for (co, wg, mapping, golden) in [
        ("saxpy.co", "64,1,1", "wave", "saxpy.spvasm"),
        ("reduce.co", "128,1,1", "wave", "reduce.spvasm"),
        ("saxpy.co", "64,1,1", "lane", "saxpy_lane.spvasm"),
        ("reduce.co", "128,1,1", "lane", "reduce_lane.spvasm"),
    ] {
        let spv = tmp.join(golden).with_extension("spv");
        translate(co, wg, mapping, &spv);
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
            "{co}: spirv-val: {}",
            String::from_utf8_lossy(&val.stderr)
        );
        let dis = tool("spirv-dis", &["--raw-id".as_ref(), spv.as_os_str()]);
        assert!(dis.status.success());
        let text = String::from_utf8(dis.stdout).unwrap();
        let path = root().join("fixtures/spirv").join(golden);
        if std::env::var_os("RDNA2SPV_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("missing {} (bless with RDNA2SPV_BLESS=1)", path.display()));
        if text != expected {
            let line = text
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "{co}: the translation changed (first difference at line {}: got {:?}, golden {:?}); review and \
                 re-bless with RDNA2SPV_BLESS=1",
                line + 1,
                text.lines().nth(line),
                expected.lines().nth(line)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
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
