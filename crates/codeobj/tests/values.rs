//! Hand-checked values for particular fixtures. Each number was copied from the output of
//! `llvm-readelf-19 --file-header --symbols --notes <file>` or from the `.amdhsa_*` directives of
//! `clang-19 -S` / `hipcc -S` for the same source and flags (fixtures/kernels/<stem>.readelf.txt
//! and <stem>.s hold those outputs).

mod common;

use common::read;
use rdna2spv_codeobj::bundle;
use rdna2spv_codeobj::{
    describe, AddressSpace, CodeExtent, CodeObject, FeatureSetting, Gpu, LoadError, SgprKind,
    ValueKind, VgprKind,
};

fn load(name: &str) -> CodeObject {
    CodeObject::parse(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn sgprs(slots: &[rdna2spv_codeobj::SgprSlot]) -> Vec<(SgprKind, u32, u32)> {
    slots.iter().map(|s| (s.kind, s.first, s.count)).collect()
}

#[test]
fn saxpy_v5() {
    let co = load("saxpy.co");
    // readelf -h: "ABI Version: 3", "Flags: 0x36, gfx1030".
    assert_eq!(co.code_object_version, 5);
    assert_eq!(co.abi_version, 3);
    assert_eq!(co.target.gpu, Gpu::Gfx1030);
    assert_eq!(co.target.mach, 0x36);
    assert_eq!(co.target.xnack, FeatureSetting::Unsupported);
    assert_eq!(co.elf_type, 3);
    let md = co.metadata.as_ref().unwrap();
    assert_eq!(md.version, Some(vec![1, 2]));
    assert_eq!(md.target.as_deref(), Some("amdgcn-amd-amdhsa--gfx1030"));

    let k = co.kernel("saxpy").unwrap();
    // readelf -s: "saxpy.kd OBJECT 0x800 size 64", "saxpy FUNC 0x1900 size 120".
    assert_eq!(k.descriptor_address, 0x800);
    assert_eq!(k.code_address, 0x1900);
    assert_eq!(k.code_size, 120);
    assert_eq!(k.code_extent, CodeExtent::Symbol);
    assert_eq!(k.descriptor.kernel_code_entry_byte_offset, 0x1100);
    // First and last instruction words (llvm-objdump: s_clause 0x1 = BFA10001, s_endpgm = BF810000).
    assert_eq!(k.code_words().first(), Some(&0xBFA1_0001));
    assert_eq!(k.code_words().last(), Some(&0xBF81_0000));

    // clang-19 -S: .amdhsa_kernarg_size 280, .amdhsa_user_sgpr_count 6, .amdhsa_wavefront_size32 1,
    // .amdhsa_next_free_vgpr 4, float_denorm_mode_32/16_64 3, dx10_clamp 1, ieee_mode 1,
    // workgroup_processor_mode 1, memory_ordered 1.
    let d = &k.descriptor;
    assert_eq!(d.kernarg_size, 280);
    assert_eq!(d.compute_pgm_rsrc1.raw, 0x60af_0040);
    assert_eq!(d.compute_pgm_rsrc2.raw, 0x0000_008c);
    assert_eq!(d.kernel_code_properties.raw, 0x0409);
    assert_eq!(d.compute_pgm_rsrc2.user_sgpr_count, 6);
    assert_eq!(d.wave_size(), 32);
    assert_eq!(d.vgpr_count(), 8);
    assert_eq!(
        sgprs(&k.abi.user_sgprs),
        [
            (SgprKind::PrivateSegmentBuffer, 0, 4),
            (SgprKind::KernargSegmentPtr, 4, 2)
        ]
    );
    assert_eq!(sgprs(&k.abi.system_sgprs), [(SgprKind::WorkgroupIdX, 6, 1)]);
    assert_eq!(k.abi.initial_sgpr_count, 7);
    assert_eq!(k.abi.workitem_id_vgprs.len(), 1);
    assert_eq!(k.abi.workitem_id_vgprs[0].kind, VgprKind::WorkitemIdX);

    // readelf --notes: args at 0/8/16, then the COV5 hidden arguments.
    let m = k.metadata.as_ref().unwrap();
    assert_eq!(m.kernarg_segment_size, Some(280));
    assert_eq!(m.kernarg_segment_align, Some(8));
    assert_eq!(m.wavefront_size, Some(32));
    assert_eq!(m.sgpr_count, Some(10));
    assert_eq!(m.vgpr_count, Some(4));
    assert_eq!(m.max_flat_workgroup_size, Some(256));
    assert_eq!(m.workgroup_processor_mode, Some(true));
    let explicit: Vec<(u64, u64, ValueKind)> = m
        .explicit_args()
        .map(|a| (a.offset, a.size, a.value_kind.clone()))
        .collect();
    assert_eq!(
        explicit,
        [
            (0, 4, ValueKind::ByValue),
            (8, 8, ValueKind::GlobalBuffer),
            (16, 8, ValueKind::GlobalBuffer)
        ]
    );
    assert_eq!(m.args[0].type_name.as_deref(), Some("float"));
    assert_eq!(m.args[1].type_name.as_deref(), Some("float*"));
    assert!(m.args[1].is_const && !m.args[2].is_const);
    assert_eq!(m.args[1].address_space, Some(AddressSpace::Global));
    let hidden: Vec<(u64, u64, &str)> = m
        .hidden_args()
        .map(|a| (a.offset, a.size, a.value_kind.as_str()))
        .collect();
    assert_eq!(
        hidden,
        [
            (24, 4, "hidden_block_count_x"),
            (28, 4, "hidden_block_count_y"),
            (32, 4, "hidden_block_count_z"),
            (36, 2, "hidden_group_size_x"),
            (38, 2, "hidden_group_size_y"),
            (40, 2, "hidden_group_size_z"),
            (42, 2, "hidden_remainder_x"),
            (44, 2, "hidden_remainder_y"),
            (46, 2, "hidden_remainder_z"),
            (64, 8, "hidden_global_offset_x"),
            (72, 8, "hidden_global_offset_y"),
            (80, 8, "hidden_global_offset_z"),
            (88, 2, "hidden_grid_dims"),
        ]
    );
    assert_eq!(
        m.arg_of_kind(&ValueKind::HiddenGroupSizeX)
            .map(|a| a.offset),
        Some(0x24)
    );
}

#[test]
fn hipcc_v4_and_its_bundle() {
    let co = load("saxpy_hip.co");
    // readelf -h: "ABI Version: 2" (code object v4); hipcc -S: .amdhsa_user_sgpr_count 8,
    // .amdhsa_user_sgpr_dispatch_ptr 1, .amdhsa_kernarg_size 28.
    assert_eq!(co.code_object_version, 4);
    assert_eq!(co.metadata.as_ref().unwrap().version, Some(vec![1, 1]));
    let k = co.kernel("saxpy").unwrap();
    assert_eq!(k.descriptor.kernarg_size, 28);
    assert_eq!(k.descriptor.compute_pgm_rsrc2.user_sgpr_count, 8);
    assert_eq!(
        sgprs(&k.abi.user_sgprs),
        [
            (SgprKind::PrivateSegmentBuffer, 0, 4),
            (SgprKind::DispatchPtr, 4, 2),
            (SgprKind::KernargSegmentPtr, 6, 2)
        ]
    );
    assert_eq!(sgprs(&k.abi.system_sgprs), [(SgprKind::WorkgroupIdX, 8, 1)]);
    let m = k.metadata.as_ref().unwrap();
    // readelf --notes: no hidden arguments in this v4 object, 4 explicit ones, no arg names.
    let args: Vec<(u64, u64)> = m.args.iter().map(|a| (a.offset, a.size)).collect();
    assert_eq!(args, [(0, 4), (8, 8), (16, 8), (24, 4)]);
    assert_eq!(m.hidden_args().count(), 0);
    assert_eq!(m.max_flat_workgroup_size, Some(1024));
    assert_eq!(m.language.as_deref(), Some("OpenCL C"));
    assert_eq!(m.language_version, Some(vec![2, 0]));
    assert_eq!((k.code_address, k.code_size), (0x1700, 168));

    // The bundle holds exactly this object next to an empty host entry.
    let raw = read("saxpy_hip.bundle");
    let entries = bundle::extract(&raw).unwrap();
    let triples: Vec<&str> = entries.iter().map(|e| e.triple.as_str()).collect();
    assert_eq!(
        triples,
        [
            "host-x86_64-unknown-linux",
            "hipv4-amdgcn-amd-amdhsa--gfx1030"
        ]
    );
    assert!(entries[0].data.is_empty());
    assert_eq!(entries[1].data, &read("saxpy_hip.co")[..]);
    assert_eq!(entries[1].target_id(), "gfx1030");
    let from_bundle = CodeObject::parse_any(&raw).unwrap();
    assert_eq!(
        from_bundle.bundle_triple.as_deref(),
        Some("hipv4-amdgcn-amd-amdhsa--gfx1030")
    );
    assert_eq!(from_bundle.kernels, co.kernels);
    // The host object keeps the same bundle in its .hip_fatbin section.
    let host = read("saxpy_hip_host.o");
    assert!(matches!(
        CodeObject::parse(&host),
        Err(LoadError::NotAmdgpu { machine: 62 })
    ));
    let device = read("saxpy_hip.co");
    assert!(host.windows(device.len()).any(|w| w == &device[..]));
    let from_host = CodeObject::parse_any(&host).unwrap();
    assert_eq!(
        from_host.bundle_triple.as_deref(),
        Some("hipv4-amdgcn-amd-amdhsa--gfx1030")
    );
    assert_eq!(from_host.kernels, co.kernels);
    // parse() itself refuses a bundle, with a hint.
    match CodeObject::parse(&raw) {
        Err(LoadError::NotElf { hint: Some(h) }) => assert!(h.contains("parse_any"), "{h}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn clang_cov4() {
    // clang-19 -mcode-object-version=4: ABI version 2, dispatch ptr in s[4:5], kernarg in s[6:7].
    let co = load("saxpy_cov4.co");
    assert_eq!(co.code_object_version, 4);
    let k = co.kernel("saxpy").unwrap();
    assert!(k.descriptor.kernel_code_properties.enable_sgpr_dispatch_ptr);
    assert_eq!(k.abi.user_sgpr_count, 8);
    assert_eq!(k.metadata.as_ref().unwrap().kernarg_segment_size, Some(24));
}

#[test]
fn wave64_builds() {
    // clang-19 -mwavefrontsize64 -S: .amdhsa_wavefront_size32 0; metadata .wavefront_size 64.
    for (w32, w64) in [
        ("divergent.co", "divergent_w64.co"),
        ("reduce.co", "reduce_w64.co"),
    ] {
        let a = load(w32);
        let b = load(w64);
        assert_eq!(a.kernels[0].descriptor.wave_size(), 32, "{w32}");
        assert_eq!(b.kernels[0].descriptor.wave_size(), 64, "{w64}");
        assert_eq!(b.kernels[0].abi.wave_size, 64);
        assert_eq!(
            b.kernels[0].metadata.as_ref().unwrap().wavefront_size,
            Some(64)
        );
        assert_eq!(b.kernels[0].descriptor.vgpr_granule(), 4);
    }
    // divergent_w64: .amdhsa_next_free_vgpr 6 -> granulated (6+3)/4-1 = 1 -> 8 VGPRs.
    let k = &load("divergent_w64.co").kernels[0];
    assert_eq!(
        k.descriptor
            .compute_pgm_rsrc1
            .granulated_workitem_vgpr_count,
        1
    );
    assert_eq!(k.descriptor.vgpr_count(), 8);
}

#[test]
fn lds_scratch_and_3d_ids() {
    // reduce: .amdhsa_group_segment_fixed_size 512, .reqd_workgroup_size [128, 1, 1].
    let k = load("reduce.co").kernel("reduce").unwrap().clone();
    assert_eq!(k.descriptor.group_segment_fixed_size, 512);
    assert_eq!(
        k.metadata.as_ref().unwrap().reqd_workgroup_size,
        Some(vec![128, 1, 1])
    );
    assert_eq!(
        k.metadata.as_ref().unwrap().max_flat_workgroup_size,
        Some(128)
    );

    // scratch: .amdhsa_private_segment_fixed_size 196, .amdhsa_user_sgpr_flat_scratch_init 1,
    // .amdhsa_system_sgpr_private_segment_wavefront_offset 1, .amdhsa_user_sgpr_count 8.
    let k = load("scratch.co").kernel("scratch").unwrap().clone();
    assert_eq!(k.descriptor.private_segment_fixed_size, 196);
    assert!(k.abi.scratch);
    assert_eq!(
        sgprs(&k.abi.user_sgprs),
        [
            (SgprKind::PrivateSegmentBuffer, 0, 4),
            (SgprKind::KernargSegmentPtr, 4, 2),
            (SgprKind::FlatScratchInit, 6, 2)
        ]
    );
    assert_eq!(
        sgprs(&k.abi.system_sgprs),
        [
            (SgprKind::WorkgroupIdX, 8, 1),
            (SgprKind::PrivateSegmentWaveOffset, 9, 1)
        ]
    );

    // ids3d: .amdhsa_system_sgpr_workgroup_id_{x,y,z} 1, .amdhsa_system_vgpr_workitem_id 2.
    let k = load("ids3d.co").kernel("ids3d").unwrap().clone();
    assert_eq!(
        sgprs(&k.abi.system_sgprs),
        [
            (SgprKind::WorkgroupIdX, 6, 1),
            (SgprKind::WorkgroupIdY, 7, 1),
            (SgprKind::WorkgroupIdZ, 8, 1)
        ]
    );
    let v: Vec<(VgprKind, u32)> = k
        .abi
        .workitem_id_vgprs
        .iter()
        .map(|s| (s.kind, s.vgpr))
        .collect();
    assert_eq!(
        v,
        [
            (VgprKind::WorkitemIdX, 0),
            (VgprKind::WorkitemIdY, 1),
            (VgprKind::WorkitemIdZ, 2)
        ]
    );
}

#[test]
fn several_kernels_and_a_helper_function() {
    // readelf -s: scale_store FUNC LOCAL 0x1e00 size 60; first 0x1f00 size 116; second 0x2000 size 136.
    let co = load("multi.co");
    assert_eq!(co.kernel_names(), ["first", "second"]);
    let first = co.kernel("first").unwrap();
    let second = co.kernel("second.kd").unwrap();
    assert_eq!((first.code_address, first.code_size), (0x1f00, 116));
    assert_eq!((second.code_address, second.code_size), (0x2000, 136));
    let helper = co.symbols.iter().find(|s| s.name == "scale_store").unwrap();
    assert_eq!((helper.value, helper.size), (0x1e00, 60));
    assert_eq!(
        co.symbol_at(0x1e00).map(|s| s.name.as_str()),
        Some("scale_store")
    );
    assert!(co.section(".text").unwrap().is_executable());

    match co.kernel("third") {
        Err(e @ LoadError::KernelNotFound { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("third") && msg.contains("first, second"),
                "{msg}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn code_extent_falls_back_to_next_symbol_and_section_end() {
    // Zero the st_size of every symbol in multi.co: the kernels must then end at the next symbol
    // (first -> second's entry) and at the end of .text (second).
    let mut bytes = read("multi.co");
    let co = CodeObject::parse(&bytes).unwrap();
    for table in co.sections.iter().filter(|s| s.kind == 2 || s.kind == 11) {
        for i in 0..table.size / 24 {
            let at = (table.offset + i * 24 + 16) as usize;
            bytes[at..at + 8].fill(0);
        }
    }
    let co2 = CodeObject::parse(&bytes).unwrap();
    let first = co2.kernel("first").unwrap();
    let second = co2.kernel("second").unwrap();
    assert_eq!(first.code_extent, CodeExtent::NextSymbol);
    assert_eq!(first.code_size, 0x100);
    assert_eq!(&first.code[..116], &co.kernel("first").unwrap().code[..]);
    assert_eq!(second.code_extent, CodeExtent::SectionEnd);
    let text = co2.section(".text").unwrap();
    assert_eq!(
        second.code_address + second.code_size,
        text.address + text.size
    );
}

#[test]
fn parse_all_finds_every_object() {
    for name in ["saxpy_hip.co", "saxpy_hip.bundle", "saxpy_hip_host.o"] {
        let all = CodeObject::parse_all(&read(name)).unwrap();
        assert_eq!(all.len(), 1, "{name}");
        assert_eq!(all[0].kernels, load("saxpy_hip.co").kernels, "{name}");
    }
    assert!(matches!(
        CodeObject::parse_all(b"junk"),
        Err(LoadError::NotElf { .. })
    ));
}

#[test]
fn describe_and_json() {
    for name in ["saxpy.co", "scratch.co", "saxpy_hip.co", "multi.co"] {
        let co = load(name);
        let text = describe(&co);
        for k in &co.kernels {
            assert!(
                text.contains(&format!("kernel {}", k.name)),
                "{name}:\n{text}"
            );
        }
        let json = serde_json::to_value(&co).unwrap();
        assert_eq!(json["target"]["gpu"], "gfx1030");
        assert!(json["kernels"][0]["descriptor"]["compute_pgm_rsrc1"]["priv"].is_boolean());
        assert!(json["kernels"][0].get("code").is_none());
    }
    let text = describe(&load("saxpy.co"));
    assert!(
        text.contains("s[0:3] private_segment_buffer, s[4:5] kernarg_segment_ptr"),
        "{text}"
    );
    assert!(text.contains("system SGPRs: s6 workgroup_id_x"), "{text}");
    assert!(text.contains("wave32"), "{text}");
    let json = serde_json::to_value(load("saxpy.co")).unwrap();
    assert_eq!(
        json["kernels"][0]["metadata"]["args"][3]["value_kind"],
        "hidden_block_count_x"
    );
    assert_eq!(
        json["kernels"][0]["abi"]["user_sgprs"][1]["kind"],
        "kernarg_segment_ptr"
    );
}

#[test]
fn structured_errors() {
    assert!(matches!(
        CodeObject::parse(b""),
        Err(LoadError::NotElf { hint: None })
    ));
    assert!(matches!(
        CodeObject::parse(b"hello world"),
        Err(LoadError::NotElf { .. })
    ));
    assert!(matches!(
        CodeObject::parse(b"\x7fELF\x02\x01"),
        Err(LoadError::Truncated { .. })
    ));

    let good = read("saxpy.co");
    let mut b = good.clone();
    b[4] = 1;
    assert!(matches!(
        CodeObject::parse(&b),
        Err(LoadError::UnsupportedElf { .. })
    ));
    let mut b = good.clone();
    b[18] = 62; // EM_X86_64
    assert!(matches!(
        CodeObject::parse(&b),
        Err(LoadError::NotAmdgpu { machine: 62 })
    ));
    assert!(matches!(
        CodeObject::parse_any(&b),
        Err(LoadError::NotAmdgpu { machine: 62 })
    ));
    let mut b = good.clone();
    b[7] = 65; // ELFOSABI_AMDGPU_PAL
    assert!(matches!(
        CodeObject::parse(&b),
        Err(LoadError::NotHsa { os_abi: 65 })
    ));
    let mut b = good.clone();
    b[8] = 0; // code object v2
    assert!(matches!(
        CodeObject::parse(&b),
        Err(LoadError::UnsupportedCodeObjectVersion { abi_version: 0 })
    ));
    // Cut inside the section header table.
    assert!(CodeObject::parse(&good[..good.len() - 100]).is_err());

    // Corrupt the metadata note's msgpack.
    let co = CodeObject::parse(&good).unwrap();
    let note = co.section(".note").unwrap();
    let mut b = good.clone();
    let desc_start = note.offset as usize + 12 + 8; // header + "AMDGPU\0" padded to 8
    b[desc_start] = 0xc1; // never-used msgpack marker
    assert!(matches!(
        CodeObject::parse(&b),
        Err(LoadError::BadMetadata { .. })
    ));

    // A descriptor symbol pointing outside every section.
    let mut b = good.clone();
    let symtab = co.sections.iter().find(|s| s.name == ".symtab").unwrap();
    for i in 0..symtab.size / 24 {
        let at = (symtab.offset + i * 24) as usize;
        let value = u64::from_le_bytes(b[at + 8..at + 16].try_into().unwrap());
        if value == 0x800 {
            b[at + 8..at + 16].copy_from_slice(&0xdead_0000u64.to_le_bytes());
        }
    }
    let dynsym = co.sections.iter().find(|s| s.name == ".dynsym").unwrap();
    for i in 0..dynsym.size / 24 {
        let at = (dynsym.offset + i * 24) as usize;
        let value = u64::from_le_bytes(b[at + 8..at + 16].try_into().unwrap());
        if value == 0x800 {
            b[at + 8..at + 16].copy_from_slice(&0xdead_0000u64.to_le_bytes());
        }
    }
    assert!(
        matches!(CodeObject::parse(&b), Err(LoadError::OutOfRange { .. })),
        "{:?}",
        CodeObject::parse(&b)
    );

    // Bundles.
    assert!(matches!(
        CodeObject::parse_any(b"__CLANG_OFFLOAD_BUNDLE__"),
        Err(LoadError::Truncated { .. })
    ));
    let mut only_host = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    only_host.extend(1u64.to_le_bytes());
    only_host.extend(0u64.to_le_bytes());
    only_host.extend(0u64.to_le_bytes());
    only_host.extend(4u64.to_le_bytes());
    only_host.extend(b"host");
    match CodeObject::parse_any(&only_host) {
        Err(LoadError::NoAmdgpuCodeObject { triples }) => assert_eq!(triples, ["host"]),
        other => panic!("{other:?}"),
    }
}

/// Debian's rocSPARSE 5.3 (`apt-get install librocsparse0`): 777 code objects for 7 targets in
/// one `.hip_fatbin`, 111 of them gfx1030. Slow in debug builds, so run it on demand:
/// `cargo test -p rdna2spv-codeobj --release -- --ignored rocsparse`.
#[test]
#[ignore = "needs Debian librocsparse0 and a release build: cargo test -p rdna2spv-codeobj --release -- --ignored rocsparse"]
fn rocsparse_fat_binary() {
    let path = "/usr/lib/x86_64-linux-gnu/librocsparse.so.0";
    let Ok(bytes) = std::fs::read(path) else {
        eprintln!("{path} not installed; skipped");
        return;
    };
    let all = CodeObject::parse_all(&bytes).unwrap();
    let gfx1030: Vec<&CodeObject> = all
        .iter()
        .filter(|c| c.target.gpu == Gpu::Gfx1030)
        .collect();
    assert_eq!(gfx1030.len(), 111);
    let kernels: usize = gfx1030.iter().map(|c| c.kernels.len()).sum();
    assert_eq!(kernels, 12_591);
    for co in &gfx1030 {
        assert_eq!(co.code_object_version, 4);
        for k in &co.kernels {
            let m = k.metadata.as_ref().expect("metadata");
            assert_eq!(
                m.kernarg_segment_size,
                Some(u64::from(k.descriptor.kernarg_size))
            );
            assert_eq!(m.wavefront_size, Some(u64::from(k.descriptor.wave_size())));
            assert_eq!(k.code_extent, CodeExtent::Symbol);
        }
    }
}

#[test]
fn unlinked_object() {
    // clang-19 -c multi.cl: ET_REL, every address section-relative; readelf -s: first at 0x100
    // (116 bytes), second at 0x200 (136 bytes) in .text; the descriptors' entry offsets are 0,
    // left to R_AMDGPU_REL64 relocations.
    let rel = load("multi_rel.o");
    let linked = load("multi.co");
    assert_eq!(rel.elf_type, 1);
    assert_eq!(rel.kernel_names(), linked.kernel_names());
    let first = rel.kernel("first").unwrap();
    assert_eq!((first.code_address, first.code_size), (0x100, 116));
    let second = rel.kernel("second").unwrap();
    assert_eq!((second.code_address, second.code_size), (0x200, 136));
    for (a, b) in rel.kernels.iter().zip(&linked.kernels) {
        assert_eq!(a.descriptor.kernel_code_entry_byte_offset, 0);
        assert_eq!(
            a.descriptor.compute_pgm_rsrc1,
            b.descriptor.compute_pgm_rsrc1
        );
        assert_eq!(
            a.descriptor.compute_pgm_rsrc2,
            b.descriptor.compute_pgm_rsrc2
        );
        assert_eq!(a.abi, b.abi);
        assert_eq!(a.metadata, b.metadata);
        // Only the two relocated literal words of the call differ.
        let (wa, wb) = (a.code_words(), b.code_words());
        assert_eq!(wa.len(), wb.len());
        let differing = wa.iter().zip(&wb).filter(|(x, y)| x != y).count();
        assert!(differing <= 2, "{}: {differing} words differ", a.name);
    }
}
