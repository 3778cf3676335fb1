/* rows.c — user kernels that stream (`ssc build --kernels examples/kernels/rows.c`).
 *
 * rows_source and rows_sink are a float source and sink of one's own that
 * address every row through SSC_ROW, and say so with `ROWS` where the
 * description binds them (examples/streaming_kernels.ssc): under -ts fused
 * their buffers are folded into rings of a few rows, like a built-in's.
 * They compute what func_source and func_sink compute on float, so the
 * chain's checksum equals the same chain's with the built-ins.
 *
 * rows_source: element (x, y) of iteration i is ((7x + 13y + 31i) mod 251
 * - 125) / 8; rows_sink adds mix(position, bits) of its region, times the
 * key of (function, iteration), to the checksum (runtime-c/README.md). */
#include "ssc_kernel.h"
#include <string.h>

#define PERIOD 251

void rows_source(const ssc_call *c)
{
    const ssc_port *op = &c->out[0];
    const int64_t x0 = c->region.x0 * op->mul_x, x1 = c->region.x1 * op->mul_x;
    const int64_t y0 = c->region.y0 * op->mul_y, y1 = c->region.y1 * op->mul_y;
    const int64_t n = x1 - x0, m = n < PERIOD ? n : PERIOD;
    for (int64_t y = y0; y < y1; y++) {
        float *restrict out = SSC_ROW(float, op, y) + x0;
        uint32_t p0 = (uint32_t)(((uint64_t)x0 * 7 + (uint64_t)y * 13 + c->iteration * 31) % PERIOD);
        for (int64_t j = 0; j < m; j++)
            out[j] = (float)(((double)((p0 + 7u * (uint32_t)j) % PERIOD) - 125.0) / 8.0);
        /* The pattern repeats every PERIOD elements along a row. */
        for (int64_t j = m; j < n; j += PERIOD)
            memcpy(out + j, out, sizeof(float) * (size_t)(n - j < PERIOD ? n - j : PERIOD));
    }
}

void rows_sink(const ssc_call *c)
{
    const ssc_port *ip = &c->in[0];
    const int64_t x0 = c->region.x0 * ip->mul_x, x1 = c->region.x1 * ip->mul_x;
    const int64_t y0 = c->region.y0 * ip->mul_y, y1 = c->region.y1 * ip->mul_y;
    uint64_t sum = 0;
    for (int64_t y = y0; y < y1; y++) {
        const float *restrict in = SSC_ROW(const float, ip, y);
        uint64_t row = (uint64_t)y * (uint64_t)ip->width;
        for (int64_t x = x0; x < x1; x++) {
            uint32_t bits;
            memcpy(&bits, &in[x], sizeof bits);
            sum += ssc_mix_element(row + (uint64_t)x, bits);
        }
    }
    ssc_checksum_add(sum * ssc_checksum_key(c->id, c->iteration));
}
