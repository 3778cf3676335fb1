/* omp_rows.h — what the strip-fused OpenMP peers (xray_omp_fused.c,
 * fluoro_omp_fused.c) share: rows of a stage held in a small per-thread
 * scratch buffer, row ranges, and the row kernels of ssc's definitions,
 * every float operation in the order ssc's generated C writes it.
 *
 * A strip of output rows needs, from each producer, a range of its rows
 * (with halo rows, clamped to the grid); the strip computes exactly those
 * into the producer's scratch, which holds rows lo..hi-1 of a w-wide grid.
 * A consumer reads row clamp(y) of it, as ssc's clamped windows do. */
#ifndef OMP_ROWS_H
#define OMP_ROWS_H

#include "peers_common.h"

typedef struct {
    float *p;
    int64_t w, lo, hi, cap;   /* rows lo..hi-1, room for cap rows */
} rows;

typedef struct {
    int64_t lo, hi;
} range;

static inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }
static inline float minf(float a, float b) { return a < b ? a : b; }
static inline float maxf(float a, float b) { return a > b ? a : b; }

/* [lo, hi) clamped to a grid of n rows. */
static inline range rg(int64_t lo, int64_t hi, int64_t n)
{
    return (range){ imax(lo, 0), imin(hi, n) };
}

static inline range unite(range a, range b)
{
    return (range){ imin(a.lo, b.lo), imax(a.hi, b.hi) };
}

static inline int64_t rows_of(range r) { return r.hi - r.lo; }

static inline void rows_alloc(rows *b, int64_t w, int64_t cap)
{
    b->w = w;
    b->cap = cap;
    b->lo = b->hi = 0;
    b->p = aligned_alloc(64, (size_t)((w * cap * 4 + 63) / 64 * 64));
    if (!b->p) {
        fprintf(stderr, "omp peer: out of memory\n");
        exit(3);
    }
    memset(b->p, 0, (size_t)(w * cap * 4));
}

static inline void rows_set(rows *b, range r)
{
    if (rows_of(r) > b->cap) {
        fprintf(stderr, "omp peer: scratch too small (%" PRId64 " > %" PRId64 " rows)\n",
                rows_of(r), b->cap);
        exit(3);
    }
    b->lo = r.lo;
    b->hi = r.hi;
}

/* Row y (clamped to the grid of n rows) of b. */
static inline float *row(const rows *b, int64_t y, int64_t n)
{
    y = y < 0 ? 0 : y >= n ? n - 1 : y;
    return b->p + (y - b->lo) * b->w;
}

/* ---- row kernels -------------------------------------------------------- */

/* down2: (((a + b) + c) + d) / 4 over the 2x2 block, top row first. */
static inline void down2_row(float *restrict o, const float *restrict a, const float *restrict b,
                             int64_t w)
{
    for (int64_t x = 0; x < w; x++)
        o[x] = (a[2 * x] + a[2 * x + 1] + b[2 * x] + b[2 * x + 1]) / 4.0f;
}

/* The horizontal pass of separable [1 2 1]: (a + 2b) + c, clamped. */
static inline void h121(float *restrict o, const float *restrict r, int64_t w)
{
    o[0] = r[0] + 2.0f * r[0] + r[1];
    for (int64_t x = 1; x < w - 1; x++)
        o[x] = r[x - 1] + 2.0f * r[x] + r[x + 1];
    o[w - 1] = r[w - 2] + 2.0f * r[w - 1] + r[w - 1];
}

/* The vertical pass: ((a + 2b) + c) / 16. */
static inline void v121(float *restrict o, const float *restrict a, const float *restrict b,
                        const float *restrict c, int64_t w)
{
    for (int64_t x = 0; x < w; x++)
        o[x] = (a[x] + 2.0f * b[x] + c[x]) / 16.0f;
}

/* The horizontal pass of separable [1 4 6 4 1]: (((a + 4b) + 6c) + 4d) + e,
 * clamped. */
static inline void h14641(float *restrict o, const float *restrict r, int64_t w)
{
#define H5(x, a, b, d, e) (r[a] + 4.0f * r[b] + 6.0f * r[x] + 4.0f * r[d] + r[e])
    o[0] = H5(0, 0, 0, 1, 2);
    o[1] = H5(1, 0, 0, 2, 3);
    for (int64_t x = 2; x < w - 2; x++)
        o[x] = H5(x, x - 2, x - 1, x + 1, x + 2);
    o[w - 2] = H5(w - 2, w - 4, w - 3, w - 1, w - 1);
    o[w - 1] = H5(w - 1, w - 3, w - 2, w - 1, w - 1);
#undef H5
}

/* The vertical pass: ((((a + 4b) + 6c) + 4d) + e) / 256. */
static inline void v14641(float *restrict o, const float *restrict a, const float *restrict b,
                          const float *restrict c, const float *restrict d,
                          const float *restrict e, int64_t w)
{
    for (int64_t x = 0; x < w; x++)
        o[x] = (a[x] + 4.0f * b[x] + 6.0f * c[x] + 4.0f * d[x] + e[x]) / 256.0f;
}

/* up2 (ssc's `linear`) in x: input row r (w wide) into o (2w wide):
 * even 0.25 r[x-1] + 0.75 r[x], odd 0.75 r[x] + 0.25 r[x+1], clamped. */
static inline void upx_row(float *restrict o, const float *restrict r, int64_t w)
{
    o[0] = 0.25f * r[0] + 0.75f * r[0];
    o[1] = 0.75f * r[0] + 0.25f * r[1];
    for (int64_t x = 1; x < w - 1; x++) {
        o[2 * x] = 0.25f * r[x - 1] + 0.75f * r[x];
        o[2 * x + 1] = 0.75f * r[x] + 0.25f * r[x + 1];
    }
    o[2 * w - 2] = 0.25f * r[w - 2] + 0.75f * r[w - 1];
    o[2 * w - 1] = 0.75f * r[w - 1] + 0.25f * r[w - 1];
}

/* ... in y, for output row ey: even 0.25 up(y-1) + 0.75 up(y), odd
 * 0.75 up(y) + 0.25 up(y+1) (rows already clamped by the caller). */
static inline void upy_row(float *restrict o, const float *restrict r0, const float *restrict rn,
                           int odd, int64_t w2)
{
    if (odd)
        for (int64_t x = 0; x < w2; x++)
            o[x] = 0.75f * r0[x] + 0.25f * rn[x];
    else
        for (int64_t x = 0; x < w2; x++)
            o[x] = 0.25f * rn[x] + 0.75f * r0[x];
}

/* The median of the 3x3 window of rows a, b, c (clamped), w wide, into o,
 * with cols (3 x (w + 2) floats of scratch). The median of 9 values the
 * usual cheaper way: each column sorted (lo, mid, hi), then the median of
 * (max of the los, median of the mids, min of the his). ssc sorts all 9
 * values (an insertion sort); both return one of the 9 values, the same
 * one for values without NaN and -0 (the X-ray chain's flatfield is
 * max(...) * gain, >= +0), so the pixels are ssc's. */
static inline void median_row(float *restrict o, const float *restrict a, const float *restrict b,
                              const float *restrict c, float *restrict cols, int64_t w)
{
    float *lo = cols, *mi = cols + (w + 2), *hi = cols + 2 * (w + 2);
    for (int64_t x = 0; x < w; x++) {
        float p = a[x], q = b[x], r = c[x];
        float l = minf(p, q), h = maxf(p, q);
        lo[x + 1] = minf(l, r);
        mi[x + 1] = maxf(l, minf(h, r));
        hi[x + 1] = maxf(h, r);
    }
    lo[0] = lo[1], mi[0] = mi[1], hi[0] = hi[1];
    lo[w + 1] = lo[w], mi[w + 1] = mi[w], hi[w + 1] = hi[w];
    for (int64_t x = 0; x < w; x++) {
        float l = maxf(maxf(lo[x], lo[x + 1]), lo[x + 2]);
        float h = minf(minf(hi[x], hi[x + 1]), hi[x + 2]);
        float p = mi[x], q = mi[x + 1], r = mi[x + 2];
        float m1 = minf(p, q), m2 = maxf(p, q);
        float m = maxf(m1, minf(m2, r));
        float n1 = minf(l, m), n2 = maxf(l, m);
        o[x] = maxf(n1, minf(n2, h));
    }
}

#endif
