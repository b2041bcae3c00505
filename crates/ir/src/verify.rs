//! Verification: after it, interpreters and lowerings index without checks.
//!
//! Checked: every handle refers to an earlier node of the same instruction (a terminator's condition to a node
//! of the block's last instruction); operand types and shapes fit each node; effects are not used as values;
//! branch targets exist. The result gives every value node its (type, shape).

use crate::{Block, Handle, Node, Program, Shape, Terminator, Ty};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("block {block}, pc 0x{pc:x}: node %{node}: {reason}")]
    Node {
        block: usize,
        pc: u32,
        node: usize,
        reason: String,
    },
    #[error("block {block}: {reason}")]
    Block { block: usize, reason: String },
}

/// Type and shape of every node (None for effects), indexed like `Program::nodes`.
pub type Types = Vec<Option<(Ty, Shape)>>;

fn join(a: Shape, b: Shape) -> Shape {
    if a == Shape::Lane || b == Shape::Lane {
        Shape::Lane
    } else {
        Shape::Uniform
    }
}

/// The type and shape of a node whose operands have the types in `t`, or an error message.
pub fn node_type(
    n: &Node,
    t: &impl Fn(Handle<Node>) -> Result<(Ty, Shape), String>,
) -> Result<Option<(Ty, Shape)>, String> {
    let same = |a: Handle<Node>, ty: Ty| -> Result<Shape, String> {
        let (at, s) = t(a)?;
        if at != ty {
            return Err(format!("operand {a:?} is {at:?}, expected {ty:?}"));
        }
        Ok(s)
    };
    Ok(Some(match *n {
        Node::Const { ty, bits } => {
            if bits & !ty.mask() != 0 {
                return Err(format!("constant 0x{bits:x} does not fit {ty:?}"));
            }
            (ty, Shape::Uniform)
        }
        Node::ReadSgpr { ty, .. } => (ty, Shape::Uniform),
        Node::ReadVgpr { ty, .. } => (ty, Shape::Lane),
        Node::ReadScc => (Ty::B1, Shape::Uniform),
        Node::LaneId => (Ty::B32, Shape::Lane),
        Node::WaveId => (Ty::B32, Shape::Uniform),
        Node::CodeBase => (Ty::B64, Shape::Uniform),
        Node::Int { ty, a, b, op } => {
            let sb = match op {
                crate::IntOp::Shl | crate::IntOp::LShr | crate::IntOp::AShr => t(b)?.1,
                _ => same(b, ty)?,
            };
            (ty, join(same(a, ty)?, sb))
        }
        Node::IntCmp { ty, a, b, .. } | Node::FloatCmp { ty, a, b, .. } => {
            (Ty::B1, join(same(a, ty)?, same(b, ty)?))
        }
        Node::Float { op, args } => {
            let ty = op.ty();
            let mut s = Shape::Uniform;
            for a in &args[..op.arity()] {
                s = join(s, same(*a, ty)?);
            }
            (ty, s)
        }
        Node::Unary { ty, a, .. } => (ty, t(a)?.1),
        Node::Select { cond, a, b } => {
            let sc = same(cond, Ty::B1)?;
            let (ty, sa) = t(a)?;
            (ty, join(sc, join(sa, same(b, ty)?)))
        }
        Node::Concat { lo, hi } => (Ty::B64, join(same(lo, Ty::B32)?, same(hi, Ty::B32)?)),
        Node::Extract { ty, a, shift } => {
            let (at, s) = t(a)?;
            if shift as u32 + ty.bits() > at.bits() {
                return Err(format!("extract of {ty:?} at bit {shift} from {at:?}"));
            }
            (ty, s)
        }
        Node::Ballot { cond } => {
            same(cond, Ty::B1)?;
            (Ty::B64, Shape::Uniform)
        }
        Node::LaneBit { mask } => {
            same(mask, Ty::B64)?;
            (Ty::B1, Shape::Lane)
        }
        Node::ReadLane { a, lane } => {
            let (ty, _) = t(a)?;
            if same(lane, Ty::B32)? != Shape::Uniform {
                return Err("readlane index must be uniform".into());
            }
            (ty, Shape::Uniform)
        }
        Node::ReadFirstLane { a } => (t(a)?.0, Shape::Uniform),
        Node::Load {
            addr,
            access,
            space,
            ..
        } => {
            let (at, s) = t(addr)?;
            if at != Ty::B64 && at != Ty::B32 {
                return Err("address must be B32 or B64".into());
            }
            if space == crate::Space::Scratch && at != Ty::B32 {
                return Err("scratch addresses are B32".into());
            }
            let _ = access;
            (Ty::B32, s)
        }
        Node::Atomic {
            addr,
            value,
            data1,
            space,
            op,
            ..
        } => {
            if space == crate::Space::Scratch && t(addr)?.0 != Ty::B32 {
                return Err("scratch addresses are B32".into());
            }
            let (_, sa) = t(addr)?;
            let ty = atomic_data(&t, op, value, data1)?;
            // D092: all-uniform operands make a once-per-wave atomic.
            let uniform = sa == Shape::Uniform
                && t(value)?.1 == Shape::Uniform
                && data1.map_or(Ok(true), |d| t(d).map(|x| x.1 == Shape::Uniform))?;
            (ty, if uniform { Shape::Uniform } else { Shape::Lane })
        }
        Node::WriteSgpr { value, .. } => {
            let (ty, s) = t(value)?;
            if s != Shape::Uniform || !matches!(ty, Ty::B32 | Ty::B64) {
                return Err("SGPR writes take a uniform B32 or B64".into());
            }
            return Ok(None);
        }
        Node::WriteVgpr { value, .. } => {
            let (ty, _) = t(value)?;
            if !matches!(ty, Ty::B32 | Ty::B64) {
                return Err("VGPR writes take B32 or B64".into());
            }
            return Ok(None);
        }
        Node::WriteScc { value } => {
            if same(value, Ty::B1)? != Shape::Uniform {
                return Err("SCC is uniform".into());
            }
            return Ok(None);
        }
        Node::Store {
            addr, value, space, ..
        } => {
            if space == crate::Space::Scratch && t(addr)?.0 != Ty::B32 {
                return Err("scratch addresses are B32".into());
            }
            t(addr)?;
            same(value, Ty::B32)?;
            return Ok(None);
        }
        Node::Barrier => return Ok(None),
        Node::Refuse { cond, .. } => {
            same(cond, Ty::B1)?;
            return Ok(None);
        }
        Node::LoadIf {
            addr,
            space,
            enable,
            ..
        } => {
            let (at, _) = t(addr)?;
            if at != Ty::B64 && at != Ty::B32 {
                return Err("address must be B32 or B64".into());
            }
            if space == crate::Space::Scratch && at != Ty::B32 {
                return Err("scratch addresses are B32".into());
            }
            same(enable, Ty::B1)?;
            (Ty::B32, Shape::Lane)
        }
        Node::StoreIf {
            addr,
            value,
            space,
            enable,
            ..
        } => {
            let (at, _) = t(addr)?;
            if at != Ty::B64 && at != Ty::B32 {
                return Err("address must be B32 or B64".into());
            }
            if space == crate::Space::Scratch && at != Ty::B32 {
                return Err("scratch addresses are B32".into());
            }
            same(value, Ty::B32)?;
            same(enable, Ty::B1)?;
            return Ok(None);
        }
        Node::AtomicIf {
            addr,
            value,
            data1,
            space,
            op,
            enable,
            ..
        } => {
            let (at, _) = t(addr)?;
            if at != Ty::B64 || space == crate::Space::Scratch {
                return Err("predicated atomics take a B64 global address".into());
            }
            let ty = atomic_data(&t, op, value, data1)?;
            same(enable, Ty::B1)?;
            (ty, Shape::Lane)
        }
    }))
}

/// Verifies `p` and returns the type of every node.
pub fn verify(p: &Program) -> Result<Types, VerifyError> {
    let mut types: Types = vec![None; p.nodes.len()];
    let mut owner: Vec<Option<(usize, u32)>> = vec![None; p.nodes.len()];
    for (bh, block) in p.blocks.iter() {
        let b = bh.index();
        for inst in &block.insts {
            if inst.nodes.end as usize > p.nodes.len() || inst.nodes.start > inst.nodes.end {
                return Err(VerifyError::Block {
                    block: b,
                    reason: format!("pc 0x{:x}: node range out of bounds", inst.pc),
                });
            }
            for i in inst.nodes.clone() {
                let i = i as usize;
                if owner[i].is_some() {
                    return Err(VerifyError::Node {
                        block: b,
                        pc: inst.pc,
                        node: i,
                        reason: "node shared by two instructions".into(),
                    });
                }
                owner[i] = Some((b, inst.pc));
                let lookup = |h: Handle<Node>| -> Result<(Ty, Shape), String> {
                    let j = h.index();
                    if j >= i || j < inst.nodes.start as usize {
                        return Err(format!("{h:?} is not an earlier node of this instruction"));
                    }
                    types[j].ok_or_else(|| format!("{h:?} is an effect, not a value"))
                };
                let ty = node_type(&p.nodes[Handle::from_index(i)], &lookup).map_err(|reason| {
                    VerifyError::Node {
                        block: b,
                        pc: inst.pc,
                        node: i,
                        reason,
                    }
                })?;
                types[i] = ty;
            }
        }
        check_terminator(p, b, block, &types)?;
    }
    Ok(types)
}

fn check_terminator(
    p: &Program,
    b: usize,
    block: &Block,
    types: &Types,
) -> Result<(), VerifyError> {
    let exists = |h: Handle<Block>| h.index() < p.blocks.len();
    let err = |reason: &str| VerifyError::Block {
        block: b,
        reason: reason.to_string(),
    };
    match block.terminator {
        Terminator::Jump(t) if !exists(t) => Err(err("jump to a missing block")),
        Terminator::Branch {
            cond,
            taken,
            not_taken,
        } => {
            if !exists(taken) || !exists(not_taken) {
                return Err(err("branch to a missing block"));
            }
            let last = block
                .insts
                .last()
                .ok_or_else(|| err("conditional branch in an empty block"))?;
            if !last.nodes.contains(&(cond.index() as u32)) {
                return Err(err(
                    "branch condition is not computed by the block's last instruction",
                ));
            }
            match types[cond.index()] {
                Some((Ty::B1, Shape::Uniform)) => Ok(()),
                _ => Err(err("branch condition must be a uniform B1")),
            }
        }
        _ => Ok(()),
    }
}

/// The type of an atomic's data (and of the old value it returns): B32 or B64, `data1` present exactly
/// for the two-operand operations and of the same type, FAdd only on B32 (decision D060).
fn atomic_data(
    t: &impl Fn(Handle<Node>) -> Result<(Ty, Shape), String>,
    op: crate::AtomicOp,
    value: Handle<Node>,
    data1: Option<Handle<Node>>,
) -> Result<Ty, String> {
    let ty = t(value)?.0;
    if ty != Ty::B32 && ty != Ty::B64 {
        return Err(format!("atomic data is {ty:?}, expected B32 or B64"));
    }
    if op == crate::AtomicOp::FAdd && ty != Ty::B32 {
        return Err("atomic float add is B32 only".into());
    }
    match (op.two_data(), data1) {
        (true, Some(d)) => {
            let dt = t(d)?.0;
            if dt != ty {
                return Err(format!("atomic data1 is {dt:?}, expected {ty:?}"));
            }
        }
        (false, None) => {}
        (true, None) => return Err(format!("atomic {op:?} needs data1")),
        (false, Some(_)) => return Err(format!("atomic {op:?} takes no data1")),
    }
    Ok(ty)
}
