/* driver.c — the X-ray chain through its library, fed the same frames the
 * program reads with --input (benches/library/run.py).
 *
 *   driver sync|async ITERATIONS FRAME_DIR
 *
 * FRAME_DIR/{raw,offset,gainmap}/f0.raw, f1.raw: frames of the chain's
 * inputs (raw 16-bit, offset and gainmap float), read before the first frame; iteration i takes frame
 * i mod 2, as the program does. sync: xray_process, one frame at a time;
 * async: xray_submit/xray_wait with two frames in flight. Prints the
 * program's report lines (latency in us, checksum). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xray.h"

/* Frame k of input port i: n elements of the port's size. */
static void *load(const char *dir, int i, int k, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/f%d.raw", dir, xray_inputs[i].name, k);
    FILE *f = fopen(path, "rb");
    size_t size = xray_inputs[i].element_size;
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
    size_t n = (size_t)(xray_inputs[0].width * xray_inputs[0].height);
    xray_input in[2][XRAY_INPUTS];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < XRAY_INPUTS; i++)
            in[k][i] = (xray_input){ load(argv[3], i, k, n), 0 };
    void *outs[2][XRAY_OUTPUTS];
    xray_output out[2][XRAY_OUTPUTS];
    for (int k = 0; k < 2; k++)
        for (int o = 0; o < XRAY_OUTPUTS; o++) {
            outs[k][o] = malloc(xray_outputs[o].element_size *
                                (size_t)(xray_outputs[o].width * xray_outputs[o].height));
            out[k][o] = (xray_output){ outs[k][o], 0 };
        }
    xray *chain;
    xray_options opt;
    xray_options_default(&opt);
    opt.depth = 2;
    if (xray_open(&chain, &opt) != XRAY_OK) {
        fprintf(stderr, "driver: %s\n", xray_error(NULL));
        return 3;
    }
    uint64_t frame;
    for (unsigned long long i = 0; i < iterations; i++) {
        int k = (int)(i % 2), status;
        if (!async) {
            status = xray_process(chain, in[k], out[k], NULL);
        } else {
            if (i >= 2 && (status = xray_wait(chain, &frame, NULL)) != XRAY_OK)
                break;
            status = xray_submit(chain, in[k], out[k], &frame);
        }
        if (status != XRAY_OK) {
            fprintf(stderr, "driver: %s\n", xray_error(chain));
            return 3;
        }
    }
    for (unsigned long long i = 0; async && i < (iterations < 2 ? iterations : 2); i++)
        xray_wait(chain, &frame, NULL);
    xray_stats s;
    xray_statistics(chain, &s);
    printf("latency (us): count %llu  mean %.3f  sd %.3f  min %.3f  p50 %.3f  p99 %.3f  p99.9 %.3f  max %.3f\n",
           (unsigned long long)s.count, s.mean_ns / 1e3, s.stddev_ns / 1e3, s.min_ns / 1e3, s.p50_ns / 1e3,
           s.p99_ns / 1e3, s.p999_ns / 1e3, s.max_ns / 1e3);
    printf("checksum: 0x%016llx\n", (unsigned long long)xray_checksum(chain));
    xray_close(chain);
    return 0;
}
