//! LLVM-syntax printing shared by every format: register names, inline constants and literals, exactly as
//! llvm-objdump-19 prints them (the differential test in tests/llvm_differential.rs is the judge).

use crate::decode::{Instruction, Variant};
use crate::generated::Kind;
use crate::table::Format;
use std::fmt::Write as _;

/// How to print: the wave size changes how lane masks print (`vcc_lo` in wave32, `vcc` in wave64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrintOptions {
    pub wave64: bool,
}

impl Instruction {
    /// The instruction as llvm-objdump-19 prints it (without the `// offset: words` comment).
    pub fn text(&self, opts: PrintOptions) -> String {
        let mut s = String::with_capacity(48);
        self.write_text(opts, &mut s);
        s
    }

    /// [`text`](Self::text) appended to `out` (no allocation when `out` has room: reuse one buffer to
    /// print many instructions).
    pub fn write_text(&self, opts: PrintOptions, out: &mut String) {
        match self.format() {
            Format::SOP2
            | Format::SOPK
            | Format::SOP1
            | Format::SOPC
            | Format::SOPP
            | Format::SMEM => crate::scalar::print(self, opts, out),
            Format::VOP1 | Format::VOP2 | Format::VOPC | Format::VOP3 | Format::VOP3P => {
                crate::vector::print(self, opts, out)
            }
            _ => crate::memory::print(self, opts, out),
        }
    }

    /// The target of a relative branch (`s_branch`, `s_cbranch_*`, …) given this instruction's address.
    pub fn branch_target(&self, address: u64) -> Option<u64> {
        if self.format() != Format::SOPP || !crate::scalar::is_branch(self.encoding) {
            return None;
        }
        let simm = self.word(0) as u16 as i16 as i64;
        Some(address.wrapping_add(4).wrapping_add((simm * 4) as u64))
    }

    /// Whether LLVM accepts this instruction under `opts`: decoding does not depend on the wave size, but in
    /// wave64 a lane-mask operand is a register pair, and LLVM rejects pairs that start at vcc_hi, m0 or
    /// exec_hi.
    pub fn valid_for(&self, opts: PrintOptions) -> bool {
        match self.format() {
            Format::VOP1 | Format::VOP2 | Format::VOPC | Format::VOP3 | Format::VOP3P => {
                crate::vector::lane_masks_valid(self, opts.wave64)
            }
            _ => true,
        }
    }

    /// True for DPP16/DPP8/SDWA forms.
    pub fn has_modifier_word(&self) -> bool {
        self.variant != Variant::Plain
    }
}

/// Width in 32-bit registers of an operand kind (packed and 16-bit kinds take one register).
pub fn kind_regs(kind: Kind) -> u32 {
    match kind {
        Kind::B64 | Kind::F64 => 2,
        Kind::B96 => 3,
        Kind::B128 | Kind::V128 => 4,
        Kind::B160 => 5,
        Kind::B192 => 6,
        Kind::B256 => 8,
        Kind::B512 => 16,
        Kind::B32 | Kind::F16 | Kind::I16 | Kind::P16 => 1,
        // Scalar kinds (scalar.rs): a register-only 64-bit source, and immediates printed symbolically.
        Kind::R64 => 2,
        Kind::R32
        | Kind::Hex
        | Kind::Imm
        | Kind::Label
        | Kind::Endpgm
        | Kind::Hwreg
        | Kind::Waitcnt
        | Kind::Sendmsg
        | Kind::Depctr
        | Kind::Version
        | Kind::Smem => 1,
        Kind::V | Kind::Vl | Kind::Ss | Kind::Sc | Kind::Sl => 1,
        // A lane mask: one SGPR in wave32 (the printer widens it in wave64).
        Kind::Lm | Kind::Lmx => 1,
    }
}

/// "00" to "99", for two digits at a time.
const DEC2: &str = "00010203040506070809101112131415161718192021222324252627282930313233343536373839\
                    40414243444546474849505152535455565758596061626364656667686970717273747576777879\
                    8081828384858687888990919293949596979899";

/// Appends `v` in decimal (the hot path of every register number and offset: no `fmt` machinery).
#[inline]
pub fn push_u32(out: &mut String, v: u32) {
    if v < 10 {
        out.push((b'0' + v as u8) as char);
    } else if v < 100 {
        out.push_str(&DEC2[2 * v as usize..2 * v as usize + 2]);
    } else if v < 1000 {
        out.push((b'0' + (v / 100) as u8) as char);
        let r = (v % 100) as usize;
        out.push_str(&DEC2[2 * r..2 * r + 2]);
    } else {
        push_u32_long(out, v);
    }
}

#[inline(never)]
fn push_u32_long(out: &mut String, mut v: u32) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    while v != 0 {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    for &b in &buf[i..] {
        out.push(b as char);
    }
}

/// Appends `v` in decimal with a leading `-` when negative.
#[inline]
pub fn push_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    let mut u = v.unsigned_abs();
    if u <= u32::MAX as u64 {
        push_u32(out, u as u32);
        return;
    }
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    while u != 0 {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
    }
    for &b in &buf[i..] {
        out.push(b as char);
    }
}

/// Appends `0x` and `v` in lower-case hexadecimal (as `{:#x}` / `0x{:x}`).
#[inline]
pub fn push_hex(out: &mut String, v: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.push_str("0x");
    if v == 0 {
        out.push('0');
        return;
    }
    let mut shift = (63 - v.leading_zeros()) / 4 * 4;
    loop {
        out.push(DIGITS[((v >> shift) & 0xf) as usize] as char);
        if shift == 0 {
            break;
        }
        shift -= 4;
    }
}

/// Prints a register range of `count` registers from `file` (`s`, `v`, `ttmp`) starting at `first`.
pub fn reg_range(out: &mut String, file: &str, first: u32, count: u32) {
    match file.as_bytes() {
        [c] => out.push(*c as char),
        _ => out.push_str(file),
    }
    if count == 1 {
        push_u32(out, first);
    } else {
        out.push('[');
        push_u32(out, first);
        out.push(':');
        push_u32(out, first + count - 1);
        out.push(']');
    }
}

/// Prints a scalar register operand (SGPR-file encodings 0..=127) of `count` registers.
/// Returns false if the encoding is not a scalar register.
pub fn scalar_reg(out: &mut String, enc: u32, count: u32) -> bool {
    match enc {
        0..=105 => reg_range(out, "s", enc, count),
        106 => out.push_str(if count == 2 { "vcc" } else { "vcc_lo" }),
        107 => out.push_str("vcc_hi"),
        108..=123 => reg_range(out, "ttmp", enc - 108, count),
        124 => out.push_str("m0"),
        125 => out.push_str("null"),
        126 => out.push_str(if count == 2 { "exec" } else { "exec_lo" }),
        127 => out.push_str("exec_hi"),
        _ => return false,
    }
    true
}

/// Prints a source operand given its 9-bit (VOP) or 8-bit (SOP, the caller passes the same numbering)
/// encoding, its kind and the instruction's literal.
pub fn source(out: &mut String, enc: u32, kind: Kind, literal: Option<u32>) {
    let count = kind_regs(kind);
    if enc >= 256 {
        reg_range(out, "v", enc - 256, count);
        return;
    }
    if scalar_reg(out, enc, count) {
        return;
    }
    match enc {
        128..=192 => {
            push_u32(out, enc - 128);
        }
        193..=208 => {
            out.push('-');
            push_u32(out, enc - 192);
        }
        240..=248 => inline_float(out, enc, kind),
        235 => out.push_str("src_shared_base"),
        236 => out.push_str("src_shared_limit"),
        237 => out.push_str("src_private_base"),
        238 => out.push_str("src_private_limit"),
        239 => out.push_str("src_pops_exiting_wave_id"),
        251 => out.push_str("src_vccz"),
        252 => out.push_str("src_execz"),
        253 => out.push_str("src_scc"),
        254 => out.push_str("src_lds_direct"),
        255 => literal_value(out, literal.unwrap_or(0), kind),
        _ => {
            let _ = write!(out, "invalid_{enc}");
        }
    }
}

const INLINE_FLOATS: [&str; 8] = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"];

/// The float inline constants 240..=248.
pub fn inline_float(out: &mut String, enc: u32, kind: Kind) {
    if enc == 248 {
        out.push_str(match kind {
            // A 64-bit operand (integer or float) decodes 1/(2*pi) as the double and prints it in full.
            Kind::F64 | Kind::B64 => "0.15915494309189532",
            Kind::I16 => "0x3118",
            _ => "0.15915494",
        });
        return;
    }
    let i = (enc - 240) as usize;
    if kind == Kind::I16 {
        // A 16-bit integer operand prints the half-precision bit pattern.
        const HALF: [u16; 8] = [
            0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400,
        ];
        push_hex(out, HALF[i] as u64);
        return;
    }
    out.push_str(INLINE_FLOATS[i]);
}

/// A literal constant: LLVM prints a literal whose value equals an inline constant of the operand's type as
/// that constant, and any other literal in hex (16-bit operands keep their low half).
pub fn literal_value(out: &mut String, lit: u32, kind: Kind) {
    match kind {
        Kind::F16 | Kind::I16 => {
            let v = lit & 0xffff;
            if kind == Kind::F16 {
                if let Some(s) = half_inline_text(v as u16) {
                    out.push_str(s);
                    return;
                }
            }
            push_hex(out, v as u64);
        }
        Kind::F64 => {
            // The literal holds the high 32 bits of the double.
            let bits = (lit as u64) << 32;
            if let Some(s) = double_inline_text(bits) {
                out.push_str(s);
            } else {
                push_hex(out, lit as u64);
            }
        }
        // A 64-bit integer operand zero-extends its literal: decimal when it is an inline integer (0..=64),
        // else hex; never a float (LLVM's printImmediate64 compares with double bit patterns).
        Kind::B64 if lit <= 64 => {
            push_u32(out, lit);
        }
        Kind::B64 => {
            push_hex(out, lit as u64);
        }
        // A 32-bit literal whose value is an inline integer prints in decimal (printImmediate32).
        Kind::B32 if (-16..=64).contains(&(lit as i32)) => {
            push_i64(out, lit as i32 as i64);
        }
        _ => {
            if let Some(s) = single_inline_text(lit) {
                out.push_str(s);
            } else {
                push_hex(out, lit as u64);
            }
        }
    }
}

fn single_inline_text(v: u32) -> Option<&'static str> {
    const F: [f32; 8] = [0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0];
    F.iter()
        .position(|f| f.to_bits() == v)
        .map(|i| INLINE_FLOATS[i])
        .or(if v == 0x3e22f983 {
            Some("0.15915494")
        } else {
            None
        })
}

fn half_inline_text(v: u16) -> Option<&'static str> {
    const H: [u16; 8] = [
        0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400,
    ];
    H.iter()
        .position(|h| *h == v)
        .map(|i| INLINE_FLOATS[i])
        .or(if v == 0x3118 {
            Some("0.15915494")
        } else {
            None
        })
}

fn double_inline_text(v: u64) -> Option<&'static str> {
    const D: [f64; 8] = [0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0];
    D.iter()
        .position(|d| d.to_bits() == v)
        .map(|i| INLINE_FLOATS[i])
}

const WARN_START: char = '\u{1}';
const WARN_END: char = '\u{2}';

/// Whether `line` holds [`WARN_START`] (byte 1): eight bytes at a time (the line is short; a call to
/// `memchr` or a byte loop cost more than the test).
fn has_warn_start(line: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut chunks = line.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) ^ ONES;
        // A zero byte of x is a byte 1 of the line.
        if x.wrapping_sub(ONES) & !x & (ONES << 7) != 0 {
            return true;
        }
    }
    chunks.remainder().contains(&(WARN_START as u8))
}

/// Moves the warnings [`vector_source`] left in `out[start..]` (the instruction just printed) to the end of
/// the line, where LLVM's C API prints its comment stream.
pub fn finish_warnings(out: &mut String, start: usize) {
    if !has_warn_start(&out.as_bytes()[start..]) {
        return;
    }
    let line = out.split_off(start);
    let mut text = String::with_capacity(line.len());
    let mut warns = String::new();
    let mut in_warn = false;
    for c in line.chars() {
        match c {
            WARN_START => in_warn = true,
            WARN_END => in_warn = false,
            _ if in_warn => warns.push(c),
            _ => text.push(c),
        }
    }
    // The comment stream starts with " ; " once; consecutive warnings follow each other directly.
    text.push_str(" ; ");
    text.push_str(&warns);
    out.push_str(&text);
}

/// A lane-mask SGPR operand (`vcc_lo`/`s4` in wave32, `vcc`/`s[4:5]` in wave64) from an SGPR-file encoding.
pub fn lane_mask_reg(out: &mut String, enc: u32, wave64: bool) {
    vector_source(out, enc, Kind::Lm, None, wave64)
}

fn is_inline_value_reg(enc: u32) -> bool {
    matches!(enc, 125 | 235..=239 | 251..=253)
}

/// A vector-ALU source operand (9-bit encoding: 256.. are VGPRs) printed as LLVM-19 prints it, with the
/// literal class of `kind` and, for operands restricted to a register class, LLVM's
/// `/*Invalid register ...*/` or `/*Invalid immediate*/` annotation when the encoding lies outside it.
pub fn vector_source(out: &mut String, enc: u32, kind: Kind, literal: Option<u32>, wave64: bool) {
    let (count, class): (u32, Option<&str>) = match kind {
        Kind::Lm => (if wave64 { 2 } else { 1 }, None),
        Kind::V128 => (4, Some("VReg_128")),
        Kind::Lmx => (if wave64 { 2 } else { 1 }, Some("SReg_1_XEXEC")),
        Kind::Sc => (1, Some("SReg_32")),
        Kind::V => (1, Some("VGPR_32")),
        Kind::Vl => (1, Some("VRegOrLds_32")),
        Kind::Ss => (1, Some("SReg_32")),
        Kind::Sl => (1, Some("SRegOrLds_32")),
        _ => (kind_regs(kind), None),
    };
    let is_reg = !(128..256).contains(&enc) || enc == 254 || is_inline_value_reg(enc);
    if enc >= 256 {
        reg_range(out, "v", enc - 256, count);
    } else if enc < 128 {
        let mut e = enc;
        let align = if count >= 4 { 4 } else { 2 };
        if count >= 2 && enc & (align - 1) != 0 && (enc < 106 || (108..124).contains(&enc)) {
            // LLVM aligns a misaligned SGPR/TTMP tuple down and warns in the comment stream (printed last).
            e = enc - enc % align;
            let (file, n) = if enc < 106 {
                ("SGPR", enc)
            } else {
                ("TTMP", enc - 108)
            };
            let _ = write!(
                out,
                "{WARN_START}Warning: {file}_{}: scalar reg isn't aligned {n}{WARN_END}",
                32 * count
            );
        }
        if count > 2 && (e == 106 || e == 126) {
            // A wider tuple at vcc/exec prints the pair's name.
            out.push_str(if e == 106 { "vcc" } else { "exec" });
        } else if !scalar_reg(out, e, count) {
            let _ = write!(out, "invalid_{enc}");
        }
    } else {
        let lk = match kind {
            Kind::F16 | Kind::I16 | Kind::F64 | Kind::B64 | Kind::P16 => kind,
            _ => Kind::B32,
        };
        match enc {
            128..=192 => push_u32(out, enc - 128),
            193..=208 => {
                out.push('-');
                push_u32(out, enc - 192);
            }
            240..=248 => inline_float(out, enc, if lk == Kind::B64 { Kind::F64 } else { lk }),
            235 => out.push_str("src_shared_base"),
            236 => out.push_str("src_shared_limit"),
            237 => out.push_str("src_private_base"),
            238 => out.push_str("src_private_limit"),
            239 => out.push_str("src_pops_exiting_wave_id"),
            251 => out.push_str("src_vccz"),
            252 => out.push_str("src_execz"),
            253 => out.push_str("src_scc"),
            254 => out.push_str("src_lds_direct"),
            255 => vector_literal(out, literal.unwrap_or(0), lk),
            _ => {
                let _ = write!(out, "invalid_{enc}");
            }
        }
    }
    let Some(class) = class else {
        if kind == Kind::Lm && !is_reg {
            out.push_str("/*Invalid immediate*/");
        } else if kind == Kind::Lm && enc == 254 {
            // (In wave64 LLVM rejects the instruction instead: Instruction::valid_for.)
            out.push_str("/*Invalid register, operand has 'SReg_1' register class*/");
        }
        return;
    };
    if matches!(kind, Kind::Sc | Kind::Sl) && !is_reg {
        // These source classes take constants (inline or literal) as well as their registers.
        return;
    }
    if !is_reg {
        out.push_str("/*Invalid immediate*/");
        return;
    }
    if is_inline_value_reg(enc) {
        return;
    }
    let ok = match kind {
        Kind::V | Kind::V128 => enc >= 256,
        Kind::Vl => enc >= 256 || enc == 254,
        Kind::Ss | Kind::Sc => enc < 128 && enc != 125,
        Kind::Sl => (enc < 128 && enc != 125) || enc == 254,
        _ => enc < 128 && enc != 126 && enc != 127 && enc != 125,
    };
    if !ok {
        let _ = write!(
            out,
            "/*Invalid register, operand has '{class}' register class*/"
        );
    }
}

/// A 32-bit literal of a vector-ALU operand, printed per LLVM-19's rules for the operand's literal class.
fn vector_literal(out: &mut String, lit: u32, kind: Kind) {
    let int_inline = |v: i64| (-16..=64).contains(&v);
    match kind {
        Kind::F16 => {
            let v = lit as u16;
            if int_inline(v as i16 as i64) {
                push_i64(out, v as i16 as i64);
            } else if let Some(s) = half_inline_text(v) {
                out.push_str(s);
            } else {
                push_hex(out, v as u64);
            }
        }
        Kind::I16 => {
            if int_inline(lit as i32 as i64) {
                push_i64(out, lit as i32 as i64);
            } else if let Some(s) = single_inline_text(lit) {
                out.push_str(s);
            } else {
                push_hex(out, (lit & 0xffff) as u64);
            }
        }
        Kind::P16 => {
            if int_inline(lit as i32 as i64) {
                push_i64(out, lit as i32 as i64);
            } else if let Some(s) = (lit <= 0xffff)
                .then(|| half_inline_text(lit as u16))
                .flatten()
            {
                out.push_str(s);
            } else {
                push_hex(out, lit as u64);
            }
        }
        Kind::F64 => {
            let bits = (lit as u64) << 32;
            if int_inline(bits as i64) {
                push_i64(out, bits as i64);
            } else if let Some(s) = double_inline_text(bits) {
                out.push_str(s);
            } else {
                push_hex(out, lit as u64);
            }
        }
        Kind::B64 => {
            if int_inline(lit as i64) {
                push_u32(out, lit);
            } else {
                push_hex(out, lit as u64);
            }
        }
        _ => {
            if int_inline(lit as i32 as i64) {
                push_i64(out, lit as i32 as i64);
            } else if let Some(s) = single_inline_text(lit) {
                out.push_str(s);
            } else {
                push_hex(out, lit as u64);
            }
        }
    }
}
