//! Helpers of the memory-instruction tests (mem_*.rs): run a lifted kernel on lavapipe and in the
//! evaluator over the same buffers at the same device addresses, and a small deterministic RNG.
#![allow(dead_code)]

use rdna2spv_eval::{Launch, Memory};
use rdna2spv_ir::lift::{lift, LiftOptions};
use rdna2spv_ir::Program;
use rdna2spv_isa::Target;
use rdna2spv_spirv::lower::{lower_with, LowerOptions, Unaligned};
use rdna2spv_spirv::DeviceProfile;
use rdna2spv_vulkan::{kernel_layout, run_program, Context, RunOptions};

/// splitmix64.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Lifts raw gfx1030 words.
pub fn lift_words(name: &str, words: &[u32], ws: u32) -> Program {
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    lift(
        name,
        &code,
        LiftOptions {
            target: Target::Gfx1030,
            wave_size: ws,
            private_segment_buffer: None,
        },
    )
    .unwrap_or_else(|e| panic!("{name} lifts: {e}"))
}

/// Final buffer contents after a run on each backend.
pub struct Both {
    pub addresses: Vec<u64>,
    pub host: Vec<Vec<u8>>,
    pub device: Vec<Vec<u8>>,
}

/// Creates buffers holding `first`, then more holding `later(addresses of the first)` (tables that hold
/// addresses), runs `program` with `launch_of(all addresses)` on the device (unaligned accesses emulated)
/// and in the evaluator over identical buffers at the same addresses (the evaluator first: it checks every
/// access).
pub fn run_both(
    ctx: &Context,
    program: &Program,
    first: Vec<Vec<u8>>,
    later: impl FnOnce(&[u64]) -> Vec<Vec<u8>>,
    launch_of: impl FnOnce(&[u64]) -> Launch,
) -> Both {
    let mut init = first;
    let mut bufs = Vec::new();
    for b in &init {
        bufs.push(ctx.buffer_from_bytes(b).expect("buffer"));
    }
    let a: Vec<u64> = bufs.iter().map(|b| b.device_address()).collect();
    let more = later(&a);
    for b in &more {
        bufs.push(ctx.buffer_from_bytes(b).expect("buffer"));
    }
    init.extend(more);
    let addresses: Vec<u64> = bufs.iter().map(|b| b.device_address()).collect();
    let launch = launch_of(&addresses);
    let opts = LowerOptions {
        unaligned: Unaligned::Emulate,
        ..Default::default()
    };
    // The module the device runs must be valid SPIR-V.
    let words = lower_with(
        program,
        &kernel_layout(&launch),
        &DeviceProfile::portable(),
        &opts,
    )
    .unwrap_or_else(|e| panic!("{}: lowering failed: {e}", program.name));
    crate::common::spirv_val(&program.name, &words);
    let mut mem = Memory::default();
    for (i, b) in init.iter().enumerate() {
        mem.add(&format!("buf{i}"), addresses[i], b.clone())
            .unwrap();
    }
    rdna2spv_eval::run(program, &launch, &mut mem)
        .unwrap_or_else(|e| panic!("{}: host run failed: {e}", program.name));
    let host = (0..init.len())
        .map(|i| mem.allocation(&format!("buf{i}")).unwrap().data.clone())
        .collect();
    let opts = RunOptions {
        lower: opts,
        ..RunOptions::default()
    };
    run_program(ctx, program, &launch, &DeviceProfile::portable(), &opts)
        .unwrap_or_else(|e| panic!("{}: device run failed: {e}", program.name));
    let device: Vec<Vec<u8>> = bufs
        .iter()
        .map(|b| b.download_all().expect("download"))
        .collect();
    Both {
        addresses,
        host,
        device,
    }
}

/// Panics naming the first byte where host and device differ, or where the host differs from `want`.
pub fn expect_same(what: &str, host: &[u8], device: &[u8], want: &[u8]) {
    assert_eq!(host.len(), device.len());
    if let Some(k) = (0..host.len()).find(|&k| host[k] != device[k]) {
        panic!(
            "{what}: host and device differ first at byte {k} (word {}): {:#04x} vs {:#04x}",
            k / 4,
            host[k],
            device[k]
        );
    }
    if let Some(k) = (0..host.len()).find(|&k| host[k] != want[k]) {
        panic!(
            "{what}: host (= device) differs from the reference first at byte {k} (word {}): {:#04x}, reference {:#04x}",
            k / 4,
            host[k],
            want[k]
        );
    }
}

pub fn le_words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn words_le(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}
