/* percentiles.c — the streaming statistics of ssc_stats.c (ssc_stream_*)
 * against exact ones (ssc_stats_compute: sorted, nearest rank) on known
 * sets of latencies. tests/it/streaming.rs compiles it with runtime-c/ssc_stats.c
 * and checks what it prints, one line per set and kind:
 *
 *   SET KIND count mean stddev min p50 p99 p999 max
 *
 * KIND is `exact`, `stream` (every value added to one ssc_stream_stats) or
 * `merged` (the values dealt round-robin to three, then merged, as the
 * program merges its threads'). A last line `bytes N` gives the size of
 * one ssc_stream_stats. */
#include "ssc_stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 0x5eed;

static uint64_t next(void)   /* splitmix64 */
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void print(const char *set, const char *kind, const ssc_stats *s)
{
    printf("%s %s %" PRIu64 " %.17g %.17g %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
           set, kind, s->count, s->mean, s->stddev, s->min, s->p50, s->p99, s->p999, s->max);
}

static void check(const char *set, const uint64_t *v, size_t n)
{
    static ssc_stream_stats one, part[3], merged;
    ssc_stream_reset(&one);
    ssc_stream_reset(&merged);
    for (int k = 0; k < 3; k++)
        ssc_stream_reset(&part[k]);
    for (size_t i = 0; i < n; i++) {
        ssc_stream_add(&one, v[i]);
        ssc_stream_add(&part[i % 3], v[i]);
    }
    for (int k = 0; k < 3; k++)
        ssc_stream_merge(&merged, &part[k]);

    uint64_t *sorted = malloc(sizeof *sorted * n);
    if (!sorted) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(sorted, v, sizeof *sorted * n);
    ssc_stats s;
    ssc_stats_compute(sorted, n, &s);
    print(set, "exact", &s);
    ssc_stream_summary(&one, &s);
    print(set, "stream", &s);
    ssc_stream_summary(&merged, &s);
    print(set, "merged", &s);
    free(sorted);
}

int main(void)
{
    enum { N = 200000 };
    static uint64_t v[N];

    /* 1000, 999, …, 1: the runtime unit test's set */
    for (int i = 0; i < 1000; i++)
        v[i] = (uint64_t)(1000 - i);
    check("ramp", v, 1000);

    /* below 128 ns: a bucket per value, so exact */
    for (int i = 0; i < N; i++)
        v[i] = next() % 128;
    check("small", v, N);

    /* uniform over 1 µs .. 1 ms */
    for (int i = 0; i < N; i++)
        v[i] = 1000 + next() % 999000;
    check("uniform", v, N);

    /* log-uniform over 1 ns .. 2^40 ns (18 minutes): every octave alike */
    for (int i = 0; i < N; i++) {
        int e = (int)(next() % 40);
        v[i] = ((uint64_t)1 << e) + next() % ((uint64_t)1 << e);
    }
    check("loguniform", v, N);

    /* a real-time chain: 500 µs ± 5 µs, 1 % at 10 ms ± 1 ms, 0.05 % at 1 s */
    for (int i = 0; i < N; i++) {
        uint64_t r = next() % 10000;
        v[i] = r < 5 ? 1000000000 + next() % 1000000
             : r < 105 ? 9000000 + next() % 2000000
             : 495000 + next() % 10000;
    }
    check("bimodal", v, N);

    /* the top of the range: near 2^62 ns and a few near 2^64 */
    for (int i = 0; i < 1000; i++)
        v[i] = (i % 100 ? (uint64_t)1 << 62 : UINT64_MAX - 4096) + next() % 4096;
    check("huge", v, 1000);

    /* one value */
    for (int i = 0; i < 1000; i++)
        v[i] = 123456;
    check("constant", v, 1000);

    printf("bytes %zu\n", sizeof(ssc_stream_stats));
    return 0;
}
