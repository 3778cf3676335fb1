/* xray_halide_driver.c — times the AOT-compiled Halide X-ray pipeline frame
 * by frame exactly like xray_omp.c: a frame's latency runs from the call of
 * the pipeline (its sources are Funcs of (x, y, iteration), computed inside)
 * to the end of the three sinks, which compute ssc's checksum over the
 * pipeline's three output buffers here, in parallel on Halide's own thread
 * pool (halide_do_par_for), inside the timed region.
 *
 * Built once per schedule, with the header and entry point of one library
 * written by xray_halide.py:
 *
 *   gcc -std=c11 -O3 -march=native -Wall -Wextra -I HALIDE/include -I BUILD \
 *       -DPIPELINE=xray_halide_auto -DPIPELINE_HEADER='"xray_halide_auto.h"' \
 *       -o xray_halide_auto xray_halide_driver.c BUILD/xray_halide_auto.a -lm -lpthread -ldl
 *
 * Memory: the peak of the bytes live through halide_malloc (the Halide
 * runtime's allocator for every buffer the schedule puts on the heap; this
 * file replaces it to count) plus the three output buffers allocated here.
 * Allocations Halide puts on the stack are not counted. */
#include "peers_common.h"

#include <stdatomic.h>

#include "HalideRuntime.h"
#include PIPELINE_HEADER

#define STR2(s) #s
#define STR(s) STR2(s)

/* ---- counting halide_malloc / halide_free ------------------------------ */

static atomic_uint_fast64_t live, peak;

#define HEADER 128   /* keeps Halide's alignment (halide_malloc_alignment <= 128) */

void *halide_malloc(void *user_context, size_t bytes)
{
    (void)user_context;
    size_t total = (bytes + HEADER + HEADER - 1) / HEADER * HEADER;
    uint8_t *base = aligned_alloc(HEADER, total);
    if (!base)
        return NULL;
    memcpy(base, &bytes, sizeof bytes);
    uint64_t now = atomic_fetch_add(&live, bytes) + bytes;
    uint64_t p = atomic_load(&peak);
    while (now > p && !atomic_compare_exchange_weak(&peak, &p, now))
        ;
    return base + HEADER;
}

void halide_free(void *user_context, void *ptr)
{
    (void)user_context;
    if (!ptr)
        return;
    uint8_t *base = (uint8_t *)ptr - HEADER;
    size_t bytes;
    memcpy(&bytes, base, sizeof bytes);
    atomic_fetch_sub(&live, bytes);
    free(base);
}

/* ---- buffers ------------------------------------------------------------ */

typedef struct {
    void *data;
    halide_dimension_t dim[2];
    halide_buffer_t buf;
} grid;

/* A w x h grid of float (bits 32) or 16-bit unsigned (bits 16) elements. */
static void grid_init(grid *g, int32_t w, int32_t h, int bits)
{
    size_t bytes = (size_t)w * (size_t)h * (size_t)(bits / 8);
    g->data = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!g->data) {
        fprintf(stderr, "xray_halide: out of memory\n");
        exit(3);
    }
    memset(g->data, 0, bytes);
    g->dim[0] = (halide_dimension_t){ .min = 0, .extent = w, .stride = 1, .flags = 0 };
    g->dim[1] = (halide_dimension_t){ .min = 0, .extent = h, .stride = w, .flags = 0 };
    memset(&g->buf, 0, sizeof g->buf);
    g->buf.host = (uint8_t *)g->data;
    g->buf.type = bits == 16
                      ? (struct halide_type_t){ .code = halide_type_uint, .bits = 16, .lanes = 1 }
                      : (struct halide_type_t){ .code = halide_type_float, .bits = 32, .lanes = 1 };
    g->buf.dimensions = 2;
    g->buf.dim = g->dim;
}

/* ---- the sinks: ssc's checksum, in parallel on Halide's thread pool ----- */

#define SINK_TASKS 8   /* row blocks per sink */

typedef struct {
    const void *data;
    int64_t w, h;
    int bits;   /* 32: float, 16: ushort */
    atomic_uint_fast64_t sum;
} sink_job;

static int sink_task(void *user_context, int task, uint8_t *closure)
{
    (void)user_context;
    sink_job *j = (sink_job *)closure;
    int64_t y0 = j->h * task / SINK_TASKS, y1 = j->h * (task + 1) / SINK_TASKS;
    uint64_t sum = j->bits == 16 ? peer_sink_rows16(j->data, j->w, y0, y1)
                                 : peer_sink_rows(j->data, j->w, y0, y1);
    atomic_fetch_add_explicit(&j->sum, sum, memory_order_relaxed);
    return 0;
}

static uint64_t sink(const grid *g, uint32_t id, uint64_t it)
{
    sink_job j = { g->data, g->dim[0].extent, g->dim[1].extent, g->buf.type.bits, 0 };
    if (halide_do_par_for(NULL, sink_task, 0, SINK_TASKS, (uint8_t *)&j)) {
        fprintf(stderr, "xray_halide: halide_do_par_for failed\n");
        exit(3);
    }
    return atomic_load(&j.sum) * peer_key(id, it);
}

int main(int argc, char **argv)
{
    peer_options opt;
    peer_parse_args(&opt, STR(PIPELINE), argc, argv);
    const int32_t R = (int32_t)opt.resolution, H = R / 2;
    if (opt.resolution > (1 << 20) || opt.iterations > (uint64_t)INT32_MAX) {
        fprintf(stderr, "%s: resolution or iterations too large\n", opt.program);
        return 2;
    }
    const char *env = getenv("HL_NUM_THREADS");
    int threads = env && atoi(env) > 0 ? atoi(env) : 2;
    halide_set_num_threads(threads);

    grid display, store, monitor;
    grid_init(&display, R, R, 32);
    grid_init(&store, R, R, 16);
    grid_init(&monitor, H, H, 32);
    uint64_t outputs = (uint64_t)R * R * (sizeof(float) + sizeof(uint16_t)) +
                       (uint64_t)H * H * sizeof(float);

    uint64_t *lat = peer_latencies(&opt);
    uint64_t checksum = 0;
    for (uint64_t i = 0; i < opt.iterations; i++) {
        uint64_t t0 = peer_now_ns();
        int err = PIPELINE(R, (int32_t)i, &display.buf, &store.buf, &monitor.buf);
        if (err) {
            fprintf(stderr, "%s: the pipeline failed with %d\n", opt.program, err);
            return 3;
        }
        checksum += sink(&display, PEER_ID_DISPLAY, i);
        checksum += sink(&store, PEER_ID_STORE, i);
        checksum += sink(&monitor, PEER_ID_MONITOR, i);
        lat[i] = peer_now_ns() - t0;
    }

    peer_report(&opt, threads, lat, opt.iterations, checksum,
                outputs + (uint64_t)atomic_load(&peak));
    free(lat);
    free(display.data);
    free(store.data);
    free(monitor.data);
    return 0;
}
