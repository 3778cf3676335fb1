/* ssc_kernels.c — the built-in kernels, one definition each, instantiated
 * for every element type by the X-macro SSC_TYPES.
 *
 * Arithmetic: integer types compute in a wide type `W` of their signedness
 * (32-bit for 8- and 16-bit elements, so SSE2 can vectorise it; 64-bit for
 * int and uint) where no kernel here can overflow (the largest value is a
 * product of two elements; conv sums its window in 64 bits), then saturate
 * to the element type: no undefined or implementation-defined behaviour.
 * float and double compute in their own type (IEEE, no saturation).
 * Integer division truncates toward zero. */
#include "ssc_kernels.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* X(S suffix, T element type, W wide type, E ssc_type, K kind, LO, HI)
 * K: S signed integer, U unsigned integer, F floating point.
 * `char` is signed char, so the results do not depend on the platform. */
#define SSC_TYPES(X)                                                         \
    X(char,   signed char,    int32_t,  SSC_CHAR,   S, SCHAR_MIN, SCHAR_MAX)  \
    X(uchar,  unsigned char,  uint32_t, SSC_UCHAR,  U, 0,         UCHAR_MAX)  \
    X(short,  short,          int32_t,  SSC_SHORT,  S, SHRT_MIN,  SHRT_MAX)   \
    X(ushort, unsigned short, uint32_t, SSC_USHORT, U, 0,         USHRT_MAX)  \
    X(int,    int,            int64_t,  SSC_INT,    S, INT_MIN,   INT_MAX)    \
    X(uint,   unsigned int,   uint64_t, SSC_UINT,   U, 0,         UINT_MAX)   \
    X(float,  float,          float,    SSC_FLOAT,  F, 0,         0)          \
    X(double, double,         double,   SSC_DOUBLE, F, 0,         0)

/* ---- per-kind helpers ---------------------------------------------- */

/* The accumulator of conv: 64 bits for integers, whatever the window. */
#define ACC_S(W) int64_t
#define ACC_U(W) uint64_t
#define ACC_F(W) W

/* Saturating conversion of a wide value to the element type. */
#define SAT_S(T, LO, HI, w) ((w) < (LO) ? (T)(LO) : (w) > (HI) ? (T)(HI) : (T)(w))
#define SAT_U(T, LO, HI, w) ((w) > (HI) ? (T)(HI) : (T)(w))
#define SAT_F(T, LO, HI, w) ((T)(w))

/* The source pattern p in [0, 251) as an element value. */
#define SRC_S(T, p) ((T)((int64_t)(p) - 125))
#define SRC_U(T, p) ((T)(p))
#define SRC_F(T, p) ((T)(((double)(p) - 125.0) / 8.0))

#define DEF_SAT(S, T, W, E, K, LO, HI) \
    static inline T sat_##S(W w) { return SAT_##K(T, LO, HI, w); }
SSC_TYPES(DEF_SAT)

/* The checksum's view of a value: sign-extended integers, IEEE bits of
 * floating point values (so 0.0 and -0.0 differ, as their bits do). */
#define BITS_S(T, v) ((uint64_t)(int64_t)(v))
#define BITS_U(T, v) ((uint64_t)(v))
#define BITS_F(T, v) float_bits_##T(v)
static inline uint64_t float_bits_float(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}
static inline uint64_t float_bits_double(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static uint64_t source_pattern(int64_t x, int64_t y, uint64_t iteration)
{
    return ((uint64_t)x * 7 + (uint64_t)y * 13 + iteration * 31) % 251;
}

static inline int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The elements a region covers on a port: the points times its mul. */
typedef struct { int64_t x0, y0, x1, y1; } span;

static span elements(const ssc_region *r, const ssc_port *p)
{
    span s = { r->x0 * p->mul_x, r->y0 * p->mul_y, r->x1 * p->mul_x, r->y1 * p->mul_y };
    return s;
}

#define ROW(T, port, y) SSC_ROW(T, port, y)

/* for (x = x0; x < x1; x++) STMT, as blocks of a constant 32 iterations and
 * a tail: gcc -O2 (its "very cheap" cost model) vectorises only loops with
 * a known trip count; clang and gcc -O3 would vectorise the plain loop. */
#define FOR_X(x, x0, x1, STMT)                                               \
    do {                                                                     \
        int64_t xb_ = (x0);                                                  \
        for (; xb_ + 32 <= (x1); xb_ += 32)                                  \
            for (int64_t x = xb_; x < xb_ + 32; x++) { STMT; }               \
        for (int64_t x = xb_; x < (x1); x++) { STMT; }                       \
    } while (0)

/* ---- dispatch ------------------------------------------------------ */

static void bad_type(const char *kernel, ssc_type t)
{
    fprintf(stderr, "%s: %s: unknown element type %d\n", ssc_program_name(), kernel, (int)t);
    abort();
}

#define DISPATCH(entry, name, type_expr)                                     \
    void entry(const ssc_call *c)                                            \
    {                                                                        \
        switch (type_expr) {                                                 \
        case SSC_CHAR:   name##_char(c); break;                              \
        case SSC_UCHAR:  name##_uchar(c); break;                             \
        case SSC_SHORT:  name##_short(c); break;                             \
        case SSC_USHORT: name##_ushort(c); break;                            \
        case SSC_INT:    name##_int(c); break;                               \
        case SSC_UINT:   name##_uint(c); break;                              \
        case SSC_FLOAT:  name##_float(c); break;                             \
        case SSC_DOUBLE: name##_double(c); break;                            \
        default:         bad_type(#entry, type_expr);                        \
        }                                                                    \
    }

/* ---- source and sink ----------------------------------------------- */

/* Copies the region's rows of an external frame (the caller's image in
 * library mode, a file given to --input) into the output port. */
static void source_external(const ssc_call *c, const ssc_frame *f)
{
    const ssc_port *op = &c->out[0];
    span e = elements(&c->region, op);
    size_t size = ssc_type_size(op->type);
    for (int64_t y = e.y0; y < e.y1; y++)
        memcpy((char *)op->data + (ssc_row_slot(op, y) * op->stride + e.x0) * (int64_t)size,
               (const char *)f->data + y * f->stride + e.x0 * (int64_t)size,
               size * (size_t)(e.x1 - e.x0));
}

/* The sink's rows into an external frame (library mode, --output). */
static void sink_external(const ssc_call *c, const ssc_frame *f)
{
    const ssc_port *ip = &c->in[0];
    span e = elements(&c->region, ip);
    size_t size = ssc_type_size(ip->type);
    for (int64_t y = e.y0; y < e.y1; y++)
        memcpy((char *)f->data + y * f->stride + e.x0 * (int64_t)size,
               (const char *)ip->data + (ssc_row_slot(ip, y) * ip->stride + e.x0) * (int64_t)size,
               size * (size_t)(e.x1 - e.x0));
}

/* Without an external frame: depends on the iteration and the element's
 * grid position only, so any split of the source writes the same image.
 * Along a row the pattern has period 251: the first 251 elements are
 * computed (a vectorisable modulo of 32-bit values), the rest copied from
 * them. */
#define SOURCE_PERIOD 251
#define DEF_SOURCE(S, T, W, E, K, LO, HI)                                    \
    static void source_##S(const ssc_call *c)                                \
    {                                                                        \
        ssc_frame ext;                                                       \
        if (ssc_external_frame(c->id, c->iteration, &ext)) {                 \
            source_external(c, &ext);                                        \
            return;                                                          \
        }                                                                    \
        const ssc_port *op = &c->out[0];                                     \
        span e = elements(&c->region, op);                                   \
        int64_t n = e.x1 - e.x0;                                             \
        int64_t m = n < SOURCE_PERIOD ? n : SOURCE_PERIOD;                   \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            T *restrict out = ROW(T, op, y) + e.x0;                          \
            uint32_t p0 = (uint32_t)source_pattern(e.x0, y, c->iteration);   \
            for (int64_t j = 0; j < m; j++) {                                \
                uint32_t p = (p0 + 7u * (uint32_t)j) % SOURCE_PERIOD;        \
                out[j] = SRC_##K(T, p);                                      \
            }                                                                \
            for (int64_t j = m; j < n; j += SOURCE_PERIOD)                   \
                memcpy(out + j, out,                                         \
                       sizeof(T) * (size_t)(n - j < SOURCE_PERIOD ? n - j : SOURCE_PERIOD)); \
        }                                                                    \
    }
SSC_TYPES(DEF_SOURCE)
DISPATCH(func_source, source, c->out[0].type)

/* checksum += key(id, iteration) * sum of mix(position, bits(value)):
 * a sum, so any split and any order of sinks gives the same total. With
 * an external frame the sink also copies its rows there. */
#define DEF_SINK(S, T, W, E, K, LO, HI)                                      \
    static void sink_##S(const ssc_call *c)                                  \
    {                                                                        \
        const ssc_port *ip = &c->in[0];                                      \
        span e = elements(&c->region, ip);                                   \
        uint64_t sum = 0;                                                    \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            const T *restrict in = ROW(const T, ip, y);                      \
            uint64_t scaled = ((uint64_t)y * (uint64_t)ip->width + (uint64_t)e.x0) \
                              * SSC_MIX_POSITION;                            \
            for (int64_t x = e.x0; x < e.x1; x++, scaled += SSC_MIX_POSITION) \
                sum += ssc_mix_scaled(scaled, BITS_##K(T, in[x]));           \
        }                                                                    \
        ssc_checksum_add(sum * ssc_checksum_key(c->id, c->iteration));       \
        ssc_frame ext;                                                       \
        if (ssc_external_frame(c->id, c->iteration, &ext))                   \
            sink_external(c, &ext);                                          \
    }
SSC_TYPES(DEF_SINK)
DISPATCH(func_sink, sink, c->in[0].type)

/* ---- element-wise -------------------------------------------------- */

/* Row loops take restrict parameters: gcc trusts restrict on parameters
 * (not on block-scope pointers) and then needs no runtime alias check. */

/* One input, one output, out[x] = EXPR of `a`. */
#define DEF_UNARY_T(name, S, T, W, EXPR)                                     \
    static void name##_row_##S(T *restrict out, const T *restrict in,        \
                               int64_t x0, int64_t x1)                       \
    {                                                                        \
        FOR_X(x, x0, x1, T a = in[x]; out[x] = EXPR);                        \
    }                                                                        \
    static void name##_##S(const ssc_call *c)                                \
    {                                                                        \
        const ssc_port *ip = &c->in[0], *op = &c->out[0];                    \
        span e = elements(&c->region, op);                                   \
        for (int64_t y = e.y0; y < e.y1; y++)                                \
            name##_row_##S(ROW(T, op, y), ROW(const T, ip, y), e.x0, e.x1);  \
    }

/* Two inputs, one output, out[x] = EXPR of `a` and `b`. */
#define DEF_BINARY_T(name, S, T, W, EXPR)                                    \
    static void name##_row_##S(T *restrict out, const T *restrict in0,       \
                               const T *restrict in1, int64_t x0, int64_t x1) \
    {                                                                        \
        FOR_X(x, x0, x1, T a = in0[x]; T b = in1[x]; out[x] = EXPR);         \
    }                                                                        \
    static void name##_##S(const ssc_call *c)                                \
    {                                                                        \
        const ssc_port *p0 = &c->in[0], *p1 = &c->in[1], *op = &c->out[0];   \
        span e = elements(&c->region, op);                                   \
        for (int64_t y = e.y0; y < e.y1; y++)                                \
            name##_row_##S(ROW(T, op, y), ROW(const T, p0, y),               \
                           ROW(const T, p1, y), e.x0, e.x1);                 \
    }

#define DEF_GAIN(S, T, W, E, K, LO, HI) DEF_UNARY_T(gain, S, T, W, sat_##S((W)a * 3 / 2))
#define DEF_COPY(S, T, W, E, K, LO, HI) DEF_UNARY_T(copy, S, T, W, a)
#define DEF_PLUS(S, T, W, E, K, LO, HI) DEF_BINARY_T(plus, S, T, W, sat_##S((W)a + (W)b))
#define DEF_MUL(S, T, W, E, K, LO, HI)  DEF_BINARY_T(mul, S, T, W, sat_##S((W)a * (W)b))
#define DEF_AVG(S, T, W, E, K, LO, HI)  DEF_BINARY_T(avg, S, T, W, sat_##S(((W)a + (W)b) / 2))
SSC_TYPES(DEF_GAIN)
SSC_TYPES(DEF_COPY)
SSC_TYPES(DEF_PLUS)
SSC_TYPES(DEF_MUL)
SSC_TYPES(DEF_AVG)
DISPATCH(func_gain, gain, c->out[0].type)
DISPATCH(func_copy, copy, c->out[0].type)
DISPATCH(func_plus, plus, c->out[0].type)
DISPATCH(func_mul, mul, c->out[0].type)
DISPATCH(func_avg, avg, c->out[0].type)

#define DEF_DUP(S, T, W, E, K, LO, HI)                                       \
    static void dup_row_##S(T *restrict out0, T *restrict out1,              \
                            const T *restrict in, int64_t x0, int64_t x1)    \
    {                                                                        \
        FOR_X(x, x0, x1, out0[x] = in[x]; out1[x] = in[x]);                  \
    }                                                                        \
    static void dup_##S(const ssc_call *c)                                   \
    {                                                                        \
        const ssc_port *ip = &c->in[0], *o0 = &c->out[0], *o1 = &c->out[1];  \
        span e = elements(&c->region, o0);                                   \
        for (int64_t y = e.y0; y < e.y1; y++)                                \
            dup_row_##S(ROW(T, o0, y), ROW(T, o1, y), ROW(const T, ip, y),   \
                        e.x0, e.x1);                                         \
    }
SSC_TYPES(DEF_DUP)
DISPATCH(func_dup, dup, c->out[0].type)

/* ---- convolution --------------------------------------------------- */

/* Mean over the input window (a box filter: every weight 1/(wx*wy)),
 * coordinates clamped to the grid, computed separably: for output element
 * x, acc = sum over dx of col(x + dx), col(u) = sum over dy of
 * in[clamp(y + dy)][clamp(u)], both sums in ascending order. So the bits of
 * every element are fixed whatever the split or chunking (floats too), and
 * a window costs wx + wy adds per element instead of wx * wy.
 *
 * An output row is done in chunks of CONV_CHUNK elements. Windows up to
 * CONV_MAX_SEP wide compute the chunk's column sums once and share them
 * between the dx; wider windows recompute col(x + dx) for each dx (the same
 * sums, so the same bits). Loops over a whole chunk have a constant trip
 * count, which gcc -O2's "very cheap" vectoriser requires. The column sums
 * read each input row in three runs (conv_runs): the clamped columns left
 * and right of the grid one by one, the columns inside it as one plain
 * loop, so the clamp never reaches the inner loop (a clamped index there
 * made gcc gather every element: 2x slower on the X-ray chain).
 * Integer means truncate toward zero; a power-of-two window uses an exact
 * shift instead of a (slow, scalar) division. */
#define CONV_CHUNK 256
#define CONV_MAX_SEP 64
#define CONV_COLS (CONV_CHUNK + CONV_MAX_SEP - 1)

/* Exact truncating division of a wide value by 2^shift or by count. */
#define DIV_S(W, acc, count, shift) ((shift) < 0 ? (acc) / (count)          \
    : (acc) < 0 ? -(W)((uint64_t)-(acc) >> (shift))                         \
    : (W)((uint64_t)(acc) >> (shift)))   /* |acc| >> shift: no signed shift */
#define DIV_U(W, acc, count, shift) ((shift) >= 0 ? (acc) >> (shift) : (acc) / (count))
#define DIV_F(W, acc, count, shift) ((acc) / (count))

static int log2_exact(int64_t v)   /* log2(v) when v is a power of two, else -1 */
{
    int s = 0;
    while (((int64_t)1 << s) < v && s < 62)
        s++;
    return ((int64_t)1 << s) == v ? s : -1;
}

/* The columns j < N of a row read from column u0 on, split where the
 * clamp acts: [0, *lo) read column 0, [*lo, *hi) columns u0 + j of the
 * row, [*hi, N) column width - 1. Only the middle run is a plain loop
 * over memory, so only it vectorises; the clamped runs are at most the
 * window's half-width long. */
static inline void conv_runs(int64_t u0, int64_t N, int64_t width, int64_t *lo, int64_t *hi)
{
    int64_t l = u0 < 0 ? -u0 : 0, h = width - u0;
    l = l < N ? l : N;
    h = h > N ? N : h < l ? l : h;
    *lo = l;
    *hi = h;
}

/* col[j] = sum over dy of in[clamp(y + dy)][clamp(u0 + j)], j < N. */
#define CONV_COLUMNS(T, col, ip, y, by, ay, u0, N)                           \
    do {                                                                     \
        int64_t lo_, hi_;                                                    \
        conv_runs((u0), (N), (ip)->width, &lo_, &hi_);                       \
        for (int64_t j = 0; j < (N); j++)                                    \
            (col)[j] = 0;                                                    \
        for (int64_t dy = -(by); dy <= (ay); dy++) {                         \
            const T *row_ = ROW(const T, ip, clamp64((y) + dy, 0, (ip)->height - 1)); \
            for (int64_t j = 0; j < lo_; j++)                                \
                (col)[j] += row_[0];                                         \
            for (int64_t j = lo_; j < hi_; j++)                              \
                (col)[j] += row_[(u0) + j];                                  \
            for (int64_t j = hi_; j < (N); j++)                              \
                (col)[j] += row_[(ip)->width - 1];                           \
        }                                                                    \
    } while (0)

/* acc[k] += col[k + off], k < N. */
#define CONV_ROWSUM(acc, col, off, N)                                        \
    do {                                                                     \
        for (int64_t k = 0; k < (N); k++)                                    \
            (acc)[k] += (col)[k + (off)];                                    \
    } while (0)

#define DEF_CONV(S, T, W, E, K, LO, HI)                                      \
    static void conv_chunk_##S(const ssc_port *ip, int64_t y, int64_t cx,    \
                               int64_t n, ACC_##K(W) *restrict acc)          \
    {                                                                        \
        typedef ACC_##K(W) acc_t;                                            \
        int64_t bx = (ip->win_x - 1) / 2, ax = ip->win_x - 1 - bx;           \
        int64_t by = (ip->win_y - 1) / 2, ay = ip->win_y - 1 - by;           \
        acc_t col[CONV_COLS];                                                \
        if (ip->win_x == 3 && ip->win_y == 3) {                              \
            /* 3x3: the same sums in the same order, each in one pass (no    \
             * zeroing, no intermediate column passes). */                   \
            const T *r0 = ROW(const T, ip, clamp64(y - 1, 0, ip->height - 1)); \
            const T *r1 = ROW(const T, ip, y);                               \
            const T *r2 = ROW(const T, ip, clamp64(y + 1, 0, ip->height - 1)); \
            int64_t u0 = cx - 1, lo, hi, last = ip->width - 1;               \
            conv_runs(u0, n + 2, ip->width, &lo, &hi);                       \
            for (int64_t j = 0; j < lo; j++)                                 \
                col[j] = (((acc_t)0 + r0[0]) + r1[0]) + r2[0];               \
            for (int64_t j = lo; j < hi; j++)                                \
                col[j] = (((acc_t)0 + r0[u0 + j]) + r1[u0 + j]) + r2[u0 + j]; \
            for (int64_t j = hi; j < n + 2; j++)                             \
                col[j] = (((acc_t)0 + r0[last]) + r1[last]) + r2[last];      \
            for (int64_t k = 0; k < n; k++)                                  \
                acc[k] = (((acc_t)0 + col[k]) + col[k + 1]) + col[k + 2];    \
            return;                                                          \
        }                                                                    \
        memset(acc, 0, sizeof(acc_t) * CONV_CHUNK);                          \
        if (ip->win_x <= CONV_MAX_SEP) {                                     \
            if (n == CONV_CHUNK) {                                           \
                CONV_COLUMNS(T, col, ip, y, by, ay, cx - bx, CONV_CHUNK);    \
                CONV_COLUMNS(T, col + CONV_CHUNK, ip, y, by, ay,             \
                             cx - bx + CONV_CHUNK, ip->win_x - 1);           \
                for (int64_t dx = 0; dx < ip->win_x; dx++)                   \
                    CONV_ROWSUM(acc, col, dx, CONV_CHUNK);                   \
            } else {                                                         \
                CONV_COLUMNS(T, col, ip, y, by, ay, cx - bx, n + ip->win_x - 1); \
                for (int64_t dx = 0; dx < ip->win_x; dx++)                   \
                    CONV_ROWSUM(acc, col, dx, n);                            \
            }                                                                \
        } else {                                                             \
            for (int64_t dx = -bx; dx <= ax; dx++) {                         \
                CONV_COLUMNS(T, col, ip, y, by, ay, cx + dx, n);             \
                CONV_ROWSUM(acc, col, 0, n);                                 \
            }                                                                \
        }                                                                    \
    }                                                                        \
    static void conv_##S(const ssc_call *c)                                  \
    {                                                                        \
        typedef ACC_##K(W) acc_t;                                            \
        const ssc_port *ip = &c->in[0], *op = &c->out[0];                    \
        acc_t count = (acc_t)ip->win_x * (acc_t)ip->win_y;                   \
        int shift = log2_exact((int64_t)ip->win_x * ip->win_y);              \
        (void)shift;                           /* unused by floating types */ \
        span e = elements(&c->region, op);                                   \
        acc_t acc[CONV_CHUNK];                                               \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            T *restrict out = ROW(T, op, y);                                 \
            for (int64_t cx = e.x0; cx < e.x1; cx += CONV_CHUNK) {           \
                int64_t n = e.x1 - cx < CONV_CHUNK ? e.x1 - cx : CONV_CHUNK; \
                conv_chunk_##S(ip, y, cx, n, acc);                           \
                for (int64_t k = 0; k < n; k++)                              \
                    out[cx + k] = sat_##S((W)DIV_##K(acc_t, acc[k], count, shift)); \
            }                                                                \
        }                                                                    \
    }
SSC_TYPES(DEF_CONV)
DISPATCH(func_conv, conv, c->out[0].type)

/* ---- scaling ------------------------------------------------------- */

/* Output element (x, y) = mean of input elements (2x..2x+1, 2y..2y+1). */
#define DEF_DOWN(S, T, W, E, K, LO, HI)                                      \
    static void down_row_##S(T *restrict out, const T *restrict r0,          \
                             const T *restrict r1, int64_t x0, int64_t x1)   \
    {                                                                        \
        FOR_X(x, x0, x1,                                                     \
              out[x] = sat_##S(((W)r0[2 * x] + (W)r0[2 * x + 1] +            \
                                (W)r1[2 * x] + (W)r1[2 * x + 1]) / 4));      \
    }                                                                        \
    static void down_##S(const ssc_call *c)                                  \
    {                                                                        \
        const ssc_port *ip = &c->in[0], *op = &c->out[0];                    \
        span e = elements(&c->region, op);                                   \
        for (int64_t y = e.y0; y < e.y1; y++)                                \
            down_row_##S(ROW(T, op, y), ROW(const T, ip, 2 * y),             \
                         ROW(const T, ip, 2 * y + 1), e.x0, e.x1);           \
    }
SSC_TYPES(DEF_DOWN)
DISPATCH(func_down, down, c->out[0].type)

/* Output element (x, y) = input element (x/2, y/2): each input element
 * stored twice (a loop over input elements, which vectorises as an
 * interleave), and an odd output row copied from the even row above it
 * when the sub-box computed that row too (the same input row). */
#define DEF_UP(S, T, W, E, K, LO, HI)                                        \
    static void up_row_##S(T *restrict out, const T *restrict in,            \
                           int64_t x0, int64_t x1)                           \
    {                                                                        \
        if (x0 < x1 && (x0 & 1)) {                                           \
            out[x0] = in[x0 >> 1];                                           \
            x0++;                                                            \
        }                                                                    \
        int64_t i0 = x0 >> 1, i1 = x1 >> 1;                                 \
        for (int64_t i = i0; i < i1; i++) {                                  \
            out[2 * i] = in[i];                                              \
            out[2 * i + 1] = in[i];                                          \
        }                                                                    \
        if (x0 < x1 && (x1 & 1))                                             \
            out[x1 - 1] = in[(x1 - 1) >> 1];                                 \
    }                                                                        \
    static void up_##S(const ssc_call *c)                                    \
    {                                                                        \
        const ssc_port *ip = &c->in[0], *op = &c->out[0];                    \
        span e = elements(&c->region, op);                                   \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            if ((y & 1) && y > e.y0)                                         \
                memcpy(ROW(T, op, y) + e.x0, ROW(T, op, y - 1) + e.x0,       \
                       sizeof(T) * (size_t)(e.x1 - e.x0));                   \
            else                                                             \
                up_row_##S(ROW(T, op, y), ROW(const T, ip, y / 2), e.x0, e.x1); \
        }                                                                    \
    }
SSC_TYPES(DEF_UP)
DISPATCH(func_up, up, c->out[0].type)

/* ---- for tests ----------------------------------------------------- */

#define SOURCE_VALUE_CASE(S, T, W, E, K, LO, HI) \
    case E: return (double)SRC_##K(T, source_pattern(x, y, iteration));

double ssc_source_value(ssc_type type, int64_t x, int64_t y, uint64_t iteration)
{
    switch (type) {
    SSC_TYPES(SOURCE_VALUE_CASE)
    }
    bad_type("ssc_source_value", type);
    return 0;
}
