//! Structured load errors. Every malformed input ends here; nothing in this crate panics on
//! input bytes.

use thiserror::Error;

/// Why a code object (or offload bundle) could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LoadError {
    /// The bytes do not start with the ELF magic (nor, for `parse_any`, a bundle's magic).
    #[error("not an ELF file (no \\x7fELF magic){}", hint.as_deref().map(|h| format!("; {h}")).unwrap_or_default())]
    NotElf {
        /// A suggestion, e.g. that the file is an offload bundle.
        hint: Option<String>,
    },

    /// An ELF file, but not one an HSA code object can be (32-bit, big-endian, …).
    #[error("unsupported ELF file: {detail}")]
    UnsupportedElf { detail: String },

    /// An ELF file for another machine than AMDGPU (EM_AMDGPU = 224).
    #[error("not an AMDGPU code object (e_machine {machine}, expected 224 = EM_AMDGPU)")]
    NotAmdgpu { machine: u16 },

    /// An AMDGPU ELF file that is not for the HSA runtime (e.g. PAL or Mesa3D objects).
    #[error("not an HSA code object (OS/ABI {os_abi}, expected 64 = ELFOSABI_AMDGPU_HSA)")]
    NotHsa { os_abi: u8 },

    /// An HSA code object of a version this loader does not read (v2 and older, or unknown).
    #[error("unsupported HSA code object version (ELF ABI version {abi_version}; v3..v6 = ABI versions 1..4 are supported)")]
    UnsupportedCodeObjectVersion { abi_version: u8 },

    /// The file ends before a structure it declares.
    #[error("truncated file: {what} needs {needed} bytes at offset {offset:#x}, but the file has {available}")]
    Truncated {
        what: String,
        offset: u64,
        needed: u64,
        available: u64,
    },

    /// A section, symbol or address points outside the file or outside every section.
    #[error("{what} is out of range: offset/address {offset:#x}, size {size:#x}")]
    OutOfRange {
        what: String,
        offset: u64,
        size: u64,
    },

    /// Inconsistent ELF structures (as reported by goblin or found here).
    #[error("malformed ELF: {0}")]
    Malformed(String),

    /// The NT_AMDGPU_METADATA note is not valid msgpack or lacks required keys.
    #[error("bad code object metadata: {detail}")]
    BadMetadata { detail: String },

    /// A kernel was asked for by name and is not in the code object.
    #[error("kernel {name:?} not found; available kernels: {}", if available.is_empty() { "(none)".to_string() } else { available.join(", ") })]
    KernelNotFound {
        name: String,
        available: Vec<String>,
    },

    /// A clang offload bundle that cannot be read.
    #[error("bad clang offload bundle: {detail}")]
    BadBundle { detail: String },

    /// A bundle (or host object) without any amdgcn code object in it.
    #[error("no amdgcn code object in the offload bundle; entries: {}", if triples.is_empty() { "(none)".to_string() } else { triples.join(", ") })]
    NoAmdgpuCodeObject { triples: Vec<String> },
}

impl LoadError {
    pub(crate) fn truncated(
        what: impl Into<String>,
        offset: u64,
        needed: u64,
        available: usize,
    ) -> Self {
        LoadError::Truncated {
            what: what.into(),
            offset,
            needed,
            available: available as u64,
        }
    }

    pub(crate) fn out_of_range(what: impl Into<String>, offset: u64, size: u64) -> Self {
        LoadError::OutOfRange {
            what: what.into(),
            offset,
            size,
        }
    }

    pub(crate) fn metadata(detail: impl Into<String>) -> Self {
        LoadError::BadMetadata {
            detail: detail.into(),
        }
    }
}

impl From<goblin::error::Error> for LoadError {
    fn from(e: goblin::error::Error) -> Self {
        LoadError::Malformed(e.to_string())
    }
}
