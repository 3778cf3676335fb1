/* ssc_kernels_impl.h — what the built-in kernels' files share (and nobody
 * else includes): the X-macro SSC_TYPES that instantiates each kernel for
 * every element type, the saturating conversions, and the type dispatch.
 * One file per family (ssc_kernels_io.c, _point.c, _conv.c, _scale.c), so
 * a first build compiles them at once.
 *
 * Arithmetic: integer types compute in a wide type `W` of their signedness
 * (32-bit for 8- and 16-bit elements, so SSE2 can vectorise it; 64-bit for
 * int and uint) where no kernel here can overflow (the largest value is a
 * product of two elements; conv sums its window in 64 bits), then saturate
 * to the element type: no undefined or implementation-defined behaviour.
 * float and double compute in their own type (IEEE, no saturation).
 * Integer division truncates toward zero. */
#ifndef SSC_KERNELS_IMPL_H
#define SSC_KERNELS_IMPL_H

#include "ssc_kernels.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* X(S suffix, T element type, W wide type, E ssc_type, K kind, LO, HI)
 * K: S signed integer, U unsigned integer, F floating point.
 * `char` is signed char, so the results do not depend on the platform. */
#define SSC_TYPE_LIST(X, WHEN)                                                \
    WHEN(char,   X(char,   signed char,    int32_t,  SSC_CHAR,   S, SCHAR_MIN, SCHAR_MAX)) \
    WHEN(uchar,  X(uchar,  unsigned char,  uint32_t, SSC_UCHAR,  U, 0,         UCHAR_MAX)) \
    WHEN(short,  X(short,  short,          int32_t,  SSC_SHORT,  S, SHRT_MIN,  SHRT_MAX))  \
    WHEN(ushort, X(ushort, unsigned short, uint32_t, SSC_USHORT, U, 0,         USHRT_MAX)) \
    WHEN(int,    X(int,    int,            int64_t,  SSC_INT,    S, INT_MIN,   INT_MAX))   \
    WHEN(uint,   X(uint,   unsigned int,   uint64_t, SSC_UINT,   U, 0,         UINT_MAX))  \
    WHEN(float,  X(float,  float,          float,    SSC_FLOAT,  F, 0,         0))         \
    WHEN(double, X(double, double,         double,   SSC_DOUBLE, F, 0,         0))

/* The element types this object instantiates the kernels for: bit t of
 * SSC_KERNEL_TYPES is ssc_type t. Every type unless the compile says
 * otherwise: `ssc build` compiles a family only for the types its chain
 * uses (-DSSC_KERNEL_TYPES=0x08: ushort alone), which is most of a first
 * build's time saved; a type left out goes to the dispatch's default, the
 * message of an unknown element type. The Makefile compiles every type. */
#ifndef SSC_KERNEL_TYPES
#define SSC_KERNEL_TYPES 0xff
#endif
#if SSC_KERNEL_TYPES & 0x01
#define SSC_ON_char(...) __VA_ARGS__
#else
#define SSC_ON_char(...)
#endif
#if SSC_KERNEL_TYPES & 0x02
#define SSC_ON_uchar(...) __VA_ARGS__
#else
#define SSC_ON_uchar(...)
#endif
#if SSC_KERNEL_TYPES & 0x04
#define SSC_ON_short(...) __VA_ARGS__
#else
#define SSC_ON_short(...)
#endif
#if SSC_KERNEL_TYPES & 0x08
#define SSC_ON_ushort(...) __VA_ARGS__
#else
#define SSC_ON_ushort(...)
#endif
#if SSC_KERNEL_TYPES & 0x10
#define SSC_ON_int(...) __VA_ARGS__
#else
#define SSC_ON_int(...)
#endif
#if SSC_KERNEL_TYPES & 0x20
#define SSC_ON_uint(...) __VA_ARGS__
#else
#define SSC_ON_uint(...)
#endif
#if SSC_KERNEL_TYPES & 0x40
#define SSC_ON_float(...) __VA_ARGS__
#else
#define SSC_ON_float(...)
#endif
#if SSC_KERNEL_TYPES & 0x80
#define SSC_ON_double(...) __VA_ARGS__
#else
#define SSC_ON_double(...)
#endif

/* A family's helpers, unused in an object of none of its types. */
#define SSC_HELPER static __attribute__((unused))

#define SSC_KEEP_(S, ...) __VA_ARGS__
#define SSC_IF_ON_(S, ...) SSC_ON_##S(__VA_ARGS__)
/* Every type (helpers that cost nothing unused), and the types of this
 * object (the kernels). */
#define SSC_ALL_TYPES(X) SSC_TYPE_LIST(X, SSC_KEEP_)
#define SSC_TYPES(X) SSC_TYPE_LIST(X, SSC_IF_ON_)

/* ---- per-kind helpers ---------------------------------------------- */

/* The accumulator of conv: 64 bits for integers, whatever the window. */
#define ACC_S(W) int64_t
#define ACC_U(W) uint64_t
#define ACC_F(W) W

/* Saturating conversion of a wide value to the element type. */
#define SAT_S(T, LO, HI, w) ((w) < (LO) ? (T)(LO) : (w) > (HI) ? (T)(HI) : (T)(w))
#define SAT_U(T, LO, HI, w) ((w) > (HI) ? (T)(HI) : (T)(w))
#define SAT_F(T, LO, HI, w) ((T)(w))

/* The source pattern p in [0, 251) as an element value. */
#define SRC_S(T, p) ((T)((int64_t)(p) - 125))
#define SRC_U(T, p) ((T)(p))
#define SRC_F(T, p) ((T)(((double)(p) - 125.0) / 8.0))

#define DEF_SAT(S, T, W, E, K, LO, HI) \
    static inline T sat_##S(W w) { return SAT_##K(T, LO, HI, w); }
SSC_ALL_TYPES(DEF_SAT)

/* The checksum's view of a value: sign-extended integers, IEEE bits of
 * floating point values (so 0.0 and -0.0 differ, as their bits do). */
#define BITS_S(T, v) ((uint64_t)(int64_t)(v))
#define BITS_U(T, v) ((uint64_t)(v))
#define BITS_F(T, v) float_bits_##T(v)
static inline uint64_t float_bits_float(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}
static inline uint64_t float_bits_double(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static inline int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The elements a region covers on a port: the points times its mul. */
typedef struct { int64_t x0, y0, x1, y1; } span;

static inline span elements(const ssc_region *r, const ssc_port *p)
{
    span s = { r->x0 * p->mul_x, r->y0 * p->mul_y, r->x1 * p->mul_x, r->y1 * p->mul_y };
    return s;
}

#define ROW(T, port, y) SSC_ROW(T, port, y)

/* for (x = x0; x < x1; x++) STMT, as blocks of a constant 32 iterations and
 * a tail: gcc -O2 (its "very cheap" cost model) vectorises only loops with
 * a known trip count; clang and gcc -O3 would vectorise the plain loop. */
#define FOR_X(x, x0, x1, STMT)                                               \
    do {                                                                     \
        int64_t xb_ = (x0);                                                  \
        for (; xb_ + 32 <= (x1); xb_ += 32)                                  \
            for (int64_t x = xb_; x < xb_ + 32; x++) { STMT; }               \
        for (int64_t x = xb_; x < (x1); x++) { STMT; }                       \
    } while (0)

/* ---- dispatch ------------------------------------------------------ */

/* A type this program was not compiled for (a compiler error, never a
 * user's): said, and the call writes nothing; the process goes on (a
 * library never ends its caller's process). */
static inline void bad_type(const char *kernel, ssc_type t)
{
    fprintf(stderr, "%s: %s: unknown element type %d\n", ssc_program_name(), kernel, (int)t);
}

#define DISPATCH(entry, name, type_expr)                                     \
    void entry(const ssc_call *c)                                            \
    {                                                                        \
        switch (type_expr) {                                                 \
        SSC_ON_char(case SSC_CHAR: name##_char(c); break;)                   \
        SSC_ON_uchar(case SSC_UCHAR: name##_uchar(c); break;)                \
        SSC_ON_short(case SSC_SHORT: name##_short(c); break;)                \
        SSC_ON_ushort(case SSC_USHORT: name##_ushort(c); break;)             \
        SSC_ON_int(case SSC_INT: name##_int(c); break;)                      \
        SSC_ON_uint(case SSC_UINT: name##_uint(c); break;)                   \
        SSC_ON_float(case SSC_FLOAT: name##_float(c); break;)                \
        SSC_ON_double(case SSC_DOUBLE: name##_double(c); break;)             \
        default:         bad_type(#entry, type_expr);                        \
        }                                                                    \
    }

#endif /* SSC_KERNELS_IMPL_H */
