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
the whole chain, and the three sink inputs (contrast, archive, preview).
`xray_halide_driver.c` times frames and computes ssc's checksum over the
three outputs (inside the timed region), like xray_omp.c.

Schedules (--schedule):
  auto   the Mullapudi2016 autoscheduler, estimates set for the resolution,
         parallelism 2 (what a new user does)
  root   every Func compute_root: whole-frame buffers, breadth first, rows in
         parallel and vectorised (Halide's form of the OpenMP peer)

Arithmetic is exactly ssc's built-ins for float (runtime-c/ssc_kernels.c),
so the checksum equals ssc's: the target is the host with `strict_float`
(without it Halide lets LLVM reassociate and contract float arithmetic).

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


def f32(v):
    return hl.f32(v)


def build(schedule, resolution, strict):
    res = hl.Param(hl.Int(32), "resolution")
    it = hl.Param(hl.Int(32), "iteration")
    half, quarter = res / 2, res / 4

    def source(name):
        # ssc: p = (7x + 13y + 31i) mod 251, value (p - 125) / 8. (31i) mod
        # 251 is reduced first so nothing overflows 32 bits for any iteration
        # < 2^31; the value is the same.
        f = hl.Func(name)
        p = (7 * x + 13 * y + 31 * (it % 251)) % 251
        f[x, y] = hl.cast(F32, p - 125) / f32(8.0)
        return f

    def binary(name, a, b, op):
        f = hl.Func(name)
        f[x, y] = op(a[x, y], b[x, y])
        return f

    def conv(name, inp, n):
        # 3x3 mean, coordinates clamped to the n x n grid, Σdx(Σdy) from 0
        # in ascending order: the column sums first, then the row sum.
        col = hl.Func(name + "_col")
        cx = hl.clamp(x, 0, n - 1)
        col[x, y] = ((f32(0.0) + inp[cx, hl.clamp(y - 1, 0, n - 1)])
                     + inp[cx, hl.clamp(y, 0, n - 1)]) + inp[cx, hl.clamp(y + 1, 0, n - 1)]
        f = hl.Func(name)
        f[x, y] = (((f32(0.0) + col[x - 1, y]) + col[x, y]) + col[x + 1, y]) / f32(9.0)
        return f, col

    def down(name, inp):
        f = hl.Func(name)
        f[x, y] = (((inp[2 * x, 2 * y] + inp[2 * x + 1, 2 * y]) + inp[2 * x, 2 * y + 1])
                   + inp[2 * x + 1, 2 * y + 1]) / f32(4.0)
        return f

    def up(name, inp):
        f = hl.Func(name)
        f[x, y] = inp[x / 2, y / 2]
        return f

    raw, offset, gainmap = source("raw"), source("offset"), source("gainmap")
    subtract = binary("subtract", raw, offset, lambda a, b: a + b)
    flatfield = binary("flatfield", subtract, gainmap, lambda a, b: a * b)
    defect, defect_col = conv("defect", flatfield, res)
    nr0, nr0_col = conv("nr0", defect, res)
    down1 = down("down1", defect)
    nr1, nr1_col = conv("nr1", down1, half)
    down2 = down("down2", nr1)
    nr2, nr2_col = conv("nr2", down2, quarter)
    up2 = up("up2", nr2)
    merge1 = binary("merge1", nr1, up2, lambda a, b: a + b)
    up1 = up("up1", merge1)
    merge0 = binary("merge0", nr0, up1, lambda a, b: (a + b) / f32(2.0))
    contrast = hl.Func("contrast")          # sink `display` reads it
    contrast[x, y] = merge0[x, y] * f32(3.0) / f32(2.0)
    archive = hl.Func("archive")            # sink `store` reads it
    archive[x, y] = contrast[x, y]
    preview = down("preview", contrast)     # sink `monitor` reads it

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
        funcs = [raw, offset, gainmap, subtract, flatfield, defect_col, defect, nr0_col, nr0,
                 down1, nr1_col, nr1, down2, nr2_col, nr2, up2, merge1, up1, merge0,
                 contrast, archive, preview]
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
