//! Real rocRAND kernels (Debian's librocrand1 5.3.3, the gfx1030 code object extracted by `cargo xtask corpus
//! rocrand`, unmodified) run through `rdna2spv run --backend both` — lavapipe and the host evaluator at the
//! same addresses, bit for bit — and compared with references written from the published algorithms
//! (tests/support/rocrand.rs: Philox4x32-10 from SC'11 / Random123, MRG32k3a from L'Ecuyer's RngStream), each
//! reference first checked here against the published known answers. Decision D154; docs/corpus.md.
//!
//! * Philox4x32-10 `generate_kernel<unsigned int | float, uniform_distribution>`: the 48-byte engine struct
//!   by value (`bytes = "engine.bin"`), rocRAND's block size (256) on a smaller grid.
//! * MRG32k3a `init_engines_kernel`: seeds one engine per work-item and skips ahead by subsequence and offset
//!   with the matrices in the code object's `.rodata` (`s_getpc_b64` + PC-relative offset +
//!   `s_load_dwordx16`).
//! * MRG32k3a `generate_kernel<unsigned int, mrg_uniform_distribution>`: engines in a buffer, read and
//!   written back.
//!
//! The kernel test needs the corpus (`cargo xtask corpus rocrand`; CI's .ci/run does it) and fails when it
//! is missing; the known-answer tests of the references need nothing.

#[path = "support/rocrand.rs"]
mod rocrand;

use rocrand::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

// --- the references against the published known answers ------------------------------------------------

/// Random123 `examples/kat_vectors` (Random123 1.09; the same lines in every release since 1.0):
/// `philox4x32 10 CTR[4] KEY[2] EXPECTED[4]`, all words hex.
const PHILOX4X32_10_KAT: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
    (
        [0, 0, 0, 0],
        [0, 0],
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
    ),
    (
        [0xffffffff; 4],
        [0xffffffff; 2],
        [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
    ),
    (
        [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
        [0xa4093822, 0x299f31d0],
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
    ),
];

/// Random123's `philox4x32 7` lines of the same file: the round count is a parameter, not a constant.
const PHILOX4X32_7_KAT: [([u32; 4], [u32; 2], [u32; 4]); 2] = [
    (
        [0, 0, 0, 0],
        [0, 0],
        [0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48],
    ),
    (
        [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
        [0xa4093822, 0x299f31d0],
        [0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a],
    ),
];

#[test]
fn philox_reference_matches_random123_known_answers() {
    for (c, k, want) in PHILOX4X32_10_KAT {
        assert_eq!(philox4x32_10(c, k), want, "philox4x32 10 {c:08x?} {k:08x?}");
    }
    for (c, k, want) in PHILOX4X32_7_KAT {
        assert_eq!(philox4x32(7, c, k), want, "philox4x32 7 {c:08x?} {k:08x?}");
    }
}

/// rocRAND's stream mapping: number i of (seed, subsequence, offset) is number offset + i of (seed,
/// subsequence, 0); subsequence s starts 4 * 2^64 numbers after s - 1; the counter carries across words.
/// rocRAND's uniform constants are the powers of two they stand for.
#[test]
fn uniform_constants_are_powers_of_two() {
    assert_eq!(uniform_f32(0), 2f32.powi(-32));
    assert_eq!(uniform_f32(u32::MAX), 1.0);
    assert_eq!(uniform_f64(0, 0), 2f64.powi(-53));
    assert_eq!(uniform_f64(u32::MAX, u32::MAX), 1.0);
    assert_eq!(
        uniform_f64(7, 1 << 11),
        (7.0 + 2f64.powi(32) + 1.0) * 2f64.powi(-53)
    );
}

#[test]
fn philox_stream_positions() {
    // Key (0xa4093822, 0x299f31d0): the seed's low half is the first key word.
    let seed = 0x299f_31d0_a409_3822;
    let key = [0xa409_3822, 0x299f_31d0];
    let s = philox_stream(seed, 0, 0, 16);
    assert_eq!(s[..4], philox4x32_10([0; 4], key));
    assert_eq!(s[4..8], philox4x32_10([1, 0, 0, 0], key));
    assert_eq!(philox_stream(seed, 0, 5, 11), s[5..]);
    // Counter words 0-1 are the offset's block, words 2-3 the subsequence.
    let sub = (0x0370_7344u64 << 32) | 0x1319_8a2e;
    assert_eq!(
        philox_stream(seed, sub, (0x05a3_08d3_243f_6a88 << 2) + 1, 3),
        philox4x32_10([0x243f_6a88, 0x05a3_08d3, 0x1319_8a2e, 0x0370_7344], key)[1..]
    );
    // The counter carries from word 0 into word 1.
    let s = philox_stream(0, 6, 4 * 0xffff_ffff, 8);
    assert_eq!(s[..4], philox4x32_10([0xffff_ffff, 0, 6, 0], [0, 0]));
    assert_eq!(s[4..], philox4x32_10([0, 1, 6, 0], [0, 0]));
    // The engine struct: counter, result (the block at the counter), key, substate, padding.
    let e = philox_engine_bytes(seed, 3, 4 * 10 + 2);
    let w: Vec<u32> = e
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(w[..4], [10, 0, 3, 0]);
    assert_eq!(w[4..8], philox4x32_10([10, 0, 3, 0], key));
    assert_eq!(w[8..12], [0xa409_3822, 0x299f_31d0, 2, 0]);
}

/// RngStream.cpp (L'Ecuyer, Simard, Chen, Kelton 2002), the transition matrices raised to 2^76 and 2^127.
const A1P76: Mat = [
    [82758667, 1871391091, 4127413238],
    [3672831523, 69195019, 1871391091],
    [3672091415, 3528743235, 69195019],
];
const A2P76: Mat = [
    [1511326704, 3759209742, 1610795712],
    [4292754251, 1511326704, 3889917532],
    [3859662829, 4292754251, 3708466080],
];
const A1P127: Mat = [
    [2427906178, 3580155704, 949770784],
    [226153695, 1230515664, 3580155704],
    [1988835001, 986791581, 1230515664],
];
const A2P127: Mat = [
    [1464411153, 277697599, 1610723613],
    [32183930, 1464411153, 1022607788],
    [2824425944, 32183930, 2093834863],
];

#[test]
fn mrg_jump_matrices_match_rngstream() {
    assert_eq!(mat_pow(&A1, 1 << 76, M1), A1P76);
    assert_eq!(mat_pow(&A2, 1 << 76, M2), A2P76);
    assert_eq!(mat_pow(&A1, 1 << 127, M1), A1P127);
    assert_eq!(mat_pow(&A2, 1 << 127, M2), A2P127);
    // The one-step matrix is the recurrence.
    let mut g = Mrg {
        g1: [1, 2, 3],
        g2: [4, 5, 6],
    };
    let jumped = g.advance(1);
    g.next();
    assert_eq!(g, jumped);
}

/// RngStream's published test run (umontreal-simul/RngStreams, tests/test2RngStream.res): the package seed
/// 12345 x 6; stream g2 and g3 start 2^127 and 2 * 2^127 steps on; g1 after 35 steps; g3's first outputs
/// and the first outputs of its fourth substream (4 * 2^76 steps on); the seed 1 x 6 and its next three
/// streams.
#[test]
fn mrg_reference_matches_rngstream_test_output() {
    let seed = Mrg {
        g1: [12345; 3],
        g2: [12345; 3],
    };
    let st = |a: [u32; 6]| Mrg {
        g1: [a[0], a[1], a[2]],
        g2: [a[3], a[4], a[5]],
    };
    let g2 = st([
        3692455944, 1366884236, 2968912127, 335948734, 4161675175, 475798818,
    ]);
    let g3 = st([
        1015873554, 1310354410, 2249465273, 994084013, 2912484720, 3876682925,
    ]);
    assert_eq!(seed.advance(1 << 127), g2);
    // 2 * 2^127 does not fit in 128 bits: two jumps.
    assert_eq!(seed.advance(1 << 127).advance(1 << 127), g3);
    let g1_35 = st([
        1040577685, 3747037609, 277208355, 1712706441, 627445683, 2408037141,
    ]);
    assert_eq!(seed.advance(35), g1_35);
    let mut g = seed;
    for _ in 0..35 {
        g.next();
    }
    assert_eq!(g, g1_35);
    // "g1.RandU01 () = 0.07941673614985" (13 significant digits printed).
    assert!((g.u01() - 0.07941673614985).abs() < 1e-13);
    let mut g = g3;
    for want in [
        0.7285097861965,
        0.9655872822837,
        0.9961841304801,
        0.1149884161813,
        0.9731454191297,
    ] {
        let u = g.u01();
        assert!((u - want).abs() < 1e-12, "{u} vs {want}");
    }
    let mut g = g3.advance(4 << 76);
    for want in [
        0.1734545396358,
        0.03286351608942,
        0.2643169129682,
        0.3059403602117,
        0.5476303035177,
    ] {
        let u = g.u01();
        assert!((u - want).abs() < 1e-12, "{u} vs {want}");
    }
    let ones = Mrg {
        g1: [1; 3],
        g2: [1; 3],
    };
    let laplace = st([
        2662865579, 741857976, 4206142246, 3352832365, 2519202871, 655500294,
    ]);
    let galois = st([
        3784663252, 802042081, 160569404, 3391851556, 2150317468, 54240022,
    ]);
    let cantor = st([
        3276123839, 3170955788, 1470482105, 884064067, 1017894425, 16401881,
    ]);
    assert_eq!(ones.advance(1 << 127), laplace);
    assert_eq!(laplace.advance(1 << 127), galois);
    assert_eq!(galois.advance(1 << 127), cantor);
}

/// rocRAND's seeding, modelled on its integer operations, is the plain modular product for seeds below 2^32
/// (no intermediate wraps); above, its one-fold reduction is not a full one and the words can differ —
/// the model keeps rocRAND's behaviour, and the kernel is run with such a seed too.
#[test]
fn rocrand_mrg_seeding() {
    let plain = |seed: u64| {
        let x = u64::from((seed as u32) ^ 0x5555_5555);
        let y = u64::from(((seed >> 32) as u32) ^ 0xAAAA_AAAA);
        let m = |a: u64, m: u64| ((u128::from(a) * u128::from(seed)) % u128::from(m)) as u32;
        Mrg {
            g1: [m(x, M1), m(y, M1), m(x, M1)],
            g2: [m(y, M2), m(x, M2), m(y, M2)],
        }
    };
    for seed in [1u64, 12345, 0xdead_beef, 0xffff_ffff, 0x8000_0001] {
        assert_eq!(rocrand_mrg_seed(seed), plain(seed), "seed {seed:#x}");
    }
    assert_eq!(rocrand_mrg_seed(0), plain(12345));
    assert_ne!(rocrand_mrg_seed(BIG_MRG_SEED), plain(BIG_MRG_SEED));
}

/// A seed whose rocRAND seeding wraps (see `rocrand_mrg_seeding`).
const BIG_MRG_SEED: u64 = 0x0123_4567_89ab_cdef;

/// The XORWOW reference's jumps (GF(2) maps squared and applied bit by bit) equal stepping the xorshift
/// one number at a time; skipping k numbers equals k calls of `next` (the Weyl word included).
#[test]
fn xorwow_jumps_equal_steps() {
    let pow2 = xorshift_pow2(20);
    let seeded = rocrand_xorwow_seed(0x0123_4567_89ab_cdef);
    for x in [
        seeded.x,
        [1, 0, 0, 0, 0],
        [0, 0, 0, 0, 0x8000_0000],
        [u32::MAX; 5],
    ] {
        assert_eq!(Gf2Map::xorshift().apply(x), xorshift160(x));
        let mut stepped = x;
        for n in 0..5000u32 {
            assert_eq!(
                xorshift_jump(&pow2, &[n], x),
                stepped,
                "{n} steps from {x:08x?}"
            );
            stepped = xorshift160(stepped);
        }
    }
    let pow2 = xorshift_pow2(64);
    let mut g = seeded;
    for n in 0..3000u64 {
        assert_eq!(xorwow_skip(&pow2, seeded, n), g, "{n} numbers");
        g.next();
    }
    // The Weyl word wraps: 2^32 + 5 numbers move it as 5 do.
    let far = xorwow_skip(&pow2, seeded, (1 << 32) + 5);
    assert_eq!(far.d, xorwow_skip(&pow2, seeded, 5).d);
    assert_ne!(far.x, xorwow_skip(&pow2, seeded, 5).x);
}

/// The xorshift's transition has the period Marsaglia states, 2^160 − 1 (the largest possible: the map is
/// primitive): A^(2^160) = A, and A^((2^160 − 1)/p) moves the state for every prime p dividing 2^160 − 1.
/// A wrong shift or word order almost surely breaks this; it also exercises the squarings the jumps use.
#[test]
fn xorshift160_has_marsaglias_period() {
    // 2^160 − 1 = 3 · 5^2 · 11 · 17 · 31 · 41 · 257 · 61681 · 65537 · 414721 · 4278255361 · 44479210368001.
    let primes: [(u64, u32); 12] = [
        (3, 1),
        (5, 2),
        (11, 1),
        (17, 1),
        (31, 1),
        (41, 1),
        (257, 1),
        (61_681, 1),
        (65_537, 1),
        (414_721, 1),
        (4_278_255_361, 1),
        (44_479_210_368_001, 1),
    ];
    // Little-endian 32-bit limbs times a small factor.
    let mul = |a: &mut [u32; 5], f: u64| {
        let mut carry = 0u128;
        for l in a.iter_mut() {
            let v = u128::from(*l) * u128::from(f) + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        assert_eq!(carry, 0);
    };
    let product = |skip: Option<usize>| {
        let mut n = [1, 0, 0, 0, 0];
        for (i, &(p, e)) in primes.iter().enumerate() {
            let e = if skip == Some(i) { e - 1 } else { e };
            for _ in 0..e {
                mul(&mut n, p);
            }
        }
        n
    };
    assert_eq!(product(None), [u32::MAX; 5]);
    let pow2 = xorshift_pow2(160);
    assert!(pow2[160] == pow2[0], "A^(2^160) != A");
    let x = rocrand_xorwow_seed(7).x;
    assert_eq!(xorshift_jump(&pow2, &product(None), x), x);
    for (i, (p, _)) in primes.iter().enumerate() {
        assert_ne!(
            xorshift_jump(&pow2, &product(Some(i)), x),
            x,
            "A^((2^160 - 1) / {p}) fixes the state"
        );
    }
}

// --- the kernels -------------------------------------------------------------------------------------------

const PHILOX_U32: &str = "_ZN12rocrand_host6detailL15generate_kernelIj20uniform_distributionIjEEEvNS0_27philox4x32_10_device_engineEPT_mT0_";
const PHILOX_F32: &str = "_ZN12rocrand_host6detailL15generate_kernelIf20uniform_distributionIfEEEvNS0_27philox4x32_10_device_engineEPT_mT0_";
const PHILOX_F64: &str = "_ZN12rocrand_host6detailL15generate_kernelId20uniform_distributionIdEEEvNS0_27philox4x32_10_device_engineEPT_mT0_";
const MRG_INIT: &str =
    "_ZN12rocrand_host6detailL19init_engines_kernelEPN14rocrand_device15mrg32k3a_engineEjyy";
const MRG_U32: &str = "_ZN12rocrand_host6detailL15generate_kernelIj24mrg_uniform_distributionIjEEEvPN14rocrand_device15mrg32k3a_engineEjPT_mT0_";

/// rocRAND launches every kernel here with 256 work-items per block (`s_threads`).
const BLOCK: u32 = 256;

/// A kernel argument as the manifest gives it.
enum Arg {
    /// A by-value argument of any size, its bytes from a file (`bytes = "argN.bin"`).
    Bytes(Vec<u8>),
    /// A by-value scalar as hex bits.
    Bits(u64),
    /// A buffer with initial contents, written back as the named output.
    Out(&'static str, Vec<u8>),
}

struct Run {
    what: String,
    kernel: &'static str,
    grid: u32,
    args: Vec<Arg>,
    /// (output, expected bytes)
    expect: Vec<(&'static str, Vec<u8>)>,
    /// Code-object globals given new contents (`[[globals]] name, file`).
    globals: Vec<(&'static str, Vec<u8>)>,
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// What a Philox generate kernel makes of the stream.
#[derive(Clone, Copy)]
enum Out {
    U32,
    F32,
    /// One double from two numbers.
    F64,
}

/// Philox generate: `n` outputs from the engine `(seed, subsequence, offset)`; the output is the stream
/// from the engine's position, whatever the grid (each work-item skips to its block of four and leaps by
/// the grid; the tail comes from the work-item whose next block it is).
fn philox_run(out: Out, seed: u64, subsequence: u64, offset: u64, n: usize, grid: u32) -> Run {
    let (want, width, kernel, what): (Vec<u8>, usize, _, _) = match out {
        Out::U32 => (
            u32s(&philox_stream(seed, subsequence, offset, n)),
            4,
            PHILOX_U32,
            "uint",
        ),
        Out::F32 => (
            philox_stream(seed, subsequence, offset, n)
                .iter()
                .flat_map(|&v| uniform_f32(v).to_bits().to_le_bytes())
                .collect(),
            4,
            PHILOX_F32,
            "uniform float",
        ),
        Out::F64 => (
            philox_stream(seed, subsequence, offset, 2 * n)
                .chunks(2)
                .flat_map(|v| uniform_f64(v[0], v[1]).to_bits().to_le_bytes())
                .collect(),
            8,
            PHILOX_F64,
            "uniform double",
        ),
    };
    Run {
        what: format!(
            "philox4x32_10 {what} seed {seed:#x} subsequence {subsequence:#x} offset {offset:#x}, {n} outputs, grid {grid}"
        ),
        kernel,
        grid,
        args: vec![
            Arg::Bytes(philox_engine_bytes(seed, subsequence, offset).to_vec()),
            Arg::Out("data", vec![0xa5; width * n]),
            Arg::Bits(n as u64),
            // uniform_distribution<T> is an empty struct: one byte.
            Arg::Bits(0),
        ],
        expect: vec![("data", want)],
        globals: vec![],
    }
}

/// MRG32k3a init: engine `i` of the `grid` engines as rocRAND's `init()` launches the kernel.
fn mrg_init_run(seed: u64, start_engine_id: u32, offset: u64, grid: u32) -> Run {
    let want: Vec<u8> = (0..grid)
        .flat_map(|i| rocrand_mrg_engine(seed, i, start_engine_id, offset).bytes())
        .collect();
    Run {
        what: format!(
            "mrg32k3a init seed {seed:#x} start {start_engine_id} offset {offset:#x}, {grid} engines"
        ),
        kernel: MRG_INIT,
        grid,
        args: vec![
            Arg::Out("engines", vec![0xa5; 24 * grid as usize]),
            Arg::Bits(u64::from(start_engine_id)),
            Arg::Bits(seed),
            Arg::Bits(offset),
        ],
        expect: vec![("engines", want)],
        globals: vec![],
    }
}

/// MRG32k3a generate (uint): work-item `id` uses engine `(id + start) mod stride` (`stride` = the grid, a
/// power of two) for outputs `id, id + stride, ...`, then stores the engine back.
fn mrg_generate_run(seed: u64, start_engine_id: u32, n: usize, grid: u32) -> Run {
    let mut engines: Vec<Mrg> = (0..grid)
        .map(|i| rocrand_mrg_engine(seed, i, 0, 0))
        .collect();
    let input: Vec<u8> = engines.iter().flat_map(|e| e.bytes()).collect();
    let mut out = vec![0u32; n];
    for id in 0..grid as usize {
        let e = &mut engines[(id + start_engine_id as usize) & (grid as usize - 1)];
        for o in out.iter_mut().skip(id).step_by(grid as usize) {
            *o = mrg_uniform_u32(e.next());
        }
    }
    Run {
        what: format!(
            "mrg32k3a uint seed {seed:#x} start {start_engine_id}, {n} numbers, grid {grid}"
        ),
        kernel: MRG_U32,
        grid,
        args: vec![
            Arg::Out("engines", input),
            Arg::Bits(u64::from(start_engine_id)),
            Arg::Out("data", vec![0xa5; 4 * n]),
            Arg::Bits(n as u64),
            Arg::Bits(0),
        ],
        expect: vec![
            ("engines", engines.iter().flat_map(|e| e.bytes()).collect()),
            ("data", u32s(&out)),
        ],
        globals: vec![],
    }
}

/// The runs CI makes: small grids of rocRAND's 256-item blocks, several leaps per work-item, a tail, a
/// substate that interleaves two blocks, a counter that carries into the next word, seeds that do and do not
/// wrap in rocRAND's MRG seeding, offsets that use every one of the 64 skip-ahead matrices.
fn runs() -> Vec<Run> {
    vec![
        // rocRAND's default Philox seed, as `rocrand_generate` makes the first call.
        philox_run(
            Out::U32,
            0xdead_beef_dead_beef,
            0,
            0,
            4 * 1024 * 2 + 4 * 5 + 3,
            1024,
        ),
        // A subsequence, an offset whose substate is 3, a counter word about to carry.
        philox_run(
            Out::U32,
            0xa409_3822_299f_31d0,
            0x0123_4567_89ab_cdef,
            4 * 0xffff_fff0 + 3,
            4 * 512 + 7,
            512,
        ),
        philox_run(Out::F32, 0x1234_5678, 0, 5, 4 * 512 * 2 + 1, 512),
        philox_run(Out::F64, 0x9e37_79b9_7f4a_7c15, 7, 2, 2 * 512 * 2 + 1, 512),
        // Seed 0 is rocRAND's default 12345 (the kernel's own branch); 64 bits of offset.
        mrg_init_run(0, 100, 0xfedc_ba98_7654_3210, 512),
        mrg_init_run(BIG_MRG_SEED, 0, 0xffff_ffff_ffff_fffe, 512),
        mrg_generate_run(12345, 37, 256 * 3 + 100, 256),
    ]
}

fn corpus_code_object() -> PathBuf {
    let dir = rdna2spv::corpus::cache_dir("rocrand").expect("HOME or RDNA2SPV_CORPUS_DIR");
    let co = dir.join("co/b000.co");
    assert!(
        co.exists(),
        "the rocRAND corpus is missing at {}: run `cargo xtask corpus rocrand` (CI's .ci/run does)",
        dir.display()
    );
    co
}

/// The manifest for `r` in `dir` (its by-value bytes and buffers written beside it).
fn manifest(co: &Path, r: &Run, dir: &Path) -> String {
    let mut t = format!(
        "code_object = {:?}\nkernel = {:?}\ngrid = [{}, 1, 1]\nworkgroup = [{BLOCK}, 1, 1]\n",
        co.display().to_string(),
        r.kernel,
        r.grid
    );
    for (i, a) in r.args.iter().enumerate() {
        t.push_str("\n[[args]]\n");
        match a {
            Arg::Bytes(b) => {
                std::fs::write(dir.join(format!("arg{i}.bin")), b).unwrap();
                writeln!(t, "bytes = \"arg{i}.bin\"").unwrap();
            }
            Arg::Bits(v) => writeln!(t, "bits = \"{v:#x}\"").unwrap(),
            Arg::Out(name, b) => {
                std::fs::write(dir.join(format!("arg{i}.bin")), b).unwrap();
                writeln!(t, "buffer = \"arg{i}.bin\"\noutput = {name:?}").unwrap();
            }
        }
    }
    for (i, (name, b)) in r.globals.iter().enumerate() {
        std::fs::write(dir.join(format!("global{i}.bin")), b).unwrap();
        writeln!(
            t,
            "\n[[globals]]\nname = {name:?}\nfile = \"global{i}.bin\""
        )
        .unwrap();
    }
    t
}

/// Runs `r` with `rdna2spv run --backend BACKEND` from code object `co`; the outputs that differ from the
/// reference (name, first differing word, count), or the run's failure.
fn run(co: &Path, r: &Run, backend: &str, dir: &Path) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).unwrap();
    let text = manifest(co, r, dir);
    std::fs::write(dir.join("manifest.toml"), &text).unwrap();
    let out = dir.join("out");
    let p = Command::new(env!("CARGO_BIN_EXE_rdna2spv"))
        .args(["run", "--backend", backend, "--out"])
        .arg(&out)
        .arg(dir.join("manifest.toml"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&p.stderr).to_string();
    if p.status.code() != Some(0) {
        return Err(format!("exit {:?}: {err}", p.status.code()));
    }
    if backend == "both" && !err.contains("agree bit for bit") {
        return Err(format!("no agreement reported: {err}"));
    }
    let mut differ = Vec::new();
    for (name, want) in &r.expect {
        let got = std::fs::read(out.join(format!("{name}.bin")))
            .map_err(|e| format!("{name}.bin: {e}; {err}"))?;
        assert_eq!(got.len(), want.len(), "{}: {name}", r.what);
        let bad: Vec<usize> = (0..want.len() / 4)
            .filter(|&w| got[4 * w..4 * w + 4] != want[4 * w..4 * w + 4])
            .collect();
        if let Some(&w) = bad.first() {
            differ.push(format!(
                "{name}: {} of {} words differ, first word {w}: got {:#010x}, want {:#010x}",
                bad.len(),
                want.len() / 4,
                u32::from_le_bytes(got[4 * w..4 * w + 4].try_into().unwrap()),
                u32::from_le_bytes(want[4 * w..4 * w + 4].try_into().unwrap())
            ));
        }
    }
    Ok(differ)
}

#[test]
fn rocrand_kernels_host_device_and_reference() {
    let co = corpus_code_object();
    let tmp = std::env::temp_dir().join(format!("rdna2spv-rocrand-{}", std::process::id()));
    let mut failures = Vec::new();
    for (i, r) in runs().iter().enumerate() {
        let t0 = std::time::Instant::now();
        let res = run(&co, r, "both", &tmp.join(format!("run{i}")));
        let secs = t0.elapsed().as_secs_f64();
        match res {
            Ok(d) if d.is_empty() => {
                eprintln!("{}: host = lavapipe = reference ({secs:.1} s)", r.what)
            }
            Ok(d) => failures.push(format!("{}: host = lavapipe, but {}", r.what, d.join("; "))),
            Err(e) => failures.push(format!("{}: {e}", r.what)),
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The test can fail: one bit of the Philox engine struct (the key's high half) changed, the kernel's
/// output no longer equals the reference (host evaluator only, to keep it short).
#[test]
fn rocrand_philox_sees_its_engine() {
    let co = corpus_code_object();
    let tmp = std::env::temp_dir().join(format!("rdna2spv-rocrand-engine-{}", std::process::id()));
    // The key's high word is bytes 36..40 of the engine.
    let mut r = philox_run(Out::U32, 0xdead_beef_dead_beef, 0, 0, 4 * 256 + 1, 256);
    if let Arg::Bytes(b) = &mut r.args[0] {
        b[36] ^= 1;
    }
    let d = run(&co, &r, "host", &tmp.join("philox")).unwrap();
    assert!(!d.is_empty(), "a changed key went unnoticed");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The MRG32k3a init kernel reads its skip-ahead tables from the placed code object: replaced, the output
/// follows; one word changed, it no longer equals the reference (host evaluator only).
#[test]
fn rocrand_mrg_init_reads_its_tables() {
    let co = corpus_code_object();
    let tmp = std::env::temp_dir().join(format!("rdna2spv-rocrand-tables-{}", std::process::id()));
    // The four tables the init kernel reads, replaced through `[[globals]]` by tables computed here
    // (row-major 3x3 of u64, 64 matrices: A^(2^i) for d_A1/d_A2, A^(2^(76+i)) for d_A1P67/d_A2P67): the
    // output is unchanged — the kernel reads these globals, laid out as rocRAND's source says.
    let mut r = mrg_init_run(BIG_MRG_SEED, 200, 0x8000_0000_0000_0001, 256);
    r.globals = vec![
        ("_ZL4d_A1", table(&A1, 0, M1)),
        ("_ZL4d_A2", table(&A2, 0, M2)),
        ("_ZL7d_A1P67", table(&A1, MRG_SUBSEQUENCE_LOG2, M1)),
        ("_ZL7d_A2P67", table(&A2, MRG_SUBSEQUENCE_LOG2, M2)),
    ];
    let d = run(&co, &r, "host", &tmp.join("tables")).unwrap();
    assert!(d.is_empty(), "the tables computed here: {d:?}");
    // One entry of d_A2P67's matrix 3 (engines 8-15, 24-31, ... jump by it) one larger.
    r.globals[3].1[8 * (3 * 9 + 4)] ^= 1;
    let d = run(&co, &r, "host", &tmp.join("tables_changed")).unwrap();
    assert!(!d.is_empty(), "a changed .rodata word went unnoticed");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// rocRAND's skip-ahead table layout: 64 matrices `a^(2^(first + i))`, each row-major as 9 u64.
fn table(a: &Mat, first: u32, m: u64) -> Vec<u8> {
    let mut p = mat_pow(a, 1u128 << first, m);
    let mut b = Vec::with_capacity(64 * 9 * 8);
    for _ in 0..64 {
        b.extend(p.iter().flatten().flat_map(|x| x.to_le_bytes()));
        p = mat_mul(&p, &p, m);
    }
    b
}
