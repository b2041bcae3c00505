//! Lifting: decoded RDNA 2 instructions → IR. The semantics of each opcode family is written here once
//! (AMD RDNA 2 ISA guide, chapters on SALU, VALU, scalar and vector memory; D993 for multiply-add).
//!
//! Control flow is recovered from the entry: every reachable instruction is decoded (padding and data after
//! `s_endpgm` never are), basic blocks start at the entry, at branch targets and after conditional branches.
//! An instruction whose semantics is not written yet is a clear [`LiftError::Unsupported`] naming its offset
//! and text — never a silent no-op.

use crate::{
    Access, Block, FloatCmp, FloatOp, Handle, Inst, IntCmp, IntOp, Node, Program, Space,
    Terminator, Ty, UnOp, EXEC_LO, VCC_LO,
};
use rdna2spv_isa::{
    DecodeError, Family, Format, Instruction, Opcode, PrintOptions, Target, Variant,
};
use std::collections::BTreeMap;

mod atomic;
mod buffer;
mod calls;
mod crosslane;
mod dpp;
mod f64div;
mod flat;
mod format;
mod lds;
mod mode;
pub use mode::{mode_of_rsrc1, MODELLED_MODE};
mod movrel;
mod permlane;
mod salu;
mod scratch;
mod sdwa;
mod shared;
pub use shared::TTMP0;
mod smem;
mod valu16;
mod valu_int;
mod valu_misc;
mod vfloat;
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
                flush32: Default::default(),
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
    /// What this instruction flushes under MODE.FP_DENORM f32 (lift/mode.rs, D166).
    flush32: mode::Flush32,
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
        let value = self.flush_out32(value);
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
            Family::Mimg => self.unsupported(
                "image instructions (MIMG) are not lifted: images and samplers have no model yet",
            ),
            Family::Exp => {
                self.unsupported("exports (EXP) are graphics-only and not lifted")
            }
            Family::Vintrp => self.unsupported(
                "parameter interpolation (VINTRP and its VOP3 forms) is graphics-only and not lifted",
            ),
        }
    }

    fn sopp(&mut self) -> Result<Option<Handle<Node>>, LiftError> {
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

    fn salu(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let w0 = self.w(0);
        let sdst = ((w0 >> 16) & 0x7f) as u16;
        let (e0, e1) = (w0 & 0xff, (w0 >> 8) & 0xff);
        let op = self.ins.opcode();
        match op {
            S_WAITCNT_VSCNT | S_WAITCNT_VMCNT | S_WAITCNT_EXPCNT | S_WAITCNT_LGKMCNT => Ok(()),
            S_MOV_B32 | S_MOV_B64 => {
                let wide = op == S_MOV_B64;
                let v = self.src(e0, if wide { Src::I64 } else { Src::B32 })?;
                self.write_s(sdst, v);
                Ok(())
            }
            S_MOVK_I32 => {
                let v = self.c(Ty::B32, w0 as u16 as i16 as i32 as u32 as u64);
                self.write_s(sdst, v);
                Ok(())
            }
            S_BFM_B32 | S_BFM_B64 => {
                // D = ((1 << S0[4:0]) - 1) << S1[4:0] (B64: 6-bit counts, 64-bit mask); SCC unchanged.
                let wide = op == S_BFM_B64;
                let ty = if wide { Ty::B64 } else { Ty::B32 };
                let a = self.src(e0, Src::B32)?;
                let b = self.src(e1, Src::B32)?;
                let (a, b) = if wide {
                    (
                        self.un(UnOp::ZExt, Ty::B64, a),
                        self.un(UnOp::ZExt, Ty::B64, b),
                    )
                } else {
                    (a, b)
                };
                let m = self.c(ty, if wide { 63 } else { 31 });
                let a = self.int(IntOp::And, ty, a, m);
                let b = self.int(IntOp::And, ty, b, m);
                let one = self.c(ty, 1);
                let bit = self.int(IntOp::Shl, ty, one, a);
                let mask = self.int(IntOp::Sub, ty, bit, one);
                let r = self.int(IntOp::Shl, ty, mask, b);
                self.write_s(sdst, r);
                Ok(())
            }
            S_MULK_I32 => {
                // D = D * simm16 (sign-extended), low 32 bits; SCC unchanged.
                let k = self.c(Ty::B32, w0 as u16 as i16 as i32 as u32 as u64);
                let d = self.read_s(sdst, Ty::B32);
                let v = self.int(IntOp::Mul, Ty::B32, d, k);
                self.write_s(sdst, v);
                Ok(())
            }
            S_AND_B32 | S_OR_B32 | S_XOR_B32 | S_ANDN2_B32 | S_ORN2_B32 | S_AND_B64 | S_OR_B64
            | S_XOR_B64 | S_ANDN2_B64 | S_ORN2_B64 => {
                let wide = matches!(
                    op,
                    S_AND_B64 | S_OR_B64 | S_XOR_B64 | S_ANDN2_B64 | S_ORN2_B64
                );
                let (ty, cl) = if wide {
                    (Ty::B64, Src::I64)
                } else {
                    (Ty::B32, Src::B32)
                };
                let a = self.src(e0, cl)?;
                let mut b = self.src(e1, cl)?;
                if matches!(op, S_ANDN2_B32 | S_ANDN2_B64 | S_ORN2_B32 | S_ORN2_B64) {
                    b = self.un(UnOp::Not, ty, b);
                }
                let iop = match op {
                    S_AND_B32 | S_AND_B64 | S_ANDN2_B32 | S_ANDN2_B64 => IntOp::And,
                    S_OR_B32 | S_OR_B64 | S_ORN2_B32 | S_ORN2_B64 => IntOp::Or,
                    _ => IntOp::Xor,
                };
                let r = self.int(iop, ty, a, b);
                self.write_s(sdst, r);
                let nz = self.nonzero(ty, r);
                self.write_scc(nz);
                Ok(())
            }
            S_ADD_U32 | S_SUB_U32 | S_ADDC_U32 | S_SUBB_U32 => {
                // 33-bit arithmetic: SCC is the carry (or borrow) out.
                let a = self.src(e0, Src::B32)?;
                let b = self.src(e1, Src::B32)?;
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let b64 = self.un(UnOp::ZExt, Ty::B64, b);
                let sub = matches!(op, S_SUB_U32 | S_SUBB_U32);
                let mut r = self.int(if sub { IntOp::Sub } else { IntOp::Add }, Ty::B64, a64, b64);
                if matches!(op, S_ADDC_U32 | S_SUBB_U32) {
                    let s = self.n(Node::ReadScc);
                    let s64 = self.un(UnOp::ZExt, Ty::B64, s);
                    r = self.int(if sub { IntOp::Sub } else { IntOp::Add }, Ty::B64, r, s64);
                }
                let lo = self.n(Node::Extract {
                    ty: Ty::B32,
                    a: r,
                    shift: 0,
                });
                let carry = self.n(Node::Extract {
                    ty: Ty::B1,
                    a: r,
                    shift: 32,
                });
                self.write_s(sdst, lo);
                self.write_scc(carry);
                Ok(())
            }
            S_ADD_I32 | S_SUB_I32 => {
                // SCC = signed overflow.
                let a = self.src(e0, Src::B32)?;
                let b = self.src(e1, Src::B32)?;
                let sub = op == S_SUB_I32;
                let r = self.int(if sub { IntOp::Sub } else { IntOp::Add }, Ty::B32, a, b);
                let sa = self.n(Node::Extract {
                    ty: Ty::B1,
                    a,
                    shift: 31,
                });
                let sb = self.n(Node::Extract {
                    ty: Ty::B1,
                    a: b,
                    shift: 31,
                });
                let sr = self.n(Node::Extract {
                    ty: Ty::B1,
                    a: r,
                    shift: 31,
                });
                // add: overflow when a and b agree in sign and r differs; sub: when a and b differ and r differs from a.
                let same = self.icmp(if sub { IntCmp::Ne } else { IntCmp::Eq }, Ty::B1, sa, sb);
                let flipped = self.icmp(IntCmp::Ne, Ty::B1, sa, sr);
                let ov = self.int(IntOp::And, Ty::B1, same, flipped);
                self.write_s(sdst, r);
                self.write_scc(ov);
                Ok(())
            }
            S_MUL_I32 => {
                let a = self.src(e0, Src::B32)?;
                let b = self.src(e1, Src::B32)?;
                let r = self.int(IntOp::Mul, Ty::B32, a, b);
                self.write_s(sdst, r);
                Ok(())
            }
            S_LSHL_B32 | S_LSHR_B32 | S_ASHR_I32 | S_LSHL_B64 | S_LSHR_B64 | S_ASHR_I64 => {
                let wide = matches!(op, S_LSHL_B64 | S_LSHR_B64 | S_ASHR_I64);
                let (ty, cl) = if wide {
                    (Ty::B64, Src::I64)
                } else {
                    (Ty::B32, Src::B32)
                };
                let a = self.src(e0, cl)?;
                let b = self.src(e1, Src::B32)?;
                let iop = match op {
                    S_LSHL_B32 | S_LSHL_B64 => IntOp::Shl,
                    S_LSHR_B32 | S_LSHR_B64 => IntOp::LShr,
                    _ => IntOp::AShr,
                };
                let b = if wide {
                    self.un(UnOp::ZExt, Ty::B64, b)
                } else {
                    b
                };
                let r = self.int(iop, ty, a, b);
                self.write_s(sdst, r);
                let nz = self.nonzero(ty, r);
                self.write_scc(nz);
                Ok(())
            }
            S_MIN_U32 | S_MAX_U32 | S_MIN_I32 | S_MAX_I32 => {
                let a = self.src(e0, Src::B32)?;
                let b = self.src(e1, Src::B32)?;
                let (iop, cmp) = match op {
                    S_MIN_U32 => (IntOp::MinU, IntCmp::LtU),
                    S_MAX_U32 => (IntOp::MaxU, IntCmp::GtU),
                    S_MIN_I32 => (IntOp::MinI, IntCmp::LtI),
                    _ => (IntOp::MaxI, IntCmp::GtI),
                };
                let r = self.int(iop, Ty::B32, a, b);
                // SCC = 1 if src0 was selected.
                let sel = self.icmp(cmp, Ty::B32, a, b);
                self.write_s(sdst, r);
                self.write_scc(sel);
                Ok(())
            }
            S_CSELECT_B32 | S_CSELECT_B64 => {
                let cl = if op == S_CSELECT_B64 {
                    Src::I64
                } else {
                    Src::B32
                };
                let a = self.src(e0, cl)?;
                let b = self.src(e1, cl)?;
                let s = self.n(Node::ReadScc);
                let r = self.n(Node::Select { cond: s, a, b });
                self.write_s(sdst, r);
                Ok(())
            }
            S_BCNT1_I32_B32 | S_BCNT1_I32_B64 => {
                let cl = if op == S_BCNT1_I32_B64 {
                    Src::I64
                } else {
                    Src::B32
                };
                let a = self.src(e0, cl)?;
                let r = self.un(UnOp::Popcount, Ty::B32, a);
                self.write_s(sdst, r);
                let nz = self.nonzero(Ty::B32, r);
                self.write_scc(nz);
                Ok(())
            }
            S_AND_SAVEEXEC_B32 | S_AND_SAVEEXEC_B64 | S_OR_SAVEEXEC_B32 | S_OR_SAVEEXEC_B64
            | S_XOR_SAVEEXEC_B32 | S_XOR_SAVEEXEC_B64 | S_ANDN2_SAVEEXEC_B32
            | S_ANDN2_SAVEEXEC_B64 => {
                // D = EXEC; EXEC = S0 op EXEC (andn2: S0 & ~EXEC); SCC = EXEC != 0.
                let wide = matches!(
                    op,
                    S_AND_SAVEEXEC_B64
                        | S_OR_SAVEEXEC_B64
                        | S_XOR_SAVEEXEC_B64
                        | S_ANDN2_SAVEEXEC_B64
                );
                let (ty, cl) = if wide {
                    (Ty::B64, Src::I64)
                } else {
                    (Ty::B32, Src::B32)
                };
                let s = self.src(e0, cl)?;
                let exec = self.read_s(EXEC_LO, ty);
                let (iop, e) = match op {
                    S_AND_SAVEEXEC_B32 | S_AND_SAVEEXEC_B64 => (IntOp::And, exec),
                    S_OR_SAVEEXEC_B32 | S_OR_SAVEEXEC_B64 => (IntOp::Or, exec),
                    S_XOR_SAVEEXEC_B32 | S_XOR_SAVEEXEC_B64 => (IntOp::Xor, exec),
                    _ => (IntOp::And, self.un(UnOp::Not, ty, exec)),
                };
                let r = self.int(iop, ty, s, e);
                self.write_s(sdst, exec);
                self.write_s(EXEC_LO, r);
                let nz = self.nonzero(ty, r);
                self.write_scc(nz);
                Ok(())
            }
            S_CMP_EQ_U32 | S_CMP_LG_U32 | S_CMP_GT_U32 | S_CMP_GE_U32 | S_CMP_LT_U32
            | S_CMP_LE_U32 | S_CMP_EQ_I32 | S_CMP_LG_I32 | S_CMP_GT_I32 | S_CMP_GE_I32
            | S_CMP_LT_I32 | S_CMP_LE_I32 | S_CMP_EQ_U64 | S_CMP_LG_U64 => {
                let wide = matches!(op, S_CMP_EQ_U64 | S_CMP_LG_U64);
                let (ty, cl) = if wide {
                    (Ty::B64, Src::I64)
                } else {
                    (Ty::B32, Src::B32)
                };
                let a = self.src(e0, cl)?;
                let b = self.src(e1, cl)?;
                let cmp = match op {
                    S_CMP_EQ_U32 | S_CMP_EQ_I32 | S_CMP_EQ_U64 => IntCmp::Eq,
                    S_CMP_LG_U32 | S_CMP_LG_I32 | S_CMP_LG_U64 => IntCmp::Ne,
                    S_CMP_GT_U32 => IntCmp::GtU,
                    S_CMP_GE_U32 => IntCmp::GeU,
                    S_CMP_LT_U32 => IntCmp::LtU,
                    S_CMP_LE_U32 => IntCmp::LeU,
                    S_CMP_GT_I32 => IntCmp::GtI,
                    S_CMP_GE_I32 => IntCmp::GeI,
                    S_CMP_LT_I32 => IntCmp::LtI,
                    _ => IntCmp::LeI,
                };
                let r = self.icmp(cmp, ty, a, b);
                self.write_scc(r);
                Ok(())
            }
            _ => {
                // The rest of the scalar ALU: lift/salu.rs.
                if self.salu_more()? {
                    return Ok(());
                }
                self.unsupported("scalar ALU instruction not lifted yet")
            }
        }
    }

    fn smem(&mut self) -> Result<(), LiftError> {
        let w0 = self.w(0);
        let w1 = self.w(1);
        let dwords = match self.ins.opcode() {
            Opcode::S_LOAD_DWORD => 1,
            Opcode::S_LOAD_DWORDX2 => 2,
            Opcode::S_LOAD_DWORDX4 => 4,
            Opcode::S_LOAD_DWORDX8 => 8,
            Opcode::S_LOAD_DWORDX16 => 16,
            _ => {
                // Cache maintenance: lift/salu.rs.
                if self.smem_more()? {
                    return Ok(());
                }
                // Buffer loads/stores, scalar stores, clocks: lift/smem.rs.
                if self.smem_ext()? {
                    return Ok(());
                }
                return self.unsupported("scalar memory instruction not lifted yet");
            }
        };
        let sbase = ((w0 & 0x3f) * 2) as u16;
        let sdata = ((w0 >> 6) & 0x7f) as u16;
        let offset = ((w1 & 0x1f_ffff) as i64) << 43 >> 43;
        let soffset = w1 >> 25;
        let base = self.read_s(sbase, Ty::B64);
        let addr = if soffset != 125 {
            let so = self.src(soffset, Src::B32)?;
            let so64 = self.un(UnOp::ZExt, Ty::B64, so);
            self.int(IntOp::Add, Ty::B64, base, so64)
        } else {
            base
        };
        let addr = self.address32_window(addr);
        // The address is dword aligned (the low two bits are ignored).
        let mask = self.c(Ty::B64, !3u64);
        let vals: Vec<_> = (0..dwords)
            .map(|i| {
                let off = self.c(Ty::B64, (offset + 4 * i as i64) as u64);
                let a = self.int(IntOp::Add, Ty::B64, addr, off);
                let a = self.int(IntOp::And, Ty::B64, a, mask);
                self.n(Node::Load {
                    space: Space::Global,
                    access: Access::B32,
                    addr: a,
                    offset: 0,
                })
            })
            .collect();
        for (i, v) in vals.into_iter().enumerate() {
            self.write_s(sdata + i as u16, v);
        }
        Ok(())
    }

    fn global(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let (w0, w1) = (self.w(0), self.w(1));
        let offset = ((w0 & 0xfff) as i64) << 52 >> 52;
        let vaddr = (w1 & 0xff) as u16;
        let vdata = ((w1 >> 8) & 0xff) as u16;
        let saddr = (w1 >> 16) & 0x7f;
        let vdst = ((w1 >> 24) & 0xff) as u16;
        let glc = w0 >> 16 & 1 != 0;
        let flat = self.ins.format() == Format::FLAT;
        // Address: 64-bit VGPR pair, or SGPR pair + 32-bit VGPR offset (GLOBAL with saddr).
        let addr = if !flat && saddr != 0x7d && saddr != 0x7f {
            let base = self.read_s(saddr as u16, Ty::B64);
            let v = self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B32,
            });
            let v64 = self.un(UnOp::ZExt, Ty::B64, v);
            self.int(IntOp::Add, Ty::B64, base, v64)
        } else {
            self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B64,
            })
        };
        let load = |op| -> Option<(Access, u16)> {
            Some(match op {
                GLOBAL_LOAD_UBYTE | FLAT_LOAD_UBYTE => (Access::U8, 1),
                GLOBAL_LOAD_SBYTE | FLAT_LOAD_SBYTE => (Access::I8, 1),
                GLOBAL_LOAD_USHORT | FLAT_LOAD_USHORT => (Access::U16, 1),
                GLOBAL_LOAD_SSHORT | FLAT_LOAD_SSHORT => (Access::I16, 1),
                GLOBAL_LOAD_DWORD | FLAT_LOAD_DWORD => (Access::B32, 1),
                GLOBAL_LOAD_DWORDX2 | FLAT_LOAD_DWORDX2 => (Access::B32, 2),
                GLOBAL_LOAD_DWORDX3 | FLAT_LOAD_DWORDX3 => (Access::B32, 3),
                GLOBAL_LOAD_DWORDX4 | FLAT_LOAD_DWORDX4 => (Access::B32, 4),
                _ => return None,
            })
        };
        let store = |op| -> Option<(Access, u16)> {
            Some(match op {
                GLOBAL_STORE_BYTE | FLAT_STORE_BYTE => (Access::U8, 1),
                GLOBAL_STORE_SHORT | FLAT_STORE_SHORT => (Access::U16, 1),
                GLOBAL_STORE_DWORD | FLAT_STORE_DWORD => (Access::B32, 1),
                GLOBAL_STORE_DWORDX2 | FLAT_STORE_DWORDX2 => (Access::B32, 2),
                GLOBAL_STORE_DWORDX3 | FLAT_STORE_DWORDX3 => (Access::B32, 3),
                GLOBAL_STORE_DWORDX4 | FLAT_STORE_DWORDX4 => (Access::B32, 4),
                _ => return None,
            })
        };
        let op = self.ins.opcode();
        if self.global_more(addr, offset, vdata, vdst)? {
            return Ok(());
        }
        if let Some((access, n)) = load(op) {
            let vals: Vec<_> = (0..n)
                .map(|i| {
                    self.n(Node::Load {
                        space: Space::Global,
                        access,
                        addr,
                        offset: offset + 4 * i as i64,
                    })
                })
                .collect();
            for (i, v) in vals.into_iter().enumerate() {
                self.write_v(vdst + i as u16, v);
            }
            return Ok(());
        }
        if let Some((access, n)) = store(op) {
            let vals: Vec<_> = (0..n)
                .map(|i| {
                    self.n(Node::ReadVgpr {
                        reg: vdata + i,
                        ty: Ty::B32,
                    })
                })
                .collect();
            for (i, v) in vals.into_iter().enumerate() {
                self.n(Node::Store {
                    space: Space::Global,
                    access,
                    addr,
                    offset: offset + 4 * i as i64,
                    value: v,
                });
            }
            return Ok(());
        }
        if self.global_atomic(addr, offset, vdata, vdst, glc)? {
            return Ok(());
        }
        self.unsupported("global/flat instruction not lifted yet")
    }

    /// MUBUF through the private segment buffer: scratch (D010). The runtime's V# (see `rdna2spv::dispatch`)
    /// has base 0, stride 0, swizzling with 4-byte elements, an index stride of the wave size and
    /// ADD_TID_ENABLE, so the ISA's swizzled address of a lane is
    /// `base + soffset + (offset / 4) * 4 * wave_size + (index % wave_size) * 4 + offset % 4`, where
    /// `offset = inst_offset + (offen ? voffset : 0)` and `index = (idxen ? vindex : 0) + lane`. That is a
    /// byte address in the wave's scratch region ([`Space::Scratch`]); only the low 32 bits of the base
    /// take part (the kernel adds the wave offset to them).
    fn mubuf(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let (w0, w1) = (self.w(0), self.w(1));
        let inst_offset = w0 & 0xfff;
        let offen = w0 >> 12 & 1 != 0;
        let idxen = w0 >> 13 & 1 != 0;
        let lds = w0 >> 16 & 1 != 0;
        let vaddr = (w1 & 0xff) as u16;
        let vdata = ((w1 >> 8) & 0xff) as u16;
        let srsrc = (((w1 >> 16) & 0x1f) * 4) as u16;
        let tfe = w1 >> 23 & 1 != 0;
        let soffset = w1 >> 24;
        if self.psb != Some(srsrc) {
            // Any other quad is a general V# (D030).
            return self.mubuf_vsharp();
        }
        if lds {
            return self.unsupported("MUBUF loads into LDS are not modelled");
        }
        if tfe {
            return self.unsupported("tfe (texture fail enable) is not modelled");
        }
        let op = self.ins.opcode();
        let load = match op {
            BUFFER_LOAD_UBYTE => Some((Access::U8, 1)),
            BUFFER_LOAD_SBYTE => Some((Access::I8, 1)),
            BUFFER_LOAD_USHORT => Some((Access::U16, 1)),
            BUFFER_LOAD_SSHORT => Some((Access::I16, 1)),
            BUFFER_LOAD_DWORD => Some((Access::B32, 1)),
            BUFFER_LOAD_DWORDX2 => Some((Access::B32, 2)),
            BUFFER_LOAD_DWORDX3 => Some((Access::B32, 3)),
            BUFFER_LOAD_DWORDX4 => Some((Access::B32, 4)),
            _ => None,
        };
        let store = match op {
            BUFFER_STORE_BYTE => Some((Access::U8, 1)),
            BUFFER_STORE_SHORT => Some((Access::U16, 1)),
            BUFFER_STORE_DWORD => Some((Access::B32, 1)),
            BUFFER_STORE_DWORDX2 => Some((Access::B32, 2)),
            BUFFER_STORE_DWORDX3 => Some((Access::B32, 3)),
            BUFFER_STORE_DWORDX4 => Some((Access::B32, 4)),
            _ => None,
        };
        if load.is_none() && store.is_none() && self.mubuf_scratch_d16()? {
            return Ok(()); // d16 forms: lift/scratch.rs
        }
        if load.is_none() && store.is_none() && self.mubuf_scratch_atomic()? {
            return Ok(()); // atomics: lift/atomic.rs (D092)
        }
        if load.is_none() && store.is_none() {
            return self.unsupported("buffer instruction not lifted yet (scratch takes loads and stores of bytes, shorts and dwords)");
        }
        // Reads first.
        let base = self.read_s(srsrc, Ty::B32);
        let so = self.src(soffset, Src::B32)?;
        let wave_base = self.int(IntOp::Add, Ty::B32, base, so);
        let lane = self.n(Node::LaneId);
        let index = if idxen {
            let vi = self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B32,
            });
            let sum = self.int(IntOp::Add, Ty::B32, vi, lane);
            let m = self.c(Ty::B32, (self.ws - 1) as u64);
            self.int(IntOp::And, Ty::B32, sum, m)
        } else {
            lane
        };
        let two = self.c(Ty::B32, 2);
        let index4 = self.int(IntOp::Shl, Ty::B32, index, two);
        let lane_base = self.int(IntOp::Add, Ty::B32, wave_base, index4);
        let voffset = offen.then(|| {
            self.n(Node::ReadVgpr {
                reg: vaddr + idxen as u16,
                ty: Ty::B32,
            })
        });
        let stores: Vec<_> = match store {
            Some((_, n)) => (0..n)
                .map(|i| {
                    self.n(Node::ReadVgpr {
                        reg: vdata + i,
                        ty: Ty::B32,
                    })
                })
                .collect(),
            None => Vec::new(),
        };
        let (access, n) = load.or(store).expect("checked above");
        let log_ws = self.ws.trailing_zeros() as u64;
        let mut addrs = Vec::new();
        for i in 0..n {
            let k = self.c(Ty::B32, (inst_offset + 4 * i as u32) as u64);
            let off = match voffset {
                Some(v) => self.int(IntOp::Add, Ty::B32, v, k),
                None => k,
            };
            let hi_mask = self.c(Ty::B32, !3u32 as u64);
            let hi = self.int(IntOp::And, Ty::B32, off, hi_mask);
            let sh = self.c(Ty::B32, log_ws);
            let row = self.int(IntOp::Shl, Ty::B32, hi, sh);
            let lo_mask = self.c(Ty::B32, 3);
            let lo = self.int(IntOp::And, Ty::B32, off, lo_mask);
            let a = self.int(IntOp::Add, Ty::B32, lane_base, row);
            addrs.push(self.int(IntOp::Add, Ty::B32, a, lo));
        }
        if load.is_some() {
            let vals: Vec<_> = addrs
                .iter()
                .map(|&addr| {
                    self.n(Node::Load {
                        space: Space::Scratch,
                        access,
                        addr,
                        offset: 0,
                    })
                })
                .collect();
            for (i, v) in vals.into_iter().enumerate() {
                self.write_v(vdata + i as u16, v);
            }
        } else {
            for (addr, value) in addrs.into_iter().zip(stores) {
                self.n(Node::Store {
                    space: Space::Scratch,
                    access,
                    addr,
                    offset: 0,
                    value,
                });
            }
        }
        Ok(())
    }

    fn ds(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let (w0, w1) = (self.w(0), self.w(1));
        let (off0, off1) = ((w0 & 0xff) as i64, ((w0 >> 8) & 0xff) as i64);
        let offset = (w0 & 0xffff) as i64;
        let addr_r = (w1 & 0xff) as u16;
        let d0 = ((w1 >> 8) & 0xff) as u16;
        let d1 = ((w1 >> 16) & 0xff) as u16;
        let vdst = ((w1 >> 24) & 0xff) as u16;
        if w0 >> 17 & 1 != 0 {
            return self.unsupported("GDS is not modelled");
        }
        let addr = self.n(Node::ReadVgpr {
            reg: addr_r,
            ty: Ty::B32,
        });
        let lds = Space::Lds;
        match self.ins.opcode() {
            DS_WRITE_B32 => {
                let v = self.n(Node::ReadVgpr {
                    reg: d0,
                    ty: Ty::B32,
                });
                self.n(Node::Store {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset,
                    value: v,
                });
            }
            // The ST64 forms scale both offsets by 64 dwords (RDNA 2 ISA, DS_WRITE2ST64_B32: ADDR + OFFSET * 4 * 64).
            DS_WRITE2_B32 | DS_WRITE2ST64_B32 => {
                let scale = if self.ins.opcode() == DS_WRITE2ST64_B32 {
                    4 * 64
                } else {
                    4
                };
                let a = self.n(Node::ReadVgpr {
                    reg: d0,
                    ty: Ty::B32,
                });
                let b = self.n(Node::ReadVgpr {
                    reg: d1,
                    ty: Ty::B32,
                });
                self.n(Node::Store {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset: off0 * scale,
                    value: a,
                });
                self.n(Node::Store {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset: off1 * scale,
                    value: b,
                });
            }
            DS_READ_B32 => {
                let v = self.n(Node::Load {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset,
                });
                self.write_v(vdst, v);
            }
            // DS_READ2ST64_B32: ADDR + OFFSET * 4 * 64 (RDNA 2 ISA).
            DS_READ2_B32 | DS_READ2ST64_B32 => {
                let scale = if self.ins.opcode() == DS_READ2ST64_B32 {
                    4 * 64
                } else {
                    4
                };
                let a = self.n(Node::Load {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset: off0 * scale,
                });
                let b = self.n(Node::Load {
                    space: lds,
                    access: Access::B32,
                    addr,
                    offset: off1 * scale,
                });
                self.write_v(vdst, a);
                self.write_v(vdst + 1, b);
            }
            _ => return self.ds_more(addr),
        }
        Ok(())
    }

    /// VALU: VOP1, VOP2, VOPC, VOP3 (incl. VOP3b), VOP3P.
    fn valu(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let f = self.ins.format();
        let (w0, w1) = (self.w(0), self.w(1));
        let op = self.ins.opcode();
        // Operand fields, normalised across encodings.
        let (s0, s1, s2, vdst, sdst) = match f {
            Format::VOP1 => (w0 & 0x1ff, 0, 0, ((w0 >> 17) & 0xff) as u16, VCC_LO),
            Format::VOP2 => (
                w0 & 0x1ff,
                256 + ((w0 >> 9) & 0xff),
                0,
                ((w0 >> 17) & 0xff) as u16,
                VCC_LO,
            ),
            Format::VOPC => (w0 & 0x1ff, 256 + ((w0 >> 9) & 0xff), 0, 0, VCC_LO),
            _ => (
                w1 & 0x1ff,
                (w1 >> 9) & 0x1ff,
                (w1 >> 18) & 0x1ff,
                (w0 & 0xff) as u16,
                ((w0 >> 8) & 0x7f) as u16,
            ),
        };
        // VOP3 source modifiers: abs then neg, on the f32 sources the row says take them (the table's
        // `+abs`/`+neg` masks, probed from LLVM); bits LLVM ignores (`+ignore`) are ignored here too.
        let mods = self.ins.encoding.mods;
        let (mut abs, mut neg) = (0u32, 0u32);
        let (mut vop3_clamp, mut vop3_opsel) = (false, 0u32);
        if f == Format::VOP3 {
            let vop3b = matches!(
                op,
                V_ADD_CO_U32
                    | V_SUB_CO_U32
                    | V_SUBREV_CO_U32
                    | V_ADD_CO_CI_U32
                    | V_SUB_CO_CI_U32
                    | V_SUBREV_CO_CI_U32
                    | V_MAD_U64_U32
                    | V_MAD_I64_I32
                    | V_DIV_SCALE_F32
                    | V_DIV_SCALE_F64
            );
            let (ig0, ig1) = (mods.ignore[0], mods.ignore[1]);
            let clamp = w0 >> 15 & 1 & !(ig0 >> 15);
            // VOP3b forms hold the carry-out SGPR in bits 8..14 instead of abs/op_sel.
            let opsel = if vop3b { 0 } else { ((w0 & !ig0) >> 11) & 0xf };
            if !vop3b {
                abs = (w0 & !ig0) >> 8 & 7;
            }
            neg = (w1 & !ig1) >> 29;
            let omod = ((w1 & !ig1) >> 27) & 3;
            if madd_family(op) || vfloat::takes_clamp(op) || valu16::takes_int_mods(op) {
                // Multiply-add family (decision D013): clamp, op_sel (16-bit forms) are applied below;
                // omod is ignored, as the hardware ignores it when output denormals are enabled or the
                // IEEE mode bit is set — both on in the compute mode this project models.
                if opsel & !(mods.opsel as u32) != 0 {
                    return self.unsupported("op_sel bits this instruction does not have");
                }
                vop3_clamp = clamp != 0;
                vop3_opsel = opsel;
            } else if clamp != 0 || opsel != 0 || omod != 0 {
                return self.unsupported("VOP3 clamp/omod/op_sel modifiers are not lifted yet");
            }
            // Only float sources (those with an abs bit) take abs/neg as float modifiers.
            if (abs | neg) & !(mods.abs as u32) != 0 {
                return self.unsupported("integer neg modifiers are not lifted yet");
            }
        }
        if f == Format::VOP3P {
            return self.valu_packed();
        }
        // SDWA: selected sources, float abs/neg, clamp (lift/sdwa.rs; omod is refused in sdwa_check).
        let (s0, s1) = if self.ins.variant == Variant::Sdwa {
            let (a, b, sabs, sneg, sclamp) = self.sdwa_operands(f);
            (abs, neg) = (sabs, sneg);
            if sclamp {
                let int_clamp = matches!(op, V_ADD_NC_U32 | V_SUB_NC_U32 | V_SUBREV_NC_U32);
                if !(madd_family(op) || vfloat::takes_clamp(op) || int_clamp) {
                    return self.unsupported("SDWA clamp on this instruction is not lifted");
                }
                vop3_clamp = true;
            }
            (a, b)
        } else {
            (s0, s1)
        };
        let vcc = if f == Format::VOP3 { sdst } else { VCC_LO };
        let mt = self.mask_ty();
        let b32 = Src::B32;
        // `s!(encoding, position)`: a 32-bit source with its VOP3 modifiers (position 3: the literal K).
        macro_rules! s {
            ($e:expr, $i:expr) => {{
                let v = self.src($e, b32)?;
                self.modify(v, $i, abs, neg)
            }};
        }
        // 16-bit integer ops, integer clamp and more integer VOP3: lift/valu16.rs.
        if abs == 0 && neg == 0 && self.valu16(f, s0, s1, s2, vdst, vop3_opsel, vop3_clamp)? {
            return Ok(());
        }
        match op {
            V_MOV_B32 => {
                let a = s!(s0, 0);
                self.write_v(vdst, a);
            }
            V_READFIRSTLANE_B32 => {
                let a = s!(s0, 0);
                let r = self.n(Node::ReadFirstLane { a });
                // VOP1 form: the destination field names an SGPR.
                self.write_s(vdst, r);
            }
            V_ADD_NC_U32 | V_SUB_NC_U32 | V_SUBREV_NC_U32 | V_AND_B32 | V_OR_B32 | V_XOR_B32
            | V_MUL_LO_U32 | V_MUL_HI_U32 | V_MUL_HI_I32 | V_MIN_U32 | V_MAX_U32 | V_MIN_I32
            | V_MAX_I32 => {
                let (mut a, mut b) = (s!(s0, 0), s!(s1, 1));
                if op == V_SUBREV_NC_U32 {
                    std::mem::swap(&mut a, &mut b);
                }
                let iop = match op {
                    V_ADD_NC_U32 => IntOp::Add,
                    V_SUB_NC_U32 | V_SUBREV_NC_U32 => IntOp::Sub,
                    V_AND_B32 => IntOp::And,
                    V_OR_B32 => IntOp::Or,
                    V_XOR_B32 => IntOp::Xor,
                    V_MUL_LO_U32 => IntOp::Mul,
                    V_MUL_HI_U32 => IntOp::MulHiU,
                    V_MUL_HI_I32 => IntOp::MulHiI,
                    V_MIN_U32 => IntOp::MinU,
                    V_MAX_U32 => IntOp::MaxU,
                    V_MIN_I32 => IntOp::MinI,
                    _ => IntOp::MaxI,
                };
                let r = self.int(iop, Ty::B32, a, b);
                self.write_v(vdst, r);
            }
            V_MUL_U32_U24 | V_MUL_HI_U32_U24 | V_MUL_I32_I24 | V_MUL_HI_I32_I24 => {
                // The 24-bit multiplies: the low 24 bits of each source, zero- (U24) or sign-extended
                // (I24), multiplied; the low or high 32 bits of the 48-bit product.
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let signed = matches!(op, V_MUL_I32_I24 | V_MUL_HI_I32_I24);
                let mut ext = |x| {
                    if signed {
                        let k8 = self.k32(8);
                        let t = self.int(IntOp::Shl, Ty::B32, x, k8);
                        self.int(IntOp::AShr, Ty::B32, t, k8)
                    } else {
                        self.and32(x, 0xff_ffff)
                    }
                };
                let (a, b) = (ext(a), ext(b));
                let iop = match op {
                    V_MUL_U32_U24 | V_MUL_I32_I24 => IntOp::Mul,
                    V_MUL_HI_U32_U24 => IntOp::MulHiU,
                    _ => IntOp::MulHiI,
                };
                let r = self.int(iop, Ty::B32, a, b);
                self.write_v(vdst, r);
            }
            V_LSHLREV_B32 | V_LSHRREV_B32 | V_ASHRREV_I32 => {
                // D = S1 shifted by S0[4:0].
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let iop = match op {
                    V_LSHLREV_B32 => IntOp::Shl,
                    V_LSHRREV_B32 => IntOp::LShr,
                    _ => IntOp::AShr,
                };
                let r = self.int(iop, Ty::B32, b, a);
                self.write_v(vdst, r);
            }
            V_LSHRREV_B64 | V_ASHRREV_I64 => {
                // D = S1 (64 bits) shifted right by S0[5:0].
                let a = s!(s0, 0);
                let b = self.src(s1, Src::I64)?;
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let iop = if op == V_LSHRREV_B64 {
                    IntOp::LShr
                } else {
                    IntOp::AShr
                };
                let r = self.int(iop, Ty::B64, b, a64);
                self.write_v(vdst, r);
            }
            V_BFE_U32 | V_BFE_I32 => {
                // t = S0 >> S1[4:0] (logical); D = the low S2[4:0] bits of t, zero- (U32) or
                // sign-extended (I32); a width of 0 gives 0.
                let (a, b, c) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let off = self.and32(b, 31);
                let width = self.and32(c, 31);
                let t = self.int(IntOp::LShr, Ty::B32, a, off);
                let r = if op == V_BFE_U32 {
                    let one = self.k32(1);
                    let bit = self.int(IntOp::Shl, Ty::B32, one, width);
                    let mask = self.int(IntOp::Sub, Ty::B32, bit, one);
                    self.int(IntOp::And, Ty::B32, t, mask)
                } else {
                    let k32 = self.k32(32);
                    let up = self.int(IntOp::Sub, Ty::B32, k32, width);
                    let hi = self.int(IntOp::Shl, Ty::B32, t, up);
                    self.int(IntOp::AShr, Ty::B32, hi, up)
                };
                let z = self.k32(0);
                let wz = self.icmp(IntCmp::Eq, Ty::B32, width, z);
                let r = self.sel(wz, z, r);
                self.write_v(vdst, r);
            }
            V_BFREV_B32 => {
                // Bit reverse: swap halves, bytes, nibbles, pairs and bits.
                let mut x = s!(s0, 0);
                for (sh, m) in [
                    (16u32, 0x0000_ffffu32),
                    (8, 0x00ff_00ff),
                    (4, 0x0f0f_0f0f),
                    (2, 0x3333_3333),
                    (1, 0x5555_5555),
                ] {
                    let k = self.k32(sh);
                    let lo = self.and32(x, m);
                    let lo = self.int(IntOp::Shl, Ty::B32, lo, k);
                    let hi = self.int(IntOp::LShr, Ty::B32, x, k);
                    let hi = self.and32(hi, m);
                    x = self.int(IntOp::Or, Ty::B32, lo, hi);
                }
                self.write_v(vdst, x);
            }
            V_BFI_B32 => {
                // D = (S0 & S1) | (~S0 & S2).
                let (a, b, c) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let x = self.int(IntOp::And, Ty::B32, a, b);
                let na = self.un(UnOp::Not, Ty::B32, a);
                let y = self.int(IntOp::And, Ty::B32, na, c);
                let r = self.int(IntOp::Or, Ty::B32, x, y);
                self.write_v(vdst, r);
            }
            V_BCNT_U32_B32 => {
                // D = popcount(S0) + S1.
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let p = self.un(UnOp::Popcount, Ty::B32, a);
                let r = self.int(IntOp::Add, Ty::B32, p, b);
                self.write_v(vdst, r);
            }
            V_FFBH_U32 => {
                // The number of leading zeros; 0xffffffff for 0. Binary search over 16, 8, 4, 2, 1.
                let mut x = s!(s0, 0);
                let mut n = self.k32(0);
                for k in [16u32, 8, 4, 2, 1] {
                    let top = self.and32(x, !(u32::MAX >> k));
                    let z = self.k32(0);
                    let none = self.icmp(IntCmp::Eq, Ty::B32, top, z);
                    let kk = self.k32(k);
                    let n2 = self.int(IntOp::Add, Ty::B32, n, kk);
                    n = self.sel(none, n2, n);
                    let x2 = self.int(IntOp::Shl, Ty::B32, x, kk);
                    x = self.sel(none, x2, x);
                }
                let orig = s!(s0, 0);
                let z = self.k32(0);
                let zero = self.icmp(IntCmp::Eq, Ty::B32, orig, z);
                let all = self.k32(u32::MAX);
                let r = self.sel(zero, all, n);
                self.write_v(vdst, r);
            }
            V_LSHLREV_B64 => {
                let a = s!(s0, 0);
                let b = self.src(s1, Src::I64)?;
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let r = self.int(IntOp::Shl, Ty::B64, b, a64);
                self.write_v(vdst, r);
            }
            V_LSHL_OR_B32 | V_LSHL_ADD_U32 | V_ADD3_U32 | V_AND_OR_B32 | V_OR3_B32 | V_XOR3_B32
            | V_ADD_LSHL_U32 => {
                // D = (S0 f S1) g S2.
                let (a, b, c) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let (f, g) = match op {
                    V_LSHL_OR_B32 => (IntOp::Shl, IntOp::Or),
                    V_LSHL_ADD_U32 => (IntOp::Shl, IntOp::Add),
                    V_ADD_LSHL_U32 => (IntOp::Add, IntOp::Shl),
                    V_ADD3_U32 => (IntOp::Add, IntOp::Add),
                    V_AND_OR_B32 => (IntOp::And, IntOp::Or),
                    V_OR3_B32 => (IntOp::Or, IntOp::Or),
                    _ => (IntOp::Xor, IntOp::Xor),
                };
                let t = self.int(f, Ty::B32, a, b);
                let r = self.int(g, Ty::B32, t, c);
                self.write_v(vdst, r);
            }
            V_ADD_CO_U32 | V_SUB_CO_U32 | V_SUBREV_CO_U32 | V_ADD_CO_CI_U32 | V_SUB_CO_CI_U32
            | V_SUBREV_CO_CI_U32 => {
                let (mut a, mut b) = (s!(s0, 0), s!(s1, 1));
                if matches!(op, V_SUBREV_CO_U32 | V_SUBREV_CO_CI_U32) {
                    std::mem::swap(&mut a, &mut b);
                }
                let sub = !matches!(op, V_ADD_CO_U32 | V_ADD_CO_CI_U32);
                let iop = if sub { IntOp::Sub } else { IntOp::Add };
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let b64 = self.un(UnOp::ZExt, Ty::B64, b);
                let mut r = self.int(iop, Ty::B64, a64, b64);
                if matches!(op, V_ADD_CO_CI_U32 | V_SUB_CO_CI_U32 | V_SUBREV_CO_CI_U32) {
                    // Carry-in: VCC for the e32 form, the mask in src2 for e64.
                    let cin = if f == Format::VOP3 {
                        self.mask_src(s2)?
                    } else {
                        self.read_s(VCC_LO, mt)
                    };
                    let bit = self.lane_bit(cin);
                    let c64 = self.un(UnOp::ZExt, Ty::B64, bit);
                    r = self.int(iop, Ty::B64, r, c64);
                }
                let lo = self.n(Node::Extract {
                    ty: Ty::B32,
                    a: r,
                    shift: 0,
                });
                let carry = self.n(Node::Extract {
                    ty: Ty::B1,
                    a: r,
                    shift: 32,
                });
                let mask = self.ballot(carry);
                self.write_v(vdst, lo);
                self.write_s(vcc, mask);
            }
            V_MAD_U64_U32 => {
                // D (64) = S0 (u32) * S1 (u32) + S2 (u64); SDST = carry out of the 64-bit sum, per lane.
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let c = self.src(s2, Src::I64)?;
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let b64 = self.un(UnOp::ZExt, Ty::B64, b);
                let prod = self.int(IntOp::Mul, Ty::B64, a64, b64);
                let sum = self.int(IntOp::Add, Ty::B64, prod, c);
                let carry = self.icmp(IntCmp::LtU, Ty::B64, sum, c);
                let mask = self.ballot(carry);
                self.write_v(vdst, sum);
                self.write_s(sdst, mask);
            }
            V_CNDMASK_B32 => {
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let m = if f == Format::VOP3 {
                    self.mask_src(s2)?
                } else {
                    self.read_s(VCC_LO, mt)
                };
                let bit = self.lane_bit(m);
                let r = self.n(Node::Select {
                    cond: bit,
                    a: b,
                    b: a,
                });
                self.write_v(vdst, r);
            }
            V_MBCNT_LO_U32_B32 | V_MBCNT_HI_U32_B32 => {
                // D = popcount(S0 & lanes below this one, in the low or high 32 lanes) + S1.
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let lane = self.n(Node::LaneId);
                let one = self.c(Ty::B64, 1);
                let l64 = self.un(UnOp::ZExt, Ty::B64, lane);
                let bit = self.int(IntOp::Shl, Ty::B64, one, l64);
                let below = self.int(IntOp::Sub, Ty::B64, bit, one);
                let half = if op == V_MBCNT_LO_U32_B32 {
                    self.n(Node::Extract {
                        ty: Ty::B32,
                        a: below,
                        shift: 0,
                    })
                } else {
                    self.n(Node::Extract {
                        ty: Ty::B32,
                        a: below,
                        shift: 32,
                    })
                };
                // Lane 63's "below" mask is computed modulo 2^64 (1 << 63 - 1), which is right.
                let m = self.int(IntOp::And, Ty::B32, a, half);
                let cnt = self.un(UnOp::Popcount, Ty::B32, m);
                let r = self.int(IntOp::Add, Ty::B32, cnt, b);
                self.write_v(vdst, r);
            }
            V_CVT_F32_U32 | V_CVT_F32_I32 | V_CVT_U32_F32 | V_CVT_I32_F32 => {
                let a = s!(s0, 0);
                let u = match op {
                    V_CVT_F32_U32 => UnOp::U32ToF32,
                    V_CVT_F32_I32 => UnOp::I32ToF32,
                    V_CVT_U32_F32 => UnOp::F32ToU32,
                    _ => UnOp::F32ToI32,
                };
                let r = self.un(u, Ty::B32, a);
                self.write_v(vdst, r);
            }
            // V_MIN_F32/V_MAX_F32: lift/vfloat.rs (IEEE-mode signalling-NaN rule, D025).
            V_ADD_F32 | V_SUB_F32 | V_SUBREV_F32 | V_MUL_F32 => {
                let (mut a, mut b) = (s!(s0, 0), s!(s1, 1));
                if op == V_SUBREV_F32 {
                    std::mem::swap(&mut a, &mut b);
                }
                let fop = match op {
                    V_ADD_F32 => FloatOp::F32Add,
                    V_SUB_F32 | V_SUBREV_F32 => FloatOp::F32Sub,
                    _ => FloatOp::F32Mul,
                };
                let r = self.float(fop, a, b, a);
                self.write_v(vdst, r);
            }
            // Fused single precision: one rounding (Model::f32_fma, D993). Unfused (gfx1010/gfx1013):
            // product and sum each round, denormals flushed (legacy_multiply_add). The legacy forms add the
            // DX9 rule that 0 times anything (inf and NaN included) is +0 (decision D014).
            V_FMA_F32 | V_FMAC_F32 | V_FMAAK_F32 | V_FMAMK_F32 | V_MAD_F32 | V_MAC_F32
            | V_MADAK_F32 | V_MADMK_F32 | V_FMA_LEGACY_F32 | V_FMAC_LEGACY_F32
            | V_MAD_LEGACY_F32 | V_MAC_LEGACY_F32 => {
                let (a, b, c) = match op {
                    V_FMAC_F32 | V_MAC_F32 | V_FMAC_LEGACY_F32 | V_MAC_LEGACY_F32 => {
                        let d = self.n(Node::ReadVgpr {
                            reg: vdst,
                            ty: Ty::B32,
                        });
                        let d = self.flush_in32(d);
                        (s!(s0, 0), s!(s1, 1), d)
                    }
                    V_FMAAK_F32 | V_MADAK_F32 => (s!(s0, 0), s!(s1, 1), s!(255, 3)),
                    V_FMAMK_F32 | V_MADMK_F32 => (s!(s0, 0), s!(255, 3), s!(s1, 1)),
                    _ => (s!(s0, 0), s!(s1, 1), s!(s2, 2)),
                };
                let unfused = matches!(
                    op,
                    V_MAD_F32
                        | V_MAC_F32
                        | V_MADAK_F32
                        | V_MADMK_F32
                        | V_MAD_LEGACY_F32
                        | V_MAC_LEGACY_F32
                );
                let (a, b) = if matches!(
                    op,
                    V_FMA_LEGACY_F32 | V_FMAC_LEGACY_F32 | V_MAD_LEGACY_F32 | V_MAC_LEGACY_F32
                ) {
                    self.legacy_zero(a, b, unfused)
                } else {
                    (a, b)
                };
                let fop = if unfused {
                    FloatOp::F32LegacyMad
                } else {
                    FloatOp::F32Fma
                };
                let r = self.float(fop, a, b, c);
                let r = self.clamp_if(vop3_clamp, Ty::B32, r);
                self.write_v(vdst, r);
            }
            V_MUL_LEGACY_F32 => {
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let (a, b) = self.legacy_zero(a, b, false);
                let r = self.float(FloatOp::F32Mul, a, b, a);
                let r = self.clamp_if(vop3_clamp, Ty::B32, r);
                self.write_v(vdst, r);
            }
            V_FMA_F64 => {
                let mut v = [self.c(Ty::B64, 0); 3];
                for (i, e) in [s0, s1, s2].into_iter().enumerate() {
                    let x = self.src(e, Src::F64)?;
                    v[i] = self.modify_ty(x, i as u32, abs, neg, Ty::B64);
                }
                let r = self.float(FloatOp::F64Fma, v[0], v[1], v[2]);
                let r = self.clamp_if(vop3_clamp, Ty::B64, r);
                self.write_v(vdst, r);
            }
            // Half add and multiply: one rounding to half (`FloatOp::F16Add`).
            V_ADD_F16 | V_MUL_F16 => {
                let h = Src::F16;
                let (a, b) = (self.src(s0, h)?, self.src(s1, h)?);
                let (a, b) = (self.lo16(a), self.lo16(b));
                // VOP3 / SDWA abs and neg (they were dropped here before).
                let a = self.modify_ty(a, 0, abs, neg, Ty::B16);
                let b = self.modify_ty(b, 1, abs, neg, Ty::B16);
                let fop = if op == V_ADD_F16 {
                    FloatOp::F16Add
                } else {
                    FloatOp::F16Mul
                };
                let r = self.float(fop, a, b, a);
                // The low half is written and the high half kept (gfx10, D096).
                let r32 = self.un(UnOp::ZExt, Ty::B32, r);
                self.write_half(vdst, r32);
            }
            // Fused half precision: one rounding to half (fused_to_half, D993). VOP3 op_sel bit i takes the
            // high half of source i; bit 3 writes the high half of the destination and keeps the low half.
            V_FMA_F16 | V_FMAC_F16 | V_FMAAK_F16 | V_FMAMK_F16 => {
                let h = Src::F16;
                let (ea, eb) = (self.src(s0, h)?, self.src(s1, h)?);
                let (ea, eb, ec) = match op {
                    V_FMAC_F16 => {
                        let d = self.n(Node::ReadVgpr {
                            reg: vdst,
                            ty: Ty::B32,
                        });
                        (ea, eb, d)
                    }
                    V_FMAAK_F16 => (ea, eb, self.src(255, h)?),
                    V_FMAMK_F16 => {
                        let k = self.src(255, h)?;
                        (ea, k, eb)
                    }
                    _ => (ea, eb, self.src(s2, h)?),
                };
                let mut v = [ea, eb, ec];
                for (i, x) in v.iter_mut().enumerate() {
                    let shift = if vop3_opsel >> i & 1 != 0 { 16 } else { 0 };
                    let half = self.n(Node::Extract {
                        ty: Ty::B16,
                        a: *x,
                        shift,
                    });
                    *x = self.modify_ty(half, i as u32, abs, neg, Ty::B16);
                }
                let r = self.float(FloatOp::F16FmaToHalf, v[0], v[1], v[2]);
                let r = self.clamp_if(vop3_clamp, Ty::B16, r);
                let r32 = self.un(UnOp::ZExt, Ty::B32, r);
                if vop3_opsel & 8 != 0 {
                    let old = self.n(Node::ReadVgpr {
                        reg: vdst,
                        ty: Ty::B32,
                    });
                    let w = self.insert_half(old, r32, true);
                    self.write_v(vdst, w);
                } else {
                    // A 16-bit VALU result writes the low half and (gfx10) keeps the high half (D096).
                    self.write_half(vdst, r32);
                }
            }
            // V_PK_FMAC_F16 (VOP2): each 16-bit lane D.x = fma(S0.x, S1.x, D.x), rounded once to half.
            V_PK_FMAC_F16 => {
                let a = self.src(s0, Src::F16)?;
                let b = self.src(s1, Src::F16)?;
                let d = self.n(Node::ReadVgpr {
                    reg: vdst,
                    ty: Ty::B32,
                });
                let mut out = [a; 2];
                for (k, hi) in [false, true].into_iter().enumerate() {
                    let shift = if hi { 16 } else { 0 };
                    let mut v = [a, b, d];
                    for x in v.iter_mut() {
                        *x = self.n(Node::Extract {
                            ty: Ty::B16,
                            a: *x,
                            shift,
                        });
                    }
                    let r = self.float(FloatOp::F16FmaToHalf, v[0], v[1], v[2]);
                    out[k] = self.un(UnOp::ZExt, Ty::B32, r);
                }
                let w = self.insert_half(out[0], out[1], true);
                self.write_v(vdst, w);
            }
            V_CMP_EQ_U32 | V_CMP_NE_U32 | V_CMP_GT_U32 | V_CMP_GE_U32 | V_CMP_LT_U32
            | V_CMP_LE_U32 | V_CMP_EQ_I32 | V_CMP_NE_I32 | V_CMP_GT_I32 | V_CMP_GE_I32
            | V_CMP_LT_I32 | V_CMP_LE_I32 | V_CMPX_EQ_U32 | V_CMPX_NE_U32 | V_CMPX_GT_U32
            | V_CMPX_GE_U32 | V_CMPX_LT_U32 | V_CMPX_LE_U32 | V_CMPX_EQ_I32 | V_CMPX_NE_I32
            | V_CMPX_GT_I32 | V_CMPX_GE_I32 | V_CMPX_LT_I32 | V_CMPX_LE_I32 => {
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let name = op.name();
                let cmp = match &name[name.len() - 6..name.len() - 4] {
                    "eq" => IntCmp::Eq,
                    "ne" => IntCmp::Ne,
                    rel => {
                        let signed = name.ends_with("i32");
                        match (rel, signed) {
                            ("gt", false) => IntCmp::GtU,
                            ("ge", false) => IntCmp::GeU,
                            ("lt", false) => IntCmp::LtU,
                            ("le", false) => IntCmp::LeU,
                            ("gt", true) => IntCmp::GtI,
                            ("ge", true) => IntCmp::GeI,
                            ("lt", true) => IntCmp::LtI,
                            _ => IntCmp::LeI,
                        }
                    }
                };
                let c = self.icmp(cmp, Ty::B32, a, b);
                self.write_compare(c, name.starts_with("v_cmpx"), f, vdst);
            }
            V_CMP_LT_F32 | V_CMP_EQ_F32 | V_CMP_LE_F32 | V_CMP_GT_F32 | V_CMP_LG_F32
            | V_CMP_GE_F32 | V_CMP_O_F32 | V_CMP_U_F32 | V_CMP_NGE_F32 | V_CMP_NLG_F32
            | V_CMP_NGT_F32 | V_CMP_NLE_F32 | V_CMP_NEQ_F32 | V_CMP_NLT_F32 | V_CMPX_LT_F32
            | V_CMPX_EQ_F32 | V_CMPX_LE_F32 | V_CMPX_GT_F32 | V_CMPX_LG_F32 | V_CMPX_GE_F32
            | V_CMPX_O_F32 | V_CMPX_U_F32 | V_CMPX_NGE_F32 | V_CMPX_NLG_F32 | V_CMPX_NGT_F32
            | V_CMPX_NLE_F32 | V_CMPX_NEQ_F32 | V_CMPX_NLT_F32 => {
                let (a, b) = (s!(s0, 0), s!(s1, 1));
                let name = op.name();
                let rel = name
                    .trim_start_matches("v_cmpx_")
                    .trim_start_matches("v_cmp_")
                    .trim_end_matches("_f32");
                let cmp = match rel {
                    "lt" => FloatCmp::Lt,
                    "eq" => FloatCmp::Eq,
                    "le" => FloatCmp::Le,
                    "gt" => FloatCmp::Gt,
                    "lg" => FloatCmp::Lg,
                    "ge" => FloatCmp::Ge,
                    "o" => FloatCmp::O,
                    "u" => FloatCmp::U,
                    "nge" => FloatCmp::Nge,
                    "nlg" => FloatCmp::Nlg,
                    "ngt" => FloatCmp::Ngt,
                    "nle" => FloatCmp::Nle,
                    "neq" => FloatCmp::Neq,
                    _ => FloatCmp::Nlt,
                };
                let c = self.n(Node::FloatCmp {
                    op: cmp,
                    ty: Ty::B32,
                    a,
                    b,
                });
                self.write_compare(c, name.starts_with("v_cmpx"), f, vdst);
            }
            // Approximate hardware ops, modelled as the correctly rounded result (decision D012).
            V_RCP_F32 => {
                let a = s!(s0, 0);
                let one = self.c(Ty::B32, 0x3f80_0000);
                let r = self.float(FloatOp::F32Div, one, a, a);
                self.write_v(vdst, r);
            }
            V_SQRT_F32 => {
                let a = s!(s0, 0);
                let r = self.float(FloatOp::F32Sqrt, a, a, a);
                self.write_v(vdst, r);
            }
            // Transcendental approximations: deterministic compositions of exact primitives (decision
            // D017), identical on the host and every device; accuracy measured in tests/transcendental.rs.
            V_RCP_IFLAG_F32 => {
                // The same quotient as V_RCP_F32; "iflag" only changes which exception flag is raised.
                let a = s!(s0, 0);
                let one = self.c(Ty::B32, 0x3f80_0000);
                let r = self.float(FloatOp::F32Div, one, a, a);
                self.write_v(vdst, r);
            }
            V_RSQ_F32 | V_EXP_F32 | V_LOG_F32 | V_SIN_F32 | V_COS_F32 => {
                let a = s!(s0, 0);
                let r = self.transcendental_f32(op, a);
                self.write_v(vdst, r);
            }
            V_RCP_F16 | V_SQRT_F16 | V_RSQ_F16 | V_EXP_F16 | V_LOG_F16 | V_SIN_F16 | V_COS_F16 => {
                // Evaluated in f32 from the exact widening, then one rounding to half.
                let a = self.src(s0, Src::F16)?;
                let a = self.lo16(a);
                let a = self.modify_ty(a, 0, abs, neg, Ty::B16);
                let x = self.un(UnOp::F16ToF32, Ty::B32, a);
                let r = match op {
                    V_RCP_F16 => {
                        let one = self.c(Ty::B32, 0x3f80_0000);
                        self.float(FloatOp::F32Div, one, x, x)
                    }
                    V_SQRT_F16 => self.float(FloatOp::F32Sqrt, x, x, x),
                    V_RSQ_F16 => self.transcendental_f32(V_RSQ_F32, x),
                    V_EXP_F16 => self.transcendental_f32(V_EXP_F32, x),
                    V_LOG_F16 => self.transcendental_f32(V_LOG_F32, x),
                    V_SIN_F16 => self.transcendental_f32(V_SIN_F32, x),
                    _ => self.transcendental_f32(V_COS_F32, x),
                };
                let h = self.un(UnOp::F32ToF16, Ty::B16, r);
                let r32 = self.un(UnOp::ZExt, Ty::B32, h);
                self.write_half(vdst, r32);
            }
            V_DIV_SCALE_F32 => {
                let (x, den, num) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let (d, flag) = self.div_scale_f32(x, den, num);
                let mask = self.ballot(flag);
                self.write_v(vdst, d);
                self.write_s(vcc, mask);
            }
            V_DIV_FMAS_F32 => {
                let (a, b, c) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let m = self.read_s(VCC_LO, mt);
                let bit = self.lane_bit(m);
                let r = self.div_fmas_f32(bit, a, b, c);
                self.write_v(vdst, r);
            }
            V_DIV_FIXUP_F32 => {
                let (q, den, num) = (s!(s0, 0), s!(s1, 1), s!(s2, 2));
                let r = self.div_fixup_f32(q, den, num);
                self.write_v(vdst, r);
            }
            // Double-precision division family (lift/f64div.rs, decisions D066–D068).
            V_RCP_F64 | V_SQRT_F64 | V_RSQ_F64 => {
                let x = self.src(s0, Src::F64)?;
                let x = self.modify_ty(x, 0, abs, neg, Ty::B64);
                let r = match op {
                    V_RCP_F64 => self.rcp_f64(x),
                    V_SQRT_F64 => self.sqrt_f64(x),
                    _ => self.rsq_f64(x),
                };
                self.write_v(vdst, r);
            }
            V_DIV_SCALE_F64 | V_DIV_FMAS_F64 | V_DIV_FIXUP_F64 => {
                let mut v = [self.c(Ty::B64, 0); 3];
                for (i, e) in [s0, s1, s2].into_iter().enumerate() {
                    let x = self.src(e, Src::F64)?;
                    v[i] = self.modify_ty(x, i as u32, abs, neg, Ty::B64);
                }
                match op {
                    V_DIV_SCALE_F64 => {
                        let (d, flag) = self.div_scale_f64(v[0], v[1], v[2]);
                        let mask = self.ballot(flag);
                        self.write_v(vdst, d);
                        self.write_s(vcc, mask);
                    }
                    V_DIV_FMAS_F64 => {
                        let m = self.read_s(VCC_LO, mt);
                        let bit = self.lane_bit(m);
                        let r = self.div_fmas_f64(bit, v[0], v[1], v[2]);
                        self.write_v(vdst, r);
                    }
                    _ => {
                        let r = self.div_fixup_w(Ty::B64, v[0], v[1], v[2]);
                        self.write_v(vdst, r);
                    }
                }
            }
            V_DIV_FIXUP_F16 => {
                let mut v = [self.c(Ty::B16, 0); 3];
                for (i, e) in [s0, s1, s2].into_iter().enumerate() {
                    let x = self.src(e, Src::F16)?;
                    let x = self.lo16(x);
                    v[i] = self.modify_ty(x, i as u32, abs, neg, Ty::B16);
                }
                let r = self.div_fixup_w(Ty::B16, v[0], v[1], v[2]);
                // As the other f16 results without op_sel: the low half written, the high half kept (D096).
                let r32 = self.un(UnOp::ZExt, Ty::B32, r);
                self.write_half(vdst, r32);
            }
            V_CMP_CLASS_F32 | V_CMPX_CLASS_F32 => {
                let (x, m) = (s!(s0, 0), s!(s1, 1));
                let c = self.class_f32(x, m);
                self.write_compare(c, op == V_CMPX_CLASS_F32, f, vdst);
            }
            _ => {
                // More integer VALU: lift/valu_int.rs (integer forms take no VOP3 modifiers).
                if abs == 0 && neg == 0 && self.valu_int(f, s0, s1, s2, vdst)? {
                    return Ok(());
                }
                let o = vfloat::Ops {
                    f,
                    s0,
                    s1,
                    s2,
                    vdst,
                    opsel: vop3_opsel,
                    abs,
                    neg,
                    clamp: vop3_clamp,
                };
                // The remaining VOP1/VOP3 rows of issue 5: lift/valu_misc.rs (D094).
                if self.valu_misc(op, &o)? {
                    return Ok(());
                }
                if !self.valu_float(op, &o)? {
                    return self.unsupported("vector ALU instruction not lifted yet");
                }
            }
        }
        Ok(())
    }

    fn k32(&mut self, v: u32) -> Handle<Node> {
        self.c(Ty::B32, v as u64)
    }
    fn and32(&mut self, a: Handle<Node>, m: u32) -> Handle<Node> {
        let k = self.k32(m);
        self.int(IntOp::And, Ty::B32, a, k)
    }
    /// `a == k` (B32).
    fn eq32(&mut self, a: Handle<Node>, k: u32) -> Handle<Node> {
        let k = self.k32(k);
        self.icmp(IntCmp::Eq, Ty::B32, a, k)
    }
    fn sel(&mut self, cond: Handle<Node>, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.n(Node::Select { cond, a, b })
    }
    fn and1(&mut self, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.int(IntOp::And, Ty::B1, a, b)
    }
    fn or1(&mut self, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.int(IntOp::Or, Ty::B1, a, b)
    }
    /// The biased exponent field of an f32 (`exponent()` of the ISA pseudo-code; 0 for subnormals).
    fn exponent32(&mut self, x: Handle<Node>) -> Handle<Node> {
        let k23 = self.k32(23);
        let e = self.int(IntOp::LShr, Ty::B32, x, k23);
        self.and32(e, 0xff)
    }
    /// `|x| == 0` (the ISA's float comparison with 0.0: true for ±0 only).
    fn is_zero32(&mut self, x: Handle<Node>) -> Handle<Node> {
        let a = self.and32(x, 0x7fff_ffff);
        self.eq32(a, 0)
    }
    // ---- transcendental approximations (decision D017) --------------------------------------------

    fn fk(&mut self, v: f32) -> Handle<Node> {
        self.c(Ty::B32, v.to_bits() as u64)
    }
    fn fop(&mut self, op: FloatOp, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.float(op, a, b, a)
    }
    fn ffma(&mut self, a: Handle<Node>, b: Handle<Node>, c: Handle<Node>) -> Handle<Node> {
        self.float(FloatOp::F32Fma, a, b, c)
    }
    fn fcmp(&mut self, op: FloatCmp, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        self.n(Node::FloatCmp {
            op,
            ty: Ty::B32,
            a,
            b,
        })
    }
    /// Horner's rule with fused multiply-adds: c[0] + x·(c[1] + x·(…)).
    fn horner(&mut self, x: Handle<Node>, c: &[f32]) -> Handle<Node> {
        let mut p = self.fk(c[c.len() - 1]);
        for &k in c[..c.len() - 1].iter().rev() {
            let kk = self.fk(k);
            p = self.ffma(p, x, kk);
        }
        p
    }
    /// 2^n for an integer n (B32) in [-126, 127], as f32 bits.
    fn pow2_bits(&mut self, n: Handle<Node>) -> Handle<Node> {
        let bias = self.k32(127);
        let e = self.int(IntOp::Add, Ty::B32, n, bias);
        let k23 = self.k32(23);
        self.int(IntOp::Shl, Ty::B32, e, k23)
    }
    /// rint(x) (round half to even) of an f32 with |x| < 2^22, exactly: (x + 1.5·2^23) − 1.5·2^23.
    fn rint_small(&mut self, x: Handle<Node>) -> Handle<Node> {
        let c = self.fk(12_582_912.0);
        let t = self.fop(FloatOp::F32Add, x, c);
        self.fop(FloatOp::F32Sub, t, c)
    }

    /// V_RSQ_F32, V_EXP_F32 (2^x), V_LOG_F32 (log2 x), V_SIN_F32 / V_COS_F32 (of 2π·x: the operand is in
    /// revolutions) on an f32 value, as fixed sequences of correctly rounded f32 operations (D017).
    fn transcendental_f32(&mut self, op: Opcode, x: Handle<Node>) -> Handle<Node> {
        match op {
            Opcode::V_RSQ_F32 => {
                // 1/sqrt(x): two roundings. ±0 → ±inf, x < 0 → NaN, +inf → +0.
                let r = self.float(FloatOp::F32Sqrt, x, x, x);
                let one = self.fk(1.0);
                self.fop(FloatOp::F32Div, one, r)
            }
            Opcode::V_EXP_F32 => self.exp2_f32(x),
            Opcode::V_LOG_F32 => self.log2_f32(x),
            Opcode::V_SIN_F32 => self.sincos_f32(x, false),
            _ => self.sincos_f32(x, true),
        }
    }

    /// 2^x: x clamped to [-160, 130] (outside, the result is 0 or +inf anyway; a NaN stays NaN), split
    /// exactly into n + f with n = rint(x) and |f| ≤ 1/2, 2^f by a degree-7 Taylor polynomial of e^(f·ln2)
    /// in Horner form, then scaled by 2^n in two exact halves so that only the last multiplication rounds
    /// (once, also into the subnormal range).
    fn exp2_f32(&mut self, x: Handle<Node>) -> Handle<Node> {
        let hi = self.fk(130.0);
        let lo = self.fk(-160.0);
        let over = self.fcmp(FloatCmp::Gt, x, hi);
        let under = self.fcmp(FloatCmp::Lt, x, lo);
        let x = self.sel(over, hi, x);
        let x = self.sel(under, lo, x);
        let n_f = self.rint_small(x);
        let f = self.fop(FloatOp::F32Sub, x, n_f);
        let ln2 = std::f64::consts::LN_2;
        let mut c = [0f32; 8];
        let mut term = 1f64;
        for (i, k) in c.iter_mut().enumerate() {
            if i > 0 {
                term *= ln2 / i as f64;
            }
            *k = term as f32;
        }
        let p = self.horner(f, &c);
        let n = self.un(UnOp::F32ToI32, Ty::B32, n_f);
        let one = self.k32(1);
        let n1 = self.int(IntOp::AShr, Ty::B32, n, one);
        let n2 = self.int(IntOp::Sub, Ty::B32, n, n1);
        let s1 = self.pow2_bits(n1);
        let s2 = self.pow2_bits(n2);
        let r = self.fop(FloatOp::F32Mul, p, s1);
        self.fop(FloatOp::F32Mul, r, s2)
    }

    /// log2(x): x = m·2^e with m in [√2/2, √2) (subnormals scaled by 2^32 first), log2(m) from
    /// t = (m−1)/(m+1) as c1·t + t³·(c3 + c5·t² + … + c11·t⁸) with c_k = 2/(k·ln 2), carried in two parts
    /// (t + t_lo, c1·t as hi + lo) and added to e with TwoSum, so one final rounding dominates. Special values:
    /// ±0 → −inf, x < 0 → NaN, +inf → +inf, NaN → NaN.
    fn log2_f32(&mut self, x: Handle<Node>) -> Handle<Node> {
        let expf = self.and32(x, 0x7f80_0000);
        let den = self.eq32(expf, 0);
        let k32 = self.fk(4_294_967_296.0);
        let xs = self.fop(FloatOp::F32Mul, x, k32);
        let xs = self.sel(den, xs, x);
        let adj_d = self.k32(-32i32 as u32);
        let z = self.k32(0);
        let adj = self.sel(den, adj_d, z);
        let k23 = self.k32(23);
        let eb = self.int(IntOp::LShr, Ty::B32, xs, k23);
        let eb = self.and32(eb, 0xff);
        let bias = self.k32(127);
        let e = self.int(IntOp::Sub, Ty::B32, eb, bias);
        let e = self.int(IntOp::Add, Ty::B32, e, adj);
        let frac = self.and32(xs, 0x007f_ffff);
        let onebits = self.k32(0x3f80_0000);
        let mb = self.int(IntOp::Or, Ty::B32, frac, onebits);
        // m > √2: halve it and count one more.
        let sqrt2 = self.k32(0x3fb5_04f3);
        let big = self.icmp(IntCmp::GtU, Ty::B32, mb, sqrt2);
        let exp1 = self.k32(0x0080_0000);
        let mh = self.int(IntOp::Sub, Ty::B32, mb, exp1);
        let m = self.sel(big, mh, mb);
        let one_i = self.k32(1);
        let e1 = self.int(IntOp::Add, Ty::B32, e, one_i);
        let e = self.sel(big, e1, e);
        // f = m − 1 is exact; t = f/(2 + f) with its error carried: the denominator's rounding error dl
        // (Fast2Sum) and the quotient's remainder (exact by fma) give t_lo, so t + t_lo is within a few
        // units of 2^-48 of the true t.
        let one = self.fk(1.0);
        let two = self.fk(2.0);
        let f = self.fop(FloatOp::F32Sub, m, one);
        let dnm = self.fop(FloatOp::F32Add, f, two);
        let z = self.fop(FloatOp::F32Sub, dnm, two);
        let dl = self.fop(FloatOp::F32Sub, f, z);
        let t = self.fop(FloatOp::F32Div, f, dnm);
        let nt = self.un(UnOp::FNeg, Ty::B32, t);
        let rem = self.ffma(nt, dnm, f);
        let tdl = self.fop(FloatOp::F32Mul, t, dl);
        let num_lo = self.fop(FloatOp::F32Sub, rem, tdl);
        let t_lo = self.fop(FloatOp::F32Div, num_lo, dnm);
        // log2(m) = c1·t + t³·(c3 + c5·t² + … + c11·t⁸), c_k = 2/(k·ln 2); c1·t in two parts.
        let l2 = std::f64::consts::LN_2;
        let c1 = 2.0 / l2;
        let c1h = c1 as f32;
        let c1l = (c1 - c1h as f64) as f32;
        let c: Vec<f32> = [3, 5, 7, 9, 11]
            .iter()
            .map(|&k| (2.0 / (k as f64 * l2)) as f32)
            .collect();
        let t2 = self.fop(FloatOp::F32Mul, t, t);
        let rp = self.horner(t2, &c);
        let t3 = self.fop(FloatOp::F32Mul, t2, t);
        let kh = self.fk(c1h);
        let kl = self.fk(c1l);
        let hi = self.fop(FloatOp::F32Mul, kh, t);
        let nhi = self.un(UnOp::FNeg, Ty::B32, hi);
        let lo = self.ffma(kh, t, nhi);
        let corr = self.ffma(kl, t, lo);
        let corr = self.ffma(kh, t_lo, corr);
        let corr = self.ffma(t3, rp, corr);
        // e + hi + corr: TwoSum of e and hi, then one last rounding.
        let ef = self.un(UnOp::I32ToF32, Ty::B32, e);
        let s1 = self.fop(FloatOp::F32Add, ef, hi);
        let bb = self.fop(FloatOp::F32Sub, s1, ef);
        let ab = self.fop(FloatOp::F32Sub, s1, bb);
        let ea = self.fop(FloatOp::F32Sub, ef, ab);
        let eb = self.fop(FloatOp::F32Sub, hi, bb);
        let err = self.fop(FloatOp::F32Add, ea, eb);
        let low = self.fop(FloatOp::F32Add, err, corr);
        let r = self.fop(FloatOp::F32Add, s1, low);
        // Special values.
        let zero = self.fk(0.0);
        let is_zero = self.fcmp(FloatCmp::Eq, x, zero);
        let neg = self.fcmp(FloatCmp::Lt, x, zero);
        let inf = self.k32(0x7f80_0000);
        let is_inf = self.eq32(x, 0x7f80_0000);
        let is_nan = self.fcmp(FloatCmp::U, x, x);
        let ninf = self.k32(0xff80_0000);
        let qnan = self.k32(crate::quirks::F32_DEFAULT_NAN);
        let r = self.sel(is_inf, inf, r);
        let r = self.sel(is_zero, ninf, r);
        let bad = self.or1(neg, is_nan);
        self.sel(bad, qnan, r)
    }

    /// sin(2π·x) or cos(2π·x): r = x − rint(x) (exact; |x| ≥ 2^22 is a multiple of 1/2, handled by the
    /// same identities), quadrant q = rint(4r), s = r − q/4 (exact, |s| ≤ 1/8), then the sine or cosine
    /// polynomial in s (Taylor series of sin/cos(2π·s), |2π·s| ≤ π/4, leading terms carried in two parts)
    /// chosen and signed by q. ±inf and NaN → NaN.
    fn sincos_f32(&mut self, x: Handle<Node>, cos: bool) -> Handle<Node> {
        let ax = self.un(UnOp::FAbs, Ty::B32, x);
        let lim = self.fk(4_194_304.0);
        let small = self.fcmp(FloatCmp::Lt, ax, lim);
        let xr = self.rint_small(x);
        let r_small = self.fop(FloatOp::F32Sub, x, xr);
        // |x| ≥ 2^22: x is a multiple of 1/2 and r is 1/2 for an odd multiple (below 2^23), else 0.
        let half = self.fk(0.5);
        let two = self.fk(2.0);
        let tx = self.fop(FloatOp::F32Mul, x, two);
        // tx = 2x is an integer for |x| ≥ 2^22; it is odd iff x is an odd multiple of 1/2 (|x| < 2^23).
        let txi = self.un(UnOp::F32ToI32, Ty::B32, tx);
        let odd = self.and32(txi, 1);
        let is_odd = self.eq32(odd, 1);
        let lim23 = self.fk(8_388_608.0);
        let below23 = self.fcmp(FloatCmp::Lt, ax, lim23);
        let is_odd = self.and1(is_odd, below23);
        let zr = self.fk(0.0);
        let r_big = self.sel(is_odd, half, zr);
        let r = self.sel(small, r_small, r_big);
        let four = self.fk(4.0);
        let r4 = self.fop(FloatOp::F32Mul, r, four);
        let qf = self.rint_small(r4);
        let quarter = self.fk(0.25);
        let qq = self.fop(FloatOp::F32Mul, qf, quarter);
        let sv = self.fop(FloatOp::F32Sub, r, qq);
        let q = self.un(UnOp::F32ToI32, Ty::B32, qf);
        // Taylor coefficients of sin(2π·s) (odd) and cos(2π·s) (even); the leading ones split in two f32
        // parts and their products with s (or s²) kept exactly by fma, so one final rounding dominates.
        let tau = std::f64::consts::TAU;
        let fact = |k: u32| (1..=k).map(|i| i as f64).product::<f64>();
        let coef = |k: u32| {
            let v = tau.powi(k as i32) / fact(k);
            if (k / 2) % 2 == 1 {
                -v
            } else {
                v
            }
        };
        let split = |v: f64| (v as f32, (v - v as f32 as f64) as f32);
        let neg = |cx: &mut Self, v: Handle<Node>| cx.un(UnOp::FNeg, Ty::B32, v);
        let s2 = self.fop(FloatOp::F32Mul, sv, sv);
        let ns2 = neg(self, s2);
        let s2l = self.ffma(sv, sv, ns2);
        // sin(2π·s) = a1·s + s³·(a3 + a5·s² + a7·s⁴ + a9·s⁶)
        let (a1h, a1l) = split(coef(1));
        let p_sin: Vec<f32> = [3, 5, 7, 9].iter().map(|&k| coef(k) as f32).collect();
        let ps = self.horner(s2, &p_sin);
        let s3 = self.fop(FloatOp::F32Mul, s2, sv);
        let kh = self.fk(a1h);
        let kl = self.fk(a1l);
        let hi = self.fop(FloatOp::F32Mul, kh, sv);
        let nhi = neg(self, hi);
        let lo = self.ffma(kh, sv, nhi);
        let corr = self.ffma(kl, sv, lo);
        let corr = self.ffma(s3, ps, corr);
        let sin_s = self.fop(FloatOp::F32Add, hi, corr);
        // cos(2π·s) = 1 + b2·s² + s⁴·(b4 + b6·s² + b8·s⁴ + b10·s⁶)
        let (b2h, b2l) = split(coef(2));
        let p_cos: Vec<f32> = [4, 6, 8, 10].iter().map(|&k| coef(k) as f32).collect();
        let pc = self.horner(s2, &p_cos);
        let kh = self.fk(b2h);
        let kl = self.fk(b2l);
        let bh = self.fop(FloatOp::F32Mul, kh, s2);
        let nbh = neg(self, bh);
        let bl = self.ffma(kh, s2, nbh);
        let one = self.fk(1.0);
        let c0 = self.fop(FloatOp::F32Add, one, bh);
        let zz = self.fop(FloatOp::F32Sub, c0, one);
        let e1 = self.fop(FloatOp::F32Sub, bh, zz);
        let s4 = self.fop(FloatOp::F32Mul, s2, s2);
        let corr = self.fop(FloatOp::F32Add, e1, bl);
        let corr = self.ffma(kh, s2l, corr);
        let corr = self.ffma(kl, s2, corr);
        let corr = self.ffma(s4, pc, corr);
        let cos_s = self.fop(FloatOp::F32Add, c0, corr);
        // sin(2π(s + q/4)) and cos(2π(s + q/4)) by q mod 4 (q in −2..=2).
        let qm = self.and32(q, 3);
        let q_is = |cx: &mut Self, k: u32| cx.eq32(qm, k);
        let (q1, q2, q3) = (q_is(self, 1), q_is(self, 2), q_is(self, 3));
        let nsin = self.un(UnOp::FNeg, Ty::B32, sin_s);
        let ncos = self.un(UnOp::FNeg, Ty::B32, cos_s);
        let r = if cos {
            // q=0: cos, 1: −sin, 2: −cos, 3: sin
            let v = self.sel(q1, nsin, cos_s);
            let v = self.sel(q2, ncos, v);
            self.sel(q3, sin_s, v)
        } else {
            // q=0: sin, 1: cos, 2: −sin, 3: −cos
            let v = self.sel(q1, cos_s, sin_s);
            let v = self.sel(q2, nsin, v);
            self.sel(q3, ncos, v)
        };
        let is_nan = self.fcmp(FloatCmp::U, x, x);
        let inf = self.fk(f32::INFINITY);
        let is_inf = self.fcmp(FloatCmp::Eq, ax, inf);
        let bad = self.or1(is_nan, is_inf);
        let qnan = self.k32(crate::quirks::F32_DEFAULT_NAN);
        self.sel(bad, qnan, r)
    }

    /// ldexp(x, ±64) as a multiplication by the power of two `pow2` (one rounding, which only matters
    /// where the result leaves the normal range).
    fn ldexp(&mut self, x: Handle<Node>, pow2: u32) -> Handle<Node> {
        let k = self.k32(pow2);
        self.float(FloatOp::F32Mul, x, k, x)
    }

    /// V_DIV_SCALE_F32 (RDNA ISA guide pseudo-code; S0 = value to scale, S1 = denominator,
    /// S2 = numerator). Returns (D, VCC bit); the first rule that matches decides:
    ///   1. S2 == 0 or S1 == 0                → D = NaN, VCC = 0
    ///   2. exponent(S2) − exponent(S1) ≥ 96  → VCC = 1; D = S0 == S1 ? ldexp(S0, 64) : S0
    ///   3. S1 subnormal                      → D = ldexp(S0, 64)
    ///   4. 1/S1 and S2/S1 subnormal          → VCC = 1; D = S0 == S1 ? ldexp(S0, −64) : S0
    ///   5. 1/S1 subnormal                    → D = ldexp(S0, −64)
    ///   6. S2/S1 subnormal                   → VCC = 1; D = S0 == S2 ? ldexp(S0, 64) : S0
    ///   7. exponent(S2) ≤ 23 (tiny numerator) → D = ldexp(S0, 64)
    ///
    /// Otherwise D = S0, VCC = 0.
    ///
    /// Readings (decision D012): "is subnormal" is predicted from exponent fields, conservatively —
    /// 1/S1 when exponent(S1) ≥ 253 (S1 ≥ 2^126), S2/S1 when exponent(S2) − exponent(S1) ≤ −126 — not
    /// tested on rounded results (a rounded quotient misses quotients that round to 0 or up to 2^-126,
    /// and the macro then rounds twice); scaling when the value turns out normal is exact and undone
    /// by div_fmas before its one rounding. Rule 4's denominator scale is read as 2^-64: the guide's
    /// ldexp(S0, 64) would take a denominator ≥ 2^126 to infinity and the macro to NaN.
    fn div_scale_f32(
        &mut self,
        x: Handle<Node>,
        den: Handle<Node>,
        num: Handle<Node>,
    ) -> (Handle<Node>, Handle<Node>) {
        let (f1, t1) = (self.c(Ty::B1, 0), self.c(Ty::B1, 1));
        let zn = self.is_zero32(num);
        let zd = self.is_zero32(den);
        let zero = self.or1(zn, zd);
        let en = self.exponent32(num);
        let ed = self.exponent32(den);
        let diff = self.int(IntOp::Sub, Ty::B32, en, ed);
        let k96 = self.k32(96);
        let big = self.icmp(IntCmp::GeI, Ty::B32, diff, k96);
        let d_sub = self.eq32(ed, 0); // zeros were taken by rule 1, so exponent 0 means subnormal
        let k253 = self.k32(253);
        let r_sub = self.icmp(IntCmp::GeU, Ty::B32, ed, k253);
        let km126 = self.k32((-126i32) as u32);
        let q_sub = self.icmp(IntCmp::LeI, Ty::B32, diff, km126);
        let both = self.and1(r_sub, q_sub);
        let k23 = self.k32(23);
        let tiny = self.icmp(IntCmp::LeU, Ty::B32, en, k23);
        let up = self.ldexp(x, 0x5f80_0000);
        let down = self.ldexp(x, 0x1f80_0000);
        let x_is_den = self.n(Node::FloatCmp {
            op: FloatCmp::Eq,
            ty: Ty::B32,
            a: x,
            b: den,
        });
        let x_is_num = self.n(Node::FloatCmp {
            op: FloatCmp::Eq,
            ty: Ty::B32,
            a: x,
            b: num,
        });
        let nan = self.k32(crate::quirks::F32_DEFAULT_NAN);
        // Built from the last rule to the first, so the first matching rule wins.
        let d = self.sel(tiny, up, x);
        let f = f1;
        let d6 = self.sel(x_is_num, up, x);
        let d = self.sel(q_sub, d6, d);
        let f = self.sel(q_sub, t1, f);
        let d = self.sel(r_sub, down, d);
        let f = self.sel(r_sub, f1, f);
        let d4 = self.sel(x_is_den, down, x);
        let d = self.sel(both, d4, d);
        let f = self.sel(both, t1, f);
        let d = self.sel(d_sub, up, d);
        let f = self.sel(d_sub, f1, f);
        let d2 = self.sel(x_is_den, up, x);
        let d = self.sel(big, d2, d);
        let f = self.sel(big, t1, f);
        let d = self.sel(zero, nan, d);
        let f = self.sel(zero, f1, f);
        (d, f)
    }

    /// V_DIV_FMAS_F32: fma(S0, S1, S2), and where the lane's VCC bit is set the result is scaled by
    /// 2^64 when exponent(S2) > 127 (the quotient was computed against a denominator scaled up by
    /// div_scale) and by 2^-64 otherwise (numerator scaled up) — the scale applied before the single
    /// rounding.
    fn div_fmas_f32(
        &mut self,
        vcc: Handle<Node>,
        a: Handle<Node>,
        b: Handle<Node>,
        c: Handle<Node>,
    ) -> Handle<Node> {
        let plain = self.float(FloatOp::F32Fma, a, b, c);
        let up = self.float(FloatOp::F32FmaLdexp(64), a, b, c);
        let down = self.float(FloatOp::F32FmaLdexp(-64), a, b, c);
        let ec = self.exponent32(c);
        let k127 = self.k32(127);
        let large = self.icmp(IntCmp::GtU, Ty::B32, ec, k127);
        let scaled = self.sel(large, up, down);
        self.sel(vcc, scaled, plain)
    }

    /// V_DIV_FIXUP_F32 (S0 = quotient, S1 = denominator, S2 = numerator), in integer logic:
    ///   S2 or S1 NaN, 0/0, ±inf/±inf → NaN (the default NaN, D005)
    ///   S1 == 0 or |S2| == inf       → ±inf with sign(S1) ^ sign(S2)
    ///   |S1| == inf or S2 == 0       → ±0
    ///   exponent(S2) − exponent(S1) < −150 → ±0 (underflow: |S2/S1| < 2^-150 rounds to zero)
    ///   otherwise                    → |S0| with the sign sign(S1) ^ sign(S2); a NaN S0 (with finite,
    ///                                  nonzero operands only an overflowed macro makes one: inf − inf in
    ///                                  its residual) gives ±inf, the correctly rounded overflow (D012)
    fn div_fixup_f32(
        &mut self,
        q: Handle<Node>,
        den: Handle<Node>,
        num: Handle<Node>,
    ) -> Handle<Node> {
        let x = self.int(IntOp::Xor, Ty::B32, den, num);
        let sign = self.and32(x, 0x8000_0000);
        let an = self.and32(num, 0x7fff_ffff);
        let ad = self.and32(den, 0x7fff_ffff);
        let aq = self.and32(q, 0x7fff_ffff);
        let inf = self.k32(0x7f80_0000);
        let n_nan = self.icmp(IntCmp::GtU, Ty::B32, an, inf);
        let d_nan = self.icmp(IntCmp::GtU, Ty::B32, ad, inf);
        let q_nan = self.icmp(IntCmp::GtU, Ty::B32, aq, inf);
        let n_inf = self.eq32(an, 0x7f80_0000);
        let d_inf = self.eq32(ad, 0x7f80_0000);
        let n_zero = self.eq32(an, 0);
        let d_zero = self.eq32(ad, 0);
        let zz = self.and1(n_zero, d_zero);
        let ii = self.and1(n_inf, d_inf);
        let nan_in = self.or1(n_nan, d_nan);
        let nan_in = self.or1(nan_in, zz);
        let nan_in = self.or1(nan_in, ii);
        let to_inf = self.or1(d_zero, n_inf);
        let to_zero = self.or1(d_inf, n_zero);
        let en = self.exponent32(num);
        let ed = self.exponent32(den);
        let diff = self.int(IntOp::Sub, Ty::B32, en, ed);
        let lim = self.k32((-150i32) as u32);
        let under = self.icmp(IntCmp::LtI, Ty::B32, diff, lim);
        let to_zero = self.or1(to_zero, under);
        let nan = self.k32(crate::quirks::F32_DEFAULT_NAN);
        let signed_inf = self.int(IntOp::Or, Ty::B32, sign, inf);
        let signed_q = self.int(IntOp::Or, Ty::B32, sign, aq);
        let r = self.sel(q_nan, signed_inf, signed_q);
        let r = self.sel(to_zero, sign, r);
        let r = self.sel(to_inf, signed_inf, r);
        self.sel(nan_in, nan, r)
    }

    /// V_CMP_CLASS_F32: bit `class(S0)` of the mask S1, classes numbered as the ISA does
    /// (0 signalling NaN, 1 quiet NaN, 2 −inf, 3 −normal, 4 −subnormal, 5 −0, 6 +0, 7 +subnormal,
    /// 8 +normal, 9 +inf). Integer logic only: the negative class of a positive class p is 11 − p.
    fn class_f32(&mut self, x: Handle<Node>, mask: Handle<Node>) -> Handle<Node> {
        let a = self.and32(x, 0x7fff_ffff);
        let (k6, k7, k8, k9) = (self.k32(6), self.k32(7), self.k32(8), self.k32(9));
        let is_zero = self.eq32(a, 0);
        let min_normal = self.k32(0x0080_0000);
        let sub = self.icmp(IntCmp::LtU, Ty::B32, a, min_normal);
        let inf = self.k32(0x7f80_0000);
        let normal = self.icmp(IntCmp::LtU, Ty::B32, a, inf);
        let p = self.sel(normal, k8, k9);
        let p = self.sel(sub, k7, p);
        let p = self.sel(is_zero, k6, p);
        let k11 = self.k32(11);
        let n = self.int(IntOp::Sub, Ty::B32, k11, p);
        let k31 = self.k32(31);
        let s = self.int(IntOp::LShr, Ty::B32, x, k31);
        let neg = self.eq32(s, 1);
        let idx = self.sel(neg, n, p);
        let is_nan = self.icmp(IntCmp::GtU, Ty::B32, a, inf);
        let quiet_min = self.k32(0x7fc0_0000);
        let quiet = self.icmp(IntCmp::GeU, Ty::B32, a, quiet_min);
        let (k0, k1) = (self.k32(0), self.k32(1));
        let nan_idx = self.sel(quiet, k1, k0);
        let idx = self.sel(is_nan, nan_idx, idx);
        let bit = self.int(IntOp::LShr, Ty::B32, mask, idx);
        let bit = self.and32(bit, 1);
        self.nonzero(Ty::B32, bit)
    }

    /// Applies VOP3 abs (first) and neg to a 32-bit float source at position `i` (0..=2; 3: the literal K,
    /// no modifiers), then the input flush of MODE.FP_DENORM f32 where the instruction has one (D166).
    fn modify(&mut self, v: Handle<Node>, i: u32, abs: u32, neg: u32) -> Handle<Node> {
        let v = self.modify_unflushed(v, i, abs, neg);
        self.flush_in32(v)
    }

    fn modify_unflushed(&mut self, v: Handle<Node>, i: u32, abs: u32, neg: u32) -> Handle<Node> {
        if i > 2 {
            return v;
        }
        let v = if abs >> i & 1 != 0 {
            self.un(UnOp::FAbs, Ty::B32, v)
        } else {
            v
        };
        if neg >> i & 1 != 0 {
            self.un(UnOp::FNeg, Ty::B32, v)
        } else {
            v
        }
    }

    /// Applies abs (first) then neg to a float source of type `ty` at position `i` (0..=2; 3: none).
    fn modify_ty(&mut self, v: Handle<Node>, i: u32, abs: u32, neg: u32, ty: Ty) -> Handle<Node> {
        if i > 2 {
            return v;
        }
        let v = if abs >> i & 1 != 0 {
            self.un(UnOp::FAbs, ty, v)
        } else {
            v
        };
        if neg >> i & 1 != 0 {
            self.un(UnOp::FNeg, ty, v)
        } else {
            v
        }
    }

    /// The DX9 legacy rule of V_MUL/FMA/MAD_LEGACY_F32: when either factor is zero, the product is +0 even
    /// if the other is an infinity or NaN. Returns the factors to multiply: both +0 in that case. With
    /// `flushed` (the unfused forms, which flush denormal inputs) a denormal factor counts as zero.
    fn legacy_zero(
        &mut self,
        a: Handle<Node>,
        b: Handle<Node>,
        flushed: bool,
    ) -> (Handle<Node>, Handle<Node>) {
        let m = if flushed { 0x7f80_0000 } else { 0x7fff_ffff };
        let ma = self.and32(a, m);
        let za = self.eq32(ma, 0);
        let mb = self.and32(b, m);
        let zb = self.eq32(mb, 0);
        let z = self.or1(za, zb);
        let zero = self.k32(0);
        let a = self.sel(z, zero, a);
        let b = self.sel(z, zero, b);
        (a, b)
    }

    /// VOP3/VOP3P clamp (when `on`): the float result of type `ty` limited to [0, 1], NaN → +0 (the
    /// DX10_CLAMP mode of compute kernels), every negative value and −0 → +0. Integer logic only.
    fn clamp_if(&mut self, on: bool, ty: Ty, x: Handle<Node>) -> Handle<Node> {
        if !on {
            return x;
        }
        if ty == Ty::B16 {
            // Half results: the same logic on the zero-extended bits.
            let w = self.un(UnOp::ZExt, Ty::B32, x);
            let c = self.clamp_bits(Ty::B32, w, 0x8000, 0x7c00, 0x3c00);
            return self.lo16(c);
        }
        let (sign, inf, one) = match ty {
            Ty::B16 => (0x8000u64, 0x7c00u64, 0x3c00u64),
            Ty::B64 => (1u64 << 63, 0x7ff0_0000_0000_0000, 0x3ff0_0000_0000_0000),
            _ => (0x8000_0000, 0x7f80_0000, 0x3f80_0000),
        };
        self.clamp_bits(ty, x, sign, inf, one)
    }

    fn clamp_bits(
        &mut self,
        ty: Ty,
        x: Handle<Node>,
        sign: u64,
        inf: u64,
        one: u64,
    ) -> Handle<Node> {
        let k_abs = self.c(ty, sign - 1);
        let a = self.int(IntOp::And, ty, x, k_abs);
        let k_inf = self.c(ty, inf);
        let nan = self.icmp(IntCmp::GtU, ty, a, k_inf);
        let k_sign = self.c(ty, sign);
        let s = self.int(IntOp::And, ty, x, k_sign);
        let negative = self.nonzero(ty, s);
        let k_one = self.c(ty, one);
        let big = self.icmp(IntCmp::GeU, ty, x, k_one);
        let zero = self.c(ty, 0);
        let r = self.sel(big, k_one, x);
        let r = self.sel(negative, zero, r);
        self.sel(nan, zero, r)
    }

    /// `word` (B32) with its high (`hi`) or low half replaced by the low 16 bits of `half` (B32).
    fn insert_half(&mut self, word: Handle<Node>, half: Handle<Node>, hi: bool) -> Handle<Node> {
        let k16 = self.k32(16);
        if hi {
            let keep = self.and32(word, 0xffff);
            let h = self.and32(half, 0xffff);
            let h = self.int(IntOp::Shl, Ty::B32, h, k16);
            self.int(IntOp::Or, Ty::B32, keep, h)
        } else {
            let keep = self.and32(word, 0xffff_0000);
            let h = self.and32(half, 0xffff);
            self.int(IntOp::Or, Ty::B32, keep, h)
        }
    }

    fn lo16(&mut self, a: Handle<Node>) -> Handle<Node> {
        self.n(Node::Extract {
            ty: Ty::B16,
            a,
            shift: 0,
        })
    }

    /// VOPC results: v_cmp writes VCC (e32) or SDST (e64); v_cmpx writes EXEC only (gfx10).
    fn write_compare(&mut self, c: Handle<Node>, cmpx: bool, f: Format, vdst: u16) {
        let m = self.ballot(c);
        if cmpx {
            self.write_s(EXEC_LO, m);
        } else if f == Format::VOP3 {
            self.write_s(vdst, m);
        } else if let Some(sdst) = self.sdwa_sdst() {
            self.write_s(sdst, m);
        } else {
            self.write_s(VCC_LO, m);
        }
    }

    fn valu_packed(&mut self) -> Result<(), LiftError> {
        let (w0, w1) = (self.w(0), self.w(1));
        let vdst = (w0 & 0xff) as u16;
        let (s0, s1, s2) = (w1 & 0x1ff, (w1 >> 9) & 0x1ff, (w1 >> 18) & 0x1ff);
        let neg_hi = (w0 >> 8) & 7;
        let neg_lo = w1 >> 29;
        let clamp = w0 >> 15 & 1 != 0;
        let op_sel = (w0 >> 11) & 7;
        let op_sel_hi = (w1 >> 27) & 3 | ((w0 >> 14) & 1) << 2;
        let srcs = [s0, s1, s2];
        match self.ins.opcode() {
            Opcode::V_PK_FMA_F16 => {
                // Each 16-bit lane of the result: the halves op_sel (low lane) / op_sel_hi (high lane)
                // pick, negated by neg_lo / neg_hi, one rounding to half (fused_to_half, D993).
                let mut x = Vec::new();
                for &e in &srcs {
                    x.push(self.src(e, Src::F16)?);
                }
                let mut out = Vec::new();
                for (sel, negs) in [(op_sel, neg_lo), (op_sel_hi, neg_hi)] {
                    let mut v = Vec::new();
                    for (i, &xi) in x.iter().enumerate() {
                        let shift = if sel >> i & 1 != 0 { 16 } else { 0 };
                        let h = self.n(Node::Extract {
                            ty: Ty::B16,
                            a: xi,
                            shift,
                        });
                        v.push(self.modify_ty(h, i as u32, 0, negs, Ty::B16));
                    }
                    let r = self.float(FloatOp::F16FmaToHalf, v[0], v[1], v[2]);
                    let r = self.clamp_if(clamp, Ty::B16, r);
                    out.push(self.un(UnOp::ZExt, Ty::B32, r));
                }
                let r = self.insert_half(out[0], out[1], true);
                self.write_v(vdst, r);
                Ok(())
            }
            Opcode::V_FMA_MIX_F32 | Opcode::V_FMA_MIXLO_F16 | Opcode::V_FMA_MIXHI_F16 => {
                // Each source is an f32, or (op_sel_hi bit set) an f16 taken from the half op_sel picks;
                // neg_lo negates and neg_hi takes the absolute value (abs first). MIX_F32: one f32
                // rounding (Model::f32_fma). MIXLO/MIXHI: with every source a half, one rounding to half
                // (fused_to_half); otherwise one rounding to f32, then one to half (D993). MIXLO writes the
                // low half and keeps the high half; MIXHI the opposite.
                let op = self.ins.opcode();
                let all_half = op_sel_hi == 7 && op != Opcode::V_FMA_MIX_F32;
                let mut v = Vec::new();
                for (i, &e) in srcs.iter().enumerate() {
                    let is_half = op_sel_hi >> i & 1 != 0;
                    let x = self.src(e, if is_half { Src::F16 } else { Src::B32 })?;
                    v.push(if is_half {
                        let shift = if op_sel >> i & 1 != 0 { 16 } else { 0 };
                        let h = self.n(Node::Extract {
                            ty: Ty::B16,
                            a: x,
                            shift,
                        });
                        let h = self.modify_ty(h, i as u32, neg_hi, neg_lo, Ty::B16);
                        if all_half {
                            h
                        } else {
                            let h32 = self.un(UnOp::ZExt, Ty::B32, h);
                            self.un(UnOp::F16ToF32, Ty::B32, h32)
                        }
                    } else {
                        self.modify_ty(x, i as u32, neg_hi, neg_lo, Ty::B32)
                    });
                }
                if op == Opcode::V_FMA_MIX_F32 {
                    let r = self.float(FloatOp::F32Fma, v[0], v[1], v[2]);
                    let r = self.clamp_if(clamp, Ty::B32, r);
                    self.write_v(vdst, r);
                    return Ok(());
                }
                let h32 = if all_half {
                    let r = self.float(FloatOp::F16FmaToHalf, v[0], v[1], v[2]);
                    let r = self.clamp_if(clamp, Ty::B16, r);
                    self.un(UnOp::ZExt, Ty::B32, r)
                } else {
                    let r = self.float(FloatOp::F32Fma, v[0], v[1], v[2]);
                    let r = self.un(UnOp::F32ToF16, Ty::B32, r);
                    let r = self.lo16(r);
                    let r = self.clamp_if(clamp, Ty::B16, r);
                    self.un(UnOp::ZExt, Ty::B32, r)
                };
                let old = self.n(Node::ReadVgpr {
                    reg: vdst,
                    ty: Ty::B32,
                });
                let w = self.insert_half(old, h32, op == Opcode::V_FMA_MIXHI_F16);
                self.write_v(vdst, w);
                Ok(())
            }
            // Packed 16-bit integer ops and integer dot products: lift/valu16.rs.
            op if self.valu_packed_int(
                op,
                srcs,
                vdst,
                op_sel,
                op_sel_hi,
                [neg_lo, neg_hi],
                clamp,
            )? =>
            {
                Ok(())
            }
            op if self.valu_packed_float(
                op,
                [s0, s1],
                vdst,
                [op_sel, op_sel_hi],
                [neg_lo, neg_hi],
                clamp,
            )? =>
            {
                Ok(())
            }
            _ => {
                if neg_hi != 0 || neg_lo != 0 || clamp {
                    return self.unsupported("VOP3P neg/clamp modifiers are not lifted yet");
                }
                self.unsupported("packed instruction not lifted yet")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
