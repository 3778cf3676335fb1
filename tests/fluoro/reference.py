"""reference.py — examples/fluoro.ssc against an independent numpy
reference of its definition, on X-ray-like frames.

    python reference.py make DIR FRAMES [SIZE | WxH]
        writes DIR/raw/raw_NNNN.pgm (16-bit), DIR/dark.pgm (16-bit) and
        DIR/gain.pfm: a phantom (a body of soft tissue, ribs, a spine and
        a catheter) with Poisson noise, a dark frame with its own offset
        pattern and a smooth gain map; SIZE x SIZE (1024 by default) or
        W x H elements
    python reference.py check DIR OUT
        computes the reference in float64 from the same files and compares
        OUT/archive_NNNN.pgm, display_NNNN.pgm, preview_NNNN.pgm with it:
        integer outputs may differ by 1 on at most 0.1 % of the pixels
        (float32 against float64 rounding), never by more
    python reference.py library DIR MODULE_DIR MODULE
        the same frames through the library's Python module, compared with
        the reference alike
    python reference.py check-temporal DIR OUT
    python reference.py library-temporal DIR MODULE_DIR MODULE
        the same for examples/fluoro_temporal.ssc: c replaced by
        t = 0.25 c + 0.75 t[previous frame], t = 0 before the first frame,
        the frames in the order of their names
    python reference.py check-temporal-input DIR OUT
        the same with the filter started from its first input
        (t = 0.25 c + 0.75 prev(t, c): t = c on the first frame)
Prints one line per output and frame; exits 1 when one is outside.
"""
import os
import sys

import numpy as np


# ---- files ------------------------------------------------------------------

def write_pgm16(path, a):
    h, w = a.shape
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n65535\n" % (w, h))
        f.write(a.astype(">u2").tobytes())


def write_pfm(path, a):
    h, w = a.shape
    with open(path, "wb") as f:
        f.write(b"Pf\n%d %d\n-1.0\n" % (w, h))
        f.write(np.flipud(a).astype("<f4").tobytes())  # bottom row first


def read_image(path):
    data = open(path, "rb").read()
    magic, rest = data[:2], data[2:]
    fields, pos = [], 0
    while len(fields) < 3:
        while rest[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not rest[end:end + 1].isspace():
            end += 1
        fields.append(rest[pos:end].decode())
        pos = end
    pixels = rest[pos + 1:]
    w, h = int(fields[0]), int(fields[1])
    if magic == b"P5":
        dtype = ">u2" if int(fields[2]) > 255 else "u1"
        return np.frombuffer(pixels, dtype, w * h).reshape(h, w)
    order = "<" if float(fields[2]) < 0 else ">"
    return np.flipud(np.frombuffer(pixels, order + "f4", w * h).reshape(h, w))


# ---- frames -----------------------------------------------------------------

def phantom(w, h, k, rng):
    """Detected counts of a chest-like object: exp(-attenuation), I0 counts."""
    y, x = np.mgrid[0:h, 0:w].astype(float)
    y, x = y / h - 0.5, x / w - 0.5
    mu = np.zeros((h, w))
    mu += 1.2 * (((x / 0.42) ** 2 + (y / 0.47) ** 2) < 1)          # body
    for r in range(-3, 4):                                          # ribs
        rib = np.abs(y - 0.11 * r - 0.03 * np.sin(9 * x)) < 0.012
        mu += 0.35 * (rib & (np.abs(x) > 0.05) & (np.abs(x) < 0.38))
    mu += 0.9 * (np.abs(x) < 0.035) * (np.abs(y) < 0.45)            # spine
    t = 0.02 * k                                                    # a moving catheter
    mu += 1.5 * (np.abs(x - 0.1 * np.sin(6 * y + t) - 0.05) < 0.004) * (y > -0.2)
    i0 = 7000.0
    return i0 * np.exp(-mu)


def make(directory, frames, w, h):
    rng = np.random.default_rng(25)
    os.makedirs(os.path.join(directory, "raw"), exist_ok=True)
    y, x = np.mgrid[0:h, 0:w].astype(float)
    y, x = y / h, x / w
    gain_true = 1 + 0.08 * np.sin(3 * x + 1) * np.cos(2 * y) + 0.02 * rng.standard_normal((h, w))
    dark = 180 + 20 * np.sin(40 * x) + rng.normal(0, 3, (h, w))
    dark = np.clip(np.round(dark), 0, 65535).astype(np.uint16)
    write_pgm16(os.path.join(directory, "dark.pgm"), dark)
    write_pfm(os.path.join(directory, "gain.pfm"), (1 / gain_true).astype(np.float32))
    for k in range(frames):
        counts = rng.poisson(phantom(w, h, k, rng) / (1 / gain_true))   # the detector's uneven gain
        raw = np.clip(counts + dark.astype(np.int64) + rng.normal(0, 2, (h, w)).round(), 0, 65535)
        write_pgm16(os.path.join(directory, "raw", "raw_%04d.pgm" % k), raw.astype(np.uint16))


# ---- the definition, in float64 -----------------------------------------------

def gauss5(a):
    w = np.array([1, 4, 6, 4, 1], float) / 16
    p = np.pad(a, 2, mode="edge")
    rows = sum(w[i] * p[:, i:i + a.shape[1]] for i in range(5))        # x first
    return sum(w[j] * rows[j:j + a.shape[0], :] for j in range(5))     # then y


def down2(a):
    return (a[0::2, 0::2] + a[0::2, 1::2] + a[1::2, 0::2] + a[1::2, 1::2]) / 4


def up2(a):
    return np.repeat(np.repeat(a, 2, axis=0), 2, axis=1)


def rnd(v):
    return np.floor(v + 0.5)


def correct(raw, dark, gain):
    return np.maximum(raw.astype(float) - dark.astype(float), 0) * gain.astype(float)


def reference(raw, dark, gain):
    return pyramid(correct(raw, dark, gain))


class Temporal:
    """examples/fluoro_temporal.ssc: the recursive filter's state, 0 before
    the first frame (or, from_input, the first frame's c)."""

    def __init__(self, from_input=False):
        self.t = None
        self.from_input = from_input

    def __call__(self, raw, dark, gain):
        c = correct(raw, dark, gain)
        if self.t is None:
            previous = c if self.from_input else np.zeros_like(c)
        else:
            previous = self.t
        self.t = 0.25 * c + 0.75 * previous
        return pyramid(self.t)


def pyramid(c):
    g0 = gauss5(c)
    e0 = c - g0
    l1 = down2(g0)
    g1 = gauss5(l1)
    e1 = l1 - g1
    l2 = down2(g1)
    g2 = gauss5(l2)
    r1 = up2(g2) + 1.5 * e1
    r0 = up2(r1) + 2 * np.clip(e0, -64, 64)
    return {
        "archive": np.clip(rnd(r0), 0, 65535).astype(np.uint16),
        "display": np.clip(rnd((r0 - 512) / 32), 0, 255).astype(np.uint8),
        "preview": np.clip(rnd((down2(down2(r0)) - 512) / 32), 0, 255).astype(np.uint8),
    }


def compare(name, got, want):
    d = np.abs(got.astype(np.int64) - want.astype(np.int64))
    off = int((d > 0).sum())
    share = off / d.size
    ok = d.max() <= 1 and share <= 0.001
    print(f"{name}: {off} of {d.size} pixels off by 1 ({share:.5%}), largest difference {d.max()}"
          f" {'ok' if ok else 'OUTSIDE the tolerance'}")
    return ok


def inputs(directory):
    dark = read_image(os.path.join(directory, "dark.pgm"))
    gain = read_image(os.path.join(directory, "gain.pfm"))
    raws = sorted(os.listdir(os.path.join(directory, "raw")))
    return dark, gain, [read_image(os.path.join(directory, "raw", r)) for r in raws]


def check(directory, out, chain=reference):
    dark, gain, raws = inputs(directory)
    ok = True
    for k, raw in enumerate(raws):
        want = chain(raw, dark, gain)
        for name in ("archive", "display", "preview"):
            got = read_image(os.path.join(out, "%s_%04d.pgm" % (name, k)))
            ok &= compare(f"{name} frame {k}", got, want[name])
    return ok


def library(directory, module_dir, module, chain_of=reference):
    sys.path.insert(0, module_dir)
    m = __import__(module)
    dark, gain, raws = inputs(directory)
    ok = True
    with m.open() as chain:
        for k, raw in enumerate(raws):
            got = chain.run(raw=np.ascontiguousarray(raw, np.uint16), dark=np.ascontiguousarray(dark, np.uint16),
                            gain=np.ascontiguousarray(gain, np.float32))
            want = chain_of(raw, dark, gain)
            for name in ("archive", "display", "preview"):
                ok &= compare(f"{name} frame {k} (library)", got[name], want[name])
        print("checksum: 0x%016x" % chain.checksum())
    if isinstance(chain_of, Temporal):
        # Opening the chain again starts from the initial value: frame 0
        # gives frame 0's outputs again, not those of a ninth frame.
        with m.open() as again:
            got = again.run(raw=np.ascontiguousarray(raws[0], np.uint16),
                            dark=np.ascontiguousarray(dark, np.uint16),
                            gain=np.ascontiguousarray(gain, np.float32))
        want = Temporal()(raws[0], dark, gain)
        for name in ("archive", "display", "preview"):
            ok &= compare(f"{name} frame 0 after reopening (library)", got[name], want[name])
    return ok


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "make":
        size = sys.argv[4] if len(sys.argv) > 4 else "1024"
        w, h = (size.split("x") + [size])[:2]
        make(sys.argv[2], int(sys.argv[3]), int(w), int(h))
        sys.exit(0)
    if what == "check":
        ok = check(sys.argv[2], sys.argv[3])
    elif what == "check-temporal":
        ok = check(sys.argv[2], sys.argv[3], Temporal())
    elif what == "check-temporal-input":
        ok = check(sys.argv[2], sys.argv[3], Temporal(from_input=True))
    elif what == "library":
        ok = library(*sys.argv[2:5])
    elif what == "library-temporal":
        ok = library(*sys.argv[2:5], chain_of=Temporal())
    else:
        sys.exit("unknown command " + what)
    sys.exit(0 if ok else 1)
