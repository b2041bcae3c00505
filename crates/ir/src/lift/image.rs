//! Image instructions (MIMG) on storage images: `image_load`, `image_load_mip`, `image_store`,
//! `image_store_mip` and `image_get_resinfo` (decision D183). Like MUBUF (D030, D097), the resource is run-time
//! data: the T# is read from the instruction's eight SGPRs and every field the address, the range check
//! and the conversion need is decoded in IR, so one lifted instruction serves every descriptor, and the
//! evaluator and every lowering run the same composition of existing nodes (D025).
//!
//! T# (RDNA 2, gfx10.3; ISA guide "Image resource"), the fields read:
//! - word 0: BASE_ADDRESS[39:8]; word 1: BASE_ADDRESS[47:40] (bits 7:0), FORMAT (bits 28:20, the unified
//!   format table of D097), WIDTH−1 bits 1:0 (bits 31:30);
//! - word 2: WIDTH−1 bits 13:2 (bits 11:0), HEIGHT−1 (bits 27:14);
//! - word 3: DST_SEL_XYZW (bits 11:0), BASE_LEVEL (15:12), LAST_LEVEL (19:16), SW_MODE (24:20), TYPE (31:28:
//!   8 1D, 9 2D, 10 3D, 12 1D array, 13 2D array);
//! - word 4: DEPTH (bits 12:0: depth−1 for 3D, the last array slice for arrays), BASE_ARRAY (bits 28:16).
//!
//! Memory layout (D183; SW_MODE 0 only): the levels of the resource one after another from level 0, each
//! level `l` holding `max(1, W >> l) × max(1, H >> l) × max(1, D >> l)` texels (D only for 3D, H 1 for 1D
//! types) for every array slice 0..=DEPTH, x fastest, then y, then z or the slice; rows and slices are packed
//! (no padding). A texel is the format's element (1, 2, 4, 8, 12 or 16 bytes).
//!
//! Range (D183): a coordinate at or past its level's extent (as unsigned, so negative ones too), a slice
//! outside BASE_ARRAY..=DEPTH, or a level `BASE_LEVEL + lod` past LAST_LEVEL: a load reads a texel of zero
//! bits (then converted: present channels 0, absent ones their default), a store writes nothing.
//!
//! Loads convert as MUBUF format loads do (lift/format.rs, D097), then each component in `dmask` goes to the
//! next VGPR. Stores convert each channel of the format (all must be in `dmask`): UINT/SINT store the
//! integer (refused out of the channel's range), FLOAT stores 32 bits unchanged and 16 bits by
//! round-to-nearest-even (`v_cvt_f16_f32`'s rule), UNORM/SNORM clamp (NaN → 0) and round
//! `x × (2^n − 1)` / `x × (2^(n−1) − 1)` to the nearest integer, ties to even, computed exactly
//! ([`Lifter::round_scaled`]).
//!
//! Atomics (D183; the float ones D203): one `AtomicIf` on the texel's dword with D060's operation, so
//! `image_atomic_fmin`/`fmax`/`fcmpswap` have exactly the semantics of the global and buffer float atomics
//! (crates/eval/src/atomic.rs, lowered in crates/spirv/src/lower/atomic.rs): minNum/maxNum with -0 < +0,
//! float equality, denormals kept whatever MODE says. The compare-and-swap forms take {src, cmp} in
//! vdata, vdata+1 (dmask 0x3), the others dmask 0x1; float atomics need an r32 float texel, the integer
//! ones r32 uint/sint (swap and cmpswap also r32 float).

use super::format::{unified_format, Nfmt, Typed};
use super::{LiftError, Lifter};
use crate::{AtomicOp, FloatCmp, FloatOp, Handle, IntCmp, IntOp, Node, Space, Ty, UnOp};
use rdna2spv_isa::Opcode;

type H = Handle<Node>;

const R_FORMAT: &str =
    "the T#'s FORMAT is invalid or not modelled (0, or above 77: compressed and depth formats; D183)";
const R_STORE_SCALED: &str =
    "an image store to a USCALED/SSCALED format: not a Vulkan storage format, not modelled (D183)";
const R_STORE_PACKED: &str = "an image store to a packed format (channels of different widths, or 10/11-bit floats): not modelled (D183)";
const R_STORE_PARTIAL: &str =
    "an image store whose dmask leaves out a channel of the format: not modelled (D183)";
const R_TYPE: &str = "the T#'s TYPE does not match the instruction's dim (D183)";
const R_SW_MODE: &str =
    "the T# is not linear (SW_MODE is not 0): only D183's linear layout is modelled";

/// The image dimensions (the instruction's `dim` field), as far as they are modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    D1,
    D2,
    D3,
    D1Array,
    D2Array,
    /// A cube or cube array (sampling and gathering only, D196; storage cubes are 2-D arrays, D183).
    Cube,
}

impl Dim {
    /// The `dim` field's dimension; None for MSAA (not modelled).
    pub fn of(field: u32) -> Option<Dim> {
        Some(match field {
            0 => Dim::D1,
            1 => Dim::D2,
            2 => Dim::D3,
            3 => Dim::Cube,
            4 => Dim::D1Array,
            5 => Dim::D2Array,
            _ => return None,
        })
    }
    /// The T# TYPE of a resource of this dimension.
    pub fn rsrc_type(self) -> u32 {
        match self {
            Dim::D1 => 8,
            Dim::D2 => 9,
            Dim::D3 => 10,
            Dim::Cube => 11,
            Dim::D1Array => 12,
            Dim::D2Array => 13,
        }
    }
    /// Address coordinates (x, then y, then z or the slice).
    pub fn coords(self) -> usize {
        match self {
            Dim::D1 => 1,
            Dim::D2 | Dim::D1Array => 2,
            Dim::D3 | Dim::D2Array | Dim::Cube => 3,
        }
    }
    fn has_y(self) -> bool {
        matches!(self, Dim::D2 | Dim::D3 | Dim::D2Array | Dim::Cube)
    }
    fn array(self) -> bool {
        matches!(self, Dim::D1Array | Dim::D2Array)
    }
}

/// Why every image access of this kind with format `fmt` is refused, whatever the data (None: modelled).
pub fn image_format_refusal(fmt: u32, store: bool, dmask: u32) -> Option<&'static str> {
    let Some((w, nf)) = unified_format(fmt) else {
        return Some(R_FORMAT);
    };
    if !store {
        return None;
    }
    if matches!(nf, Nfmt::Uscaled | Nfmt::Sscaled) {
        return Some(R_STORE_SCALED);
    }
    let present: Vec<u32> = w.iter().copied().filter(|&x| x > 0).collect();
    if present
        .iter()
        .any(|&x| x != present[0] || ![8, 16, 32].contains(&x))
    {
        return Some(R_STORE_PACKED);
    }
    if (0..4).any(|c| w[c] > 0 && dmask >> c & 1 == 0) {
        return Some(R_STORE_PARTIAL);
    }
    None
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Load,
    Store,
    Resinfo,
    /// A 32-bit image atomic (its operation, D060's AtomicOp; the float ones D203).
    Atomic(AtomicOp),
}

const R_ATOMIC_FORMAT: &str = "an image atomic on a format other than r32 uint/sint (or r32 float for swap and cmpswap): not modelled (D183)";
const R_FLOAT_ATOMIC_FORMAT: &str = "a float image atomic (fmin, fmax, fcmpswap) on a format other than r32 float: not modelled (D203)";

/// Why an image atomic `op` is refused with format `fmt` (None: modelled). The float atomics (D203) take
/// r32 float only (what Vulkan's float image atomics use); the integer ones r32 uint/sint, and r32 float
/// for the bitwise swap and cmpswap (D183).
pub fn atomic_format_refusal(fmt: u32, op: AtomicOp) -> Option<&'static str> {
    let float_op = matches!(op, AtomicOp::FMin | AtomicOp::FMax | AtomicOp::FCmpSwap);
    match (fmt, op) {
        (22, _) if float_op => None,
        _ if float_op => Some(R_FLOAT_ATOMIC_FORMAT),
        (20 | 21, _) => None,
        (22, AtomicOp::Swap | AtomicOp::CmpSwap) => None,
        _ => Some(R_ATOMIC_FORMAT),
    }
}

/// A MIMG instruction's fields (RDNA 2 ISA guide, "MIMG"), as [`Lifter::mimg_fields`] decodes them.
pub(super) struct MimgFields {
    /// NSA dwords after the first two (0: the address VGPRs are consecutive from `vaddr0`).
    pub(super) nsa: u32,
    /// The `dim` field (0 1D, 1 2D, 2 3D, 3 cube, 4 1D array, 5 2D array, 6/7 MSAA).
    pub(super) dim_field: u32,
    pub(super) dmask: u32,
    /// The `unorm` bit (a sampler matter).
    pub(super) unorm: u32,
    /// `glc`: an atomic returns the old value.
    pub(super) glc: bool,
    pub(super) vaddr0: u16,
    pub(super) vdata: u16,
    /// The first SGPR of the T# and of the S#.
    pub(super) srsrc: u16,
    pub(super) ssamp: u16,
}

/// The T# fields the lifter uses (all Uniform B32 unless noted).
pub(super) struct Tsharp {
    /// Base address (B64).
    pub(super) base: H,
    pub(super) fmt: H,
    pub(super) width: H,
    pub(super) height: H,
    pub(super) sel: Vec<H>,
    pub(super) base_level: H,
    pub(super) last_level: H,
    pub(super) depth: H,
    pub(super) base_array: H,
}

impl Lifter<'_> {
    /// Lifts a MIMG instruction: the storage-image forms above, every other one refused by name.
    pub(super) fn image(&mut self) -> Result<(), LiftError> {
        use Opcode::*;
        let op = self.ins.opcode();
        let (kind, mip) = match op {
            IMAGE_LOAD => (Kind::Load, false),
            IMAGE_LOAD_MIP => (Kind::Load, true),
            IMAGE_STORE => (Kind::Store, false),
            IMAGE_STORE_MIP => (Kind::Store, true),
            IMAGE_GET_RESINFO => (Kind::Resinfo, true),
            IMAGE_SAMPLE_LZ => return self.image_sample(false),
            IMAGE_SAMPLE_L => return self.image_sample(true),
            IMAGE_GATHER4_LZ | IMAGE_GATHER4_LZ_O | IMAGE_GATHER4_C_LZ | IMAGE_GATHER4_C_LZ_O
            | IMAGE_GATHER4_L | IMAGE_GATHER4_L_O | IMAGE_GATHER4_C_L | IMAGE_GATHER4_C_L_O => {
                let n = op.name();
                let lod = if n.contains("_lz") {
                    super::sample::GatherLod::Zero
                } else {
                    super::sample::GatherLod::Explicit
                };
                return self.image_gather4(lod, n.contains("_c_"), n.ends_with("_o"));
            }
            IMAGE_GATHER4H => {
                return self.unsupported_mimg(
                    "image_gather4h (four texels of one row) is not modelled; the _lz and _l gathers are (D190)",
                )
            }
            _ if op.name().starts_with("image_gather4") => {
                return self.unsupported_mimg(&format!(
                    "{}: a gather with an implicit (derivative) LOD, a bias or a LOD clamp is not modelled; \
                     the _lz and _l forms are (D190)",
                    op.name()
                ))
            }
            _ if op.name().starts_with("image_atomic_") => {
                let form = op
                    .name()
                    .strip_prefix("image_atomic_")
                    .and_then(super::atomic::vmem_form);
                match form {
                    Some((aop, false)) => (Kind::Atomic(aop), false),
                    _ => {
                        return self.unsupported_mimg(&format!(
                            "{}: not a 32-bit image atomic form this lifter knows (D183)",
                            op.name()
                        ))
                    }
                }
            }
            _ if op.name().starts_with("image_sample") => {
                return self.image_sample_named(op.name())
            }
            _ => {
                return self.unsupported_mimg(&format!(
                    "{} is not lifted: only storage-image loads, stores, atomics and get_resinfo are modelled (D183, D203); \
                     sampling, gather, packed and MSAA forms are not",
                    op.name()
                ))
            }
        };
        let m = self.mimg_fields()?;
        let Some(dim) = Dim::of(m.dim_field).filter(|&d| d != Dim::Cube) else {
            return self.unsupported_mimg("cube and MSAA image dimensions are not modelled (D183)");
        };
        let (dmask, vdata) = (m.dmask, m.vdata);
        self.mimg_dmask_nonzero(&m)?;
        if let Kind::Atomic(aop) = kind {
            let want = if aop.two_data() { 3 } else { 1 };
            if dmask != want {
                return self.unsupported_mimg(&format!(
                    "an image atomic with dmask {dmask:#x} (a 32-bit atomic has {want:#x}): not modelled (D183)"
                ));
            }
        }
        let naddr = match kind {
            Kind::Resinfo => 1,
            _ => dim.coords() + mip as usize,
        };
        let ndata = dmask.count_ones() as u16;
        // Every form reads or writes one VGPR per dmask bit from vdata.
        let addr_regs = self.mimg_addr_regs(&m, naddr, ndata)?;
        // Reads first: the T#, the address, the data.
        let ts = self.tsharp(m.srsrc, dim);
        let addr: Vec<H> = addr_regs
            .iter()
            .map(|&reg| self.n(Node::ReadVgpr { reg, ty: Ty::B32 }))
            .collect();
        let data: Vec<H> = if matches!(kind, Kind::Store | Kind::Atomic(_)) {
            (0..ndata)
                .map(|i| {
                    self.n(Node::ReadVgpr {
                        reg: vdata + i,
                        ty: Ty::B32,
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        let lod = if mip { Some(addr[naddr - 1]) } else { None };
        // The level and whether it exists.
        let z = self.c(Ty::B32, 0);
        let lod_v = lod.unwrap_or(z);
        let level = self.int(IntOp::Add, Ty::B32, ts.base_level, lod_v);
        let span = self.int(IntOp::Sub, Ty::B32, ts.last_level, ts.base_level);
        let lod_ok = self.icmp(IntCmp::LeU, Ty::B32, lod_v, span);
        let order_ok = self.icmp(IntCmp::LeU, Ty::B32, ts.base_level, ts.last_level);
        let f = self.c(Ty::B1, 0);
        let level_ok = self.buf_select(order_ok, lod_ok, f);
        // Extents of the level: max(1, E >> level).
        let one = self.c(Ty::B32, 1);
        let wl = self.level_extent(ts.width, level);
        let hl = if dim.has_y() {
            self.level_extent(ts.height, level)
        } else {
            one
        };
        let dl = if dim == Dim::D3 {
            let d = self.int(IntOp::Add, Ty::B32, ts.depth, one);
            self.level_extent(d, level)
        } else {
            one
        };
        let layers = if dim.array() {
            self.int(IntOp::Add, Ty::B32, ts.depth, one)
        } else {
            one
        };
        if kind == Kind::Resinfo {
            return self.resinfo(&ts, dim, dmask, vdata, level_ok, [wl, hl, dl, layers]);
        }
        let t = Typed {
            store: kind == Kind::Store,
            d16: false,
            hi: false,
            n: ndata as u32,
        };
        // The format (a run-time value) and its refusals.
        let fmt7 = self.buf_field(ts.fmt, 0, 0x7f);
        let c127 = self.c(Ty::B32, 127);
        let wide = self.icmp(IntCmp::GtU, Ty::B32, ts.fmt, c127);
        self.n(Node::Refuse {
            cond: wide,
            reason: R_FORMAT,
        });
        let mut desc = match kind {
            Kind::Atomic(aop) => self.runtime_desc(fmt7, |x| atomic_format_refusal(x, aop)),
            _ => self.runtime_desc(fmt7, |x| image_format_refusal(x, t.store, dmask)),
        };
        desc.refused = self.buf_or(desc.refused, wide);
        // The texel's index within its level, and the range check.
        let x = addr[0];
        let mut ok = self.icmp(IntCmp::LtU, Ty::B32, x, wl);
        ok = self.buf_select(ok, level_ok, f);
        let (yy, slice) = match dim {
            Dim::D1 => (z, z),
            Dim::D1Array => (z, addr[1]),
            Dim::D2 => (addr[1], z),
            // A cube is refused before this (storage cubes are 2-D arrays, D183).
            Dim::D3 | Dim::D2Array | Dim::Cube => (addr[1], addr[2]),
        };
        if dim.has_y() {
            let in_y = self.icmp(IntCmp::LtU, Ty::B32, yy, hl);
            ok = self.buf_select(ok, in_y, f);
        }
        let zidx = if dim == Dim::D3 {
            let in_z = self.icmp(IntCmp::LtU, Ty::B32, slice, dl);
            ok = self.buf_select(ok, in_z, f);
            slice
        } else if dim.array() {
            let room = self.int(IntOp::Sub, Ty::B32, ts.depth, ts.base_array);
            let in_s = self.icmp(IntCmp::LeU, Ty::B32, slice, room);
            let has = self.icmp(IntCmp::LeU, Ty::B32, ts.base_array, ts.depth);
            let in_s = self.buf_select(has, in_s, f);
            ok = self.buf_select(ok, in_s, f);
            self.int(IntOp::Add, Ty::B32, ts.base_array, slice)
        } else {
            z
        };
        // Byte address: base + level offset + ((zidx * hl + y) * wl + x) * size.
        let z64 = |s: &mut Self, v: H| s.un(UnOp::ZExt, Ty::B64, v);
        let size64 = z64(self, desc.size);
        let off = self.level_offset(&ts, dim, level, size64, layers);
        let (zi, hl64, yy64, wl64, x64) = (
            z64(self, zidx),
            z64(self, hl),
            z64(self, yy),
            z64(self, wl),
            z64(self, x),
        );
        let t1 = self.int(IntOp::Mul, Ty::B64, zi, hl64);
        let t1 = self.int(IntOp::Add, Ty::B64, t1, yy64);
        let t1 = self.int(IntOp::Mul, Ty::B64, t1, wl64);
        let t1 = self.int(IntOp::Add, Ty::B64, t1, x64);
        let t1 = self.int(IntOp::Mul, Ty::B64, t1, size64);
        let a = self.int(IntOp::Add, Ty::B64, ts.base, off);
        let a = self.int(IntOp::Add, Ty::B64, a, t1);
        let addrs: Vec<H> = (0..4u64)
            .map(|j| {
                let k = self.c(Ty::B64, 4 * j);
                self.int(IntOp::Add, Ty::B64, a, k)
            })
            .collect();
        let comps: Vec<usize> = (0..4).filter(|c| dmask >> c & 1 != 0).collect();
        if kind == Kind::Load {
            return self.typed_load(t, &desc, &ts.sel, &comps, &data, &addrs, ok, vdata);
        }
        if let Kind::Atomic(aop) = kind {
            // One dword at the texel; out of range (or refused) nothing changes and 0 returns. glc returns
            // the old value in vdata.
            let enable = self.buf_select(desc.refused, f, ok);
            let old = self.n(Node::AtomicIf {
                space: Space::Global,
                op: aop,
                addr: a,
                offset: 0,
                value: data[0],
                data1: aop.two_data().then(|| data[1]),
                enable,
            });
            if m.glc {
                self.write_v(vdata, old);
            }
            return Ok(());
        }
        self.image_store(&desc, &ts.sel, &comps, &data, &addrs, ok)
    }

    /// A lift-time refusal of an image instruction, named as MIMG.
    pub(super) fn unsupported_mimg<T>(&self, reason: &str) -> Result<T, LiftError> {
        self.unsupported(&format!("image instruction (MIMG): {reason}"))
    }

    /// The MIMG fields of this instruction's words, decoded once for every image form (storage images,
    /// sampling, gathering; D196), and the lift-time refusals they all share: r128, tfe/lwe, a16 and
    /// d16 (D183). The dim, dmask and address-count rules stay with each form.
    pub(super) fn mimg_fields(&self) -> Result<MimgFields, LiftError> {
        let (w0, w1) = (self.w(0), self.w(1));
        if w0 >> 15 & 1 != 0 {
            return self.unsupported_mimg("r128 (a 128-bit T#) is not modelled (D183)");
        }
        if w0 >> 16 & 3 != 0 {
            return self.unsupported_mimg(
                "tfe/lwe (texture fail and LOD warning results) are not modelled (D183)",
            );
        }
        if w1 >> 30 & 1 != 0 {
            return self.unsupported_mimg("a16 (16-bit image addresses) is not modelled (D183)");
        }
        if w1 >> 31 & 1 != 0 {
            return self.unsupported_mimg("d16 (16-bit image data) is not modelled (D183)");
        }
        Ok(MimgFields {
            nsa: (w0 >> 1) & 3,
            dim_field: (w0 >> 3) & 7,
            dmask: (w0 >> 8) & 0xf,
            unorm: (w0 >> 12) & 1,
            glc: w0 >> 13 & 1 != 0,
            vaddr0: (w1 & 0xff) as u16,
            vdata: ((w1 >> 8) & 0xff) as u16,
            srsrc: (((w1 >> 16) & 0x1f) * 4) as u16,
            ssamp: (((w1 >> 21) & 0x1f) * 4) as u16,
        })
    }

    /// The refusal of `dmask` 0 (storage images and sampling; a gather names its own dmask rule).
    pub(super) fn mimg_dmask_nonzero(&self, m: &MimgFields) -> Result<(), LiftError> {
        if m.dmask == 0 {
            return self
                .unsupported_mimg("an image instruction with dmask 0 is not modelled (D183)");
        }
        Ok(())
    }

    /// The `naddr` address VGPRs: consecutive from vaddr0, or vaddr0 then the NSA dwords' bytes; refused
    /// when an NSA list is shorter than `naddr` (D191) or an address or the `ndata` data VGPRs pass v255.
    pub(super) fn mimg_addr_regs(
        &self,
        m: &MimgFields,
        naddr: usize,
        ndata: u16,
    ) -> Result<Vec<u16>, LiftError> {
        if m.nsa != 0 && naddr > 1 + 4 * m.nsa as usize {
            return self.unsupported_mimg(
                "the NSA address list is shorter than the form's address operands (D191)",
            );
        }
        let regs: Vec<u16> = (0..naddr)
            .map(|k| {
                if m.nsa == 0 || k == 0 {
                    m.vaddr0 + k as u16
                } else {
                    let b = k - 1;
                    ((self.w(2 + b / 4) >> (8 * (b % 4))) & 0xff) as u16
                }
            })
            .collect();
        if regs.iter().any(|&r| r > 255) || m.vdata + ndata > 256 {
            return self.unsupported_mimg("an address or data VGPR tuple passes v255");
        }
        Ok(regs)
    }

    pub(super) fn tsharp(&mut self, srsrc: u16, dim: Dim) -> Tsharp {
        let d: Vec<H> = (0..5).map(|i| self.read_s(srsrc + i, Ty::B32)).collect();
        let hi = self.buf_field(d[1], 0, 0xff);
        let b = self.n(Node::Concat { lo: d[0], hi });
        let eight = self.c(Ty::B64, 8);
        let base = self.int(IntOp::Shl, Ty::B64, b, eight);
        let fmt = self.buf_field(d[1], 20, 0x1ff);
        let wlo = self.buf_field(d[1], 30, 3);
        let whi = self.buf_field(d[2], 0, 0xfff);
        let two = self.c(Ty::B32, 2);
        let whi = self.int(IntOp::Shl, Ty::B32, whi, two);
        let w = self.int(IntOp::Or, Ty::B32, wlo, whi);
        let one = self.c(Ty::B32, 1);
        let width = self.int(IntOp::Add, Ty::B32, w, one);
        let h = self.buf_field(d[2], 14, 0x3fff);
        let height = self.int(IntOp::Add, Ty::B32, h, one);
        let sel: Vec<H> = (0..4).map(|i| self.buf_field(d[3], 3 * i, 7)).collect();
        let base_level = self.buf_field(d[3], 12, 0xf);
        let last_level = self.buf_field(d[3], 16, 0xf);
        let sw_mode = self.buf_field(d[3], 20, 0x1f);
        let ty = self.buf_field(d[3], 28, 0xf);
        let depth = self.buf_field(d[4], 0, 0x1fff);
        let base_array = self.buf_field(d[4], 16, 0x1fff);
        let want = self.c(Ty::B32, dim.rsrc_type() as u64);
        let bad_type = self.icmp(IntCmp::Ne, Ty::B32, ty, want);
        self.n(Node::Refuse {
            cond: bad_type,
            reason: R_TYPE,
        });
        let tiled = self.nonzero(Ty::B32, sw_mode);
        self.n(Node::Refuse {
            cond: tiled,
            reason: R_SW_MODE,
        });
        Tsharp {
            base,
            fmt,
            width,
            height,
            sel,
            base_level,
            last_level,
            depth,
            base_array,
        }
    }

    /// `max(1, e >> level)`.
    pub(super) fn level_extent(&mut self, e: H, level: H) -> H {
        let s = self.int(IntOp::LShr, Ty::B32, e, level);
        let one = self.c(Ty::B32, 1);
        self.int(IntOp::MaxU, Ty::B32, s, one)
    }

    /// The byte offset of `level` (B64): the sizes of the levels before it (at most 15).
    pub(super) fn level_offset(
        &mut self,
        ts: &Tsharp,
        dim: Dim,
        level: H,
        size64: H,
        layers: H,
    ) -> H {
        let one = self.c(Ty::B32, 1);
        let layers64 = self.un(UnOp::ZExt, Ty::B64, layers);
        let per_texels = self.int(IntOp::Mul, Ty::B64, size64, layers64);
        let mut off = self.c(Ty::B64, 0);
        for k in 0..15u64 {
            let kc = self.c(Ty::B32, k);
            let w = self.level_extent(ts.width, kc);
            let mut n = self.un(UnOp::ZExt, Ty::B64, w);
            if dim.has_y() {
                let h = self.level_extent(ts.height, kc);
                let h = self.un(UnOp::ZExt, Ty::B64, h);
                n = self.int(IntOp::Mul, Ty::B64, n, h);
            }
            if dim == Dim::D3 {
                let d = self.int(IntOp::Add, Ty::B32, ts.depth, one);
                let d = self.level_extent(d, kc);
                let d = self.un(UnOp::ZExt, Ty::B64, d);
                n = self.int(IntOp::Mul, Ty::B64, n, d);
            }
            let bytes = self.int(IntOp::Mul, Ty::B64, n, per_texels);
            let before = self.icmp(IntCmp::LtU, Ty::B32, kc, level);
            let z = self.c(Ty::B64, 0);
            let add = self.buf_select(before, bytes, z);
            off = self.int(IntOp::Add, Ty::B64, off, add);
        }
        off
    }

    /// `image_get_resinfo`: for the level `BASE_LEVEL + lod`, (width, height, depth or slices, levels) as
    /// integers, the components in `dmask` to consecutive VGPRs; 1D arrays give the slices as y. A level
    /// past LAST_LEVEL gives 0 for the first three (D183).
    fn resinfo(
        &mut self,
        ts: &Tsharp,
        dim: Dim,
        dmask: u32,
        vdata: u16,
        level_ok: H,
        [wl, hl, dl, layers]: [H; 4],
    ) -> Result<(), LiftError> {
        let one = self.c(Ty::B32, 1);
        let z = self.c(Ty::B32, 0);
        let slices = self.int(IntOp::Sub, Ty::B32, layers, ts.base_array);
        let (y, zc) = match dim {
            Dim::D1 => (one, one),
            Dim::D2 => (hl, one),
            Dim::D3 => (hl, dl),
            Dim::D1Array => (slices, one),
            Dim::D2Array | Dim::Cube => (hl, slices),
        };
        let span = self.int(IntOp::Sub, Ty::B32, ts.last_level, ts.base_level);
        let levels = self.int(IntOp::Add, Ty::B32, span, one);
        let vals = [wl, y, zc, levels];
        let mut reg = vdata;
        for (c, &v) in vals.iter().enumerate() {
            if dmask >> c & 1 == 0 {
                continue;
            }
            let v = if c < 3 {
                self.buf_select(level_ok, v, z)
            } else {
                v
            };
            self.write_v(reg, v);
            reg += 1;
        }
        Ok(())
    }

    /// An image store: each channel of the format converted (see the module documentation), refusals
    /// checked, then the element written where `ok` holds.
    fn image_store(
        &mut self,
        desc: &super::format::Desc,
        sel: &[H],
        comps: &[usize],
        data: &[H],
        addrs: &[H],
        ok: H,
    ) -> Result<(), LiftError> {
        let is_uint = self.is_nf(desc.nf, Nfmt::Uint);
        let is_sint = self.is_nf(desc.nf, Nfmt::Sint);
        let mut bad_sel = self.c(Ty::B1, 0);
        let mut out_of_range = self.c(Ty::B1, 0);
        let f = self.c(Ty::B1, 0);
        let mut elem = [None; 4];
        for (c, slot) in elem.iter_mut().enumerate() {
            // Channels outside dmask are refused by format (image_format_refusal) when present.
            let Some(i) = comps.iter().position(|&k| k == c) else {
                continue;
            };
            let w = desc.w[c];
            let zero = self.c(Ty::B32, 0);
            let present = self.icmp(IntCmp::Ne, Ty::B32, w, zero);
            let want = self.c(Ty::B32, 4 + c as u64);
            let differs = self.icmp(IntCmp::Ne, Ty::B32, sel[c], want);
            let b = self.buf_select(present, differs, f);
            bad_sel = self.buf_or(bad_sel, b);
            let v = data[i];
            let mask = self.chan_mask(w);
            // Integers: must fit the channel.
            let over_u = self.icmp(IntCmp::GtU, Ty::B32, v, mask);
            let sx = self.sext_w(v, w);
            let over_s = self.icmp(IntCmp::Ne, Ty::B32, sx, v);
            let over = self.buf_select(is_uint, over_u, f);
            let over = self.buf_select(is_sint, over_s, over);
            let over = self.buf_select(present, over, f);
            out_of_range = self.buf_or(out_of_range, over);
            // Floats: 32 bits unchanged, 16 bits rounded to nearest even.
            let h = self.un(UnOp::F32ToF16, Ty::B16, v);
            let h = self.un(UnOp::ZExt, Ty::B32, h);
            let c16 = self.c(Ty::B32, 16);
            let is16 = self.icmp(IntCmp::Eq, Ty::B32, w, c16);
            let fv = self.buf_select(is16, h, v);
            let un = self.unorm_encode(v, mask);
            let sn = self.snorm_encode(v, mask);
            let bits = self.by_nf(
                desc.nf,
                &[
                    (Nfmt::Unorm, un),
                    (Nfmt::Snorm, sn),
                    (Nfmt::Uint, v),
                    (Nfmt::Sint, v),
                    (Nfmt::Float, fv),
                ],
            );
            let bits = self.int(IntOp::And, Ty::B32, bits, mask);
            let s = desc.s[c];
            let m31 = self.c(Ty::B32, 31);
            let bit = self.int(IntOp::And, Ty::B32, s, m31);
            *slot = Some((self.int(IntOp::Shl, Ty::B32, bits, bit), s));
        }
        self.n(Node::Refuse {
            cond: bad_sel,
            reason: "the T#'s DST_SEL is not the identity on a stored channel: not modelled (D183)",
        });
        self.n(Node::Refuse {
            cond: out_of_range,
            reason: "an image store of an integer outside the range of its UINT/SINT channel: not modelled (D183)",
        });
        let refused = self.buf_or(bad_sel, out_of_range);
        let refused = self.buf_or(refused, desc.refused);
        let ok = self.buf_select(refused, f, ok);
        self.store_element(desc, &elem, addrs, ok, f);
        Ok(())
    }

    /// f32 bits `v` to an unsigned normalized integer of mask `mask` = 2^n − 1 (n ≤ 16): NaN and x ≤ 0 give
    /// 0, x ≥ 1 gives `mask`, else `x × mask` rounded to nearest, ties to even.
    fn unorm_encode(&mut self, v: H, mask: H) -> H {
        let k = self.un(UnOp::U32ToF32, Ty::B32, mask);
        let zf = self.c(Ty::B32, 0);
        let onef = self.c(Ty::B32, 0x3f80_0000);
        let pos = self.n(Node::FloatCmp {
            op: FloatCmp::Gt,
            ty: Ty::B32,
            a: v,
            b: zf,
        });
        let ge1 = self.n(Node::FloatCmp {
            op: FloatCmp::Ge,
            ty: Ty::B32,
            a: v,
            b: onef,
        });
        let r = self.round_scaled(v, k);
        let z = self.c(Ty::B32, 0);
        let r = self.buf_select(pos, r, z);
        self.buf_select(ge1, mask, r)
    }

    /// f32 bits `v` to a signed normalized integer of `mask` = 2^n − 1 (n ≤ 16), as its low n bits: NaN gives
    /// 0, |x| ≥ 1 gives ±(2^(n−1) − 1), else `x × (2^(n−1) − 1)` rounded to nearest, ties to even.
    fn snorm_encode(&mut self, v: H, mask: H) -> H {
        let one = self.c(Ty::B32, 1);
        let half = self.int(IntOp::LShr, Ty::B32, mask, one);
        let k = self.un(UnOp::U32ToF32, Ty::B32, half);
        let a = self.un(UnOp::FAbs, Ty::B32, v);
        let zf = self.c(Ty::B32, 0);
        let onef = self.c(Ty::B32, 0x3f80_0000);
        let neg = self.n(Node::FloatCmp {
            op: FloatCmp::Lt,
            ty: Ty::B32,
            a: v,
            b: zf,
        });
        let nan = self.n(Node::FloatCmp {
            op: FloatCmp::U,
            ty: Ty::B32,
            a: v,
            b: v,
        });
        let ge1 = self.n(Node::FloatCmp {
            op: FloatCmp::Ge,
            ty: Ty::B32,
            a,
            b: onef,
        });
        let r = self.round_scaled(a, k);
        let m = self.buf_select(ge1, half, r);
        let z = self.c(Ty::B32, 0);
        let m = self.buf_select(nan, z, m);
        let nm = self.int(IntOp::Sub, Ty::B32, z, m);
        self.buf_select(neg, nm, m)
    }

    /// `x × k` rounded to the nearest integer, ties to even, exactly (x ≥ 0 finite f32, k an integer-valued
    /// f32, `x × k` < 2^17; B32 integer result). `t` = RN(x·k) is exact to within one rounding and
    /// `e = fma(x, k, −t)` is the exact error, so `t`'s fraction decides except at an exact half, where
    /// the sign of `e` (and, when zero, the parity) does: every half-integer below 2^17 is an f32, so a
    /// product that is not a tie cannot round to one on the wrong side.
    pub(super) fn round_scaled(&mut self, x: H, k: H) -> H {
        let t = self.float(FloatOp::F32Mul, x, k, x);
        let nt = self.un(UnOp::FNeg, Ty::B32, t);
        let e = self.float(FloatOp::F32Fma, x, k, nt);
        let fl = self.un(UnOp::F32ToU32, Ty::B32, t);
        let flf = self.un(UnOp::U32ToF32, Ty::B32, fl);
        let frac = self.float(FloatOp::F32Sub, t, flf, t);
        let halff = self.c(Ty::B32, 0x3f00_0000);
        let zf = self.c(Ty::B32, 0);
        let cmp = |s: &mut Self, op, a, b| {
            s.n(Node::FloatCmp {
                op,
                ty: Ty::B32,
                a,
                b,
            })
        };
        let gt = cmp(self, FloatCmp::Gt, frac, halff);
        let eq = cmp(self, FloatCmp::Eq, frac, halff);
        let epos = cmp(self, FloatCmp::Gt, e, zf);
        let ezero = cmp(self, FloatCmp::Eq, e, zf);
        let one = self.c(Ty::B32, 1);
        let lsb = self.int(IntOp::And, Ty::B32, fl, one);
        let odd = self.nonzero(Ty::B32, lsb);
        let f = self.c(Ty::B1, 0);
        let even_up = self.buf_select(ezero, odd, f);
        let tie_up = self.buf_or(epos, even_up);
        let tie = self.buf_select(eq, tie_up, f);
        let up = self.buf_or(gt, tie);
        let z = self.c(Ty::B32, 0);
        let inc = self.buf_select(up, one, z);
        self.int(IntOp::Add, Ty::B32, fl, inc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The store refusals: the Vulkan storage formats of 8-, 16- and 32-bit channels are modelled, scaled
    /// and packed formats and partial dmasks are not; loads take every valid format.
    #[test]
    fn store_formats() {
        // 8_8_8_8 UNORM (56), 32_FLOAT (22), 16_16_16_16_FLOAT (71), 16_16 SNORM (24).
        for f in [
            56, 57, 60, 61, 22, 20, 21, 71, 65, 66, 24, 75, 76, 77, 1, 7, 13,
        ] {
            assert_eq!(image_format_refusal(f, true, 0xf), None, "{f}");
        }
        assert_eq!(image_format_refusal(58, true, 0xf), Some(R_STORE_SCALED));
        assert_eq!(image_format_refusal(30, true, 0xf), Some(R_STORE_PACKED));
        assert_eq!(image_format_refusal(50, true, 0xf), Some(R_STORE_PACKED));
        assert_eq!(image_format_refusal(56, true, 0x7), Some(R_STORE_PARTIAL));
        assert_eq!(image_format_refusal(22, true, 0x1), None);
        assert_eq!(image_format_refusal(0, false, 0xf), Some(R_FORMAT));
        assert_eq!(image_format_refusal(78, false, 0xf), Some(R_FORMAT));
        for f in 1..=77 {
            assert_eq!(image_format_refusal(f, false, 0x1), None, "{f}");
        }
    }
}

#[cfg(test)]
mod lift_tests {
    use crate::lift::{lift, LiftError, LiftOptions};
    use rdna2spv_isa::Target;

    /// Every storage-image opcode, image_sample_l/_lz (D187) and D191's sampling forms with every dim, dmask, NSA size and the flag bits, at register numbers up
    /// to v255/s100: the lifter returns a program or a named refusal, never panics.
    #[test]
    fn every_field_combination_lifts_or_is_refused_by_name() {
        let ops = [
            0x00u32, 0x01, 0x08, 0x09, 0x0e, 0x0f, 0x10, 0x11, 0x18, 0x1c, 0x24, 0x27,
            // D191: sampling forms with offsets, compare, gradients, g16, clamps; bias (refused).
            0x22, 0x25, 0x2a, 0x2f, 0x37, 0x3b, 0x3c, 0xa2, 0xbb,
        ];
        let mut lifted = 0;
        for op in ops {
            for dim in 0..8u32 {
                for dmask in 0..16u32 {
                    for nsa in 0..2u32 {
                        for (vaddr, vdata) in [(0u32, 8u32), (250, 253), (255, 0)] {
                            for flags in [0u32, 1 << 12 | 1 << 13, 1 << 16] {
                                let w0 = 0xf000_0000
                                    | (op & 0x7f) << 18
                                    | (op >> 7)
                                    | nsa << 1
                                    | dim << 3
                                    | dmask << 8
                                    | flags;
                                let w1 = vaddr | vdata << 8 | 2 << 16;
                                let mut words = vec![w0, w1];
                                if nsa == 1 {
                                    words.push(0x0302_0104);
                                }
                                words.push(0xbf81_0000);
                                let code: Vec<u8> =
                                    words.iter().flat_map(|w| w.to_le_bytes()).collect();
                                let opts = LiftOptions {
                                    target: Target::Gfx1030,
                                    wave_size: 32,
                                    private_segment_buffer: None,
                                };
                                match lift("k", &code, opts) {
                                    Ok(p) => {
                                        crate::verify::verify(&p).expect("verifies");
                                        lifted += 1;
                                    }
                                    Err(LiftError::Unsupported { reason, .. }) => {
                                        assert!(!reason.is_empty())
                                    }
                                    Err(_) => {}
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(lifted > 1000, "{lifted} lifted");
    }
}
