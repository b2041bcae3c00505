//! Scalar formats: SOP2, SOPK, SOP1, SOPC, SOPP, SMEM.

use crate::decode::{need, slot, DecodeError, Instruction, Variant};
use crate::generated::Field;
use crate::print::{source, PrintOptions};
use crate::table::{Encoding, Format, Operand, Target};

pub(crate) fn decode(
    format: Format,
    words: &[u32],
    target: Target,
) -> Result<Instruction, DecodeError> {
    let w0 = words[0];
    match format {
        Format::SOP2 => {
            let e = slot(format, (w0 >> 23) & 0x7f, target, w0)?;
            let lit = (w0 & 0xff) == 0xff || ((w0 >> 8) & 0xff) == 0xff;
            finish(format, e, words, lit)
        }
        _ => Err(DecodeError::Unsupported {
            format,
            word: w0,
            reason: "format not implemented yet",
        }),
    }
}

fn finish(
    format: Format,
    e: &'static Encoding,
    words: &[u32],
    lit: bool,
) -> Result<Instruction, DecodeError> {
    let n = 1 + lit as usize;
    need(format, words, n)?;
    Ok(Instruction::new(
        e,
        Variant::Plain,
        &words[..n],
        lit.then(|| words[1]),
    ))
}

pub(crate) fn print(i: &Instruction, _opts: PrintOptions, out: &mut String) {
    let e = i.encoding;
    out.push_str(e.mnemonic);
    let w0 = i.word(0);
    for (n, op) in e.operands.iter().enumerate() {
        out.push_str(if n == 0 { " " } else { ", " });
        match *op {
            Operand::Fixed(t) => out.push_str(t),
            Operand::Field(f, k) => {
                let enc = match f {
                    Field::Sdst => (w0 >> 16) & 0x7f,
                    Field::Ssrc0 => w0 & 0xff,
                    Field::Ssrc1 => (w0 >> 8) & 0xff,
                    _ => 0,
                };
                source(out, enc, k, i.literal);
            }
        }
    }
}

/// SOPP branches whose simm16 is a relative word offset.
pub(crate) fn is_branch(e: &Encoding) -> bool {
    e.mnemonic == "s_branch" || e.mnemonic.starts_with("s_cbranch_")
}
