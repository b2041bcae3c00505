//! `cargo xtask bench corpus-size`: module size and lavapipe's cold compile of real library kernels (issue 31,
//! decision D164).
//!
//! * Kernels: a fixed, seeded sample of the rocSPARSE corpus (`cargo xtask corpus rocsparse`): every kernel with
//!   distinct code, in (code object, name) order, shuffled with a fixed seed; the first
//!   `RDNA2SPV_CORPUS_SIZE_SAMPLE` (default 200) of them, plus the `RDNA2SPV_CORPUS_SIZE_LARGEST` (default 20)
//!   largest by machine instructions.
//! * Each is translated here (lifted, mapping chosen as `run --mapping auto` does, lowered for lavapipe's
//!   probed profile): module words of the unchecked module (what `rdna2spv corpus` counts) and of the checked
//!   one without fault records (what `rdna2spv run` compiles by default, D158, D184; a run that faults compiles
//!   the module with records next), words per instruction and
//!   k = (words − 3000) / instructions, the figure of issue 31's goal.
//! * The cold compile is measured in a child process (`xtask compile-probe`, this binary) so that its peak
//!   memory is its own: the Mesa shader cache off, the checked module dispatched as one workgroup with a
//!   zero-filled kernarg segment (lavapipe compiles inside the first dispatch), then dispatched again (the
//!   pipeline cached: the lowering and the run alone). Most waves fault at their first global access and stop,
//!   but some kernels run for seconds on zero arguments (rocPRIM's fill_digit_counts: half of the first
//!   dispatch), so the compile CPU is the first dispatch's process CPU less the second's. The child runs under
//!   an address-space limit (`RDNA2SPV_CORPUS_SIZE_AS_GB`, default 8) and a wall-clock limit
//!   (`RDNA2SPV_CORPUS_SIZE_TIMEOUT_S`, default 300); the parent reads its wall time, whole CPU time (user +
//!   system, all of lavapipe's threads) and peak resident memory (`ru_maxrss`) from `wait4`.
//! * Resumable: every measured kernel is appended to `corpus-size.jsonl` in the corpus directory, keyed by
//!   the kernel, a hash of its checked module and the limits; a re-run measures only what is not there (a
//!   changed lowering, as after the modsize branch, changes the hash and re-measures). `RDNA2SPV_CORPUS_SIZE_ONLY`
//!   (a number n) stops after n kernels measured in this run, so a long run can be split.
//! * One cold compile per module: lavapipe's compile of one module varies by up to ±30 % between runs
//!   (CoroSplit numbers the blocks in pointer order, D212), so a single kernel's figure is one draw.
//! * The section reports the medians and worst cases, the fit of compile time and peak memory against module
//!   words (the numbers behind the translator's module-size limit, D164), where the sample's words go (its
//!   unchecked modules by origin, `word_census`) and a table of every kernel.

use crate::bench::{best_of_cpu, progress, Opts, Section};
use crate::word_census::{census, ORIGINS};
use anyhow::{bail, Context as _, Result};
use rdna2spv::corpus::{self, Index};
use rdna2spv::dispatch::{launch_segments, lift_options};
use rdna2spv_codeobj::{CodeObject, Kernel};
use rdna2spv_ir::lift::lift;
use rdna2spv_spirv::lower::{choose_mapping, lower_with, LowerOptions, Mapping};
use rdna2spv_vulkan::{kernel_layout, Context, DeviceProfile};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

const SEED: u64 = 0x3100_5eed;

/// This process's CPU time (all threads: lavapipe compiles on its queue thread and runs on llvmpipe's
/// workers), in seconds.
fn process_cpu() -> f64 {
    crate::bench::process_cpu_seconds().unwrap_or(f64::NAN)
}

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// splitmix64: the sample's shuffle (fixed seed, no dependency).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn fnv(words: &[u32]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for w in words {
        for b in w.to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

struct Cand {
    file: String,
    kernel: usize,
    name: String,
    insts: usize,
    largest: bool,
}

/// The mapping `run --mapping auto` takes, the unchecked module's length, the checked module, and the
/// unchecked module's words by origin ([`census`]).
fn translate(
    co: &CodeObject,
    k: &Kernel,
    profile: &DeviceProfile,
) -> Result<(Mapping, usize, Vec<u32>, [u64; ORIGINS.len()])> {
    let program =
        lift(&k.name, &k.code, lift_options(co, k)).map_err(|e| anyhow::anyhow!("lift: {e}"))?;
    let launch = crate::bench_translate::launch_for(k, 0);
    let layout = kernel_layout(&launch);
    // What `run` compiles by default: checked, without fault records (D184; a fault re-runs with them),
    // with the launch segments `run` gives every code object kernel (D132, D281).
    let checked = LowerOptions {
        checked: Some(1),
        check_flag_only: true,
        segments: launch_segments(k),
        ..LowerOptions::default()
    };
    let mapping = choose_mapping(&program, &layout, profile, &checked).mapping();
    let plain = lower_with(
        &program,
        &layout,
        profile,
        &LowerOptions {
            mapping,
            segments: launch_segments(k),
            ..LowerOptions::default()
        },
    )
    .map_err(|e| anyhow::anyhow!("lower: {e}"))?;
    let words = lower_with(
        &program,
        &layout,
        profile,
        &LowerOptions { mapping, ..checked },
    )
    .map_err(|e| anyhow::anyhow!("lower (checked): {e}"))?;
    Ok((mapping, plain.len(), words, census(&plain)))
}

/// The child's side: `xtask compile-probe CO KERNEL_INDEX PROFILE_JSON TIMEOUT_S`. Prints one JSON line.
pub fn probe_main(args: &[String]) -> Result<()> {
    let [co_path, kernel, profile, timeout] = args else {
        bail!("usage: xtask compile-probe CODE_OBJECT KERNEL_INDEX PROFILE_JSON TIMEOUT_S");
    };
    std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");
    let co = CodeObject::parse(&std::fs::read(co_path)?)?;
    let k = co
        .kernels
        .get(kernel.parse::<usize>()?)
        .context("no such kernel")?;
    let profile: DeviceProfile = serde_json::from_str(&std::fs::read_to_string(profile)?)?;
    let program =
        lift(&k.name, &k.code, lift_options(&co, k)).map_err(|e| anyhow::anyhow!("lift: {e}"))?;
    let ctx = Context::new(rdna2spv_vulkan::DeviceSelector::from_env())?
        .with_timeout(Duration::from_secs(timeout.parse()?))
        .with_max_module_words(None);
    // The launch segments the module is lowered with (D132, D281) exist, as in `run`: a zero-filled
    // kernarg buffer of at least the runner's size and the dispatch packet `run` writes. A scalar load
    // proven inside a segment is not bounds-checked, so a segment missing here would be read wild.
    let kernarg_bytes = rdna2spv::dispatch::kernarg_bytes(k)
        .max(k.descriptor.kernarg_size as u64)
        .max(256);
    let kernarg = ctx.create_buffer(kernarg_bytes)?;
    let addr = kernarg.device_address();
    let wg = rdna2spv::corpus::workgroup_of(k);
    let mut packet = ctx.create_buffer(rdna2spv::dispatch::AQL_PACKET_BYTES as u64)?;
    packet.upload(0, &rdna2spv::dispatch::dispatch_packet(k, wg, wg, 0, addr))?;
    let packet_addr = packet.device_address();
    let launch = crate::bench_translate::launch_with(k, addr, packet_addr);
    let layout = kernel_layout(&launch);
    let checked = LowerOptions {
        checked: Some(1),
        segments: launch_segments(k),
        ..LowerOptions::default()
    };
    let mapping = choose_mapping(&program, &layout, &profile, &checked).mapping();
    let opts = LowerOptions {
        mapping,
        check_flag_only: true,
        segments: launch_segments(k),
        ..LowerOptions::default()
    };
    // `RDNA2SPV_PROBE_ALLOCATIONS=N`: N registered allocations, as a HIP program's checked launch
    // registers every live one (the kernarg segment and N − 1 ranges of 1 MiB nothing points into), to
    // measure how the checked module grows with them.
    let extra = std::env::var("RDNA2SPV_PROBE_ALLOCATIONS")
        .ok()
        .and_then(|n| n.parse::<u64>().ok())
        .map_or(0, |n| n.saturating_sub(1));
    let allocations: Vec<(u64, u64)> = [
        (addr, kernarg_bytes),
        (packet_addr, rdna2spv::dispatch::AQL_PACKET_BYTES as u64),
    ]
    .into_iter()
    .chain((0..extra).map(|i| ((1 << 44) + (i << 24), 1 << 20)))
    .collect();
    let run_opts = rdna2spv_vulkan::RunOptions {
        lower: opts,
        allocations: &allocations,
    };
    // `RDNA2SPV_PROBE_DUMP=FILE`: the module the cold run compiles, for ablations (`spirv-dis`, D245);
    // with `RDNA2SPV_PROBE_DUMP_ONLY=1` the probe stops there (no compile, no dispatch).
    if let Ok(path) = std::env::var("RDNA2SPV_PROBE_DUMP") {
        let words = rdna2spv_vulkan::lower_for_run(&ctx, &program, &launch, &profile, &run_opts)?;
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).with_context(|| format!("writing {path}"))?;
        if std::env::var_os("RDNA2SPV_PROBE_DUMP_ONLY").is_some() {
            return Ok(());
        }
    }
    let run = || rdna2spv_vulkan::run_program(&ctx, &program, &launch, &profile, &run_opts);
    let outcome_of = |r: &Result<rdna2spv_vulkan::RunReport, rdna2spv_vulkan::RunError>| match r {
        Ok(_) => "finished".to_string(),
        Err(
            rdna2spv_vulkan::RunError::OutOfBounds { .. }
            | rdna2spv_vulkan::RunError::FaultUnrecorded { .. },
        ) => "fault".to_string(),
        Err(rdna2spv_vulkan::RunError::NotFinished { what, .. }) => what.to_string(),
        Err(rdna2spv_vulkan::RunError::Vulkan(rdna2spv_vulkan::Error::Timeout { .. })) => {
            "timeout".to_string()
        }
        Err(e) => format!("error: {e}"),
    };
    // The cold run: lowering, lavapipe's compile (inside the first dispatch) and the run of one workgroup.
    let (cpu0, t) = (process_cpu(), Instant::now());
    let r = run();
    let (wall, cold_cpu) = (t.elapsed().as_secs_f64(), process_cpu() - cpu0);
    let outcome = outcome_of(&r);
    let report = r.as_ref().ok().copied();
    // The same dispatch again: the pipeline is cached in the context, so this is the lowering and the run
    // alone. With zero-filled arguments some kernels run for many seconds (rocPRIM's fill_digit_counts: 22
    // of its 38 s were its run on llvmpipe's worker thread, not the compile), so the compile is the
    // difference. Not after a timeout: the context may still be compiling.
    let warm = (outcome != "timeout").then(|| {
        let cpu1 = process_cpu();
        let r2 = run();
        (process_cpu() - cpu1, outcome_of(&r2))
    });
    println!(
        "{}",
        json!({
            "outcome": outcome,
            "lower_and_dispatch_s": wall,
            "cold_cpu_s": cold_cpu,
            "warm_cpu_s": warm.as_ref().map(|w| w.0),
            "warm_outcome": warm.as_ref().map(|w| w.1.clone()),
            "compile_cpu_s": warm.as_ref().map(|w| (cold_cpu - w.0).max(0.0)),
            "pipeline_create_s": report.map(|r| r.dispatch.pipeline_create.as_secs_f64()),
            "dispatch_s": report.map(|r| r.dispatch.dispatch.as_secs_f64()),
        })
    );
    std::io::stdout().flush()?;
    // A timed-out context may still be compiling: leave without running its destructors.
    if outcome == "timeout" {
        std::process::exit(3);
    }
    drop(kernarg);
    Ok(())
}

pub(crate) struct Child {
    pub(crate) wall_s: f64,
    pub(crate) cpu_s: f64,
    pub(crate) maxrss_kb: i64,
    pub(crate) status: String,
    /// The child's whole output.
    pub(crate) text: String,
}

impl Child {
    /// The last line of the child's output that parses as JSON (`compile-probe`'s report), or null.
    fn report(&self) -> Value {
        self.text
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .unwrap_or(Value::Null)
    }
}

/// Runs the probe in a child process under an address-space limit and a wall-clock limit, and reads its
/// resource usage.
pub(crate) fn run_child(
    sub: &str,
    args: &[String],
    envs: &[(&str, &str)],
    as_bytes: u64,
    timeout: Duration,
) -> Result<Child> {
    use std::os::unix::process::CommandExt as _;
    let exe = std::env::current_exe()?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg(sub)
        .args(args)
        .envs(envs.iter().copied())
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: as_bytes,
                rlim_max: as_bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let t = Instant::now();
    let mut child = cmd.spawn().context("starting the compile probe")?;
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.take().context("child stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid value; wait4 writes it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let mut killed = false;
    loop {
        // SAFETY: pid is our child; status and ru are valid pointers.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        if r == pid {
            break;
        }
        if r < 0 {
            bail!("wait4: {}", std::io::Error::last_os_error());
        }
        if !killed && t.elapsed() > timeout + Duration::from_secs(30) {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let wall_s = t.elapsed().as_secs_f64();
    let text = reader.join().unwrap_or_default();
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let status = if killed {
        format!(
            "killed at the wall-clock limit ({} s)",
            (timeout + Duration::from_secs(30)).as_secs()
        )
    } else if libc::WIFEXITED(status) {
        format!("exit {}", libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        format!("signal {}", libc::WTERMSIG(status))
    } else {
        format!("status {status}")
    };
    Ok(Child {
        wall_s,
        cpu_s: tv(ru.ru_utime) + tv(ru.ru_stime),
        maxrss_kb: ru.ru_maxrss,
        status,
        text,
    })
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Least squares y = a + b·x.
fn fit(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    if points.len() < 2 {
        return (f64::NAN, f64::NAN);
    }
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (x, y) in points {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
    }
    let b = sxy / sxx;
    (my - b * mx, b)
}

/// Least squares y = a + b·x1 + c·x2 (normal equations, Cramer's rule).
fn fit2(points: &[(f64, f64, f64)]) -> (f64, f64, f64) {
    if points.len() < 3 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let n = points.len() as f64;
    let mean = |f: &dyn Fn(&(f64, f64, f64)) -> f64| points.iter().map(f).sum::<f64>() / n;
    let (m1, m2, my) = (mean(&|p| p.0), mean(&|p| p.1), mean(&|p| p.2));
    let (mut s11, mut s22, mut s12, mut s1y, mut s2y) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (x1, x2, y) in points {
        let (d1, d2, dy) = (x1 - m1, x2 - m2, y - my);
        s11 += d1 * d1;
        s22 += d2 * d2;
        s12 += d1 * d2;
        s1y += d1 * dy;
        s2y += d2 * dy;
    }
    let det = s11 * s22 - s12 * s12;
    let b = (s1y * s22 - s2y * s12) / det;
    let c = (s11 * s2y - s12 * s1y) / det;
    (my - b * m1 - c * m2, b, c)
}

pub fn section(opts: &Opts) -> Result<Section> {
    std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");
    let dir = corpus::default_dir().context("HOME or RDNA2SPV_CORPUS_DIR")?;
    let index = Index::load(&dir)?;
    let n_sample = env_num(
        "RDNA2SPV_CORPUS_SIZE_SAMPLE",
        if opts.quick { 6 } else { 200 },
    ) as usize;
    let n_largest = env_num(
        "RDNA2SPV_CORPUS_SIZE_LARGEST",
        if opts.quick { 0 } else { 20 },
    ) as usize;
    let as_gb = env_num("RDNA2SPV_CORPUS_SIZE_AS_GB", 8);
    let timeout_s = env_num("RDNA2SPV_CORPUS_SIZE_TIMEOUT_S", 300);
    let only = env_num("RDNA2SPV_CORPUS_SIZE_ONLY", u64::MAX);

    // Every kernel with distinct code, in (code object, name) order.
    let mut cos: HashMap<String, CodeObject> = HashMap::new();
    let mut cands = Vec::new();
    let mut seen = HashSet::new();
    for b in &index.bundles {
        let Some(f) = &b.code_object else { continue };
        let bytes = std::fs::read(dir.join("co").join(f))?;
        let co = CodeObject::parse(&bytes).with_context(|| format!("parsing {f}"))?;
        let target = rdna2spv::dispatch::target_of(&co);
        for (ki, k) in co.kernels.iter().enumerate() {
            if !seen.insert(k.code.clone()) {
                continue;
            }
            cands.push(Cand {
                file: f.clone(),
                kernel: ki,
                name: k.name.clone(),
                insts: crate::bench_translate::count_insts(&k.code, target),
                largest: false,
            });
        }
        cos.insert(f.clone(), co);
    }
    cands.sort_by(|a, b| (&a.file, &a.name).cmp(&(&b.file, &b.name)));
    let total = cands.len();
    // Fisher–Yates with the fixed seed.
    let mut state = SEED;
    for i in (1..cands.len()).rev() {
        let j = (splitmix(&mut state) % (i as u64 + 1)) as usize;
        cands.swap(i, j);
    }
    let mut chosen: Vec<Cand> = Vec::new();
    let mut rest: Vec<Cand> = Vec::new();
    for (i, c) in cands.into_iter().enumerate() {
        if i < n_sample {
            chosen.push(c);
        } else {
            rest.push(c);
        }
    }
    rest.sort_by_key(|c| std::cmp::Reverse(c.insts));
    for mut c in rest.into_iter().take(n_largest) {
        c.largest = true;
        chosen.push(c);
    }
    // Smallest first: a long run yields the most points before the slow giants.
    chosen.sort_by_key(|c| (c.largest, c.insts));
    progress(format!(
        "corpus-size: {} kernels ({n_sample} sampled of {total} distinct, {n_largest} largest), child limits {as_gb} GB address space, {timeout_s} s",
        chosen.len()
    ));

    let ctx = Context::new(rdna2spv_vulkan::DeviceSelector::from_env())
        .context("opening the Vulkan device (lavapipe)")?;
    let profile = rdna2spv_vulkan::probe(&ctx).context("probing the device")?;
    let device = ctx.info().name.clone();
    drop(ctx);
    let profile_path =
        std::env::temp_dir().join(format!("rdna2spv-profile-{}.json", std::process::id()));
    std::fs::write(&profile_path, serde_json::to_string(&profile)?)?;

    let cache_path = dir.join("corpus-size.jsonl");
    let mut cache: HashMap<String, Value> = HashMap::new();
    if let Ok(text) = std::fs::read_to_string(&cache_path) {
        for l in text.lines() {
            if let Ok(v) = serde_json::from_str::<Value>(l) {
                if let Some(k) = v["key"].as_str() {
                    cache.insert(k.to_string(), v);
                }
            }
        }
    }
    let mut rows = Vec::new();
    let mut measured = 0u64;
    for (i, c) in chosen.iter().enumerate() {
        let co = &cos[&c.file];
        let k = &co.kernels[c.kernel];
        let (translate_s, r) = best_of_cpu(1, || translate(co, k, &profile));
        let (mapping, plain_words, words, origins) = match r {
            Ok((m, p, w, c)) => (m, p, w, c),
            Err(e) => {
                rows.push(
                    json!({ "kernel": c.name, "file": c.file, "instructions": c.insts,
                    "largest": c.largest, "error": format!("{e:#}") }),
                );
                continue;
            }
        };
        // `p2`: the probe that subtracts the run from the compile (rows measured before it are measured again).
        let key = format!(
            "{}/{}/{:016x}/{as_gb}/{timeout_s}/p2",
            c.file,
            c.name,
            fnv(&words)
        );
        let cost = rdna2spv_vulkan::limit::module_cost(&words);
        let base = json!({
            "key": key, "kernel": c.name, "file": c.file, "instructions": c.insts, "largest": c.largest,
            "mapping": format!("{mapping:?}").to_lowercase(), "words": plain_words, "checked_words": words.len(),
            "barriers": cost.barriers, "inlined_words": cost.inlined_words, "translate_s": translate_s,
            "memory_accesses": cost.memory_accesses, "loops": cost.loops, "census": origins.to_vec(),
        });
        drop(words);
        if let Some(v) = cache.get(&key) {
            // The measured columns from the cache; the module's own figures as computed now (a figure
            // added to the bench after a row was measured still shows, and the unchecked module's words,
            // which the key does not cover, are this lowering's).
            let mut v = v.clone();
            for f in [
                "words",
                "mapping",
                "barriers",
                "inlined_words",
                "translate_s",
                "memory_accesses",
                "loops",
                "census",
            ] {
                v[f] = base[f].clone();
            }
            // Rows measured before the wall-clock kill was told apart from a signal of its own.
            if v["outcome"].as_str() == Some("no report (signal 9; memory limit?)")
                && v["wall_s"].as_f64().unwrap_or(0.0) >= (timeout_s + 30) as f64
            {
                v["outcome"] = json!(format!(
                    "no report (killed at the wall-clock limit ({} s))",
                    timeout_s + 30
                ));
            }
            rows.push(v);
            continue;
        }
        if measured >= only {
            // Sizes still count; the compile columns stay empty ("not measured in this run").
            rows.push(base);
            continue;
        }
        progress(format!(
            "corpus-size [{}/{}]: {} ({} instructions, {} words, {:?}) …",
            i + 1,
            chosen.len(),
            c.name,
            c.insts,
            plain_words,
            mapping
        ));
        let child = run_child(
            "compile-probe",
            &[
                dir.join("co").join(&c.file).display().to_string(),
                c.kernel.to_string(),
                profile_path.display().to_string(),
                timeout_s.to_string(),
            ],
            &[],
            as_gb << 30,
            Duration::from_secs(timeout_s),
        )?;
        measured += 1;
        let mut v = base;
        let report = child.report();
        let outcome = report["outcome"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| {
                if child.status.starts_with("killed") {
                    format!("no report ({})", child.status)
                } else {
                    format!("no report ({}; memory limit?)", child.status)
                }
            });
        v["outcome"] = json!(outcome);
        v["wall_s"] = json!(child.wall_s);
        // The compile's CPU (first dispatch less the second); where the probe did not get that far (a
        // timeout, a kill), the whole child's, a lower bound of a compile that did not finish.
        v["cpu_s"] = json!(report["compile_cpu_s"].as_f64().unwrap_or(child.cpu_s));
        v["process_cpu_s"] = json!(child.cpu_s);
        v["peak_mb"] = json!(child.maxrss_kb as f64 / 1024.0);
        v["probe"] = report;
        progress(format!(
            "corpus-size: {}: {outcome}, {:.1} s wall, {:.1} s compile CPU ({:.1} s in all), {:.0} MB peak",
            c.name,
            child.wall_s,
            v["cpu_s"].as_f64().unwrap_or(f64::NAN),
            child.cpu_s,
            child.maxrss_kb as f64 / 1024.0
        ));
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&cache_path)?;
        writeln!(f, "{v}")?;
        rows.push(v);
    }
    std::fs::remove_file(&profile_path).ok();
    // Every row of this run, for analyses the section does not print.
    std::fs::write(
        dir.join("corpus-size-rows.json"),
        serde_json::to_string(&rows)?,
    )?;
    if opts.write {
        let svg = plot(&rows, timeout_s);
        let path = opts.root.join("docs/img/corpus-size-compile.svg");
        std::fs::create_dir_all(path.parent().unwrap())?;
        std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(render(
        &rows,
        &device,
        total,
        n_sample,
        n_largest,
        as_gb,
        timeout_s,
        &cache_path,
        measured,
    ))
}

/// A log-log scatter of the cold compile's CPU time against the inlined words (what lavapipe compiles,
/// D208), one point per measured kernel coloured by its barriers, with issue 31's 10 s goal as a line;
/// kernels whose compile did not finish are drawn at the top edge as crosses.
fn plot(rows: &[Value], timeout_s: u64) -> String {
    let (w, h, l, r, t, b) = (760.0, 460.0, 70.0, 170.0, 30.0, 50.0);
    let (x0, x1) = (3.0f64, 7.0f64); // log10 inlined words: 1e3 .. 1e7
    let (y0, y1) = (-1.0f64, (timeout_s as f64).log10().ceil().max(3.0)); // log10 s
    let px = |x: f64| l + (x.log10().clamp(x0, x1) - x0) / (x1 - x0) * (w - l - r);
    let py = |y: f64| h - b - (y.log10().clamp(y0, y1) - y0) / (y1 - y0) * (h - t - b);
    let colour = |n: f64| match n as u64 {
        0 => "#4477aa",
        1..=99 => "#66ccee",
        100..=499 => "#ccbb44",
        _ => "#ee6677",
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" \
         font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{l}\" y=\"18\" font-size=\"14\">lavapipe cold compile CPU of corpus kernels vs \
         the words it compiles (calls inlined)</text>\n"
    );
    for e in (x0 as i32)..=(x1 as i32) {
        let x = px(10f64.powi(e));
        s += &format!(
            "<line x1=\"{x}\" y1=\"{t}\" x2=\"{x}\" y2=\"{}\" stroke=\"#ddd\"/><text x=\"{x}\" y=\"{}\" \
             text-anchor=\"middle\">1e{e}</text>\n",
            h - b,
            h - b + 16.0
        );
    }
    for e in (y0 as i32)..=(y1 as i32) {
        let y = py(10f64.powi(e));
        s += &format!(
            "<line x1=\"{l}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" \
             text-anchor=\"end\">{}</text>\n",
            w - r,
            l - 6.0,
            y + 4.0,
            10f64.powi(e)
        );
    }
    let goal = py(10.0);
    s += &format!(
        "<line x1=\"{l}\" y1=\"{goal}\" x2=\"{}\" y2=\"{goal}\" stroke=\"black\" stroke-dasharray=\"6 4\"/>\
         <text x=\"{}\" y=\"{}\">10 s goal</text>\n",
        w - r,
        w - r + 4.0,
        goal + 4.0
    );
    s += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">inlined words (log)</text>\n\
         <text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {})\" text-anchor=\"middle\">compile CPU s (log)</text>\n",
        (l + w - r) / 2.0,
        h - 12.0,
        (t + h - b) / 2.0,
        (t + h - b) / 2.0
    );
    for v in rows {
        let (Some(words), Some(bars)) = (v["inlined_words"].as_f64(), v["barriers"].as_f64())
        else {
            continue;
        };
        let Some(cpu) = v["cpu_s"].as_f64() else {
            continue;
        };
        let (x, c) = (px(words), colour(bars));
        if compiled(v) {
            s += &format!(
                "<circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"{c}\" fill-opacity=\"0.8\" stroke=\"#333\" \
                 stroke-width=\"0.4\"/>\n",
                py(cpu)
            );
        } else {
            let y = t + 6.0;
            s += &format!(
                "<path d=\"M{} {} l8 8 m0 -8 l-8 8\" stroke=\"{c}\" stroke-width=\"2\"/>\n",
                x - 4.0,
                y - 4.0
            );
        }
    }
    for (i, (label, n)) in [
        ("no barrier", 0.0),
        ("1-99 barriers", 1.0),
        ("100-499", 100.0),
        ("500 or more", 500.0),
    ]
    .iter()
    .enumerate()
    {
        let y = t + 30.0 + 20.0 * i as f64;
        s += &format!(
            "<circle cx=\"{}\" cy=\"{y}\" r=\"5\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{label}</text>\n",
            w - r + 14.0,
            colour(*n),
            w - r + 24.0,
            y + 4.0
        );
    }
    s += &format!(
        "<text x=\"{}\" y=\"{}\">x: no compile</text>\n<text x=\"{}\" y=\"{}\">within {timeout_s} s wall</text>\n",
        w - r + 8.0,
        t + 125.0,
        w - r + 8.0,
        t + 140.0
    );
    s + "</svg>\n"
}

/// Whether a row's compile finished (the dispatch compiled the module; a fault is the expected stop).
fn compiled(v: &Value) -> bool {
    matches!(v["outcome"].as_str(), Some("fault" | "finished"))
}

/// Where the sample's words go: its unchecked modules' words summed by origin ([`census`]).
fn census_table(rows: &[Value]) -> String {
    let mut sum = [0u64; ORIGINS.len()];
    let mut n = 0;
    for v in rows
        .iter()
        .filter(|v| v["largest"].as_bool() == Some(false))
    {
        let Some(c) = v["census"].as_array() else {
            continue;
        };
        n += 1;
        for (s, x) in sum.iter_mut().zip(c) {
            *s += x.as_u64().unwrap_or(0);
        }
    }
    let total: u64 = sum.iter().sum();
    if total == 0 {
        return String::new();
    }
    let mut md = format!(
        "\nWhere the sample's words go: its {n} unchecked modules ({total} words), each instruction's words by what \
         it is (`xtask/src/word_census.rs`; every row but the header and the shared function bodies counts the \
         entry point):\n\n| words by origin | words | share |\n| --- | ---: | ---: |\n"
    );
    let mut order: Vec<usize> = (0..ORIGINS.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sum[i]));
    for i in order {
        md.push_str(&format!(
            "| {} | {} | {:.1} % |\n",
            ORIGINS[i],
            sum[i],
            100.0 * sum[i] as f64 / total as f64
        ));
    }
    md
}

#[allow(clippy::too_many_arguments)]
fn render(
    rows: &[Value],
    device: &str,
    total: usize,
    n_sample: usize,
    n_largest: usize,
    as_gb: u64,
    timeout_s: u64,
    cache: &Path,
    fresh: u64,
) -> Section {
    let k_of = |v: &Value| {
        (v["words"].as_f64().unwrap_or(f64::NAN) - 3000.0)
            / v["instructions"].as_f64().unwrap_or(f64::NAN)
    };
    let stats = |largest: bool| {
        let sel: Vec<&Value> = rows
            .iter()
            .filter(|v| v["largest"].as_bool() == Some(largest) && v["words"].is_number())
            .collect();
        let mut k: Vec<f64> = sel.iter().map(|v| k_of(v)).collect();
        let mut wpi: Vec<f64> = sel
            .iter()
            .map(|v| v["words"].as_f64().unwrap() / v["instructions"].as_f64().unwrap())
            .collect();
        let mut words: Vec<f64> = sel.iter().map(|v| v["words"].as_f64().unwrap()).collect();
        let done: Vec<&&Value> = sel.iter().filter(|v| compiled(v)).collect();
        let mut cpu: Vec<f64> = done.iter().map(|v| v["cpu_s"].as_f64().unwrap()).collect();
        let mut mem: Vec<f64> = done
            .iter()
            .map(|v| v["peak_mb"].as_f64().unwrap())
            .collect();
        let n = sel.len();
        let measured = sel.iter().filter(|v| v["outcome"].is_string()).count();
        let worst = |v: &[f64]| v.iter().cloned().fold(f64::NAN, f64::max);
        let over10 = done
            .iter()
            .filter(|v| v["cpu_s"].as_f64().unwrap() > 10.0)
            .count();
        let over2g = done
            .iter()
            .filter(|v| v["peak_mb"].as_f64().unwrap() > 2048.0)
            .count();
        let failed = measured - done.len();
        (
            n,
            measured,
            median(&mut k),
            worst(&k),
            median(&mut wpi),
            median(&mut words),
            worst(&words),
            median(&mut cpu),
            worst(&cpu),
            median(&mut mem),
            worst(&mem),
            over10,
            over2g,
            failed,
        )
    };
    let mut md = String::from(
        "## Module size and lavapipe's cold compile of rocSPARSE kernels (`cargo xtask bench corpus-size`)\n\n",
    );
    md.push_str(&format!(
        "A fixed sample ({n_sample} of the corpus's {total} kernels with distinct code, seeded shuffle) plus the \
         {n_largest} largest by machine instructions; mapping as `run --mapping auto` chooses it; {device}, Mesa \
         shader cache off. *words*: the module `rdna2spv corpus` counts (unchecked); k = (words − 3000) / \
         instructions (issue 31's goal: median ≤ 20, worst ≤ 60). Cold compile: a child process dispatches the \
         checked module without fault records (what `run` compiles by default, D184) as one workgroup with a zero kernarg segment, twice: \
         lavapipe compiles inside the first dispatch, the second reuses the pipeline. Compile CPU = the first \
         dispatch's user + system time (all threads) less the second's, which is the lowering and the run \
         alone (on zero arguments most waves stop at their first global access, but some kernels run for \
         seconds); where the compile did not finish, the whole child's CPU. Peak = the child's `ru_maxrss`, \
         limits {as_gb} GB address space and {timeout_s} s. Resumable cache: `{}`: this run measured {fresh} of \
         the {} kernels (those whose checked module is not in it); the other rows' compile columns are from the \
         runs that measured them, and this machine's CPU times drift by tens of percent within an hour \
         (docs/performance.md, session 41), so compare compile times between rows of one run.\n\n",
        cache.file_name().map(|f| f.to_string_lossy()).unwrap_or_default(),
        rows.len()
    ));
    md.push_str(
        "| set | kernels (measured) | k median | k worst | words/insn median | words median | words max | compile CPU s median | worst | peak MB median | worst | > 10 s | > 2 GB | no compile (limit) |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let mut headlines = Vec::new();
    for (label, largest) in [("sample", false), ("largest", true)] {
        let s = stats(largest);
        if s.0 == 0 {
            continue;
        }
        // No compile measured: a dash, not NaN.
        let c = |x: f64, d: usize| {
            if x.is_nan() {
                "—".to_string()
            } else {
                format!("{x:.d$}")
            }
        };
        md.push_str(&format!(
            "| {label} | {} ({}) | {:.1} | {:.1} | {:.0} | {:.0} | {:.0} | {} | {} | {} | {} | {} | {} | {} |\n",
            s.0,
            s.1,
            s.2,
            s.3,
            s.4,
            s.5,
            s.6,
            c(s.7, 2),
            c(s.8, 1),
            c(s.9, 0),
            c(s.10, 0),
            s.11,
            s.12,
            s.13
        ));
        if !largest {
            headlines.push((
                "module words: k = (words − 3000) / instructions over the corpus sample (median, worst)"
                    .to_string(),
                // One decimal: the goal is k ≤ 20, and 20.35 printed as "20" read as met.
                format!("{:.1}, {:.1}", s.2, s.3),
                "≤ 20, ≤ 60".to_string(),
            ));
            headlines.push((
                "lavapipe cold compile of the corpus sample (worst CPU s, median; worst peak MB; kernels measured)"
                    .to_string(),
                format!(
                    "{:.1} s, {:.2} s; {:.0} MB; {} of {}",
                    s.8, s.7, s.10, s.1, s.0
                ),
                "≤ 10 s, ≤ 2 GB".to_string(),
            ));
        }
    }
    // Fits over every compiled row: CPU time against words (log-log), peak memory against words (linear).
    let pts: Vec<(f64, f64, f64)> = rows
        .iter()
        .filter(|v| compiled(v))
        .map(|v| {
            (
                v["checked_words"].as_f64().unwrap(),
                v["cpu_s"].as_f64().unwrap(),
                v["peak_mb"].as_f64().unwrap(),
            )
        })
        .collect();
    let big: Vec<(f64, f64)> = pts
        .iter()
        .filter(|p| p.0 >= 20_000.0)
        .map(|p| (p.0.ln(), p.1.ln()))
        .collect();
    let (la, lb) = fit(&big);
    // What lavapipe compiles (every call inlined) and its memory accesses, each a loop over the SIMD
    // lanes (D210, the form `limit::module_cost` predicts with): CPU ≈ a × inlined words^b × (1 + memory
    // accesses)^c. The same rows as the words-only fit.
    let big2: Vec<(f64, f64, f64)> = rows
        .iter()
        .filter(|v| compiled(v) && v["checked_words"].as_f64().unwrap_or(0.0) >= 20_000.0)
        .filter_map(|v| {
            Some((
                v["inlined_words"].as_f64()?.ln(),
                (1.0 + v["memory_accesses"].as_f64()?).ln(),
                v["cpu_s"].as_f64()?.ln(),
            ))
        })
        .collect();
    let (ba, bb, bc) = fit2(&big2);
    let resid = |pred: &dyn Fn(f64, f64) -> f64| {
        let mut r: Vec<f64> = big2.iter().map(|p| (p.2 - pred(p.0, p.1)).abs()).collect();
        (
            median(&mut r).exp(),
            r.iter().cloned().fold(f64::NAN, f64::max).exp(),
        )
    };
    // The words-only fit's error over the same rows (its x is the module's words, not the inlined words).
    let words_of: Vec<f64> = rows
        .iter()
        .filter(|v| compiled(v) && v["checked_words"].as_f64().unwrap_or(0.0) >= 20_000.0)
        .filter(|v| v["inlined_words"].is_number() && v["memory_accesses"].is_number())
        .map(|v| v["checked_words"].as_f64().unwrap().ln())
        .collect();
    let (r1m, r1w) = {
        let mut r: Vec<f64> = big2
            .iter()
            .zip(&words_of)
            .map(|(p, w)| (p.2 - (la + lb * w)).abs())
            .collect();
        (
            median(&mut r).exp(),
            r.iter().cloned().fold(f64::NAN, f64::max).exp(),
        )
    };
    let (r2m, r2w) = resid(&|w, b| ba + bb * w + bc * b);
    // Memory: the smallest peak is the start-up baseline; above it a power law where the compile shows.
    let base = pts.iter().map(|p| p.2).fold(f64::INFINITY, f64::min);
    let over: Vec<(f64, f64)> = pts
        .iter()
        .filter(|p| p.2 - base > 50.0)
        .map(|p| (p.0.ln(), (p.2 - base).ln()))
        .collect();
    let (ma, mb) = fit(&over);
    let flat_to = pts
        .iter()
        .filter(|p| p.2 - base <= 50.0)
        .map(|p| p.0)
        .fold(0.0, f64::max);
    md.push_str(&format!(
        "\nFit over the {} compiled modules (checked words): compile CPU ≈ {:.3e} × words^{:.2} s (modules of ≥ 20,000 \
         words, log-log least squares, {} points). Peak memory: {:.0} MB (start-up) up to {:.0} words; {} modules \
         above it by more than 50 MB{}.\n",
        pts.len(),
        la.exp(),
        lb,
        big.len(),
        base,
        flat_to,
        over.len(),
        if over.len() >= 2 {
            format!(": {:.0} MB + {:.3e} × words^{:.2} MB", base, ma.exp(), mb)
        } else {
            String::new()
        }
    ));
    md.push_str(&format!(
        "What lavapipe compiles: the module with every function call inlined (*inlined words*; a shared float \
         emulation called a thousand times is compiled a thousand times) and its workgroup and global memory \
         accesses (each a loop over the SIMD lanes in gallivm, D210), {} points: compile CPU ≈ {:.3e} × inlined \
         words^{:.2} × (1 + memory accesses)^{:.2} s (the form of `rdna2spv_vulkan::limit`, D210). Error factor of \
         the prediction (median, worst): words only ×{:.2}, ×{:.1}; inlined words and memory accesses ×{:.2}, \
         ×{:.1}.\n",
        big2.len(),
        ba.exp(),
        bb,
        bc,
        r1m,
        r1w,
        r2m,
        r2w
    ));
    md.push_str(
        "\n![lavapipe cold compile CPU time against the inlined words, by barriers](img/corpus-size-compile.svg)\n",
    );
    md.push_str(&census_table(rows));
    md.push_str("\n<details><summary>Every kernel</summary>\n\n| kernel | set | instructions | mapping | words | words/insn | k | checked words | inlined words | barriers | translate ms | compile CPU s | wall s | peak MB | outcome |\n| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    let mut sorted: Vec<&Value> = rows.iter().collect();
    sorted.sort_by_key(|v| v["instructions"].as_u64().unwrap_or(0));
    for v in sorted {
        let name = v["kernel"].as_str().unwrap_or("?");
        let short = if name.len() > 60 {
            format!("{}…", &name[..59])
        } else {
            name.to_string()
        };
        if let Some(e) = v["error"].as_str() {
            md.push_str(&format!(
                "| `{short}` | {} | {} | — | — | — | — | — | — | — | — | — | — | — | translation failed: {e} |\n",
                if v["largest"].as_bool() == Some(true) { "largest" } else { "sample" },
                v["instructions"]
            ));
            continue;
        }
        let f = |k: &str, d: usize| {
            v[k].as_f64()
                .map(|x| format!("{x:.d$}"))
                .unwrap_or_else(|| "—".into())
        };
        let insts = v["instructions"].as_f64().unwrap_or(f64::NAN);
        md.push_str(&format!(
            "| `{short}` | {} | {} | {} | {} | {:.0} | {:.0} | {} | {} | {} | {:.1} | {} | {} | {} | {} |\n",
            if v["largest"].as_bool() == Some(true) {
                "largest"
            } else {
                "sample"
            },
            v["instructions"],
            v["mapping"].as_str().unwrap_or("?"),
            v["words"],
            v["words"].as_f64().unwrap_or(f64::NAN) / insts,
            k_of(v),
            v["checked_words"],
            f("inlined_words", 0),
            f("barriers", 0),
            v["translate_s"].as_f64().unwrap_or(f64::NAN) * 1e3,
            f("cpu_s", 2),
            f("wall_s", 1),
            f("peak_mb", 0),
            v["outcome"].as_str().unwrap_or("not measured in this run"),
        ));
    }
    md.push_str("\n</details>\n");
    Section {
        markdown: md,
        json: json!({ "device": device, "rows": rows, "fit": {
            "cpu_s_coefficient": la.exp(), "cpu_s_exponent": lb, "peak_mb_base": base,
            "peak_mb_coefficient": ma.exp(), "peak_mb_exponent": mb,
            "access_fit": { "coefficient": ba.exp(), "words_exponent": bb, "memory_accesses_exponent": bc } } }),
        headlines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plot_draws_each_measured_kernel_once() {
        let row = |words: u64, bars: u64, cpu: f64, outcome: &str| json!({ "inlined_words": words, "barriers": bars, "cpu_s": cpu, "outcome": outcome });
        let rows = [
            row(20_000, 0, 0.5, "finished"),
            row(200_000, 40, 5.0, "fault"),
            row(2_000_000, 800, 200.0, "fault"),
            row(900_000, 2000, 300.0, "timeout"),
            json!({ "inlined_words": 1000, "barriers": 0 }), // not measured in this run
        ];
        let svg = plot(&rows, 300);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        // Three compiled kernels as points, plus the legend's four; one cross for the timeout.
        assert_eq!(svg.matches("<circle").count(), 3 + 4);
        assert_eq!(svg.matches("<path").count(), 1);
        assert_eq!(
            (fit2(&[
                (0.0, 0.0, 1.0),
                (1.0, 0.0, 3.0),
                (0.0, 1.0, 6.0),
                (1.0, 1.0, 8.0)
            ])),
            (1.0, 2.0, 5.0)
        );
    }
}
