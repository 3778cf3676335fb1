/* ssc_stats.h — latency statistics: exact summaries of a set, streaming
 * summaries (Welford and a log-linear histogram) that do not grow with
 * the frames, and the deadline/overload record of a run (ssc_stats.c).
 * Depends on nothing else of the runtime. */
#ifndef SSC_STATS_H
#define SSC_STATS_H

#include <stdint.h>

/* Summary of a set of latencies, in ns. */
typedef struct {
    uint64_t count;
    double mean, stddev;
    uint64_t min, p50, p99, p999, max;
} ssc_stats;

/* Sorts `ns` in place and summarises it (nearest-rank percentiles). */
void ssc_stats_compute(uint64_t *ns, uint64_t count, ssc_stats *out);

/* Latencies summarised as they come, in memory that does not grow with
 * their number (30 KiB): exact count, mean, σ (Welford; merged exactly,
 * Chan et al.), min and max; percentiles from a log-linear histogram, one
 * bucket per value below 128 and 64 buckets per power of two above. A
 * percentile is the middle of the bucket that holds the exact
 * nearest-rank value, clamped to [min, max]: exact below 128 ns, else
 * within 1/128 (0.78 %) of the exact value. The program's report and the
 * library's statistics both come from here. */
#define SSC_HIST_BUCKETS (128 + 58 * 64)
typedef struct {
    _Alignas(64) uint64_t count;   /* a whole number of cache lines */
    uint64_t min, max;
    double mean, m2;
    uint64_t hist[SSC_HIST_BUCKETS];
} ssc_stream_stats;
void ssc_stream_reset(ssc_stream_stats *s);
void ssc_stream_add(ssc_stream_stats *s, uint64_t ns);
/* Adds everything `from` has seen to `into` (as if added one by one, up
 * to rounding of the mean and σ). */
void ssc_stream_merge(ssc_stream_stats *into, const ssc_stream_stats *from);
void ssc_stream_summary(const ssc_stream_stats *s, ssc_stats *out);

/* Deadlines and overload: the misses, the dropped frames and the slowest
 * frames of a program's run (its report) or of a library's frames. */
#define SSC_WORST 5
typedef struct { uint64_t frame, latency_ns; } ssc_frame_latency;
typedef struct {
    uint64_t misses;            /* frames over the deadline */
    uint64_t dropped;           /* frames dropped by the overload policy */
    int n_worst;                /* entries of worst */
    ssc_frame_latency worst[SSC_WORST];   /* the slowest frames, slowest first */
} ssc_conduct;
/* Where a thread was late: the sub-box that started latest against the
 * static schedule's plan (box -1: none recorded). */
typedef struct { int box; uint64_t frame; int64_t late_ns; } ssc_lateness;
/* Adds a frame's latency to c: a miss when over deadline_ns (> 0), and
 * among the slowest when it is. */
void ssc_conduct_add(ssc_conduct *c, uint64_t frame, uint64_t latency_ns, uint64_t deadline_ns);
void ssc_conduct_merge(ssc_conduct *into, const ssc_conduct *from);

#endif /* SSC_STATS_H */
