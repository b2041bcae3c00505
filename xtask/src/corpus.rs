//! `cargo xtask corpus rocrand`: only fetch Debian's `librocrand1` (5.3) into `<cache>/rocrand/deb/`, for
//! tests/hip_rocrand.rs, which unpacks the library and runs it through the HIP runtime (decision D156).
//!
//! `cargo xtask corpus rocsparse`: fetch Debian's `librocsparse0` with `apt-get download`, unpack it with
//! `dpkg-deb -x`, and write the gfx1030 code object of every clang offload bundle in the library's
//! `.hip_fatbin` section to a cache outside the repository, with `index.json` (bundles and kernels).
//!
//! The cache is `$RDNA2SPV_CORPUS_DIR/rocsparse`, else `$XDG_CACHE_HOME/rdna2spv/corpus/rocsparse`, else
//! `$HOME/.cache/rdna2spv/corpus/rocsparse` (the same rule as `rdna2spv::corpus::default_dir`). Nothing of it
//! is committed (decision D055). Re-running reuses the downloaded package and rewrites the code objects.

use anyhow::{bail, Context, Result};
use rdna2spv_codeobj::CodeObject;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

const PACKAGE: &str = "librocsparse0";
const LIBRARY: &str = "usr/lib/x86_64-linux-gnu/librocsparse.so.0.1";
const TARGET: &str = "gfx1030";
const ROCRAND_PACKAGE: &str = "librocrand1";

pub fn run(args: &[String]) -> Result<()> {
    match args.first().map(String::as_str) {
        Some("rocsparse") => rocsparse(),
        Some("rocrand") => {
            let deb_dir = cache_root()?.join("rocrand").join("deb");
            let deb = download(&deb_dir, ROCRAND_PACKAGE)?;
            eprintln!("corpus: {}", deb.display());
            Ok(())
        }
        _ => bail!("usage: cargo xtask corpus rocsparse|rocrand"),
    }
}

fn cache_root() -> Result<PathBuf> {
    if let Some(d) = std::env::var_os("RDNA2SPV_CORPUS_DIR") {
        return Ok(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Ok(PathBuf::from(d).join("rdna2spv/corpus"));
    }
    let home = std::env::var_os("HOME").context("neither RDNA2SPV_CORPUS_DIR nor HOME is set")?;
    Ok(PathBuf::from(home).join(".cache/rdna2spv/corpus"))
}

fn rocsparse() -> Result<()> {
    let t0 = std::time::Instant::now();
    let dir = cache_root()?.join("rocsparse");
    let deb = download(&dir.join("deb"), PACKAGE)?;
    let pkg = dir.join("pkg");
    if pkg.exists() {
        std::fs::remove_dir_all(&pkg).with_context(|| format!("removing {}", pkg.display()))?;
    }
    let st = Command::new("dpkg-deb")
        .arg("-x")
        .arg(&deb)
        .arg(&pkg)
        .status()
        .context("running dpkg-deb")?;
    if !st.success() {
        bail!("dpkg-deb -x {} failed ({st})", deb.display());
    }
    let lib = pkg.join(LIBRARY);
    let bytes = std::fs::read(&lib).with_context(|| format!("reading {}", lib.display()))?;
    let entries = rdna2spv_codeobj::fatbin_bundles(&bytes)?;

    // Written to a fresh directory, then renamed: an interrupted run leaves the old cache whole.
    let co_tmp = dir.join("co.partial");
    if co_tmp.exists() {
        std::fs::remove_dir_all(&co_tmp)?;
    }
    std::fs::create_dir_all(&co_tmp)?;
    let mut bundles = Vec::new();
    let (mut kernels_total, mut bytes_total) = (0usize, 0usize);
    for (i, b) in entries.iter().enumerate() {
        let triples: Vec<&str> = b.iter().map(|e| e.triple.as_str()).collect();
        let Some(e) = b
            .iter()
            .find(|e| e.is_amdgcn() && e.target_id() == TARGET && !e.data.is_empty())
        else {
            bundles.push(json!({ "bundle": i, "triples": triples, "code_object": null }));
            continue;
        };
        let co = CodeObject::parse(e.data)
            .with_context(|| format!("bundle {i} ({}): loading the code object", e.triple))?;
        let file = format!("b{i:03}.co");
        std::fs::write(co_tmp.join(&file), e.data)?;
        let kernels: Vec<String> = co.kernel_names();
        kernels_total += kernels.len();
        bytes_total += e.data.len();
        bundles.push(json!({
            "bundle": i,
            "triples": triples,
            "triple": e.triple,
            "fatbin_offset": e.offset,
            "size": e.data.len(),
            "code_object": file,
            "code_object_version": co.code_object_version,
            "kernels": kernels,
        }));
    }
    let co_dir = dir.join("co");
    if co_dir.exists() {
        std::fs::remove_dir_all(&co_dir)?;
    }
    std::fs::rename(&co_tmp, &co_dir)?;
    let with_co = bundles
        .iter()
        .filter(|b| !b["code_object"].is_null())
        .count();
    let index = json!({
        "package": deb.file_name().map(|n| n.to_string_lossy().to_string()),
        "library": LIBRARY,
        "target": TARGET,
        "bundles_total": entries.len(),
        "code_objects": with_co,
        "kernels": kernels_total,
        "bundles": bundles,
    });
    let idx = dir.join("index.json");
    let tmp = dir.join("index.json.partial");
    std::fs::write(&tmp, serde_json::to_string_pretty(&index)? + "\n")?;
    std::fs::rename(&tmp, &idx)?;
    // The unpacked package is only needed for the library.
    std::fs::remove_dir_all(&pkg).ok();
    eprintln!(
        "corpus: {} bundles, {with_co} {TARGET} code objects ({:.1} MB), {kernels_total} kernels -> {} ({:.1} s)",
        entries.len(),
        bytes_total as f64 / 1e6,
        idx.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The newest `package` .deb in `deb_dir`, downloaded with `apt-get download` when there is none.
fn download(deb_dir: &Path, package: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(deb_dir).with_context(|| format!("creating {}", deb_dir.display()))?;
    if let Some(d) = find_deb(deb_dir, package)? {
        eprintln!("corpus: using {}", d.display());
        return Ok(d);
    }
    eprintln!(
        "corpus: apt-get download {package} into {}",
        deb_dir.display()
    );
    let st = Command::new("apt-get")
        .args(["download", package])
        .current_dir(deb_dir)
        .status()
        .context("running apt-get (Debian's apt is needed)")?;
    if !st.success() {
        bail!("apt-get download {package} failed ({st})");
    }
    find_deb(deb_dir, package)?.context("apt-get download left no .deb")
}

fn find_deb(dir: &Path, package: &str) -> Result<Option<PathBuf>> {
    let mut debs: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{package}_")) && n.ends_with(".deb"))
        })
        .collect();
    debs.sort();
    Ok(debs.pop())
}
