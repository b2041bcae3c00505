//! Walking a SPIR-V module's instruction stream as words (no parse): for the few static questions asked of
//! a finished module — how many instructions of one opcode it holds (loop constructs and atomics in the
//! tests; barriers as lavapipe meets them, calls inlined, are `rdna2spv_vulkan::limit::module_cost`'s),
//! and the lane mapping's split marker (`lower::split_factor`).

/// The instructions of `words` after the 5-word header, each as (opcode, its words including the first).
/// Stops at a zero word count or a truncated instruction.
pub fn instructions(words: &[u32]) -> impl Iterator<Item = (u32, &[u32])> {
    let mut i = 5;
    std::iter::from_fn(move || {
        let first = *words.get(i)?;
        let n = (first >> 16) as usize;
        if n == 0 || i + n > words.len() {
            return None;
        }
        let inst = &words[i..i + n];
        i += n;
        Some((first & 0xffff, inst))
    })
}

/// How many instructions with opcode `op` the module holds (e.g. 224, `OpControlBarrier`).
pub fn count_opcode(words: &[u32], op: u32) -> usize {
    instructions(words).filter(|&(o, _)| o == op).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_and_stops_at_bad_counts() {
        // header, OpCapability Shader (2 words), OpControlBarrier (4 words), a zero word count.
        let w = [
            0x0723_0203,
            0x0001_0300,
            0,
            10,
            0,
            0x0002_0011,
            1,
            0x0004_00e0,
            2,
            2,
            264,
            0,
            7,
        ];
        let ops: Vec<u32> = instructions(&w).map(|(o, _)| o).collect();
        assert_eq!(ops, [17, 224]);
        assert_eq!(count_opcode(&w, 224), 1);
        // Truncated: the barrier claims 4 words, 3 remain.
        assert_eq!(count_opcode(&w[..9], 224), 0);
    }
}
