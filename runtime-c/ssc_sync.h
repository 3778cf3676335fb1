/* ssc_sync.h — the synchronisation of the threads of a chain: the
 * monotonic clock, counting signals (one waiter, one poster) and barriers,
 * on futexes after a bounded spin (runtime-c/README.md, "Signals" and
 * "Barriers"). Depends on nothing else of the runtime (ssc_sync.c). */
#ifndef SSC_SYNC_H
#define SSC_SYNC_H

#include <stdatomic.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Clock                                                               */
/* ------------------------------------------------------------------ */

uint64_t ssc_now_ns(void);      /* CLOCK_MONOTONIC, ns */

/* ------------------------------------------------------------------ */
/* Counting signals: one waiter thread, one poster thread              */
/* ------------------------------------------------------------------ */

/* 64-byte aligned (so its size is a whole cache line): no false sharing. */
typedef struct {
    _Alignas(64) atomic_uint tokens;  /* also the futex word */
    atomic_uint sleeping;             /* the waiter may be in futex_wait */
    const char *name;                 /* what a stuck program's report names */
} ssc_signal;

void ssc_signal_init(ssc_signal *s, unsigned initial_tokens);
/* The same, with the runtime section's name of the signal. */
void ssc_signal_init_named(ssc_signal *s, unsigned initial_tokens, const char *name);
void ssc_signal_wait(ssc_signal *s);  /* take one token, blocking while none */
void ssc_signal_post(ssc_signal *s);  /* add one token */

/* The spin bound of signal and barrier waits, in ns (default 20000).
 * After it a waiter sleeps on a futex. */
void ssc_set_spin_ns(uint64_t ns);
uint64_t ssc_get_spin_ns(void);

/* ------------------------------------------------------------------ */
/* Barriers for n threads                                              */
/* ------------------------------------------------------------------ */

typedef struct {
    _Alignas(64) atomic_uint arrived;   /* threads arrived in this round */
    atomic_uint generation;             /* round number; its parity is the sense */
    atomic_uint sleeping;               /* threads that may be in futex_wait */
    unsigned n;
    const char *name;                   /* what a stuck program's report names */
} ssc_barrier;

void ssc_barrier_init(ssc_barrier *b, unsigned n);
void ssc_barrier_init_named(ssc_barrier *b, unsigned n, const char *name);
void ssc_barrier_wait(ssc_barrier *b);

#endif /* SSC_SYNC_H */
