//! Several waves per Vulkan workgroup: the labels of the other waves at the start of a pass without a
//! publication (decision D108).
//!
//! Each invocation keeps a copy of every wave's structured label, updated at the end of every block item
//! either by a publication (after a conditional branch: one barrier) or locally (`lane_advance`: a jump,
//! the end). A pass used to start with a publication too, because a wave that paused at `s_barrier` resumes
//! at its own resume point. When every block that ends with `s_barrier` ends in a jump, that resume point
//! is the jump's target, known to every invocation: the block's local update stores the target tagged as
//! paused (`PAUSED + number`, outside every structured range, so no construct of the rest of the pass runs
//! for that wave), and the next pass starts by untagging the copies, with no barrier. The copies start as
//! the entry's number for every wave with work-items and END for the waves a partial workgroup leaves empty
//! (their `done` is set from the start), exactly the labels the first publication used to gather.
//!
//! An `s_cbranch_execz/execnz` whose EXEC is materialised at the branch itself (D101: one exchange of the
//! lanes' own bits) needs no publication either (decision D136): the exchange's ballot words hold every
//! wave's EXEC, so after its barrier every invocation computes each wave's branch from them
//! ([`Cx::lane_exec_labels`]); the same for an `s_cbranch_vccz/vccnz` whose VCC is materialised at the
//! branch (decision D234).

use rdna2spv_ir::cfg::ends_with_barrier;
use rdna2spv_ir::{Handle, Node, Terminator, Ty};
use spirv::Word;

use super::super::{Cx, LowerError, R};

/// The tag of a paused wave's label copy (its resume number added); structured numbers stay below it.
pub(crate) const PAUSED: u32 = 0x8000_0000;

/// The layout of the label copies (decision D231): `(width, groups)`, wave `w`'s copy being
/// component `w % width` of vector `w / width` of one private array of `groups` u32 vectors (`width` 2 for
/// two waves, else 4). The components past the last wave hold END, which no operation on the copies
/// tells from an ended wave's: never in a structured range, never a block's number, above every resume
/// threshold, and END is what [`Cx::lane_round`] waits for.
pub(crate) fn copy_layout(waves: u32) -> (u32, u32) {
    let width = if waves <= 2 { 2 } else { 4 };
    (width, waves.div_ceil(width))
}

/// What an operation on label copies works on: one u32 (wave 0's copy alone, the copies collapsed, D141)
/// or a whole vector of `n` copies; `u` and `b` the u32 and bool types of that shape.
#[derive(Clone, Copy)]
pub(crate) struct Lanes {
    pub(crate) n: u32,
    pub(crate) u: Word,
    pub(crate) b: Word,
}

impl Lanes {
    /// One u32 copy.
    pub(crate) fn scalar(t: &super::super::T) -> Lanes {
        Lanes {
            n: 1,
            u: t.u32,
            b: t.bool,
        }
    }
}

impl Cx<'_> {
    /// Whether the pass can start without a publication: every block that ends with `s_barrier` ends in
    /// a jump (a static resume target) and the structured numbers stay below [`PAUSED`].
    pub(crate) fn lane_static_resume(&self) -> bool {
        let p = self.p;
        if p.blocks.len() as u64 >= PAUSED as u64 {
            return false;
        }
        p.blocks.iter().all(|(h, b)| {
            !ends_with_barrier(p, h.index())
                || matches!(b.terminator, Terminator::Jump(_) | Terminator::End)
        })
    }

    /// Several waves: every wave's label copy at the start, from the workgroup's work-item count
    /// `threads` (u32): the entry's number for the waves with work-items, `end` for the empty ones.
    pub(crate) fn lane_init_labels(&mut self, threads: Word, entry: u32, end: u32) -> R<()> {
        let Some((_, _, _, copy)) = self.lm.as_ref().and_then(|m| m.labels) else {
            return Ok(());
        };
        let t = self.t;
        let ec = self.c32(entry);
        let endc = self.c32(end);
        let mut vals = Vec::new();
        for w in 0..self.lane_copies() {
            let base = self.c32(w * self.ws);
            let has = self.b.u_greater_than(t.bool, None, threads, base)?;
            vals.push(self.b.select(t.u32, None, has, ec, endc)?);
        }
        if self.lane_copies() == 1 {
            return self.store(self.lm().copy0, vals[0]);
        }
        self.lane_set_copies(copy, &vals)
    }

    /// The vector shape of the label copies and a pointer to group `g` of the private array `copy`.
    pub(crate) fn copy_group(&mut self, copy: Word, g: u32) -> R<(Lanes, Word)> {
        let (width, _) = copy_layout(self.lm().waves);
        let t = self.t;
        let u = self.b.type_vector(t.u32, width);
        let b = self.b.type_vector(t.bool, width);
        let pt = self.b.type_pointer(None, spirv::StorageClass::Function, u);
        let k = self.c32(g);
        let p = self.b.access_chain(pt, None, copy, [k])?;
        Ok((Lanes { n: width, u, b }, p))
    }

    /// `l in [lo, hi)` component-wise for label values of the shape `s`: `l == lo` for one number,
    /// else `l − lo < hi − lo` (unsigned).
    pub(crate) fn lanes_in(&mut self, s: Lanes, l: Word, lo: u32, hi: u32) -> R<Word> {
        let loc = self.lanes_const(s, lo);
        if hi - lo == 1 {
            return Ok(self.b.i_equal(s.b, None, l, loc)?);
        }
        let len = self.lanes_const(s, hi - lo);
        let d = self.b.i_sub(s.u, None, l, loc)?;
        Ok(self.b.u_less_than(s.b, None, d, len)?)
    }

    /// `v` in every component of the shape `l` (a constant).
    pub(crate) fn lanes_const(&mut self, l: Lanes, v: u32) -> Word {
        let c = self.c32(v);
        if l.n == 1 {
            return c;
        }
        if let Some(&id) = self.consts.get(&(l.u, v as u64)) {
            return id;
        }
        let id = self.b.constant_composite(l.u, (0..l.n).map(|_| c));
        self.consts.insert((l.u, v as u64), id);
        id
    }

    /// The u32 value `x` in every component of the shape `l`.
    pub(crate) fn lanes_splat(&mut self, l: Lanes, x: Word) -> R<Word> {
        if l.n == 1 {
            return Ok(x);
        }
        Ok(self.b.composite_construct(l.u, None, (0..l.n).map(|_| x))?)
    }

    /// Every wave's label copy in the private array `copy` becomes `vals[w]` (one u32 per wave of the
    /// workgroup; the components past the last wave END).
    pub(crate) fn lane_set_copies(&mut self, copy: Word, vals: &[Word]) -> R<()> {
        let (_, groups) = copy_layout(self.lm().waves);
        for g in 0..groups {
            let (_, p, v) = self.copy_group_of(copy, g, vals)?;
            self.store(p, v)?;
        }
        Ok(())
    }

    /// Group `g` of the label copies (its shape and pointer) and the vector of its waves' values in
    /// `vals` (one u32 per wave; END past the last wave).
    fn copy_group_of(&mut self, copy: Word, g: u32, vals: &[Word]) -> R<(Lanes, Word, Word)> {
        let (width, _) = copy_layout(self.lm().waves);
        let endc = self.c32(super::super::structured::END);
        let (l, p) = self.copy_group(copy, g)?;
        let parts: Vec<Word> = (g * width..(g + 1) * width)
            .map(|w| vals.get(w as usize).copied().unwrap_or(endc))
            .collect();
        let v = self.b.composite_construct(l.u, None, parts)?;
        Ok((l, p, v))
    }

    /// Whether `f` holds for some (`any`) or every label copy the invocation keeps ([`Self::lane_copies`]):
    /// `f` maps copies of the shape it is given to bools of that shape.
    pub(crate) fn lane_test_copies(
        &mut self,
        copy: Word,
        any: bool,
        mut f: impl FnMut(&mut Self, Word, Lanes) -> R<Word>,
    ) -> R<Word> {
        let t = self.t;
        if self.lane_copies() == 1 {
            let l = self.load_u32(self.lm().copy0)?;
            return f(self, l, Lanes::scalar(&t));
        }
        // The groups' bool vectors combined component-wise, then one `OpAny`/`OpAll` (D237):
        // any(a) || any(b) is any(a || b), all(a) && all(b) is all(a && b).
        let (_, groups) = copy_layout(self.lm().waves);
        let mut acc = None;
        for g in 0..groups {
            let (l, p) = self.copy_group(copy, g)?;
            let v = self.b.load(l.u, None, p, None, [])?;
            let bv = f(self, v, l)?;
            acc = Some(match acc {
                None => bv,
                Some(a) if any => self.b.logical_or(l.b, None, a, bv)?,
                Some(a) => self.b.logical_and(l.b, None, a, bv)?,
            });
        }
        let Some(bv) = acc else {
            return Ok(if any { self.cfalse() } else { self.ctrue() });
        };
        Ok(if any {
            self.b.any(t.bool, None, bv)?
        } else {
            self.b.all(t.bool, None, bv)?
        })
    }

    /// Several waves, at a pass's start: the paused waves' copies become their resume numbers (with
    /// [`Self::lane_static_resume`]), else a publication of every wave's label.
    pub(crate) fn lane_pass_start(&mut self) -> R<()> {
        let Some((_, _, _, copy)) = self.lm.as_ref().and_then(|m| m.labels) else {
            return Ok(());
        };
        if !self.lane_plan().static_resume {
            return self.lane_publish();
        }
        self.lane_untag(copy)
    }

    /// The paused waves' label copies (`PAUSED + n`) in the private array `copy` become `n`.
    pub(crate) fn lane_untag(&mut self, copy: Word) -> R<()> {
        self.lane_update_copies(copy, |cx, l, s| {
            // PAUSED + n for n < PAUSED - 2 (END and PAUSE themselves are never tagged values).
            let tag = cx.lanes_const(s, PAUSED);
            let low = cx.lanes_const(s, PAUSED - 1);
            let end_lo = cx.lanes_const(s, super::super::structured::PAUSE);
            let above = cx.b.u_greater_than(s.b, None, l, low)?;
            let below = cx.b.u_less_than(s.b, None, l, end_lo)?;
            let paused = cx.b.logical_and(s.b, None, above, below)?;
            let n = cx.b.i_sub(s.u, None, l, tag)?;
            Ok(cx.b.select(s.u, None, paused, n, l)?)
        })
    }

    /// Every label copy the invocation keeps ([`Self::lane_copies`]) in the private array `copy` becomes
    /// `f(copy)`: `f` maps copies of the shape it is given (a vector of them, or wave 0's alone when the
    /// copies are collapsed) to values of that shape, component by component.
    pub(crate) fn lane_update_copies(
        &mut self,
        copy: Word,
        mut f: impl FnMut(&mut Self, Word, Lanes) -> R<Word>,
    ) -> R<()> {
        let t = self.t;
        if self.lane_copies() == 1 {
            let p = self.lm().copy0;
            let l = self.load_u32(p)?;
            let x = f(self, l, Lanes::scalar(&t))?;
            return self.store(p, x);
        }
        let (_, groups) = copy_layout(self.lm().waves);
        for g in 0..groups {
            let (l, p) = self.copy_group(copy, g)?;
            let v = self.b.load(l.u, None, p, None, [])?;
            let x = f(self, v, l)?;
            self.store(p, x)?;
        }
        Ok(())
    }

    /// The end of a pass in the lane mapping (D121): one barrier (the `s_barrier` the waves met, and the
    /// order of everything before it), then `all_done` = every wave has ended. With several waves that is
    /// every wave's label copy being END: a wave's label becomes END exactly when its `done` is set
    /// (`s_endpgm`), the copies follow every label change (publication after a conditional branch, local
    /// update after a jump, the end or a barrier, D108), and a wave that has ended keeps END. With one
    /// wave it is the wave's `done`, which every invocation holds (scalar state).
    pub(crate) fn lane_round(&mut self, done: Word, all_done: Word) -> R<()> {
        self.lane_barrier()?;
        let Some((_, _, _, copy)) = self.lm.as_ref().and_then(|m| m.labels) else {
            return self.store(all_done, done);
        };
        let all = self.lane_test_copies(copy, false, |cx, l, s| {
            let endc = cx.lanes_const(s, super::super::structured::END);
            Ok(cx.b.i_equal(s.b, None, l, endc)?)
        })?;
        self.store(all_done, all)
    }

    /// Whether block `bi`'s EXEC branch takes the labels from the ballot words (D136), given its mask
    /// plan `bp` (the lane plan's L23 entry; the caller excludes lane-local loops and one wave): an
    /// `s_cbranch_execz/execnz` that is neither a lane-local exit nor a vote-free skip, whose last
    /// instruction materialises EXEC (an exchange of its own bits), reads it in the compare and writes no
    /// EXEC word after it.
    ///
    /// The same for `s_cbranch_vccz/vccnz` whose VCC is materialised at the branch (decision D234):
    /// returns the unit whose ballot words decide (`EXEC_LO` or `VCC_LO`), or None.
    pub(crate) fn lane_exec_labels_of(
        &self,
        bi: usize,
        bp: &super::masks::BlockPlan,
    ) -> Option<u32> {
        let (reg, _, _) = self.mask_branch(bi)?;
        if self.lane_exit(bi) || self.lane_fallthrough(bi).is_some() {
            return None;
        }
        let blk = &self.p.blocks[Handle::from_index(bi)];
        let (Some(last), Terminator::Branch { cond, .. }) = (blk.insts.last(), blk.terminator)
        else {
            return None;
        };
        let Node::IntCmp { a, .. } = self.p.nodes[cond] else {
            return None;
        };
        let unit = 1u128 << reg;
        let exchanged = bp
            .pre
            .get(&(last.nodes.start as usize))
            .is_some_and(|&u| u & unit != 0);
        let writes_mask = last.nodes.clone().any(|i| {
            matches!(self.p.nodes[Handle::from_index(i as usize)],
                Node::WriteSgpr { reg: w, .. } if (reg - 1..=reg + 1).contains(&w))
        });
        (exchanged && last.nodes.contains(&(a.index() as u32)) && !writes_mask)
            .then_some(reg as u32)
    }

    /// Several waves, after block `bi` whose `s_cbranch_execz/execnz` read EXEC (or `s_cbranch_vccz/vccnz`
    /// read VCC, D234) materialised at the branch's own instruction (D136): every wave's label copy that is
    /// `n` (the number of the first block of `bi`'s chain, D137) becomes `stay` when that wave's mask (its
    /// ballot words in the exchange) is non-zero, else `leave`, with no publication. False (nothing
    /// emitted) when the plan did not choose it; the caller then publishes.
    pub(crate) fn lane_exec_labels(&mut self, bi: usize, n: u32, number: &[u32]) -> R<bool> {
        let Some((_, _, _, copy)) = self.lm.as_ref().and_then(|m| m.labels) else {
            return Ok(false);
        };
        let m = self.lm.as_ref().expect("lane mapping");
        // The plan's decision (D177, [`Self::lane_exec_labels_of`]).
        let Some(unit) = self.lane_plan().exec_labels[bi].filter(|_| !m.local) else {
            return Ok(false);
        };
        let Some((_, stay, leave)) = self
            .mask_branch(bi)
            .filter(|&(reg, _, _)| reg as u32 == unit)
        else {
            return Err(LowerError::Build(
                "L23 planned for a block without its EXEC/VCC branch".into(),
            ));
        };
        let (stay, leave) = (number[stay], number[leave]);
        let blk = &self.p.blocks[Handle::from_index(bi)];
        let (Some(last), Terminator::Branch { cond, .. }) = (blk.insts.last(), blk.terminator)
        else {
            return Err(LowerError::Build(
                "L23 planned for a block without an EXEC branch".into(),
            ));
        };
        let Node::IntCmp { a, .. } = self.p.nodes[cond] else {
            return Err(LowerError::Build(
                "L23 planned for a block without an EXEC branch".into(),
            ));
        };
        // The exchange the plan put in the branch's own instruction.
        let Some(&(_, _, base0)) = m
            .masks
            .branch_words
            .iter()
            .find(|&&(u, start, _)| u == unit && start == last.nodes.start as usize)
        else {
            return Err(LowerError::Build(
                "L23 planned but EXEC/VCC was not exchanged at the branch".into(),
            ));
        };
        let words = if self.ty(a.index()) == Ty::B64 {
            self.ws / 32
        } else {
            1
        };
        let (waves, wpw) = (m.waves, self.ws / 32);
        let t = self.t;
        let z = self.c32(0);
        // Every wave's words first, as vectors (L39).
        let all = self.lane_ballot_all_waves(base0)?;
        // Each copy equal to `n` becomes its wave's target (the components past the last wave are END);
        // with the copies collapsed, wave 0's alone (the only one read).
        if self.lane_copies() == 1 {
            let (sc, lc) = (self.c32(stay), self.c32(leave));
            let mut any = self.cfalse();
            for k in 0..words {
                let nz = self.b.i_not_equal(t.bool, None, all[k as usize], z)?;
                any = self.b.logical_or(t.bool, None, any, nz)?;
            }
            let to = self.b.select(t.u32, None, any, sc, lc)?;
            self.lane_update_copies(copy, |cx, l, s| {
                let nc = cx.lanes_const(s, n);
                let was = cx.b.i_equal(s.b, None, l, nc)?;
                Ok(cx.b.select(s.u, None, was, to, l)?)
            })?;
            return Ok(true);
        }
        // D237: one group of copies at a time, in integer arithmetic: the group's waves' words (their OR
        // when a wave has two; 0 past the last wave, whose copies are END, never `n`), `umin(bits, 1)` is
        // each wave's "any lane", and its target is `leave + (stay − leave) × that` (mod 2^32). The same
        // update as a vector `!= 0` and an `OpSelect` between two constant vectors failed lane fuzz
        // programs on lavapipe once (D234's options) and not since (D237): no bool vector is selected
        // here. Wave by wave it was 16 words a wave.
        let (width, groups) = copy_layout(waves);
        for g in 0..groups {
            let (l, p) = self.copy_group(copy, g)?;
            let mut bits = None;
            for k in 0..words {
                let parts: Vec<Word> = (g * width..(g + 1) * width)
                    .map(|w| {
                        if w < waves {
                            all[(w * wpw + k) as usize]
                        } else {
                            z
                        }
                    })
                    .collect();
                let v = self.b.composite_construct(l.u, None, parts)?;
                bits = Some(match bits {
                    None => v,
                    Some(b) => self.b.bitwise_or(l.u, None, b, v)?,
                });
            }
            let bits = bits.expect("a mask has a word");
            let onev = self.lanes_const(l, 1);
            let any = self.glsl_op(l.u, spirv::GlslStd450Op::UMin, &[bits, onev])?;
            let dv = self.lanes_const(l, stay.wrapping_sub(leave));
            let lv = self.lanes_const(l, leave);
            let step = self.b.i_mul(l.u, None, any, dv)?;
            let to = self.b.i_add(l.u, None, lv, step)?;
            let v = self.b.load(l.u, None, p, None, [])?;
            let nc = self.lanes_const(l, n);
            let was = self.b.i_equal(l.b, None, v, nc)?;
            let x = self.b.select(l.u, None, was, to, v)?;
            self.store(p, x)?;
        }
        Ok(true)
    }
}
