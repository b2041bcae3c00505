//! RDNA 2 (gfx10.3) instruction set: the opcode table, a total decoder and a printer whose text is identical to
//! `llvm-objdump-19 --mcpu=gfx1030`.
//!
//! * [`decode`] never panics. It returns the instruction and its length in words, or a [`DecodeError`] saying
//!   whether the words were truncated, an invalid encoding, or a valid encoding this crate does not support.
//! * [`Instruction::text`] prints LLVM's syntax. The wave size changes only the printing of lane masks
//!   (`vcc_lo` or `vcc`); it never changes decoding (it comes from the kernel descriptor, not the words).
//! * Every opcode slot comes from one table (`opcodes.txt`, generated into [`generated`]); see
//!   docs/add-an-instruction.md.

pub mod decode;
mod family;
#[rustfmt::skip]
#[allow(non_camel_case_types, clippy::all)]
pub mod generated {
    //! Generated from `opcodes.txt` by `cargo xtask codegen`.
    include!("generated/table.rs");
}
mod memory;
pub mod print;
mod scalar;
pub mod table;
mod vector;

pub use decode::{decode, decode_bytes, DecodeError, Instruction, Variant};
pub use family::{CmpRel, CmpType, Compare, Family};
pub use generated::{Field, Flag, Kind, Opcode};
pub use memory::buf_format_name;
pub use print::PrintOptions;
pub use table::{lookup, Encoding, Format, Mods, Operand, Target, Targets};
