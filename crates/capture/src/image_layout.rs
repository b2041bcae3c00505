//! D183's image layout and T#, shared by `rdna2spv run` (raw manifests' `[[images]]`) and `rdna2spv capture`
//! (placeholder texels): the levels of an image one after another from level 0; level `l` is
//! `max(1, W >> l)` × `max(1, H >> l)` × `max(1, D >> l)` texels (H only for 2D, 3D and 2D arrays; D only for
//! 3D) for every array slice, x fastest, then y, then z or the slice, with no padding. The lifter computes
//! the same addresses in IR from the T# (crates/ir/src/lift/image.rs).

use anyhow::{bail, Result};

/// The storage formats a manifest names, with their gfx10 unified format number (the T#'s FORMAT) and
/// texel bytes.
pub const FORMATS: [(&str, u32, u32); 36] = [
    ("r8_unorm", 1, 1),
    ("r8_snorm", 2, 1),
    ("r8_uint", 5, 1),
    ("r8_sint", 6, 1),
    ("r16_unorm", 7, 2),
    ("r16_snorm", 8, 2),
    ("r16_uint", 11, 2),
    ("r16_sint", 12, 2),
    ("r16_float", 13, 2),
    ("rg8_unorm", 14, 2),
    ("rg8_snorm", 15, 2),
    ("rg8_uint", 18, 2),
    ("rg8_sint", 19, 2),
    ("r32_uint", 20, 4),
    ("r32_sint", 21, 4),
    ("r32_float", 22, 4),
    ("rg16_unorm", 23, 4),
    ("rg16_snorm", 24, 4),
    ("rg16_uint", 27, 4),
    ("rg16_sint", 28, 4),
    ("rg16_float", 29, 4),
    ("rgba8_unorm", 56, 4),
    ("rgba8_snorm", 57, 4),
    ("rgba8_uint", 60, 4),
    ("rgba8_sint", 61, 4),
    ("rg32_uint", 62, 8),
    ("rg32_sint", 63, 8),
    ("rg32_float", 64, 8),
    ("rgba16_unorm", 65, 8),
    ("rgba16_snorm", 66, 8),
    ("rgba16_uint", 69, 8),
    ("rgba16_sint", 70, 8),
    ("rgba16_float", 71, 8),
    ("rgba32_uint", 75, 16),
    ("rgba32_sint", 76, 16),
    ("rgba32_float", 77, 16),
];

/// An image's shape, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageDesc {
    /// The MIMG `dim` value (0 1D, 1 2D, 2 3D, 3 cube, 4 1D array, 5 2D array). A cube (a sampled cube
    /// or cube array, D196) is laid out as a 2-D array of six slices per cube.
    pub dim: u32,
    pub format: u32,
    pub texel_bytes: u32,
    pub extent: [u32; 3],
    pub levels: u32,
    pub layers: u32,
}

impl ImageDesc {
    pub fn new(
        format: &str,
        dim: &str,
        extent: [u32; 3],
        levels: u32,
        layers: u32,
    ) -> Result<ImageDesc> {
        let Some(&(_, fmt, bytes)) = FORMATS.iter().find(|f| f.0 == format) else {
            bail!(
                "format {format:?} is not a storage format rdna2spv models (one of: {})",
                FORMATS.map(|f| f.0).join(", ")
            );
        };
        let d = match dim {
            "1d" => 0,
            "2d" => 1,
            "3d" => 2,
            "1d_array" => 4,
            "2d_array" => 5,
            "cube" => 3,
            _ => bail!(
                "dim {dim:?} (one of 1d, 2d, 3d, 1d_array, 2d_array, cube; MSAA is not modelled)"
            ),
        };
        let [w, h, z] = extent;
        if w == 0 || h == 0 || z == 0 || w > 16384 || h > 16384 || z > 8192 {
            bail!("extent {extent:?}: each 1..=16384 (depth 8192)");
        }
        if matches!(d, 0 | 4) && h != 1 {
            bail!("extent {extent:?}: a 1D image has height 1");
        }
        if d != 2 && z != 1 {
            bail!("extent {extent:?}: only a 3D image has a depth");
        }
        let max_levels = 32 - w.max(h).max(if d == 2 { z } else { 1 }).leading_zeros();
        if levels == 0 || levels > max_levels.min(15) {
            bail!(
                "levels {levels}: 1..={} for this extent",
                max_levels.min(15)
            );
        }
        let array = matches!(d, 4 | 5);
        if d == 3 && (layers == 0 || !layers.is_multiple_of(6) || layers > 8190 || w != h) {
            bail!("a cube has square faces and six layers per cube (6, 12, …; extent {extent:?}, layers {layers})");
        }
        if d != 3 && (layers == 0 || layers > 8192 || (!array && layers != 1)) {
            bail!("layers {layers}: 1 for a non-array image, 1..=8192 for an array");
        }
        let desc = ImageDesc {
            dim: d,
            format: fmt,
            texel_bytes: bytes,
            extent,
            levels,
            layers,
        };
        if desc.size() > 1 << 30 {
            bail!(
                "the image's {} bytes are too many (1 GiB at most)",
                desc.size()
            );
        }
        Ok(desc)
    }

    /// The extent (width, height, depth) of level `l`.
    pub fn level_extent(&self, l: u32) -> [u32; 3] {
        let e = |x: u32| (x >> l).max(1);
        [
            e(self.extent[0]),
            if matches!(self.dim, 1 | 2 | 3 | 5) {
                e(self.extent[1])
            } else {
                1
            },
            if self.dim == 2 { e(self.extent[2]) } else { 1 },
        ]
    }

    /// Bytes of level `l` (every slice).
    pub fn level_bytes(&self, l: u32) -> u64 {
        let [w, h, d] = self.level_extent(l);
        w as u64 * h as u64 * d as u64 * self.layers as u64 * self.texel_bytes as u64
    }

    /// Byte offset of level `l`.
    pub fn level_offset(&self, l: u32) -> u64 {
        (0..l).map(|k| self.level_bytes(k)).sum()
    }

    /// Bytes of the whole layout.
    pub fn size(&self) -> u64 {
        self.level_offset(self.levels)
    }

    /// Byte offset of texel (x, y, z or slice) of level `l`.
    pub fn texel_offset(&self, l: u32, x: u32, y: u32, z: u32) -> u64 {
        let [w, h, _] = self.level_extent(l);
        self.level_offset(l)
            + ((z as u64 * h as u64 + y as u64) * w as u64 + x as u64) * self.texel_bytes as u64
    }

    /// The T# of the whole image at `address` (256-byte aligned): identity DST_SEL, levels 0..levels,
    /// slices 0..layers, SW_MODE 0 (D183's linear layout).
    pub fn tsharp(&self, address: u64) -> [u32; 8] {
        self.tsharp_levels(address, 0, self.levels)
    }

    /// The T# of a view of levels `base_level..base_level + levels` (BASE_LEVEL, LAST_LEVEL; the extent
    /// stays level 0's, as the hardware derives each level's from it).
    pub fn tsharp_levels(&self, address: u64, base_level: u32, levels: u32) -> [u32; 8] {
        let [w, h, z] = self.extent;
        let (w1, h1) = (w - 1, h - 1);
        let ty = match self.dim {
            0 => 8,
            1 => 9,
            2 => 10,
            3 => 11,
            4 => 12,
            _ => 13,
        };
        // DEPTH: depth − 1 for 3D, else the last slice (RADV's gfx10 descriptor: a cube's is its last
        // face, six per cube).
        let depth = match self.dim {
            2 => z - 1,
            3..=5 => self.layers - 1,
            _ => 0,
        };
        [
            (address >> 8) as u32,
            (address >> 40) as u32 & 0xff | self.format << 20 | (w1 & 3) << 30,
            (w1 >> 2) & 0xfff | h1 << 14 | 1 << 31,
            4 | 5 << 3
                | 6 << 6
                | 7 << 9
                | base_level << 12
                | (base_level + levels - 1) << 16
                | ty << 28,
            depth,
            0,
            0,
            0,
        ]
    }
}
