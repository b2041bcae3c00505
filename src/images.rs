//! Storage images of a raw manifest (`[[images]]`, decision D183): each image is a buffer holding its texels
//! in D183's linear layout, and a descriptor set that names it holds its T# (eight dwords, the fields the
//! lifter decodes at run time: crates/ir/src/lift/image.rs).
//!
//! Layout: the levels one after another from level 0; level `l` is `max(1, W >> l)` × `max(1, H >> l)` ×
//! `max(1, D >> l)` texels (H only for 2D, 3D and 2D arrays; D only for 3D) for every array slice, x fastest,
//! then y, then z or the slice, with no padding.

use anyhow::Result;
use serde::Deserialize;
use std::path::PathBuf;

/// One `[[images]]` entry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageSpec {
    pub name: String,
    /// A Vulkan storage format in lower case without `VK_FORMAT_` and the component order, e.g. `rgba8_unorm`,
    /// `r32_float`, `rgba16_float` ([`FORMATS`]).
    pub format: String,
    /// `1d`, `2d` (default), `3d`, `1d_array` or `2d_array`.
    #[serde(default = "dim_2d")]
    pub dim: String,
    /// Width, height, depth of level 0 (height 1 for 1D types, depth 1 except 3D).
    pub extent: [u32; 3],
    #[serde(default = "one")]
    pub levels: u32,
    /// Array slices (1 except for array types).
    #[serde(default = "one")]
    pub layers: u32,
    /// The initial texels, the whole layout ([`ImageDesc::size`] bytes); zero-filled without it.
    pub file: Option<PathBuf>,
    /// Written to `<out>/<name>.bin` (the whole layout) after the run.
    #[serde(default)]
    pub output: bool,
}

fn dim_2d() -> String {
    "2d".into()
}
fn one() -> u32 {
    1
}

pub use rdna2spv_capture::image_layout::{ImageDesc, FORMATS};

impl ImageSpec {
    pub fn desc(&self) -> Result<ImageDesc> {
        ImageDesc::new(
            &self.format,
            &self.dim,
            self.extent,
            self.levels,
            self.layers,
        )
        .map_err(|e| e.context(format!("image {:?}", self.name)))
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
    }
}
