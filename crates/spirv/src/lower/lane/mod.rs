//! The lane-per-invocation mapping (issue 13, decision D082): one SPIR-V invocation runs one lane, the
//! Vulkan workgroup is the kernel's workgroup (`waves × wave size` invocations).
//!
//! What stays the same as the wave mapping: the instruction-by-instruction emission of `lower/mod.rs`
//! (phases of uniform and per-lane nodes), the structured control flow of `structured.rs`, memory, atomics
//! and every device workaround. What changes:
//!
//! * **Scalar state is replicated.** SGPRs, SCC, EXEC, VCC, M0 and the structured label are private
//!   variables of every invocation; each lane computes the SALU itself. Scalar instructions read only
//!   scalar state, so every lane of a wave holds the same scalar values.
//! * **VGPRs are the invocation's own**: a private array of one word per register, indexed by constants.
//!   The "lane loop" of the wave mapping becomes the invocation's one lane, active when its EXEC bit is set.
//! * **Wave-wide values go through workgroup memory** ([`Cx::lane_captures`]): Ballot, ReadLane and
//!   ReadFirstLane of per-lane values. Each lane writes its contribution to its slot of a per-wave slot
//!   array, one `OpControlBarrier`, then each lane reads the slots it needs. Two slot buffers alternate
//!   (a parity variable identical in every invocation), so one barrier per exchange suffices: the slots
//!   written by exchange n+2 were last read by exchange n, and every invocation finished those reads before
//!   it arrived at the barrier of exchange n+1, which precedes the writes of n+2.
//! * **LDS between the lanes of one wave.** A wave's lanes run in lock step on the hardware, so a lane
//!   reads what another lane of its wave wrote one instruction earlier without any barrier. Invocations
//!   do not run in lock step (lavapipe runs a workgroup as 8-wide batches, one after another up to each
//!   barrier), so the lowering puts a barrier between an LDS write and the next LDS access, and between an
//!   LDS read and the next LDS write ([`Cx::lane_lds_fence`]).
//! * **Barriers need workgroup-uniform control flow.** With one wave per workgroup every branch is
//!   uniform already (conditions are scalar). With several waves, each structured construct is entered by
//!   a vote ([`Cx::lane_vote`]): the labels of all waves are published in workgroup memory after each
//!   block that ran, and a block (loop) runs when any wave's label selects it; the waves whose label does
//!   not select it run it "off": every state write, memory access and label update is predicated by
//!   the `on` flag, so their state is frozen. Loops run until every wave has left. Two exceptions: a
//!   loop left lane by lane (D130) runs on each invocation's own label with no vote or publication inside
//!   (`local.rs`, D133), and an `s_cbranch_execz/execnz` whose EXEC is exchanged at the branch takes every
//!   wave's label from that exchange's ballot words instead of publishing (`labels.rs`, D136).
//!   A straight-line chain of blocks (a jump or a vote-free `s_cbranch_execz` fall-through into a block
//!   with no other live way in) is one item: one vote, one `on`, one label and copy update at its end
//!   (`chain.rs`, D137). Where every running wave of the workgroup is provably at the same block
//!   (`converged.rs`, D141), the vote reads wave 0's copy only, a branch on a workgroup-uniform SGPR or
//!   SCC value publishes nothing, and a kernel converged everywhere keeps one label copy.
//! * **A lone wave that never pauses runs one pass** (D142): one wave per Vulkan workgroup, no
//!   `s_barrier`, no LDS: no outer loop, and the entry block's chain at the top of the module, outside
//!   every selection (lavapipe then reads its uniform-address loads once, not lane by lane). A split
//!   wave with no work-item runs that chain "off" under `live` ([`Cx::lane_set_live`]).
//! * **Converged waves run one pass too** (D143, `meet.rs`): when the whole kernel is
//!   workgroup-converged (one label copy, D141) and every `s_barrier` resumes ahead of its block, each
//!   barrier is met in place with no test, there is no outer loop, and the top-level chains that every
//!   wave with work reaches straight from the entry run at the top, outside every selection (the empty
//!   waves of a partial workgroup run them "off" through `on` and arrive at every barrier).
//!
//! Options the mapping does not support are refused before anything runs (`LowerError::Layout`):
//! device traces and the dispatcher control flow (checked mode runs in both mappings, D158); so is a
//! kernel whose exchanges need more than `EXCHANGE_BUDGET` bytes of workgroup memory.
//!
//! Every rule of this mapping, its test and its decision: docs/lane-mapping.md.

use crate::hash::HashSet;

use rdna2spv_ir::{Handle, Node, Space, Ty, EXEC_LO};
use spirv::{StorageClass, Word};

use super::{Cx, Kind, LowerError, R};

mod chain;
mod converged;
mod fuse;
mod labels;
mod lds;
mod ldsaddr;
mod local;
mod masks;
mod meet;
pub(crate) mod pick;
mod plan;
mod shrink;
pub(crate) mod split;
pub(crate) mod sublane;
mod texel;
mod versions;
pub(crate) use fuse::fuse_guards;
pub(crate) use labels::PAUSED;
pub(crate) use masks::span;
pub(crate) use plan::plan_of;
pub use plan::{lane_plan, BarrierSites, LanePlan};
pub(crate) use shrink::{shrink, Passes};
pub use split::{split_factor, split_waves, waves_communicate, SPLIT_MARK};
pub(crate) use texel::{lds_to_texel, RegionOf};
pub use texel::{
    texel_lds, texel_refusal, TexelLds, TEXEL_MIN_LOADS, TEXEL_MIN_LOADS_ENV, TEXEL_REFUSED_MARK,
    TEXEL_REGIONS_ENV, TEXEL_REGIONS_MARK, TEXEL_WORDS_MARK,
};

/// The prefix of the `OpModuleProcessed` string of a module that writes one flag word per lane (D116);
/// the decimal wave size follows it.
pub const FLAG_SLOTS_MARK: &str = "rdna2spv lane flag slots=";

/// Flag words per wave a module writes: the wave size from its [`FLAG_SLOTS_MARK`] string (lane
/// mapping), else 1. The runner sizes the flags buffer by it and takes each wave's flag as the maximum
/// of its words.
pub fn flag_slots(words: &[u32]) -> u32 {
    split::processed_number(words, FLAG_SLOTS_MARK).map_or(1, |w| w.max(1))
}

/// How kernel lanes map onto SPIR-V invocations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mapping {
    /// One invocation runs a whole wave (the reference mapping; decision D006).
    #[default]
    Wave,
    /// One invocation runs one lane; the Vulkan workgroup is the kernel's workgroup (decision D082).
    Lane,
}

/// What `--mapping auto` chose (decision D083), with what it lowered to decide: the lane module when the
/// lane lowering accepted the kernel, else why it refused it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chosen {
    /// The lane mapping, and its module: the words [`super::lower_with`] gives for the options passed to
    /// [`choose_mapping`] with `mapping: Mapping::Lane` (the lowering is a function of its inputs).
    Lane(Vec<u32>),
    /// The wave mapping (not lowered yet), because the lane lowering refused the kernel with `refused`.
    Wave { refused: super::LowerError },
}

impl Chosen {
    /// The mapping chosen.
    pub fn mapping(&self) -> Mapping {
        match self {
            Chosen::Lane(_) => Mapping::Lane,
            Chosen::Wave { .. } => Mapping::Wave,
        }
    }

    /// Why the lane mapping was not chosen (`None` when it was).
    pub fn fallback_reason(&self) -> Option<&super::LowerError> {
        match self {
            Chosen::Lane(_) => None,
            Chosen::Wave { refused } => Some(refused),
        }
    }
}

/// `--mapping auto` (decision D083): the lane mapping when the lane lowering accepts the kernel with
/// these options (whatever their `mapping`), else the wave mapping; see [`Chosen`].
pub fn choose_mapping(
    program: &rdna2spv_ir::Program,
    desc: &super::KernelLayout,
    profile: &crate::profile::DeviceProfile,
    opts: &super::LowerOptions,
) -> Chosen {
    let lane = super::LowerOptions {
        mapping: Mapping::Lane,
        ..*opts
    };
    match super::lower_with(program, desc, profile, &lane) {
        Ok(words) => Chosen::Lane(words),
        Err(refused) => Chosen::Wave { refused },
    }
}

/// What the invocations may have done to LDS since the last barrier (lowering-time state).
/// Ordered by what they allow: the union of two histories is the larger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum LdsState {
    Clean,
    Read,
    Written,
}

/// Lane-mapping state of the lowering.
pub(crate) struct LaneMode {
    /// This invocation's lane in its wave, and its wave in the workgroup (u32 values).
    pub(crate) lane_id: Word,
    pub(crate) wave: Word,
    pub(crate) waves: u32,
    /// Exchange slots: `2 × slots × waves × wave size` words of workgroup memory, and the variable holding
    /// the current half's first element (0 or the half's size, D236).
    /// L37 (D211): with an even number of slots the words are `slots / width` vectors of `width` words
    /// per lane ([`exchange_width`]: 4 when it divides `slots`, else 2) and `vec` is (vector type, pointer
    /// to it); otherwise one word per slot and `vec` is `None`.
    slots: u32,
    vec: Option<(Word, Word)>,
    exch: Word,
    exch_par: Word,
    /// Ballot words (D125): `3 × ballots × waves × (wave size / 32)` words of zero-initialised workgroup
    /// memory, the number of ballot sets one exchange may need, and the rotation variable (the first
    /// element of the current buffer: 0, one buffer's elements or two, D236). L39 (D213): the words are
    /// `uvecW` elements (`bal_w`, [`ballot_width`]), so that reading every wave's words of one ballot
    /// (L23) is `waves × wave size / 32 / W` vector loads.
    bal: Word,
    bal_w: u32,
    ballots: u32,
    bal_rot: Word,
    /// L51 (D285): the one-ballot exchange as a SPIR-V function of its own, called at each site.
    bal_fn: Option<BalFn>,
    /// L46 (D246): ballots through subgroup shuffles ([`Cx::sub_ballots`]); then `bal` is two buffers of
    /// `uvec4` elements and `bal_rot` holds the current buffer's first element (0 or one buffer's).
    sub: Option<SubBal>,
    /// Several waves: the published labels (`2 × waves` words), the first element of the parity last
    /// read (0 or the groups, D236), the `on` variable, and this invocation's copy of every wave's label
    /// (a private array, constant indices).
    labels: Option<(Word, Word, Word, Word)>,
    /// The invocation's indices into the exchange, ballot and label arrays, computed once (D236).
    at: LaneAt,
    /// Several waves with the copies collapsed (D141: wave 0's alone, [`Self::lane_copies`] 1): that
    /// copy as a u32 variable of its own (D231; the vector copies then go unused).
    copy0: Word,
    /// `on` loaded at the start of the current instruction (the constant true with one wave).
    pub(crate) on_now: Word,
    pub(crate) lds: LdsState,
    /// The LDS history across blocks (D106).
    lds_flow: Option<lds::LdsFlow>,
    /// The LDS accesses since the last barrier (node index, whether it writes) when all of them are in
    /// the current block, and the lanes and addresses of LDS accesses (D120).
    lds_seen: Option<Vec<(usize, bool)>>,
    lds_addrs: ldsaddr::LdsAddrs,
    /// The current block's ballots that need no exchange (masks.rs), and the program's node uses.
    masks: masks::MaskPlan,
    /// Barriers emitted so far (D130 checks that none lies inside a loop left lane by lane).
    barriers: u32,
    /// Subgroup shuffles emitted so far (L44: none may lie inside a loop left lane by lane either).
    pub(crate) shuffles: u32,
    /// The word index (u32) of wave 0's first ballot word in the latest exchange's buffer (D136).
    last_ballots: Option<Word>,
    /// Several waves: inside a lane-local loop (D133), where each invocation follows its own label
    /// (no vote, no publication, no label-copy update until the loop's exit).
    local: bool,
    /// L45 (D238, planning only): the loops `[lo, hi)` run on each invocation's own label whose exits
    /// are ordinary branches (their blocks publish nothing).
    pub(crate) wave_loops: Vec<(u32, u32)>,
    /// Several waves: the workgroup-converged blocks and uniform branches (D141), and whether the item
    /// being emitted is converged (its SGPR and SCC writes are not predicated by `on`).
    conv: converged::Convergence,
    conv_now: bool,
    /// A split wave (D105) may be empty (no work-item: its partial workgroup has fewer waves than the
    /// split dispatch launches): `count != 0` (bool), and the scalar loads that read inside a launch
    /// segment (D132), which need no guard. Set only in modules whose entry chain runs at the top (D142).
    live: Option<(Word, HashSet<usize>)>,
    /// Emitting that entry chain: effects are predicated by `live` as a wave run "off" (D142).
    gate: bool,
    /// Emitting a chain at the top of a converged multi-wave module (D143): the scalar loads
    /// that read inside a launch segment (D132), performed by every invocation, not only where `on`.
    top_free: Option<HashSet<usize>>,
    /// Several waves: `count != 0`, whether the invocation's wave has a work-item (D144).
    running: Option<Word>,
    /// Emitting a top chain of a converged one-pass module before any loop item (D144): `on` is
    /// `running`, not the label test.
    top_on: bool,
    /// A structured loop item has been emitted (D144: after one, lavapipe's loop cap may have cut an
    /// invocation short, and only the label keeps it off).
    looped: bool,
    /// Lane picks read as one slot (D188, `pick.rs`).
    pub(crate) picks: pick::Picks,
    /// L35: the slots of the values the latest exchange carried for later instructions (their
    /// `ReadVgpr` nodes).
    carried: crate::hash::HashMap<usize, Slot>,
}

/// Where one ballot word lies (L39): its element in the ballot array (u32) and, when the elements are
/// vectors, its component (u32).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BalAt {
    elem: Word,
    comp: Option<Word>,
}

/// The invocation's indices into the lane mapping's workgroup arrays, computed once at the top of the
/// entry block (D236): every exchange, ballot and publication used to compute them again (5–10
/// instructions each), and sites in different selections share nothing by dominance. Unused ones are
/// dead code for `lane::shrink`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LaneAt {
    /// `local wave × wave size`: the element of the wave's lane 0 in one group of exchange slots.
    wave_off: Word,
    /// `local wave × wave size / 32`: the wave's first word in one ballot's words.
    wave_words: Word,
    /// The wave's ballot word 0 and word 1 (wave64), and the lane's own word, relative to a ballot's
    /// first element.
    word0: BalAt,
    word1: BalAt,
    own: BalAt,
    /// `1 << (lane % 32)`: the lane's bit in its ballot word.
    bit: Word,
    /// `lane == 0` (bool).
    first: Word,
    /// The wave's published label: element within one parity's groups, and component (D231).
    label: (Word, Word),
}

/// L46 (D246): the geometry of ballots through subgroup shuffles. A wave of 32 lanes is `g = 32 / s` aligned
/// subgroups of `s` lanes; each subgroup's words of one exchange are `r` `uvec4` elements (component
/// `j % 4` of element `j / 4` holds ballot `j`'s bits of that subgroup, in their wave positions), at
/// element `wave × g × r + subgroup × r` of the current buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SubBal {
    s: u32,
    g: u32,
    r: u32,
    /// The invocation's subgroup's first element, relative to a buffer.
    own: Word,
    /// The first element of subgroup `lane % g` of the invocation's wave (each lane of a subgroup reads
    /// one of the wave's `g` subgroups; the OR over the subgroup then joins them).
    read: Word,
    /// `lane % s == 0`: the lane that stores its subgroup's words (bool).
    first: Word,
    /// `lane % s`: the lane's `SubgroupLocalInvocationId` (u32).
    sublane: Word,
    /// `sublane ^ 2^k` for the butterflies' steps k < log2(min(s, 32)), computed once (u32).
    partner: [Word; 5],
}

/// L51 (D285): the function that performs a one-ballot exchange (one ballot set, D125's atomics): its id
/// (reserved when the mapping starts, defined after the entry point's function when called), the entry
/// point's ids it reads as parameters after the buffer's first element and the ballot's condition (the
/// lane's [`LaneAt`] values that are not constants: `first`, `bit`, wave 0's word; in wave64 also the
/// lane's own and second words, the wave's first word and the lane id, which L38's clearing by two
/// lanes reads), and its calls.
#[derive(Debug, Clone)]
pub(crate) struct BalFn {
    id: Word,
    args: Vec<Word>,
    calls: u32,
    /// The rotation variable is Private and the function stores it (else each call's site does).
    private: bool,
}

/// Where one exchanged value lies (L37, D211): the element of lane 0 of this wave in the exchange array
/// (u32), and the value's component when the elements are vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub(crate) base: Word,
    pub(crate) comp: Option<u32>,
}

impl LaneMode {
    /// The state the analyses read while the plan is computed (D177): `waves` per Vulkan workgroup,
    /// label copies with several; no SPIR-V ids (none is emitted).
    fn for_analysis(waves: u32) -> Self {
        LaneMode {
            lane_id: 0,
            wave: 0,
            waves,
            slots: 0,
            vec: None,
            exch: 0,
            exch_par: 0,
            bal: 0,
            bal_w: 1,
            ballots: 0,
            bal_rot: 0,
            bal_fn: None,
            sub: None,
            labels: (waves > 1).then_some((0, 0, 0, 0)),
            at: LaneAt::default(),
            copy0: 0,
            on_now: 0,
            lds: LdsState::Written,
            lds_flow: None,
            lds_seen: None,
            lds_addrs: ldsaddr::LdsAddrs::default(),
            masks: masks::MaskPlan::default(),
            barriers: 0,
            shuffles: 0,
            last_ballots: None,
            local: false,
            wave_loops: Vec::new(),
            conv: converged::Convergence::default(),
            conv_now: false,
            live: None,
            gate: false,
            top_free: None,
            running: None,
            top_on: false,
            looped: false,
            picks: pick::Picks::default(),
            carried: Default::default(),
        }
    }
}

/// Workgroup memory the lane mapping may add for its exchanges (bytes); beyond it the kernel is refused.
const EXCHANGE_BUDGET: u32 = 16 * 1024;

/// L39 (D213): words per ballot-word element: 4 when 4 divides the words one ballot takes in every
/// wave (`waves × wave size / 32`), else 2 when 2 does, else 1 (then every base and stride the exchanges
/// and L23 use is a multiple of it).
fn ballot_width(words_per_ballot: u32) -> u32 {
    if words_per_ballot.is_multiple_of(4) {
        4
    } else if words_per_ballot.is_multiple_of(2) {
        2
    } else {
        1
    }
}

/// L37 (D211): words per exchange element: 4 when 4 divides `slots`, else 2 when 2 does, else 1.
fn exchange_width(slots: u32) -> u32 {
    if slots == 0 {
        1
    } else if slots.is_multiple_of(4) {
        4
    } else if slots.is_multiple_of(2) {
        2
    } else {
        1
    }
}

/// Where an exchanged value comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Source {
    /// The lane's `cond && active` as 0/1.
    Ballot(Handle<Node>),
    /// The lane's value of a node.
    Value(Handle<Node>),
}

impl Cx<'_> {
    pub(crate) fn lane_mode(&self) -> bool {
        self.lm.is_some()
    }

    /// Several waves share the workgroup (votes and `on` needed).
    pub(crate) fn lane_multi(&self) -> bool {
        self.lm.as_ref().is_some_and(|m| m.waves > 1)
    }

    /// Refuses options the lane mapping does not implement.
    pub(crate) fn lane_check_options(&self) -> R<()> {
        let bad = if self.opts.trace.is_some() {
            Some("device traces")
        } else if self.opts.control_flow != super::ControlFlow::Structured {
            Some("the dispatcher control flow")
        } else {
            None
        };
        match bad {
            Some(what) => Err(LowerError::Layout(format!(
                "{what} not available with the lane mapping (use --mapping wave)"
            ))),
            None => Ok(()),
        }
    }

    /// Distinct exchange sources of one instruction (an upper bound on one phase's).
    fn lane_sources(&self, range: std::ops::Range<u32>) -> Vec<Source> {
        let mut out = Vec::new();
        for i in range {
            let i = i as usize;
            if self.kind(i) != Kind::Capture {
                continue;
            }
            if let Some(s) = self.source_of(i) {
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }

    fn source_of(&self, i: usize) -> Option<Source> {
        match self.p.nodes[Handle::from_index(i)] {
            Node::Ballot { cond } => Some(Source::Ballot(cond)),
            Node::ReadLane { a, .. } | Node::ReadFirstLane { a } => Some(Source::Value(a)),
            _ => None,
        }
    }

    /// Creates the lane mapping's variables (called at the top of the entry block, `li` the local
    /// invocation index; `split_wave` the wave's index when each wave is its own Vulkan workgroup, D105).
    pub(crate) fn lane_setup(&mut self, li: Word, split_wave: Option<Word>) -> R<()> {
        let t = self.t;
        let ws = self.ws;
        let wsc = self.c32(ws);
        let (lane_id, wave, local_wave, waves) = match split_wave {
            Some(w) => (li, w, self.c32(0), 1),
            None => {
                let wave = self.b.u_div(t.u32, None, li, wsc)?;
                (
                    self.b.u_mod(t.u32, None, li, wsc)?,
                    wave,
                    wave,
                    self.desc.waves_per_workgroup(),
                )
            }
        };
        // Exchange sizes from the plan (L2, L3; its budget refused there, L33).
        let (slots, ballots, l23) = {
            let plan = self.lane_plan();
            (
                plan.slots,
                plan.ballots,
                plan.exec_labels.iter().any(|b| b.is_some()),
            )
        };
        let wpw = ws / 32;
        let bal_words = 3 * ballots * waves * wpw;
        // L37 (D211): an even number of slots as vectors (the same bytes).
        let width = exchange_width(slots);
        let (elem, vec) = if width > 1 {
            let v = self.b.type_vector(t.u32, width);
            let pv = self.b.type_pointer(None, StorageClass::Workgroup, v);
            (v, Some((v, pv)))
        } else {
            (t.u32, None)
        };
        let n = self.c32(2 * slots / width * waves * ws);
        let arr = self.b.type_array(elem, n);
        let exch = self.global_var(arr, StorageClass::Workgroup);
        let z = self.c32(0);
        let exch_par = self.fn_var(t.u32, Some(z));
        let sub_s = self.sub_ballots(ballots);
        let sub_g = ws.checked_div(sub_s);
        let (bal, bal_w) = if let Some(g) = sub_g {
            // L46 (D246): two buffers of `r` uvec4 per subgroup; every word is stored before it is read.
            let r = ballots.div_ceil(4).max(1);
            let v = self.b.type_vector(t.u32, 4);
            self.b.type_pointer(None, StorageClass::Workgroup, v);
            let n = self.c32(2 * waves * g * r);
            let arr = self.b.type_array(v, n);
            (self.global_var(arr, StorageClass::Workgroup), 4)
        } else {
            // L39: vectors only where L23 reads every wave's words (elsewhere they would only cost the
            // element and component arithmetic of every access).
            let bal_w = if l23 { ballot_width(waves * wpw) } else { 1 };
            let bal_elem = if bal_w > 1 {
                let v = self.b.type_vector(t.u32, bal_w);
                // The pointer type lane::shrink's rewrite `v` loads whole elements through.
                self.b.type_pointer(None, StorageClass::Workgroup, v);
                v
            } else {
                t.u32
            };
            let n = self.c32(bal_words / bal_w);
            let arr = self.b.type_array(bal_elem, n);
            (self.global_var_zeroed(arr, StorageClass::Workgroup), bal_w)
        };
        // Measurement switch `RDNA2SPV_OUTLINE_BALLOTS`: `0` keeps every exchange inline, `site` stores
        // the rotation at the calls' sites everywhere (the tests' way to that path).
        let outline_env = std::env::var_os("RDNA2SPV_OUTLINE_BALLOTS");
        let (mask_exchanges, merged) = {
            let plan = self.lane_plan();
            (
                plan.barrier_sites().mask_exchanges,
                plan.merged.len() as u32,
            )
        };
        // L51 (D285): the one-ballot exchange outlined where the plan counts three mask exchanges or
        // more (with two, the function's own words cost about what the calls save: +131 words over the
        // 18 bench sample kernels with two).
        let outline = (ws == 32 || ws == 64)
            && ballots == 1
            && sub_g.is_none()
            && mask_exchanges >= 3
            && outline_env.as_ref().is_none_or(|v| v != "0");
        // The rotation as a Private variable the function stores, unless many exchanges that carry
        // ballots stay inline (L36 merges stale mask units into instructions' own value exchanges):
        // there the Function variable's loads and stores fold (lane::shrink) and the calls' sites
        // store it. Measured on the bench sample: a Private rotation cost words only where the L36
        // merges outnumber the mask exchanges more than four times (the segmented sort's 50 to 5,
        // +531 words); everywhere else it saved words.
        let private = outline
            && outline_env.as_ref().is_none_or(|v| v != "site")
            && merged <= 4 * mask_exchanges;
        let bal_rot = if private {
            self.global_var_with(t.u32, StorageClass::Private, z)
        } else {
            self.fn_var(t.u32, Some(z))
        };
        let sub = if let Some(g) = sub_g {
            let r = ballots.div_ceil(4).max(1);
            let gr = self.c32(g * r);
            let wave_e = self.b.i_mul(t.u32, None, local_wave, gr)?;
            let (sc, sm, gm, rc) = (
                self.c32(sub_s.trailing_zeros()),
                self.c32(sub_s - 1),
                self.c32(g - 1),
                self.c32(r),
            );
            let sg = self.b.shift_right_logical(t.u32, None, lane_id, sc)?;
            let sg = self.b.i_mul(t.u32, None, sg, rc)?;
            let own = self.b.i_add(t.u32, None, wave_e, sg)?;
            let rg = self.b.bitwise_and(t.u32, None, lane_id, gm)?;
            let rg = self.b.i_mul(t.u32, None, rg, rc)?;
            let read = self.b.i_add(t.u32, None, wave_e, rg)?;
            let sublane = self.b.bitwise_and(t.u32, None, lane_id, sm)?;
            let first = self.b.i_equal(t.bool, None, sublane, z)?;
            let mut partner = [0; 5];
            for (k, p) in partner
                .iter_mut()
                .enumerate()
                .take(sub_s.min(32).trailing_zeros() as usize)
            {
                let kc = self.c32(1 << k);
                *p = self.b.bitwise_xor(t.u32, None, sublane, kc)?;
            }
            Some(SubBal {
                s: sub_s,
                g,
                r,
                own,
                read,
                first,
                sublane,
                partner,
            })
        } else {
            None
        };
        let labels = if waves > 1 {
            // Published labels and copies as vectors of `width` (D231): both parities' groups.
            let (width, groups) = labels::copy_layout(waves);
            let v = self.b.type_vector(t.u32, width);
            self.b.type_pointer(None, StorageClass::Workgroup, v);
            let n = self.c32(2 * groups);
            let arr = self.b.type_array(v, n);
            let l = self.global_var(arr, StorageClass::Workgroup);
            let par = self.fn_var(t.u32, Some(z));
            let f = self.cfalse();
            let on = self.fn_var(t.bool, Some(f));
            let g = self.c32(groups);
            let arr = self.b.type_array(v, g);
            let copy = self.fn_var(arr, None);
            Some((l, par, on, copy))
        } else {
            None
        };
        let copy0 = if labels.is_some() {
            self.fn_var(t.u32, None)
        } else {
            0
        };
        let at = self.lane_at(lane_id, local_wave, waves, bal_w)?;
        let bal_fn = if outline {
            let konst: HashSet<Word> = self.consts.values().copied().collect();
            let mut args: Vec<Word> = Vec::new();
            // Wave64 also clears and reads the wave's second word (L38 by lanes 0 and 1).
            let w64 = [at.own.elem, at.word1.elem, at.wave_words, lane_id];
            let w64 = w64
                .into_iter()
                .map(Some)
                .chain([at.own.comp, at.word1.comp])
                .filter(|_| ws == 64);
            for x in [
                Some(at.first),
                Some(at.bit),
                Some(at.word0.elem),
                at.word0.comp,
            ]
            .into_iter()
            .chain(w64)
            .flatten()
            {
                if !konst.contains(&x) && !args.contains(&x) {
                    args.push(x);
                }
            }
            Some(BalFn {
                id: self.b.id(),
                args,
                calls: 0,
                private,
            })
        } else {
            None
        };
        let on_now = self.ctrue();
        self.lm = Some(LaneMode {
            lane_id,
            wave,
            waves,
            slots,
            vec,
            exch,
            exch_par,
            bal,
            bal_w,
            ballots,
            bal_rot,
            bal_fn,
            sub,
            labels,
            at,
            copy0,
            on_now,
            lds: LdsState::Written,
            // The plan's LDS history arrives with the mask plan (`lane_masks_init`); before it, the
            // history without publications.
            lds_flow: Some(lds::LdsFlow::of(self.p, &[])),
            lds_seen: None,
            lds_addrs: std::mem::take(&mut self.lane_plan_mut().lds_addrs),
            masks: masks::MaskPlan::default(),
            barriers: 0,
            shuffles: 0,
            last_ballots: None,
            local: false,
            wave_loops: Vec::new(),
            conv: converged::Convergence::default(),
            conv_now: false,
            live: None,
            gate: false,
            top_free: None,
            running: None,
            top_on: false,
            looped: false,
            picks: std::mem::take(&mut self.lane_plan_mut().picks),
            carried: Default::default(),
        });
        Ok(())
    }

    /// D236: the invocation's array indices ([`LaneAt`]), emitted at the top of the entry block; `wave`
    /// is the wave's index in the Vulkan workgroup (0 when waves are split, D105).
    fn lane_at(&mut self, lane_id: Word, wave: Word, waves: u32, bal_w: u32) -> R<LaneAt> {
        let t = self.t;
        let wpw = self.ws / 32;
        let wsc = self.c32(self.ws);
        let wave_off = self.b.i_mul(t.u32, None, wave, wsc)?;
        let wpwc = self.c32(wpw);
        let wave_words = self.b.i_mul(t.u32, None, wave, wpwc)?;
        let (c5, c31, one) = (self.c32(5), self.c32(31), self.c32(1));
        let word_k = self.b.shift_right_logical(t.u32, None, lane_id, c5)?;
        // A word relative to a ballot's first element: element and component (L39).
        let at_word = |cx: &mut Self, word: Word| -> R<BalAt> {
            if bal_w == 1 {
                return Ok(BalAt {
                    elem: word,
                    comp: None,
                });
            }
            let sh = cx.c32(bal_w.trailing_zeros());
            let m = cx.c32(bal_w - 1);
            Ok(BalAt {
                elem: cx.b.shift_right_logical(t.u32, None, word, sh)?,
                comp: Some(cx.b.bitwise_and(t.u32, None, word, m)?),
            })
        };
        let word0 = at_word(self, wave_words)?;
        let (word1, own) = match (wpw, word0.comp) {
            (1, _) => (word0, word0),
            // Vectors: word 0 is even, so words 0 and 1 share its element.
            (_, Some(c0)) => {
                let c1 = self.b.i_add(t.u32, None, c0, one)?;
                let ck = self.b.i_add(t.u32, None, c0, word_k)?;
                (
                    BalAt {
                        comp: Some(c1),
                        ..word0
                    },
                    BalAt {
                        comp: Some(ck),
                        ..word0
                    },
                )
            }
            (_, None) => {
                let w1 = self.b.i_add(t.u32, None, wave_words, one)?;
                let ow = self.b.i_add(t.u32, None, wave_words, word_k)?;
                (at_word(self, w1)?, at_word(self, ow)?)
            }
        };
        let bit_pos = self.b.bitwise_and(t.u32, None, lane_id, c31)?;
        let bit = self.b.shift_left_logical(t.u32, None, one, bit_pos)?;
        let z = self.c32(0);
        let first = self.b.i_equal(t.bool, None, lane_id, z)?;
        let (width, groups) = labels::copy_layout(waves.max(2));
        let shift = self.c32(width.trailing_zeros());
        let mask = self.c32(width - 1);
        // One group of copies: every wave's label lies in element 0 of a parity's groups, at the
        // wave's own index.
        let label = if groups == 1 {
            (z, wave)
        } else {
            (
                self.b.shift_right_logical(t.u32, None, wave, shift)?,
                self.b.bitwise_and(t.u32, None, wave, mask)?,
            )
        };
        Ok(LaneAt {
            wave_off,
            wave_words,
            word0,
            word1,
            own,
            bit,
            first,
            label,
        })
    }

    /// The lane plan (D177), computed before emission.
    pub(crate) fn lane_plan(&self) -> &LanePlan {
        self.plan
            .as_ref()
            .expect("lane plan computed before emission")
    }

    pub(crate) fn lane_plan_mut(&mut self) -> &mut LanePlan {
        self.plan
            .as_mut()
            .expect("lane plan computed before emission")
    }

    /// Barriers emitted by the lane mapping so far (0 in the wave mapping).
    pub(crate) fn lane_barriers(&self) -> u32 {
        self.lm.as_ref().map_or(0, |m| m.barriers)
    }

    /// Subgroup shuffles emitted by the lane mapping so far (L44).
    pub(crate) fn lane_shuffles(&self) -> u32 {
        self.lm.as_ref().map_or(0, |m| m.shuffles)
    }

    pub(crate) fn lm_mut(&mut self) -> &mut LaneMode {
        self.lm.as_mut().expect("lane mapping")
    }

    fn lm(&self) -> &LaneMode {
        self.lm.as_ref().expect("lane mapping")
    }

    /// `OpControlBarrier(Workgroup, Workgroup, AcquireRelease | UniformMemory | WorkgroupMemory)`.
    pub(crate) fn lane_barrier(&mut self) -> R<()> {
        self.lane_barrier_inst()?;
        self.lane_barrier_met();
        Ok(())
    }

    /// The barrier instruction of [`Self::lane_barrier`] alone.
    fn lane_barrier_inst(&mut self) -> R<()> {
        let wg = self.c32(spirv::Scope::Workgroup as u32);
        let sem = self.c32(0x8 | 0x40 | 0x100);
        self.b.control_barrier(wg, wg, sem)?;
        Ok(())
    }

    /// What a barrier met here tells the emitter ([`Self::lane_barrier`]; L51's calls meet one).
    fn lane_barrier_met(&mut self) {
        if let Some(m) = self.lm.as_mut() {
            m.lds = LdsState::Clean;
            m.lds_seen = Some(Vec::new());
            m.barriers += 1;
        }
    }

    /// Loads `on` for the instruction about to be emitted (several waves), else `live` in a gated entry
    /// chain (D142), else the constant true.
    pub(crate) fn lane_inst_start(&mut self) -> R<()> {
        let on = match (self.lm().labels, self.lane_gate_live()) {
            // Inside a loop run on the invocation's own label (L16, L45), every item is entered on
            // `label == n`, which is `on` itself (D238).
            (Some(_), _) if self.lane_on_known() => self.ctrue(),
            (Some((_, _, on, _)), _) => self.load_bool(on)?,
            (None, Some(live)) => live,
            (None, None) => self.ctrue(),
        };
        self.lm.as_mut().expect("lane mapping").on_now = on;
        Ok(())
    }

    /// L46 (D246): the aligned subgroup size whose shuffles gather ballots, or 0 (the atomics of D125):
    /// waves of 32 lanes on a device whose profile measured aligned subgroups of 8 to 32 lanes and their
    /// shuffles (L44, D217), in a kernel whose exchanges carry up to `ballots` ballots, at least two (the
    /// plan's ballot sets: with one, L46 saves two `alloca`s an exchange on lavapipe but costs about 75
    /// words, the butterflies' shuffles, more than D125's atomic and clear).
    /// `RDNA2SPV_SUB_BALLOTS=0` (a measurement switch) keeps the atomics, `=all` takes L46 with one ballot
    /// too.
    pub(crate) fn sub_ballots(&self, ballots: u32) -> u32 {
        let s = self.prof.aligned_subgroup_size;
        let env = std::env::var_os("RDNA2SPV_SUB_BALLOTS");
        let min = if env.as_deref().is_some_and(|v| v == "all") {
            1
        } else {
            2
        };
        if self.ws == 32 && (8..=32).contains(&s) && ballots >= min && env.is_none_or(|v| v != "0")
        {
            s
        } else {
            0
        }
    }

    /// The capabilities `OpGroupNonUniformShuffle` needs, declared once.
    pub(crate) fn lane_shuffle_caps(&mut self) {
        if !self.shuffle_caps {
            self.b.capability(spirv::Capability::GroupNonUniform);
            self.b.capability(spirv::Capability::GroupNonUniformShuffle);
            self.shuffle_caps = true;
        }
    }

    /// `c && on` (several waves, or a gated entry chain), else `c`.
    pub(crate) fn lane_on(&mut self, c: Word) -> R<Word> {
        if (!self.lane_multi() && self.lane_gate_live().is_none()) || self.lane_on_known() {
            return Ok(c);
        }
        let on = self.lm().on_now;
        Ok(self.b.logical_and(self.t.bool, None, c, on)?)
    }

    /// One exchange, one barrier: writes each of `vals` (u32) to this lane's slot, and ORs this lane's bit
    /// of each of `ballots` (bool) into the wave's ballot words; returns each value's slot (the element
    /// of lane 0 of this wave, and the component) for [`Self::lane_slot`], and each ballot's wave mask
    /// (u64, bits beyond the wave zero).
    ///
    /// Vector slots (L37, D211): the values of one element are one `OpStore` of the vector when the
    /// element holds at least 2 of them (width 2) or 3 (width 4), the components past the last value
    /// zero; a lone value (or two of four) is stored as its component. lavapipe emits each non-uniform
    /// workgroup store as a loop over its SIMD lanes, a vector store as one such loop. Exact: a slot is
    /// only ever read through the slots an exchange returns, which are the components it wrote, so the
    /// zero components are never read before a later exchange writes them.
    ///
    /// Ballots (D125): lanes whose bit is set `atomicOr` it into one word per 32 lanes, so reading the mask
    /// back is one load per word instead of one per lane. The words rotate through three buffers under
    /// `bal_rot` (identical in every invocation) and start zero (`OpConstantNull`): before its barrier,
    /// exchange n has lane 0 of each wave clear the wave's words of the buffer exchange n+1 will use. That
    /// buffer was last read by exchange n−2, whose reads every invocation finished before it arrived at
    /// the barrier of exchange n−1; the ORs of exchange n+1 come after the barrier of exchange n.
    pub(crate) fn lane_exchange(
        &mut self,
        vals: &[Word],
        ballots: &[Word],
    ) -> R<(Vec<Slot>, Vec<Word>)> {
        let t = self.t;
        let (slots, waves, ws) = (self.lm().slots, self.lm().waves, self.ws);
        if vals.len() as u32 > slots {
            return Err(self.unsupported("more exchanged values than exchange slots"));
        }
        if ballots.len() as u32 > self.lm().ballots {
            return Err(self.unsupported("more exchanged ballots than ballot words"));
        }
        if vals.is_empty() && ballots.len() == 1 && self.lm().bal_fn.is_some() {
            let m = self.lane_ballot_call(ballots[0])?;
            return Ok((Vec::new(), vec![m]));
        }
        let (exch, par_var, lane_id, at) = {
            let m = self.lm();
            (m.exch, m.exch_par, m.lane_id, m.at)
        };
        let mut bases = Vec::with_capacity(vals.len());
        let mut region_next = None;
        if !vals.is_empty() {
            let (width, vec) = (exchange_width(slots), self.lm().vec);
            // The variable holds the current half's first element (D236): 0 or `half`.
            let half = self.c32(slots / width * waves * ws);
            let region = self.load_u32(par_var)?;
            region_next = Some(self.b.i_sub(t.u32, None, half, region)?);
            let wave_base = self.b.i_add(t.u32, None, region, at.wave_off)?;
            for (g, group) in vals.chunks(width as usize).enumerate() {
                let base = if g == 0 {
                    wave_base
                } else {
                    let jc = self.c32(g as u32 * waves * ws);
                    self.b.i_add(t.u32, None, wave_base, jc)?
                };
                let idx = self.b.i_add(t.u32, None, base, lane_id)?;
                let Some((vty, pv)) = vec else {
                    let p = self.b.access_chain(t.wg_u32, None, exch, [idx])?;
                    self.store(p, group[0])?;
                    bases.push(Slot { base, comp: None });
                    continue;
                };
                if group.len() as u32 >= width.min(3) {
                    let z = self.c32(0);
                    let parts: Vec<Word> = (0..width as usize)
                        .map(|c| group.get(c).copied().unwrap_or(z))
                        .collect();
                    let v = self.b.composite_construct(vty, None, parts)?;
                    let p = self.b.access_chain(pv, None, exch, [idx])?;
                    self.store(p, v)?;
                } else {
                    for (c, &v) in group.iter().enumerate() {
                        let cc = self.c32(c as u32);
                        let p = self.b.access_chain(t.wg_u32, None, exch, [idx, cc])?;
                        self.store(p, v)?;
                    }
                }
                bases.extend((0..group.len() as u32).map(|c| Slot {
                    base,
                    comp: Some(c),
                }));
            }
        }
        let mut words = Vec::new();
        let mut rot_next = None;
        let mut sub_read = None;
        if let (false, Some(sb)) = (ballots.is_empty(), self.lm().sub) {
            // L46 (D246): the subgroups' words stored, read back after the barrier.
            let rot_var = self.lm().bal_rot;
            let half = self.c32(waves * sb.g * sb.r);
            let rot = self.load_u32(rot_var)?;
            rot_next = Some(self.b.i_sub(t.u32, None, half, rot)?);
            self.lm.as_mut().expect("lane mapping").last_ballots = Some(rot);
            self.lane_sub_ballots_store(sb, rot, ballots)?;
            sub_read = Some((sb, rot));
        } else if !ballots.is_empty() {
            let rot = self.load_u32(self.lm().bal_rot)?;
            self.lm.as_mut().expect("lane mapping").last_ballots = Some(rot);
            let (next, w) = self.lane_ballots_set(at, lane_id, rot, ballots)?;
            rot_next = Some(next);
            words = w;
        }
        self.lane_barrier()?;
        if let Some(r) = region_next {
            self.store(par_var, r)?;
        }
        let mut masks = Vec::with_capacity(words.len());
        if let Some(next) = rot_next {
            let rot_var = self.lm().bal_rot;
            self.store(rot_var, next)?;
            if let Some((sb, rot)) = sub_read {
                masks = self.lane_sub_ballots_load(sb, rot, ballots.len())?;
            }
            for e in words {
                let m = self.lane_ballot_read(at, e)?;
                masks.push(if ws == 32 {
                    self.b.u_convert(t.u64, None, m)?
                } else {
                    m
                });
            }
        }
        Ok((bases, masks))
    }

    /// The wave's mask of the ballot whose wave-0 word is element `e`, after the exchange's barrier: in
    /// wave32 its word (u32), in wave64 its two words as a u64.
    fn lane_ballot_read(&mut self, at: LaneAt, e: Word) -> R<Word> {
        let t = self.t;
        let p = self.lane_bal_ptr(BalAt {
            elem: e,
            ..at.word0
        })?;
        let lo = self.load_u32(p)?;
        if self.ws == 32 {
            return Ok(lo);
        }
        let lo = self.b.u_convert(t.u64, None, lo)?;
        // Word 1 is the next element without vectors, else the next component of the same element
        // (word 0 is even).
        let e1 = if at.word1.comp.is_none() {
            let one = self.c32(1);
            self.b.i_add(t.u32, None, e, one)?
        } else {
            e
        };
        let p = self.lane_bal_ptr(BalAt {
            elem: e1,
            ..at.word1
        })?;
        let hi = self.load_u32(p)?;
        let hi = self.b.u_convert(t.u64, None, hi)?;
        let c32 = self.c64(32);
        let hi = self.b.shift_left_logical(t.u64, None, hi, c32)?;
        Ok(self.b.bitwise_or(t.u64, None, lo, hi)?)
    }

    /// D125: ballot sets per exchange, words per wave, and elements per ballot (all waves' words). Element
    /// index of (buffer, ballot j, wave, word k): one ballot's words of every wave are contiguous (L23 reads
    /// them as vectors, L39); the element width divides one ballot's words, so every buffer and ballot
    /// starts an element. The rotation variable holds the current buffer's first element.
    fn lane_ballot_layout(&self) -> (u32, u32, u32) {
        let m = self.lm();
        let wpw = self.ws / 32;
        (m.ballots, wpw, m.waves * wpw / m.bal_w)
    }

    /// The next buffer's first element after `rot`: the three buffers in turn (D273), `(rot + set) mod
    /// 3·set`, one remainder by a constant for a compare and a select.
    fn lane_ballot_next(&mut self, rot: Word) -> R<Word> {
        let (nb, _, per) = self.lane_ballot_layout();
        let set = nb * per;
        let (three_sets, setc) = (self.c32(3 * set), self.c32(set));
        let inc = self.b.i_add(self.t.u32, None, rot, setc)?;
        Ok(self.b.u_mod(self.t.u32, None, inc, three_sets)?)
    }

    /// D125: the lanes' bits of `ballots` ORed into the buffer whose first element is `rot`, after the
    /// wave's words of the next buffer are cleared (L38). Returns the next buffer's first element and each
    /// ballot's wave-0 word element. `at` and `lane_id` are the invocation's [`LaneAt`] and lane (the entry
    /// point's, or the parameters of L51's function).
    fn lane_ballots_set(
        &mut self,
        at: LaneAt,
        lane_id: Word,
        rot: Word,
        ballots: &[Word],
    ) -> R<(Word, Vec<Word>)> {
        let t = self.t;
        let mut words = Vec::with_capacity(ballots.len());
        let (nb, wpw, per) = self.lane_ballot_layout();
        let z = self.c32(0);
        let next = self.lane_ballot_next(rot)?;
        // L38: lane l clears the wave's word l (and l + wave size, ...) of the next buffer, word
        // k = l % wpw of ballot j = l / wpw; one word: lane 0.
        if nb * wpw == 1 {
            let e = self.b.i_add(t.u32, None, next, at.word0.elem)?;
            self.guarded(at.first, None, |cx| {
                let p = cx.lane_bal_ptr(BalAt {
                    elem: e,
                    ..at.word0
                })?;
                cx.store(p, z)?;
                Ok(None)
            })?;
        } else {
            self.lane_clear_ballots(at, lane_id, next, nb)?;
        }
        let scope = self.c32(spirv::Scope::Workgroup as u32);
        let relaxed = self.c32(0);
        let cur = self.b.i_add(t.u32, None, rot, at.word0.elem)?;
        // wave64 without vectors: the lane's own word is an element of its own.
        let cur_own = if at.own.elem == at.word0.elem {
            cur
        } else {
            self.b.i_add(t.u32, None, rot, at.own.elem)?
        };
        for (j, &c) in ballots.iter().enumerate() {
            let jb = if j == 0 {
                (cur, cur_own)
            } else {
                let o = self.c32(j as u32 * per);
                let jb = self.b.i_add(t.u32, None, cur, o)?;
                let own = if cur_own == cur {
                    jb
                } else {
                    self.b.i_add(t.u32, None, cur_own, o)?
                };
                (jb, own)
            };
            // Only lanes whose bit is set: an unconditional OR of 0 costs lavapipe one serial
            // atomic per lane when it runs (measured, D212).
            self.guarded(c, None, |cx| {
                let p = cx.lane_bal_ptr(BalAt {
                    elem: jb.1,
                    ..at.own
                })?;
                cx.b.atomic_or(t.u32, None, p, scope, relaxed, at.bit)?;
                Ok(None)
            })?;
            words.push(jb.0);
        }
        Ok((next, words))
    }

    /// L51 (D285): a one-ballot exchange as a call of the module's exchange function ([`BalFn`]): the
    /// buffer's first element is loaded here (the ballot words of the exchange are read later through
    /// it, D136), the call ORs the lane's bit of `c`, meets the barrier, moves the rotation on and
    /// returns the wave's mask: in wave32 its word, zero-extended here; in wave64 the u64.
    fn lane_ballot_call(&mut self, c: Word) -> R<Word> {
        let t = self.t;
        let rot = self.load_u32(self.lm().bal_rot)?;
        self.lm_mut().last_ballots = Some(rot);
        let f = self.lm_mut().bal_fn.as_mut().expect("outlined ballots");
        f.calls += 1;
        let (id, lane_args, private) = (f.id, f.args.clone(), f.private);
        let mut args = vec![rot, c];
        args.extend(lane_args);
        let ret = if self.ws == 32 { t.u32 } else { t.u64 };
        let w = self.b.function_call(ret, None, id, args)?;
        if !private {
            let next = self.lane_ballot_next(rot)?;
            self.store(self.lm().bal_rot, next)?;
        }
        self.lane_barrier_met();
        if self.ws == 32 {
            return Ok(self.b.u_convert(t.u64, None, w)?);
        }
        Ok(w)
    }

    /// L51 (D285): defines the exchange function the calls named, after the entry point's function:
    /// parameters `rot` (u32), `c` (bool) and the entry point's [`BalFn`] arguments; its body is the
    /// inline exchange's ([`Self::lane_ballots_set`], the barrier, the rotation stored, the wave's word
    /// or words read, [`Self::lane_ballot_read`]) on those parameters. Exact: a call runs the same
    /// instructions on the same values as the inline exchange (the rotation, a Private variable the
    /// function stores or a Function variable each call's site stores, is read and written by the
    /// exchanges alone, in the order they run), and every call stands where the inline exchange stood,
    /// in workgroup-uniform control flow.
    pub(crate) fn lane_emit_ballot_fn(&mut self) -> R<()> {
        let t = self.t;
        let Some(f) = self.lm.as_ref().and_then(|m| m.bal_fn.clone()) else {
            return Ok(());
        };
        if f.calls == 0 {
            return Ok(());
        }
        let (at, lane_id) = (self.lm().at, self.lm().lane_id);
        let ty_of = |x: Word| if x == at.first { t.bool } else { t.u32 };
        let mut params = vec![t.u32, t.bool];
        params.extend(f.args.iter().map(|&x| ty_of(x)));
        let ret = if self.ws == 32 { t.u32 } else { t.u64 };
        let fty = self.b.type_function(ret, params);
        self.b
            .begin_function(ret, Some(f.id), spirv::FunctionControl::NONE, fty)?;
        let rot = self.b.function_parameter(t.u32)?;
        let c = self.b.function_parameter(t.bool)?;
        let mut map = crate::hash::HashMap::default();
        for &x in &f.args {
            map.insert(x, self.b.function_parameter(ty_of(x))?);
        }
        let sub = |x: Word| map.get(&x).copied().unwrap_or(x);
        let sub_at = |a: BalAt| BalAt {
            elem: sub(a.elem),
            comp: a.comp.map(sub),
        };
        let fat = LaneAt {
            first: sub(at.first),
            bit: sub(at.bit),
            word0: sub_at(at.word0),
            word1: sub_at(at.word1),
            own: sub_at(at.own),
            wave_words: sub(at.wave_words),
            ..at
        };
        let l = self.b.id();
        self.begin(l)?;
        let (next, words) = self.lane_ballots_set(fat, sub(lane_id), rot, &[c])?;
        self.lane_barrier_inst()?;
        if f.private {
            let rot_var = self.lm().bal_rot;
            self.store(rot_var, next)?;
        }
        let w = self.lane_ballot_read(fat, words[0])?;
        self.b.ret_value(w)?;
        self.b.end_function()?;
        Ok(())
    }

    /// L46 (D246): the OR of `x` (of type `ty`) over the `2^steps` lanes of the invocation's aligned
    /// block of its subgroup (`steps` ≤ log2 of the subgroup size): a butterfly of `OpGroupNonUniformShuffle`s
    /// at `SubgroupLocalInvocationId ^ 2^k`. On lavapipe a shuffle adds no `alloca` (csrmmnt_row_split's
    /// dominator trees went 350 → 324 with L46, exactly its 13 atomics' allocas), where a reduction
    /// (`OpGroupNonUniformBitwiseOr`), like a workgroup atomic, is a loop over the SIMD lanes with a result
    /// `alloca` (the segmented sort's compile 76 → 110 s with reductions). Exact: every lane of the block
    /// is active (an exchange meets a barrier, in
    /// workgroup-uniform control flow, D082) and the profile measured that a shuffle returns the named
    /// lane's value (L44).
    fn lane_sub_or(&mut self, sb: SubBal, ty: Word, x: Word, steps: u32) -> R<Word> {
        self.lane_shuffle_caps();
        let scope = self.c32(spirv::Scope::Subgroup as u32);
        let mut x = x;
        for k in 0..steps {
            let id = sb.partner[k as usize];
            let y = self.b.group_non_uniform_shuffle(ty, None, scope, x, id)?;
            x = self.b.bitwise_or(ty, None, x, y)?;
        }
        Ok(x)
    }

    /// L46 (D246), before the exchange's barrier: each subgroup's bits of `ballots` (bool), four ballots
    /// a `uvec4` (each lane's `c ? 1 << lane : 0` ORed over its block of `min(s, 32)` lanes, so the bits
    /// sit in their wave positions) into its elements of the buffer starting at `rot`. One ballot:
    /// component 0, stored by the subgroup's first lane. Several (L52): every lane of the subgroup holds
    /// every ballot's bits after the butterfly, and lane `k` stores ballot `k`'s word (`k + s`, … in
    /// later rounds): one scalar store per `s` ballots, where a `uvec4` store was four (lavapipe makes a
    /// loop over its SIMD lanes of each component of a workgroup access). Each word is written by one
    /// invocation.
    fn lane_sub_ballots_store(&mut self, sb: SubBal, rot: Word, ballots: &[Word]) -> R<()> {
        let t = self.t;
        let bit = self.lm().at.bit;
        let z = self.c32(0);
        let v4 = self.b.type_vector(t.u32, 4);
        let base = self.b.i_add(t.u32, None, rot, sb.own)?;
        let bal = self.lm().bal;
        let steps = sb.s.min(32).trailing_zeros();
        if ballots.len() == 1 {
            let x = self.b.select(t.u32, None, ballots[0], bit, z)?;
            let x = self.lane_sub_or(sb, t.u32, x, steps)?;
            self.guarded(sb.first, None, |cx| {
                let c0 = cx.c32(0);
                let p = cx.b.access_chain(t.wg_u32, None, bal, [base, c0])?;
                cx.store(p, x)?;
                Ok(None)
            })?;
            return Ok(());
        }
        let mut groups = Vec::with_capacity(ballots.len().div_ceil(4));
        for group in ballots.chunks(4) {
            let mut sels = Vec::with_capacity(4);
            for &c in group {
                sels.push(self.b.select(t.u32, None, c, bit, z)?);
            }
            sels.resize(4, z);
            let v = self.b.composite_construct(v4, None, sels)?;
            groups.push(self.lane_sub_or(sb, v4, v, steps)?);
        }
        if std::env::var_os("RDNA2SPV_SUB_WORDS").is_some_and(|v| v == "0") {
            // The measurement switch: each group's `uvec4` stored whole by the subgroup's first lane.
            for (r, &x) in groups.iter().enumerate() {
                let rc = self.c32(r as u32);
                let elem = self.b.i_add(t.u32, None, base, rc)?;
                self.guarded(sb.first, None, |cx| {
                    let pv = cx.b.type_pointer(None, StorageClass::Workgroup, v4);
                    let p = cx.b.access_chain(pv, None, bal, [elem])?;
                    cx.store(p, x)?;
                    Ok(None)
                })?;
            }
            return Ok(());
        }
        let n = ballots.len() as u32;
        let (three, two) = (self.c32(3), self.c32(2));
        for q in 0..n.div_ceil(sb.s) {
            let f = if q == 0 {
                sb.sublane
            } else {
                let qc = self.c32(q * sb.s);
                self.b.i_add(t.u32, None, sb.sublane, qc)?
            };
            let comp = self.b.bitwise_and(t.u32, None, f, three)?;
            let grp = self.b.shift_right_logical(t.u32, None, f, two)?;
            let mut v = self
                .b
                .vector_extract_dynamic(t.u32, None, groups[0], comp)?;
            for (r, &x) in groups.iter().enumerate().skip(1) {
                let rc = self.c32(r as u32);
                let is = self.b.i_equal(t.bool, None, grp, rc)?;
                let w = self.b.vector_extract_dynamic(t.u32, None, x, comp)?;
                v = self.b.select(t.u32, None, is, w, v)?;
            }
            let nc = self.c32(n);
            let mine = self.b.u_less_than(t.bool, None, f, nc)?;
            let elem = self.b.i_add(t.u32, None, base, grp)?;
            self.guarded(mine, None, |cx| {
                let p = cx.b.access_chain(t.wg_u32, None, bal, [elem, comp])?;
                cx.store(p, v)?;
                Ok(None)
            })?;
        }
        Ok(())
    }

    /// L46 (D246), after the exchange's barrier: the wave masks (u64) of the exchange's `n` ballots. Lane
    /// `l` of each subgroup reads subgroup `l % g`'s words of its wave, and the OR over blocks of `g`
    /// lanes joins the wave's `g` subgroups. L52: the lanes of a subgroup, `g` per ballot, read `s / g`
    /// ballots' words at once (one scalar load: lane `k` ballot `k / g`, clamped to the last), and each
    /// ballot's mask is shuffled from the first lane of its block, where a `uvec4` load of every ballot
    /// was four loads for lavapipe.
    fn lane_sub_ballots_load(&mut self, sb: SubBal, rot: Word, n: usize) -> R<Vec<Word>> {
        let t = self.t;
        let v4 = self.b.type_vector(t.u32, 4);
        let base = self.b.i_add(t.u32, None, rot, sb.read)?;
        let bal = self.lm().bal;
        let steps = sb.g.trailing_zeros();
        let mut masks = Vec::with_capacity(n);
        let whole = n == 1 || std::env::var_os("RDNA2SPV_SUB_WORDS").is_some_and(|v| v == "0");
        if !whole {
            let per = sb.s / sb.g;
            let scope = self.c32(spirv::Scope::Subgroup as u32);
            let (three, two) = (self.c32(3), self.c32(2));
            let blk = self.c32(steps);
            let own = self.b.shift_right_logical(t.u32, None, sb.sublane, blk)?;
            for q in 0..(n as u32).div_ceil(per) {
                let mut c = own;
                if q > 0 {
                    let qc = self.c32(q * per);
                    c = self.b.i_add(t.u32, None, c, qc)?;
                }
                if (q + 1) * per > n as u32 {
                    let (nc, last) = (self.c32(n as u32), self.c32(n as u32 - 1));
                    let inside = self.b.u_less_than(t.bool, None, c, nc)?;
                    c = self.b.select(t.u32, None, inside, c, last)?;
                }
                let grp = self.b.shift_right_logical(t.u32, None, c, two)?;
                let elem = self.b.i_add(t.u32, None, base, grp)?;
                let comp = self.b.bitwise_and(t.u32, None, c, three)?;
                let p = self.b.access_chain(t.wg_u32, None, bal, [elem, comp])?;
                let y = self.load_u32(p)?;
                let m = self.lane_sub_or(sb, t.u32, y, steps)?;
                for b in 0..per.min(n as u32 - q * per) {
                    let from = self.c32(b * sb.g);
                    let w = self
                        .b
                        .group_non_uniform_shuffle(t.u32, None, scope, m, from)?;
                    masks.push(self.b.u_convert(t.u64, None, w)?);
                }
            }
            return Ok(masks);
        }
        for r in 0..n.div_ceil(4) {
            let elem = if r == 0 {
                base
            } else {
                let rc = self.c32(r as u32);
                self.b.i_add(t.u32, None, base, rc)?
            };
            if n == 1 {
                let c0 = self.c32(0);
                let p = self.b.access_chain(t.wg_u32, None, bal, [elem, c0])?;
                let y = self.load_u32(p)?;
                let m = self.lane_sub_or(sb, t.u32, y, steps)?;
                masks.push(self.b.u_convert(t.u64, None, m)?);
                continue;
            }
            let pv = self.b.type_pointer(None, StorageClass::Workgroup, v4);
            let p = self.b.access_chain(pv, None, bal, [elem])?;
            let y = self.b.load(v4, None, p, None, [])?;
            let m = self.lane_sub_or(sb, v4, y, steps)?;
            for c in 0..(n - 4 * r).min(4) {
                let w = self.b.composite_extract(t.u32, None, m, [c as u32])?;
                masks.push(self.b.u_convert(t.u64, None, w)?);
            }
        }
        Ok(masks)
    }

    /// L46 (D246), for L23: per wave of the workgroup a word that is zero exactly when the wave's mask of
    /// the ballot `key` names ([`Self::lane_ballot_words`]) is (all L23 reads of them). The `waves × g`
    /// subgroup words of the ballot are spread over the lanes of each subgroup (lane `l` loads flat index
    /// `l + k × s`, which is subgroup `index % g` of wave `index / g`); the OR over blocks of `g` lanes of
    /// `word != 0` leaves wave `k × s / g + b`'s answer in lane `b × g`, and a shuffle from that lane gives
    /// it to every lane.
    fn lane_sub_ballot_any(&mut self, sb: SubBal, key: Word) -> R<Vec<Word>> {
        let t = self.t;
        let waves = self.lm().waves;
        let bal = self.lm().bal;
        let (two, three, z, one) = (self.c32(2), self.c32(3), self.c32(0), self.c32(1));
        let scope = self.c32(spirv::Scope::Subgroup as u32);
        let elem0 = self.b.shift_right_logical(t.u32, None, key, two)?;
        let comp = self.b.bitwise_and(t.u32, None, key, three)?;
        let flat = waves * sb.g;
        let per_k = sb.s / sb.g;
        let mut anys = Vec::new();
        for k in 0..flat.div_ceil(sb.s) {
            let kc = self.c32(k * sb.s);
            let f = self.b.i_add(t.u32, None, sb.sublane, kc)?;
            // Past the last subgroup (the last k only): element 0 is read, and counts as zero.
            let inside = if (k + 1) * sb.s <= flat {
                None
            } else {
                let fc = self.c32(flat);
                Some(self.b.u_less_than(t.bool, None, f, fc)?)
            };
            let f = match inside {
                Some(i) => self.b.select(t.u32, None, i, f, z)?,
                None => f,
            };
            let rc = self.c32(sb.r);
            let fr = self.b.i_mul(t.u32, None, f, rc)?;
            let e = self.b.i_add(t.u32, None, elem0, fr)?;
            let p = self.b.access_chain(t.wg_u32, None, bal, [e, comp])?;
            let v = self.load_u32(p)?;
            let mut nz = self.b.i_not_equal(t.bool, None, v, z)?;
            if let Some(i) = inside {
                nz = self.b.logical_and(t.bool, None, nz, i)?;
            }
            let c = self.b.select(t.u32, None, nz, one, z)?;
            anys.push(self.lane_sub_or(sb, t.u32, c, sb.g.trailing_zeros())?);
        }
        let mut out = Vec::with_capacity(waves as usize);
        for wv in 0..waves {
            let (k, b) = (wv / per_k, wv % per_k);
            let from = self.c32(b * sb.g);
            out.push(self.b.group_non_uniform_shuffle(
                t.u32,
                None,
                scope,
                anys[k as usize],
                from,
            )?);
        }
        Ok(out)
    }

    /// L38: the wave's words of the `nb` ballots of the buffer whose first element is `next` cleared,
    /// lane l clearing word k = l % wpw of ballot j = l / wpw (and l + wave size, ... when the ballots
    /// hold more words than the wave has lanes).
    fn lane_clear_ballots(&mut self, at: LaneAt, lane_id: Word, next: Word, nb: u32) -> R<()> {
        let t = self.t;
        let (ws, wpw, waves) = (self.ws, self.ws / 32, self.lm().waves);
        let (w, wave_words) = (self.lm().bal_w, at.wave_words);
        let z = self.c32(0);
        for r in 0..(nb * wpw).div_ceil(ws) {
            let o = self.c32(r * ws);
            let l = self.b.i_add(t.u32, None, lane_id, o)?;
            let limit = self.c32(nb * wpw);
            let mine = self.b.u_less_than(t.bool, None, l, limit)?;
            self.guarded(mine, None, |cx| {
                // The word within the buffer: ballot j's words start at j × waves × wpw.
                let o = if wpw == 1 {
                    let wc = cx.c32(waves);
                    cx.b.i_mul(t.u32, None, l, wc)?
                } else {
                    // wpw = 2: ballot j = l / 2, word l % 2.
                    let one = cx.c32(1);
                    let j = cx.b.shift_right_logical(t.u32, None, l, one)?;
                    let k = cx.b.bitwise_and(t.u32, None, l, one)?;
                    let st = cx.c32(waves * wpw);
                    let jo = cx.b.i_mul(t.u32, None, j, st)?;
                    cx.b.i_add(t.u32, None, jo, k)?
                };
                let word = cx.b.i_add(t.u32, None, o, wave_words)?;
                let at = if w == 1 {
                    BalAt {
                        elem: cx.b.i_add(t.u32, None, next, word)?,
                        comp: None,
                    }
                } else {
                    let sh = cx.c32(w.trailing_zeros());
                    let m = cx.c32(w - 1);
                    let e = cx.b.shift_right_logical(t.u32, None, word, sh)?;
                    BalAt {
                        elem: cx.b.i_add(t.u32, None, next, e)?,
                        comp: Some(cx.b.bitwise_and(t.u32, None, word, m)?),
                    }
                };
                let p = cx.lane_bal_ptr(at)?;
                cx.store(p, z)?;
                Ok(None)
            })?;
        }
        Ok(())
    }

    /// The first element of wave 0's words of ballot `j` in the latest exchange's buffer (D136; every
    /// wave's words of it follow).
    pub(crate) fn lane_ballot_words(&mut self, j: u32) -> R<Option<Word>> {
        let Some(b) = self.lm().last_ballots else {
            return Ok(None);
        };
        if self.lm().sub.is_some() {
            // L46 (D246): `4 × buffer's first element + j` (element and component of ballot j's words).
            let (two, jc) = (self.c32(2), self.c32(j));
            let b4 = self.b.shift_left_logical(self.t.u32, None, b, two)?;
            return Ok(Some(self.b.i_add(self.t.u32, None, b4, jc)?));
        }
        if j == 0 {
            return Ok(Some(b));
        }
        let o = self.c32(j * self.lm().waves * (self.ws / 32) / self.lm().bal_w);
        Ok(Some(self.b.i_add(self.t.u32, None, b, o)?))
    }

    /// A pointer to the ballot word at `at` (u32).
    fn lane_bal_ptr(&mut self, at: BalAt) -> R<Word> {
        let bal = self.lm().bal;
        let wg = self.t.wg_u32;
        Ok(match at.comp {
            None => self.b.access_chain(wg, None, bal, [at.elem])?,
            Some(c) => self.b.access_chain(wg, None, bal, [at.elem, c])?,
        })
    }

    /// Every wave's words of the ballot whose wave-0 words start at element `e0` ([`Self::lane_ballot_words`]),
    /// in order (wave 0's first): loads of the components of as few elements as they span, each element
    /// index one id, so lane::shrink's rewrite `v` makes each element one vector load (L39).
    pub(crate) fn lane_ballot_all_waves(&mut self, e0: Word) -> R<Vec<Word>> {
        let (w, waves) = (self.lm().bal_w, self.lm().waves);
        let t = self.t;
        if let Some(sb) = self.lm().sub {
            return self.lane_sub_ballot_any(sb, e0);
        }
        let n = waves * (self.ws / 32);
        let mut out = Vec::with_capacity(n as usize);
        for g in 0..n / w {
            let elem = if g == 0 {
                e0
            } else {
                let o = self.c32(g);
                self.b.i_add(t.u32, None, e0, o)?
            };
            for k in 0..w {
                let comp = (w > 1).then(|| self.c32(k));
                let p = self.lane_bal_ptr(BalAt { elem, comp })?;
                out.push(self.load_u32(p)?);
            }
        }
        Ok(out)
    }

    /// The exchanged word of lane `lane` (u32) at `slot` (a vector slot's component through one access
    /// chain: `lane::shrink` joins loads of several components of one element into one vector load).
    pub(crate) fn lane_slot(&mut self, slot: Slot, lane: Word) -> R<Word> {
        let exch = self.lm().exch;
        let idx = self.b.i_add(self.t.u32, None, slot.base, lane)?;
        let p = match slot.comp {
            None => self.b.access_chain(self.t.wg_u32, None, exch, [idx])?,
            Some(c) => {
                let cc = self.c32(c);
                self.b.access_chain(self.t.wg_u32, None, exch, [idx, cc])?
            }
        };
        self.load_u32(p)
    }

    /// After the lane body of a phase of the instruction whose first node is `start`: exchanges the
    /// sources of the phase's capture nodes (`nodes`) and makes their results uniform values. L35: the
    /// exchange also carries the values the plan lists for later instructions of the block, and an
    /// instruction the plan coalesced reads its values from that earlier exchange's slots (no exchange,
    /// no barrier of its own).
    pub(crate) fn lane_captures(&mut self, start: usize, nodes: &[usize]) -> R<()> {
        if nodes.is_empty() {
            return Ok(());
        }
        let mut own = Vec::new();
        let nodes: Vec<usize> = nodes
            .iter()
            .copied()
            .filter(|&i| {
                let e = self.lane_elided(i);
                if e {
                    own.push(i);
                }
                !e
            })
            .collect();
        for i in own {
            self.lane_own_ballot(i)?;
        }
        if nodes.is_empty() {
            return Ok(());
        }
        let nodes = &nodes[..];
        let mut sources: Vec<Source> = Vec::new();
        for &i in nodes {
            let s = self
                .source_of(i)
                .ok_or_else(|| self.unsupported("capture without a source"))?;
            if !sources.contains(&s) {
                sources.push(s);
            }
        }
        let value_sources: Vec<Source> = sources
            .iter()
            .copied()
            .filter(|s| matches!(s, Source::Value(_)))
            .collect();
        let ballot_sources: Vec<Source> = sources
            .iter()
            .copied()
            .filter(|s| matches!(s, Source::Ballot(_)))
            .collect();
        let (bases, masks) = if self.lane_plan().coalesced.contains_key(&start) {
            // L35: the values rode on an earlier exchange of the block (the plan: VGPR reads only,
            // no ballot, no VGPR written and no other value exchange since).
            let carried = &self.lm().carried;
            let bases = value_sources
                .iter()
                .map(|s| match s {
                    Source::Value(a) => carried.get(&a.index()).copied(),
                    Source::Ballot(_) => None,
                })
                .collect::<Option<Vec<Slot>>>()
                .ok_or_else(|| self.unsupported("a coalesced capture without its carried value"))?;
            if !ballot_sources.is_empty() {
                return Err(self.unsupported("a coalesced ballot"));
            }
            (bases, Vec::new())
        } else {
            self.lane_exchange_sources(start, nodes, &sources)?
        };
        self.lane_capture_results(nodes, &value_sources, &ballot_sources, &bases, &masks)
    }

    /// One exchange of `sources` (in order) and of the values the plan carries on it for later
    /// instructions (L35); returns the value sources' slot bases and the ballots' masks.
    fn lane_exchange_sources(
        &mut self,
        start: usize,
        nodes: &[usize],
        sources: &[Source],
    ) -> R<(Vec<Slot>, Vec<Word>)> {
        let t = self.t;
        let mut vals = Vec::new();
        // L36: the instruction's stale mask units first (ballots 0..), made whole here.
        let merged = self.lane_merged_units(start)?;
        let mut bools: Vec<Word> = merged.iter().map(|&(_, b)| b).collect();
        // L50: the later ballots formed whole on the merged units' exchange, after them.
        let futs = self.lane_merged_futures(start, &mut bools)?;
        for s in sources {
            match *s {
                Source::Ballot(cond) => {
                    let c = self.get(cond)?;
                    let act = self.active.expect("lane body emitted");
                    let both = self.b.logical_and(t.bool, None, c, act)?;
                    for &i in nodes {
                        if self.source_of(i) == Some(*s) {
                            self.lane_set_bit(i, both);
                        }
                    }
                    bools.push(both);
                }
                Source::Value(a) => {
                    let x = self.get(a)?;
                    let v = match self.ty(a.index()) {
                        Ty::B1 => {
                            let one = self.c32(1);
                            let z = self.c32(0);
                            self.b.select(t.u32, None, x, one, z)?
                        }
                        Ty::B16 | Ty::B32 => x,
                        Ty::B64 => {
                            return Err(self.unsupported(
                                "a 64-bit cross-lane read is not lowered in the lane mapping",
                            ))
                        }
                    };
                    let v = self.lane_zero_outside_exec(a.index(), v)?;
                    vals.push(v);
                }
            }
        }
        let own = vals.len();
        let carried = self
            .lane_plan()
            .carried
            .get(&start)
            .cloned()
            .unwrap_or_default();
        for &a in &carried {
            // L35: a later instruction's VGPR read, read here (no VGPR it reads is written before it).
            let node = self.p.nodes[Handle::from_index(a)].clone();
            let v = self.pure(a, &node)?;
            let v = self.lane_zero_outside_exec(a, v)?;
            vals.push(v);
        }
        let (mut bases, mut masks) = self.lane_exchange(&vals, &bools)?;
        let later = bases.split_off(own);
        let m = self.lm_mut();
        m.carried.clear();
        m.carried.extend(carried.into_iter().zip(later));
        let inst_masks = masks.split_off(merged.len() + futs.len());
        self.lane_future_fulls(&futs, &masks[merged.len()..])?;
        if !merged.is_empty() {
            let mut exec = false;
            for (j, (&(u, _), &full)) in merged.iter().zip(&masks).enumerate() {
                // EXEC's wave-0 ballot words (D136).
                let words = if u == EXEC_LO as u32 {
                    self.lane_ballot_words(j as u32)?
                } else {
                    None
                };
                exec |= u == EXEC_LO as u32;
                self.mask_write_back(start, u, full, words)?;
            }
            if exec {
                // EXEC's words were written back: the instruction's later phases read them.
                self.read_exec()?;
            }
        }
        Ok((bases, inst_masks))
    }

    /// D278: the word an exchange stores for value `a` (`x`): 0 in the lanes outside EXEC (the lane's own
    /// EXEC bit at this instruction, `on` included) when only bpermute picks read `a`'s slots.
    fn lane_zero_outside_exec(&mut self, a: usize, x: Word) -> R<Word> {
        if !self.sub.zero.vals.contains(&a) {
            return Ok(x);
        }
        let act = self.active.expect("lane body emitted");
        let z = self.c32(0);
        Ok(self.b.select(self.t.u32, None, act, x, z)?)
    }

    /// L35/L40: no exchange's carried values are readable from here on (a new chain item starts).
    pub(crate) fn lane_forget_carried(&mut self) {
        if let Some(m) = self.lm.as_mut() {
            m.carried.clear();
        }
    }

    /// The capture nodes' results from the slot bases of the value sources and the ballots' masks.
    fn lane_capture_results(
        &mut self,
        nodes: &[usize],
        value_sources: &[Source],
        ballot_sources: &[Source],
        bases: &[Slot],
        masks: &[Word],
    ) -> R<()> {
        let t = self.t;
        let ws = self.ws;
        self.lm_mut().picks.bases.clear();
        for &i in nodes {
            let s = self.source_of(i).expect("checked above");
            let node = self.p.nodes[Handle::from_index(i)].clone();
            if let (Node::ReadLane { a, .. }, true) = (&node, self.lm().picks.inner.contains(&i)) {
                // A leaf of a pick tree (D188): its root reads the slot.
                let base = bases[value_sources.iter().position(|x| *x == s).expect("listed")];
                self.lm_mut().picks.bases.insert(a.index(), base);
                continue;
            }
            let v = match node {
                Node::Ballot { .. } => {
                    masks[ballot_sources.iter().position(|x| *x == s).expect("listed")]
                }
                Node::ReadLane { a, lane } => {
                    let base = bases[value_sources.iter().position(|x| *x == s).expect("listed")];
                    let l = self.get(lane)?;
                    let mask = self.c32(ws - 1);
                    let l = self.b.bitwise_and(t.u32, None, l, mask)?;
                    let w = self.lane_slot(base, l)?;
                    self.lane_unslot(a, w)?
                }
                Node::ReadFirstLane { a } => {
                    let base = bases[value_sources.iter().position(|x| *x == s).expect("listed")];
                    let first = self.first_exec_lane()?;
                    let w = self.lane_slot(base, first)?;
                    self.lane_unslot(a, w)?
                }
                _ => return Err(self.unsupported("not a capture")),
            };
            self.uni.insert(i, v);
        }
        Ok(())
    }

    /// An exchanged word back as the type of node `a`.
    fn lane_unslot(&mut self, a: Handle<Node>, w: Word) -> R<Word> {
        Ok(if self.ty(a.index()) == Ty::B1 {
            let z = self.c32(0);
            self.b.i_not_equal(self.t.bool, None, w, z)?
        } else {
            w
        })
    }

    /// The first lane set in EXEC (0 when EXEC is zero), as the wave mapping's ReadFirstLane.
    fn first_exec_lane(&mut self) -> R<Word> {
        let t = self.t;
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
        Ok(self.b.select(t.u32, None, none, z32, first)?)
    }

    /// Before a lane phase that touches LDS: a barrier when an earlier access of another lane could
    /// conflict (a write before any access, a read before a write).
    pub(crate) fn lane_lds_fence(&mut self, nodes: &[usize]) -> R<()> {
        let st = self.lm().lds;
        let accesses: Vec<(usize, bool)> = nodes
            .iter()
            .filter_map(|&i| match self.p.nodes[Handle::from_index(i)] {
                Node::Load {
                    space: Space::Lds, ..
                }
                | Node::LoadIf {
                    space: Space::Lds, ..
                } => Some((i, false)),
                Node::Store {
                    space: Space::Lds, ..
                }
                | Node::StoreIf {
                    space: Space::Lds, ..
                }
                | Node::Atomic {
                    space: Space::Lds, ..
                }
                | Node::AtomicIf {
                    space: Space::Lds, ..
                } => Some((i, true)),
                _ => None,
            })
            .collect();
        if accesses.is_empty() {
            return Ok(());
        }
        let writes = accesses.iter().any(|a| a.1);
        if (st == LdsState::Written || (writes && st == LdsState::Read))
            && !self.lane_lds_disjoint(&accesses)
        {
            self.lane_barrier()?;
        }
        let m = self.lm.as_mut().expect("lane mapping");
        if let Some(seen) = m.lds_seen.as_mut() {
            seen.extend(accesses);
        }
        m.lds = if writes || m.lds == LdsState::Written {
            LdsState::Written
        } else {
            LdsState::Read
        };
        Ok(())
    }

    /// Whether the LDS accesses of a phase (`accesses`: node, writes) can follow those since the last
    /// barrier without one: every earlier access is known (all in this block) and no lane's access
    /// touches a dword that another lane's access touched where either of the two writes (D120,
    /// `ldsaddr.rs`).
    fn lane_lds_disjoint(&self, accesses: &[(usize, bool)]) -> bool {
        let m = self.lm();
        let Some(seen) = &m.lds_seen else {
            return false;
        };
        accesses.iter().all(|&(a, aw)| {
            seen.iter()
                .all(|&(b, bw)| !(aw || bw) || !m.lds_addrs.conflict(a, b))
        })
    }

    /// L47 (D248): whether LDS access `node` is proven inside the kernel's LDS for every lane that
    /// performs it ([`ldsaddr::LdsAddrs::within`]): checked mode leaves out its bounds test.
    pub(crate) fn lane_lds_within(&self, node: usize) -> bool {
        self.lm
            .as_ref()
            .is_some_and(|m| m.lds_addrs.within(node, self.desc.lds_bytes))
    }

    /// D272: whether `base + offset` of LDS access `node` cannot wrap around 2^32 in a lane that performs
    /// it (`ldsaddr.rs`): its dword index is then `(base >> 2) + offset / 4`.
    pub(crate) fn lane_lds_fits(&self, node: usize) -> bool {
        self.lm.as_ref().is_some_and(|m| m.lds_addrs.fits(node))
    }

    /// At block `b`'s start: the LDS history its predecessors leave (D106; `lds.rs`).
    pub(crate) fn lane_block_start(&mut self, b: usize) {
        if let Some(m) = self.lm.as_mut() {
            m.lds = match &m.lds_flow {
                Some(f) => f.at_start(b),
                None => LdsState::Written,
            };
            m.lds_seen = (m.lds == LdsState::Clean).then(Vec::new);
        }
    }

    /// Workgroup-uniform `label in [lo, hi)` for the structured constructs: with several waves, whether
    /// any wave's published label lies in the range; with one wave, the label itself.
    pub(crate) fn lane_vote(&mut self, lo: u32, hi: u32) -> R<Word> {
        let t = self.t;
        let scalar = labels::Lanes::scalar(&t);
        let Some((_, _, _, copy)) = self.lm().labels.filter(|_| !self.lm().local) else {
            let l = self.load_u32(self.label)?;
            return self.lanes_in(scalar, l, lo, hi);
        };
        // Every block of the range converged: some wave's label is in it exactly when wave 0's is
        // (D141); wave 0's copy alone. Otherwise every copy the invocation keeps: with the copies
        // collapsed (D141 use 3: a range holding a lane-local loop's blocks, never converged themselves,
        // in a kernel otherwise converged) that is wave 0's alone too, the only copy written (D151).
        let waves = if self.lm().conv.range(lo, hi) {
            1
        } else {
            self.lane_copies()
        };
        let test = |cx: &mut Self, l: Word, s: labels::Lanes| cx.lanes_in(s, l, lo, hi);
        if waves == 1 && self.lane_copies() > 1 {
            // Wave 0's copy alone: component 0 of the first vector.
            let (_, p) = self.copy_group(copy, 0)?;
            let (width, _) = labels::copy_layout(self.lm().waves);
            let vt = self.b.type_vector(t.u32, width);
            let v = self.b.load(vt, None, p, None, [])?;
            let l = self.b.composite_extract(t.u32, None, v, [0])?;
            return test(self, l, scalar);
        }
        self.lane_test_copies(copy, true, test)
    }

    /// Several waves, after a block `n` whose every wave leaves to the same label `to` (a jump, the end,
    /// a barrier): this invocation's copy of the labels follows without any exchange (the waves that ran
    /// the block "on" are exactly those whose label was `n`).
    pub(crate) fn lane_advance(&mut self, n: u32, to: u32) -> R<()> {
        let Some((_, _, _, copy)) = self.lm().labels.filter(|_| !self.lm().local) else {
            return Ok(());
        };
        self.lane_update_copies(copy, |cx, l, s| {
            let nc = cx.lanes_const(s, n);
            let toc = cx.lanes_const(s, to);
            let was = cx.b.i_equal(s.b, None, l, nc)?;
            Ok(cx.b.select(s.u, None, was, toc, l)?)
        })
    }

    /// Several waves: publishes this wave's label (lane 0 writes the other parity's slot), one barrier,
    /// flips the parity and reads every wave's label into this invocation's copy. Nothing with one wave.
    pub(crate) fn lane_publish(&mut self) -> R<()> {
        let Some((labels, par_var, _, copy)) = self.lm().labels.filter(|_| !self.lm().local) else {
            return Ok(());
        };
        if self.lm().conv.all {
            return Err(LowerError::Build(
                "a label publication in a workgroup-converged kernel (D141)".into(),
            ));
        }
        let t = self.t;
        let (waves, at) = (self.lm().waves, self.lm().at);
        // Wave w's label is component w % width of the vector at the other parity's first element
        // (0 or `groups`, the variable holds the one last read) + w / width (D231).
        let (width, groups) = labels::copy_layout(waves);
        let gc = self.c32(groups);
        let par = self.load_u32(par_var)?;
        let base = self.b.i_sub(t.u32, None, gc, par)?;
        let (elem, comp) = at.label;
        let idx = self.b.i_add(t.u32, None, base, elem)?;
        let l = self.load_u32(self.label)?;
        self.guarded(at.first, None, |cx| {
            let p = cx.b.access_chain(t.wg_u32, None, labels, [idx, comp])?;
            cx.store(p, l)?;
            Ok(None)
        })?;
        self.lane_barrier()?;
        self.store(par_var, base)?;
        let endc = self.c32(super::structured::END);
        for g in 0..groups {
            let (s, q) = self.copy_group(copy, g)?;
            let k = self.c32(g);
            let i = self.b.i_add(t.u32, None, base, k)?;
            let pt = self.b.type_pointer(None, StorageClass::Workgroup, s.u);
            let p = self.b.access_chain(pt, None, labels, [i])?;
            let mut v = self.b.load(s.u, None, p, None, [])?;
            // Components past the last wave: never written; END in the copies.
            for c in 0..width {
                if g * width + c >= waves {
                    v = self.b.composite_insert(s.u, None, endc, v, [c])?;
                }
            }
            self.store(q, v)?;
        }
        Ok(())
    }

    /// Whether `on` is known to hold for the code being emitted (D238): several waves, inside a loop run
    /// on each invocation's own label (L16, L45), whose items are entered on `label == n` (not a vote),
    /// so every invocation that runs an item is on.
    pub(crate) fn lane_on_known(&self) -> bool {
        self.lm
            .as_ref()
            .is_some_and(|m| m.labels.is_some() && m.local)
    }

    /// Several waves: `on = label in [n, n + 1)` at the start of a block item run by the workgroup
    /// (nothing where `on` is known, [`Self::lane_on_known`]).
    pub(crate) fn lane_set_on(&mut self, n: u32) -> R<()> {
        let Some((_, _, on, _)) = self.lm().labels else {
            return Ok(());
        };
        if self.lane_on_known() {
            return Ok(());
        }
        // A top chain of converged waves before any loop (D144): every wave with work is at `n`
        // (D143 (c)), an empty wave is not; so `label == n` is the wave's `running`.
        let c = match (self.lm().top_on, self.lm().running) {
            (true, Some(running)) => running,
            _ => self.label_in(n, n + 1)?,
        };
        self.store(on, c)
    }

    /// A structured loop item is emitted (D144): from here on a top chain's `on` stays the label test.
    pub(crate) fn lane_loop_item(&mut self) {
        if let Some(m) = self.lm.as_mut() {
            m.looped = true;
        }
    }

    /// Stores `v` to the Function variable `var` only where the wave is on (several waves).
    pub(crate) fn lane_store_on(&mut self, var: Word, ty: Word, v: Word) -> R<()> {
        let Some((_, _, on, _)) = self.lm.as_ref().and_then(|m| m.labels) else {
            return self.store(var, v);
        };
        if self.lane_on_known() {
            return self.store(var, v);
        }
        let o = self.load_bool(on)?;
        let old = self.b.load(ty, None, var, None, [])?;
        let x = self.b.select(ty, None, o, v, old)?;
        self.store(var, x)
    }

    /// The wave's flag from every lane's flag (u32) without an exchange or an atomic (D107, D116): each
    /// wave has `wave size` flag words (the runner's flags buffer starts zero-filled, `lin` is the wave's
    /// index in the dispatch), lane 0 stores its flag to its word and every other lane whose flag is not
    /// FINISHED stores it to its own; the runner takes the wave's flag as the maximum of its words.
    /// FINISHED (1) is below every other flag and every lane's flag is at least FINISHED, so that maximum
    /// is the maximum over all lanes: FINISHED only when every lane finished, else the largest other flag.
    /// A lane that stores nothing leaves a 0, which changes no maximum that lane 0's flag takes part in.
    pub(crate) fn lane_flag_store(&mut self, flags: Word, lin: Word, flag: Word) -> R<()> {
        const _: () = assert!(
            super::FLAG_FINISHED == 1
                && super::FLAG_CUT_SHORT > 1
                && super::FLAG_MISALIGNED > 1
                && super::FLAG_SCRATCH_FAULT > 1
                && super::FLAG_OOB > 1
                && super::FLAG_REFUSED > 1
        );
        let t = self.t;
        let ws = self.ws;
        self.b.module_processed(format!("{FLAG_SLOTS_MARK}{ws}"));
        let lane_id = self.lm().lane_id;
        let z = self.c32(0);
        let first = self.b.i_equal(t.bool, None, lane_id, z)?;
        let fin = self.c32(super::FLAG_FINISHED);
        let other = self.b.i_not_equal(t.bool, None, flag, fin)?;
        let go = self.b.logical_or(t.bool, None, first, other)?;
        let wsc = self.c32(ws);
        let slot = self.b.i_mul(t.u32, None, lin, wsc)?;
        let slot = self.b.i_add(t.u32, None, slot, lane_id)?;
        let slot = self.b.u_convert(t.u64, None, slot)?;
        let four = self.c64(4);
        let off = self.b.i_mul(t.u64, None, slot, four)?;
        let a = self.b.i_add(t.u64, None, flags, off)?;
        // A plain store: on lavapipe an atomic is a loop over the SIMD lanes that builds a result vector
        // even for the inactive ones; a store skips them.
        self.guarded(go, None, |cx| {
            let p = cx.b.convert_u_to_ptr(t.psb_u32, None, a)?;
            cx.plain_store(Space::Global, p, flag)?;
            Ok(None)
        })?;
        Ok(())
    }

    /// `on` for the current instruction.
    pub(crate) fn lane_on_now(&self) -> Word {
        self.lm().on_now
    }

    /// A uniform memory access (executed by every lane), which a wave that is off must not perform.
    pub(crate) fn lane_uniform_memory(&self, i: usize) -> bool {
        matches!(
            self.p.nodes[Handle::from_index(i)],
            Node::Load { .. } | Node::Store { .. }
        )
    }

    /// [`Self::uniform_node`] under `on` (a load gives 0 where the wave is off).
    pub(crate) fn lane_uniform_guarded(&mut self, i: usize) -> R<()> {
        if self.lane_on_known() {
            return self.uniform_node(i);
        }
        let is_load = matches!(self.p.nodes[Handle::from_index(i)], Node::Load { .. });
        let ty = self.spv_ty(self.ty(i));
        let on = self.lane_on_now();
        let v = self.guarded(on, is_load.then_some(ty), |cx| {
            cx.uniform_node(i)?;
            Ok(if is_load {
                cx.uni.get(&i).copied()
            } else {
                None
            })
        })?;
        if let Some(v) = v {
            self.uni.insert(i, v);
        }
        Ok(())
    }

    /// Sets up D142's gate at the module's start (`none`: the wave has no work-item): a split module
    /// (D105) whose lone wave runs its entry chain at the top may be an empty wave, whose chain then runs
    /// off. Nothing in other modules (a one-wave workgroup always has a work-item in its wave).
    pub(crate) fn lane_set_live(&mut self, none: Word) -> R<()> {
        if self.lane_multi() {
            // D144: the wave's running flag, for the `on` of converged top chains.
            let running = self.b.logical_not(self.t.bool, None, none)?;
            self.lm.as_mut().expect("lane mapping").running = Some(running);
        }
        if self.split <= 1 || !self.lane_solo() {
            return Ok(());
        }
        let live = self.b.logical_not(self.t.bool, None, none)?;
        let free = self.launch_segment_loads();
        self.lm.as_mut().expect("lane mapping").live = Some((live, free));
        Ok(())
    }

    /// `live` while a gated entry chain is emitted (D142).
    fn lane_gate_live(&self) -> Option<Word> {
        let m = self.lm.as_ref()?;
        m.live.as_ref().filter(|_| m.gate).map(|l| l.0)
    }

    /// Starts (`true`) or ends a chain emitted at the top of a one-pass module: D142's entry chain, at
    /// whose end an empty split wave's label becomes END again, whatever the chain (run off) stored; or
    /// a top chain of converged waves (D143), whose launch-segment loads every invocation performs.
    pub(crate) fn lane_top_chain(&mut self, start: bool) -> R<()> {
        if self.lm.as_ref().is_some_and(|m| m.conv.one_pass) {
            // Several converged waves (D143): the empty waves run the chain off through `on`, as any
            // converged item; their label stays END.
            let free = start.then(|| self.launch_segment_loads());
            let m = self.lm.as_mut().expect("lane mapping");
            m.top_free = free;
            m.top_on = start && !m.looped;
            return Ok(());
        }
        let Some(live) = self.lm.as_ref().and_then(|m| m.live.as_ref()).map(|l| l.0) else {
            return Ok(());
        };
        self.lm.as_mut().expect("lane mapping").gate = start;
        if !start {
            let l = self.load_u32(self.label)?;
            let end = self.c32(super::structured::END);
            let l = self.b.select(self.t.u32, None, live, l, end)?;
            self.store(self.label, l)?;
        }
        Ok(())
    }

    /// Whether uniform memory node `i` is guarded by `live` in a gated entry chain (D142): every uniform
    /// load or store except the scalar loads that read inside a launch segment (D132), which read
    /// allocated memory at the same address in every wave and have no effect besides their value.
    pub(crate) fn lane_gated_memory(&self, i: usize) -> bool {
        self.lm
            .as_ref()
            .is_some_and(|m| m.gate && m.live.as_ref().is_some_and(|(_, free)| !free.contains(&i)))
    }

    /// Whether uniform memory node `i` is performed by every invocation, not only where `on` (D143): a
    /// scalar load that reads inside a launch segment (D132) in a chain at the top of a converged
    /// multi-wave module. The waves with work run that chain on; an empty wave reads allocated memory
    /// at the same address and the value only reaches its own SGPRs, which nothing else reads (D141).
    pub(crate) fn lane_top_free(&self, i: usize) -> bool {
        self.lm
            .as_ref()
            .and_then(|m| m.top_free.as_ref())
            .is_some_and(|f| f.contains(&i))
    }

    /// The flag of a wave that may be empty (D142): FINISHED for an empty wave, as when its chain never
    /// ran (`done` from the start, nothing counted or reported), else `flag`.
    pub(crate) fn lane_live_flag(&mut self, flag: Word) -> R<Word> {
        let Some(live) = self.lm.as_ref().and_then(|m| m.live.as_ref()).map(|l| l.0) else {
            return Ok(flag);
        };
        let fin = self.c32(super::FLAG_FINISHED);
        Ok(self.b.select(self.t.u32, None, live, flag, fin)?)
    }

    /// A scratch store in the lane mapping: an aligned dword is one plain store; anything else merges its
    /// bytes into the two dwords with atomic AND/OR, because the neighbouring dwords of the swizzled region
    /// belong to other lanes, which run concurrently (the wave mapping's read-merge-write would lose their
    /// stores). `sh` is the bit position (u64) of the first byte in the pair.
    pub(crate) fn lane_scratch_store(
        &mut self,
        p0: Word,
        p1: Word,
        sh: Word,
        bytes: u32,
        v: Word,
    ) -> R<()> {
        let t = self.t;
        let z = self.c64(0);
        let aligned = self.b.i_equal(t.bool, None, sh, z)?;
        let whole = if bytes == 4 { aligned } else { self.cfalse() };
        let (then_l, else_l, merge) = (self.b.id(), self.b.id(), self.b.id());
        self.b
            .selection_merge(merge, spirv::SelectionControl::NONE)?;
        self.b.branch_conditional(whole, then_l, else_l, [])?;
        self.begin(then_l)?;
        self.plain_store(Space::Global, p0, v)?;
        self.b.branch(merge)?;
        self.begin(else_l)?;
        let mc = self.c64((1u64 << (8 * bytes)) - 1);
        let m64 = self.b.shift_left_logical(t.u64, None, mc, sh)?;
        let v64 = self.b.u_convert(t.u64, None, v)?;
        let v64 = self.b.bitwise_and(t.u64, None, v64, mc)?;
        let v64 = self.b.shift_left_logical(t.u64, None, v64, sh)?;
        let dev = self.c32(spirv::Scope::Device as u32);
        let relaxed = self.c32(0);
        let c32 = self.c64(32);
        for (k, p) in [p0, p1].into_iter().enumerate() {
            let (m, x) = if k == 0 {
                (m64, v64)
            } else {
                (
                    self.b.shift_right_logical(t.u64, None, m64, c32)?,
                    self.b.shift_right_logical(t.u64, None, v64, c32)?,
                )
            };
            let m = self.b.u_convert(t.u32, None, m)?;
            let x = self.b.u_convert(t.u32, None, x)?;
            let keep = self.b.not(t.u32, None, m)?;
            self.b.atomic_and(t.u32, None, p, dev, relaxed, keep)?;
            self.b.atomic_or(t.u32, None, p, dev, relaxed, x)?;
        }
        self.b.branch(merge)?;
        self.begin(merge)
    }
}
