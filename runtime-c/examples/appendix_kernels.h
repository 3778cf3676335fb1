/* appendix_kernels.h — Appendix A's two computing functions, gain and the
 * 4x4 convolution, written as kernels of one's own against the kernel ABI
 * (ssc_kernel.h): ssc generates its built-ins from their definitions into
 * each program (docs/language.md, "Built-in functions"), so a program
 * written by hand brings its own. Both compute what the built-ins
 * `func_gain` and `func_conv` compute on int (runtime-c/README.md,
 * "Built-ins"):
 *
 *   gain: out = int_sat(in * 3 / 2), the product in 64 bits, the division
 *         truncating toward zero;
 *   conv: out = the mean of the 4x4 window (1 before, 2 after the element
 *         in each direction, rows and columns clamped at the border), the
 *         sum in 64 bits, the division truncating toward zero. */
#ifndef APPENDIX_KERNELS_H
#define APPENDIX_KERNELS_H

#include "ssc_kernel.h"

#include <limits.h>

static inline int appendix_sat(int64_t v)
{
    return v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : (int)v;
}

static inline int64_t appendix_clamp(int64_t v, int64_t n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

static void appendix_gain(const ssc_call *c)
{
    const ssc_port *in = &c->in[0], *out = &c->out[0];
    for (int64_t y = c->region.y0; y < c->region.y1; y++) {
        const int *src = SSC_ROW(const int, in, y);
        int *dst = SSC_ROW(int, out, y);
        for (int64_t x = c->region.x0; x < c->region.x1; x++)
            dst[x] = appendix_sat((int64_t)src[x] * 3 / 2);
    }
}

static void appendix_conv(const ssc_call *c)
{
    const ssc_port *in = &c->in[0], *out = &c->out[0];
    for (int64_t y = c->region.y0; y < c->region.y1; y++) {
        int *dst = SSC_ROW(int, out, y);
        for (int64_t x = c->region.x0; x < c->region.x1; x++) {
            int64_t sum = 0;
            for (int64_t dy = -1; dy <= 2; dy++) {
                const int *row = SSC_ROW(const int, in, appendix_clamp(y + dy, in->height));
                for (int64_t dx = -1; dx <= 2; dx++)
                    sum += row[appendix_clamp(x + dx, in->width)];
            }
            dst[x] = appendix_sat(sum / 16);
        }
    }
}

#endif /* APPENDIX_KERNELS_H */
