//! The lane plan (decision D177): every decision of the lane mapping's analyses, computed from the lifted
//! [`Program`], its [`KernelLayout`] and the [`LowerOptions`] alone, before any SPIR-V is emitted.
//!
//! [`lane_plan`] runs the analyses of `lane/` once — the split (L17), the solo and one-pass forms (L18,
//! L26, L27), the exchange sizes (L2, L3), the mask plan (L9–L15: dead SCC writes, tracked units, stale
//! words, vote-free skips, lane-local exits, each block's own-bit and materialised nodes), the
//! convergence facts (L25), the lane-local loops (L16), the chains (L24), the LDS history and address
//! facts (L7, L8), the static resume points (L20), the EXEC-branch labels from the ballot words (L23),
//! the meetings at `s_barrier` (L22, L27) and the barrier sites by kind — or says why the lane mapping
//! refuses the kernel (L33). The emitter (`impl Cx` in `lower/mod.rs`) receives the plan and reads these
//! decisions from it; what is still decided while emitting (the LDS fences, L6/L8 against the accesses
//! actually emitted since the last barrier) is listed in D177.
//!
//! The plan prints as text ([`LanePlan`]'s `Display`), one line per decision, each naming its rule as in
//! docs/lane-mapping.md; `rdna2spv translate --dump-lane-plan` prints it.
//!
//! The analyses are still methods of the emitter's context type `Cx` (they read the program through it);
//! [`lane_plan`] runs them on a context of its own whose module is never finished or returned.

use crate::hash::HashSet;
use std::fmt;

use rdna2spv_ir::cfg::{ends_with_barrier, Item, Structure};
use rdna2spv_ir::{verify, Handle, Node, Program, Space, Ty, EXEC_LO, VCC_LO};

use super::super::{Cx, KernelLayout, Kind, LowerError, LowerOptions, Mapping, R};
use super::{converged, lds, ldsaddr, masks, pick, split, sublane, Source, EXCHANGE_BUDGET};
use crate::profile::DeviceProfile;

/// How the waves meet after a block that ends with `s_barrier` (L22, L27).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Meet {
    /// One wave per Vulkan workgroup: it has paused, its resume number lies ahead; met with no test.
    Alone,
    /// The whole kernel converged, every barrier resumed ahead (D143): met with no test.
    Always,
    /// Met in place when every wave's copy says ended or paused at a number at least `ahead` (D134).
    Tested { ahead: u32 },
    /// No static resume points: the pass ends at the pause (L21's round).
    PassEnd,
}

/// A loop run on each invocation's own label (L16, D133): its structured range and its exit's number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LocalLoop {
    pub(crate) lo: u32,
    pub(crate) hi: u32,
    pub(crate) exit: u32,
    /// L45 (D238): no lane leaves it alone; its exits are ordinary branches.
    pub(crate) wave: bool,
}

/// Every decision of the lane mapping's analyses for one kernel (D177).
pub struct LanePlan {
    pub(crate) wave_size: u32,
    pub(crate) workgroup: [u32; 3],
    /// Waves per kernel workgroup, and per Vulkan workgroup (1 when split).
    pub(crate) kernel_waves: u32,
    pub(crate) waves: u32,
    /// L17: waves per kernel workgroup run as Vulkan workgroups of their own (1: not split), and why not.
    pub(crate) split: u32,
    pub(crate) communicate: Option<&'static str>,
    /// L18/L26: one wave per Vulkan workgroup, no `s_barrier`, no LDS.
    pub(crate) solo: bool,
    /// L49 (D282): one wave per kernel workgroup that uses LDS or `s_barrier` (not solo): every
    /// `s_barrier` is met where it stands (L22's lone-wave meeting), so one pass runs the program.
    pub(crate) lone: bool,
    /// L2/L3: exchanged values and ballot sets one instruction may need.
    pub(crate) slots: u32,
    pub(crate) ballots: u32,
    /// L50: the ballot sets the mask exchanges would need without the later ballots on them (the
    /// units each makes whole; an estimate).
    pub(crate) ballots_unfut: u32,
    /// L20: every `s_barrier` block ends in a jump.
    pub(crate) static_resume: bool,
    /// L9–L15: the mask plan's analysis results (moved into the emitter's state when it starts).
    pub(crate) masks: masks::MaskPlan,
    /// L9/L10: per block, its own-bit and materialised nodes and the units made whole before each
    /// instruction.
    pub(crate) blocks: Vec<masks::BlockPlan>,
    /// L25, L27: the convergence facts.
    pub(crate) conv: converged::Convergence,
    /// L7: the LDS history fixed point.
    pub(crate) lds_flow: Option<lds::LdsFlow>,
    /// L8: the LDS address facts.
    pub(crate) lds_addrs: ldsaddr::LdsAddrs,
    /// L24: the block each block continues into in one chain item (when it is the next item).
    pub(crate) chain_next: Vec<Option<usize>>,
    /// L16: the loops run on each invocation's own label.
    pub(crate) local_loops: Vec<LocalLoop>,
    /// L4: blocks whose conditional branch publishes the labels (several waves).
    pub(crate) publishes: Vec<bool>,
    /// L23: blocks whose EXEC branch (or VCC branch, D234) takes every wave's label from the ballot
    /// words of the exchange that materialises that mask in its own instruction (several waves), instead
    /// of publishing: the mask unit (first SGPR: `EXEC_LO` or `VCC_LO`).
    pub(crate) exec_labels: Vec<Option<u32>>,
    /// L2/L3: the capture nodes (ballot, readlane, readfirstlane of a lane value) exchanged through
    /// workgroup memory (not dropped, not kept as own bits), and whether any node accesses LDS.
    pub(crate) captured: Vec<usize>,
    /// L2/L3: per instruction (its first node), the exchanges of its captures: one per phase that holds
    /// an exchanged capture.
    pub(crate) capture_exchanges: std::collections::BTreeMap<usize, u32>,
    /// L35: per instruction (its first node) whose captures ride on an earlier instruction's exchange,
    /// that instruction's first node.
    pub(crate) coalesced: std::collections::BTreeMap<usize, usize>,
    /// L35: per instruction (its first node) whose exchange carries later instructions' values, those
    /// values (their `ReadVgpr` nodes), in order.
    pub(crate) carried: std::collections::BTreeMap<usize, Vec<usize>>,
    /// L36: per instruction (its first node) whose stale mask units (L9's `pre`) are made whole on its
    /// own value exchange instead of an exchange of their own: those units, and the phase of that
    /// exchange (the instruction's reads of the units wait for the phase after it).
    pub(crate) merged: std::collections::BTreeMap<usize, (u128, u32)>,
    /// D278: zeroed bpermute values L35/L40 would have carried past an EXEC write (not carried).
    zero_conflicts: Vec<usize>,
    has_lds: bool,
    /// L22/L27: per block that ends with `s_barrier`.
    pub(crate) meets: Vec<Option<Meet>>,
    /// The structured number of each block (printing, and the loops' ranges).
    pub(crate) number: Vec<u32>,
    /// Per block, per instruction: its pc and text (printing).
    insts: Vec<Vec<(u32, String, std::ops::Range<u32>)>>,
    /// L44: the profile's aligned subgroup size (0: none), and the nodes read by a subgroup shuffle (pick
    /// roots, and bit tests of masks known only as own bits).
    pub(crate) subgroup: u32,
    pub(crate) shuffled: Vec<usize>,
    /// L44's analysis, moved into the emission's context (`lower_with`), and the pick trees (D188) it
    /// was made from, moved into the lane mode (`lane_setup`): each computed once.
    pub(crate) sub: sublane::SubPicks,
    pub(crate) picks: pick::Picks,
    /// The lane-mapping options that switch rules off (printing).
    lds_fences_all: bool,
    whole_workgroups: bool,
}

/// The lane plan of `program` for the layout and options (their mapping is taken as lane), or why the
/// lane mapping refuses the kernel (L33).
pub fn lane_plan(
    program: &Program,
    desc: &KernelLayout,
    profile: &DeviceProfile,
    opts: &LowerOptions,
) -> R<LanePlan> {
    let types = verify(program)?;
    super::super::check_layout(program, desc)?;
    plan_of(program, &types, desc, profile, opts)
}

/// [`lane_plan`] of a verified program (`types` from [`verify`]) whose layout is checked.
pub(crate) fn plan_of(
    program: &Program,
    types: &rdna2spv_ir::verify::Types,
    desc: &KernelLayout,
    profile: &DeviceProfile,
    opts: &LowerOptions,
) -> R<LanePlan> {
    let plan = plan_with(program, types, desc, profile, opts, false)?;
    if !plan.blocks.iter().any(|b| !b.fut.is_empty()) {
        return Ok(plan);
    }
    // L50: later ballots formed on an earlier exchange raise its ballot count; where that turns the
    // ballots through subgroup shuffles on (L46: the kernel's every exchange gathers by butterflies),
    // the plan without them is taken (measured: one exchange saved, 2,342 words added). The plan is
    // computed again only where the estimate says L46 may be off without them (a sort's plan takes
    // seconds).
    let cx = Cx::new(program, types, desc, profile, *opts)?;
    if cx.sub_ballots(plan.ballots) == 0 || cx.sub_ballots(plan.ballots_unfut) != 0 {
        return Ok(plan);
    }
    let without = plan_with(program, types, desc, profile, opts, true)?;
    Ok(
        if (cx.sub_ballots(plan.ballots) != 0) != (cx.sub_ballots(without.ballots) != 0) {
            without
        } else {
            plan
        },
    )
}

/// [`plan_of`] with L50's future ballots or without them (`no_futures`).
fn plan_with(
    program: &Program,
    types: &rdna2spv_ir::verify::Types,
    desc: &KernelLayout,
    profile: &DeviceProfile,
    opts: &LowerOptions,
    no_futures: bool,
) -> R<LanePlan> {
    let opts = LowerOptions {
        mapping: Mapping::Lane,
        ..*opts
    };
    // D278: a bpermute value an exchange would carry past an EXEC write is not zeroed in the next
    // round (its masks and exchanges planned again); three rounds at most, then such a value is not
    // carried.
    let mut off = HashSet::default();
    let mut round = 0;
    let plan = loop {
        let mut cx = Cx::new(program, types, desc, profile, opts)?;
        cx.future_disabled = no_futures;
        cx.zero_off = std::mem::take(&mut off);
        let plan = cx.lane_plan_compute()?;
        if plan.zero_conflicts.is_empty() || round == 2 {
            break plan;
        }
        off = cx.zero_off;
        off.extend(plan.zero_conflicts.iter().copied());
        round += 1;
    };
    if plan.sub.zero.vals.is_empty() {
        return Ok(plan);
    }
    // Zeroed exchanges leave EXEC stale where the bpermute made it whole: a later reader may then need
    // an exchange (or ballot words) of its own. The plan without them is taken when it has fewer
    // barriers or fewer ballot words per exchange.
    let mut cx = Cx::new(program, types, desc, profile, opts)?;
    cx.future_disabled = no_futures;
    cx.zero_disabled = true;
    let without = cx.lane_plan_compute()?;
    let (a, b) = (
        plan.barrier_sites().total(),
        without.barrier_sites().total(),
    );
    Ok(if a > b || (a == b && plan.ballots > without.ballots) {
        without
    } else {
        plan
    })
}

impl Cx<'_> {
    /// The plan (on a context whose module is never emitted; see [`lane_plan`]).
    pub(crate) fn lane_plan_compute(&mut self) -> R<LanePlan> {
        self.lane_check_options()?;
        let p = self.p;
        let nb = p.blocks.len();
        // L44 (before anything asks which nodes are local picks).
        let picks = pick::Picks::of(p);
        if self.prof.aligned_subgroup_size > 0 {
            self.sub = sublane::SubPicks::of(
                p,
                self.types,
                &picks,
                self.desc.workgroup,
                self.prof.aligned_subgroup_size,
            );
        }
        // D278 (after L44: a shuffled pick exchanges nothing).
        let zero = if self.zero_disabled {
            pick::ZeroPicks::default()
        } else {
            pick::ZeroPicks::of(p, self.types, &picks, &self.sub.roots, &self.zero_off)
        };
        self.sub.zero = zero;
        let split = split::split_waves(p, self.desc, self.opts.whole_workgroups);
        self.split = split;
        let kernel_waves = self.desc.waves_per_workgroup();
        let waves = if split > 1 { 1 } else { kernel_waves };
        let (mut slots, ballots) = self.lane_exchange_sizes(waves)?;
        let s = Structure::of(p);
        if self.opts.checked.is_some() {
            self.proven = self.launch_segment_loads();
        }
        self.structure = Some(s);
        self.lm = Some(super::LaneMode::for_analysis(waves));
        self.lm.as_mut().expect("set").lds_flow = Some(lds::LdsFlow::of(p, &[]));
        self.lane_plan_masks_compute();
        let mut s = self.structure.take().expect("set above");
        // L43: the blocks no way reaches once the vote-free branches go their one way are not items.
        self.masks().prune_unreached(&mut s.items);
        let mut conv = self.lane_convergence(&s);
        conv.one_pass = self.lane_meets_always(&s, &conv);
        self.lm.as_mut().expect("set").conv = conv;
        // L45: loops run on the invocations' own labels with ordinary exits (before the LDS history:
        // their blocks publish nothing).
        let wave_loops = self.lane_wave_loops_of(&s);
        self.lm.as_mut().expect("set").wave_loops =
            wave_loops.iter().map(|&(lo, hi, _)| (lo, hi)).collect();
        self.structure = Some(s);
        let publishes = self.lane_lds_flow_final();
        let static_resume = self.lane_static_resume();
        let solo =
            split::waves_communicate(p, self.desc).is_none() && (kernel_waves == 1 || split > 1);
        let chain_next = self.lane_chains();
        let s = self.structure.take().expect("set above");
        let mut local_loops = Vec::new();
        if waves > 1 {
            collect_loops(&s.items, &mut |lo, hi| {
                if let Some(exit) = self.lane_local_loop_of(&s.number, lo, hi) {
                    local_loops.push(LocalLoop {
                        lo,
                        hi,
                        exit,
                        wave: false,
                    });
                }
            });
            local_loops.extend(wave_loops.iter().map(|&(lo, hi, exit)| LocalLoop {
                lo,
                hi,
                exit,
                wave: true,
            }));
        }
        let blocks: Vec<masks::BlockPlan> = (0..nb).map(|b| self.lane_block_plan(b)).collect();
        let exec_labels = (0..nb)
            .map(|b| {
                if waves > 1
                    && !local_loops
                        .iter()
                        .any(|l: &LocalLoop| (l.lo..l.hi).contains(&s.number[b]))
                {
                    self.lane_exec_labels_of(b, &blocks[b])
                } else {
                    None
                }
            })
            .collect();
        let mut captured = Vec::new();
        let mut capture_exchanges = std::collections::BTreeMap::new();
        let mut coalesced = std::collections::BTreeMap::new();
        let mut carried: std::collections::BTreeMap<usize, Vec<usize>> =
            std::collections::BTreeMap::new();
        let mut merged = std::collections::BTreeMap::new();
        let mut zero_conflicts = Vec::new();
        let mut ballots = ballots;
        // L50: the ballot sets without the later ballots (an estimate for `plan_of`'s choice).
        let ballots_unfut = blocks
            .iter()
            .flat_map(|bp| bp.pre.values().map(|u| u.count_ones()))
            .max()
            .unwrap_or(0)
            .max(ballots);
        // L38: ballot words for the most units one instruction makes whole in one exchange (fewer
        // when the budget does not hold them: the rest take further exchanges).
        let most = blocks
            .iter()
            .flat_map(|bp| {
                bp.pre
                    .iter()
                    .map(|(s, u)| u.count_ones() + bp.fut.get(s).map_or(0, |f| f.len() as u32))
            })
            .max()
            .unwrap_or(0);
        while ballots < most && self.exchange_bytes(slots, ballots + 1, waves) <= EXCHANGE_BUDGET {
            ballots += 1;
        }
        // L40: the chain links the emission takes, and the exchange each passes on to the block it
        // continues into (blocks come in address order; a link to an earlier block passes nothing).
        let links = chain_links_taken(&s.items, &chain_next);
        let mut pass_on: std::collections::BTreeMap<usize, (usize, u32, Vec<u16>)> =
            std::collections::BTreeMap::new();
        for (h, blk) in p.blocks.iter() {
            let bp = &blocks[h.index()];
            if s.number[h.index()] == u32::MAX || !self.masks().reached(h.index()) {
                continue;
            }
            // L35: the open exchange (its instruction's first node, the values it carries, the VGPRs
            // written since it was emitted): of this block, or (L40) of the block whose chain link
            // leads here.
            let mut open: Option<(usize, u32, Vec<u16>)> = pass_on.remove(&h.index());
            // L40: the open exchange is an earlier block's (a rider with stale units of its own keeps
            // its exchange, where L36 makes them whole, instead of paying a mask exchange for them).
            let mut cross = open.is_some();
            for inst in &blk.insts {
                let start = inst.nodes.start as usize;
                let (phase, kinds) = self.phases(start, inst.nodes.len());
                let mut phases = HashSet::default();
                let mut exchanged = Vec::new();
                for (k, kind) in kinds.iter().enumerate() {
                    let i = start + k;
                    let elided = self.lm.as_ref().expect("set").masks.is_dead(i)
                        || (bp.own.contains(&i) && !bp.mat.contains(&i));
                    if *kind == Kind::Capture && !elided {
                        captured.push(i);
                        phases.insert(phase[k]);
                        exchanged.push(i);
                    }
                }
                let shape = self.lane_coalesce_shape(inst.nodes.clone(), &kinds);
                if let (Some((lead, carries, written)), Some(sh)) = (open.as_mut(), shape.as_ref())
                {
                    if phases.is_empty() {
                        // Nothing exchanged here: the exchange stays open past it.
                        written.extend(sh.writes.iter().copied());
                        continue;
                    }
                    let values = self.lane_carried_values(inst.nodes.clone(), &exchanged);
                    let fits = |n: u32| {
                        n <= COALESCE_SLOTS
                            && self.exchange_bytes(slots.max(even_slots(n)), ballots, waves)
                                <= EXCHANGE_BUDGET
                    };
                    let ok = phases.len() == 1
                        && !sh.ballots
                        && !(cross && bp.pre.get(&start).is_some_and(|&u| u != 0))
                        && values.as_ref().is_some_and(|v| {
                            fits(*carries + v.len() as u32)
                                && v.iter().all(|&(_, reg)| !written.contains(&reg))
                        });
                    // D278: a zeroed value is stored under the EXEC of the exchange that carries it,
                    // which must be the EXEC it is read under; one carried past an EXEC write is not
                    // zeroed in the next round of the plan ([`plan_of`]).
                    let crossing: Vec<usize> = match (&values, written.contains(&EXEC_WRITTEN)) {
                        (Some(v), true) => v
                            .iter()
                            .map(|&(a, _)| a)
                            .filter(|a| self.sub.zero.vals.contains(a))
                            .collect(),
                        _ => Vec::new(),
                    };
                    if ok && !crossing.is_empty() {
                        zero_conflicts.extend(crossing);
                    } else if ok {
                        let values = values.expect("checked");
                        *carries += values.len() as u32;
                        slots = slots.max(even_slots(*carries));
                        written.extend(sh.writes.iter().copied());
                        coalesced.insert(start, *lead);
                        carried
                            .entry(*lead)
                            .or_default()
                            .extend(values.iter().map(|&(a, _)| a));
                        continue;
                    }
                }
                open = None;
                cross = false;
                if let (1, Some(_), Some(&pre)) = (phases.len(), shape.as_ref(), bp.pre.get(&start))
                {
                    // L36: the stale units ride on the instruction's own exchange when no node of it
                    // reads them before that exchange (they wait for the phase after it).
                    let ph = *phases.iter().next().expect("one phase");
                    let own_ballots = self
                        .lane_sources(inst.nodes.clone())
                        .iter()
                        .filter(|s| matches!(s, Source::Ballot(_)))
                        .count() as u32;
                    // L50: the later ballots formed whole on the units' exchange ride with them.
                    let need = own_ballots
                        + pre.count_ones()
                        + bp.fut.get(&start).map_or(0, |f| f.len() as u32);
                    let fits = need <= ballots
                        || self.exchange_bytes(slots, need, waves) <= EXCHANGE_BUDGET;
                    if fits
                        && self.lane_merge_keeps_exchange(
                            start,
                            inst.nodes.len(),
                            pre,
                            ph,
                            &exchanged,
                        )
                    {
                        ballots = ballots.max(need);
                        merged.insert(start, (pre, ph));
                    }
                }
                if !phases.is_empty() {
                    capture_exchanges.insert(start, phases.len() as u32);
                    if let (1, Some(sh)) = (phases.len(), shape) {
                        let values = self
                            .lane_sources(inst.nodes.clone())
                            .iter()
                            .filter(|s| matches!(s, Source::Value(_)))
                            .count() as u32;
                        open = Some((start, values, sh.writes));
                    }
                }
            }
            if let (Some(o), Some(c)) = (open, links[h.index()]) {
                if c > h.index() {
                    pass_on.insert(c, o);
                }
            }
        }
        let has_lds = p.nodes.iter().any(|(_, n)| {
            matches!(
                n,
                Node::Load {
                    space: Space::Lds,
                    ..
                } | Node::LoadIf {
                    space: Space::Lds,
                    ..
                } | Node::Store {
                    space: Space::Lds,
                    ..
                } | Node::StoreIf {
                    space: Space::Lds,
                    ..
                } | Node::Atomic {
                    space: Space::Lds,
                    ..
                } | Node::AtomicIf {
                    space: Space::Lds,
                    ..
                }
            )
        });
        let lm = self.lm.take().expect("set");
        let meets = (0..nb)
            .map(|b| {
                (ends_with_barrier(p, b) && s.number[b] != u32::MAX).then(|| {
                    if waves < 2 {
                        Meet::Alone
                    } else if !static_resume {
                        Meet::PassEnd
                    } else if lm.conv.one_pass {
                        Meet::Always
                    } else {
                        Meet::Tested {
                            ahead: super::meet::ahead(&s, &s.items, b, None).unwrap_or(u32::MAX),
                        }
                    }
                })
            })
            .collect();
        let insts = p
            .blocks
            .iter()
            .map(|(_, b)| {
                b.insts
                    .iter()
                    .map(|i| (i.pc, i.text.clone(), i.nodes.clone()))
                    .collect()
            })
            .collect();
        let lds_addrs = if self.opts.lane_lds_fences_all {
            ldsaddr::LdsAddrs::default()
        } else {
            ldsaddr::LdsAddrs::of(p, self.types, self.desc.workgroup, self.ws)
        };
        let super::LaneMode {
            masks,
            conv,
            lds_flow,
            ..
        } = lm;
        // L44: the picks and the own-bit tests read by shuffles (a test of a mask the block has whole
        // reads its bit directly).
        let mut shuffled: Vec<usize> = self.sub.roots.iter().copied().collect();
        for (&c, &(x, _)) in &self.sub.tests {
            let b = p.blocks.iter().position(|(_, blk)| {
                blk.insts
                    .iter()
                    .any(|inst| inst.nodes.contains(&(c as u32)))
            });
            if b.is_some_and(|b| {
                blocks[b].own.contains(&x.index()) && !blocks[b].mat.contains(&x.index())
            }) {
                shuffled.push(c);
            }
        }
        shuffled.sort_unstable();
        Ok(LanePlan {
            wave_size: self.ws,
            workgroup: self.desc.workgroup,
            kernel_waves,
            waves,
            split,
            communicate: split::waves_communicate(p, self.desc),
            solo,
            lone: !solo && kernel_waves == 1,
            slots,
            ballots,
            ballots_unfut,
            static_resume,
            masks,
            blocks,
            conv,
            lds_flow,
            lds_addrs,
            chain_next,
            local_loops,
            publishes,
            exec_labels,
            captured,
            capture_exchanges,
            coalesced,
            carried,
            merged,
            zero_conflicts,
            has_lds,
            meets,
            number: s.number,
            insts,
            subgroup: self.prof.aligned_subgroup_size,
            shuffled,
            sub: std::mem::take(&mut self.sub),
            picks,
            lds_fences_all: self.opts.lane_lds_fences_all,
            whole_workgroups: self.opts.whole_workgroups,
        })
    }

    /// Exchange slots and ballot sets one instruction may need (L2, L3), refused beyond
    /// `EXCHANGE_BUDGET` bytes (L33).
    fn lane_exchange_sizes(&self, waves: u32) -> R<(u32, u32)> {
        let (mut slots, mut ballots) = (1, 1);
        for (_, blk) in self.p.blocks.iter() {
            for inst in &blk.insts {
                let src = self.lane_sources(inst.nodes.clone());
                let b = src
                    .iter()
                    .filter(|s| matches!(s, Source::Ballot(_)))
                    .count() as u32;
                slots = slots.max(src.len() as u32 - b);
                ballots = ballots.max(b);
            }
        }
        let bytes = self.exchange_bytes(slots, ballots, waves);
        if bytes > EXCHANGE_BUDGET {
            return Err(LowerError::Layout(format!(
                "the lane mapping needs {bytes} bytes of workgroup memory for its exchanges (more than {EXCHANGE_BUDGET})"
            )));
        }
        Ok((slots, ballots))
    }

    /// [`exchange_bytes`] for this kernel's wave size and, where L46 applies to `ballots` ballot sets, its
    /// subgroup size.
    fn exchange_bytes(&self, slots: u32, ballots: u32, waves: u32) -> u32 {
        exchange_bytes(slots, ballots, waves, self.ws, self.sub_ballots(ballots))
    }
}

/// Workgroup memory of the exchanges (bytes): two slot buffers and three ballot-word buffers, or with
/// ballots through subgroups of `sub` lanes (L46, D246) two buffers of `⌈ballots / 4⌉` `uvec4` per
/// subgroup.
fn exchange_bytes(slots: u32, ballots: u32, waves: u32, ws: u32, sub: u32) -> u32 {
    let ballot_words = match ws.checked_div(sub) {
        Some(g) => 2 * waves * g * 4 * ballots.div_ceil(4),
        None => 3 * ballots * waves * (ws / 32),
    };
    4 * (2 * slots * waves * ws + ballot_words)
}

/// L35: the slot count a coalesced exchange of `n` values needs, made even above one so that the
/// exchange stays a vector store (L37: an odd count has scalar slots).
fn even_slots(n: u32) -> u32 {
    if n > 1 {
        n.next_multiple_of(2)
    } else {
        n
    }
}

/// L35: the most values one coalesced exchange carries.
const COALESCE_SLOTS: u32 = 4;

/// What L35 needs to know of one instruction.
pub(crate) struct CoalesceShape {
    /// It has a ballot capture.
    ballots: bool,
    /// The VGPRs it writes, and [`EXEC_WRITTEN`] when it writes EXEC.
    writes: Vec<u16>,
}

/// L35: the mark of an EXEC write among the VGPRs an instruction writes (no VGPR has this number).
const EXEC_WRITTEN: u16 = u16::MAX;

impl Cx<'_> {
    /// L35: the shape of an instruction that may take part in a coalesced exchange (no memory access,
    /// no LDS fence then), None for any other.
    fn lane_coalesce_shape(
        &self,
        range: std::ops::Range<u32>,
        kinds: &[Kind],
    ) -> Option<CoalesceShape> {
        let mut shape = CoalesceShape {
            ballots: false,
            writes: Vec::new(),
        };
        for (k, i) in range.enumerate() {
            match self.p.nodes[Handle::from_index(i as usize)] {
                Node::Load { .. }
                | Node::LoadIf { .. }
                | Node::Store { .. }
                | Node::StoreIf { .. }
                | Node::Atomic { .. }
                | Node::AtomicIf { .. }
                | Node::Barrier
                | Node::Refuse { .. } => return None,
                Node::WriteVgpr { reg, value } => {
                    shape.writes.push(reg);
                    if self.ty(value.index()) == Ty::B64 {
                        shape.writes.push(reg + 1);
                    }
                }
                Node::Ballot { .. } if kinds[k] == Kind::Capture => shape.ballots = true,
                Node::WriteSgpr { reg, value }
                    if super::span(reg, self.ty(value.index())) & (0b11u128 << EXEC_LO) != 0 =>
                {
                    shape.writes.push(EXEC_WRITTEN);
                }
                _ => {}
            }
        }
        Some(shape)
    }

    /// L35: the values captures `nodes` exchange, each with its VGPR, when every one is a 32-bit VGPR
    /// read of the instruction (the same value at any earlier point where no instruction wrote that
    /// VGPR); None otherwise. Distinct values, in order.
    fn lane_carried_values(
        &self,
        range: std::ops::Range<u32>,
        nodes: &[usize],
    ) -> Option<Vec<(usize, u16)>> {
        let mut out: Vec<(usize, u16)> = Vec::new();
        for &i in nodes {
            let Some(Source::Value(a)) = self.source_of(i) else {
                return None;
            };
            let Node::ReadVgpr { reg, ty: Ty::B32 } = self.p.nodes[a] else {
                return None;
            };
            if !range.contains(&(a.index() as u32)) {
                return None;
            }
            if !out.iter().any(|&(x, _)| x == a.index()) {
                out.push((a.index(), reg));
            }
        }
        Some(out)
    }
}

impl Cx<'_> {
    /// L36: whether the instruction at `start` (`nn` nodes), its reads of the stale units `pre` made to
    /// wait for phase `ph + 1`, still exchanges exactly `exchanged` in its one exchange phase `ph` (no
    /// capture depends on those reads).
    fn lane_merge_keeps_exchange(
        &self,
        start: usize,
        nn: usize,
        pre: u128,
        ph: u32,
        exchanged: &[usize],
    ) -> bool {
        let (emit, _) = self.phases_floored(start, nn, Some((pre, ph + 1)));
        exchanged.iter().all(|&i| emit[i - start] == ph)
    }
}

/// L40: the chain links (L24) the emission takes, by block: `a` continues into `c` and `c`'s item is
/// the one right after `a`'s in the same item list (as `structured.rs`'s `items` forms its chains).
fn chain_links_taken(items: &[Item], next: &[Option<usize>]) -> Vec<Option<usize>> {
    fn walk(items: &[Item], next: &[Option<usize>], out: &mut [Option<usize>]) {
        for w in items.windows(2) {
            if let [Item::Block(a), Item::Block(c)] = w {
                if next[*a] == Some(*c) {
                    out[*a] = Some(*c);
                }
            }
        }
        for it in items {
            if let Item::Loop(lp) = it {
                walk(&lp.items, next, out);
            }
        }
    }
    let mut out = vec![None; next.len()];
    walk(items, next, &mut out);
    out
}

/// Calls `f(lo, hi)` for every structured loop, outer loops first.
pub(super) fn collect_loops(items: &[Item], f: &mut dyn FnMut(u32, u32)) {
    for it in items {
        if let Item::Loop(lp) = it {
            f(lp.lo, lp.hi);
            collect_loops(&lp.items, f);
        }
    }
}

/// The barriers the plan decides, by kind: sites in the module (each emitted once; a site in a loop runs
/// once per iteration). LDS fences (L6–L8) are not counted: they are decided while emitting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarrierSites {
    /// The prologue's barrier after clearing the LDS lock (absent in L18's lone waves).
    pub prologue: u32,
    /// The outer loop's pass start publication (without L20) and pass end (L21); none in one pass.
    pub passes: u32,
    /// Label publications after conditional branches (L4).
    pub publications: u32,
    /// Meetings at `s_barrier` (L22, L27).
    pub meetings: u32,
    /// Exchanges that make a mask whole (L9, L10): one per unit materialised and per node read whole.
    pub mask_exchanges: u32,
    /// Exchanges of ballots and lane values (L2, L3): one per phase of an instruction that holds one.
    pub value_exchanges: u32,
}

impl BarrierSites {
    pub fn total(&self) -> u32 {
        self.prologue
            + self.passes
            + self.publications
            + self.meetings
            + self.mask_exchanges
            + self.value_exchanges
    }
}

impl LanePlan {
    /// The module runs one structured pass with no outer loop: a lone barrier-free wave (L26), a lone
    /// wave whose barriers are all met in place (L49), or converged waves that meet every barrier in
    /// place (L27).
    pub(crate) fn one_pass(&self) -> bool {
        self.solo || self.lone || self.conv.one_pass
    }

    /// The barriers the plan decides ([`BarrierSites`]).
    pub fn barrier_sites(&self) -> BarrierSites {
        let one_pass = self.one_pass();
        let reachable = |b: usize| self.number[b] != u32::MAX;
        let nb = self.number.len();
        let mut mask_exchanges = 0;
        for (b, insts) in self.insts.iter().enumerate() {
            if !reachable(b) {
                continue;
            }
            let bp = &self.blocks[b];
            // A node read whole that is a capture is made whole by its capture's exchange.
            mask_exchanges += bp.mat.iter().filter(|i| !self.captured.contains(i)).count() as u32;
            // An instruction with no nodes (s_nop, s_waitcnt) shares its first node index with the next
            // one and emits nothing.
            for (_, _, range) in insts.iter().filter(|(_, _, r)| !r.is_empty()) {
                let pre = bp.pre.get(&(range.start as usize)).copied().unwrap_or(0);
                // L36: units made whole on the instruction's own exchange cost no barrier.
                // L38: the others share one exchange (as many as the ballot words hold).
                if !self.merged.contains_key(&(range.start as usize)) {
                    mask_exchanges += pre.count_ones().div_ceil(self.ballots.max(1));
                }
            }
        }
        BarrierSites {
            prologue: u32::from(!self.solo),
            passes: if one_pass {
                0
            } else {
                1 + u32::from(self.waves > 1 && !self.static_resume)
            },
            publications: (0..nb)
                .filter(|&b| reachable(b) && self.publishes[b] && self.exec_labels[b].is_none())
                .count() as u32,
            meetings: self
                .meets
                .iter()
                .filter(|m| matches!(m, Some(Meet::Alone | Meet::Always | Meet::Tested { .. })))
                .count() as u32,
            mask_exchanges,
            value_exchanges: self.capture_exchanges.values().sum(),
        }
    }

    /// Whether the kernel accesses LDS (then LDS fences, L6–L8, add barriers the plan does not count).
    pub fn accesses_lds(&self) -> bool {
        self.has_lds
    }

    /// The lane-local loop `[lo, hi)` (L16): its exit's structured number.
    pub(crate) fn local_loop(&self, lo: u32, hi: u32) -> Option<u32> {
        self.local_loops
            .iter()
            .find(|l| l.lo == lo && l.hi == hi)
            .map(|l| l.exit)
    }

    /// How many label copies the invocations keep (L4, L25).
    fn copies(&self) -> u32 {
        if self.waves < 2 {
            0
        } else if self.conv.all {
            1
        } else {
            self.waves
        }
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// An SGPR word's name (the mask units of L9).
fn reg_name(r: u32) -> String {
    match r {
        r if r == VCC_LO as u32 => "vcc_lo".into(),
        r if r == VCC_LO as u32 + 1 => "vcc_hi".into(),
        r if r == EXEC_LO as u32 => "exec_lo".into(),
        r if r == EXEC_LO as u32 + 1 => "exec_hi".into(),
        r => format!("s{r}"),
    }
}

fn units(w: u128) -> String {
    let v: Vec<String> = (0..128u32)
        .filter(|r| w & (1u128 << r) != 0)
        .map(reg_name)
        .collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(" ")
    }
}

fn nodes(set: &HashSet<usize>, range: &std::ops::Range<u32>) -> Vec<usize> {
    let mut v: Vec<usize> = set
        .iter()
        .copied()
        .filter(|&i| range.contains(&(i as u32)))
        .collect();
    v.sort_unstable();
    v
}

fn node_list(v: &[usize]) -> String {
    v.iter()
        .map(|i| format!("%{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl fmt::Display for LanePlan {
    /// One line per decision, each headed by its rule (docs/lane-mapping.md); blocks by index with their
    /// structured number, instructions by byte offset.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        writeln!(
            f,
            "lane plan: wave{} workgroup {x},{y},{z}: {} waves per kernel workgroup",
            self.wave_size, self.kernel_waves
        )?;
        writeln!(
            f,
            "L1 one invocation per lane: {} invocations per Vulkan workgroup",
            self.waves * self.wave_size
        )?;
        match (self.split > 1, self.communicate) {
            (true, _) => writeln!(
                f,
                "L17 split: yes, each of the {} waves runs as a Vulkan workgroup of its own",
                self.split
            )?,
            (false, Some(why)) => writeln!(f, "L17 split: no ({why})")?,
            (false, None) if self.whole_workgroups => {
                writeln!(f, "L17 split: no (whole workgroups asked for)")?
            }
            (false, None) => writeln!(f, "L17 split: no (one wave per workgroup)")?,
        }
        writeln!(
            f,
            "L18 lone wave without barrier rounds: {}",
            yes(self.solo)
        )?;
        match self.subgroup {
            0 => writeln!(
                f,
                "L44 subgroup shuffles: no (the profile measured no aligned subgroup layout)"
            )?,
            s if s > self.wave_size || !self.wave_size.is_multiple_of(s) => writeln!(
                f,
                "L44 subgroup shuffles: no (subgroups of {s} do not divide the wave)"
            )?,
            s => writeln!(
                f,
                "L44 subgroup shuffles: blocks of {s} lanes, {} cross-lane reads inside them",
                self.shuffled.len()
            )?,
        }
        let one_pass = self.one_pass();
        let why = if self.solo {
            " (L26: lone barrier-free wave)"
        } else if self.lone {
            " (L49: lone wave, every barrier met in place)"
        } else if self.conv.one_pass {
            " (L27: converged, every barrier met in place)"
        } else {
            ""
        };
        writeln!(f, "L26/L27 one pass: {}{why}", yes(one_pass))?;
        writeln!(
            f,
            "L2/L3 exchange memory: {} value slots, {} ballot sets per instruction at most",
            self.slots, self.ballots
        )?;
        let b = self.barrier_sites();
        writeln!(
            f,
            "barrier sites: {} = prologue {} + pass start/end {} (L20, L21) + publications {} (L4) + \
             meetings {} (L22) + mask exchanges {} (L9, L10) + value exchanges {} (L2, L3){}",
            b.total(),
            b.prologue,
            b.passes,
            b.publications,
            b.meetings,
            b.mask_exchanges,
            b.value_exchanges,
            if self.has_lds {
                "; LDS fences (L6-L8) come on top, decided while emitting"
            } else {
                ""
            }
        )?;
        if self.waves > 1 {
            writeln!(
                f,
                "L4 label copies: {}{}",
                self.copies(),
                if self.conv.all {
                    " (L25: the whole kernel converged)"
                } else {
                    ""
                }
            )?;
            writeln!(
                f,
                "L20 pass start without publication: {}",
                yes(self.static_resume)
            )?;
        }
        writeln!(
            f,
            "L9 tracked mask units: {}",
            units(self.masks.tracked_units())
        )?;
        let mut dead: Vec<usize> = self.masks.dead_nodes().collect();
        dead.sort_unstable();
        writeln!(
            f,
            "L9 dropped nodes (dead SCC writes and what only they use): {}",
            if dead.is_empty() {
                "none".into()
            } else {
                node_list(&dead)
            }
        )?;
        writeln!(
            f,
            "L8 lane-disjoint LDS addresses: {}",
            if self.lds_fences_all {
                "off (every LDS write fenced)".to_string()
            } else {
                let d = self.lds_addrs.described();
                format!("{} LDS accesses described", d.len())
            }
        )?;
        for (k, acc) in self.lds_addrs.described() {
            writeln!(f, "L8   %{k}: {acc}")?;
        }
        for l in &self.local_loops {
            if l.wave {
                writeln!(
                    f,
                    "L45 wave-local loop: numbers {}..{} run on each invocation's own label, exit to #{}",
                    l.lo, l.hi, l.exit
                )?;
            } else {
                writeln!(
                    f,
                    "L16 lane-local loop: numbers {}..{} run on each invocation's own label, exit to #{}",
                    l.lo, l.hi, l.exit
                )?;
            }
        }
        for (b, insts) in self.insts.iter().enumerate() {
            let n = self.number[b];
            if n == u32::MAX {
                writeln!(f, "block b{b}: unreachable")?;
                continue;
            }
            if !self.masks.reached(b) {
                writeln!(
                    f,
                    "block b{b} #{n}: L43 not emitted (reached only through the other way of \
                     vote-free EXEC branches)"
                )?;
                continue;
            }
            writeln!(f, "block b{b} #{n}:")?;
            if let Some(flow) = &self.lds_flow {
                writeln!(
                    f,
                    "  L7 LDS history at start (at most): {:?}",
                    flow.fixed_at_start(b)
                )?;
            }
            if self.waves > 1 {
                writeln!(
                    f,
                    "  L25 converged: {}{}",
                    yes(self.conv.range(n, n + 1)),
                    if self.conv.uniform_branch.get(b).copied().unwrap_or(false) {
                        ", uniform branch (no publication)"
                    } else {
                        ""
                    }
                )?;
            }
            match (self.masks.fall_target(b), self.masks.tail_same(b)) {
                (Some(to), Some(z)) => writeln!(
                    f,
                    "  L42 vote-free EXEC branch: b{to} run with no lane active does what b{z} does; \
                     always goes to b{to}"
                )?,
                (Some(to), None) => writeln!(
                    f,
                    "  L11-L14 vote-free EXEC branch: always goes to b{to}, its region reconverging"
                )?,
                _ => {}
            }
            if self.masks.is_exit(b) {
                writeln!(
                    f,
                    "  L15 lane-local loop exit: each lane leaves on its own EXEC bit"
                )?;
            }
            if let Some(u) = self.exec_labels[b] {
                let mask = if u == VCC_LO as u32 { "VCC" } else { "EXEC" };
                writeln!(
                    f,
                    "  L23 labels from the {mask} exchange's ballot words (no publication)"
                )?;
            } else if self.publishes.get(b).copied().unwrap_or(false) {
                writeln!(f, "  L4 label publication after the branch (one barrier)")?;
            }
            if let Some(c) = self.chain_next[b] {
                writeln!(
                    f,
                    "  L24 chain: continues into b{c} when it is the next item"
                )?;
            }
            match self.meets[b] {
                None => {}
                Some(Meet::Alone) => writeln!(
                    f,
                    "  L22 s_barrier met in place with no test (one wave)"
                )?,
                Some(Meet::Always) => writeln!(
                    f,
                    "  L22/L27 s_barrier met in place with no test (converged)"
                )?,
                Some(Meet::Tested { ahead }) => writeln!(
                    f,
                    "  L22 s_barrier met in place when every wave has ended or paused at #{ahead} or later"
                )?,
                Some(Meet::PassEnd) => writeln!(
                    f,
                    "  L21 s_barrier ends the pass (no static resume point)"
                )?,
            }
            let bp = &self.blocks[b];
            if let Some(stale) = self.masks.stale_at(b).filter(|&w| w != 0) {
                writeln!(f, "  L9 stale at start: {}", units(stale))?;
            }
            for (pc, text, range) in insts.iter().filter(|(_, _, r)| !r.is_empty()) {
                let own = nodes(&bp.own, range);
                let mat = nodes(&bp.mat, range);
                let pre = bp.pre.get(&(range.start as usize)).copied().unwrap_or(0);
                let mut cap: Vec<usize> = self
                    .captured
                    .iter()
                    .copied()
                    .filter(|&i| range.contains(&(i as u32)))
                    .collect();
                cap.sort_unstable();
                let shuf: Vec<usize> = self
                    .shuffled
                    .iter()
                    .copied()
                    .filter(|&i| range.contains(&(i as u32)))
                    .collect();
                if own.is_empty() && mat.is_empty() && pre == 0 && cap.is_empty() && shuf.is_empty()
                {
                    continue;
                }
                write!(f, "  {pc:#06x} {text}:")?;
                if pre != 0 && self.merged.contains_key(&(range.start as usize)) {
                    write!(
                        f,
                        " L9 materialise {} (L36: on its own exchange);",
                        units(pre)
                    )?;
                } else if pre != 0 {
                    write!(f, " L9 materialise {} first (exchange);", units(pre))?;
                }
                if let Some(fs) = bp.fut.get(&(range.start as usize)) {
                    let vals: Vec<usize> = fs.iter().map(|x| x.value).collect();
                    write!(
                        f,
                        " L50 later ballots {} formed whole on it;",
                        node_list(&vals)
                    )?;
                }
                let fut_here: Vec<usize> = range
                    .clone()
                    .map(|i| i as usize)
                    .filter(|i| bp.fut_vals.contains(i))
                    .collect();
                if !fut_here.is_empty() {
                    write!(
                        f,
                        " L50 {} whole from an earlier exchange;",
                        node_list(&fut_here)
                    )?;
                }
                let own_only: Vec<usize> =
                    own.iter().copied().filter(|i| !mat.contains(i)).collect();
                if !own_only.is_empty() {
                    write!(f, " L9 own bits only {};", node_list(&own_only))?;
                }
                if !mat.is_empty() {
                    write!(f, " L10 read whole {} (exchange);", node_list(&mat))?;
                }
                if let (false, Some(lead)) =
                    (cap.is_empty(), self.coalesced.get(&(range.start as usize)))
                {
                    // The lead instruction (its first node; an instruction without nodes shares it).
                    let (lb, at) = self
                        .insts
                        .iter()
                        .enumerate()
                        .flat_map(|(lb, v)| v.iter().map(move |x| (lb, x)))
                        .find(|(_, x)| x.2.start as usize == *lead && !x.2.is_empty())
                        .map_or((b, 0), |(lb, x)| (lb, x.0));
                    let rule = if lb == b {
                        "L35: on the exchange at".to_string()
                    } else {
                        format!("L40: on the exchange of b{lb} at")
                    };
                    write!(
                        f,
                        " L2/L3 across lanes {} ({rule} {at:#06x});",
                        node_list(&cap)
                    )?;
                } else if !cap.is_empty() {
                    let n = self.capture_exchanges.get(&(range.start as usize)).copied();
                    write!(
                        f,
                        " L2/L3 across lanes {} ({} exchange{});",
                        node_list(&cap),
                        n.unwrap_or(0),
                        if n == Some(1) { "" } else { "s" }
                    )?;
                }
                if !shuf.is_empty() {
                    write!(
                        f,
                        " L44 in the lane's subgroup block {} (shuffle);",
                        node_list(&shuf)
                    )?;
                }
                let zeroed: Vec<usize> = range
                    .clone()
                    .map(|i| i as usize)
                    .filter(|i| self.sub.zero.sels.contains_key(i))
                    .collect();
                if !zeroed.is_empty() {
                    write!(
                        f,
                        " L48 read from a slot zeroed outside EXEC {} (no source-lane test);",
                        node_list(&zeroed)
                    )?;
                }
                writeln!(f)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! One test per rule the plan holds: the rule fires on a small program built here, and does not on
    //! a program that differs in what the rule requires.

    use rdna2spv_ir::{
        Access, Block, Handle, Inst, IntCmp, IntOp, Node, Program, Space, Terminator, Ty, UnOp,
        EXEC_LO, VCC_LO,
    };

    use super::super::super::{ControlFlow, KernelLayout, LowerError, LowerOptions, SgprInit};
    use super::{lane_plan, LanePlan, Meet};
    use crate::profile::DeviceProfile;

    type H = Handle<Node>;

    /// A program under construction: nodes go to the current instruction, instructions to the current
    /// block.
    struct B {
        p: Program,
        insts: Vec<Inst>,
        start: u32,
    }

    impl B {
        fn new(ws: u32) -> B {
            B {
                p: Program {
                    name: "plan_test".into(),
                    wave_size: ws,
                    ..Default::default()
                },
                insts: Vec::new(),
                start: 0,
            }
        }
        fn n(&mut self, n: Node) -> H {
            self.p.nodes.push(n)
        }
        fn c32(&mut self, bits: u64) -> H {
            self.n(Node::Const { ty: Ty::B32, bits })
        }
        fn s(&mut self, reg: u16) -> H {
            self.n(Node::ReadSgpr { reg, ty: Ty::B32 })
        }
        fn v(&mut self, reg: u16) -> H {
            self.n(Node::ReadVgpr { reg, ty: Ty::B32 })
        }
        fn cmp(&mut self, op: IntCmp, a: H, b: H) -> H {
            self.n(Node::IntCmp {
                op,
                ty: Ty::B32,
                a,
                b,
            })
        }
        fn int(&mut self, op: IntOp, a: H, b: H) -> H {
            self.n(Node::Int {
                op,
                ty: Ty::B32,
                a,
                b,
            })
        }
        fn write_s(&mut self, reg: u16, value: H) {
            self.n(Node::WriteSgpr { reg, value });
        }
        fn write_v(&mut self, reg: u16, value: H) {
            self.n(Node::WriteVgpr { reg, value });
        }
        fn write_scc(&mut self, value: H) {
            self.n(Node::WriteScc { value });
        }
        /// `v_cmp_lt_u32 vcc_lo, v0, v1` (wave32): a ballot of a lane condition into VCC.
        fn vopc_vcc(&mut self) -> H {
            self.vopc_into(VCC_LO, "v_cmp_lt_u32 vcc_lo, v0, v1")
        }
        /// A ballot of `v0 < v1` (unsigned) into the 32-bit SGPR `dst` (VCC, or EXEC for `v_cmpx`).
        fn vopc_into(&mut self, dst: u16, text: &str) -> H {
            let a = self.v(0);
            let b = self.v(1);
            let c = self.cmp(IntCmp::LtU, a, b);
            let bal = self.n(Node::Ballot { cond: c });
            let t = self.n(Node::Unary {
                op: UnOp::Trunc,
                ty: Ty::B32,
                a: bal,
            });
            self.write_s(dst, t);
            self.end(text);
            bal
        }
        /// `v_cndmask_b32 v2, v0, v1, vcc_lo`: VCC read bit by bit.
        fn cndmask_vcc(&mut self) {
            let m = self.s(VCC_LO);
            let z = self.n(Node::Unary {
                op: UnOp::ZExt,
                ty: Ty::B64,
                a: m,
            });
            let bit = self.n(Node::LaneBit { mask: z });
            let a = self.v(0);
            let b = self.v(1);
            let x = self.n(Node::Select {
                cond: bit,
                a: b,
                b: a,
            });
            self.write_v(2, x);
            self.end("v_cndmask_b32 v2, v0, v1, vcc_lo");
        }
        /// `ds_write_b32 v0, v1` (an LDS store at the lane's address).
        fn lds_store(&mut self) {
            let a = self.v(0);
            self.lds_store_at(a, "ds_write_b32 v0, v1");
        }
        /// An LDS store of v1 at `addr` (computed by the instruction's earlier nodes), as `text`.
        fn lds_store_at(&mut self, addr: H, text: &str) {
            let x = self.v(1);
            self.n(Node::Store {
                space: Space::Lds,
                access: Access::B32,
                addr,
                offset: 0,
                value: x,
            });
            self.end(text);
        }
        fn barrier(&mut self) {
            self.n(Node::Barrier);
            self.end("s_barrier");
        }
        /// `v_mov_b32 v3, 1`.
        fn vmov(&mut self) {
            let one = self.c32(1);
            self.write_v(3, one);
            self.end("v_mov_b32 v3, 1");
        }
        /// SCC = (s0 == 0), by `s_cmp_eq_u32 s0, 0`; returns nothing (read it with [`Self::scc`]).
        fn cmp_s0(&mut self) {
            let a = self.s(0);
            let z = self.c32(0);
            let c = self.cmp(IntCmp::Eq, a, z);
            self.write_scc(c);
            self.end("s_cmp_eq_u32 s0, 0");
        }
        /// SCC = (wave id == 0): a condition that differs between the waves of a workgroup.
        fn cmp_wave(&mut self) {
            let a = self.n(Node::WaveId);
            let z = self.c32(0);
            let c = self.cmp(IntCmp::Eq, a, z);
            self.write_scc(c);
            self.end("s_cmp_eq_u32 wave_id, 0");
        }
        /// The branch condition of `s_cbranch_scc1` (its own instruction).
        fn scc(&mut self) -> H {
            let c = self.n(Node::ReadScc);
            self.end("s_cbranch_scc1");
            c
        }
        /// The branch condition of `s_cbranch_execz`.
        fn execz(&mut self) -> H {
            self.exec_test(IntCmp::Eq, "s_cbranch_execz")
        }
        /// The branch condition of `s_cbranch_execnz`.
        fn execnz(&mut self) -> H {
            self.exec_test(IntCmp::Ne, "s_cbranch_execnz")
        }
        fn exec_test(&mut self, op: IntCmp, text: &str) -> H {
            let e = self.s(EXEC_LO);
            let z = self.c32(0);
            let c = self.cmp(op, e, z);
            self.end(text);
            c
        }
        fn end(&mut self, text: &str) {
            let end = self.p.nodes.len() as u32;
            self.insts.push(Inst {
                pc: 4 * self.insts.len() as u32,
                text: text.into(),
                nodes: self.start..end,
                encoding: None,
            });
            self.start = end;
        }
        fn block(&mut self, terminator: Terminator) {
            self.p.blocks.push(Block {
                start_pc: 0,
                insts: std::mem::take(&mut self.insts),
                terminator,
            });
        }
        fn done(self) -> Program {
            self.p
        }
    }

    fn bh(i: usize) -> Handle<Block> {
        Handle::from_index(i)
    }

    fn layout(ws: u32, wg: u32) -> KernelLayout {
        KernelLayout {
            wave_size: ws,
            workgroup: [wg, 1, 1],
            // s0: a launch word, the same in every wave (a uniform branch condition's source).
            sgprs: vec![(0, SgprInit::Const(0))],
            workitem_id_vgprs: 1,
            lds_bytes: 0,
            scratch_bytes: 0,
            code_base: None,
        }
    }

    fn plan_opts(p: &Program, wg: u32, opts: &LowerOptions) -> Result<LanePlan, LowerError> {
        lane_plan(
            p,
            &layout(p.wave_size, wg),
            &DeviceProfile::portable(),
            opts,
        )
    }

    fn plan(p: &Program, wg: u32) -> LanePlan {
        plan_opts(p, wg, &LowerOptions::default()).expect("the lane mapping accepts it")
    }

    /// One block: `v_mov`, end.
    fn straight() -> Program {
        let mut b = B::new(32);
        b.vmov();
        b.block(Terminator::End);
        b.done()
    }

    /// One block: an LDS store, end.
    fn with_lds() -> Program {
        let mut b = B::new(32);
        b.lds_store();
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l17_split_only_waves_that_cannot_communicate() {
        let q = plan(&straight(), 64);
        assert_eq!((q.split, q.waves, q.kernel_waves), (2, 1, 2));
        assert!(q.to_string().contains("L17 split: yes"));
        let q = plan(&with_lds(), 64);
        assert_eq!((q.split, q.waves), (1, 2));
        assert_eq!(q.communicate, Some("the kernel accesses LDS"));
        assert!(q
            .to_string()
            .contains("L17 split: no (the kernel accesses LDS)"));
        let whole = LowerOptions {
            whole_workgroups: true,
            ..Default::default()
        };
        let q = plan_opts(&straight(), 64, &whole).unwrap();
        assert_eq!(q.split, 1);
    }

    #[test]
    fn l18_l26_a_lone_wave_without_lds_or_barrier_runs_one_pass() {
        assert!(plan(&straight(), 32).solo);
        assert!(plan(&straight(), 64).solo, "split waves are alone too");
        assert!(!plan(&with_lds(), 32).solo);
        let mut b = B::new(32);
        b.barrier();
        b.block(Terminator::Jump(bh(1)));
        b.vmov();
        b.block(Terminator::End);
        let q = plan(&b.done(), 32);
        assert!(!q.solo);
        // A lone wave with `s_barrier` meets it where it stands: one pass all the same (L49).
        assert!(q.lone);
        assert!(q.to_string().contains("L26/L27 one pass: yes (L49"));
    }

    #[test]
    fn l33_refusals_come_from_the_plan() {
        let disp = LowerOptions {
            control_flow: ControlFlow::Dispatcher,
            ..Default::default()
        };
        let e = plan_opts(&straight(), 32, &disp).err().expect("refused");
        assert!(e.to_string().contains("dispatcher"), "{e}");
        // Exchange memory: 16 waves of 64 lanes, two distinct values read across lanes in one
        // instruction need 2 × 2 × 16 × 64 words, over the 16 KiB budget; one value fits.
        let readlanes = |k: u16| {
            let mut b = B::new(64);
            b.barrier();
            b.block(Terminator::Jump(bh(1)));
            for r in 0..k {
                let a = b.v(r);
                let l = b.c32(0);
                let x = b.n(Node::ReadLane { a, lane: l });
                b.write_s(r, x);
            }
            b.end("v_readlane_b32 ×k");
            b.block(Terminator::End);
            b.done()
        };
        let q = plan(&readlanes(1), 1024);
        assert_eq!((q.slots, q.ballots), (1, 1));
        let e = plan_opts(&readlanes(2), 1024, &LowerOptions::default())
            .err()
            .expect("over the budget");
        assert!(e.to_string().contains("bytes of workgroup memory"), "{e}");
        // L2: the slots follow the distinct values of one instruction.
        assert_eq!(plan(&readlanes(2), 128).slots, 2);
    }

    #[test]
    fn l9_masks_read_bit_by_bit_stay_own_bits() {
        let mut b = B::new(32);
        let bal = b.vopc_vcc();
        b.cndmask_vcc();
        b.block(Terminator::End);
        let q = plan(&b.done(), 32);
        let bp = &q.blocks[0];
        assert!(bp.own.contains(&bal.index()) && !bp.mat.contains(&bal.index()));
        assert!(q.masks.tracked_units() & (1u128 << VCC_LO) != 0);
        assert!(q.to_string().contains("L9 own bits only"));
        // Read whole (s_bcnt1 of VCC): the mask is materialised by an exchange.
        let mut b = B::new(32);
        let bal = b.vopc_vcc();
        let m = b.s(VCC_LO);
        let c = b.n(Node::Unary {
            op: UnOp::Popcount,
            ty: Ty::B32,
            a: m,
        });
        b.write_s(0, c);
        b.end("s_bcnt1_i32_b32 s0, vcc_lo");
        b.block(Terminator::End);
        let q = plan(&b.done(), 32);
        let bp = &q.blocks[0];
        let whole = bp.mat.contains(&bal.index()) || !bp.pre.is_empty();
        assert!(whole, "a whole read is not planned as an exchange");
        assert!(q.to_string().contains("(exchange)"));
    }

    #[test]
    fn l9_dead_scc_writes_are_dropped_and_live_ones_kept() {
        let mut b = B::new(32);
        let s0 = b.s(0);
        let k = b.c32(0xffff);
        let x = b.int(IntOp::And, s0, k);
        b.write_s(0, x);
        let z = b.c32(0);
        let c = b.cmp(IntCmp::Ne, x, z);
        b.write_scc(c);
        b.end("s_and_b32 s0, s0, 0xffff");
        b.block(Terminator::End);
        let q = plan(&b.done(), 32);
        assert!(q.masks.dead_nodes().any(|i| i == c.index()));
        // The same SCC read by s_cselect: live.
        let mut b = B::new(32);
        let s0 = b.s(0);
        let k = b.c32(0xffff);
        let x = b.int(IntOp::And, s0, k);
        b.write_s(0, x);
        let z = b.c32(0);
        let c = b.cmp(IntCmp::Ne, x, z);
        b.write_scc(c);
        b.end("s_and_b32 s0, s0, 0xffff");
        let r = b.n(Node::ReadScc);
        let one = b.c32(1);
        let z = b.c32(0);
        let sel = b.n(Node::Select {
            cond: r,
            a: one,
            b: z,
        });
        b.write_s(1, sel);
        b.end("s_cselect_b32 s1, 1, 0");
        b.block(Terminator::End);
        let q = plan(&b.done(), 32);
        assert!(!q.masks.dead_nodes().any(|i| i == c.index()));
    }

    /// b0: `s_cbranch_execz` over b1 (to b2); b1: `region`; b2: end.
    fn skip(region: &dyn Fn(&mut B)) -> Program {
        let mut b = B::new(32);
        b.vmov();
        let c = b.execz();
        b.block(Terminator::Branch {
            cond: c,
            taken: bh(2),
            not_taken: bh(1),
        });
        region(&mut b);
        b.block(Terminator::Jump(bh(2)));
        b.vmov();
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l11_vote_free_execz_only_over_harmless_regions() {
        let q = plan(&skip(&|b| b.vmov()), 32);
        assert_eq!(q.masks.fall_target(0), Some(1));
        assert!(q
            .to_string()
            .contains("L11-L14 vote-free EXEC branch: always goes to b1, its region reconverging"));
        // A uniform store in the region (s_store_dword): the hardware skips it, so must the lowering.
        let q = plan(
            &skip(&|b| {
                let a = b.s(0);
                let a = b.n(Node::Unary {
                    op: UnOp::ZExt,
                    ty: Ty::B64,
                    a,
                });
                let x = b.s(1);
                b.n(Node::Store {
                    space: Space::Global,
                    access: Access::B32,
                    addr: a,
                    offset: 0,
                    value: x,
                });
                b.end("s_store_dword s1, s[0:1]");
            }),
            32,
        );
        assert_eq!(q.masks.fall_target(0), None);
    }

    #[test]
    fn l24_chains_only_where_nothing_else_comes_in() {
        let mut b = B::new(32);
        b.vmov();
        b.block(Terminator::Jump(bh(1)));
        b.vmov();
        b.block(Terminator::End);
        let q = plan(&b.done(), 32);
        assert_eq!(q.chain_next, vec![Some(1), None]);
        // b1 -> b2, but b0's taken edge also reaches b2.
        let mut b = B::new(32);
        b.cmp_s0();
        let c = b.scc();
        b.block(Terminator::Branch {
            cond: c,
            taken: bh(2),
            not_taken: bh(1),
        });
        b.vmov();
        b.block(Terminator::Jump(bh(2)));
        b.vmov();
        b.block(Terminator::End);
        let q = plan(&b.done(), 32);
        assert_eq!(q.chain_next[1], None);
        assert_eq!(
            q.chain_next[0], None,
            "a branch that is not a vote-free skip"
        );
    }

    /// Two waves sharing LDS: b0 ends with a branch on `cond` (b1 or b2), b1 jumps to b2, b2 ends.
    fn branchy(cond: &dyn Fn(&mut B)) -> Program {
        let mut b = B::new(32);
        b.lds_store();
        cond(&mut b);
        let c = b.scc();
        b.block(Terminator::Branch {
            cond: c,
            taken: bh(2),
            not_taken: bh(1),
        });
        b.vmov();
        b.block(Terminator::Jump(bh(2)));
        b.vmov();
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l25_uniform_branches_are_converged_and_wave_dependent_ones_publish() {
        let q = plan(&branchy(&|b| b.cmp_s0()), 64);
        assert!(q.conv.uniform_branch[0]);
        assert!(q.conv.all, "every block converged");
        assert!(!q.publishes[0]);
        assert!(q.to_string().contains("L4 label copies: 1"));
        let q = plan(&branchy(&|b| b.cmp_wave()), 64);
        assert!(!q.conv.uniform_branch[0]);
        assert!(!q.conv.all);
        assert!(q.publishes[0], "L4: the waves' labels are published");
        assert!(q
            .to_string()
            .contains("L4 label publication after the branch"));
    }

    /// b0: LDS store (and `s_barrier`), jump to b1; b1: LDS store; end.
    fn lds_then(barrier: bool, wave_dependent: bool) -> Program {
        let mut b = B::new(32);
        b.lds_store();
        if wave_dependent {
            b.cmp_wave();
        }
        if barrier {
            b.barrier();
        }
        b.block(Terminator::Jump(bh(1)));
        b.lds_store();
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l7_lds_history_is_clean_only_after_a_barrier() {
        let q = plan(&lds_then(false, false), 32);
        let f = q.lds_flow.as_ref().unwrap();
        assert_eq!(f.fixed_at_start(1), super::super::LdsState::Written);
        let q = plan(&lds_then(true, false), 32);
        let f = q.lds_flow.as_ref().unwrap();
        assert_eq!(f.fixed_at_start(1), super::super::LdsState::Clean);
    }

    #[test]
    fn l20_l22_l27_barrier_meetings() {
        // One wave: met with no test, one pass (L49).
        let q = plan(&lds_then(true, false), 32);
        assert_eq!(q.meets, vec![Some(Meet::Alone), None]);
        assert!(q.lone && !q.solo && q.one_pass());
        assert!(q.to_string().contains("L26/L27 one pass: yes (L49"));
        assert_eq!(q.barrier_sites().passes, 0);
        // Two converged waves: static resume, met with no test, one pass (L27).
        let q = plan(&lds_then(true, false), 64);
        assert!(q.static_resume && q.conv.one_pass && !q.lone);
        assert_eq!(q.meets[0], Some(Meet::Always));
        assert!(q.to_string().contains("L26/L27 one pass: yes (L27"));
        // A branch on the wave before the barrier block's successor makes the kernel not converged:
        // the meeting is tested (L22).
        let mut b = B::new(32);
        b.lds_store();
        b.cmp_wave();
        let c = b.scc();
        b.block(Terminator::Branch {
            cond: c,
            taken: bh(2),
            not_taken: bh(1),
        });
        b.barrier();
        b.block(Terminator::Jump(bh(2)));
        b.lds_store();
        b.block(Terminator::End);
        let q = plan(&b.done(), 64);
        assert!(q.static_resume && !q.conv.one_pass);
        assert!(
            matches!(q.meets[1], Some(Meet::Tested { .. })),
            "{:?}",
            q.meets
        );
        // Not a static resume point (the barrier block ends in a branch): the pass ends there (L21).
        let mut b = B::new(32);
        b.lds_store();
        b.cmp_wave();
        let c = b.n(Node::ReadScc);
        b.n(Node::Barrier);
        b.end("s_barrier (and the branch's condition)");
        b.block(Terminator::Branch {
            cond: c,
            taken: bh(2),
            not_taken: bh(1),
        });
        b.vmov();
        b.block(Terminator::Jump(bh(2)));
        b.vmov();
        b.block(Terminator::End);
        let q = plan(&b.done(), 64);
        assert!(!q.static_resume);
        assert_eq!(q.meets[0], Some(Meet::PassEnd));
    }

    #[test]
    fn l8_lane_disjoint_lds_addresses_are_described_or_not() {
        // ds_write at v0 * 4 (each lane its own dword) in a [64,1,1] workgroup: described.
        let prog = |scale: u64| {
            let mut b = B::new(32);
            let a = b.v(0);
            let k = b.c32(scale);
            let addr = b.int(IntOp::Mul, a, k);
            b.lds_store_at(addr, "ds_write_b32");
            b.block(Terminator::End);
            b.done()
        };
        let q = plan(&prog(4), 64);
        assert_eq!(q.lds_addrs.described().len(), 1);
        assert!(q.to_string().contains("L8   %"));
        // `v_mul_u32_u24 v2, 28, v0` (both operands cut to 24 bits): X & 0xffffff is X for X < 64,
        // described; X & 0xf is X - 16 * (X >> 4), described with a floor term (D222: lanes X and X + 16
        // share their dword, which the conflict test sees), X & 0xfff0 is not (not a low mask).
        let mul24 = |mask: u64| {
            let mut b = B::new(32);
            let k = b.c32(28);
            let m = b.c32(0xff_ffff);
            let k = b.int(IntOp::And, k, m);
            let a = b.v(0);
            let m = b.c32(mask);
            let a = b.int(IntOp::And, a, m);
            let addr = b.int(IntOp::Mul, k, a);
            b.lds_store_at(addr, "ds_write_b32");
            b.block(Terminator::End);
            b.done()
        };
        let q = plan(&mul24(0xff_ffff), 64);
        assert_eq!(
            q.lds_addrs.described(),
            vec![(
                q.lds_addrs.described()[0].0,
                "dwords 7*X+0..=7*X+0 for lanes X in 0..=63".into()
            )]
        );
        let q = plan(&mul24(0xf), 64);
        assert_eq!(
            q.lds_addrs.described(),
            vec![(
                q.lds_addrs.described()[0].0,
                "dwords enumerated per lane (0..=0 at X = 0, 105..=105 at X = 63) for lanes X in 0..=63"
                    .into()
            )]
        );
        assert!(plan(&mul24(0xfff0), 64).lds_addrs.described().is_empty());
        // Switched off by the option (every LDS write fenced).
        let all = LowerOptions {
            lane_lds_fences_all: true,
            ..Default::default()
        };
        let q = plan_opts(&prog(4), 64, &all).unwrap();
        assert!(q.lds_addrs.described().is_empty());
        // A workgroup that is not [n, 1, 1]: nothing described.
        let q = lane_plan(
            &prog(4),
            &KernelLayout {
                workgroup: [32, 2, 1],
                ..layout(32, 1)
            },
            &DeviceProfile::portable(),
            &LowerOptions::default(),
        )
        .unwrap();
        assert!(q.lds_addrs.described().is_empty());
    }

    /// b0 (an LDS store first with `lds`), jump b1; b1: a divergent loop `v0 += 1; vcc = v0 >= v1;
    /// exec &= ~vcc` (and an LDS store inside with `lds_inside`), `s_cbranch_execnz b1`; b2: end.
    fn divergent_loop(lds: bool, lds_inside: bool) -> Program {
        let mut b = B::new(32);
        if lds {
            b.lds_store();
        }
        b.vmov();
        b.block(Terminator::Jump(bh(1)));
        if lds_inside {
            b.lds_store();
        }
        let v0 = b.v(0);
        let one = b.c32(1);
        let x = b.int(IntOp::Add, v0, one);
        b.write_v(0, x);
        b.end("v_add_nc_u32 v0, 1, v0");
        let v0 = b.v(0);
        let v1 = b.v(1);
        let c = b.cmp(IntCmp::GeU, v0, v1);
        let bal = b.n(Node::Ballot { cond: c });
        let t = b.n(Node::Unary {
            op: UnOp::Trunc,
            ty: Ty::B32,
            a: bal,
        });
        b.write_s(VCC_LO, t);
        b.end("v_cmp_ge_u32 vcc_lo, v0, v1");
        let e = b.s(EXEC_LO);
        let m = b.s(VCC_LO);
        let nm = b.n(Node::Unary {
            op: UnOp::Not,
            ty: Ty::B32,
            a: m,
        });
        let ne = b.int(IntOp::And, e, nm);
        b.write_s(EXEC_LO, ne);
        let z = b.c32(0);
        let sc = b.cmp(IntCmp::Ne, ne, z);
        b.write_scc(sc);
        b.end("s_andn2_b32 exec_lo, exec_lo, vcc_lo");
        let c = b.execnz();
        b.block(Terminator::Branch {
            cond: c,
            taken: bh(1),
            not_taken: bh(2),
        });
        b.vmov();
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l15_l16_lanes_leave_a_divergent_loop_alone() {
        // One wave (L15): the back edge is decided by each lane's own EXEC bit.
        let q = plan(&divergent_loop(false, false), 32);
        assert!(q.masks.is_exit(1));
        assert!(q.local_loops.is_empty(), "L16 is for several waves");
        assert!(q.to_string().contains("L15 lane-local loop exit"));
        // An LDS access inside the loop needs its fences: every lane stays for the wave's decision.
        let q = plan(&divergent_loop(false, true), 32);
        assert!(!q.masks.is_exit(1));
        // Two waves sharing LDS (not split): the loop runs on each invocation's own label (L16).
        let q = plan(&divergent_loop(true, false), 64);
        assert_eq!(q.split, 1);
        assert!(q.masks.is_exit(1));
        let n = &q.number;
        assert_eq!(q.local_loop(n[1], n[1] + 1), Some(n[2]));
        assert!(q.to_string().contains("L16 lane-local loop"));
        let q = plan(&divergent_loop(true, true), 64);
        assert!(q.local_loops.is_empty());
    }

    /// b0: an LDS store (the waves share LDS: not split), jump b1; b1: a loop whose back edge differs
    /// between the waves (`s_cmp_eq_u32 wave_id, 0; s_cbranch_scc1 b1`), with an LDS store inside
    /// (`lds_inside`), or left on `s_cbranch_vccnz` after a `v_cmp` into VCC instead (`vcc_exit`: the
    /// branch needs the wave's whole VCC); b2: end.
    fn scc_loop(lds_inside: bool, vcc_exit: bool) -> Program {
        let mut b = B::new(32);
        b.lds_store();
        b.vmov();
        b.block(Terminator::Jump(bh(1)));
        if lds_inside {
            b.lds_store();
        }
        b.vmov();
        let c = if vcc_exit {
            b.vopc_vcc();
            let m = b.s(VCC_LO);
            let z = b.c32(0);
            let c = b.cmp(IntCmp::Ne, m, z);
            b.end("s_cbranch_vccnz");
            c
        } else {
            b.cmp_wave();
            b.scc()
        };
        b.block(Terminator::Branch {
            cond: c,
            taken: bh(1),
            not_taken: bh(2),
        });
        b.vmov();
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l45_loops_every_lane_of_a_wave_leaves_together_run_on_own_labels() {
        // Two waves sharing LDS: the loop's SCC back edge differs between them, nothing inside needs
        // the workgroup: each invocation follows its own label through it (L45), its branch publishes
        // nothing.
        let q = plan(&scc_loop(false, false), 64);
        assert_eq!(q.split, 1);
        let n = &q.number;
        assert_eq!(q.local_loop(n[1], n[1] + 1), Some(n[2]));
        assert!(q.local_loops.iter().all(|l| l.wave));
        assert!(!q.publishes[1]);
        assert!(q.to_string().contains("L45 wave-local loop"));
        // An LDS access inside (its fences are barriers), or an exit on the wave's whole VCC (made whole
        // by an exchange): the loop keeps its votes and the branch its publication.
        for p in [scc_loop(true, false), scc_loop(false, true)] {
            let q = plan(&p, 64);
            assert!(q.local_loops.is_empty());
            assert!(!q.to_string().contains("L45"));
        }
        // One wave: nothing to run on its own label.
        assert!(plan(&scc_loop(false, false), 32).local_loops.is_empty());
    }

    /// Two waves sharing LDS: b0 (with `cmpx`, a `v_cmpx` that leaves EXEC as own bits) ends with
    /// `s_cbranch_execz` over b1, which stores to global memory uniformly (so the skip needs its vote).
    fn execz_over_store(cmpx: bool) -> Program {
        mask_branch_over_store(EXEC_LO, cmpx)
    }

    /// Two waves sharing LDS: b0 writes mask `reg` (EXEC or VCC; with `vopc`, from a ballot: a `v_cmpx`
    /// or `v_cmp` whose result stays own bits; else VCC copied whole from s2, EXEC left alone) and ends
    /// with `s_cbranch_execz` / `s_cbranch_vccz` over b1, which stores to global memory uniformly.
    fn mask_branch_over_store(reg: u16, vopc: bool) -> Program {
        let mut b = B::new(32);
        b.lds_store();
        if vopc {
            let a = b.v(0);
            let k = b.c32(64);
            let c = b.cmp(IntCmp::LtU, a, k);
            let bal = b.n(Node::Ballot { cond: c });
            let t = b.n(Node::Unary {
                op: UnOp::Trunc,
                ty: Ty::B32,
                a: bal,
            });
            b.write_s(reg, t);
            b.end(if reg == EXEC_LO {
                "v_cmpx_gt_u32_e32 64, v0"
            } else {
                "v_cmp_gt_u32_e32 vcc_lo, 64, v0"
            });
        } else if reg == VCC_LO {
            let s = b.s(2);
            b.write_s(VCC_LO, s);
            b.end("s_mov_b32 vcc_lo, s2");
        }
        let c = if reg == EXEC_LO {
            b.execz()
        } else {
            let e = b.s(VCC_LO);
            let z = b.c32(0);
            let c = b.cmp(IntCmp::Eq, e, z);
            b.end("s_cbranch_vccz");
            c
        };
        b.block(Terminator::Branch {
            cond: c,
            taken: bh(2),
            not_taken: bh(1),
        });
        let a = b.s(0);
        let a = b.n(Node::Unary {
            op: UnOp::ZExt,
            ty: Ty::B64,
            a,
        });
        let x = b.s(1);
        b.n(Node::Store {
            space: Space::Global,
            access: Access::B32,
            addr: a,
            offset: 0,
            value: x,
        });
        b.end("s_store_dword s1, s[0:1]");
        b.block(Terminator::Jump(bh(2)));
        b.vmov();
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l23_exec_branch_labels_come_from_its_own_exchange() {
        let q = plan(&execz_over_store(true), 64);
        assert_eq!(q.masks.fall_target(0), None, "not a vote-free skip");
        assert_eq!(q.exec_labels[0], Some(EXEC_LO as u32));
        let text = q.to_string();
        assert!(
            text.contains("L23 labels from the EXEC exchange's ballot words"),
            "{text}"
        );
        // EXEC whole at the branch (no v_cmpx): nothing is exchanged there, the labels are published.
        let q = plan(&execz_over_store(false), 64);
        assert!(q.exec_labels[0].is_none());
        assert!(q.publishes[0]);
        // One wave: no labels to share.
        let q = plan(&execz_over_store(true), 32);
        assert!(q.exec_labels[0].is_none());
    }

    #[test]
    fn l23_vcc_branch_labels_come_from_its_own_exchange() {
        let q = plan(&mask_branch_over_store(VCC_LO, true), 64);
        assert_eq!(q.exec_labels[0], Some(VCC_LO as u32));
        let text = q.to_string();
        assert!(
            text.contains("L23 labels from the VCC exchange's ballot words"),
            "{text}"
        );
        assert!(!text.contains("L4 label publication"), "{text}");
        // VCC whole at the branch (a scalar copy): nothing is exchanged there, the labels are published.
        let q = plan(&mask_branch_over_store(VCC_LO, false), 64);
        assert!(q.exec_labels[0].is_none());
        assert!(q.publishes[0]);
        // One wave: no labels to share.
        let q = plan(&mask_branch_over_store(VCC_LO, true), 32);
        assert!(q.exec_labels[0].is_none());
    }

    /// Two cross-lane reads (`v_mov_b32_dpp`-like: lane 3's value of a VGPR into another VGPR), with
    /// `between` emitted between them; the second reads `second`.
    fn two_reads(second: u16, first_writes: u16, between: &dyn Fn(&mut B)) -> Program {
        let mut b = B::new(32);
        let a = b.v(1);
        let l = b.c32(3);
        let x = b.n(Node::ReadLane { a, lane: l });
        b.write_v(first_writes, x);
        b.end("read lane 3 of v1");
        between(&mut b);
        let a = b.v(second);
        let l = b.c32(3);
        let x = b.n(Node::ReadLane { a, lane: l });
        b.write_v(5, x);
        b.end("read lane 3 of v2");
        b.block(Terminator::End);
        b.done()
    }

    /// The lane module's `OpControlBarrier`s.
    fn module_barriers(p: &Program, wg: u32) -> usize {
        let opts = LowerOptions {
            mapping: super::super::super::Mapping::Lane,
            ..Default::default()
        };
        let words = super::super::super::lower_with(
            p,
            &layout(p.wave_size, wg),
            &DeviceProfile::portable(),
            &opts,
        )
        .expect("lowers");
        let (mut i, mut n) = (5, 0);
        while i < words.len() {
            if words[i] & 0xffff == 224 {
                n += 1;
            }
            i += (words[i] >> 16) as usize;
        }
        n
    }

    #[test]
    fn l35_adjacent_vgpr_reads_share_one_exchange() {
        let nothing = |_: &mut B| {};
        for wg in [32, 128] {
            // Fires: the second read's VGPR is unchanged since the first's exchange, one exchange with
            // two slots; also past an instruction that exchanges nothing and writes another VGPR.
            for p in [two_reads(2, 4, &nothing), two_reads(2, 4, &|b| b.vmov())] {
                let q = plan(&p, wg);
                assert_eq!(q.coalesced.len(), 1, "wg {wg}");
                assert_eq!(q.capture_exchanges.values().sum::<u32>(), 1);
                assert_eq!(q.slots, 2);
                assert!(
                    q.to_string().contains("(L35: on the exchange at 0x0000)"),
                    "{q}"
                );
                assert_eq!(q.barrier_sites().value_exchanges, 1);
                let sites = q.barrier_sites().total() as usize;
                assert_eq!(module_barriers(&p, wg), sites, "wg {wg}");
            }
            // Does not: the first instruction writes the VGPR the second reads (v2), a VGPR written in
            // between (v3 by v_mov), an LDS store in between (its fence).
            for p in [
                two_reads(2, 2, &nothing),
                two_reads(3, 4, &|b| b.vmov()),
                two_reads(2, 4, &|b| b.lds_store()),
            ] {
                let q = plan(&p, wg);
                assert!(q.coalesced.is_empty(), "wg {wg}\n{q}");
                assert_eq!(q.capture_exchanges.values().sum::<u32>(), 2);
                assert_eq!(q.slots, 1);
            }
        }
    }

    #[test]
    fn l40_exchanges_ride_across_chain_links() {
        let jump = |b: &mut B| b.block(Terminator::Jump(bh(1)));
        for wg in [32, 128] {
            // Fires: the second read is in the block the first one's jumps to (one chain item).
            for p in [
                two_reads(2, 4, &jump),
                two_reads(2, 4, &|b| {
                    jump(b);
                    b.vmov();
                }),
            ] {
                let q = plan(&p, wg);
                assert_eq!(q.chain_next[0], Some(1), "wg {wg}");
                assert_eq!(q.coalesced.len(), 1, "wg {wg}\n{q}");
                assert!(
                    q.to_string()
                        .contains("(L40: on the exchange of b0 at 0x0000)"),
                    "{q}"
                );
                assert_eq!(q.barrier_sites().value_exchanges, 1);
                assert_eq!(module_barriers(&p, wg), q.barrier_sites().total() as usize);
            }
            // Does not: v3 is written in the next block before the read; the next block is also entered
            // by its own back edge (no chain link).
            let mut b = B::new(32);
            let a = b.v(1);
            let l = b.c32(3);
            let x = b.n(Node::ReadLane { a, lane: l });
            b.write_v(4, x);
            b.end("read lane 3 of v1");
            jump(&mut b);
            let a = b.v(2);
            let l = b.c32(3);
            let x = b.n(Node::ReadLane { a, lane: l });
            b.write_v(5, x);
            b.end("read lane 3 of v2");
            b.cmp_s0();
            let c = b.scc();
            b.block(Terminator::Branch {
                cond: c,
                taken: bh(1),
                not_taken: bh(2),
            });
            b.block(Terminator::End);
            let back_edge = b.done();
            for p in [
                two_reads(3, 4, &|b| {
                    jump(b);
                    b.vmov();
                }),
                back_edge,
            ] {
                let q = plan(&p, wg);
                assert!(q.coalesced.is_empty(), "wg {wg}\n{q}");
                assert_eq!(q.barrier_sites().value_exchanges, 2, "wg {wg}\n{q}");
            }
        }
    }

    /// L41's shape: `s_mov_b32 s4, exec_lo`, `v_cmpx_lt_u32 v0, v1`, `between`, `s_or_b32 exec_lo,
    /// exec_lo, s4`, then `v_xor_b32 v2, exec_lo, v2` (EXEC read whole).
    fn restore_then_read_exec(between: &dyn Fn(&mut B)) -> Program {
        let mut b = B::new(32);
        let e = b.s(EXEC_LO);
        b.write_s(4, e);
        b.end("s_mov_b32 s4, exec_lo");
        b.vopc_into(EXEC_LO, "v_cmpx_lt_u32_e32 v0, v1");
        between(&mut b);
        let x = b.s(EXEC_LO);
        let y = b.s(4);
        let o = b.int(IntOp::Or, x, y);
        b.write_s(EXEC_LO, o);
        b.end("s_or_b32 exec_lo, exec_lo, s4");
        let m = b.s(EXEC_LO);
        let x = b.v(2);
        let y = b.int(IntOp::Xor, m, x);
        b.write_v(2, y);
        b.end("v_xor_b32 v2, exec_lo, v2");
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l41_restored_exec_is_the_saved_mask() {
        let nothing = |_: &mut B| {};
        for wg in [32, 128] {
            // Fires: EXEC after v_cmpx is a subset of s4, so the OR is s4, whole: no exchange.
            let p = restore_then_read_exec(&nothing);
            let q = plan(&p, wg);
            assert_eq!(q.barrier_sites().mask_exchanges, 0, "wg {wg}\n{q}");
            assert!(!q.to_string().contains("materialise exec_lo"), "{q}");
            assert_eq!(module_barriers(&p, wg), q.barrier_sites().total() as usize);
            // Does not: s4 overwritten with s5 (no fact), or EXEC widened by s6 before the restore.
            let s4_from_s5 = |b: &mut B| {
                let x = b.s(5);
                b.write_s(4, x);
                b.end("s_mov_b32 s4, s5");
            };
            let widen = |b: &mut B| {
                let x = b.s(EXEC_LO);
                let y = b.s(6);
                let o = b.int(IntOp::Or, x, y);
                b.write_s(EXEC_LO, o);
                b.end("s_or_b32 exec_lo, exec_lo, s6");
            };
            for p in [
                restore_then_read_exec(&s4_from_s5),
                restore_then_read_exec(&widen),
            ] {
                let q = plan(&p, wg);
                assert_eq!(q.barrier_sites().mask_exchanges, 1, "wg {wg}\n{q}");
                assert!(
                    q.to_string()
                        .contains("L9 materialise exec_lo first (exchange)"),
                    "{q}"
                );
            }
        }
    }

    /// L38's shape (rocPRIM's match-any): `v_cmp_lt_u32 s4, v0, v1`, `v_cmp_lt_u32 s5, v0, v1`, then
    /// `v_xor_b32 v2, s4, v2` and `v_xor_b32 v3, s5, v3` (each mask read whole by a VALU operation),
    /// with `s5` written again between the two reads when `rewrite` (after `v_add_f32 v1, v0, v0` when
    /// `float`: its condition's operand then comes from a float operation, which L50 does not copy).
    fn two_masks_read_whole(rewrite: bool, float: bool) -> Program {
        let mut b = B::new(32);
        b.vopc_into(4, "v_cmp_lt_u32 s4, v0, v1");
        b.vopc_into(5, "v_cmp_lt_u32 s5, v0, v1");
        for (k, (s, v)) in [(4u16, 2u16), (5, 3)].into_iter().enumerate() {
            if k == 1 && float {
                let a = b.v(0);
                let x = b.n(Node::Float {
                    op: rdna2spv_ir::FloatOp::F32Add,
                    args: [a, a, a],
                });
                b.write_v(1, x);
                b.end("v_add_f32 v1, v0, v0");
            }
            if k == 1 && rewrite {
                b.vopc_into(5, "v_cmp_lt_u32 s5, v0, v1");
            }
            let m = b.s(s);
            let x = b.v(v);
            let y = b.int(IntOp::Xor, m, x);
            b.write_v(v, y);
            b.end(&format!("v_xor_b32 v{v}, s{s}, v{v}"));
        }
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l38_masks_read_whole_later_share_the_first_read_s_exchange() {
        for wg in [32, 128] {
            // Fires: s5 rides on the exchange that makes s4 whole.
            let q = plan(&two_masks_read_whole(false, false), wg);
            assert!(
                q.to_string()
                    .contains("L9 materialise s4 s5 first (exchange)"),
                "wg {wg}\n{q}"
            );
            let sites = q.barrier_sites();
            assert_eq!(sites.mask_exchanges, 1, "wg {wg}");
            let p = two_masks_read_whole(false, false);
            assert_eq!(module_barriers(&p, wg), sites.total() as usize, "wg {wg}");
            // L50: s5 is written again before its read by a ballot whose condition reads v0 and v1,
            // unwritten since the exchange: its full value is formed on it.
            let p = two_masks_read_whole(true, false);
            let q = plan(&p, wg);
            let text = q.to_string();
            assert!(
                text.contains("L9 materialise s4 first (exchange); L50 later ballots")
                    && text.contains("whole from an earlier exchange")
                    && !text.contains("L9 materialise s5"),
                "wg {wg}\n{q}"
            );
            let sites = q.barrier_sites();
            assert_eq!(sites.mask_exchanges, 1, "wg {wg}");
            assert_eq!(module_barriers(&p, wg), sites.total() as usize, "wg {wg}");
            // Neither: v1 is written by a float operation in between, so s5 is made whole where it is
            // read.
            let p = two_masks_read_whole(true, true);
            let q = plan(&p, wg);
            let text = q.to_string();
            assert!(
                text.contains("L9 materialise s4 first (exchange)")
                    && text.contains("L9 materialise s5 first (exchange)")
                    && !text.contains("L50"),
                "wg {wg}\n{q}"
            );
            let sites = q.barrier_sites();
            assert_eq!(sites.mask_exchanges, 2, "wg {wg}");
            assert_eq!(module_barriers(&p, wg), sites.total() as usize, "wg {wg}");
        }
    }

    /// L50's cost check: the later ballot raises the exchange to two ballot sets, which turns L46 (ballots
    /// through subgroup shuffles) on where the profile measured aligned subgroups; there the plan without
    /// it (one ballot set, two mask exchanges) is taken, elsewhere the plan with it.
    #[test]
    fn l50_not_where_its_ballots_would_turn_l46_on() {
        let mut aligned = DeviceProfile::portable();
        aligned.aligned_subgroup_size = 8;
        let p = two_masks_read_whole(true, false);
        for wg in [32, 128] {
            let q = lane_plan(&p, &layout(32, wg), &aligned, &LowerOptions::default())
                .expect("accepted");
            let text = q.to_string();
            assert!(!text.contains("L50"), "wg {wg}\n{q}");
            assert_eq!(
                (q.ballots, q.barrier_sites().mask_exchanges),
                (1, 2),
                "wg {wg}"
            );
            let q = plan(&p, wg);
            assert!(q.to_string().contains("L50 later ballots"), "wg {wg}\n{q}");
            assert_eq!(
                (q.ballots, q.barrier_sites().mask_exchanges),
                (2, 1),
                "wg {wg}"
            );
        }
    }

    /// `v_cmpx_lt_u32 v0, v1` (EXEC from a lane condition: stale, own bits only), then a cross-lane read
    /// of lane 3's v2 that also reads EXEC whole (`ds_bpermute_b32`'s "lane 3 active" test) into v5.
    /// With `lane_from_exec` the read's lane comes from EXEC (its capture needs the whole EXEC first).
    fn cmpx_then_read(lane_from_exec: bool) -> Program {
        let mut b = B::new(32);
        b.vopc_into(EXEC_LO, "v_cmpx_lt_u32 v0, v1");
        let x = b.v(2);
        let e = b.s(EXEC_LO);
        let l = if lane_from_exec {
            let k = b.c32(31);
            b.int(IntOp::And, e, k)
        } else {
            b.c32(3)
        };
        let r = b.n(Node::ReadLane { a: x, lane: l });
        let sh = b.int(IntOp::LShr, e, l);
        let one = b.c32(1);
        let bit = b.int(IntOp::And, sh, one);
        let z = b.c32(0);
        let act = b.cmp(IntCmp::Ne, bit, z);
        let y = b.n(Node::Select {
            cond: act,
            a: r,
            b: z,
        });
        b.write_v(5, y);
        b.end("ds_bpermute_b32 v5, v3, v2 (lane 3)");
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l36_stale_exec_rides_on_the_instruction_s_own_exchange() {
        for wg in [32, 128] {
            // Fires: EXEC's ballot rides on the read's exchange; the EXEC reads wait for it.
            let p = cmpx_then_read(false);
            let q = plan(&p, wg);
            assert_eq!(q.merged.len(), 1, "wg {wg}\n{q}");
            assert!(q
                .to_string()
                .contains("L9 materialise exec_lo (L36: on its own exchange)"));
            let sites = q.barrier_sites();
            assert_eq!(
                (sites.mask_exchanges, sites.value_exchanges),
                (0, 1),
                "wg {wg}"
            );
            assert_eq!(module_barriers(&p, wg), sites.total() as usize, "wg {wg}");
            // Does not: the read's lane comes from the whole EXEC, so EXEC is made whole first.
            let p = cmpx_then_read(true);
            let q = plan(&p, wg);
            assert!(q.merged.is_empty(), "wg {wg}\n{q}");
            assert!(q
                .to_string()
                .contains("L9 materialise exec_lo first (exchange)"));
            let sites = q.barrier_sites();
            assert_eq!(
                (sites.mask_exchanges, sites.value_exchanges),
                (1, 1),
                "wg {wg}"
            );
            assert_eq!(module_barriers(&p, wg), sites.total() as usize, "wg {wg}");
        }
    }

    /// L42's shape (clang's tail-duplicated `if`): b0 `v_cmp_lt_u32 vcc_lo, v0, v1`,
    /// `s_and_saveexec_b32 s2, vcc_lo`, `s_cbranch_execnz` to b3 (out of line), else b1; b1 `s_or_b32
    /// exec_lo, exec_lo, s2` then b2; b2 reads s5 and ends; b3 `prefix`, then `tail` (b1's instruction
    /// when it is `s_or_b32 exec_lo, exec_lo, s2`) and b2.
    fn tail_dup(prefix: &dyn Fn(&mut B), tail: &str) -> Program {
        let mut b = B::new(32);
        b.vopc_vcc();
        let e = b.s(EXEC_LO);
        let v = b.s(VCC_LO);
        b.write_s(2, e);
        let a = b.int(IntOp::And, e, v);
        b.write_s(EXEC_LO, a);
        b.end("s_and_saveexec_b32 s2, vcc_lo");
        let c = b.execnz();
        b.block(Terminator::Branch {
            cond: c,
            taken: bh(3),
            not_taken: bh(1),
        });
        let restore = |b: &mut B, text: &str| {
            let e = b.s(EXEC_LO);
            let x = b.s(2);
            let o = b.int(IntOp::Or, e, x);
            b.write_s(EXEC_LO, o);
            b.end(text);
        };
        restore(&mut b, "s_or_b32 exec_lo, exec_lo, s2");
        b.block(Terminator::Jump(bh(2)));
        let x = b.s(5);
        b.write_v(4, x);
        b.end("v_mov_b32 v4, s5");
        b.block(Terminator::End);
        prefix(&mut b);
        restore(&mut b, tail);
        b.block(Terminator::Jump(bh(2)));
        b.done()
    }

    #[test]
    fn l42_tail_duplicated_if_needs_no_vote() {
        let same = "s_or_b32 exec_lo, exec_lo, s2";
        // A prefix harmless with no lane active: a VGPR write, and VCC (dead at b1) from a VOPC.
        let harmless = |b: &mut B| {
            b.vmov();
            b.vopc_vcc();
        };
        // s5, read at b2, written by the prefix: the hardware's way with EXEC = 0 keeps the old s5.
        let live = |b: &mut B| {
            let one = b.c32(1);
            b.write_s(5, one);
            b.end("s_mov_b32 s5, 1");
        };
        for wg in [32, 128] {
            let p = tail_dup(&harmless, same);
            let q = plan(&p, wg);
            assert_eq!(q.masks.fall_target(0), Some(3), "wg {wg}\n{q}");
            assert_eq!(q.masks.tail_same(0), Some(1));
            // L43: b1, reached only through the branch's other way, is not emitted.
            assert!(!q.masks.reached(1) && q.masks.reached(3));
            assert!(q.to_string().contains("block b1 #"), "{q}");
            assert!(q.to_string().contains(
                "L43 not emitted (reached only through the other way of vote-free EXEC branches)"
            ));
            assert!(q.to_string().contains(
                "L42 vote-free EXEC branch: b3 run with no lane active does what b1 does; always goes to b3"
            ));
            assert_eq!(q.barrier_sites().mask_exchanges, 0, "wg {wg}\n{q}");
            assert_eq!(module_barriers(&p, wg), q.barrier_sites().total() as usize);
            // Does not: the prefix writes a live SGPR, or the tail is not b1's instruction.
            for p in [
                tail_dup(&live, same),
                tail_dup(&harmless, "s_or_b32 exec_lo, exec_lo, s3"),
            ] {
                let q = plan(&p, wg);
                assert_eq!(q.masks.fall_target(0), None, "wg {wg}\n{q}");
                assert_eq!(q.barrier_sites().mask_exchanges, 1, "wg {wg}\n{q}");
            }
        }
    }

    /// `ReadLane`s of `a` at every lane and the lifter's multiplexer tree on the bits of `idx` (D020):
    /// `a` of lane `idx & 31` (wave32).
    fn pick_tree(b: &mut B, a: H, idx: H) -> H {
        let conds: Vec<H> = (0..5)
            .map(|j| {
                let k = b.c32(j);
                let sh = b.int(IntOp::LShr, idx, k);
                let one = b.c32(1);
                let bit = b.int(IntOp::And, sh, one);
                let z = b.c32(0);
                b.cmp(IntCmp::Ne, bit, z)
            })
            .collect();
        fn build(b: &mut B, a: H, conds: &[H], first: u64, height: usize) -> H {
            if height == 0 {
                let l = b.c32(first);
                return b.n(Node::ReadLane { a, lane: l });
            }
            let lo = build(b, a, conds, first, height - 1);
            let hi = build(b, a, conds, first + (1 << (height - 1)), height - 1);
            b.n(Node::Select {
                cond: conds[height - 1],
                a: hi,
                b: lo,
            })
        }
        build(b, a, &conds, 0, 5)
    }

    /// v3 = lane ^ m (one instruction); then, with `exec_from_s0`, `s_mov_b32 exec_lo, s0` (EXEC from an
    /// unknown value); then `v5 = v1 of lane v3` (a pick); end. With `join_m`, v3 is instead set to
    /// lane ^ m in one arm and lane ^ join_m in the other of a uniform branch, and the pick follows the
    /// join.
    fn lane_xor_pick(m: u64, exec_from_s0: bool, join_m: Option<u64>) -> Program {
        let mut b = B::new(32);
        let xor = |b: &mut B, m: u64| {
            let l = b.n(Node::LaneId);
            let k = b.c32(m);
            let x = b.int(IntOp::Xor, l, k);
            b.write_v(3, x);
            b.end("v_xor_b32 v3, m, lane");
        };
        xor(&mut b, m);
        if let Some(m2) = join_m {
            b.cmp_s0();
            let c = b.scc();
            b.block(Terminator::Branch {
                cond: c,
                taken: bh(1),
                not_taken: bh(2),
            });
            xor(&mut b, m2);
            b.block(Terminator::Jump(bh(2)));
        }
        if exec_from_s0 {
            let s = b.s(0);
            b.write_s(EXEC_LO, s);
            b.end("s_mov_b32 exec_lo, s0");
        }
        let a = b.v(1);
        let idx = b.v(3);
        let r = pick_tree(&mut b, a, idx);
        b.write_v(5, r);
        b.end("read v1 of lane v3");
        b.block(Terminator::End);
        b.done()
    }

    #[test]
    fn l44_picks_inside_a_subgroup_block_are_shuffles() {
        let mut aligned = DeviceProfile::portable();
        aligned.aligned_subgroup_size = 8;
        let plan_with = |p: &Program, prof: &DeviceProfile| {
            lane_plan(p, &layout(32, 64), prof, &LowerOptions::default()).expect("accepted")
        };
        // Fires: lane ^ 1, ^ 4 read the reader's block of 8; no exchange is left.
        for m in [1, 4, 7] {
            let p = lane_xor_pick(m, false, None);
            let q = plan_with(&p, &aligned);
            assert_eq!(q.shuffled.len(), 1, "m {m}\n{q}");
            assert_eq!(q.barrier_sites().value_exchanges, 0, "m {m}");
            assert!(q
                .to_string()
                .contains("L44 subgroup shuffles: blocks of 8 lanes, 1 cross-lane reads"));
            assert!(
                q.to_string().contains("L44 in the lane's subgroup block"),
                "{q}"
            );
            // The portable profile (no measured layout) keeps the exchange.
            let q = plan_with(&p, &DeviceProfile::portable());
            assert!(q.shuffled.is_empty());
            assert_eq!(q.barrier_sites().value_exchanges, 1, "m {m}");
        }
        // Does not: lane ^ 8 and ^ 16 leave the block; EXEC set from an unknown value after v3 was
        // written (v3's claim was made for the launch EXEC's lanes, which need not hold the new EXEC's);
        // after a join where the other way wrote lane ^ 8 (bit 3 unknown).
        for (m, exec, join) in [
            (8, false, None),
            (16, false, None),
            (1, true, None),
            (1, false, Some(8)),
        ] {
            let p = lane_xor_pick(m, exec, join);
            let q = plan_with(&p, &aligned);
            assert!(
                q.shuffled.is_empty(),
                "m {m} exec {exec} join {join:?}\n{q}"
            );
            assert_eq!(q.barrier_sites().value_exchanges, 1);
        }
        // A join where both ways wrote a lane of the block (lane ^ 1 and lane ^ 2): bits 3, 4 are the
        // lane's on both.
        let q = plan_with(&lane_xor_pick(1, false, Some(2)), &aligned);
        assert_eq!(q.shuffled.len(), 1, "{q}");
        // Blocks of 64 do not divide a wave of 32: nothing.
        let mut wide = DeviceProfile::portable();
        wide.aligned_subgroup_size = 64;
        let q = plan_with(&lane_xor_pick(1, false, None), &wide);
        assert!(q.shuffled.is_empty());
        assert!(q.to_string().contains("do not divide the wave"), "{q}");
    }
}
