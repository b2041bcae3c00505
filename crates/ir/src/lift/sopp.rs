//! SOPP (program control) instructions: scheduling and wait hints, the barrier, and the conditions of the
//! conditional branches (the branch targets themselves are the driver's: `flow_of` in lift.rs). The remaining
//! hints, waits and refusals are `sopp_more` in lift/salu.rs.

use super::{LiftError, Lifter};
use crate::{Handle, IntCmp, Node, Ty, UnOp, EXEC_LO, VCC_LO};
use rdna2spv_isa::Opcode;

impl Lifter<'_> {
    pub(super) fn sopp(&mut self) -> Result<Option<Handle<Node>>, LiftError> {
        let t = self.mask_ty();
        Ok(match self.ins.opcode() {
            // Scheduling, cache and wait hints: no architectural effect on a machine that completes every
            // access in order (the evaluator and the SPIR-V lowering).
            Opcode::S_NOP
            | Opcode::S_WAITCNT
            | Opcode::S_CLAUSE
            | Opcode::S_CODE_END
            | Opcode::S_INST_PREFETCH
            | Opcode::S_SETPRIO
            | Opcode::S_ENDPGM
            | Opcode::S_BRANCH => None,
            Opcode::S_BARRIER => {
                self.n(Node::Barrier);
                None
            }
            Opcode::S_CBRANCH_SCC0 => {
                let s = self.n(Node::ReadScc);
                Some(self.un(UnOp::Not, Ty::B1, s))
            }
            Opcode::S_CBRANCH_SCC1 => {
                let s = self.n(Node::ReadScc);
                let t = self.c(Ty::B1, 1);
                Some(self.icmp(IntCmp::Eq, Ty::B1, s, t))
            }
            Opcode::S_CBRANCH_VCCZ
            | Opcode::S_CBRANCH_VCCNZ
            | Opcode::S_CBRANCH_EXECZ
            | Opcode::S_CBRANCH_EXECNZ => {
                let reg = if matches!(
                    self.ins.opcode(),
                    Opcode::S_CBRANCH_VCCZ | Opcode::S_CBRANCH_VCCNZ
                ) {
                    VCC_LO
                } else {
                    EXEC_LO
                };
                let m = self.read_s(reg, t);
                let z = self.c(t, 0);
                let op = if matches!(
                    self.ins.opcode(),
                    Opcode::S_CBRANCH_VCCZ | Opcode::S_CBRANCH_EXECZ
                ) {
                    IntCmp::Eq
                } else {
                    IntCmp::Ne
                };
                Some(self.icmp(op, t, m, z))
            }
            _ => {
                // Hints, waits and refusals: lift/salu.rs.
                if self.sopp_more()? {
                    return Ok(None);
                }
                return self.unsupported("SOPP instruction not lifted yet");
            }
        })
    }
}
