//! 64-bit LDS atomics under D060's workgroup lock in both mappings (decision D146).
//!
//! lavapipe runs a workgroup's invocations in 8-wide batches, each a coroutine that yields at a barrier
//! and at every atomic with Acquire or Release semantics. The lock used to be taken with an Acquire
//! compare-exchange and released with a Release store inside the retry loop, whose trip count differs
//! between batches, so the batches' barriers fell out of step: wrong sums with one full wave, waves that
//! never finish with several. Where the profile measured that a subgroup runs alone between barriers
//! (`subgroup_runs_alone`), the lock is now relaxed.
//!
//! fixtures/lane/lds64_sum.s: every work-item adds `((l - 16) mod 2^32) + 2^32` to one counter.
//! fixtures/lane/lds64_rtn.s: ds_add_rtn_u64 of 2^31 to one counter (the k-th add returns k * 2^31; the
//! kernel files each return under k, so the output does not depend on the order of the adds) and two
//! ds_cmpst_rtn_b64 on each work-item's own slot (the first swaps, the second fails). One full wave, and
//! three waves with a partial and an empty wave, wave32 and wave64; every run host vs lavapipe bit for
//! bit and every output word derived here in Rust from the ISA's rules. fixtures/lane/lds32_cas.s checks
//! the 32-bit compare-exchange retries (relaxed, no lock) the same way. Needs a Vulkan 1.3 device.

#[path = "support/lane.rs"]
mod lane;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What lds64_rtn.s stores: 8 words per work-item `l` of workgroup `g` (record `g * wg + l`): the first
/// ds_cmpst_rtn_b64 returns the slot's (l, !l) and swaps in (l + 256, 3 l); the second, comparing with
/// (l, !l) again, fails and returns (l + 256, 3 l); the counter after `n` adds of 2^31 is `n * 2^31`; and
/// words 6-7 hold the add that returned `l * 2^31` (the adds return 0, 2^31, ..., (n - 1) 2^31 in some
/// order, each filed under its own k).
fn lds64_rtn(grid: u32, wg: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for g in 0..grid.div_ceil(wg) {
        let n = lane::items(grid, wg, g);
        let fin = u64::from(n) << 31;
        for l in 0..n {
            let k = u64::from(l) << 31;
            out.extend([
                l,
                !l,
                l + 256,
                3 * l,
                fin as u32,
                (fin >> 32) as u32,
                k as u32,
                (k >> 32) as u32,
            ]);
        }
    }
    out
}

/// ds_add_u64 of every work-item: one full wave (four lavapipe batches; before D146 lavapipe lost the
/// last batch's adds), and three waves with a partial and an empty one (before D146 the waves never
/// wrote their flags), wave32 and wave64, in both mappings.
#[test]
fn lds64_sum_in_both_mappings() {
    for (m, want) in [
        ("lds64_sum_1wave.toml", lane::lds64_sum(64, 32)),
        ("lds64_sum_w32.toml", lane::lds64_sum(240, 96)),
        ("lds64_sum_w64.toml", lane::lds64_sum(464, 192)),
    ] {
        for mapping in ["lane", "wave"] {
            lane::run_fixture_both(m, mapping, &want);
        }
    }
}

/// ds_add_rtn_u64 and ds_cmpst_rtn_b64, their returned values checked, in the same shapes.
#[test]
fn lds64_returning_ops_in_both_mappings() {
    for (m, want) in [
        ("lds64_rtn_1wave.toml", lds64_rtn(64, 32)),
        ("lds64_rtn_w32.toml", lds64_rtn(240, 96)),
        ("lds64_rtn_w64.toml", lds64_rtn(464, 192)),
    ] {
        for mapping in ["lane", "wave"] {
            lane::run_fixture_both(m, mapping, &want);
        }
    }
}

/// The 32-bit LDS atomics that lower to a compare-exchange retry (float max, min and add, inc): relaxed
/// atomics without a lock, unaffected by D146, contended by every work-item of three waves on one address
/// each: bit-exact in the lane mapping (one invocation per lane, several lavapipe batches retrying) and
/// the wave mapping.
#[test]
fn lds32_compare_exchange_retries_in_both_mappings() {
    for (m, want) in [
        ("lds32_cas_w32.toml", lane::lds32_cas(240, 96)),
        ("lds32_cas_w64.toml", lane::lds32_cas(464, 192)),
    ] {
        for mapping in ["lane", "wave"] {
            lane::run_fixture_both(m, mapping, &want);
        }
    }
}

/// The lock's memory semantics follow the profile: the portable profile takes it with Acquire and
/// releases it with Release (what the Vulkan memory model needs where subgroups run concurrently); a
/// profile that measured `subgroup_runs_alone` takes and releases it relaxed. Counted as the atomic
/// instructions of the lane module of lds64_sum whose operands name a constant Acquire |
/// WorkgroupMemory (0x102) or Release | WorkgroupMemory (0x104) — the operands, since a constant of the
/// same value may serve elsewhere (the cut-short flag of block 1 is 2 | 1 << 8 = 0x102, D265).
#[test]
fn lock_semantics_follow_the_profile() {
    use rdna2spv_spirv::lower::Mapping;
    use rdna2spv_spirv::profile::DeviceProfile;
    let manifest = root().join("fixtures/lane/lds64_sum_w32.toml");
    let module = |p: &DeviceProfile| {
        let m = rdna2spv::manifest::Manifest::load(&manifest).unwrap();
        rdna2spv::dispatch::Plan::new(&m)
            .unwrap()
            .module(p, Mapping::Lane)
            .unwrap()
    };
    // An atomic instruction (OpAtomicLoad … OpAtomicXor) reading a 32-bit OpConstant of value `v`.
    let has_const = |w: &[u32], v: u32| {
        use rspirv::dr::Operand;
        use rspirv::spirv::Op;
        let m = rspirv::dr::load_words(w).expect("parses");
        let ids: Vec<u32> = m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Constant && i.operands == [Operand::LiteralBit32(v)])
            .filter_map(|i| i.result_id)
            .collect();
        let atomic = Op::AtomicLoad as u32..=Op::AtomicXor as u32;
        let found = m.all_inst_iter().any(|i| {
            atomic.contains(&(i.class.opcode as u32))
                && i.operands.iter().any(|o| match o {
                    Operand::IdRef(x) | Operand::IdMemorySemantics(x) | Operand::IdScope(x) => {
                        ids.contains(x)
                    }
                    _ => false,
                })
        });
        found
    };
    let portable = module(&DeviceProfile::portable());
    assert!(has_const(&portable, 0x102) && has_const(&portable, 0x104));
    let alone = module(&DeviceProfile {
        subgroup_runs_alone: true,
        ..DeviceProfile::portable()
    });
    assert!(!has_const(&alone, 0x102) && !has_const(&alone, 0x104));
}
