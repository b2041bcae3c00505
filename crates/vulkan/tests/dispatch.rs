//! Buffers with device addresses, dispatch, caching and errors on lavapipe.

mod common;

use std::time::Duration;

use rdna2spv_vulkan::kernel::{KernelBuilder, PushArgs};
use rdna2spv_vulkan::profile::modules;
use rdna2spv_vulkan::{Context, DeviceSelector, DispatchOptions, Error};

#[test]
fn bda_round_trip_over_64_kib() {
    let ctx = common::lavapipe();
    let n = 64 * 1024 / 4;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0xffff_0000)
        .collect();
    let mut inp = ctx.create_buffer(64 * 1024).unwrap();
    inp.upload_u32(0, &input).unwrap();
    let out = ctx.create_buffer(64 * 1024).unwrap();
    assert_ne!(inp.device_address(), 0);
    assert_ne!(inp.device_address(), out.device_address());
    let words = modules::add_one_u32();
    common::spirv_val("add_one_u32", &words);
    let args = PushArgs {
        input: inp.device_address(),
        output: out.device_address(),
        count: n as u32,
        param: 0,
    };
    let first = ctx
        .dispatch(&words, "main", args.workgroups(), &args.to_bytes())
        .unwrap();
    assert!(!first.pipeline_cached);
    // The dispatch's CPU time is reported on Linux (lavapipe's workers run in this process).
    if cfg!(target_os = "linux") {
        assert!(first.dispatch_cpu.is_some(), "{first:?}");
    }
    let got = out.download_u32(0, n).unwrap();
    let wrong = got
        .iter()
        .zip(&input)
        .filter(|(g, i)| **g != i.wrapping_add(1))
        .count();
    assert_eq!(wrong, 0, "{wrong} of {n} words wrong");
    // The same module again comes from the cache.
    let second = ctx
        .dispatch(&words, "main", args.workgroups(), &args.to_bytes())
        .unwrap();
    assert!(second.pipeline_cached);
    assert_eq!(second.pipeline_create, Duration::ZERO);
    println!("first: {first:?}\nsecond: {second:?}");
}

#[test]
fn bad_spirv_comes_back_as_an_error() {
    let ctx = common::lavapipe();
    let good = modules::add_one_u32();
    let cases: Vec<(&str, Vec<u32>, &str)> = vec![
        ("empty", vec![], "main"),
        ("garbage", vec![0xdead_beef; 64], "main"),
        ("truncated", good[..good.len() / 2].to_vec(), "main"),
        (
            "bad version",
            {
                let mut w = good.clone();
                w[1] = 0x0002_0000;
                w
            },
            "main",
        ),
        ("missing entry point", good.clone(), "nope"),
        ("entry with NUL", good.clone(), "ma\0in"),
    ];
    for (what, words, entry) in cases {
        let r = ctx.dispatch(&words, entry, [1, 1, 1], &[0; 24]);
        assert!(
            matches!(r, Err(Error::InvalidSpirv(_))),
            "{what}: expected InvalidSpirv, got {r:?}"
        );
    }
    // Parses and has the entry point, but uses an undefined id: the driver refuses the pipeline.
    let mut m = rspirv::dr::load_words(&good).unwrap();
    for b in &mut m.functions[0].blocks {
        for i in &mut b.instructions {
            if i.class.opcode == spirv::Op::IAdd {
                i.operands[0] = rspirv::dr::Operand::IdRef(9999);
            }
        }
    }
    let undefined = rspirv::binary::Assemble::assemble(&m);
    let r = ctx.dispatch(&undefined, "main", [1, 1, 1], &[0; 24]);
    assert!(
        matches!(r, Err(Error::InvalidSpirv(_))),
        "undefined id: expected InvalidSpirv, got {r:?}"
    );
    // The context still works afterwards.
    let out = ctx.create_buffer(4).unwrap();
    let inp = ctx.buffer_from_bytes(&41u32.to_le_bytes()).unwrap();
    let args = PushArgs {
        input: inp.device_address(),
        output: out.device_address(),
        count: 1,
        param: 0,
    };
    ctx.dispatch(&good, "main", [1, 1, 1], &args.to_bytes())
        .unwrap();
    assert_eq!(out.download_u32(0, 1).unwrap(), [42]);
}

#[test]
fn bad_arguments_come_back_as_errors() {
    let ctx = common::lavapipe();
    let good = modules::add_one_u32();
    let too_big = vec![0u8; ctx.push_constant_size() as usize + 4];
    assert!(matches!(
        ctx.dispatch(&good, "main", [1, 1, 1], &too_big),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        ctx.dispatch(&good, "main", [1, 1, 1], &[0; 3]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        ctx.dispatch(&good, "main", [0, 1, 1], &[0; 24]),
        Err(Error::InvalidArgument(_))
    ));
    // lavapipe's subgroups are 8 wide: asking for a wave of 32 is refused, not silently ignored.
    let r = ctx.dispatch_with(
        &modules::subgroup_size(),
        "main",
        [1, 1, 1],
        &[0; 24],
        &DispatchOptions {
            required_subgroup_size: Some(32),
            ..Default::default()
        },
    );
    assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    let mut b = ctx.create_buffer(8).unwrap();
    assert!(b.upload(4, &[0; 8]).is_err());
    assert!(b.download(9, 0).is_err());
    assert!(ctx.create_buffer(0).is_err());
}

#[test]
fn device_selection_errors_are_clear() {
    let e = Context::new(DeviceSelector::NameContains("no such device 1234".into())).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Error::NoDevice(_)), "{text}");
    assert!(text.contains("devices seen"), "{text}");
    let e = Context::new(DeviceSelector::Index(999)).unwrap_err();
    assert!(matches!(e, Error::NoDevice(_)));
    let list = Context::enumerate_devices().unwrap();
    assert!(list.iter().any(|d| d.name.contains("llvmpipe")), "{list:?}");
}

/// A kernel where each invocation spins `param` rounds storing to memory (volatile).
fn busy_kernel() -> Vec<u32> {
    let mut k = KernelBuilder::new(&[]);
    let u = k.t.u32;
    let n = k.param();
    let var = k.function_variable(u);
    let zero = k.const32(u, 0);
    let one = k.const32(u, 1);
    k.b.store(var, zero, None, []).unwrap();
    let (header, body, cont, merge) = (k.b.id(), k.b.id(), k.b.id(), k.b.id());
    k.b.branch(header).unwrap();
    k.b.begin_block(Some(header)).unwrap();
    let i = k.b.load(u, None, var, None, []).unwrap();
    let go = k.b.u_less_than(k.t.bool, None, i, n).unwrap();
    k.b.loop_merge(merge, cont, spirv::LoopControl::NONE, [])
        .unwrap();
    k.b.branch_conditional(go, body, merge, []).unwrap();
    k.b.begin_block(Some(body)).unwrap();
    let i = k.b.load(u, None, var, None, []).unwrap();
    let next = k.b.i_add(u, None, i, one).unwrap();
    k.store_output(u, next, 4, 4, 0, true);
    k.b.store(var, next, None, []).unwrap();
    k.b.branch(cont).unwrap();
    k.b.begin_block(Some(cont)).unwrap();
    k.b.branch(header).unwrap();
    k.b.begin_block(Some(merge)).unwrap();
    k.finish()
}

#[test]
fn a_dispatch_past_its_timeout_is_an_error_and_poisons_the_context() {
    let ctx = common::lavapipe();
    let words = busy_kernel();
    common::spirv_val("busy", &words);
    let out = ctx.create_buffer(4096 * 4).unwrap();
    let inp = ctx.create_buffer(4).unwrap();
    let args = PushArgs {
        input: inp.device_address(),
        output: out.device_address(),
        count: 4096,
        param: 60_000,
    };
    let r = ctx.dispatch_with(
        &words,
        "main",
        args.workgroups(),
        &args.to_bytes(),
        &DispatchOptions {
            timeout: Some(Duration::from_micros(10)),
            ..Default::default()
        },
    );
    assert!(
        matches!(r, Err(Error::Timeout { first_dispatch: true, module_words, module_cost, .. })
            if module_words == words.len() && module_cost == rdna2spv_vulkan::limit::module_cost(&words)),
        "{r:?}"
    );
    // The message separates the pipeline's creation from the wait, and names the first dispatch, where
    // lavapipe compiles (D164).
    let text = r.unwrap_err().to_string();
    assert!(
        text.contains("pipeline creation took")
            && text.contains("the module's first dispatch")
            && text.contains(&format!("{} words", words.len())),
        "{text}"
    );
    let again = ctx.dispatch(&words, "main", [1, 1, 1], &args.to_bytes());
    assert!(matches!(again, Err(Error::Poisoned)), "{again:?}");
    // Dropping the buffers and the context leaks instead of freeing memory still in use.
}

#[test]
fn a_timeout_after_the_compile_says_the_wait_was_the_run() {
    let ctx = common::lavapipe();
    let words = busy_kernel();
    let out = ctx.create_buffer(4096 * 4).unwrap();
    let inp = ctx.create_buffer(4).unwrap();
    let mut args = PushArgs {
        input: inp.device_address(),
        output: out.device_address(),
        count: 64,
        param: 1,
    };
    // A short first dispatch compiles the pipeline; the long second one times out in its run.
    ctx.dispatch(&words, "main", args.workgroups(), &args.to_bytes())
        .unwrap();
    args.count = 4096;
    args.param = 60_000;
    let r = ctx.dispatch_with(
        &words,
        "main",
        args.workgroups(),
        &args.to_bytes(),
        &DispatchOptions {
            timeout: Some(Duration::from_micros(10)),
            ..Default::default()
        },
    );
    let text = r.unwrap_err().to_string();
    assert!(
        text.contains("compiled by an earlier dispatch") && text.contains("the kernel's run"),
        "{text}"
    );
}

#[test]
fn a_module_over_the_size_limit_never_reaches_the_driver() {
    let words = busy_kernel();
    let run = |ctx: &rdna2spv_vulkan::Context| {
        let out = ctx.create_buffer(64 * 4).unwrap();
        let inp = ctx.create_buffer(4).unwrap();
        let args = PushArgs {
            input: inp.device_address(),
            output: out.device_address(),
            count: 64,
            param: 1,
        };
        ctx.dispatch(&words, "main", args.workgroups(), &args.to_bytes())
    };
    let ctx = common::lavapipe().with_max_module_words(Some(words.len() - 1));
    match run(&ctx) {
        Err(Error::ModuleTooLarge {
            words: w,
            limit,
            cost,
        }) => {
            assert_eq!((w, limit), (words.len(), words.len() - 1));
            assert_eq!(cost, rdna2spv_vulkan::limit::module_cost(&words));
        }
        other => panic!("{other:?}"),
    }
    // At the limit it runs, and the context is still usable after the refusal.
    let ctx = ctx.with_max_module_words(Some(words.len()));
    run(&ctx).unwrap();
}
