//! Run manifests (TOML): which kernel, grid and workgroup sizes, and its explicit arguments. Paths are relative
//! to the manifest. The format is the contract in ../shared/DESIGN.md, documented for users in docs/manifest.md;
//! unknown keys are errors.

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// An HSA code object (or a clang offload bundle holding one).
    pub code_object: Option<PathBuf>,
    /// Raw instruction words (with an `[abi]` table and `[[buffers]]`; see `crate::raw`).
    pub code: Option<PathBuf>,
    /// The register setup of a raw `code` manifest.
    pub abi: Option<crate::raw::RawAbi>,
    /// The named buffers of a raw `code` manifest.
    #[serde(default)]
    pub buffers: Vec<crate::raw::NamedBuffer>,
    /// The storage images of a raw `code` manifest (D183; see `crate::images`).
    #[serde(default)]
    pub images: Vec<crate::images::ImageSpec>,
    /// The kernel's symbol name, without `.kd`.
    pub kernel: Option<String>,
    /// Total work-items per dimension (HSA grid size).
    pub grid: [u32; 3],
    pub workgroup: [u32; 3],
    #[serde(default)]
    pub args: Vec<Arg>,
    /// Instructions one wave may execute before the run stops as a runaway loop.
    pub max_steps_per_wave: Option<u64>,
    /// Global variables of the code object, by symbol name: initialised from a file, written out after
    /// the run (decision D155).
    #[serde(default)]
    pub globals: Vec<GlobalSpec>,
    #[serde(skip)]
    pub dir: PathBuf,
}

/// One `[[globals]]` entry: a global variable of the code object (`rdna2spv info` lists them).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlobalSpec {
    /// The symbol's name (mangled for C++).
    pub name: String,
    /// Its initial bytes, exactly the global's size (relative to the manifest); default: the code object's.
    pub file: Option<PathBuf>,
    /// Write the global's bytes to `<out>/<output>.bin` after the run (a plain file name).
    pub output: Option<String>,
}

/// One explicit kernel argument.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arg {
    pub i32: Option<i64>,
    pub u32: Option<u64>,
    pub i64: Option<i64>,
    pub u64: Option<u64>,
    pub f16: Option<f64>,
    pub f32: Option<f64>,
    pub f64: Option<f64>,
    /// A by-value argument of any size given as one little-endian hex number, `"0x..."` (`_` separators
    /// allowed): zero-extended to the argument's size; more hex digits than the size holds is an error.
    pub bits: Option<String>,
    /// A by-value argument whose bytes are a file's (relative to the manifest); the file's length must be
    /// the argument's size.
    pub bytes: Option<PathBuf>,
    pub buffer: Option<BufferArg>,
    /// Write this buffer to `<out>/<output>.bin` after the run.
    pub output: Option<String>,
    /// `--backend both` compares this output as a multiset of 32-bit words (results that atomics hand out in
    /// an order the hardware does not define, such as tickets); every other output is compared bit for bit.
    #[serde(default)]
    pub unordered: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum BufferArg {
    /// Initialised from a file.
    File(PathBuf),
    /// Zero-filled.
    Zeroed { size: u64 },
}

/// What an argument turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    /// A by-value argument: little-endian bytes and, for every form but `bits`, its exact width (checked
    /// against the metadata); `bits` gives at most the argument's size and is zero-extended to it.
    Scalar {
        bytes: Vec<u8>,
        width: Option<u64>,
        /// The manifest key it came from (`i32` … `f64`, `bits`, `bytes`), for messages.
        kind: &'static str,
    },
    Buffer {
        data: Vec<u8>,
        output: Option<String>,
        unordered: bool,
    },
}

impl Manifest {
    pub fn load(path: &Path) -> Result<Manifest> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading manifest {}", path.display()))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Manifest::parse(&text, &dir).with_context(|| format!("manifest {}", path.display()))
    }

    /// Parses and checks manifest text whose relative paths are relative to `dir`. Total: any text gives a
    /// manifest or an error, never a panic (the `manifest` fuzz target and proptest check this).
    pub fn parse(text: &str, dir: &Path) -> Result<Manifest> {
        let mut m: Manifest = toml::from_str(text).context("parsing manifest")?;
        m.dir = dir.to_path_buf();
        if m.code_object.is_none() && m.code.is_none() {
            bail!("the manifest needs `code_object` (or `code` with an [abi] table)");
        }
        match (&m.code_object, &m.code) {
            (Some(_), Some(_)) => bail!("give either `code_object` or `code`, not both"),
            (Some(_), None) if m.abi.is_some() || !m.buffers.is_empty() || !m.images.is_empty() => {
                bail!("[abi], [[buffers]] and [[images]] belong to raw `code` manifests; a code object takes [[args]]")
            }
            (None, Some(_)) if m.abi.is_none() => {
                bail!("a raw `code` manifest needs an [abi] table (see docs/captures.md)")
            }
            (None, Some(_)) if !m.args.is_empty() => {
                bail!("a raw `code` manifest takes [[buffers]] and [abi] sgprs, not [[args]]")
            }
            (None, Some(_)) if !m.globals.is_empty() => {
                bail!("[[globals]] name variables of a code object; a raw `code` manifest has none")
            }
            _ => {}
        }
        for (d, (&g, &w)) in m.grid.iter().zip(&m.workgroup).enumerate() {
            if g == 0 || w == 0 {
                bail!("grid and workgroup sizes must be positive (dimension {d})");
            }
        }
        let threads: u64 = m
            .workgroup
            .iter()
            .fold(1u64, |a, &x| a.saturating_mul(x as u64));
        if threads > 1024 {
            bail!(
                "workgroup {:?} has {threads} work-items; at most 1024",
                m.workgroup
            );
        }
        if m.max_steps_per_wave == Some(0) {
            bail!("max_steps_per_wave must be positive");
        }
        // Every name that becomes a file under `--out DIR`, checked before anything runs (D152).
        let mut outputs = std::collections::BTreeSet::new();
        let names = m
            .args
            .iter()
            .enumerate()
            .filter_map(|(i, a)| Some((format!("argument {i}"), a.output.as_deref()?)))
            .chain(
                m.buffers
                    .iter()
                    .filter(|b| b.output)
                    .map(|b| (format!("buffer {:?}", b.name), b.name.as_str())),
            )
            .chain(
                m.images
                    .iter()
                    .filter(|b| b.output)
                    .map(|b| (format!("image {:?}", b.name), b.name.as_str())),
            )
            .chain(
                m.globals
                    .iter()
                    .filter_map(|g| Some((format!("global {:?}", g.name), g.output.as_deref()?))),
            );
        for (what, name) in names {
            check_output_name(name).with_context(|| format!("{what}: output"))?;
            if !outputs.insert(name) {
                bail!(
                    "{what}: output {name:?} is written by another argument, buffer or global too"
                );
            }
        }
        Ok(m)
    }

    pub fn resolve(&self, p: &Path) -> PathBuf {
        self.dir.join(p)
    }

    /// Interprets argument `i`.
    pub fn arg_value(&self, i: usize) -> Result<ArgValue> {
        let a = &self.args[i];
        let mut given: Vec<(&str, Vec<u8>, u64)> = Vec::new();
        if let Some(v) = a.i32 {
            let v =
                i32::try_from(v).with_context(|| format!("argument {i}: i32 {v} out of range"))?;
            given.push(("i32", v.to_le_bytes().to_vec(), 4));
        }
        if let Some(v) = a.u32 {
            let v =
                u32::try_from(v).with_context(|| format!("argument {i}: u32 {v} out of range"))?;
            given.push(("u32", v.to_le_bytes().to_vec(), 4));
        }
        if let Some(v) = a.i64 {
            given.push(("i64", v.to_le_bytes().to_vec(), 8));
        }
        if let Some(v) = a.u64 {
            given.push(("u64", v.to_le_bytes().to_vec(), 8));
        }
        if let Some(v) = a.f16 {
            let h = rdna2spv_eval::specialize::f64_to_f16(v);
            given.push(("f16", h.to_le_bytes().to_vec(), 2));
        }
        if let Some(v) = a.f32 {
            given.push(("f32", (v as f32).to_le_bytes().to_vec(), 4));
        }
        if let Some(v) = a.f64 {
            given.push(("f64", v.to_le_bytes().to_vec(), 8));
        }
        if let Some(b) = &a.bits {
            let bytes = parse_bits(b).with_context(|| format!("argument {i}: bits {b:?}"))?;
            let n = bytes.len() as u64;
            given.push(("bits", bytes, n));
        }
        if let Some(p) = &a.bytes {
            let path = self.resolve(p);
            let len = std::fs::metadata(&path)
                .with_context(|| format!("argument {i}: bytes: reading {}", path.display()))?
                .len();
            if len > MAX_ARG_BYTES {
                bail!(
                    "argument {i}: bytes: {} holds {len} bytes; a by-value argument is at most {MAX_ARG_BYTES}",
                    path.display()
                );
            }
            let data = std::fs::read(&path)
                .with_context(|| format!("argument {i}: bytes: reading {}", path.display()))?;
            let n = data.len() as u64;
            given.push(("bytes", data, n));
        }
        let buffer = match &a.buffer {
            Some(BufferArg::File(p)) => {
                let path = self.resolve(p);
                Some(
                    std::fs::read(&path)
                        .with_context(|| format!("argument {i}: reading {}", path.display()))?,
                )
            }
            Some(BufferArg::Zeroed { size }) => {
                if *size > 1 << 30 {
                    bail!("argument {i}: buffer of {size} bytes is too large (1 GiB at most)");
                }
                Some(vec![0; *size as usize])
            }
            None => None,
        };
        match (given.len(), buffer) {
            (0, Some(data)) => Ok(ArgValue::Buffer {
                data,
                output: a.output.clone(),
                unordered: a.unordered,
            }),
            (1, None) => {
                if a.output.is_some() || a.unordered {
                    bail!("argument {i}: `output` and `unordered` are only allowed on buffers");
                }
                let (kind, bytes, width) = given.remove(0);
                Ok(ArgValue::Scalar {
                    bytes,
                    width: (kind != "bits").then_some(width),
                    kind,
                })
            }
            _ => bail!(
                "argument {i}: give exactly one of i32 u32 i64 u64 f16 f32 f64 bits bytes buffer"
            ),
        }
    }
}

/// The largest by-value argument `bits` or `bytes` may give (far above any kernarg segment a compiler
/// writes; a larger one is refused before it is read).
pub const MAX_ARG_BYTES: u64 = 1 << 20;

/// The bytes of a `bits` value: `0x` then hex digits (either case; `_` between them is ignored), read as one
/// little-endian number whose width is the digits written, rounded up to whole bytes (`0x1` and `0x01` are one
/// byte, `0x0001` two). Leading zero digits count: the width is what the manifest wrote (D152).
pub fn parse_bits(text: &str) -> Result<Vec<u8>> {
    let hex = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .context("must start with 0x (hex digits, little-endian value)")?;
    let mut digits = Vec::with_capacity(hex.len());
    for (k, c) in hex.chars().enumerate() {
        match c {
            '_' if k > 0 && k + 1 < hex.len() => {}
            _ => match c.to_digit(16) {
                Some(d) => digits.push(d as u8),
                None => bail!("{c:?} is not a hex digit"),
            },
        }
    }
    if digits.is_empty() {
        bail!("no hex digits after 0x");
    }
    if digits.len() as u64 > 2 * MAX_ARG_BYTES {
        bail!("{} hex digits is too long", digits.len());
    }
    // Least significant digit first: byte k holds digits 2k (low nibble) and 2k+1 (high nibble).
    Ok(digits
        .rchunks(2)
        .map(|pair| match *pair {
            [hi, lo] => hi << 4 | lo,
            [lo] => lo,
            _ => 0,
        })
        .collect())
}

/// Checks a name that becomes a file `<name>.bin` inside `--out DIR`: one plain file name — not empty, not `.`
/// or `..`, no `/`, `\` or NUL, nothing that makes it absolute or a drive path, at most 200 bytes — so that no
/// manifest can write outside the folder the user chose (D152). Every caller that turns a manifest's name into
/// a file (argument and buffer outputs, globals) calls this before anything runs.
pub fn check_output_name(name: &str) -> Result<()> {
    let why = if name.is_empty() {
        Some("is empty")
    } else if name == "." || name == ".." {
        Some("is a directory name")
    } else if name.contains(['/', '\\']) {
        Some("contains a path separator")
    } else if name.contains('\0') {
        Some("contains a NUL character")
    } else if name.len() > 200 {
        Some("is longer than 200 bytes")
    } else if !matches!(
        Path::new(name).components().collect::<Vec<_>>().as_slice(),
        [std::path::Component::Normal(n)] if *n == std::ffi::OsStr::new(name)
    ) {
        Some("is not a plain file name")
    } else {
        None
    };
    match why {
        Some(why) => bail!(
            "{name:?} {why}: an output name must be a plain file name (written as <name>.bin inside --out DIR)"
        ),
        None => Ok(()),
    }
}
