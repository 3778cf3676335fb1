/* hang.c — func_stall for tests/library/hang.ssc: copies its input, and
 * from iteration 5 on blocks forever (a kernel stuck on a device, say). */
#include <unistd.h>

#include "ssc_kernel.h"

void func_stall(const ssc_call *call)
{
    if (call->iteration >= 5)
        for (;;)
            pause();
    const ssc_port *in = &call->in[0], *out = &call->out[0];
    for (int64_t y = call->region.y0; y < call->region.y1; y++)
        for (int64_t x = call->region.x0; x < call->region.x1; x++)
            ((unsigned char *)out->data)[y * out->stride + x] =
                ((const unsigned char *)in->data)[y * in->stride + x];
}
