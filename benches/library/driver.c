/* driver.c — a chain through its library, fed the same frames the
 * program reads with --input (benches/library/run.py). Compile with
 * -DCHAIN=name -DCHAIN_UPPER=NAME -include name.h (xray, fluoro).
 *
 *   driver sync|async ITERATIONS FRAME_DIR
 *
 * FRAME_DIR/INPUT/f0.raw, f1.raw: frames of each of the chain's inputs,
 * read before the first frame; iteration i takes frame i mod 2, as the
 * program does. sync: NAME_process, one frame at a time; async:
 * NAME_submit/NAME_wait with two frames in flight. Prints the program's
 * report lines (latency in us, checksum). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(f) CAT(CHAIN, CAT(_, f))
#define UP(f) CAT(CHAIN_UPPER, CAT(_, f))
typedef CHAIN chain_t;

/* Frame k of input port i: n elements of the port's size. */
static void *load(const char *dir, int i, int k, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/f%d.raw", dir, API(inputs)[i].name, k);
    FILE *f = fopen(path, "rb");
    size_t size = API(inputs)[i].element_size;
    void *v = malloc(n * size);
    if (!f || !v || fread(v, size, n, f) != n) {
        fprintf(stderr, "driver: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: driver sync|async ITERATIONS FRAME_DIR\n");
        return 2;
    }
    int async = !strcmp(argv[1], "async");
    unsigned long long iterations = strtoull(argv[2], NULL, 10);
    size_t n = (size_t)(API(inputs)[0].width * API(inputs)[0].height);
    API(input) in[2][UP(INPUTS)];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < UP(INPUTS); i++)
            in[k][i] = (API(input)){ load(argv[3], i, k, n), 0 };
    void *outs[2][UP(OUTPUTS)];
    API(output) out[2][UP(OUTPUTS)];
    for (int k = 0; k < 2; k++)
        for (int o = 0; o < UP(OUTPUTS); o++) {
            outs[k][o] = malloc(API(outputs)[o].element_size *
                                (size_t)(API(outputs)[o].width * API(outputs)[o].height));
            out[k][o] = (API(output)){ outs[k][o], 0 };
        }
    chain_t *chain;
    API(options) opt;
    API(options_default)(&opt);
    opt.depth = 2;
    if (API(open)(&chain, &opt) != UP(OK)) {
        fprintf(stderr, "driver: %s\n", API(error)(NULL));
        return 3;
    }
    uint64_t frame;
    for (unsigned long long i = 0; i < iterations; i++) {
        int k = (int)(i % 2), status;
        if (!async) {
            status = API(process)(chain, in[k], out[k], NULL);
        } else {
            if (i >= 2 && (status = API(wait)(chain, &frame, NULL)) != UP(OK))
                break;
            status = API(submit)(chain, in[k], out[k], &frame);
        }
        if (status != UP(OK)) {
            fprintf(stderr, "driver: %s\n", API(error)(chain));
            return 3;
        }
    }
    for (unsigned long long i = 0; async && i < (iterations < 2 ? iterations : 2); i++)
        API(wait)(chain, &frame, NULL);
    API(stats) s;
    API(statistics)(chain, &s);
    printf("latency (us): count %llu  mean %.3f  sd %.3f  min %.3f  p50 %.3f  p99 %.3f  p99.9 %.3f  max %.3f\n",
           (unsigned long long)s.count, s.mean_ns / 1e3, s.stddev_ns / 1e3, s.min_ns / 1e3, s.p50_ns / 1e3,
           s.p99_ns / 1e3, s.p999_ns / 1e3, s.max_ns / 1e3);
    printf("checksum: 0x%016llx\n", (unsigned long long)API(checksum)(chain));
    API(close)(chain);
    return 0;
}
