//! Where a lane module's words go, by what each instruction is (issue 31; the census of
//! docs/performance.md "The corpus-size benchmark at D247"). `cargo xtask bench corpus-size` sums it over
//! the sample's unchecked modules and prints one row per origin.

use rspirv::spirv::{Op, StorageClass};
use std::collections::{HashMap, HashSet};

/// The origins, in the order the section prints them.
pub const ORIGINS: [&str; 14] = [
    "other arithmetic and logic (integer IR nodes, emulations inline, addresses, label tests)",
    "register variables (Function loads, stores, variables)",
    "pairs and conversions (`OpCompositeConstruct`/`Extract`, `OpBitcast`, `OpUConvert`/`OpSConvert`)",
    "control flow (labels, branches, merges)",
    "module header (types, constants, decorations, globals)",
    "selects whose false value is a register's load or phi (guards)",
    "other selects (`v_cndmask`, carries, clamps, pick trees)",
    "Workgroup memory (LDS, exchanges, ballots, labels)",
    "phis",
    "shared float-emulation function bodies",
    "global memory (pointers, loads, stores, atomics)",
    "calls of shared float emulations",
    "push constants, built-ins, barriers",
    "subgroup shuffles",
];

const ARITH: usize = 0;
const REGISTER: usize = 1;
const PAIRS: usize = 2;
const CONTROL: usize = 3;
const HEADER: usize = 4;
const GUARD: usize = 5;
const SELECT: usize = 6;
const WORKGROUP: usize = 7;
const PHI: usize = 8;
const BODIES: usize = 9;
const GLOBAL: usize = 10;
const CALLS: usize = 11;
const PLUMBING: usize = 12;
const SHUFFLE: usize = 13;

/// Words of `module` by origin (indices into [`ORIGINS`]); the five header words count as the module
/// header. Every function but the entry point's counts as a shared body.
pub fn census(module: &[u32]) -> [u64; ORIGINS.len()] {
    let mut out = [0u64; ORIGINS.len()];
    out[HEADER] += module.len().min(5) as u64;
    // (opcode, operands) of every instruction.
    let mut insts: Vec<(u32, &[u32])> = Vec::new();
    let mut i = 5;
    while i < module.len() {
        let n = (module[i] >> 16) as usize;
        if n == 0 || i + n > module.len() {
            break;
        }
        insts.push((module[i] & 0xffff, &module[i + 1..i + n]));
        i += n;
    }
    let is = |op: u32, o: Op| op == o as u32;
    let entry = insts
        .iter()
        .find(|&&(op, a)| is(op, Op::EntryPoint) && a.len() >= 2)
        .map(|&(_, a)| a[1]);
    // Pointer ids by storage class; the results of loads and phis.
    let mut class: HashMap<u32, u32> = HashMap::new();
    let mut load_or_phi: HashSet<u32> = HashSet::new();
    for &(op, a) in &insts {
        if is(op, Op::Variable) && a.len() >= 3 {
            class.insert(a[1], a[2]);
        } else if (is(op, Op::AccessChain) || is(op, Op::InBoundsAccessChain)) && a.len() >= 3 {
            if let Some(&c) = class.get(&a[2]) {
                class.insert(a[1], c);
            }
        } else if is(op, Op::ConvertUToPtr) && a.len() >= 2 {
            class.insert(a[1], StorageClass::PhysicalStorageBuffer as u32);
        } else if (is(op, Op::Load) || is(op, Op::Phi)) && a.len() >= 2 {
            load_or_phi.insert(a[1]);
        }
    }
    let memory = |c: Option<&u32>| match c.copied() {
        Some(c) if c == StorageClass::Function as u32 => REGISTER,
        Some(c) if c == StorageClass::Workgroup as u32 => WORKGROUP,
        Some(c) if c == StorageClass::PhysicalStorageBuffer as u32 => GLOBAL,
        _ => PLUMBING,
    };
    // Outside every function (None), in the entry point (Some(true)) or in another (Some(false)).
    let mut inside: Option<bool> = None;
    for &(op, a) in &insts {
        if is(op, Op::Function) {
            inside = Some(a.get(1).copied() == entry);
        }
        let words = a.len() as u64 + 1;
        let origin = if inside.is_none() {
            HEADER
        } else if inside == Some(false) {
            BODIES
        } else if is(op, Op::Load) {
            memory(a.get(2).and_then(|p| class.get(p)))
        } else if is(op, Op::Store) {
            memory(a.first().and_then(|p| class.get(p)))
        } else if is(op, Op::Variable) {
            REGISTER
        } else if is(op, Op::AccessChain) || is(op, Op::InBoundsAccessChain) {
            match memory(a.get(2).and_then(|p| class.get(p))) {
                WORKGROUP => WORKGROUP,
                _ => PLUMBING,
            }
        } else if [
            Op::AtomicLoad,
            Op::AtomicExchange,
            Op::AtomicCompareExchange,
            Op::AtomicIAdd,
            Op::AtomicISub,
            Op::AtomicAnd,
            Op::AtomicOr,
            Op::AtomicXor,
            Op::AtomicUMin,
            Op::AtomicUMax,
            Op::AtomicSMin,
            Op::AtomicSMax,
        ]
        .iter()
        .any(|&o| is(op, o))
        {
            match memory(a.get(2).and_then(|p| class.get(p))) {
                WORKGROUP => WORKGROUP,
                _ => GLOBAL,
            }
        } else if is(op, Op::AtomicStore) {
            match memory(a.first().and_then(|p| class.get(p))) {
                WORKGROUP => WORKGROUP,
                _ => GLOBAL,
            }
        } else if is(op, Op::ConvertUToPtr) {
            GLOBAL
        } else if is(op, Op::Select) {
            if a.get(4).is_some_and(|f| load_or_phi.contains(f)) {
                GUARD
            } else {
                SELECT
            }
        } else if is(op, Op::Phi) {
            PHI
        } else if [
            Op::Label,
            Op::Branch,
            Op::BranchConditional,
            Op::SelectionMerge,
            Op::LoopMerge,
            Op::Switch,
            Op::Return,
            Op::ReturnValue,
            Op::Function,
            Op::FunctionEnd,
        ]
        .iter()
        .any(|&o| is(op, o))
        {
            CONTROL
        } else if [
            Op::CompositeConstruct,
            Op::CompositeExtract,
            Op::Bitcast,
            Op::UConvert,
            Op::SConvert,
        ]
        .iter()
        .any(|&o| is(op, o))
        {
            PAIRS
        } else if is(op, Op::FunctionCall) {
            CALLS
        } else if is(op, Op::ControlBarrier) || is(op, Op::MemoryBarrier) {
            PLUMBING
        } else if is(op, Op::GroupNonUniformShuffle) {
            SHUFFLE
        } else {
            ARITH
        };
        out[origin] += words;
    }
    out
}

/// The origins of [`by_instruction`] that are not a machine instruction's mnemonic.
pub const HEADER_ORIGIN: &str = "(module header)";
/// Shared function bodies (the outlined float emulations).
pub const BODIES_ORIGIN: &str = "(shared function bodies)";
/// Ids made before the first mark: the prologue, and constants an instruction stores or branches on.
pub const PROLOGUE_ORIGIN: &str = "(prologue, constants)";
/// Ids past the last mark: made by the lane module's rewrites (phis, selects, joined loads).
pub const REWRITES_ORIGIN: &str = "(rewrites)";
/// Function variables.
pub const VARIABLES_ORIGIN: &str = "(variables)";

/// Words of `module` by the origin of each instruction (issue 31, session 51), from `marks` of
/// `lower_attributed` (first id of each machine instruction's code or block frame, increasing): an
/// instruction of the entry point belongs to the mark at or below its result id; one without a result
/// to the mark of the value it stores or branches on (a store's value, a conditional branch's condition,
/// a branch's target label). Header, shared bodies, variables and the ids before the first mark or past
/// the last have their own rows. Every word of the module is counted once.
pub fn by_instruction(module: &[u32], marks: &[(u32, String)]) -> HashMap<String, u64> {
    let mut out: HashMap<String, u64> = HashMap::new();
    *out.entry(HEADER_ORIGIN.into()).or_default() += module.len().min(5) as u64;
    let last = marks.last().map(|m| m.0).unwrap_or(0);
    // The entry point's function id.
    let mut entry = None;
    let mut i = 5;
    let mut in_fn: Option<u32> = None;
    while i < module.len() {
        let n = (module[i] >> 16) as usize;
        if n == 0 || i + n > module.len() {
            *out.entry(HEADER_ORIGIN.into()).or_default() += (module.len() - i) as u64;
            break;
        }
        let (op, a) = (module[i] & 0xffff, &module[i + 1..i + n]);
        let is = |o: Op| op == o as u32;
        if is(Op::EntryPoint) && entry.is_none() {
            entry = a.get(1).copied();
        }
        if is(Op::Function) {
            in_fn = a.get(1).copied();
        }
        let origin = match in_fn {
            None => HEADER_ORIGIN.to_string(),
            Some(f) if Some(f) != entry => BODIES_ORIGIN.to_string(),
            Some(_) if is(Op::Variable) => VARIABLES_ORIGIN.to_string(),
            Some(_) => {
                let key = if is(Op::Store) {
                    a.get(1).copied()
                } else if is(Op::BranchConditional) || is(Op::Branch) || is(Op::Label) {
                    a.first().copied()
                } else {
                    // The result id: after the result type when there is one, else the first operand.
                    let grammar = rspirv::grammar::INSTRUCTION_TABLE.lookup_opcode(op);
                    let kinds: Vec<rspirv::grammar::OperandKind> = grammar
                        .map(|g| g.operands.iter().take(2).map(|o| o.kind).collect())
                        .unwrap_or_default();
                    use rspirv::grammar::OperandKind::{IdResult, IdResultType};
                    match kinds[..] {
                        [IdResultType, IdResult, ..] => a.get(1).copied(),
                        [IdResult, ..] => a.first().copied(),
                        _ => a.first().copied(),
                    }
                };
                match key {
                    Some(x) if x > last => REWRITES_ORIGIN.to_string(),
                    Some(x) => match marks.partition_point(|m| m.0 <= x) {
                        0 => PROLOGUE_ORIGIN.to_string(),
                        k => marks[k - 1].1.clone(),
                    },
                    None => PROLOGUE_ORIGIN.to_string(),
                }
            }
        };
        if is(Op::FunctionEnd) {
            in_fn = None;
        }
        *out.entry(origin).or_default() += n as u64;
        i += n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rspirv::binary::Assemble as _;
    use rspirv::dr::Builder;
    use rspirv::spirv::{
        AddressingModel, Capability, ExecutionModel, FunctionControl, MemoryModel,
    };

    /// A shared body (`void f() {}`, 5 + 2 + 1 + 1 words), then the entry function begun: its id.
    fn shared_body_then_main(b: &mut Builder, void: u32, fvoid: u32) -> u32 {
        b.begin_function(void, None, FunctionControl::NONE, fvoid)
            .unwrap();
        b.begin_block(None).unwrap();
        b.ret().unwrap();
        b.end_function().unwrap();
        b.begin_function(void, None, FunctionControl::NONE, fvoid)
            .unwrap()
    }

    /// A hand-built module: a Function variable's load, a select of it (a guard), its store, a
    /// Workgroup load, an add, a phi, and a second function; each lands in its origin with its own
    /// word count (the SPIR-V encoding: one word of opcode and count, then the operands).
    #[test]
    fn each_instruction_counts_once_in_its_origin() {
        let mut b = Builder::new();
        b.capability(Capability::Shader);
        b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        let void = b.type_void();
        let boolt = b.type_bool();
        let u32t = b.type_int(32, 0);
        let fvoid = b.type_function(void, []);
        let fptr = b.type_pointer(None, StorageClass::Function, u32t);
        let wptr = b.type_pointer(None, StorageClass::Workgroup, u32t);
        let one = b.constant_bit32(u32t, 1);
        let t = b.constant_true(boolt);
        let shared = b.variable(wptr, None, StorageClass::Workgroup, None);
        // The shared body first: the entry point is found by its OpEntryPoint, not by its place.
        let main = shared_body_then_main(&mut b, void, fvoid);
        let l1 = b.id();
        b.begin_block(Some(l1)).unwrap();
        let var = b.variable(fptr, None, StorageClass::Function, None); // 4 words: register
        let x = b.load(u32t, None, var, None, []).unwrap(); // 4: register
        let s = b.select(u32t, None, t, one, x).unwrap(); // 6: guard
        b.store(var, s, None, []).unwrap(); // 3: register
        let w = b.load(u32t, None, shared, None, []).unwrap(); // 4: Workgroup
        let y = b.i_add(u32t, None, w, s).unwrap(); // 5: arithmetic
        let l2 = b.id();
        b.branch(l2).unwrap(); // 2: control
        b.begin_block(Some(l2)).unwrap(); // 2: control
        b.phi(u32t, None, [(y, l1)]).unwrap(); // 5: phi
        b.ret().unwrap(); // 1: control
        b.end_function().unwrap(); // function 5 + end 1 + first label 2: control
        b.entry_point(ExecutionModel::GLCompute, main, "main", []);
        let words = b.module().assemble();
        let c = census(&words);
        assert_eq!(c.iter().sum::<u64>(), words.len() as u64);
        assert_eq!(c[REGISTER], 4 + 4 + 3);
        assert_eq!(c[GUARD], 6);
        assert_eq!(c[WORKGROUP], 4);
        assert_eq!(c[ARITH], 5);
        assert_eq!(c[PHI], 5);
        assert_eq!(c[CONTROL], 5 + 2 + 2 + 2 + 1 + 1);
        assert_eq!(c[BODIES], 9);
        assert_eq!(
            c[SELECT] + c[PAIRS] + c[CALLS] + c[GLOBAL] + c[SHUFFLE] + c[PLUMBING],
            0
        );
    }

    /// `by_instruction` (session 51): instructions of the entry point go to the mark at or below their
    /// result id (a store by its value, a branch by its target); ids past the last mark are the
    /// rewrites', before the first the prologue's; the header, shared bodies and variables have rows of
    /// their own; every word once.
    #[test]
    fn by_instruction_counts_each_word_once_by_its_mark() {
        let mut b = Builder::new();
        b.capability(Capability::Shader);
        b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        let void = b.type_void();
        let u32t = b.type_int(32, 0);
        let fvoid = b.type_function(void, []);
        let fptr = b.type_pointer(None, StorageClass::Function, u32t);
        let one = b.constant_bit32(u32t, 1);
        let main = shared_body_then_main(&mut b, void, fvoid);
        b.begin_block(None).unwrap(); // 2: before the first mark
        let var = b.variable(fptr, None, StorageClass::Function, None); // 4: variables
        let p = b.load(u32t, None, var, None, []).unwrap(); // 4: before the first mark
        let a = b.id(); // the mark of `v_a`
        let x = b.i_add(u32t, None, p, one).unwrap(); // 5: v_a
        b.store(var, x, None, []).unwrap(); // 3: v_a (its value)
        b.store(var, one, None, []).unwrap(); // 3: the constant's, before the first mark
        let f = b.id(); // the mark of a frame
        let l2 = b.id();
        b.branch(l2).unwrap(); // 2: (frame), by its target
        b.begin_block(Some(l2)).unwrap(); // 2: (frame)
        let y = b.i_mul(u32t, None, x, x).unwrap(); // 5: (frame)
        let z = b.bitwise_and(u32t, None, y, one).unwrap(); // made "by a rewrite": past the marks
        b.store(var, z, None, []).unwrap(); // 3 + 5: rewrites
        b.ret().unwrap(); // 1: before the first mark (no operand)
        b.end_function().unwrap(); // 5 + 1: before the first mark (result id `main`, no operand)
        b.entry_point(ExecutionModel::GLCompute, main, "main", []);
        let words = b.module().assemble();
        assert!(z > y && y > l2);
        let marks = vec![
            (a, "v_a".to_string()),
            (f, "(frame)".to_string()),
            (y, "x".into()),
        ];
        // `y` marks nothing of its own here: past the last mark means `> y`, and `y` itself is "x".
        let c = by_instruction(&words, &marks);
        assert_eq!(c.values().sum::<u64>(), words.len() as u64);
        assert_eq!(c["v_a"], 5 + 3);
        assert_eq!(c["(frame)"], 2 + 2);
        assert_eq!(c["x"], 5);
        assert_eq!(c[REWRITES_ORIGIN], 5 + 3);
        assert_eq!(c[VARIABLES_ORIGIN], 4);
        assert_eq!(c[BODIES_ORIGIN], 9);
        assert_eq!(c[PROLOGUE_ORIGIN], 5 + 2 + 4 + 3 + 1 + 1);
        // The header: every word before the first OpFunction.
        let mut at = 5;
        while words[at] & 0xffff != Op::Function as u32 {
            at += (words[at] >> 16) as usize;
        }
        assert_eq!(c[HEADER_ORIGIN], at as u64);
    }
}
