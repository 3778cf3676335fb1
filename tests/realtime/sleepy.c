/* sleepy.c — func_sleepy for tests/realtime/sleepy.ssc: copies its input,
 * and its sub-box with the top row sleeps in frames 3, 7, 11, 13 and 17 for
 * 250, 220, 190, 160 and 130 ms, so a deadline of 100 ms is missed exactly
 * there, slowest first (the other sub-boxes run on). */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "ssc_kernel.h"

void func_sleepy(const ssc_call *call)
{
    static const struct { uint64_t frame; long ms; } naps[] = {
        { 3, 250 }, { 7, 220 }, { 11, 190 }, { 13, 160 }, { 17, 130 } };
    for (size_t i = 0; i < sizeof naps / sizeof naps[0]; i++)
        if (call->region.y0 == 0 && call->iteration == naps[i].frame) {
            struct timespec t = { 0, naps[i].ms * 1000000L };
            while (nanosleep(&t, &t) != 0)
                ;
        }
    const ssc_port *in = &call->in[0], *out = &call->out[0];
    for (int64_t y = call->region.y0; y < call->region.y1; y++)
        for (int64_t x = call->region.x0; x < call->region.x1; x++)
            ((unsigned char *)out->data)[y * out->stride + x] =
                ((const unsigned char *)in->data)[y * in->stride + x];
}
