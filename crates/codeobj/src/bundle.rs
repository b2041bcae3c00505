//! Clang offload bundles (`__CLANG_OFFLOAD_BUNDLE__`), as hipcc writes them: the device code of
//! a HIP program, alone (`--cuda-device-only` without `--no-gpu-bundle-output`) or in a host
//! object's or library's `.hip_fatbin` section (one bundle per code object, back to back).
//!
//! Layout (all little-endian): the 24-byte magic, a u64 entry count, then per entry a u64
//! offset (from the bundle's start), a u64 size, a u64 triple length and the triple's bytes.
//! Triples look like `hipv4-amdgcn-amd-amdhsa--gfx1030` or `host-x86_64-unknown-linux`.

use crate::error::LoadError;
use serde::Serialize;

/// The magic at the start of an uncompressed bundle.
pub const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// The magic of a compressed bundle (not supported).
pub const COMPRESSED_BUNDLE_MAGIC: &[u8; 4] = b"CCOB";

/// One entry of a bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BundleEntry<'a> {
    /// The offload triple, e.g. `hipv4-amdgcn-amd-amdhsa--gfx1030`.
    pub triple: String,
    /// Offset of the entry's bytes from the start of the input given to [`extract`].
    pub offset: u64,
    /// The entry's bytes (a code object for amdgcn entries; often empty for the host).
    #[serde(skip)]
    pub data: &'a [u8],
}

impl BundleEntry<'_> {
    /// Whether the entry is device code for an AMD GPU.
    pub fn is_amdgcn(&self) -> bool {
        self.triple.split('-').any(|part| part == "amdgcn")
    }

    /// The target id at the end of the triple (`gfx1030`, `gfx90a:xnack+`).
    pub fn target_id(&self) -> &str {
        self.triple.rsplit('-').next().unwrap_or("")
    }
}

/// Whether `bytes` starts with a bundle's magic.
pub fn is_bundle(bytes: &[u8]) -> bool {
    bytes.starts_with(BUNDLE_MAGIC)
}

fn read_u64(bytes: &[u8], at: u64, what: &str) -> Result<u64, LoadError> {
    let start = usize::try_from(at).map_err(|_| LoadError::truncated(what, at, 8, bytes.len()))?;
    let b = start
        .checked_add(8)
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| LoadError::truncated(what, at, 8, bytes.len()))?;
    let mut w = [0u8; 8];
    w.copy_from_slice(b);
    Ok(u64::from_le_bytes(w))
}

fn slice(bytes: &[u8], offset: u64, size: u64, what: &str) -> Result<(), LoadError> {
    let end = offset
        .checked_add(size)
        .ok_or_else(|| LoadError::out_of_range(what, offset, size))?;
    if end > bytes.len() as u64 {
        return Err(LoadError::truncated(what, offset, size, bytes.len()));
    }
    Ok(())
}

/// The entries of the bundle at the start of `bytes`.
pub fn extract(bytes: &[u8]) -> Result<Vec<BundleEntry<'_>>, LoadError> {
    Ok(parse_one(bytes)?.0)
}

/// Parses the bundle at the start of `bytes`; also returns the end of its furthest entry.
fn parse_one(bytes: &[u8]) -> Result<(Vec<BundleEntry<'_>>, u64), LoadError> {
    if bytes.starts_with(COMPRESSED_BUNDLE_MAGIC) {
        return Err(LoadError::BadBundle {
            detail: "compressed offload bundles (CCOB) are not supported; unbundle it with clang-offload-bundler".into(),
        });
    }
    if !is_bundle(bytes) {
        return Err(LoadError::BadBundle {
            detail: "no __CLANG_OFFLOAD_BUNDLE__ magic".into(),
        });
    }
    let count = read_u64(bytes, 24, "bundle entry count")?;
    // Every entry header takes at least 24 bytes: reject counts the file cannot hold before
    // allocating anything.
    let max_entries = (bytes.len() as u64).saturating_sub(32) / 24;
    if count > max_entries {
        return Err(LoadError::BadBundle {
            detail: format!(
                "{count} entries declared, but the file can hold at most {max_entries}"
            ),
        });
    }
    let mut at: u64 = 32;
    let mut entries = Vec::with_capacity(count as usize);
    let mut end = at;
    for i in 0..count {
        let offset = read_u64(bytes, at, "bundle entry offset")?;
        let size = read_u64(bytes, at + 8, "bundle entry size")?;
        let triple_len = read_u64(bytes, at + 16, "bundle triple length")?;
        let triple_at = at + 24;
        slice(bytes, triple_at, triple_len, "bundle triple")?;
        // In range: checked just above, and the file length fits in usize.
        let triple_bytes = &bytes[triple_at as usize..(triple_at + triple_len) as usize];
        let triple = String::from_utf8_lossy(triple_bytes).into_owned();
        slice(bytes, offset, size, &format!("bundle entry {i} ({triple})"))?;
        let data = &bytes[offset as usize..(offset + size) as usize];
        end = end.max(offset + size);
        entries.push(BundleEntry {
            triple,
            offset,
            data,
        });
        at = triple_at + triple_len;
    }
    end = end.max(at);
    Ok((entries, end))
}

/// All bundles found back to back in `bytes` (as in a `.hip_fatbin` section): each one starts
/// at the first bundle magic at or after the end of the previous one. Entry offsets are
/// relative to `bytes`.
pub fn extract_all(bytes: &[u8]) -> Result<Vec<BundleEntry<'_>>, LoadError> {
    let out: Vec<_> = extract_bundles(bytes)?.into_iter().flatten().collect();
    if out.is_empty() {
        return Err(LoadError::BadBundle {
            detail: "no entries in the offload bundles".into(),
        });
    }
    Ok(out)
}

/// [`extract_all`], one list of entries per bundle (in file order).
pub fn extract_bundles(bytes: &[u8]) -> Result<Vec<Vec<BundleEntry<'_>>>, LoadError> {
    let mut out = Vec::new();
    let mut start = 0usize;
    while let Some(pos) = find(bytes.get(start..).unwrap_or(&[]), BUNDLE_MAGIC) {
        let base = start + pos;
        let (mut entries, end) = parse_one(&bytes[base..])?;
        for e in &mut entries {
            e.offset += base as u64;
        }
        out.push(entries);
        // `end` is within bytes[base..]; always advance by at least the magic.
        start = base + (end as usize).max(BUNDLE_MAGIC.len());
    }
    if out.is_empty() {
        return Err(LoadError::BadBundle {
            detail: "no __CLANG_OFFLOAD_BUNDLE__ magic".into(),
        });
    }
    Ok(out)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Chooses the code object to load from a list of entries: the first gfx1030 entry, else the
/// first non-empty amdgcn entry.
pub fn pick_amdgcn<'e, 'a>(
    entries: &'e [BundleEntry<'a>],
) -> Result<&'e BundleEntry<'a>, LoadError> {
    let amd = || {
        entries
            .iter()
            .filter(|e| e.is_amdgcn() && !e.data.is_empty())
    };
    amd()
        .find(|e| e.target_id().split(':').next() == Some("gfx1030"))
        .or_else(|| amd().next())
        .ok_or_else(|| LoadError::NoAmdgpuCodeObject {
            triples: entries.iter().map(|e| e.triple.clone()).collect(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut header = BUNDLE_MAGIC.to_vec();
        header.extend((entries.len() as u64).to_le_bytes());
        let header_len: usize = 32 + entries.iter().map(|(t, _)| 24 + t.len()).sum::<usize>();
        let mut data_at = header_len as u64;
        let mut body = Vec::new();
        for (t, d) in entries {
            header.extend(data_at.to_le_bytes());
            header.extend((d.len() as u64).to_le_bytes());
            header.extend((t.len() as u64).to_le_bytes());
            header.extend(t.as_bytes());
            body.extend_from_slice(d);
            data_at += d.len() as u64;
        }
        header.extend(body);
        header
    }

    #[test]
    fn round_trip_and_pick() {
        let b = build(&[
            ("host-x86_64-unknown-linux", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx906", b"AAAA"),
            ("hipv4-amdgcn-amd-amdhsa--gfx1030", b"BBBBBB"),
        ]);
        let e = extract(&b).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(e[2].data, b"BBBBBB");
        assert_eq!(e[2].target_id(), "gfx1030");
        assert!(!e[0].is_amdgcn());
        assert_eq!(pick_amdgcn(&e).unwrap().data, b"BBBBBB");
        assert_eq!(pick_amdgcn(&e[..2]).unwrap().data, b"AAAA");
        assert!(matches!(
            pick_amdgcn(&e[..1]),
            Err(LoadError::NoAmdgpuCodeObject { .. })
        ));

        let mut two = b.clone();
        two.extend([0u8; 5]);
        two.extend(build(&[("hipv4-amdgcn-amd-amdhsa--gfx1031", b"CC")]));
        let all = extract_all(&two).unwrap();
        assert_eq!(all.len(), 4);
        assert_eq!(all[3].data, b"CC");
        assert_eq!(&two[all[3].offset as usize..][..2], b"CC");
    }

    #[test]
    fn malformed_bundles_are_errors() {
        let b = build(&[("hipv4-amdgcn-amd-amdhsa--gfx1030", b"BBBBBB")]);
        for cut in 0..b.len() {
            let _ = extract(&b[..cut]);
            let _ = extract_all(&b[..cut]);
        }
        let mut huge = b.clone();
        huge[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(extract(&huge), Err(LoadError::BadBundle { .. })));
        let mut off = b.clone();
        off[32..40].copy_from_slice(&(u64::MAX - 2).to_le_bytes());
        assert!(extract(&off).is_err());
        assert!(extract(b"CCOB....").is_err());
    }
}
