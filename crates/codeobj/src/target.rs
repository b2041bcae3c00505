//! The target processor, from the ELF header's `e_flags`.
//!
//! `e_flags & 0xff` is the `EF_AMDGPU_MACH` value. The numbers below were checked by compiling a
//! kernel with `clang-19 -mcpu=<gpu>` for each processor and reading `llvm-readelf-19 -h`:
//! gfx1010 0x33, gfx1011 0x34, gfx1012 0x35, gfx1013 0x42, gfx1030 0x36, gfx1031 0x37,
//! gfx1032 0x38, gfx1033 0x39, gfx1034 0x3e, gfx1035 0x3d, gfx1036 0x45, gfx1100 0x41.
//! Feature bits (code object v4 and later): xnack in bits 8–9, sramecc in bits 10–11, each
//! 0 = unsupported, 1 = any, 2 = off, 3 = on (`-mcpu=gfx1010` gives 0x133, `gfx1010:xnack+` 0x333).
//! Code object v3 has single bits instead: xnack on = bit 8, sramecc on = bit 9.

use serde::{Serialize, Serializer};
use std::fmt;

/// A GPU, named as LLVM names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gpu {
    Gfx1010,
    Gfx1011,
    Gfx1012,
    Gfx1013,
    Gfx1030,
    Gfx1031,
    Gfx1032,
    Gfx1033,
    Gfx1034,
    Gfx1035,
    Gfx1036,
    Gfx1100,
    /// Any other `EF_AMDGPU_MACH` value.
    Other(u8),
}

const MACH_TABLE: &[(u8, Gpu, &str)] = &[
    (0x33, Gpu::Gfx1010, "gfx1010"),
    (0x34, Gpu::Gfx1011, "gfx1011"),
    (0x35, Gpu::Gfx1012, "gfx1012"),
    (0x42, Gpu::Gfx1013, "gfx1013"),
    (0x36, Gpu::Gfx1030, "gfx1030"),
    (0x37, Gpu::Gfx1031, "gfx1031"),
    (0x38, Gpu::Gfx1032, "gfx1032"),
    (0x39, Gpu::Gfx1033, "gfx1033"),
    (0x3e, Gpu::Gfx1034, "gfx1034"),
    (0x3d, Gpu::Gfx1035, "gfx1035"),
    (0x45, Gpu::Gfx1036, "gfx1036"),
    (0x41, Gpu::Gfx1100, "gfx1100"),
];

/// Names of other processors, for display only (same method: clang-19 -mcpu, llvm-readelf-19 -h).
/// rocSPARSE's fat binaries carry objects for several of them next to gfx1030.
const OTHER_NAMES: &[(u8, &str)] = &[
    (0x2a, "gfx803"),
    (0x2c, "gfx900"),
    (0x2f, "gfx906"),
    (0x30, "gfx908"),
    (0x3f, "gfx90a"),
    (0x40, "gfx940"),
    (0x4c, "gfx942"),
    (0x46, "gfx1101"),
    (0x47, "gfx1102"),
    (0x44, "gfx1103"),
];

impl Gpu {
    /// The GPU for an `EF_AMDGPU_MACH` value.
    pub fn from_mach(mach: u8) -> Gpu {
        MACH_TABLE
            .iter()
            .find(|(m, _, _)| *m == mach)
            .map(|(_, g, _)| *g)
            .unwrap_or(Gpu::Other(mach))
    }

    /// The GPU LLVM calls `name` (e.g. `"gfx1030"`), if it is in the table.
    pub fn from_name(name: &str) -> Option<Gpu> {
        MACH_TABLE
            .iter()
            .find(|(_, _, n)| *n == name)
            .map(|(_, g, _)| *g)
            .or_else(|| {
                OTHER_NAMES
                    .iter()
                    .find(|(_, n)| *n == name)
                    .map(|(m, _)| Gpu::Other(*m))
            })
    }

    /// The `EF_AMDGPU_MACH` value.
    pub fn mach(self) -> u8 {
        match self {
            Gpu::Other(m) => m,
            g => MACH_TABLE
                .iter()
                .find(|(_, t, _)| *t == g)
                .map(|(m, _, _)| *m)
                .unwrap_or(0),
        }
    }

    /// LLVM's name, e.g. `"gfx1030"`; `None` for an unknown [`Gpu::Other`].
    pub fn name(self) -> Option<&'static str> {
        match self {
            Gpu::Other(m) => OTHER_NAMES.iter().find(|(o, _)| *o == m).map(|(_, n)| *n),
            g => MACH_TABLE
                .iter()
                .find(|(_, t, _)| *t == g)
                .map(|(_, _, n)| *n),
        }
    }

    /// RDNA 1 or RDNA 2 (gfx10.x): the generation whose kernel descriptor rules this crate applies.
    pub fn is_gfx10(self) -> bool {
        matches!(
            self,
            Gpu::Gfx1010
                | Gpu::Gfx1011
                | Gpu::Gfx1012
                | Gpu::Gfx1013
                | Gpu::Gfx1030
                | Gpu::Gfx1031
                | Gpu::Gfx1032
                | Gpu::Gfx1033
                | Gpu::Gfx1034
                | Gpu::Gfx1035
                | Gpu::Gfx1036
        )
    }

    /// RDNA 2 (gfx10.3).
    pub fn is_gfx103(self) -> bool {
        matches!(
            self,
            Gpu::Gfx1030
                | Gpu::Gfx1031
                | Gpu::Gfx1032
                | Gpu::Gfx1033
                | Gpu::Gfx1034
                | Gpu::Gfx1035
                | Gpu::Gfx1036
        )
    }
}

impl fmt::Display for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "unknown-mach-{:#04x}", self.mach()),
        }
    }
}

impl Serialize for Gpu {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A target feature's setting in `e_flags` (xnack, sramecc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FeatureSetting {
    /// The processor does not have the feature (or the object does not say).
    Unsupported,
    /// Code works with the feature on or off.
    Any,
    Off,
    On,
}

impl FeatureSetting {
    fn from_v4_bits(bits: u32) -> FeatureSetting {
        match bits & 3 {
            0 => FeatureSetting::Unsupported,
            1 => FeatureSetting::Any,
            2 => FeatureSetting::Off,
            _ => FeatureSetting::On,
        }
    }
}

/// The target of a code object, decoded from `e_flags`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Target {
    pub gpu: Gpu,
    /// `e_flags & 0xff`.
    pub mach: u8,
    /// The whole `e_flags` word.
    pub e_flags: u32,
    pub xnack: FeatureSetting,
    pub sramecc: FeatureSetting,
}

impl Target {
    /// Decodes `e_flags` for a code object of the given version (3, 4, 5, 6).
    pub fn from_e_flags(e_flags: u32, code_object_version: u32) -> Target {
        let mach = (e_flags & 0xff) as u8;
        let (xnack, sramecc) = if code_object_version <= 3 {
            let bit = |b: u32| {
                if e_flags & (1 << b) != 0 {
                    FeatureSetting::On
                } else {
                    FeatureSetting::Unsupported
                }
            };
            (bit(8), bit(9))
        } else {
            (
                FeatureSetting::from_v4_bits(e_flags >> 8),
                FeatureSetting::from_v4_bits(e_flags >> 10),
            )
        };
        Target {
            gpu: Gpu::from_mach(mach),
            mach,
            e_flags,
            xnack,
            sramecc,
        }
    }
}

impl fmt::Display for Target {
    /// LLVM's target-id syntax: `gfx1030`, `gfx1010:xnack+`, `gfx90a:sramecc-:xnack+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.gpu)?;
        for (name, setting) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            match setting {
                FeatureSetting::On => write!(f, ":{name}+")?,
                FeatureSetting::Off => write!(f, ":{name}-")?,
                FeatureSetting::Any | FeatureSetting::Unsupported => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_feature_bits() {
        assert_eq!(Gpu::from_mach(0x36), Gpu::Gfx1030);
        assert_eq!(Gpu::from_mach(0x42), Gpu::Gfx1013);
        assert_eq!(Gpu::from_name("gfx1010"), Some(Gpu::Gfx1010));
        assert_eq!(Gpu::Gfx1010.mach(), 0x33);
        assert_eq!(Gpu::from_mach(0x3f).to_string(), "gfx90a");
        assert_eq!(Gpu::from_name("gfx90a"), Some(Gpu::Other(0x3f)));
        assert_eq!(Gpu::from_mach(0xfe).to_string(), "unknown-mach-0xfe");
        assert!(Gpu::Gfx1013.is_gfx10() && !Gpu::Gfx1013.is_gfx103());
        assert!(!Gpu::Gfx1100.is_gfx10());
        // clang-19 -mcpu=gfx1010 (xnack any) and gfx1010:xnack+ (llvm-readelf-19 -h).
        assert_eq!(Target::from_e_flags(0x133, 5).to_string(), "gfx1010");
        assert_eq!(Target::from_e_flags(0x133, 5).xnack, FeatureSetting::Any);
        assert_eq!(Target::from_e_flags(0x333, 5).to_string(), "gfx1010:xnack+");
        assert_eq!(Target::from_e_flags(0x53f, 4).sramecc, FeatureSetting::Any);
        assert_eq!(Target::from_e_flags(0x236, 4).to_string(), "gfx1030:xnack-");
        assert_eq!(Target::from_e_flags(0x136, 3).xnack, FeatureSetting::On);
    }
}
