/* fluoro_omp.c — examples/fluoro.ssc written with OpenMP the way an OpenMP
 * user writes it first (as xray_omp.c): every box one `#pragma omp
 * parallel for` over its rows (fork-join per box, boxes in the chain's
 * order), every edge a whole-frame buffer allocated and zeroed once. The
 * sources are the preloaded frames themselves (--input raw=… dark=…
 * gain=…, all read before the first frame; iteration i takes frame i mod
 * frames), the sinks `parallel for reduction(+)` folds of ssc's checksum.
 *
 * Bit-exact with ssc (the same float operations in ssc's order, borders
 * clamped; gauss5 per output row from its five input rows' [1 4 6 4 1]
 * sums, as ssc's one expression computes them).
 *
 *   gcc -std=c11 -O3 -march=native -fopenmp -o fluoro_omp fluoro_omp.c -lm
 *   OMP_NUM_THREADS=2 ./fluoro_omp --resolution 1024 --iterations 300 \
 *       --input raw=frames/raw --input dark=frames/dark.pgm --input gain=frames/gain.pfm
 */
#include "omp_rows.h"

#include <omp.h>

enum { ID_ARCHIVE = 14, ID_DISPLAY = 16, ID_PREVIEW = 20 };

static inline int64_t cl(int64_t v, int64_t n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

static void correct(float *restrict o, const uint16_t *restrict raw, const uint16_t *restrict dark,
                    const float *restrict gain, int64_t n)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < n; x++)
            o[y * n + x] = maxf((float)raw[y * n + x] - (float)dark[y * n + x], 0.0f) *
                           gain[y * n + x];
}

static void gauss5(float *restrict o, const float *restrict in, int64_t n, float *tmp)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < n; y++) {
        float *h = tmp + (int64_t)omp_get_thread_num() * 5 * n;
        for (int d = 0; d < 5; d++)
            h14641(h + d * n, in + cl(y + d - 2, n) * n, n);
        v14641(o + y * n, h, h + n, h + 2 * n, h + 3 * n, h + 4 * n, n);
    }
}

static void subtract(float *restrict o, const float *restrict a, const float *restrict b, int64_t n)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < n; x++)
            o[y * n + x] = a[y * n + x] - b[y * n + x];
}

/* out (n x n) = the 2x2 means of in (2n x 2n) */
static void down(float *restrict o, const float *restrict in, int64_t n)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < n; y++)
        down2_row(o + y * n, in + 2 * y * 2 * n, in + (2 * y + 1) * 2 * n, n);
}

/* out (2n x 2n) = coarse (n x n, nearest) + k * detail (2n x 2n), detail
 * clamped to +-64 when clampit */
static void boost(float *restrict o, const float *restrict coarse, const float *restrict detail,
                  float k, int clampit, int64_t n)
{
    int64_t m = 2 * n;
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < m; y++)
        for (int64_t x = 0; x < m; x++) {
            float d = detail[y * m + x];
            o[y * m + x] = coarse[(y / 2) * n + x / 2] +
                           k * (clampit ? minf(maxf(d, -64.0f), 64.0f) : d);
        }
}

static void to_archive(uint16_t *restrict o, const float *restrict in, int64_t n)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < n; x++)
            o[y * n + x] = (uint16_t)minf(maxf(floorf(in[y * n + x] + 0.5f), 0.0f), 65535.0f);
}

static void to_display(uint8_t *restrict o, const float *restrict in, int64_t n)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < n; x++)
            o[y * n + x] = (uint8_t)minf(
                maxf(floorf((in[y * n + x] - 512.0f) / 32.0f + 0.5f), 0.0f), 255.0f);
}

static uint64_t sink16(const uint16_t *in, int64_t n, uint32_t id, uint64_t it)
{
    uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int64_t y = 0; y < n; y++)
        sum += peer_sink_rows16(in, n, y, y + 1);
    return sum * peer_key(id, it);
}

static uint64_t sink8(const uint8_t *in, int64_t n, uint32_t id, uint64_t it)
{
    uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int64_t y = 0; y < n; y++)
        sum += peer_sink_rows8(in, n, y, y + 1);
    return sum * peer_key(id, it);
}

static uint64_t allocated;

static void *buffer(int64_t n, size_t size)
{
    size_t bytes = (size_t)n * size;
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "fluoro_omp: out of memory\n");
        exit(3);
    }
    memset(p, 0, bytes);
    allocated += bytes;
    return p;
}

static const char *const in_names[3] = { "raw", "dark", "gain" };
static const int in_types[3] = { PEER_U16, PEER_U16, PEER_F32 };

int main(int argc, char **argv)
{
    peer_options opt;
    peer_parse_args(&opt, "fluoro_omp", argc, argv);
    const int64_t R = opt.resolution, H = R / 2, Q = R / 4;
    peer_input in[3];
    peer_load_inputs(&opt, 3, in_names, in_types, R, in);

    float *c = buffer(R * R, 4), *g0 = buffer(R * R, 4), *e0 = buffer(R * R, 4);
    float *l1 = buffer(H * H, 4), *g1 = buffer(H * H, 4), *e1 = buffer(H * H, 4);
    float *l2 = buffer(Q * Q, 4), *g2 = buffer(Q * Q, 4), *r1 = buffer(H * H, 4);
    float *r0 = buffer(R * R, 4), *p1 = buffer(H * H, 4), *p2 = buffer(Q * Q, 4);
    uint16_t *a0 = buffer(R * R, 2);
    uint8_t *d0 = buffer(R * R, 1), *p3 = buffer(Q * Q, 1);
    float *tmp = buffer((int64_t)omp_get_max_threads() * 5 * R, 4);

    uint64_t *lat = peer_latencies(&opt);
    uint64_t checksum = 0;
    for (uint64_t i = 0; i < opt.iterations; i++) {
        const uint16_t *raw = peer_frame(&in[0], i), *dark = peer_frame(&in[1], i);
        const float *gain = peer_frame(&in[2], i);
        uint64_t t0 = peer_now_ns();
        correct(c, raw, dark, gain, R);
        gauss5(g0, c, R, tmp);
        subtract(e0, c, g0, R);
        down(l1, g0, H);
        gauss5(g1, l1, H, tmp);
        subtract(e1, l1, g1, H);
        down(l2, g1, Q);
        gauss5(g2, l2, Q, tmp);
        boost(r1, g2, e1, 1.5f, 0, Q);
        boost(r0, r1, e0, 2.0f, 1, H);
        to_archive(a0, r0, R);
        to_display(d0, r0, R);
        down(p1, r0, H);
        down(p2, p1, Q);
        to_display(p3, p2, Q);
        checksum += sink16(a0, R, ID_ARCHIVE, i);
        checksum += sink8(d0, R, ID_DISPLAY, i);
        checksum += sink8(p3, Q, ID_PREVIEW, i);
        lat[i] = peer_now_ns() - t0;
    }
    peer_report(&opt, omp_get_max_threads(), lat, opt.iterations, checksum, allocated);
    return 0;
}
