/* ssc_lib.c — the runtime's library mode (ssc build -t library): frames
 * submitted by any number of calling threads, their slots and waits, the
 * overload policies of a library, close, and the statistics a caller
 * reads. Read ssc_rt.h ("Library mode") for the API and README.md,
 * "Library", for the design. Like the core, it never prints and never
 * exits: a failing call returns its code and ssc_lib_message says why. */
#define _GNU_SOURCE
#include "ssc_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *ssc_lib_message(void) { return lib_message; }

/* Library mode: frames from any number of calling threads.
 *
 * Frame k holds slot k % depth from its submission until a wait collects
 * it, so frame k + depth is submitted only after frame k was collected: the
 * slot's external frames and latency are never overwritten while a thread
 * of the chain or a caller still reads them. A slot's state says who
 * collects its frame: any wait (OPEN), only a wait for that frame (OWNED:
 * NAME_process submits so, so no other caller takes its outputs), or the
 * wait already in progress (WAITED). Frames finish in order (each thread
 * runs its iterations in order), so frame k is done when every thread's
 * `done` has passed k.
 *
 * Calls register themselves (`callers`) under the lock; close refuses new
 * frames, finishes the frames in flight, waits for the calls inside to
 * return (a wait for a frame in flight is still taken while it waits) and
 * only then, in the same hold of the lock, refuses every call and frees. A wait gives up when no sub-box of the
 * chain finishes for the watchdog's time (`progress`): the chain stalled,
 * every waiting call returns ETIMEDOUT, and from then on only close is
 * taken. */
enum { SLOT_FREE, SLOT_OPEN, SLOT_OWNED, SLOT_WAITED };

/* Close waits this long without a finished sub-box before it gives up on a
 * chain that has no watchdog of its own. */
#define CLOSE_PATIENCE_NS 1000000000ull

/* A new instance: its lock, and its condition variable, which waits on the
 * monotonic clock like everything. */
ssc_runtime *ssc_lib_create(void)
{
    struct ssc_runtime *r = aligned_alloc(64, (sizeof *r + 63) / 64 * 64);
    if (!r) {
        ssc__message("out of memory creating the chain's runtime");
        return NULL;
    }
    ssc__runtime_reset(r);
    r->lib_mode = 1;
    pthread_mutex_init(&r->lib.lock, NULL);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&r->lib.changed, &a);
    pthread_condattr_destroy(&a);
    return r;
}

void ssc_lib_destroy(ssc_runtime *r)
{
    if (!r || r->lib.abandoned)   /* stuck threads may still use it */
        return;
    pthread_mutex_destroy(&r->lib.lock);
    pthread_cond_destroy(&r->lib.changed);
    free(r);
}

/* Frees what ssc_lib_start allocated (after the threads are joined). */
static void lib_free(void)
{
    free(rt.lat_begin);
    free(rt.threads);
    free(rt.cpusets);
    free(rt.tids);
    free(rt.lib.args);
    free((void *)rt.ext);
    free(rt.ext_frames);
    free(rt.lib.slot_state);
    free(rt.lib.begun);
    rt.lib.begun = NULL;
    rt.lat_begin = rt.lat_end = NULL;
    rt.threads = NULL;
    rt.cpusets = NULL;
    rt.tids = NULL;
    rt.lib.args = NULL;
    rt.ext = NULL;
    rt.ext_frames = NULL;
    rt.n_ext = 0;
    rt.lat_slots = 1;
    rt.lib.slot_state = NULL;
}

/* Stops the threads (none may be inside a frame) and joins the first n. */
static void lib_join(int n)
{
    atomic_fetch_or(&rt.frontier, STOP_BIT);
    atomic_fetch_add(&rt.bell, 1);
    ssc__futex_wake(&rt.bell, INT_MAX);
    for (int i = 0; i < n; i++)
        pthread_join(rt.tids[i], NULL);
}

static int lib_init_in(const ssc_options *o, int n_threads, const int *cores)
{
    lib_message[0] = 0;
    if (rt.lib.abandoned) {
        ssc__message("%s", rt.lib.stall);
        return SSC_LIB_ERUNTIME;
    }
    ssc_options opt = *o;
    opt.iterations = UINT64_MAX;
    opt.period_ns = 0;
    opt.time_boxes = opt.time_threads = 0;
    opt.dump_path = NULL;
    opt.json = 0;
    return ssc__init_threads(&opt, n_threads, cores, NULL, 0) != 0 ? SSC_LIB_ERUNTIME : SSC_LIB_OK;
}

static int lib_alloc(int n_threads, int n_ext, unsigned depth)
{
    rt.lat_begin = malloc(sizeof(atomic_uint_fast64_t) * 2 * (size_t)depth);
    rt.ext = malloc(sizeof *rt.ext * (size_t)(n_ext ? n_ext : 1));
    rt.ext_frames = calloc((size_t)depth * (size_t)(n_ext ? n_ext : 1), sizeof *rt.ext_frames);
    rt.threads = aligned_alloc(64, sizeof(ssc_thread) * (size_t)n_threads);
    rt.tids = malloc(sizeof *rt.tids * (size_t)n_threads);
    rt.lib.args = malloc(sizeof *rt.lib.args * (size_t)n_threads);
    rt.lib.slot_state = calloc(depth, 1);   /* SLOT_FREE */
    rt.lib.begun = calloc(depth, sizeof *rt.lib.begun);
    if (!rt.lat_begin || !rt.ext || !rt.ext_frames || !rt.threads || !rt.tids || !rt.lib.args ||
        !rt.lib.slot_state || !rt.lib.begun) {
        ssc__message("out of memory starting the library");
        lib_free();
        return SSC_LIB_ERUNTIME;
    }
    return SSC_LIB_OK;
}

static int lib_start_in(const ssc_thread_fn *fns, ssc_box *boxes, int n_boxes,
                        const ssc_external *ext, int n_ext, unsigned depth, void *chain)
{
    int n_threads = rt.n_threads;
    if (depth == 0)
        depth = 1;
    rt.boxes = boxes;
    rt.n_boxes = n_boxes;
    for (int b = 0; b < n_boxes; b++)
        boxes[b].index = b;
    rt.lat_slots = depth;
    rt.lead = rt.opt.max_lead;
    rt.trace_n = 0;
    if (lib_alloc(n_threads, n_ext, depth))
        return SSC_LIB_ERUNTIME;
    rt.lat_end = rt.lat_begin + depth;
    for (unsigned i = 0; i < 2 * depth; i++)
        atomic_init(&rt.lat_begin[i], NOT_RECORDED);
    memcpy((void *)rt.ext, ext, sizeof *ext * (size_t)n_ext);
    rt.n_ext = n_ext;
    rt.ext_slots = depth;
    atomic_store(&rt.submitted, 0);
    atomic_store(&rt.bell, 0);
    atomic_store(&rt.bell_sleepers, 0);
    rt.lib.submitted = 0;
    rt.lib.callers = 0;
    atomic_store(&rt.lib.stalled, 0);
    ssc_stream_reset(&rt.stream);
    memset(&rt.conduct, 0, sizeof rt.conduct);
    ssc_checksum_reset();
    rt.thread_times = rt.box_times = NULL;
    rt.t0 = ssc_now_ns();
    for (int i = 0; i < n_threads; i++) {
        memset(&rt.threads[i], 0, sizeof rt.threads[i]);
        rt.threads[i].index = i;
        atomic_init(&rt.threads[i].done, 0);
        atomic_init(&rt.threads[i].watchers, 0);
        atomic_init(&rt.threads[i].progress, 0);
        atomic_init(&rt.threads[i].running, 0);
        rt.threads[i].chain = chain;
        rt.lib.args[i].fn = fns[i];
        rt.lib.args[i].self = &rt.threads[i];
        rt.lib.args[i].instance = &rt;
    }
    for (int i = 0; i < n_threads; i++)
        if (ssc__create_thread(&rt.tids[i], i, &rt.lib.args[i]) != 0) {
            char why[sizeof lib_message];
            memcpy(why, lib_message, sizeof why);
            lib_join(i);   /* no frame was submitted: they stop at once */
            lib_free();
            memcpy(lib_message, why, sizeof why);
            return SSC_LIB_ERUNTIME;
        }
    if (rt.opt.sched_deadline && ssc__deadline_admit() != 0) {
        char why[sizeof lib_message];
        memcpy(why, lib_message, sizeof why);
        lib_join(n_threads);   /* stopped before their first frame */
        lib_free();
        memcpy(lib_message, why, sizeof why);
        return SSC_LIB_ERUNTIME;
    }
    pthread_mutex_lock(&rt.lib.lock);
    rt.lib.running = 1;
    pthread_mutex_unlock(&rt.lib.lock);
    return SSC_LIB_OK;
}

/* With the lock held: registers a call, or says why it is refused. A
 * call that would submit a frame is refused once close began. */
static int lib_enter(int submits)
{
    if (!rt.lib.running) {
        ssc__message("the chain is not open");
        return SSC_LIB_EINVAL;
    }
    if (submits && rt.lib.closing) {
        ssc__message("the chain is being closed: no new frame is taken");
        return SSC_LIB_EINVAL;
    }
    if (atomic_load(&rt.lib.stalled)) {
        ssc__message("%s", rt.lib.stall);
        return SSC_LIB_ETIMEDOUT;
    }
    rt.lib.callers++;
    return SSC_LIB_OK;
}

/* With the lock held: the call returns (close may be waiting for it). */
static void lib_leave(void)
{
    rt.lib.callers--;
    pthread_cond_broadcast(&rt.lib.changed);
}

/* The callers' frames are no longer the chain's: an iteration still running
 * (behind a stuck kernel) sees none and touches no caller's memory. */
static void lib_detach_frames(void)
{
    uint64_t n = rt.ext_slots * (uint64_t)rt.n_ext;
    for (uint64_t i = 0; i < n; i++)
        __atomic_store_n(&rt.ext_frames[i].data, NULL, __ATOMIC_RELAXED);
}

/* Declares the chain stalled while frame k was awaited: names what each
 * thread was doing, detaches the frames, wakes every waiting call. */
static int lib_stall(uint64_t k, uint64_t patience)
{
    pthread_mutex_lock(&rt.lib.lock);
    if (!atomic_load(&rt.lib.stalled)) {
        int n = snprintf(rt.lib.stall, sizeof rt.lib.stall,
                         "the chain is stuck: no sub-box finished for %" PRIu64 " ms "
                         "while frame %" PRIu64 " was in flight;", patience / 1000000, k);
        for (int j = 0; j < rt.n_threads && n > 0 && (size_t)n + 2 < sizeof rt.lib.stall; j++) {
            rt.lib.stall[n++] = ' ';
            int room = (int)(sizeof rt.lib.stall - (size_t)n) - 1;
            int m = ssc__describe_thread(j, "frame", rt.lib.stall + n, sizeof rt.lib.stall - (size_t)n);
            n += m < 0 ? 0 : m > room ? room : m;
            if ((size_t)n + 1 < sizeof rt.lib.stall) {
                rt.lib.stall[n++] = ';';
                rt.lib.stall[n] = 0;
            }
        }
        size_t len = strlen(rt.lib.stall);
        if (len && rt.lib.stall[len - 1] == ';')
            rt.lib.stall[len - 1] = 0;
        lib_detach_frames();
        atomic_store(&rt.lib.stalled, 1);
        for (int j = 0; j < rt.n_threads; j++)
            ssc__futex_wake(&rt.threads[j].done, INT_MAX);
        pthread_cond_broadcast(&rt.lib.changed);
    }
    ssc__message("%s", rt.lib.stall);
    pthread_mutex_unlock(&rt.lib.lock);
    return SSC_LIB_ETIMEDOUT;
}

/* Waits until every thread has finished frame k, or gives up: when no
 * sub-box finished for `patience` ns while it waited (0: never), or when
 * another call found the chain stalled. OK or ETIMEDOUT. */
static int wait_frame_done(uint64_t k, uint64_t patience)
{
    uint64_t seen = patience ? ssc__progress_sum() : 0, since = patience ? ssc_now_ns() : 0;
    uint64_t slice = patience / 4 > 1000000 ? patience / 4 : 1000000;
    for (int j = 0; j < rt.n_threads; j++) {
        ssc_thread *o = &rt.threads[j];
        for (;;) {
            unsigned d = atomic_load_explicit(&o->done, memory_order_acquire);
            if ((int32_t)(d - (unsigned)(k + 1)) >= 0)
                break;
            if (ssc__spin_while_equal(&o->done, d))
                continue;
            if (atomic_load(&rt.lib.stalled)) {
                pthread_mutex_lock(&rt.lib.lock);
                ssc__message("%s", rt.lib.stall);
                pthread_mutex_unlock(&rt.lib.lock);
                return SSC_LIB_ETIMEDOUT;
            }
            atomic_fetch_add(&o->watchers, 1);           /* Dekker, as in signals */
            /* Bounded even without a watchdog: a stall found by close
             * sets `stalled` and wakes the word, but that wake may come
             * between the check and the sleep. */
            if (atomic_load(&o->done) == d && !atomic_load(&rt.lib.stalled))
                ssc__futex_wait_ns(&o->done, d, patience ? slice : 100000000);
            atomic_fetch_sub(&o->watchers, 1);
            if (!patience)
                continue;
            uint64_t p = ssc__progress_sum(), now = ssc_now_ns();
            if (p != seen) {
                seen = p;
                since = now;
            } else if (now - since >= patience && atomic_load(&o->done) == d) {
                return lib_stall(k, patience);
            }
        }
    }
    return SSC_LIB_OK;
}

/* With the lock held: wait for a free slot, or for `ns` at most. */
static void lib_cond_wait(uint64_t ns)
{
    if (!ns) {
        pthread_cond_wait(&rt.lib.changed, &rt.lib.lock);
        return;
    }
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    uint64_t t = (uint64_t)at.tv_nsec + ns % 1000000000u;
    at.tv_sec += (time_t)(ns / 1000000000u + t / 1000000000u);
    at.tv_nsec = (long)(t % 1000000000u);
    pthread_cond_timedwait(&rt.lib.changed, &rt.lib.lock, &at);
}

/* With the lock held and the call entered: waits until the next frame's
 * slot is free. It is freed by the wait that collects the frame depth
 * frames older; while that frame is not done and nothing progresses for
 * the watchdog's time, the chain stalled. */
static int wait_free_slot(unsigned how)
{
    uint64_t patience = rt.opt.watchdog_ns;
    uint64_t seen = ssc__progress_sum(), since = ssc_now_ns();
    for (;;) {
        uint64_t k = rt.lib.submitted;
        if (rt.lib.slot_state[k % rt.lat_slots] == SLOT_FREE)
            return SSC_LIB_OK;
        if (!(how & SSC_LIB_BLOCK)) {
            ssc__message("%" PRIu64 " frames are in flight, as many as the library holds "
                       "(depth): wait for one before submitting another", rt.lat_slots);
            return SSC_LIB_EBUSY;
        }
        if (rt.lib.closing) {
            ssc__message("the chain was closed while this call waited to submit a frame");
            return SSC_LIB_EINVAL;
        }
        if (atomic_load(&rt.lib.stalled)) {
            ssc__message("%s", rt.lib.stall);
            return SSC_LIB_ETIMEDOUT;
        }
        lib_cond_wait(patience ? (patience / 4 > 1000000 ? patience / 4 : 1000000) : 0);
        if (!patience)
            continue;
        uint64_t p = ssc__progress_sum(), now = ssc_now_ns(), oldest = rt.lib.submitted - rt.lat_slots;
        int oldest_done = 1;
        for (int j = 0; j < rt.n_threads; j++)
            if ((int32_t)(atomic_load(&rt.threads[j].done) - (unsigned)(oldest + 1)) < 0)
                oldest_done = 0;
        if (p != seen || oldest_done) {   /* a done frame not yet collected is no stall */
            seen = p;
            since = now;
        } else if (now - since >= patience) {
            pthread_mutex_unlock(&rt.lib.lock);
            lib_stall(oldest, patience);
            pthread_mutex_lock(&rt.lib.lock);
        }
    }
}

/* A source sub-box begins frame k: from now on the frame cannot be
 * replaced (--overload latest). Waits the moment a replacement takes. */
void ssc__lib_begin_frame(uint64_t k)
{
    atomic_uint *b = &rt.lib.begun[k % rt.lat_slots];
    for (;;) {
        unsigned v = 0;
        if (atomic_compare_exchange_strong(b, &v, 1) || v == 1)
            return;
        ssc__cpu_relax();   /* v == 2: a submit replaces the frame's pointers */
    }
}

/* With the lock held: counts a frame the overload policy dropped. */
static int lib_drop(const char *why)
{
    rt.conduct.dropped++;
    ssc__message("%s", why);
    return SSC_LIB_EBUSY;
}

/* With the lock held and the call entered, under --overload skip|latest:
 * SSC_LIB_OK when the frame may be submitted into a free slot; EBUSY (a
 * dropped frame) when skip finds the previous frame not yet begun or no
 * free slot; for latest, 1 + the number of the waiting frame it replaced. */
static int lib_overload(const ssc_frame *frames, unsigned how, uint64_t *frame)
{
    uint64_t k = rt.lib.submitted;
    int waiting = k && atomic_load(&rt.lib.begun[(k - 1) % rt.lat_slots]) == 0;
    if (rt.opt.overload == SSC_OVERLOAD_LATEST && waiting && !(how & SSC_LIB_OWN) &&
        rt.lib.slot_state[(k - 1) % rt.lat_slots] == SLOT_OPEN) {
        atomic_uint *b = &rt.lib.begun[(k - 1) % rt.lat_slots];
        unsigned v = 0;
        if (atomic_compare_exchange_strong(b, &v, 2)) {   /* no source begun it: replace */
            if (rt.n_ext)
                memcpy(&rt.ext_frames[((k - 1) % rt.lat_slots) * (uint64_t)rt.n_ext], frames,
                       sizeof *frames * (size_t)rt.n_ext);
            atomic_store(b, 0);
            rt.conduct.dropped++;
            *frame = k - 1;
            return 1;
        }
        waiting = 0;   /* begun meanwhile: submit it as a new frame */
    }
    if (waiting && rt.opt.overload == SSC_OVERLOAD_SKIP)
        return lib_drop("the chain has not begun the previous frame yet: the frame is "
                        "dropped (overload skip)");
    if (rt.lib.slot_state[k % rt.lat_slots] != SLOT_FREE)
        return lib_drop("every slot holds a frame (depth): the frame is dropped "
                        "(overload skip or latest)");
    return SSC_LIB_OK;
}

/* With the lock held and the call entered: submits frame *frame. */
static int submit(const ssc_frame *frames, unsigned how, uint64_t *frame)
{
    if (rt.opt.overload != SSC_OVERLOAD_QUEUE) {
        int o = lib_overload(frames, how, frame);
        if (o == 1)
            return SSC_LIB_OK;   /* replaced the waiting frame */
        if (o)
            return o;
        how &= ~(unsigned)SSC_LIB_BLOCK;   /* a free slot is there: never blocks */
    }
    int status = wait_free_slot(how);
    if (!status) {
        uint64_t k = rt.lib.submitted;
        uint64_t slot = k % rt.lat_slots;
        if (rt.n_ext)
            memcpy(&rt.ext_frames[slot * (uint64_t)rt.n_ext], frames,
                   sizeof *frames * (size_t)rt.n_ext);
        atomic_store_explicit(&rt.lat_begin[slot], NOT_RECORDED, memory_order_relaxed);
        atomic_store_explicit(&rt.lat_end[slot], NOT_RECORDED, memory_order_relaxed);
        atomic_store(&rt.lib.begun[slot], 0);
        rt.lib.slot_state[slot] = (how & SSC_LIB_OWN) ? SLOT_OWNED : SLOT_OPEN;
        rt.lib.submitted = k + 1;
        atomic_store_explicit(&rt.submitted, k + 1, memory_order_release);
        atomic_fetch_add(&rt.bell, 1);
        if (atomic_load(&rt.bell_sleepers))
            ssc__futex_wake(&rt.bell, INT_MAX);
        *frame = k;
    }
    return status;
}

static int lib_submit_in(const ssc_frame *frames, unsigned how, uint64_t *frame)
{
    pthread_mutex_lock(&rt.lib.lock);
    int status = lib_enter(1);
    uint64_t k;
    if (!status) {
        status = submit(frames, how, &k);
        if (!status && frame)
            *frame = k;
        lib_leave();
    }
    pthread_mutex_unlock(&rt.lib.lock);
    return status;
}

/* With the lock held, the call entered and frame k's slot marked WAITED
 * (it was `before`): waits for it without the lock, then collects it. */
static int collect(uint64_t k, unsigned char before, uint64_t *latency_ns)
{
    uint64_t slot = k % rt.lat_slots;
    pthread_mutex_unlock(&rt.lib.lock);
    int status = wait_frame_done(k, rt.opt.watchdog_ns);
    pthread_mutex_lock(&rt.lib.lock);
    if (status) {
        rt.lib.slot_state[slot] = before;   /* still in flight */
        return status;
    }
    uint64_t b = atomic_load(&rt.lat_begin[slot]), e = atomic_load(&rt.lat_end[slot]);
    uint64_t lat = b != NOT_RECORDED && e != NOT_RECORDED && e >= b ? e - b : 0;
    ssc_stream_add(&rt.stream, lat);
    ssc_conduct_add(&rt.conduct, k, lat, rt.opt.deadline_ns);
    rt.lib.slot_state[slot] = SLOT_FREE;
    if (latency_ns)
        *latency_ns = lat;
    return SSC_LIB_OK;
}

static int lib_wait_frame_in(uint64_t k, uint64_t *latency_ns)
{
    pthread_mutex_lock(&rt.lib.lock);
    int status = lib_enter(0);
    if (status) {
        pthread_mutex_unlock(&rt.lib.lock);
        return status;
    }
    unsigned char state = rt.lib.slot_state[k % rt.lat_slots];
    if (k >= rt.lib.submitted) {
        ssc__message("frame %" PRIu64 " was not submitted (%" PRIu64 " were)", k, rt.lib.submitted);
        status = SSC_LIB_EINVAL;
    } else if (k + rt.lat_slots < rt.lib.submitted || state == SLOT_FREE) {
        ssc__message("frame %" PRIu64 " was already waited for", k);
        status = SSC_LIB_EINVAL;
    } else if (state == SLOT_WAITED) {
        ssc__message("another call is waiting for frame %" PRIu64, k);
        status = SSC_LIB_EINVAL;
    } else {
        rt.lib.slot_state[k % rt.lat_slots] = SLOT_WAITED;
        status = collect(k, state, latency_ns);
    }
    lib_leave();
    pthread_mutex_unlock(&rt.lib.lock);
    return status;
}

static int lib_wait_any_in(uint64_t *frame, uint64_t *latency_ns)
{
    pthread_mutex_lock(&rt.lib.lock);
    int status = lib_enter(0);
    if (status) {
        pthread_mutex_unlock(&rt.lib.lock);
        return status;
    }
    uint64_t first = rt.lib.submitted > rt.lat_slots ? rt.lib.submitted - rt.lat_slots : 0, k;
    for (k = first; k < rt.lib.submitted; k++)
        if (rt.lib.slot_state[k % rt.lat_slots] == SLOT_OPEN)
            break;
    if (k == rt.lib.submitted) {
        ssc__message("no frame is in flight that another call does not wait for: "
                   "submit one before waiting");
        status = SSC_LIB_EINVAL;
    } else {
        rt.lib.slot_state[k % rt.lat_slots] = SLOT_WAITED;
        status = collect(k, SLOT_OPEN, latency_ns);
        if (!status && frame)
            *frame = k;
    }
    lib_leave();
    pthread_mutex_unlock(&rt.lib.lock);
    return status;
}

static int lib_process_in(const ssc_frame *frames, uint64_t *latency_ns)
{
    pthread_mutex_lock(&rt.lib.lock);
    int status = lib_enter(1);
    uint64_t k;
    if (!status) {   /* one call from submission to collection: close waits for it */
        status = submit(frames, SSC_LIB_BLOCK | SSC_LIB_OWN, &k);
        if (!status) {
            rt.lib.slot_state[k % rt.lat_slots] = SLOT_WAITED;
            status = collect(k, SLOT_OWNED, latency_ns);
        }
        lib_leave();
    }
    pthread_mutex_unlock(&rt.lib.lock);
    return status;
}

/* Close of a chain that does not finish its frames: the threads that stop
 * within a moment are joined, the others (in a stuck kernel, or waiting for
 * it) are left running with the runtime's memory, which is never freed. */
static void lib_abandon(void)
{
    atomic_fetch_or(&rt.frontier, STOP_BIT);
    atomic_fetch_add(&rt.bell, 1);
    ssc__futex_wake(&rt.bell, INT_MAX);
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);   /* pthread_timedjoin_np's clock */
    at.tv_nsec += 100000000;              /* 100 ms for all of them */
    if (at.tv_nsec >= 1000000000) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000;
    }
    for (int i = 0; i < rt.n_threads; i++)
        if (pthread_timedjoin_np(rt.tids[i], NULL, &at) != 0)
            pthread_detach(rt.tids[i]);
    rt.lib.abandoned = 1;
    size_t n = strlen(rt.lib.stall);
    snprintf(rt.lib.stall + n, sizeof rt.lib.stall - n,
             "; closed stuck, its threads were left holding this instance's memory");
}

static int lib_stop_in(void)
{
    if (rt.lib.abandoned) {   /* this instance's stuck threads hold it all */
        ssc__message("%s", rt.lib.stall);
        return SSC_LIB_ERUNTIME;
    }
    if (!rt.tids) {   /* never started, or a failed start */
        lib_free();
        return SSC_LIB_OK;
    }
    pthread_mutex_lock(&rt.lib.lock);
    rt.lib.closing = 1;
    pthread_cond_broadcast(&rt.lib.changed);   /* submits blocked for a slot */
    uint64_t n = rt.lib.submitted;
    pthread_mutex_unlock(&rt.lib.lock);
    uint64_t patience = rt.opt.watchdog_ns ? rt.opt.watchdog_ns : CLOSE_PATIENCE_NS;
    int status = n && !atomic_load(&rt.lib.stalled) ? wait_frame_done(n - 1, patience) : SSC_LIB_OK;
    if (atomic_load(&rt.lib.stalled))
        status = SSC_LIB_ETIMEDOUT;
    pthread_mutex_lock(&rt.lib.lock);
    while (rt.lib.callers)   /* their frames are done, or they saw the stall */
        pthread_cond_wait(&rt.lib.changed, &rt.lib.lock);
    rt.lib.running = 0;      /* in the same hold: no call enters from here on */
    rt.lib.closing = 0;
    pthread_mutex_unlock(&rt.lib.lock);
    if (status) {
        lib_abandon();
        ssc__message("%s", rt.lib.stall);
        return SSC_LIB_ERUNTIME;
    }
    lib_join(rt.n_threads);
    lib_free();
    return SSC_LIB_OK;
}

static int lib_conduct_in(ssc_conduct *out, ssc_lateness *late)
{
    pthread_mutex_lock(&rt.lib.lock);
    int status = rt.lib.running ? SSC_LIB_OK : SSC_LIB_EINVAL;
    if (status) {
        ssc__message("the chain is not open");
    } else {
        *out = rt.conduct;
        for (int j = 0; late && j < rt.n_threads; j++) {
            ssc_thread *t = &rt.threads[j];
            late[j].box = atomic_load_explicit(&t->late_box, memory_order_relaxed) - 1;
            late[j].frame = atomic_load_explicit(&t->late_frame, memory_order_relaxed);
            late[j].late_ns = atomic_load_explicit(&t->late_ns, memory_order_relaxed);
        }
    }
    pthread_mutex_unlock(&rt.lib.lock);
    return status;
}

const char *ssc_box_name(const ssc_runtime *r, int box)
{
    return box >= 0 && box < r->n_boxes ? r->boxes[box].name : "";
}

uint64_t ssc_lib_checksum(const ssc_runtime *r)
{
    return atomic_load_explicit(&r->checksum, memory_order_relaxed);
}

static int lib_stats_in(ssc_stats *out)
{
    pthread_mutex_lock(&rt.lib.lock);
    int status = rt.lib.running ? SSC_LIB_OK : SSC_LIB_EINVAL;
    if (status)
        ssc__message("the chain is not open");
    else
        ssc_stream_summary(&rt.stream, out);
    pthread_mutex_unlock(&rt.lib.lock);
    return status;
}

/* The entry points: each points the calling thread at its instance for
 * the call (ssc__enter), so that everything above works on that one. */
int ssc_lib_init(ssc_runtime *r, const ssc_options *o, int n_threads, const int *cores)
{
    struct ssc_runtime *before = ssc__enter(r);
    int status = lib_init_in(o, n_threads, cores);
    ssc__leave(before);
    return status;
}

int ssc_lib_start(ssc_runtime *r, const ssc_thread_fn *fns, ssc_box *boxes, int n_boxes,
                  const ssc_external *ext, int n_ext, unsigned depth, void *chain)
{
    struct ssc_runtime *before = ssc__enter(r);
    int status = lib_start_in(fns, boxes, n_boxes, ext, n_ext, depth, chain);
    ssc__leave(before);
    return status;
}

int ssc_lib_submit(ssc_runtime *r, const ssc_frame *frames, unsigned how, uint64_t *frame)
{
    struct ssc_runtime *before = ssc__enter(r);
    int status = lib_submit_in(frames, how, frame);
    ssc__leave(before);
    return status;
}

int ssc_lib_wait_frame(ssc_runtime *r, uint64_t k, uint64_t *latency_ns)
{
    struct ssc_runtime *before = ssc__enter(r);
    int status = lib_wait_frame_in(k, latency_ns);
    ssc__leave(before);
    return status;
}

int ssc_lib_wait_any(ssc_runtime *r, uint64_t *frame, uint64_t *latency_ns)
{
    struct ssc_runtime *before = ssc__enter(r);
    int status = lib_wait_any_in(frame, latency_ns);
    ssc__leave(before);
    return status;
}

int ssc_lib_process(ssc_runtime *r, const ssc_frame *frames, uint64_t *latency_ns)
{
    struct ssc_runtime *before = ssc__enter(r);
    int status = lib_process_in(frames, latency_ns);
    ssc__leave(before);
    return status;
}

int ssc_lib_stop(ssc_runtime *r)
{
    struct ssc_runtime *before = ssc__enter(r);
    int status = lib_stop_in();
    ssc__leave(before);
    return status;
}

int ssc_lib_conduct(ssc_runtime *r, ssc_conduct *out, ssc_lateness *late)
{
    struct ssc_runtime *before = ssc__enter(r);
    int status = lib_conduct_in(out, late);
    ssc__leave(before);
    return status;
}

int ssc_lib_stats(ssc_runtime *r, ssc_stats *out)
{
    struct ssc_runtime *before = ssc__enter(r);
    int status = lib_stats_in(out);
    ssc__leave(before);
    return status;
}
