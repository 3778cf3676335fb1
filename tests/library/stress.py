"""stress.py — the Python module of a chain built with `-t library` under
several threads and misuse (tests/it/library.rs).

    python stress.py DIR MODULE threads THREADS FRAMES
        every thread runs FRAMES frames of its own through chain.run and
        compares each output with the same inputs run alone before
    python stress.py DIR MODULE close TRIES
        two threads in a run loop, chain.close() from the main thread after
        50 ms: close returns within 1 s, the runs end with Error, no output
        is wrong
    python stress.py DIR MODULE misuse
        read-only outputs raise ValueError; rows upwards in memory (negative
        strides) are taken; bad open() options raise ValueError
    python stress.py DIR MODULE hang
        (a chain whose kernel blocks in iteration 5) run raises Timeout
        with watchdog_ms, close raises Error and returns, a new open fails
Prints a line per check and "ok" at the end; exits non-zero on a failure.
"""
import os
import sys
import tempfile
import threading
import time

import numpy as np

directory, module, mode = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, directory)
m = __import__(module)


def frames_of(seed):
    """Input frames, X-ray-like: a smooth phantom with Poisson noise."""
    rng = np.random.default_rng(seed)
    frames = {}
    for name, dtype, shape in m.INPUTS:
        y, x = np.mgrid[0:shape[0], 0:shape[1]]
        phantom = 200 + 100 * np.sin(x / 9.0 + seed) * np.cos(y / 13.0)
        noisy = rng.poisson(np.maximum(phantom, 1)).astype(np.float64)
        if dtype.kind == "f":
            frames[name] = (noisy / 64.0).astype(dtype)
        else:
            info = np.iinfo(dtype)
            frames[name] = np.clip(noisy, info.min, info.max).astype(dtype)
    return frames


def same(a, b):
    return all(np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f") for k in a)


def threads(n, frames):
    chain = m.open()
    inputs = [[frames_of(100 * t + s) for s in range(3)] for t in range(n)]
    refs = [[{k: v.copy() for k, v in chain.run(**x).items()} for x in per] for per in inputs]
    wrong, errors = [], []

    def work(t):
        try:
            for f in range(frames):
                got = chain.run(**inputs[t][f % 3])
                if not same(got, refs[t][f % 3]):
                    wrong.append((t, f))
        except Exception as e:   # reported below, the test fails
            errors.append(repr(e))

    ts = [threading.Thread(target=work, args=(t,)) for t in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    count = chain.stats()["count"]
    chain.close()
    print(f"threads: wrong {len(wrong)} of {n * frames}, errors {errors}, frames counted {count}")
    assert not wrong and not errors and count == n * frames + 3 * n


def close(tries):
    x = frames_of(7)
    slowest, ended = 0.0, 0
    for _ in range(tries):
        chain = m.open()
        ref = {k: v.copy() for k, v in chain.run(**x).items()}
        outcome = []

        def work():
            try:
                while True:
                    if not same(chain.run(**x), ref):
                        outcome.append("wrong")
            except m.Error as e:
                outcome.append("closed" if ("closed" in str(e) or "not open" in str(e)) else repr(e))

        ts = [threading.Thread(target=work) for _ in range(2)]
        for t in ts:
            t.start()
        time.sleep(0.05)
        t0 = time.monotonic()
        chain.close()
        slowest = max(slowest, time.monotonic() - t0)
        for t in ts:
            t.join()
        assert outcome == ["closed", "closed"], outcome
        ended += 2
    print(f"close: {tries} tries, slowest close {slowest * 1e3:.1f} ms, {ended} runs ended with Error")
    assert slowest < 1.0


def refused(what, call, kind=ValueError, needle=""):
    try:
        call()
    except kind as e:
        assert needle in str(e), (what, str(e))
        print(f"{what}: {type(e).__name__}: {e}")
        return
    raise SystemExit(f"{what}: accepted")


def misuse():
    name, dtype, shape = m.OUTPUTS[0]
    x = frames_of(3)
    with m.open() as chain:
        ro = np.zeros(shape, dtype)
        ro.flags.writeable = False
        refused("writeable=False output", lambda: chain.run(**x, out={name: ro}), needle="read-only")
        assert not ro.any(), "the read-only array was written"
        frozen = bytes(ro.nbytes)
        fb = np.frombuffer(frozen, dtype).reshape(shape)
        refused("np.frombuffer(bytes) output", lambda: chain.run(**x, out={name: fb}), needle="read-only")
        assert frozen == bytes(ro.nbytes), "the bytes object was written"
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.raw")
            np.zeros(shape, dtype).tofile(path)
            mm = np.memmap(path, dtype, mode="r", shape=shape)
            refused("read-only memmap output", lambda: chain.run(**x, out={name: mm}), needle="read-only")
        # Rows upwards in memory: np.flipud gives a negative row stride.
        flipped = {k: np.flipud(v) for k, v in x.items()}
        want = chain.run(**{k: np.ascontiguousarray(v) for k, v in flipped.items()})
        got = chain.run(**flipped)
        assert same(got, want), "negative strides gave another result"
        out = np.flipud(np.zeros(shape, dtype))
        chain.run(**x, out={name: out})
        assert np.array_equal(out, chain.run(**x)[name]), "a flipped output was not written right"
        print(f"negative strides: inputs {flipped[m.INPUTS[0][0]].strides} and outputs taken")
        gapped = np.zeros((shape[0], shape[1] * 2), dtype)[:, ::2]
        refused("strided elements", lambda: chain.run(**x, out={name: gapped}), needle="adjacent")
    for bad in ({"depth": -1}, {"depth": 0}, {"spin_ns": -5}, {"fifo_priority": 100},
                {"watchdog_ms": -1}, {"depth": 2.5}, {"cores": [-1]}):
        refused(f"open({bad})", lambda: m.open(**bad), needle=next(iter(bad)).rstrip("s"))


def hang():
    chain = m.open(watchdog_ms=200)
    x = frames_of(1)
    for _ in range(5):
        chain.run(**x)
    t0 = time.monotonic()
    refused("run of a stuck frame", lambda: chain.run(**x), kind=m.Timeout, needle="stuck")
    took = time.monotonic() - t0
    assert took < 1.2, took
    t0 = time.monotonic()
    refused("close of a stuck chain", chain.close, kind=m.Error, needle="left holding")
    assert time.monotonic() - t0 < 1.2
    # A new instance is its own: it runs beside the stuck one's threads.
    again = m.open()
    for _ in range(5):
        again.run(**x)
    again.close()


if mode == "threads":
    threads(int(sys.argv[4]), int(sys.argv[5]))
elif mode == "close":
    close(int(sys.argv[4]))
elif mode == "misuse":
    misuse()
elif mode == "hang":
    hang()
else:
    raise SystemExit(f"unknown mode {mode}")
print("ok")
