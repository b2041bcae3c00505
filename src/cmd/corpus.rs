//! `rdna2spv corpus`: the rocSPARSE corpus checked (docs/corpus.md).

use super::{emit, MappingArg, ProfileArg};
use anyhow::{bail, Context, Result};
use rdna2spv::device::{open, profile_of, ProfileChoice};
use rdna2spv::output::write_atomically;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The corpus directory (default: ~/.cache/rdna2spv/corpus/rocsparse; RDNA2SPV_CORPUS_DIR overrides).
    dir: Option<PathBuf>,
    /// Only these bundles (indices as in index.json), e.g. `--bundles 3,17`.
    #[arg(long, value_delimiter = ',')]
    bundles: Vec<usize>,
    /// Worker threads.
    #[arg(long, default_value = "2")]
    jobs: usize,
    /// Skip the llvm-objdump-19 comparison.
    #[arg(long)]
    no_decode: bool,
    /// Skip translation.
    #[arg(long)]
    no_translate: bool,
    /// Translate, but skip spirv-val.
    #[arg(long)]
    no_validate: bool,
    /// Validate every distinct module now, ignoring (and rewriting) the cache of modules an earlier run
    /// found spirv-val-clean (`spirv-val-clean.txt` in the corpus directory, D077).
    #[arg(long)]
    fresh_validation: bool,
    /// Run spirv-val only on modules of at most this many words; a larger one counts as validated only
    /// when its exact bytes were found clean before (this run or the cache), else as translated, not
    /// validated (spirv-val's cost grows faster than linearly with the module; D077).
    #[arg(long)]
    validate_max_words: Option<usize>,
    /// Rows of the missing-opcode tables.
    #[arg(long, default_value = "40")]
    top: usize,
    /// Also write the whole report (every kernel's outcome) as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Lowering profile: `device` (default) measures the Vulkan device (lavapipe in CI); `portable`
    /// assumes nothing (no Float64/Int64: every f64 instruction is then refused).
    #[arg(long, value_enum, default_value = "device")]
    profile: ProfileArg,
    /// Vulkan device for `--profile device`: an index or part of its name.
    #[arg(long)]
    device: Option<String>,
    /// Lower every kernel in this mapping (`auto` is not a corpus choice): `wave` (default) or `lane`,
    /// whose refusals are then listed by reason.
    #[arg(long, value_enum, default_value = "wave")]
    mapping: MappingArg,
}

pub fn run(a: Args) -> Result<i32> {
    let Args {
        dir,
        bundles,
        jobs,
        no_decode,
        no_translate,
        no_validate,
        fresh_validation,
        validate_max_words,
        top,
        json,
        profile,
        device,
        mapping,
    } = a;
    let profile = match profile {
        ProfileArg::Portable => rdna2spv_vulkan::DeviceProfile::portable(),
        ProfileArg::Device => profile_of(&open(device.as_deref())?, ProfileChoice::Device)?,
    };
    let Some(mapping) = mapping.fixed() else {
        bail!("corpus --mapping takes wave or lane (auto chooses per kernel; the corpus measures one)");
    };
    let opts = rdna2spv::corpus::Options {
        mapping,
        profile,
        decode: !no_decode,
        translate: !no_translate,
        validate: !no_validate,
        jobs,
        validate_max_words,
        progress: true,
        ..Default::default()
    };
    corpus(dir, bundles, opts, fresh_validation, top, json)
}

fn corpus(
    dir: Option<PathBuf>,
    bundles: Vec<usize>,
    mut opts: rdna2spv::corpus::Options,
    fresh_validation: bool,
    top: usize,
    json: Option<PathBuf>,
) -> Result<i32> {
    let dir = match dir {
        Some(d) => d,
        None => rdna2spv::corpus::default_dir()
            .context("no corpus directory: set HOME or RDNA2SPV_CORPUS_DIR")?,
    };
    let cache = rdna2spv::corpus_validate::Validator::default_cache(&dir);
    if fresh_validation {
        std::fs::remove_file(&cache).ok();
    }
    opts.validation_cache = Some(cache);
    let report = rdna2spv::corpus::check(&dir, &bundles, &opts)?;
    let s = report.summary();
    if let Some(j) = json {
        let text = serde_json::to_string(&serde_json::json!({ "summary": s, "report": report }))?;
        write_atomically(&j, text.as_bytes())?;
    }
    emit(&s.table(top))?;
    emit(&format!(
        "\n{} code objects, {} kernels in {:.1} s with {} jobs (llvm-objdump-19: {:.1} s, our listings: {:.1} s, summed over jobs)\n",
        s.objects, s.kernels, s.seconds, opts.jobs, s.seconds_objdump, s.seconds_ours_listing
    ))?;
    emit(&format!(
        "translation (every attempt, summed): {:.1} s; spirv-val: {:.1} s for {} distinct modules ({:.1} M words); \
         {} kernels' modules repeated one validated in this run, {} were clean in the cache (D077)\n",
        s.seconds_translate,
        s.seconds_validate,
        s.validated_modules,
        s.validated_words as f64 / 1e6,
        s.validated_repeats,
        s.validated_cached
    ))?;
    let failed = s.decode_differing > 0 || !s.invalid.is_empty() || !s.object_errors.is_empty();
    Ok(i32::from(failed))
}
