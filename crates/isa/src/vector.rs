//! Vector ALU formats: VOP1, VOP2, VOPC, VOP3 (incl. VOP3b), VOP3P, with DPP16/DPP8/SDWA.
//!
//! Which modifier bits exist, which bits LLVM ignores and which variants (DPP16, DPP8, SDWA) an opcode has are
//! facts of the table (`+flag` tokens in opcodes.txt, probed from LLVM-19 with `examples/vopprobe.rs`); this
//! module only knows the field layout of each format and LLVM's printing conventions.

use crate::decode::{need, slot_facts, DecodeError, Instruction, Variant};
use crate::generated::{Field, Kind};
use crate::print::{lane_mask_reg, push_hex, push_u32, vector_source, Line, PrintOptions};
use crate::table::{Encoding, Format, Operand, RowFacts, Target};
use std::fmt::Write as _;

fn invalid(w0: u32, reason: &'static str) -> DecodeError {
    DecodeError::Invalid { word: w0, reason }
}

fn has_field(e: &Encoding, f: Field) -> bool {
    e.operands
        .iter()
        .any(|o| matches!(o, Operand::Field(x, _) if *x == f))
}

pub(crate) fn decode(
    format: Format,
    words: &[u32],
    target: Target,
) -> Result<Instruction, DecodeError> {
    let (i, fx) = decode_fields(format, words, target)?;
    if !operands_ok(i.encoding, fx, i.words(), i.variant) {
        return Err(invalid(
            words[0],
            "operand register out of range for its width",
        ));
    }
    Ok(i)
}

#[inline]
fn decode_fields(
    format: Format,
    words: &[u32],
    target: Target,
) -> Result<(Instruction, &'static RowFacts), DecodeError> {
    let w0 = words[0];
    let op = match format {
        Format::VOP1 => (w0 >> 9) & 0xff,
        Format::VOP2 => (w0 >> 25) & 0x3f,
        Format::VOPC => (w0 >> 17) & 0xff,
        Format::VOP3 => (w0 >> 16) & 0x3ff,
        _ => (w0 >> 16) & 0x7f,
    };
    let (e, fx) = slot_facts(format, op, target, w0)?;
    match format {
        Format::VOP3 | Format::VOP3P => decode_vop3(format, e, fx, words),
        _ => decode_vop12c(format, e, fx, words),
    }
    .map(|i| (i, fx))
}

fn decode_vop12c(
    format: Format,
    e: &'static Encoding,
    fx: &RowFacts,
    words: &[u32],
) -> Result<Instruction, DecodeError> {
    let w0 = words[0];
    let src0 = w0 & 0x1ff;
    if format == Format::VOP1 && e.operands.is_empty() {
        // v_nop, v_pipeflush, v_clrexcp: LLVM ignores src0 (even 0xff takes no literal) but insists on a zero
        // vdst field.
        if w0 & 0x01fe_0000 != 0 {
            return Err(invalid(
                w0,
                "vdst field of an operand-less VOP1 must be zero",
            ));
        }
        return Ok(Instruction::new(e, Variant::Plain, &words[..1], None));
    }
    if format == Format::VOP2 && e.operands.is_empty() {
        // v_illegal: LLVM decodes exactly the all-zero word.
        if w0 != 0 {
            return Err(invalid(
                w0,
                "VOP2 opcode 0 is only v_illegal, the all-zero word",
            ));
        }
        return Ok(Instruction::new(e, Variant::Plain, &words[..1], None));
    }
    let has_k = fx.has(Field::Lit);
    let variant = match src0 {
        0xfa if !has_k => Variant::Dpp16,
        0xe9 | 0xea if !has_k => Variant::Dpp8,
        0xf9 if !has_k => Variant::Sdwa,
        _ => Variant::Plain,
    };
    match variant {
        Variant::Plain => {
            if bad_source(src0) {
                return Err(invalid(w0, "reserved source encoding"));
            }
            // v_readfirstlane_b32's destination field decodes like a source: 255 takes the literal too.
            let sdst_lit = fx.has(Field::Sdst) && (w0 >> 17) & 0xff == 0xff;
            let lit = src0 == 0xff || has_k || sdst_lit;
            let n = 1 + lit as usize;
            need(format, words, n)?;
            Ok(Instruction::new(
                e,
                Variant::Plain,
                &words[..n],
                lit.then(|| words[1]),
            ))
        }
        Variant::Dpp16 => {
            let Some([negabs, _]) = e.mods.dpp else {
                return Err(invalid(w0, "no DPP form of this opcode"));
            };
            need(format, words, 2)?;
            let w1 = words[1];
            if (w1 >> 20) & 0xf & !negabs != 0 {
                return Err(invalid(w0, "DPP neg/abs on an operand without modifiers"));
            }
            Ok(Instruction::new(e, variant, &words[..2], None))
        }
        Variant::Dpp8 => {
            if !e.mods.dpp8 {
                return Err(invalid(w0, "no DPP8 form of this opcode"));
            }
            need(format, words, 2)?;
            Ok(Instruction::new(e, variant, &words[..2], None))
        }
        Variant::Sdwa => {
            let Some([mask, _]) = e.mods.sdwa else {
                return Err(invalid(w0, "no SDWA form of this opcode"));
            };
            need(format, words, 2)?;
            let w1 = words[1];
            let sels = match format {
                Format::VOP1 => 0x0007_1f00,
                Format::VOP2 => 0x0707_1f00,
                _ => 0x0707_0000,
            };
            if w1 & 0xffff_ff00 & !(mask | sels) != 0 {
                return Err(invalid(w0, "SDWA bits this opcode does not have"));
            }
            let bad_sel = |v: u32| v > 6;
            let bad = match format {
                Format::VOP1 => bad_sel((w1 >> 8) & 7) || bad_sel((w1 >> 16) & 7),
                Format::VOP2 => {
                    bad_sel((w1 >> 8) & 7) || bad_sel((w1 >> 16) & 7) || bad_sel((w1 >> 24) & 7)
                }
                _ => bad_sel((w1 >> 16) & 7) || bad_sel((w1 >> 24) & 7),
            };
            if bad || (format != Format::VOPC && (w1 >> 11) & 3 == 3) {
                return Err(invalid(w0, "reserved SDWA select"));
            }
            Ok(Instruction::new(e, variant, &words[..2], None))
        }
    }
}

/// Source encodings no operand may hold (LLVM rejects the instruction).
fn bad_source(enc: u32) -> bool {
    matches!(enc, 209..=234 | 249 | 250)
}

fn decode_vop3(
    format: Format,
    e: &'static Encoding,
    fx: &RowFacts,
    words: &[u32],
) -> Result<Instruction, DecodeError> {
    let w0 = words[0];
    need(format, words, 2)?;
    let w1 = words[1];
    let m = &e.mods;
    let has = |f: Field| fx.has(f);
    // Modifier bits that exist, per word.
    let (mut ok0, mut ok1) = if format == Format::VOP3 {
        (
            ((m.abs as u32) << 8) | ((m.opsel as u32) << 11) | ((m.clamp as u32) << 15),
            ((m.omod as u32 * 3) << 27) | ((m.neg as u32) << 29),
        )
    } else {
        (
            ((m.neg_hi as u32) << 8)
                | ((m.opsel as u32) << 11)
                | (((m.opsel_hi as u32 >> 2) & 1) << 14)
                | ((m.clamp as u32) << 15),
            (((m.opsel_hi as u32) & 3) << 27) | ((m.neg as u32) << 29),
        )
    };
    ok0 |= m.ignore[0];
    ok1 |= m.ignore[1];
    if has(Field::Vdst) || has(Field::Sdst) {
        ok0 |= 0xff;
    }
    if has(Field::Sdst2) {
        ok0 |= 0x7f00;
    }
    if format == Format::VOP3P {
        // Bits 23..25 of a VOP3P word are not part of the opcode.
        if w0 & 0x0380_0000 != 0 {
            return Err(invalid(w0, "VOP3P reserved bits set"));
        }
    }
    if w0 & 0xffff & !ok0 != 0 {
        return Err(invalid(w0, "VOP3 modifier bits this opcode does not have"));
    }
    let srcs = [Field::Src0, Field::Src1, Field::Src2];
    for (i, f) in srcs.iter().enumerate() {
        if has(*f) {
            ok1 |= 0x1ff << (9 * i);
        }
    }
    let interp = has(Field::Attr);
    if interp {
        // src0 holds attr (bits 0..5) and channel (6..7); bit 8 is `high` where the instruction has it.
        ok1 |= if has(Field::High) { 0x1ff } else { 0xff };
        if has(Field::Param) {
            ok1 |= 0x1ff << 9;
        }
    }
    if w1 & !ok1 != 0 {
        return Err(invalid(
            w0,
            "VOP3 source or modifier bits this opcode does not have",
        ));
    }
    for (i, f) in srcs.iter().enumerate() {
        if has(*f) && bad_source((w1 >> (9 * i)) & 0x1ff) {
            return Err(invalid(w0, "reserved source encoding"));
        }
    }
    let lit = srcs
        .iter()
        .enumerate()
        .any(|(i, f)| has(*f) && (w1 >> (9 * i)) & 0x1ff == 0xff)
        // An SGPR destination field decodes like a source: 255 takes the literal too.
        || (has(Field::Sdst) && w0 & 0xff == 0xff);
    let n = 2 + lit as usize;
    need(format, words, n)?;
    Ok(Instruction::new(
        e,
        Variant::Plain,
        &words[..n],
        lit.then(|| words[2]),
    ))
}

const SEL: [&str; 7] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
];
const UNUSED: [&str; 3] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"];

/// Source modifiers of one operand.
#[derive(Default, Clone, Copy)]
struct SrcMods {
    neg: bool,
    abs: bool,
    sext: bool,
}

/// Prints one source operand with its modifiers as LLVM does: `-x`, `|x|`, `-|x|`, `neg(imm)`, `sext(x)`.
fn print_src(out: &mut Line, enc: u32, kind: Kind, lit: Option<u32>, m: SrcMods, wave64: bool) {
    print_src_with(out, enc, kind, lit, m, wave64, None)
}

/// [`print_src`], with the literal given raw (`unshifted`) when LLVM's decoder hands this operand the 32-bit
/// value instead of its literal class's (an f64 operand after a 32-bit one took the literal: it prints as its
/// high half, a small integer or `0x0`).
fn print_src_with(
    out: &mut Line,
    enc: u32,
    kind: Kind,
    lit: Option<u32>,
    m: SrcMods,
    wave64: bool,
    unshifted: Option<u32>,
) {
    let imm =
        (128..256).contains(&enc) && !(235..=239).contains(&enc) && !(251..=254).contains(&enc);
    let neg_fn = m.neg && !m.abs && imm;
    if m.neg {
        out.push_str(if neg_fn { "neg(" } else { "-" });
    }
    if m.abs {
        out.push('|');
    }
    if m.sext {
        out.push_str("sext(");
    }
    match unshifted {
        Some(l) if enc == 255 && l <= 64 => push_u32(out, l),
        Some(_) if enc == 255 => out.push_str("0x0"),
        _ => vector_source(out, enc, kind, lit, wave64),
    }
    if m.sext {
        out.push(')');
    }
    if m.abs {
        out.push('|');
    }
    if neg_fn {
        out.push(')');
    }
}

pub(crate) fn print(i: &Instruction, opts: PrintOptions, out: &mut Line) {
    match i.format() {
        Format::VOP3 => print_vop3(i, opts, out),
        Format::VOP3P => print_vop3p(i, opts, out),
        _ => print_vop12c(i, opts, out),
    }
}

/// Whether a source encoding is a valid operand of `n` registers (LLVM rejects tuples that run past v255, and
/// 64-bit operands on registers without a pair: vcc_hi, m0, exec_hi, lds_direct).
fn source_ok_n(enc: u32, n: u32) -> bool {
    if bad_source(enc) {
        return false;
    }
    if enc >= 256 {
        return enc - 256 + n <= 256;
    }
    // SGPR/TTMP tuples are aligned down (to 2, or 4 for wider ones) and must fit their file.
    let align = if n >= 4 { 4 } else { 2 };
    if n >= 2 && enc < 106 && enc - enc % align + n > 106 {
        return false;
    }
    if n >= 2 && (108..124).contains(&enc) && enc - 108 - (enc - 108) % align + n > 16 {
        return false;
    }
    !(n >= 2 && matches!(enc, 107 | 124 | 127 | 254))
}

/// Checks every register operand of a decoded instruction against LLVM's constraints (the row's fields and
/// widths from its precomputed facts: a field appears at most once per row).
#[inline]
fn operands_ok(e: &Encoding, fx: &RowFacts, words: &[u32], variant: Variant) -> bool {
    let w0 = words[0];
    let w1 = words.get(1).copied().unwrap_or(0);
    let vop3 = matches!(e.format, Format::VOP3 | Format::VOP3P);
    let dst = if vop3 { w0 & 0xff } else { (w0 >> 17) & 0xff };
    if fx.has(Field::Vdst) && dst + fx.regs(Field::Vdst) > 256 {
        return false;
    }
    if fx.has(Field::Sdst) && bad_source(dst) {
        return false;
    }
    if fx.has(Field::Vsrc1) {
        let n = fx.regs(Field::Vsrc1);
        let v = (w0 >> 9) & 0xff;
        let ok = if variant == Variant::Sdwa && w1 & (1 << 31) != 0 {
            source_ok_n(v, n) && v != 255
        } else {
            v + n <= 256
        };
        if !ok {
            return false;
        }
    }
    if fx.has(Field::Src0) {
        let n = fx.regs(Field::Src0);
        let ok = if vop3 {
            source_ok_n(w1 & 0x1ff, n)
        } else {
            match variant {
                Variant::Plain => source_ok_n(w0 & 0x1ff, n),
                Variant::Sdwa if w1 & (1 << 23) != 0 => {
                    source_ok_n(w1 & 0xff, n) && w1 & 0xff != 255
                }
                _ => (w1 & 0xff) + n <= 256,
            }
        };
        if !ok {
            return false;
        }
    }
    (!fx.has(Field::Src1) || source_ok_n((w1 >> 9) & 0x1ff, fx.regs(Field::Src1)))
        && (!fx.has(Field::Src2) || source_ok_n((w1 >> 18) & 0x1ff, fx.regs(Field::Src2)))
}

fn base_mnemonic(e: &Encoding) -> &'static str {
    e.mnemonic.strip_suffix("_e32").unwrap_or(e.mnemonic)
}

fn print_vop12c(i: &Instruction, opts: PrintOptions, out: &mut Line) {
    let e = i.encoding;
    let (w0, w1) = (i.word(0), i.word(1));
    let wave64 = opts.wave64;
    match i.variant {
        Variant::Plain => out.push_str(e.mnemonic),
        Variant::Dpp16 | Variant::Dpp8 => {
            out.push_str(base_mnemonic(e));
            out.push_str("_dpp");
        }
        Variant::Sdwa => {
            out.push_str(base_mnemonic(e));
            out.push_str("_sdwa");
        }
    }
    let dst_shift = 17;
    for (n, op) in e.operands.iter().enumerate() {
        out.push_str(if n == 0 { " " } else { ", " });
        match *op {
            Operand::Fixed(t) => {
                if t == "vcc lo" {
                    out.push_str(if wave64 { "vcc" } else { "vcc_lo" });
                } else {
                    out.push_str(t);
                }
            }
            Operand::Field(f, k) => match f {
                // The DPP/SDWA forms take any source the encoding can name: no register-class annotations.
                _ if i.variant != Variant::Plain
                    && matches!(k, Kind::V | Kind::Vl)
                    && f == Field::Src0 =>
                {
                    print_variant_src0(i, Kind::B32, wave64, out)
                }
                Field::Vdst => crate::print::reg_range(
                    out,
                    "v",
                    (w0 >> dst_shift) & 0xff,
                    crate::print::kind_regs(k),
                ),
                Field::Sdst => {
                    // v_readfirstlane_b32: the VGPR destination field holds an SGPR-file register.
                    vector_source(out, (w0 >> dst_shift) & 0xff, k, i.literal, wave64)
                }
                // The K constant of v_fmamk/v_fmaak/v_madmk/v_madak prints as the raw 32-bit literal.
                Field::Lit => {
                    push_hex(out, i.literal.unwrap_or(0) as u64);
                }
                Field::Vsrc1 => {
                    let v = (w0 >> 9) & 0xff;
                    match i.variant {
                        Variant::Sdwa => {
                            let p = sdwa_printed(e) & w1;
                            let m = SrcMods {
                                sext: p & (1 << 27) != 0,
                                neg: p & (1 << 28) != 0,
                                abs: p & (1 << 29) != 0,
                            };
                            let enc = if w1 & (1 << 31) != 0 { v } else { 256 + v };
                            print_src(out, enc, k, None, m, wave64);
                        }
                        Variant::Dpp16 => {
                            let m = dpp_mods(e, w1, 1);
                            print_src(out, 256 + v, k, None, m, wave64);
                        }
                        _ => crate::print::reg_range(out, "v", v, crate::print::kind_regs(k)),
                    }
                }
                Field::Src0 => print_variant_src0(i, k, wave64, out),
                _ => {}
            },
        }
    }
    print_vop12c_suffix(i, opts, out);
}

fn print_variant_src0(i: &Instruction, k: Kind, wave64: bool, out: &mut Line) {
    let e = i.encoding;
    let (w0, w1) = (i.word(0), i.word(1));
    match i.variant {
        Variant::Plain => vector_source(out, w0 & 0x1ff, k, i.literal, wave64),
        Variant::Dpp8 => vector_source(out, 256 + (w1 & 0xff), k, None, wave64),
        Variant::Dpp16 => {
            let m = dpp_mods(e, w1, 0);
            print_src(out, 256 + (w1 & 0xff), k, None, m, wave64);
        }
        Variant::Sdwa => {
            let p = sdwa_printed(e) & w1;
            let m = SrcMods {
                sext: p & (1 << 19) != 0,
                neg: p & (1 << 20) != 0,
                abs: p & (1 << 21) != 0,
            };
            let enc = if w1 & (1 << 23) != 0 {
                w1 & 0xff
            } else {
                256 + (w1 & 0xff)
            };
            print_src(out, enc, k, None, m, wave64);
        }
    }
}

fn print_vop12c_suffix(i: &Instruction, opts: PrintOptions, out: &mut Line) {
    let e = i.encoding;
    let (w0, w1) = (i.word(0), i.word(1));
    let wave64 = opts.wave64;
    // VOPC SDWA: the destination is sdst (bit 15 set) or VCC, printed in place of the fixed vcc_lo.
    match i.variant {
        Variant::Plain => {}
        Variant::Dpp8 => {
            out.push_str(" dpp8:[");
            for l in 0..8 {
                if l > 0 {
                    out.push(',');
                }
                push_u32(out, (w1 >> (8 + 3 * l)) & 7);
            }
            out.push(']');
            if w0 & 0x1ff == 0xea {
                out.push_str(" fi:1");
            }
        }
        Variant::Dpp16 => {
            let c = (w1 >> 8) & 0x1ff;
            match c {
                0x000..=0x0ff => {
                    out.push_str(" quad_perm:[");
                    for q in 0..4 {
                        if q > 0 {
                            out.push(',');
                        }
                        push_u32(out, (c >> (2 * q)) & 3);
                    }
                    out.push(']');
                }
                0x101..=0x10f => {
                    out.push_str(" row_shl:");
                    push_u32(out, c - 0x100);
                }
                0x111..=0x11f => {
                    out.push_str(" row_shr:");
                    push_u32(out, c - 0x110);
                }
                0x121..=0x12f => {
                    out.push_str(" row_ror:");
                    push_u32(out, c - 0x120);
                }
                0x140 => out.push_str(" row_mirror"),
                0x141 => out.push_str(" row_half_mirror"),
                0x150..=0x15f => {
                    out.push_str(" row_share:");
                    push_u32(out, c - 0x150);
                }
                0x160..=0x16f => {
                    out.push_str(" row_xmask:");
                    push_u32(out, c - 0x160);
                }
                0x130 => out.push_str(" /* wave_shl is not supported starting from GFX10 */"),
                0x134 => out.push_str(" /* wave_rol is not supported starting from GFX10 */"),
                0x138 => out.push_str(" /* wave_shr is not supported starting from GFX10 */"),
                0x13c => out.push_str(" /* wave_ror is not supported starting from GFX10 */"),
                0x142 | 0x143 => {
                    out.push_str(" /* row_bcast is not supported starting from GFX10 */")
                }
                _ => out.push_str(" /* Invalid dpp_ctrl value */"),
            }
            out.push_str(" row_mask:");
            push_hex(out, (w1 >> 28) as u64);
            out.push_str(" bank_mask:");
            push_hex(out, ((w1 >> 24) & 0xf) as u64);
            if w1 & (1 << 19) != 0 {
                out.push_str(" bound_ctrl:1");
            }
            if w1 & (1 << 18) != 0 {
                out.push_str(" fi:1");
            }
        }
        Variant::Sdwa => {
            let p = sdwa_printed(e) & w1;
            if p & (1 << 13) != 0 {
                out.push_str(" clamp");
            }
            if e.format != Format::VOPC {
                omod(out, (p >> 14) & 3);
                out.push_str(" dst_sel:");
                out.push_str(SEL[((w1 >> 8) & 7) as usize]);
                out.push_str(" dst_unused:");
                out.push_str(UNUSED[((w1 >> 11) & 3) as usize]);
            }
            out.push_str(" src0_sel:");
            out.push_str(SEL[((w1 >> 16) & 7) as usize]);
            if e.format != Format::VOP1 {
                out.push_str(" src1_sel:");
                out.push_str(SEL[((w1 >> 24) & 7) as usize]);
            }
        }
    }
    if e.format == Format::VOPC && i.variant == Variant::Sdwa && w1 & (1 << 15) != 0 {
        // Replace the implicit vcc destination with sdst (rare: done on the output string, after a flush).
        let mut d = String::new();
        let mut db = [0u8; crate::print::CAP];
        let mut dl = Line::new(&mut db, &mut d);
        lane_mask_reg(&mut dl, (w1 >> 8) & 0x7f, wave64);
        let warn = std::mem::take(dl.warning());
        dl.finish();
        if !warn.is_empty() {
            // The sdst operand comes first: so does its warning.
            let w = out.warning();
            w.insert_str(0, &warn);
        }
        let vcc = if wave64 { "vcc" } else { "vcc_lo" };
        let (out, line) = out.flushed_out();
        let start = out[line..].find(' ').map(|p| line + p + 1).unwrap_or(line);
        if out[start..].starts_with(vcc) && !out[start + vcc.len()..].starts_with('_') {
            out.replace_range(start..start + vcc.len(), &d);
        }
    }
}

/// The DPP16 modifiers of source `s`. An integer operand has no abs bit; its neg bit is LLVM's sext.
fn dpp_mods(e: &Encoding, w1: u32, s: u32) -> SrcMods {
    let printed = e.mods.dpp.map_or(0, |[_, p]| p) >> (2 * s);
    let (neg_p, abs_p) = (printed & 1 != 0, printed & 2 != 0);
    let neg = w1 & (1 << (20 + 2 * s)) != 0 && neg_p;
    let abs = w1 & (1 << (21 + 2 * s)) != 0 && abs_p;
    if neg_p && !abs_p {
        SrcMods {
            sext: neg,
            ..SrcMods::default()
        }
    } else {
        SrcMods {
            neg,
            abs,
            sext: false,
        }
    }
}

fn sdwa_printed(e: &Encoding) -> u32 {
    e.mods.sdwa.map_or(0, |[_, p]| p)
}

fn omod(out: &mut Line, v: u32) {
    match v {
        1 => out.push_str(" mul:2"),
        2 => out.push_str(" mul:4"),
        3 => out.push_str(" div:2"),
        _ => {}
    }
}

fn src_count(e: &Encoding) -> usize {
    [Field::Src0, Field::Src1, Field::Src2]
        .iter()
        .take_while(|f| has_field(e, **f))
        .count()
}

fn print_vop3(i: &Instruction, opts: PrintOptions, out: &mut Line) {
    let e = i.encoding;
    let (w0, w1) = (i.word(0), i.word(1));
    let m = &e.mods;
    let wave64 = opts.wave64;
    out.push_str(e.mnemonic);
    // LLVM's decoder reads the literal once, for the first operand (in this order) that takes it: an f64
    // operand stores it shifted into the high half; any other keeps it as is, and a later f64 operand then
    // gets the unshifted value (printed as its high half: 0x0, or a small integer).
    let mut lit_is_32 = None;
    let mut take_literal = |k: Kind| *lit_is_32.get_or_insert(k != Kind::F64);
    for (n, op) in e.operands.iter().enumerate() {
        if n == 0 {
            out.push_byte(b' ');
        } else if !matches!(op, Operand::Field(Field::High, _)) {
            out.push_str(", ");
        }
        match *op {
            Operand::Fixed(t) => out.push_str(t),
            Operand::Field(f, k) => match f {
                Field::Vdst => {
                    crate::print::reg_range(out, "v", w0 & 0xff, crate::print::kind_regs(k))
                }
                Field::Sdst => {
                    if w0 & 0xff == 255 {
                        take_literal(k);
                    }
                    vector_source(out, w0 & 0xff, k, i.literal, wave64)
                }
                Field::Attr => {
                    let a = w1 & 0xff;
                    let _ = write!(
                        out,
                        "attr{}.{}",
                        a & 0x3f,
                        ["x", "y", "z", "w"][(a >> 6) as usize]
                    );
                }
                Field::Param => {
                    let p = (w1 >> 9) & 0x1ff;
                    match p {
                        0 => out.push_str("p10"),
                        1 => out.push_str("p20"),
                        2 => out.push_str("p0"),
                        _ => {
                            let _ = write!(out, "invalid_param_{p}");
                        }
                    }
                }
                // Printed as a bare word after the operands (no comma: see the separator above).
                Field::High if w1 & 0x100 != 0 => out.push_str(" high"),
                Field::Sdst2 => vector_source(out, (w0 >> 8) & 0x7f, k, None, wave64),
                Field::Src0 | Field::Src1 | Field::Src2 => {
                    let s = match f {
                        Field::Src0 => 0,
                        Field::Src1 => 1,
                        _ => 2,
                    };
                    let neg = m.neg & (1 << s) != 0 && w1 & (1 << (29 + s)) != 0;
                    let abs = m.abs & (1 << s) != 0 && w0 & (1 << (8 + s)) != 0;
                    // An operand with a neg bit but no abs bit has integer modifiers: LLVM prints sext.
                    // (VOP3b forms have no abs bits at all: their sdst sits there.)
                    let int_mods = m.neg & (1 << s) != 0
                        && m.abs & (1 << s) == 0
                        && !has_field(e, Field::Sdst2);
                    let sm = if int_mods {
                        SrcMods {
                            sext: neg,
                            ..SrcMods::default()
                        }
                    } else {
                        SrcMods {
                            neg,
                            abs,
                            sext: false,
                        }
                    };
                    let enc = (w1 >> (9 * s)) & 0x1ff;
                    let unshifted = enc == 255 && take_literal(k) && k == Kind::F64;
                    let text = if unshifted { i.literal } else { None };
                    print_src_with(out, enc, k, i.literal, sm, wave64, text);
                }
                _ => {}
            },
        }
    }
    if m.opsel != 0 {
        let sel = (w0 >> 11) & 0xf & m.opsel as u32;
        if e.mnemonic.starts_with("v_permlane") {
            if sel & 3 != 0 {
                out.push_str(if sel & 3 == 1 {
                    " op_sel:[1,0]"
                } else if sel & 3 == 2 {
                    " op_sel:[0,1]"
                } else {
                    " op_sel:[1,1]"
                });
            }
        } else if sel != 0 {
            out.push_str(" op_sel:[");
            let n = src_count(e);
            for s in 0..n {
                if s > 0 {
                    out.push(',');
                }
                out.push(if (sel >> s) & 1 != 0 { '1' } else { '0' });
            }
            if m.opsel & 8 != 0 {
                out.push_str(if (sel >> 3) & 1 != 0 { ",1" } else { ",0" });
            }
            out.push(']');
        }
    }
    if m.clamp && w0 & (1 << 15) != 0 {
        out.push_str(" clamp");
    }
    if m.omod {
        omod(out, (w1 >> 27) & 3);
    }
}

fn print_vop3p(i: &Instruction, opts: PrintOptions, out: &mut Line) {
    let e = i.encoding;
    let (w0, w1) = (i.word(0), i.word(1));
    let m = &e.mods;
    let wave64 = opts.wave64;
    let mix = e.mnemonic.starts_with("v_fma_mix");
    out.push_str(e.mnemonic);
    let n = src_count(e);
    for (idx, op) in e.operands.iter().enumerate() {
        out.push_str(if idx == 0 { " " } else { ", " });
        match *op {
            Operand::Fixed(t) => out.push_str(t),
            Operand::Field(f, k) => match f {
                Field::Vdst => {
                    crate::print::reg_range(out, "v", w0 & 0xff, crate::print::kind_regs(k))
                }
                Field::Src0 | Field::Src1 | Field::Src2 => {
                    let s = match f {
                        Field::Src0 => 0,
                        Field::Src1 => 1,
                        _ => 2,
                    };
                    // The mix forms print neg_lo as `-x` and neg_hi as `|x|`.
                    let sm = if mix {
                        SrcMods {
                            neg: w1 & (1 << (29 + s)) != 0,
                            abs: w0 & (1 << (8 + s)) != 0,
                            sext: false,
                        }
                    } else {
                        SrcMods::default()
                    };
                    print_src(out, (w1 >> (9 * s)) & 0x1ff, k, i.literal, sm, wave64);
                }
                _ => {}
            },
        }
    }
    let list = |out: &mut Line, name: &str, bits: u32| {
        out.push(' ');
        out.push_str(name);
        out.push_str(":[");
        for s in 0..n {
            if s > 0 {
                out.push(',');
            }
            out.push(if (bits >> s) & 1 != 0 { '1' } else { '0' });
        }
        out.push(']');
    };
    let all = (1u32 << n) - 1;
    let opsel = (w0 >> 11) & 7 & all;
    if opsel != 0 {
        list(out, "op_sel", opsel);
    }
    let hi = (((w1 >> 27) & 3) | (((w0 >> 14) & 1) << 2)) & all;
    let default_hi = if mix { 0 } else { all };
    if hi != default_hi {
        list(out, "op_sel_hi", hi);
    }
    if !mix {
        let nl = (w1 >> 29) & all;
        if nl != 0 {
            list(out, "neg_lo", nl);
        }
        let nh = (w0 >> 8) & all;
        if nh != 0 {
            list(out, "neg_hi", nh);
        }
    }
    if m.clamp && w0 & (1 << 15) != 0 {
        out.push_str(" clamp");
    }
}

/// Lane-mask operands are register pairs in wave64: LLVM rejects a pair starting at vcc_hi, m0, exec_hi,
/// lds_direct or v255.
pub(crate) fn lane_masks_valid(i: &Instruction, wave64: bool) -> bool {
    if !wave64 {
        return true;
    }
    let (w0, w1) = (i.word(0), i.word(1));
    let e = i.encoding;
    e.operands.iter().all(|o| {
        let enc = match *o {
            Operand::Field(Field::Sdst, Kind::Lm) => w0 & 0xff,
            Operand::Field(Field::Sdst2, Kind::Lm) => (w0 >> 8) & 0x7f,
            Operand::Field(Field::Src2, Kind::Lmx) => (w1 >> 18) & 0x1ff,
            _ => return true,
        };
        // (A VGPR pair may not start at v255 either.)
        !matches!(enc, 107 | 124 | 127 | 254 | 511)
    }) && !(e.format == Format::VOPC
        && i.variant == Variant::Sdwa
        && w1 & (1 << 15) != 0
        && matches!((w1 >> 8) & 0x7f, 107 | 124 | 127))
}

#[cfg(test)]
mod tests {
    use crate::{decode_bytes, DecodeError, PrintOptions, Target};

    fn check(target: Target, wave64: bool, cases: &[(&[u8], &str)]) {
        for (bytes, want) in cases {
            let i = decode_bytes(bytes, target)
                .unwrap_or_else(|e| panic!("{want}: {e} ({bytes:02x?})"));
            assert_eq!(i.len() * 4, bytes.len(), "{want}: length");
            assert_eq!(i.text(PrintOptions { wave64 }), *want, "{bytes:02x?}");
        }
    }

    /// Expected texts from llvm-mc-19 (`echo '[bytes]' | llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 --disassemble`);
    /// the bytes themselves from `llvm-mc-19 -show-encoding` on the same text. Includes the D993 multiply-add
    /// family.
    #[test]
    fn gfx1030_wave32_matches_llvm_mc() {
        let cases: &[(&[u8], &str)] = &[
(&[0x01, 0x00, 0x4b, 0xd5, 0x02, 0x07, 0x12, 0x04], "v_fma_f32 v1, v2, v3, v4"),
            (&[0x01, 0x82, 0x4b, 0xd5, 0x02, 0x07, 0x12, 0x28], "v_fma_f32 v1, -v2, |v3|, s4 clamp mul:2"),
            (&[0x00, 0x04, 0x06, 0x56], "v_fmac_f32_e32 v3, s0, v2"),
            (&[0xfa, 0x06, 0x02, 0x56, 0x02, 0xb1, 0x00, 0xff], "v_fmac_f32_dpp v1, v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"),
            (&[0x02, 0x07, 0x02, 0x5a, 0xdb, 0x0f, 0x49, 0x40], "v_fmaak_f32 v1, v2, v3, 0x40490fdb"),
            (&[0x02, 0x07, 0x02, 0x58, 0xdb, 0x0f, 0x49, 0x40], "v_fmamk_f32 v1, v2, 0x40490fdb, v3"),
            (&[0x01, 0x00, 0x6f, 0xd5, 0x02, 0x07, 0x12, 0x04], "v_div_fmas_f32 v1, v2, v3, v4"),
            (&[0x01, 0x00, 0x20, 0xcc, 0x02, 0x07, 0x12, 0x1c], "v_fma_mix_f32 v1, v2, v3, v4 op_sel_hi:[1,1,0]"),
            (&[0x01, 0xc0, 0x21, 0xcc, 0x02, 0x07, 0x12, 0x1c], "v_fma_mixlo_f16 v1, v2, v3, v4 op_sel_hi:[1,1,1] clamp"),
            (&[0x01, 0x4a, 0x22, 0xcc, 0x02, 0x07, 0x12, 0x3c], "v_fma_mixhi_f16 v1, -v2, |v3|, v4 op_sel:[1,0,0] op_sel_hi:[1,1,1]"),
            (&[0x01, 0x50, 0x4b, 0xd7, 0x02, 0x07, 0x12, 0x04], "v_fma_f16 v1, v2, v3, v4 op_sel:[0,1,0,1]"),
            (&[0xf2, 0x04, 0x02, 0x6c], "v_fmac_f16_e32 v1, 1.0, v2"),
            (&[0x01, 0x48, 0x0e, 0xcc, 0x02, 0x07, 0x12, 0x5c], "v_pk_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0] neg_lo:[0,1,0]"),
            (&[0x02, 0x07, 0x02, 0x78], "v_pk_fmac_f16 v1, v2, v3"),
            (&[0x01, 0x00, 0x40, 0xd5, 0x02, 0x07, 0x12, 0x04], "v_fma_legacy_f32 v1, v2, v3, v4"),
            (&[0x02, 0x07, 0x02, 0x0c], "v_fmac_legacy_f32_e32 v1, v2, v3"),
            (&[0x02, 0x07, 0x02, 0x0e], "v_mul_legacy_f32_e32 v1, v2, v3"),
            (&[0x02, 0x00, 0x4c, 0xd5, 0x04, 0x0d, 0xc8, 0x03], "v_fma_f64 v[2:3], v[4:5], s[6:7], 1.0"),
            (&[0x01, 0x6a, 0x6d, 0xd5, 0x02, 0x07, 0x0a, 0x04], "v_div_scale_f32 v1, vcc_lo, v2, v3, v2"),
            (&[0x02, 0x07, 0x02, 0x50], "v_add_co_ci_u32_e32 v1, vcc_lo, v2, v3, vcc_lo"),
            (&[0x04, 0x00, 0x01, 0xd4, 0x01, 0x05, 0x02, 0x00], "v_cmp_lt_f32_e64 s4, v1, v2"),
            (&[0x01, 0x05, 0x10, 0x7d], "v_cmp_class_f32_e32 vcc_lo, v1, v2"),
            (&[0x04, 0x00, 0x60, 0xd7, 0x01, 0x05, 0x00, 0x00], "v_readlane_b32 s4, v1, s2"),
            (&[0x01, 0x08, 0x77, 0xd7, 0x02, 0x07, 0x10, 0x00], "v_permlane16_b32 v1, v2, s3, s4 op_sel:[1,0]"),
            (&[0xf9, 0x06, 0x02, 0x06, 0x02, 0x15, 0x00, 0x06], "v_add_f32_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 src1_sel:DWORD"),
            (&[0xea, 0x02, 0x00, 0x7e, 0x01, 0x77, 0x39, 0x05], "v_mov_b32_dpp v0, v1 dpp8:[7,6,5,4,3,2,1,0] fi:1"),
            (&[0x01, 0x08, 0x03, 0xd7, 0x02, 0xff, 0x01, 0x00, 0x34, 0x12, 0x00, 0x00], "v_add_nc_u16 v1, v2, 0x1234 op_sel:[1,0,0]"),
            (&[0x01, 0x40, 0x13, 0xcc, 0x02, 0x07, 0x12, 0x1c], "v_dot2_f32_f16 v1, v2, v3, v4"),
        ];
        check(Target::Gfx1030, false, cases);
    }

    /// gfx1010 keeps the unfused MAD/MAC family (llvm-mc-19 -mcpu=gfx1010).
    #[test]
    fn gfx1010_mad_mac_family_matches_llvm_mc() {
        let cases: &[(&[u8], &str)] = &[
            (
                &[0x01, 0x00, 0x41, 0xd5, 0x02, 0x07, 0x12, 0x04],
                "v_mad_f32 v1, v2, v3, v4",
            ),
            (&[0x02, 0x07, 0x02, 0x3e], "v_mac_f32_e32 v1, v2, v3"),
            (
                &[0x02, 0x07, 0x02, 0x42, 0xdb, 0x0f, 0x49, 0x40],
                "v_madak_f32 v1, v2, v3, 0x40490fdb",
            ),
            (
                &[0x02, 0x07, 0x02, 0x40, 0xdb, 0x0f, 0x49, 0x40],
                "v_madmk_f32 v1, v2, 0x40490fdb, v3",
            ),
            (
                &[0x01, 0x00, 0x40, 0xd5, 0x02, 0x07, 0x12, 0x04],
                "v_mad_legacy_f32 v1, v2, v3, v4",
            ),
            (&[0x02, 0x07, 0x02, 0x0c], "v_mac_legacy_f32_e32 v1, v2, v3"),
            (
                &[0x01, 0x00, 0x4b, 0xd5, 0x02, 0x07, 0x12, 0x04],
                "v_fma_f32 v1, v2, v3, v4",
            ),
        ];
        check(Target::Gfx1010, false, cases);
        check(Target::Gfx1013, false, cases);
    }

    /// Lane masks widen in wave64 (llvm-mc-19 -mcpu=gfx1030 -mattr=+wavefrontsize64).
    #[test]
    fn gfx1030_wave64_matches_llvm_mc() {
        let cases: &[(&[u8], &str)] = &[
            (
                &[0x01, 0x00, 0x01, 0xd5, 0x02, 0x07, 0x12, 0x00],
                "v_cndmask_b32_e64 v1, v2, v3, s[4:5]",
            ),
            (
                &[0x04, 0x00, 0x01, 0xd4, 0x01, 0x05, 0x02, 0x00],
                "v_cmp_lt_f32_e64 s[4:5], v1, v2",
            ),
            (
                &[0x02, 0x07, 0x02, 0x50],
                "v_add_co_ci_u32_e32 v1, vcc, v2, v3, vcc",
            ),
            (
                &[0x01, 0x06, 0x6e, 0xd5, 0x02, 0x09, 0x0a, 0x04],
                "v_div_scale_f64 v[1:2], s[6:7], v[2:3], v[4:5], v[2:3]",
            ),
            (
                &[0xf9, 0x04, 0x04, 0x7c, 0x01, 0x86, 0x05, 0x06],
                "v_cmp_eq_f32_sdwa s[6:7], v1, v2 src0_sel:WORD_1 src1_sel:DWORD",
            ),
        ];
        check(Target::Gfx1030, true, cases);
    }

    /// LLVM-19 facts measured with the C API (crates/isa/examples/llvm.rs): misaligned SGPR pairs print aligned
    /// down with a trailing warning; DPP16 reserved controls print a comment; VOP3 integer modifiers print sext.
    #[test]
    fn llvm_quirks() {
        check(
            Target::Gfx1030,
            false,
            &[
                (
                    &[0x69, 0x00, 0x4a, 0x7d],
                    "v_cmp_ne_i64_e32 vcc_lo, s[104:105], v[0:1] ; Warning: SGPR_64: scalar reg isn't aligned 105",
                ),
                (
                    &[0xfa, 0x02, 0x00, 0x7e, 0x04, 0x30, 0x01, 0xff],
                    "v_mov_b32_dpp v0, v4 /* wave_shl is not supported starting from GFX10 */ row_mask:0xf bank_mask:0xf",
                ),
                (
                    &[0x04, 0x00, 0x5e, 0xd5, 0x08, 0x11, 0x02, 0x40],
                    "v_cvt_pk_u8_f32 v4, v8, sext(v8), s0",
                ),
                // The all-zero word.
                (&[0, 0, 0, 0], "v_illegal"),
                // sdst = 255 takes the literal as 32 bits first; the f64 source then gets it unshifted.
                (
                    &[0xff, 0xe0, 0x26, 0xd4, 0xff, 0xfc, 0x00, 0x20, 0x48, 0x35, 0x8a, 0x74],
                    "v_cmp_ge_f64_e64 0x748a3548/*Invalid immediate*/, neg(0x0), exec clamp",
                ),
            ],
        );
    }

    #[test]
    fn rejects_what_llvm_rejects() {
        let invalid = |bytes: &[u8], target| {
            assert!(
                matches!(
                    decode_bytes(bytes, target),
                    Err(DecodeError::Invalid { .. })
                ),
                "{bytes:02x?} should be invalid"
            )
        };
        // v_fmac_f32 has no SDWA form.
        invalid(
            &[0xf9, 0x02, 0x06, 0x56, 0x02, 0x06, 0x06, 0x06],
            Target::Gfx1030,
        );
        // v_mac_f32 does not exist on gfx1030.
        invalid(&[0x02, 0x07, 0x02, 0x3e], Target::Gfx1030);
        // A 64-bit VGPR operand may not run past v255.
        invalid(&[0xff, 0x31, 0xfe, 0x7f], Target::Gfx1030);
        // v_nop has no destination: its vdst field must be zero.
        invalid(&[0x00, 0x00, 0x02, 0x7e], Target::Gfx1030);
    }
}
