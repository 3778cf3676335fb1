/* hog.c — a CPU hog that counts its loops: runs until SIGTERM/SIGINT, then
 * prints loops per second (what a reservation beside it costs it). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static volatile sig_atomic_t stop;
static void on_signal(int s) { (void)s; stop = 1; }

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    volatile uint64_t x = 0;
    uint64_t loops = 0;
    double t0 = now();
    while (!stop) {
        for (int i = 0; i < 10000; i++)
            x += (uint64_t)i;
        loops++;
    }
    printf("%.1f\n", (double)loops / (now() - t0));
    return 0;
}
