//! The evaluator's fast forms (fused instructions, D090; whole-block forms, D113) against its general path:
//! the contract between the fast layer and the reference interpreter (D176).
//!
//! `rdna2spv_eval::end_states(.., false)` runs with the fast forms, as `rdna2spv_eval::run` does; with `true`
//! it runs the reference interpreter alone, each instruction node by node (the general path), which the rest
//! of the suite checks against independent references (native C, SoftFloat, lavapipe). Every output byte,
//! both instruction counters and every wave's final SGPRs, SCC, VGPRs and step count must agree. A third run
//! under a tracer that records only steps 40-42 of each wave (inside the loop body of a loop kernel) mixes
//! the two per instruction (recorded instructions node by node, the others by their single-instruction fast
//! form, no block forms: a wave left in the middle of a block by a recorded step must not run a block form):
//! its output bytes and counters must agree too. The kernels: every fixture manifest (fixtures/run, fixtures/aco,
//! fixtures/hip), the benchmark's ALU kernels (xtask/bench_eval, compiled here by clang-19), and a kernel
//! written to put uniform 64-bit arithmetic, SCC chains and SGPRs read by VALU instructions inside one loop
//! block (what the block form's forwarding and dead-write removal act on).

use rdna2spv::dispatch::{host_addresses, Plan};
use rdna2spv::manifest::Manifest;
use rdna2spv_eval::Memory;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The plan's buffers placed at the host addresses, bound.
fn setup(m: &Manifest) -> (Plan, Memory) {
    let mut plan = Plan::new(m).unwrap();
    let addresses = host_addresses(&plan.buffers);
    plan.bind(&addresses, plan.launch.grid).unwrap();
    let mut mem = Memory::default();
    for (b, &a) in plan.buffers.iter().zip(&addresses) {
        mem.add(&b.name, a, b.data.clone()).unwrap();
    }
    (plan, mem)
}

/// Runs `m` on the fast and the general path; panics on any difference. Returns the fast forms' coverage.
fn compare(name: &str, m: &Manifest) -> rdna2spv_eval::FastForms {
    let (plan, initial) = setup(m);
    let forms = rdna2spv_eval::fast_forms(&plan.program).unwrap();
    let mut fast = initial.clone();
    let fast_run = rdna2spv_eval::end_states(&plan.program, &plan.launch, &mut fast, false);
    let mut general = initial.clone();
    let general_run = rdna2spv_eval::end_states(&plan.program, &plan.launch, &mut general, true);
    let ((fast_stats, fast_states), (general_stats, general_states)) = match (fast_run, general_run)
    {
        (Ok(a), Ok(b)) => (a, b),
        // Both refusing or faulting with the same error compared nothing (issue 28): a failure.
        (Err(a), Err(b)) => panic!("{name}: both paths fail: fast path: {a}; general path: {b}"),
        (a, b) => panic!(
            "{name}: fast path {:?}, general path {:?}",
            a.map(|_| ()),
            b.map(|_| ())
        ),
    };
    // Every wave's final SGPRs, SCC, VGPR file and step count.
    assert_eq!(fast_states.len(), general_states.len(), "{name}: waves");
    for (i, (x, y)) in fast_states.iter().zip(&general_states).enumerate() {
        assert_eq!(x.steps, y.steps, "{name}: wave {i}: steps");
        assert_eq!(x.scc, y.scc, "{name}: wave {i}: SCC");
        if let Some(r) = (0..128).find(|&r| x.sgpr[r] != y.sgpr[r]) {
            panic!(
                "{name}: wave {i}: s{r} {:#x} vs {:#x}",
                x.sgpr[r], y.sgpr[r]
            );
        }
        if let Some(k) = (0..x.vgpr.len()).find(|&k| x.vgpr.get(k) != y.vgpr.get(k)) {
            panic!("{name}: wave {i}: VGPR word {k} differs");
        }
    }
    assert_eq!(fast_stats, general_stats, "{name}: statistics");
    same_buffers(name, "fast", &plan, &fast, &general);
    // Under a tracer: steps 40-42 of every wave recorded (node by node), the rest by instruction forms.
    let mut mixed = initial.clone();
    let filter = rdna2spv_ir::trace::TraceFilter {
        steps: Some((40, 43)),
        ..Default::default()
    };
    let traced = rdna2spv_eval::trace::run_traced(&plan.program, &plan.launch, &mut mixed, filter)
        .unwrap_or_else(|e| panic!("{name}: traced run: {e}"));
    assert_eq!(
        traced.stats, general_stats,
        "{name}: traced run: statistics"
    );
    same_buffers(name, "traced", &plan, &mixed, &general);
    forms
}

/// Panics where a buffer of the `what` run differs from the general path's.
fn same_buffers(name: &str, what: &str, plan: &Plan, x: &Memory, general: &Memory) {
    for b in &plan.buffers {
        let x = &x.allocation(&b.name).unwrap().data;
        let y = &general.allocation(&b.name).unwrap().data;
        if x != y {
            let i = x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(0);
            panic!(
                "{name}: {what} run: buffer {} differs first at byte {i}",
                b.name
            );
        }
    }
}

#[test]
fn fast_forms_match_the_general_path_on_every_fixture() {
    let mut total = rdna2spv_eval::FastForms::default();
    let mut n = 0;
    for dir in [
        "fixtures/run",
        "fixtures/aco",
        "fixtures/hip",
        "fixtures/raw",
        "tests/eval_fast_paths",
    ] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        paths.sort();
        for p in paths {
            let m = Manifest::load(&p).unwrap();
            let f = compare(&p.display().to_string(), &m);
            total.instructions += f.instructions;
            total.fused_instructions += f.fused_instructions;
            total.blocks += f.blocks;
            total.block_forms += f.block_forms;
            n += 1;
        }
    }
    eprintln!("{n} manifests: {total:?}");
    assert!(n >= 30, "only {n} fixture manifests found");
    // The comparison covers both kinds of fast form (else it would check nothing).
    assert!(
        total.fused_instructions > 0 && total.block_forms > 0,
        "{total:?}"
    );
}

/// Compiles `source` (OpenCL C, fixtures' flags) for gfx1030 into `dir`; None when clang-19 is missing.
fn compile(source: &Path, defines: &[&str], dir: &Path, stem: &str) -> PathBuf {
    let co = dir.join(format!("{stem}.co"));
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang-19".into());
    let out = Command::new(&clang)
        .args([
            "-x",
            "cl",
            "-cl-std=CL2.0",
            "-target",
            "amdgcn-amd-amdhsa",
            "-mcpu=gfx1030",
            "-nogpulib",
            "-O2",
            "-ffp-contract=off",
            "-I",
        ])
        .arg(root().join("fixtures/kernels"))
        .args(defines)
        .arg(source)
        .arg("-o")
        .arg(&co)
        .output()
        .unwrap_or_else(|e| panic!("running {clang}: {e}"));
    assert!(
        out.status.success(),
        "{clang} on {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    co
}

const SCALAR_MIX: &str = r#"
#include "common.h"
// Uniform 64-bit arithmetic (s_add_u32/s_addc_u32, s_mul_hi_u32: SCC written and read inside the loop block),
// SGPRs written by scalar instructions and read by VALU ones in the same block, a uniform select.
kernel void scalar_mix(global uint *out, ulong n, uint s)
{
    uint i = GID_X();
    ulong acc = s;
    uint x = i;
    for (ulong k = 0; k < n; ++k) {
        acc = acc * 0x9E3779B97F4A7C15ul + k;
        uint hi = (uint)(acc >> 32);
        x = x * 3u + hi;
        x = ((uint)acc & 1u) ? (x ^ (uint)acc) : (x + 7u);
        uint c = (uint)k;
        x += (c > 5u) ? hi : c;
        x ^= (uint)(k * k) - (uint)(acc >> 17);
    }
    out[i] = x;
}
"#;

#[test]
fn fast_forms_match_the_general_path_on_loop_kernels() {
    let dir = std::env::temp_dir().join(format!("rdna2spv-eval-fast-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mix = dir.join("scalar_mix.cl");
    std::fs::write(&mix, SCALAR_MIX).unwrap();
    // Inputs: 512 work-items (2 workgroups of 8 wave32 waves), the last workgroup partial for the exec mask.
    let grid = 500u32;
    let mut x = Vec::new();
    let mut r = 0x1234_5678_9abc_def0u64;
    for _ in 0..grid {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        // f32 in (-1, 1) for poly (bits of any u32 for hash: both read it).
        let f = ((r >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0;
        x.extend_from_slice(&f.to_bits().to_le_bytes());
    }
    std::fs::write(dir.join("x.bin"), &x).unwrap();
    let bench = root().join("xtask/bench_eval");
    let cases: Vec<(String, PathBuf, &str, String)> = vec![
        (
            "poly u1".into(),
            compile(&bench.join("poly.cl"), &["-DUNROLL=1"], &dir, "poly1"),
            "poly",
            "[[args]]\nbuffer = \"x.bin\"\n\n[[args]]\nbuffer = { size = 2000 }\noutput = \"y\"\n\n[[args]]\nu32 = 37\n".into(),
        ),
        (
            "poly u4".into(),
            compile(&bench.join("poly.cl"), &["-DUNROLL=4"], &dir, "poly4"),
            "poly",
            "[[args]]\nbuffer = \"x.bin\"\n\n[[args]]\nbuffer = { size = 2000 }\noutput = \"y\"\n\n[[args]]\nu32 = 9\n".into(),
        ),
        (
            "hash u1".into(),
            compile(&bench.join("hash.cl"), &["-DUNROLL=1"], &dir, "hash1"),
            "hash",
            "[[args]]\nbuffer = \"x.bin\"\n\n[[args]]\nbuffer = { size = 2000 }\noutput = \"y\"\n\n[[args]]\nu32 = 41\n".into(),
        ),
        (
            "scalar_mix".into(),
            compile(&mix, &[], &dir, "scalar_mix"),
            "scalar_mix",
            "[[args]]\nbuffer = { size = 2000 }\noutput = \"out\"\n\n[[args]]\nu64 = 77\n\n[[args]]\nu32 = 3735928559\n".into(),
        ),
    ];
    for (name, co, kernel, args) in cases {
        let toml = format!(
            "code_object = {:?}\nkernel = {kernel:?}\ngrid = [{grid}, 1, 1]\nworkgroup = [256, 1, 1]\n\n{args}",
            co.display().to_string()
        );
        let path = dir.join(format!("{kernel}.toml"));
        std::fs::write(&path, toml).unwrap();
        let m = Manifest::load(&path).unwrap();
        let f = compare(&name, &m);
        eprintln!("{name}: {f:?}");
        // The loop block of each kernel is a block form.
        assert!(f.block_forms > 0, "{name}: {f:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
