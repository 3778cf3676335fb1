/* bench_signal.c — the cost of one wait/signal pair with ssc_signal.
 *
 * Two threads on two cores (0 and 1 when they exist) ping-pong through two
 * signals; one round trip is two wait/signal pairs, so one pair (post on
 * one core until the waiter on the other returns) is half a round trip.
 * Modes: spinning waiters (spin bound 1 s: they never sleep) and sleeping
 * waiters (spin bound 0: every wait sleeps on the futex). Also the cost of
 * a post nobody waits for, and of a wait whose token is already there.
 *
 * Also the cost of moving data between the cores: core 1 writes a 128 KiB
 * buffer and signals, core 0 reads it (a vectorised sum), then core 0
 * writes it and reads it again from its own cache; the difference of the
 * two reads' medians, per KiB, is what a sub-box pays for reading another
 * thread's output.
 *
 * `--json` prints what `ssc calibrate` reads instead (one line, ns): the
 * mean cost of a post nobody waits for (`post_ns`), of a wait whose token
 * is already there (`ready_wait_ns`), the median one-way latency of a
 * wait/signal pair with the default spin bound (`pair_ns`), the median of
 * five runs, and the medians of reading 128 KiB another core wrote
 * (`remote_read_ns`) and 128 KiB this core wrote (`local_read_ns`).
 *
 * Build: cc -std=c11 -O2 -pthread bench_signal.c ssc_sync.c ssc_stats.c -o bench_signal
 * Usage: ./bench_signal [--json] [rounds]   */
#define _GNU_SOURCE
#include "ssc_stats.h"
#include "ssc_sync.h"

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

/* The data movement: see the head comment. */
enum { TRANSFER_KIB = 128, TRANSFER_ROUNDS = 400 };
static uint32_t *data;
static ssc_signal wrote, read_done;
static volatile uint32_t sink;

static void fill(uint32_t seed)
{
    for (size_t i = 0; i < TRANSFER_KIB * 256; i++)
        data[i] = seed + (uint32_t)i;
}

static uint32_t sum(void)
{
    uint32_t s = 0;
    for (size_t i = 0; i < TRANSFER_KIB * 256; i++)
        s += data[i];
    return s;
}

static void *writer(void *arg)
{
    (void)arg;
    pin(1);
    for (int r = 0; r < TRANSFER_ROUNDS; r++) {
        ssc_signal_wait(&read_done);
        fill((uint32_t)r);
        ssc_signal_post(&wrote);
    }
    return NULL;
}

/* Medians of reading TRANSFER_KIB that core 1 wrote, and that core 0
 * wrote, ns. */
static void transfer(uint64_t *remote_ns, uint64_t *local_ns)
{
    ssc_set_spin_ns(1000000000); /* the reader never sleeps */
    data = aligned_alloc(64, TRANSFER_KIB * 1024);
    uint64_t *remote = malloc(sizeof *remote * TRANSFER_ROUNDS);
    uint64_t *local = malloc(sizeof *local * TRANSFER_ROUNDS);
    ssc_signal_init(&wrote, 0);
    ssc_signal_init(&read_done, 1);
    pthread_t t;
    pthread_create(&t, NULL, writer, NULL);
    for (int r = 0; r < TRANSFER_ROUNDS; r++) {
        ssc_signal_wait(&wrote);
        uint64_t t0 = ssc_now_ns();
        sink = sum();
        remote[r] = ssc_now_ns() - t0;
        fill((uint32_t)r);
        t0 = ssc_now_ns();
        sink = sum();
        local[r] = ssc_now_ns() - t0;
        ssc_signal_post(&read_done);
    }
    pthread_join(t, NULL);
    qsort(remote, TRANSFER_ROUNDS, sizeof *remote, by_value);
    qsort(local, TRANSFER_ROUNDS, sizeof *local, by_value);
    *remote_ns = remote[TRANSFER_ROUNDS / 2];
    *local_ns = local[TRANSFER_ROUNDS / 2];
    free(remote);
    free(local);
    free(data);
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
    uint64_t remote, local;
    transfer(&remote, &local);
    printf("{\"post_ns\": %.2f, \"ready_wait_ns\": %.2f, \"pair_ns\": %llu, "
           "\"remote_read_ns\": %llu, \"local_read_ns\": %llu}\n",
           post, ready, (unsigned long long)pair[2], (unsigned long long)remote,
           (unsigned long long)local);
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
    uint64_t remote, local;
    transfer(&remote, &local);
    printf("%-30s %d KiB another core wrote: p50 %llu ns, this core wrote: p50 %llu ns "
           "(%.1f ns a KiB more)\n",
           "reading", TRANSFER_KIB, (unsigned long long)remote, (unsigned long long)local,
           ((double)remote - (double)local) / TRANSFER_KIB);
    return 0;
}
