/* ssc_kernels_point.c — the element-wise built-ins: gain, copy, plus, mul,
 * avg, dup.
 * Declared in ssc_kernels.h; the arithmetic in ssc_kernels_impl.h and
 * runtime-c/README.md, "Built-ins". */
#include "ssc_kernels_impl.h"

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

