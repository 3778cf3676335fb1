/* ssc_memory.h — where a chain's buffers live: arenas at fixed offsets,
 * -dm's per-iteration buffers (pools and dynbufs), and --check-kernels'
 * guarded rings (ssc_memory.c, ssc_guard.c). */
#ifndef SSC_MEMORY_H
#define SSC_MEMORY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ssc_kernel.h"

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

/* A 64-byte aligned (page aligned) block holding buffers at fixed offsets.
 * The shared arena and each thread's local arena are one of these. */
typedef struct {
    unsigned char *base;
    size_t bytes;       /* usable bytes, as asked */
    size_t mapped;      /* bytes mapped (rounded to pages) */
} ssc_arena;

/* Maps and zeroes (pre-faults) `bytes`. huge: try MAP_HUGETLB, else fall
 * back to normal pages + MADV_HUGEPAGE with a warning. Returns 0, or 3
 * after a message. */
int ssc_arena_init(ssc_arena *a, size_t bytes, int huge);
void ssc_arena_free(ssc_arena *a);

/* -dm dynamic: one 64-byte aligned allocation per use; NULL after a
 * message when memory is out (init_all then fails: open returns an error,
 * the program exits 3). */
void *ssc_dyn_alloc(size_t bytes);
void ssc_dyn_free(void *p);

/* -dm reduced: a pool of fixed-size 64-byte aligned blocks, reused.
 * get and put may be called from any thread (a mutex guards the list). */
typedef struct ssc_pool ssc_pool;
ssc_pool *ssc_pool_create(size_t block_bytes, unsigned preallocate); /* NULL: out of memory */
void *ssc_pool_get(ssc_pool *p);            /* grows the pool when empty; NULL: out of memory */
void ssc_pool_put(ssc_pool *p, void *block);
size_t ssc_pool_blocks(const ssc_pool *p);  /* blocks ever allocated */
void ssc_pool_destroy(ssc_pool *p);          /* NULL: nothing */

/* -dm dynamic / reduced: one buffer allocated per iteration at run time.
 *
 * The code generator orders every access of a buffer's iteration i before
 * every writer of its iteration i + 1 (coarse orderings: every reader and
 * every writer sub-box before every writer sub-box, one token), so at most
 * one instance of the buffer is live. Protocol, per iteration:
 *   - before each writer sub-box's E: ssc_dyn_write. The first writer of the
 *     iteration (CAS state FREE -> ALLOCATING) allocates, stores the pointer
 *     into the `data` of every port that refers to the buffer (the producer's
 *     OUT port, every reader's IN port), arms `left` and publishes (state
 *     PUBLISHED, release). The other writers wait (acquire) until published.
 *   - after each writer's and each reader's E: ssc_dyn_done. The last one
 *     of the iteration frees the block (or returns it to the pool) and
 *     resets the state to FREE (release).
 * The port structs are written only by the allocating writer, while no
 * sub-box of the previous iteration that reads them runs (the coarse
 * orderings) and before any sub-box of this iteration reads them: writers
 * after their acquire in ssc_dyn_write, readers after the signals of their
 * read-after-write dependencies on a writer. */
enum { SSC_DYN_FREE = 0, SSC_DYN_ALLOCATING = 1, SSC_DYN_PUBLISHED = 2 };

typedef struct {
    _Alignas(64) atomic_uint state;  /* SSC_DYN_* */
    atomic_uint left;                /* E's still to finish this iteration */
    void *data;                      /* the live block, NULL when FREE */
    unsigned users;                  /* writer + reader sub-boxes per iteration */
    size_t bytes;
    ssc_pool *pool;                  /* -dm reduced; NULL: malloc / free */
    ssc_port *const *ports;          /* every port whose data is this buffer */
    int n_ports;
    uint64_t allocations;            /* blocks taken (by the allocating writers) */
} ssc_dynbuf;

/* users: writer sub-boxes + reader sub-boxes of one iteration (> 0). */
void ssc_dynbuf_init(ssc_dynbuf *d, size_t bytes, unsigned users, ssc_pool *pool,
                     ssc_port *const *ports, int n_ports);
void ssc_dyn_write(ssc_dynbuf *d);   /* before a writer sub-box's E */
void ssc_dyn_done(ssc_dynbuf *d);    /* after a writer's or reader's E */
/* At clean-up: frees a block still live (a stopped run), then nothing. */
void ssc_dynbuf_destroy(ssc_dynbuf *d);

/* `ssc build --check-kernels`: a folded buffer behind a guard. `data` is
 * the start of `height` rows no access may touch (PROT_NONE pages), and
 * its rings start `ring0` rows after it, so SSC_ROW finds them while a
 * kernel that addresses `data + ey * stride` itself faults; the fault is
 * reported (the sub-box, its iteration, the buffer and row) and the
 * program exits with SSC_EXIT_KERNEL. */
#define SSC_EXIT_KERNEL 70
typedef struct ssc_guard {
    void *data;
    int64_t ring0;
    int64_t row_bytes;
    size_t guard_bytes, bytes;
    const char *label;
    struct ssc_guard *next;
} ssc_guard;
/* 0, or 3 after a message (out of memory). */
int ssc_guard_init(ssc_guard *g, const char *label, int64_t row_bytes, int64_t height,
                   int64_t ring_rows);
void ssc_guard_free(ssc_guard *g);

#endif /* SSC_MEMORY_H */
