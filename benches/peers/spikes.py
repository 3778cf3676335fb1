#!/usr/bin/env python3
"""spikes.py — how often a program of run.py has a frame far above its mean.

Runs the programs run.py built (its build directory's programs.json) round robin, each
round --iterations frames, each program as built and under SCHED_FIFO
(`chrt -f PRIO`, inherited by its threads), and counts the rounds whose
longest frame exceeds --factor times the round's mean; prints every
round's maximum. With /proc/stat's steal time over each run, to tell the
hypervisor's preemption from the guest's.

    python3 benches/peers/run.py --configs "-ts fused 2" --rounds 1 --iterations 10
    python3 benches/peers/spikes.py --build-dir target/peers/1024 --rounds 30 \
        --only "xray ssc" "xray OpenMP strips" "xray Halide manual strips"

Each run is kept under a second (the default 300 frames at 1024²) so that
Linux's RT throttling (0.95 s of SCHED_FIFO a second) never pauses one;
a second of rest before each FIFO run starts it on a fresh period.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

from run import program_env, rt_rest  # run.py, beside this file


def steal_ticks():
    """The guest's steal time (USER_HZ ticks), field 8 of /proc/stat's cpu line."""
    with open("/proc/stat") as f:
        return int(f.readline().split()[8])


def programs(build, prio, names=None):
    """(label, command) of every program run.py built (its programs.json),
    each as built and under SCHED_FIFO (ssc's --fifo, the peers under
    chrt -f); names: only the labels containing one of these."""
    listing = build / "programs.json"
    if not listing.exists():
        return []
    progs = []
    for p in json.loads(listing.read_text()):
        label, cmd = f"{p['chain']} {p['name']}", p["cmd"]
        if names and not any(n in label for n in names):
            continue
        progs.append((label, cmd))
        if p["group"] == "ssc":
            progs.append((f"{label}, --fifo {prio}", cmd + ["--fifo", str(prio)]))
        else:
            progs.append((f"{label} (chrt -f {prio})", ["chrt", "-f", str(prio)] + cmd))
    return progs


def main():
    ap = argparse.ArgumentParser(description="count the rounds with a long frame")
    ap.add_argument("--build-dir", required=True, help="run.py's build directory")
    ap.add_argument("--resolution", type=int, default=None, help="(ignored: run.py's build has it)")
    ap.add_argument("--only", nargs="+", default=None,
                    help="only programs whose `CHAIN NAME` contains one of these")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--factor", type=float, default=4.0)
    ap.add_argument("--prio", type=int, default=10)
    a = ap.parse_args()
    progs = programs(Path(a.build_dir), a.prio, a.only)
    if not progs:
        sys.exit(f"spikes.py: no programs in {a.build_dir}: run run.py first")
    env = program_env()
    rounds = {label: [] for label, _ in progs}
    for _ in range(a.rounds):
        for label, cmd in progs:
            if cmd[0] == "chrt" or "--fifo" in cmd:
                rt_rest()
            s0 = steal_ticks()
            r = subprocess.run(cmd + ["--iterations", str(a.iterations), "--json"],
                               capture_output=True, text=True, env=env)
            if r.returncode != 0:
                sys.exit(f"spikes.py: {label} exited {r.returncode}:\n{r.stderr}")
            lat = json.loads(r.stdout)["latency_us"]
            rounds[label].append((lat["mean"], lat["max"], steal_ticks() - s0))
    print(f"{a.rounds} rounds of {a.iterations} frames, "
          f"a long frame = above {a.factor}x the round's mean\n")
    print("| program | mean µs | rounds with a long frame | maxima µs | steal ticks |")
    print("|---|---:|---:|---|---:|")
    for label, rs in rounds.items():
        mean = sum(r[0] for r in rs) / len(rs)
        long = sum(1 for r in rs if r[1] > a.factor * r[0])
        maxima = " ".join(f"{r[1]:.0f}" for r in rs)
        print(f"| {label} | {mean:.1f} | {long} of {len(rs)} | {maxima} | {sum(r[2] for r in rs)} |")


if __name__ == "__main__":
    main()
