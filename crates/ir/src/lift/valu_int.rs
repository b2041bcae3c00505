//! More integer vector ALU instructions (VOP1/VOP2/VOP3/VOPC), composed from existing IR primitives.
//! Definitions from the AMD RDNA 2 ISA guide's VALU chapter. Integer forms take no VOP3 modifiers here
//! (clamp/op_sel/neg are refused before this point by `valu`).

use super::{valu::int_cmp, LiftError, Lifter, Src};
use crate::{Handle, IntCmp, IntOp, Node, Ty, UnOp};
use rdna2spv_isa::{CmpRel, CmpType, Format, Opcode};

impl Lifter<'_> {
    fn k(&mut self, ty: Ty, v: u64) -> Handle<Node> {
        self.c(ty, v)
    }
    fn x(&mut self, ty: Ty, a: Handle<Node>, shift: u8) -> Handle<Node> {
        self.n(Node::Extract { ty, a, shift })
    }
    fn andk(&mut self, ty: Ty, a: Handle<Node>, m: u64) -> Handle<Node> {
        let m = self.k(ty, m);
        self.int(IntOp::And, ty, a, m)
    }
    /// Bits [lo, lo + 24) of a B32 as a B64, zero- or sign-extended.
    fn ext24(&mut self, a: Handle<Node>, signed: bool) -> Handle<Node> {
        let a64 = self.un(UnOp::ZExt, Ty::B64, a);
        let s = self.k(Ty::B64, 40);
        let up = self.int(IntOp::Shl, Ty::B64, a64, s);
        self.int(
            if signed { IntOp::AShr } else { IntOp::LShr },
            Ty::B64,
            up,
            s,
        )
    }
    /// |a - b| of unsigned values of type ty.
    fn absdiff_u(&mut self, ty: Ty, a: Handle<Node>, b: Handle<Node>) -> Handle<Node> {
        let d1 = self.int(IntOp::Sub, ty, a, b);
        let d2 = self.int(IntOp::Sub, ty, b, a);
        let lt = self.icmp(IntCmp::LtU, ty, a, b);
        self.sel(lt, d2, d1)
    }

    /// Integer VALU instructions of this module; Ok(false) for any other opcode.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn valu_int(
        &mut self,
        f: Format,
        s0: u32,
        s1: u32,
        s2: u32,
        vdst: u16,
    ) -> Result<bool, LiftError> {
        use Opcode::*;
        let op = self.ins.opcode();
        let b32 = Src::B32;
        let r = match op {
            V_NOT_B32 => {
                let a = self.src(s0, b32)?;
                self.un(UnOp::Not, Ty::B32, a)
            }
            V_BFREV_B32 => {
                let a = self.src(s0, b32)?;
                self.brev(Ty::B32, a)
            }
            V_BCNT_U32_B32 => {
                // D = popcount(S0) + S1.
                let (a, b) = (self.src(s0, b32)?, self.src(s1, b32)?);
                let p = self.un(UnOp::Popcount, Ty::B32, a);
                self.int(IntOp::Add, Ty::B32, p, b)
            }
            V_FFBL_B32 | V_FFBH_U32 | V_FFBH_I32 => {
                // ffbl: lowest set bit; ffbh_u32: first set bit from the MSB; ffbh_i32: first bit from the
                // MSB differing from the sign bit. -1 if none.
                let a = self.src(s0, b32)?;
                let x = if op == V_FFBH_I32 {
                    let k = self.k(Ty::B32, 31);
                    let s = self.int(IntOp::AShr, Ty::B32, a, k);
                    self.int(IntOp::Xor, Ty::B32, a, s)
                } else {
                    a
                };
                let y = if op == V_FFBL_B32 {
                    x
                } else {
                    self.brev(Ty::B32, x)
                };
                let t = self.ctz(Ty::B32, y);
                let z = self.k(Ty::B32, 0);
                let is0 = self.icmp(IntCmp::Eq, Ty::B32, x, z);
                let m1 = self.k(Ty::B32, 0xffff_ffff);
                self.sel(is0, m1, t)
            }
            V_LSHRREV_B64 | V_ASHRREV_I64 => {
                // D = S1 >> S0[5:0].
                let a = self.src(s0, b32)?;
                let b = self.src(s1, Src::I64)?;
                let a = self.andk(Ty::B32, a, 63);
                let a64 = self.un(UnOp::ZExt, Ty::B64, a);
                let iop = if op == V_LSHRREV_B64 {
                    IntOp::LShr
                } else {
                    IntOp::AShr
                };
                self.int(iop, Ty::B64, b, a64)
            }
            V_MUL_U32_U24 | V_MUL_I32_I24 | V_MUL_HI_U32_U24 | V_MUL_HI_I32_I24 | V_MAD_U32_U24
            | V_MAD_I32_I24 => {
                let signed = matches!(op, V_MUL_I32_I24 | V_MUL_HI_I32_I24 | V_MAD_I32_I24);
                let (a, b) = (self.src(s0, b32)?, self.src(s1, b32)?);
                let (a, b) = (self.ext24(a, signed), self.ext24(b, signed));
                let p = self.int(IntOp::Mul, Ty::B64, a, b);
                let shift = if matches!(op, V_MUL_HI_U32_U24 | V_MUL_HI_I32_I24) {
                    32
                } else {
                    0
                };
                let r = self.x(Ty::B32, p, shift);
                if matches!(op, V_MAD_U32_U24 | V_MAD_I32_I24) {
                    let c = self.src(s2, b32)?;
                    self.int(IntOp::Add, Ty::B32, r, c)
                } else {
                    r
                }
            }
            V_BFE_U32 | V_BFE_I32 => {
                // D = (S0 >> S1[4:0]) & ((1 << S2[4:0]) - 1), sign-extended from bit S2[4:0]-1 for i32;
                // width 0 gives 0.
                let (a, b, c) = (self.src(s0, b32)?, self.src(s1, b32)?, self.src(s2, b32)?);
                let off = self.andk(Ty::B32, b, 31);
                let w = self.andk(Ty::B32, c, 31);
                let sh = self.int(IntOp::LShr, Ty::B32, a, off);
                let one = self.k(Ty::B32, 1);
                let p = self.int(IntOp::Shl, Ty::B32, one, w);
                let m = self.int(IntOp::Sub, Ty::B32, p, one);
                let v = self.int(IntOp::And, Ty::B32, sh, m);
                if op == V_BFE_I32 {
                    let k32 = self.k(Ty::B32, 32);
                    let l = self.int(IntOp::Sub, Ty::B32, k32, w);
                    let up = self.int(IntOp::Shl, Ty::B32, v, l);
                    let se = self.int(IntOp::AShr, Ty::B32, up, l);
                    let z = self.k(Ty::B32, 0);
                    let w0 = self.icmp(IntCmp::Eq, Ty::B32, w, z);
                    self.sel(w0, z, se)
                } else {
                    v
                }
            }
            V_BFI_B32 => {
                // D = (S0 & S1) | (~S0 & S2).
                let (a, b, c) = (self.src(s0, b32)?, self.src(s1, b32)?, self.src(s2, b32)?);
                let t = self.int(IntOp::And, Ty::B32, a, b);
                let na = self.un(UnOp::Not, Ty::B32, a);
                let u = self.int(IntOp::And, Ty::B32, na, c);
                self.int(IntOp::Or, Ty::B32, t, u)
            }
            V_BFM_B32 => {
                // D = ((1 << S0[4:0]) - 1) << S1[4:0].
                let (a, b) = (self.src(s0, b32)?, self.src(s1, b32)?);
                let a = self.andk(Ty::B32, a, 31);
                let b = self.andk(Ty::B32, b, 31);
                let one = self.k(Ty::B32, 1);
                let p = self.int(IntOp::Shl, Ty::B32, one, a);
                let m = self.int(IntOp::Sub, Ty::B32, p, one);
                self.int(IntOp::Shl, Ty::B32, m, b)
            }
            V_ALIGNBIT_B32 | V_ALIGNBYTE_B32 => {
                // D = ({S0, S1} >> S2[4:0]) (alignbyte: >> 8 * S2[1:0]), low 32 bits.
                let (a, b, c) = (self.src(s0, b32)?, self.src(s1, b32)?, self.src(s2, b32)?);
                let cat = self.n(Node::Concat { lo: b, hi: a });
                let sh = if op == V_ALIGNBIT_B32 {
                    self.andk(Ty::B32, c, 31)
                } else {
                    let t = self.andk(Ty::B32, c, 3);
                    let three = self.k(Ty::B32, 3);
                    self.int(IntOp::Shl, Ty::B32, t, three)
                };
                let sh = self.un(UnOp::ZExt, Ty::B64, sh);
                let r = self.int(IntOp::LShr, Ty::B64, cat, sh);
                self.x(Ty::B32, r, 0)
            }
            V_PERM_B32 => {
                // Byte i of D by selector byte i of S2 over the bytes of {S0, S1} (S1 is bytes 0..3):
                // 0..7 that byte; 8..11 the sign (bit 15, 31, 47, 63) replicated; 12 → 0x00; ≥ 13 → 0xff.
                let (a, b, c) = (self.src(s0, b32)?, self.src(s1, b32)?, self.src(s2, b32)?);
                let cat = self.n(Node::Concat { lo: b, hi: a });
                let mut acc = self.k(Ty::B32, 0);
                for i in 0..4u64 {
                    let k8 = self.k(Ty::B32, 8 * i);
                    let sel = self.int(IntOp::LShr, Ty::B32, c, k8);
                    let sel = self.andk(Ty::B32, sel, 0xff);
                    let lo3 = self.andk(Ty::B32, sel, 7);
                    let three = self.k(Ty::B32, 3);
                    let bsh = self.int(IntOp::Shl, Ty::B32, lo3, three);
                    let bsh = self.un(UnOp::ZExt, Ty::B64, bsh);
                    let byte = self.int(IntOp::LShr, Ty::B64, cat, bsh);
                    let byte = self.x(Ty::B32, byte, 0);
                    let byte = self.andk(Ty::B32, byte, 0xff);
                    let lo2 = self.andk(Ty::B32, sel, 3);
                    let four = self.k(Ty::B32, 4);
                    let ssh = self.int(IntOp::Shl, Ty::B32, lo2, four);
                    let f15 = self.k(Ty::B32, 15);
                    let ssh = self.int(IntOp::Add, Ty::B32, ssh, f15);
                    let ssh = self.un(UnOp::ZExt, Ty::B64, ssh);
                    let sbit = self.int(IntOp::LShr, Ty::B64, cat, ssh);
                    let sbit = self.x(Ty::B1, sbit, 0);
                    let ff = self.k(Ty::B32, 0xff);
                    let z = self.k(Ty::B32, 0);
                    let sign = self.sel(sbit, ff, z);
                    let c8 = self.k(Ty::B32, 8);
                    let c12 = self.k(Ty::B32, 12);
                    let lt8 = self.icmp(IntCmp::LtU, Ty::B32, sel, c8);
                    let lt12 = self.icmp(IntCmp::LtU, Ty::B32, sel, c12);
                    let eq12 = self.icmp(IntCmp::Eq, Ty::B32, sel, c12);
                    let hi = self.sel(eq12, z, ff);
                    let mid = self.sel(lt12, sign, hi);
                    let v = self.sel(lt8, byte, mid);
                    let k8 = self.k(Ty::B32, 8 * i);
                    let v = self.int(IntOp::Shl, Ty::B32, v, k8);
                    acc = self.int(IntOp::Or, Ty::B32, acc, v);
                }
                acc
            }
            V_MIN3_I32 | V_MIN3_U32 | V_MAX3_I32 | V_MAX3_U32 | V_MED3_I32 | V_MED3_U32 => {
                let (a, b, c) = (self.src(s0, b32)?, self.src(s1, b32)?, self.src(s2, b32)?);
                let signed = matches!(op, V_MIN3_I32 | V_MAX3_I32 | V_MED3_I32);
                let (mn, mx) = if signed {
                    (IntOp::MinI, IntOp::MaxI)
                } else {
                    (IntOp::MinU, IntOp::MaxU)
                };
                match op {
                    V_MIN3_I32 | V_MIN3_U32 => {
                        let t = self.int(mn, Ty::B32, a, b);
                        self.int(mn, Ty::B32, t, c)
                    }
                    V_MAX3_I32 | V_MAX3_U32 => {
                        let t = self.int(mx, Ty::B32, a, b);
                        self.int(mx, Ty::B32, t, c)
                    }
                    _ => {
                        // med3 = max(min(a, b), min(max(a, b), c)).
                        let lo = self.int(mn, Ty::B32, a, b);
                        let hi = self.int(mx, Ty::B32, a, b);
                        let t = self.int(mn, Ty::B32, hi, c);
                        self.int(mx, Ty::B32, lo, t)
                    }
                }
            }
            V_XAD_U32 => {
                let (a, b, c) = (self.src(s0, b32)?, self.src(s1, b32)?, self.src(s2, b32)?);
                let t = self.int(IntOp::Xor, Ty::B32, a, b);
                self.int(IntOp::Add, Ty::B32, t, c)
            }
            V_SAD_U32 => {
                let (a, b, c) = (self.src(s0, b32)?, self.src(s1, b32)?, self.src(s2, b32)?);
                let d = self.absdiff_u(Ty::B32, a, b);
                self.int(IntOp::Add, Ty::B32, d, c)
            }
            V_SAD_U8 | V_SAD_HI_U8 | V_SAD_U16 | V_LERP_U8 => {
                // sad_u8: sum of |a.byte - b.byte| + S2 (sad_hi_u8: the sum << 16); sad_u16 over halves;
                // lerp_u8: per byte (a + b + c.byte[0]) >> 1.
                let (a, b, c) = (self.src(s0, b32)?, self.src(s1, b32)?, self.src(s2, b32)?);
                let (n, w) = if op == V_SAD_U16 {
                    (2u64, 16u64)
                } else {
                    (4, 8)
                };
                let m = (1u64 << w) - 1;
                let mut acc = self.k(Ty::B32, 0);
                for i in 0..n {
                    let sh = self.k(Ty::B32, w * i);
                    let ai = self.int(IntOp::LShr, Ty::B32, a, sh);
                    let ai = self.andk(Ty::B32, ai, m);
                    let bi = self.int(IntOp::LShr, Ty::B32, b, sh);
                    let bi = self.andk(Ty::B32, bi, m);
                    if op == V_LERP_U8 {
                        let ci = self.int(IntOp::LShr, Ty::B32, c, sh);
                        let ci = self.andk(Ty::B32, ci, 1);
                        let s = self.int(IntOp::Add, Ty::B32, ai, bi);
                        let s = self.int(IntOp::Add, Ty::B32, s, ci);
                        let one = self.k(Ty::B32, 1);
                        let s = self.int(IntOp::LShr, Ty::B32, s, one);
                        let s = self.int(IntOp::Shl, Ty::B32, s, sh);
                        acc = self.int(IntOp::Or, Ty::B32, acc, s);
                    } else {
                        let d = self.absdiff_u(Ty::B32, ai, bi);
                        acc = self.int(IntOp::Add, Ty::B32, acc, d);
                    }
                }
                if op == V_LERP_U8 {
                    acc
                } else {
                    let acc = if op == V_SAD_HI_U8 {
                        let k = self.k(Ty::B32, 16);
                        self.int(IntOp::Shl, Ty::B32, acc, k)
                    } else {
                        acc
                    };
                    self.int(IntOp::Add, Ty::B32, acc, c)
                }
            }
            _ => return self.valu_int_cmp(f, s0, s1, vdst),
        };
        self.write_v(vdst, r);
        Ok(true)
    }

    /// 16- and 64-bit integer compares and the always-false/true forms (VOPC and their VOP3 forms).
    fn valu_int_cmp(&mut self, f: Format, s0: u32, s1: u32, vdst: u16) -> Result<bool, LiftError> {
        // Relation, width and signedness: the table's compare facts (D179).
        let Some(cmp) = self.ins.opcode().compare() else {
            return Ok(false);
        };
        let (width, signed) = match cmp.ty {
            CmpType::U16 => (Ty::B16, false),
            CmpType::I16 => (Ty::B16, true),
            CmpType::U32 => (Ty::B32, false),
            CmpType::I32 => (Ty::B32, true),
            CmpType::U64 => (Ty::B64, false),
            CmpType::I64 => (Ty::B64, true),
            CmpType::F16 | CmpType::F32 | CmpType::F64 => return Ok(false),
        };
        let cmpx = self.ins.opcode().is_cmpx();
        let cl = if width == Ty::B64 { Src::I64 } else { Src::B32 };
        let (a, b) = (self.src(s0, cl)?, self.src(s1, cl)?);
        // 16-bit forms compare the low halves, extended to 32 bits.
        let (a, b, width) = if width == Ty::B16 {
            let k = self.k(Ty::B32, 16);
            let sh = if signed { IntOp::AShr } else { IntOp::LShr };
            let au = self.int(IntOp::Shl, Ty::B32, a, k);
            let bu = self.int(IntOp::Shl, Ty::B32, b, k);
            (
                self.int(sh, Ty::B32, au, k),
                self.int(sh, Ty::B32, bu, k),
                Ty::B32,
            )
        } else {
            (a, b, width)
        };
        let c = match cmp.rel {
            CmpRel::F => self.k(Ty::B1, 0),
            CmpRel::T => self.k(Ty::B1, 1),
            rel => {
                let Some(icmp) = int_cmp(rel, signed) else {
                    return Ok(false);
                };
                self.icmp(icmp, width, a, b)
            }
        };
        // A constant condition is made per lane so the ballot counts active lanes.
        let c = if matches!(cmp.rel, CmpRel::F | CmpRel::T) {
            let l = self.n(Node::LaneId);
            let z = self.k(Ty::B32, 0);
            let any = self.icmp(IntCmp::GeU, Ty::B32, l, z);
            self.int(IntOp::And, Ty::B1, any, c)
        } else {
            c
        };
        self.write_compare(c, cmpx, f, vdst);
        Ok(true)
    }
}
