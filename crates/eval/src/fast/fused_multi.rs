//! Fused VALU instructions of any number of lane-wise 32-bit operations (decision D113), beside the one-op
//! form of [`super::fused`]: moves (`v_mov_b32`: no operation), SDWA/VOP3 shapes that compute their operand
//! selection as extra shifts and masks (`v_xor_b32_sdwa … src0_sel:WORD_1`), three-operand integer forms
//! (`v_add3_u32`, `v_lshl_or_b32`, …). The instruction's nodes must be 32-bit operand reads (constants, SGPRs,
//! VGPRs), 32-bit integer operations or operations on f32 (every node typed 32-bit) and one VGPR write at the
//! end.
//!
//! Exactness: each operation calls the general path's own function (`IntOp::eval`, `float_op`) on the same bits,
//! or, for the common ones, the same arithmetic written out. All values are 32-bit typed, and the low 32 bits
//! of every integer operation the general path computes on 32-bit types depend only on the low 32 bits of
//! its operands (it masks its first operand and its result; shifts count modulo 32; min/max/mul-high mask
//! both), so computing in `u32` gives the general path's bits.

use super::fused::{f32_lanes, int32_lanes, map2, Lanes, Src};
use crate::reference::{float_op, WaveState};
use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{FloatOp, Handle, IntOp, Node, Program, Ty};

const L: usize = 64;
/// Operations per form at most (the SDWA/VOP3 shapes need up to 4).
const MAX_OPS: usize = 8;

/// An operand: a leaf read or an earlier operation's result.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Arg {
    Leaf(Src),
    Tmp(u8),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Int(IntOp),
    Float(FloatOp),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Multi {
    ops: Box<[(Op, [Arg; 3])]>,
    result: Arg,
    dst: u16,
}

impl Multi {
    /// The highest VGPR the form reads or writes.
    pub(crate) fn max_vgpr(&self) -> u16 {
        self.leaves().fold(self.dst, |m, s| match s {
            Src::Vgpr(r) => m.max(r),
            _ => m,
        })
    }
    /// The SGPRs the form reads.
    pub(crate) fn sgprs(&self) -> impl Iterator<Item = u16> + '_ {
        self.leaves().filter_map(|s| match s {
            Src::Sgpr(r) => Some(r),
            _ => None,
        })
    }
    fn leaves(&self) -> impl Iterator<Item = Src> + '_ {
        self.ops
            .iter()
            .flat_map(|(_, a)| a.iter())
            .chain(std::iter::once(&self.result))
            .filter_map(|a| match *a {
                Arg::Leaf(s) => Some(s),
                Arg::Tmp(_) => None,
            })
    }
}

/// The multi-op form of the instruction with nodes `start..end`, if it has that shape.
pub(crate) fn fuse(p: &Program, types: &Types, start: usize, end: usize) -> Option<Multi> {
    if end <= start {
        return None;
    }
    let node = |i: usize| &p.nodes[Handle::<Node>::from_index(i)];
    let Node::WriteVgpr { reg: dst, value } = *node(end - 1) else {
        return None;
    };
    let b32 = |i: usize| types[i].map(|t| t.0) == Some(Ty::B32);
    // args[i]: what node i is, as an operand.
    let mut args: Vec<Arg> = Vec::with_capacity(end - start);
    let mut ops: Vec<(Op, [Arg; 3])> = Vec::new();
    for i in start..end - 1 {
        if !b32(i) {
            return None;
        }
        let arg = |h: Handle<Node>, args: &Vec<Arg>| -> Option<Arg> {
            let j = h.index();
            (j >= start && j < i).then(|| args[j - start])
        };
        let a = match *node(i) {
            Node::Const { ty: Ty::B32, bits } => Arg::Leaf(Src::Const(bits as u32)),
            Node::ReadSgpr { reg, ty: Ty::B32 } => Arg::Leaf(Src::Sgpr(reg)),
            Node::ReadVgpr { reg, ty: Ty::B32 } => Arg::Leaf(Src::Vgpr(reg)),
            Node::Int {
                op,
                ty: Ty::B32,
                a,
                b,
            } => {
                let (x, y) = (arg(a, &args)?, arg(b, &args)?);
                ops.push((Op::Int(op), [x, y, x]));
                Arg::Tmp((ops.len() - 1) as u8)
            }
            Node::Float { op, args: fa } if op.ty() == Ty::B32 => {
                // Only the operation's arity is verified: unused arguments read the first one (as the
                // general path does).
                let f = |k: usize| arg(fa[if k < op.arity() { k } else { 0 }], &args);
                ops.push((Op::Float(op), [f(0)?, f(1)?, f(2)?]));
                Arg::Tmp((ops.len() - 1) as u8)
            }
            _ => return None,
        };
        if ops.len() > MAX_OPS {
            return None;
        }
        args.push(a);
    }
    let v = value.index();
    if v < start || v >= end - 1 {
        return None;
    }
    Some(Multi {
        ops: ops.into_boxed_slice(),
        result: args[v - start],
        dst,
    })
}

/// Runs `m` on the wave; false (nothing changed) when a VGPR is outside the file. `tmp` is scratch space.
#[inline(never)]
pub(crate) fn run(m: &Multi, wave: &mut WaveState, exec: u64, tmp: &mut Vec<u32>) -> bool {
    let ws = wave.wave_size as usize;
    if (m.max_vgpr() as usize + 1) * ws > wave.vgpr.len() {
        return false;
    }
    let rows = m.ops.len() + 1;
    if tmp.len() < rows * L {
        tmp.resize(rows * L, 0);
    }
    {
        let vgpr = &wave.vgpr;
        let sgpr = &wave.sgpr;
        let leaf = |s: Src| match s {
            Src::Const(c) => Lanes::Splat(c),
            Src::Sgpr(r) => Lanes::Splat(*sgpr.get(r as usize).unwrap_or(&0)),
            Src::Vgpr(r) => Lanes::Row(&vgpr[r as usize * ws..(r as usize + 1) * ws]),
        };
        for (j, &(op, a)) in m.ops.iter().enumerate() {
            let (prev, rest) = tmp.split_at_mut(j * L);
            let out = &mut rest[..ws];
            let get = |a: Arg| match a {
                Arg::Leaf(s) => leaf(s),
                Arg::Tmp(t) => Lanes::Row(&prev[t as usize * L..t as usize * L + ws]),
            };
            let (x, y, z) = (get(a[0]), get(a[1]), get(a[2]));
            match op {
                Op::Int(op) => {
                    if !int32_lanes(op, out, x, y) {
                        map2(out, x, y, |p, q| {
                            op.eval(Ty::B32, p as u64, q as u64) as u32
                        });
                    }
                }
                Op::Float(op) => {
                    if !f32_lanes(op, out, x, y) {
                        for (l, d) in out.iter_mut().enumerate() {
                            *d =
                                float_op(op, x.at(l) as u64, y.at(l) as u64, z.at(l) as u64) as u32;
                        }
                    }
                }
            }
        }
        // The result into the last row (a VGPR source is copied before the file is written).
        let (prev, rest) = tmp.split_at_mut(m.ops.len() * L);
        let out = &mut rest[..ws];
        match m.result {
            Arg::Tmp(t) => out.copy_from_slice(&prev[t as usize * L..t as usize * L + ws]),
            Arg::Leaf(s) => match leaf(s) {
                Lanes::Row(r) => out.copy_from_slice(r),
                Lanes::Splat(v) => out.fill(v),
            },
        }
    }
    let r = &tmp[m.ops.len() * L..m.ops.len() * L + ws];
    let base = m.dst as usize * ws;
    let dst = &mut wave.vgpr[base..base + ws];
    for (lane, (d, &x)) in dst.iter_mut().zip(r).enumerate() {
        if exec >> lane & 1 != 0 {
            *d = x;
        }
    }
    true
}
