//! Per-opcode facts the lifter dispatches on, derived once from the table's rows (at compile time; the
//! compare facts at first use) so that the lifter never reads a mnemonic (decision D179).
//!
//! * [`Family`]: the ISA family of an opcode, from the formats of its rows. An opcode's rows all lie in one
//!   family (VOP1/VOP2/VOPC/VOP3 forms of one operation are [`Family::Valu`]); the one exception are the
//!   interpolation opcodes, which have a VINTRP row and a VOP3 row and are [`Family::Vintrp`].
//! * [`Encoding::is_vop3b`] / [`Opcode::writes_carry`]: the row prints a carry-out / second SGPR destination
//!   in bits 8..14 of a VOP3 word (the table's `sdst2` field; LLVM's VOP3b encoding) instead of abs/op_sel.
//! * [`Opcode::is_cmpx`]: a VOPC compare whose plain (e32) row has no destination operand (LLVM prints
//!   `vcc_lo` for `v_cmp_*`, nothing for `v_cmpx_*`): on gfx10 it writes EXEC and nothing else (AMD RDNA 2 ISA guide, VOPC; LLVM `VOPC_Real_gfx10`'s `Defs = [EXEC]`).
//! * [`Encoding::has_64bit_operand`]: an operand of the row is a register pair (its `b64`/`f64` kind).
//! * [`Opcode::compare`]: a VOPC operation's relation and operand type. The table has no column for them
//!   (the operand kinds tell f16/f64/16-bit from the rest, not f32 from i32 from u32), so they are read here,
//!   once, from LLVM's name `v_cmp[x]_<relation>_<type>`, and checked against the operand kinds; the lifter
//!   asks this instead of parsing names (D179).

use crate::generated::{Field, Opcode, ENCODINGS};
use crate::table::{Encoding, Format, Operand};

/// The ISA family of an opcode: which part of the lifter owns its semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// SOP1, SOP2, SOPC, SOPK.
    Salu,
    /// SOPP: program control, waits and hints.
    Sopp,
    /// SMEM: scalar memory.
    Smem,
    /// VOP1, VOP2, VOPC and their VOP3 forms (and VOP3-only operations).
    Valu,
    /// VOP3P: packed 16-bit math, dot products, mix.
    Vop3p,
    /// DS: LDS / GDS and the cross-lane DS operations.
    Ds,
    Flat,
    Global,
    Scratch,
    Mubuf,
    Mtbuf,
    Mimg,
    Exp,
    Vintrp,
}

impl Family {
    pub const ALL: [Family; 14] = [
        Family::Salu,
        Family::Sopp,
        Family::Smem,
        Family::Valu,
        Family::Vop3p,
        Family::Ds,
        Family::Flat,
        Family::Global,
        Family::Scratch,
        Family::Mubuf,
        Family::Mtbuf,
        Family::Mimg,
        Family::Exp,
        Family::Vintrp,
    ];

    /// The family a row of `format` belongs to.
    pub const fn of_format(format: Format) -> Family {
        match format {
            Format::SOP1 | Format::SOP2 | Format::SOPC | Format::SOPK => Family::Salu,
            Format::SOPP => Family::Sopp,
            Format::SMEM => Family::Smem,
            Format::VOP1 | Format::VOP2 | Format::VOPC | Format::VOP3 => Family::Valu,
            Format::VOP3P => Family::Vop3p,
            Format::DS => Family::Ds,
            Format::FLAT => Family::Flat,
            Format::GLOBAL => Family::Global,
            Format::SCRATCH => Family::Scratch,
            Format::MUBUF => Family::Mubuf,
            Format::MTBUF => Family::Mtbuf,
            Format::MIMG => Family::Mimg,
            Format::EXP => Family::Exp,
            Format::VINTRP => Family::Vintrp,
        }
    }
}

/// One more than the largest opcode number (every `Opcode` has at least one row).
const NOPS: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < ENCODINGS.len() {
        let o = ENCODINGS[i].opcode as usize;
        if o + 1 > n {
            n = o + 1;
        }
        i += 1;
    }
    n
};

const fn has_field(e: &Encoding, f: Field) -> bool {
    let mut j = 0;
    while j < e.operands.len() {
        if let Operand::Field(g, _) = e.operands[j] {
            if g as u32 == f as u32 {
                return true;
            }
        }
        j += 1;
    }
    false
}

/// A VOPC row with no destination operand (neither a printed `vcc_lo` nor a field).
const fn vopc_without_destination(e: &Encoding) -> bool {
    if !matches!(e.format, Format::VOPC) {
        return false;
    }
    let mut j = 0;
    while j < e.operands.len() {
        match e.operands[j] {
            Operand::Fixed(_) => return false,
            Operand::Field(f, _) => {
                if matches!(f, Field::Vdst | Field::Sdst | Field::Sdst2) {
                    return false;
                }
            }
        }
        j += 1;
    }
    true
}

/// The relation of a VOPC compare (LLVM's names; `F`/`T` the constant false/true forms, `Class` the class
/// test whose second operand is a class mask).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpRel {
    F,
    Lt,
    Eq,
    Le,
    Gt,
    /// Integer not-equal.
    Ne,
    /// Float ordered and not equal.
    Lg,
    Ge,
    O,
    U,
    Nge,
    Nlg,
    Ngt,
    Nle,
    /// Float unordered or not equal.
    Neq,
    Nlt,
    T,
    Class,
}

/// The operand type of a VOPC compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpType {
    F16,
    F32,
    F64,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

impl CmpType {
    pub fn is_float(self) -> bool {
        matches!(self, CmpType::F16 | CmpType::F32 | CmpType::F64)
    }
    pub fn is_signed(self) -> bool {
        matches!(self, CmpType::I16 | CmpType::I32 | CmpType::I64)
    }
    pub fn bits(self) -> u32 {
        match self {
            CmpType::F16 | CmpType::I16 | CmpType::U16 => 16,
            CmpType::F32 | CmpType::I32 | CmpType::U32 => 32,
            CmpType::F64 | CmpType::I64 | CmpType::U64 => 64,
        }
    }
}

/// A VOPC compare: relation and operand type ([`Opcode::compare`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Compare {
    pub rel: CmpRel,
    pub ty: CmpType,
}

/// LLVM's name of a compare, `v_cmp[x]_<relation>_<type>`, read once per opcode.
fn parse_compare(name: &str) -> Option<Compare> {
    let rest = name
        .strip_prefix("v_cmpx_")
        .or_else(|| name.strip_prefix("v_cmp_"))?;
    let (rel, ty) = rest.rsplit_once('_')?;
    let rel = match rel {
        "f" => CmpRel::F,
        "lt" => CmpRel::Lt,
        "eq" => CmpRel::Eq,
        "le" => CmpRel::Le,
        "gt" => CmpRel::Gt,
        "ne" => CmpRel::Ne,
        "lg" => CmpRel::Lg,
        "ge" => CmpRel::Ge,
        "o" => CmpRel::O,
        "u" => CmpRel::U,
        "nge" => CmpRel::Nge,
        "nlg" => CmpRel::Nlg,
        "ngt" => CmpRel::Ngt,
        "nle" => CmpRel::Nle,
        "neq" => CmpRel::Neq,
        "nlt" => CmpRel::Nlt,
        "t" | "tru" => CmpRel::T,
        "class" => CmpRel::Class,
        _ => return None,
    };
    let ty = match ty {
        "f16" => CmpType::F16,
        "f32" => CmpType::F32,
        "f64" => CmpType::F64,
        "i16" => CmpType::I16,
        "u16" => CmpType::U16,
        "i32" => CmpType::I32,
        "u32" => CmpType::U32,
        "i64" => CmpType::I64,
        "u64" => CmpType::U64,
        _ => return None,
    };
    Some(Compare { rel, ty })
}

/// Per opcode, its [`Compare`] if it has a VOPC row.
fn compares() -> &'static [Option<Compare>] {
    static T: std::sync::OnceLock<Vec<Option<Compare>>> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut t = vec![None; NOPS];
        for e in ENCODINGS.iter().filter(|e| e.format == Format::VOPC) {
            t[e.opcode as usize] = parse_compare(e.opcode.name());
        }
        t
    })
}

const FAM_NONE: u8 = u8::MAX;

/// Per opcode: its family (as `Family as u8`), whether a row is VOP3b, whether it is a cmpx compare.
static FACTS: [(u8, bool, bool); NOPS] = {
    let mut t = [(FAM_NONE, false, false); NOPS];
    let mut i = 0;
    while i < ENCODINGS.len() {
        let e = &ENCODINGS[i];
        let o = e.opcode as usize;
        let fam = Family::of_format(e.format) as u8;
        // Interpolation opcodes also have a VOP3 row; their VINTRP row names the family.
        if t[o].0 == FAM_NONE || fam == Family::Vintrp as u8 {
            t[o].0 = fam;
        }
        if has_field(e, Field::Sdst2) {
            t[o].1 = true;
        }
        if vopc_without_destination(e) {
            t[o].2 = true;
        }
        i += 1;
    }
    t
};

impl Opcode {
    /// The opcode's ISA family (from its rows' formats).
    pub fn family(self) -> Family {
        Family::ALL[FACTS[self as usize].0 as usize]
    }

    /// Whether the operation writes a carry-out / second lane mask: one of its rows is VOP3b (`sdst2`).
    /// Its VOP2 form, if any, writes VCC instead.
    pub fn writes_carry(self) -> bool {
        FACTS[self as usize].1
    }

    /// The relation and operand type of a VOPC compare (also in its VOP3 form); `None` for other opcodes.
    pub fn compare(self) -> Option<Compare> {
        compares()[self as usize]
    }

    /// Whether the operation is a `v_cmpx` compare: it writes EXEC only (gfx10), in every encoding.
    pub fn is_cmpx(self) -> bool {
        FACTS[self as usize].2
    }
}

impl Encoding {
    /// Whether an operand of the row is 64 bits wide (a register pair: `b64`/`f64` kinds).
    pub fn has_64bit_operand(&self) -> bool {
        self.operands.iter().any(|o| match *o {
            Operand::Field(_, k) => crate::print::kind_regs(k) == 2,
            Operand::Fixed(_) => false,
        })
    }

    /// VOP3b: bits 8..14 of the first word hold an SGPR destination (`sdst2`) instead of abs/op_sel/clamp.
    pub fn is_vop3b(&self) -> bool {
        self.format == Format::VOP3 && has_field(self, Field::Sdst2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every row's format lies in its opcode's family; only interpolation opcodes span two formats' families.
    #[test]
    fn every_opcode_lies_in_one_family() {
        let mut seen = BTreeSet::new();
        for e in &ENCODINGS {
            seen.insert(e.opcode);
            let fam = e.opcode.family();
            let row = Family::of_format(e.format);
            if fam != row {
                assert_eq!(
                    (fam, e.format),
                    (Family::Vintrp, Format::VOP3),
                    "{}",
                    e.mnemonic
                );
            }
        }
        assert_eq!(seen.len(), NOPS, "every opcode number has a row");
        // `Opcode::family` indexes ALL by the variant's number.
        for (i, f) in Family::ALL.into_iter().enumerate() {
            assert_eq!(f as usize, i);
        }
    }

    /// The VOP3b set is LLVM's (VOP3b-encoded operations of gfx10: `VOP3be` / `VOP3b_Profile`): the carry
    /// arithmetic, the division scale step and the 64-bit multiply-adds.
    #[test]
    fn vop3b_rows_are_llvms_vop3b_set() {
        use Opcode::*;
        let got: BTreeSet<Opcode> = ENCODINGS
            .iter()
            .filter(|e| e.is_vop3b())
            .map(|e| e.opcode)
            .collect();
        let want: BTreeSet<Opcode> = [
            V_ADD_CO_U32,
            V_SUB_CO_U32,
            V_SUBREV_CO_U32,
            V_ADD_CO_CI_U32,
            V_SUB_CO_CI_U32,
            V_SUBREV_CO_CI_U32,
            V_MAD_U64_U32,
            V_MAD_I64_I32,
            V_DIV_SCALE_F32,
            V_DIV_SCALE_F64,
        ]
        .into_iter()
        .collect();
        assert_eq!(got, want);
        let carry: BTreeSet<Opcode> = ENCODINGS
            .iter()
            .map(|e| e.opcode)
            .filter(|o| o.writes_carry())
            .collect();
        assert_eq!(carry, want);
    }

    /// The cmpx fact (from the operand lists) agrees with LLVM's naming of the same operations, and every
    /// cmpx operation's VOP3 row has no destination either.
    #[test]
    fn cmpx_is_the_compare_without_a_destination() {
        let mut n = 0;
        for e in &ENCODINGS {
            let named = e.mnemonic.starts_with("v_cmpx_");
            assert_eq!(e.opcode.is_cmpx(), named, "{}", e.mnemonic);
            if named {
                n += 1;
                assert!(
                    !has_field(e, Field::Sdst) && !has_field(e, Field::Vdst),
                    "{}",
                    e.mnemonic
                );
            }
        }
        assert_eq!(n, 190, "95 operations, a VOPC and a VOP3 row each");
    }

    /// Every VOPC operation has a relation and type, and the type agrees with the table's operand kinds
    /// (src0: f16, f64, i16 for the 16-bit integers, b32 for the other 32-bit types, b64 for 64-bit
    /// integers); the class tests take a b32 mask as src1.
    #[test]
    fn compares_agree_with_operand_kinds() {
        use crate::generated::Kind;
        let mut n = 0;
        for e in ENCODINGS.iter() {
            let Some(c) = e.opcode.compare() else {
                assert!(e.format != Format::VOPC, "{}", e.mnemonic);
                continue;
            };
            n += 1;
            let kind = |f: Field| {
                e.operands.iter().find_map(|o| match *o {
                    Operand::Field(g, k) if g == f => Some(k),
                    _ => None,
                })
            };
            let want = match c.ty {
                CmpType::F16 => Kind::F16,
                CmpType::F64 => Kind::F64,
                CmpType::I16 | CmpType::U16 => Kind::I16,
                CmpType::F32 | CmpType::I32 | CmpType::U32 => Kind::B32,
                CmpType::I64 | CmpType::U64 => Kind::B64,
            };
            assert_eq!(kind(Field::Src0), Some(want), "{}", e.mnemonic);
            assert_eq!(e.opcode.is_cmpx(), e.mnemonic.starts_with("v_cmpx"));
        }
        assert_eq!(n, 380, "190 operations, a VOPC and a VOP3 row each");
    }

    /// On the rows with DPP or SDWA forms (VOP1/VOP2/VOPC), a 64-bit operand is what LLVM's names say
    /// (`_f64`, `_i64`, `_u64`, `_b64` in the mnemonic): the lifter's "64-bit form" test.
    #[test]
    fn wide_operands_of_dpp_and_sdwa_rows() {
        let mut n = 0;
        for e in ENCODINGS.iter() {
            if e.mods.dpp.is_some() || e.mods.dpp8 || e.mods.sdwa.is_some() {
                n += 1;
                assert_eq!(
                    e.has_64bit_operand(),
                    e.opcode.name().contains("64"),
                    "{}",
                    e.mnemonic
                );
            }
        }
        assert!(n > 200, "{n}");
    }
}
