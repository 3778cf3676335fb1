#!/usr/bin/env python3
"""halide_chains.py — examples/xray.ssc and examples/fluoro.ssc in Halide,
compiled ahead of time, inputs as ImageParams (frames in memory).

Writes, for one chain, one schedule and one resolution R (a compile-time
constant: every input and output buffer has its bounds and strides fixed),
a static library `OUT/NAME.a` (the pipeline and Halide's runtime) and its
header `OUT/NAME.h`, NAME = `CHAIN_halide_SCHEDULE[_nsf]`, with one entry

    xray:   int NAME(halide_buffer_t *raw,      /* u16 R x R */
                     halide_buffer_t *offset,   /* f32 R x R */
                     halide_buffer_t *gainmap,  /* f32 R x R */
                     halide_buffer_t *display,  /* f32 R x R       (contrast) */
                     halide_buffer_t *store,    /* u16 R x R       (archive)  */
                     halide_buffer_t *monitor); /* f32 R/2 x R/2   (preview)  */
    fluoro: int NAME(halide_buffer_t *raw,      /* u16 R x R */
                     halide_buffer_t *dark,     /* u16 R x R */
                     halide_buffer_t *gain,     /* f32 R x R */
                     halide_buffer_t *archive,  /* u16 R x R */
                     halide_buffer_t *display,  /* u8  R x R */
                     halide_buffer_t *preview); /* u8  R/4 x R/4 */

which computes one frame. `halide_driver.c` feeds it the preloaded frames
and computes ssc's checksum over the three outputs (timed, like ssc's
sinks).

Schedules (--schedule):
  mullapudi  the Mullapudi2016 autoscheduler (parallelism 2, the machine's
             last-level cache)
  adams      the Adams2019 autoscheduler with its built-in weights
             (parallelism 2)
  li         the Li2018 autoscheduler (parallelism 2)
  manual     a hand-written schedule in the style of Halide's apps/blur:
             output rows split into strips, strips parallel, producers
             computed per strip (sliding windows per row where a stencil
             allows), everything vectorised at the target's natural width;
             three passes over the frame
  expertS    one pass: the three outputs in one loop over strips of S rows
             (S = 32, 64, 128, 256), strips parallel, every producer,
             the half- and quarter-resolution levels included, computed
             per strip (the halo rows each strip needs recomputed), the
             separable filters' row passes sliding down their consumer's
             rows; at the target's natural width (16 floats, AVX-512).
             Variants (suffixes, any order): `r` the row passes recomputed
             per row instead of sliding; `h` half the vector width; `c`
             one chunk of strips per thread, strips in order, producers
             stored at the chunk and sliding from strip to strip instead
             of recomputing the halo (all exact; slower than plain expertS
             here: Halide does not fold those buffers)

The arithmetic is what ssc generates from the chains' definitions, in
ssc's order (every float operation; min and max as ssc's selects; borders
clamped, written as BoundaryConditions.repeat_edge). Built for the host
with `strict_float` (default), the outputs are ssc's to the bit; with
--no-strict-float Halide may reassociate, contract (FMA) and replace
divisions by constants with multiplications, and the checksum may differ.

    /work/venv-halide/bin/python halide_chains.py --chain fluoro --schedule manual \
        --resolution 1024 --out DIR [--no-strict-float]
"""

import argparse
import os
import re
import sys

import halide as hl

x, y = hl.Var("x"), hl.Var("y")
xo, xi, yo, yi = hl.Var("xo"), hl.Var("xi"), hl.Var("yo"), hl.Var("yi")
F32, U16, U8 = hl.Float(32), hl.UInt(16), hl.UInt(8)
LIB = os.path.join(os.path.dirname(hl.__file__), "lib64")


def f32(v):
    return hl.f32(v)


# ssc's min and max (`a < b ? a : b`, `a > b ? a : b`): selects, so that
# what they give for +0/-0 and NaN is ssc's too (x86's minps/maxps are
# exactly these selects, so they cost nothing).
def ex(e):
    return e if isinstance(e, hl.Expr) else hl.Expr(e)


def smin(a, b):
    a, b = ex(a), ex(b)
    return hl.select(a < b, a, b)


def smax(a, b):
    a, b = ex(a), ex(b)
    return hl.select(a > b, a, b)


def image(name, t, R):
    """An input frame, R x R, dense rows: bounds fixed at compile time."""
    p = hl.ImageParam(t, 2, name)
    p.dim(0).set_bounds(0, R).set_stride(1)
    p.dim(1).set_bounds(0, R).set_stride(R)
    p.set_estimates([(0, R), (0, R)])
    return p


def fix_output(f, n):
    ob = f.output_buffer()
    ob.dim(0).set_bounds(0, n).set_stride(1)
    ob.dim(1).set_bounds(0, n).set_stride(n)
    f.set_estimates([hl.Range(0, n), hl.Range(0, n)])


def clamped(f, n):
    """f read with coordinates clamped to its n x n grid (ssc's borders)."""
    return hl.BoundaryConditions.repeat_edge(f, [hl.Range(0, n), hl.Range(0, n)])


def down2(name, inp):
    """The 2x2 block mean, ((a + b) + c) + d over 4, ssc's order."""
    f = hl.Func(name)
    f[x, y] = (((inp[2 * x, 2 * y] + inp[2 * x + 1, 2 * y]) + inp[2 * x, 2 * y + 1])
               + inp[2 * x + 1, 2 * y + 1]) / f32(4.0)
    return f


def separable(name, inp, n, taps, div):
    """separable(in, taps, taps) / div in ssc's order: each row's weighted
    sum left to right, then the rows' sums the same way, then / div; as two
    Funcs (rows, then columns), the input clamped to its n x n grid."""
    c = clamped(inp, n)
    r = len(taps) // 2
    row = hl.Func(name + "_x")

    def wsum(term):
        acc = None
        for k, w in enumerate(taps):
            t = term(k - r)
            t = t if w == 1 else f32(w) * t
            acc = t if acc is None else acc + t
        return acc

    row[x, y] = wsum(lambda d: c[x + d, y])
    f = hl.Func(name)
    f[x, y] = wsum(lambda d: row[x, y + d]) / f32(div)
    return f, row, c


def median3x3(name, inp, n):
    """The median of the 3x3 window, clamped. ssc sorts the 9 values (an
    insertion sort of compare-exchanges); an expert takes the median of 9
    the usual cheaper way: sort each column of 3 (shared by the three
    windows that contain it), then the median of (max of the minima, median
    of the middles, min of the maxima). Both return one of the 9 values, the
    same one for any values without NaN and -0 (the chain's flatfield is
    max(...) * gain >= +0), so the pixels are ssc's."""
    c = clamped(inp, n)

    def sort3(a, b, cc):
        lo, hi = smin(a, b), smax(a, b)
        lo2 = smin(lo, cc)
        mid = smax(lo, smin(hi, cc))
        hi2 = smax(hi, cc)
        return lo2, mid, hi2

    cols = hl.Func(name + "_cols")
    cols[x, y] = sort3(c[x, y - 1], c[x, y], c[x, y + 1])
    f = hl.Func(name)
    lo = smax(smax(cols[x - 1, y][0], cols[x, y][0]), cols[x + 1, y][0])
    hi = smin(smin(cols[x - 1, y][2], cols[x, y][2]), cols[x + 1, y][2])
    m = cols[x - 1, y][1], cols[x, y][1], cols[x + 1, y][1]
    mid = sort3(*m)[1]
    f[x, y] = sort3(lo, mid, hi)[1]
    return f, cols, c


def up2_linear(name, inp, n):
    """ssc's `linear` 2:1 up of an n x n grid: 3/4 of the nearest element
    plus 1/4 of the next one on the output element's side, in x, then the
    same in y, clamped. ssc writes q*r[x-1] + h*r[x] (even) and
    h*r[x] + q*r[x+1] (odd); float addition commutes, so
    h*r[x/2] + q*r[x/2 - 1 + 2(x%2)] is both, without a select."""
    c = clamped(inp, n)
    q, h = f32(0.25), f32(0.75)
    upx = hl.Func(name + "_x")
    upx[x, y] = h * c[x // 2, y] + q * c[x // 2 - 1 + 2 * (x % 2), y]
    f = hl.Func(name)
    f[x, y] = h * upx[x, y // 2] + q * upx[x, y // 2 - 1 + 2 * (y % 2)]
    return f, upx, c


# ---- the chains ------------------------------------------------------------

def xray(R):
    H, Q = R // 2, R // 4
    raw, offset, gainmap = image("raw", U16, R), image("offset", F32, R), image("gainmap", F32, R)
    flatfield = hl.Func("flatfield")
    # subtract = max(float(raw) - offset, 0); flatfield = subtract * gainmap
    flatfield[x, y] = smax(hl.cast(F32, raw[x, y]) - offset[x, y], f32(0.0)) * gainmap[x, y]
    defect, defect_cols, flatfield_c = median3x3("defect", flatfield, R)
    nr0, nr0_x, _ = separable("nr0", defect, R, [1, 2, 1], 16.0)
    down1 = down2("down1", defect)
    nr1, nr1_x, _ = separable("nr1", down1, H, [1, 2, 1], 16.0)
    down2_ = down2("down2", nr1)
    nr2, nr2_x, _ = separable("nr2", down2_, Q, [1, 2, 1], 16.0)
    up2, up2_x, _ = up2_linear("up2", nr2, Q)
    merge1 = hl.Func("merge1")
    merge1[x, y] = up2[x, y] + f32(1.5) * (nr1[x, y] - up2[x, y])
    up1, up1_x, _ = up2_linear("up1", merge1, H)
    merge0 = hl.Func("merge0")
    merge0[x, y] = up1[x, y] + f32(0.5) * (nr0[x, y] - up1[x, y])
    contrast = hl.Func("display")      # window_level(merge0, 16000, 8000)
    contrast[x, y] = smin(smax((merge0[x, y] - f32(0.0)) / f32(16000.0), f32(0.0)), f32(1.0))
    archive = hl.Func("store")         # ushort(clamp(round(65535 * in), 0, 65535))
    archive[x, y] = hl.cast(U16, smin(smax(hl.floor(f32(65535.0) * contrast[x, y] + f32(0.5)),
                                           f32(0.0)), f32(65535.0)))
    preview = down2("monitor", contrast)
    for f, n in ((contrast, R), (archive, R), (preview, H)):
        fix_output(f, n)
    funcs = dict(flatfield=flatfield, flatfield_c=flatfield_c, defect=defect, defect_cols=defect_cols, nr0=nr0,
                 nr0_x=nr0_x, down1=down1, nr1=nr1, nr1_x=nr1_x, down2=down2_, nr2=nr2,
                 nr2_x=nr2_x, up2=up2, up2_x=up2_x, merge1=merge1, up1=up1, up1_x=up1_x,
                 merge0=merge0)
    return [raw, offset, gainmap], [contrast, archive, preview], funcs


def fluoro(R):
    H, Q = R // 2, R // 4
    raw, dark, gain = image("raw", U16, R), image("dark", U16, R), image("gain", F32, R)
    c = hl.Func("c")   # max(float(raw) - float(dark), 0) * gain
    c[x, y] = smax(hl.cast(F32, raw[x, y]) - hl.cast(F32, dark[x, y]), f32(0.0)) * gain[x, y]
    g5 = [1, 4, 6, 4, 1]
    g0, g0_x, c_c = separable("g0", c, R, g5, 256.0)
    e0 = hl.Func("e0")
    e0[x, y] = c[x, y] - g0[x, y]
    l1 = down2("l1", g0)
    g1, g1_x, _ = separable("g1", l1, H, g5, 256.0)
    e1 = hl.Func("e1")
    e1[x, y] = l1[x, y] - g1[x, y]
    l2 = down2("l2", g1)
    g2, g2_x, _ = separable("g2", l2, Q, g5, 256.0)
    r1 = hl.Func("r1")  # up2 nearest of g2 + 1.5 * e1
    r1[x, y] = g2[x // 2, y // 2] + f32(1.5) * e1[x, y]
    r0 = hl.Func("r0")  # up2 nearest of r1 + 2 * clamp(e0, -64, 64)
    r0[x, y] = r1[x // 2, y // 2] + f32(2.0) * smin(smax(e0[x, y], f32(-64.0)), f32(64.0))

    def to_display(v):
        return hl.cast(U8, smin(smax(hl.floor((v - f32(512.0)) / f32(32.0) + f32(0.5)),
                                     f32(0.0)), f32(255.0)))

    archive = hl.Func("archive")
    archive[x, y] = hl.cast(U16, smin(smax(hl.floor(r0[x, y] + f32(0.5)), f32(0.0)),
                                      f32(65535.0)))
    display = hl.Func("display")
    display[x, y] = to_display(r0[x, y])
    p1 = down2("p1", r0)
    p2 = down2("p2", p1)
    preview = hl.Func("preview")
    preview[x, y] = to_display(p2[x, y])
    for f, n in ((archive, R), (display, R), (preview, Q)):
        fix_output(f, n)
    funcs = dict(c=c, c_c=c_c, g0=g0, g0_x=g0_x, e0=e0, l1=l1, g1=g1, g1_x=g1_x, e1=e1, l2=l2, g2=g2,
                 g2_x=g2_x, r1=r1, r0=r0, p1=p1, p2=p2)
    return [raw, dark, gain], [archive, display, preview], funcs


# ---- hand-written schedules ---------------------------------------------------

def strips(f, rows, vec):
    """apps/blur's outer loops: rows in strips of `rows`, strips parallel,
    x vectorised."""
    f.split(y, yo, yi, rows, hl.TailStrategy.GuardWithIf).parallel(yo) \
     .vectorize(x, vec, hl.TailStrategy.GuardWithIf)
    return f


def manual_xray(outs, fn, vec, R):
    contrast, archive, preview = outs
    S = 32
    # Pass 1: the median at full resolution, strips in parallel; the clamped
    # flatfield (pointwise on the frames) and the sorted columns slide down
    # each strip a row at a time.
    strips(fn["defect"].compute_root(), S, vec)
    fn["defect_cols"].store_at(fn["defect"], yo).compute_at(fn["defect"], yi) \
        .vectorize(x, vec)
    fn["flatfield_c"].store_at(fn["defect"], yo).compute_at(fn["defect"], yi) \
        .vectorize(x, vec)
    # Pass 2: the half and quarter levels (1/4 and 1/16 of the pixels), each
    # a parallel pass, the row filters per strip.
    for name in ("down1", "nr1", "down2", "nr2", "merge1"):
        strips(fn[name].compute_root(), 16, vec)
    for name, at in (("nr1_x", "nr1"), ("nr2_x", "nr2"), ("up2_x", "merge1")):
        fn[name].store_at(fn[at], yo).compute_at(fn[at], yi).vectorize(x, vec)
    # Pass 3: full-resolution output strips: the row sums of nr0 and up1's
    # x interpolation slide down the strip; merge0 and up1 inline. The
    # archive and the preview read the display (an output: compute_with
    # refuses to fuse a consumer with its producer), each a parallel pass
    # over the 4 MB the display has just left in the cache.
    strips(contrast, S, vec)
    fn["nr0_x"].store_at(contrast, yo).compute_at(contrast, yi).vectorize(x, vec)
    fn["up1_x"].store_at(contrast, yo).compute_at(contrast, yi).vectorize(x, vec)
    strips(archive, S, vec)
    strips(preview, S // 2, vec)


def manual_fluoro(outs, fn, vec, R):
    archive, display, preview = outs
    S = 32
    # Pass 1: g0 at full resolution (strips parallel, the corrected frame and
    # the row sums slide down the strip), stored: e0 and l1 read it.
    strips(fn["g0"].compute_root(), S, vec)
    fn["g0_x"].store_at(fn["g0"], yo).compute_at(fn["g0"], yi).vectorize(x, vec)
    # (the clamped c: c itself is also read inline by e0 in pass 3)
    fn["c_c"].store_at(fn["g0"], yo).compute_at(fn["g0"], yi).vectorize(x, vec)
    # Pass 2: the half and quarter levels.
    for name in ("l1", "g1", "l2", "g2", "r1"):
        strips(fn[name].compute_root(), 16, vec)
    for name in ("g1_x", "g2_x"):
        fn[name].store_at(fn[name[:2]], yo).compute_at(fn[name[:2]], yi).vectorize(x, vec)
    # Pass 3: r0 at full resolution (c and e0 inline: the frames are
    # re-read, g0 comes from pass 1), strips in parallel, stored: three
    # outputs read it. Then the display fused into the archive's loop, and
    # the preview (1/16 of the pixels) with p1 per strip.
    strips(fn["r0"].compute_root(), S, vec)
    strips(archive, S, vec)
    strips(display, S, vec)
    display.compute_with(archive, yi)
    strips(preview, 8, vec)
    fn["p1"].compute_at(preview, yo).vectorize(x, vec)


def row_pass(f, at, consumer, vec, slide):
    """A separable filter's row pass under `consumer`'s rows: `slide`, stored
    at the strip and computed a row at a time as `consumer` walks down it
    (each row once); else computed per `consumer` row (its 3 or 5 rows again
    each row: no rows kept between rows)."""
    if slide:
        f.store_at(*at).compute_at(consumer, y)
    else:
        f.compute_at(consumer, y)
    f.vectorize(x, vec)


yc, yr = hl.Var("yc"), hl.Var("yr")


def expert_strips(f, rows, vec, chunk):
    """strips(), or with `chunk` rows a thread: the rows split into one
    chunk per thread (parallel), each chunk into strips of `rows`, its
    strips in order (producers stored at the chunk slide from strip to
    strip)."""
    if not chunk:
        return strips(f, rows, vec)
    f.split(y, yc, yr, chunk, hl.TailStrategy.GuardWithIf).parallel(yc) \
     .split(yr, yo, yi, rows, hl.TailStrategy.GuardWithIf) \
     .vectorize(x, vec, hl.TailStrategy.GuardWithIf)
    return f


def per_strip(f, out, chunk):
    """f computed per strip of `out`; with chunks, stored at the chunk, so
    that each strip computes only the rows the strip before has not."""
    f.compute_at(out, yo)
    if chunk:
        f.store_at(out, yc)
    return f


def expert_xray(outs, fn, vec, R, S, variant):
    """One pass: the outputs in strips of S rows, strips parallel, all three
    outputs in one loop over strips (compute_with), and under each strip
    every producer of it, the half- and quarter-resolution levels included
    (their halo rows recomputed by the neighbouring strip)."""
    contrast, archive, preview = outs
    slide = "r" not in variant
    chunk = R // 2 if "c" in variant else 0
    # The archive and the preview read the display, an output: they read a
    # clone of it instead (pointwise on merge0, inlined), so that the three
    # outputs are independent loops and fuse into one strip loop.
    display_c = contrast.clone_in([archive, preview])
    display_c.compute_inline()
    expert_strips(contrast, S, vec, chunk)
    expert_strips(archive, S, vec, chunk)
    expert_strips(preview, S // 2, vec, chunk // 2)
    archive.compute_with(contrast, yo)
    preview.compute_with(contrast, yo)
    at = (contrast, yo)
    # Full resolution: merge0 per strip (read by the three outputs), nr0's
    # column pass and up1's y pass inlined into it, nr0's row sums sliding
    # down merge0's rows, up1's x pass per strip.
    fn["merge0"].compute_at(*at).vectorize(x, vec)
    row_pass(fn["nr0_x"], at, fn["merge0"], vec, slide)
    per_strip(fn["up1_x"], contrast, chunk).vectorize(x, vec)
    # The median per strip, with the rows down1 needs above and below; its
    # sorted columns per row, the flatfield sliding down its rows.
    per_strip(fn["defect"], contrast, chunk).vectorize(x, vec)
    fn["defect_cols"].compute_at(fn["defect"], y).vectorize(x, vec)
    row_pass(fn["flatfield_c"], at, fn["defect"], vec, slide)
    # Half and quarter resolution, per strip.
    for name in ("down1", "nr1", "down2", "nr2", "merge1"):
        per_strip(fn[name], contrast, chunk).vectorize(x, vec)
    row_pass(fn["nr1_x"], at, fn["nr1"], vec, slide)
    row_pass(fn["nr2_x"], at, fn["nr2"], vec, slide)
    row_pass(fn["up2_x"], at, fn["merge1"], vec, slide)


def expert_fluoro(outs, fn, vec, R, S, variant):
    """As expert_xray: the three outputs in one loop over strips of S rows
    (compute_with), strips parallel, every producer per strip."""
    archive, display, preview = outs
    slide = "r" not in variant
    chunk = R // 2 if "c" in variant else 0
    expert_strips(archive, S, vec, chunk)
    expert_strips(display, S, vec, chunk)
    expert_strips(preview, S // 4, vec, chunk // 4)
    display.compute_with(archive, yo)
    preview.compute_with(archive, yo)
    at = (archive, yo)
    # r0 per strip (read by the three outputs; e0 and c inline in it, the
    # preview's p1 and p2 inline in the preview).
    fn["r0"].compute_at(*at).vectorize(x, vec)
    # g0 per strip with the rows l1 needs; its row sums sliding down g0's
    # rows, the clamped corrected frame computed per row of them.
    per_strip(fn["g0"], archive, chunk).vectorize(x, vec)
    row_pass(fn["g0_x"], at, fn["g0"], vec, slide)
    fn["c_c"].compute_at(fn["g0_x"], y).vectorize(x, vec)
    for name in ("l1", "g1", "l2", "g2", "r1"):
        per_strip(fn[name], archive, chunk).vectorize(x, vec)
    row_pass(fn["g1_x"], at, fn["g1"], vec, slide)
    row_pass(fn["g2_x"], at, fn["g2"], vec, slide)


# ---- build -----------------------------------------------------------------

def build(chain, schedule, R, strict):
    inputs, outs, fn = (xray if chain == "xray" else fluoro)(R)
    pipeline = hl.Pipeline(outs)
    target = hl.get_host_target()
    if strict:
        target = target.with_feature(hl.TargetFeature.StrictFloat)
    vec = target.natural_vector_size(F32)
    if schedule == "manual":
        (manual_xray if chain == "xray" else manual_fluoro)(outs, fn, vec, R)
    elif schedule.startswith("expert"):
        m = re.fullmatch(r"expert(\d+)([rhc]*)", schedule)
        if not m:
            raise SystemExit(f"--schedule {schedule}: expert then the strip rows, e.g. expert64")
        if "h" in m.group(2):
            vec //= 2
        (expert_xray if chain == "xray" else expert_fluoro)(outs, fn, vec, R, int(m.group(1)),
                                                             m.group(2))
    else:
        plugin, name, params = {
            "mullapudi": ("libautoschedule_mullapudi2016.so", "Mullapudi2016",
                          {"parallelism": "2", "last_level_cache_size": str(32 * 1024 * 1024)}),
            "adams": ("libautoschedule_adams2019.so", "Adams2019", {"parallelism": "2"}),
            "li": ("libautoschedule_li2018.so", "Li2018", {"parallelism": "2"}),
        }[schedule]
        hl.load_plugin(os.path.join(LIB, plugin))
        pipeline.apply_autoscheduler(target, hl.AutoschedulerParams(name, params))
    return pipeline, inputs, target


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chain", choices=["xray", "fluoro"], required=True)
    ap.add_argument("--schedule", required=True,
                    help="mullapudi, adams, li, manual or expertS (S: strip rows)")
    ap.add_argument("--resolution", type=int, default=1024, help="a multiple of 8")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--no-strict-float", action="store_true",
                    help="plain `host` (the checksum may then differ from ssc's)")
    a = ap.parse_args()
    if a.resolution % 8:
        raise SystemExit("the resolution must be a multiple of 8")
    os.makedirs(a.out, exist_ok=True)
    name = f"{a.chain}_halide_{a.schedule}" + ("_nsf" if a.no_strict_float else "")
    pipeline, inputs, target = build(a.chain, a.schedule, a.resolution, not a.no_strict_float)
    pipeline.compile_to_static_library(os.path.join(a.out, name), inputs, name, target)
    print(f"{name}: {os.path.join(a.out, name)}.a for {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
