//! Measurement (not a product path; issue 31, D206): lavapipe's cold compile of one kernel's checked
//! module with its OpControlBarriers kept or stripped (stripped: the module is wrong, only its compile
//! cost is of interest). `xtask barrier-probe CO KERNEL_NAME keep|strip [lane|wave] [--count] [--plan]`:
//! prints the module's words, barriers and memory accesses (`limit::module_cost`, D211) and, in the lane
//! mapping, the lane plan's barrier sites by kind (the rest are LDS fences, decided while emitting), with
//! `--plan` the plan's text (D177, this launch's layout); `--profile FILE` lowers with a profile's JSON
//! (`rdna2spv translate --profile device` measures one) instead of the portable profile (L44 needs
//! the measured subgroup layout); `--count` stops there, else one dispatch on
//! lavapipe with the Mesa shader cache off (the kernel arguments are zero: the run may stop at a checked
//! access; the compile is what is measured).
use anyhow::{Context as _, Result};
use rdna2spv::dispatch::lift_options;
use rdna2spv_codeobj::CodeObject;
use rdna2spv_ir::lift::lift;
use rdna2spv_spirv::lower::{choose_mapping, lane_plan, lower_with, LowerOptions, Mapping};
use rdna2spv_vulkan::{kernel_layout, Context, DeviceProfile};
use std::time::{Duration, Instant};

pub fn main(args: &[String]) -> Result<()> {
    if args.len() < 3 || !matches!(args[2].as_str(), "keep" | "strip") {
        anyhow::bail!(
            "usage: xtask barrier-probe CODE_OBJECT KERNEL_NAME keep|strip [lane|wave] [--count] [--plan] [--profile FILE]"
        );
    }
    std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");
    let co = CodeObject::parse(&std::fs::read(&args[0])?)?;
    let k = co
        .kernels
        .iter()
        .find(|k| k.name == args[1])
        .context("kernel")?;
    let strip = args[2] == "strip";
    let program =
        lift(&k.name, &k.code, lift_options(&co, k)).map_err(|e| anyhow::anyhow!("lift: {e}"))?;
    let ctx = Context::new(rdna2spv_vulkan::DeviceSelector::from_env())?
        .with_timeout(Duration::from_secs(900))
        .with_max_module_words(None);
    let profile = match args.iter().position(|a| a == "--profile") {
        Some(i) => {
            let path = args.get(i + 1).context("--profile FILE")?;
            serde_json::from_str(&std::fs::read_to_string(path)?)?
        }
        None => DeviceProfile::portable(),
    };
    let kernarg_bytes = (k.descriptor.kernarg_size as u64).max(256);
    let kernarg = ctx.create_buffer(kernarg_bytes)?;
    let addr = kernarg.device_address();
    let launch = crate::bench_translate::launch_for(k, addr);
    let layout = kernel_layout(&launch);
    let mut opts = LowerOptions {
        checked: Some(1),
        ..LowerOptions::default()
    };
    opts.mapping = match args.get(3).map(String::as_str) {
        Some("lane") => Mapping::Lane,
        Some("wave") => Mapping::Wave,
        _ => choose_mapping(&program, &layout, &profile, &opts).mapping(),
    };
    let words = lower_with(&program, &layout, &profile, &opts)
        .map_err(|e| anyhow::anyhow!("lower: {e}"))?;
    let (mut out, mut i, mut barriers) = (words[..5].to_vec(), 5, 0);
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        let op = words[i] & 0xffff;
        if op == 224 {
            barriers += 1;
        }
        if !(strip && op == 224) {
            out.extend_from_slice(&words[i..i + n]);
        }
        i += n;
    }
    println!(
        "mapping {:?} words {} barriers {}",
        opts.mapping,
        words.len(),
        barriers
    );
    let cost = rdna2spv_vulkan::limit::module_cost(&words);
    println!(
        "memory accesses {} loops {} (module_cost, once inlined)",
        cost.memory_accesses, cost.loops
    );
    if opts.mapping == Mapping::Lane {
        let plan = lane_plan(&program, &layout, &profile, &opts)
            .map_err(|e| anyhow::anyhow!("lane plan: {e}"))?;
        let sites = plan.barrier_sites();
        println!(
            "plan barrier sites {} ({sites:?}); LDS fences {}",
            sites.total(),
            barriers as i64 - i64::from(sites.total())
        );
        if args.iter().any(|a| a == "--plan") {
            // The plan's per-instruction decisions (as `translate --dump-lane-plan`, with this launch).
            print!("{plan}");
        }
    }
    if args.iter().any(|a| a == "--count") {
        std::process::exit(0);
    }
    let t = Instant::now();
    let r = rdna2spv_vulkan::run_lowered(&ctx, &program, &launch, &out, &[(addr, kernarg_bytes)]);
    println!(
        "mapping {:?} words {} barriers {} stripped {} insts {} wall {:.2}s result {}",
        opts.mapping,
        out.len(),
        barriers,
        strip,
        k.code.len() / 4,
        t.elapsed().as_secs_f64(),
        match &r {
            Ok(_) => "ok".to_string(),
            Err(e) => e.to_string().chars().take(100).collect(),
        }
    );
    std::process::exit(0);
}

/// `xtask spv-probe MODULE.spv`: lavapipe's cold compile of a hand-written compute module (entry `main`,
/// no descriptor sets, 128 bytes of zero push constants), one workgroup, Mesa shader cache off; prints the
/// process CPU time of the dispatch (which holds the compile) and of a second, cached dispatch (D210: what
/// in a module lavapipe's compile time grows with, measured on modules that differ in one thing).
pub fn spv_main(args: &[String]) -> Result<()> {
    std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");
    let path = args.first().context("usage: xtask spv-probe MODULE.spv")?;
    let bytes = std::fs::read(path).with_context(|| format!("reading {path}"))?;
    let words = rdna2spv_capture::spirv_words(&bytes).with_context(|| format!("reading {path}"))?;
    let ctx = Context::new(rdna2spv_vulkan::DeviceSelector::from_env())?
        .with_timeout(Duration::from_secs(900))
        .with_max_module_words(None);
    let cpu = || crate::bench::process_cpu_seconds().unwrap_or(f64::NAN);
    let pc = [0u8; 128];
    let c0 = cpu();
    ctx.dispatch(&words, "main", [1, 1, 1], &pc)?;
    let c1 = cpu();
    ctx.dispatch(&words, "main", [1, 1, 1], &pc)?;
    let c2 = cpu();
    let cost = rdna2spv_vulkan::limit::module_cost(&words);
    println!(
        "{path}: {} words, {} memory accesses, {} barriers, {} loops: first dispatch {:.2} s CPU, second {:.2} s",
        cost.words,
        cost.memory_accesses,
        cost.barriers,
        cost.loops,
        c1 - c0,
        c2 - c1
    );
    Ok(())
}
