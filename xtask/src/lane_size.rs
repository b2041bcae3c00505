//! `cargo xtask lane-size`: lane module words over a fixed random sample of the rocSPARSE corpus (issue 31,
//! decisions D162, D182), the figure docs/performance.md's "Lane module size" reports.
//!
//! * Kernels: every kernel of `cargo xtask corpus rocsparse` with distinct code, in (code object, name) order,
//!   shuffled (Fisher–Yates, splitmix64) with seed `--seed` (default 162); the first `--n` (default 120).
//!   `--kernel NAME` (repeatable) measures named kernels instead.
//! * Each is translated as `rdna2spv translate --mapping lane --profile portable` does (workgroup: the
//!   kernel's required size, else 64; `--bench-workgroup`: the corpus-size bench's, the required size else
//!   the largest flat workgroup size up to 256, so that k is the bench's), in this process; `RDNA2SPV_SHRINK` chooses the rewrites as for the
//!   CLI, so one run per setting gives an ablation column. Machine instructions are decoded from the code.
//! * k = (words − 3000) / instructions (issue 31's measure). Prints one line per kernel, then the median and
//!   worst k, the sum of words and the CPU time of the lowering; `--validate` runs `spirv-val --target-env
//!   vulkan1.3` on every module (exit 1 if one fails); `--json F` writes the rows; `--out DIR` writes each
//!   module as `DIR/NNN.spv` (NNN: its row, from 000), for counting its words by kind.
//! * `--near N` (repeatable, with `--per P`, default 3) measures the `P` kernels of distinct code nearest to
//!   `N` machine instructions instead, the picks of `cargo xtask bench translate`; `--mapping wave` lowers
//!   in the wave mapping; `--hash` prints each module's FNV-1a hash (64-bit, over its words) and one over
//!   all of them, to show that a change of the lowering left every word as it was (issue 31, D192).
//! * `--profile FILE` lowers for a measured device profile (JSON, as `cargo build --release -p
//!   rdna2spv-vulkan --example probe` prints it) instead of the portable one: what `run` and the
//!   corpus-size bench lower for on that device.
//! * `--by-instruction` adds a table of the sample's words by origin (session 51): the machine instruction
//!   whose code made them (`lower_attributed`'s marks; one unused id per mark, so the modules' ids and
//!   hashes differ from a plain run's, their words do not), each block's frame (label tests, votes,
//!   branches), the rewrites' new values, the prologue and constants, variables, the header and the shared
//!   float bodies, with instances and words per instance: where to look for the next cut.

use anyhow::{bail, Context as _, Result};
use rdna2spv::corpus::{self, Index};
use rdna2spv_codeobj::CodeObject;
use rdna2spv_spirv::lower::{lower_attributed, lower_with, LowerOptions, Mapping};
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn thread_cpu_s() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// FNV-1a (64-bit) over the module's words, little-endian bytes.
fn fnv(words: &[u32], mut h: u64) -> u64 {
    for w in words {
        for b in w.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

const FNV_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

pub fn run(args: &[String]) -> Result<()> {
    let mut n = 120usize;
    let mut near: Vec<usize> = Vec::new();
    let mut per = 3usize;
    let mut mapping = Mapping::Lane;
    let mut hash = false;
    let mut seed = 162u64;
    let mut json_out = None;
    let mut validate = false;
    let mut named: Vec<String> = Vec::new();
    let mut out_dir: Option<std::path::PathBuf> = None;
    let mut profile_path: Option<String> = None;
    let mut by_instruction = false;
    let mut bench_launch = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--n" => n = it.next().context("--n N")?.parse()?,
            "--seed" => seed = it.next().context("--seed S")?.parse()?,
            "--json" => json_out = Some(it.next().context("--json FILE")?.clone()),
            "--kernel" => named.push(it.next().context("--kernel NAME")?.clone()),
            "--validate" => validate = true,
            "--out" => out_dir = Some(it.next().context("--out DIR")?.into()),
            "--near" => near.push(it.next().context("--near N")?.parse()?),
            "--per" => per = it.next().context("--per P")?.parse()?,
            "--hash" => hash = true,
            "--by-instruction" => by_instruction = true,
            "--bench-workgroup" => bench_launch = true,
            "--profile" => profile_path = Some(it.next().context("--profile FILE")?.clone()),
            "--mapping" => {
                mapping = match it.next().context("--mapping lane|wave")?.as_str() {
                    "lane" => Mapping::Lane,
                    "wave" => Mapping::Wave,
                    m => bail!("--mapping {m}: lane or wave"),
                }
            }
            _ => bail!(
                "usage: cargo xtask lane-size [--n N] [--seed S] [--kernel NAME].. [--near N].. [--per P] \
                 [--mapping lane|wave] [--hash] [--validate] [--json F] [--out DIR] [--by-instruction] \
                 [--bench-workgroup]"
            ),
        }
    }
    let dir = corpus::default_dir().context("HOME or RDNA2SPV_CORPUS_DIR")?;
    let index = Index::load(&dir)?;
    let mut cos: Vec<(String, CodeObject)> = Vec::new();
    let mut cands: Vec<(String, String, usize, usize)> = Vec::new();
    let mut seen = HashSet::new();
    for b in &index.bundles {
        let Some(f) = &b.code_object else { continue };
        let co = CodeObject::parse(&std::fs::read(dir.join("co").join(f))?)
            .with_context(|| format!("parsing {f}"))?;
        for (ki, k) in co.kernels.iter().enumerate() {
            if seen.insert(k.code.clone()) {
                cands.push((f.clone(), k.name.clone(), cos.len(), ki));
            }
        }
        cos.push((f.clone(), co));
    }
    let count = |c: &(String, String, usize, usize)| {
        let co = &cos[c.2].1;
        crate::bench_translate::count_insts(
            &co.kernels[c.3].code,
            rdna2spv::dispatch::target_of(co),
        )
    };
    // The bench's picks: nearest first, ties in corpus order (before the sort below).
    let mut picks = Vec::new();
    if !near.is_empty() {
        let sizes: Vec<usize> = cands.iter().map(count).collect();
        for &t in &near {
            let mut idx: Vec<usize> = (0..cands.len()).collect();
            idx.sort_by_key(|&i| (sizes[i] as i64 - t as i64).unsigned_abs());
            picks.extend(idx.into_iter().take(per).map(|i| cands[i].clone()));
        }
    }
    cands.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let chosen: Vec<(String, String, usize, usize)> = if !picks.is_empty() {
        picks
    } else if named.is_empty() {
        let mut state = seed;
        for i in (1..cands.len()).rev() {
            let j = (splitmix(&mut state) % (i as u64 + 1)) as usize;
            cands.swap(i, j);
        }
        cands.truncate(n);
        cands
    } else {
        named
            .iter()
            .map(|name| {
                cands
                    .iter()
                    .find(|c| &c.1 == name)
                    .cloned()
                    .with_context(|| format!("no kernel {name} in the corpus"))
            })
            .collect::<Result<_>>()?
    };
    let profile: rdna2spv_vulkan::DeviceProfile = match &profile_path {
        Some(path) => serde_json::from_str(
            &std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?,
        )
        .with_context(|| format!("{path}: not a device profile"))?,
        None => rdna2spv_vulkan::DeviceProfile::portable(),
    };
    let tmp = std::env::temp_dir().join(format!("rdna2spv-lane-size-{}.spv", std::process::id()));
    let mut rows = Vec::new();
    let mut ks: Vec<(f64, String)> = Vec::new();
    // --by-instruction: words and instances by origin.
    let mut origins: HashMap<String, (u64, u64)> = HashMap::new();
    let (mut sum_words, mut sum_cpu, mut refused, mut invalid) = (0usize, 0f64, 0usize, 0usize);
    let mut all_hash = FNV_BASIS;
    for (file, name, ci, ki) in &chosen {
        let co = &cos[*ci].1;
        let k = &co.kernels[*ki];
        let insts = count(&(file.clone(), name.clone(), *ci, *ki));
        let program = rdna2spv::dispatch::lift_kernel(co, k).map_err(|e| anyhow::anyhow!("{e}"))?;
        let wg = if bench_launch {
            // The corpus-size bench's launch: the required size, else the largest flat size (≤ 256).
            corpus::workgroup_of(k)
        } else {
            k.metadata
                .as_ref()
                .and_then(|m| m.reqd_workgroup_size.clone())
                .filter(|v| v.len() == 3)
                .map(|v| [v[0] as u32, v[1] as u32, v[2] as u32])
                .unwrap_or([64, 1, 1])
        };
        let launch = rdna2spv_eval::Launch {
            wave_size: k.abi.wave_size,
            grid: wg,
            workgroup: wg,
            sgprs: rdna2spv::dispatch::initial_sgprs(&k.abi, 0, 0),
            workitem_id_vgprs: k.abi.workitem_id_vgprs.len() as u32,
            lds_bytes: k.descriptor.group_segment_fixed_size,
            scratch_bytes: k.descriptor.private_segment_fixed_size,
            max_steps_per_wave: 0,
            code_base: None,
        };
        let layout = rdna2spv_vulkan::kernel_layout(&launch);
        let opts = LowerOptions {
            mapping,
            segments: rdna2spv::dispatch::launch_segments(k),
            ..LowerOptions::default()
        };
        let (t0, w0) = (thread_cpu_s(), Instant::now());
        let r = if by_instruction {
            lower_attributed(&program, &layout, &profile, &opts).map(|(w, marks)| {
                for (_, m) in &marks {
                    origins.entry(m.clone()).or_default().1 += 1;
                }
                for (o, n) in crate::word_census::by_instruction(&w, &marks) {
                    origins.entry(o).or_default().0 += n;
                }
                w
            })
        } else {
            lower_with(&program, &layout, &profile, &opts)
        };
        let (cpu, wall) = (thread_cpu_s() - t0, w0.elapsed().as_secs_f64());
        let words = match r {
            Ok(w) => w,
            Err(e) => {
                refused += 1;
                println!("refused {file} {name}: {e}");
                rows.push(json!({"file": file, "kernel": name, "instructions": insts, "refused": e.to_string()}));
                continue;
            }
        };
        if let Some(d) = &out_dir {
            std::fs::create_dir_all(d)?;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(d.join(format!("{:03}.spv", rows.len())), bytes)?;
        }
        let mut valid = None;
        if validate {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&tmp, bytes)?;
            let out = std::process::Command::new("spirv-val")
                .args(["--target-env", "vulkan1.3"])
                .arg(&tmp)
                .output()
                .context("spirv-val")?;
            if !out.status.success() {
                invalid += 1;
                println!(
                    "INVALID {file} {name}: {}",
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .next()
                        .unwrap_or("")
                );
            }
            valid = Some(out.status.success());
        }
        let k_fig = (words.len() as f64 - 3000.0) / insts.max(1) as f64;
        sum_words += words.len();
        sum_cpu += cpu;
        ks.push((k_fig, name.clone()));
        let h = if hash {
            all_hash = fnv(&words, all_hash);
            format!(" hash {:016x}", fnv(&words, FNV_BASIS))
        } else {
            String::new()
        };
        println!(
            "{:>9} words {:>6} insts k {:>7.1} cpu {:>6.2} s{h}  {file} {name}",
            words.len(),
            insts,
            k_fig,
            cpu
        );
        rows.push(
            json!({"file": file, "kernel": name, "instructions": insts, "words": words.len(),
            "k": k_fig, "lower_cpu_s": cpu, "lower_wall_s": wall, "valid": valid}),
        );
    }
    let _ = std::fs::remove_file(&tmp);
    ks.sort_by(|a, b| a.0.total_cmp(&b.0));
    if !ks.is_empty() {
        let med = if ks.len() % 2 == 1 {
            ks[ks.len() / 2].0
        } else {
            (ks[ks.len() / 2 - 1].0 + ks[ks.len() / 2].0) / 2.0
        };
        let worst = ks.last().cloned().unwrap_or_default();
        println!(
            "{} kernels ({} refused{}): k median {med:.1}, worst {:.1} ({}); k <= 60: {}, k <= 20: {}; words {sum_words}; lowering CPU {sum_cpu:.1} s; RDNA2SPV_SHRINK={}",
            ks.len(),
            refused,
            if validate { format!(", {invalid} invalid") } else { String::new() },
            worst.0,
            worst.1,
            ks.iter().filter(|k| k.0 <= 60.0).count(),
            ks.iter().filter(|k| k.0 <= 20.0).count(),
            std::env::var("RDNA2SPV_SHRINK").unwrap_or_else(|_| "(all)".into()),
        );
        if hash {
            println!("hash of every module, in order: {all_hash:016x} ({mapping:?} mapping)");
        }
    }
    if by_instruction {
        // Words by origin, most first: the machine instruction whose code made them, or a row of its own.
        let total: u64 = origins.values().map(|o| o.0).sum();
        let mut rows: Vec<(&String, &(u64, u64))> = origins.iter().collect();
        rows.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
        println!(
            "words by origin (the machine instruction whose code made them, or a row of its own):"
        );
        println!(
            "{:<28} {:>9} {:>7} {:>9} {:>10}",
            "origin", "words", "share", "instances", "words/inst"
        );
        for (o, &(w, n)) in rows {
            let per = if n > 0 {
                format!("{:.1}", w as f64 / n as f64)
            } else {
                "-".into()
            };
            println!(
                "{:<28} {:>9} {:>6.2}% {:>9} {:>10}",
                o,
                w,
                100.0 * w as f64 / total.max(1) as f64,
                n,
                per
            );
        }
    }
    if let Some(f) = json_out {
        std::fs::write(&f, serde_json::to_string_pretty(&rows)?)?;
    }
    if invalid > 0 {
        bail!("{invalid} modules failed spirv-val");
    }
    Ok(())
}
