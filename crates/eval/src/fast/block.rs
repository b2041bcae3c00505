//! Whole blocks as one fused form (decision D113): a block whose every instruction has a fast form
//! ([`super::fused`]) and that does not write EXEC runs as one precompiled op list — the scalar instructions'
//! values in a small register array shared by the whole block, the VALU instructions as their fused form —
//! with one runaway check, one statistics update and one terminator per block instead of per instruction.
//!
//! Compiling the block at once lets three exact clean-ups cross instruction boundaries:
//!
//! * *forwarding*: an SGPR or SCC read after the block wrote it reads the written value's register (only where
//!   the read gives the same bits: a 32-bit read of a value of at most 32 bits, an SCC read of a 1-bit value);
//! * *dead writes*: an SCC or SGPR write overwritten later in the block with no read in between is dropped
//!   (reads are the remaining scalar reads and the VALU forms' SGPR operands; nothing else in a block form
//!   reads them — no memory, cross-lane or general-path node is in one);
//! * *dead values*: pure scalar ops whose value nothing reads any more (the overflow bits of `s_add_i32` whose
//!   SCC `s_cmp` overwrites) are dropped; constants sit in registers preset at block entry.
//!
//! The architectural state after the block is the per-instruction path's exactly: every SGPR and SCC that the
//! block's last write to it leaves is written, VGPR writes are the same fused forms in the same order. The
//! statistics count every machine instruction and its active lanes, as the per-instruction path does (EXEC
//! is constant inside a block form). Nothing here runs under a tracer (which records each instruction), when
//! the block would cross the runaway limit (the per-instruction path then reports the exact instruction), or
//! when a VGPR it names lies outside the wave's file.

use super::fused::SOp;
use super::Fast;
use crate::reference::{unary, WaveState};
use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{Block, Handle, IntCmp, IntOp, Program, Terminator, Ty, UnOp, EXEC_LO};

/// A register of the block's scalar register array.
type Reg = u16;

#[derive(Debug, Clone, PartialEq)]
enum BOp {
    Valu(super::fused::Fused),
    Multi(Box<super::fused_multi::Multi>),
    Sgpr(Reg, u16, u64),
    Sgpr64(Reg, u16),
    Scc(Reg),
    Int(IntOp, Ty, Reg, Reg, Reg),
    Cmp(IntCmp, Ty, Reg, Reg, Reg),
    Extract(Ty, Reg, Reg, u8),
    Select(Reg, Reg, Reg, Reg),
    Unary(UnOp, Ty, Ty, Reg, Reg),
    WriteSgpr(u16, Reg, bool),
    WriteScc(Reg),
}

/// One block's fused form.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BlockFast {
    ops: Box<[BOp]>,
    /// The register array at block entry: constants first, then zeros.
    init: Box<[u64]>,
    /// Machine instructions of the block (the steps it counts).
    insts: u64,
    /// The register holding the branch condition (`Terminator::Branch`).
    cond: Option<Reg>,
    /// One past the highest VGPR a VALU form names.
    vgprs: usize,
    /// The block's terminator.
    next: Terminator,
}

/// What a register holds, for forwarding: its type and whether its value fits that type (no bits above).
#[derive(Clone, Copy)]
struct Val {
    ty: Ty,
    fits: bool,
}

/// The block form of every block that has one (`None` elsewhere).
pub(crate) fn compile(
    p: &Program,
    types: &Types,
    fast: &[Vec<Option<Fast>>],
) -> Vec<Option<BlockFast>> {
    p.blocks
        .iter()
        .zip(fast)
        .map(|((_, block), f)| compile_block(types, block, f))
        .collect()
}

fn compile_block(types: &Types, block: &Block, fast: &[Option<Fast>]) -> Option<BlockFast> {
    if block.insts.is_empty() || fast.len() != block.insts.len() {
        return None;
    }
    // Registers: constants are numbered apart (then placed first), values after them.
    enum R {
        Const(u16),
        Val(u16),
    }
    let mut consts: Vec<u64> = Vec::new();
    let mut vals: Vec<Val> = Vec::new();
    let mut regs: Vec<R> = Vec::new(); // all registers, in creation order
    let mut meta: Vec<Val> = Vec::new(); // per register
    let mut ops: Vec<BOp> = Vec::new();
    let mut sgpr_fwd: std::collections::HashMap<u16, Reg> = std::collections::HashMap::new();
    let mut scc_fwd: Option<Reg> = None;
    let mut cond = None;
    let mut vgprs = 0usize;
    let new_reg = |r: R, v: Val, regs: &mut Vec<R>, meta: &mut Vec<Val>| -> Option<Reg> {
        regs.push(r);
        meta.push(v);
        u16::try_from(regs.len() - 1).ok()
    };
    for (i, (inst, f)) in block.insts.iter().zip(fast).enumerate() {
        let start = inst.nodes.start as usize;
        match f.as_ref()? {
            Fast::Valu(v) => {
                vgprs = vgprs.max(v.max_vgpr() as usize + 1);
                ops.push(BOp::Valu(*v));
            }
            Fast::Multi(m) => {
                vgprs = vgprs.max(m.max_vgpr() as usize + 1);
                ops.push(BOp::Multi(m.clone()));
            }
            Fast::Salu(sops) => {
                // rel[k]: the register of the instruction's k-th node.
                let mut rel: Vec<Reg> = Vec::with_capacity(sops.len());
                for (k, op) in sops.iter().enumerate() {
                    let ty = types[start + k].map_or(Ty::B32, |t| t.0);
                    let r = |j: u16| rel[j as usize];
                    let fits_of = |j: u16| meta[rel[j as usize] as usize].fits;
                    let reg = match *op {
                        SOp::Const(bits) => {
                            consts.push(bits);
                            let c = u16::try_from(consts.len() - 1).ok()?;
                            let fits = bits & !ty.mask() == 0;
                            new_reg(R::Const(c), Val { ty, fits }, &mut regs, &mut meta)?
                        }
                        SOp::Sgpr(s, m) => match sgpr_fwd.get(&s) {
                            // A 32-bit read of a value of at most 32 bits: the value itself.
                            Some(&v)
                                if m == 0xffff_ffff
                                    && meta[v as usize].fits
                                    && meta[v as usize].ty.bits() <= 32 =>
                            {
                                v
                            }
                            _ => {
                                let d = new_reg(
                                    R::Val(vals.len() as u16),
                                    Val { ty, fits: true },
                                    &mut regs,
                                    &mut meta,
                                )?;
                                vals.push(Val { ty, fits: true });
                                ops.push(BOp::Sgpr(d, s, m));
                                d
                            }
                        },
                        SOp::Scc => match scc_fwd {
                            Some(v) => v,
                            None => {
                                let d = new_reg(
                                    R::Val(vals.len() as u16),
                                    Val {
                                        ty: Ty::B1,
                                        fits: true,
                                    },
                                    &mut regs,
                                    &mut meta,
                                )?;
                                vals.push(Val {
                                    ty: Ty::B1,
                                    fits: true,
                                });
                                ops.push(BOp::Scc(d));
                                d
                            }
                        },
                        _ => {
                            let fits = match *op {
                                SOp::Select(_, a, b) => fits_of(a) && fits_of(b),
                                _ => true,
                            };
                            let ty = match *op {
                                SOp::Sgpr64(..) => Ty::B64,
                                SOp::Cmp(..) => Ty::B1,
                                _ => ty,
                            };
                            let writes = matches!(*op, SOp::WriteSgpr(..) | SOp::WriteScc(..));
                            let d = if writes {
                                0
                            } else {
                                let d = new_reg(
                                    R::Val(vals.len() as u16),
                                    Val { ty, fits },
                                    &mut regs,
                                    &mut meta,
                                )?;
                                vals.push(Val { ty, fits });
                                d
                            };
                            ops.push(match *op {
                                SOp::Sgpr64(s) => BOp::Sgpr64(d, s),
                                SOp::Int(o, t, a, b) => BOp::Int(o, t, d, r(a), r(b)),
                                SOp::Cmp(o, t, a, b) => BOp::Cmp(o, t, d, r(a), r(b)),
                                SOp::Extract(t, a, sh) => BOp::Extract(t, d, r(a), sh),
                                SOp::Select(c, a, b) => BOp::Select(d, r(c), r(a), r(b)),
                                SOp::Unary(o, from, to, a) => BOp::Unary(o, from, to, d, r(a)),
                                SOp::WriteSgpr(s, v, wide) => {
                                    // EXEC is constant inside a block form.
                                    let hits = |x: u16| x == EXEC_LO || x == EXEC_LO + 1;
                                    if hits(s) || (wide && hits(s + 1)) {
                                        return None;
                                    }
                                    sgpr_fwd.remove(&s);
                                    sgpr_fwd.remove(&(s + 1));
                                    if !wide && (s as usize) < 128 {
                                        sgpr_fwd.insert(s, r(v));
                                    }
                                    BOp::WriteSgpr(s, r(v), wide)
                                }
                                SOp::WriteScc(v) => {
                                    let m = meta[r(v) as usize];
                                    scc_fwd = (m.ty == Ty::B1 && m.fits).then(|| r(v));
                                    BOp::WriteScc(r(v))
                                }
                                SOp::Const(_) | SOp::Sgpr(..) | SOp::Scc => unreachable!(),
                            });
                            d
                        }
                    };
                    rel.push(reg);
                }
                if i + 1 == block.insts.len() {
                    if let Terminator::Branch { cond: c, .. } = block.terminator {
                        let k = c.index().checked_sub(start)?;
                        cond = Some(*rel.get(k)?);
                    }
                }
            }
        }
    }
    if matches!(block.terminator, Terminator::Branch { .. }) && cond.is_none() {
        return None;
    }
    // Dead writes (backwards): an SCC / SGPR write overwritten later with no read in between.
    let mut scc_over = false;
    let mut over: std::collections::HashSet<u16> = std::collections::HashSet::new();
    let mut keep = vec![true; ops.len()];
    for (j, op) in ops.iter().enumerate().rev() {
        match *op {
            BOp::WriteScc(_) => {
                if scc_over {
                    keep[j] = false;
                }
                scc_over = true;
            }
            BOp::Scc(_) => scc_over = false,
            BOp::WriteSgpr(s, _, wide) => {
                let dead = over.contains(&s) && (!wide || over.contains(&(s + 1)));
                if dead {
                    keep[j] = false;
                }
                over.insert(s);
                if wide {
                    over.insert(s + 1);
                }
            }
            BOp::Sgpr(_, s, _) => {
                over.remove(&s);
            }
            BOp::Sgpr64(_, s) => {
                over.remove(&s);
                over.remove(&(s + 1));
            }
            BOp::Valu(ref v) => {
                for s in v.sgprs() {
                    over.remove(&s);
                }
            }
            BOp::Multi(ref m) => {
                for s in m.sgprs() {
                    over.remove(&s);
                }
            }
            _ => {}
        }
    }
    // Dead values (backwards): pure ops whose register nothing kept reads.
    let mut used = vec![false; regs.len()];
    if let Some(c) = cond {
        used[c as usize] = true;
    }
    for (j, op) in ops.iter().enumerate().rev() {
        if !keep[j] {
            continue;
        }
        let (dst, srcs): (Option<Reg>, [Option<Reg>; 3]) = match *op {
            BOp::Valu(_) | BOp::Multi(_) => (None, [None; 3]),
            BOp::Sgpr(d, ..) | BOp::Sgpr64(d, _) | BOp::Scc(d) => (Some(d), [None; 3]),
            BOp::Int(_, _, d, a, b) | BOp::Cmp(_, _, d, a, b) => {
                (Some(d), [Some(a), Some(b), None])
            }
            BOp::Extract(_, d, a, _) | BOp::Unary(_, _, _, d, a) => {
                (Some(d), [Some(a), None, None])
            }
            BOp::Select(d, c, a, b) => (Some(d), [Some(c), Some(a), Some(b)]),
            BOp::WriteSgpr(_, v, _) | BOp::WriteScc(v) => (None, [Some(v), None, None]),
        };
        if let Some(d) = dst {
            if !used[d as usize] {
                keep[j] = false;
                continue;
            }
        }
        for s in srcs.into_iter().flatten() {
            used[s as usize] = true;
        }
    }
    // Renumber: constants first, then values.
    let nc = consts.len() as u16;
    let map = |r: Reg| -> Reg {
        match regs[r as usize] {
            R::Const(c) => c,
            R::Val(v) => nc + v,
        }
    };
    let ops: Box<[BOp]> = ops
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(op, _)| match op {
            BOp::Valu(v) => BOp::Valu(v),
            BOp::Multi(m) => BOp::Multi(m),
            BOp::Sgpr(d, s, m) => BOp::Sgpr(map(d), s, m),
            BOp::Sgpr64(d, s) => BOp::Sgpr64(map(d), s),
            BOp::Scc(d) => BOp::Scc(map(d)),
            BOp::Int(o, t, d, a, b) => BOp::Int(o, t, map(d), map(a), map(b)),
            BOp::Cmp(o, t, d, a, b) => BOp::Cmp(o, t, map(d), map(a), map(b)),
            BOp::Extract(t, d, a, sh) => BOp::Extract(t, map(d), map(a), sh),
            BOp::Select(d, c, a, b) => BOp::Select(map(d), map(c), map(a), map(b)),
            BOp::Unary(o, f, t, d, a) => BOp::Unary(o, f, t, map(d), map(a)),
            BOp::WriteSgpr(s, v, w) => BOp::WriteSgpr(s, map(v), w),
            BOp::WriteScc(v) => BOp::WriteScc(map(v)),
        })
        .collect();
    let mut init = consts;
    init.resize(init.len() + vals.len(), 0);
    Some(BlockFast {
        ops,
        init: init.into_boxed_slice(),
        insts: block.insts.len() as u64,
        cond: cond.map(map),
        vgprs,
        next: block.terminator,
    })
}

/// Runs the wave's current block and the block forms it enters next, as long as each one can run (see the
/// module notes); false, with nothing changed, when the current one cannot. The wave must be at the start of
/// its block.
#[inline(never)]
pub(crate) fn run(
    blocks: &[Option<BlockFast>],
    max_steps: u64,
    wave: &mut WaveState,
    regs: &mut (Vec<u64>, usize),
    tmp: &mut Vec<u32>,
    stats: &mut crate::Stats,
) -> bool {
    let mut ran = false;
    // EXEC is the same for the whole chain: no block form writes it.
    let exec = wave.exec();
    let active = wave.active_count(exec);
    loop {
        let Some(Some(b)) = blocks.get(wave.block_handle().index()) else {
            return ran;
        };
        let ws = wave.wave_size as usize;
        if wave.steps + b.insts > max_steps || b.vgprs * ws > wave.vgpr.len() {
            return ran;
        }
        // The constants stay in place while the same block runs again (no op writes them; every value
        // register is written before it is read).
        let index = wave.block_handle().index();
        let (regs, loaded) = &mut *regs;
        if *loaded != index + 1 {
            regs.clear();
            regs.extend_from_slice(&b.init);
            *loaded = index + 1;
        }
        for op in b.ops.iter() {
            run_op(op, wave, exec, regs, tmp);
        }
        wave.steps += b.insts;
        stats.instructions += b.insts;
        stats.lane_instructions += b.insts * active;
        ran = true;
        let next: Option<Handle<Block>> = match b.next {
            Terminator::Branch {
                taken, not_taken, ..
            } => {
                let c = regs[b.cond.expect("a branching block form has its condition") as usize];
                Some(if c != 0 { taken } else { not_taken })
            }
            Terminator::Jump(t) => Some(t),
            Terminator::End => None,
        };
        match next {
            Some(t) => crate::reference::enter(wave, t),
            None => {
                wave.finish();
                return true;
            }
        }
    }
}

#[inline(always)]
fn run_op(op: &BOp, wave: &mut WaveState, exec: u64, regs: &mut [u64], tmp: &mut Vec<u32>) {
    let sgpr = |wave: &WaveState, r: u16| *wave.sgpr.get(r as usize).unwrap_or(&0) as u64;
    match *op {
        BOp::Valu(ref f) => {
            let ok = super::fused::run(f, wave, exec);
            debug_assert!(ok, "block forms are run only with their VGPRs in the file");
        }
        BOp::Multi(ref m) => {
            let ok = super::fused_multi::run(m, wave, exec, tmp);
            debug_assert!(ok, "block forms are run only with their VGPRs in the file");
        }
        BOp::Sgpr(d, r, m) => regs[d as usize] = sgpr(wave, r) & m,
        BOp::Sgpr64(d, r) => regs[d as usize] = sgpr(wave, r) | sgpr(wave, r + 1) << 32,
        BOp::Scc(d) => regs[d as usize] = wave.scc as u64,
        BOp::Int(op, ty, d, a, b) => {
            let (x, y) = (regs[a as usize], regs[b as usize]);
            regs[d as usize] = match (op, ty) {
                // The loop counters' forms, without the general function's dispatch.
                (IntOp::Add, Ty::B32) => x.wrapping_add(y) & 0xffff_ffff,
                (IntOp::Sub, Ty::B32) => x.wrapping_sub(y) & 0xffff_ffff,
                (IntOp::And, _) => x & y & ty.mask(),
                _ => op.eval(ty, x, y) & ty.mask(),
            }
        }
        BOp::Cmp(op, ty, d, a, b) => {
            let (x, y) = (regs[a as usize], regs[b as usize]);
            regs[d as usize] = match op {
                // Loop exits and branch conditions, without the general function's dispatch.
                IntCmp::Eq => (x ^ y) & ty.mask() == 0,
                IntCmp::Ne => (x ^ y) & ty.mask() != 0,
                _ => op.eval(ty, x, y),
            } as u64
        }
        BOp::Extract(ty, d, a, shift) => regs[d as usize] = (regs[a as usize] >> shift) & ty.mask(),
        BOp::Select(d, c, a, b) => {
            regs[d as usize] = if regs[c as usize] != 0 {
                regs[a as usize]
            } else {
                regs[b as usize]
            }
        }
        BOp::Unary(op, from, to, d, a) => {
            regs[d as usize] = unary(op, from, to, regs[a as usize]) & to.mask()
        }
        BOp::WriteSgpr(r, v, wide) => {
            let x = regs[v as usize];
            if let Some(s) = wave.sgpr.get_mut(r as usize) {
                *s = x as u32;
            }
            if wide {
                if let Some(s) = wave.sgpr.get_mut(r as usize + 1) {
                    *s = (x >> 32) as u32;
                }
            }
        }
        BOp::WriteScc(v) => wave.scc = regs[v as usize] != 0,
    }
}
