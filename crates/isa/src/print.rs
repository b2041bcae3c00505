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
        // Empty: the line is built in the stack buffer and appended once, so the string is allocated once,
        // at its length.
        let mut s = String::new();
        self.write_text(opts, &mut s);
        s
    }

    /// [`text`](Self::text) appended to `out` (no allocation when `out` has room: reuse one buffer to
    /// print many instructions).
    pub fn write_text(&self, opts: PrintOptions, out: &mut String) {
        let mut buf = [0u8; CAP];
        let mut line = Line::new(&mut buf, out);
        match self.format() {
            Format::SOP2
            | Format::SOPK
            | Format::SOP1
            | Format::SOPC
            | Format::SOPP
            | Format::SMEM => crate::scalar::print(self, opts, &mut line),
            Format::VOP1 | Format::VOP2 | Format::VOPC | Format::VOP3 | Format::VOP3P => {
                crate::vector::print(self, opts, &mut line)
            }
            _ => crate::memory::print(self, opts, &mut line),
        }
        line.finish();
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
pub const fn kind_regs(kind: Kind) -> u32 {
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

/// Bytes of a [`Line`]'s stack buffer (zeroed per instruction: kept small). A longer line is not an error:
/// the buffer flushes into the output `String` and goes on (the instructions of the bench stream average 38
/// bytes; a flush costs one more `push_str`).
pub(crate) const CAP: usize = 128;
/// Room every fast-path write needs: the fixed-size copies below write up to 32 bytes, of which only the
/// string's own bytes count.
const SLACK: usize = 32;

/// The text of one instruction under construction: a fixed stack buffer written with fixed-size copies (no
/// `memcpy` call, one comparison per piece), appended to the caller's `String` once at the end (decision D109).
/// Warnings LLVM's C API prints in its comment stream are kept apart and appended last, after ` ; `.
///
/// The fixed-size copies are safe code, `copy_from_slice` between slices whose bounds the compiler
/// proves, so a wrong length is a panic in tests, never memory unsafety; tests/print_fuzz.rs drives every
/// path with random words of every format. The one `unsafe` is the unchecked UTF-8 view in `flush_inline`
/// (its invariant is stated there and asserted in debug builds).
pub(crate) struct Line<'a> {
    /// The caller's stack buffer (a reference: moving a `Line` copies no text).
    buf: &'a mut [u8; CAP],
    len: usize,
    out: &'a mut String,
    /// Where this line starts in `out`.
    start: usize,
    /// Warnings of the comment stream (each `Warning: …`), printed after the instruction.
    warn: String,
}

impl<'a> Line<'a> {
    pub(crate) fn new(buf: &'a mut [u8; CAP], out: &'a mut String) -> Self {
        Line {
            buf,
            len: 0,
            start: out.len(),
            out,
            warn: String::new(),
        }
    }

    /// Appends `s`: strings of up to 32 bytes with two overlapping fixed-size copies.
    #[inline]
    pub(crate) fn push_str(&mut self, s: &str) {
        let b = s.as_bytes();
        let n = b.len();
        if n <= SLACK && self.len + SLACK <= CAP {
            let d = &mut self.buf[self.len..self.len + SLACK];
            if n >= 16 {
                d[..16].copy_from_slice(&b[..16]);
                d[n - 16..n].copy_from_slice(&b[n - 16..]);
            } else if n >= 8 {
                d[..8].copy_from_slice(&b[..8]);
                d[n - 8..n].copy_from_slice(&b[n - 8..]);
            } else if n >= 4 {
                d[..4].copy_from_slice(&b[..4]);
                d[n - 4..n].copy_from_slice(&b[n - 4..]);
            } else if n > 0 {
                d[0] = b[0];
                d[n / 2] = b[n / 2];
                d[n - 1] = b[n - 1];
            }
            self.len += n;
        } else {
            self.push_long(s);
        }
    }

    #[cold]
    #[inline(never)]
    fn push_long(&mut self, s: &str) {
        if self.len + s.len() > CAP {
            self.flush();
        }
        if s.len() > CAP {
            self.out.push_str(s);
        } else {
            self.buf[self.len..self.len + s.len()].copy_from_slice(s.as_bytes());
            self.len += s.len();
        }
    }

    /// Appends one ASCII byte (`b'['`, `b','`, …; anything else would break the buffer's UTF-8 invariant
    /// and is replaced by `?`, a branch-free select: every caller passes ASCII).
    #[inline]
    pub(crate) fn push_byte(&mut self, c: u8) {
        debug_assert!(c.is_ascii());
        let c = if c.is_ascii() { c } else { b'?' };
        if self.len >= CAP {
            self.flush();
        }
        self.buf[self.len] = c;
        self.len += 1;
    }

    /// Appends a character (ASCII in practice; anything else through its UTF-8 bytes).
    #[inline]
    pub(crate) fn push(&mut self, c: char) {
        if c.is_ascii() {
            self.push_byte(c as u8);
        } else {
            self.push_str(c.encode_utf8(&mut [0; 4]));
        }
    }

    #[cold]
    #[inline(never)]
    fn flush(&mut self) {
        self.flush_inline();
    }

    /// Moves the buffer into the output string.
    #[inline]
    fn flush_inline(&mut self) {
        let text = &self.buf[..self.len];
        // SAFETY: `buf[..len]` is valid UTF-8. Every write into it appends either the bytes of a whole `&str`
        // (`push_str`: the two overlapping copies of the fast path write exactly `s` at `len..len + n`; bytes
        // written beyond `len + n` are scratch, overwritten or never read), a byte that `push_byte` forces to
        // ASCII, or the ASCII digits of `DEC` and `push_u32_long`; `len` only grows by the bytes so written,
        // and a flush empties the buffer whole. So `text` is a concatenation of valid UTF-8 strings.
        // (`std::str::from_utf8` here cost ~90 machine instructions per line, 8 % of decode + print;
        // tests/print_fuzz.rs checks the result with `from_utf8` over random instructions of every format.)
        debug_assert!(std::str::from_utf8(text).is_ok());
        self.out
            .push_str(unsafe { std::str::from_utf8_unchecked(text) });
        self.len = 0;
    }

    /// The output string with everything printed so far in it, and where this line starts in it (for the
    /// rare edits that look back).
    pub(crate) fn flushed_out(&mut self) -> (&mut String, usize) {
        self.flush();
        (self.out, self.start)
    }

    /// Records a warning for the comment stream (printed after the instruction, in order).
    pub(crate) fn warning(&mut self) -> &mut String {
        &mut self.warn
    }

    /// Appends the line (and its warnings) to the output.
    #[inline]
    pub(crate) fn finish(&mut self) {
        self.flush_inline();
        if !self.warn.is_empty() {
            // The comment stream starts with " ; " once; consecutive warnings follow each other directly.
            self.out.push_str(" ; ");
            self.out.push_str(&self.warn);
        }
    }
}

impl std::fmt::Write for Line<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

/// Decimal text of 0..=999 in three bytes, its length in the fourth.
static DEC: [[u8; 4]; 1000] = dec_table();

const fn dec_table() -> [[u8; 4]; 1000] {
    let mut t = [[0u8; 4]; 1000];
    let mut v = 0;
    while v < 1000 {
        let (h, d, u) = ((v / 100) as u8, ((v / 10) % 10) as u8, (v % 10) as u8);
        t[v] = if v < 10 {
            [b'0' + u, 0, 0, 1]
        } else if v < 100 {
            [b'0' + d, b'0' + u, 0, 2]
        } else {
            [b'0' + h, b'0' + d, b'0' + u, 3]
        };
        v += 1;
    }
    t
}

/// Appends `v` in decimal (the hot path of every register number and offset: one 4-byte copy below 1000).
#[inline]
pub(crate) fn push_u32(out: &mut Line, v: u32) {
    if v < 1000 && out.len + SLACK <= CAP {
        let e = DEC[v as usize];
        out.buf[out.len..out.len + 4].copy_from_slice(&e);
        out.len += e[3] as usize;
    } else {
        push_u32_long(out, v);
    }
}

#[inline(never)]
fn push_u32_long(out: &mut Line, mut v: u32) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &b in &buf[i..] {
        out.push_byte(b);
    }
}

/// Appends `v` in decimal with a leading `-` when negative.
#[inline]
pub(crate) fn push_i64(out: &mut Line, v: i64) {
    if v < 0 {
        out.push_byte(b'-');
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
        out.push_byte(b);
    }
}

/// Appends `0x` and `v` in lower-case hexadecimal (as `{:#x}` / `0x{:x}`).
#[inline]
pub(crate) fn push_hex(out: &mut Line, v: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    if out.len + SLACK <= CAP {
        // `0x` and at most 16 digits: one capacity check.
        let at = out.len;
        let b = &mut out.buf[at..at + SLACK];
        let nd = (67 - (v | 1).leading_zeros() as usize) / 4;
        b[0] = b'0';
        b[1] = b'x';
        for (k, d) in b[2..2 + nd].iter_mut().enumerate() {
            *d = DIGITS[((v >> (4 * (nd - 1 - k))) & 0xf) as usize];
        }
        out.len = at + 2 + nd;
        return;
    }
    out.push_str("0x");
    if v == 0 {
        out.push_byte(b'0');
        return;
    }
    let mut shift = (63 - v.leading_zeros()) / 4 * 4;
    loop {
        out.push_byte(DIGITS[((v >> shift) & 0xf) as usize]);
        if shift == 0 {
            break;
        }
        shift -= 4;
    }
}

/// Prints a register range of `count` registers from `file` (`s`, `v`, `ttmp`) starting at `first`.
#[inline]
pub(crate) fn reg_range(out: &mut Line, file: &str, first: u32, count: u32) {
    // Callers pass the file as a literal: after inlining, this test folds and a single `v`/`s` register
    // is one 8-byte store.
    if count == 1 && file.len() == 1 {
        reg1(out, file.as_bytes()[0], first);
    } else {
        reg_range_long(out, file, first, count);
    }
}

/// A single register of a one-letter file (`v7`, `s105`): the letter and up to three digits in one 8-byte
/// store.
#[inline]
fn reg1(out: &mut Line, file: u8, n: u32) {
    if n < 1000 && out.len + SLACK <= CAP && file.is_ascii() {
        let d = DEC[n as usize];
        let at = out.len;
        out.buf[at..at + 8].copy_from_slice(&[file, d[0], d[1], d[2], 0, 0, 0, 0]);
        out.len = at + 1 + d[3] as usize;
    } else {
        out.push_byte(file);
        push_u32(out, n);
    }
}

#[inline(never)]
fn reg_range_long(out: &mut Line, file: &str, first: u32, count: u32) {
    let last = first.wrapping_add(count).wrapping_sub(1);
    let f = file.as_bytes();
    if out.len + SLACK <= CAP && (f.len() == 1 || f.len() == 4) && first < 1000 && last < 1000 {
        // The fast path (`v`, `s`, `ttmp`): one capacity check, then fixed-size writes into the next 32
        // bytes (at most 4 + 1 + 3 + 1 + 3 + 1 = 13 of them count).
        let at = out.len;
        let b = &mut out.buf[at..at + SLACK];
        let mut p = f.len();
        if p == 1 {
            b[0] = f[0];
        } else {
            b[..4].copy_from_slice(&f[..4]);
        }
        let d = DEC[first as usize];
        if count == 1 {
            b[p..p + 4].copy_from_slice(&d);
            p += d[3] as usize;
        } else {
            b[p] = b'[';
            b[p + 1..p + 5].copy_from_slice(&d);
            p += 1 + d[3] as usize;
            b[p] = b':';
            let d = DEC[last as usize];
            b[p + 1..p + 5].copy_from_slice(&d);
            p += 1 + d[3] as usize;
            b[p] = b']';
            p += 1;
        }
        out.len = at + p;
        return;
    }
    out.push_str(file);
    if count == 1 {
        push_u32(out, first);
    } else {
        out.push_byte(b'[');
        push_u32(out, first);
        out.push_byte(b':');
        push_u32(out, first + count - 1);
        out.push_byte(b']');
    }
}

/// Prints a scalar register operand (SGPR-file encodings 0..=127) of `count` registers.
/// Returns false if the encoding is not a scalar register.
pub(crate) fn scalar_reg(out: &mut Line, enc: u32, count: u32) -> bool {
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
pub(crate) fn source(out: &mut Line, enc: u32, kind: Kind, literal: Option<u32>) {
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
pub(crate) fn inline_float(out: &mut Line, enc: u32, kind: Kind) {
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
pub(crate) fn literal_value(out: &mut Line, lit: u32, kind: Kind) {
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

/// A lane-mask SGPR operand (`vcc_lo`/`s4` in wave32, `vcc`/`s[4:5]` in wave64) from an SGPR-file encoding.
pub(crate) fn lane_mask_reg(out: &mut Line, enc: u32, wave64: bool) {
    vector_source(out, enc, Kind::Lm, None, wave64)
}

fn is_inline_value_reg(enc: u32) -> bool {
    matches!(enc, 125 | 235..=239 | 251..=253)
}

/// A vector-ALU source operand (9-bit encoding: 256.. are VGPRs) printed as LLVM-19 prints it, with the
/// literal class of `kind` and, for operands restricted to a register class, LLVM's
/// `/*Invalid register ...*/` or `/*Invalid immediate*/` annotation when the encoding lies outside it.
pub(crate) fn vector_source(
    out: &mut Line,
    enc: u32,
    kind: Kind,
    literal: Option<u32>,
    wave64: bool,
) {
    // The common cases first, each printing what the general path below prints for it: a VGPR operand of
    // a kind that accepts VGPRs (no annotation), and a single SGPR of a kind that accepts SGPRs.
    let vgpr_ok = !matches!(kind, Kind::Ss | Kind::Sc | Kind::Sl | Kind::Lmx | Kind::Lm);
    if enc >= 256 && vgpr_ok {
        reg_range(out, "v", enc - 256, kind_regs(kind));
        return;
    }
    let one = kind_regs(kind) == 1 && (!wave64 || !matches!(kind, Kind::Lm | Kind::Lmx));
    if enc < 106 && one && !matches!(kind, Kind::V | Kind::Vl | Kind::V128) {
        reg_range(out, "s", enc, 1);
        return;
    }
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
                out.warning(),
                "Warning: {file}_{}: scalar reg isn't aligned {n}",
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
fn vector_literal(out: &mut Line, lit: u32, kind: Kind) {
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

#[cfg(test)]
mod line_tests {
    use super::*;

    /// Every write of a `Line` — strings of 0..=300 bytes (the fixed-size fast paths and the long path),
    /// single bytes, decimal and hex numbers — appends what `String`'s own writers append, across flushes of
    /// the stack buffer, after text already in the output.
    #[test]
    fn line_writes_what_string_writes() {
        let alphabet: Vec<char> = ('a'..='z')
            .chain('0'..='9')
            .chain(['[', ':', ']', ' '])
            .collect();
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..300 {
            let mut out = String::from("prefix ");
            let mut want = out.clone();
            let mut buf = [0u8; CAP];
            let mut line = Line::new(&mut buf, &mut out);
            for _ in 0..(round % 40) {
                let r = next();
                match r % 6 {
                    0 | 1 => {
                        let n = if r % 7 == 0 {
                            (r >> 8) % 300
                        } else {
                            (r >> 8) % 40
                        } as usize;
                        let s: String = (0..n)
                            .map(|k| alphabet[(k * 7 + n) % alphabet.len()])
                            .collect();
                        line.push_str(&s);
                        want.push_str(&s);
                    }
                    2 => {
                        let c = alphabet[((r >> 8) % alphabet.len() as u64) as usize];
                        line.push(c);
                        want.push(c);
                    }
                    3 => {
                        let v = (r >> 8) as u32 >> ((r >> 40) % 32);
                        push_u32(&mut line, v);
                        want.push_str(&v.to_string());
                    }
                    4 => {
                        let v = (r >> 8) as i64 - (1 << 40);
                        push_i64(&mut line, v);
                        want.push_str(&v.to_string());
                    }
                    _ => {
                        let v = r >> ((r >> 58) % 64);
                        push_hex(&mut line, v);
                        want.push_str(&format!("{v:#x}"));
                    }
                }
            }
            line.warning().push_str("Warning: w");
            line.finish();
            want.push_str(" ; Warning: w");
            assert_eq!(out, want, "round {round}");
        }
    }
}
