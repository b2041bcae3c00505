//! Issue 28's fuzz over the whole `run` path on the host (a first step; decision D159 §3): every fixture
//! manifest (raw `[abi]` ones in fixtures/lane, code-object ones with every argument form in fixtures/run)
//! mutated line by line — values replaced by others of the right and the wrong type (`bits`, `bytes`,
//! sizes, grids, output names, `[[globals]]`, …), lines deleted, duplicated or added — then parsed, planned
//! and run on the host evaluator exactly as `rdna2spv run --backend host` does. The property: no panic
//! (a refusal is an error value, which `run` turns into exit 2). `RDNA2SPV_RUN_FUZZ_N` sets the number of
//! mutants (default 5,000, about 10 s in a debug build); `RDNA2SPV_RUN_FUZZ_SEED` replays a seed.
//!
//! The bases are the fixture manifests and random well-defined programs from tests/support/fuzz.rs (LDS,
//! loops, divergent control flow, barriers; raw `[abi]` manifests), each also with a random memory access
//! added (a read of the work-item's own output word before anything stores it, or a load or store far
//! past every allocation, which must stop the run with exit 2 on the host and on the device). Two long
//! jobs (`#[ignore]`, commands in docs/robustness.md): `run_path_fuzz_host_long` (10^6 mutants through the
//! in-process host path) and `run_path_fuzz_device_long` (mutants through the `rdna2spv run --backend
//! both` binary on lavapipe; property: no signal, no panic, exit 0 or 2 — exit 1 would be host ≠ device —
//! and `agree bit for bit` whenever it exits 0). `run_path_fuzz_device_sample` runs a few of those in
//! every `cargo test`.

use rdna2spv::dispatch::{run_host, Plan};
use rdna2spv::manifest::Manifest;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "support/fuzz.rs"]
mod fuzz;
#[path = "support/lane.rs"]
mod lane;

struct Rng(u64);
impl Rng {
    /// A generator per seed, every seed its own stream: the seed passes splitmix64's finaliser (a
    /// bijection of u64) into xorshift64*'s state, which must not be 0. (Before session 45 the state was
    /// `seed | 1`, so seeds 2k and 2k + 1 replayed the same mutants.)
    fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Rng(if z == 0 { 0x2545_f491_4f6c_dd1d } else { z })
    }
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

/// Where the generated programs are assembled (removed by the caller when the test passes).
fn scratch(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rdna2spv-run-fuzz-{tag}-{}", std::process::id()))
}

/// The memory access added to a generated program (before its first store, at top level).
fn access(kind: usize) -> &'static [&'static str] {
    match kind {
        // The work-item's own first output word, which nothing has stored yet (reads 0): well-defined.
        1 => &["global_load_dword v9, v16, s[0:1]", "s_waitcnt vmcnt(0)"],
        // 2^44 bytes past the output buffer: a fault on both backends (exit 2).
        2 => &[
            "v_mov_b32 v40, s0",
            "v_mov_b32 v41, s1",
            "v_add_nc_u32 v41, 0x1000, v41",
            "global_load_dword v9, v[40:41], off",
            "s_waitcnt vmcnt(0)",
        ],
        3 => &[
            "v_mov_b32 v40, s0",
            "v_mov_b32 v41, s1",
            "v_add_nc_u32 v41, 0x1000, v41",
            "global_store_dword v[40:41], v9, off",
        ],
        _ => &[],
    }
}

/// Random well-defined programs (tests/support/fuzz.rs) for `seeds` in every shape, each with one of the
/// [`access`] kinds, assembled under `root`: (directory, manifest) pairs.
fn generated(root: &Path, seeds: std::ops::Range<u32>) -> Vec<(PathBuf, String)> {
    let mut v = Vec::new();
    for seed in seeds {
        for sh in fuzz::shapes() {
            let p = fuzz::generate(seed, sh);
            let kind = (seed as usize + v.len()) % 4;
            let mut lines: Vec<String> = p.asm.lines().map(str::to_string).collect();
            let at = lines
                .iter()
                .position(|l| l.contains("global_store_dword"))
                .unwrap_or(lines.len());
            for (k, l) in access(kind).iter().enumerate() {
                lines.insert(at + k, format!("  {l}"));
            }
            let dir = root.join(format!("seed{seed}-{}-access{kind}", sh.name));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("p.s"), lines.join("\n") + "\n").unwrap();
            fuzz::assemble(&dir, sh.wave)
                .unwrap_or_else(|e| panic!("generator bug, {}: {e}", dir.display()));
            v.push((dir, p.manifest));
        }
    }
    v
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

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[test]
fn run_path_never_panics_on_mutated_manifests() {
    host_fuzz(env_or("RDNA2SPV_RUN_FUZZ_N", 3_000), 1);
}

/// The long host job: `RDNA2SPV_RUN_FUZZ_N` mutants (default 10^6) over the fixtures and 32 seeds of
/// generated programs (docs/robustness.md).
#[test]
#[ignore = "long (10^6 mutants, about 35 min in a debug build): cargo test --test run_fuzz -- --ignored run_path_fuzz_host_long --nocapture"]
fn run_path_fuzz_host_long() {
    host_fuzz(env_or("RDNA2SPV_RUN_FUZZ_N", 1_000_000), 32);
}

fn host_fuzz(n: usize, program_seeds: u32) {
    let seed: u64 = env_or("RDNA2SPV_RUN_FUZZ_SEED", 0x5eed_0028);
    let t = Instant::now();
    let mut base = manifests();
    assert!(base.len() >= 50, "{} fixture manifests", base.len());
    let root = scratch("host");
    let programs = generated(&root, 1..1 + program_seeds);
    // Every base manifest runs unmutated (else the mutants start from refusals); a generated program
    // with a far access must be refused with an error (the fault), the others must finish.
    for (dir, text) in base.iter().chain(&programs) {
        let m = Manifest::parse(text, dir).unwrap();
        let got = run_host(&mut Plan::new(&m).unwrap());
        let faults = dir.to_string_lossy().ends_with("access2")
            || dir.to_string_lossy().ends_with("access3");
        match got {
            Ok(_) if faults => panic!("{}: a far access ran to the end", dir.display()),
            Err(e) if !faults => panic!("{}: {e:#}", dir.display()),
            _ => {}
        }
    }
    let fixtures = base.len();
    base.extend(programs);
    let mut r = Rng::new(seed);
    // One mutant in 8 starts from a generated program (their runs cost ~20x a fixture's).
    let all = base.len();
    let pick = |r: &mut Rng| {
        if r.below(8) == 0 && all > fixtures {
            fixtures + r.below(all - fixtures)
        } else {
            r.below(fixtures)
        }
    };
    let (mut finished, mut refused) = (0usize, 0usize);
    for k in 0..n {
        let (dir, text) = &base[pick(&mut r)];
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
        "{n} mutants of {} bases: {finished} ran to the end on the host, {refused} refused with an \
         error, {:.1} s",
        base.len(),
        t.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&root);
    // The mutants reach the evaluator (else the property tests only the parser).
    assert!(finished * 10 >= n, "only {finished} of {n} mutants ran");
}

// ---------------------------------------------------------------------------------------------------
// The binary on lavapipe: `rdna2spv run --backend both`.

/// What one mutant did in the binary.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// Exit 0 and "agree bit for bit".
    Agreed,
    /// Exit 2 with a message (bad input, a refusal or a fault).
    Refused,
}

/// Runs `text` (a mutant of a manifest of `dir`) through the binary with `--backend both`, from a copy of
/// `dir` made of symbolic links (the manifest's relative paths resolve as in `dir`). Err: the property
/// broke (a signal, a panic, an exit code other than 0 and 2, exit 0 without agreement, a partial output).
fn run_binary(work: &Path, dir: &Path, text: &str, k: usize) -> Result<Outcome, String> {
    let mirror = work.join(format!("m-{}", dir.file_name().unwrap().to_string_lossy()));
    if !mirror.exists() {
        std::fs::create_dir_all(&mirror).unwrap();
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            std::os::unix::fs::symlink(e.path(), mirror.join(e.file_name())).unwrap();
        }
    }
    let toml = mirror.join(format!("mutant-{k}.toml"));
    std::fs::write(&toml, text).unwrap();
    let out_dir = work.join(format!("out-{k}"));
    let out = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("run")
        .arg(&toml)
        .args(["--backend", "both", "--timeout-ms", "120000", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let _ = std::fs::remove_file(&toml);
    let wrote = out_dir.exists() && std::fs::read_dir(&out_dir).unwrap().next().is_some();
    let _ = std::fs::remove_dir_all(&out_dir);
    let verdict = match out.status.code() {
        _ if stderr.contains("panicked") => Err("a panic".to_string()),
        None => Err(format!("a signal ({:?})", out.status)),
        Some(0) if stderr.contains("agree bit for bit") => Ok(Outcome::Agreed),
        Some(0) => Err("exit 0 without the host ≡ device verdict".to_string()),
        Some(2) if wrote => Err("exit 2 after writing an output".to_string()),
        Some(2) if stderr.trim().is_empty() => Err("exit 2 without a message".to_string()),
        Some(2) => Ok(Outcome::Refused),
        Some(1) => Err(DIFFER.to_string()),
        Some(c) => Err(format!("exit {c}")),
    };
    verdict.map_err(|why| {
        format!(
            "{why}\nmanifest (in {}):\n{text}\nstderr:\n{stderr}",
            dir.display()
        )
    })
}

/// How `run_binary` names exit 1.
const DIFFER: &str = "exit 1: host and device differ";

/// Whether `mutant`, a mutant of the raw-[abi] manifest `base` (a generated program, D148, or a fixture of
/// fixtures/lane), changed its `[abi]` or its workgroup size. Such programs compute their output addresses
/// from those launch facts (the workgroup id SGPRs, the workgroup size passed as an SGPR constant, a size
/// written into the code), so the change can make two workgroups write the same words: a write race whose
/// result depends on the order the workgroups run in, on which the host evaluator (in order) and a device
/// (any order) legitimately differ. Found by the 10^4 run (docs/robustness.md): a deleted `workgroup_id`
/// line (seed 2 w64_partial, barrier_meet) and a deleted workgroup-size constant (ids_split_w64). Host ≡
/// device is required of every other mutant and of every base. False for code-object manifests (their ABI
/// is the code object's, and their kernels read the workgroup size from the dispatch packet).
fn raw_launch_changed(dir: &Path, base: &str, mutant: &str) -> bool {
    let launch = |t: &str| {
        Manifest::parse(t, dir)
            .ok()
            .and_then(|m| m.abi.map(|a| format!("{a:?} {:?}", m.workgroup)))
    };
    match (launch(base), launch(mutant)) {
        (Some(b), m) => m.as_ref() != Some(&b),
        (None, _) => false,
    }
}

/// The classification above on the three mutants the 10^4 run found: each one line of its fixture's or
/// generated program's `[abi]` deleted (each made two workgroups write the same words).
#[test]
fn mutants_that_change_a_raw_launch_are_told_apart() {
    let lane = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lane");
    for (file, line) in [
        ("barrier_meet.toml", "{ reg = 6, workgroup_id = 0 },"),
        ("ids_split_w64.toml", "{ reg = 7, u32 = 3 },"),
    ] {
        let base = std::fs::read_to_string(lane.join(file)).unwrap();
        assert!(base.contains(line), "{file}");
        let mutant: String = base
            .lines()
            .filter(|l| l.trim() != line)
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(raw_launch_changed(&lane, &base, &mutant), "{file}");
        assert!(!raw_launch_changed(&lane, &base, &base), "{file}");
        // A changed grid keeps the property: the addresses do not depend on it.
        let grid = base.replacen("grid = [", "grid = [1, 1, 1]\n# was [", 1);
        assert!(!raw_launch_changed(&lane, &base, &grid), "{file}");
    }
    // A code-object manifest: never excused.
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/run");
    let saxpy = std::fs::read_to_string(run.join("saxpy.toml")).unwrap();
    let wg = saxpy.replacen("workgroup = [", "workgroup = [32, 1, 1]\n# was [", 1);
    assert!(!raw_launch_changed(&run, &saxpy, &wg));
}

/// `n` mutants (and first every base unmutated) through the binary; panics listing every broken one.
fn device_fuzz(n: usize, program_seeds: u32, fixtures_every: usize) {
    let seed: u64 = env_or("RDNA2SPV_RUN_FUZZ_SEED", 0xdef1_0028);
    let t = Instant::now();
    let work = scratch("device");
    let programs = generated(&work.join("programs"), 1..1 + program_seeds);
    let fixtures: Vec<(PathBuf, String)> =
        manifests().into_iter().step_by(fixtures_every).collect();
    let base: Vec<(PathBuf, String)> = fixtures.into_iter().chain(programs).collect();
    let mut r = Rng::new(seed);
    let (mut agreed, mut refused, mut skipped) = (0usize, 0usize, 0usize);
    let mut broken = Vec::new();
    // Mutants of raw-[abi] manifests whose [abi] or workgroup changed and whose results differ: see
    // `raw_launch_changed` (counted, printed, not a property violation).
    let mut raced = 0usize;
    let total = base.len() + n;
    for k in 0..total {
        let (dir, base_text) = &base[if k < base.len() {
            k
        } else {
            r.below(base.len())
        }];
        let text = if k < base.len() {
            base_text.clone()
        } else {
            mutate(&mut r, base_text)
        };
        // The grid bounds the cost (as in the host fuzz): huge grids stop at parse and plan.
        if let Ok(m) = Manifest::parse(&text, dir) {
            if m.grid.iter().map(|&g| g as u64).product::<u64>() > 1 << 14 {
                skipped += 1;
                continue;
            }
        }
        match run_binary(&work, dir, &text, k) {
            Ok(Outcome::Agreed) => agreed += 1,
            Ok(Outcome::Refused) => refused += 1,
            Err(e)
                if e.starts_with(DIFFER)
                    && k >= base.len()
                    && raw_launch_changed(dir, base_text, &text) =>
            {
                raced += 1;
                eprintln!(
                    "execution {k}: host and device differ, but the mutant changed the raw [abi] or \
                     workgroup its addresses are computed from (it may race; not checked)"
                );
            }
            Err(e) => {
                eprintln!("execution {k}: {e}");
                broken.push(format!(
                    "execution {k} (RDNA2SPV_RUN_FUZZ_SEED={seed}): {e}"
                ));
            }
        }
        if (k + 1) % 100 == 0 {
            eprintln!(
                "{} executions: {agreed} agreed, {refused} exit 2, {skipped} skipped, {raced} differ under a \
                 changed raw launch, {} broken, {:.0} s",
                k + 1,
                broken.len(),
                t.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!(
        "{total} executions of rdna2spv run --backend both ({} bases): {agreed} agreed bit for bit, \
         {refused} exit 2, {skipped} skipped (grid), {raced} differ under a changed raw launch, {} broken, \
         {:.1} s",
        base.len(),
        broken.len(),
        t.elapsed().as_secs_f64()
    );
    assert!(broken.is_empty(), "{}", broken.join("\n\n"));
    let _ = std::fs::remove_dir_all(&work);
    assert!(agreed > 0, "nothing ran to the end on both backends");
}

/// In every `cargo test`: every 16th fixture manifest and the programs of one seed (each shape) unmutated,
/// then 8 mutants, through the binary on lavapipe (about 20 executions).
#[test]
fn run_path_fuzz_device_sample() {
    device_fuzz(env_or("RDNA2SPV_RUN_FUZZ_DEVICE_N", 8), 1, 16);
}

/// The long device job (docs/robustness.md): `RDNA2SPV_RUN_FUZZ_DEVICE_N` mutants (default 10^4).
#[test]
#[ignore = "long (10^4 lavapipe executions, about 20 min): cargo test --test run_fuzz -- --ignored run_path_fuzz_device_long --nocapture"]
fn run_path_fuzz_device_long() {
    device_fuzz(env_or("RDNA2SPV_RUN_FUZZ_DEVICE_N", 10_000), 16, 1);
}
