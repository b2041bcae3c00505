//! The module-size limit of a device compile (decision D164).
//!
//! lavapipe compiles a module inside its first dispatch, and its time and memory grow faster than the module.
//! What it compiles is the module with every function call inlined, and every barrier is a suspend point of
//! the coroutine it makes of the shader ([`ModuleCost`]). Measured on the 2-core development machine
//! (`cargo xtask bench corpus-size`, docs/performance.md, 2026-12-03, D208, D210): cold compile CPU time ≈
//! [`CPU_S_COEFFICIENT`] × inlined words^[`CPU_S_EXPONENT`] × (1 + memory accesses)^[`CPU_S_MEMORY_EXPONENT`]; peak
//! memory of the compiling process ≈ [`PEAK_MB_BASE`] (Vulkan and lavapipe start-up) + [`PEAK_MB_COEFFICIENT`] ×
//! inlined words^[`PEAK_MB_EXPONENT`] MB (D164's fit, through issue 31's 5.15 M-word module at 16.4 GB). A module over [`DEFAULT_MAX_MODULE_WORDS`] is refused before the driver sees it, naming its size,
//! the limit and the prediction, instead of letting the compile take the machine's memory.
//! `RDNA2SPV_MAX_MODULE_WORDS` (a number, or `none`) and the command lines' `--max-module-words` move it.

/// The default limit: about 1 GB of compile memory and a few minutes of CPU predicted for lavapipe (D164).
pub const DEFAULT_MAX_MODULE_WORDS: usize = 1_000_000;

/// Fit of lavapipe's cold compile CPU time (seconds) against what it compiles ([`ModuleCost`], D210):
/// `a × inlined_words^b × (1 + memory_accesses)^c`, least squares in log-log over the 138 compiled modules of
/// ≥ 20,000 words of `cargo xtask bench corpus-size` (2026-12-03, compile CPU without the kernel's run).
/// Error factor: median ×1.19, worst ×3.6; D208's form (inlined words and barriers) on the same modules:
/// ×1.30, ×4.6; words only: ×1.44, ×19.8. lavapipe makes every memory access a loop of basic blocks, and
/// its coroutine split is superlinear in the blocks (D210).
pub const CPU_S_COEFFICIENT: f64 = 1.19e-5;
/// See [`CPU_S_COEFFICIENT`].
pub const CPU_S_EXPONENT: f64 = 0.30;
/// See [`CPU_S_COEFFICIENT`].
pub const CPU_S_MEMORY_EXPONENT: f64 = 1.49;
/// Peak resident memory (MB) of a process that compiles a small module on lavapipe.
pub const PEAK_MB_BASE: f64 = 290.0;
/// Fit of the compile's memory above [`PEAK_MB_BASE`] (MB) against the inlined words: `c × words^d` (D164's
/// fit; D208 applies it to the inlined words, which the largest compiles of the corpus sample follow better).
pub const PEAK_MB_COEFFICIENT: f64 = 1.14e-8;
/// See [`PEAK_MB_COEFFICIENT`].
pub const PEAK_MB_EXPONENT: f64 = 1.81;

/// The predicted cold lavapipe compile of a module: (CPU seconds, peak memory in GB).
pub fn predicted_compile(cost: &ModuleCost) -> (f64, f64) {
    let w = cost.inlined_words as f64;
    (
        CPU_S_COEFFICIENT
            * w.powf(CPU_S_EXPONENT)
            * (1.0 + cost.memory_accesses as f64).powf(CPU_S_MEMORY_EXPONENT),
        (PEAK_MB_BASE + PEAK_MB_COEFFICIENT * w.powf(PEAK_MB_EXPONENT)) / 1024.0,
    )
}

/// What a prediction is of, for a message: "1,234 words" or "1,234 words, 5,678 once its calls are inlined,
/// 12 barriers".
pub fn describe_cost(cost: &ModuleCost) -> String {
    let mut s = format!("{} words", group(cost.words));
    if cost.inlined_words > cost.words {
        s.push_str(&format!(
            ", {} once its calls are inlined",
            group(cost.inlined_words)
        ));
    }
    if cost.barriers > 0 {
        s.push_str(&format!(", {} barriers", group(cost.barriers)));
    }
    if cost.memory_accesses > 0 {
        s.push_str(&format!(
            ", {} memory accesses",
            group(cost.memory_accesses)
        ));
    }
    s
}

/// What lavapipe's compile of a module grows with, read from its words (D164, D208): the words, the words
/// it compiles once every function call is inlined (lavapipe inlines them all: a shared float emulation
/// called a thousand times is compiled a thousand times), and the `OpControlBarrier`s it meets once inlined
/// (each one a suspend point of the coroutine lavapipe makes of a compute shader, D206).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ModuleCost {
    pub words: usize,
    pub inlined_words: usize,
    pub barriers: usize,
    /// Loads, stores and atomics of memory other than Function, Private, Input and PushConstant variables
    /// (Workgroup, StorageBuffer, PhysicalStorageBuffer, Uniform, Image, ...), and image stores, once
    /// inlined (image loads are gathers, D288). lavapipe (LLVM 15,
    /// Mesa 22.3) emits each one that is not provably uniform as a loop over its 8 lanes with a branch per
    /// lane, so each adds basic blocks to the function, and the coroutine split it runs on every compute
    /// shader propagates a bit set over all the blocks until a fixpoint (D210).
    pub memory_accesses: usize,
    /// `OpLoopMerge`s once inlined (loops of the module itself).
    pub loops: usize,
}

/// [`ModuleCost`] of a SPIR-V module (a malformed one counts what it can read).
pub fn module_cost(words: &[u32]) -> ModuleCost {
    use rspirv::spirv::{Op, StorageClass as Sc};
    use std::collections::HashMap;
    // Storage classes that are not memory accesses for lavapipe (registers, built-ins, push constants).
    let register_like = |sc: u32| {
        [
            Sc::UniformConstant,
            Sc::Input,
            Sc::Output,
            Sc::Private,
            Sc::Function,
            Sc::PushConstant,
        ]
        .iter()
        .any(|&c| c as u32 == sc)
    };
    // Results that can be pointers (each has its result type and id as operands 1 and 2).
    let pointer_results = [
        Op::FunctionParameter,
        Op::Variable,
        Op::AccessChain,
        Op::InBoundsAccessChain,
        Op::PtrAccessChain,
        Op::InBoundsPtrAccessChain,
        Op::CopyObject,
        Op::ConvertUToPtr,
        Op::Bitcast,
        Op::Select,
        Op::Phi,
    ];
    /// What one function body holds, or (expanded) what it holds with its calls inlined.
    #[derive(Clone, Copy, Default)]
    struct Counts {
        words: usize,
        barriers: usize,
        memory: usize,
        loops: usize,
    }
    impl Counts {
        fn add(&mut self, o: Counts) {
            self.words += o.words;
            self.barriers += o.barriers;
            self.memory += o.memory;
            self.loops += o.loops;
        }
    }
    #[derive(Default)]
    struct Body {
        own: Counts,
        calls: Vec<u32>,
    }
    // Pointer type → storage class; result id → its type (for the results that can be pointers).
    let mut pointer_class: HashMap<u32, u32> = Default::default();
    let mut type_of: HashMap<u32, u32> = Default::default();
    let mut bodies: HashMap<u32, Body> = Default::default();
    let mut entries = Vec::new();
    let mut i = 5.min(words.len());
    // The header's words, then every instruction outside a function.
    let mut outside = i;
    let mut current: Option<(u32, Body)> = None;
    while i < words.len() {
        let n = ((words[i] >> 16) as usize).max(1);
        let op = words[i] & 0xffff;
        let is = |o: Op| op == o as u32;
        let operand = |k: usize| words.get(i + k).copied();
        if is(Op::Function) {
            if let Some(id) = operand(2) {
                current = Some((id, Body::default()));
            }
        } else if is(Op::EntryPoint) {
            entries.extend(operand(2));
        } else if is(Op::TypePointer) {
            if let (Some(id), Some(sc)) = (operand(1), operand(2)) {
                pointer_class.insert(id, sc);
            }
        }
        if pointer_results.iter().any(|&o| is(o)) {
            if let (Some(ty), Some(id)) = (operand(1), operand(2)) {
                type_of.insert(id, ty);
            }
        }
        match &mut current {
            Some((_, body)) => {
                let c = &mut body.own;
                c.words += n;
                c.barriers += usize::from(is(Op::ControlBarrier));
                c.loops += usize::from(is(Op::LoopMerge));
                // Stores (plain and atomic) name the pointer first; loads and the other atomics
                // (OpAtomicLoad ..= OpAtomicXor) after their result type and id.
                let pointer = if is(Op::Store) || is(Op::AtomicStore) {
                    operand(1)
                } else if is(Op::Load)
                    || (Op::AtomicLoad as u32..=Op::AtomicXor as u32).contains(&op)
                {
                    operand(3)
                } else {
                    None
                };
                let class = pointer
                    .and_then(|p| type_of.get(&p))
                    .and_then(|t| pointer_class.get(t));
                c.memory += usize::from(class.is_some_and(|&sc| !register_like(sc)));
                // D288: an image store is a lane loop as a buffer store is; an image load is a gather
                // (no loop, D287), so it does not count.
                c.memory += usize::from(is(Op::ImageWrite));
                if is(Op::FunctionCall) {
                    body.calls.extend(operand(3));
                }
            }
            None => outside += n,
        }
        if is(Op::FunctionEnd) {
            if let Some((id, body)) = current.take() {
                bodies.insert(id, body);
            }
        }
        i += n;
    }
    // Expanded counts, callees first (SPIR-V forbids recursion; a cycle in a malformed module counts once).
    fn expand(
        id: u32,
        bodies: &HashMap<u32, Body>,
        memo: &mut HashMap<u32, Counts>,
        depth: usize,
    ) -> Counts {
        if let Some(&m) = memo.get(&id) {
            return m;
        }
        let Some(b) = bodies.get(&id) else {
            return Counts::default();
        };
        let mut total = b.own;
        if depth < 64 {
            for &c in &b.calls {
                total.add(expand(c, bodies, memo, depth + 1));
            }
        }
        memo.insert(id, total);
        total
    }
    let mut memo = Default::default();
    let mut total = Counts {
        words: outside,
        ..Counts::default()
    };
    for &e in &entries {
        total.add(expand(e, &bodies, &mut memo, 0));
    }
    ModuleCost {
        words: words.len(),
        inlined_words: total.words,
        barriers: total.barriers,
        memory_accesses: total.memory,
        loops: total.loops,
    }
}

/// The limit from `RDNA2SPV_MAX_MODULE_WORDS` (a number of words; `none`, `off` or `0`: no limit), else
/// [`DEFAULT_MAX_MODULE_WORDS`]. An unreadable value is an error naming it.
pub fn max_module_words_from_env() -> Result<Option<usize>, String> {
    match std::env::var("RDNA2SPV_MAX_MODULE_WORDS") {
        Ok(v) => parse_limit(&v).ok_or_else(|| {
            format!("RDNA2SPV_MAX_MODULE_WORDS={v:?} is not a number of words or `none`")
        }),
        Err(_) => Ok(Some(DEFAULT_MAX_MODULE_WORDS)),
    }
}

/// `none`/`off`/`0` → no limit; a number (underscores and commas allowed) → that limit.
pub fn parse_limit(v: &str) -> Option<Option<usize>> {
    let v = v.trim();
    if matches!(v.to_ascii_lowercase().as_str(), "none" | "off" | "0") {
        return Some(None);
    }
    let digits: String = v.chars().filter(|c| !matches!(c, '_' | ',')).collect();
    digits.parse::<usize>().ok().map(Some)
}

/// Why a module is refused: its size, the limit and the prediction (the text of
/// [`crate::Error::ModuleTooLarge`]).
pub fn too_large_message(cost: &ModuleCost, limit: usize) -> String {
    let (secs, gb) = predicted_compile(cost);
    format!(
        "the module is {}, over the limit of {} words for a device compile: lavapipe's cold compile of \
         it would take about {} of CPU and {gb:.1} GB of memory on a 2-core machine (docs/performance.md); \
         raise the limit with --max-module-words N (or RDNA2SPV_MAX_MODULE_WORDS=N, `none` for no limit) if the \
         device can take it (decisions D164, D208, D210)",
        describe_cost(cost),
        group(limit),
        human_seconds(secs)
    )
}

/// A first dispatch on lavapipe holds the module's compile: its fence wait gets this many times the
/// predicted compile CPU ([`predicted_compile`]) on top of the context's timeout, so that a long compile is
/// not taken for a hung device (D241). The fit's worst error factor is ×3.6 (D210).
pub const COMPILE_ALLOWANCE_FACTOR: f64 = 4.0;

/// The most [`compile_allowance`] gives: a module the default size limit lets through is predicted well
/// below it (D164).
pub const MAX_COMPILE_ALLOWANCE: std::time::Duration = std::time::Duration::from_secs(3600);

/// The wait allowed for lavapipe's compile of a module in its first dispatch: [`COMPILE_ALLOWANCE_FACTOR`]
/// × the predicted compile CPU, at most [`MAX_COMPILE_ALLOWANCE`] (D241).
pub fn compile_allowance(cost: &ModuleCost) -> std::time::Duration {
    let (secs, _) = predicted_compile(cost);
    let s = COMPILE_ALLOWANCE_FACTOR * secs;
    if s.is_finite() && s >= 0.0 {
        std::time::Duration::from_secs_f64(s).min(MAX_COMPILE_ALLOWANCE)
    } else {
        MAX_COMPILE_ALLOWANCE
    }
}

/// The fence wait of a dispatch and the part of it allowed for the driver's compile (D241): `timeout`
/// alone when the caller set it (`exact`), when the pipeline was compiled before (`first_dispatch_cost` is
/// `None`) or when the driver compiles at pipeline creation; else `timeout` + [`compile_allowance`].
pub fn dispatch_wait(
    timeout: std::time::Duration,
    exact: bool,
    compiles_at_first_dispatch: bool,
    first_dispatch_cost: Option<&ModuleCost>,
) -> (std::time::Duration, std::time::Duration) {
    let allowance = match first_dispatch_cost {
        Some(c) if !exact && compiles_at_first_dispatch => compile_allowance(c),
        _ => std::time::Duration::ZERO,
    };
    (timeout.saturating_add(allowance), allowance)
}

/// Seconds as "12 s" or "7 min".
pub fn human_seconds(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.0} min", s / 60.0)
    }
}

/// 1234567 → "1,234,567".
pub fn group(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_dispatch_on_lavapipe_waits_for_its_predicted_compile_unless_the_timeout_is_exact() {
        use std::time::Duration;
        let cost = ModuleCost {
            words: 345_162,
            inlined_words: 345_162,
            barriers: 579,
            memory_accesses: 2_859,
            ..ModuleCost::default()
        };
        // rocPRIM's segmented sort as csrsort launches it: about 77 s predicted (hand-worked from the fit:
        // 1.19e-5 × 345,162^0.30 × 2,860^1.49 = 1.19e-5 × 45.857 × 141,249 ≈ 77.08).
        let (secs, _) = predicted_compile(&cost);
        assert!((secs - 77.08).abs() < 0.01, "{secs}");
        let t = Duration::from_secs(60);
        let (wait, allowance) = dispatch_wait(t, false, true, Some(&cost));
        assert_eq!(
            allowance,
            Duration::from_secs_f64(COMPILE_ALLOWANCE_FACTOR * secs)
        );
        assert_eq!(wait, t + allowance);
        // The caller's own timeout, a pipeline compiled before, a driver that compiles at pipeline
        // creation: the timeout alone.
        for (exact, first, c) in [
            (true, true, Some(&cost)),
            (false, true, None),
            (false, false, Some(&cost)),
        ] {
            assert_eq!(dispatch_wait(t, exact, first, c), (t, Duration::ZERO));
        }
        // A module far beyond the default size limit: the allowance stops at its ceiling.
        let huge = ModuleCost {
            inlined_words: 50_000_000,
            memory_accesses: 500_000,
            ..cost
        };
        assert_eq!(compile_allowance(&huge), MAX_COMPILE_ALLOWANCE);
    }

    #[test]
    fn parses_limits_and_groups_digits() {
        assert_eq!(parse_limit("none"), Some(None));
        assert_eq!(parse_limit("0"), Some(None));
        assert_eq!(parse_limit("2_000_000"), Some(Some(2_000_000)));
        assert_eq!(parse_limit("1,500"), Some(Some(1500)));
        assert_eq!(parse_limit("lots"), None);
        assert_eq!(group(5_152_243), "5,152,243");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
    }

    /// A function of 25 words (by the SPIR-V specification's word counts: OpFunction 5, OpFunctionParameter
    /// 3, OpLabel 2, OpIAdd 5, OpStore 3 to a Workgroup variable, OpControlBarrier 4, OpReturnValue 2,
    /// OpFunctionEnd 1) called three times from the entry point, which has a barrier, a Workgroup atomic, a
    /// Function variable's store and load (not memory for lavapipe) and a loop of its own; and a function
    /// nobody calls.
    #[test]
    fn module_cost_counts_every_call_inlined() {
        use rspirv::binary::Assemble as _;
        use rspirv::spirv::{
            AddressingModel, Capability, ExecutionModel, FunctionControl, LoopControl, MemoryModel,
            StorageClass,
        };
        let mut b = rspirv::dr::Builder::new();
        b.capability(Capability::Shader);
        b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        let void = b.type_void();
        let u32t = b.type_int(32, 0);
        let fvoid = b.type_function(void, []);
        let fu = b.type_function(u32t, [u32t]);
        let one = b.constant_bit32(u32t, 1);
        let (scope, sem) = (b.constant_bit32(u32t, 2), b.constant_bit32(u32t, 0x108));
        let wg_ptr = b.type_pointer(None, StorageClass::Workgroup, u32t);
        let fn_ptr = b.type_pointer(None, StorageClass::Function, u32t);
        let shared = b.variable(wg_ptr, None, StorageClass::Workgroup, None);
        let boolt = b.type_bool();
        let no = b.constant_false(boolt);
        let f = b
            .begin_function(u32t, None, FunctionControl::NONE, fu)
            .unwrap();
        let x = b.function_parameter(u32t).unwrap();
        b.begin_block(None).unwrap();
        let y = b.i_add(u32t, None, x, one).unwrap();
        b.store(shared, y, None, []).unwrap();
        b.control_barrier(scope, scope, sem).unwrap();
        b.ret_value(y).unwrap();
        b.end_function().unwrap();
        let unused = b
            .begin_function(u32t, None, FunctionControl::NONE, fu)
            .unwrap();
        let p = b.function_parameter(u32t).unwrap();
        b.begin_block(None).unwrap();
        b.ret_value(p).unwrap();
        b.end_function().unwrap();
        let _ = unused;
        let main = b
            .begin_function(void, None, FunctionControl::NONE, fvoid)
            .unwrap();
        b.begin_block(None).unwrap();
        let local = b.variable(fn_ptr, None, StorageClass::Function, None);
        let mut v = one;
        for _ in 0..3 {
            v = b.function_call(u32t, None, f, [v]).unwrap();
        }
        b.store(local, v, None, []).unwrap();
        let w = b.load(u32t, None, local, None, []).unwrap();
        b.atomic_i_add(u32t, None, shared, scope, sem, w).unwrap();
        let (header, body, cont, merge) = (b.id(), b.id(), b.id(), b.id());
        b.branch(header).unwrap();
        b.begin_block(Some(header)).unwrap();
        b.loop_merge(merge, cont, LoopControl::NONE, []).unwrap();
        b.branch_conditional(no, body, merge, []).unwrap();
        b.begin_block(Some(body)).unwrap();
        b.branch(cont).unwrap();
        b.begin_block(Some(cont)).unwrap();
        b.branch(header).unwrap();
        b.begin_block(Some(merge)).unwrap();
        b.control_barrier(scope, scope, sem).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        b.entry_point(ExecutionModel::GLCompute, main, "main", []);
        let words = b.module().assemble();
        let c = module_cost(&words);
        // The unused function: OpFunction 5, OpFunctionParameter 3, OpLabel 2, OpReturnValue 2, OpFunctionEnd 1.
        assert_eq!(c.words, words.len());
        assert_eq!(c.inlined_words, words.len() + 2 * 25 - 13);
        assert_eq!(c.barriers, 4);
        // The Workgroup store three times (once per call) and the atomic; not the Function variable's.
        assert_eq!(c.memory_accesses, 4);
        assert_eq!(c.loops, 1);
        // Truncated or empty input counts what it can read and does not panic.
        let _ = module_cost(&words[..words.len() / 2]);
        assert_eq!(module_cost(&[]).words, 0);
    }

    #[test]
    fn prediction_grows_with_the_module_its_calls_and_memory_accesses() {
        let plain = |w| ModuleCost {
            words: w,
            inlined_words: w,
            ..ModuleCost::default()
        };
        let (s1, g1) = predicted_compile(&plain(100_000));
        let (s2, g2) = predicted_compile(&plain(1_000_000));
        // Words alone weigh little once memory accesses are counted (D210: ten times the words, about twice
        // the CPU).
        assert!(s2 > 1.5 * s1 && g2 > g1, "{s1} {s2} {g1} {g2}");
        // A call inlined a thousand times is compiled a thousand times.
        let called = ModuleCost {
            inlined_words: 1_000_000,
            ..plain(100_000)
        };
        assert_eq!(
            predicted_compile(&called),
            predicted_compile(&plain(1_000_000))
        );
        // Memory accesses cost on their own (each a loop of blocks in lavapipe, D210).
        let memory = ModuleCost {
            memory_accesses: 2_000,
            ..plain(100_000)
        };
        assert!(predicted_compile(&memory).0 > 10.0 * s1);
        // The default limit keeps the predicted compile of a barrier- and call-free module within issue 31's
        // 2 GB; the 2.38 M-word lane module of the segmented sort kernel is over it.
        assert!(predicted_compile(&plain(DEFAULT_MAX_MODULE_WORDS)).1 <= 2.0);
        const { assert!(2_377_353 > DEFAULT_MAX_MODULE_WORDS) };
        assert_eq!(describe_cost(&plain(1234)), "1,234 words");
        assert_eq!(
            describe_cost(&ModuleCost {
                words: 1000,
                inlined_words: 5000,
                barriers: 3,
                ..ModuleCost::default()
            }),
            "1,000 words, 5,000 once its calls are inlined, 3 barriers"
        );
    }
}
