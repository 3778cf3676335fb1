/* ssc_kernels.h — the built-in kernels that do I/O, the source and the
 * sink (docs/language.md, "Built-in functions"; runtime-c/README.md,
 * "Built-ins"). The built-ins that compute (gain, copy, dup, plus, mul,
 * avg, conv, down, up) are no C functions here: ssc generates each from
 * its definition into the program, like a defined function.
 *
 * Each entry takes one ssc_call (the kernel ABI of ssc_kernel.h / README.md)
 * and dispatches on the element type of its port. */
#ifndef SSC_KERNELS_H
#define SSC_KERNELS_H

#include "ssc_kernel.h"

void func_source(const ssc_call *call);  /* 0 in, 1 out: deterministic image */
void func_sink(const ssc_call *call);    /* 1 in, 0 out: folds into the checksum */

/* The value func_source writes at grid element (x, y) of `iteration`, as a
 * double (exact for every type): for tests and for users' own sources. */
double ssc_source_value(ssc_type type, int64_t x, int64_t y, uint64_t iteration);

#endif /* SSC_KERNELS_H */
