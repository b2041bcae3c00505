//! The total decoder: words in, an [`Instruction`] or a [`DecodeError`] out, never a panic.
//!
//! Format selection follows the fixed bits of the first word (AMD RDNA 2 ISA guide, "Microcode Formats").
//! Each format's module checks the fields LLVM requires to be zero (so that an encoding LLVM rejects is
//! rejected here too) and measures the length (literals, DPP/SDWA words, NSA address words).

use crate::table::{Encoding, Format, Target};

/// The longest instruction in words (MIMG with NSA: 2 + 3 address words; a VOP3 with a literal is 3).
pub const MAX_WORDS: usize = 5;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The words end inside the instruction.
    #[error("truncated instruction: {format:?} needs {needed} words, {available} available")]
    Truncated {
        format: Option<Format>,
        needed: usize,
        available: usize,
    },
    /// No valid instruction is encoded here (LLVM rejects it too).
    #[error("invalid encoding 0x{word:08x}: {reason}")]
    Invalid { word: u32, reason: &'static str },
    /// A valid encoding this decoder does not handle yet.
    #[error("unsupported {format:?} encoding 0x{word:08x}: {reason}")]
    Unsupported {
        format: Format,
        word: u32,
        reason: &'static str,
    },
}

/// The modifier word variant of a VOP1/VOP2/VOPC instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// The plain encoding (VOP3, SMEM, … are always plain).
    Plain,
    /// src0 = 0xfa: a DPP16 control word follows.
    Dpp16,
    /// src0 = 0xe9 (fi:0) or 0xea (fi:1): a DPP8 lane-select word follows.
    Dpp8,
    /// src0 = 0xf9: an SDWA word follows.
    Sdwa,
}

/// One decoded instruction: its table row, its raw words and where its literal (if any) sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instruction {
    pub encoding: &'static Encoding,
    pub variant: Variant,
    words: [u32; MAX_WORDS],
    len: u8,
    /// The 32-bit literal constant, if the instruction carries one (always its last word).
    pub literal: Option<u32>,
}

impl Instruction {
    pub(crate) fn new(
        encoding: &'static Encoding,
        variant: Variant,
        words: &[u32],
        literal: Option<u32>,
    ) -> Self {
        let len = words.len().min(MAX_WORDS);
        // Five selects, not a copy of `len` words: no `memset`/`memcpy` call.
        let g = |k: usize| if k < len { words[k] } else { 0 };
        let w = [g(0), g(1), g(2), g(3), g(4)];
        Instruction {
            encoding,
            variant,
            words: w,
            len: len as u8,
            literal,
        }
    }

    /// The words this instruction occupies.
    pub fn words(&self) -> &[u32] {
        &self.words[..self.len as usize]
    }

    /// Length in words.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Always false: an instruction has at least one word.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn format(&self) -> Format {
        self.encoding.format
    }

    pub fn opcode(&self) -> crate::Opcode {
        self.encoding.opcode
    }

    /// Word `i` (0 if absent).
    pub fn word(&self, i: usize) -> u32 {
        // The words past `len` are zero (`new`), so no slicing to `len` first.
        self.words.get(i).copied().unwrap_or(0)
    }
}

/// The format a first word belongs to (by its fixed bits), or None for a word no format owns.
pub fn classify(w0: u32) -> Option<Format> {
    if w0 >> 31 == 0 {
        return Some(match w0 >> 25 {
            0x3e => Format::VOPC,
            0x3f => Format::VOP1,
            _ => Format::VOP2,
        });
    }
    if w0 >> 30 == 0b10 {
        return Some(match w0 >> 23 {
            0x17d => Format::SOP1,
            0x17e => Format::SOPC,
            0x17f => Format::SOPP,
            _ if w0 >> 28 == 0b1011 => Format::SOPK,
            _ => Format::SOP2,
        });
    }
    Some(match w0 >> 26 {
        0b110101 => Format::VOP3,
        0b110011 => Format::VOP3P,
        0b110110 => Format::DS,
        0b110111 => match (w0 >> 14) & 3 {
            0 => Format::FLAT,
            1 => Format::SCRATCH,
            2 => Format::GLOBAL,
            _ => return None,
        },
        0b111000 => Format::MUBUF,
        0b111010 => Format::MTBUF,
        0b111100 => Format::MIMG,
        0b111110 => Format::EXP,
        0b110010 => Format::VINTRP,
        0b111101 => Format::SMEM,
        _ => return None,
    })
}

/// Decodes the instruction at the start of `words` for `target`.
pub fn decode(words: &[u32], target: Target) -> Result<Instruction, DecodeError> {
    let Some(&w0) = words.first() else {
        return Err(DecodeError::Truncated {
            format: None,
            needed: 1,
            available: 0,
        });
    };
    let Some(format) = classify(w0) else {
        return Err(DecodeError::Invalid {
            word: w0,
            reason: "no encoding format has these fixed bits",
        });
    };
    match format {
        Format::SOP2 | Format::SOPK | Format::SOP1 | Format::SOPC | Format::SOPP | Format::SMEM => {
            crate::scalar::decode(format, words, target)
        }
        Format::VOP1 | Format::VOP2 | Format::VOPC | Format::VOP3 | Format::VOP3P => {
            crate::vector::decode(format, words, target)
        }
        Format::DS
        | Format::FLAT
        | Format::GLOBAL
        | Format::SCRATCH
        | Format::MUBUF
        | Format::MTBUF
        | Format::MIMG
        | Format::EXP
        | Format::VINTRP => crate::memory::decode(format, words, target),
    }
}

/// Decodes from little-endian bytes (a trailing partial word counts as truncation).
pub fn decode_bytes(bytes: &[u8], target: Target) -> Result<Instruction, DecodeError> {
    let mut w = [0u32; MAX_WORDS];
    let n = (bytes.len() / 4).min(MAX_WORDS);
    for (i, c) in bytes.chunks_exact(4).take(n).enumerate() {
        w[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    if n == 0 {
        return Err(DecodeError::Truncated {
            format: None,
            needed: 1,
            available: 0,
        });
    }
    decode(&w[..n], target)
}

/// Helpers for the format modules.
pub(crate) fn need(format: Format, words: &[u32], n: usize) -> Result<(), DecodeError> {
    if words.len() < n {
        Err(DecodeError::Truncated {
            format: Some(format),
            needed: n,
            available: words.len(),
        })
    } else {
        Ok(())
    }
}

pub(crate) fn slot(
    format: Format,
    op: u32,
    target: Target,
    w0: u32,
) -> Result<&'static Encoding, DecodeError> {
    slot_facts(format, op, target, w0).map(|(e, _)| e)
}

/// [`slot`] with the row's precomputed facts.
#[inline]
pub(crate) fn slot_facts(
    format: Format,
    op: u32,
    target: Target,
    w0: u32,
) -> Result<(&'static Encoding, &'static crate::table::RowFacts), DecodeError> {
    match crate::table::lookup_index(format, op, target) {
        Some(i) => Ok((&crate::generated::ENCODINGS[i], &crate::table::FACTS[i])),
        None => Err(DecodeError::Invalid {
            word: w0,
            reason: "no instruction at this opcode on this sub-target",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_formats() {
        assert_eq!(classify(0x5606_0400), Some(Format::VOP2));
        assert_eq!(classify(0xbf81_0000), Some(Format::SOPP));
        assert_eq!(classify(0xbe82_0380), Some(Format::SOP1));
        assert_eq!(classify(0xb003_8000), Some(Format::SOPK));
        assert_eq!(classify(0x8707_ff07), Some(Format::SOP2));
        assert_eq!(classify(0xf404_0002), Some(Format::SMEM));
        assert_eq!(classify(0xd54b_0004), Some(Format::VOP3));
        assert_eq!(classify(0xdc30_8000), Some(Format::GLOBAL));
    }

    #[test]
    fn empty_and_truncated_input() {
        assert!(matches!(
            decode(&[], Target::Gfx1030),
            Err(DecodeError::Truncated { .. })
        ));
        assert!(matches!(
            decode_bytes(&[1, 2, 3], Target::Gfx1030),
            Err(DecodeError::Truncated { .. })
        ));
    }
}
