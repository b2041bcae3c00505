//! What the lowering needs to know about the device that will run a module.
//!
//! Every field is a fact that `rdna2spv-vulkan`'s `probe` *measures* on the chosen device with a tiny
//! SPIR-V kernel whose operands come from memory (so the driver cannot fold them), compared bit for bit
//! with a host reference. The lowering reads the profile to decide, primitive by primitive, whether the
//! device's own instruction already has the ISA's semantics or an exact emulation must be emitted.
//!
//! [`DeviceProfile::portable`] assumes nothing: every workaround on. It is the profile to use when no
//! device is present, and a module lowered with it gives the same bits on every Vulkan 1.3 device.
//!
//! The values quoted below for lavapipe are the ones measured on Mesa 22.3.6 (Debian 12), see
//! `shared/research/feasibility-vulkan.md` and decision D004.

use serde::{Deserialize, Serialize};

/// Which device a profile was measured on (informational; the lowering never branches on names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceIdentity {
    /// `VkPhysicalDeviceProperties::deviceName`, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub name: String,
    /// `VkPhysicalDeviceDriverProperties::driverName` and `driverInfo`, e.g. "llvmpipe / Mesa 22.3.6 (LLVM 15.0.6)".
    pub driver: String,
    /// Vulkan API version the device reports, as "major.minor.patch".
    pub api_version: String,
    /// `VkPhysicalDeviceType` in words: "cpu", "integrated-gpu", "discrete-gpu", "virtual-gpu", "other".
    pub device_type: String,
}

/// What an out-of-range or NaN float→integer conversion (`OpConvertFToS`/`OpConvertFToU`) returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FloatToInt {
    /// Clamps to the integer range and maps NaN to 0 — RDNA's `v_cvt_i32_f32`/`v_cvt_u32_f32` semantics,
    /// so the lowering may use the plain conversion.
    Saturating,
    /// The x86 "integer indefinite" answer: 0x80000000 for every out-of-range or NaN signed conversion,
    /// 0xffffffff (or 0x80000000) for unsigned ones. Measured on lavapipe (LLVM on x86-64).
    X86Indefinite,
    /// Something else, or not measured: clamp and select NaN by hand.
    Unknown,
}

/// The measured facts about one Vulkan device that change how a module must be emitted.
///
/// `fma_*_fused == false`, `folds_* == true`, `preserves_subnormals_* == false`,
/// `denorm_preserve_mode_honoured == false`, `float_to_int != Saturating`, `loop_iteration_cap.is_some()` and
/// `subgroup_size` smaller than the wave are the *conservative* values: each makes the lowering emit
/// the exact emulation instead of trusting the driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceProfile {
    /// The device measured; `None` for the [`portable`](DeviceProfile::portable) profile.
    pub device: Option<DeviceIdentity>,

    /// `OpFDiv` and `GLSL.std.450 Sqrt` on f32 are correctly rounded (IEEE, subnormals included) — the
    /// semantics the IR gives `F32Div` and `F32Sqrt` (and so V_RCP_F32, V_SQRT_F32 and the division
    /// pre-scale, decision D012). Vulkan only promises 2.5 ulp for division and sqrt's precision is
    /// inherited from inversesqrt, so this is measured: random, boundary and subnormal operands against
    /// the host's IEEE results. lavapipe: **true**; NVIDIA H200 (driver 580.159.04): **false** (420 of
    /// 706 quotients, 157 of 706 roots differ). When false the lowering emits D228's exact integer
    /// emulation (an integer quotient or a seeded integer root with a sticky bit, one integer
    /// narrowing); the portable profile says false.
    #[serde(default)]
    pub div_sqrt_f32_correctly_rounded: bool,

    /// `GLSL.std.450 Fma` on f32 rounds once (matches the host's `f32::mul_add` bit for bit on
    /// a = b = 1 + 2^-12, c = −(1 + 2^-11) — fused 2^-24, unfused 0 — and on a few hundred random and
    /// cancellation triples). lavapipe: **false** (Mesa lowers ffma32 to a multiply and an add), so the
    /// lowering emits the round-to-odd emulation of `crate::exact`.
    pub fma_f32_fused: bool,
    /// Same for f16 (D993's triple a = 2^-11(1+2^-10), b = 1−2^-10, c = 1+2^-10: once 0x3c01,
    /// twice 0x3c02). lavapipe: **false**. `false` also when the device has no Float16.
    pub fma_f16_fused: bool,
    /// Same for f64 (a = b = 1 + 2^-27, c = −(1 + 2^-26): fused 2^-54, unfused 0). lavapipe: **false**.
    /// `false` also when the device has no Float64.
    pub fma_f64_fused: bool,

    /// `OpFAdd x, 0.0` with a constant zero is folded to `x` even under NoContraction, so −0 + 0 gives
    /// −0 instead of IEEE's +0. lavapipe: **true**. When true, an ISA add of an inline 0.0 must be spelt out.
    pub folds_add_zero: bool,
    /// `OpFMul x, 1.0` with a constant one is folded to `x`, so a signalling NaN times 1 stays
    /// signalling instead of being quieted. lavapipe: **true**.
    pub folds_mul_one: bool,
    /// `OpFMul x, 0.0` with a constant zero is folded to +0 even under NoContraction, so −1 × 0 gives +0
    /// instead of IEEE's −0 (and ∞ × 0 gives 0 instead of NaN). lavapipe: **true** (measured 2026-12-07:
    /// −1, ∞, −∞ and the smallest negative subnormal times 0.0 and −0.0 all gave +0). Missing from a
    /// profile file written before it was measured: true, the conservative value.
    #[serde(default = "conservative")]
    pub folds_mul_zero: bool,

    /// f32 subnormal inputs and results survive add/mul (min subnormal × 1, subnormal + subnormal,
    /// 2^-100 × 2^-30) with operands from memory. lavapipe: **true**. False: f32 add/sub/mul/fma and
    /// comparisons are emulated between integer widening to f64 and integer narrowing (D168).
    pub preserves_subnormals_f32: bool,
    /// Same for f16 (false when the device has no Float16). lavapipe: **true**. False: f16 results narrow
    /// by integer work (D168).
    pub preserves_subnormals_f16: bool,
    /// Same for f64 (false when the device has no Float64). lavapipe: **true**. False: f64 add/mul/fma
    /// by the integer fma (D168).
    pub preserves_subnormals_f64: bool,
    /// The f32 `DenormPreserve` execution mode is advertised and subnormals survive under it.
    /// lavapipe: **false** (not advertised, although subnormals are preserved anyway). Where
    /// `preserves_subnormals_f32` is false and this is true, the lowering requests `DenormPreserve 32`
    /// and uses the device's f32 arithmetic instead of the emulation (D168). (No module requests
    /// `DenormFlushToZero`: a flushing MODE is an explicit IR step, D166, so whether the device honours
    /// that mode is not part of the profile; the probe still reports it.)
    #[serde(default)]
    pub denorm_preserve_mode_honoured: bool,

    /// What out-of-range and NaN f32→i32/u32 conversions give (3e9, −3e9, +inf, NaN → i32;
    /// 5e9, −1.5, NaN → u32). lavapipe: [`FloatToInt::X86Indefinite`].
    pub float_to_int: FloatToInt,

    /// `shaderFloat16` is enabled on the device (Float16 arithmetic in shaders). lavapipe: true on
    /// x86-64 with F16C.
    pub has_float16: bool,
    /// `shaderFloat64` is enabled. lavapipe: true.
    pub has_float64: bool,
    /// `shaderInt64` is enabled. lavapipe: true.
    pub has_int64: bool,
    /// `shaderBufferInt64Atomics` is enabled (64-bit OpAtomic* through buffer pointers; decision D060).
    /// lavapipe: true. Without it the 64-bit global atomics are refused. The portable profile assumes it,
    /// as it assumes 64-bit integers (every module declares Int64 for its 64-bit addresses): a device
    /// whose probed profile lacks it gets the refusal.
    #[serde(default)]
    pub has_int64_buffer_atomics: bool,
    /// `storageBuffer16BitAccess` is enabled (16-bit loads and stores through buffer pointers).
    pub storage_buffer_16bit_access: bool,
    /// `vulkanMemoryModel` is enabled.
    pub vulkan_memory_model: bool,
    /// `bufferDeviceAddress` is enabled and a round trip through a PhysicalStorageBuffer64 pointer
    /// passed in push constants worked. Mandatory in Vulkan 1.3; lavapipe: true.
    pub buffer_device_address: bool,

    /// Invocations per subgroup as seen by a shader (`SubgroupSize` built-in, no required size).
    /// lavapipe: **8**. The portable profile says 1: assume no cross-invocation subgroup operations.
    pub subgroup_size: u32,
    /// A required subgroup size equal to a wave (32 or 64) can be requested and the shader then sees it.
    /// lavapipe: **false** (min = max = 8; a request for 32 is accepted and ignored).
    pub required_subgroup_size_honoured: bool,
    /// What a probe shader *measured* for each wave size requested with `requiredSubgroupSize`
    /// (decision D085): the built-in the shader sees, and how many invocations really share a
    /// subgroup (ballot, add and broadcast-first counts). Only an entry with `trusted` may be used to
    /// exchange a wave's values through subgroup operations. Empty in the portable profile.
    /// lavapipe: 32 and 64 are outside its advertised 8..=8; forced anyway they are accepted and the
    /// shader runs subgroups of **8** (not trusted).
    #[serde(default)]
    pub verified_subgroups: Vec<VerifiedSubgroup>,

    /// The driver silently cuts loops short after this many iterations per invocation (all loops
    /// together): measured with a top-tested loop of 70,000 iterations that stores its counter each
    /// round (volatile), then a completion flag and the final count. `None`: the loop ran to the end
    /// (no cap up to 70,000). lavapipe: **Some(65535)** — measured here, the loop is *left early and
    /// execution continues after it* (the flag arrives, the count is 65,535), so a "finished" flag
    /// written after a loop does not detect the cap; a trip count or a flag written by the last
    /// iteration does. Long loops must be split across dispatches or checked that way.
    pub loop_iteration_cap: Option<u32>,
    /// A subgroup, once started, runs alone until it reaches a barrier: no invocation of another subgroup
    /// of its workgroup executes in between (decision D146). Measured with one workgroup of 64
    /// invocations that meet at a barrier, then each add 1 to one workgroup counter 1,024 times (relaxed
    /// atomics, no barrier): the subgroups of [`subgroup_size`](Self::subgroup_size) consecutive
    /// invocations (at least two of them) must each see one contiguous block of counter values.
    /// lavapipe: **true** (a workgroup
    /// runs on one thread, each 8-wide batch a coroutine that yields only at a barrier — and at every
    /// atomic with Acquire or Release semantics, which it treats as a barrier). The portable profile
    /// says false. Where true, the lock of 64-bit LDS atomics takes and releases with relaxed atomics:
    /// an ordered atomic would yield inside the retry loop, whose trip count differs between subgroups.
    #[serde(default)]
    pub subgroup_runs_alone: bool,
    /// The default compute pipeline's subgroups are blocks of this many consecutive local invocation
    /// indices, each starting at a multiple of it, `SubgroupLocalInvocationId` is the index modulo it,
    /// and `OpGroupNonUniformShuffle` returns the named invocation's value (L44, decision D217): measured
    /// over whole workgroups of 64 by [`aligned_subgroup_size_of`] (each invocation records the
    /// `SubgroupSize` built-in, its local id, and its subgroup's shuffle of the invocation index by a
    /// permutation of the local ids). 0: not so, shuffles not supported in compute shaders, or not
    /// measured (the portable profile). lavapipe: **8**. Where the lane mapping's wave is a multiple of
    /// it, a cross-lane read whose source lane is provably in the reader's block is one shuffle, not an
    /// exchange through workgroup memory.
    #[serde(default)]
    pub aligned_subgroup_size: u32,
    /// Lane modules keep their workgroup memory in a storage texel buffer bound at descriptor set 0
    /// instead of `Workgroup` variables (decision D288): the driver compiles a workgroup load inside
    /// control flow as a loop over the invocations and a texel-buffer read as a gather, so the texel
    /// buffer halves the compile of LDS-heavy kernels (D287). Chosen by driver, not measured: lavapipe
    /// (**true**); false elsewhere, where shared memory is far faster than a buffer. Missing from a
    /// profile file written before it existed: false.
    #[serde(default)]
    pub lds_in_texel_buffer: bool,
}

/// The local id whose value invocation `local` reads in the layout probe's shuffle (a permutation of
/// `0..size` for a power of two `size`).
/// The value of a conservative flag missing from a profile file (serde's default).
fn conservative() -> bool {
    true
}

pub fn layout_probe_source(local: u32, size: u32) -> u32 {
    local.wrapping_mul(5).wrapping_add(3) & size.wrapping_sub(1)
}

/// [`DeviceProfile::aligned_subgroup_size`] from the layout probe's records, one per invocation of whole
/// workgroups of `local_size` invocations in index order: `[SubgroupSize, SubgroupLocalInvocationId,
/// shuffle of the invocation index from local id layout_probe_source(local id, SubgroupSize)]`. The size
/// S when every invocation saw one power-of-two S >= 2 dividing `local_size`, its local id is its local
/// index modulo S and the shuffle gave the index of the invocation S-block-aligned with it at the
/// permuted id; else 0 (any records give an answer).
pub fn aligned_subgroup_size_of(records: &[[u32; 3]], local_size: u32) -> u32 {
    let Some(first) = records.first() else {
        return 0;
    };
    let s = first[0];
    if s < 2 || !s.is_power_of_two() || local_size == 0 || !local_size.is_multiple_of(s) {
        return 0;
    }
    let ok = records.iter().enumerate().all(|(i, r)| {
        let i = i as u32;
        let local = (i % local_size) % s;
        r[0] == s && r[1] == local && r[2] == i - local + layout_probe_source(local, s)
    });
    if ok {
        s
    } else {
        0
    }
}

impl DeviceProfile {
    /// Loop iterations the portable profile assumes an invocation may run (lavapipe's measured cap).
    pub const PORTABLE_LOOP_CAP: u32 = 65_535;

    /// The profile that assumes nothing is IEEE-clean and nothing optional exists: every workaround on.
    ///
    /// Optional features (Float16, Float64, Int64, 16-bit storage) are assumed absent; the lowering has
    /// to emulate them or refuse with a clear error. Buffer device addresses and the Vulkan memory
    /// model are assumed present because Vulkan 1.3 makes both mandatory.
    pub fn portable() -> Self {
        DeviceProfile {
            device: None,
            div_sqrt_f32_correctly_rounded: false,
            fma_f32_fused: false,
            fma_f16_fused: false,
            fma_f64_fused: false,
            folds_add_zero: true,
            folds_mul_one: true,
            folds_mul_zero: true,
            preserves_subnormals_f32: false,
            preserves_subnormals_f16: false,
            preserves_subnormals_f64: false,
            denorm_preserve_mode_honoured: false,
            float_to_int: FloatToInt::Unknown,
            has_float16: false,
            has_float64: false,
            has_int64: false,
            has_int64_buffer_atomics: true,
            storage_buffer_16bit_access: false,
            vulkan_memory_model: true,
            buffer_device_address: true,
            subgroup_size: 1,
            required_subgroup_size_honoured: false,
            verified_subgroups: Vec::new(),
            loop_iteration_cap: Some(Self::PORTABLE_LOOP_CAP),
            subgroup_runs_alone: false,
            aligned_subgroup_size: 0,
            lds_in_texel_buffer: false,
        }
    }

    /// The measurement for a required subgroup size of `wave` (32 or 64), when it is trusted: the
    /// device ran subgroups of exactly `wave` invocations when asked for them.
    pub fn trusted_subgroup(&self, wave: u32) -> Option<&VerifiedSubgroup> {
        self.verified_subgroups
            .iter()
            .find(|v| v.requested == Some(wave) && v.trusted)
    }

    /// True when out-of-range and NaN float→int conversions already behave like RDNA's.
    pub fn float_to_int_saturates(&self) -> bool {
        self.float_to_int == FloatToInt::Saturating
    }

    /// The profile as pretty-printed JSON.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a struct of plain fields always serialises")
    }

    /// Reads a profile back from JSON (as written by [`to_json_pretty`](Self::to_json_pretty)).
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// One subgroup-size measurement (decision D085): a pipeline created with (or without) a required
/// subgroup size, dispatched over whole workgroups, each invocation recording the `SubgroupSize`
/// built-in, its `SubgroupLocalInvocationId`, the bit count of `subgroupBallot(true)`, `subgroupAdd(1)`
/// and `subgroupBroadcastFirst` of its own index (which names its subgroup).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifiedSubgroup {
    /// The `requiredSubgroupSize` asked for; `None`: the pipeline's default.
    pub requested: Option<u32>,
    /// The device advertises the request: `subgroupSizeControl`, COMPUTE in
    /// `requiredSubgroupSizeStages` and the size within `minSubgroupSize..=maxSubgroupSize`.
    pub advertised: bool,
    /// The request was made although it is not advertised (invalid usage a driver may accept; only
    /// done when asked to, e.g. by the test that catches lavapipe's silent 8).
    pub forced: bool,
    /// The largest `SubgroupSize` built-in any invocation saw.
    pub reported: u32,
    /// Invocations that really share a subgroup: the smallest group of invocations with one
    /// broadcast-first value, when every member's ballot count and `subgroupAdd(1)` agree with the
    /// group's size and its local ids are 0..size; else 0.
    pub effective: u32,
    /// `requested == Some(effective) == Some(reported)`: subgroup operations may stand for a wave.
    pub trusted: bool,
}

impl VerifiedSubgroup {
    /// Derives a measurement from the records of whole workgroups, one per invocation in index
    /// order: `[SubgroupSize, SubgroupLocalInvocationId, ballot bit count, subgroupAdd(1),
    /// broadcast-first of the invocation index]`. Total: any records give an answer (inconsistent
    /// ones an `effective` of 0).
    pub fn from_records(
        requested: Option<u32>,
        advertised: bool,
        forced: bool,
        records: &[[u32; 5]],
    ) -> Self {
        let reported = records.iter().map(|r| r[0]).max().unwrap_or(0);
        let mut groups: std::collections::BTreeMap<u32, Vec<&[u32; 5]>> = Default::default();
        for r in records {
            groups.entry(r[4]).or_default().push(r);
        }
        let consistent = !groups.is_empty()
            && groups.values().all(|members| {
                let n = members.len() as u32;
                let mut ids: Vec<u32> = members.iter().map(|r| r[1]).collect();
                ids.sort_unstable();
                ids.iter().copied().eq(0..n) && members.iter().all(|r| r[2] == n && r[3] == n)
            });
        let effective = if consistent {
            groups.values().map(|m| m.len() as u32).min().unwrap_or(0)
        } else {
            0
        };
        let trusted = effective != 0 && requested == Some(effective) && reported == effective;
        VerifiedSubgroup {
            requested,
            advertised,
            forced,
            reported,
            effective,
            trusted,
        }
    }
}

impl Default for DeviceProfile {
    fn default() -> Self {
        Self::portable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portable_turns_every_workaround_on() {
        let p = DeviceProfile::portable();
        assert!(!p.fma_f32_fused && !p.fma_f16_fused && !p.fma_f64_fused);
        assert!(p.folds_add_zero && p.folds_mul_one && p.folds_mul_zero);
        // Subnormals: the integer widening/narrowing emulations of D168 (crates/spirv/src/lower/quirks.rs).
        assert!(!p.preserves_subnormals_f32 && !p.preserves_subnormals_f16);
        assert!(!p.preserves_subnormals_f64 && !p.denorm_preserve_mode_honoured);
        assert!(!p.float_to_int_saturates());
        assert_eq!(p.loop_iteration_cap, Some(65_535));
        assert!(!p.subgroup_runs_alone);
        assert_eq!(DeviceProfile::default(), p);
    }

    #[test]
    fn json_round_trip() {
        let mut p = DeviceProfile::portable();
        p.device = Some(DeviceIdentity {
            name: "dev \"x\"".into(),
            driver: "d".into(),
            api_version: "1.3.0".into(),
            device_type: "cpu".into(),
        });
        let text = p.to_json_pretty();
        let back: DeviceProfile = serde_json::from_str(&text).unwrap();
        assert_eq!(back, p);
        let via_serde: DeviceProfile =
            serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(via_serde, p);
    }

    /// Records of `n` invocations run in subgroups of `size`, each seeing `builtin` as SubgroupSize.
    fn records(n: u32, size: u32, builtin: u32) -> Vec<[u32; 5]> {
        (0..n)
            .map(|i| [builtin, i % size, size, size, i - i % size])
            .collect()
    }

    #[test]
    fn a_subgroup_that_runs_what_was_asked_is_trusted() {
        let v = VerifiedSubgroup::from_records(Some(32), true, false, &records(128, 32, 32));
        assert_eq!((v.reported, v.effective, v.trusted), (32, 32, true));
    }

    #[test]
    fn reporting_32_while_running_8_is_not_trusted() {
        let v = VerifiedSubgroup::from_records(Some(32), false, true, &records(128, 8, 32));
        assert_eq!((v.reported, v.effective, v.trusted), (32, 8, false));
        let v = VerifiedSubgroup::from_records(Some(32), false, true, &records(128, 8, 8));
        assert_eq!((v.reported, v.effective, v.trusted), (8, 8, false));
    }

    #[test]
    fn inconsistent_counts_give_no_effective_size() {
        let mut r = records(64, 32, 32);
        r[5][2] = 31; // one ballot misses an invocation
        let v = VerifiedSubgroup::from_records(Some(32), true, false, &r);
        assert_eq!((v.effective, v.trusted), (0, false));
        let mut r = records(64, 32, 32);
        r[7][1] = 3; // two invocations claim local id 3
        assert_eq!(
            VerifiedSubgroup::from_records(Some(32), true, false, &r).effective,
            0
        );
        assert_eq!(
            VerifiedSubgroup::from_records(None, true, false, &[]).effective,
            0
        );
    }

    #[test]
    fn a_trusted_size_is_found_by_wave() {
        let mut p = DeviceProfile::portable();
        assert!(p.trusted_subgroup(32).is_none());
        p.verified_subgroups.push(VerifiedSubgroup::from_records(
            Some(32),
            false,
            true,
            &records(64, 8, 32),
        ));
        p.verified_subgroups.push(VerifiedSubgroup::from_records(
            Some(64),
            true,
            false,
            &records(64, 64, 64),
        ));
        assert!(p.trusted_subgroup(32).is_none());
        assert_eq!(p.trusted_subgroup(64).map(|v| v.effective), Some(64));
    }

    /// The layout probe's records of a device whose subgroups are `s`-blocks of consecutive invocations
    /// (the shuffle computed from that layout), over `n` invocations.
    fn layout_records(s: u32, n: u32) -> Vec<[u32; 3]> {
        (0..n)
            .map(|i| {
                let local = i % s;
                [s, local, i - local + layout_probe_source(local, s)]
            })
            .collect()
    }

    /// D217: the reading of the layout probe. Consistent records of blocks of 8 (lavapipe) or 32 give
    /// that size; a shuffle that read another invocation, a local id that is not the index modulo the
    /// size, a size that does not divide the workgroup or is not a power of two, mixed sizes and no
    /// records give 0.
    #[test]
    fn aligned_subgroup_size_needs_consecutive_blocks_and_a_working_shuffle() {
        assert_eq!(aligned_subgroup_size_of(&layout_records(8, 256), 64), 8);
        assert_eq!(aligned_subgroup_size_of(&layout_records(32, 256), 64), 32);
        assert_eq!(aligned_subgroup_size_of(&layout_records(64, 256), 64), 64);
        assert_eq!(aligned_subgroup_size_of(&layout_records(128, 256), 64), 0);
        assert_eq!(aligned_subgroup_size_of(&layout_records(12, 256), 64), 0);
        assert_eq!(aligned_subgroup_size_of(&layout_records(1, 256), 64), 0);
        assert_eq!(aligned_subgroup_size_of(&[], 64), 0);
        // layout_probe_source is a permutation of the ids (else a shuffle could go unchecked).
        for s in [2u32, 4, 8, 16, 32, 64] {
            let mut ids: Vec<u32> = (0..s).map(|l| layout_probe_source(l, s)).collect();
            ids.sort_unstable();
            assert!(ids.iter().copied().eq(0..s), "{s}");
        }
        let mut r = layout_records(8, 256);
        r[77][2] ^= 1;
        assert_eq!(aligned_subgroup_size_of(&r, 64), 0, "a wrong shuffle");
        let mut r = layout_records(8, 256);
        r[9][1] = 2;
        assert_eq!(
            aligned_subgroup_size_of(&r, 64),
            0,
            "a local id out of place"
        );
        let mut r = layout_records(8, 256);
        r[200][0] = 16;
        assert_eq!(aligned_subgroup_size_of(&r, 64), 0, "mixed sizes");
        // Subgroups of 8 made of every 8th invocation (not consecutive): each sees a local id 0..8 and its
        // own shuffle, but the id is not the index modulo 8.
        let strided: Vec<[u32; 3]> = (0..256u32)
            .map(|i| {
                let local = (i / 8) % 8;
                let base = i - (i % 64) + (i % 8);
                [8, local, base + 8 * layout_probe_source(local, 8)]
            })
            .collect();
        assert_eq!(
            aligned_subgroup_size_of(&strided, 64),
            0,
            "strided subgroups"
        );
    }
}
