"""phantom.py — a synthetic 16-bit X-ray sequence for the example applications
(README, "A folder of frames"): no downloaded data, Python's standard library
only.

    python3 examples/app/phantom.py DIR [--frames N] [--size S] [--seed K]

writes, for a detector of S x S pixels (default 512, the X-ray chain's):

    DIR/raw/frame_0000.pgm ...  N frames (16-bit PGM): a chest-like body (soft
                                tissue, lungs, spine, ribs) with a catheter
                                whose tip advances frame by frame, through a
                                detector with a dark offset, column pattern,
                                vignetting and photon noise
    DIR/dark.pgm, DIR/flat.pgm  the detector's calibration frames (16-bit PGM):
                                no exposure, and exposure without an object
    DIR/offset.pfm, DIR/gain.pfm  the chain's `offset` and `gainmap` inputs
                                made from them (float PFM): offset = dark,
                                gain = mean(flat - dark) / (flat - dark)

The same seed gives the same files.
"""
import argparse
import math
import os
import random
import struct


def write_pgm16(path, size, values):
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n65535\n" % (size, size))
        f.write(struct.pack(">%dH" % len(values), *values))


def write_pfm(path, size, values):
    """Greyscale PFM, little endian (negative scale), bottom row first."""
    with open(path, "wb") as f:
        f.write(b"Pf\n%d %d\n-1.0\n" % (size, size))
        for y in reversed(range(size)):
            f.write(struct.pack("<%df" % size, *values[y * size:(y + 1) * size]))


def calibration(dark, flat):
    """offset and gain as the example applications compute them."""
    diff = [f - d for f, d in zip(flat, dark)]
    mean = sum(diff) / len(diff)  # an exact integer sum, then one division
    return [float(d) for d in dark], [mean / d for d in diff]


def anatomy(size):
    """Attenuation (line integral of mu) of the static body, per pixel."""
    a = [0.0] * (size * size)
    for y in range(size):
        v = y / size
        for x in range(size):
            u = x / size
            d2 = ((u - 0.5) / 0.44) ** 2 + ((v - 0.56) / 0.5) ** 2
            if d2 >= 1:
                continue
            att = 2.2 * math.sqrt(1 - d2)  # soft tissue
            for cx in (0.3, 0.7):  # lungs: air instead of tissue
                l2 = ((u - cx) / 0.15) ** 2 + ((v - 0.45) / 0.26) ** 2
                if l2 < 1:
                    att -= 1.3 * math.sqrt(1 - l2)
            s = abs(u - 0.5) / 0.045  # spine, vertebra by vertebra
            if s < 1:
                att += (0.9 + 0.25 * math.cos(v * 2 * math.pi * 9)) * math.sqrt(1 - s * s)
            for i in range(7):  # ribs: arcs on each side
                w = abs(u - 0.5)
                if 0.06 < w < 0.4:
                    r = abs(v - (0.2 + 0.085 * i + 0.12 * (w / 0.4) ** 2)) / 0.011
                    if r < 1:
                        att += 0.45 * math.sqrt(1 - r * r)
            a[y * size + x] = att
    return a


def catheter(size, frame):
    """Pixels of a catheter entering from the bottom, its tip further up
    each frame: {pixel: extra attenuation}."""
    px = {}
    length = 0.35 + 0.045 * frame
    steps = int(length * size * 2)
    for i in range(steps):
        t = i / (size * 2)
        v = 1.0 - t
        u = 0.62 - 0.1 * t + 0.03 * math.sin(t * 9)
        cx, cy = u * size, v * size
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                x, y = int(cx) + dx, int(cy) + dy
                if 0 <= x < size and 0 <= y < size:
                    r = math.hypot(x + 0.5 - cx, y + 0.5 - cy) / 1.6
                    if r < 1:
                        px[y * size + x] = max(px.get(y * size + x, 0), 1.8 * (1 - r * r))
    return px


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dir")
    p.add_argument("--frames", type=int, default=8)
    p.add_argument("--size", type=int, default=512)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    size, rng = a.size, random.Random(a.seed)
    os.makedirs(os.path.join(a.dir, "raw"), exist_ok=True)

    columns = [rng.randint(-25, 25) for _ in range(size)]  # column offsets
    dark = [1000 + columns[i % size] for i in range(size * size)]
    sens = []  # detector sensitivity x tube output: a vignetting falloff
    for y in range(size):
        for x in range(size):
            r2 = ((x - size / 2) ** 2 + (y - size / 2) ** 2) / (size / 2) ** 2
            sens.append(30000.0 * (1 - 0.22 * r2))
    flat = [d + int(s) for d, s in zip(dark, sens)]
    write_pgm16(os.path.join(a.dir, "dark.pgm"), size, dark)
    write_pgm16(os.path.join(a.dir, "flat.pgm"), size, flat)
    offset, gain = calibration(dark, flat)
    write_pfm(os.path.join(a.dir, "offset.pfm"), size, offset)
    write_pfm(os.path.join(a.dir, "gain.pfm"), size, gain)

    body = anatomy(size)
    for k in range(a.frames):
        extra = catheter(size, k)
        frame = []
        for i in range(size * size):
            signal = sens[i] * math.exp(-(body[i] + extra.get(i, 0.0)))
            noisy = signal + rng.gauss(0.0, 1.0) * math.sqrt(signal + 1.0)  # photon noise
            frame.append(min(65535, max(0, int(dark[i] + noisy))))
        write_pgm16(os.path.join(a.dir, "raw", "frame_%04d.pgm" % k), size, frame)
    print("%d frames of %dx%d in %s" % (a.frames, size, size, a.dir))


if __name__ == "__main__":
    main()
