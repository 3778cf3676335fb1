/* ssc_sync.c — the clock, the futex waits, counting signals and barriers
 * (ssc_sync.h). Read README.md, "Signals" and "Barriers", for the
 * protocols and their proofs. Depends on no other runtime file: the
 * signal benchmark (bench_signal.c) links it alone with ssc_stats.c. */
#define _GNU_SOURCE
#include "ssc_sync.h"
#include "ssc_internal.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Clock, futex, spinning                                              */
/* ------------------------------------------------------------------ */

uint64_t ssc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The futex word is the 32-bit atomic itself: _Atomic unsigned has the
 * representation of unsigned on every target gcc and clang support. */
void ssc__futex_wait(atomic_uint *word, unsigned expected)
{
    /* Returns at once (EAGAIN) when *word != expected: no lost wake-up. */
    syscall(SYS_futex, (void *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

/* As futex_wait, for at most `ns` (0: no bound). */
void ssc__futex_wait_ns(atomic_uint *word, unsigned expected, uint64_t ns)
{
    if (!ns) {
        ssc__futex_wait(word, expected);
        return;
    }
    struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    syscall(SYS_futex, (void *)word, FUTEX_WAIT_PRIVATE, expected, &t, NULL, 0);
}

void ssc__futex_wake(atomic_uint *word, int how_many)
{
    syscall(SYS_futex, (void *)word, FUTEX_WAKE_PRIVATE, how_many, NULL, NULL, 0);
}

/* 20 us: a spinning waiter sees a post in ~60 ns, a sleeping one is woken
 * in 13-31 us (p50; 48 us p99) on the 2-vCPU KVM machine ssc was developed
 * on (runtime-c/README.md, "Measured costs"). Each instance has its own
 * (rt.spin_ns, 20 us when it starts), atomic so it may be changed while
 * its threads run. */
void ssc_set_spin_ns(uint64_t ns) { atomic_store_explicit(&rt.spin_ns, ns, memory_order_relaxed); }
uint64_t ssc_get_spin_ns(void) { return atomic_load_explicit(&rt.spin_ns, memory_order_relaxed); }

/* Spins while *word == value, for at most the spin bound. Returns 1 when
 * the word changed (read with acquire), 0 when the bound ran out. */
int ssc__spin_while_equal(atomic_uint *word, unsigned value)
{
    if (atomic_load_explicit(word, memory_order_acquire) != value)
        return 1;
    uint64_t bound = ssc_get_spin_ns();
    if (bound == 0)
        return 0;
    uint64_t deadline = ssc_now_ns() + bound;
    for (unsigned i = 1;; i++) {
        ssc__cpu_relax();
        if (atomic_load_explicit(word, memory_order_acquire) != value)
            return 1;
        if ((i & 15) == 0 && ssc_now_ns() >= deadline)   /* the clock costs ~20 ns */
            return 0;
    }
}

/* ------------------------------------------------------------------ */
/* Counting signals                                                    */
/* ------------------------------------------------------------------ */

void ssc_signal_init(ssc_signal *s, unsigned initial_tokens)
{
    atomic_init(&s->tokens, initial_tokens);
    atomic_init(&s->sleeping, 0);
    s->name = NULL;
}

void ssc_signal_init_named(ssc_signal *s, unsigned initial_tokens, const char *name)
{
    ssc_signal_init(s, initial_tokens);
    s->name = name;
}

/* Only this (single) waiter decrements `tokens`, so once it sees a token
 * the token stays. The poster's fetch_add (release) is read by our acquire
 * load and fetch_sub: that is the happens-before edge of the signal. */
void ssc_signal_wait(ssc_signal *s)
{
    if (!ssc__spin_while_equal(&s->tokens, 0)) {
        /* Dekker-style with seq_cst: either the poster's increment is seen
         * by our load below, or our `sleeping = 1` is seen by the poster,
         * which then wakes us (futex_wait returns at once if tokens != 0). */
        atomic_store(&s->sleeping, 1);
        while (atomic_load(&s->tokens) == 0)
            ssc__futex_wait(&s->tokens, 0);
        atomic_store(&s->sleeping, 0);
    }
    atomic_fetch_sub_explicit(&s->tokens, 1, memory_order_acquire);
}

void ssc_signal_post(ssc_signal *s)
{
    atomic_fetch_add(&s->tokens, 1);             /* seq_cst: release + Dekker */
    if (atomic_load(&s->sleeping))               /* a syscall only when needed */
        ssc__futex_wake(&s->tokens, 1);
}

/* ------------------------------------------------------------------ */
/* Barriers                                                            */
/* ------------------------------------------------------------------ */

void ssc_barrier_init(ssc_barrier *b, unsigned n)
{
    atomic_init(&b->arrived, 0);
    atomic_init(&b->generation, 0);
    atomic_init(&b->sleeping, 0);
    b->n = n;
    b->name = NULL;
}

void ssc_barrier_init_named(ssc_barrier *b, unsigned n, const char *name)
{
    ssc_barrier_init(b, n);
    b->name = name;
}

/* Sense reversal with a counter: the waiters wait for `generation` to move
 * on from the value they read before arriving (its parity is the classic
 * sense bit; counting avoids per-thread sense variables). The last arrival
 * acquires every arrival (a release sequence of RMWs on `arrived`), resets
 * the count and releases everyone through `generation`. */
void ssc_barrier_wait(ssc_barrier *b)
{
    unsigned gen = atomic_load_explicit(&b->generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->n) {
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        atomic_fetch_add(&b->generation, 1);
        if (atomic_load(&b->sleeping))
            ssc__futex_wake(&b->generation, INT_MAX);
        return;
    }
    if (ssc__spin_while_equal(&b->generation, gen))
        return;
    atomic_fetch_add(&b->sleeping, 1);
    while (atomic_load(&b->generation) == gen)
        ssc__futex_wait(&b->generation, gen);
    atomic_fetch_sub(&b->sleeping, 1);
}

