/* ssc_kernels.h — the built-in kernels (docs/language.md, "Built-in
 * functions"; the exact arithmetic in runtime-c/README.md, "Built-ins").
 *
 * Each entry takes one ssc_call (the kernel ABI of ssc_kernel.h / README.md)
 * and dispatches on the element type of its ports; all ports of a built-in
 * have the same type. Element-wise built-ins need equal `mul` on all their
 * ports; func_down needs the input's mul twice the output's, func_up the
 * output's twice the input's. The compiler checks these shapes. */
#ifndef SSC_KERNELS_H
#define SSC_KERNELS_H

#include "ssc_kernel.h"

void func_source(const ssc_call *call);  /* 0 in, 1 out: deterministic image */
void func_sink(const ssc_call *call);    /* 1 in, 0 out: folds into the checksum */
void func_gain(const ssc_call *call);    /* out = in * 3 / 2 */
void func_copy(const ssc_call *call);    /* out = in */
void func_dup(const ssc_call *call);     /* out0 = out1 = in */
void func_plus(const ssc_call *call);    /* out = in0 + in1 */
void func_mul(const ssc_call *call);     /* out = in0 * in1 */
void func_avg(const ssc_call *call);     /* out = (in0 + in1) / 2 */
void func_conv(const ssc_call *call);    /* out = mean of the input window, borders clamped */
void func_down(const ssc_call *call);    /* out = mean of a 2x2 input block */
void func_up(const ssc_call *call);      /* out 2x2 block = nearest input element */

/* The value func_source writes at grid element (x, y) of `iteration`, as a
 * double (exact for every type): for tests and for users' own sources. */
double ssc_source_value(ssc_type type, int64_t x, int64_t y, uint64_t iteration);

#endif /* SSC_KERNELS_H */
