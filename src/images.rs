//! Storage images of a raw manifest (`[[images]]`, decision D183): each image is a buffer holding its texels
//! in D183's linear layout, and a descriptor set that names it holds its T# (eight dwords, the fields the
//! lifter decodes at run time: crates/ir/src/lift/image.rs).
//!
//! Layout: the levels one after another from level 0; level `l` is `max(1, W >> l)` × `max(1, H >> l)` ×
//! `max(1, D >> l)` texels (H only for 2D, 3D and 2D arrays; D only for 3D) for every array slice, x fastest,
//! then y, then z or the slice, with no padding.

use anyhow::{bail, Result};
use serde::Deserialize;
use std::path::PathBuf;

/// One `[[images]]` entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageSpec {
    pub name: String,
    /// A Vulkan storage format in lower case without `VK_FORMAT_` and the component order, e.g. `rgba8_unorm`,
    /// `r32_float`, `rgba16_float` ([`FORMATS`]). Not for a view.
    pub format: Option<String>,
    /// `1d`, `2d` (default), `3d`, `1d_array` or `2d_array`. Not for a view.
    pub dim: Option<String>,
    /// Width, height, depth of level 0 (height 1 for 1D types, depth 1 except 3D). Not for a view.
    pub extent: Option<[u32; 3]>,
    /// Mip levels (of the image; of a view: how many it shows from `base_level`).
    #[serde(default = "one")]
    pub levels: u32,
    /// A view of another `[[images]]` entry's memory (as a Vulkan image view of some of its levels): the
    /// same texels, a T# with BASE_LEVEL = `base_level` and LAST_LEVEL = `base_level + levels − 1`.
    pub view_of: Option<String>,
    /// The view's first level (default 0).
    #[serde(default)]
    pub base_level: u32,
    /// Array slices (1 except for array types).
    #[serde(default = "one")]
    pub layers: u32,
    /// The initial texels, the whole layout ([`ImageDesc::size`] bytes); zero-filled without it.
    pub file: Option<PathBuf>,
    /// Written to `<out>/<name>.bin` (the whole layout) after the run.
    #[serde(default)]
    pub output: bool,
    /// A combined image sampler (D187): the sampler's settings. A descriptor set then holds 96 bytes for it
    /// as RADV lays out COMBINED_IMAGE_SAMPLER on gfx10.3: the T# at 0, the S# at 80 (ACO reads it there).
    pub sampler: Option<crate::raw::SamplerSpec>,
}

fn one() -> u32 {
    1
}

pub use rdna2spv_capture::image_layout::{ImageDesc, FORMATS};

/// An image or a view as a descriptor shows it: the image's layout and the levels the T# names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    pub desc: ImageDesc,
    pub base_level: u32,
    pub levels: u32,
    /// The S# of a combined image sampler (D187).
    pub ssharp: Option<[u32; 4]>,
}

impl Bound {
    /// Its T# for the image at `address`.
    pub fn tsharp(&self, address: u64) -> [u32; 8] {
        self.desc
            .tsharp_levels(address, self.base_level, self.levels)
    }
}

impl ImageSpec {
    /// The layout of an image (not a view).
    pub fn desc(&self) -> Result<ImageDesc> {
        let (Some(format), Some(extent)) = (&self.format, self.extent) else {
            bail!(
                "image {:?}: give `format` and `extent` (or `view_of` for a view)",
                self.name
            );
        };
        if self.base_level != 0 {
            bail!(
                "image {:?}: base_level is for a view (`view_of`)",
                self.name
            );
        }
        ImageDesc::new(
            format,
            self.dim.as_deref().unwrap_or("2d"),
            extent,
            self.levels,
            self.layers,
        )
        .map_err(|e| e.context(format!("image {:?}", self.name)))
    }

    /// A view of `of` (its layout): the levels it shows, checked.
    pub fn view(&self, of: &ImageDesc) -> Result<Bound> {
        if self.format.is_some()
            || self.dim.is_some()
            || self.extent.is_some()
            || self.file.is_some()
            || self.output
            || self.layers != 1
            || self.sampler.is_some()
        {
            bail!(
                "image {:?}: a view takes only view_of, base_level and levels (the format, shape, texels and output are its image's)",
                self.name
            );
        }
        if self.levels == 0 || self.base_level.saturating_add(self.levels) > of.levels {
            bail!(
                "image {:?}: levels {}..{} are not all levels of its image (it has {})",
                self.name,
                self.base_level,
                self.base_level.saturating_add(self.levels),
                of.levels
            );
        }
        Ok(Bound {
            desc: *of,
            base_level: self.base_level,
            levels: self.levels,
            ssharp: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every format's number names the format the disassembler prints for it (LLVM's names): channel
    /// count, width and numeric format agree, and the texel size is the channels' total.
    #[test]
    fn formats_match_the_unified_table() {
        for (name, fmt, bytes) in FORMATS {
            let llvm = rdna2spv_isa::buf_format_name(fmt).unwrap();
            let (chans, nf) = name.split_once('_').unwrap();
            let parts: Vec<&str> = llvm.split('_').collect();
            let (lnf, widths) = parts.split_last().unwrap();
            let digit = chans.find(|c: char| c.is_ascii_digit()).unwrap();
            assert_eq!(widths.len(), digit, "{name} vs {llvm}");
            let w: u32 = chans[digit..].parse().unwrap();
            assert!(
                widths.iter().all(|x| x.parse::<u32>().unwrap() == w),
                "{name} vs {llvm}"
            );
            assert_eq!(lnf.to_lowercase(), nf, "{name} vs {llvm}");
            assert_eq!(bytes, w / 8 * widths.len() as u32, "{name}");
        }
    }

    #[test]
    fn layout_and_tsharp() {
        let d = ImageDesc::new("rgba8_unorm", "2d", [5, 3, 1], 3, 1).unwrap();
        assert_eq!(d.level_extent(1), [2, 1, 1]);
        assert_eq!(d.level_offset(1), 60);
        assert_eq!(d.level_offset(2), 68);
        assert_eq!(d.size(), 72);
        assert_eq!(d.texel_offset(0, 1, 2, 0), (2 * 5 + 1) * 4);
        let t = d.tsharp(0x1_2345_6700);
        assert_eq!(t[0], 0x0123_4567);
        assert_eq!((t[1] >> 20) & 0x1ff, 56);
        let width = ((t[1] >> 30) | (t[2] & 0xfff) << 2) + 1;
        assert_eq!((width, ((t[2] >> 14) & 0x3fff) + 1), (5, 3));
        assert_eq!((t[3] >> 16) & 0xf, 2);
        assert_eq!(t[3] >> 28, 9);
        let a = ImageDesc::new("r32_float", "2d_array", [4, 4, 1], 1, 3).unwrap();
        assert_eq!(a.tsharp(0)[4], 2);
        assert_eq!(a.size(), 4 * 4 * 3 * 4);
        assert!(ImageDesc::new("rgba8_unorm", "2d", [4, 4, 1], 4, 1).is_err());
        assert!(ImageDesc::new("bgra8_unorm", "2d", [4, 4, 1], 1, 1).is_err());
        assert!(ImageDesc::new("r32_float", "cube", [4, 4, 1], 1, 1).is_err());
        // A sampled cube (D196): six square faces per cube, a CUBE T# (TYPE 11) whose DEPTH is the last face.
        let c = ImageDesc::new("rgba8_unorm", "cube", [4, 4, 1], 2, 12).unwrap();
        let t = c.tsharp(0);
        assert_eq!((t[3] >> 28, t[4]), (11, 11));
        assert_eq!(c.size(), (16 + 4) * 12 * 4);
        assert!(ImageDesc::new("rgba8_unorm", "cube", [4, 2, 1], 1, 6).is_err());
        assert!(ImageDesc::new("rgba8_unorm", "cube", [4, 4, 1], 1, 8).is_err());
    }
}
