/* halide_driver.c — times one AOT-compiled Halide pipeline of
 * halide_chains.py (xray or fluoro, one schedule) frame by frame exactly
 * like ssc's programs: every input frame is read into memory before the
 * first frame (--input NAME=PATH, ssc's formats and rules; iteration i
 * takes frame i mod frames), and a frame's latency runs from the pipeline
 * call (its inputs point at the preloaded frames) to the end of the three
 * sinks, which compute ssc's checksum over the pipeline's three output
 * buffers here, in parallel on Halide's own thread pool
 * (halide_do_par_for), inside the timed region.
 *
 *   gcc -std=c11 -O3 -march=native -I HALIDE/include -I BUILD -DCHAIN_FLUORO \
 *       -DPIPELINE=fluoro_halide_manual -DPIPELINE_HEADER='"fluoro_halide_manual.h"' \
 *       -o fluoro_halide_manual halide_driver.c BUILD/fluoro_halide_manual.a -lm -lpthread -ldl
 *   HL_NUM_THREADS=2 ./fluoro_halide_manual --resolution 1024 --iterations 300 \
 *       --input raw=frames/raw --input dark=frames/dark.pgm --input gain=frames/gain.pfm
 *
 * Memory: the peak of the bytes live through halide_malloc (the Halide
 * runtime's allocator for every buffer the schedule puts on the heap; this
 * file replaces it to count) plus the three output buffers allocated here
 * (the input frames are not counted, as for ssc). Allocations Halide puts
 * on the stack are not counted. */
#include "peers_common.h"

#include <stdatomic.h>

#include "HalideRuntime.h"
#include PIPELINE_HEADER

#define STR2(s) #s
#define STR(s) STR2(s)

/* The chain's ports: inputs (name, type), outputs (bits, size divisor,
 * sink function id in ssc's generated C). */
#if defined(CHAIN_XRAY)
static const char *const in_names[3] = { "raw", "offset", "gainmap" };
static const int in_types[3] = { PEER_U16, PEER_F32, PEER_F32 };
static const int out_bits[3] = { 32, 16, 32 };          /* display, store, monitor */
static const int out_div[3] = { 1, 1, 2 };
static const uint32_t out_id[3] = { 16, 18, 20 };
#elif defined(CHAIN_FLUORO)
static const char *const in_names[3] = { "raw", "dark", "gain" };
static const int in_types[3] = { PEER_U16, PEER_U16, PEER_F32 };
static const int out_bits[3] = { 16, 8, 8 };            /* archive, display, preview */
static const int out_div[3] = { 1, 1, 4 };
static const uint32_t out_id[3] = { 14, 16, 20 };
#else
#error "define CHAIN_XRAY or CHAIN_FLUORO"
#endif

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

static struct halide_type_t type_of(int bits, int is_float)
{
    return (struct halide_type_t){ .code = is_float ? halide_type_float : halide_type_uint,
                                   .bits = (uint8_t)bits, .lanes = 1 };
}

/* A w x h grid; data NULL: allocated (zeroed) here, else the caller's. */
static void grid_init(grid *g, int32_t w, int32_t h, int bits, int is_float, void *data)
{
    size_t bytes = (size_t)w * (size_t)h * (size_t)(bits / 8);
    g->data = data ? data : aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!g->data) {
        fprintf(stderr, "halide_driver: out of memory\n");
        exit(3);
    }
    if (!data)
        memset(g->data, 0, bytes);
    g->dim[0] = (halide_dimension_t){ .min = 0, .extent = w, .stride = 1, .flags = 0 };
    g->dim[1] = (halide_dimension_t){ .min = 0, .extent = h, .stride = w, .flags = 0 };
    memset(&g->buf, 0, sizeof g->buf);
    g->buf.host = (uint8_t *)g->data;
    g->buf.type = type_of(bits, is_float);
    g->buf.dimensions = 2;
    g->buf.dim = g->dim;
}

/* ---- the sinks: ssc's checksum, in parallel on Halide's thread pool ----- */

#define SINK_TASKS 8   /* row blocks per sink */

typedef struct {
    const void *data;
    int64_t w, h;
    int bits;   /* 32: float, 16: ushort, 8: uchar */
    atomic_uint_fast64_t sum;
} sink_job;

static int sink_task(void *user_context, int task, uint8_t *closure)
{
    (void)user_context;
    sink_job *j = (sink_job *)closure;
    int64_t y0 = j->h * task / SINK_TASKS, y1 = j->h * (task + 1) / SINK_TASKS;
    uint64_t sum = j->bits == 16  ? peer_sink_rows16(j->data, j->w, y0, y1)
                   : j->bits == 8 ? peer_sink_rows8(j->data, j->w, y0, y1)
                                  : peer_sink_rows(j->data, j->w, y0, y1);
    atomic_fetch_add_explicit(&j->sum, sum, memory_order_relaxed);
    return 0;
}

static uint64_t sink(const grid *g, uint32_t id, uint64_t it)
{
    sink_job j = { g->data, g->dim[0].extent, g->dim[1].extent, g->buf.type.bits, 0 };
    if (halide_do_par_for(NULL, sink_task, 0, SINK_TASKS, (uint8_t *)&j)) {
        fprintf(stderr, "halide_driver: halide_do_par_for failed\n");
        exit(3);
    }
    return atomic_load(&j.sum) * peer_key(id, it);
}

int main(int argc, char **argv)
{
    peer_options opt;
    peer_parse_args(&opt, STR(PIPELINE), argc, argv);
    const int32_t R = (int32_t)opt.resolution;
    if (opt.resolution > (1 << 20) || opt.iterations > (uint64_t)INT32_MAX) {
        fprintf(stderr, "%s: resolution or iterations too large\n", opt.program);
        return 2;
    }
    const char *env = getenv("HL_NUM_THREADS");
    int threads = env && atoi(env) > 0 ? atoi(env) : 2;
    halide_set_num_threads(threads);

    peer_input in[3];
    peer_load_inputs(&opt, 3, in_names, in_types, R, in);
    grid input[3], output[3];
    uint64_t outputs = 0;
    for (int k = 0; k < 3; k++) {
        grid_init(&input[k], R, R, in_types[k], in_types[k] == PEER_F32, in[k].frame[0]);
        int32_t n = R / out_div[k];
        grid_init(&output[k], n, n, out_bits[k], out_bits[k] == 32, NULL);
        outputs += (uint64_t)n * (uint64_t)n * (uint64_t)(out_bits[k] / 8);
    }

    uint64_t *lat = peer_latencies(&opt);
    uint64_t checksum = 0;
    for (uint64_t i = 0; i < opt.iterations; i++) {
        for (int k = 0; k < 3; k++)
            input[k].buf.host = (uint8_t *)peer_frame(&in[k], i);
        uint64_t t0 = peer_now_ns();
        int err = PIPELINE(&input[0].buf, &input[1].buf, &input[2].buf, &output[0].buf,
                           &output[1].buf, &output[2].buf);
        if (err) {
            fprintf(stderr, "%s: the pipeline failed with %d\n", opt.program, err);
            return 3;
        }
        for (int k = 0; k < 3; k++)
            checksum += sink(&output[k], out_id[k], i);
        lat[i] = peer_now_ns() - t0;
    }

    peer_report(&opt, threads, lat, opt.iterations, checksum,
                outputs + (uint64_t)atomic_load(&peak));
    free(lat);
    for (int k = 0; k < 3; k++)
        free(output[k].data);
    return 0;
}
