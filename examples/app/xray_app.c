/* xray_app.c — the X-ray chain called from an application (README, "Use it
 * from your code"). Build the library, then this program:
 *
 *   ssc build examples/xray.ssc -t library -ts fused 2 -od build/xray-lib
 *   cc -O2 -Ibuild/xray-lib examples/app/xray_app.c build/xray-lib/libxray.a -pthread -lm
 *
 * or against the shared library, as pkg-config says (its rpath lets the
 * program find libxray.so where ssc built it, without LD_LIBRARY_PATH):
 *
 *   cc -O2 examples/app/xray_app.c $(PKG_CONFIG_PATH=build/xray-lib pkg-config --cflags --libs xray)
 */
#include <stdio.h>
#include <stdlib.h>
#include "xray.h"

int main(void)
{
    xray *chain;
    if (xray_open(&chain, NULL) != XRAY_OK) {   /* threads pinned as built */
        fprintf(stderr, "xray: %s\n", xray_error(NULL));
        return 1;
    }
    enum { W = 512, H = 512 };   /* xray_inputs[i].width, .height */
    unsigned short *raw = malloc(sizeof(unsigned short) * W * H);   /* 16-bit counts */
    float *offset = malloc(sizeof(float) * W * H), *gain = malloc(sizeof(float) * W * H);
    float *display = malloc(sizeof(float) * W * H);
    for (int i = 0; i < W * H; i++)
        offset[i] = 1000.0f, gain[i] = 1.0f;   /* the dark level; a flat gain */
    xray_input in[XRAY_INPUTS] = { { raw, 0 }, { offset, 0 }, { gain, 0 } };
    xray_output out[XRAY_OUTPUTS] = { { display, 0 }, { NULL, 0 }, { NULL, 0 } };
    for (int frame = 0; frame < 100; frame++) {
        for (int y = 0; y < H; y++)   /* a disc that moves right, on a ramp */
            for (int x = 0; x < W; x++) {
                int dx = x - 100 - 3 * frame, dy = y - H / 2;
                raw[y * W + x] = (unsigned short)(1000 + 8000 * y / H + (dx * dx + dy * dy < 60 * 60 ? 6000 : 0));
            }
        if (xray_process(chain, in, out, NULL) != XRAY_OK) {
            fprintf(stderr, "xray: %s\n", xray_error(chain));
            return 1;
        }
    }
    xray_stats s;
    xray_statistics(chain, &s);
    printf("%llu frames, latency mean %.1f us, p99 %.1f us; display centre %.3f\n",
           (unsigned long long)s.count, s.mean_ns / 1e3, s.p99_ns / 1e3,
           display[H / 2 * W + 400]);
    xray_close(chain);
    free(raw), free(offset), free(gain), free(display);
    return 0;
}
