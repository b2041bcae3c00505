//! Memory and export formats: DS, FLAT/GLOBAL/SCRATCH, MUBUF, MTBUF, MIMG, EXP, VINTRP.

use crate::decode::{DecodeError, Instruction};
use crate::print::PrintOptions;
use crate::table::{Format, Target};

pub(crate) fn decode(
    format: Format,
    words: &[u32],
    _target: Target,
) -> Result<Instruction, DecodeError> {
    Err(DecodeError::Unsupported {
        format,
        word: words[0],
        reason: "format not implemented yet",
    })
}

pub(crate) fn print(i: &Instruction, _opts: PrintOptions, out: &mut String) {
    out.push_str(i.encoding.mnemonic);
}
