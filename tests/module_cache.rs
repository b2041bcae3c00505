//! The runner's module cache (decision D149, src/device.rs `run_vulkan_mapped_cached`), which `bench
//! device` uses so that its warm runs dispatch their first run's module instead of lowering it again just
//! before each timed dispatch: a reused module gives the same results as a freshly lowered one, it is
//! reused only for the same plan, mapping and launch shape, and never for a raw plan (whose program is
//! lifted again at each run's addresses).

use std::path::PathBuf;

use rdna2spv::device::{open, profile_of, run_vulkan_mapped_cached, ModuleCache, ProfileChoice};
use rdna2spv::dispatch::{run_host_at, Plan};
use rdna2spv_spirv::lower::{ControlFlow, Mapping};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// fixtures/kernels/branchy.cl written in Rust: each workgroup of 64 work-items exchanges `acc` through
/// `tile` for `rounds` rounds (both barriers), then every work-item below `n` runs the nested loops and
/// writes `out[i]`. Work-items past the grid do not exist; with the manifest's `rounds` = 3 no work-item
/// below `n` reads a slot of one (the fixture's comment, D145), so no initial LDS value enters.
fn branchy_model(input: &[u32], grid: usize, n: u32, rounds: u32) -> Vec<u32> {
    let mut out = vec![0u32; grid];
    for g in (0..grid).step_by(64) {
        let items = (grid - g).min(64);
        let x: Vec<u32> = (0..items)
            .map(|l| {
                let i = (g + l) as u32;
                if i < n {
                    input[g + l]
                } else {
                    0
                }
            })
            .collect();
        let mut acc = x.clone();
        let mut tile = [None::<u32>; 64];
        for r in 0..rounds {
            for l in 0..items {
                tile[l] = Some(acc[l]);
            }
            for (l, a) in acc.iter_mut().enumerate() {
                let t = tile[(l + r as usize + 1) & 63];
                if ((g + l) as u32) < n {
                    *a = a.wrapping_add(t.expect("a slot no work-item wrote"));
                }
            }
        }
        for l in 0..items {
            let i = g + l;
            if i as u32 >= n {
                continue;
            }
            let (x, mut acc) = (x[l], acc[l]);
            for a in 0..(x & 3) {
                let mut b = 0u32;
                while b < 2 + (x >> 30) {
                    if (((acc >> b) ^ b) & 3) == 1 {
                        b += 1;
                        continue;
                    }
                    if (acc.wrapping_add(b) & 15) == 7 {
                        break;
                    }
                    acc = acc
                        .wrapping_mul(1_664_525)
                        .wrapping_add(1_013_904_223)
                        .wrapping_add(b);
                    b += 1;
                }
                if (acc & 0x3ff) == 3 {
                    break;
                }
                acc = match acc >> 30 {
                    0 => acc ^ 0x9e37_79b9,
                    1 => acc.wrapping_add(a),
                    2 => (acc << 3).wrapping_add(acc >> 7),
                    _ => acc.wrapping_sub(x),
                };
            }
            out[i] = acc;
        }
    }
    out
}

fn out_words(run: &rdna2spv::device::DeviceRun) -> Vec<u32> {
    words(&run.buffers.iter().find(|b| b.name == "out").unwrap().data)
}

/// branchy (two wave32 waves per workgroup, barriers, lane-local loops): three lane-mapping runs through
/// one cache lower once and dispatch the same module, each run's output equal to the Rust model; the
/// wave mapping through the same cache lowers its own module (the options are part of the key), as does
/// the lane mapping after it.
#[test]
fn reused_module_runs_exact_and_only_for_its_key() {
    let manifest = root().join("fixtures/run/branchy.toml");
    let m = rdna2spv::manifest::Manifest::load(&manifest).unwrap();
    let input = words(&std::fs::read(root().join("fixtures/run/branchy.in.bin")).unwrap());
    let want = branchy_model(&input, 1000, 990, 3);
    let mut plan = Plan::new(&m).unwrap();
    assert!(plan.program_fixed());
    let ctx = open(None).unwrap();
    let profile = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let lane_words = plan.module(&profile, Mapping::Lane).unwrap().len();
    let wave_words = plan.module(&profile, Mapping::Wave).unwrap().len();
    assert_ne!(lane_words, wave_words);
    let mut cache = ModuleCache::default();
    let run = |plan: &mut Plan, cache: &mut ModuleCache, mapping: Mapping| {
        run_vulkan_mapped_cached(
            &ctx,
            plan,
            &profile,
            false,
            ControlFlow::default(),
            mapping,
            cache,
        )
        .unwrap()
    };
    let mut addresses = Vec::new();
    let mut held = Vec::new();
    for k in 0..3 {
        // A buffer kept alive over the later runs moves their buffers to other addresses.
        held.push(ctx.create_buffer(1 << 16).unwrap());
        let r = run(&mut plan, &mut cache, Mapping::Lane);
        assert_eq!(cache.hits, k, "lane run {k}: reuses after the first");
        assert_eq!(r.report.module_words, lane_words, "lane run {k}");
        assert_eq!(r.report.lower_time.is_zero(), k > 0, "lane run {k}");
        assert_eq!(out_words(&r), want, "lane run {k}");
        addresses.push(r.addresses);
    }
    // The reused module read other buffer addresses from its launch words.
    assert_ne!(addresses[0], addresses[1]);
    assert_ne!(addresses[1], addresses[2]);
    let r = run(&mut plan, &mut cache, Mapping::Wave);
    assert_eq!(cache.hits, 2, "the wave mapping lowers its own module");
    assert_eq!(r.report.module_words, wave_words);
    assert_eq!(out_words(&r), want, "wave run");
    let r = run(&mut plan, &mut cache, Mapping::Lane);
    assert_eq!(cache.hits, 2, "and the lane mapping again after it");
    assert_eq!(r.report.module_words, lane_words);
    assert_eq!(out_words(&r), want, "lane run after the wave run");
}

/// A raw plan (fixtures/raw/vsharp.toml) lifts its program again at every run's addresses: the cache
/// never reuses its module, and every run agrees with the host evaluator at the same addresses.
#[test]
fn raw_plans_lower_every_run() {
    let m = rdna2spv::manifest::Manifest::load(&root().join("fixtures/raw/vsharp.toml")).unwrap();
    let mut plan = Plan::new(&m).unwrap();
    assert!(!plan.program_fixed());
    let ctx = open(None).unwrap();
    let profile = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let mut cache = ModuleCache::default();
    for k in 0..2 {
        let dev = run_vulkan_mapped_cached(
            &ctx,
            &mut plan,
            &profile,
            false,
            ControlFlow::default(),
            Mapping::Wave,
            &mut cache,
        )
        .unwrap();
        assert_eq!(cache.hits, 0, "raw run {k}");
        assert!(!dev.report.lower_time.is_zero(), "raw run {k}");
        let (host, _) = run_host_at(&plan, &dev.addresses).unwrap();
        let h = host.iter().find(|b| b.name == "y").unwrap();
        let d = dev.buffers.iter().find(|b| b.name == "y").unwrap();
        assert_eq!(words(&h.data), words(&d.data), "raw run {k}");
    }
}
