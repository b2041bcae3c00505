//! Memory and export formats: DS, FLAT/GLOBAL/SCRATCH, MUBUF, MTBUF, MIMG, EXP, VINTRP.
//!
//! Field layouts follow AMD's RDNA 2 ISA guide ("Microcode Formats"); which fields LLVM-19 requires to be zero,
//! which register tuples it accepts and how it prints them were measured against LLVM-19's disassembler (the
//! differential test, `cargo run -p rdna2spv-isa --example difftest -- --format MIMG`). Per-row facts (address
//! composition of image instructions, offset forms of DS, which loads may target LDS, …) come from the `+flag`
//! tokens of opcodes.txt.

use crate::decode::{need, slot, DecodeError, Instruction, Variant};
use crate::generated::{Field, Flag, Kind};
use crate::print::{
    kind_regs, push_hex, push_i64, push_u32, reg_range, scalar_reg, source, Line, PrintOptions,
};
use crate::table::{Encoding, Format, Operand, Target};
use std::fmt::Write as _;

fn invalid(word: u32, reason: &'static str) -> DecodeError {
    DecodeError::Invalid { word, reason }
}

/// The width in registers of the operand printed from `field`, if the row has it.
fn width(e: &Encoding, field: Field) -> Option<u32> {
    e.operands.iter().find_map(|op| match *op {
        Operand::Field(f, k) if f == field => Some(kind_regs(k)),
        _ => None,
    })
}

fn has(e: &Encoding, field: Field) -> bool {
    width(e, field).is_some()
}

/// A VGPR tuple exists only if it ends at v255.
fn vgprs_fit(first: u32, count: u32) -> bool {
    first + count <= 256
}

pub(crate) fn decode(
    format: Format,
    words: &[u32],
    target: Target,
) -> Result<Instruction, DecodeError> {
    let w0 = words[0];
    if format == Format::VINTRP {
        let e = slot(format, (w0 >> 16) & 3, target, w0)?;
        return Ok(Instruction::new(e, Variant::Plain, &words[..1], None));
    }
    need(format, words, 2)?;
    let w1 = words[1];
    match format {
        Format::DS => decode_ds(words, target),
        Format::FLAT | Format::GLOBAL | Format::SCRATCH => decode_flat(format, words, target),
        Format::MUBUF | Format::MTBUF => decode_buf(format, words, target),
        Format::MIMG => decode_mimg(words, target),
        Format::EXP => {
            let e = slot(format, 0, target, w0)?;
            Ok(Instruction::new(e, Variant::Plain, &[w0, w1], None))
        }
        _ => Err(DecodeError::Unsupported {
            format,
            word: w0,
            reason: "not a memory format",
        }),
    }
}

// ---------------------------------------------------------------------------------------------------------
// DS

fn decode_ds(words: &[u32], target: Target) -> Result<Instruction, DecodeError> {
    let (w0, w1) = (words[0], words[1]);
    let e = slot(Format::DS, (w0 >> 18) & 0xff, target, w0)?;
    let gds = (w0 >> 17) & 1;
    if e.has(Flag::Gds) && gds == 0 {
        return Err(invalid(w0, "this DS instruction requires gds"));
    }
    if e.has(Flag::NoGds) && gds != 0 {
        return Err(invalid(w0, "this DS instruction has no gds form"));
    }
    if e.has(Flag::NoOffset) && (w0 & 0xffff) != 0 {
        return Err(invalid(w0, "ds_nop has no offset"));
    }
    // An operand byte the instruction does not use must be zero.
    for (field, shift) in [
        (Field::Addr, 0),
        (Field::Data0, 8),
        (Field::Data1, 16),
        (Field::Vdst, 24),
    ] {
        let v = (w1 >> shift) & 0xff;
        match width(e, field) {
            None if v != 0 => return Err(invalid(w0, "unused DS operand field is not zero")),
            Some(n) if !vgprs_fit(v, n) => return Err(invalid(w0, "VGPR tuple beyond v255")),
            _ => {}
        }
    }
    Ok(Instruction::new(e, Variant::Plain, &words[..2], None))
}

fn print_ds(i: &Instruction, out: &mut Line) {
    let e = i.encoding;
    let (w0, w1) = (i.word(0), i.word(1));
    let mut first = true;
    for op in e.operands {
        if let Operand::Field(f, k) = *op {
            let shift = match f {
                Field::Addr => 0,
                Field::Data0 => 8,
                Field::Data1 => 16,
                _ => 24,
            };
            out.push_str(if first { " " } else { ", " });
            first = false;
            reg_range(out, "v", (w1 >> shift) & 0xff, kind_regs(k));
        }
    }
    let off = w0 & 0xffff;
    if e.has(Flag::Offset2) {
        if off & 0xff != 0 {
            out.push_str(" offset0:");
            push_u32(out, off & 0xff);
        }
        if off >> 8 != 0 {
            out.push_str(" offset1:");
            push_u32(out, off >> 8);
        }
    } else if e.has(Flag::Swizzle) {
        swizzle(out, off as u16);
    } else if off != 0 {
        out.push_str(" offset:");
        push_u32(out, off);
    }
    if (w0 >> 17) & 1 != 0 {
        out.push_str(" gds");
    }
}

/// ds_swizzle_b32's offset as LLVM prints it (AMDGPUInstPrinter::printSwizzle, LLVM 19).
fn swizzle(out: &mut Line, imm: u16) {
    if imm == 0 {
        return;
    }
    out.push_str(" offset:");
    if imm & 0xff00 == 0x8000 {
        out.push_str("swizzle(QUAD_PERM");
        for lane in 0..4 {
            out.push_byte(b',');
            push_u32(out, ((imm >> (2 * lane)) & 3) as u32);
        }
        out.push(')');
    } else if imm & 0x8000 == 0 {
        let and = imm & 0x1f;
        let or = (imm >> 5) & 0x1f;
        let xor = (imm >> 10) & 0x1f;
        if and == 0x1f && or == 0 && xor.count_ones() == 1 {
            let _ = write!(out, "swizzle(SWAP,{xor})");
        } else if and == 0x1f && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
            let _ = write!(out, "swizzle(REVERSE,{})", xor + 1);
        } else {
            let group = 0x1f - and + 1;
            if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
                let _ = write!(out, "swizzle(BROADCAST,{group},{or})");
            } else {
                out.push_str("swizzle(BITMASK_PERM,\"");
                let p0 = or ^ xor;
                let p1 = ((0x1f & and) | or) ^ xor;
                for bit in (0..5).rev() {
                    let (a, b) = ((p0 >> bit) & 1, (p1 >> bit) & 1);
                    out.push(match (a == b, a) {
                        (true, 0) => '0',
                        (true, _) => '1',
                        (false, 0) => 'p',
                        (false, _) => 'i',
                    });
                }
                out.push_str("\")");
            }
        }
    } else {
        let _ = write!(out, "{imm}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// FLAT, GLOBAL, SCRATCH

const SADDR_OFF: u32 = 0x7d;
const SADDR_NONE: u32 = 0x7f;

fn decode_flat(format: Format, words: &[u32], target: Target) -> Result<Instruction, DecodeError> {
    let (w0, w1) = (words[0], words[1]);
    let e = slot(format, (w0 >> 18) & 0x7f, target, w0)?;
    let lds = (w0 >> 13) & 1 != 0;
    let saddr = (w1 >> 16) & 0x7f;
    if lds && !e.has(Flag::Lds) {
        return Err(invalid(w0, "lds is not allowed on this instruction"));
    }
    if (w1 >> 23) & 1 != 0 {
        return Err(invalid(w0, "FLAT nv bit set"));
    }
    match format {
        Format::FLAT if saddr != SADDR_OFF => {
            return Err(invalid(w0, "FLAT saddr must be null"));
        }
        Format::GLOBAL if !matches!(saddr, 0..=106 | 108..=123 | 126 | SADDR_OFF) => {
            return Err(invalid(w0, "GLOBAL saddr is not a 64-bit scalar register"));
        }
        _ => {}
    }
    let l = flat_layout(e, w0, w1);
    for (reg, n) in l.vgprs() {
        if !vgprs_fit(reg, n) {
            return Err(invalid(w0, "VGPR tuple beyond v255"));
        }
    }
    Ok(Instruction::new(e, Variant::Plain, &words[..2], None))
}

/// What a FLAT-family instruction prints: each operand slot is a VGPR tuple, `off`, or a scalar register.
#[derive(Clone, Copy)]
enum FlatOp {
    V(u32, u32),
    Off,
    S(u32, u32),
    Text(&'static str),
}

/// At most four operand slots (no allocation: decode and print build one per instruction).
struct FlatLayout {
    ops: [FlatOp; 4],
    n: usize,
}

impl FlatLayout {
    fn push(&mut self, op: FlatOp) {
        if self.n < self.ops.len() {
            self.ops[self.n] = op;
            self.n += 1;
        }
    }

    fn ops(&self) -> &[FlatOp] {
        &self.ops[..self.n]
    }

    fn vgprs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.ops().iter().filter_map(|o| match *o {
            FlatOp::V(r, n) => Some((r, n)),
            _ => None,
        })
    }
}

fn flat_layout(e: &Encoding, w0: u32, w1: u32) -> FlatLayout {
    let lds = (w0 >> 13) & 1 != 0;
    let glc = (w0 >> 16) & 1 != 0;
    let saddr = (w1 >> 16) & 0x7f;
    let mut ops = FlatLayout {
        ops: [FlatOp::Off; 4],
        n: 0,
    };
    for op in e.operands {
        let Operand::Field(f, k) = *op else { continue };
        let n = kind_regs(k);
        match f {
            Field::Vdst => {
                if lds || (e.has(Flag::Atomic) && !glc) {
                    continue;
                }
                ops.push(FlatOp::V(w1 >> 24, n));
            }
            Field::Addr => match e.format {
                Format::FLAT => ops.push(FlatOp::V(w1 & 0xff, 2)),
                Format::GLOBAL => ops.push(FlatOp::V(w1 & 0xff, if saddr == SADDR_OFF { 2 } else { 1 })),
                _ => ops.push(if saddr == SADDR_OFF {
                    FlatOp::V(w1 & 0xff, 1)
                } else {
                    FlatOp::Off
                }),
            },
            Field::Data => ops.push(FlatOp::V((w1 >> 8) & 0xff, n)),
            Field::Saddr => ops.push(match saddr {
                SADDR_OFF => FlatOp::Off,
                // "ST" addressing (neither vaddr nor saddr) exists only on gfx1030 (+st_mode) and for the LDS
                // loads; elsewhere LLVM prints the encoding as the exec_hi register its operand class excludes.
                SADDR_NONE if e.format == Format::SCRATCH => {
                    if e.has(Flag::StMode) || lds {
                        FlatOp::Off
                    } else {
                        FlatOp::Text(
                            "exec_hi/*Invalid register, operand has 'SReg_32_XEXEC_HI' register class*/",
                        )
                    }
                }
                _ => FlatOp::S(saddr, n),
            }),
            _ => {}
        }
    }
    ops
}

fn print_flat(i: &Instruction, out: &mut Line) {
    let e = i.encoding;
    let (w0, w1) = (i.word(0), i.word(1));
    let l = flat_layout(e, w0, w1);
    let mut warning = String::new();
    for (n, op) in l.ops().iter().enumerate() {
        out.push_str(if n == 0 { " " } else { ", " });
        match *op {
            FlatOp::V(r, c) => reg_range(out, "v", r, c),
            FlatOp::Off => out.push_str("off"),
            FlatOp::S(r, c) => sgpr_tuple(out, r, c, &mut warning),
            FlatOp::Text(t) => out.push_str(t),
        }
    }
    let off = w0 & 0xfff;
    if off != 0 {
        if i.format() == Format::FLAT {
            out.push_str(" offset:");
            push_u32(out, off);
        } else {
            out.push_str(" offset:");
            push_i64(out, (((off << 20) as i32) >> 20) as i64);
        }
    }
    cpol(out, (w0 >> 16) & 1, (w0 >> 17) & 1, (w0 >> 12) & 1);
    if (w0 >> 13) & 1 != 0 {
        out.push_str(" lds");
    }
    out.push_str(&warning);
}

/// ` glc`, ` slc`, ` dlc` in LLVM's order.
fn cpol(out: &mut Line, glc: u32, slc: u32, dlc: u32) {
    if glc != 0 {
        out.push_str(" glc");
    }
    if slc != 0 {
        out.push_str(" slc");
    }
    if dlc != 0 {
        out.push_str(" dlc");
    }
}

/// A scalar register operand of `count` registers from its 7-bit encoding. LLVM aligns a misaligned tuple down
/// and its C API appends a `; Warning: …` comment (AMDGPUDisassembler::createSRegOperand).
fn sgpr_tuple(out: &mut Line, enc: u32, count: u32, warning: &mut String) {
    if count == 1 {
        scalar_reg(out, enc, 1);
        return;
    }
    let align = if count == 2 { 2 } else { 4 };
    let (file, base, class) = match enc {
        0..=105 => ("s", 0, "SGPR"),
        108..=123 => ("ttmp", 108, "TTMP"),
        _ => {
            scalar_reg(out, enc, count);
            return;
        }
    };
    let idx = enc - base;
    if !idx.is_multiple_of(align) {
        let _ = write!(
            warning,
            " ; Warning: {class}_{}: scalar reg isn't aligned {idx}",
            count * 32
        );
    }
    reg_range(out, file, idx - idx % align, count);
}

// ---------------------------------------------------------------------------------------------------------
// MUBUF, MTBUF

/// The name of gfx10 unified buffer format `fmt` without the `BUF_FMT_` prefix (`8_UNORM` for 1), if it has one.
pub fn buf_format_name(fmt: u32) -> Option<&'static str> {
    BUF_FORMATS.get(fmt as usize).copied()
}

/// The unified buffer formats of gfx10 (`format:[BUF_FMT_…]`), by value; 1 (BUF_FMT_8_UNORM) is the default and
/// is not printed.
const BUF_FORMATS: [&str; 78] = [
    "INVALID",
    "8_UNORM",
    "8_SNORM",
    "8_USCALED",
    "8_SSCALED",
    "8_UINT",
    "8_SINT",
    "16_UNORM",
    "16_SNORM",
    "16_USCALED",
    "16_SSCALED",
    "16_UINT",
    "16_SINT",
    "16_FLOAT",
    "8_8_UNORM",
    "8_8_SNORM",
    "8_8_USCALED",
    "8_8_SSCALED",
    "8_8_UINT",
    "8_8_SINT",
    "32_UINT",
    "32_SINT",
    "32_FLOAT",
    "16_16_UNORM",
    "16_16_SNORM",
    "16_16_USCALED",
    "16_16_SSCALED",
    "16_16_UINT",
    "16_16_SINT",
    "16_16_FLOAT",
    "10_11_11_UNORM",
    "10_11_11_SNORM",
    "10_11_11_USCALED",
    "10_11_11_SSCALED",
    "10_11_11_UINT",
    "10_11_11_SINT",
    "10_11_11_FLOAT",
    "11_11_10_UNORM",
    "11_11_10_SNORM",
    "11_11_10_USCALED",
    "11_11_10_SSCALED",
    "11_11_10_UINT",
    "11_11_10_SINT",
    "11_11_10_FLOAT",
    "10_10_10_2_UNORM",
    "10_10_10_2_SNORM",
    "10_10_10_2_USCALED",
    "10_10_10_2_SSCALED",
    "10_10_10_2_UINT",
    "10_10_10_2_SINT",
    "2_10_10_10_UNORM",
    "2_10_10_10_SNORM",
    "2_10_10_10_USCALED",
    "2_10_10_10_SSCALED",
    "2_10_10_10_UINT",
    "2_10_10_10_SINT",
    "8_8_8_8_UNORM",
    "8_8_8_8_SNORM",
    "8_8_8_8_USCALED",
    "8_8_8_8_SSCALED",
    "8_8_8_8_UINT",
    "8_8_8_8_SINT",
    "32_32_UINT",
    "32_32_SINT",
    "32_32_FLOAT",
    "16_16_16_16_UNORM",
    "16_16_16_16_SNORM",
    "16_16_16_16_USCALED",
    "16_16_16_16_SSCALED",
    "16_16_16_16_UINT",
    "16_16_16_16_SINT",
    "16_16_16_16_FLOAT",
    "32_32_32_UINT",
    "32_32_32_SINT",
    "32_32_32_FLOAT",
    "32_32_32_32_UINT",
    "32_32_32_32_SINT",
    "32_32_32_32_FLOAT",
];

/// A 128-bit resource from the 5-bit srsrc/ssamp field (register number / 4), if LLVM accepts it.
fn sgpr_quad_base(field: u32, count: u32) -> Option<u32> {
    let reg = field * 4;
    match reg {
        0..=105 if reg + count <= 106 => Some(reg),
        108..=123 if reg + count <= 124 => Some(reg),
        _ => None,
    }
}

/// Scalar source encodings LLVM accepts for soffset.
fn soffset_valid(enc: u32) -> bool {
    !matches!(enc, 209..=234 | 249 | 250)
}

fn decode_buf(format: Format, words: &[u32], target: Target) -> Result<Instruction, DecodeError> {
    let (w0, w1) = (words[0], words[1]);
    let op = if format == Format::MUBUF {
        ((w0 >> 18) & 0x7f) | (((w0 >> 25) & 1) << 7)
    } else {
        ((w0 >> 16) & 7) | (((w1 >> 21) & 1) << 3)
    };
    let e = slot(format, op, target, w0)?;
    let tfe = (w1 >> 23) & 1 != 0;
    let lds = format == Format::MUBUF && (w0 >> 16) & 1 != 0;
    if format == Format::MTBUF && tfe {
        return Err(invalid(w0, "MTBUF tfe is not supported"));
    }
    if lds && (!e.has(Flag::Lds) || tfe) {
        return Err(invalid(w0, "lds is not allowed here"));
    }
    if e.has(Flag::Atomic) && ((w0 >> 15) & 1 != 0 || tfe) {
        return Err(invalid(w0, "buffer atomics have no dlc or tfe"));
    }
    if !has(e, Field::Vdata) {
        // buffer_gl0_inv, buffer_gl1_inv
        if (w0 >> 12) & 0x1f != 0 || tfe {
            return Err(invalid(w0, "cache invalidation takes no operands"));
        }
        return Ok(Instruction::new(e, Variant::Plain, &words[..2], None));
    }
    if sgpr_quad_base((w1 >> 16) & 0x1f, 4).is_none() {
        return Err(invalid(w0, "srsrc is not a 128-bit scalar register"));
    }
    let soff = w1 >> 24;
    if !soffset_valid(soff) {
        return Err(invalid(w0, "soffset is not a scalar source"));
    }
    let (vaddr, na) = buf_vaddr(w0, w1);
    if na > 0 && !vgprs_fit(vaddr, na) {
        return Err(invalid(w0, "VGPR tuple beyond v255"));
    }
    if !lds {
        let n = width(e, Field::Vdata).unwrap_or(1) + tfe as u32;
        if !vgprs_fit((w1 >> 8) & 0xff, n) {
            return Err(invalid(w0, "VGPR tuple beyond v255"));
        }
    }
    if soff == 255 {
        need(format, words, 3)?;
        return Ok(Instruction::new(
            e,
            Variant::Plain,
            &words[..3],
            Some(words[2]),
        ));
    }
    Ok(Instruction::new(e, Variant::Plain, &words[..2], None))
}

/// The address VGPRs of a buffer instruction: none (`off`), one (offen or idxen) or two (both).
fn buf_vaddr(w0: u32, w1: u32) -> (u32, u32) {
    let n = ((w0 >> 12) & 1) + ((w0 >> 13) & 1);
    (w1 & 0xff, n)
}

fn print_buf(i: &Instruction, out: &mut Line) {
    let e = i.encoding;
    let (w0, w1) = (i.word(0), i.word(1));
    let Some(data) = width(e, Field::Vdata) else {
        return;
    };
    let tfe = (w1 >> 23) & 1;
    let lds = i.format() == Format::MUBUF && (w0 >> 16) & 1 != 0;
    out.push(' ');
    if !lds {
        reg_range(out, "v", (w1 >> 8) & 0xff, data + tfe);
        out.push_str(", ");
    }
    let (vaddr, na) = buf_vaddr(w0, w1);
    if na == 0 {
        out.push_str("off");
    } else {
        reg_range(out, "v", vaddr, na);
    }
    out.push_str(", ");
    srsrc(out, (w1 >> 16) & 0x1f, 4);
    out.push_str(", ");
    soffset(out, w1 >> 24, i.literal);
    if i.format() == Format::MTBUF {
        let fmt = (w0 >> 19) & 0x7f;
        if fmt != 1 {
            match BUF_FORMATS.get(fmt as usize) {
                Some(name) => {
                    out.push_str(" format:[BUF_FMT_");
                    out.push_str(name);
                    out.push_byte(b']');
                }
                None => {
                    out.push_str(" format:");
                    push_u32(out, fmt);
                }
            }
        }
    }
    if (w0 >> 13) & 1 != 0 {
        out.push_str(" idxen");
    }
    if (w0 >> 12) & 1 != 0 {
        out.push_str(" offen");
    }
    let off = w0 & 0xfff;
    if off != 0 {
        out.push_str(" offset:");
        push_u32(out, off);
    }
    cpol(out, (w0 >> 14) & 1, (w1 >> 22) & 1, (w0 >> 15) & 1);
    if lds {
        out.push_str(" lds");
    }
    if tfe != 0 {
        out.push_str(" tfe");
    }
}

/// A resource descriptor (`s[8:11]`, `ttmp[4:11]`) from its 5-bit field.
fn srsrc(out: &mut Line, field: u32, count: u32) {
    let reg = field * 4;
    if reg >= 108 {
        reg_range(out, "ttmp", reg - 108, count);
    } else {
        reg_range(out, "s", reg, count);
    }
}

/// soffset: a scalar source; a literal prints as an integer when it equals an inline integer.
fn soffset(out: &mut Line, enc: u32, literal: Option<u32>) {
    match enc {
        254 => {
            out.push_str("src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/")
        }
        255 => {
            let v = literal.unwrap_or(0) as i32;
            if (-16..=64).contains(&v) {
                push_i64(out, v as i64);
            } else {
                crate::print::literal_value(out, v as u32, Kind::B32);
            }
        }
        _ => source(out, enc, Kind::B32, literal),
    }
}

// ---------------------------------------------------------------------------------------------------------
// MIMG

/// The image dimension names by their 3-bit encoding.
const DIMS: [&str; 8] = [
    "1D",
    "2D",
    "3D",
    "CUBE",
    "1D_ARRAY",
    "2D_ARRAY",
    "2D_MSAA",
    "2D_MSAA_ARRAY",
];
/// Coordinates and gradients per dimension encoding (LLVM's MIMGDimInfo).
const DIM_COORDS: [u32; 8] = [1, 2, 3, 3, 2, 3, 3, 4];
const DIM_GRADIENTS: [u32; 8] = [2, 4, 6, 4, 2, 4, 4, 4];

/// The MIMG fields of the first two words.
#[derive(Clone, Copy)]
struct Mimg {
    nsa: u32,
    dim: u32,
    dmask: u32,
    tfe: bool,
    d16: bool,
    a16: bool,
    vaddr0: u32,
    vdata: u32,
}

impl Mimg {
    fn new(w0: u32, w1: u32) -> Self {
        Mimg {
            nsa: (w0 >> 1) & 3,
            dim: (w0 >> 3) & 7,
            dmask: (w0 >> 8) & 0xf,
            tfe: (w0 >> 16) & 1 != 0,
            d16: (w1 >> 31) & 1 != 0,
            a16: (w1 >> 30) & 1 != 0,
            vaddr0: w1 & 0xff,
            vdata: (w1 >> 8) & 0xff,
        }
    }
}

fn is_sampler(e: &Encoding) -> bool {
    has(e, Field::Ssamp)
}

/// Address word counts the image instruction has variants for: (non-NSA sizes, NSA sizes); the first entry of
/// the non-NSA list is the one LLVM's generated decoder starts from (MIMG_Sampler_AddrSizes in
/// MIMGInstructions.td).
fn addr_sizes(e: &Encoding) -> (Sizes, Sizes) {
    if !is_sampler(e) {
        return (Sizes::of(&[1, 2, 3, 4]), Sizes::of(&[2, 3, 4]));
    }
    let lod = e.has(Flag::Lod);
    let (lo, hi) = match (e.has(Flag::Grad), e.has(Flag::G16), lod) {
        (true, true, false) => (2, 7),
        (true, true, true) => (2, 8),
        (true, false, false) => (2, 9),
        (true, false, true) => (2, 10),
        (false, _, false) => (1, 3),
        (false, _, true) => (1, 4),
    };
    let extra = extra_args(e);
    // Every count from lo + extra to hi + extra.
    let all = (lo + extra)..=(hi + extra);
    const RANGES: [(u32, u32); 13] = [
        (1, 1),
        (2, 2),
        (3, 3),
        (3, 4),
        (5, 5),
        (6, 6),
        (7, 7),
        (5, 8),
        (9, 9),
        (10, 10),
        (11, 11),
        (12, 12),
        (13, 16),
    ];
    let mut plain = Sizes::default();
    for &(rlo, rhi) in &RANGES {
        if rlo <= *all.end() && *all.start() <= rhi {
            plain.push(rhi);
        }
    }
    let mut nsa = Sizes::default();
    for d in all.filter(|d| (2..=12).contains(d)) {
        nsa.push(d);
    }
    (plain, nsa)
}

/// A short list of address sizes (at most 16; no allocation).
#[derive(Clone, Copy, Default)]
struct Sizes {
    v: [u32; 16],
    n: usize,
}

impl Sizes {
    fn of(s: &[u32]) -> Sizes {
        let mut x = Sizes::default();
        for &d in s {
            x.push(d);
        }
        x
    }

    fn push(&mut self, d: u32) {
        if self.n < self.v.len() {
            self.v[self.n] = d;
            self.n += 1;
        }
    }

    fn as_slice(&self) -> &[u32] {
        &self.v[..self.n]
    }
}

fn extra_args(e: &Encoding) -> u32 {
    [Flag::Offset, Flag::Bias, Flag::Compare]
        .iter()
        .filter(|f| e.has(**f))
        .count() as u32
}

/// The NSA address count LLVM's generated decoder picks for an `nsa` field value: the largest size of the group.
fn nsa_default(e: &Encoding, nsa: u32) -> Option<u32> {
    let (lo, hi) = match nsa {
        1 => (2, 5),
        2 => (6, 9),
        3 => (10, 12),
        _ => return None,
    };
    addr_sizes(e)
        .1
        .as_slice()
        .iter()
        .copied()
        .filter(|d| (lo..=hi).contains(d))
        .max()
}

/// The vdata size of the decoder's default variant.
fn data_default(e: &Encoding) -> u32 {
    if e.has(Flag::Gather4) {
        4
    } else if e.has(Flag::Atomic) {
        width(e, Field::Vdata).unwrap_or(1)
    } else {
        1
    }
}

/// The registers the vdata operand of the variant for `dwords` data dwords prints, if LLVM has that variant.
/// Measured for atomics: a 32-bit atomic has 1-, 2- and 4-dword variants, the last printing five registers;
/// a cmpswap has 2- and 4-dword ones.
fn data_regs(e: &Encoding, dwords: u32) -> Option<u32> {
    let ok = if e.has(Flag::Gather4) {
        matches!(dwords, 2 | 4 | 5)
    } else if e.has(Flag::Atomic) {
        if width(e, Field::Vdata) == Some(2) {
            matches!(dwords, 2 | 4)
        } else {
            return match dwords {
                1 | 2 => Some(dwords),
                4 => Some(5),
                _ => None,
            };
        }
    } else {
        (1..=5).contains(&dwords)
    };
    ok.then_some(dwords)
}

/// The BVH address count (fixed by the pointer width and a16).
fn bvh_addrs(e: &Encoding, a16: bool) -> u32 {
    match (e.has(Flag::Ptr64), a16) {
        (false, false) => 11,
        (false, true) => 8,
        (true, false) => 12,
        (true, true) => 9,
    }
}

/// The registers an image instruction prints: (vdata count, address count). Follows
/// AMDGPUDisassembler::convertMIMGInst: the decoder's default variant is widened to the sizes dmask/d16/tfe and
/// dim/a16 imply, or kept as it is when no variant has those sizes or the registers would pass v255.
fn mimg_shape(e: &Encoding, m: Mimg) -> (u32, u32) {
    if e.has(Flag::Bvh) {
        return (4, bvh_addrs(e, m.a16));
    }
    let (plain, nsa_sizes) = addr_sizes(e);
    let is_nsa = m.nsa != 0;
    let init_addr = if is_nsa {
        nsa_default(e, m.nsa).unwrap_or(1)
    } else {
        plain.as_slice()[0]
    };
    let init_data = data_default(e);
    let init = (init_data, init_addr);

    let coords = if e.has(Flag::NoCoord) {
        0
    } else {
        DIM_COORDS[m.dim as usize]
    };
    let comps = coords + e.has(Flag::Lod) as u32;
    let mut addr = extra_args(e) + if m.a16 { comps.div_ceil(2) } else { comps };
    if e.has(Flag::Grad) {
        let g = DIM_GRADIENTS[m.dim as usize];
        addr += if e.has(Flag::G16) {
            (g / 2).next_multiple_of(2)
        } else {
            g
        };
    }
    if is_nsa {
        if addr > init_addr {
            return init;
        }
    } else if addr > 12 {
        addr = 16;
    }
    let mut data = if e.has(Flag::Gather4) {
        4
    } else {
        m.dmask.count_ones().max(1)
    };
    if m.d16 && e.has(Flag::D16) {
        data = data.div_ceil(2);
    }
    data += m.tfe as u32;
    if (data, addr) == init {
        return init;
    }
    let addr_ok = if is_nsa {
        nsa_sizes.as_slice().contains(&addr)
    } else {
        plain.as_slice().contains(&addr)
    };
    let Some(regs) = data_regs(e, data) else {
        return init;
    };
    if !addr_ok || (data != init_data && !vgprs_fit(m.vdata, regs)) {
        return init;
    }
    if !is_nsa && addr != init_addr && !vgprs_fit(m.vaddr0, addr) {
        return init;
    }
    (regs, addr)
}

fn decode_mimg(words: &[u32], target: Target) -> Result<Instruction, DecodeError> {
    let (w0, w1) = (words[0], words[1]);
    let e = slot(
        Format::MIMG,
        ((w0 >> 18) & 0x7f) | ((w0 & 1) << 7),
        target,
        w0,
    )?;
    let m = Mimg::new(w0, w1);
    let ssamp = (w1 >> 21) & 0x1f;
    if !e.has(Flag::D16) && m.d16 {
        return Err(invalid(w0, "this image instruction has no d16 form"));
    }
    if !is_sampler(e) && ssamp != 0 {
        return Err(invalid(
            w0,
            "ssamp of a non-sampler image instruction is not zero",
        ));
    }
    let nsa_words = if e.has(Flag::Bvh) {
        // dmask 0xf, unorm, r128, dim 0, no cache policy, tfe, lwe or d16.
        if w0 & 0x0203_bfb8 != 0x0000_9f00 {
            return Err(invalid(w0, "fixed fields of image_bvh*_intersect_ray"));
        }
        let n = bvh_addrs(e, m.a16);
        if m.nsa != 0 && m.nsa != (n - 1).div_ceil(4) {
            return Err(invalid(w0, "NSA size does not match the BVH address count"));
        }
        if m.nsa == 0 {
            0
        } else {
            m.nsa
        }
    } else if m.nsa != 0 {
        if nsa_default(e, m.nsa).is_none() {
            return Err(invalid(w0, "no NSA variant with this many address words"));
        }
        m.nsa
    } else {
        0
    };
    // The registers of the decoder's default variant must exist.
    let rsrc_regs = if e.has(Flag::Bvh) { 4 } else { 8 };
    if sgpr_quad_base((w1 >> 16) & 0x1f, rsrc_regs).is_none() {
        return Err(invalid(w0, "srsrc is not a scalar register tuple"));
    }
    if is_sampler(e) && sgpr_quad_base(ssamp, 4).is_none() {
        return Err(invalid(w0, "ssamp is not a 128-bit scalar register"));
    }
    let (init_data, init_addr) = if e.has(Flag::Bvh) {
        (4, bvh_addrs(e, m.a16))
    } else {
        (data_default(e), addr_sizes(e).0.as_slice()[0])
    };
    if !vgprs_fit(m.vdata, init_data) {
        return Err(invalid(w0, "VGPR tuple beyond v255"));
    }
    if m.nsa == 0 && !vgprs_fit(m.vaddr0, init_addr) {
        return Err(invalid(w0, "VGPR tuple beyond v255"));
    }
    let n = 2 + nsa_words as usize;
    need(Format::MIMG, words, n)?;
    Ok(Instruction::new(e, Variant::Plain, &words[..n], None))
}

fn print_mimg(i: &Instruction, out: &mut Line) {
    let e = i.encoding;
    let (w0, w1) = (i.word(0), i.word(1));
    let m = Mimg::new(w0, w1);
    let (data, addr) = mimg_shape(e, m);
    if m.nsa != 0 && is_sampler(e) {
        out.push(' ');
    }
    out.push(' ');
    reg_range(out, "v", m.vdata, data);
    out.push_str(", ");
    if m.nsa != 0 {
        out.push('[');
        for k in 0..addr {
            if k > 0 {
                out.push_str(", ");
            }
            let reg = if k == 0 {
                m.vaddr0
            } else {
                let b = k - 1;
                (i.word(2 + (b / 4) as usize) >> (8 * (b % 4))) & 0xff
            };
            out.push('v');
            push_u32(out, reg);
        }
        out.push(']');
    } else {
        reg_range(out, "v", m.vaddr0, addr);
    }
    out.push_str(", ");
    if e.has(Flag::Bvh) {
        srsrc(out, (w1 >> 16) & 0x1f, 4);
        if m.a16 {
            out.push_str(" a16");
        }
        return;
    }
    srsrc(out, (w1 >> 16) & 0x1f, 8);
    if is_sampler(e) {
        out.push_str(", ");
        srsrc(out, (w1 >> 21) & 0x1f, 4);
    }
    if m.dmask != 0 {
        out.push_str(" dmask:");
        push_hex(out, m.dmask as u64);
    }
    out.push_str(" dim:SQ_RSRC_IMG_");
    out.push_str(DIMS[m.dim as usize]);
    if (w0 >> 12) & 1 != 0 {
        out.push_str(" unorm");
    }
    cpol(out, (w0 >> 13) & 1, (w0 >> 25) & 1, (w0 >> 7) & 1);
    if (w0 >> 15) & 1 != 0 {
        out.push_str(" r128");
    }
    if m.a16 {
        out.push_str(" a16");
    }
    if m.tfe {
        out.push_str(" tfe");
    }
    if (w0 >> 17) & 1 != 0 {
        out.push_str(" lwe");
    }
    if m.d16 {
        out.push_str(" d16");
    }
}

// ---------------------------------------------------------------------------------------------------------
// EXP, VINTRP

fn exp_target(out: &mut Line, t: u32) {
    let (name, n) = match t {
        0..=7 => ("mrt", Some(t)),
        8 => ("mrtz", None),
        9 => ("null", None),
        12..=16 => ("pos", Some(t - 12)),
        20 => ("prim", None),
        32..=63 => ("param", Some(t - 32)),
        _ => ("invalid_target_", Some(t)),
    };
    out.push_str(name);
    if let Some(n) = n {
        push_u32(out, n);
    }
}

fn print_exp(i: &Instruction, out: &mut Line) {
    let (w0, w1) = (i.word(0), i.word(1));
    let en = w0 & 0xf;
    let compr = (w0 >> 10) & 1 != 0;
    out.push(' ');
    exp_target(out, (w0 >> 4) & 0x3f);
    for n in 0..4 {
        out.push_str(if n == 0 { " " } else { ", " });
        if en & (1 << n) == 0 {
            out.push_str("off");
            continue;
        }
        // With compr, the four slots print src0, src0, src1, src1.
        let src = if compr { n / 2 } else { n };
        out.push('v');
        push_u32(out, (w1 >> (8 * src)) & 0xff);
    }
    if (w0 >> 11) & 1 != 0 {
        out.push_str(" done");
    }
    if compr {
        out.push_str(" compr");
    }
    if (w0 >> 12) & 1 != 0 {
        out.push_str(" vm");
    }
}

fn print_vintrp(i: &Instruction, out: &mut Line) {
    let w0 = i.word(0);
    out.push_str(" v");
    push_u32(out, (w0 >> 18) & 0xff);
    out.push_str(", ");
    let src = w0 & 0xff;
    if has(i.encoding, Field::Param) {
        match src {
            0 => out.push_str("p10"),
            1 => out.push_str("p20"),
            2 => out.push_str("p0"),
            _ => {
                out.push_str("invalid_param_");
                push_u32(out, src);
            }
        }
    } else {
        out.push_byte(b'v');
        push_u32(out, src);
    }
    out.push_str(", attr");
    push_u32(out, (w0 >> 10) & 0x3f);
    out.push_str([".x", ".y", ".z", ".w"][((w0 >> 8) & 3) as usize]);
}

pub(crate) fn print(i: &Instruction, _opts: PrintOptions, out: &mut Line) {
    out.push_str(i.encoding.mnemonic);
    match i.format() {
        Format::DS => print_ds(i, out),
        Format::FLAT | Format::GLOBAL | Format::SCRATCH => print_flat(i, out),
        Format::MUBUF | Format::MTBUF => print_buf(i, out),
        Format::MIMG => print_mimg(i, out),
        Format::EXP => print_exp(i, out),
        Format::VINTRP => print_vintrp(i, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::{decode, DecodeError, PrintOptions, Target};

    fn text(target: Target, words: &[u32]) -> Result<(usize, String), DecodeError> {
        decode(words, target).map(|i| (i.len(), i.text(PrintOptions::default())))
    }

    /// Expected texts from llvm-mc-19, e.g.
    /// `echo '[0x00,0x80,0x30,0xdc,0x02,0x00,0x7d,0x03]' | llvm-mc-19 -arch=amdgcn -mcpu=gfx1030 --disassemble`.
    #[test]
    fn matches_llvm_mc_19() {
        use Target::*;
        let cases: &[(Target, &[u32], &str)] = &[
            (Gfx1030, &[0xdc308000, 0x037d0002], "global_load_dword v3, v[2:3], off"),
            (Gfx1030, &[0xdc308000, 0x03020002], "global_load_dword v3, v2, s[2:3]"),
            (
                Gfx1030,
                &[0xdc31bff8, 0x037d0002],
                "global_load_dword v[2:3], off offset:-8 glc dlc lds",
            ),
            (
                Gfx1030,
                &[0xdcc50000, 0x037d0302],
                "flat_atomic_cmpswap v3, v[2:3], v[3:4] glc",
            ),
            (Gfx1030, &[0xdc704000, 0x007f0201], "scratch_store_dword off, v2, off"),
            (
                Gfx1010,
                &[0xdc704000, 0x007f0201],
                "scratch_store_dword off, v2, exec_hi/*Invalid register, operand has 'SReg_32_XEXEC_HI' register class*/",
            ),
            (Gfx1030, &[0xd8340004, 0x00000201], "ds_write_b32 v1, v2 offset:4"),
            (
                Gfx1030,
                &[0xd8d48000, 0x05000001],
                "ds_swizzle_b32 v5, v1 offset:swizzle(QUAD_PERM,0,0,0,0)",
            ),
            (
                Gfx1030,
                &[0xd8d4041f, 0x05000001],
                "ds_swizzle_b32 v5, v1 offset:swizzle(SWAP,1)",
            ),
            (Gfx1030, &[0xd8660000, 0x00000003], "ds_gws_init v3 gds"),
            (Gfx1010, &[0xd8000005, 0x00000003], "ds_add_u32 v3, v0 offset:5"),
            (
                Gfx1030,
                &[0xe0307004, 0x02030201],
                "buffer_load_dword v2, v[1:2], s[12:15], s2 idxen offen offset:4 glc",
            ),
            (
                Gfx1030,
                &[0xe0311000, 0xff020201, 0x00000040],
                "buffer_load_dword v1, s[8:11], 64 offen lds",
            ),
            (Gfx1030, &[0xe1c40000, 0x00000000], "buffer_gl0_inv"),
            (
                Gfx1030,
                &[0xead91064, 0x05020201],
                "tbuffer_load_format_xy v[2:3], v1, s[8:11], s5 format:91 offen offset:100",
            ),
            (
                Gfx1030,
                &[0xf0800f08, 0x00020504],
                "image_sample v[5:8], v[4:5], s[8:15], s[0:3] dmask:0xf dim:SQ_RSRC_IMG_2D",
            ),
            (
                Gfx1030,
                &[0xf0800f0a, 0x00020504, 0x00000706],
                "image_sample  v[5:8], [v4, v6], s[8:15], s[0:3] dmask:0xf dim:SQ_RSRC_IMG_2D",
            ),
            (
                Gfx1030,
                &[0xf0c00f02, 0x00224504, 0x00000706],
                "image_sample_o  v[69:72], [v4, v6], s[8:15], s[4:7] dmask:0xf dim:SQ_RSRC_IMG_1D",
            ),
            (
                Gfx1030,
                &[0xf09c0f00, 0x00224504],
                "image_sample_lz v[69:72], v4, s[8:15], s[4:7] dmask:0xf dim:SQ_RSRC_IMG_1D",
            ),
            (
                Gfx1030,
                &[0xf1989f01, 0x00010409],
                "image_bvh_intersect_ray v[4:7], v[9:19], s[4:7]",
            ),
            (
                Gfx1030,
                &[0xf1989f07, 0x00010409, 0x0d0c0b0a, 0x11100f0e, 0x00001312],
                "image_bvh_intersect_ray v[4:7], [v9, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19], s[4:7]",
            ),
            (
                Gfx1030,
                &[0xf8001c0f, 0x04030201],
                "exp mrt0 v1, v1, v2, v2 done compr vm",
            ),
            (Gfx1030, &[0xf80008ef, 0x04030201], "exp pos2 v1, v2, v3, v4 done"),
            (Gfx1030, &[0xc8020002], "v_interp_mov_f32_e32 v0, p0, attr0.x"),
            (
                Gfx1030,
                &[0xc80a0503],
                "v_interp_mov_f32_e32 v2, invalid_param_3, attr1.y",
            ),
        ];
        for (target, words, want) in cases {
            let (len, got) = text(*target, words).unwrap_or_else(|e| panic!("{words:08x?}: {e}"));
            assert_eq!(got, *want, "{words:08x?}");
            assert_eq!(len, words.len(), "{words:08x?}");
        }
    }

    /// Encodings llvm-mc-19 rejects ("invalid instruction encoding").
    #[test]
    fn rejects_what_llvm_rejects() {
        for words in [
            [0xdcc94000u32, 0x037d0302], // atomic op in the SCRATCH segment
            [0xdc312000, 0x00050002],    // FLAT with lds and a scalar address
            [0xdc322fff, 0x037d0002],    // FLAT load with lds
            [0xd8380201, 0x05000001],    // ds_write2_b32 with its vdst byte set
        ] {
            assert!(
                matches!(
                    decode(&words, Target::Gfx1030),
                    Err(DecodeError::Invalid { .. })
                ),
                "{words:08x?}"
            );
        }
    }

    /// Sub-target differences of the memory formats (RDNA 2 drops ds_*_src2_*; gfx1030 adds csub and addtid;
    /// gfx1013 and gfx1030 have ray intersection and image_msaa_load).
    #[test]
    fn sub_target_slots() {
        use crate::{lookup, Format};
        let on = |f, op, t| lookup(f, op, t).map(|e| e.mnemonic);
        assert_eq!(
            on(Format::DS, 0x80, Target::Gfx1010),
            Some("ds_add_src2_u32")
        );
        assert_eq!(on(Format::DS, 0x80, Target::Gfx1030), None);
        assert_eq!(
            on(Format::GLOBAL, 0x34, Target::Gfx1030),
            Some("global_atomic_csub")
        );
        assert_eq!(on(Format::GLOBAL, 0x34, Target::Gfx1010), None);
        assert_eq!(on(Format::MUBUF, 0x34, Target::Gfx1013), None);
        assert_eq!(
            on(Format::GLOBAL, 0x16, Target::Gfx1030),
            Some("global_load_dword_addtid")
        );
        for t in [Target::Gfx1013, Target::Gfx1030] {
            assert_eq!(on(Format::MIMG, 0xe7, t), Some("image_bvh64_intersect_ray"));
            assert_eq!(on(Format::MIMG, 0x80, t), Some("image_msaa_load"));
        }
        assert_eq!(on(Format::MIMG, 0xe6, Target::Gfx1010), None);
    }

    #[test]
    fn nsa_and_literal_words_are_counted() {
        // image_sample with one NSA word, given without it; buffer_load_dword with a literal soffset, likewise.
        assert!(matches!(
            decode(&[0xf0800f0a, 0x00020504], Target::Gfx1030),
            Err(DecodeError::Truncated { needed: 3, .. })
        ));
        assert!(matches!(
            decode(&[0xe0311000, 0xff020201], Target::Gfx1030),
            Err(DecodeError::Truncated { needed: 3, .. })
        ));
        assert!(matches!(
            decode(&[0xd8340004], Target::Gfx1030),
            Err(DecodeError::Truncated { needed: 2, .. })
        ));
    }

    /// Decoding and printing never panic, whatever the words (a cheap xorshift walk over every memory format).
    #[test]
    fn never_panics() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 16) as u32
        };
        let fixed = [0xd8u32, 0xdc, 0xe0, 0xe8, 0xf0, 0xf8, 0xc8];
        for n in 0..70_000 {
            let mut w = [next(), next(), next(), next(), next()];
            w[0] = (w[0] & 0x03ff_ffff) | (fixed[n % fixed.len()] << 24);
            for t in Target::ALL {
                for len in [1, 2, 5] {
                    if let Ok(i) = decode(&w[..len], t) {
                        let _ = i.text(PrintOptions { wave64: n % 2 == 0 });
                    }
                }
            }
        }
    }

    /// The LLVM C API (the differential oracle) appends a warning for a misaligned scalar pair; llvm-mc-19 prints
    /// the same instruction without it: `global_load_dword v3, v2, s[2:3]`.
    #[test]
    fn misaligned_scalar_pair_warns_like_the_c_api() {
        let (_, got) = text(Target::Gfx1030, &[0xdc308000, 0x03030002]).unwrap();
        assert_eq!(
            got,
            "global_load_dword v3, v2, s[2:3] ; Warning: SGPR_64: scalar reg isn't aligned 3"
        );
    }
}
