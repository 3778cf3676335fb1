#!/usr/bin/env python3
"""run.py — a chain beside a CPU hog under SCHED_OTHER, --fifo 50 and
--sched-deadline (BENCHMARKS.md, "Real-time beside a hog"): examples/xray.ssc
at 512², -ts fused 1 on core 1 (-cm 1), its reservation from timed runs (-gw; under --sched-deadline the thread is
not pinned, which the kernel requires), a frame released every 2 ms, 1 000
frames, with a hog (hog.c, counting its loops) pinned to core 1 or to core 0,
and alone. Each condition runs --repeat times, interleaved; prints the
latency (mean, σ, p99.9), the frame-start jitter (σ of the release-to-start
delay is not separable from the latency here, so the latency's σ stands for
it) and the hog's loops per second against the hog alone. Needs root.

    python3 benches/deadline/run.py [--repeat 3] [--frames 1000]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--frames", type=int, default=1000)
    a = ap.parse_args()
    ssc = os.environ.get("SSC", str(ROOT / "target" / "release" / "ssc"))
    out = Path(tempfile.mkdtemp(prefix="ssc-deadline-"))
    subprocess.run([ssc, "build", str(ROOT / "examples" / "xray.ssc"), "-ts", "fused", "1",
                    "-cm", "1", "-gw", "-o", str(out / "xray")], check=True, capture_output=True)
    subprocess.run(["cc", "-O2", "-o", str(out / "hog"), str(HERE / "hog.c")], check=True)
    base = [str(out / "xray"), "--iterations", str(a.frames), "--period-us", "2000", "--json"]
    policies = {"SCHED_OTHER": [], "--fifo 50": ["--fifo", "50"],
                "--sched-deadline": ["--sched-deadline"]}
    rows = {}

    def hog_rate(core, seconds):
        h = subprocess.Popen(["taskset", "-c", str(core), str(out / "hog")], stdout=subprocess.PIPE,
                             text=True)
        time.sleep(seconds)
        h.terminate()
        return float(h.communicate()[0])

    alone_hog = hog_rate(1, 2.0)
    for r in range(a.repeat):
        for hog in (None, 1, 0):
            for name, flags in policies.items():
                h = None
                if hog is not None:
                    h = subprocess.Popen(["taskset", "-c", str(hog), str(out / "hog")],
                                         stdout=subprocess.PIPE, text=True)
                    time.sleep(0.2)
                p = subprocess.run(base + flags, capture_output=True, text=True)
                rate = None
                if h is not None:
                    h.terminate()
                    rate = float(h.communicate()[0])
                if p.returncode != 0:
                    sys.exit(f"{name}: {p.stderr}")
                lat = json.loads(p.stdout)["latency_us"]
                rows.setdefault((hog, name), []).append((lat["mean"], lat["stddev"], lat["p99_9"], rate))
    print(f"hog alone on core 1: {alone_hog:.0f} loops/s\n")
    print("| hog | policy | mean µs | σ µs | p99.9 µs | hog loops/s vs alone |")
    print("|---|---|---|---|---|---|")
    for (hog, name), runs in rows.items():
        f = lambda k: " / ".join(f"{x[k]:.0f}" for x in runs)  # noqa: E731
        rate = " / ".join(f"{x[3] / alone_hog:.2f}" for x in runs) if hog is not None else "—"
        where = "none" if hog is None else f"core {hog}"
        print(f"| {where} | {name} | {f(0)} | {f(1)} | {f(2)} | {rate} |")


main()
