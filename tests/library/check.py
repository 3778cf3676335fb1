"""check.py — drives the Python module of a chain built with `-t library`
(tests/it/library.rs): frames of the built-in source's pattern, the checksum,
the statistics, the exceptions of misuse, and a second instance beside
the first.

    python check.py DIR MODULE FRAMES
"""
import sys

import numpy as np

directory, module, frames = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, directory)
chain_module = __import__(module)


def pattern(dtype, shape, i):
    # runtime-c/README.md: p = (7x + 13y + 31i) mod 251, then (p - 125) / 8
    # for floating types, p - 125 for signed, p for unsigned.
    y, x = np.mgrid[0:shape[0], 0:shape[1]]
    p = (7 * x + 13 * y + 31 * i) % 251
    if dtype.kind == "f":
        return ((p - 125) / 8.0).astype(dtype)
    return (p - 125 if dtype.kind == "i" else p).astype(dtype)


with chain_module.open(cores=[0, 1]) as chain:
    for i in range(frames):
        frame = {name: pattern(dt, shape, i) for name, dt, shape in chain_module.INPUTS}
        outputs = chain.run(**frame)
        assert sorted(outputs) == sorted(p[0] for p in chain_module.OUTPUTS), outputs.keys()
    first = chain.checksum()
    print("checksum: 0x%016x" % first)
    stats = chain.stats()
    assert stats["count"] == frames and 0 < stats["min_us"] <= stats["p50_us"] <= stats["max_us"], stats

    name, dt, shape = chain_module.INPUTS[0]
    bad = {n: pattern(d, s, 0) for n, d, s in chain_module.INPUTS}
    bad[name] = np.zeros((3, 5), dt)
    try:
        chain.run(**bad)
        raise SystemExit("a wrong shape was accepted")
    except ValueError as e:
        assert f"`{name}`" in str(e) and str(shape) in str(e) and "(3, 5)" in str(e), e
        print("error:", e)
    bad[name] = np.zeros(shape, np.float64 if dt != np.float64 else np.float32)
    try:
        chain.run(**bad)
        raise SystemExit("a wrong dtype was accepted")
    except ValueError as e:
        assert f"`{name}`" in str(e), e
        print("error:", e)
    # A second instance of the chain is its own: the same frames give it
    # the same outputs and checksum, and its statistics count its frames.
    with chain_module.open(cores=[1, 0]) as again:
        for i in range(frames):
            frame = {name: pattern(dt, shape, i) for name, dt, shape in chain_module.INPUTS}
            mine, theirs = again.run(**frame), chain.run(**frame)
            for k in mine:
                assert np.array_equal(mine[k], theirs[k], equal_nan=True), k
        assert again.checksum() == first, "the second instance's checksum"
        assert again.stats()["count"] == frames, again.stats()
        assert chain.stats()["count"] == 2 * frames, chain.stats()
    print("second instance: same outputs")
print("ok")
