/* ssc_internal.h — what the runtime's own files share and nobody else
 * includes: the runtime's state (one per program, one per open library
 * instance), the futex helpers of ssc_sync.c, the core's message sink and
 * the thread start of ssc_rt.c that a program's main side
 * (ssc_program.c), the library (ssc_lib.c) and the guards (ssc_guard.c)
 * use. Every name here starts with `ssc__`; `rt` is the state of the
 * instance this thread works for. A file that includes this defines
 * _GNU_SOURCE first. */
#ifndef SSC_INTERNAL_H
#define SSC_INTERNAL_H

#include "ssc_rt.h"

#include <pthread.h>
#include <sched.h>

/* ---- ssc_sync.c: futex words and spinning --------------------------- */

/* Sleeps while *word == expected (returns at once when it differs: no
 * lost wake-up); the _ns form for at most ns (0: no bound). */
void ssc__futex_wait(atomic_uint *word, unsigned expected);
void ssc__futex_wait_ns(atomic_uint *word, unsigned expected, uint64_t ns);
void ssc__futex_wake(atomic_uint *word, int how_many);
/* Spins while *word == value, for at most the spin bound: 1 when the
 * word changed (read with acquire), 0 when the bound ran out. */
int ssc__spin_while_equal(atomic_uint *word, unsigned value);

/* One pause of a spin loop. */
static inline void ssc__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* ---- ssc_rt.c: messages ---------------------------------------------- */

/* A message of the runtime (a trailing newline is dropped): kept for
 * ssc_lib_message (this thread's last), and handed to the printer a
 * program installed (ssc__set_printer). The core itself never prints. */
__attribute__((format(printf, 1, 2))) void ssc__message(const char *fmt, ...);
/* Each calling thread's own last message (ssc_lib_message). */
extern _Thread_local char ssc__last_message[1024];
#define lib_message ssc__last_message
/* A program's printer of messages (ssc_program.c); NULL: none (a library). */
void ssc__set_printer(void (*print)(const char *message));
/* The program's name (argv[0]) that messages start with. */
extern const char *ssc__prog_name;

/* ---- ssc_rt.c: the runtime's state ------------------------------------ */

/* Set in `frontier` by SIGINT/SIGTERM: the frontier no longer moves. */
#define STOP_BIT ((uint64_t)1 << 63)
#define NOT_RECORDED UINT64_MAX

/* --overload skip|latest: the frame of an iteration in flight, until the
 * first of its source sub-boxes decides it (rt.frame_of). */
#define FRAME_UNDECIDED UINT64_MAX
#define FRAME_CLAIMED (UINT64_MAX - 1)   /* being decided: a moment */
#define FRAME_VOID (UINT64_MAX - 2)      /* no frame left: the run ends */
/* The indices of the first this many dropped frames are kept (the count is
 * exact whatever their number). */
#define SSC_DROPPED_KEPT 65536

/* Library mode: what the calls share (ssc_lib.c). */
struct ssc__lib {
    pthread_mutex_t lock;       /* everything below, and rt.stream */
    pthread_cond_t changed;     /* a slot freed, a call returned, close began,
                                   the chain stalled */
    int running;                /* started and not yet stopped: calls are taken */
    int closing;                /* close began: no new frame, waits still taken */
    int abandoned;              /* a close left stuck threads behind */
    atomic_int stalled;         /* the watchdog fired */
    unsigned callers;           /* calls inside, between enter and leave */
    uint64_t submitted;         /* frames submitted (rt.submitted publishes it) */
    unsigned char *slot_state;  /* SLOT_* of each of the rt.lat_slots slots */
    atomic_uint *begun;         /* per slot: 0 waiting, 1 begun by a source
                                   sub-box, 2 being replaced (latest) */
    struct ssc__start *args;    /* each thread's start */
    char stall[1024];           /* what was stuck when the watchdog fired */
};

/* One instance of the runtime: a program's (ssc__program), or each open
 * library's (ssc_lib_create). Nothing of it is shared between instances,
 * so instances run side by side in one process. */
struct ssc_runtime {
    ssc_options opt;
    int lib_mode;                   /* a library: calls return codes, no
                                       message is printed */
    atomic_uint_fast64_t spin_ns;   /* the spin bound of its waits */
    atomic_uint_fast64_t checksum;  /* what its sinks folded */
    int n_threads;
    cpu_set_t *cpusets;             /* thread i may run on cpusets[i] ... */
    int pinned;                     /* ... when this is set */
    /* One more than the highest iteration any thread has begun, or'ed with
     * STOP_BIT once a stop was asked for. */
    atomic_uint_fast64_t frontier;
    uint64_t t0, release0;          /* run start; release of iteration 0 */
    uint64_t completed;             /* iterations every thread finished */
    int stopped_by_signal;
    /* Per iteration in flight, ns since t0: first source start, last sink
     * end (slot i % lat_slots). */
    atomic_uint_fast64_t *lat_begin, *lat_end;
    /* A program: threads still to finish the iteration of each slot; the
     * last one summarises it into its own streaming statistics. */
    atomic_uint *lat_pending;
    ssc_stream_stats *streams;      /* one per thread, merged by ssc_finish */
    /* No thread begins k before every other has finished k - lead (0: no
     * bound): --max-lead, and in a program at most SSC_LATENCY_WINDOW - 1. */
    uint64_t lead;
    /* The dump's records, for iterations < trace_n (0 without a dump). */
    uint64_t trace_n;
    uint64_t *trace_lat;            /* [iteration][begin, end] */
    uint64_t *box_times;            /* -ta: [box][iteration][start, end] */
    uint64_t *thread_times;         /* -tt: [thread][iteration][busy, wait] */
    ssc_box *boxes;
    int n_boxes;
    ssc_thread *threads;
    atomic_flag fifo_warned;
    /* lat_begin/lat_end hold iteration i at i % lat_slots: the iterations in
     * flight (SSC_LATENCY_WINDOW) in a program, the frames in flight in a
     * library. */
    uint64_t lat_slots;
    /* External frames (library mode, or files given to a program): frame
     * slot s of external e at ext_frames[s * n_ext + e]; iteration i uses
     * slot i % ext_slots. */
    const ssc_external *ext;
    int n_ext;
    uint64_t ext_slots;
    ssc_frame *ext_frames;
    /* Library mode: frames submitted (published with release), a futex word
     * bumped by every submission and by the stop, and its sleepers. */
    atomic_uint_fast64_t submitted;
    atomic_uint bell;
    atomic_uint bell_sleepers;
    pthread_t *tids;
    ssc_stream_stats stream;        /* latencies of the frames waited for (a
                                       library), of every iteration (a program,
                                       after ssc_finish merged the threads') */
    /* --overload skip|latest: the frame of each iteration in flight (slot
     * i % lat_slots, FRAME_*), the next frame not yet taken or dropped, the
     * first iteration left without a frame (UINT64_MAX: none). Decisions
     * happen in iteration order (README, "Overload"). */
    atomic_uint_fast64_t *frame_of;
    atomic_uint_fast64_t next_frame;
    atomic_uint_fast64_t void_from;
    atomic_uint_fast64_t dropped;   /* frames dropped, exact */
    uint64_t *dropped_list;         /* the first SSC_DROPPED_KEPT of them */
    uint64_t *trace_frame;          /* the dump: [iteration][frame, ready ns] */
    ssc_conduct *conducts;          /* misses and slowest frames, per thread */
    ssc_conduct conduct;            /* merged by ssc_finish; the library's */
    atomic_int signalled;           /* SIGINT/SIGTERM arrived */
    atomic_uint exited;             /* threads whose code returned */
    atomic_uint events;             /* futex word of main: bumped by every
                                       thread's exit and by the stop signal */
    struct ssc__lib lib;            /* library mode */
    atomic_uint dl_started;         /* --sched-deadline: threads that tried
                                       their reservation (a futex word) */
    atomic_uint dl_gate;            /* 1 once main let them run (a futex word) */
};

/* The instance this thread works for: each thread of an instance points
 * at it from its start, each library call points the calling thread at
 * the instance it is given (ssc__enter). A thread that never did points
 * at the program's instance, so a program, and code that drives the
 * runtime by hand, needs nothing more. */
extern struct ssc_runtime ssc__program;
extern _Thread_local struct ssc_runtime *ssc__r;
#define rt (*ssc__r)

/* Points this thread at instance r; returns the instance it pointed at,
 * for ssc__leave. */
static inline struct ssc_runtime *ssc__enter(struct ssc_runtime *r)
{
    struct ssc_runtime *before = ssc__r;
    ssc__r = r;
    return before;
}
static inline void ssc__leave(struct ssc_runtime *before)
{
    ssc__r = before;
}
/* Sets a runtime's fields to those of a fresh instance. */
void ssc__runtime_reset(struct ssc_runtime *r);

/* The release time of frame f under --period-us (absolute ns). */
static inline uint64_t release_of(uint64_t f)
{
    return rt.release0 + f * rt.opt.period_ns;
}

/* ---- ssc_rt.c: threads ------------------------------------------------ */

/* Checks the cores (cores: thread i on cores[i]; else mask: every thread on
 * any of them; neither: not pinned), then takes the options, the spin
 * bound and --mlock. 0, or 3 after a message. */
int ssc__init_threads(const ssc_options *o, int n_threads, const int *cores, const int *mask,
                      int n_mask);

struct ssc__start { ssc_thread_fn fn; ssc_thread *self; struct ssc_runtime *instance; };
/* Creates thread i running arg->fn(arg->self) for instance arg->instance (its
 * ssc__r), with its affinity and, if
 * asked, SCHED_FIFO. 0, or the error after a message. */
int ssc__create_thread(pthread_t *tid, int i, struct ssc__start *arg);
/* Sub-boxes finished by every thread so far (only whether it moved matters). */
uint64_t ssc__progress_sum(void);
/* What thread j does, as a phrase; unit: "iteration" or "frame". */
int ssc__describe_thread(int j, const char *unit, char *buf, size_t n);
/* The runtime's record of the thread running here (NULL: not one of the
 * chain's threads). */
ssc_thread *ssc__this_thread(void);

/* ---- ssc_deadline.c: --sched-deadline -------------------------------- */

/* Thread i's reservation: runtime, deadline and period, ns. */
void ssc__deadline_params(int i, uint64_t *runtime, uint64_t *deadline, uint64_t *period);
/* In thread t at its start: takes its reservation (or, refused and asked
 * for, SCHED_FIFO), says so to main, and waits until main lets it run. */
void ssc__deadline_start(ssc_thread *t);
/* Main, once every thread was created: waits for each to try; 0 when all
 * run as asked, else 3 after a message per refused thread (the run is
 * stopped before its first iteration). */
int ssc__deadline_admit(void);
/* What the kernel said, as a hint ("EBUSY: admission control ..."). */
const char *ssc__deadline_why(int err);

/* ---- ssc_lib.c ------------------------------------------------------ */

/* A source sub-box begins library frame k (the overload's bookkeeping). */
void ssc__lib_begin_frame(uint64_t k);

#endif /* SSC_INTERNAL_H */
