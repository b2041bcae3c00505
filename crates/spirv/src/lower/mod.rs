//! IR → SPIR-V: one invocation executes one whole wave (decision D006). The lane mapping (one invocation per
//! lane, decision D082) reuses this emitter through the `lane_*` hooks of `lane/` (docs/lane-mapping.md).
//!
//! Module shape (SPIR-V 1.5, `PhysicalStorageBuffer64 GLSL450`, entry point `main`):
//!
//! * `LocalSize` = waves per workgroup (work-items of the kernel workgroup / wave size, rounded up); the
//!   dispatch is the number of kernel workgroups. `LocalInvocationIndex` is the wave's index in its workgroup.
//! * Push constants, [`PUSH_CONSTANT_BYTES`] bytes, see [`push_constants`]: the device address of the launch
//!   words (the values of the `SgprInit::Const` registers, in layout order), the device address of the
//!   per-wave flags, the grid size in work-items, a zero that the driver cannot see (used to make float
//!   operands opaque, see `quirks`), and a copy of the first [`PUSHED_LAUNCH_WORDS`] launch words, from
//!   which the initial SGPRs are read (D117: a push-constant read is one scalar load on lavapipe, a
//!   device-address load a loop over the SIMD lanes).
//! * Registers are `Function` variables: `u32 sgpr[128]` (constant indices), `u32 vgpr[n_vgpr * wave]`
//!   indexed `reg * wave + lane`, a bool SCC.
//! * Control flow is a top-tested dispatcher loop (`while !stop { switch block { … } }`) inside a top-tested
//!   outer loop that runs the dispatcher until the wave ends or passes an `s_barrier`, then meets the other
//!   waves of the workgroup at one `OpControlBarrier` and counts finished waves in three rotating
//!   `Workgroup` counters; it ends when every wave of the workgroup has ended. An invocation whose
//!   `LocalInvocationIndex` is `LocalSize` or more (none on a conforming device; lavapipe's masked lanes
//!   of a partial 8-wide batch, which would hold the loop) starts done (D147).
//! * Each machine instruction runs in phases: uniform nodes once, lane nodes in top-tested loops over the
//!   lanes (effects masked by the EXEC captured at the instruction's start), ballots and lane reads captured
//!   inside those loops, SGPR/SCC writes last in program order.
//! * At the end every invocation writes its flag: [`FLAG_FINISHED`], or [`FLAG_CUT_SHORT`] when one of its
//!   loops stopped before its exit condition held (lavapipe's silent 65,535-iteration cap).

mod atomic;
mod checked;
mod entry;
mod hoist;
mod lane;
pub use lane::{
    choose_mapping, flag_slots, lane_plan, split_factor, split_waves, texel_lds, texel_refusal,
    waves_communicate, BarrierSites, Chosen, LanePlan, Mapping, TexelLds, FLAG_SLOTS_MARK,
    SPLIT_MARK, TEXEL_MIN_LOADS, TEXEL_MIN_LOADS_ENV, TEXEL_REFUSED_MARK, TEXEL_REGIONS_ENV,
    TEXEL_REGIONS_MARK, TEXEL_WORDS_MARK,
};
mod memory;
mod narrow;
mod quirks;
mod trace;
mod values;

use checked::Check;
pub use checked::{
    check_buffer_words, check_records_offset, FaultRecord, CHECK_SINK_BYTES, FAULT_RECORD_WORDS,
};
pub use entry::{
    fold_width, folded_dispatch, launch_words, push_constants, scratch_buffer_bytes,
    scratch_stride, FOLD_MARK, PUSHED_LAUNCH_WORDS, PUSH_CONSTANT_BYTES,
};

pub use rdna2spv_ir::trace::TraceFilter;
pub use trace::PlantedFault;
mod structured;

pub use structured::{control_flow_notes, ControlFlow};

use crate::hash::{HashMap, HashSet};
use atomic::BARRIER_COUNTERS;
use std::collections::BTreeSet;

use rdna2spv_ir::verify::Types;
use rdna2spv_ir::{
    verify, Handle, Node, Program, Shape, Space, Sreg, Terminator, Ty, VerifyError, EXEC_LO,
};
use rspirv::dr::{Builder, Instruction, Operand};
use spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, LoopControl, MemoryAccess, MemoryModel, Op, SelectionControl, StorageClass,
    Word,
};

use crate::profile::DeviceProfile;

/// What one SGPR holds when a wave starts: the launch ABI's one type, shared with the evaluator (D170). The
/// k-th `Const` entry of [`KernelLayout::sgprs`] reads launch word k (see [`launch_words`]).
pub use rdna2spv_ir::launch::SgprInit;

/// The launch facts a module is specialised for (everything else arrives at run time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelLayout {
    /// 32 or 64; must equal `Program::wave_size`.
    pub wave_size: u32,
    /// Kernel workgroup size in work-items.
    pub workgroup: [u32; 3],
    /// Initial SGPRs, applied in order (EXEC is written after them).
    pub sgprs: Vec<(Sreg, SgprInit)>,
    /// How many of v0, v1, v2 receive the work-item id x, y, z (clamped to 1..=3).
    pub workitem_id_vgprs: u32,
    /// LDS bytes per workgroup.
    pub lds_bytes: u32,
    /// Private segment (scratch) bytes per lane; the wave's region is `wave_size` times this rounded up to
    /// dwords, a slot of the runner's scratch buffer (`Space::Scratch`, D010, [`scratch_buffer_bytes`]).
    pub scratch_bytes: u32,
    /// The address of the code object's image, when the launch places one (`Node::CodeBase`, D155): a
    /// value the host passes at run time, as two launch words after the `Const` ones ([`launch_words`]).
    /// `None`: the node reads 0.
    pub code_base: Option<u64>,
}

impl KernelLayout {
    /// Invocations (waves) per workgroup: the module's `LocalSize.x`.
    pub fn waves_per_workgroup(&self) -> u32 {
        let t: u32 = self.workgroup.iter().product();
        t.div_ceil(self.wave_size.max(1))
    }

    /// Workgroups to dispatch for a grid of `grid` work-items.
    pub fn workgroups(&self, grid: [u32; 3]) -> [u32; 3] {
        [0, 1, 2].map(|d| grid[d].div_ceil(self.workgroup[d].max(1)))
    }
}

/// Flag of a wave that ran to its end (or never existed: lanes past a partial workgroup).
pub const FLAG_FINISHED: u32 = 1;
/// Flag of a wave one of whose loops stopped before its exit condition held (a driver loop cap).
/// Bits 8..32 of it hold the number of the block the wave was in (`Program::blocks` index), see
/// [`FLAG_BLOCK_SHIFT`].
pub const FLAG_CUT_SHORT: u32 = 2;
/// A flag word is `kind | block << FLAG_BLOCK_SHIFT`; the kind is its low 8 bits ([`FLAG_KIND_MASK`]).
pub const FLAG_BLOCK_SHIFT: u32 = 8;
/// The kind of a flag word (FLAG_FINISHED, FLAG_CUT_SHORT, ...).
pub const FLAG_KIND_MASK: u32 = 0xff;
/// Flag of a wave that made a dword-straddling memory access under [`Unaligned::Detect`].
pub const FLAG_MISALIGNED: u32 = 3;
/// Flag of a wave that accessed scratch outside its region (the evaluator faults there; the device
/// redirects the access to spare words past the region and reports it).
pub const FLAG_SCRATCH_FAULT: u32 = 4;
/// Flag of a wave that, in checked mode ([`LowerOptions::checked`]), made a global access outside every
/// allocation; its first fault is in its record of the check buffer ([`FaultRecord`]).
pub const FLAG_OOB: u32 = 5;
/// Flag of a wave that met a run-time refusal (`Node::Refuse`, decision D097): a case the translator
/// does not model, such as a typed buffer access through a V# whose format has no established rule.
pub const FLAG_REFUSED: u32 = 6;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    #[error("the program does not verify: {0}")]
    Verify(#[from] VerifyError),
    #[error("block {block}, pc 0x{pc:x} ({text}): {reason}")]
    Unsupported {
        block: usize,
        pc: u32,
        text: String,
        reason: String,
    },
    #[error("bad layout: {0}")]
    Layout(String),
    #[error("SPIR-V builder: {0}")]
    Build(String),
}

impl From<rspirv::dr::Error> for LowerError {
    fn from(e: rspirv::dr::Error) -> Self {
        LowerError::Build(e.to_string())
    }
}

type R<T> = Result<T, LowerError>;

/// Lowers `program` to a SPIR-V compute module (entry point `main`) for `desc`, emitting every workaround
/// the `profile` calls for.
pub fn lower(program: &Program, desc: &KernelLayout, profile: &DeviceProfile) -> R<Vec<u32>> {
    lower_with(program, desc, profile, &LowerOptions::default())
}

/// How the lanes of a vector instruction are emitted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Lanes {
    /// A top-tested loop over the lanes (small modules; each iteration spends lavapipe's loop budget).
    #[default]
    Loop,
    /// The lane body repeated once per lane with constant lane indices (no loop budget spent, constant
    /// register indices; modules 32–64× larger and much slower to JIT).
    Unrolled,
}

/// What to do with memory accesses that cross a dword boundary (unaligned 32-bit, 16-bit at byte 3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unaligned {
    /// Emit the fast aligned form and mark the wave [`FLAG_MISALIGNED`] when such an access happens, so the
    /// run fails loudly instead of differing from the evaluator. Compiled kernels access dwords aligned.
    #[default]
    Detect,
    /// Emulate them exactly (two dwords; stores with atomic AND/OR): bit-identical to the evaluator, at
    /// the price of more code per access (longer JIT).
    Emulate,
}

/// Lowering choices that do not change the results (or, for [`Unaligned::Detect`], refuse loudly).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LowerOptions {
    pub lanes: Lanes,
    pub unaligned: Unaligned,
    /// Append trace records to the trace buffer (its address is the launch word after the Const words
    /// and the scratch address; see `trace`). None: no instrumentation at all.
    pub trace: Option<TraceFilter>,
    /// Test only: break one instruction on purpose (see [`PlantedFault`]).
    pub fault: Option<PlantedFault>,
    /// Structured control flow (the default) or the dispatcher loop over all blocks (decision D035).
    pub control_flow: ControlFlow,
    /// Checked mode (the default of `run`, D158; `run --unchecked` turns it off): validate every global/flat access against this many allocations,
    /// given at run time in the check buffer (see [`check_buffer_words`]). An access outside all of them is
    /// redirected to the buffer's sink (loads read zero-filled spare words, stores land there) and the wave
    /// reports [`FLAG_OOB`] with its first fault's record, so a faulting kernel neither corrupts memory nor
    /// loses the device. `None`: accesses go straight to memory.
    pub checked: Option<u16>,
    /// Checked mode without fault records (D184): an out-of-bounds access only sets the flag slot's
    /// [`FLAG_OOB`] and redirects to the sink; no record is kept or written, so the check costs its compares
    /// alone. The runner names the fault by running again with records (`rdna2spv::device`). `false` (the
    /// default): every faulting flag slot also writes its first fault's [`FaultRecord`].
    pub check_flag_only: bool,
    /// One invocation per wave (the default) or one per lane (decision D082).
    pub mapping: Mapping,
    /// Lane mapping: keep every kernel workgroup one Vulkan workgroup even where its waves cannot
    /// communicate (by default such waves run as Vulkan workgroups of their own, decision D105).
    pub whole_workgroups: bool,
    /// Lane mapping: order every LDS write after the reads before it with a barrier, even where no lane's
    /// write can meet another lane's read (decision D120; tests and measurements).
    pub lane_lds_fences_all: bool,
    /// The launch segments of the dispatch (the kernarg segment, the dispatch packet): a scalar load
    /// provably inside one may run where the hardware skips it (decision D132). `None` entries: nothing
    /// is known, and every scalar load keeps the vote of the skip around it.
    pub segments: [Option<LaunchSegment>; 2],
    /// Test only (D228): on a profile without correctly rounded f32 division and square root, move the
    /// square-root emulation's f64 seed by up to 3·2^10 units of its 26 bits (a function of the operand),
    /// so the Newton step and the corrections are exercised on a device whose seed is already right.
    pub div_sqrt_skew: bool,
    /// A kernel grid wider than the device's dispatch limits (D253): `Some(W)` dispatches its workgroups
    /// in rows of `W` Vulkan workgroups (x) and as many rows (y) as they need; the module recovers the
    /// kernel workgroup from the row-major index, and the workgroups of the last row past the grid return
    /// at once. It carries [`FOLD_MARK`] so that the runner sizes the dispatch ([`fold_width`]).
    pub fold: Option<u32>,
}

/// Memory the runner gives every wave of the dispatch to read (decision D132): the launch-word SGPR pair
/// `sgpr`, `sgpr + 1` holds its device address when a wave starts, the address is dword aligned (the HSA
/// ABI aligns the kernarg segment to 16 bytes and the dispatch packet to 64; the runner's buffers are
/// aligned further), and its first `bytes` bytes are allocated for the whole dispatch on both backends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchSegment {
    pub sgpr: u16,
    pub bytes: u32,
}

/// [`lower`] with explicit [`LowerOptions`].
pub fn lower_with(
    program: &Program,
    desc: &KernelLayout,
    profile: &DeviceProfile,
    opts: &LowerOptions,
) -> R<Vec<u32>> {
    Ok(lower_marked(program, desc, profile, opts, false)?.0)
}

/// Where each id of a module came from (see [`lower_attributed`]).
pub type Marks = Vec<(Word, String)>;

/// [`lower_with`], and where each id of the module came from: `(first id, origin)` in increasing id
/// order, the origin a machine instruction's mnemonic (its code's ids up to the next mark) or `(frame)`
/// (the structured control flow after a block's instructions). Ids past the last mark were made by the
/// lane module's rewrites (`shrink`), ids before the first by the prologue or as types and constants.
/// Each mark allocates one id nothing uses, so the module's ids differ from [`lower_with`]'s; its words
/// do not (`cargo xtask lane-size --by-instruction`).
pub fn lower_attributed(
    program: &Program,
    desc: &KernelLayout,
    profile: &DeviceProfile,
    opts: &LowerOptions,
) -> R<(Vec<u32>, Marks)> {
    lower_marked(program, desc, profile, opts, true)
}

fn lower_marked(
    program: &Program,
    desc: &KernelLayout,
    profile: &DeviceProfile,
    opts: &LowerOptions,
    marked: bool,
) -> R<(Vec<u32>, Marks)> {
    let types = verify(program)?;
    check_layout(program, desc)?;
    let mut cx = Cx::new(program, &types, desc, profile, *opts)?;
    if opts.mapping == Mapping::Lane {
        // Every decision of the lane analyses, before any SPIR-V (D177; refusals, L33, first).
        let mut plan = lane::plan_of(program, &types, desc, profile, opts)?;
        // L50: a block simulated again while emitting takes the plan's choice.
        cx.future_disabled = !plan.blocks.iter().any(|b| !b.fut.is_empty());
        cx.sub = std::mem::take(&mut plan.sub);
        cx.plan = Some(plan);
    }
    if marked {
        cx.marks = Some(Vec::new());
    }
    cx.module()?;
    let marks = cx.marks.take().unwrap_or_default();
    Ok((cx.finish(), marks))
}

/// The layout checks every lowering makes first: the wave size, and the workgroup's size.
pub(crate) fn check_layout(program: &Program, desc: &KernelLayout) -> R<()> {
    if program.wave_size != 32 && program.wave_size != 64 {
        return Err(LowerError::Layout(format!(
            "wave size {} (must be 32 or 64)",
            program.wave_size
        )));
    }
    if desc.wave_size != program.wave_size {
        return Err(LowerError::Layout(format!(
            "layout wave size {} differs from the program's {}",
            desc.wave_size, program.wave_size
        )));
    }
    let threads: u64 = desc.workgroup.iter().map(|&x| x as u64).product();
    if threads == 0 || threads > 1024 {
        return Err(LowerError::Layout(format!(
            "workgroup {:?} has {threads} work-items (1..=1024)",
            desc.workgroup
        )));
    }
    Ok(())
}

/// The SPIR-V types used everywhere.
#[derive(Clone, Copy)]
pub(crate) struct T {
    void: Word,
    bool: Word,
    u32: Word,
    u64: Word,
    f32: Word,
    f64: Word,
    psb_u32: Word,
    fn_u32: Word,
    wg_u32: Word,
}

/// Where a node's code goes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// A uniform value or effect, computed once in an even phase.
    Uniform,
    /// Per lane, inside the lane loop of an odd phase.
    Lane,
    /// Ballot / ReadLane / ReadFirstLane of a lane value: captured in a lane loop, available after it.
    Capture,
    /// WriteSgpr / WriteScc: after every phase, in program order.
    Deferred,
    /// Barrier: handled at the block's end.
    Ignored,
}

pub(crate) struct Cx<'a> {
    /// The workgroup's counter words (three barrier counters, then the 64-bit LDS atomic lock, D060).
    counters: Word,
    /// Int64Atomics declared.
    int64_atomics: bool,
    pub(crate) b: Builder,
    p: &'a Program,
    types: &'a Types,
    desc: &'a KernelLayout,
    pub(crate) prof: &'a DeviceProfile,
    ws: u32,
    opts: LowerOptions,
    pub(crate) t: T,
    pub(crate) glsl: Word,
    consts: HashMap<(Word, u64), Word>,
    fn_vars: Vec<Instruction>,
    interface: Vec<Word>,
    main: Word,
    cur: Word,
    pub(crate) uses_f16: bool,
    // Run-time values.
    pub(crate) zero32: Word,
    /// LocalInvocationIndex: the wave's index in its workgroup (`Node::WaveId`, D092).
    wave_in_group: Word,
    pub(crate) zero64: Word,
    /// (marker id, result, input copies) of each float primitive's code, for lane::shrink's outlining
    /// (D163, D197).
    pub(crate) spans: Vec<(Word, Word, u32)>,
    /// (marker id, last result, no copies) of each machine instruction's pure computation, for a second
    /// round of outlining over whole instructions (D235), and its other results by last result.
    inst_spans: Vec<(Word, Word, u32)>,
    inst_span_results: HashMap<Word, Vec<Word>>,
    /// [`lower_attributed`]: the first id each machine instruction's code allocates, with its mnemonic,
    /// and the first id of each block's frame (`(frame)`: the label tests, votes and branches the
    /// structured lowering emits after a block's instructions); `None` when not asked for.
    marks: Option<Marks>,
    // Variables.
    sgpr: Word,
    vgpr: Word,
    scc: Word,
    lane_var: Word,
    block_var: Word,
    /// Structured loops the emission is inside (D265: the lane mapping writes the block variable only
    /// inside them and at blocks that end with `s_barrier`).
    loop_depth: u32,
    stop: Word,
    /// Structured control flow: the label variable (structured number of the next block) and the number
    /// a pass resumes at after a barrier.
    label: Word,
    resume: Word,
    structure: Option<rdna2spv_ir::cfg::Structure>,
    done: Word,
    killed: Word,
    progress: Word,
    expected: Word,
    misaligned: Word,
    /// Whether a `Node::Refuse` fired in this wave (bool Function variable).
    refused: Word,
    scratch_fault: Word,
    check: Option<Check>,
    /// Checked mode: the uniform loads proven inside a launch segment ([`Cx::launch_segment_loads`],
    /// D132), which need no bounds test (D158).
    proven: HashSet<usize>,
    /// Set while the access being lowered is one of `proven`.
    skip_check: bool,
    /// Checked mode without records, lane mapping (D245): the first dword load of each pair of an
    /// instruction's consecutive dword loads from one address (`+o`, `+o+4`) -> the second; the pair is
    /// read as one 64-bit load where the first is lowered, and `pair_loaded` holds the second's value.
    load_pairs: HashMap<usize, usize>,
    pair_loaded: HashMap<usize, Word>,
    /// Checked mode, set by `mem_load` around its `mem_loc`: the bounds test of the access is returned in
    /// `deferred_ok` (and the address left as it is) for the load to be guarded by, instead of the address
    /// being redirected to the sink (D184).
    defer_check: bool,
    deferred_ok: Option<Word>,
    /// Set by `mem_loc`: the word whose two low bits are the access's byte position within its dword
    /// (the misaligned flag ORs it in, D242).
    pos_word: Option<Word>,
    /// Set around a uniform load whose address is a multiple of 4 by construction (a scalar load's
    /// `(x + c) & !3`): it needs no misaligned test (D242).
    aligned_addr: bool,
    /// Checked mode, set by `lane_node` around a global load's `mem_load` (D189, amended): the lane's own
    /// condition (its exec bit, and the enable of a `LoadIf`), which the load is then guarded by together
    /// with its bounds test — one selection, not the lane's around the test's — and which gates the fault
    /// the test notes, so that an inactive lane's address is never a fault.
    lane_guard: Option<Word>,
    /// Checked mode without records (D189): global access node → the SGPR pair its address was formed
    /// from ([`narrow::base_pairs`]), and per such pair the allocation chosen for its value where it was
    /// last written: Function variables of its base and of its bounds for 1, 2, 4 and 8 bytes.
    bases: HashMap<usize, u16>,
    base_sel: std::collections::BTreeMap<u16, (Word, [Word; 4])>,
    /// The node being lowered (lane and uniform nodes), for `check_global` to find its pair.
    cur_node: Option<usize>,
    lds: Option<Word>,
    /// The device address (u64) of the wave's scratch region in the runner's scratch buffer.
    private: Option<Word>,
    /// Where the code object's image is placed (u64, `Node::CodeBase`), read from the launch words when the
    /// layout places one (D155).
    code_base: Option<Word>,
    n_vgpr: u32,
    // Per instruction.
    uni: HashMap<usize, Word>,
    lane_vals: HashMap<usize, Word>,
    tmp: HashMap<usize, Word>,
    cap_vars: HashMap<usize, Word>,
    exec: Word,
    lane: Option<Word>,
    active: Option<Word>,
    // Where an error is reported.
    at: (usize, u32, String),
    tr: trace::TraceState,
    /// The lane mapping's state (`None`: wave mapping).
    lm: Option<lane::LaneMode>,
    /// The lane plan (D177): the lane analyses' decisions, computed before emission (lane mapping).
    plan: Option<lane::LanePlan>,
    /// Lane mapping: waves per kernel workgroup run as separate Vulkan workgroups (1: not split; D105).
    split: u32,
    /// Scalar loads of the entry block read in the prologue (hoist.rs, D118): node → value.
    hoisted: HashMap<usize, Word>,
    /// Lane mapping: the picks read by a subgroup shuffle (L44, D217; empty without the profile fact),
    /// and whether the shuffle capabilities are declared.
    pub(crate) sub: lane::sublane::SubPicks,
    /// D278: bpermute values the lane plan does not zero (found carried past an EXEC write).
    pub(crate) zero_off: crate::hash::HashSet<usize>,
    /// D278 off (the plan it is compared with).
    pub(crate) zero_disabled: bool,
    /// L50 off: no later ballot is formed on an earlier exchange (the plan compared without them).
    pub(crate) future_disabled: bool,
    shuffle_caps: bool,
}

impl<'a> Cx<'a> {
    fn new(
        p: &'a Program,
        types: &'a Types,
        desc: &'a KernelLayout,
        prof: &'a DeviceProfile,
        opts: LowerOptions,
    ) -> R<Self> {
        let mut b = Builder::new();
        b.set_version(1, 5);
        for c in [
            Capability::Shader,
            Capability::PhysicalStorageBufferAddresses,
            Capability::Int64,
            Capability::Float64,
        ] {
            b.capability(c);
        }
        let glsl = b.ext_inst_import("GLSL.std.450");
        b.memory_model(
            AddressingModel::PhysicalStorageBuffer64,
            MemoryModel::GLSL450,
        );
        let void = b.type_void();
        let bool_ = b.type_bool();
        let u32_ = b.type_int(32, 0);
        let u64_ = b.type_int(64, 0);
        let f32_ = b.type_float(32, None);
        let f64_ = b.type_float(64, None);
        let psb_u32 = b.type_pointer(None, StorageClass::PhysicalStorageBuffer, u32_);
        let fn_u32 = b.type_pointer(None, StorageClass::Function, u32_);
        let wg_u32 = b.type_pointer(None, StorageClass::Workgroup, u32_);
        let t = T {
            void,
            bool: bool_,
            u32: u32_,
            u64: u64_,
            f32: f32_,
            f64: f64_,
            psb_u32,
            fn_u32,
            wg_u32,
        };
        // Highest VGPR touched.
        let mut max_v = desc.workitem_id_vgprs.clamp(1, 3) - 1;
        for (_, n) in p.nodes.iter() {
            if let Node::ReadVgpr { reg, .. } | Node::WriteVgpr { reg, .. } = n {
                max_v = max_v.max(*reg as u32);
            }
        }
        Ok(Cx {
            b,
            p,
            types,
            desc,
            prof,
            ws: p.wave_size,
            opts,
            t,
            glsl,
            consts: HashMap::default(),
            fn_vars: Vec::new(),
            interface: Vec::new(),
            main: 0,
            cur: 0,
            uses_f16: false,
            zero32: 0,
            wave_in_group: 0,
            zero64: 0,
            spans: Vec::new(),
            inst_spans: Vec::new(),
            inst_span_results: HashMap::default(),
            marks: None,
            sgpr: 0,
            vgpr: 0,
            scc: 0,
            lane_var: 0,
            block_var: 0,
            loop_depth: 0,
            stop: 0,
            label: 0,
            resume: 0,
            structure: None,
            done: 0,
            killed: 0,
            progress: 0,
            expected: 0,
            misaligned: 0,
            refused: 0,
            scratch_fault: 0,
            check: None,
            proven: HashSet::default(),
            skip_check: false,
            load_pairs: HashMap::default(),
            pair_loaded: HashMap::default(),
            bases: HashMap::default(),
            base_sel: Default::default(),
            cur_node: None,
            defer_check: false,
            deferred_ok: None,
            pos_word: None,
            aligned_addr: false,
            lane_guard: None,
            lds: None,
            private: None,
            code_base: None,
            n_vgpr: max_v + 2,
            uni: HashMap::default(),
            hoisted: HashMap::default(),
            lane_vals: HashMap::default(),
            tmp: HashMap::default(),
            cap_vars: HashMap::default(),
            exec: 0,
            lane: None,
            active: None,
            at: (0, 0, String::new()),
            tr: trace::TraceState::default(),
            counters: 0,
            int64_atomics: false,
            lm: None,
            plan: None,
            split: 1,
            // The lane plan's (computed once, there; moved here before emission).
            sub: lane::sublane::SubPicks::default(),
            zero_off: Default::default(),
            zero_disabled: false,
            future_disabled: false,
            shuffle_caps: false,
        })
    }

    fn finish(mut self) -> Vec<u32> {
        if self.uses_f16 {
            self.b.capability(Capability::Float16);
            self.b.capability(Capability::Int16);
        }
        if !self.prof.preserves_subnormals_f32 && self.prof.denorm_preserve_mode_honoured {
            // f32 arithmetic runs on the device's own instructions under DenormPreserve (D168).
            self.b.capability(Capability::DenormPreserve);
            self.b
                .execution_mode(self.main, ExecutionMode::DenormPreserve, [32]);
        }
        // Function variables go first in the entry block.
        let vars = std::mem::take(&mut self.fn_vars);
        let f = &mut self.b.module_mut().functions[0];
        for (i, v) in vars.into_iter().enumerate() {
            f.blocks[0].instructions.insert(i, v);
        }
        let lane = self.lm.is_some();
        let spans = std::mem::take(&mut self.spans);
        let inst_spans = std::mem::take(&mut self.inst_spans);
        let inst_span_results = std::mem::take(&mut self.inst_span_results);
        if lane {
            // D144: one selection per run of effects under the same guard.
            lane::fuse_guards(self.b.module_mut());
        }
        let texel = self.texel_lds();
        let mut m = self.b.module();
        if lane {
            // D162: scalar registers, forwarded values and dead code out of the lane module.
            lane::shrink(
                &mut m,
                lane::Passes::from_env(),
                &spans,
                &inst_spans,
                &inst_span_results,
            );
        }
        if texel {
            // D288: workgroup memory into the texel buffer, last. A module with an access the rewrite
            // does not know keeps its workgroup memory (correct, only slower to compile).
            let at = lane::RegionOf {
                fold: self.opts.fold,
                split: self.split,
                workgroup: self.desc.workgroup,
            };
            if let Err(why) = lane::lds_to_texel(&mut m, at) {
                debug_assert!(false, "texel LDS refused: {why}");
            }
        }
        use rspirv::binary::Assemble;
        m.assemble()
    }

    /// Whether this lane module keeps its workgroup memory in the texel buffer (D288): on a profile that
    /// asks for it.
    fn texel_lds(&self) -> bool {
        self.opts.mapping == Mapping::Lane && self.prof.lds_in_texel_buffer
    }

    /// [`lower_attributed`]: the ids from here on are `origin`'s.
    pub(crate) fn mark(&mut self, origin: &str) {
        if self.marks.is_some() {
            let id = self.b.id();
            if let Some(m) = self.marks.as_mut() {
                m.push((id, origin.to_string()));
            }
        }
    }

    fn unsupported(&self, reason: impl Into<String>) -> LowerError {
        LowerError::Unsupported {
            block: self.at.0,
            pc: self.at.1,
            text: self.at.2.clone(),
            reason: reason.into(),
        }
    }

    // ---- small helpers -------------------------------------------------------------------------

    pub(crate) fn c32(&mut self, v: u32) -> Word {
        self.konst(self.t.u32, v as u64, false)
    }
    pub(crate) fn c64(&mut self, v: u64) -> Word {
        self.konst(self.t.u64, v, true)
    }
    pub(crate) fn konst(&mut self, ty: Word, v: u64, wide: bool) -> Word {
        if let Some(&id) = self.consts.get(&(ty, v)) {
            return id;
        }
        let id = if wide {
            self.b.constant_bit64(ty, v)
        } else {
            self.b.constant_bit32(ty, v as u32)
        };
        self.consts.insert((ty, v), id);
        id
    }
    pub(crate) fn ctrue(&mut self) -> Word {
        if let Some(&id) = self.consts.get(&(self.t.bool, 1)) {
            return id;
        }
        let id = self.b.constant_true(self.t.bool);
        self.consts.insert((self.t.bool, 1), id);
        id
    }
    pub(crate) fn cfalse(&mut self) -> Word {
        if let Some(&id) = self.consts.get(&(self.t.bool, 0)) {
            return id;
        }
        let id = self.b.constant_false(self.t.bool);
        self.consts.insert((self.t.bool, 0), id);
        id
    }

    fn fn_var(&mut self, ty: Word, init: Option<Word>) -> Word {
        let ptr = self.b.type_pointer(None, StorageClass::Function, ty);
        let id = self.b.id();
        let mut ops = vec![Operand::StorageClass(StorageClass::Function)];
        if let Some(i) = init {
            ops.push(Operand::IdRef(i));
        }
        self.fn_vars
            .push(Instruction::new(Op::Variable, Some(ptr), Some(id), ops));
        id
    }

    /// A module-scope variable initialised to zero (`OpConstantNull`; Workgroup variables need the
    /// Vulkan 1.3 feature shaderZeroInitializeWorkgroupMemory, which the runner enables).
    fn global_var_zeroed(&mut self, ty: Word, class: StorageClass) -> Word {
        self.global_var_init(ty, class, Init::Null)
    }

    fn global_var(&mut self, ty: Word, class: StorageClass) -> Word {
        self.global_var_init(ty, class, Init::None)
    }

    /// A module-scope variable with the initializer `init` (a constant).
    fn global_var_with(&mut self, ty: Word, class: StorageClass, init: Word) -> Word {
        self.global_var_init(ty, class, Init::Const(init))
    }

    fn global_var_init(&mut self, ty: Word, class: StorageClass, init: Init) -> Word {
        let ptr = self.b.type_pointer(None, class, ty);
        let mut ops = vec![Operand::StorageClass(class)];
        match init {
            Init::None => {}
            Init::Null => ops.push(Operand::IdRef(self.b.constant_null(ty))),
            Init::Const(c) => ops.push(Operand::IdRef(c)),
        }
        let id = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(Op::Variable, Some(ptr), Some(id), ops));
        self.interface.push(id);
        id
    }

    fn builtin(&mut self, ty: Word, bi: BuiltIn) -> R<Word> {
        let v = self.global_var(ty, StorageClass::Input);
        self.b
            .decorate(v, Decoration::BuiltIn, [Operand::BuiltIn(bi)]);
        Ok(self.b.load(ty, None, v, None, [])?)
    }

    fn begin(&mut self, label: Word) -> R<()> {
        self.b.begin_block(Some(label))?;
        self.cur = label;
        Ok(())
    }

    pub(crate) fn nc(&mut self, id: Word) -> Word {
        self.b.decorate(id, Decoration::NoContraction, []);
        id
    }

    pub(crate) fn glsl_op(&mut self, ty: Word, op: spirv::GlslStd450Op, args: &[Word]) -> R<Word> {
        let g = self.glsl;
        Ok(self.b.ext_inst(
            ty,
            None,
            g,
            op as u32,
            args.iter().map(|&a| Operand::IdRef(a)),
        )?)
    }

    fn load_u32(&mut self, ptr: Word) -> R<Word> {
        Ok(self.b.load(self.t.u32, None, ptr, None, [])?)
    }
    fn load_bool(&mut self, ptr: Word) -> R<Word> {
        Ok(self.b.load(self.t.bool, None, ptr, None, [])?)
    }
    fn store(&mut self, ptr: Word, v: Word) -> R<()> {
        Ok(self.b.store(ptr, v, None, [])?)
    }

    fn sgpr_ptr(&mut self, reg: u32) -> R<Word> {
        let i = self.c32(reg);
        Ok(self.b.access_chain(self.t.fn_u32, None, self.sgpr, [i])?)
    }

    fn vgpr_ptr(&mut self, reg: u32, lane: Word) -> R<Word> {
        if self.lane_mode() {
            // The invocation's own registers, constant indices.
            let i = self.c32(reg);
            return Ok(self.b.access_chain(self.t.fn_u32, None, self.vgpr, [i])?);
        }
        let base = self.c32(reg * self.ws);
        let i = self.b.i_add(self.t.u32, None, base, lane)?;
        Ok(self.b.access_chain(self.t.fn_u32, None, self.vgpr, [i])?)
    }

    /// `if cond { f() }`; returns the phi of f's value and zero of `ty` when f gives one.
    fn guarded(
        &mut self,
        cond: Word,
        ty: Option<Word>,
        f: impl FnOnce(&mut Self) -> R<Option<Word>>,
    ) -> R<Option<Word>> {
        let then_l = self.b.id();
        let merge = self.b.id();
        let pre = self.cur;
        self.b.selection_merge(merge, SelectionControl::NONE)?;
        self.b.branch_conditional(cond, then_l, merge, [])?;
        self.begin(then_l)?;
        let v = f(self)?;
        let then_end = self.cur;
        self.b.branch(merge)?;
        self.begin(merge)?;
        match (ty, v) {
            (Some(ty), Some(v)) => {
                let z = self.zero_of(ty);
                Ok(Some(self.b.phi(ty, None, [(v, then_end), (z, pre)])?))
            }
            _ => Ok(None),
        }
    }

    fn zero_of(&mut self, ty: Word) -> Word {
        if ty == self.t.u64 {
            self.c64(0)
        } else if ty == self.t.bool {
            self.cfalse()
        } else {
            self.c32(0)
        }
    }

    /// A top-tested loop over the lanes; a loop left before lane == wave size marks the wave cut short.
    fn lane_loop(&mut self, mut body: impl FnMut(&mut Self, Word) -> R<()>) -> R<()> {
        if let Some(m) = &self.lm {
            let lane = m.lane_id;
            return body(self, lane);
        }
        if self.opts.lanes == Lanes::Unrolled {
            for l in 0..self.ws {
                let lane = self.c32(l);
                body(self, lane)?;
            }
            return Ok(());
        }
        let z = self.c32(0);
        self.store(self.lane_var, z)?;
        let (header, body_l, cont, merge) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
        self.b.branch(header)?;
        self.begin(header)?;
        let lane = self.load_u32(self.lane_var)?;
        let ws = self.c32(self.ws);
        let go = self.b.u_less_than(self.t.bool, None, lane, ws)?;
        self.b
            .loop_merge(merge, cont, LoopControl::DONT_UNROLL, [])?;
        self.b.branch_conditional(go, body_l, merge, [])?;
        self.begin(body_l)?;
        body(self, lane)?;
        self.b.branch(cont)?;
        self.begin(cont)?;
        let one = self.c32(1);
        let next = self.b.i_add(self.t.u32, None, lane, one)?;
        self.store(self.lane_var, next)?;
        self.bump(self.progress, one)?;
        self.b.branch(header)?;
        self.begin(merge)?;
        self.bump(self.expected, ws)
    }

    /// `*var += by` (u32).
    fn bump(&mut self, var: Word, by: Word) -> R<()> {
        let x = self.load_u32(var)?;
        let y = self.b.i_add(self.t.u32, None, x, by)?;
        self.store(var, y)
    }

    // ---- the module ----------------------------------------------------------------------------

    fn module(&mut self) -> R<()> {
        let t = self.t;
        let ws = self.ws;
        let lsz = self.desc.waves_per_workgroup();
        let lane_mapping = self.opts.mapping == Mapping::Lane;
        if lane_mapping {
            self.split = self.lane_plan().split; // L17
        }
        // Invocations per workgroup: one per wave, or one per lane in the lane mapping (one wave's lanes
        // when the kernel workgroup's waves run as workgroups of their own, D105).
        let inv = if self.split > 1 {
            ws
        } else if lane_mapping {
            lsz * ws
        } else {
            lsz
        };
        // Push constants (entry.rs).
        let pc = self.push_constant_block();
        // Workgroup counters and LDS.
        // Three barrier counters, and the lock word of 64-bit LDS atomics when there are any
        // (lower/atomic.rs).
        let n_counters = self.counter_words();
        let nc = self.c32(n_counters);
        let arr = self.b.type_array(t.u32, nc);
        let counters = self.global_var(arr, StorageClass::Workgroup);
        self.counters = counters;
        if self.desc.lds_bytes > 0 {
            // Checked mode adds two spare words that take out-of-bounds accesses (see `mem_loc`).
            let spare = if self.opts.checked.is_some() { 2 } else { 0 };
            let n = self.c32(self.desc.lds_bytes.div_ceil(4) + spare);
            let arr = self.b.type_array(t.u32, n);
            self.lds = Some(self.global_var(arr, StorageClass::Workgroup));
        }

        let fn_ty = self.b.type_function(t.void, []);
        self.main = self
            .b
            .begin_function(t.void, None, FunctionControl::NONE, fn_ty)?;
        let entry = self.b.id();
        self.begin(entry)?;

        // Register files and state variables.
        let n128 = self.c32(128);
        let sarr = self.b.type_array(t.u32, n128);
        let snull = self.b.constant_null(sarr);
        self.sgpr = self.fn_var(sarr, Some(snull));
        let nv = self.c32(self.n_vgpr * if lane_mapping { 1 } else { ws });
        let varr = self.b.type_array(t.u32, nv);
        let vnull = self.b.constant_null(varr);
        self.vgpr = self.fn_var(varr, Some(vnull));
        let f = self.cfalse();
        self.scc = self.fn_var(t.bool, Some(f));
        let z = self.c32(0);
        self.lane_var = self.fn_var(t.u32, Some(z));
        self.block_var = self.fn_var(t.u32, Some(z));
        self.stop = self.fn_var(t.bool, Some(f));
        if self.opts.control_flow == ControlFlow::Structured {
            self.structured_vars()?;
        }
        self.done = self.fn_var(t.bool, Some(f));
        self.killed = self.fn_var(t.bool, Some(f));
        self.progress = self.fn_var(t.u32, Some(z));
        self.expected = self.fn_var(t.u32, Some(z));
        // D242: the OR of the byte positions of the dword accesses (and 1 for each straddling 16-bit
        // one); misaligned when its two low bits are not zero.
        self.misaligned = self.fn_var(t.u32, Some(z));
        // Only modules with run-time refusals (typed buffer accesses, D097) carry the flag.
        if self
            .p
            .nodes
            .iter()
            .any(|(_, n)| matches!(n, Node::Refuse { .. }))
        {
            self.refused = self.fn_var(t.bool, Some(f));
        }
        if self.desc.scratch_bytes > 0 {
            self.scratch_fault = self.fn_var(t.bool, Some(f));
        }
        let all_done = self.fn_var(t.bool, Some(f));
        let iter = self.fn_var(t.u32, Some(z));

        // Push-constant fields.
        let launch_addr = self.push_field(pc, t.u64, 0)?;
        let flags_addr = self.push_field(pc, t.u64, 1)?;
        let grid = [
            self.push_field(pc, t.u32, 2)?,
            self.push_field(pc, t.u32, 3)?,
            self.push_field(pc, t.u32, 4)?,
        ];
        self.zero32 = self.push_field(pc, t.u32, 5)?;
        self.zero64 = self.b.u_convert(t.u64, None, self.zero32)?;

        let v3 = self.b.type_vector(t.u32, 3);
        let li = self.builtin(t.u32, BuiltIn::LocalInvocationIndex)?;
        self.wave_in_group = li;
        let gid_v = self.builtin(v3, BuiltIn::WorkgroupId)?;
        let nwg_v = self.builtin(v3, BuiltIn::NumWorkgroups)?;
        let mut gid = [0; 3];
        let mut nwg = [0; 3];
        for d in 0..3 {
            gid[d] = self.b.composite_extract(t.u32, None, gid_v, [d as u32])?;
            nwg[d] = self.b.composite_extract(t.u32, None, nwg_v, [d as u32])?;
        }
        // Split waves (D105): the dispatch is `split` times wider in x; Vulkan workgroup x is the kernel
        // workgroup x times `split` plus the wave.
        let split_wave = if self.split > 1 {
            let w = self.c32(self.split);
            let wave = self.b.u_mod(t.u32, None, gid[0], w)?;
            gid[0] = self.b.u_div(t.u32, None, gid[0], w)?;
            nwg[0] = self.b.u_div(t.u32, None, nwg[0], w)?;
            self.b
                .module_processed(format!("{}{}", lane::SPLIT_MARK, self.split));
            Some(wave)
        } else {
            None
        };
        // D288: a texel-LDS module is dispatched in chunks (`vkCmdDispatchBase`), where `NumWorkgroups`
        // counts the chunk: the kernel's workgroup counts come from the pushed grid.
        if self.texel_lds() && self.opts.fold.is_none() {
            let one = self.c32(1);
            for d in 0..3 {
                let wg = self.c32(self.desc.workgroup[d]);
                let g1 = self.b.i_sub(t.u32, None, grid[d], one)?;
                let q = self.b.u_div(t.u32, None, g1, wg)?;
                nwg[d] = self.b.i_add(t.u32, None, q, one)?;
            }
        }
        // A grid past the device's dispatch limits, folded into rows (D253; split waves are off there).
        if let Some(w) = self.opts.fold {
            if self.split > 1 {
                return Err(LowerError::Layout(
                    "a folded grid (D253) with split waves (D105): lower with whole_workgroups"
                        .into(),
                ));
            }
            self.fold_grid(w, &grid, &mut gid, &mut nwg)?;
        }
        // The wave this invocation belongs to (the invocation itself in the wave mapping).
        let wave_ix = if lane_mapping {
            self.lane_setup(li, split_wave)?;
            self.lm.as_ref().expect("set up").wave
        } else {
            li
        };

        // The size of this (possibly partial) workgroup and the wave's valid lanes.
        let mut size = [0; 3];
        for d in 0..3 {
            let wg = self.c32(self.desc.workgroup[d]);
            let start = self.b.i_mul(t.u32, None, gid[d], wg)?;
            let rest = self.b.i_sub(t.u32, None, grid[d], start)?;
            let lt = self.b.u_less_than(t.bool, None, rest, wg)?;
            size[d] = self.b.select(t.u32, None, lt, rest, wg)?;
        }
        let s01 = self.b.i_mul(t.u32, None, size[0], size[1])?;
        let threads = self.b.i_mul(t.u32, None, s01, size[2])?;
        let wsc = self.c32(ws);
        let base = self.b.i_mul(t.u32, None, wave_ix, wsc)?;
        let has = self.b.u_greater_than(t.bool, None, threads, base)?;
        let left = self.b.i_sub(t.u32, None, threads, base)?;
        let lt = self.b.u_less_than(t.bool, None, left, wsc)?;
        let clamped = self.b.select(t.u32, None, lt, left, wsc)?;
        let count = self.b.select(t.u32, None, has, clamped, z)?;
        let c64v = self.c32(64);
        let full = self.b.i_equal(t.bool, None, count, c64v)?;
        let one64 = self.c64(1);
        let sh = self.b.shift_left_logical(t.u64, None, one64, count)?;
        let m = self.b.i_sub(t.u64, None, sh, one64)?;
        let all = self.c64(u64::MAX);
        let exec = self.b.select(t.u64, None, full, all, m)?;

        // Initial SGPRs.
        let (mut k, init_vals) = self.initial_sgprs(pc, launch_addr, gid)?;
        // The code object image's address follows the Const words (D155).
        if self.desc.code_base.is_some() {
            self.code_base = Some(self.launch_u64(launch_addr, k)?);
            k += 2;
        }
        // Checked mode: the uniform loads that need no bounds test (D158); before the hoisting, which in
        // checked mode takes only those.
        if self.opts.checked.is_some() {
            self.proven = self.launch_segment_loads();
        }
        // Scalar loads of the entry block, once at the top (D118).
        let loads = self.hoistable();
        self.hoisted = self.emit_hoisted(&loads, &init_vals)?;
        self.scratch_region(launch_addr, k, gid, nwg, wave_ix)?;
        if let Some(n) = self.opts.checked {
            self.check_setup(n, pc, launch_addr, k, gid, nwg, wave_ix)?;
            self.narrow_setup()?;
        }
        if self.opts.trace.is_some() {
            // The trace buffer's address follows the Const words and the scratch address.
            let word = k
                + if self.desc.scratch_bytes > 0 { 2 } else { 0 }
                + self.opts.checked.map_or(0, |n| 2 + 4 * n as u64);
            let row = self.b.i_mul(t.u32, None, nwg[1], gid[2])?;
            let row = self.b.i_add(t.u32, None, row, gid[1])?;
            let lin = self.b.i_mul(t.u32, None, row, nwg[0])?;
            let lin = self.b.i_add(t.u32, None, lin, gid[0])?;
            self.trace_setup(launch_addr, word, lin, li)?;
        }
        let lo = self.b.u_convert(t.u32, None, exec)?;
        let c32s = self.c64(32);
        let hi64 = self.b.shift_right_logical(t.u64, None, exec, c32s)?;
        let hi = self.b.u_convert(t.u32, None, hi64)?;
        let p = self.sgpr_ptr(EXEC_LO as u32)?;
        self.store(p, lo)?;
        let p = self.sgpr_ptr(EXEC_LO as u32 + 1)?;
        self.store(p, hi)?;
        if lane_mapping {
            self.lane_masks_init()?; // lane/masks.rs: own bits of the mask registers
        }
        let none = self.b.i_equal(t.bool, None, count, z)?;
        self.store(self.done, none)?;
        if lane_mapping {
            self.lane_set_live(none)?; // D142: an empty split wave's entry chain runs off
        }
        if self.lane_multi() {
            // Every wave's label copy, without a publication (D108).
            let entry = self
                .structure
                .as_ref()
                .map_or(0, |s| s.number[self.p.entry().index()]);
            self.lane_init_labels(threads, entry, structured::END)?;
        }
        self.workitem_ids(count, base, size, s01)?;

        self.clear_lds(li, inv)?;

        // Counters start at zero.
        let wg_scope = self.c32(spirv::Scope::Workgroup as u32);
        let relaxed = self.c32(0);
        let sem = self.c32(0x8 | 0x40 | 0x100); // AcquireRelease | UniformMemory | WorkgroupMemory
        let is0 = self.b.i_equal(t.bool, None, li, z)?;
        let ones = self.c32(u32::MAX);
        let keep = self.b.select(t.u32, None, is0, z, ones)?;
        // One wave alone with no barrier and no LDS (D105): the counters are never used. The lane
        // mapping never counts barriers (D121): of its counter words only the lock of 64-bit LDS
        // atomics (word 3) is read, and clearing the three others cost every invocation an atomic,
        // which lavapipe runs as a loop over its SIMD lanes (D145).
        let solo = self.lane_solo();
        if !solo {
            let first = if self.lane_mode() {
                BARRIER_COUNTERS
            } else {
                0
            };
            for i in first..self.counter_words() {
                let ci = self.c32(i);
                let p = self.b.access_chain(t.wg_u32, None, counters, [ci])?;
                self.b.atomic_and(t.u32, None, p, wg_scope, relaxed, keep)?;
            }
            self.b.control_barrier(wg_scope, wg_scope, sem)?;
        }

        if self.lane_one_pass() {
            // One wave alone with no barrier and no LDS (D142), or converged waves that meet every
            // barrier in place (D143): one pass runs the program to its end, so no outer loop.
            self.structured()?;
        } else {
            if !self.lane_mode() {
                // Lanes past the workgroup (D147): lavapipe runs a workgroup in 8-wide SIMD batches and
                // fills a last, partial batch with lanes whose `LocalInvocationIndex` is `inv` or more.
                // Their stores and atomics are masked, but they take part in every loop's exit test: in
                // the outer loop such a lane read each round's counter as 0 and held the loop, so its
                // batch went on meeting barriers (coroutine switches) after the other batches had
                // returned, and lavapipe ends a workgroup once one batch has returned: the real waves
                // of the partial batch never wrote their flags. These lanes start done, so they leave
                // the outer loop at its first test. No invocation of a conforming device has such an
                // index. (A lane-mapping workgroup is whole waves, a multiple of 32: no such lanes.)
                let invc = self.c32(inv);
                let beyond = self.b.u_greater_than_equal(t.bool, None, li, invc)?;
                self.store(all_done, beyond)?;
            }
            self.outer_loop(all_done, iter, inv, keep)?;
        }

        // The wave's flag. A check of a loop's own exit condition after the loop would be folded away by
        // the compiler (it "knows" the condition held), so the evidence is independent of the loops'
        // conditions: `done` is set only by s_endpgm, and the lane loops count their iterations.
        let kd = self.load_bool(self.killed)?;
        let dn = self.load_bool(self.done)?;
        let pr = self.load_u32(self.progress)?;
        let ex = self.load_u32(self.expected)?;
        let same = self.b.i_equal(t.bool, None, pr, ex)?;
        let ok = self.b.logical_and(t.bool, None, dn, same)?;
        let nk = self.b.logical_not(t.bool, None, kd)?;
        let ok = self.b.logical_and(t.bool, None, ok, nk)?;
        // A cut-short wave also says where it was: the dispatcher's block number in bits 8..32.
        let blk = self.load_u32(self.block_var)?;
        let eight = self.c32(FLAG_BLOCK_SHIFT);
        let blk = self.b.shift_left_logical(t.u32, None, blk, eight)?;
        let fc = self.c32(FLAG_CUT_SHORT);
        let fc = self.b.bitwise_or(t.u32, None, fc, blk)?;
        let ff = self.c32(FLAG_FINISHED);
        let flag = self.b.select(t.u32, None, ok, ff, fc)?;
        let mis = self.load_u32(self.misaligned)?;
        let three = self.c32(3);
        let mis = self.b.bitwise_and(t.u32, None, mis, three)?;
        let z = self.c32(0);
        let mis = self.b.i_not_equal(t.bool, None, mis, z)?;
        let fm = self.c32(FLAG_MISALIGNED);
        let flag = self.b.select(t.u32, None, mis, fm, flag)?;
        let flag = if self.refused != 0 {
            let rf = self.load_bool(self.refused)?;
            let fr = self.c32(FLAG_REFUSED);
            self.b.select(t.u32, None, rf, fr, flag)?
        } else {
            flag
        };
        let flag = if self.private.is_some() {
            let sf = self.load_bool(self.scratch_fault)?;
            let fs = self.c32(FLAG_SCRATCH_FAULT);
            self.b.select(t.u32, None, sf, fs, flag)?
        } else {
            flag
        };
        // An out-of-bounds access explains whatever followed it: it takes precedence.
        let flag = self.check_flag(flag)?;
        // An empty split wave finishes whatever its entry chain, run off, left in the flags (D142).
        let flag = self.lane_live_flag(flag)?;
        let lszc = self.c32(lsz);
        let row = self.b.i_mul(t.u32, None, nwg[1], gid[2])?;
        let row = self.b.i_add(t.u32, None, row, gid[1])?;
        let lin = self.b.i_mul(t.u32, None, row, nwg[0])?;
        let lin = self.b.i_add(t.u32, None, lin, gid[0])?;
        let lin = self.b.i_mul(t.u32, None, lin, lszc)?;
        let lin = self.b.i_add(t.u32, None, lin, wave_ix)?;
        let lin64 = self.b.u_convert(t.u64, None, lin)?;
        let four = self.c64(4);
        let off = self.b.i_mul(t.u64, None, lin64, four)?;
        let a = self.b.i_add(t.u64, None, flags_addr, off)?;
        let store_flag = |cx: &mut Self, flag: Word| -> R<Option<Word>> {
            let fp = cx.b.convert_u_to_ptr(t.psb_u32, None, a)?;
            cx.b.store(
                fp,
                flag,
                Some(MemoryAccess::ALIGNED),
                [Operand::LiteralBit32(4)],
            )?;
            Ok(None)
        };
        if lane_mapping {
            // One flag per wave from all its lanes: the maximum of its flag words (D107, D116).
            self.lane_flag_store(flags_addr, lin, flag)?;
        } else {
            store_flag(self, flag)?;
        }
        self.b.ret()?;
        self.b.end_function()?;
        if lane_mapping {
            // L51 (D285): the exchange function the entry point's calls named.
            self.lane_emit_ballot_fn()?;
        }
        self.b
            .execution_mode(self.main, ExecutionMode::LocalSize, [inv, 1, 1]);
        let iface = self.interface.clone();
        self.b
            .entry_point(ExecutionModel::GLCompute, self.main, "main", iface);
        Ok(())
    }

    /// The outer loop: one pass per barrier, until every wave (invocation in the wave mapping) has ended.
    fn outer_loop(&mut self, all_done: Word, iter: Word, inv: u32, keep: Word) -> R<()> {
        let t = self.t;
        let (oh, ob, oc, om) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
        self.b.branch(oh)?;
        self.begin(oh)?;
        let ad = self.load_bool(all_done)?;
        let go = self.b.logical_not(t.bool, None, ad)?;
        self.b.loop_merge(om, oc, LoopControl::DONT_UNROLL, [])?;
        self.b.branch_conditional(go, ob, om, [])?;
        self.begin(ob)?;
        let lane_mapping = self.lane_mode();
        if lane_mapping {
            // Every invocation runs every pass (its barriers must be reached by all); a wave that has
            // ended takes part with the label END.
            self.structured()?;
        } else {
            let d = self.load_bool(self.done)?;
            let nd = self.b.logical_not(t.bool, None, d)?;
            self.guarded(nd, None, |cx| {
                match cx.opts.control_flow {
                    ControlFlow::Structured => cx.structured()?,
                    ControlFlow::Dispatcher => cx.dispatcher()?,
                }
                Ok(None)
            })?;
        }
        let d = self.load_bool(self.done)?;
        if lane_mapping {
            // Every invocation knows whether every wave has ended: no counters (D121).
            self.lane_round(d, all_done)?;
        } else {
            self.barrier_round(d, iter, all_done, inv, keep)?;
        }
        self.b.branch(oc)?;
        self.begin(oc)?;
        self.b.branch(oh)?;
        self.begin(om)
    }

    /// One barrier round of the outer loop: counts the finished invocations (`d`) in the rotating counter
    /// of round `iter`, meets the workgroup at one barrier and sets `all_done` when all `inv` have
    /// finished; `keep` is 0 in invocation 0 (which clears the counter two rounds old), else all ones.
    fn barrier_round(
        &mut self,
        d: Word,
        iter: Word,
        all_done: Word,
        inv: u32,
        keep: Word,
    ) -> R<()> {
        let t = self.t;
        let z = self.c32(0);
        let three = self.c32(BARRIER_COUNTERS);
        let counters = self.counters;
        let wg_scope = self.c32(spirv::Scope::Workgroup as u32);
        let relaxed = self.c32(0);
        let sem = self.c32(0x8 | 0x40 | 0x100); // AcquireRelease | UniformMemory | WorkgroupMemory
        let it = self.load_u32(iter)?;
        let slot = self.b.u_mod(t.u32, None, it, three)?;
        let two = self.c32(2);
        let it2 = self.b.i_add(t.u32, None, it, two)?;
        let old_slot = self.b.u_mod(t.u32, None, it2, three)?;
        let one = self.c32(1);
        let inc = self.b.select(t.u32, None, d, one, z)?;
        let p = self.b.access_chain(t.wg_u32, None, counters, [slot])?;
        self.b
            .atomic_i_add(t.u32, None, p, wg_scope, relaxed, inc)?;
        self.b.control_barrier(wg_scope, wg_scope, sem)?;
        let n = self.b.atomic_load(t.u32, None, p, wg_scope, relaxed)?;
        let po = self.b.access_chain(t.wg_u32, None, counters, [old_slot])?;
        self.b
            .atomic_and(t.u32, None, po, wg_scope, relaxed, keep)?;
        let invc = self.c32(inv);
        let fin = self.b.i_equal(t.bool, None, n, invc)?;
        self.store(all_done, fin)?;
        let it1 = self.b.i_add(t.u32, None, it, one)?;
        self.store(iter, it1)?;
        Ok(())
    }

    /// `stop = false; while !stop { switch block { … } }`
    fn dispatcher(&mut self) -> R<()> {
        let t = self.t;
        let f = self.cfalse();
        self.store(self.stop, f)?;
        let (h, body, cont, merge) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
        self.b.branch(h)?;
        self.begin(h)?;
        let s = self.load_bool(self.stop)?;
        let go = self.b.logical_not(t.bool, None, s)?;
        self.b
            .loop_merge(merge, cont, LoopControl::DONT_UNROLL, [])?;
        self.b.branch_conditional(go, body, merge, [])?;
        self.begin(body)?;
        let blk = self.load_u32(self.block_var)?;
        let sw_merge = self.b.id();
        let default = self.b.id();
        let labels: Vec<Word> = (0..self.p.blocks.len()).map(|_| self.b.id()).collect();
        self.b.selection_merge(sw_merge, SelectionControl::NONE)?;
        self.b.switch(
            blk,
            default,
            labels
                .iter()
                .enumerate()
                .map(|(i, &l)| (Operand::LiteralBit32(i as u32), l)),
        )?;
        for (i, &l) in labels.iter().enumerate() {
            self.begin(l)?;
            self.block(i)?;
            self.b.branch(sw_merge)?;
        }
        // An unknown block number cannot happen; end the wave and flag it.
        self.begin(default)?;
        let tr = self.ctrue();
        self.store(self.stop, tr)?;
        self.store(self.done, tr)?;
        self.store(self.killed, tr)?;
        self.b.branch(sw_merge)?;
        self.begin(sw_merge)?;
        self.b.branch(cont)?;
        self.begin(cont)?;
        self.b.branch(h)?;
        self.begin(merge)
    }

    fn block(&mut self, bi: usize) -> R<()> {
        let barrier_at_end = self.block_insts(bi)?;
        let block = &self.p.blocks[Handle::from_index(bi)];
        let t = self.t;
        match block.terminator {
            Terminator::Jump(to) => {
                let c = self.c32(to.index() as u32);
                self.store(self.block_var, c)?;
            }
            Terminator::Branch {
                cond,
                taken,
                not_taken,
            } => {
                let c = *self
                    .uni
                    .get(&cond.index())
                    .ok_or_else(|| self.unsupported("branch condition not computed"))?;
                let a = self.c32(taken.index() as u32);
                let b = self.c32(not_taken.index() as u32);
                let v = self.b.select(t.u32, None, c, a, b)?;
                self.store(self.block_var, v)?;
            }
            Terminator::End => {
                let tr = self.ctrue();
                self.store(self.done, tr)?;
                self.store(self.stop, tr)?;
            }
        }
        if barrier_at_end {
            let tr = self.ctrue();
            self.store(self.stop, tr)?;
        }
        Ok(())
    }

    /// The code of block `bi`'s instructions; true when the block ends with an `s_barrier`.
    fn block_insts(&mut self, bi: usize) -> R<bool> {
        let p = self.p;
        let block = &p.blocks[Handle::from_index(bi)];
        let n = block.insts.len();
        let mut barrier_at_end = false;
        for (k, inst) in block.insts.iter().enumerate() {
            self.at = (bi, inst.pc, inst.text.clone());
            self.mark(inst.text.split_whitespace().next().unwrap_or("?"));
            let has_barrier = p
                .inst_nodes(inst)
                .any(|(_, nd)| matches!(nd, Node::Barrier));
            if has_barrier {
                if k + 1 != n {
                    return Err(self.unsupported(
                        "s_barrier must end its block (the lifter starts a block after it)",
                    ));
                }
                barrier_at_end = true;
            }
            if k == 0 {
                self.trace_block_start(inst)?;
            }
            self.trace_begin(inst)?;
            self.inst(inst.nodes.clone())?;
            self.trace_end()?;
            self.narrow_after(inst.nodes.clone())?;
        }
        Ok(barrier_at_end)
    }

    // ---- one machine instruction ---------------------------------------------------------------

    fn shape(&self, i: usize) -> Option<Shape> {
        self.types[i].map(|t| t.1)
    }
    pub(crate) fn ty(&self, i: usize) -> Ty {
        self.types[i].map(|t| t.0).unwrap_or(Ty::B32)
    }
    fn is_lane(&self, h: Handle<Node>) -> bool {
        self.shape(h.index()) == Some(Shape::Lane)
    }

    fn kind(&self, i: usize) -> Kind {
        let node = &self.p.nodes[Handle::from_index(i)];
        match *node {
            // L44: a subgroup-local pick's leaves are read by its shuffle, in the lane phase.
            Node::ReadLane { .. } if self.sub.inner.contains(&i) => Kind::Lane,
            Node::Ballot { cond: a } | Node::ReadLane { a, .. } | Node::ReadFirstLane { a } => {
                if self.is_lane(a) {
                    Kind::Capture
                } else {
                    Kind::Uniform
                }
            }
            Node::WriteSgpr { .. } | Node::WriteScc { .. } => Kind::Deferred,
            Node::Barrier => Kind::Ignored,
            Node::WriteVgpr { .. } => Kind::Lane,
            // A Uniform atomic runs once for the wave, outside the lane loop (D092).
            Node::Atomic { .. } => {
                if self.shape(i) == Some(Shape::Uniform) {
                    Kind::Uniform
                } else {
                    Kind::Lane
                }
            }
            Node::LoadIf { .. } | Node::StoreIf { .. } | Node::AtomicIf { .. } => Kind::Lane,
            Node::Refuse { .. } => Kind::Lane,
            Node::Store { addr, value, .. } => {
                if self.is_lane(addr) || self.is_lane(value) {
                    Kind::Lane
                } else {
                    Kind::Uniform
                }
            }
            _ => {
                if self.shape(i) == Some(Shape::Lane) {
                    Kind::Lane
                } else {
                    Kind::Uniform
                }
            }
        }
    }

    /// The phase of each of the `nn` nodes of an instruction starting at node `start` (even: uniform,
    /// odd: a lane loop) and their kinds. A capture's value is available from the next phase. In the
    /// lane mapping, an instruction whose stale mask units ride on its own exchange (L36) reads them
    /// only after it.
    fn phases(&self, start: usize, nn: usize) -> (Vec<u32>, Vec<Kind>) {
        let floor = self
            .plan
            .as_ref()
            .and_then(|p| p.merged.get(&start))
            .map(|&(units, ph)| (units, ph + 1));
        self.phases_floored(start, nn, floor)
    }

    /// [`Self::phases`] with, when `floor` is `Some((units, f))`, every read of the SGPR words of the
    /// mask units `units` (and, with EXEC among them, every uniform ballot: it reads EXEC) in phase `f`
    /// or later (L36).
    #[allow(clippy::needless_range_loop)]
    fn phases_floored(
        &self,
        start: usize,
        nn: usize,
        floor: Option<(u128, u32)>,
    ) -> (Vec<u32>, Vec<Kind>) {
        let p = self.p;
        let floor_words = floor.map(|(u, f)| (self.lane_unit_words(u), f));
        let mut emit = vec![0u32; nn];
        let mut avail = vec![0u32; nn];
        let mut kinds = vec![Kind::Ignored; nn];
        let mut last_mem: Option<(u32, bool)> = None;
        for k in 0..nn {
            let i = start + k;
            let kind = self.kind(i);
            kinds[k] = kind;
            let node = &p.nodes[Handle::from_index(i)];
            let mut ph = 0u32;
            for op in operands(node) {
                ph = ph.max(avail[op.index() - start]);
            }
            if let Some((words, f)) = floor_words {
                if self.lane_reads_words(i, kind, words) {
                    ph = ph.max(f);
                }
            }
            let want_odd = matches!(kind, Kind::Lane | Kind::Capture);
            let fix = |ph: u32| {
                if (ph % 2 == 1) == want_odd {
                    ph
                } else {
                    ph + 1
                }
            };
            ph = fix(ph);
            let (is_mem, writes) = match node {
                Node::Load { .. } | Node::LoadIf { .. } => (true, false),
                Node::Store { .. }
                | Node::Atomic { .. }
                | Node::StoreIf { .. }
                | Node::AtomicIf { .. } => (true, true),
                _ => (false, false),
            };
            if is_mem {
                if let Some((lp, lw)) = last_mem {
                    ph = fix(ph.max(lp));
                    if ph == lp && ph % 2 == 1 && (lw || writes) {
                        ph = lp + 2;
                    }
                }
                last_mem = match last_mem {
                    Some((lp, lw)) if lp == ph => Some((lp, lw || writes)),
                    _ => Some((ph, writes)),
                };
            }
            emit[k] = ph;
            avail[k] = if kind == Kind::Capture { ph + 1 } else { ph };
        }
        (emit, kinds)
    }

    // Parallel per-node arrays (phase, kind) are indexed together.
    #[allow(clippy::needless_range_loop)]
    fn inst(&mut self, range: std::ops::Range<u32>) -> R<()> {
        let p = self.p;
        let (start, end) = (range.start as usize, range.end as usize);
        let nn = end - start;
        if nn == 0 {
            return Ok(()); // s_nop, s_waitcnt, …
        }
        let lane_mapping = self.lane_mode();
        if lane_mapping {
            self.lane_inst_start()?;
            self.lane_vals.clear();
            self.lane_masks_inst_start(start)?;
        }
        // Phases: even = uniform, odd = a lane loop.
        let (emit, kinds) = self.phases(start, nn);
        // Lane values used by a later lane loop go through a per-lane temporary array (ordered: the
        // module's bytes must not depend on hash order).
        let mut needs_tmp = BTreeSet::new();
        for k in 0..nn {
            // The lane mapping keeps every lane value as an SSA value of the invocation.
            if lane_mapping || !matches!(kinds[k], Kind::Lane | Kind::Capture) {
                continue;
            }
            for op in operands(&p.nodes[Handle::from_index(start + k)]) {
                let j = op.index() - start;
                if self.is_lane(op) && emit[j] < emit[k] {
                    needs_tmp.insert(j);
                }
            }
        }
        self.uni.clear();
        self.tmp.clear();
        self.cap_vars.clear();
        for &j in &needs_tmp {
            let ty = self.spv_ty(self.ty(start + j));
            let n = self.c32(self.ws);
            let arr = self.b.type_array(ty, n);
            let v = self.fn_var(arr, None);
            self.tmp.insert(start + j, v);
        }
        for k in 0..nn {
            if kinds[k] == Kind::Capture && !lane_mapping {
                let ty = self.spv_ty(self.ty(start + k));
                let v = self.fn_var(ty, None);
                self.cap_vars.insert(start + k, v);
            }
        }
        // EXEC at the instruction's start.
        self.read_exec()?;
        let max_ph = emit.iter().copied().max().unwrap_or(0);
        for ph in 0..=max_ph {
            if ph % 2 == 0 {
                for k in 0..nn {
                    if emit[k] == ph && kinds[k] == Kind::Uniform {
                        if lane_mapping && self.lane_mask_uniform(start + k)? {
                            continue; // lane/masks.rs: dead, or own bits only
                        }
                        if self.lane_uniform_memory(start + k)
                            && !self.hoisted.contains_key(&(start + k))
                            && (self.lane_multi() || self.lane_gated_memory(start + k))
                            && !self.lane_top_free(start + k)
                        {
                            self.lane_uniform_guarded(start + k)?;
                        } else {
                            self.uniform_node(start + k)?;
                        }
                    }
                }
            } else if lane_mapping {
                let nodes: Vec<usize> = (0..nn)
                    .filter(|&k| emit[k] == ph && kinds[k] == Kind::Lane)
                    .map(|k| start + k)
                    .collect();
                let caps: Vec<usize> = (0..nn)
                    .filter(|&k| emit[k] == ph && kinds[k] == Kind::Capture)
                    .map(|k| start + k)
                    .collect();
                self.lane_lds_fence(&nodes)?;
                let exec = self.exec;
                let lane = self.lm.as_ref().expect("lane mapping").lane_id;
                self.lane = Some(lane);
                let sh = self.b.shift_right_logical(self.t.u64, None, exec, lane)?;
                let one = self.c64(1);
                let bit = self.b.bitwise_and(self.t.u64, None, sh, one)?;
                let act = self.b.i_equal(self.t.bool, None, bit, one)?;
                let act = self.lane_exec_bit(act)?;
                let act = self.lane_on(act)?;
                self.active = Some(act);
                self.pair_loads(&nodes);
                // D235: the instruction's pure computation of its results, a span of its own.
                let span = self.inst_span(&nodes, start, nn);
                let mut mark = None;
                for (k, &i) in nodes.iter().enumerate() {
                    if span.as_ref().is_some_and(|(lo, _, _)| *lo == k) {
                        mark = Some(self.b.id());
                    }
                    self.lane_node(i)?;
                    if let (Some((_, hi, others)), Some(m)) = (&span, mark) {
                        if *hi == k {
                            let r = self.get(Handle::from_index(i))?;
                            self.inst_spans.push((m, r, 0));
                            let others = others
                                .iter()
                                .map(|&o| self.get(Handle::from_index(o)))
                                .collect::<R<Vec<Word>>>()?;
                            if !others.is_empty() {
                                self.inst_span_results.insert(r, others);
                            }
                        }
                    }
                }
                self.lane_captures(start, &caps)?;
                self.lane = None;
                self.active = None;
            } else if (0..nn)
                .any(|k| emit[k] == ph && matches!(kinds[k], Kind::Lane | Kind::Capture))
            {
                // Captures start from zero.
                for k in 0..nn {
                    if emit[k] == ph && kinds[k] == Kind::Capture {
                        let v = self.cap_vars[&(start + k)];
                        let ty = self.spv_ty(self.ty(start + k));
                        let z = self.zero_of(ty);
                        self.store(v, z)?;
                    }
                }
                let nodes: Vec<usize> = (0..nn)
                    .filter(|&k| emit[k] == ph && matches!(kinds[k], Kind::Lane | Kind::Capture))
                    .map(|k| start + k)
                    .collect();
                let exec = self.exec;
                self.lane_loop(|cx, lane| {
                    cx.lane = Some(lane);
                    cx.lane_vals.clear();
                    let sh = cx.b.shift_right_logical(cx.t.u64, None, exec, lane)?;
                    let one = cx.c64(1);
                    let bit = cx.b.bitwise_and(cx.t.u64, None, sh, one)?;
                    let act = cx.b.i_equal(cx.t.bool, None, bit, one)?;
                    cx.active = Some(act);
                    for &i in &nodes {
                        cx.lane_node(i)?;
                    }
                    Ok(())
                })?;
                self.lane = None;
                self.active = None;
                // Captured values become uniform values.
                for k in 0..nn {
                    if emit[k] == ph && kinds[k] == Kind::Capture {
                        let v = self.cap_vars[&(start + k)];
                        let ty = self.spv_ty(self.ty(start + k));
                        let x = self.b.load(ty, None, v, None, [])?;
                        self.uni.insert(start + k, x);
                    }
                }
            }
        }
        for k in 0..nn {
            if kinds[k] == Kind::Deferred && lane_mapping && self.lane_dropped_write(start + k)? {
                continue; // a dead SCC write or an own-bit mask (lane/masks.rs)
            }
            if kinds[k] == Kind::Deferred {
                // In a converged item (D141) the waves "off" are empty ones: their scalar state
                // follows the running waves' (lane/converged.rs).
                if self.lane_multi() && !self.lane_conv_now() && !self.lane_on_known() {
                    // A wave that runs the block "off" keeps its scalar state.
                    let on = self.lane_on_now();
                    self.guarded(on, None, |cx| {
                        cx.deferred(start + k)?;
                        Ok(None)
                    })?;
                } else {
                    self.deferred(start + k)?;
                }
            }
        }
        Ok(())
    }

    /// Reads EXEC's words into `self.exec` (u64): at an instruction's start, and again after an
    /// exchange that wrote EXEC back (L36).
    pub(crate) fn read_exec(&mut self) -> R<()> {
        let lo = self.read_sgpr32(EXEC_LO as u32)?;
        let lo64 = self.b.u_convert(self.t.u64, None, lo)?;
        self.exec = if self.ws == 64 {
            let hi = self.read_sgpr32(EXEC_LO as u32 + 1)?;
            let hi64 = self.b.u_convert(self.t.u64, None, hi)?;
            let c = self.c64(32);
            let sh = self.b.shift_left_logical(self.t.u64, None, hi64, c)?;
            self.b.bitwise_or(self.t.u64, None, lo64, sh)?
        } else {
            lo64
        };
        Ok(())
    }

    pub(crate) fn spv_ty(&self, ty: Ty) -> Word {
        match ty {
            Ty::B1 => self.t.bool,
            Ty::B16 | Ty::B32 => self.t.u32,
            Ty::B64 => self.t.u64,
        }
    }

    /// D235: the positions `(lo, hi)` in `nodes` (one lane phase of the instruction whose nodes are
    /// `start..start + nn`) of a run of at least [`INST_SPAN_MIN`] pure computations (integer, float,
    /// comparison, conversion, select and word nodes) that no other node interrupts, whose last node, at
    /// `hi`, is read by a node outside the run, with the other nodes of the run read outside it (at most
    /// 3, in node order: V_DIV_SCALE's VCC bit): the instruction's results computed from values read
    /// before it. None otherwise.
    fn inst_span(
        &self,
        nodes: &[usize],
        start: usize,
        nn: usize,
    ) -> Option<(usize, usize, Vec<usize>)> {
        let pure = |i: usize| {
            matches!(
                self.p.nodes[Handle::<Node>::from_index(i)],
                Node::Int { .. }
                    | Node::IntCmp { .. }
                    | Node::Float { .. }
                    | Node::FloatCmp { .. }
                    | Node::Unary { .. }
                    | Node::Select { .. }
                    | Node::Concat { .. }
                    | Node::Extract { .. }
            )
        };
        let lo = nodes.iter().position(|&i| pure(i))?;
        let hi = lo + nodes[lo..].iter().take_while(|&&i| pure(i)).count() - 1;
        if hi + 1 - lo < INST_SPAN_MIN || nodes[hi + 1..].iter().any(|&i| pure(i)) {
            return None;
        }
        let run: HashSet<usize> = nodes[lo..=hi].iter().copied().collect();
        // The run's nodes read from outside it (within the instruction: values do not outlive it).
        let mut read = BTreeSet::new();
        for k in 0..nn {
            let j = start + k;
            if run.contains(&j) {
                continue;
            }
            for op in operands(&self.p.nodes[Handle::from_index(j)]) {
                if run.contains(&op.index()) {
                    read.insert(op.index());
                }
            }
        }
        if !read.remove(&nodes[hi]) || read.len() > 3 {
            return None;
        }
        Some((lo, hi, read.into_iter().collect()))
    }

    /// The value of operand `h` in the current context.
    fn get(&mut self, h: Handle<Node>) -> R<Word> {
        let i = h.index();
        if let Some(&v) = self.uni.get(&i) {
            return Ok(v);
        }
        if let Some(&v) = self.lane_vals.get(&i) {
            return Ok(v);
        }
        if let (Some(&arr), Some(lane)) = (self.tmp.get(&i), self.lane) {
            let ty = self.spv_ty(self.ty(i));
            let pt = self.b.type_pointer(None, StorageClass::Function, ty);
            let p = self.b.access_chain(pt, None, arr, [lane])?;
            return Ok(self.b.load(ty, None, p, None, [])?);
        }
        Err(self.unsupported(format!("operand %{i} is not available where it is used")))
    }

    fn read_sgpr32(&mut self, reg: u32) -> R<Word> {
        if reg >= 128 {
            return Ok(self.c32(0));
        }
        let p = self.sgpr_ptr(reg)?;
        self.load_u32(p)
    }

    fn uniform_node(&mut self, i: usize) -> R<()> {
        self.cur_node = Some(i);
        if let Some(&v) = self.hoisted.get(&i) {
            self.uni.insert(i, v); // read in the prologue (D118)
            return Ok(());
        }
        let h = Handle::<Node>::from_index(i);
        let node = self.p.nodes[h].clone();
        if self.lane_mode()
            && matches!(
                node,
                Node::Load {
                    space: Space::Scratch,
                    ..
                } | Node::Store {
                    space: Space::Scratch,
                    ..
                }
            )
        {
            // s_scratch_* read and write other lanes' private dwords, which the lane mapping's
            // invocations do not exchange (D092).
            return Err(self.unsupported(
                "scalar scratch accesses (s_scratch_*) touch other lanes' private dwords: the wave mapping (D092)",
            ));
        }
        let v = match node {
            Node::Store {
                space,
                access,
                addr,
                offset,
                value,
            } => {
                let a = self.get(addr)?;
                let v = self.get(value)?;
                self.mem_store(space, access, a, self.ty(addr.index()), offset, v)?;
                let wide = self.ty(value.index()) == Ty::B64;
                let aty = self.ty(addr.index());
                self.trace_mem(i, None, a, aty, offset, v, wide, access.bytes() as u32)?;
                return Ok(());
            }
            Node::Atomic {
                space,
                op,
                addr,
                offset,
                value,
                data1,
            } => {
                // D092: once for the wave, whatever EXEC holds. The lane mapping runs uniform nodes in
                // every invocation of the wave (right for loads and idempotent stores, not for an atomic).
                if self.lane_mode() {
                    return Err(self.unsupported(
                        "a once-per-wave atomic (scalar atomics, ds_append/ds_consume) needs one invocation per wave: the wave mapping (D092)",
                    ));
                }
                let a = self.get(addr)?;
                let x = self.get(value)?;
                let y = data1.map(|d| self.get(d)).transpose()?;
                let aty = self.ty(addr.index());
                let wide = self.ty(value.index()) == Ty::B64;
                let old = self.atomic_rmw(space, op, wide, a, aty, offset, x, y)?;
                self.trace_mem(i, None, a, aty, offset, x, wide, 4)?;
                old
            }
            Node::Ballot { cond } => {
                let c = self.get(cond)?;
                let z = self.c64(0);
                let ex = self.exec;
                let m = if self.ws == 32 {
                    let mm = self.c64(0xffff_ffff);
                    self.b.bitwise_and(self.t.u64, None, ex, mm)?
                } else {
                    ex
                };
                self.b.select(self.t.u64, None, c, m, z)?
            }
            Node::ReadLane { a, .. } | Node::ReadFirstLane { a } => self.get(a)?,
            _ => self.pure(i, &node)?,
        };
        self.uni.insert(i, v);
        Ok(())
    }

    fn lane_node(&mut self, i: usize) -> R<()> {
        self.cur_node = Some(i);
        let h = Handle::<Node>::from_index(i);
        let node = self.p.nodes[h].clone();
        let t = self.t;
        let lane = self.lane.expect("inside a lane loop");
        let active = self.active.expect("inside a lane loop");
        if self.lane_pick_inner(i) {
            return Ok(()); // read by its pick's root (D188)
        }
        let picked = self.lane_pick(i)?;
        let mut value = None;
        match node {
            _ if picked.is_some() => value = picked,
            Node::Ballot { cond } => {
                let c = self.get(cond)?;
                let both = self.b.logical_and(t.bool, None, c, active)?;
                let var = self.cap_vars[&i];
                self.guarded(both, None, |cx| {
                    let one = cx.c64(1);
                    let bit = cx.b.shift_left_logical(t.u64, None, one, lane)?;
                    let old = cx.b.load(t.u64, None, var, None, [])?;
                    let new = cx.b.bitwise_or(t.u64, None, old, bit)?;
                    cx.store(var, new)?;
                    Ok(None)
                })?;
            }
            Node::ReadLane { a, lane: which } => {
                let l = self.get(which)?;
                let m = self.c32(self.ws - 1);
                let l = self.b.bitwise_and(t.u32, None, l, m)?;
                self.capture_at(i, a, l, lane)?;
            }
            Node::ReadFirstLane { a } => {
                let ex = self.exec;
                let z = self.c64(0);
                let none = self.b.i_equal(t.bool, None, ex, z)?;
                let lo = self.b.u_convert(t.u32, None, ex)?;
                let c32 = self.c64(32);
                let hi64 = self.b.shift_right_logical(t.u64, None, ex, c32)?;
                let hi = self.b.u_convert(t.u32, None, hi64)?;
                let flo = self.glsl_op(t.u32, spirv::GlslStd450Op::FindILsb, &[lo])?;
                let fhi = self.glsl_op(t.u32, spirv::GlslStd450Op::FindILsb, &[hi])?;
                let c32u = self.c32(32);
                let fhi = self.b.i_add(t.u32, None, fhi, c32u)?;
                let z32 = self.c32(0);
                let lo_zero = self.b.i_equal(t.bool, None, lo, z32)?;
                let first = self.b.select(t.u32, None, lo_zero, fhi, flo)?;
                let first = self.b.select(t.u32, None, none, z32, first)?;
                self.capture_at(i, a, first, lane)?;
            }
            Node::WriteVgpr { reg, value: v } => {
                let mut x = self.get(v)?;
                let wide = self.ty(v.index()) == Ty::B64;
                if let Some(PlantedFault::FlipLaneBit { lane: fl, .. }) = self.fault_here() {
                    let flc = self.c32(fl);
                    let hit = self.b.i_equal(t.bool, None, lane, flc)?;
                    let one = if wide { self.c64(1) } else { self.c32(1) };
                    let xty = if wide { t.u64 } else { t.u32 };
                    let flipped = self.b.bitwise_xor(xty, None, x, one)?;
                    x = self.b.select(xty, None, hit, flipped, x)?;
                }
                self.guarded(active, None, |cx| {
                    if wide {
                        let lo = cx.b.u_convert(t.u32, None, x)?;
                        let c = cx.c64(32);
                        let hi = cx.b.shift_right_logical(t.u64, None, x, c)?;
                        let hi = cx.b.u_convert(t.u32, None, hi)?;
                        let p = cx.vgpr_ptr(reg as u32, lane)?;
                        cx.store(p, lo)?;
                        let p = cx.vgpr_ptr(reg as u32 + 1, lane)?;
                        cx.store(p, hi)?;
                        cx.trace_vgpr(reg as u32, lane, lo)?;
                        cx.trace_vgpr(reg as u32 + 1, lane, hi)?;
                    } else {
                        let p = cx.vgpr_ptr(reg as u32, lane)?;
                        cx.store(p, x)?;
                        cx.trace_vgpr(reg as u32, lane, x)?;
                    }
                    Ok(None)
                })?;
            }
            Node::Store {
                space,
                access,
                addr,
                offset,
                value: v,
            } => {
                let a = self.get(addr)?;
                let x = self.get(v)?;
                let aty = self.ty(addr.index());
                let cond = if self.is_lane(addr) {
                    active
                } else {
                    // A uniform address with a per-lane value: once, with lane 0's value.
                    let z = self.c32(0);
                    let l0 = self.b.i_equal(t.bool, None, lane, z)?;
                    self.lane_on(l0)?
                };
                let lane_addr = self.is_lane(addr);
                let wide = self.ty(v.index()) == Ty::B64;
                self.guarded(cond, None, |cx| {
                    cx.mem_store(space, access, a, aty, offset, x)?;
                    let l = lane_addr.then_some(lane);
                    cx.trace_mem(i, l, a, aty, offset, x, wide, access.bytes() as u32)?;
                    Ok(None)
                })?;
            }
            Node::Load { .. } if self.pair_loaded.contains_key(&i) => {
                value = self.pair_loaded.remove(&i);
            }
            Node::Load { addr, offset, .. } if self.load_pairs.contains_key(&i) => {
                let j = self.load_pairs[&i];
                let (lo, hi) = self.lane_load_pair(active, addr, offset, i, j)?;
                self.pair_loaded.insert(j, hi);
                value = Some(lo);
            }
            Node::Load {
                space,
                access,
                addr,
                offset,
            } => {
                let a = self.get(addr)?;
                let aty = self.ty(addr.index());
                value = Some(self.lane_load(active, space, access, a, aty, offset)?);
            }
            Node::Atomic {
                space,
                op,
                addr,
                offset,
                value: v,
                data1,
            } => {
                let a = self.get(addr)?;
                let x = self.get(v)?;
                let y = data1.map(|d| self.get(d)).transpose()?;
                let aty = self.ty(addr.index());
                let wide = self.ty(v.index()) == Ty::B64;
                let rt = if wide { t.u64 } else { t.u32 };
                value = self.guarded(active, Some(rt), |cx| {
                    let old = cx.atomic_rmw(space, op, wide, a, aty, offset, x, y)?;
                    cx.trace_mem(i, Some(lane), a, aty, offset, x, wide, 4)?;
                    Ok(Some(old))
                })?;
            }
            Node::Refuse { cond, .. } => {
                let c = self.get(cond)?;
                let hit = self.b.logical_and(t.bool, None, active, c)?;
                let r = self.load_bool(self.refused)?;
                let r = self.b.logical_or(t.bool, None, r, hit)?;
                self.store(self.refused, r)?;
            }
            Node::LoadIf {
                space,
                access,
                addr,
                offset,
                enable,
            } => {
                let a = self.get(addr)?;
                let en = self.get(enable)?;
                let aty = self.ty(addr.index());
                let cond = self.b.logical_and(t.bool, None, active, en)?;
                value = Some(self.lane_load(cond, space, access, a, aty, offset)?);
            }
            Node::AtomicIf {
                space,
                op,
                addr,
                offset,
                value: v,
                data1,
                enable,
            } => {
                let a = self.get(addr)?;
                let x = self.get(v)?;
                let y = data1.map(|d| self.get(d)).transpose()?;
                let en = self.get(enable)?;
                let aty = self.ty(addr.index());
                let wide = self.ty(v.index()) == Ty::B64;
                let rt = if wide { t.u64 } else { t.u32 };
                let cond = self.b.logical_and(t.bool, None, active, en)?;
                value = self.guarded(cond, Some(rt), |cx| {
                    Ok(Some(cx.atomic_rmw(space, op, wide, a, aty, offset, x, y)?))
                })?;
            }
            Node::StoreIf {
                space,
                access,
                addr,
                offset,
                value: v,
                enable,
            } => {
                let a = self.get(addr)?;
                let x = self.get(v)?;
                let en = self.get(enable)?;
                let aty = self.ty(addr.index());
                let cond = self.b.logical_and(t.bool, None, active, en)?;
                self.guarded(cond, None, |cx| {
                    cx.mem_store(space, access, a, aty, offset, x)?;
                    Ok(None)
                })?;
            }
            _ => value = Some(self.pure(i, &node)?),
        }
        if let Some(v) = value {
            self.lane_vals.insert(i, v);
            if let Some(&arr) = self.tmp.get(&i) {
                let ty = self.spv_ty(self.ty(i));
                let pt = self.b.type_pointer(None, StorageClass::Function, ty);
                let p = self.b.access_chain(pt, None, arr, [lane])?;
                self.store(p, v)?;
            }
        }
        Ok(())
    }

    /// Inside a lane loop: capture `a` of lane `which` into the capture variable of node `i`.
    fn capture_at(&mut self, i: usize, a: Handle<Node>, which: Word, lane: Word) -> R<()> {
        let x = self.get(a)?;
        let var = self.cap_vars[&i];
        let hit = self.b.i_equal(self.t.bool, None, lane, which)?;
        self.guarded(hit, None, |cx| {
            cx.store(var, x)?;
            Ok(None)
        })?;
        Ok(())
    }

    fn deferred(&mut self, i: usize) -> R<()> {
        let node = self.p.nodes[Handle::from_index(i)].clone();
        match node {
            Node::WriteSgpr { reg, value } => {
                if let Some(PlantedFault::DropExecWrite { .. }) = self.fault_here() {
                    let wide = self.ty(value.index()) == Ty::B64;
                    if reg == EXEC_LO || reg == EXEC_LO + 1 || (wide && reg + 1 == EXEC_LO) {
                        return Ok(());
                    }
                }
                let v = self.get(value)?;
                let r = reg as u32;
                if self.ty(value.index()) == Ty::B64 {
                    let lo = self.b.u_convert(self.t.u32, None, v)?;
                    let c = self.c64(32);
                    let hi = self.b.shift_right_logical(self.t.u64, None, v, c)?;
                    let hi = self.b.u_convert(self.t.u32, None, hi)?;
                    if r < 128 {
                        let p = self.sgpr_ptr(r)?;
                        self.store(p, lo)?;
                    }
                    if r + 1 < 128 {
                        let p = self.sgpr_ptr(r + 1)?;
                        self.store(p, hi)?;
                    }
                } else if r < 128 {
                    let p = self.sgpr_ptr(r)?;
                    self.store(p, v)?;
                }
            }
            Node::WriteScc { value } => {
                let v = self.get(value)?;
                self.store(self.scc, v)?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// The fewest pure nodes of one instruction worth a span of their own (D235): below it the code is smaller
/// than [`lane::shrink`]'s outlining threshold anyway.
const INST_SPAN_MIN: usize = 8;

/// The value operands of a node.
/// A node's operands in order (at most four), without a heap allocation: the lane plan's passes ask for
/// them for every node, several times (issue 31, D204).
fn operands(n: &Node) -> std::iter::Take<std::array::IntoIter<Handle<Node>, 4>> {
    let z = Handle::from_index(0);
    let (h, k) = match *n {
        Node::Int { a, b, .. } | Node::IntCmp { a, b, .. } | Node::FloatCmp { a, b, .. } => {
            ([a, b, z, z], 2)
        }
        Node::Float { op, args } => ([args[0], args[1], args[2], z], op.arity()),
        Node::Unary { a, .. } | Node::Extract { a, .. } | Node::ReadFirstLane { a } => {
            ([a, z, z, z], 1)
        }
        Node::Select { cond, a, b } => ([cond, a, b, z], 3),
        Node::Concat { lo, hi } => ([lo, hi, z, z], 2),
        Node::Ballot { cond } => ([cond, z, z, z], 1),
        Node::LaneBit { mask } => ([mask, z, z, z], 1),
        Node::ReadLane { a, lane } => ([a, lane, z, z], 2),
        Node::Load { addr, .. } => ([addr, z, z, z], 1),
        Node::WriteSgpr { value, .. }
        | Node::WriteVgpr { value, .. }
        | Node::WriteScc { value } => ([value, z, z, z], 1),
        Node::Store { addr, value, .. } => ([addr, value, z, z], 2),
        Node::Atomic {
            addr, value, data1, ..
        } => match data1 {
            Some(d) => ([addr, value, d, z], 3),
            None => ([addr, value, z, z], 2),
        },
        Node::LoadIf { addr, enable, .. } => ([addr, enable, z, z], 2),
        Node::Refuse { cond, .. } => ([cond, z, z, z], 1),
        Node::AtomicIf {
            addr,
            value,
            data1,
            enable,
            ..
        } => match data1 {
            Some(d) => ([addr, value, enable, d], 4),
            None => ([addr, value, enable, z], 3),
        },
        Node::StoreIf {
            addr,
            value,
            enable,
            ..
        } => ([addr, value, enable, z], 3),
        _ => ([z; 4], 0),
    };
    h.into_iter().take(k)
}

/// The initializer of a module-scope variable ([`Cx::global_var_init`]).
#[derive(Clone, Copy)]
enum Init {
    None,
    /// `OpConstantNull` of the variable's type.
    Null,
    /// A constant.
    Const(Word),
}
