/* bench_signal.c — the cost of one wait/signal pair with ssc_signal.
 *
 * Two threads on two cores (0 and 1 when they exist) ping-pong through two
 * signals; one round trip is two wait/signal pairs, so one pair (post on
 * one core until the waiter on the other returns) is half a round trip.
 * Modes: spinning waiters (spin bound 1 s: they never sleep) and sleeping
 * waiters (spin bound 0: every wait sleeps on the futex). Also the cost of
 * a post nobody waits for, and of a wait whose token is already there.
 *
 * Build: cc -std=c11 -O2 -pthread bench_signal.c ssc_rt.c -o bench_signal
 * Usage: ./bench_signal [rounds]   */
#define _GNU_SOURCE
#include "ssc_rt.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static ssc_signal ping, pong;
static int rounds;

static void pin(int core)
{
    if (core >= sysconf(_SC_NPROCESSORS_ONLN))
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *echo(void *arg)
{
    (void)arg;
    pin(1);
    for (int i = 0; i < rounds; i++) {
        ssc_signal_wait(&ping);
        ssc_signal_post(&pong);
    }
    return NULL;
}

/* One-way latency of a wait/signal pair, in ns, over `rounds` round trips;
 * label NULL: a warm-up run, not printed. */
static void pingpong(const char *label, uint64_t spin_ns)
{
    ssc_set_spin_ns(spin_ns);
    ssc_signal_init(&ping, 0);
    ssc_signal_init(&pong, 0);
    uint64_t *rtt = malloc(sizeof *rtt * (size_t)rounds);
    pthread_t t;
    pthread_create(&t, NULL, echo, NULL);
    for (int i = 0; i < rounds; i++) {
        uint64_t t0 = ssc_now_ns();
        ssc_signal_post(&ping);
        ssc_signal_wait(&pong);
        rtt[i] = (ssc_now_ns() - t0) / 2;
    }
    pthread_join(t, NULL);
    if (!label) {      /* warm-up: wake the vCPUs, fault the pages in */
        free(rtt);
        return;
    }
    ssc_stats s;
    ssc_stats_compute(rtt + rounds / 10, (uint64_t)(rounds - rounds / 10), &s);  /* skip warm-up */
    printf("%-30s one wait/signal pair: mean %8.0f ns  p50 %8llu  p99 %8llu  max %8llu\n",
           label, s.mean, (unsigned long long)s.p50, (unsigned long long)s.p99,
           (unsigned long long)s.max);
    free(rtt);
}

/* Same-thread costs: a post with nobody sleeping, a wait with a token ready. */
static void local_costs(void)
{
    enum { N = 1000000 };
    ssc_signal s;
    ssc_signal_init(&s, 0);
    uint64_t t0 = ssc_now_ns();
    for (int i = 0; i < N; i++)
        ssc_signal_post(&s);
    uint64_t t1 = ssc_now_ns();
    for (int i = 0; i < N; i++)
        ssc_signal_wait(&s);
    uint64_t t2 = ssc_now_ns();
    printf("%-30s post %.1f ns, wait with a token ready %.1f ns\n", "uncontended, one thread",
           (double)(t1 - t0) / N, (double)(t2 - t1) / N);
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atoi(argv[1]) : 20000;
    if (rounds < 10)
        rounds = 10;
    pin(0);
    local_costs();
    pingpong(NULL, 1000000000);
    pingpong("spinning waiter (spin 1 s)", 1000000000);
    pingpong("sleeping waiter (spin 0)", 0);
    pingpong("default spin bound (20 us)", 20000);
    return 0;
}
