//! One Vulkan workgroup per wave in the lane mapping (decision D105).
//!
//! The waves of a kernel workgroup can affect one another only through workgroup state: LDS (every
//! `Space::Lds` access: ds_*, LDS-returning buffer forms, ds_append/consume), `s_barrier`, and GDS/GWS/ordered
//! counters (refused by the lifter). A kernel with none of them — and no LDS allocation in its descriptor,
//! so that no flat access can reach the LDS aperture either — computes in each wave exactly what it would
//! compute beside the other waves of its workgroup. Such a kernel's waves are dispatched as separate
//! Vulkan workgroups of `wave size` invocations: the dispatch is `waves_per_workgroup` times wider in x,
//! and the module recovers the kernel workgroup id and the wave index from `WorkgroupId.x`:
//! `group_x = WorkgroupId.x / W`, `wave = WorkgroupId.x % W`, `groups_x = NumWorkgroups.x / W`. Every other
//! id (work-item ids of each lane, the partial workgroup's size, the wave's valid lanes, scratch slots and
//! flags) follows from these as before. With one wave per Vulkan workgroup every structured branch is
//! uniform in the Vulkan workgroup, so the votes, the `on` predication and the label publications of the
//! multi-wave form disappear; and with no `s_barrier`, no LDS and one wave, the barrier rounds of the outer
//! loop are not needed either ([`Cx::lane_solo`]).
//!
//! The module says it was split with an `OpModuleProcessed` string ([`SPLIT_MARK`] followed by `W`); the
//! runner reads it back ([`split_factor`]) to size the dispatch, so a module is never dispatched with the
//! wrong grid whoever lowered it.

use rdna2spv_ir::{Node, Program, Space};

use super::super::{Cx, KernelLayout};

/// The prefix of the `OpModuleProcessed` string of a split module; the decimal waves per kernel workgroup
/// follow it.
pub const SPLIT_MARK: &str = "rdna2spv lane split waves=";

/// Why the waves of `p`'s workgroups may share state (so they must share a Vulkan workgroup), or `None`
/// when each wave can run as a workgroup of its own.
pub fn waves_communicate(p: &Program, desc: &KernelLayout) -> Option<&'static str> {
    if desc.lds_bytes > 0 {
        return Some("the kernel allocates LDS");
    }
    for (_, n) in p.nodes.iter() {
        match n {
            Node::Barrier => return Some("the kernel has s_barrier"),
            Node::Load { space, .. }
            | Node::Store { space, .. }
            | Node::Atomic { space, .. }
            | Node::LoadIf { space, .. }
            | Node::StoreIf { space, .. }
            | Node::AtomicIf { space, .. }
                if *space == Space::Lds =>
            {
                return Some("the kernel accesses LDS")
            }
            _ => {}
        }
    }
    None
}

/// Waves per kernel workgroup that a lane-mapping module of `p` runs as separate Vulkan workgroups (1:
/// not split). `whole` is [`super::super::LowerOptions::whole_workgroups`].
pub fn split_waves(p: &Program, desc: &KernelLayout, whole: bool) -> u32 {
    let waves = desc.waves_per_workgroup();
    if whole || waves <= 1 || waves_communicate(p, desc).is_some() {
        1
    } else {
        waves
    }
}

/// The dispatch-width factor a module asks for: `W` from its [`SPLIT_MARK`] string, else 1.
pub fn split_factor(words: &[u32]) -> u32 {
    processed_number(words, SPLIT_MARK).map_or(1, |w| w.max(1))
}

/// The number after `prefix` in one of the module's `OpModuleProcessed` strings.
pub(crate) fn processed_number(words: &[u32], prefix: &str) -> Option<u32> {
    processed_string(words, prefix)?.parse::<u32>().ok()
}

/// What follows `prefix` in the first of the module's `OpModuleProcessed` strings that starts with it.
pub(crate) fn processed_string(words: &[u32], prefix: &str) -> Option<String> {
    const OP_MODULE_PROCESSED: u32 = 330;
    const OP_FUNCTION: u32 = 54;
    crate::words::instructions(words)
        .take_while(|&(op, _)| op != OP_FUNCTION)
        .filter(|&(op, _)| op == OP_MODULE_PROCESSED)
        .find_map(|(_, inst)| {
            let bytes: Vec<u8> = inst[1..]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            Some(
                std::str::from_utf8(&bytes)
                    .ok()?
                    .strip_prefix(prefix)?
                    .to_string(),
            )
        })
}

impl Cx<'_> {
    /// Lane mapping, one wave per Vulkan workgroup, no `s_barrier` and no LDS: the invocations of the
    /// Vulkan workgroup never need to meet and the wave never pauses, so the module runs one pass with no
    /// outer loop and no barrier rounds, its entry chain at the top (D142).
    pub(crate) fn lane_solo(&self) -> bool {
        self.lane_mode() && self.lane_plan().solo
    }
}
