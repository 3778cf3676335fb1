/* ssc_kernels.c — the built-in kernels, one definition each, instantiated
 * for every element type by the X-macro SSC_TYPES.
 *
 * Arithmetic: integer types compute in a 64-bit type of their signedness
 * (`W`), where no kernel here can overflow (the largest value is a product
 * of two 32-bit values), then saturate to the element type: no undefined or
 * implementation-defined behaviour. float and double compute in their own
 * type (IEEE, no saturation). Integer division truncates toward zero. */
#include "ssc_kernels.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* X(S suffix, T element type, W wide type, E ssc_type, K kind, LO, HI)
 * K: S signed integer, U unsigned integer, F floating point.
 * `char` is signed char, so the results do not depend on the platform. */
#define SSC_TYPES(X)                                                         \
    X(char,   signed char,    int64_t,  SSC_CHAR,   S, SCHAR_MIN, SCHAR_MAX)  \
    X(uchar,  unsigned char,  uint64_t, SSC_UCHAR,  U, 0,         UCHAR_MAX)  \
    X(short,  short,          int64_t,  SSC_SHORT,  S, SHRT_MIN,  SHRT_MAX)   \
    X(ushort, unsigned short, uint64_t, SSC_USHORT, U, 0,         USHRT_MAX)  \
    X(int,    int,            int64_t,  SSC_INT,    S, INT_MIN,   INT_MAX)    \
    X(uint,   unsigned int,   uint64_t, SSC_UINT,   U, 0,         UINT_MAX)   \
    X(float,  float,          float,    SSC_FLOAT,  F, 0,         0)          \
    X(double, double,         double,   SSC_DOUBLE, F, 0,         0)

/* ---- per-kind helpers ---------------------------------------------- */

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

#define ROW(T, port, y) ((T *)(port)->data + (y) * (port)->stride)

/* ---- dispatch ------------------------------------------------------ */

static void bad_type(const char *kernel, ssc_type t)
{
    fprintf(stderr, "ssc: %s: unknown element type %d\n", kernel, (int)t);
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

/* Depends on the iteration and the element's grid position only, so any
 * split of the source writes the same image. */
#define DEF_SOURCE(S, T, W, E, K, LO, HI)                                    \
    static void source_##S(const ssc_call *c)                                \
    {                                                                        \
        const ssc_port *op = &c->out[0];                                     \
        span e = elements(&c->region, op);                                   \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            T *restrict out = ROW(T, op, y);                                 \
            for (int64_t x = e.x0; x < e.x1; x++)                            \
                out[x] = SRC_##K(T, source_pattern(x, y, c->iteration));     \
        }                                                                    \
    }
SSC_TYPES(DEF_SOURCE)
DISPATCH(func_source, source, c->out[0].type)

/* checksum += key(id, iteration) * sum of mix(position, bits(value)):
 * a sum, so any split and any order of sinks gives the same total. */
#define DEF_SINK(S, T, W, E, K, LO, HI)                                      \
    static void sink_##S(const ssc_call *c)                                  \
    {                                                                        \
        const ssc_port *ip = &c->in[0];                                      \
        span e = elements(&c->region, ip);                                   \
        uint64_t sum = 0;                                                    \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            const T *restrict in = ROW(const T, ip, y);                      \
            uint64_t row_pos = (uint64_t)y * (uint64_t)ip->width;            \
            for (int64_t x = e.x0; x < e.x1; x++)                            \
                sum += ssc_mix_element(row_pos + (uint64_t)x, BITS_##K(T, in[x])); \
        }                                                                    \
        ssc_checksum_add(sum * ssc_checksum_key(c->id, c->iteration));       \
    }
SSC_TYPES(DEF_SINK)
DISPATCH(func_sink, sink, c->in[0].type)

/* ---- element-wise -------------------------------------------------- */

/* One input, one output, out[x] = EXPR of `a`. */
#define DEF_UNARY_T(name, S, T, W, EXPR)                                     \
    static void name##_##S(const ssc_call *c)                                \
    {                                                                        \
        const ssc_port *ip = &c->in[0], *op = &c->out[0];                    \
        span e = elements(&c->region, op);                                   \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            const T *restrict in = ROW(const T, ip, y);                      \
            T *restrict out = ROW(T, op, y);                                 \
            for (int64_t x = e.x0; x < e.x1; x++) {                          \
                T a = in[x];                                                 \
                out[x] = EXPR;                                               \
            }                                                                \
        }                                                                    \
    }

/* Two inputs, one output, out[x] = EXPR of `a` and `b`. */
#define DEF_BINARY_T(name, S, T, W, EXPR)                                    \
    static void name##_##S(const ssc_call *c)                                \
    {                                                                        \
        const ssc_port *p0 = &c->in[0], *p1 = &c->in[1], *op = &c->out[0];   \
        span e = elements(&c->region, op);                                   \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            const T *restrict in0 = ROW(const T, p0, y);                     \
            const T *restrict in1 = ROW(const T, p1, y);                     \
            T *restrict out = ROW(T, op, y);                                 \
            for (int64_t x = e.x0; x < e.x1; x++) {                          \
                T a = in0[x], b = in1[x];                                    \
                out[x] = EXPR;                                               \
            }                                                                \
        }                                                                    \
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
    static void dup_##S(const ssc_call *c)                                   \
    {                                                                        \
        const ssc_port *ip = &c->in[0], *o0 = &c->out[0], *o1 = &c->out[1];  \
        span e = elements(&c->region, o0);                                   \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            const T *restrict in = ROW(const T, ip, y);                      \
            T *restrict out0 = ROW(T, o0, y);                                \
            T *restrict out1 = ROW(T, o1, y);                                \
            for (int64_t x = e.x0; x < e.x1; x++)                            \
                out0[x] = out1[x] = in[x];                                   \
        }                                                                    \
    }
SSC_TYPES(DEF_DUP)
DISPATCH(func_dup, dup, c->out[0].type)

/* ---- convolution --------------------------------------------------- */

/* Mean over the input window (a box filter: every weight 1/(wx*wy)),
 * coordinates clamped to the grid. An output row is done in chunks of
 * CONV_CHUNK accumulators; for each window offset the chunk is one
 * contiguous, vectorisable loop unless it touches a border. The sum order
 * per element is fixed (dy, then dx), so every split gives the same bits. */
#define CONV_CHUNK 256
#define DEF_CONV(S, T, W, E, K, LO, HI)                                      \
    static void conv_##S(const ssc_call *c)                                  \
    {                                                                        \
        const ssc_port *ip = &c->in[0], *op = &c->out[0];                    \
        int64_t bx = (ip->win_x - 1) / 2, ax = ip->win_x - 1 - bx;           \
        int64_t by = (ip->win_y - 1) / 2, ay = ip->win_y - 1 - by;           \
        W count = (W)ip->win_x * (W)ip->win_y;                               \
        span e = elements(&c->region, op);                                   \
        W acc[CONV_CHUNK];                                                   \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            T *restrict out = ROW(T, op, y);                                 \
            for (int64_t cx = e.x0; cx < e.x1; cx += CONV_CHUNK) {           \
                int64_t n = e.x1 - cx < CONV_CHUNK ? e.x1 - cx : CONV_CHUNK; \
                for (int64_t k = 0; k < n; k++)                              \
                    acc[k] = 0;                                              \
                for (int64_t dy = -by; dy <= ay; dy++) {                     \
                    const T *row = ROW(const T, ip, clamp64(y + dy, 0, ip->height - 1)); \
                    for (int64_t dx = -bx; dx <= ax; dx++) {                 \
                        if (cx + dx >= 0 && cx + n - 1 + dx < ip->width) {   \
                            const T *restrict r = row + cx + dx;             \
                            for (int64_t k = 0; k < n; k++)                  \
                                acc[k] += r[k];                              \
                        } else {                                             \
                            for (int64_t k = 0; k < n; k++)                  \
                                acc[k] += row[clamp64(cx + k + dx, 0, ip->width - 1)]; \
                        }                                                    \
                    }                                                        \
                }                                                            \
                for (int64_t k = 0; k < n; k++)                              \
                    out[cx + k] = sat_##S(acc[k] / count);                   \
            }                                                                \
        }                                                                    \
    }
SSC_TYPES(DEF_CONV)
DISPATCH(func_conv, conv, c->out[0].type)

/* ---- scaling ------------------------------------------------------- */

/* Output element (x, y) = mean of input elements (2x..2x+1, 2y..2y+1). */
#define DEF_DOWN(S, T, W, E, K, LO, HI)                                      \
    static void down_##S(const ssc_call *c)                                  \
    {                                                                        \
        const ssc_port *ip = &c->in[0], *op = &c->out[0];                    \
        span e = elements(&c->region, op);                                   \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            const T *restrict r0 = ROW(const T, ip, 2 * y);                  \
            const T *restrict r1 = ROW(const T, ip, 2 * y + 1);              \
            T *restrict out = ROW(T, op, y);                                 \
            for (int64_t x = e.x0; x < e.x1; x++)                            \
                out[x] = sat_##S(((W)r0[2 * x] + (W)r0[2 * x + 1] +          \
                                  (W)r1[2 * x] + (W)r1[2 * x + 1]) / 4);     \
        }                                                                    \
    }
SSC_TYPES(DEF_DOWN)
DISPATCH(func_down, down, c->out[0].type)

/* Output element (x, y) = input element (x/2, y/2). */
#define DEF_UP(S, T, W, E, K, LO, HI)                                        \
    static void up_##S(const ssc_call *c)                                    \
    {                                                                        \
        const ssc_port *ip = &c->in[0], *op = &c->out[0];                    \
        span e = elements(&c->region, op);                                   \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            const T *restrict in = ROW(const T, ip, y / 2);                  \
            T *restrict out = ROW(T, op, y);                                 \
            for (int64_t x = e.x0; x < e.x1; x++)                            \
                out[x] = in[x / 2];                                          \
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
