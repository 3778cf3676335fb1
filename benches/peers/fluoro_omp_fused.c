/* fluoro_omp_fused.c — examples/fluoro.ssc as the best an OpenMP user
 * writes it: one `#pragma omp parallel for` over strips of output rows per
 * frame; each strip computes exactly the rows of every producer it needs
 * (the Laplacian pyramid's half and quarter levels under the strip with
 * their halo rows) into small per-thread scratch buffers, then its rows of
 * the three outputs, and folds ssc's checksum over them while they are in
 * the cache. Row loops over contiguous floats that gcc vectorises; the
 * resolution is a compile-time constant (-DRES=1024).
 *
 * Bit-exact with ssc (the same float operations in ssc's order, borders
 * clamped): the checksum is ssc's. Frames in memory: --input raw=…
 * --input dark=… --input gain=… as ssc's program takes them.
 *
 *   gcc -std=c11 -O3 -march=native -fno-trapping-math -fopenmp -DRES=1024 \
 *       -o fluoro_omp_fused fluoro_omp_fused.c -lm
 *   OMP_NUM_THREADS=2 ./fluoro_omp_fused --resolution 1024 --iterations 300 \
 *       --input raw=frames/raw --input dark=frames/dark.pgm --input gain=frames/gain.pfm
 */
#include "omp_rows.h"

#include <omp.h>

#ifndef RES
#define RES 1024
#endif
#ifndef STRIP
#define STRIP 64   /* output rows per strip (a multiple of 4) */
#endif

enum { R = RES, H = RES / 2, Q = RES / 4, NSTRIPS = (RES + STRIP - 1) / STRIP };
enum { ID_ARCHIVE = 14, ID_DISPLAY = 16, ID_PREVIEW = 20 };

/* The rows of each stage a strip [y0, y1) of full-resolution rows needs. */
typedef struct {
    range c, g0, l1, g1, l2, g2, out, half, quarter;
} plan;

static plan plan_strip(int64_t y0, int64_t y1)
{
    plan p;
    p.out = rg(y0, y1, R);
    p.half = rg(y0 / 2, y1 / 2, H);          /* r1, e1, p1 */
    p.quarter = rg(y0 / 4, y1 / 4, Q);       /* g2 (nearest up), p2, preview */
    p.g2 = p.quarter;
    p.l2 = rg(p.quarter.lo - 2, p.quarter.hi + 2, Q);
    p.g1 = unite(p.half, rg(2 * p.l2.lo, 2 * p.l2.hi, H));
    p.l1 = rg(p.g1.lo - 2, p.g1.hi + 2, H);
    p.g0 = unite(p.out, rg(2 * p.l1.lo, 2 * p.l1.hi, R));
    p.c = rg(p.g0.lo - 2, p.g0.hi + 2, R);
    return p;
}

typedef struct {
    rows c, hg0, g0, l1, hg1, g1, l2, hg2, g2, r1;
    float *p1;   /* two rows of p1 (H wide), then r0's even row (R wide) */
} scratch;

static void scratch_init(scratch *s)
{
    int64_t cap[9] = { 0 };
    for (int64_t k = 0; k < NSTRIPS; k++) {
        plan p = plan_strip(k * STRIP, imin((k + 1) * STRIP, R));
        range *r = &p.c;
        for (int j = 0; j < 9; j++)
            cap[j] = imax(cap[j], rows_of(r[j]));
    }
    rows_alloc(&s->c, R, cap[0]);
    rows_alloc(&s->hg0, R, cap[0]);
    rows_alloc(&s->g0, R, cap[1]);
    rows_alloc(&s->l1, H, cap[2]);
    rows_alloc(&s->hg1, H, cap[2]);
    rows_alloc(&s->g1, H, cap[3]);
    rows_alloc(&s->l2, Q, cap[4]);
    rows_alloc(&s->hg2, Q, cap[4]);
    rows_alloc(&s->g2, Q, cap[5]);
    rows_alloc(&s->r1, H, cap[7]);
    s->p1 = aligned_alloc(64, (size_t)(2 * H + R) * 4);
}

static inline uint8_t to_display(float v)
{
    return (uint8_t)minf(maxf(floorf((v - 512.0f) / 32.0f + 0.5f), 0.0f), 255.0f);
}

typedef struct {
    uint64_t archive, display, preview;
} sums;

static sums strip(scratch *s, int64_t y0, int64_t y1, const uint16_t *restrict raw,
                  const uint16_t *restrict dark, const float *restrict gain,
                  uint16_t *restrict archive, uint8_t *restrict display, uint8_t *restrict preview)
{
    plan p = plan_strip(y0, y1);
    /* c = max(float(raw) - float(dark), 0) * gain, and g0's horizontal pass */
    rows_set(&s->c, p.c);
    rows_set(&s->hg0, p.c);
    for (int64_t y = p.c.lo; y < p.c.hi; y++) {
        float *o = row(&s->c, y, R);
        const uint16_t *a = raw + y * R, *b = dark + y * R;
        const float *g = gain + y * R;
        for (int64_t x = 0; x < R; x++)
            o[x] = maxf((float)a[x] - (float)b[x], 0.0f) * g[x];
        h14641(row(&s->hg0, y, R), o, R);
    }
    /* g0 = gauss5(c) */
    rows_set(&s->g0, p.g0);
    for (int64_t y = p.g0.lo; y < p.g0.hi; y++)
        v14641(row(&s->g0, y, R), row(&s->hg0, y - 2, R), row(&s->hg0, y - 1, R),
               row(&s->hg0, y, R), row(&s->hg0, y + 1, R), row(&s->hg0, y + 2, R), R);
    /* l1 = down2(g0), g1 = gauss5(l1) */
    rows_set(&s->l1, p.l1);
    rows_set(&s->hg1, p.l1);
    for (int64_t y = p.l1.lo; y < p.l1.hi; y++) {
        down2_row(row(&s->l1, y, H), row(&s->g0, 2 * y, R), row(&s->g0, 2 * y + 1, R), H);
        h14641(row(&s->hg1, y, H), row(&s->l1, y, H), H);
    }
    rows_set(&s->g1, p.g1);
    for (int64_t y = p.g1.lo; y < p.g1.hi; y++)
        v14641(row(&s->g1, y, H), row(&s->hg1, y - 2, H), row(&s->hg1, y - 1, H),
               row(&s->hg1, y, H), row(&s->hg1, y + 1, H), row(&s->hg1, y + 2, H), H);
    /* l2 = down2(g1), g2 = gauss5(l2) */
    rows_set(&s->l2, p.l2);
    rows_set(&s->hg2, p.l2);
    for (int64_t y = p.l2.lo; y < p.l2.hi; y++) {
        down2_row(row(&s->l2, y, Q), row(&s->g1, 2 * y, H), row(&s->g1, 2 * y + 1, H), Q);
        h14641(row(&s->hg2, y, Q), row(&s->l2, y, Q), Q);
    }
    rows_set(&s->g2, p.quarter);
    for (int64_t y = p.quarter.lo; y < p.quarter.hi; y++)
        v14641(row(&s->g2, y, Q), row(&s->hg2, y - 2, Q), row(&s->hg2, y - 1, Q),
               row(&s->hg2, y, Q), row(&s->hg2, y + 1, Q), row(&s->hg2, y + 2, Q), Q);
    /* r1 = up2(g2) + 1.5 (l1 - g1)   (e1 = l1 - g1; up2 the nearest) */
    rows_set(&s->r1, p.half);
    for (int64_t y = p.half.lo; y < p.half.hi; y++) {
        float *o = row(&s->r1, y, H);
        const float *c = row(&s->g2, y / 2, Q), *l = row(&s->l1, y, H), *g = row(&s->g1, y, H);
        for (int64_t x = 0; x < H; x++)
            o[x] = c[x / 2] + 1.5f * (l[x] - g[x]);
    }
    /* r0 = up2(r1) + 2 clamp(c - g0, -64, 64); archive, display; p1, p2,
     * preview from r0 */
    sums acc = { 0, 0, 0 };
    float r0[R];
    for (int64_t y = p.out.lo; y < p.out.hi; y++) {
        const float *c1 = row(&s->r1, y / 2, H), *cc = row(&s->c, y, R), *g = row(&s->g0, y, R);
        uint16_t *a = archive + y * R;
        uint8_t *d = display + y * R;
        float *p1 = s->p1 + ((y / 2) & 1) * H, *even = s->p1 + 2 * H;
#pragma omp simd
        for (int64_t x = 0; x < R; x++) {
            float e = cc[x] - g[x];
            float v = c1[x / 2] + 2.0f * minf(maxf(e, -64.0f), 64.0f);
            r0[x] = v;
            a[x] = (uint16_t)minf(maxf(floorf(v + 0.5f), 0.0f), 65535.0f);
            d[x] = to_display(v);
        }
        acc.archive += peer_sink_rows16(archive, R, y, y + 1);
        acc.display += peer_sink_rows8(display, R, y, y + 1);
        /* p1 row y/2 = down2(r0 rows y-1, y); p2 row y/4 = down2(p1 rows
         * y/2 - 1, y/2), then the preview's row */
        if (!(y & 1)) {
            memcpy(even, r0, sizeof r0);
            continue;
        }
        down2_row(p1, even, r0, H);
        if ((y & 3) == 3) {
            float p2[Q];
            uint8_t *pv = preview + (y / 4) * Q;
            down2_row(p2, s->p1, s->p1 + H, Q);
            for (int64_t x = 0; x < Q; x++)
                pv[x] = to_display(p2[x]);
            acc.preview += peer_sink_rows8(preview, Q, y / 4, y / 4 + 1);
        }
    }
    return acc;
}

static const char *const in_names[3] = { "raw", "dark", "gain" };
static const int in_types[3] = { PEER_U16, PEER_U16, PEER_F32 };

int main(int argc, char **argv)
{
    peer_options opt;
    peer_parse_args(&opt, "fluoro_omp_fused", argc, argv);
    if (opt.resolution != R) {
        fprintf(stderr, "fluoro_omp_fused: built for %d (-DRES), not %" PRId64 "\n", R,
                opt.resolution);
        return 2;
    }
    peer_input in[3];
    peer_load_inputs(&opt, 3, in_names, in_types, R, in);

    int threads = omp_get_max_threads();
    scratch *s = calloc((size_t)threads, sizeof *s);
#pragma omp parallel
    scratch_init(&s[omp_get_thread_num()]);   /* first touch by its thread */
    uint64_t bytes = 0;
    for (int t = 0; t < threads; t++) {
        rows *r = &s[t].c;
        for (int k = 0; k < 10; k++)
            bytes += (uint64_t)(r[k].w * r[k].cap * 4);
        bytes += (uint64_t)(2 * H + R) * 4;
    }
    uint16_t *archive = aligned_alloc(64, (size_t)R * R * 2);
    uint8_t *display = aligned_alloc(64, (size_t)R * R);
    uint8_t *preview = aligned_alloc(64, (size_t)Q * Q);
    memset(archive, 0, (size_t)R * R * 2);
    memset(display, 0, (size_t)R * R);
    memset(preview, 0, (size_t)Q * Q);
    bytes += (uint64_t)R * R * 3 + (uint64_t)Q * Q;

    uint64_t *lat = peer_latencies(&opt);
    uint64_t checksum = 0;
    for (uint64_t i = 0; i < opt.iterations; i++) {
        const uint16_t *raw = peer_frame(&in[0], i), *dark = peer_frame(&in[1], i);
        const float *gain = peer_frame(&in[2], i);
        uint64_t t0 = peer_now_ns();
        uint64_t sa = 0, sd = 0, sp = 0;
#pragma omp parallel for schedule(static) reduction(+ : sa, sd, sp)
        for (int64_t k = 0; k < NSTRIPS; k++) {
            sums a = strip(&s[omp_get_thread_num()], k * STRIP, imin((k + 1) * STRIP, R), raw,
                           dark, gain, archive, display, preview);
            sa += a.archive, sd += a.display, sp += a.preview;
        }
        checksum += sa * peer_key(ID_ARCHIVE, i) + sd * peer_key(ID_DISPLAY, i) +
                    sp * peer_key(ID_PREVIEW, i);
        lat[i] = peer_now_ns() - t0;
    }
    peer_report(&opt, threads, lat, opt.iterations, checksum, bytes);
    return 0;
}
