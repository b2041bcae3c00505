//! The fast layer (decisions D090, D113, D176): forms of instructions and whole blocks, compiled once per run
//! from the program, that give exactly what the reference interpreter ([`crate::reference`]) gives — the
//! same registers, memory, steps and statistics — in less time. It is an optimisation only: a program means
//! what the reference computes, and tests/eval_fast_paths.rs runs every fixture both ways and compares every
//! wave's final state and memory.
//!
//! * [`fused`]: one instruction whose nodes are operand reads, one lane-wise 32-bit operation and a VGPR write
//!   (`Fast::Valu`), or only scalar nodes (`Fast::Salu`);
//! * [`fused_multi`]: one VALU instruction of several lane-wise 32-bit operations (`Fast::Multi`);
//! * [`block`]: a whole block of such instructions that does not write EXEC, as one op list.
//!
//! [`Accel`] offers them to the reference's workgroup loop through [`crate::reference::Shortcut`]. The layer
//! uses the reference (its wave state and operations); the reference never uses it.

pub(crate) mod block;
pub(crate) mod fused;
pub(crate) mod fused_multi;

use crate::reference::{self, WaveState};
use crate::Stats;
use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{Program, Terminator};

/// An instruction's fast form.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fast {
    Valu(fused::Fused),
    /// Every node uniform and one of [`fused::SOp`]'s kinds (the scalar ALU's instructions): the same nodes, without
    /// the general path's per-node shape look-ups and lane loops.
    Salu(Box<[fused::SOp]>),
    /// Several lane-wise 32-bit operations, or none (a move), and a VGPR write ([`fused_multi`]).
    Multi(Box<fused_multi::Multi>),
}

/// `fused[block][inst]`: the fast form of each instruction that has one (through `Deref`), and
/// `fused.blocks[block]`: the whole block's form where it has one ([`block`], decision D113).
pub(crate) struct Table {
    insts: Vec<Vec<Option<Fast>>>,
    pub(crate) blocks: Vec<Option<block::BlockFast>>,
}

impl std::ops::Deref for Table {
    type Target = Vec<Vec<Option<Fast>>>;
    fn deref(&self) -> &Self::Target {
        &self.insts
    }
}

pub(crate) fn fuse(p: &Program, types: &Types) -> Table {
    let insts = fuse_insts(p, types);
    let blocks = block::compile(p, types, &insts);
    Table { insts, blocks }
}

fn fuse_insts(p: &Program, types: &Types) -> Vec<Vec<Option<Fast>>> {
    p.blocks
        .iter()
        .map(|(_, block)| {
            let last_branches = matches!(block.terminator, Terminator::Branch { .. });
            block
                .insts
                .iter()
                .enumerate()
                .map(|(i, inst)| {
                    let (start, end) = (inst.nodes.start as usize, inst.nodes.end as usize);
                    let last_branch = last_branches && i + 1 == block.insts.len();
                    // An instruction without nodes (s_waitcnt, s_nop, s_clause, …) only counts as a step; the
                    // last one of a branching block cannot be one (the condition is its node).
                    if start == end && !last_branch {
                        return Some(Fast::Salu(Box::new([])));
                    }
                    if let Some(ops) = fused::scalar_inst(p, types, start, end) {
                        return Some(Fast::Salu(ops));
                    }
                    // The block's branch condition is read from the last instruction's value table (the scalar
                    // form writes it there; the VALU form has no B1 value).
                    if last_branches && i + 1 == block.insts.len() {
                        return None;
                    }
                    fused::fuse_inst(p, types, start, end)
                        .map(Fast::Valu)
                        .or_else(|| {
                            fused_multi::fuse(p, types, start, end)
                                .map(|m| Fast::Multi(Box::new(m)))
                        })
                })
                .collect()
        })
        .collect()
}

/// The fast forms of a run offered to the reference ([`reference::Shortcut`]), with their working storage.
pub(crate) struct Accel<'a> {
    table: &'a Table,
    /// The scalar registers of a block form ([`block`]) and 1 + the index of the block whose constants they
    /// hold (0: none).
    regs: (Vec<u64>, usize),
    /// The lane rows of a multi-op VALU form ([`fused_multi`]).
    tmp: Vec<u32>,
}

impl<'a> Accel<'a> {
    pub(crate) fn new(table: &'a Table) -> Self {
        Accel {
            table,
            regs: (Vec::new(), 0),
            tmp: Vec::new(),
        }
    }
}

impl reference::Shortcut for Accel<'_> {
    fn blocks(&mut self, wave: &mut WaveState, max_steps: u64, stats: &mut Stats) -> bool {
        block::run(
            &self.table.blocks,
            max_steps,
            wave,
            &mut self.regs,
            &mut self.tmp,
            stats,
        )
    }

    /// The instruction's fused form without the reference step's set-up (decision D090).
    #[inline(always)]
    fn instruction(
        &mut self,
        p: &Program,
        wave: &mut WaveState,
        max_steps: u64,
        vals: &mut Vec<u64>,
        stats: &mut Stats,
    ) -> bool {
        let Some(Some(f)) = self
            .table
            .get(wave.block_handle().index())
            .and_then(|b| b.get(wave.inst))
        else {
            return false;
        };
        if wave.steps >= max_steps {
            return false;
        }
        let exec = wave.exec();
        match f {
            Fast::Valu(f) => {
                if !fused::run(f, wave, exec) {
                    return false;
                }
            }
            Fast::Salu(ops) => fused::run_scalar(ops, wave, vals),
            Fast::Multi(m) => {
                if !fused_multi::run(m, wave, exec, &mut self.tmp) {
                    return false;
                }
            }
        }
        wave.steps += 1;
        reference::count_step(wave, exec, stats);
        reference::next_instruction(p, wave, vals);
        true
    }
}
