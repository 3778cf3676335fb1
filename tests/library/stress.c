/* stress.c — several application threads calling one chain built with
 * `ssc build -t library` at once, for tests/it/library.rs. Compile
 * with -DCHAIN=name -DCHAIN_UPPER=NAME -include name.h.
 *
 *   stress process THREADS FRAMES [submit]
 *       every thread runs FRAMES frames of its own (three input frames it
 *       cycles through, different from every other thread's) through
 *       NAME_process (with `submit`: NAME_submit, retried while the chain
 *       is full, then NAME_wait_frame of its frame) and compares each
 *       output bit for bit with the output of the same inputs run alone
 *       before; prints "wrong outputs N of M" and exits 1 if N > 0 or a
 *       call failed.
 *   stress close THREADS MS TRIES
 *       TRIES times: open, THREADS threads calling NAME_process in a loop,
 *       NAME_close from the main thread after MS ms. Every call must return
 *       OK with the right outputs or EINVAL (closed), close within 1 s;
 *       prints the slowest close and exits 1 otherwise.
 *   stress hang WATCHDOG_MS
 *       for a chain whose kernel blocks forever in iteration 5: frames 0-4
 *       return OK; frame 5 (in a thread) returns ETIMEDOUT, by itself with
 *       a watchdog, else when the main thread closes the chain 100 ms
 *       later; close returns ERUNTIME within WATCHDOG_MS (1 s without
 *       one: close's own patience) + 1 s (the stuck
 *       threads are left), and a new open is refused with ERUNTIME. Prints
 *       what happened and exits 1 otherwise.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(f) CAT(CHAIN, CAT(_, f))
#define UPPER(c) CAT(CHAIN_UPPER, CAT(_, c))
typedef CHAIN chain_t;
typedef API(port) port_t;
typedef API(input) input_t;
typedef API(output) output_t;

enum { N_IN = UPPER(INPUTS), N_OUT = UPPER(OUTPUTS), SETS = 3, MAX_THREADS = 16 };

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static size_t bytes_of(const port_t *p) { return (size_t)(p->width * p->height) * p->element_size; }

/* Input frames that differ per (thread, set): a pseudo-random pattern of
 * whole bytes, valid for every element type (no NaN: the top byte of every
 * float is kept small). */
static void fill(void *data, const port_t *p, uint64_t seed)
{
    unsigned char *b = data;
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < bytes_of(p); i++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        b[i] = (unsigned char)(z >> 24);
        if (p->element_size >= 4 && i % p->element_size == p->element_size - 1)
            b[i] &= 0x3f;
    }
}

/* One thread's frames: SETS input sets, their reference outputs, and the
 * outputs its calls write. */
typedef struct {
    int index;
    uint64_t frames;
    int submit;
    void *in[SETS][N_IN + 1];
    void *ref[SETS][N_OUT + 1];
    void *got[N_OUT + 1];
    uint64_t wrong, failed, closed;
    int last_status;
} worker;

static chain_t *chain;

static void make_worker(worker *w, int index)
{
    memset(w, 0, sizeof *w);
    w->index = index;
    for (int s = 0; s < SETS; s++) {
        for (int i = 0; i < N_IN; i++) {
            w->in[s][i] = malloc(bytes_of(&API(inputs)[i]));
            fill(w->in[s][i], &API(inputs)[i], (uint64_t)(index * SETS + s) * 977 + (uint64_t)i);
        }
        for (int o = 0; o < N_OUT; o++)
            w->ref[s][o] = malloc(bytes_of(&API(outputs)[o]));
    }
    for (int o = 0; o < N_OUT; o++)
        w->got[o] = malloc(bytes_of(&API(outputs)[o]));
}

static void free_worker(worker *w)
{
    for (int s = 0; s < SETS; s++) {
        for (int i = 0; i < N_IN; i++)
            free(w->in[s][i]);
        for (int o = 0; o < N_OUT; o++)
            free(w->ref[s][o]);
    }
    for (int o = 0; o < N_OUT; o++)
        free(w->got[o]);
}

/* One frame of set s into `outs`, by process or by submit + wait_frame. */
static int one_frame(worker *w, int s, void **outs)
{
    input_t in[N_IN + 1];
    output_t out[N_OUT + 1];
    for (int i = 0; i < N_IN; i++)
        in[i] = (input_t){ w->in[s][i], 0 };
    for (int o = 0; o < N_OUT; o++)
        out[o] = (output_t){ outs[o], 0 };
    if (!w->submit)
        return API(process)(chain, in, out, NULL);
    uint64_t frame;
    int status;
    while ((status = API(submit)(chain, in, out, &frame)) == UPPER(EBUSY))
        sched_yield();
    return status ? status : API(wait_frame)(chain, frame, NULL);
}

static int references(worker *w)
{
    for (int s = 0; s < SETS; s++) {
        int status = one_frame(w, s, w->ref[s]);
        if (status) {
            fprintf(stderr, "reference of thread %d: %s\n", w->index, API(error)(chain));
            return 1;
        }
    }
    return 0;
}

/* Runs frames until w->frames are done (0: until a call fails; then the
 * outputs are fresh blocks freed as soon as the call returns, as a
 * garbage-collected caller's are: under AddressSanitizer a write after the
 * call returned is a use after free). */
static void *work(void *p)
{
    worker *w = p;
    for (uint64_t f = 0; !w->frames || f < w->frames; f++) {
        int s = (int)(f % SETS);
        void *fresh[N_OUT + 1];
        for (int o = 0; o < N_OUT && !w->frames; o++)
            fresh[o] = malloc(bytes_of(&API(outputs)[o]));
        int status = one_frame(w, s, w->frames ? w->got : fresh);
        if (!w->frames) {
            for (int o = 0; o < N_OUT; o++) {
                if (!status)
                    memcpy(w->got[o], fresh[o], bytes_of(&API(outputs)[o]));
                free(fresh[o]);
            }
        }
        w->last_status = status;
        if (status == UPPER(EINVAL) && !w->frames) {   /* closed under us */
            w->closed++;
            break;
        }
        if (status) {
            fprintf(stderr, "thread %d frame %" PRIu64 ": status %d: %s\n", w->index, f, status,
                    API(error)(chain));
            w->failed++;
            break;
        }
        for (int o = 0; o < N_OUT; o++)
            if (memcmp(w->got[o], w->ref[s][o], bytes_of(&API(outputs)[o])))
                w->wrong++;
    }
    return NULL;
}

static int open_chain(unsigned watchdog_ms)
{
    API(options) o;
    API(options_default)(&o);
    o.watchdog_ms = watchdog_ms;
    if (API(open)(&chain, &o) != UPPER(OK)) {
        fprintf(stderr, "open: %s\n", API(error)(NULL));
        return 1;
    }
    return 0;
}

static int stress_process(int n, uint64_t frames, int submit)
{
    worker *w = calloc((size_t)n, sizeof *w);
    pthread_t tid[MAX_THREADS];
    if (open_chain(0))
        return 1;
    for (int t = 0; t < n; t++) {
        make_worker(&w[t], t);
        w[t].frames = frames;
        w[t].submit = submit;
        if (references(&w[t]))
            return 1;
    }
    for (int t = 0; t < n; t++)
        pthread_create(&tid[t], NULL, work, &w[t]);
    uint64_t wrong = 0, failed = 0;
    for (int t = 0; t < n; t++) {
        pthread_join(tid[t], NULL);
        wrong += w[t].wrong;
        failed += w[t].failed;
    }
    if (API(close)(chain) != UPPER(OK))
        failed++;
    printf("wrong outputs %" PRIu64 " of %" PRIu64 " (%" PRIu64 " frames, %d outputs each), "
           "failed calls %" PRIu64 "\n", wrong, frames * (uint64_t)n * N_OUT, frames * (uint64_t)n,
           N_OUT, failed);
    for (int t = 0; t < n; t++)
        free_worker(&w[t]);
    free(w);
    return wrong || failed;
}

static int stress_close(int n, unsigned ms, int tries)
{
    worker *w = calloc((size_t)n, sizeof *w);
    pthread_t tid[MAX_THREADS];
    uint64_t slowest = 0, wrong = 0, failed = 0, closed = 0;
    for (int t = 0; t < n; t++)
        make_worker(&w[t], t);
    for (int k = 0; k < tries; k++) {
        if (open_chain(0))
            return 1;
        for (int t = 0; t < n; t++) {
            w[t].frames = 0;
            w[t].wrong = w[t].failed = w[t].closed = 0;
            if (k == 0 && references(&w[t]))
                return 1;
        }
        for (int t = 0; t < n; t++)
            pthread_create(&tid[t], NULL, work, &w[t]);
        struct timespec d = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };
        nanosleep(&d, NULL);
        uint64_t t0 = now_ns();
        int status = API(close)(chain);
        uint64_t took = now_ns() - t0;
        slowest = took > slowest ? took : slowest;
        if (status) {
            fprintf(stderr, "close: %s\n", API(error)(chain));
            failed++;
        }
        for (int t = 0; t < n; t++) {
            pthread_join(tid[t], NULL);
            wrong += w[t].wrong;
            failed += w[t].failed;
            closed += w[t].closed;
        }
    }
    printf("tries %d, slowest close %.1f ms, callers told closed %" PRIu64 ", wrong %" PRIu64
           ", failed %" PRIu64 "\n", tries, (double)slowest / 1e6, closed, wrong, failed);
    for (int t = 0; t < n; t++)
        free_worker(&w[t]);
    free(w);
    return wrong || failed || closed != (uint64_t)n * (uint64_t)tries || slowest > 1000000000u;
}

/* Frame 5 of the hanging chain, in a thread of its own. */
static void *stuck_frame(void *p)
{
    worker *w = p;
    uint64_t t0 = now_ns();
    w->last_status = one_frame(w, 0, w->got);
    printf("frame 5: status %d after %.0f ms: %s\n", w->last_status, (double)(now_ns() - t0) / 1e6,
           API(error)(chain));
    return NULL;
}

static int stress_hang(unsigned watchdog_ms)
{
    worker w;
    if (open_chain(watchdog_ms))
        return 1;
    make_worker(&w, 0);
    int bad = 0;
    /* Close's own patience without a watchdog is 1 s, then 100 ms to join. */
    uint64_t limit = (uint64_t)((watchdog_ms ? watchdog_ms : 1000) + 1000) * 1000000u;
    for (int f = 0; f < 5; f++) {
        int status = one_frame(&w, 0, w.got);
        printf("frame %d: status %d\n", f, status);
        bad |= status != UPPER(OK);
    }
    /* Frame 5 blocks: with a watchdog its call times out by itself; without
     * one, only close (from here, after 100 ms) ends it. */
    pthread_t tid;
    pthread_create(&tid, NULL, stuck_frame, &w);
    if (!watchdog_ms)
        nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
    else
        pthread_join(tid, NULL);
    uint64_t t0 = now_ns();
    int status = API(close)(chain);
    uint64_t took = now_ns() - t0;
    if (!watchdog_ms)
        pthread_join(tid, NULL);
    bad |= w.last_status != UPPER(ETIMEDOUT);
    printf("close: status %d after %.0f ms: %s\n", status, (double)took / 1e6, API(error)(chain));
    bad |= status != UPPER(ERUNTIME) || took > limit;
    /* The stuck instance keeps its threads and memory; a new instance is
     * its own and runs beside them (the hang is in frame 5: frames 0 to 4
     * of the new one finish). */
    chain_t *stuck = chain;
    status = API(open)(&chain, NULL);
    printf("open again: status %d: %s\n", status, API(error)(NULL));
    bad |= status != UPPER(OK);
    if (!status) {
        int failed = 0;
        for (int f = 0; f < 5; f++)
            failed |= one_frame(&w, 0, w.got) != UPPER(OK);
        status = API(close)(chain);
        printf("new instance: 5 frames %s, close: status %d\n", failed ? "failed" : "ok", status);
        bad |= failed || status != UPPER(OK);
    }
    chain = stuck;
    /* The stuck threads still use the chain's buffers and w's frames were
     * detached from it: freeing w is safe, the chain's memory is not. */
    free_worker(&w);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "process")) {
        int n = atoi(argv[2]);
        if (n < 1 || n > MAX_THREADS)
            return 2;
        return stress_process(n, strtoull(argv[3], NULL, 10), argc > 4 && !strcmp(argv[4], "submit"));
    }
    if (argc == 5 && !strcmp(argv[1], "close")) {
        int n = atoi(argv[2]);
        if (n < 1 || n > MAX_THREADS)
            return 2;
        return stress_close(n, (unsigned)atoi(argv[3]), atoi(argv[4]));
    }
    if (argc == 3 && !strcmp(argv[1], "hang"))
        return stress_hang((unsigned)atoi(argv[2]));
    fprintf(stderr, "usage: stress process THREADS FRAMES [submit] | close THREADS MS TRIES | hang MS\n");
    return 2;
}
