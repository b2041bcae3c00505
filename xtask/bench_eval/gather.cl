// Benchmark kernel (cargo xtask bench-eval): memory-bound. N·UNROLL dependent loads per work-item from a
// table of `mask + 1` words (mask = 2^k - 1), each index computed from the previous value: a pointer chase
// over a table larger than the host's caches.
#include "common.h"

#ifndef UNROLL
#define UNROLL 1
#endif

kernel void gather(global const uint *tab, global uint *y, uint n, uint mask)
{
    uint i = GID_X();
    uint idx = i * 2654435761u;
    uint acc = 0;
    for (uint k = 0; k < n; ++k) {
#pragma unroll
        for (uint j = 0; j < UNROLL; ++j) {
            uint v = tab[idx & mask];
            acc += v;
            idx = idx * 1664525u + v;
        }
    }
    y[i] = acc;
}
