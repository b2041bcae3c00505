//! Structured control flow (decision D035): the program's [`Structure`] emitted as SPIR-V selection and loop
//! constructs instead of one dispatcher loop over every block.
//!
//! A `u32` label variable holds the structured number of the next block. A region is emitted as a sequence
//! of items in a topological order of its acyclic graph: a block item is `if (label == n) { block;
//! label = successor }` (an `OpSelectionMerge`), a loop item is `while (label in [lo, hi)) { items }` (an
//! `OpLoopMerge` whose only exit is the test in its header: lavapipe computes the live-outs of loops left
//! from their body wrongly, DESIGN.md; the header's test is the item's, with no selection around it,
//! D264). One pass over a region therefore runs a whole acyclic path, with no `switch` over all blocks:
//! on lavapipe a dispatcher runs every case under a mask for each block executed. The `s_endpgm` block sets the label to `END`; a block that ends with `s_barrier`
//! stores its successor in the resume variable and sets the label to `PAUSE`, so every loop ends and the
//! pass returns to the caller's outer loop, which meets the other waves at one `OpControlBarrier` in uniform
//! control flow and starts the next pass at the resume number. A pass that ends anywhere else was cut short
//! by a driver loop cap: the wave resumes where it stopped and its flag (lane-loop progress, `done`) says so.
//! Irreducible regions run as a loop over their blocks re-dispatched on the label (the only dispatcher left;
//! [`control_flow_notes`] names them).
//!
//! In the lane mapping a block item is a chain of blocks that follow each other on a straight line (D137,
//! `lane/chain.rs`): one vote and one label update for the whole chain. A lone wave that never pauses
//! (`lane_solo`) runs a single pass with no outer loop, the entry block's chain first and without its
//! label test (D142). So do several workgroup-converged waves that meet every barrier in place (D143),
//! and there every top-level chain that all waves with work reach straight from the one before (a jump,
//! a barrier met in place, a vote-free skip) runs without its label test too.

use rdna2spv_ir::cfg::{Item, Loop, Structure};
use rdna2spv_ir::{Handle, Program, Terminator};
use spirv::{LoopControl, Word};

use super::{Cx, R};

/// How the lowering emits control flow between blocks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ControlFlow {
    /// Selection and loop constructs from the program's loop structure (a dispatcher loop only for
    /// irreducible regions).
    #[default]
    Structured,
    /// One top-tested loop with a `switch` over every block (the reference form).
    Dispatcher,
}

/// The label value after `s_endpgm`.
pub(crate) const END: u32 = u32::MAX;
/// The label value after `s_barrier` (the pass ends; the resume variable says where to continue).
pub(crate) const PAUSE: u32 = u32::MAX - 1;

/// Human-readable notes on the structured form of `p`: one line per irreducible region that runs as a
/// dispatcher loop, naming its blocks and their pcs, and one per barrier that waves may pass different
/// numbers of times ([`rdna2spv_ir::cfg::divergent_barriers`]). Empty for a fully structured program with
/// barriers only in uniform control flow.
pub fn control_flow_notes(p: &Program) -> Vec<String> {
    let s = Structure::of(p);
    let barriers = rdna2spv_ir::cfg::divergent_barriers(p).into_iter().map(|d| {
        format!(
            "{}: s_barrier at pc 0x{:x} (block {}) lies in a loop of {} blocks whose branch at pc 0x{:x} \
             (block {}) can differ between waves: waves may pass it different numbers of times (as on the \
             hardware, a wave that has ended no longer holds the barrier; the device's barrier round does the same)",
            p.name,
            d.pc,
            d.block,
            d.region.len(),
            d.branch_pc,
            d.branch
        )
    });
    let mut notes: Vec<String> = s
        .dispatch_regions
        .iter()
        .map(|r| {
            let pcs = |bs: &[usize]| -> String {
                bs.iter()
                    .map(|&b| {
                        format!(
                            "block {b} (pc 0x{:x})",
                            p.blocks[Handle::from_index(b)].start_pc
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!(
                "{}: irreducible region of {} blocks entered at {} runs as a dispatcher loop; its blocks: {}",
                p.name,
                r.blocks.len(),
                pcs(&r.entries),
                pcs(&r.blocks)
            )
        })
        .collect();
    notes.extend(barriers);
    notes
}

impl Cx<'_> {
    /// Creates the label and resume variables and computes the structure.
    pub(super) fn structured_vars(&mut self) -> R<()> {
        let mut s = Structure::of(self.p);
        // L43: the lane plan leaves out the blocks its vote-free branches make unreachable.
        if let Some(plan) = self.plan.as_ref() {
            plan.masks.prune_unreached(&mut s.items);
        }
        let z = self.c32(0);
        self.label = self.fn_var(self.t.u32, Some(z));
        let start = self.c32(s.number[self.p.entry().index()]);
        self.resume = self.fn_var(self.t.u32, Some(start));
        self.structure = Some(s);
        Ok(())
    }

    /// One pass of the structured program from the resume point (the caller runs it once per barrier).
    pub(super) fn structured(&mut self) -> R<()> {
        let s = self
            .structure
            .take()
            .ok_or_else(|| super::LowerError::Build("structure not computed".into()))?;
        let r = self.load_u32(self.resume)?;
        if self.lane_mode() {
            // A wave that has ended takes part in the pass with the label END.
            let d = self.load_bool(self.done)?;
            let end = self.c32(END);
            let r = self.b.select(self.t.u32, None, d, end, r)?;
            self.store(self.label, r)?;
            self.lane_pass_start()?;
        } else {
            self.store(self.label, r)?;
        }
        // One wave alone with no barrier (D142), or converged waves that meet every barrier in place
        // (D143): the single pass starts at the entry block in every wave with work, so the entry's chain
        // runs at the top of the module, outside every selection.
        let top = self.lane_one_pass();
        self.items(&s, &s.items, top)?;
        // Paused at a barrier: resume where the barrier said. Anything else but END: a loop was cut
        // short; continue from the label (the flag reports it).
        let l = self.load_u32(self.label)?;
        let pause = self.c32(PAUSE);
        let paused = self.b.i_equal(self.t.bool, None, l, pause)?;
        let r = self.load_u32(self.resume)?;
        let next = self.b.select(self.t.u32, None, paused, r, l)?;
        self.store(self.resume, next)?;
        self.structure = Some(s);
        Ok(())
    }

    /// `label in [lo, hi)`.
    pub(super) fn label_in(&mut self, lo: u32, hi: u32) -> R<Word> {
        let l = self.load_u32(self.label)?;
        if self.lane_mode() && hi - lo == 1 {
            // One number: `label == lo` (D231; the wave mapping's modules keep their form).
            let loc = self.c32(lo);
            return Ok(self.b.i_equal(self.t.bool, None, l, loc)?);
        }
        let loc = self.c32(lo);
        let d = self.b.i_sub(self.t.u32, None, l, loc)?;
        let len = self.c32(hi - lo);
        Ok(self.b.u_less_than(self.t.bool, None, d, len)?)
    }

    /// The items of a region in order; with `top` (D142), a first item that is the entry block's chain
    /// runs without a label test.
    fn items(&mut self, s: &Structure, items: &[Item], top: bool) -> R<()> {
        // The block every wave with work is at when the pass reaches the next item (D142, D143).
        let mut certain = top.then(|| self.p.entry().index());
        let mut i = 0;
        while i < items.len() {
            let it = &items[i];
            let first = std::mem::take(&mut certain);
            i += 1;
            match it {
                Item::Block(b) if self.lane_mode() => {
                    // Lane mapping: the workgroup runs the block when any wave's label selects it;
                    // the others run it with their state frozen; then the labels are published. A
                    // straight-line chain of blocks is one item (D137).
                    let mut chain = vec![*b];
                    while let Some(Item::Block(c)) = items.get(i) {
                        if !self.lane_chain_link(*chain.last().expect("non-empty"), *c) {
                            break;
                        }
                        chain.push(*c);
                        i += 1;
                    }
                    let at_top = first == Some(*b);
                    self.lane_chain_item(s, &chain, at_top)?;
                    if at_top {
                        // Converged waves (D143): the next item, when it is the block every wave
                        // with work goes to, runs at the top as well.
                        certain = self.lane_certain_next(*chain.last().expect("non-empty"));
                    }
                }
                Item::Block(b) => {
                    let n = s.number[*b];
                    let go = self.label_in(n, n + 1)?;
                    self.guarded(go, None, |cx| {
                        cx.structured_block(s, *b, true)?;
                        Ok(None)
                    })?;
                }
                Item::Loop(lp) => {
                    // D144: a top chain after a loop keeps its label test.
                    self.lane_loop_item();
                    // Several waves, a loop left lane by lane (D133): entered on the invocation's own
                    // label, run without votes or publications, the label copies advanced after it.
                    if let Some(x) = self.lane_local_loop(lp.lo, lp.hi) {
                        self.lane_set_local(true);
                        let r = self.structured_loop(s, lp);
                        self.lane_set_local(false);
                        r?;
                        self.lane_local_exit(lp.lo, lp.hi, x)?;
                        continue;
                    }
                    // The loop's header tests the label first: no test around it (D264).
                    self.structured_loop(s, lp)?;
                }
            }
        }
        Ok(())
    }

    /// Lane mapping: the item of a chain of blocks (D137, `lane/chain.rs`; one block when nothing
    /// continues it): the vote and `on` of its first block, every block's code, then the label update,
    /// the label-copy update (or publication) and the D134 meeting of its last block.
    fn lane_chain_item(&mut self, s: &Structure, chain: &[usize], at_top: bool) -> R<()> {
        let (&last, inner) = chain.split_last().expect("a chain has a block");
        let n = s.number[chain[0]];
        // A converged chain (D141): the only waves "off" are empty ones, whose SGPR and SCC writes
        // need no `on`.
        let conv = self.lane_conv_block(n);
        let body = |cx: &mut Self| -> R<Option<Word>> {
            // L35/L40: values ride on an exchange of the same chain only (a rider the emission
            // reaches from another item finds no carried slot and is refused, never stale).
            cx.lane_forget_carried();
            cx.lane_set_on(n)?;
            cx.lane_set_conv(conv);
            for &b in inner {
                cx.structured_block(s, b, false)?;
                cx.lane_block_end(b, false);
            }
            let barrier = cx.structured_block(s, last, true)?;
            // The copies of the waves that ran the chain "on" are still the first block's number.
            match cx.p.blocks[Handle::from_index(last)].terminator {
                Terminator::Branch { .. } => match cx.lane_fallthrough(last) {
                    // A vote-free s_cbranch_execz (D102): every wave falls through.
                    Some(to) => cx.lane_advance(n, s.number[to])?,
                    // Every wave's EXEC from the branch's own exchange (D136).
                    None if cx.lane_exec_labels(last, n, &s.number)? => {}
                    // A workgroup-uniform condition: every invocation decides alike (D141).
                    None if cx.lane_uniform_labels(last, n, &s.number)? => {}
                    None => cx.lane_publish()?,
                },
                Terminator::End => cx.lane_advance(n, END)?,
                // Paused with a static resume point (D108): its number, tagged.
                Terminator::Jump(to) if barrier && cx.lane_plan().static_resume => {
                    cx.lane_advance(n, super::lane::PAUSED + s.number[to.index()])?
                }
                Terminator::Jump(_) if barrier => cx.lane_advance(n, PAUSE)?,
                Terminator::Jump(to) => cx.lane_advance(n, s.number[to.index()])?,
            }
            cx.lane_set_conv(false);
            cx.lane_block_end(last, barrier);
            if barrier {
                cx.lane_meet(s, last)?; // D134: the waves meet here when all have paused
            }
            Ok(None)
        };
        if at_top {
            // D142: the pass starts here in every wave that has work (an empty split wave runs it off).
            self.lane_top_chain(true)?;
            body(self)?;
            return self.lane_top_chain(false);
        }
        let go = self.lane_vote(n, n + 1)?;
        self.guarded(go, None, body)?;
        Ok(())
    }

    /// `while (label in [lo, hi)) { items }`, the test in the header.
    fn structured_loop(&mut self, s: &Structure, lp: &Loop) -> R<()> {
        // Left lane by lane (D130): the invocations leave at different iterations, so no barrier may
        // be emitted inside; the analysis guarantees it, this checks it.
        // L16/L45 (D133, D238): invocations inside a loop run on their own labels are at different
        // places: no barrier either.
        let lane_local = self.lane_exit_loop(&s.number, lp.lo, lp.hi) || self.lane_on_known();
        let barriers = self.lane_barriers();
        let shuffles = self.lane_shuffles();
        let (h, body, cont, merge) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
        self.b.branch(h)?;
        self.begin(h)?;
        if self.lane_mode() {
            // The vote reads workgroup memory: after the header, in its own block.
            let test = self.b.id();
            self.b
                .loop_merge(merge, cont, LoopControl::DONT_UNROLL, [])?;
            self.b.branch(test)?;
            self.begin(test)?;
            let go = self.lane_vote(lp.lo, lp.hi)?;
            self.b.branch_conditional(go, body, merge, [])?;
        } else {
            let go = self.label_in(lp.lo, lp.hi)?;
            self.b
                .loop_merge(merge, cont, LoopControl::DONT_UNROLL, [])?;
            self.b.branch_conditional(go, body, merge, [])?;
        }
        self.begin(body)?;
        self.loop_depth += 1;
        let r = self.items(s, &lp.items, false);
        self.loop_depth -= 1;
        r?;
        self.b.branch(cont)?;
        self.begin(cont)?;
        self.b.branch(h)?;
        if lane_local && self.lane_barriers() != barriers {
            return Err(super::LowerError::Build(
                "a barrier inside a loop whose lanes leave it one by one (D130)".into(),
            ));
        }
        if lane_local && self.lane_shuffles() != shuffles {
            return Err(super::LowerError::Build(
                "a subgroup shuffle inside a loop whose lanes leave it one by one (L44)".into(),
            ));
        }
        self.begin(merge)
    }

    /// A block's code and, with `update`, the label update for its terminator; whether it ends with
    /// `s_barrier`. Without `update` (a block that continues into the next one of its chain, D137) the
    /// label is left as it is.
    fn structured_block(&mut self, s: &Structure, bi: usize, update: bool) -> R<bool> {
        // The block a cut-short wave reports (the flag's bits 8..). In the lane mapping only a loop's
        // back edge is ever cut: a structured loop's, whose blocks write it, or the pass loop's, after a
        // block that ends with `s_barrier`, which writes it too; no other block can be the last entered
        // when the flag says cut short (D265). The wave mapping's lane loops run in every block.
        let barrier_block = self.lane_mode()
            && self.p.blocks[Handle::from_index(bi)]
                .insts
                .last()
                .is_some_and(|i| {
                    self.p
                        .inst_nodes(i)
                        .any(|(_, nd)| matches!(nd, rdna2spv_ir::Node::Barrier))
                });
        if !self.lane_mode() || self.loop_depth > 0 || barrier_block {
            let c = self.c32(bi as u32);
            self.store(self.block_var, c)?;
        }
        if self.lane_mode() {
            self.lane_block_start(bi);
            self.lane_plan_masks(bi);
        }
        let barrier = self.block_insts(bi)?;
        self.mark("(frame)");
        if !update {
            if barrier {
                return Err(super::LowerError::Build(
                    "an s_barrier block inside a chain (D137)".into(),
                ));
            }
            return Ok(false);
        }
        let t = self.t;
        let next = match self.p.blocks[Handle::from_index(bi)].terminator {
            Terminator::Jump(to) => self.c32(s.number[to.index()]),
            // A lane-local loop exit (D130): the lane's own EXEC bit decides.
            Terminator::Branch { .. } if self.lane_exit(bi) => {
                let (stay, leave) = self.lane_exit_targets(bi)?;
                let own = self.lane_exec_own()?;
                let a = self.c32(s.number[stay]);
                let b = self.c32(s.number[leave]);
                self.b.select(t.u32, None, own, a, b)?
            }
            Terminator::Branch { .. } if self.lane_fallthrough(bi).is_some() => {
                let to = self.lane_fallthrough(bi).expect("checked");
                self.c32(s.number[to])
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
                let a = self.c32(s.number[taken.index()]);
                let b = self.c32(s.number[not_taken.index()]);
                self.b.select(t.u32, None, c, a, b)?
            }
            Terminator::End => {
                let tr = self.ctrue();
                if self.lane_multi() {
                    let bool_ = self.t.bool;
                    self.lane_store_on(self.done, bool_, tr)?;
                } else {
                    self.store(self.done, tr)?;
                }
                self.c32(END)
            }
        };
        let ended = matches!(
            self.p.blocks[Handle::from_index(bi)].terminator,
            Terminator::End
        );
        let u32_ = self.t.u32;
        if barrier && !ended {
            self.lane_store_on(self.resume, u32_, next)?;
            let p = self.c32(PAUSE);
            self.lane_store_on(self.label, u32_, p)?;
        } else {
            self.lane_store_on(self.label, u32_, next)?;
        }
        Ok(barrier && !ended)
    }
}
