//! Wave64 shared VGPRs (issue 25, decision D153). RADV/ACO builds subgroupShuffle, ShuffleXor, ShuffleUp and
//! ShuffleDown for navi21 in wave64 from `ds_bpermute_b32`, which permutes within each 32-lane half on gfx10,
//! and two *shared VGPRs* above the shader's allocation that both halves see (lane l: slot l mod 32) to move
//! data between the halves. The captures (fixtures/aco/shuffle*.comp, `cargo xtask aco --fixtures`) run on
//! the host evaluator and on lavapipe; both must agree bit for bit and equal references written here from
//! the GLSL definitions (KHR_shader_subgroup_shuffle{,_relative}: lane `id` of a subgroup of `ws` lanes reads
//! lane `f(id)` of the same subgroup; subgroups are the waves, `ws` consecutive invocations of the
//! workgroup). The wave32 captures of the same sources (no shared VGPRs) must pass too.
//!
//! The semantics of the model itself (both halves writing one slot: the high half wins; DPP row masks and
//! v_writelane_b32 write only their lanes; ds_bpermute_b32 reading and writing one shared VGPR as two
//! half-wave passes) are checked on hand-assembled words against hand-worked values, and the refusals
//! (a VGPR above the allocation that is not shared, an unmodelled read-and-write, malformed `[abi]` keys)
//! are exit 2 with a message naming the register and the pc, and no output file.

use rdna2spv::device::{open, profile_of, run_vulkan, ProfileChoice};
use rdna2spv::dispatch::{run_host, run_host_at, Plan};
use rdna2spv::manifest::Manifest;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Runs the manifest on lavapipe and on the host at the device's addresses; asserts they agree bit for bit;
/// returns every buffer by name.
fn run_both(path: &Path) -> BTreeMap<String, Vec<u32>> {
    let m = Manifest::load(path).unwrap();
    let mut plan = Plan::new(&m).unwrap();
    let ctx = open(None).unwrap();
    let profile = profile_of(&ctx, ProfileChoice::Device).unwrap();
    let dev = run_vulkan(&ctx, &mut plan, &profile).unwrap();
    let (host, _) = run_host_at(&plan, &dev.addresses).unwrap();
    let mut out = BTreeMap::new();
    for (h, d) in host.iter().zip(&dev.buffers) {
        assert_eq!(h.name, d.name);
        let (hw, dw) = (words(&h.data), words(&d.data));
        if h.output.is_some() {
            let bad = hw.iter().zip(&dw).position(|(a, b)| a != b);
            assert!(
                bad.is_none(),
                "{}: host and lavapipe differ in {} at word {}: host {:#010x}, device {:#010x}",
                path.display(),
                h.name,
                bad.unwrap(),
                hw[bad.unwrap()],
                dw[bad.unwrap()]
            );
        }
        out.insert(h.name.clone(), hw);
    }
    out
}

/// The host evaluator alone.
fn run_on_host(path: &Path) -> BTreeMap<String, Vec<u32>> {
    let m = Manifest::load(path).unwrap();
    let mut plan = Plan::new(&m).unwrap();
    let (host, _) = run_host(&mut plan).unwrap();
    host.iter()
        .map(|b| (b.name.clone(), words(&b.data)))
        .collect()
}

fn expect(what: &str, name: &str, got: &[u32], want: &[u32]) {
    assert_eq!(got.len(), want.len(), "{what}: {name} length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            g,
            w,
            "{what}: {name}[{i}] = {g:#010x}, GLSL says {w:#010x} (lane {} of its wave)",
            i % 64
        );
    }
}

const DEAD: u32 = 0xdead_beef;

/// shuffle.comp: r = subgroupShuffle(x, ws − 1 − id), s = subgroupShuffle(x, (x >> 7) mod ws).
fn shuffle_refs(x: &[u32], ws: usize) -> (Vec<u32>, Vec<u32>) {
    let mut r = Vec::new();
    let mut s = Vec::new();
    for (i, &v) in x.iter().enumerate() {
        let (base, id) = (i - i % ws, i % ws);
        r.push(x[base + ws - 1 - id]);
        s.push(x[base + (v >> 7) as usize % ws]);
    }
    (r, s)
}

/// shuffle_rel.comp: r = subgroupShuffleXor(x, ws/2), s = subgroupShuffleUp(x, 5), t =
/// subgroupShuffleDown(x, down), 0xdeadbeef where the source lane is outside the subgroup.
fn shuffle_rel_refs(x: &[u32], ws: usize, down: usize) -> [Vec<u32>; 3] {
    let mut out = [Vec::new(), Vec::new(), Vec::new()];
    for i in 0..x.len() {
        let (base, id) = (i - i % ws, i % ws);
        out[0].push(x[base + (id ^ (ws / 2))]);
        out[1].push(if id >= 5 { x[base + id - 5] } else { DEAD });
        out[2].push(if id + down < ws {
            x[base + id + down]
        } else {
            DEAD
        });
    }
    out
}

fn check_shuffle(stem: &str, ws: usize) {
    let b = run_both(&root().join(format!("fixtures/aco/{stem}.toml")));
    let (r, s) = shuffle_refs(&b["x"], ws);
    expect(stem, "r", &b["r"], &r);
    expect(stem, "s", &b["s"], &s);
}

fn check_shuffle_rel(stem: &str, ws: usize, down: usize) {
    let b = run_both(&root().join(format!("fixtures/aco/{stem}.toml")));
    let [r, s, t] = shuffle_rel_refs(&b["x"], ws, down);
    expect(stem, "r", &b["r"], &r);
    expect(stem, "s", &b["s"], &s);
    expect(stem, "t", &b["t"], &t);
}

#[test]
fn aco_shuffle_navi21_w64() {
    check_shuffle("shuffle.navi21.w64", 64);
}

#[test]
fn aco_shuffle_navi21_w32() {
    check_shuffle("shuffle.navi21.w32", 32);
}

#[test]
fn aco_shuffle_rel_navi21_w64() {
    check_shuffle_rel("shuffle_rel.navi21.w64", 64, 37);
}

#[test]
fn aco_shuffle_rel_navi21_w32() {
    check_shuffle_rel("shuffle_rel.navi21.w32", 32, 7);
}

/// The fixture manifests give the `[abi]` vgprs/shared_vgprs that the capture read (the last line of its
/// .aco.txt: the "VGPRs" statistic and ACO's shader config, D174).
#[test]
fn manifests_match_the_captures() {
    for stem in [
        "shuffle.navi21.w64",
        "shuffle.navi21.w32",
        "shuffle_rel.navi21.w64",
        "shuffle_rel.navi21.w32",
    ] {
        let txt =
            std::fs::read_to_string(root().join(format!("fixtures/aco/{stem}.aco.txt"))).unwrap();
        let line = txt
            .lines()
            .find(|l| l.starts_with("// ==== rdna2spv: [abi]"))
            .unwrap_or_else(|| panic!("{stem}: no [abi] line"));
        let toml =
            std::fs::read_to_string(root().join(format!("fixtures/aco/{stem}.toml"))).unwrap();
        let key = |k: &str| -> u32 {
            toml.lines()
                .find_map(|l| l.strip_prefix(&format!("{k} = ")))
                .map(|v| v.split_whitespace().next().unwrap().parse().unwrap())
                .unwrap_or(0)
        };
        let want = format!(
            "[abi] vgprs = {}, shared_vgprs = {}",
            key("vgprs"),
            key("shared_vgprs")
        );
        assert!(
            line.contains(&want),
            "{stem}: manifest {want}, capture {line}"
        );
        assert_eq!(key("shared_vgprs") > 0, stem.ends_with("w64"), "{stem}");
    }
}

/// Mutation check built in: the wave64 captures with their shared VGPRs treated as private (the `[abi]`
/// keys removed, so every VGPR is a private one as before D153) give wrong answers in the lanes whose source
/// is in the other half, and the references above see it.
#[test]
fn private_shared_vgprs_give_wrong_answers() {
    let dir = std::env::temp_dir().join(format!("rdna2spv-svgpr-priv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["shuffle.navi21.w64.bin", "shuffle.x.in.bin"] {
        std::fs::copy(root().join("fixtures/aco").join(f), dir.join(f)).unwrap();
    }
    let text = std::fs::read_to_string(root().join("fixtures/aco/shuffle.navi21.w64.toml"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("vgprs") && !l.starts_with("shared_vgprs"))
        .collect::<Vec<_>>()
        .join("\n");
    let m = dir.join("private.toml");
    std::fs::write(&m, text).unwrap();
    let b = run_on_host(&m);
    let (r, _) = shuffle_refs(&b["x"], 64);
    let wrong = b["r"].iter().zip(&r).filter(|(g, w)| g != w).count();
    // Every lane of a reversal reads the other half: all but the lanes whose source holds 0 (what a
    // never-written private copy gives) are wrong.
    let zeros = r.iter().filter(|&&v| v == 0).count();
    assert_eq!(
        wrong,
        256 - zeros,
        "private shared VGPRs: {wrong} of 256 wrong"
    );
    assert!(wrong > 200);
}

// ---- The model on hand-assembled wave64 words (llvm-mc-19 -mcpu=gfx1030 -mattr=+wavefrontsize64).

/// One 64-lane wave, `[abi] vgprs = 8, shared_vgprs = 8` (v8..v15 shared); s[0:1] the output's address,
/// v1 = 4 × lane. Each part stores v2 at its own 256-byte row of `out`.
const SEMANTICS: &[(&str, &[u8])] = &[
    ("v_lshlrev_b32_e32 v1, 2, v0", &[0x82, 0x00, 0x02, 0x34]),
    // A: both halves write slot s (v8 = lane): the high half's value stays.
    ("v_mov_b32_e32 v8, v0", &[0x00, 0x03, 0x10, 0x7e]),
    ("v_mov_b32_e32 v2, v8", &[0x08, 0x03, 0x04, 0x7e]),
    (
        "global_store_dword v1, v2, s[0:1]",
        &[0x00, 0x80, 0x70, 0xdc, 0x01, 0x02, 0x00, 0x00],
    ),
    // B: the low half alone writes, every lane reads.
    ("s_mov_b32 exec_hi, 0", &[0x80, 0x03, 0xff, 0xbe]),
    (
        "v_add_nc_u32_e32 v9, 0x64, v0",
        &[0xff, 0x00, 0x12, 0x4a, 0x64, 0x00, 0x00, 0x00],
    ),
    ("s_mov_b32 exec_hi, -1", &[0xc1, 0x03, 0xff, 0xbe]),
    ("v_mov_b32_e32 v2, v9", &[0x09, 0x03, 0x04, 0x7e]),
    (
        "global_store_dword v1, v2, s[0:1] offset:256",
        &[0x00, 0x81, 0x70, 0xdc, 0x01, 0x02, 0x00, 0x00],
    ),
    // C: a DPP move with row_mask 0x3 after all lanes wrote 7: only the low rows write.
    ("v_mov_b32_e32 v10, 7", &[0x87, 0x02, 0x14, 0x7e]),
    (
        "v_mov_b32_dpp v10, v0 quad_perm:[0,1,2,3] row_mask:0x3 bank_mask:0xf",
        &[0xfa, 0x02, 0x14, 0x7e, 0x00, 0xe4, 0x00, 0x3f],
    ),
    ("v_mov_b32_e32 v2, v10", &[0x0a, 0x03, 0x04, 0x7e]),
    (
        "global_store_dword v1, v2, s[0:1] offset:512",
        &[0x00, 0x82, 0x70, 0xdc, 0x01, 0x02, 0x00, 0x00],
    ),
    // D: v_writelane_b32 into lane 8 writes slot 8 only (lane 40, active, does not write it).
    ("v_mov_b32_e32 v11, 5", &[0x85, 0x02, 0x16, 0x7e]),
    ("s_movk_i32 s2, 0x1234", &[0x34, 0x12, 0x02, 0xb0]),
    (
        "v_writelane_b32 v11, s2, 8",
        &[0x0b, 0x00, 0x61, 0xd7, 0x02, 0x10, 0x01, 0x00],
    ),
    ("v_mov_b32_e32 v2, v11", &[0x0b, 0x03, 0x04, 0x7e]),
    (
        "global_store_dword v1, v2, s[0:1] offset:768",
        &[0x00, 0x83, 0x70, 0xdc, 0x01, 0x02, 0x00, 0x00],
    ),
    // E: ds_bpermute_b32 reading and writing shared v12 with both halves active: two passes.
    ("v_mov_b32_e32 v12, v0", &[0x00, 0x03, 0x18, 0x7e]),
    ("v_add_nc_u32_e32 v3, 1, v0", &[0x81, 0x00, 0x06, 0x4a]),
    ("v_lshlrev_b32_e32 v3, 2, v3", &[0x82, 0x06, 0x06, 0x34]),
    (
        "ds_bpermute_b32 v12, v3, v12",
        &[0x00, 0x00, 0xcc, 0xda, 0x03, 0x0c, 0x00, 0x0c],
    ),
    ("s_waitcnt lgkmcnt(0)", &[0x7f, 0xc0, 0x8c, 0xbf]),
    ("v_mov_b32_e32 v2, v12", &[0x0c, 0x03, 0x04, 0x7e]),
    (
        "global_store_dword v1, v2, s[0:1] offset:1024",
        &[0x00, 0x84, 0x70, 0xdc, 0x01, 0x02, 0x00, 0x00],
    ),
    ("s_endpgm", &[0x00, 0x00, 0x81, 0xbf]),
];

const MANIFEST: &str = r#"code = "k.bin"
grid = [64, 1, 1]
workgroup = [64, 1, 1]

[abi]
wave_size = 64
vgprs = 8
shared_vgprs = 8
sgpr = [{ reg = 0, address = "out" }]

[[buffers]]
name = "out"
size = 1280
output = true
"#;

fn write_case(tag: &str, code: &[u8], manifest: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rdna2spv-svgpr-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.bin"), code).unwrap();
    let m = dir.join("k.toml");
    std::fs::write(&m, manifest).unwrap();
    m
}

/// The slot values of each part, worked by hand from the model (lane l, slot s = l mod 32).
fn semantics_ref() -> Vec<u32> {
    let mut out = Vec::new();
    for l in 0..64u32 {
        out.push((l & 31) + 32); // A: lane s + 32 wrote last
    }
    for l in 0..64u32 {
        out.push((l & 31) + 100); // B: lane s wrote s + 100
    }
    for l in 0..64u32 {
        out.push(l & 31); // C: the low rows wrote the lane; the high rows kept nothing
    }
    for l in 0..64u32 {
        out.push(if l & 31 == 8 { 0x1234 } else { 5 }); // D
    }
    for l in 0..64u32 {
        // E: low pass: lane j reads slot (j+1) mod 32 = ((j+1) mod 32) + 32 and writes slot j; high pass:
        // lane 32+j reads slot (j+1) mod 32 as the low pass left it, ((j+2) mod 32) + 32, and writes it last.
        out.push((((l & 31) + 2) & 31) + 32);
    }
    out
}

#[test]
fn shared_vgpr_semantics_on_both_backends() {
    let code: Vec<u8> = SEMANTICS
        .iter()
        .flat_map(|(_, w)| w.iter().copied())
        .collect();
    let m = write_case("sem", &code, MANIFEST);
    let b = run_both(&m);
    expect("semantics", "out", &b["out"], &semantics_ref());
}

/// Runs the CLI on a manifest; asserts exit 2, every `want` in the message and no output written.
fn refused(m: &Path, wants: &[&str]) {
    let out_dir = m.parent().unwrap().join("out");
    let r = std::process::Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["run", "--backend", "host", "--out"])
        .arg(&out_dir)
        .arg(m)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{}: {err}", m.display());
    for w in wants {
        assert!(err.contains(w), "wanted {w:?} in {err}");
    }
    assert!(!out_dir.exists(), "{}: wrote output", m.display());
}

#[test]
fn unmodelled_register_accesses_are_refused() {
    let body = |ins: &[&[u8]]| -> Vec<u8> {
        let mut c = vec![0x82, 0x00, 0x02, 0x34]; // v_lshlrev_b32_e32 v1, 2, v0
        for i in ins {
            c.extend_from_slice(i);
        }
        c.extend_from_slice(&[0x00, 0x00, 0x81, 0xbf]); // s_endpgm
        c
    };
    // v_mov_b32_e32 v16, v0: above the 8 allocated and 8 shared VGPRs.
    let m = write_case("above", &body(&[&[0x00, 0x03, 0x20, 0x7e]]), MANIFEST);
    refused(&m, &["+0x4", "v16 is above", "8 shared VGPRs (v8..v15)"]);
    // The same register without shared VGPRs (wave32 has none).
    let w32 = MANIFEST
        .replace("wave_size = 64", "wave_size = 32")
        .replace("shared_vgprs = 8\n", "");
    let m = write_case("w32", &body(&[&[0x00, 0x03, 0x10, 0x7e]]), &w32);
    refused(&m, &["+0x4", "v8 is above", "wave32 has none"]);
    // v_add_nc_u32_e32 v8, v8, v0: reads and writes one shared VGPR (two half-passes not modelled).
    let m = write_case("rw", &body(&[&[0x08, 0x01, 0x10, 0x4a]]), MANIFEST);
    refused(&m, &["+0x4", "reads and writes shared VGPR v8"]);
    // s_mov_b32 ttmp0, 0 where the ownership lives.
    let m = write_case("ttmp", &body(&[&[0x80, 0x03, 0xec, 0xbe]]), MANIFEST);
    refused(&m, &["+0x4", "ttmp0"]);
}

#[test]
fn bad_shared_vgpr_keys_are_refused() {
    let code = [0x00, 0x00, 0x81, 0xbf];
    let cases = [
        (
            MANIFEST.replace("wave_size = 64", "wave_size = 32"),
            "wave64 only",
        ),
        (MANIFEST.replace("\nvgprs = 8\n", "\n"), "needs vgprs"),
        (
            MANIFEST.replace("shared_vgprs = 8", "shared_vgprs = 12"),
            "multiple of 8",
        ),
        (
            MANIFEST.replace("\nvgprs = 8\n", "\nvgprs = 252\n"),
            "at most 256",
        ),
        (
            MANIFEST.replace("\nvgprs = 8\n", "\nvgprs = 0\n"),
            "vgprs 0",
        ),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let m = write_case(&format!("key{i}"), &code, text);
        refused(&m, &[want]);
    }
}

/// `rdna2spv trace` shows a shared VGPR once, as its 32 slots (not 64 lanes of private copies), and leaves
/// out the owner masks it keeps in the TTMPs.
#[test]
fn traces_show_shared_vgprs_once() {
    let code: Vec<u8> = SEMANTICS
        .iter()
        .flat_map(|(_, w)| w.iter().copied())
        .collect();
    let m = write_case("trace", &code, MANIFEST);
    let out = m.parent().unwrap().join("t.jsonl");
    let r = std::process::Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["trace", "--backend", "host", "-o"])
        .arg(&out)
        .arg(&m)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let rec = |pc: &str| -> serde_json::Value {
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|v| v["pc"] == pc)
            .unwrap_or_else(|| panic!("no record at {pc}"))
    };
    // pc 0x4: v_mov_b32_e32 v8, v0 (both halves write; the high half stays).
    let w = &rec("0x4")["writes"];
    assert_eq!(w.as_array().unwrap().len(), 1, "{w}");
    assert_eq!(w[0]["vgpr"], 8);
    let slots = w[0]["shared"].as_array().unwrap();
    assert_eq!(slots.len(), 32);
    for (s, e) in slots.iter().enumerate() {
        assert_eq!(e[0], s as u64);
        assert_eq!(e[1], format!("0x{:08x}", s + 32));
    }
    // pc 0x18: v_add_nc_u32_e32 v9, 0x64, v0 with the low half only: slots s + 100.
    let w = &rec("0x18")["writes"];
    assert_eq!(w[0]["vgpr"], 9);
    let slots = w[0]["shared"].as_array().unwrap();
    assert_eq!(slots.len(), 32);
    assert_eq!(slots[5][1], format!("0x{:08x}", 105));
    assert!(!text.contains("ttmp"), "the owner masks are left out");
}

/// A code object whose descriptor gives shared VGPRs (fixtures/kernels/sharedvgpr_w64.s:
/// `.amdhsa_shared_vgpr_count 1`, 8 VGPRs allocated): ACO's reversal sequence, hand-written, through the
/// code-object path (COMPUTE_PGM_RSRC3.SHARED_VGPR_COUNT × 8 above the descriptor's VGPR count).
#[test]
fn code_object_descriptor_gives_shared_vgprs() {
    let dir = std::env::temp_dir().join(format!("rdna2spv-svgpr-co-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let x: Vec<u32> = (0..128u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x5555_0000)
        .collect();
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("x.bin"), bytes).unwrap();
    let co = root().join("fixtures/kernels/sharedvgpr_w64.co");
    let m = dir.join("k.toml");
    std::fs::write(
        &m,
        format!(
            "code_object = {:?}\nkernel = \"sharedvgpr_w64\"\ngrid = [128, 1, 1]\n\
             workgroup = [64, 1, 1]\n[[args]]\nbuffer = \"x.bin\"\n[[args]]\n\
             buffer = {{ size = 512 }}\noutput = \"out\"\n",
            co.display().to_string()
        ),
    )
    .unwrap();
    let m_plan = Plan::new(&Manifest::load(&m).unwrap()).unwrap();
    assert_eq!(m_plan.shared_vgprs(), Some((8, 8)));
    let b = run_both(&m);
    let out = &b["out"];
    let want: Vec<u32> = (0..128).map(|i| x[(i & !63) + 63 - (i & 63)]).collect();
    expect("sharedvgpr_w64", "out", out, &want);
}
