//! `cargo xtask coverage [--check]`: docs/coverage.md from the opcode table.
//!
//! Per table row (one encoding slot, per sub-target set): decoded (a canonical instance built from the sweep's
//! operand templates decodes to the row with our decoder), host semantics (the lifter accepts the instance in a
//! one-instruction kernel), SPIR-V lowering (the lifted kernel lowers with the portable profile), device-tested
//! (issue 28, D159: a test that `cargo test` ran dispatched a program containing that exact row — format and
//! opcode, in its plain form — on the device, as its executed-encoding log says (`RDNA2SPV_COVERAGE_LOG`,
//! crates/vulkan/src/coverage_log.rs), and that test's `// coverage: <test>: OPCODE ...` marker declares it
//! compares the opcode with an independent reference), the test names, and the reason for whatever is not
//! green (the lifter's or the lowering's own error text).
//!
//! No LLVM and no device is involved here: the device facts come from the logs of a prior
//! `RDNA2SPV_COVERAGE_LOG=$PWD/target/coverage-log cargo test --workspace` (CI's order, .ci/run). `--check`
//! fails if the static columns are stale or if the report credits a (row, test) that the logs do not back;
//! a row the logs back but the report does not claim yet is not a failure (regenerate to claim it).

mod calls;

use crate::sweep::formats;
use anyhow::{bail, Context, Result};
use rdna2spv_ir::lift::{lift, LiftError, LiftOptions};
use rdna2spv_isa::{decode, Encoding, Format, Opcode, PrintOptions, Target};
use rdna2spv_spirv::lower::{lower, KernelLayout};
use rdna2spv_spirv::DeviceProfile;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const OUT: &str = "docs/coverage.md";
/// Where CI's `cargo test` writes the executed-encoding logs (`RDNA2SPV_COVERAGE_LOG`).
const LOGS: &str = "target/coverage-log";

/// (test binary, test function) → the (format, op, variant) rows its device dispatches contained.
type Logs = BTreeMap<(String, String), BTreeSet<(String, u16, String)>>;

/// Reads every `*.log` under `dir` (lines `BINARY\tTEST\tFORMAT\tOP\tMNEMONIC\tVARIANT`).
fn read_logs(dir: &Path) -> Result<Logs> {
    let mut logs = Logs::new();
    let entries = std::fs::read_dir(dir).with_context(|| {
        format!(
            "no executed-encoding logs at {}: run `RDNA2SPV_COVERAGE_LOG=$PWD/{LOGS} cargo test --workspace` first \
             (CI's order in .ci/run; decision D159)",
            dir.display()
        )
    })?;
    let mut n = 0usize;
    for e in entries {
        let p = e?.path();
        if p.extension().is_none_or(|x| x != "log") {
            continue;
        }
        n += 1;
        for line in std::fs::read_to_string(&p)?.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            let [binary, test, format, op, _mnemonic, variant] = f[..] else {
                bail!("{}: malformed log line `{line}`", p.display());
            };
            let op = u16::from_str_radix(op.trim_start_matches("0x"), 16)
                .with_context(|| format!("{}: `{line}`", p.display()))?;
            // libtest names a test's thread by its path; markers name the function.
            let test = test.rsplit("::").next().unwrap_or(test);
            logs.entry((binary.to_string(), test.to_string()))
                .or_default()
                .insert((format.to_string(), op, variant.to_string()));
        }
    }
    if n == 0 {
        bail!(
            "no executed-encoding logs in {}: run `RDNA2SPV_COVERAGE_LOG=$PWD/{LOGS} cargo test --workspace` first",
            dir.display()
        );
    }
    Ok(logs)
}

/// The test binary and function a marker's `FILE::TEST` names: tests/x.rs and tests/x/main.rs build `x`.
fn marker_key(t: &str) -> (String, String) {
    let (file, test) = t.rsplit_once("::").unwrap_or(("", t));
    let p = Path::new(file);
    let stem = if p.file_name().is_some_and(|n| n == "main.rs") {
        p.parent().and_then(|d| d.file_name())
    } else {
        p.file_stem()
    };
    (
        stem.map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        test.to_string(),
    )
}

/// Why a row is not compute-relevant, or None.
fn not_compute(e: &Encoding) -> Option<&'static str> {
    let m = e.mnemonic;
    match e.format {
        Format::EXP => return Some("export (EXP): pixel/vertex shader outputs"),
        Format::VINTRP => return Some("interpolation (VINTRP): pixel shaders only"),
        _ => {}
    }
    if m == "s_endpgm_ordered_ps_done" || m == "s_endpgm_saved" {
        return Some("pixel-shader ordered end / context-save end: graphics and trap-handler only");
    }
    if m == "v_illegal" {
        return Some("v_illegal: raises an illegal-instruction trap by definition");
    }
    if m.starts_with("v_interp_") {
        return Some("parameter interpolation: pixel shaders only");
    }
    if m.starts_with("ds_gws_") || m == "ds_ordered_count" {
        return Some("global wave sync / ordered count: GDS hardware, not reachable from a Vulkan compute queue");
    }
    if e.has(rdna2spv_isa::Flag::Gds) {
        return Some("GDS access: not reachable from a Vulkan compute queue");
    }
    if m.starts_with("s_cbranch_cdbg") {
        return Some(
            "debugger-conditional branch: depends on the debugger's state, not the program's",
        );
    }
    if matches!(
        m,
        "s_sendmsghalt"
            | "s_ttracedata"
            | "s_ttracedata_imm"
            | "s_trap"
            | "s_rfe_b64"
            | "s_cbranch_g_fork"
    ) || m.starts_with("s_cbranch_join")
    {
        return Some(
            "trap handler / thread trace / debugger support: not part of a kernel's own semantics",
        );
    }
    None
}

/// Test names per opcode name, from `// coverage: <test>: OPCODE ...` lines.
fn markers(root: &Path) -> Result<BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    collect(&root.join("tests"), &mut files)?;
    for c in std::fs::read_dir(root.join("crates"))? {
        let t = c?.path().join("tests");
        if t.is_dir() {
            collect(&t, &mut files)?;
        }
    }
    files.sort();
    let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f)?;
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix("// coverage:") else {
                continue;
            };
            let Some((test, ops)) = rest.split_once(':') else {
                bail!("{}: malformed coverage line `{line}`", f.display());
            };
            let file = f.strip_prefix(root).unwrap_or(&f).display().to_string();
            for op in ops.split_whitespace() {
                m.entry(op.to_string())
                    .or_default()
                    .insert(format!("{file}::{}", test.trim()));
            }
        }
    }
    Ok(m)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    Ok(())
}

/// A canonical instance of the row on `target`: the first operand template — the sweep's, then the extra
/// ones of [`extra_templates`] — that our decoder decodes to this row and that a compute kernel can legally
/// contain ([`legal_operands`]).
fn instance(e: &'static Encoding, target: Target) -> Option<Vec<u32>> {
    let name = fmt_name(e.format);
    let (_, _, templates) = formats().into_iter().find(|f| f.0 == name.as_str())?;
    // VOP3 rows hold promoted VOP1/VOP2/VOPC forms at their VOP3 numbers: the VOP3 templates cover them.
    let all = templates(e.op as u32)
        .into_iter()
        .chain(extra_templates(e.format, e.op as u32));
    for words in all {
        let mut w = words.clone();
        w.extend([0, 0]);
        if let Ok(ins) = decode(&w, target) {
            if std::ptr::eq(ins.encoding, e) && legal_operands(e.opcode, &w) {
                return Some(w[..ins.len()].to_vec());
            }
        }
    }
    None
}

/// Templates beyond the sweep's: SOPK with the hwreg operand naming MODE (hwreg(HW_REG_MODE), id 1, all
/// 32 bits), since none of the sweep's SOPK immediates (0x10, 0) names a register a kernel may access.
fn extra_templates(f: Format, op: u32) -> Vec<Vec<u32>> {
    match f {
        Format::SOPK => vec![vec![0xb000_0000 | (op << 23) | (4 << 16) | 0xf801]],
        _ => Vec::new(),
    }
}

/// Whether the instance's operands are ones a compute kernel can contain (checked with `llvm-mc-19
/// -arch=amdgcn -mcpu=gfx1030`, decision D095): the lane-mask operand of v_cndmask_b32_e64 and
/// v_add/sub/subrev_co_ci_u32_e64, the lane select of v_readlane/v_writelane_b32 and the data source of
/// v_writelane_b32 are scalar operands and v_readlane_b32 reads a VGPR (the assembler rejects anything else:
/// "invalid operand for instruction", though the decoder decodes the bits); the hwreg of s_getreg/s_setreg/s_setreg_imm32 is not id 0 (no register) nor 16–19
/// (HW_REG_TBA_LO/HI, HW_REG_TMA_LO/HI: the trap handler's base and memory addresses, which only a trap
/// handler accesses).
fn legal_operands(op: Opcode, w: &[u32]) -> bool {
    use Opcode::*;
    let vop3_src = |i: u32| w.get(1).map_or(0, |w1| (w1 >> (9 * i)) & 0x1ff);
    match op {
        V_CNDMASK_B32 | V_ADD_CO_CI_U32 | V_SUB_CO_CI_U32 | V_SUBREV_CO_CI_U32
            if w[0] >> 26 == 0x35 =>
        {
            vop3_src(2) < 256
        }
        // v_readlane_b32 reads a VGPR (src0) at a scalar lane; v_writelane_b32 writes a scalar (src0).
        V_READLANE_B32 => vop3_src(0) >= 256 && vop3_src(1) < 256,
        V_WRITELANE_B32 => vop3_src(0) < 256 && vop3_src(1) < 256,
        S_GETREG_B32 | S_SETREG_B32 | S_SETREG_IMM32_B32 => {
            let id = w[0] & 0x3f;
            id != 0 && !(16..=19).contains(&id)
        }
        _ => true,
    }
}

struct Row {
    e: &'static Encoding,
    relevant: Option<&'static str>,
    decoded: bool,
    host: Result<(), String>,
    spirv: Result<(), String>,
    tests: Vec<String>,
}

fn short(s: &str) -> String {
    let s = s.replace('|', "\\|").replace('\n', " ");
    if s.chars().count() > 140 {
        let t: String = s.chars().take(137).collect();
        format!("{t}...")
    } else {
        s
    }
}

fn check_row(e: &'static Encoding) -> (bool, Result<(), String>, Result<(), String>) {
    let target = [Target::Gfx1030, Target::Gfx1010, Target::Gfx1013]
        .into_iter()
        .find(|t| e.targets.contains(*t))
        .unwrap_or(Target::Gfx1030);
    let Some(mut words) = instance(e, target) else {
        return (false, Err("no canonical instance".into()), Err("-".into()));
    };
    // An MTBUF instance whose format the instruction does not model (e.g. a store to 8_UNORM) takes the
    // first format it does model (D097): the format is part of the instruction.
    let typed = rdna2spv_ir::lift::typed_form(e.opcode);
    if let (Format::MTBUF, Some(t)) = (e.format, typed) {
        let fmt = (words[0] >> 19) & 0x7f;
        if rdna2spv_ir::lift::format_refusal(fmt, t).is_some() {
            if let Some(m) = (1..128).find(|&m| rdna2spv_ir::lift::format_refusal(m, t).is_none()) {
                words[0] = (words[0] & !(0x7f << 19)) | m << 19;
            }
        }
    }
    // An MIMG instance takes operands the instruction is defined with (D190): a 32-bit cmpswap has dmask
    // 0x3 (the new value and the compare value), a gather a 2-D footprint (dim 2D, not the template's 1D).
    if e.format == Format::MIMG {
        if e.mnemonic.ends_with("cmpswap") {
            words[0] = (words[0] & !(0xf << 8)) | 0x3 << 8;
        }
        if e.mnemonic.starts_with("image_gather4") {
            words[0] = (words[0] & !(0x7 << 3)) | 1 << 3;
        }
    }
    let ins = decode(&words, target).expect("decoded above");
    // The instruction, then s_endpgm padding (branch templates jump forward into it).
    let mut code: Vec<u32> = words.clone();
    code.extend([0xbf81_0000; 40]);
    let bytes: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
    // MUBUF/MTBUF: the template's resource quad is taken as the private segment buffer (scratch, D010), the
    // only buffer resource a kernel's ABI defines.
    // Typed accesses (D097) go through a general V# instead: kernels do not make them through scratch.
    let psb = (matches!(e.format, Format::MUBUF | Format::MTBUF) && typed.is_none())
        .then(|| ((ins.word(1) >> 16) & 0x1f) as u16 * 4);
    let opts = LiftOptions {
        target,
        wave_size: 32,
        private_segment_buffer: psb,
    };
    // Calls need a call around them: coverage/calls.rs.
    let lifted = calls::lift_in_context(ins.opcode(), &words, opts)
        .unwrap_or_else(|| lift("coverage", &bytes, opts));
    let p = match lifted {
        Ok(p) => p,
        Err(LiftError::Unsupported { reason, .. }) => {
            return (true, Err(reason), Err("not lifted".into()))
        }
        Err(e) => return (true, Err(e.to_string()), Err("not lifted".into())),
    };
    let layout = KernelLayout {
        wave_size: 32,
        workgroup: [32, 1, 1],
        sgprs: Vec::new(),
        workitem_id_vgprs: 1,
        lds_bytes: 65536,
        scratch_bytes: 1024,
        code_base: None,
    };
    let spirv = lower(&p, &layout, &DeviceProfile::portable())
        .map(|_| ())
        .map_err(|e| e.to_string());
    let _ = ins.text(PrintOptions { wave64: false });
    (true, Ok(()), spirv)
}

/// (format, op, targets) → tests.
type Claims = BTreeMap<(String, String, String), BTreeSet<String>>;

/// The (row, test) pairs a report credits, from its compute-relevant table.
fn claims(text: &str) -> Claims {
    let mut c = BTreeMap::new();
    let Some(start) = text.find("\n## Compute-relevant rows") else {
        return c;
    };
    let end = text.find("\n## Not compute-relevant").unwrap_or(text.len());
    for line in text[start..end].lines() {
        let cells: Vec<&str> = line.split(" | ").collect();
        if cells.len() < 9 || !cells[1].starts_with("0x") || cells[7] != "yes" {
            continue;
        }
        let tests = cells[8]
            .split(", ")
            .map(|t| t.trim_matches('`').to_string())
            .filter(|t| !t.is_empty())
            .collect();
        c.insert(
            (
                cells[0].trim_start_matches("| ").to_string(),
                cells[1].to_string(),
                cells[2].to_string(),
            ),
            tests,
        );
    }
    c
}

/// The report. A row is device-tested by the marker tests of its opcode that logged its exact row in the
/// plain form; with `only`, by those of them that `only` credits too (`--check`: the committed report's
/// claims, so a claim the logs do not back shows as a difference).
pub fn report(root: &Path, logs: Option<&Logs>, only: Option<&Claims>) -> Result<String> {
    let marks = markers(root)?;
    let known: BTreeSet<String> = rdna2spv_isa::generated::ENCODINGS
        .iter()
        .map(|e| opname(e.opcode))
        .collect();
    for (op, tests) in &marks {
        if !known.contains(op) {
            bail!("coverage marker names `{op}`, which is not an opcode (in {tests:?})");
        }
    }
    let mut rows = Vec::new();
    for e in rdna2spv_isa::generated::ENCODINGS.iter() {
        let (decoded, host, spirv) = check_row(e);
        rows.push(Row {
            e,
            relevant: not_compute(e),
            decoded,
            host,
            spirv,
            tests: marks
                .get(&opname(e.opcode))
                .map(|s| {
                    s.iter()
                        .filter(|t| {
                            logs.is_none_or(|logs| {
                                logs.get(&marker_key(t)).is_some_and(|rows| {
                                    rows.contains(&(fmt_name(e.format), e.op, "Plain".to_string()))
                                })
                            })
                        })
                        .filter(|t| {
                            only.is_none_or(|c| {
                                c.get(&(fmt_name(e.format), format!("0x{:03x}", e.op), targets(e)))
                                    .is_some_and(|ts| ts.contains(*t))
                            })
                        })
                        .cloned()
                        .collect()
                })
                .unwrap_or_default(),
        });
    }
    let rel: Vec<&Row> = rows.iter().filter(|r| r.relevant.is_none()).collect();
    fn green(r: &Row) -> bool {
        r.decoded && r.host.is_ok() && r.spirv.is_ok()
    }
    let n = rel.len();
    let ng = rel.iter().filter(|r| green(r)).count();
    let nh = rel.iter().filter(|r| r.host.is_ok()).count();
    let nd = rel.iter().filter(|r| r.decoded).count();
    let nt = rel
        .iter()
        .filter(|r| green(r) && !r.tests.is_empty())
        .count();
    let pct = |k: usize| 100.0 * k as f64 / n.max(1) as f64;
    let mut s = String::new();
    writeln!(s, "# Instruction coverage\n")?;
    writeln!(
        s,
        "Generated by `cargo xtask coverage` from `crates/isa/opcodes.txt` and the executed-encoding logs of\n\
         `RDNA2SPV_COVERAGE_LOG=$PWD/target/coverage-log cargo test --workspace`; CI runs `cargo xtask coverage --check`\n\
         after its tests (.ci/run). Do not edit by hand.\n\n\
         Until decision D159 the device-tested column was built from `// coverage:` comment markers alone and\n\
         claimed 1,356 of the 1,443 compute-relevant rows (94.0%), including rows credited only to `#[ignore]`d\n\
         tests and `_e64` rows credited through their `_e32` sibling. It now counts only what the tests' logs show\n\
         (the summary below): 958 rows (66.4%) by that rule with the tests of D159, before the table-driven tests\n\
         of D172 (e64/e32 forms, memory forms, DS src2 and two-address forms, the long opcheck lists in every\n\
         `cargo test`).\n"
    )?;
    writeln!(s, "## How each column is decided\n")?;
    writeln!(
        s,
        "- **decoded**: a canonical instance of the row (the first operand template of `cargo xtask sweep`, or\n  \
         of the coverage tool's one addition — a SOPK immediate naming hwreg(HW_REG_MODE) — that our decoder\n  \
         decodes to this row, on the row's first sub-target in the order gfx1030, gfx1010, gfx1013, and whose\n  \
         operands a compute kernel can contain: scalar lane-mask operands of v_cndmask_b32_e64 and\n  \
         v_add/sub/subrev_co_ci_u32_e64, a VGPR source and a scalar lane select for v_readlane_b32, scalar\n  \
         operands for v_writelane_b32 (what `llvm-mc-19` accepts), and a hwreg other than 0 and the\n  \
         trap-handler registers 16–19 for s_getreg/s_setreg; D095) decodes.\n\
         - **host**: the lifter accepts that instance in a one-instruction kernel (wave32) — an MIMG instance\n  \
         with the operands its instruction is defined with: dmask 0x3 for the 32-bit cmpswap atomics, dim 2D\n  \
         for gathers (D190); MTBUF with a format the instruction models (D097) —; the host evaluator\n  \
         interprets every lifted IR node.\n\
         - **SPIR-V**: the lifted kernel lowers with the portable device profile (every workaround on).\n\
         - **device-tested** (issue 28, D159): a test that `cargo test` runs (no `#[ignore]`d one) dispatched a\n  \
         program containing this exact row — its format and opcode (e32 and e64 are different rows), in the\n  \
         plain form (not only as DPP or SDWA) — on lavapipe, and finished, as the executed-encoding log that\n  \
         test wrote says (`RDNA2SPV_COVERAGE_LOG=DIR`: every instruction of the lifted program, i.e. reachable\n  \
         from the kernel's entry, of every dispatch; crates/vulkan/src/coverage_log.rs); and the same test\n  \
         declares that it compares the opcode host vs lavapipe bit for bit and against an independent\n  \
         reference, on a `// coverage: <test>: OPCODE ...` line in its source (tests/, crates/*/tests/). The\n  \
         test column lists exactly those tests. The logs come from CI's `cargo test --workspace` run before\n  \
         `cargo xtask coverage --check` (.ci/run).\n\
         - **reason**: the lifter's or the lowering's own message for a row that is not green.\n"
    )?;
    writeln!(s, "## Compute-relevant rule\n")?;
    writeln!(
        s,
        "A row is compute-relevant unless it is: an export (EXP) or interpolation (VINTRP, `v_interp_*`)\n\
         instruction (graphics only); a GDS/GWS/ordered-count DS instruction (not reachable from a\n\
         Vulkan compute queue); a debugger-conditional branch (`s_cbranch_cdbg*`); or trap-handler, thread-trace\n\
         and fork/join support, `v_illegal`, `s_endpgm_ordered_ps_done`, `s_endpgm_saved` (`s_trap`, `s_rfe_b64`, `s_sendmsghalt`, `s_ttracedata*`, `s_cbranch_g_fork`,\n\
         `s_cbranch_join`). Excluded rows are listed at the end with their reason. Image instructions (MIMG)\n\
         count since D183: compute shaders use storage images, sampled images and ray queries.\n"
    )?;
    writeln!(s, "## Summary\n")?;
    writeln!(s, "| | rows | % of compute-relevant |")?;
    writeln!(s, "|---|---:|---:|")?;
    writeln!(s, "| table rows | {} | |", rows.len())?;
    writeln!(s, "| compute-relevant | {n} | 100.0 |")?;
    writeln!(s, "| decoded | {nd} | {:.1} |", pct(nd))?;
    writeln!(s, "| host semantics | {nh} | {:.1} |", pct(nh))?;
    writeln!(
        s,
        "| **green on both backends** (host + SPIR-V) | **{ng}** | **{:.1}** |",
        pct(ng)
    )?;
    writeln!(s, "| green and device-tested | {nt} | {:.1} |\n", pct(nt))?;
    writeln!(s, "Per format (compute-relevant rows): green / rows.\n")?;
    writeln!(s, "| format | rows | green | device-tested |")?;
    writeln!(s, "|---|---:|---:|---:|")?;
    for f in Format::ALL {
        let fr: Vec<&&Row> = rel.iter().filter(|r| r.e.format == f).collect();
        if fr.is_empty() {
            continue;
        }
        let g = fr.iter().filter(|r| green(r)).count();
        let t = fr
            .iter()
            .filter(|r| green(r) && !r.tests.is_empty())
            .count();
        writeln!(s, "| {} | {} | {g} | {t} |", fmt_name(f), fr.len())?;
    }
    writeln!(s, "\n## Compute-relevant rows\n")?;
    writeln!(
        s,
        "| format | op | targets | mnemonic | decoded | host | SPIR-V | device-tested | test | reason |"
    )?;
    writeln!(s, "|---|---|---|---|---|---|---|---|---|---|")?;
    let yn = |b: bool| if b { "yes" } else { "**no**" };
    for r in &rel {
        let reason = match (&r.host, &r.spirv) {
            (Err(h), _) => short(h),
            (Ok(()), Err(l)) => format!("lowering: {}", short(l)),
            _ => String::new(),
        };
        let tests = r
            .tests
            .iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", ");
        writeln!(
            s,
            "| {} | 0x{:03x} | {} | {} | {} | {} | {} | {} | {} | {} |",
            fmt_name(r.e.format),
            r.e.op,
            targets(r.e),
            r.e.mnemonic,
            yn(r.decoded),
            yn(r.host.is_ok()),
            yn(r.spirv.is_ok()),
            if r.tests.is_empty() { "no" } else { "yes" },
            tests,
            reason
        )?;
    }
    writeln!(s, "\n## Not compute-relevant\n")?;
    writeln!(s, "| format | op | targets | mnemonic | reason |")?;
    writeln!(s, "|---|---|---|---|---|")?;
    for r in rows.iter().filter(|r| r.relevant.is_some()) {
        writeln!(
            s,
            "| {} | 0x{:03x} | {} | {} | {} |",
            fmt_name(r.e.format),
            r.e.op,
            targets(r.e),
            r.e.mnemonic,
            r.relevant.unwrap()
        )?;
    }
    Ok(s)
}

fn opname(o: Opcode) -> String {
    format!("{o:?}")
}

fn targets(e: &Encoding) -> String {
    let all: Vec<&str> = Target::ALL
        .iter()
        .filter(|t| e.targets.contains(**t))
        .map(|t| t.name())
        .collect();
    if all.len() == 3 {
        "gfx10".into()
    } else {
        all.join(",")
    }
}

pub fn run(args: &[String]) -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("the workspace root")?
        .to_path_buf();
    let logs_dir = match args.iter().position(|a| a == "--logs") {
        Some(i) => PathBuf::from(args.get(i + 1).context("--logs DIR")?),
        None => root.join(LOGS),
    };
    let path = root.join(OUT);
    if args.iter().any(|a| a == "--static-only") {
        // Without the logs of a test run: the decoded/host/SPIR-V columns and the markers behind the
        // committed claims are checked; the claims' device evidence is not (CI runs the full --check).
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let text = report(&root, None, Some(&claims(&old)))?;
        if old != text {
            bail!("{OUT} is stale (static columns or markers): run the tests with the logs, then `cargo xtask coverage`");
        }
        println!(
            "{OUT}: static columns up to date (device-tested claims not checked: no logs read)"
        );
        return Ok(());
    }
    let logs = read_logs(&logs_dir)?;
    if args.iter().any(|a| a == "--partial") {
        // Logs of part of the suite: keep the committed claims (and those of `--also DOC`), drop the
        // tests named by `--drop TEST`, add what these logs back. CI's `--check` then verifies every claim
        // against the logs of the whole suite.
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let mut union = claims(&old);
        if let Some(i) = args.iter().position(|a| a == "--also") {
            let other = std::fs::read_to_string(args.get(i + 1).context("--also DOC")?)?;
            for (k, v) in claims(&other) {
                union.entry(k).or_default().extend(v);
            }
        }
        if let Some(i) = args.iter().position(|a| a == "--drop") {
            let t = args.get(i + 1).context("--drop TEST")?;
            for v in union.values_mut() {
                v.retain(|x| !x.ends_with(t.as_str()));
            }
            union.retain(|_, v| !v.is_empty());
        }
        for (k, v) in claims(&report(&root, Some(&logs), None)?) {
            union.entry(k).or_default().extend(v);
        }
        let text = report(&root, None, Some(&union))?;
        std::fs::write(&path, &text)?;
        println!("wrote {OUT} from the committed claims and partial logs");
        return Ok(());
    }
    if args.iter().any(|a| a == "--check") {
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let claimed = claims(&old);
        let text = report(&root, Some(&logs), Some(&claimed))?;
        if old != text {
            bail!(
                "{OUT} is stale, or credits a row to a test whose executed-encoding log does not show it \
                 (logs: {}): run `cargo xtask coverage` after the tests and commit it",
                logs_dir.display()
            );
        }
        let full = report(&root, Some(&logs), None)?;
        if full != old {
            println!("note: the logs back more rows than {OUT} claims; `cargo xtask coverage` would add them");
        }
        println!("{OUT} is up to date");
        return Ok(());
    }
    let text = report(&root, Some(&logs), None)?;
    std::fs::write(&path, &text)?;
    let summary: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| **green") || l.starts_with("| compute-relevant"))
        .collect();
    println!("wrote {OUT}\n{}", summary.join("\n"));
    Ok(())
}

fn fmt_name(f: Format) -> String {
    format!("{f:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_keys_name_the_test_binary_and_function() {
        assert_eq!(
            marker_key("tests/atomics.rs::atomics_lds_32"),
            ("atomics".into(), "atomics_lds_32".into())
        );
        assert_eq!(
            marker_key("tests/opcheck_all/main.rs::vop3"),
            ("opcheck_all".into(), "vop3".into())
        );
    }

    /// The rule of D159 on a hand-written log: the plain e32 row logged by a marker's test is credited;
    /// the e64 row of the same opcode name is not (only its e32 sibling ran); a row logged by a test
    /// without a marker, and a marker whose test logged nothing, credit nothing.
    #[test]
    fn logs_and_claims_follow_the_rule() {
        let dir = std::env::temp_dir().join(format!("rdna2spv-covlog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("1.log"),
            "ops_a\tops_a_test\tVOP1\t0x001\tv_mov_b32_e32\tPlain\n\
             ops_a\tmod::ops_a_test\tVOP1\t0x001\tv_mov_b32_e32\tDpp16\n\
             other\tunmarked\tVOP3\t0x181\tv_mov_b32_e64\tPlain\n",
        )
        .unwrap();
        let logs = read_logs(&dir).unwrap();
        let rows = &logs[&("ops_a".to_string(), "ops_a_test".to_string())];
        assert!(rows.contains(&("VOP1".into(), 1, "Plain".into())));
        assert!(rows.contains(&("VOP1".into(), 1, "Dpp16".into())));
        assert!(!rows.iter().any(|r| r.0 == "VOP3"));
        std::fs::write(dir.join("2.log"), "a\tb\tc\n").unwrap();
        assert!(read_logs(&dir).is_err(), "a malformed line is an error");
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(read_logs(&dir).is_err(), "no logs is an error");

        let c = claims(
            "x\n## Compute-relevant rows\n\n| VOP1 | 0x001 | gfx10 | v_mov_b32_e32 | yes | yes | yes | yes | `tests/a.rs::t`, `tests/b.rs::u` |  |\n\
             | VOP3 | 0x181 | gfx10 | v_mov_b32_e64 | yes | yes | yes | no |  |  |\n## Not compute-relevant\n",
        );
        assert_eq!(c.len(), 1);
        assert_eq!(
            c[&("VOP1".to_string(), "0x001".to_string(), "gfx10".to_string())],
            ["tests/a.rs::t".to_string(), "tests/b.rs::u".to_string()].into()
        );
    }
}
