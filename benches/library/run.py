#!/usr/bin/env python3
"""run.py — a chain's latency through its library against the program's,
like for like (BENCHMARKS.md, "The chain as a library"): examples/xray.ssc
or examples/fluoro.ssc (--chain), at its own size or --size N (-D W=N -D H=N).

Both read the same two frames from memory (the program with --input, read
before its timed region; the library's caller, driver.c, before its first
frame), both copy every output out (the program with --output), both
report first source start to last sink end per frame. Pairs:

  program                 against  library, submit/wait, 2 frames in flight
  program --max-lead 1    against  library, process (one frame at a time)

run interleaved (round robin, --repeat rounds of --iterations frames); every
run must print the same checksum. Prints one Markdown table with the
library/program ratios.

    python3 benches/library/run.py [--chain xray|fluoro] [--size N] [--flags "-ts fused 2"] [--repeat 3] [--iterations 300]
"""
import argparse
import math
import os
import random
import re
import shlex
import struct
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"run.py: `{shlex.join(str(c) for c in cmd)}` exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r.stdout


# Each chain: its own size, and its inputs (name, what the frame holds).
CHAINS = {
    "xray": {"size": 512, "inputs": [("raw", "counts"), ("offset", "offset"), ("gainmap", "gain")]},
    "fluoro": {"size": 1024, "inputs": [("raw", "counts"), ("dark", "dark"), ("gain", "gain")]},
}


def report(text):
    m = re.search(r"mean ([\d.]+)\s+sd ([\d.]+).*p99\.9 ([\d.]+)\s+max ([\d.]+)", text)
    c = re.search(r"checksum: (0x[0-9a-f]+)", text)
    return [float(x) for x in m.groups()], c.group(1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--flags", default="-ts fused 2")
    p.add_argument("--chain", choices=sorted(CHAINS), default="xray")
    p.add_argument("--size", type=int, help="W = H (default: the chain's own)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--iterations", type=int, default=300)
    p.add_argument("--out", default=str(ROOT / "build" / "bench-library"))
    a = p.parse_args()
    chain, ports = a.chain, CHAINS[a.chain]
    out = Path(a.out) / chain
    out.mkdir(parents=True, exist_ok=True)
    ssc = os.environ.get("SSC", str(ROOT / "target" / "release" / "ssc"))
    size = a.size or ports["size"]
    flags = shlex.split(a.flags) + ["-D", f"W={size}", "-D", f"H={size}"]
    desc = str(ROOT / "examples" / f"{chain}.ssc")
    sh([ssc, "build", desc, *flags, "-od", str(out / "program")])
    sh([ssc, "build", desc, *flags, "-t", "library", "-od", str(out / "lib")])
    driver = out / "driver"
    sh(["cc", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{out / 'lib'}", f"-DCHAIN={chain}",
        f"-DCHAIN_UPPER={chain.upper()}", "-include", f"{chain}.h", str(HERE / "driver.c"),
        str(out / "lib" / f"lib{chain}.a"), "-pthread", "-lm", "-o", str(driver)])
    rng = random.Random(1)
    frames = out / "frames"
    for name, kind in ports["inputs"]:
        (frames / name).mkdir(parents=True, exist_ok=True)
        for k in range(2):
            if kind == "counts":
                v = [rng.randint(1000, 20000) for _ in range(size * size)]
                data = struct.pack("<%dH" % len(v), *v)
            elif kind == "dark":
                v = [rng.randint(100, 300) for _ in range(size * size)]
                data = struct.pack("<%dH" % len(v), *v)
            else:
                lo, hi = (900, 1100) if kind == "offset" else (0.8, 1.2)
                v = [rng.uniform(lo, hi) for _ in range(size * size)]
                data = struct.pack("<%df" % len(v), *v)
            (frames / name / f"f{k}.raw").write_bytes(data)
    inputs = [x for n, _ in ports["inputs"] for x in ("--input", f"{n}={frames / n}")]
    it = str(a.iterations)
    program = [str(out / "program" / chain), *inputs, "--output", str(out / "outputs"), "--iterations", it]
    runs = {
        "program": program,
        "library, submit/wait (2 in flight)": [str(driver), "async", it, str(frames)],
        "program --max-lead 1": program + ["--max-lead", "1"],
        "library, process (1 at a time)": [str(driver), "sync", it, str(frames)],
    }
    results = {k: [] for k in runs}
    sums = set()
    for _ in range(a.repeat):
        for name, cmd in runs.items():
            stats, checksum = report(sh(cmd))
            results[name].append(stats)
            sums.add(checksum)
    if len(sums) != 1:
        sys.exit(f"run.py: the runs printed different checksums: {sorted(sums)}")

    def pooled(rows):
        n = a.iterations
        mean = sum(r[0] for r in rows) / len(rows)
        var = sum((n - 1) * r[1] ** 2 + n * (r[0] - mean) ** 2 for r in rows) / (n * len(rows) - 1)
        return mean, math.sqrt(var), max(r[2] for r in rows), max(r[3] for r in rows)

    table = {k: pooled(v) for k, v in results.items()}
    print(f"{chain} {size}², `{a.flags}`, {a.repeat} rounds x {a.iterations} frames, µs; checksum {sums.pop()} (every run)\n")
    print("| | mean | σ | p99.9 | max | mean / program's |")
    print("|---|---:|---:|---:|---:|---:|")
    names = list(runs)
    for i, name in enumerate(names):
        m, s, p999, mx = table[name]
        ref = table[names[i - i % 2]][0]
        ratio = "" if i % 2 == 0 else f"{m / ref:.3f}"
        print(f"| {name} | {m:.1f} | {s:.1f} | {p999:.0f} | {mx:.0f} | {ratio} |")


if __name__ == "__main__":
    main()
