//! Issue 28's fuzz over the whole `run` path on the host (a first step; decision D159 §3): every fixture
//! manifest (raw `[abi]` ones in fixtures/lane, code-object ones with every argument form in fixtures/run)
//! mutated line by line — values replaced by others of the right and the wrong type (`bits`, `bytes`,
//! sizes, grids, output names, `[[globals]]`, …), lines deleted, duplicated or added — then parsed, planned
//! and run on the host evaluator exactly as `rdna2spv run --backend host` does. The property: no panic
//! (a refusal is an error value, which `run` turns into exit 2). `RDNA2SPV_RUN_FUZZ_N` sets the number of
//! mutants (default 5,000, about 10 s in a debug build); `RDNA2SPV_RUN_FUZZ_SEED` replays a seed.
//! Not yet here: random programs (tests/support/fuzz.rs) and the device side (host ≡ lavapipe).

use rdna2spv::dispatch::{run_host, Plan};
use rdna2spv::manifest::Manifest;
use std::path::{Path, PathBuf};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "3",
    "64",
    "4294967295",
    "18446744073709551615",
    "1.5",
    "nan",
    "true",
    "\"\"",
    "\"0x\"",
    "\"0x12\"",
    "\"0xffffffffffffffffffffffffffffffffffffffff\"",
    "\"../x\"",
    "\"/tmp/x\"",
    "\"out\"",
    "\"x\"",
    "[64, 1, 1]",
    "[1, 1, 1]",
    "[0, 1, 1]",
    "[32, 2, 1]",
    "[1024, 1, 1]",
    "[128, 1, 1]",
    "[1, 1]",
    "{ size = 16 }",
    "{ size = 0 }",
    "{ bits = \"0x01\" }",
    "{ bytes = \"missing.bin\" }",
    "[]",
    "{}",
    "\"0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20\"",
    "\"0x8000_0000_0000_0000\"",
    "\"branchy.in.bin\"",
    "\"hoist_x.bin\"",
];

const ARG_KEYS: &[&str] = &[
    "u32", "i32", "u64", "i64", "f16", "f32", "f64", "bits", "bytes", "buffer",
];

/// Every argument form of docs/manifest.md, with values that fit and values that do not.
const ARG_FORMS: &[&str] = &[
    "u32 = 7",
    "u32 = -1",
    "i32 = -5",
    "u64 = 18446744073709551615",
    "i64 = -3",
    "f16 = 1.5",
    "f32 = nan",
    "f64 = -0.0",
    "bits = \"0x01\"",
    "bits = \"0x\"",
    "bits = \"0xg1\"",
    "bits = \"0x8000_0000_0000_0000\"",
    "bits = \"0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20\"",
    "bytes = \"branchy.in.bin\"",
    "bytes = \"missing.bin\"",
    "buffer = { size = 64 }",
    "buffer = { size = 0 }",
    "buffer = \"branchy.in.bin\"",
    "buffer = \"missing.bin\"",
];

/// Argument and buffer keys: a mutant's line may change its form (`u32 = 3` → `bits = "0x…"`).
const KEYS: &[&str] = &[
    "u32",
    "i32",
    "u64",
    "i64",
    "f16",
    "f32",
    "f64",
    "bits",
    "bytes",
    "buffer",
    "output",
    "size",
    "file",
    "name",
    "address",
    "reg",
    "grid",
    "workgroup",
    "wave_size",
    "code",
    "kernel",
];

const LINES: &[&str] = &[
    "[[args]]",
    "[[buffers]]",
    "[[globals]]",
    "[abi]",
    "name = \"g\"",
    "name = \"out\"",
    "bits = \"0x0102\"",
    "bytes = \"missing.bin\"",
    "size = 8",
    "output = true",
    "buffer = { size = 64 }",
    "u32 = 7",
    "f32 = 1.0",
    "i64 = -3",
    "sgpr = [{ reg = 0, address = \"out\" }]",
    "vgpr_workitem_ids = 1",
    "wave_size = 64",
    "max_steps_per_wave = 1000",
];

fn manifests() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = Vec::new();
    for dir in ["fixtures/lane", "fixtures/run"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).unwrap();
            v.push((p.parent().unwrap().to_path_buf(), text));
        }
    }
    v
}

fn mutate(r: &mut Rng, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + r.below(2) * r.below(3) {
        let n = lines.len().max(1);
        let i = r.below(n);
        match r.below(7) {
            5 | 6 => {
                if let Some(l) = lines.get_mut(i) {
                    let arg = ARG_KEYS.iter().any(|k| l.starts_with(&format!("{k} = ")));
                    if arg {
                        // Every argument form, valid or not for this argument.
                        *l = ARG_FORMS[r.below(ARG_FORMS.len())].to_string();
                    } else if l.contains(" = ") {
                        *l = format!(
                            "{} = {}",
                            KEYS[r.below(KEYS.len())],
                            VALUES[r.below(VALUES.len())]
                        );
                    }
                }
            }
            0 | 1 => {
                if let Some(l) = lines.get_mut(i) {
                    if let Some((k, _)) = l.split_once(" = ") {
                        *l = format!("{k} = {}", VALUES[r.below(VALUES.len())]);
                    }
                }
            }
            2 => {
                if i < lines.len() {
                    lines.remove(i);
                }
            }
            3 => {
                if let Some(l) = lines.get(i).cloned() {
                    lines.insert(i, l);
                }
            }
            _ => lines.insert(i.min(lines.len()), LINES[r.below(LINES.len())].to_string()),
        }
    }
    // The fuzz bounds its own cost (a manifest that sets the key already keeps its own value).
    if !lines.iter().any(|l| l.starts_with("max_steps_per_wave")) {
        lines.insert(0, "max_steps_per_wave = 100000".into());
    }
    lines.join("\n")
}

/// One mutant through parse → plan → host run; Ok(true) when the run finished, Ok(false) when a step refused.
fn run_one(dir: &Path, text: &str) -> bool {
    let Ok(m) = Manifest::parse(text, dir) else {
        return false;
    };
    // The grid bounds the run's cost, not its correctness: skip the huge ones (parse and plan still ran).
    let items: u64 = m.grid.iter().map(|&g| g as u64).product();
    let Ok(mut plan) = Plan::new(&m) else {
        return false;
    };
    if items > 1 << 14 {
        return false;
    }
    run_host(&mut plan).is_ok()
}

#[test]
fn run_path_never_panics_on_mutated_manifests() {
    let n: usize = std::env::var("RDNA2SPV_RUN_FUZZ_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5_000);
    let seed: u64 = std::env::var("RDNA2SPV_RUN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_0028);
    let base = manifests();
    assert!(base.len() >= 50, "{} fixture manifests", base.len());
    let mut r = Rng(seed | 1);
    // Every base manifest runs unmutated (else the mutants start from refusals).
    for (dir, text) in &base {
        let m = Manifest::parse(text, dir).unwrap();
        run_host(&mut Plan::new(&m).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e:#}", dir.display()));
    }
    let (mut finished, mut refused) = (0usize, 0usize);
    for k in 0..n {
        let (dir, text) = &base[r.below(base.len())];
        let mutant = mutate(&mut r, text);
        let got = std::panic::catch_unwind(|| run_one(dir, &mutant));
        match got {
            Ok(true) => finished += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!(
                "mutant {k} (RDNA2SPV_RUN_FUZZ_SEED={seed}) panicked; manifest in {}:\n{mutant}",
                dir.display()
            ),
        }
    }
    eprintln!(
        "{n} mutants: {finished} ran to the end on the host, {refused} refused with an error"
    );
    // The mutants reach the evaluator (else the property tests only the parser).
    assert!(finished * 10 >= n, "only {finished} of {n} mutants ran");
}
