//! The opcode table's types and its lookup index. The rows themselves live in `opcodes.txt` at the crate root
//! and are generated into [`crate::generated`] by `cargo xtask codegen`.

use crate::generated::{Field, Flag, Kind, Opcode, ENCODINGS};

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

// The lookup index and the per-row facts below are computed at compile time from ENCODINGS (const
// evaluation: no lazy initialisation, no check of an init flag per decode; decision D110).

const NFORMATS: usize = Format::ALL.len();

/// Per format, one more than its largest opcode in the table.
const SIZES: [usize; NFORMATS] = {
    let mut s = [0; NFORMATS];
    let mut i = 0;
    while i < ENCODINGS.len() {
        let e = &ENCODINGS[i];
        let f = e.format.index();
        if e.op as usize + 1 > s[f] {
            s[f] = e.op as usize + 1;
        }
        i += 1;
    }
    s
};

/// Where each format's slots start in [`INDEX`].
const OFFSETS: [usize; NFORMATS + 1] = {
    let mut o = [0; NFORMATS + 1];
    let mut f = 0;
    while f < NFORMATS {
        o[f + 1] = o[f] + SIZES[f];
        f += 1;
    }
    o
};

/// Per (format, opcode), per target, an index into ENCODINGS (u16::MAX: none). A later row of the same slot
/// wins, as it always did.
static INDEX: [[u16; 3]; OFFSETS[NFORMATS]] = {
    let mut idx = [[u16::MAX; 3]; OFFSETS[NFORMATS]];
    let mut i = 0;
    while i < ENCODINGS.len() {
        let e = &ENCODINGS[i];
        let slot = OFFSETS[e.format.index()] + e.op as usize;
        let mut t = 0;
        while t < Target::ALL.len() {
            if e.targets.contains(Target::ALL[t]) {
                idx[slot][Target::ALL[t].index()] = i as u16;
            }
            t += 1;
        }
        i += 1;
    }
    idx
};

/// The index into ENCODINGS of slot `op` of `format` on `target`, if the table has one.
#[inline]
pub(crate) fn lookup_index(format: Format, op: u32, target: Target) -> Option<usize> {
    let f = format.index();
    if op as usize >= SIZES[f] {
        return None;
    }
    let i = INDEX[OFFSETS[f] + op as usize][target.index()];
    (i != u16::MAX).then_some(i as usize)
}

/// The slot `op` of `format` on `target`, if the table has one.
pub fn lookup(format: Format, op: u32, target: Target) -> Option<&'static Encoding> {
    lookup_index(format, op, target).map(|i| &ENCODINGS[i])
}

const NFIELDS: usize = Field::Vsrc3 as usize + 1;

/// What the decoders ask of a row's operand list, answered once per row at compile time instead of by a
/// walk over the list per decoded instruction.
#[derive(Debug)]
pub(crate) struct RowFacts {
    /// One bit per [`Field`] the row's operands are printed from.
    pub fields: u64,
    /// Per field, the width in registers of its operand ([`crate::print::kind_regs`]; 0: no such operand).
    pub regs: [u8; NFIELDS],
}

impl RowFacts {
    #[inline]
    pub fn has(&self, f: Field) -> bool {
        self.fields & (1u64 << f as u32) != 0
    }

    #[inline]
    pub fn regs(&self, f: Field) -> u32 {
        self.regs[f as usize] as u32
    }
}

/// [`RowFacts`] of every row of ENCODINGS, by index. (opcodes.txt names a field at most once per row; a
/// test below checks it.)
pub(crate) static FACTS: [RowFacts; ENCODINGS.len()] = {
    const EMPTY: RowFacts = RowFacts {
        fields: 0,
        regs: [0; NFIELDS],
    };
    let mut facts = [EMPTY; ENCODINGS.len()];
    let mut i = 0;
    while i < ENCODINGS.len() {
        let ops = ENCODINGS[i].operands;
        let mut j = 0;
        while j < ops.len() {
            if let Operand::Field(f, k) = ops[j] {
                facts[i].fields |= 1u64 << f as u32;
                facts[i].regs[f as usize] = crate::print::kind_regs(k) as u8;
            }
            j += 1;
        }
        i += 1;
    }
    facts
};

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

    /// The compile-time index answers what a walk over the whole table answers (the last row of a slot
    /// wins), and every row's facts match its operand list.
    #[test]
    fn index_and_facts_match_the_table() {
        for f in Format::ALL {
            for op in 0..1100u32 {
                for t in Target::ALL {
                    let want = ENCODINGS
                        .iter()
                        .rposition(|e| e.format == f && e.op as u32 == op && e.targets.contains(t));
                    assert_eq!(lookup_index(f, op, t), want, "{f:?} {op:#x} {t:?}");
                }
            }
        }
        for (e, fx) in ENCODINGS.iter().zip(FACTS.iter()) {
            let fields: Vec<(Field, Kind)> = e
                .operands
                .iter()
                .filter_map(|o| match *o {
                    Operand::Field(f, k) => Some((f, k)),
                    Operand::Fixed(_) => None,
                })
                .collect();
            let mut mask = 0u64;
            for &(f, k) in &fields {
                assert_eq!(
                    mask & (1 << f as u32),
                    0,
                    "{}: field {f:?} twice",
                    e.mnemonic
                );
                mask |= 1 << f as u32;
                assert_eq!(fx.regs(f), crate::print::kind_regs(k), "{}", e.mnemonic);
            }
            assert_eq!(fx.fields, mask, "{}", e.mnemonic);
        }
    }
}
