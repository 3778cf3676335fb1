/* ssc_kernels_scale.c — the built-in scaling: down (the mean of 2x2) and
 * up (nearest).
 * Declared in ssc_kernels.h; the arithmetic in ssc_kernels_impl.h and
 * runtime-c/README.md, "Built-ins". */
#include "ssc_kernels_impl.h"

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

