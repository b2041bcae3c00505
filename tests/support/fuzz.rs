//! A generator of random, well-defined gfx1030 programs and the runner of tests/lane_fuzz.rs (decision
//! D148): for each seed and workgroup shape, a program in the raw-code manifest form of fixtures/lane
//! (`code = "p.bin"`, `[abi]`), assembled with llvm-mc-19 / llvm-objcopy-19, run with
//! `rdna2spv run --backend both` (host evaluator vs lavapipe, bit for bit) in the lane and the wave mapping,
//! and the two mappings' output words compared.
//!
//! Well-defined on the hardware (the contract every generated program keeps; a program that breaks it is
//! a generator bug, not a finding):
//! - every register and LDS word is written before it is read: v1..v8 and s4..s11 are initialised at the
//!   top for every work-item, each work-item initialises its own LDS slots, lane 0 of the workgroup the
//!   shared counters (then all waves meet);
//! - no other work-item's LDS slot is read across waves except in the exchange (write, `s_barrier`, read,
//!   `s_barrier`), at top level in workgroup-uniform flow, before any wave's early exit; a lane reads
//!   another lane's own slot only in its own wave (lock step), and never a lane past the workgroup's items;
//! - shared counters take only commutative atomics without return (add, max, or: the result is
//!   order-independent) and are read once, after the last `s_barrier`; returning atomics touch only the
//!   lane's own slots;
//! - `s_barrier` only in workgroup-uniform flow (top level, or a uniform loop whose trip count derives from
//!   workgroup-uniform SGPRs), never under a divergent EXEC;
//! - cross-lane reads only of lanes that hold defined values: `v_readlane` of a lane below the wave's
//!   item count, `v_readfirstlane` only under a non-empty EXEC (behind `s_cbranch_execz`; ACO-style
//!   bodies without it, where EXEC may be 0, use v_readlane only), DPP / ds_swizzle only at top level in shapes without partial waves,
//!   ds_bpermute only at top level from a lane of the same 32-lane half below the wave's item count (and in
//!   the warp-sort step under an EXEC that both lanes of every pair share, so it reads active lanes only,
//!   or under the lane's own bit of a value, so it also reads lanes outside EXEC: 0);
//! - loops are bounded (uniform: SGPR counter 1..4; divergent: per-lane counter 1..4 left lane by lane);
//! - an early `s_endpgm` is wave-uniform (the wave's index in its workgroup), at top level, after storing.
//!
//! Every program ends by storing v1..v8, s4..s11 (through v_mov) and the counters to
//! `out[global work-item * K + j]` with every work-item's EXEC bit on.

#![allow(dead_code)] // each test binary that includes this file uses part of it

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A dispatch: wave size, work-items per workgroup (x) and in the grid (x).
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub name: &'static str,
    pub wave: u32,
    pub wg: u32,
    pub grid: u32,
}

impl Shape {
    /// Every wave of every workgroup full (no partial wave, no empty wave).
    fn full_waves(&self) -> bool {
        self.wg.is_multiple_of(self.wave) && self.grid.is_multiple_of(self.wg)
    }
}

/// The shapes every seed runs in: one wave, 2-4 waves, 9 waves and a grid whose last workgroup is partial
/// (a partial wave and an empty wave), in wave32 and wave64.
pub fn shapes() -> Vec<Shape> {
    let mut v = Vec::new();
    for wave in [32, 64] {
        v.push(Shape {
            name: if wave == 32 { "w32_1wave" } else { "w64_1wave" },
            wave,
            wg: wave,
            grid: 3 * wave,
        });
        v.push(Shape {
            name: if wave == 32 {
                "w32_3waves"
            } else {
                "w64_2waves"
            },
            wave,
            wg: if wave == 32 { 3 * wave } else { 2 * wave },
            grid: if wave == 32 { 6 * wave } else { 4 * wave },
        });
        v.push(Shape {
            name: if wave == 32 {
                "w32_9waves"
            } else {
                "w64_9waves"
            },
            wave,
            wg: 9 * wave,
            grid: 9 * wave,
        });
        v.push(Shape {
            name: if wave == 32 {
                "w32_partial"
            } else {
                "w64_partial"
            },
            wave,
            wg: 3 * wave,
            grid: 3 * wave + wave + wave / 2 - 3,
        });
    }
    v
}

/// Data VGPRs v1..=v8, data SGPRs s4..=s11.
const NV: u32 = 8;
const NS: u32 = 8;
/// Words per work-item in LDS (own slots) and LDS byte offsets of the exchange and the counters.
const SLOT_WORDS: u32 = 2;
/// Shared counters: 4 words (add, max, or, add) then one 64-bit add.
const COUNTERS: u32 = 4;
/// Output words per work-item: data VGPRs, data SGPRs, the 32-bit counters, the 64-bit counter.
pub const K: u32 = NV + NS + COUNTERS + 2;

/// A generated program: its assembly, its manifest, statistics.
pub struct Program {
    pub asm: String,
    pub manifest: String,
    pub instructions: usize,
}

struct Gen<R: FnMut() -> u32> {
    r: R,
    sh: Shape,
    out: Vec<String>,
    label: u32,
    /// Nesting of divergent constructs (if, loop).
    div: u32,
    ifs: u32,
    dloops: u32,
    uloops: u32,
    /// Control flow is workgroup-uniform (no divergent EXEC, every enclosing branch/loop uniform in the
    /// workgroup).
    wg_flow: bool,
    /// A wave may have exited: no more exchanges.
    exited: bool,
    /// SGPR s4+i holds a workgroup-uniform value.
    wg_uni: [bool; NS as usize],
    budget: i32,
    lds_x: u32,
    lds_c: u32,
    /// The program uses LDS (own slots, same-wave reads).
    lds: bool,
    /// Straight-line program: no branch at all (EXEC written without s_cbranch_execz, no loop, no SCC
    /// or VCC branch, no early exit), so that the converged one-pass lane rules (D143, D144) apply.
    straight: bool,
    /// EXEC may be 0 here (a divergent body without `s_cbranch_execz`): no v_readfirstlane.
    maybe_empty: bool,
    /// The program's waves share LDS: counters, exchanges, `s_barrier`.
    shared: bool,
    /// Code placed after the final `s_endpgm`: the out-of-line bodies of [`Gen::tail_ifs`].
    ool: Vec<String>,
}

fn w64(sh: &Shape) -> bool {
    sh.wave == 64
}

impl<R: FnMut() -> u32> Gen<R> {
    fn below(&mut self, n: u32) -> u32 {
        (self.r)() % n
    }
    fn chance(&mut self, pct: u32) -> bool {
        self.below(100) < pct
    }
    fn emit(&mut self, s: impl Into<String>) {
        self.out.push(format!("  {}", s.into()));
        self.budget -= 1;
    }
    fn lab(&mut self) -> String {
        self.label += 1;
        format!(".L{}", self.label)
    }
    fn place(&mut self, l: &str) {
        self.out.push(format!("{l}:"));
    }
    fn exec(&self) -> &'static str {
        if w64(&self.sh) {
            "exec"
        } else {
            "exec_lo"
        }
    }
    fn vcc(&self) -> &'static str {
        if w64(&self.sh) {
            "vcc"
        } else {
            "vcc_lo"
        }
    }
    fn bw(&self) -> &'static str {
        if w64(&self.sh) {
            "b64"
        } else {
            "b32"
        }
    }
    /// A lane-mask SGPR (a pair in wave64) at `base`.
    fn mask(&self, base: u32) -> String {
        if w64(&self.sh) {
            format!("s[{}:{}]", base, base + 1)
        } else {
            format!("s{base}")
        }
    }
    fn dv(&mut self) -> String {
        format!("v{}", 1 + self.below(NV))
    }
    fn ds(&mut self) -> u32 {
        4 + self.below(NS)
    }
    /// A VGPR source: a data VGPR or v0.
    fn vsrc(&mut self) -> String {
        if self.chance(12) {
            "v0".into()
        } else {
            self.dv()
        }
    }
    /// A scalar source: a data SGPR, an inline constant or a literal.
    fn ssrc(&mut self) -> String {
        match self.below(4) {
            0 | 1 => format!("s{}", self.ds()),
            2 => format!("{}", self.below(81) as i32 - 16),
            _ => format!("0x{:x}", (self.r)()),
        }
    }
    /// A VALU source operand that is not the VOP2 src1: VGPR or scalar.
    fn any_src(&mut self) -> String {
        if self.chance(60) {
            self.vsrc()
        } else {
            self.ssrc()
        }
    }

    fn valu(&mut self) {
        let d = self.dv();
        match self.below(6) {
            0..=2 => {
                const OPS: [&str; 17] = [
                    "v_add_nc_u32",
                    "v_sub_nc_u32",
                    "v_subrev_nc_u32",
                    "v_xor_b32",
                    "v_and_b32",
                    "v_or_b32",
                    "v_xnor_b32",
                    "v_lshlrev_b32",
                    "v_lshrrev_b32",
                    "v_ashrrev_i32",
                    "v_min_u32",
                    "v_max_u32",
                    "v_min_i32",
                    "v_max_i32",
                    "v_mul_u32_u24",
                    "v_mul_hi_u32_u24",
                    "v_mul_i32_i24",
                ];
                let op = OPS[self.below(OPS.len() as u32) as usize];
                let a = self.any_src();
                let b = self.vsrc();
                self.emit(format!("{op} {d}, {a}, {b}"));
            }
            3 => {
                const OPS: [&str; 4] = [
                    "v_mul_lo_u32",
                    "v_mul_hi_u32",
                    "v_bfm_b32",
                    "v_bcnt_u32_b32",
                ];
                let op = OPS[self.below(OPS.len() as u32) as usize];
                let a = self.vsrc();
                let b = self.any_src();
                self.emit(format!("{op} {d}, {a}, {b}"));
            }
            4 => {
                const OPS: [&str; 10] = [
                    "v_bfe_u32",
                    "v_alignbit_b32",
                    "v_lshl_add_u32",
                    "v_xad_u32",
                    "v_add3_u32",
                    "v_mad_u32_u24",
                    "v_and_or_b32",
                    "v_or3_b32",
                    "v_med3_u32",
                    "v_max3_i32",
                ];
                let op = OPS[self.below(OPS.len() as u32) as usize];
                let a = self.vsrc();
                let b = self.any_src();
                let c = self.vsrc();
                self.emit(format!("{op} {d}, {a}, {b}, {c}"));
            }
            _ => {
                const OPS: [&str; 6] = [
                    "v_not_b32",
                    "v_bfrev_b32",
                    "v_ffbh_u32",
                    "v_ffbl_b32",
                    "v_mov_b32",
                    "v_cvt_f32_u32",
                ];
                let op = OPS[self.below(OPS.len() as u32) as usize];
                let a = self.any_src();
                self.emit(format!("{op} {d}, {a}"));
            }
        }
    }

    /// A 64-bit add with carry through VCC (v_add_co_u32 / v_add_co_ci_u32); one time in four a 64-bit
    /// shift by an inline constant instead, one in five a borrow or a product.
    fn carry(&mut self) {
        if self.chance(25) {
            return self.shift64();
        }
        if self.chance(27) {
            return self.borrow_or_product();
        }
        let (d1, d2) = (self.dv(), self.dv());
        let (a, b, c, e) = (self.any_src(), self.vsrc(), self.vsrc(), self.vsrc());
        let vcc = self.vcc();
        self.emit(format!("v_add_co_u32 {d1}, {vcc}, {a}, {b}"));
        self.emit(format!("v_add_co_ci_u32_e32 {d2}, {vcc}, {c}, {e}, {vcc}"));
    }

    /// A 64-bit subtract with borrow through VCC (v_sub_co_u32 / v_sub_co_ci_u32, or the reversed
    /// forms), an unsigned high product (v_mul_hi_u32) or a 32 × 32 → 64 multiply-add (v_mad_u64_u32 with
    /// a zero or a VGPR-pair addend): the words the lane mapping takes from `OpISubBorrow` and
    /// `OpUMulExtended` (D255).
    fn borrow_or_product(&mut self) {
        let vcc = self.vcc();
        match self.below(4) {
            0 | 1 => {
                let (lo, hi) = if self.chance(50) {
                    ("v_subrev_co_u32", "v_subrev_co_ci_u32_e32")
                } else {
                    ("v_sub_co_u32", "v_sub_co_ci_u32_e32")
                };
                let (d1, d2) = (self.dv(), self.dv());
                let (a, b, c, e) = (self.any_src(), self.vsrc(), self.vsrc(), self.vsrc());
                self.emit(format!("{lo} {d1}, {vcc}, {a}, {b}"));
                self.emit(format!("{hi} {d2}, {vcc}, {c}, {e}, {vcc}"));
            }
            2 => {
                let (d, a, b) = (self.dv(), self.any_src(), self.vsrc());
                self.emit(format!("v_mul_hi_u32 {d}, {a}, {b}"));
            }
            _ => {
                let d = 1 + self.below(NV - 1);
                let (a, b) = (self.any_src(), self.vsrc());
                let c = if self.chance(50) {
                    "0".to_string()
                } else {
                    let x = 1 + self.below(NV - 1);
                    format!("v[{x}:{}]", x + 1)
                };
                self.emit(format!(
                    "v_mad_u64_u32 v[{d}:{}], null, {a}, {b}, {c}",
                    d + 1
                ));
            }
        }
    }

    /// A 64-bit shift of a VGPR or SGPR pair by an inline constant 0..=64 (D229 lifts it on the halves;
    /// the pairs may overlap).
    fn shift64(&mut self) {
        const OPS: [&str; 3] = ["v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64"];
        let op = OPS[self.below(OPS.len() as u32) as usize];
        let d = 1 + self.below(NV - 1);
        let k = self.below(65);
        let src = if self.chance(25) {
            let s = 4 + 2 * self.below(NS / 2);
            format!("s[{s}:{}]", s + 1)
        } else {
            let a = self.below(NV);
            format!("v[{a}:{}]", a + 1)
        };
        self.emit(format!("{op} v[{d}:{}], {k}, {src}", d + 1));
    }

    fn vcmp_op(&mut self) -> &'static str {
        const OPS: [&str; 8] = [
            "v_cmp_gt_u32",
            "v_cmp_lt_u32",
            "v_cmp_eq_u32",
            "v_cmp_ne_u32",
            "v_cmp_gt_i32",
            "v_cmp_le_i32",
            "v_cmp_ge_u32",
            "v_cmp_lt_i32",
        ];
        OPS[self.below(OPS.len() as u32) as usize]
    }

    /// A VOPC to VCC or an SGPR mask, then v_cndmask on it.
    fn cndmask(&mut self) {
        let op = self.vcmp_op();
        let (a, b) = (self.any_src(), self.vsrc());
        let d = self.dv();
        let (x, y) = (self.vsrc(), self.vsrc());
        if self.chance(50) {
            let vcc = self.vcc();
            self.emit(format!("{op}_e32 {vcc}, {a}, {b}"));
            self.emit(format!("v_cndmask_b32_e32 {d}, {x}, {y}, {vcc}"));
        } else {
            let m = self.mask(14);
            self.emit(format!("{op}_e64 {m}, {a}, {b}"));
            self.emit(format!("v_cndmask_b32_e64 {d}, {x}, {y}, {m}"));
        }
    }

    fn set_sgpr(&mut self, d: u32, wg_uniform: bool) {
        // A write under flow that is not workgroup-uniform leaves a value that differs between waves.
        self.wg_uni[(d - 4) as usize] = wg_uniform && self.wg_flow;
    }
    fn sgpr_uni(&self, s: &str) -> bool {
        match s.strip_prefix('s').and_then(|n| n.parse::<u32>().ok()) {
            Some(n) if (4..4 + NS).contains(&n) => self.wg_uni[(n - 4) as usize],
            _ => true,
        }
    }

    fn salu(&mut self) {
        const OPS: [&str; 12] = [
            "s_add_u32",
            "s_sub_u32",
            "s_mul_i32",
            "s_xor_b32",
            "s_and_b32",
            "s_or_b32",
            "s_lshl_b32",
            "s_lshr_b32",
            "s_min_u32",
            "s_max_i32",
            "s_andn2_b32",
            "s_xnor_b32",
        ];
        let d = self.ds();
        if self.chance(20) {
            const UN: [&str; 4] = [
                "s_not_b32",
                "s_brev_b32",
                "s_bcnt1_i32_b32",
                "s_ff1_i32_b32",
            ];
            let op = UN[self.below(4) as usize];
            let a = self.ssrc();
            let u = self.sgpr_uni(&a);
            self.emit(format!("{op} s{d}, {a}"));
            self.set_sgpr(d, u);
            return;
        }
        let op = OPS[self.below(OPS.len() as u32) as usize];
        let a = format!("s{}", self.ds());
        let b = self.ssrc();
        let u = self.sgpr_uni(&a) && self.sgpr_uni(&b);
        self.emit(format!("{op} s{d}, {a}, {b}"));
        self.set_sgpr(d, u);
    }

    fn scmp(&mut self) -> (String, String, &'static str) {
        const OPS: [&str; 6] = [
            "s_cmp_eq_u32",
            "s_cmp_lg_u32",
            "s_cmp_gt_u32",
            "s_cmp_lt_i32",
            "s_cmp_ge_i32",
            "s_cmp_le_u32",
        ];
        let op = OPS[self.below(OPS.len() as u32) as usize];
        let a = format!("s{}", self.ds());
        let b = if self.chance(50) {
            format!("s{}", self.ds())
        } else {
            format!("{}", self.below(64))
        };
        (a, b, op)
    }

    fn cselect(&mut self) {
        let (a, b, op) = self.scmp();
        let d = self.ds();
        let (x, y) = (self.ssrc(), format!("s{}", self.ds()));
        let u = [&a, &b, &x, &y].iter().all(|s| self.sgpr_uni(s));
        self.emit(format!("{op} {a}, {b}"));
        self.emit(format!("s_cselect_b32 s{d}, {x}, {y}"));
        self.set_sgpr(d, u);
    }

    /// v_readlane of a lane below the wave's item count (s13), or v_readfirstlane.
    fn readlane(&mut self) {
        let d = self.ds();
        let v = self.vsrc();
        if !self.maybe_empty && self.chance(50) {
            self.emit(format!("v_readfirstlane_b32 s{d}, {v}"));
        } else {
            let k = self.below(64);
            let s = self.ds();
            self.emit(format!("s_add_u32 s16, s{s}, {k}"));
            self.emit(format!("s_and_b32 s16, s16, {}", self.sh.wave - 1));
            self.emit("s_sub_u32 s17, s13, 1");
            self.emit("s_min_u32 s16, s16, s17");
            self.emit(format!("v_readlane_b32 s{d}, {v}, s16"));
        }
        self.set_sgpr(d, false);
    }

    /// A ballot read whole: VOPC to a mask, then s_bcnt1 / s_ff1 of it, or an s_cbranch_vccz/vccnz.
    fn ballot(&mut self) {
        let op = self.vcmp_op();
        let (a, b) = (self.any_src(), self.vsrc());
        let vcc = self.vcc();
        let bw = self.bw();
        self.emit(format!("{op}_e32 {vcc}, {a}, {b}"));
        if !self.straight && self.chance(30) && self.budget > 4 {
            let l = self.lab();
            let br = if self.chance(50) { "vccz" } else { "vccnz" };
            self.emit(format!("s_cbranch_{br} {l}"));
            let n = 1 + self.below(3);
            for _ in 0..n {
                self.valu();
            }
            self.place(&l);
        } else {
            let d = self.ds();
            let op = if self.chance(50) {
                "s_bcnt1_i32"
            } else {
                "s_ff1_i32"
            };
            self.emit(format!("{op}_{bw} s{d}, {vcc}"));
            self.set_sgpr(d, false);
        }
    }

    /// A mask read whole by a VALU operation as a 32-bit scalar operand (D157): a VOPC to VCC or to an
    /// SGPR mask (wave64: a pair, read half by half), sometimes combined by SALU with EXEC or VCC first,
    /// then v_and / v_or / v_xor / v_and_or / v_bcnt / v_mbcnt of it; `v_and_b32 v, vcc_lo, v` +
    /// `v_bcnt_u32_b32` is the ballot-rank idiom of stream compaction (rocSPARSE csr2csr_compress,
    /// rocPRIM partition).
    fn mask_valu(&mut self) {
        if self.chance(35) {
            return self.match_any();
        }
        let op = self.vcmp_op();
        let (a, b) = (self.any_src(), self.vsrc());
        let (vcc, exec, bw) = (self.vcc(), self.exec(), self.bw());
        let wide = w64(&self.sh);
        let (lo, hi) = match self.below(3) {
            0 => {
                self.emit(format!("{op}_e32 {vcc}, {a}, {b}"));
                ("vcc_lo", "vcc_hi")
            }
            k => {
                let m = self.mask(14);
                self.emit(format!("{op}_e64 {m}, {a}, {b}"));
                if k == 2 {
                    const OPS: [&str; 4] = ["s_and", "s_or", "s_xor", "s_andn2"];
                    let sop = OPS[self.below(4) as usize];
                    let other = if self.chance(50) { exec } else { vcc };
                    self.emit(format!("{sop}_{bw} {m}, {m}, {other}"));
                }
                ("s14", "s15")
            }
        };
        let src = if wide && self.chance(50) { hi } else { lo };
        let d = self.dv();
        let x = self.vsrc();
        match self.below(6) {
            0 => {
                self.emit(format!("v_and_b32 {d}, {src}, {x}"));
                if self.chance(50) {
                    self.emit(format!("v_bcnt_u32_b32 {d}, {d}, 0"));
                }
            }
            1 => self.emit(format!("v_or_b32 {d}, {src}, {x}")),
            2 => self.emit(format!("v_xor_b32 {d}, {src}, {x}")),
            3 => {
                let y = self.vsrc();
                self.emit(format!("v_and_or_b32 {d}, {src}, {x}, {y}"));
            }
            4 => self.emit(format!("v_bcnt_u32_b32 {d}, {src}, {x}")),
            _ => {
                self.emit(format!("v_mbcnt_lo_u32_b32 {d}, {lo}, {x}"));
                if wide {
                    self.emit(format!("v_mbcnt_hi_u32_b32 {d}, {hi}, {d}"));
                }
            }
        }
    }

    /// rocPRIM's match-any idiom (one VOPC per key bit, each mask read whole by a VALU op, the reads after
    /// several VOPCs): two or three VOPCs to VCC, s14 and s16 (pairs in wave64), then each mask read by
    /// v_xor / v_and in turn; sometimes a later mask is written again between two reads (L38: masks
    /// computed before the first read are made whole on its exchange, unless written again before
    /// their own read; L50: one written again by a VOPC is formed on that exchange too), half of those
    /// times comparing a VGPR written just before.
    fn match_any(&mut self) {
        let n = 2 + self.below(2) as usize;
        let wide = w64(&self.sh);
        let vcc = self.vcc();
        let regs: Vec<(String, &'static str, &'static str)> = vec![
            (vcc.to_string(), "vcc_lo", "vcc_hi"),
            (self.mask(14), "s14", "s15"),
            (self.mask(16), "s16", "s17"),
        ];
        let vopc = |g: &mut Self, i: usize, b: Option<String>| {
            let op = g.vcmp_op();
            let a = g.any_src();
            let b = b.unwrap_or_else(|| g.vsrc());
            if i == 0 {
                g.emit(format!("{op}_e32 {}, {a}, {b}", regs[0].0));
            } else {
                g.emit(format!("{op}_e64 {}, {a}, {b}", regs[i].0));
            }
        };
        for i in 0..n {
            vopc(self, i, None);
        }
        for (i, &(_, lo, hi)) in regs.iter().enumerate().take(n) {
            if i + 1 < n && self.chance(25) {
                // Half the time the VGPR it compares is written just before it (after an earlier
                // read's exchange: L50 forms the mask there from the value written).
                let b = if self.chance(50) {
                    let d = self.dv();
                    let x = self.vsrc();
                    self.emit(format!("v_add_nc_u32 {d}, 3, {x}"));
                    Some(d)
                } else {
                    None
                };
                vopc(self, i + 1, b);
            }
            let src = if wide && self.chance(50) { hi } else { lo };
            let d = self.dv();
            let x = self.vsrc();
            let op = if self.chance(50) {
                "v_xor_b32"
            } else {
                "v_and_b32"
            };
            self.emit(format!("{op} {d}, {src}, {x}"));
        }
    }

    /// v10 = the byte address of lane ^ m (m random in 1..32: the same 32-lane half), or of the lane
    /// itself past the wave's items; v9 = the lane.
    fn bpermute_addr(&mut self) {
        let m = 1 + self.below(31);
        self.emit("v_mbcnt_lo_u32_b32 v9, -1, 0");
        if w64(&self.sh) {
            self.emit("v_mbcnt_hi_u32_b32 v9, -1, v9");
        }
        self.emit(format!("v_xor_b32 v10, {m}, v9"));
        let vcc = self.vcc();
        self.emit(format!("v_cmp_gt_u32_e32 {vcc}, s13, v10"));
        self.emit(format!("v_cndmask_b32_e32 v10, v9, v10, {vcc}"));
        self.emit("v_lshlrev_b32 v10, 2, v10");
    }

    /// rocPRIM's warp-sort step (L40, D214), at top level: a `ds_bpermute_b32` pair from lane ^ m (the lane
    /// itself past the wave's items), then under `v_cmpx` and `s_cbranch_execz` a third `ds_bpermute_b32`
    /// with EXEC narrowed to the lanes whose pair differs in bit 0 of the first word (a condition both lanes
    /// of a pair share, so every lane read is active) or, in about a third, whose own first word has bit 0
    /// set (a pair may then read a lane outside EXEC: 0), `s_or` of EXEC, and the next pair on another lane
    /// distance in the block after it.
    fn sort_step(&mut self, d: String, a: String, b: String) {
        let (exec, bw) = (self.exec(), self.bw());
        let save = self.mask(20);
        self.bpermute_addr();
        let d2 = self.dv();
        self.emit(format!("ds_bpermute_b32 v9, v10, {a}"));
        self.emit(format!("ds_bpermute_b32 {d2}, v10, {b}"));
        self.emit("s_waitcnt lgkmcnt(0)");
        if self.chance(30) {
            // The lane's own bit of a: a pair's lanes may differ, so the payload's bpermute also reads
            // lanes outside EXEC (0; D278 stores 0 for them in the exchange).
            self.emit(format!("v_and_b32 v9, 1, {a}"));
        } else {
            self.emit(format!("v_xor_b32 v9, v9, {a}"));
            self.emit("v_and_b32 v9, 1, v9");
        }
        self.emit(format!("s_mov_{bw} {save}, {exec}"));
        self.emit("v_cmpx_ne_u32_e32 0, v9");
        // Straight-line programs keep no branch (EXEC may then be 0 in the body, as ACO's short bodies).
        let l = (!self.straight).then(|| self.lab());
        if let Some(l) = &l {
            self.emit(format!("s_cbranch_execz {l}"));
        }
        let c = self.vsrc();
        self.emit(format!("ds_bpermute_b32 {d}, v10, {c}"));
        self.emit("s_waitcnt lgkmcnt(0)");
        let (x, y) = (self.dv(), self.vsrc());
        self.emit(format!("v_mov_b32 {x}, {y}"));
        if let Some(l) = &l {
            self.place(l);
        }
        self.emit(format!("s_or_{bw} {exec}, {exec}, {save}"));
        self.bpermute_addr();
        let (d3, d4, e, f) = (self.dv(), self.dv(), self.vsrc(), self.vsrc());
        self.emit(format!("ds_bpermute_b32 {d3}, v10, {e}"));
        self.emit(format!("ds_bpermute_b32 {d4}, v10, {f}"));
        self.emit("s_waitcnt lgkmcnt(0)");
    }

    /// DPP / ds_swizzle / ds_bpermute at top level.
    fn crosslane(&mut self) {
        let full = self.sh.full_waves() && !self.exited;
        let d = self.dv();
        let (a, b) = (self.vsrc(), self.vsrc());
        match self.below(if full { 4 } else { 1 }) {
            0 if self.chance(40) => self.sort_step(d, a, b),
            0 => {
                self.bpermute_addr();
                self.emit(format!("ds_bpermute_b32 {d}, v10, {a}"));
                self.emit("s_waitcnt lgkmcnt(0)");
            }
            1 => {
                const CTL: [&str; 8] = [
                    "quad_perm:[1,0,3,2]",
                    "quad_perm:[3,3,0,1]",
                    "row_shr:1",
                    "row_shl:3",
                    "row_ror:5",
                    "row_mirror",
                    "row_half_mirror",
                    "row_shr:2",
                ];
                let c = CTL[self.below(8) as usize];
                let bc = if self.chance(30) { " bound_ctrl:1" } else { "" };
                const OPS: [&str; 4] = ["v_add_nc_u32", "v_xor_b32", "v_max_u32", "v_sub_nc_u32"];
                let op = OPS[self.below(4) as usize];
                self.emit(format!(
                    "{op}_dpp {d}, {a}, {b} {c} row_mask:0xf bank_mask:0xf{bc}"
                ));
            }
            2 => {
                let sel: Vec<String> = (0..8).map(|_| self.below(8).to_string()).collect();
                self.emit(format!("v_mov_b32_dpp {d}, {a} dpp8:[{}]", sel.join(",")));
            }
            _ => {
                let off = if self.chance(50) {
                    format!(
                        "swizzle(QUAD_PERM,{},{},{},{})",
                        self.below(4),
                        self.below(4),
                        self.below(4),
                        self.below(4)
                    )
                } else {
                    format!(
                        "swizzle(BITMASK_PERM,\"{}\")",
                        (0..5)
                            .map(|_| ['0', '1', 'p', 'i'][self.below(4) as usize])
                            .collect::<String>()
                    )
                };
                self.emit(format!("ds_swizzle_b32 {d}, {a} offset:{off}"));
                self.emit("s_waitcnt lgkmcnt(0)");
            }
        }
    }

    /// LDS on the lane's own slots (v15 = their byte address), or a read of a same-wave lane's slot.
    fn lds_own(&mut self) {
        let d = self.dv();
        let a = self.vsrc();
        let j = self.below(SLOT_WORDS) * 4;
        match self.below(8) {
            0 => self.emit(format!("ds_write_b32 v15, {a} offset:{j}")),
            7 => {
                // The own slots' address computed again under the current EXEC, then two stores
                // through it (rocPRIM computes its exchange addresses inside `s_and_saveexec`
                // regions; L8 claims them in that EXEC version, D218).
                let b = self.vsrc();
                let k = self.below(SLOT_WORDS) * 4;
                self.emit(format!(
                    "v_lshlrev_b32 v9, {}, v0",
                    (SLOT_WORDS * 4).trailing_zeros()
                ));
                self.emit(format!("ds_write_b32 v9, {a} offset:{j}"));
                self.emit(format!("ds_write_b32 v9, {b} offset:{k}"));
            }
            1 => {
                self.emit(format!("ds_read_b32 {d}, v15 offset:{j}"));
                self.emit("s_waitcnt lgkmcnt(0)");
            }
            2 => {
                const OPS: [&str; 4] = [
                    "ds_add_rtn_u32",
                    "ds_max_rtn_u32",
                    "ds_xor_rtn_b32",
                    "ds_min_rtn_i32",
                ];
                let op = OPS[self.below(4) as usize];
                self.emit(format!("{op} {d}, v15, {a} offset:{j}"));
                self.emit("s_waitcnt lgkmcnt(0)");
            }
            3 => {
                // 64-bit: own pair, through v[12:13] / v[10:11].
                let b = self.vsrc();
                self.emit(format!("v_mov_b32 v12, {a}"));
                self.emit(format!("v_mov_b32 v13, {b}"));
                const OPS: [&str; 4] = [
                    "ds_add_rtn_u64",
                    "ds_max_rtn_u64",
                    "ds_min_rtn_i64",
                    "ds_wrxchg_rtn_b64",
                ];
                let op = OPS[self.below(4) as usize];
                self.emit(format!("{op} v[10:11], v15, v[12:13]"));
                self.emit("s_waitcnt lgkmcnt(0)");
                let d2 = self.dv();
                self.emit(format!("v_xor_b32 {d}, v10, {d}"));
                self.emit(format!("v_add_nc_u32 {d2}, v11, {d2}"));
            }
            4 => {
                let b = self.vsrc();
                self.emit(format!("v_mov_b32 v12, {a}"));
                self.emit(format!("v_mov_b32 v13, {b}"));
                if self.chance(50) {
                    self.emit("ds_write_b64 v15, v[12:13]");
                } else {
                    self.emit("ds_add_u64 v15, v[12:13]");
                }
            }
            _ => {
                // A lane of the same wave: id ^ m (m < wave size), or the lane itself past the items.
                let m = 1 + self.below(self.sh.wave - 1);
                let vcc = self.vcc();
                self.emit(format!("v_xor_b32 v9, {m}, v0"));
                self.emit(format!("v_cmp_gt_u32_e32 {vcc}, s12, v9"));
                self.emit(format!("v_cndmask_b32_e32 v9, v0, v9, {vcc}"));
                self.emit(format!(
                    "v_lshlrev_b32 v9, {}, v9",
                    (SLOT_WORDS * 4).trailing_zeros()
                ));
                self.emit(format!("ds_read_b32 {d}, v9 offset:{j}"));
                self.emit("s_waitcnt lgkmcnt(0)");
            }
        }
    }

    /// A commutative atomic without return on a shared counter.
    fn lds_counter(&mut self) {
        let a = self.vsrc();
        self.emit(format!("v_mov_b32 v9, {}", self.lds_c));
        match self.below(4) {
            0 => self.emit(format!("ds_add_u32 v9, {a}")),
            1 => self.emit(format!("ds_max_u32 v9, {a} offset:4")),
            2 => self.emit(format!("ds_or_b32 v9, {a} offset:8")),
            _ => {
                let b = self.vsrc();
                self.emit(format!("v_mov_b32 v12, {a}"));
                self.emit(format!("v_mov_b32 v13, {b}"));
                self.emit(format!("ds_add_u64 v9, v[12:13] offset:{}", COUNTERS * 4));
            }
        }
    }

    /// Exchange across the workgroup: write, meet, read another work-item's word, meet.
    fn exchange(&mut self) {
        let a = self.vsrc();
        let d = self.dv();
        let m = 1 + self.below(self.sh.wg.next_power_of_two() - 1);
        self.emit("v_lshlrev_b32 v9, 2, v0");
        self.emit(format!("ds_write_b32 v9, {a} offset:{}", self.lds_x));
        self.emit("s_waitcnt lgkmcnt(0)");
        self.emit("s_barrier");
        let vcc = self.vcc();
        self.emit(format!("v_xor_b32 v9, {m}, v0"));
        self.emit(format!("v_cmp_gt_u32_e32 {vcc}, s12, v9"));
        self.emit(format!("v_cndmask_b32_e32 v9, v0, v9, {vcc}"));
        self.emit("v_lshlrev_b32 v9, 2, v9");
        self.emit(format!("ds_read_b32 {d}, v9 offset:{}", self.lds_x));
        self.emit("s_waitcnt lgkmcnt(0)");
        self.emit("s_barrier");
    }

    /// if/else on a divergent condition, the way clang/ACO write it.
    fn div_if(&mut self) {
        if !self.straight && self.chance(25) {
            return self.tail_ifs();
        }
        let d = self.ifs;
        self.ifs += 1;
        let (save, els) = (self.mask(20 + 4 * d), self.mask(22 + 4 * d));
        let (exec, bw) = (self.exec(), self.bw());
        let mut op = self.vcmp_op();
        let (mut a, mut b) = (self.any_src(), self.vsrc());
        if self.chance(35) {
            // `if (id < n)` / `if (id >= n)`: whole waves on one side (EXEC 0 in the skipped body).
            op = if self.chance(50) {
                "v_cmp_gt_u32"
            } else {
                "v_cmp_le_u32"
            };
            a = format!("{}", self.below(self.sh.wg + 1));
            b = "v0".into();
        }
        let r = self.below(10);
        if r < 4 {
            let vcc = self.vcc();
            self.emit(format!("{op}_e32 {vcc}, {a}, {b}"));
            self.emit(format!("s_and_saveexec_{bw} {save}, {vcc}"));
        } else if r < 6 {
            // v_cmpx (gfx10: writes EXEC only), as in guard_runs.s.
            self.emit(format!("s_mov_{bw} {save}, {exec}"));
            let x = op.replacen("v_cmp_", "v_cmpx_", 1);
            self.emit(format!("{x}_e32 {a}, {b}"));
        } else {
            let m = self.mask(14);
            self.emit(format!("{op}_e64 {m}, {a}, {b}"));
            self.emit(format!("s_and_saveexec_{bw} {save}, {m}"));
        }
        let has_else = self.chance(60);
        if self.chance(50) {
            self.emit(format!("s_xor_{bw} {els}, {exec}, {save}"));
        } else {
            self.emit(format!("s_andn2_{bw} {els}, {save}, {exec}"));
        }
        let (l1, l2) = (self.lab(), self.lab());
        let (wg, div, empty) = (self.wg_flow, self.div, self.maybe_empty);
        self.wg_flow = false;
        self.div += 1;
        // ACO leaves out the s_cbranch_execz of short bodies: EXEC may then be 0 in the body.
        if !self.straight && self.chance(70) {
            self.emit(format!("s_cbranch_execz {l1}"));
        } else {
            self.maybe_empty = true;
        }
        let n = 2 + self.below(4);
        self.block(n);
        self.maybe_empty = empty;
        self.place(&l1);
        if has_else {
            self.emit(format!("s_mov_{bw} {exec}, {els}"));
            if !self.straight && self.chance(70) {
                self.emit(format!("s_cbranch_execz {l2}"));
            } else {
                self.maybe_empty = true;
            }
            let n = 1 + self.below(3);
            self.block(n);
            self.maybe_empty = empty;
            self.place(&l2);
        }
        self.emit(format!("s_or_{bw} {exec}, {exec}, {save}"));
        self.wg_flow = wg;
        self.div = div;
        self.ifs -= 1;
    }

    /// clang's tail-duplicated `if`s (rocPRIM's segmented sort, L42, D216): 1–3 conditions computed
    /// first, then `s_and_saveexec` + `s_cbranch_execnz` to a body placed after `s_endpgm`; the body
    /// ends with a copy of the code that follows the branch in line (restore EXEC, the next `if`'s
    /// `s_and_saveexec`, its branch with the sense flipped: `s_cbranch_execz` to the in-line copy), the
    /// last one with `s_branch` back. Bodies of VALU and SALU statements: an SGPR write live after it
    /// keeps the branch's vote.
    fn tail_ifs(&mut self) {
        let d = self.ifs;
        self.ifs += 1;
        let save = self.mask(20 + 4 * d);
        let (exec, bw) = (self.exec(), self.bw());
        let k = 1 + self.below(3);
        let conds: Vec<String> = (0..k).map(|j| self.mask(44 + 2 * j)).collect();
        for m in &conds {
            let op = self.vcmp_op();
            let (a, b) = if self.chance(35) {
                // Whole waves on one side: EXEC 0 at the branch.
                (format!("{}", self.below(self.sh.wg + 1)), "v0".to_string())
            } else {
                (self.any_src(), self.vsrc())
            };
            self.emit(format!("{op}_e64 {m}, {a}, {b}"));
        }
        // (out-of-line body F_j, in-line copy J_j) per `if`, and the way back.
        let labels: Vec<(String, String)> = (0..k).map(|_| (self.lab(), self.lab())).collect();
        let back = self.lab();
        self.emit(format!("s_and_saveexec_{bw} {save}, {}", conds[0]));
        self.emit(format!("s_cbranch_execnz {}", labels[0].0));
        for j in 0..k as usize {
            self.place(&labels[j].1);
            self.emit(format!("s_or_{bw} {exec}, {exec}, {save}"));
            if j + 1 < k as usize {
                self.emit(format!("s_and_saveexec_{bw} {save}, {}", conds[j + 1]));
                self.emit(format!("s_cbranch_execnz {}", labels[j + 1].0));
            }
        }
        self.place(&back);
        let main = std::mem::take(&mut self.out);
        let (wg, div, empty) = (self.wg_flow, self.div, self.maybe_empty);
        self.wg_flow = false;
        self.div += 1;
        self.maybe_empty = false;
        for j in 0..k as usize {
            self.place(&labels[j].0);
            for _ in 0..1 + self.below(3) {
                match self.below(10) {
                    0..=4 => self.valu(),
                    5 => self.carry(),
                    6 => self.cndmask(),
                    7 | 8 => self.salu(),
                    _ => self.mask_valu(),
                }
            }
            self.emit(format!("s_or_{bw} {exec}, {exec}, {save}"));
            if j + 1 < k as usize {
                self.emit(format!("s_and_saveexec_{bw} {save}, {}", conds[j + 1]));
                self.emit(format!("s_cbranch_execz {}", labels[j + 1].1));
            } else {
                self.emit(format!("s_branch {back}"));
            }
        }
        let ool = std::mem::replace(&mut self.out, main);
        self.ool.extend(ool);
        self.wg_flow = wg;
        self.div = div;
        self.maybe_empty = empty;
        self.ifs -= 1;
    }

    /// A loop left lane by lane: per-lane counter 1..4.
    fn div_loop(&mut self) {
        let d = self.dloops;
        self.dloops += 1;
        let cnt = format!("v{}", 17 + d);
        let acc = self.mask(40 + 2 * d);
        let (exec, bw, vcc) = (self.exec(), self.bw(), self.vcc());
        let a = self.vsrc();
        self.emit(format!("v_and_b32 {cnt}, 3, {a}"));
        self.emit(format!("v_add_nc_u32 {cnt}, 1, {cnt}"));
        self.emit(format!("s_mov_{bw} {acc}, 0"));
        let l = self.lab();
        self.place(&l);
        let (wg, div) = (self.wg_flow, self.div);
        self.wg_flow = false;
        self.div += 1;
        let n = 1 + self.below(4);
        self.block(n);
        self.emit(format!("v_sub_nc_u32 {cnt}, {cnt}, 1"));
        self.emit(format!("v_cmp_eq_u32_e32 {vcc}, 0, {cnt}"));
        self.emit(format!("s_or_{bw} {acc}, {vcc}, {acc}"));
        self.emit(format!("s_andn2_{bw} {exec}, {exec}, {acc}"));
        self.emit(format!("s_cbranch_execnz {l}"));
        self.emit(format!("s_or_{bw} {exec}, {exec}, {acc}"));
        self.wg_flow = wg;
        self.div = div;
        self.dloops -= 1;
    }

    /// A loop on an SGPR counter 1..4; workgroup-uniform (may meet) when its count is.
    fn uni_loop(&mut self) {
        let d = self.uloops;
        self.uloops += 1;
        let c = 36 + d;
        let (u, src) = if self.chance(50) {
            let s = self.ds();
            (self.wg_uni[(s - 4) as usize], format!("s{s}"))
        } else {
            (true, format!("{}", self.below(16)))
        };
        self.emit(format!("s_and_b32 s{c}, {src}, 3"));
        self.emit(format!("s_add_u32 s{c}, s{c}, 1"));
        let l = self.lab();
        self.place(&l);
        let wg = self.wg_flow;
        self.wg_flow = wg && u;
        let n = 1 + self.below(4);
        self.block(n);
        self.wg_flow = wg;
        self.emit(format!("s_sub_u32 s{c}, s{c}, 1"));
        self.emit(format!("s_cmp_lg_u32 s{c}, 0"));
        self.emit(format!("s_cbranch_scc1 {l}"));
        self.uloops -= 1;
    }

    /// if/else on an SGPR condition (SCC branch).
    fn uni_if(&mut self) {
        let (a, b, op) = self.scmp();
        let u = self.sgpr_uni(&a) && self.sgpr_uni(&b);
        self.emit(format!("{op} {a}, {b}"));
        let (l1, l2) = (self.lab(), self.lab());
        let br = if self.chance(50) { "scc0" } else { "scc1" };
        self.emit(format!("s_cbranch_{br} {l1}"));
        let wg = self.wg_flow;
        self.wg_flow = wg && u;
        let n = 1 + self.below(3);
        self.block(n);
        if self.chance(50) {
            self.emit(format!("s_branch {l2}"));
            self.place(&l1);
            let n = 1 + self.below(3);
            self.block(n);
            self.place(&l2);
        } else {
            self.place(&l1);
        }
        self.wg_flow = wg;
    }

    /// The final store of the live state: v1..v8, s4..s11, then `extra` (the counters) when given.
    fn store(&mut self, counters: bool) {
        for j in 0..NV {
            self.emit(format!(
                "global_store_dword v16, v{}, s[0:1] offset:{}",
                j + 1,
                j * 4
            ));
        }
        for j in 0..NS {
            self.emit(format!("v_mov_b32 v9, s{}", 4 + j));
            self.emit(format!(
                "global_store_dword v16, v9, s[0:1] offset:{}",
                (NV + j) * 4
            ));
        }
        if counters {
            self.emit(format!("v_mov_b32 v9, {}", self.lds_c));
            self.emit("ds_read_b32 v10, v9");
            self.emit("ds_read_b32 v11, v9 offset:4");
            self.emit("ds_read_b32 v12, v9 offset:8");
            self.emit("ds_read_b32 v13, v9 offset:12");
            self.emit(format!("ds_read_b64 v[14:15], v9 offset:{}", COUNTERS * 4));
            self.emit("s_waitcnt lgkmcnt(0)");
            for (j, v) in [10, 11, 12, 13, 14, 15].iter().enumerate() {
                self.emit(format!(
                    "global_store_dword v16, v{v}, s[0:1] offset:{}",
                    (NV + NS + j as u32) * 4
                ));
            }
        }
    }

    /// A wave-uniform early exit at top level: the wave whose index in its workgroup is `k` stores and ends.
    fn early_exit(&mut self) {
        let k = self.below(self.sh.wg / self.sh.wave);
        let l = self.lab();
        self.emit("v_readfirstlane_b32 s16, v0");
        self.emit(format!(
            "s_lshr_b32 s16, s16, {}",
            self.sh.wave.trailing_zeros()
        ));
        self.emit(format!("s_cmp_eq_u32 s16, {k}"));
        self.emit(format!("s_cbranch_scc0 {l}"));
        self.store(false);
        self.emit("s_endpgm");
        self.place(&l);
        self.exited = true;
    }

    fn stmt(&mut self) {
        let top = self.div == 0;
        let nest = self.budget > 20 && self.ifs + self.dloops + self.uloops < 4;
        let branchy = nest && !self.straight;
        loop {
            match self.below(100) {
                0..=29 => self.valu(),
                30..=34 => self.carry(),
                35..=41 => self.salu(),
                42..=46 => self.cndmask(),
                47..=49 => self.cselect(),
                50..=53 => self.readlane(),
                54..=57 => self.ballot(),
                58..=62 if top && self.div == 0 && self.ifs == 0 => self.crosslane(),
                63..=69 if self.lds => self.lds_own(),
                70..=72 if self.shared => self.lds_counter(),
                73..=75 if self.shared && self.wg_flow && top && !self.exited => self.exchange(),
                76 if self.shared && self.wg_flow => {
                    self.emit("s_waitcnt lgkmcnt(0)");
                    self.emit("s_barrier")
                }
                77..=83 if nest && self.ifs < 3 => self.div_if(),
                84..=87 if branchy && self.dloops < 2 => self.div_loop(),
                88..=91 if branchy && self.uloops < 2 => self.uni_loop(),
                92..=95 if branchy => self.uni_if(),
                96 if top
                    && !self.straight
                    && self.wg_flow
                    && self.uloops == 0
                    && !self.exited
                    && self.sh.wg > self.sh.wave =>
                {
                    self.early_exit()
                }
                97..=99 => self.mask_valu(),
                _ => continue,
            }
            return;
        }
    }

    fn block(&mut self, n: u32) {
        for _ in 0..n {
            if self.budget <= 0 {
                return;
            }
            self.stmt();
        }
    }
}

/// The program of `seed` for `shape`.
pub fn generate(seed: u32, sh: Shape) -> Program {
    let mut rng = super::lane::xorshift(
        seed.wrapping_mul(0x9e37_79b9) ^ 0x5bd1_e995 ^ sh.wave ^ (sh.wg << 8),
    );
    for _ in 0..4 {
        rng();
    }
    let lds_x = sh.wg * SLOT_WORDS * 4;
    let lds_c = lds_x + sh.wg * 4;
    let lds_bytes = lds_c + (COUNTERS + 2) * 4;
    let mut g = Gen {
        r: rng,
        sh,
        out: Vec::new(),
        label: 0,
        div: 0,
        ifs: 0,
        dloops: 0,
        uloops: 0,
        wg_flow: true,
        exited: false,
        wg_uni: [true; NS as usize],
        budget: 0,
        lds_x,
        lds_c,
        lds: false,
        shared: false,
        maybe_empty: false,
        straight: false,
        ool: Vec::new(),
    };
    // A third of the programs use no LDS (no barrier: the lane mapping's LDS-free rules), a fifth LDS
    // within the wave only, the rest everything.
    match g.below(10) {
        0..=2 => {}
        3 | 4 => g.lds = true,
        _ => (g.lds, g.shared) = (true, true),
    }
    // A quarter of the programs are straight-line (any LDS class).
    g.straight = g.below(4) == 0;
    let exec = g.exec();
    // Prologue: s12 = items in this workgroup, s13 = items in this wave.
    g.emit(format!("s_mul_i32 s12, s2, {}", sh.wg));
    g.emit(format!("s_sub_u32 s12, {}, s12", sh.grid));
    g.emit(format!("s_min_u32 s12, s12, {}", sh.wg));
    let bw = g.bw();
    g.emit(format!("s_bcnt1_i32_{bw} s13, {exec}"));
    for j in 0..NS {
        let c = (g.r)();
        match g.below(3) {
            0 => g.emit(format!("s_mul_i32 s{}, s2, 0x{c:x}", 4 + j)),
            1 => g.emit(format!("s_add_u32 s{}, s3, 0x{c:x}", 4 + j)),
            _ => {
                let c = g.below(20);
                g.emit(format!("s_mov_b32 s{}, {c}", 4 + j))
            }
        }
    }
    // v16 = byte offset of this work-item's output words; v15 = its own LDS slots.
    g.emit(format!("s_mul_i32 s16, s2, {}", sh.wg));
    g.emit("v_add_nc_u32 v16, s16, v0");
    g.emit(format!("v_mul_lo_u32 v16, v16, {}", K * 4));
    g.emit(format!(
        "v_lshlrev_b32 v15, {}, v0",
        (SLOT_WORDS * 4).trailing_zeros()
    ));
    for j in 0..NV {
        let c = (g.r)();
        let s = 4 + g.below(NS);
        match g.below(3) {
            0 => g.emit(format!("v_mul_lo_u32 v{}, v0, 0x{c:x}", j + 1)),
            1 => g.emit(format!("v_xad_u32 v{}, v0, s{s}, 0x{c:x}", j + 1)),
            _ => g.emit(format!("v_add_nc_u32 v{}, s{s}, v0", j + 1)),
        }
    }
    if g.lds {
        g.emit("ds_write_b32 v15, v1");
        g.emit("ds_write_b32 v15, v2 offset:4");
    }
    // Counters: work-item 0 writes them, all waves meet.
    let vcc = g.vcc();
    if g.shared {
        g.emit(format!("v_cmp_eq_u32_e32 {vcc}, 0, v0"));
        g.emit(format!("s_and_saveexec_{bw} {}, {vcc}", g.mask(14)));
        g.emit(format!("v_mov_b32 v9, {lds_c}"));
        g.emit("v_mov_b32 v10, 0");
        g.emit("v_mov_b32 v11, 0");
        g.emit("ds_write_b32 v9, v10");
        g.emit("ds_write_b32 v9, v10 offset:4");
        g.emit("ds_write_b32 v9, v10 offset:8");
        g.emit("ds_write_b32 v9, v10 offset:12");
        g.emit(format!("ds_write_b64 v9, v[10:11] offset:{}", COUNTERS * 4));
        g.emit(format!("s_mov_{bw} {exec}, {}", g.mask(14)));
        g.emit("s_waitcnt lgkmcnt(0)");
        g.emit("s_barrier");
    }
    let prologue = g.out.len();
    g.budget = 40 + g.below(80) as i32;
    while g.budget > 0 {
        g.stmt();
    }
    if g.shared {
        g.emit("s_waitcnt lgkmcnt(0)");
        g.emit("s_barrier");
    }
    let shared = g.shared;
    g.store(shared);
    g.emit("s_endpgm");
    let ool = std::mem::take(&mut g.ool);
    g.out.extend(ool);
    let instructions = g.out.iter().filter(|l| !l.ends_with(':')).count();
    let _ = prologue;
    let mut asm = format!(
        "// rdna2spv lane_fuzz (decision D148): seed {seed}, shape {} (wave{}, workgroup {}, grid {}), \
         LDS {}, shared {}, straight {}\n\
         // s[0:1] = out, s2 = workgroup id x, s3 = constant, v0 = work-item id x.\n",
        sh.name, sh.wave, sh.wg, sh.grid, g.lds, g.shared, g.straight
    );
    for l in &g.out {
        asm.push_str(l);
        asm.push('\n');
    }
    let s3 = seed.wrapping_mul(2_654_435_761);
    let lds_bytes = if g.lds { lds_bytes } else { 0 };
    let mut manifest = String::new();
    writeln!(
        manifest,
        "# rdna2spv lane_fuzz (decision D148): seed {seed}, shape {}\ncode = \"p.bin\"\n\
         grid = [{}, 1, 1]\nworkgroup = [{}, 1, 1]\n\n[abi]\nwave_size = {}\nlds_bytes = {lds_bytes}\n\
         sgpr = [\n    {{ reg = 0, address = \"out\" }},\n    {{ reg = 2, workgroup_id = 0 }},\n    \
         {{ reg = 3, u32 = {s3} }},\n]\n\n[[buffers]]\nname = \"out\"\nsize = {}\noutput = true",
        sh.name,
        sh.grid,
        sh.wg,
        sh.wave,
        sh.grid * K * 4
    )
    .unwrap();
    Program {
        asm,
        manifest,
        instructions,
    }
}

/// Assembles `dir/p.s` into `dir/p.bin` (llvm-mc-19, llvm-objcopy-19).
pub fn assemble(dir: &Path, wave: u32) -> Result<(), String> {
    let attr = if wave == 64 {
        "+wavefrontsize64"
    } else {
        "+wavefrontsize32"
    };
    let mc = Command::new("llvm-mc-19")
        .args(["-arch=amdgcn", "-mcpu=gfx1030", "-filetype=obj"])
        .arg(format!("-mattr={attr}"))
        .arg(dir.join("p.s"))
        .arg("-o")
        .arg(dir.join("p.o"))
        .output()
        .unwrap_or_else(|e| {
            panic!("lane_fuzz needs llvm-mc-19 (LLVM 19: apt-get install llvm-19) on PATH: {e}")
        });
    if !mc.status.success() {
        return Err(format!(
            "llvm-mc-19: {}",
            String::from_utf8_lossy(&mc.stderr)
        ));
    }
    let oc = Command::new("llvm-objcopy-19")
        .args(["-O", "binary", "--only-section=.text"])
        .arg(dir.join("p.o"))
        .arg(dir.join("p.bin"))
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "lane_fuzz needs llvm-objcopy-19 (LLVM 19: apt-get install llvm-19) on PATH: {e}"
            )
        });
    if !oc.status.success() {
        return Err(format!(
            "llvm-objcopy-19: {}",
            String::from_utf8_lossy(&oc.stderr)
        ));
    }
    Ok(())
}

/// Runs `dir/p.toml` with `--backend both` in `mapping`; the output words, or the failure.
fn run(bin: &Path, dir: &Path, mapping: &str) -> Result<Vec<u32>, String> {
    let out_dir = dir.join(mapping);
    let out = Command::new(bin)
        .arg("run")
        .arg(dir.join("p.toml"))
        .args([
            "--backend",
            "both",
            "--timeout-ms",
            "600000",
            "--mapping",
            mapping,
        ])
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() != Some(0) || !stderr.contains("agree bit for bit") {
        return Err(format!(
            "{mapping} mapping: exit {:?}\n{stderr}",
            out.status.code()
        ));
    }
    Ok(super::lane::words(
        &std::fs::read(out_dir.join("out.bin")).map_err(|e| e.to_string())?,
    ))
}

/// Generates, assembles and runs `seed` in `shape` in both mappings under `root`; `Ok(instructions)` when
/// host and lavapipe agree bit for bit in each mapping and the mappings agree word for word, or the
/// failure's report (the kept directory, the seed, the shape, the command that reproduces it).
pub fn check(bin: &Path, root: &Path, seed: u32, sh: Shape) -> Result<usize, String> {
    let dir = root.join(format!("seed{seed}-{}", sh.name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let p = generate(seed, sh);
    std::fs::write(dir.join("p.s"), &p.asm).unwrap();
    std::fs::write(dir.join("p.toml"), &p.manifest).unwrap();
    let report = |what: String| {
        format!(
            "lane_fuzz: seed {seed}, shape {} (wave{}, workgroup {}, grid {}): {what}\n  kept in {}\n  \
             reproduce: {} run {} --backend both --mapping lane|wave --out /tmp/o",
            sh.name,
            sh.wave,
            sh.wg,
            sh.grid,
            dir.display(),
            bin.display(),
            dir.join("p.toml").display()
        )
    };
    assemble(&dir, sh.wave)
        .map_err(|e| report(format!("generator bug, does not assemble: {e}")))?;
    let lane = run(bin, &dir, "lane").map_err(&report)?;
    let wave = run(bin, &dir, "wave").map_err(&report)?;
    if lane != wave {
        let i = lane
            .iter()
            .zip(&wave)
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        return Err(report(format!(
            "lane and wave mappings differ: first at word {i} (work-item {}, slot {}): lane {:#x}, wave {:#x}",
            i as u32 / K,
            i as u32 % K,
            lane.get(i).copied().unwrap_or(0),
            wave.get(i).copied().unwrap_or(0)
        )));
    }
    if std::env::var_os("RDNA2SPV_FUZZ_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(p.instructions)
}

/// The directory failures are kept in.
pub fn root(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rdna2spv-lane-fuzz-{tag}-{}", std::process::id()))
}
