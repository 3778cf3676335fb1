/* xray_omp.c — examples/xray.ssc written by hand with OpenMP, the way an
 * OpenMP user writes it: every box is one `#pragma omp parallel for` over
 * its rows (fork-join per box, boxes one after the other in the chain's
 * order), every edge a whole-frame buffer malloc'ed once before the first
 * frame.
 *
 * It computes exactly the built-ins of runtime-c/ssc_kernels.c for float
 * (bit-identical: same source pattern with the frame number as iteration,
 * conv with clamped coordinates summed as Σdx(Σdy) from 0, down = mean of
 * the 2x2 block summed left to right, up = nearest, avg, gain x*3/2, plus,
 * mul), and its three sinks add ssc's checksum with the sinks' function ids
 * (display 16, store 18, monitor 20): it prints the checksum of every ssc
 * program of the chain for the same frame count and resolution.
 *
 * Latency of a frame: from the start of its sources to the end of its sinks.
 *
 *   gcc -O3 -march=native -fopenmp -Wall -Wextra -o xray_omp xray_omp.c -lm
 *   OMP_NUM_THREADS=2 ./xray_omp [--resolution 512] [--iterations 200] [--json]
 */
#include "peers_common.h"

#include <omp.h>

/* ---- the built-ins, one parallel loop over rows each ------------------- */

static void source(float *out, int64_t w, int64_t h, uint64_t it)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        float *row = out + y * w;
        uint64_t p = peer_source_pattern(0, y, it);
        for (int64_t x = 0; x < w; x++) {
            row[x] = peer_source_value(p);
            p = p + 7 >= 251 ? p + 7 - 251 : p + 7;
        }
    }
}

static void plus(float *restrict out, const float *restrict a, const float *restrict b,
                 int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = a[y * w + x] + b[y * w + x];
}

static void mul(float *restrict out, const float *restrict a, const float *restrict b,
                int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = a[y * w + x] * b[y * w + x];
}

static void avg(float *restrict out, const float *restrict a, const float *restrict b,
                int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = (a[y * w + x] + b[y * w + x]) / 2;
}

static void gain(float *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = in[y * w + x] * 3 / 2;
}

static void copy(float *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++)
        memcpy(out + y * w, in + y * w, (size_t)w * sizeof *out);
}

static inline int64_t clampi(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* One output element of the 3x3 box filter over rows r0, r1, r2 (already
 * clamped), columns u0, u1, u2 (already clamped): ssc's summation order. */
static inline float conv3(const float *r0, const float *r1, const float *r2, int64_t u0,
                          int64_t u1, int64_t u2)
{
    float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, acc = 0.0f;
    c0 += r0[u0]; c0 += r1[u0]; c0 += r2[u0];
    c1 += r0[u1]; c1 += r1[u1]; c1 += r2[u1];
    c2 += r0[u2]; c2 += r1[u2]; c2 += r2[u2];
    acc += c0; acc += c1; acc += c2;
    return acc / 9.0f;
}

/* 3x3 mean, coordinates clamped to the grid (w >= 2). */
static void conv(float *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        const float *r0 = in + clampi(y - 1, 0, h - 1) * w;
        const float *r1 = in + y * w;
        const float *r2 = in + clampi(y + 1, 0, h - 1) * w;
        float *o = out + y * w;
        o[0] = conv3(r0, r1, r2, 0, 0, 1);
        for (int64_t x = 1; x < w - 1; x++)
            o[x] = conv3(r0, r1, r2, x - 1, x, x + 1);
        o[w - 1] = conv3(r0, r1, r2, w - 2, w - 1, w - 1);
    }
}

/* Output (w x h) element = mean of the 2x2 input block (input 2w x 2h). */
static void down(float *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        const float *a = in + (2 * y) * (2 * w), *b = in + (2 * y + 1) * (2 * w);
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = (a[2 * x] + a[2 * x + 1] + b[2 * x] + b[2 * x + 1]) / 4;
    }
}

/* Output (w x h) element (x, y) = input (w/2-wide) element (x/2, y/2). */
static void up(float *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        const float *r = in + (y / 2) * (w / 2);
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = r[x / 2];
    }
}

/* ssc's sink: key(id, it) · Σ mix(y·w + x, bits(value)). */
static uint64_t sink(const float *in, int64_t w, int64_t h, uint32_t id, uint64_t it)
{
    uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int64_t y = 0; y < h; y++)
        sum += peer_sink_rows(in, w, y, y + 1);
    return sum * peer_key(id, it);
}

/* ---- buffers ------------------------------------------------------------ */

static uint64_t allocated;

/* A 64-byte aligned w x h float buffer, zeroed (so pre-faulted, like ssc's
 * arenas), counted in `allocated`. */
static float *buffer(int64_t w, int64_t h)
{
    size_t bytes = (size_t)w * (size_t)h * sizeof(float);
    float *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "xray_omp: out of memory\n");
        exit(3);
    }
    memset(p, 0, bytes);
    allocated += bytes;
    return p;
}

int main(int argc, char **argv)
{
    peer_options opt;
    peer_parse_args(&opt, "xray_omp", argc, argv);
    const int64_t R = opt.resolution, H = R / 2, Q = R / 4;

    /* One buffer per edge of the chain (18), as ssc's `-ms naive`. */
    float *raw = buffer(R, R), *offset = buffer(R, R), *gainmap = buffer(R, R);
    float *subtract = buffer(R, R), *flatfield = buffer(R, R), *defect = buffer(R, R);
    float *nr0 = buffer(R, R), *down1 = buffer(H, H), *nr1 = buffer(H, H);
    float *down2 = buffer(Q, Q), *nr2 = buffer(Q, Q), *up2 = buffer(H, H);
    float *merge1 = buffer(H, H), *up1 = buffer(R, R), *merge0 = buffer(R, R);
    float *contrast = buffer(R, R), *archive = buffer(R, R), *preview = buffer(H, H);

    uint64_t *lat = peer_latencies(&opt);
    uint64_t checksum = 0;
    for (uint64_t i = 0; i < opt.iterations; i++) {
        uint64_t t0 = peer_now_ns();
        source(raw, R, R, i);
        source(offset, R, R, i);
        source(gainmap, R, R, i);
        plus(subtract, raw, offset, R, R);
        mul(flatfield, subtract, gainmap, R, R);
        conv(defect, flatfield, R, R);
        conv(nr0, defect, R, R);
        down(down1, defect, H, H);
        conv(nr1, down1, H, H);
        down(down2, nr1, Q, Q);
        conv(nr2, down2, Q, Q);
        up(up2, nr2, H, H);
        plus(merge1, nr1, up2, H, H);
        up(up1, merge1, R, R);
        avg(merge0, nr0, up1, R, R);
        gain(contrast, merge0, R, R);
        checksum += sink(contrast, R, R, PEER_ID_DISPLAY, i);
        copy(archive, contrast, R, R);
        checksum += sink(archive, R, R, PEER_ID_STORE, i);
        down(preview, contrast, H, H);
        checksum += sink(preview, H, H, PEER_ID_MONITOR, i);
        lat[i] = peer_now_ns() - t0;
    }

    peer_report(&opt, omp_get_max_threads(), lat, opt.iterations, checksum, allocated);
    free(lat);
    float *all[] = { raw, offset, gainmap, subtract, flatfield, defect, nr0, down1, nr1,
                     down2, nr2, up2, merge1, up1, merge0, contrast, archive, preview };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        free(all[k]);
    return 0;
}
