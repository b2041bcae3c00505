//! Raw-binary manifests (`code = "k.bin"` + `[abi]`): captured shader code with no code object around it —
//! Mesa RADV/ACO captures, or any binary whose register setup the user describes (decision D050).
//!
//! The `[abi]` table gives what a driver would have put in the registers when the wave starts: SGPRs by
//! number (constants, buffer addresses, V#s, a pointer to an emulated descriptor set of V#s, workgroup ids,
//! the scratch wave offset), how many of v0–v2 get work-item ids, the wave size, LDS and scratch sizes and the
//! f32 denormal mode. Buffers are named in `[[buffers]]`; both backends bind them at the same addresses.

use anyhow::{bail, Context, Result};
use rdna2spv_eval::SgprInit;
use rdna2spv_ir::lift::{lift_ext, LiftExtras, LiftOptions};
use rdna2spv_ir::Program;
use rdna2spv_isa::Target;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The `[abi]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAbi {
    /// `gfx1030` (default), `gfx1010` or `gfx1013`: decodes the words (the MAD/MAC forms exist on gfx1010).
    pub target: Option<String>,
    /// 32 or 64.
    pub wave_size: u32,
    /// How many of v0, v1, v2 receive the work-item id x, y, z (1..=3; RADV: 3).
    #[serde(default = "one")]
    pub workitem_id_vgprs: u32,
    /// LDS bytes per workgroup.
    #[serde(default)]
    pub lds_bytes: u32,
    /// Private segment bytes per lane.
    #[serde(default)]
    pub scratch_bytes: u32,
    /// The f32 denormal mode of the shader's MODE register: "preserve" (FP_DENORM f32 = 3, the default) or
    /// "flush" (FP_DENORM f32 = 0, RADV/ACO compute). The lifter flushes f32 denormals accordingly (D166).
    pub f32_denormals: Option<String>,
    /// VGPRs allocated per lane (the capture's "VGPRs" statistic). When given, an access above the
    /// allocation that is not a shared VGPR is refused when lifting (D153); otherwise all 256 are private.
    pub vgprs: Option<u32>,
    /// Wave64 shared VGPRs above the allocation, v`vgprs`..: one 32-lane register both halves of the wave
    /// see (RADV/ACO on navi21: 16 when the shader uses them, 2 × the VGPR allocation granule; D153).
    /// Needs `vgprs` and wave_size 64.
    #[serde(default)]
    pub shared_vgprs: u32,
    /// High half of the driver's 32-bit pointers (RADV: 0xffff8000). Needed when a `descriptor_set` is given.
    pub address32_hi: Option<u32>,
    /// Initial SGPRs.
    #[serde(default)]
    pub sgpr: Vec<SgprSpec>,
}

/// MODE at the start of a raw binary: the modelled mode, with FP_DENORM f32 = 0 (inputs and outputs flushed)
/// where `[abi] f32_denormals = "flush"` (D166; ACO's compute default).
fn initial_mode(abi: &RawAbi) -> u32 {
    let m = rdna2spv_ir::lift::MODELLED_MODE;
    if abi.f32_denormals.as_deref() == Some("flush") {
        m & !0x30
    } else {
        m
    }
}

fn one() -> u32 {
    1
}

/// One `[[abi.sgpr]]` entry: what register `reg` (and the ones after it, for wider values) holds. Exactly one
/// kind per entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SgprSpec {
    pub reg: u16,
    /// A 32-bit constant.
    pub u32: Option<u64>,
    pub i32: Option<i64>,
    pub f32: Option<f64>,
    /// A 32-bit constant as `"0x..."`.
    pub bits: Option<String>,
    /// The workgroup id in dimension 0, 1 or 2.
    pub workgroup_id: Option<usize>,
    /// The wave's scratch offset.
    #[serde(default)]
    pub scratch_wave_offset: bool,
    /// The 64-bit address of a named buffer, in `reg` and `reg + 1`.
    pub address: Option<String>,
    /// A raw-buffer V# of a named buffer (base, stride 0, NUM_RECORDS = its size), in `reg`..`reg + 3`.
    pub vsharp: Option<String>,
    /// The T# of a named image (D183), in `reg`..`reg + 7`.
    pub tsharp: Option<String>,
    /// A 32-bit pointer (in the `address32_hi` window) to an emulated descriptor set, in binding order as
    /// RADV lays it out: a 16-byte V# (16-byte aligned) per named buffer, a 32-byte T# (32-byte aligned)
    /// per named image (D183).
    pub descriptor_set: Option<Vec<String>>,
    /// A sampler (S#, D187) built from Vulkan-style settings, in `reg`..`reg + 3`.
    pub ssharp: Option<SamplerSpec>,
}

/// A sampler's settings (`[abi] sgpr` `ssharp = { ... }`), encoded as RADV builds an S# (D187's fields).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SamplerSpec {
    /// `nearest` (default) or `linear`, for both magnification and minification.
    pub filter: Option<String>,
    /// `nearest` (default), `linear` or `none`.
    pub mipmap_mode: Option<String>,
    /// Per axis u, v (and w for 3-D images): `repeat`, `mirrored_repeat`, `clamp_to_edge` (default), `mirror_clamp_to_edge`,
    /// `clamp_to_border`.
    pub address: Option<Vec<String>>,
    /// `transparent_black` (default), `opaque_black` or `opaque_white`.
    pub border: Option<String>,
    #[serde(default)]
    pub unnormalized: bool,
    /// LOD clamp and bias (default 0, 15 — RADV's upper bound —, 0), in 1/256 steps.
    pub min_lod: Option<f64>,
    pub max_lod: Option<f64>,
    pub lod_bias: Option<f64>,
    /// A depth-compare sampler's compare operation (D191): `never`, `less`, `equal`, `less_or_equal`,
    /// `greater`, `not_equal`, `greater_or_equal`, `always` (Vulkan's `compareOp` with compareEnable).
    pub compare: Option<String>,
    /// `false`: Vulkan's `VK_SAMPLER_CREATE_NON_SEAMLESS_CUBE_MAP_BIT_EXT`, which RADV encodes as the S#'s
    /// DISABLE_CUBE_WRAP (word 0 bit 28); default true, seamless cube filtering (D196).
    pub seamless: Option<bool>,
}

impl SamplerSpec {
    /// The four S# words (D187: word 0 CLAMP_X/Y/Z, FORCE_UNNORMALIZED; word 1 MIN_LOD, MAX_LOD (u4.8);
    /// word 2 LOD_BIAS (s5.8), XY_MAG_FILTER, XY_MIN_FILTER, MIP_FILTER; word 3 BORDER_COLOR_TYPE).
    pub fn words(&self) -> Result<[u32; 4]> {
        let filter = match self.filter.as_deref().unwrap_or("nearest") {
            "nearest" => 0u32,
            "linear" => 1,
            f => bail!("ssharp filter {f:?}: nearest or linear"),
        };
        let mip = match self.mipmap_mode.as_deref().unwrap_or("nearest") {
            "none" => 0u32,
            "nearest" => 1,
            "linear" => 2,
            f => bail!("ssharp mipmap_mode {f:?}: none, nearest or linear"),
        };
        let mut clamp = [2u32; 3];
        for (k, a) in self.address.iter().flatten().enumerate() {
            if k > 2 {
                bail!("ssharp address: at most three modes (u, v, w)");
            }
            clamp[k] = match a.as_str() {
                "repeat" => 0,
                "mirrored_repeat" => 1,
                "clamp_to_edge" => 2,
                "mirror_clamp_to_edge" => 3,
                "clamp_to_border" => 6,
                m => bail!("ssharp address {m:?}: repeat, mirrored_repeat, clamp_to_edge, mirror_clamp_to_edge or clamp_to_border"),
            };
        }
        let border = match self.border.as_deref().unwrap_or("transparent_black") {
            "transparent_black" => 0u32,
            "opaque_black" => 1,
            "opaque_white" => 2,
            b => bail!("ssharp border {b:?}: transparent_black, opaque_black or opaque_white"),
        };
        // DEPTH_COMPARE_FUNC (word 0 bits 14:12): VkCompareOp's order, as radv_tex_compare maps it; NEVER
        // (0) when compareEnable is off.
        let compare = match self.compare.as_deref() {
            None | Some("never") => 0u32,
            Some("less") => 1,
            Some("equal") => 2,
            Some("less_or_equal") => 3,
            Some("greater") => 4,
            Some("not_equal") => 5,
            Some("greater_or_equal") => 6,
            Some("always") => 7,
            Some(c) => bail!("ssharp compare {c:?}: never, less, equal, less_or_equal, greater, not_equal, greater_or_equal or always"),
        };
        // As RADV builds it (Mesa 22.3, radv_init_sampler): LODs clamped to [0, 15] and the bias to
        // [−16, 16], in 1/256; TRUNC_COORD (word 0 bit 27) for nearest filtering; the border colour type only
        // when an axis clamps to the border. D187's lifter ignores TRUNC_COORD.
        let fx = |x: f64, lo: f64, hi: f64| ((x.clamp(lo, hi) * 256.0).round() as i32) as u32;
        let min_lod = fx(self.min_lod.unwrap_or(0.0), 0.0, 15.0) & 0xfff;
        let max_lod = fx(self.max_lod.unwrap_or(1000.0), 0.0, 15.0) & 0xfff;
        let bias = fx(self.lod_bias.unwrap_or(0.0), -16.0, 16.0) & 0x3fff;
        let trunc = (filter == 0) as u32;
        let border = if clamp.contains(&6) { border } else { 0 };
        Ok([
            clamp[0]
                | clamp[1] << 3
                | clamp[2] << 6
                | compare << 12
                | (self.unnormalized as u32) << 15
                | trunc << 27
                | (!self.seamless.unwrap_or(true) as u32) << 28,
            min_lod | max_lod << 12,
            bias | filter << 20 | filter << 22 | mip << 26,
            border << 30,
        ])
    }
}

/// Initial SGPRs of every wave: (register, what it holds).
pub type InitialSgprs = Vec<(u16, SgprInit)>;

/// One `[[buffers]]` entry of a raw manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedBuffer {
    pub name: String,
    /// Initial contents.
    pub file: Option<PathBuf>,
    /// Zero-filled bytes (when there is no file).
    pub size: Option<u64>,
    /// Written to `<out>/<name>.bin` after the run.
    #[serde(default)]
    pub output: bool,
    /// Compared as a multiset of 32-bit words between backends.
    #[serde(default)]
    pub unordered: bool,
}

/// What [`crate::dispatch::Plan::bind`] needs to finish a raw plan once buffer addresses are known.
#[derive(Debug, Clone)]
pub struct RawBinding {
    pub code: Vec<u8>,
    pub name: String,
    pub opts: LiftOptions,
    pub abi: RawAbi,
    /// Buffer index of each name.
    pub index: BTreeMap<String, usize>,
    /// Index of the 32-bit window buffer (descriptor sets), if any, and each set's offset in it.
    pub window: Option<usize>,
    pub set_offsets: Vec<u32>,
    /// The images among the named buffers (D183).
    pub images: BTreeMap<String, crate::images::Bound>,
}

/// RADV's word 3 of a storage-buffer V# on gfx10: DST_SEL_XYZW, FORMAT 32_FLOAT, RESOURCE_LEVEL 1,
/// OOB_SELECT raw. The lifter reads only words 0–2 (see `LiftExtras::general_buffers`).
const VSHARP_WORD3: u32 = 4 | 5 << 3 | 6 << 6 | 7 << 9 | 22 << 12 | 1 << 24 | 3 << 28;

/// A raw-buffer V#: base address (48 bits), stride 0, NUM_RECORDS = size in bytes.
pub fn vsharp(address: u64, size: u64) -> [u32; 4] {
    [
        address as u32,
        (address >> 32) as u32 & 0xffff,
        size.min(u32::MAX as u64) as u32,
        VSHARP_WORD3,
    ]
}

pub fn target_of(abi: &RawAbi) -> Result<Target> {
    match abi.target.as_deref() {
        None => Ok(Target::Gfx1030),
        Some(t) => Target::from_name(t)
            .with_context(|| format!("[abi] target {t:?} is not gfx1030, gfx1010 or gfx1013")),
    }
}

impl SgprSpec {
    /// Checks the entry names one kind; returns how many SGPRs it fills.
    pub fn width(&self) -> Result<u16> {
        let kinds = [
            self.u32.is_some(),
            self.i32.is_some(),
            self.f32.is_some(),
            self.bits.is_some(),
            self.workgroup_id.is_some(),
            self.scratch_wave_offset,
            self.address.is_some(),
            self.vsharp.is_some(),
            self.tsharp.is_some(),
            self.descriptor_set.is_some(),
            self.ssharp.is_some(),
        ];
        if kinds.iter().filter(|&&k| k).count() != 1 {
            bail!("[abi] sgpr {}: give exactly one of u32 i32 f32 bits workgroup_id scratch_wave_offset address vsharp tsharp ssharp descriptor_set", self.reg);
        }
        if let Some(sp) = &self.ssharp {
            sp.words()?;
        }
        Ok(if self.address.is_some() {
            2
        } else if self.vsharp.is_some() || self.ssharp.is_some() {
            4
        } else if self.tsharp.is_some() {
            8
        } else {
            1
        })
    }

    fn constant(&self) -> Result<Option<u32>> {
        let r = self.reg;
        if let Some(v) = self.u32 {
            return Ok(Some(u32::try_from(v).with_context(|| {
                format!("[abi] sgpr {r}: u32 {v} out of range")
            })?));
        }
        if let Some(v) = self.i32 {
            return Ok(Some(
                i32::try_from(v).with_context(|| format!("[abi] sgpr {r}: i32 {v} out of range"))?
                    as u32,
            ));
        }
        if let Some(v) = self.f32 {
            return Ok(Some((v as f32).to_bits()));
        }
        if let Some(b) = &self.bits {
            let hex = b
                .strip_prefix("0x")
                .with_context(|| format!("[abi] sgpr {r}: bits must start with 0x"))?;
            return Ok(Some(u32::from_str_radix(hex, 16).with_context(|| {
                format!("[abi] sgpr {r}: bad 32-bit bits {b:?}")
            })?));
        }
        Ok(None)
    }
}

/// Checks an `[abi]` table against the buffer names; the initial SGPRs may not overlap or pass s105.
pub fn check(abi: &RawAbi, names: &[String]) -> Result<()> {
    if abi.wave_size != 32 && abi.wave_size != 64 {
        bail!("[abi] wave_size {} (must be 32 or 64)", abi.wave_size);
    }
    if !(1..=3).contains(&abi.workitem_id_vgprs) {
        bail!(
            "[abi] workitem_id_vgprs {} (must be 1, 2 or 3)",
            abi.workitem_id_vgprs
        );
    }
    target_of(abi)?;
    match abi.f32_denormals.as_deref() {
        None | Some("preserve") | Some("flush") => {}
        Some(o) => bail!("[abi] f32_denormals {o:?} (must be \"preserve\" or \"flush\")"),
    }
    if let Some(v) = abi.vgprs {
        if !(1..=256).contains(&v) {
            bail!("[abi] vgprs {v} (must be 1..=256)");
        }
    }
    if abi.shared_vgprs > 0 {
        if abi.wave_size != 64 {
            bail!(
                "[abi] shared_vgprs {} with wave_size {}: shared VGPRs exist in wave64 only",
                abi.shared_vgprs,
                abi.wave_size
            );
        }
        let Some(v) = abi.vgprs else {
            bail!("[abi] shared_vgprs needs vgprs (the allocation the shared VGPRs sit above)");
        };
        if !abi.shared_vgprs.is_multiple_of(8) || v + abi.shared_vgprs > 256 {
            bail!(
                "[abi] shared_vgprs {} (a multiple of 8, with vgprs {v} at most 256 in all)",
                abi.shared_vgprs
            );
        }
    }
    if abi.lds_bytes > 65536 {
        bail!("[abi] lds_bytes {} (64 KiB at most)", abi.lds_bytes);
    }
    if abi.scratch_bytes > 1 << 20 {
        bail!(
            "[abi] scratch_bytes {} (1 MiB per lane at most)",
            abi.scratch_bytes
        );
    }
    let mut used = [false; 106];
    for s in &abi.sgpr {
        let w = s.width()?;
        s.constant()?;
        let end = s.reg as u32 + w as u32;
        if end > 106 {
            bail!(
                "[abi] sgpr {}: s{}..s{} is past s105",
                s.reg,
                s.reg,
                end - 1
            );
        }
        for r in s.reg..end as u16 {
            if used[r as usize] {
                bail!("[abi] sgpr s{r} is given twice");
            }
            used[r as usize] = true;
        }
        if let Some(d) = s.workgroup_id {
            if d > 2 {
                bail!("[abi] sgpr {}: workgroup_id {d} (0, 1 or 2)", s.reg);
            }
        }
        let refs = s
            .address
            .iter()
            .chain(&s.vsharp)
            .chain(&s.tsharp)
            .chain(s.descriptor_set.iter().flatten());
        for n in refs {
            if !names.contains(n) {
                bail!(
                    "[abi] sgpr {}: no buffer named {n:?} in [[buffers]] (or image in [[images]])",
                    s.reg
                );
            }
        }
        if s.descriptor_set.is_some() && abi.address32_hi.is_none() {
            bail!(
                "[abi] sgpr {}: a descriptor_set pointer needs address32_hi (RADV: 0xffff8000)",
                s.reg
            );
        }
    }
    Ok(())
}

/// The descriptor sets' layout in the 32-bit window buffer: each set's offset and the window's size. A
/// set's entries are laid out as RADV does (a V# 16 bytes at a multiple of 16, a T# of an image in
/// `images` 32 bytes at a multiple of 32); a set starts at a multiple of its largest alignment.
pub fn window_layout(
    abi: &RawAbi,
    images: &BTreeMap<String, crate::images::Bound>,
) -> (Vec<u32>, usize) {
    let mut offsets = Vec::new();
    let mut next = 0u32;
    for s in &abi.sgpr {
        if let Some(set) = &s.descriptor_set {
            let align = if set.iter().any(|n| images.contains_key(n)) {
                32
            } else {
                16
            };
            next = next.next_multiple_of(align);
            offsets.push(next);
            let size = set_entry_offsets(set, images).1;
            next += size.max(16);
        }
    }
    (offsets, next as usize)
}

/// Each entry's offset in a descriptor set and the set's size (see [`window_layout`]).
fn set_entry_offsets(
    set: &[String],
    images: &BTreeMap<String, crate::images::Bound>,
) -> (Vec<u32>, u32) {
    let mut off = 0u32;
    let mut v = Vec::new();
    for n in set {
        let (size, align) = match images.get(n) {
            Some(b) if b.ssharp.is_some() => (96, 32),
            Some(_) => (32, 32),
            None => (16, 16),
        };
        off = off.next_multiple_of(align);
        v.push(off);
        off += size;
    }
    (v, off)
}

impl RawBinding {
    /// Lifts the code for buffers at `addresses`: the 32-bit window sits in its buffer.
    pub fn lift(&self, addresses: Option<&[u64]>) -> Result<Program> {
        let address32 = match (self.abi.address32_hi, self.window, addresses) {
            (Some(hi), Some(w), Some(a)) => Some((hi, a[w])),
            (Some(hi), Some(_), None) => Some((hi, 0)),
            _ => None,
        };
        let ext = LiftExtras {
            address32,
            general_buffers: true,
            vgpr_count: self.abi.vgprs,
            shared_vgprs: self.abi.shared_vgprs,
            initial_mode: Some(initial_mode(&self.abi)),
        };
        lift_ext(&self.name, &self.code, self.opts, &ext)
            .with_context(|| format!("lifting {}", self.name))
    }

    /// The initial SGPRs and the window buffer's contents for buffers at `addresses` with `sizes`.
    pub fn sgprs(&self, addresses: &[u64], sizes: &[u64]) -> Result<(InitialSgprs, Vec<u8>)> {
        let mut out = Vec::new();
        let mut window = Vec::new();
        let mut set = 0;
        for s in &self.abi.sgpr {
            let r = s.reg;
            if let Some(c) = s.constant()? {
                out.push((r, SgprInit::Const(c)));
            } else if let Some(sp) = &s.ssharp {
                for (k, w) in sp.words()?.into_iter().enumerate() {
                    out.push((r + k as u16, SgprInit::Const(w)));
                }
            } else if let Some(d) = s.workgroup_id {
                out.push((r, SgprInit::WorkgroupId(d)));
            } else if s.scratch_wave_offset {
                out.push((r, SgprInit::ScratchWaveOffset));
            } else if let Some(n) = &s.address {
                let a = addresses[self.index[n]];
                out.push((r, SgprInit::Const(a as u32)));
                out.push((r + 1, SgprInit::Const((a >> 32) as u32)));
            } else if let Some(n) = &s.vsharp {
                let i = self.index[n];
                for (k, w) in vsharp(addresses[i], sizes[i]).into_iter().enumerate() {
                    out.push((r + k as u16, SgprInit::Const(w)));
                }
            } else if let Some(n) = &s.tsharp {
                let i = self.index[n];
                let img = self
                    .images
                    .get(n)
                    .with_context(|| format!("[abi] sgpr {r}: tsharp {n:?} is not an image"))?;
                if !addresses[i].is_multiple_of(256) {
                    bail!(
                        "image {n:?} is at {:#x}, not 256-byte aligned as a T# needs",
                        addresses[i]
                    );
                }
                for (k, w) in img.tsharp(addresses[i]).into_iter().enumerate() {
                    out.push((r + k as u16, SgprInit::Const(w)));
                }
            } else if let Some(names) = &s.descriptor_set {
                let off = self.set_offsets[set];
                set += 1;
                let (entries, size) = set_entry_offsets(names, &self.images);
                window.resize((off + size) as usize, 0);
                for (n, e) in names.iter().zip(entries) {
                    let i = self.index[n];
                    let words: Vec<u32> = match self.images.get(n) {
                        Some(img) => {
                            if !addresses[i].is_multiple_of(256) {
                                bail!(
                                    "image {n:?} is at {:#x}, not 256-byte aligned as a T# needs",
                                    addresses[i]
                                );
                            }
                            let mut w = img.tsharp(addresses[i]).to_vec();
                            if let Some(ss) = img.ssharp {
                                w.resize(20, 0);
                                w.extend(ss);
                            }
                            w
                        }
                        None => vsharp(addresses[i], sizes[i]).to_vec(),
                    };
                    let at = (off + e) as usize;
                    for (k, w) in words.iter().enumerate() {
                        window[at + 4 * k..at + 4 * k + 4].copy_from_slice(&w.to_le_bytes());
                    }
                }
                out.push((r, SgprInit::Const(off)));
            }
        }
        Ok((out, window))
    }
}

#[cfg(test)]
mod tests {
    use super::SamplerSpec;

    /// The S# words RADV (Mesa 22.3.6, navi21 null device) builds for these Vulkan samplers, read from ACO's
    /// listing of a shader whose combined image sampler had an immutable sampler (ACO inlines its four
    /// words as constants: `p_create_vector …`): `ssharp` encodes the same settings to the same words (D187).
    #[test]
    fn ssharp_words_match_radv() {
        let spec =
            |f: &str, a: [&str; 3], border: &str, max_lod: f64, bias: f64, mip: &str| SamplerSpec {
                filter: Some(f.into()),
                mipmap_mode: Some(mip.into()),
                address: Some(a.iter().map(|s| s.to_string()).collect()),
                border: Some(border.into()),
                unnormalized: false,
                min_lod: None,
                max_lod: Some(max_lod),
                lod_bias: Some(bias),
                compare: None,
                seamless: None,
            };
        let cases = [
            (
                spec(
                    "nearest",
                    ["repeat", "clamp_to_edge", "clamp_to_edge"],
                    "transparent_black",
                    1000.0,
                    0.0,
                    "nearest",
                ),
                [0x0800_0090, 0x00f0_0000, 0x0400_0000, 0],
            ),
            (
                spec(
                    "linear",
                    ["clamp_to_edge", "repeat", "repeat"],
                    "transparent_black",
                    1000.0,
                    0.0,
                    "nearest",
                ),
                [2, 0x00f0_0000, 0x0450_0000, 0],
            ),
            (
                spec(
                    "nearest",
                    [
                        "mirrored_repeat",
                        "mirror_clamp_to_edge",
                        "mirror_clamp_to_edge",
                    ],
                    "transparent_black",
                    1000.0,
                    0.25,
                    "nearest",
                ),
                [0x0800_00d9, 0x00f0_0000, 0x0400_0040, 0],
            ),
            (
                spec(
                    "linear",
                    ["repeat", "repeat", "repeat"],
                    "transparent_black",
                    1.5,
                    0.0,
                    "nearest",
                ),
                [0, 0x0018_0000, 0x0450_0000, 0],
            ),
            (
                spec(
                    "linear",
                    ["clamp_to_border", "clamp_to_border", "clamp_to_border"],
                    "opaque_black",
                    1000.0,
                    0.0,
                    "nearest",
                ),
                [0x1b6, 0x00f0_0000, 0x0450_0000, 0x4000_0000],
            ),
            (
                spec(
                    "linear",
                    ["repeat", "repeat", "repeat"],
                    "opaque_white",
                    1000.0,
                    -1.5,
                    "linear",
                ),
                [0, 0x00f0_0000, 0x0850_3e80, 0],
            ),
        ];
        for (s, want) in cases {
            assert_eq!(s.words().unwrap(), want, "{s:?}");
        }
    }
}
