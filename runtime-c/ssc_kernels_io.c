/* ssc_kernels_io.c — the built-in source and sink, and ssc_source_value.
 * Declared in ssc_kernels.h; the arithmetic in ssc_kernels_impl.h and
 * runtime-c/README.md, "Built-ins". */
#include "ssc_kernels_impl.h"

static uint64_t source_pattern(int64_t x, int64_t y, uint64_t iteration)
{
    return ((uint64_t)x * 7 + (uint64_t)y * 13 + iteration * 31) % 251;
}

/* ---- source and sink ----------------------------------------------- */

/* Copies the region's rows of an external frame (the caller's image in
 * library mode, a file given to --input) into the output port. */
SSC_HELPER void source_external(const ssc_call *c, const ssc_frame *f)
{
    const ssc_port *op = &c->out[0];
    span e = elements(&c->region, op);
    size_t size = ssc_type_size(op->type);
    for (int64_t y = e.y0; y < e.y1; y++)
        memcpy((char *)op->data + (ssc_row_slot(op, y) * op->stride + e.x0) * (int64_t)size,
               (const char *)f->data + y * f->stride + e.x0 * (int64_t)size,
               size * (size_t)(e.x1 - e.x0));
}

/* The sink's rows into an external frame (library mode, --output). */
SSC_HELPER void sink_external(const ssc_call *c, const ssc_frame *f)
{
    const ssc_port *ip = &c->in[0];
    span e = elements(&c->region, ip);
    size_t size = ssc_type_size(ip->type);
    for (int64_t y = e.y0; y < e.y1; y++)
        memcpy((char *)f->data + y * f->stride + e.x0 * (int64_t)size,
               (const char *)ip->data + (ssc_row_slot(ip, y) * ip->stride + e.x0) * (int64_t)size,
               size * (size_t)(e.x1 - e.x0));
}

/* Without an external frame: depends on the iteration and the element's
 * grid position only, so any split of the source writes the same image.
 * Along a row the pattern has period 251: the first 251 elements are
 * computed (a vectorisable modulo of 32-bit values), the rest copied from
 * them. */
#define SOURCE_PERIOD 251
#define DEF_SOURCE(S, T, W, E, K, LO, HI)                                    \
    static void source_##S(const ssc_call *c)                                \
    {                                                                        \
        ssc_frame ext;                                                       \
        if (ssc_external_frame(c->id, c->iteration, &ext)) {                 \
            /* Every reader reads the frame in place, or none does. */       \
            if (!ssc_frame_in_place(&c->out[0], c->iteration, &ext))         \
                source_external(c, &ext);                                    \
            return;                                                          \
        }                                                                    \
        const ssc_port *op = &c->out[0];                                     \
        span e = elements(&c->region, op);                                   \
        int64_t n = e.x1 - e.x0;                                             \
        int64_t m = n < SOURCE_PERIOD ? n : SOURCE_PERIOD;                   \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            T *restrict out = ROW(T, op, y) + e.x0;                          \
            uint32_t p0 = (uint32_t)source_pattern(e.x0, y, c->iteration);   \
            for (int64_t j = 0; j < m; j++) {                                \
                uint32_t p = (p0 + 7u * (uint32_t)j) % SOURCE_PERIOD;        \
                out[j] = SRC_##K(T, p);                                      \
            }                                                                \
            for (int64_t j = m; j < n; j += SOURCE_PERIOD)                   \
                memcpy(out + j, out,                                         \
                       sizeof(T) * (size_t)(n - j < SOURCE_PERIOD ? n - j : SOURCE_PERIOD)); \
        }                                                                    \
    }
SSC_TYPES(DEF_SOURCE)
DISPATCH(func_source, source, c->out[0].type)

/* checksum += key(id, iteration) * sum of mix(position, bits(value)):
 * a sum, so any split and any order of sinks gives the same total. With
 * an external frame the sink also copies its rows there, unless its
 * producer wrote them there in place (README.md, "Sinks written in
 * place"). */
#define DEF_SINK(S, T, W, E, K, LO, HI)                                      \
    static void sink_##S(const ssc_call *c)                                  \
    {                                                                        \
        const ssc_port *ip = &c->in[0];                                      \
        span e = elements(&c->region, ip);                                   \
        uint64_t sum = 0;                                                    \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            const T *restrict in = ROW(const T, ip, y);                      \
            uint32_t scaled = (uint32_t)((uint64_t)y * (uint64_t)ip->width   \
                                         + (uint64_t)e.x0) * SSC_MIX_POSITION; \
            if (sizeof(T) <= 4) /* 32-bit lanes (gcc does not see that a \
                                 * signed value's high word is its sign) */ \
                for (int64_t x = e.x0; x < e.x1; x++, scaled += SSC_MIX_POSITION) \
                    sum += ssc_mix_word(scaled, (uint32_t)BITS_##K(T, in[x])); \
            else                                                             \
                for (int64_t x = e.x0; x < e.x1; x++, scaled += SSC_MIX_POSITION) \
                    sum += ssc_mix_scaled(scaled, BITS_##K(T, in[x]));       \
        }                                                                    \
        ssc_checksum_add(sum * ssc_checksum_key(c->id, c->iteration));       \
        ssc_frame ext;   /* written in place by the producer: nothing to copy */ \
        if (ssc_external_frame(c->id, c->iteration, &ext) && ext.data != ip->data) \
            sink_external(c, &ext);                                          \
    }
SSC_TYPES(DEF_SINK)
DISPATCH(func_sink, sink, c->in[0].type)

/* ---- for tests ----------------------------------------------------- */

#define SOURCE_VALUE_CASE(S, T, W, E, K, LO, HI) \
    case E: return (double)SRC_##K(T, source_pattern(x, y, iteration));

double ssc_source_value(ssc_type type, int64_t x, int64_t y, uint64_t iteration)
{
    switch (type) {
    SSC_ALL_TYPES(SOURCE_VALUE_CASE)
    }
    bad_type("ssc_source_value", type);
    return 0;
}
