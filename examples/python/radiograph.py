"""A real radiograph through the fluoroscopy chain, from Python.

    pip install .                      # at the repository's root: ssc
    pip install pydicom pydicom-data matplotlib
    python examples/python/radiograph.py [--frames N] [--out DIR]

Reads pydicom-data's RG3_UNCR.dcm (a computed radiograph, 1760 x 1760,
10 bits, MONOCHROME1), makes a short fluoroscopy-like sequence of it
(detector counts with Poisson noise, a dark frame with its own offset
pattern, an uneven gain the gain map undoes), compiles
examples/fluoro.ssc at that size (-D W=1760 -D H=1760, no edit of the
file), runs it frame by frame on numpy arrays, and saves the last
display frame beside the latency of each frame to DIR/radiograph.png
(docs/figures/python_radiograph.png).
"""
import argparse
import os
import time

import numpy as np
import pydicom
from pydicom.data import get_testdata_file

import ssc

HERE = os.path.dirname(os.path.abspath(__file__))
CHAIN = os.path.join(HERE, "..", "fluoro.ssc")


def sequence(image, frames, rng):
    """The radiograph as a detector would count it, frame after frame."""
    h, w = image.shape
    # MONOCHROME1: the lowest value shows white; a high value is where
    # much radiation arrived (the air beside the leg), many counts.
    exposure = image.astype(float) * 7.0 + 300.0
    y, x = np.mgrid[0:h, 0:w] / max(h, w)
    gain_true = 1 + 0.06 * np.sin(3 * x + 1) * np.cos(2 * y)
    dark = np.clip(np.round(180 + 20 * np.sin(40 * x) + rng.normal(0, 3, (h, w))), 0, 65535).astype(np.uint16)
    raws = []
    for _ in range(frames):
        counts = rng.poisson(exposure * gain_true)
        raws.append(np.clip(counts + dark, 0, 65535).astype(np.uint16))
    return raws, dark, (1 / gain_true).astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--out", default=".")
    a = ap.parse_args()

    ds = pydicom.dcmread(get_testdata_file("RG3_UNCR.dcm"))
    image = ds.pixel_array
    h, w = image.shape
    print(f"RG3_UNCR.dcm: {w} x {h}, {ds.BitsStored} bits, {ds.PhotometricInterpretation}")
    raws, dark, gain = sequence(image, a.frames, np.random.default_rng(7))

    t0 = time.perf_counter()
    fluoro = ssc.compile(CHAIN, "-ts", "fused", "2", "-D", f"W={w}", "-D", f"H={h}")
    print(f"compiled examples/fluoro.ssc at {w} x {h} in {time.perf_counter() - t0:.1f} s")

    latencies = []
    with fluoro.open() as chain:
        for raw in raws:
            t = time.perf_counter()
            out = chain.run(raw=raw, dark=dark, gain=gain)
            latencies.append((time.perf_counter() - t) * 1e6)
        checksum = chain.checksum()
    lat = np.array(latencies)
    print(f"{len(lat)} frames: mean {lat.mean():.0f} us, min {lat.min():.0f}, max {lat.max():.0f};"
          f" checksum 0x{checksum:016x}")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 5.2), gridspec_kw={"width_ratios": [1, 1.1]})
    left.imshow(out["display"], cmap="gray", vmin=0, vmax=255)
    left.set_title(f"display, frame {len(raws) - 1} ({w} x {h}, 8 bits)")
    left.axis("off")
    right.hist(lat / 1000, bins=min(30, max(5, len(lat))), color="#4477aa")
    right.set_xlabel("latency of chain.run (ms, from Python)")
    right.set_ylabel("frames")
    right.set_title(f"examples/fluoro.ssc -ts fused 2: mean {lat.mean() / 1000:.2f} ms")
    fig.tight_layout()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "radiograph.png")
    fig.savefig(path, dpi=90)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
