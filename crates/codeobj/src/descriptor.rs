//! The 64-byte HSA kernel descriptor (code object v3 and later) and the register ABI it implies.
//!
//! Layout (byte offsets, little-endian; LLVM `AMDGPUUsage.rst`, "Kernel Descriptor"):
//! 0 group_segment_fixed_size u32, 4 private_segment_fixed_size u32, 8 kernarg_size u32,
//! 12 reserved (4), 16 kernel_code_entry_byte_offset i64 (relative to the descriptor's address),
//! 24 reserved (20), 44 compute_pgm_rsrc3 u32, 48 compute_pgm_rsrc1 u32, 52 compute_pgm_rsrc2 u32,
//! 56 kernel_code_properties u16, 58 kernarg_preload u16, 60 reserved (4).
//!
//! Every field is decoded and every reserved bit kept: nothing is rejected (LLVM 19's own
//! disassembler refuses descriptors that LLVM 19's compiler writes, because the compiler fills
//! the SGPR granule field that gfx10 documents as reserved).

use serde::Serialize;
use std::fmt;

/// Size of a kernel descriptor in bytes.
pub const KERNEL_DESCRIPTOR_SIZE: usize = 64;

/// The hardware grants a workgroup LDS in blocks of 128 dwords on gfx7 and later, gfx10 included
/// (COMPUTE_PGM_RSRC2.LDS_SIZE counts these blocks; LLVM's AMDGPU backend aligns a kernel's LDS size to
/// 1 << 9 bytes before it counts them). A dispatch's group segment is rounded up to whole blocks.
pub const LDS_GRANULE_BYTES: u32 = 512;

/// The LDS the hardware grants a workgroup whose group segment (static plus dynamic) is `bytes`: whole
/// [`LDS_GRANULE_BYTES`] blocks (`u32::MAX` where that does not fit; no gfx10 workgroup has over 64 KiB).
pub fn lds_granted(bytes: u32) -> u32 {
    bytes
        .div_ceil(LDS_GRANULE_BYTES)
        .saturating_mul(LDS_GRANULE_BYTES)
}

fn bits(raw: u32, shift: u32, width: u32) -> u32 {
    (raw >> shift) & ((1u32 << width) - 1)
}

fn bit(raw: u32, shift: u32) -> bool {
    bits(raw, shift, 1) != 0
}

/// COMPUTE_PGM_RSRC1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rsrc1 {
    pub raw: u32,
    /// Bits 5:0: VGPR blocks − 1 (granule 8 in wave32, 4 in wave64 on gfx10).
    pub granulated_workitem_vgpr_count: u8,
    /// Bits 9:6: SGPR blocks − 1. Reserved on gfx10 (the hardware always allocates the
    /// maximum), but LLVM fills it anyway; kept as written.
    pub granulated_wavefront_sgpr_count: u8,
    /// Bits 11:10.
    pub priority: u8,
    /// Bits 13:12 (0 = nearest even, 1 = +inf, 2 = −inf, 3 = toward zero).
    pub float_round_mode_32: u8,
    /// Bits 15:14.
    pub float_round_mode_16_64: u8,
    /// Bits 17:16 (0 = flush source and destination, 1 = flush destination, 2 = flush source,
    /// 3 = flush none).
    pub float_denorm_mode_32: u8,
    /// Bits 19:18.
    pub float_denorm_mode_16_64: u8,
    /// Bit 20.
    pub r#priv: bool,
    /// Bit 21.
    pub enable_dx10_clamp: bool,
    /// Bit 22.
    pub debug_mode: bool,
    /// Bit 23.
    pub enable_ieee_mode: bool,
    /// Bit 24.
    pub bulky: bool,
    /// Bit 25.
    pub cdbg_user: bool,
    /// Bit 26.
    pub fp16_ovfl: bool,
    /// Bits 28:27, reserved.
    pub reserved_27_28: u8,
    /// Bit 29: work-group processor mode (gfx10+).
    pub wgp_mode: bool,
    /// Bit 30 (gfx10+).
    pub mem_ordered: bool,
    /// Bit 31 (gfx10+).
    pub fwd_progress: bool,
}

impl Rsrc1 {
    pub fn from_raw(raw: u32) -> Rsrc1 {
        Rsrc1 {
            raw,
            granulated_workitem_vgpr_count: bits(raw, 0, 6) as u8,
            granulated_wavefront_sgpr_count: bits(raw, 6, 4) as u8,
            priority: bits(raw, 10, 2) as u8,
            float_round_mode_32: bits(raw, 12, 2) as u8,
            float_round_mode_16_64: bits(raw, 14, 2) as u8,
            float_denorm_mode_32: bits(raw, 16, 2) as u8,
            float_denorm_mode_16_64: bits(raw, 18, 2) as u8,
            r#priv: bit(raw, 20),
            enable_dx10_clamp: bit(raw, 21),
            debug_mode: bit(raw, 22),
            enable_ieee_mode: bit(raw, 23),
            bulky: bit(raw, 24),
            cdbg_user: bit(raw, 25),
            fp16_ovfl: bit(raw, 26),
            reserved_27_28: bits(raw, 27, 2) as u8,
            wgp_mode: bit(raw, 29),
            mem_ordered: bit(raw, 30),
            fwd_progress: bit(raw, 31),
        }
    }
}

/// COMPUTE_PGM_RSRC2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rsrc2 {
    pub raw: u32,
    /// Bit 0: scratch (the private segment wave offset SGPR is set up).
    pub enable_private_segment: bool,
    /// Bits 5:1: how many user SGPRs the dispatch sets up; system SGPRs follow them.
    pub user_sgpr_count: u8,
    /// Bit 6.
    pub enable_trap_handler: bool,
    /// Bit 7.
    pub enable_sgpr_workgroup_id_x: bool,
    /// Bit 8.
    pub enable_sgpr_workgroup_id_y: bool,
    /// Bit 9.
    pub enable_sgpr_workgroup_id_z: bool,
    /// Bit 10.
    pub enable_sgpr_workgroup_info: bool,
    /// Bits 12:11: 0 = v0 holds the x id, 1 = also y in v1, 2 = also z in v2.
    pub enable_vgpr_workitem_id: u8,
    /// Bit 13.
    pub enable_exception_address_watch: bool,
    /// Bit 14.
    pub enable_exception_memory: bool,
    /// Bits 23:15 (must be 0 for HSA: the dispatch packet gives the LDS size).
    pub granulated_lds_size: u16,
    /// Bit 24.
    pub enable_exception_ieee_754_fp_invalid_operation: bool,
    /// Bit 25.
    pub enable_exception_fp_denormal_source: bool,
    /// Bit 26.
    pub enable_exception_ieee_754_fp_division_by_zero: bool,
    /// Bit 27.
    pub enable_exception_ieee_754_fp_overflow: bool,
    /// Bit 28.
    pub enable_exception_ieee_754_fp_underflow: bool,
    /// Bit 29.
    pub enable_exception_ieee_754_fp_inexact: bool,
    /// Bit 30.
    pub enable_exception_int_divide_by_zero: bool,
    /// Bit 31, reserved.
    pub reserved_31: bool,
}

impl Rsrc2 {
    pub fn from_raw(raw: u32) -> Rsrc2 {
        Rsrc2 {
            raw,
            enable_private_segment: bit(raw, 0),
            user_sgpr_count: bits(raw, 1, 5) as u8,
            enable_trap_handler: bit(raw, 6),
            enable_sgpr_workgroup_id_x: bit(raw, 7),
            enable_sgpr_workgroup_id_y: bit(raw, 8),
            enable_sgpr_workgroup_id_z: bit(raw, 9),
            enable_sgpr_workgroup_info: bit(raw, 10),
            enable_vgpr_workitem_id: bits(raw, 11, 2) as u8,
            enable_exception_address_watch: bit(raw, 13),
            enable_exception_memory: bit(raw, 14),
            granulated_lds_size: bits(raw, 15, 9) as u16,
            enable_exception_ieee_754_fp_invalid_operation: bit(raw, 24),
            enable_exception_fp_denormal_source: bit(raw, 25),
            enable_exception_ieee_754_fp_division_by_zero: bit(raw, 26),
            enable_exception_ieee_754_fp_overflow: bit(raw, 27),
            enable_exception_ieee_754_fp_underflow: bit(raw, 28),
            enable_exception_ieee_754_fp_inexact: bit(raw, 29),
            enable_exception_int_divide_by_zero: bit(raw, 30),
            reserved_31: bit(raw, 31),
        }
    }
}

/// COMPUTE_PGM_RSRC3 as gfx10 defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rsrc3 {
    pub raw: u32,
    /// Bits 3:0: shared VGPR blocks (wave64 only).
    pub shared_vgpr_count: u8,
    /// Bits 31:4, reserved on gfx10.
    pub reserved_4_31: u32,
}

impl Rsrc3 {
    pub fn from_raw(raw: u32) -> Rsrc3 {
        Rsrc3 {
            raw,
            shared_vgpr_count: bits(raw, 0, 4) as u8,
            reserved_4_31: raw >> 4,
        }
    }
}

/// KERNEL_CODE_PROPERTIES (16 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct KernelCodeProperties {
    pub raw: u16,
    /// Bit 0: 4 user SGPRs.
    pub enable_sgpr_private_segment_buffer: bool,
    /// Bit 1: 2 user SGPRs, the AQL dispatch packet's address.
    pub enable_sgpr_dispatch_ptr: bool,
    /// Bit 2: 2 user SGPRs.
    pub enable_sgpr_queue_ptr: bool,
    /// Bit 3: 2 user SGPRs.
    pub enable_sgpr_kernarg_segment_ptr: bool,
    /// Bit 4: 2 user SGPRs.
    pub enable_sgpr_dispatch_id: bool,
    /// Bit 5: 2 user SGPRs.
    pub enable_sgpr_flat_scratch_init: bool,
    /// Bit 6: 1 user SGPR.
    pub enable_sgpr_private_segment_size: bool,
    /// Bits 9:7, reserved.
    pub reserved_7_9: u8,
    /// Bit 10 (gfx10+): wave32 when set, wave64 when clear.
    pub enable_wavefront_size32: bool,
    /// Bit 11.
    pub uses_dynamic_stack: bool,
    /// Bits 15:12, reserved.
    pub reserved_12_15: u8,
}

impl KernelCodeProperties {
    pub fn from_raw(raw: u16) -> KernelCodeProperties {
        let r = u32::from(raw);
        KernelCodeProperties {
            raw,
            enable_sgpr_private_segment_buffer: bit(r, 0),
            enable_sgpr_dispatch_ptr: bit(r, 1),
            enable_sgpr_queue_ptr: bit(r, 2),
            enable_sgpr_kernarg_segment_ptr: bit(r, 3),
            enable_sgpr_dispatch_id: bit(r, 4),
            enable_sgpr_flat_scratch_init: bit(r, 5),
            enable_sgpr_private_segment_size: bit(r, 6),
            reserved_7_9: bits(r, 7, 3) as u8,
            enable_wavefront_size32: bit(r, 10),
            uses_dynamic_stack: bit(r, 11),
            reserved_12_15: bits(r, 12, 4) as u8,
        }
    }
}

/// A decoded kernel descriptor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KernelDescriptor {
    /// Bytes 0..4: fixed LDS bytes per work-group.
    pub group_segment_fixed_size: u32,
    /// Bytes 4..8: fixed scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// Bytes 8..12: kernarg segment size.
    pub kernarg_size: u32,
    /// Bytes 12..16, reserved.
    pub reserved0: [u8; 4],
    /// Bytes 16..24: entry point relative to the descriptor's own address (may be negative).
    pub kernel_code_entry_byte_offset: i64,
    /// Bytes 24..44, reserved.
    pub reserved1: [u8; 20],
    /// Bytes 44..48.
    pub compute_pgm_rsrc3: Rsrc3,
    /// Bytes 48..52.
    pub compute_pgm_rsrc1: Rsrc1,
    /// Bytes 52..56.
    pub compute_pgm_rsrc2: Rsrc2,
    /// Bytes 56..58.
    pub kernel_code_properties: KernelCodeProperties,
    /// Bytes 58..60: kernarg preload (gfx90a/gfx940 only; kept raw).
    pub kernarg_preload: u16,
    /// Bytes 60..64, reserved.
    pub reserved3: [u8; 4],
}

fn le_u16(b: &[u8; KERNEL_DESCRIPTOR_SIZE], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le_u32(b: &[u8; KERNEL_DESCRIPTOR_SIZE], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn array<const N: usize>(b: &[u8; KERNEL_DESCRIPTOR_SIZE], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&b[at..at + N]);
    out
}

impl KernelDescriptor {
    /// Decodes a descriptor. The fixed-size array makes every access in range.
    pub fn decode(b: &[u8; KERNEL_DESCRIPTOR_SIZE]) -> KernelDescriptor {
        KernelDescriptor {
            group_segment_fixed_size: le_u32(b, 0),
            private_segment_fixed_size: le_u32(b, 4),
            kernarg_size: le_u32(b, 8),
            reserved0: array(b, 12),
            kernel_code_entry_byte_offset: i64::from_le_bytes(array(b, 16)),
            reserved1: array(b, 24),
            compute_pgm_rsrc3: Rsrc3::from_raw(le_u32(b, 44)),
            compute_pgm_rsrc1: Rsrc1::from_raw(le_u32(b, 48)),
            compute_pgm_rsrc2: Rsrc2::from_raw(le_u32(b, 52)),
            kernel_code_properties: KernelCodeProperties::from_raw(le_u16(b, 56)),
            kernarg_preload: le_u16(b, 58),
            reserved3: array(b, 60),
        }
    }

    /// Decodes the first 64 bytes of `bytes`; `None` when there are fewer.
    pub fn from_bytes(bytes: &[u8]) -> Option<KernelDescriptor> {
        let b: &[u8; KERNEL_DESCRIPTOR_SIZE] =
            bytes.get(..KERNEL_DESCRIPTOR_SIZE)?.try_into().ok()?;
        Some(Self::decode(b))
    }

    /// The entry point's address for a descriptor at `descriptor_address` (`None` on overflow).
    pub fn entry_address(&self, descriptor_address: u64) -> Option<u64> {
        descriptor_address.checked_add_signed(self.kernel_code_entry_byte_offset)
    }

    /// 32 or 64, from KERNEL_CODE_PROPERTIES.ENABLE_WAVEFRONT_SIZE32 (gfx10+). Never from the code.
    pub fn wave_size(&self) -> u32 {
        if self.kernel_code_properties.enable_wavefront_size32 {
            32
        } else {
            64
        }
    }

    /// VGPR allocation granule on gfx10: 8 registers in wave32, 4 in wave64.
    pub fn vgpr_granule(&self) -> u32 {
        if self.wave_size() == 32 {
            8
        } else {
            4
        }
    }

    /// VGPRs allocated per lane: (granulated count + 1) × granule.
    pub fn vgpr_count(&self) -> u32 {
        (u32::from(self.compute_pgm_rsrc1.granulated_workitem_vgpr_count) + 1) * self.vgpr_granule()
    }

    /// The user SGPRs the dispatch initialises, in hardware order, starting at s0.
    pub fn user_sgprs(&self) -> Vec<SgprSlot> {
        let k = &self.kernel_code_properties;
        let wanted = [
            (
                k.enable_sgpr_private_segment_buffer,
                SgprKind::PrivateSegmentBuffer,
            ),
            (k.enable_sgpr_dispatch_ptr, SgprKind::DispatchPtr),
            (k.enable_sgpr_queue_ptr, SgprKind::QueuePtr),
            (
                k.enable_sgpr_kernarg_segment_ptr,
                SgprKind::KernargSegmentPtr,
            ),
            (k.enable_sgpr_dispatch_id, SgprKind::DispatchId),
            (k.enable_sgpr_flat_scratch_init, SgprKind::FlatScratchInit),
            (
                k.enable_sgpr_private_segment_size,
                SgprKind::PrivateSegmentSize,
            ),
        ];
        layout(0, &wanted)
    }

    /// Number of user SGPRs the enabled KERNEL_CODE_PROPERTIES bits need (may be less than
    /// `compute_pgm_rsrc2.user_sgpr_count`, which is what the hardware uses).
    pub fn enabled_user_sgpr_count(&self) -> u32 {
        self.user_sgprs().iter().map(|s| s.count).sum()
    }

    /// The system SGPRs, in hardware order, starting right after `user_sgpr_count` user SGPRs.
    pub fn system_sgprs(&self) -> Vec<SgprSlot> {
        let r = &self.compute_pgm_rsrc2;
        let wanted = [
            (r.enable_sgpr_workgroup_id_x, SgprKind::WorkgroupIdX),
            (r.enable_sgpr_workgroup_id_y, SgprKind::WorkgroupIdY),
            (r.enable_sgpr_workgroup_id_z, SgprKind::WorkgroupIdZ),
            (r.enable_sgpr_workgroup_info, SgprKind::WorkgroupInfo),
            (r.enable_private_segment, SgprKind::PrivateSegmentWaveOffset),
        ];
        layout(u32::from(r.user_sgpr_count), &wanted)
    }

    /// The work-item id VGPRs (gfx10: separate registers v0, v1, v2, not packed).
    /// The value 3 (undefined) is treated like 2.
    pub fn workitem_id_vgprs(&self) -> Vec<VgprSlot> {
        let n = u32::from(self.compute_pgm_rsrc2.enable_vgpr_workitem_id).min(2) + 1;
        [
            VgprKind::WorkitemIdX,
            VgprKind::WorkitemIdY,
            VgprKind::WorkitemIdZ,
        ]
        .into_iter()
        .take(n as usize)
        .enumerate()
        .map(|(i, kind)| VgprSlot {
            kind,
            vgpr: i as u32,
        })
        .collect()
    }

    /// Everything the initial register state of a wave depends on, in one value.
    pub fn abi(&self) -> Abi {
        let system_sgprs = self.system_sgprs();
        let initial_sgpr_count = system_sgprs
            .last()
            .map(|s| s.first + s.count)
            .unwrap_or(u32::from(self.compute_pgm_rsrc2.user_sgpr_count));
        Abi {
            wave_size: self.wave_size(),
            vgpr_count: self.vgpr_count(),
            user_sgpr_count: u32::from(self.compute_pgm_rsrc2.user_sgpr_count),
            enabled_user_sgpr_count: self.enabled_user_sgpr_count(),
            user_sgprs: self.user_sgprs(),
            system_sgprs,
            initial_sgpr_count,
            workitem_id_vgprs: self.workitem_id_vgprs(),
            scratch: self.compute_pgm_rsrc2.enable_private_segment,
        }
    }
}

fn layout(start: u32, wanted: &[(bool, SgprKind)]) -> Vec<SgprSlot> {
    let mut next = start;
    let mut out = Vec::new();
    for &(enabled, kind) in wanted {
        if enabled {
            let count = kind.size();
            out.push(SgprSlot {
                kind,
                first: next,
                count,
            });
            next += count;
        }
    }
    out
}

/// What an initial SGPR holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SgprKind {
    /// V# of the private segment (scratch) buffer, 4 SGPRs.
    PrivateSegmentBuffer,
    /// Address of the AQL dispatch packet.
    DispatchPtr,
    /// Address of the AQL queue.
    QueuePtr,
    /// Address of the kernarg segment.
    KernargSegmentPtr,
    /// 64-bit dispatch id.
    DispatchId,
    /// Flat scratch initialisation (offset, size).
    FlatScratchInit,
    /// Private segment size per work-item.
    PrivateSegmentSize,
    WorkgroupIdX,
    WorkgroupIdY,
    WorkgroupIdZ,
    WorkgroupInfo,
    /// Byte offset of this wave's scratch within the private segment.
    PrivateSegmentWaveOffset,
}

impl SgprKind {
    /// Registers this value occupies.
    pub fn size(self) -> u32 {
        match self {
            SgprKind::PrivateSegmentBuffer => 4,
            SgprKind::DispatchPtr
            | SgprKind::QueuePtr
            | SgprKind::KernargSegmentPtr
            | SgprKind::DispatchId
            | SgprKind::FlatScratchInit => 2,
            SgprKind::PrivateSegmentSize
            | SgprKind::WorkgroupIdX
            | SgprKind::WorkgroupIdY
            | SgprKind::WorkgroupIdZ
            | SgprKind::WorkgroupInfo
            | SgprKind::PrivateSegmentWaveOffset => 1,
        }
    }

    /// snake_case name, as serialised.
    pub fn name(self) -> &'static str {
        match self {
            SgprKind::PrivateSegmentBuffer => "private_segment_buffer",
            SgprKind::DispatchPtr => "dispatch_ptr",
            SgprKind::QueuePtr => "queue_ptr",
            SgprKind::KernargSegmentPtr => "kernarg_segment_ptr",
            SgprKind::DispatchId => "dispatch_id",
            SgprKind::FlatScratchInit => "flat_scratch_init",
            SgprKind::PrivateSegmentSize => "private_segment_size",
            SgprKind::WorkgroupIdX => "workgroup_id_x",
            SgprKind::WorkgroupIdY => "workgroup_id_y",
            SgprKind::WorkgroupIdZ => "workgroup_id_z",
            SgprKind::WorkgroupInfo => "workgroup_info",
            SgprKind::PrivateSegmentWaveOffset => "private_segment_wave_offset",
        }
    }
}

/// A run of SGPRs holding one initial value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SgprSlot {
    pub kind: SgprKind,
    /// First SGPR number.
    pub first: u32,
    /// Number of consecutive SGPRs.
    pub count: u32,
}

impl fmt::Display for SgprSlot {
    /// `s[0:3] private_segment_buffer`, `s6 workgroup_id_x`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.count == 1 {
            write!(f, "s{} {}", self.first, self.kind.name())
        } else {
            write!(
                f,
                "s[{}:{}] {}",
                self.first,
                self.first + self.count - 1,
                self.kind.name()
            )
        }
    }
}

/// What an initial VGPR holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VgprKind {
    WorkitemIdX,
    WorkitemIdY,
    WorkitemIdZ,
}

/// One initial VGPR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct VgprSlot {
    pub kind: VgprKind,
    pub vgpr: u32,
}

impl fmt::Display for VgprSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.kind {
            VgprKind::WorkitemIdX => "workitem_id_x",
            VgprKind::WorkitemIdY => "workitem_id_y",
            VgprKind::WorkitemIdZ => "workitem_id_z",
        };
        write!(f, "v{} {}", self.vgpr, name)
    }
}

/// The initial wave state a kernel descriptor asks for (gfx10 rules).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Abi {
    /// 32 or 64.
    pub wave_size: u32,
    /// VGPRs allocated per lane.
    pub vgpr_count: u32,
    /// COMPUTE_PGM_RSRC2.USER_SGPR_COUNT: system SGPRs start at this register.
    pub user_sgpr_count: u32,
    /// User SGPRs the enabled kernel-code-property bits account for.
    pub enabled_user_sgpr_count: u32,
    pub user_sgprs: Vec<SgprSlot>,
    pub system_sgprs: Vec<SgprSlot>,
    /// One past the last initialised SGPR.
    pub initial_sgpr_count: u32,
    pub workitem_id_vgprs: Vec<VgprSlot>,
    /// Scratch (private segment) in use.
    pub scratch: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kd(rsrc1: u32, rsrc2: u32, kcp: u16) -> KernelDescriptor {
        let mut b = [0u8; 64];
        b[48..52].copy_from_slice(&rsrc1.to_le_bytes());
        b[52..56].copy_from_slice(&rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&kcp.to_le_bytes());
        KernelDescriptor::decode(&b)
    }

    #[test]
    fn lds_is_granted_in_512_byte_blocks() {
        // Hand-worked: 0 stays 0; 1..=512 is one block; the segmented sort kernel's 16,440 bytes are
        // 33 blocks (32 × 512 = 16,384 < 16,440 ≤ 16,896); 64 KiB is exactly 128 blocks.
        assert_eq!(lds_granted(0), 0);
        assert_eq!(lds_granted(1), 512);
        assert_eq!(lds_granted(512), 512);
        assert_eq!(lds_granted(513), 1024);
        assert_eq!(lds_granted(16_440), 16_896);
        assert_eq!(lds_granted(65_536), 65_536);
        assert_eq!(lds_granted(u32::MAX), u32::MAX);
    }

    #[test]
    fn appendix_saxpy_words() {
        // RSRC1/RSRC2/KCP of clang-19's saxpy.kd (feasibility report, section 1.3).
        let d = kd(0x60af_0040, 0x0000_008c, 0x0409);
        let r1 = d.compute_pgm_rsrc1;
        assert_eq!(r1.granulated_workitem_vgpr_count, 0);
        assert_eq!(r1.granulated_wavefront_sgpr_count, 1);
        assert_eq!(
            (r1.float_denorm_mode_32, r1.float_denorm_mode_16_64),
            (3, 3)
        );
        assert!(r1.enable_dx10_clamp && r1.enable_ieee_mode && r1.wgp_mode && r1.mem_ordered);
        assert!(!r1.fwd_progress && !r1.r#priv && !r1.debug_mode);
        let r2 = d.compute_pgm_rsrc2;
        assert_eq!(r2.user_sgpr_count, 6);
        assert!(r2.enable_sgpr_workgroup_id_x && !r2.enable_sgpr_workgroup_id_y);
        assert!(!r2.enable_private_segment);
        assert_eq!(d.wave_size(), 32);
        assert_eq!(d.vgpr_count(), 8);
        let user: Vec<String> = d.user_sgprs().iter().map(|s| s.to_string()).collect();
        assert_eq!(
            user,
            [
                "s[0:3] private_segment_buffer",
                "s[4:5] kernarg_segment_ptr"
            ]
        );
        let sys: Vec<String> = d.system_sgprs().iter().map(|s| s.to_string()).collect();
        assert_eq!(sys, ["s6 workgroup_id_x"]);
    }

    #[test]
    fn scratch_and_3d_layouts() {
        // kscratch: RSRC2 0x91, KCP 0x0429 (flat scratch init): s8 wg id x, s9 wave offset.
        let d = kd(0, 0x91, 0x0429);
        let sys: Vec<String> = d.system_sgprs().iter().map(|s| s.to_string()).collect();
        assert_eq!(sys, ["s8 workgroup_id_x", "s9 private_segment_wave_offset"]);
        assert_eq!(d.enabled_user_sgpr_count(), 8);
        // k3d: RSRC2 0x138c: x, y, z ids and three work-item VGPRs.
        let d = kd(0, 0x138c, 0x0409);
        let sys: Vec<String> = d.system_sgprs().iter().map(|s| s.to_string()).collect();
        assert_eq!(
            sys,
            [
                "s6 workgroup_id_x",
                "s7 workgroup_id_y",
                "s8 workgroup_id_z"
            ]
        );
        assert_eq!(d.workitem_id_vgprs().len(), 3);
        // Wave64: granule 4.
        let d = kd(0x0000_0003, 0x8c, 0x0009);
        assert_eq!(d.wave_size(), 64);
        assert_eq!(d.vgpr_count(), 16);
    }

    #[test]
    fn every_bit_lands_in_exactly_one_field() {
        for shift in 0..32 {
            let r1 = Rsrc1::from_raw(1 << shift);
            let r2 = Rsrc2::from_raw(1 << shift);
            // Re-encode from the fields and compare.
            let enc1 = u32::from(r1.granulated_workitem_vgpr_count)
                | u32::from(r1.granulated_wavefront_sgpr_count) << 6
                | u32::from(r1.priority) << 10
                | u32::from(r1.float_round_mode_32) << 12
                | u32::from(r1.float_round_mode_16_64) << 14
                | u32::from(r1.float_denorm_mode_32) << 16
                | u32::from(r1.float_denorm_mode_16_64) << 18
                | u32::from(r1.r#priv) << 20
                | u32::from(r1.enable_dx10_clamp) << 21
                | u32::from(r1.debug_mode) << 22
                | u32::from(r1.enable_ieee_mode) << 23
                | u32::from(r1.bulky) << 24
                | u32::from(r1.cdbg_user) << 25
                | u32::from(r1.fp16_ovfl) << 26
                | u32::from(r1.reserved_27_28) << 27
                | u32::from(r1.wgp_mode) << 29
                | u32::from(r1.mem_ordered) << 30
                | u32::from(r1.fwd_progress) << 31;
            assert_eq!(enc1, 1 << shift, "rsrc1 bit {shift}");
            let enc2 = u32::from(r2.enable_private_segment)
                | u32::from(r2.user_sgpr_count) << 1
                | u32::from(r2.enable_trap_handler) << 6
                | u32::from(r2.enable_sgpr_workgroup_id_x) << 7
                | u32::from(r2.enable_sgpr_workgroup_id_y) << 8
                | u32::from(r2.enable_sgpr_workgroup_id_z) << 9
                | u32::from(r2.enable_sgpr_workgroup_info) << 10
                | u32::from(r2.enable_vgpr_workitem_id) << 11
                | u32::from(r2.enable_exception_address_watch) << 13
                | u32::from(r2.enable_exception_memory) << 14
                | u32::from(r2.granulated_lds_size) << 15
                | u32::from(r2.enable_exception_ieee_754_fp_invalid_operation) << 24
                | u32::from(r2.enable_exception_fp_denormal_source) << 25
                | u32::from(r2.enable_exception_ieee_754_fp_division_by_zero) << 26
                | u32::from(r2.enable_exception_ieee_754_fp_overflow) << 27
                | u32::from(r2.enable_exception_ieee_754_fp_underflow) << 28
                | u32::from(r2.enable_exception_ieee_754_fp_inexact) << 29
                | u32::from(r2.enable_exception_int_divide_by_zero) << 30
                | u32::from(r2.reserved_31) << 31;
            assert_eq!(enc2, 1 << shift, "rsrc2 bit {shift}");
        }
        for shift in 0..16 {
            let k = KernelCodeProperties::from_raw(1 << shift);
            let enc = u16::from(k.enable_sgpr_private_segment_buffer)
                | u16::from(k.enable_sgpr_dispatch_ptr) << 1
                | u16::from(k.enable_sgpr_queue_ptr) << 2
                | u16::from(k.enable_sgpr_kernarg_segment_ptr) << 3
                | u16::from(k.enable_sgpr_dispatch_id) << 4
                | u16::from(k.enable_sgpr_flat_scratch_init) << 5
                | u16::from(k.enable_sgpr_private_segment_size) << 6
                | u16::from(k.reserved_7_9) << 7
                | u16::from(k.enable_wavefront_size32) << 10
                | u16::from(k.uses_dynamic_stack) << 11
                | u16::from(k.reserved_12_15) << 12;
            assert_eq!(enc, 1 << shift, "kcp bit {shift}");
        }
    }

    #[test]
    fn entry_offset_is_signed_and_checked() {
        let mut b = [0u8; 64];
        b[16..24].copy_from_slice(&(-0x100i64).to_le_bytes());
        let d = KernelDescriptor::decode(&b);
        assert_eq!(d.entry_address(0x1000), Some(0xf00));
        assert_eq!(d.entry_address(0x10), None);
        assert!(KernelDescriptor::from_bytes(&[0u8; 63]).is_none());
    }
}
