//! `cargo xtask aco`: compiles GLSL compute shaders (glslang) through Mesa RADV on its null device
//! (`RADV_FORCE_FAMILY=navi21` or `navi10`, no GPU needed) and captures what ACO made of them: the exact code
//! bytes (from the hex words of the pipeline executable's "Assembly" representation), the ACO IR's
//! `p_startpgm` line (which registers RADV initialises) and the executable's statistics.
//!
//! Every shader uses the same layout: descriptor set 0 with storage buffers at bindings 0..N and a 16-byte
//! push-constant range, `local_size` from the source. The capture runs in a child process so the Vulkan loader
//! sees only RADV (`VK_ICD_FILENAMES`) and the null winsys (`RADV_FORCE_FAMILY`).
//!
//! Usage: `cargo xtask aco [--family navi21|navi10] [--wave 32|64] [--bindings N] SHADER.comp OUT_PREFIX`
//! writes OUT_PREFIX.bin (code bytes), OUT_PREFIX.aco.txt (the Assembly and ACO IR as RADV printed them) and
//! prints the `p_startpgm` line. `cargo xtask aco --fixtures` regenerates every capture under fixtures/aco/.

use anyhow::{bail, Context, Result};
use ash::vk;
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::process::Command;

const RADV_ICD: &str = "/usr/share/vulkan/icd.d/radeon_icd.x86_64.json";

/// One capture of the fixture set: (shader, family, wave size, storage buffers).
pub const FIXTURES: &[(&str, &str, u32, u32)] = &[
    ("muladd", "navi21", 64, 4),
    ("muladd", "navi21", 32, 4),
    ("muladd", "navi10", 64, 4),
    ("intops", "navi21", 64, 3),
    ("shared", "navi21", 32, 2),
    ("shared", "navi21", 64, 2),
    ("half2", "navi21", 64, 4),
    ("control", "navi21", 32, 2),
    ("control", "navi21", 64, 2),
    ("ballot", "navi21", 64, 2),
    ("ballot", "navi21", 32, 2),
    ("reduce", "navi21", 64, 2),
    ("reduce", "navi21", 32, 2),
    ("shuffle", "navi21", 64, 3),
    ("shuffle", "navi21", 32, 3),
    ("shuffle_rel", "navi21", 64, 4),
    ("shuffle_rel", "navi21", 32, 4),
];

struct Opts {
    family: String,
    wave: u32,
    bindings: u32,
}

pub fn run(args: &[String]) -> Result<()> {
    if args.first().map(String::as_str) == Some("--fixtures") {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/aco");
        for &(name, family, wave, bindings) in FIXTURES {
            let src = root.join(format!("{name}.comp"));
            let prefix = root.join(capture_name(name, family, wave));
            capture_child(&src, &prefix, family, wave, bindings)?;
        }
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("--child") {
        // Inside the child: RADV is the only ICD.
        let opts = Opts {
            family: args[1].clone(),
            wave: args[2].parse()?,
            bindings: args[3].parse()?,
        };
        return capture(Path::new(&args[4]), Path::new(&args[5]), &opts);
    }
    let mut opts = Opts {
        family: "navi21".into(),
        wave: 64,
        bindings: 4,
    };
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--family" => opts.family = it.next().context("--family needs a value")?.clone(),
            "--wave" => opts.wave = it.next().context("--wave needs a value")?.parse()?,
            "--bindings" => {
                opts.bindings = it.next().context("--bindings needs a value")?.parse()?
            }
            _ => rest.push(a.clone()),
        }
    }
    if rest.len() != 2 {
        bail!("usage: cargo xtask aco [--family navi21|navi10] [--wave 32|64] [--bindings N] SHADER.comp OUT_PREFIX");
    }
    capture_child(
        Path::new(&rest[0]),
        Path::new(&rest[1]),
        &opts.family,
        opts.wave,
        opts.bindings,
    )
}

fn suffixed(prefix: &Path, suffix: &str) -> PathBuf {
    let mut s = prefix.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// File stem of a fixture capture: `muladd.navi21.w64`.
pub fn capture_name(name: &str, family: &str, wave: u32) -> String {
    format!("{name}.{family}.w{wave}")
}

fn capture_child(src: &Path, prefix: &Path, family: &str, wave: u32, bindings: u32) -> Result<()> {
    let spv = suffixed(prefix, ".spv.tmp");
    let st = Command::new("glslangValidator")
        .args(["--target-env", "vulkan1.3", "-S", "comp", "-o"])
        .arg(&spv)
        .arg(src)
        .status()
        .context("running glslangValidator (apt-get install glslang-tools)")?;
    if !st.success() {
        bail!("glslangValidator failed on {}", src.display());
    }
    let exe = std::env::current_exe()?;
    let st = Command::new(exe)
        .args([
            "aco",
            "--child",
            family,
            &wave.to_string(),
            &bindings.to_string(),
        ])
        .arg(&spv)
        .arg(prefix)
        .env("VK_ICD_FILENAMES", RADV_ICD)
        .env("VK_DRIVER_FILES", RADV_ICD)
        .env("RADV_FORCE_FAMILY", family)
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .status()?;
    let _ = std::fs::remove_file(&spv);
    if !st.success() {
        bail!("capturing {} through RADV ({family}) failed", src.display());
    }
    Ok(())
}

/// Parses the hex words at the end of each line of ACO's "Assembly" (`v_fma_f32 v3, s4, v1, v2 ; d54b0003 040a0204`).
pub fn words_of_assembly(asm: &str) -> Result<Vec<u32>> {
    let mut words = Vec::new();
    for line in asm.lines() {
        let Some((_, hex)) = line.rsplit_once(';') else {
            continue;
        };
        let toks: Vec<&str> = hex.split_whitespace().collect();
        if toks.is_empty()
            || !toks
                .iter()
                .all(|t| t.len() == 8 && t.chars().all(|c| c.is_ascii_hexdigit()))
        {
            continue;
        }
        for t in toks {
            words.push(u32::from_str_radix(t, 16)?);
        }
    }
    if words.is_empty() {
        bail!("no instruction words in the Assembly representation");
    }
    Ok(words)
}

/// The highest VGPR an ACO "Assembly" listing names (`v7`, `v[4:5]`), if any.
pub fn max_vgpr(asm: &str) -> Option<u32> {
    let mut max = None;
    for line in asm.lines() {
        let code = line.split(';').next().unwrap_or("");
        let b = code.as_bytes();
        for (i, _) in code.match_indices('v') {
            if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
                continue;
            }
            let rest = &code[i + 1..];
            let rest = rest.strip_prefix('[').unwrap_or(rest);
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            let Ok(first) = digits.parse::<u32>() else {
                continue;
            };
            let after = &rest[digits.len()..];
            let last = after
                .strip_prefix(':')
                .and_then(|r| {
                    r.chars()
                        .take_while(|c| c.is_ascii_digit())
                        .collect::<String>()
                        .parse::<u32>()
                        .ok()
                })
                .unwrap_or(first);
            max = Some(max.unwrap_or(0).max(last));
        }
    }
    max
}

/// The wave64 shared VGPRs RADV gives a capture (decision D153). RADV reports no shared-VGPR statistic,
/// so this is read off the code: when it names a VGPR at or above the "VGPRs" statistic (the allocation),
/// ACO allocated shared VGPRs, and ACO's instruction selection (`emit_bpermute`, Mesa 21–24) always asks
/// for `2 × vgpr_alloc_granule` of them: 16 on navi21 (gfx10.3, granule 8 in wave64), 8 on navi10
/// (granule 4). Wave32 has none; a wave32 listing above its allocation is an error.
pub fn shared_vgprs(asm: &str, vgprs: u32, family: &str, wave: u32) -> Result<u32> {
    let Some(max) = max_vgpr(asm) else {
        return Ok(0);
    };
    if max < vgprs {
        return Ok(0);
    }
    if wave != 64 {
        bail!("the wave32 code names v{max}, above its {vgprs} VGPRs");
    }
    let granule = if family == "navi10" { 4 } else { 8 };
    let shared = 2 * granule;
    if max >= vgprs + shared {
        bail!("the code names v{max}, above its {vgprs} VGPRs and {shared} shared VGPRs");
    }
    Ok(shared)
}

fn capture(spv: &Path, prefix: &Path, o: &Opts) -> Result<()> {
    let bytes = std::fs::read(spv)?;
    let code = ash::util::read_spv(&mut std::io::Cursor::new(bytes))?;
    // SAFETY: plain Vulkan calls on objects created here, in order, destroyed with the process.
    unsafe {
        let entry = ash::Entry::load().context("loading libvulkan")?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let inst = entry.create_instance(
            &vk::InstanceCreateInfo::default().application_info(&app),
            None,
        )?;
        let pds = inst.enumerate_physical_devices()?;
        let pd = *pds.first().context("RADV exposes no device")?;
        let props = inst.get_physical_device_properties(pd);
        let dev_name = CStr::from_ptr(props.device_name.as_ptr())
            .to_string_lossy()
            .into_owned();
        if !dev_name.contains("RADV") {
            bail!("the device is {dev_name}, not RADV");
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
            .storage_buffer8_bit_access(true);
        let mut v11 =
            vk::PhysicalDeviceVulkan11Features::default().storage_buffer16_bit_access(true);
        let dev = inst.create_device(
            pd,
            &vk::DeviceCreateInfo::default()
                .queue_create_infos(&qci)
                .enabled_extension_names(&exts)
                .push_next(&mut pep)
                .push_next(&mut v13)
                .push_next(&mut v12)
                .push_next(&mut v11),
            None,
        )?;
        let sm =
            dev.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None)?;
        let binds: Vec<_> = (0..o.bindings)
            .map(|i| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let dsl = [dev.create_descriptor_set_layout(
            &vk::DescriptorSetLayoutCreateInfo::default().bindings(&binds),
            None,
        )?];
        let pcr = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(16)];
        let pl = dev.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&dsl)
                .push_constant_ranges(&pcr),
            None,
        )?;
        let name = CString::new("main")?;
        let mut req = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(o.wave);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(sm)
            .name(&name)
            .push_next(&mut req);
        let cpci = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(pl)
            .flags(
                vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR
                    | vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR,
            )];
        let pipe = dev
            .create_compute_pipelines(vk::PipelineCache::null(), &cpci, None)
            .map_err(|(_, e)| e)?[0];
        let pe = ash::khr::pipeline_executable_properties::Device::new(&inst, &dev);
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
        let mut text = format!(
            "// {dev_name}, required subgroup size {}, captured by `cargo xtask aco`\n",
            o.wave
        );
        let mut asm = String::new();
        let mut startpgm = String::new();
        for (r, b) in irs.iter().zip(&bufs) {
            let nm = CStr::from_ptr(r.name.as_ptr())
                .to_string_lossy()
                .into_owned();
            let body = String::from_utf8_lossy(b)
                .trim_end_matches('\0')
                .to_string();
            if nm == "Assembly" {
                asm = body.clone();
            }
            if nm == "ACO IR" {
                if let Some(l) = body.lines().find(|l| l.contains("p_startpgm")) {
                    startpgm = l.trim().to_string();
                }
            }
            if nm != "NIR Shader(s)" {
                text.push_str(&format!("// ==== {nm}\n{body}\n"));
            }
        }
        let stats = pe.get_pipeline_executable_statistics(&ei)?;
        text.push_str("// ==== statistics\n");
        let mut vgprs = None;
        for s in &stats {
            let nm = CStr::from_ptr(s.name.as_ptr()).to_string_lossy();
            text.push_str(&format!("// {nm} = {}\n", s.value.u64));
            if nm == "VGPRs" {
                vgprs = Some(s.value.u64 as u32);
            }
        }
        let vgprs = vgprs.context("RADV reported no \"VGPRs\" statistic")?;
        let shared = shared_vgprs(&asm, vgprs, &o.family, o.wave)?;
        let abi = format!("[abi] vgprs = {vgprs}, shared_vgprs = {shared}");
        text.push_str(&format!(
            "// ==== rdna2spv: {abi} (the \"VGPRs\" statistic; shared: see xtask/src/aco.rs shared_vgprs)\n"
        ));
        let words = words_of_assembly(&asm)?;
        let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(suffixed(prefix, ".bin"), &code)?;
        std::fs::write(suffixed(prefix, ".aco.txt"), &text)?;
        println!(
            "{}: {} bytes; {abi}; {startpgm}",
            prefix.display(),
            code.len()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_vgprs_are_read_off_the_listing() {
        let asm =
            "\tv_mov_b32_e32 v8, v1 ; 7e100301\n\tds_bpermute_b32 v9, v2, v9 ; dacc0000 09000902\n\
                   \tv_mov_b32 v[4:5], v[6:7] ; 0\n\ts_mov_b32 vcc_lo, s0 ; 0\n";
        assert_eq!(max_vgpr(asm), Some(9));
        assert_eq!(max_vgpr("\ts_endpgm ; bf810000\n"), None);
        assert_eq!(max_vgpr("\tv_lshrrev_b64 v[2:3], 1, v[0:1] ; 0\n"), Some(3));
        assert_eq!(shared_vgprs(asm, 8, "navi21", 64).unwrap(), 16);
        assert_eq!(shared_vgprs(asm, 8, "navi10", 64).unwrap(), 8);
        assert_eq!(shared_vgprs(asm, 16, "navi21", 64).unwrap(), 0);
        assert!(shared_vgprs(asm, 8, "navi21", 32).is_err());
        assert!(shared_vgprs("\tv_mov_b32 v40, v0 ; 0\n", 8, "navi21", 64).is_err());
    }
}
