//! Fused VALU instructions (decision D090): an instruction whose nodes are only 32-bit operand reads
//! (constants, SGPRs, VGPRs), one lane-wise 32-bit integer or f32 operation on them and the write of its result
//! to a VGPR — the shape of most VALU instructions (`v_add_nc_u32`, `v_xor_b32`, `v_mul_f32`, `v_fmac_f32`, …)
//! — runs as one operation on the wave's VGPR file in 32-bit lanes, instead of node by node through the value
//! table. The pattern is recognised once per run ([`fuse`]); anything else takes the general path.
//!
//! Exactness: the result is the general path's bit for bit. The integer operations kept are those whose low 32
//! bits depend only on the low 32 bits of the operands (add, sub, mul, and, or, xor, and shifts by the low 5 bits),
//! and the f32 operations call the same [`crate::specialize`] functions on the same bits. A VGPR outside the
//! file (the general path reads it as 0 and drops the write) falls back to the general path.

use crate::reference::{unary, WaveState};
use crate::specialize as sp;
use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{FloatOp, Handle, IntCmp, IntOp, Node, Program, Shape, Ty, UnOp};

/// A 32-bit operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Src {
    Const(u32),
    Sgpr(u16),
    Vgpr(u16),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Op {
    Int(IntOp),
    F32(FloatOp),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Fused {
    op: Op,
    args: [Src; 3],
    dst: u16,
}

impl Fused {
    /// The highest VGPR the form reads or writes.
    pub(crate) fn max_vgpr(&self) -> u16 {
        self.args.iter().fold(self.dst, |m, s| match *s {
            Src::Vgpr(r) => m.max(r),
            _ => m,
        })
    }
    /// The SGPRs the form reads.
    pub(crate) fn sgprs(&self) -> impl Iterator<Item = u16> + '_ {
        self.args.iter().filter_map(|s| match *s {
            Src::Sgpr(r) => Some(r),
            _ => None,
        })
    }
}

/// One node of a scalar instruction; operands are node numbers within the instruction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum SOp {
    Const(u64),
    /// A 16- or 32-bit SGPR read, masked.
    Sgpr(u16, u64),
    Sgpr64(u16),
    Scc,
    Int(IntOp, Ty, u16, u16),
    Cmp(IntCmp, Ty, u16, u16),
    Extract(Ty, u16, u8),
    Select(u16, u16, u16),
    Unary(UnOp, Ty, Ty, u16),
    /// SGPR write of a value; true: a 64-bit value (also writes the next SGPR).
    WriteSgpr(u16, u16, bool),
    WriteScc(u16),
}

pub(super) fn fuse_inst(p: &Program, types: &Types, start: usize, end: usize) -> Option<Fused> {
    if end < start + 2 {
        return None;
    }
    let node = |i: usize| &p.nodes[Handle::<Node>::from_index(i)];
    let Node::WriteVgpr { reg: dst, value } = *node(end - 1) else {
        return None;
    };
    let op_index = end - 2;
    if value.index() != op_index || types[op_index].map(|t| t.0) != Some(Ty::B32) {
        return None;
    }
    let src = |h: Handle<Node>| -> Option<Src> {
        let i = h.index();
        if i < start || i >= op_index {
            return None;
        }
        match *node(i) {
            Node::Const { ty: Ty::B32, bits } => Some(Src::Const(bits as u32)),
            Node::ReadSgpr { reg, ty: Ty::B32 } => Some(Src::Sgpr(reg)),
            Node::ReadVgpr { reg, ty: Ty::B32 } => Some(Src::Vgpr(reg)),
            _ => None,
        }
    };
    // Every other node must be an operand read (no effects, nothing else computed).
    for i in start..op_index {
        src(Handle::from_index(i))?;
    }
    let (op, args) = match *node(op_index) {
        Node::Int {
            op:
                op @ (IntOp::Add
                | IntOp::Sub
                | IntOp::Mul
                | IntOp::And
                | IntOp::Or
                | IntOp::Xor
                | IntOp::Shl
                | IntOp::LShr),
            ty: Ty::B32,
            a,
            b,
        } => (Op::Int(op), [src(a)?, src(b)?, src(a)?]),
        Node::Float {
            op: op @ (FloatOp::F32Add | FloatOp::F32Sub | FloatOp::F32Mul),
            args,
        } => (Op::F32(op), [src(args[0])?, src(args[1])?, src(args[0])?]),
        Node::Float {
            op: FloatOp::F32Fma,
            args,
        } => (
            Op::F32(FloatOp::F32Fma),
            [src(args[0])?, src(args[1])?, src(args[2])?],
        ),
        _ => return None,
    };
    Some(Fused { op, args, dst })
}

pub(super) fn scalar_inst(
    p: &Program,
    types: &Types,
    start: usize,
    end: usize,
) -> Option<Box<[SOp]>> {
    if end == start {
        return None;
    }
    let rel = |h: Handle<Node>| -> Option<u16> {
        let i = h.index();
        // Operands are earlier nodes of the instruction (verified); uniform as checked below.
        (i >= start && i < end).then(|| (i - start) as u16)
    };
    let mut ops = Vec::with_capacity(end - start);
    for i in start..end {
        // Values must be uniform; effects have no type.
        if let Some((_, shape)) = types[i] {
            if shape != Shape::Uniform {
                return None;
            }
        }
        let node = &p.nodes[Handle::<Node>::from_index(i)];
        let uniform = |h: Handle<Node>| matches!(types[h.index()], Some((_, Shape::Uniform)));
        ops.push(match *node {
            Node::Const { bits, .. } => SOp::Const(bits),
            Node::ReadSgpr { reg, ty: Ty::B64 } => SOp::Sgpr64(reg),
            Node::ReadSgpr { reg, ty } => SOp::Sgpr(reg, ty.mask()),
            Node::ReadScc => SOp::Scc,
            Node::Int { op, ty, a, b } => SOp::Int(op, ty, rel(a)?, rel(b)?),
            Node::IntCmp { op, ty, a, b } => SOp::Cmp(op, ty, rel(a)?, rel(b)?),
            Node::Extract { ty, a, shift } => SOp::Extract(ty, rel(a)?, shift),
            Node::Select { cond, a, b } => SOp::Select(rel(cond)?, rel(a)?, rel(b)?),
            Node::Unary { op, ty, a } => {
                let from = types[a.index()].map(|t| t.0).unwrap_or(Ty::B32);
                SOp::Unary(op, from, ty, rel(a)?)
            }
            Node::WriteSgpr { reg, value } if uniform(value) => SOp::WriteSgpr(
                reg,
                rel(value)?,
                types[value.index()].map(|t| t.0) == Some(Ty::B64),
            ),
            Node::WriteScc { value } if uniform(value) => SOp::WriteScc(rel(value)?),
            _ => return None,
        });
    }
    Some(ops.into_boxed_slice())
}

/// Runs a scalar instruction's nodes, leaving each value in lane 0 of its row of `vals` as the general path
/// does (the terminator reads the branch condition there).
#[inline(never)]
pub(crate) fn run_scalar(ops: &[SOp], wave: &mut WaveState, vals: &mut Vec<u64>) {
    if vals.len() < ops.len() * L {
        vals.resize(ops.len() * L, 0);
    }
    let sgpr = |wave: &WaveState, r: u16| *wave.sgpr.get(r as usize).unwrap_or(&0) as u64;
    for (k, op) in ops.iter().enumerate() {
        let v = |j: u16| vals[j as usize * L];
        let x = match *op {
            SOp::Const(bits) => bits,
            SOp::Sgpr(r, m) => sgpr(wave, r) & m,
            SOp::Sgpr64(r) => sgpr(wave, r) | sgpr(wave, r + 1) << 32,
            SOp::Scc => wave.scc as u64,
            SOp::Int(op, ty, a, b) => op.eval(ty, v(a), v(b)) & ty.mask(),
            SOp::Cmp(op, ty, a, b) => op.eval(ty, v(a), v(b)) as u64,
            SOp::Extract(ty, a, shift) => (v(a) >> shift) & ty.mask(),
            SOp::Select(c, a, b) => {
                if v(c) != 0 {
                    v(a)
                } else {
                    v(b)
                }
            }
            SOp::Unary(op, from, to, a) => unary(op, from, to, v(a)) & to.mask(),
            SOp::WriteSgpr(r, value, wide) => {
                let x = v(value);
                if let Some(s) = wave.sgpr.get_mut(r as usize) {
                    *s = x as u32;
                }
                if wide {
                    if let Some(s) = wave.sgpr.get_mut(r as usize + 1) {
                        *s = (x >> 32) as u32;
                    }
                }
                continue;
            }
            SOp::WriteScc(value) => {
                wave.scc = v(value) != 0;
                continue;
            }
        };
        vals[k * L] = x;
    }
}

const L: usize = 64;

/// An operand's lanes: a VGPR row, or one value for every lane.
#[derive(Clone, Copy)]
pub(crate) enum Lanes<'a> {
    Row(&'a [u32]),
    Splat(u32),
}

impl Lanes<'_> {
    #[inline(always)]
    pub(crate) fn at(self, l: usize) -> u32 {
        match self {
            Lanes::Row(r) => r[l],
            Lanes::Splat(v) => v,
        }
    }
}

/// The 32-bit integer operations the fused forms run lane-wise inline, into `r` (the results of
/// `IntOp::eval` at `Ty::B32`, without its dispatch per lane); false, nothing written, for the others.
#[inline(always)]
pub(crate) fn int32_lanes(op: IntOp, r: &mut [u32], a: Lanes, b: Lanes) -> bool {
    match op {
        IntOp::Add => map2(r, a, b, |x, y| x.wrapping_add(y)),
        IntOp::Sub => map2(r, a, b, |x, y| x.wrapping_sub(y)),
        IntOp::Mul => map2(r, a, b, |x, y| x.wrapping_mul(y)),
        IntOp::And => map2(r, a, b, |x, y| x & y),
        IntOp::Or => map2(r, a, b, |x, y| x | y),
        IntOp::Xor => map2(r, a, b, |x, y| x ^ y),
        IntOp::Shl => map2(r, a, b, |x, y| x << (y & 31)),
        IntOp::LShr => map2(r, a, b, |x, y| x >> (y & 31)),
        _ => return false,
    }
    true
}

/// The binary f32 operations the fused forms run lane-wise inline (specialize.rs's), into `r`; false,
/// nothing written, for the others.
#[inline(always)]
pub(crate) fn f32_lanes(op: FloatOp, r: &mut [u32], a: Lanes, b: Lanes) -> bool {
    match op {
        FloatOp::F32Add => map2(r, a, b, sp::f32_add),
        FloatOp::F32Sub => map2(r, a, b, sp::f32_sub),
        FloatOp::F32Mul => map2(r, a, b, sp::f32_mul),
        _ => return false,
    }
    true
}

/// Runs `f` on the wave; false (nothing changed) when a VGPR is outside the file.
#[inline(never)]
pub(crate) fn run(f: &Fused, wave: &mut WaveState, exec: u64) -> bool {
    let ws = wave.wave_size as usize;
    let in_file = |r: u16| (r as usize + 1) * ws <= wave.vgpr.len();
    if !in_file(f.dst)
        || f.args
            .iter()
            .any(|s| matches!(*s, Src::Vgpr(r) if !in_file(r)))
    {
        return false;
    }
    let mut r = [0u32; L];
    let r = &mut r[..ws];
    {
        let arg = |s: Src| match s {
            Src::Const(c) => Lanes::Splat(c),
            Src::Sgpr(reg) => Lanes::Splat(*wave.sgpr.get(reg as usize).unwrap_or(&0)),
            Src::Vgpr(reg) => Lanes::Row(&wave.vgpr[reg as usize * ws..(reg as usize + 1) * ws]),
        };
        let (a, b, c) = (arg(f.args[0]), arg(f.args[1]), arg(f.args[2]));
        match f.op {
            Op::Int(op) => {
                if !int32_lanes(op, r, a, b) {
                    return false;
                }
            }
            Op::F32(op) => match op {
                FloatOp::F32Fma => {
                    let lane = |x: Lanes, l: usize| match x {
                        Lanes::Row(v) => v[l],
                        Lanes::Splat(v) => v,
                    };
                    for (l, d) in r.iter_mut().enumerate() {
                        *d = sp::f32_fma(lane(a, l), lane(b, l), lane(c, l));
                    }
                }
                _ => {
                    if !f32_lanes(op, r, a, b) {
                        return false;
                    }
                }
            },
        }
    }
    let base = f.dst as usize * ws;
    let dst = &mut wave.vgpr[base..base + ws];
    let all = if ws == 64 { u64::MAX } else { (1u64 << ws) - 1 };
    if exec & all == all {
        // Lane by lane (a 32- or 64-lane copy as a library call costs more than the loop).
        for (d, &x) in dst.iter_mut().zip(r.iter()) {
            *d = x;
        }
    } else {
        for (lane, d) in dst.iter_mut().enumerate() {
            if exec >> lane & 1 != 0 {
                *d = r[lane];
            }
        }
    }
    true
}

/// `r[lane] = f(a[lane], b[lane])`, one loop per operand form.
#[inline(always)]
pub(crate) fn map2(r: &mut [u32], a: Lanes, b: Lanes, f: impl Fn(u32, u32) -> u32) {
    match (a, b) {
        (Lanes::Row(a), Lanes::Row(b)) => {
            for ((d, &x), &y) in r.iter_mut().zip(a).zip(b) {
                *d = f(x, y);
            }
        }
        (Lanes::Row(a), Lanes::Splat(y)) => {
            for (d, &x) in r.iter_mut().zip(a) {
                *d = f(x, y);
            }
        }
        (Lanes::Splat(x), Lanes::Row(b)) => {
            for (d, &y) in r.iter_mut().zip(b) {
                *d = f(x, y);
            }
        }
        (Lanes::Splat(x), Lanes::Splat(y)) => r.fill(f(x, y)),
    }
}
