//! Scalar formats: SOP2, SOPK, SOP1, SOPC, SOPP, SMEM.
//!
//! The rules below were measured against LLVM-19's decoder and printer (the C API `LLVMDisasmInstruction`,
//! which is what `llvm-objdump-19` runs) with the differential test; each one names what LLVM does.
//!
//! * Register operands (`sdst`, `ssrc*`, `sdata`, `sbase`, `soffset`) decode like LLVM's `decodeSrcOp`: SGPRs
//!   0..=105, `vcc`, `ttmp`, `m0`, `null`, `exec`; a 64-bit or wider range may start at any register: LLVM
//!   prints the range aligned down (`s[72:73]` for 73) and warns in its comment stream (llvm-objdump prints that
//!   warning after the `// offset: words` column, not in the instruction text). A range past the register file,
//!   or a special register of the wrong width (`m0` as 64 bits), is an invalid encoding.
//! * 8-bit sources add inline integers (128..=208), the aperture and condition registers (235..=239,
//!   251..=253), inline floats (240..=248), `src_lds_direct` (254, 32-bit only, printed with LLVM's
//!   `/*Invalid register ...*/` note) and the literal (255: one more word). 209..=234, 249, 250 are invalid.
//! * Fields an instruction does not use are ignored, except SOPP's simm16, which must be zero when the
//!   instruction takes no operand.

use crate::decode::{need, slot_facts, DecodeError, Instruction, Variant};
use crate::generated::{Field, Kind};
use crate::print::{kind_regs, scalar_reg, source, Line, PrintOptions};
use crate::table::{Encoding, Format, Operand, Target};
use std::fmt::Write as _;

/// The literal-constant source encoding.
const LITERAL: u32 = 0xff;

pub(crate) fn decode(
    format: Format,
    words: &[u32],
    target: Target,
) -> Result<Instruction, DecodeError> {
    let w0 = words[0];
    let op = match format {
        Format::SOP2 => (w0 >> 23) & 0x7f,
        Format::SOPK => (w0 >> 23) & 0x1f,
        Format::SOP1 => (w0 >> 8) & 0xff,
        Format::SOPC | Format::SOPP => (w0 >> 16) & 0x7f,
        Format::SMEM => (w0 >> 18) & 0xff,
        _ => {
            return Err(DecodeError::Unsupported {
                format,
                word: w0,
                reason: "not a scalar format",
            })
        }
    };
    let (e, fx) = slot_facts(format, op, target, w0)?;
    let invalid = |reason| DecodeError::Invalid { word: w0, reason };
    let out_of_range = "scalar register out of range for the operand's width";

    if format == Format::SMEM {
        need(format, words, 2)?;
        for o in e.operands {
            // soffset is any 32-bit scalar register, the offset any 21-bit value, s_atc_probe's sdata any number.
            let ok = match *o {
                Operand::Field(Field::Sdata, Kind::Imm) => true,
                Operand::Field(Field::Sdata, k) => sreg_ok(sdata(w0), kind_regs(k)),
                Operand::Field(Field::Sbase, k) => sreg_ok(sbase(w0), kind_regs(k)),
                _ => true,
            };
            if !ok {
                return Err(invalid(out_of_range));
            }
        }
        return Ok(Instruction::new(e, Variant::Plain, &words[..2], None));
    }

    if format == Format::SOPP && e.operands.is_empty() && w0 & 0xffff != 0 {
        return Err(invalid(
            "simm16 must be zero for an instruction without operands",
        ));
    }

    // The row's facts answer the common case at once; the walk below finds which operand is wrong.
    let ssrc0 = w0 & 0xff;
    let ssrc1 = (w0 >> 8) & 0xff;
    let ok = (!fx.has(Field::Sdst) || sreg_ok((w0 >> 16) & 0x7f, fx.regs(Field::Sdst)))
        && (!fx.has(Field::Ssrc0) || ssrc_ok(ssrc0, fx.regs(Field::Ssrc0)))
        && (!fx.has(Field::Ssrc1) || ssrc_ok(ssrc1, fx.regs(Field::Ssrc1)));
    if ok {
        let lit = fx.has(Field::Literal)
            || (fx.has(Field::Ssrc0) && ssrc0 == LITERAL)
            || (fx.has(Field::Ssrc1) && ssrc1 == LITERAL);
        let n = 1 + lit as usize;
        need(format, words, n)?;
        return Ok(Instruction::new(
            e,
            Variant::Plain,
            &words[..n],
            lit.then(|| words[1]),
        ));
    }
    let mut lit = false;
    for o in e.operands {
        let Operand::Field(f, k) = *o else { continue };
        let src = match f {
            Field::Ssrc0 => w0 & 0xff,
            Field::Ssrc1 => (w0 >> 8) & 0xff,
            Field::Sdst if !sreg_ok((w0 >> 16) & 0x7f, kind_regs(k)) => {
                return Err(invalid(out_of_range))
            }
            Field::Literal => LITERAL,
            _ => continue,
        };
        if f != Field::Literal && !ssrc_ok(src, kind_regs(k)) {
            return Err(invalid("reserved scalar source encoding"));
        }
        lit |= src == LITERAL;
    }
    let n = 1 + lit as usize;
    need(format, words, n)?;
    Ok(Instruction::new(
        e,
        Variant::Plain,
        &words[..n],
        lit.then(|| words[1]),
    ))
}

fn sdata(w0: u32) -> u32 {
    (w0 >> 6) & 0x7f
}

fn sbase(w0: u32) -> u32 {
    (w0 & 0x3f) << 1
}

/// The alignment LLVM rounds a range of `regs` scalar registers down to (64-bit: 2; wider: 4).
fn align(regs: u32) -> u32 {
    regs.clamp(1, 4)
}

/// Whether LLVM decodes a 7-bit scalar register encoding as a range of `regs` registers.
/// `vcc` and `exec` decode for any width of two or more (a wider operand's register class does not contain
/// them, which LLVM notes in the text).
fn sreg_ok(enc: u32, regs: u32) -> bool {
    let start = enc & !(align(regs) - 1);
    match enc {
        0..=105 => start + regs - 1 <= 105,
        107 | 124 | 127 => regs == 1,
        108..=123 => start - 108 + regs - 1 <= 15,
        106 | 125 | 126 => true,
        _ => false,
    }
}

/// Whether LLVM decodes an 8-bit scalar source encoding for an operand of `regs` registers (1 or 2).
fn ssrc_ok(enc: u32, regs: u32) -> bool {
    match enc {
        0..=127 => sreg_ok(enc, regs),
        128..=208 | 235..=248 | 251..=253 | LITERAL => true,
        254 => regs == 1,
        _ => false,
    }
}

/// Prints a 7-bit scalar register encoding as LLVM does: a misaligned range aligned down.
fn sreg(out: &mut Line, enc: u32, regs: u32) {
    match enc {
        0..=105 | 108..=123 => {
            scalar_reg(out, enc & !(align(regs) - 1), regs);
        }
        106 if regs > 1 => out.push_str("vcc"),
        126 if regs > 1 => out.push_str("exec"),
        _ => {
            scalar_reg(out, enc, regs);
        }
    }
}

/// The register class LLVM gives an SMEM data or base operand, when it lacks the register `enc` decodes to
/// (LLVM then prints `/*Invalid register, operand has 'CLASS' register class*/` after it).
fn smem_class_lacks(field: Field, enc: u32, regs: u32) -> Option<&'static str> {
    match (field, regs, enc) {
        (Field::Sdata, 1, 124 | 126 | 127) => Some("SReg_32_XM0_XEXEC"),
        (Field::Sdata, 2, 126) => Some("SReg_64_XEXEC"),
        (_, 4, 106 | 126) => Some("SReg_128"),
        (_, 8, 106 | 126) => Some("SReg_256"),
        (_, 16, 106 | 126) => Some("SReg_512"),
        _ => None,
    }
}

/// Prints an 8-bit scalar source.
fn ssrc(out: &mut Line, enc: u32, kind: Kind, literal: Option<u32>) {
    match enc {
        0..=127 => sreg(out, enc, kind_regs(kind)),
        254 => {
            out.push_str("src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/")
        }
        // A register-only operand (s_movrels, s_setpc_b64, s_rfe_b64) still decodes a constant, prints it as
        // a 32-bit immediate whatever its width, and flags it.
        _ => {
            let constant = matches!(enc, 128..=208 | 240..=248 | LITERAL);
            let reg_only = matches!(kind, Kind::R32 | Kind::R64);
            let k = if reg_only && constant {
                Kind::B32
            } else {
                kind_as_value(kind)
            };
            source(out, enc, k, literal);
            if reg_only && constant {
                out.push_str("/*Invalid immediate*/");
            }
        }
    }
}

/// The value kind of a register-only kind (for the special registers it may still name).
fn kind_as_value(kind: Kind) -> Kind {
    match kind {
        Kind::R32 => Kind::B32,
        Kind::R64 => Kind::B64,
        k => k,
    }
}

/// printImmediate32 on an unsigned field: inline integers (0..=64) in decimal, anything else in hex.
fn imm(out: &mut Line, v: u32) {
    if v <= 64 {
        crate::print::push_u32(out, v);
    } else {
        crate::print::push_hex(out, v as u64);
    }
}

/// Prints a scalar instruction. The wave size changes nothing here: LLVM prints the scalar formats' lane masks
/// by their operand width (`vcc_lo` for 32 bits, `vcc` for 64), in wave32 and wave64 alike (measured).
pub(crate) fn print(i: &Instruction, _opts: PrintOptions, out: &mut Line) {
    let e = i.encoding;
    out.push_str(e.mnemonic);
    let w0 = i.word(0);
    let w1 = i.word(1);
    let target = target_of(e);
    let mut first = true;
    for op in e.operands {
        let (f, k) = match *op {
            Operand::Fixed(t) => {
                out.push_str(if first { " " } else { ", " });
                first = false;
                out.push_str(t);
                continue;
            }
            Operand::Field(f, k) => (f, k),
        };
        // Modifiers follow with a space; an omitted operand prints nothing.
        match (f, k) {
            (Field::Cpol, _) => {
                if w0 & (1 << 16) != 0 {
                    out.push_str(" glc");
                }
                if w0 & (1 << 14) != 0 {
                    out.push_str(" dlc");
                }
                continue;
            }
            (_, Kind::Endpgm) if w0 & 0xffff == 0 => continue,
            _ => {}
        }
        out.push_str(if first { " " } else { ", " });
        first = false;
        let simm16 = w0 & 0xffff;
        match (f, k) {
            (Field::Simm16, Kind::Hex) => {
                crate::print::push_hex(out, simm16 as u64);
            }
            (Field::Simm16, Kind::Imm) => imm(out, simm16),
            (Field::Simm16, Kind::Label | Kind::Endpgm) => {
                crate::print::push_u32(out, simm16);
            }
            (Field::Simm16, Kind::Hwreg) => hwreg(out, simm16, target),
            (Field::Simm16, Kind::Waitcnt) => waitcnt(out, simm16),
            (Field::Simm16, Kind::Sendmsg) => sendmsg(out, simm16),
            (Field::Simm16, Kind::Depctr) => depctr(out, simm16, target),
            (Field::Simm16, Kind::Version) => version(out, simm16),
            (Field::Literal, _) => crate::print::literal_value(out, i.literal.unwrap_or(0), k),
            (Field::Sdst, _) => sreg(out, (w0 >> 16) & 0x7f, kind_regs(k)),
            (Field::Ssrc0, _) => ssrc(out, w0 & 0xff, k, i.literal),
            (Field::Ssrc1, _) => ssrc(out, (w0 >> 8) & 0xff, k, i.literal),
            (Field::Sdata, Kind::Imm) => imm(out, sdata(w0)),
            (Field::Sdata | Field::Sbase, _) => {
                let enc = if f == Field::Sdata {
                    sdata(w0)
                } else {
                    sbase(w0)
                };
                sreg(out, enc, kind_regs(k));
                if let Some(class) = smem_class_lacks(f, enc, kind_regs(k)) {
                    let _ = write!(
                        out,
                        "/*Invalid register, operand has '{class}' register class*/"
                    );
                }
            }
            (Field::Offset, _) => smem_offset(out, w1),
            _ => {
                let _ = write!(out, "<{f:?}:{k:?}>");
            }
        }
    }
}

/// The sub-target whose names a row prints: the slots whose printing differs between sub-targets (hwreg and
/// depctr names) have one row for gfx1030 and one for gfx1010/gfx1013.
fn target_of(e: &Encoding) -> Target {
    if e.targets.contains(Target::Gfx1030) {
        Target::Gfx1030
    } else {
        Target::Gfx1010
    }
}

/// SMEM offset operands: an immediate offset alone when soffset is null, the soffset register alone when the
/// offset is zero (`null` when both are), else both (`s2 offset:0x10`). The offset is 21-bit signed.
fn smem_offset(out: &mut Line, w1: u32) {
    let offset = ((w1 << 11) as i32) >> 11;
    let soffset = w1 >> 25;
    let hex = |out: &mut Line, v: i32| {
        if v < 0 {
            out.push('-');
        }
        crate::print::push_hex(out, v.unsigned_abs() as u64);
    };
    if soffset == 125 && offset != 0 {
        hex(out, offset);
    } else {
        sreg(out, soffset, 1);
        if offset != 0 {
            out.push_str(" offset:");
            hex(out, offset);
        }
    }
}

/// `hwreg(NAME)` or `hwreg(NAME, offset, size)` (the id in decimal when it has no name on this sub-target).
fn hwreg(out: &mut Line, v: u32, target: Target) {
    let id = v & 0x3f;
    let offset = (v >> 6) & 0x1f;
    let size = ((v >> 11) & 0x1f) + 1;
    let name = match id {
        1 => Some("HW_REG_MODE"),
        2 => Some("HW_REG_STATUS"),
        3 => Some("HW_REG_TRAPSTS"),
        5 => Some("HW_REG_GPR_ALLOC"),
        6 => Some("HW_REG_LDS_ALLOC"),
        7 => Some("HW_REG_IB_STS"),
        15 => Some("HW_REG_SH_MEM_BASES"),
        16 => Some("HW_REG_TBA_LO"),
        17 => Some("HW_REG_TBA_HI"),
        18 => Some("HW_REG_TMA_LO"),
        19 => Some("HW_REG_TMA_HI"),
        20 => Some("HW_REG_FLAT_SCR_LO"),
        21 => Some("HW_REG_FLAT_SCR_HI"),
        22 if target != Target::Gfx1030 => Some("HW_REG_XNACK_MASK"),
        23 => Some("HW_REG_HW_ID1"),
        24 => Some("HW_REG_HW_ID2"),
        25 => Some("HW_REG_POPS_PACKER"),
        29 if target == Target::Gfx1030 => Some("HW_REG_SHADER_CYCLES"),
        _ => None,
    };
    out.push_str("hwreg(");
    match name {
        Some(n) => out.push_str(n),
        None => {
            let _ = write!(out, "{id}");
        }
    }
    if offset != 0 || size != 32 {
        let _ = write!(out, ", {offset}, {size}");
    }
    out.push(')');
}

/// `vmcnt(n) expcnt(n) lgkmcnt(n)`, leaving out counters at their maximum unless all are.
fn waitcnt(out: &mut Line, v: u32) {
    let vm = (v & 0xf) | ((v >> 14) & 3) << 4;
    let exp = (v >> 4) & 7;
    let lgkm = (v >> 8) & 0x3f;
    let all = vm == 0x3f && exp == 7 && lgkm == 0x3f;
    let mut parts = Vec::with_capacity(3);
    if vm != 0x3f || all {
        parts.push(format!("vmcnt({vm})"));
    }
    if exp != 7 || all {
        parts.push(format!("expcnt({exp})"));
    }
    if lgkm != 0x3f || all {
        parts.push(format!("lgkmcnt({lgkm})"));
    }
    out.push_str(&parts.join(" "));
}

/// `sendmsg(MSG, OP, stream)` when LLVM knows the message and its operation, else `sendmsg(id, op, stream)`
/// when it re-encodes to the same bits (none set outside id, op and stream), else the number.
fn sendmsg(out: &mut Line, v: u32) {
    let id = v & 0xf;
    let op = (v >> 4) & 7;
    let stream = (v >> 8) & 3;
    let name = match id {
        1 => Some("MSG_INTERRUPT"),
        2 => Some("MSG_GS"),
        3 => Some("MSG_GS_DONE"),
        4 => Some("MSG_SAVEWAVE"),
        5 => Some("MSG_STALL_WAVE_GEN"),
        6 => Some("MSG_HALT_WAVES"),
        7 => Some("MSG_ORDERED_PS_DONE"),
        8 => Some("MSG_EARLY_PRIM_DEALLOC"),
        9 => Some("MSG_GS_ALLOC_REQ"),
        10 => Some("MSG_GET_DOORBELL"),
        11 => Some("MSG_GET_DDID"),
        15 => Some("MSG_SYSMSG"),
        _ => None,
    };
    const GS_OPS: [&str; 4] = ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"];
    const SYS_OPS: [&str; 5] = [
        "",
        "SYSMSG_OP_ECC_ERR_INTERRUPT",
        "SYSMSG_OP_REG_RD",
        "SYSMSG_OP_HOST_TRAP_ACK",
        "SYSMSG_OP_TTRACE_PC",
    ];
    let symbolic = match (name, id) {
        (None, _) => None,
        // GS messages: an operation; a stream except for GS_DONE's NOP (MSG_GS has no NOP).
        (Some(n), 2 | 3) => {
            let op_ok = op <= 3 && !(id == 2 && op == 0);
            let stream_ok = op != 0 || stream == 0;
            (op_ok && stream_ok).then(|| {
                if op == 0 {
                    format!("{n}, {}", GS_OPS[0])
                } else {
                    format!("{n}, {}, {stream}", GS_OPS[op as usize])
                }
            })
        }
        // SYSMSG_OP_HOST_TRAP_ACK (3) exists before gfx9 only.
        (Some(n), 15) => (matches!(op, 1 | 2 | 4) && stream == 0)
            .then(|| format!("{n}, {}", SYS_OPS[op as usize])),
        (Some(n), _) => (op == 0 && stream == 0).then(|| n.to_string()),
    };
    match symbolic {
        Some(s) => {
            let _ = write!(out, "sendmsg({s})");
        }
        None if v & !0x37f == 0 => {
            let _ = write!(out, "sendmsg({id}, {op}, {stream})");
        }
        None => {
            let _ = write!(out, "{v}");
        }
    }
}

/// s_waitcnt_depctr: the named counters (only those not at their default, or all when every one is), or
/// hex when a bit outside the counters is set.
fn depctr(out: &mut Line, v: u32, target: Target) {
    // (name, shift, width, default), in LLVM's order.
    const FIELDS: [(&str, u32, u32, u32); 7] = [
        ("depctr_hold_cnt", 7, 1, 1),
        ("depctr_sa_sdst", 0, 1, 1),
        ("depctr_va_vdst", 12, 4, 0xf),
        ("depctr_va_sdst", 9, 3, 7),
        ("depctr_va_ssrc", 8, 1, 1),
        ("depctr_va_vcc", 1, 1, 1),
        ("depctr_vm_vsrc", 2, 3, 7),
    ];
    let fields = FIELDS
        .iter()
        .filter(|f| f.0 != "depctr_hold_cnt" || target == Target::Gfx1030);
    let used: u32 = fields.clone().map(|f| ((1 << f.2) - 1) << f.1).sum();
    if v & !used != 0 {
        let _ = write!(out, "0x{v:x}");
        return;
    }
    let val = |f: &(&str, u32, u32, u32)| (v >> f.1) & ((1 << f.2) - 1);
    let any_non_default = fields.clone().any(|f| val(f) != f.3);
    let parts: Vec<String> = fields
        .filter(|f| !any_non_default || val(f) != f.3)
        .map(|f| format!("{}({})", f.0, val(f)))
        .collect();
    out.push_str(&parts.join(" "));
}

/// s_version: LLVM decodes the code into an expression (a named GFX version or the number, or-ed with the
/// wave-size and MDP flag symbols, nested left to right); with any other bit set it prints hex.
fn version(out: &mut Line, v: u32) {
    const FLAGS: [(u32, &str); 3] = [
        (1 << 13, "UC_VERSION_W64_BIT"),
        (1 << 14, "UC_VERSION_W32_BIT"),
        (1 << 15, "UC_VERSION_MDP_BIT"),
    ];
    if v & 0x1f00 != 0 {
        let _ = write!(out, "0x{v:x}");
        return;
    }
    let mut expr = match v & 0xff {
        0 => "UC_VERSION_GFX7".to_string(),
        4 => "UC_VERSION_GFX10".to_string(),
        6 => "UC_VERSION_GFX11".to_string(),
        9 => "UC_VERSION_GFX12".to_string(),
        n => n.to_string(),
    };
    let mut nested = false;
    for (bit, name) in FLAGS {
        if v & bit != 0 {
            expr = if nested {
                format!("({expr})|{name}")
            } else {
                format!("{expr}|{name}")
            };
            nested = true;
        }
    }
    out.push_str(&expr);
}

/// SOPP branches whose simm16 is a relative word offset.
pub(crate) fn is_branch(e: &Encoding) -> bool {
    e.mnemonic == "s_branch" || e.mnemonic.starts_with("s_cbranch_")
}

#[cfg(test)]
mod tests {
    //! Expected texts are llvm-mc-19's, e.g.
    //! `echo '[0x02,0x00,0x04,0xf4,0x00,0x00,0x00,0xfa]' | llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 --disassemble`
    //! (the s_version case is llvm-objdump-19's: llvm-mc prints that operand as plain hex, the C API and
    //! llvm-objdump print LLVM's symbolic expression).
    use crate::decode::{decode, DecodeError};
    use crate::print::PrintOptions;
    use crate::table::Target;

    fn text_on(target: Target, words: &[u32]) -> (usize, String) {
        let i = decode(words, target).unwrap_or_else(|e| panic!("{words:08x?}: {e}"));
        (i.len(), i.text(PrintOptions::default()))
    }

    fn text(words: &[u32]) -> (usize, String) {
        text_on(Target::Gfx1030, words)
    }

    fn one(target: Target, words: &[u32], expected: &str) {
        let (len, t) = text_on(target, words);
        assert_eq!(t, expected, "{words:08x?} on {target:?}");
        assert_eq!(len, words.len(), "{words:08x?} on {target:?}");
    }

    #[test]
    fn smem() {
        let t = Target::Gfx1030;
        one(
            t,
            &[0xf404_0002, 0xfa00_0000],
            "s_load_dwordx2 s[0:1], s[4:5], null",
        );
        one(
            t,
            &[0xf400_0002, 0xfa00_0024],
            "s_load_dword s0, s[4:5], 0x24",
        );
        one(
            t,
            &[0xf42b_4102, 0x0500_0010],
            "s_buffer_load_dwordx4 s[4:7], s[4:7], s2 offset:0x10 glc dlc",
        );
        one(
            t,
            &[0xf400_0002, 0xfa1f_ffff],
            "s_load_dword s0, s[4:5], -0x1",
        );
        one(t, &[0xf490_0102, 0x1234_5678], "s_memtime s[4:5]");
        one(t, &[0xf480_0000, 0], "s_dcache_inv");
        one(t, &[0xf47c_0000, 0], "s_gl1_inv");
        // s_dcache_wb and the scalar stores exist on gfx1010 only.
        one(Target::Gfx1010, &[0xf484_0000, 0], "s_dcache_wb");
        assert!(matches!(
            decode(&[0xf484_0000, 0], t),
            Err(DecodeError::Invalid { .. })
        ));
        // SMEM is always two words.
        assert!(matches!(
            decode(&[0xf400_0002], t),
            Err(DecodeError::Truncated { needed: 2, .. })
        ));
    }

    #[test]
    fn sopp() {
        let t = Target::Gfx1030;
        one(t, &[0xbf8c_c07f], "s_waitcnt lgkmcnt(0)");
        one(t, &[0xbf8c_3f70], "s_waitcnt vmcnt(0)");
        one(t, &[0xbf8c_0000], "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)");
        one(
            t,
            &[0xbf8c_ff7f],
            "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(63)",
        );
        one(
            t,
            &[0xbf90_0123],
            "s_sendmsg sendmsg(MSG_GS_DONE, GS_OP_EMIT, 1)",
        );
        one(
            t,
            &[0xbf90_0022],
            "s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 0)",
        );
        one(
            t,
            &[0xbf90_0003],
            "s_sendmsg sendmsg(MSG_GS_DONE, GS_OP_NOP)",
        );
        one(t, &[0xbf90_003f], "s_sendmsg sendmsg(15, 3, 0)");
        one(t, &[0xbf90_00bf], "s_sendmsg 191");
        one(t, &[0xbf89_fff7], "s_cbranch_execnz 65527");
        one(t, &[0xbf81_0000], "s_endpgm");
        one(t, &[0xbf81_0001], "s_endpgm 1");
        one(t, &[0xbf9f_0000], "s_code_end");
        one(t, &[0xbfa1_0001], "s_clause 0x1");
        one(t, &[0xbfa0_0003], "s_inst_prefetch 0x3");
        one(t, &[0xbf80_0001], "s_nop 1");
        one(t, &[0xbf80_8123], "s_nop 0x8123");
        one(t, &[0xbfa5_0003], "s_denorm_mode 3");
        one(t, &[0xbf8a_0000], "s_barrier");
        // An instruction without operands needs simm16 = 0.
        assert!(matches!(
            decode(&[0xbf8a_0001], t),
            Err(DecodeError::Invalid { .. })
        ));
        // depctr: gfx1030 has depctr_hold_cnt (bit 7); bits 6:5 belong to no counter.
        one(t, &[0xbfa3_ffe3], "s_waitcnt_depctr 0xffe3");
        one(t, &[0xbfa3_0f9f], "s_waitcnt_depctr depctr_va_vdst(0)");
        one(
            t,
            &[0xbfa3_0000],
            "s_waitcnt_depctr depctr_hold_cnt(0) depctr_sa_sdst(0) depctr_va_vdst(0) depctr_va_sdst(0) \
             depctr_va_ssrc(0) depctr_va_vcc(0) depctr_vm_vsrc(0)",
        );
        one(Target::Gfx1010, &[0xbfa3_0f9f], "s_waitcnt_depctr 0xf9f");
        one(
            Target::Gfx1010,
            &[0xbfa3_0f1f],
            "s_waitcnt_depctr depctr_va_vdst(0)",
        );
    }

    #[test]
    fn sopk() {
        let t = Target::Gfx1030;
        one(
            t,
            &[0xb905_7c1d],
            "s_getreg_b32 s5, hwreg(HW_REG_SHADER_CYCLES, 16, 16)",
        );
        one(
            Target::Gfx1010,
            &[0xb905_7c1d],
            "s_getreg_b32 s5, hwreg(29, 16, 16)",
        );
        one(t, &[0xb905_f816], "s_getreg_b32 s5, hwreg(22)");
        one(
            Target::Gfx1010,
            &[0xb905_f816],
            "s_getreg_b32 s5, hwreg(HW_REG_XNACK_MASK)",
        );
        one(
            t,
            &[0xba80_0801, 0x1234_5678],
            "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), 0x12345678",
        );
        assert!(matches!(
            decode(&[0xba80_0801], t),
            Err(DecodeError::Truncated { needed: 2, .. })
        ));
        one(t, &[0xbba4_8123], "s_waitcnt_vscnt s36, 0x8123");
        one(t, &[0xbb04_8123], "s_call_b64 s[4:5], 33059");
        // llvm-objdump-19 (see the module comment).
        one(
            t,
            &[0xb080_6004],
            "s_version (UC_VERSION_GFX10|UC_VERSION_W64_BIT)|UC_VERSION_W32_BIT",
        );
    }

    #[test]
    fn sop1_sop2_sopc() {
        let t = Target::Gfx1030;
        one(t, &[0xbe84_1f00], "s_getpc_b64 s[4:5]");
        one(t, &[0xbe80_20c1], "s_setpc_b64 -1/*Invalid immediate*/");
        one(t, &[0xbe80_04f8], "s_mov_b64 s[0:1], 0.15915494309189532");
        one(t, &[0xbe80_04ff, 0x40], "s_mov_b64 s[0:1], 64");
        one(t, &[0xbe82_03ff, 0x3f80_0000], "s_mov_b32 s2, 1.0");
        one(
            t,
            &[0xbe80_03fe],
            "s_mov_b32 s0, src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/",
        );
        one(t, &[0xbf0c_ff80, 2], "s_bitcmp0_b32 0, 2");
        // Both sources read the same literal.
        one(t, &[0xbf12_ffff, 1], "s_cmp_eq_u64 1, 1");
        one(t, &[0x8000_7f80], "s_add_u32 s0, 0, exec_hi");
        // Misaligned pairs print aligned down (LLVM only warns, in its comment stream).
        one(t, &[0x87c9_572d], "s_and_b64 s[72:73], s[44:45], s[86:87]");
        assert_eq!(text(&[0xbe80_03ff, 5, 6]), (2, "s_mov_b32 s0, 5".into()));
        // Reserved source encodings and wrong-width special registers are invalid, as in LLVM.
        for w in [0x990c_d70b_u32, 0xbeff_0400, 0xbe80_047c] {
            assert!(
                matches!(decode(&[w], t), Err(DecodeError::Invalid { .. })),
                "{w:08x}"
            );
        }
        assert!(matches!(
            decode(&[0xbe80_03ff], t),
            Err(DecodeError::Truncated { needed: 2, .. })
        ));
    }
}
