/* A source that says ROWS (tests/it/streaming_kernels.rs) but addresses its
 * rows as data + y * stride: correct only on an unfolded buffer. Under
 * `ssc build --check-kernels` its first write outside the guard's rings
 * faults and the program names it. */
#include "ssc_kernel.h"

void rows_source(const ssc_call *c)
{
    const ssc_port *op = &c->out[0];
    float *data = op->data;
    for (int64_t y = c->region.y0; y < c->region.y1; y++)
        for (int64_t x = c->region.x0; x < c->region.x1; x++)
            data[y * op->stride + x] = (float)((x * 7 + y * 13 + (int64_t)c->iteration * 31) % 251 - 125) / 8.0f;
}
