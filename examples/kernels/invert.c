/* invert.c — a user kernel for ssc (`ssc build --kernels examples/kernels/invert.c`).
 *
 * func_invert: one IN port, one OUT port of the same type and mul. Integers
 * get their bitwise complement (~x: 255 - x for uchar, -x - 1 for signed
 * types, so never an overflow), float and double their negation. Written
 * against the kernel ABI of runtime-c/README.md: it computes exactly the
 * elements of its region (the sub-box), so any split gives the same image. */
#include "ssc_kernel.h"

#define INVERT_ROWS(T, EXPR)                                                    \
    do {                                                                        \
        const T *src = (const T *)in->data;                                     \
        T *dst = (T *)out->data;                                                \
        for (int64_t ey = y0; ey < y1; ey++)                                    \
            for (int64_t ex = x0; ex < x1; ex++) {                              \
                T x = src[ey * in->stride + ex];                                \
                dst[ey * out->stride + ex] = (T)(EXPR);                         \
            }                                                                   \
    } while (0)

void func_invert(const ssc_call *call)
{
    const ssc_port *in = &call->in[0], *out = &call->out[0];
    /* The region is in points; a point is a mul_x x mul_y block of elements. */
    const int64_t x0 = call->region.x0 * out->mul_x, x1 = call->region.x1 * out->mul_x;
    const int64_t y0 = call->region.y0 * out->mul_y, y1 = call->region.y1 * out->mul_y;
    switch (out->type) {
    case SSC_CHAR:   INVERT_ROWS(signed char, ~x); break;
    case SSC_UCHAR:  INVERT_ROWS(unsigned char, ~x); break;
    case SSC_SHORT:  INVERT_ROWS(short, ~x); break;
    case SSC_USHORT: INVERT_ROWS(unsigned short, ~x); break;
    case SSC_INT:    INVERT_ROWS(int, ~x); break;
    case SSC_UINT:   INVERT_ROWS(unsigned, ~x); break;
    case SSC_FLOAT:  INVERT_ROWS(float, -x); break;
    case SSC_DOUBLE: INVERT_ROWS(double, -x); break;
    }
}
