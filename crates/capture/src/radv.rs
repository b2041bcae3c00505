//! Compiling a compute shader through Mesa RADV on its null device (`RADV_FORCE_FAMILY`, no AMD GPU needed)
//! and collecting what the driver reports: the pipeline executable's internal representations (NIR, ACO IR,
//! Assembly) and statistics (VK_KHR_pipeline_executable_properties), and ACO's `ac_shader_config` read from
//! the pipeline-cache blob (shared VGPRs, float mode, scratch).

use crate::reflect::Reflection;
use anyhow::{bail, Context, Result};
use ash::vk;
use std::ffi::{CStr, CString};

/// Where Debian's mesa-vulkan-drivers installs RADV's ICD file.
pub const RADV_ICD: &str = "/usr/share/vulkan/icd.d/radeon_icd.x86_64.json";

/// What RADV reports about one compiled compute shader.
#[derive(Debug, Clone, Default)]
pub struct DriverOutput {
    pub device_name: String,
    pub nir: String,
    pub aco_ir: String,
    pub assembly: String,
    pub stats: Vec<(String, u64)>,
    /// ACO's `ac_shader_config` from the pipeline-cache blob, when it could be located (see [`config_of_cache`]).
    pub config: Option<ShaderConfig>,
}

/// The fields of Mesa's `struct ac_shader_config` (src/amd/common/ac_binary.h, Mesa 22.x) that the raw
/// manifest needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShaderConfig {
    pub num_sgprs: u32,
    pub num_vgprs: u32,
    pub num_shared_vgprs: u32,
    pub lds_size: u32,
    /// The MODE register's FLOAT_MODE field: bits 0–3 rounding, 4–5 f32 denormals, 6–7 f16/f64 denormals.
    pub float_mode: u32,
    pub scratch_bytes_per_wave: u32,
}

/// Points the Vulkan loader at RADV alone and RADV at its null device for `family`. Must run before this
/// process loads libvulkan or creates any Vulkan instance (the CLI's `capture` command and `cargo xtask aco`
/// do it first thing).
pub fn use_null_device(family: &str) -> Result<()> {
    if !std::path::Path::new(RADV_ICD).exists() {
        bail!("RADV is not installed ({RADV_ICD} is missing): apt-get install mesa-vulkan-drivers");
    }
    std::env::set_var("VK_ICD_FILENAMES", RADV_ICD);
    std::env::set_var("VK_DRIVER_FILES", RADV_ICD);
    std::env::set_var("RADV_FORCE_FAMILY", family);
    std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    Ok(())
}

/// Compiles `spirv` (entry point `r.entry`) as a compute pipeline on RADV's null device with the wave size
/// `wave` required, descriptor sets holding the reflected bindings and one push-constant range covering the
/// reflected block. [`use_null_device`] must have been called.
pub fn compile(spirv: &[u32], r: &Reflection, wave: u32) -> Result<DriverOutput> {
    // SAFETY: plain Vulkan calls on objects created here, in order; everything is destroyed with the device.
    unsafe {
        let entry = ash::Entry::load()
            .context("loading libvulkan (apt-get install libvulkan1 mesa-vulkan-drivers)")?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let inst = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .context("creating a Vulkan instance on RADV's null device")?;
        let out = compile_on(&inst, spirv, r, wave);
        inst.destroy_instance(None);
        out
    }
}

unsafe fn compile_on(
    inst: &ash::Instance,
    spirv: &[u32],
    r: &Reflection,
    wave: u32,
) -> Result<DriverOutput> {
    // SAFETY (whole function): the caller's instance is live; objects are created and used in order.
    unsafe {
        let pds = inst.enumerate_physical_devices()?;
        let pd = *pds
            .first()
            .context("RADV exposes no device (is RADV_FORCE_FAMILY a known family?)")?;
        let props = inst.get_physical_device_properties(pd);
        let device_name = CStr::from_ptr(props.device_name.as_ptr())
            .to_string_lossy()
            .into_owned();
        if !device_name.contains("RADV") {
            bail!("the Vulkan device is {device_name}, not RADV's null device");
        }
        let prio = [1.0f32];
        let qci = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&prio)];
        let exts = [ash::khr::pipeline_executable_properties::NAME.as_ptr()];
        let mut pep = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
            .pipeline_executable_info(true);
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(true)
            .compute_full_subgroups(true);
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_float16(true)
            .shader_int8(true)
            .storage_buffer8_bit_access(true)
            .uniform_and_storage_buffer8_bit_access(true);
        let mut v11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(true)
            .uniform_and_storage_buffer16_bit_access(true);
        let f10 = vk::PhysicalDeviceFeatures::default()
            .shader_int64(true)
            .shader_int16(true)
            .shader_float64(true);
        let dev = inst
            .create_device(
                pd,
                &vk::DeviceCreateInfo::default()
                    .queue_create_infos(&qci)
                    .enabled_extension_names(&exts)
                    .enabled_features(&f10)
                    .push_next(&mut pep)
                    .push_next(&mut v13)
                    .push_next(&mut v12)
                    .push_next(&mut v11),
                None,
            )
            .context("creating a device on RADV's null device")?;
        let out = pipeline_output(inst, &dev, spirv, r, wave);
        dev.destroy_device(None);
        out.map(|mut o| {
            o.device_name = device_name;
            o
        })
    }
}

unsafe fn pipeline_output(
    inst: &ash::Instance,
    dev: &ash::Device,
    spirv: &[u32],
    r: &Reflection,
    wave: u32,
) -> Result<DriverOutput> {
    // SAFETY (whole function): the device is live; handles are used after creation only.
    unsafe {
        let sm =
            dev.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)?;
        let max_set = r.bindings.iter().map(|b| b.set + 1).max().unwrap_or(0);
        let mut dsl = Vec::new();
        for s in 0..max_set {
            let binds: Vec<_> = r
                .bindings
                .iter()
                .filter(|b| b.set == s)
                .map(|b| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b.binding)
                        .descriptor_type(if b.image.as_ref().is_some_and(|i| i.sampled) {
                            vk::DescriptorType::COMBINED_IMAGE_SAMPLER
                        } else if b.image.is_some() {
                            vk::DescriptorType::STORAGE_IMAGE
                        } else if b.uniform {
                            vk::DescriptorType::UNIFORM_BUFFER
                        } else {
                            vk::DescriptorType::STORAGE_BUFFER
                        })
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            dsl.push(dev.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&binds),
                None,
            )?);
        }
        let pcr = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(r.push_bytes.max(4))];
        let pl = dev.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&dsl)
                .push_constant_ranges(if r.push_bytes > 0 { &pcr[..] } else { &[] }),
            None,
        )?;
        let name = CString::new(r.entry.as_str())?;
        let create = |flags: vk::PipelineCreateFlags, cache: vk::PipelineCache| {
            let mut req = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
                .required_subgroup_size(wave);
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(sm)
                .name(&name)
                .push_next(&mut req);
            let cpci = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(pl)
                .flags(flags)];
            dev.create_compute_pipelines(cache, &cpci, None)
                .map_err(|(_, e)| e)
                .context("RADV did not compile the compute pipeline")
                .map(|p| p[0])
        };
        let pipe = create(
            vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR
                | vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR,
            vk::PipelineCache::null(),
        )?;
        let pe = ash::khr::pipeline_executable_properties::Device::new(inst, dev);
        let ei = vk::PipelineExecutableInfoKHR::default()
            .pipeline(pipe)
            .executable_index(0);
        // ash's safe wrapper does not fill pData: call the function pointer directly.
        let f = pe.fp().get_pipeline_executable_internal_representations_khr;
        let mut n = 0u32;
        f(dev.handle(), &ei, &mut n, std::ptr::null_mut()).result()?;
        let mut irs = vec![vk::PipelineExecutableInternalRepresentationKHR::default(); n as usize];
        f(dev.handle(), &ei, &mut n, irs.as_mut_ptr()).result()?;
        let mut bufs: Vec<Vec<u8>> = irs.iter().map(|r| vec![0u8; r.data_size]).collect();
        for (r, b) in irs.iter_mut().zip(bufs.iter_mut()) {
            r.p_data = b.as_mut_ptr().cast();
        }
        f(dev.handle(), &ei, &mut n, irs.as_mut_ptr()).result()?;
        let mut out = DriverOutput::default();
        for (r, b) in irs.iter().zip(&bufs) {
            let nm = CStr::from_ptr(r.name.as_ptr())
                .to_string_lossy()
                .into_owned();
            let body = String::from_utf8_lossy(b)
                .trim_end_matches('\0')
                .to_string();
            match nm.as_str() {
                "Assembly" => out.assembly = body,
                "ACO IR" => out.aco_ir = body,
                "NIR Shader(s)" => out.nir = body,
                _ => {}
            }
        }
        for s in pe.get_pipeline_executable_statistics(&ei)? {
            let nm = CStr::from_ptr(s.name.as_ptr())
                .to_string_lossy()
                .into_owned();
            out.stats.push((nm, s.value.u64));
        }
        dev.destroy_pipeline(pipe, None);
        // RADV keeps captures out of its pipeline cache: compile once more, plainly, into a cache, and read
        // ACO's shader config from the cache's blob.
        let cache = dev.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)?;
        let pipe = create(vk::PipelineCreateFlags::empty(), cache)?;
        let blob = dev.get_pipeline_cache_data(cache)?;
        dev.destroy_pipeline(pipe, None);
        dev.destroy_pipeline_cache(cache, None);
        dev.destroy_pipeline_layout(pl, None);
        for l in dsl {
            dev.destroy_descriptor_set_layout(l, None);
        }
        dev.destroy_shader_module(sm, None);
        let words = crate::listing::words_of_assembly(&out.assembly)?;
        out.config = config_of_cache(&blob, &words);
        Ok(out)
    }
}

/// Finds ACO's `ac_shader_config` for the shader whose code is `words` in a RADV pipeline-cache blob
/// (Mesa 22.x: `struct radv_shader_binary_legacy`), or None when the blob does not have that shape.
///
/// The binary is `{ u32 type; u32 stage; bool is_gs_copy_shader; struct ac_shader_config config;
/// struct radv_shader_info info; u32 total_size; [padding to 8 bytes]; u32 code_size, exec_size, ir_size,
/// disasm_size, stats_size; u8 data[] }` with `data` = statistics, code, IR, disassembly. The code is found by its
/// bytes; the five sizes before it must agree with it (exec_size = the code's length, stats_size = the
/// gap); `total_size` (which also counts two NULs, rounded up) then gives the binary's start within 8 bytes,
/// which must hold type LEGACY (0), stage MESA_SHADER_COMPUTE (5) and a bool. `radv_shader_info`'s layout is never relied on.
pub fn config_of_cache(blob: &[u8], words: &[u32]) -> Option<ShaderConfig> {
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let u32_at = |o: usize| -> Option<u32> {
        Some(u32::from_le_bytes(blob.get(o..o + 4)?.try_into().ok()?))
    };
    let mut from = 0;
    while let Some(rel) = blob
        .get(from..)?
        .windows(code.len())
        .position(|w| w == code.as_slice())
    {
        let code_at = from + rel;
        from = code_at + 1;
        // The header sits stats_size bytes before the code; statistics are at most a few hundred bytes.
        for stats in (0..=1024usize).step_by(4) {
            let Some(data) = code_at.checked_sub(stats) else {
                break;
            };
            let Some(h) = data.checked_sub(20) else { break };
            let (Some(code_size), Some(exec), Some(ir), Some(dis), Some(st)) = (
                u32_at(h),
                u32_at(h + 4),
                u32_at(h + 8),
                u32_at(h + 12),
                u32_at(h + 16),
            ) else {
                continue;
            };
            if st as usize != stats || exec as usize != code.len() || code_size < exec {
                continue;
            }
            let end =
                data as u64 + u64::from(st) + u64::from(code_size) + u64::from(ir) + u64::from(dis);
            // total_size ends `struct radv_shader_binary`, which may be padded to 8 bytes.
            for total_at in [h.checked_sub(4), h.checked_sub(8)].into_iter().flatten() {
                let Some(total) = u32_at(total_at) else {
                    continue;
                };
                // total_size also counts the strings' two NULs, rounded up to 4: the start is up to 8
                // bytes after end − total_size.
                let Some(lo) = end.checked_sub(u64::from(total)) else {
                    continue;
                };
                let Some(start) = [0, 4, 8].into_iter().map(|d| lo as usize + d).find(|&st| {
                    st < total_at
                        && u32_at(st) == Some(0)
                        && u32_at(st + 4) == Some(5)
                        && u32_at(st + 8).is_some_and(|b| b <= 1)
                }) else {
                    continue;
                };
                let c = |k: usize| u32_at(start + 12 + 4 * k);
                return Some(ShaderConfig {
                    num_sgprs: c(0)?,
                    num_vgprs: c(1)?,
                    num_shared_vgprs: c(2)?,
                    lds_size: c(5)?,
                    float_mode: c(8)?,
                    scratch_bytes_per_wave: c(9)?,
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blob laid out as Mesa 22.3 writes one compute shader: cache header, entry bytes, then
    /// `radv_shader_binary_legacy` (type, stage, bool, config[13], info (opaque), total_size, padding,
    /// five sizes, code), total_size counting two NULs rounded up to 4.
    fn blob(stage: u32, exec_words: &[u32], pad_after_total: bool) -> Vec<u8> {
        let mut b = vec![0xabu8; 40];
        let start = b.len();
        let put = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
        put(&mut b, 0);
        put(&mut b, stage);
        put(&mut b, 0);
        for v in [128, 8, 16, 0, 0, 1, 0, 0, 0xc0, 256, 0, 0, 0] {
            put(&mut b, v);
        }
        b.extend_from_slice(&[7u8; 200]); // radv_shader_info: never read
        let code_size = exec_words.len() as u32 * 4 + 64;
        let header = (b.len() - start) as u32 + 4 + u32::from(pad_after_total) * 4 + 20;
        put(&mut b, (header + code_size + 2).div_ceil(4) * 4);
        if pad_after_total {
            put(&mut b, 0);
        }
        for v in [code_size, exec_words.len() as u32 * 4, 0, 0, 0] {
            put(&mut b, v);
        }
        for &w in exec_words {
            put(&mut b, w);
        }
        b.extend_from_slice(&[0u8; 64]);
        b
    }

    #[test]
    fn the_shader_config_is_found_by_the_code_and_checked() {
        let code = [0xbe80_0303, 0xbf81_0000];
        let want = Some(ShaderConfig {
            num_sgprs: 128,
            num_vgprs: 8,
            num_shared_vgprs: 16,
            lds_size: 1,
            float_mode: 0xc0,
            scratch_bytes_per_wave: 256,
        });
        assert_eq!(config_of_cache(&blob(5, &code, true), &code), want);
        assert_eq!(config_of_cache(&blob(5, &code, false), &code), want);
        // Not a compute binary, or not this code: nothing.
        assert_eq!(config_of_cache(&blob(4, &code, true), &code), None);
        assert_eq!(
            config_of_cache(&blob(5, &code, true), &[0xbf81_0000, 1]),
            None
        );
    }
}
