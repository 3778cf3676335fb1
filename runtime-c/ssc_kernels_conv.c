/* ssc_kernels_conv.c — the built-in box convolution, conv.
 * Declared in ssc_kernels.h; the arithmetic in ssc_kernels_impl.h and
 * runtime-c/README.md, "Built-ins". */
#include "ssc_kernels_impl.h"

/* ---- convolution --------------------------------------------------- */

/* Mean over the input window (a box filter: every weight 1/(wx*wy)),
 * coordinates clamped to the grid, computed separably: for output element
 * x, acc = sum over dx of col(x + dx), col(u) = sum over dy of
 * in[clamp(y + dy)][clamp(u)], both sums in ascending order. So the bits of
 * every element are fixed whatever the split or chunking (floats too), and
 * a window costs wx + wy adds per element instead of wx * wy.
 *
 * An output row is done in chunks of CONV_CHUNK elements. Windows up to
 * CONV_MAX_SEP wide compute the chunk's column sums once and share them
 * between the dx; wider windows recompute col(x + dx) for each dx (the same
 * sums, so the same bits). Loops over a whole chunk have a constant trip
 * count, which gcc -O2's "very cheap" vectoriser requires. The column sums
 * read each input row in three runs (conv_runs): the clamped columns left
 * and right of the grid one by one, the columns inside it as one plain
 * loop, so the clamp never reaches the inner loop (a clamped index there
 * made gcc gather every element: 2x slower on the X-ray chain).
 * Integer means truncate toward zero; a power-of-two window uses an exact
 * shift instead of a (slow, scalar) division. */
#define CONV_CHUNK 256
#define CONV_MAX_SEP 64
#define CONV_COLS (CONV_CHUNK + CONV_MAX_SEP - 1)

/* Exact truncating division of a wide value by 2^shift or by count.
 * Integer windows that are not a power of two divide in double: for
 * |acc| < 2^53 the quotient rounded to double truncates to C's integer
 * quotient exactly (a non-integral acc/count lies at least 1/count from
 * the integers, more than its rounding error |acc/count| * 2^-53), and
 * the double division vectorises where a 64-bit integer division is one
 * scalar idiv per element (3.7 ns an element of an int 3x3, 4x the rest
 * of the kernel). |acc| <= count * 2^32 for elements of at most 32 bits,
 * so windows of at most CONV_DOUBLE_COUNT elements qualify; larger ones
 * divide as integers (conv_ below picks the loop once per call). */
#define CONV_DOUBLE_COUNT ((int64_t)1 << 20)
#define DIV_S(W, acc, count, shift) ((shift) < 0                             \
    ? (int64_t)((double)(acc) / (double)(count))                            \
    : (acc) < 0 ? -(W)((uint64_t)-(acc) >> (shift))                         \
    : (W)((uint64_t)(acc) >> (shift)))   /* |acc| >> shift: no signed shift */
#define DIV_U(W, acc, count, shift) ((shift) >= 0 ? (acc) >> (shift)       \
    : (uint64_t)((double)(acc) / (double)(count)))
#define DIV_F(W, acc, count, shift) ((acc) / (count))

SSC_HELPER int log2_exact(int64_t v)   /* log2(v) when v is a power of two, else -1 */
{
    int s = 0;
    while (((int64_t)1 << s) < v && s < 62)
        s++;
    return ((int64_t)1 << s) == v ? s : -1;
}

/* The columns j < N of a row read from column u0 on, split where the
 * clamp acts: [0, *lo) read column 0, [*lo, *hi) columns u0 + j of the
 * row, [*hi, N) column width - 1. Only the middle run is a plain loop
 * over memory, so only it vectorises; the clamped runs are at most the
 * window's half-width long. */
SSC_HELPER inline void conv_runs(int64_t u0, int64_t N, int64_t width, int64_t *lo, int64_t *hi)
{
    int64_t l = u0 < 0 ? -u0 : 0, h = width - u0;
    l = l < N ? l : N;
    h = h > N ? N : h < l ? l : h;
    *lo = l;
    *hi = h;
}

/* col[j] = sum over dy of in[clamp(y + dy)][clamp(u0 + j)], j < N. */
#define CONV_COLUMNS(T, col, ip, y, by, ay, u0, N)                           \
    do {                                                                     \
        int64_t lo_, hi_;                                                    \
        conv_runs((u0), (N), (ip)->width, &lo_, &hi_);                       \
        for (int64_t j = 0; j < (N); j++)                                    \
            (col)[j] = 0;                                                    \
        for (int64_t dy = -(by); dy <= (ay); dy++) {                         \
            const T *row_ = ROW(const T, ip, clamp64((y) + dy, 0, (ip)->height - 1)); \
            for (int64_t j = 0; j < lo_; j++)                                \
                (col)[j] += row_[0];                                         \
            for (int64_t j = lo_; j < hi_; j++)                              \
                (col)[j] += row_[(u0) + j];                                  \
            for (int64_t j = hi_; j < (N); j++)                              \
                (col)[j] += row_[(ip)->width - 1];                           \
        }                                                                    \
    } while (0)

/* acc[k] += col[k + off], k < N. */
#define CONV_ROWSUM(acc, col, off, N)                                        \
    do {                                                                     \
        for (int64_t k = 0; k < (N); k++)                                    \
            (acc)[k] += (col)[k + (off)];                                    \
    } while (0)

#define DEF_CONV(S, T, W, E, K, LO, HI)                                      \
    static void conv_chunk_##S(const ssc_port *ip, int64_t y, int64_t cx,    \
                               int64_t n, ACC_##K(W) *restrict acc)          \
    {                                                                        \
        typedef ACC_##K(W) acc_t;                                            \
        int64_t bx = (ip->win_x - 1) / 2, ax = ip->win_x - 1 - bx;           \
        int64_t by = (ip->win_y - 1) / 2, ay = ip->win_y - 1 - by;           \
        acc_t col[CONV_COLS];                                                \
        if (ip->win_x == 3 && ip->win_y == 3) {                              \
            /* 3x3: the same sums in the same order, each in one pass (no    \
             * zeroing, no intermediate column passes). */                   \
            const T *r0 = ROW(const T, ip, clamp64(y - 1, 0, ip->height - 1)); \
            const T *r1 = ROW(const T, ip, y);                               \
            const T *r2 = ROW(const T, ip, clamp64(y + 1, 0, ip->height - 1)); \
            int64_t u0 = cx - 1, lo, hi, last = ip->width - 1;               \
            conv_runs(u0, n + 2, ip->width, &lo, &hi);                       \
            for (int64_t j = 0; j < lo; j++)                                 \
                col[j] = (((acc_t)0 + r0[0]) + r1[0]) + r2[0];               \
            for (int64_t j = lo; j < hi; j++)                                \
                col[j] = (((acc_t)0 + r0[u0 + j]) + r1[u0 + j]) + r2[u0 + j]; \
            for (int64_t j = hi; j < n + 2; j++)                             \
                col[j] = (((acc_t)0 + r0[last]) + r1[last]) + r2[last];      \
            for (int64_t k = 0; k < n; k++)                                  \
                acc[k] = (((acc_t)0 + col[k]) + col[k + 1]) + col[k + 2];    \
            return;                                                          \
        }                                                                    \
        memset(acc, 0, sizeof(acc_t) * CONV_CHUNK);                          \
        if (ip->win_x <= CONV_MAX_SEP) {                                     \
            if (n == CONV_CHUNK) {                                           \
                CONV_COLUMNS(T, col, ip, y, by, ay, cx - bx, CONV_CHUNK);    \
                CONV_COLUMNS(T, col + CONV_CHUNK, ip, y, by, ay,             \
                             cx - bx + CONV_CHUNK, ip->win_x - 1);           \
                for (int64_t dx = 0; dx < ip->win_x; dx++)                   \
                    CONV_ROWSUM(acc, col, dx, CONV_CHUNK);                   \
            } else {                                                         \
                CONV_COLUMNS(T, col, ip, y, by, ay, cx - bx, n + ip->win_x - 1); \
                for (int64_t dx = 0; dx < ip->win_x; dx++)                   \
                    CONV_ROWSUM(acc, col, dx, n);                            \
            }                                                                \
        } else {                                                             \
            for (int64_t dx = -bx; dx <= ax; dx++) {                         \
                CONV_COLUMNS(T, col, ip, y, by, ay, cx + dx, n);             \
                CONV_ROWSUM(acc, col, 0, n);                                 \
            }                                                                \
        }                                                                    \
    }                                                                        \
    static void conv_##S(const ssc_call *c)                                  \
    {                                                                        \
        typedef ACC_##K(W) acc_t;                                            \
        const ssc_port *ip = &c->in[0], *op = &c->out[0];                    \
        acc_t count = (acc_t)ip->win_x * (acc_t)ip->win_y;                   \
        int shift = log2_exact((int64_t)ip->win_x * ip->win_y);              \
        (void)shift;                           /* unused by floating types */ \
        span e = elements(&c->region, op);                                   \
        acc_t acc[CONV_CHUNK];                                               \
        for (int64_t y = e.y0; y < e.y1; y++) {                              \
            T *restrict out = ROW(T, op, y);                                 \
            for (int64_t cx = e.x0; cx < e.x1; cx += CONV_CHUNK) {           \
                int64_t n = e.x1 - cx < CONV_CHUNK ? e.x1 - cx : CONV_CHUNK; \
                conv_chunk_##S(ip, y, cx, n, acc);                           \
                if (count <= CONV_DOUBLE_COUNT)                              \
                    for (int64_t k = 0; k < n; k++)                          \
                        out[cx + k] = sat_##S((W)DIV_##K(acc_t, acc[k], count, shift)); \
                else                                                         \
                    for (int64_t k = 0; k < n; k++)                          \
                        out[cx + k] = sat_##S((W)(acc[k] / count));          \
            }                                                                \
        }                                                                    \
    }
SSC_TYPES(DEF_CONV)
DISPATCH(func_conv, conv, c->out[0].type)

