//! Structured control flow (decision D035) on the fixtures:
//!
//! * every kernel of every fixture code object that lifts is fully structured (no dispatcher region), and
//!   the structure matches the graph's own analysis (reducible ⇔ no dispatcher region);
//! * the verification pass: every wave of every run fixture, run on the host evaluator (the oracle, which
//!   executes the machine program directly) with its block trace recorded, is walked through the structured
//!   form, which must enter exactly the same blocks in the same order;
//! * on lavapipe, the structured and the dispatcher-loop translations of every run fixture with more than one
//!   block give identical output bits, and both equal the host evaluator's.
//!
//! Needs a Vulkan 1.3 device for the last test (lavapipe: `apt-get install libvulkan1 mesa-vulkan-drivers`).

use rdna2spv::device::{first_difference, open, profile_of, run_vulkan_opts, ProfileChoice};
use rdna2spv::dispatch::{host_addresses, run_host_at, Plan};
use rdna2spv::manifest::Manifest;
use rdna2spv_codeobj::CodeObject;
use rdna2spv_eval::Memory;
use rdna2spv_ir::cfg::{check_trace, Cfg, Structure};
use rdna2spv_spirv::lower::ControlFlow;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every run manifest whose kernel lifts (the others are pending in tests/fixtures_run.rs), with its plan.
fn plans() -> Vec<(String, Plan)> {
    let mut out = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/run"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    names.sort();
    for path in names {
        let m = Manifest::load(&path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        match Plan::new(&m) {
            Ok(p) => out.push((name, p)),
            Err(e) => eprintln!("{name}: does not lift yet ({e:#})"),
        }
    }
    assert!(out.len() >= 12, "only {} run fixtures lift", out.len());
    out
}

#[test]
fn every_fixture_kernel_is_fully_structured() {
    let mut kernels = 0;
    let mut loops = 0;
    let mut dir: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/kernels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    dir.sort();
    for path in dir {
        let co = CodeObject::parse_any(&std::fs::read(&path).unwrap()).unwrap();
        for k in &co.kernels {
            // With calls inlined (D099): a callee's blocks are part of the kernel's CFG.
            let Ok(p) = rdna2spv::dispatch::lift_kernel(&co, k) else {
                continue;
            };
            let cfg = Cfg::new(&p);
            let s = Structure::new(&cfg);
            assert_eq!(cfg.is_reducible(), s.fully_structured(), "{}", k.name);
            assert!(
                s.fully_structured(),
                "{} in {}: {:?}",
                k.name,
                path.display(),
                rdna2spv_spirv::lower::control_flow_notes(&p)
            );
            // Barriers in the fixtures sit in uniform control flow (reduce, branchy: uniform loops).
            assert!(
                rdna2spv_ir::cfg::divergent_barriers(&p).is_empty(),
                "{}: {:?}",
                k.name,
                rdna2spv_ir::cfg::divergent_barriers(&p)
            );
            kernels += 1;
            loops += s.loops;
        }
    }
    eprintln!("{kernels} fixture kernels, {loops} loops, all structured");
    assert!(
        kernels >= 14 && loops >= 5,
        "{kernels} kernels, {loops} loops"
    );
}

#[test]
fn structured_block_order_matches_the_evaluator_trace() {
    let mut waves = 0;
    let mut visits = 0;
    let mut repeated = 0;
    for (name, mut plan) in plans() {
        let addresses = host_addresses(&plan.buffers);
        plan.bind(&addresses, plan.launch.grid).unwrap();
        let mut mem = Memory::default();
        for (b, &a) in plan.buffers.iter().zip(&addresses) {
            mem.add(&b.name, a, b.data.clone()).unwrap();
        }
        let (_, traces) = rdna2spv_eval::run_traced(&plan.program, &plan.launch, &mut mem)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let s = Structure::of(&plan.program);
        for t in &traces {
            check_trace(&plan.program, &s, &t.blocks).unwrap_or_else(|e| {
                panic!("{name}, workgroup {:?}, wave {}: {e}", t.workgroup, t.wave)
            });
            waves += 1;
            visits += t.blocks.len();
            let mut seen = std::collections::HashSet::new();
            repeated += t.blocks.iter().filter(|b| !seen.insert(**b)).count();
        }
    }
    eprintln!("{waves} waves, {visits} block visits ({repeated} repeated: loops) agree");
    // The fixtures exercise loops (reduce: a loop with barriers), not only straight paths.
    assert!(
        waves > 500 && repeated > 200,
        "{waves} waves, {repeated} repeats"
    );
}

#[test]
fn structured_and_dispatcher_give_identical_bits_on_lavapipe() {
    let ctx = open(None).expect("a Vulkan device (lavapipe)");
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let mut compared = 0;
    for (name, mut plan) in plans() {
        let blocks = Cfg::new(&plan.program).rpo.len();
        if blocks < 2 {
            continue;
        }
        let s = run_vulkan_opts(&ctx, &mut plan, &prof, false, ControlFlow::Structured)
            .unwrap_or_else(|e| panic!("{name} structured: {e:#}"));
        let d = run_vulkan_opts(&ctx, &mut plan, &prof, false, ControlFlow::Dispatcher)
            .unwrap_or_else(|e| panic!("{name} dispatcher: {e:#}"));
        let (host, _) = run_host_at(&plan, &d.addresses).unwrap();
        assert_eq!(
            first_difference(&d.buffers, &s.buffers),
            None,
            "{name}: dispatcher vs structured"
        );
        assert_eq!(
            first_difference(&host, &s.buffers),
            None,
            "{name}: host vs structured"
        );
        assert_eq!(
            first_difference(&host, &d.buffers),
            None,
            "{name}: host vs dispatcher"
        );
        eprintln!(
            "{name}: {blocks} blocks, module {} (structured) / {} (dispatcher) words, identical",
            s.report.module_words, d.report.module_words
        );
        compared += 1;
    }
    assert!(compared >= 6, "{compared} fixtures compared");
}

/// The rocSPARSE survey (long: reads the 1.3 GB library and lifts every gfx1030 kernel). Run with
/// `cargo test --release --test control_flow -- --ignored rocsparse --nocapture`
/// (`ROCSPARSE_SO` overrides the library path; `ROCSPARSE_TOP=<n>` lists the n largest kernels that lift).
/// Results are recorded in docs/performance.md ("Structured control flow").
#[test]
#[ignore = "long (reads librocsparse0, lifts every kernel): cargo test --release --test control_flow -- --ignored rocsparse --nocapture"]
fn rocsparse_kernels_structure() {
    let path = std::env::var("ROCSPARSE_SO")
        .unwrap_or_else(|_| "/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1".into());
    let top: usize = std::env::var("ROCSPARSE_TOP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let bytes = std::fs::read(&path).expect("librocsparse (apt-get install librocsparse0)");
    let cos = CodeObject::parse_all(&bytes).unwrap();
    drop(bytes);
    let (mut kernels, mut lifted, mut structured, mut loops, mut irreducible_blocks) =
        (0, 0, 0, 0, 0);
    // (instructions, code object, kernel, blocks, loops, (words structured, words dispatcher))
    type Row = (usize, usize, String, usize, usize, (usize, usize));
    let mut largest: Vec<Row> = Vec::new();
    let mut multi_block = 0;
    let (mut words_total, mut lower_failed) = ((0usize, 0usize), 0);
    for (ci, co) in cos.iter().enumerate() {
        if !co
            .bundle_triple
            .as_deref()
            .is_some_and(|t| t.contains("gfx1030"))
        {
            continue;
        }
        for k in &co.kernels {
            kernels += 1;
            let opts = rdna2spv::dispatch::lift_options(co, k);
            let Ok(p) = rdna2spv_ir::lift::lift(&k.name, &k.code, opts) else {
                continue;
            };
            lifted += 1;
            let cfg = Cfg::new(&p);
            let s = Structure::new(&cfg);
            assert_eq!(cfg.is_reducible(), s.fully_structured(), "{}", k.name);
            if cfg.rpo.len() > 1 {
                multi_block += 1;
            }
            loops += s.loops;
            if s.fully_structured() {
                structured += 1;
            } else {
                for r in &s.dispatch_regions {
                    irreducible_blocks += r.blocks.len();
                }
                for n in rdna2spv_spirv::lower::control_flow_notes(&p) {
                    eprintln!("note: {n}");
                }
            }
            let insts: usize = p.blocks.iter().map(|(_, b)| b.insts.len()).sum();
            // Module words structured vs dispatcher (64-work-item workgroups).
            let words = {
                let launch = rdna2spv_eval::Launch {
                    wave_size: k.abi.wave_size,
                    grid: [64, 1, 1],
                    workgroup: [64, 1, 1],
                    sgprs: rdna2spv::dispatch::initial_sgprs(&k.abi, 0, 0),
                    workitem_id_vgprs: k.abi.workitem_id_vgprs.len() as u32,
                    lds_bytes: k.descriptor.group_segment_fixed_size,
                    scratch_bytes: k.descriptor.private_segment_fixed_size,
                    max_steps_per_wave: 0,
                    code_base: None,
                };
                let layout = rdna2spv_vulkan::kernel_layout(&launch);
                let prof = rdna2spv_vulkan::DeviceProfile::portable();
                let w = |cf| {
                    let o = rdna2spv_spirv::lower::LowerOptions {
                        control_flow: cf,
                        ..Default::default()
                    };
                    rdna2spv_spirv::lower::lower_with(&p, &layout, &prof, &o).map(|v| v.len())
                };
                match (w(ControlFlow::Structured), w(ControlFlow::Dispatcher)) {
                    (Ok(a), Ok(b)) => {
                        words_total.0 += a;
                        words_total.1 += b;
                        (a, b)
                    }
                    (e1, e2) => {
                        lower_failed += 1;
                        eprintln!("{}: lowering failed: {e1:?} {e2:?}", k.name);
                        (0, 0)
                    }
                }
            };
            largest.push((insts, ci, k.name.clone(), cfg.rpo.len(), s.loops, words));
        }
    }
    eprintln!(
        "rocSPARSE gfx1030: {kernels} kernels, {lifted} lift, {multi_block} of them with more than one block, \
         {structured} fully structured, {} need a dispatcher region ({irreducible_blocks} blocks in such \
         regions), {loops} natural loops",
        lifted - structured
    );
    eprintln!(
        "translated both ways: {} of {lifted} (lowering failed: {lower_failed}); module words in all: {} \
         structured, {} dispatcher",
        lifted - lower_failed,
        words_total.0,
        words_total.1
    );
    largest.sort_by(|a, b| b.cmp(a));
    for (insts, ci, name, blocks, loops, (ws, wd)) in largest.iter().take(top) {
        eprintln!(
            "  {insts} instructions, {blocks} blocks, {loops} loops, module {ws} words structured / {wd} \
             dispatcher: code object #{ci} {name}"
        );
    }
    assert_eq!(
        structured, lifted,
        "every lifted rocSPARSE kernel is structured"
    );
}

/// Module size, first-dispatch time (lavapipe JITs inside it) and warm dispatch time of the three run
/// fixtures with the largest modules (and `branchy`, the fixture with the most blocks), structured vs
/// dispatcher. Run with
/// `MESA_SHADER_CACHE_DISABLE=true cargo test --release --test control_flow -- --ignored timings --nocapture`;
/// results in docs/performance.md ("Structured control flow").
#[test]
#[ignore = "benchmark: MESA_SHADER_CACHE_DISABLE=true cargo test --release --test control_flow -- --ignored timings --nocapture"]
fn control_flow_timings() {
    let ctx = open(None).expect("a Vulkan device (lavapipe)");
    let prof = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let mut all = plans();
    // Largest structured module first.
    let mut sized: Vec<(usize, String)> = Vec::new();
    for (name, plan) in &all {
        let layout = rdna2spv_vulkan::kernel_layout(&plan.launch);
        let words = rdna2spv_spirv::lower::lower(&plan.program, &layout, &prof)
            .unwrap()
            .len();
        sized.push((words, name.clone()));
    }
    sized.sort_by(|a, b| b.cmp(a));
    let mut pick: Vec<String> = sized.iter().take(3).map(|s| s.1.clone()).collect();
    if !pick.contains(&"branchy".to_string()) {
        pick.push("branchy".into());
    }
    eprintln!("| kernel | blocks | loops | form | module words | first dispatch ms | warm dispatch ms (median of 5) |");
    for name in pick {
        let i = all.iter().position(|(n, _)| *n == name).unwrap();
        let plan = &mut all[i].1;
        let blocks = Cfg::new(&plan.program).rpo.len();
        let loops = Structure::of(&plan.program).loops;
        for cf in [ControlFlow::Structured, ControlFlow::Dispatcher] {
            let first = run_vulkan_opts(&ctx, plan, &prof, false, cf).unwrap();
            let mut warm: Vec<f64> = (0..5)
                .map(|_| {
                    let r = run_vulkan_opts(&ctx, plan, &prof, false, cf).unwrap();
                    assert!(r.report.dispatch.pipeline_cached);
                    r.report.dispatch.dispatch.as_secs_f64() * 1e3
                })
                .collect();
            warm.sort_by(|a, b| a.partial_cmp(b).unwrap());
            eprintln!(
                "| {name} | {blocks} | {loops} | {cf:?} | {} | {:.0} | {:.1} |",
                first.report.module_words,
                (first.report.dispatch.pipeline_create + first.report.dispatch.dispatch)
                    .as_secs_f64()
                    * 1e3,
                warm[2]
            );
        }
    }
}
