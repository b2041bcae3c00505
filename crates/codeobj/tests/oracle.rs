//! Every fixture against LLVM's own view of it (see tests/common/mod.rs for the golden files).

mod common;

use common::*;
use rdna2spv_codeobj::{CodeObject, Kernel, KernelMetadata, Metadata};
use std::collections::BTreeMap;
use yaml_rust2::{Yaml, YamlLoader};

fn load(file: &str) -> CodeObject {
    CodeObject::parse(&read(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn every_fixture_loads() {
    for (name, bytes) in all_fixture_files() {
        let co = CodeObject::parse_any(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!co.kernels.is_empty(), "{name}: no kernels");
        assert!(co.target.gpu.is_gfx103(), "{name}: {}", co.target);
        for k in &co.kernels {
            assert_eq!(k.code.len() as u64, k.code_size, "{name}");
            assert!(
                k.code_size > 0 && k.code_size % 4 == 0,
                "{name}: {}",
                k.code_size
            );
            assert!(k.metadata.is_some(), "{name}: {} has no metadata", k.name);
            if name.ends_with(".co") || name.ends_with("_rel.o") {
                assert_eq!(
                    &bytes[k.code_offset as usize..][..k.code.len()],
                    &k.code[..],
                    "{name}"
                );
            }
        }
    }
}

/// ELF header, sections and symbols against `llvm-readelf-19`.
#[test]
fn elf_layout_matches_readelf() {
    for (stem, file) in golden_objects() {
        let co = load(&file);
        let re = parse_readelf(&read_text(&format!("{stem}.readelf.txt")));
        assert_eq!(co.abi_version, re.abi_version, "{stem}");
        assert_eq!(co.target.e_flags, re.e_flags, "{stem}");
        assert_eq!(co.target.to_string(), re.flags_text, "{stem}: target name");
        let expected_version = u32::from(re.abi_version) + 2;
        assert_eq!(co.code_object_version, expected_version, "{stem}");

        let ours: Vec<(usize, String, u64, u64, u64)> = co
            .sections
            .iter()
            .filter(|s| s.index != 0)
            .map(|s| (s.index, s.name.clone(), s.address, s.offset, s.size))
            .collect();
        assert_eq!(ours, re.sections, "{stem}: sections");

        for (value, size, ty, name) in &re.symbols {
            let found = co
                .symbols
                .iter()
                .any(|s| &s.name == name && s.value == *value && s.size == *size);
            assert!(
                found,
                "{stem}: symbol {name} {value:#x} {size} {ty} missing"
            );
        }
        // Kernels: one per `.kd` symbol, code at the function symbol of the same name.
        let kds: Vec<&(u64, u64, String, String)> = {
            let mut v: Vec<_> = re.symbols.iter().filter(|s| s.3.ends_with(".kd")).collect();
            v.sort_by_key(|s| &s.3);
            v.dedup_by_key(|s| &s.3);
            v
        };
        assert_eq!(kds.len(), co.kernels.len(), "{stem}: kernel count");
        for (value, size, ty, name) in kds {
            assert_eq!((ty.as_str(), *size), ("OBJECT", 64), "{stem}: {name}");
            let k = co.kernel(name).unwrap();
            assert_eq!(k.descriptor_address, *value, "{stem}: {name}");
            let func = re
                .symbols
                .iter()
                .find(|s| s.3 == k.name && s.2 == "FUNC")
                .unwrap_or_else(|| panic!("{stem}: no FUNC symbol for {}", k.name));
            assert_eq!(k.code_address, func.0, "{stem}: entry of {}", k.name);
            assert_eq!(k.code_size, func.1, "{stem}: size of {}", k.name);
            assert_eq!(k.code_symbol.as_deref(), Some(k.name.as_str()));
            // File offset of the code = address − section address + section offset.
            let text = re.sections.iter().find(|s| s.1 == ".text").unwrap();
            assert_eq!(k.code_offset, k.code_address - text.2 + text.3, "{stem}");
        }
    }
}

/// Every `.amdhsa_*` directive the compiler printed for the same source and flags, against the
/// decoded descriptor. Unknown directives fail the test, so new LLVM fields get noticed.
#[test]
fn descriptors_match_amdhsa_directives() {
    let mut checked = 0;
    for (stem, file) in golden_objects() {
        let co = load(&file);
        if !kernels_dir().join(format!("{stem}.s")).exists() {
            continue;
        }
        let dirs = parse_amdhsa_directives(&read_text(&format!("{stem}.s")));
        if let Some(v) = dirs.get("").and_then(|m| m.get("code_object_version")) {
            assert_eq!(i64::from(co.code_object_version), *v, "{stem}");
        }
        let kernels: Vec<&String> = dirs.keys().filter(|k| !k.is_empty()).collect();
        assert_eq!(kernels.len(), co.kernels.len(), "{stem}: kernels in .s");
        for name in kernels {
            let k = co.kernel(name).unwrap();
            for (key, &value) in &dirs[name] {
                check_directive(&stem, k, key, value);
                checked += 1;
            }
        }
    }
    assert!(checked > 400, "only {checked} directives checked");
}

fn check_directive(stem: &str, k: &Kernel, key: &str, value: i64) {
    let d = &k.descriptor;
    let r1 = &d.compute_pgm_rsrc1;
    let r2 = &d.compute_pgm_rsrc2;
    let r3 = &d.compute_pgm_rsrc3;
    let p = &d.kernel_code_properties;
    let b = |x: bool| i64::from(x);
    let ours: i64 = match key {
        "group_segment_fixed_size" => d.group_segment_fixed_size.into(),
        "private_segment_fixed_size" => d.private_segment_fixed_size.into(),
        "kernarg_size" => d.kernarg_size.into(),
        "user_sgpr_count" => r2.user_sgpr_count.into(),
        "user_sgpr_private_segment_buffer" => b(p.enable_sgpr_private_segment_buffer),
        "user_sgpr_dispatch_ptr" => b(p.enable_sgpr_dispatch_ptr),
        "user_sgpr_queue_ptr" => b(p.enable_sgpr_queue_ptr),
        "user_sgpr_kernarg_segment_ptr" => b(p.enable_sgpr_kernarg_segment_ptr),
        "user_sgpr_dispatch_id" => b(p.enable_sgpr_dispatch_id),
        "user_sgpr_flat_scratch_init" => b(p.enable_sgpr_flat_scratch_init),
        "user_sgpr_private_segment_size" => b(p.enable_sgpr_private_segment_size),
        "wavefront_size32" => b(p.enable_wavefront_size32),
        "uses_dynamic_stack" => b(p.uses_dynamic_stack),
        "system_sgpr_private_segment_wavefront_offset" | "enable_private_segment" => {
            b(r2.enable_private_segment)
        }
        "system_sgpr_workgroup_id_x" => b(r2.enable_sgpr_workgroup_id_x),
        "system_sgpr_workgroup_id_y" => b(r2.enable_sgpr_workgroup_id_y),
        "system_sgpr_workgroup_id_z" => b(r2.enable_sgpr_workgroup_id_z),
        "system_sgpr_workgroup_info" => b(r2.enable_sgpr_workgroup_info),
        "system_vgpr_workitem_id" => r2.enable_vgpr_workitem_id.into(),
        "next_free_vgpr" => {
            // LLVM: granulated = ceil(max(1, next_free_vgpr) / granule) − 1.
            let granule = i64::from(d.vgpr_granule());
            let expected = (value.max(1) + granule - 1) / granule - 1;
            assert_eq!(
                i64::from(r1.granulated_workitem_vgpr_count),
                expected,
                "{stem}: {} {key}",
                k.name
            );
            assert!(i64::from(d.vgpr_count()) >= value, "{stem}: {}", k.name);
            return;
        }
        // These only feed the SGPR granule, which gfx10 treats as reserved; it is checked
        // against the metadata's .sgpr_count in `metadata_matches_readelf_notes`.
        "next_free_sgpr" | "reserve_vcc" | "reserve_flat_scratch" | "reserve_xnack_mask" => return,
        "float_round_mode_32" => r1.float_round_mode_32.into(),
        "float_round_mode_16_64" => r1.float_round_mode_16_64.into(),
        "float_denorm_mode_32" => r1.float_denorm_mode_32.into(),
        "float_denorm_mode_16_64" => r1.float_denorm_mode_16_64.into(),
        "dx10_clamp" => b(r1.enable_dx10_clamp),
        "ieee_mode" => b(r1.enable_ieee_mode),
        "fp16_overflow" => b(r1.fp16_ovfl),
        "workgroup_processor_mode" => b(r1.wgp_mode),
        "memory_ordered" => b(r1.mem_ordered),
        "forward_progress" => b(r1.fwd_progress),
        "shared_vgpr_count" => r3.shared_vgpr_count.into(),
        "exception_fp_ieee_invalid_op" => b(r2.enable_exception_ieee_754_fp_invalid_operation),
        "exception_fp_denorm_src" => b(r2.enable_exception_fp_denormal_source),
        "exception_fp_ieee_div_zero" => b(r2.enable_exception_ieee_754_fp_division_by_zero),
        "exception_fp_ieee_overflow" => b(r2.enable_exception_ieee_754_fp_overflow),
        "exception_fp_ieee_underflow" => b(r2.enable_exception_ieee_754_fp_underflow),
        "exception_fp_ieee_inexact" => b(r2.enable_exception_ieee_754_fp_inexact),
        "exception_int_div_zero" => b(r2.enable_exception_int_divide_by_zero),
        other => panic!(
            "{stem}: {}: directive .amdhsa_{other} {value} is not checked",
            k.name
        ),
    };
    assert_eq!(ours, value, "{stem}: {}: .amdhsa_{key}", k.name);
}

/// A canonical form for comparing the YAML that llvm-readelf prints with our decoding.
#[derive(Clone, Debug, PartialEq)]
enum Canon {
    Int(i128),
    Str(String),
    List(Vec<Canon>),
    Map(BTreeMap<String, Canon>),
}

fn canon_yaml(y: &Yaml) -> Canon {
    match y {
        Yaml::Integer(i) => Canon::Int((*i).into()),
        Yaml::Boolean(b) => Canon::Int((*b).into()),
        Yaml::String(s) | Yaml::Real(s) => Canon::Str(s.clone()),
        Yaml::Array(a) => Canon::List(a.iter().map(canon_yaml).collect()),
        Yaml::Hash(h) => Canon::Map(
            h.iter()
                .map(|(k, v)| (k.as_str().expect("string key").to_string(), canon_yaml(v)))
                .collect(),
        ),
        other => panic!("unexpected YAML {other:?}"),
    }
}

/// Our side: serde JSON of the typed structs, typed keys given their `.` back, `extra` flattened.
fn canon_json(v: &serde_json::Value) -> Option<Canon> {
    use serde_json::Value as J;
    Some(match v {
        J::Null => return None,
        J::Bool(b) => Canon::Int((*b).into()),
        J::Number(n) => Canon::Int(
            n.as_i64()
                .map(i128::from)
                .or(n.as_u64().map(i128::from))
                .expect("integer"),
        ),
        J::String(s) => Canon::Str(s.clone()),
        J::Array(a) => Canon::List(a.iter().filter_map(canon_json).collect()),
        J::Object(o) => {
            let mut m = BTreeMap::new();
            for (k, v) in o {
                if k == "extra" {
                    if let J::Object(extra) = v {
                        for (ek, ev) in extra {
                            if let Some(c) = canon_json(ev) {
                                m.insert(ek.clone(), c);
                            }
                        }
                    }
                    continue;
                }
                // Flags that default to false are simply absent from the metadata.
                let default_false = matches!(
                    k.as_str(),
                    "is_const" | "is_restrict" | "is_volatile" | "is_pipe"
                );
                if default_false && v == &J::Bool(false) {
                    continue;
                }
                if let Some(c) = canon_json(v) {
                    m.insert(format!(".{k}"), c);
                }
            }
            Canon::Map(m)
        }
    })
}

fn canon_kernel(k: &KernelMetadata) -> Canon {
    canon_json(&serde_json::to_value(k).unwrap()).unwrap()
}

/// The msgpack metadata against the YAML llvm-readelf-19 --notes prints for it: every key, every
/// value, for every kernel and argument; plus the descriptor's consistency with it.
#[test]
fn metadata_matches_readelf_notes() {
    for (stem, file) in golden_objects() {
        let co = load(&file);
        let re = parse_readelf(&read_text(&format!("{stem}.readelf.txt")));
        let docs = YamlLoader::load_from_str(&re.notes_yaml).unwrap();
        let doc = &docs[0];
        let md: &Metadata = co.metadata.as_ref().unwrap();
        assert_eq!(
            md.version
                .as_ref()
                .unwrap()
                .iter()
                .map(|&v| v as i64)
                .collect::<Vec<_>>(),
            doc["amdhsa.version"]
                .as_vec()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect::<Vec<_>>(),
            "{stem}"
        );
        assert_eq!(
            md.target.as_deref(),
            doc["amdhsa.target"].as_str(),
            "{stem}"
        );
        let yaml_kernels = doc["amdhsa.kernels"].as_vec().unwrap();
        assert_eq!(yaml_kernels.len(), md.kernels.len(), "{stem}");
        for yk in yaml_kernels {
            let symbol = yk[".symbol"].as_str().unwrap();
            let ours = md.kernels.iter().find(|k| k.symbol == symbol).unwrap();
            assert_eq!(canon_kernel(ours), canon_yaml(yk), "{stem}: {symbol}");

            // The kernel's copy, and the descriptor's agreement with the metadata.
            let k = co.kernel(symbol).unwrap();
            assert_eq!(k.metadata.as_ref(), Some(ours));
            let d = &k.descriptor;
            assert_eq!(
                Some(u64::from(d.kernarg_size)),
                ours.kernarg_segment_size,
                "{stem}"
            );
            assert_eq!(
                Some(u64::from(d.group_segment_fixed_size)),
                ours.group_segment_fixed_size,
                "{stem}"
            );
            assert_eq!(
                Some(u64::from(d.private_segment_fixed_size)),
                ours.private_segment_fixed_size,
                "{stem}"
            );
            assert_eq!(
                Some(u64::from(d.wave_size())),
                ours.wavefront_size,
                "{stem}"
            );
            let vgprs = ours.vgpr_count.unwrap().max(1);
            let granule = u64::from(d.vgpr_granule());
            assert_eq!(
                u64::from(d.compute_pgm_rsrc1.granulated_workitem_vgpr_count),
                vgprs.div_ceil(granule) - 1,
                "{stem}: vgpr granule"
            );
            // LLVM still fills the (gfx10-reserved) SGPR granule, in blocks of 8 — the compiler does; the
            // assembler (calls_scall, lanemask, lanemask_w64, laneloop, mwloop, mwloop_w64, kload, chain,
            // symskip, sharedvgpr_w64:
            // built from a .s) fills it from .amdhsa_next_free_sgpr instead.
            let sgprs = ours.sgpr_count.unwrap().max(1);
            if ![
                "calls_scall",
                "lanemask",
                "lanemask_w64",
                "laneloop",
                "mwloop",
                "mwloop_w64",
                "kload",
                "chain",
                "symskip",
                "sharedvgpr_w64",
            ]
            .contains(&stem.as_str())
            {
                assert_eq!(
                    u64::from(d.compute_pgm_rsrc1.granulated_wavefront_sgpr_count),
                    sgprs.div_ceil(8) - 1,
                    "{stem}: sgpr granule"
                );
            }
            assert_eq!(
                Some(d.compute_pgm_rsrc1.wgp_mode),
                ours.workgroup_processor_mode
                    .or(Some(d.compute_pgm_rsrc1.wgp_mode)),
                "{stem}"
            );
            assert_eq!(
                Some(d.kernel_code_properties.uses_dynamic_stack),
                ours.uses_dynamic_stack.or(Some(false))
            );
        }
    }
}

/// The code bytes against llvm-objdump's listing of the same addresses.
#[test]
fn code_matches_objdump() {
    for (stem, file) in golden_objects() {
        let co = load(&file);
        let (labels, insns) = parse_objdump(&read_text(&format!("{stem}.objdump.txt")));
        for k in &co.kernels {
            assert!(
                labels
                    .iter()
                    .any(|(a, n)| *a == k.code_address && *n == k.name),
                "{stem}: no objdump label {} at {:#x}",
                k.name,
                k.code_address
            );
            let words = k.code_words();
            let end = k.code_address + k.code_size;
            let mut covered = 0u64;
            for (addr, ws) in insns
                .iter()
                .filter(|(a, _)| *a >= k.code_address && *a < end)
            {
                for (i, w) in ws.iter().enumerate() {
                    let at = ((addr - k.code_address) / 4) as usize + i;
                    assert_eq!(
                        words[at],
                        *w,
                        "{stem}: {} word at {:#x}",
                        k.name,
                        addr + 4 * i as u64
                    );
                }
                covered += 4 * ws.len() as u64;
            }
            assert_eq!(
                covered, k.code_size,
                "{stem}: {}: objdump covers every byte",
                k.name
            );
        }
    }
}
