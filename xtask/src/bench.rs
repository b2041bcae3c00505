//! `cargo xtask bench [all|decode|translate|eval|device|lane] [--quick] [--json FILE] [--no-write]`:
//! every performance figure of docs/performance.md, each a ratio against a reference measured in the same run
//! (issue 10; harness choice: decision D087).
//!
//! # Section contract (for the owners of bench_eval.rs, bench_device.rs, bench_lane.rs)
//!
//! Two shapes are accepted. (a) In-process, below. (b) An owner's own command: `bench_eval.rs` and
//! `bench_device.rs` were written as `pub fn run(args: &[String]) -> anyhow::Result<()>` commands that write
//! their own marker block (`cargo xtask bench-eval`, `cargo xtask bench device --write`); the runner calls
//! them with their full/quick arguments ([`SectionFn::Command`]), and `cargo xtask bench device <args>` is
//! handed to `bench_device::run` unchanged. Either way the file is all it takes.
//!
//! * A section is one file, `xtask/src/bench_<name>.rs`, owned by one engineer. It exposes exactly
//!
//!   ```ignore
//!   pub fn section(opts: &crate::bench::Opts) -> anyhow::Result<crate::bench::Section>
//!   ```
//!
//!   xtask/build.rs sets `cfg(has_file_<name>)` when the file exists (main.rs declares the module under it)
//!   and `cfg(has_bench_<name>)` when it also defines `pub fn section(`, so adding the file is all it takes to join `cargo xtask bench all` and `cargo xtask bench <name>`
//!   (names wired today: `eval`, `device`, `lane`; decode and translate are bench_decode.rs and
//!   bench_translate.rs). Do not edit bench.rs or main.rs for it. (main.rs declares these modules under
//!   `#[rustfmt::skip]`, because rustfmt resolves modules whatever their cfg: format your file with
//!   `rustfmt --edition 2021 xtask/src/bench_<name>.rs`.)
//! * `section` measures, prints progress to **stderr** (`crate::bench::progress`), and returns a
//!   [`Section`]: `markdown` is the whole body of the section (starting with its own `## ` heading: the
//!   table, the commands, the before/after notes), `json` any machine-readable figures, and `headlines` the
//!   rows it contributes to the summary table at the top of docs/performance.md (figure, measured ratio,
//!   goal).
//! * The runner splices `markdown` into docs/performance.md between `<!-- bench:<name>:begin -->` and
//!   `<!-- bench:<name>:end -->` (appended at the end of the file with both markers when absent), never
//!   touching anything outside the markers. Hand-written prose that must survive a re-run goes outside them.
//! * `opts.quick` asks for a smoke-sized run (seconds, not minutes): quick runs never write the document (the
//!   markdown goes to stdout instead), so figures in docs always come from a full run.
//! * Timing is the section's own business; the shared helpers here ([`best_of_cpu`], [`Machine`]) are there to
//!   use. A section that cannot run here (no lavapipe, no corpus) returns `Err` with the reason: the runner
//!   reports it, leaves that section of the document as it was, carries on, and exits 1 at the end.
//! * The runner always builds in release: a debug `cargo xtask bench` re-executes itself with
//!   `cargo run --release -p xtask`.
//!
//! The `bench:summary` section (the machine, the command, the headline table) belongs to this file.

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a section is asked to do.
pub struct Opts {
    /// Smoke-sized run; the document is not written.
    pub quick: bool,
    /// The workspace root (docs/, fixtures/, crates/ are under it).
    pub root: PathBuf,
    /// The run writes docs/performance.md (and a section's figures under docs/img/).
    pub write: bool,
}

/// What a section returns.
pub struct Section {
    /// The section body in Markdown, starting with its `## ` heading.
    pub markdown: String,
    /// Machine-readable figures (written under the section's name by `--json FILE`).
    pub json: Value,
    /// Rows for the summary table: (figure, measured, goal), e.g.
    /// ("decode + print vs LLVM-19 C API", "5.2×", "≥ 50×").
    pub headlines: Vec<Headline>,
}

/// (figure, measured, goal).
pub type Headline = (String, String, String);

/// How a section runs.
#[derive(Clone, Copy)]
enum SectionFn {
    /// In this process; the runner splices the returned body into the document (the contract above).
    InProcess(fn(&Opts) -> Result<Section>),
    /// An owner's own command (`run(args)`), which measures and writes its own marker block; `full` and
    /// `quick` are its arguments for a full run and for a smoke run that writes nothing. It contributes no
    /// summary rows (its section carries its own table).
    #[allow(dead_code)]
    Command {
        run: fn(&[String]) -> Result<()>,
        full: &'static [&'static str],
        quick: &'static [&'static str],
    },
}

/// Sections in the order `all` runs them (and the document lists them).
fn sections() -> Vec<(&'static str, SectionFn)> {
    #[allow(unused_mut)]
    let mut v: Vec<(&'static str, SectionFn)> = vec![
        ("decode", SectionFn::InProcess(crate::bench_decode::section)),
        (
            "translate",
            SectionFn::InProcess(crate::bench_translate::section),
        ),
        (
            "corpus-size",
            SectionFn::InProcess(crate::bench_corpus_size::section),
        ),
    ];
    // `cargo xtask bench-eval`'s measurement, in process: its body keeps the section's hand-written text and
    // replaces only its generated table; it contributes the evaluator's summary rows.
    #[cfg(has_bench_eval)]
    v.push(("eval", SectionFn::InProcess(crate::bench_eval::section)));
    // `cargo xtask bench device --write`'s measurement, in process, with its summary rows (wave and lane
    // mappings vs GLSL: worst, median, growth with dispatch size).
    #[cfg(has_bench_device)]
    v.push(("device", SectionFn::InProcess(crate::bench_device::section)));
    #[cfg(has_bench_lane)]
    v.push(("lane", SectionFn::InProcess(crate::bench_lane::section)));
    // HIP programs through `rdna2spv exec`: launch overhead, the persistent caches (D160).
    #[cfg(has_bench_hip)]
    v.push(("hip", SectionFn::InProcess(crate::bench_hip::section)));
    v
}

const USAGE: &str = "usage: cargo xtask bench [all|decode|translate|corpus-size|eval|device|lane|hip]... [--quick] [--json FILE] [--no-write]";

/// One progress line on stderr, prefixed with the elapsed time of the whole run.
pub fn progress(msg: impl AsRef<str>) {
    use std::sync::OnceLock;
    static START: OnceLock<Instant> = OnceLock::new();
    let t = START.get_or_init(Instant::now).elapsed().as_secs_f64();
    eprintln!("[bench {t:7.1}s] {}", msg.as_ref());
}

/// CPU time this thread has run, in seconds (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, exact to the
/// nanosecond, unlike `/proc/thread-self/schedstat`, which moves only at scheduler ticks): unlike wall time it
/// does not count the time the thread waits for a core, which on the shared 2-core machine is most of the
/// wall time under load. None where the clock is not available.
pub fn thread_cpu_seconds() -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant of this platform.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}

/// CPU time of the whole process, all threads, in seconds (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`): for
/// work that runs on threads other than the caller's (lavapipe's compile and its worker threads).
pub fn process_cpu_seconds() -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as in thread_cpu_seconds.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    (rc == 0).then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}

/// Runs `f` `n` times and returns the fastest run's time in seconds with the last result: this thread's CPU time
/// ([`thread_cpu_seconds`]), wall time where that clock is missing.
pub fn best_of_cpu<T>(n: usize, f: impl FnMut() -> T) -> (f64, T) {
    best_of_cpu_for(n, 0.0, f)
}

/// [`best_of_cpu`] run at least `n` times and on until the runs add up to `budget_s` seconds (at most 500
/// runs): a work of a few milliseconds gets as many tries at an undisturbed run as one of a second, so the
/// fastest of each is comparable on a loaded machine (growth ratios of small against large work, D202).
pub fn best_of_cpu_for<T>(n: usize, budget_s: f64, mut f: impl FnMut() -> T) -> (f64, T) {
    let cpu = thread_cpu_seconds().is_some();
    let start = Instant::now();
    let now = || {
        if cpu {
            thread_cpu_seconds().unwrap_or(0.0)
        } else {
            start.elapsed().as_secs_f64()
        }
    };
    let (mut best, mut spent, mut runs) = (f64::MAX, 0.0, 0usize);
    let mut out = None;
    while runs < n.max(1) || (spent < budget_s && runs < 500) {
        let t = now();
        let r = std::hint::black_box(f());
        let dt = now() - t;
        best = best.min(dt);
        spent += dt;
        runs += 1;
        out = Some(r);
    }
    (best, out.expect("n >= 1"))
}

/// The machine a run was measured on.
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub os: String,
    pub rustc: String,
    pub load_before: String,
}

impl Machine {
    pub fn probe() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split(':').nth(1))
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|| "unknown".into());
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let os = std::fs::read_to_string("/etc/os-release")
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map(|s| s.trim_matches('"').to_string())
            .unwrap_or_else(|| "unknown".into());
        let rustc = std::process::Command::new("rustc")
            .arg("-V")
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_else(|| "unknown".into());
        Machine {
            cpu,
            cores,
            os,
            rustc,
            load_before: load_average(),
        }
    }
}

/// The 1-minute load average (`/proc/loadavg`), the figure that says how shared the machine was.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace root")
        .to_path_buf()
}

pub fn run(args: &[String]) -> Result<()> {
    if cfg!(debug_assertions) && std::env::var_os("RDNA2SPV_BENCH_DEBUG").is_none() {
        // Figures from a debug build would be meaningless: rebuild and re-run in release.
        let status = std::process::Command::new(env!("CARGO"))
            .args(["run", "--release", "--quiet", "-p", "xtask", "--", "bench"])
            .args(args)
            .current_dir(workspace_root())
            .status()
            .context("re-running cargo xtask bench in release")?;
        std::process::exit(status.code().unwrap_or(1));
    }
    // `cargo xtask bench device <its own options>`: the owner's command, unchanged.
    #[cfg(has_file_device)]
    if args.first().map(String::as_str) == Some("device")
        && args[1..]
            .iter()
            .any(|a| a != "--quick" && a != "--no-write")
    {
        return crate::bench_device::run(&args[1..]);
    }
    let mut quick = false;
    let mut write = true;
    let mut json_out: Option<PathBuf> = None;
    let mut wanted: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--no-write" => write = false,
            "--json" => {
                json_out = Some(it.next().context(USAGE)?.into());
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            s if s.starts_with('-') => bail!("unknown option {s}\n{USAGE}"),
            s => wanted.push(s.to_string()),
        }
    }
    let all = sections();
    if wanted.is_empty() || wanted.iter().any(|w| w == "all") {
        // corpus-size takes hours (lavapipe's cold compile of 220 library kernels): only when named.
        wanted = all
            .iter()
            .map(|(n, _)| n.to_string())
            .filter(|n| n != "corpus-size")
            .collect();
    }
    for w in &wanted {
        if !all.iter().any(|(n, _)| n == w) {
            bail!(
                "no bench section `{w}` in this build (have: {}; a section exists once xtask/src/bench_{w}.rs does)\n{USAGE}",
                all.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            );
        }
    }
    let write = write && !quick;
    let opts = Opts {
        quick,
        root: workspace_root(),
        write,
    };
    let machine = Machine::probe();
    progress(format!(
        "{} on {} ({} cores, load {}), sections: {}",
        if quick { "quick run" } else { "full run" },
        machine.cpu,
        machine.cores,
        machine.load_before,
        wanted.join(", ")
    ));

    let doc_path = opts.root.join("docs/performance.md");
    let mut doc = std::fs::read_to_string(&doc_path).context("reading docs/performance.md")?;
    let mut json_all = serde_json::Map::new();
    let mut failed = Vec::new();
    let mut fresh = Vec::new();
    for (name, f) in all.iter().filter(|(n, _)| wanted.iter().any(|w| w == n)) {
        progress(format!("section {name}: start"));
        let t = Instant::now();
        let f = match *f {
            SectionFn::InProcess(f) => f,
            SectionFn::Command { run, full, quick } => {
                // It reads and writes the document itself: hand it what earlier sections spliced.
                if write {
                    write_doc(&doc_path, &doc)?;
                }
                let args: Vec<String> = if opts.quick { quick } else { full }
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                match run(&args) {
                    Ok(()) => {
                        progress(format!(
                            "section {name}: done in {:.1} s",
                            t.elapsed().as_secs_f64()
                        ));
                        json_all.insert(
                            name.to_string(),
                            json!({ "seconds": t.elapsed().as_secs_f64() }),
                        );
                    }
                    Err(e) => {
                        progress(format!("section {name}: FAILED: {e:#}"));
                        failed.push(format!("{name}: {e:#}"));
                        json_all.insert(name.to_string(), json!({ "error": format!("{e:#}") }));
                    }
                }
                // It wrote the document itself: pick up its block before the summary is written.
                if write {
                    doc = std::fs::read_to_string(&doc_path)
                        .context("reading docs/performance.md")?;
                }
                continue;
            }
        };
        match f(&opts) {
            Ok(s) => {
                progress(format!(
                    "section {name}: done in {:.1} s",
                    t.elapsed().as_secs_f64()
                ));
                if write {
                    doc = splice(&doc, name, &s.markdown);
                } else {
                    println!("{}", s.markdown);
                }
                fresh.push((name.to_string(), s.headlines.clone()));
                json_all.insert(
                    name.to_string(),
                    json!({ "figures": s.json, "headlines": s.headlines, "seconds": t.elapsed().as_secs_f64() }),
                );
            }
            Err(e) => {
                progress(format!("section {name}: FAILED: {e:#}"));
                failed.push(format!("{name}: {e:#}"));
                json_all.insert(name.to_string(), json!({ "error": format!("{e:#}") }));
            }
        }
    }
    let summary = summary_markdown(&doc, &machine, quick, &fresh);
    if write {
        doc = splice(&doc, "summary", &summary);
        write_doc(&doc_path, &doc)?;
        progress(format!("wrote {}", doc_path.display()));
    } else {
        println!("{summary}");
    }
    if let Some(p) = json_out {
        json_all.insert(
            "machine".into(),
            json!({ "cpu": machine.cpu, "cores": machine.cores, "os": machine.os, "rustc": machine.rustc,
                    "load_before": machine.load_before, "load_after": load_average(), "quick": quick }),
        );
        std::fs::write(&p, serde_json::to_string_pretty(&Value::Object(json_all))?)
            .with_context(|| format!("writing {}", p.display()))?;
        progress(format!("wrote {}", p.display()));
    }
    if !failed.is_empty() {
        bail!(
            "{} section(s) failed:\n  {}",
            failed.len(),
            failed.join("\n  ")
        );
    }
    Ok(())
}

/// Writes the document whole or not at all (a temporary file renamed over it).
fn write_doc(path: &Path, doc: &str) -> Result<()> {
    let tmp = path.with_extension("md.tmp");
    std::fs::write(&tmp, doc).context("writing docs/performance.md")?;
    std::fs::rename(&tmp, path).context("writing docs/performance.md")
}

fn markers(name: &str) -> (String, String) {
    (
        format!("<!-- bench:{name}:begin -->"),
        format!("<!-- bench:{name}:end -->"),
    )
}

/// Replaces what lies between `name`'s markers (or appends both markers and `body` at the end).
fn splice(doc: &str, name: &str, body: &str) -> String {
    let (b, e) = markers(name);
    let body = body.trim_end();
    if let (Some(i), Some(j)) = (doc.find(&b), doc.find(&e)) {
        if i < j {
            return format!("{}{b}\n{body}\n{}", &doc[..i], &doc[j..]);
        }
    }
    let sep = if doc.ends_with("\n\n") {
        ""
    } else if doc.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    format!("{doc}{sep}{b}\n{body}\n{e}\n")
}

/// The summary table's rows, one per headline, its last column naming the section: a run of some sections
/// replaces their rows and keeps the others' (read back from the document).
fn summary_markdown(
    doc: &str,
    m: &Machine,
    quick: bool,
    fresh: &[(String, Vec<Headline>)],
) -> String {
    let (b, e) = markers("summary");
    // Rows kept from the document (sections not run now); a row from before the "met" column gets it.
    let old: Vec<String> = match (doc.find(&b), doc.find(&e)) {
        (Some(i), Some(j)) if i < j => doc[i + b.len()..j]
            .lines()
            .filter(|l| {
                l.starts_with("| ") && !l.starts_with("| figure ") && !l.starts_with("| ---")
            })
            .map(|l| {
                let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
                match cells.as_slice() {
                    [fig, got, goal, name] => {
                        format!("| {fig} | {got} | {goal} | {} | {name} |", met(got, goal))
                    }
                    _ => l.to_string(),
                }
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut rows = String::new();
    for (name, _) in sections() {
        match fresh.iter().find(|(n, _)| n == name) {
            Some((_, hs)) => {
                for (fig, got, goal) in hs {
                    rows.push_str(&format!(
                        "| {fig} | {got} | {goal} | {} | {name} |\n",
                        met(got, goal)
                    ));
                }
            }
            None => {
                for l in old.iter().filter(|l| l.ends_with(&format!(" | {name} |"))) {
                    rows.push_str(l);
                    rows.push('\n');
                }
            }
        }
    }
    format!(
        "## Summary (`cargo xtask bench`)\n\n\
         Regenerate with `cargo xtask bench all` (release build, about 20 minutes on the 2-core machine: decode, \
         translate, eval, device with both mappings; `cargo xtask bench decode translate` for some sections, whose \
         rows below are then replaced and the others kept; `--quick` for a smoke run of a few minutes that writes \
         nothing; `--json FILE` for the figures). Each figure below is a ratio of two measurements taken in the \
         same run on this machine; absolute times are for scale only. \"Met\" compares the measured figure's \
         first number with the goal.\n\n\
         Machine of the last {}run ({}): {}, {} cores available, {}; {}; load average {} at the start.\n\n\
         | figure | measured | goal | met | section |\n| --- | ---: | ---: | :---: | --- |\n{rows}",
        if quick { "quick " } else { "" },
        {
            let ran: Vec<&str> = fresh.iter().map(|(n, _)| n.as_str()).collect();
            if ran.len() == sections().len() {
                "every section".to_string()
            } else {
                format!(
                    "sections {}; the other rows are kept from earlier runs",
                    ran.join(", ")
                )
            }
        },
        m.cpu,
        m.cores,
        m.os,
        m.rustc,
        m.load_before,
    )
}

/// Whether `measured` meets `goal`: "yes" / "no" when the goal is "≥ N" or "≤ N" (with or without a unit)
/// and the measured figure starts with a number (in the goal's unit), "—" otherwise.
fn met(measured: &str, goal: &str) -> &'static str {
    let number = |s: &str| -> Option<f64> {
        let t: String = s
            .trim_start_matches(|c: char| !c.is_ascii_digit() && c != '.')
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
            .filter(|c| *c != ',')
            .collect();
        t.parse().ok()
    };
    let goal = goal.trim();
    let (at_least, rest) = if let Some(r) = goal.strip_prefix('≥') {
        (true, r)
    } else if let Some(r) = goal.strip_prefix('≤') {
        (false, r)
    } else {
        return "—";
    };
    match (number(measured), number(rest)) {
        (Some(x), Some(g)) if (at_least && x >= g) || (!at_least && x <= g) => "yes",
        (Some(_), Some(_)) => "no",
        _ => "—",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn met_compares_the_first_number_with_the_goal() {
        assert_eq!(met("8.1× faster", "≥ 50×"), "no");
        assert_eq!(met("61.0× faster", "≥ 50×"), "yes");
        assert_eq!(met("0.18 %", "≤ 5 %"), "yes");
        assert_eq!(met("5.5× slower (poly 10×, unroll 1)", "≤ 5×"), "no");
        assert_eq!(met("3.4× (saxpy)", "≤ 2×"), "no");
        assert_eq!(met("1,234.5 µs", "≤ 2,000 µs"), "yes");
        assert_eq!(met("26.7 µs", "—"), "—");
        assert_eq!(met("–", "≤ 5×"), "—");
    }

    #[test]
    fn splice_replaces_between_markers_and_appends_when_absent() {
        let doc = "# P\n\nintro\n";
        let d1 = splice(doc, "x", "## X\n\nfirst\n");
        assert_eq!(
            d1,
            "# P\n\nintro\n\n<!-- bench:x:begin -->\n## X\n\nfirst\n<!-- bench:x:end -->\n"
        );
        let d2 = splice(&(d1.clone() + "\ntail\n"), "x", "## X\n\nsecond");
        assert_eq!(
            d2,
            "# P\n\nintro\n\n<!-- bench:x:begin -->\n## X\n\nsecond\n<!-- bench:x:end -->\n\ntail\n"
        );
        // Another section's block is left alone.
        let d3 = splice(&d2, "y", "## Y");
        assert!(d3.contains("second") && d3.ends_with("<!-- bench:y:end -->\n"));
    }
}
