// Benchmark kernel (cargo xtask bench-eval): ALU-bound 32-bit integer. A multiply-xorshift hash of x[i]
// iterated N·UNROLL times (UNROLL copies per loop trip, as in poly.cl).
#include "common.h"

#ifndef UNROLL
#define UNROLL 1
#endif

kernel void hash(global const uint *x, global uint *y, uint n)
{
    uint i = GID_X();
    uint h = x[i];
    for (uint k = 0; k < n; ++k) {
#pragma unroll
        for (uint j = 0; j < UNROLL; ++j) {
            h ^= h >> 16;
            h *= 0x7feb352du + 2u * j;
            h ^= h >> 15;
            h += k;
        }
    }
    y[i] = h;
}
