//! Text form of the IR: `%7 = f32.fma %4, %5, %6` under each instruction's LLVM text.

use crate::{Node, Program, Terminator};
use std::fmt;

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "kernel {} (wave{})", self.name, self.wave_size)?;
        for (bh, block) in self.blocks.iter() {
            writeln!(f, "block{} (pc 0x{:x}):", bh.index(), block.start_pc)?;
            for inst in &block.insts {
                writeln!(f, "  ; {:04x}: {}", inst.pc, inst.text)?;
                for (h, n) in self.inst_nodes(inst) {
                    writeln!(f, "  {}", NodeText(h.index(), n))?;
                }
            }
            match block.terminator {
                Terminator::Jump(t) => writeln!(f, "  jump block{}", t.index())?,
                Terminator::Branch {
                    cond,
                    taken,
                    not_taken,
                } => writeln!(
                    f,
                    "  branch {cond:?}, block{}, block{}",
                    taken.index(),
                    not_taken.index()
                )?,
                Terminator::End => writeln!(f, "  end")?,
            }
        }
        Ok(())
    }
}

struct NodeText<'a>(usize, &'a Node);

fn lower(s: impl fmt::Debug) -> String {
    format!("{s:?}").to_ascii_lowercase()
}

impl fmt::Display for NodeText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = self.0;
        match self.1 {
            Node::Const { ty, bits } => write!(f, "%{i} = const.{} 0x{bits:x}", lower(ty)),
            Node::ReadSgpr { reg, ty } => write!(f, "%{i} = read.{} s{reg}", lower(ty)),
            Node::ReadVgpr { reg, ty } => write!(f, "%{i} = read.{} v{reg}", lower(ty)),
            Node::ReadScc => write!(f, "%{i} = read scc"),
            Node::LaneId => write!(f, "%{i} = lane_id"),
            Node::WaveId => write!(f, "%{i} = wave_id"),
            Node::CodeBase => write!(f, "%{i} = code_base"),
            Node::Int { op, ty, a, b } => {
                write!(f, "%{i} = {}.{} {a:?}, {b:?}", lower(ty), lower(op))
            }
            Node::IntCmp { op, ty, a, b } => {
                write!(f, "%{i} = {}.cmp_{} {a:?}, {b:?}", lower(ty), lower(op))
            }
            Node::Float { op, args } => {
                match op {
                    crate::FloatOp::F32FmaLdexp(k) => write!(f, "%{i} = f32fma_ldexp.{k}")?,
                    crate::FloatOp::F64FmaLdexp(k) => write!(f, "%{i} = f64fma_ldexp.{k}")?,
                    _ => write!(f, "%{i} = {}", lower(op))?,
                }
                for (k, a) in args[..op.arity()].iter().enumerate() {
                    write!(f, "{}{a:?}", if k == 0 { " " } else { ", " })?;
                }
                Ok(())
            }
            Node::FloatCmp { op, ty, a, b } => {
                write!(f, "%{i} = f{}.cmp_{} {a:?}, {b:?}", ty.bits(), lower(op))
            }
            Node::Unary { op, ty, a } => write!(f, "%{i} = {}.{} {a:?}", lower(ty), lower(op)),
            Node::Select { cond, a, b } => write!(f, "%{i} = select {cond:?}, {a:?}, {b:?}"),
            Node::Concat { lo, hi } => write!(f, "%{i} = concat {lo:?}, {hi:?}"),
            Node::Extract { ty, a, shift } => {
                write!(f, "%{i} = extract.{} {a:?}, {shift}", lower(ty))
            }
            Node::Ballot { cond } => write!(f, "%{i} = ballot {cond:?}"),
            Node::LaneBit { mask } => write!(f, "%{i} = lane_bit {mask:?}"),
            Node::ReadLane { a, lane } => write!(f, "%{i} = read_lane {a:?}, {lane:?}"),
            Node::ReadFirstLane { a } => write!(f, "%{i} = read_first_lane {a:?}"),
            Node::Load {
                space,
                access,
                addr,
                offset,
            } => {
                write!(
                    f,
                    "%{i} = load.{}.{} {addr:?}{offset:+}",
                    lower(space),
                    lower(access)
                )
            }
            Node::WriteSgpr { reg, value } => write!(f, "write s{reg}, {value:?}"),
            Node::WriteVgpr { reg, value } => write!(f, "write v{reg}, {value:?}"),
            Node::WriteScc { value } => write!(f, "write scc, {value:?}"),
            Node::Store {
                space,
                access,
                addr,
                offset,
                value,
            } => {
                write!(
                    f,
                    "store.{}.{} {addr:?}{offset:+}, {value:?}",
                    lower(space),
                    lower(access)
                )
            }
            Node::Atomic {
                space,
                op,
                addr,
                offset,
                value,
                data1,
            } => {
                write!(
                    f,
                    "%{i} = atomic_{}.{} {addr:?}{offset:+}, {value:?}",
                    lower(op),
                    lower(space)
                )?;
                match data1 {
                    Some(d) => write!(f, ", {d:?}"),
                    None => Ok(()),
                }
            }
            Node::Barrier => write!(f, "barrier"),
            Node::Refuse { cond, reason } => write!(f, "refuse_if {cond:?}, \"{reason}\""),
            Node::LoadIf {
                space,
                access,
                addr,
                offset,
                enable,
            } => write!(
                f,
                "%{i} = load_if.{}.{} {enable:?} ? {addr:?}{offset:+}",
                lower(space),
                lower(access)
            ),
            Node::AtomicIf {
                space,
                op,
                addr,
                offset,
                value,
                data1,
                enable,
            } => {
                write!(
                    f,
                    "%{i} = atomic_if_{}.{} {enable:?} ? {addr:?}{offset:+}, {value:?}",
                    lower(op),
                    lower(space)
                )?;
                match data1 {
                    Some(d) => write!(f, ", {d:?}"),
                    None => Ok(()),
                }
            }
            Node::StoreIf {
                space,
                access,
                addr,
                offset,
                value,
                enable,
            } => write!(
                f,
                "store_if.{}.{} {enable:?} ? {addr:?}{offset:+}, {value:?}",
                lower(space),
                lower(access)
            ),
        }
    }
}
