/* harness.c — drives a chain built with `ssc build -t library` the way an
 * application does, for tests/it/library.rs. Compile with -DCHAIN=name and
 * -include name.h. Every input frame is the built-in source's pattern
 * (runtime-c/README.md: p = (7x + 13y + 31i) mod 251, then p − 125 for
 * signed, p for unsigned, (p − 125) / 8 for floating types), so the
 * checksum must be the executable's for the same number of iterations.
 *
 *   harness FRAMES [async] [reopen N]
 * prints "checksum: 0x…" and the latency statistics; exits 1 on an error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(f) CAT(CHAIN, CAT(_, f))
typedef CHAIN chain_t;
typedef API(port) port_t;
typedef API(input) input_t;
typedef API(output) output_t;

static void fill(void *data, const port_t *p, uint64_t it)
{
    for (int64_t y = 0; y < p->height; y++)
        for (int64_t x = 0; x < p->width; x++) {
            uint64_t q = ((uint64_t)x * 7 + (uint64_t)y * 13 + it * 31) % 251;
            size_t i = (size_t)(y * p->width + x);
            const char *t = p->type;
            if (!strcmp(t, "float"))
                ((float *)data)[i] = (float)(((double)q - 125.0) / 8.0);
            else if (!strcmp(t, "double"))
                ((double *)data)[i] = ((double)q - 125.0) / 8.0;
            else if (!strcmp(t, "signed char"))
                ((signed char *)data)[i] = (signed char)((int64_t)q - 125);
            else if (!strcmp(t, "unsigned char"))
                ((unsigned char *)data)[i] = (unsigned char)q;
            else if (!strcmp(t, "short"))
                ((short *)data)[i] = (short)((int64_t)q - 125);
            else if (!strcmp(t, "unsigned short"))
                ((unsigned short *)data)[i] = (unsigned short)q;
            else if (!strcmp(t, "int"))
                ((int *)data)[i] = (int)((int64_t)q - 125);
            else
                ((unsigned *)data)[i] = (unsigned)q;
        }
}

static int run(uint64_t frames, int async, int quiet)
{
    enum { N_IN = CAT(CHAIN_UPPER, _INPUTS), N_OUT = CAT(CHAIN_UPPER, _OUTPUTS), DEPTH = 2 };
    chain_t *c;
    if (API(open)(&c, NULL) != 0) {
        fprintf(stderr, "open: %s\n", API(error)(NULL));
        return 1;
    }
    void *in_data[DEPTH][N_IN + 1], *out_data[DEPTH][N_OUT + 1];
    input_t in[DEPTH][N_IN + 1];
    output_t out[DEPTH][N_OUT + 1];
    for (int d = 0; d < DEPTH; d++) {
        for (int i = 0; i < N_IN; i++) {
            const port_t *p = &API(inputs)[i];
            in_data[d][i] = malloc((size_t)(p->width * p->height) * p->element_size);
            in[d][i].data = in_data[d][i];
            in[d][i].stride = 0;
        }
        for (int o = 0; o < N_OUT; o++) {
            const port_t *p = &API(outputs)[o];
            out_data[d][o] = malloc((size_t)(p->width * p->height) * p->element_size);
            out[d][o].data = out_data[d][o];
            out[d][o].stride = 0;
        }
    }
    int status = 0;
    uint64_t waited = 0;
    for (uint64_t f = 0; f < frames && !status; f++) {
        int d = (int)(f % DEPTH);
        if (async && f >= DEPTH) {   /* the slot's previous frame first */
            uint64_t done;
            status |= API(wait)(c, &done, NULL) != 0 || done != waited++;
        }
        for (int i = 0; i < N_IN; i++)
            fill(in_data[d][i], &API(inputs)[i], f);
        if (async)
            status |= API(submit)(c, in[d], out[d], NULL) != 0;
        else
            status |= API(process)(c, in[d], out[d], NULL) != 0;
    }
    while (async && waited < frames && !status) {
        uint64_t done;
        status |= API(wait)(c, &done, NULL) != 0 || done != waited++;
    }
    if (status)
        fprintf(stderr, "run: %s\n", API(error)(c));
    API(stats) s;
    API(statistics)(c, &s);
    if (!quiet) {
        printf("checksum: 0x%016" PRIx64 "\n", API(checksum)(c));
        printf("latency (us): count %" PRIu64 "  mean %.3f  sd %.3f  min %.3f  p50 %.3f  "
               "p99 %.3f  p99.9 %.3f  max %.3f\n", s.count, s.mean_ns / 1e3, s.stddev_ns / 1e3,
               s.min_ns / 1e3, s.p50_ns / 1e3, s.p99_ns / 1e3, s.p999_ns / 1e3, s.max_ns / 1e3);
    }
    API(close)(c);
    for (int d = 0; d < DEPTH; d++) {
        for (int i = 0; i < N_IN; i++)
            free(in_data[d][i]);
        for (int o = 0; o < N_OUT; o++)
            free(out_data[d][o]);
    }
    return status;
}

int main(int argc, char **argv)
{
    uint64_t frames = argc > 1 ? strtoull(argv[1], NULL, 10) : 10;
    int async = argc > 2 && !strcmp(argv[2], "async");
    uint64_t reopen = argc > 3 && !strcmp(argv[2], "reopen") ? strtoull(argv[3], NULL, 10) : 0;
    for (uint64_t r = 0; r < reopen; r++)   /* open, run, close, again */
        if (run(frames, 0, 1))
            return 1;
    return run(frames, async, 0) ? 1 : 0;
}
