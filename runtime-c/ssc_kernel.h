/* ssc_kernel.h — the kernel ABI: all that a kernel, built-in or the
 * user's (`ssc build --kernels FILE`), includes (runtime-c/README.md,
 * "Kernel ABI"). A kernel is a C function `void f(const ssc_call *call)`:
 * it computes the points of `call->region` from the ports `call->in` into
 * the ports `call->out`, addressing rows through SSC_ROW. Nothing here
 * starts threads, prints or allocates; the functions declared below are
 * the runtime core's (ssc_rt.c). */
#ifndef SSC_KERNEL_H
#define SSC_KERNEL_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SSC_CHAR, SSC_UCHAR, SSC_SHORT, SSC_USHORT,
    SSC_INT, SSC_UINT, SSC_FLOAT, SSC_DOUBLE
} ssc_type;

/* Half-open box of points of a function's iteration space. */
typedef struct { int64_t x0, y0, x1, y1; } ssc_region;

/* One band of a folded buffer: rows [lo, hi) of the grid, in a ring of its
 * own; `up`: counted from row hi - 1 (the thread runs the band bottom-up). */
typedef struct { int64_t lo, hi; int64_t up; } ssc_band;

typedef struct {
    void *data;               /* element (0,0) of the port's grid */
    int64_t width, height;    /* the grid, in elements: resolution x mul */
    int64_t stride;           /* elements between the starts of two rows */
    int32_t mul_x, mul_y;     /* block of elements per point */
    int32_t win_x, win_y;     /* input window, 1x1 when none */
    ssc_type type;
    int64_t fold;             /* rows of each ring (storage folding); 0: the
                                 whole grid, row ey at row ey of data */
    const ssc_band *bands;    /* with fold: n_bands bands, band b in rows
                                 [b*fold, (b+1)*fold) of the ring; NULL: one */
    int32_t n_bands;
    int64_t ring0;            /* with fold: rows of data before the ring's
                                 first; 0, but under --check-kernels the
                                 grid's rows there are a guard no access
                                 may touch */
    uint32_t frame_of;        /* 0, or 1 + the function id of the built-in
                                 source or sink whose external frame this
                                 port's rows are: a reader may read a
                                 source's frame in place, and the source
                                 copies nothing when every reader does
                                 (README.md, "Sources read in place"); the
                                 producer of a sink's rows writes them into
                                 the sink's frame, and the sink copies
                                 nothing ("Sinks written in place") */
    int64_t alt;              /* 0, or a double-buffered state: the elements
                                 from copy 0 (at data) to copy 1 */
    int32_t phase;            /* with alt: in iteration i the port is copy
                                 (i + phase) mod 2, 1 for a delayed reader
                                 (README.md, "Delays"); the runtime hands
                                 the kernel that copy's port */
} ssc_port;

/* The row of data that holds grid row ey (see runtime-c/README.md,
 * "Storage folding"). */
static inline int64_t ssc_row_slot(const ssc_port *p, int64_t ey)
{
    if (!p->fold)
        return ey;
    if (!p->bands)
        return p->ring0 + ey % p->fold;
    int32_t b = 0;
    while (b + 1 < p->n_bands && ey >= p->bands[b].hi)
        b++;
    const ssc_band *B = &p->bands[b];
    int64_t off = B->up ? B->hi - 1 - ey : ey - B->lo;
    return p->ring0 + (int64_t)b * p->fold + off % p->fold;
}

/* Element row ey of a port: every built-in addresses its rows through this.
 * A kernel that ignores `fold` is correct only on ports whose fold is 0,
 * and ssc folds a buffer that a user kernel (--kernels) reads or writes
 * only when the kernel says `ROWS` in the description: it promises to
 * address every row through this (runtime-c/README.md, "Storage
 * folding"; `ssc build --check-kernels` checks the promise). */
#define SSC_ROW(T, port, ey) ((T *)(port)->data + ssc_row_slot((port), (ey)) * (port)->stride)

typedef struct {
    ssc_region region;        /* the sub-box: the points to compute */
    int64_t width, height;    /* the function's whole iteration space */
    uint64_t iteration;
    uint32_t id;              /* stable id of the function instance */
    const ssc_port *in;  int n_in;
    const ssc_port *out; int n_out;
} ssc_call;

typedef void (*ssc_kernel)(const ssc_call *call);

/* An external frame: the caller's image that a source reads or a sink
 * writes (library mode, or a program's --input files). `stride`: bytes
 * between the starts of two rows. */
typedef struct {
    void *data;
    int64_t stride;
} ssc_frame;

/* The frame of external `function_id` (a source bound to func_source, a
 * sink bound to func_sink) for this iteration, copied into *out: 1, or 0
 * when its data is not external (a program without --input: the source
 * draws its pattern, the sink only folds the checksum; a library whose
 * chain stalled: the callers' frames are no longer the chain's). */
int ssc_external_frame(uint32_t function_id, uint64_t iteration, ssc_frame *out);

/* The frame of this iteration that port p (p->frame_of set) reads in
 * place, into *out: 1 when there is one and its stride is a whole number of
 * elements, else 0 (the source then copies it into p's buffer, and the
 * readers read that). */
int ssc_frame_in_place(const ssc_port *p, uint64_t iteration, ssc_frame *out);

/* Bytes of one element of a type. */
size_t ssc_type_size(ssc_type t);

/* A port over a dense grid of width x height elements (stride = width). */
ssc_port ssc_port_make(void *data, ssc_type type, int64_t width, int64_t height,
                       int32_t mul_x, int32_t mul_y, int32_t win_x, int32_t win_y);

/* ---- checksum: what sinks fold (README.md, "Checksum") -------------- */

/* Adds to the program-wide checksum (wrapping, so order-independent). */
void ssc_checksum_add(uint64_t v);
uint64_t ssc_checksum(void);
void ssc_checksum_reset(void);

/* The per-(function, iteration) odd multiplier of the checksum and the
 * per-element hash; see README "Checksum". */
uint64_t ssc_checksum_key(uint32_t function_id, uint64_t iteration);
/* mix(p, b) (README "Checksum") works on one 32-bit word per element:
 * the position p scaled by SSC_MIX_POSITION mod 2^32 is xored into the
 * word, which is multiplied by an odd constant and xor-shifted (each step
 * a bijection of the word, so a change of one element of a type of at most
 * 32 bits always changes the sum), and the 32-bit results are summed
 * exactly in 64 bits. 32-bit lanes take about half the vector instructions
 * of a 64-bit mix. */
#define SSC_MIX_POSITION 0x9E3779B9u
#define SSC_MIX_MULTIPLIER 0x85EBCA6Bu
static inline uint64_t ssc_mix_word(uint32_t scaled_position, uint32_t word)
{
    uint32_t t = (word ^ scaled_position) * SSC_MIX_MULTIPLIER;
    return t ^ (t >> 16);
}
/* The word of bits b: its low 32 bits, xored with its high word and the
 * low word's sign unless the high word is 0. A value that is the sign or
 * zero extension of its low word (every value of a type of at most 32
 * bits) is its low word; a double folds both halves into one. */
static inline uint32_t ssc_mix_fold(uint64_t bits)
{
    uint32_t low = (uint32_t)bits, high = (uint32_t)(bits >> 32);
    uint32_t sign = 0u - (low >> 31);   /* all ones when low's top bit is set */
    return low ^ (high == 0 ? 0 : high ^ sign);
}
/* mix(p, b) from the scaled position p · SSC_MIX_POSITION mod 2^32: a
 * row's loop steps it by SSC_MIX_POSITION instead of multiplying. */
static inline uint64_t ssc_mix_scaled(uint32_t scaled_position, uint64_t bits)
{
    return ssc_mix_word(scaled_position, ssc_mix_fold(bits));
}
static inline uint64_t ssc_mix_element(uint64_t position, uint64_t bits)
{
    return ssc_mix_scaled((uint32_t)position * SSC_MIX_POSITION, bits);
}

/* The program's name (argv[0]) that its messages start with; "ssc-program"
 * before the arguments are parsed. */
const char *ssc_program_name(void);

#endif /* SSC_KERNEL_H */
