"""operators.py — every operator of the vocabulary (tests/in/operators.ssc)
against numpy, computed independently from the same input files.

    python operators.py make DIR      writes a.pfm, b.pfm (float), u.pgm (16-bit),
                                      k.pgm (8-bit) at 64x48 and h.pfm at 32x24
    python operators.py check DIR OUT compares OUT/NAME_out_0000.* with numpy

Floating outputs: float32 against float64, relative 1e-5 of the output's
scale. Integer outputs of integer arithmetic: exact. Integer outputs of a
rounding of floats: off by 1 on at most 0.1 % of the elements, never more.
Prints a line per operator; exits 1 when one is outside.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import read_image, write_pfm, write_pgm16  # noqa: E402

W, H = 64, 48


def write_pgm8(path, a):
    h, w = a.shape
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h))
        f.write(a.astype(np.uint8).tobytes())


def make(d):
    rng = np.random.default_rng(2025)
    os.makedirs(d, exist_ok=True)
    a = rng.uniform(-4, 12, (H, W)).astype(np.float32)
    a[::7, ::5] = np.round(a[::7, ::5]) + 0.5            # exact halves: round() ties
    write_pfm(os.path.join(d, "a.pfm"), a)
    write_pfm(os.path.join(d, "b.pfm"), rng.uniform(-4, 12, (H, W)).astype(np.float32))
    write_pgm16(os.path.join(d, "u.pgm"), rng.integers(0, 65536, (H, W)))
    write_pgm8(os.path.join(d, "k.pgm"), rng.integers(0, 256, (H, W)))
    write_pfm(os.path.join(d, "h.pfm"), rng.uniform(0, 100, (H // 2, W // 2)).astype(np.float32))


def edge(x, bx, ax, by, ay):
    return np.pad(x, ((by, ay), (bx, ax)), mode="edge")


def window(x, wx, wy):
    """Every window element as (dx, dy, shifted array), clamped at the border."""
    bx, by = (wx - 1) // 2, (wy - 1) // 2
    p = edge(x, bx, wx - 1 - bx, by, wy - 1 - by)
    h, w = x.shape
    return [(i - bx, j - by, p[j:j + h, i:i + w]) for j in range(wy) for i in range(wx)]


def bilinear(h):
    """Bilinear 2:1 up: element 2X+i takes 3/4 of X and 1/4 of X-1 (i = 0)
    or X+1 (i = 1), x then y."""
    hs = {(dx, dy): s for dx, dy, s in window(h, 3, 3)}
    rows = {}
    for dy in (-1, 0, 1):
        even = 0.25 * hs[(-1, dy)] + 0.75 * hs[(0, dy)]
        odd = 0.75 * hs[(0, dy)] + 0.25 * hs[(1, dy)]
        r = np.empty((h.shape[0], 2 * h.shape[1]))
        r[:, 0::2], r[:, 1::2] = even, odd
        rows[dy] = r
    out = np.empty((2 * h.shape[0], 2 * h.shape[1]))
    out[0::2, :] = 0.25 * rows[-1] + 0.75 * rows[0]
    out[1::2, :] = 0.75 * rows[0] + 0.25 * rows[1]
    return out


def rnd(v):
    return np.floor(v + 0.5)


def reference(d):
    a = read_image(os.path.join(d, "a.pfm")).astype(float)
    b = read_image(os.path.join(d, "b.pfm")).astype(float)
    u = read_image(os.path.join(d, "u.pgm")).astype(np.int64)
    k = read_image(os.path.join(d, "k.pgm")).astype(np.int64)
    h = read_image(os.path.join(d, "h.pfm")).astype(float)
    gamma = np.array([float(v) for line in open(os.path.join(os.path.dirname(__file__), "..", "in",
                                                             "operators_gamma.txt"))
                      for v in line.split("#")[0].split()])
    sh = {(dx, dy): s for dx, dy, s in window(a, 3, 3)}
    w53 = {(dx, dy): s for dx, dy, s in window(a, 5, 3)}
    sep = sum(wy * sum(wx * w53[(i - 2, j - 1)] for i, wx in enumerate([1, 4, 6, 4, 1]))
              for j, wy in enumerate([1, 2, 1])) / 64
    g = np.exp(-np.arange(-2, 3) ** 2 / (2 * 1.2 ** 2))
    g /= g.sum()
    w55 = {(dx, dy): s for dx, dy, s in window(a, 5, 5)}
    gauss = sum(g[j] * sum(g[i] * w55[(i - 2, j - 2)] for i in range(5)) for j in range(5))
    stencil_w = [1, 2, 1, 0, -4, 0, 1, 2, 1]
    near = np.repeat(np.repeat(h, 2, axis=0), 2, axis=1)

    bil = bilinear(h)
    ex = np.maximum(a - b, 0) * 2
    wex = {(dx, dy): s for dx, dy, s in window(ex, 3, 3)}
    wsx = {(dx, dy): s for dx, dy, s in window(u / 1000 - a, 3, 5)}

    f = {
        "arith": (a + b) * 2 - a / 4 + b,
        "minmax": np.minimum(a, b) - np.maximum(a, 0.5) + np.clip(np.abs(a - b), 0.25, 3),
        "rounding": np.floor(a) + rnd(b),
        "choose": np.where(a < b, a * 2, b) + np.where(a >= 3, 1, 0),
        "wl": np.clip((a - (2 - 8 / 2)) / 8, 0, 1),
        "stencil3": sum(w * s for w, (_, _, s) in zip(stencil_w, window(a, 3, 3))),
        "offsets": sh[(-1, 0)] - sh[(1, 0)] + sh[(0, -1)] * 0.5,
        "sep53": sep,
        "gauss55": gauss,
        "box33": sum(s for _, _, s in window(a, 3, 3)) / 9,
        "median33": np.median(np.stack([s for _, _, s in window(a, 3, 3)]), axis=0),
        "down": (a[0::2, 0::2] + a[0::2, 1::2] + a[1::2, 0::2] + a[1::2, 1::2]) / 4,
        "nearest": near,
        "bilinear": bil,
        "gamma": gamma[k],
        # Windows of expressions: the expression's value at each element of
        # the window (its ports read there, clamped at the border).
        "medianx": np.median(np.stack([s for _, _, s in window(ex, 3, 3)]), axis=0)
        - sum(wy * sum(wx * wex[(i - 1, j - 1)] for i, wx in enumerate([1, 2, 1]))
              for j, wy in enumerate([1, 2, 1])) / 32,
        "sepx": sum(wy * sum(wx * wsx[(i - 1, j - 2)] for i, wx in enumerate([1, 2, 1]))
                    for j, wy in enumerate([1, 4, 6, 4, 1])) / 64 + a,
        "stencilx": sum(w * s for w, (_, _, s) in zip([0, 1, 0, 1, 4, 1, 0, 1, 0], window(a * b, 3, 3))) - a,
        "linearx": bilinear(h * 2 + 1),
    }
    exact = {
        "integer": u * 3 - k * 1000 + k // 7 - u // 1000,
        "shifted": u // 7 + 100,
        "median16": np.median(np.stack([s for _, _, s in window(u, 3, 3)]), axis=0).astype(np.int64),
        "steps": np.array([10, 20, 30, 40])[np.minimum(k, 3)],
    }
    rounded = {
        "to8": np.clip(rnd(a * 10), 0, 255),
        "sat8": np.clip(np.trunc(a * 40), 0, 255),
    }
    return f, exact, rounded


def output(out, name):
    for ext in ("pfm", "pgm", "raw"):
        p = os.path.join(out, f"{name}_out_0000.{ext}")
        if os.path.exists(p):
            if ext == "raw":
                return np.fromfile(p, np.int32).reshape(H, W)
            return read_image(p)
    raise SystemExit(f"no output {name}_out_0000.* in {out}")


def check(d, out):
    f, exact, rounded = reference(d)
    ok = True
    for name, want in f.items():
        got = output(out, name).astype(float)
        scale = max(1.0, float(np.abs(want).max()))
        err = float(np.abs(got - want).max())
        good = got.shape == want.shape and err <= 1e-5 * scale
        print(f"{name}: largest difference {err:.3g} (scale {scale:.3g}) {'ok' if good else 'OUTSIDE'}")
        ok &= good
    for name, want in exact.items():
        got = output(out, name).astype(np.int64)
        good = got.shape == want.shape and np.array_equal(got, want)
        print(f"{name}: {'exact ok' if good else 'OUTSIDE: ' + str(int((got != want).sum())) + ' differ'}")
        ok &= good
    for name, want in rounded.items():
        got = output(out, name).astype(np.int64)
        dif = np.abs(got - want.astype(np.int64))
        good = dif.max() <= 1 and (dif > 0).mean() <= 0.001
        print(f"{name}: {int((dif > 0).sum())} off by 1, largest {int(dif.max())} {'ok' if good else 'OUTSIDE'}")
        ok &= good
    return ok


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3]) else 1)
