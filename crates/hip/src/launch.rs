//! One kernel launch: the kernarg segment laid out from the program's argument pointers and the kernel's
//! metadata, the hidden arguments and dispatch packet as `rdna2spv run` fills them (src/dispatch.rs), the
//! initial SGPRs, then the lifted kernel on the chosen backend over the whole device memory. `both` runs
//! the device first, then the host evaluator from the same starting memory at the same addresses, and
//! compares every allocation bit for bit.

use crate::config::Backend;
use crate::error::{code, fail, Failure, Result};
use crate::memory::Kind;
use crate::module::{Module, ShapeKey};
use crate::runtime::{Ready, Runtime};
use rdna2spv::dispatch::{
    dispatch_packet, fill_hidden_args, initial_sgprs, kernarg_bytes, launch_for, launch_segments,
    AQL_PACKET_BYTES,
};
use rdna2spv_codeobj::descriptor::{lds_granted, SgprKind};
use rdna2spv_codeobj::ValueKind;
use rdna2spv_eval::{Launch, Memory};
use rdna2spv_ir::Program;
use rdna2spv_spirv::lower::LowerOptions;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The explicit arguments' bytes.
pub enum Args {
    /// `hipLaunchKernel`'s / `hipModuleLaunchKernel`'s `kernelParams`: one pointer per explicit argument.
    Pointers(*mut *mut std::ffi::c_void),
    /// `hipModuleLaunchKernel`'s `extra` (`HIP_LAUNCH_PARAM_BUFFER_POINTER`): the explicit arguments laid out.
    Buffer(Vec<u8>),
}

/// Steps a wave may take before the evaluator calls it a hang (a program's kernels loop for real).
const MAX_STEPS_PER_WAVE: u64 = 1 << 32;
/// gfx1030: 64 KiB of LDS per workgroup, 1024 work-items per block.
const MAX_LDS: u32 = 64 * 1024;
const MAX_BLOCK: u32 = 1024;

/// Launches kernel `name` of module `module`: `blocks` workgroups of `block` work-items each.
pub fn launch(
    rt: &mut Runtime,
    module: usize,
    name: &str,
    blocks: [u32; 3],
    block: [u32; 3],
    shared: usize,
    args: Args,
) -> Result<()> {
    if blocks.contains(&0) || block.contains(&0) || block.iter().product::<u32>() > MAX_BLOCK {
        return fail(code::INVALID_CONFIGURATION);
    }
    let mut grid = [0u32; 3];
    for d in 0..3 {
        grid[d] = match blocks[d].checked_mul(block[d]) {
            Some(g) => g,
            None => return fail(code::INVALID_CONFIGURATION),
        };
    }
    rt.launches += 1;
    let number = rt.launches;
    rt.ready()?;
    let Runtime { ready, modules, .. } = rt;
    let ready = ready.as_mut().expect("ready");
    // `auto` (D252): modules lowered in the background go where `module_words` finds them, and to a child
    // that compiles them.
    if let Some(auto) = ready.auto.as_mut() {
        for done in auto.lowered() {
            if let Some(m) = modules.get_mut(done.module).and_then(|m| m.as_mut()) {
                keep_lowered(ready.disk.as_ref(), m, done);
            }
        }
    }
    let m = modules[module]
        .as_mut()
        .ok_or(Failure::Code(code::INVALID_HANDLE))?;
    let image_base = m.image_base;
    let origin = m.origin.clone();
    // A kernel whose metadata asks for a service this runtime does not provide (hostcalls for device-side
    // printf/malloc, a heap, a device queue) runs when its code never reaches the service: hipcc -O0 asks
    // for a hostcall buffer in every kernel. One that calls printf does not lift (the hostcall code jumps
    // through an untracked return address); the refusal then names the service next to the lift error.
    let service =
        m.co.kernel(name)
            .ok()
            .and_then(|k| k.metadata.as_ref())
            .and_then(service_asked);
    let lift = |m: &mut Module| -> Result<()> {
        match m.kernel(name) {
            Err(Failure::Stop(msg)) => {
                Err(Failure::Stop(lift_refusal(number, name, &msg, service)))
            }
            r => r.map(|_| ()),
        }
    };
    let backend = ready.config.backend;
    let lifted_before = m.entry(name)?.program.is_some();
    // The host evaluator runs the program; the device only needs it when its module is not cached (D160),
    // `auto` when the launch runs on the host.
    if matches!(backend, Backend::Host | Backend::Both) {
        lift(m)?;
    }
    let kernel = m.entry(name)?.kernel.clone();
    let what = format!("launch {number} ({})", kernel.name);
    let meta = kernel
        .metadata
        .as_ref()
        .ok_or_else(|| Failure::Stop(format!("{what}: the kernel has no metadata ({origin})")))?;

    // The kernarg segment.
    let mut kernarg = vec![0u8; kernarg_bytes(&kernel) as usize];
    let explicit: Vec<_> = meta.explicit_args().cloned().collect();
    for (i, a) in explicit.iter().enumerate() {
        let (off, size) = (a.offset as usize, a.size as usize);
        if off + size > kernarg.len() {
            return Err(Failure::Stop(format!(
                "{what}: argument {i} at offset {off} (+{size}) is outside the kernarg segment"
            )));
        }
        match a.value_kind {
            ValueKind::ByValue | ValueKind::GlobalBuffer => {}
            ref k => {
                return Err(Failure::Stop(format!(
                    "{what}: argument {i} is a {} argument, which is not supported by the rdna2spv HIP runtime",
                    k.as_str()
                )))
            }
        }
        match &args {
            Args::Pointers(p) => {
                if p.is_null() {
                    return fail(code::INVALID_VALUE);
                }
                // SAFETY: the program passes one pointer per explicit argument, each to `size` bytes.
                let src = unsafe { *p.add(i) } as *const u8;
                if src.is_null() {
                    return fail(code::INVALID_VALUE);
                }
                // SAFETY: as above.
                let bytes = unsafe { std::slice::from_raw_parts(src, size) };
                kernarg[off..off + size].copy_from_slice(bytes);
            }
            Args::Buffer(b) => {
                // The buffer is laid out as the kernarg segment's explicit part.
                if off + size > b.len() {
                    return fail(code::INVALID_VALUE);
                }
                kernarg[off..off + size].copy_from_slice(&b[off..off + size]);
            }
        }
    }
    fill_hidden_args(meta, &mut kernarg, grid, block);
    let mut launch = launch_for(&kernel, grid, block, MAX_STEPS_PER_WAVE).map_err(|e| {
        let m = format!("{e:#}");
        if m.contains("uses a dynamic stack") {
            // Met before the lift when the launch does not lift (a Vulkan launch, D160).
            Failure::Stop(format!(
                "{what}: {m}; hipcc -O0 code does, which is not supported by the rdna2spv HIP runtime yet (D160): rebuild with -O1 or higher"
            ))
        } else {
            Failure::Stop(m)
        }
    })?;
    let shared = u32::try_from(shared).unwrap_or(u32::MAX);
    launch.lds_bytes = launch.lds_bytes.saturating_add(shared);
    if launch.lds_bytes > MAX_LDS {
        return fail(code::INVALID_VALUE);
    }
    // The workgroup gets the LDS the hardware grants, whole 512-byte blocks (D200): rocPRIM's segmented
    // sort reads 4 bytes past its 16,440-byte group segment (a value it then discards), inside the
    // 16,896 bytes a real gfx1030 allocates.
    launch.lds_bytes = lds_granted(launch.lds_bytes);
    launch.code_base = image_base;

    // The launch's own memory: kernarg segment and dispatch packet.
    let mem = &mut ready.mem;
    let kernarg_address = mem.alloc(kernarg.len() as u64, Kind::Launch)?;
    mem.write(kernarg_address, &kernarg)?;
    let needs_packet = kernel
        .abi
        .user_sgprs
        .iter()
        .any(|s| s.kind == SgprKind::DispatchPtr);
    let packet_address = if needs_packet {
        let a = mem.alloc(AQL_PACKET_BYTES as u64, Kind::Launch)?;
        let kernel_object = image_base
            .unwrap_or(0)
            .wrapping_add(kernel.descriptor_address);
        mem.write(
            a,
            &dispatch_packet(&kernel, grid, block, kernel_object, kernarg_address),
        )?;
        a
    } else {
        0
    };
    launch.sgprs = initial_sgprs(&kernel.abi, kernarg_address, packet_address);

    let t0 = Instant::now();
    let mut cached = false;
    let mut cached_on_disk = false;
    let mut pipeline = "";
    // The dispatch's own time on the device (recording to fence), for the log.
    let mut device = None;
    // The checked launch's second run, against this many allocations (D250).
    let mut again = None;
    // `auto` (D252): why the launch ran on the host evaluator, or how long it waited for its compile.
    let mut on_host: Option<String> = None;
    let mut waited = None;
    // `auto` (D254): the host run the launch dropped when its pipeline compiled first.
    let mut raced: Option<String> = None;
    let result = (|| -> Result<()> {
        match backend {
            Backend::Host => {
                let program = m.entry(name)?.program.as_ref().expect("lifted");
                run_host(ready, program, &launch, &what)
            }
            Backend::Vulkan | Backend::Both | Backend::Auto => {
                let before = if backend == Backend::Both {
                    Some(ready.mem.snapshot()?)
                } else {
                    None
                };
                let ctx: &'static rdna2spv_vulkan::Context =
                    ready.vulkan.as_ref().expect("a Vulkan backend").0;
                let all = if ready.config.checked {
                    ready.mem.ranges()
                } else {
                    Vec::new()
                };
                // Checked (D250): the first run tests the accesses against the allocations the launch
                // reaches from its own memory (kernarg words, the dispatch packet, the code object's
                // image) and keeps no fault records (D184), so its module depends on the kernel alone,
                // not on how many allocations the program holds; it can only write inside those, whose
                // bytes are kept to run again with every allocation and records where it flags an
                // access. A kernel that reached further once goes straight to that module.
                let reached = if ready.config.checked && !m.entry(name)?.reaches_further {
                    let roots = [
                        Some(kernarg_address),
                        needs_packet.then_some(packet_address),
                        image_base,
                    ];
                    reached_allocations(&all, &kernarg, roots.into_iter().flatten())
                } else {
                    Vec::new()
                };
                let first_allocations = if reached.is_empty() { &all } else { &reached };
                let kept = reached
                    .iter()
                    .map(|&(base, size)| Ok((base, ready.mem.read(base, size)?)))
                    .collect::<Result<Vec<_>>>()?;
                let layout = rdna2spv_vulkan::kernel_layout(&launch);
                let opts = LowerOptions {
                    segments: launch_segments(&kernel),
                    check_flag_only: !reached.is_empty(),
                    ..LowerOptions::default()
                };
                let shape = Shape {
                    what: &what,
                    grid,
                    block,
                    layout: &layout,
                    launch: &launch,
                    opts,
                };
                // `auto` (D252): a module not lowered yet is lowered on a thread of its own while the
                // launch runs on the host evaluator.
                let defer = ready.auto.as_ref().is_some_and(|a| a.defers());
                let key = shape_key(&shape, first_allocations.len());
                // `auto`: a launch whose module is not compiled runs on the host evaluator, over a copy,
                // until its module's pipeline has compiled (D252, D254); then it runs here again, on the
                // device.
                let (words, from) = loop {
                    if raced.is_some() {
                        let auto = ready.auto.as_mut().expect("auto raced");
                        for done in auto.take_lowered(module) {
                            keep_lowered(ready.disk.as_ref(), m, done);
                        }
                    }
                    let lowering = ready
                        .auto
                        .as_ref()
                        .and_then(|a| a.lowering(module, name, &key));
                    let found = match lowering {
                        Some(why) => Err((why, None)),
                        None => match module_words(
                            ready,
                            m,
                            name,
                            &lift,
                            &shape,
                            first_allocations,
                            defer,
                        )? {
                            Words::Ready(w, from) => Ok((w, from)),
                            Words::Lower(task) => {
                                let auto = ready.auto.as_mut().expect("auto defers");
                                Err((auto.lower_in_background(module, name, key, task), None))
                            }
                        },
                    };
                    let found = match found {
                        Ok((words, from)) => match ready.auto.as_mut().map(|a| a.choose(&words)) {
                            Some(crate::auto::Choice::Host(why)) => {
                                Err((why, Some(crate::auto::module_key(&words))))
                            }
                            Some(crate::auto::Choice::Device { waited: w }) => {
                                waited = w;
                                Ok((words, from))
                            }
                            None => Ok((words, from)),
                        },
                        Err(e) => Err(e),
                    };
                    match found {
                        Ok(found) => break found,
                        Err((why, compiling)) => {
                            lift(m)?;
                            let program = m.entry(name)?.program.as_ref().expect("lifted");
                            let shape_of = (module, name, &key);
                            let t = Instant::now();
                            match run_host_racing(
                                ready, program, &launch, &what, shape_of, compiling,
                            )? {
                                Raced::Ran => {
                                    on_host = Some(why);
                                    return Ok(());
                                }
                                Raced::Compiled { workgroups } => {
                                    raced = Some(format!(
                                        "auto: {:.3} s and {workgroups} whole workgroups on the host evaluator while its pipeline compiled in the background, then on the device",
                                        t.elapsed().as_secs_f64()
                                    ));
                                }
                            }
                        }
                    }
                };
                (cached, cached_on_disk) = (from == ModuleFrom::Memory, from == ModuleFrom::Disk);
                let (created, hits) = ctx.pipeline_counts();
                let run = |m: &mut Module,
                           words: &[u32],
                           allocations: &[(u64, u64)]|
                 -> Result<_> {
                    let ran = match &m.entry(name)?.program {
                        Some(p) => Some(rdna2spv_vulkan::run_lowered(
                            ctx,
                            p,
                            &launch,
                            words,
                            allocations,
                        )),
                        None => {
                            rdna2spv_vulkan::run_lowered_unlifted(ctx, &launch, words, allocations)
                        }
                    };
                    Ok(match ran {
                        Some(r) => r,
                        // The coverage log needs the program.
                        None => {
                            lift(m)?;
                            let program = m.entry(name)?.program.as_ref().expect("lifted");
                            rdna2spv_vulkan::run_lowered(ctx, program, &launch, words, allocations)
                        }
                    })
                };
                let mut ran = run(m, &words, first_allocations)?;
                if let Some(auto) = ready.auto.as_mut() {
                    auto.dispatched(crate::auto::module_key(&words));
                }
                if !reached.is_empty()
                    && matches!(
                        ran,
                        Err(rdna2spv_vulkan::RunError::FaultUnrecorded { .. }
                            | rdna2spv_vulkan::RunError::NotFinished { .. })
                    )
                {
                    // An access outside the reached allocations (redirected, so nothing else was
                    // written): their bytes back, then every allocation with fault records, whose
                    // outcome stands (D250).
                    for (base, bytes) in &kept {
                        ready.mem.write(*base, bytes)?;
                    }
                    let shape = Shape {
                        opts: LowerOptions {
                            check_flag_only: false,
                            ..opts
                        },
                        ..shape
                    };
                    let (words, _) =
                        ready_words(module_words(ready, m, name, &lift, &shape, &all, false)?);
                    ran = run(m, &words, &all)?;
                    again = Some(all.len());
                    if ran.is_ok() {
                        m.entry(name)?.reaches_further = true;
                    }
                }
                let e = match ran {
                    Ok(report) => {
                        device = Some(report.dispatch.dispatch);
                        None
                    }
                    Err(e) => Some(e),
                };
                if let Some(e) = e {
                    // Name the faulting instruction from the program (lifted now when the module came
                    // from the disk; if it does not lift, the device's words stand).
                    let e = match m.entry(name)?.program.is_some() || lift(m).is_ok() {
                        true => rdna2spv_vulkan::name_in_program(
                            m.entry(name)?.program.as_ref().expect("lifted"),
                            e,
                        ),
                        false => e,
                    };
                    return Err(Failure::Stop(format!("{what}: on the device: {e}")));
                }
                let (created_now, hits_now) = ctx.pipeline_counts();
                pipeline = if created_now == created {
                    "pipeline reused"
                } else if hits_now > hits {
                    "pipeline from the pipeline cache"
                } else {
                    "pipeline compiled"
                };
                if created_now > created {
                    if let Some(d) = &ready.disk {
                        d.save_pipelines(ctx);
                    }
                }
                if let Some(before) = before {
                    let program = m.entry(name)?.program.as_ref().expect("lifted");
                    compare_with_host(ready, program, &launch, &what, before)?;
                }
                Ok(())
            }
        }
    })();
    let elapsed = t0.elapsed();
    ready.mem.free(kernarg_address, Kind::Launch)?;
    if needs_packet {
        ready.mem.free(packet_address, Kind::Launch)?;
    }
    result?;
    if ready.config.log {
        let lifted = match (lifted_before, m.entry(name)?.program.is_some()) {
            (false, true) => "lifted",
            (true, _) => "lifted before",
            (false, false) => "not lifted",
        };
        let pipeline_cache = match &ready.pipelines {
            Some((_, n)) => format!("; pipeline cache {n} bytes from the disk"),
            None => String::new(),
        };
        eprintln!(
            "rdna2spv: launch {number}: {} grid {}x{}x{} block {}x{}x{} on {}: {:.3} ms{} ({}){}",
            kernel.name,
            blocks[0],
            blocks[1],
            blocks[2],
            block[0],
            block[1],
            block[2],
            match (backend, &on_host) {
                (Backend::Host, _) | (Backend::Auto, Some(_)) => "host",
                (Backend::Vulkan, _) | (Backend::Auto, None) => "vulkan",
                (Backend::Both, _) => "vulkan+host",
            },
            elapsed.as_secs_f64() * 1e3,
            match device {
                Some(d) => format!(" (device {:.3} ms)", d.as_secs_f64() * 1e3),
                None => String::new(),
            },
            match backend {
                Backend::Host => lifted.to_string(),
                Backend::Auto if on_host.is_some() => format!(
                    "{lifted}; auto: {}",
                    on_host.as_deref().unwrap_or_default()
                ),
                _ if cached_on_disk => format!("{lifted}; module from the disk cache; {pipeline}"),
                _ if cached => format!("{lifted}; module cached; {pipeline}"),
                _ => format!("{lifted}; module lowered; {pipeline}"),
            } + &match again {
                Some(n) => format!(
                    "; an access outside the allocations its launch points into: ran again against all {n}"
                ),
                None => String::new(),
            } + &match &raced {
                Some(r) => format!("; {r}"),
                None => String::new(),
            } + &match waited {
                Some(w) => format!(
                    "; auto: waited {:.3} s for its pipeline's compile in the background",
                    w.as_secs_f64()
                ),
                None => String::new(),
            },
            if backend == Backend::Host || on_host.is_some() {
                String::new()
            } else {
                pipeline_cache
            },
        );
    }
    Ok(())
}

/// What a launch's module is lowered for, besides the program and the allocations.
#[derive(Clone, Copy)]
struct Shape<'a> {
    what: &'a str,
    grid: [u32; 3],
    block: [u32; 3],
    layout: &'a rdna2spv_spirv::lower::KernelLayout,
    launch: &'a Launch,
    opts: LowerOptions,
}

/// Where a launch's module came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ModuleFrom {
    Memory,
    Disk,
    Lowered,
}

/// The key of a launch's module in its kernel's memory ([`crate::module::LiftedKernel::lowered`]).
fn shape_key(shape: &Shape, allocations: usize) -> ShapeKey {
    (
        shape.grid,
        shape.block,
        shape.launch.lds_bytes,
        allocations,
        shape.opts.check_flag_only,
    )
}

/// A launch's module to lower, with everything it is lowered from (`auto` lowers it on a thread of its
/// own while the launch runs on the host evaluator, D252).
pub struct LowerTask {
    ctx: &'static rdna2spv_vulkan::Context,
    profile: rdna2spv_vulkan::DeviceProfile,
    program: Program,
    layout: rdna2spv_spirv::lower::KernelLayout,
    launch: Launch,
    opts: LowerOptions,
    allocations: Vec<(u64, u64)>,
    what: String,
    /// The disk cache's key, where the cache is on.
    pub disk_key: Option<String>,
}

impl LowerTask {
    pub fn lower(&self) -> Result<Vec<u32>> {
        lower_module(
            self.ctx,
            &self.profile,
            &self.program,
            &self.layout,
            &self.launch,
            self.opts,
            &self.allocations,
            &self.what,
        )
    }
}

/// The mapping `run` takes, checked or not (D158, D249: the lane mapping where its checked lowering
/// accepts the kernel), and the module lowered for it.
#[allow(clippy::too_many_arguments)]
fn lower_module(
    ctx: &rdna2spv_vulkan::Context,
    profile: &rdna2spv_vulkan::DeviceProfile,
    program: &Program,
    layout: &rdna2spv_spirv::lower::KernelLayout,
    launch: &Launch,
    mut opts: LowerOptions,
    allocations: &[(u64, u64)],
    what: &str,
) -> Result<Vec<u32>> {
    let choice = LowerOptions {
        checked: u16::try_from(allocations.len()).ok().filter(|&n| n > 0),
        ..opts
    };
    opts.mapping =
        rdna2spv_spirv::lower::choose_mapping(program, layout, profile, &choice).mapping();
    rdna2spv_vulkan::lower_for_run(
        ctx,
        program,
        launch,
        profile,
        &rdna2spv_vulkan::RunOptions {
            lower: opts,
            allocations,
        },
    )
    .map_err(|e| Failure::Stop(format!("{what}: translating: {e}")))
}

/// A launch's module, or (`defer`) what lowering it takes.
enum Words {
    Ready(Arc<Vec<u32>>, ModuleFrom),
    Lower(Box<LowerTask>),
}

/// The module of kernel `name` for `shape`, checked against `allocations` when not empty: from the
/// module's memory, else the disk cache, else lowered (and put in both); with `defer`, what lowering it
/// takes instead.
fn module_words(
    ready: &Ready,
    m: &mut Module,
    name: &str,
    lift: &dyn Fn(&mut Module) -> Result<()>,
    shape: &Shape,
    allocations: &[(u64, u64)],
    defer: bool,
) -> Result<Words> {
    let (ctx, profile) = ready.vulkan.as_ref().expect("a Vulkan backend");
    let Shape {
        what,
        grid,
        layout,
        launch,
        opts,
        ..
    } = *shape;
    let key = shape_key(shape, allocations.len());
    if let Some(w) = m.entry(name)?.lowered.get(&key) {
        return Ok(Words::Ready(w.clone(), ModuleFrom::Memory));
    }
    // Everything the mapping choice and the lowering read: the program through what it is a function
    // of (the loaded bytes' digest and the kernel's name; the runtime's build is in the cache's
    // identity), the layout with its address words cleared (as device::ModuleKey clears them: they
    // are read at run time), grid, device, options (the flag-only form among them).
    let disk_key = ready.disk.as_ref().map(|_| {
        let mut l = layout.clone();
        for (_, v) in &mut l.sgprs {
            if let rdna2spv_spirv::lower::SgprInit::Const(c) = v {
                *c = 0;
            }
        }
        l.code_base = l.code_base.map(|_| 0);
        format!(
            "device {} {:?}\nprofile {profile:?}\nopts {opts:?}\ngrid {grid:?}\nchecked {}\nlayout {l:?}\ncode {} kernel {name}",
            ctx.info().name,
            ctx.info().max_workgroup_count,
            allocations.len(),
            m.digest,
        )
    });
    let from_disk = match (&ready.disk, &disk_key) {
        (Some(d), Some(k)) => d.get(k),
        _ => None,
    };
    let on_disk = from_disk.is_some();
    let w = match from_disk {
        Some(w) => w,
        None => {
            lift(m)?;
            let program = m.entry(name)?.program.as_ref().expect("lifted");
            if defer {
                return Ok(Words::Lower(Box::new(LowerTask {
                    ctx,
                    profile: profile.clone(),
                    program: program.clone(),
                    layout: layout.clone(),
                    launch: launch.clone(),
                    opts,
                    allocations: allocations.to_vec(),
                    what: what.to_string(),
                    disk_key,
                })));
            }
            let w = lower_module(
                ctx,
                profile,
                program,
                layout,
                launch,
                opts,
                allocations,
                what,
            )?;
            if let (Some(d), Some(k)) = (&ready.disk, &disk_key) {
                d.put(k, &w);
            }
            w
        }
    };
    let w = Arc::new(w);
    m.entry(name)?.lowered.insert(key, w.clone());
    let from = if on_disk {
        ModuleFrom::Disk
    } else {
        ModuleFrom::Lowered
    };
    Ok(Words::Ready(w, from))
}

/// Where `module_words` returned its module (never a task without `defer`).
fn ready_words(w: Words) -> (Arc<Vec<u32>>, ModuleFrom) {
    match w {
        Words::Ready(w, from) => (w, from),
        Words::Lower(_) => unreachable!("a module to lower, not asked for"),
    }
}

/// The allocations a launch reaches from its own memory (D250): each allocation that holds, or ends at,
/// one of `roots` or a 64-bit value at any 4-byte offset of the kernarg segment `kernarg` (pointer
/// arguments, pointers inside struct arguments, hidden pointers). `all` is every allocation by address.
fn reached_allocations(
    all: &[(u64, u64)],
    kernarg: &[u8],
    roots: impl Iterator<Item = u64>,
) -> Vec<(u64, u64)> {
    let words = kernarg
        .windows(8)
        .step_by(4)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")));
    let mut hit = vec![false; all.len()];
    for v in roots.chain(words) {
        // The last allocation starting at or below v.
        let i = all.partition_point(|&(base, _)| base <= v);
        if let Some(i) = i.checked_sub(1) {
            let (base, size) = all[i];
            if v - base <= size {
                hit[i] = true;
            }
        }
    }
    all.iter()
        .zip(hit)
        .filter_map(|(&a, h)| h.then_some(a))
        .collect()
}

/// The message for a kernel that does not lift (`msg`), naming what it needs where that is known (D160):
/// a host service its metadata asks for (`asked`), named from the device-library function the lifter's call
/// chain went through — hipcc keeps `__ockl_dm_alloc`/`__ockl_dm_dealloc` (device-side malloc/free) out of
/// line, so the chain names them; it inlines printf's `__ockl_printf_begin`/`_append_*` into the kernel,
/// whose own call of `__ockl_hostcall_internal` is then printf's — or hipcc -O0 code, whose functions keep
/// their return addresses in their scratch frames (the call tracker, D099, loses them there). Any other
/// refusal is `msg` unchanged.
fn lift_refusal(number: u64, name: &str, msg: &str, asked: Option<&str>) -> String {
    let feature = if let Some(f) = ["__ockl_dm_alloc", "__ockl_dm_dealloc"]
        .into_iter()
        .find(|f| msg.contains(&format!("{f} →")) || msg.contains(&format!("at {f}+")))
    {
        Some(format!("device-side malloc/free ({f})"))
    } else if msg.contains("at __ockl_hostcall_internal+") && !msg.contains(" → ") {
        Some("device-side printf (the kernel's own hostcall, __ockl_hostcall_internal)".to_string())
    } else if msg.contains("__ockl_hostcall") {
        Some(format!(
            "a host service ({})",
            asked.unwrap_or("a hostcall")
        ))
    } else {
        None
    };
    match feature {
        Some(feature) => format!(
            "launch {number} ({name}): the kernel calls {feature}, which is not supported by the rdna2spv HIP runtime (its metadata asks for {}; lifting stopped: {msg})",
            asked.unwrap_or("no host service")
        ),
        None if msg.contains("a return address that was not tracked") => format!(
            "launch {number} ({name}): the kernel's functions keep their return addresses in scratch memory, as hipcc -O0 code does, which is not supported by the rdna2spv HIP runtime yet (D160); rebuild with -O1 or higher (lifting stopped: {msg})"
        ),
        None => msg.to_string(),
    }
}

/// The service a kernel's hidden arguments ask for that this runtime does not provide: a hostcall or
/// printf buffer (device-side printf, malloc), a device heap, a device-side enqueue queue.
fn service_asked(meta: &rdna2spv_codeobj::KernelMetadata) -> Option<&'static str> {
    meta.hidden_args().find_map(|a| match a.value_kind {
        ValueKind::HiddenHostcallBuffer => Some("a hostcall buffer (device-side printf or malloc)"),
        ValueKind::HiddenPrintfBuffer => Some("a printf buffer (device-side printf)"),
        ValueKind::HiddenHeapV1 => Some("a heap (device-side malloc)"),
        ValueKind::HiddenDefaultQueue | ValueKind::HiddenCompletionAction => {
            Some("a device-side enqueue queue")
        }
        _ => None,
    })
}

/// The evaluator's memory holding `snapshot`'s allocations at their addresses.
fn eval_memory(snapshot: impl IntoIterator<Item = (u64, Kind, Vec<u8>)>) -> Result<Memory> {
    let mut m = Memory::default();
    for (base, kind, data) in snapshot {
        m.add(&alloc_name(base, kind), base, data)
            .map_err(Failure::Stop)?;
    }
    Ok(m)
}

fn alloc_name(base: u64, kind: Kind) -> String {
    match kind {
        Kind::Malloc => format!("hipMalloc@{base:#x}"),
        Kind::Image(m) => format!("code object image {m}@{base:#x}"),
        Kind::Launch => format!("kernarg/dispatch packet@{base:#x}"),
    }
}

/// How [`run_host_racing`] ended.
enum Raced {
    /// The evaluator ran the launch; its copy of memory was written back.
    Ran,
    /// The module's pipeline compiled first: the evaluator stopped (after `workgroups` whole workgroups)
    /// and its copy was dropped, nothing written back.
    Compiled { workgroups: u64 },
}

/// `auto` (D252, D254): the host evaluator over a copy of every allocation (device buffers), whose bytes
/// then go back to the device where a store reached them, on a thread of its own while this thread watches
/// the module of kernel `shape_of` (code object, name, shape): its lowering, then its child's compile
/// (`compiling`: its key, when known). Once the pipeline has compiled the evaluator stops (before its next
/// workgroup, or within 65,536 steps of a wave) and the launch goes to the device, so a launch heavy on the evaluator costs little more than
/// waiting for the compile would have (rocRAND's xorwow initialisation: 11.2 s on the evaluator).
fn run_host_racing(
    ready: &mut crate::runtime::Ready,
    program: &Program,
    launch: &Launch,
    what: &str,
    shape_of: (usize, &str, &ShapeKey),
    compiling: Option<u64>,
) -> Result<Raced> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let mut m = eval_memory(ready.mem.snapshot()?)?;
    let cancel = AtomicBool::new(false);
    let auto = ready.auto.as_mut().expect("auto");
    let watcher = std::thread::current();
    let result = std::thread::scope(|s| {
        let evaluator = std::thread::Builder::new()
            .name("rdna2spv-host".into())
            .spawn_scoped(s, || {
                let r = rdna2spv_eval::run_cancellable(program, launch, &mut m, &cancel);
                // A short launch ends its watcher's wait at once.
                watcher.unpark();
                r
            });
        let Ok(evaluator) = evaluator else {
            // No thread: the launch runs here, to its end.
            return None;
        };
        let (module, name, key) = shape_of;
        let mut target = compiling;
        while !evaluator.is_finished() {
            std::thread::park_timeout(Duration::from_millis(10));
            auto.collect();
            target = target.or_else(|| auto.lowered_key(module, name, key));
            if target.is_some_and(|k| auto.compiled(k)) {
                cancel.store(true, Ordering::Relaxed);
                break;
            }
        }
        Some(
            evaluator
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
        )
    });
    let result = match result {
        Some(r) => r,
        None => rdna2spv_eval::run(program, launch, &mut m),
    };
    if let Err(rdna2spv_eval::EvalError::Cancelled { workgroups }) = result {
        return Ok(Raced::Compiled { workgroups });
    }
    let result = result
        .map(|_| Raced::Ran)
        .map_err(|e| Failure::Stop(format!("{what}: on the host evaluator: {e}")));
    // An allocation no store reached holds the device's bytes still.
    for a in m.into_allocations().into_iter().filter(|a| a.written) {
        ready.mem.write(a.base, &a.data)?;
    }
    result
}

/// A module lowered in the background (`auto`): into the disk cache and its kernel's entry.
fn keep_lowered(
    disk: Option<&crate::cache::DiskCache>,
    m: &mut Module,
    done: crate::auto::Lowered,
) {
    if let (Some(d), Some(k)) = (disk, &done.disk_key) {
        d.put(k, &done.words);
    }
    if let Ok(e) = m.entry(&done.name) {
        e.lowered.insert(done.key, done.words);
    }
}

/// The host evaluator over every allocation, whose bytes move into its memory and back (no copy).
fn run_host(
    ready: &mut crate::runtime::Ready,
    program: &Program,
    launch: &Launch,
    what: &str,
) -> Result<()> {
    let taken = ready.mem.take_host();
    let mut m = Memory::default();
    let mut added = Ok(());
    for (base, kind, data) in taken {
        if added.is_ok() {
            added = m.add(&alloc_name(base, kind), base, data);
        }
    }
    let result = match added {
        Ok(()) => rdna2spv_eval::run(program, launch, &mut m)
            .map(|_| ())
            .map_err(|e| Failure::Stop(format!("{what}: on the host evaluator: {e}"))),
        Err(e) => Err(Failure::Stop(e)),
    };
    for a in m.into_allocations() {
        ready.mem.put_back(a.base, a.data);
    }
    result
}

/// `both`: the host evaluator from `before` at the same addresses, compared with the device's memory now.
fn compare_with_host(
    ready: &mut crate::runtime::Ready,
    program: &Program,
    launch: &Launch,
    what: &str,
    before: Vec<(u64, Kind, Vec<u8>)>,
) -> Result<()> {
    let mut m = eval_memory(before.iter().cloned())?;
    rdna2spv_eval::run(program, launch, &mut m)
        .map_err(|e| Failure::Stop(format!("{what}: on the host evaluator: {e}")))?;
    for (base, kind, old) in &before {
        let host = &m.allocation(&alloc_name(*base, *kind)).expect("added").data;
        let device = ready.mem.read(*base, old.len() as u64)?;
        if let Some(i) = host.iter().zip(&device).position(|(h, d)| h != d) {
            let w = i & !3;
            let word = |v: &[u8]| {
                let mut b = [0u8; 4];
                for (k, x) in v[w..(w + 4).min(v.len())].iter().enumerate() {
                    b[k] = *x;
                }
                u32::from_le_bytes(b)
            };
            return Err(Failure::Mismatch(format!(
                "{what}: host and device differ at address {:#x} ({} + {i}): host word 0x{:08x}, device word 0x{:08x}",
                base + i as u64,
                alloc_name(*base, *kind),
                word(host),
                word(&device)
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::reached_allocations;

    /// D250's reach: a kernarg value at any 4-byte offset, inside an allocation or at its end, reaches it;
    /// values between allocations, before the first or past an end, reach nothing; roots count like
    /// kernarg values.
    #[test]
    fn reached_allocations_are_those_the_launch_points_into() {
        let all = [(0x1000, 0x100), (0x2000, 0x10), (0x3000, 0), (0x4000, 0x40)];
        let mut kernarg = vec![0u8; 40];
        // Offset 4 (not 8-aligned): the end of the second allocation.
        kernarg[4..12].copy_from_slice(&0x2010u64.to_le_bytes());
        // Offset 16: a gap; offset 24: one past an end; offset 32: below the first.
        kernarg[16..24].copy_from_slice(&0x1800u64.to_le_bytes());
        kernarg[24..32].copy_from_slice(&0x4041u64.to_le_bytes());
        kernarg[32..40].copy_from_slice(&0x0fffu64.to_le_bytes());
        assert_eq!(
            reached_allocations(&all, &kernarg, [0x10ffu64].into_iter()),
            vec![(0x1000, 0x100), (0x2000, 0x10)]
        );
        // A zero-sized allocation is reached at its address; nothing reaches the others.
        assert_eq!(
            reached_allocations(&all, &[0; 8], [0x3000u64].into_iter()),
            vec![(0x3000, 0)]
        );
        assert_eq!(reached_allocations(&all, &[], std::iter::empty()), vec![]);
    }
}
