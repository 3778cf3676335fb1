/* roofline.c — this machine's two ceilings for run.py's roofline, on
 * OMP_NUM_THREADS threads (2):
 *
 *  memory bandwidth: STREAM's copy (b[i] = a[i]) and triad
 *      (a[i] = b[i] + s * c[i]) over float arrays of 32 Mi elements
 *      (128 MiB each, far above the 32 MiB last-level cache), bytes counted
 *      as STREAM counts them (copy 8, triad 12 per element; the
 *      write-allocate read is not counted), the best of 10 passes;
 *  vector throughput: AVX (8 floats) vaddps, vmulps, both interleaved, and
 *      vmin/vmaxps, 12 independent accumulators a thread (more than
 *      latency x pipes), in float operations (lanes) a second, the best of
 *      5 passes. The chains' operations are unfused adds, multiplies,
 *      min/max, conversions (ssc's C is ISO C: no FMA contraction), so
 *      run.py divides their count by the interleaved add+mul rate.
 *
 * Prints one JSON object.
 *
 *   gcc -std=c11 -O2 -march=native -fopenmp -o roofline roofline.c
 *   OMP_NUM_THREADS=2 ./roofline
 */
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define N (32L << 20)

static double stream(int triad, float *a, float *b, float *c)
{
    double best = 1e30;
    for (int k = 0; k < 10; k++) {
        double t0 = now();
        if (triad) {
#pragma omp parallel for schedule(static)
            for (long i = 0; i < N; i++)
                a[i] = b[i] + 3.0f * c[i];
        } else {
#pragma omp parallel for schedule(static)
            for (long i = 0; i < N; i++)
                b[i] = a[i];
        }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    return (double)N * (triad ? 12 : 8) / best;
}

#define ITERS 120000000L   /* instructions a thread */

/* One kind of instruction, op(j, acc): 12 independent chains. */
#define KERNEL(name, OP)                                                              \
    static double name(void)                                                          \
    {                                                                                 \
        double best = 1e30;                                                           \
        float sink = 0;                                                               \
        for (int k = 0; k < 5; k++) {                                                 \
            double t0 = now();                                                        \
            _Pragma("omp parallel reduction(+ : sink)")                               \
            {                                                                         \
                __m256 acc[12];                                                       \
                for (int j = 0; j < 12; j++)                                          \
                    acc[j] = _mm256_set1_ps(1.0f + (float)j * 1e-3f);                 \
                const __m256 m = _mm256_set1_ps(0.9999999f), d = _mm256_set1_ps(1e-7f); \
                (void)m, (void)d;                                                     \
                for (long i = 0; i < ITERS / 12; i++) {                               \
                    OP(0) OP(1) OP(2) OP(3) OP(4) OP(5)                               \
                    OP(6) OP(7) OP(8) OP(9) OP(10) OP(11)                             \
                }                                                                     \
                float out[8];                                                         \
                __m256 s = acc[0];                                                    \
                for (int j = 1; j < 12; j++)                                          \
                    s = _mm256_add_ps(s, acc[j]);                                     \
                _mm256_storeu_ps(out, s);                                             \
                sink += out[0];                                                       \
            }                                                                         \
            double t = now() - t0;                                                    \
            if (t < best)                                                             \
                best = t;                                                             \
        }                                                                             \
        if (sink == 12345.0f)                                                         \
            puts("");                                                                 \
        return (double)omp_get_max_threads() * (double)(ITERS / 12 * 12) * 8 / best;  \
    }

#define OP_ADD(j) acc[j] = _mm256_add_ps(acc[j], d);
#define OP_MUL(j) acc[j] = _mm256_mul_ps(acc[j], m);
#define OP_ADDMUL(j) acc[j] = ((j) & 1) ? _mm256_mul_ps(acc[j], m) : _mm256_add_ps(acc[j], d);
#define OP_MINMAX(j) acc[j] = ((j) & 1) ? _mm256_min_ps(acc[j], m) : _mm256_max_ps(acc[j], d);
KERNEL(rate_add, OP_ADD)
KERNEL(rate_mul, OP_MUL)
KERNEL(rate_addmul, OP_ADDMUL)
KERNEL(rate_minmax, OP_MINMAX)

int main(void)
{
    float *a = aligned_alloc(64, N * 4), *b = aligned_alloc(64, N * 4), *c = aligned_alloc(64, N * 4);
    if (!a || !b || !c)
        return 3;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < N; i++)
        a[i] = 1.0f, b[i] = 2.0f, c[i] = 0.5f;
    double copy = stream(0, a, b, c), triad = stream(1, a, b, c);
    double add = rate_add(), mul = rate_mul(), addmul = rate_addmul(), minmax = rate_minmax();
    printf("{\"threads\": %d, \"copy_GBps\": %.2f, \"triad_GBps\": %.2f, "
           "\"add_Gops\": %.1f, \"mul_Gops\": %.1f, \"addmul_Gops\": %.1f, \"minmax_Gops\": %.1f}\n",
           omp_get_max_threads(), copy / 1e9, triad / 1e9, add / 1e9, mul / 1e9, addmul / 1e9,
           minmax / 1e9);
    return 0;
}
