/* ssc_rt.c — the runtime's core: boxes, the checksum, threads,
 * iterations and their operations (W, S, B, E), periods and overload, and
 * library mode. Read ssc_rt.h for the API and README.md for the design.
 *
 * The core never prints and never exits: a message goes to ssc__message,
 * which keeps it for ssc_lib_message and hands it to the printer a program
 * installed (ssc_program.c); a failure returns its code. */
#define _GNU_SOURCE
#include "ssc_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

_Thread_local char ssc__last_message[1024];

/* The program's own name (argv[0]) once the arguments are parsed: every
 * message of a program starts with it, as a Unix tool's do. */
const char *ssc__prog_name = "ssc-program";

const char *ssc_program_name(void)
{
    return ssc__prog_name;
}

static void (*printer)(const char *message);

void ssc__set_printer(void (*print)(const char *message))
{
    printer = print;
}

void ssc__message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lib_message, sizeof lib_message, fmt, ap);
    va_end(ap);
    size_t n = strlen(lib_message);
    if (n && lib_message[n - 1] == '\n')
        lib_message[n - 1] = 0;
    if (printer && !rt.lib_mode)
        printer(lib_message);
}

struct ssc_runtime ssc__program = {
    .fifo_warned = ATOMIC_FLAG_INIT, .lat_slots = 1, .void_from = UINT64_MAX, .spin_ns = 20000,
    .lib = { .lock = PTHREAD_MUTEX_INITIALIZER },
};
_Thread_local struct ssc_runtime *ssc__r = &ssc__program;

void ssc__runtime_reset(struct ssc_runtime *r)
{
    memset(r, 0, sizeof *r);
    atomic_flag_clear(&r->fifo_warned);
    r->lat_slots = 1;
    atomic_init(&r->void_from, UINT64_MAX);
    atomic_init(&r->spin_ns, 20000);
}

/* ------------------------------------------------------------------ */
/* Ports and boxes                                                     */
/* ------------------------------------------------------------------ */

size_t ssc_type_size(ssc_type t)
{
    static const size_t size[] = { 1, 1, 2, 2, 4, 4, 4, 8 };
    return size[t];
}

ssc_port ssc_port_make(void *data, ssc_type type, int64_t width, int64_t height,
                       int32_t mul_x, int32_t mul_y, int32_t win_x, int32_t win_y)
{
    ssc_port p = { data, width, height, width, mul_x, mul_y, win_x, win_y, type, 0, NULL, 0, 0, 0, 0, 0 };
    return p;
}

void ssc_box_init(ssc_box *b, const char *name, ssc_kernel kernel, unsigned flags,
                  uint32_t function_id, ssc_region region, int64_t width, int64_t height,
                  const ssc_port *in, int n_in, const ssc_port *out, int n_out)
{
    b->name = name;
    b->kernel = kernel;
    b->flags = flags;
    b->call.region = region;
    b->call.width = width;
    b->call.height = height;
    b->call.iteration = 0;
    b->call.id = function_id;
    b->call.in = in;
    b->call.n_in = n_in;
    b->call.out = out;
    b->call.n_out = n_out;
    for (int k = 0; k < n_in + n_out; k++) {   /* the ports are made before the boxes */
        const ssc_port *p = k < n_in ? &in[k] : &out[k - n_in];
        if (p->alt)
            b->flags |= SSC_BOX_COPIES;
        if (p->frame_of)
            b->flags |= k < n_in ? SSC_BOX_READS_FRAMES : SSC_BOX_WRITES_FRAMES;
    }
    b->index = -1;   /* set by ssc_run */
    b->plan_ns = 0;
}

void ssc_box_plans(ssc_box *boxes, const uint64_t *plan_ns, int n)
{
    for (int i = 0; i < n; i++)
        boxes[i].plan_ns = plan_ns[i];
}

/* ------------------------------------------------------------------ */
/* Checksum                                                            */
/* ------------------------------------------------------------------ */

/* Each instance's own (rt.checksum). */
void ssc_checksum_add(uint64_t v) { atomic_fetch_add_explicit(&rt.checksum, v, memory_order_relaxed); }
uint64_t ssc_checksum(void) { return atomic_load_explicit(&rt.checksum, memory_order_relaxed); }
void ssc_checksum_reset(void) { atomic_store_explicit(&rt.checksum, 0, memory_order_relaxed); }

static uint64_t splitmix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t ssc_checksum_key(uint32_t function_id, uint64_t iteration)
{
    return splitmix64(((uint64_t)function_id << 32) ^ splitmix64(iteration)) | 1u;
}


/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

void ssc_options_init(ssc_options *o, const char *program, uint64_t iterations)
{
    memset(o, 0, sizeof *o);
    o->iterations = iterations;
    o->spin_ns = 20000;
    o->deadline_margin = 2.0;
    o->dump_format = SSC_DUMP_CSV;
    o->dump_iterations = SSC_DUMP_ITERATIONS;
    o->program = program;
}

static void format_cpu_set(const cpu_set_t *set, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && used + 8 < n; c++)
        if (CPU_ISSET(c, set))
            used += (size_t)snprintf(buf + used, n - used, "%s%d", used ? "," : "", c);
}

/* 0 when every core of the list exists and this process may run on it;
 * else a message naming the core (and its thread when pinned) and 3. */
static int check_cores(const int *cores, int n, int pinned)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        ssc__message("cannot read the CPU affinity: %s\n", strerror(errno));
        return 3;
    }
    for (int i = 0; i < n; i++) {
        int c = cores[i];
        if (c >= 0 && c < online && c < CPU_SETSIZE && CPU_ISSET(c, &allowed))
            continue;
        char list[256], who[64] = "the core list names";
        format_cpu_set(&allowed, list, sizeof list);
        if (pinned)
            snprintf(who, sizeof who, "thread %d is pinned to", i);
        ssc__message("%s core %d, which does not exist here: %ld CPUs online, "
                "this process may use cores %s\n", who, c, online, list);
        return 3;
    }
    return 0;
}

int ssc__init_threads(const ssc_options *o, int n_threads, const int *cores, const int *mask,
                      int n_mask)
{
    if (cores ? check_cores(cores, n_threads, 1) != 0 : check_cores(mask, n_mask, 0) != 0)
        return 3;
    rt.opt = *o;
    rt.n_threads = n_threads;
    rt.cpusets = calloc((size_t)n_threads, sizeof *rt.cpusets);
    if (!rt.cpusets) {
        ssc__message("out of memory");
        return 3;
    }
    for (int i = 0; i < n_threads; i++) {
        CPU_ZERO(&rt.cpusets[i]);
        if (cores)
            CPU_SET(cores[i], &rt.cpusets[i]);
        for (int j = 0; !cores && j < n_mask; j++)
            CPU_SET(mask[j], &rt.cpusets[i]);
    }
    /* SCHED_DEADLINE refuses a thread whose cores are not its whole root
     * domain: under --sched-deadline the threads are not pinned. */
    rt.pinned = (cores != NULL || n_mask > 0) && !o->sched_deadline;
    ssc_set_spin_ns(o->spin_ns);
    rt.lead = o->max_lead;
    atomic_store(&rt.frontier, 0);
    if (o->lock_memory && mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        ssc__message("warning: mlockall refused (%s); memory may be paged", strerror(errno));
    return 0;
}

/* ------------------------------------------------------------------ */
/* Iterations and operations                                           */
/* ------------------------------------------------------------------ */

/* Says what thread t waits for (a stuck program's report, a library's
 * stall message): kind SSC_WAIT_*, on the signal or barrier. */
static inline void waiting(ssc_thread *t, int kind, const void *on)
{
    atomic_store_explicit(&t->wait_on, (uintptr_t)on, memory_order_relaxed);
    atomic_store_explicit(&t->wait_kind, kind, memory_order_relaxed);
}

/* Waits until every thread but `self` (NULL: every thread) has finished
 * `need` iterations; returns the least count it saw (UINT64_MAX when no
 * other thread exists). The counters are 32-bit (futex words); comparisons
 * are modulo 2^32. */
static uint64_t wait_others_done(const ssc_thread *self, uint64_t need)
{
    uint64_t least = UINT64_MAX;
    for (int j = 0; j < rt.n_threads; j++) {
        ssc_thread *o = &rt.threads[j];
        if (o == self)
            continue;
        for (;;) {
            unsigned d = atomic_load_explicit(&o->done, memory_order_acquire);
            if ((int32_t)(d - (unsigned)need) >= 0) {
                uint64_t seen = need + (uint32_t)(d - (unsigned)need);
                least = seen < least ? seen : least;
                break;
            }
            if (ssc__spin_while_equal(&o->done, d))
                continue;
            atomic_fetch_add(&o->watchers, 1);          /* Dekker, as in signals */
            if (atomic_load(&o->done) == d)
                ssc__futex_wait(&o->done, d);
            atomic_fetch_sub(&o->watchers, 1);
        }
    }
    return least;
}

/* -kd / --max-lead, and the latency window. Cannot deadlock: this thread
 * has begun iteration k, so all threads will finish every iteration < k
 * (see below), and need < k. The counts only grow, so what was seen last
 * time answers most calls without reading the other threads' lines. */
static void wait_for_slowest(ssc_thread *self, uint64_t need)
{
    if (need <= self->others_done)
        return;
    uint64_t start = rt.thread_times ? ssc_now_ns() : 0;
    waiting(self, SSC_WAIT_LEAD, NULL);
    self->others_done = wait_others_done(self, need);
    waiting(self, SSC_WAIT_NONE, NULL);
    if (rt.thread_times)
        self->wait += ssc_now_ns() - start;
}

/* Every thread runs iterations 0, 1, 2, ... and threads may be several
 * iterations apart (pipelining). A thread may begin iteration k when k is
 * below the frontier (someone began it already) or by raising the frontier
 * to k + 1. The stop signal freezes the frontier at F: then exactly the
 * iterations < F run, on every thread. Any k a thread has begun is < F, so
 * nobody abandons a begun iteration; a wait in iteration k needs only posts
 * of iterations <= k, so nobody waits for an iteration that will not run. */
/* Library mode: sleeps until frame k is submitted (1) or the library
 * stops (0). The bell is read before `submitted`, and a submission bumps
 * it after, so a submission between the two wakes the futex at once. */
static int wait_submitted(ssc_thread *t, uint64_t k)
{
    waiting(t, SSC_WAIT_FRAME, NULL);
    for (;;) {
        unsigned bell = atomic_load(&rt.bell);
        if (atomic_load_explicit(&rt.submitted, memory_order_acquire) > k)
            return 1;
        if (atomic_load(&rt.frontier) & STOP_BIT)
            return 0;
        if (ssc__spin_while_equal(&rt.bell, bell))
            continue;
        atomic_fetch_add(&rt.bell_sleepers, 1);
        if (atomic_load(&rt.bell) == bell)
            ssc__futex_wait(&rt.bell, bell);
        atomic_fetch_sub(&rt.bell_sleepers, 1);
    }
}

int ssc_iteration_begin(ssc_thread *t)
{
    uint64_t k = t->iter;
    if (k >= rt.opt.iterations)
        return 0;
    if (rt.lib_mode) {
        int go = wait_submitted(t, k);
        waiting(t, SSC_WAIT_NONE, NULL);
        if (!go)
            return 0;
    }
    /* Relaxed is enough: the agreement rests on the modification order of
     * this one word; no data is published through it. */
    uint64_t f = atomic_load_explicit(&rt.frontier, memory_order_relaxed);
    for (;;) {
        if (f & STOP_BIT) {
            if (k >= (f & ~STOP_BIT))
                return 0;
            break;
        }
        if (f > k)
            break;
        if (atomic_compare_exchange_weak_explicit(&rt.frontier, &f, k + 1,
                                                  memory_order_relaxed, memory_order_relaxed))
            break;
    }
    t->busy = t->wait = 0;
    t->sink_end = NOT_RECORDED;
    atomic_store_explicit(&t->at_iter, k, memory_order_relaxed);
    if (rt.lead && k > rt.lead)
        wait_for_slowest(t, k - rt.lead);
    return 1;
}

/* The frame iteration i runs: i itself, unless --overload skip|latest
 * decided another (its slot holds it until the iteration is finished). */
static uint64_t frame_index(uint64_t i)
{
    if (rt.lib_mode || rt.opt.overload == SSC_OVERLOAD_QUEUE || !rt.frame_of)
        return i;
    return atomic_load_explicit(&rt.frame_of[i % rt.lat_slots], memory_order_acquire);
}

static void atomic_min_u64(atomic_uint_fast64_t *a, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);
    while (v < cur && !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

static void atomic_max_u64(atomic_uint_fast64_t *a, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);
    while ((cur == NOT_RECORDED || v > cur) &&
           !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
}

/* A program: the last thread to finish iteration i (the slot's count,
 * acq_rel, orders every thread's source and sink times of i before this)
 * adds its latency to its own streaming statistics and misses, keeps it
 * for the dump when i < trace_n, and frees the slot for iteration
 * i + lat_slots, which no thread begins before this thread's `done` says i
 * is finished. */
static void finish_latency(ssc_thread *t, uint64_t i)
{
    uint64_t slot = i % rt.lat_slots;
    if (atomic_fetch_sub_explicit(&rt.lat_pending[slot], 1, memory_order_acq_rel) != 1)
        return;
    uint64_t b = atomic_load_explicit(&rt.lat_begin[slot], memory_order_relaxed);
    uint64_t e = atomic_load_explicit(&rt.lat_end[slot], memory_order_relaxed);
    if (b != NOT_RECORDED && e != NOT_RECORDED && e >= b) {
        ssc_stream_add(&rt.streams[t->index], e - b);
        ssc_conduct_add(&rt.conducts[t->index], frame_index(i), e - b, rt.opt.deadline_ns);
    }
    if (i < rt.trace_n) {
        rt.trace_lat[2 * i] = b;
        rt.trace_lat[2 * i + 1] = e;
    }
    atomic_store_explicit(&rt.lat_begin[slot], NOT_RECORDED, memory_order_relaxed);
    atomic_store_explicit(&rt.lat_end[slot], NOT_RECORDED, memory_order_relaxed);
    if (rt.frame_of)
        atomic_store_explicit(&rt.frame_of[slot], FRAME_UNDECIDED, memory_order_relaxed);
    atomic_store_explicit(&rt.lat_pending[slot], (unsigned)rt.n_threads, memory_order_relaxed);
}

void ssc_iteration_end(ssc_thread *t)
{
    if (rt.thread_times && t->iter < rt.trace_n) {
        uint64_t *rec = rt.thread_times + 2 * ((uint64_t)t->index * rt.trace_n + t->iter);
        rec[0] = t->busy;
        rec[1] = t->wait;
    }
    /* This thread's last sink end, into the iteration's latency once (a
     * sink's end into the shared slot every time made both threads write
     * one cache line for every sink sub-box); before `done` and the
     * pending count, which publish it. */
    if (t->sink_end != NOT_RECORDED)
        atomic_max_u64(&rt.lat_end[t->iter % rt.lat_slots], t->sink_end);
    if (!rt.lib_mode)
        finish_latency(t, t->iter);
    t->iter++;
    /* Watched by the lead (the latency window, --max-lead) and ssc_lib_wait;
     * seq_cst: the release of everything above, and Dekker with `watchers`. */
    atomic_store(&t->done, (unsigned)t->iter);
    if (atomic_load(&t->watchers))
        ssc__futex_wake(&t->done, INT_MAX);
}

void ssc_W(ssc_thread *t, ssc_signal *s)
{
    waiting(t, SSC_WAIT_SIGNAL, s);
    if (!rt.thread_times) {
        ssc_signal_wait(s);
    } else {
        uint64_t start = ssc_now_ns();
        ssc_signal_wait(s);
        t->wait += ssc_now_ns() - start;
    }
    waiting(t, SSC_WAIT_NONE, NULL);
}

void ssc_S(ssc_thread *t, ssc_signal *s)
{
    (void)t;
    ssc_signal_post(s);
}

void ssc_B(ssc_thread *t, ssc_barrier *b)
{
    waiting(t, SSC_WAIT_BARRIER, b);
    if (!rt.thread_times) {
        ssc_barrier_wait(b);
    } else {
        uint64_t start = ssc_now_ns();
        ssc_barrier_wait(b);
        t->wait += ssc_now_ns() - start;
    }
    waiting(t, SSC_WAIT_NONE, NULL);
}

/* --period-us: wait on the absolute clock until the release of frame f,
 * so periods do not drift by the time the loop itself takes. A sleeping
 * thread wakes late (the kernel's timer slack, 50 us for a normal thread,
 * which thread_main sets to 1 ns, and the wake-up of an idle CPU: a 2 ms
 * sleep on the development VM ended 95 us late (p50) when idle, 57 us when
 * busy), so it asks to be woken the spin bound plus its usual lateness
 * before the release and spins the rest, as a wait on a signal does (on
 * examples/xray.ssc the sources then started 0-10 us after their release,
 * mean, against 16-34 us with the spin bound alone). The lateness is
 * learnt per thread: an estimate that follows a later wake-up by a
 * quarter of the difference and an earlier one by 1/64 (a high percentile
 * of recent wake-ups, not their outliers), at most a quarter of the period
 * and WAKE_EARLY_MAX, so a preempted sleep costs spinning, never a frame. */
#define WAKE_EARLY_MAX 2000000u
static void wait_release(ssc_thread *t, uint64_t f)
{
    uint64_t at = release_of(f);
    uint64_t start = ssc_now_ns();
    if (start >= at)
        return;
    waiting(t, SSC_WAIT_RELEASE, NULL);
    uint64_t spin = ssc_get_spin_ns();   /* 0: never spin, nothing learnt */
    uint64_t ahead = spin ? spin + t->wake_early : 0;
    if (at - start > ahead) {
        uint64_t wake = at - ahead;
        struct timespec ts = { (time_t)(wake / 1000000000u), (long)(wake % 1000000000u) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        if (spin) {
            uint64_t woke = ssc_now_ns();
            uint64_t late = woke > wake ? woke - wake : 0, e = t->wake_early;
            e = late > e ? e + (late - e) / 4 : e - (e - late) / 64;
            uint64_t cap = rt.opt.period_ns / 4 < WAKE_EARLY_MAX ? rt.opt.period_ns / 4
                                                                 : WAKE_EARLY_MAX;
            t->wake_early = e < cap ? e : cap;
        }
    }
    while (ssc_now_ns() < at)
        ssc__cpu_relax();
    waiting(t, SSC_WAIT_NONE, NULL);
    t->wait += ssc_now_ns() - start;
}

/* Counts frames first..last (inclusive) as dropped. Only the decider of
 * an iteration calls it, and decisions are ordered (see decide_frame). */
static void drop_frames(uint64_t first, uint64_t last)
{
    uint64_t n = atomic_load_explicit(&rt.dropped, memory_order_relaxed);
    for (uint64_t f = first; f <= last; f++, n++)
        if (n < SSC_DROPPED_KEPT)
            rt.dropped_list[n] = f;
    atomic_store_explicit(&rt.dropped, n, memory_order_relaxed);
}

/* --overload skip|latest: the frame of iteration i, whose first source
 * sub-box was ready at `ready`. Frame j (the next one not yet taken or
 * dropped) released no earlier than `ready` found the chain free: it is
 * taken at its release. Otherwise the chain was still busy when frames j..m
 * came (m: the newest released by `ready`): skip dropped each of them on
 * arrival and takes m + 1 at its release; latest kept only the newest,
 * dropping j..m - 1, and takes m at once. FRAME_VOID when no frame is left.
 * Iterations decide in order: the decider of i + 1 runs a source sub-box of
 * i before it (every thread with a source runs one each iteration), so it
 * sees i's next_frame. */
static uint64_t decide_frame(uint64_t i, uint64_t ready)
{
    uint64_t n = rt.opt.iterations;   /* frames released; UINT64_MAX: --forever */
    uint64_t j = atomic_load_explicit(&rt.next_frame, memory_order_relaxed);
    if (atomic_load_explicit(&rt.void_from, memory_order_relaxed) <= i || j >= n)
        return FRAME_VOID;
    uint64_t f = j;
    if (ready > release_of(j)) {
        uint64_t m = (ready - rt.release0) / rt.opt.period_ns;
        if (m > n - 1)
            m = n - 1;
        if (rt.opt.overload == SSC_OVERLOAD_SKIP) {
            drop_frames(j, m);
            f = m + 1;
        } else {
            if (m > j)
                drop_frames(j, m - 1);
            f = m;
        }
    }
    if (f >= n)
        return FRAME_VOID;
    atomic_store_explicit(&rt.next_frame, f + 1, memory_order_relaxed);
    return f;
}

/* A source sub-box of iteration i: the frame it reads. The first of the
 * iteration's source sub-boxes decides (claims the slot, decides, publishes
 * with release); the others take its decision. A void iteration freezes the
 * frontier: no later iteration begins, and those begun run without a frame. */
static uint64_t source_frame(uint64_t i)
{
    if (rt.opt.overload == SSC_OVERLOAD_QUEUE)
        return i;
    atomic_uint_fast64_t *slot = &rt.frame_of[i % rt.lat_slots];
    uint64_t v = atomic_load_explicit(slot, memory_order_acquire);
    if (v == FRAME_UNDECIDED &&
        atomic_compare_exchange_strong_explicit(slot, &v, FRAME_CLAIMED, memory_order_acquire,
                                                memory_order_acquire)) {
        uint64_t ready = ssc_now_ns();
        uint64_t f = decide_frame(i, ready);
        if (f == FRAME_VOID) {
            uint64_t first = atomic_load_explicit(&rt.void_from, memory_order_relaxed);
            if (i < first)
                atomic_store_explicit(&rt.void_from, i, memory_order_relaxed);
            atomic_fetch_or_explicit(&rt.frontier, STOP_BIT, memory_order_relaxed);
        } else if (i < rt.trace_n && rt.trace_frame) {
            rt.trace_frame[2 * i] = f;
            rt.trace_frame[2 * i + 1] = ready - rt.t0;
        }
        atomic_store_explicit(slot, f, memory_order_release);
        return f;
    }
    while (v == FRAME_CLAIMED) {
        ssc__cpu_relax();
        v = atomic_load_explicit(slot, memory_order_acquire);
    }
    return v;
}

/* Iteration i has no frame (the run ended under --overload skip|latest):
 * its sub-boxes pass their signals on and run nothing. The decider stored
 * void_from before its release, which every later sub-box of i follows. */
static int is_void(uint64_t i)
{
    return !rt.lib_mode && atomic_load_explicit(&rt.void_from, memory_order_relaxed) <= i;
}


/* With a deadline: how late sub-box b of iteration i started against its
 * plan (start - the iteration's begin - plan); the thread keeps its worst. */
static void note_lateness(ssc_thread *t, const ssc_box *b, uint64_t i, uint64_t start)
{
    uint64_t begin = atomic_load_explicit(&rt.lat_begin[i % rt.lat_slots], memory_order_relaxed);
    if (begin == NOT_RECORDED || b->index < 0)
        return;
    int64_t late = (int64_t)(start - rt.t0) - (int64_t)begin - (int64_t)b->plan_ns;
    if (atomic_load_explicit(&t->late_box, memory_order_relaxed) &&
        late <= atomic_load_explicit(&t->late_ns, memory_order_relaxed))
        return;
    atomic_store_explicit(&t->late_ns, late, memory_order_relaxed);
    atomic_store_explicit(&t->late_frame, frame_index(i), memory_order_relaxed);
    atomic_store_explicit(&t->late_box, b->index + 1, memory_order_relaxed);
}

/* The call's inputs as the kernel reads them this iteration: a port that
 * reads a source's frame in place (frame_of; README.md, "Sources read in
 * place") becomes the whole frame itself (no ring), when the frame can be
 * read so; every other port as it is. Returns c->in when none changed. */
static int in_place(ssc_port *p, int n, uint64_t iteration)
{
    int changed = 0;
    for (int k = 0; k < n; k++) {
        ssc_frame f;
        if (!ssc_frame_in_place(&p[k], iteration, &f))
            continue;
        p[k].data = f.data;
        p[k].stride = f.stride / (int64_t)ssc_type_size(p[k].type);
        p[k].fold = 0;
        p[k].bands = NULL;
        p[k].n_bands = 0;
        p[k].ring0 = 0;
        changed = 1;
    }
    return changed;
}

static const ssc_port *inputs_in_place(const ssc_call *c, ssc_port *copy)
{
    for (int k = 0; k < c->n_in; k++)
        copy[k] = c->in[k];
    return in_place(copy, c->n_in, c->iteration) ? copy : c->in;
}

/* The ports of a call with double-buffered states (SSC_BOX_COPIES), as
 * iteration i addresses them: each such port at copy (i + phase) mod 2
 * (README.md, "Delays"); the others as they are. */
static void ports_of_iteration(ssc_call *c, uint64_t i, ssc_port *in, ssc_port *out)
{
    for (int k = 0; k < c->n_in; k++) {
        in[k] = c->in[k];
        if (in[k].alt && ((i + (uint64_t)in[k].phase) & 1))
            in[k].data = (char *)in[k].data + in[k].alt * (int64_t)ssc_type_size(in[k].type);
    }
    for (int k = 0; k < c->n_out; k++) {
        out[k] = c->out[k];
        if (out[k].alt && ((i + (uint64_t)out[k].phase) & 1))
            out[k].data = (char *)out[k].data + out[k].alt * (int64_t)ssc_type_size(out[k].type);
    }
    c->in = in;
    c->out = out;
}

/* The call's outputs as the kernel writes them this iteration: a port
 * whose buffer a sink's external frame stands for (frame_of; README.md,
 * "Sinks written in place") becomes that frame, when there is one. */
static const ssc_port *outputs_in_place(const ssc_call *c, ssc_port *copy)
{
    for (int k = 0; k < c->n_out; k++)
        copy[k] = c->out[k];
    in_place(copy, c->n_out, c->iteration);
    return copy;
}



void ssc_E(ssc_thread *t, ssc_box *b)
{
    uint64_t i = t->iter;
    int source = (b->flags & SSC_BOX_SOURCE) != 0;
    uint64_t frame = source && !rt.lib_mode ? source_frame(i) : frame_index(i);
    if (is_void(i)) {   /* no frame: nothing runs, the signals still flow */
        unsigned done_boxes = atomic_load_explicit(&t->progress, memory_order_relaxed);
        atomic_store_explicit(&t->progress, done_boxes + 1, memory_order_relaxed);
        return;
    }
    if (source && rt.opt.period_ns)
        wait_release(t, frame);
    if (source && rt.lib_mode)
        ssc__lib_begin_frame(i);
    /* The clock is read where something uses it: a source's start (the
     * frame's latency begins at the first), a sink's end (it ends at the
     * last), both for -ta/-tt, the start for a deadline. */
    int traced = rt.box_times || rt.thread_times;
    int sink = (b->flags & SSC_BOX_SINK) != 0;
    uint64_t start = source || traced || rt.opt.deadline_ns ? ssc_now_ns() : 0;
    if (source)   /* with a period, a frame's latency counts from its release */
        atomic_min_u64(&rt.lat_begin[i % rt.lat_slots],
                       (rt.opt.period_ns ? release_of(frame) : start) - rt.t0);
    if (rt.opt.deadline_ns)
        note_lateness(t, b, i, start);

    ssc_call call = b->call;
    call.iteration = frame;   /* under --overload skip|latest, the frame's index */
    atomic_store_explicit(&t->running, b->index + 1, memory_order_relaxed);
    int reads = (b->flags & SSC_BOX_READS_FRAMES) != 0;
    int writes = (b->flags & SSC_BOX_WRITES_FRAMES) != 0;
    if (b->flags & (SSC_BOX_COPIES | SSC_BOX_READS_FRAMES | SSC_BOX_WRITES_FRAMES)) {
        ssc_port in[call.n_in + 1], out[call.n_out + 1], frames[call.n_in + 1],
            written[call.n_out + 1];
        if (b->flags & SSC_BOX_COPIES)
            ports_of_iteration(&call, i, in, out);
        if (reads)    /* a state is never an external frame */
            call.in = inputs_in_place(&call, frames);
        if (writes)
            call.out = outputs_in_place(&call, written);
        b->kernel(&call);
    } else {
        b->kernel(&call);
    }
    atomic_store_explicit(&t->running, 0, memory_order_relaxed);
    unsigned done_boxes = atomic_load_explicit(&t->progress, memory_order_relaxed);
    atomic_store_explicit(&t->progress, done_boxes + 1, memory_order_relaxed);

    if (!sink && !traced)
        return;
    uint64_t end = ssc_now_ns();
    if (sink && (t->sink_end == NOT_RECORDED || end - rt.t0 > t->sink_end))
        t->sink_end = end - rt.t0;
    if (rt.box_times && b->index >= 0 && i < rt.trace_n) {   /* a box outside the table: untimed */
        uint64_t *rec = rt.box_times + 2 * ((uint64_t)b->index * rt.trace_n + i);
        rec[0] = start - rt.t0;
        rec[1] = end - rt.t0;
    }
    t->busy += end - start;
}


/* ------------------------------------------------------------------ */
/* Start: threads                                                      */
/* ------------------------------------------------------------------ */

/* The runtime's record of the thread running here (a fault's report). */
static _Thread_local ssc_thread *this_thread;

ssc_thread *ssc__this_thread(void)
{
    return this_thread;
}

static void *thread_main(void *p)
{
    struct ssc__start *a = p;
    ssc__r = a->instance;
    this_thread = a->self;
    if (rt.opt.sched_deadline)
        ssc__deadline_start(a->self);
    /* Sleeps (a release, a wait past the spin bound) end when asked, not up
     * to 50 us later: the timer slack of a thread that is not real-time. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    a->fn(a->self);
    waiting(a->self, SSC_WAIT_EXITED, NULL);
    atomic_fetch_add(&rt.exited, 1);
    atomic_fetch_add(&rt.events, 1);
    ssc__futex_wake(&rt.events, 1);
    return NULL;
}

/* Sub-boxes finished by every thread so far (mod 2^64 of 32-bit counts:
 * only whether it moved matters). */
uint64_t ssc__progress_sum(void)
{
    uint64_t sum = 0;
    for (int j = 0; j < rt.n_threads; j++)
        sum += atomic_load_explicit(&rt.threads[j].progress, memory_order_relaxed);
    return sum;
}

/* What thread j does, as a phrase ("runs sub-box st.0 of iteration 5
 * (function instance st, region x 0..64, y 0..32)", "waits for signal s3 in
 * iteration 5"); `unit` is "iteration" (a program) or "frame" (a library). */
int ssc__describe_thread(int j, const char *unit, char *buf, size_t n)
{
    ssc_thread *t = &rt.threads[j];
    int b = atomic_load_explicit(&t->running, memory_order_relaxed) - 1;
    int kind = atomic_load_explicit(&t->wait_kind, memory_order_relaxed);
    uintptr_t on = atomic_load_explicit(&t->wait_on, memory_order_relaxed);
    unsigned long long k = atomic_load_explicit(&t->at_iter, memory_order_relaxed);
    if (b >= 0 && b < rt.n_boxes) {
        const ssc_box *box = &rt.boxes[b];
        const char *dot = strrchr(box->name, '.');
        int len = dot ? (int)(dot - box->name) : (int)strlen(box->name);
        const ssc_region *r = &box->call.region;
        return snprintf(buf, n, "thread %d runs sub-box %s of %s %llu (function instance %.*s, "
                        "region x %" PRId64 "..%" PRId64 ", y %" PRId64 "..%" PRId64 ")", j,
                        box->name, unit, k, len, box->name, r->x0, r->x1, r->y0, r->y1);
    }
    const char *name = NULL;
    switch (kind) {
    case SSC_WAIT_SIGNAL:
        name = on ? ((const ssc_signal *)on)->name : NULL;
        return snprintf(buf, n, "thread %d waits for signal %s in %s %llu", j,
                        name ? name : "(unnamed)", unit, k);
    case SSC_WAIT_BARRIER:
        name = on ? ((const ssc_barrier *)on)->name : NULL;
        return snprintf(buf, n, "thread %d waits at barrier %s in %s %llu", j,
                        name ? name : "(unnamed)", unit, k);
    case SSC_WAIT_LEAD:
        return snprintf(buf, n, "thread %d waits for the other threads to catch up before %s "
                        "%llu (the lead bound)", j, unit, k);
    case SSC_WAIT_RELEASE:
        return snprintf(buf, n, "thread %d waits for the release of %s %llu", j, unit, k);
    case SSC_WAIT_FRAME:
        return snprintf(buf, n, "thread %d waits for frame %llu to be submitted", j, k + 1);
    case SSC_WAIT_EXITED:
        return snprintf(buf, n, "thread %d has finished", j);
    default:
        return snprintf(buf, n, "thread %d is between operations of %s %llu", j, unit, k);
    }
}

/* A stuck program: says what each thread does on stderr and exits
 * SSC_EXIT_STUCK (the stuck threads cannot be joined, so no report). */

/* Creates thread i with its affinity (set before it runs) and, if asked,
 * SCHED_FIFO; without the privilege for FIFO it warns once and goes on. */
int ssc__create_thread(pthread_t *tid, int i, struct ssc__start *arg)
{
    for (int fifo = rt.opt.rt_priority > 0;; fifo = 0) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        if (rt.pinned)
            pthread_attr_setaffinity_np(&attr, sizeof rt.cpusets[i], &rt.cpusets[i]);
        if (fifo) {
            struct sched_param sp = { .sched_priority = rt.opt.rt_priority };
            pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
            pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
            pthread_attr_setschedparam(&attr, &sp);
        }
        int err = pthread_create(tid, &attr, thread_main, arg);
        pthread_attr_destroy(&attr);
        if (err == EPERM && fifo) {
            if (!atomic_flag_test_and_set(&rt.fifo_warned))
                ssc__message("warning: SCHED_FIFO not permitted; "
                        "running with normal priority\n");
            continue;
        }
        if (err)
            ssc__message("cannot create thread %d: %s\n", i, strerror(err));
        return err;
    }
}


/* ------------------------------------------------------------------ */
/* External frames and library mode                                    */
/* ------------------------------------------------------------------ */

int ssc_external_frame(uint32_t function_id, uint64_t iteration, ssc_frame *out)
{
    for (int e = 0; e < rt.n_ext; e++)
        if (rt.ext[e].function_id == function_id) {
            ssc_frame *f = &rt.ext_frames[(iteration % rt.ext_slots) * (uint64_t)rt.n_ext + (uint64_t)e];
            /* Atomic: a stalled library detaches the callers' frames
             * (lib_detach_frames) while a stuck iteration may still run. */
            out->data = __atomic_load_n(&f->data, __ATOMIC_RELAXED);
            out->stride = __atomic_load_n(&f->stride, __ATOMIC_RELAXED);
            return out->data != NULL;
        }
    return 0;
}

int ssc_frame_in_place(const ssc_port *p, uint64_t iteration, ssc_frame *out)
{
    int64_t size = (int64_t)ssc_type_size(p->type);
    return p->frame_of && ssc_external_frame(p->frame_of - 1, iteration, out) &&
           out->stride % size == 0;
}

void ssc_program_externals(const ssc_external *ext, int n_ext, ssc_frame *frames, uint64_t slots)
{
    rt.ext = ext;
    rt.n_ext = n_ext;
    rt.ext_frames = frames;
    rt.ext_slots = slots ? slots : 1;
}

uint64_t ssc_iterations_completed(void) { return rt.completed; }
