//! The body of converged multi-wave lane modules (decision D144): a top chain's `on` is the wave's
//! running flag, and consecutive guarded effects under the same guard share one selection construct
//! (`crates/spirv/src/lower/lane/fuse.rs`).
//!
//! Every run is `run --backend both --mapping lane` (host evaluator vs lavapipe, bit for bit), and the
//! outputs are also compared with values derived here from the ISA and the dispatch rules. The module
//! checks count `OpSelectionMerge` between the static barriers.
//!
//! Needs a Vulkan 1.3 device (lavapipe).

#[path = "support/lane.rs"]
mod lane;
use lane::{lane_module, run_lane_both};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tmp(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rdna2spv-lane-body-{tag}-{}", std::process::id()))
}

/// `OpSelectionMerge` constructs of the module's function, split at its `OpControlBarrier`s: one count
/// per stretch of code between two barriers (the first before the first barrier, the last after the
/// last one).
fn selections_between_barriers(module: &[u32]) -> Vec<usize> {
    let m = rspirv::dr::load_words(module).unwrap();
    let mut out = vec![0];
    for i in m.functions[0].blocks.iter().flat_map(|b| &b.instructions) {
        match i.class.opcode {
            rspirv::spirv::Op::ControlBarrier => out.push(0),
            rspirv::spirv::Op::SelectionMerge => *out.last_mut().unwrap() += 1,
            _ => {}
        }
    }
    out
}

/// fixtures/lane/guard_runs.s from the ISA: every lane of every launched wave (a lane beyond the
/// partial wave's work-items has v0 = 0) adds v1 and v2 to its workgroup's counters, where after
/// `v_cmpx_gt_u32 16, v0` the lanes with v0 < 16 wrote v1 = 2 and v2 = 2 + 7, the others keep 1 and 7.
/// Empty waves (no work-item) are not launched on the hardware: they add nothing.
fn guard_runs(grid: u32, wg: u32, ws: u32) -> Vec<u32> {
    let mut out = vec![0u32; 8];
    for g in 0..grid.div_ceil(wg) {
        let items = (grid - g * wg).min(wg);
        for tid in 0..items.div_ceil(ws) * ws {
            let v0 = if tid < items { tid } else { 0 };
            let (v1, v2) = if v0 < 16 { (2, 9) } else { (1, 7) };
            out[2 * g as usize] += v1;
            out[2 * g as usize + 1] += v2;
        }
    }
    out
}

/// Two runs of guarded effects around a `v_cmpx` in a converged one-pass module: each run is one
/// selection, the EXEC write ends the first (fusing across it gives every lane v1 = 2), and the empty
/// waves of the last workgroup, whose chain sets all of EXEC, add nothing (their `on` is false).
#[test]
fn guard_runs_stop_at_an_exec_write() {
    let dir = tmp("guard");
    for (name, wg, ws) in [
        ("guard_runs_w32.toml", 96, 32),
        ("guard_runs_w64.toml", 192, 64),
    ] {
        let m = root().join("fixtures/lane").join(name);
        let want = guard_runs(200, wg, ws);
        assert_eq!(run_lane_both(&m, &dir, name), want, "{name}");
        // The counters' initial barrier and the s_barrier met in place (D143); after it D144 made one
        // selection per run: v1 and v2 before the v_cmpx, v1 and v2 after it, v3 with the two atomics,
        // and the flag store. Since D162 the two runs of VGPR writes are straight code (each write a
        // select of the new and the old value under the run's guard): the atomics' and the flag
        // store's selections remain. The run above checks that the EXEC write still ends a run.
        let sel = selections_between_barriers(&lane_module(&m));
        assert_eq!(sel.len(), 3, "{name}: two static barriers");
        assert_eq!(
            sel[2], 2,
            "{name}: one selection per run of guarded memory effects ({sel:?})"
        );
    }
    // The model itself, by hand: wave32, full workgroups 16 x 2 + 80 x 1 and 16 x 9 + 80 x 7; the last
    // (8 work-items, one launched wave of 32 lanes, all with v0 < 16) 32 x 2 and 32 x 9.
    assert_eq!(guard_runs(200, 96, 32), [112, 704, 112, 704, 64, 288, 0, 0]);
}

/// reduce and reduce_w64: each LDS tree step between two barriers (`ds_read2`, `v_add`, `ds_write`:
/// two lane loads, three VGPR writes and a store, six selections before D144) is one selection.
#[test]
fn reduce_tree_steps_are_one_selection_each() {
    for name in ["reduce.toml", "reduce_w64.toml"] {
        let m = root().join("fixtures/run").join(name);
        // On a device that keeps f32 subnormals: the portable profile's f32 add emulation (D168) adds one
        // selection to each step (measured: [1, 4, 2, 2, 2, 2, 2, 2, 4, 4]).
        let mut prof = rdna2spv_spirv::profile::DeviceProfile::portable();
        prof.preserves_subnormals_f32 = true;
        let module =
            rdna2spv::dispatch::Plan::new(&rdna2spv::manifest::Manifest::load(&m).unwrap())
                .unwrap()
                .module(&prof, rdna2spv_spirv::lower::Mapping::Lane)
                .unwrap();
        let sel = selections_between_barriers(&module);
        // The counters' barrier, the first s_barrier, six tree steps each ended by an s_barrier, the
        // last step's barrier and the final chain.
        assert_eq!(sel.len(), 10, "{name}: nine static barriers");
        assert_eq!(
            sel[2..8],
            [1; 6],
            "{name}: one selection per tree step ({sel:?})"
        );
    }
}

/// fixtures/lane/wide_access.s from the ISA, for the 256 work-items of the manifest below: out[4g + k] =
/// x[4g + k] + k + 1, out[1024 + 2g] = 16g, out[1024 + 2g + 1] = the high half of x[4g + 1].
fn wide_access(x: &[u32]) -> Vec<u32> {
    let mut out = vec![0u32; 1536];
    for g in 0..256 {
        for k in 0..4 {
            out[4 * g + k] = x[4 * g + k].wrapping_add(k as u32 + 1);
        }
        out[1024 + 2 * g] = 16 * g as u32;
        out[1024 + 2 * g + 1] = x[4 * g + 1] >> 16;
    }
    out
}

/// A manifest running `code` (fixtures/lane) over 256 work-items in workgroups of 64 (wave32) on `x` (its
/// 1,024 words and 16 spare bytes), the work-item `skewed` reading 2 bytes further on.
fn wide_manifest(dir: &std::path::Path, code: &str, x: &[u32], skewed: u32) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let xb: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("x.bin"), xb).unwrap();
    std::fs::write(dir.join("out.bin"), vec![0u8; 6144]).unwrap();
    let m = dir.join(format!("{code}-{skewed}.toml"));
    std::fs::write(
        &m,
        format!(
            "code = {:?}\ngrid = [256, 1, 1]\nworkgroup = [64, 1, 1]\n\n[abi]\nwave_size = 32\nsgpr = [\n    \
             {{ reg = 0, address = \"x\" }},\n    {{ reg = 2, address = \"out\" }},\n    \
             {{ reg = 6, u32 = {skewed} }},\n    {{ reg = 7, workgroup_id = 0 }},\n]\n\n\
             [[buffers]]\nname = \"x\"\nfile = \"x.bin\"\n\n[[buffers]]\nname = \"out\"\nfile = \"out.bin\"\noutput = true\n",
            root().join("fixtures/lane").join(code).display().to_string()
        ),
    )
    .unwrap();
    m
}

/// How many instructions of the module's main function have opcode `op` and, when `last` is given, that
/// id as their last operand (a constant: `OpBitwiseAnd %uint %a %uint_3` is the byte position of `a`).
fn count_in_main(module: &[u32], op: rspirv::spirv::Op, last: Option<u64>) -> usize {
    let m = rspirv::dr::load_words(module).unwrap();
    let consts: std::collections::HashMap<u32, u64> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == rspirv::spirv::Op::Constant)
        .filter_map(|i| match i.operands.first() {
            Some(rspirv::dr::Operand::LiteralBit32(v)) => Some((i.result_id?, *v as u64)),
            Some(rspirv::dr::Operand::LiteralBit64(v)) => Some((i.result_id?, *v)),
            _ => None,
        })
        .collect();
    m.functions[0]
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == op)
        .filter(|i| {
            last.is_none_or(|c| match i.operands.last() {
                Some(rspirv::dr::Operand::IdRef(x)) => consts.get(x) == Some(&c),
                _ => false,
            })
        })
        .count()
}

/// Wide global accesses (D219): the dwords of one `global_load_dwordx4` / `global_store_dwordx4` share
/// their byte-position test (an offset that is a multiple of 4 moves neither the position nor the bits
/// the dword mask clears), a dword load at a nonzero position is flagged, not shifted, and the four
/// dword stores under guards recomputed from the same EXEC value are one selection. Bit-exact against the
/// host and the Rust model in a split module (one wave per Vulkan workgroup) and with both waves together
/// (`s_barrier` first); a misaligned work-item still stops the device run with the misaligned flag; the
/// 16-bit load at byte offset 6 keeps its own position and shift.
#[test]
fn wide_accesses_test_the_position_once_and_share_one_selection() {
    let dir = tmp("wide");
    let mut next = lane::xorshift(0x0005_eed2);
    let x: Vec<u32> = (0..1028).map(|_| next()).collect();
    let want = wide_access(&x);
    for code in ["wide_access.bin", "wide_access_wg.bin"] {
        let m = wide_manifest(&dir, code, &x, u32::MAX);
        assert_eq!(run_lane_both(&m, &dir.join("out"), code), want, "{code}");
        let module = lane_module(&m);
        // One byte position (`a & 3`) per base address that needs it as a number: the ushort load's
        // shift; the dword accesses OR their position word into the misaligned flag as it is, and the flag
        // is tested once, `(flag & 3) != 0` (D242; before, one position per base address: the dwordx4
        // load, the ushort load, the dwordx4 store and the dwordx2 store, 4; one per dword before D219:
        // 4 + 1 + 4 + 2 = 11).
        let positions = count_in_main(&module, rspirv::spirv::Op::BitwiseAnd, Some(3));
        assert_eq!(positions, 2, "{code}: byte positions");
        // One selection per store instruction (4 + 2 dword stores were 6 selections before D219: 9 in
        // all), the loads' and the flag store's as before: 5; then D223 joins the selections that
        // follow one another under the same EXEC condition: 3; and D268 the loads' with the stores':
        // the four adds between them read the loaded words and only the stores read theirs, so they
        // move into the one selection: 2 (the flag store's is the other).
        let selections = count_in_main(&module, rspirv::spirv::Op::SelectionMerge, None);
        assert_eq!(selections, 2, "{code}: selections");
        // Work-item 173 (workgroup 2, wave 1, lane 13) loads its four dwords from 2 bytes further on.
        let m = wide_manifest(&dir, code, &x, 173);
        let (exit, stderr) = lane::run_lane_vulkan(&m, &dir.join("out"));
        assert_eq!(exit, Some(2), "{code}: {stderr}");
        assert!(
            stderr.contains("crossed a dword boundary"),
            "{code}: {stderr}"
        );
        assert!(
            stderr.contains("(first: workgroup 2, wave 1,"),
            "{code}: names workgroup 2, wave 1: {stderr}"
        );
    }
    // The model itself, by hand: work-item 3 adds 1..4 to x[12..16]; its z pair is (48, x[13] >> 16).
    assert_eq!(want[12], x[12].wrapping_add(1));
    assert_eq!(want[15], x[15].wrapping_add(4));
    assert_eq!(want[1030..1032], [48, x[13] >> 16]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The global loads of `module`'s main function that read a 64-bit word through a
/// PhysicalStorageBuffer pointer.
fn psb_u64_loads(module: &[u32]) -> usize {
    use rspirv::spirv::{Op, StorageClass};
    let m = rspirv::dr::load_words(module).unwrap();
    let id = |o: &rspirv::dr::Operand| match o {
        rspirv::dr::Operand::IdRef(x) => Some(*x),
        _ => None,
    };
    let u64_ = m.types_global_values.iter().find_map(|i| {
        (i.class.opcode == Op::TypeInt && i.operands[0] == rspirv::dr::Operand::LiteralBit32(64))
            .then_some(i.result_id?)
    });
    let psb64: std::collections::HashSet<u32> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::TypePointer
                && i.operands[0]
                    == rspirv::dr::Operand::StorageClass(StorageClass::PhysicalStorageBuffer)
                && id(&i.operands[1]) == u64_
        })
        .filter_map(|i| i.result_id)
        .collect();
    let insts: Vec<&rspirv::dr::Instruction> = m.functions[0]
        .blocks
        .iter()
        .flat_map(|b| &b.instructions)
        .collect();
    let ptrs: std::collections::HashSet<u32> = insts
        .iter()
        .filter(|i| {
            i.class.opcode == Op::ConvertUToPtr && i.result_type.is_some_and(|t| psb64.contains(&t))
        })
        .filter_map(|i| i.result_id)
        .collect();
    insts
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Load && id(&i.operands[0]).is_some_and(|p| ptrs.contains(&p))
        })
        .count()
}

/// `rdna2spv run manifest --backend BACKEND --mapping lane`: the exit code and the line that reports an
/// access outside every allocation, without its address (host and device place buffers apart).
fn fault_line(
    manifest: &std::path::Path,
    out_dir: &std::path::Path,
    backend: &str,
) -> (Option<i32>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("run")
        .arg(manifest)
        .args(["--backend", backend, "--mapping", "lane", "--out"])
        .arg(out_dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let line = err
        .lines()
        .find(|l| l.contains("outside every allocation"))
        .unwrap_or_else(|| panic!("{backend}: no fault report in {err}"));
    let line = &line[line.find("workgroup [").expect("names the workgroup")..];
    let at = line.find(" at 0x").expect("an address");
    let rest = &line[at + 6..];
    let end = rest
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(rest.len());
    (
        out.status.code(),
        format!("{}{}", &line[..at], &rest[end..]),
    )
}

/// D245: in checked mode without fault records (the module `run` compiles first), the lane mapping reads
/// the two dwords of each pair of one wide global load (`+0, +4`, `+8, +12`) as one 64-bit load under both
/// dwords' bounds tests; the module with records keeps the dword loads. wide_access's `global_load_dwordx4`
/// is two such loads there, none with records, and the kernel runs bit for bit as on the host (with `x`
/// whole). With `x` one word short, work-item 255's last dword lies outside the buffer while the dword
/// before it (the same pair) lies inside: the run without records raises the fault flag, and the device
/// names the same access as the host (workgroup, wave, pc, lane, kind and size) — the module with
/// records reads the dwords one by one.
#[test]
fn paired_dword_loads_read_one_64_bit_word_and_fault_as_the_host_does() {
    let dir = tmp("pairs");
    let mut next = lane::xorshift(0x0d24_5245);
    let x: Vec<u32> = (0..1028).map(|_| next()).collect();
    let m = wide_manifest(&dir, "wide_access.bin", &x, u32::MAX);
    let mut plan =
        rdna2spv::dispatch::Plan::new(&rdna2spv::manifest::Manifest::load(&m).unwrap()).unwrap();
    let addresses: Vec<u64> = (0..plan.buffers.len() as u64)
        .map(|i| 0x1000_0000 + (i << 20))
        .collect();
    plan.bind(&addresses, plan.launch.grid).unwrap();
    let module = |flag_only: bool| {
        rdna2spv_spirv::lower::lower_with(
            &plan.program,
            &rdna2spv_vulkan::kernel_layout(&plan.launch),
            &rdna2spv_spirv::profile::DeviceProfile::portable(),
            &rdna2spv_spirv::lower::LowerOptions {
                mapping: rdna2spv_spirv::lower::Mapping::Lane,
                segments: plan.segments(),
                checked: Some(plan.buffers.len() as u16),
                check_flag_only: flag_only,
                ..Default::default()
            },
        )
        .unwrap()
    };
    assert_eq!(
        psb_u64_loads(&module(true)),
        2,
        "without records: two pairs"
    );
    assert_eq!(
        psb_u64_loads(&module(false)),
        0,
        "with records: dword loads"
    );
    assert_eq!(
        run_lane_both(&m, &dir.join("out"), "whole x"),
        wide_access(&x)
    );
    let short = wide_manifest(&dir.join("short"), "wide_access.bin", &x[..1023], u32::MAX);
    let (host_exit, host) = fault_line(&short, &dir.join("short/out-host"), "host");
    let (dev_exit, dev) = fault_line(&short, &dir.join("short/out-dev"), "vulkan");
    assert_eq!((host_exit, dev_exit), (Some(2), Some(2)), "{host}\n{dev}");
    // Work-item 255: workgroup 3, wave 1, lane 31, the dwordx4 load (4 bytes at x + 4092).
    assert!(
        host.contains("workgroup [3, 0, 0], wave 1,") && host.contains("(lane 31)"),
        "{host}"
    );
    assert!(dev.starts_with(&host), "host:   {host}\ndevice: {dev}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// fixtures/lane/straddle.s from the ISA: out[g] = the 16-bit half-word of `x` at byte 4g + 2 (at byte
/// 4g + `d` for the work-item `skewed`) plus 1, for the 256 work-items.
fn straddle(x: &[u32], skewed: u32, d: u32) -> Vec<u32> {
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    (0..256u32)
        .map(|g| {
            let b = (4 * g + if g == skewed { d } else { 2 }) as usize;
            u32::from(u16::from_le_bytes([bytes[b], bytes[b + 1]])) + 1
        })
        .collect()
}

/// A manifest running fixtures/lane/straddle.bin over 256 work-items in workgroups of 64 (wave32), the
/// work-item `skewed` loading at byte 4g + `ld`, storing `st` bytes and accessing LDS `lds` bytes further
/// on.
fn straddle_manifest(
    dir: &std::path::Path,
    x: &[u32],
    skewed: u32,
    [ld, st, lds]: [u32; 3],
) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let xb: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("x.bin"), xb).unwrap();
    std::fs::write(dir.join("out.bin"), vec![0u8; 1040]).unwrap();
    let m = dir.join(format!("straddle-{skewed}-{ld}-{st}-{lds}.toml"));
    std::fs::write(
        &m,
        format!(
            "code = {:?}\ngrid = [256, 1, 1]\nworkgroup = [64, 1, 1]\n\n[abi]\nwave_size = 32\nlds_bytes = 260\nsgpr = [\n    \
             {{ reg = 0, address = \"x\" }},\n    {{ reg = 2, address = \"out\" }},\n    \
             {{ reg = 6, u32 = {skewed} }},\n    {{ reg = 7, workgroup_id = 0 }},\n    \
             {{ reg = 8, u32 = {ld} }},\n    {{ reg = 9, u32 = {st} }},\n    {{ reg = 10, u32 = {lds} }},\n]\n\n\
             [[buffers]]\nname = \"x\"\nfile = \"x.bin\"\n\n[[buffers]]\nname = \"out\"\nfile = \"out.bin\"\noutput = true\n",
            root().join("fixtures/lane/straddle.bin").display().to_string()
        ),
    )
    .unwrap();
    m
}

/// `rdna2spv run --backend both` (or `vulkan` alone) in the wave mapping: (exit code, output words, stderr).
fn run_wave(
    manifest: &std::path::Path,
    out_dir: &std::path::Path,
    both: bool,
) -> (Option<i32>, Vec<u32>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .arg("run")
        .arg(manifest)
        .args(["--backend", if both { "both" } else { "vulkan" }])
        .args(["--mapping", "wave", "--out"])
        .arg(out_dir)
        .output()
        .unwrap();
    let words = std::fs::read(out_dir.join("out.bin"))
        .map(|b| {
            b.chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        })
        .unwrap_or_default();
    (
        out.status.code(),
        words,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The misaligned flag (D242: the OR of the dword accesses' byte positions, and 1 for a 16-bit access
/// that straddles, tested once as `(flag & 3) != 0`): a 16-bit load at byte 0, 1 or 2 of a dword, and
/// aligned dword stores and LDS accesses, run bit for bit as on the host (lane and wave mappings) and
/// equal the values derived here; a 16-bit load at byte 3, a dword store 2 bytes off and an LDS dword 1
/// byte off each stop the device run with the misaligned flag, naming the work-item's workgroup and
/// wave (work-item 77: workgroup 1, wave 0).
#[test]
fn accesses_across_a_dword_boundary_and_only_those_raise_the_misaligned_flag() {
    let dir = tmp("straddle");
    let mut next = lane::xorshift(0x5742_d242);
    let x: Vec<u32> = (0..260).map(|_| next()).collect();
    for ld in [0, 1, 2] {
        let m = straddle_manifest(&dir, &x, 77, [ld, 0, 0]);
        let want = straddle(&x, 77, ld);
        let got = run_lane_both(&m, &dir.join("out"), &format!("ld {ld}"));
        assert_eq!(got[..256], want[..], "lane mapping, load at byte {ld}");
        let (exit, got, stderr) = run_wave(&m, &dir.join("out-wave"), true);
        assert_eq!(exit, Some(0), "wave mapping, load at byte {ld}: {stderr}");
        assert_eq!(got[..256], want[..], "wave mapping, load at byte {ld}");
    }
    for (what, skew) in [
        ("a 16-bit load at byte 3", [3, 0, 0]),
        ("a dword store at byte 2", [2, 2, 0]),
        ("an LDS dword at byte 1", [2, 0, 1]),
    ] {
        let m = straddle_manifest(&dir, &x, 77, skew);
        let (exit, stderr) = lane::run_lane_vulkan(&m, &dir.join("out"));
        assert_eq!(exit, Some(2), "lane mapping, {what}: {stderr}");
        assert!(
            stderr.contains("crossed a dword boundary")
                && stderr.contains("(first: workgroup 1, wave 0,"),
            "lane mapping, {what}: {stderr}"
        );
        let (exit, _, stderr) = run_wave(&m, &dir.join("out-wave"), false);
        assert_eq!(exit, Some(2), "wave mapping, {what}: {stderr}");
        assert!(
            stderr.contains("crossed a dword boundary"),
            "wave mapping, {what}: {stderr}"
        );
    }
    // The model itself, by hand: work-item 5 reads the high half of x[5]; a load at byte 1 of x[77] is
    // its middle two bytes.
    assert_eq!(straddle(&x, 77, 1)[5], (x[5] >> 16) + 1);
    assert_eq!(straddle(&x, 77, 1)[77], ((x[77] >> 8) & 0xffff) + 1);
    let _ = std::fs::remove_dir_all(&dir);
}
