//! Measuring a [`DeviceProfile`]: each fact is one tiny kernel (its own module, so the driver's CSE
//! cannot mix probes) whose operands come from memory, compared as bits with a host reference.

use std::fmt;

use rdna2spv_spirv::exact::host;
use rdna2spv_spirv::{DeviceIdentity, DeviceProfile, FloatToInt};
use spirv::{BuiltIn, Capability, ExecutionMode, GlslStd450Op, LoopControl};

use crate::kernel::{KernelBuilder, PushArgs};
use crate::{Context, Result};

/// Loop iterations the loop-cap probe asks for (more than lavapipe's 65,535).
pub const LOOP_PROBE_ITERATIONS: u32 = 70_000;

/// What each probe saw, for people (the profile holds the conclusions).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeReport {
    /// `(fact, observation)` in probe order.
    pub lines: Vec<(String, String)>,
}

impl ProbeReport {
    fn note(&mut self, fact: &str, detail: impl Into<String>) {
        self.lines.push((fact.to_string(), detail.into()));
    }

    /// The observation recorded for `fact`, if any.
    pub fn get(&self, fact: &str) -> Option<&str> {
        self.lines
            .iter()
            .find(|(f, _)| f == fact)
            .map(|(_, d)| d.as_str())
    }
}

impl fmt::Display for ProbeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (fact, detail) in &self.lines {
            writeln!(f, "{fact:<32} {detail}")?;
        }
        Ok(())
    }
}

/// Measures the profile of `ctx`'s device.
pub fn probe(ctx: &Context) -> Result<DeviceProfile> {
    probe_with_report(ctx).map(|(p, _)| p)
}

/// Measures the profile and returns what each probe observed.
pub fn probe_with_report(ctx: &Context) -> Result<(DeviceProfile, ProbeReport)> {
    let f = *ctx.features();
    let info = ctx.info().clone();
    let mut r = ProbeReport::default();
    let mut p = DeviceProfile::portable();
    p.device = Some(DeviceIdentity {
        name: info.name.clone(),
        driver: format!("{} / {}", info.driver_name, info.driver_info),
        api_version: info.api_version.clone(),
        device_type: info.device_type.clone(),
    });
    p.has_float16 = f.shader_float16;
    p.has_float64 = f.shader_float64;
    p.has_int64 = f.shader_int64;
    p.has_int64_buffer_atomics = f.shader_buffer_int64_atomics;
    p.storage_buffer_16bit_access = f.storage_buffer_16bit_access;
    p.vulkan_memory_model = f.vulkan_memory_model;

    // Buffer device addresses: every other probe depends on them.
    let n = 256u32;
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let out = run(
        ctx,
        &modules::add_one_u32(),
        &words_to_bytes(&input),
        n,
        0,
        n as usize * 4,
    )?;
    let bad = bytes_to_words(&out)
        .iter()
        .zip(&input)
        .filter(|(o, i)| **o != i.wrapping_add(1))
        .count();
    p.buffer_device_address = f.buffer_device_address && bad == 0;
    r.note(
        "buffer_device_address",
        format!("u32 + 1 through push-constant pointers: {bad} of {n} wrong"),
    );

    // Fused multiply-add.
    {
        let cases = fma_f32_cases();
        let inp: Vec<u32> = cases
            .iter()
            .flat_map(|c| c.iter().map(|x| x.to_bits()))
            .collect();
        let out = run_words(
            ctx,
            &modules::fma(32),
            &inp,
            cases.len() as u32,
            0,
            cases.len(),
        )?;
        let (mut vs_fused, mut vs_twice) = (0, 0);
        for (c, &o) in cases.iter().zip(&out) {
            let fused = c[0].mul_add(c[1], c[2]);
            let twice = c[0] * c[1] + c[2];
            vs_fused += usize::from(!same_f32(o, fused.to_bits()));
            vs_twice += usize::from(!same_f32(o, twice.to_bits()));
        }
        p.fma_f32_fused = vs_fused == 0;
        r.note(
            "fma_f32_fused",
            format!(
                "a=b=1+2^-12, c=-(1+2^-11) gave {:#010x} (fused 0x33800000, unfused 0); {} triples: \
                 {vs_fused} differ from one rounding, {vs_twice} from two",
                out[0],
                cases.len()
            ),
        );
    }
    if f.shader_float16 {
        let cases = fma_f16_cases();
        let inp: Vec<u32> = cases
            .iter()
            .flat_map(|c| [u32::from(c[0]) | (u32::from(c[1]) << 16), u32::from(c[2])])
            .collect();
        let out = run_words(
            ctx,
            &modules::fma(16),
            &inp,
            cases.len() as u32,
            0,
            cases.len(),
        )?;
        let (mut vs_fused, mut vs_twice) = (0, 0);
        for (c, &o) in cases.iter().zip(&out) {
            let o = o as u16;
            vs_fused += usize::from(!same_f16(o, host::fma_f16(c[0], c[1], c[2])));
            vs_twice += usize::from(!same_f16(o, host::mul_add_twice_f16(c[0], c[1], c[2])));
        }
        p.fma_f16_fused = vs_fused == 0;
        r.note(
            "fma_f16_fused",
            format!(
                "D993 triple gave {:#06x} (once 0x3c01, twice 0x3c02); {} triples: {vs_fused} differ \
                 from one rounding, {vs_twice} from two",
                out[0] as u16,
                cases.len()
            ),
        );
    } else {
        r.note("fma_f16_fused", "no Float16: not measured (false)");
    }
    if f.shader_float64 {
        let cases = fma_f64_cases();
        let inp: Vec<u32> = cases
            .iter()
            .flat_map(|c| c.iter().flat_map(|x| split64(x.to_bits())))
            .collect();
        let out = run_words(
            ctx,
            &modules::fma(64),
            &inp,
            cases.len() as u32,
            0,
            cases.len() * 2,
        )?;
        let (mut vs_fused, mut vs_twice) = (0, 0);
        for (i, c) in cases.iter().enumerate() {
            let o = join64(out[2 * i], out[2 * i + 1]);
            vs_fused += usize::from(!same_f64(o, c[0].mul_add(c[1], c[2]).to_bits()));
            vs_twice += usize::from(!same_f64(o, (c[0] * c[1] + c[2]).to_bits()));
        }
        p.fma_f64_fused = vs_fused == 0;
        r.note(
            "fma_f64_fused",
            format!(
                "a=b=1+2^-27, c=-(1+2^-26) gave {:#018x} (fused 2^-54 = 0x3c90000000000000, unfused 0); \
                 {} triples: {vs_fused} differ from one rounding, {vs_twice} from two",
                join64(out[0], out[1]),
                cases.len()
            ),
        );
    } else {
        r.note("fma_f64_fused", "no Float64: not measured (false)");
    }

    // Identities with constant operands.
    {
        let out = run_words(ctx, &modules::add_const_zero(), &[0x8000_0000], 1, 0, 1)?;
        let opaque = run_words(ctx, &modules::add_loaded(), &[0x8000_0000, 0], 1, 0, 1)?;
        p.folds_add_zero = out[0] == 0x8000_0000;
        r.note(
            "folds_add_zero",
            format!(
                "-0 + constant 0.0 gave {:#010x} (IEEE 0x00000000); with 0.0 loaded: {:#010x}",
                out[0], opaque[0]
            ),
        );
        let out = run_words(ctx, &modules::mul_const_one(), &[0x7f80_0001], 1, 0, 1)?;
        let opaque = run_words(
            ctx,
            &modules::mul_loaded(),
            &[0x7f80_0001, 0x3f80_0000],
            1,
            0,
            1,
        )?;
        p.folds_mul_one = out[0] == 0x7f80_0001;
        r.note(
            "folds_mul_one",
            format!(
                "sNaN 0x7f800001 * constant 1.0 gave {:#010x} (quietened 0x7fc00001); with 1.0 \
                 loaded: {:#010x}",
                out[0], opaque[0]
            ),
        );
        // -1 × constant 0.0: IEEE −0 (0x80000000); folded to +0.
        let out = run_words(ctx, &modules::mul_const_zero(), &[0xbf80_0000], 1, 0, 1)?;
        let opaque = run_words(ctx, &modules::mul_loaded(), &[0xbf80_0000, 0], 1, 0, 1)?;
        p.folds_mul_zero = out[0] != 0x8000_0000;
        r.note(
            "folds_mul_zero",
            format!(
                "-1 * constant 0.0 gave {:#010x} (IEEE 0x80000000); with 0.0 loaded: {:#010x}",
                out[0], opaque[0]
            ),
        );
    }

    // Correctly rounded f32 division and square root (decision D012).
    {
        let cases = div_sqrt_f32_cases();
        let inp: Vec<u32> = cases.iter().flat_map(|c| [c[0], c[1]]).collect();
        let n = cases.len();
        let out = run_words(ctx, &modules::div_sqrt_f32(), &inp, n as u32, 0, 2 * n)?;
        let (mut bad_div, mut bad_sqrt) = (0, 0);
        for (c, o) in cases.iter().zip(out.chunks_exact(2)) {
            let (a, b) = (f32::from_bits(c[0]), f32::from_bits(c[1]));
            bad_div += usize::from(!same_f32(o[0], (a / b).to_bits()));
            bad_sqrt += usize::from(!same_f32(o[1], a.sqrt().to_bits()));
        }
        p.div_sqrt_f32_correctly_rounded = bad_div == 0 && bad_sqrt == 0;
        r.note(
            "div_sqrt_f32_correctly_rounded",
            format!(
                "{n} pairs (random, moderate, subnormal quotients and roots, huge divisors): \
                 {bad_div} quotients and {bad_sqrt} square roots differ from IEEE"
            ),
        );
    }

    // Subnormals.
    {
        let (inp, want) = subnormal_f32_io();
        let out = run_words(ctx, &modules::subnormal(32), &inp, 1, 0, want.len())?;
        p.preserves_subnormals_f32 = out == want;
        r.note(
            "preserves_subnormals_f32",
            format!("min*1, sub+sub, 2^-100*2^-30 gave {out:08x?}, IEEE {want:08x?}"),
        );
        if f.shader_float16 {
            let (inp, want) = subnormal_f16_io();
            let out = run_words(ctx, &modules::subnormal(16), &inp, 1, 0, want.len())?;
            p.preserves_subnormals_f16 = out == want;
            r.note(
                "preserves_subnormals_f16",
                format!("packed halves {out:08x?}, IEEE {want:08x?}"),
            );
        }
        if f.shader_float64 {
            let (inp, want) = subnormal_f64_io();
            let out = run_words(ctx, &modules::subnormal(64), &inp, 1, 0, want.len())?;
            p.preserves_subnormals_f64 = out == want;
            r.note(
                "preserves_subnormals_f64",
                format!("words {out:08x?}, IEEE {want:08x?}"),
            );
        }
        // Execution modes, only where the device advertises them (using them otherwise is invalid).
        if info.denorm_flush_to_zero[1] {
            let out = run_words(
                ctx,
                &modules::subnormal_with_mode(true),
                &inp,
                1,
                0,
                want.len(),
            )?;
            // Reported, not a profile field: no module requests DenormFlushToZero (D166, D168).
            let flushed = out.iter().all(|&w| w == 0);
            r.note(
                "denorm_flush_mode",
                format!(
                    "under DenormFlushToZero 32: {out:08x?} (flushes: {flushed}; not used, D168)"
                ),
            );
        } else {
            r.note(
                "denorm_flush_mode",
                "shaderDenormFlushToZeroFloat32 not advertised (not used, D168)",
            );
        }
        if info.denorm_preserve[1] {
            let out = run_words(
                ctx,
                &modules::subnormal_with_mode(false),
                &inp,
                1,
                0,
                want.len(),
            )?;
            p.denorm_preserve_mode_honoured = out == want;
            r.note(
                "denorm_preserve_mode_honoured",
                format!("under DenormPreserve 32: {out:08x?}"),
            );
        } else {
            r.note(
                "denorm_preserve_mode_honoured",
                "shaderDenormPreserveFloat32 not advertised (false)",
            );
        }
    }

    // Float → int.
    {
        let (inp, saturating, x86) = float_to_int_io();
        let out = run_words(ctx, &modules::float_to_int(), &inp, 1, 0, saturating.len())?;
        p.float_to_int = if out == saturating {
            FloatToInt::Saturating
        } else if out[..4] == x86[..4] && out[7] == x86[7] {
            FloatToInt::X86Indefinite
        } else {
            FloatToInt::Unknown
        };
        r.note(
            "float_to_int",
            format!(
                "i32(3e9, -3e9, inf, NaN) u32(5e9, -1.5, NaN) i32(2^31) gave {out:08x?}; RDNA \
                 saturates to {saturating:08x?}"
            ),
        );
    }

    // Subgroups.
    {
        let out = run_words(ctx, &modules::subgroup_size(), &[0], 64, 0, 64)?;
        let seen = out.iter().copied().max().unwrap_or(0);
        p.subgroup_size = seen;
        // D085: each wave size is verified by what a shader measures; only advertised sizes are
        // requested here (a forced request is invalid usage; the lavapipe test makes one).
        let mut tried = Vec::new();
        for want in [32u32, 64] {
            let v = crate::subgroup::verify(ctx, Some(want), false)?;
            if v.advertised {
                tried.push(format!(
                    "required {want} -> SubgroupSize {}, effective {} ({})",
                    v.reported,
                    v.effective,
                    if v.trusted { "trusted" } else { "not trusted" }
                ));
            }
            p.verified_subgroups.push(v);
        }
        // L44 (D217): the default pipeline's subgroup layout, with a shuffle that proves it.
        let (aligned, records) = crate::subgroup::aligned_size(ctx)?;
        p.aligned_subgroup_size = aligned;
        r.note(
            "aligned_subgroup_size",
            format!(
                "{aligned} (shuffles in compute: {}; first records [size, local id, shuffled index]: {:?})",
                info.subgroup_shuffle_compute,
                records.iter().take(4).collect::<Vec<_>>()
            ),
        );
        let honoured = p.verified_subgroups.iter().any(|v| v.trusted);
        p.required_subgroup_size_honoured = honoured;
        r.note(
            "subgroup_size",
            format!(
                "SubgroupSize built-in {seen}; properties: subgroupSize {}, min {}, max {}",
                info.subgroup_size, info.min_subgroup_size, info.max_subgroup_size
            ),
        );
        r.note(
            "required_subgroup_size_honoured",
            if tried.is_empty() {
                "neither 32 nor 64 may be requested on this device (false)".to_string()
            } else {
                tried.join(", ")
            },
        );
    }

    // Loop iteration cap.
    {
        let out = run_words(
            ctx,
            &modules::counted_loop(),
            &[0],
            1,
            LOOP_PROBE_ITERATIONS,
            3,
        )?;
        let (flag, last, total) = (out[0], out[1], out[2]);
        p.loop_iteration_cap = if flag == 1 && total == LOOP_PROBE_ITERATIONS {
            None
        } else if last > 0 {
            Some(last)
        } else {
            Some(DeviceProfile::PORTABLE_LOOP_CAP)
        };
        r.note(
            "loop_iteration_cap",
            format!(
                "{LOOP_PROBE_ITERATIONS} iterations: completion flag {flag}, last counter stored \
                 {last}, final count {total}"
            ),
        );
    }

    // Subgroups run alone between barriers (D146).
    {
        let adds = RUNS_ALONE_PROBE_ADDS;
        let lanes = crate::kernel::LOCAL_SIZE;
        let out = run_words(
            ctx,
            &modules::subgroup_runs_alone(),
            &[0],
            lanes,
            adds,
            2 * lanes as usize,
        )?;
        p.subgroup_runs_alone = runs_alone(&out, p.subgroup_size, adds);
        r.note(
            "subgroup_runs_alone",
            format!(
                "{lanes} invocations x {adds} relaxed adds to one workgroup counter, subgroups of {}: \
                 (first, last) value seen per subgroup {:?}",
                p.subgroup_size,
                out.chunks(2 * p.subgroup_size.max(1) as usize)
                    .map(|g| (
                        g.iter().step_by(2).min().copied().unwrap_or(0),
                        g.iter().skip(1).step_by(2).max().copied().unwrap_or(0)
                    ))
                    .collect::<Vec<_>>()
            ),
        );
    }

    // D288: workgroup memory in a texel buffer where the driver compiles a workgroup load as a loop
    // over the invocations (lavapipe, D287); chosen by driver, as a GPU's shared memory is faster.
    p.lds_in_texel_buffer = ctx.compiles_at_first_dispatch();
    r.note(
        "lds_in_texel_buffer",
        format!("{} (driver {})", p.lds_in_texel_buffer, info.driver_name),
    );

    Ok((p, r))
}

/// Adds per invocation in the [`modules::subgroup_runs_alone`] probe.
pub const RUNS_ALONE_PROBE_ADDS: u32 = 1024;

/// Whether the probe's output (first and last counter value per invocation, `adds` adds each) shows every
/// subgroup of `size` consecutive invocations running alone: the values its invocations saw form one
/// contiguous block of `size * adds` values (no add of another subgroup in between). At least two
/// subgroups must have run: one subgroup as large as the workgroup shows nothing.
pub fn runs_alone(out: &[u32], size: u32, adds: u32) -> bool {
    let lanes = out.len() / 2;
    if size == 0 || adds == 0 || !lanes.is_multiple_of(size as usize) || lanes / (size as usize) < 2
    {
        return false;
    }
    out.chunks(2 * size as usize).all(|g| {
        let lo = g.iter().step_by(2).min().copied().unwrap_or(0);
        let hi = g.iter().skip(1).step_by(2).max().copied().unwrap_or(0);
        hi >= lo && u64::from(hi - lo) + 1 == u64::from(size) * u64::from(adds)
    })
}

/// Runs a [`KernelBuilder`] kernel over `count` invocations and returns `out_len` output bytes.
fn run(
    ctx: &Context,
    words: &[u32],
    input: &[u8],
    count: u32,
    param: u32,
    out_len: usize,
) -> Result<Vec<u8>> {
    let inp = ctx.buffer_from_bytes(if input.is_empty() { &[0] } else { input })?;
    let out = ctx.create_buffer(out_len.max(4) as u64)?;
    let args = PushArgs {
        input: inp.device_address(),
        output: out.device_address(),
        count,
        param,
    };
    ctx.dispatch(words, "main", args.workgroups(), &args.to_bytes())?;
    out.download(0, out_len)
}

fn run_words(
    ctx: &Context,
    words: &[u32],
    input: &[u32],
    count: u32,
    param: u32,
    out_words: usize,
) -> Result<Vec<u32>> {
    let out = run(
        ctx,
        words,
        &words_to_bytes(input),
        count,
        param,
        out_words * 4,
    )?;
    Ok(bytes_to_words(&out))
}

fn words_to_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes_to_words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn split64(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

fn join64(lo: u32, hi: u32) -> u64 {
    u64::from(lo) | (u64::from(hi) << 32)
}

fn same_f32(a: u32, b: u32) -> bool {
    a == b || (f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan())
}

fn same_f16(a: u16, b: u16) -> bool {
    let nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
    a == b || (nan(a) && nan(b))
}

fn same_f64(a: u64, b: u64) -> bool {
    a == b || (f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan())
}

/// A small deterministic generator (xorshift64*), so probes and tests need no extra crate.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Seeds the generator (0 is replaced by a fixed constant).
    pub fn new(seed: u64) -> Self {
        Rng(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
}

/// f32 pairs (a, b) for a/b and sqrt(a): random bit patterns, moderate values, quotients and roots in
/// the subnormal range, reciprocals of values above 2^126, exact quotients.
pub fn div_sqrt_f32_cases() -> Vec<[u32; 2]> {
    let mut v = vec![
        [0x3f80_0000, 0x4040_0000],
        [0x00ff_ffff, 0x4bff_ffff],
        [0x3f80_0000, 0x7f7f_ffff],
        [0x0000_0001, 0x3f00_0000],
        [0x0000_0003, 0x4000_0000],
        [0x4000_0000, 0x3f80_0000],
    ];
    let mut rng = Rng::new(0xd1f5);
    for _ in 0..200 {
        v.push([rng.next_u32(), rng.next_u32()]);
    }
    for _ in 0..200 {
        let a = (rng.next_u32() & 0x807f_ffff) | ((100 + rng.next_u32() % 55) << 23);
        let b = (rng.next_u32() & 0x807f_ffff) | ((100 + rng.next_u32() % 55) << 23);
        v.push([a, b]);
    }
    for _ in 0..200 {
        // Subnormal quotients and square roots of subnormals.
        let a = rng.next_u32() & 0x00ff_ffff;
        let b = (rng.next_u32() & 0x007f_ffff) | ((127 + rng.next_u32() % 24) << 23);
        v.push([a, b]);
    }
    for _ in 0..100 {
        let b = (rng.next_u32() & 0x807f_ffff) | ((253 + rng.next_u32() % 2) << 23);
        v.push([0x3f80_0000, b]);
    }
    v
}

/// f32 triples: D993's distinguishing triple first, then random bit patterns, moderate exponents and
/// cancellations (c ≈ −a·b) — the class where fused and unfused differ most.
pub fn fma_f32_cases() -> Vec<[f32; 3]> {
    let mut v = vec![[
        1.0 + 2f32.powi(-12),
        1.0 + 2f32.powi(-12),
        -(1.0 + 2f32.powi(-11)),
    ]];
    let mut rng = Rng::new(0xf32);
    for _ in 0..150 {
        v.push([0; 3].map(|_: u32| f32::from_bits(rng.next_u32())));
    }
    let moderate = |rng: &mut Rng| {
        let bits = rng.next_u32();
        let exp = 127 - 24 + (bits >> 23) % 49; // 2^-24 .. 2^24
        f32::from_bits((bits & 0x807f_ffff) | (exp << 23))
    };
    for _ in 0..150 {
        v.push([moderate(&mut rng), moderate(&mut rng), moderate(&mut rng)]);
    }
    for _ in 0..150 {
        let a = moderate(&mut rng);
        let b = moderate(&mut rng);
        let c = -(a * b);
        let k = (rng.next_u32() % 5) as i32 - 2;
        v.push([a, b, f32::from_bits(c.to_bits().wrapping_add_signed(k))]);
    }
    v
}

/// f16 triples (bits): D993's triple first, then random halves and cancellations.
pub fn fma_f16_cases() -> Vec<[u16; 3]> {
    let mut v = vec![[0x1001u16, 0x3bfe, 0x3c01]];
    let mut rng = Rng::new(0xf16);
    for _ in 0..150 {
        v.push([0; 3].map(|_: u16| rng.next_u32() as u16));
    }
    let moderate = |rng: &mut Rng| {
        let bits = rng.next_u32() as u16;
        let exp = 15 - 6 + (bits >> 10) % 13; // 2^-6 .. 2^6
        (bits & 0x83ff) | (exp << 10)
    };
    for _ in 0..150 {
        let a = moderate(&mut rng);
        let b = moderate(&mut rng);
        let c = host::f64_to_f16(-(host::f16_to_f64(a) * host::f16_to_f64(b)));
        let k = (rng.next_u32() % 5) as i16 - 2;
        v.push([a, b, c.wrapping_add_signed(k)]);
    }
    v
}

/// f64 triples: a = b = 1 + 2^-27, c = −(1 + 2^-26) first, then random and cancellations.
pub fn fma_f64_cases() -> Vec<[f64; 3]> {
    let mut v = vec![[
        1.0 + 2f64.powi(-27),
        1.0 + 2f64.powi(-27),
        -(1.0 + 2f64.powi(-26)),
    ]];
    let mut rng = Rng::new(0xf64);
    for _ in 0..150 {
        v.push([0; 3].map(|_: u8| f64::from_bits(rng.next_u64())));
    }
    let moderate = |rng: &mut Rng| {
        let bits = rng.next_u64();
        let exp = 1023 - 40 + (bits >> 52) % 81;
        f64::from_bits((bits & 0x800f_ffff_ffff_ffff) | (exp << 52))
    };
    for _ in 0..150 {
        let a = moderate(&mut rng);
        let b = moderate(&mut rng);
        let k = (rng.next_u64() % 5) as i64 - 2;
        v.push([
            a,
            b,
            f64::from_bits((-(a * b)).to_bits().wrapping_add_signed(k)),
        ]);
    }
    v
}

fn subnormal_f32_io() -> (Vec<u32>, Vec<u32>) {
    // min subnormal × 1.0; 2^-129 + 2^-129 (subnormal sum); 2^-100 × 2^-30 (normal × normal → subnormal).
    (
        vec![
            0x0000_0001,
            0x3f80_0000,
            0x0010_0000,
            0x0d80_0000,
            0x3080_0000,
        ],
        vec![0x0000_0001, 0x0020_0000, 0x0008_0000],
    )
}

fn subnormal_f16_io() -> (Vec<u32>, Vec<u32>) {
    // halves: [min subnormal, 1.0], [0x0100, 2^-10]; results packed [a*1, s+s], [2^-10 * 2^-10, same].
    (
        vec![0x3c00_0001, 0x1400_0100],
        vec![0x0200_0001, 0x0010_0010],
    )
}

fn subnormal_f64_io() -> (Vec<u32>, Vec<u32>) {
    let inp = [
        1u64,
        1f64.to_bits(),
        0x1_0000,
        2f64.powi(-1000).to_bits(),
        2f64.powi(-30).to_bits(),
    ];
    let want = [1u64, 0x2_0000, 0x0000_1000_0000_0000];
    (
        inp.iter().flat_map(|&x| split64(x)).collect(),
        want.iter().flat_map(|&x| split64(x)).collect(),
    )
}

fn float_to_int_io() -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let inp = [
        3e9f32.to_bits(),
        (-3e9f32).to_bits(),
        f32::INFINITY.to_bits(),
        0x7fc0_0000,
        5e9f32.to_bits(),
        (-1.5f32).to_bits(),
        0x7fc0_0000,
        0x4f00_0000, // 2^31
    ];
    let saturating = vec![
        0x7fff_ffff,
        0x8000_0000,
        0x7fff_ffff,
        0,
        0xffff_ffff,
        0,
        0,
        0x7fff_ffff,
    ];
    let x86 = vec![
        0x8000_0000,
        0x8000_0000,
        0x8000_0000,
        0x8000_0000,
        0xffff_ffff,
        0xffff_ffff,
        0xffff_ffff,
        0x8000_0000,
    ];
    (inp.to_vec(), saturating, x86)
}

/// Every module the probe can build, by name, for validation with `spirv-val` (no device needed).
pub fn probe_modules() -> Vec<(&'static str, Vec<u32>)> {
    vec![
        ("add_one_u32", modules::add_one_u32()),
        ("fma_f32", modules::fma(32)),
        ("div_sqrt_f32", modules::div_sqrt_f32()),
        ("fma_f16", modules::fma(16)),
        ("fma_f64", modules::fma(64)),
        ("add_const_zero", modules::add_const_zero()),
        ("add_loaded", modules::add_loaded()),
        ("mul_const_one", modules::mul_const_one()),
        ("mul_loaded", modules::mul_loaded()),
        ("subnormal_f32", modules::subnormal(32)),
        ("subnormal_f16", modules::subnormal(16)),
        ("subnormal_f64", modules::subnormal(64)),
        ("subnormal_flush_mode", modules::subnormal_with_mode(true)),
        (
            "subnormal_preserve_mode",
            modules::subnormal_with_mode(false),
        ),
        ("float_to_int", modules::float_to_int()),
        ("subgroup_size", modules::subgroup_size()),
        ("subgroup_verify", crate::subgroup::probe_module()),
        ("counted_loop", modules::counted_loop()),
        ("subgroup_runs_alone", modules::subgroup_runs_alone()),
    ]
}

/// The probe kernels.
pub mod modules {
    use super::*;

    /// Per invocation (a, b) → (a / b, sqrt(a)), records of 8 bytes, every op NoContraction.
    pub fn div_sqrt_f32() -> Vec<u32> {
        let mut k = KernelBuilder::new(&[]);
        let f = k.t.f32;
        let (a, b) = (k.load_f32(8, 0), k.load_f32(8, 1));
        let q = k.b.f_div(f, None, a, b).expect("block open");
        k.nc(q);
        let r = k.glsl(f, GlslStd450Op::Sqrt, &[a]);
        k.nc(r);
        k.store32(q, 8, 0);
        k.store32(r, 8, 1);
        k.finish()
    }

    /// `out[i] = in[i] + 1` over u32 words.
    pub fn add_one_u32() -> Vec<u32> {
        let mut k = KernelBuilder::new(&[]);
        let x = k.load_u32(4, 0);
        let one = k.const32(k.t.u32, 1);
        let y = k.b.i_add(k.t.u32, None, x, one).expect("block open");
        k.store32(y, 4, 0);
        k.finish()
    }

    /// `GLSL.std.450 Fma` at `width` bits over per-invocation triples: f32 records of 12 bytes,
    /// f16 records of two u32 (a | b << 16, c), f64 records of 24 bytes.
    pub fn fma(width: u32) -> Vec<u32> {
        match width {
            32 => {
                let mut k = KernelBuilder::new(&[]);
                let f = k.t.f32;
                let (a, b, c) = (k.load_f32(12, 0), k.load_f32(12, 1), k.load_f32(12, 2));
                let r = k.glsl(f, GlslStd450Op::Fma, &[a, b, c]);
                k.store32(r, 4, 0);
                k.finish()
            }
            16 => {
                let mut k = KernelBuilder::new(&[Capability::Float16]);
                let (w0, w1) = (k.load_u32(8, 0), k.load_u32(8, 1));
                let (a, b) = unpack_halves(&mut k, w0);
                let (c, _) = unpack_halves(&mut k, w1);
                let h = k.b.type_float(16, None);
                let r = k.glsl(h, GlslStd450Op::Fma, &[a, b, c]);
                let w = pack_halves(&mut k, r, r);
                k.store32(w, 4, 0);
                k.finish()
            }
            64 => {
                let mut k = KernelBuilder::new(&[Capability::Float64]);
                let d = k.b.type_float(64, None);
                let a = k.load_input(d, 8, 24, 0);
                let b = k.load_input(d, 8, 24, 8);
                let c = k.load_input(d, 8, 24, 16);
                let r = k.glsl(d, GlslStd450Op::Fma, &[a, b, c]);
                k.store_output(d, r, 8, 8, 0, false);
                k.finish()
            }
            _ => panic!("fma width must be 16, 32 or 64"),
        }
    }

    pub(super) fn unpack_halves(k: &mut KernelBuilder, w: u32) -> (u32, u32) {
        let h = k.b.type_float(16, None);
        let v2 = k.b.type_vector(h, 2);
        let v = k.b.bitcast(v2, None, w).expect("block open");
        let lo = k.b.composite_extract(h, None, v, [0]).expect("block open");
        let hi = k.b.composite_extract(h, None, v, [1]).expect("block open");
        (lo, hi)
    }

    pub(super) fn pack_halves(k: &mut KernelBuilder, lo: u32, hi: u32) -> u32 {
        let h = k.b.type_float(16, None);
        let v2 = k.b.type_vector(h, 2);
        let v =
            k.b.composite_construct(v2, None, [lo, hi])
                .expect("block open");
        k.b.bitcast(k.t.u32, None, v).expect("block open")
    }

    /// `in[0] + 0.0` with a constant zero, NoContraction.
    pub fn add_const_zero() -> Vec<u32> {
        let mut k = KernelBuilder::new(&[]);
        let x = k.load_f32(0, 0);
        let z = k.const32(k.t.f32, 0);
        let r = k.b.f_add(k.t.f32, None, x, z).expect("block open");
        k.nc(r);
        k.store32(r, 0, 0);
        k.finish()
    }

    /// `in[0] + in[1]`, NoContraction (the same add with an opaque operand).
    pub fn add_loaded() -> Vec<u32> {
        let mut k = KernelBuilder::new(&[]);
        let (x, z) = (k.load_f32(0, 0), k.load_f32(0, 1));
        let r = k.b.f_add(k.t.f32, None, x, z).expect("block open");
        k.nc(r);
        k.store32(r, 0, 0);
        k.finish()
    }

    /// `in[0] * 1.0` with a constant one, NoContraction.
    pub fn mul_const_one() -> Vec<u32> {
        mul_const(0x3f80_0000)
    }

    /// `in[0] * 0.0` with a constant zero, NoContraction.
    pub fn mul_const_zero() -> Vec<u32> {
        mul_const(0)
    }

    /// `in[0] * c` with the f32 constant of bits `c`, NoContraction.
    fn mul_const(c: u32) -> Vec<u32> {
        let mut k = KernelBuilder::new(&[]);
        let x = k.load_f32(0, 0);
        let c = k.const32(k.t.f32, c);
        let r = k.b.f_mul(k.t.f32, None, x, c).expect("block open");
        k.nc(r);
        k.store32(r, 0, 0);
        k.finish()
    }

    /// `in[0] * in[1]`, NoContraction.
    pub fn mul_loaded() -> Vec<u32> {
        let mut k = KernelBuilder::new(&[]);
        let (x, y) = (k.load_f32(0, 0), k.load_f32(0, 1));
        let r = k.b.f_mul(k.t.f32, None, x, y).expect("block open");
        k.nc(r);
        k.store32(r, 0, 0);
        k.finish()
    }

    fn subnormal_body(k: &mut KernelBuilder, width: u32) {
        match width {
            32 => {
                let f = k.t.f32;
                let v: Vec<u32> = (0..5).map(|i| k.load_f32(0, i)).collect();
                let r0 = k.b.f_mul(f, None, v[0], v[1]).expect("block open");
                let r1 = k.b.f_add(f, None, v[2], v[2]).expect("block open");
                let r2 = k.b.f_mul(f, None, v[3], v[4]).expect("block open");
                for (i, r) in [r0, r1, r2].into_iter().enumerate() {
                    k.nc(r);
                    k.store32(r, 0, i as u64);
                }
            }
            16 => {
                let h = k.b.type_float(16, None);
                let (w0, w1) = (k.load_u32(0, 0), k.load_u32(0, 1));
                let (tiny, one) = unpack_halves(k, w0);
                let (sub, p10) = unpack_halves(k, w1);
                let r0 = k.b.f_mul(h, None, tiny, one).expect("block open");
                let r1 = k.b.f_add(h, None, sub, sub).expect("block open");
                let r2 = k.b.f_mul(h, None, p10, p10).expect("block open");
                for r in [r0, r1, r2] {
                    k.nc(r);
                }
                let a = pack_halves(k, r0, r1);
                let b = pack_halves(k, r2, r2);
                k.store32(a, 0, 0);
                k.store32(b, 0, 1);
            }
            64 => {
                let d = k.b.type_float(64, None);
                let v: Vec<u32> = (0..5).map(|i| k.load_input(d, 8, 0, 8 * i)).collect();
                let r0 = k.b.f_mul(d, None, v[0], v[1]).expect("block open");
                let r1 = k.b.f_add(d, None, v[2], v[2]).expect("block open");
                let r2 = k.b.f_mul(d, None, v[3], v[4]).expect("block open");
                for (i, r) in [r0, r1, r2].into_iter().enumerate() {
                    k.nc(r);
                    k.store_output(d, r, 8, 0, 8 * i as u64, false);
                }
            }
            _ => panic!("width must be 16, 32 or 64"),
        }
    }

    /// Subnormal passthrough at `width` bits (see the profile's documentation for the cases).
    pub fn subnormal(width: u32) -> Vec<u32> {
        let cap = match width {
            16 => vec![Capability::Float16],
            64 => vec![Capability::Float64],
            _ => vec![],
        };
        let mut k = KernelBuilder::new(&cap);
        subnormal_body(&mut k, width);
        k.finish()
    }

    /// The f32 subnormal kernel under `DenormFlushToZero 32` (`flush`) or `DenormPreserve 32`.
    pub fn subnormal_with_mode(flush: bool) -> Vec<u32> {
        let (cap, mode) = if flush {
            (
                Capability::DenormFlushToZero,
                ExecutionMode::DenormFlushToZero,
            )
        } else {
            (Capability::DenormPreserve, ExecutionMode::DenormPreserve)
        };
        let mut k = KernelBuilder::with_modes(&[cap], &[(mode, &[32])]);
        subnormal_body(&mut k, 32);
        k.finish()
    }

    /// `OpConvertFToS` of in[0..4] and in[7], `OpConvertFToU` of in[4..7].
    pub fn float_to_int() -> Vec<u32> {
        let mut k = KernelBuilder::new(&[]);
        let u = k.t.u32;
        for i in 0..8u64 {
            let x = k.load_f32(0, i);
            let r = if (4..7).contains(&i) {
                k.b.convert_f_to_u(u, None, x).expect("block open")
            } else {
                let s = k.b.type_int(32, 1);
                let v = k.b.convert_f_to_s(s, None, x).expect("block open");
                k.b.bitcast(u, None, v).expect("block open")
            };
            k.store32(r, 0, i);
        }
        k.finish()
    }

    /// Each invocation stores the `SubgroupSize` built-in.
    pub fn subgroup_size() -> Vec<u32> {
        let mut k = KernelBuilder::new(&[Capability::GroupNonUniform]);
        let u = k.t.u32;
        let s = k.load_builtin(u, BuiltIn::SubgroupSize);
        k.store32(s, 4, 0);
        k.finish()
    }

    /// One workgroup: invocation 0 zeroes a workgroup counter, all meet at a barrier, then each
    /// invocation adds 1 to the counter `param` times (relaxed atomics, a top-tested loop, no barrier)
    /// and stores the value its first and its last add returned: out = [first, last] per invocation.
    pub fn subgroup_runs_alone() -> Vec<u32> {
        let mut k = KernelBuilder::new(&[]);
        let u = k.t.u32;
        let n = k.param();
        let i = k.index();
        let c = k.workgroup_variable(u);
        let zero = k.const32(u, 0);
        let one = k.const32(u, 1);
        let wg = k.const32(u, spirv::Scope::Workgroup as u32);
        let relaxed = k.const32(u, 0);
        let acq_rel = k.const32(u, 0x8 | 0x100); // AcquireRelease | WorkgroupMemory
        let first_lane = k.b.i_equal(k.t.bool, None, i, zero).expect("block open");
        let (set, met) = (k.b.id(), k.b.id());
        k.b.selection_merge(met, spirv::SelectionControl::NONE)
            .expect("block open");
        k.b.branch_conditional(first_lane, set, met, [])
            .expect("block open");
        k.b.begin_block(Some(set)).expect("function open");
        k.b.store(c, zero, None, []).expect("block open");
        k.b.branch(met).expect("block open");
        k.b.begin_block(Some(met)).expect("function open");
        k.b.control_barrier(wg, wg, acq_rel).expect("block open");
        let first =
            k.b.atomic_i_increment(u, None, c, wg, relaxed)
                .expect("block open");
        let (var, last) = (k.function_variable(u), k.function_variable(u));
        k.b.store(var, one, None, []).expect("block open");
        k.b.store(last, first, None, []).expect("block open");
        let (header, body, cont, merge) = (k.b.id(), k.b.id(), k.b.id(), k.b.id());
        k.b.branch(header).expect("block open");

        k.b.begin_block(Some(header)).expect("function open");
        let j = k.b.load(u, None, var, None, []).expect("block open");
        let go = k.b.u_less_than(k.t.bool, None, j, n).expect("block open");
        k.b.loop_merge(merge, cont, LoopControl::NONE, [])
            .expect("block open");
        k.b.branch_conditional(go, body, merge, [])
            .expect("block open");

        k.b.begin_block(Some(body)).expect("function open");
        let v =
            k.b.atomic_i_increment(u, None, c, wg, relaxed)
                .expect("block open");
        k.b.store(last, v, None, []).expect("block open");
        let j = k.b.load(u, None, var, None, []).expect("block open");
        let next = k.b.i_add(u, None, j, one).expect("block open");
        k.b.store(var, next, None, []).expect("block open");
        k.b.branch(cont).expect("block open");

        k.b.begin_block(Some(cont)).expect("function open");
        k.b.branch(header).expect("block open");

        k.b.begin_block(Some(merge)).expect("function open");
        let l = k.b.load(u, None, last, None, []).expect("block open");
        k.store32(first, 8, 0);
        k.store32(l, 8, 1);
        k.finish()
    }

    /// A top-tested loop of `param` iterations storing its counter (volatile) every round, then a
    /// completion flag and the final count: out = [1, last counter, count].
    pub fn counted_loop() -> Vec<u32> {
        let mut k = KernelBuilder::new(&[]);
        let u = k.t.u32;
        let n = k.param();
        let var = k.function_variable(u);
        let zero = k.const32(u, 0);
        let one = k.const32(u, 1);
        k.b.store(var, zero, None, []).expect("block open");
        let (header, body, cont, merge) = (k.b.id(), k.b.id(), k.b.id(), k.b.id());
        k.b.branch(header).expect("block open");

        k.b.begin_block(Some(header)).expect("function open");
        let i = k.b.load(u, None, var, None, []).expect("block open");
        let go = k.b.u_less_than(k.t.bool, None, i, n).expect("block open");
        k.b.loop_merge(merge, cont, LoopControl::NONE, [])
            .expect("block open");
        k.b.branch_conditional(go, body, merge, [])
            .expect("block open");

        k.b.begin_block(Some(body)).expect("function open");
        let i = k.b.load(u, None, var, None, []).expect("block open");
        let next = k.b.i_add(u, None, i, one).expect("block open");
        k.store_output(u, next, 4, 0, 4, true);
        k.b.store(var, next, None, []).expect("block open");
        k.b.branch(cont).expect("block open");

        k.b.begin_block(Some(cont)).expect("function open");
        k.b.branch(header).expect("block open");

        k.b.begin_block(Some(merge)).expect("function open");
        let total = k.b.load(u, None, var, None, []).expect("block open");
        k.store_output(u, one, 4, 0, 0, true);
        k.store_output(u, total, 4, 0, 8, true);
        k.finish()
    }
}
