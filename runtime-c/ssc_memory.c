/* ssc_memory.c — arenas, and the buffers of -dm dynamic|reduced: one
 * allocation per use, block pools, and the dynbuf protocol of ssc_memory.h.
 * Messages go through the core's sink (ssc__message). -dm is a program's
 * (a library refuses it): an allocation that fails there ends the program
 * with exit status 3, since the iteration cannot go on without its buffer. */
#define _GNU_SOURCE
#include "ssc_memory.h"
#include "ssc_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE_BYTES ((size_t)2 << 20)   /* x86-64 default huge page */

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

int ssc_arena_init(ssc_arena *a, size_t bytes, int huge)
{
    a->base = NULL;
    a->bytes = bytes;
    a->mapped = 0;
    if (bytes == 0)
        return 0;
    void *p = MAP_FAILED;
    if (huge) {
        a->mapped = round_up(bytes, HUGE_PAGE_BYTES);
        p = mmap(NULL, a->mapped, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
        if (p == MAP_FAILED)
            ssc__message("warning: no huge pages for a %zu-byte arena (%s); "
                    "using normal pages with MADV_HUGEPAGE\n", bytes, strerror(errno));
    }
    if (p == MAP_FAILED) {
        a->mapped = round_up(bytes, (size_t)sysconf(_SC_PAGESIZE));
        p = mmap(NULL, a->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            ssc__message("cannot map a %zu-byte arena: %s\n", bytes, strerror(errno));
            return 3;
        }
        if (huge)
            madvise(p, a->mapped, MADV_HUGEPAGE);   /* a hint: failure is harmless */
    }
    a->base = p;
    memset(a->base, 0, bytes);   /* pre-fault now, not in the first iterations */
    return 0;
}

void ssc_arena_free(ssc_arena *a)
{
    if (a->base)
        munmap(a->base, a->mapped);
    a->base = NULL;
}

void *ssc_dyn_alloc(size_t bytes)
{
    void *p = aligned_alloc(64, round_up(bytes ? bytes : 1, 64));
    if (!p)
        ssc__message("out of memory allocating %zu bytes", bytes);
    return p;
}

void ssc_dyn_free(void *p) { free(p); }

struct ssc_pool {
    pthread_mutex_t lock;
    size_t block_bytes;
    void *free_list;         /* next pointer stored in the first bytes of a block */
    void **all;              /* every block, for destroy */
    size_t n_all, cap_all;
};

static void *pool_grow(ssc_pool *p)   /* called with the lock held */
{
    if (p->n_all == p->cap_all) {
        size_t cap = p->cap_all ? 2 * p->cap_all : 16;
        void **all = realloc(p->all, cap * sizeof *all);
        if (!all) {
            ssc__message("out of memory growing a block pool");
            return NULL;
        }
        p->all = all;
        p->cap_all = cap;
    }
    void *b = ssc_dyn_alloc(p->block_bytes);
    if (b)
        p->all[p->n_all++] = b;
    return b;
}

ssc_pool *ssc_pool_create(size_t block_bytes, unsigned preallocate)
{
    ssc_pool *p = calloc(1, sizeof *p);
    if (!p) {
        ssc__message("out of memory creating a block pool");
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->block_bytes = round_up(block_bytes < sizeof(void *) ? sizeof(void *) : block_bytes, 64);
    for (unsigned i = 0; i < preallocate; i++) {
        void *b = pool_grow(p);
        if (!b) {
            ssc_pool_destroy(p);
            return NULL;
        }
        ssc_pool_put(p, b);
    }
    return p;
}

void *ssc_pool_get(ssc_pool *p)
{
    pthread_mutex_lock(&p->lock);
    void *b = p->free_list;
    if (b)
        memcpy(&p->free_list, b, sizeof(void *));
    else
        b = pool_grow(p);
    pthread_mutex_unlock(&p->lock);
    return b;
}

void ssc_pool_put(ssc_pool *p, void *block)
{
    pthread_mutex_lock(&p->lock);
    memcpy(block, &p->free_list, sizeof(void *));
    p->free_list = block;
    pthread_mutex_unlock(&p->lock);
}

size_t ssc_pool_blocks(const ssc_pool *p) { return p->n_all; }

void ssc_pool_destroy(ssc_pool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_all; i++)
        free(p->all[i]);
    free(p->all);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* -dm: see ssc_rt.h for the protocol and why the port writes do not race. */
void ssc_dynbuf_init(ssc_dynbuf *d, size_t bytes, unsigned users, ssc_pool *pool,
                     ssc_port *const *ports, int n_ports)
{
    atomic_init(&d->state, SSC_DYN_FREE);
    atomic_init(&d->left, 0);
    d->data = NULL;
    d->users = users ? users : 1;
    d->bytes = bytes;
    d->pool = pool;
    d->ports = ports;
    d->n_ports = n_ports;
    d->allocations = 0;
}

void ssc_dyn_write(ssc_dynbuf *d)
{
    unsigned expected = SSC_DYN_FREE;
    if (atomic_compare_exchange_strong_explicit(&d->state, &expected, SSC_DYN_ALLOCATING,
                                                memory_order_acquire, memory_order_acquire)) {
        void *p = d->pool ? ssc_pool_get(d->pool) : ssc_dyn_alloc(d->bytes);
        if (!p)   /* -dm at run time: an iteration cannot go on without it */
            exit(3);
        d->data = p;
        d->allocations++;
        for (int i = 0; i < d->n_ports; i++)
            d->ports[i]->data = p;
        atomic_store_explicit(&d->left, d->users, memory_order_relaxed);
        atomic_store_explicit(&d->state, SSC_DYN_PUBLISHED, memory_order_release);
        return;
    }
    /* Another writer of this iteration allocates: a short wait. */
    unsigned spins = 0;
    while (atomic_load_explicit(&d->state, memory_order_acquire) != SSC_DYN_PUBLISHED) {
        if (++spins > 1000)
            sched_yield();
    }
}

void ssc_dyn_done(ssc_dynbuf *d)
{
    if (atomic_fetch_sub_explicit(&d->left, 1, memory_order_acq_rel) != 1)
        return;
    /* The last access of this iteration: every other one happened before. */
    void *p = d->data;
    d->data = NULL;
    if (d->pool)
        ssc_pool_put(d->pool, p);
    else
        ssc_dyn_free(p);
    atomic_store_explicit(&d->state, SSC_DYN_FREE, memory_order_release);
}

void ssc_dynbuf_destroy(ssc_dynbuf *d)
{
    if (d->data && !d->pool)
        ssc_dyn_free(d->data);
    d->data = NULL;
}

