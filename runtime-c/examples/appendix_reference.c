/* appendix_reference.c — the oracle for appendix_by_hand.c: the same chain
 * (source -> gain -> conv [4,4] -> sink, 256x256 int) with no split, on one
 * unpinned thread, with one buffer per port allocated on its own
 * (ssc -dp none -ts fixed 1 -ms none -cm 0,1: the thread may run on core 0
 * or 1, not pinned to one). It must print the same checksum. */
#include "ssc_rt.h"
#include "ssc_kernels.h"
#include "appendix_kernels.h"

#ifndef REFERENCE_MASK          /* test.sh overrides it to test a bad core */
#define REFERENCE_MASK { 0, 1 }
#endif

enum { W = 256, H = 256 };
#define BUF_BYTES ((size_t)W * H * sizeof(int))

static ssc_arena buf_a, buf_b, buf_c;
static ssc_port f8_out, f6_in, f6_out, f7_in, f7_out, f9_in;
enum { F8, F6, F7, F9, N_BOXES };
static ssc_box boxes[N_BOXES];

static void thread0(ssc_thread *t)
{
    while (ssc_iteration_begin(t)) {
        ssc_E(t, &boxes[F8]);
        ssc_E(t, &boxes[F6]);
        ssc_E(t, &boxes[F7]);
        ssc_E(t, &boxes[F9]);
        ssc_iteration_end(t);
    }
}

int main(int argc, char **argv)
{
    ssc_options opt;
    ssc_options_init(&opt, "appendix_reference", 1000);
    ssc_parse_args(&opt, argc, argv);
    static const int mask[] = REFERENCE_MASK;
    int status = ssc_init_mask(&opt, 1, mask, (int)(sizeof mask / sizeof mask[0]));
    if (status)
        return status;
    if ((status = ssc_arena_init(&buf_a, BUF_BYTES, 0)) ||
        (status = ssc_arena_init(&buf_b, BUF_BYTES, 0)) ||
        (status = ssc_arena_init(&buf_c, BUF_BYTES, 0)))
        return status;

    f8_out = ssc_port_make(buf_a.base, SSC_INT, W, H, 1, 1, 1, 1);
    f6_in  = f8_out;
    f6_out = ssc_port_make(buf_b.base, SSC_INT, W, H, 1, 1, 1, 1);
    f7_in  = ssc_port_make(buf_b.base, SSC_INT, W, H, 1, 1, 4, 4);
    f7_out = ssc_port_make(buf_c.base, SSC_INT, W, H, 1, 1, 1, 1);
    f9_in  = f7_out;
    const ssc_region all = { 0, 0, W, H };
    ssc_box_init(&boxes[F8], "f8", func_source, SSC_BOX_SOURCE, 8, all, W, H, NULL, 0, &f8_out, 1);
    ssc_box_init(&boxes[F6], "f6", appendix_gain, 0, 6, all, W, H, &f6_in, 1, &f6_out, 1);
    ssc_box_init(&boxes[F7], "f7", appendix_conv, 0, 7, all, W, H, &f7_in, 1, &f7_out, 1);
    ssc_box_init(&boxes[F9], "f9", func_sink, SSC_BOX_SINK, 9, all, W, H, &f9_in, 1, NULL, 0);

    static const ssc_thread_fn threads[1] = { thread0 };
    if ((status = ssc_run(1, threads, boxes, N_BOXES, NULL)))
        return status;
    status = ssc_finish();
    ssc_arena_free(&buf_a);
    ssc_arena_free(&buf_b);
    ssc_arena_free(&buf_c);
    return status;
}
