//! `cargo xtask fixtures`: rebuild the code-object fixtures under `fixtures/kernels/` with the
//! real compilers, together with the golden outputs of LLVM's own tools.
//!
//! Every recipe in [`RECIPES`] produces, in `fixtures/kernels/`:
//!
//! * `<stem>.co` — the code object (`<stem>.bundle` for a clang offload bundle, `<stem>.o` for
//!   a HIP host object carrying the bundle in `.hip_fatbin`);
//! * `<stem>.objdump.txt` — `llvm-objdump-19 -d --mcpu=gfx1030 [--mattr=+wavefrontsize64]`,
//!   the golden disassembly;
//! * `<stem>.readelf.txt` — `llvm-readelf-19 --file-header --section-headers --symbols --notes`,
//!   the oracle for the ELF layout and the msgpack metadata (printed as YAML);
//! * `<stem>.s` — the compiler's assembly for the same source and flags, whose `.amdhsa_*`
//!   directives are the oracle for every kernel-descriptor field (not for `.o` outputs).
//!
//! Every tool runs with `fixtures/kernels/` as its working directory and relative file names, so
//! no absolute path leaks into a golden file.
//!
//! Options:
//!
//! * `--list` — print the recipes and exit;
//! * `--only STEM[,STEM…]` — rebuild only these recipes;
//! * `--no-hip` — skip the hipcc recipes (they are also skipped, with a warning, when `hipcc`
//!   is not installed);
//! * `--check` — build into a temporary folder and compare with the committed files instead of
//!   overwriting them; fails when anything differs;
//! * `--root DIR` — the workspace root (default: the parent of the xtask crate).
//!
//! Tools can be overridden with the environment variables `CLANG`, `HIPCC`, `LLVM_OBJDUMP` and
//! `LLVM_READELF` (defaults `clang-19`, `hipcc`, `llvm-objdump-19`, `llvm-readelf-19`).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// How a recipe's source is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compiler {
    /// OpenCL C with clang-19, builtins only (`-nogpulib`): code object v5 unless the flags
    /// say otherwise.
    OpenCl,
    /// OpenCL C with clang-19 `-c`: an unlinked (ET_REL) object, with objdump and readelf goldens.
    OpenClObject,
    /// HIP with hipcc 5.2 (clang-15), device code only, as a plain ELF code object (v4).
    HipDevice,
    /// HIP with hipcc 5.2, device code only, left in its clang offload bundle.
    HipBundle,
    /// HIP with hipcc 5.2: the host object, whose `.hip_fatbin` section holds the bundle.
    HipHost,
}

/// One fixture: a source file, the output stem and the extra compiler flags.
#[derive(Clone, Copy, Debug)]
pub struct Recipe {
    /// Output file stem inside `fixtures/kernels/`.
    pub stem: &'static str,
    /// Source file inside `fixtures/kernels/`.
    pub source: &'static str,
    pub compiler: Compiler,
    /// Flags added after the common ones.
    pub flags: &'static [&'static str],
    /// Build (and disassemble) for wave64.
    pub wave64: bool,
}

impl Recipe {
    fn output(&self) -> String {
        match self.compiler {
            Compiler::HipBundle => format!("{}.bundle", self.stem),
            Compiler::HipHost | Compiler::OpenClObject => format!("{}.o", self.stem),
            _ => format!("{}.co", self.stem),
        }
    }

    /// The files this recipe writes, relative to `fixtures/kernels/`.
    pub fn outputs(&self) -> Vec<String> {
        match self.compiler {
            Compiler::HipBundle | Compiler::HipHost => vec![self.output()],
            Compiler::OpenClObject => vec![
                self.output(),
                format!("{}.objdump.txt", self.stem),
                format!("{}.readelf.txt", self.stem),
            ],
            _ => vec![
                self.output(),
                format!("{}.objdump.txt", self.stem),
                format!("{}.readelf.txt", self.stem),
                format!("{}.s", self.stem),
            ],
        }
    }
}

/// Common clang-19 flags for the OpenCL fixtures (DESIGN.md, "Real RDNA 2 code").
pub const OPENCL_FLAGS: &[&str] = &[
    "-x",
    "cl",
    "-cl-std=CL2.0",
    "-target",
    "amdgcn-amd-amdhsa",
    "-mcpu=gfx1030",
    "-nogpulib",
    "-O2",
];

/// Common hipcc flags: always name the architecture, or hipcc silently builds gfx803.
pub const HIP_FLAGS: &[&str] = &["--offload-arch=gfx1030", "-O2", "--cuda-device-only"];

/// Every fixture. Keep `fixtures/README.md` in step with this table.
pub const RECIPES: &[Recipe] = &[
    Recipe {
        stem: "saxpy",
        source: "saxpy.cl",
        compiler: Compiler::OpenCl,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "saxpy_cov4",
        source: "saxpy.cl",
        compiler: Compiler::OpenCl,
        flags: &["-mcode-object-version=4"],
        wave64: false,
    },
    Recipe {
        stem: "divergent",
        source: "divergent.cl",
        compiler: Compiler::OpenCl,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "divergent_w64",
        source: "divergent.cl",
        compiler: Compiler::OpenCl,
        flags: &["-mwavefrontsize64"],
        wave64: true,
    },
    Recipe {
        stem: "reduce",
        source: "reduce.cl",
        compiler: Compiler::OpenCl,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "reduce_w64",
        source: "reduce.cl",
        compiler: Compiler::OpenCl,
        flags: &["-mwavefrontsize64"],
        wave64: true,
    },
    Recipe {
        stem: "atomics",
        source: "atomics.cl",
        compiler: Compiler::OpenCl,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "ids3d",
        source: "ids3d.cl",
        compiler: Compiler::OpenCl,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "scratch",
        source: "scratch.cl",
        compiler: Compiler::OpenCl,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "half",
        source: "half.cl",
        compiler: Compiler::OpenCl,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "divsqrt",
        source: "divsqrt.cl",
        compiler: Compiler::OpenCl,
        flags: &["-cl-fp32-correctly-rounded-divide-sqrt"],
        wave64: false,
    },
    Recipe {
        stem: "multi",
        source: "multi.cl",
        compiler: Compiler::OpenCl,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "multi_rel",
        source: "multi.cl",
        compiler: Compiler::OpenClObject,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "saxpy_hip",
        source: "saxpy.hip",
        compiler: Compiler::HipDevice,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "saxpy_hip",
        source: "saxpy.hip",
        compiler: Compiler::HipBundle,
        flags: &[],
        wave64: false,
    },
    Recipe {
        stem: "saxpy_hip_host",
        source: "saxpy.hip",
        compiler: Compiler::HipHost,
        flags: &[],
        wave64: false,
    },
];

struct Tools {
    clang: String,
    hipcc: String,
    objdump: String,
    readelf: String,
}

impl Tools {
    fn from_env() -> Self {
        let get =
            |var: &str, default: &str| std::env::var(var).unwrap_or_else(|_| default.to_string());
        Tools {
            clang: get("CLANG", "clang-19"),
            hipcc: get("HIPCC", "hipcc"),
            objdump: get("LLVM_OBJDUMP", "llvm-objdump-19"),
            readelf: get("LLVM_READELF", "llvm-readelf-19"),
        }
    }
}

struct Options {
    list: bool,
    check: bool,
    no_hip: bool,
    only: Option<Vec<String>>,
    root: PathBuf,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut opts = Options {
        list: false,
        check: false,
        no_hip: false,
        only: None,
        root: Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--list" => opts.list = true,
            "--check" => opts.check = true,
            "--no-hip" => opts.no_hip = true,
            "--only" => {
                let v = it
                    .next()
                    .context("--only needs a comma-separated list of stems")?;
                opts.only = Some(v.split(',').map(str::to_string).collect());
            }
            "--root" => {
                let v = it.next().context("--root needs a directory")?;
                opts.root = PathBuf::from(v);
            }
            "-h" | "--help" => {
                println!(
                    "usage: cargo xtask fixtures [--list] [--check] [--no-hip] [--only STEM,...] [--root DIR]"
                );
                std::process::exit(0);
            }
            other => bail!("unknown option {other:?} (try --help)"),
        }
    }
    if let Some(only) = &opts.only {
        for stem in only {
            if !RECIPES.iter().any(|r| r.stem == stem) {
                let mut known: Vec<&str> = RECIPES.iter().map(|r| r.stem).collect();
                known.dedup();
                bail!("no recipe named {stem:?}; known: {}", known.join(", "));
            }
        }
    }
    Ok(opts)
}

/// Entry point for `cargo xtask fixtures ARGS…`.
pub fn run(args: &[String]) -> Result<()> {
    let opts = parse_args(args)?;
    if opts.list {
        for r in RECIPES {
            println!(
                "{:<16} {:<14} {:?} {} -> {}",
                r.stem,
                r.source,
                r.compiler,
                r.flags.join(" "),
                r.outputs().join(" ")
            );
        }
        return Ok(());
    }
    let tools = Tools::from_env();
    let kernels = opts.root.join("fixtures").join("kernels");
    if !kernels.is_dir() {
        bail!("{} is not a directory (use --root)", kernels.display());
    }
    let have_hipcc = tool_exists(&tools.hipcc);
    let out_dir = if opts.check {
        let dir =
            std::env::temp_dir().join(format!("rdna2spv-fixtures-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        dir
    } else {
        kernels.clone()
    };

    let mut built: Vec<String> = Vec::new();
    let mut skipped: Vec<&str> = Vec::new();
    for recipe in RECIPES {
        if let Some(only) = &opts.only {
            if !only.iter().any(|s| s == recipe.stem) {
                continue;
            }
        }
        let is_hip = matches!(
            recipe.compiler,
            Compiler::HipDevice | Compiler::HipBundle | Compiler::HipHost
        );
        if is_hip && (opts.no_hip || !have_hipcc) {
            if !opts.no_hip {
                eprintln!(
                    "warning: {} not found; skipping {} (apt-get install hipcc rocm-device-libs)",
                    tools.hipcc,
                    recipe.output()
                );
            }
            skipped.push(recipe.stem);
            continue;
        }
        build(recipe, &tools, &kernels, &out_dir)
            .with_context(|| format!("building {}", recipe.output()))?;
        println!("built {}", recipe.outputs().join(" "));
        built.extend(recipe.outputs());
    }

    if opts.check {
        let mut differing = Vec::new();
        for name in &built {
            let fresh = std::fs::read(out_dir.join(name))?;
            let committed = std::fs::read(kernels.join(name)).unwrap_or_default();
            if fresh != committed {
                differing.push(name.clone());
            }
        }
        let _ = std::fs::remove_dir_all(&out_dir);
        if !differing.is_empty() {
            bail!(
                "{} fixture file(s) differ from a fresh build (different compiler version?): {}",
                differing.len(),
                differing.join(", ")
            );
        }
        println!("all {} fixture files match a fresh build", built.len());
    }
    if !skipped.is_empty() {
        eprintln!("skipped: {}", skipped.join(", "));
    }
    Ok(())
}

fn tool_exists(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}

/// Runs `cmd` in `cwd`; returns stdout, fails with stderr on a non-zero exit.
fn run_tool(cwd: &Path, program: &str, args: &[String]) -> Result<Vec<u8>> {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .with_context(|| format!("running {program} (is it installed?)"))?;
    if !out.status.success() {
        bail!(
            "{program} {} failed ({}):\n{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(out.stdout)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn build(recipe: &Recipe, tools: &Tools, src_dir: &Path, out_dir: &Path) -> Result<()> {
    let output = out_dir.join(recipe.output());
    let output_str = output
        .to_str()
        .context("output path is not UTF-8")?
        .to_string();
    let asm = out_dir.join(format!("{}.s", recipe.stem));
    let asm_str = asm
        .to_str()
        .context("output path is not UTF-8")?
        .to_string();

    match recipe.compiler {
        Compiler::OpenCl => {
            let mut args = strings(OPENCL_FLAGS);
            args.extend(strings(recipe.flags));
            let mut obj = args.clone();
            obj.extend([recipe.source.to_string(), "-o".into(), output_str]);
            run_tool(src_dir, &tools.clang, &obj)?;
            let mut s = args;
            s.extend(["-S".into(), recipe.source.to_string(), "-o".into(), asm_str]);
            run_tool(src_dir, &tools.clang, &s)?;
        }
        Compiler::OpenClObject => {
            let mut args = strings(OPENCL_FLAGS);
            args.extend(strings(recipe.flags));
            args.extend([
                "-c".into(),
                recipe.source.to_string(),
                "-o".into(),
                output_str,
            ]);
            run_tool(src_dir, &tools.clang, &args)?;
        }
        Compiler::HipDevice => {
            let mut args = strings(HIP_FLAGS);
            args.extend(strings(recipe.flags));
            let mut obj = args.clone();
            obj.extend([
                "--no-gpu-bundle-output".into(),
                "-c".into(),
                recipe.source.to_string(),
                "-o".into(),
                output_str,
            ]);
            run_tool(src_dir, &tools.hipcc, &obj)?;
            let mut s = args;
            s.extend(["-S".into(), recipe.source.to_string(), "-o".into(), asm_str]);
            run_tool(src_dir, &tools.hipcc, &s)?;
        }
        Compiler::HipBundle => {
            let mut args = strings(HIP_FLAGS);
            args.extend(strings(recipe.flags));
            args.extend([
                "-c".into(),
                recipe.source.to_string(),
                "-o".into(),
                output_str,
            ]);
            run_tool(src_dir, &tools.hipcc, &args)?;
            return Ok(());
        }
        Compiler::HipHost => {
            let mut args = strings(&["--offload-arch=gfx1030", "-O2"]);
            args.extend(strings(recipe.flags));
            args.extend([
                "-c".into(),
                recipe.source.to_string(),
                "-o".into(),
                output_str,
            ]);
            run_tool(src_dir, &tools.hipcc, &args)?;
            return Ok(());
        }
    }

    // Goldens from LLVM's tools, run next to the output with a relative name.
    let co = recipe.output();
    let mut objdump_args = strings(&["-d", "--mcpu=gfx1030"]);
    if recipe.wave64 {
        objdump_args.push("--mattr=+wavefrontsize64".into());
    }
    objdump_args.push(co.clone());
    let dis = run_tool(out_dir, &tools.objdump, &objdump_args)?;
    std::fs::write(out_dir.join(format!("{}.objdump.txt", recipe.stem)), dis)?;

    let readelf_args = strings(&[
        "--file-header",
        "--section-headers",
        "--symbols",
        "--notes",
        &co,
    ]);
    let elf = run_tool(out_dir, &tools.readelf, &readelf_args)?;
    std::fs::write(out_dir.join(format!("{}.readelf.txt", recipe.stem)), elf)?;
    Ok(())
}
