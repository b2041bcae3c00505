//! `xtask coro-probe -- COMMAND [ARGS...]`: how much of lavapipe's compile in COMMAND is the coroutine
//! split's frame building, counted with uprobes on Mesa's LLVM (decision D245).
//!
//! lavapipe (Mesa 22.3, LLVM 15) makes every compute shader an LLVM coroutine and runs the coroutine split
//! before any simplification. `llvm::coro::buildCoroutineFrame` computes the suspend-crossing information
//! (bit sets of the function's blocks, iterated to a fixed point) and, in `collectFrameAllocas`, builds a
//! new dominator tree of the whole function for every `alloca`: its cost is about allocas × blocks, and
//! gallivm makes allocas and blocks for every workgroup access (a loop over the SIMD lanes with a counter
//! and a result slot), every per-lane storage-buffer store and every NIR register (a phi web). This tool
//! puts uprobes on `DomTreeBuilder::Calculate<DominatorTree>` and on `buildCoroutineFrame` (entry and
//! return), runs COMMAND under `perf record`, and prints how many dominator trees were built, the time
//! spent building them and the time in `buildCoroutineFrame` (which holds them), summed over threads.
//!
//! Needs root, `perf` with uprobe support (linux-perf), and `nm` (binutils). The probes are removed
//! afterwards. Typical use: `xtask coro-probe -- target/release/xtask compile-probe CO INDEX PROFILE 300`.

use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::process::Command;

const DOMTREE: &str =
    "_ZN4llvm14DomTreeBuilder9CalculateINS_17DominatorTreeBaseINS_10BasicBlockELb0EEEEEvRT_";
const CORO_FRAME: &str = "_ZN4llvm4coro19buildCoroutineFrameERNS_8FunctionERNS0_5ShapeE";
const GROUP: &str = "rdna2spv_coro";

/// The totals `perf script -F tid,time,event` lines give for the four probes.
#[derive(Debug, Default, PartialEq)]
pub struct Totals {
    pub dominator_trees: u64,
    pub dominator_tree_s: f64,
    pub coroutine_frames: u64,
    pub coroutine_frame_s: f64,
}

/// Sums entry-to-return intervals per thread from `perf script -F tid,time,event` output
/// (`  1234 5678.901234: rdna2spv_coro:dt: `).
pub fn totals(script: &str) -> Totals {
    let mut open: HashMap<(String, bool), f64> = HashMap::new();
    let mut t = Totals::default();
    for line in script.lines() {
        let mut f = line.split_whitespace();
        let (Some(tid), Some(time), Some(event)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let Ok(time) = time.trim_end_matches(':').parse::<f64>() else {
            continue;
        };
        let event = event.trim_end_matches(':');
        let Some(name) = event.strip_prefix(GROUP).and_then(|e| e.strip_prefix(':')) else {
            continue;
        };
        let (dt, ret) = match name {
            "dt" => (true, false),
            "dt__return" => (true, true),
            "cf" => (false, false),
            "cf__return" => (false, true),
            _ => continue,
        };
        let key = (tid.to_string(), dt);
        if !ret {
            open.insert(key, time);
            if dt {
                t.dominator_trees += 1;
            } else {
                t.coroutine_frames += 1;
            }
        } else if let Some(start) = open.remove(&key) {
            if dt {
                t.dominator_tree_s += time - start;
            } else {
                t.coroutine_frame_s += time - start;
            }
        }
    }
    t
}

/// The LLVM library lavapipe loads (from `ldd` of Mesa's Vulkan driver), or `RDNA2SPV_LAVAPIPE_LIBLLVM`
/// (not `RDNA2SPV_LIBLLVM`, which names the LLVM-19 oracle).
fn libllvm() -> Result<String> {
    if let Ok(p) = std::env::var("RDNA2SPV_LAVAPIPE_LIBLLVM") {
        return Ok(p);
    }
    let lvp = [
        "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so",
        "/usr/lib64/libvulkan_lvp.so",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).exists())
    .context("lavapipe (libvulkan_lvp.so) not found: install mesa-vulkan-drivers")?;
    let out = Command::new("ldd")
        .arg(lvp)
        .output()
        .context("running ldd")?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("libLLVM"))
        .find_map(|l| {
            l.split("=>")
                .nth(1)?
                .split_whitespace()
                .next()
                .map(String::from)
        })
        .context("lavapipe does not load a libLLVM (set RDNA2SPV_LAVAPIPE_LIBLLVM)")
}

/// The address of each named dynamic symbol of `lib` (`nm -D`).
fn addresses(lib: &str, names: &[&str]) -> Result<Vec<u64>> {
    let out = Command::new("nm")
        .args(["-D", lib])
        .output()
        .context("running nm (binutils)")?;
    let text = String::from_utf8_lossy(&out.stdout);
    names
        .iter()
        .map(|n| {
            text.lines()
                .find_map(|l| {
                    let mut f = l.split_whitespace();
                    let (a, _, s) = (f.next()?, f.next()?, f.next()?);
                    (s.split('@').next() == Some(*n))
                        .then(|| u64::from_str_radix(a, 16).ok())
                        .flatten()
                })
                .with_context(|| format!("{lib} does not export {n}"))
        })
        .collect()
}

fn perf(args: &[&str]) -> Result<std::process::Output> {
    Command::new("perf")
        .args(args)
        .output()
        .context("running perf (install linux-perf)")
}

pub fn run(args: &[String]) -> Result<()> {
    let cmd = match args.first().map(String::as_str) {
        Some("--") => &args[1..],
        _ => args,
    };
    if cmd.is_empty() {
        bail!("usage: xtask coro-probe -- COMMAND [ARGS...] (root, perf and nm needed; decision D245)");
    }
    let lib = libllvm()?;
    let addr = addresses(&lib, &[DOMTREE, CORO_FRAME])?;
    let _ = perf(&["probe", "-q", "-d", &format!("{GROUP}:*")]);
    for (name, a) in [("dt", addr[0]), ("cf", addr[1])] {
        for ret in ["", "%return"] {
            let spec = format!("{GROUP}:{name}=0x{a:x}{ret}");
            let o = perf(&["probe", "-q", "-x", &lib, "--add", &spec])?;
            if !o.status.success() {
                let _ = perf(&["probe", "-q", "-d", &format!("{GROUP}:*")]);
                bail!(
                    "perf probe {spec} failed (root and uprobes needed): {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
            }
        }
    }
    let data = std::env::temp_dir().join(format!("rdna2spv-coro-{}.data", std::process::id()));
    let data_s = data.to_string_lossy().to_string();
    let mut rec = vec!["record", "-q", "-o", &data_s];
    let events: Vec<String> = ["dt", "dt__return", "cf", "cf__return"]
        .iter()
        .map(|e| format!("{GROUP}:{e}"))
        .collect();
    for e in &events {
        rec.push("-e");
        rec.push(e);
    }
    rec.push("--");
    rec.extend(cmd.iter().map(String::as_str));
    let status = Command::new("perf")
        .args(&rec)
        .status()
        .context("running perf record");
    let script = perf(&["script", "-i", &data_s, "-F", "tid,time,event"]);
    let _ = perf(&["probe", "-q", "-d", &format!("{GROUP}:*")]);
    let _ = std::fs::remove_file(&data);
    let status = status?;
    let t = totals(&String::from_utf8_lossy(&script?.stdout));
    println!(
        "coro-probe: {}",
        serde_json::json!({
            "dominator_trees": t.dominator_trees,
            "dominator_tree_s": t.dominator_tree_s,
            "coroutine_frames": t.coroutine_frames,
            "coroutine_frame_s": t.coroutine_frame_s,
            "command_status": status.code(),
        })
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_sum_entry_to_return_per_thread() {
        // Two threads interleaved; a return without an entry (probe set while running) is ignored.
        let script = "\
   10 100.000000: rdna2spv_coro:cf:
   10 100.100000: rdna2spv_coro:dt:
   11 100.150000: rdna2spv_coro:dt__return:
   11 100.120000: rdna2spv_coro:dt:
   10 100.300000: rdna2spv_coro:dt__return:
   11 100.170000: rdna2spv_coro:dt__return:
   10 100.400000: rdna2spv_coro:dt:
   10 100.450000: rdna2spv_coro:dt__return:
   10 101.000000: rdna2spv_coro:cf__return:
   12 1.0: other:event:
";
        let t = totals(script);
        assert_eq!(t.dominator_trees, 3);
        assert_eq!(t.coroutine_frames, 1);
        // 0.2 (thread 10) + 0.05 (thread 11) + 0.05 (thread 10), and 1.0 for the frame.
        assert!((t.dominator_tree_s - 0.30).abs() < 1e-9, "{t:?}");
        assert!((t.coroutine_frame_s - 1.0).abs() < 1e-9, "{t:?}");
    }
}
