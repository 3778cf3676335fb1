/* appendix_by_hand.c — the thesis' Appendix A example, written by hand in
 * the shape ssc's code generator emits:
 *
 *   f8 source [256,256] int -> f6 gain (2 row strips) -> f7 conv window [4,4]
 *   (2 row strips) -> f9 sink, on 2 pinned threads (ssc -cm 0,1 -ca), the three
 *   buffers in one shared arena (ssc -ms naive).
 *
 * Appendix A's runtime section:
 *   thread_execution thread0 [W s1, E f8.0, S s3, W s5, E f6.0, S s7,
 *                             W s8, E f7.0, S s10, W s12, E f9.0, S s13],
 *                    thread1 [W s3, W s10, E f6.1, S s1, S s8,
 *                             W s7, W s13, E f7.1, S s5, S s12];
 *   signal !s1, s3, !s5, s7, s8, !s10, s12, !s13;
 *
 * Build (every `shared` and `program` source of ../FILES):
 *   cc -std=c11 -O2 -pthread -I.. appendix_by_hand.c $(awk '!/^#/ && $2 != "header" { print "../" $1 }' ../FILES) */
#include "ssc_rt.h"
#include "ssc_kernels.h"
#include "appendix_kernels.h"

#ifndef APPENDIX_CORES          /* test.sh overrides it to test a bad core */
#define APPENDIX_CORES { 0, 1 }
#endif
#ifndef APPENDIX_HUGE           /* ssc -ht */
#define APPENDIX_HUGE 0
#endif
#ifndef APPENDIX_BARRIER        /* ssc -ab: a barrier at the end of every iteration */
#define APPENDIX_BARRIER 0
#endif

enum { W = 256, H = 256, N_THREADS = 2 };
#define BUF_BYTES ((size_t)W * H * sizeof(int))

/* ---- 1. initialisation: arenas, signals, boxes ------------------------ */

static ssc_arena shared;                         /* memory_mapping ... shared */
static ssc_signal s1, s3, s5, s7, s8, s10, s12, s13;
static ssc_barrier iteration_end;                /* -ab */

/* Ports: a port value per (function, port); buffers at fixed arena offsets. */
static ssc_port f8_out, f6_in, f6_out, f7_in, f7_out, f9_in;

enum { F8_0, F6_0, F6_1, F7_0, F7_1, F9_0, N_BOXES };
static ssc_box boxes[N_BOXES];

static void init_signals(void)
{
    ssc_signal_init(&s1, 1);     /* !s1: f8 may write buffer A once at first */
    ssc_signal_init(&s3, 0);
    ssc_signal_init(&s5, 1);
    ssc_signal_init(&s7, 0);
    ssc_signal_init(&s8, 0);
    ssc_signal_init(&s10, 1);
    ssc_signal_init(&s12, 0);
    ssc_signal_init(&s13, 1);
    ssc_barrier_init(&iteration_end, N_THREADS);
}

static void init_boxes(void)
{
    unsigned char *a = shared.base;
    void *buf_a = a, *buf_b = a + BUF_BYTES, *buf_c = a + 2 * BUF_BYTES;

    f8_out = ssc_port_make(buf_a, SSC_INT, W, H, 1, 1, 1, 1);
    f6_in  = ssc_port_make(buf_a, SSC_INT, W, H, 1, 1, 1, 1);
    f6_out = ssc_port_make(buf_b, SSC_INT, W, H, 1, 1, 1, 1);
    f7_in  = ssc_port_make(buf_b, SSC_INT, W, H, 1, 1, 4, 4);   /* window [4,4] */
    f7_out = ssc_port_make(buf_c, SSC_INT, W, H, 1, 1, 1, 1);
    f9_in  = ssc_port_make(buf_c, SSC_INT, W, H, 1, 1, 1, 1);

    const ssc_region all = { 0, 0, W, H }, top = { 0, 0, W, H / 2 }, bottom = { 0, H / 2, W, H };
    ssc_box_init(&boxes[F8_0], "f8.0", func_source, SSC_BOX_SOURCE, 8, all, W, H, NULL, 0, &f8_out, 1);
    ssc_box_init(&boxes[F6_0], "f6.0", appendix_gain, 0, 6, top, W, H, &f6_in, 1, &f6_out, 1);
    ssc_box_init(&boxes[F6_1], "f6.1", appendix_gain, 0, 6, bottom, W, H, &f6_in, 1, &f6_out, 1);
    ssc_box_init(&boxes[F7_0], "f7.0", appendix_conv, 0, 7, top, W, H, &f7_in, 1, &f7_out, 1);
    ssc_box_init(&boxes[F7_1], "f7.1", appendix_conv, 0, 7, bottom, W, H, &f7_in, 1, &f7_out, 1);
    ssc_box_init(&boxes[F9_0], "f9.0", func_sink, SSC_BOX_SINK, 9, all, W, H, &f9_in, 1, NULL, 0);
}

/* ---- 2. thread code: the thread_execution lists, looped ---------------- */

static void thread0(ssc_thread *t)
{
    while (ssc_iteration_begin(t)) {
        ssc_W(t, &s1);  ssc_E(t, &boxes[F8_0]); ssc_S(t, &s3);
        ssc_W(t, &s5);  ssc_E(t, &boxes[F6_0]); ssc_S(t, &s7);
        ssc_W(t, &s8);  ssc_E(t, &boxes[F7_0]); ssc_S(t, &s10);
        ssc_W(t, &s12); ssc_E(t, &boxes[F9_0]); ssc_S(t, &s13);
        if (APPENDIX_BARRIER)
            ssc_B(t, &iteration_end);
        ssc_iteration_end(t);
    }
}

static void thread1(ssc_thread *t)
{
    while (ssc_iteration_begin(t)) {
        ssc_W(t, &s3);  ssc_W(t, &s10); ssc_E(t, &boxes[F6_1]); ssc_S(t, &s1); ssc_S(t, &s8);
        ssc_W(t, &s7);  ssc_W(t, &s13); ssc_E(t, &boxes[F7_1]); ssc_S(t, &s5); ssc_S(t, &s12);
        if (APPENDIX_BARRIER)
            ssc_B(t, &iteration_end);
        ssc_iteration_end(t);
    }
}

int main(int argc, char **argv)
{
    ssc_options opt;
    ssc_options_init(&opt, "appendix_by_hand", 1000);   /* ssc -ic 1000 */
    opt.time_boxes = 1;                                 /* ssc -ta */
    opt.time_threads = 1;                               /* ssc -tt */
    opt.huge_pages = APPENDIX_HUGE;
    ssc_parse_args(&opt, argc, argv);

    static const int cores[N_THREADS] = APPENDIX_CORES;  /* ssc -cm 0,1 -ca */
    int status = ssc_init(&opt, N_THREADS, cores);
    if (status)
        return status;
    if ((status = ssc_arena_init(&shared, 3 * BUF_BYTES, opt.huge_pages)))
        return status;
    init_signals();
    init_boxes();

    /* ---- 3. start ------------------------------------------------------ */
    static const ssc_thread_fn threads[N_THREADS] = { thread0, thread1 };
    if ((status = ssc_run(N_THREADS, threads, boxes, N_BOXES, NULL)))
        return status;

    /* ---- 4. clean-up: report, dump, memory ----------------------------- */
    status = ssc_finish();
    ssc_arena_free(&shared);
    return status;
}
