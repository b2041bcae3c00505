//! The persistent translation cache (issue 26, decision D156): SPIR-V modules a launch lowered, kept under
//! `$XDG_CACHE_HOME/rdna2spv/hip` (else `~/.cache/rdna2spv/hip`) by a hash of everything the lowering read —
//! the lifted program, the launch layout with its address words cleared, the grid, the device profile and
//! limits, the options, the checked allocation count — and of this runtime library's own file (size and
//! modification time), so a rebuilt runtime never reads an older build's modules. A second run of a program
//! then skips the mapping choice and the lowering of every kernel it launched before (lavapipe keeps its
//! own compiled-shader cache). Each file holds the key's and the words' checksums, checked on reading (a
//! damaged or colliding file is ignored and rewritten), and is written to a temporary name and renamed, so
//! concurrent runs never see half a file. `RDNA2SPV_HIP_CACHE=0` turns it off.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

pub const ENV_CACHE: &str = "RDNA2SPV_HIP_CACHE";
const MAGIC: &[u8; 8] = b"R2SHIP01";

pub struct DiskCache {
    dir: PathBuf,
    /// This library's file and build (path, size, modification time).
    identity: String,
}

/// FNV-1a, 64 bits: the file's checksums (independent of the name's hash).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The file holding this function: the runtime library (from /proc/self/maps).
fn own_file() -> Option<PathBuf> {
    let here = own_file as *const () as usize as u64;
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|l| {
        let mut f = l.split_whitespace();
        let (lo, hi) = f.next()?.split_once('-')?;
        let (lo, hi) = (
            u64::from_str_radix(lo, 16).ok()?,
            u64::from_str_radix(hi, 16).ok()?,
        );
        let path = f.nth(4)?;
        (lo <= here && here < hi && path.starts_with('/')).then(|| PathBuf::from(path))
    })
}

impl DiskCache {
    /// The cache, or None when it is turned off or this library's file cannot be identified.
    pub fn open() -> Option<DiskCache> {
        if std::env::var(ENV_CACHE).is_ok_and(|v| v == "0") {
            return None;
        }
        let root = match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
            Some(d) => PathBuf::from(d),
            None => PathBuf::from(std::env::var_os("HOME")?).join(".cache"),
        };
        let lib = own_file()?;
        let meta = std::fs::metadata(&lib).ok()?;
        let modified = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some(DiskCache {
            dir: root.join("rdna2spv").join("hip"),
            identity: format!(
                "{} {} {} {}",
                lib.display(),
                meta.len(),
                modified.as_nanos(),
                env!("CARGO_PKG_VERSION")
            ),
        })
    }

    fn path(&self, key: &str) -> PathBuf {
        let mut name = String::new();
        for salt in [0u8, 1] {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            salt.hash(&mut h);
            self.identity.hash(&mut h);
            key.hash(&mut h);
            name.push_str(&format!("{:016x}", h.finish()));
        }
        self.dir.join(format!("{name}.spv"))
    }

    fn full_key(&self, key: &str) -> u64 {
        fnv(format!("{}\n{key}", self.identity).as_bytes())
    }

    /// The words stored for `key`, if a whole, matching file is there. A file that is there but damaged
    /// (or another key's, a hash collision) is ignored with a note on stderr, and rewritten after lowering.
    pub fn get(&self, key: &str) -> Option<Vec<u32>> {
        let path = self.path(key);
        let bytes = std::fs::read(&path).ok()?;
        let words = match check_file(MAGIC, self.full_key(key), &bytes) {
            Ok(w) if w.len() % 4 == 0 => w,
            Ok(_) => {
                note(&path, "its length is not a whole number of words");
                return None;
            }
            Err(why) => {
                note(&path, why);
                return None;
            }
        };
        Some(
            words
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        )
    }

    /// Stores `words` for `key` (failures are ignored: the cache is an optimisation).
    pub fn put(&self, key: &str, words: &[u32]) {
        let data: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        write_atomically(&self.dir, &self.path(key), MAGIC, self.full_key(key), &data);
    }

    /// The file holding the Vulkan pipeline cache of the device whose pipeline cache header is `header`
    /// (named by that header's hash: vendor, device, `pipelineCacheUUID`; shared by every build of the
    /// runtime, since its contents are keyed by the SPIR-V the driver compiled).
    fn pipeline_path(&self, header: &[u8]) -> PathBuf {
        self.dir
            .join(format!("pipelines-{}.vkpc", crate::module::digest(header)))
    }

    /// Fills `ctx`'s pipeline cache from this device's file (D160). Returns the file and the bytes taken
    /// (0: no file, or one that was ignored with a note: damaged, or another device's or driver's).
    pub fn load_pipelines(&self, ctx: &rdna2spv_vulkan::Context) -> (PathBuf, usize) {
        let header = ctx.pipeline_cache_header();
        let path = self.pipeline_path(&header);
        let data = match std::fs::read(&path) {
            Ok(bytes) => match check_file(PIPELINE_MAGIC, fnv(&header), &bytes) {
                Ok(d) => d.to_vec(),
                Err(why) => {
                    note(&path, why);
                    Vec::new()
                }
            },
            Err(_) => Vec::new(),
        };
        match ctx.load_pipeline_cache(&data) {
            Ok(true) => (path, data.len()),
            Ok(false) => {
                if !data.is_empty() {
                    note(
                        &path,
                        "its pipeline cache header is not this device's (vendor, device or pipelineCacheUUID)",
                    );
                }
                (path, 0)
            }
            Err(e) => {
                note(&path, &format!("the device refused a pipeline cache: {e}"));
                (path, 0)
            }
        }
    }

    /// Writes `ctx`'s pipeline cache to this device's file, merged with what another run may have
    /// written there meanwhile (vkMergePipelineCaches), under a temporary name renamed over it.
    pub fn save_pipelines(&self, ctx: &rdna2spv_vulkan::Context) {
        let header = ctx.pipeline_cache_header();
        let path = self.pipeline_path(&header);
        if let Ok(bytes) = std::fs::read(&path) {
            if let Ok(d) = check_file(PIPELINE_MAGIC, fnv(&header), &bytes) {
                let _ = ctx.load_pipeline_cache(d);
            }
        }
        if let Ok(Some(data)) = ctx.pipeline_cache_data() {
            write_atomically(&self.dir, &path, PIPELINE_MAGIC, fnv(&header), &data);
        }
    }
}

const PIPELINE_MAGIC: &[u8; 8] = b"R2SVKPC1";

/// A cache file: 8 magic bytes, the key's checksum, the data's checksum (FNV-1a, little-endian u64), the
/// data. Its data, or why it is not usable.
fn check_file<'a>(magic: &[u8; 8], key: u64, bytes: &'a [u8]) -> Result<&'a [u8], &'static str> {
    let body = bytes
        .strip_prefix(magic.as_slice())
        .ok_or("it does not start with this cache's magic bytes")?;
    if body.len() < 16 {
        return Err("it is truncated");
    }
    let word = |i: usize| u64::from_le_bytes(body[i..i + 8].try_into().expect("8 bytes"));
    let data = &body[16..];
    if word(0) != key {
        return Err("it belongs to another key");
    }
    if word(8) != fnv(data) {
        return Err("its checksum does not match its contents");
    }
    Ok(data)
}

fn note(path: &std::path::Path, why: &str) {
    eprintln!(
        "rdna2spv-hip: note: ignoring cache file {}: {why}",
        path.display()
    );
}

/// Writes a cache file under a temporary name (this process's) and renames it into place, so that
/// concurrent runs see a whole file or none (failures are ignored: the cache is an optimisation).
fn write_atomically(
    dir: &std::path::Path,
    path: &std::path::Path,
    magic: &[u8; 8],
    key: u64,
    data: &[u8],
) {
    let _ = std::fs::create_dir_all(dir);
    let mut file = magic.to_vec();
    file.extend(key.to_le_bytes());
    file.extend(fnv(data).to_le_bytes());
    file.extend(data);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, &file).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_damage_is_ignored() {
        let dir = std::env::temp_dir().join(format!("rdna2spv-hip-cache-{}", std::process::id()));
        let c = DiskCache {
            dir: dir.clone(),
            identity: "test".into(),
        };
        assert_eq!(c.get("k"), None);
        c.put("k", &[1, 2, 0xdead_beef]);
        assert_eq!(c.get("k"), Some(vec![1, 2, 0xdead_beef]));
        assert_eq!(c.get("other"), None);
        // Another build of the runtime does not read it.
        let d = DiskCache {
            dir: dir.clone(),
            identity: "rebuilt".into(),
        };
        assert_eq!(d.get("k"), None);
        // A flipped bit in the words: ignored.
        let p = c.path("k");
        let mut bytes = std::fs::read(&p).unwrap();
        let n = bytes.len();
        bytes[n - 1] ^= 1;
        std::fs::write(&p, &bytes).unwrap();
        assert_eq!(c.get("k"), None);
        // Truncated: ignored.
        std::fs::write(&p, &bytes[..n - 2]).unwrap();
        assert_eq!(c.get("k"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
