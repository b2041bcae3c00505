//! Instance, device choice, queue, allocator and dispatch.

use std::collections::HashMap;
use std::ffi::CString;
use std::hash::{Hash, Hasher};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use serde::{Deserialize, Serialize};

use crate::{vk_err, Error, Result};

/// Which physical device [`Context::new`] opens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum DeviceSelector {
    /// The first discrete GPU, else the first integrated GPU, else a virtual GPU, else a CPU device
    /// such as lavapipe, else anything.
    #[default]
    Default,
    /// The device at this index in the loader's enumeration order.
    Index(usize),
    /// The first device whose name contains this text (case-insensitive).
    NameContains(String),
}

impl DeviceSelector {
    /// Environment variable read by [`DeviceSelector::from_env`].
    pub const ENV: &'static str = "RDNA2SPV_VK_DEVICE";

    /// `RDNA2SPV_VK_DEVICE`: a number selects by index, other text by name; unset or empty: default.
    pub fn from_env() -> Self {
        match std::env::var(Self::ENV) {
            Ok(v) if !v.trim().is_empty() => match v.trim().parse::<usize>() {
                Ok(i) => DeviceSelector::Index(i),
                Err(_) => DeviceSelector::NameContains(v.trim().to_string()),
            },
            _ => DeviceSelector::Default,
        }
    }

    /// What the device tests open: the device `RDNA2SPV_VK_DEVICE` names (a real GPU, as `cargo xtask
    /// gpu-check` runs them), else lavapipe (`llvmpipe`), which CI installs.
    pub fn from_env_or_lavapipe() -> Self {
        match std::env::var(Self::ENV) {
            Ok(v) if !v.trim().is_empty() => Self::from_env(),
            _ => DeviceSelector::NameContains("llvmpipe".into()),
        }
    }
}

/// The optional features switched on at device creation (each on only if the device has it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnabledFeatures {
    /// `bufferDeviceAddress` (required: Context::new fails without it).
    pub buffer_device_address: bool,
    /// `shaderInt64`.
    pub shader_int64: bool,
    /// `shaderBufferInt64Atomics` (Vulkan 1.2 core feature).
    pub shader_buffer_int64_atomics: bool,
    /// `shaderInt16`.
    pub shader_int16: bool,
    /// `shaderFloat64`.
    pub shader_float64: bool,
    /// `shaderFloat16`.
    pub shader_float16: bool,
    /// `shaderInt8`.
    pub shader_int8: bool,
    /// `storageBuffer16BitAccess`.
    pub storage_buffer_16bit_access: bool,
    /// `vulkanMemoryModel`.
    pub vulkan_memory_model: bool,
    /// `vulkanMemoryModelDeviceScope`.
    pub vulkan_memory_model_device_scope: bool,
    /// `subgroupSizeControl`.
    pub subgroup_size_control: bool,
    /// `computeFullSubgroups`.
    pub compute_full_subgroups: bool,
    /// `shaderZeroInitializeWorkgroupMemory` (required by Vulkan 1.3; the lane mapping's ballot words
    /// start zero through it, D125: Context::new fails without it).
    pub shader_zero_initialize_workgroup_memory: bool,
}

/// Facts about the chosen physical device, read from its properties.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// Index in the loader's enumeration.
    pub index: usize,
    /// `deviceName`.
    pub name: String,
    /// `driverName`.
    pub driver_name: String,
    /// `driverInfo`.
    pub driver_info: String,
    /// Device API version, "major.minor.patch".
    pub api_version: String,
    /// "discrete-gpu", "integrated-gpu", "virtual-gpu", "cpu" or "other".
    pub device_type: String,
    /// `subgroupSize` (Vulkan 1.1 properties).
    pub subgroup_size: u32,
    /// `minSubgroupSize` (Vulkan 1.3).
    pub min_subgroup_size: u32,
    /// `maxSubgroupSize` (Vulkan 1.3).
    pub max_subgroup_size: u32,
    /// `requiredSubgroupSizeStages` contains COMPUTE.
    pub required_subgroup_size_compute: bool,
    /// Subgroup shuffles in compute shaders: `subgroupSupportedStages` contains COMPUTE and
    /// `subgroupSupportedOperations` SHUFFLE (Vulkan 1.1 properties; L44, D217).
    pub subgroup_shuffle_compute: bool,
    /// `maxPushConstantsSize`.
    pub max_push_constants_size: u32,
    /// `shaderDenormFlushToZeroFloat16/32/64`.
    pub denorm_flush_to_zero: [bool; 3],
    /// `shaderDenormPreserveFloat16/32/64`.
    pub denorm_preserve: [bool; 3],
    /// `maxComputeWorkGroupCount`.
    pub max_workgroup_count: [u32; 3],
    /// `maxTexelBufferElements` (D288's texel LDS). Missing from a record written before it existed: 0.
    #[serde(default)]
    pub max_texel_buffer_elements: u32,
}

/// Extra knobs for [`Context::dispatch_with`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DispatchOptions {
    /// Request this subgroup size (`VkPipelineShaderStageRequiredSubgroupSizeCreateInfo`). Only valid
    /// when `subgroupSizeControl` is on and the size lies in [min, max] with COMPUTE in the stages.
    pub required_subgroup_size: Option<u32>,
    /// Make the `required_subgroup_size` request even when the device does not advertise that size
    /// (invalid usage that some drivers accept: lavapipe takes 32 and runs 8). Only for probing what a
    /// driver really does (decision D085); `subgroupSizeControl` must still be on.
    pub force_required_subgroup_size: bool,
    /// Override the context's fence timeout for this dispatch.
    pub timeout: Option<Duration>,
}

/// Timings of one dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DispatchStats {
    /// Time spent creating the shader module and pipeline (zero when it came from the cache).
    /// Note: lavapipe compiles lazily, so its JIT time lands in `dispatch` of the first run.
    pub pipeline_create: Duration,
    /// The pipeline came from the context's cache.
    pub pipeline_cached: bool,
    /// From recording the command buffer until the fence signalled.
    pub dispatch: Duration,
    /// CPU time all threads of this process spent over the same span (Linux:
    /// `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`, D139; `None` elsewhere). On a CPU device such as lavapipe, whose worker
    /// threads run in this process, it is the dispatch's work, independent of how loaded the machine is.
    pub dispatch_cpu: Option<Duration>,
}

/// Bytes of a pipeline cache header, version ONE (4 words and a 16-byte UUID).
pub const PIPELINE_CACHE_HEADER_BYTES: usize = 32;

/// Whether pipeline cache `data` starts with `header` (as [`Context::pipeline_cache_header`] gives it):
/// the same header length, version, vendor, device and `pipelineCacheUUID`. Anything else (another device,
/// another driver build, a truncated or damaged file) must not reach the driver.
pub fn pipeline_cache_data_matches(
    header: &[u8; PIPELINE_CACHE_HEADER_BYTES],
    data: &[u8],
) -> bool {
    data.len() >= PIPELINE_CACHE_HEADER_BYTES && data[..PIPELINE_CACHE_HEADER_BYTES] == header[..]
}

/// CPU time of every thread of this process so far, in nanoseconds (`CLOCK_PROCESS_CPUTIME_ID`).
///
/// Not the threads' `/proc/self/task/*/schedstat` (the method before D139): a running thread's
/// `sum_exec_runtime` there is only brought up to date at a scheduler event or tick, so the calling
/// thread's run time since its last one (the lowering, the buffer set-up before a dispatch: up to a
/// whole tick) was credited to the dispatch when the thread blocked on the fence, which made a
/// 0.13 ms dispatch read 0.8 ms of CPU on two cores. The process clock updates the caller's run time
/// first; lavapipe's workers sleep between dispatches, so theirs is current at both reads.
fn process_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } != 0 {
        return None;
    }
    Some(u64::try_from(ts.tv_sec).ok()? * 1_000_000_000 + u64::try_from(ts.tv_nsec).ok()?)
}

struct CachedPipeline {
    words: Vec<u32>,
    entry: String,
    subgroup: Option<u32>,
    module: vk::ShaderModule,
    pipeline: vk::Pipeline,
}

struct Submitter {
    pool: vk::CommandPool,
}

/// An open Vulkan device with one compute queue, ready to run SPIR-V compute modules.
pub struct Context {
    pub(crate) device: ash::Device,
    instance: ash::Instance,
    /// Dropped by hand: unloading libvulkan while a hung dispatch still runs would crash.
    entry: ManuallyDrop<ash::Entry>,
    physical: vk::PhysicalDevice,
    queue: vk::Queue,
    pub(crate) allocator: Mutex<Option<Allocator>>,
    submitter: Mutex<Submitter>,
    layout: vk::PipelineLayout,
    /// The layout of a texel-LDS pipeline (D288): `layout`'s push constants and set 0's texel buffers.
    texel_layout: vk::PipelineLayout,
    texel_set_layout: vk::DescriptorSetLayout,
    push_constant_size: u32,
    pipelines: Mutex<HashMap<u64, Vec<CachedPipeline>>>,
    /// The `VkPipelineCache` every pipeline is created with (null until [`Context::load_pipeline_cache`]).
    pipeline_cache: Mutex<vk::PipelineCache>,
    cache_header: [u8; PIPELINE_CACHE_HEADER_BYTES],
    /// Pipelines created so far, and how many of them the driver reported as found in the pipeline cache
    /// (`VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT`).
    pipelines_created: AtomicU64,
    pipeline_cache_hits: AtomicU64,
    info: DeviceInfo,
    features: EnabledFeatures,
    timeout: Duration,
    /// The caller set `timeout` ([`Context::with_timeout`]): no compile allowance on top (D241).
    timeout_exact: bool,
    /// Modules over this many words are refused before the driver sees them (D164).
    max_module_words: Option<usize>,
    poisoned: AtomicBool,
}

/// Set when any context in the process left work in flight (a fence timeout or a lost device): see
/// [`exit`].
static WORK_ABANDONED: AtomicBool = AtomicBool::new(false);

/// Whether a dispatch was abandoned in flight in this process: the driver's threads may still be compiling
/// or running it.
pub fn work_abandoned() -> bool {
    WORK_ABANDONED.load(Ordering::SeqCst)
}

/// Ends the process with `code`. After a dispatch was abandoned ([`work_abandoned`]) the driver's threads
/// may still be inside it (lavapipe compiles a module at its first dispatch): the exit-time destructors of
/// the driver and of LLVM would run under them, and the process could die of a signal instead of ending with
/// its error's code (seen once in a local CI run: a 1 ms timeout, exit status "none"). Then the C and Rust output
/// streams are flushed and the process ends without running those destructors (`_exit`); otherwise this
/// is `std::process::exit`.
pub fn exit(code: i32) -> ! {
    if work_abandoned() {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        // SAFETY: fflush(NULL) flushes every C stream; `_exit` ends the process at once.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(code)
        }
    }
    std::process::exit(code)
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("info", &self.info)
            .field("features", &self.features)
            .finish_non_exhaustive()
    }
}

fn cstr_field(r: std::result::Result<&std::ffi::CStr, std::ffi::FromBytesUntilNulError>) -> String {
    r.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn version_string(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

fn type_name(t: vk::PhysicalDeviceType) -> &'static str {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete-gpu",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated-gpu",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual-gpu",
        vk::PhysicalDeviceType::CPU => "cpu",
        _ => "other",
    }
}

fn type_rank(t: vk::PhysicalDeviceType) -> u32 {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

/// Everything read about one physical device before choosing it.
struct Candidate {
    physical: vk::PhysicalDevice,
    info: DeviceInfo,
    device_type: vk::PhysicalDeviceType,
    api_version: u32,
    compute_family: Option<u32>,
    /// The header a pipeline cache of this device starts with (Vulkan 1.3 §10.7.4).
    cache_header: [u8; PIPELINE_CACHE_HEADER_BYTES],
}

unsafe fn describe(instance: &ash::Instance, index: usize, pd: vk::PhysicalDevice) -> Candidate {
    let mut p11 = vk::PhysicalDeviceVulkan11Properties::default();
    let mut p12 = vk::PhysicalDeviceVulkan12Properties::default();
    let mut p13 = vk::PhysicalDeviceVulkan13Properties::default();
    let props = {
        let mut p2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut p11)
            .push_next(&mut p12)
            .push_next(&mut p13);
        // SAFETY: pd comes from this instance; the chain holds Vulkan 1.1–1.3 property structs.
        unsafe { instance.get_physical_device_properties2(pd, &mut p2) };
        p2.properties
    };
    let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
    let compute_family = families
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE) && f.queue_count > 0)
        .map(|i| i as u32);
    let info = DeviceInfo {
        index,
        name: cstr_field(props.device_name_as_c_str()),
        driver_name: cstr_field(p12.driver_name_as_c_str()),
        driver_info: cstr_field(p12.driver_info_as_c_str()),
        api_version: version_string(props.api_version),
        device_type: type_name(props.device_type).to_string(),
        subgroup_size: p11.subgroup_size,
        min_subgroup_size: p13.min_subgroup_size,
        max_subgroup_size: p13.max_subgroup_size,
        required_subgroup_size_compute: p13
            .required_subgroup_size_stages
            .contains(vk::ShaderStageFlags::COMPUTE),
        subgroup_shuffle_compute: p11
            .subgroup_supported_stages
            .contains(vk::ShaderStageFlags::COMPUTE)
            && p11
                .subgroup_supported_operations
                .contains(vk::SubgroupFeatureFlags::SHUFFLE),
        max_push_constants_size: props.limits.max_push_constants_size,
        denorm_flush_to_zero: [
            p12.shader_denorm_flush_to_zero_float16 != 0,
            p12.shader_denorm_flush_to_zero_float32 != 0,
            p12.shader_denorm_flush_to_zero_float64 != 0,
        ],
        denorm_preserve: [
            p12.shader_denorm_preserve_float16 != 0,
            p12.shader_denorm_preserve_float32 != 0,
            p12.shader_denorm_preserve_float64 != 0,
        ],
        max_workgroup_count: props.limits.max_compute_work_group_count,
        max_texel_buffer_elements: props.limits.max_texel_buffer_elements,
    };
    let mut cache_header = [0u8; PIPELINE_CACHE_HEADER_BYTES];
    for (i, w) in [
        PIPELINE_CACHE_HEADER_BYTES as u32,
        vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32,
        props.vendor_id,
        props.device_id,
    ]
    .iter()
    .enumerate()
    {
        cache_header[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    cache_header[16..].copy_from_slice(&props.pipeline_cache_uuid);
    Candidate {
        physical: pd,
        info,
        device_type: props.device_type,
        api_version: props.api_version,
        compute_family,
        cache_header,
    }
}

fn load_entry() -> Result<ash::Entry> {
    // SAFETY: loading libvulkan runs its initialisers; that is the documented way to use ash.
    unsafe { ash::Entry::load() }.map_err(|e| Error::NoLoader(e.to_string()))
}

fn create_instance(entry: &ash::Entry) -> Result<ash::Instance> {
    // SAFETY: plain queries and instance creation with valid create infos.
    unsafe {
        let version = entry
            .try_enumerate_instance_version()
            .map_err(vk_err("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if version < vk::API_VERSION_1_3 {
            return Err(Error::TooOld(format!(
                "the Vulkan loader only supports {}",
                version_string(version)
            )));
        }
        let name = c"rdna2spv";
        let app = vk::ApplicationInfo::default()
            .application_name(name)
            .engine_name(name)
            .api_version(vk::API_VERSION_1_3);
        let ci = vk::InstanceCreateInfo::default().application_info(&app);
        entry
            .create_instance(&ci, None)
            .map_err(vk_err("vkCreateInstance"))
    }
}

impl Context {
    /// Lists the physical devices the loader sees (without opening any).
    pub fn enumerate_devices() -> Result<Vec<DeviceInfo>> {
        let entry = load_entry()?;
        let instance = create_instance(&entry)?;
        // SAFETY: the instance is valid and destroyed once below.
        let out = unsafe {
            let r = instance.enumerate_physical_devices();
            let list = match r {
                Ok(l) => l
                    .into_iter()
                    .enumerate()
                    .map(|(i, pd)| describe(&instance, i, pd).info)
                    .collect(),
                Err(e) => {
                    instance.destroy_instance(None);
                    return Err(vk_err("vkEnumeratePhysicalDevices")(e));
                }
            };
            instance.destroy_instance(None);
            list
        };
        Ok(out)
    }

    /// Opens a Vulkan 1.3 device chosen by `selector`, with every useful optional feature it has.
    pub fn new(selector: DeviceSelector) -> Result<Self> {
        let entry = load_entry()?;
        let instance = create_instance(&entry)?;
        // If anything below fails, the instance is destroyed before returning. `entry` (which keeps the
        // Vulkan loader library mapped) must outlive that call: the clone handed to `open` is dropped when
        // `open` fails, and destroying the instance through an unloaded loader crashed.
        match unsafe { Self::open(entry.clone(), instance.clone(), &selector) } {
            Ok(ctx) => Ok(ctx),
            Err(e) => {
                // SAFETY: no child objects survive a failed open.
                unsafe { instance.destroy_instance(None) };
                drop(entry);
                Err(e)
            }
        }
    }

    unsafe fn open(
        entry: ash::Entry,
        instance: ash::Instance,
        selector: &DeviceSelector,
    ) -> Result<Self> {
        let pds = unsafe { instance.enumerate_physical_devices() }
            .map_err(vk_err("vkEnumeratePhysicalDevices"))?;
        let all: Vec<Candidate> = pds
            .iter()
            .enumerate()
            .map(|(i, &pd)| unsafe { describe(&instance, i, pd) })
            .collect();
        let seen = || {
            if all.is_empty() {
                " (the loader reports no physical devices; is a driver such as \
                 mesa-vulkan-drivers installed?)"
                    .to_string()
            } else {
                let names: Vec<String> = all
                    .iter()
                    .map(|c| {
                        format!(
                            "#{} \"{}\" ({}, Vulkan {})",
                            c.info.index, c.info.name, c.info.device_type, c.info.api_version
                        )
                    })
                    .collect();
                format!(" matching {selector:?}; devices seen: {}", names.join(", "))
            }
        };
        let usable =
            |c: &&Candidate| c.api_version >= vk::API_VERSION_1_3 && c.compute_family.is_some();
        let chosen = match selector {
            DeviceSelector::Default => all
                .iter()
                .filter(usable)
                .min_by_key(|c| (type_rank(c.device_type), c.info.index)),
            DeviceSelector::Index(i) => all.get(*i).filter(|c| usable(c)),
            DeviceSelector::NameContains(s) => {
                let s = s.to_lowercase();
                all.iter()
                    .filter(usable)
                    .find(|c| c.info.name.to_lowercase().contains(&s))
            }
        };
        let Some(chosen) = chosen else {
            return Err(Error::NoDevice(seen()));
        };
        let pd = chosen.physical;
        let family = chosen.compute_family.unwrap_or(0);
        let info = chosen.info.clone();
        let cache_header = chosen.cache_header;

        // What the device has.
        let mut h11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut h12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut h13 = vk::PhysicalDeviceVulkan13Features::default();
        let base = {
            let mut f2 = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut h11)
                .push_next(&mut h12)
                .push_next(&mut h13);
            unsafe { instance.get_physical_device_features2(pd, &mut f2) };
            f2.features
        };
        let on = |b: vk::Bool32| b != 0;
        let features = EnabledFeatures {
            buffer_device_address: on(h12.buffer_device_address),
            shader_int64: on(base.shader_int64),
            shader_buffer_int64_atomics: on(h12.shader_buffer_int64_atomics),
            shader_int16: on(base.shader_int16),
            shader_float64: on(base.shader_float64),
            shader_float16: on(h12.shader_float16),
            shader_int8: on(h12.shader_int8),
            storage_buffer_16bit_access: on(h11.storage_buffer16_bit_access),
            vulkan_memory_model: on(h12.vulkan_memory_model),
            vulkan_memory_model_device_scope: on(h12.vulkan_memory_model_device_scope),
            subgroup_size_control: on(h13.subgroup_size_control),
            compute_full_subgroups: on(h13.compute_full_subgroups),
            shader_zero_initialize_workgroup_memory: on(h13.shader_zero_initialize_workgroup_memory),
        };
        if !features.buffer_device_address {
            return Err(Error::MissingFeature {
                device: info.name.clone(),
                feature: "bufferDeviceAddress",
            });
        }
        if !features.shader_zero_initialize_workgroup_memory {
            return Err(Error::MissingFeature {
                device: info.name.clone(),
                feature: "shaderZeroInitializeWorkgroupMemory",
            });
        }

        // Switch on exactly what exists.
        let enabled = vk::PhysicalDeviceFeatures::default()
            .shader_int64(features.shader_int64)
            .shader_int16(features.shader_int16)
            .shader_float64(features.shader_float64);
        let mut e11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(features.storage_buffer_16bit_access);
        let mut e12 = vk::PhysicalDeviceVulkan12Features::default()
            .buffer_device_address(true)
            .shader_buffer_int64_atomics(features.shader_buffer_int64_atomics)
            .shader_float16(features.shader_float16)
            .shader_int8(features.shader_int8)
            .vulkan_memory_model(features.vulkan_memory_model)
            .vulkan_memory_model_device_scope(features.vulkan_memory_model_device_scope);
        let mut e13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(features.subgroup_size_control)
            .compute_full_subgroups(features.compute_full_subgroups)
            .shader_zero_initialize_workgroup_memory(true);
        let priorities = [1.0f32];
        let qci = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let dci = vk::DeviceCreateInfo::default()
            .queue_create_infos(&qci)
            .enabled_features(&enabled)
            .push_next(&mut e11)
            .push_next(&mut e12)
            .push_next(&mut e13);
        let device =
            unsafe { instance.create_device(pd, &dci, None) }.map_err(vk_err("vkCreateDevice"))?;

        // From here on, a failure must destroy the device too.
        let rest = (|| -> Result<_> {
            let queue = unsafe { device.get_device_queue(family, 0) };
            let allocator = Allocator::new(&AllocatorCreateDesc {
                instance: instance.clone(),
                device: device.clone(),
                physical_device: pd,
                debug_settings: Default::default(),
                buffer_device_address: true,
                allocation_sizes: Default::default(),
            })?;
            let pool = unsafe {
                device.create_command_pool(
                    &vk::CommandPoolCreateInfo::default()
                        .queue_family_index(family)
                        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                    None,
                )
            }
            .map_err(vk_err("vkCreateCommandPool"))?;
            let push_constant_size = info.max_push_constants_size.min(128);
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .offset(0)
                .size(push_constant_size)];
            let layout = match unsafe {
                device.create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges),
                    None,
                )
            } {
                Ok(l) => l,
                Err(e) => {
                    unsafe { device.destroy_command_pool(pool, None) };
                    return Err(vk_err("vkCreatePipelineLayout")(e));
                }
            };
            let texel = crate::texel::set_layout(&device).and_then(|set| {
                let sets = [set];
                unsafe {
                    device.create_pipeline_layout(
                        &vk::PipelineLayoutCreateInfo::default()
                            .set_layouts(&sets)
                            .push_constant_ranges(&ranges),
                        None,
                    )
                }
                .map(|l| (l, set))
                .map_err(|e| {
                    unsafe { device.destroy_descriptor_set_layout(set, None) };
                    vk_err("vkCreatePipelineLayout")(e)
                })
            });
            let (texel_layout, texel_set_layout) = match texel {
                Ok(v) => v,
                Err(e) => {
                    unsafe {
                        device.destroy_pipeline_layout(layout, None);
                        device.destroy_command_pool(pool, None);
                    }
                    return Err(e);
                }
            };
            Ok((
                queue,
                allocator,
                pool,
                layout,
                push_constant_size,
                texel_layout,
                texel_set_layout,
            ))
        })();
        let (queue, allocator, pool, layout, push_constant_size, texel_layout, texel_set_layout) =
            match rest {
                Ok(v) => v,
                Err(e) => {
                    unsafe { device.destroy_device(None) };
                    return Err(e);
                }
            };

        Ok(Context {
            device,
            instance,
            entry: ManuallyDrop::new(entry),
            physical: pd,
            queue,
            allocator: Mutex::new(Some(allocator)),
            submitter: Mutex::new(Submitter { pool }),
            layout,
            texel_layout,
            texel_set_layout,
            push_constant_size,
            pipelines: Mutex::new(HashMap::new()),
            pipeline_cache: Mutex::new(vk::PipelineCache::null()),
            cache_header,
            pipelines_created: AtomicU64::new(0),
            pipeline_cache_hits: AtomicU64::new(0),
            info,
            features,
            timeout: default_timeout(),
            timeout_exact: false,
            max_module_words: crate::limit::max_module_words_from_env()
                .map_err(Error::InvalidArgument)?,
            poisoned: AtomicBool::new(false),
        })
    }

    /// Sets the fence timeout of every later dispatch (default 60 s, or `RDNA2SPV_VK_TIMEOUT_S`). A timeout
    /// set here is exact: a first dispatch on lavapipe gets no compile allowance on top (D241).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self.timeout_exact = true;
        self
    }

    /// Whether the driver compiles a module inside its first dispatch rather than at pipeline creation
    /// (lavapipe: D164), so that the fence wait of that dispatch holds the compile.
    pub fn compiles_at_first_dispatch(&self) -> bool {
        self.info.driver_name.contains("llvmpipe") || self.info.name.contains("llvmpipe")
    }

    /// Sets the module-size limit of every later pipeline (default [`crate::limit::DEFAULT_MAX_MODULE_WORDS`],
    /// or `RDNA2SPV_MAX_MODULE_WORDS`; `None`: no limit). A larger module is
    /// [`Error::ModuleTooLarge`] and never reaches the driver (D164).
    pub fn with_max_module_words(mut self, limit: Option<usize>) -> Self {
        self.max_module_words = limit;
        self
    }

    /// The module-size limit ([`Context::with_max_module_words`]).
    pub fn max_module_words(&self) -> Option<usize> {
        self.max_module_words
    }

    /// Facts read from the device's properties.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The optional features that were switched on.
    pub fn features(&self) -> &EnabledFeatures {
        &self.features
    }

    /// Largest push-constant block a dispatch accepts (bytes).
    pub fn push_constant_size(&self) -> u32 {
        self.push_constant_size
    }

    /// The raw physical device handle (for callers that query more).
    pub fn physical_device(&self) -> vk::PhysicalDevice {
        self.physical
    }

    pub(crate) fn check_usable(&self) -> Result<()> {
        if self.poisoned.load(Ordering::SeqCst) {
            Err(Error::Poisoned)
        } else {
            Ok(())
        }
    }

    fn poison(&self) {
        self.poisoned.store(true, Ordering::SeqCst);
        WORK_ABANDONED.store(true, Ordering::SeqCst);
    }

    /// The header this device's pipeline cache data starts with: length 32, version ONE, vendor and
    /// device ids, `pipelineCacheUUID` (Vulkan 1.3 §10.7.4). Data with another header belongs to another
    /// device or driver build.
    pub fn pipeline_cache_header(&self) -> [u8; PIPELINE_CACHE_HEADER_BYTES] {
        self.cache_header
    }

    /// Creates the `VkPipelineCache` every later pipeline is created with, filled from `initial` (data an
    /// earlier [`pipeline_cache_data`](Self::pipeline_cache_data) of the same device and driver gave) when
    /// its header matches [`pipeline_cache_header`](Self::pipeline_cache_header); otherwise empty. The
    /// header is checked here, before the driver sees the data. Returns whether `initial` was taken. A
    /// second call merges `initial` into the cache (vkMergePipelineCaches).
    pub fn load_pipeline_cache(&self, initial: &[u8]) -> Result<bool> {
        self.check_usable()?;
        let usable = pipeline_cache_data_matches(&self.cache_header, initial);
        let data: &[u8] = if usable { initial } else { &[] };
        // SAFETY: `data` is empty or starts with this device's header; the cache handle is kept under
        // the lock and destroyed once, with the context.
        let made = unsafe {
            self.device.create_pipeline_cache(
                &vk::PipelineCacheCreateInfo::default().initial_data(data),
                None,
            )
        }
        .map_err(vk_err("vkCreatePipelineCache"))?;
        let mut pc = self
            .pipeline_cache
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if *pc == vk::PipelineCache::null() {
            *pc = made;
        } else {
            // SAFETY: both caches belong to this device; `made` is destroyed after the merge.
            let merged = unsafe { self.device.merge_pipeline_caches(*pc, &[made]) };
            unsafe { self.device.destroy_pipeline_cache(made, None) };
            merged.map_err(vk_err("vkMergePipelineCaches"))?;
        }
        Ok(usable)
    }

    /// The pipeline cache's data (vkGetPipelineCacheData), or None before
    /// [`load_pipeline_cache`](Self::load_pipeline_cache).
    pub fn pipeline_cache_data(&self) -> Result<Option<Vec<u8>>> {
        self.check_usable()?;
        let pc = self
            .pipeline_cache
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if *pc == vk::PipelineCache::null() {
            return Ok(None);
        }
        // SAFETY: a valid cache of this device, used under its lock.
        unsafe { self.device.get_pipeline_cache_data(*pc) }
            .map(Some)
            .map_err(vk_err("vkGetPipelineCacheData"))
    }

    /// Pipelines created so far, and how many the driver reported found in the pipeline cache
    /// (creation feedback's `APPLICATION_PIPELINE_CACHE_HIT`; a driver may never report it).
    pub fn pipeline_counts(&self) -> (u64, u64) {
        (
            self.pipelines_created.load(Ordering::SeqCst),
            self.pipeline_cache_hits.load(Ordering::SeqCst),
        )
    }

    /// Runs `entry` of `spirv_words` once over `workgroups`, with `push_constants` (at most 128 bytes,
    /// a multiple of 4) as the only input: the pipeline layout has no descriptor sets, so every
    /// buffer is reached through device addresses passed in the push constants. Waits for completion.
    pub fn dispatch(
        &self,
        spirv_words: &[u32],
        entry: &str,
        workgroups: [u32; 3],
        push_constants: &[u8],
    ) -> Result<DispatchStats> {
        self.dispatch_with(
            spirv_words,
            entry,
            workgroups,
            push_constants,
            &DispatchOptions::default(),
        )
    }

    /// [`dispatch`](Self::dispatch) with extra options.
    pub fn dispatch_with(
        &self,
        spirv_words: &[u32],
        entry: &str,
        workgroups: [u32; 3],
        push_constants: &[u8],
        options: &DispatchOptions,
    ) -> Result<DispatchStats> {
        self.check_usable()?;
        if push_constants.len() > self.push_constant_size as usize
            || !push_constants.len().is_multiple_of(4)
        {
            return Err(Error::InvalidArgument(format!(
                "push constants are {} bytes; at most {} and a multiple of 4 are allowed",
                push_constants.len(),
                self.push_constant_size
            )));
        }
        for (i, (&n, &max)) in workgroups
            .iter()
            .zip(self.info.max_workgroup_count.iter())
            .enumerate()
        {
            if n == 0 || n > max {
                return Err(Error::InvalidArgument(format!(
                    "workgroup count {n} in dimension {i} is outside 1..={max}"
                )));
            }
        }
        if let Some(size) = options.required_subgroup_size {
            let advertised = self.info.required_subgroup_size_compute
                && (self.info.min_subgroup_size..=self.info.max_subgroup_size).contains(&size);
            let ok = self.features.subgroup_size_control
                && size.is_power_of_two()
                && (advertised || options.force_required_subgroup_size);
            if !ok {
                return Err(Error::InvalidArgument(format!(
                    "required subgroup size {size} is not supported (device range {}..={}, \
                     subgroupSizeControl {})",
                    self.info.min_subgroup_size,
                    self.info.max_subgroup_size,
                    self.features.subgroup_size_control
                )));
            }
        }
        let t0 = Instant::now();
        let (pipeline, cached) =
            self.pipeline(spirv_words, entry, options.required_subgroup_size)?;
        let pipeline_create = if cached { Duration::ZERO } else { t0.elapsed() };
        // D241: the default timeout bounds the run; a first dispatch on lavapipe also holds the module's
        // compile, which gets its predicted CPU time (several times over) on top.
        let limit = options.timeout.unwrap_or(self.timeout);
        let exact = options.timeout.is_some() || self.timeout_exact;
        let cost = (!cached).then(|| crate::limit::module_cost(spirv_words));
        let (wait, compile_allowance) = crate::limit::dispatch_wait(
            limit,
            exact,
            self.compiles_at_first_dispatch(),
            cost.as_ref(),
        );
        let cpu0 = process_cpu_ns();
        let t1 = Instant::now();
        let texel = rdna2spv_spirv::lower::texel_lds(spirv_words);
        self.submit_and_wait(pipeline, workgroups, push_constants, wait, texel)
            .map_err(|e| match e {
                Error::Timeout { .. } => Error::Timeout {
                    limit,
                    compile_allowance,
                    pipeline_create,
                    first_dispatch: !cached,
                    module_words: spirv_words.len(),
                    module_cost: cost.unwrap_or_else(|| crate::limit::module_cost(spirv_words)),
                },
                e => e,
            })?;
        let dispatch = t1.elapsed();
        let dispatch_cpu = cpu0
            .zip(process_cpu_ns())
            .map(|(a, b)| Duration::from_nanos(b.saturating_sub(a)));
        Ok(DispatchStats {
            pipeline_create,
            pipeline_cached: cached,
            dispatch,
            dispatch_cpu,
        })
    }

    /// Compiles `entry` of `spirv_words` as [`dispatch`](Self::dispatch) would, without running it
    /// (D252): the pipeline is created, and where the driver compiles at the first dispatch (lavapipe) a
    /// dispatch of zero workgroups is submitted, which makes it compile and fill its shader cache while
    /// no invocation runs. Returns the time it took. Errors as a first dispatch's: the module-size limit,
    /// a module the driver rejects, the timeout with its compile allowance.
    pub fn warm_up(&self, spirv_words: &[u32], entry: &str) -> Result<Duration> {
        self.check_usable()?;
        let t0 = Instant::now();
        let (pipeline, cached) = self.pipeline(spirv_words, entry, None)?;
        if cached || !self.compiles_at_first_dispatch() {
            return Ok(t0.elapsed());
        }
        let cost = crate::limit::module_cost(spirv_words);
        let (wait, compile_allowance) =
            crate::limit::dispatch_wait(self.timeout, self.timeout_exact, true, Some(&cost));
        let texel = rdna2spv_spirv::lower::texel_lds(spirv_words);
        self.submit_and_wait(pipeline, [0, 0, 0], &[], wait, texel)
            .map_err(|e| match e {
                Error::Timeout { .. } => Error::Timeout {
                    limit: self.timeout,
                    compile_allowance,
                    pipeline_create: t0.elapsed(),
                    first_dispatch: true,
                    module_words: spirv_words.len(),
                    module_cost: cost,
                },
                e => e,
            })?;
        Ok(t0.elapsed())
    }

    fn pipeline(
        &self,
        words: &[u32],
        entry: &str,
        subgroup: Option<u32>,
    ) -> Result<(vk::Pipeline, bool)> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        words.hash(&mut h);
        entry.hash(&mut h);
        subgroup.hash(&mut h);
        let key = h.finish();
        let mut cache = self.pipelines.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(list) = cache.get(&key) {
            if let Some(p) = list
                .iter()
                .find(|p| p.words == words && p.entry == entry && p.subgroup == subgroup)
            {
                return Ok((p.pipeline, true));
            }
        }
        if let Some(limit) = self.max_module_words.filter(|&l| words.len() > l) {
            return Err(Error::ModuleTooLarge {
                words: words.len(),
                limit,
                cost: crate::limit::module_cost(words),
            });
        }
        check_module(words, entry)?;
        let name = CString::new(entry)
            .map_err(|_| Error::InvalidArgument("entry point name contains NUL".into()))?;
        // SAFETY: the words passed the structural check; the module is destroyed on failure.
        let module = unsafe {
            self.device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
        }
        .map_err(|e| match e {
            vk::Result::ERROR_INVALID_SHADER_NV => {
                Error::InvalidSpirv("the driver rejected the module".into())
            }
            other => vk_err("vkCreateShaderModule")(other),
        })?;
        let mut req = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(subgroup.unwrap_or(0));
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(&name);
        if subgroup.is_some() {
            stage = stage.push_next(&mut req);
        }
        let mut feedback = vk::PipelineCreationFeedback::default();
        let mut feedback_info = vk::PipelineCreationFeedbackCreateInfo::default()
            .pipeline_creation_feedback(&mut feedback);
        // D288: a texel-LDS module binds its texel buffer and is dispatched in chunks (DispatchBase).
        let texel = rdna2spv_spirv::lower::texel_lds(words).is_some();
        let (layout, flags) = if texel {
            (self.texel_layout, vk::PipelineCreateFlags::DISPATCH_BASE)
        } else {
            (self.layout, vk::PipelineCreateFlags::empty())
        };
        let ci = [vk::ComputePipelineCreateInfo::default()
            .flags(flags)
            .stage(stage)
            .layout(layout)
            .push_next(&mut feedback_info)];
        let pipeline_cache = *self
            .pipeline_cache
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        // SAFETY: valid create info; on failure the module is destroyed and nothing is cached.
        let pipeline = match unsafe {
            self.device
                .create_compute_pipelines(pipeline_cache, &ci, None)
        } {
            Ok(v) => {
                self.pipelines_created.fetch_add(1, Ordering::SeqCst);
                let f = feedback.flags;
                if f.contains(vk::PipelineCreationFeedbackFlags::VALID)
                    && f.contains(vk::PipelineCreationFeedbackFlags::APPLICATION_PIPELINE_CACHE_HIT)
                {
                    self.pipeline_cache_hits.fetch_add(1, Ordering::SeqCst);
                }
                v[0]
            }
            Err((made, e)) => {
                unsafe {
                    for p in made {
                        if p != vk::Pipeline::null() {
                            self.device.destroy_pipeline(p, None);
                        }
                    }
                    self.device.destroy_shader_module(module, None);
                }
                return Err(match e {
                    vk::Result::ERROR_INVALID_SHADER_NV | vk::Result::ERROR_UNKNOWN => {
                        Error::InvalidSpirv(format!(
                            "the driver could not build a pipeline ({e}){}",
                            dump_rejected(words, key)
                        ))
                    }
                    other => vk_err("vkCreateComputePipelines")(other),
                });
            }
        };
        cache.entry(key).or_default().push(CachedPipeline {
            words: words.to_vec(),
            entry: entry.to_string(),
            subgroup,
            module,
            pipeline,
        });
        Ok((pipeline, false))
    }

    fn submit_and_wait(
        &self,
        pipeline: vk::Pipeline,
        workgroups: [u32; 3],
        push_constants: &[u8],
        timeout: Duration,
        texel: Option<rdna2spv_spirv::lower::TexelLds>,
    ) -> Result<()> {
        // D288: the texel buffer of a texel-LDS module (freed after the fence; leaked, as the command
        // buffer is, when the dispatch does not finish).
        let texel = texel
            .map(|lds| {
                crate::texel::TexelBinding::new(self, self.texel_set_layout, lds, workgroups)
            })
            .transpose()?;
        let layout = if texel.is_some() {
            self.texel_layout
        } else {
            self.layout
        };
        let sub = self.submitter.lock().unwrap_or_else(|p| p.into_inner());
        let d = &self.device;
        // SAFETY: the pool and queue are used only under the submitter lock; the command buffer
        // and fence are freed after the fence signals, and leaked (never freed while in use) if it
        // does not.
        unsafe {
            let cb = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(sub.pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .map_err(vk_err("vkAllocateCommandBuffers"))?[0];
            let fence = match d.create_fence(&vk::FenceCreateInfo::default(), None) {
                Ok(f) => f,
                Err(e) => {
                    d.free_command_buffers(sub.pool, &[cb]);
                    return Err(vk_err("vkCreateFence")(e));
                }
            };
            let cleanup = || {
                d.destroy_fence(fence, None);
                d.free_command_buffers(sub.pool, &[cb]);
            };
            let record = (|| -> std::result::Result<(), vk::Result> {
                d.begin_command_buffer(
                    cb,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )?;
                let host_to_shader = [vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::HOST_WRITE)
                    .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE)];
                d.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::HOST,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::DependencyFlags::empty(),
                    &host_to_shader,
                    &[],
                    &[],
                );
                d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
                if !push_constants.is_empty() {
                    d.cmd_push_constants(
                        cb,
                        layout,
                        vk::ShaderStageFlags::COMPUTE,
                        0,
                        push_constants,
                    );
                }
                match &texel {
                    Some(t) => t.record(cb, layout, workgroups),
                    None => d.cmd_dispatch(cb, workgroups[0], workgroups[1], workgroups[2]),
                }
                let shader_to_host = [vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                    .dst_access_mask(vk::AccessFlags::HOST_READ)];
                d.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &shader_to_host,
                    &[],
                    &[],
                );
                d.end_command_buffer(cb)
            })();
            if let Err(e) = record {
                cleanup();
                return Err(vk_err("recording the dispatch")(e));
            }
            let cbs = [cb];
            let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
            if let Err(e) = d.queue_submit(self.queue, &submit, fence) {
                cleanup();
                if e == vk::Result::ERROR_DEVICE_LOST {
                    self.poison();
                }
                return Err(vk_err("vkQueueSubmit")(e));
            }
            let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
            match d.wait_for_fences(&[fence], true, nanos) {
                Ok(()) => {
                    cleanup();
                    Ok(())
                }
                Err(vk::Result::TIMEOUT) => {
                    // The work may still be running: leak the fence and command buffer.
                    self.poison();
                    Err(Error::Timeout {
                        limit: timeout,
                        compile_allowance: Duration::ZERO,
                        pipeline_create: Duration::ZERO,
                        first_dispatch: false,
                        module_words: 0,
                        module_cost: Default::default(),
                    })
                }
                Err(e) => {
                    self.poison();
                    Err(vk_err("vkWaitForFences")(e))
                }
            }
        }
    }
}

/// Environment variable naming a folder where a module the driver rejects is written (for a driver bug
/// report or `spirv-val`/`spirv-dis` at home); the error message then names the file.
pub const DUMP_REJECTED_ENV: &str = "RDNA2SPV_DUMP_REJECTED";

/// Writes `words` to `$RDNA2SPV_DUMP_REJECTED/rejected-<key>.spv` when the variable is set; the text to
/// append to the error ("; module written to …", or why it was not), empty when unset.
fn dump_rejected(words: &[u32], key: u64) -> String {
    let Some(dir) = std::env::var_os(DUMP_REJECTED_ENV).filter(|d| !d.is_empty()) else {
        return String::new();
    };
    let dir = std::path::PathBuf::from(dir);
    let path = dir.join(format!("rejected-{key:016x}.spv"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    match std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, bytes)) {
        Ok(()) => format!("; module written to {}", path.display()),
        Err(err) => format!("; could not write the module to {}: {err}", path.display()),
    }
}

/// Checks what the driver would otherwise trust blindly: the header, that the words parse as
/// SPIR-V, and that a GLCompute entry point of this name exists.
fn check_module(words: &[u32], entry: &str) -> Result<()> {
    if words.len() < 5 {
        return Err(Error::InvalidSpirv(format!(
            "{} words is shorter than the 5-word header",
            words.len()
        )));
    }
    if words[0] != spirv::MAGIC_NUMBER {
        return Err(Error::InvalidSpirv(format!(
            "magic number is {:#010x}, expected {:#010x}",
            words[0],
            spirv::MAGIC_NUMBER
        )));
    }
    let version = words[1];
    if version > 0x0001_0600 || version & 0xff00_00ff != 0 {
        return Err(Error::InvalidSpirv(format!(
            "SPIR-V version word {version:#010x} is not 1.0–1.6"
        )));
    }
    let module = rspirv::dr::load_words(words)
        .map_err(|e| Error::InvalidSpirv(format!("does not parse: {e}")))?;
    let has_entry = module.entry_points.iter().any(|ep| {
        matches!(
            ep.operands.first(),
            Some(rspirv::dr::Operand::ExecutionModel(
                spirv::ExecutionModel::GLCompute
            ))
        ) && matches!(ep.operands.get(2), Some(rspirv::dr::Operand::LiteralString(s)) if s == entry)
    });
    if !has_entry {
        return Err(Error::InvalidSpirv(format!(
            "no GLCompute entry point named \"{entry}\""
        )));
    }
    if module.functions.is_empty() {
        return Err(Error::InvalidSpirv("the module has no functions".into()));
    }
    Ok(())
}

impl Drop for Context {
    fn drop(&mut self) {
        if self.poisoned.load(Ordering::SeqCst) {
            // Work may still be in flight on a hung device: destroying objects, freeing its memory or
            // unloading the driver now could crash, and waiting could hang. Leak all of it.
            let allocator = self
                .allocator
                .get_mut()
                .unwrap_or_else(|p| p.into_inner())
                .take();
            std::mem::forget(allocator);
            return;
        }
        // SAFETY: every buffer borrows the context, so none is alive; the queue is idle after the wait.
        unsafe {
            let _ = self.device.device_wait_idle();
            let cache = self.pipelines.get_mut().unwrap_or_else(|p| p.into_inner());
            for (_, list) in cache.drain() {
                for p in list {
                    self.device.destroy_pipeline(p.pipeline, None);
                    self.device.destroy_shader_module(p.module, None);
                }
            }
            let pc = *self
                .pipeline_cache
                .get_mut()
                .unwrap_or_else(|p| p.into_inner());
            if pc != vk::PipelineCache::null() {
                self.device.destroy_pipeline_cache(pc, None);
            }
            self.device.destroy_pipeline_layout(self.layout, None);
            self.device.destroy_pipeline_layout(self.texel_layout, None);
            self.device
                .destroy_descriptor_set_layout(self.texel_set_layout, None);
            let sub = self.submitter.get_mut().unwrap_or_else(|p| p.into_inner());
            self.device.destroy_command_pool(sub.pool, None);
            // The allocator frees its memory blocks; it must go before the device.
            drop(
                self.allocator
                    .get_mut()
                    .unwrap_or_else(|p| p.into_inner())
                    .take(),
            );
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
            ManuallyDrop::drop(&mut self.entry);
        }
    }
}

/// The default fence timeout of a new context: `RDNA2SPV_VK_TIMEOUT_S` seconds if set (CI raises it: lavapipe's
/// first-dispatch compile of a large module on 2 loaded cores can pass a minute), else 60 s.
fn default_timeout() -> Duration {
    std::env::var("RDNA2SPV_VK_TIMEOUT_S")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .map(Duration::from_secs)
        .unwrap_or(Duration::from_secs(60))
}
