/* bench_signal.c — the cost of one wait/signal pair with ssc_signal.
 *
 * Two threads on two cores (0 and 1 when they exist) ping-pong through two
 * signals; one round trip is two wait/signal pairs, so one pair (post on
 * one core until the waiter on the other returns) is half a round trip.
 * Modes: spinning waiters (spin bound 1 s: they never sleep) and sleeping
 * waiters (spin bound 0: every wait sleeps on the futex). Also the cost of
 * a post nobody waits for, and of a wait whose token is already there.
 *
 * `--json` prints what `ssc calibrate` reads instead (one line, ns): the
 * mean cost of a post nobody waits for (`post_ns`), of a wait whose token
 * is already there (`ready_wait_ns`), and the median one-way latency of a
 * wait/signal pair with the default spin bound (`pair_ns`), the median of
 * five runs.
 *
 * Build: cc -std=c11 -O2 -pthread bench_signal.c ssc_rt.c -o bench_signal
 * Usage: ./bench_signal [--json] [rounds]   */
#define _GNU_SOURCE
#include "ssc_rt.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* One-way latency of a wait/signal pair, in ns, over `rounds` round trips:
 * its median; label NULL: not printed (a warm-up, or --json). */
static uint64_t pingpong(const char *label, uint64_t spin_ns)
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
    ssc_stats s;
    ssc_stats_compute(rtt + rounds / 10, (uint64_t)(rounds - rounds / 10), &s);  /* skip warm-up */
    free(rtt);
    if (!label)
        return s.p50;
    printf("%-30s one wait/signal pair: mean %8.0f ns  p50 %8llu  p99 %8llu  max %8llu\n",
           label, s.mean, (unsigned long long)s.p50, (unsigned long long)s.p99,
           (unsigned long long)s.max);
    return s.p50;
}

/* Same-thread costs, mean ns: a post with nobody sleeping, a wait with a
 * token ready. */
static void local_costs(double *post_ns, double *ready_wait_ns)
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
    *post_ns = (double)(t1 - t0) / N;
    *ready_wait_ns = (double)(t2 - t1) / N;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* --json: the costs `ssc calibrate` fits the scheduler's model to. */
static int json(void)
{
    uint64_t spin = ssc_get_spin_ns(); /* the runtime's default bound */
    double post, ready;
    local_costs(&post, &ready);
    uint64_t pair[5];
    pingpong(NULL, spin);
    for (int i = 0; i < 5; i++)
        pair[i] = pingpong(NULL, spin);
    qsort(pair, 5, sizeof pair[0], by_value);
    printf("{\"post_ns\": %.2f, \"ready_wait_ns\": %.2f, \"pair_ns\": %llu}\n", post, ready,
           (unsigned long long)pair[2]);
    return 0;
}

int main(int argc, char **argv)
{
    int as_json = argc > 1 && strcmp(argv[1], "--json") == 0;
    if (as_json) {
        argc--;
        argv++;
    }
    rounds = argc > 1 ? atoi(argv[1]) : 20000;
    if (rounds < 10)
        rounds = 10;
    pin(0);
    if (as_json)
        return json();
    double post, ready;
    local_costs(&post, &ready);
    printf("%-30s post %.1f ns, wait with a token ready %.1f ns\n", "uncontended, one thread", post,
           ready);
    pingpong(NULL, 1000000000);
    pingpong("spinning waiter (spin 1 s)", 1000000000);
    pingpong("sleeping waiter (spin 0)", 0);
    pingpong("default spin bound (20 us)", 20000);
    return 0;
}
