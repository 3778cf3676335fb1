/* ssc_deadline.c — --sched-deadline: each thread of the chain under
 * SCHED_DEADLINE, its runtime from the static schedule (README.md,
 * "SCHED_DEADLINE"). A thread takes its reservation itself as it starts
 * (sched_setattr on its own tid), tells main, and waits at a gate: main
 * lets the threads run only when every one was admitted (or fell back to
 * SCHED_FIFO when asked), else it stops the run before its first
 * iteration, so that no thread waits forever for one that was refused.
 * Like the core, it never prints: a refusal is a message and a code. */
#define _GNU_SOURCE
#include "ssc_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#define DL_OVERRUN 0x04   /* SCHED_FLAG_DL_OVERRUN: SIGXCPU on an overrun */
#define DL_MIN_RUNTIME 1024   /* the kernel's smallest runtime, ns */

/* The kernel's struct sched_attr (sched_setattr(2)); glibc has no wrapper. */
struct dl_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

void ssc__deadline_params(int i, uint64_t *runtime, uint64_t *deadline, uint64_t *period)
{
    double busy = rt.opt.thread_busy_ns ? (double)rt.opt.thread_busy_ns[i] : 0.0;
    uint64_t waits = rt.opt.thread_waits ? rt.opt.thread_waits[i] : 0;
    double r = busy * (1.0 + rt.opt.deadline_margin) + (double)waits * (double)ssc_get_spin_ns();
    *runtime = r < DL_MIN_RUNTIME ? DL_MIN_RUNTIME : r > (double)UINT64_MAX / 2 ? UINT64_MAX / 2
                                                                              : (uint64_t)r;
    *deadline = *period = rt.opt.sched_period_ns ? rt.opt.sched_period_ns : rt.opt.period_ns;
}

const char *ssc__deadline_why(int err)
{
    switch (err) {
    case EPERM:
        return "EPERM: it needs root or CAP_SYS_NICE, and the thread's cores must be the "
               "whole root domain (the threads are not pinned under --sched-deadline; an "
               "exclusive cpuset makes a root domain of its own)";
    case EBUSY:
        return "EBUSY: admission control refused it: the reservations of every deadline "
               "task on these cores would pass sched_rt_runtime_us of sched_rt_period_us";
    case EINVAL:
        return "EINVAL: the runtime must be at least 1024 ns and at most the deadline, the "
               "deadline at most the period (a smaller deadline margin or a longer "
               "period)";
    default:
        return strerror(err);
    }
}

static void xcpu(int sig)
{
    (void)sig;
    ssc_thread *t = ssc__this_thread();
    if (t)
        atomic_fetch_add_explicit(&t->dl_overruns, 1, memory_order_relaxed);
}

void ssc__deadline_start(ssc_thread *t)
{
    uint64_t runtime, deadline, period;
    ssc__deadline_params(t->index, &runtime, &deadline, &period);
    /* A library installs no signal handler: no SIGXCPU for it (its default
     * would end the caller's process), so no overrun count either. */
    struct dl_attr a = {
        .size = sizeof a, .sched_policy = SCHED_DEADLINE,
        .sched_flags = rt.lib_mode ? 0 : DL_OVERRUN,
        .sched_runtime = runtime, .sched_deadline = deadline, .sched_period = period,
    };
    t->dl_error = syscall(SYS_sched_setattr, 0, &a, 0) == 0 ? 0 : errno;
    if (t->dl_error && rt.opt.sched_fallback) {
        struct sched_param p = { .sched_priority = rt.opt.rt_priority ? rt.opt.rt_priority : 50 };
        t->dl_fallback = pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0;
    }
    atomic_fetch_add(&rt.dl_started, 1);
    ssc__futex_wake(&rt.dl_started, 1);
    while (!atomic_load(&rt.dl_gate))
        ssc__futex_wait(&rt.dl_gate, 0);
}

int ssc__deadline_admit(void)
{
    if (!rt.lib_mode) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = xcpu;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGXCPU, &sa, NULL);
    }
    for (;;) {
        unsigned n = atomic_load(&rt.dl_started);
        if (n >= (unsigned)rt.n_threads)
            break;
        ssc__futex_wait(&rt.dl_started, n);
    }
    int refused = 0;
    for (int i = 0; i < rt.n_threads; i++) {
        ssc_thread *t = &rt.threads[i];
        if (!t->dl_error || t->dl_fallback)
            continue;
        uint64_t runtime, deadline, period;
        ssc__deadline_params(i, &runtime, &deadline, &period);
        ssc__message("thread %d: SCHED_DEADLINE with runtime %" PRIu64 " ns, deadline %" PRIu64
                     " ns, period %" PRIu64 " ns refused: %s%s", i, runtime, deadline, period,
                     ssc__deadline_why(t->dl_error),
                     rt.opt.sched_fallback ? "; SCHED_FIFO was refused too" : "");
        refused = 1;
    }
    if (refused)   /* no thread begins an iteration: they return at once */
        atomic_fetch_or(&rt.frontier, STOP_BIT);
    atomic_store(&rt.dl_gate, 1);
    ssc__futex_wake(&rt.dl_gate, INT_MAX);
    return refused ? 3 : 0;
}
