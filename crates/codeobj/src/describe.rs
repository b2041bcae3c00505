//! A human-readable summary of a code object (for `rdna2spv info`).

use crate::{CodeObject, Kernel};
use std::fmt::Write;

/// A multi-line text summary: target, version, and per kernel the code range, wave size,
/// register layout, segment sizes, float mode, raw descriptor words and the argument list.
pub fn describe(co: &CodeObject) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_summary(&mut out, co);
    out
}

fn write_summary(out: &mut String, co: &CodeObject) -> std::fmt::Result {
    write!(
        out,
        "HSA code object v{} (ELF ABI version {}), target {} (e_flags {:#x})",
        co.code_object_version, co.abi_version, co.target, co.target.e_flags
    )?;
    if let Some(t) = &co.bundle_triple {
        write!(out, ", from bundle entry {t}")?;
    }
    writeln!(out)?;
    if let Some(md) = &co.metadata {
        let version = md
            .version
            .as_ref()
            .map(|v| {
                v.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(".")
            })
            .unwrap_or_else(|| "?".into());
        writeln!(
            out,
            "metadata: amdhsa.version {version}, amdhsa.target {}",
            md.target.as_deref().unwrap_or("?")
        )?;
    } else {
        writeln!(out, "metadata: none")?;
    }
    match &co.image {
        Ok(im) => {
            writeln!(
                out,
                "image: {} bytes from address 0, {} PT_LOAD segment(s), {} dynamic relocation(s), {} global(s)",
                im.size,
                im.segments.len(),
                im.relocations.len(),
                im.globals.len()
            )?;
            for g in &im.globals {
                writeln!(
                    out,
                    "  global {:#x} {:>8} B  {:<10} {}{}",
                    g.address,
                    g.size,
                    g.section,
                    g.name,
                    if g.writable { "" } else { "  (read-only)" }
                )?;
            }
        }
        Err(e) => writeln!(out, "image: none ({e})")?,
    }
    writeln!(out, "{} kernel(s)", co.kernels.len())?;
    for k in &co.kernels {
        write_kernel(out, k)?;
    }
    Ok(())
}

fn yes(b: bool) -> u8 {
    u8::from(b)
}

fn write_kernel(out: &mut String, k: &Kernel) -> std::fmt::Result {
    let d = &k.descriptor;
    let r1 = &d.compute_pgm_rsrc1;
    let r2 = &d.compute_pgm_rsrc2;
    writeln!(out)?;
    write!(out, "kernel {}", k.name)?;
    if k.display_name() != k.name {
        write!(out, " ({})", k.display_name())?;
    }
    writeln!(
        out,
        "  [descriptor {} at {:#x}, file offset {:#x}]",
        k.descriptor_symbol, k.descriptor_address, k.descriptor_offset
    )?;
    writeln!(
        out,
        "  code: {:#x}..{:#x} ({} bytes, file offset {:#x}, end from {:?})",
        k.code_address,
        k.code_address.saturating_add(k.code_size),
        k.code_size,
        k.code_offset,
        k.code_extent
    )?;
    writeln!(
        out,
        "  wave{}, {} VGPRs (granulated {}), sgpr granule field {}",
        k.abi.wave_size,
        k.abi.vgpr_count,
        r1.granulated_workitem_vgpr_count,
        r1.granulated_wavefront_sgpr_count
    )?;
    let user: Vec<String> = k.abi.user_sgprs.iter().map(|s| s.to_string()).collect();
    writeln!(
        out,
        "  user SGPRs ({}): {}",
        k.abi.user_sgpr_count,
        if user.is_empty() {
            "none".into()
        } else {
            user.join(", ")
        }
    )?;
    let system: Vec<String> = k.abi.system_sgprs.iter().map(|s| s.to_string()).collect();
    writeln!(
        out,
        "  system SGPRs: {}",
        if system.is_empty() {
            "none".into()
        } else {
            system.join(", ")
        }
    )?;
    let vgprs: Vec<String> = k
        .abi
        .workitem_id_vgprs
        .iter()
        .map(|v| v.to_string())
        .collect();
    writeln!(out, "  initial VGPRs: {}", vgprs.join(", "))?;
    writeln!(
        out,
        "  segments: group {} B, private {} B{}, kernarg {} B",
        d.group_segment_fixed_size,
        d.private_segment_fixed_size,
        if r2.enable_private_segment {
            " (scratch on)"
        } else {
            ""
        },
        d.kernarg_size
    )?;
    writeln!(
        out,
        "  float: round32 {} round16_64 {} denorm32 {} denorm16_64 {}, dx10_clamp {} ieee {} fp16_ovfl {}; wgp_mode {} mem_ordered {} fwd_progress {}",
        r1.float_round_mode_32,
        r1.float_round_mode_16_64,
        r1.float_denorm_mode_32,
        r1.float_denorm_mode_16_64,
        yes(r1.enable_dx10_clamp),
        yes(r1.enable_ieee_mode),
        yes(r1.fp16_ovfl),
        yes(r1.wgp_mode),
        yes(r1.mem_ordered),
        yes(r1.fwd_progress)
    )?;
    writeln!(
        out,
        "  raw: rsrc1 {:#010x} rsrc2 {:#010x} rsrc3 {:#010x} kernel_code_properties {:#06x} entry offset {:#x}",
        r1.raw, r2.raw, d.compute_pgm_rsrc3.raw, d.kernel_code_properties.raw, d.kernel_code_entry_byte_offset
    )?;
    if let Some(md) = &k.metadata {
        write!(out, "  metadata:")?;
        let fields = [
            ("kernarg_segment_size", md.kernarg_segment_size),
            ("kernarg_segment_align", md.kernarg_segment_align),
            ("wavefront_size", md.wavefront_size),
            ("sgpr_count", md.sgpr_count),
            ("vgpr_count", md.vgpr_count),
            ("max_flat_workgroup_size", md.max_flat_workgroup_size),
        ];
        for (name, v) in fields {
            if let Some(v) = v {
                write!(out, " {name} {v}")?;
            }
        }
        if let Some(r) = &md.reqd_workgroup_size {
            write!(out, " reqd_workgroup_size {r:?}")?;
        }
        writeln!(out)?;
        writeln!(out, "  args:")?;
        for a in &md.args {
            write!(
                out,
                "    +{:<4} {:>3} B  {}",
                a.offset, a.size, a.value_kind
            )?;
            if let Some(space) = &a.address_space {
                write!(out, " {space}")?;
            }
            if a.is_const {
                write!(out, " const")?;
            }
            if let Some(t) = &a.type_name {
                write!(out, " {t}")?;
            }
            if let Some(n) = &a.name {
                write!(out, " {n}")?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}
