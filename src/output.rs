//! Every file the CLI writes goes through [`write_atomically`]: the bytes go to a temporary file beside the
//! target, which is then renamed over it, so an interrupted or failed run leaves the old file or the whole new
//! one, never a half-written one (D152). [`write_outputs`] writes a run's output buffers as `<name>.bin` inside
//! the folder the user chose; the names were checked when the manifest was parsed
//! ([`crate::manifest::check_output_name`]) and are checked again here.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Writes `data` to `path` through a temporary file in the same folder (`.<name>.<pid>.partial`) and a
/// rename; the temporary file is removed when writing or renaming fails.
pub fn write_atomically(path: &Path, data: &[u8]) -> Result<()> {
    let tmp = temporary_name(path);
    let written = std::fs::write(&tmp, data)
        .with_context(|| format!("writing {}", tmp.display()))
        .and_then(|()| {
            std::fs::rename(&tmp, path)
                .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))
        });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The temporary file [`write_atomically`] writes before renaming it to `path`: hidden, in `path`'s folder
/// (a rename within one file system), unique to this process.
fn temporary_name(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_else(|| "output".as_ref()));
    name.push(format!(".{}.partial", std::process::id()));
    path.with_file_name(name)
}

/// Writes every buffer with an output name to `<dir>/<name>.bin` (creating `dir`); refuses a name that is not
/// a plain file name before writing anything.
pub fn write_outputs(dir: &Path, buffers: &[crate::dispatch::Buffer]) -> Result<()> {
    let outputs: Vec<(&str, &[u8])> = buffers
        .iter()
        .filter_map(|b| Some((b.output.as_deref()?, &b.data[..])))
        .collect();
    for (name, _) in &outputs {
        crate::manifest::check_output_name(name)?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (name, data) in outputs {
        write_atomically(&dir.join(format!("{name}.bin")), data)?;
    }
    Ok(())
}
