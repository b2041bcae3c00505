//! Verifying a required subgroup size by what a shader measures (decision D085).
//!
//! A device can advertise or accept `requiredSubgroupSize = 32` and still run subgroups of 8:
//! lavapipe (Mesa 22.3.6) advertises 8..=8, accepts a forced request for 32 or 64 without an error,
//! and runs 8. The lane-per-invocation lowering may only exchange a wave's values through subgroup
//! operations when a subgroup really holds the wave, so the size is taken from what invocations
//! observe together, never from properties or the `SubgroupSize` built-in alone:
//!
//! each invocation of whole 64-wide workgroups records `SubgroupSize`, `SubgroupLocalInvocationId`,
//! the bit count of `subgroupBallot(true)`, `subgroupAdd(1)` and `subgroupBroadcastFirst(index)`.
//! Invocations with one broadcast-first value share a subgroup; [`VerifiedSubgroup::from_records`]
//! checks every member's ballot count and sum against the group's size and derives the effective
//! size.

use spirv::{BuiltIn, Capability, GroupOperation, Word};

use crate::kernel::{KernelBuilder, PushArgs, LOCAL_SIZE};
use crate::{Context, DispatchOptions, Result};
use rdna2spv_spirv::VerifiedSubgroup;

/// Workgroups the probe dispatches (of [`LOCAL_SIZE`] = 64 invocations each).
pub const PROBE_WORKGROUPS: u32 = 4;

/// Words each invocation records (see the module documentation).
pub const RECORD_WORDS: usize = 5;

/// The probe kernel: per invocation `[SubgroupSize, SubgroupLocalInvocationId,
/// bitCount(subgroupBallot(true)), subgroupAdd(1), subgroupBroadcastFirst(GlobalInvocationId.x)]`.
pub fn probe_module() -> Vec<u32> {
    let mut k = KernelBuilder::new(&[
        Capability::GroupNonUniform,
        Capability::GroupNonUniformBallot,
        Capability::GroupNonUniformArithmetic,
    ]);
    let u = k.t.u32;
    let size = k.load_builtin(u, BuiltIn::SubgroupSize);
    let local = k.load_builtin(u, BuiltIn::SubgroupLocalInvocationId);
    let scope = k.const32(u, spirv::Scope::Subgroup as u32);
    let one = k.const32(u, 1);
    let yes = k.b.constant_true(k.t.bool);
    let v4 = k.b.type_vector(u, 4);
    let ballot =
        k.b.group_non_uniform_ballot(v4, None, scope, yes)
            .expect("block open");
    let count =
        k.b.group_non_uniform_ballot_bit_count(u, None, scope, GroupOperation::Reduce, ballot)
            .expect("block open");
    let sum =
        k.b.group_non_uniform_i_add(u, None, scope, GroupOperation::Reduce, one, None)
            .expect("block open");
    let index = k.index();
    let first =
        k.b.group_non_uniform_broadcast_first(u, None, scope, index)
            .expect("block open");
    let stride = (RECORD_WORDS * 4) as u64;
    for (i, w) in [size, local, count, sum, first].into_iter().enumerate() {
        k.store32(w, stride, i as u64);
    }
    k.finish()
}

/// The device advertises `size` as a required subgroup size for compute shaders.
pub fn advertised(ctx: &Context, size: u32) -> bool {
    let (f, i) = (ctx.features(), ctx.info());
    f.subgroup_size_control
        && i.required_subgroup_size_compute
        && (i.min_subgroup_size..=i.max_subgroup_size).contains(&size)
}

/// Runs the probe kernel with `requested` as the required subgroup size (`None`: the default) and
/// returns the per-invocation records.
pub fn measure_records(
    ctx: &Context,
    requested: Option<u32>,
    force: bool,
) -> Result<Vec<[u32; RECORD_WORDS]>> {
    run_records(
        ctx,
        &probe_module(),
        &DispatchOptions {
            required_subgroup_size: requested,
            force_required_subgroup_size: force,
            ..Default::default()
        },
    )
}

/// Dispatches a probe `module` over [`PROBE_WORKGROUPS`] workgroups of [`LOCAL_SIZE`] and returns each
/// invocation's record of `N` words, in invocation order.
fn run_records<const N: usize>(
    ctx: &Context,
    module: &[u32],
    options: &DispatchOptions,
) -> Result<Vec<[u32; N]>> {
    let n = PROBE_WORKGROUPS * LOCAL_SIZE;
    let out = ctx.create_buffer(u64::from(n) * N as u64 * 4)?;
    let inp = ctx.create_buffer(16)?;
    let args = PushArgs {
        input: inp.device_address(),
        output: out.device_address(),
        count: n,
        param: 0,
    };
    ctx.dispatch_with(module, "main", args.workgroups(), &args.to_bytes(), options)?;
    let words = out.download_u32(0, n as usize * N)?;
    Ok(words
        .chunks_exact(N)
        .map(|c| c.try_into().expect("N words"))
        .collect())
}

/// A probe kernel with the subgroup capability and `extra`: (builder, `SubgroupSize`,
/// `SubgroupLocalInvocationId`, the subgroup scope constant).
fn subgroup_kernel(extra: Capability) -> (KernelBuilder, Word, Word, Word) {
    let mut k = KernelBuilder::new(&[Capability::GroupNonUniform, extra]);
    let u = k.t.u32;
    let size = k.load_builtin(u, BuiltIn::SubgroupSize);
    let local = k.load_builtin(u, BuiltIn::SubgroupLocalInvocationId);
    let scope = k.const32(u, spirv::Scope::Subgroup as u32);
    (k, size, local, scope)
}

/// Measures the effective subgroup size when `requested` is asked for. A size the device does not
/// advertise is only requested with `force` (else the default pipeline is measured and the answer
/// is not trusted for `requested`).
pub fn verify(ctx: &Context, requested: Option<u32>, force: bool) -> Result<VerifiedSubgroup> {
    let adv = requested.is_none_or(|s| advertised(ctx, s));
    let forced = !adv && force;
    let ask = if adv || forced { requested } else { None };
    let records = measure_records(ctx, ask, forced)?;
    let mut v = VerifiedSubgroup::from_records(requested, adv, forced, &records);
    if ask.is_none() && requested.is_some() {
        // Not requested at all: what ran says nothing about honouring the size.
        v.trusted = false;
    }
    Ok(v)
}

/// Words each invocation records in the layout probe ([`layout_module`]).
pub const LAYOUT_RECORD_WORDS: usize = 3;

/// The layout probe (L44, decision D217): per invocation of the default pipeline `[SubgroupSize,
/// SubgroupLocalInvocationId, subgroupShuffle(GlobalInvocationId.x, layout_probe_source(local id,
/// SubgroupSize))]`, read by [`rdna2spv_spirv::aligned_subgroup_size_of`].
pub fn layout_module() -> Vec<u32> {
    let (mut k, size, local, scope) = subgroup_kernel(Capability::GroupNonUniformShuffle);
    let u = k.t.u32;
    // layout_probe_source: (local * 5 + 3) & (size - 1).
    let five = k.const32(u, 5);
    let three = k.const32(u, 3);
    let one = k.const32(u, 1);
    let m = k.b.i_mul(u, None, local, five).expect("block open");
    let m = k.b.i_add(u, None, m, three).expect("block open");
    let low = k.b.i_sub(u, None, size, one).expect("block open");
    let src = k.b.bitwise_and(u, None, m, low).expect("block open");
    let index = k.index();
    let got =
        k.b.group_non_uniform_shuffle(u, None, scope, index, src)
            .expect("block open");
    let stride = (LAYOUT_RECORD_WORDS * 4) as u64;
    for (i, w) in [size, local, got].into_iter().enumerate() {
        k.store32(w, stride, i as u64);
    }
    k.finish()
}

/// Measures [`rdna2spv_spirv::DeviceProfile::aligned_subgroup_size`]: 0 when the device does not
/// support shuffles in compute shaders, the probe cannot run, or its records show another layout.
pub fn aligned_size(ctx: &Context) -> Result<(u32, Vec<[u32; LAYOUT_RECORD_WORDS]>)> {
    if !ctx.info().subgroup_shuffle_compute {
        return Ok((0, Vec::new()));
    }
    let records = run_records(ctx, &layout_module(), &DispatchOptions::default())?;
    Ok((
        rdna2spv_spirv::aligned_subgroup_size_of(&records, LOCAL_SIZE),
        records,
    ))
}
