//! Run manifests (TOML): which kernel, grid and workgroup sizes, and its explicit arguments. Paths are relative
//! to the manifest. The format is the contract in ../shared/DESIGN.md; unknown keys are errors.

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
    /// A scalar given as its bit pattern, `"0x..."`, filling exactly the argument's size.
    pub bits: Option<String>,
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
    /// Little-endian bytes and the scalar's declared width (for checking against the metadata).
    Scalar { bytes: Vec<u8>, width: Option<u64> },
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
            (Some(_), None) if m.abi.is_some() || !m.buffers.is_empty() => {
                bail!("[abi] and [[buffers]] belong to raw `code` manifests; a code object takes [[args]]")
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
            let hex = b
                .strip_prefix("0x")
                .with_context(|| format!("argument {i}: bits must start with 0x"))?;
            let v = u64::from_str_radix(hex, 16)
                .with_context(|| format!("argument {i}: bad bits {b:?}"))?;
            given.push(("bits", v.to_le_bytes().to_vec(), 0));
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
                let (kind, bytes, width) = given.pop().unwrap();
                Ok(ArgValue::Scalar {
                    bytes,
                    width: (kind != "bits").then_some(width),
                })
            }
            _ => bail!("argument {i}: give exactly one of i32 u32 i64 u64 f16 f32 f64 bits buffer"),
        }
    }
}

/// Checks that an output name is a plain file name, so that `<out>/<name>.bin` stays inside the output
/// folder: not empty, no path separator, not `.` or `..`, no NUL.
pub fn check_output_name(name: &str) -> Result<()> {
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.contains(['/', '\\', '\0'])
        || Path::new(name).is_absolute()
    {
        bail!(
            "output name {name:?} must be a plain file name (no path separator, not `.` or `..`)"
        );
    }
    Ok(())
}
