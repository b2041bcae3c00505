//! The exact fused multiply-add emulation (rdna2spv_spirv::exact) on lavapipe, whose own Fma rounds
//! twice: 0 mismatches against the host's correctly rounded fma.

mod common;

use rdna2spv_spirv::exact::{
    emit_fma_f16_exact, emit_fma_f32_exact, host, FMA_F16_CAPABILITIES, FMA_F32_CAPABILITIES,
};
use rdna2spv_vulkan::kernel::{KernelBuilder, PushArgs};
use rdna2spv_vulkan::profile::Rng;

fn f32_module() -> Vec<u32> {
    let mut k = KernelBuilder::new(FMA_F32_CAPABILITIES);
    let (a, b, c) = (k.load_f32(12, 0), k.load_f32(12, 1), k.load_f32(12, 2));
    let r = emit_fma_f32_exact(&mut k.b, a, b, c).unwrap();
    k.store32(r, 4, 0);
    k.finish()
}

fn f16_module() -> Vec<u32> {
    let mut k = KernelBuilder::new(FMA_F16_CAPABILITIES);
    let h = k.b.type_float(16, None);
    let v2 = k.b.type_vector(h, 2);
    let (w0, w1) = (k.load_u32(8, 0), k.load_u32(8, 1));
    let ab = k.b.bitcast(v2, None, w0).unwrap();
    let cc = k.b.bitcast(v2, None, w1).unwrap();
    let a = k.b.composite_extract(h, None, ab, [0]).unwrap();
    let b = k.b.composite_extract(h, None, ab, [1]).unwrap();
    let c = k.b.composite_extract(h, None, cc, [0]).unwrap();
    let r = emit_fma_f16_exact(&mut k.b, a, b, c).unwrap();
    let v = k.b.composite_construct(v2, None, [r, r]).unwrap();
    let u = k.t.u32;
    let w = k.b.bitcast(u, None, v).unwrap();
    k.store32(w, 4, 0);
    k.finish()
}

fn f32_boundary() -> Vec<u32> {
    vec![
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x8000_0001,
        0x007f_ffff,
        0x0040_0000,
        0x0080_0000,
        0x8080_0000,
        0x0080_0001,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x3f80_0001,
        0x3f7f_ffff,
        0x3380_0000,
        0x3380_0001,
        0x3f00_0000,
        0x4000_0000,
        0x4b80_0000,
        0x1a00_0000,
    ]
}

fn f32_cases() -> Vec<[u32; 3]> {
    let bnd = f32_boundary();
    let mut v = Vec::with_capacity(115_000);
    for &a in &bnd {
        for &b in &bnd {
            for &c in &bnd {
                v.push([a, b, c]);
            }
        }
    }
    let mut rng = Rng::new(0x0dd_f00d);
    let moderate = |rng: &mut Rng, span: u32| {
        let bits = rng.next_u32();
        let exp = 127 - span + (bits >> 23) % (2 * span + 1);
        (bits & 0x807f_ffff) | (exp << 23)
    };
    for i in 0..100_000 {
        let case = match i % 5 {
            0 => [rng.next_u32(), rng.next_u32(), rng.next_u32()],
            1 => [
                moderate(&mut rng, 24),
                moderate(&mut rng, 24),
                moderate(&mut rng, 24),
            ],
            2 | 3 => {
                // cancellation: c = -(a*b) rounded, moved by -2..=2 ulp
                let a = moderate(&mut rng, 30);
                let b = moderate(&mut rng, 30);
                let p = -(f32::from_bits(a) * f32::from_bits(b));
                let k = (rng.next_u32() % 5) as i32 - 2;
                [a, b, p.to_bits().wrapping_add_signed(k)]
            }
            _ => {
                // around the subnormal range, short mantissas (exact ties)
                let a = (rng.next_u32() & 0x81ff_f000) | 0x0080_0000;
                let b = moderate(&mut rng, 4) & 0xffff_f000;
                let c = rng.next_u32() & 0x80ff_ffff;
                [a, b, c]
            }
        };
        v.push(case);
    }
    // f64 sums exactly on an f32 midpoint with the exact value just off it: the round-to-odd step
    // alone decides these (D150).
    for _ in 0..20_000 {
        v.push(rdna2spv_spirv::exact::host::fma_midpoint_triple(
            &mut || rng.next_u32(),
        ));
    }
    v
}

fn run(ctx: &rdna2spv_vulkan::Context, words: &[u32], input: &[u32], n: usize) -> Vec<u32> {
    let mut inp = ctx.create_buffer(input.len() as u64 * 4).unwrap();
    inp.upload_u32(0, input).unwrap();
    let out = ctx.create_buffer(n as u64 * 4).unwrap();
    let args = PushArgs {
        input: inp.device_address(),
        output: out.device_address(),
        count: n as u32,
        param: 0,
    };
    let stats = ctx
        .dispatch(words, "main", args.workgroups(), &args.to_bytes())
        .unwrap();
    println!("{n} invocations: {stats:?}");
    out.download_u32(0, n).unwrap()
}

#[test]
fn exact_f32_fma_matches_the_host_on_lavapipe() {
    let words = f32_module();
    common::spirv_val("exact_fma_f32", &words);
    let ctx = common::lavapipe();
    let cases = f32_cases();
    let input: Vec<u32> = cases.iter().flatten().copied().collect();
    let out = run(&ctx, &words, &input, cases.len());
    let mut bad = Vec::new();
    for (c, &o) in cases.iter().zip(&out) {
        let [a, b, cc] = c.map(f32::from_bits);
        let want = a.mul_add(b, cc);
        let same = o == want.to_bits() || (f32::from_bits(o).is_nan() && want.is_nan());
        if !same {
            bad.push(format!(
                "{:08x?} -> {o:08x}, want {:08x}",
                c,
                want.to_bits()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} mismatches, e.g. {:?}",
        bad.len(),
        cases.len(),
        &bad[..bad.len().min(5)]
    );
    assert!(cases.len() >= 100_000);
    // The midpoint cases discriminate: rounding the f64 sum twice (no round-to-odd step) gets many wrong.
    let twice_wrong = cases
        .iter()
        .filter(|c| {
            let [a, b, cc] = c.map(f32::from_bits);
            let want = a.mul_add(b, cc);
            let twice = (f64::from(a) * f64::from(b) + f64::from(cc)) as f32;
            !want.is_nan() && twice.to_bits() != want.to_bits()
        })
        .count();
    println!(
        "the f64 sum rounded twice: {twice_wrong} of {} wrong",
        cases.len()
    );
    assert!(
        twice_wrong > 5000,
        "only {twice_wrong} cases need the round-to-odd step"
    );
    // Control, in its own module: lavapipe's own Fma rounds twice, so these cases do discriminate.
    let plain = run(
        &ctx,
        &rdna2spv_vulkan::profile::modules::fma(32),
        &input,
        cases.len(),
    );
    let differ = plain
        .iter()
        .zip(&cases)
        .filter(|(o, c)| {
            let [a, b, cc] = c.map(f32::from_bits);
            let want = a.mul_add(b, cc);
            **o != want.to_bits() && !(want.is_nan() && f32::from_bits(**o).is_nan())
        })
        .count();
    println!(
        "plain GLSL Fma: {differ} of {} differ from one rounding",
        cases.len()
    );
    assert!(
        differ > 1000,
        "only {differ} cases separate fused from unfused"
    );
}

#[test]
fn exact_f16_fma_matches_the_host_on_lavapipe() {
    let words = f16_module();
    common::spirv_val("exact_fma_f16", &words);
    let ctx = common::lavapipe();
    assert!(
        ctx.features().shader_float16,
        "lavapipe on x86-64 with F16C has shaderFloat16"
    );
    let bnd: [u16; 20] = [
        0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0200, 0x0400, 0x8400, 0x7bff, 0xfbff, 0x7c00,
        0xfc00, 0x7e00, 0x3c00, 0xbc00, 0x3c01, 0x3bff, 0x1400, 0x3800, 0x4000,
    ];
    let mut cases: Vec<[u16; 3]> = vec![[0x1001, 0x3bfe, 0x3c01]];
    for &a in &bnd {
        for &b in &bnd {
            for &c in &bnd {
                cases.push([a, b, c]);
            }
        }
    }
    let mut rng = Rng::new(0xf16_f16);
    for i in 0..100_000 {
        let a = rng.next_u32() as u16;
        let b = rng.next_u32() as u16;
        let c = if i % 2 == 0 {
            rng.next_u32() as u16
        } else {
            let p = host::f64_to_f16(-(host::f16_to_f64(a) * host::f16_to_f64(b)));
            p.wrapping_add((rng.next_u32() % 5) as u16).wrapping_sub(2)
        };
        cases.push([a, b, c]);
    }
    let input: Vec<u32> = cases
        .iter()
        .flat_map(|c| [u32::from(c[0]) | (u32::from(c[1]) << 16), u32::from(c[2])])
        .collect();
    let out = run(&ctx, &words, &input, cases.len());
    let nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
    let mut bad = Vec::new();
    for (c, &o) in cases.iter().zip(&out) {
        let o = o as u16;
        let want = host::fma_f16(c[0], c[1], c[2]);
        if !(o == want || (nan(o) && nan(want))) {
            bad.push(format!("{c:04x?} -> {o:04x}, want {want:04x}"));
        }
    }
    assert_eq!(out[0] as u16, 0x3c01, "D993's half triple rounds once");
    assert!(
        bad.is_empty(),
        "{} of {} mismatches, e.g. {:?}",
        bad.len(),
        cases.len(),
        &bad[..bad.len().min(5)]
    );
}
