
/* ---- 4. the library API (see {{ name }}.h) -------------------------------- */

#include "{{ name }}.h"

#include <pthread.h>
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
 * process's. The lock makes open and close safe from any thread. */
struct {{ name }} {
    pthread_mutex_t calls;   /* one call at a time on the open chain */
};
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {{ name }} chain = { PTHREAD_MUTEX_INITIALIZER };
static int is_open;
static char open_error[512];

API void {{ name }}_options_default({{ name }}_options *o)
{
    memset(o, 0, sizeof *o);
    o->spin_ns = 20000;
    o->depth = 2;
}

static int fail(char *buf, size_t n, int code, const char *msg)
{
    snprintf(buf, n, "%s", msg);
    return code;
}

API int {{ name }}_open({{ name }} **out, const {{ name }}_options *options)
{
    {{ name }}_options o;
    if (options)
        o = *options;
    else
        {{ name }}_options_default(&o);
    if (!out)
        return fail(open_error, sizeof open_error, {{ upper }}_EINVAL, "{{ name }}_open: no place for the chain (NULL)");
    *out = NULL;
    if (o.n_cores < 0 || (o.n_cores > 0 && !o.cores))
        return fail(open_error, sizeof open_error, {{ upper }}_EINVAL, "{{ name }}_open: n_cores > 0 but cores is NULL");
    pthread_mutex_lock(&open_lock);
    if (is_open) {
        pthread_mutex_unlock(&open_lock);
        return fail(open_error, sizeof open_error, {{ upper }}_EBUSY,
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
{%- include "program_options.c" %}
    int status = ssc_lib_init(&opt, N_THREADS, list);
    if (!status)
        status = init_all(opt.huge_pages);
    if (!status)
        status = ssc_lib_start(threads, boxes, N_BOXES, externals, {{ externals.len() }}, o.depth ? o.depth : 2);
    if (status) {
        snprintf(open_error, sizeof open_error, "%s", ssc_lib_message());
        ssc_lib_stop();
        free_all();
        pthread_mutex_unlock(&open_lock);
        return {{ upper }}_ERUNTIME;
    }
    is_open = 1;
    open_error[0] = 0;
    *out = &chain;
    pthread_mutex_unlock(&open_lock);
    return {{ upper }}_OK;
}

/* Frames of the caller's inputs and outputs, in the order of `externals`;
 * a stride of 0 means rows packed one after the other. */
static int frames_of(const {{ name }}_input *in, const {{ name }}_output *out, ssc_frame *f)
{
    int i = 0, o = 0;
    if (!in)
        return 0;
    for (int e = 0; e < {{ externals.len() }}; e++) {
        const {{ name }}_port *p = externals[e].output ? &{{ name }}_outputs[o] : &{{ name }}_inputs[i];
        int64_t packed = p->width * (int64_t)p->element_size;
        if (externals[e].output) {
            f[e].data = out ? out[o].data : NULL;
            f[e].stride = out && out[o].stride ? out[o].stride : packed;
            o++;
        } else {
            if (!in[i].data)
                return 0;
            f[e].data = (void *)in[i].data;
            f[e].stride = in[i].stride ? in[i].stride : packed;
            i++;
        }
        if (f[e].stride < packed && f[e].data)
            return 0;
    }
    return 1;
}

static int message(const char *msg)
{
    snprintf(open_error, sizeof open_error, "%s", msg);
    return {{ upper }}_EINVAL;
}

API int {{ name }}_submit({{ name }} *c, const {{ name }}_input *in, const {{ name }}_output *out,
                   uint64_t *frame)
{
    if (c != &chain || !is_open)
        return message("{{ name }}_submit: the chain is not open");
    ssc_frame f[{{ externals.len() }} + 1];
    if (!frames_of(in, out, f))
        return message("{{ name }}_submit: an input is NULL, or a stride is shorter than a row");
    pthread_mutex_lock(&c->calls);
    int status = ssc_lib_submit(f, frame);
    if (status)
        snprintf(open_error, sizeof open_error, "%s", ssc_lib_message());
    pthread_mutex_unlock(&c->calls);
    return status ? {{ upper }}_EBUSY : {{ upper }}_OK;
}

API int {{ name }}_wait({{ name }} *c, uint64_t *frame, uint64_t *latency_ns)
{
    if (c != &chain || !is_open)
        return message("{{ name }}_wait: the chain is not open");
    pthread_mutex_lock(&c->calls);
    int status = ssc_lib_wait(frame, latency_ns);
    if (status)
        snprintf(open_error, sizeof open_error, "%s", ssc_lib_message());
    pthread_mutex_unlock(&c->calls);
    return status ? {{ upper }}_EINVAL : {{ upper }}_OK;
}

API int {{ name }}_process({{ name }} *c, const {{ name }}_input *in, const {{ name }}_output *out,
                    uint64_t *latency_ns)
{
    int status = {{ name }}_submit(c, in, out, NULL);
    return status ? status : {{ name }}_wait(c, NULL, latency_ns);
}

API int {{ name }}_statistics(const {{ name }} *c, {{ name }}_stats *s)
{
    if (c != &chain || !is_open || !s)
        return message("{{ name }}_statistics: the chain is not open");
    ssc_stats st;
    ssc_lib_stats(&st);
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
    return open_error;
}

API void {{ name }}_close({{ name }} *c)
{
    if (c != &chain)
        return;
    pthread_mutex_lock(&open_lock);
    if (is_open) {
        ssc_lib_stop();
        free_all();
        is_open = 0;
    }
    pthread_mutex_unlock(&open_lock);
}
