//! `cargo xtask bench-eval [--quick] [--seconds S] [--json FILE] [--no-write]`: host evaluator throughput
//! against the same OpenCL C kernels compiled natively for x86-64 (issue 10; section `eval` of
//! docs/performance.md).
//!
//! Every kernel in xtask/bench_eval/*.cl is compiled twice from one source: for gfx1030 with clang-19 and the
//! fixtures' flags ([`crate::fixtures::OPENCL_FLAGS`]), then lifted and run by the evaluator
//! (examples/bench_eval.rs, release build, only `rdna2spv_eval::run` timed); and for the host with clang-19
//! -O2 through fixtures/native/host.h and xtask/bench_eval/native.c (one thread, work-item after work-item).
//! Both sides run the same grid on the same inputs in the same invocation; their outputs must agree bit for
//! bit (else the command fails), and the figure is the ratio of the two times. Throughput is counted in the
//! evaluator's lane-instructions (machine instructions times active lanes) for both sides: the native
//! "lane-instructions/s" is the evaluator's count divided by the native time.
//!
//! Configurations: each kernel at dispatch sizes 1×, 10× and 100× (2,048 to 204,800 work-items), and at 10×
//! with the loop body unrolled 1, 4 and 16 times (the kernel grows, the work per work-item stays 64 steps).
//! `--baseline FILE` adds the ratios of an earlier run's `--json` output as a "before" column.

use anyhow::{bail, Context, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const BEGIN: &str = "<!-- bench:eval:begin -->";
const END: &str = "<!-- bench:eval:end -->";
const TABLE_BEGIN: &str = "<!-- bench-eval:table:begin -->";
const TABLE_END: &str = "<!-- bench-eval:table:end -->";

/// Work-items at 1×, and the workgroup size.
const BASE_GRID: u32 = 2048;
const WORKGROUP: u32 = 256;
/// Steps per work-item (loop trips × unroll).
const STEPS: u32 = 64;
/// The gather kernel's table: 2^20 words (4 MiB).
const TABLE_WORDS: u32 = 1 << 20;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Alu,
    Memory,
}

struct Kernel {
    name: &'static str,
    kind: Kind,
    what: &'static str,
}

const KERNELS: &[Kernel] = &[
    Kernel {
        name: "poly",
        kind: Kind::Alu,
        what: "f32 Horner step (v_mul_f32 + v_add_f32)",
    },
    Kernel {
        name: "hash",
        kind: Kind::Alu,
        what: "u32 multiply-xorshift hash",
    },
    Kernel {
        name: "gather",
        kind: Kind::Memory,
        what: "dependent loads from a 4 MiB table",
    },
];

#[derive(Clone)]
struct Config {
    kernel: &'static str,
    scale: u32,
    unroll: u32,
}

#[derive(Clone)]
struct Row {
    config: Config,
    static_instructions: u64,
    lane_instructions: u64,
    instructions: u64,
    eval_s: f64,
    native_s: f64,
}

impl Row {
    fn ratio(&self) -> f64 {
        self.eval_s / self.native_s
    }
    fn key(&self) -> String {
        format!(
            "{}/{}x/u{}",
            self.config.kernel, self.config.scale, self.config.unroll
        )
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A small deterministic generator for the inputs (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
}

fn words(v: impl IntoIterator<Item = u32>) -> Vec<u8> {
    v.into_iter().flat_map(u32::to_le_bytes).collect()
}

pub fn run(args: &[String]) -> Result<()> {
    let mut quick = false;
    let mut seconds = 1.0f64;
    let mut json: Option<PathBuf> = None;
    let root = root();
    // The unoptimised evaluator's run (D090), when present: the "before" column.
    let mut baseline: Option<PathBuf> =
        Some(root.join("xtask/bench_eval/before.json")).filter(|p| p.exists());
    let mut write = true;
    let mut harness: Option<PathBuf> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--no-write" => write = false,
            "--seconds" => seconds = it.next().context("--seconds S")?.parse()?,
            "--harness" => harness = Some(it.next().context("--harness PATH")?.into()),
            "--json" => json = Some(it.next().context("--json FILE")?.into()),
            "--baseline" => baseline = Some(it.next().context("--baseline FILE")?.into()),
            "--no-baseline" => baseline = None,
            _ => bail!("usage: cargo xtask bench-eval [--quick] [--seconds S] [--json FILE] [--baseline FILE | --no-baseline] [--harness PATH] [--no-write]"),
        }
    }
    let rows = measure(&root, quick, seconds, harness)?;
    let before = match &baseline {
        Some(p) => Some(read_json(p)?),
        None => None,
    };
    let section = render(&rows, before.as_deref(), quick, seconds)?;
    print!("{section}");
    if let Some(p) = json {
        std::fs::write(&p, to_json(&rows))?;
    }
    if write && !quick {
        write_section(&root.join("docs/performance.md"), &section)?;
        eprintln!("bench-eval: wrote the eval section of docs/performance.md");
    }
    Ok(())
}

fn measure(root: &Path, quick: bool, seconds: f64, harness: Option<PathBuf>) -> Result<Vec<Row>> {
    let tmp = std::env::temp_dir().join(format!("rdna2spv-bench-eval-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let result = run_in(root, &tmp, quick, seconds, harness);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

/// The in-process form of the `cargo xtask bench` section contract (xtask/src/bench.rs): the same
/// measurement as [`run`]. The section body returned is the document's current eval section with only its
/// generated table block replaced (the hand-written step table and analysis around it stay); the headlines
/// are the summary rows: the worst ALU-bound ratio at 10× and 100× dispatch (the goal, ≤ 5×), the
/// memory-bound kernel, and how the ratio grows with dispatch size and with kernel size.
pub fn section(opts: &crate::bench::Opts) -> Result<crate::bench::Section> {
    let seconds = if opts.quick { 0.2 } else { 1.0 };
    let rows = measure(&opts.root, opts.quick, seconds, None)?;
    let baseline = opts.root.join("xtask/bench_eval/before.json");
    let before = if baseline.exists() {
        Some(read_json(&baseline)?)
    } else {
        None
    };
    let table = render(&rows, before.as_deref(), opts.quick, seconds)?;
    let doc = std::fs::read_to_string(opts.root.join("docs/performance.md")).unwrap_or_default();
    let markdown = section_body(&doc, &table);
    Ok(crate::bench::Section {
        markdown,
        json: serde_json::from_str(&to_json(&rows))?,
        headlines: headlines(&rows),
    })
}

/// The eval section's body (between its markers) with `table` as its generated table block.
fn section_body(doc: &str, table: &str) -> String {
    let current = match (doc.find(BEGIN), doc.find(END)) {
        (Some(b), Some(e)) if b < e => &doc[b + BEGIN.len()..e],
        _ => "",
    };
    match (current.find(TABLE_BEGIN), current.find(TABLE_END)) {
        (Some(b), Some(e)) if b < e => format!(
            "{}{TABLE_BEGIN}\n{table}{TABLE_END}{}",
            current[..b].trim_start_matches('\n'),
            &current[e + TABLE_END.len()..]
        ),
        _ => format!("## Host evaluator vs native C\n\n{TABLE_BEGIN}\n{table}{TABLE_END}\n"),
    }
}

/// The summary rows (figure, measured, goal) of a run.
fn headlines(rows: &[Row]) -> Vec<crate::bench::Headline> {
    let kind = |r: &Row| {
        KERNELS
            .iter()
            .find(|k| k.name == r.config.kernel)
            .map(|k| k.kind)
    };
    let worst = |f: &dyn Fn(&Row) -> bool| {
        rows.iter()
            .filter(|r| f(r))
            .max_by(|a, b| a.ratio().total_cmp(&b.ratio()))
    };
    let mut h = Vec::new();
    // The goal is stated for ALU-bound kernels at dispatch sizes past the fixed per-run costs (10×, 100×).
    let big = rows.iter().map(|r| r.config.scale).max().unwrap_or(1);
    let at = if big >= 10 {
        "10× and 100× dispatch"
    } else {
        "1× dispatch (--quick)"
    };
    let min_scale = big.min(10);
    if let Some(r) = worst(&|r: &Row| kind(r) == Some(Kind::Alu) && r.config.scale >= min_scale) {
        h.push((
            format!("host evaluator vs native C -O2, worst ALU-bound kernel ({at})"),
            format!(
                "{:.1}× slower ({} {}×, unroll {})",
                r.ratio(),
                r.config.kernel,
                r.config.scale,
                r.config.unroll
            ),
            "≤ 5×".to_string(),
        ));
    }
    if let Some(r) = worst(&|r: &Row| kind(r) == Some(Kind::Memory) && r.config.scale >= min_scale)
    {
        h.push((
            format!(
                "host evaluator vs native C -O2, memory-bound `{}` (worst, {at})",
                r.config.kernel
            ),
            format!("{:.1}× slower", r.ratio()),
            "—".to_string(),
        ));
    }
    // Growth: the ratio per kernel along dispatch size (loop body once) and along kernel size (at 10×).
    let series = |pick: &dyn Fn(&Row) -> Option<u32>| -> String {
        KERNELS
            .iter()
            .filter_map(|k| {
                let mut v: Vec<(u32, f64)> = rows
                    .iter()
                    .filter(|r| r.config.kernel == k.name)
                    .filter_map(|r| pick(r).map(|x| (x, r.ratio())))
                    .collect();
                v.sort_by_key(|p| p.0);
                (v.len() > 1).then(|| {
                    format!(
                        "{} {}",
                        k.name,
                        v.iter()
                            .map(|(_, x)| format!("{x:.1}×"))
                            .collect::<Vec<_>>()
                            .join(" → ")
                    )
                })
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let scales: Vec<String> = {
        let mut v: Vec<u32> = rows
            .iter()
            .filter(|r| r.config.unroll == 1)
            .map(|r| r.config.scale)
            .collect();
        v.sort_unstable();
        v.dedup();
        v.iter().map(|s| format!("{s}×")).collect()
    };
    let by_dispatch = series(&|r: &Row| (r.config.unroll == 1).then_some(r.config.scale));
    if !by_dispatch.is_empty() {
        h.push((
            format!(
                "evaluator vs native growth with dispatch size ({}, loop body once)",
                scales.join(" → ")
            ),
            by_dispatch,
            "—".to_string(),
        ));
    }
    let size_scale = if big >= 10 { 10 } else { 1 };
    let by_size = series(&|r: &Row| (r.config.scale == size_scale).then_some(r.config.unroll));
    if !by_size.is_empty() {
        let mut unrolls: Vec<u32> = rows
            .iter()
            .filter(|r| r.config.scale == size_scale)
            .map(|r| r.config.unroll)
            .collect();
        unrolls.sort_unstable();
        unrolls.dedup();
        h.push((
            format!(
                "evaluator vs native growth with kernel size (unroll {} at {size_scale}×)",
                unrolls
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(" → ")
            ),
            by_size,
            "—".to_string(),
        ));
    }
    h
}

fn configs(quick: bool) -> Vec<Config> {
    let mut v = Vec::new();
    for k in KERNELS {
        let scales: &[u32] = if quick { &[1] } else { &[1, 10, 100] };
        for &scale in scales {
            v.push(Config {
                kernel: k.name,
                scale,
                unroll: 1,
            });
        }
        let unrolls: &[u32] = if quick { &[4] } else { &[4, 16] };
        for &unroll in unrolls {
            v.push(Config {
                kernel: k.name,
                scale: if quick { 1 } else { 10 },
                unroll,
            });
        }
    }
    v
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

fn run_in(
    root: &Path,
    tmp: &Path,
    quick: bool,
    seconds: f64,
    harness: Option<PathBuf>,
) -> Result<Vec<Row>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang-19".into());
    let harness = match harness {
        Some(h) => h,
        None => build_harness(root, &cargo)?,
    };
    let src = root.join("xtask/bench_eval");
    let common = root.join("fixtures/kernels");

    // Inputs (the largest grid's; smaller grids read a prefix).
    let max_grid = BASE_GRID * if quick { 1 } else { 100 };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // poly: f32 in (-0.99, 0.99), so Horner's sums stay bounded; hash: any u32; gather: the table.
    let poly_x = words((0..max_grid).map(|_| {
        let u = rng.next() as f64 / 4_294_967_296.0;
        (((u * 2.0 - 1.0) * 0.99) as f32).to_bits()
    }));
    let hash_x = words((0..max_grid).map(|_| rng.next()));
    let table = words((0..TABLE_WORDS).map(|_| rng.next()));
    std::fs::write(tmp.join("poly_x.bin"), &poly_x)?;
    std::fs::write(tmp.join("hash_x.bin"), &hash_x)?;
    std::fs::write(tmp.join("table.bin"), &table)?;

    let mut rows = Vec::new();
    for c in configs(quick) {
        let grid = BASE_GRID * c.scale;
        let n = STEPS / c.unroll;
        let stem = format!("{}_u{}", c.kernel, c.unroll);
        let co = tmp.join(format!("{stem}.co"));
        let exe = tmp.join(format!("{stem}.native"));
        if !co.exists() {
            let source = src.join(format!("{}.cl", c.kernel));
            let out = Command::new(&clang)
                .args(crate::fixtures::OPENCL_FLAGS)
                .arg("-I")
                .arg(&common)
                .arg(format!("-DUNROLL={}", c.unroll))
                .arg(&source)
                .arg("-o")
                .arg(&co)
                .output()
                .with_context(|| format!("running {clang}"))?;
            if !out.status.success() {
                bail!(
                    "{clang} (gfx1030) on {}: {}",
                    source.display(),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            let call = match c.kernel {
                "gather" => "gather(ARG_PTR(0), ARG_PTR(1), ARG_U32(2), ARG_U32(3))",
                k => &format!("{k}(ARG_PTR(0), ARG_PTR(1), ARG_U32(2))"),
            };
            let out = Command::new(&clang)
                .args([
                    "-x",
                    "c",
                    "-std=c11",
                    "-O2",
                    "-ffp-contract=off",
                    "-Xclang",
                    "-ffloat16-excess-precision=none",
                    "-fno-math-errno",
                    "-Wall",
                    "-Wno-unknown-pragmas",
                    "-Wno-unused-function",
                    "-include",
                ])
                .arg(root.join("fixtures/native/host.h"))
                .arg("-I")
                .arg(&common)
                .arg(format!("-DUNROLL={}", c.unroll))
                .arg(format!("-DKERNEL_SOURCE=\"{}\"", source.display()))
                .arg(format!("-DKERNEL_CALL={call}"))
                .arg(src.join("native.c"))
                .arg("-o")
                .arg(&exe)
                .arg("-lm")
                .output()
                .with_context(|| format!("running {clang}"))?;
            if !out.status.success() {
                bail!(
                    "{clang} (x86-64) on {}: {}",
                    source.display(),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
        let out_bytes = grid as usize * 4;
        let (input, extra): (&str, Vec<String>) = match c.kernel {
            "poly" => ("poly_x.bin", vec![]),
            "hash" => ("hash_x.bin", vec![]),
            _ => ("table.bin", vec![format!("{}", TABLE_WORDS - 1)]),
        };
        // The evaluator reads exactly the grid's prefix of the per-item inputs.
        let input_path = if c.kernel == "gather" {
            tmp.join(input)
        } else {
            let p = tmp.join(format!("{}_{grid}.bin", c.kernel));
            let all = std::fs::read(tmp.join(input))?;
            std::fs::write(&p, &all[..out_bytes])?;
            p
        };
        let mut manifest = format!(
            "code_object = {:?}\nkernel = {:?}\ngrid = [{grid}, 1, 1]\nworkgroup = [{WORKGROUP}, 1, 1]\nmax_steps_per_wave = 100000000\n\n[[args]]\nbuffer = {:?}\n\n[[args]]\nbuffer = {{ size = {out_bytes} }}\noutput = \"y\"\n\n[[args]]\nu32 = {n}\n",
            co.display().to_string(),
            c.kernel,
            input_path.display().to_string()
        );
        for e in &extra {
            write!(manifest, "\n[[args]]\nu32 = {e}\n")?;
        }
        let mpath = tmp.join(format!("{stem}_{grid}.toml"));
        std::fs::write(&mpath, manifest)?;

        let eval_out = tmp.join("eval_y.bin");
        let out = Command::new(&harness)
            .arg(&mpath)
            .arg(&eval_out)
            .arg(seconds.to_string())
            .output()?;
        if !out.status.success() {
            bail!(
                "evaluator harness on {}: {}",
                mpath.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let j: serde_json::Value = serde_json::from_slice(&out.stdout)
            .with_context(|| String::from_utf8_lossy(&out.stdout).into_owned())?;
        let native_out = tmp.join("native_y.bin");
        let mut cmd = Command::new(&exe);
        cmd.arg(grid.to_string())
            .arg(WORKGROUP.to_string())
            .arg(&native_out)
            .arg(seconds.to_string())
            .arg(format!("buf:{}", input_path.display()))
            .arg(format!("zero:{out_bytes}"))
            .arg(format!("u32:{n}"));
        for e in &extra {
            cmd.arg(format!("u32:{e}"));
        }
        let out = cmd.output()?;
        if !out.status.success() {
            bail!("native {stem}: {}", String::from_utf8_lossy(&out.stderr));
        }
        let native_ns: f64 = String::from_utf8_lossy(&out.stdout).trim().parse()?;
        let (a, b) = (std::fs::read(&eval_out)?, std::fs::read(&native_out)?);
        if a != b {
            let i = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(0) / 4;
            bail!(
                "{stem} grid {grid}: the evaluator and the native build differ (first at element {i}: evaluator {:02x?}, native {:02x?})",
                a.get(i * 4..i * 4 + 4),
                b.get(i * 4..i * 4 + 4)
            );
        }
        let get = |k: &str| j[k].as_f64().unwrap_or(0.0);
        let row = Row {
            config: c.clone(),
            static_instructions: get("static_instructions") as u64,
            lane_instructions: get("lane_instructions") as u64,
            instructions: get("instructions") as u64,
            eval_s: get("seconds"),
            native_s: native_ns * 1e-9,
        };
        eprintln!(
            "bench-eval: {:<16} {:>9} lane-instructions  evaluator {:>9.3} ms  native {:>8.3} ms  {:>6.1}x",
            row.key(),
            row.lane_instructions,
            row.eval_s * 1e3,
            row.native_s * 1e3,
            row.ratio()
        );
        rows.push(row);
    }
    Ok(rows)
}

fn build_harness(root: &Path, cargo: &str) -> Result<PathBuf> {
    eprintln!("bench-eval: building the evaluator's timing harness (release)");
    let st = Command::new(cargo)
        .current_dir(root)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "rdna2spv",
            "--example",
            "bench_eval",
        ])
        .status()?;
    if !st.success() {
        bail!("building examples/bench_eval.rs failed");
    }
    Ok(target_dir(root).join("release/examples/bench_eval"))
}

fn to_json(rows: &[Row]) -> String {
    let v: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "key": r.key(),
                "static_instructions": r.static_instructions,
                "instructions": r.instructions,
                "lane_instructions": r.lane_instructions,
                "eval_s": r.eval_s,
                "native_s": r.native_s,
                "ratio": r.ratio(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

fn read_json(p: &Path) -> Result<Vec<(String, f64, f64)>> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(p)?)?;
    Ok(v.as_array()
        .context("a JSON array")?
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap_or("").to_string(),
                r["ratio"].as_f64().unwrap_or(0.0),
                r["lane_instructions"].as_f64().unwrap_or(0.0)
                    / r["eval_s"].as_f64().unwrap_or(1.0),
            )
        })
        .collect())
}

fn rate(x: f64) -> String {
    if x >= 1e9 {
        format!("{:.2} G", x / 1e9)
    } else {
        format!("{:.1} M", x / 1e6)
    }
}

fn render(
    rows: &[Row],
    before: Option<&[(String, f64, f64)]>,
    quick: bool,
    seconds: f64,
) -> Result<String> {
    let mut s = String::new();
    writeln!(
        s,
        "`cargo xtask bench-eval` (release build of examples/bench_eval.rs; kernels in xtask/bench_eval/). Each \
         kernel's OpenCL C source is compiled for gfx1030 by clang-19 and run by the evaluator, and compiled for \
         x86-64 by clang-19 -O2 (-ffp-contract=off, fixtures/native/host.h) and run on one thread, work-item \
         after work-item; both in the same invocation, each timed in CPU time of its thread \
         (CLOCK_THREAD_CPUTIME_ID: the machine is shared, D091), fastest of ≥ 3 runs within {seconds} s each, \
         outputs compared bit for bit (identical in every row). Lane-instructions are the evaluator's count (machine \
         instructions × active lanes, scalar ones included); the native rate is that count over the native \
         time. Ratio = evaluator time / native time.{}{}\n",
        if before.is_some() {
            " \"ratio before\": the same kernels and inputs in an earlier run of the evaluator before \
             optimisation (`--baseline`, xtask/bench_eval/before.json: commit 45f66cc, D090); \"speed-up\": \
             evaluator lane-instructions/s now over then."
        } else {
            ""
        },
        if quick { " (--quick)" } else { "" }
    )?;
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .unwrap_or("?")
        .trim()
        .to_string();
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    writeln!(
        s,
        "Machine: {cpu}, {} cores, load average {} at the end of the run; commit {commit}.\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    )?;
    let kinds = KERNELS
        .iter()
        .map(|k| {
            format!(
                "`{}` ({}, {})",
                k.name,
                if k.kind == Kind::Alu {
                    "ALU-bound"
                } else {
                    "memory-bound"
                },
                k.what
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    writeln!(
        s,
        "Kernels: {kinds}. {STEPS} steps per work-item; 1× = {BASE_GRID} work-items in workgroups of \
         {WORKGROUP} (wave32).\n"
    )?;
    write!(
        s,
        "| kernel | dispatch | unroll (kernel instructions) | lane-instructions | evaluator | evaluator lane-instr/s | native | native lane-instr/s | ratio |"
    )?;
    if before.is_some() {
        write!(s, " ratio before | speed-up |")?;
    }
    writeln!(s)?;
    write!(
        s,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )?;
    if before.is_some() {
        write!(s, " ---: | ---: |")?;
    }
    writeln!(s)?;
    for r in rows {
        write!(
            s,
            "| {} | {}× | {} ({}) | {} | {:.1} ms | {} | {:.2} ms | {} | {:.1}× |",
            r.config.kernel,
            r.config.scale,
            r.config.unroll,
            r.static_instructions,
            r.lane_instructions,
            r.eval_s * 1e3,
            rate(r.lane_instructions as f64 / r.eval_s),
            r.native_s * 1e3,
            rate(r.lane_instructions as f64 / r.native_s),
            r.ratio()
        )?;
        if let Some(b) = before {
            match b.iter().find(|(k, ..)| *k == r.key()) {
                Some((_, ratio, rate_before)) => write!(
                    s,
                    " {ratio:.1}× | {:.1}× |",
                    (r.lane_instructions as f64 / r.eval_s) / rate_before
                )?,
                None => write!(s, " – | – |")?,
            }
        }
        writeln!(s)?;
    }
    writeln!(s)?;
    Ok(s)
}

/// Writes the generated text into docs/performance.md: between the table markers inside the eval section
/// when they exist (the section's hand-written analysis around them stays), else as a whole new section.
fn write_section(path: &Path, section: &str) -> Result<()> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let new = match (text.find(TABLE_BEGIN), text.find(TABLE_END)) {
        (Some(b), Some(e)) if e > b => format!(
            "{}{TABLE_BEGIN}\n{section}{TABLE_END}{}",
            &text[..b],
            &text[e + TABLE_END.len()..]
        ),
        _ => {
            let block = format!("{BEGIN}\n## Host evaluator vs native C\n\n{TABLE_BEGIN}\n{section}{TABLE_END}\n{END}");
            match (text.find(BEGIN), text.find(END)) {
                (Some(b), Some(e)) if e > b => {
                    format!("{}{block}{}", &text[..b], &text[e + END.len()..])
                }
                _ => format!("{}\n\n{block}\n", text.trim_end()),
            }
        }
    };
    std::fs::write(path, new)?;
    Ok(())
}
