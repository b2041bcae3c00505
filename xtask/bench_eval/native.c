// Native side of `cargo xtask bench-eval`: the benchmark kernel's OpenCL C source compiled for x86-64 by
// clang-19 -O2 (with ../../fixtures/native/host.h, the fixtures' OpenCL-to-C shim), run over the whole grid
// on one thread — the evaluator is single-threaded too — work-item after work-item, workgroup after
// workgroup. The benchmark kernels have no barriers, so no per-work-item threads are needed (the fixtures'
// driver, fixtures/native/run.c, starts one per work-item for barriers; that would time thread creation).
//
//   native GX WX OUT SECONDS ARG...     ARG: u32:N | buf:PATH | zero:SIZE; the first buffer argument that
//                                       is `zero:` is the output, written to OUT after the runs
//
// Runs the grid repeatedly until SECONDS of CPU time have passed (at least 3 times) and prints the fastest
// run's CPU time (CLOCK_THREAD_CPUTIME_ID: the machine is shared, wall time would count others' slices) in
// nanoseconds. The kernels are pure (outputs a function of inputs), so every run writes the same output.
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include KERNEL_SOURCE

_Thread_local uint host_local_id[3];
uint host_group_id[3];
uint host_group_size[3];
void host_barrier(void) {}

static union {
    uint32_t u32;
    void *ptr;
} args[8];

#define ARG_U32(i) (args[i].u32)
#define ARG_PTR(i) (args[i].ptr)

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "native: %s: %s\n", what, detail);
    exit(2);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc - 5 > 8)
        die("usage", "native GX WX OUT SECONDS ARG...");
    uint grid = (uint)strtoul(argv[1], NULL, 0), wg = (uint)strtoul(argv[2], NULL, 0);
    const char *out = argv[3];
    double budget = strtod(argv[4], NULL);
    void *output = NULL;
    size_t output_size = 0;
    for (int i = 0; i < argc - 5; ++i) {
        char *a = argv[5 + i];
        if (!strncmp(a, "u32:", 4)) {
            args[i].u32 = (uint32_t)strtoul(a + 4, NULL, 0);
        } else if (!strncmp(a, "zero:", 5)) {
            size_t n = (size_t)strtoull(a + 5, NULL, 0);
            args[i].ptr = calloc(n ? n : 1, 1);
            if (!output) {
                output = args[i].ptr;
                output_size = n;
            }
        } else if (!strncmp(a, "buf:", 4)) {
            FILE *f = fopen(a + 4, "rb");
            if (!f)
                die("cannot open", a + 4);
            fseek(f, 0, SEEK_END);
            long n = ftell(f);
            fseek(f, 0, SEEK_SET);
            args[i].ptr = malloc(n ? (size_t)n : 1);
            if (n && fread(args[i].ptr, 1, (size_t)n, f) != (size_t)n)
                die("cannot read", a + 4);
            fclose(f);
        } else {
            die("bad argument", a);
        }
    }
    host_group_size[0] = wg;
    host_group_size[1] = host_group_size[2] = 1;
    uint groups = (grid + wg - 1) / wg;
    double best = 1e30, start = now();
    for (int rep = 0; rep < 3 || now() - start < budget; ++rep) {
        double t0 = now();
        for (uint g = 0; g < groups; ++g) {
            host_group_id[0] = g;
            uint n = grid - g * wg < wg ? grid - g * wg : wg;
            for (uint x = 0; x < n; ++x) {
                host_local_id[0] = x;
                KERNEL_CALL;
            }
        }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    FILE *f = fopen(out, "wb");
    if (!f || (output_size && fwrite(output, 1, output_size, f) != output_size) || fclose(f))
        die("cannot write", out);
    printf("%.0f\n", best * 1e9);
    return 0;
}
