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
code and position, and that two different chains run open at once.
Prints one line per check; exits 1 on the first that fails.
"""
import os
import subprocess
import sys

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
with fluoro.open() as a, xray.open() as b:
    for _ in range(5):
        a.run(**ones(fluoro))
        b.run(**ones(xray))
    together = [a.checksum(), b.checksum()]
if together != alone:
    fail(f"two chains at once: {together}, alone {alone}")
print("fluoro and xray open at once, each its checksum alone ok")

out = subprocess.run([ssc.find_ssc_bin(), "--version"], capture_output=True, text=True)
if out.stdout.split() != ["ssc", ssc.__version__]:
    fail(f"ssc --version: {out.stdout!r}, the module {ssc.__version__}")
print(f"ssc --version and ssc.__version__: {ssc.__version__} ok")
