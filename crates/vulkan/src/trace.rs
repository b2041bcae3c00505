//! Device traces (decision D040): run a program lowered with a [`TraceFilter`], give the module a zeroed
//! trace buffer of a chosen capacity, and decode what it appended into `rdna2spv_ir::trace::Record`s.
//! An overflow is an error ([`rdna2spv_ir::trace::TraceError::Overflow`]), never a silent truncation.

use rdna2spv_eval::Launch;
use rdna2spv_ir::trace::{
    decode_device, DeviceShape, Record, TraceError, TraceFilter, BUFFER_HEADER_WORDS, SINK_WORDS,
};
use rdna2spv_ir::{verify, Program};
use rdna2spv_spirv::lower::{LowerError, LowerOptions};
use rdna2spv_spirv::DeviceProfile;

use crate::run::{kernel_layout, run_program_extra, RunError, RunOptions, RunReport};
use crate::Context;

/// Default trace capacity: 16 Mi words (64 MiB).
pub const DEFAULT_TRACE_WORDS: u32 = 16 << 20;

/// Runs `program` with `opts` plus tracing by `filter` into a buffer of `capacity` words; returns the run
/// and its records in trace order.
pub fn run_program_traced(
    ctx: &Context,
    program: &Program,
    launch: &Launch,
    profile: &DeviceProfile,
    opts: &LowerOptions,
    filter: TraceFilter,
    capacity: u32,
) -> Result<(RunReport, Vec<Record>), RunError> {
    let types = verify(program).map_err(LowerError::from)?;
    let total = BUFFER_HEADER_WORDS as u64 + capacity as u64;
    let mut buf = ctx.create_buffer(4 * total)?;
    buf.upload_u32(0, &[0, capacity])?;
    let a = buf.device_address();
    let sink = ctx.create_buffer(4 * SINK_WORDS as u64)?;
    let sa = sink.device_address();
    let opts = RunOptions {
        lower: LowerOptions {
            trace: Some(filter),
            ..*opts
        },
        allocations: &[],
    };
    let report = run_program_extra(
        ctx,
        program,
        launch,
        profile,
        &opts,
        &[a as u32, (a >> 32) as u32, sa as u32, (sa >> 32) as u32],
    )?;
    let head = buf.download_u32(0, 2)?;
    if head[0] > capacity {
        return Err(TraceError::Overflow {
            needed: head[0] as u64,
            capacity: capacity as u64,
        }
        .into());
    }
    let words = buf.download_u32(0, BUFFER_HEADER_WORDS as usize + head[0] as usize)?;
    let layout = kernel_layout(launch);
    let shape = DeviceShape {
        wave_size: launch.wave_size,
        waves_per_workgroup: layout.waves_per_workgroup(),
        workgroups: layout.workgroups(launch.grid),
        workitem_id_vgprs: launch.workitem_id_vgprs,
    };
    let records = decode_device(program, &types, shape, &words)?;
    Ok((report, records))
}
