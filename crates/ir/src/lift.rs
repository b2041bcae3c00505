//! Lifting: decoded RDNA 2 instructions → IR. The semantics of each opcode is written once, in its family's
//! file under lift/ (AMD RDNA 2 ISA guide, chapters on SALU, VALU, scalar and vector memory; D993 for
//! multiply-add). This file is the driver (decode what is reachable, blocks, terminators), the operand and
//! register helpers every family uses (`src`, `read_s`, `write_v`, ...), and the one dispatch `Lifter::lift`:
//! an exhaustive `match` over the opcode's [`Family`] (from the opcode table, D179) with an arm per family —
//! SALU salu.rs, SOPP sopp.rs, SMEM smem.rs, VALU valu.rs (and its family files), VOP3P vop3p.rs, DS lds.rs,
//! FLAT/GLOBAL flat.rs, SCRATCH scratch.rs, MUBUF buffer.rs/format.rs, MTBUF format.rs — and the families not
//! lifted (MIMG, EXP, VINTRP) refusing by name. Opcode-level hooks that cut across families (calls, movrel,
//! MODE writes) run before it.
//!
//! Control flow is recovered from the entry: every reachable instruction is decoded (padding and data after
//! `s_endpgm` never are), basic blocks start at the entry, at branch targets and after conditional branches.
//! An instruction whose semantics is not written yet is a clear [`LiftError::Unsupported`] naming its offset
//! and text — never a silent no-op.

use crate::{
    Block, FloatOp, Handle, Inst, IntCmp, IntOp, Node, Program, Terminator, Ty, UnOp, EXEC_LO,
    VCC_LO,
};
use rdna2spv_isa::{DecodeError, Family, Instruction, Opcode, PrintOptions, Target, Variant};
use std::collections::BTreeMap;

mod atomic;
mod buffer;
mod calls;
mod crosslane;
mod dpp;
mod f64div;
mod flat;
mod fmath;
mod format;
mod image;
mod lds;
mod mode;
mod sample;
pub use mode::{mode_of_rsrc1, MODELLED_MODE};
mod movrel;
mod permlane;
mod round;
mod salu;
mod scratch;
mod sdwa;
mod shared;
pub use shared::TTMP0;
mod smem;
mod sopp;
mod valu;
mod valu16;
mod valu_int;
mod valu_misc;
mod vfloat;
mod vop3p;
pub use buffer::LiftExtras;
pub use calls::{CallSpace, Callee};
use calls::{Edge, Loc};
pub use format::{format_refusal, typed_form, unified_format, Nfmt, Typed};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiftError {
    #[error("offset 0x{offset:x}: {error}")]
    Decode { offset: u32, error: DecodeError },
    /// An instruction without semantics yet. `kernel` is the kernel's name (filled in by [`lift`]).
    #[error(
        "unsupported instruction {text} at {kernel}+0x{offset:x}: {reason} (not supported yet)"
    )]
    Unsupported {
        kernel: String,
        offset: u32,
        text: String,
        reason: String,
    },
    /// A register access the wave does not have: a VGPR above the allocation that is not a shared VGPR,
    /// or a shared-VGPR case that is not modelled (lift/shared.rs, D153).
    #[error("{kernel}+0x{offset:x}: `{text}`: {reason}")]
    Register {
        kernel: String,
        offset: u32,
        text: String,
        reason: String,
    },
    #[error("offset 0x{offset:x}: `{text}` branches to 0x{target:x}, outside the kernel's code")]
    BadBranch {
        offset: u32,
        text: String,
        target: i64,
    },
    #[error("offset 0x{offset:x}: the code ends without s_endpgm")]
    FallsOff { offset: u32 },
}

/// How to lift: the sub-target (decoding), the wave size (from the kernel descriptor, never the words) and
/// the kernel's ABI facts the semantics depends on.
#[derive(Debug, Clone, Copy)]
pub struct LiftOptions {
    pub target: Target,
    pub wave_size: u32,
    /// First SGPR of the private segment buffer V# (the user SGPRs of `enable_sgpr_private_segment_buffer`),
    /// if the kernel has one. MUBUF instructions whose `srsrc` is this quad are scratch accesses (D010);
    /// any other `srsrc` is refused.
    pub private_segment_buffer: Option<u16>,
}

/// Lifts the kernel whose code starts at byte 0 of `code`.
pub fn lift(name: &str, code: &[u8], opts: LiftOptions) -> Result<Program, LiftError> {
    lift_ext(name, code, opts, &LiftExtras::default())
}

/// [`lift`] with the ABI facts of a captured binary that a code object does not carry ([`LiftExtras`]).
pub fn lift_ext(
    name: &str,
    code: &[u8],
    opts: LiftOptions,
    ext: &LiftExtras,
) -> Result<Program, LiftError> {
    lift_with_calls(name, code, opts, ext, &CallSpace::default())
}

/// [`lift_ext`] for a kernel of a code object whose calls to the object's functions are inlined
/// (lift/calls.rs, D099): `space` gives the kernel's address and the callable functions.
pub fn lift_with_calls(
    name: &str,
    code: &[u8],
    opts: LiftOptions,
    ext: &LiftExtras,
    space: &CallSpace<'_>,
) -> Result<Program, LiftError> {
    let print = PrintOptions {
        wave64: opts.wave_size == 64,
    };
    if ext.shared_vgprs > 0 && (opts.wave_size != 64 || ext.vgpr_count.is_none()) {
        return Err(LiftError::Register {
            kernel: name.to_string(),
            offset: 0,
            text: String::new(),
            reason: format!(
                "{} shared VGPRs need wave64 and a known VGPR allocation (SHARED_VGPR_COUNT must be 0 \
                 in wave32: LLVM AMDGPUUsage, COMPUTE_PGM_RSRC3)",
                ext.shared_vgprs
            ),
        });
    }
    // 1. Decode everything reachable; with call instructions, again with calls followed (lift/calls.rs).
    let (mut d, has_calls) = calls::decode_plain(code, &opts, print)?;
    if has_calls {
        d = calls::decode_tracked(name, code, &opts, ext, space, print)?;
    }
    let entry = Loc { ctx: 0, pc: 0 };
    // MODE before each instruction, where it is a constant (lift/mode.rs, D072).
    let initial = ext.initial_mode.unwrap_or(mode::MODELLED_MODE);
    let modes = mode::mode_map(&d.insts, entry, initial, |l, _| d.edges[&l].targets());
    // 2. Blocks.
    let mut p = Program {
        name: name.to_string(),
        wave_size: opts.wave_size,
        ..Default::default()
    };
    let starts: Vec<Loc> = d
        .leaders
        .iter()
        .copied()
        .filter(|l| d.insts.contains_key(l))
        .collect();
    let block_of: BTreeMap<Loc, Handle<Block>> = starts
        .iter()
        .enumerate()
        .map(|(i, &l)| (l, Handle::from_index(i)))
        .collect();
    for &start in &starts {
        let mut block = Block {
            start_pc: start.pc,
            insts: Vec::new(),
            terminator: Terminator::End,
        };
        let mut loc = start;
        loop {
            let ins = &d.insts[&loc];
            let pc = loc.pc;
            let text = ins.text(print);
            let first = p.nodes.len() as u32;
            let mut b = Lifter {
                p: &mut p,
                ws: opts.wave_size,
                psb: opts.private_segment_buffer,
                ext,
                ins,
                pc,
                text: &text,
                mode: modes[&loc],
                addr: space.kernel_address.wrapping_add(pc as i32 as i64 as u64),
                calls: has_calls,
                sv: shared::SharedState {
                    first: first as usize,
                    ..Default::default()
                },
                flush: Default::default(),
            };
            let cond = b.lift().and_then(|c| b.shared_error().map(|_| c));
            // A refusal inside an inlined call names the callee and its own offset (D099).
            let place = |offset: u32, reason: String| match loc.ctx {
                0 => (name.to_string(), offset, reason),
                c => {
                    let cx = &d.contexts[c as usize - 1];
                    (
                        space.callees[cx.callee].name.clone(),
                        offset.wrapping_sub(cx.entry),
                        format!(
                            "{reason}{}",
                            calls::called_by(&d.contexts, space.callees, name, c)
                        ),
                    )
                }
            };
            let cond = cond.map_err(|e| match e {
                LiftError::Unsupported {
                    offset,
                    text,
                    reason,
                    ..
                } => {
                    let (kernel, offset, reason) = place(offset, reason);
                    LiftError::Unsupported {
                        kernel,
                        offset,
                        text,
                        reason,
                    }
                }
                LiftError::Register {
                    offset,
                    text,
                    reason,
                    ..
                } => {
                    let (kernel, offset, reason) = place(offset, reason);
                    LiftError::Register {
                        kernel,
                        offset,
                        text,
                        reason,
                    }
                }
                e => e,
            })?;
            let range = first..p.nodes.len() as u32;
            block.insts.push(Inst {
                pc,
                text: text.clone(),
                nodes: range,
                encoding: Some((ins.encoding, ins.variant)),
            });
            match d.edges[&loc] {
                Edge::End => {
                    block.terminator = Terminator::End;
                    break;
                }
                Edge::Jump(t) => {
                    block.terminator = Terminator::Jump(block_of[&t]);
                    break;
                }
                Edge::Cond { taken, next } => {
                    let cond = cond.expect("conditional branches compute their condition");
                    block.terminator = Terminator::Branch {
                        cond,
                        taken: block_of[&taken],
                        not_taken: block_of[&next],
                    };
                    break;
                }
                Edge::Next(next) => {
                    if let Some(&h) = block_of.get(&next) {
                        block.terminator = Terminator::Jump(h);
                        break;
                    }
                    loc = next;
                }
            }
        }
        p.blocks.push(block);
    }
    Ok(p)
}

enum Flow {
    Next,
    End,
    Jump,
    Cond,
}

/// The multiply-add family whose VOP3 clamp and op_sel modifiers are lifted (omod is ignored; D013).
fn madd_family(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        V_FMA_F32
            | V_FMAC_F32
            | V_MAD_F32
            | V_MAC_F32
            | V_FMA_LEGACY_F32
            | V_FMAC_LEGACY_F32
            | V_MAD_LEGACY_F32
            | V_MAC_LEGACY_F32
            | V_MUL_LEGACY_F32
            | V_FMA_F16
            | V_FMAC_F16
            | V_FMA_F64
    )
}

fn flow_of(ins: &Instruction) -> Flow {
    match ins.opcode() {
        Opcode::S_ENDPGM => Flow::End,
        Opcode::S_BRANCH => Flow::Jump,
        Opcode::S_CBRANCH_SCC0
        | Opcode::S_CBRANCH_SCC1
        | Opcode::S_CBRANCH_VCCZ
        | Opcode::S_CBRANCH_VCCNZ
        | Opcode::S_CBRANCH_EXECZ
        | Opcode::S_CBRANCH_EXECNZ => Flow::Cond,
        _ => Flow::Next,
    }
}

/// Operand classes of the VALU/SALU source encodings.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Src {
    /// 32-bit integer or float operand.
    B32,
    /// 64-bit integer operand.
    I64,
    /// 16-bit float operand in the low half.
    F16,
    /// 64-bit float operand: a literal is the high 32 bits of the double.
    F64,
}

struct Lifter<'a> {
    p: &'a mut Program,
    ws: u32,
    psb: Option<u16>,
    ext: &'a LiftExtras,
    ins: &'a Instruction,
    pc: u32,
    text: &'a str,
    /// What is known of MODE before this instruction (lift/mode.rs).
    mode: mode::Mode,
    /// The instruction's address in the code object (lift/calls.rs).
    addr: u64,
    /// Whether call instructions are lifted (the decoder followed them: lift/calls.rs).
    calls: bool,
    /// Wave64 shared VGPRs and the VGPR allocation check (lift/shared.rs).
    sv: shared::SharedState,
    /// What this instruction flushes under MODE.FP_DENORM (lift/mode.rs, D166, D185).
    flush: mode::Flush,
}

impl Lifter<'_> {
    fn n(&mut self, node: Node) -> Handle<Node> {
        if self.shared_on() {
            return self.n_checked(node);
        }
        self.p.nodes.push(node)
    }
    fn c(&mut self, ty: Ty, bits: u64) -> Handle<Node> {
        self.n(Node::Const {
            ty,
            bits: bits & ty.mask(),
        })
    }
    fn unsupported<T>(&self, reason: &str) -> Result<T, LiftError> {
        Err(LiftError::Unsupported {
            kernel: String::new(),
            offset: self.pc,
            text: self.text.to_string(),
            reason: reason.to_string(),
        })
    }
    fn w(&self, i: usize) -> u32 {
        self.ins.word(i)
    }
    fn mask_ty(&self) -> Ty {
        if self.ws == 64 {
            Ty::B64
        } else {
            Ty::B32
        }
    }
    fn int(&mut self, op: IntOp, ty: Ty, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.n(Node::Int { op, ty, a, b })
    }
    fn un(&mut self, op: UnOp, ty: Ty, a: Handle<Node>) -> Handle<Node> {
        self.n(Node::Unary { op, ty, a })
    }
    fn icmp(&mut self, op: IntCmp, ty: Ty, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.n(Node::IntCmp { op, ty, a, b })
    }
    fn float(
        &mut self,
        op: FloatOp,
        a: Handle<Node>,
        b: Handle<Node>,
        c: Handle<Node>,
    ) -> Handle<Node> {
        self.n(Node::Float {
            op,
            args: [a, b, c],
        })
    }
    fn read_s(&mut self, reg: u16, ty: Ty) -> Handle<Node> {
        self.n(Node::ReadSgpr { reg, ty })
    }
    fn write_s(&mut self, reg: u16, value: Handle<Node>) {
        // Writes to null (125) are discarded.
        if reg != 125 {
            self.n(Node::WriteSgpr { reg, value });
        }
    }
    fn write_v(&mut self, reg: u16, value: Handle<Node>) {
        let value = self.flush_out(value);
        let value = self.dpp_write(reg, value);
        let value = self.sdwa_write(reg, value);
        self.n(Node::WriteVgpr { reg, value });
    }
    fn write_scc(&mut self, value: Handle<Node>) {
        self.n(Node::WriteScc { value });
    }
    /// A per-lane condition as a lane mask of the wave's width (inactive lanes 0).
    fn ballot(&mut self, cond: Handle<Node>) -> Handle<Node> {
        let m = self.n(Node::Ballot { cond });
        if self.ws == 32 {
            self.un(UnOp::Trunc, Ty::B32, m)
        } else {
            m
        }
    }
    fn lane_bit(&mut self, mask: Handle<Node>) -> Handle<Node> {
        let m = if self.ws == 32 {
            self.un(UnOp::ZExt, Ty::B64, mask)
        } else {
            mask
        };
        self.n(Node::LaneBit { mask: m })
    }
    fn nonzero(&mut self, ty: Ty, v: Handle<Node>) -> Handle<Node> {
        let z = self.c(ty, 0);
        self.icmp(IntCmp::Ne, ty, v, z)
    }

    /// A 9-bit (VALU) or 8-bit (SALU) source operand.
    fn src(&mut self, enc: u32, class: Src) -> Result<Handle<Node>, LiftError> {
        let ty = match class {
            Src::B32 => Ty::B32,
            Src::I64 | Src::F64 => Ty::B64,
            Src::F16 => Ty::B32,
        };
        Ok(match enc {
            256..=511 => self.n(Node::ReadVgpr {
                reg: (enc - 256) as u16,
                ty,
            }),
            0..=105 | 106..=124 | 126 | 127 => self.read_s(enc as u16, ty),
            125 => self.c(ty, 0),
            128..=192 => self.c(ty, (enc - 128) as u64),
            193..=208 => self.c(ty, (-((enc - 192) as i64)) as u64),
            240..=248 => {
                const F: [f64; 8] = [0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0];
                let i = (enc - 240) as usize;
                let bits = match class {
                    Src::B32 => {
                        if enc == 248 {
                            0x3e22_f983
                        } else {
                            (F[i] as f32).to_bits() as u64
                        }
                    }
                    Src::F16 => {
                        const H: [u64; 9] = [
                            0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118,
                        ];
                        H[i]
                    }
                    Src::I64 | Src::F64 => {
                        if enc == 248 {
                            0x3fc4_5f30_6dc9_c882
                        } else {
                            F[i].to_bits()
                        }
                    }
                };
                self.c(ty, bits)
            }
            253 => {
                let s = self.n(Node::ReadScc);
                self.un(UnOp::ZExt, ty, s)
            }
            251 | 252 => {
                let reg = if enc == 251 { VCC_LO } else { EXEC_LO };
                let t = self.mask_ty();
                let m = self.read_s(reg, t);
                let z = self.c(t, 0);
                let is_zero = self.icmp(IntCmp::Eq, t, m, z);
                self.un(UnOp::ZExt, ty, is_zero)
            }
            // The DPP16 / DPP8 source: lift/dpp.rs.
            233 | 234 | 250 if self.ins.has_modifier_word() && class == Src::B32 => self.dpp_src(),
            // The SDWA sources (valu passes these encodings for SDWA forms): lift/sdwa.rs.
            sdwa::SDWA_SRC0 | sdwa::SDWA_SRC1 if self.ins.variant == Variant::Sdwa => {
                return self.sdwa_src(enc - sdwa::SDWA_SRC0, class)
            }
            255 => {
                let lit = self.ins.literal.unwrap_or(0) as u64;
                let lit = if class == Src::F64 { lit << 32 } else { lit };
                self.c(ty, lit)
            }
            // src_shared_base/limit, src_private_base/limit: only needed to form FLAT pointers into the
            // LDS or scratch apertures, which are not modelled (D031).
            235..=238 => {
                return self.unsupported(
                    "aperture registers (src_shared_base/src_private_base) are not modelled: FLAT accesses to the LDS and scratch apertures are refused (D031)",
                )
            }
            _ => return self.unsupported(&format!("source operand encoding {enc}")),
        })
    }

    /// Lifts the instruction; returns the branch condition for conditional branches.
    fn lift(&mut self) -> Result<Option<Handle<Node>>, LiftError> {
        self.check_float_mode()?;
        if self.calls && self.call_op()? {
            return Ok(None);
        }
        if self.movrel()? {
            return Ok(None);
        }
        self.refuse_scalar_control()?;
        if self.mode_op()? {
            return Ok(None);
        }
        // One dispatch over the opcode's ISA family (rdna2spv_isa::Family, from the table's rows; D179): no
        // wildcard arm, so a new family breaks the build here, and a family that is not lifted refuses by name.
        match self.ins.opcode().family() {
            Family::Salu => self.salu().map(|_| None),
            Family::Sopp => self.sopp(),
            Family::Smem => self.smem().map(|_| None),
            Family::Valu | Family::Vop3p => {
                // DPP16/DPP8 forms: lift/dpp.rs; SDWA forms: lift/sdwa.rs (both checked in dpp_check).
                if self.permlane()? {
                    return Ok(None);
                }
                self.dpp_check()?;
                self.valu().map(|_| None)
            }
            Family::Global | Family::Flat => self.global().map(|_| None),
            Family::Scratch => self.scratch().map(|_| None),
            Family::Ds => {
                // Cross-lane DS instructions (no LDS access): lift/crosslane.rs.
                if self.ds_crosslane()? {
                    return Ok(None);
                }
                self.ds().map(|_| None)
            }
            Family::Mubuf => match self.ins.opcode() {
                // Cache invalidation: the evaluator and SPIR-V have coherent memory.
                Opcode::BUFFER_GL0_INV | Opcode::BUFFER_GL1_INV => Ok(None),
                // Typed buffer accesses (format forms): lift/format.rs (D097).
                _ if self.typed_buffer()? => Ok(None),
                _ => self.mubuf().map(|_| None),
            },
            // MTBUF: every form is typed (lift/format.rs, D097).
            Family::Mtbuf => {
                if self.typed_buffer()? {
                    Ok(None)
                } else {
                    self.unsupported("this MTBUF form is not lifted")
                }
            }
            // Storage-image loads, stores and get_resinfo: lift/image.rs (D183).
            Family::Mimg => self.image().map(|_| None),
            Family::Exp => {
                self.unsupported("exports (EXP) are graphics-only and not lifted")
            }
            Family::Vintrp => self.unsupported(
                "parameter interpolation (VINTRP and its VOP3 forms) is graphics-only and not lifted",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Space;

    /// s_barrier ends its block (so a lowering can stop a wave at the boundary); the code after it starts a
    /// new block that the barrier's block jumps to.
    #[test]
    fn barrier_ends_its_block() {
        // s_nop 0; s_barrier; s_nop 0; s_endpgm
        let words: [u32; 4] = [0xbf80_0000, 0xbf8a_0000, 0xbf80_0000, 0xbf81_0000];
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let p = lift(
            "k",
            &code,
            LiftOptions {
                target: Target::Gfx1030,
                wave_size: 32,
                private_segment_buffer: None,
            },
        )
        .unwrap();
        assert_eq!(p.blocks.len(), 2);
        let b0 = &p.blocks[Handle::from_index(0)];
        assert_eq!(b0.insts.len(), 2);
        assert!(p
            .inst_nodes(b0.insts.last().unwrap())
            .any(|(_, n)| matches!(n, Node::Barrier)));
        assert_eq!(b0.terminator, Terminator::Jump(Handle::from_index(1)));
        assert_eq!(p.blocks[Handle::from_index(1)].start_pc, 8);
    }

    fn opts(psb: Option<u16>) -> LiftOptions {
        LiftOptions {
            target: Target::Gfx1030,
            wave_size: 32,
            private_segment_buffer: psb,
        }
    }

    fn code(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The scratch addresses of the first instruction's loads/stores for one lane, computed from its nodes
    /// with the given SGPR and VGPR values.
    fn scratch_addrs(p: &Program, sgpr: &[(u16, u32)], vgpr: &[(u16, u32)], lane: u32) -> Vec<u32> {
        let inst = &p.blocks[Handle::from_index(0)].insts[0];
        let mut vals: BTreeMap<usize, u32> = BTreeMap::new();
        let mut out = Vec::new();
        for (h, n) in p.inst_nodes(inst) {
            let get = |x: Handle<Node>| vals[&x.index()];
            let v = match *n {
                Node::Const { bits, .. } => bits as u32,
                Node::ReadSgpr { reg, .. } => sgpr.iter().find(|r| r.0 == reg).map_or(0, |r| r.1),
                Node::ReadVgpr { reg, .. } => vgpr.iter().find(|r| r.0 == reg).map_or(0, |r| r.1),
                Node::LaneId => lane,
                Node::Int { op, a, b, .. } => match op {
                    IntOp::Add => get(a).wrapping_add(get(b)),
                    IntOp::And => get(a) & get(b),
                    IntOp::Shl => get(a) << get(b),
                    _ => panic!("unexpected {op:?}"),
                },
                Node::Load {
                    space,
                    addr,
                    offset,
                    ..
                }
                | Node::Store {
                    space,
                    addr,
                    offset,
                    ..
                } => {
                    assert_eq!(space, Space::Scratch);
                    out.push(get(addr).wrapping_add(offset as u32));
                    0
                }
                _ => 0,
            };
            vals.insert(h.index(), v);
        }
        out
    }

    /// MUBUF through the private segment buffer: the ISA's swizzled address (index stride = wave size,
    /// 4-byte elements, ADD_TID) with soffset and the V# base unswizzled (D010).
    #[test]
    fn scratch_buffer_accesses_are_swizzled_per_lane() {
        let end = 0xbf81_0000;
        // buffer_store_dword v5, off, s[0:3], 0 offset:188
        let p = lift("k", &code(&[0xe070_00bc, 0x8000_0500, end]), opts(Some(0))).unwrap();
        for lane in [0, 1, 31] {
            let a = scratch_addrs(&p, &[(0, 0x100)], &[], lane);
            assert_eq!(a, vec![0x100 + 47 * 128 + 4 * lane]);
        }
        // buffer_load_dwordx2 v[4:5], v1, s[0:3], s9 offen offset:6
        let p = lift("k", &code(&[0xe034_1006, 0x0900_0401, end]), opts(Some(0))).unwrap();
        assert_eq!(
            p.blocks[Handle::from_index(0)].insts[0].text,
            "buffer_load_dwordx2 v[4:5], v1, s[0:3], s9 offen offset:6"
        );
        let a = scratch_addrs(&p, &[(0, 0x40), (9, 0x1000)], &[(1, 9)], 3);
        // offsets 15 and 19: dwords 3 and 4, bytes 3 and 3
        assert_eq!(
            a,
            vec![0x1040 + 3 * 128 + 12 + 3, 0x1040 + 4 * 128 + 12 + 3]
        );
        // buffer_store_dword v7, v[1:2], s[4:7], 0 idxen offen offset:8: index v1 (+ lane), offset v2.
        let p = lift("k", &code(&[0xe070_3008, 0x8001_0701, end]), opts(Some(4))).unwrap();
        let a = scratch_addrs(&p, &[(4, 0)], &[(1, 30), (2, 4)], 5);
        assert_eq!(a, vec![3 * 128 + ((30 + 5) % 32) * 4]);
    }

    #[test]
    fn aperture_registers_are_refused() {
        // s_mov_b32 s0, src_shared_base (D031).
        let c = code(&[0xbe80_03eb, 0xbf81_0000]);
        let e = lift("k", &c, opts(None)).unwrap_err().to_string();
        assert!(
            e.contains("k+0x0") && e.contains("src_shared_base") && e.contains("D031"),
            "{e}"
        );
    }

    #[test]
    fn other_buffers_are_general_vsharps() {
        // buffer_store_dword v5, off, s[4:7], 0 offset:188: a V# that is not the private segment buffer
        // lifts as a general V# (D030): a range-checked store.
        let c = code(&[0xe070_00bc, 0x8001_0500, 0xbf81_0000]);
        for psb in [Some(0), None] {
            let p = lift("k", &c, opts(psb)).unwrap();
            assert!(p
                .nodes
                .iter()
                .any(|(_, n)| matches!(n, Node::StoreIf { .. })));
        }
        // tfe and format loads are refused by name.
        let tfe = code(&[0xe070_00bc, 0x8081_0500, 0xbf81_0000]);
        let e = lift("k", &tfe, opts(None)).unwrap_err().to_string();
        assert!(e.contains("not supported yet") && e.contains("tfe"), "{e}");
    }
}
