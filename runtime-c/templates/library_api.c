
/* ---- 4. the library API (see {{ name }}.h) -------------------------------- */

#include "{{ name }}.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
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

/* One chain per process: the runtime and the buffers above are the
 * process's. open_lock orders open and close; the calls on the open chain
 * are the runtime's business (ssc_lib_*: any thread, any time). */
struct {{ name }} {
    int unused;
};
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {{ name }} chain;
static int is_open;              /* under open_lock */
static _Thread_local char last_error[1024];   /* this thread's last failed call */

API void {{ name }}_options_default({{ name }}_options *o)
{
    memset(o, 0, sizeof *o);
    o->spin_ns = 20000;
    o->depth = 2;
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
    if (o->spin_ns > 1000000000u)
        return fail({{ upper }}_EINVAL, "{{ name }}_open: spin_ns is %" PRIu64 "; at most "
                    "1000000000 (a second)", o->spin_ns);
    return {{ upper }}_OK;
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
    pthread_mutex_lock(&open_lock);
    if (is_open) {
        pthread_mutex_unlock(&open_lock);
        return fail({{ upper }}_EBUSY,
                    "{{ name }} is already open in this process (one chain per process): close it first");
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
{%- include "program_options.c" %}
    int status = ssc_lib_init(&opt, N_THREADS, list);
    int memory = !status;   /* init_all ran (a failed one may hold arenas) */
    if (!status && init_all(opt.huge_pages))
        status = {{ upper }}_ERUNTIME;
    if (!status)
        status = ssc_lib_start(threads, boxes, N_BOXES, externals, {{ externals.len() }}, o.depth);
    if (status) {
        from_runtime({{ upper }}_ERUNTIME);
        if (!ssc_lib_stop() && memory)
            free_all();
        pthread_mutex_unlock(&open_lock);
        return {{ upper }}_ERUNTIME;
    }
    is_open = 1;
    last_error[0] = 0;
    *out = &chain;
    pthread_mutex_unlock(&open_lock);
    return {{ upper }}_OK;
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
    if (c != &chain)
        return fail({{ upper }}_EINVAL, "{{ name }}_submit: not a chain of {{ name }}_open");
    ssc_frame f[{{ externals.len() }} + 1];
    if (frames_of("{{ name }}_submit", in, out, f))
        return {{ upper }}_EINVAL;
    return from_runtime(ssc_lib_submit(f, 0, frame));
}

API int {{ name }}_wait({{ name }} *c, uint64_t *frame, uint64_t *latency_ns)
{
    if (c != &chain)
        return fail({{ upper }}_EINVAL, "{{ name }}_wait: not a chain of {{ name }}_open");
    return from_runtime(ssc_lib_wait_any(frame, latency_ns));
}

API int {{ name }}_wait_frame({{ name }} *c, uint64_t frame, uint64_t *latency_ns)
{
    if (c != &chain)
        return fail({{ upper }}_EINVAL, "{{ name }}_wait_frame: not a chain of {{ name }}_open");
    return from_runtime(ssc_lib_wait_frame(frame, latency_ns));
}

API int {{ name }}_process({{ name }} *c, const {{ name }}_input *in, const {{ name }}_output *out,
                    uint64_t *latency_ns)
{
    if (c != &chain)
        return fail({{ upper }}_EINVAL, "{{ name }}_process: not a chain of {{ name }}_open");
    ssc_frame f[{{ externals.len() }} + 1];
    if (frames_of("{{ name }}_process", in, out, f))
        return {{ upper }}_EINVAL;
    return from_runtime(ssc_lib_process(f, latency_ns));
}

API int {{ name }}_statistics(const {{ name }} *c, {{ name }}_stats *s)
{
    if (c != &chain || !s)
        return fail({{ upper }}_EINVAL, "{{ name }}_statistics: not a chain of {{ name }}_open, "
                    "or no place for the statistics");
    ssc_stats st;
    ssc_conduct cd;
    ssc_lateness late[N_THREADS];
    if (from_runtime(ssc_lib_stats(&st)) || from_runtime(ssc_lib_conduct(&cd, late)))
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
        s->late[j].subbox = late[j].box >= 0 ? ssc_box_name(late[j].box) : NULL;
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
    (void)c;
    return ssc_checksum();
}

API const char *{{ name }}_error(const {{ name }} *c)
{
    (void)c;
    return last_error;
}

API int {{ name }}_close({{ name }} *c)
{
    if (c != &chain)
        return fail({{ upper }}_EINVAL, "{{ name }}_close: not a chain of {{ name }}_open");
    int status = {{ upper }}_OK;
    pthread_mutex_lock(&open_lock);
    if (is_open) {
        /* Stuck threads keep the buffers: they are never freed then. */
        status = from_runtime(ssc_lib_stop());
        if (!status)
            free_all();
        is_open = 0;
    }
    pthread_mutex_unlock(&open_lock);
    return status;
}
