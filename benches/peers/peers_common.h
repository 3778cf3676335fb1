/* peers_common.h — what the hand-written peers of ssc's X-ray chain share:
 * the command line, the clock, ssc's checksum formula (runtime-c/README.md,
 * "Checksum") and ssc's latency report (same statistics, same format).
 *
 * Header-only (static functions), C11 (`-std=c11`, as ssc compiles its
 * programs: ISO C mode, so gcc contracts no a * b + c into a fused
 * multiply-add, which would round once where ssc's C rounds twice), no
 * dependency but libc and libm. */
#ifndef PEERS_COMMON_H
#define PEERS_COMMON_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#endif

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the chain's constants, taken from the generated xray.c ------------
 * Function ids are the instances' stable ids (`ssc_box_init`'s id): the
 * sources raw, offset, gainmap are 0, 1, 2; the sinks display 16, store 18
 * (ushort), monitor 20 (float). The chain composes at R x R (default 512); its explicit
 * sub-resolutions are R/2 (down1, nr1, merge1, up1's input, preview) and
 * R/4 (down2, nr2, up2's input). */
enum { PEER_ID_DISPLAY = 16, PEER_ID_STORE = 18, PEER_ID_MONITOR = 20 };

/* ---- checksum: exactly ssc_rt.c / ssc_kernel.h -------------------------- */

static inline uint64_t peer_splitmix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* key(id, i) = splitmix64((id << 32) ^ splitmix64(i)) | 1 */
static inline uint64_t peer_key(uint32_t id, uint64_t iteration)
{
    return peer_splitmix64(((uint64_t)id << 32) ^ peer_splitmix64(iteration)) | 1u;
}

/* mix(p, w) of a value of at most 32 bits, w its word (ssc_mix_word), from
 * the scaled position p · 0x9E3779B9 mod 2^32: the row loops step it
 * instead of multiplying per element, as ssc's sinks do. */
#define PEER_MIX_POSITION 0x9E3779B9u
static inline uint64_t peer_mix(uint32_t scaled_position, uint32_t word)
{
    uint32_t t = (word ^ scaled_position) * 0x85EBCA6Bu;
    return t ^ (t >> 16);
}

static inline uint32_t peer_float_bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* Σ over rows [y0, y1) of a dense w-wide grid of mix(y·w + x, bits): a
 * sink's inner sum; the caller multiplies by peer_key(id, i). WORD turns
 * an element into its 32-bit word. */
#define PEER_SINK_ROWS(T, WORD)                                               \
    uint64_t sum = 0;                                                         \
    for (int64_t y = y0; y < y1; y++) {                                       \
        const T *row = grid + y * w;                                          \
        uint32_t scaled = (uint32_t)((uint64_t)y * (uint64_t)w) * PEER_MIX_POSITION; \
        for (int64_t x = 0; x < w; x++, scaled += PEER_MIX_POSITION)          \
            sum += peer_mix(scaled, WORD(row[x]));                            \
    }                                                                         \
    return sum

static inline uint64_t peer_sink_rows(const float *grid, int64_t w, int64_t y0, int64_t y1)
{
    PEER_SINK_ROWS(float, peer_float_bits);
}

/* The same for a w-wide 16-bit grid (a ushort sink: the value's bits are
 * the value). */
static inline uint64_t peer_sink_rows16(const uint16_t *grid, int64_t w, int64_t y0, int64_t y1)
{
    PEER_SINK_ROWS(uint16_t, (uint32_t));
}

/* The same for a w-wide 8-bit grid (a uchar sink). */
static inline uint64_t peer_sink_rows8(const uint8_t *grid, int64_t w, int64_t y0, int64_t y1)
{
    PEER_SINK_ROWS(uint8_t, (uint32_t));
}

/* ---- the source pattern: exactly ssc_kernels_io.c's func_source ---------
 * element (x, y) of iteration i: p = (7x + 13y + 31i) mod 251; a ushort
 * source (raw) gives p, a float one (offset, gainmap) (p - 125) / 8
 * computed in double and rounded to float (exact anyway). */
static inline uint64_t peer_source_pattern(int64_t x, int64_t y, uint64_t iteration)
{
    return ((uint64_t)x * 7 + (uint64_t)y * 13 + iteration * 31) % 251;
}

static inline float peer_source_value(uint64_t p)
{
    return (float)(((double)p - 125.0) / 8.0);
}

/* ---- clock ------------------------------------------------------------- */

static inline uint64_t peer_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- command line ------------------------------------------------------ */

#define PEER_MAX_INPUTS 4

typedef struct {
    const char *program;
    int n_inputs;                          /* --input NAME=PATH, in order given */
    const char *input_name[PEER_MAX_INPUTS];
    const char *input_path[PEER_MAX_INPUTS];
    uint64_t iterations;   /* --iterations N (default 1000, as ssc's -ic) */
    int64_t resolution;    /* --resolution R or a bare R (default 512) */
    int json;              /* --json */
} peer_options;

static void peer_usage(const char *program, FILE *f)
{
    fprintf(f,
            "usage: %s [RESOLUTION] [--resolution R] [--iterations N] [--json]\n"
            "          [--input NAME=PATH ...]\n"
            "  the X-ray chain at R x R (default 512; R a multiple of 4),\n"
            "  N frames one after the other (default 1000); prints ssc's latency\n"
            "  report (us), the checksum and the bytes of buffers allocated;\n"
            "  --input as ssc's programs: NAME=FILE or NAME=FOLDER (16-bit PGM,\n"
            "  PFM), every frame read into memory before the first; iteration i\n"
            "  takes frame i mod frames\n",
            program);
}

static int64_t peer_parse_int(const char *program, const char *what, const char *s)
{
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (!s[0] || *end || v < 1) {
        fprintf(stderr, "%s: %s: `%s` is not a positive integer\n", program, what, s);
        exit(2);
    }
    return (int64_t)v;
}

static void peer_parse_args(peer_options *o, const char *program, int argc, char **argv)
{
    o->program = program;
    o->iterations = 1000;
    o->resolution = 512;
    o->json = 0;
    o->n_inputs = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            peer_usage(program, stdout);
            exit(0);
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (!strcmp(a, "--iterations") && i + 1 < argc) {
            o->iterations = (uint64_t)peer_parse_int(program, a, argv[++i]);
        } else if (!strcmp(a, "--resolution") && i + 1 < argc) {
            o->resolution = peer_parse_int(program, a, argv[++i]);
        } else if (!strcmp(a, "--input") && i + 1 < argc) {
            const char *v = argv[++i], *eq = strchr(v, '=');
            if (!eq || eq == v || o->n_inputs == PEER_MAX_INPUTS) {
                fprintf(stderr, "%s: --input `%s`: NAME=PATH expected\n", program, v);
                exit(2);
            }
            char *name = strndup(v, (size_t)(eq - v));
            o->input_name[o->n_inputs] = name;
            o->input_path[o->n_inputs++] = eq + 1;
        } else if (a[0] >= '0' && a[0] <= '9') {
            o->resolution = peer_parse_int(program, "resolution", a);
        } else {
            fprintf(stderr, "%s: unknown option `%s`\n", program, a);
            peer_usage(program, stderr);
            exit(2);
        }
    }
    if (o->resolution % 4 != 0) {
        fprintf(stderr, "%s: the resolution %" PRId64 " is not a multiple of 4\n", program,
                o->resolution);
        exit(2);
    }
}

/* ---- frames in memory (--input): ssc_image.c's formats ----------------------
 * Binary PGM (P5, 8 or 16 bit big-endian) and greyscale PFM (Pf, the sign
 * of the scale gives the byte order, bottom row first), converted exactly
 * into the port's type (u16 or f32). A folder gives its files in name
 * order, one frame each; a file is the same frame for every frame. All is
 * read before the first frame, as ssc's programs do. */

#include <dirent.h>
#include <sys/stat.h>

enum { PEER_U16 = 16, PEER_F32 = 32 };

typedef struct {
    int n;          /* frames */
    void **frame;   /* n dense R x R grids of the port's type */
} peer_input;

static void peer_die_input(const char *path, const char *why)
{
    fprintf(stderr, "peer: %s: %s\n", path, why);
    exit(1);
}

static void *peer_read_image(const char *path, int type, int64_t R)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        peer_die_input(path, "cannot open");
    char magic[3] = { 0 };
    if (fread(magic, 1, 2, f) != 2)
        peer_die_input(path, "truncated");
    char field[3][32];
    for (int k = 0; k < 3; k++) {
        int c;
        while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\r' || c == '\t'))
            ;
        int len = 0;
        while (c != EOF && !(c == ' ' || c == '\n' || c == '\r' || c == '\t') && len < 31) {
            field[k][len++] = (char)c;
            c = fgetc(f);
        }
        field[k][len] = 0;
    }
    int64_t w = atoll(field[0]), h = atoll(field[1]);
    if (w != R || h != R)
        peer_die_input(path, "not the port's R x R");
    size_t n = (size_t)(R * R);
    void *out = aligned_alloc(64, (n * (size_t)(type / 8) + 63) / 64 * 64);
    if (!out)
        peer_die_input(path, "out of memory");
    if (!strcmp(magic, "P5")) {
        long maxval = atol(field[2]);
        size_t bpp = maxval > 255 ? 2 : 1;
        uint8_t *b = malloc(n * bpp);
        if (!b || fread(b, bpp, n, f) != n)
            peer_die_input(path, "truncated");
        for (size_t k = 0; k < n; k++) {
            unsigned v = bpp == 2 ? (unsigned)b[2 * k] << 8 | b[2 * k + 1] : b[k];
            if (type == PEER_U16)
                ((uint16_t *)out)[k] = (uint16_t)v;
            else
                ((float *)out)[k] = (float)v;
        }
        free(b);
    } else if (!strcmp(magic, "Pf") && type == PEER_F32) {
        int little = atof(field[2]) < 0;
        uint8_t *b = malloc(n * 4);
        if (!b || fread(b, 4, n, f) != n)
            peer_die_input(path, "truncated");
        for (int64_t r = 0; r < R; r++)      /* bottom row first */
            for (int64_t c = 0; c < R; c++) {
                const uint8_t *p = b + 4 * (size_t)(r * R + c);
                uint32_t u = little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 |
                                          (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                                    : (uint32_t)p[3] | (uint32_t)p[2] << 8 |
                                          (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
                memcpy((float *)out + (R - 1 - r) * R + c, &u, 4);
            }
        free(b);
    } else {
        peer_die_input(path, "not a binary PGM or a PFM the port can hold");
    }
    fclose(f);
    return out;
}

static int peer_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void peer_load(peer_input *in, const char *path, int type, int64_t R)
{
    struct stat st;
    if (stat(path, &st))
        peer_die_input(path, "missing");
    if (!S_ISDIR(st.st_mode)) {
        in->n = 1;
        in->frame = malloc(sizeof *in->frame);
        in->frame[0] = peer_read_image(path, type, R);
        return;
    }
    DIR *d = opendir(path);
    if (!d)
        peer_die_input(path, "cannot open the folder");
    char **names = NULL;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, (size_t)(n + 1) * sizeof *names);
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (!n)
        peer_die_input(path, "an empty folder");
    qsort(names, (size_t)n, sizeof *names, peer_cmp_str);
    in->n = n;
    in->frame = malloc((size_t)n * sizeof *in->frame);
    for (int k = 0; k < n; k++) {
        in->frame[k] = peer_read_image(names[k], type, R);
        free(names[k]);
    }
    free(names);
}

/* Loads the inputs a program declares (names[k] of type types[k]) from
 * --input; every one is required. Returns the number of frames (that of
 * the folders; 1 when all are files). */
static int peer_load_inputs(const peer_options *o, int count, const char *const *names,
                            const int *types, int64_t R, peer_input *in)
{
    int frames = 1;
    for (int k = 0; k < count; k++) {
        const char *path = NULL;
        for (int j = 0; j < o->n_inputs; j++)
            if (!strcmp(o->input_name[j], names[k]))
                path = o->input_path[j];
        if (!path) {
            fprintf(stderr, "%s: --input %s=PATH is required\n", o->program, names[k]);
            exit(2);
        }
        peer_load(&in[k], path, types[k], R);
        if (in[k].n > 1) {
            if (frames > 1 && in[k].n != frames) {
                fprintf(stderr, "%s: the input folders hold different numbers of frames\n",
                        o->program);
                exit(1);
            }
            frames = in[k].n;
        }
    }
    return frames;
}

/* Input k's frame for iteration i (frame i mod frames; a file: its one). */
static inline const void *peer_frame(const peer_input *in, uint64_t i)
{
    return in->frame[in->n == 1 ? 0 : i % (uint64_t)in->n];
}

/* ---- report: ssc_stats.c's statistics, ssc_program.c's format ------------- */

static int peer_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest rank, as ssc_stats.c. */
static uint64_t peer_nearest_rank(const uint64_t *sorted, uint64_t n, double pct)
{
    double r = pct / 100.0 * (double)n - 1e-9;
    uint64_t rank = (uint64_t)r;
    if ((double)rank < r)
        rank++;
    return sorted[rank ? rank - 1 : 0];
}

/* Sorts `ns` (latencies in ns) and prints the report. */
static void peer_report(const peer_options *o, int threads, uint64_t *ns, uint64_t n,
                        uint64_t checksum, uint64_t bytes)
{
    qsort(ns, (size_t)n, sizeof *ns, peer_cmp_u64);
    double sum = 0, sq = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += (double)ns[i];
    double mean = n ? sum / (double)n : 0.0;
    for (uint64_t i = 0; i < n; i++)
        sq += ((double)ns[i] - mean) * ((double)ns[i] - mean);
    double sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
    double mn = n ? (double)ns[0] : 0, mx = n ? (double)ns[n - 1] : 0;
    double p50 = n ? (double)peer_nearest_rank(ns, n, 50) : 0;
    double p99 = n ? (double)peer_nearest_rank(ns, n, 99) : 0;
    double p999 = n ? (double)peer_nearest_rank(ns, n, 99.9) : 0;
    if (o->json) {
        printf("{\"program\": \"%s\", \"threads\": %d, \"iterations\": %" PRIu64
               ", \"requested\": %" PRIu64 ", \"stopped_by_signal\": false,\n"
               " \"resolution\": %" PRId64 ", \"memory_bytes\": %" PRIu64 ",\n"
               " \"latency_us\": {\"count\": %" PRIu64 ", \"mean\": %.3f, \"stddev\": %.3f, "
               "\"min\": %.3f, \"p50\": %.3f, \"p99\": %.3f, \"p99_9\": %.3f, \"max\": %.3f},\n"
               " \"checksum\": \"0x%016" PRIx64 "\"}\n",
               o->program, threads, n, o->iterations, o->resolution, bytes, n, mean / 1e3,
               sd / 1e3, mn / 1e3, p50 / 1e3, p99 / 1e3, p999 / 1e3, mx / 1e3, checksum);
        return;
    }
    printf("program: %s, %d threads\n", o->program, threads);
    printf("iterations: %" PRIu64 " of %" PRIu64 "\n", n, o->iterations);
    printf("resolution: %" PRId64 "x%" PRId64 "\n", o->resolution, o->resolution);
    printf("memory (bytes): %" PRIu64 "\n", bytes);
    printf("latency (us): count %" PRIu64 "  mean %.3f  sd %.3f  min %.3f  p50 %.3f  "
           "p99 %.3f  p99.9 %.3f  max %.3f\n",
           n, mean / 1e3, sd / 1e3, mn / 1e3, p50 / 1e3, p99 / 1e3, p999 / 1e3, mx / 1e3);
    printf("checksum: 0x%016llx\n", (unsigned long long)checksum);
}

/* The latency array, or exit 3. */
static uint64_t *peer_latencies(const peer_options *o)
{
    uint64_t *ns = malloc((size_t)o->iterations * sizeof *ns);
    if (!ns) {
        fprintf(stderr, "%s: cannot allocate timers for %" PRIu64 " iterations\n", o->program,
                o->iterations);
        exit(3);
    }
    return ns;
}

#endif
