#!/usr/bin/env python3
"""The X-ray chain beside a co-runner: the thesis' Chapter 4 on a real chain
(issue 28, benches/corunner/README.md).

The chain runs on core 0, one thread; a memory-bandwidth hog (`ssc
throttle hammer`, reading a 64 MiB buffer) runs on core 1. Three
conditions: the chain alone, beside the hog, and beside the hog under
`ssc throttle` in its fixed duty mode (this machine has no bandwidth
counters: the sensor is a replayed constant trace above the threshold, so
the monitor suspends the hog for --suspend-us after every --interval-us it
runs: 100/900 µs, a 10 % duty). The same for Halide's best schedule
(Mullapudi2016, benches/peers) when its venv is there. Runs are
interleaved by round; each prints ssc's report (mean, σ, p99.9, max).

    python3 benches/corunner/run.py [--ssc target/release/ssc] [--rounds 3]
        [--iterations 1000] [--resolution 512] [--json OUT]
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "benches" / "peers"))
import run as peers  # noqa: E402  (benches/peers/run.py: builders, scaling)

CHAIN_CORE, HOG_CORE = "0", "1"
CONDITIONS = ("alone", "hog", "hog+throttle")


def build_programs(a, build):
    """ssc's chain on one pinned thread, and Halide's best schedule."""
    desc = peers.scaled_description(a.resolution, build)
    ssc = peers.build_ssc(a.ssc, desc, a.config, a.resolution, build, 0, None)
    ssc["name"] = f"ssc {a.config}"
    progs = [ssc]
    for h in peers.build_halide(a.halide_python, a.resolution, build):
        if "Mullapudi" in h["name"]:
            h["cmd"] += ["--resolution", str(a.resolution)]
            progs.append(h)
    return progs


class Hog:
    """`ssc throttle hammer` on HOG_CORE, reading a buffer out of cache
    until its standard input closes."""

    def __init__(self, ssc):
        self.p = subprocess.Popen([ssc, "throttle", "hammer", "--kind", "read",
                                   "--bytes", "64MiB", "--core", HOG_CORE],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline().strip()
        if line != "ready":
            peers.die(f"the hog did not start: {line!r}")

    def stop(self):
        """Its bandwidth over its run, GB/s."""
        os.kill(self.p.pid, 18)  # SIGCONT: the throttle may have left it stopped
        self.p.stdin.close()
        out = self.p.stdout.read().split()
        self.p.wait()
        try:
            return float(out[0]) / max(float(out[1]), 1e-9) / 1e9
        except (IndexError, ValueError):
            return float("nan")


def throttle(ssc, pid, trace):
    """`ssc throttle` in fixed duty mode on the hog (signal actuator)."""
    return subprocess.Popen([ssc, "throttle", "--sensor", f"replay:{trace}",
                             "--be-pid", str(pid), "--rt-cores", CHAIN_CORE,
                             "--be-cores", HOG_CORE, "--threshold", "1MB/s",
                             "--interval-us", "100", "--suspend-us", "900"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_chain(prog, a, env):
    cmd = ["taskset", "-c", CHAIN_CORE] + prog["cmd"] + ["--iterations", str(a.iterations),
                                                         "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        peers.die(f"`{shlex.join(cmd)}` exited {r.returncode}:\n{r.stdout}{r.stderr}")
    rep = json.loads(r.stdout)
    lat = rep["latency_us"]
    return {k: lat[k] for k in ("mean", "stddev", "p99_9", "max")}


def once(prog, cond, a, env, trace):
    hog = mon = None
    if cond != "alone":
        hog = Hog(a.ssc)
        if cond == "hog+throttle":
            mon = throttle(a.ssc, hog.p.pid, trace)
            time.sleep(0.2)  # its first samples
        time.sleep(0.2)      # the hog at full speed
    res = run_chain(prog, a, env)
    if mon is not None:
        mon.send_signal(15)
        out, err = mon.communicate()
        res["throttle"] = (out + err).strip().splitlines()[-1:] or [""]
    if hog is not None:
        res["hog_GBps"] = hog.stop()
    res["load"] = os.getloadavg()[0]
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ssc", default=str(ROOT / "target" / "release" / "ssc"))
    ap.add_argument("--config", default="-ts fused 1 -cm 0 -ca",
                    help="ssc build flags of the chain (one thread, core 0)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--resolution", type=int, default=512)
    ap.add_argument("--halide-python", default=os.environ.get(
        "HALIDE_PYTHON", "/work/venv-halide/bin/python"))
    ap.add_argument("--json", help="write every run's numbers here")
    a = ap.parse_args()
    if not Path(a.ssc).exists():
        peers.die(f"no ssc at {a.ssc} (cargo build --release, or --ssc PATH)")
    build = Path(tempfile.mkdtemp(prefix="ssc-corunner-"))
    progs = build_programs(a, build)
    trace = build / "constant.csv"
    # A hog that never stops, as counters would see it: far above the
    # threshold in every interval.
    trace.write_text("t_us,core,read_bytes,write_bytes\n"
                     f"1000,{HOG_CORE},10000000,0\n")
    env = dict(os.environ, HL_NUM_THREADS="1")
    runs = {(p["name"], c): [] for p in progs for c in CONDITIONS}
    for r in range(a.rounds):
        for cond in CONDITIONS:
            for p in progs:
                res = once(p, cond, a, env, trace)
                runs[(p["name"], cond)].append(res)
                print(f"round {r + 1} {p['name']:<28} {cond:<13} mean {res['mean']:9.1f}  "
                      f"sd {res['stddev']:8.1f}  p99.9 {res['p99_9']:9.1f}  "
                      f"max {res['max']:9.1f} us  hog {res.get('hog_GBps', 0):.2f} GB/s  "
                      f"load {res['load']:.1f}", flush=True)
    print("\n| program | condition | mean (µs) | σ (µs) | p99.9 (µs) | max (µs) |")
    print("|---|---|---|---|---|---|")
    for p in progs:
        for cond in CONDITIONS:
            rs = runs[(p["name"], cond)]
            col = lambda k: " / ".join(f"{x[k]:.0f}" for x in rs)  # noqa: E731
            print(f"| {p['name']} | {cond} | {col('mean')} | {col('stddev')} | "
                  f"{col('p99_9')} | {col('max')} |")
    if a.json:
        Path(a.json).write_text(json.dumps(
            {f"{k[0]} / {k[1]}": v for k, v in runs.items()}, indent=1))


if __name__ == "__main__":
    main()
