//! spirv-val once per distinct module (decision D077).
//!
//! `spirv-val` is the corpus run's dominant cost, and it grows faster than linearly with the module (measured:
//! 66k words 0.11 s, 3.8M words 127 s of CPU). Its verdict is a function of the module's bytes and of the
//! validator's version and options only, so a module byte-identical to one already validated needs no second
//! run: the translated modules carry no kernel name (the entry point is always `main`), and rocSPARSE compiles
//! the same machine code under several template names. [`Validator`] keys every module by its length and a
//! 128-bit FNV-1a hash of its bytes and runs `spirv-val` once per key; with a cache file, the keys of clean
//! modules persist across runs (the file's first line names the validator's `--version` and the options;
//! a different validator or option ignores the file). Rejections are never cached: a rejected module is
//! validated again in every run so that its message is current.

use crate::corpus::spirv_val;
use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

/// How a module's verdict was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum How {
    /// `spirv-val` ran on this module.
    Ran,
    /// A byte-identical module was validated earlier in this run.
    Repeat,
    /// A byte-identical module was validated clean by the same validator in an earlier run (cache file).
    Cache,
}

/// The options every module is validated with.
pub const TARGET_ENV: &str = "vulkan1.3";

/// FNV-1a, 128-bit (offset basis and prime as published with the algorithm).
pub fn fnv1a_128(bytes: impl IntoIterator<Item = u8>) -> u128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013b;
    let mut h = OFFSET;
    for b in bytes {
        h ^= b as u128;
        h = h.wrapping_mul(PRIME);
    }
    h
}

/// `<words>-<FNV-1a 128 of the module's little-endian bytes, hex>`.
pub fn module_key(words: &[u32]) -> String {
    let h = fnv1a_128(words.iter().flat_map(|w| w.to_le_bytes()));
    format!("{}-{h:032x}", words.len())
}

struct State {
    /// Keys validated clean (this run or the cache file).
    clean: HashSet<String>,
    /// Of those, the keys that came from the cache file and have not been seen in this run yet.
    from_file: HashSet<String>,
    /// Keys rejected in this run, with the message.
    rejected: HashMap<String, String>,
    file: Option<std::fs::File>,
}

pub struct Validator {
    tool: String,
    header: String,
    state: Mutex<State>,
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validator")
            .field("tool", &self.tool)
            .field("header", &self.header)
            .finish()
    }
}

impl Validator {
    /// A validator running `tool`; with `cache`, clean keys are read from and appended to that file.
    pub fn new(tool: &str, cache: Option<&Path>) -> Result<Validator, String> {
        let out = Command::new(tool)
            .arg("--version")
            .output()
            .map_err(|e| format!("running {tool} --version: {e}"))?;
        let version = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        let header =
            format!("rdna2spv spirv-val clean modules v1; {version}; --target-env {TARGET_ENV}");
        let mut state = State {
            clean: HashSet::new(),
            from_file: HashSet::new(),
            rejected: HashMap::new(),
            file: None,
        };
        if let Some(path) = cache {
            let old = std::fs::read_to_string(path).unwrap_or_default();
            let mut lines = old.lines();
            let same = lines.next() == Some(header.as_str());
            if same {
                for l in lines.filter(|l| !l.is_empty()) {
                    state.clean.insert(l.to_string());
                    state.from_file.insert(l.to_string());
                }
            }
            let file = if same {
                std::fs::OpenOptions::new().append(true).open(path)
            } else {
                std::fs::File::create(path).and_then(|mut f| {
                    writeln!(f, "{header}")?;
                    Ok(f)
                })
            }
            .map_err(|e| format!("opening {}: {e}", path.display()))?;
            state.file = Some(file);
        }
        Ok(Validator {
            tool: tool.to_string(),
            header,
            state: Mutex::new(state),
        })
    }

    /// The default cache file of a corpus directory.
    pub fn default_cache(corpus_dir: &Path) -> PathBuf {
        corpus_dir.join("spirv-val-clean.txt")
    }

    /// The verdict already known for `words` (validated earlier in this run, or clean in the cache file),
    /// without running spirv-val.
    pub fn known(&self, words: &[u32]) -> Option<(Result<(), String>, How)> {
        let key = module_key(words);
        let mut s = self.state.lock().unwrap();
        if s.clean.contains(&key) {
            let how = if s.from_file.remove(&key) {
                How::Cache
            } else {
                How::Repeat
            };
            return Some((Ok(()), how));
        }
        s.rejected.get(&key).map(|m| (Err(m.clone()), How::Repeat))
    }

    /// Validates `words` (via `scratch`, a file path of this job): the verdict, how it was obtained, and
    /// the seconds spirv-val ran (0 when it did not).
    pub fn validate(&self, words: &[u32], scratch: &Path) -> (Result<(), String>, How, f64) {
        if let Some((v, how)) = self.known(words) {
            return (v, how, 0.0);
        }
        let key = module_key(words);
        let t = Instant::now();
        let v = spirv_val(&self.tool, words, scratch);
        let secs = t.elapsed().as_secs_f64();
        let mut s = self.state.lock().unwrap();
        match &v {
            Ok(()) => {
                if s.clean.insert(key.clone()) {
                    if let Some(f) = s.file.as_mut() {
                        // A lost line only costs a re-validation next time.
                        let _ = writeln!(f, "{key}");
                    }
                }
            }
            Err(m) => {
                s.rejected.insert(key, m.clone());
            }
        }
        (v, How::Ran, secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a 128's published test vectors ("a", "foobar"); the key is the word count and the hash of the
    /// little-endian bytes.
    #[test]
    fn key_is_fnv1a_128() {
        assert_eq!(fnv1a_128(*b"a"), 0xd228cb696f1a8caf78912b704e4a8964);
        assert_eq!(fnv1a_128(*b"foobar"), 0x343e1662793c64bf6f0d3597ba446f18);
        assert_eq!(
            module_key(&[u32::from_le_bytes(*b"foob")]),
            format!("1-{:032x}", fnv1a_128(*b"foob"))
        );
        assert_ne!(module_key(&[1, 2]), module_key(&[2, 1]));
    }
}
