/* xray_folder.c — a folder of 16-bit X-ray frames through the X-ray chain,
 * the results (its 16-bit archive output, `store`) written as 16-bit PGM
 * (README, "A folder of frames").
 *
 *   python3 examples/app/phantom.py build/phantom          # or your detector's frames
 *   ssc build examples/xray.ssc -t library -ts fused 2 -od build/xray-lib
 *   cc -O2 -Ibuild/xray-lib examples/app/xray_folder.c build/xray-lib/libxray.a -pthread -lm -o build/xray_folder
 *   build/xray_folder build/phantom build/phantom/out
 *
 * DIR holds dark.pgm and flat.pgm (the detector's calibration: no exposure,
 * exposure without an object) and raw/, the frames in name order. The
 * chain takes the frames as they are (16-bit counts), the dark frame as its
 * offset and mean(flat - dark) / (flat - dark) as its gain map. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "xray.h"

enum { W = 512, H = 512 };   /* xray_inputs[i].width, .height */

/* A binary 16-bit PGM of W x H pixels into v; 0 on success. */
static int read_pgm16(const char *path, unsigned short *v)
{
    FILE *f = fopen(path, "rb");
    int w = 0, h = 0, maxval = 0;
    if (!f || fscanf(f, "P5 %d %d %d", &w, &h, &maxval) != 3 || fgetc(f) == EOF || w != W || h != H ||
        maxval < 256) {
        fprintf(stderr, "%s: not a %dx%d 16-bit PGM\n", path, W, H);
        return f ? fclose(f), 1 : 1;
    }
    unsigned char *b = malloc(2 * W * H);
    size_t got = fread(b, 2, W * H, f);
    for (int i = 0; i < W * H; i++)
        v[i] = (unsigned short)(b[2 * i] << 8 | b[2 * i + 1]);
    free(b);
    fclose(f);
    return got == W * H ? 0 : (fprintf(stderr, "%s: truncated\n", path), 1);
}

static int write_pgm16(const char *path, const unsigned short *v)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    fprintf(f, "P5\n%d %d\n65535\n", W, H);
    for (int i = 0; i < W * H; i++)
        fputc(v[i] >> 8, f), fputc(v[i] & 255, f);
    return fclose(f);
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }
static int is_frame(const struct dirent *e) { return e->d_name[0] != '.'; }

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DIR OUT_DIR\n", argv[0]);
        return 2;
    }
    char path[4096];
    unsigned short *dark = malloc(2 * W * H), *flat = malloc(2 * W * H), *raw = malloc(2 * W * H);
    unsigned short *store = malloc(2 * W * H);
    float *offset = malloc(4 * W * H), *gain = malloc(4 * W * H);
    snprintf(path, sizeof path, "%s/dark.pgm", argv[1]);
    if (read_pgm16(path, dark))
        return 1;
    snprintf(path, sizeof path, "%s/flat.pgm", argv[1]);
    if (read_pgm16(path, flat))
        return 1;
    long long sum = 0;   /* offset = dark, gain = mean(flat - dark) / (flat - dark) */
    for (int i = 0; i < W * H; i++)
        sum += flat[i] - dark[i];
    double mean = (double)sum / (W * H);
    for (int i = 0; i < W * H; i++) {
        offset[i] = (float)dark[i];
        gain[i] = (float)(mean / (flat[i] - dark[i]));
    }

    xray *chain;
    if (xray_open(&chain, NULL) != XRAY_OK) {
        fprintf(stderr, "xray: %s\n", xray_error(NULL));
        return 1;
    }
    xray_input in[XRAY_INPUTS] = { { raw, 0 }, { offset, 0 }, { gain, 0 } };
    xray_output out[XRAY_OUTPUTS] = { { NULL, 0 }, { store, 0 }, { NULL, 0 } };   /* display, store, monitor */
    snprintf(path, sizeof path, "%s/raw", argv[1]);
    struct dirent **names;
    int n = scandir(path, &names, is_frame, by_name);
    if (n < 0) {
        perror(path);
        return 1;
    }
    mkdir(argv[2], 0777);
    for (int k = 0; k < n; k++) {
        snprintf(path, sizeof path, "%s/raw/%s", argv[1], names[k]->d_name);
        if (read_pgm16(path, raw))
            return 1;
        if (xray_process(chain, in, out, NULL) != XRAY_OK) {
            fprintf(stderr, "xray: %s\n", xray_error(chain));
            return 1;
        }
        snprintf(path, sizeof path, "%s/%s", argv[2], names[k]->d_name);
        if (write_pgm16(path, store)) {   /* the window 0..16000 of the corrected counts, 16-bit */
            perror(path);
            return 1;
        }
        free(names[k]);
    }
    free(names);
    xray_stats s;
    xray_statistics(chain, &s);
    printf("%llu frames, latency mean %.1f us, p99 %.1f us; checksum 0x%016llx\n",
           (unsigned long long)s.count, s.mean_ns / 1e3, s.p99_ns / 1e3,
           (unsigned long long)xray_checksum(chain));
    xray_close(chain);
    free(dark), free(flat), free(raw), free(store), free(offset), free(gain);
    return 0;
}
