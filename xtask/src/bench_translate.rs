//! `cargo xtask bench translate`: translation time (decode → lift → lower → SPIR-V words) against kernel size
//! over rocSPARSE kernels of growing size, and against lavapipe's own compile of the same module at its first
//! dispatch.
//!
//! * Kernels: every gfx1030 kernel of the rocSPARSE corpus (`cargo xtask corpus rocsparse`; CI fetches it) is
//!   sized by its straight-line instruction count; for each size class (about 10^2, 10^3, 10^4 instructions:
//!   growth 1×, 10×, 100×) the kernels nearest to it are taken (distinct code only). Each is translated for
//!   lavapipe's probed profile, the fastest of at least 3 runs adding up to ≥ 0.5 s of CPU (D202), with lift (which decodes) and lower timed apart, in CPU time of the
//!   translating thread (on the shared machine wall time is mostly waiting for a core).
//! * lavapipe: its compile happens inside the first dispatch (DESIGN.md), so the figure is the wall time of a
//!   first dispatch of one workgroup with the Mesa shader cache off, minus the lowering time measured on its
//!   own, in CPU time of the whole process (lavapipe compiles and runs on its own threads). rocSPARSE kernels have no inputs here, so the module is lowered in checked mode (every global access
//!   validated against the allocations, `run --checked`) with a zero-filled kernarg segment: the waves load
//!   null pointers, fault on their first global access and stop, so the dispatch is the compile plus a short
//!   run. The ratio compares the translation of *that* (checked) module with lavapipe's compile of it.
//!   lavapipe's compile grows much faster than the module (it took 35 s for a 36k-word fixture module under
//!   load, docs/performance.md), so it is measured on smaller size classes (about 30, 300, 3,000 instructions;
//!   a dispatch that does not finish within the fence timeout is reported as such).

use crate::bench::{best_of_cpu, best_of_cpu_for, process_cpu_seconds, progress, Opts, Section};
use anyhow::{bail, Context as _, Result};
use rdna2spv::corpus::{self, Index};
use rdna2spv::dispatch::{initial_sgprs, lift_options};
use rdna2spv_codeobj::{CodeObject, Kernel};
use rdna2spv_eval::Launch;
use rdna2spv_ir::lift::lift;
use rdna2spv_spirv::lower::{lower_with, LowerOptions};
use rdna2spv_vulkan::{kernel_layout, run_program, Context, DeviceProfile, RunOptions};
use serde_json::json;
use std::collections::HashSet;
use std::time::Instant;

struct Candidate {
    co: usize,
    kernel: usize,
    insts: usize,
}

struct Row {
    class: usize,
    name: String,
    insts: usize,
    words: usize,
    lift_s: f64,
    lower_s: f64,
    /// The lane mapping (what `--mapping auto` takes for every corpus kernel since D157): its words and
    /// lowering time.
    lane_words: usize,
    lane_lower_s: f64,
}

struct DevRow {
    class: usize,
    name: String,
    insts: usize,
    words: usize,
    translate_s: f64,
    first_dispatch_s: f64,
    first_dispatch_wall_s: f64,
    outcome: String,
}

pub(crate) fn count_insts(code: &[u8], target: rdna2spv_isa::Target) -> usize {
    let words: Vec<u32> = code
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let (mut i, mut n) = (0, 0);
    while i < words.len() {
        i += rdna2spv_isa::decode(&words[i..], target).map_or(1, |x| x.len());
        n += 1;
    }
    n
}

pub(crate) fn launch_for(k: &Kernel, kernarg: u64) -> Launch {
    launch_with(k, kernarg, 0)
}

/// [`launch_for`] with the dispatch packet at `packet` (0: none).
pub(crate) fn launch_with(k: &Kernel, kernarg: u64, packet: u64) -> Launch {
    let wg = corpus::workgroup_of(k);
    Launch {
        wave_size: k.abi.wave_size,
        grid: wg,
        workgroup: wg,
        sgprs: initial_sgprs(&k.abi, kernarg, packet),
        workitem_id_vgprs: k.abi.workitem_id_vgprs.len() as u32,
        lds_bytes: k.descriptor.group_segment_fixed_size,
        scratch_bytes: k.descriptor.private_segment_fixed_size,
        max_steps_per_wave: 0,
        code_base: None,
    }
}

/// The kernels nearest to each target size (distinct code, `per` of them).
fn pick(cands: &[Candidate], cos: &[CodeObject], targets: &[usize], per: usize) -> Vec<Vec<usize>> {
    targets
        .iter()
        .map(|&t| {
            let mut idx: Vec<usize> = (0..cands.len()).collect();
            idx.sort_by_key(|&i| (cands[i].insts as i64 - t as i64).unsigned_abs());
            let mut seen = HashSet::new();
            idx.into_iter()
                .filter(|&i| seen.insert(&cos[cands[i].co].kernels[cands[i].kernel].code))
                .take(per)
                .collect()
        })
        .collect()
}

pub fn section(opts: &Opts) -> Result<Section> {
    // Before any Vulkan instance exists: no Mesa disk cache, so every first dispatch compiles.
    std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");
    let dir = corpus::default_dir().context("HOME or RDNA2SPV_CORPUS_DIR")?;
    let index = Index::load(&dir)?;
    progress(format!(
        "translate: loading {} code objects of the corpus",
        index.bundles.len()
    ));
    let mut cos = Vec::new();
    for b in &index.bundles {
        let Some(f) = &b.code_object else { continue };
        let bytes = std::fs::read(dir.join("co").join(f))?;
        cos.push(CodeObject::parse(&bytes).with_context(|| format!("parsing {f}"))?);
    }
    let mut cands = Vec::new();
    for (ci, co) in cos.iter().enumerate() {
        let target = rdna2spv::dispatch::target_of(co);
        for (ki, k) in co.kernels.iter().enumerate() {
            cands.push(Candidate {
                co: ci,
                kernel: ki,
                insts: count_insts(&k.code, target),
            });
        }
    }
    if cands.is_empty() {
        bail!("no kernels in the corpus at {}", dir.display());
    }
    // lavapipe's compile of a 10^5-word module takes minutes on the shared machine: a long fence timeout, and a
    // dispatch that still does not finish is reported as such (the context is unusable afterwards).
    let timeout = std::time::Duration::from_secs(if opts.quick { 120 } else { 420 });
    let ctx = Context::new(rdna2spv_vulkan::DeviceSelector::from_env())
        .context("opening the Vulkan device (lavapipe)")?
        .with_timeout(timeout)
        // It measures lavapipe's compile of large modules on purpose (D164's limit is for users).
        .with_max_module_words(None);
    let profile: DeviceProfile = rdna2spv_vulkan::probe(&ctx).context("probing the device")?;
    let device = ctx.info().name.clone();
    progress(format!(
        "translate: {} kernels, device {device}",
        cands.len()
    ));

    // Translation time vs size.
    let targets: &[usize] = &[100, 1_000, 10_000];
    let per = if opts.quick { 1 } else { 3 };
    let reps = if opts.quick { 1 } else { 3 };
    // Each measurement runs on until its runs add up to half a second: the 100-instruction kernels (a few
    // milliseconds) get a hundred tries at an undisturbed run, not three (D202).
    let budget = if opts.quick { 0.0 } else { 0.5 };
    let mut rows = Vec::new();
    for (class, picks) in pick(&cands, &cos, targets, per).into_iter().enumerate() {
        for i in picks {
            let c = &cands[i];
            let (co, k) = (&cos[c.co], &cos[c.co].kernels[c.kernel]);
            let lo = lift_options(co, k);
            let (lift_s, program) = best_of_cpu_for(reps, budget, || lift(&k.name, &k.code, lo));
            let program = program.map_err(|e| anyhow::anyhow!("{}: {e}", k.name))?;
            let launch = launch_for(k, 0);
            let layout = kernel_layout(&launch);
            let (lower_s, words) = best_of_cpu_for(reps, budget, || {
                lower_with(&program, &layout, &profile, &LowerOptions::default())
            });
            let words = words.map_err(|e| anyhow::anyhow!("{}: {e}", k.name))?;
            let lane = LowerOptions {
                mapping: rdna2spv_spirv::lower::Mapping::Lane,
                ..LowerOptions::default()
            };
            let (lane_lower_s, lane_words) = best_of_cpu_for(reps, budget, || {
                lower_with(&program, &layout, &profile, &lane)
            });
            let lane_words = lane_words.map_or(0, |w| w.len());
            progress(format!(
                "translate: {} ({} instructions): lift {:.1} ms, lower {:.1} ms, {} words; lane {:.1} ms, {} words",
                k.name,
                c.insts,
                lift_s * 1e3,
                lower_s * 1e3,
                words.len(),
                lane_lower_s * 1e3,
                lane_words
            ));
            rows.push(Row {
                class,
                name: k.name.clone(),
                insts: c.insts,
                words: words.len(),
                lift_s,
                lower_s,
                lane_words,
                lane_lower_s,
            });
        }
    }

    // lavapipe's first dispatch.
    // RDNA2SPV_BENCH_TRANSLATE_DEVICE=0 skips the lavapipe part (its 3,000-instruction dispatch takes
    // minutes to hours on a loaded machine).
    let device_part = std::env::var("RDNA2SPV_BENCH_TRANSLATE_DEVICE").as_deref() != Ok("0");
    let dev_targets: &[usize] = if !device_part {
        &[]
    } else if opts.quick {
        &[30]
    } else {
        &[30, 300, 3_000]
    };
    let mut dev = Vec::new();
    let mut timed_out = false;
    for (class, picks) in pick(&cands, &cos, dev_targets, 1).into_iter().enumerate() {
        for i in picks {
            if timed_out {
                break;
            }
            let c = &cands[i];
            let (co, k) = (&cos[c.co], &cos[c.co].kernels[c.kernel]);
            let kernarg_bytes = (k.descriptor.kernarg_size as u64).max(256);
            let kernarg = ctx.create_buffer(kernarg_bytes)?;
            let addr = kernarg.device_address();
            let (lift_s, program) = best_of_cpu(1, || lift(&k.name, &k.code, lift_options(co, k)));
            let program = program.map_err(|e| anyhow::anyhow!("{}: {e}", k.name))?;
            let launch = launch_for(k, addr);
            let checked = LowerOptions {
                checked: Some(1),
                ..LowerOptions::default()
            };
            let (lower_s, words) = best_of_cpu(1, || {
                lower_with(&program, &kernel_layout(&launch), &profile, &checked)
            });
            let words = words.map_err(|e| anyhow::anyhow!("{}: {e}", k.name))?;
            progress(format!(
                "translate: lavapipe first dispatch of {} ({} instructions, {} words, checked)…",
                k.name,
                c.insts,
                words.len()
            ));
            let t = Instant::now();
            let cpu0 = process_cpu_seconds();
            let r = run_program(
                &ctx,
                &program,
                &launch,
                &profile,
                &RunOptions {
                    lower: LowerOptions::default(),
                    allocations: &[(addr, kernarg_bytes)],
                },
            );
            let total = t.elapsed().as_secs_f64();
            let cpu = match (cpu0, process_cpu_seconds()) {
                (Some(a), Some(b)) => Some((b - a - lower_s).max(0.0)),
                _ => None,
            };
            let outcome = match &r {
                Ok(_) => "finished".to_string(),
                Err(rdna2spv_vulkan::RunError::OutOfBounds { .. }) => {
                    "stopped at its first out-of-bounds access".to_string()
                }
                Err(rdna2spv_vulkan::RunError::NotFinished { what, .. }) => what.to_string(),
                Err(rdna2spv_vulkan::RunError::Vulkan(rdna2spv_vulkan::Error::Timeout {
                    limit: d,
                    ..
                })) => {
                    timed_out = true;
                    format!(
                        "**no result**: the first dispatch did not finish within {} s",
                        d.as_secs()
                    )
                }
                Err(e) => bail!("{}: the device run failed: {e}", k.name),
            };
            let first_dispatch_wall_s = (total - lower_s).max(0.0);
            let first_dispatch_s = if timed_out {
                f64::NAN
            } else {
                cpu.unwrap_or(first_dispatch_wall_s)
            };
            progress(format!(
                "translate: {}: translate {:.1} ms, first dispatch {:.0} ms CPU, {:.0} ms wall ({outcome})",
                k.name,
                (lift_s + lower_s) * 1e3,
                first_dispatch_s * 1e3,
                first_dispatch_wall_s * 1e3
            ));
            dev.push(DevRow {
                class,
                name: k.name.clone(),
                insts: c.insts,
                words: words.len(),
                translate_s: lift_s + lower_s,
                first_dispatch_s,
                first_dispatch_wall_s,
                outcome,
            });
            drop(kernarg);
        }
    }
    Ok(render(
        &rows,
        &dev,
        targets,
        dev_targets,
        &device,
        cands.len(),
    ))
}

fn short(name: &str) -> String {
    if name.len() > 48 {
        format!("{}…", &name[..47])
    } else {
        name.to_string()
    }
}

fn render(
    rows: &[Row],
    dev: &[DevRow],
    targets: &[usize],
    dev_targets: &[usize],
    device: &str,
    n_kernels: usize,
) -> Section {
    let mut md = String::from(
        "## Translation time vs kernel size, and vs lavapipe's compile (`cargo xtask bench translate`)\n\n",
    );
    md.push_str(&format!(
        "rocSPARSE kernels ({n_kernels} in the corpus) nearest to {} straight-line instructions (growth 1×, 10×, \
         100×), translated for the probed {device} profile; release build, fastest of at least 3 runs adding up to ≥ 0.5 s each (D202), CPU time of the translating thread. Lift includes decoding; \
         lower ends with the module's SPIR-V words.\n\n\
         | size class | kernel | instructions | SPIR-V words | lift ms | lower ms | total ms | µs / instruction | ns / word | lane words | lane lower ms | lane ns / word |\n\
         | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
        targets
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    for r in rows {
        let total = r.lift_s + r.lower_s;
        md.push_str(&format!(
            "| {} | `{}` | {} | {} | {:.2} | {:.2} | {:.2} | {:.1} | {:.0} | {} | {:.2} | {:.0} |\n",
            targets[r.class],
            short(&r.name),
            r.insts,
            r.words,
            r.lift_s * 1e3,
            r.lower_s * 1e3,
            total * 1e3,
            total / r.insts as f64 * 1e6,
            total / r.words as f64 * 1e9,
            r.lane_words,
            r.lane_lower_s * 1e3,
            (r.lift_s + r.lane_lower_s) / r.lane_words.max(1) as f64 * 1e9
        ));
    }
    // Growth per size class: mean time per class relative to the first.
    let class_mean = |c: usize, f: &dyn Fn(&Row) -> f64| {
        let v: Vec<f64> = rows.iter().filter(|r| r.class == c).map(f).collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let base_t = class_mean(0, &|r| r.lift_s + r.lower_s);
    let base_n = class_mean(0, &|r| r.insts as f64);
    md.push_str("\nGrowth against the smallest class (mean of the class); the translation time follows the module's words, \
                 and the words per instruction differ between kernel families (module size: issue 31's modsize work):\n\n\
                 | size class | instructions | module words | translation time | lane words | lane translation time |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n");
    let mut growth = Vec::new();
    // (instructions, wave-mapping time, lane-mapping time) per class.
    let mut growth_cells = (Vec::new(), Vec::new(), Vec::new());
    // Time per module word, largest class against the smallest, wave and lane mappings.
    let mut per_word = (1.0, 1.0);
    for (c, t) in targets.iter().enumerate() {
        let n = class_mean(c, &|r| r.insts as f64) / base_n;
        let g = class_mean(c, &|r| r.lift_s + r.lower_s) / base_t;
        let w = class_mean(c, &|r| r.words as f64) / class_mean(0, &|r| r.words as f64);
        let lw = class_mean(c, &|r| r.lane_words as f64) / class_mean(0, &|r| r.lane_words as f64);
        let lg = class_mean(c, &|r| r.lift_s + r.lane_lower_s)
            / class_mean(0, &|r| r.lift_s + r.lane_lower_s);
        growth.push(json!({ "class": t, "instructions": n, "time": g, "words": w, "lane_words": lw, "lane_time": lg }));
        growth_cells.0.push(format!("{n:.0}×"));
        growth_cells.1.push(format!("{g:.0}×"));
        growth_cells.2.push(format!("{lg:.0}×"));
        per_word = (g / w, lg / lw);
        md.push_str(&format!(
            "| {t} | {n:.1}× | {w:.1}× | {g:.1}× | {lw:.1}× | {lg:.1}× |\n"
        ));
    }
    let mut worst: f64 = 0.0;
    if dev.is_empty() {
        md.push_str(
            "\nlavapipe's first dispatch was not measured in this run (`RDNA2SPV_BENCH_TRANSLATE_DEVICE=0`).\n",
        );
    } else {
        md.push_str(&format!(
        "\nlavapipe ({device}, Mesa shader cache off): first dispatch of one workgroup of the same kernel's module \
         lowered in checked mode with a zero-filled kernarg segment (the waves fault on their first global \
         access and stop: the dispatch is the JIT compile plus a short run), minus the lowering, in CPU time of \
         the whole process (all of lavapipe's threads; wall time in brackets). Translation = lift + lower of that \
         checked module, in CPU time of the translating thread.\n\n\
         | size class | kernel | instructions | SPIR-V words | translation ms | lavapipe first dispatch ms (wall) | translation / lavapipe | run |\n\
         | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |\n"
    ));
        for d in dev {
            let r = d.translate_s / d.first_dispatch_s;
            let (cpu, ratio) = if r.is_finite() {
                worst = worst.max(r);
                (
                    format!("{:.0}", d.first_dispatch_s * 1e3),
                    format!("{:.2} %", 100.0 * r),
                )
            } else {
                ("—".to_string(), "—".to_string())
            };
            md.push_str(&format!(
                "| {} | `{}` | {} | {} | {:.2} | {cpu} ({:.0}) | {ratio} | {} |\n",
                dev_targets[d.class],
                short(&d.name),
                d.insts,
                d.words,
                d.translate_s * 1e3,
                d.first_dispatch_wall_s * 1e3,
                d.outcome
            ));
        }
    }
    let big = rows.iter().filter(|r| r.class == targets.len() - 1);
    let per_inst = big
        .map(|r| (r.lift_s + r.lower_s) / r.insts as f64 * 1e6)
        .fold(0.0, f64::max);
    Section {
        markdown: md,
        json: json!({
            "device": device,
            "translate": rows.iter().map(|r| json!({ "class": targets[r.class], "kernel": r.name,
                "instructions": r.insts, "words": r.words, "lift_s": r.lift_s, "lower_s": r.lower_s,
                "lane_words": r.lane_words, "lane_lower_s": r.lane_lower_s })).collect::<Vec<_>>(),
            "growth": growth,
            "lavapipe": dev.iter().map(|d| json!({ "class": dev_targets[d.class], "kernel": d.name,
                "instructions": d.insts, "words": d.words, "translate_s": d.translate_s,
                "first_dispatch_s": d.first_dispatch_s, "first_dispatch_wall_s": d.first_dispatch_wall_s, "run": d.outcome })).collect::<Vec<_>>(),
        }),
        headlines: {
            let mut h: Vec<crate::bench::Headline> = vec![
                (
                    format!(
                        "translation time per instruction, ~{} -instruction kernels",
                        targets[targets.len() - 1]
                    ),
                    format!("{per_inst:.1} µs"),
                    "—".into(),
                ),
                (
                    // The lane mapping is what `translate` and `run` take for every corpus kernel (`auto`,
                    // D157), so it is the user's translation time; the wave mapping's follows (D202).
                    format!(
                        "translation time growth with kernel size, lane mapping (classes {}; instructions {})",
                        targets
                            .iter()
                            .map(|t| t.to_string())
                            .collect::<Vec<_>>()
                            .join(" → "),
                        growth_cells.0.join(" → ")
                    ),
                    // The last class's growth first: the summary's "met" compares the first number.
                    format!(
                        "{} ({})",
                        growth_cells.2.last().cloned().unwrap_or_default(),
                        growth_cells.2.join(" → ")
                    ),
                    "≤ 120× at 100× (issue 31)".into(),
                ),
                (
                    "translation time growth with kernel size, wave mapping (same classes)".into(),
                    format!(
                        "{} ({})",
                        growth_cells.1.last().cloned().unwrap_or_default(),
                        growth_cells.1.join(" → ")
                    ),
                    "—".into(),
                ),
                (
                    "translation time per module word, largest class / smallest (wave; lane)"
                        .into(),
                    format!("{:.2}×; {:.2}×", per_word.0, per_word.1),
                    "≈ 1× (linear in the module)".into(),
                ),
            ];
            // Without the lavapipe part there is no ratio to report (not a 0 % "met").
            if !dev.is_empty() {
                h.insert(
                    0,
            (
                "translation time vs lavapipe's first-dispatch compile of the module (worst kernel)".into(),
                format!("{:.2} %", 100.0 * worst),
                "≤ 5 %".into(),
            ),
                );
            }
            h
        },
    }
}
