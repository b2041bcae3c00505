//! Every lowering path must give a module `spirv-val --target-env vulkan1.3` accepts — including the
//! paths lavapipe never takes (a profile with fused FMAs and saturating conversions, F64Fma).

use std::io::Write;
use std::process::Command;

use rdna2spv_ir::{
    Access, Block, FloatOp, Inst, IntOp, Node, Program, Space, Terminator, Ty, UnOp,
};
use rdna2spv_spirv::lower::{
    lower, lower_with, KernelLayout, Lanes, LowerOptions, Mapping, SgprInit, Unaligned,
};
use rdna2spv_spirv::{DeviceProfile, FloatToInt};

fn spirv_val(name: &str, words: &[u32]) {
    let dir = std::env::temp_dir().join(format!("rdna2spv-lower-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.spv"));
    let mut f = std::fs::File::create(&path).unwrap();
    for w in words {
        f.write_all(&w.to_le_bytes()).unwrap();
    }
    drop(f);
    let out = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("spirv-val could not be run ({e}); install spirv-tools"));
    assert!(
        out.status.success(),
        "spirv-val rejected {name}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_file(&path);
}

/// One instruction per float primitive, each result written to a VGPR, then stored.
fn program(ws: u32) -> Program {
    let mut p = Program {
        name: "all_floats".into(),
        wave_size: ws,
        ..Default::default()
    };
    let mut insts = Vec::new();
    let mut inst = |p: &mut Program, f: &dyn Fn(&mut Program)| {
        let start = p.nodes.len() as u32;
        f(p);
        insts.push(Inst {
            pc: 4 * insts.len() as u32,
            text: "test".into(),
            nodes: start..p.nodes.len() as u32,
            encoding: None,
        });
    };
    for op in [
        FloatOp::F32Add,
        FloatOp::F32Fma,
        FloatOp::F32LegacyMad,
        FloatOp::F16Add,
        FloatOp::F16FmaToHalf,
        FloatOp::F64Add,
        FloatOp::F64Fma,
        FloatOp::F32Div,
        FloatOp::F32Sqrt,
        FloatOp::F32FmaLdexp(-64),
    ] {
        inst(&mut p, &|p: &mut Program| {
            let ty = op.ty();
            let read = |p: &mut Program, reg: u16| {
                let v = p.nodes.push(Node::ReadVgpr {
                    reg,
                    ty: if ty == Ty::B64 { Ty::B64 } else { Ty::B32 },
                });
                if ty == Ty::B16 {
                    p.nodes.push(Node::Extract {
                        ty: Ty::B16,
                        a: v,
                        shift: 0,
                    })
                } else {
                    v
                }
            };
            let (a, b, c) = (read(p, 2), read(p, 4), read(p, 6));
            let r = p.nodes.push(Node::Float {
                op,
                args: [a, b, c],
            });
            let r = if ty == Ty::B16 {
                p.nodes.push(Node::Unary {
                    op: UnOp::ZExt,
                    ty: Ty::B32,
                    a: r,
                })
            } else {
                r
            };
            p.nodes.push(Node::WriteVgpr { reg: 8, value: r });
        });
    }
    inst(&mut p, &|p: &mut Program| {
        let x = p.nodes.push(Node::ReadVgpr {
            reg: 8,
            ty: Ty::B32,
        });
        let i = p.nodes.push(Node::Unary {
            op: UnOp::F32ToI32,
            ty: Ty::B32,
            a: x,
        });
        let base = p.nodes.push(Node::ReadSgpr {
            reg: 0,
            ty: Ty::B64,
        });
        let lane = p.nodes.push(Node::LaneId);
        let four = p.nodes.push(Node::Const {
            ty: Ty::B32,
            bits: 4,
        });
        let off = p.nodes.push(Node::Int {
            op: IntOp::Mul,
            ty: Ty::B32,
            a: lane,
            b: four,
        });
        let off = p.nodes.push(Node::Unary {
            op: UnOp::ZExt,
            ty: Ty::B64,
            a: off,
        });
        let addr = p.nodes.push(Node::Int {
            op: IntOp::Add,
            ty: Ty::B64,
            a: base,
            b: off,
        });
        p.nodes.push(Node::Store {
            space: Space::Global,
            access: Access::U16,
            addr,
            offset: 2,
            value: i,
        });
    });
    p.blocks.push(Block {
        start_pc: 0,
        insts,
        terminator: Terminator::End,
    });
    p
}

fn layout(ws: u32) -> KernelLayout {
    KernelLayout {
        wave_size: ws,
        workgroup: [64, 1, 1],
        sgprs: vec![(0, SgprInit::Const(0)), (1, SgprInit::Const(0))],
        workitem_id_vgprs: 1,
        lds_bytes: 0,
        scratch_bytes: 0,
        code_base: None,
    }
}

#[test]
fn fused_profile_paths_validate() {
    let mut fused = DeviceProfile::portable();
    fused.fma_f32_fused = true;
    fused.fma_f16_fused = true;
    fused.fma_f64_fused = true;
    fused.folds_add_zero = false;
    fused.folds_mul_one = false;
    fused.folds_mul_zero = false;
    fused.float_to_int = FloatToInt::Saturating;
    fused.has_float16 = true;
    fused.has_float64 = true;
    fused.has_int64 = true;
    for ws in [32, 64] {
        for lanes in [Lanes::Loop, Lanes::Unrolled] {
            let words = lower_with(
                &program(ws),
                &layout(ws),
                &fused,
                &LowerOptions {
                    lanes,
                    unaligned: Unaligned::Emulate,
                    ..Default::default()
                },
            )
            .expect("lowers with a fused profile");
            spirv_val(&format!("fused_w{ws}_{lanes:?}"), &words);
        }
        // Checked mode (the default of `run`, D158): every global access tested against 3 allocations.
        let words = lower_with(
            &program(ws),
            &layout(ws),
            &fused,
            &LowerOptions {
                checked: Some(3),
                ..Default::default()
            },
        )
        .expect("lowers in checked mode");
        spirv_val(&format!("checked_w{ws}"), &words);
        // Without fault records (D184: `run`'s first checked run): the flag alone.
        let words = lower_with(
            &program(ws),
            &layout(ws),
            &fused,
            &LowerOptions {
                checked: Some(3),
                check_flag_only: true,
                ..Default::default()
            },
        )
        .expect("lowers in checked mode without records");
        spirv_val(&format!("checked_flag_only_w{ws}"), &words);
    }
}

/// The lane mapping (decision D082) of the same program: one wave (workgroup 32/64) and several waves
/// (workgroup 64 in wave32: votes and `on` predication), both profiles.
#[test]
fn lane_mapping_validates() {
    let mut fused = DeviceProfile::portable();
    fused.fma_f32_fused = true;
    fused.has_float16 = true;
    for ws in [32, 64] {
        for wg in [ws, 128] {
            for prof in [DeviceProfile::portable(), fused.clone()] {
                let mut l = layout(ws);
                l.workgroup = [wg, 1, 1];
                let words = lower_with(
                    &program(ws),
                    &l,
                    &prof,
                    &LowerOptions {
                        mapping: Mapping::Lane,
                        ..Default::default()
                    },
                )
                .expect("lowers in the lane mapping");
                spirv_val(&format!("lane_w{ws}_wg{wg}"), &words);
                // Checked (the default of `run`, D158): every global access tested against 3
                // allocations, one fault record per lane.
                let words = lower_with(
                    &program(ws),
                    &l,
                    &prof,
                    &LowerOptions {
                        mapping: Mapping::Lane,
                        checked: Some(3),
                        ..Default::default()
                    },
                )
                .expect("lowers in the lane mapping, checked");
                spirv_val(&format!("lane_checked_w{ws}_wg{wg}"), &words);
                // Without fault records (D184).
                let words = lower_with(
                    &program(ws),
                    &l,
                    &prof,
                    &LowerOptions {
                        mapping: Mapping::Lane,
                        checked: Some(3),
                        check_flag_only: true,
                        ..Default::default()
                    },
                )
                .expect("lowers in the lane mapping, checked without records");
                spirv_val(&format!("lane_checked_flag_only_w{ws}_wg{wg}"), &words);
            }
        }
    }
}

#[test]
fn portable_profile_paths_validate() {
    // F64Fma (V_FMA_F64) lowers under plain portable too, by the integer emulation (decision D066; every
    // module declares Float64 and Int64).
    for ws in [32, 64] {
        let words = lower(&program(ws), &layout(ws), &DeviceProfile::portable())
            .expect("every float primitive lowers under the plain portable profile");
        spirv_val(&format!("plain_portable_w{ws}"), &words);
    }
    let mut portable = DeviceProfile::portable();
    portable.has_float64 = true;
    portable.has_int64 = true;
    for ws in [32, 64] {
        let words = lower(&program(ws), &layout(ws), &portable).expect(
            "every float primitive lowers under the portable profile with Float64 and Int64",
        );
        spirv_val(&format!("portable_w{ws}"), &words);
    }
}

#[test]
fn layout_must_match_the_program() {
    let e = lower(&program(32), &layout(64), &DeviceProfile::portable()).unwrap_err();
    assert!(e.to_string().contains("wave size"), "{e}");
}

/// Lowering time stays modest for a few thousand instructions (measured: 4,000 FMA/add instructions give
/// about 990k words in 0.6 s in a debug build; spirv-val then needs about a minute, so it checks 400).
#[test]
fn large_programs_lower_quickly() {
    let mut p = Program {
        name: "big".into(),
        wave_size: 32,
        ..Default::default()
    };
    let n = 400u32;
    let mut insts = Vec::new();
    for i in 0..n {
        let start = p.nodes.len() as u32;
        let a = p.nodes.push(Node::ReadVgpr {
            reg: (i % 50) as u16,
            ty: Ty::B32,
        });
        let k = p.nodes.push(Node::Const {
            ty: Ty::B32,
            bits: i as u64,
        });
        let r = p.nodes.push(Node::Float {
            op: if i % 2 == 0 {
                FloatOp::F32Fma
            } else {
                FloatOp::F32Add
            },
            args: [a, k, a],
        });
        p.nodes.push(Node::WriteVgpr {
            reg: ((i + 7) % 50) as u16,
            value: r,
        });
        insts.push(Inst {
            pc: 4 * i,
            text: "v_fma_f32".into(),
            nodes: start..p.nodes.len() as u32,
            encoding: None,
        });
    }
    p.blocks.push(Block {
        start_pc: 0,
        insts,
        terminator: Terminator::End,
    });
    let t = std::time::Instant::now();
    let words = lower(&p, &layout(32), &DeviceProfile::portable()).unwrap();
    let dt = t.elapsed();
    eprintln!("{n} instructions: {} words in {dt:?}", words.len());
    assert!(dt.as_secs() < 5, "lowering took {dt:?}");
    spirv_val("big", &words);
}

/// Without Float16 in the profile (the portable default), f16 arithmetic needs neither Float16 nor Int16.
#[test]
fn portable_f16_needs_no_float16_capability() {
    // Float64/Int64 on: the program holds an F64Fma (D016).
    let mut portable = DeviceProfile::portable();
    portable.has_float64 = true;
    portable.has_int64 = true;
    let words = lower(&program(32), &layout(32), &portable).unwrap();
    let m = rspirv::dr::load_words(&words).unwrap();
    let caps: Vec<_> = m
        .capabilities
        .iter()
        .map(|i| format!("{:?}", i.operands[0]))
        .collect();
    assert!(
        !caps
            .iter()
            .any(|c| c.contains("Float16") || c.contains("Int16")),
        "{caps:?}"
    );
    let mut with = portable.clone();
    with.has_float16 = true;
    // A device that may flush f16 subnormals narrows by integer work even with Float16 (D168).
    let words = lower(&program(32), &layout(32), &with).unwrap();
    let m = rspirv::dr::load_words(&words).unwrap();
    assert!(!m
        .capabilities
        .iter()
        .any(|i| format!("{:?}", i.operands[0]).contains("Float16")));
    with.preserves_subnormals_f16 = true;
    let words = lower(&program(32), &layout(32), &with).unwrap();
    let m = rspirv::dr::load_words(&words).unwrap();
    assert!(m
        .capabilities
        .iter()
        .any(|i| format!("{:?}", i.operands[0]).contains("Float16")));
}

/// D168: a device that may flush f32 subnormals but honours `DenormPreserve 32` gets a module that requests
/// that execution mode (capability and mode, accepted by spirv-val) and uses the device's f32 arithmetic;
/// without the mode the f32 arithmetic is emulated in f64 and no mode is requested.
#[test]
fn denorm_preserve_is_requested_where_honoured() {
    let mut prof = DeviceProfile::portable();
    prof.has_float64 = true;
    prof.has_int64 = true;
    let has_mode = |words: &[u32]| {
        let m = rspirv::dr::load_words(words).unwrap();
        let cap = m
            .capabilities
            .iter()
            .any(|i| format!("{:?}", i.operands[0]).contains("DenormPreserve"));
        let mode = m
            .execution_modes
            .iter()
            .any(|i| format!("{:?}", i.operands[1]).contains("DenormPreserve"));
        assert_eq!(cap, mode);
        mode
    };
    let emulated = lower(&program(32), &layout(32), &prof).unwrap();
    assert!(!has_mode(&emulated));
    prof.denorm_preserve_mode_honoured = true;
    let native = lower(&program(32), &layout(32), &prof).unwrap();
    assert!(has_mode(&native));
    spirv_val("denorm_preserve", &native);
    assert!(native.len() < emulated.len(), "the emulation is left out");
}

/// What a checked access costs in the module (D184), counted on the lane mapping of `program` (one global
/// store): the first checked run's module (no fault records) writes device memory exactly where the unchecked
/// module does — no record stores, which lavapipe runs as a loop over the SIMD lanes every time, fault or not
/// — and tests the access with one unsigned compare per allocation (D184; outside loops D189 leaves it so,
/// tests/checked_device.rs counts spmv's narrowed loop loads); the module with records adds the six record
/// words once, at the end (stored word by word, or as vectors since D226).
#[test]
fn checked_access_costs_one_compare_per_allocation() {
    use rspirv::dr::{Instruction, Operand};
    use spirv::Op;
    // (device-memory words written, OpULessThan on any type) of a module: a store of an N-component vector
    // writes N words (D226 stores consecutive words as one vector), of a 64-bit value two.
    fn counts(words: &[u32]) -> (usize, usize) {
        let m = rspirv::dr::load_words(words).expect("parses");
        let insts: Vec<&Instruction> = m
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .collect();
        let device_ptrs: std::collections::HashSet<u32> = insts
            .iter()
            .filter(|i| i.class.opcode == Op::ConvertUToPtr)
            .filter_map(|i| i.result_id)
            .collect();
        let type_of: std::collections::HashMap<u32, u32> = insts
            .iter()
            .filter_map(|i| Some((i.result_id?, i.result_type?)))
            .collect();
        // 32-bit words of a stored value's type: a u64 is two, a vector its components' words (D251
        // stores two and four consecutive words as a u64 and a `v2u64`).
        let ty = |t: Option<&u32>| {
            m.types_global_values
                .iter()
                .find(|i| i.result_id.as_ref() == t)
        };
        let words_of = |t: Option<&u32>| -> usize {
            let scalar =
                |t: Option<&Instruction>| match t.map(|i| (i.class.opcode, &i.operands[..])) {
                    Some((Op::TypeInt, [Operand::LiteralBit32(64), ..])) => 2,
                    _ => 1,
                };
            match ty(t) {
                Some(v) if v.class.opcode == Op::TypeVector => match v.operands[..] {
                    [Operand::IdRef(c), Operand::LiteralBit32(n)] => {
                        n as usize * scalar(ty(Some(&c)))
                    }
                    _ => 1,
                },
                t => scalar(t),
            }
        };
        let writes = insts
            .iter()
            .filter(|i| {
                matches!(
                    i.class.opcode,
                    Op::Store | Op::AtomicAnd | Op::AtomicOr | Op::AtomicExchange
                )
            })
            .filter(|i| matches!(i.operands.first(), Some(Operand::IdRef(p)) if device_ptrs.contains(p)))
            .map(|i| match (i.class.opcode, i.operands.get(1)) {
                (Op::Store, Some(Operand::IdRef(v))) => words_of(type_of.get(v)),
                _ => 1,
            })
            .sum();
        let ult = insts
            .iter()
            .filter(|i| i.class.opcode == Op::ULessThan)
            .count();
        (writes, ult)
    }
    for ws in [32, 64] {
        let lower = |checked: Option<u16>, check_flag_only: bool| {
            lower_with(
                &program(ws),
                &layout(ws),
                &DeviceProfile::portable(),
                &LowerOptions {
                    mapping: Mapping::Lane,
                    checked,
                    check_flag_only,
                    ..Default::default()
                },
            )
            .expect("lowers in the lane mapping")
        };
        let (w0, u0) = counts(&lower(None, false));
        let (w1, u1) = counts(&lower(Some(3), true));
        let (w2, u2) = counts(&lower(Some(3), false));
        assert_eq!(
            w1, w0,
            "wave{ws}: the record-free checked module writes what the unchecked one does"
        );
        // The access is formed from s[0:1] but is in no loop, where D189's narrowing would cost about what
        // it saves: one compare per allocation, as with records.
        assert_eq!(
            u1,
            u0 + 3,
            "wave{ws}: one compare per allocation (3) for the one global access"
        );
        assert_eq!(
            w2,
            w0 + 6,
            "wave{ws}: the module with records writes the six record words"
        );
        assert_eq!(
            u2,
            u0 + 3,
            "wave{ws}: with records, one compare per allocation (3)"
        );
    }
}
