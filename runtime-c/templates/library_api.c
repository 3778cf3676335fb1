
/* ---- 4. the library API (see {{ name }}.h) -------------------------------- */

#include "{{ name }}.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

/* The external ports: a source bound to func_source is an input, a sink
 * bound to func_sink an output (function ids as in the box table). */
static const ssc_external externals[{{ externals.len() }}] = {
{%- for e in externals %}
    { {{ e.function_id }}, {% if e.output %}1{% else %}0{% endif %} },  /* {{ e.name }} */
{%- endfor %}
};

API const {{ name }}_port {{ name }}_inputs[{{ upper }}_INPUTS] = {
{%- for e in externals %}{% if !e.output %}
    { "{{ e.name }}", "{{ e.c_type }}", {{ e.width }}, {{ e.height }}, {{ e.size }} },
{%- endif %}{% endfor %}
};
API const {{ name }}_port {{ name }}_outputs[{{ upper }}_OUTPUTS] = {
{%- for e in externals %}{% if e.output %}
    { "{{ e.name }}", "{{ e.c_type }}", {{ e.width }}, {{ e.height }}, {{ e.size }} },
{%- endif %}{% endfor %}
};

/* One open instance: its buffers, signals, ports and sub-boxes (the
 * chain), and its runtime (threads, frames in flight, statistics). Up to
 * {{ upper }}_MAX_OPEN of them run side by side; the calls on one are its
 * runtime's business (ssc_lib_*: any thread, any time). */
struct instance {
    struct ssc_chain chain;
    ssc_runtime *rt;
};

/* What {{ name }}_open hands out: a slot of this table, which lives as long
 * as the process, so that a call that races with close (or comes after
 * it) finds the slot closed instead of freed memory. `refs` counts the
 * calls between their check of the slot and their return: close frees the
 * instance once the runtime stopped and refs is 0. Slots are taken in
 * turn, so a handle kept after its close meets another instance only
 * after {{ upper }}_MAX_OPEN more opens. */
struct {{ name }} {
    pthread_mutex_t lock;       /* the fields below */
    pthread_cond_t left;        /* refs went down */
    struct instance *in;        /* NULL: free, or closed */
    unsigned refs;
};
static struct {{ name }} slots[{{ upper }}_MAX_OPEN];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;  /* taking a slot */
static unsigned next_slot;      /* under slots_lock: where the search starts */
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

static void slots_init(void)
{
    for (int i = 0; i < {{ upper }}_MAX_OPEN; i++) {
        pthread_mutex_init(&slots[i].lock, NULL);
        pthread_cond_init(&slots[i].left, NULL);
    }
}
static _Thread_local char last_error[1024];   /* this thread's last failed call */

API void {{ name }}_options_default({{ name }}_options *o)
{
    memset(o, 0, sizeof *o);
    o->spin_ns = 20000;
    o->depth = 2;
    o->deadline_margin = 2.0;
}

__attribute__((format(printf, 2, 3))) static int fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return code;
}

/* The runtime's code is the API's; its message becomes this thread's. */
static int from_runtime(int status)
{
    if (status)
        snprintf(last_error, sizeof last_error, "%s", ssc_lib_message());
    return status;
}

/* A call on a closed instance, or on no handle of {{ name }}_open. */
static int closed(const char *call)
{
    return fail({{ upper }}_EINVAL, "%s: the chain is not open (closed, or not a chain of "
                "{{ name }}_open)", call);
}

static int check_options(const {{ name }}_options *o)
{
    if (o->n_cores < 0 || (o->n_cores > 0 && !o->cores))
        return fail({{ upper }}_EINVAL, "{{ name }}_open: n_cores is %d and cores is %s: "
                    "give n_cores > 0 cores, or 0 for the cores as built",
                    o->n_cores, o->cores ? "set" : "NULL");
    if (o->depth < 1 || o->depth > 1024)
        return fail({{ upper }}_EINVAL, "{{ name }}_open: depth is %u; frames in flight must be "
                    "1 to 1024 (2 by default)", o->depth);
    if (o->fifo_priority < 0 || o->fifo_priority > 99)
        return fail({{ upper }}_EINVAL, "{{ name }}_open: fifo_priority is %d; it must be 0 "
                    "(none) or 1 to 99", o->fifo_priority);
    if (o->overload < {{ upper }}_QUEUE || o->overload > {{ upper }}_LATEST)
        return fail({{ upper }}_EINVAL, "{{ name }}_open: overload is %d; it must be "
                    "{{ upper }}_QUEUE (0), {{ upper }}_SKIP (1) or {{ upper }}_LATEST (2)", o->overload);
    if (!(o->deadline_margin >= 0 && o->deadline_margin <= 100))
        return fail({{ upper }}_EINVAL, "{{ name }}_open: deadline_margin is %g; it must be 0 "
                    "to 100 (2 by default)", o->deadline_margin);
    if (o->sched_fallback_fifo && !o->sched_deadline_period_ns)
        return fail({{ upper }}_EINVAL, "{{ name }}_open: sched_fallback_fifo says what a refused "
                    "reservation does: give sched_deadline_period_ns");
    if (o->spin_ns > 1000000000u)
        return fail({{ upper }}_EINVAL, "{{ name }}_open: spin_ns is %" PRIu64 "; at most "
                    "1000000000 (a second)", o->spin_ns);
    return {{ upper }}_OK;
}

/* An instance open did not hand out: stops its runtime and, once nothing
 * of it runs (no stuck thread keeps it), frees its memory (`memory`:
 * init_all ran) and the instance. */
static void discard(struct instance *c, int memory)
{
    if (ssc_lib_stop(c->rt))
        return;
    if (memory)
        free_all(&c->chain);
    ssc_lib_destroy(c->rt);
    free(c);
}

API int {{ name }}_open({{ name }} **out, const {{ name }}_options *options)
{
    {{ name }}_options o;
    if (options)
        o = *options;
    else
        {{ name }}_options_default(&o);
    if (!out)
        return fail({{ upper }}_EINVAL, "{{ name }}_open: no place for the chain (NULL)");
    *out = NULL;
    if (check_options(&o))
        return {{ upper }}_EINVAL;
    struct instance *c = aligned_alloc(64, (sizeof *c + 63) / 64 * 64);
    if (!c)
        return fail({{ upper }}_ERUNTIME, "{{ name }}_open: out of memory for the instance");
    memset(c, 0, sizeof *c);
    if (!(c->rt = ssc_lib_create())) {
        free(c);
        return from_runtime({{ upper }}_ERUNTIME);
    }
    int pinned[N_THREADS];
    const int *list = NULL;
    if (o.n_cores > 0) {
        for (int i = 0; i < N_THREADS; i++)
            pinned[i] = o.cores[i % o.n_cores];
        list = pinned;
    }
{%- match cores %}
{%- when Some with (_list) %}
    else
        list = cores;  /* as built: -ca / -cm */
{%- when None %}
{%- endmatch %}
    ssc_options opt;
    ssc_options_init(&opt, "{{ name }}", 0);
    opt.spin_ns = o.spin_ns;
    opt.rt_priority = o.fifo_priority;
    opt.lock_memory = o.lock_memory;
    opt.watchdog_ns = (uint64_t)o.watchdog_ms * 1000000u;
    opt.deadline_ns = o.deadline_ns;
    opt.overload = o.overload;
    opt.sched_deadline = o.sched_deadline_period_ns > 0;
    opt.sched_period_ns = o.sched_deadline_period_ns;
    opt.deadline_margin = o.deadline_margin;
    opt.sched_fallback = o.sched_fallback_fifo;
    opt.thread_busy_ns = thread_busy_ns;
    opt.thread_waits = thread_waits;
{%- include "program_options.c" %}
    int status = ssc_lib_init(c->rt, &opt, N_THREADS, list);
    int memory = !status;   /* init_all ran (a failed one may hold arenas) */
    if (!status && init_all(&c->chain, opt.huge_pages))
        status = {{ upper }}_ERUNTIME;
    if (!status)
        status = ssc_lib_start(c->rt, threads, c->chain.boxes, N_BOXES, externals,
                               {{ externals.len() }}, o.depth, &c->chain);
    if (status) {
        from_runtime({{ upper }}_ERUNTIME);
        discard(c, memory);
        return {{ upper }}_ERUNTIME;
    }
    pthread_once(&slots_once, slots_init);
    pthread_mutex_lock(&slots_lock);
    {{ name }} *slot = NULL;
    for (int k = 0; k < {{ upper }}_MAX_OPEN && !slot; k++) {
        {{ name }} *s = &slots[(next_slot + (unsigned)k) % {{ upper }}_MAX_OPEN];
        pthread_mutex_lock(&s->lock);
        if (!s->in && !s->refs) {
            s->in = c;
            slot = s;
            next_slot = (unsigned)(s - slots + 1) % {{ upper }}_MAX_OPEN;
        }
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_unlock(&slots_lock);
    if (!slot) {
        discard(c, 1);
        return fail({{ upper }}_EBUSY, "{{ name }}_open: %d instances are open already, the most "
                    "one process may hold: close one first", {{ upper }}_MAX_OPEN);
    }
    last_error[0] = 0;
    *out = slot;
    return {{ upper }}_OK;
}

/* The instance of handle c for a call, or NULL when c is no handle of
 * {{ name }}_open or its instance is closed; the call ends with leave(c). */
static struct instance *enter(const {{ name }} *handle)
{
    uintptr_t at = (uintptr_t)handle, first = (uintptr_t)slots;
    if (!handle || at < first || at >= first + sizeof slots || (at - first) % sizeof slots[0])
        return NULL;
    {{ name }} *c = &slots[(at - first) / sizeof slots[0]];
    pthread_mutex_lock(&c->lock);
    struct instance *in = c->in;
    if (in)
        c->refs++;
    pthread_mutex_unlock(&c->lock);
    return in;
}

static void leave(const {{ name }} *handle)
{
    {{ name }} *c = &slots[((uintptr_t)handle - (uintptr_t)slots) / sizeof slots[0]];
    pthread_mutex_lock(&c->lock);
    if (--c->refs == 0)
        pthread_cond_broadcast(&c->left);
    pthread_mutex_unlock(&c->lock);
}

/* Frames of the caller's inputs and outputs, in the order of `externals`;
 * a stride of 0 means rows packed one after the other, a negative one rows
 * upwards in memory (data is row 0). */
static int frames_of(const char *call, const {{ name }}_input *in, const {{ name }}_output *out,
                     ssc_frame *f)
{
    int i = 0, o = 0;
    if (!in)
        return fail({{ upper }}_EINVAL, "%s: the inputs are NULL", call);
    for (int e = 0; e < {{ externals.len() }}; e++) {
        int output = externals[e].output;
        const {{ name }}_port *p = output ? &{{ name }}_outputs[o] : &{{ name }}_inputs[i];
        int64_t packed = p->width * (int64_t)p->element_size;
        ptrdiff_t stride = output ? (out ? out[o].stride : 0) : in[i].stride;
        f[e].data = output ? (out ? out[o].data : NULL) : (void *)in[i].data;
        f[e].stride = stride ? stride : packed;
        output ? o++ : i++;
        if (!output && !f[e].data)
            return fail({{ upper }}_EINVAL, "%s: input `%s` is NULL", call, p->name);
        if (f[e].data && (f[e].stride < 0 ? -f[e].stride : f[e].stride) < packed)
            return fail({{ upper }}_EINVAL, "%s: %s `%s` has a stride of %td bytes, shorter "
                        "than its rows (%" PRId64 " bytes)", call, output ? "output" : "input",
                        p->name, stride, packed);
    }
    return {{ upper }}_OK;
}

API int {{ name }}_submit({{ name }} *c, const {{ name }}_input *in, const {{ name }}_output *out,
                   uint64_t *frame)
{
    ssc_frame f[{{ externals.len() }} + 1];
    if (frames_of("{{ name }}_submit", in, out, f))
        return {{ upper }}_EINVAL;
    struct instance *i = enter(c);
    if (!i)
        return closed("{{ name }}_submit");
    int status = from_runtime(ssc_lib_submit(i->rt, f, 0, frame));
    leave(c);
    return status;
}

API int {{ name }}_wait({{ name }} *c, uint64_t *frame, uint64_t *latency_ns)
{
    struct instance *i = enter(c);
    if (!i)
        return closed("{{ name }}_wait");
    int status = from_runtime(ssc_lib_wait_any(i->rt, frame, latency_ns));
    leave(c);
    return status;
}

API int {{ name }}_wait_frame({{ name }} *c, uint64_t frame, uint64_t *latency_ns)
{
    struct instance *i = enter(c);
    if (!i)
        return closed("{{ name }}_wait_frame");
    int status = from_runtime(ssc_lib_wait_frame(i->rt, frame, latency_ns));
    leave(c);
    return status;
}

API int {{ name }}_process({{ name }} *c, const {{ name }}_input *in, const {{ name }}_output *out,
                    uint64_t *latency_ns)
{
    ssc_frame f[{{ externals.len() }} + 1];
    if (frames_of("{{ name }}_process", in, out, f))
        return {{ upper }}_EINVAL;
    struct instance *i = enter(c);
    if (!i)
        return closed("{{ name }}_process");
    int status = from_runtime(ssc_lib_process(i->rt, f, latency_ns));
    leave(c);
    return status;
}

API int {{ name }}_statistics(const {{ name }} *c, {{ name }}_stats *s)
{
    if (!s)
        return fail({{ upper }}_EINVAL, "{{ name }}_statistics: no place for the statistics");
    struct instance *i = enter(c);
    if (!i)
        return closed("{{ name }}_statistics");
    ssc_stats st;
    ssc_conduct cd;
    ssc_lateness late[N_THREADS];
    int status = from_runtime(ssc_lib_stats(i->rt, &st)) || from_runtime(ssc_lib_conduct(i->rt, &cd, late));
    const char *names[N_THREADS];
    for (int j = 0; j < N_THREADS; j++)
        names[j] = late[j].box >= 0 ? ssc_box_name(i->rt, late[j].box) : NULL;
    leave(c);
    if (status)
        return {{ upper }}_EINVAL;
    memset(s, 0, sizeof *s);
    s->misses = cd.misses;
    s->dropped = cd.dropped;
    s->n_worst = (uint32_t)cd.n_worst;
    for (int w = 0; w < cd.n_worst && w < 5; w++) {
        s->worst[w].frame = cd.worst[w].frame;
        s->worst[w].latency_ns = cd.worst[w].latency_ns;
    }
    for (int j = 0; j < N_THREADS; j++) {
        s->late[j].subbox = names[j];  /* static strings: they outlive the instance */
        s->late[j].frame = late[j].frame;
        s->late[j].late_ns = late[j].late_ns;
    }
    s->count = st.count;
    s->mean_ns = st.mean;
    s->stddev_ns = st.stddev;
    s->min_ns = st.min;
    s->p50_ns = st.p50;
    s->p99_ns = st.p99;
    s->p999_ns = st.p999;
    s->max_ns = st.max;
    return {{ upper }}_OK;
}

API uint64_t {{ name }}_checksum(const {{ name }} *c)
{
    struct instance *i = enter(c);
    if (!i)
        return 0;
    uint64_t sum = ssc_lib_checksum(i->rt);
    leave(c);
    return sum;
}

API const char *{{ name }}_error(const {{ name }} *c)
{
    (void)c;
    return last_error;
}

API int {{ name }}_close({{ name }} *handle)
{
    struct instance *i = enter(handle);
    if (!i) {   /* closed already: nothing to do; no handle at all: an error */
        if (!handle || (uintptr_t)handle < (uintptr_t)slots ||
            (uintptr_t)handle >= (uintptr_t)slots + sizeof slots)
            return fail({{ upper }}_EINVAL, "{{ name }}_close: not a chain of {{ name }}_open");
        return {{ upper }}_OK;
    }
    {{ name }} *c = &slots[((uintptr_t)handle - (uintptr_t)slots) / sizeof slots[0]];
    pthread_mutex_lock(&c->lock);
    int mine = c->in == i;   /* a second close at once finds it taken */
    c->in = NULL;            /* no call enters from here on */
    pthread_mutex_unlock(&c->lock);
    int status = mine ? from_runtime(ssc_lib_stop(i->rt)) : {{ upper }}_OK;
    leave(c);
    if (!mine)
        return status;
    pthread_mutex_lock(&c->lock);
    while (c->refs)          /* calls that entered before: the runtime refused
                                or finished them */
        pthread_cond_wait(&c->left, &c->lock);
    pthread_mutex_unlock(&c->lock);
    if (!status) {           /* stuck threads keep the instance: never freed then */
        free_all(&i->chain);
        ssc_lib_destroy(i->rt);
        free(i);
    }
    return status;
}
