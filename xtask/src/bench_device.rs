//! `cargo xtask bench device [--write] [--only K,…] [--scales 1,10,100] [--reps N] [--budget-ms MS] [--mapping wave|lane|both]`:
//! the device half of the benchmarks (issue 10): per reference kernel (`rdna2spv::glsl_ref::REFERENCES`),
//! each figure a ratio measured in one run on one Vulkan device (lavapipe in CI):
//!
//! - translation time (load + lift + lower) vs the driver's compile of the translated module at its first
//!   dispatch (goal ≤ 5%). lavapipe compiles lazily inside the first dispatch, so the compile is the
//!   first dispatch (pipeline creation included) minus the median warm dispatch at 1×. Mesa's on-disk
//!   shader cache is switched off (`MESA_SHADER_CACHE_DISABLE=true`) so every run compiles;
//! - the translated kernel's run time (median warm dispatch) vs the hand-written GLSL kernel's on the same
//!   data (goal ≤ 2×), at dispatch sizes 1×, 10× and 100× (grid and data tiled, `glsl_ref::scaled`);
//!   each scaled run also compares the two kernels' outputs (`tests/glsl_reference.rs` proves the 1× case).
//!   The warm runs alternate (a GLSL dispatch, then one per mapping), so that a change in the machine's load
//!   falls on both sides of a ratio, and a short dispatch is repeated until its series adds up to
//!   `--budget-ms` (`Series::push`): the 1× dispatches take 0.1–2 ms, and a median of five of them moved by
//!   2× between runs (session 8's closing note).
//!
//! `--write` replaces the text between `<!-- bench:device:begin -->` and `<!-- bench:device:end -->` in
//! docs/performance.md. Build in release: the translation figures are the translator's own speed.
//! Each kernel runs in both mappings by default (`--mapping` picks one): wave per invocation (D006) and
//! lane per invocation (issue 13, D082); the module's `OpControlBarrier` count (calls inlined) is reported with its
//! size, the evidence for where the lane mapping's time goes (decision D084). `section` is the
//! `cargo xtask bench` section contract (xtask/src/bench.rs), measuring what `run` measures.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use rdna2spv::device::{profile_of, run_vulkan_mapped_cached, DeviceRun, ModuleCache, ProfileChoice};
use rdna2spv::dispatch::Plan;
use rdna2spv::glsl_ref::{
    self, median, Agreement, GlslSetup, Reference, REFERENCES, WAVE64_REFERENCES,
};
use rdna2spv::manifest::Manifest;
use rdna2spv_spirv::lower::{ControlFlow, Mapping as LowerMapping};
use rdna2spv_vulkan::{Context, DeviceSelector};

const HELP: &str = "usage: cargo xtask bench device [--write] [--only K,..] [--scales 1,10,100] [--reps N] [--budget-ms MS] [--mapping wave|lane|both]

Translated kernels vs the hand-written GLSL kernels of fixtures/glsl/ on one Vulkan device (lavapipe unless
RDNA2SPV_VK_DEVICE selects another): translation time vs the driver's compile at 1x, and the median warm
dispatch (CPU and wall) of both at each scale, their outputs compared at every scale. Build in release and set
MESA_SHADER_CACHE_DISABLE=true so that every run compiles.

  --write            replace the bench:device section of docs/performance.md with the tables
  --only K,..        only these reference kernels (saxpy, saxpy_exact, spmv, reduce, reduce_w64, divergent,
                     divsqrt, branchy)
  --scales 1,10,100  dispatch sizes as multiples of the fixture's grid; must start with 1
  --reps N           warm runs of each translated kernel at least (default 5; GLSL kernels run at least 15)
  --budget-ms MS     more warm runs for short dispatches: each series runs until its dispatches add up to
                     about MS milliseconds (default 100, at most 100 runs; 0 turns it off). The GLSL and
                     translated warm runs alternate, so a change in the machine's load falls on both sides
  --mapping M        wave, lane or both (default): one invocation per wave (D006) or per lane (D082)
  --checked-cost     also run each mapping unchecked (`run --unchecked`; the measured mappings are checked,
                     as `run` runs by default, D158) and add the checked / unchecked table";

const BEGIN: &str = "<!-- bench:device:begin -->";
const END: &str = "<!-- bench:device:end -->";
/// Warm runs of each GLSL kernel at least.
const GLSL_MIN_REPS: usize = 15;
/// Dispatch time each warm series takes in all by default (`--budget-ms`), and the most runs it may take.
const DEFAULT_BUDGET_MS: u64 = 100;
const MAX_REPS: usize = 100;

struct Options {
    write: bool,
    only: Option<Vec<String>>,
    scales: Vec<u32>,
    reps: usize,
    /// Warm runs continue until each series has taken this much dispatch time in all (`Series::push`).
    budget: Duration,
    /// The mappings measured ("wave", "lane").
    mappings: Vec<&'static str>,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut o = Options {
        write: false,
        only: None,
        scales: vec![1, 10, 100],
        reps: 5,
        budget: Duration::from_millis(DEFAULT_BUDGET_MS),
        mappings: vec!["wave", "lane"],
    };
    let mut checked_cost = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "-h" | "--help" => {
                println!("{HELP}");
                std::process::exit(0)
            }
            "--write" => o.write = true,
            "--only" => o.only = Some(value()?.split(',').map(str::to_string).collect()),
            "--scales" => {
                o.scales = value()?
                    .split(',')
                    .map(|s| s.parse::<u32>().context("--scales takes numbers"))
                    .collect::<Result<_>>()?;
                if o.scales.first() != Some(&1) || o.scales.contains(&0) {
                    bail!("--scales must start with 1 (the compile is measured at 1x)");
                }
            }
            "--reps" => o.reps = value()?.parse().context("--reps takes a number")?,
            "--budget-ms" => {
                o.budget = Duration::from_millis(
                    value()?
                        .parse()
                        .context("--budget-ms takes a number of milliseconds")?,
                )
            }
            "--mapping" => {
                o.mappings = match value()?.as_str() {
                    "wave" => vec!["wave"],
                    "lane" => vec!["lane"],
                    "both" => vec!["wave", "lane"],
                    other => bail!("--mapping wave|lane|both, not {other}"),
                }
            }
            "--checked-cost" => checked_cost = true,
            other => bail!("unknown option {other} (--write, --only K,…, --scales 1,10,100, --reps N, --budget-ms MS, --mapping wave|lane|both, --checked-cost)"),
        }
    }
    if o.reps == 0 {
        bail!("--reps must be positive");
    }
    if checked_cost {
        if o.mappings.contains(&"wave") {
            o.mappings.push("wave-unchecked");
        }
        if o.mappings.contains(&"lane") {
            o.mappings.push("lane-unchecked");
        }
    }
    Ok(o)
}

/// Compile and translation figures of one kernel (at 1×).
struct Compile {
    name: &'static str,
    mapping: &'static str,
    bound: &'static str,
    words: usize,
    glsl_words: usize,
    /// Static `OpControlBarrier` instructions in the translated / GLSL module.
    barriers: usize,
    glsl_barriers: usize,
    load_lift: Duration,
    lower: Duration,
    compile: Duration,
    glsl_compile: Duration,
    compile_cpu: Duration,
    glsl_compile_cpu: Duration,
}

/// Run figures of one kernel at one scale.
struct RunRow {
    name: &'static str,
    mapping: &'static str,
    scale: u32,
    items: u32,
    invocations: usize,
    translated: Duration,
    glsl: Duration,
    /// CPU time of the dispatches (medians): the work, whatever the machine's load.
    translated_cpu: Duration,
    glsl_cpu: Duration,
    agree: String,
}

/// The dispatch's CPU time (zero where the platform gives none).
fn cpu(s: &rdna2spv_vulkan::DispatchStats) -> Duration {
    s.dispatch_cpu.unwrap_or_default()
}

fn ms(d: Duration) -> String {
    let v = d.as_secs_f64() * 1e3;
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn words_of(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// How the two kernels' outputs compare: "bit-identical" or "N of M differ".
fn agreement(
    r: &Reference,
    translated: &[(String, Vec<u8>)],
    glsl: &[(String, Vec<u8>)],
) -> String {
    let canon = |w: u32| {
        if !r.integer && f32::from_bits(w).is_nan() {
            0x7fc0_0000
        } else {
            w
        }
    };
    let (mut n, mut differ) = (0, 0);
    for (name, g) in glsl {
        let Some((_, t)) = translated.iter().find(|(t, _)| t == name) else {
            return format!("no translated output {name}");
        };
        let (t, g) = (words_of(t), words_of(g));
        n += t.len();
        differ += t
            .iter()
            .zip(&g)
            .filter(|(a, b)| canon(**a) != canon(**b))
            .count();
        differ += t.len().abs_diff(g.len());
    }
    match (differ, r.agreement) {
        (0, _) => "bit-identical".into(),
        (d, Agreement::UnfusedFma) => format!("{d} of {n} differ (GLSL fma rounds twice)"),
        (d, Agreement::BitExact) => format!("**{d} of {n} differ**"),
    }
}

/// A way to run a translated kernel on the device: its name and the runner, which reuses the module the
/// cache holds from the same plan's earlier run (D149).
type Mapping = (
    &'static str,
    fn(&Context, &mut Plan, &rdna2spv_vulkan::DeviceProfile, &mut ModuleCache) -> Result<DeviceRun>,
);

/// The mappings measured; `--mapping` selects among them.
/// `wave` and `lane` are bounds-checked, as `run` runs by default (D158); `--checked-cost` adds their
/// unchecked forms (`run --unchecked`).
fn mappings() -> Vec<Mapping> {
    vec![
        ("wave", |c, p, pr, m| {
            run_vulkan_mapped_cached(c, p, pr, true, ControlFlow::default(), LowerMapping::Wave, m)
        }),
        ("lane", |c, p, pr, m| {
            run_vulkan_mapped_cached(c, p, pr, true, ControlFlow::default(), LowerMapping::Lane, m)
        }),
        ("wave-unchecked", |c, p, pr, m| {
            run_vulkan_mapped_cached(c, p, pr, false, ControlFlow::default(), LowerMapping::Wave, m)
        }),
        ("lane-unchecked", |c, p, pr, m| {
            run_vulkan_mapped_cached(c, p, pr, false, ControlFlow::default(), LowerMapping::Lane, m)
        }),
    ]
}

fn lower_mapping(name: &str) -> LowerMapping {
    if name.starts_with("lane") {
        LowerMapping::Lane
    } else {
        LowerMapping::Wave
    }
}

/// `OpControlBarrier`s of a SPIR-V module once calls are inlined (L51's exchange function holds one
/// met at each call; a GLSL module has no calls).
fn count_barriers(words: &[u32]) -> usize {
    rdna2spv_vulkan::limit::module_cost(words).barriers
}

/// The translated module of `m` in `mapping` as the runner lowers it ([`Plan::module`]), for its static
/// counts.
fn translated_module(
    m: &Manifest,
    profile: &rdna2spv_vulkan::DeviceProfile,
    mapping: &str,
) -> Result<Vec<u32>> {
    Plan::new(m)?.module(profile, lower_mapping(mapping))
}

/// The warm dispatches of one kernel at one scale (wall and CPU), and how many it takes.
#[derive(Default)]
struct Series {
    wall: Vec<Duration>,
    cpu: Vec<Duration>,
    target: usize,
}

impl Series {
    fn new(target: usize) -> Self {
        Series {
            target,
            ..Series::default()
        }
    }

    /// Records one warm dispatch. After the first, a short dispatch raises the target so that the series
    /// takes about `budget` of dispatch in all (at most `MAX_REPS` runs): one sub-millisecond dispatch moves
    /// with the machine's noise, a median of many does not.
    fn push(&mut self, wall: Duration, cpu: Duration, budget: Duration) {
        if self.wall.is_empty() && !budget.is_zero() {
            let each = wall.max(cpu).max(Duration::from_micros(1));
            let want = (budget.as_secs_f64() / each.as_secs_f64()).ceil() as usize;
            self.target = self.target.max(want.min(MAX_REPS));
        }
        self.wall.push(wall);
        self.cpu.push(cpu);
    }

    fn done(&self) -> bool {
        self.wall.len() >= self.target
    }
}

/// The translated kernel of `m` with `mapping`: its plan after one cold run, and its warm runs so far.
struct Translated {
    mapping: Mapping,
    plan: Plan,
    load_lift: Duration,
    first: DeviceRun,
    /// The first run's module, dispatched again by the warm runs: no lowering runs just before a timed
    /// dispatch (D149; the lowering's time is the cold run's).
    module: ModuleCache,
    series: Series,
    outputs: Vec<(String, Vec<u8>)>,
}

impl Translated {
    /// Loads, lifts and runs `m` once in `mapping` (the cold run: the pipeline compiles).
    fn cold(
        ctx: &Context,
        profile: &rdna2spv_vulkan::DeviceProfile,
        m: &Manifest,
        mapping: Mapping,
        reps: usize,
    ) -> Result<Self> {
        let t0 = Instant::now();
        let mut plan = Plan::new(m)?;
        let load_lift = t0.elapsed();
        let mut module = ModuleCache::default();
        let first = (mapping.1)(ctx, &mut plan, profile, &mut module)?;
        Ok(Translated {
            mapping,
            plan,
            load_lift,
            first,
            module,
            series: Series::new(reps),
            outputs: Vec::new(),
        })
    }

    /// One warm run (the pipeline must come from the cache); keeps the outputs of the latest.
    fn warm(
        &mut self,
        ctx: &Context,
        profile: &rdna2spv_vulkan::DeviceProfile,
        budget: Duration,
    ) -> Result<()> {
        let run = (self.mapping.1)(ctx, &mut self.plan, profile, &mut self.module)?;
        if !run.report.dispatch.pipeline_cached {
            bail!("a warm run compiled its pipeline again");
        }
        self.series
            .push(run.report.dispatch.dispatch, cpu(&run.report.dispatch), budget);
        self.outputs = run
            .buffers
            .iter()
            .filter_map(|b| b.output.clone().map(|n| (n, b.data.clone())))
            .collect();
        Ok(())
    }
}

/// Compile times already measured (wall, CPU): a GLSL kernel shared by two fixture builds (reduce,
/// reduce_w64), a translated module shared by two references of one fixture (saxpy, saxpy_exact) by
/// manifest and mapping. Their later first dispatches find the pipeline cached.
#[derive(Default)]
struct Compiled {
    glsl: HashMap<&'static str, (Duration, Duration)>,
    translated: HashMap<(&'static str, &'static str), (Duration, Duration)>,
}

fn bench_kernel(
    ctx: &Context,
    profile: &rdna2spv_vulkan::DeviceProfile,
    r: &Reference,
    o: &Options,
    root: &Path,
    scratch: &Path,
    seen: &mut Compiled,
) -> Result<(Vec<Compile>, Vec<RunRow>)> {
    let Compiled {
        glsl: glsl_compiles,
        translated: translated_compiles,
    } = seen;
    let m = Manifest::load(&root.join(r.manifest))?;
    let glsl_words = glsl_ref::compile_glsl(&root.join(r.glsl))?;
    let mut compiles = Vec::new();
    let mut rows = Vec::new();
    let cold = |s: &rdna2spv_vulkan::DispatchStats| s.pipeline_create + s.dispatch;
    for &k in &o.scales {
        let ms_ = glsl_ref::scaled(r, &m, k, scratch)?;
        // Cold runs first: the GLSL kernel (fresh buffers each time: in-place kernels change their
        // inputs), then each mapping's translated kernel.
        let setup = GlslSetup::new(ctx, r, &ms_)?;
        let glsl_first = setup.dispatch(ctx, &glsl_words)?;
        let glsl_outputs = setup.outputs()?;
        drop(setup);
        let mut translated = Vec::new();
        for mapping in mappings().into_iter().filter(|m| o.mappings.contains(&m.0)) {
            match Translated::cold(ctx, profile, &ms_, mapping, o.reps) {
                Ok(t) => translated.push(t),
                Err(e) => {
                    eprintln!("  {} x{k} ({}): {e:#}", r.name, mapping.0);
                    rows.push(not_run(r, mapping.0, k, &ms_, &e));
                }
            }
        }
        // Warm runs interleaved, a GLSL dispatch then one of each mapping in every round, so that a change
        // in the machine's load falls on both sides of each ratio alike. The GLSL runs are short and cheap:
        // at least GLSL_MIN_REPS of them.
        let mut glsl = Series::new(o.reps.max(GLSL_MIN_REPS));
        let mut failed = Vec::new();
        while !glsl.done() || translated.iter().any(|t| !t.series.done()) {
            if !glsl.done() {
                let setup = GlslSetup::new(ctx, r, &ms_)?;
                let st = setup.dispatch(ctx, &glsl_words)?;
                if !st.pipeline_cached {
                    bail!(
                        "{} x{k}: a warm GLSL run compiled its pipeline again",
                        r.name
                    );
                }
                glsl.push(st.dispatch, cpu(&st), o.budget);
            }
            let mut i = 0;
            while i < translated.len() {
                if !translated[i].series.done() {
                    if let Err(e) = translated[i].warm(ctx, profile, o.budget) {
                        let t = translated.remove(i);
                        eprintln!("  {} x{k} ({}): {e:#}", r.name, t.mapping.0);
                        failed.push(not_run(r, t.mapping.0, k, &ms_, &e));
                        continue;
                    }
                }
                i += 1;
            }
        }
        rows.extend(failed);
        let glsl_reps = glsl.wall.len();
        let gw = median(glsl.wall);
        let gw_cpu = median(glsl.cpu);
        if k == 1 {
            if !glsl_first.pipeline_cached {
                glsl_compiles.insert(
                    r.glsl,
                    (
                        cold(&glsl_first).saturating_sub(gw),
                        cpu(&glsl_first).saturating_sub(gw_cpu),
                    ),
                );
            } else if !glsl_compiles.contains_key(r.glsl) {
                bail!("{}: the GLSL pipeline came from the cache at 1x", r.name);
            }
        }
        // A GLSL kernel shared by two fixture builds (reduce, reduce_w64) compiles once.
        let (glsl_compile, glsl_compile_cpu) =
            glsl_compiles.get(r.glsl).copied().unwrap_or_default();
        for t in translated {
            let mapping = t.mapping;
            let reps = t.series.wall.len();
            let warm = median(t.series.wall);
            let warm_cpu = median(t.series.cpu);
            if k == 1 {
                // Two references of one fixture (saxpy, saxpy_exact) share the translated module: it
                // compiles once, for the first.
                let key = (r.manifest, mapping.0);
                let (compile, compile_cpu) = if t.first.report.dispatch.pipeline_cached {
                    match translated_compiles.get(&key) {
                        Some(c) => *c,
                        None => bail!(
                            "{} ({}): a pipeline came from the cache at 1x",
                            r.name,
                            mapping.0
                        ),
                    }
                } else {
                    let c = (
                        cold(&t.first.report.dispatch).saturating_sub(warm),
                        cpu(&t.first.report.dispatch).saturating_sub(warm_cpu),
                    );
                    translated_compiles.insert(key, c);
                    c
                };
                let module = translated_module(&ms_, profile, mapping.0)?;
                compiles.push(Compile {
                    name: r.name,
                    mapping: mapping.0,
                    bound: r.bound,
                    words: t.first.report.module_words,
                    glsl_words: glsl_words.len(),
                    barriers: count_barriers(&module),
                    glsl_barriers: count_barriers(&glsl_words),
                    load_lift: t.load_lift,
                    lower: t.first.report.lower_time,
                    compile,
                    glsl_compile,
                    compile_cpu,
                    glsl_compile_cpu,
                });
            }
            let row = RunRow {
                name: r.name,
                mapping: mapping.0,
                scale: k,
                items: ms_.grid[0],
                invocations: t.first.report.invocations,
                translated: warm,
                glsl: gw,
                translated_cpu: warm_cpu,
                glsl_cpu: gw_cpu,
                agree: agreement(r, &t.outputs, &glsl_outputs),
            };
            eprintln!(
                "  {} x{k} ({}): translated {} ms, GLSL {} ms, CPU {} / {} ms ({} / {} warm runs; {})",
                r.name,
                mapping.0,
                ms(row.translated),
                ms(gw),
                ms(warm_cpu),
                ms(gw_cpu),
                reps,
                glsl_reps,
                row.agree
            );
            rows.push(row);
        }
    }
    Ok((compiles, rows))
}

/// The row of a translated kernel that did not run (its error in the agreement column).
fn not_run(
    r: &Reference,
    mapping: &'static str,
    scale: u32,
    m: &Manifest,
    e: &anyhow::Error,
) -> RunRow {
    RunRow {
        name: r.name,
        mapping,
        scale,
        items: m.grid[0],
        invocations: 0,
        translated: Duration::ZERO,
        glsl: Duration::ZERO,
        translated_cpu: Duration::ZERO,
        glsl_cpu: Duration::ZERO,
        agree: format!("not run: {e:#}"),
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_string))
        .unwrap_or_default();
    format!("{cpu}, {cores} cores available, load average {load} at the start")
}

pub fn run(args: &[String]) -> Result<()> {
    let o = parse(args)?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("xtask has a parent")?
        .to_path_buf();
    let (text, _) = measure(&o, &root)?;
    println!("{text}");
    if o.write {
        let path = root.join("docs/performance.md");
        let doc = std::fs::read_to_string(&path)?;
        let new = splice(&doc, &text)?;
        std::fs::write(&path, new)?;
        eprintln!("wrote the device section of {}", path.display());
    }
    Ok(())
}

/// The `cargo xtask bench` section contract (xtask/src/bench.rs): the same measurement as `run --write`
/// (quick: one warm run at 1x), its Markdown, and the headline rows: per mapping, the worst and the median
/// run-time ratio to the hand-written GLSL over the kernels and scales (CPU time), and the median ratio at each
/// dispatch size (how the cost grows with the dispatch).
pub fn section(opts: &crate::bench::Opts) -> Result<crate::bench::Section> {
    let mut o = parse(&[])?;
    if opts.quick {
        o.reps = 1;
        o.budget = Duration::ZERO;
        o.scales = vec![1];
    }
    let (markdown, ratios) = measure(&o, &opts.root)?;
    let mut headlines = Vec::new();
    let mut json = serde_json::Map::new();
    for m in &o.mappings {
        let of = |scale: Option<u32>| -> Vec<(&'static str, f64)> {
            ratios
                .iter()
                .filter(|r| r.0 == *m && scale.is_none_or(|s| r.1 == s))
                .map(|r| (r.2, r.3))
                .collect()
        };
        let all = of(None);
        let Some(&(worst_name, worst)) = all.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
            continue;
        };
        let median = median_f64(all.iter().map(|r| r.1).collect());
        headlines.push((
            format!("device run time, {m} mapping vs hand-written GLSL: worst kernel"),
            format!("{worst:.1}× ({worst_name})"),
            "≤ 2×".to_string(),
        ));
        headlines.push((
            format!(
                "device run time, {m} mapping vs hand-written GLSL: median of {} kernel-scale runs",
                all.len()
            ),
            format!("{median:.1}×"),
            "≤ 2×".to_string(),
        ));
        let growth: Vec<String> = o
            .scales
            .iter()
            .filter_map(|&s| {
                let v = of(Some(s));
                (!v.is_empty())
                    .then(|| format!("{:.1}×", median_f64(v.iter().map(|r| r.1).collect())))
            })
            .collect();
        if growth.len() > 1 {
            headlines.push((
                format!(
                    "device run time, {m} mapping vs GLSL, growth with dispatch size (median at {})",
                    o.scales
                        .iter()
                        .map(|s| format!("{s}×"))
                        .collect::<Vec<_>>()
                        .join(" → ")
                ),
                growth.join(" → "),
                "—".to_string(),
            ));
        }
        json.insert(
            m.to_string(),
            serde_json::json!({ "worst": worst, "worst_kernel": worst_name, "median": median,
                "runs": all.iter().map(|r| serde_json::json!({ "kernel": r.0, "ratio": r.1 })).collect::<Vec<_>>() }),
        );
    }
    let json = serde_json::Value::Object(json);
    Ok(crate::bench::Section {
        markdown,
        json,
        headlines,
    })
}

/// (mapping, scale, kernel, translated / GLSL CPU-time ratio) of one measured run.
type Ratio = (&'static str, u32, &'static str, f64);

fn median_f64(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Measures the selected kernels; the section's Markdown and the CPU-time ratio of every run that dispatched.
fn measure(o: &Options, root: &Path) -> Result<(String, Vec<Ratio>)> {
    if std::env::var_os("MESA_SHADER_CACHE_DISABLE").is_none() {
        // Before the instance exists: every first dispatch must compile.
        std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");
    }
    let machine = machine();
    let ctx = Context::new(DeviceSelector::from_env()).context("opening a Vulkan device")?;
    let profile = profile_of(&ctx, ProfileChoice::Device)?;
    let device = format!(
        "{} ({} / {})",
        ctx.info().name,
        ctx.info().driver_name,
        ctx.info().driver_info
    );
    let scratch =
        std::env::temp_dir().join(format!("rdna2spv-bench-device-{}", std::process::id()));
    let names: Vec<&str> = REFERENCES
        .iter()
        .chain(WAVE64_REFERENCES)
        .map(|r| r.name)
        .collect();
    if let Some(unknown) = o
        .only
        .iter()
        .flatten()
        .find(|n| !names.contains(&n.as_str()))
    {
        bail!("--only: no kernel {unknown}; the kernels: {}", names.join(", "));
    }
    let selected: Vec<&Reference> = REFERENCES
        .iter()
        .chain(WAVE64_REFERENCES)
        .filter(|r| {
            o.only
                .as_ref()
                .is_none_or(|l| l.iter().any(|n| n == r.name))
        })
        .collect();
    if selected.is_empty() {
        bail!("no kernel selected; the kernels: {}", names.join(", "));
    }
    let started = Instant::now();
    let mut compiles = Vec::new();
    let mut rows = Vec::new();
    let mut seen = Compiled::default();
    for r in selected {
        eprintln!("{} ...", r.name);
        let (mut c, mut rr) =
            bench_kernel(&ctx, &profile, r, o, root, &scratch, &mut seen)?;
        compiles.append(&mut c);
        rows.append(&mut rr);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let text = report(o, &machine, &device, &compiles, &rows, started.elapsed());
    let ratios = rows
        .iter()
        .filter(|r| r.invocations > 0)
        .map(|r| (r.mapping, r.scale, r.name, cpu_ratio(r)))
        .collect();
    Ok((text, ratios))
}

fn cpu_ratio(r: &RunRow) -> f64 {
    r.translated_cpu.as_secs_f64() / r.glsl_cpu.as_secs_f64().max(1e-9)
}

/// `doc` with the text between the device markers replaced (the markers appended when missing).
fn splice(doc: &str, body: &str) -> Result<String> {
    match (doc.find(BEGIN), doc.find(END)) {
        (Some(b), Some(e)) if b < e => Ok(format!(
            "{}{BEGIN}\n{body}\n{END}{}",
            &doc[..b],
            &doc[e + END.len()..]
        )),
        (None, None) => Ok(format!("{}\n\n{BEGIN}\n{body}\n{END}\n", doc.trim_end())),
        _ => bail!("docs/performance.md has unbalanced {BEGIN} / {END} markers"),
    }
}

fn report(
    o: &Options,
    machine: &str,
    device: &str,
    compiles: &[Compile],
    rows: &[RunRow],
    wall: Duration,
) -> String {
    let mut s = String::new();
    let scales: Vec<String> = o.scales.iter().map(|k| format!("{k}x")).collect();
    s += "## Translated kernels on the device vs hand-written GLSL (issues 10, 13)\n\n";
    s += &format!(
        "`cargo xtask bench device --write` (release build; medians of at least {} warm runs of each translated kernel and {} of each GLSL kernel, \
         more for short dispatches until a series adds up to {} ms (at most {MAX_REPS} runs), GLSL and translated runs alternating; scales {}; \
         {:.0} s). Machine: {machine}. Device: {device}, Mesa's shader cache off. Mappings: {} \
         (wave: one invocation per wave, D006; lane: one invocation per lane, D082).\n\n",
        o.reps,
        o.reps.max(GLSL_MIN_REPS),
        o.budget.as_millis(),
        scales.join(", "),
        wall.as_secs_f64(),
        o.mappings.join(" and ")
    );
    s += "The GLSL kernels (`fixtures/glsl/*.comp`, glslang) compute the same operations in the same order on the \
          same data: bit-identical outputs (NaN payloads aside, D005), checked by `tests/glsl_reference.rs` and \
          again at every scale below; `saxpy` alone differs because its one operation is a fused multiply-add \
          and lavapipe's GLSL `fma` rounds twice (the translated kernel emulates the single rounding).\n\n";
    s += "Times are wall clock, and CPU time (all threads of the process, CLOCK_PROCESS_CPUTIME_ID, D139) where \
          marked: lavapipe's workers run in the process, so the CPU time is the work itself, while wall \
          clock on a loaded machine adds waiting for a core. The ratios that matter are the CPU ones.\n\n";
    s += "**Translation vs the driver's compile** (at 1x; compile = first dispatch − warm dispatch; goal: translation ≤ 5% of compile)\n\n";
    s += "| kernel | mapping | bound | module words (translated / GLSL) | barriers (translated / GLSL) | load + lift ms | lower ms | translation / compile | translated compile ms (CPU) | GLSL compile ms (CPU) | compile ratio (CPU) |\n";
    s += "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for c in compiles {
        let trans = c.load_lift + c.lower;
        let pct = 100.0 * trans.as_secs_f64() / c.compile.as_secs_f64().max(1e-9);
        let ratio = c.compile_cpu.as_secs_f64() / c.glsl_compile_cpu.as_secs_f64().max(1e-9);
        s += &format!(
            "| {} | {} | {} | {} / {} | {} / {} | {} | {} | {pct:.1}% | {} ({}) | {} ({}) | {ratio:.1}× |\n",
            c.name,
            c.mapping,
            c.bound,
            c.words,
            c.glsl_words,
            c.barriers,
            c.glsl_barriers,
            ms(c.load_lift),
            ms(c.lower),
            ms(c.compile),
            ms(c.compile_cpu),
            ms(c.glsl_compile),
            ms(c.glsl_compile_cpu),
        );
    }
    s += "\n**Run time, translated vs GLSL** (warm dispatch, median; goal ≤ 2×)\n\n";
    s += "| kernel | mapping | scale | work-items | invocations | translated ms (CPU) | GLSL ms (CPU) | translated / GLSL, CPU (wall) | outputs |\n";
    s += "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
    for r in rows {
        let ratio = if r.invocations == 0 {
            "—".to_string()
        } else {
            format!(
                "{:.1}× ({:.1}×)",
                r.translated_cpu.as_secs_f64() / r.glsl_cpu.as_secs_f64().max(1e-9),
                r.translated.as_secs_f64() / r.glsl.as_secs_f64().max(1e-9)
            )
        };
        s += &format!(
            "| {} | {} | {}x | {} | {} | {} ({}) | {} ({}) | {ratio} | {} |\n",
            r.name,
            r.mapping,
            r.scale,
            r.items,
            r.invocations,
            ms(r.translated),
            ms(r.translated_cpu),
            ms(r.glsl),
            ms(r.glsl_cpu),
            r.agree
        );
    }
    s += &lane_table(o, compiles, rows);
    s += &checked_table(rows);
    let mut ratios: Vec<f64> = rows
        .iter()
        .filter(|r| r.mapping == "wave" && r.invocations > 0)
        .map(|r| r.translated_cpu.as_secs_f64() / r.glsl_cpu.as_secs_f64().max(1e-9))
        .collect();
    ratios.sort_by(f64::total_cmp);
    let worst_pct = compiles
        .iter()
        .map(|c| 100.0 * (c.load_lift + c.lower).as_secs_f64() / c.compile.as_secs_f64().max(1e-9))
        .fold(0.0, f64::max);
    let range = |v: Vec<f64>| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(0.0, f64::max);
        format!("{lo:.0}–{hi:.0}×")
    };
    let size = range(
        compiles
            .iter()
            .filter(|c| c.mapping == "wave")
            .map(|c| c.words as f64 / c.glsl_words.max(1) as f64)
            .collect(),
    );
    let compile = range(
        compiles
            .iter()
            .filter(|c| c.mapping == "wave")
            .map(|c| c.compile_cpu.as_secs_f64() / c.glsl_compile_cpu.as_secs_f64().max(1e-9))
            .collect(),
    );
    if let (Some(lo), Some(hi)) = (ratios.first(), ratios.last()) {
        let median = ratios[ratios.len() / 2];
        let met = |ok: bool| if ok { "met" } else { "not met" };
        let (compile_goal, run_goal) = (met(worst_pct <= 5.0), met(*hi <= 2.0));
        s += &format!(
            "\nTranslation (load, lift and lower, either mapping) costs at most {worst_pct:.1}% of lavapipe's \
             compile of the module it produces (goal ≤ 5%: {compile_goal}). In the wave mapping the translated \
             kernels take {lo:.0}× to {hi:.0}× the GLSL kernels' CPU time (median {median:.0}×; goal ≤ 2×: \
             {run_goal}), and the translated time grows linearly with the waves while the GLSL time at 1x and \
             10x is mostly fixed dispatch cost. What is structurally different in that mapping: one invocation runs a whole wave, so the SPIR-V workgroup holds only the kernel's \
             waves (`LocalSize 2 1 1` for 64 work-items in wave32) and lavapipe's 8-wide SIMD rows run mostly \
             empty; every vector instruction is a `DontUnroll` loop over the 32 lanes through private \
             register arrays (a per-lane loop counter guards lavapipe's loop cap); and the module, {size} \
             the GLSL module's size, takes {compile} as long to compile. The GLSL kernel runs one work-item \
             per SIMD lane. The lane-per-invocation mapping (issue 13: one invocation per lane, wave state \
             shared through workgroup memory, since lavapipe's subgroups are verified to be 8 wide, D085) \
             removes the lane loops and fills the SIMD rows: its figures are the `lane` rows and the table \
             above.\n"
        );
    }
    s
}

/// Checked (the default, D158) vs unchecked (`run --unchecked`) per kernel, mapping and scale (CPU time of
/// the warm dispatch, both measured in this run, their warm runs interleaved); goal ≤ 1.3×. Empty without
/// `--checked-cost`.
fn checked_table(rows: &[RunRow]) -> String {
    let mut s = String::new();
    let mut worst: f64 = 0.0;
    for r in rows.iter().filter(|r| r.mapping == "wave" || r.mapping == "lane") {
        let Some(u) = rows.iter().find(|u| {
            u.name == r.name
                && u.scale == r.scale
                && u.mapping.strip_suffix("-unchecked") == Some(r.mapping)
        }) else {
            continue;
        };
        if s.is_empty() {
            s += "\n**Checked vs unchecked** (D158; `--checked-cost`: CPU ms of the warm dispatch, median; goal: \
                  checked ≤ 1.3× unchecked)\n\n\
                  | kernel | mapping | scale | checked ms | unchecked ms | checked / unchecked |\n\
                  | --- | --- | ---: | ---: | ---: | ---: |\n";
        }
        if r.invocations == 0 || u.invocations == 0 {
            s += &format!("| {} | {} | {}x | — | — | not run |\n", r.name, r.mapping, r.scale);
            continue;
        }
        let ratio = r.translated_cpu.as_secs_f64() / u.translated_cpu.as_secs_f64().max(1e-9);
        worst = worst.max(ratio);
        s += &format!(
            "| {} | {} | {}x | {} | {} | {ratio:.2}× |\n",
            r.name,
            r.mapping,
            r.scale,
            ms(r.translated_cpu),
            ms(u.translated_cpu)
        );
    }
    if !s.is_empty() {
        let met = if worst <= 1.3 { "met" } else { "not met" };
        s += &format!("\nWorst checked / unchecked ratio: {worst:.2}× (goal ≤ 1.3×: {met}).\n");
    }
    s
}

/// Lane vs wave vs GLSL per kernel and scale (CPU time), with the 2× goal judged per kernel on the lane
/// mapping at every scale measured.
fn lane_table(o: &Options, compiles: &[Compile], rows: &[RunRow]) -> String {
    if !o.mappings.contains(&"lane") {
        return String::new();
    }
    let mut s = String::from(
        "\n**Lane vs wave vs hand-written GLSL** (issue 13; CPU ms of the warm dispatch, median; goal: lane \
         within 2× of GLSL at every scale)\n\n\
         | kernel | lane module words / barriers | GLSL module words / barriers | scale | wave ms | lane ms | GLSL ms | wave / GLSL | lane / GLSL | lane vs wave |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.name) {
            names.push(r.name);
        }
    }
    let mut verdicts = Vec::new();
    for name in &names {
        let lc = compiles
            .iter()
            .find(|c| c.name == *name && c.mapping == "lane");
        let mut worst: Option<f64> = None;
        let mut all_run = true;
        for &k in &o.scales {
            let get = |m: &str| {
                rows.iter()
                    .find(|r| r.name == *name && r.mapping == m && r.scale == k)
            };
            let Some(lane) = get("lane") else { continue };
            let wave = get("wave");
            fn ok(r: Option<&RunRow>) -> Option<&RunRow> {
                r.filter(|r| r.invocations > 0)
            }
            let cell =
                |r: Option<&RunRow>| ok(r).map_or("—".to_string(), |r| ms(r.translated_cpu));
            let ratio = |r: Option<&RunRow>| {
                ok(r).map_or("—".to_string(), |r| format!("{:.1}×", cpu_ratio(r)))
            };
            let lane_ok = ok(Some(lane));
            if let Some(l) = lane_ok {
                worst = Some(worst.unwrap_or(0.0).max(cpu_ratio(l)));
            } else {
                all_run = false;
            }
            let speedup = match (ok(wave), lane_ok) {
                (Some(w), Some(l)) => format!(
                    "{:.1}× faster",
                    w.translated_cpu.as_secs_f64() / l.translated_cpu.as_secs_f64().max(1e-9)
                ),
                _ => "—".into(),
            };
            s += &format!(
                "| {name} | {} | {} | {k}x | {} | {} | {} | {} | {} | {speedup} |\n",
                lc.map_or("—".into(), |c| format!("{} / {}", c.words, c.barriers)),
                lc.map_or("—".into(), |c| format!(
                    "{} / {}",
                    c.glsl_words, c.glsl_barriers
                )),
                cell(wave),
                cell(Some(lane)),
                ms(lane.glsl_cpu),
                ratio(wave),
                ratio(Some(lane)),
            );
        }
        verdicts.push(match (worst, all_run) {
            (Some(w), true) if w <= 2.0 => format!("{name}: met (worst {w:.1}×)"),
            (Some(w), true) => format!("{name}: **not met** (worst {w:.1}×)"),
            _ => format!("{name}: **not met** (the lane mapping did not run at every scale)"),
        });
    }
    s += &format!(
        "\nGoal (lane mapping within 2× of the hand-written kernel, CPU time, every scale), per kernel: {}.\n",
        verdicts.join("; ")
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_only_the_device_section() {
        let doc = format!("a\n{BEGIN}\nold\n{END}\nb\n");
        assert_eq!(
            splice(&doc, "new").unwrap(),
            format!("a\n{BEGIN}\nnew\n{END}\nb\n")
        );
        assert_eq!(
            splice("a\n", "x").unwrap(),
            format!("a\n\n{BEGIN}\nx\n{END}\n")
        );
        assert!(splice(&format!("{END}{BEGIN}"), "x").is_err());
    }
}
