//! The device this runtime reports: a gfx1030 (Radeon RX 6800 XT class: 72 compute units, 16 GiB), so
//! programs and libraries pick their gfx1030 code. `hipDeviceProp_t` is written at the byte offsets of HIP
//! 5.2's hip_runtime_api.h (792 bytes; offsets measured with offsetof on the installed header, D156).

/// sizeof(hipDeviceProp_t) in HIP 5.2.
pub const PROP_BYTES: usize = 792;

pub const TOTAL_GLOBAL_MEM: u64 = 16 << 30;
pub const SHARED_MEM_PER_BLOCK: u64 = 64 << 10;
pub const WARP_SIZE: i32 = 32;
pub const MAX_THREADS_PER_BLOCK: i32 = 1024;
pub const MAX_GRID: [i32; 3] = [i32::MAX, 65536, 65536];
pub const COMPUTE_UNITS: i32 = 72;
pub const CLOCK_KHZ: i32 = 2_250_000;
pub const MEMORY_CLOCK_KHZ: i32 = 1_000_000;
pub const MEMORY_BUS_WIDTH: i32 = 256;
pub const L2_CACHE: i32 = 4 << 20;
pub const MAX_THREADS_PER_CU: i32 = 2048;
pub const TOTAL_CONST_MEM: u64 = 2 << 30;
pub const REGS_PER_BLOCK: i32 = 65536;

/// The bytes of `hipDeviceProp_t`.
pub fn properties() -> [u8; PROP_BYTES] {
    let mut p = [0u8; PROP_BYTES];
    let mut put = |off: usize, v: &[u8]| p[off..off + v.len()].copy_from_slice(v);
    put(0, b"AMD Radeon RX 6800 XT (rdna2spv)\0");
    put(256, &TOTAL_GLOBAL_MEM.to_le_bytes()); // totalGlobalMem
    put(264, &SHARED_MEM_PER_BLOCK.to_le_bytes()); // sharedMemPerBlock
    put(272, &REGS_PER_BLOCK.to_le_bytes()); // regsPerBlock
    put(276, &WARP_SIZE.to_le_bytes()); // warpSize
    put(280, &MAX_THREADS_PER_BLOCK.to_le_bytes()); // maxThreadsPerBlock
    for (i, v) in [1024i32, 1024, 1024].iter().enumerate() {
        put(284 + 4 * i, &v.to_le_bytes()); // maxThreadsDim
    }
    for (i, v) in MAX_GRID.iter().enumerate() {
        put(296 + 4 * i, &v.to_le_bytes()); // maxGridSize
    }
    put(308, &CLOCK_KHZ.to_le_bytes()); // clockRate (kHz)
    put(312, &MEMORY_CLOCK_KHZ.to_le_bytes()); // memoryClockRate
    put(316, &MEMORY_BUS_WIDTH.to_le_bytes()); // memoryBusWidth
    put(320, &TOTAL_CONST_MEM.to_le_bytes()); // totalConstMem
    put(328, &10i32.to_le_bytes()); // major
    put(332, &3i32.to_le_bytes()); // minor
    put(336, &COMPUTE_UNITS.to_le_bytes()); // multiProcessorCount
    put(340, &L2_CACHE.to_le_bytes()); // l2CacheSize
    put(344, &MAX_THREADS_PER_CU.to_le_bytes()); // maxThreadsPerMultiProcessor
    put(352, &1_000_000i32.to_le_bytes()); // clockInstructionRate
    put(356, &0x0000_3fffu32.to_le_bytes()); // arch: every hipDeviceArch_t feature bit up to 64-bit atomics
    put(360, &1i32.to_le_bytes()); // concurrentKernels
    put(376, &SHARED_MEM_PER_BLOCK.to_le_bytes()); // maxSharedMemoryPerMultiProcessor
    put(388, &1i32.to_le_bytes()); // canMapHostMemory
    put(392, &1030i32.to_le_bytes()); // gcnArch
    put(396, b"gfx1030\0"); // gcnArchName
    put(712, &(256u64 << 10).to_le_bytes()); // memPitch
    put(720, &256u64.to_le_bytes()); // textureAlignment
    put(728, &256u64.to_le_bytes()); // texturePitchAlignment
    p
}

/// `hipDeviceGetAttribute` (enumerator values of HIP 5.2's hipDeviceAttribute_t); None: not reported.
pub fn attribute(attr: i32) -> Option<i32> {
    Some(match attr {
        56 => MAX_THREADS_PER_BLOCK,          // MaxThreadsPerBlock
        87 => WARP_SIZE,                      // WarpSize
        63 => COMPUTE_UNITS,                  // MultiprocessorCount
        26..=28 => 1024,                      // MaxBlockDimX/Y/Z
        29 => MAX_GRID[0],                    // MaxGridDimX
        30 | 31 => MAX_GRID[1],               // MaxGridDimY/Z
        74 => SHARED_MEM_PER_BLOCK as i32,    // MaxSharedMemoryPerBlock
        83 => i32::MAX,                       // TotalConstantMemory
        23 => 10,                             // ComputeCapabilityMajor
        61 => 3,                              // ComputeCapabilityMinor
        5 => CLOCK_KHZ,                       // ClockRate
        71 => REGS_PER_BLOCK,                 // MaxRegistersPerBlock
        19 => L2_CACHE,                       // L2CacheSize
        57 => MAX_THREADS_PER_CU,             // MaxThreadsPerMultiProcessor
        59 => MEMORY_BUS_WIDTH,               // MemoryBusWidth
        60 => MEMORY_CLOCK_KHZ,               // MemoryClockRate
        16 => 0,                              // Integrated
        8 => 1,                               // ConcurrentKernels
        10 => 0,                              // CooperativeLaunch
        0 => 0,                               // EccEnabled
        67 | 68 => 0,                         // PciBusId, PciDeviceId
        3 => 1,                               // CanMapHostMemory
        10002 => SHARED_MEM_PER_BLOCK as i32, // MaxSharedMemoryPerMultiprocessor
        24 => 0,                              // ManagedMemory
        _ => return None,
    })
}
