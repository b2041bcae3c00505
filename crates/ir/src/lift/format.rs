//! Typed buffer access (MUBUF `buffer_*_format_*` and MTBUF `tbuffer_*`): refused by name until the format
//! conversions are implemented (decision D071). MTBUF names its format in the instruction (gfx10 unified
//! format, word 0 bits 25:19); MUBUF format forms convert by the V#'s FORMAT field (word 3 bits 18:12), a
//! run-time value.

use super::{LiftError, Lifter};
use rdna2spv_isa::{buf_format_name, Format, Opcode};

impl Lifter<'_> {
    /// Refuses typed buffer accesses; false for every other instruction.
    pub(super) fn buffer_format_refusal(&mut self) -> Result<bool, LiftError> {
        use Opcode::*;
        if self.ins.format() == Format::MTBUF {
            let fmt = (self.w(0) >> 19) & 0x7f;
            let name = buf_format_name(fmt).unwrap_or("(unnamed)");
            return self.unsupported(&format!(
                "typed buffer access with format BUF_FMT_{name} ({fmt}): buffer format conversions are not implemented (D071)"
            ));
        }
        let format_op = matches!(
            self.ins.opcode(),
            BUFFER_LOAD_FORMAT_X
                | BUFFER_LOAD_FORMAT_XY
                | BUFFER_LOAD_FORMAT_XYZ
                | BUFFER_LOAD_FORMAT_XYZW
                | BUFFER_STORE_FORMAT_X
                | BUFFER_STORE_FORMAT_XY
                | BUFFER_STORE_FORMAT_XYZ
                | BUFFER_STORE_FORMAT_XYZW
                | BUFFER_LOAD_FORMAT_D16_X
                | BUFFER_LOAD_FORMAT_D16_XY
                | BUFFER_LOAD_FORMAT_D16_XYZ
                | BUFFER_LOAD_FORMAT_D16_XYZW
                | BUFFER_STORE_FORMAT_D16_X
                | BUFFER_STORE_FORMAT_D16_XY
                | BUFFER_STORE_FORMAT_D16_XYZ
                | BUFFER_STORE_FORMAT_D16_XYZW
                | BUFFER_LOAD_FORMAT_D16_HI_X
                | BUFFER_STORE_FORMAT_D16_HI_X
        );
        if format_op {
            return self.unsupported(
                "typed buffer access: the conversion is chosen by the V#'s FORMAT field at run time, and buffer format conversions are not implemented (D071)",
            );
        }
        Ok(false)
    }
}
