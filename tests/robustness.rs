//! Robustness properties of the library in `cargo test` (issue 9): the manifest parser and the whole
//! decode → lift → verify → lower pipeline are total, and every module the pipeline gives is valid SPIR-V.
//! The cargo-fuzz targets `manifest` and `translate` (crates/fuzz) explore the same properties with coverage
//! guidance; docs/robustness.md records the runs.

use proptest::prelude::*;
use rdna2spv::manifest::Manifest;
use rdna2spv::robust::{reparse, translate_words, Translated, S_ENDPGM};
use rdna2spv_codeobj::CodeObject;
use rdna2spv_isa::{decode, PrintOptions, Target};
use std::path::Path;

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig {
        cases: n,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Pieces of manifests: most keys, some values of the right type, some of the wrong one.
fn manifest_line() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "code_object",
        "code",
        "kernel",
        "grid",
        "workgroup",
        "max_steps_per_wave",
        "colour",
        "args",
        "[[args]]",
        "i32",
        "u32",
        "i64",
        "u64",
        "f16",
        "f32",
        "f64",
        "bits",
        "bytes",
        "buffer",
        "output",
        "unordered",
        "size",
    ]);
    let value = prop::sample::select(vec![
        "\"k.co\"",
        "[64,1,1]",
        "[0,1,1]",
        "[4294967295,4294967295,4294967295]",
        "[2048,1,1]",
        "[1,1]",
        "1",
        "-1",
        "0",
        "18446744073709551615",
        "9223372036854775807",
        "1.5",
        "nan",
        "inf",
        "true",
        "\"0x\"",
        "\"0xffffffffffffffffff\"",
        "\"0x12\"",
        "\"0x1_2\"",
        "\"0x_\"",
        "\"../x\"",
        "\"/tmp/x\"",
        "{ size = 16 }",
        "{ size = 18446744073709551615 }",
        "\"data.bin\"",
        "[]",
        "{}",
        "\"\"",
    ]);
    prop_oneof![
        (key.clone(), value).prop_map(|(k, v)| if k.starts_with('[') {
            k.to_string()
        } else {
            format!("{k} = {v}")
        }),
        key.prop_map(str::to_string),
        "[ -~]{0,12}",
    ]
}

proptest! {
    #![proptest_config(cases(50_000))]

    /// 2 × 5·10^4 manifests (two tests, so the halves run in parallel): parsed and checked, or an error;
    /// every argument of a parsed one interprets or errs.
    #[test]
    fn manifest_parser_never_panics_a(lines in prop::collection::vec(manifest_line(), 0..10)) {
        parse_manifest_lines(&lines)?;
    }

    #[test]
    fn manifest_parser_never_panics_b(lines in prop::collection::vec(manifest_line(), 0..10)) {
        parse_manifest_lines(&lines)?;
    }
}

fn parse_manifest_lines(lines: &[String]) -> Result<(), TestCaseError> {
    let text = lines.join("\n");
    if let Ok(m) = Manifest::parse(&text, Path::new("/nonexistent-rdna2spv-test")) {
        prop_assert!(m.workgroup.iter().map(|&w| w as u64).product::<u64>() <= 1024);
        for i in 0..m.args.len() {
            let _ = m.arg_value(i);
        }
    }
    Ok(())
}

/// A manifest that the parser accepts is really checked: the simplest valid one parses.
#[test]
fn minimal_manifest_parses() {
    let m = Manifest::parse(
        "code_object = \"k.co\"\ngrid = [64,1,1]\nworkgroup = [64,1,1]\n",
        Path::new("d"),
    )
    .unwrap();
    assert_eq!(m.resolve(Path::new("x")), Path::new("d/x"));
    let e = Manifest::parse("grid = [64,1,1]\nworkgroup = [64,1,1]\n", Path::new("d")).unwrap_err();
    assert!(format!("{e:#}").contains("code_object"), "{e:#}");
}

proptest! {
    #![proptest_config(cases(RANDOM_TRANSLATIONS))]

    /// Random words (ending in s_endpgm or not): a module rspirv parses back, or a clear refusal.
    #[test]
    fn translating_random_words_never_panics_a(words in prop::collection::vec(any::<u32>(), 0..8), wave64: bool, end: bool) {
        translate_random(words, wave64, end)?;
    }

    #[test]
    fn translating_random_words_never_panics_b(words in prop::collection::vec(any::<u32>(), 0..8), wave64: bool, end: bool) {
        translate_random(words, wave64, end)?;
    }
}

/// 2 × 5·10^4 = 10^5 random programs; random words mostly stop at decode or lift, so this is cheap.
const RANDOM_TRANSLATIONS: u32 = 50_000;

fn translate_random(mut words: Vec<u32>, wave64: bool, end: bool) -> Result<(), TestCaseError> {
    if end {
        words.push(S_ENDPGM);
    }
    match translate_words(&words, Target::Gfx1030, if wave64 { 64 } else { 32 }) {
        Translated::Module(m) => prop_assert!(reparse(&m).is_ok()),
        Translated::Refused { message, .. } => prop_assert!(!message.is_empty()),
    }
    Ok(())
}

/// Every instruction of the fixture kernels except control flow, with its kernel's wave size.
fn instruction_pool() -> Vec<(u32, Vec<u32>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kernels");
    let mut pool = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    files.sort();
    for f in files {
        let co = CodeObject::parse_any(&std::fs::read(&f).unwrap()).unwrap();
        let target = rdna2spv::dispatch::target_of(&co);
        for k in &co.kernels {
            let words: Vec<u32> = k
                .code
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let mut at = 0;
            while at < words.len() {
                let Ok(i) = decode(&words[at..], target) else {
                    at += 1;
                    continue;
                };
                let text = i.text(PrintOptions::default());
                let n = i.len();
                if ![
                    "s_branch",
                    "s_cbranch",
                    "s_endpgm",
                    "s_setpc",
                    "s_swappc",
                    "s_getpc",
                    "s_code_end",
                ]
                .iter()
                .any(|p| text.starts_with(p))
                {
                    pool.push((k.abi.wave_size, words[at..at + n].to_vec()));
                }
                at += n;
            }
        }
    }
    pool
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// 1,200 random straight-line programs of 1..12 instructions drawn from the fixtures' (lifted-family)
/// instructions: each translates to a module `spirv-val --target-env vulkan1.3` accepts, or is refused with a
/// clear Unsupported / lowering error.
#[test]
fn random_valid_programs_translate_to_valid_spirv() {
    let pool = instruction_pool();
    assert!(pool.len() > 500, "{} instructions", pool.len());
    let dir = std::env::temp_dir().join(format!("rdna2spv-random-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut modules, mut refused) = (Vec::new(), std::collections::BTreeMap::<&str, u32>::new());
    for n in 0..1200 {
        let len = 1 + rng.below(12);
        let ws = pool[rng.below(pool.len())].0;
        let mut words = Vec::new();
        for _ in 0..len {
            let (w, inst) = &pool[rng.below(pool.len())];
            if *w == ws {
                words.extend_from_slice(inst);
            }
        }
        words.push(S_ENDPGM);
        match translate_words(&words, Target::Gfx1030, ws) {
            Translated::Module(m) => {
                let path = dir.join(format!("p{n}.spv"));
                let bytes: Vec<u8> = m.iter().flat_map(|w| w.to_le_bytes()).collect();
                std::fs::write(&path, bytes).unwrap();
                modules.push((path, words));
            }
            Translated::Refused { stage, message } => {
                assert!(!message.is_empty());
                assert_ne!(
                    stage, "verify",
                    "the lifter made an invalid program: {message}\n{words:08x?}"
                );
                *refused.entry(stage).or_default() += 1;
            }
        }
    }
    eprintln!("{} modules, refused {refused:?}", modules.len());
    assert!(
        modules.len() >= 1000,
        "only {} programs translated",
        modules.len()
    );
    // spirv-val in two parallel streams (2 cores).
    let chunks: Vec<Vec<(std::path::PathBuf, Vec<u32>)>> = {
        let mut c = vec![Vec::new(), Vec::new()];
        for (i, m) in modules.into_iter().enumerate() {
            c[i % 2].push(m);
        }
        c
    };
    std::thread::scope(|s| {
        for chunk in &chunks {
            s.spawn(move || {
                for (path, words) in chunk {
                    let out = std::process::Command::new("spirv-val")
                        .args(["--target-env", "vulkan1.3"])
                        .arg(path)
                        .output()
                        .expect("spirv-val (spirv-tools) must be installed");
                    assert!(
                        out.status.success(),
                        "spirv-val rejected the module of {words:08x?}:\n{}{}",
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
}
