{#- The defined functions (function_definition): one loop nest each, from
    the typed kernel (back/c/kernels.rs). Included by program.c and wcet.c. -#}
{%- if !defs.kernels.is_empty() %}

/* ---- defined functions (function_definition) ---------------------------- */

/* Loops generated from the definitions' expressions: every element of the
 * sub-box's region, rows through SSC_ROW (so buffers may be folded), window
 * reads clamped at the grid's border. */
#include <math.h>

/* Hides a value from the optimiser (an empty asm that may change it, and
 * does not): a min or max with a constant bound held this way stays one
 * instruction, where gcc makes `x > 0.0f ? x : 0.0f` a compare and a
 * blend. The values are the same. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)
#define SSC_OPAQUE(v) __asm__("" : "+x"(v))
#elif defined(__GNUC__) && defined(__aarch64__)
#define SSC_OPAQUE(v) __asm__("" : "+w"(v))
#else
#define SSC_OPAQUE(v) ((void)0)
#endif
{% if defs.clamps_rows() %}
static inline int64_t ssc_clamp_row(int64_t r, int64_t n) { return r < 0 ? 0 : r >= n ? n - 1 : r; }
{%- endif %}
{%- if defs.clamps_columns() || !defs.wsums.is_empty() %}
static inline int64_t ssc_clamp_col(int64_t c, int64_t n) { return c < 0 ? 0 : c >= n ? n - 1 : c; }
{%- endif %}
{%- for s in defs.sats %}

/* {{ s.to }} from {{ s.from }}, saturating{% if s.nan %} (NaN gives 0){% endif %}. */
static inline {{ s.to }} {{ s.name }}({{ s.from }} v)
{
{%- if s.nan %}
    if (v != v)
        return 0;
{%- endif %}
    return {% if s.lo_check %}({{ s.wide }})v <= {{ s.lo }} ? {{ s.lo_to }} : {% endif %}{% if s.hi_check %}({{ s.wide }})v >= {{ s.hi }} ? {{ s.hi_to }} : {% endif %}({{ s.to }})v;
}
{%- endfor %}
{%- for m in defs.mins %}
static inline {{ m.1 }} ssc_min_{{ m.0 }}({{ m.1 }} a, {{ m.1 }} b) { return a < b ? a : b; }
{%- endfor %}
{%- for m in defs.maxs %}
static inline {{ m.1 }} ssc_max_{{ m.0 }}({{ m.1 }} a, {{ m.1 }} b) { return a > b ? a : b; }
{%- endfor %}
{%- for m in defs.abss %}
static inline {{ m.1 }} ssc_abs_{{ m.0 }}({{ m.1 }} a) { return a < 0 ? -a : a; }
{%- endfor %}
{%- for m in defs.medians %}


/* The median of n values (sorts them in place; n is odd, at most 49): an
 * insertion sort written as its compare-exchanges without the early stop
 * (past where the sort stops, a compare-exchange swaps nothing, NaN
 * included), so without branches: unrolled, the values stay in registers
 * and the loop over x vectorises. */
static inline {{ m.1 }} ssc_median_{{ m.0 }}({{ m.1 }} *v, int n)
{
#pragma GCC unroll 64
    for (int i = 1; i < n; i++)
#pragma GCC unroll 64
        for (int j = i; j > 0; j--) {
            {{ m.1 }} a = v[j - 1], b = v[j];
            int swap = a > b;
            v[j - 1] = swap ? b : a;
            v[j] = swap ? a : b;
        }
    return v[n / 2];
}

/* The same compare-exchanges in the same order, as loops: for a window of
 * more than 25 values, whose unrolled sort (1176 compare-exchanges at 7 x 7)
 * took the C compiler a minute; the same median, NaN included. */
static inline {{ m.1 }} ssc_median_loop_{{ m.0 }}({{ m.1 }} *v, int n)
{
#pragma GCC unroll 1
    for (int i = 1; i < n; i++)
#pragma GCC unroll 1
        for (int j = i; j > 0; j--) {
            {{ m.1 }} a = v[j - 1], b = v[j];
            int swap = a > b;
            v[j - 1] = swap ? b : a;
            v[j] = swap ? a : b;
        }
    return v[n / 2];
}
{%- endfor %}
{%- for w in defs.wsums %}

/* The sum of a large window: w[k] * rows[r[k]][x + dx[k]] (the column
 * clamped to the grid) over its n terms, left to right in {{ w.ctype }}: the
 * operations of a small window's unrolled sum in its order (a term of
 * weight 1, one[k], adds the element itself; `fused`, under --contract,
 * makes every term after the first an fma), as a loop, which compiles in
 * a moment at any size. A separable sum kept in rows of x passes calls
 * none: unused then, and said so (clang reports an unused static inline). */
static inline __attribute__((unused)) {{ w.ctype }} {{ w.name }}(const {{ w.src }} *const *rows, const short *r, const short *dx,
                                const {{ w.ctype }} *w, const unsigned char *one, int n, int64_t x, int64_t width,
                                int fused)
{
    {{ w.ctype }} acc = 0;
    for (int k = 0; k < n; k++) {
        const {{ w.ctype }} t = ({{ w.ctype }})rows[r[k]][ssc_clamp_col(x + dx[k], width)];
        if (k == 0)
            acc = one[k] ? t : w[k] * t;
        else if (one[k])
            acc = acc + t;
        else
            acc = fused ? {{ w.fma }}(w[k], t, acc) : acc + w[k] * t;
    }
    return acc;
}
{%- endfor %}
{%- for b in defs.bsums %}

/* The sum of a large block: rows[j][mx * x + i] for j < my, i < mx, left to
 * right in {{ b.ctype }} (a small block's unrolled sum in its order), as a loop. */
static inline {{ b.ctype }} {{ b.name }}(const {{ b.src }} *const *rows, int64_t mx, int64_t my, int64_t x)
{
    {{ b.ctype }} acc = ({{ b.ctype }})rows[0][mx * x];
    for (int64_t j = 0; j < my; j++)
        for (int64_t i = j == 0 ? 1 : 0; i < mx; i++)
            acc = acc + ({{ b.ctype }})rows[j][mx * x + i];
    return acc;
}
{%- endfor %}
{%- for m in defs.medians9 %}

/* Sorts three values in place with three compare-exchanges (the sort's,
 * so without branches). */
static inline void ssc_sort3_{{ m.0 }}({{ m.1 }} *a, {{ m.1 }} *b, {{ m.1 }} *c)
{
    {{ m.1 }} lo = *a > *b ? *b : *a, hi = *a > *b ? *a : *b;
    *a = lo, *b = hi;
    lo = *b > *c ? *c : *b, hi = *b > *c ? *b : *c;
    *b = lo, *c = hi;
    lo = *a > *b ? *b : *a, hi = *a > *b ? *a : *b;
    *a = lo, *b = hi;
}

/* The median of 9 values given as three sorted triples (lo[k] <= mid[k] <=
 * hi[k], k < 3): the median of the largest minimum, the median of the
 * medians and the smallest maximum. */
static inline {{ m.1 }} ssc_median9_sorted_{{ m.0 }}(const {{ m.1 }} *lo, const {{ m.1 }} *mid, const {{ m.1 }} *hi)
{
    {{ m.1 }} l = lo[0] > lo[1] ? lo[0] : lo[1], h = hi[0] < hi[1] ? hi[0] : hi[1];
    l = l > lo[2] ? l : lo[2];
    h = h < hi[2] ? h : hi[2];
    {{ m.1 }} a = mid[0], b = mid[1], c = mid[2];
    ssc_sort3_{{ m.0 }}(&a, &b, &c);
    ssc_sort3_{{ m.0 }}(&l, &b, &h);
    return b;
}

{%- endfor %}
{%- if defs.simd() %}

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
{%- endif %}
{%- for m in defs.medians9_rows %}
{%- for v in m.paths %}

#if {{ v.guard }}
/* ssc_sort3_{{ m.keyword }} on {{ v.lanes }} triples at once, operand for operand
 * (a > b ? b : a is min(b, a): the same value for NaN and -0). */
static inline void ssc_sort3_{{ v.tag }}_{{ m.keyword }}({{ v.vector }} *a, {{ v.vector }} *b, {{ v.vector }} *c)
{
    {{ v.vector }} lo = {{ v.prefix }}_min_{{ v.suffix }}(*b, *a), hi = {{ v.prefix }}_max_{{ v.suffix }}(*a, *b);
    {{ v.vector }} lo2 = {{ v.prefix }}_min_{{ v.suffix }}(*c, hi);
    *c = {{ v.prefix }}_max_{{ v.suffix }}(hi, *c);
    *a = {{ v.prefix }}_min_{{ v.suffix }}(lo2, lo);
    *b = {{ v.prefix }}_max_{{ v.suffix }}(lo, lo2);
}

/* The vector one column left of `at` (its first element the last of
 * `before`), and one column right (its last element the first of `after`). */
static inline {{ v.vector }} ssc_left_{{ v.tag }}_{{ m.keyword }}({{ v.vector }} before, {{ v.vector }} at)
{
    return {{ v.left }};
}
static inline {{ v.vector }} ssc_right_{{ v.tag }}_{{ m.keyword }}({{ v.vector }} at, {{ v.vector }} after)
{
    return {{ v.right }};
}
#endif
{%- endfor %}

/* The 3 x 3 medians of columns c0 .. c1 - 1 (c1 - c0 <= {{ defs.chunk() }}) of one row:
 * med[x - c0] is the median of columns x - 1, x, x + 1 (a column past the
 * border is the border's) of rows r0, r1, r2 (the row above, the row, the
 * row below). Each column's triple is sorted once and read by the three
 * medians that contain it.
{%- if !m.paths.is_empty() %} With vectors, the triples of a vector of
 * columns stay in registers, shifted by a column for the neighbours, where
 * through arrays each neighbour would be an unaligned load, which limits
 * the loop; the same operations, so the same values.
{%- endif %} */
static void ssc_median9_row_{{ m.keyword }}(const {{ m.ctype }} *restrict r0, const {{ m.ctype }} *restrict r1, const {{ m.ctype }} *restrict r2,
                                 int64_t c0, int64_t c1, int64_t width, {{ m.ctype }} *restrict med)
{
    int64_t x = c0;
{%- for v in m.paths %}
#{% if loop.first %}if{% else %}elif{% endif %} {{ v.guard }}
    if (c0 + {{ v.lanes }} <= c1) {
        /* The sorted triples of the vectors of columns before x (only the
         * last, x - 1, is read), at x, and after. */
        {{ m.ctype }} a = r0[x > 0 ? x - 1 : 0], b = r1[x > 0 ? x - 1 : 0], c = r2[x > 0 ? x - 1 : 0];
        ssc_sort3_{{ m.keyword }}(&a, &b, &c);
        {{ v.vector }} lo_b = {{ v.prefix }}_set1_{{ v.suffix }}(a), mid_b = {{ v.prefix }}_set1_{{ v.suffix }}(b), hi_b = {{ v.prefix }}_set1_{{ v.suffix }}(c);
        {{ v.vector }} lo = {{ v.prefix }}_loadu_{{ v.suffix }}(r0 + x), mid = {{ v.prefix }}_loadu_{{ v.suffix }}(r1 + x), hi = {{ v.prefix }}_loadu_{{ v.suffix }}(r2 + x);
        ssc_sort3_{{ v.tag }}_{{ m.keyword }}(&lo, &mid, &hi);
        for (; x + {{ v.lanes }} <= c1; x += {{ v.lanes }}) {
            {{ v.vector }} lo_a, mid_a, hi_a;
            if (x + {{ 2 * v.lanes }} <= width) {
                lo_a = {{ v.prefix }}_loadu_{{ v.suffix }}(r0 + x + {{ v.lanes }});
                mid_a = {{ v.prefix }}_loadu_{{ v.suffix }}(r1 + x + {{ v.lanes }});
                hi_a = {{ v.prefix }}_loadu_{{ v.suffix }}(r2 + x + {{ v.lanes }});
                ssc_sort3_{{ v.tag }}_{{ m.keyword }}(&lo_a, &mid_a, &hi_a);
            } else {   /* only column x + {{ v.lanes }} is read: the border's past it */
                const int64_t after = x + {{ v.lanes }} < width ? x + {{ v.lanes }} : width - 1;
                a = r0[after], b = r1[after], c = r2[after];
                ssc_sort3_{{ m.keyword }}(&a, &b, &c);
                lo_a = {{ v.prefix }}_set1_{{ v.suffix }}(a), mid_a = {{ v.prefix }}_set1_{{ v.suffix }}(b), hi_a = {{ v.prefix }}_set1_{{ v.suffix }}(c);
            }
            /* ssc_median9_sorted_{{ m.keyword }}, operand for operand */
            {{ v.vector }} l = {{ v.prefix }}_max_{{ v.suffix }}({{ v.prefix }}_max_{{ v.suffix }}(ssc_left_{{ v.tag }}_{{ m.keyword }}(lo_b, lo), lo), ssc_right_{{ v.tag }}_{{ m.keyword }}(lo, lo_a));
            {{ v.vector }} h = {{ v.prefix }}_min_{{ v.suffix }}({{ v.prefix }}_min_{{ v.suffix }}(ssc_left_{{ v.tag }}_{{ m.keyword }}(hi_b, hi), hi), ssc_right_{{ v.tag }}_{{ m.keyword }}(hi, hi_a));
            {{ v.vector }} ma = ssc_left_{{ v.tag }}_{{ m.keyword }}(mid_b, mid), mb = mid, mc = ssc_right_{{ v.tag }}_{{ m.keyword }}(mid, mid_a);
            ssc_sort3_{{ v.tag }}_{{ m.keyword }}(&ma, &mb, &mc);
            ssc_sort3_{{ v.tag }}_{{ m.keyword }}(&l, &mb, &h);
            {{ v.prefix }}_storeu_{{ v.suffix }}(med + (x - c0), mb);
            lo_b = lo, mid_b = mid, hi_b = hi;
            lo = lo_a, mid = mid_a, hi = hi_a;
        }
    }
{%- if loop.last %}
#endif
{%- endif %}
{%- endfor %}
    if (x == c1)
        return;
    /* Columns x .. c1 - 1: the triples of columns x - 1 .. c1 into arrays
     * (column c at c - x + 1), then the medians. */
    {{ m.ctype }} lo[{{ defs.chunk() + 2 }}], mid[{{ defs.chunk() + 2 }}], hi[{{ defs.chunk() + 2 }}];
    for (int64_t c = x > 0 ? x - 1 : 0; c < (c1 < width ? c1 + 1 : width); c++) {
        {{ m.ctype }} a = r0[c], b = r1[c], d = r2[c];
        ssc_sort3_{{ m.keyword }}(&a, &b, &d);
        lo[c - x + 1] = a;
        mid[c - x + 1] = b;
        hi[c - x + 1] = d;
    }
    if (x == 0) {
        lo[0] = lo[1];
        mid[0] = mid[1];
        hi[0] = hi[1];
    }
    if (c1 == width) {
        lo[c1 - x + 1] = lo[c1 - x];
        mid[c1 - x + 1] = mid[c1 - x];
        hi[c1 - x + 1] = hi[c1 - x];
    }
    for (int64_t e = x; e < c1; e++)
        med[e - c0] = ssc_median9_sorted_{{ m.keyword }}(lo + (e - x), mid + (e - x), hi + (e - x));
}
{%- endfor %}
{%- for m in defs.medians9_direct %}

/* The median of 9 values (a 3 x 3 window, row by row) with 30 min/max
 * instead of the sort's 72: the median of its sorted columns (a0 a3 a6),
 * (a1 a4 a7), (a2 a5 a8). The same value as the sort for any values
 * without NaN. */
static inline {{ m.1 }} ssc_median9_{{ m.0 }}({{ m.1 }} a0, {{ m.1 }} a1, {{ m.1 }} a2, {{ m.1 }} a3, {{ m.1 }} a4, {{ m.1 }} a5, {{ m.1 }} a6, {{ m.1 }} a7, {{ m.1 }} a8)
{
    ssc_sort3_{{ m.0 }}(&a0, &a3, &a6);
    ssc_sort3_{{ m.0 }}(&a1, &a4, &a7);
    ssc_sort3_{{ m.0 }}(&a2, &a5, &a8);
    const {{ m.1 }} lo[3] = { a0, a1, a2 }, mid[3] = { a3, a4, a5 }, hi[3] = { a6, a7, a8 };
    return ssc_median9_sorted_{{ m.0 }}(lo, mid, hi);
}
{%- endfor %}
{%- for k in defs.kernels %}

/* {{ k.fn_name }}:
{%- for line in k.comment %}
 *   {{ line }}
{%- endfor %} */
static void {{ k.fn_name }}(const ssc_call *call)
{
{%- for p in k.inputs %}
    const ssc_port *const {{ p.1 }}_port = &call->in[{{ p.0 }}];
{%- endfor %}
{%- for o in k.outputs %}
    const ssc_port *const {{ o.name }}_port = &call->out[{{ o.index }}];
{%- endfor %}
{%- for t in k.tables %}
    static const {{ t.ctype }} table{{ loop.index0 }}[{{ t.len }}] = { {{ t.values }} };
{%- endfor %}
{%- if !k.bounds.is_empty() %}
    /* Constants hidden from the optimiser: the bounds of min and max, and
     * the zeros added. */
{%- endif %}
{%- for b in k.bounds %}
    {{ b.ctype }} {{ b.name }} = {{ b.value }};
    SSC_OPAQUE({{ b.name }});
{%- endfor %}
{%- if k.border.is_some() || defs.chunked(k) %}
    const int64_t width = call->width;
{%- endif %}
{%- match k.slide %}
{%- when Some with (l) %}
    const int64_t x0 = call->region.x0, x1 = call->region.x1;
    const int64_t y0 = call->region.y0, y1 = call->region.y1;
    /* In chunks of {{ defs.chunk() }} points: each input row is interpolated in x
     * once, into a row of 2 x {{ defs.chunk() }} elements (hx: rows y - 1, y, y + 1
     * of the input, sliding down with the output rows, in the level-1
     * cache); output rows 2y and 2y + 1 blend two of them in y. */
    for (int64_t c0 = x0; c0 < x1; c0 += {{ defs.chunk() }}) {
        const int64_t c1 = c0 + {{ defs.chunk() }} < x1 ? c0 + {{ defs.chunk() }} : x1;
        {{ l.ctype() }} hx[3][2 * {{ defs.chunk() }}];
        for (int64_t y = y0; y < y1; y++) {
            /* The rows not interpolated yet: all at the first row. */
            for (int64_t r = y == y0 ? y - 1 : y + 1; r <= y + 1; r++) {
                const {{ l.ctype() }} *restrict src = SSC_ROW(const {{ l.ctype() }}, {{ l.input }}_port, ssc_clamp_row(r, {{ l.input }}_port->height));
                {{ l.ctype() }} *restrict row = hx[(r - y0 + 1) % 3];   /* point x at 2 (x - c0) */
                /* Columns [c0, inner0) and [inner1, c1) clamp their neighbours. */
                const int64_t inner0 = c1 < 1 ? c1 : 1, inner1 = c1 < width - 1 ? c1 : width - 1;
                int64_t x = c0;
                for (; x < inner0; x++) {
                    row[2 * (x - c0)] = {{ l.even("src[ssc_clamp_col(x - 1, width)]", "src[x]") }};
                    row[2 * (x - c0) + 1] = {{ l.odd("src[x]", "src[ssc_clamp_col(x + 1, width)]") }};
                }
                for (; x < inner1; x++) {
                    row[2 * (x - c0)] = {{ l.even("src[x - 1]", "src[x]") }};
                    row[2 * (x - c0) + 1] = {{ l.odd("src[x]", "src[x + 1]") }};
                }
                for (; x < c1; x++) {
                    row[2 * (x - c0)] = {{ l.even("src[ssc_clamp_col(x - 1, width)]", "src[x]") }};
                    row[2 * (x - c0) + 1] = {{ l.odd("src[x]", "src[ssc_clamp_col(x + 1, width)]") }};
                }
            }
            const {{ l.ctype() }} *restrict above = hx[(y - y0) % 3];
            const {{ l.ctype() }} *restrict centre = hx[(y - y0 + 1) % 3];
            const {{ l.ctype() }} *restrict below = hx[(y - y0 + 2) % 3];
            {{ l.ctype() }} *restrict even = SSC_ROW({{ l.ctype() }}, {{ l.output }}_port, 2 * y) + 2 * c0;
            {{ l.ctype() }} *restrict odd = SSC_ROW({{ l.ctype() }}, {{ l.output }}_port, 2 * y + 1) + 2 * c0;
            for (int64_t e = 0; e < 2 * (c1 - c0); e++) {
                even[e] = {{ l.even("above[e]", "centre[e]") }};
                odd[e] = {{ l.odd("centre[e]", "below[e]") }};
            }
        }
    }
}
{%- when None %}
{%- if defs.chunked(k) %}
    const int64_t ex0 = call->region.x0, ex1 = call->region.x1;
    const int64_t y0 = call->region.y0, y1 = call->region.y1;
    /* In chunks of {{ defs.chunk() }} columns, so that what is computed once per row
     * stays in the level-1 cache:
{%- if !k.passes.is_empty() %}
     * - the x pass of each separable sum, once per input row (its rows of
     *   sums slide down with the output rows);
{%- endif %}
{%- if !k.locals.is_empty() %}
     * - the values its window operators read, once per row of theirs;
{%- endif %}
{%- if !k.medians.is_empty() %}
     * - each 3 x 3 median, a row at a time;
{%- endif %}
     * then each output element from those. */
    for (int64_t c0 = ex0; c0 < ex1; c0 += {{ defs.chunk() }}) {
        const int64_t c1 = c0 + {{ defs.chunk() }} < ex1 ? c0 + {{ defs.chunk() }} : ex1;
{%- for l in k.locals %}
        {{ l.ctype }} {{ l.name }}[{{ l.rows }}][{{ l.columns }}];   /* {{ l.comment }} */
{%- endfor %}
{%- for p in k.passes %}
        {{ p.ctype }} {{ p.name }}[{{ p.rows }}][{{ defs.chunk() }}];   /* {{ p.comment }} */
{%- endfor %}
{%- for m in k.medians %}
        {{ m.ctype }} {{ m.name }}_med[{{ defs.chunk() }}];   /* {{ m.comment }} */
{%- endfor %}
        for (int64_t ey = y0; ey < y1; ey++) {
            const int64_t y = ey;
{%- for l in k.locals %}
            /* The rows of {{ l.name }} not computed yet: all at the first row. */
            for (int64_t r = ey == y0 ? y - {{ l.before }} : y + {{ l.after }}; r <= y + {{ l.after }}; r++) {
{%- for q in l.reads %}
                const {{ q.ctype }} *restrict {{ q.name }} = {{ q.expr }};
{%- endfor %}
                {{ l.ctype }} *restrict row = {{ l.name }}[(r - y0 + {{ l.before }}) % {{ l.rows }}] + {{ l.left }} - c0;   /* column x at row[x] */
                const int64_t from = c0 > {{ l.left }} ? c0 - {{ l.left }} : 0, to = c1 + {{ l.right }} < width ? c1 + {{ l.right }} : width;
                for (int64_t x = from; x < to; x++)
                    row[x] = {{ l.value }};
            }
{%- endfor %}
{%- for p in k.passes %}
            /* The rows of the window not summed yet: all at the first row. */
            for (int64_t r = ey == y0 ? y - {{ p.before }} : y + {{ p.after }}; r <= y + {{ p.after }}; r++) {
                const {{ p.in_ctype }} *restrict src = {{ p.src }};
                {{ p.ctype }} *restrict sum = {{ p.name }}[(r - y0 + {{ p.before }}) % {{ p.rows }}];
                /* Columns [c0, inner0) and [inner1, c1) clamp their window. */
                const int64_t inner0 = c1 < {{ p.left }} ? c1 : {{ p.left }}, inner1 = c1 < width - {{ p.right }} ? c1 : width - {{ p.right }};
                int64_t x = c0;
                for (; x < inner0; x++)
                    sum[x - c0] = {{ p.edge }};
                for (; x < inner1; x++)
                    sum[x - c0] = {{ p.inner }};
                for (; x < c1; x++)
                    sum[x - c0] = {{ p.edge }};
            }
{%- for a in p.at %}
            const {{ p.ctype }} *restrict {{ a.0 }} = {{ p.name }}[{{ a.1 }}];
{%- endfor %}
{%- endfor %}
{%- for r in k.rows %}
            const {{ r.ctype }} *restrict {{ r.name }} = {{ r.expr }};
{%- endfor %}
{%- for o in k.outputs %}
            {{ o.ctype }} *restrict {{ o.name }}_row = SSC_ROW({{ o.ctype }}, {{ o.name }}_port, ey);
{%- endfor %}
{%- for m in k.medians %}
            ssc_median9_row_{{ m.keyword }}({{ m.rows[0] }}, {{ m.rows[1] }}, {{ m.rows[2] }}, c0, c1, width, {{ m.name }}_med);
{%- endfor %}
            for (int64_t x = c0; x < c1; x++) {
{%- for o in k.outputs %}
                {{ o.name }}_row[x] = {{ o.inner }};
{%- endfor %}
            }
        }
    }
}
{%- else %}
    const int64_t ex0 = call->region.x0{% if k.mx > 1 %} * {{ k.mx }}{% endif %}, ex1 = call->region.x1{% if k.mx > 1 %} * {{ k.mx }}{% endif %};
    for (int64_t ey = call->region.y0{% if k.my > 1 %} * {{ k.my }}{% endif %}; ey < call->region.y1{% if k.my > 1 %} * {{ k.my }}{% endif %}; ey++) {
{%- if k.uses_y %}
        const int64_t y = ey{% if k.my > 1 %} / {{ k.my }}{% endif %};
{%- endif %}
{%- for r in k.rows %}
        const {{ r.ctype }} *restrict {{ r.name }} = {{ r.expr }};
{%- endfor %}
{%- for o in k.outputs %}
        {{ o.ctype }} *restrict {{ o.name }}_row = SSC_ROW({{ o.ctype }}, {{ o.name }}_port, ey);
{%- endfor %}
{%- match k.border %}
{%- when Some with (b) %}
        /* Elements whose window reaches past the left or right border. */
        const int64_t inner0 = {{ b.0 }}{% if k.mx > 1 %} * {{ k.mx }}{% endif %}, inner1 = (width - {{ b.1 }}){% if k.mx > 1 %} * {{ k.mx }}{% endif %};
{%- if k.mx > 1 %}
        int64_t next = ex0;   /* the next element to compute */
        for (; next < ex1 && next < inner0; next++) {
            const int64_t ex = next, x = ex / {{ k.mx }};
{%- for o in k.outputs %}
            {{ o.name }}_row[ex] = {{ o.edge }};
{%- endfor %}
        }
        const int64_t inside1 = (ex1 < inner1 ? ex1 : inner1) / {{ k.mx }};
{%- if !k.by_parity.is_empty() %}
        /* Inside, point x gives elements 2x and 2x + 1: each parity of the
         * row has its own loop over x, which writes both elements with their
         * own weights, without a select per element, and vectorises. */
{%- for stmts in k.by_parity %}
        {% if loop.first %}if ((ey & 1) == 0) {% else %}} else {% endif %}{
            for (int64_t x = next / {{ k.mx }}; x < inside1; x++) {
{%- for s in stmts %}
                {{ s }}
{%- endfor %}
            }
{%- endfor %}
        }
{%- else %}
        /* Inside, point x gives elements {{ k.mx }}x + k, k < {{ k.mx }}: a constant
         * inner count, so the loop over x vectorises. */
        for (int64_t x = next / {{ k.mx }}; x < inside1; x++) {
            for (int64_t k = 0; k < {{ k.mx }}; k++) {
                const int64_t ex = {{ k.mx }} * x + k;
{%- for o in k.outputs %}
                {{ o.name }}_row[ex] = {{ o.inner }};
{%- endfor %}
            }
        }
{%- endif %}
        if (next < {{ k.mx }} * inside1)
            next = {{ k.mx }} * inside1;
        for (; next < ex1; next++) {
            const int64_t ex = next, x = ex / {{ k.mx }};
{%- for o in k.outputs %}
            {{ o.name }}_row[ex] = {{ o.edge }};
{%- endfor %}
        }
{%- else %}
        int64_t ex = ex0;
        for (; ex < ex1 && ex < inner0; ex++) {
            const int64_t x = ex;
{%- for o in k.outputs %}
            {{ o.name }}_row[ex] = {{ o.edge }};
{%- endfor %}
        }
        for (; ex < ex1 && ex < inner1; ex++) {
            const int64_t x = ex;
{%- for o in k.outputs %}
            {{ o.name }}_row[ex] = {{ o.inner }};
{%- endfor %}
        }
        for (; ex < ex1; ex++) {
            const int64_t x = ex;
{%- for o in k.outputs %}
            {{ o.name }}_row[ex] = {{ o.edge }};
{%- endfor %}
        }
{%- endif %}
{%- when None %}
{%- if k.mx > 1 && k.uses_x %}
        /* Point x gives elements {{ k.mx }}x + k, k < {{ k.mx }}: a constant inner
         * count, so the loop over x vectorises. */
        for (int64_t x = ex0 / {{ k.mx }}; x < ex1 / {{ k.mx }}; x++) {
            for (int64_t k = 0; k < {{ k.mx }}; k++) {
                const int64_t ex = {{ k.mx }} * x + k;
{%- for o in k.outputs %}
                {{ o.name }}_row[ex] = {{ o.inner }};
{%- endfor %}
            }
        }
{%- else %}
        for (int64_t ex = ex0; ex < ex1; ex++) {
{%- if k.uses_x %}
            const int64_t x = ex{% if k.mx > 1 %} / {{ k.mx }}{% endif %};
{%- endif %}
{%- for o in k.outputs %}
            {{ o.name }}_row[ex] = {{ o.inner }};
{%- endfor %}
        }
{%- endif %}
{%- endmatch %}
    }
}
{%- endif %}
{%- endmatch %}
{%- endfor %}
{%- endif %}
