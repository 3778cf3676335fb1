/* xray_omp.c — examples/xray.ssc written by hand with OpenMP, the way an
 * OpenMP user writes it: every box is one `#pragma omp parallel for` over
 * its rows (fork-join per box, boxes one after the other in the chain's
 * order), every edge a whole-frame buffer malloc'ed once before the first
 * frame.
 *
 * It computes exactly what ssc generates from the chain's definitions
 * (bit-identical: the same source patterns with the frame number as
 * iteration, then max(float(raw) - offset, 0), times the gain map, a 3x3
 * median, the separable [1 2 1] / 16, the 2x2 mean, bilinear 2:1 up,
 * coarse + k * (fine - coarse), window/level, the 16-bit archive; every
 * float operation in the order ssc's C writes it, windows clamped at the
 * border), and its three sinks add ssc's checksum with the sinks' function
 * ids (display 16, store 18, monitor 20): it prints the checksum of every
 * ssc program of the chain for the same frame count and resolution.
 *
 * Compile it in ISO C mode (-std=c11) as ssc compiles its programs: in
 * gcc's default GNU mode, -march=native contracts a * b + c into a fused
 * multiply-add (one rounding instead of two) and the pixels differ.
 *
 * Latency of a frame: from the start of its sources to the end of its sinks.
 *
 * With --input raw=… --input offset=… --input gainmap=… (all three; as
 * ssc's program takes them, every frame read before the first; iteration i
 * takes frame i mod frames) the sources are the preloaded frames
 * themselves, no copy; without, the three sources draw ssc's test pattern.
 *
 *   gcc -std=c11 -O3 -march=native -fopenmp -Wall -Wextra -o xray_omp xray_omp.c -lm
 *   OMP_NUM_THREADS=2 ./xray_omp [--resolution 512] [--iterations 200] [--json]
 */
#include "peers_common.h"

#include <omp.h>

/* ---- the boxes, one parallel loop over rows each ----------------------- */

static inline int64_t clampi(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static inline float minf(float a, float b) { return a < b ? a : b; }
static inline float maxf(float a, float b) { return a > b ? a : b; }

/* func_source for float: ((7x + 13y + 31i) mod 251 - 125) / 8. */
static void source(float *out, int64_t w, int64_t h, uint64_t it)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        float *row = out + y * w;
        uint64_t p = peer_source_pattern(0, y, it);
        for (int64_t x = 0; x < w; x++) {
            row[x] = peer_source_value(p);
            p = p + 7 >= 251 ? p + 7 - 251 : p + 7;
        }
    }
}

/* func_source_16 (ushort): (7x + 13y + 31i) mod 251. */
static void source16(uint16_t *out, int64_t w, int64_t h, uint64_t it)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        uint16_t *row = out + y * w;
        uint64_t p = peer_source_pattern(0, y, it);
        for (int64_t x = 0; x < w; x++) {
            row[x] = (uint16_t)p;
            p = p + 7 >= 251 ? p + 7 - 251 : p + 7;
        }
    }
}

/* subtract: max(float(raw) - offset, 0). */
static void subtract(float *restrict out, const uint16_t *restrict raw,
                     const float *restrict offset, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = maxf((float)raw[y * w + x] - offset[y * w + x], 0.0f);
}

/* multiply: in * gain. */
static void multiply(float *restrict out, const float *restrict in, const float *restrict gain,
                     int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = in[y * w + x] * gain[y * w + x];
}

/* The median of 9 values as ssc's ssc_median_float finds it: an insertion
 * sort written as its compare-exchanges (no branch: unrolled, the values
 * stay in registers and the loop over x vectorises), the middle element. */
static inline float median9(float v[9])
{
#pragma GCC unroll 64
    for (int i = 1; i < 9; i++)
#pragma GCC unroll 64
        for (int j = i; j > 0; j--) {
            float a = v[j - 1], b = v[j];
            int swap = a > b;
            v[j - 1] = swap ? b : a;
            v[j] = swap ? a : b;
        }
    return v[4];
}

/* median3x3: the median of the 3x3 window, rows then columns, coordinates
 * clamped to the grid (w >= 2). */
static void median3x3(float *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        const float *r0 = in + clampi(y - 1, 0, h - 1) * w;
        const float *r1 = in + y * w;
        const float *r2 = in + clampi(y + 1, 0, h - 1) * w;
        for (int64_t x = 0; x < w; x++) {
            int64_t a = clampi(x - 1, 0, w - 1), c = clampi(x + 1, 0, w - 1);
            float v[9] = { r0[a], r0[x], r0[c], r1[a], r1[x], r1[c], r2[a], r2[x], r2[c] };
            out[y * w + x] = median9(v);
        }
    }
}

/* gauss3x3: separable(in, [1, 2, 1], [1, 2, 1]) / 16 in ssc's order:
 * each row a + 2b + c left to right, then the rows the same way, then / 16;
 * coordinates clamped. */
static void gauss3x3(float *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        const float *r0 = in + clampi(y - 1, 0, h - 1) * w;
        const float *r1 = in + y * w;
        const float *r2 = in + clampi(y + 1, 0, h - 1) * w;
        for (int64_t x = 0; x < w; x++) {
            int64_t a = clampi(x - 1, 0, w - 1), c = clampi(x + 1, 0, w - 1);
            out[y * w + x] = ((r0[a] + 2.0f * r0[x] + r0[c]) + 2.0f * (r1[a] + 2.0f * r1[x] + r1[c]) +
                              (r2[a] + 2.0f * r2[x] + r2[c])) / 16.0f;
        }
    }
}

/* down2: output (w x h) element = mean of the 2x2 input block (input 2w x
 * 2h), summed left to right, top row first. */
static void down2(float *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++) {
        const float *a = in + (2 * y) * (2 * w), *b = in + (2 * y + 1) * (2 * w);
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = (a[2 * x] + a[2 * x + 1] + b[2 * x] + b[2 * x + 1]) / 4.0f;
    }
}

/* One row of up2's interpolation in x: output column ex of input row r. */
static inline float up_x(const float *r, int64_t ex, int64_t w)
{
    int64_t x = ex / 2;
    return ex & 1 ? 0.75f * r[x] + 0.25f * r[clampi(x + 1, 0, w - 1)]
                  : 0.25f * r[clampi(x - 1, 0, w - 1)] + 0.75f * r[x];
}

/* up2: bilinear 2:1 up of a w x h input into 2w x 2h: 3/4 of the nearest
 * element, 1/4 of the next one on the output element's side, in x, then
 * the same in y; coordinates clamped. */
static void up2(float *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t ey = 0; ey < 2 * h; ey++) {
        int64_t y = ey / 2;
        const float *rm = in + clampi(y - 1, 0, h - 1) * w;
        const float *r0 = in + y * w;
        const float *rp = in + clampi(y + 1, 0, h - 1) * w;
        float *o = out + ey * (2 * w);
        for (int64_t ex = 0; ex < 2 * w; ex++)
            o[ex] = ey & 1 ? 0.75f * up_x(r0, ex, w) + 0.25f * up_x(rp, ex, w)
                           : 0.25f * up_x(rm, ex, w) + 0.75f * up_x(r0, ex, w);
    }
}

/* merge: coarse + k * (fine - coarse). */
static void merge(float *restrict out, const float *restrict fine, const float *restrict coarse,
                  float k, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = coarse[y * w + x] + k * (fine[y * w + x] - coarse[y * w + x]);
}

/* contrast: window_level(in, 16000, 8000) = clamp((in - 0) / 16000, 0, 1). */
static void contrast(float *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] = minf(maxf((in[y * w + x] - 0.0f) / 16000.0f, 0.0f), 1.0f);
}

/* archive: ushort(clamp(round(65535 * in), 0, 65535)), round(v) = floor(v + 0.5). */
static void archive(uint16_t *restrict out, const float *restrict in, int64_t w, int64_t h)
{
#pragma omp parallel for schedule(static)
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            out[y * w + x] =
                (uint16_t)minf(maxf(floorf(65535.0f * in[y * w + x] + 0.5f), 0.0f), 65535.0f);
}

/* ssc's sink: key(id, it) · Σ mix(y·w + x, bits(value)). */
static uint64_t sink(const float *in, int64_t w, int64_t h, uint32_t id, uint64_t it)
{
    uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int64_t y = 0; y < h; y++)
        sum += peer_sink_rows(in, w, y, y + 1);
    return sum * peer_key(id, it);
}

static uint64_t sink16(const uint16_t *in, int64_t w, int64_t h, uint32_t id, uint64_t it)
{
    uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int64_t y = 0; y < h; y++)
        sum += peer_sink_rows16(in, w, y, y + 1);
    return sum * peer_key(id, it);
}

/* ---- buffers ------------------------------------------------------------ */

static uint64_t allocated;

/* A 64-byte aligned buffer of n elements of `size` bytes, zeroed (so
 * pre-faulted, like ssc's arenas), counted in `allocated`. */
static void *buffer(int64_t n, size_t size)
{
    size_t bytes = (size_t)n * size;
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "xray_omp: out of memory\n");
        exit(3);
    }
    memset(p, 0, bytes);
    allocated += bytes;
    return p;
}

static float *frame(int64_t w, int64_t h) { return buffer(w * h, sizeof(float)); }
static uint16_t *frame16(int64_t w, int64_t h) { return buffer(w * h, sizeof(uint16_t)); }

int main(int argc, char **argv)
{
    peer_options opt;
    peer_parse_args(&opt, "xray_omp", argc, argv);
    const int64_t R = opt.resolution, H = R / 2, Q = R / 4;

    /* One buffer per edge of the chain (18), as ssc's `-ms naive`. */
    uint16_t *raw = frame16(R, R), *archive_ = frame16(R, R);
    float *offset = frame(R, R), *gainmap = frame(R, R);
    float *subtract_ = frame(R, R), *flatfield = frame(R, R), *defect = frame(R, R);
    float *nr0 = frame(R, R), *down1 = frame(H, H), *nr1 = frame(H, H);
    float *down2_ = frame(Q, Q), *nr2 = frame(Q, Q), *up2_ = frame(H, H);
    float *merge1 = frame(H, H), *up1 = frame(R, R), *merge0 = frame(R, R);
    float *contrast_ = frame(R, R), *preview = frame(H, H);

    static const char *const in_names[3] = { "raw", "offset", "gainmap" };
    static const int in_types[3] = { PEER_U16, PEER_F32, PEER_F32 };
    peer_input in[3];
    if (opt.n_inputs)
        peer_load_inputs(&opt, 3, in_names, in_types, R, in);

    uint64_t *lat = peer_latencies(&opt);
    uint64_t checksum = 0;
    for (uint64_t i = 0; i < opt.iterations; i++) {
        if (opt.n_inputs) {
            raw = (uint16_t *)peer_frame(&in[0], i);
            offset = (float *)peer_frame(&in[1], i);
            gainmap = (float *)peer_frame(&in[2], i);
        }
        uint64_t t0 = peer_now_ns();
        if (!opt.n_inputs) {
            source16(raw, R, R, i);
            source(offset, R, R, i);
            source(gainmap, R, R, i);
        }
        subtract(subtract_, raw, offset, R, R);
        multiply(flatfield, subtract_, gainmap, R, R);
        median3x3(defect, flatfield, R, R);
        gauss3x3(nr0, defect, R, R);
        down2(down1, defect, H, H);
        gauss3x3(nr1, down1, H, H);
        down2(down2_, nr1, Q, Q);
        gauss3x3(nr2, down2_, Q, Q);
        up2(up2_, nr2, Q, Q);
        merge(merge1, nr1, up2_, 1.5f, H, H);
        up2(up1, merge1, H, H);
        merge(merge0, nr0, up1, 0.5f, R, R);
        contrast(contrast_, merge0, R, R);
        checksum += sink(contrast_, R, R, PEER_ID_DISPLAY, i);
        archive(archive_, contrast_, R, R);
        checksum += sink16(archive_, R, R, PEER_ID_STORE, i);
        down2(preview, contrast_, H, H);
        checksum += sink(preview, H, H, PEER_ID_MONITOR, i);
        lat[i] = peer_now_ns() - t0;
    }

    peer_report(&opt, omp_get_max_threads(), lat, opt.iterations, checksum, allocated);
    free(lat);
    if (opt.n_inputs)
        return 0;   /* raw, offset, gainmap point at the frames */
    void *all[] = { raw, offset, gainmap, subtract_, flatfield, defect, nr0, down1, nr1,
                    down2_, nr2, up2_, merge1, up1, merge0, contrast_, archive_, preview };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        free(all[k]);
    return 0;
}
