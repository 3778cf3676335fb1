/* test_kernels.c — unit tests of the built-in kernels and the runtime's
 * small pieces: every kernel x every type against a reference computed in
 * double, known values (saturation, truncation, clamped borders), split
 * invariance and region-only writes, statistics, pools, signals, barriers.
 * Exits 1 on the first failure. */
#include "ssc_rt.h"
#include "ssc_kernels.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);             \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
            if (++failures > 20)                                             \
                exit(1);                                                     \
        }                                                                    \
    } while (0)

static const ssc_type all_types[] = { SSC_CHAR, SSC_UCHAR, SSC_SHORT, SSC_USHORT,
                                      SSC_INT, SSC_UINT, SSC_FLOAT, SSC_DOUBLE };
static const char *type_names[] = { "char", "uchar", "short", "ushort",
                                    "int", "uint", "float", "double" };

/* ---- element access by type ---------------------------------------- */

static double get(const ssc_port *p, int64_t x, int64_t y)
{
    int64_t i = y * p->stride + x;
    switch (p->type) {
    case SSC_CHAR:   return ((signed char *)p->data)[i];
    case SSC_UCHAR:  return ((unsigned char *)p->data)[i];
    case SSC_SHORT:  return ((short *)p->data)[i];
    case SSC_USHORT: return ((unsigned short *)p->data)[i];
    case SSC_INT:    return ((int *)p->data)[i];
    case SSC_UINT:   return ((unsigned *)p->data)[i];
    case SSC_FLOAT:  return ((float *)p->data)[i];
    case SSC_DOUBLE: return ((double *)p->data)[i];
    }
    return 0;
}

static void set(const ssc_port *p, int64_t x, int64_t y, double v)
{
    int64_t i = y * p->stride + x;
    switch (p->type) {
    case SSC_CHAR:   ((signed char *)p->data)[i] = (signed char)v; break;
    case SSC_UCHAR:  ((unsigned char *)p->data)[i] = (unsigned char)v; break;
    case SSC_SHORT:  ((short *)p->data)[i] = (short)v; break;
    case SSC_USHORT: ((unsigned short *)p->data)[i] = (unsigned short)v; break;
    case SSC_INT:    ((int *)p->data)[i] = (int)v; break;
    case SSC_UINT:   ((unsigned *)p->data)[i] = (unsigned)v; break;
    case SSC_FLOAT:  ((float *)p->data)[i] = (float)v; break;
    case SSC_DOUBLE: ((double *)p->data)[i] = v; break;
    }
}

/* What a kernel stores for the exact result q: integers truncate toward
 * zero and saturate; floating types round. */
static double as_type(ssc_type t, double q)
{
    static const double lo[] = { -128, 0, -32768, 0, -2147483648.0, 0 };
    static const double hi[] = { 127, 255, 32767, 65535, 2147483647.0, 4294967295.0 };
    if (t == SSC_FLOAT)
        return (float)q;
    if (t == SSC_DOUBLE)
        return q;
    q = trunc(q);
    return q < lo[t] ? lo[t] : q > hi[t] ? hi[t] : q;
}

static int same(ssc_type t, double a, double b)
{
    if (t == SSC_FLOAT)
        return fabs(a - b) <= 1e-5 * (1 + fabs(b));
    return a == b;
}

/* A grid of w x h elements of type t, filled with sentinel 7. */
static ssc_port grid(ssc_type t, int64_t w, int64_t h, int mul, int win)
{
    void *data = calloc((size_t)(w * h), ssc_type_size(t));
    ssc_port p = ssc_port_make(data, t, w, h, mul, mul, win, win);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            set(&p, x, y, 7);
    return p;
}

static void run(ssc_kernel k, ssc_region r, int64_t w, int64_t h, uint32_t id, uint64_t it,
                const ssc_port *in, int n_in, const ssc_port *out, int n_out)
{
    ssc_call c = { r, w, h, it, id, in, n_in, out, n_out };
    k(&c);
}

static void fill_source(const ssc_port *p, uint64_t it)
{
    ssc_region all = { 0, 0, p->width / p->mul_x, p->height / p->mul_y };
    run(func_source, all, all.x1, all.y1, 1, it, NULL, 0, p, 1);
}

/* ---- storage folding: rings of rows give the unfolded results -------- */

/* source -> conv (3x3) -> down -> up, run strip by strip (2 rows of the
 * full-resolution grid at a time) with every intermediate buffer a ring of
 * `ring` rows (port.fold), against the same chain on whole grids. */
static void test_fold(ssc_type t, int64_t w, int64_t h, int64_t ring)
{
    enum { S = 2 };
    ssc_port src = grid(t, w, h, 1, 3), conv = grid(t, w, h, 1, 1);
    ssc_port small = grid(t, w / 2, h / 2, 1, 1), up = grid(t, w, h, 2, 1);
    ssc_port fsrc = grid(t, w, ring, 1, 3), fconv = grid(t, w, ring, 1, 1);
    ssc_port fsmall = grid(t, w / 2, ring, 1, 1), fup = grid(t, w, h, 2, 1);
    fsrc.height = h; fsrc.fold = ring;
    fconv.height = h; fconv.fold = ring;
    fsmall.height = h / 2; fsmall.fold = ring;
    ssc_port conv_in_down = conv, fconv_in_down = fconv;
    conv_in_down.mul_x = conv_in_down.mul_y = 2;
    fconv_in_down.mul_x = fconv_in_down.mul_y = 2;
    ssc_region all = { 0, 0, w, h }, half = { 0, 0, w / 2, h / 2 };
    run(func_source, all, w, h, 1, 3, NULL, 0, &src, 1);
    run(func_conv, all, w, h, 2, 3, &src, 1, &conv, 1);
    run(func_down, half, w / 2, h / 2, 3, 3, &conv_in_down, 1, &small, 1);
    run(func_up, half, w / 2, h / 2, 4, 3, &small, 1, &up, 1);
    /* streamed: the source runs one strip ahead of the conv (its window) */
    for (int64_t k = 0; k * S < h + S; k++) {
        int64_t y0 = k * S, y1 = y0 + S > h ? h : y0 + S;
        if (y0 < h) {
            ssc_region r = { 0, y0, w, y1 };
            run(func_source, r, w, h, 1, 3, NULL, 0, &fsrc, 1);
        }
        if (k >= 1 && (k - 1) * S < h) {
            int64_t c0 = (k - 1) * S, c1 = c0 + S > h ? h : c0 + S;
            ssc_region r = { 0, c0, w, c1 }, d = { 0, c0 / 2, w / 2, c1 / 2 };
            run(func_conv, r, w, h, 2, 3, &fsrc, 1, &fconv, 1);
            run(func_down, d, w / 2, h / 2, 3, 3, &fconv_in_down, 1, &fsmall, 1);
            run(func_up, d, w / 2, h / 2, 4, 3, &fsmall, 1, &fup, 1);
            for (int64_t y = c0; y < c1; y++)
                for (int64_t x = 0; x < w; x++)
                    CHECK(get(&conv, x, y) == get(&fconv, x, y % ring),
                          "fold %s conv at (%lld,%lld)", type_names[t], (long long)x, (long long)y);
        }
    }
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            CHECK(get(&up, x, y) == get(&fup, x, y), "fold %s up at (%lld,%lld)",
                  type_names[t], (long long)x, (long long)y);
    free(src.data); free(conv.data); free(small.data); free(up.data);
    free(fsrc.data); free(fconv.data); free(fsmall.data); free(fup.data);
}

/* Two bands of one buffer, each in a ring of its own: the top band run top
 * down, the bottom band bottom up (as two threads of -ts fused run them),
 * the conv of the border rows reading both rings. */
static void test_fold_bands(ssc_type t, int64_t w, int64_t h, int64_t ring)
{
    enum { S = 2 };
    int64_t mid = h / 2;
    ssc_band bands[2] = { { 0, mid, 0 }, { mid, h, 1 } };
    ssc_port src = grid(t, w, h, 1, 3), conv = grid(t, w, h, 1, 1);
    ssc_port fsrc = grid(t, w, 2 * ring, 1, 3), fconv = grid(t, w, h, 1, 1);
    fsrc.height = h; fsrc.fold = ring; fsrc.bands = bands; fsrc.n_bands = 2;
    ssc_region all = { 0, 0, w, h };
    run(func_source, all, w, h, 1, 3, NULL, 0, &src, 1);
    run(func_conv, all, w, h, 2, 3, &src, 1, &conv, 1);
    /* both bands stream towards the border; the conv runs one strip behind */
    int64_t steps = mid / S;
    for (int64_t k = 0; k <= steps; k++) {
        if (k < steps) {
            ssc_region top = { 0, k * S, w, k * S + S }, bot = { 0, h - k * S - S, w, h - k * S };
            run(func_source, top, w, h, 1, 3, NULL, 0, &fsrc, 1);
            run(func_source, bot, w, h, 1, 3, NULL, 0, &fsrc, 1);
        }
        if (k >= 1) {
            ssc_region top = { 0, (k - 1) * S, w, k * S }, bot = { 0, h - k * S, w, h - (k - 1) * S };
            run(func_conv, top, w, h, 2, 3, &fsrc, 1, &fconv, 1);
            run(func_conv, bot, w, h, 2, 3, &fsrc, 1, &fconv, 1);
        }
    }
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            CHECK(get(&conv, x, y) == get(&fconv, x, y), "bands %s conv at (%lld,%lld)",
                  type_names[t], (long long)x, (long long)y);
    for (int64_t y = 0; y < h; y++) {   /* where each row lives */
        int64_t want = y < mid ? y % ring : ring + (h - 1 - y) % ring;
        CHECK(ssc_row_slot(&fsrc, y) == want, "slot of row %lld", (long long)y);
    }
    free(src.data); free(conv.data); free(fsrc.data); free(fconv.data);
}

/* ---- every kernel x every type against a double reference ------------ */

enum { GW = 37, GH = 11 };   /* odd sizes: tails of the vector loops, borders */

static void test_elementwise(ssc_type t)
{
    const char *tn = type_names[t];
    ssc_port a = grid(t, GW, GH, 1, 1), b = grid(t, GW, GH, 1, 1);
    ssc_port o = grid(t, GW, GH, 1, 1), o2 = grid(t, GW, GH, 1, 1);
    fill_source(&a, 3);
    fill_source(&b, 17);
    for (int64_t y = 0; y < GH; y++)
        for (int64_t x = 0; x < GW; x++)
            CHECK(get(&a, x, y) == ssc_source_value(t, x, y, 3), "source %s", tn);

    ssc_region all = { 0, 0, GW, GH };
    ssc_port in2[2] = { a, b }, outs[2] = { o, o2 };
    struct { const char *name; ssc_kernel k; int n_in; int n_out; } ks[] = {
        { "gain", func_gain, 1, 1 }, { "copy", func_copy, 1, 1 }, { "dup", func_dup, 1, 2 },
        { "plus", func_plus, 2, 1 }, { "mul", func_mul, 2, 1 }, { "avg", func_avg, 2, 1 },
    };
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        run(ks[i].k, all, GW, GH, 2, 0, in2, ks[i].n_in, outs, ks[i].n_out);
        for (int64_t y = 0; y < GH; y++)
            for (int64_t x = 0; x < GW; x++) {
                double va = get(&a, x, y), vb = get(&b, x, y), want;
                switch (i) {
                case 0: want = as_type(t, va * 3 / 2); break;
                case 1: case 2: want = va; break;
                case 3: want = as_type(t, va + vb); break;
                case 4: want = as_type(t, va * vb); break;
                default: want = as_type(t, (va + vb) / 2); break;
                }
                CHECK(same(t, get(&o, x, y), want), "%s %s at (%lld,%lld): %g, want %g",
                      ks[i].name, tn, (long long)x, (long long)y, get(&o, x, y), want);
                if (ks[i].n_out == 2)
                    CHECK(get(&o2, x, y) == want, "dup %s second output", tn);
            }
    }
    free(a.data); free(b.data); free(o.data); free(o2.data);
}

static double conv_ref(const ssc_port *in, int64_t x, int64_t y)
{
    int64_t bx = (in->win_x - 1) / 2, by = (in->win_y - 1) / 2;
    double sum = 0;
    for (int64_t dy = -by; dy <= in->win_y - 1 - by; dy++)
        for (int64_t dx = -bx; dx <= in->win_x - 1 - bx; dx++) {
            int64_t cx = x + dx < 0 ? 0 : x + dx >= in->width ? in->width - 1 : x + dx;
            int64_t cy = y + dy < 0 ? 0 : y + dy >= in->height ? in->height - 1 : y + dy;
            sum += get(in, cx, cy);
        }
    return sum / (in->win_x * in->win_y);
}

/* Float conv bit for bit as runtime-c/README.md states it: per output,
 * the sum over dx (ascending, from 0) of the column sums over dy
 * (ascending, from 0), divided by wx * wy, all in float. */
static float conv_ref_float(const ssc_port *in, int64_t x, int64_t y)
{
    int64_t bx = (in->win_x - 1) / 2, by = (in->win_y - 1) / 2;
    float sum = 0;
    for (int64_t dx = -bx; dx <= in->win_x - 1 - bx; dx++) {
        float col = 0;
        for (int64_t dy = -by; dy <= in->win_y - 1 - by; dy++) {
            int64_t cx = x + dx < 0 ? 0 : x + dx >= in->width ? in->width - 1 : x + dx;
            int64_t cy = y + dy < 0 ? 0 : y + dy >= in->height ? in->height - 1 : y + dy;
            col += ((const float *)in->data)[cy * in->stride + cx];
        }
        sum += col;
    }
    return sum / (float)(in->win_x * in->win_y);
}

static void test_conv(ssc_type t, int win, int64_t w, int64_t h)
{
    ssc_port in = grid(t, w, h, 1, win), out = grid(t, w, h, 1, 1);
    fill_source(&in, 5);
    /* two row strips, as a split would run them */
    ssc_region top = { 0, 0, w, h / 2 }, bottom = { 0, h / 2, w, h };
    run(func_conv, bottom, w, h, 3, 0, &in, 1, &out, 1);
    run(func_conv, top, w, h, 3, 0, &in, 1, &out, 1);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            double want = as_type(t, conv_ref(&in, x, y));
            CHECK(same(t, get(&out, x, y), want), "conv[%d] %s at (%lld,%lld): %g, want %g",
                  win, type_names[t], (long long)x, (long long)y, get(&out, x, y), want);
            if (t == SSC_FLOAT) {
                float got = ((float *)out.data)[y * out.stride + x], bits = conv_ref_float(&in, x, y);
                CHECK(memcmp(&got, &bits, sizeof got) == 0,
                      "conv[%d] float at (%lld,%lld): %.9g, want the bits of %.9g", win,
                      (long long)x, (long long)y, got, bits);
            }
        }
    free(in.data); free(out.data);
}

/* Integer conv at the type's extremes against the exact quotient: the sum
 * in 64 bits, truncated toward zero by C's integer division. Windows that
 * are not a power of two divide in double (exact below 2^53), a window of
 * more than 2^20 elements as integers; both must give C's quotient. */
static void test_conv_extremes(ssc_type t)
{
    static const int64_t lo[] = { -128, 0, -32768, 0, -2147483648LL, 0 };
    static const int64_t hi[] = { 127, 255, 32767, 65535, 2147483647LL, 4294967295LL };
    static const int wins[] = { 3, 5, 7, 9, 6, 1025 };
    if (t == SSC_FLOAT || t == SSC_DOUBLE)
        return;
    for (size_t wi = 0; wi < sizeof wins / sizeof wins[0]; wi++) {
        int win = wins[wi];
        int64_t w = win > 64 ? 3 : 40, h = win > 64 ? 2 : 9;
        ssc_port in = grid(t, w, h, 1, win), out = grid(t, w, h, 1, 1);
        /* extremes, their neighbours and values near zero, mixed so that
         * sums land on, just above and just below multiples of the count */
        int64_t vals[] = { hi[t], lo[t], hi[t] - 1, lo[t] + 1, 0, 1, -1 };
        int nv = lo[t] < 0 ? 7 : 6;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                int64_t k = (x * 7 + y * 13 + (x * y) % 5) % (nv + 3);
                set(&in, x, y, (double)(k < nv ? vals[k] : k == nv ? hi[t] : lo[t]));
            }
        ssc_region all = { 0, 0, w, h };
        run(func_conv, all, w, h, 3, 0, &in, 1, &out, 1);
        int64_t b = (win - 1) / 2;
        for (int64_t y = 0; y < h; y++)
            for (int64_t x = 0; x < w; x++) {
                int64_t sum = 0;
                for (int64_t dy = -b; dy <= win - 1 - b; dy++)
                    for (int64_t dx = -b; dx <= win - 1 - b; dx++) {
                        int64_t cx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                        int64_t cy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                        sum += (int64_t)get(&in, cx, cy);
                    }
                int64_t want = sum / ((int64_t)win * win);
                CHECK((int64_t)get(&out, x, y) == want,
                      "conv[%d] %s extremes at (%lld,%lld): %.0f, want %lld", win,
                      type_names[t], (long long)x, (long long)y, get(&out, x, y),
                      (long long)want);
            }
        free(in.data); free(out.data);
    }
}

static void test_scaling(ssc_type t)
{
    ssc_port big = grid(t, 2 * GW, 2 * GH, 2, 1), small = grid(t, GW, GH, 1, 1);
    ssc_port up = grid(t, 2 * GW, 2 * GH, 2, 1);
    fill_source(&big, 9);
    ssc_region all = { 0, 0, GW, GH };
    run(func_down, all, GW, GH, 4, 0, &big, 1, &small, 1);
    run(func_up, all, GW, GH, 5, 0, &small, 1, &up, 1);
    for (int64_t y = 0; y < GH; y++)
        for (int64_t x = 0; x < GW; x++) {
            double s = get(&big, 2 * x, 2 * y) + get(&big, 2 * x + 1, 2 * y) +
                       get(&big, 2 * x, 2 * y + 1) + get(&big, 2 * x + 1, 2 * y + 1);
            double want = as_type(t, s / 4);
            CHECK(same(t, get(&small, x, y), want), "down %s", type_names[t]);
            for (int j = 0; j < 4; j++)
                CHECK(get(&up, 2 * x + j % 2, 2 * y + j / 2) == get(&small, x, y),
                      "up %s", type_names[t]);
        }
    free(big.data); free(small.data); free(up.data);
}

/* Float conv gives the same bits for every split and chunking. */
static void test_conv_split_bits(void)
{
    enum { CW = 600, CH = 9 };
    ssc_port in = grid(SSC_FLOAT, CW, CH, 1, 5), a = grid(SSC_FLOAT, CW, CH, 1, 1);
    ssc_port b = grid(SSC_FLOAT, CW, CH, 1, 1);
    for (int64_t y = 0; y < CH; y++)
        for (int64_t x = 0; x < CW; x++)
            set(&in, x, y, 0.1 * (double)((x * 37 + y * 11) % 17) - 0.7);
    ssc_region all = { 0, 0, CW, CH };
    run(func_conv, all, CW, CH, 0, 0, &in, 1, &a, 1);
    for (int64_t y0 = 0; y0 < CH; y0 += 2) {     /* odd strips, then odd columns */
        ssc_region strip = { 0, y0, 257, y0 + 2 > CH ? CH : y0 + 2 };
        ssc_region rest = { 257, y0, CW, y0 + 2 > CH ? CH : y0 + 2 };
        run(func_conv, rest, CW, CH, 0, 0, &in, 1, &b, 1);
        run(func_conv, strip, CW, CH, 0, 0, &in, 1, &b, 1);
    }
    CHECK(memcmp(a.data, b.data, sizeof(float) * CW * CH) == 0, "conv float bits depend on the split");
    free(in.data); free(a.data); free(b.data);
}

/* A kernel writes its region's elements and nothing else. */
static void test_region_only(ssc_type t)
{
    ssc_port in = grid(t, GW, GH, 1, 3), out = grid(t, GW, GH, 1, 1);
    fill_source(&in, 1);
    ssc_region r = { 3, 2, 20, 7 };
    run(func_conv, r, GW, GH, 6, 0, &in, 1, &out, 1);
    for (int64_t y = 0; y < GH; y++)
        for (int64_t x = 0; x < GW; x++) {
            int inside = x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1;
            if (!inside)
                CHECK(get(&out, x, y) == 7, "conv %s wrote outside its region", type_names[t]);
        }
    free(in.data); free(out.data);
}

/* The sink's checksum does not depend on the split or the order. */
static void test_sink_split(ssc_type t)
{
    ssc_port in = grid(t, GW, GH, 1, 1);
    fill_source(&in, 2);
    ssc_region all = { 0, 0, GW, GH }, a = { 0, 0, GW, 4 }, b = { 0, 4, GW, GH };
    ssc_checksum_reset();
    run(func_sink, all, GW, GH, 9, 2, &in, 1, NULL, 0);
    uint64_t whole = ssc_checksum();
    ssc_checksum_reset();
    run(func_sink, b, GW, GH, 9, 2, &in, 1, NULL, 0);
    run(func_sink, a, GW, GH, 9, 2, &in, 1, NULL, 0);
    CHECK(ssc_checksum() == whole && whole != 0, "sink %s split changes the checksum", type_names[t]);
    ssc_checksum_reset();
    run(func_sink, all, GW, GH, 9, 3, &in, 1, NULL, 0);
    CHECK(ssc_checksum() != whole, "sink %s ignores the iteration", type_names[t]);
    free(in.data);
}

/* The sink against the formula of runtime-c/README.md, "Checksum", written
 * out again here: splitmix64, key, the word of a value, its mix, bits of
 * every type. */
static uint64_t ref_splitmix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t ref_word_mix(uint32_t s, uint32_t w)
{
    uint32_t t = (w ^ s) * 0x85EBCA6Bu;
    return t ^ (t >> 16);
}

/* bits(v): signed integers sign-extended to 64 bits, unsigned ones
 * zero-extended, float and double their IEEE bits. */
static uint64_t ref_bits(const ssc_port *p, int64_t x, int64_t y)
{
    int64_t i = y * p->stride + x;
    switch (p->type) {
    case SSC_CHAR:   return (uint64_t)(int64_t)((signed char *)p->data)[i];
    case SSC_UCHAR:  return ((unsigned char *)p->data)[i];
    case SSC_SHORT:  return (uint64_t)(int64_t)((short *)p->data)[i];
    case SSC_USHORT: return ((unsigned short *)p->data)[i];
    case SSC_INT:    return (uint64_t)(int64_t)((int *)p->data)[i];
    case SSC_UINT:   return ((unsigned *)p->data)[i];
    case SSC_FLOAT:  { uint32_t u; memcpy(&u, (float *)p->data + i, 4); return u; }
    case SSC_DOUBLE: { uint64_t u; memcpy(&u, (double *)p->data + i, 8); return u; }
    }
    return 0;
}

static uint64_t ref_sink(const ssc_port *p, ssc_region r, uint32_t id, uint64_t it)
{
    uint64_t inner = 0;
    for (int64_t y = r.y0; y < r.y1; y++)
        for (int64_t x = r.x0; x < r.x1; x++) {
            uint64_t b = ref_bits(p, x, y);
            uint32_t s = (uint32_t)((uint64_t)(y * p->width + x) * 0x9E3779B9ull);
            /* the word: b's low half when b extends it, else both halves
             * xored with the low half's sign */
            uint32_t word = (uint32_t)b;
            int extension = (b >> 32) == 0 || (int64_t)b == (int64_t)(int32_t)(uint32_t)b;
            if (!extension)
                word ^= (uint32_t)(b >> 32) ^ ((uint32_t)b >> 31 ? 0xFFFFFFFFu : 0);
            inner += ref_word_mix(s, word);
        }
    uint64_t key = ref_splitmix64(((uint64_t)id << 32) ^ ref_splitmix64(it)) | 1;
    return key * inner;
}

static void test_sink_formula(ssc_type t)
{
    const int64_t w = 45, h = 3;   /* a row longer than a vector block, and a tail */
    ssc_port in = grid(t, w, h, 1, 1);
    fill_source(&in, 5);
    /* extremes and signs; for double also bit patterns whose high word is
     * zero or all ones (one word) and a NaN's */
    static const double extremes[][4] = {
        { -128, 127, -1, 0 }, { 0, 255, 1, 128 }, { -32768, 32767, -1, 0 },
        { 0, 65535, 1, 32768 }, { -2147483648.0, 2147483647.0, -1, 0 },
        { 0, 4294967295.0, 1, 2147483648.0 }, { -0.0, 3.4e38, -1.5, 1e-40 },
        { -0.0, 1e300, -1.5, 5e-324 },
    };
    for (int k = 0; k < 4; k++)
        set(&in, 7 + k, 1, extremes[t][k]);
    if (t == SSC_DOUBLE) {
        static const uint64_t patterns[] = { 0x0000000012345678ull, 0xFFFFFFFF80000001ull,
                                             0xFFFFFFFF00000001ull, 0x7FF8000000000000ull };
        for (int k = 0; k < 4; k++)
            memcpy((double *)in.data + 2 * w + 20 + k, &patterns[k], 8);
    }
    ssc_region r = { 3, 0, w - 1, h };
    uint64_t want = ref_sink(&in, r, 11, 4);
    ssc_checksum_reset();
    run(func_sink, r, w, h, 11, 4, &in, 1, NULL, 0);
    uint64_t got = ssc_checksum();
    CHECK(got == want, "sink %s: 0x%016llx, the formula gives 0x%016llx", type_names[t],
          (unsigned long long)got, (unsigned long long)want);
    /* one element one step away changes the checksum */
    double v = get(&in, 9, 2);
    set(&in, 9, 2, v == 0 ? 1 : v - 1);
    ssc_checksum_reset();
    run(func_sink, r, w, h, 11, 4, &in, 1, NULL, 0);
    CHECK(ssc_checksum() != got, "sink %s: a changed element leaves the checksum", type_names[t]);
    free(in.data);
}

/* ---- known values --------------------------------------------------- */

static void test_known_values(void)
{
    ssc_region one = { 0, 0, 2, 1 };
    {   /* gain saturates and truncates toward zero */
        signed char in[2] = { 100, -101 }, out[2];
        ssc_port pi = ssc_port_make(in, SSC_CHAR, 2, 1, 1, 1, 1, 1);
        ssc_port po = ssc_port_make(out, SSC_CHAR, 2, 1, 1, 1, 1, 1);
        run(func_gain, one, 2, 1, 0, 0, &pi, 1, &po, 1);
        CHECK(out[0] == 127 && out[1] == -128, "gain char: %d %d", out[0], out[1]);
        in[0] = 5, in[1] = -5;
        run(func_gain, one, 2, 1, 0, 0, &pi, 1, &po, 1);
        CHECK(out[0] == 7 && out[1] == -7, "gain char 5,-5: %d %d", out[0], out[1]);
    }
    {   /* uint: a product past 2^32 saturates, no wrap */
        unsigned a[2] = { 70000, 3 }, b[2] = { 70000, 4 }, out[2];
        ssc_port p[2] = { ssc_port_make(a, SSC_UINT, 2, 1, 1, 1, 1, 1),
                          ssc_port_make(b, SSC_UINT, 2, 1, 1, 1, 1, 1) };
        ssc_port po = ssc_port_make(out, SSC_UINT, 2, 1, 1, 1, 1, 1);
        run(func_mul, one, 2, 1, 0, 0, p, 2, &po, 1);
        CHECK(out[0] == 4294967295u && out[1] == 12, "mul uint: %u %u", out[0], out[1]);
    }
    {   /* int avg truncates toward zero: (-3 + 0) / 2 = -1 */
        int a[2] = { -3, 2147483647 }, b[2] = { 0, 2147483647 }, out[2];
        ssc_port p[2] = { ssc_port_make(a, SSC_INT, 2, 1, 1, 1, 1, 1),
                          ssc_port_make(b, SSC_INT, 2, 1, 1, 1, 1, 1) };
        ssc_port po = ssc_port_make(out, SSC_INT, 2, 1, 1, 1, 1, 1);
        run(func_avg, one, 2, 1, 0, 0, p, 2, &po, 1);
        CHECK(out[0] == -1 && out[1] == 2147483647, "avg int: %d %d", out[0], out[1]);
        run(func_plus, one, 2, 1, 0, 0, p, 2, &po, 1);
        CHECK(out[0] == -3 && out[1] == 2147483647, "plus int: %d %d", out[0], out[1]);
    }
    {   /* conv [2,1] (power of two: the shift path) truncates like division */
        short in[2] = { -3, 0 }, out[2];
        ssc_port pi = ssc_port_make(in, SSC_SHORT, 2, 1, 1, 1, 2, 1);
        ssc_port po = ssc_port_make(out, SSC_SHORT, 2, 1, 1, 1, 1, 1);
        run(func_conv, one, 2, 1, 0, 0, &pi, 1, &po, 1);
        /* window [2,1]: 0 before, 1 after; x=1 clamps to (0 + 0) */
        CHECK(out[0] == -1 && out[1] == 0, "conv short [2,1]: %d %d", out[0], out[1]);
    }
    {   /* conv [3,3] on a 3x3 image with clamped borders */
        float in[9] = { 0, 0, 0, 0, 9, 0, 0, 0, 0 }, out[9];
        ssc_port pi = ssc_port_make(in, SSC_FLOAT, 3, 3, 1, 1, 3, 3);
        ssc_port po = ssc_port_make(out, SSC_FLOAT, 3, 3, 1, 1, 1, 1);
        ssc_region all = { 0, 0, 3, 3 };
        run(func_conv, all, 3, 3, 0, 0, &pi, 1, &po, 1);
        for (int i = 0; i < 9; i++)
            CHECK(out[i] == 1.0f, "conv float [3,3] at %d: %g", i, out[i]);
    }
}

/* ---- runtime pieces ------------------------------------------------- */

static void test_stats(void)
{
    uint64_t v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = (uint64_t)(1000 - i);
    ssc_stats s;
    ssc_stats_compute(v, 1000, &s);
    CHECK(s.count == 1000 && s.min == 1 && s.max == 1000 && s.p50 == 500 && s.p99 == 990 &&
          s.p999 == 999 && s.mean == 500.5 && fabs(s.stddev - 288.819) < 1e-3,
          "stats: p50 %llu p99 %llu p99.9 %llu mean %g sd %g", (unsigned long long)s.p50,
          (unsigned long long)s.p99, (unsigned long long)s.p999, s.mean, s.stddev);
}

static void test_pool(void)
{
    ssc_pool *p = ssc_pool_create(100, 2);
    void *a = ssc_pool_get(p), *b = ssc_pool_get(p), *c = ssc_pool_get(p);
    CHECK(a && b && c && a != b && b != c && ((uintptr_t)c % 64) == 0, "pool blocks");
    ssc_pool_put(p, b);
    CHECK(ssc_pool_get(p) == b && ssc_pool_blocks(p) == 3, "pool reuse");
    ssc_pool_destroy(p);
    void *d = ssc_dyn_alloc(10);
    CHECK(((uintptr_t)d % 64) == 0, "dyn alignment");
    ssc_dyn_free(d);
}

/* -dm: one writer allocates and fills every port, the last user frees. */
static void test_dynbuf(void)
{
    for (int pooled = 0; pooled < 2; pooled++) {
        ssc_pool *pool = pooled ? ssc_pool_create(256, 1) : NULL;
        ssc_port a = { 0 }, b = { 0 };
        ssc_port *const ports[] = { &a, &b };
        ssc_dynbuf d;
        ssc_dynbuf_init(&d, 256, 3, pool, ports, 2);  /* 2 writers, 1 reader */
        void *first = NULL;
        for (int it = 0; it < 3; it++) {
            ssc_dyn_write(&d);
            ssc_dyn_write(&d);
            CHECK(a.data && a.data == b.data && ((uintptr_t)a.data % 64) == 0, "dyn ports");
            if (pooled && it == 0)
                first = a.data;
            if (pooled)
                CHECK(a.data == first, "dyn pool reuse");
            memset(a.data, it, 256);
            ssc_dyn_done(&d);
            ssc_dyn_done(&d);
            CHECK(atomic_load(&d.state) == SSC_DYN_PUBLISHED, "dyn live until last use");
            ssc_dyn_done(&d);
            CHECK(atomic_load(&d.state) == SSC_DYN_FREE && d.data == NULL, "dyn freed");
        }
        CHECK(d.allocations == 3, "dyn one allocation per iteration");
        ssc_dynbuf_destroy(&d);
        if (pool) {
            CHECK(ssc_pool_blocks(pool) == 1, "dyn pool size");
            ssc_pool_destroy(pool);
        }
    }
}

/* Ping-pong through two signals with a plain (non-atomic) counter: the
 * signals must order it (TSan checks). spin 0 forces the futex path. */
enum { ROUNDS = 20000 };
static ssc_signal ping, pong;
static ssc_barrier bar;
static long shared_counter;
static long slots[2];

static void *pong_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        ssc_signal_wait(&ping);
        shared_counter++;
        ssc_signal_post(&pong);
    }
    for (int i = 0; i < ROUNDS; i++) {   /* barrier rounds */
        slots[1] = i;
        ssc_barrier_wait(&bar);
        CHECK(slots[0] == i, "barrier round %d", i);
        ssc_barrier_wait(&bar);
    }
    return NULL;
}

static void test_sync(uint64_t spin_ns)
{
    ssc_set_spin_ns(spin_ns);
    ssc_signal_init(&ping, 0);
    ssc_signal_init(&pong, 0);
    ssc_barrier_init(&bar, 2);
    shared_counter = 0;
    pthread_t t;
    pthread_create(&t, NULL, pong_thread, NULL);
    for (int i = 0; i < ROUNDS; i++) {
        shared_counter++;
        ssc_signal_post(&ping);
        ssc_signal_wait(&pong);
    }
    for (int i = 0; i < ROUNDS; i++) {
        slots[0] = i;
        ssc_barrier_wait(&bar);
        CHECK(slots[1] == i, "barrier round %d", i);
        ssc_barrier_wait(&bar);
    }
    pthread_join(t, NULL);
    CHECK(shared_counter == 2 * ROUNDS, "ping-pong counter %ld", shared_counter);
}

int main(void)
{
    for (size_t i = 0; i < sizeof all_types / sizeof all_types[0]; i++) {
        ssc_type t = all_types[i];
        test_elementwise(t);
        test_conv(t, 4, GW, GH);
        test_conv(t, 3, GW, GH);
        test_conv(t, 5, 300, 7);      /* longer than a conv chunk */
        test_conv(t, 1, 5, 5);
        test_conv(t, 70, 300, 9);     /* wider than CONV_MAX_SEP: the other path */
        test_conv(t, 64, 70, 9);      /* the widest shared-column window */
        test_conv(t, 3, 512, 4);      /* two whole chunks, clamped at both ends */
        test_conv(t, 5, 256, 4);      /* one whole chunk, clamped at both ends */
        test_conv(t, 3, 1, 3);        /* one column: every read clamped */
        test_conv(t, 3, 2, 2);
        test_conv(t, 7, 3, 5);        /* a window wider than the grid */
        test_conv_extremes(t);
        test_scaling(t);
        test_region_only(t);
        test_sink_split(t);
        test_sink_formula(t);
        test_fold(t, 40, 20, 6);
        test_fold(t, 37, 22, 5);   /* a ring that does not divide the rows */
        test_fold_bands(t, 40, 24, 6);
    }
    test_known_values();
    test_conv_split_bits();
    test_stats();
    test_pool();
    test_dynbuf();
    test_sync(20000);   /* spinning */
    test_sync(0);       /* sleeping on the futex */
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("test_kernels: all passed\n");
    return 0;
}
