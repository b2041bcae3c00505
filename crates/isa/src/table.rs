//! The opcode table's types and its lookup index. The rows themselves live in `opcodes.txt` at the crate root
//! and are generated into [`crate::generated`] by `cargo xtask codegen`.

use crate::generated::{Field, Flag, Kind, Opcode, ENCODINGS};
use std::sync::OnceLock;

/// A sub-target of the gfx10 family. The decoder is keyed by it: a few opcode slots change meaning between
/// gfx1010/gfx1013 (the MAD/MAC family exists) and gfx1030 (the FMA legacy forms take those slots).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Target {
    Gfx1010,
    Gfx1013,
    #[default]
    Gfx1030,
}

impl Target {
    pub const ALL: [Target; 3] = [Target::Gfx1010, Target::Gfx1013, Target::Gfx1030];

    pub const fn name(self) -> &'static str {
        match self {
            Target::Gfx1010 => "gfx1010",
            Target::Gfx1013 => "gfx1013",
            Target::Gfx1030 => "gfx1030",
        }
    }

    pub fn from_name(s: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == s)
    }

    const fn bit(self) -> u8 {
        match self {
            Target::Gfx1010 => 1,
            Target::Gfx1013 => 2,
            Target::Gfx1030 => 4,
        }
    }

    const fn index(self) -> usize {
        match self {
            Target::Gfx1010 => 0,
            Target::Gfx1013 => 1,
            Target::Gfx1030 => 2,
        }
    }
}

/// An encoding format (the first word's fixed bits select it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    SOP2,
    SOPK,
    SOP1,
    SOPC,
    SOPP,
    SMEM,
    VOP1,
    VOP2,
    VOPC,
    VOP3,
    VOP3P,
    DS,
    FLAT,
    GLOBAL,
    SCRATCH,
    MUBUF,
    MTBUF,
    MIMG,
    EXP,
    VINTRP,
}

impl Format {
    pub const ALL: [Format; 20] = [
        Format::SOP2,
        Format::SOPK,
        Format::SOP1,
        Format::SOPC,
        Format::SOPP,
        Format::SMEM,
        Format::VOP1,
        Format::VOP2,
        Format::VOPC,
        Format::VOP3,
        Format::VOP3P,
        Format::DS,
        Format::FLAT,
        Format::GLOBAL,
        Format::SCRATCH,
        Format::MUBUF,
        Format::MTBUF,
        Format::MIMG,
        Format::EXP,
        Format::VINTRP,
    ];

    const fn index(self) -> usize {
        self as usize
    }
}

/// The set of sub-targets a slot exists on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Targets(pub u8);

impl Targets {
    pub const fn contains(self, t: Target) -> bool {
        self.0 & t.bit() != 0
    }
}

/// One operand in LLVM's printing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Printed from an encoding field, with the operand's width and literal class.
    Field(Field, Kind),
    /// Printed as fixed text (an implicit operand such as `vcc_lo`).
    Fixed(&'static str),
}

/// The modifiers and variants of a vector-ALU slot, probed from LLVM-19 (`+flag` tokens in opcodes.txt).
/// Masks are per source (bit 0 = src0); `opsel` has a fourth bit for the destination (VOP3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mods {
    /// VOP3 abs bits that exist (printed `|x|`).
    pub abs: u8,
    /// VOP3 neg / VOP3P neg_lo bits that exist.
    pub neg: u8,
    /// VOP3P neg_hi bits that exist.
    pub neg_hi: u8,
    /// VOP3 op_sel (bit 3: destination) / VOP3P op_sel bits that exist.
    pub opsel: u8,
    /// VOP3P op_sel_hi bits that exist.
    pub opsel_hi: u8,
    pub clamp: bool,
    pub omod: bool,
    /// Bits LLVM accepts but neither checks nor prints: [word 0, word 1] (VOP3/VOP3P).
    pub ignore: [u32; 2],
    /// DPP16 allowed (src0 = 0xfa): [the DPP word's neg/abs bits 20..23 LLVM accepts, those it prints], >> 20.
    pub dpp: Option<[u32; 2]>,
    /// DPP8 allowed (src0 = 0xe9/0xea).
    pub dpp8: bool,
    /// SDWA allowed (src0 = 0xf9): [SDWA-word bits 8..31 LLVM accepts set (sel fields aside), those it prints].
    pub sdwa: Option<[u32; 2]>,
}

impl Mods {
    pub const NONE: Mods = Mods {
        abs: 0,
        neg: 0,
        neg_hi: 0,
        opsel: 0,
        opsel_hi: 0,
        clamp: false,
        omod: false,
        ignore: [0, 0],
        dpp: None,
        dpp8: false,
        sdwa: None,
    };
}

/// One row of the table: an opcode slot of one format.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Encoding {
    pub format: Format,
    pub op: u16,
    pub targets: Targets,
    pub opcode: Opcode,
    /// As llvm-objdump-19 prints it for the plain encoding (`v_add_f32_e32`, `v_fma_f32`).
    pub mnemonic: &'static str,
    pub operands: &'static [Operand],
    /// Per-row facts from the table's `+flag` tokens (memory formats: addressing and modifier rules).
    pub flags: &'static [Flag],
    /// Vector-ALU modifiers and variants (the `+abs`/`+neg`/`+dpp`/… tokens of the row); [`Mods::NONE`]
    /// elsewhere.
    pub mods: Mods,
    /// One-line semantics note.
    pub note: &'static str,
}

impl Encoding {
    /// Whether the row carries the `+flag` token `f`.
    pub fn has(&self, f: Flag) -> bool {
        self.flags.contains(&f)
    }
}

/// Per format, a dense array indexed by opcode holding, per target, an index into ENCODINGS (u16::MAX: none).
fn index() -> &'static Vec<Vec<[u16; 3]>> {
    static INDEX: OnceLock<Vec<Vec<[u16; 3]>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut idx: Vec<Vec<[u16; 3]>> = vec![Vec::new(); Format::ALL.len()];
        for (i, e) in ENCODINGS.iter().enumerate() {
            let v = &mut idx[e.format.index()];
            let op = e.op as usize;
            if v.len() <= op {
                v.resize(op + 1, [u16::MAX; 3]);
            }
            for t in Target::ALL {
                if e.targets.contains(t) {
                    v[op][t.index()] = i as u16;
                }
            }
        }
        idx
    })
}

/// The slot `op` of `format` on `target`, if the table has one.
pub fn lookup(format: Format, op: u32, target: Target) -> Option<&'static Encoding> {
    let i = *index()[format.index()]
        .get(op as usize)?
        .get(target.index())?;
    ENCODINGS.get(i as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_targets_differ_where_the_isa_says() {
        // VOP2 0x06: V_FMAC_LEGACY_F32 on gfx1030, V_MAC_LEGACY_F32 on gfx1010 (DESIGN.md).
        assert_eq!(
            lookup(Format::VOP2, 0x06, Target::Gfx1030).unwrap().opcode,
            Opcode::V_FMAC_LEGACY_F32
        );
        assert_eq!(
            lookup(Format::VOP2, 0x06, Target::Gfx1010).unwrap().opcode,
            Opcode::V_MAC_LEGACY_F32
        );
        assert_eq!(
            lookup(Format::VOP3, 0x140, Target::Gfx1030).unwrap().opcode,
            Opcode::V_FMA_LEGACY_F32
        );
        assert_eq!(
            lookup(Format::VOP3, 0x140, Target::Gfx1010).unwrap().opcode,
            Opcode::V_MAD_LEGACY_F32
        );
        assert_eq!(
            lookup(Format::VOP3, 0x141, Target::Gfx1010).unwrap().opcode,
            Opcode::V_MAD_F32
        );
        assert!(lookup(Format::VOP3, 0x141, Target::Gfx1030).is_none());
        for op in [0x1f, 0x20, 0x21] {
            assert!(lookup(Format::VOP2, op, Target::Gfx1010).is_some());
            assert!(lookup(Format::VOP2, op, Target::Gfx1030).is_none());
        }
        assert!(lookup(Format::SOP2, 0x7f, Target::Gfx1030).is_none());
    }
}
