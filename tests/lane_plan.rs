//! `rdna2spv translate --dump-lane-plan` (decision D177): the lane plan of a fixture kernel, every decision
//! of the lane analyses as one line naming its rule (docs/lane-mapping.md), printed without writing a
//! module; the reason and exit 2 for a kernel the lane mapping refuses. The per-rule unit tests are in
//! crates/spirv/src/lower/lane/plan.rs.

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn translate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("translate")
        .args(args)
        .output()
        .expect("run rdna2spv")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn dump_lane_plan_prints_every_rule_decision_of_a_fixture() {
    let co = root().join("fixtures/kernels/reduce.co");
    let co = co.to_str().unwrap();
    let args = [
        co,
        "--kernel",
        "reduce",
        "--workgroup",
        "128",
        "--dump-lane-plan",
    ];
    let out = translate(&args);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The tree reduction: LDS shared by 4 waves, converged everywhere, every s_barrier met in place.
    for line in [
        "lane plan: wave32 workgroup 128,1,1: 4 waves per kernel workgroup",
        "L17 split: no (the kernel allocates LDS)",
        "L18 lone wave without barrier rounds: no",
        "L26/L27 one pass: yes (L27: converged, every barrier met in place)",
        "L4 label copies: 1 (L25: the whole kernel converged)",
        "L20 pass start without publication: yes",
        "block b0 #0:",
        "  L22/L27 s_barrier met in place with no test (converged)",
        "  L11-L14 vote-free EXEC branch: always goes to b2, its region reconverging",
        "  L24 chain: continues into b2 when it is the next item",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "missing `{line}` in\n{stdout}"
        );
    }
    // The tree steps' LDS addresses (L8) and the own bits of its masks (L9).
    assert!(stdout.contains("L8   %"), "{stdout}");
    assert!(stdout.contains("L9 own bits only"), "{stdout}");
    // No rule id outside L1..L44 (the rules in force, docs/lane-mapping.md).
    for w in stdout.split(|c: char| !c.is_ascii_alphanumeric()) {
        if let Some(n) = w.strip_prefix('L').and_then(|n| n.parse::<u32>().ok()) {
            assert!((1..=44).contains(&n), "rule L{n} in\n{stdout}");
        }
    }
    // Stable: the same text every time.
    assert_eq!(text(&translate(&args).stdout), stdout);
}

/// The plan's split decision (L17) is the one the emitted module carries (its split note).
#[test]
fn the_plan_and_the_module_agree_on_the_split() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-lane-plan-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for (kernel, split) in [("saxpy", true), ("reduce", false)] {
        let co = root().join(format!("fixtures/kernels/{kernel}.co"));
        let co = co.to_str().unwrap();
        let plan = translate(&[co, "--kernel", kernel, "--dump-lane-plan"]);
        assert_eq!(plan.status.code(), Some(0), "{}", text(&plan.stderr));
        let plan = text(&plan.stdout);
        assert_eq!(plan.contains("L17 split: yes"), split, "{plan}");
        let spv = tmp.join(format!("{kernel}.spv"));
        let out = translate(&[
            co,
            "--kernel",
            kernel,
            "--mapping",
            "lane",
            "-o",
            spv.to_str().unwrap(),
        ]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert_eq!(
            stderr.contains("runs as its own Vulkan workgroup"),
            split,
            "{stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn a_kernel_the_lane_mapping_refuses_gets_the_reason_and_exit_2() {
    let co = root().join("fixtures/kernels/reduce.co");
    let out = translate(&[
        co.to_str().unwrap(),
        "--kernel",
        "reduce",
        "--control-flow",
        "dispatcher",
        "--dump-lane-plan",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.contains("reduce: the lane mapping refuses the kernel")
            && stderr.contains("the dispatcher control flow not available with the lane mapping"),
        "{stderr}"
    );
}

/// `OpControlBarrier`s of a module once calls are inlined (as lavapipe meets them).
fn barriers(spv: &[u8]) -> usize {
    let words: Vec<u32> = spv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    rdna2spv_vulkan::limit::module_cost(&words).barriers
}

/// Every barrier of a lane module is one the plan decides (its `barrier sites` line), except LDS fences,
/// which are decided while emitting: equal for kernels without LDS, at most the module's count with LDS.
/// Every kernel of fixtures/kernels at two workgroup sizes.
#[test]
fn the_plan_accounts_for_every_barrier_but_the_lds_fences() {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-lane-plan-b-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut cos: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/kernels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "co"))
        .collect();
    cos.sort();
    let (mut exact, mut with_lds) = (0, 0);
    for co in &cos {
        let kernel = co.file_stem().unwrap().to_str().unwrap();
        let co = co.to_str().unwrap();
        for wg in ["64", "256"] {
            let plan = translate(&[
                co,
                "--kernel",
                kernel,
                "--workgroup",
                wg,
                "--dump-lane-plan",
            ]);
            if plan.status.code() != Some(0) {
                continue; // not this file's kernel name, or refused (calls.co)
            }
            let plan = text(&plan.stdout);
            let line = plan
                .lines()
                .find(|l| l.starts_with("barrier sites: "))
                .unwrap_or_else(|| panic!("no barrier line in\n{plan}"));
            let sites: usize = line["barrier sites: ".len()..]
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            let spv = tmp.join(format!("{kernel}-{wg}.spv"));
            let out = translate(&[
                co,
                "--kernel",
                kernel,
                "--workgroup",
                wg,
                "--mapping",
                "lane",
                "--max-module-words",
                "none",
                "-o",
                spv.to_str().unwrap(),
            ]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            let n = barriers(&std::fs::read(&spv).unwrap());
            if line.contains("LDS fences") {
                assert!(
                    sites <= n,
                    "{kernel} {wg}: plan {sites} > module {n}\n{line}"
                );
                with_lds += 1;
            } else {
                assert_eq!(sites, n, "{kernel} {wg}: {line}");
                exact += 1;
            }
        }
    }
    assert!(
        exact >= 20 && with_lds >= 4,
        "{exact} exact, {with_lds} with LDS"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
