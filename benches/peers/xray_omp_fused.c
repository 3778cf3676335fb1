/* xray_omp_fused.c — examples/xray.ssc as the best an OpenMP user writes
 * it: one `#pragma omp parallel for` over strips of output rows per frame;
 * each strip computes, stage after stage, exactly the rows of every
 * producer it needs (halo rows included: the pyramid's half and quarter
 * levels under the strip, the median's rows around it) into small
 * per-thread scratch buffers, then its rows of the three outputs, and folds
 * ssc's checksum over them while they are in the cache. Inner loops are
 * plain row loops over contiguous floats that gcc vectorises (AVX2 here);
 * the resolution is a compile-time constant (-DRES=1024).
 *
 * Bit-exact with ssc (the same float operations in ssc's order, borders
 * clamped): the checksum is ssc's. Frames in memory: --input raw=…
 * --input offset=… --input gainmap=… as ssc's program takes them (all
 * read before the first frame; iteration i takes frame i mod frames).
 *
 *   gcc -std=c11 -O3 -march=native -fopenmp -DRES=1024 -o xray_omp_fused xray_omp_fused.c -lm
 *   OMP_NUM_THREADS=2 ./xray_omp_fused --resolution 1024 --iterations 300 \
 *       --input raw=frames/raw --input offset=frames/dark.pgm --input gainmap=frames/gain.pfm
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
enum { ID_DISPLAY = 16, ID_STORE = 18, ID_MONITOR = 20 };

/* The rows of each stage a strip [y0, y1) of full-resolution rows needs. */
typedef struct {
    range ff, defect, down1, nr1, down2, nr2, merge1, out, half;
} plan;

static plan plan_strip(int64_t y0, int64_t y1)
{
    plan p;
    p.out = rg(y0, y1, R);
    p.half = rg(y0 / 2, y1 / 2, H);                  /* preview rows */
    p.merge1 = rg(y0 / 2 - 1, y1 / 2 + 1, H);        /* up1 reads y/2 - 1 .. y/2 + 1 */
    p.nr2 = rg(p.merge1.lo / 2 - 1, (p.merge1.hi - 1) / 2 + 2, Q);   /* up2 */
    p.down2 = rg(p.nr2.lo - 1, p.nr2.hi + 1, Q);
    p.nr1 = unite(p.merge1, rg(2 * p.down2.lo, 2 * p.down2.hi, H));
    p.down1 = rg(p.nr1.lo - 1, p.nr1.hi + 1, H);
    p.defect = unite(rg(y0 - 1, y1 + 1, R), rg(2 * p.down1.lo, 2 * p.down1.hi, R));
    p.ff = rg(p.defect.lo - 1, p.defect.hi + 1, R);
    return p;
}

/* Per-thread scratch: rows of each stage (h*: horizontal passes). */
typedef struct {
    rows ff, defect, hnr0, down1, hnr1, nr1, down2, hnr2, nr2, ux2, merge1, ux1;
    float *cols, *tmp, *tmp2;
} scratch;

static void scratch_init(scratch *s)
{
    int64_t cap[9] = { 0 };
    for (int64_t k = 0; k < NSTRIPS; k++) {
        plan p = plan_strip(k * STRIP, imin((k + 1) * STRIP, R));
        range *r = &p.ff;
        for (int j = 0; j < 9; j++)
            cap[j] = imax(cap[j], rows_of(r[j]));
    }
    rows_alloc(&s->ff, R, cap[0]);
    rows_alloc(&s->defect, R, cap[1]);
    rows_alloc(&s->hnr0, R, cap[1]);
    rows_alloc(&s->down1, H, cap[2]);
    rows_alloc(&s->hnr1, H, cap[2]);
    rows_alloc(&s->nr1, H, cap[3]);
    rows_alloc(&s->down2, Q, cap[4]);
    rows_alloc(&s->hnr2, Q, cap[4]);
    rows_alloc(&s->nr2, Q, cap[5]);
    rows_alloc(&s->ux2, H, cap[5]);
    rows_alloc(&s->merge1, H, cap[6]);
    rows_alloc(&s->ux1, R, cap[6]);
    s->cols = aligned_alloc(64, (size_t)(3 * (R + 2) * 4 + 63) / 64 * 64);
    s->tmp = aligned_alloc(64, (size_t)R * 4);
    s->tmp2 = aligned_alloc(64, (size_t)R * 4);
}

typedef struct {
    uint64_t display, store, monitor;
} sums;

/* One strip: every stage's rows, then the outputs' rows and their sums. */
static sums strip(scratch *s, int64_t y0, int64_t y1, const uint16_t *restrict raw,
                  const float *restrict offset, const float *restrict gain,
                  float *restrict display, uint16_t *restrict store, float *restrict monitor)
{
    plan p = plan_strip(y0, y1);
    /* flatfield = max(float(raw) - offset, 0) * gainmap */
    rows_set(&s->ff, p.ff);
    for (int64_t y = p.ff.lo; y < p.ff.hi; y++) {
        float *o = row(&s->ff, y, R);
        const uint16_t *a = raw + y * R;
        const float *b = offset + y * R, *g = gain + y * R;
        for (int64_t x = 0; x < R; x++)
            o[x] = maxf((float)a[x] - b[x], 0.0f) * g[x];
    }
    /* defect = median3x3(flatfield), and nr0's horizontal pass of it */
    rows_set(&s->defect, p.defect);
    rows_set(&s->hnr0, p.defect);
    for (int64_t y = p.defect.lo; y < p.defect.hi; y++) {
        median_row(row(&s->defect, y, R), row(&s->ff, y - 1, R), row(&s->ff, y, R),
                   row(&s->ff, y + 1, R), s->cols, R);
        h121(row(&s->hnr0, y, R), row(&s->defect, y, R), R);
    }
    /* down1 = down2(defect), nr1 = gauss3x3(down1) */
    rows_set(&s->down1, p.down1);
    rows_set(&s->hnr1, p.down1);
    for (int64_t y = p.down1.lo; y < p.down1.hi; y++) {
        down2_row(row(&s->down1, y, H), row(&s->defect, 2 * y, R), row(&s->defect, 2 * y + 1, R),
                  H);
        h121(row(&s->hnr1, y, H), row(&s->down1, y, H), H);
    }
    rows_set(&s->nr1, p.nr1);
    for (int64_t y = p.nr1.lo; y < p.nr1.hi; y++)
        v121(row(&s->nr1, y, H), row(&s->hnr1, y - 1, H), row(&s->hnr1, y, H),
             row(&s->hnr1, y + 1, H), H);
    /* down2 = down2(nr1), nr2 = gauss3x3(down2), up2's x pass of nr2 */
    rows_set(&s->down2, p.down2);
    rows_set(&s->hnr2, p.down2);
    for (int64_t y = p.down2.lo; y < p.down2.hi; y++) {
        down2_row(row(&s->down2, y, Q), row(&s->nr1, 2 * y, H), row(&s->nr1, 2 * y + 1, H), Q);
        h121(row(&s->hnr2, y, Q), row(&s->down2, y, Q), Q);
    }
    rows_set(&s->nr2, p.nr2);
    rows_set(&s->ux2, p.nr2);
    for (int64_t y = p.nr2.lo; y < p.nr2.hi; y++) {
        v121(row(&s->nr2, y, Q), row(&s->hnr2, y - 1, Q), row(&s->hnr2, y, Q),
             row(&s->hnr2, y + 1, Q), Q);
        upx_row(row(&s->ux2, y, H), row(&s->nr2, y, Q), Q);
    }
    /* merge1 = up2 + 1.5 (nr1 - up2), up2 = up2(nr2); up1's x pass of it */
    rows_set(&s->merge1, p.merge1);
    rows_set(&s->ux1, p.merge1);
    for (int64_t y = p.merge1.lo; y < p.merge1.hi; y++) {
        int64_t c = y / 2, n = y & 1 ? c + 1 : c - 1;
        float *u = s->tmp, *o = row(&s->merge1, y, H);
        const float *f = row(&s->nr1, y, H);
        upy_row(u, row(&s->ux2, c, Q), row(&s->ux2, n, Q), (int)(y & 1), H);
        for (int64_t x = 0; x < H; x++)
            o[x] = u[x] + 1.5f * (f[x] - u[x]);
        upx_row(row(&s->ux1, y, H), o, H);
    }
    /* merge0 = up1 + 0.5 (nr0 - up1); display = window_level(merge0);
     * store = ushort(clamp(round(65535 display))); monitor = down2(display) */
    sums acc = { 0, 0, 0 };
    for (int64_t y = p.out.lo; y < p.out.hi; y++) {
        int64_t c = y / 2, n = y & 1 ? c + 1 : c - 1;
        float *u = s->tmp, *nr0 = s->tmp2, *d = display + y * R;
        uint16_t *st = store + y * R;
        upy_row(u, row(&s->ux1, c, H), row(&s->ux1, n, H), (int)(y & 1), R);
        v121(nr0, row(&s->hnr0, y - 1, R), row(&s->hnr0, y, R), row(&s->hnr0, y + 1, R), R);
#pragma omp simd
        for (int64_t x = 0; x < R; x++) {
            float m = u[x] + 0.5f * (nr0[x] - u[x]);
            float v = minf(maxf((m - 0.0f) / 16000.0f, 0.0f), 1.0f);
            d[x] = v;
            st[x] = (uint16_t)minf(maxf(floorf(65535.0f * v + 0.5f), 0.0f), 65535.0f);
        }
        acc.display += peer_sink_rows(display, R, y, y + 1);
        acc.store += peer_sink_rows16(store, R, y, y + 1);
        if (y & 1) {
            down2_row(monitor + (y / 2) * H, display + (y - 1) * R, d, H);
            acc.monitor += peer_sink_rows(monitor, H, y / 2, y / 2 + 1);
        }
    }
    return acc;
}

static const char *const in_names[3] = { "raw", "offset", "gainmap" };
static const int in_types[3] = { PEER_U16, PEER_F32, PEER_F32 };

int main(int argc, char **argv)
{
    peer_options opt;
    peer_parse_args(&opt, "xray_omp_fused", argc, argv);
    if (opt.resolution != R) {
        fprintf(stderr, "xray_omp_fused: built for %d (-DRES), not %" PRId64 "\n", R,
                opt.resolution);
        return 2;
    }
    peer_input in[3];
    peer_load_inputs(&opt, 3, in_names, in_types, R, in);

    int threads = omp_get_max_threads();
    scratch *s = calloc((size_t)threads, sizeof *s);
    uint64_t bytes = 0;
#pragma omp parallel
    scratch_init(&s[omp_get_thread_num()]);   /* first touch by its thread */
    for (int t = 0; t < threads; t++) {
        rows *r = &s[t].ff;
        for (int k = 0; k < 12; k++)
            bytes += (uint64_t)(r[k].w * r[k].cap * 4);
        bytes += (uint64_t)(3 * (R + 2) + 2 * R) * 4;
    }
    float *display = aligned_alloc(64, (size_t)R * R * 4);
    uint16_t *store = aligned_alloc(64, (size_t)R * R * 2);
    float *monitor = aligned_alloc(64, (size_t)H * H * 4);
    memset(display, 0, (size_t)R * R * 4);
    memset(store, 0, (size_t)R * R * 2);
    memset(monitor, 0, (size_t)H * H * 4);
    bytes += (uint64_t)R * R * 6 + (uint64_t)H * H * 4;

    uint64_t *lat = peer_latencies(&opt);
    uint64_t checksum = 0;
    for (uint64_t i = 0; i < opt.iterations; i++) {
        const uint16_t *raw = peer_frame(&in[0], i);
        const float *offset = peer_frame(&in[1], i), *gain = peer_frame(&in[2], i);
        uint64_t t0 = peer_now_ns();
        uint64_t sd = 0, ss = 0, sm = 0;
#pragma omp parallel for schedule(static) reduction(+ : sd, ss, sm)
        for (int64_t k = 0; k < NSTRIPS; k++) {
            sums a = strip(&s[omp_get_thread_num()], k * STRIP, imin((k + 1) * STRIP, R), raw,
                           offset, gain, display, store, monitor);
            sd += a.display, ss += a.store, sm += a.monitor;
        }
        checksum += sd * peer_key(ID_DISPLAY, i) + ss * peer_key(ID_STORE, i) +
                    sm * peer_key(ID_MONITOR, i);
        lat[i] = peer_now_ns() - t0;
    }
    peer_report(&opt, threads, lat, opt.iterations, checksum, bytes);
    return 0;
}
