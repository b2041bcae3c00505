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

    /// The words stored for `key`, if a whole, matching file is there.
    pub fn get(&self, key: &str) -> Option<Vec<u32>> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let body = bytes.strip_prefix(MAGIC.as_slice())?;
        if body.len() < 16 || (body.len() - 16) % 4 != 0 {
            return None;
        }
        let word = |i: usize| u64::from_le_bytes(body[i..i + 8].try_into().expect("8 bytes"));
        let words = &body[16..];
        if word(0) != self.full_key(key) || word(8) != fnv(words) {
            return None;
        }
        Some(
            words
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect(),
        )
    }

    /// Stores `words` for `key` (failures are ignored: the cache is an optimisation).
    pub fn put(&self, key: &str, words: &[u32]) {
        let _ = std::fs::create_dir_all(&self.dir);
        let data: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut file = MAGIC.to_vec();
        file.extend(self.full_key(key).to_le_bytes());
        file.extend(fnv(&data).to_le_bytes());
        file.extend(&data);
        let path = self.path(key);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, &file).is_ok() && std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
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
