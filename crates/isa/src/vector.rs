//! Vector ALU formats: VOP1, VOP2, VOPC, VOP3 (incl. VOP3b), VOP3P, with DPP16/DPP8/SDWA.

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
