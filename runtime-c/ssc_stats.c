/* ssc_stats.c — latency statistics (ssc_stats.h): exact summaries,
 * streaming ones (Welford, merged exactly; a log-linear histogram for
 * percentiles) and the deadline record. Depends on no other runtime
 * file, and links without -lm. */
#include "ssc_stats.h"

#include <stdlib.h>
#include <string.h>

/* Square root by Newton's method: the generated program links without -lm. */
static double sqrt_newton(double v)
{
    if (v <= 0)
        return 0;
    double x = v > 1 ? v : 1;
    for (int i = 0; i < 200; i++) {
        double next = 0.5 * (x + v / x);
        if (next >= x)
            break;      /* decreasing from above: stop when it stops */
        x = next;
    }
    return x;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t nearest_rank(const uint64_t *sorted, uint64_t n, double pct)
{
    double r = pct / 100.0 * (double)n - 1e-9;   /* 99.9% of 1000 is 999, not 999.0000001 */
    uint64_t rank = (uint64_t)r;
    if ((double)rank < r)
        rank++;                       /* ceil */
    return sorted[rank ? rank - 1 : 0];
}

void ssc_stats_compute(uint64_t *ns, uint64_t n, ssc_stats *s)
{
    memset(s, 0, sizeof *s);
    s->count = n;
    if (n == 0)
        return;
    qsort(ns, (size_t)n, sizeof *ns, cmp_u64);
    double sum = 0, sq = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += (double)ns[i];
    s->mean = sum / (double)n;
    for (uint64_t i = 0; i < n; i++)
        sq += ((double)ns[i] - s->mean) * ((double)ns[i] - s->mean);
    s->stddev = n > 1 ? sqrt_newton(sq / (double)(n - 1)) : 0.0;
    s->min = ns[0];
    s->max = ns[n - 1];
    s->p50 = nearest_rank(ns, n, 50);
    s->p99 = nearest_rank(ns, n, 99);
    s->p999 = nearest_rank(ns, n, 99.9);
}


/* Values below 128 have a bucket each; above, 64 buckets per power of two:
 * v in [64·2^e, 128·2^e) falls in bucket 128 + (e − 1)·64 + (v >> e) − 64,
 * of width w = 2^e. Its middle (below) is at most w/2 from any value of
 * the bucket, which is at least 64·w: a relative error of at most 1/128. */
static int hist_index(uint64_t v)
{
    if (v < 128)
        return (int)v;
    int e = 63 - __builtin_clzll(v) - 6;
    return 128 + (e - 1) * 64 + (int)((v >> e) - 64);
}

/* The middle of bucket i. */
static uint64_t hist_value(int i)
{
    if (i < 128)
        return (uint64_t)i;
    int e = (i - 128) / 64 + 1;
    uint64_t lower = (uint64_t)((i - 128) % 64 + 64) << e;
    return lower + (((uint64_t)1 << e) - 1) / 2;
}

void ssc_conduct_add(ssc_conduct *c, uint64_t frame, uint64_t latency_ns, uint64_t deadline_ns)
{
    if (deadline_ns && latency_ns > deadline_ns)
        c->misses++;
    int w = c->n_worst < SSC_WORST ? c->n_worst : SSC_WORST - 1;
    if (c->n_worst == SSC_WORST && latency_ns <= c->worst[w].latency_ns)
        return;
    /* Insertion into the slowest-first list; ties keep the earlier frame first. */
    while (w > 0 && c->worst[w - 1].latency_ns < latency_ns) {
        c->worst[w] = c->worst[w - 1];
        w--;
    }
    c->worst[w].frame = frame;
    c->worst[w].latency_ns = latency_ns;
    if (c->n_worst < SSC_WORST)
        c->n_worst++;
}

void ssc_conduct_merge(ssc_conduct *into, const ssc_conduct *from)
{
    into->misses += from->misses;
    into->dropped += from->dropped;
    for (int w = 0; w < from->n_worst; w++) {
        uint64_t deadline = 0;   /* the misses are added above */
        ssc_conduct_add(into, from->worst[w].frame, from->worst[w].latency_ns, deadline);
    }
}

void ssc_stream_reset(ssc_stream_stats *s)
{
    memset(s, 0, sizeof *s);
}

void ssc_stream_add(ssc_stream_stats *s, uint64_t ns)
{
    s->count++;
    if (s->count == 1 || ns < s->min)
        s->min = ns;
    if (ns > s->max)
        s->max = ns;
    double delta = (double)ns - s->mean;
    s->mean += delta / (double)s->count;
    s->m2 += delta * ((double)ns - s->mean);
    s->hist[hist_index(ns)]++;
}

void ssc_stream_merge(ssc_stream_stats *into, const ssc_stream_stats *from)
{
    if (!from->count)
        return;
    if (!into->count) {
        *into = *from;
        return;
    }
    /* Chan, Golub and LeVeque's pairwise update of the mean and M2. */
    double na = (double)into->count, nb = (double)from->count, n = na + nb;
    double delta = from->mean - into->mean;
    into->mean += delta * nb / n;
    into->m2 += from->m2 + delta * delta * na * nb / n;
    into->count += from->count;
    if (from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
    for (int i = 0; i < SSC_HIST_BUCKETS; i++)
        into->hist[i] += from->hist[i];
}

static uint64_t stream_percentile(const ssc_stream_stats *s, double pct)
{
    double r = pct / 100.0 * (double)s->count - 1e-9;
    uint64_t rank = (uint64_t)r, seen = 0;
    if ((double)rank < r)
        rank++;
    if (rank == 0)
        rank = 1;
    for (int i = 0; i < SSC_HIST_BUCKETS; i++) {
        seen += s->hist[i];
        if (seen >= rank) {
            uint64_t v = hist_value(i);
            return v < s->min ? s->min : v > s->max ? s->max : v;
        }
    }
    return s->max;
}

void ssc_stream_summary(const ssc_stream_stats *s, ssc_stats *out)
{
    memset(out, 0, sizeof *out);
    out->count = s->count;
    if (!s->count)
        return;
    out->mean = s->mean;
    out->stddev = s->count > 1 ? sqrt_newton(s->m2 / (double)(s->count - 1)) : 0.0;
    out->min = s->min;
    out->max = s->max;
    out->p50 = stream_percentile(s, 50);
    out->p99 = stream_percentile(s, 99);
    out->p999 = stream_percentile(s, 99.9);
}

