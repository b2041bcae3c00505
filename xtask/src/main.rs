//! Developer tasks: `cargo xtask <codegen|sweep|fixtures>`.
mod aco;
mod bench_eval;
mod codegen;
mod corpus;
mod coverage;
mod demo;
mod fixtures;
mod floatbench;
mod inputs;
mod sweep;

const USAGE: &str = "usage: cargo xtask <command>
  aco [--fixtures]    capture GLSL compute shaders compiled by Mesa RADV/ACO (null device, no GPU)
  bench-eval [--quick] host evaluator throughput vs the same OpenCL C compiled natively (docs/performance.md)
  codegen [--check]   crates/isa/opcodes.txt -> crates/isa/src/generated/table.rs (--check: fail if stale)
  coverage [--check]  docs/coverage.md from the opcode table, the lifter, the lowering and test markers
  corpus rocsparse    fetch librocsparse0 (apt-get download) and extract its gfx1030 code objects and an index
                      into ~/.cache/rdna2spv/corpus/rocsparse (RDNA2SPV_CORPUS_DIR overrides)
  demo                install what is missing, then run rdna2spv on a real kernel and check it against LLVM
  fixtures [--check]  rebuild the fixture code objects and their LLVM goldens with the real compilers,
                      and the run manifests' input buffers (--inputs: only those)
  floatbench [--only P] every implemented float VALU op at benchmark size (>= 10^6 operands), host vs
                      lavapipe vs reference (parts: vfloat, fma, transcendental, strict-fp; --list)
  sweep [--table]     list every opcode slot LLVM-19 decodes per sub-target (--table: draft table rows)";

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("aco") => aco::run(&args[1..]),
        Some("bench-eval") => bench_eval::run(&args[1..]),
        Some("codegen") => codegen::run(&args[1..]),
        Some("coverage") => coverage::run(&args[1..]),
        Some("corpus") => corpus::run(&args[1..]),
        Some("demo") => demo::run(&args[1..]),
        Some("fixtures") => fixtures::run(&args[1..]),
        Some("floatbench") => floatbench::run(&args[1..]),
        Some("sweep") => sweep::run(&args[1..]),
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2)
        }
    }
}
