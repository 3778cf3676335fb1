#!/usr/bin/env python3
"""xray_halide.py — examples/xray.ssc in Halide, compiled ahead of time.

Writes, for one schedule and one resolution, a static library
`OUT/xray_halide_SCHEDULE.a` (the pipeline and Halide's runtime) and its
header `OUT/xray_halide_SCHEDULE.h`, with one entry point

    int xray_halide_SCHEDULE(int32_t resolution, int32_t iteration,
                             halide_buffer_t *display,   /* R x R   */
                             halide_buffer_t *store,     /* R x R   */
                             halide_buffer_t *monitor);  /* R/2 x R/2 */

which computes one frame: the three sources as Funcs of (x, y, iteration),
the whole chain, and the three sink inputs (contrast, archive, preview;
store is 16-bit, display and monitor float).
`xray_halide_driver.c` times frames and computes ssc's checksum over the
three outputs (inside the timed region), like xray_omp.c.

Schedules (--schedule):
  auto   the Mullapudi2016 autoscheduler, estimates set for the resolution,
         parallelism 2 (what a new user does)
  root   every Func compute_root: whole-frame buffers, breadth first, rows in
         parallel and vectorised (Halide's form of the OpenMP peer)

Arithmetic is exactly what ssc generates from the chain's definitions
(examples/xray.ssc: the same operations in the same order, min and max as
ssc's selects, borders clamped), so the checksum equals ssc's: the target
is the host with `strict_float` (without it Halide lets LLVM reassociate
and contract float arithmetic).

Needs the pip package halide==21.0.0 (see README.md). Run with the venv's
python:

    /work/venv-halide/bin/python xray_halide.py --schedule auto --resolution 512 --out DIR
"""

import argparse
import os
import sys

import halide as hl

x, y = hl.Var("x"), hl.Var("y")
F32 = hl.Float(32)
U16 = hl.UInt(16)


def f32(v):
    return hl.f32(v)


# ssc's min and max (`a < b ? a : b`, `a > b ? a : b`), written as selects
# so that what they give for equal values (+0 and -0) and NaN is ssc's too.
def smin(a, b):
    return hl.select(a < b, a, b)


def smax(a, b):
    return hl.select(a > b, a, b)


def build(schedule, resolution, strict):
    res = hl.Param(hl.Int(32), "resolution")
    it = hl.Param(hl.Int(32), "iteration")
    half, quarter = res / 2, res / 4

    def pattern():
        # ssc: p = (7x + 13y + 31i) mod 251. (31i) mod 251 is reduced first
        # so nothing overflows 32 bits for any iteration < 2^31; p is the same.
        return (7 * x + 13 * y + 31 * (it % 251)) % 251

    def source16(name):
        # ssc's func_source for ushort: p.
        f = hl.Func(name)
        f[x, y] = hl.cast(U16, pattern())
        return f

    def source(name):
        # ssc's func_source for float: (p - 125) / 8.
        f = hl.Func(name)
        f[x, y] = hl.cast(F32, pattern() - 125) / f32(8.0)
        return f

    def binary(name, a, b, op):
        f = hl.Func(name)
        f[x, y] = op(a[x, y], b[x, y])
        return f

    def median3x3(name, inp, n):
        # The median of the 3x3 window (rows, then columns, coordinates
        # clamped to the n x n grid) as ssc's ssc_median_float finds it: an
        # insertion sort of the 9 values, written as its compare-exchanges
        # (the same swaps: past the point where ssc's loop stops, a
        # compare-exchange swaps nothing), then the middle one.
        f = hl.Func(name)
        cx = [hl.clamp(x + d, 0, n - 1) for d in (-1, 0, 1)]
        cy = [hl.clamp(y + d, 0, n - 1) for d in (-1, 0, 1)]
        v = [hl.Expr(inp[c, r]) for r in cy for c in cx]
        for i in range(1, 9):
            for j in range(i, 0, -1):
                swap = v[j - 1] > v[j]
                v[j - 1], v[j] = hl.select(swap, v[j], v[j - 1]), hl.select(swap, v[j - 1], v[j])
        f[x, y] = v[4]
        return f

    def gauss3x3(name, inp, n):
        # separable(in, [1, 2, 1], [1, 2, 1]) / 16 in ssc's order: each row
        # (a + 2b) + c, the rows the same way, then / 16; coordinates
        # clamped to the n x n grid.
        row = hl.Func(name + "_row")
        cy = hl.clamp(y, 0, n - 1)
        row[x, y] = ((inp[hl.clamp(x - 1, 0, n - 1), cy] + f32(2.0) * inp[x, cy])
                     + inp[hl.clamp(x + 1, 0, n - 1), cy])
        f = hl.Func(name)
        f[x, y] = ((row[x, y - 1] + f32(2.0) * row[x, y]) + row[x, y + 1]) / f32(16.0)
        return f, row

    def down2(name, inp):
        # The mean of the 2x2 block, ((a + b) + c) + d over 4.
        f = hl.Func(name)
        f[x, y] = (((inp[2 * x, 2 * y] + inp[2 * x + 1, 2 * y]) + inp[2 * x, 2 * y + 1])
                   + inp[2 * x + 1, 2 * y + 1]) / f32(4.0)
        return f

    def up2(name, inp, n):
        # Bilinear 2:1 up of an n x n grid: 3/4 of the nearest element and
        # 1/4 of the next one on the output element's side, in x, then the
        # same in y, coordinates clamped (ssc's `linear`).
        q, h = f32(0.25), f32(0.75)
        upx = hl.Func(name + "_x")
        i, r = x / 2, hl.clamp(y, 0, n - 1)
        upx[x, y] = hl.select(x % 2 == 1,
                              h * inp[i, r] + q * inp[hl.clamp(i + 1, 0, n - 1), r],
                              q * inp[hl.clamp(i - 1, 0, n - 1), r] + h * inp[i, r])
        f = hl.Func(name)
        j = y / 2
        f[x, y] = hl.select(y % 2 == 1,
                            h * upx[x, j] + q * upx[x, j + 1],
                            q * upx[x, j - 1] + h * upx[x, j])
        return f, upx

    def merge(name, fine, coarse, k):
        # coarse + k * (fine - coarse)
        f = hl.Func(name)
        f[x, y] = coarse[x, y] + f32(k) * (fine[x, y] - coarse[x, y])
        return f

    raw, offset, gainmap = source16("raw"), source("offset"), source("gainmap")
    subtract = binary("subtract", raw, offset,
                      lambda a, b: smax(hl.cast(F32, a) - b, f32(0.0)))
    flatfield = binary("flatfield", subtract, gainmap, lambda a, b: a * b)
    defect = median3x3("defect", flatfield, res)
    nr0, nr0_row = gauss3x3("nr0", defect, res)
    down1 = down2("down1", defect)
    nr1, nr1_row = gauss3x3("nr1", down1, half)
    down2_ = down2("down2", nr1)
    nr2, nr2_row = gauss3x3("nr2", down2_, quarter)
    up2_, up2_x = up2("up2", nr2, quarter)
    merge1 = merge("merge1", nr1, up2_, 1.5)
    up1, up1_x = up2("up1", merge1, half)
    merge0 = merge("merge0", nr0, up1, 0.5)
    contrast = hl.Func("contrast")          # sink `display` reads it
    # window_level(in, 16000, 8000) = clamp((in - (8000 - 16000 / 2)) / 16000, 0, 1)
    contrast[x, y] = smin(smax((merge0[x, y] - f32(0.0)) / f32(16000.0), f32(0.0)), f32(1.0))
    archive = hl.Func("archive")            # sink `store` reads it
    # ushort(clamp(round(65535 * in), 0, 65535)), round(v) = floor(v + 0.5)
    archive[x, y] = hl.cast(U16, smin(smax(hl.floor(f32(65535.0) * contrast[x, y] + f32(0.5)),
                                           f32(0.0)), f32(65535.0)))
    preview = down2("preview", contrast)    # sink `monitor` reads it

    outputs = [contrast, archive, preview]
    pipeline = hl.Pipeline(outputs)

    target = hl.get_host_target()
    if strict:
        target = target.with_feature(hl.TargetFeature.StrictFloat)

    R = resolution
    res.set_estimate(R)
    it.set_estimate(0)
    for f, n in ((contrast, R), (archive, R), (preview, R // 2)):
        f.set_estimates([hl.Range(0, n), hl.Range(0, n)])

    if schedule == "auto":
        # The wheel ships the plugin next to libHalide, not on the loader's path.
        lib = os.path.join(os.path.dirname(hl.__file__), "lib64")
        hl.load_plugin(os.path.join(lib, "libautoschedule_mullapudi2016.so"))
        pipeline.apply_autoscheduler(
            target, hl.AutoschedulerParams("Mullapudi2016", {"parallelism": "2"}))
    elif schedule == "root":
        vec = target.natural_vector_size(F32)
        funcs = [raw, offset, gainmap, subtract, flatfield, defect, nr0_row, nr0,
                 down1, nr1_row, nr1, down2_, nr2_row, nr2, up2_x, up2_, merge1, up1_x, up1,
                 merge0, contrast, archive, preview]
        for f in funcs:
            f.compute_root().parallel(y).vectorize(x, vec)
    else:
        raise SystemExit(f"unknown schedule {schedule!r}")
    return pipeline, [res, it], target


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--schedule", choices=["auto", "root"], required=True)
    ap.add_argument("--resolution", type=int, default=512,
                    help="the estimates (the library runs at any multiple of 4)")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--no-strict-float", action="store_true",
                    help="plain `host` (checksums may then differ from ssc's)")
    a = ap.parse_args()
    if a.resolution % 4:
        raise SystemExit("the resolution must be a multiple of 4")
    os.makedirs(a.out, exist_ok=True)
    name = f"xray_halide_{a.schedule}"
    pipeline, args, target = build(a.schedule, a.resolution, not a.no_strict_float)
    pipeline.compile_to_static_library(os.path.join(a.out, name), args, name, target)
    print(f"{name}: {os.path.join(a.out, name)}.a for {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
