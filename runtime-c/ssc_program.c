/* ssc_program.c — a generated program's main side: the command line
 * (ssc_parse_args, --help), ssc_init with the SIGINT/SIGTERM handlers,
 * ssc_run (start, watchdog, join), the report and the dumps
 * (ssc_finish). It prints and exits, as a Unix tool does; a library
 * never links it (ssc_rt.c is the core both share). */
#define _GNU_SOURCE
#include "ssc_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The printer of the core's messages: on stderr, after the program's name. */
static void print_message(const char *message)
{
    fprintf(stderr, "%s: %s\n", ssc__prog_name, message);
}


static void usage(FILE *f, const char *argv0, void (*usage_ports)(FILE *))
{
    fprintf(f,
        "usage: %s [options]\n"
        "  --iterations N     run N iterations\n"
        "  --forever          run until SIGINT/SIGTERM, then report as usual (exit 0)\n"
        "  --period-us P      release frame i at t0 + i*P us; latency counts from it\n"
        "  --overload queue|skip|latest  with --period-us, a frame due while the chain\n"
        "                     is busy: waits (queue, unbounded), is dropped (skip), or\n"
        "                     waits alone, replaced by any newer frame (latest)\n"
        "  --deadline-us D    count the frames whose latency exceeds D us (misses);\n"
        "                     report where each thread started late against the plan\n"
        "  --watchdog-ms W    when no sub-box finishes for W ms, report what each\n"
        "                     thread does and exit %d\n"
        "  --dump F           write the per-iteration timings to F\n"
        "  --dump-format csv|json|binary\n"
        "  --dump-iterations N  the dump holds the first N iterations (default %d)\n"
        "  --json             print the report as JSON\n"
        "  --spin-ns N        spin N ns before a wait sleeps (0: sleep at once)\n"
        "  --fifo PRIO        run the threads SCHED_FIFO at PRIO (1..99)\n"
        "  --sched-deadline   run each thread SCHED_DEADLINE (needs --period-us): its\n"
        "                     runtime is its predicted busy time x (1 + margin) plus\n"
        "                     its waits x the spin bound; threads are not pinned\n"
        "  --deadline-margin M  that margin (default 2: three times the prediction)\n"
        "  --sched-fallback fifo  a thread the kernel refuses runs SCHED_FIFO (--fifo\n"
        "                     PRIO, or 50) instead of ending the run\n"
        "  --max-lead N       no thread runs more than N iterations ahead of the slowest\n"
        "  --mlock            lock all memory (mlockall)\n"
        "  --input [NAME=]PATH  frames of input NAME: a PGM, PFM or raw file, or a\n"
        "                     folder of them (name order); read before the run\n"
        "  --output DIR       write every frame's outputs to DIR as SINK_NNNN.pgm|pfm|raw\n"
        "  --help             this text\n",
        argv0, SSC_EXIT_STUCK, SSC_DUMP_ITERATIONS);
    if (usage_ports)
        usage_ports(f);
    fprintf(f,
        "SIGINT/SIGTERM stop at an iteration boundary and print the report; when no\n"
        "sub-box finishes for 1 s after the stop, the program reports what is stuck\n"
        "and exits %d.\n"
        "Memory does not grow with the iterations: the latency statistics stream\n"
        "(percentiles within 0.78 %%), only a dump keeps per-iteration records.\n",
        SSC_EXIT_STUCK);
}

void ssc_options_free(ssc_options *o)
{
    free(o->inputs);
    o->inputs = NULL;
    o->n_inputs = 0;
}

/* Every exit of the argument parser frees what it allocated first, so a
 * program that exits here leaks nothing (LeakSanitizer keeps exit codes). */
static void bad_arg(ssc_options *o, const char *argv0, const char *msg, const char *arg)
{
    fprintf(stderr, "%s: %s: %s (try --help)\n", argv0, msg, arg);
    ssc_options_free(o);
    exit(2);
}

static uint64_t parse_u64(ssc_options *o, const char *argv0, const char *opt, const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-')
        bad_arg(o, argv0, opt, "expects a whole number");
    return v;
}

void ssc_parse_args(ssc_options *o, int argc, char **argv)
{
    const char *argv0 = argc > 0 ? argv[0] : "ssc-program";
    ssc__prog_name = argv0;
    ssc__set_printer(print_message);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, argv0, o->usage_ports);
            ssc_options_free(o);
            exit(0);
        } else if (!strcmp(a, "--json")) {
            o->json = 1, takes_value = 0;
        } else if (!strcmp(a, "--mlock")) {
            o->lock_memory = 1, takes_value = 0;
        } else if (!strcmp(a, "--forever")) {
            o->forever = 1, takes_value = 0;
        } else if (!strcmp(a, "--sched-deadline")) {
            o->sched_deadline = 1, takes_value = 0;
        } else if (!val) {
            bad_arg(o, argv0, "unknown option or missing value", a);
        } else if (!strcmp(a, "--input")) {
            if (!o->inputs && !(o->inputs = calloc((size_t)argc, sizeof *o->inputs))) {
                fprintf(stderr, "%s: out of memory\n", argv0);
                exit(3);
            }
            o->inputs[o->n_inputs++] = val;
        } else if (!strcmp(a, "--output")) {
            o->output_dir = val;
        } else if (!strcmp(a, "--iterations")) {
            o->iterations_given = 1;
            o->iterations = parse_u64(o, argv0, a, val);
            if (o->iterations == 0)
                bad_arg(o, argv0, a, "must be at least 1 (--forever runs until SIGINT/SIGTERM)");
        } else if (!strcmp(a, "--period-us")) {
            o->period_ns = parse_u64(o, argv0, a, val) * 1000;
        } else if (!strcmp(a, "--deadline-us")) {
            uint64_t d = parse_u64(o, argv0, a, val);
            if (d == 0 || d > UINT64_MAX / 1000)
                bad_arg(o, argv0, a, "must be at least 1 (microseconds)");
            o->deadline_ns = d * 1000;
        } else if (!strcmp(a, "--watchdog-ms")) {
            uint64_t w = parse_u64(o, argv0, a, val);
            if (w == 0 || w > 86400000)
                bad_arg(o, argv0, a, "must be 1 to 86400000 (milliseconds)");
            o->watchdog_ns = w * 1000000;
        } else if (!strcmp(a, "--overload")) {
            if (!strcmp(val, "queue")) o->overload = SSC_OVERLOAD_QUEUE;
            else if (!strcmp(val, "skip")) o->overload = SSC_OVERLOAD_SKIP;
            else if (!strcmp(val, "latest")) o->overload = SSC_OVERLOAD_LATEST;
            else bad_arg(o, argv0, "--overload expects queue, skip or latest", val);
        } else if (!strcmp(a, "--spin-ns")) {
            o->spin_ns = parse_u64(o, argv0, a, val);
        } else if (!strcmp(a, "--fifo")) {
            uint64_t p = parse_u64(o, argv0, a, val);
            if (p < 1 || p > 99)
                bad_arg(o, argv0, a, "priority must be 1..99");
            o->rt_priority = (int)p;
        } else if (!strcmp(a, "--deadline-margin")) {
            char *end;
            double m = strtod(val, &end);
            if (*end || !(m >= 0 && m <= 100))
                bad_arg(o, argv0, a, "must be a number from 0 to 100 (2: three times the prediction)");
            o->deadline_margin = m;
        } else if (!strcmp(a, "--sched-fallback")) {
            if (strcmp(val, "fifo"))
                bad_arg(o, argv0, "--sched-fallback expects fifo", val);
            o->sched_fallback = 1;
        } else if (!strcmp(a, "--max-lead")) {
            uint64_t n = parse_u64(o, argv0, a, val);
            if (n > 1000000000)
                bad_arg(o, argv0, a, "is too large");
            o->max_lead = (uint32_t)n;
        } else if (!strcmp(a, "--dump")) {
            o->dump_path = val;
        } else if (!strcmp(a, "--dump-iterations")) {
            o->dump_iterations = parse_u64(o, argv0, a, val);
            if (o->dump_iterations == 0)
                bad_arg(o, argv0, a, "must be at least 1");
        } else if (!strcmp(a, "--dump-format")) {
            if (!strcmp(val, "csv")) o->dump_format = SSC_DUMP_CSV;
            else if (!strcmp(val, "json")) o->dump_format = SSC_DUMP_JSON;
            else if (!strcmp(val, "binary")) o->dump_format = SSC_DUMP_BINARY;
            else bad_arg(o, argv0, "--dump-format expects csv, json or binary", val);
        } else {
            bad_arg(o, argv0, "unknown option", a);
        }
        i += takes_value;
    }
    if (o->overload != SSC_OVERLOAD_QUEUE && !o->period_ns)
        bad_arg(o, argv0, "--overload skip|latest drops frames that are due while the chain is "
                "busy", "give --period-us (without a period no frame is ever due early)");
    if (o->overload != SSC_OVERLOAD_QUEUE && o->output_dir)
        bad_arg(o, argv0, "--output writes every frame's outputs, and --overload skip|latest "
                "drops frames", "not yet implemented together");
    if (o->sched_deadline && !o->period_ns)
        bad_arg(o, argv0, "--sched-deadline reserves each thread's runtime in every period",
                "give --period-us");
    if (o->sched_deadline && o->rt_priority && !o->sched_fallback)
        bad_arg(o, argv0, "--sched-deadline and --fifo are two policies",
                "give one (or --sched-fallback fifo, with --fifo its priority)");
    if (o->sched_fallback && !o->sched_deadline)
        bad_arg(o, argv0, "--sched-fallback says what a refused --sched-deadline does",
                "give --sched-deadline");
    if (o->forever) {
        if (o->iterations_given)
            bad_arg(o, argv0, "--forever runs until SIGINT/SIGTERM", "leave out --iterations");
        o->iterations = UINT64_MAX;
    }
}


static void on_stop_signal(int sig)
{
    (void)sig;
    /* Lock-free atomic RMW: async-signal-safe. Freezes the last iteration. */
    atomic_fetch_or_explicit(&rt.frontier, STOP_BIT, memory_order_relaxed);
    atomic_store_explicit(&rt.signalled, 1, memory_order_relaxed);
    /* Wakes main (watch_threads), whichever thread the signal came to: a
     * futex syscall is async-signal-safe. */
    atomic_fetch_add_explicit(&rt.events, 1, memory_order_relaxed);
    syscall(SYS_futex, (void *)&rt.events, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Checks the cores, takes the options, and installs the stop handlers. */
static int init_program(const ssc_options *o, int n_threads, const int *cores, const int *mask,
                        int n_mask)
{
    ssc__set_printer(print_message);
    if (ssc__init_threads(o, n_threads, cores, mask, n_mask) != 0)
        return 3;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;   /* a second ^C kills a program that hangs */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return 0;
}

int ssc_init(const ssc_options *o, int n_threads, const int *cores)
{
    return init_program(o, n_threads, cores, NULL, 0);
}

int ssc_init_mask(const ssc_options *o, int n_threads, const int *mask, int n_mask)
{
    return init_program(o, n_threads, NULL, mask, n_mask);
}

static void exit_stuck(const char *why)
{
    fflush(stdout);
    fprintf(stderr, "%s: stuck: %s; exit %d\n", ssc__prog_name, why, SSC_EXIT_STUCK);
    for (int j = 0; j < rt.n_threads; j++) {
        char line[512];
        ssc__describe_thread(j, "iteration", line, sizeof line);
        fprintf(stderr, "  %s\n", line);
    }
    fflush(stderr);
    _exit(SSC_EXIT_STUCK);
}

/* Waits for the threads to finish. A watchdog (--watchdog-ms) ends a run
 * where no sub-box finishes for its time while no thread waits for a
 * release; a SIGINT/SIGTERM stop that sees no sub-box finish for
 * SSC_STOP_GRACE_NS ends the run the same way. Without a watchdog, main
 * sleeps until a thread exits or the stop signal comes (`events`): it
 * never wakes on its own while the chain runs. */
static void watch_threads(int n_threads)
{
    uint64_t patience = rt.opt.watchdog_ns;
    uint64_t slice = patience && patience / 8 < 20000000 ? patience / 8 : 20000000;
    if (slice < 1000000)
        slice = 1000000;
    uint64_t seen = ssc__progress_sum(), since = ssc_now_ns(), stop_at = 0;
    for (;;) {
        unsigned ev = atomic_load(&rt.events);
        if (atomic_load(&rt.exited) == (unsigned)n_threads)
            return;
        int polling = patience || atomic_load(&rt.signalled);
        ssc__futex_wait_ns(&rt.events, ev, polling ? slice : 0);
        if (!polling) {   /* woken by an exit or the signal: start counting */
            seen = ssc__progress_sum();
            since = ssc_now_ns();
            continue;
        }
        uint64_t now = ssc_now_ns(), p = ssc__progress_sum();
        int releasing = 0;
        for (int j = 0; j < n_threads; j++)
            releasing |= atomic_load_explicit(&rt.threads[j].wait_kind, memory_order_relaxed) ==
                         SSC_WAIT_RELEASE;
        if (p != seen || releasing) {
            seen = p;
            since = now;
        }
        if (!stop_at && atomic_load(&rt.signalled))
            stop_at = now;
        char why[160];
        if (patience && now - since >= patience) {
            snprintf(why, sizeof why, "no sub-box finished for %" PRIu64 " ms (--watchdog-ms)",
                     patience / 1000000);
            exit_stuck(why);
        }
        uint64_t quiet = since > stop_at ? since : stop_at;
        if (stop_at && now - quiet >= SSC_STOP_GRACE_NS) {
            snprintf(why, sizeof why, "stopped by a signal, but no sub-box finished for %llu ms "
                     "after it", SSC_STOP_GRACE_NS / 1000000);
            exit_stuck(why);
        }
    }
}


static void *alloc_times(uint64_t rows, uint64_t iterations)
{
    void *p = NULL;
    if (rows && iterations <= SIZE_MAX / 16 / rows)
        p = malloc((size_t)(rows * iterations * 16));
    if (!p) {
        fprintf(stderr, "%s: cannot allocate the dump's records of %" PRIu64 " iterations "
                "(--dump-iterations)\n", ssc__prog_name, iterations);
        exit(3);
    }
    memset(p, 0xff, (size_t)(rows * iterations * 16));   /* NOT_RECORDED */
    return p;
}


int ssc_run(int n_threads, const ssc_thread_fn *fns, ssc_box *boxes, int n_boxes, void *chain)
{
    uint64_t n_iter = rt.opt.iterations;
    rt.boxes = boxes;
    rt.n_boxes = n_boxes;
    for (int b = 0; b < n_boxes; b++)
        boxes[b].index = b;
    /* The latency of the iterations in flight, and per-thread streaming
     * statistics: memory that does not grow with the iterations. */
    rt.lat_slots = SSC_LATENCY_WINDOW;
    if (!rt.lead || rt.lead > SSC_LATENCY_WINDOW - 1)
        rt.lead = SSC_LATENCY_WINDOW - 1;
    rt.lat_begin = malloc(sizeof(atomic_uint_fast64_t) * 2 * SSC_LATENCY_WINDOW);
    rt.lat_pending = malloc(sizeof(atomic_uint) * SSC_LATENCY_WINDOW);
    rt.streams = aligned_alloc(64, sizeof(ssc_stream_stats) * (size_t)n_threads);
    rt.conducts = calloc((size_t)n_threads, sizeof *rt.conducts);
    int drops = rt.opt.overload != SSC_OVERLOAD_QUEUE;
    if (drops) {
        rt.frame_of = malloc(sizeof(atomic_uint_fast64_t) * SSC_LATENCY_WINDOW);
        rt.dropped_list = malloc(sizeof(uint64_t) * SSC_DROPPED_KEPT);
        if (!rt.frame_of || !rt.dropped_list) {
            fprintf(stderr, "%s: out of memory starting threads\n", ssc__prog_name);
            return 3;
        }
        for (uint64_t i = 0; i < SSC_LATENCY_WINDOW; i++)
            atomic_init(&rt.frame_of[i], FRAME_UNDECIDED);
    }
    atomic_store(&rt.next_frame, 0);
    atomic_store(&rt.void_from, UINT64_MAX);
    atomic_store(&rt.dropped, 0);
    atomic_store(&rt.exited, 0);
    atomic_store(&rt.events, 0);
    /* Per-iteration records only for a dump, and only its first iterations. */
    rt.trace_n = 0;
    if (rt.opt.dump_path)
        rt.trace_n = rt.opt.dump_iterations < n_iter ? rt.opt.dump_iterations : n_iter;
    if (rt.trace_n) {
        rt.trace_lat = alloc_times(1, rt.trace_n);
        if (rt.opt.time_boxes && n_boxes)
            rt.box_times = alloc_times((uint64_t)n_boxes, rt.trace_n);
        if (rt.opt.time_threads)
            rt.thread_times = alloc_times((uint64_t)n_threads, rt.trace_n);
        if (drops)
            rt.trace_frame = alloc_times(1, rt.trace_n);
    }

    rt.threads = aligned_alloc(64, sizeof(ssc_thread) * (size_t)n_threads);
    pthread_t *tids = malloc(sizeof *tids * (size_t)n_threads);
    struct ssc__start *args = malloc(sizeof *args * (size_t)n_threads);
    if (!rt.threads || !tids || !args || !rt.lat_begin || !rt.lat_pending || !rt.streams ||
        !rt.conducts) {
        fprintf(stderr, "%s: out of memory starting threads\n", ssc__prog_name);
        return 3;
    }
    rt.lat_end = rt.lat_begin + SSC_LATENCY_WINDOW;
    for (uint64_t i = 0; i < SSC_LATENCY_WINDOW; i++) {
        atomic_init(&rt.lat_begin[i], NOT_RECORDED);
        atomic_init(&rt.lat_end[i], NOT_RECORDED);
        atomic_init(&rt.lat_pending[i], (unsigned)n_threads);
    }
    for (int i = 0; i < n_threads; i++)
        ssc_stream_reset(&rt.streams[i]);
    rt.t0 = ssc_now_ns();
    rt.release0 = rt.t0 + (rt.opt.period_ns ? 1000000 : 0);  /* 1 ms to start threads */
    for (int i = 0; i < n_threads; i++) {   /* all of them before any runs */
        memset(&rt.threads[i], 0, sizeof rt.threads[i]);
        rt.threads[i].index = i;
        atomic_init(&rt.threads[i].done, 0);
        atomic_init(&rt.threads[i].watchers, 0);
        rt.threads[i].chain = chain;
        args[i].fn = fns[i];
        args[i].self = &rt.threads[i];
        args[i].instance = &rt;
    }
    for (int i = 0; i < n_threads; i++) {
        if (ssc__create_thread(&tids[i], i, &args[i]) != 0)
            exit(3);   /* the started threads would wait forever for this one */
    }
    if (rt.opt.sched_deadline && ssc__deadline_admit() != 0) {
        for (int i = 0; i < n_threads; i++)   /* stopped before iteration 0 */
            pthread_join(tids[i], NULL);
        free(tids);
        free(args);
        return 3;
    }
    watch_threads(n_threads);
    for (int i = 0; i < n_threads; i++)
        pthread_join(tids[i], NULL);

    /* Every iteration below the frozen frontier ran; those from void_from on
     * had no frame (--overload skip|latest ran out of frames). */
    uint64_t f = atomic_load(&rt.frontier);
    rt.stopped_by_signal = atomic_load(&rt.signalled);
    rt.completed = (f & STOP_BIT) && (f & ~STOP_BIT) < n_iter ? (f & ~STOP_BIT) : n_iter;
    uint64_t v = atomic_load(&rt.void_from);
    if (v < rt.completed)
        rt.completed = v;
    free(tids);
    free(args);
    return 0;
}


static const char *overload_name(int o)
{
    return o == SSC_OVERLOAD_SKIP ? "skip" : o == SSC_OVERLOAD_LATEST ? "latest" : "queue";
}

/* The JSON of the deadline, the slowest frames, each thread's lateness and
 * the overload (README, "Deadlines and overload"). */
/* --sched-deadline: each thread's reservation and its overruns. */
static void print_deadline_json(void)
{
    if (!rt.opt.sched_deadline) {
        printf(" \"sched_deadline\": null,\n");
        return;
    }
    printf(" \"sched_deadline\": [");
    for (int j = 0; j < rt.n_threads; j++) {
        uint64_t runtime, deadline, period;
        ssc__deadline_params(j, &runtime, &deadline, &period);
        const ssc_thread *t = &rt.threads[j];
        printf("%s{\"thread\": %d, \"policy\": \"%s\", \"runtime_us\": %.3f, \"deadline_us\": %.3f, "
               "\"period_us\": %.3f, \"overruns\": %u}", j ? ", " : "", j,
               t->dl_error ? "fifo" : "deadline", runtime / 1e3, deadline / 1e3, period / 1e3,
               atomic_load(&t->dl_overruns));
    }
    printf("],\n");
}

static void print_deadline_text(void)
{
    if (!rt.opt.sched_deadline)
        return;
    for (int j = 0; j < rt.n_threads; j++) {
        uint64_t runtime, deadline, period;
        ssc__deadline_params(j, &runtime, &deadline, &period);
        const ssc_thread *t = &rt.threads[j];
        if (t->dl_error)
            printf("thread %d: SCHED_FIFO %d (SCHED_DEADLINE refused: %s)\n", j,
                   rt.opt.rt_priority ? rt.opt.rt_priority : 50, ssc__deadline_why(t->dl_error));
        else
            printf("thread %d: SCHED_DEADLINE runtime %.3f us, deadline %.3f us, period %.3f us, "
                   "%u overruns\n", j, runtime / 1e3, deadline / 1e3, period / 1e3,
                   atomic_load(&t->dl_overruns));
    }
}

static void print_conduct_json(void)
{
    const ssc_conduct *c = &rt.conduct;
    if (rt.opt.deadline_ns)
        printf(" \"deadline_us\": %.3f, \"misses\": %" PRIu64 ",\n", rt.opt.deadline_ns / 1e3,
               c->misses);
    else
        printf(" \"deadline_us\": null, \"misses\": null,\n");
    printf(" \"worst_frames\": [");
    for (int w = 0; w < c->n_worst; w++)
        printf("%s{\"frame\": %" PRIu64 ", \"latency_us\": %.3f}", w ? ", " : "",
               c->worst[w].frame, c->worst[w].latency_ns / 1e3);
    printf("],\n \"late\": [");
    for (int j = 0, first = 1; rt.opt.deadline_ns && j < rt.n_threads; j++) {
        int b = atomic_load(&rt.threads[j].late_box) - 1;
        if (b < 0)
            continue;
        printf("%s{\"thread\": %d, \"subbox\": \"%s\", \"frame\": %" PRIu64 ", \"late_us\": %.3f}",
               first ? "" : ", ", j, rt.boxes[b].name, (uint64_t)atomic_load(&rt.threads[j].late_frame),
               (double)atomic_load(&rt.threads[j].late_ns) / 1e3);
        first = 0;
    }
    printf("],\n");
    print_deadline_json();
    if (!rt.opt.period_ns) {
        printf(" \"overload\": null,\n");
        return;
    }
    uint64_t dropped = atomic_load(&rt.dropped);
    printf(" \"overload\": {\"policy\": \"%s\", \"period_us\": %.3f, \"released\": %" PRIu64
           ", \"processed\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"dropped_frames\": [",
           overload_name(rt.opt.overload), rt.opt.period_ns / 1e3, rt.completed + dropped,
           rt.completed, dropped);
    for (uint64_t d = 0; d < dropped && d < SSC_DROPPED_KEPT; d++)
        printf("%s%" PRIu64, d ? ", " : "", rt.dropped_list[d]);
    printf("], \"dropped_frames_complete\": %s},\n", dropped <= SSC_DROPPED_KEPT ? "true" : "false");
}

static void print_conduct_text(void)
{
    const ssc_conduct *c = &rt.conduct;
    if (rt.opt.overload != SSC_OVERLOAD_QUEUE) {
        uint64_t dropped = atomic_load(&rt.dropped);
        printf("frames: %" PRIu64 " released every %.3f us (--overload %s): %" PRIu64
               " processed, %" PRIu64 " dropped\n", rt.completed + dropped,
               rt.opt.period_ns / 1e3, overload_name(rt.opt.overload), rt.completed, dropped);
    }
    if (!rt.opt.deadline_ns)
        return;
    printf("deadline %.3f us: %" PRIu64 " missed\n", rt.opt.deadline_ns / 1e3, c->misses);
    printf("slowest frames (frame: latency us):");
    for (int w = 0; w < c->n_worst; w++)
        printf("%s %" PRIu64 ": %.3f", w ? "," : "", c->worst[w].frame, c->worst[w].latency_ns / 1e3);
    printf("\n");
    for (int j = 0; j < rt.n_threads; j++) {
        int b = atomic_load(&rt.threads[j].late_box) - 1;
        if (b >= 0)
            printf("thread %d started latest against the plan: sub-box %s of frame %" PRIu64
                   ", %.3f us late\n", j, rt.boxes[b].name,
                   (uint64_t)atomic_load(&rt.threads[j].late_frame),
                   (double)atomic_load(&rt.threads[j].late_ns) / 1e3);
    }
}

static void print_report(const ssc_stats *s)
{
    const char *name = rt.opt.program ? rt.opt.program : "ssc-program";
    char requested[24] = "null";   /* --forever: no count was asked for */
    if (!rt.opt.forever)
        snprintf(requested, sizeof requested, "%" PRIu64, rt.opt.iterations);
    if (rt.opt.json) {
        printf("{\"program\": \"%s\", \"threads\": %d, \"iterations\": %" PRIu64
               ", \"requested\": %s, \"stopped_by_signal\": %s,\n"
               " \"latency_us\": {\"count\": %" PRIu64 ", \"mean\": %.3f, \"stddev\": %.3f, "
               "\"min\": %.3f, \"p50\": %.3f, \"p99\": %.3f, \"p99_9\": %.3f, \"max\": %.3f},\n",
               name, rt.n_threads, rt.completed, requested,
               rt.stopped_by_signal ? "true" : "false", s->count, s->mean / 1e3,
               s->stddev / 1e3, s->min / 1e3, s->p50 / 1e3, s->p99 / 1e3, s->p999 / 1e3,
               s->max / 1e3);
        print_conduct_json();
        printf(" \"checksum\": \"0x%016" PRIx64 "\"}\n", ssc_checksum());
        return;
    }
    printf("program: %s, %d threads\n", name, rt.n_threads);
    if (rt.opt.forever)
        printf("iterations: %" PRIu64 " (--forever, stopped by signal)\n", rt.completed);
    else
        printf("iterations: %" PRIu64 " of %" PRIu64 "%s\n", rt.completed, rt.opt.iterations,
               rt.stopped_by_signal ? " (stopped by signal)" : "");
    print_conduct_text();
    print_deadline_text();
    printf("latency (us): count %" PRIu64 "  mean %.3f  sd %.3f  min %.3f  p50 %.3f  "
           "p99 %.3f  p99.9 %.3f  max %.3f\n", s->count, s->mean / 1e3, s->stddev / 1e3,
           s->min / 1e3, s->p50 / 1e3, s->p99 / 1e3, s->p999 / 1e3, s->max / 1e3);
    printf("checksum: 0x%016llx\n", (unsigned long long)ssc_checksum());
}

/* Value of a timer as text: empty / null when not recorded. */
static void put_time(FILE *f, uint64_t v, const char *missing)
{
    if (v == NOT_RECORDED)
        fputs(missing, f);
    else
        fprintf(f, "%" PRIu64, v);
}

/* Iterations the dump holds: the completed ones among the first trace_n. */
static uint64_t dumped(void) { return rt.completed < rt.trace_n ? rt.completed : rt.trace_n; }

static void dump_csv(FILE *f)
{
    uint64_t n = dumped(), N = rt.trace_n;
    fprintf(f, "record,index,name,iteration,a_ns,b_ns\n");
    for (uint64_t i = 0; i < n; i++) {
        fprintf(f, "latency,0,,%" PRIu64 ",", i);
        put_time(f, rt.trace_lat[2 * i], "");
        fputc(',', f);
        put_time(f, rt.trace_lat[2 * i + 1], "");
        fputc('\n', f);
    }
    for (int b = 0; rt.box_times && b < rt.n_boxes; b++)
        for (uint64_t i = 0; i < n; i++) {
            const uint64_t *r = rt.box_times + 2 * ((uint64_t)b * N + i);
            fprintf(f, "box,%d,%s,%" PRIu64 ",", b, rt.boxes[b].name, i);
            put_time(f, r[0], "");
            fputc(',', f);
            put_time(f, r[1], "");
            fputc('\n', f);
        }
    for (int t = 0; rt.thread_times && t < rt.n_threads; t++)
        for (uint64_t i = 0; i < n; i++) {
            const uint64_t *r = rt.thread_times + 2 * ((uint64_t)t * N + i);
            fprintf(f, "thread,%d,,%" PRIu64 ",", t, i);
            put_time(f, r[0], "");
            fputc(',', f);
            put_time(f, r[1], "");
            fputc('\n', f);
        }
    for (uint64_t i = 0; rt.trace_frame && i < n; i++)   /* --overload skip|latest */
        fprintf(f, "frame,%" PRIu64 ",,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
                rt.trace_frame[2 * i], i, rt.trace_frame[2 * i + 1],
                release_of(rt.trace_frame[2 * i]) - rt.t0);
}

/* A JSON array of column `col` (0 or 1) of n pairs starting at rec. */
static void json_column(FILE *f, const uint64_t *rec, uint64_t n, int col)
{
    fputc('[', f);
    for (uint64_t i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        put_time(f, rec[2 * i + col], "null");
    }
    fputc(']', f);
}

static void dump_json(FILE *f)
{
    uint64_t n = dumped(), N = rt.trace_n;
    fprintf(f, "{\"iterations\": %" PRIu64 ", \"completed\": %" PRIu64 ", \"t0_ns\": %" PRIu64
            ",\n \"latency\": {\"begin_ns\": [", n, rt.completed, rt.t0);
    for (uint64_t i = 0; i < n; i++) {
        fputs(i ? "," : "", f);
        put_time(f, rt.trace_lat[2 * i], "null");
    }
    fputs("], \"end_ns\": [", f);
    for (uint64_t i = 0; i < n; i++) {
        fputs(i ? "," : "", f);
        put_time(f, rt.trace_lat[2 * i + 1], "null");
    }
    fputs("]},\n \"boxes\": [", f);
    for (int b = 0; rt.box_times && b < rt.n_boxes; b++) {
        const uint64_t *rec = rt.box_times + 2 * (uint64_t)b * N;
        fprintf(f, "%s\n  {\"index\": %d, \"name\": \"%s\", \"start_ns\": ", b ? "," : "", b,
                rt.boxes[b].name);
        json_column(f, rec, n, 0);
        fputs(", \"end_ns\": ", f);
        json_column(f, rec, n, 1);
        fputc('}', f);
    }
    fputs("],\n \"threads\": [", f);
    for (int t = 0; rt.thread_times && t < rt.n_threads; t++) {
        const uint64_t *rec = rt.thread_times + 2 * (uint64_t)t * N;
        fprintf(f, "%s\n  {\"index\": %d, \"busy_ns\": ", t ? "," : "", t);
        json_column(f, rec, n, 0);
        fputs(", \"wait_ns\": ", f);
        json_column(f, rec, n, 1);
        fputc('}', f);
    }
    fputc(']', f);
    if (rt.trace_frame) {   /* --overload skip|latest */
        fputs(",\n \"frames\": {\"frame\": ", f);
        json_column(f, rt.trace_frame, n, 0);
        fputs(", \"ready_ns\": ", f);
        json_column(f, rt.trace_frame, n, 1);
        fputc('}', f);
    }
    fputs("}\n", f);
}

static void put_u32(FILE *f, uint32_t v) { fwrite(&v, sizeof v, 1, f); }
static void put_u64(FILE *f, uint64_t v) { fwrite(&v, sizeof v, 1, f); }

/* Layout in README.md, "Dump formats". Native byte order (little-endian on
 * the targets ssc supports). */
static void dump_binary(FILE *f)
{
    uint64_t n = dumped(), N = rt.trace_n;
    uint32_t n_boxes = rt.box_times ? (uint32_t)rt.n_boxes : 0;
    uint32_t n_threads = rt.thread_times ? (uint32_t)rt.n_threads : 0;
    fwrite(rt.trace_frame ? "SSCDUMP2" : "SSCDUMP1", 1, 8, f);
    put_u64(f, n);
    put_u32(f, n_boxes);
    put_u32(f, n_threads);
    put_u64(f, rt.t0);
    if (n)
        fwrite(rt.trace_lat, 16, (size_t)n, f);
    for (uint32_t b = 0; b < n_boxes; b++) {
        uint32_t len = (uint32_t)strlen(rt.boxes[b].name);
        put_u32(f, len);
        fwrite(rt.boxes[b].name, 1, len, f);
        fwrite(rt.box_times + 2 * (uint64_t)b * N, 16, (size_t)n, f);
    }
    for (uint32_t t = 0; t < n_threads; t++)
        fwrite(rt.thread_times + 2 * (uint64_t)t * N, 16, (size_t)n, f);
    if (rt.trace_frame && n)   /* SSCDUMP2: N x (u64 frame, u64 ready) */
        fwrite(rt.trace_frame, 16, (size_t)n, f);
}

static int write_dump(void)
{
    FILE *f = fopen(rt.opt.dump_path, rt.opt.dump_format == SSC_DUMP_BINARY ? "wb" : "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write the dump %s: %s\n", ssc__prog_name, rt.opt.dump_path,
                strerror(errno));
        return 3;
    }
    switch (rt.opt.dump_format) {
    case SSC_DUMP_CSV: dump_csv(f); break;
    case SSC_DUMP_JSON: dump_json(f); break;
    case SSC_DUMP_BINARY: dump_binary(f); break;
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write the dump %s\n", ssc__prog_name, rt.opt.dump_path);
        return 3;
    }
    return 0;
}

int ssc_finish(void)
{
    /* Every iteration was summarised by the thread that finished it last. */
    ssc_stream_reset(&rt.stream);
    memset(&rt.conduct, 0, sizeof rt.conduct);
    for (int i = 0; rt.streams && i < rt.n_threads; i++) {
        ssc_stream_merge(&rt.stream, &rt.streams[i]);
        ssc_conduct_merge(&rt.conduct, &rt.conducts[i]);
    }
    ssc_stats s;
    ssc_stream_summary(&rt.stream, &s);
    print_report(&s);
    fflush(stdout);

    int status = 0;
    if (rt.opt.dump_path) {
        status = write_dump();
        if (!status && rt.completed > rt.trace_n)
            fprintf(stderr, "%s: the dump %s holds the first %" PRIu64 " of %" PRIu64
                    " iterations (--dump-iterations N for more)\n", ssc__prog_name,
                    rt.opt.dump_path, rt.trace_n, rt.completed);
    }
    free(rt.lat_begin);   /* lat_end lives in the same block */
    free(rt.lat_pending);
    free(rt.streams);
    free(rt.trace_lat);
    free(rt.box_times);
    free(rt.thread_times);
    free(rt.threads);
    free(rt.cpusets);
    free(rt.conducts);
    free(rt.frame_of);
    free(rt.dropped_list);
    free(rt.trace_frame);
    rt.conducts = NULL;
    rt.frame_of = NULL;
    rt.dropped_list = rt.trace_frame = NULL;
    rt.lat_begin = rt.lat_end = NULL;
    rt.lat_pending = NULL;
    rt.streams = NULL;
    rt.trace_lat = NULL;
    rt.trace_n = 0;
    rt.box_times = rt.thread_times = NULL;
    rt.threads = NULL;
    rt.cpusets = NULL;
    return status;
}

