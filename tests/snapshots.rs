//! Snapshots (insta) of what the translator makes of the fixtures, so a change to the lifter or the lowering
//! shows up in review as a diff of text rather than a hand-blessed file (decision D171):
//!
//! * the lifted IR (`rdna2spv lift`'s text) of every kernel of every code object in fixtures/kernels/, under
//!   tests/snapshots/ir/;
//! * the SPIR-V disassembly (`spirv-dis --raw-id`, portable profile; every module must pass `spirv-val
//!   --target-env vulkan1.3`) of a few fixtures, under tests/snapshots/spirv/: saxpy and reduce in both
//!   mappings (the golden SPIR-V of STYLE.md 6, formerly fixtures/spirv/*.spvasm) and, in `auto`, one per
//!   concern those do not show: structured control flow, atomics, halves.
//!
//! A kernel that does not lift is snapshotted as its error message, so a refusal that changes shows too.
//!
//! Re-bless after reviewing the change: `INSTA_UPDATE=always cargo test --test snapshots` (rewrites the .snap
//! files; `git diff tests/snapshots` shows what changed). With cargo-insta installed, `cargo insta review`
//! does the same interactively; it is not required. Without INSTA_UPDATE a mismatch fails the test and
//! leaves the new text beside the snapshot as a `.snap.new` file (not on CI, where insta writes nothing).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn settings(dir: &str) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(root().join("tests/snapshots").join(dir));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

/// The code objects of fixtures/kernels/, sorted by name.
fn code_objects() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/kernels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("co"))
        .collect();
    v.sort();
    v
}

#[test]
fn lifted_ir_of_every_fixture_kernel() {
    let _guard = settings("ir").bind_to_scope();
    let mut kernels = 0;
    for path in code_objects() {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let co = rdna2spv_codeobj::CodeObject::parse_any(&std::fs::read(&path).unwrap())
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        let mut names: Vec<&rdna2spv_codeobj::Kernel> = co.kernels.iter().collect();
        names.sort_by(|a, b| a.name.cmp(&b.name));
        for k in names {
            let text = match rdna2spv::dispatch::lift_kernel(&co, k) {
                Ok(p) => {
                    rdna2spv_ir::verify(&p).unwrap_or_else(|e| panic!("{stem}/{}: {e}", k.name));
                    p.to_string()
                }
                Err(e) => format!("lift error: {e}\n"),
            };
            insta::assert_snapshot!(format!("{stem}__{}", k.name), text);
            kernels += 1;
        }
    }
    // fixtures/kernels holds 37 code objects; a loader that lost kernels would shrink this.
    assert!(kernels >= 37, "only {kernels} kernels");
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
        "translate {co} --mapping {mapping}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
}

/// `spirv-dis --raw-id` of a translated fixture, after `spirv-val --target-env vulkan1.3` accepted it.
fn disassembly(co: &str, workgroup: &str, mapping: &str, tmp: &Path) -> String {
    let spv = tmp.join(format!("{co}.{mapping}.spv"));
    translate(co, workgroup, mapping, &spv);
    let tool = |name: &str, args: &[&std::ffi::OsStr]| {
        Command::new(name)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{name} is required (apt-get install spirv-tools): {e}"))
    };
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
        "{co} ({mapping}): spirv-val: {}",
        String::from_utf8_lossy(&val.stderr)
    );
    let dis = tool("spirv-dis", &["--raw-id".as_ref(), spv.as_os_str()]);
    assert!(dis.status.success(), "{co}: spirv-dis failed");
    String::from_utf8(dis.stdout).unwrap()
}

#[test]
fn spirv_of_selected_fixtures() {
    let _guard = settings("spirv").bind_to_scope();
    let tmp = std::env::temp_dir().join(format!("rdna2spv-snap-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for (co, wg, mapping) in [
        // The wave mapping is the reference (D006); the lane mapping is `auto`'s usual choice (D082, D126).
        // These four were tests/golden_spirv.rs's hand-blessed fixtures/spirv/*.spvasm (same text).
        ("saxpy.co", "64,1,1", "wave"),
        ("reduce.co", "128,1,1", "wave"),
        ("saxpy.co", "64,1,1", "lane"),
        ("reduce.co", "128,1,1", "lane"),
        ("branchy.co", "64,1,1", "auto"),
        ("atomics.co", "64,1,1", "auto"),
        ("half.co", "64,1,1", "auto"),
    ] {
        let text = disassembly(co, wg, mapping, &tmp);
        let stem = co.trim_end_matches(".co");
        insta::assert_snapshot!(format!("{stem}_{mapping}"), text);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
