//! Typed buffer accesses (decision D097, superseding D071): MUBUF `buffer_{load,store}_format_*` convert by
//! the V#'s FORMAT field (word 3 bits 18:12), a run-time value; MTBUF `tbuffer_*` by the instruction's own
//! format field (word 0 bits 25:19). Both use the gfx10 unified format table, [`unified_format`].
//!
//! The address and the range check are D030's (lift/buffer.rs); a typed access is one element of
//! `S` = 1, 2, 4, 8, 12 or 16 bytes and is in range only if every dword it touches is (all or nothing).
//! Channels are packed from bit 0 up in X, Y, Z, W order (a format named `2_10_10_10` lists its widths from
//! the most significant end: X is the low 10 bits, W the top 2).
//!
//! Loads (to 32 bits per component): UINT zero-extends, SINT sign-extends, USCALED/SSCALED convert the
//! integer to f32 (exact: every channel is at most 16 bits wide), UNORM is `c / (2^n - 1)` and SNORM
//! `max(c / (2^(n-1) - 1), -1)` correctly rounded (the Vulkan/D3D fixed-point rules), FLOAT widens 16-, 11-
//! and 10-bit floats exactly (NaNs quieted as `v_cvt_f32_f16` does) and moves 32-bit ones unchanged.
//! Channels the format lacks read (0, 0, 0, 1) (1.0 for the float-valued numeric formats), then each result
//! component takes the channel its DST_SEL names (V# word 3, 3 bits per component: 0 → 0, 1 → 1, 4..7 →
//! X..W). d16 loads give 16-bit results only where the result is exact: UINT/SINT up to 16 bits,
//! USCALED up to 11 and SSCALED up to 12 bits (as f16), 16-bit floats unchanged and 11/10-bit floats as the
//! f16 with the same value; the low (high, for `d16_hi`) half of the VGPR is written, the other half kept.
//!
//! Stores: 32-bit UINT/SINT/FLOAT channels store the register's bits; narrower UINT/SINT channels store
//! values that fit the channel. Refused (before anything runs for MTBUF, as a [`Node::Refuse`] that
//! stops the run for MUBUF, where the format is data): everything whose hardware rule no source fixes —
//! UNORM/SNORM and d16 conversions of 32-bit or normalized channels, stores that round or clamp (UNORM,
//! SNORM, USCALED, SSCALED, 16/11/10-bit floats from f32, integers outside the channel's range), stores of
//! part of an element, stores through a V# whose DST_SEL is not the identity, reserved DST_SEL values,
//! and the invalid formats (0, 78..127).

use super::{LiftError, Lifter, Src};
use crate::{Access, FloatOp, Handle, IntCmp, IntOp, Node, Space, Ty, UnOp};
use rdna2spv_isa::{buf_format_name, Format, Opcode};

type H = Handle<Node>;

/// The numeric formats of the gfx10 unified table, in table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nfmt {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Float,
}

const NFMTS: [Nfmt; 7] = [
    Nfmt::Unorm,
    Nfmt::Snorm,
    Nfmt::Uscaled,
    Nfmt::Sscaled,
    Nfmt::Uint,
    Nfmt::Sint,
    Nfmt::Float,
];

/// The data formats of the unified table: first value, channel widths X, Y, Z, W (0 = absent), and
/// whether the group has only UINT, SINT, FLOAT (32-bit channels) rather than UNORM.. in table order.
const GROUPS: [(u32, [u32; 4], bool); 14] = [
    (1, [8, 0, 0, 0], false),
    (7, [16, 0, 0, 0], false),
    (14, [8, 8, 0, 0], false),
    (20, [32, 0, 0, 0], true),
    (23, [16, 16, 0, 0], false),
    (30, [11, 11, 10, 0], false),
    (37, [10, 11, 11, 0], false),
    (44, [2, 10, 10, 10], false),
    (50, [10, 10, 10, 2], false),
    (56, [8, 8, 8, 8], false),
    (62, [32, 32, 0, 0], true),
    (65, [16, 16, 16, 16], false),
    (72, [32, 32, 32, 0], true),
    (75, [32, 32, 32, 32], true),
];

/// The last valid unified format (BUF_FMT_32_32_32_32_FLOAT).
pub const LAST_FORMAT: u32 = 77;

/// Channel widths (X, Y, Z, W; 0 = absent) and numeric format of gfx10 unified format `fmt`.
pub fn unified_format(fmt: u32) -> Option<([u32; 4], Nfmt)> {
    if fmt == 0 || fmt > LAST_FORMAT {
        return None;
    }
    let &(start, w, only32) = GROUPS.iter().rev().find(|g| g.0 <= fmt)?;
    let k = (fmt - start) as usize + if only32 { 4 } else { 0 };
    Some((w, NFMTS[k]))
}

/// What a typed instruction does: load or store, d16 (and which half), number of components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Typed {
    pub store: bool,
    pub d16: bool,
    pub hi: bool,
    pub n: u32,
}

/// The typed form of a MUBUF/MTBUF opcode, if it is one.
pub fn typed_form(op: Opcode) -> Option<Typed> {
    let name = op.name();
    let rest = name
        .strip_prefix("buffer_")
        .or_else(|| name.strip_prefix("tbuffer_"))?;
    let (store, rest) = if let Some(r) = rest.strip_prefix("load_format_") {
        (false, r)
    } else {
        (true, rest.strip_prefix("store_format_")?)
    };
    let (d16, hi, rest) = if let Some(r) = rest.strip_prefix("d16_hi_") {
        (true, true, r)
    } else if let Some(r) = rest.strip_prefix("d16_") {
        (true, false, r)
    } else {
        (false, false, rest)
    };
    let n = match rest {
        "x" => 1,
        "xy" => 2,
        "xyz" => 3,
        "xyzw" => 4,
        _ => return None,
    };
    Some(Typed { store, d16, hi, n })
}

const R_INVALID: &str = "the buffer format is invalid (0 or above 77; D097)";
const R_D16_LOAD: &str = "a d16 load of a UNORM/SNORM format, or of channels too wide for an exact 16-bit result: no source fixes the hardware's rounding (D097)";
const R_STORE_CONV: &str = "a store that rounds or clamps (UNORM, SNORM, USCALED, SSCALED, or a float narrower than the data): no source fixes the hardware's rule (D097)";
const R_STORE_D16: &str = "a d16 store to channels other than 16-bit floats or integers of at most 16 bits: no source fixes the hardware's conversion (D097)";
const R_PARTIAL: &str = "a store of fewer components than the format has channels: whether the other channels' bytes are written is not established (D097)";
const R_RANGE: &str = "a store of an integer outside the range of its UINT/SINT channel: whether the hardware clamps or wraps is not established (D097)";
const R_DST_SEL: &str = "the V#'s DST_SEL is reserved (2 or 3) on a loaded component, or not the identity on a stored one: not modelled (D097)";

/// Why every access of instruction form `t` with format `fmt` is refused, whatever the data (None: it is
/// modelled, possibly with data-dependent refusals).
pub fn format_refusal(fmt: u32, t: Typed) -> Option<&'static str> {
    let Some((w, nf)) = unified_format(fmt) else {
        return Some(R_INVALID);
    };
    let wmax = w.iter().copied().max().unwrap_or(0);
    let nchan = w.iter().filter(|&&x| x > 0).count() as u32;
    match (t.store, t.d16) {
        (false, false) => None,
        (false, true) => match nf {
            Nfmt::Unorm | Nfmt::Snorm => Some(R_D16_LOAD),
            Nfmt::Uint | Nfmt::Sint if wmax > 16 => Some(R_D16_LOAD),
            Nfmt::Uscaled if wmax > 11 => Some(R_D16_LOAD),
            Nfmt::Sscaled if wmax > 12 => Some(R_D16_LOAD),
            Nfmt::Float if wmax > 16 => Some(R_D16_LOAD),
            _ => None,
        },
        (true, d16) => {
            if t.n < nchan {
                return Some(R_PARTIAL);
            }
            match nf {
                Nfmt::Unorm | Nfmt::Snorm | Nfmt::Uscaled | Nfmt::Sscaled => Some(R_STORE_CONV),
                Nfmt::Float if !d16 && wmax < 32 => Some(R_STORE_CONV),
                Nfmt::Float if d16 && wmax != 16 => Some(R_STORE_D16),
                Nfmt::Uint | Nfmt::Sint if d16 && wmax > 16 => Some(R_STORE_D16),
                _ => None,
            }
        }
    }
}

/// The format description the IR computes with: per channel width and bit position, and the numeric
/// format, each a constant (MTBUF) or decoded from the V# at run time (MUBUF).
pub(super) struct Desc {
    pub(super) w: [H; 4],
    pub(super) s: [H; 4],
    /// The numeric format: known (MTBUF) or an index into [`NFMTS`] (B32).
    pub(super) nf: Result<Nfmt, H>,
    /// Element bytes (B32).
    pub(super) size: H,
    /// MTBUF: the element's static size, for emitting only the memory accesses it needs.
    pub(super) static_size: Option<u32>,
    /// Whether a refusal by format fired (B1; false for MTBUF, refused at lift time): stores are disabled.
    pub(super) refused: H,
}

impl Lifter<'_> {
    /// Lifts a typed buffer access (MUBUF format forms, MTBUF); false for every other instruction.
    pub(super) fn typed_buffer(&mut self) -> Result<bool, LiftError> {
        let mtbuf = self.ins.format() == Format::MTBUF;
        let Some(t) = typed_form(self.ins.opcode()) else {
            if mtbuf {
                return self.unsupported("MTBUF instruction without a typed form");
            }
            return Ok(false);
        };
        let (w0, w1) = (self.w(0), self.w(1));
        let srsrc = (((w1 >> 16) & 0x1f) * 4) as u16;
        if !mtbuf && w0 >> 16 & 1 != 0 {
            return self.unsupported("MUBUF loads into LDS are not modelled");
        }
        if w1 >> 23 & 1 != 0 {
            return self.unsupported("tfe (texture fail enable) is not modelled");
        }
        if self.psb == Some(srsrc) {
            return self.unsupported(
                "a typed access through the private segment buffer (scratch) is not modelled (D097)",
            );
        }
        let desc = if mtbuf {
            let fmt = (w0 >> 19) & 0x7f;
            if let Some(r) = format_refusal(fmt, t) {
                let name = buf_format_name(fmt).unwrap_or("(unnamed)");
                return self.unsupported(&format!("format BUF_FMT_{name} ({fmt}): {r}"));
            }
            let (w, nf) = unified_format(fmt).expect("refused above");
            Some((w, nf))
        } else {
            None
        };
        self.typed_access(t, desc, srsrc)?;
        Ok(true)
    }

    fn typed_access(
        &mut self,
        t: Typed,
        fixed: Option<([u32; 4], Nfmt)>,
        srsrc: u16,
    ) -> Result<(), LiftError> {
        let (w0, w1) = (self.w(0), self.w(1));
        let inst_offset = w0 & 0xfff;
        let offen = w0 >> 12 & 1 != 0;
        let idxen = w0 >> 13 & 1 != 0;
        let vaddr = (w1 & 0xff) as u16;
        let vdata = ((w1 >> 8) & 0xff) as u16;
        let soffset = w1 >> 24;
        // Reads first: the V#, the address operands, the data.
        let v = self.vsharp(srsrc);
        let d3 = self.read_s(srsrc + 3, Ty::B32);
        let so = self.src(soffset, Src::B32)?;
        let lane = self.n(Node::LaneId);
        let vindex = if idxen {
            self.n(Node::ReadVgpr {
                reg: vaddr,
                ty: Ty::B32,
            })
        } else {
            self.c(Ty::B32, 0)
        };
        let z = self.c(Ty::B32, 0);
        let tid = self.buf_select(v.add_tid, lane, z);
        let index = self.int(IntOp::Add, Ty::B32, vindex, tid);
        let k = self.c(Ty::B32, inst_offset as u64);
        let off = if offen {
            let vo = self.n(Node::ReadVgpr {
                reg: vaddr + idxen as u16,
                ty: Ty::B32,
            });
            self.int(IntOp::Add, Ty::B32, vo, k)
        } else {
            k
        };
        let regs = if t.d16 { t.n.div_ceil(2) } else { t.n } as u16;
        let data: Vec<H> = (0..regs)
            .map(|i| {
                self.n(Node::ReadVgpr {
                    reg: vdata + i,
                    ty: Ty::B32,
                })
            })
            .collect();
        let desc = self.format_desc(t, fixed, d3);
        let sel: Vec<H> = (0..4).map(|i| self.buf_field(d3, 3 * i, 7)).collect();
        // The element: in range if every dword it touches is.
        let bl = self.buffer_lane(&v, so, index);
        let mut addrs = Vec::new();
        let mut ok = self.c(Ty::B1, 1);
        let f = self.c(Ty::B1, 0);
        let dwords = desc.static_size.map_or(4, |s| s.div_ceil(4));
        for j in 0..dwords {
            let kj = self.c(Ty::B32, 4 * j as u64);
            let oj = self.int(IntOp::Add, Ty::B32, off, kj);
            let (a, okj) = self.buffer_component(&v, &bl, oj);
            // Dword j takes part when the element reaches it: 4j < size.
            let reach = self.icmp(IntCmp::GtU, Ty::B32, desc.size, kj);
            let t1 = self.c(Ty::B1, 1);
            let need = self.buf_select(reach, okj, t1);
            ok = self.buf_select(ok, need, f);
            addrs.push(a);
        }
        if t.store {
            self.typed_store(t, &desc, &sel, &data, &addrs, ok)
        } else {
            let comps: Vec<usize> = (0..t.n as usize).collect();
            self.typed_load(t, &desc, &sel, &comps, &data, &addrs, ok, vdata)
        }
    }

    /// The channel layout and numeric format: constants for a known format, else decoded from the V#'s
    /// FORMAT field, with the refusals that depend only on the format as [`Node::Refuse`].
    fn format_desc(&mut self, t: Typed, fixed: Option<([u32; 4], Nfmt)>, d3: H) -> Desc {
        if let Some((w, nf)) = fixed {
            let mut s = [0u32; 4];
            for c in 1..4 {
                s[c] = s[c - 1] + w[c - 1];
            }
            let size = w.iter().sum::<u32>() / 8;
            return Desc {
                w: w.map(|x| self.c(Ty::B32, x as u64)),
                s: s.map(|x| self.c(Ty::B32, x as u64)),
                nf: Ok(nf),
                size: self.c(Ty::B32, size as u64),
                static_size: Some(size),
                refused: self.c(Ty::B1, 0),
            };
        }
        let fmt = self.buf_field(d3, 12, 0x7f);
        self.runtime_desc(fmt, |x| format_refusal(x, t))
    }

    /// The channel layout of a run-time 7-bit unified format `fmt` (B32), with a [`Node::Refuse`] for every
    /// format `refusal` names (one 128-bit membership test per reason).
    pub(super) fn runtime_desc(
        &mut self,
        fmt: H,
        refusal: impl Fn(u32) -> Option<&'static str>,
    ) -> Desc {
        let mut reasons: Vec<(&'static str, u128)> = Vec::new();
        for x in 0..128u32 {
            if let Some(r) = refusal(x) {
                match reasons.iter_mut().find(|(q, _)| *q == r) {
                    Some((_, m)) => *m |= 1 << x,
                    None => reasons.push((r, 1 << x)),
                }
            }
        }
        let six = self.c(Ty::B32, 6);
        let word = self.int(IntOp::LShr, Ty::B32, fmt, six);
        let word64 = self.un(UnOp::ZExt, Ty::B64, word);
        let bit = self.c(Ty::B32, 63);
        let bit = self.int(IntOp::And, Ty::B32, fmt, bit);
        let bit64 = self.un(UnOp::ZExt, Ty::B64, bit);
        let mut refused = self.c(Ty::B1, 0);
        for (r, m) in reasons {
            let lo = self.c(Ty::B64, m as u64);
            let hi = self.c(Ty::B64, (m >> 64) as u64);
            let z64 = self.c(Ty::B64, 0);
            let is_hi = self.icmp(IntCmp::Ne, Ty::B64, word64, z64);
            let mw = self.buf_select(is_hi, hi, lo);
            let x = self.int(IntOp::LShr, Ty::B64, mw, bit64);
            let one = self.c(Ty::B64, 1);
            let x = self.int(IntOp::And, Ty::B64, x, one);
            let cond = self.nonzero(Ty::B64, x);
            self.n(Node::Refuse { cond, reason: r });
            refused = self.buf_or(refused, cond);
        }
        // The group: a select chain over the groups' first values; each group's constant packs the four
        // widths (6 bits each), the UINT/SINT/FLOAT-only flag (bit 24) and the first value (bits 31:25).
        let pack = |g: &(u32, [u32; 4], bool)| -> u64 {
            (g.1[0] | g.1[1] << 6 | g.1[2] << 12 | g.1[3] << 18 | (g.2 as u32) << 24 | g.0 << 25)
                as u64
        };
        let mut d = self.c(Ty::B32, pack(&GROUPS[0]));
        for g in &GROUPS[1..] {
            let start = self.c(Ty::B32, g.0 as u64);
            let ge = self.icmp(IntCmp::GeU, Ty::B32, fmt, start);
            let pg = self.c(Ty::B32, pack(g));
            d = self.buf_select(ge, pg, d);
        }
        let w: [H; 4] = std::array::from_fn(|c| self.buf_field(d, 6 * c as u64, 0x3f));
        let only32 = self.buf_field(d, 24, 1);
        let start = self.buf_field(d, 25, 0x7f);
        let nf = self.int(IntOp::Sub, Ty::B32, fmt, start);
        let two = self.c(Ty::B32, 2);
        let plus = self.int(IntOp::Shl, Ty::B32, only32, two);
        let nf = self.int(IntOp::Add, Ty::B32, nf, plus);
        let s1 = w[0];
        let s2 = self.int(IntOp::Add, Ty::B32, s1, w[1]);
        let s3 = self.int(IntOp::Add, Ty::B32, s2, w[2]);
        let bits = self.int(IntOp::Add, Ty::B32, s3, w[3]);
        let three = self.c(Ty::B32, 3);
        let size = self.int(IntOp::LShr, Ty::B32, bits, three);
        let z = self.c(Ty::B32, 0);
        Desc {
            w,
            s: [z, s1, s2, s3],
            nf: Err(nf),
            size,
            static_size: None,
            refused,
        }
    }

    pub(super) fn is_nf(&mut self, nf: Result<Nfmt, H>, want: Nfmt) -> H {
        match nf {
            Ok(x) => self.c(Ty::B1, (x == want) as u64),
            Err(h) => {
                let k = NFMTS.iter().position(|&x| x == want).expect("listed");
                let kc = self.c(Ty::B32, k as u64);
                self.icmp(IntCmp::Eq, Ty::B32, h, kc)
            }
        }
    }

    /// `(1 << w) - 1`, all ones for w = 32 (B32).
    pub(super) fn chan_mask(&mut self, w: H) -> H {
        let one = self.c(Ty::B32, 1);
        let p = self.int(IntOp::Shl, Ty::B32, one, w);
        let m = self.int(IntOp::Sub, Ty::B32, p, one);
        let c32 = self.c(Ty::B32, 32);
        let full = self.icmp(IntCmp::Eq, Ty::B32, w, c32);
        let all = self.c(Ty::B32, 0xffff_ffff);
        self.buf_select(full, all, m)
    }

    /// `x` sign-extended from its low `w` bits (w in 1..=32).
    pub(super) fn sext_w(&mut self, x: H, w: H) -> H {
        let c32 = self.c(Ty::B32, 32);
        let sh = self.int(IntOp::Sub, Ty::B32, c32, w);
        let y = self.int(IntOp::Shl, Ty::B32, x, sh);
        self.int(IntOp::AShr, Ty::B32, y, sh)
    }

    /// Chooses by numeric format among `(format, value)` pairs (the last is the default).
    pub(super) fn by_nf(&mut self, nf: Result<Nfmt, H>, cases: &[(Nfmt, H)]) -> H {
        if let Ok(x) = nf {
            return cases
                .iter()
                .find(|c| c.0 == x)
                .unwrap_or(cases.last().expect("cases"))
                .1;
        }
        let mut r = cases.last().expect("cases").1;
        for &(k, v) in cases.iter().rev().skip(1) {
            let is = self.is_nf(nf, k);
            r = self.buf_select(is, v, r);
        }
        r
    }

    /// Loads one element and writes the components `comps` (indices into `sel`, in order) to consecutive
    /// VGPRs from `vdata` (`t.n` is their count).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn typed_load(
        &mut self,
        t: Typed,
        desc: &Desc,
        sel: &[H],
        comps_idx: &[usize],
        data: &[H],
        addrs: &[H],
        ok: H,
        vdata: u16,
    ) -> Result<(), LiftError> {
        let comps = self.typed_load_values(t, desc, sel, comps_idx, addrs, ok);
        if !t.d16 {
            for (i, &x) in comps.iter().enumerate() {
                self.write_v(vdata + i as u16, x);
            }
            return Ok(());
        }
        // d16: pairs into one VGPR, low half first; a lone component keeps the other half.
        for (r, pair) in comps.chunks(2).enumerate() {
            let reg = vdata + r as u16;
            let x = if pair.len() == 2 {
                let m16 = self.c(Ty::B32, 0xffff);
                let lo = self.int(IntOp::And, Ty::B32, pair[0], m16);
                let s16 = self.c(Ty::B32, 16);
                let hi = self.int(IntOp::Shl, Ty::B32, pair[1], s16);
                self.int(IntOp::Or, Ty::B32, lo, hi)
            } else {
                self.d16_merge(pair[0], data[r], t.hi)
            };
            self.write_v(reg, x);
        }
        Ok(())
    }

    /// Loads one element and returns the components `comps_idx` (indices into `sel`), converted and
    /// selected by DST_SEL (an element not loaded, `ok` false, reads as zero bits).
    pub(super) fn typed_load_values(
        &mut self,
        t: Typed,
        desc: &Desc,
        sel: &[H],
        comps_idx: &[usize],
        addrs: &[H],
        ok: H,
    ) -> Vec<H> {
        // Reserved DST_SEL values (2, 3) on a returned component.
        let mut bad = self.c(Ty::B1, 0);
        for &s in comps_idx.iter().map(|&c| &sel[c]) {
            let two = self.c(Ty::B32, 2);
            let three = self.c(Ty::B32, 3);
            let a = self.icmp(IntCmp::Eq, Ty::B32, s, two);
            let b = self.icmp(IntCmp::Eq, Ty::B32, s, three);
            let either = self.buf_or(a, b);
            bad = self.buf_or(bad, either);
        }
        self.n(Node::Refuse {
            cond: bad,
            reason: R_DST_SEL,
        });
        // The element's dwords (a 1- or 2-byte element by a byte or short access).
        let size = desc.size;
        let mut dw = Vec::new();
        let f = self.c(Ty::B1, 0);
        let mut small = Vec::new();
        for (j, &a) in addrs.iter().enumerate() {
            let need = match desc.static_size {
                Some(s) => {
                    if s < 4 {
                        continue;
                    }
                    self.c(Ty::B1, 1)
                }
                None => {
                    let four = self.c(Ty::B32, 4 * j as u64 + 3);
                    self.icmp(IntCmp::GtU, Ty::B32, size, four)
                }
            };
            let enable = self.buf_select(ok, need, f);
            dw.push(self.n(Node::LoadIf {
                space: Space::Global,
                access: Access::B32,
                addr: a,
                offset: 0,
                enable,
            }));
        }
        for (bytes, access) in [(2u64, Access::U16), (1, Access::U8)] {
            let need = match desc.static_size {
                Some(s) if s as u64 == bytes => self.c(Ty::B1, 1),
                Some(_) => continue,
                None => {
                    let b = self.c(Ty::B32, bytes);
                    self.icmp(IntCmp::Eq, Ty::B32, size, b)
                }
            };
            let enable = self.buf_select(ok, need, f);
            small.push(self.n(Node::LoadIf {
                space: Space::Global,
                access,
                addr: addrs[0],
                offset: 0,
                enable,
            }));
        }
        // Every access not performed reads 0, so the parts combine by OR.
        let z = self.c(Ty::B32, 0);
        let mut d0 = dw.first().copied().unwrap_or(z);
        for &x in &small {
            d0 = self.int(IntOp::Or, Ty::B32, d0, x);
        }
        let mut words = vec![d0];
        for j in 1..4 {
            words.push(dw.get(j).copied().unwrap_or(z));
        }
        // Channels, converted.
        let is_int = {
            let u = self.is_nf(desc.nf, Nfmt::Uint);
            let s = self.is_nf(desc.nf, Nfmt::Sint);
            self.buf_or(u, s)
        };
        let (one_i, one_f) = if t.d16 {
            (self.c(Ty::B32, 1), self.c(Ty::B32, 0x3c00))
        } else {
            (self.c(Ty::B32, 1), self.c(Ty::B32, 0x3f80_0000))
        };
        let one = self.buf_select(is_int, one_i, one_f);
        let mut chans = Vec::new();
        for c in 0..4 {
            let w = desc.w[c];
            let s = desc.s[c];
            let five = self.c(Ty::B32, 5);
            let which = self.int(IntOp::LShr, Ty::B32, s, five);
            let mut word = words[0];
            for (j, &wj) in words.iter().enumerate().skip(1) {
                let jc = self.c(Ty::B32, j as u64);
                let is = self.icmp(IntCmp::Eq, Ty::B32, which, jc);
                word = self.buf_select(is, wj, word);
            }
            let sh = self.int(IntOp::LShr, Ty::B32, word, s);
            let mask = self.chan_mask(w);
            let raw = self.int(IntOp::And, Ty::B32, sh, mask);
            let val = self.convert_load(desc.nf, raw, w, mask, t.d16);
            let zero = self.c(Ty::B32, 0);
            let absent = self.icmp(IntCmp::Eq, Ty::B32, w, zero);
            let default = if c == 3 { one } else { zero };
            chans.push(self.buf_select(absent, default, val));
        }
        // DST_SEL: 0 → 0, 1 → one, 4..7 → X..W.
        let mut comps = Vec::new();
        for &s in comps_idx.iter().map(|&c| &sel[c]) {
            let three = self.c(Ty::B32, 3);
            let ch = self.int(IntOp::And, Ty::B32, s, three);
            let mut v = chans[0];
            for (k, &ck) in chans.iter().enumerate().skip(1) {
                let kc = self.c(Ty::B32, k as u64);
                let is = self.icmp(IntCmp::Eq, Ty::B32, ch, kc);
                v = self.buf_select(is, ck, v);
            }
            let zero = self.c(Ty::B32, 0);
            let onec = self.c(Ty::B32, 1);
            let is0 = self.icmp(IntCmp::Eq, Ty::B32, s, zero);
            let is1 = self.icmp(IntCmp::Eq, Ty::B32, s, onec);
            let v = self.buf_select(is1, one, v);
            comps.push(self.buf_select(is0, zero, v));
        }
        comps
    }

    /// One channel's load conversion (`raw` its bits, `w` its width, `mask` = (1 << w) - 1).
    fn convert_load(&mut self, nf: Result<Nfmt, H>, raw: H, w: H, mask: H, d16: bool) -> H {
        let want = |k: Nfmt| nf.map_or(true, |x| x == k);
        let mut cases: Vec<(Nfmt, H)> = Vec::new();
        let sx = if want(Nfmt::Sint) || want(Nfmt::Sscaled) || want(Nfmt::Snorm) {
            Some(self.sext_w(raw, w))
        } else {
            None
        };
        let f32_to_16 = |s: &mut Self, x: H| {
            let h = s.un(UnOp::F32ToF16, Ty::B16, x);
            s.un(UnOp::ZExt, Ty::B32, h)
        };
        let z = self.c(Ty::B32, 0);
        if want(Nfmt::Unorm) {
            // Refused for d16 (Node::Refuse above); the value then does not matter.
            let v = if d16 {
                z
            } else {
                let a = self.un(UnOp::U32ToF32, Ty::B32, raw);
                let b = self.un(UnOp::U32ToF32, Ty::B32, mask);
                self.float(FloatOp::F32Div, a, b, a)
            };
            cases.push((Nfmt::Unorm, v));
        }
        if want(Nfmt::Snorm) {
            let v = if d16 {
                z
            } else {
                let sx = sx.expect("computed");
                let one = self.c(Ty::B32, 1);
                let half = self.int(IntOp::LShr, Ty::B32, mask, one);
                let a = self.un(UnOp::I32ToF32, Ty::B32, sx);
                let b = self.un(UnOp::U32ToF32, Ty::B32, half);
                let q = self.float(FloatOp::F32Div, a, b, a);
                let all = self.c(Ty::B32, 0xffff_ffff);
                let min = self.int(IntOp::Xor, Ty::B32, half, all);
                let is_min = self.icmp(IntCmp::Eq, Ty::B32, sx, min);
                let m1 = self.c(Ty::B32, 0xbf80_0000);
                self.buf_select(is_min, m1, q)
            };
            cases.push((Nfmt::Snorm, v));
        }
        if want(Nfmt::Uscaled) {
            let v = self.un(UnOp::U32ToF32, Ty::B32, raw);
            let v = if d16 { f32_to_16(self, v) } else { v };
            cases.push((Nfmt::Uscaled, v));
        }
        if want(Nfmt::Sscaled) {
            let v = self.un(UnOp::I32ToF32, Ty::B32, sx.expect("computed"));
            let v = if d16 { f32_to_16(self, v) } else { v };
            cases.push((Nfmt::Sscaled, v));
        }
        if want(Nfmt::Uint) {
            cases.push((Nfmt::Uint, raw));
        }
        if want(Nfmt::Sint) {
            cases.push((Nfmt::Sint, sx.expect("computed")));
        }
        if want(Nfmt::Float) {
            // 11- and 10-bit floats have f16's exponent and a shorter mantissa: shifted into f16 bits.
            let c11 = self.c(Ty::B32, 11);
            let c10 = self.c(Ty::B32, 10);
            let is11 = self.icmp(IntCmp::Eq, Ty::B32, w, c11);
            let is10 = self.icmp(IntCmp::Eq, Ty::B32, w, c10);
            let four = self.c(Ty::B32, 4);
            let five = self.c(Ty::B32, 5);
            let sh = self.buf_select(is10, five, z);
            let sh = self.buf_select(is11, four, sh);
            let h = self.int(IntOp::Shl, Ty::B32, raw, sh);
            let v = if d16 {
                h
            } else {
                let h16 = self.un(UnOp::Trunc, Ty::B16, h);
                let f = self.un(UnOp::F16ToF32, Ty::B32, h16);
                let c32 = self.c(Ty::B32, 32);
                let is32 = self.icmp(IntCmp::Eq, Ty::B32, w, c32);
                self.buf_select(is32, raw, f)
            };
            cases.push((Nfmt::Float, v));
        }
        self.by_nf(nf, &cases)
    }

    fn typed_store(
        &mut self,
        t: Typed,
        desc: &Desc,
        sel: &[H],
        data: &[H],
        addrs: &[H],
        ok: H,
    ) -> Result<(), LiftError> {
        // The components' 32-bit values: d16 halves extended by the numeric format (SINT sign-extends).
        let is_sint = self.is_nf(desc.nf, Nfmt::Sint);
        let vals: Vec<H> = (0..t.n as usize)
            .map(|i| {
                if !t.d16 {
                    return data[i];
                }
                let r = data[i / 2];
                let high = i % 2 == 1 || t.hi;
                let h = if high {
                    let s16 = self.c(Ty::B32, 16);
                    self.int(IntOp::LShr, Ty::B32, r, s16)
                } else {
                    r
                };
                let h16 = self.un(UnOp::Trunc, Ty::B16, h);
                let zx = self.un(UnOp::ZExt, Ty::B32, h16);
                let sx = self.un(UnOp::SExt, Ty::B32, h16);
                self.buf_select(is_sint, sx, zx)
            })
            .collect();
        // DST_SEL must be the identity on the stored channels; integers must fit their channel.
        let mut bad_sel = self.c(Ty::B1, 0);
        let mut out_of_range = self.c(Ty::B1, 0);
        let is_uint = self.is_nf(desc.nf, Nfmt::Uint);
        let mut elem = [None; 4];
        for c in 0..4usize {
            let w = desc.w[c];
            let zero = self.c(Ty::B32, 0);
            let present = self.icmp(IntCmp::Ne, Ty::B32, w, zero);
            if c >= t.n as usize {
                // Refused as a partial store when present (format_refusal).
                continue;
            }
            let want = self.c(Ty::B32, 4 + c as u64);
            let differs = self.icmp(IntCmp::Ne, Ty::B32, sel[c], want);
            let f = self.c(Ty::B1, 0);
            let b = self.buf_select(present, differs, f);
            bad_sel = self.buf_or(bad_sel, b);
            let v = vals[c];
            let mask = self.chan_mask(w);
            let over_u = self.icmp(IntCmp::GtU, Ty::B32, v, mask);
            let sx = self.sext_w(v, w);
            let over_s = self.icmp(IntCmp::Ne, Ty::B32, sx, v);
            let over = self.buf_select(is_uint, over_u, f);
            let over = self.buf_select(is_sint, over_s, over);
            let over = self.buf_select(present, over, f);
            out_of_range = self.buf_or(out_of_range, over);
            let bits = self.int(IntOp::And, Ty::B32, v, mask);
            let s = desc.s[c];
            let m31 = self.c(Ty::B32, 31);
            let bit = self.int(IntOp::And, Ty::B32, s, m31);
            elem[c] = Some((self.int(IntOp::Shl, Ty::B32, bits, bit), s));
        }
        self.n(Node::Refuse {
            cond: bad_sel,
            reason: R_DST_SEL,
        });
        self.n(Node::Refuse {
            cond: out_of_range,
            reason: R_RANGE,
        });
        let refused = self.buf_or(bad_sel, out_of_range);
        let refused = self.buf_or(refused, desc.refused);
        let f = self.c(Ty::B1, 0);
        let ok = self.buf_select(refused, f, ok);
        self.store_element(desc, &elem, addrs, ok, f);
        Ok(())
    }

    /// Stores an element whose channels `elem` hold (each its bits already shifted to its position within
    /// its dword, and its bit offset `s`): its dwords, then the stores (dword by dword, or one byte/short
    /// access) where `ok` holds; `f` is a B1 false.
    pub(super) fn store_element(
        &mut self,
        desc: &Desc,
        elem: &[Option<(H, H)>; 4],
        addrs: &[H],
        ok: H,
        f: H,
    ) {
        let z = self.c(Ty::B32, 0);
        let five = self.c(Ty::B32, 5);
        let mut words = Vec::new();
        for j in 0..addrs.len() {
            let jc = self.c(Ty::B32, j as u64);
            let mut x = z;
            for &(v, s) in elem.iter().flatten() {
                let which = self.int(IntOp::LShr, Ty::B32, s, five);
                let here = self.icmp(IntCmp::Eq, Ty::B32, which, jc);
                let part = self.buf_select(here, v, z);
                x = self.int(IntOp::Or, Ty::B32, x, part);
            }
            words.push(x);
        }
        for (j, (&a, &value)) in addrs.iter().zip(&words).enumerate() {
            let need = match desc.static_size {
                Some(s) if s < 4 => continue,
                Some(_) => self.c(Ty::B1, 1),
                None => {
                    let k = self.c(Ty::B32, 4 * j as u64 + 3);
                    self.icmp(IntCmp::GtU, Ty::B32, desc.size, k)
                }
            };
            let enable = self.buf_select(ok, need, f);
            self.n(Node::StoreIf {
                space: Space::Global,
                access: Access::B32,
                addr: a,
                offset: 0,
                value,
                enable,
            });
        }
        for (bytes, access) in [(2u64, Access::U16), (1, Access::U8)] {
            let need = match desc.static_size {
                Some(s) if s as u64 == bytes => self.c(Ty::B1, 1),
                Some(_) => continue,
                None => {
                    let b = self.c(Ty::B32, bytes);
                    self.icmp(IntCmp::Eq, Ty::B32, desc.size, b)
                }
            };
            let enable = self.buf_select(ok, need, f);
            self.n(Node::StoreIf {
                space: Space::Global,
                access,
                addr: addrs[0],
                offset: 0,
                value: words[0],
                enable,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table agrees with the format names the disassembler prints (LLVM's names): widths from the
    /// name's most significant end, numeric format from its suffix.
    #[test]
    fn unified_table_matches_format_names() {
        for fmt in 0..128u32 {
            let got = unified_format(fmt);
            let Some(name) = buf_format_name(fmt).filter(|n| *n != "INVALID") else {
                assert_eq!(got, None, "format {fmt}");
                continue;
            };
            let parts: Vec<&str> = name.split('_').collect();
            let (nf, widths) = parts.split_last().unwrap();
            let mut w = [0u32; 4];
            for (c, x) in widths.iter().rev().enumerate() {
                w[c] = x.parse().unwrap();
            }
            let nf = match *nf {
                "UNORM" => Nfmt::Unorm,
                "SNORM" => Nfmt::Snorm,
                "USCALED" => Nfmt::Uscaled,
                "SSCALED" => Nfmt::Sscaled,
                "UINT" => Nfmt::Uint,
                "SINT" => Nfmt::Sint,
                "FLOAT" => Nfmt::Float,
                x => panic!("{x}"),
            };
            assert_eq!(got, Some((w, nf)), "format {fmt} ({name})");
        }
    }
}
