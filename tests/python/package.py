"""package.py — the installed ssc package against the program.

    python package.py ROOT FRAMES OUT CHECKSUM CALLS

ROOT: the repository; FRAMES: what `tests/fluoro/reference.py make` wrote;
OUT: the outputs of the fluoro program (256², `-ts fused 2`) on those
frames; CHECKSUM: the checksum it printed; CALLS: the file the C compiler
wrapper ($CC) logs its calls in. Checks that `ssc.compile` builds the same
chain from the same file, that its outputs on the frames as numpy arrays
are the program's, bit for bit, with the same checksum, that a second
compile in a new process calls the C compiler for nothing but its
version, and that a refused description raises ssc.CompileError with its
code and position, and that two instances of one chain and an instance of
another run open at once, each with its own threads, cores and figures.
Prints one line per check; exits 1 on the first that fails.
"""
import os
import subprocess
import sys
import threading

import numpy as np

import ssc

ROOT, FRAMES, OUT, CHECKSUM, CALLS = sys.argv[1:6]
sys.path.insert(0, os.path.join(ROOT, "tests", "fluoro"))
import reference  # noqa: E402  (its image reader)

FLAGS = ("-ts", "fused", "2", "-D", "W=256", "-D", "H=256")


def fail(msg):
    print("FAILED:", msg)
    sys.exit(1)


if "--second" in sys.argv:
    # A new process: the chain comes from the cache.
    before = open(CALLS).read().splitlines() if os.path.exists(CALLS) else []
    ssc.compile(os.path.join(ROOT, "examples", "fluoro.ssc"), *FLAGS)
    after = open(CALLS).read().splitlines() if os.path.exists(CALLS) else []
    compiles = [c for c in after[len(before):] if c.strip() != "--version"]
    if compiles:
        fail(f"the second compile ran the C compiler: {compiles}")
    print("second compile: no C compiler run ok")
    sys.exit(0)

fluoro = ssc.compile(os.path.join(ROOT, "examples", "fluoro.ssc"), *FLAGS)
names = [n for n, _, _ in fluoro.INPUTS]
if names != ["raw", "dark", "gain"]:
    fail(f"INPUTS {names}")
dark, gain, raws = reference.inputs(FRAMES)
with fluoro.open() as chain:
    for k, raw in enumerate(raws):
        got = chain.run(raw=np.ascontiguousarray(raw, np.uint16), dark=np.ascontiguousarray(dark, np.uint16),
                        gain=np.ascontiguousarray(gain, np.float32))
        for name in ("archive", "display", "preview"):
            want = reference.read_image(os.path.join(OUT, "%s_%04d.pgm" % (name, k)))
            if not np.array_equal(got[name], want):
                fail(f"{name} frame {k} differs from the program's")
    checksum = "0x%016x" % chain.checksum()
if checksum != CHECKSUM:
    fail(f"checksum {checksum}, the program printed {CHECKSUM}")
print(f"outputs of {len(raws)} frames and checksum {checksum} as the program's ok")

try:
    ssc.compile("chain c {\n  input raw: float[64, 64];\n  a = raw + b;\n  b = 0.5 * a;\n  output o = b;\n}\n")
    fail("a cycle compiled")
except ssc.CompileError as e:
    where = (e.code, e.file, e.line, e.column)
    if where != ("E063", "<string>", 3, 13) or "error[E063]" not in e.message:
        fail(f"CompileError {where}: {e.message}")
print("CompileError E063 at <string>:3:13 ok")

try:
    ssc.compile(os.path.join(ROOT, "examples", "fluoro.ssc"), "-ts", "nonsense")
    fail("a bad flag compiled")
except ssc.CompileError as e:
    if e.code is not None or "nonsense" not in e.message:
        fail(f"bad flag: {e.code} {e.message}")
print("a bad command line is a CompileError without position ok")

# Two different chains open at once in one process: each gives the
# checksum it gives alone.
xray = ssc.compile(os.path.join(ROOT, "examples", "xray.ssc"), "-ts", "fused", "2", "-D", "W=128", "-D", "H=128")
ones = lambda m: {n: np.ones(shape, d) for n, d, shape in m.INPUTS}  # noqa: E731
alone = []
for m in (fluoro, xray):
    with m.open() as chain:
        for _ in range(5):
            chain.run(**ones(m))
        alone.append(chain.checksum())
def tasks():
    return set(os.listdir("/proc/self/task"))


# Two instances of fluoro and one of xray open at once, each with threads
# of its own pinned to the cores it was given, fed from three Python
# threads at once: each gives the checksum it gives alone, and counts its
# own frames.
cores = sorted(os.sched_getaffinity(0))
first, second = cores[0], cores[-1]
before = tasks()
a = fluoro.open(cores=[first])
threads_a = tasks() - before
a2 = fluoro.open(cores=[second])
threads_a2 = tasks() - before - threads_a
b = xray.open(cores=[second], spin_ns=0)
threads_b = tasks() - before - threads_a - threads_a2
for name, mine, core in (("fluoro", threads_a, first), ("fluoro again", threads_a2, second),
                         ("xray", threads_b, second)):
    if len(mine) != 2:
        fail(f"{name}: {len(mine)} threads of its own, expected 2")
    for tid in mine:
        if os.sched_getaffinity(int(tid)) != {core}:
            fail(f"{name}: thread {tid} may run on {os.sched_getaffinity(int(tid))}, not core {core}")
runs = {"a": (a, fluoro, 5), "a2": (a2, fluoro, 7), "b": (b, xray, 5)}
errors = []


def feed(chain, m, n):
    try:
        for _ in range(n):
            chain.run(**ones(m))
    except Exception as e:  # noqa: BLE001 - reported below
        errors.append(repr(e))


workers = [threading.Thread(target=feed, args=v) for v in runs.values()]
for w in workers:
    w.start()
for w in workers:
    w.join()
if errors:
    fail(f"instances side by side: {errors}")
counts = [chain.stats()["count"] for chain, _, _ in runs.values()]
together = [a.checksum(), b.checksum()]
for chain, _, _ in runs.values():
    chain.close()
if counts != [5, 7, 5]:
    fail(f"each instance's frames: {counts}, expected [5, 7, 5]")
if together != alone:
    fail(f"instances at once: {together}, alone {alone}")
if tasks() != before:
    fail(f"threads left after close: {sorted(tasks() - before)}")
print("two fluoro instances and one xray open at once, own threads, cores, frames and checksum ok")

out = subprocess.run([ssc.find_ssc_bin(), "--version"], capture_output=True, text=True)
if out.stdout.split() != ["ssc", ssc.__version__]:
    fail(f"ssc --version: {out.stdout!r}, the module {ssc.__version__}")
print(f"ssc --version and ssc.__version__: {ssc.__version__} ok")
