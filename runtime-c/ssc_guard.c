/* ssc_guard.c — `ssc build --check-kernels`: the rings of a folded buffer
 * behind a guard of PROT_NONE pages (ssc_memory.h). A kernel that touches
 * the guard faults; the fault handler names the sub-box (the core's record
 * of the thread), the buffer and the row, and ends the process with
 * SSC_EXIT_KERNEL: a checking build's one verdict. */
#define _GNU_SOURCE
#include "ssc_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static ssc_guard *guards;   /* every guard made, for the fault handler */

/* A fault inside a guard: a kernel addressed a row of a folded buffer
 * without SSC_ROW. Names what ran and exits; any other fault is left to
 * the default action. */
static void guard_fault(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    const char *addr = si->si_addr;
    for (const ssc_guard *g = guards; g; g = g->next) {
        const char *base = g->data;
        if (addr < base || addr >= base + g->guard_bytes)
            continue;
        const char *box = "no sub-box";
        uint64_t iter = 0;
        ssc_thread *t = ssc__this_thread();
        if (t) {
            int b = atomic_load_explicit(&t->running, memory_order_relaxed) - 1;
            if (b >= 0 && b < rt.n_boxes)
                box = rt.boxes[b].name;
            iter = t->iter;
        }
        char msg[512];
        int n = snprintf(msg, sizeof msg,
                         "%s: --check-kernels: sub-box %s of iteration %" PRIu64 " touched row %"
                         PRId64 " of %s outside its rings: a kernel that says ROWS must address "
                         "every row through SSC_ROW (runtime-c/README.md, \"Storage folding\")\n",
                         ssc__prog_name, box, iter, (int64_t)((addr - base) / g->row_bytes), g->label);
        if (n > 0) {
            ssize_t w = write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
            (void)w;
        }
        _exit(SSC_EXIT_KERNEL);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

int ssc_guard_init(ssc_guard *g, const char *label, int64_t row_bytes, int64_t height,
                   int64_t ring_rows)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t grid = (size_t)row_bytes * (size_t)height;
    g->guard_bytes = (grid + page - 1) / page * page;
    g->ring0 = (int64_t)((g->guard_bytes + (size_t)row_bytes - 1) / (size_t)row_bytes);
    g->row_bytes = row_bytes;
    g->bytes = (size_t)(g->ring0 + ring_rows) * (size_t)row_bytes;
    g->label = label;
    g->data = mmap(NULL, g->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->data == MAP_FAILED || mprotect(g->data, g->guard_bytes, PROT_NONE)) {
        ssc__message("cannot map the guarded rings of %s (%zu bytes): %s", label, g->bytes,
                     strerror(errno));
        g->data = NULL;
        return 3;
    }
    if (!guards) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = guard_fault;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, NULL);
    }
    g->next = guards;
    guards = g;
    return 0;
}

void ssc_guard_free(ssc_guard *g)
{
    for (ssc_guard **p = &guards; *p; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            break;
        }
    if (g->data)
        munmap(g->data, g->bytes);
    g->data = NULL;
}
