//! The scalar ALU (SOP1/SOP2/SOPK/SOPC; `Lifter::salu` is the family's entry, the rest its helpers), each composed from existing IR primitives (so the host
//! evaluator and every lowering compute them with nodes they already compute exactly). Definitions from the
//! AMD RDNA 2 ISA guide's SALU chapter; bit helpers (bit reverse, count trailing zeros) are written here once.

use super::{LiftError, Lifter, Src};
use crate::{Handle, IntCmp, IntOp, Node, Ty, UnOp, EXEC_LO};
use rdna2spv_isa::Opcode;

impl Lifter<'_> {
    fn kc(&mut self, ty: Ty, v: u64) -> Handle<Node> {
        self.c(ty, v)
    }
    fn ext(&mut self, ty: Ty, a: Handle<Node>, shift: u8) -> Handle<Node> {
        self.n(Node::Extract { ty, a, shift })
    }

    /// Bit reversal (five or six swap steps).
    pub(super) fn brev(&mut self, ty: Ty, x: Handle<Node>) -> Handle<Node> {
        const M: [u64; 6] = [
            0x5555_5555_5555_5555,
            0x3333_3333_3333_3333,
            0x0f0f_0f0f_0f0f_0f0f,
            0x00ff_00ff_00ff_00ff,
            0x0000_ffff_0000_ffff,
            0x0000_0000_ffff_ffff,
        ];
        let steps = if ty == Ty::B64 { 6 } else { 5 };
        let mut x = x;
        for (i, &m) in M.iter().enumerate().take(steps) {
            let sh = self.kc(ty, 1 << i);
            let m = self.kc(ty, m);
            let lo = self.int(IntOp::And, ty, x, m);
            let lo = self.int(IntOp::Shl, ty, lo, sh);
            let hi = self.int(IntOp::LShr, ty, x, sh);
            let hi = self.int(IntOp::And, ty, hi, m);
            x = self.int(IntOp::Or, ty, lo, hi);
        }
        x
    }

    /// Count of trailing zeros as B32 (the width for 0): popcount(~x & (x - 1)).
    pub(super) fn ctz(&mut self, ty: Ty, x: Handle<Node>) -> Handle<Node> {
        let one = self.kc(ty, 1);
        let xm1 = self.int(IntOp::Sub, ty, x, one);
        let nx = self.un(UnOp::Not, ty, x);
        let t = self.int(IntOp::And, ty, nx, xm1);
        self.un(UnOp::Popcount, Ty::B32, t)
    }

    /// -1 (B32) where x is zero, else `r`.
    fn or_minus_one(&mut self, ty: Ty, x: Handle<Node>, r: Handle<Node>) -> Handle<Node> {
        let z = self.kc(ty, 0);
        let is0 = self.icmp(IntCmp::Eq, ty, x, z);
        let m1 = self.kc(Ty::B32, 0xffff_ffff);
        self.sel(is0, m1, r)
    }

    /// A mask of the low `w` bits (w: B32, any value; ≥ width gives all ones).
    fn low_mask(&mut self, ty: Ty, w: Handle<Node>) -> Handle<Node> {
        let wt = if ty == Ty::B64 {
            self.un(UnOp::ZExt, Ty::B64, w)
        } else {
            w
        };
        let one = self.kc(ty, 1);
        let p = self.int(IntOp::Shl, ty, one, wt);
        let m = self.int(IntOp::Sub, ty, p, one);
        let width = self.kc(Ty::B32, ty.bits() as u64);
        let big = self.icmp(IntCmp::GeU, Ty::B32, w, width);
        let all = self.kc(ty, ty.mask());
        self.sel(big, all, m)
    }

    /// OR of each group of four bits, at the group's low bit.
    fn quad_any(&mut self, ty: Ty, x: Handle<Node>) -> Handle<Node> {
        let mut t = x;
        for s in 1..4 {
            let k = self.kc(ty, s);
            let y = self.int(IntOp::LShr, ty, x, k);
            t = self.int(IntOp::Or, ty, t, y);
        }
        let m = self.kc(ty, 0x1111_1111_1111_1111);
        self.int(IntOp::And, ty, t, m)
    }

    fn set_scc_nonzero(&mut self, ty: Ty, r: Handle<Node>) {
        let nz = self.nonzero(ty, r);
        self.write_scc(nz);
    }

    /// Scalar ALU instructions of this module; Ok(false) for any other opcode.
    pub(super) fn salu_more(&mut self) -> Result<bool, LiftError> {
        use Opcode::*;
        let w0 = self.w(0);
        let sdst = ((w0 >> 16) & 0x7f) as u16;
        let (e0, e1) = (w0 & 0xff, (w0 >> 8) & 0xff);
        let simm = w0 as u16;
        let op = self.ins.opcode();
        // 64-bit forms: a register pair among the row's operands (the table's kinds; D179).
        let wide = self.ins.encoding.has_64bit_operand();
        let (ty, cl) = if wide {
            (Ty::B64, Src::I64)
        } else {
            (Ty::B32, Src::B32)
        };
        match op {
            // ---- SOP2 ----
            S_NAND_B32 | S_NAND_B64 | S_NOR_B32 | S_NOR_B64 | S_XNOR_B32 | S_XNOR_B64 => {
                let a = self.src(e0, cl)?;
                let b = self.src(e1, cl)?;
                let iop = match op {
                    S_NAND_B32 | S_NAND_B64 => IntOp::And,
                    S_NOR_B32 | S_NOR_B64 => IntOp::Or,
                    _ => IntOp::Xor,
                };
                let r = self.int(iop, ty, a, b);
                let r = self.un(UnOp::Not, ty, r);
                self.write_s(sdst, r);
                self.set_scc_nonzero(ty, r);
            }
            S_BFM_B32 | S_BFM_B64 => {
                // D = ((1 << S0[4:0 or 5:0]) - 1) << S1[4:0 or 5:0].
                let a = self.src(e0, Src::B32)?;
                let b = self.src(e1, Src::B32)?;
                let bits = self.kc(Ty::B32, (ty.bits() - 1) as u64);
                let w = self.int(IntOp::And, Ty::B32, a, bits);
                let m = self.low_mask(ty, w);
                let o = self.int(IntOp::And, Ty::B32, b, bits);
                let o = if wide {
                    self.un(UnOp::ZExt, Ty::B64, o)
                } else {
                    o
                };
                let r = self.int(IntOp::Shl, ty, m, o);
                self.write_s(sdst, r);
            }
            S_BFE_U32 | S_BFE_I32 | S_BFE_U64 | S_BFE_I64 => {
                // offset = S1[4:0] (5:0 for 64-bit), width = S1[22:16]; D = (S0 >> offset) & mask(width),
                // sign-extended from bit width-1 for the signed forms; width 0 gives 0. SCC = D != 0.
                let a = self.src(e0, cl)?;
                let b = self.src(e1, Src::B32)?;
                let bits = self.kc(Ty::B32, (ty.bits() - 1) as u64);
                let off = self.int(IntOp::And, Ty::B32, b, bits);
                let sixteen = self.kc(Ty::B32, 16);
                let w = self.int(IntOp::LShr, Ty::B32, b, sixteen);
                let m7 = self.kc(Ty::B32, 0x7f);
                let w = self.int(IntOp::And, Ty::B32, w, m7);
                let off_t = if wide {
                    self.un(UnOp::ZExt, Ty::B64, off)
                } else {
                    off
                };
                let sh = self.int(IntOp::LShr, ty, a, off_t);
                let mask = self.low_mask(ty, w);
                let mut r = self.int(IntOp::And, ty, sh, mask);
                if matches!(op, S_BFE_I32 | S_BFE_I64) {
                    // Sign extension for 0 < width < bits: shift left then arithmetic right.
                    let width = self.kc(Ty::B32, ty.bits() as u64);
                    let lsh = self.int(IntOp::Sub, Ty::B32, width, w);
                    let lsh_t = if wide {
                        self.un(UnOp::ZExt, Ty::B64, lsh)
                    } else {
                        lsh
                    };
                    let up = self.int(IntOp::Shl, ty, r, lsh_t);
                    let se = self.int(IntOp::AShr, ty, up, lsh_t);
                    let z = self.kc(Ty::B32, 0);
                    let pos = self.icmp(IntCmp::GtU, Ty::B32, w, z);
                    let small = self.icmp(IntCmp::LtU, Ty::B32, w, width);
                    let both = self.int(IntOp::And, Ty::B1, pos, small);
                    r = self.sel(both, se, r);
                }
                let z = self.kc(Ty::B32, 0);
                let w0_ = self.icmp(IntCmp::Eq, Ty::B32, w, z);
                let zt = self.kc(ty, 0);
                let r = self.sel(w0_, zt, r);
                self.write_s(sdst, r);
                self.set_scc_nonzero(ty, r);
            }
            S_ABSDIFF_I32 => {
                let a = self.src(e0, cl)?;
                let b = self.src(e1, cl)?;
                // D = S0 - S1 (wrapping); if D < 0 then D = -D (ISA definition: on the wrapped difference).
                let d = self.int(IntOp::Sub, ty, a, b);
                let z = self.kc(ty, 0);
                let lt = self.icmp(IntCmp::LtI, ty, d, z);
                let nd = self.int(IntOp::Sub, ty, z, d);
                let r = self.sel(lt, nd, d);
                self.write_s(sdst, r);
                self.set_scc_nonzero(ty, r);
            }
            S_LSHL1_ADD_U32 | S_LSHL2_ADD_U32 | S_LSHL3_ADD_U32 | S_LSHL4_ADD_U32 => {
                // D = (S0 << N) + S1; SCC = the 64-bit result exceeds 32 bits.
                let n = match op {
                    S_LSHL1_ADD_U32 => 1,
                    S_LSHL2_ADD_U32 => 2,
                    S_LSHL3_ADD_U32 => 3,
                    _ => 4,
                };
                let a = self.src(e0, Src::B32)?;
                let b = self.src(e1, Src::B32)?;
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let b64 = self.un(UnOp::ZExt, Ty::B64, b);
                let k = self.kc(Ty::B64, n);
                let s = self.int(IntOp::Shl, Ty::B64, a64, k);
                let r = self.int(IntOp::Add, Ty::B64, s, b64);
                let lo = self.ext(Ty::B32, r, 0);
                let hi = self.ext(Ty::B32, r, 32);
                self.write_s(sdst, lo);
                self.set_scc_nonzero(Ty::B32, hi);
            }
            S_PACK_LL_B32_B16 | S_PACK_LH_B32_B16 | S_PACK_HH_B32_B16 => {
                let a = self.src(e0, Src::B32)?;
                let b = self.src(e1, Src::B32)?;
                let lo = self.ext(Ty::B16, a, if op == S_PACK_HH_B32_B16 { 16 } else { 0 });
                let hi = self.ext(Ty::B16, b, if op == S_PACK_LL_B32_B16 { 0 } else { 16 });
                let lo = self.un(UnOp::ZExt, Ty::B32, lo);
                let hi = self.un(UnOp::ZExt, Ty::B32, hi);
                let k = self.kc(Ty::B32, 16);
                let hi = self.int(IntOp::Shl, Ty::B32, hi, k);
                let r = self.int(IntOp::Or, Ty::B32, lo, hi);
                self.write_s(sdst, r);
            }
            S_MUL_HI_U32 | S_MUL_HI_I32 => {
                let a = self.src(e0, Src::B32)?;
                let b = self.src(e1, Src::B32)?;
                let iop = if op == S_MUL_HI_U32 {
                    IntOp::MulHiU
                } else {
                    IntOp::MulHiI
                };
                let r = self.int(iop, Ty::B32, a, b);
                self.write_s(sdst, r);
            }
            // ---- SOP1 ----
            S_NOT_B32 | S_NOT_B64 => {
                let a = self.src(e0, cl)?;
                let r = self.un(UnOp::Not, ty, a);
                self.write_s(sdst, r);
                self.set_scc_nonzero(ty, r);
            }
            S_CMOV_B32 | S_CMOV_B64 => {
                let a = self.src(e0, cl)?;
                let d = self.read_s(sdst, ty);
                let s = self.n(Node::ReadScc);
                let r = self.sel(s, a, d);
                self.write_s(sdst, r);
            }
            S_WQM_B32 | S_WQM_B64 => {
                let a = self.src(e0, cl)?;
                let q = self.quad_any(ty, a);
                let f = self.kc(ty, 0xf);
                let r = self.int(IntOp::Mul, ty, q, f);
                self.write_s(sdst, r);
                self.set_scc_nonzero(ty, r);
            }
            S_QUADMASK_B32 | S_QUADMASK_B64 => {
                let a = self.src(e0, cl)?;
                let q = self.quad_any(ty, a);
                let mut r = self.kc(ty, 0);
                for i in 0..(ty.bits() / 4) as u64 {
                    let s = self.kc(ty, 4 * i);
                    let one = self.kc(ty, 1);
                    let b = self.int(IntOp::LShr, ty, q, s);
                    let b = self.int(IntOp::And, ty, b, one);
                    let k = self.kc(ty, i);
                    let b = self.int(IntOp::Shl, ty, b, k);
                    r = self.int(IntOp::Or, ty, r, b);
                }
                self.write_s(sdst, r);
                self.set_scc_nonzero(ty, r);
            }
            S_BREV_B32 | S_BREV_B64 => {
                let a = self.src(e0, cl)?;
                let r = self.brev(ty, a);
                self.write_s(sdst, r);
            }
            S_BITREPLICATE_B64_B32 => {
                // D[2i] = D[2i + 1] = S0[i]: spread the 32 bits to the even positions (five interleave
                // steps), then copy each into the odd position above it. SCC is not written.
                let a = self.src(e0, Src::B32)?;
                let mut x = self.un(UnOp::ZExt, Ty::B64, a);
                for (sh, m) in [
                    (16, 0x0000_ffff_0000_ffff),
                    (8, 0x00ff_00ff_00ff_00ff),
                    (4, 0x0f0f_0f0f_0f0f_0f0f),
                    (2, 0x3333_3333_3333_3333),
                    (1, 0x5555_5555_5555_5555),
                ] {
                    let sh = self.kc(Ty::B64, sh);
                    let t = self.int(IntOp::Shl, Ty::B64, x, sh);
                    let o = self.int(IntOp::Or, Ty::B64, x, t);
                    let m = self.kc(Ty::B64, m);
                    x = self.int(IntOp::And, Ty::B64, o, m);
                }
                let one = self.kc(Ty::B64, 1);
                let t = self.int(IntOp::Shl, Ty::B64, x, one);
                let r = self.int(IntOp::Or, Ty::B64, x, t);
                self.write_s(sdst, r);
            }
            S_BCNT0_I32_B32 | S_BCNT0_I32_B64 => {
                let a = self.src(e0, cl)?;
                let na = self.un(UnOp::Not, ty, a);
                let r = self.un(UnOp::Popcount, Ty::B32, na);
                self.write_s(sdst, r);
                self.set_scc_nonzero(Ty::B32, r);
            }
            S_FF0_I32_B32 | S_FF0_I32_B64 | S_FF1_I32_B32 | S_FF1_I32_B64 => {
                // The lowest set (ff1) / clear (ff0) bit's index, -1 if none.
                let a = self.src(e0, cl)?;
                let x = if matches!(op, S_FF0_I32_B32 | S_FF0_I32_B64) {
                    self.un(UnOp::Not, ty, a)
                } else {
                    a
                };
                let t = self.ctz(ty, x);
                let r = self.or_minus_one(ty, x, t);
                self.write_s(sdst, r);
            }
            S_FLBIT_I32_B32 | S_FLBIT_I32_B64 | S_FLBIT_I32 | S_FLBIT_I32_I64 => {
                // Index from the MSB of the first set bit (unsigned forms) or of the first bit differing from
                // the sign bit (signed forms); -1 if there is none.
                let a = self.src(e0, cl)?;
                let x = if matches!(op, S_FLBIT_I32 | S_FLBIT_I32_I64) {
                    let k = self.kc(ty, (ty.bits() - 1) as u64);
                    let s = self.int(IntOp::AShr, ty, a, k);
                    self.int(IntOp::Xor, ty, a, s)
                } else {
                    a
                };
                let rv = self.brev(ty, x);
                let t = self.ctz(ty, rv);
                let r = self.or_minus_one(ty, x, t);
                self.write_s(sdst, r);
            }
            S_SEXT_I32_I8 | S_SEXT_I32_I16 => {
                let a = self.src(e0, Src::B32)?;
                let nt = if op == S_SEXT_I32_I8 { 24 } else { 16 };
                let k = self.kc(Ty::B32, nt);
                let up = self.int(IntOp::Shl, Ty::B32, a, k);
                let r = self.int(IntOp::AShr, Ty::B32, up, k);
                self.write_s(sdst, r);
            }
            S_BITSET0_B32 | S_BITSET0_B64 | S_BITSET1_B32 | S_BITSET1_B64 => {
                let a = self.src(e0, Src::B32)?;
                let d = self.read_s(sdst, ty);
                let bits = self.kc(Ty::B32, (ty.bits() - 1) as u64);
                let i = self.int(IntOp::And, Ty::B32, a, bits);
                let i = if wide {
                    self.un(UnOp::ZExt, Ty::B64, i)
                } else {
                    i
                };
                let one = self.kc(ty, 1);
                let bit = self.int(IntOp::Shl, ty, one, i);
                let r = if matches!(op, S_BITSET1_B32 | S_BITSET1_B64) {
                    self.int(IntOp::Or, ty, d, bit)
                } else {
                    let nb = self.un(UnOp::Not, ty, bit);
                    self.int(IntOp::And, ty, d, nb)
                };
                self.write_s(sdst, r);
            }
            S_ABS_I32 => {
                let a = self.src(e0, Src::B32)?;
                let z = self.kc(Ty::B32, 0);
                let neg = self.icmp(IntCmp::LtI, Ty::B32, a, z);
                let na = self.int(IntOp::Sub, Ty::B32, z, a);
                let r = self.sel(neg, na, a);
                self.write_s(sdst, r);
                self.set_scc_nonzero(Ty::B32, r);
            }
            S_ORN2_SAVEEXEC_B32 | S_ORN2_SAVEEXEC_B64 | S_NAND_SAVEEXEC_B32
            | S_NAND_SAVEEXEC_B64 | S_NOR_SAVEEXEC_B32 | S_NOR_SAVEEXEC_B64
            | S_XNOR_SAVEEXEC_B32 | S_XNOR_SAVEEXEC_B64 | S_ANDN1_SAVEEXEC_B32
            | S_ANDN1_SAVEEXEC_B64 | S_ORN1_SAVEEXEC_B32 | S_ORN1_SAVEEXEC_B64
            | S_ANDN1_WREXEC_B32 | S_ANDN1_WREXEC_B64 | S_ANDN2_WREXEC_B32 | S_ANDN2_WREXEC_B64 => {
                // saveexec: D = EXEC (old), EXEC = f(S0, EXEC); wrexec: EXEC = f(S0, EXEC), D = EXEC (new).
                // SCC = EXEC (new) != 0.
                let s = self.src(e0, cl)?;
                let exec = self.read_s(EXEC_LO, ty);
                let ns = self.un(UnOp::Not, ty, s);
                let ne = self.un(UnOp::Not, ty, exec);
                let r = match op {
                    S_ORN2_SAVEEXEC_B32 | S_ORN2_SAVEEXEC_B64 => self.int(IntOp::Or, ty, s, ne),
                    S_NAND_SAVEEXEC_B32 | S_NAND_SAVEEXEC_B64 => {
                        let t = self.int(IntOp::And, ty, s, exec);
                        self.un(UnOp::Not, ty, t)
                    }
                    S_NOR_SAVEEXEC_B32 | S_NOR_SAVEEXEC_B64 => {
                        let t = self.int(IntOp::Or, ty, s, exec);
                        self.un(UnOp::Not, ty, t)
                    }
                    S_XNOR_SAVEEXEC_B32 | S_XNOR_SAVEEXEC_B64 => {
                        let t = self.int(IntOp::Xor, ty, s, exec);
                        self.un(UnOp::Not, ty, t)
                    }
                    S_ANDN1_SAVEEXEC_B32 | S_ANDN1_SAVEEXEC_B64 | S_ANDN1_WREXEC_B32
                    | S_ANDN1_WREXEC_B64 => self.int(IntOp::And, ty, ns, exec),
                    S_ORN1_SAVEEXEC_B32 | S_ORN1_SAVEEXEC_B64 => self.int(IntOp::Or, ty, ns, exec),
                    _ => self.int(IntOp::And, ty, s, ne),
                };
                let wr = matches!(
                    op,
                    S_ANDN1_WREXEC_B32
                        | S_ANDN1_WREXEC_B64
                        | S_ANDN2_WREXEC_B32
                        | S_ANDN2_WREXEC_B64
                );
                self.write_s(sdst, if wr { r } else { exec });
                self.write_s(EXEC_LO, r);
                self.set_scc_nonzero(ty, r);
            }
            // ---- SOPK ----
            S_CMOVK_I32 => {
                let k = self.kc(Ty::B32, simm as i16 as i32 as u32 as u64);
                let d = self.read_s(sdst, Ty::B32);
                let s = self.n(Node::ReadScc);
                let r = self.sel(s, k, d);
                self.write_s(sdst, r);
            }
            S_CMPK_EQ_I32 | S_CMPK_LG_I32 | S_CMPK_GT_I32 | S_CMPK_GE_I32 | S_CMPK_LT_I32
            | S_CMPK_LE_I32 | S_CMPK_EQ_U32 | S_CMPK_LG_U32 | S_CMPK_GT_U32 | S_CMPK_GE_U32
            | S_CMPK_LT_U32 | S_CMPK_LE_U32 => {
                // SCC = S(sdst field) op simm16 (sign-extended for _i32, zero-extended for _u32).
                let (cmp, signed) = match op {
                    S_CMPK_EQ_I32 => (IntCmp::Eq, true),
                    S_CMPK_LG_I32 => (IntCmp::Ne, true),
                    S_CMPK_GT_I32 => (IntCmp::GtI, true),
                    S_CMPK_GE_I32 => (IntCmp::GeI, true),
                    S_CMPK_LT_I32 => (IntCmp::LtI, true),
                    S_CMPK_LE_I32 => (IntCmp::LeI, true),
                    S_CMPK_EQ_U32 => (IntCmp::Eq, false),
                    S_CMPK_LG_U32 => (IntCmp::Ne, false),
                    S_CMPK_GT_U32 => (IntCmp::GtU, false),
                    S_CMPK_GE_U32 => (IntCmp::GeU, false),
                    S_CMPK_LT_U32 => (IntCmp::LtU, false),
                    _ => (IntCmp::LeU, false),
                };
                let k = if signed {
                    simm as i16 as i32 as u32
                } else {
                    simm as u32
                };
                let a = self.read_s(sdst, Ty::B32);
                let b = self.kc(Ty::B32, k as u64);
                let r = self.icmp(cmp, Ty::B32, a, b);
                self.write_scc(r);
            }
            S_ADDK_I32 => {
                // D = D + sext(simm16); SCC = signed overflow.
                let a = self.read_s(sdst, Ty::B32);
                let b = self.kc(Ty::B32, simm as i16 as i32 as u32 as u64);
                let r = self.int(IntOp::Add, Ty::B32, a, b);
                let sa = self.ext(Ty::B1, a, 31);
                let sb = self.ext(Ty::B1, b, 31);
                let sr = self.ext(Ty::B1, r, 31);
                let same = self.icmp(IntCmp::Eq, Ty::B1, sa, sb);
                let flip = self.icmp(IntCmp::Ne, Ty::B1, sa, sr);
                let ov = self.int(IntOp::And, Ty::B1, same, flip);
                self.write_s(sdst, r);
                self.write_scc(ov);
            }
            // The firmware version: informational, no effect.
            S_VERSION => {}
            S_MULK_I32 => {
                let a = self.read_s(sdst, Ty::B32);
                let b = self.kc(Ty::B32, simm as i16 as i32 as u32 as u64);
                let r = self.int(IntOp::Mul, Ty::B32, a, b);
                self.write_s(sdst, r);
            }
            // ---- SOPC ----
            S_BITCMP0_B32 | S_BITCMP1_B32 | S_BITCMP0_B64 | S_BITCMP1_B64 => {
                let a = self.src(e0, cl)?;
                let b = self.src(e1, Src::B32)?;
                let bits = self.kc(Ty::B32, (ty.bits() - 1) as u64);
                let i = self.int(IntOp::And, Ty::B32, b, bits);
                let i = if wide {
                    self.un(UnOp::ZExt, Ty::B64, i)
                } else {
                    i
                };
                let sh = self.int(IntOp::LShr, ty, a, i);
                let one = self.kc(ty, 1);
                let bit = self.int(IntOp::And, ty, sh, one);
                let set = self.nonzero(ty, bit);
                let r = if matches!(op, S_BITCMP1_B32 | S_BITCMP1_B64) {
                    set
                } else {
                    self.un(UnOp::Not, Ty::B1, set)
                };
                self.write_scc(r);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// SOPP instructions beyond lift/sopp.rs's: hints and waits are no-ops; hardware messages and halts refused.
    /// Ok(false) for any other opcode.
    pub(super) fn sopp_more(&mut self) -> Result<bool, LiftError> {
        use Opcode::*;
        match self.ins.opcode() {
            // Sleep/wake-up, performance-level hints, instruction-cache invalidation and the dependency /
            // idle waits: the ISA defines no architectural effect beyond timing. The evaluator and the
            // lowering execute each wave's instructions in order with every access complete before the next
            // (sequentially consistent per wave), so there is nothing to wait for and no stale cache.
            S_WAKEUP | S_SLEEP | S_ICACHE_INV | S_INCPERFLEVEL | S_DECPERFLEVEL | S_WAIT_IDLE
            | S_WAITCNT_DEPCTR => Ok(true),
            S_SENDMSG => self.unsupported(
                "s_sendmsg talks to the hardware's message unit (interrupts, GS/dealloc messages); \
                 no compute semantics to model",
            ),
            S_SETKILL | S_SETHALT => {
                self.unsupported("s_setkill/s_sethalt stop the wave for the debugger or trap handler")
            }
            _ => Ok(false),
        }
    }

    /// SMEM cache maintenance: no-ops (the evaluator's and the lowering's memory is coherent; a discarded or
    /// written-back line holds the same bytes). Ok(false) for any other opcode.
    pub(super) fn smem_more(&mut self) -> Result<bool, LiftError> {
        use Opcode::*;
        Ok(matches!(
            self.ins.opcode(),
            S_DCACHE_INV
                | S_GL1_INV
                | S_DCACHE_WB
                | S_DCACHE_DISCARD
                | S_DCACHE_DISCARD_X2
                | S_ATC_PROBE
                | S_ATC_PROBE_BUFFER
        ))
    }
}

impl Lifter<'_> {
    pub(super) fn salu(&mut self) -> Result<(), LiftError> {
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
}
