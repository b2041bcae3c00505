//! Reading what RADV prints about a compiled compute shader: the hex words of ACO's assembly listing, the
//! registers of ACO's `p_startpgm` line, the executable statistics, facts of the final NIR (which descriptor
//! sets, push-constant dwords and workgroup ids the shader reads; its workgroup size) and, for
//! `--from-radv-log`, the shaders of a `RADV_DEBUG=shaders` log.

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;

/// Parses the hex words at the end of each line of ACO's assembly (`v_fma_f32 v3, s4, v1, v2 ; d54b0003 040a0204`).
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
        bail!("no instruction words in ACO's assembly listing");
    }
    Ok(words)
}

/// The highest VGPR an ACO assembly listing names (`v7`, `v[4:5]`), if any.
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

/// The wave64 shared VGPRs of a capture when the driver's own count is not at hand (a `RADV_DEBUG=shaders`
/// log; D153, D174): when the code names a VGPR at or above the "VGPRs" statistic, ACO allocated shared
/// VGPRs, and its instruction selection (`emit_bpermute`, Mesa 21–24) always asks for
/// `2 × vgpr_alloc_granule`: 16 on navi21, 8 on navi10. Wave32 has none.
pub fn shared_vgprs_of_code(asm: &str, vgprs: u32, family: &str, wave: u32) -> Result<u32> {
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

/// One argument of ACO's `p_startpgm`: `s1: %31:s[2]` is an SGPR argument of 1 register at s2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartArg {
    pub vgpr: bool,
    pub size: u32,
    pub reg: u32,
    /// ACO's temporary (`%31`).
    pub temp: String,
}

/// The `p_startpgm` line of an ACO IR listing (after register allocation).
pub fn startpgm_line(aco_ir: &str) -> Result<&str> {
    aco_ir
        .lines()
        .find(|l| l.contains("= p_startpgm"))
        .map(str::trim)
        .context("ACO's IR has no p_startpgm line (was the log made with RADV_DEBUG=shaders?)")
}

/// Parses `s2: %30:s[0-1],  s1: %31:s[2],  v3: %36:v[0-2] = p_startpgm`.
pub fn parse_startpgm(line: &str) -> Result<Vec<StartArg>> {
    let defs = line
        .split("= p_startpgm")
        .next()
        .context("not a p_startpgm line")?;
    let mut args = Vec::new();
    for d in defs.split(',') {
        let d = d.trim();
        if d.is_empty() {
            continue;
        }
        let parts: Vec<&str> = d.split(':').map(str::trim).collect();
        let [cls, temp, reg] = parts[..] else {
            bail!("p_startpgm argument {d:?} has no register (is the listing from after register allocation?)");
        };
        let (vgpr, size) = match cls.split_at(1) {
            ("s", n) => (false, n),
            ("v", n) => (true, n),
            _ => bail!("p_startpgm argument {d:?}: unknown register class"),
        };
        let size: u32 = size
            .parse()
            .with_context(|| format!("p_startpgm argument {d:?}"))?;
        let inner = reg
            .get(2..reg.len().saturating_sub(1))
            .filter(|_| reg.len() > 3 && reg.ends_with(']'))
            .with_context(|| format!("p_startpgm argument {d:?}: register {reg:?}"))?;
        let first: u32 = inner
            .split('-')
            .next()
            .unwrap_or("")
            .parse()
            .with_context(|| format!("p_startpgm argument {d:?}: register {reg:?}"))?;
        args.push(StartArg {
            vgpr,
            size,
            reg: first,
            temp: temp.to_string(),
        });
    }
    if args.is_empty() {
        bail!("the p_startpgm line has no arguments");
    }
    Ok(args)
}

/// The constant ACO pairs with a 32-bit pointer argument (`p_create_vector %31, 0xffff8000`): the high half
/// of RADV's 32-bit addresses.
pub fn address32_hi(aco_ir: &str, temp: &str) -> Option<u32> {
    for l in aco_ir.lines().filter(|l| l.contains("p_create_vector")) {
        let ops = l.split("p_create_vector").nth(1)?;
        let mut toks = ops.split(',').map(|t| t.trim());
        let first = toks.next()?;
        let names_temp = first
            .split(|c: char| c == ')' || c == '(' || c.is_whitespace())
            .any(|t| t == temp || t.split(':').next() == Some(temp));
        if !names_temp {
            continue;
        }
        for t in toks {
            if let Some(h) = t.strip_prefix("0x") {
                if let Ok(v) = u32::from_str_radix(h.trim(), 16) {
                    return Some(v);
                }
            }
        }
    }
    None
}

/// What the final NIR says about the shader's inputs.
#[derive(Debug, Clone, Default)]
pub struct NirFacts {
    pub workgroup_size: Option<[u32; 3]>,
    /// Descriptor variables: (mode, binding, name, readonly, writeonly); NIR does not print their set.
    pub vars: Vec<NirVar>,
    /// Push-constant dwords read at constant offsets, 32-bit or wider (RADV's inline push-constant mask).
    pub push_mask: u64,
    /// Some push constant is read at a dynamic offset or narrower than 32 bits.
    pub push_not_inlinable: bool,
    pub loads_push_constants: bool,
    /// Components of the workgroup id the shader reads.
    pub workgroup_ids: [bool; 3],
    /// Intrinsics whose arguments rdna2spv's raw manifest cannot give yet.
    pub unsupported: Vec<String>,
    /// The push-constant block's size in bytes (NIR's `uniforms:` header).
    pub push_bytes: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NirVar {
    pub mode: String,
    pub binding: u32,
    pub name: String,
    pub readonly: bool,
    pub writeonly: bool,
}

/// Reads [`NirFacts`] off a NIR listing as RADV prints it.
pub fn nir_facts(nir: &str) -> Result<NirFacts> {
    let mut f = NirFacts::default();
    let mut consts: BTreeMap<String, u64> = BTreeMap::new();
    let mut wg_ssa = Vec::new();
    for line in nir.lines() {
        let l = line.trim();
        if let Some(v) = l.strip_prefix("workgroup-size:") {
            let n: Vec<u32> = v
                .split(',')
                .map(|t| t.trim().parse())
                .collect::<Result<_, _>>()
                .with_context(|| format!("NIR header {l:?}"))?;
            if n.len() == 3 {
                f.workgroup_size = Some([n[0], n[1], n[2]]);
            }
        } else if let Some(v) = l.strip_prefix("uniforms:") {
            f.push_bytes = v.trim().parse().unwrap_or(0);
        } else if let Some(rest) = l.strip_prefix("decl_var ") {
            if let Some(v) = parse_decl_var(rest) {
                f.vars.push(v);
            }
        } else if let Some((lhs, rhs)) = l.split_once(" = ") {
            let dst = lhs.split_whitespace().last().unwrap_or("").to_string();
            let bits: u32 = lhs
                .split_whitespace()
                .nth(1)
                .and_then(|b| b.parse().ok())
                .unwrap_or(32);
            let comps: u32 = lhs
                .split_whitespace()
                .next()
                .and_then(|v| v.strip_prefix("vec"))
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
            if let Some(c) = rhs.strip_prefix("load_const (0x") {
                let hex: String = c.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
                if let Ok(v) = u64::from_str_radix(&hex, 16) {
                    consts.insert(dst.clone(), v);
                }
            }
            if rhs.starts_with("intrinsic load_push_constant ") {
                f.loads_push_constants = true;
                let src = rhs
                    .split('(')
                    .nth(1)
                    .and_then(|s| s.split(')').next())
                    .unwrap_or("")
                    .trim();
                let base = rhs
                    .split("base=")
                    .nth(1)
                    .and_then(|s| {
                        s.chars()
                            .take_while(|c| c.is_ascii_digit())
                            .collect::<String>()
                            .parse::<u64>()
                            .ok()
                    })
                    .unwrap_or(0);
                match consts.get(src) {
                    Some(off) if bits >= 32 => {
                        let start = (base + off) / 4;
                        let size = u64::from(comps * bits / 32);
                        if start + size <= 32 {
                            f.push_mask |= ((1u64 << size) - 1) << start;
                        } else {
                            f.push_not_inlinable = true;
                        }
                    }
                    _ => f.push_not_inlinable = true,
                }
            } else if rhs.starts_with("intrinsic load_workgroup_id ") {
                wg_ssa.push(dst.clone());
            } else if let Some(i) = rhs.strip_prefix("intrinsic ") {
                let name = i.split_whitespace().next().unwrap_or("");
                if matches!(
                    name,
                    "load_num_workgroups"
                        | "load_local_invocation_index"
                        | "load_subgroup_id"
                        | "load_num_subgroups"
                        | "load_base_workgroup_id"
                        | "load_ray_launch_size"
                ) && !f.unsupported.contains(&name.to_string())
                {
                    f.unsupported.push(name.to_string());
                }
            }
        }
    }
    // Which components of each load_workgroup_id the shader reads (`ssa_0.x`, `ssa_0.yz`, or all of `ssa_0`).
    for s in &wg_ssa {
        for line in nir.lines() {
            let Some((lhs, rhs)) = line.split_once(" = ") else {
                continue;
            };
            let _ = lhs;
            let mut rest = rhs;
            while let Some(p) = rest.find(s.as_str()) {
                let after = &rest[p + s.len()..];
                let boundary_before = p == 0
                    || !rest.as_bytes()[p - 1].is_ascii_alphanumeric()
                        && rest.as_bytes()[p - 1] != b'_';
                let next = after.chars().next();
                if boundary_before && !matches!(next, Some(c) if c.is_ascii_digit()) {
                    if let Some(sw) = after.strip_prefix('.') {
                        for c in sw.chars().take_while(|c| c.is_ascii_alphabetic()) {
                            match c {
                                'x' => f.workgroup_ids[0] = true,
                                'y' => f.workgroup_ids[1] = true,
                                'z' => f.workgroup_ids[2] = true,
                                _ => {}
                            }
                        }
                    } else {
                        f.workgroup_ids = [true; 3];
                    }
                }
                rest = after;
            }
        }
    }
    Ok(f)
}

/// `ssbo INTERP_MODE_NONE restrict readonly X inst (~0, 0, 0)`: mode, qualifiers, type, name (`@N` or empty
/// when unnamed), then (location, driver_location, binding) — no descriptor set.
fn parse_decl_var(rest: &str) -> Option<NirVar> {
    let mode = rest.split_whitespace().next()?.to_string();
    if !matches!(mode.as_str(), "ssbo" | "ubo" | "image" | "uniform") {
        return None;
    }
    let open = rest.rfind('(')?;
    let inner = rest[open + 1..].split(')').next()?;
    let nums: Vec<&str> = inner.split(',').map(str::trim).collect();
    if nums.len() != 3 {
        return None;
    }
    // NIR prints (location, driver_location, binding): the descriptor set is not in the listing.
    let binding = nums[2].parse().ok()?;
    let toks: Vec<&str> = rest[..open].split_whitespace().collect();
    let readonly = toks.contains(&"readonly");
    let writeonly = toks.contains(&"writeonly");
    let words: Vec<&str> = toks[1..]
        .iter()
        .copied()
        .filter(|t| {
            !t.starts_with("INTERP_MODE")
                && !matches!(
                    *t,
                    "restrict" | "readonly" | "writeonly" | "coherent" | "volatile"
                )
        })
        .collect();
    // [type] or [type, name]; an unnamed instance prints as `@N`.
    let name = match words[..] {
        [ty] => ty,
        [ty, n] if n.starts_with('@') => ty,
        [_, n] => n,
        _ => words.last()?,
    };
    Some(NirVar {
        mode,
        binding,
        name: name.to_string(),
        readonly,
        writeonly,
    })
}

/// One compute shader of a `RADV_DEBUG=shaders` log: its NIR, ACO IR and disassembly, and the statistics
/// when the log was made with `RADV_DEBUG=shaders,shaderstats`.
#[derive(Debug, Clone, Default)]
pub struct LoggedShader {
    pub nir: String,
    pub aco_ir: String,
    pub disasm: String,
    pub stats: Vec<(String, u64)>,
}

/// Splits a `RADV_DEBUG=shaders` log (Mesa 22–23) into its compute shaders, in the order RADV compiled them.
/// Each shader prints as its final NIR (`shader: MESA_SHADER_COMPUTE` …), ACO's IR (`ACO shader stage:` …,
/// holding `p_startpgm`), then `Compute Shader` / `disasm:` and the assembly with its words; with
/// `shaderstats`, a `*** SHADER STATS ***` block.
pub fn split_radv_log(log: &str) -> Result<Vec<LoggedShader>> {
    #[derive(PartialEq)]
    enum S {
        Out,
        Nir,
        Aco,
        Disasm,
        Stats,
    }
    let mut shaders: Vec<LoggedShader> = Vec::new();
    let mut cur: Option<LoggedShader> = None;
    let mut state = S::Out;
    let mut pending_stats: Vec<(String, u64)> = Vec::new();
    let mut other_stage = false;
    let mut stats_to_cur = false;
    for line in log.lines() {
        let t = line.trim_end();
        if let Some(stage) = t.strip_prefix("shader: ") {
            if let Some(c) = cur.take() {
                shaders.push(c);
            }
            other_stage = stage.trim() != "MESA_SHADER_COMPUTE";
            if !other_stage {
                cur = Some(LoggedShader {
                    stats: std::mem::take(&mut pending_stats),
                    ..Default::default()
                });
            }
            state = S::Nir;
        } else if t == "*** SHADER STATS ***" {
            // Mesa 22.3 prints a shader's statistics after its disassembly; a block before any shader's
            // NIR waits for the next shader.
            stats_to_cur =
                matches!(cur.as_ref(), Some(c) if !c.disasm.is_empty() && c.stats.is_empty());
            state = S::Stats;
        } else if state == S::Stats {
            if t.starts_with("****") {
                state = S::Out;
            } else if let Some((k, v)) = t.split_once(':') {
                if let Ok(v) = v.trim().parse::<u64>() {
                    let kv = (k.trim().to_string(), v);
                    match cur.as_mut() {
                        Some(c) if stats_to_cur => c.stats.push(kv),
                        _ => pending_stats.push(kv),
                    }
                }
            }
        } else if other_stage {
            continue;
        } else if t.starts_with("ACO shader stage:") {
            state = S::Aco;
            if let Some(c) = cur.as_mut() {
                c.aco_ir.clear();
            }
        } else if t == "disasm:" {
            state = S::Disasm;
        } else if let Some(c) = cur.as_mut() {
            let buf = match state {
                S::Nir => &mut c.nir,
                S::Aco => &mut c.aco_ir,
                S::Disasm => &mut c.disasm,
                _ => continue,
            };
            buf.push_str(line);
            buf.push('\n');
        }
    }
    if let Some(c) = cur.take() {
        shaders.push(c);
    }
    let shaders: Vec<LoggedShader> = shaders
        .into_iter()
        .filter(|s| !s.disasm.is_empty() && s.aco_ir.contains("p_startpgm"))
        .collect();
    if shaders.is_empty() {
        bail!("the log holds no compute shader compiled by ACO (run the program with RADV_DEBUG=shaders on RADV)");
    }
    Ok(shaders)
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
        assert_eq!(shared_vgprs_of_code(asm, 8, "navi21", 64).unwrap(), 16);
        assert_eq!(shared_vgprs_of_code(asm, 8, "navi10", 64).unwrap(), 8);
        assert_eq!(shared_vgprs_of_code(asm, 16, "navi21", 64).unwrap(), 0);
        assert!(shared_vgprs_of_code(asm, 8, "navi21", 32).is_err());
        assert!(shared_vgprs_of_code("\tv_mov_b32 v40, v0 ; 0\n", 8, "navi21", 64).is_err());
    }

    #[test]
    fn startpgm_arguments() {
        let l = " s2: %30:s[0-1],  s1: %31:s[2],  s1: %32:s[3],  v3: %36:v[0-2] = p_startpgm";
        let a = parse_startpgm(l).unwrap();
        assert_eq!(a.len(), 4);
        assert_eq!(
            a[0],
            StartArg {
                vgpr: false,
                size: 2,
                reg: 0,
                temp: "%30".into()
            }
        );
        assert_eq!((a[2].reg, a[3].vgpr, a[3].size), (3, true, 3));
        assert!(parse_startpgm(" s2: %30, v1: %2 = p_startpgm").is_err());
        let ir = "\t s2: %12 = p_create_vector (kill)%31, 0xffff8000\n";
        assert_eq!(address32_hi(ir, "%31"), Some(0xffff8000));
        assert_eq!(address32_hi(ir, "%3"), None);
        let ir = "\t s2: %12:s[2-3] = p_create_vector %31:s[2], 0xffff8000\n";
        assert_eq!(address32_hi(ir, "%31"), Some(0xffff8000));
    }

    #[test]
    fn nir_facts_of_a_listing() {
        let nir = "workgroup-size: 64, 2, 1\nuniforms: 12\n\
            decl_var push_const INTERP_MODE_NONE PC pc\n\
            decl_var ssbo INTERP_MODE_NONE restrict readonly X  (~0, 0, 0)\n\
            decl_var ssbo INTERP_MODE_NONE restrict writeonly Z @1 (~0, 1, 2)\n\
            decl_var ssbo INTERP_MODE_NONE W w (~0, 0, 3)\n\
            \tvec3 32 ssa_0 = intrinsic load_workgroup_id () ()\n\
            \tvec1 32 ssa_3 = ishl ssa_0.z, ssa_2\n\
            \tvec1 32 ssa_5 = load_const (0x00000004 = 0.000000)\n\
            \tvec2 32 ssa_6 = intrinsic load_push_constant (ssa_5) (base=0, range=12)\n";
        let f = nir_facts(nir).unwrap();
        assert_eq!(f.workgroup_size, Some([64, 2, 1]));
        assert_eq!(f.push_bytes, 12);
        assert_eq!(f.push_mask, 0b110);
        assert!(!f.push_not_inlinable);
        assert_eq!(f.workgroup_ids, [false, false, true]);
        let names: Vec<_> = f
            .vars
            .iter()
            .map(|v| (v.name.as_str(), v.binding, v.readonly, v.writeonly))
            .collect();
        assert_eq!(
            names,
            [
                ("X", 0, true, false),
                ("Z", 2, false, true),
                ("w", 3, false, false)
            ]
        );
    }
}
