//! `rdna2spv corpus`: the real-world corpus check over the gfx1030 code objects that `cargo xtask corpus
//! rocsparse` extracts from Debian's `librocsparse0` (docs/corpus.md).
//!
//! Per code object: the whole listing against `llvm-objdump-19 -d --mcpu=gfx1030` line by line (the decode
//! oracle). Per kernel: lift and lower (portable profile, one invocation per wave) and `spirv-val
//! --target-env vulkan1.3` on the module. A kernel that does not translate is classified by *every*
//! instruction it is blocked on: the first unsupported instruction's opcode is recorded, all its occurrences in
//! the kernel are replaced by `s_nop` words of the same length (for classification only — such a module is
//! never used), and the kernel is translated again, until it translates or an error is not an unsupported
//! instruction. So a kernel's blocker set says exactly which opcodes stand between it and a module, and the
//! ranking can count the kernels that one more opcode would unlock.

use crate::corpus_validate::{How, Validator};
use crate::dispatch::{initial_sgprs, lift_options, target_of};
use anyhow::{bail, Context, Result};
use rdna2spv_codeobj::{CodeObject, Kernel};
use rdna2spv_ir::lift::{lift, LiftError};
use rdna2spv_isa::{decode, Opcode, Target};
use rdna2spv_spirv::lower::LowerError;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The cache `cargo xtask corpus rocsparse` fills: `$RDNA2SPV_CORPUS_DIR/rocsparse`, else
/// `$XDG_CACHE_HOME/rdna2spv/corpus/rocsparse`, else `$HOME/.cache/rdna2spv/corpus/rocsparse`.
pub fn default_dir() -> Option<PathBuf> {
    cache_dir("rocsparse")
}

/// The cache `cargo xtask corpus NAME` fills (`rocsparse`, `rocrand`), by the rule of [`default_dir`].
pub fn cache_dir(name: &str) -> Option<PathBuf> {
    let root = if let Some(d) = std::env::var_os("RDNA2SPV_CORPUS_DIR") {
        PathBuf::from(d)
    } else if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        PathBuf::from(d).join("rdna2spv/corpus")
    } else {
        PathBuf::from(std::env::var_os("HOME")?).join(".cache/rdna2spv/corpus")
    };
    Some(root.join(name))
}

/// `index.json` as the xtask writes it.
#[derive(Debug, Clone, Deserialize)]
pub struct Index {
    pub package: Option<String>,
    pub kernels: usize,
    pub bundles: Vec<BundleInfo>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BundleInfo {
    pub bundle: usize,
    pub code_object: Option<String>,
    #[serde(default)]
    pub size: u64,
    #[serde(default)]
    pub kernels: Vec<String>,
}

impl Index {
    pub fn load(dir: &Path) -> Result<Index> {
        let p = dir.join("index.json");
        let text = std::fs::read_to_string(&p).with_context(|| {
            format!(
                "reading {} (run `cargo xtask corpus rocsparse` first)",
                p.display()
            )
        })?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", p.display()))
    }
}

/// What to check.
#[derive(Debug, Clone)]
pub struct Options {
    pub decode: bool,
    pub translate: bool,
    pub validate: bool,
    pub jobs: usize,
    pub objdump: String,
    pub spirv_val: String,
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// The profile kernels are lowered for (`rdna2spv corpus` measures the Vulkan device, as `translate
    /// --profile device` does: rocSPARSE needs Float64 and Int64, which the portable profile does not assume).
    pub profile: rdna2spv_vulkan::DeviceProfile,
    /// Keep the keys of spirv-val-clean modules in this file across runs (D077); `None`: this run only.
    pub validation_cache: Option<PathBuf>,
    /// Run spirv-val only on modules of at most this many words (its cost grows faster than linearly with
    /// the module, D077); larger modules count as translated, not validated. `None`: every module.
    pub validate_max_words: Option<usize>,
    /// The lane or wave mapping (`corpus --mapping`; issue 31 measures the lane mapping's acceptance).
    pub mapping: rdna2spv_spirv::lower::Mapping,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            decode: true,
            translate: true,
            validate: true,
            jobs: 2,
            objdump: std::env::var("LLVM_OBJDUMP").unwrap_or_else(|_| "llvm-objdump-19".into()),
            spirv_val: std::env::var("SPIRV_VAL").unwrap_or_else(|_| "spirv-val".into()),
            progress: false,
            profile: rdna2spv_vulkan::DeviceProfile::portable(),
            validation_cache: None,
            validate_max_words: None,
            mapping: Default::default(),
        }
    }
}

/// How one kernel fared.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub enum Outcome {
    /// Translated; `spirv-val` accepted the module (or validation was off: `validated` false).
    Valid { validated: bool, words: usize },
    /// Translated, but `spirv-val` rejected the module (a translator bug).
    Invalid { message: String },
    /// Unsupported instructions: their opcodes, the first one first; `reason`: the first refusal's message
    /// (in the lane mapping a refusal at an instruction may be a rule of the lane lowering, not a missing
    /// opcode: the message says which, D157).
    Blocked {
        first: String,
        all: Vec<String>,
        reason: String,
    },
    /// Some other error (decode, branch, layout, builder).
    Error { message: String },
}

#[derive(Debug, Clone, Serialize)]
pub struct KernelReport {
    pub name: String,
    pub instructions: usize,
    pub outcome: Outcome,
    /// Static occurrences of each blocking opcode in the kernel.
    pub blocker_counts: BTreeMap<String, usize>,
    /// Time spent translating (all attempts) and in spirv-val.
    pub seconds_translate: f64,
    pub seconds_validate: f64,
    /// How the module's spirv-val verdict was obtained (D077); `None` when it was not validated.
    pub validation: Option<How>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct DecodeReport {
    /// Instruction lines llvm-objdump-19 printed.
    pub instructions: usize,
    /// Lines (instruction or header) that differ, plus the difference in line counts.
    pub differing: usize,
    /// The first few differences: (line number, ours, llvm-objdump-19's).
    pub examples: Vec<(usize, String, String)>,
    pub seconds_ours: f64,
    pub seconds_objdump: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ObjectReport {
    pub bundle: usize,
    pub file: String,
    pub decode: Option<DecodeReport>,
    pub kernels: Vec<KernelReport>,
    pub error: Option<String>,
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub objects: Vec<ObjectReport>,
    pub seconds: f64,
    pub jobs: usize,
}

/// Checks the code objects `bundles` (indices into the index; all when empty) of the corpus in `dir`.
pub fn check(dir: &Path, bundles: &[usize], opts: &Options) -> Result<Report> {
    let index = Index::load(dir)?;
    let chosen: Vec<&BundleInfo> = index
        .bundles
        .iter()
        .filter(|b| b.code_object.is_some())
        .filter(|b| bundles.is_empty() || bundles.contains(&b.bundle))
        .collect();
    for &b in bundles {
        if !chosen.iter().any(|c| c.bundle == b) {
            bail!("bundle {b} has no gfx1030 code object in the index");
        }
    }
    let validator = if opts.validate {
        which(&opts.spirv_val, "--version")?;
        Some(
            Validator::new(&opts.spirv_val, opts.validation_cache.as_deref())
                .map_err(|e| anyhow::anyhow!(e))?,
        )
    } else {
        None
    };
    let validator = validator.as_ref();
    if opts.decode {
        which(&opts.objdump, "--version")?;
    }
    let total_kernels: usize = chosen.iter().map(|b| b.kernels.len()).sum();
    // Largest first, so that the last job to finish is a short one.
    let mut order: Vec<usize> = (0..chosen.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(chosen[i].size));
    let next = AtomicUsize::new(0);
    let kernels_done = AtomicUsize::new(0);
    let objects_done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<ObjectReport>>> = Mutex::new(vec![None; chosen.len()]);
    let t0 = Instant::now();
    let tmp = std::env::temp_dir().join(format!("rdna2spv-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    let finished = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        for job in 0..opts.jobs.max(1) {
            let (next, order, chosen, results) = (&next, &order, &chosen, &results);
            let (kernels_done, objects_done, tmp) = (&kernels_done, &objects_done, &tmp);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&k) = order.get(i) else { break };
                let b = chosen[k];
                let path = dir
                    .join("co")
                    .join(b.code_object.as_deref().unwrap_or_default());
                let scratch = tmp.join(format!("job{job}.spv"));
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    check_object(b.bundle, &path, opts, validator, &scratch, kernels_done)
                }))
                .unwrap_or_else(|p| ObjectReport {
                    bundle: b.bundle,
                    file: path.display().to_string(),
                    decode: None,
                    kernels: Vec::new(),
                    error: Some(format!("panic: {}", panic_text(&p))),
                });
                objects_done.fetch_add(1, Ordering::SeqCst);
                results.lock().unwrap()[k] = Some(r);
            });
        }
        if opts.progress {
            let finished = &finished;
            let (kernels_done, objects_done) = (&kernels_done, &objects_done);
            let n_objects = chosen.len();
            s.spawn(move || {
                let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
                let mut last_line = Instant::now();
                while !finished.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(250));
                    let (k, o) = (
                        kernels_done.load(Ordering::SeqCst),
                        objects_done.load(Ordering::SeqCst),
                    );
                    let bar = progress_line(k, total_kernels, o, n_objects, t0.elapsed());
                    if tty {
                        eprint!("\r{bar}");
                    } else if last_line.elapsed() >= Duration::from_secs(30) {
                        eprintln!("{bar}");
                        last_line = Instant::now();
                    }
                }
                if tty {
                    eprintln!();
                }
            });
        }
        // Wait for the workers (every spawned worker but the progress thread), then stop the bar.
        while objects_done.load(Ordering::SeqCst) < chosen.len() {
            std::thread::sleep(Duration::from_millis(50));
        }
        finished.store(true, Ordering::SeqCst);
    });
    std::fs::remove_dir_all(&tmp).ok();
    let objects = results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every object is checked"))
        .collect();
    Ok(Report {
        objects,
        seconds: t0.elapsed().as_secs_f64(),
        jobs: opts.jobs,
    })
}

fn progress_line(k: usize, total: usize, o: usize, objects: usize, t: Duration) -> String {
    let width = 40;
    let filled = (k * width).checked_div(total).unwrap_or(width).min(width);
    format!(
        "[{}{}] {k}/{total} kernels, {o}/{objects} code objects, {:.0} s",
        "#".repeat(filled),
        ".".repeat(width - filled),
        t.as_secs_f64()
    )
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

fn which(tool: &str, arg: &str) -> Result<()> {
    Command::new(tool)
        .arg(arg)
        .output()
        .with_context(|| format!("running {tool} (is it installed?)"))?;
    Ok(())
}

fn check_object(
    bundle: usize,
    path: &Path,
    opts: &Options,
    validator: Option<&Validator>,
    scratch: &Path,
    kernels_done: &AtomicUsize,
) -> ObjectReport {
    let file = path.display().to_string();
    let mut rep = ObjectReport {
        bundle,
        file: file.clone(),
        decode: None,
        kernels: Vec::new(),
        error: None,
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            rep.error = Some(format!("reading {file}: {e}"));
            return rep;
        }
    };
    let co = match CodeObject::parse(&bytes) {
        Ok(c) => c,
        Err(e) => {
            rep.error = Some(format!("loading {file}: {e}"));
            return rep;
        }
    };
    if opts.decode {
        match compare_listing(path, &bytes, &co, &opts.objdump) {
            Ok(d) => rep.decode = Some(d),
            Err(e) => rep.error = Some(format!("{e:#}")),
        }
    }
    if opts.translate {
        for k in &co.kernels {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check_kernel_with(&co, k, opts, validator, scratch)
            }))
            .unwrap_or_else(|p| KernelReport {
                name: k.name.clone(),
                instructions: 0,
                outcome: Outcome::Error {
                    message: format!("panic: {}", panic_text(&p)),
                },
                blocker_counts: BTreeMap::new(),
                seconds_translate: 0.0,
                seconds_validate: 0.0,
                validation: None,
            });
            rep.kernels.push(r);
            kernels_done.fetch_add(1, Ordering::SeqCst);
        }
    } else {
        kernels_done.fetch_add(co.kernels.len(), Ordering::SeqCst);
    }
    rep
}

/// Our listing of the whole object against llvm-objdump-19's, line by line.
pub fn compare_listing(
    path: &Path,
    bytes: &[u8],
    co: &CodeObject,
    objdump: &str,
) -> Result<DecodeReport> {
    let t = Instant::now();
    let mut cmd = Command::new(objdump);
    cmd.args(["-d", "--mcpu=gfx1030"]);
    if !co.kernels.is_empty() && co.kernels.iter().all(|k| k.abi.wave_size == 64) {
        cmd.arg("--mattr=+wavefrontsize64");
    }
    let out = cmd
        .arg(path)
        .output()
        .with_context(|| format!("running {objdump}"))?;
    if !out.status.success() {
        bail!(
            "{objdump} failed on {}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let theirs = String::from_utf8_lossy(&out.stdout).into_owned();
    let seconds_objdump = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let name = path.display().to_string();
    let ours = crate::disasm::object_listing(&name, bytes, co, target_of(co), None);
    let seconds_ours = t.elapsed().as_secs_f64();
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
    let mut rep = DecodeReport {
        instructions: b
            .iter()
            .filter(|l| l.starts_with('\t') && !l.starts_with("\t\t"))
            .count(),
        seconds_ours,
        seconds_objdump,
        ..Default::default()
    };
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if x != y {
            rep.differing += 1;
            if rep.examples.len() < 5 {
                rep.examples.push((i + 1, x.to_string(), y.to_string()));
            }
        }
    }
    rep.differing += a.len().abs_diff(b.len());
    Ok(rep)
}

/// The workgroup a kernel is translated for: its required size, else its maximum flat size (at most 256)
/// along x, else 64.
pub fn workgroup_of(k: &Kernel) -> [u32; 3] {
    let m = k.metadata.as_ref();
    if let Some(v) = m
        .and_then(|m| m.reqd_workgroup_size.clone())
        .filter(|v| v.len() == 3)
    {
        return [v[0] as u32, v[1] as u32, v[2] as u32];
    }
    let x = m
        .and_then(|m| m.max_flat_workgroup_size)
        .map(|x| x.clamp(1, 256) as u32)
        .unwrap_or(64);
    [x, 1, 1]
}

/// Translates one kernel (for `opts.profile`) and validates the module (spirv-val on every call, no
/// deduplication); see the module docs for blockers.
pub fn check_kernel(co: &CodeObject, k: &Kernel, opts: &Options, scratch: &Path) -> KernelReport {
    let v = if opts.validate {
        Validator::new(&opts.spirv_val, None).ok()
    } else {
        None
    };
    check_kernel_with(co, k, opts, v.as_ref(), scratch)
}

/// [`check_kernel`] with a shared validator (one spirv-val run per distinct module, D077). With
/// `opts.validate` and no validator, spirv-val runs on the module directly.
pub fn check_kernel_with(
    co: &CodeObject,
    k: &Kernel,
    opts: &Options,
    validator: Option<&Validator>,
    scratch: &Path,
) -> KernelReport {
    let target = target_of(co);
    let mut code = k.code.clone();
    let mut blockers: Vec<String> = Vec::new();
    let mut blocker_counts = BTreeMap::new();
    let mut reason = String::new();
    let instructions = linear(&code, target).len();
    let t0 = Instant::now();
    let mut seconds_validate = 0.0;
    let mut validation = None;
    let outcome = loop {
        match translate_words(co, k, &code, &opts.profile, opts.mapping) {
            Ok(words) => {
                // D288: a lane module whose workgroup memory the texel rewrite could not move runs,
                // but compiles as slowly as before: a translation defect to fix, named here.
                if let Some(why) = rdna2spv_spirv::lower::texel_refusal(&words) {
                    break Outcome::Error {
                        message: format!("the texel-buffer LDS rewrite (D288) refused: {why}"),
                    };
                }
                if !blockers.is_empty() {
                    break Outcome::Blocked {
                        first: blockers[0].clone(),
                        all: blockers.clone(),
                        reason,
                    };
                }
                let over_cap = opts.validate_max_words.is_some_and(|m| words.len() > m);
                if over_cap {
                    // Over the cap spirv-val does not run; a verdict already known for these exact bytes
                    // (this run or the cache file, D077) still counts.
                    if let Some((v, how)) = validator.and_then(|val| val.known(&words)) {
                        validation = Some(how);
                        break match v {
                            Ok(()) => Outcome::Valid {
                                validated: true,
                                words: words.len(),
                            },
                            Err(message) => Outcome::Invalid { message },
                        };
                    }
                }
                if !opts.validate || over_cap {
                    break Outcome::Valid {
                        validated: false,
                        words: words.len(),
                    };
                }
                let v = match validator {
                    Some(val) => {
                        let (v, how, secs) = val.validate(&words, scratch);
                        seconds_validate = secs;
                        validation = Some(how);
                        v
                    }
                    None => {
                        let tv = Instant::now();
                        let v = spirv_val(&opts.spirv_val, &words, scratch);
                        seconds_validate = tv.elapsed().as_secs_f64();
                        validation = Some(How::Ran);
                        v
                    }
                };
                break match v {
                    Ok(()) => Outcome::Valid {
                        validated: true,
                        words: words.len(),
                    },
                    Err(message) => Outcome::Invalid { message },
                };
            }
            Err(Failure::At(pc, message)) => {
                let Some(op) = opcode_at(&code, pc, target) else {
                    break Outcome::Error { message };
                };
                let name = format!("{op:?}");
                if blockers.contains(&name) || blockers.len() >= 200 {
                    // Patching did not remove it (it must be elsewhere than the linear decode found).
                    break Outcome::Error { message };
                }
                let n = patch_opcode(&mut code, op, target);
                blocker_counts.insert(name.clone(), n);
                blockers.push(name);
                if reason.is_empty() {
                    reason = message;
                }
            }
            Err(Failure::Other(message)) => {
                break if blockers.is_empty() {
                    Outcome::Error { message }
                } else {
                    Outcome::Blocked {
                        first: blockers[0].clone(),
                        all: blockers.clone(),
                        reason,
                    }
                }
            }
        }
    };
    KernelReport {
        name: k.name.clone(),
        instructions,
        outcome,
        blocker_counts,
        seconds_translate: t0.elapsed().as_secs_f64() - seconds_validate,
        seconds_validate,
        validation,
    }
}

/// The module `rdna2spv corpus` validates for kernel `k` (lowered for `profile`), or why there is none.
pub fn module_words(
    co: &CodeObject,
    k: &Kernel,
    profile: &rdna2spv_vulkan::DeviceProfile,
) -> Result<Vec<u32>, String> {
    translate_words(co, k, &k.code, profile, Default::default()).map_err(|e| match e {
        Failure::At(_, m) | Failure::Other(m) => m,
    })
}

enum Failure {
    /// An instruction at this byte offset is not supported.
    At(u32, String),
    Other(String),
}

fn translate_words(
    co: &CodeObject,
    k: &Kernel,
    code: &[u8],
    profile: &rdna2spv_vulkan::DeviceProfile,
    mapping: rdna2spv_spirv::lower::Mapping,
) -> Result<Vec<u32>, Failure> {
    let program = match lift(&k.name, code, lift_options(co, k)) {
        Ok(p) => p,
        Err(e @ LiftError::Unsupported { offset, .. }) => {
            return Err(Failure::At(offset, e.to_string()))
        }
        Err(e) => return Err(Failure::Other(format!("lift: {e}"))),
    };
    let wg = workgroup_of(k);
    let launch = rdna2spv_eval::Launch {
        wave_size: k.abi.wave_size,
        grid: wg,
        workgroup: wg,
        sgprs: initial_sgprs(&k.abi, 0, 0),
        workitem_id_vgprs: k.abi.workitem_id_vgprs.len() as u32,
        lds_bytes: k.descriptor.group_segment_fixed_size,
        scratch_bytes: k.descriptor.private_segment_fixed_size,
        max_steps_per_wave: 0,
        code_base: None,
    };
    // The launch segments `run` gives the kernel (D132): scalar loads inside them need no vote (D281).
    let opts = rdna2spv_spirv::lower::LowerOptions {
        mapping,
        segments: crate::dispatch::launch_segments(k),
        ..Default::default()
    };
    match rdna2spv_spirv::lower::lower_with(
        &program,
        &rdna2spv_vulkan::kernel_layout(&launch),
        profile,
        &opts,
    ) {
        Ok(w) => Ok(w),
        Err(e @ LowerError::Unsupported { pc, .. }) => Err(Failure::At(pc, e.to_string())),
        Err(e) => Err(Failure::Other(format!("lower: {e}"))),
    }
}

/// (byte offset, instruction) of a straight-line decode of `code` (undecodable words skipped).
fn linear(code: &[u8], target: Target) -> Vec<(u32, rdna2spv_isa::Instruction)> {
    let words: Vec<u32> = code
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match decode(&words[i..], target) {
            Ok(ins) => {
                let n = ins.len();
                out.push((4 * i as u32, ins));
                i += n;
            }
            Err(_) => i += 1,
        }
    }
    out
}

fn opcode_at(code: &[u8], pc: u32, target: Target) -> Option<Opcode> {
    let b = code.get(pc as usize..)?;
    rdna2spv_isa::decode_bytes(b, target)
        .ok()
        .map(|i| i.opcode())
}

/// `s_nop 0`.
const S_NOP: u32 = 0xbf80_0000;

/// Replaces every occurrence of `op` (straight-line decode) with `s_nop` words; returns how many.
fn patch_opcode(code: &mut [u8], op: Opcode, target: Target) -> usize {
    let hits: Vec<(u32, usize)> = linear(code, target)
        .into_iter()
        .filter(|(_, i)| i.opcode() == op)
        .map(|(pc, i)| (pc, i.len()))
        .collect();
    for &(pc, n) in &hits {
        for w in 0..n {
            let at = pc as usize + 4 * w;
            code[at..at + 4].copy_from_slice(&S_NOP.to_le_bytes());
        }
    }
    hits.len()
}

/// `spirv-val --target-env vulkan1.3` on a module; the error is its message.
pub fn spirv_val(tool: &str, words: &[u32], scratch: &Path) -> Result<(), String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(scratch, &bytes).map_err(|e| format!("writing {}: {e}", scratch.display()))?;
    let out = Command::new(tool)
        .args(["--target-env", "vulkan1.3"])
        .arg(scratch)
        .output()
        .map_err(|e| format!("running {tool}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let mut m = String::from_utf8_lossy(&out.stderr).into_owned();
        m.push_str(&String::from_utf8_lossy(&out.stdout));
        m.truncate(400);
        Err(m.trim().to_string())
    }
}

/// Totals over a report, and the missing-opcode ranking.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Summary {
    pub objects: usize,
    pub object_errors: Vec<String>,
    pub kernels: usize,
    pub decode_instructions: usize,
    pub decode_differing: usize,
    pub decode_examples: Vec<(String, usize, String, String)>,
    pub translated: usize,
    pub valid: usize,
    pub validated: bool,
    pub invalid: Vec<(String, String)>,
    pub blocked: usize,
    pub errors: Vec<(String, String)>,
    pub ranking: Vec<Rank>,
    /// Greedy order: (opcode, kernels translating once it and every opcode before it are added).
    pub greedy: Vec<(String, usize)>,
    /// Blocked kernels by the first refusal's reason ([`reason_class`]): (reason, kernels, first kernel),
    /// most kernels first.
    pub reasons: Vec<(String, usize, String)>,
    pub seconds: f64,
    pub seconds_objdump: f64,
    pub seconds_ours_listing: f64,
    /// Summed over kernels (all jobs).
    pub seconds_translate: f64,
    pub seconds_validate: f64,
    /// Modules spirv-val ran on in this run, and their words.
    pub validated_modules: usize,
    pub validated_words: usize,
    /// Kernels whose module repeated one validated earlier in this run / was clean in the cache file (D077).
    pub validated_repeats: usize,
    pub validated_cached: usize,
    /// Kernels translated whose modules were not validated (validation off, or over the word cap).
    pub unvalidated: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Rank {
    pub opcode: String,
    /// Kernels with this opcode among their blockers.
    pub blocked: usize,
    /// Kernels whose first blocker it is.
    pub first: usize,
    /// Kernels blocked by this opcode alone (they would translate once it is added).
    pub only: usize,
    /// Static occurrences in the blocked kernels.
    pub occurrences: usize,
}

impl Report {
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            objects: self.objects.len(),
            seconds: self.seconds,
            validated: true,
            ..Default::default()
        };
        let mut ranks: BTreeMap<String, Rank> = BTreeMap::new();
        let mut reasons: BTreeMap<String, (usize, String)> = BTreeMap::new();
        let mut sets: Vec<BTreeSet<String>> = Vec::new();
        for o in &self.objects {
            if let Some(e) = &o.error {
                s.object_errors.push(e.clone());
            }
            if let Some(d) = &o.decode {
                s.decode_instructions += d.instructions;
                s.decode_differing += d.differing;
                s.seconds_objdump += d.seconds_objdump;
                s.seconds_ours_listing += d.seconds_ours;
                for (line, a, b) in &d.examples {
                    if s.decode_examples.len() < 10 {
                        s.decode_examples
                            .push((o.file.clone(), *line, a.clone(), b.clone()));
                    }
                }
            }
            for k in &o.kernels {
                s.kernels += 1;
                s.seconds_translate += k.seconds_translate;
                s.seconds_validate += k.seconds_validate;
                let words = match &k.outcome {
                    Outcome::Valid { words, .. } => *words,
                    _ => 0,
                };
                match k.validation {
                    Some(How::Ran) => {
                        s.validated_modules += 1;
                        s.validated_words += words;
                    }
                    Some(How::Repeat) => s.validated_repeats += 1,
                    Some(How::Cache) => s.validated_cached += 1,
                    None => {}
                }
                match &k.outcome {
                    Outcome::Valid { validated, .. } => {
                        s.translated += 1;
                        s.valid += 1;
                        s.validated &= *validated;
                        s.unvalidated += usize::from(!*validated);
                    }
                    Outcome::Invalid { message } => {
                        s.translated += 1;
                        s.invalid.push((k.name.clone(), message.clone()));
                    }
                    Outcome::Blocked { first, all, reason } => {
                        s.blocked += 1;
                        let r = reasons
                            .entry(reason_class(reason))
                            .or_insert_with(|| (0, k.name.clone()));
                        r.0 += 1;
                        for (i, op) in all.iter().enumerate() {
                            let r = ranks.entry(op.clone()).or_insert_with(|| Rank {
                                opcode: op.clone(),
                                blocked: 0,
                                first: 0,
                                only: 0,
                                occurrences: 0,
                            });
                            r.blocked += 1;
                            r.first += usize::from(i == 0 && op == first);
                            r.only += usize::from(all.len() == 1);
                            r.occurrences += k.blocker_counts.get(op).copied().unwrap_or(0);
                        }
                        sets.push(all.iter().cloned().collect());
                    }
                    Outcome::Error { message } => s.errors.push((k.name.clone(), message.clone())),
                }
            }
        }
        let mut reasons: Vec<(String, usize, String)> =
            reasons.into_iter().map(|(r, (n, k))| (r, n, k)).collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        s.reasons = reasons;
        let mut ranking: Vec<Rank> = ranks.into_values().collect();
        ranking.sort_by(|a, b| (b.blocked, b.only, &a.opcode).cmp(&(a.blocked, a.only, &b.opcode)));
        s.ranking = ranking;
        // Greedy: repeatedly add the opcode that completes the most kernels (ties: the one blocking most).
        let mut added: BTreeSet<String> = BTreeSet::new();
        let mut done = 0usize;
        while sets.iter().any(|set| !set.is_subset(&added)) {
            let mut gain: BTreeMap<String, (usize, usize)> = BTreeMap::new();
            for set in sets.iter().filter(|set| !set.is_subset(&added)) {
                let left: Vec<&String> = set.difference(&added).collect();
                for op in &left {
                    let g = gain.entry((*op).clone()).or_default();
                    g.1 += 1;
                    if left.len() == 1 {
                        g.0 += 1;
                    }
                }
            }
            let Some((op, (g, _))) = gain
                .into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
            else {
                break;
            };
            added.insert(op.clone());
            done += g;
            s.greedy.push((op, s.valid + s.invalid.len() + done));
        }
        s
    }
}

/// The class of a refusal's message: the instruction's mnemonic and the reason, without the block, the
/// pc, the operands, the kernel and the IR value numbers (`v_and_b32_e32: operand %N is not available
/// where it is used`), so that kernels refused by the same rule count together.
pub fn reason_class(message: &str) -> String {
    let (text, why) = if let Some(rest) = message.strip_prefix("unsupported instruction ") {
        // "unsupported instruction {text} at {kernel}+0x{offset}: {reason} (not supported yet)"
        match (rest.find(" at "), rest.find(": ")) {
            (Some(a), Some(c)) if a < c => (&rest[..a], &rest[c + 2..]),
            _ => ("", message),
        }
    } else if message.starts_with("block ") {
        // "block {block}, pc 0x{pc} ({text}): {reason}"
        match (message.find(" ("), message.find("): ")) {
            (Some(o), Some(c)) if o < c => (&message[o + 2..c], &message[c + 3..]),
            _ => ("", message),
        }
    } else {
        ("", message)
    };
    let mnemonic = text.split_whitespace().next().unwrap_or("");
    let mut out = String::new();
    if !mnemonic.is_empty() {
        out.push_str(mnemonic);
        out.push_str(": ");
    }
    let mut chars = why.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '%' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            out.push('N');
        }
    }
    out
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

impl Summary {
    /// The table `rdna2spv corpus` prints (Markdown, so docs/corpus.md can hold it as it is).
    pub fn table(&self, top: usize) -> String {
        use std::fmt::Write as _;
        let mut t = String::new();
        let _ = writeln!(t, "| check | count | of | share |\n|---|---:|---:|---:|");
        let _ = writeln!(
            t,
            "| code objects | {} | | |\n| instructions printed identically to llvm-objdump-19 | {} | {} | {:.4}% |",
            self.objects,
            self.decode_instructions.saturating_sub(self.decode_differing),
            self.decode_instructions,
            pct(self.decode_instructions.saturating_sub(self.decode_differing), self.decode_instructions)
        );
        let _ = writeln!(
            t,
            "| listing lines that differ | {} | | |",
            self.decode_differing
        );
        let _ = writeln!(
            t,
            "| kernels translated | {} | {} | {:.2}% |",
            self.translated,
            self.kernels,
            pct(self.translated, self.kernels)
        );
        if self.unvalidated == self.valid && self.valid > 0 {
            let _ = writeln!(
                t,
                "| kernels translated to spirv-val-clean modules (NOT validated) | {} | {} | {:.2}% |",
                self.valid,
                self.kernels,
                pct(self.valid, self.kernels)
            );
        } else {
            let clean = self.valid - self.unvalidated;
            let _ = writeln!(
                t,
                "| kernels translated to spirv-val-clean modules | {} | {} | {:.2}% |",
                clean,
                self.kernels,
                pct(clean, self.kernels)
            );
            if self.unvalidated > 0 {
                let _ = writeln!(
                    t,
                    "| kernels translated, module not validated (over the word cap, not in the cache) | {} | {} | {:.2}% |",
                    self.unvalidated,
                    self.kernels,
                    pct(self.unvalidated, self.kernels)
                );
            }
        }
        let _ = writeln!(
            t,
            "| modules spirv-val rejects | {} | | |\n| kernels blocked by unsupported instructions | {} | {} | {:.2}% |\n| kernels failing otherwise | {} | | |",
            self.invalid.len(),
            self.blocked,
            self.kernels,
            pct(self.blocked, self.kernels),
            self.errors.len()
        );
        if !self.reasons.is_empty() {
            let _ = writeln!(
                t,
                "\nBlocked kernels by the reason of their first refusal ({} reasons).\n\n| # | reason | kernels | first kernel |\n|---:|---|---:|---|",
                self.reasons.len()
            );
            for (i, (r, n, k)) in self.reasons.iter().take(top).enumerate() {
                let _ = writeln!(
                    t,
                    "| {} | {} | {} | `{}` |",
                    i + 1,
                    r.replace('|', "\\|"),
                    n,
                    k
                );
            }
            if self.reasons.len() > top {
                let _ = writeln!(t, "| | … {} more | | |", self.reasons.len() - top);
            }
        }
        if !self.ranking.is_empty() {
            let _ = writeln!(
                t,
                "\nMissing opcodes ({} in all), by kernels blocked. *first*: kernels whose first blocker it is; \
                 *alone*: kernels it alone blocks (they translate once it is added); *occurrences*: static \
                 count in the blocked kernels.\n\n| # | opcode | kernels blocked | first | alone | occurrences |\n|---:|---|---:|---:|---:|---:|",
                self.ranking.len()
            );
            for (i, r) in self.ranking.iter().take(top).enumerate() {
                let _ = writeln!(
                    t,
                    "| {} | {} | {} | {} | {} | {} |",
                    i + 1,
                    r.opcode,
                    r.blocked,
                    r.first,
                    r.only,
                    r.occurrences
                );
            }
            if self.ranking.len() > top {
                let _ = writeln!(t, "| | … {} more | | | | |", self.ranking.len() - top);
            }
            let _ = writeln!(
                t,
                "\nGreedy order (each step adds the opcode that completes the most kernels): kernels translated \
                 after each addition.\n\n| step | add | kernels translated | share |\n|---:|---|---:|---:|"
            );
            for (i, (op, n)) in self.greedy.iter().take(top).enumerate() {
                let _ = writeln!(
                    t,
                    "| {} | {} | {} | {:.2}% |",
                    i + 1,
                    op,
                    n,
                    pct(*n, self.kernels)
                );
            }
        }
        for (name, m) in self.invalid.iter().take(10) {
            let _ = writeln!(t, "\nspirv-val rejects {name}: {m}");
        }
        for (name, m) in self.errors.iter().take(10) {
            let _ = writeln!(t, "\nerror in {name}: {m}");
        }
        for (f, line, a, b) in &self.decode_examples {
            let _ = writeln!(
                t,
                "\ndecode differs, {f} line {line}:\n  ours:          {a}\n  llvm-objdump:  {b}"
            );
        }
        for e in &self.object_errors {
            let _ = writeln!(t, "\ncode object error: {e}");
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(name: &str, blockers: &[&str]) -> KernelReport {
        KernelReport {
            name: name.into(),
            instructions: 10,
            outcome: if blockers.is_empty() {
                Outcome::Valid {
                    validated: true,
                    words: 100,
                }
            } else {
                Outcome::Blocked {
                    first: blockers[0].into(),
                    all: blockers.iter().map(|s| s.to_string()).collect(),
                    reason: format!(
                        "block 1, pc 0x10 ({} v1, v2): unsupported in this test (%{})",
                        blockers[0].to_lowercase(),
                        name.len()
                    ),
                }
            },
            blocker_counts: blockers.iter().map(|s| (s.to_string(), 2)).collect(),
            seconds_translate: 0.0,
            seconds_validate: 0.0,
            validation: None,
        }
    }

    /// Ranking and greedy order on a hand-worked example: A blocks k1 (alone), k2 (first, with B) and k3
    /// (second, after B); B blocks k2, k3 and k4 (alone); C blocks k5 alone; k0 translates.
    #[test]
    fn ranking_and_greedy_order() {
        let r = Report {
            objects: vec![ObjectReport {
                bundle: 0,
                file: "x".into(),
                decode: None,
                error: None,
                kernels: vec![
                    kernel("k0", &[]),
                    kernel("k1", &["A"]),
                    kernel("k2", &["A", "B"]),
                    kernel("k3", &["B", "A"]),
                    kernel("k4", &["B"]),
                    kernel("k5", &["C"]),
                ],
            }],
            seconds: 0.0,
            jobs: 1,
        };
        let s = r.summary();
        assert_eq!((s.kernels, s.valid, s.blocked), (6, 1, 5));
        let row = |op: &str| {
            let x = s.ranking.iter().find(|r| r.opcode == op).unwrap();
            (x.blocked, x.first, x.only, x.occurrences)
        };
        assert_eq!(row("A"), (3, 2, 1, 6));
        assert_eq!(row("B"), (3, 2, 1, 6));
        assert_eq!(row("C"), (1, 1, 1, 2));
        // Ties (A and B both complete one kernel and block three) go to the smaller name; then B completes
        // k2, k3, k4 at once; C last.
        assert_eq!(
            s.greedy,
            vec![
                ("A".to_string(), 2),
                ("B".to_string(), 5),
                ("C".to_string(), 6)
            ]
        );
        // Refusals by reason: the first refusal of each blocked kernel, value numbers folded.
        let why = |m: &str| format!("{m}: unsupported in this test (%N)");
        assert_eq!(
            s.reasons,
            vec![
                (why("a"), 2, "k1".to_string()),
                (why("b"), 2, "k3".to_string()),
                (why("c"), 1, "k5".to_string())
            ]
        );
    }

    /// The two forms of a refusal at an instruction, the lowering's and the lifter's, by hand.
    #[test]
    fn reason_classes() {
        assert_eq!(
            reason_class(
                "block 4, pc 0x208 (v_and_b32_e32 v11, vcc_lo, v2): operand %720 is not available where it is used"
            ),
            "v_and_b32_e32: operand %N is not available where it is used"
        );
        assert_eq!(
            reason_class("unsupported instruction s_foo s1, s2 at kern+0x10: no semantics (not supported yet)"),
            "s_foo: no semantics (not supported yet)"
        );
        assert_eq!(reason_class("lower: bad layout: x"), "lower: bad layout: x");
    }
}
