//! Developer tasks: `cargo xtask <codegen|sweep|fixtures>`.
mod aco;
#[cfg(feature = "bench")]
mod barrier_probe;
#[cfg(feature = "bench")]
mod bench;
#[cfg(feature = "bench")]
mod bench_corpus_size;
#[cfg(feature = "bench")]
mod bench_decode;
#[cfg(all(feature = "bench", has_file_device))]
#[rustfmt::skip]
mod bench_device;
#[cfg(all(feature = "bench", has_file_eval))]
#[rustfmt::skip]
mod bench_eval;
#[cfg(all(feature = "bench", has_bench_lane))]
#[rustfmt::skip]
mod bench_lane;
#[cfg(all(feature = "bench", has_file_hip))]
#[rustfmt::skip]
mod bench_hip;
#[cfg(feature = "bench")]
mod bench_translate;
mod codegen;
#[cfg(feature = "bench")]
mod compile_floor;
mod coro_probe;
mod corpus;
mod coverage;
mod demo;
mod fixtures;
mod floatbench;
mod gpucheck;
mod inputs;
#[cfg(feature = "bench")]
mod lane_size;
mod sweep;
#[cfg(feature = "bench")]
mod word_census;

const USAGE: &str = "usage: cargo xtask <command>
  aco --fixtures      regenerate fixtures/aco/ with `rdna2spv capture`'s code (RADV null device, no GPU)
  bench [SECTION].. [--quick] [--json F]  performance figures, each a ratio against a reference measured in
                       the same run, into docs/performance.md (sections: decode, translate, eval, device, lane, hip;
                       corpus-size only when named: module words and lavapipe's cold compile of 220 rocSPARSE
                       kernels, resumable, hours)
  bench device [--write] [--only K,..] [--scales 1,10,100] [--reps N]
                      translated kernels vs hand-written GLSL on the Vulkan device: translation vs
                      compile time, run time at 1x/10x/100x (--write: docs/performance.md's section)
  bench-eval [--quick] host evaluator throughput vs the same OpenCL C compiled natively (docs/performance.md)
  lane-size [--n N] [--seed S] [--kernel NAME].. [--near N].. [--per P] [--mapping lane|wave] [--hash]
            [--validate] [--json F]
                      lane module words and k = (words - 3000) / instructions over a seeded sample of the
                      rocSPARSE corpus (default 120 kernels, seed 162; RDNA2SPV_SHRINK picks the rewrites;
                      --near: the bench translate's picks; --hash: each module's FNV-1a hash)
  compile-floor CO KERNEL_INDEX PROFILE_JSON [--images] [--accumulator] [--only V,..] [--timeout S]
                [--keep DIR] [--json F]
                      lavapipe's cold compile of one kernel's checked module against the same module with
                      its workgroup loads, workgroup accesses, all memory accesses and barriers ablated
                      (each variant wrapped in a branch nothing takes; --images: the workgroup loads as
                      storage texel buffer reads; --accumulator: the keep-alive accumulator's own cost;
                      decision D287)
  coro-probe -- CMD.. lavapipe's coroutine-split cost inside CMD (e.g. `xtask compile-probe ..`): dominator
                      trees built (one per alloca), seconds in them and in buildCoroutineFrame, by uprobes on
                      Mesa's libLLVM (root, perf and nm needed; decision D245)
  codegen [--check]   crates/isa/opcodes.txt -> crates/isa/src/generated/table.rs (--check: fail if stale)
  coverage [--check | --static-only] [--logs DIR]
                      docs/coverage.md from the opcode table, the lifter, the lowering, test markers and
                      the executed-encoding logs of `RDNA2SPV_COVERAGE_LOG=$PWD/target/coverage-log cargo test`
                      (--check: fail if stale or a claim is not in the logs; --static-only: without logs)
  corpus rocsparse    fetch librocsparse0 (apt-get download) and extract its gfx1030 code objects and an index
                      into ~/.cache/rdna2spv/corpus/rocsparse (RDNA2SPV_CORPUS_DIR overrides)
  corpus rocrand      the same for librocrand1 into ~/.cache/rdna2spv/corpus/rocrand
  demo                install what is missing, then run rdna2spv on a real kernel and check it against LLVM
  install             install the Debian packages the tests need that are missing (the list CI uses)
  fixtures [--check]  rebuild the fixture code objects and their LLVM goldens with the real compilers,
                      and the run manifests' input buffers (--inputs: only those)
  floatbench [--only P] every implemented float VALU op at benchmark size (>= 10^6 operands), host vs
                      lavapipe vs reference (parts: vfloat, fma, transcendental, strict-fp; --list)
  gpu-check [--device D] [--quick] [--release] [--out FILE]
                      on a machine with a GPU: build, print the measured device profile, run every fixture
                      (--backend both), the multiply-add, denormal and rocSPARSE suites on that device, and
                      write a JSON report (default target/gpu-check.json); exit 1 if a step failed
  gpu-check --bundle DIR
                      the same prebuilt for a GPU machine without Rust: release binaries and DIR/run.sh
  sweep [--table]     list every opcode slot LLVM-19 decodes per sub-target (--table: draft table rows)";

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("aco") => aco::run(&args[1..]),
        #[cfg(all(feature = "bench", has_file_device))]
        Some("bench") if args.get(1).map(String::as_str) == Some("device") => {
            bench_device::run(&args[2..])
        }
        #[cfg(all(feature = "bench", has_file_eval))]
        Some("bench-eval") => bench_eval::run(&args[1..]),
        #[cfg(feature = "bench")]
        Some("bench") => bench::run(&args[1..]),
        // The child process of `bench corpus-size` (one kernel's cold compile, measured from outside).
        #[cfg(feature = "bench")]
        Some("compile-probe") => bench_corpus_size::probe_main(&args[1..]),
        #[cfg(feature = "bench")]
        Some("barrier-probe") => barrier_probe::main(&args[1..]),
        #[cfg(feature = "bench")]
        Some("spv-probe") => barrier_probe::spv_main(&args[1..]),
        #[cfg(feature = "bench")]
        Some("compile-floor") => compile_floor::main(&args[1..]),
        #[cfg(feature = "bench")]
        Some("image-probe") => compile_floor::image_probe_main(&args[1..]),
        #[cfg(feature = "bench")]
        Some("lane-size") => lane_size::run(&args[1..]),
        #[cfg(not(feature = "bench"))]
        Some("bench" | "bench-eval" | "lane-size") => with_bench_feature(&args),
        Some("codegen") => codegen::run(&args[1..]),
        Some("coro-probe") => coro_probe::run(&args[1..]),
        Some("coverage") => coverage::run(&args[1..]),
        Some("corpus") => corpus::run(&args[1..]),
        Some("demo") => demo::run(&args[1..]),
        Some("install") => demo::install_missing(),
        Some("fixtures") => fixtures::run(&args[1..]),
        Some("floatbench") => floatbench::run(&args[1..]),
        Some("gpu-check") => gpucheck::run(&args[1..]),
        Some("sweep") => sweep::run(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2)
        }
    }
}

/// `bench` and `bench-eval` need the CLI's library (and so a C toolchain for softfloat-sys): xtask runs itself
/// again with its `bench` feature, in the same profile, passing the arguments through.
#[cfg(not(feature = "bench"))]
fn with_bench_feature(args: &[String]) -> anyhow::Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = std::process::Command::new(cargo);
    cmd.args([
        "run",
        "--quiet",
        "--package",
        "xtask",
        "--features",
        "bench",
    ]);
    if !cfg!(debug_assertions) {
        cmd.arg("--release");
    }
    let status = cmd.arg("--").args(args).status()?;
    std::process::exit(status.code().unwrap_or(2))
}
