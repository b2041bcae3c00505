//! The IR of exact primitives.
//!
//! A kernel lifts to a [`Program`]: basic blocks of machine instructions, each instruction a short list of IR
//! [`Node`]s in an arena (typed [`Handle`]s, verified by [`verify`] before anyone interprets or lowers it).
//! Values are bit patterns ([`Ty`]: 1, 16, 32 or 64 bits) with a [`Shape`]: `Uniform` (one value for the whole
//! wave: SGPRs, SCC, masks) or `Lane` (one value per lane: VGPRs). Every float primitive is named after the
//! exact operation it performs (`F32Fma` is Model::f32_fma, one rounding; `F16FmaToHalf` is fused_to_half;
//! `F32LegacyMad` is legacy_multiply_add), so the host evaluator and every device lowering compute the same
//! bits: a primitive is admitted only if the host and the lowering can both compute it exactly.
//!
//! Within one machine instruction, every read happens before any write (the lifter emits reads first), which
//! is the hardware's semantics for instructions whose destination is also a source.

use std::fmt;
use std::marker::PhantomData;

pub mod cfg;
pub mod launch;
pub mod lift;
mod print;
pub mod quirks;
pub mod trace;
pub mod verify;

pub use verify::{verify, VerifyError};

/// A typed index into an [`Arena`].
pub struct Handle<T> {
    index: u32,
    _t: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    pub fn index(self) -> usize {
        self.index as usize
    }
    pub fn from_index(i: usize) -> Self {
        Handle {
            index: i as u32,
            _t: PhantomData,
        }
    }
}
impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, o: &Self) -> bool {
        self.index == o.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> std::hash::Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.index.hash(h)
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.index)
    }
}

/// An append-only arena.
#[derive(Debug, Clone)]
pub struct Arena<T>(Vec<T>);

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena(Vec::new())
    }
}

impl<T> Arena<T> {
    pub fn push(&mut self, t: T) -> Handle<T> {
        self.0.push(t);
        Handle::from_index(self.0.len() - 1)
    }
    pub fn get(&self, h: Handle<T>) -> Option<&T> {
        self.0.get(h.index())
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (Handle<T>, &T)> {
        self.0
            .iter()
            .enumerate()
            .map(|(i, t)| (Handle::from_index(i), t))
    }
}

impl<T> std::ops::Index<Handle<T>> for Arena<T> {
    type Output = T;
    fn index(&self, h: Handle<T>) -> &T {
        &self.0[h.index()]
    }
}

/// Width of a value in bits. Floats are bit patterns of the same width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    B1,
    B16,
    B32,
    B64,
}

impl Ty {
    pub const fn bits(self) -> u32 {
        match self {
            Ty::B1 => 1,
            Ty::B16 => 16,
            Ty::B32 => 32,
            Ty::B64 => 64,
        }
    }
    pub const fn mask(self) -> u64 {
        match self {
            Ty::B64 => u64::MAX,
            t => (1u64 << t.bits()) - 1,
        }
    }
}

/// Whether a value is one per wave or one per lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    Uniform,
    Lane,
}

/// A scalar-file register by its hardware number (0..=105 SGPRs, 106/107 VCC, 108..=123 TTMP, 124 M0,
/// 126/127 EXEC); 64-bit accesses take the pair starting here.
pub type Sreg = u16;
/// A VGPR number (0..=255); 64-bit accesses take the pair starting here.
pub type Vreg = u16;

pub const VCC_LO: Sreg = 106;
pub const M0: Sreg = 124;
pub const EXEC_LO: Sreg = 126;

/// Integer operations (operands and result of the node's type unless stated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntOp {
    Add,
    Sub,
    Mul,
    /// High half of the unsigned / signed double-width product.
    MulHiU,
    MulHiI,
    And,
    Or,
    Xor,
    /// Shift by the second operand modulo the width.
    Shl,
    LShr,
    AShr,
    MinU,
    MaxU,
    MinI,
    MaxI,
}

/// Integer comparisons, result B1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntCmp {
    Eq,
    Ne,
    LtU,
    LeU,
    GtU,
    GeU,
    LtI,
    LeI,
    GtI,
    GeI,
}

/// `v`'s low `bits` bits as a signed number.
fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

impl IntOp {
    /// The operation's definition on `ty`-wide operands held in the low bits of `a` and `b` (bits above
    /// are ignored); the result's bits above the width are not cleared (mask with [`Ty::mask`]). The one
    /// home of these semantics: the evaluator executes it and the lowering's analyses fold constants
    /// with it.
    #[inline]
    pub fn eval(self, ty: Ty, a: u64, b: u64) -> u64 {
        let bits = ty.bits();
        let m = ty.mask();
        let (a, b) = (a & m, b);
        match self {
            IntOp::Add => a.wrapping_add(b),
            IntOp::Sub => a.wrapping_sub(b),
            IntOp::Mul => a.wrapping_mul(b),
            IntOp::MulHiU => (((a as u128) * ((b & m) as u128)) >> bits) as u64,
            IntOp::MulHiI => {
                (((sext(a, bits) as i128) * (sext(b & m, bits) as i128)) >> bits) as u64
            }
            IntOp::And => a & b,
            IntOp::Or => a | b,
            IntOp::Xor => a ^ b,
            IntOp::Shl => a << (b % bits as u64),
            IntOp::LShr => a >> (b % bits as u64),
            IntOp::AShr => (sext(a, bits) >> (b % bits as u64)) as u64,
            IntOp::MinU => a.min(b & m),
            IntOp::MaxU => a.max(b & m),
            IntOp::MinI => sext(a, bits).min(sext(b & m, bits)) as u64,
            IntOp::MaxI => sext(a, bits).max(sext(b & m, bits)) as u64,
        }
    }
}

impl IntCmp {
    /// The comparison's definition on `ty`-wide operands held in the low bits of `a` and `b`.
    #[inline]
    pub fn eval(self, ty: Ty, a: u64, b: u64) -> bool {
        let m = ty.mask();
        let (a, b) = (a & m, b & m);
        let (x, y) = (sext(a, ty.bits()), sext(b, ty.bits()));
        match self {
            IntCmp::Eq => a == b,
            IntCmp::Ne => a != b,
            IntCmp::LtU => a < b,
            IntCmp::LeU => a <= b,
            IntCmp::GtU => a > b,
            IntCmp::GeU => a >= b,
            IntCmp::LtI => x < y,
            IntCmp::LeI => x <= y,
            IntCmp::GtI => x > y,
            IntCmp::GeI => x >= y,
        }
    }
}

/// Float comparisons (IEEE: ordered unless named otherwise), result B1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatCmp {
    /// Never true.
    F,
    Lt,
    Eq,
    Le,
    Gt,
    /// Ordered and not equal.
    Lg,
    Ge,
    /// Both ordered.
    O,
    /// Either NaN.
    U,
    Nge,
    Nlg,
    Ngt,
    Nle,
    Neq,
    Nlt,
    /// Always true.
    Tru,
}

/// Exact float primitives. Each rounds to nearest-even exactly once per named step; NaN results are the
/// RDNA default quiet NaN where the host and devices could disagree (see the evaluator's `specialize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FloatOp {
    F32Add,
    F32Sub,
    F32Mul,
    /// Model::f32_fma: a*b+c with one rounding (D993).
    F32Fma,
    /// legacy_multiply_add: round(round(a*b)+c), denormal inputs and results flushed (D993).
    F32LegacyMad,
    /// Half a+b and a*b, rounded once to half. One algorithm on both sides (the evaluator's `specialize` and
    /// the lowering's `quirks`): widen exactly to f32, one f32 operation, round to half — innocuous double
    /// rounding, 24 ≥ 2·11 + 2 (D170).
    F16Add,
    /// See [`FloatOp::F16Add`].
    F16Mul,
    /// fused_to_half: a*b+c of halves rounded once to half (D993).
    F16FmaToHalf,
    F64Add,
    F64Mul,
    F64Fma,
    /// a/b correctly rounded (IEEE division; also the model of V_RCP_F32 as 1/x, decision D012).
    F32Div,
    /// sqrt(a) correctly rounded (the model of V_SQRT_F32, decision D012). Arity 1.
    F32Sqrt,
    /// (a*b+c)·2^k with ONE rounding (the scale is applied before rounding, so a quotient that lands in
    /// the subnormal range is rounded once): V_DIV_FMAS_F32 with VCC set uses k = ±64.
    F32FmaLdexp(i8),
    /// (a*b+c)·2^k in f64 with ONE rounding (normal, subnormal or overflow): V_DIV_FMAS_F64 with VCC
    /// set uses k = ±128 (decision D067).
    F64FmaLdexp(i16),
}

impl FloatOp {
    pub const fn arity(self) -> usize {
        match self {
            FloatOp::F32Fma
            | FloatOp::F32LegacyMad
            | FloatOp::F16FmaToHalf
            | FloatOp::F64Fma
            | FloatOp::F32FmaLdexp(_)
            | FloatOp::F64FmaLdexp(_) => 3,
            FloatOp::F32Sqrt => 1,
            _ => 2,
        }
    }
    pub const fn ty(self) -> Ty {
        match self {
            FloatOp::F16Add | FloatOp::F16Mul | FloatOp::F16FmaToHalf => Ty::B16,
            FloatOp::F64Add | FloatOp::F64Mul | FloatOp::F64Fma | FloatOp::F64FmaLdexp(_) => {
                Ty::B64
            }
            _ => Ty::B32,
        }
    }
}

/// Conversions and other unary operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    Not,
    /// Zero- / sign-extension or truncation to the node's type.
    ZExt,
    SExt,
    Trunc,
    /// Number of set bits.
    Popcount,
    /// Float negation / absolute value: flip / clear the sign bit (exact for every input, NaNs included).
    FNeg,
    FAbs,
    /// Convert f16 bits to f32 bits (exact).
    F16ToF32,
    /// Convert f32 bits to f16 bits, round to nearest even.
    F32ToF16,
    /// Convert f32 to i32/u32 with RDNA saturation (NaN → 0).
    F32ToI32,
    F32ToU32,
    I32ToF32,
    U32ToF32,
    /// A denormal flushed to zero of the same sign (MODE.FP_DENORM, decision D166): the node's type names
    /// the format — B16 f16, B32 f32, B64 f64; every other value (zeros, normals, infinities, NaNs) passes
    /// unchanged. Exact integer work on every backend: `exponent == 0 ? sign : x`.
    Flush,
}

impl UnOp {
    /// [`UnOp::Flush`]'s definition on the bits of a float of width `ty` (the one home of the rule: the
    /// evaluator executes it and tests take it as the flush oracle's reference shape).
    #[inline]
    pub fn flush(ty: Ty, a: u64) -> u64 {
        let (exp, sign) = match ty {
            Ty::B16 => (0x7c00, 0x8000),
            Ty::B32 => (0x7f80_0000, 0x8000_0000),
            Ty::B64 => (0x7ff0_0000_0000_0000, 1 << 63),
            Ty::B1 => return a,
        };
        if a & exp == 0 {
            a & sign
        } else {
            a
        }
    }
}

/// Memory spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// Global/flat memory at 64-bit device addresses.
    Global,
    /// The workgroup's LDS, 32-bit byte offsets.
    Lds,
    /// The wave's private segment (scratch): B32 byte addresses into the wave's own region, laid out as the
    /// hardware's swizzled private segment buffer lays it out (index stride = wave size, 4-byte elements):
    /// byte `b` of dword `k` of lane `l`'s private memory is at `4 * (k * wave_size + l) + b`. The region
    /// holds `wave_size` lanes of the kernel's private segment size (rounded up to dwords); accesses outside
    /// it fault. Every wave starts with a zero-filled region (decision D010).
    Scratch,
}

/// Width and extension of a memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    U8,
    I8,
    U16,
    I16,
    B32,
}

impl Access {
    pub const fn bytes(self) -> u64 {
        match self {
            Access::U8 | Access::I8 => 1,
            Access::U16 | Access::I16 => 2,
            Access::B32 => 4,
        }
    }
}

/// Atomic read-modify-write operations (decision D060). The width is the type of the node's `value`
/// (B32 or B64; the old value returned has the same type); `data1` is the second data operand of the
/// two-operand forms and `None` for the others. `o` = memory before, `x` = `value`, `y` = `data1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    Sub,
    And,
    Or,
    Xor,
    MinU,
    MaxU,
    MinI,
    MaxI,
    Swap,
    /// Compare and swap: memory becomes `x` (the new value) if it equals `y` (the comparison value).
    CmpSwap,
    /// `x - o` (ds_rsub).
    RSub,
    /// `o >= x ? 0 : o + 1` (unsigned; *_inc).
    Inc,
    /// `o == 0 || o > x ? x : o - 1` (unsigned; *_dec).
    Dec,
    /// Clamped subtract: `x > o ? 0 : o - x` (unsigned; global_atomic_csub).
    CSub,
    /// `(o & !x) | y` (ds_mskor: x = mask, y = source).
    MskOr,
    /// `o >= x ? o - x : o + y` (unsigned; ds_wrap_rtn_b32).
    Wrap,
    /// IEEE addition, round to nearest even (ds_add_f32; B32 only).
    FAdd,
    /// Float minimum / maximum (RDNA rules in the evaluator's `atomic_float`; decision D060).
    FMin,
    FMax,
    /// Float compare and swap: memory becomes `x` if it compares equal to `y` as a float.
    FCmpSwap,
}

impl AtomicOp {
    /// Whether the operation takes the second data operand `data1`.
    pub const fn two_data(self) -> bool {
        matches!(
            self,
            AtomicOp::CmpSwap | AtomicOp::MskOr | AtomicOp::Wrap | AtomicOp::FCmpSwap
        )
    }
}

/// A node of an instruction: a value (expressions) or an effect (writes, stores, barriers).
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Const {
        ty: Ty,
        bits: u64,
    },
    ReadSgpr {
        reg: Sreg,
        ty: Ty,
    },
    ReadVgpr {
        reg: Vreg,
        ty: Ty,
    },
    ReadScc,
    /// The lane's index within the wave (Lane, B32).
    LaneId,
    /// The wave's index within its workgroup (Uniform, B32; waves numbered in the order of their work-items):
    /// s_get_waveid_in_workgroup (decision D092).
    WaveId,
    /// The address at which the code object's image is placed (Uniform, B64): the virtual address 0 of
    /// the object in device memory, what `s_getpc_b64` and the call instructions add to an instruction's
    /// virtual address (decision D155). 0 when the launch places no image.
    CodeBase,
    Int {
        op: IntOp,
        ty: Ty,
        a: Handle<Node>,
        b: Handle<Node>,
    },
    IntCmp {
        op: IntCmp,
        ty: Ty,
        a: Handle<Node>,
        b: Handle<Node>,
    },
    Float {
        op: FloatOp,
        args: [Handle<Node>; 3],
    },
    FloatCmp {
        op: FloatCmp,
        ty: Ty,
        a: Handle<Node>,
        b: Handle<Node>,
    },
    Unary {
        op: UnOp,
        ty: Ty,
        a: Handle<Node>,
    },
    /// `cond ? a : b` (cond B1).
    Select {
        cond: Handle<Node>,
        a: Handle<Node>,
        b: Handle<Node>,
    },
    /// Joins `lo` and `hi` (both B32) into B64.
    Concat {
        lo: Handle<Node>,
        hi: Handle<Node>,
    },
    /// Bits [shift, shift + width) of `a`, as `ty`.
    Extract {
        ty: Ty,
        a: Handle<Node>,
        shift: u8,
    },
    /// A Lane B1 made into a Uniform B64 lane mask; lanes outside EXEC (and beyond the wave) give 0.
    Ballot {
        cond: Handle<Node>,
    },
    /// Bit `lane` of a Uniform mask, per lane (Lane B1).
    LaneBit {
        mask: Handle<Node>,
    },
    /// A lane's value read by a uniform lane index (v_readlane; v_readfirstlane reads the first EXEC lane).
    ReadLane {
        a: Handle<Node>,
        lane: Handle<Node>,
    },
    ReadFirstLane {
        a: Handle<Node>,
    },
    /// Load `access` at `addr + offset` (Lane address: per active lane; Uniform: once for the wave).
    Load {
        space: Space,
        access: Access,
        addr: Handle<Node>,
        offset: i64,
    },
    WriteSgpr {
        reg: Sreg,
        value: Handle<Node>,
    },
    /// Writes the lanes that are active in EXEC (captured before the instruction's own writes).
    WriteVgpr {
        reg: Vreg,
        value: Handle<Node>,
    },
    WriteScc {
        value: Handle<Node>,
    },
    Store {
        space: Space,
        access: Access,
        addr: Handle<Node>,
        offset: i64,
        value: Handle<Node>,
    },
    /// Returns the old value (the type of `value`: B32 or B64; see [`AtomicOp`]). Lane-shaped: once per
    /// lane active in EXEC, lanes in ascending order. When `addr`, `value` and `data1` are all Uniform the
    /// atomic is Uniform: performed once for the wave whatever EXEC holds (scalar atomics, ds_append;
    /// decision D092). In [`Space::Scratch`] a B64 atomic takes the lane's private dword pair: its high
    /// dword is the next private dword, `4 * wave_size` bytes above `addr` (the region's swizzled layout).
    Atomic {
        space: Space,
        op: AtomicOp,
        addr: Handle<Node>,
        offset: i64,
        value: Handle<Node>,
        data1: Option<Handle<Node>>,
    },
    /// s_barrier: every wave of the workgroup arrives before any continues.
    Barrier,
    /// A per-lane `Load` performed only in the lanes (active in EXEC) where `enable` (B1) holds; every
    /// other lane gets 0 and touches no memory (MUBUF range checking: out-of-range loads return 0).
    /// Always Lane-shaped, B32.
    LoadIf {
        space: Space,
        access: Access,
        addr: Handle<Node>,
        offset: i64,
        enable: Handle<Node>,
    },
    /// A per-lane `Store` performed only in the lanes (active in EXEC) where `enable` holds; dropped in
    /// the others (MUBUF range checking: out-of-range stores write nothing).
    StoreIf {
        space: Space,
        access: Access,
        addr: Handle<Node>,
        offset: i64,
        value: Handle<Node>,
        enable: Handle<Node>,
    },
    /// A per-lane `Atomic` performed only in the lanes (active in EXEC) where `enable` holds; the others
    /// touch no memory and return 0 (MUBUF range checking). Lane, the type of `value`.
    AtomicIf {
        space: Space,
        op: AtomicOp,
        addr: Handle<Node>,
        offset: i64,
        value: Handle<Node>,
        data1: Option<Handle<Node>>,
        enable: Handle<Node>,
    },
    /// A run-time refusal (decision D097): in the lanes (active in EXEC) where `cond` (Lane B1) holds, the
    /// instruction met a case the translator does not model (a typed buffer access whose V# names a format
    /// or conversion without an established rule). The evaluator stops with an error naming `reason`; a
    /// device run marks the wave refused and the runner fails the run. No value.
    Refuse {
        cond: Handle<Node>,
        reason: &'static str,
    },
}

/// One machine instruction and its IR.
#[derive(Debug, Clone)]
pub struct Inst {
    /// Byte offset from the kernel entry.
    pub pc: u32,
    /// LLVM-syntax text (for traces and error messages).
    pub text: String,
    /// The instruction's nodes, in execution order.
    pub nodes: std::ops::Range<u32>,
    /// The table row and variant it was decoded as (None for programs built by hand): what the
    /// executed-encoding log records (`RDNA2SPV_COVERAGE_LOG`, issue 28).
    pub encoding: Option<(
        &'static rdna2spv_isa::Encoding,
        rdna2spv_isa::decode::Variant,
    )>,
}

/// How a block ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terminator {
    /// Fall through or branch unconditionally.
    Jump(Handle<Block>),
    /// Branch on a Uniform B1 computed by the last instruction.
    Branch {
        cond: Handle<Node>,
        taken: Handle<Block>,
        not_taken: Handle<Block>,
    },
    /// s_endpgm.
    End,
}

impl Terminator {
    /// The indices of the blocks control can go to next: the target of a jump, both targets of a branch
    /// (taken first), none after `s_endpgm`.
    pub fn successors(&self) -> Vec<usize> {
        match *self {
            Terminator::Jump(t) => vec![t.index()],
            Terminator::Branch {
                taken, not_taken, ..
            } => vec![taken.index(), not_taken.index()],
            Terminator::End => vec![],
        }
    }
}

/// A basic block: straight-line instructions and a terminator.
#[derive(Debug, Clone)]
pub struct Block {
    pub start_pc: u32,
    pub insts: Vec<Inst>,
    pub terminator: Terminator,
}

/// A lifted kernel.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub name: String,
    pub wave_size: u32,
    pub nodes: Arena<Node>,
    pub blocks: Arena<Block>,
}

impl Program {
    pub fn entry(&self) -> Handle<Block> {
        Handle::from_index(0)
    }

    /// The nodes of an instruction.
    pub fn inst_nodes<'a>(
        &'a self,
        inst: &Inst,
    ) -> impl Iterator<Item = (Handle<Node>, &'a Node)> + 'a {
        inst.nodes.clone().map(move |i| {
            let h = Handle::from_index(i as usize);
            (h, &self.nodes[h])
        })
    }
}
