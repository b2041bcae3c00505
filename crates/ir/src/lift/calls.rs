//! Calls: `s_getpc_b64`, `s_setpc_b64`, `s_swappc_b64` and `s_call_b64`, lifted by inlining (D099).
//!
//! clang and hipcc call a non-inlined device function with `s_getpc_b64` + `s_add_u32`/`s_addc_u32` of a
//! PC-relative literal (the linker has resolved the `rel32` relocation) + `s_swappc_b64 s[30:31], s[n:n+1]`;
//! the callee returns with `s_setpc_b64 s[30:31]`. The decoder follows such a call when the target is known
//! at translation time: a forward pass over the decoded instructions tracks the SGPR values that are
//! constants (from `s_getpc_b64`, the add/add-with-carry of constants, copies, and the VGPR lanes that
//! `v_writelane_b32`/`v_readlane_b32` spill them to), and every other instruction forgets what it writes
//! (found by lifting it: the lifter is the one authority on what an instruction writes). A call whose
//! target is a function of the same code object opens a new *context* (the callee's code once more, with
//! the return location); `s_setpc_b64` whose value is the context's return address returns to it. Every
//! call site thus gets its own copy of the callee's blocks in the IR, and the rest of the pipeline (the
//! structurizer, the evaluator, the SPIR-V lowering) sees ordinary jumps. A target that is not known, not
//! the entry of a function of the code object, or already on the call chain (recursion) is refused with
//! the instruction's text and offset.
//!
//! PC values are addresses in the code object (the loader's base is 0); the IR's instruction offsets
//! stay relative to the kernel's entry (a callee placed before the kernel has offsets that wrap in u32).

use super::{flow_of, mode, Flow, LiftError, LiftExtras, LiftOptions, Lifter};
use crate::{Handle, IntOp, Node, Program, Ty};
use rdna2spv_isa::{decode, Instruction, Opcode, PrintOptions};
use std::collections::{BTreeMap, BTreeSet};

/// A function of the code object a kernel may call: its symbol, address and code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callee {
    pub name: String,
    /// Virtual address of the first instruction.
    pub address: u64,
    pub code: Vec<u8>,
}

/// Where the kernel sits in its code object and which functions it may call.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallSpace<'a> {
    /// Virtual address of the kernel's first instruction (what `s_getpc_b64` computes from).
    pub kernel_address: u64,
    /// The callable functions (non-kernel function symbols of a linked code object).
    pub callees: &'a [Callee],
}

/// A program location: an instruction offset (relative to the kernel entry, wrapping) in a call context
/// (0: the kernel itself; others: one inlined call each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct Loc {
    pub ctx: u32,
    pub pc: u32,
}

/// Where control goes after an instruction.
#[derive(Debug, Clone, Copy)]
pub(super) enum Edge {
    Next(Loc),
    End,
    Jump(Loc),
    Cond { taken: Loc, next: Loc },
}

impl Edge {
    pub fn targets(self) -> Vec<Loc> {
        match self {
            Edge::Next(l) | Edge::Jump(l) => vec![l],
            Edge::End => vec![],
            Edge::Cond { taken, next } => vec![taken, next],
        }
    }
}

/// How a refusal in call context `ctx` (not 0) names where it is: "; in a function called by kernel K"
/// and, for a call nested in another function, the chain of calls from the kernel ("(K → f → g)"), so
/// that a runtime can tell which service a kernel reached (printf, malloc: D160).
pub(super) fn called_by(
    contexts: &[Context],
    callees: &[Callee],
    kernel: &str,
    ctx: u32,
) -> String {
    let mut chain = Vec::new();
    let mut c = ctx;
    while c != 0 {
        let cx = &contexts[c as usize - 1];
        chain.push(callees[cx.callee].name.as_str());
        c = cx.parent;
    }
    chain.push(kernel);
    chain.reverse();
    if chain.len() > 2 {
        format!(
            "; in a function called by kernel {kernel} ({})",
            chain.join(" → ")
        )
    } else {
        format!("; in a function called by kernel {kernel}")
    }
}

/// A call context: the callee, where its code starts and where it returns.
#[derive(Debug, Clone)]
pub(super) struct Context {
    pub parent: u32,
    /// Index into the callee list.
    pub callee: usize,
    /// The callee's entry (kernel-relative, wrapping).
    pub entry: u32,
    /// The return address (absolute) and the location it returns to.
    pub ret_addr: u64,
    pub ret: Loc,
}

/// Everything reachable, decoded, with its control edges.
pub(super) struct Decoded {
    pub insts: BTreeMap<Loc, Instruction>,
    pub edges: BTreeMap<Loc, Edge>,
    pub leaders: BTreeSet<Loc>,
    /// Contexts 1.. (index 0 is the kernel).
    pub contexts: Vec<Context>,
}

/// One function's words and its kernel-relative start.
struct Segment {
    start: u32,
    words: Vec<u32>,
}

fn words_of(code: &[u8]) -> Vec<u32> {
    code.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn is_call_op(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::S_GETPC_B64 | Opcode::S_SETPC_B64 | Opcode::S_SWAPPC_B64 | Opcode::S_CALL_B64
    )
}

fn branch_target(pc: u32, ins: &Instruction) -> i64 {
    pc as i64 + 4 + 4 * (ins.word(0) as u16 as i16 as i64)
}

/// The decoder without calls: every instruction reachable from the entry of `code` (the lifter's
/// original walk). Returns whether any call instruction was reached (then [`decode_tracked`] runs).
pub(super) fn decode_plain(
    code: &[u8],
    opts: &LiftOptions,
    print: PrintOptions,
) -> Result<(Decoded, bool), LiftError> {
    let words = words_of(code);
    let mut insts: BTreeMap<Loc, Instruction> = BTreeMap::new();
    let mut edges = BTreeMap::new();
    let mut leaders: BTreeSet<Loc> = BTreeSet::from([Loc { ctx: 0, pc: 0 }]);
    let mut work = vec![0u32];
    let mut calls = false;
    let at = |pc: u32| Loc { ctx: 0, pc };
    while let Some(pc) = work.pop() {
        if insts.contains_key(&at(pc)) {
            continue;
        }
        let wi = (pc / 4) as usize;
        if wi >= words.len() {
            return Err(LiftError::FallsOff { offset: pc });
        }
        let ins = decode(&words[wi..], opts.target)
            .map_err(|error| LiftError::Decode { offset: pc, error })?;
        let next = pc + 4 * ins.len() as u32;
        let target = || -> Result<u32, LiftError> {
            let t = branch_target(pc, &ins);
            if t < 0 || t as usize >= words.len() * 4 {
                return Err(LiftError::BadBranch {
                    offset: pc,
                    text: ins.text(print),
                    target: t,
                });
            }
            Ok(t as u32)
        };
        calls |= is_call_op(ins.opcode());
        let edge = match flow_of(&ins) {
            // s_setpc_b64 leaves the straight-line code: nothing after it is decoded here.
            Flow::Next if ins.opcode() == Opcode::S_SETPC_B64 => Edge::End,
            Flow::Next => {
                // s_barrier ends its block, so a lowering can stop a wave at a block boundary after it.
                if ins.opcode() == Opcode::S_BARRIER {
                    leaders.insert(at(next));
                }
                work.push(next);
                Edge::Next(at(next))
            }
            Flow::End => Edge::End,
            Flow::Jump => {
                let t = target()?;
                leaders.insert(at(t));
                work.push(t);
                Edge::Jump(at(t))
            }
            Flow::Cond => {
                let t = target()?;
                leaders.insert(at(t));
                leaders.insert(at(next));
                work.push(t);
                work.push(next);
                Edge::Cond {
                    taken: at(t),
                    next: at(next),
                }
            }
        };
        edges.insert(at(pc), edge);
        insts.insert(at(pc), ins);
    }
    Ok((
        Decoded {
            insts,
            edges,
            leaders,
            contexts: Vec::new(),
        },
        calls,
    ))
}

/// SGPR values (by operand encoding, 0..=127) and VGPR lanes known to be constants, and SCC.
#[derive(Debug, Clone, PartialEq, Default)]
struct Known {
    s: BTreeMap<u16, u32>,
    lanes: BTreeMap<(u16, u32), u32>,
    scc: Option<bool>,
}

impl Known {
    fn join(&self, o: &Known) -> Known {
        Known {
            s: self
                .s
                .iter()
                .filter(|(k, v)| o.s.get(k) == Some(v))
                .map(|(&k, &v)| (k, v))
                .collect(),
            lanes: self
                .lanes
                .iter()
                .filter(|(k, v)| o.lanes.get(k) == Some(v))
                .map(|(&k, &v)| (k, v))
                .collect(),
            scc: if self.scc == o.scc { self.scc } else { None },
        }
    }
    /// A 32-bit SALU/VALU source operand's value, if known.
    fn src(&self, enc: u32, literal: Option<u32>) -> Option<u32> {
        match enc {
            0..=127 => self.s.get(&(enc as u16)).copied(),
            128..=192 => Some(enc - 128),
            193..=208 => Some((-((enc - 192) as i32)) as u32),
            255 => literal,
            _ => None,
        }
    }
    fn pair(&self, enc: u32) -> Option<u64> {
        if enc > 126 {
            return None;
        }
        let lo = *self.s.get(&(enc as u16))?;
        let hi = *self.s.get(&(enc as u16 + 1))?;
        Some(lo as u64 | (hi as u64) << 32)
    }
    fn set(&mut self, reg: u32, v: Option<u32>) {
        if reg > 127 {
            return;
        }
        match v {
            Some(v) => self.s.insert(reg as u16, v),
            None => self.s.remove(&(reg as u16)),
        };
    }
    fn set_pair(&mut self, reg: u32, v: Option<u64>) {
        self.set(reg, v.map(|v| v as u32));
        self.set(reg + 1, v.map(|v| (v >> 32) as u32));
    }
    fn forget_all(&mut self) {
        *self = Known::default();
    }
}

/// The decoder with calls: contexts, known values, call and return edges.
pub(super) fn decode_tracked(
    name: &str,
    code: &[u8],
    opts: &LiftOptions,
    ext: &LiftExtras,
    space: &CallSpace<'_>,
    print: PrintOptions,
) -> Result<Decoded, LiftError> {
    let mut segs = vec![Segment {
        start: 0,
        words: words_of(code),
    }];
    for c in space.callees {
        segs.push(Segment {
            start: c.address.wrapping_sub(space.kernel_address) as u32,
            words: words_of(&c.code),
        });
    }
    // The segment holding `pc` (the kernel first: a callee's range never shadows the kernel's own code).
    let seg_of = |pc: u32| {
        segs.iter()
            .position(|s| (pc.wrapping_sub(s.start) as usize) < s.words.len() * 4)
    };
    let callee_at = |pc: u32| {
        space
            .callees
            .iter()
            .position(|c| c.address.wrapping_sub(space.kernel_address) as u32 == pc)
    };
    let abs = |pc: u32| space.kernel_address.wrapping_add(pc as i32 as i64 as u64);

    let mut d = Decoded {
        insts: BTreeMap::new(),
        edges: BTreeMap::new(),
        leaders: BTreeSet::from([Loc { ctx: 0, pc: 0 }]),
        contexts: Vec::new(),
    };
    let mut ctx_ids: BTreeMap<(u32, u32, u32), u32> = BTreeMap::new();
    let mut state: BTreeMap<Loc, Known> = BTreeMap::new();
    let mut work: Vec<(Loc, Known)> = vec![(Loc { ctx: 0, pc: 0 }, Known::default())];
    while let Some((loc, k)) = work.pop() {
        let k = match state.get(&loc) {
            None => k,
            Some(old) => {
                let j = old.join(&k);
                if &j == old {
                    continue;
                }
                j
            }
        };
        state.insert(loc, k.clone());
        let pc = loc.pc;
        let Some(si) = seg_of(pc) else {
            return Err(LiftError::FallsOff { offset: pc });
        };
        let seg = &segs[si];
        let wi = (pc.wrapping_sub(seg.start) / 4) as usize;
        let ins = match d.insts.get(&loc) {
            Some(i) => i.clone(),
            None => decode(&seg.words[wi..], opts.target)
                .map_err(|error| LiftError::Decode { offset: pc, error })?,
        };
        let text = || ins.text(print);
        // Refusals name the function and the offset in it (the kernel, or a callee).
        let (who, off, whose) = match loc.ctx {
            0 => (name.to_string(), pc, String::new()),
            c => {
                let cx = &d.contexts[c as usize - 1];
                (
                    space.callees[cx.callee].name.clone(),
                    pc.wrapping_sub(cx.entry),
                    called_by(&d.contexts, space.callees, name, c),
                )
            }
        };
        let refuse = |reason: String| -> LiftError {
            LiftError::Unsupported {
                kernel: who.clone(),
                offset: off,
                text: text(),
                reason: format!("{reason}{whose}"),
            }
        };
        let next = pc.wrapping_add(4 * ins.len() as u32);
        let here = |pc: u32| Loc { ctx: loc.ctx, pc };
        let target = || -> Result<u32, LiftError> {
            let t = branch_target(pc.wrapping_sub(seg.start), &ins);
            if t < 0 || t as usize >= seg.words.len() * 4 {
                return Err(LiftError::BadBranch {
                    offset: pc,
                    text: text(),
                    target: t,
                });
            }
            Ok((t as u32).wrapping_add(seg.start))
        };
        let mut out = k.clone();
        let w0 = ins.word(0);
        let sdst = w0 >> 16 & 0x7f;
        let ssrc0 = w0 & 0xff;
        // A call to `t` (absolute) returning to `next`: the callee's context.
        let mut call = |t: u64, d: &mut Decoded| -> Result<Loc, LiftError> {
            let rel = t.wrapping_sub(space.kernel_address) as u32;
            let Some(ci) = callee_at(rel) else {
                return Err(refuse(format!(
                    "the call target {t:#x} is not the entry of a function of this code object (only calls \
                     to a function of a linked code object are inlined; in an unlinked object the offset is \
                     a pending relocation, D099)"
                )));
            };
            // Recursion: the callee is already on the call chain.
            let mut c = loc.ctx;
            while c != 0 {
                let cx = &d.contexts[c as usize - 1];
                if cx.entry == rel {
                    return Err(refuse(format!(
                        "recursive call of {} (calls are inlined, D099)",
                        space.callees[ci].name
                    )));
                }
                c = cx.parent;
            }
            if d.contexts.len() >= 4096 {
                return Err(refuse("more than 4096 inlined calls (D099)".into()));
            }
            let id = *ctx_ids.entry((loc.ctx, pc, rel)).or_insert_with(|| {
                d.contexts.push(Context {
                    parent: loc.ctx,
                    callee: ci,
                    entry: rel,
                    ret_addr: abs(next),
                    ret: here(next),
                });
                d.contexts.len() as u32
            });
            Ok(Loc { ctx: id, pc: rel })
        };
        let edge = match ins.opcode() {
            Opcode::S_GETPC_B64 => {
                out.set_pair(sdst, Some(abs(next)));
                Edge::Next(here(next))
            }
            Opcode::S_SWAPPC_B64 | Opcode::S_CALL_B64 => {
                let t = if ins.opcode() == Opcode::S_CALL_B64 {
                    // PC-relative, into another function: no bound but the callee list's.
                    Some(abs(branch_target(pc, &ins) as u32))
                } else {
                    k.pair(ssrc0)
                };
                let Some(t) = t else {
                    return Err(refuse(
                        "the call target is not known at translation time (an indirect call, e.g. through a \
                         function pointer; only calls whose target is a constant are inlined, D099)"
                            .into(),
                    ));
                };
                let l = call(t, &mut d)?;
                out.set_pair(sdst, Some(abs(next)));
                d.leaders.insert(l);
                d.leaders.insert(here(next));
                Edge::Jump(l)
            }
            Opcode::S_SETPC_B64 => {
                let Some(t) = k.pair(ssrc0) else {
                    return Err(refuse(
                        "the jump target is not known at translation time (an indirect jump or a return \
                         address that was not tracked, D099)"
                            .into(),
                    ));
                };
                if loc.ctx == 0 {
                    return Err(refuse(format!(
                        "s_setpc_b64 to {t:#x} outside a call (only returns from inlined calls are \
                         lifted, D099)"
                    )));
                }
                let cx = &d.contexts[loc.ctx as usize - 1];
                if t != cx.ret_addr {
                    return Err(refuse(format!(
                        "s_setpc_b64 to {t:#x}, which is not the return address {:#x} of this call \
                         (D099)",
                        cx.ret_addr
                    )));
                }
                d.leaders.insert(cx.ret);
                Edge::Jump(cx.ret)
            }
            op => {
                transfer(op, &ins, &k, &mut out, opts, ext, pc, abs(pc), print);
                match flow_of(&ins) {
                    Flow::Next => {
                        if op == Opcode::S_BARRIER {
                            d.leaders.insert(here(next));
                        }
                        Edge::Next(here(next))
                    }
                    Flow::End => Edge::End,
                    Flow::Jump => {
                        let t = here(target()?);
                        d.leaders.insert(t);
                        Edge::Jump(t)
                    }
                    Flow::Cond => {
                        let t = here(target()?);
                        d.leaders.insert(t);
                        d.leaders.insert(here(next));
                        Edge::Cond {
                            taken: t,
                            next: here(next),
                        }
                    }
                }
            }
        };
        // The state flows along every edge: into a callee (with the return address), back to the return
        // location (with what the callee left).
        for t in edge.targets() {
            work.push((t, out.clone()));
        }
        d.edges.insert(loc, edge);
        d.insts.insert(loc, ins);
    }
    Ok(d)
}

/// The known values after an instruction other than the call instructions.
#[allow(clippy::too_many_arguments)]
fn transfer(
    op: Opcode,
    ins: &Instruction,
    k: &Known,
    out: &mut Known,
    opts: &LiftOptions,
    ext: &LiftExtras,
    pc: u32,
    addr: u64,
    print: PrintOptions,
) {
    let w0 = ins.word(0);
    let sdst = w0 >> 16 & 0x7f;
    let ssrc0 = w0 & 0xff;
    let ssrc1 = w0 >> 8 & 0xff;
    let lit = ins.literal;
    match op {
        Opcode::S_MOV_B32 => out.set(sdst, k.src(ssrc0, lit)),
        Opcode::S_MOV_B64 => {
            let v = match ssrc0 {
                0..=126 => k.pair(ssrc0),
                128..=192 => Some((ssrc0 - 128) as u64),
                _ => None,
            };
            out.set_pair(sdst, v);
        }
        Opcode::S_ADD_U32 | Opcode::S_ADDC_U32 => {
            let cin = if op == Opcode::S_ADDC_U32 {
                k.scc.map(u64::from)
            } else {
                Some(0)
            };
            match (k.src(ssrc0, lit), k.src(ssrc1, lit), cin) {
                (Some(a), Some(b), Some(c)) => {
                    let r = a as u64 + b as u64 + c;
                    out.set(sdst, Some(r as u32));
                    out.scc = Some(r >> 32 != 0);
                }
                _ => {
                    out.set(sdst, None);
                    out.scc = None;
                }
            }
        }
        // A lane spill of an SGPR (how a caller keeps s[30:31] across its own calls).
        Opcode::V_WRITELANE_B32 => {
            let w1 = ins.word(1);
            let vdst = (w0 & 0xff) as u16;
            match (k.src(w1 & 0x1ff, lit), k.src(w1 >> 9 & 0x1ff, lit)) {
                (Some(v), Some(lane)) => {
                    out.lanes.insert((vdst, lane), v);
                }
                _ => out.lanes.retain(|&(r, _), _| r != vdst),
            }
        }
        Opcode::V_READLANE_B32 => {
            let w1 = ins.word(1);
            let src0 = w1 & 0x1ff;
            let v = match (src0, k.src(w1 >> 9 & 0x1ff, lit)) {
                (256..=511, Some(lane)) => k.lanes.get(&((src0 - 256) as u16, lane)).copied(),
                _ => None,
            };
            out.set(w0 & 0xff, v);
        }
        _ => forget_writes(ins, out, opts, ext, pc, addr, print),
    }
}

/// Forgets what an instruction writes, found by lifting it into a scratch program.
fn forget_writes(
    ins: &Instruction,
    out: &mut Known,
    opts: &LiftOptions,
    ext: &LiftExtras,
    pc: u32,
    addr: u64,
    print: PrintOptions,
) {
    let mut p = Program {
        wave_size: opts.wave_size,
        ..Default::default()
    };
    let text = ins.text(print);
    let p_len = p.nodes.len();
    let mut b = Lifter {
        p: &mut p,
        ws: opts.wave_size,
        psb: opts.private_segment_buffer,
        ext,
        ins,
        pc,
        text: &text,
        mode: mode::Mode::constant(mode::MODELLED_MODE),
        addr,
        calls: true,
        sv: super::shared::SharedState {
            first: p_len,
            ..Default::default()
        },
        flush: Default::default(),
    };
    if b.lift().is_err() {
        // Refused here for the modelled MODE or for good: the real lift reports it if it is reachable.
        out.forget_all();
        return;
    }
    // The written registers, 64-bit values writing two (the node types as the verifier computes them).
    let mut types: Vec<Option<Ty>> = Vec::with_capacity(p.nodes.len());
    for i in 0..p.nodes.len() {
        let n = &p.nodes[Handle::<Node>::from_index(i)];
        let t = crate::verify::node_type(n, &|h: Handle<Node>| {
            types
                .get(h.index())
                .copied()
                .flatten()
                .map(|t| (t, crate::Shape::Uniform))
                .ok_or_else(String::new)
        });
        let wide = |v: Handle<Node>| types.get(v.index()).copied().flatten() != Some(Ty::B32);
        match *n {
            Node::WriteSgpr { reg, value } => {
                out.set(reg as u32, None);
                if wide(value) {
                    out.set(reg as u32 + 1, None);
                }
            }
            Node::WriteScc { .. } => out.scc = None,
            Node::WriteVgpr { reg, value } => {
                let two = wide(value);
                out.lanes
                    .retain(|&(r, _), _| r != reg && !(two && r == reg + 1));
            }
            _ => {}
        }
        types.push(t.ok().flatten().map(|(t, _)| t));
    }
}

impl Lifter<'_> {
    /// The call instructions' own effects (the control transfer is the block's terminator).
    pub(super) fn call_op(&mut self) -> Result<bool, LiftError> {
        let sdst = (self.w(0) >> 16 & 0x7f) as u16;
        match self.ins.opcode() {
            // The address of the next instruction; s_swappc/s_call write the return address.
            Opcode::S_GETPC_B64 | Opcode::S_SWAPPC_B64 | Opcode::S_CALL_B64 => {
                // The image's placed address plus the next instruction's virtual address (D155).
                let next = self.addr.wrapping_add(4 * self.ins.len() as u64);
                let base = self.n(Node::CodeBase);
                let off = self.c(Ty::B64, next);
                let v = self.int(IntOp::Add, Ty::B64, base, off);
                self.write_s(sdst, v);
                Ok(true)
            }
            Opcode::S_SETPC_B64 => Ok(true),
            _ => Ok(false),
        }
    }
}
