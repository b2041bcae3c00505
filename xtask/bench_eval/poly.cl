// Benchmark kernel (cargo xtask bench-eval): ALU-bound f32. Horner's rule on x[i], N·UNROLL steps, each a
// multiply and an add (-ffp-contract=off keeps them two operations on both builds). UNROLL copies of the step
// per loop trip make the kernel's code grow while the work per work-item (N·UNROLL steps) stays the caller's.
#include "common.h"

#ifndef UNROLL
#define UNROLL 1
#endif

kernel void poly(global const float *x, global float *y, uint n)
{
    uint i = GID_X();
    float v = x[i];
    float acc = 1.0f;
    for (uint k = 0; k < n; ++k) {
#pragma unroll
        for (uint j = 0; j < UNROLL; ++j)
            acc = acc * v + (0.5f - 0.0625f * (float)j);
    }
    y[i] = acc;
}
