//! The hash maps and sets of the lowering: std's, with FxHash (rustc-hash) in place of SipHash (decision
//! D192). Their keys are SPIR-V ids, node and block indices, opcodes with operand lists: nothing an
//! adversary chooses to collide, and the lowering of a 10,000-instruction kernel hashes tens of millions
//! of them (a third of its instructions were SipHash's, issue 31). No output depends on the hasher: the
//! lowering never lets a map's iteration order reach the module (with std's per-process random keys it
//! would already differ between two runs).

pub(crate) type HashMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<rustc_hash::FxHasher>>;
pub(crate) type HashSet<K> =
    std::collections::HashSet<K, std::hash::BuildHasherDefault<rustc_hash::FxHasher>>;
